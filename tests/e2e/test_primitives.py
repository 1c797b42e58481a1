"""Primitive bodies (hrpsim.primitives, model/model_primitive.c): boxes, spheres, cylinders and
planes from Python (sim.add_box ...) and from projects (<box .../> ...), with no model file.

- the BodyInfo the ModelLoader serves for a primitive URL has the right shape (primitive type
  and parameters) and the closed-form mass and inertia, a free root with a mass and a fixed one
  without;
- a box dropped from height h onto a plane lands at t = sqrt(2h/g) within one step, on the
  local, server and scheduler back ends, with the same bits on all three;
- a sphere comes to rest on a plane with its centre at height r;
- a project with <plane>, <box> and <collision> runs through the Scheduler and its log.npz holds
  the box's pose (falling, then at rest at half its height);
- bad parameters (negative size, zero mass, unknown parameter) are a clear error: file:line in
  projects, ValueError in Python, a ModelLoaderException naming the URL over CORBA (and the
  server keeps serving).
"""

import math

import numpy as np
import pytest

import hrpsim
from hrpsim import primitives
from hrpsim.project import ProjectError, load_project
from conftest import describe, run_cli
from helpers import snapshot

G = 9.8
DT = 0.001


@pytest.fixture(scope="module")
def client(servers):
    for s in ("DynamicsSimulatorFactory", "Scheduler"):
        if not servers.has(s):
            pytest.fail("%s was not started" % s, pytrace=False)
    return servers.client


def make(backend, client):
    if backend == "local":
        return hrpsim.Simulation(backend="local", dt=DT, gravity=(0, 0, G))
    return hrpsim.Simulation(client, backend=backend, dt=DT, gravity=(0, 0, G))


@pytest.mark.parametrize("kind,params,ptype,pparams", [
    ("box", dict(size=(0.3, 0.2, 0.1), mass=2.0), "SP_BOX", [0.3, 0.2, 0.1]),
    ("sphere", dict(radius=0.25, mass=3.0), "SP_SPHERE", [0.25]),
    ("cylinder", dict(radius=0.1, height=0.5, mass=1.5), "SP_CYLINDER", [0.1, 0.5, 1, 1, 1]),
    ("box", dict(size=(1.0, 2.0, 3.0)), "SP_BOX", [1.0, 2.0, 3.0]),
    ("plane", dict(size=(10.0, 20.0)), "SP_BOX", [10.0, 20.0, 1.0]),
])
def test_body_info_has_the_shape_and_closed_form_inertia(client, kind, params, ptype, pparams):
    body = snapshot(client.load_body(primitives.url(kind, **params)))
    assert len(body.links) == 1
    link = body.links[0]
    mass = params.get("mass")
    assert link.jointType == ("free" if mass else "fixed")
    assert link.mass == pytest.approx(mass or 0.0, rel=1e-12)
    expected = primitives.inertia(kind, mass or 0.0, params.get("size"), params.get("radius"),
                                  params.get("height"))
    np.testing.assert_allclose(np.reshape(link.inertia, (3, 3)), expected, rtol=1e-12,
                               atol=1e-15)
    if mass and kind == "box":  # the closed form written out, not only through the helper
        a, b, c = params["size"]
        assert link.inertia[0] == pytest.approx(mass * (b * b + c * c) / 12, rel=1e-12)
    if mass and kind == "sphere":
        assert link.inertia[4] == pytest.approx(0.4 * mass * 0.25 ** 2, rel=1e-12)
    np.testing.assert_allclose(link.centerOfMass, [0, 0, 0], atol=1e-15)
    assert len(link.shapeIndices) == 1
    shape = body.shapes[link.shapeIndices[0].shapeIndex]
    assert shape.primitiveType._n == ptype
    np.testing.assert_allclose([float(x) for x in shape.primitiveParameters], pparams,
                               rtol=1e-6)
    # placed vertices: the box spans its size around the centre; the plane's top is z = 0;
    # the cylinder stands along z
    m = np.reshape(list(link.shapeIndices[0].transformMatrix), (3, 4))
    v = np.reshape([float(x) for x in shape.vertices], (-1, 3)) @ m[:, :3].T + m[:, 3]
    if kind == "box":
        np.testing.assert_allclose(v.max(axis=0) - v.min(axis=0), params["size"], rtol=1e-6)
    if kind == "plane":
        assert v[:, 2].max() == pytest.approx(0.0, abs=1e-6)
    if kind == "cylinder":
        assert v[:, 2].max() == pytest.approx(0.25, rel=1e-6)
        assert np.hypot(v[:, 0], v[:, 1]).max() == pytest.approx(0.1, rel=1e-6)


