// dynamics_step.c - hsd_step: drives, external forces, collision, the ODE step, read-back.
//
// Each step, per character: pick the representation its modes need (dynamics_servo.c; a change
// re-places the ODE bodies from the actual state), apply pending teleports, then drive it:
// - articulated: a torque-mode joint gets dJointAddHingeTorque / dJointAddSliderForce with the
//   last u set (u persists until changed, as in OpenHRP); a high-gain or position-given joint's
//   ODE motor, bounded by opt.highGainFMax, gets the velocity that lands the joint on its target
//   at the end of the step (hsd_servoVelocity: (q_cmd - q) / dt when a value was commanded
//   since the last step, as OpenHRP's commanded JOINT_VALUE is where the joint is after the
//   step; else the commanded velocity (+ ddq dt); else dq + ddq_cmd dt for an acceleration
//   alone; else (q_hold - q) / dt: without commands a servo holds its last target); a
//   position-given root is an ODE kinematic body moving to its commanded pose over the step
//   and set exactly on it afterwards;
// - composite and kinematic: the same joint velocities, applied exactly (dynamics_servo.c).
// External forces act at the link origin (torque about it). Then the registered pairs collide,
// ODE steps, and every character is read back; sensors last.
//
// ODE's QuickStep shuffles constraints with ODE's process-wide random generator; each world
// keeps its own seed and restores it around its step, so worlds stepped in any interleaving
// give the same results as worlds stepped alone.

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "dynamics_private.h"

// drive the joint of link k of an articulated character for this step
static void driveJoint(hsdWorld *w, hsdCharacter *c, int k) {
  hsdLink *l = &c->links[k];
  if (l->jkind == hsdJ_NONE) {
    return;
  }
  if (l->mode == hsMODE_TORQUE && !l->given) {
    if (l->uCmd != 0) {
      if (l->jkind == hsdJ_HINGE) {
        dJointAddHingeTorque(l->joint, l->uCmd);
      } else {
        dJointAddSliderForce(l->joint, l->uCmd);
      }
    }
    return;
  }
  // ODE integrates each body's rotation on its own, which turns a joint between two turning
  // bodies by slightly more or less than the motor's velocity times dt (second order in dt);
  // the last step's defect corrects this one's target
  double v = hsd_servoVelocity(w, c, k);
  if (!(l->cmd & hsdCMD_DQ) || (l->cmd & hsdCMD_Q)) {
    v -= l->defect / w->dt;
  }
  l->vMotor = v;
  if (l->jkind == hsdJ_HINGE) {
    dJointSetHingeParam(l->joint, dParamVel, v);
  } else {
    dJointSetSliderParam(l->joint, dParamVel, v);
  }
}

// give a position-given root the velocity that takes it to its target over the step
static void driveGivenRoot(hsdWorld *w, hsdCharacter *c) {
  hsdLink *l = &c->links[0];
  double v[3], wv[3];
  const double *p = l->pAct, *R = l->RAct;
  if ((l->cmd & hsdCMD_VEL) && !(l->cmd & hsdCMD_POSE)) {
    memcpy(v, l->vCmd, sizeof v);
    memcpy(wv, l->wCmd, sizeof wv);
  } else {
    double RT[9], Rd[9], aa[4];
    hsu_transpose(RT, R);
    hsu_mulMat(Rd, l->RCmd, RT);
    hsu_matToAxisAngle(aa, Rd);
    for (int j = 0; j < 3; j++) {
      v[j] = (l->pCmd[j] - p[j]) / w->dt;
      wv[j] = aa[j] * aa[3] / w->dt;
    }
  }
  // the body's centre moves with v + w x (c - origin)
  const dReal *bp = dBodyGetPosition(l->body);
  double r[3], x[3];
  for (int j = 0; j < 3; j++) {
    r[j] = bp[j] - p[j];
  }
  hsu_cross(x, wv, r);
  dBodySetLinearVel(l->body, v[0] + x[0], v[1] + x[1], v[2] + x[2]);
  dBodySetAngularVel(l->body, wv[0], wv[1], wv[2]);
}

// put a position-given root exactly on its commanded pose (after the step)
static void snapGivenRoot(hsdCharacter *c) {
  hsdLink *l = &c->links[0];
  double x[3], pb[3];
  hsu_rotVec(x, l->RCmd, l->offP);
  for (int j = 0; j < 3; j++) {
    pb[j] = l->pCmd[j] - x[j];
  }
  dMatrix3 m;
  hsd_toOdeR(m, l->RCmd);  // a root's offR is the identity
  dBodySetPosition(l->body, pb[0], pb[1], pb[2]);
  dBodySetRotation(l->body, m);
}

