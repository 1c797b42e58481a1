"""End-to-end tests of the CollisionDetector server (hrpsim-collision), through CORBA from Python.

Every test talks to a real hrpsim-collision (and ModelLoader) started by the ``servers`` fixture
and checks answers against closed forms, with OpenHRP 3.1's conventions pinned:

- contacts: one Collision per queried pair, in pair order (an empty points list when apart);
  each point's normal points from the pair's first link into the second, idepth is the
  (positive) penetration, the point lies midway between the surfaces; a box resting on the
  floor reports its four bottom corners. Closed-form numbers agree to 1e-12 m (a few roundings
  of O(1) numbers, the answers cross the wire as IEEE doubles).
- intersection: checkAll true lists every intersecting pair, false stops at the first and
  returns it alone; a pair intersects when its links are closer than its tolerance.
- distance: minD between the surfaces, point0 on the pair's first link and point1 on its second
  (OpenHRP's order), 0 when they overlap.
- rays: the parameter of the first hit on a surface facing the ray (metres for a unit
  direction), FLT_MAX (3.4028234663852886e38) for a miss; scanDistanceWithRay casts
  2 floor(range / 2 / step) + 1 rays along (-sin a, 0, -cos a) of R.

Bad input raises BAD_PARAM, logs one line in hrpsim-collision's log naming the problem, and
leaves the instance answering exactly as before.
"""

import math
import threading
from pathlib import Path

import numpy as np
import pytest
from omniORB import CORBA

import hrpsim
from hrpsim import OpenHRP
from hrpsim.models import OPENHRP_PROTOS

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "samples" / "models"
FLOOR = MODELS / "floor" / "floor.wrl"
HUMANOID = MODELS / "humanoid" / "humanoid.wrl"
FLT_MAX = 3.4028234663852886e38
I3 = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]

PROTOS = "#VRML V2.0 utf8\n" + OPENHRP_PROTOS


def box_model(name, size):
    """A free body of one link called BOX holding a box centred on the link origin."""
    return PROTOS + """
DEF %s Humanoid {
  name "%s"
  humanoidBody [
    DEF BOX Joint {
      jointType "free"
      children [ Segment { mass 1 momentsOfInertia [ 1 0 0 0 1 0 0 0 1 ]
                           children [ Shape { geometry Box { size %r %r %r } } ] } ]
    }
  ]
}
""" % (name, name, *size)


# two links: BASE (a 0.1 m cube) and ARM (a sphere of radius 0.05 on a rotate joint), and a
# third link TIP with no shape
ARM_WRL = PROTOS + """
DEF ARM2 Humanoid {
  name "ARM2"
  humanoidBody [
    DEF BASE Joint {
      jointType "fixed"
      children [
        Segment { mass 1 children [ Shape { geometry Box { size 0.1 0.1 0.1 } } ] }
        DEF ARM Joint {
          jointType "rotate" jointId 0 jointAxis 0 1 0 translation 0.3 0 0
          children [
            Segment { mass 1 children [ Shape { geometry Sphere { radius 0.05 } } ] }
            DEF TIP Joint { jointType "rotate" jointId 1 translation 0.2 0 0
                            children [ Segment { mass 0.1 } ] }
          ]
        }
      ]
    }
  ]
}
"""


@pytest.fixture(scope="module")
def client(servers):
    if not servers.has("CollisionDetectorFactory"):
        pytest.fail("hrpsim-collision was not started (is it built in %s?)"
                    % hrpsim.paths.default_bin_dir(), pytrace=False)
    return servers.client


@pytest.fixture(scope="module")
def factory(client):
    return client.resolve("CollisionDetectorFactory", OpenHRP.CollisionDetectorFactory)


@pytest.fixture(scope="module")
def bodies(client, tmp_path_factory):
    d = tmp_path_factory.mktemp("col-models")
    out = {"floor": client.load_body(FLOOR), "humanoid": client.load_body(HUMANOID)}
    for key, text in {"box": box_model("TEST_BOX", (0.2, 0.2, 0.2)),
                      "long": box_model("LONG_BOX", (0.2, 0.4, 0.1)),
                      "arm": ARM_WRL}.items():
        path = d / (key + ".wrl")
        path.write_text(text)
        out[key] = client.load_body(path)
    return out


@pytest.fixture
def make_cd(factory):
    made = []

    def make():
        cd = factory.create()
        made.append(cd)
        return cd

    yield make
    for cd in made:
        try:
            cd.destroy()
        except CORBA.OBJECT_NOT_EXIST:
            pass


