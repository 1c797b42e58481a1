"""End-to-end tests of range sensors and sensor noise through the real servers.

A fixed scanner 1 m above the ground whose 513-beam fan (scanAngle 4, scanStep 1/128, OpenHRP's
layout) lies in the horizontal plane faces a wall (face x = 3) and a vertical cylinder (radius
0.3 about (1.5, 0.8)): getCharacterSensorState's range entry, getCharacterSensorValues and
hrpsim.Simulation.ranges give the analytic distances (1e-9 relative; primitive sizes are VRML
SFFloats, so the reference takes the same float values), 0 ("no hit") where the fan sees
nothing, and nothing while sensors are disabled. A sphere falling through the centre beam shows
the scan taken every 10 steps (scanRate 100 Hz, dt 1 ms) and held in between. Through the
scheduler: the scheduler's log carries the scans; seeded noise on the gyro and the range
readings has sample mean and standard deviation within 3 standard errors of the configured
bias and std, the same seed gives the same numbers and another seed others; limits clamp the
gyro at its maxAngularVelocity and drop range hits beyond maxDistance. Project files parse
<noise>.
"""

import math

import numpy as np
import pytest

import hrpsim
from conftest import describe, run_cli
from hrpsim import project as projects

PROTOS = """#VRML V2.0 utf8
PROTO Joint [ exposedField SFVec3f center 0 0 0 exposedField MFNode children []
  exposedField SFRotation rotation 0 0 1 0 exposedField SFVec3f translation 0 0 0
  exposedField SFString jointType "" exposedField SFInt32 jointId -1
  exposedField SFVec3f jointAxis 0 0 1 ]
{ Transform { center IS center children IS children rotation IS rotation
  translation IS translation } }
PROTO Segment [ exposedField SFVec3f centerOfMass 0 0 0 exposedField MFNode children []
  exposedField SFFloat mass 0 exposedField MFFloat momentsOfInertia [0 0 0 0 0 0 0 0 0] ]
{ Group { children IS children } }
PROTO Humanoid [ exposedField SFString name "" exposedField MFString info []
  exposedField MFNode joints [] exposedField MFNode humanoidBody [] ]
{ Group { children IS humanoidBody } }
PROTO Gyro [ exposedField SFVec3f maxAngularVelocity -1 -1 -1 exposedField SFVec3f
  translation 0 0 0 exposedField SFRotation rotation 0 0 1 0 exposedField SFInt32 sensorId -1 ]
{ Transform { translation IS translation rotation IS rotation } }
PROTO RangeSensor [ exposedField SFVec3f translation 0 0 0 exposedField SFRotation rotation
  0 0 1 0 exposedField MFNode children [] exposedField SFInt32 sensorId -1
  exposedField SFFloat scanAngle 3.14159 exposedField SFFloat scanStep 0.1
  exposedField SFFloat scanRate 10 exposedField SFFloat maxDistance 10 ]
{ Transform { translation IS translation rotation IS rotation children IS children } }
"""

SCANNER = PROTOS + """
DEF SCANNER Humanoid { humanoidBody [
 DEF BASE Joint { jointType "fixed" translation 0 0 1 children [
  DEF BASE_LINK Segment { mass 1 momentsOfInertia [0.01 0 0 0 0.01 0 0 0 0.01]
   children Shape { geometry Box { size 0.1 0.1 0.1 } } }
  DEF LIDAR RangeSensor { sensorId 0
   rotation 0.57735026918962576 -0.57735026918962576 -0.57735026918962576 2.0943951023931957
   scanAngle 4.0 scanStep 0.0078125 scanRate 100 maxDistance 2.5 }
  DEF GYRO0 Gyro { sensorId 0 maxAngularVelocity 1 1 1 } ] } ]
 joints [ USE BASE ] }
"""

SCENERY = PROTOS + """
DEF SCENERY Humanoid { humanoidBody [
 DEF ROOT Joint { jointType "fixed" children [
  DEF ROOT_LINK Segment { mass 1 momentsOfInertia [1 0 0 0 1 0 0 0 1] children [
   Transform { translation 3.1 0 1 children Shape { geometry Box { size 0.2 8 4 } } }
   Transform { translation 1.5 0.8 1 rotation 1 0 0 1.5707963267948966 children
    Shape { geometry Cylinder { radius 0.3 height 3 } } } ] } ] } ]
 joints [ USE ROOT ] }
"""

BALL = PROTOS + """
DEF BALL Humanoid { humanoidBody [
 DEF BALL_J Joint { jointType "free" translation 1.5 0 1.05 children [
  DEF BALL_LINK Segment { mass 1 momentsOfInertia [0.016 0 0 0 0.016 0 0 0 0.016]
   children Shape { geometry Sphere { radius 0.2 } } } ] } ]
 joints [ USE BALL_J ] }
"""

NBEAM, HALF, STEP = 513, 256, 0.0078125
F32 = np.float32


