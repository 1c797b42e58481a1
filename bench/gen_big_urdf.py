#!/usr/bin/env python3
"""Write a large URDF robot with binary STL meshes for loader benchmarks.

The robot ("BIG200_URDF") has the kinematics and mass properties of bench/gen_big_model.py's
BIG200: 200 links, a free-floating root BODY and 199 revolute joints in 8 chains radiating from
it in the horizontal plane (chain lengths 25, 25, 25, 25, 25, 25, 25, 24), jointIds 0..198 in
chain order. URDF joint names are BIG200's link names (C<k>_L<ii>), URDF link names are
<JOINT>_LINK (the root: BODY), so the loaded body has BIG200's link names. Every link's visual is
its own binary STL file, a tessellated ellipsoid of 5000 triangles (50 meridians x 50 bands, two
polar fans; the same vertices as BIG200's IndexedFaceSets, as float32): 200 files, 1,000,000
triangles in all, 50 MB of STL (each file 84 + 50 x 5000 bytes). No <collision> elements.
Masses and inertias are those of solid ellipsoids of density 1000 kg/m^3.

Usage:
    gen_big_urdf.py [output.urdf] [--links N] [--meridians M] [--parallels P]

The default output is bench/out/big200_urdf/big200.urdf; the meshes go to meshes/ beside it,
referenced by relative paths. Directories are created. The output is deterministic
(byte-for-byte the same on every run). It prints what it wrote. Standard library only.
"""

import argparse
import math
import os
import struct
import sys

DENSITY = 1000.0   # kg/m^3
LINK_PITCH = 0.12  # distance between consecutive joints of a chain [m]
CHAINS = 8
STL_TRIANGLE = struct.Struct("<12fH")
F32 = struct.Struct("<f")


def num(x):
    """Compact decimal text for a float."""
    s = "%.9g" % x
    return "0" if s in ("-0", "0") else s


def f32(x):
    """x rounded to float32, as an STL stores it."""
    return F32.unpack(F32.pack(x))[0]


class UnitSphere:
    """The tessellation of gen_big_model.py: poles, m meridians, p bands."""

    def __init__(self, meridians, parallels):
        m, p = meridians, parallels
        self.unit = [(0.0, 0.0, 1.0)]
        for j in range(1, p):
            theta = math.pi * j / p
            st, ct = math.sin(theta), math.cos(theta)
            for i in range(m):
                phi = 2.0 * math.pi * i / m
                self.unit.append((st * math.cos(phi), st * math.sin(phi), ct))
        self.unit.append((0.0, 0.0, -1.0))
        south = len(self.unit) - 1

        def ring(j, i):
            return 1 + (j - 1) * m + (i % m)

        tris = []
        for i in range(m):
            tris.append((0, ring(1, i), ring(1, i + 1)))
        for j in range(1, p - 1):
            for i in range(m):
                a, b = ring(j, i), ring(j, i + 1)
                c, d = ring(j + 1, i), ring(j + 1, i + 1)
                tris.append((a, c, d))
                tris.append((a, d, b))
        for i in range(m):
            tris.append((south, ring(p - 1, i + 1), ring(p - 1, i)))
        self.tris = tris

    def stl(self, a, b, c, cx, title):
        """Binary STL bytes of the ellipsoid with semi-axes a, b, c centred at (cx, 0, 0)."""
        pts = [(f32(cx + a * x), f32(b * y), f32(c * z)) for (x, y, z) in self.unit]
        out = [title.encode("ascii")[:80].ljust(80, b" "), struct.pack("<I", len(self.tris))]
        pack = STL_TRIANGLE.pack
        for i, j, k in self.tris:
            p0, p1, p2 = pts[i], pts[j], pts[k]
            ux, uy, uz = p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]
            vx, vy, vz = p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]
            nx, ny, nz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
            n = math.sqrt(nx * nx + ny * ny + nz * nz) or 1.0
            out.append(pack(nx / n, ny / n, nz / n, *p0, *p1, *p2, 0))
        return b"".join(out)


def ellipsoid_mass(a, b, c):
    m = DENSITY * 4.0 / 3.0 * math.pi * a * b * c
    return m, (m * (b * b + c * c) / 5.0, m * (a * a + c * c) / 5.0, m * (a * a + b * b) / 5.0)