@pytest.fixture
def cd(make_cd):
    return make_cd()


def pos(name, *links):
    """CharacterPosition of ``name``: each link as (p,) or (p, R) (R row-major 9)."""
    lps = [OpenHRP.LinkPosition(list(map(float, lk[0])), list(map(float, lk[1] if len(lk) > 1
                                                                      else I3)))
           for lk in links]
    return OpenHRP.CharacterPosition(name, lps)


def pair(c1, l1, c2, l2, tol=0.0):
    return OpenHRP.LinkPair(c1, l1, c2, l2, tol)


def rot_z(a):
    c, s = math.cos(a), math.sin(a)
    return [c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0]


def assert_same_points(got, want, tol):
    """Each point of ``want`` has one of ``got`` within ``tol`` (and the counts agree)."""
    got, want = np.asarray(got, float), np.asarray(want, float)
    assert got.shape == want.shape, (got, want)
    for w in want:
        assert np.min(np.max(np.abs(got - w), axis=1)) <= tol, (got, want)


def plain(x):
    """CORBA answers as plain comparable Python data (omniORBpy structs compare by identity)."""
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if hasattr(x, "__dict__"):
        return {k: plain(v) for k, v in vars(x).items() if not k.startswith("_")}
    return x


def pair_names(lp):
    return (lp.charName1, lp.linkName1, lp.charName2, lp.linkName2)


FLOOR_AT_ORIGIN = pos("floor", ((0, 0, 0),))


def f32(x):
    """x as the float the model's shape parameters hold (ShapeInfo is a FloatSequence)."""
    return float(np.float32(x))


H = f32(0.2) / 2  # half the test cube's edge
R_ARM = f32(0.05)  # the arm's sphere
# the floor's top face: a float 0.1 m slab under a -0.05 translation (kept as a double)
FLOOR_TOP = f32(0.1) / 2 - 0.05


# =============================================================================================
# contacts
# =============================================================================================


def test_factory_is_bound_and_creates_distinct_instances(make_cd, bodies):
    a, b = make_cd(), make_cd()
    assert not a._is_equivalent(b)
    a.registerCharacter("floor", bodies["floor"])
    # b knows nothing of a's character
    with pytest.raises(CORBA.BAD_PARAM):
        b.addCollisionPair(pair("floor", "root", "floor", "root"))


def test_box_resting_on_the_floor_reports_its_four_corners(cd, bodies):
    cd.registerCharacter("floor", bodies["floor"])
    cd.registerCharacter("box", bodies["long"])
    cd.addCollisionPair(pair("box", "BOX", "floor", "root"))
    for angle in (0.0, 0.4):
        # the 0.2 x 0.4 x 0.1 box 2 mm into the floor (its bottom at z = -0.002)
        hit, cols = cd.queryContactDeterminationForDefinedPairs(
            [FLOOR_AT_ORIGIN, pos("box", ((0.3, -0.2, 0.048), rot_z(angle)))])
        assert hit is True
        assert len(cols) == 1
        assert pair_names(cols[0].pair) == ("box", "BOX", "floor", "root")
        pts = cols[0].points
        assert len(pts) == 4
        c, s = math.cos(angle), math.sin(angle)
        hx, hy, hz = f32(0.2) / 2, f32(0.4) / 2, f32(0.1) / 2
        corners = [(0.3 + c * x - s * y, -0.2 + s * x + c * y)
                   for x in (-hx, hx) for y in (-hy, hy)]
        assert_same_points([p.position[:2] for p in pts], corners, 1e-12)
        for p in pts:
            # from the box (first link) into the floor (second): down
            np.testing.assert_allclose(p.normal, (0, 0, -1), atol=1e-12, rtol=0)
            assert p.idepth == pytest.approx(hz - 0.048 + FLOOR_TOP, abs=1e-12)
            assert p.position[2] == pytest.approx((0.048 - hz + FLOOR_TOP) / 2, abs=1e-12)