def expected_scan():
    """Analytic first hits of the 513 beams on the wall and the cylinder (0: none) and a mask
    of the beams not within 1e-6 m of an edge nor grazing the cylinder."""
    face = 3.1 - float(F32(0.2)) / 2
    r = float(F32(0.3))
    out, ok = np.zeros(NBEAM), np.ones(NBEAM, dtype=bool)
    for k in range(NBEAM):
        a = (k - HALF) * STEP
        u = (math.cos(a), math.sin(a))
        best = math.inf
        if u[0] > 0:
            t = face / u[0]
            y = t * u[1]
            ok[k] &= abs(abs(y) - 4.0) >= 1e-6
            if abs(y) <= 4.0:
                best = t
        b = 1.5 * u[0] + 0.8 * u[1]
        disc = b * b - (1.5 ** 2 + 0.8 ** 2 - r * r)
        ok[k] &= abs(disc) >= 1e-9
        if disc >= 0 and b - math.sqrt(disc) > 0:
            best = min(best, b - math.sqrt(disc))
        out[k] = 0.0 if best == math.inf else best
    return out, ok


@pytest.fixture(scope="module")
def client(servers):
    if not servers.has("DynamicsSimulatorFactory"):
        pytest.fail("hrpsim-dynamics was not started", pytrace=False)
    return servers.client


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    d = tmp_path_factory.mktemp("range-models")
    paths = {}
    for name, text in (("scanner", SCANNER), ("scenery", SCENERY), ("ball", BALL)):
        paths[name] = d / (name + ".wrl")
        paths[name].write_text(text)
    return paths


@pytest.fixture
def make(client):
    made = []

    def make_sim(**kw):
        sim = hrpsim.Simulation(client, **kw)
        made.append(sim)
        return sim

    yield make_sim
    for sim in made:
        sim.close()


def check_scan(d, want, ok, limit=None):
    assert d.shape == (NBEAM,) and d.dtype == np.float64
    hits = ok & (want > 0) & ((want <= limit) if limit else True)
    misses = ok & ~hits
    assert np.all(np.abs(d[hits] - want[hits]) <= 1e-9 * want[hits]), \
        np.max(np.abs(d[hits] - want[hits]) / want[hits])
    assert np.all(d[misses] == 0.0)
    assert hits.sum() > (10 if limit else 200) and misses.sum() > 100


def test_wall_and_cylinder_client_driven(make, models):
    sim = make(dt=0.001)
    sim.add_model("scanner", models["scanner"])
    sim.add_model("scenery", models["scenery"])
    sim.step(3)
    want, ok = expected_scan()
    d = sim.ranges("scanner")
    assert len(d) == 1
    check_scan(d[0], want, ok)
    # the same numbers through getCharacterSensorValues and getCharacterSensorState
    values = np.array(sim.dynamics.getCharacterSensorValues("scanner", "LIDAR"))
    assert np.array_equal(values, d[0])
    state = sim.dynamics.getCharacterSensorState("scanner")
    assert len(state.range) == 1 and np.array_equal(np.array(state.range[0]), d[0])
    assert sim.ranges("scenery") == []


def test_sensors_disabled_give_no_scan(make, models):
    sim = make(dt=0.001, sensors=False)
    sim.add_model("scanner", models["scanner"])
    sim.add_model("scenery", models["scenery"])
    sim.step(1)
    d = sim.ranges("scanner")
    assert len(d) == 1 and d[0].shape == (0,)


def test_scan_held_between_scans(make, models):
    sim = make(dt=0.001)
    sim.add_model("scanner", models["scanner"])
    sim.add_model("ball", models["ball"])
    r2 = float(F32(0.2)) ** 2
    held, scans = None, []
    for k in range(0, 41):
        if k:
            sim.step(1)
        v = sim.ranges("scanner")[0][HALF]
        if k % 10 == 0:
            dz = sim.link_poses("ball")[0][0][2] - 1.0
            e = 1.5 - math.sqrt(r2 - dz * dz)
            assert abs(v - e) <= 1e-9 * e, (k, v, e)
            held = v
            scans.append(v)
        else:
            assert v == held, k
    assert len(set(scans)) == len(scans)  # the ball moved between every two scans


def stats_ok(x, bias, std):
    x = np.asarray(x, dtype=float).ravel()
    n = x.size
    return (abs(x.mean() - bias) <= 3 * std / math.sqrt(n)
            and abs(x.std(ddof=1) - std) <= 3 * std / math.sqrt(2 * (n - 1)))


def scheduler_run(make, models, servers, seed, limits=False, gyro=(0.01, 0.002),
                  rng=(0.005, 0.001), until=1.0):
    if not servers.has("Scheduler"):
        pytest.fail("the scheduler server was not started", pytrace=False)
    sim = make(dt=0.001, scheduler=True)
    sim.add_model("scanner", models["scanner"])
    sim.add_model("scenery", models["scenery"])
    sim.set_log(period=0.01, sensors=True)
    sim.set_sensor_noise(seed=seed, limits=limits, gyro=gyro, range=rng)
    sim.run(until)
    log = sim.scheduler().getLog(0)
    # body sensors read 0 before the first step (the record at t = 0): from the second record
    gyros = np.array([list(rec.sensors[0].rateGyro[0]) for rec in log[1:]])
    scans = np.array([list(rec.sensors[0].range[0]) for rec in log])
    return gyros, scans


