#!/usr/bin/env python3
"""Write checker.png, the texture used by room.wrl: a 64 x 64 RGB checkerboard of 8 x 8 pixel
squares (two greys), as an uncompressed-filter PNG built with zlib and struct only.

Usage: make_checker.py [output.png]   (default: checker.png next to this script)
The output is byte-for-byte deterministic.
"""
import argparse
import os
import struct
import zlib

WIDTH = HEIGHT = 64
SQUARE = 8
LIGHT = (215, 215, 205)
DARK = (70, 80, 95)


def chunk(kind, data):
    """One PNG chunk: length, type, data, CRC of type + data."""
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def png_bytes():
    rows = []
    for y in range(HEIGHT):
        row = bytearray([0])  # filter type 0 (None) for every scanline
        for x in range(WIDTH):
            row += bytes(LIGHT if (x // SQUARE + y // SQUARE) % 2 == 0 else DARK)
        rows.append(bytes(row))
    # IHDR: width, height, bit depth 8, colour type 2 (RGB), compression, filter, interlace
    ihdr = struct.pack(">IIBBBBB", WIDTH, HEIGHT, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"".join(rows), 9)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("output", nargs="?",
                    default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "checker.png"),
                    help="the PNG to write (default: checker.png next to this script)")
    out = ap.parse_args(argv).output
    data = png_bytes()
    with open(out, "wb") as f:
        f.write(data)
    print("wrote %s (%d x %d RGB, %d bytes)" % (out, WIDTH, HEIGHT, len(data)))


if __name__ == "__main__":
    main()