def test_pair_order_sets_the_normal_and_every_pair_is_answered(cd, bodies):
    cd.registerCharacter("floor", bodies["floor"])
    cd.registerCharacter("box", bodies["box"])
    cd.registerCharacter("box2", bodies["box"])
    positions = [FLOOR_AT_ORIGIN, pos("box", ((0, 0, 0.099),)), pos("box2", ((2, 0, 0.5),))]
    hit, cols = cd.queryContactDeterminationForGivenPairs(
        [pair("floor", "root", "box", "BOX"), pair("box2", "BOX", "floor", "root")], positions)
    assert hit is True
    assert [pair_names(c.pair) for c in cols] == [("floor", "root", "box", "BOX"),
                                                  ("box2", "BOX", "floor", "root")]
    assert len(cols[0].points) == 4
    for p in cols[0].points:
        np.testing.assert_allclose(p.normal, (0, 0, 1), atol=1e-12, rtol=0)
        assert p.idepth == pytest.approx(H - 0.099 + FLOOR_TOP, abs=1e-12)
    assert len(cols[1].points) == 0
    # nothing touching: False, still one (empty) Collision per pair
    hit, cols = cd.queryContactDeterminationForGivenPairs(
        [pair("box2", "BOX", "floor", "root")], positions)
    assert hit is False and len(cols) == 1 and len(cols[0].points) == 0


def test_empty_link_name_means_every_link(cd, bodies):
    cd.registerCharacter("floor", bodies["floor"])
    cd.registerCharacter("arm", bodies["arm"])
    # BASE on the floor (1 mm deep), ARM's sphere 1 cm above it, TIP without a shape
    arm = pos("arm", ((0, 0, 0.049),), ((0.3, 0, 0.06),), ((0.5, 0, 0.06),))
    hit, cols = cd.queryContactDeterminationForGivenPairs(
        [pair("arm", "", "floor", "root")], [FLOOR_AT_ORIGIN, arm])
    assert hit is True
    assert [pair_names(c.pair) for c in cols] == [("arm", "BASE", "floor", "root"),
                                                  ("arm", "ARM", "floor", "root"),
                                                  ("arm", "TIP", "floor", "root")]
    assert [len(c.points) for c in cols] == [4, 0, 0]
    # a character with itself: each pair of links once, never a link with its parent
    hit, cols = cd.queryContactDeterminationForGivenPairs(
        [pair("arm", "", "arm", "")], [FLOOR_AT_ORIGIN, arm])
    assert [pair_names(c.pair) for c in cols] == [("arm", "BASE", "arm", "TIP")]


# =============================================================================================
# intersection
# =============================================================================================


def test_intersection_check_all_and_tolerance(cd, bodies):
    cd.registerCharacter("floor", bodies["floor"])
    cd.registerCharacter("a", bodies["box"])
    cd.registerCharacter("b", bodies["box"])
    cd.registerCharacter("c", bodies["box"])
    for name in "abc":
        cd.addCollisionPair(pair(name, "BOX", "floor", "root"))
    # a and c 1 mm into the floor, b 5 mm above it
    positions = [FLOOR_AT_ORIGIN, pos("a", ((0, 0, 0.099),)), pos("b", ((1, 0, 0.105),)),
                 pos("c", ((2, 0, 0.099),))]
    hit, pairs = cd.queryIntersectionForDefinedPairs(True, positions)
    assert hit is True
    assert [pair_names(p) for p in pairs] == [("a", "BOX", "floor", "root"),
                                              ("c", "BOX", "floor", "root")]
    hit, pairs = cd.queryIntersectionForDefinedPairs(False, positions)
    assert hit is True
    assert [pair_names(p) for p in pairs] == [("a", "BOX", "floor", "root")]
    # b within a 1 cm tolerance but not within 4 mm; the tolerance comes back in the pair
    hit, pairs = cd.queryIntersectionForGivenPairs(
        True, [pair("b", "BOX", "floor", "root", 0.01)], positions)
    assert hit is True and pairs[0].tolerance == 0.01
    hit, pairs = cd.queryIntersectionForGivenPairs(
        True, [pair("b", "BOX", "floor", "root", 0.004)], positions)
    assert hit is False and len(pairs) == 0


# =============================================================================================
# distance
# =============================================================================================


