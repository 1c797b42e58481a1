"""End-to-end tests of Gazebo sensors on URDF robots through the real servers.

samples/models/urdf/sensor_bot/sensor_bot.urdf declares, in <gazebo reference=...> blocks, a
colour camera, a depth camera, a lidar, two IMUs and a force-torque sensor; wall.urdf puts a grey
wall (front face x = 3) with a green marker (front face x = 2.9, y in [0.7, 1.3], z in
[1.3, 1.7]) in front of it. The ModelLoader serves them as OpenHRP sensors (BodyInfo's
SensorInfo: names, types, ids, poses, specValues), and the servers read them with closed forms:
- cameras at (0.1, 0, 1) looking along +x: depth (metres along the optical axis) 2.9 on the
  wall and 2.8 on the marker, pixel by pixel from the pinhole model (horizontal field of view
  1.0, square pixels); the colour frame shows the grey wall and the green marker above and to
  the left of the centre (so the frame conversion neither mirrors nor flips the picture);
- the lidar at (0.1, 0, 1.2), 81 beams from yaw -0.3 to 0.5 rad: beam i reads
  2.9 / cos(-0.3 + 0.01 i) (the asymmetric range checks the beam order);
- IMUs at rest on the fixed base: gyro zero, accelerometer (0, 0, 9.8) upright and
  9.8 (0, sin 0.5, cos 0.5) when rolled by 0.5 rad;
- the force sensor of the fixed joint carrying a 2 kg load whose centre of mass is
  r = (0.1, 0, -0.2) from the joint: force (0, 0, -19.6) N and moment r x F = (0, 1.96, 0) N m
  (what the load exerts on its parent, OpenHRP's sign), the roll joint above it at rest;
- the Gaussian noise of the URDF reaches the BodyInfo as info strings, and `hrpsim run` of
  samples/projects/sensor_bot.xml (no <noise>) applies it (the logged residuals have the
  declared stddev).
"""

import math

import numpy as np
import pytest

import hrpsim
from conftest import describe, run_cli
from hrpsim.project import declared_noise

G = 9.8


@pytest.fixture(scope="module")
def urdf(samples_dir):
    d = samples_dir / "models" / "urdf" / "sensor_bot"
    return {"bot": d / "sensor_bot.urdf", "wall": d / "wall.urdf"}


@pytest.fixture(scope="module")
def client(servers):
    if not servers.has("DynamicsSimulatorFactory"):
        pytest.fail("hrpsim-dynamics was not started", pytrace=False)
    return servers.client


@pytest.fixture
def sim(client, urdf):
    s = hrpsim.Simulation(client, dt=0.001)
    s.add_model("bot", urdf["bot"])
    s.add_model("wall", urdf["wall"])
    yield s
    s.close()


