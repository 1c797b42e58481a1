"""Plain-Python summaries of BodyInfo objects, and their text rendering for `hrpsim demo`.

A BodyInfo is a remote object: every attribute access is a round trip that copies the whole
attribute (all links, all shapes...). ``read_body`` therefore fetches each attribute exactly
once and ``body_summary`` works on those local copies only.
"""

from collections import Counter, OrderedDict

# what body_summary reads (linkShapeIndices repeats links[i].shapeIndices, so it is skipped)
BODY_ATTRIBUTES = ("name", "url", "info", "links", "extraJoints", "shapes", "appearances",
                   "materials", "textures")


def _get(obj, attr):
    """Attribute ``attr`` of a CORBA object (``_get_attr()``) or of a plain local object."""
    getter = getattr(obj, "_get_" + attr, None)
    return getter() if getter is not None else getattr(obj, attr)


def read_body(body_info, attributes=BODY_ATTRIBUTES):
    """Fetch the listed attributes of ``body_info`` once each; return them in a dict."""
    return {attr: _get(body_info, attr) for attr in attributes}


def _floats(seq):
    return [float(x) for x in seq]


def _enum_name(value):
    """The name of an omniORBpy enum item (``SP_MESH``), or str() of anything else."""
    return getattr(value, "_n", None) or str(value)


def joint_names_by_id(links):
    """The link names of a BodyInfo's links (``LinkInfo`` records) in jointId order: entry i
    names the link with jointId i, "" for an id no link has (a gap, which OpenHRP fills with an
    empty joint), so the list lines up with the joint-ordered arrays (q, dq, u) whose length
    is the largest jointId + 1. ``Simulation.joint_names`` and log.npz's ``C.joint_names`` are
    this list."""
    by_id = {lk.jointId: lk.name for lk in links if lk.jointId >= 0}
    return [by_id.get(i, "") for i in range(max(by_id, default=-1) + 1)]


