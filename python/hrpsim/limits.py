"""The bounds the simulation core puts on its inputs, written once for the Python side.

The core (core/core.h: ``hs_minTimeStep()``, ``hs_maxTimeStep()``; dynamics.h's
hsdMIN_TIME_STEP / hsdMAX_TIME_STEP) is the authority. These are plain constants, not read
from the cffi extension, so the server-only path (``pip install`` without a build, project
files checked on a machine without the core) never needs it; tests/e2e/test_local.py's
``test_time_step_bounds_match_core`` compares them with the built core, so they cannot drift.
``hrpsim.simulation`` and ``hrpsim.project`` import them from here.
"""

# the time steps the dynamics accept [s]
MIN_TIME_STEP = 1e-6
MAX_TIME_STEP = 1.0