def test_body_info_sensors(client, urdf):
    """BodyInfo carries the sensors as a VRML model's: names, types, ids, links, specValues."""
    summary = hrpsim.body_summary(client.load_body(urdf["bot"]))
    sensors = {x["name"]: (x["type"], x["id"], x["link"], list(x["translation"]),
                           list(x["spec_values"])) for x in summary["sensors"]}
    rotation = {x["name"]: rotation_matrix(x["rotation"]) for x in summary["sensors"]}
    # OpenHRP's camera axes (right, up, backwards) are Gazebo's -y, +z, -x
    rc = np.array([[0, 0, -1], [-1, 0, 0], [0, 1, 0]])
    np.testing.assert_allclose(rotation["front_camera"], rc, atol=1e-7)
    c, s_ = math.cos(0.1), math.sin(0.1)  # the lidar: turned to the scan's middle, yaw 0.1
    np.testing.assert_allclose(rotation["front_lidar"],
                               np.array([[c, -s_, 0], [s_, c, 0], [0, 0, 1]]) @ rc, atol=1e-7)
    c, s_ = math.cos(0.5), math.sin(0.5)
    np.testing.assert_allclose(rotation["imu_tilted"], [[1, 0, 0], [0, c, -s_], [0, s_, c]],
                               atol=1e-7)
    assert sorted(sensors) == sorted(["front_camera", "front_depth", "front_lidar", "imu",
                                      "imu_accel", "imu_tilted", "imu_tilted_accel",
                                      "wrist_ft"])
    assert sensors["front_camera"][:3] == ("Vision", 0, "base_link")
    assert sensors["front_depth"][:3] == ("Vision", 1, "base_link")
    assert sensors["front_lidar"][:3] == ("Range", 0, "base_link")
    assert sensors["imu"][:3] == ("RateGyro", 0, "base_link")
    assert sensors["imu_accel"][:3] == ("Acceleration", 0, "base_link")
    assert sensors["imu_tilted"][:3] == ("RateGyro", 1, "base_link")
    assert sensors["wrist_ft"][:3] == ("Force", 0, "ft_joint")
    np.testing.assert_allclose(sensors["front_lidar"][3], [0.1, 0, 0.2], atol=1e-7)
    # near, far, fov, type (COLOR 1, COLOR_DEPTH 4), width, height, frame rate
    np.testing.assert_allclose(sensors["front_camera"][4], [0.05, 20, 1.0, 1, 160, 120, 10],
                               rtol=1e-7)
    np.testing.assert_allclose(sensors["front_depth"][4], [0.05, 20, 1.0, 4, 80, 60, 10],
                               rtol=1e-7)
    # scanAngle, scanStep, scanRate, maxDistance
    np.testing.assert_allclose(sensors["front_lidar"][4], [0.8, 0.01, 100, 10], rtol=1e-6)
    info = summary["info"]
    assert "urdf noise front_lidar range std 0.01 bias 0" in info
    assert "urdf noise imu gyro std 0.002 0.002 0.002 bias 0 0 0" in info


def rotation_matrix(aa):
    """The rotation of an OpenHRP axis-angle (x, y, z, angle)."""
    axis = np.asarray(aa[:3], dtype=float)
    axis = axis / np.linalg.norm(axis)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + math.sin(aa[3]) * k + (1 - math.cos(aa[3])) * k @ k


def expected_depth(h, w, fov=1.0, margin=1.5):
    """Depth per pixel of the wall and marker seen from (0.1, 0, 1) along +x, and a mask of
    the pixels more than `margin` pixels from the marker's edges."""
    f = (w / 2) / math.tan(fov / 2)
    want = np.full((h, w), 2.9)
    ok = np.ones((h, w), dtype=bool)
    for r in range(h):
        for c in range(w):
            right, up = (c + 0.5 - w / 2) / f, (h / 2 - r - 0.5) / f
            y, z = -right * 2.8, 1 + up * 2.8  # where the pixel's ray meets x = 2.9
            inside = 0.7 < y < 1.3 and 1.3 < z < 1.7
            want[r, c] = 2.8 if inside else 2.9
            edge = min(abs(y - 0.7), abs(y - 1.3), abs(z - 1.3), abs(z - 1.7)) * f / 2.8
            near_box = -0.1 < y < 1.4 and 1.2 < z < 1.8
            ok[r, c] = not (near_box and edge < margin)
    return want, ok


