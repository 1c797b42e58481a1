"""End-to-end tests of URDF loading, through the ModelLoader server over CORBA.

The samples are samples/models/urdf/ (see its README for every figure used here):
- humanoid/humanoid.urdf, generated from samples/models/humanoid/humanoid.wrl THROUGH the
  ModelLoader by make_humanoid_urdf.py: it must load to the same body as the VRML model, link
  by link (compared by name: the URDF's tree order differs around the neck, see below);
- arm_meshes/hrpsim_arm_description/urdf/arm.urdf: a 3-joint arm with STL (binary and ASCII),
  COLLADA and OBJ meshes found through package://, a fixed base through the `world` link, a
  mimic and a dynamics element;
- wheeled/wheeled.urdf: a free differential-drive base with continuous wheel joints.
Broken URDFs are written into tmp_path; each must raise ModelLoaderException naming the file
and the line of the offending element, and the server must keep serving.

URDF rules under test (hsm_loadUrdf, model/model.h): robot name -> body name; a non-root link
is named after the URDF joint that moves it, the root after its URDF link; each URDF link name
is that link's single segment name; revolute/continuous -> "rotate", prismatic -> "slide",
fixed -> "fixed"; movable joints get jointIds in the file order of the <joint> elements; links
are depth-first from the root, children in the file order of their joints; a root link `world`
with one fixed child joint is a fixed base placed at that joint's origin, any other root is
"free"; limit lower/upper/velocity/effort -> llimit/ulimit/uvlimit (and -velocity lvlimit)/
climit; URDF cylinders (axis z) get an extra Rx(+90 deg) because OpenHRP's primitive axis is y;
meshes are SP_MESH; visuals -> LinkInfo.shapeIndices, collisions -> BodyInfo.linkShapeIndices.

Tolerances (why each is what it is):
- EXACT 1e-9 (relative; absolute 1e-12): masses, centres, inertias, joint origins and limits of
  the URDF humanoid against the VRML one. make_humanoid_urdf.py writes the doubles the
  ModelLoader serves for the VRML body as shortest round-trip decimals, so a correct loader
  reads back the identical doubles (today they agree bit for bit); 1e-9 leaves room for a
  loader that turns each inertial by its (zero) rpy or moves it to the link origin in
  floating point, a few ulps of numbers below 1.
- REL_F32 1e-6: values that cross the wire as float (vertices, primitive parameters, colours)
  are IEEE float32, whose rounding is <= 6e-8 relative.
- ABS_POS 1e-6 m: bounding boxes of float32 vertices under 1 m, scaled or turned by doubles
  (COLLADA's 0.01 unit and Z_UP turn, the STL's 0.001 scale).
- ABS_ROT 1e-9: rotation matrices of rpy angles written to 16 digits (pi/2 as
  1.5707963267948966) or of the VRML's 1.5707963268 (5e-12 off pi/2).
- ABS_INERTIA 1e-12 kg m^2: the arm's and the wheeled base's inertias are short decimals; a
  tensor turned by rpy (tool_link) picks up ~1e-21 of cos(pi/2) noise.
"""

import math
import re
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import hrpsim
from hrpsim import OpenHRP, launcher

from helpers import (axis_angle_matrix, diag, floats, link_by_name, matrix12,  # noqa: I100
                     snapshot, vertices)
from conftest import run_cli, describe, UP_TIMEOUT_S, cli_env  # noqa: I100

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "samples" / "models"
URDF_DIR = MODELS / "urdf"
VRML_HUMANOID = MODELS / "humanoid" / "humanoid.wrl"
URDF_HUMANOID = URDF_DIR / "humanoid" / "humanoid.urdf"
ARM_PACKAGE = URDF_DIR / "arm_meshes" / "hrpsim_arm_description"
ARM = ARM_PACKAGE / "urdf" / "arm.urdf"
ARM_MESHES = ARM_PACKAGE / "meshes"
WHEELED = URDF_DIR / "wheeled" / "wheeled.urdf"

EXACT = 1e-9
REL_F32 = 1e-6
ABS_POS = 1e-6
ABS_ROT = 1e-9
ABS_INERTIA = 1e-12

ModelLoaderException = OpenHRP.ModelLoader.ModelLoaderException

# =============================================================================================
# helpers
# =============================================================================================

def approx(expected, rel=EXACT, abs=1e-12):  # noqa: A002 - pytest's own keyword name
    return pytest.approx(expected, rel=rel, abs=abs)


def rx(angle):
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def rz(angle):
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def index_of(body, name):
    return [lk.name for lk in body.links].index(name)


def parent_name(body, lk):
    return None if lk.parentIndex < 0 else body.links[lk.parentIndex].name


def kind(body, tsi):
    """Primitive type name (SP_BOX, ...) of a TransformedShapeIndex."""
    return body.shapes[tsi.shapeIndex].primitiveType._n


def material(body, tsi):
    """The MaterialInfo of a placed shape (None if its appearance has none)."""
    app = body.appearances[body.shapes[tsi.shapeIndex].appearanceIndex]
    return None if app.materialIndex < 0 else body.materials[app.materialIndex]


def material_index(body, tsi):
    return body.appearances[body.shapes[tsi.shapeIndex].appearanceIndex].materialIndex


def placed_box(body, tsi):
    """(min, max) corners of a placed shape's vertices in its link frame."""
    m = matrix12(tsi.transformMatrix)
    v = vertices(body.shapes[tsi.shapeIndex]) @ m[:3, :3].T + m[:3, 3]
    return v.min(axis=0), v.max(axis=0)


def loaded_ok(loader):
    """The server still serves: the URDF humanoid loads with its name."""
    return loader.loadBodyInfo(hrpsim.file_url(URDF_HUMANOID))._get_name() == "HRPSIM_HUMANOID"


def robot(body_xml, name="T"):
    """A URDF document around ``body_xml`` (lines start at line 3 of the file)."""
    return '<?xml version="1.0"?>\n<robot name="%s">\n%s</robot>\n' % (name, body_xml)


def inertial(mass=1.0, inertia=(0.01, 0.01, 0.01)):
    ixx, iyy, izz = inertia
    return ('<inertial><mass value="%s"/><inertia ixx="%s" ixy="0" ixz="0" iyy="%s" iyz="0" '
            'izz="%s"/></inertial>' % (mass, ixx, iyy, izz))


def link(name, extra=""):
    """A one-line link with a valid inertial."""
    return '  <link name="%s">%s%s</link>\n' % (name, inertial(), extra)