def test_scheduler_log_noise_statistics_and_seeds(make, models, servers):
    gyros, scans = scheduler_run(make, models, servers, seed=11)
    assert gyros.shape == (100, 3) and scans.shape == (101, NBEAM)
    for j in range(3):
        assert stats_ok(gyros[:, j], 0.002, 0.01), (j, gyros[:, j].mean(), gyros[:, j].std())
    want, ok = expected_scan()
    hits = ok & (want > 0)
    res = scans[:, hits] - want[hits]
    assert stats_ok(res, 0.001, 0.005), (res.mean(), res.std())
    assert np.all(scans[:, ok & (want == 0)] == 0.0)  # no noise on "no hit"
    again = scheduler_run(make, models, servers, seed=11)
    assert np.array_equal(again[0], gyros) and np.array_equal(again[1], scans)
    other = scheduler_run(make, models, servers, seed=12)
    assert not np.array_equal(other[0], gyros) and not np.array_equal(other[1], scans)


def test_scheduler_limits(make, models, servers):
    gyros, scans = scheduler_run(make, models, servers, seed=1, limits=True,
                                 gyro=(0.5, [3.0, -3.0, 0.8]), rng=(0.0, 0.0), until=0.2)
    assert np.all(np.abs(gyros) <= 1.0)
    assert np.all(gyros[:, 0] == 1.0) and np.all(gyros[:, 1] == -1.0)
    assert np.any(gyros[:, 2] == 1.0) and np.any(np.abs(gyros[:, 2]) < 1.0)
    want, ok = expected_scan()
    check_scan(scans[-1], want, ok, limit=2.5)


def test_noise_refused_client_driven_and_bad_values(make):
    sim = make(dt=0.001)
    with pytest.raises(RuntimeError):
        sim.set_sensor_noise(seed=1, gyro=(0.1, 0))
    sim2 = make(dt=0.001, scheduler=True)
    with pytest.raises(ValueError):
        sim2.set_sensor_noise(seed=1, gyro=(-0.1, 0))
    with pytest.raises(ValueError):
        sim2.set_sensor_noise(seed=1, camera=(0.1, 0))
    with pytest.raises(ValueError):
        sim2.set_sensor_noise(seed=1, force=([0.1, 0.2], 0))


def test_hrpsim_run_logs_noisy_scans(servers, tmp_path, models):
    """A project with <noise> runs through `hrpsim run`; log.npz holds the scanner's scans
    (scanner.range0, 11 records of 513 beams) with the configured range noise about the
    analytic distances, and the same project run again gives the same numbers."""
    if not servers.has("Scheduler"):
        pytest.fail("the scheduler server was not started", pytrace=False)
    proj = tmp_path / "noisy.xml"
    proj.write_text("""<hrpsim-project>
  <simulation timeStep="0.001" endTime="0.1"/>
  <model name="scanner" url="%s"/>
  <model name="scenery" url="%s"/>
  <log period="0.01" sensors="true"/>
  <plots enabled="false"/>
  <noise seed="9"><sensor type="range" std="0.004" bias="0.002"/></noise>
</hrpsim-project>
""" % (models["scanner"], models["scenery"]))
    logs = []
    for i in range(2):
        out = tmp_path / ("out%d" % i)
        proc = run_cli("run", "--state-dir", servers.state_dir, "--out", out, "--quiet", proj)
        assert proc.returncode == 0, describe(proc)
        logs.append(np.load(out / "log.npz")["scanner.range0"])
    assert logs[0].shape == (11, NBEAM)
    assert np.array_equal(logs[0], logs[1])
    want, ok = expected_scan()
    hits = ok & (want > 0)
    assert stats_ok(logs[0][:, hits] - want[hits], 0.002, 0.004)


def test_project_noise_element(tmp_path, models):
    p = tmp_path / "noisy.xml"
    p.write_text("""<hrpsim-project>
  <simulation timeStep="0.001" endTime="0.1"/>
  <model name="scanner" url="%s"/>
  <noise seed="5" limits="true">
    <sensor type="gyro" std="0.01" bias="0 0 0.002"/>
    <sensor type="range" std="0.005"/>
  </noise>
</hrpsim-project>
""" % models["scanner"])
    proj = projects.load_project(p)
    assert proj.noise_seed == 5 and proj.noise_limits is True
    assert [(t, s, b) for t, s, b, _ in proj.noise] == [("gyro", [0.01], [0.0, 0.0, 0.002]),
                                                       ("range", [0.005], [])]
    bad = tmp_path / "bad.xml"
    bad.write_text(p.read_text().replace('type="range"', 'type="camera"'))
    with pytest.raises(projects.ProjectError, match="camera"):
        projects.load_project(bad)
    bad.write_text(p.read_text().replace('bias="0 0 0.002"', 'bias="0 0"'))
    with pytest.raises(projects.ProjectError, match="bias"):
        projects.load_project(bad)
