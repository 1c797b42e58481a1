"""One exception class per kind of mistake, the same class and message on every back end.

Each mistake a new user makes (a missing model file, a broken one, a character or link name
that is not there, a call out of order, a bad value, a call on a closed Simulation) is made
on the local core, on the servers client-driven and through the scheduler: each raises the
same ``hrpsim.errors`` class, which is an ``hrpsim.HrpsimError`` and the builtin that fits,
with the same text. Before: the local back end raised ``hrpsim.local.CoreError`` (a
RuntimeError, "file:line" without the column) for a broken model and the server back ends
the CORBA ``ModelLoaderException``; an unknown link in a collision pair was "collision pair:
..." on the local back end, "registerCollisionCheckPair: ..." on the server and a
SchedulerRefused without the operation through the scheduler; a bad value before the first
step was a BadArgument on two back ends and a SchedulerRefused on the third; a closed
Simulation built a new world on its next step, and its ``time`` read 0 while ``steps`` kept
the count.
"""

import pickle

import numpy as np
import pytest

import hrpsim
from hrpsim import errors

from conftest import REPO_ROOT

HUMANOID = str(REPO_ROOT / "samples" / "models" / "humanoid" / "humanoid.wrl")
FLOOR = str(REPO_ROOT / "samples" / "models" / "floor" / "floor.wrl")
BACKENDS = ("local", "server", "scheduler")
ROTATION_2 = [1, 0, 0, 0, 2, 0, 0, 0, 1]   # a stretch, not a rotation


@pytest.fixture(scope="module")
def naming(servers):
    if not servers.has("Scheduler"):
        pytest.fail("the Scheduler server did not start with hrpsim up", pytrace=False)
    return servers.corbaloc


@pytest.fixture
def broken(tmp_path):
    """A VRML file whose line 2, column 7 names an unknown node type."""
    path = tmp_path / "broken.wrl"
    path.write_text("#VRML V2.0 utf8\nDEF X Humanoid {\n  name \"x\"\n}\n")
    return path


def make(backend, naming):
    if backend == "local":
        return hrpsim.Simulation(backend="local")
    return hrpsim.Simulation(backend=backend, naming=naming)


def robot(sim):
    sim.add_model("robot", HUMANOID)
    return sim


def mistakes(tmp_path, broken):
    """(name, the mistake as a function of a fresh Simulation, the class it must raise)."""
    missing = tmp_path / "no_such_model.wrl"
    return [
        ("missing file", lambda s: s.add_model("robot", missing), errors.ModelFileNotFound),
        ("broken model", lambda s: s.add_model("robot", broken), errors.ModelError),
        ("unknown character", lambda s: robot(s).set_joint_mode("robt", "torque"),
         errors.UnknownName),
        ("unknown link", lambda s: robot(s).set_link_data("robot", "WIAST", "EXTERNAL_FORCE",
                                                           [0.0] * 6), errors.UnknownName),
        ("unknown link read", lambda s: robot(s).link_data("robot", "WIAST", "ABS_TRANSFORM"),
         errors.UnknownName),
        ("unknown link in a pair", lambda s: robot(s).add_collision_pair("robot", "robot",
                                                                          "WIAST", "CHEST"),
         errors.UnknownName),
        ("unknown link in a loop", lambda s: robot(s).add_extra_joint(
            "l", "robot", "WAIST", "robot", "CHST"), errors.UnknownName),
        ("unknown extra joint", lambda s: robot(s).start().extra_joint_force("robot", "loop"),
         errors.BadArgument),
        ("configure after start", lambda s: robot(s).start().set_gravity((0, 0, 9.8)),
         errors.CallOrderError),
        ("step without a model", lambda s: s.step(1), errors.CallOrderError),
        ("wrong number of joint values", lambda s: robot(s).set_joint_values("robot", [0.0]),
         errors.BadArgument),
        ("huge joint value before the start",
         lambda s: robot(s).set_joint_values("robot", [0.0] * 29 + [1e13]),
         errors.BadArgument),
        ("huge joint value between steps",
         lambda s: robot(s).start().set_joint_values("robot", [0.0] * 29 + [1e13]),
         errors.BadArgument),
        ("short pose before the start",
         lambda s: robot(s).set_link_data("robot", "WAIST", "ABS_TRANSFORM", [0.0] * 5),
         errors.BadArgument),
        ("not a rotation before the start",
         lambda s: robot(s).set_root_pose("robot", (0, 0, 1), ROTATION_2), errors.BadArgument),
        ("not a rotation between steps",
         lambda s: robot(s).start().set_root_pose("robot", (0, 0, 1), ROTATION_2),
         errors.BadArgument),
        ("a computed datum", lambda s: robot(s).set_link_data(
            "robot", "WAIST", "ABS_ACCELERATION", [0.0] * 6), errors.BadArgument),
        ("unknown joint mode", lambda s: robot(s).set_joint_mode("robot", "stiff"),
         errors.BadArgument),
        ("a box of no size", lambda s: s.add_box("crate", (0.0, 0.3, 0.2), (0, 0, 1)),
         errors.BadArgument),
        ("step on a closed simulation", closed(lambda s: s.step(1)), errors.CallOrderError),
        ("read a closed simulation", closed(lambda s: s.q("robot")), errors.CallOrderError),
        ("configure a closed simulation", closed(lambda s: s.set_gravity((0, 0, 1))),
         errors.CallOrderError),
        ("reset a closed simulation", closed(lambda s: s.reset()), errors.CallOrderError),
    ]