def test_distance_between_surfaces_point0_on_the_first_link(cd, bodies):
    cd.registerCharacter("floor", bodies["floor"])
    cd.registerCharacter("box", bodies["box"])
    cd.registerCharacter("arm", bodies["arm"])
    cd.addCollisionPair(pair("box", "BOX", "floor", "root"))
    cd.addCollisionPair(pair("arm", "ARM", "box", "BOX"))
    cd.addCollisionPair(pair("arm", "TIP", "floor", "root"))
    # the box 5 cm above the floor; the arm's sphere centre 0.35 m beside the box centre
    positions = [FLOOR_AT_ORIGIN, pos("box", ((0, 0, 0.15),)),
                 pos("arm", ((3, 3, 3),), ((0.35, 0, 0.15),), ((3, 3, 4),))]
    ds = cd.queryDistanceForDefinedPairs(positions)
    assert [pair_names(d.pair) for d in ds] == [("box", "BOX", "floor", "root"),
                                                ("arm", "ARM", "box", "BOX"),
                                                ("arm", "TIP", "floor", "root")]
    assert ds[0].minD == pytest.approx(0.15 - H - FLOOR_TOP, abs=1e-12)
    assert ds[0].point0[2] == pytest.approx(0.15 - H, abs=1e-12)  # on the box (first link)
    assert ds[0].point1[2] == pytest.approx(FLOOR_TOP, abs=1e-12)  # the floor (second link)
    assert ds[1].minD == pytest.approx(0.35 - H - R_ARM, abs=1e-12)
    np.testing.assert_allclose(ds[1].point0, (0.35 - R_ARM, 0, 0.15), atol=1e-12)  # sphere
    np.testing.assert_allclose(ds[1].point1, (H, 0, 0.15), atol=1e-12)  # the box's face
    assert ds[2].minD == -1.0  # TIP has no geometry
    # overlapping: 0
    ds = cd.queryDistanceForGivenPairs([pair("box", "BOX", "floor", "root")],
                                       [pos("box", ((0, 0, 0.09),))])
    assert ds[0].minD == 0.0


# =============================================================================================
# rays
# =============================================================================================


def test_rays_hit_front_faces_and_miss_with_flt_max(cd, bodies):
    cd.registerCharacter("floor", bodies["floor"])
    cd.registerCharacter("box", bodies["box"])
    # the poses rays see are those of the last query
    cd.queryIntersectionForGivenPairs(True, [], [FLOOR_AT_ORIGIN,
                                                 pos("box", ((0.3, -0.2, 0.1),))])
    top = 0.1 + H
    assert cd.queryDistanceWithRay([0.3, -0.2, 1.0], [0, 0, -1]) == pytest.approx(1 - top,
                                                                                  abs=1e-12)
    # a non-unit direction: the parameter of the hit
    assert cd.queryDistanceWithRay([0.3, -0.2, 1.0], [0, 0, -2]) == pytest.approx((1 - top) / 2,
                                                                                  abs=1e-12)
    assert cd.queryDistanceWithRay([0.3, -0.2, 1.0], [0, 0, 1]) == FLT_MAX
    # from inside the box its faces look away: the ray goes on to the floor
    assert cd.queryDistanceWithRay([0.3, -0.2, 0.1], [0, 0, -1]) == pytest.approx(
        0.1 - FLOOR_TOP, abs=1e-12)
    # a fan 1 m above the floor: 2 floor(0.45 / 2 / 0.1) + 1 = 5 rays, 1 / cos(a) each
    d = cd.scanDistanceWithRay([0, 0, 1], I3, 0.1, 0.45)
    assert len(d) == 5
    np.testing.assert_allclose(d, [(1 - FLOOR_TOP) / math.cos(i * 0.1) for i in range(-2, 3)],
                               rtol=1e-12)
    # the fan turns with R: R = rot_z(90 deg) puts it in the y-z plane, through the box
    d = cd.scanDistanceWithRay([0.3, -0.2, 1.0], rot_z(math.pi / 2), 0.1, 0.0)
    assert list(d) == [pytest.approx(1 - top, abs=1e-12)]
    # looking up: nothing
    d = cd.scanDistanceWithRay([0, 0, 1], [1, 0, 0, 0, -1, 0, 0, 0, -1], 0.5, 1.0)
    assert list(d) == [FLT_MAX] * 3


def fan_dirs(R, step, n_half):
    """The world directions of scanDistanceWithRay's rays, computed as OpenHRP's servant does:
    R (-sin a, 0, -cos a) at a = i step, i = -n..n."""
    out = []
    for i in range(-n_half, n_half + 1):
        a = i * step
        lx, lz = -math.sin(a), -math.cos(a)
        out.append([R[3 * j] * lx + R[3 * j + 1] * 0.0 + R[3 * j + 2] * lz for j in range(3)])
    return out


