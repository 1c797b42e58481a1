#!/usr/bin/env python3
"""Write humanoid.urdf, the URDF twin of samples/models/humanoid/humanoid.wrl.

The VRML model is read THROUGH hrpsim's ModelLoader (a running server: `hrpsim up`), so the
URDF carries exactly the numbers hrpsim serves for the VRML body: the same links, joint types,
axes, origins, limits and jointIds, and per link one <inertial> holding the link's merged mass,
centre of mass and inertia (the VRML links with several Segments, WAIST and CHEST_Y, are merged
as the ModelLoader merges them). Numbers that must agree with the VRML body (inertials, joint
origins, axes, limits) are written with Python's repr, the shortest decimal that reads back as
the identical double (as exact as %.17g, and shorter); geometry is written to 7 significant
digits (the VRML geometry is float32).

Naming (see samples/models/urdf/README.md): URDF joint names are the VRML link (Joint DEF)
names; URDF link names are <JOINT>_LINK, except the root link WAIST. hrpsim names each
non-root link after its URDF joint, so the loaded URDF body has the VRML body's link names.
Joints are written in jointId order, because hrpsim numbers the URDF's movable joints in the
file order of the <joint> elements; the link tree order therefore differs from the VRML one
around CHEST_Y (NECK_Y, jointId 14, comes before the arms, 16..29).

What URDF cannot say is dropped: sensors, lights, motor parameters (gearRatio, rotorInertia,
...), the free root's initial placement (WAIST at z = 0.82 in the VRML; a URDF's root link is
at its own origin). URDF requires an effort in every <limit>; the VRML gives a climit only to
the knees (10), which becomes their effort; the other joints get EFFORT_WITHOUT_CLIMIT.

Visual geometry: one URDF visual per VRML shape placement, at the same place: Box, Cylinder
and Sphere as themselves, the Cone as a cylinder of its base radius and height, and each
IndexedFaceSet (feet, hands, visor, chest badge) as the box bounding its vertices. Collision
geometry: one box per link, bounding all of the link's VRML shapes (link frame, axis-aligned).
Materials: one named material per distinct VRML Material colour, declared at robot level and
referred to by name.

Usage:
    make_humanoid_urdf.py [--naming CORBALOC] [--model humanoid.wrl] [--out humanoid.urdf]

The naming service defaults to $HRPSIM_NAMING or the state of `hrpsim up`. The output is
deterministic (the same server and model give byte-identical files).
"""

import argparse
import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[3]
sys.path.insert(0, str(REPO / "python"))

import hrpsim  # noqa: E402

DEFAULT_MODEL = REPO / "samples" / "models" / "humanoid" / "humanoid.wrl"
DEFAULT_OUT = HERE / "humanoid.urdf"

# effort [N m] for the joints whose VRML Joint has no climit (URDF requires the attribute)
EFFORT_WITHOUT_CLIMIT = 10.0

# thinnest box drawn for a flat IndexedFaceSet [m]
MIN_THICKNESS = 0.002

# names for the VRML Materials, by diffuse colour (rounded to 3 decimals) and transparency;
# a colour not listed here gets "material_<n>"
MATERIAL_NAMES = {
    ((0.88, 0.88, 0.9), 0.0): "white",     # WHITE_APP
    ((0.22, 0.22, 0.25), 0.0): "dark",     # DARK_APP (and the foot's ankle block)
    ((0.15, 0.35, 0.8), 0.0): "blue",      # BLUE_APP
    ((0.95, 0.5, 0.1), 0.0): "orange",     # ORANGE_APP
    ((0.05, 0.05, 0.1), 0.3): "glass",     # GLASS_APP
    ((0.25, 0.25, 0.28), 0.0): "sole",     # parts/foot.wrl sole plate
    ((0.3, 0.3, 0.33), 0.0): "skin",       # parts/hand.wrl SKIN
}


# ---------------------------------------------------------------------------------------------
# number formatting and small rotation helpers
# ---------------------------------------------------------------------------------------------

def exact(x):
    """The shortest decimal that reads back as the same double ("0" for zero)."""
    x = float(x)
    if x == 0.0:
        return "0"
    text = repr(x)
    return text[:-2] if text.endswith(".0") else text


