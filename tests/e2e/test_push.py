"""External forces on every back end, and the Scheduler's push (what the live viewer's drag
uses), against closed forms.

- EXTERNAL_FORCE written before each of n steps on a free, weightless box (a primitive: 2 kg,
  0.2 x 0.3 x 0.4 m, its link origin at its centre of mass), through its centre, gives it
  exactly F n dt / m on the local, server and scheduler back ends (1e-12 m/s: one linear
  integration per step, no solve), and no spin; written once, it acts in one step only.
- Scheduler.push pulls a point of a link towards a target with a spring and a damper, at most
  maxForce, from the next step on until release():
  - a target 100 m away along x pulls the box at its centre with exactly maxForce (k x 100 m is
    far over it, and the force stays along x): F t / m to 1e-12 m/s after a known number of
    steps, and the log has that force in exactly the records whose step had it, zeros
    elsewhere, as results.py's "C.push.LINK" array too;
  - a spring of k (and a damper of c) on the box's centre, target d away: each step's force is
    k (d - x) - c v from the state the step starts from, so the positions are those of the
    recurrence v += (k (d - x) - c v) / m dt; x += v dt (ODE's integration), to 1e-12 m; and
    undamped they follow x(t) = d (1 - cos(w t)), w = sqrt(k / m), half a step later (the
    recurrence's lead), to 1e-3 d over a quarter period; critically damped: no overshoot, and
    within 1e-2 d of d after 1.2 s (1 - (1 + w t) e^(-w t) = 0.9999 at w t = 12);
  - a force at a point 0.1 m off the centre also turns the box by (r x F) t / I;
- bad pushes are refused with reasons, and nothing is held.
"""

import numpy as np
import pytest

import hrpsim
from hrpsim import OpenHRP, primitives
from hrpsim.results import LogCollector

import hrpsim._idl.hrpsim as H  # noqa: I100

DT = 0.001
MASS = 2.0
SIZE = (0.2, 0.3, 0.4)
BOX = primitives.url("box", size=SIZE, mass=MASS)
DS = OpenHRP.DynamicsSimulator


def box_inertia():
    x, y, z = SIZE
    return MASS / 12.0 * np.array([y * y + z * z, x * x + z * z, x * x + y * y])


@pytest.fixture(scope="module")
def client(servers):
    for name in ("DynamicsSimulatorFactory", "Scheduler"):
        if not servers.has(name):
            pytest.fail("%s was not started" % name, pytrace=False)
    return servers.client


def make(backend, client, engine=None):
    kw = dict(dt=DT, gravity=(0.0, 0.0, 0.0), sleep=False, engine=engine)
    if backend == "local":
        return hrpsim.Simulation(backend="local", **kw)
    return hrpsim.Simulation(client, backend=backend, **kw)


@pytest.mark.parametrize("engine", ["joint_space", "ode"])   # a closed form both must meet
@pytest.mark.parametrize("backend", ["local", "server", "scheduler"])
def test_a_force_held_step_after_step_gives_f_t_over_m_on_every_back_end(backend, client,
                                                                         engine):
    f = np.array([4.0, -3.0, 6.0])
    n = 300
    with make(backend, client, engine) as sim:
        sim.add_model("b", BOX)
        link = sim.link_names("b")[0]
        sim.step(1)  # started, at rest
        for _ in range(n):
            sim.set_link_data("b", link, "EXTERNAL_FORCE", list(f) + [0.0, 0.0, 0.0])
            sim.step(1)
        v, w = sim.root_velocity("b")
        assert v == pytest.approx(f * n * DT / MASS, rel=0, abs=1e-12)
        assert w == pytest.approx([0.0, 0.0, 0.0], abs=1e-12)
        # written once and not again: it acted in one step only
        sim.set_link_data("b", link, "EXTERNAL_FORCE", list(f) + [0.0, 0.0, 0.0])
        sim.step(20)
        v2, _ = sim.root_velocity("b")
        assert v2 == pytest.approx(f * (n + 1) * DT / MASS, rel=0, abs=1e-12)


# ---------------------------------------------------------------------------------------------
# Scheduler.push
# ---------------------------------------------------------------------------------------------

@pytest.fixture
def sched(client):
    s = client.resolve("Scheduler", H.Scheduler)
    s.reset()
    s.setTimeStep(DT)
    s.setGVector([0.0, 0.0, 0.0])
    s.addModel("b", BOX)
    s.setLogOptions(H.LogOptions(0.0, False))  # a record after every step
    yield s
    s.reset()


def link_of(client):
    return client.load_body(BOX)._get_links()[0].name


def velocity(sched, link):
    d = sched.dynamics().getCharacterLinkData("b", link, DS.ABS_VELOCITY)
    return np.array(d[:3]), np.array(d[3:])


def spec(link, target, k=1e4, c=0.0, fmax=10.0, point=(0.0, 0.0, 0.0)):
    return H.PushSpec("b", link, list(point), list(target), k, c, fmax)


