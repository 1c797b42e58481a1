"""End-to-end tests of saved states (Simulation.save_state / restore_state, hrpsim.State).

- bit identity: a run restored from a state saved after step k and continued equals the
  uninterrupted run bit for bit (every snapshot: time, link poses, q, dq, u, every sensor
  reading; sleeping flags), for the squat (the sample humanoid in torque mode under the sample
  PD law, samples/projects/humanoid_squat.xml's set-up and controller), the crawler driving on
  its tracks, and a pile of boxes that falls asleep and is woken by a dropped box (saved while
  the pile settles); on each back end (local, server, scheduler) and on both engines (ODE,
  the joint-space engine); the state pickled in between, and restored into a new Simulation;
- closed loops (the four-bar and the parallel leg, on both engines): the loops' forces (and
  the ODE engine's auxiliary bodies) come back too;
- sweeps start every run from one saved state (threads and worker processes) and equal runs
  that made the settling phase themselves;
- across back ends: a state saved in process continues on the server and the scheduler with
  the bits of the in-process run;
- a state of the other engine brings its engine along (until reset);
- the scheduler saves and restores while paused (a finished run refuses), its hosted world
  refuses restoreState (BAD_INV_ORDER, lastError naming Scheduler::restoreState);
- refusals: a state of other models raises BadArgument (SchedulerRefused on the scheduler)
  naming the difference and changes nothing; restore_state takes only an hrpsim.State.
"""

import math
import pickle
import sys
from pathlib import Path

import numpy as np
import pytest

import hrpsim
from hrpsim.errors import BadArgument, SchedulerRefused

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "samples" / "models"
FLOOR = MODELS / "floor" / "floor.wrl"
HUMANOID = MODELS / "humanoid" / "humanoid.wrl"
sys.path.insert(0, str(REPO / "samples" / "controllers"))
from pd_controller import PDLaw  # noqa: E402
from conftest import assert_same  # noqa: E402
from test_options import BOX_WRL, client  # noqa: E402,F401 (client: the servers' fixture)

BOXES = ("b0", "b1", "b2", "drop")


@pytest.fixture(scope="module")
def box(tmp_path_factory):
    path = tmp_path_factory.mktemp("state") / "box.wrl"
    path.write_text(BOX_WRL)
    return path


# ---------------------------------------------------------------------------------------------
# scenes: configure(sim, box) -> before(sim) (commands before each step, or None)
# ---------------------------------------------------------------------------------------------


def squat(sim, box):
    """humanoid_squat.xml: the bent-knee pose in torque mode, the sample PD law squatting."""
    sim.add_model("floor", FLOOR)
    sim.add_model("robot", HUMANOID)
    names = sim.joint_names("robot")
    q = np.zeros(len(names))
    for i, name in enumerate(names):
        q[i] = {"_HIP_P": -0.2, "LEG_KNEE": 0.4, "_ANKLE_P": -0.2, "ARM_ELBOW": -0.3}.get(
            next((k for k in ("_HIP_P", "LEG_KNEE", "_ANKLE_P", "ARM_ELBOW") if k in name), ""),
            0.0)
    sim.set_joint_mode("robot", "torque")
    sim.set_root_pose("robot", (0.0, 0.0, 0.82 - 0.6 * (1 - math.cos(0.2))))
    sim.set_joint_values("robot", q)
    sim.add_collision_pair("floor", "robot", friction=0.5, culling=0.01)
    law = PDLaw(names)

    def before(s):
        s.set_joint_torques("robot", law.torques(s.steps * s.dt, s.q("robot"),
                                                 s.dq("robot")))
    return before


def crawler(sim, box):
    sim.add_model("floor", MODELS / "floor" / "step.wrl")
    sim.add_model("crawler", MODELS / "crawler" / "crawler.wrl")
    for track in ("TRACK_L", "TRACK_R"):
        sim.add_collision_pair("floor", "crawler", link2=track, friction=1.0, culling=0.005)

    def before(s):
        turn = s.steps * s.dt < 0.3
        s.set_track_speed("crawler", "TRACK_L", -0.3 if turn else 0.3)
        s.set_track_speed("crawler", "TRACK_R", 0.3)
    return before


def pile(sim, box):
    """A column of three boxes (falls asleep by about 0.4 s) and a fourth dropped from 1.5 m
    (lands at about 0.5 s, waking it)."""
    sim.add_model("floor", FLOOR)
    for k, name in enumerate(BOXES):
        sim.add_model(name, box)
        sim.set_root_pose(name, (0.0, 0.0, 1.5 if name == "drop" else 0.05 + 0.101 * k))
    names = ["floor"] + list(BOXES)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            sim.add_collision_pair(a, b, friction=0.5)
    return None


# scene: (steps in all, the step the state is saved at, snapshot every)
SCENES = {"squat": (squat, 600, 230, 50), "crawler": (crawler, 600, 250, 50),
          "pile": (pile, 900, 300, 50)}


