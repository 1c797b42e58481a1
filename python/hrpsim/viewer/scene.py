"""What the viewer draws: BodyInfo turned into plain data, and the kinematics to pose it.

``body_description(body_info)`` reads a BodyInfo (a remote reference or local objects) once and
returns a JSON-ready dict: the link tree (parent, joint type and axis, fixed offset, mass [kg]),
each link's shapes (3x4 transforms into the link frame), sensors and lights, and the shared
tables of shapes (kind, primitive parameters, vertices and triangles), appearances (normals,
colours, texture coordinates, all per triangle corner as the loader gives them), materials and
textures (pixels when the loader read them). Number arrays are base64 of little-endian
float32 / int32 so a big mesh stays compact in JSON; ``decode_array`` reads them back.

``Kinematics`` is the forward kinematics of one description, the same as model/'s
``hsm_forwardKinematics``: a link's frame is its parent's moved by the fixed offset
(translation, rotation) and then by the joint, a rotation of q about the axis (rotate) or a
translation of q along it (slide), the axis in the link frame. The viewer sends a body's pose
as the root pose plus one q per link; ``Kinematics.posture`` recovers those from the link
poses of a WorldState and ``Kinematics.forward`` goes back (vectorised over frames).
"""

import base64
import math

import numpy as np

# primitive kinds as the page names them (OpenHRP ShapePrimitiveType order)
PRIMITIVES = ("mesh", "box", "cylinder", "cone", "sphere", "plane")
LIGHT_TYPES = ("point", "directional", "spot")


def encode_array(values, dtype):
    """base64 of ``values`` as a little-endian ``dtype`` array ("<f4" or "<i4")."""
    return base64.b64encode(np.asarray(values, dtype=dtype).tobytes()).decode("ascii")


def decode_array(text, dtype):
    """The array that ``encode_array`` encoded (a 1-D NumPy array)."""
    return np.frombuffer(base64.b64decode(text), dtype=dtype)


def _get(obj, attr):
    getter = getattr(obj, "_get_" + attr, None)
    return getter() if getter is not None else getattr(obj, attr)


def _enum_index(value, names):
    """Index of an omniORBpy enum item (its ``_v``), or of a plain int / name."""
    if hasattr(value, "_v"):
        return int(value._v)
    if isinstance(value, str):
        return names.index(value)
    return int(value)


def _floats(seq):
    return [float(x) for x in seq]


def axis_angle_to_matrix(aa):
    """3x3 rotation matrix of an axis-angle (x, y, z, angle [rad]); a zero axis is identity."""
    axis = np.asarray(aa[:3], dtype=float)
    n = float(np.linalg.norm(axis))
    angle = float(aa[3])
    if n == 0.0 or angle == 0.0:
        return np.eye(3)
    x, y, z = axis / n
    c, s = math.cos(angle), math.sin(angle)
    t = 1.0 - c
    return np.array([[t * x * x + c, t * x * y - s * z, t * x * z + s * y],
                     [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
                     [t * x * z - s * y, t * y * z + s * x, t * z * z + c]])


def matrix_to_quaternion(R):
    """Unit quaternions (x, y, z, w) of rotation matrices ``R`` (..., 3, 3) (Shepperd's method,
    stable for every rotation). Returns an array (..., 4)."""
    R = np.asarray(R, dtype=float)
    shape = R.shape[:-2]
    m = R.reshape(-1, 3, 3)
    q = np.empty((m.shape[0], 4))
    tr = m[:, 0, 0] + m[:, 1, 1] + m[:, 2, 2]
    diag = np.stack([m[:, 0, 0], m[:, 1, 1], m[:, 2, 2], tr], axis=1)
    k = np.argmax(diag, axis=1)
    for case in range(4):
        sel = k == case
        if not np.any(sel):
            continue
        a = m[sel]
        if case == 3:
            s = np.sqrt(1.0 + a[:, 0, 0] + a[:, 1, 1] + a[:, 2, 2]) * 2.0
            q[sel] = np.stack([(a[:, 2, 1] - a[:, 1, 2]) / s, (a[:, 0, 2] - a[:, 2, 0]) / s,
                               (a[:, 1, 0] - a[:, 0, 1]) / s, 0.25 * s], axis=1)
        else:
            i, j, l = case, (case + 1) % 3, (case + 2) % 3
            s = np.sqrt(1.0 + a[:, i, i] - a[:, j, j] - a[:, l, l]) * 2.0
            v = np.empty((a.shape[0], 4))
            v[:, i] = 0.25 * s
            v[:, j] = (a[:, j, i] + a[:, i, j]) / s
            v[:, l] = (a[:, l, i] + a[:, i, l]) / s
            v[:, 3] = (a[:, l, j] - a[:, j, l]) / s
            q[sel] = v
    q[q[:, 3] < 0] *= -1.0  # one sign, so frames interpolate the short way
    return q.reshape(shape + (4,))


def quaternion_to_matrix(q):
    """Rotation matrices (..., 3, 3) of unit quaternions (..., 4) given as (x, y, z, w)."""
    q = np.asarray(q, dtype=float)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
    ], -2)