def axis_angle(axis, angle):
    """Row-major rotation matrix about ``axis`` by ``angle`` (Rodrigues)."""
    k = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return list((np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K).ravel())


def test_scan_answers_as_one_ray_per_beam(cd, bodies):
    """scanDistanceWithRay gives, ray for ray, what queryDistanceWithRay gives along the same
    direction (OpenHRP's definition of the scan), for a tilted fan of 629 rays (more than one
    batch of the servant's fan) through a floor and two boxes, hits and misses both."""
    cd.registerCharacter("floor", bodies["floor"])
    cd.registerCharacter("box", bodies["box"])
    cd.registerCharacter("long", bodies["long"])
    cd.queryIntersectionForGivenPairs(True, [], [
        FLOOR_AT_ORIGIN, pos("box", ((0.6, 0.2, 0.3), rot_z(0.4))),
        pos("long", ((-0.5, -0.3, 0.5), axis_angle((1, 1, 0), 0.5)))])
    p = [0.05, -0.02, 0.9]
    R = axis_angle((1, 2, 3), 0.7)
    step, rng = 0.01, 6.28
    d = list(cd.scanDistanceWithRay(p, R, step, rng))
    n_half = int(rng / 2 / step)
    assert len(d) == 2 * n_half + 1 == 629
    want = [cd.queryDistanceWithRay(p, v) for v in fan_dirs(R, step, n_half)]
    assert d == pytest.approx(want, rel=1e-12)
    hits = sum(x < FLT_MAX for x in d)
    assert 50 < hits < len(d) - 50, hits  # both kinds, plenty of each
    assert FLT_MAX in d


def test_scan_with_a_nearly_orthonormal_rotation_sees_what_its_rays_see(cd, bodies):
    """R need only be a rotation to within 1e-6: its fan's rays then lie in the plane of
    R's first and third columns, not quite normal to its second. A box lying just beside the
    second column's plane (1e-6 m off it) but on the rays' path 5 m away is hit by the scan
    as by the single ray."""
    cd.registerCharacter("box", bodies["box"])
    cd.queryIntersectionForGivenPairs(True, [], [pos("box", ((5.0, H + 1e-6, 1.0),))])
    R = list(I3)
    R[3] = 9e-7  # column 0 leans towards +y: the rays rise 9e-7 m per metre along x
    p = [0.0, 0.0, 1.0]
    step = math.pi / 8  # beam i = -4 points along +x exactly (a = -pi/2)
    d = list(cd.scanDistanceWithRay(p, R, step, math.pi))
    assert len(d) == 9
    want = [cd.queryDistanceWithRay(p, v) for v in fan_dirs(R, step, 4)]
    assert want[0] == pytest.approx(5.0 - H, abs=1e-9)  # the single ray does hit it
    assert d == pytest.approx(want, rel=1e-12)


# =============================================================================================
# the sample humanoid, and agreement with the DynamicsSimulator's poses
# =============================================================================================


def test_humanoid_standing_touches_the_floor_with_its_feet_only(client, cd, bodies):
    sim = client.dynamics_simulator()
    try:
        sim.registerCharacter("floor", bodies["floor"])
        sim.registerCharacter("robot", bodies["humanoid"])
        sim.initSimulation()
        ws = sim.getWorldState()
    finally:
        sim.destroy()
    cd.registerCharacter("floor", bodies["floor"])
    cd.registerCharacter("robot", bodies["humanoid"])
    cd.addCollisionPair(pair("robot", "", "floor", ""))
    # lower the robot 1 mm into the floor
    positions = []
    for cp in ws.characterPositions:
        lps = [OpenHRP.LinkPosition([lp.p[0], lp.p[1], lp.p[2] - (1e-3 if cp.characterName ==
                                                                   "robot" else 0)], lp.R)
               for lp in cp.linkPositions]
        positions.append(OpenHRP.CharacterPosition(cp.characterName, lps))
    hit, cols = cd.queryContactDeterminationForDefinedPairs(positions)
    assert hit is True
    touching = {c.pair.linkName1 for c in cols if len(c.points)}
    assert touching and all("ANKLE" in n.upper() or "FOOT" in n.upper() for n in touching), \
        touching
    for c in cols:
        assert len(c.points) <= 4
        for p in c.points:
            assert p.normal[2] == pytest.approx(-1.0, abs=1e-9)
            assert 0 <= p.idepth <= 1e-3 + 1e-9


# =============================================================================================
# bounding-box mode (ModelLoader's AABBdata)
# =============================================================================================


