"""The facts Python shares with the core are the core's (hrpsim.core_facts), not copies.

Two halves: the Python side's tables equal what the core answers through the cffi extension
(and, for the numbers the extension takes from the headers at build time, what the headers
say), and no copy of a table is left in python/hrpsim (each pattern below matches the copy
that used to be there: test_patterns_catch_the_old_copies proves the grep can fail).
"""

import re
from pathlib import Path

import pytest

import hrpsim
from hrpsim import core_facts
from hrpsim.local import core_module

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "python" / "hrpsim"
ARM6 = REPO / "samples" / "models" / "arm6" / "arm6.wrl"


@pytest.fixture(scope="module")
def core():
    return core_module()


def test_error_codes_are_util_h_values(core):
    """Every hstError value the extension has is the one util/util.h writes (parsed here from
    the header's text, independently of _core_build.py), and the names are all of them."""
    text = (REPO / "util" / "util.h").read_text()
    body = re.search(r"typedef enum hstError \{(.*?)\} hstError;", text, re.S).group(1)
    written = dict((n, int(v)) for n, v in re.findall(r"(hs\w+)\s*=\s*(-?\d+)", body))
    assert len(written) == 9 and written["hsE_ORDER"] == -8
    for name, value in written.items():
        assert getattr(core.lib, name) == value, name
    assert core_facts.error_code("RUNAWAY") == written["hsE_RUNAWAY"]


def test_refusals_map_the_core_codes(core):
    """The local back end's refused requests (hsE_INVALID, hsE_ORDER, hsE_UNSUPPORTED) raise
    the classes the server back ends raise; other codes are not refusals."""
    from hrpsim import errors
    from hrpsim.local import _refusal
    lib = core.lib
    assert _refusal(lib.hsE_INVALID) is errors.BadArgument
    assert _refusal(lib.hsE_ORDER) is errors.CallOrderError
    assert _refusal(lib.hsE_UNSUPPORTED) is errors.Unsupported
    for code in (lib.hsE_NOMEM, lib.hsE_IO, lib.hsE_SYNTAX, lib.hsE_MODEL, lib.hsE_RUNAWAY):
        assert _refusal(code) is None


def test_sensor_tables_are_the_cores(core):
    """The sensor table, the noise components, SensorState's blocks and Simulation.sensors'
    keys are the core's hs_sensorType* answers; each kind has one key (the gyro's "gyro")."""
    ffi, lib = core.ffi, core.lib
    asked = []
    for t in range(lib.HS_SENSOR_TYPES):
        asked.append((ffi.string(lib.hs_sensorTypeKey(t)).decode(), t,
                      lib.hs_sensorTypeSize(t), lib.hs_sensorTypeOrder(t),
                      bool(lib.hs_sensorTypeNoisy(t))))
    assert lib.hs_sensorTypeKey(lib.HS_SENSOR_TYPES) == ffi.NULL
    assert list(core_facts.sensor_types()) == asked
    keys = [a[0] for a in asked]
    assert len(set(keys)) == len(keys) and "gyro" in keys and "rate_gyro" not in keys
    assert hrpsim.local.sensor_types() == [a[:4] for a in asked]
    assert core_facts.noise_components() == {k: max(n, 1) for k, _, n, _, noisy in asked
                                             if noisy}
    # what the project parser and set_sensor_noise accept is that table
    from hrpsim.project import _noise_types
    assert _noise_types() == core_facts.noise_components()
    blocks = core_facts.state_blocks()
    assert [b[0] for b in blocks] == [a[0] for a in sorted((a for a in asked if a[3] >= 0),
                                                            key=lambda a: a[3])]
    # the IDL's SensorState has these fields, in this order, after q, dq, u
    from hrpsim import OpenHRP
    fields = list(OpenHRP.SensorState.__init__.__code__.co_varnames[1:8])
    assert fields == ["q", "dq", "u"] + [b[1] for b in blocks]
    # sizes: OpenHRP's force sensors read 6 numbers, gyros and accelerometers 3
    assert {b[0]: b[2] for b in blocks}["force"] == 6
    with hrpsim.Simulation(backend="local", dt=0.001, models={"arm": ARM6}) as sim:
        sim.start()
        assert list(sim.sensors("arm")) == ["q", "dq", "u"] + [b[0] for b in blocks]


def test_noise_refusal_lists_the_cores_types():
    with hrpsim.Simulation(backend="local", dt=0.001, models={"arm": ARM6}) as sim:
        with pytest.raises(hrpsim.errors.BadArgument) as info:
            sim.set_sensor_noise(rate_gyro=(0.1, 0.0))
    assert "one of: %s" % ", ".join(core_facts.noise_components()) in str(info.value)


