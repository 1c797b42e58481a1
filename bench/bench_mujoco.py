#!/usr/bin/env python3
"""MuJoCo's humanoid, the speed anchor people compare with: bare mj_step and a Python PD loop.

Run:  .venv/bin/python bench/bench_mujoco.py [--steps 5000] [--rounds 3]

Bench only: MuJoCo (PyPI `mujoco`) is never a dependency of hrpsim; install it by hand into the
virtualenv (`.venv/bin/pip install mujoco`) to get these figures. Without it, available()
returns False and bench/run_all.py prints a note instead of the rows.

The model (MODEL_XML below, written for this bench after the layout of MuJoCo's classic
humanoid, which the wheel does not ship): a free-floating torso (6 dof) and 21 hinges
(abdomen 3, per leg hip 3 + knee + ankle 2, per arm shoulder 2 + elbow), capsules, 21 torque
motors, standing on a plane with knees slightly bent; 1 ms step, MuJoCo's default solver
(Newton, pyramidal friction cones). Cases, each timed over --steps steps:
  - bare: mj_step in a loop, motors at zero (the robot sags onto the floor: contacts throughout);
  - PD loop: before each step ctrl = P (q_ref - q) - D dq per hinge, read from and written to
    numpy views of mjData (the loop a Python controller author writes).
"""

import argparse
import time

MODEL_XML = """
<mujoco model="bench_humanoid">
  <option timestep="0.001" iterations="50"/>
  <default>
    <joint limited="true" damping="1" armature="0.01"/>
    <geom type="capsule" condim="3" friction="0.7 0.005 0.0001" density="1000"/>
    <motor ctrlrange="-1000 1000" ctrllimited="true"/>
  </default>
  <worldbody>
    <geom name="floor" type="plane" size="10 10 0.1"/>
    <body name="torso" pos="0 0 1.25">
      <freejoint name="root"/>
      <geom name="torso" fromto="0 -.07 0 0 .07 0" size=".07"/>
      <geom name="head" type="sphere" pos="0 0 .19" size=".09"/>
      <geom name="uwaist" fromto="-.01 -.06 -.12 -.01 .06 -.12" size=".06"/>
      <body name="lwaist" pos="-.01 0 -.26">
        <geom name="lwaist" fromto="0 -.06 0 0 .06 0" size=".06"/>
        <joint name="abdomen_z" axis="0 0 1" range="-45 45"/>
        <joint name="abdomen_y" axis="0 1 0" range="-75 30"/>
        <body name="pelvis" pos="0 0 -.165">
          <joint name="abdomen_x" axis="1 0 0" range="-35 35"/>
          <geom name="butt" fromto="-.02 -.07 0 -.02 .07 0" size=".09"/>
          <body name="right_thigh" pos="0 -.1 -.04">
            <joint name="right_hip_x" axis="1 0 0" range="-25 5"/>
            <joint name="right_hip_z" axis="0 0 1" range="-60 35"/>
            <joint name="right_hip_y" axis="0 1 0" range="-110 20"/>
            <geom name="right_thigh" fromto="0 0 0 0 .01 -.34" size=".06"/>
            <body name="right_shin" pos="0 .01 -.403">
              <joint name="right_knee" axis="0 -1 0" range="-160 2"/>
              <geom name="right_shin" fromto="0 0 0 0 0 -.3" size=".049"/>
              <body name="right_foot" pos="0 0 -.39">
                <joint name="right_ankle_y" axis="0 1 0" range="-50 50"/>
                <joint name="right_ankle_x" axis="1 0 .5" range="-50 50"/>
                <geom name="right_foot" type="box" pos=".03 0 -.02" size=".09 .045 .02"/>
              </body>
            </body>
          </body>
          <body name="left_thigh" pos="0 .1 -.04">
            <joint name="left_hip_x" axis="-1 0 0" range="-25 5"/>
            <joint name="left_hip_z" axis="0 0 -1" range="-60 35"/>
            <joint name="left_hip_y" axis="0 1 0" range="-110 20"/>
            <geom name="left_thigh" fromto="0 0 0 0 -.01 -.34" size=".06"/>
            <body name="left_shin" pos="0 -.01 -.403">
              <joint name="left_knee" axis="0 -1 0" range="-160 2"/>
              <geom name="left_shin" fromto="0 0 0 0 0 -.3" size=".049"/>
              <body name="left_foot" pos="0 0 -.39">
                <joint name="left_ankle_y" axis="0 1 0" range="-50 50"/>
                <joint name="left_ankle_x" axis="1 0 .5" range="-50 50"/>
                <geom name="left_foot" type="box" pos=".03 0 -.02" size=".09 .045 .02"/>
              </body>
            </body>
          </body>
        </body>
      </body>
      <body name="right_upper_arm" pos="0 -.17 .06">
        <joint name="right_shoulder1" axis="2 1 1" range="-85 60"/>
        <joint name="right_shoulder2" axis="0 -1 1" range="-85 60"/>
        <geom name="right_uarm" fromto="0 0 0 .16 -.16 -.16" size=".04"/>
        <body name="right_lower_arm" pos=".18 -.18 -.18">
          <joint name="right_elbow" axis="0 -1 1" range="-90 50"/>
          <geom name="right_larm" fromto=".01 .01 .01 .17 .17 .17" size=".031"/>
        </body>
      </body>
      <body name="left_upper_arm" pos="0 .17 .06">
        <joint name="left_shoulder1" axis="2 -1 1" range="-60 85"/>
        <joint name="left_shoulder2" axis="0 1 1" range="-60 85"/>
        <geom name="left_uarm" fromto="0 0 0 .16 .16 -.16" size=".04"/>
        <body name="left_lower_arm" pos=".18 .18 -.18">
          <joint name="left_elbow" axis="0 -1 -1" range="-90 50"/>
          <geom name="left_larm" fromto=".01 -.01 .01 .17 -.17 .17" size=".031"/>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
""" + "".join('    <motor name="%s" joint="%s" gear="1"/>\n' % (j, j) for j in (
    "abdomen_z", "abdomen_y", "abdomen_x", "right_hip_x", "right_hip_z", "right_hip_y",
    "right_knee", "right_ankle_y", "right_ankle_x", "left_hip_x", "left_hip_z", "left_hip_y",
    "left_knee", "left_ankle_y", "left_ankle_x", "right_shoulder1", "right_shoulder2",
    "right_elbow", "left_shoulder1", "left_shoulder2", "left_elbow")) + """  </actuator>
</mujoco>
"""