def joint(name, parent, child, typ="revolute", extra=""):
    """A one-line joint (limits given for revolute/prismatic)."""
    lim = ('<limit lower="-1" upper="1" velocity="1" effort="1"/>'
           if typ in ("revolute", "prismatic") else "")
    return ('  <joint name="%s" type="%s"><parent link="%s"/><child link="%s"/>'
            '<axis xyz="0 0 1"/>%s%s</joint>\n' % (name, typ, parent, child, lim, extra))


# =============================================================================================
# fixtures
# =============================================================================================

@pytest.fixture(scope="module")
def loader(servers):
    return servers.client.model_loader()


@pytest.fixture(scope="module")
def model(servers):
    """model(path) -> snapshot of loadBodyInfo of that file (loaded once per module)."""
    cache = {}

    def get(path):
        path = Path(path)
        if path not in cache:
            cache[path] = snapshot(servers.client.load_body(path))
        return cache[path]

    return get


@pytest.fixture(scope="module")
def humanoids(model):
    """(VRML body, URDF body) of the sample humanoid."""
    return model(VRML_HUMANOID), model(URDF_HUMANOID)


# =============================================================================================
# 1. the URDF humanoid is the VRML humanoid
# =============================================================================================

# the VRML humanoid's links in URDF tree order: the joints are written in jointId order, so
# CHEST_Y's children come as NECK_Y (14), RARM_SHOULDER_P (16), LARM_SHOULDER_P (23), whereas
# the VRML file writes the neck after both arms
LEG = ("HIP_Y", "HIP_R", "HIP_P", "KNEE", "ANKLE_P", "ANKLE_R")
ARM_JOINTS = ("SHOULDER_P", "SHOULDER_R", "SHOULDER_Y", "ELBOW", "WRIST_Y", "WRIST_P",
              "WRIST_R")
URDF_HUMANOID_ORDER = (["WAIST"] + ["RLEG_" + j for j in LEG] + ["LLEG_" + j for j in LEG] +
                       ["CHEST_P", "CHEST_Y", "NECK_Y", "NECK_P"] +
                       ["RARM_" + j for j in ARM_JOINTS] + ["LARM_" + j for j in ARM_JOINTS])
HUMANOID_NAMES = URDF_HUMANOID_ORDER

# make_humanoid_urdf.py: URDF requires an effort; the VRML's only climit (knees, 10) is written,
# and the same 10 for every other joint
HUMANOID_EFFORT = 10.0


def test_humanoid_identity(humanoids):
    vrml, urdf = humanoids
    assert urdf.name == vrml.name == "HRPSIM_HUMANOID"
    assert urdf.url == str(URDF_HUMANOID)
    assert len(urdf.links) == len(vrml.links) == 31
    assert sorted(lk.name for lk in urdf.links) == sorted(lk.name for lk in vrml.links)
    assert list(urdf.extraJoints) == [] and len(urdf.textures) == 0


def test_humanoid_tree_order_follows_the_joint_elements(humanoids):
    _, urdf = humanoids
    assert [lk.name for lk in urdf.links] == URDF_HUMANOID_ORDER
    for i, lk in enumerate(urdf.links):
        assert list(lk.childIndices) == [j for j, c in enumerate(urdf.links)
                                         if c.parentIndex == i], lk.name
    # jointIds follow the order of the <joint> elements, which is the VRML's jointId order
    by_id = sorted((lk for lk in urdf.links if lk.jointId >= 0), key=lambda lk: lk.jointId)
    assert [lk.jointId for lk in by_id] == list(range(30))
    assert [lk.name for lk in by_id] == URDF_HUMANOID_ORDER[1:]


@pytest.mark.parametrize("name", HUMANOID_NAMES)
def test_humanoid_link_agrees_with_vrml(humanoids, name):
    vrml, urdf = humanoids
    v, u = link_by_name(vrml, name), link_by_name(urdf, name)
    assert parent_name(urdf, u) == parent_name(vrml, v)
    assert u.jointId == v.jointId
    assert u.jointType == v.jointType
    assert u.jointValue == 0.0
    if v.jointType != "free":
        assert floats(u.jointAxis) == approx(floats(v.jointAxis))
    if v.parentIndex >= 0:
        assert floats(u.translation) == approx(floats(v.translation))
    else:
        # a URDF cannot place a free root: the VRML's WAIST stands at z = 0.82, the URDF's at 0
        assert floats(v.translation) == approx([0, 0, 0.82])
        assert floats(u.translation) == approx([0, 0, 0])
    assert axis_angle_matrix(u.rotation) == pytest.approx(axis_angle_matrix(v.rotation),
                                                          abs=ABS_ROT)
    assert u.mass == approx(v.mass)
    assert floats(u.centerOfMass) == approx(floats(v.centerOfMass))
    assert floats(u.inertia) == approx(floats(v.inertia))
    for attr in ("ulimit", "llimit", "uvlimit", "lvlimit"):
        assert floats(getattr(u, attr)) == approx(floats(getattr(v, attr))), attr
    if v.jointId >= 0:
        assert floats(u.climit) == approx([HUMANOID_EFFORT])
        assert floats(v.climit) == ([10.0] if name.endswith("KNEE") else [])
    else:
        assert floats(u.climit) == []


def test_humanoid_total_mass(humanoids):
    vrml, urdf = humanoids
    assert sum(lk.mass for lk in urdf.links) == approx(50.6)
    assert sum(lk.mass for lk in urdf.links) == approx(sum(lk.mass for lk in vrml.links))


@pytest.mark.parametrize("name", HUMANOID_NAMES)
def test_humanoid_segment_is_the_urdf_link(humanoids, name):
    """One segment per link, named after the URDF link, carrying the link's mass properties
    (wherever the loader puts the segment frame: at the link origin or at the inertial)."""
    _, urdf = humanoids
    lk = link_by_name(urdf, name)
    assert [s.name for s in lk.segments] == ["WAIST" if name == "WAIST" else name + "_LINK"]
    seg = lk.segments[0]
    m = matrix12(seg.transformMatrix)
    com = m[:3, :3] @ np.array(seg.centerOfMass, dtype=float) + m[:3, 3]
    inertia = m[:3, :3] @ np.array(seg.inertia, dtype=float).reshape(3, 3) @ m[:3, :3].T
    assert seg.mass == approx(lk.mass)
    assert com.tolist() == approx(floats(lk.centerOfMass))
    assert inertia.ravel().tolist() == approx(floats(lk.inertia))
    assert set(seg.shapeIndices) <= set(range(len(lk.shapeIndices)))


def test_humanoid_body_summary(servers):
    """The Python API's summary works on a URDF body as on a VRML one."""
    summary = hrpsim.body_summary(servers.client.load_body(URDF_HUMANOID))
    assert summary["link_count"] == 31 and summary["joint_count"] == 30
    assert summary["joint_types"] == {"free": 1, "rotate": 30}
    assert summary["total_mass"] == approx(50.6)
    assert summary["sensors"] == []


