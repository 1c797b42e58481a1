#!/usr/bin/env python3
"""Write the mesh files of the sample arm (hrpsim_arm_description/meshes/).

Four meshes, one per file format hrpsim's mesh reader must handle, each a closed convex solid
whose triangles wind counter-clockwise seen from outside (normals point out):

  base.stl       binary STL, metres: a 16-sided prism, radius 0.1, z 0..0.08
                 (60 triangles; bounding box (-0.1, -0.1, 0)..(0.1, 0.1, 0.08))
  turret.dae     COLLADA 1.4.1 in centimetres (<unit meter="0.01">) with <up_axis>Z_UP</up_axis>:
                 a box 10 x 14 x 10 cm, z 0..10 cm in its geometry, under a node translated by
                 2 cm along z (12 triangles; bounding box in metres (-0.05, -0.07, 0.02)..
                 (0.05, 0.07, 0.12): the extents in y and z differ, so a reader that ignored
                 Z_UP would swap them, and one that ignored the unit would be 100 times too big)
  upper_arm.stl  ASCII STL in millimetres (the URDF scales it by 0.001): an 8-sided prism,
                 radius 35 mm, z 0..300 mm (28 triangles; bounding box in metres
                 (-0.035, -0.035, 0)..(0.035, 0.035, 0.3) once scaled)
  forearm.obj    Wavefront OBJ, metres, with forearm.mtl: a frustum (square 50 mm at z = 0,
                 30 mm at z = 0.25) written as 6 quads (12 triangles; bounding box
                 (-0.025, -0.025, 0)..(0.025, 0.025, 0.25)); material `forearm_red`, diffuse
                 colour Kd 0.8 0.1 0.1

Usage: make_arm_meshes.py [OUTDIR]   (default: hrpsim_arm_description/meshes next to this file)

Standard library only; deterministic: rerunning it writes byte-identical files.
"""

import argparse
import math
import struct
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "hrpsim_arm_description" / "meshes"


# ---------------------------------------------------------------------------------------------
# solids: (vertices, triangles) with outward counter-clockwise triangles
# ---------------------------------------------------------------------------------------------

def prism(sides, radius, z0, z1):
    """A regular prism about z: vertex k at angle 2 pi k / sides (k = 0 on +x); bottom ring
    0..sides-1, top ring sides..2 sides-1. Caps are fans from vertex 0 of each ring, so the
    solid has 2 sides + 2 (sides - 2) = 4 sides - 4 triangles."""
    verts = []
    for z in (z0, z1):
        for k in range(sides):
            a = 2.0 * math.pi * k / sides
            # the quarter points are exact (cos 90 deg is 6e-17 in floating point)
            c = {0: 1.0, sides // 4: 0.0, sides // 2: -1.0, 3 * sides // 4: 0.0}.get(k)
            s = {0: 0.0, sides // 4: 1.0, sides // 2: 0.0, 3 * sides // 4: -1.0}.get(k)
            if c is None:
                c, s = math.cos(a), math.sin(a)
            verts.append((radius * c, radius * s, z))
    tris = []
    for k in range(sides):
        b0, b1 = k, (k + 1) % sides
        t0, t1 = b0 + sides, b1 + sides
        tris += [(b0, b1, t1), (b0, t1, t0)]          # side quad, outward
    for k in range(1, sides - 1):
        tris.append((0, k + 1, k))                    # bottom cap, seen from below
        tris.append((sides, sides + k, sides + k + 1))  # top cap, seen from above
    return verts, tris


def box_faces(lo, hi):
    """The 8 corners of an axis-aligned box and its 6 faces as outward quads."""
    x0, y0, z0 = lo
    x1, y1, z1 = hi
    verts = [(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0),
             (x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)]
    quads = [(0, 3, 2, 1), (4, 5, 6, 7),   # bottom (-z), top (+z)
             (0, 1, 5, 4), (2, 3, 7, 6),   # front (-y), back (+y)
             (1, 2, 6, 5), (3, 0, 4, 7)]   # +x, -x
    return verts, quads


def quads_to_triangles(quads):
    return [t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))]


def normal(v, tri):
    a, b, c = (v[i] for i in tri)
    u = [b[k] - a[k] for k in range(3)]
    w = [c[k] - a[k] for k in range(3)]
    n = [u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]]
    length = math.sqrt(sum(x * x for x in n))
    return [x / length for x in n]


def num(x):
    """A coordinate as text: up to 9 significant digits, no "-0"."""
    text = "%.9g" % x
    return "0" if text in ("0", "-0") else text


# ---------------------------------------------------------------------------------------------
# writers
# ---------------------------------------------------------------------------------------------

def write_binary_stl(path, verts, tris, header):
    head = header.encode("ascii")[:80].ljust(80, b" ")
    out = [head, struct.pack("<I", len(tris))]
    for tri in tris:
        out.append(struct.pack("<3f", *normal(verts, tri)))
        for i in tri:
            out.append(struct.pack("<3f", *verts[i]))
        out.append(struct.pack("<H", 0))
    path.write_bytes(b"".join(out))