def closed(then):
    def mistake(sim):
        robot(sim).step(2)
        sim.close()
        then(sim)
    return mistake


def test_each_mistake_raises_one_class_and_message_on_every_back_end(naming, tmp_path, broken):
    builtins = {errors.ModelFileNotFound: (ValueError, FileNotFoundError),
                errors.ModelError: (ValueError,), errors.UnknownName: (KeyError, LookupError),
                errors.BadArgument: (ValueError,), errors.CallOrderError: (RuntimeError,)}
    differ = []
    for name, mistake, cls in mistakes(tmp_path, broken):
        seen = {}
        for backend in BACKENDS:
            sim = make(backend, naming)
            try:
                with pytest.raises(Exception) as info:
                    mistake(sim)
            finally:
                sim.close()
            exc = info.value
            assert type(exc) is cls, "%s on %s: %r" % (name, backend, exc)
            assert isinstance(exc, hrpsim.HrpsimError)
            assert all(isinstance(exc, b) for b in builtins[cls]), (name, type(exc).__mro__)
            seen[backend] = str(exc)
        if len(set(seen.values())) != 1:
            differ.append((name, seen))
    assert not differ, "messages differ between back ends: %r" % differ


def test_a_model_error_names_file_line_and_column(naming, broken):
    for backend in BACKENDS:
        with make(backend, naming) as sim:
            with pytest.raises(errors.ModelError) as info:
                sim.add_model("robot", broken)
        e = info.value
        assert (e.file, e.line, e.column) == (str(broken), 2, 7), backend
        assert e.problem == "unknown node type 'Humanoid'"
        assert str(e) == "%s:2:7: unknown node type 'Humanoid'" % broken
        # it survives a sweep worker's pickling, location included
        back = pickle.loads(pickle.dumps(e))
        assert type(back) is errors.ModelError
        assert (back.file, back.line, back.column, str(back)) == (e.file, 2, 7, str(e))


def test_a_missing_model_says_so_on_every_back_end(naming, tmp_path):
    missing = tmp_path / "gone.wrl"
    texts = set()
    for backend in BACKENDS:
        with make(backend, naming) as sim:
            with pytest.raises(FileNotFoundError) as info:
                sim.add_model("robot", missing)
        assert info.value.file == str(missing)
        texts.add(str(info.value))
    assert texts == {"%s: cannot read '%s': No such file or directory" % (missing, missing)}


def test_an_unknown_name_reads_without_quotes():
    e = errors.UnknownName("character 'robot' has no link 'X'")
    assert str(e) == "character 'robot' has no link 'X'"      # not KeyError's repr


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_closed_simulation_stays_closed_and_keeps_its_final_time(naming, backend):
    """After close() nothing builds a new world: every call raises CallOrderError, and
    ``steps`` and ``time`` keep the final values, which agree (before: a step after close
    built and stepped a new world, and ``time`` read 0.0 while ``steps`` read the count)."""
    sim = make(backend, naming)
    robot(sim).step(11)
    assert sim.steps == 11
    sim.close()
    sim.close()                                     # idempotent
    assert sim.steps == 11
    assert sim.time == pytest.approx(11 * sim.dt, abs=1e-12)
    for call in (lambda: sim.step(1), lambda: sim.run(1.0), sim.start, sim.snapshot,
                 lambda: sim.root_pose("robot"), lambda: sim.set_joint_values(
                     "robot", np.zeros(30)), lambda: sim.add_model("floor", FLOOR)):
        with pytest.raises(errors.CallOrderError, match="the simulation is closed"):
            call()
    assert sim.steps == 11 and sim.time == pytest.approx(11 * sim.dt, abs=1e-12)
    assert sim.link_names("robot")[0] == "WAIST"    # the description stays readable
    assert "closed" in repr(sim)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_datum_between_steps_is_checked_once_by_the_core(naming, backend):
    """Between steps set_link_data sends the datum on: the core's check (the servant's
    operation name, then the core's words), the same on every back end, is the only one
    (before: a Python copy of it refused the datum first, in other words)."""
    with make(backend, naming) as sim:
        robot(sim).start()
        with pytest.raises(errors.BadArgument) as info:
            sim.set_root_pose("robot", (0, 0, 1), ROTATION_2)
        assert str(info.value).startswith("setCharacterLinkData: ABS_TRANSFORM: the rotation "
                                          "(row-major 3x3) is not orthonormal"), str(info.value)
        with pytest.raises(errors.BadArgument) as info:
            sim.set_link_data("robot", "WAIST", "EXTERNAL_FORCE", [0.0] * 5)
        assert str(info.value) == ("setCharacterLinkData: 'robot' link 'WAIST': EXTERNAL_FORCE "
                                   "needs 6 numbers, got 5")
        sim.step(1)                                   # nothing of it was written
        assert sim.time == pytest.approx(sim.dt)