def link_triangles(info):
    """Per link: its collision triangles in the link frame (n x 3 x 3), from a BodyInfo."""
    shapes = info.shapes
    out = []
    for tsis in info.linkShapeIndices:
        tris = []
        for tsi in tsis:
            sh = shapes[tsi.shapeIndex]
            T = np.array(tsi.transformMatrix).reshape(3, 4)
            v = np.array(sh.vertices, float).reshape(-1, 3) @ T[:, :3].T + T[:, 3]
            tris.extend(v[np.array(sh.triangles).reshape(-1, 3)])
        out.append(np.array(tris).reshape(-1, 3, 3))
    return out


def boxes_of(info):
    """Per link: its boxes as (lo, hi) in the link frame, checking they are plain boxes."""
    shapes = info.shapes
    assert all(sh.primitiveType == OpenHRP.SP_BOX for sh in shapes)
    out = []
    for tsis, lk in zip(info.linkShapeIndices, info.links):
        assert plain(lk.shapeIndices) == plain(tsis)  # drawn as they collide
        bs = []
        for tsi in tsis:
            T = np.array(tsi.transformMatrix).reshape(3, 4)
            assert np.array_equal(T[:, :3], np.eye(3))
            half = np.array(shapes[tsi.shapeIndex].primitiveParameters) / 2
            bs.append((T[:, 3] - half, T[:, 3] + half))
        out.append(bs)
    return out


def test_bounding_box_mode_replaces_link_shapes_by_tree_boxes(client):
    ML = OpenHRP.ModelLoader
    loader = client.model_loader()
    url = "file://" + str(HUMANOID.resolve())
    tris = link_triangles(loader.loadBodyInfo(url))
    # level 0: one box per link with triangles, the link's own bounds (float32 sizes: 1e-6)
    info = loader.loadBodyInfoEx(url, ML.ModelLoadOption(False, [0], ML.AABB_DEPTH))
    links = info.links
    for t, bs, lk in zip(tris, boxes_of(info), links):
        if len(t) == 0:
            assert bs == [] and lk.AABBmaxDepth == 0
            continue
        assert len(bs) == 1
        lo, hi = bs[0]
        assert lo == pytest.approx(t.reshape(-1, 3).min(axis=0), abs=1e-6)
        assert hi == pytest.approx(t.reshape(-1, 3).max(axis=0), abs=1e-6)
        # one triangle per leaf: the deepest level has a box per triangle, and a binary tree
        # over n leaves has at least ceil(log2 n) + 1 levels
        assert lk.AABBmaxNum == len(t)
        assert lk.AABBmaxDepth >= math.ceil(math.log2(len(t))) + 1
    # AABB_NUM: the first level with at least 4 boxes; every triangle inside one of them
    info = loader.loadBodyInfoEx(url, ML.ModelLoadOption(False, [4], ML.AABB_NUM))
    for t, bs in zip(tris, boxes_of(info)):
        assert len(t) == 0 or len(bs) >= min(4, len(t))
        for tri in t:
            assert any(np.all(tri >= lo - 1e-6) and np.all(tri <= hi + 1e-6) for lo, hi in bs)
    # a level beyond the tree is its deepest level: a box per triangle
    info = loader.loadBodyInfoEx(url, ML.ModelLoadOption(False, [99], ML.AABB_DEPTH))
    assert [len(bs) for bs in boxes_of(info)] == [len(t) for t in tris]
    # getBodyInfoEx serves the same, and without AABBdata the shapes are the model's
    got = loader.getBodyInfoEx(url, ML.ModelLoadOption(False, [0], ML.AABB_DEPTH))
    assert [len(bs) for bs in boxes_of(got)] == [int(len(t) > 0) for t in tris]
    plain_info = loader.getBodyInfoEx(url, ML.ModelLoadOption(False, [], ML.AABB_NUM))
    assert any(sh.primitiveType != OpenHRP.SP_BOX for sh in plain_info.shapes)