def test_a_push_at_its_limit_gives_f_t_over_m_and_the_log_records_it(sched, client):
    link = link_of(client)
    fmax = 10.0
    sched.startPaused()
    sched.step(5)                                  # records 0..5: no push
    sched.push(spec(link, (100.0, 0.0, 0.0), fmax=fmax))
    sched.step(40)                                 # records 6..45: pushed
    sched.release()
    sched.step(10)                                 # records 46..55: let go
    v, w = velocity(sched, link)
    assert v == pytest.approx([fmax * 40 * DT / MASS, 0.0, 0.0], rel=0, abs=1e-12)
    assert w == pytest.approx([0, 0, 0], abs=1e-12)
    records = sched.getLog(0)
    assert len(records) == 56
    pushed = [i for i, r in enumerate(records) if len(r.pushes)]
    assert pushed == list(range(6, 46))
    want = [fmax, 0.0, 0.0, 0.0, 0.0, 0.0]
    for i in pushed:
        pr = records[i].pushes[0]
        assert (pr.character, pr.link) == ("b", link)
        assert list(pr.force) == pytest.approx(want, rel=0, abs=1e-12)
    # results.py: one array per pushed link, zeros where there was no push
    log = LogCollector([("b", [])])
    log.add(records)
    arrays = log.arrays()
    key = "b.push.%s" % link
    assert arrays[key].shape == (56, 6)
    assert arrays[key][6:46] == pytest.approx(np.tile(want, (40, 1)), rel=0, abs=1e-12)
    assert not arrays[key][:6].any() and not arrays[key][46:].any()
    sched.stop()


def positions(sched):
    return np.array([r.world.characterPositions[0].linkPositions[0].p[0]
                     for r in sched.getLog(0)])


def recurrence(k, c, d, n):
    x, v, out = 0.0, 0.0, [0.0]
    for _ in range(n):
        v += (k * (d - x) - c * v) / MASS * DT
        x += v * DT
        out.append(x)
    return np.array(out)


def test_a_spring_push_follows_the_closed_form_and_its_damper_stops_overshoot(sched, client):
    link = link_of(client)
    k, d = 200.0, 0.1
    omega = np.sqrt(k / MASS)                      # 10 rad/s
    quarter = int(round(np.pi / 2 / omega / DT))   # 157 steps
    sched.startPaused()
    sched.push(spec(link, (d, 0.0, 0.0), k=k, fmax=1e3))
    sched.step(quarter)
    x = positions(sched)
    assert x == pytest.approx(recurrence(k, 0.0, d, quarter), rel=0, abs=1e-12)
    t = np.arange(len(x)) * DT + DT / 2
    assert x[1:] == pytest.approx(d * (1 - np.cos(omega * t[1:])), rel=0, abs=1e-3 * d)
    sched.stop()
    sched.reset()
    sched.setTimeStep(DT)
    sched.setGVector([0.0, 0.0, 0.0])
    sched.addModel("b", BOX)
    sched.setLogOptions(H.LogOptions(0.0, False))
    sched.startPaused()
    c = 2 * np.sqrt(k * MASS)
    sched.push(spec(link, (d, 0.0, 0.0), k=k, c=c, fmax=1e3))
    sched.step(1200)
    x = positions(sched)
    assert x == pytest.approx(recurrence(k, c, d, 1200), rel=0, abs=1e-12)
    assert x.max() <= d and x[-1] == pytest.approx(d, abs=1e-2 * d)
    sched.stop()


def test_a_push_off_the_centre_turns_the_box_by_its_torque(sched, client):
    link = link_of(client)
    # pulled along x at 0.1 m along y from the centre (a far target, at the force limit):
    # torque (0, 0, -0.1 fx); 10 steps turn the box by 1e-5 rad at most, so the lever arm
    # stays (0, 0.1, 0) to 1e-6 and the force along x to 1e-9
    r, fmax, n = (0.0, 0.1, 0.0), 2.0, 10
    sched.startPaused()
    sched.push(spec(link, (1e3, 0.1, 0.0), fmax=fmax, point=r))
    sched.step(n)
    v, w = velocity(sched, link)
    f = np.array([fmax, 0.0, 0.0])
    tau = np.cross(r, f)
    assert v == pytest.approx(f * n * DT / MASS, rel=1e-6, abs=1e-9)
    assert w == pytest.approx(tau / box_inertia() * n * DT, rel=1e-4, abs=1e-12)
    last = sched.getLog(0)[-1].pushes[0]
    assert np.array(last.force[:3]) == pytest.approx(f, rel=1e-6, abs=1e-9)
    assert np.array(last.force[3:]) == pytest.approx(tau, rel=1e-4, abs=1e-9)
    sched.stop()


def test_bad_pushes_are_refused_and_nothing_is_held(sched, client):
    link = link_of(client)
    target = (1.0, 0.0, 0.0)
    with pytest.raises(H.SchedulerError, match="no run"):
        sched.push(spec(link, target))
    sched.startPaused()
    for push, why in [
            (H.PushSpec("nobody", link, [0, 0, 0], list(target), 1.0, 0.0, 1.0), "nobody"),
            (H.PushSpec("b", "NOLINK", [0, 0, 0], list(target), 1.0, 0.0, 1.0), "NOLINK"),
            (spec(link, (float("nan"), 0, 0)), "finite"),
            (spec(link, target, point=(2e3, 0, 0)), "1000 m"),
            (spec(link, target, k=-1.0), "stiffness"),
            (spec(link, target, c=float("inf")), "damping"),
            (spec(link, target, fmax=0.0), "maxForce"),
            (spec(link, target, fmax=2e6), "maxForce")]:
        with pytest.raises(H.SchedulerError, match=why):
            sched.push(push)
    sched.step(10)
    v, _ = velocity(sched, link)
    assert not v.any()
    assert not any(len(r.pushes) for r in sched.getLog(0))
    sched.release()  # nothing held: nothing happens
    sched.stop()
