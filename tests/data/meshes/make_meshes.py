#!/usr/bin/env python3
"""Write the binary mesh fixtures of tests/data/meshes (standard library only, deterministic).

Run without arguments from anywhere to (re)write, beside this script:
  cube_binary.stl        the unit cube [0,1]^3 as 12 outward triangles with facet normals
  textures/checker.png   a 2 x 2 RGB checker board, the texture textured.mtl refers to

With --big N PATH it writes instead an N-triangle binary STL to PATH (a wavy grid surface whose
vertices are shared by up to six triangles), for timing the mesh reader; that file is not kept.
"""

import math
import os
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def facet_normal(a, b, c):
    n = cross(sub(b, a), sub(c, a))
    length = math.sqrt(n[0] ** 2 + n[1] ** 2 + n[2] ** 2)
    return (n[0] / length, n[1] / length, n[2] / length) if length > 0 else (0.0, 0.0, 0.0)


def write_binary_stl(path, header, triangles, count):
    """triangles yields (a, b, c) corner triples, counter-clockwise seen from outside."""
    with open(path, "wb") as f:
        f.write(header.encode("ascii").ljust(80, b" ")[:80])
        f.write(struct.pack("<I", count))
        for a, b, c in triangles:
            f.write(struct.pack("<12fH", *facet_normal(a, b, c), *a, *b, *c, 0))


def cube_triangles():
    # corner i is (i & 1, (i >> 1) & 1, (i >> 2) & 1); quads counter-clockwise from outside
    corner = [(float(i & 1), float((i >> 1) & 1), float((i >> 2) & 1)) for i in range(8)]
    quads = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
    for a, b, c, d in quads:
        yield corner[a], corner[b], corner[c]
        yield corner[a], corner[c], corner[d]


def grid_triangles(count):
    # a k x k grid of cells on z = 0.1 sin(x) cos(y), two triangles per cell, facing +z
    k = max(1, math.ceil(math.sqrt(count / 2)))

    def point(i, j):
        x, y = i / k, j / k
        return (x, y, 0.1 * math.sin(8 * x) * math.cos(8 * y))

    written = 0
    for j in range(k):
        for i in range(k):
            p00, p10, p01, p11 = point(i, j), point(i + 1, j), point(i, j + 1), point(i + 1, j + 1)
            for tri in ((p00, p10, p11), (p00, p11, p01)):
                if written == count:
                    return
                written += 1
                yield tri


def png_chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def write_checker_png(path):
    rows = [bytes([0, 255, 255, 255, 0, 0, 0]), bytes([0, 0, 0, 0, 255, 255, 255])]
    ihdr = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)  # 2 x 2, 8 bits, RGB
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(png_chunk(b"IHDR", ihdr))
        f.write(png_chunk(b"IDAT", zlib.compress(b"".join(rows), 9)))
        f.write(png_chunk(b"IEND", b""))


def main(argv):
    if len(argv) == 4 and argv[1] == "--big":
        count = int(argv[2])
        write_binary_stl(argv[3], "hrpsim timing grid", grid_triangles(count), count)
        return 0
    if len(argv) != 1:
        print("usage: make_meshes.py [--big N PATH]", file=sys.stderr)
        return 2
    write_binary_stl(os.path.join(HERE, "cube_binary.stl"), "hrpsim unit cube, binary",
                     cube_triangles(), 12)
    os.makedirs(os.path.join(HERE, "textures"), exist_ok=True)
    write_checker_png(os.path.join(HERE, "textures", "checker.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