// apply a pending external force of link k (force at the link origin, torque about it)
static void applyExternal(hsdCharacter *c, int k) {
  hsdLink *l = &c->links[k];
  if (!l->hasExt) {
    return;
  }
  const double *f = l->fExt, *t = l->tExt;
  // for inverse dynamics: the same wrench about the link's centre of mass
  double rc[3], x[3];
  hsu_rotVec(rc, l->RAct, c->body->links[k].com);
  hsu_cross(x, f, rc);  // (origin - com) x f
  for (int j = 0; j < 3; j++) {
    c->linkWrench[k][j] += f[j];
    c->linkWrench[k][3 + j] += t[j] + x[j];
  }
  dBodyID b = l->att;
  if (!b || dBodyIsKinematic(b)) {
    return;  // nothing moves under it
  }
  const dReal *bp = dBodyGetPosition(b);
  double r[3];
  for (int j = 0; j < 3; j++) {
    r[j] = l->pAct[j] - bp[j];
  }
  hsu_cross(x, r, f);
  dBodyAddForce(b, f[0], f[1], f[2]);
  dBodyAddTorque(b, t[0] + x[0], t[1] + x[1], t[2] + x[2]);
}

// 1 if the ODE body b has a finite pose and velocity within the limits (speed and position
// bounds of hsdMAX_SPEED / hsdMAX_POSITION when limits is set)
static int saneBody(dBodyID b, int limits) {
  const dReal *p = dBodyGetPosition(b), *q = dBodyGetQuaternion(b);
  const dReal *v = dBodyGetLinearVel(b), *wv = dBodyGetAngularVel(b);
  double maxS = limits ? hsdMAX_SPEED : INFINITY, maxP = limits ? hsdMAX_POSITION : INFINITY;
  for (int j = 0; j < 3; j++) {
    if (!(fabs(p[j]) <= maxP) || !(fabs(v[j]) <= maxS) || !(fabs(wv[j]) <= maxS)) {
      return 0;
    }
  }
  return isfinite(q[0]) && isfinite(q[1]) && isfinite(q[2]) && isfinite(q[3]);
}

// 1 if every moving ODE body of character c is sane (see saneBody)
static int saneCharacter(const hsdCharacter *c, int limits) {
  if (c->rep == hsdREP_COMPOSITE) {
    return saneBody(c->cbody, limits);
  }
  if (c->rep == hsdREP_KINEMATIC) {
    return 1;
  }
  for (int k = 0; k < c->body->nlink; k++) {
    const hsdLink *l = &c->links[k];
    if (l->body && l->top == k && !saneBody(l->body, limits)) {
      return 0;
    }
  }
  return 1;
}

// numerical trouble: put character ci back where it was at the end of the last good step, at
// rest, and count a warning
static void recover(hsdWorld *w, int ci, const char *when) {
  hsdCharacter *c = &w->chars[ci];
  hsd_warn(w, hsdWARN_NONFINITE,
           "character %s: runaway or non-finite state %s step %ld; stopped it where it was",
           c->name, when, w->steps + 1);
  for (int k = 0; k < c->body->nlink; k++) {
    memset(c->motion[k].v, 0, sizeof c->motion[k].v);
    memset(c->motion[k].w, 0, sizeof c->motion[k].w);
    c->links[k].dqAct = 0;
    c->links[k].cmd = 0;
  }
  hsd_restoreActual(c);
  hsd_syncFromState(w, ci, c->rep);
}

// before collision: representation, teleports, drives, external forces of character ci
static void prepareCharacter(hsdWorld *w, int ci) {
  hsdCharacter *c = &w->chars[ci];
  hstdRep rep = hsd_chooseRep(w, ci);
  if (c->dirty) {
    hsd_syncFromState(w, ci, rep);
  } else if (rep != c->rep || c->remode) {
    hsd_restoreActual(c);
    hsd_syncFromState(w, ci, rep);
  }
  memset(c->linkWrench, 0, (size_t)c->body->nlink * sizeof *c->linkWrench);
  if (c->rep == hsdREP_ARTICULATED) {
    for (int k = 1; k < c->body->nlink; k++) {
      driveJoint(w, c, k);
    }
    if (c->links[0].body && c->links[0].given) {
      driveGivenRoot(w, c);
    }
  } else if (!c->still) {
    hsd_servoPrepare(w, ci);
  }
  // nothing that could overflow inside ODE may reach it
  if (!saneCharacter(c, 1)) {
    recover(w, ci, "before");
    if (c->rep != hsdREP_ARTICULATED && !c->still) {
      hsd_servoPrepare(w, ci);
    }
  }
  for (int k = 0; k < c->body->nlink; k++) {
    applyExternal(c, k);
  }
}