def test_log_keeps_the_documented_gyro_array_name():
    """log.npz's documented name for the gyro ("C.rate_gyro", docs/projects.md) is the one
    alias; every other sensor array is named by its key."""
    assert core_facts.log_array_name("gyro") == "rate_gyro"
    assert "`C.rate_gyro`" in (REPO / "docs" / "projects.md").read_text()
    for key in ("force", "accel", "range"):
        assert core_facts.log_array_name(key) == key


def test_camera_images_are_the_cores(core):
    """OpenHRP's Camera::CameraType (NONE, COLOR, MONO, DEPTH, COLOR_DEPTH, MONO_DEPTH) makes
    the images its name says; the answer comes from hs_cameraImages."""
    expected = {0: (False, False, False), 1: (True, False, False), 2: (False, True, False),
                3: (False, False, True), 4: (True, False, True), 5: (False, True, True),
                6: (False, False, False), -1: (False, False, False)}
    for t, images in expected.items():
        assert core_facts.camera_images(t) == images, t
        bits = core.lib.hs_cameraImages(t)
        assert images == (bool(bits & 1), bool(bits & 2), bool(bits & 4))


def test_extra_joint_types_are_the_cores(core):
    """One table of extra-joint types (hs_extraJointTypeName), whose names with EJ_ are the
    IDL's ExtraJointType enum in its order."""
    ffi, lib = core.ffi, core.lib
    names = []
    while lib.hs_extraJointTypeName(len(names)) != ffi.NULL:
        names.append(ffi.string(lib.hs_extraJointTypeName(len(names))).decode())
    assert core_facts.extra_joint_types() == tuple(names) == ("xyz", "xy", "z")
    from hrpsim import OpenHRP
    wire = [str(v) for v in OpenHRP.ExtraJointType._items]
    assert wire == [core_facts.extra_joint_wire(n) for n in names]
    assert [core_facts.extra_joint_kind(w) for w in wire] == names
    with pytest.raises(ValueError):
        core_facts.extra_joint_kind("EJ_BALL")
    with hrpsim.Simulation(backend="local", dt=0.001, models={"arm": ARM6}) as sim:
        links = sim.link_names("arm")
        with pytest.raises(hrpsim.errors.BadArgument) as info:
            sim.add_extra_joint("L", "arm", links[1], "arm", links[3], type="ball")
    assert str(sorted(names)) in str(info.value)


def test_runaway_wording_and_bounds_are_the_cores():
    """The bounds are the dynamics' (1e9 m, 1e8 m/s); the local runaway's message is the
    core's hs_step message, equal to hs_runawayMessage's, and the scheduler's description is
    recognised by the same wording."""
    assert core_facts.runaway_bounds() == (1e9, 1e8)
    with hrpsim.Simulation(backend="local", dt=0.001, models={"arm": ARM6}) as sim:
        sim.set_root_velocity("arm", (0.0, 0.0, 0.0))
        sim.start()
        sim.set_joint_torques("arm", [1e12] * 6)
        with pytest.raises(hrpsim.simulation.Runaway) as info:
            sim.step(2000)
        text = str(info.value)
        when = "before" if " before step " in text else "after"
        assert text == core_facts.runaway_message("arm", sim.steps, when)
    assert "|position| <= 1e+09 m, |velocity| <= 1e+08 m/s" in text
    described = "stepSimulation failed at t = 0.002 s: " + text
    assert core_facts.runaway_character(described) == "arm"
    odd = core_facts.runaway_message("two words (x)", 7)
    assert core_facts.runaway_character(odd) == "two words (x)"
    assert " by step 7: " in odd
    assert core_facts.runaway_character("stepSimulation failed: out of memory") is None


# ---------------------------------------------------------------------------------------------
# no copies left
# ---------------------------------------------------------------------------------------------

