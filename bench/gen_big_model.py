#!/usr/bin/env python3
"""Write a large OpenHRP-format VRML97 robot model for loader benchmarks.

The model ("BIG200") is a tree of exactly 200 links: a free-floating root BODY and 199 rotary
links in 8 chains radiating from it in the horizontal plane (chain lengths 25, 25, 25, 25, 25,
25, 25, 24), jointIds 0..198. Every link carries one Segment whose shape is its own
IndexedFaceSet: a tessellated ellipsoid of 5000 triangles (50 meridians x 50 parallels, two
polar fans), so the file holds 200 x 5000 = 1,000,000 triangles. Each link's ellipsoid has
slightly different semi-axes, so no two meshes are the same and nothing can be shared.
Masses and inertias are those of solid ellipsoids of density 1000 kg/m^3.

Usage:
    gen_big_model.py [output.wrl] [--links N] [--meridians M] [--parallels P]

The default output is bench/out/big200.wrl (next to this script); directories are created.
The output is deterministic (byte-for-byte the same on every run). It prints the number of
links and triangles written. Standard library only.
"""

import argparse
import math
import os
import sys

DENSITY = 1000.0  # kg/m^3
LINK_PITCH = 0.12  # distance between consecutive joints of a chain [m]
CHAINS = 8

PROTOS = """PROTO Joint [
  exposedField SFVec3f    center            0 0 0
  exposedField MFNode     children          [ ]
  exposedField SFVec3f    jointAxis         0 0 1
  exposedField SFInt32    jointId           -1
  exposedField SFString   jointType         ""
  exposedField SFRotation rotation          0 0 1 0
  exposedField SFVec3f    scale             1 1 1
  exposedField SFRotation scaleOrientation  0 0 1 0
  exposedField SFVec3f    translation       0 0 0
  exposedField MFFloat    llimit            [ ]
  exposedField MFFloat    ulimit            [ ]
  exposedField MFFloat    lvlimit           [ ]
  exposedField MFFloat    uvlimit           [ ]
  exposedField MFFloat    climit            [ ]
  exposedField SFFloat    gearRatio         1
  exposedField SFFloat    rotorInertia      0
  exposedField SFFloat    rotorResistor     0
  exposedField SFFloat    torqueConst       1
  exposedField SFFloat    encoderPulse      1
  exposedField SFFloat    jointValue        0
]
{
  Transform {
    center           IS center
    children         IS children
    rotation         IS rotation
    scale            IS scale
    scaleOrientation IS scaleOrientation
    translation      IS translation
  }
}

PROTO Segment [
  field        SFVec3f  bboxCenter        0 0 0
  field        SFVec3f  bboxSize          -1 -1 -1
  exposedField SFVec3f  centerOfMass      0 0 0
  exposedField MFNode   children          [ ]
  exposedField SFNode   coord             NULL
  exposedField MFNode   displacers        [ ]
  exposedField SFFloat  mass              0
  exposedField MFFloat  momentsOfInertia  [ 0 0 0 0 0 0 0 0 0 ]
]
{
  Group {
    bboxCenter IS bboxCenter
    bboxSize   IS bboxSize
    children   IS children
  }
}

PROTO Humanoid [
  field        SFVec3f    bboxCenter        0 0 0
  field        SFVec3f    bboxSize          -1 -1 -1
  exposedField SFVec3f    center            0 0 0
  exposedField MFNode     humanoidBody      [ ]
  exposedField MFString   info              [ ]
  exposedField MFNode     joints            [ ]
  exposedField SFString   name              ""
  exposedField SFRotation rotation          0 0 1 0
  exposedField SFVec3f    scale             1 1 1
  exposedField SFRotation scaleOrientation  0 0 1 0
  exposedField MFNode     segments          [ ]
  exposedField MFNode     sites             [ ]
  exposedField SFVec3f    translation       0 0 0
  exposedField SFString   version           "1.1"
  exposedField MFNode     viewpoints        [ ]
]
{
  Transform {
    bboxCenter       IS bboxCenter
    bboxSize         IS bboxSize
    center           IS center
    rotation         IS rotation
    scale            IS scale
    scaleOrientation IS scaleOrientation
    translation      IS translation
    children [
      Group { children IS viewpoints }
      Group { children IS humanoidBody }
    ]
  }
}
"""


