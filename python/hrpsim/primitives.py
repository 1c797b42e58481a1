"""Primitive bodies (box, sphere, cylinder, plane) without a model file.

A primitive is named by a parametric URL, ``hrpsim-primitive:<kind>?key=value&...``, that the
ModelLoader, the in-process core and the stills renderer all build in C (model/model_primitive.c)
with the model builder: no file is written, so the same URL means the same body on every host
and behind ``--model-root``. The body is one link named ``root``: a free root with the
closed-form inertia of a uniform solid when a mass is given, else fixed (an environment).
Cylinders stand along z; a plane is the top face (z = 0 in its frame) of a 1 m slab.

``url(kind, ...)`` makes the URL (checking the parameters); ``PrimitivesMixin`` gives
``hrpsim.Simulation`` its ``add_box``/``add_sphere``/``add_cylinder``/``add_plane``;
``project_model`` reads a project's ``<box .../>`` (etc.) element into a model.
"""

import math

from .errors import BadArgument

PREFIX = "hrpsim-primitive:"
KINDS = ("box", "sphere", "cylinder", "plane")


def _fmt(x):
    return repr(float(x))


def _positive(name, v):
    v = float(v)
    if not (math.isfinite(v) and v > 0):
        raise BadArgument("%s must be a positive number, got %r" % (name, v))
    return v


def url(kind, size=None, radius=None, height=None, mass=None, color=None):
    """The primitive URL of a ``kind`` ("box", "sphere", "cylinder", "plane"); raises
    hrpsim.errors.BadArgument (a ValueError) on a missing or non-positive size, radius, height
    or mass."""
    if kind not in KINDS:
        raise BadArgument("unknown primitive %r (one of %s)" % (kind, ", ".join(KINDS)))
    params = []
    if kind in ("box", "plane"):
        n = 3 if kind == "box" else 2
        if size is None and kind == "plane":
            size = (100.0, 100.0)
        if size is None or len(size) != n:
            raise BadArgument("a %s needs size=(%s)" % (kind, ", ".join("xyz"[:n])))
        params.append("size=" + ",".join(_fmt(_positive("size", s)) for s in size))
    else:
        if radius is None:
            raise BadArgument("a %s needs a radius" % kind)
        params.append("radius=" + _fmt(_positive("radius", radius)))
        if kind == "cylinder":
            if height is None:
                raise BadArgument("a cylinder needs a height")
            params.append("height=" + _fmt(_positive("height", height)))
    if mass is not None:
        if kind == "plane":
            raise BadArgument("a plane is fixed: it takes no mass")
        params.append("mass=" + _fmt(_positive("mass", mass)))
    if color is not None:
        c = [float(x) for x in color]
        if len(c) != 3 or not all(0 <= x <= 1 for x in c):
            raise BadArgument("color must be three numbers in 0..1, got %r" % (color,))
        params.append("color=" + ",".join(_fmt(x) for x in c))
    return PREFIX + kind + "?" + "&".join(params)


def inertia(kind, mass, size=None, radius=None, height=None):
    """The closed-form inertia (3x3 nested lists, about the centre, kg m^2) of a uniform solid:
    box m(b^2+c^2)/12 ..., sphere 2/5 m r^2, cylinder along z m(3r^2+h^2)/12 and m r^2/2."""
    m = float(mass)
    if kind == "box":
        a, b, c = (float(s) for s in size)
        d = [m * (b * b + c * c) / 12, m * (a * a + c * c) / 12, m * (a * a + b * b) / 12]
    elif kind == "sphere":
        d = [0.4 * m * radius * radius] * 3
    elif kind == "cylinder":
        t = m * (3 * radius * radius + height * height) / 12
        d = [t, t, m * radius * radius / 2]
    else:
        d = [0.0, 0.0, 0.0]
    return [[d[i] if i == j else 0.0 for j in range(3)] for i in range(3)]


def _pose(pose):
    """(p, R or None) from a position or a (position, 3x3 rotation) pair."""
    if pose is None:
        return (0.0, 0.0, 0.0), None
    if len(pose) == 2 and hasattr(pose[0], "__len__"):
        return pose[0], pose[1]
    return pose, None


class PrimitivesMixin:
    """``add_box`` and friends for ``hrpsim.Simulation`` (any back end): each adds an ordinary
    character loaded from a primitive URL and places its root at ``pose`` (a position, or a
    (position, 3x3 rotation) pair). ``friction``, when given, registers a collision pair with
    every character already added (``add_collision_pair``'s friction); otherwise pairs are the
    caller's, as for any model."""

    def _add_primitive(self, name, kind, pose, friction, **params):
        body = self.add_model(name, url(kind, **params))
        p, R = _pose(pose)
        self.set_root_pose(name, p, R)
        if friction is not None:
            for other in self.models:
                if other != name:
                    self.add_collision_pair(name, other, friction=float(friction))
        return body

    def add_box(self, name, size, pose=None, mass=None, color=None, friction=None):
        """A box of ``size`` (x, y, z) [m] centred at ``pose``; fixed when mass is None."""
        return self._add_primitive(name, "box", pose, friction, size=size, mass=mass,
                                   color=color)

    def add_sphere(self, name, radius, pose=None, mass=None, color=None, friction=None):
        """A sphere of ``radius`` [m] centred at ``pose``; fixed when mass is None."""
        return self._add_primitive(name, "sphere", pose, friction, radius=radius, mass=mass,
                                   color=color)

    def add_cylinder(self, name, radius, height, pose=None, mass=None, color=None,
                     friction=None):
        """A cylinder along its z axis centred at ``pose``; fixed when mass is None."""
        return self._add_primitive(name, "cylinder", pose, friction, radius=radius,
                                   height=height, mass=mass, color=color)

    def add_plane(self, name, pose=None, size=(100.0, 100.0), color=None, friction=None):
        """A fixed ground whose top face (z = 0 in its frame, +z up) is at ``pose``."""
        return self._add_primitive(name, "plane", pose, friction, size=size, color=color)


# project elements: <box name= size= mass= color= translation= rotation=/>, and the like
PROJECT_ATTRS = {
    "box": {"name", "size", "mass", "color", "translation", "rotation"},
    "sphere": {"name", "radius", "mass", "color", "translation", "rotation"},
    "cylinder": {"name", "radius", "height", "mass", "color", "translation", "rotation"},
    "plane": {"name", "size", "color", "translation", "rotation"},
}


def project_model(el, a, ctx, model_spec):
    """A ``model_spec`` (project.ModelSpec) for a project's primitive element ``el`` with
    attributes ``a``; bad values raise the context's error at the element's line."""
    kind, line = el.tag, el.line

    def fld(k):
        return "<%s> %s" % (kind, k)

    params = {}
    if "size" in a:
        params["size"] = ctx.vector(a["size"], 3 if kind == "box" else 2, line, fld("size"))
    for k in ("radius", "height", "mass"):
        if k in a:
            params[k] = ctx.number(a[k], line, fld(k), positive=True)
    if "color" in a:
        params["color"] = ctx.vector(a["color"], 3, line, fld("color"))
    try:
        u = url(kind, **params)
    except ValueError as exc:
        raise ctx.err(line, "<%s>" % kind, str(exc)) from None
    m = model_spec(a["name"].strip(), u, line=line)
    if "translation" in a:
        m.root_translation = ctx.vector(a["translation"], 3, line, fld("translation"))
        m.lines["root_translation"] = line
    if "rotation" in a:
        m.root_rotation = ctx.vector(a["rotation"], 4, line, fld("rotation"))
        m.lines["root_rotation"] = line
    return m