# ---------------------------------------------------------------------------------------------
# BodyInfo -> description
# ---------------------------------------------------------------------------------------------

def _shape_refs(indices):
    return [{"shape": int(t.shapeIndex), "matrix": _floats(t.transformMatrix)} for t in indices]


def _light(li):
    return {"name": li.name, "type": LIGHT_TYPES[_enum_index(li.type, LIGHT_TYPES)],
            "matrix": _floats(li.transformMatrix), "ambientIntensity": float(li.ambientIntensity),
            "attenuation": _floats(li.attenuation), "color": _floats(li.color),
            "intensity": float(li.intensity), "location": _floats(li.location),
            "on": bool(li.on), "radius": float(li.radius), "direction": _floats(li.direction),
            "beamWidth": float(li.beamWidth), "cutOffAngle": float(li.cutOffAngle)}


def body_description(body_info, url=None):
    """A JSON-ready description of a BodyInfo (see the module text); ``url`` overrides the
    body's own url attribute in the result."""
    links = list(_get(body_info, "links"))
    out_links = []
    for lk in links:
        out_links.append({
            "name": lk.name,
            "parent": int(lk.parentIndex),
            "jointType": lk.jointType,
            "jointId": int(lk.jointId),
            "jointValue": float(lk.jointValue),
            "mass": float(lk.mass),
            "axis": _floats(lk.jointAxis),
            "translation": _floats(lk.translation),
            "rotation": _floats(lk.rotation),
            "shapes": _shape_refs(lk.shapeIndices),
            "sensors": [{"type": s.type, "name": s.name, "id": int(s.id),
                         "translation": _floats(s.translation), "rotation": _floats(s.rotation),
                         "specValues": _floats(s.specValues), "shapes": _shape_refs(s.shapeIndices)}
                        for s in lk.sensors],
            "lights": [_light(li) for li in lk.lights],
        })
    shapes = []
    for s in _get(body_info, "shapes"):
        shapes.append({
            "kind": PRIMITIVES[_enum_index(s.primitiveType, PRIMITIVES)],
            "params": _floats(s.primitiveParameters),
            "vertices": encode_array(s.vertices, "<f4"),
            "triangles": encode_array(s.triangles, "<i4"),
            "appearance": int(s.appearanceIndex),
        })
    appearances = []
    for a in _get(body_info, "appearances"):
        appearances.append({
            "material": int(a.materialIndex),
            "normals": encode_array(a.normals, "<f4"),
            "normalIndices": encode_array(a.normalIndices, "<i4"),
            "normalPerVertex": bool(a.normalPerVertex),
            "solid": bool(a.solid),
            "creaseAngle": float(a.creaseAngle),
            "colors": encode_array(a.colors, "<f4"),
            "colorIndices": encode_array(a.colorIndices, "<i4"),
            "colorPerVertex": bool(a.colorPerVertex),
            "texture": int(a.textureIndex),
            "texCoords": encode_array(a.textureCoordinate, "<f4"),
            "texCoordIndices": encode_array(a.textureCoordIndices, "<i4"),
            "texTransform": _floats(a.textransformMatrix),
        })
    materials = [{"ambientIntensity": float(m.ambientIntensity),
                  "diffuseColor": _floats(m.diffuseColor),
                  "emissiveColor": _floats(m.emissiveColor), "shininess": float(m.shininess),
                  "specularColor": _floats(m.specularColor),
                  "transparency": float(m.transparency)} for m in _get(body_info, "materials")]
    textures = []
    for t in _get(body_info, "textures"):
        image = bytes(t.image) if not isinstance(t.image, bytes) else t.image
        textures.append({"width": int(t.width), "height": int(t.height),
                         "components": int(t.numComponents), "repeatS": bool(t.repeatS),
                         "repeatT": bool(t.repeatT), "url": t.url,
                         "image": base64.b64encode(image).decode("ascii")})
    return {
        "bodyName": _get(body_info, "name"),
        "url": url if url is not None else _get(body_info, "url"),
        "links": out_links,
        "shapes": shapes,
        "appearances": appearances,
        "materials": materials,
        "textures": textures,
    }