def geo(x):
    """Geometry (float32 in the model) to 7 significant digits; tiny rounding noise is 0."""
    x = float(x)
    if abs(x) < 1e-12:
        return "0"
    return "%.7g" % x


def angle(x):
    """An angle of a shape placement to 12 significant digits; below 1e-9 rad it is 0 (the
    VRML model writes 90 degrees as 1.5707963268, whose turns leave ~5e-12 behind)."""
    x = float(x)
    return "0" if abs(x) < 1e-9 else "%.12g" % x


def vec(values, fmt):
    return " ".join(fmt(v) for v in values)


def matmul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def apply(m, v):
    return [sum(m[i][k] * v[k] for k in range(3)) for i in range(3)]


RX_MINUS_90 = [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]]


def rpy_of(r):
    """URDF roll, pitch, yaw of a rotation matrix R = Rz(yaw) Ry(pitch) Rx(roll)."""
    pitch = math.asin(max(-1.0, min(1.0, -r[2][0])))
    if abs(r[2][0]) < 1.0 - 1e-12:
        roll = math.atan2(r[2][1], r[2][2])
        yaw = math.atan2(r[1][0], r[0][0])
    else:  # gimbal lock: put everything in yaw
        roll = 0.0
        yaw = math.atan2(-r[0][1], r[1][1])
    return [roll, pitch, yaw]