# VRML shape -> URDF visual of make_humanoid_urdf.py
URDF_KIND = {"SP_BOX": "SP_BOX", "SP_CYLINDER": "SP_CYLINDER", "SP_SPHERE": "SP_SPHERE",
             "SP_CONE": "SP_CYLINDER", "SP_MESH": "SP_BOX"}


@pytest.mark.parametrize("name", HUMANOID_NAMES)
def test_humanoid_visuals_follow_the_vrml_shapes(humanoids, name):
    """One visual per VRML shape placement, in order: primitives at the VRML placement (the
    cylinders too, through the Rx(+90 deg) that turns URDF's z axis into the primitive's y),
    with the VRML colours; the Cone as a cylinder, face sets as their bounding boxes."""
    vrml, urdf = humanoids
    v, u = link_by_name(vrml, name), link_by_name(urdf, name)
    assert len(u.shapeIndices) == len(v.shapeIndices) >= 1
    for k, (tv, tu) in enumerate(zip(v.shapeIndices, u.shapeIndices)):
        where = "%s visual %d" % (name, k)
        kv, ku = kind(vrml, tv), kind(urdf, tu)
        assert ku == URDF_KIND[kv], where
        pv = floats(vrml.shapes[tv.shapeIndex].primitiveParameters)
        pu = floats(urdf.shapes[tu.shapeIndex].primitiveParameters)
        mv, mu = matrix12(tv.transformMatrix), matrix12(tu.transformMatrix)
        if kv in ("SP_BOX", "SP_SPHERE", "SP_CYLINDER", "SP_CONE"):
            assert mu[:3, :3] == pytest.approx(mv[:3, :3], abs=ABS_ROT), where
            assert mu[:3, 3] == pytest.approx(mv[:3, 3], abs=ABS_POS), where
        if kv in ("SP_BOX", "SP_SPHERE"):
            assert pu == approx(pv, rel=REL_F32), where
        elif kv in ("SP_CYLINDER", "SP_CONE"):   # radius and height
            assert pu[:2] == approx(pv[:2], rel=REL_F32), where
        else:                                     # the box bounding the face set
            lo_v, hi_v = placed_box(vrml, tv)
            lo_u, hi_u = placed_box(urdf, tu)
            flat = (hi_v - lo_v) < 0.002          # the flat chest badge is 2 mm thick
            assert lo_u[~flat] == pytest.approx(lo_v[~flat], abs=ABS_POS), where
            assert hi_u[~flat] == pytest.approx(hi_v[~flat], abs=ABS_POS), where
        cv, cu = material(vrml, tv), material(urdf, tu)
        assert floats(cu.diffuseColor) == approx(floats(cv.diffuseColor), rel=REL_F32), where
        assert cu.transparency == approx(cv.transparency, rel=REL_F32, abs=1e-6), where


def test_humanoid_visual_kinds(humanoids):
    _, urdf = humanoids
    kinds = Counter(kind(urdf, t) for lk in urdf.links for t in lk.shapeIndices)
    # VRML: 16 Box + 6 IndexedFaceSet -> 22 boxes; 20 Cylinder + 1 Cone -> 21; 2 Sphere
    assert kinds == {"SP_BOX": 22, "SP_CYLINDER": 21, "SP_SPHERE": 2}


def test_humanoid_named_materials_are_shared(humanoids):
    """Each robot-level material is one MaterialInfo, whatever number of visuals use it."""
    _, urdf = humanoids
    by_colour = {}
    for lk in urdf.links:
        for t in lk.shapeIndices:
            colour = tuple(round(c, 4) for c in floats(material(urdf, t).diffuseColor))
            by_colour.setdefault(colour, set()).add(material_index(urdf, t))
    # white, dark, blue, orange, glass, sole, skin
    assert len(by_colour) == 7
    assert all(len(indices) == 1 for indices in by_colour.values()), by_colour


def test_humanoid_collision_boxes(humanoids):
    """Collision geometry: one box per link (BodyInfo.linkShapeIndices), not the visuals, and
    covering them."""
    _, urdf = humanoids
    assert len(urdf.linkShapeIndices) == len(urdf.links)
    for lk, coll in zip(urdf.links, urdf.linkShapeIndices):
        assert [kind(urdf, t) for t in coll] == ["SP_BOX"], lk.name
        lo, hi = placed_box(urdf, coll[0])
        for t in lk.shapeIndices:
            vlo, vhi = placed_box(urdf, t)
            assert (vlo >= lo - ABS_POS).all() and (vhi <= hi + ABS_POS).all(), lk.name
        assert {t.shapeIndex for t in coll} != {t.shapeIndex for t in lk.shapeIndices}


# =============================================================================================
# 2. the arm: meshes, package://, fixed base, mimic, dynamics
# =============================================================================================

# link, jointId, jointType, parent, translation, axis, mass, centre of mass, segment name
ARM_TABLE = [
    ("base_link", -1, "fixed", None, [0, 0, 0.05], None, 4.0, [0, 0, 0.04], "base_link"),
    ("base_yaw", 0, "rotate", "base_link", [0, 0, 0.08], [0, 0, 1], 1.5, [0, 0, 0.07],
     "turret_link"),
    ("shoulder_pitch", 1, "rotate", "base_yaw", [0, 0, 0.12], [0, 1, 0], 1.2, [0, 0, 0.15],
     "upper_arm_link"),
    ("forearm_slide", 2, "slide", "shoulder_pitch", [0, 0, 0.3], [0, 0, 1], 0.6, [0, 0, 0.11],
     "forearm_link"),
    ("tool_joint", -1, "fixed", "forearm_slide", [0, 0, 0.25], None, 0.2, [0, 0, 0.03],
     "tool_link"),
]


ARM_INERTIA = {
    "base_link": diag(0.0121333, 0.0121333, 0.02),
    "base_yaw": diag(0.0037, 0.0025, 0.0037),
    "shoulder_pitch": diag(0.0093675, 0.0093675, 0.000735),
    "forearm_slide": diag(0.003205, 0.003205, 0.00016),
    # principal moments 4e-5, 6e-5, 5e-5 in a frame turned 90 deg about z (inertial rpy)
    "tool_joint": diag(6e-5, 4e-5, 5e-5),
}

# link: (lower, upper, velocity, effort)
ARM_LIMITS = {"base_yaw": (-2.9, 2.9, 2, 50), "shoulder_pitch": (-1.8, 1.8, 2, 40),
              "forearm_slide": (0, 0.1, 0.2, 100)}

