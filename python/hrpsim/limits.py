"""The bounds the simulation core puts on its inputs, written once for the Python side.

The core (core/core.h: ``hs_minTimeStep()``, ``hs_maxTimeStep()``; dynamics.h's
hsdMIN_TIME_STEP / hsdMAX_TIME_STEP) is the authority. These are plain constants, not read
from the cffi extension, so the server-only path (``pip install`` without a build, project
files checked on a machine without the core) never needs it; tests/e2e/test_local.py's
``test_time_step_bounds_match_core`` compares them with the built core, so they cannot drift.
``hrpsim.simulation`` and ``hrpsim.project`` import them from here, and the period rule
(``period_steps``, the core's ``hs_periodSteps``) that projects and `hrpsim run --local` use.
"""

# the time steps the dynamics accept [s]
MIN_TIME_STEP = 1e-6
MAX_TIME_STEP = 1.0


def period_steps(period, dt):
    """The whole number of steps of length ``dt`` in ``period``, or 0 if it is not a whole
    multiple: the core's rule (hs_periodSteps in core/core.h), within 1e-9 of the period,
    relative, so it does not depend on units or on how small the step is."""
    k = round(period / dt)
    return k if k >= 1 and abs(k * dt - period) <= 1e-9 * period else 0
