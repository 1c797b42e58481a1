"""End-to-end test of the order of a Distance's points, against OpenHRP 3.1's own answer.

OpenHRP 3.1's CollisionDetector, built from its source and run on a 1 m cube at the origin and
a sphere of radius 0.5 centred at x = 2, pair (box, sphere), answers
queryDistanceForGivenPairs with minD 1.0, point0 (0.5, 0, 0) on the box (the pair's first
link) and point1 (1.5, 0, 0) on the sphere (its second link). Its AIST DynamicsSimulator
answers checkDistance through that CollisionDetector's queryDistanceForDefinedPairs, so both
servers follow one convention: point0 on the pair's first link, point1 on its second.

This file asks hrpsim's CollisionDetector (given and defined pairs) and DynamicsSimulator
(checkDistance) the same question, with the box as a primitive and as a mesh (an
IndexedFaceSet of its 8 corners), in both pair orders, and checks the closed-form answer:
minD 1, the box's point (0.5, 0, 0), the sphere's point (1.5, 0, 0). Every number here is exact
in binary (sizes 1 and 0.5 survive BodyInfo's float32), so the only error is the rounding of a
few operations on O(1) numbers: 1e-9 leaves room for an iterative (GJK) answer on the convex
mesh and is far below the 1 m that separates the right order from the wrong one.
"""

import numpy as np
import pytest

import hrpsim
from hrpsim import OpenHRP
from hrpsim.models import OPENHRP_PROTOS

DS = OpenHRP.DynamicsSimulator
I3 = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
TOL = 1e-9
BOX_POINT = (0.5, 0.0, 0.0)  # the box's face nearest the sphere
SPHERE_POINT = (1.5, 0.0, 0.0)  # the sphere's surface nearest the box
SPHERE_AT = (2.0, 0.0, 0.0)

BOX_PRIMITIVE = "Box { size 1 1 1 }"
# the same cube as a closed mesh: 8 corners, 6 outward-facing quads
BOX_MESH = """IndexedFaceSet {
  coord Coordinate { point [ -0.5 -0.5 -0.5, 0.5 -0.5 -0.5, 0.5 0.5 -0.5, -0.5 0.5 -0.5,
                             -0.5 -0.5 0.5, 0.5 -0.5 0.5, 0.5 0.5 0.5, -0.5 0.5 0.5 ] }
  coordIndex [ 0 3 2 1 -1, 4 5 6 7 -1, 0 1 5 4 -1, 2 3 7 6 -1, 1 2 6 5 -1, 3 0 4 7 -1 ]
}"""
SPHERE = "Sphere { radius 0.5 }"


def one_link_model(name, geometry):
    """A free body of one link called BODY holding geometry at the link origin."""
    return "#VRML V2.0 utf8\n" + OPENHRP_PROTOS + """
DEF %s Humanoid {
  name "%s"
  humanoidBody [
    DEF BODY Joint {
      jointType "free"
      children [ Segment { mass 1 momentsOfInertia [ 1 0 0 0 1 0 0 0 1 ]
                           children [ Shape { geometry %s } ] } ]
    }
  ]
}
""" % (name, name, geometry)


@pytest.fixture(scope="module")
def client(servers):
    for name in ("CollisionDetectorFactory", "DynamicsSimulatorFactory"):
        if not servers.has(name):
            pytest.fail("%s was not started (is it built in %s?)"
                        % (name, hrpsim.paths.default_bin_dir()), pytrace=False)
    return servers.client


@pytest.fixture(scope="module")
def bodies(client, tmp_path_factory):
    d = tmp_path_factory.mktemp("distance-models")
    out = {}
    for key, text in {"box": one_link_model("BOX", BOX_PRIMITIVE),
                      "mesh": one_link_model("MESH_BOX", BOX_MESH),
                      "sphere": one_link_model("SPHERE", SPHERE)}.items():
        path = d / (key + ".wrl")
        path.write_text(text)
        out[key] = client.load_body(path)
    return out


def expected(box_first):
    """(point0, point1) of the pair: point0 on its first link, point1 on its second."""
    return (BOX_POINT, SPHERE_POINT) if box_first else (SPHERE_POINT, BOX_POINT)


def check(d, box_first):
    names = ("box", "BODY", "ball", "BODY") if box_first else ("ball", "BODY", "box", "BODY")
    assert (d.pair.charName1, d.pair.linkName1, d.pair.charName2, d.pair.linkName2) == names
    p0, p1 = expected(box_first)
    assert d.minD == pytest.approx(1.0, abs=TOL)
    np.testing.assert_allclose(d.point0, p0, rtol=0, atol=TOL)
    np.testing.assert_allclose(d.point1, p1, rtol=0, atol=TOL)


def link_pair(box_first):
    if box_first:
        return OpenHRP.LinkPair("box", "BODY", "ball", "BODY", 0.0)
    return OpenHRP.LinkPair("ball", "BODY", "box", "BODY", 0.0)


@pytest.mark.parametrize("box_kind", ["box", "mesh"])
@pytest.mark.parametrize("box_first", [True, False], ids=["box-sphere", "sphere-box"])
def test_collision_detector_point0_on_the_first_link(client, bodies, box_kind, box_first):
    cd = client.resolve("CollisionDetectorFactory", OpenHRP.CollisionDetectorFactory).create()
    try:
        cd.registerCharacter("box", bodies[box_kind])
        cd.registerCharacter("ball", bodies["sphere"])
        positions = [OpenHRP.CharacterPosition("box", [OpenHRP.LinkPosition([0.0] * 3, I3)]),
                     OpenHRP.CharacterPosition("ball",
                                               [OpenHRP.LinkPosition(list(SPHERE_AT), I3)])]
        given = cd.queryDistanceForGivenPairs([link_pair(box_first)], positions)
        assert len(given) == 1
        check(given[0], box_first)
        cd.addCollisionPair(link_pair(box_first))
        defined = cd.queryDistanceForDefinedPairs(positions)
        assert len(defined) == 1
        check(defined[0], box_first)
    finally:
        cd.destroy()


@pytest.mark.parametrize("box_kind", ["box", "mesh"])
@pytest.mark.parametrize("register", ["collision", "intersection"])
@pytest.mark.parametrize("box_first", [True, False], ids=["box-sphere", "sphere-box"])
def test_check_distance_point0_on_the_first_link(client, bodies, box_kind, register, box_first):
    sim = client.dynamics_simulator()
    try:
        sim.registerCharacter("box", bodies[box_kind])
        sim.registerCharacter("ball", bodies["sphere"])
        sim.init(0.001, DS.EULER, DS.DISABLE_SENSOR)
        sim.setGVector([0.0, 0.0, 0.0])
        sim.setCharacterLinkData("box", "BODY", DS.ABS_TRANSFORM, [0.0] * 3 + I3)
        sim.setCharacterLinkData("ball", "BODY", DS.ABS_TRANSFORM, list(SPHERE_AT) + I3)
        first, second = ("box", "ball") if box_first else ("ball", "box")
        if register == "collision":
            sim.registerCollisionCheckPair(first, "BODY", second, "BODY", 0.5, 0.5, [], [],
                                           0.01, 0.0)
        else:
            sim.registerIntersectionCheckPair(first, "BODY", second, "BODY", 0.0)
        sim.initSimulation()
        ds = sim.checkDistance()
        assert len(ds) == 1
        check(ds[0], box_first)
    finally:
        sim.destroy()