def loops(sim, box):
    """The four-bar swinging and the parallel leg dropped onto the floor (extra joints)."""
    sim.add_model("floor", FLOOR)
    sim.add_model("fb", MODELS / "closed_link" / "four_bar.wrl")
    sim.add_model("leg", MODELS / "closed_link" / "parallel_leg.wrl")
    sim.set_root_pose("leg", (1.0, 0.0, 0.9))
    sim.add_collision_pair("floor", "leg", friction=0.8)
    return None


LOOPS = (("fb", "LOOP"), ("leg", "LOOP"))  # (character, extra joint) of the loops scene


def make(backend, client, engine):
    kw = {"dt": 0.001, "engine": engine}
    if backend == "local":
        return hrpsim.Simulation(backend="local", **kw)
    return hrpsim.Simulation(client, backend=backend, **kw)


def record(sim):
    snap = sim.snapshot()
    snap["sleeping"] = np.array([sim.sleeping(n) for n in sim.models])
    return snap


def drive(sim, before, start, stop, every):
    """Steps start .. stop, a record each `every` steps (counted from 0)."""
    out = []
    for k in range(start, stop):
        sim.step(1, before)
        if (k + 1) % every == 0:
            out.append(record(sim))
    return out


def uninterrupted(backend, client, engine, scene, box):
    configure, total, k, every = SCENES[scene]
    with make(backend, client, engine) as sim:
        before = configure(sim, box)
        head = drive(sim, before, 0, k, every)
        state = sim.save_state()
        tail = drive(sim, before, k, total, every)
        slept = any(r["sleeping"].any() for r in head + tail)
    return state, head + tail, slept