def test_cameras_see_the_wall(sim, servers):
    if not servers.has("ViewSimulatorFactory"):
        pytest.fail("hrpsim-view was not started", pytrace=False)
    sim.step(1)
    images = sim.camera_images("bot")
    assert sorted(images) == ["front_camera", "front_depth"]
    # depth: pixel by pixel against the pinhole model
    d = images["front_depth"].depth
    assert d.shape == (60, 80)
    want, ok = expected_depth(60, 80)
    assert np.all(np.abs(d[ok] - want[ok]) < 2e-3), np.max(np.abs(d[ok] - want[ok]))
    assert abs(float(d[30, 40]) - 2.9) < 2e-3
    assert (want[ok] == 2.8).sum() > 50  # the marker is in view (96 pixels inside its edges)
    # colour: grey wall, green marker above and to the left (not mirrored, not flipped)
    rgb = images["front_camera"].color.astype(int)
    assert rgb.shape == (120, 160, 3)
    f = 80 / math.tan(0.5)
    row, col = int(60 - f * 0.5 / 2.8), int(80 - f * 1.0 / 2.8)  # the marker's centre
    wall = rgb[60, 80]
    assert wall.min() > 40 and wall.max() - wall.min() <= 2, wall
    marker = rgb[row, col]
    assert marker[1] > 40 and marker[0] <= 2 and marker[2] <= 2, marker
    for r, c in ((row, 159 - col), (119 - row, col)):  # mirrored or flipped: the wall
        assert np.array_equal(rgb[r, c], wall), (r, c, rgb[r, c])
    # every pixel is wall or marker, or one of the marker's faces towards the centre (y = 0.7,
    # z = 1.3, x from 2.9 to 3), unlit by the headlight that shines along the view
    grey = np.all(rgb == wall, axis=2)
    green = (rgb[:, :, 1] > 40) & (rgb[:, :, 0] <= 2) & (rgb[:, :, 2] <= 2)
    black = np.all(rgb == 0, axis=2)
    rows, cols = np.indices(black.shape)
    side = (cols >= math.floor(80 - f * 0.7 / 2.8)) & (cols <= math.ceil(80 - f * 0.7 / 3.0))
    below = (rows >= math.floor(60 - f * 0.3 / 2.8)) & (rows <= math.ceil(60 - f * 0.3 / 3.0))
    assert np.all(grey | green | (black & (side | below)))
    assert green.sum() > 500 and grey.sum() > 18000
    # the depth camera's colour frame is the same picture at its size
    c2 = images["front_depth"].color
    assert c2.shape == (60, 80, 3) and np.array_equal(c2[30, 40], rgb[60, 80])


def test_lidar_reads_the_wall(sim):
    sim.step(2)
    scans = sim.ranges("bot")
    assert len(scans) == 1 and scans[0].shape == (81,)
    # Gazebo's beam i at yaw -0.3 + 0.01 i, as OpenHRP's fan from the middle (yaw 0.1) in steps
    # of the float scanStep
    yaw = 0.1 + (np.arange(81) - 40) * float(np.float32(0.01))
    # the wall's face: box sizes cross the wire as floats, origins as doubles
    d = 3.1 - float(np.float32(0.2)) / 2 - 0.1
    np.testing.assert_allclose(scans[0], d / np.cos(yaw), rtol=1e-9)
    assert scans[0][30] == pytest.approx(d, abs=1e-12)  # yaw 0


def test_imus_at_rest(sim):
    sim.step(20)
    gyro, accel = sim.gyro("bot"), sim.accel("bot")
    assert gyro.shape == (2, 3) and accel.shape == (2, 3)
    np.testing.assert_allclose(gyro, 0, atol=1e-12)
    np.testing.assert_allclose(accel[0], [0, 0, G], atol=1e-6)
    np.testing.assert_allclose(accel[1], [0, G * math.sin(0.5), G * math.cos(0.5)], atol=1e-6)


def test_force_torque_under_load(sim):
    sim.step(50)
    ft = sim.force("bot")
    assert ft.shape == (1, 6)
    np.testing.assert_allclose(ft[0][:3], [0, 0, -2 * G], atol=1e-6)
    np.testing.assert_allclose(ft[0][3:], [0, 2 * G * 0.1, 0], atol=1e-6)
    assert abs(sim.q("bot")[0]) < 1e-9  # the roll joint has not moved


