"""The bounds the simulation core puts on its inputs, written once for the Python side.

The core (core/core.h: ``hs_minTimeStep()``, ``hs_maxTimeStep()``; dynamics.h's
hsdMIN_TIME_STEP / hsdMAX_TIME_STEP) is the authority. These are plain constants, not read
from the cffi extension; tests/e2e/test_local.py's ``test_time_step_bounds_match_core``
compares them with the built core, so they cannot drift. ``hrpsim.simulation`` and
``hrpsim.project`` import them from here. The rule that turns periods and times into whole
steps is not copied here: ``period_steps`` and ``steps_to_reach`` call the core's
(``hs_periodSteps``, ``hs_stepsToReach``) through the cffi extension (hrpsim.local), so projects,
``Simulation.run`` and `hrpsim run --local` count steps as the Scheduler does.

It also reads the joint-limit switch that ``hrpsim.Simulation(joint_limits=...)`` and a
project's ``<simulation jointLimits="...">`` take (``joint_limits``): which of a model's joint
limits torque-mode joints obey, as the core's hsLIMIT_* bits (dynamics/dynamics.h).
"""

# the time steps the dynamics accept [s]
MIN_TIME_STEP = 1e-6
MAX_TIME_STEP = 1.0

# the largest magnitude of any number the dynamics accept (dynamics.h: hsdMAX_VALUE)
MAX_VALUE = 1e12


def period_steps(period, dt):
    """The whole number of steps of length ``dt`` in ``period``, or 0 if it is not a whole
    multiple: the core's rule (hs_periodSteps in core/core.h: within 1e-9 of the period,
    relative, so it does not depend on units or on how small the step is)."""
    from .local import core_module
    return int(core_module().lib.hs_periodSteps(float(period), float(dt)))


def steps_to_reach(t, dt):
    """The first step count at which simulated time reaches ``t`` with steps of ``dt``: the
    core's rule (hs_stepsToReach in core/core.h: 1e-9 steps of slack)."""
    from .local import core_module
    return int(core_module().lib.hs_stepsToReach(float(t), float(dt)))


# the kinds of joint limit, in the order of the core's hsLIMIT_* bits (1, 2, 4)
JOINT_LIMIT_KINDS = ("position", "velocity", "effort")


def joint_limits(value):
    """The joint-limit switch in one form: True (all three kinds), False (none) or a tuple of
    some kinds in JOINT_LIMIT_KINDS order. ``value`` is a bool, one of "true"/"false"/"all"/
    "none", kind names (a string separated by spaces or commas, or an iterable), or three
    booleans (position, velocity, effort; what joint_limit_flags returns); ValueError
    otherwise."""
    if isinstance(value, (bool, int)) and not isinstance(value, float):
        return bool(value)
    if isinstance(value, (tuple, list)) and len(value) == 3 and all(
            isinstance(v, bool) for v in value):
        value = [k for k, on in zip(JOINT_LIMIT_KINDS, value) if on]
    if isinstance(value, str):
        t = value.strip().lower()
        if t in ("true", "all"):
            return True
        if t in ("false", "none", ""):
            return False
        value = t.replace(",", " ").split()
    try:
        names = {str(v).strip().lower() for v in value}
    except TypeError:
        raise ValueError("joint limits must be True, False or kinds of %s, got %r"
                         % (", ".join(JOINT_LIMIT_KINDS), value)) from None
    bad = sorted(names - set(JOINT_LIMIT_KINDS))
    if bad:
        raise ValueError("unknown joint limit kind %s (known: %s)"
                         % (", ".join(map(repr, bad)), ", ".join(JOINT_LIMIT_KINDS)))
    kinds = tuple(k for k in JOINT_LIMIT_KINDS if k in names)
    return True if len(kinds) == len(JOINT_LIMIT_KINDS) else (kinds or False)


def joint_limit_flags(value):
    """(position, velocity, effort) booleans of a joint-limit switch (see joint_limits)."""
    v = joint_limits(value)
    return tuple(v is True or (v is not False and k in v) for k in JOINT_LIMIT_KINDS)


def joint_limit_bits(value):
    """The core's hsLIMIT_* bit set of a joint-limit switch (see joint_limits)."""
    return sum(1 << i for i, on in enumerate(joint_limit_flags(value)) if on)