# link: (mesh file, triangles, bounding box in metres, shape frame = link frame here)
ARM_MESHES_EXPECTED = {
    "base_link": ("base.stl", 60, [-0.1, -0.1, 0], [0.1, 0.1, 0.08]),
    # COLLADA in centimetres, Z_UP, node lifted 2 cm: y and z extents differ, so a lost Z_UP
    # (y and z swapped) or a lost unit (100x) cannot pass
    "base_yaw": ("turret.dae", 12, [-0.05, -0.07, 0.02], [0.05, 0.07, 0.12]),
    # ASCII STL in millimetres, URDF scale 0.001
    "shoulder_pitch": ("upper_arm.stl", 28, [-0.035, -0.035, 0], [0.035, 0.035, 0.3]),
    "forearm_slide": ("forearm.obj", 12, [-0.025, -0.025, 0], [0.025, 0.025, 0.25]),
}

ARM_COLLISIONS = {"base_link": "SP_CYLINDER", "base_yaw": "SP_BOX", "shoulder_pitch":
                  "SP_CYLINDER", "forearm_slide": "SP_BOX", "tool_joint": "SP_SPHERE"}

GREY = [0.6, 0.6, 0.62]
ORANGE = [0.95, 0.5, 0.1]
FOREARM_MTL = [0.8, 0.1, 0.1]
TIP_GREEN = [0.1, 0.7, 0.2]


def test_arm_links(model):
    body = model(ARM)
    assert body.name == "HRPSIM_ARM"
    assert [lk.name for lk in body.links] == [row[0] for row in ARM_TABLE]
    for row, lk in zip(ARM_TABLE, body.links):
        name, joint_id, joint_type, parent, translation, axis, mass, com, segment = row
        assert lk.jointId == joint_id, name
        assert lk.jointType == joint_type, name
        assert parent_name(body, lk) == parent, name
        assert floats(lk.translation) == approx(translation), name
        assert axis_angle_matrix(lk.rotation) == pytest.approx(np.eye(3), abs=ABS_ROT), name
        if axis is not None:
            assert floats(lk.jointAxis) == approx(axis), name
        assert lk.mass == approx(mass), name
        assert floats(lk.centerOfMass) == approx(com), name
        assert floats(lk.inertia) == approx(ARM_INERTIA[name], abs=ABS_INERTIA), name
        assert [s.name for s in lk.segments] == [segment], name
    assert sum(lk.mass for lk in body.links) == approx(7.5)


def test_arm_limits(model):
    body = model(ARM)
    for lk in body.links:
        got = [floats(getattr(lk, a)) for a in ("llimit", "ulimit", "uvlimit", "lvlimit",
                                                 "climit")]
        if lk.name in ARM_LIMITS:
            lower, upper, velocity, effort = ARM_LIMITS[lk.name]
            assert got == [approx([lower]), approx([upper]), approx([velocity]),
                           approx([-velocity]), approx([effort])], lk.name
        else:
            assert got == [[], [], [], [], []], lk.name


def test_arm_fixed_base_through_world(model):
    """`world` is dropped: base_link is the root, "fixed", at world_joint's origin."""
    body = model(ARM)
    assert "world" not in [lk.name for lk in body.links]
    root = body.links[0]
    assert (root.name, root.jointType, root.parentIndex) == ("base_link", "fixed", -1)
    assert floats(root.translation) == approx([0, 0, 0.05])


@pytest.mark.parametrize("name", list(ARM_MESHES_EXPECTED))
def test_arm_mesh_visuals(model, name):
    filename, ntri, lo, hi = ARM_MESHES_EXPECTED[name]
    body = model(ARM)
    lk = link_by_name(body, name)
    meshes = [t for t in lk.shapeIndices if kind(body, t) == "SP_MESH"]
    assert len(meshes) == len(lk.shapeIndices) == 1
    shape = body.shapes[meshes[0].shapeIndex]
    assert len(shape.triangles) // 3 == ntri
    assert len(shape.vertices) % 3 == 0 and len(shape.triangles) % 3 == 0
    assert max(shape.triangles) < len(shape.vertices) // 3
    assert shape.url == str(ARM_MESHES / filename)
    v = vertices(shape)
    assert v.min(axis=0).tolist() == approx(lo, abs=ABS_POS)
    assert v.max(axis=0).tolist() == approx(hi, abs=ABS_POS)
    # the visual has no <origin>: placed at the link frame
    assert matrix12(meshes[0].transformMatrix) == pytest.approx(np.eye(4), abs=1e-15)


def test_arm_meshes_face_outward(model):
    """The solids are convex: every triangle's winding normal points away from the centre of
    its mesh's vertices (STL, COLLADA and OBJ windings kept, the Z_UP turn not mirroring)."""
    body = model(ARM)
    for name in ARM_MESHES_EXPECTED:
        lk = link_by_name(body, name)
        shape = body.shapes[lk.shapeIndices[0].shapeIndex]
        v = vertices(shape)
        tri = np.array(shape.triangles, dtype=np.int64).reshape(-1, 3)
        face = np.cross(v[tri[:, 1]] - v[tri[:, 0]], v[tri[:, 2]] - v[tri[:, 0]])
        out = v[tri].mean(axis=1) - v.mean(axis=0)
        assert (np.einsum("ij,ij->i", face, out) > 0).all(), name


def test_arm_tool_primitives(model):
    """Primitive visuals keep their types and sizes; the URDF cylinder (axis z) is placed with
    Rx(+90 deg) after its origin, so the primitive's y axis becomes the link's z."""
    body = model(ARM)
    lk = link_by_name(body, "tool_joint")
    kinds = [kind(body, t) for t in lk.shapeIndices]
    assert kinds == ["SP_BOX", "SP_CYLINDER", "SP_SPHERE"]
    box, cyl, sphere = (body.shapes[t.shapeIndex] for t in lk.shapeIndices)
    assert floats(box.primitiveParameters)[:3] == approx([0.06, 0.04, 0.01], rel=REL_F32)
    assert floats(cyl.primitiveParameters)[:2] == approx([0.015, 0.04], rel=REL_F32)
    assert floats(sphere.primitiveParameters)[:1] == approx([0.02], rel=REL_F32)
    m = [matrix12(t.transformMatrix) for t in lk.shapeIndices]
    assert [x[:3, 3].tolist() for x in m] == [approx([0, 0, 0.005]), approx([0, 0, 0.03]),
                                              approx([0, 0, 0.06])]
    assert m[1][:3, :3] == pytest.approx(rx(math.pi / 2), abs=ABS_ROT)
    lo, hi = placed_box(body, lk.shapeIndices[1])
    # along the link's z: 0.03 -+ 0.02; across it within the radius (tessellated)
    assert [lo[2], hi[2]] == approx([0.01, 0.05], abs=ABS_POS)
    assert (np.abs(np.concatenate([lo[:2], hi[:2]])) <= 0.015 + ABS_POS).all()


