"""MuJoCo's compile of an MJCF file beside hrpsim's, as comparable numbers.

Used by tests/e2e/test_mjcf.py (the fixtures) and bench/bench_mjcf_collections.py (public
model collections). For one top-level body of a file (or the whole file): total mass, centre
of mass and composite inertia about it (world frame, at MuJoCo's qpos0 / hrpsim's initial
joint values and root pose), degrees of freedom, and per hinge or slide joint its world axis
and anchor, range (empty when unlimited) and armature. hrpsim's side comes from a BodyInfo
snapshot (tests/e2e/helpers.snapshot), its links placed here by forward kinematics from
translation, rotation, jointAxis and jointValue. MuJoCo (PyPI ``mujoco``) is imported only by
``mujoco_summary``.
"""

import math

import numpy as np


def axis_angle(aa):
    """Rotation matrix of (x, y, z, angle); the axis is normalised first."""
    axis = np.array(aa[:3], dtype=float)
    n = np.linalg.norm(axis)
    if n == 0.0 or aa[3] == 0.0:
        return np.eye(3)
    x, y, z = axis / n
    c, s, t = math.cos(aa[3]), math.sin(aa[3]), 1.0 - math.cos(aa[3])
    return np.array([[t * x * x + c, t * x * y - s * z, t * x * z + s * y],
                     [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
                     [t * x * z - s * y, t * y * z + s * x, t * z * z + c]])


def composite(masses, coms, inertias):
    """Total mass, centre and inertia about it of masses with own inertias (world)."""
    m = sum(masses)
    if m <= 0:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    c = sum(mi * ci for mi, ci in zip(masses, coms)) / m
    inertia = np.zeros((3, 3))
    for mi, ci, Ii in zip(masses, coms, inertias):
        d = ci - c
        inertia += Ii + mi * (d @ d * np.eye(3) - np.outer(d, d))
    return m, c, inertia


def hrpsim_summary(body):
    """((mass, com, inertia), joints, dofs) of a BodyInfo snapshot."""
    frames, masses, coms, inertias, joints = [], [], [], [], {}
    for lk in body.links:
        R = axis_angle(lk.rotation)
        p = np.array(lk.translation, dtype=float)
        if lk.parentIndex >= 0:
            Rp, pp = frames[lk.parentIndex]
            R, p = Rp @ R, pp + Rp @ p
        a = np.array(lk.jointAxis, dtype=float)
        moves = lk.parentIndex >= 0 and lk.jointType in ("rotate", "slide")
        if moves and lk.jointType == "rotate":
            R = R @ axis_angle(list(a) + [lk.jointValue])
        elif moves:
            p = p + R @ a * lk.jointValue
        frames.append((R, p))
        if lk.mass > 0:
            masses.append(lk.mass)
            coms.append(p + R @ np.array(lk.centerOfMass))
            inertias.append(R @ np.array(lk.inertia).reshape(3, 3) @ R.T)
        if moves and lk.jointId >= 0:
            joints[lk.name] = dict(axis=R @ a, anchor=p, range=(list(lk.llimit), list(lk.ulimit)),
                                   armature=lk.rotorInertia)
    free = body.links[0].jointType == "free"
    return composite(masses, coms, inertias), joints, 6 * free + len(joints)


def mujoco_summary(path, top=None):
    """The same numbers from MuJoCo's compile of path, for the top-level body called top (None:
    every body)."""
    import mujoco
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    root = None if top is None else mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, top)
    bodies = [b for b in range(1, m.nbody) if root is None or m.body_rootid[b] == root]
    masses, coms, inertias = [], [], []
    for b in bodies:
        if m.body_mass[b] > 0:
            R = d.ximat[b].reshape(3, 3)
            masses.append(m.body_mass[b])
            coms.append(d.xipos[b].copy())
            inertias.append(R @ np.diag(m.body_inertia[b]) @ R.T)
    joints, dofs = {}, 0
    one_dof = (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))
    for j in range(m.njnt):
        if m.jnt_bodyid[j] not in bodies:
            continue
        dofs += {int(mujoco.mjtJoint.mjJNT_FREE): 6, int(mujoco.mjtJoint.mjJNT_BALL): 3}.get(
            int(m.jnt_type[j]), 1)
        if m.jnt_type[j] in one_dof:
            name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j)
            rng = ([m.jnt_range[j][0]], [m.jnt_range[j][1]]) if m.jnt_limited[j] else ([], [])
            joints[name] = dict(axis=d.xaxis[j].copy(), anchor=d.xanchor[j].copy(), range=rng,
                                armature=m.dof_armature[m.jnt_dofadr[j]])
    return composite(masses, coms, inertias), joints, dofs


def differences(ours, theirs, tol=1e-6):
    """What differs between two summaries beyond tol (relative for masses and inertias,
    absolute in metres and radians otherwise), as short lines; [] when they agree."""
    (m1, c1, I1), j1, n1 = ours
    (m0, c0, I0), j0, n0 = theirs
    out = []
    if abs(m1 - m0) > tol * max(abs(m0), 1e-300):
        out.append("mass %.9g, MuJoCo %.9g" % (m1, m0))
    if not np.allclose(c1, c0, rtol=0, atol=tol):
        out.append("centre of mass %s, MuJoCo %s" % (np.round(c1, 9), np.round(c0, 9)))
    if not np.allclose(I1, I0, rtol=tol, atol=tol * max(np.abs(I0).max(), 1e-300)):
        out.append("composite inertia differs by %.3g" % np.abs(I1 - I0).max())
    if n1 != n0:
        out.append("%d dofs, MuJoCo %d" % (n1, n0))
    if sorted(j1) != sorted(j0):
        out.append("joints %s, MuJoCo %s" % (sorted(j1), sorted(j0)))
    for name in sorted(set(j1) & set(j0)):
        a, b = j1[name], j0[name]
        for key in ("axis", "anchor"):
            if not np.allclose(a[key], b[key], rtol=0, atol=tol):
                out.append("joint %s: %s %s, MuJoCo %s" % (name, key, np.round(a[key], 9),
                                                            np.round(b[key], 9)))
        for k in range(2):
            if len(a["range"][k]) != len(b["range"][k]) or not np.allclose(
                    a["range"][k], b["range"][k], rtol=0, atol=tol):
                out.append("joint %s: range %s, MuJoCo %s" % (name, a["range"], b["range"]))
                break
        if abs(a["armature"] - b["armature"]) > tol * max(abs(b["armature"]), 1e-3):
            out.append("joint %s: armature %g, MuJoCo %g" % (name, a["armature"],
                                                            b["armature"]))
    return out


if __name__ == "__main__":
    # a module (imported by tests/e2e/test_mjcf.py and bench/bench_mjcf_collections.py); run
    # directly, it only says so (and --help prints that usage, as every bench script does)
    import argparse
    argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="a module, not a command: bench/bench_mjcf_collections.py runs it").parse_args()
    print("a module: see bench/bench_mjcf_collections.py --help")