@pytest.mark.parametrize("engine", ["ode", "joint_space"])
@pytest.mark.parametrize("backend", ["local", "server", "scheduler"])
@pytest.mark.parametrize("scene", sorted(SCENES))
def test_a_restored_run_is_the_uninterrupted_run(client, box, scene, backend, engine):
    configure, total, k, every = SCENES[scene]
    state, expected, slept = uninterrupted(backend, client, engine, scene, box)
    assert isinstance(state, hrpsim.State)
    assert state.steps == k and state.backend == backend and state.engine == engine
    assert state.characters == tuple(["floor"] + (["robot"] if scene == "squat" else
                                                  ["crawler"] if scene == "crawler" else
                                                  list(BOXES)))
    state = pickle.loads(pickle.dumps(state))
    with make(backend, client, engine) as sim:
        before = configure(sim, box)
        sim.restore_state(state)
        assert sim.steps == k
        assert sim.time == pytest.approx(k * 0.001, abs=1e-12)
        got = drive(sim, before, k, total, every)
    tail = expected[k // every:]
    assert len(got) == len(tail)
    assert_same(got, tail, "%s/%s/%s" % (scene, backend, engine))
    # the run moved after the save (two frozen worlds would prove nothing)
    moving = "robot" if scene == "squat" else "crawler" if scene == "crawler" else "drop"
    assert not np.array_equal(tail[0][moving]["p"], tail[-1][moving]["p"])
    if scene == "pile" and engine == "ode":
        assert slept  # the pile fell asleep after the save point, in the restored run too


@pytest.mark.parametrize("engine", ["ode", "joint_space"])
@pytest.mark.parametrize("backend", ["local", "server", "scheduler"])
def test_closed_loops_restore_bit_for_bit(client, box, backend, engine):
    runs = []
    for restored in (False, True):
        with make(backend, client, engine) as sim:
            loops(sim, box)
            if restored:
                sim.restore_state(pickle.loads(pickle.dumps(state)))
            else:
                drive(sim, None, 0, 170, 50)
                state = sim.save_state()
            records = drive(sim, None, 170, 500, 50)
            forces = {ch: np.asarray(sim.extra_joint_force(ch, name)) for ch, name in LOOPS}
            runs.append([records, forces])
    assert_same(runs[1], runs[0], "loops/%s/%s" % (backend, engine))
    records, forces = runs[0]
    # the four-bar swings (the hanging leg rests: on the joint-space engine to the bit)
    assert not np.array_equal(records[0]["fb"]["p"], records[-1]["fb"]["p"])
    assert all(np.any(f != 0) for f in forces.values())


@pytest.mark.parametrize("backend", ["server", "scheduler"])
def test_a_state_saved_in_process_continues_on_the_servers(client, box, backend):
    state, expected, _ = uninterrupted("local", client, "ode", "pile", box)
    _, total, k, every = SCENES["pile"]
    with make(backend, client, "ode") as sim:
        pile(sim, box)
        sim.restore_state(state)
        got = drive(sim, None, k, total, every)
    assert_same(got, expected[k // every:], "local -> %s" % backend)


@pytest.mark.parametrize("backend", ["local", "server", "scheduler"])
def test_a_state_of_other_models_is_refused_and_changes_nothing(client, box, backend):
    state, _, _ = uninterrupted("local", client, "ode", "squat", box)
    with make(backend, client, "ode") as sim:
        pile(sim, box)
        sim.step(20)
        before = record(sim)
        # (the scheduler's refusals are SchedulerRefused, as for its other operations)
        with pytest.raises(SchedulerRefused if backend == "scheduler" else BadArgument) as exc:
            sim.restore_state(state)
        assert "character 1 is 'b0' here but 'robot' in the saved state" in str(exc.value)
        assert sim.steps == 20
        assert_same(record(sim), before, "after the refusal")
        with pytest.raises(BadArgument):
            sim.restore_state(state.data)  # bytes, not an hrpsim.State


# ---------------------------------------------------------------------------------------------
# sweeps from one saved state
# ---------------------------------------------------------------------------------------------

SETTLE = 200  # steps of the settling phase the state is saved after


def crawler_setup(sim):
    """The crawler on the floor with the step (no commands yet)."""
    crawler(sim, None)


def crawler_drive(sim, speed):
    """From wherever the simulation stands: both tracks at speed [m/s] for 0.3 s; the root's
    x [m] and the whole last snapshot."""
    for track in ("TRACK_L", "TRACK_R"):
        sim.set_track_speed("crawler", track, speed)
    sim.step(300)
    return float(sim.link_poses("crawler")[0][0][0]), record(sim)


def settled_state():
    with hrpsim.Simulation(backend="local", dt=0.001) as sim:
        crawler_setup(sim)
        sim.step(SETTLE)
        return sim.save_state()


def settle_then_drive(sim, speed):
    """The run a sweep from the settled state stands for: the settling phase, then the drive."""
    sim.step(SETTLE)
    return crawler_drive(sim, speed)


@pytest.mark.parametrize("pool", ["threads", "processes"])
def test_a_sweep_starts_every_run_from_one_saved_state(pool):
    from concurrent.futures import ThreadPoolExecutor
    from hrpsim.sweep import run_serial
    state = settled_state()
    speeds = [0.1, 0.3, -0.2]
    # the reference: each run settles itself, then drives
    expected = run_serial(lambda sim, v: (crawler_setup(sim), settle_then_drive(sim, v))[1],
                          speeds, dt=0.001)
    if pool == "threads":
        with ThreadPoolExecutor(2) as ex:
            got = hrpsim.sweep(crawler_drive, speeds, executor=ex, setup=crawler_setup,
                               state=state, dt=0.001)
    else:
        got = hrpsim.sweep(crawler_drive, speeds, workers=2, setup=crawler_setup, state=state,
                           dt=0.001)
    assert_same([r[1] for r in got], [r[1] for r in expected], "sweep from a state")
    assert [r[0] for r in got] == [r[0] for r in expected]
    xs = [r[0] for r in got]
    assert xs[1] > xs[0] > xs[2]  # the speeds differ after the common start
    with pytest.raises(BadArgument, match="setup"):
        hrpsim.sweep(crawler_drive, speeds, state=state, dt=0.001)


def test_a_server_sweep_starts_from_a_state_saved_in_process(client):
    from hrpsim.sweep import run_serial
    state = settled_state()
    speeds = [0.2, -0.1]
    local = run_serial(crawler_drive, speeds, setup=crawler_setup, state=state, dt=0.001)
    served = hrpsim.sweep(crawler_drive, speeds, naming=client.naming, workers=1,
                          setup=crawler_setup, state=state, dt=0.001)
    assert_same([r[1] for r in served], [r[1] for r in local], "server sweep from a state")


@pytest.mark.parametrize("saved, configured", [("ode", None),         # None: the default
                                               ("joint_space", "ode")])
def test_a_state_brings_its_engine_along(box, saved, configured):
    state, expected, _ = uninterrupted("local", None, saved, "pile", box)
    _, total, k, every = SCENES["pile"]
    with hrpsim.Simulation(backend="local", dt=0.001, engine=configured) as sim:
        pile(sim, box)
        sim.restore_state(state)
        assert sim.time == state.time
        assert sim.save_state().engine == saved
        assert_same(drive(sim, None, k, total, every), expected[k // every:], "engine")
        sim.reset()
        sim.step(1)
        assert sim.save_state().engine == (configured or "joint_space")


def test_the_scheduler_restores_only_while_paused_and_its_hosted_world_refuses(client, box):
    from omniORB import CORBA
    with make("scheduler", client, "ode") as sim:
        pile(sim, box)
        sim.step(10)
        state = sim.save_state()
        sched = sim.scheduler()
        hosted = sim.dynamics
        with pytest.raises(CORBA.BAD_INV_ORDER):
            hosted.restoreState(state.data)           # the run's clock is the scheduler's
        assert "Scheduler::restoreState" in hosted.lastError()
        sim.step(10)
        sched.stop()                                   # FINISHED: no run to restore into
        with pytest.raises(SchedulerRefused, match="FINISHED"):
            sim.restore_state(state)