// after the ODE step: state, torques and sensors of character ci
static void finishCharacter(hsdWorld *w, int ci) {
  hsdCharacter *c = &w->chars[ci];
  hsdLink *l0 = &c->links[0];
  unsigned rc = l0->cmd;
  if (c->rep == hsdREP_ARTICULATED && l0->body && l0->given &&
      (!(rc & hsdCMD_VEL) || (rc & hsdCMD_POSE))) {
    snapGivenRoot(c);
  }
  if (!saneCharacter(c, 0)) {
    recover(w, ci, "after");
  } else if (c->rep != hsdREP_ARTICULATED && !c->still) {
    hsd_servoFinish(w, ci);
  }
  if (!c->still) {
    hsd_readBack(w, ci);
    hsd_updateSensors(w, ci);
  }
  if (c->rep == hsdREP_ARTICULATED && l0->given && (rc & hsdCMD_VEL) && !(rc & hsdCMD_POSE)) {
    memcpy(l0->pCmd, l0->pAct, sizeof l0->pCmd);  // after a velocity command: hold there
    memcpy(l0->RCmd, l0->RAct, sizeof l0->RCmd);
  }
  for (int k = 0; k < c->body->nlink; k++) {
    c->links[k].cmd = 0;
    c->links[k].hasExt = 0;
  }
}

int hsd_islandIndex(dBodyID b) {
  return (b && !dBodyIsKinematic(b)) ? (int)(intptr_t)dBodyGetData(b) - 1 : -1;
}

static int findIsland(int *parent, int i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

static void joinIslands(int *parent, int a, int b) {
  if (a >= 0 && b >= 0) {
    a = findIsland(parent, a);
    b = findIsland(parent, b);
    if (a != b) {
      parent[a < b ? b : a] = a < b ? a : b;  // the smaller index leads: deterministic
    }
  }
}

// 1 if this step should use QuickStep (see hsSTEPPER_AUTO): union-find of the bodies over the
// enabled joints and the contact joints, then the constraint rows of the largest island
static int useQuickStep(hsdWorld *w) {
  if (w->opt.stepper != hsSTEPPER_AUTO) {
    return w->opt.stepper == hsSTEPPER_QUICK;
  }
  int *parent = w->islandParent, *rows = w->islandRows;
  for (int i = 0; i < w->nbody; i++) {
    parent[i] = i;
    rows[i] = 0;
  }
  for (int pass = 0; pass < 2; pass++) {
    for (int ci = 0; ci < w->nchar; ci++) {
      const hsdCharacter *c = &w->chars[ci];
      if (c->rep != hsdREP_ARTICULATED) {
        continue;
      }
      for (int k = 1; k < c->body->nlink; k++) {
        const hsdLink *l = &c->links[k];
        if (l->jkind == hsdJ_NONE) {
          continue;
        }
        if (l->mode == hsMODE_HIGH_GAIN || l->given) {
          return 0;  // a servo motor: QuickStep diverges with them
        }
        int a = hsd_islandIndex(l->body);
        int b = hsd_islandIndex(c->links[c->body->links[k].parent].body);
        if (pass == 0) {
          joinIslands(parent, a, b);
        } else if (a >= 0 || b >= 0) {
          rows[findIsland(parent, a >= 0 ? a : b)] += 5;
        }
      }
    }
    for (int i = 0; i < w->ncontact; i++) {
      const int *isl = w->contactIsland + 3 * i;
      if (!w->contactJoint[i]) {
        continue;
      }
      if (pass == 0) {
        joinIslands(parent, isl[0], isl[1]);
      } else if (isl[0] >= 0 || isl[1] >= 0) {
        rows[findIsland(parent, isl[0] >= 0 ? isl[0] : isl[1])] += isl[2];
      }
    }
  }
  for (int i = 0; i < w->nbody; i++) {
    if (rows[i] > w->opt.autoRows) {
      return 1;
    }
  }
  return 0;
}

int hsd_step(hsdWorld *w, hsError *err) {
  if (!w) {
    return HS_ERR(err, hsE_INVALID, "no world");
  }
  if (!w->initialised) {
    return HS_ERR(err, hsE_INVALID, "step before the simulation was initialised (hsd_init)");
  }
  for (int ci = 0; ci < w->nchar; ci++) {
    prepareCharacter(w, ci);
  }
  hsd_collide(w);
  // the step, with this world's random sequence
  dRandSetSeed(w->seed);
  if (useQuickStep(w)) {
    dWorldQuickStep(w->world, w->dt);
    w->quickSteps++;
  } else {
    dWorldStep(w->world, w->dt);
  }
  w->seed = dRandGetSeed();
  hsd_readContactForces(w);
  dJointGroupEmpty(w->contactGroup);
  for (int ci = 0; ci < w->nchar; ci++) {
    finishCharacter(w, ci);
  }
  w->time += w->dt;
  w->steps++;
  return 0;
}