def link_text(link_name, index, axes, cx, mesh_ref):
    a, b, c = axes
    m, (ixx, iyy, izz) = ellipsoid_mass(a, b, c)
    colour = (0.3 + 0.5 * ((index * 37) % 11) / 10.0, 0.4 + 0.4 * ((index * 17) % 7) / 6.0,
              0.8 - 0.5 * ((index * 23) % 5) / 4.0)
    return "\n".join([
        '  <link name="%s">' % link_name,
        "    <!-- solid ellipsoid, semi-axes %s %s %s m, %s kg/m^3 -->"
        % (num(a), num(b), num(c), num(DENSITY)),
        "    <inertial>",
        '      <origin xyz="%s 0 0" rpy="0 0 0"/>' % num(cx),
        '      <mass value="%s"/>' % num(m),
        '      <inertia ixx="%s" ixy="0" ixz="0" iyy="%s" iyz="0" izz="%s"/>'
        % (num(ixx), num(iyy), num(izz)),
        "    </inertial>",
        "    <visual>",
        '      <geometry><mesh filename="%s"/></geometry>' % mesh_ref,
        '      <material name="m%03d"><color rgba="%s 1"/></material>'
        % (index, " ".join(num(x) for x in colour)),
        "    </visual>",
        "  </link>"])


def joint_text(name, parent, child, axis, xyz, yaw):
    return "\n".join([
        '  <joint name="%s" type="revolute">' % name,
        '    <origin xyz="%s" rpy="0 0 %s"/>' % (" ".join(num(x) for x in xyz), num(yaw)),
        '    <parent link="%s"/>' % parent,
        '    <child link="%s"/>' % child,
        '    <axis xyz="%s"/>' % axis,
        '    <limit lower="-1.5" upper="1.5" velocity="5" effort="10"/>',
        "  </joint>"])


def build(out_dir, nlinks, meridians, parallels):
    """Write the meshes; return the URDF text, the link count and triangles per link."""
    sphere = UnitSphere(meridians, parallels)
    mesh_dir = os.path.join(out_dir, "meshes")
    os.makedirs(mesh_dir, exist_ok=True)

    def write_mesh(link_name, index, axes, cx):
        data = sphere.stl(*axes, cx, "BIG200_URDF %s: ellipsoid, %d triangles"
                          % (link_name, len(sphere.tris)))
        with open(os.path.join(mesh_dir, link_name + ".stl"), "wb") as f:
            f.write(data)
        return link_text(link_name, index, axes, cx, "meshes/%s.stl" % link_name)

    parts = [write_mesh("BODY", 0, (0.2, 0.2, 0.08), 0.0)]
    nchild = nlinks - 1
    base, extra = divmod(nchild, CHAINS)
    lengths = [base + (1 if k < extra else 0) for k in range(CHAINS)]
    index = 1
    for k, length in enumerate(lengths):
        parent = "BODY"
        for i in range(length):
            name = "C%d_L%02d" % (k, i)
            a = 0.050 + 0.010 * ((index * 7) % 5) / 4.0
            b = 0.028 + 0.008 * ((index * 3) % 4) / 3.0
            c = 0.022 + 0.006 * ((index * 5) % 3) / 2.0
            axis = "0 1 0" if i % 2 == 0 else "0 0 1"
            if i == 0:
                ang = 2.0 * math.pi * k / CHAINS
                xyz, yaw = (0.25 * math.cos(ang), 0.25 * math.sin(ang), 0.0), ang
            else:
                xyz, yaw = (LINK_PITCH, 0.0, 0.0), 0.0
            parts.append(joint_text(name, parent, name + "_LINK", axis, xyz, yaw))
            parts.append(write_mesh(name + "_LINK", index, (a, b, c), LINK_PITCH / 2.0))
            parent = name + "_LINK"
            index += 1
    text = ('<?xml version="1.0"?>\n'
            "<!-- BIG200_URDF: a generated benchmark robot (bench/gen_big_urdf.py). %d links, "
            "%d triangles per link in meshes/*.stl. Do not edit: regenerate. -->\n"
            '<robot name="BIG200_URDF">\n%s\n</robot>\n'
            % (index, len(sphere.tris), "\n".join(parts)))
    return text, index, len(sphere.tris)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("output", nargs="?",
                    default=os.path.join(here, "out", "big200_urdf", "big200.urdf"))
    ap.add_argument("--links", type=int, default=200, help="number of links (default 200)")
    ap.add_argument("--meridians", type=int, default=50, help="mesh meridians (default 50)")
    ap.add_argument("--parallels", type=int, default=51,
                    help="mesh parallel bands (default 51); triangles per link = "
                         "2 * meridians * (parallels - 1)")
    args = ap.parse_args()
    if args.links < 1 or args.meridians < 3 or args.parallels < 2:
        ap.error("need links >= 1, meridians >= 3, parallels >= 2")

    out_dir = os.path.dirname(os.path.abspath(args.output))
    os.makedirs(out_dir, exist_ok=True)
    text, nlinks, per_link = build(out_dir, args.links, args.meridians, args.parallels)
    with open(args.output, "w", newline="\n") as f:
        f.write(text)
    mesh_bytes = nlinks * (84 + 50 * per_link)
    print("wrote %s: %d links, %d joints, %d triangles (%d per link) in %d STL files, "
          "%d bytes of URDF + %d bytes of STL"
          % (args.output, nlinks, nlinks - 1, nlinks * per_link, per_link, nlinks,
             os.path.getsize(args.output), mesh_bytes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