def drop(sim, h):
    """Drop a 0.2 m box (1 kg) with its bottom h above a plane; (landing time, states)."""
    sim.add_plane("ground")
    sim.add_box("box", (0.2, 0.2, 0.2), (0.0, 0.0, h + 0.1), mass=1.0, color=(0.8, 0.2, 0.2))
    sim.add_collision_pair("ground", "box", friction=0.5)
    states, landed = [], None
    prev = 0.0
    for k in range(1, int(2 * math.sqrt(2 * h / G) / DT)):
        sim.step()
        p, _ = sim.root_pose("box")
        v, _ = sim.root_velocity("box")
        states.append((np.array(p), np.array(v)))
        # free fall loses g dt of speed per step; the first step that does not is the landing
        if landed is None and v[2] > prev - 0.5 * G * DT:
            landed = k * DT
        prev = v[2]
    return landed, states


def test_dropped_box_lands_at_the_free_fall_time_on_every_back_end(client):
    h = 0.5
    runs = {}
    for backend in ("local", "server", "scheduler"):
        with make(backend, client) as sim:
            runs[backend] = drop(sim, h)
    t_land = math.sqrt(2 * h / G)
    for backend, (landed, states) in runs.items():
        assert landed is not None, backend
        assert abs(landed - t_land) <= DT, (backend, landed, t_land)
        # and it stays on the plane: the centre ends at half the size
        assert states[-1][0][2] == pytest.approx(0.1, abs=2e-3), backend
    for backend in ("server", "scheduler"):
        for (p1, v1), (p2, v2) in zip(runs["local"][1], runs[backend][1]):
            assert np.array_equal(p1, p2) and np.array_equal(v1, v2), backend


@pytest.mark.parametrize("backend", ["local", "server"])
def test_sphere_rests_on_a_plane_at_its_radius(client, backend):
    r = 0.15
    with make(backend, client) as sim:
        sim.add_plane("ground", (0.0, 0.0, 0.2))  # a raised ground: the pose is honoured
        sim.add_sphere("ball", r, (0.3, -0.2, 0.2 + r + 0.05), mass=0.5, friction=0.8)
        sim.run(1.0)
        p, _ = sim.root_pose("ball")
    assert p[2] == pytest.approx(0.2 + r, abs=2e-3)
    assert p[0] == pytest.approx(0.3, abs=1e-6) and p[1] == pytest.approx(-0.2, abs=1e-6)


def test_python_refuses_bad_parameters():
    with hrpsim.Simulation(backend="local") as sim:
        with pytest.raises(ValueError, match="size must be a positive"):
            sim.add_box("b", (0.1, -0.2, 0.1))
        with pytest.raises(ValueError, match="mass must be a positive"):
            sim.add_sphere("s", 0.1, mass=0.0)
        with pytest.raises(ValueError, match="needs a height"):
            primitives.url("cylinder", radius=0.1)
        with pytest.raises(ValueError, match="takes no mass"):
            primitives.url("plane", mass=1.0)
        assert sim.models == []