def test_warnings_reach_body_info(client, tmp_path):
    """An unsupported sensor type and a reference to no link load with warnings carrying the
    file and line, as the body's info strings; the robot keeps its other sensors."""
    p = tmp_path / "warn.urdf"
    p.write_text("""<robot name="w">
  <link name="base"><inertial><mass value="1"/>
    <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <gazebo reference="base">
    <sensor type="sonar" name="s"/>
    <sensor type="imu" name="i"/>
  </gazebo>
  <gazebo reference="nothing"><sensor type="imu" name="j"/></gazebo>
</robot>
""")
    summary = hrpsim.body_summary(client.load_body(p))
    warnings = [s for s in summary["info"] if s.startswith("warning: ")]
    assert len(warnings) == 2
    assert warnings[0].startswith("warning: %s:5: sensor 's': type 'sonar'" % p)
    assert warnings[1].startswith("warning: %s:8: <gazebo reference=\"nothing\">" % p)
    assert sorted(x["name"] for x in summary["sensors"]) == ["i", "i_accel"]


def test_declared_noise_parses_info_strings():
    info = ["urdf noise front_lidar range std 0.01 bias 0",
            "urdf noise imu gyro std 0.002 0.002 0.003 bias 0 0.1 0",
            "urdf noise other_imu gyro std 1 1 1 bias 0 0 0",  # the first of a type wins
            "urdf noise bad gyro std 1 bias 0",                  # malformed: skipped
            "urdf mimic a b 1 0", "warning: x:1: y"]
    assert declared_noise(info) == {"range": ([0.01], [0.0]),
                                    "gyro": ([0.002, 0.002, 0.003], [0.0, 0.1, 0.0])}
    assert declared_noise(info, sensors=True)["gyro"][2] == "imu"


def run_project(servers, proj, out):
    proc = run_cli("run", "--state-dir", servers.state_dir, "--out", out, "--quiet", "--no-plots",
                   proj)
    assert proc.returncode == 0, describe(proc)
    return np.load(out / "log.npz")


def within_3_se(x, mean, std):
    """Sample mean and standard deviation of x within 3 standard errors of mean and std."""
    x = np.asarray(x, dtype=float).ravel()
    n = x.size
    return (abs(x.mean() - mean) <= 3 * std / math.sqrt(n)
            and abs(x.std(ddof=1) - std) <= 3 * std / math.sqrt(2 * (n - 1)))


def test_sample_project_applies_the_urdf_noise(servers, tmp_path, repo_root):
    """samples/projects/sensor_bot.xml has no <noise>: `hrpsim run` applies the URDF's (lidar
    stddev 0.01 m about the analytic distances; gyro stddev 0.002 rad/s, for both gyros since
    hrpsim's noise is per type); the noise-free readings keep their closed forms. The same
    project with its own (empty) <noise> element has exact scans."""
    if not servers.has("Scheduler"):
        pytest.fail("the scheduler server was not started", pytrace=False)
    sample = repo_root / "samples" / "projects" / "sensor_bot.xml"
    log = run_project(servers, sample, tmp_path / "sample")
    d = 3.1 - float(np.float32(0.2)) / 2 - 0.1
    want = d / np.cos(0.1 + (np.arange(81) - 40) * float(np.float32(0.01)))
    scans = log["bot.range0"]
    assert scans.shape == (101, 81)
    assert within_3_se(scans - want, 0.0, 0.01), (scans - want).std()
    gyro = log["bot.rate_gyro"][1:]  # body sensors read 0 before the first step
    assert gyro.shape == (100, 2, 3) and within_3_se(gyro, 0.0, 0.002), gyro.std()
    np.testing.assert_allclose(log["bot.accel"][1:, 0], np.broadcast_to([0, 0, G], (100, 3)),
                               atol=1e-6)
    np.testing.assert_allclose(log["bot.force"][1:, 0, 2], -2 * G, atol=1e-6)
    # the same project with <noise> of its own (none)
    own = tmp_path / "own.xml"
    own.write_text(sample.read_text().replace("../models/", str(sample.parent.parent) +
                                              "/models/")
                   .replace("</hrpsim-project>", '<noise seed="3"/></hrpsim-project>'))
    exact = run_project(servers, own, tmp_path / "own")["bot.range0"]
    np.testing.assert_allclose(exact, np.broadcast_to(want, (101, 81)), rtol=1e-9)