def available():
    """True when the `mujoco` package imports (bench only; never installed by hrpsim)."""
    try:
        import mujoco  # noqa: F401
    except ImportError:
        return False
    return True


def _setup():
    import mujoco
    import numpy as np
    m = mujoco.MjModel.from_xml_string(MODEL_XML)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    nu = m.nu
    qadr = np.array([m.jnt_qposadr[m.actuator_trnid[a, 0]] for a in range(nu)])
    vadr = np.array([m.jnt_dofadr[m.actuator_trnid[a, 0]] for a in range(nu)])
    return m, d, qadr, vadr


def bare(steps):
    """steps/s of mj_step alone (motors off)."""
    import mujoco
    m, d, _, _ = _setup()
    t0 = time.perf_counter()
    for _ in range(steps):
        mujoco.mj_step(m, d)
    sec = time.perf_counter() - t0
    return {"steps": steps, "seconds": sec, "steps_per_s": steps / sec, "ncon": int(d.ncon)}


def pd_loop(steps, p=300.0, dd=10.0):
    """steps/s of a Python PD loop holding the start pose (numpy views of qpos, qvel, ctrl)."""
    import mujoco
    import numpy as np
    m, d, qadr, vadr = _setup()
    qref = d.qpos[qadr].copy()
    P = np.full(m.nu, p)
    D = np.full(m.nu, dd)
    qpos, qvel, ctrl = d.qpos, d.qvel, d.ctrl
    t0 = time.perf_counter()
    for _ in range(steps):
        ctrl[:] = P * (qref - qpos[qadr]) - D * qvel[vadr]
        mujoco.mj_step(m, d)
    sec = time.perf_counter() - t0
    return {"steps": steps, "seconds": sec, "steps_per_s": steps / sec, "ncon": int(d.ncon),
            "torso_z": float(d.qpos[2])}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=5000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    if not available():
        print("mujoco is not installed (bench only: .venv/bin/pip install mujoco)")
        return
    import mujoco
    best = {}
    for _ in range(args.rounds):
        for key, fn in (("bare mj_step", bare), ("Python PD loop", pd_loop)):
            r = fn(args.steps)
            if key not in best or r["steps_per_s"] > best[key]["steps_per_s"]:
                best[key] = r
    print("MuJoCo %s humanoid, 1 ms step, %d steps, best of %d:"
          % (mujoco.__version__, args.steps, args.rounds))
    for key, r in best.items():
        print("  %-16s %10.0f steps/s  (%d contacts at the end)" % (key, r["steps_per_s"],
                                                                     r["ncon"]))


if __name__ == "__main__":
    main()