def num(x):
    """Compact decimal text for a float."""
    s = "%.6g" % x
    if "e" in s:
        s = "%.9f" % x
        s = s.rstrip("0").rstrip(".")
    return "0" if s in ("-0", "0") else s


class Mesh:
    """A unit-sphere tessellation shared by every link (only its scale and offset differ)."""

    def __init__(self, meridians, parallels):
        m, p = meridians, parallels
        self.unit = [(0.0, 0.0, 1.0)]  # north pole
        for j in range(1, p):
            theta = math.pi * j / p
            st, ct = math.sin(theta), math.cos(theta)
            for i in range(m):
                phi = 2.0 * math.pi * i / m
                self.unit.append((st * math.cos(phi), st * math.sin(phi), ct))
        self.unit.append((0.0, 0.0, -1.0))  # south pole
        south = len(self.unit) - 1
        ring = lambda j, i: 1 + (j - 1) * m + (i % m)
        tris = []
        for i in range(m):  # north fan
            tris.append((0, ring(1, i), ring(1, i + 1)))
        for j in range(1, p - 1):  # bands between parallels j and j + 1
            for i in range(m):
                a, b = ring(j, i), ring(j, i + 1)
                c, d = ring(j + 1, i), ring(j + 1, i + 1)
                tris.append((a, c, d))
                tris.append((a, d, b))
        for i in range(m):  # south fan
            tris.append((south, ring(p - 1, i + 1), ring(p - 1, i)))
        self.ntri = len(tris)
        self.nvert = len(self.unit)
        # the index text is the same for every link: build it once
        lines = []
        for k in range(0, len(tris), 8):
            lines.append(" ".join("%d %d %d -1" % t for t in tris[k:k + 8]))
        self.index_text = "\n".join(lines)

    def points_text(self, a, b, c, cx):
        out = []
        row = []
        for (x, y, z) in self.unit:
            row.append("%.5f %.5f %.5f" % (cx + a * x, b * y, c * z))
            if len(row) == 6:
                out.append(", ".join(row))
                row = []
        if row:
            out.append(", ".join(row))
        return ",\n".join(out)


def ellipsoid_mass(a, b, c):
    m = DENSITY * 4.0 / 3.0 * math.pi * a * b * c
    return m, (m * (b * b + c * c) / 5.0, m * (a * a + c * c) / 5.0, m * (a * a + b * b) / 5.0)


def link_block(name, joint_type, joint_id, axis, translation, rotation, axes, cx, mesh, index,
               inner):
    """Text of one Joint with its Segment, its mesh and (already written) children."""
    a, b, c = axes
    m, (ixx, iyy, izz) = ellipsoid_mass(a, b, c)
    colour = (0.3 + 0.5 * ((index * 37) % 11) / 10.0, 0.4 + 0.4 * ((index * 17) % 7) / 6.0,
              0.8 - 0.5 * ((index * 23) % 5) / 4.0)
    head = ["DEF %s Joint {" % name, '  jointType "%s"' % joint_type]
    if joint_id >= 0:
        head.append("  jointId %d" % joint_id)
        head.append("  jointAxis %s" % axis)
        head.append("  ulimit [ 1.5 ]")
        head.append("  llimit [ -1.5 ]")
    head.append("  translation %s" % " ".join(num(x) for x in translation))
    if rotation is not None:
        head.append("  rotation %s" % rotation)
    head.append("  children [")
    head.append("    # solid ellipsoid, semi-axes %s %s %s m, %s kg/m^3: I = m(b^2+c^2)/5 ..."
                % (num(a), num(b), num(c), num(DENSITY)))
    head.append("    DEF %s_LINK Segment {" % name)
    head.append("      mass %s" % num(m))
    head.append("      centerOfMass %s 0 0" % num(cx))
    head.append("      momentsOfInertia [ %s 0 0  0 %s 0  0 0 %s ]"
                % (num(ixx), num(iyy), num(izz)))
    head.append("      children [")
    head.append("        Shape {")
    head.append("          appearance Appearance { material Material { diffuseColor %s } }"
                % " ".join(num(x) for x in colour))
    head.append("          geometry IndexedFaceSet {")
    head.append("            solid TRUE")
    head.append("            creaseAngle 1.2")
    head.append("            coord Coordinate {")
    head.append("              point [")
    parts = ["\n".join(head), mesh.points_text(a, b, c, cx),
             "              ]\n            }\n            coordIndex [",
             mesh.index_text,
             "            ]\n          }\n        }\n      ]\n    }"]
    if inner:
        parts.append(inner)
    parts.append("  ]\n}")
    return "\n".join(parts)