def write_ascii_stl(path, verts, tris, name):
    lines = ["solid " + name]
    for tri in tris:
        lines.append("  facet normal %s" % " ".join(num(x) for x in normal(verts, tri)))
        lines.append("    outer loop")
        for i in tri:
            lines.append("      vertex %s" % " ".join(num(x) for x in verts[i]))
        lines.append("    endloop")
        lines.append("  endfacet")
    lines.append("endsolid " + name)
    path.write_text("\n".join(lines) + "\n")


def write_obj(path, mtl_path, verts, quads):
    lines = ["# hrpsim sample arm: forearm, a frustum written as 6 quads (12 triangles)",
             "# metres, z up; made by make_arm_meshes.py",
             "mtllib " + mtl_path.name, "o forearm"]
    lines += ["v %s" % " ".join(num(x) for x in v) for v in verts]
    lines.append("usemtl forearm_red")
    lines += ["f %s" % " ".join(str(i + 1) for i in q) for q in quads]
    path.write_text("\n".join(lines) + "\n")
    mtl_path.write_text("# hrpsim sample arm: forearm material\n"
                        "newmtl forearm_red\n"
                        "Ka 0.1 0.02 0.02\n"
                        "Kd 0.8 0.1 0.1\n"
                        "Ks 0.3 0.3 0.3\n"
                        "Ns 40\n"
                        "d 1\n"
                        "illum 2\n")


def write_dae(path, verts, tris, translate):
    positions = " ".join(num(x) for v in verts for x in v)
    indices = " ".join(str(i) for t in tris for i in t)
    text = """<?xml version="1.0" encoding="utf-8"?>
<!-- hrpsim sample arm: turret, a box 10 x 14 x 10 cm; made by make_arm_meshes.py.
     Lengths in centimetres (unit meter 0.01), z up; the node lifts the box by 2 cm. -->
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset>
    <contributor><authoring_tool>hrpsim make_arm_meshes.py</authoring_tool></contributor>
    <created>2000-01-01T00:00:00Z</created>
    <modified>2000-01-01T00:00:00Z</modified>
    <unit name="centimeter" meter="0.01"/>
    <up_axis>Z_UP</up_axis>
  </asset>
  <library_geometries>
    <geometry id="turret-mesh" name="turret">
      <mesh>
        <source id="turret-positions">
          <float_array id="turret-positions-array" count="%(npos)d">%(positions)s</float_array>
          <technique_common>
            <accessor source="#turret-positions-array" count="%(nvert)d" stride="3">
              <param name="X" type="float"/>
              <param name="Y" type="float"/>
              <param name="Z" type="float"/>
            </accessor>
          </technique_common>
        </source>
        <vertices id="turret-vertices">
          <input semantic="POSITION" source="#turret-positions"/>
        </vertices>
        <triangles count="%(ntri)d">
          <input semantic="VERTEX" source="#turret-vertices" offset="0"/>
          <p>%(indices)s</p>
        </triangles>
      </mesh>
    </geometry>
  </library_geometries>
  <library_visual_scenes>
    <visual_scene id="Scene" name="Scene">
      <node id="turret" name="turret" type="NODE">
        <translate sid="location">%(translate)s</translate>
        <instance_geometry url="#turret-mesh" name="turret"/>
      </node>
    </visual_scene>
  </library_visual_scenes>
  <scene>
    <instance_visual_scene url="#Scene"/>
  </scene>
</COLLADA>
""" % {"npos": 3 * len(verts), "positions": positions, "nvert": len(verts),
       "ntri": len(tris), "indices": indices, "translate": " ".join(num(x) for x in translate)}
    path.write_text(text)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir", nargs="?", type=Path, default=DEFAULT_OUT,
                    help="where to write the meshes (default: "
                         "hrpsim_arm_description/meshes next to this file)")
    out = ap.parse_args(argv).outdir
    out.mkdir(parents=True, exist_ok=True)

    v, t = prism(16, 0.1, 0.0, 0.08)
    write_binary_stl(out / "base.stl", v, t, "hrpsim sample arm: base, 16-sided prism, metres")
    written = [("base.stl", len(t))]

    v, q = box_faces((-5.0, -7.0, 0.0), (5.0, 7.0, 10.0))     # centimetres
    t = quads_to_triangles(q)
    write_dae(out / "turret.dae", v, t, (0.0, 0.0, 2.0))
    written.append(("turret.dae", len(t)))

    v, t = prism(8, 35.0, 0.0, 300.0)                        # millimetres
    write_ascii_stl(out / "upper_arm.stl", v, t, "upper_arm")
    written.append(("upper_arm.stl", len(t)))

    v, q = box_faces((-0.025, -0.025, 0.0), (0.025, 0.025, 0.25))
    for i in range(4, 8):                                    # narrow the top to 30 mm
        x, y, z = v[i]
        v[i] = (0.015 if x > 0 else -0.015, 0.015 if y > 0 else -0.015, z)
    write_obj(out / "forearm.obj", out / "forearm.mtl", v, q)
    written.append(("forearm.obj", 2 * len(q)))

    for name, n in written:
        print("%s: %d triangles" % (out / name, n))


if __name__ == "__main__":
    main()