def test_arm_collision_is_not_the_visual(model):
    body = model(ARM)
    assert len(body.linkShapeIndices) == len(body.links)
    for lk, coll in zip(body.links, body.linkShapeIndices):
        assert [kind(body, t) for t in coll] == [ARM_COLLISIONS[lk.name]], lk.name
        assert {t.shapeIndex for t in coll}.isdisjoint({t.shapeIndex for t in lk.shapeIndices})
    base = body.shapes[body.linkShapeIndices[0][0].shapeIndex]
    assert floats(base.primitiveParameters)[:2] == approx([0.1, 0.08], rel=REL_F32)
    m = matrix12(body.linkShapeIndices[0][0].transformMatrix)
    assert m[:3, 3].tolist() == approx([0, 0, 0.04])
    assert m[:3, :3] == pytest.approx(rx(math.pi / 2), abs=ABS_ROT)
    tool = body.shapes[body.linkShapeIndices[4][0].shapeIndex]
    assert floats(tool.primitiveParameters)[:1] == approx([0.04], rel=REL_F32)


def test_arm_materials(model):
    """Robot-level materials are shared by name; the OBJ's .mtl colour is used where the URDF
    gives no material; an inline material defined in a visual works too."""
    body = model(ARM)

    def placement(name, k=0):
        return link_by_name(body, name).shapeIndices[k]

    base, upper = placement("base_link"), placement("shoulder_pitch")
    turret, tool_cyl = placement("base_yaw"), placement("tool_joint", 1)
    tool_box, tip = placement("tool_joint", 0), placement("tool_joint", 2)
    assert material_index(body, base) == material_index(body, upper) \
        == material_index(body, tool_box) >= 0
    assert material_index(body, turret) == material_index(body, tool_cyl) >= 0
    assert material_index(body, base) != material_index(body, turret)
    assert floats(material(body, base).diffuseColor) == approx(GREY, rel=REL_F32)
    assert floats(material(body, turret).diffuseColor) == approx(ORANGE, rel=REL_F32)
    assert floats(material(body, tip).diffuseColor) == approx(TIP_GREEN, rel=REL_F32)
    forearm = material(body, placement("forearm_slide"))
    assert forearm is not None
    assert floats(forearm.diffuseColor) == approx(FOREARM_MTL, rel=REL_F32)
    assert forearm.transparency == approx(0.0, abs=1e-6)


def info_entries(body, kind_):
    """The "urdf <kind> ..." info strings, split into words."""
    return [s.split() for s in body.info if s.startswith("urdf %s " % kind_)]


def test_arm_mimic_and_dynamics_info(model):
    body = model(ARM)
    mimic = info_entries(body, "mimic")
    assert len(mimic) == 1, list(body.info)
    assert mimic[0][2:4] == ["forearm_slide", "shoulder_pitch"]
    assert [float(x) for x in mimic[0][4:]] == approx([0.05, 0.02])
    dynamics = info_entries(body, "dynamics")
    assert len(dynamics) == 1, list(body.info)
    assert dynamics[0][2] == "base_yaw"
    assert [float(x) for x in dynamics[0][3:]] == approx([0.5, 0.1])


# =============================================================================================
# 3. the wheeled base: continuous joints, a fixed caster, a free root
# =============================================================================================

# link, jointId, jointType, parent, translation, mass, segment name
WHEELED_TABLE = [
    ("base_link", -1, "free", None, [0, 0, 0], 10.0, "base_link"),
    ("left_wheel_joint", 0, "rotate", "base_link", [0.1, 0.18, -0.02], 0.5, "left_wheel"),
    ("caster_joint", -1, "fixed", "base_link", [-0.15, 0, -0.07], 0.2, "caster"),
    ("right_wheel_joint", 1, "rotate", "base_link", [0.1, -0.18, -0.02], 0.5, "right_wheel"),
]


def test_wheeled_links(model):
    body = model(WHEELED)
    assert body.name == "HRPSIM_WHEELED"
    assert [lk.name for lk in body.links] == [row[0] for row in WHEELED_TABLE]
    for row, lk in zip(WHEELED_TABLE, body.links):
        name, joint_id, joint_type, parent, translation, mass, segment = row
        assert (lk.jointId, lk.jointType, parent_name(body, lk)) == (joint_id, joint_type,
                                                                     parent), name
        assert floats(lk.translation) == approx(translation), name
        assert lk.mass == approx(mass), name
        assert [s.name for s in lk.segments] == [segment], name
    assert sum(lk.mass for lk in body.links) == approx(11.2)
    assert floats(body.links[0].inertia) == approx(diag(0.0833333, 0.141667, 0.208333),
                                                   abs=ABS_INERTIA)
    assert floats(body.links[1].inertia) == approx(diag(0.000866667, 0.0016, 0.000866667),
                                                   abs=ABS_INERTIA)


@pytest.mark.parametrize("name", ["left_wheel_joint", "right_wheel_joint"])
def test_wheeled_continuous_joints_have_no_position_limits(model, name):
    lk = link_by_name(model(WHEELED), name)
    assert lk.jointType == "rotate"
    assert floats(lk.jointAxis) == approx([0, 1, 0])
    assert floats(lk.ulimit) == [] and floats(lk.llimit) == []
    assert floats(lk.uvlimit) == approx([10]) and floats(lk.lvlimit) == approx([-10])
    assert floats(lk.climit) == approx([5])


def test_wheeled_geometry_touches_the_ground(model):
    """Wheels (cylinders turned onto y) and the caster ball reach z = -0.1 in the base frame;
    the wheel axes lie along y. Tessellated circles may fall short of the true radius by up to
    r (1 - cos(pi / slices)): 1.6 mm for r = 0.08 and 16 slices, hence the 2 mm tolerance."""
    body = model(WHEELED)
    for name in ("left_wheel_joint", "right_wheel_joint", "caster_joint"):
        lk = link_by_name(body, name)
        for placements in (lk.shapeIndices, body.linkShapeIndices[index_of(body, name)]):
            assert len(placements) == 1, name
            lo, hi = placed_box(body, placements[0])
            assert lk.translation[2] + lo[2] == pytest.approx(-0.1, abs=2e-3), name
    for name in ("left_wheel_joint", "right_wheel_joint"):
        t = link_by_name(body, name).shapeIndices[0]
        assert kind(body, t) == "SP_CYLINDER"
        axis = matrix12(t.transformMatrix)[:3, 1]       # the primitive's axis is its y
        assert np.abs(axis).tolist() == approx([0, 1, 0], abs=ABS_ROT)
        lo, hi = placed_box(body, t)
        assert (hi - lo)[1] == pytest.approx(0.04, abs=ABS_POS)