def test_collision_detector_collides_the_boxes(client, cd, bodies):
    # the humanoid as its level-0 boxes, its right foot's box sunk 1 mm below the floor's top
    # (the floor is the box model above, 0.2 m edges, its top at z = 0.1): one contact pair,
    # depth 1 mm, normal from the foot down into the floor
    ML = OpenHRP.ModelLoader
    url = "file://" + str(HUMANOID.resolve())
    loader = client.model_loader()
    boxed = loader.loadBodyInfoEx(url, ML.ModelLoadOption(False, [0], ML.AABB_DEPTH))
    names = [lk.name for lk in boxed.links]
    foot = names.index("RLEG_ANKLE_R")
    lo, hi = boxes_of(boxed)[foot][0]
    cd.registerCharacter("robot", boxed)
    cd.registerCharacter("box", bodies["box"])
    cd.addCollisionPair(pair("robot", "RLEG_ANKLE_R", "box", "BOX"))
    far = [((10.0 + 3 * k, 0.0, 5.0),) for k in range(len(names))]
    far[foot] = ((0.0, 0.0, 0.1 - 1e-3 - lo[2]),)
    hit, cols = cd.queryContactDeterminationForDefinedPairs(
        [pos("robot", *far), pos("box", ((0, 0, 0),))])
    assert hit is True
    pts = cols[0].points
    assert len(pts) == 4  # the box's bottom face corners
    for p in pts:
        assert p.idepth == pytest.approx(1e-3, abs=1e-6)
        assert p.normal == pytest.approx([0.0, 0.0, -1.0], abs=1e-9)


# =============================================================================================
# bad input
# =============================================================================================


def _setup(cd, bodies):
    cd.registerCharacter("floor", bodies["floor"])
    cd.registerCharacter("box", bodies["box"])
    cd.addCollisionPair(pair("box", "BOX", "floor", "root"))
    cd.queryContactDeterminationForDefinedPairs([FLOOR_AT_ORIGIN, pos("box", ((0, 0, 0.099),))])


BAD_CALLS = [
    ("unknown-character-in-positions",
     lambda cd: cd.queryContactDeterminationForDefinedPairs([pos("nobody", ((0, 0, 0),))]),
     "unknown character 'nobody'"),
    ("wrong-number-of-links",
     lambda cd: cd.queryIntersectionForDefinedPairs(True, [pos("box", ((0, 0, 0),),
                                                                ((0, 0, 1),))]),
     "2 link positions given, it has 1 links"),
    ("nan-position",
     lambda cd: cd.queryDistanceForDefinedPairs([pos("box", ((0, float("nan"), 0),))]),
     "non-finite"),
    ("not-a-rotation",
     lambda cd: cd.queryContactDeterminationForDefinedPairs(
         [pos("box", ((0, 0, 0), [1, 0, 0, 0, 2, 0, 0, 0, 1]))]),
     "not a rotation"),
    ("unknown-link",
     lambda cd: cd.addCollisionPair(pair("box", "NOPE", "floor", "root")),
     "has no link 'NOPE'"),
    ("unknown-link-given-pair",
     lambda cd: cd.queryDistanceForGivenPairs([pair("box", "BOX", "floor", "NOPE")], []),
     "has no link 'NOPE'"),
    ("negative-tolerance",
     lambda cd: cd.addCollisionPair(pair("box", "BOX", "floor", "root", -1.0)),
     "tolerance must be finite and >= 0"),
    ("link-with-itself",
     lambda cd: cd.addCollisionPair(pair("box", "BOX", "box", "BOX")),
     "a link with itself"),
    ("zero-ray",
     lambda cd: cd.queryDistanceWithRay([0, 0, 1], [0, 0, 0]),
     "direction is zero"),
    ("nan-ray",
     lambda cd: cd.queryDistanceWithRay([0, 0, float("inf")], [0, 0, 1]),
     "must be finite"),
    ("bad-step",
     lambda cd: cd.scanDistanceWithRay([0, 0, 1], I3, 0.0, 1.0),
     "step must be > 0"),
    ("too-many-rays",
     lambda cd: cd.scanDistanceWithRay([0, 0, 1], I3, 1e-9, 10.0),
     "more than"),
    ("empty-name",
     lambda cd: cd.registerCharacter("", None),
     "empty character name"),
]


@pytest.mark.parametrize("call,log", [c[1:] for c in BAD_CALLS], ids=[c[0] for c in BAD_CALLS])
def test_bad_input_raises_logs_and_leaves_the_instance_intact(cd, bodies, servers, call, log):
    _setup(cd, bodies)
    logfile = Path(servers.state_dir) / "logs" / "hrpsim-collision.log"
    before = logfile.stat().st_size if logfile.exists() else 0
    query = lambda: plain(cd.queryContactDeterminationForDefinedPairs([]))  # noqa: E731
    state = query()
    with pytest.raises(CORBA.BAD_PARAM):
        call(cd)
    text = logfile.read_text(errors="replace")[before:]
    assert log in text, "log after the call:\n" + text
    # the same poses and pairs as before, and the instance answers
    assert query() == state
    assert state[0] is True and len(state[1][0]["points"]) == 4