def test_model_loader_refuses_bad_urls_and_keeps_serving(client):
    from hrpsim import OpenHRP
    loader = client.model_loader()
    for bad, why in (("hrpsim-primitive:box?size=1,-1,1", "size must be positive"),
                     ("hrpsim-primitive:sphere?radius=0.1&mass=0", "mass must be positive"),
                     ("hrpsim-primitive:cone?radius=1", "unknown primitive"),
                     ("hrpsim-primitive:box?size=1,1,1&spin=3", "unknown parameter"),
                     ("hrpsim-primitive:box?size=1,1", "bad value")):
        with pytest.raises(OpenHRP.ModelLoader.ModelLoaderException) as exc:
            loader.loadBodyInfo(bad)
        assert why in exc.value.description and bad in exc.value.description
    assert loader.getBodyInfo(primitives.url("sphere", radius=1.0))._get_links()[0].mass == 0


PROJECT = """<?xml version="1.0"?>
<hrpsim-project version="1">
  <simulation timeStep="0.001" endTime="0.6"/>
  <plane name="ground"/>
  <box name="crate" size="0.4 0.3 0.2" mass="2" color="0.6 0.4 0.2" translation="0.5 0 1"/>
  <collision object1="ground" object2="crate" staticFriction="0.5" slipFriction="0.5"/>
  <log period="0.01"/>
</hrpsim-project>
"""


def test_project_with_a_box_logs_its_pose(servers, tmp_path):
    proj = tmp_path / "crate.xml"
    proj.write_text(PROJECT)
    out = tmp_path / "out"
    proc = run_cli("run", "--state-dir", servers.state_dir, "--out", out, "--quiet",
                   "--no-plots", proj)
    assert proc.returncode == 0, describe(proc)
    log = np.load(out / "log.npz")
    p = log["crate.root_p"]
    assert p[0] == pytest.approx([0.5, 0, 1], abs=1e-3)
    # falls from 0.9 m above the ground (bottom at 0.9): lands after sqrt(2 * 0.9 / g) = 0.43 s
    t = log["time"]
    k = int(np.searchsorted(t, 0.3))
    assert p[k, 2] == pytest.approx(1 - 0.5 * G * t[k] ** 2, abs=0.02)
    assert p[-1, 2] == pytest.approx(0.1, abs=3e-3)


@pytest.mark.parametrize("element,message", [
    ('<box name="b" size="0.1 -1 0.1"/>', "size must be a positive"),
    ('<sphere name="b" radius="0.1" mass="0"/>', "must be a positive"),
    ('<cylinder name="b" radius="0.1"/>', "needs a height"),
    ('<box name="b" size="1 1 1" spin="2"/>', "unknown attribute"),
])
def test_project_bad_primitive_is_an_error_at_its_line(tmp_path, element, message):
    proj = tmp_path / "bad.xml"
    proj.write_text('<hrpsim-project version="1">\n  <simulation endTime="0.1"/>\n  %s\n'
                    '</hrpsim-project>\n' % element)
    with pytest.raises(ProjectError) as exc:
        load_project(proj)
    text = str(exc.value)
    assert "%s:3" % proj in text and message in text, text


def test_viewer_describes_a_primitive_with_its_mesh_and_colour(client):
    """What the web viewer draws: the body description read through the ModelLoader has the
    box's shape (kind, parameters, a mesh) and its colour."""
    from hrpsim.viewer.server import describe_url
    d = describe_url(client.model_loader(),
                     primitives.url("box", size=(0.4, 0.3, 0.2), color=(0.6, 0.4, 0.2)))
    (shape,) = d["shapes"]
    assert shape["kind"] == "box" and shape["params"] == pytest.approx([0.4, 0.3, 0.2])
    assert shape["vertices"] and shape["triangles"]
    assert d["links"][0]["shapes"]
    (mat,) = d["materials"]
    assert mat["diffuseColor"] == pytest.approx([0.6, 0.4, 0.2], rel=1e-6)