# =============================================================================================
# 4. the world-link rule, paths, file names
# =============================================================================================

def test_world_link_makes_a_fixed_base_at_the_joint_origin(tmp_path, loader):
    path = tmp_path / "fixed.urdf"
    path.write_text(robot(
        '  <link name="world"/>\n'
        '  <joint name="anchor" type="fixed"><origin xyz="1 2 3" rpy="0 0 1.5707963267948966"/>'
        '<parent link="world"/><child link="base"/></joint>\n' +
        link("base") + link("arm") + joint("j1", "base", "arm")))
    body = snapshot(loader.loadBodyInfo(str(path)))
    assert [lk.name for lk in body.links] == ["base", "j1"]
    root = body.links[0]
    assert (root.jointType, root.jointId, root.parentIndex) == ("fixed", -1, -1)
    assert floats(root.translation) == approx([1, 2, 3])
    assert axis_angle_matrix(root.rotation) == pytest.approx(rz(math.pi / 2), abs=ABS_ROT)
    assert body.links[1].jointId == 0


def test_root_without_world_is_free(tmp_path, loader):
    path = tmp_path / "free.urdf"
    path.write_text(robot(link("base") + link("arm") + joint("j1", "base", "arm")))
    body = snapshot(loader.loadBodyInfo(str(path)))
    assert [(lk.name, lk.jointType) for lk in body.links] == [("base", "free"),
                                                             ("j1", "rotate")]


def test_urdf_with_xml_extension(tmp_path, loader):
    """A .xml file is read as URDF too (hsm_loadModel)."""
    path = tmp_path / "robot.xml"
    path.write_text(robot(link("base") + link("arm") + joint("j1", "base", "arm", "prismatic"),
                          name="XMLBOT"))
    body = snapshot(loader.loadBodyInfo(str(path)))
    assert body.name == "XMLBOT"
    assert [(lk.name, lk.jointType) for lk in body.links] == [("base", "free"),
                                                             ("j1", "slide")]


def mesh_robot(filename, scale=None):
    extra = ' scale="%s"' % scale if scale else ""
    return robot(link("base", '<visual><geometry><mesh filename="%s"%s/></geometry></visual>'
                      % (filename, extra)))