def test_concurrent_instances(make_cd, bodies):
    """Queries on separate instances from several threads give each its own answer."""
    errors = []

    def worker(k):
        try:
            cd = make_cd()
            _setup(cd, bodies)
            z = H - 0.001 * (k + 1)
            for _ in range(50):
                hit, cols = cd.queryContactDeterminationForDefinedPairs(
                    [FLOOR_AT_ORIGIN, pos("box", ((0, 0, z),))])
                depths = {round(p.idepth, 12) for p in cols[0].points}
                if depths != {round(H - z + FLOOR_TOP, 12)}:
                    errors.append((k, depths))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append((k, repr(exc)))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_reply_names_follow_instances_characters_and_pairs(make_cd, bodies):
    """The server keeps each reply's names from call to call and spells them anew only when a
    pair changes: alternating instances, reordered given pairs and a character registered
    again under its name (other links at the same indices) must still name the right pairs."""
    a, b = make_cd(), make_cd()
    a.registerCharacter("floor", bodies["floor"])
    a.registerCharacter("x", bodies["box"])
    b.registerCharacter("ground", bodies["floor"])
    b.registerCharacter("y", bodies["long"])
    a.addCollisionPair(pair("x", "BOX", "floor", "root"))
    b.addCollisionPair(pair("ground", "root", "y", "BOX"))
    pos_a = [FLOOR_AT_ORIGIN, pos("x", ((0, 0, 0.099),))]
    pos_b = [pos("ground", ((0, 0, 0),)), pos("y", ((0, 0, 0.5),))]
    for _ in range(3):
        _, cols = a.queryContactDeterminationForDefinedPairs(pos_a)
        assert [pair_names(c.pair) for c in cols] == [("x", "BOX", "floor", "root")]
        assert len(cols[0].points) == 4
        _, cols = b.queryContactDeterminationForDefinedPairs(pos_b)
        assert [pair_names(c.pair) for c in cols] == [("ground", "root", "y", "BOX")]
        assert len(cols[0].points) == 0
        dists = a.queryDistanceForDefinedPairs(pos_a)
        assert [pair_names(d.pair) for d in dists] == [("x", "BOX", "floor", "root")]
        dists = b.queryDistanceForDefinedPairs(pos_b)
        assert [pair_names(d.pair) for d in dists] == [("ground", "root", "y", "BOX")]
        assert dists[0].minD == pytest.approx(0.5 - f32(0.1) / 2 - FLOOR_TOP, abs=1e-12)
        _, hits = b.queryIntersectionForDefinedPairs(True, [pos("ground", ((0, 0, 0),)),
                                                            pos("y", ((0, 0, 0.04),))])
        assert [pair_names(p) for p in hits] == [("ground", "root", "y", "BOX")]
    given = [pair("x", "BOX", "floor", "root"), pair("floor", "root", "x", "BOX", 0.25)]
    for order in ([0, 1], [1, 0], [1], [0, 1]):
        _, cols = a.queryContactDeterminationForGivenPairs([given[i] for i in order], pos_a)
        assert [pair_names(c.pair) for c in cols] == [pair_names(given[i]) for i in order]
        assert [c.pair.tolerance for c in cols] == [given[i].tolerance for i in order]
        dists = a.queryDistanceForGivenPairs([given[i] for i in order], pos_a)
        assert [pair_names(d.pair) for d in dists] == [pair_names(given[i]) for i in order]
    # "x" again, now the arm: its link 0 is BASE where the box's was BOX
    a.registerCharacter("x", bodies["arm"])
    arm = pos("x", ((0, 0, 0.049),), ((0.3, 0, 0.06),), ((0.5, 0, 0.06),))
    _, cols = a.queryContactDeterminationForGivenPairs([pair("x", "", "floor", "root")],
                                                       [FLOOR_AT_ORIGIN, arm])
    assert [pair_names(c.pair) for c in cols] == [("x", "BASE", "floor", "root"),
                                                  ("x", "ARM", "floor", "root"),
                                                  ("x", "TIP", "floor", "root")]
    assert [len(c.points) for c in cols] == [4, 0, 0]