def axis_angle_matrix(aa):
    x, y, z, angle = (float(v) for v in aa)
    n = math.sqrt(x * x + y * y + z * z)
    if n == 0.0 or angle == 0.0:
        return [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    x, y, z = x / n, y / n, z / n
    c, s, t = math.cos(angle), math.sin(angle), 1.0 - math.cos(angle)
    return [[t * x * x + c, t * x * y - s * z, t * x * z + s * y],
            [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
            [t * x * z - s * y, t * y * z + s * x, t * z * z + c]]


def origin(xyz, rpy, fmt=geo):
    return '<origin xyz="%s" rpy="%s"/>' % (vec(xyz, fmt), vec(rpy, angle))


# ---------------------------------------------------------------------------------------------
# reading the VRML body
# ---------------------------------------------------------------------------------------------

class Model:
    """The BodyInfo attributes the URDF needs, each fetched once."""

    def __init__(self, body):
        self.name = body._get_name()
        self.links = list(body._get_links())
        self.shapes = list(body._get_shapes())
        self.appearances = list(body._get_appearances())
        self.materials = list(body._get_materials())
        self.material_names = self._name_materials()

    def _name_materials(self):
        names = {}
        for i, m in enumerate(self.materials):
            key = (tuple(round(float(c), 3) for c in m.diffuseColor),
                   round(float(m.transparency), 3))
            names[i] = MATERIAL_NAMES.get(key) or "material_%d" % i
        return names

    def material_of(self, shape):
        app = self.appearances[shape.appearanceIndex] if shape.appearanceIndex >= 0 else None
        if app is None or app.materialIndex < 0:
            return None
        return app.materialIndex


def placement(tsi):
    """(R, t) of a TransformedShapeIndex (3x4 row-major), link frame."""
    m = [float(v) for v in tsi.transformMatrix]
    return [m[0:3], m[4:7], m[8:11]], [m[3], m[7], m[11]]


def shape_vertices(shape):
    v = [float(x) for x in shape.vertices]
    return [v[i:i + 3] for i in range(0, len(v), 3)]


# ---------------------------------------------------------------------------------------------
# writing the URDF
# ---------------------------------------------------------------------------------------------

def urdf_link_name(model, i):
    lk = model.links[i]
    return lk.name if lk.parentIndex < 0 else lk.name + "_LINK"


def mesh_box(shape):
    """(centre, size) in the shape frame of the box drawn for a face set: its vertices'
    bounding box, at least MIN_THICKNESS thick (the flat chest badge)."""
    v = shape_vertices(shape)
    lo = [min(c[k] for c in v) for k in range(3)]
    hi = [max(c[k] for c in v) for k in range(3)]
    return [(a + b) / 2 for a, b in zip(lo, hi)], [max(b - a, MIN_THICKNESS)
                                                   for a, b in zip(lo, hi)]


def visual_of(model, tsi):
    """The <visual> lines for one VRML shape placement."""
    shape = model.shapes[tsi.shapeIndex]
    kind = shape.primitiveType._n
    p = [float(x) for x in shape.primitiveParameters]
    rot, t = placement(tsi)
    if kind == "SP_BOX":
        note, geom = "Box", '<box size="%s"/>' % vec(p[:3], geo)
    elif kind == "SP_SPHERE":
        note, geom = "Sphere", '<sphere radius="%s"/>' % geo(p[0])
    elif kind in ("SP_CYLINDER", "SP_CONE"):
        # VRML's axis is the shape's y, URDF's the visual's z: hrpsim places a URDF cylinder
        # with an extra Rx(+90 deg), so the visual frame is the VRML one times Rx(-90 deg)
        rot = matmul(rot, RX_MINUS_90)
        if kind == "SP_CYLINDER":
            note = "Cylinder"
        else:
            note = "Cone (bottomRadius %s height %s) drawn as a cylinder" % (geo(p[0]), geo(p[1]))
        geom = '<cylinder radius="%s" length="%s"/>' % (geo(p[0]), geo(p[1]))
    elif kind == "SP_MESH":
        centre, size = mesh_box(shape)
        t = [a + b for a, b in zip(apply(rot, centre), t)]
        note = "IndexedFaceSet (%d triangles) drawn as its bounding box" % (
            len(shape.triangles) // 3)
        geom = '<box size="%s"/>' % vec(size, geo)
    else:
        raise SystemExit("unexpected VRML shape type %s" % kind)
    lines = ["    <!-- VRML %s -->" % note, "    <visual>",
             "      " + origin(t, rpy_of(rot)),
             "      <geometry>%s</geometry>" % geom]
    mat = model.material_of(shape)
    if mat is not None:
        lines.append('      <material name="%s"/>' % model.material_names[mat])
    lines.append("    </visual>")
    return lines


def collision_of(model, lk):
    """One box bounding the link's visuals as drawn (the VRML shapes' vertices; for a face set
    the corners of its box), link frame."""
    pts = []
    for tsi in lk.shapeIndices:
        rot, t = placement(tsi)
        shape = model.shapes[tsi.shapeIndex]
        if shape.primitiveType._n == "SP_MESH":
            centre, size = mesh_box(shape)
            local = [[c + s * (0.5 if (corner >> k) & 1 else -0.5)
                      for k, (c, s) in enumerate(zip(centre, size))] for corner in range(8)]
        else:
            local = shape_vertices(shape)
        pts += [[a + b for a, b in zip(apply(rot, v), t)] for v in local]
    lo = [min(c[k] for c in pts) for k in range(3)]
    hi = [max(c[k] for c in pts) for k in range(3)]
    # rounded outwards to the millimetre, so the box covers the shapes (float32 noise of
    # 1e-7 m and less is not rounded up to a whole millimetre)
    lo = [math.floor(x * 1000 + 1e-4) / 1000 for x in lo]
    hi = [math.ceil(x * 1000 - 1e-4) / 1000 for x in hi]
    centre = [(a + b) / 2 for a, b in zip(lo, hi)]
    return ["    <collision>",
            "      " + origin(centre, [0, 0, 0]),
            '      <geometry><box size="%s"/></geometry>' % vec(
                [b - a for a, b in zip(lo, hi)], geo),
            "    </collision>"]


def link_lines(model, i):
    lk = model.links[i]
    inertia = [float(x) for x in lk.inertia]
    lines = ['  <link name="%s">' % urdf_link_name(model, i),
             "    <inertial>",
             "      " + origin(lk.centerOfMass, [0, 0, 0], fmt=exact),
             '      <mass value="%s"/>' % exact(lk.mass),
             '      <inertia ixx="%s" ixy="%s" ixz="%s" iyy="%s" iyz="%s" izz="%s"/>' % tuple(
                 exact(inertia[k]) for k in (0, 1, 2, 4, 5, 8)),
             "    </inertial>"]
    for tsi in lk.shapeIndices:
        lines += visual_of(model, tsi)
    lines += collision_of(model, lk)
    lines.append("  </link>")
    return lines


JOINT_TYPES = {"rotate": "revolute", "slide": "prismatic", "fixed": "fixed"}


def joint_lines(model, i):
    lk = model.links[i]
    name = lk.name
    if lk.jointType not in JOINT_TYPES:
        raise SystemExit("%s: jointType %s has no URDF equivalent" % (name, lk.jointType))
    lim = {k: [float(x) for x in getattr(lk, k)]
           for k in ("ulimit", "llimit", "uvlimit", "lvlimit", "climit")}
    lines = ['  <joint name="%s" type="%s">' % (name, JOINT_TYPES[lk.jointType]),
             "    " + origin(lk.translation, rpy_of(axis_angle_matrix(lk.rotation)),
                             fmt=exact),
             '    <parent link="%s"/>' % urdf_link_name(model, lk.parentIndex),
             '    <child link="%s"/>' % urdf_link_name(model, i)]
    if lk.jointType != "fixed":
        lines.append('    <axis xyz="%s"/>' % vec(lk.jointAxis, exact))
        if not (len(lim["ulimit"]) == len(lim["llimit"]) == 1
                and len(lim["uvlimit"]) == len(lim["lvlimit"]) == 1):
            raise SystemExit("%s: expected one position and one velocity limit each" % name)
        # URDF has one velocity limit, read back as uvlimit = v, lvlimit = -v
        if lim["lvlimit"][0] != -lim["uvlimit"][0]:
            raise SystemExit("%s: velocity limits %s, %s are not symmetric"
                             % (name, lim["lvlimit"][0], lim["uvlimit"][0]))
        effort = lim["climit"][0] if lim["climit"] else EFFORT_WITHOUT_CLIMIT
        lines.append('    <limit lower="%s" upper="%s" velocity="%s" effort="%s"/>' % (
            exact(lim["llimit"][0]), exact(lim["ulimit"][0]), exact(lim["uvlimit"][0]),
            exact(effort)))
    lines.append("  </joint>")
    return lines


def make_urdf(model, source):
    links = model.links
    roots = [i for i, lk in enumerate(links) if lk.parentIndex < 0]
    if len(roots) != 1:
        raise SystemExit("expected one root link, found %d" % len(roots))
    if any(lk.jointId < 0 for lk in links[1:]):
        raise SystemExit("every non-root link must have a jointId (URDF numbers them in order)")
    by_joint_id = sorted(range(1, len(links)), key=lambda i: links[i].jointId)
    if [links[i].jointId for i in by_joint_id] != list(range(len(by_joint_id))):
        raise SystemExit("jointIds are not 0..n-1")

    out = ['<?xml version="1.0"?>',
           "<!-- Generated by make_humanoid_urdf.py from %s," % source,
           "     read through hrpsim's ModelLoader; do not edit by hand: change the VRML model",
           "     and rerun the script.",
           "     URDF joint names are the VRML link names; URDF link names are <JOINT>_LINK",
           "     (the root: WAIST). Joints are in jointId order. Inertials are the VRML links'",
           "     merged mass properties, written exactly. See ../README.md. -->",
           '<robot name="%s">' % model.name, ""]
    used = sorted({model.material_names[m] for m in
                   (model.material_of(model.shapes[t.shapeIndex])
                    for lk in links for t in lk.shapeIndices) if m is not None})
    by_name = {}
    for i, name in model.material_names.items():
        by_name.setdefault(name, model.materials[i])
    for name in used:
        m = by_name[name]
        rgba = [float(c) for c in m.diffuseColor] + [1.0 - float(m.transparency)]
        out.append('  <material name="%s"><color rgba="%s"/></material>' % (
            name, " ".join("%.4g" % c for c in rgba)))
    out.append("")
    out += link_lines(model, roots[0])
    for i in by_joint_id:
        out.append("")
        out += joint_lines(model, i)
        out += link_lines(model, i)
    out += ["", "</robot>", ""]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--naming", help="naming service corbaloc (default: $HRPSIM_NAMING or "
                                     "the state of `hrpsim up`)")
    ap.add_argument("--model", default=str(DEFAULT_MODEL), help="the VRML humanoid")
    ap.add_argument("--out", default=str(DEFAULT_OUT), help="the URDF to write")
    args = ap.parse_args()

    client = hrpsim.connect(naming=args.naming)
    model = Model(client.load_body(args.model))
    try:
        source = Path(args.model).resolve().relative_to(REPO).as_posix()
    except ValueError:
        source = Path(args.model).name
    text = make_urdf(model, source)
    Path(args.out).write_text(text)
    print("%s: %d links, %d joints" % (args.out, len(model.links), len(model.links) - 1))


if __name__ == "__main__":
    main()