def test_relative_and_file_url_mesh_paths(tmp_path, loader):
    (tmp_path / "sub" / "meshes").mkdir(parents=True)
    shutil.copy(ARM_MESHES / "base.stl", tmp_path / "sub" / "meshes" / "base.stl")
    (tmp_path / "rel.urdf").write_text(mesh_robot("sub/meshes/base.stl"))
    (tmp_path / "url.urdf").write_text(mesh_robot("file://%s" % (ARM_MESHES / "forearm.obj")))
    rel = snapshot(loader.loadBodyInfo(str(tmp_path / "rel.urdf")))
    url = snapshot(loader.loadBodyInfo(str(tmp_path / "url.urdf")))
    assert [len(s.triangles) // 3 for s in rel.shapes] == [60]
    assert [len(s.triangles) // 3 for s in url.shapes] == [12]
    assert floats(material(url, url.links[0].shapeIndices[0]).diffuseColor) == \
        approx(FOREARM_MTL, rel=REL_F32)


def test_package_url_through_ros_package_path(tmp_path, loader, state_dirs):
    """package://pkg/... is found through ROS_PACKAGE_PATH when no directory named pkg is
    above the URDF: the session's server (no such ROS_PACKAGE_PATH) reports the reference,
    a server started with ROS_PACKAGE_PATH loads it."""
    packages = tmp_path / "ws" / "src"
    (packages / "my_meshes" / "meshes").mkdir(parents=True)
    (packages / "my_meshes" / "package.xml").write_text(
        "<package format=\"2\"><name>my_meshes</name></package>\n")
    shutil.copy(ARM_MESHES / "base.stl", packages / "my_meshes" / "meshes" / "base.stl")
    (tmp_path / "elsewhere").mkdir()
    path = tmp_path / "elsewhere" / "pkg.urdf"
    text = mesh_robot("package://my_meshes/meshes/base.stl")
    path.write_text(text)
    with pytest.raises(ModelLoaderException) as info:
        loader.loadBodyInfo(str(path))
    description = info.value.description
    assert description.startswith("%s:3:" % path), description   # the <link> with the mesh
    assert "my_meshes" in description, description

    env = cli_env()
    env["ROS_PACKAGE_PATH"] = str(packages)
    state = state_dirs("rospkg")
    proc = run_cli("up", "--state-dir", state, "--only", "ModelLoader", "--timeout",
                   UP_TIMEOUT_S, env=env)
    assert proc.returncode == 0, describe(proc)
    client = hrpsim.connect(launcher.read_state(state)["naming"])
    body = snapshot(client.load_body(path))
    assert [len(s.triangles) // 3 for s in body.shapes] == [60]
    assert body.shapes[0].url == str(packages / "my_meshes" / "meshes" / "base.stl")


def test_package_url_without_a_package_name(tmp_path, loader):
    """package:///rest (no package name, as a widely used collection of robot descriptions
    writes its mesh URLs) is read as pinocchio reads it: rest under each package root, here the
    directory holding the collection, found above the URDF; with a warning naming file and
    line. When nothing matches, the usual error at the mesh's line."""
    meshes = tmp_path / "coll" / "robots" / "r1" / "meshes"
    meshes.mkdir(parents=True)
    shutil.copy(ARM_MESHES / "base.stl", meshes / "base_link.STL")
    (tmp_path / "coll" / "robots" / "r1" / "urdf").mkdir()
    path = tmp_path / "coll" / "robots" / "r1" / "urdf" / "r1.urdf"
    url = "package:///coll/robots/r1/meshes/base_link.STL"
    path.write_text(mesh_robot(url))
    body = snapshot(loader.loadBodyInfo(str(path)))
    assert [len(s.triangles) // 3 for s in body.shapes] == [60]
    assert body.shapes[0].url == str((meshes / "base_link.STL").resolve())
    warnings = [s for s in body.info if s.startswith("warning: ")]
    assert warnings == ["warning: %s:3: mesh '%s' has no package name; read as pinocchio does, "
                        "the rest of the path under each package root: %s"
                        % (path, url, (meshes / "base_link.STL").resolve())]
    missing = tmp_path / "coll" / "robots" / "r1" / "urdf" / "missing.urdf"
    missing.write_text(mesh_robot("package:///coll/robots/r1/meshes/nothere.STL"))
    with pytest.raises(ModelLoaderException) as info:
        loader.loadBodyInfo(str(missing))
    description = info.value.description
    assert description.startswith("%s:3:" % missing), description
    # the candidates tried, the URDF's own directory first (the list is cut at the message's
    # 512 characters)
    assert ("mesh 'package:///coll/robots/r1/meshes/nothere.STL' not found (tried %s; "
            % (missing.parent / "coll" / "robots" / "r1" / "meshes" / "nothere.STL")
            ) in description, description
    assert loaded_ok(loader)


def test_get_body_info_caches_urdf(loader):
    first = loader.getBodyInfo(hrpsim.file_url(WHEELED))
    second = loader.getBodyInfo(hrpsim.file_url(WHEELED))
    assert first._is_equivalent(second)
    assert second._get_name() == "HRPSIM_WHEELED"


# =============================================================================================
# 5. broken URDFs: file and line of the offending element
# =============================================================================================

# Every offending construct is written on ONE line (a joint with its parent/child elements, a
# link with its inertial, or all the elements of a cycle), so the expected line does not depend
# on which of the involved elements the loader names. The document starts at line 1 with the
# XML declaration and line 2 with <robot>; robot() puts its body from line 3 on.

BASE = link("base") + link("a")

# name: (URDF text, marker: a text on the offending line, problem regex)
ERROR_CASES = {
    "missing_parent_link": (
        robot(BASE + joint("j1", "nowhere", "a")),
        'name="j1"', r"nowhere"),
    "link_child_of_two_joints": (
        robot(link("base") + link("b") + link("shared") + joint("j0", "base", "b") +
              joint("j1", "base", "shared") + joint("j2", "b", "shared")),
        'name="j2"', r"shared"),
    "cycle": (
        # b and c hang from each other, apart from the root: every element of the cycle on
        # one line
        robot(BASE + joint("j1", "base", "a") +
              "  " + link("b").strip() + link("c").strip() + joint("j2", "b", "c").strip() +
              joint("j3", "c", "b").strip() + "\n"),
        'name="j2"', r"(?i)cycle|loop"),
    "two_roots": (
        robot("  " + link("base").strip() + link("other").strip() + "\n" + link("a") +
              joint("j1", "base", "a")),
        'name="other"', r"(?i)root"),
    "duplicate_link_name": (
        robot(BASE + link("a") + joint("j1", "base", "a")),
        None, r"(?i)(duplicate|two links).*\ba\b"),
    "duplicate_joint_name": (
        robot(BASE + link("b") + joint("j1", "base", "a") + joint("j1", "base", "b")),
        None, r"(?i)(duplicate|two joints).*\bj1\b"),
    "negative_mass": (
        robot(link("base") + '  <link name="a">%s</link>\n' % inertial(mass=-0.5) +
              joint("j1", "base", "a")),
        'value="-0.5"', r"mass -0.5 is negative"),
    "planar_joint": (
        robot(BASE + joint("j1", "base", "a", "planar")),
        'type="planar"', r"planar"),
    "missing_mesh_file": (
        robot(link("base", '<visual><geometry><mesh filename="meshes/nothere.stl"/>'
                           '</geometry></visual>')),
        "nothere.stl", r"nothere\.stl"),
    "malformed_xml": (
        '<?xml version="1.0"?>\n<robot name="T">\n  <link name="base">\n'
        "  </joint>\n</robot>\n",
        "</joint>", r"(?i)mismatch|tag|link"),
}


def offending_line(text, marker):
    """1-based line of the last occurrence of marker (the duplicate is the second one); None
    means the last line holding a <link or <joint element."""
    lines = text.splitlines()
    if marker is None:
        firsts = {}
        for i, line in enumerate(lines):
            m = re.search(r'<(link|joint) name="([^"]+)"', line)
            if m and m.groups() in firsts:
                return i + 1
            if m:
                firsts[m.groups()] = i
        raise AssertionError("no duplicate in the case's text")
    return max(i for i, line in enumerate(lines) if marker in line) + 1


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_bad_urdf_raises_with_file_and_line(tmp_path, loader, case):
    text, marker, problem = ERROR_CASES[case]
    path = tmp_path / "bad.urdf"
    path.write_text(text)
    line = offending_line(text, marker)
    with pytest.raises(ModelLoaderException) as info:
        loader.loadBodyInfo(str(path))
    description = info.value.description
    assert description.startswith("%s:%d:" % (path, line)), description
    assert re.search(problem, description), description
    if case == "missing_mesh_file":   # the message names the path it tried
        assert str(tmp_path / "meshes" / "nothere.stl") in description, description
    assert loaded_ok(loader)


def test_bad_urdf_through_get_body_info(tmp_path, loader):
    path = tmp_path / "bad.urdf"
    text, marker, _ = ERROR_CASES["planar_joint"]
    path.write_text(text)
    with pytest.raises(ModelLoaderException) as info:
        loader.getBodyInfo(hrpsim.file_url(path))
    assert info.value.description.startswith("%s:%d:" % (path, offending_line(text, marker)))
    assert loaded_ok(loader)


# =============================================================================================
# 6. what real robots contain: accepted, with a warning in the server's log naming file and line
# =============================================================================================

QUIRKS = REPO / "tests" / "data" / "urdf" / "quirks"


def expected_warnings(path):
    """(line, text) pairs of a quirk fixture's 'expect-warning: LINE TEXT' header lines."""
    found = re.findall(r"expect-warning: (\d+) (.*?)(?: -->)?$", path.read_text(), re.M)
    assert found, path
    return [(int(line), text) for line, text in found]


def server_log(servers):
    return (Path(servers.state_dir) / "logs" / "hrpsim-modelloader.log").read_text()


@pytest.mark.parametrize("name", ["frame_links.urdf", "singular_inertia.urdf",
                                  "material_order.urdf"])
def test_quirk_loads_with_warnings_naming_file_and_line(servers, loader, name):
    path = QUIRKS / name
    before = len(server_log(servers))
    body = snapshot(loader.loadBodyInfo(hrpsim.file_url(path)))
    assert body.links
    log = server_log(servers)[before:]
    for line, text in expected_warnings(path):
        assert re.search(r"warning: %s:%d: .*%s" % (re.escape(str(path)), line, re.escape(text)),
                         log), (line, text, log)
    assert log.count("warning:") == len(expected_warnings(path)), log
    assert loaded_ok(loader)


def test_frame_links_are_massless_over_the_wire(model):
    body = model(QUIRKS / "frame_links.urdf")
    names = [lk.name for lk in body.links]
    assert names == ["base", "shoulder", "ee_fixed", "tool_fixed", "swing", "camera_optical"]
    masses = [lk.mass for lk in body.links]
    assert masses == [4.0, 2.0, 0.0, 0.0, 0.0, 0.0]
    for lk in body.links[2:]:
        assert list(lk.inertia) == [0.0] * 9
        assert all(math.isfinite(c) for c in lk.centerOfMass)
    # the frames keep their place in the tree and their segment (URDF link) names
    assert [lk.segments[0].name for lk in body.links] == [
        "base", "upper", "ee_frame", "tool_frame", "tip", "optical_frame"]
    assert list(body.links[2].translation) == [0.0, 0.0, 0.5]
    assert body.links[4].jointType == "rotate" and body.links[4].jointId == 1


def test_singular_inertia_is_served_as_written(model):
    body = model(QUIRKS / "singular_inertia.urdf")
    assert body.links[0].mass == 1.5
    assert list(body.links[0].inertia) == [1e-6] * 9
    assert list(body.links[1].inertia) == [0.01, -0.02, 0, -0.02, 0.01, 0, 0, 0, 0.01]


def test_material_names_resolve_before_and_after_definition(model):
    body = model(QUIRKS / "material_order.urdf")

    def rgba(link_name, i):
        lk = link_by_name(body, link_name)
        m = material(body, lk.shapeIndices[i])
        return None if m is None else [round(c, 6) for c in m.diffuseColor] + [
            round(1 - m.transparency, 6)]

    shell, leg = [0.8, 0.8, 0.8, 1.0], [0.2, 0.6, 0.2, 1.0]
    assert [rgba("body", i) for i in range(2)] == [shell, shell]
    assert [rgba("right", i) for i in range(2)] == [leg, shell]
    assert [rgba("left", i) for i in range(5)] == [leg, leg, [0.1, 0.2, 0.3, 0.5], None,
                                                   [0.0, 0.0, 1.0, 1.0]]


def test_quirk_warnings_are_body_info_strings(model):
    """URDF load warnings reach BodyInfo.info as VRML's do: "warning: <file>:<line>: ..."."""
    for name in ("frame_links.urdf", "singular_inertia.urdf"):
        path = QUIRKS / name
        info = [s for s in model(path).info if s.startswith("warning: ")]
        assert len(info) == len(expected_warnings(path)), info
        for line, text in expected_warnings(path):
            assert any(s.startswith("warning: %s:%d: " % (path, line)) and text in s
                       for s in info), (line, text, info)


def dynamics_log(servers):
    path = Path(servers.state_dir) / "logs" / "hrpsim-dynamics.log"
    return path.read_text(errors="replace") if path.exists() else ""


def test_frame_links_simulate_with_one_bound(servers, loader):
    """frame_links.urdf in a DynamicsSimulator: the three massless frames on fixed joints weld
    into their parents silently and keep their frames over the wire (ee_fixed sits 0.5 m along
    its parent's z); only the moving massless link 'swing' gets the lower bound, with one
    warning naming the file and the line of its <mass value="0">. Dropped from 1 m, the root
    falls as ODE's semi-implicit Euler steps say: z_N = 1 - g dt^2 N (N + 1) / 2 = 0.80302 m
    after N = 200 steps of 1 ms (the continuous 1 - g t^2 / 2 = 0.8040 m differs by g dt t / 2)."""
    if not servers.has("DynamicsSimulatorFactory"):
        pytest.skip("hrpsim-dynamics not running")
    DS = OpenHRP.DynamicsSimulator
    path = QUIRKS / "frame_links.urdf"
    sim = servers.client.dynamics_simulator()
    before = len(dynamics_log(servers))
    try:
        sim.registerCharacter("f", loader.loadBodyInfo(hrpsim.file_url(path)))
        sim.setCharacterLinkData("f", "base", DS.ABS_TRANSFORM,
                                 [0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1])
        sim.setCharacterLinkData("f", "shoulder", DS.JOINT_VALUE, [0.4])
        sim.init(0.001, DS.EULER, DS.DISABLE_SENSOR)
        sim.setGVector([0, 0, 9.8])
        sim.initSimulation()
        for _ in range(200):
            sim.stepSimulation()
        base = sim.getCharacterLinkData("f", "base", DS.ABS_TRANSFORM)
        n, dt, g = 200, 0.001, 9.8
        assert base[2] == pytest.approx(1 - g * dt * dt * n * (n + 1) / 2, abs=1e-9)
        shoulder = np.asarray(sim.getCharacterLinkData("f", "shoulder", DS.ABS_TRANSFORM))
        ee = np.asarray(sim.getCharacterLinkData("f", "ee_fixed", DS.ABS_TRANSFORM))
        R = shoulder[3:].reshape(3, 3)
        assert ee[:3] == pytest.approx(shoulder[:3] + R @ [0, 0, 0.5], abs=1e-12)
        assert ee[3:] == pytest.approx(shoulder[3:], abs=1e-12)
        assert sim.getCharacterLinkData("f", "shoulder", DS.JOINT_VALUE)[0] == \
            pytest.approx(0.4, abs=1e-9)
    finally:
        sim.destroy()
    log = dynamics_log(servers)[before:]
    bounds = [ln for ln in log.splitlines() if "dynamics: f: moving link" in ln]
    assert len(bounds) == 1, log
    assert "%s:70: dynamics: f: moving link 'swing' (segments 'tip') has no mass" % path \
        in bounds[0], bounds
    for frame in ("ee_fixed", "tool_fixed", "camera_optical"):
        assert frame not in log, log


def test_singular_inertia_one_bound_per_link(servers, loader):
    """singular_inertia.urdf: the free root's rank-one tensor and the arm's indefinite one are
    raised at initSimulation, one warning each naming the line of its <inertia>."""
    if not servers.has("DynamicsSimulatorFactory"):
        pytest.skip("hrpsim-dynamics not running")
    DS = OpenHRP.DynamicsSimulator
    path = QUIRKS / "singular_inertia.urdf"
    sim = servers.client.dynamics_simulator()
    before = len(dynamics_log(servers))
    try:
        sim.registerCharacter("s", loader.loadBodyInfo(hrpsim.file_url(path)))
        sim.init(0.001, DS.EULER, DS.DISABLE_SENSOR)
        sim.initSimulation()
        for _ in range(50):
            sim.stepSimulation()
        q = sim.getCharacterAllLinkData("s", DS.JOINT_VALUE)
        assert all(math.isfinite(v) for v in q)
    finally:
        sim.destroy()
    log = dynamics_log(servers)[before:]
    bounds = [ln for ln in log.splitlines() if "dynamics: s: moving link" in ln]
    assert len(bounds) == 2, log
    assert "%s:12: dynamics: s: moving link 'root_link'" % path in bounds[0], bounds
    assert "%s:25: dynamics: s: moving link 'j' (segments 'arm')" % path in bounds[1], bounds
    assert all("not positive definite" in b for b in bounds), bounds