def body_summary(body_info):
    """A plain-data description of a BodyInfo (remote reference or already-read dict).

    Returns a dict with:
      name, url, info (list of str);
      links: list of dicts in BodyInfo order, each with index, name, joint_id, joint_type,
        joint_value, parent (name or None), parent_index, children (names), mass [kg],
        com [m, link frame], inertia (9, row-major, about the com) [kg m^2], translation [m],
        rotation (axis-angle: x, y, z, angle [rad]), axis, limits (ulimit, llimit, uvlimit,
        lvlimit, climit: lists, possibly empty), rotor_inertia, gear_ratio, shape_count,
        triangles, sensors (names), segments (name, mass, com, inertia);
      link_count, joint_count (links with joint_id >= 0), joint_types ({type: count});
      sensors: list of dicts (type, name, id, link, spec_values, translation, rotation),
        sorted by type then id; sensors_by_type ({type: [names in id order]});
      total_mass [kg];
      shapes, triangles (sum of len(triangles) // 3), vertices, primitives ({type: count});
      appearances, materials, textures (counts);
      extra_joints: list of dicts (name, type, axis, links, points).
    """
    data = body_info if isinstance(body_info, dict) else read_body(body_info)
    links = list(data["links"])
    shapes = list(data["shapes"])
    tri_per_shape = [len(s.triangles) // 3 for s in shapes]

    def link_name(i):
        return links[i].name if 0 <= i < len(links) else None

    out_links, sensors = [], []
    for i, lk in enumerate(links):
        shape_ids = [int(t.shapeIndex) for t in lk.shapeIndices]
        for s in lk.sensors:
            sensors.append({
                "type": s.type, "name": s.name, "id": int(s.id), "link": lk.name,
                "spec_values": _floats(s.specValues),
                "translation": _floats(s.translation), "rotation": _floats(s.rotation),
            })
        out_links.append({
            "index": i,
            "name": lk.name,
            "joint_id": int(lk.jointId),
            "joint_type": lk.jointType,
            "joint_value": float(lk.jointValue),
            "parent_index": int(lk.parentIndex),
            "parent": link_name(int(lk.parentIndex)),
            "child_indices": [int(c) for c in lk.childIndices],
            "children": [link_name(int(c)) for c in lk.childIndices],
            "mass": float(lk.mass),
            "com": _floats(lk.centerOfMass),
            "inertia": _floats(lk.inertia),
            "translation": _floats(lk.translation),
            "rotation": _floats(lk.rotation),
            "axis": _floats(lk.jointAxis),
            "limits": {k: _floats(getattr(lk, k))
                       for k in ("ulimit", "llimit", "uvlimit", "lvlimit", "climit")},
            "rotor_inertia": float(lk.rotorInertia),
            "gear_ratio": float(lk.gearRatio),
            "shape_count": len(shape_ids),
            "triangles": sum(tri_per_shape[j] for j in shape_ids if 0 <= j < len(shapes)),
            "sensors": [s.name for s in lk.sensors],
            "segments": [{"name": sg.name, "mass": float(sg.mass),
                          "com": _floats(sg.centerOfMass), "inertia": _floats(sg.inertia)}
                         for sg in lk.segments],
        })

    sensors.sort(key=lambda s: (s["type"], s["id"]))
    by_type = OrderedDict()
    for s in sensors:
        by_type.setdefault(s["type"], []).append(s["name"])

    extra = [{"name": ej.name, "type": _enum_name(ej.jointType), "axis": _floats(ej.axis),
              "links": list(ej.link), "points": [_floats(p) for p in ej.point]}
             for ej in data["extraJoints"]]

    return {
        "name": data["name"],
        "url": data["url"],
        "info": list(data["info"]),
        "links": out_links,
        "link_count": len(out_links),
        "joint_count": sum(1 for lk in out_links if lk["joint_id"] >= 0),
        "joint_types": dict(Counter(lk["joint_type"] for lk in out_links)),
        "sensors": sensors,
        "sensors_by_type": dict(by_type),
        "total_mass": sum(lk["mass"] for lk in out_links),
        "shapes": len(shapes),
        "triangles": sum(tri_per_shape),
        "vertices": sum(len(s.vertices) // 3 for s in shapes),
        "primitives": dict(Counter(_enum_name(s.primitiveType) for s in shapes)),
        "appearances": len(data["appearances"]),
        "materials": len(data["materials"]),
        "textures": len(data["textures"]),
        "extra_joints": extra,
    }


def _counts(d):
    return ", ".join("%s %d" % (k, v) for k, v in sorted(d.items())) or "none"


def format_summary(s):
    """A tidy multi-line text rendering of a ``body_summary`` result."""
    lines = []
    add = lines.append
    add("body        %s" % s["name"])
    add("url         %s" % s["url"])
    add("links       %d (%s), %d with a joint id"
        % (s["link_count"], _counts(s["joint_types"]), s["joint_count"]))
    add("total mass  %.3f kg" % s["total_mass"])
    if s["sensors_by_type"]:
        add("sensors     %d" % len(s["sensors"]))
        width = max(len(t) for t in s["sensors_by_type"])
        for t, names in s["sensors_by_type"].items():
            add("  %-*s  %d: %s" % (width, t, len(names), ", ".join(names)))
    else:
        add("sensors     none")
    prims = {k[3:].lower() if k.startswith("SP_") else k: v for k, v in s["primitives"].items()}
    add("shapes      %d (%s)" % (s["shapes"], _counts(prims)))
    add("triangles   %d (%d vertices)" % (s["triangles"], s["vertices"]))
    add("appearance  %d appearances, %d materials, %d textures"
        % (s["appearances"], s["materials"], s["textures"]))
    if s["extra_joints"]:
        add("extra joints %d" % len(s["extra_joints"]))
        for ej in s["extra_joints"]:
            add("  %s: %s between %s" % (ej["name"], ej["type"], " and ".join(ej["links"])))
    else:
        add("extra joints none")

    # link tree, depth-first from the roots, children in the order the BodyInfo lists them
    links = s["links"]
    rows = []

    def walk(i, depth, seen):
        if i in seen or not 0 <= i < len(links):
            return
        seen.add(i)
        rows.append((depth, links[i]))
        for c in links[i]["child_indices"]:
            walk(c, depth + 1, seen)

    seen = set()
    for i, lk in enumerate(links):
        if lk["parent_index"] < 0:
            walk(i, 0, seen)
    for i in range(len(links)):  # anything unreachable (should not happen) still shows
        walk(i, 0, seen)

    if rows:
        add("")
        add("link tree")
        name_w = max(2 * d + len(lk["name"]) for d, lk in rows)
        name_w = max(name_w, len("link"))
        add("  %-*s  %-7s %5s %10s %7s %9s  %s"
            % (name_w, "link", "joint", "id", "mass [kg]", "shapes", "triangles", "sensors"))
        for depth, lk in rows:
            jid = str(lk["joint_id"]) if lk["joint_id"] >= 0 else "-"
            add("  %-*s  %-7s %5s %10.3f %7d %9d  %s"
                % (name_w, "  " * depth + lk["name"], lk["joint_type"], jid, lk["mass"],
                   lk["shape_count"], lk["triangles"], ", ".join(lk["sensors"])))
    return "\n".join(line.rstrip() for line in lines)