def build(nlinks, meridians, parallels):
    mesh = Mesh(meridians, parallels)
    nchild = nlinks - 1
    base, extra = divmod(nchild, CHAINS)
    lengths = [base + (1 if k < extra else 0) for k in range(CHAINS)]
    names = ["BODY"]
    segs = ["BODY_LINK"]
    chains_text = []
    joint_id = 0
    link_index = 1
    for k, length in enumerate(lengths):
        if length == 0:
            continue
        ids = list(range(joint_id, joint_id + length))
        joint_id += length
        chain_names = ["C%d_L%02d" % (k, i) for i in range(length)]
        indices = list(range(link_index, link_index + length))
        link_index += length
        # write the chain from its tip back to its base, nesting each link in its parent
        inner = ""
        for i in range(length - 1, -1, -1):
            idx = indices[i]
            a = 0.050 + 0.010 * ((idx * 7) % 5) / 4.0
            b = 0.028 + 0.008 * ((idx * 3) % 4) / 3.0
            c = 0.022 + 0.006 * ((idx * 5) % 3) / 2.0
            axis = "0 1 0" if i % 2 == 0 else "0 0 1"
            if i == 0:
                ang = 2.0 * math.pi * k / CHAINS
                trans = (0.25 * math.cos(ang), 0.25 * math.sin(ang), 0.0)
                rot = "0 0 1 %s" % num(ang)
            else:
                trans, rot = (LINK_PITCH, 0.0, 0.0), None
            inner = link_block(chain_names[i], "rotate", ids[i], axis, trans, rot, (a, b, c),
                               LINK_PITCH / 2.0, mesh, idx, inner)
        chains_text.append(inner)
        names += chain_names
        segs += [n + "_LINK" for n in chain_names]
    root = link_block("BODY", "free", -1, None, (0.0, 0.0, 0.5), None, (0.2, 0.2, 0.08), 0.0,
                      mesh, 0, "\n".join(chains_text))
    return mesh, names, segs, root


def indent(text, n):
    pad = " " * n
    return "\n".join(pad + line if line else line for line in text.split("\n"))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("output", nargs="?", default=os.path.join(here, "out", "big200.wrl"))
    ap.add_argument("--links", type=int, default=200, help="number of links (default 200)")
    ap.add_argument("--meridians", type=int, default=50, help="mesh meridians (default 50)")
    ap.add_argument("--parallels", type=int, default=51,
                    help="mesh parallel bands (default 51); triangles per link = "
                         "2 * meridians * (parallels - 1)")
    args = ap.parse_args()
    if args.links < 1 or args.meridians < 3 or args.parallels < 2:
        ap.error("need links >= 1, meridians >= 3, parallels >= 2")

    mesh, names, segs, root = build(args.links, args.meridians, args.parallels)
    total = mesh.ntri * len(names)
    header = ("#VRML V2.0 utf8\n"
              "#\n"
              "# BIG200: a generated OpenHRP-format benchmark model (bench/gen_big_model.py).\n"
              "# %d links (a free root and %d rotary joints in %d chains), %d triangles per link,\n"
              "# %d triangles in all. Do not edit: regenerate.\n"
              % (len(names), len(names) - 1, CHAINS, mesh.ntri, total))
    body = ("DEF BIG200 Humanoid {\n"
            '  name "big200"\n'
            '  info [ "generated by bench/gen_big_model.py" ]\n'
            "  humanoidBody [\n%s\n  ]\n"
            "  joints [\n%s\n  ]\n"
            "  segments [\n%s\n  ]\n"
            "}\n") % (indent(root, 4), "\n".join("    USE " + n for n in names),
                      "\n".join("    USE " + s for s in segs))
    out_dir = os.path.dirname(os.path.abspath(args.output))
    os.makedirs(out_dir, exist_ok=True)
    with open(args.output, "w", newline="\n") as f:
        f.write(header)
        f.write("\n")
        f.write(PROTOS)
        f.write("\n")
        f.write(body)
    size = os.path.getsize(args.output)
    print("wrote %s: %d links, %d joints, %d triangles (%d per link), %d bytes"
          % (args.output, len(names), len(names) - 1, total, mesh.ntri, size))
    return 0


if __name__ == "__main__":
    sys.exit(main())