# (what, pattern, the old copy it catches); the patterns read python/hrpsim's sources
COPIES = [
    ("sensor sizes", r"""["'](force|gyro|accel)["']\s*:\s*[0-9]""",
     '''sizes = {"force": 6, "gyro": 3, "accel": 3, "range": 1}'''),
    ("sensor widths", r"""\(["'](force|rate_gyro|gyro|accel)["'],\s*[0-9]\)""",
     '''for key, width in (("force", 6), ("rate_gyro", 3), ("accel", 3)):'''),
    ("a second gyro key", r"""["']rate_gyro["']""",
     '''s["rate_gyro"].append([list(g) for g in ss.rateGyro])'''),
    ("extra-joint types", r"""["']xyz["']\s*[:,]\s*["'](xy|EJ_XYZ)["']|["']EJ_(XYZ|XY|Z)["']""",
     '''kinds = {"xyz": "EJ_XYZ", "xy": "EJ_XY", "z": "EJ_Z"}'''),
    ("extra-joint types", r"""\(["']xyz["'],\s*["']xy["']""",
     '''if t not in ("xyz", "xy", "z"):'''),
    ("camera types", r"""\bin \((1, 4|2, 5|3, 4, 5)\)""", "if kind in (1, 4):"),
    ("error codes", r"""\{\s*-[0-9]+\s*:""", "return {-1: errors.BadArgument, -8: errors."),
    ("runaway wording", r"""ran away""",
     '''m = re.search(r"character (.+?) ran away", exc.description)'''),
    ("runaway bounds", r"""1e9 m|1e8 m/s""", '''"(|position| <= 1e9 m, speeds <= 1e8 m/s'''),
    # the rule that turns periods, end times and frame times into steps (core.h hs_periodSteps,
    # hs_stepsToReach, hs_frameStep): limits.py, simulation.py, run_local.py, run.py had copies
    ("the period rule", r"""[-+]\s*1e-[69]\b|<=\s*1e-9\s*\*\s*period""",
     "return k if k >= 1 and abs(k * dt - period) <= 1e-9 * period else 0"),
    ("the period rule", r"""[-+]\s*1e-[69]\b""",
     "target = int(math.ceil(float(until) / self._dt - 1e-9))"),
    ("the period rule", r"""[-+]\s*1e-[69]\b""", "return int(math.ceil(k / (rate * dt) - 1e-6))"),
    ("the period rule", r"""[-+]\s*1e-[69]\b""",
     '''"partial" if status.time < project.end_time - 1e-9 else "the",'''),
    ("the period rule", r"""round\(.*/\s*(dt|self\._dt|project\.time_step)\b""",
     "return max(1, int(round((project.log_period or project.time_step) / project.time_step)))"),
]

# the one place each fact may be named: core_facts.py (the log's documented gyro name, the
# IDL's field names); viewer/replay.py reads log.npz arrays by their names (the viewer is
# out of this change: its series table is listed in the report as left)
ALLOWED = {"core_facts.py", "viewer/replay.py"}


def sources():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel not in ALLOWED and not rel.startswith("_idl"):
            yield rel, path.read_text()


def test_patterns_catch_the_old_copies():
    for what, pattern, old in COPIES:
        assert re.search(pattern, old), (what, old)


def test_no_copy_of_a_core_table_in_python():
    found = []
    for rel, text in sources():
        for n, line in enumerate(text.splitlines(), 1):
            for what, pattern, _ in COPIES:
                if re.search(pattern, line):
                    found.append("%s:%d: %s: %s" % (rel, n, what, line.strip()))
    assert not found, "\n".join(found)


def test_no_copy_in_the_c_sources():
    """The runaway wording and the extra-joint names are written once in C too."""
    code = {}  # file -> its text without // comments
    for d in ("core", "dynamics", "model", "server"):
        for p in sorted((REPO / d).rglob("*.[ch]*")):
            code[p] = re.sub(r"//[^\n]*", "", p.read_text(errors="replace"))
    wording = [p.name for p, text in code.items() if "ran away %s step" in text]
    assert wording == ["dynamics_world.c"]
    names = [p.name for p, text in code.items()
             if re.search(r'"xyz",\s*"xy",\s*"z"|= "xyz"', text)]
    assert names == ["model_names.c"]
    # the period rule's slack (1e-9) in one file, the core's; no other rule for frames
    slack = [p.name for p, text in code.items() if re.search(r"[-+*]\s*1e-9\b", text)
             and p.parent.name in ("scheduler", "core", "common")]
    assert slack == ["core_sim.c"]
    frames = [p.name for p, text in code.items() if re.search(r"ceil\(|floor\(", text)
              and p.parent.name in ("scheduler", "core")]
    assert frames == ["core_run.c", "core_sim.c"]


def test_local_torques_by_link_and_the_deprecated_name():
    """sim.local.set_joint_torques_by_link indexes by link (hs_linkCount values, the root's
    ignored); its old name, documented before, warns and does the same."""
    with hrpsim.Simulation(backend="local", dt=0.001, models={"arm": ARM6}) as sim:
        sim.start()
        core = sim.local
        ch = core.index("arm")
        n = core.link_count(ch)
        tau = [0.0] + [0.5 * k for k in range(1, n)]
        core.set_joint_torques_by_link(ch, tau)
        assert list(core.lib.hs_torqueCommands(core.ptr, ch)[0:n]) == tau
        with pytest.warns(DeprecationWarning, match="set_joint_torques_by_link"):
            core.set_joint_torques(ch, [0.0] * n)
        assert list(core.lib.hs_torqueCommands(core.ptr, ch)[0:n]) == [0.0] * n
        with pytest.raises(hrpsim.errors.BadArgument):
            core.set_joint_torques_by_link(ch, [0.0] * (n - 1))
