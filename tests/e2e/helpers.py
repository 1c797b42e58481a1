"""Helpers shared by the ModelLoader end-to-end tests (test_modelloader.py, test_urdf.py).

BodyInfo snapshots and the geometry of what the ModelLoader serves: axis-angle and DblArray12
matrices, shape vertices, links by name. Tolerances stay with the tests that use them.
"""

import math
from types import SimpleNamespace

import numpy as np

BODY_ATTRS = ("name", "url", "info", "links", "linkShapeIndices", "extraJoints", "shapes",
              "appearances", "materials", "textures")


def snapshot(body):
    """Every attribute of a BodyInfo, read once, as a SimpleNamespace."""
    return SimpleNamespace(**{a: getattr(body, "_get_" + a)() for a in BODY_ATTRS})


def floats(seq):
    """The items of a sequence as Python floats."""
    return [float(x) for x in seq]


def axis_angle_matrix(aa):
    """Rotation matrix of an axis-angle (x, y, z, angle); the axis is normalised first."""
    axis = np.array(aa[:3], dtype=float)
    angle = float(aa[3])
    n = np.linalg.norm(axis)
    if n == 0.0 or angle == 0.0:
        return np.eye(3)
    x, y, z = axis / n
    c, s, t = math.cos(angle), math.sin(angle), 1.0 - math.cos(angle)
    return np.array([[t * x * x + c, t * x * y - s * z, t * x * z + s * y],
                     [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
                     [t * x * z - s * y, t * y * z + s * x, t * z * z + c]])


def matrix12(m12):
    """A 4x4 homogeneous matrix from a DblArray12 (3x4 row-major [R t])."""
    m = np.eye(4)
    m[:3, :] = np.array(m12, dtype=float).reshape(3, 4)
    return m


def vertices(shape):
    """The vertices of a ShapeInfo as an (n, 3) array."""
    return np.array(shape.vertices, dtype=float).reshape(-1, 3)


def link_by_name(body, name):
    """The one LinkInfo of body called name (asserts there is exactly one)."""
    found = [lk for lk in body.links if lk.name == name]
    assert len(found) == 1, "link %s: %d matches in %s" % (name, len(found),
                                                          [lk.name for lk in body.links])
    return found[0]


def diag(a, b, c):
    """A 3x3 diagonal matrix as 9 row-major numbers."""
    return [a, 0, 0, 0, b, 0, 0, 0, c]