def joint_names(description):
    """Link names in jointId order (the order of SensorState.q and of getPosture): entry i
    names the link with jointId i, "" for an id no link has (a jointId gap)."""
    by_id = {lk["jointId"]: lk["name"] for lk in description["links"] if lk["jointId"] >= 0}
    return [by_id.get(i, "") for i in range(max(by_id, default=-1) + 1)]


# ---------------------------------------------------------------------------------------------
# kinematics
# ---------------------------------------------------------------------------------------------

class Kinematics:
    """Forward kinematics of one body description, and its inverse for link poses.

    Arrays: ``parent`` (L,) int, ``offset_p`` (L, 3) [m, parent frame], ``offset_R``
    (L, 3, 3), ``axis`` (L, 3) unit [link frame], ``kind`` (L,) 0 fixed/free/other, 1 rotate,
    2 slide; ``joint_links`` the link index of each jointId (jointId order).
    """

    def __init__(self, description):
        links = description["links"]
        n = len(links)
        self.count = n
        self.parent = np.array([lk["parent"] for lk in links], dtype=int)
        self.offset_p = np.array([lk["translation"] for lk in links], dtype=float).reshape(n, 3)
        self.offset_R = np.array([axis_angle_to_matrix(lk["rotation"]) for lk in links])
        self.offset_R = self.offset_R.reshape(n, 3, 3)
        axis = np.array([lk["axis"] for lk in links], dtype=float).reshape(n, 3)
        norms = np.linalg.norm(axis, axis=1)
        norms[norms == 0.0] = 1.0
        self.axis = axis / norms[:, None]
        self.kind = np.array([{"rotate": 1, "slide": 2}.get(lk["jointType"], 0) for lk in links])
        self.initial_q = np.array([lk["jointValue"] if self.kind[i] else 0.0
                                   for i, lk in enumerate(links)], dtype=float)
        ids = sorted((lk["jointId"], i) for i, lk in enumerate(links) if lk["jointId"] >= 0)
        self.joint_links = np.array([i for _, i in ids], dtype=int)
        self.joint_ids = np.array([j for j, _ in ids], dtype=int)

    def initial_pose(self):
        """(root p (3,), root R (3, 3), q (L,)): the pose the model file describes."""
        if self.count == 0:
            return np.zeros(3), np.eye(3), np.zeros(0)
        return self.offset_p[0].copy(), self.offset_R[0].copy(), self.initial_q.copy()

    def posture(self, P, R):
        """Joint values q (..., L) of every link (0 for links that are not rotate/slide) from
        link poses ``P`` (..., L, 3) and ``R`` (..., L, 3, 3) in the world frame, for one
        frame or a batch. A rotate joint's value is the angle of the joint rotation about
        its axis in (-pi, pi]; a slide joint's the displacement along its axis."""
        P = np.asarray(P, dtype=float)
        R = np.asarray(R, dtype=float)
        q = np.zeros(P.shape[:-1])
        if self.count < 2:
            return q
        i = np.arange(1, self.count)
        par = self.parent[i]
        Rp = R[..., par, :, :]
        R0 = Rp @ self.offset_R[i]                              # frame before the joint
        Rq = np.swapaxes(R0, -1, -2) @ R[..., i, :, :]          # the joint's own rotation
        vee = 0.5 * np.stack([Rq[..., 2, 1] - Rq[..., 1, 2], Rq[..., 0, 2] - Rq[..., 2, 0],
                              Rq[..., 1, 0] - Rq[..., 0, 1]], axis=-1)
        cos = 0.5 * (Rq[..., 0, 0] + Rq[..., 1, 1] + Rq[..., 2, 2] - 1.0)
        a = self.axis[i]
        rot = np.arctan2(np.einsum("...j,...j->...", vee, a), cos)
        base = P[..., par, :] + np.einsum("...jk,...k->...j", Rp, self.offset_p[i])
        along = np.einsum("...jk,...k->...j", R0, a)
        slide = np.einsum("...j,...j->...", along, P[..., i, :] - base)
        k = self.kind[i]
        q[..., 1:] = np.where(k == 1, rot, np.where(k == 2, slide, 0.0))
        return q

    def joint_values(self, q):
        """The entries of per-link values ``q`` (..., L) in jointId order (..., joints)."""
        return np.asarray(q)[..., self.joint_links]

    def link_values(self, joint_q):
        """Per-link values (..., L) from values in jointId order (..., joints); links without a
        jointId keep their initial value."""
        joint_q = np.asarray(joint_q, dtype=float)
        out = np.broadcast_to(self.initial_q, joint_q.shape[:-1] + (self.count,)).copy()
        out[..., self.joint_links] = joint_q
        return out

    def forward(self, root_p, root_R, q):
        """Link poses from root poses and per-link values, vectorised over frames.

        ``root_p`` (N, 3), ``root_R`` (N, 3, 3), ``q`` (N, L); returns P (N, L, 3) and
        R (N, L, 3, 3) in the world frame."""
        root_p = np.asarray(root_p, dtype=float)
        root_R = np.asarray(root_R, dtype=float)
        q = np.asarray(q, dtype=float)
        n = root_p.shape[0]
        P = np.empty((n, self.count, 3))
        R = np.empty((n, self.count, 3, 3))
        if self.count == 0:
            return P, R
        P[:, 0] = root_p
        R[:, 0] = root_R
        for i in range(1, self.count):
            p = self.parent[i]
            P[:, i] = P[:, p] + np.einsum("njk,k->nj", R[:, p], self.offset_p[i])
            R0 = R[:, p] @ self.offset_R[i]
            if self.kind[i] == 1:
                R[:, i] = R0 @ _axis_rotations(self.axis[i], q[:, i])
            else:
                R[:, i] = R0
                if self.kind[i] == 2:
                    P[:, i] += np.einsum("njk,k->nj", R0, self.axis[i]) * q[:, i, None]
        return P, R


def _axis_rotations(axis, angles):
    """Rotation matrices (N, 3, 3) about the unit ``axis`` by each of ``angles`` (N,)."""
    x, y, z = axis
    c, s = np.cos(angles), np.sin(angles)
    t = 1.0 - c
    return np.stack([
        np.stack([t * x * x + c, t * x * y - s * z, t * x * z + s * y], -1),
        np.stack([t * x * y + s * z, t * y * y + c, t * y * z - s * x], -1),
        np.stack([t * x * z - s * y, t * y * z + s * x, t * z * z + c], -1),
    ], -2)
