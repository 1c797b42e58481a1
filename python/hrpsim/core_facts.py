"""hrpsim.core_facts: the facts Python shares with the simulation core, asked of the core.

Error codes, sensor types (keys, sizes, SensorState order, which take noise), camera types'
images, extra-joint types and the runaway bounds and wording are the core's (core/core.h,
read through the cffi extension ``hrpsim.local.core_module``, on first use and then kept);
nothing here retypes them, so a change in the core reaches every back end and the project
parser at once (tests/e2e/test_core_facts.py checks that no copy comes back).

Every back end needs the extension for these facts (the server back ends too: the core is built
with the servers, by tools/bootstrap.sh).
"""

import functools
import re

__all__ = ["error_code", "sensor_types", "state_blocks", "noise_components", "log_array_name",
           "camera_images", "extra_joint_types", "extra_joint_wire", "extra_joint_kind",
           "runaway_bounds", "runaway_message", "runaway_character"]


@functools.lru_cache(maxsize=None)
def _core():
    from .local import core_module
    return core_module()


def error_code(name):
    """The core's hstError value called hsE_<name> ("INVALID", "ORDER", ...)."""
    return getattr(_core().lib, "hsE_" + name)


@functools.lru_cache(maxsize=None)
def sensor_types():
    """The core's table of sensor types (core.h, hs_sensorType*), in hstSensor order: tuples
    (key, hstSensor, numbers per reading (-1: per sensor, range beams; 0: none, vision), place
    of the type's block in SensorState (-1: not there), noise applies (bool)); key is the
    type's one name in hrpsim ("force", "gyro", "accel", "vision", "range")."""
    ffi, lib = _core().ffi, _core().lib
    table, t = [], 0
    while lib.hs_sensorTypeKey(t) != ffi.NULL:
        table.append((ffi.string(lib.hs_sensorTypeKey(t)).decode(), t, lib.hs_sensorTypeSize(t),
                      lib.hs_sensorTypeOrder(t), bool(lib.hs_sensorTypeNoisy(t))))
        t += 1
    return tuple(table)


def sensor_type_names():
    """OpenHRP's type string of each sensor kind, by the kind's log.npz array name (the core's
    hs_sensorTypeName): {"force": "Force", "rate_gyro": "RateGyro", ...}."""
    ffi, lib = _core().ffi, _core().lib
    return {log_array_name(key): ffi.string(lib.hs_sensorTypeName(t)).decode()
            for key, t, *_ in sensor_types()}


# OpenHRP's SensorState blocks after q, dq, u, as the IDL names its fields, in its order (the
# core's hs_sensorTypeOrder numbers them)
_STATE_FIELDS = ("force", "rateGyro", "accel", "range")


@functools.lru_cache(maxsize=None)
def state_blocks():
    """(key, SensorState field, numbers per reading (-1: per sensor)) of each sensor block of
    OpenHRP's SensorState, in its order, from the core's table of sensor types."""
    return tuple((key, _STATE_FIELDS[order], size) for key, _, size, order, _ in
                 sorted((e for e in sensor_types() if e[3] >= 0), key=lambda e: e[3]))


@functools.lru_cache(maxsize=None)
def noise_components():
    """{key: components of a noise spec} for the types noise applies to, in hstSensor order:
    a reading's numbers, and 1 for range (one std and bias for every beam)."""
    return {key: max(size, 1) for key, _, size, _, noisy in sensor_types() if noisy}


# The log's array name of a sensor type whose log name is not its key: log.npz has carried the
# gyro readings as "C.rate_gyro" (docs/projects.md) since before the key was "gyro"; kept so
# existing logs and scripts read as they did (a deprecated alias of "gyro", only in log.npz).
_LOG_ALIASES = {"gyro": "rate_gyro"}


def log_array_name(key):
    """The name log.npz gives a sensor type's readings (its key, but for the gyro's
    "rate_gyro")."""
    return _LOG_ALIASES.get(key, key)


def camera_images(camera_type):
    """The images OpenHRP's camera type makes, from the core (hs_cameraImages): (color, mono,
    depth) booleans; all False for type 0 (none) or a bad type."""
    lib = _core().lib
    bits = lib.hs_cameraImages(camera_type)
    return (bool(bits & lib.hsIMAGE_COLOR), bool(bits & lib.hsIMAGE_MONO),
            bool(bits & lib.hsIMAGE_DEPTH))


@functools.lru_cache(maxsize=None)
def extra_joint_types():
    """The extra-joint types' names in hstExtraJoint order (the models' jointType words:
    "xyz", "xy", "z"), from the core's one table (hs_extraJointTypeName)."""
    ffi, lib = _core().ffi, _core().lib
    names, t = [], 0
    while lib.hs_extraJointTypeName(t) != ffi.NULL:
        names.append(ffi.string(lib.hs_extraJointTypeName(t)).decode())
        t += 1
    return tuple(names)


def extra_joint_wire(kind):
    """The IDL's ExtraJointType name of extra-joint type ``kind`` ("xy" -> "EJ_XY"; the IDL
    enum is OpenHRP's EJ_ + the type's name)."""
    return "EJ_" + kind.upper()


def extra_joint_kind(wire):
    """The type name of the IDL's ExtraJointType name ``wire`` ("EJ_XY" -> "xy")."""
    kind = str(wire)[len("EJ_"):].lower()
    if kind not in extra_joint_types():
        raise ValueError("not an extra-joint type: %r" % (wire,))
    return kind


def runaway_bounds():
    """(|position| [m], |velocity| [m/s and rad/s]): the bounds a moving body must keep, beyond
    which (or non-finite) its character ran away (hs_runawayMaxPosition / MaxSpeed)."""
    lib = _core().lib
    return lib.hs_runawayMaxPosition(), lib.hs_runawayMaxSpeed()


def runaway_message(who, steps, when=None):
    """The core's wording of a runaway (hs_runawayMessage): character ``who`` ran away
    ``when`` ("before" / "after"; None: by) step ``steps``, with the bounds."""
    ffi, lib = _core().ffi, _core().lib
    name = ffi.new("char[]", (who or "?").encode())
    when_c = ffi.new("char[]", when.encode()) if when else ffi.NULL
    n = lib.hs_runawayMessage(ffi.NULL, 0, name, when_c, steps)
    out = ffi.new("char[]", n + 1)
    lib.hs_runawayMessage(out, n + 1, name, when_c, steps)
    return ffi.string(out).decode(errors="replace")


@functools.lru_cache(maxsize=None)
def _runaway_pattern():
    """The core's wording as a pattern that finds the character: its text before the name and
    between the name and the "when" word (from the core, with markers in their places)."""
    text = runaway_message("\x01", 0, "\x02")
    before, rest = text.split("\x01", 1)
    between = rest.split("\x02", 1)[0]
    return re.compile(re.escape(before) + "(.+?)" + re.escape(between))


def runaway_character(text):
    """The character a runaway message names (a message in the core's wording anywhere in
    ``text``, e.g. a SchedulerError's description), or None when text reports no runaway."""
    m = _runaway_pattern().search(text)
    return m.group(1) if m else None
