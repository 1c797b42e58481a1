// dynamics_prepare.c - the first phase of a step: each character's teleports, representation,
// drives and external forces, before collision.
//
// Teleports and mode changes re-place the character's ODE bodies from its state (a teleport
// takes the joint values, velocities and root pose commanded for this step along: the whole
// character is placed where it was told to be)
// (hsd_syncFromState): link poses through forward kinematics, link velocities from the root's
// and the joint velocities, each ODE body at its group's centre of mass; joint motors set for
// the drive modes; servo holds, accelerations and momentum restart there. Then the character
// is driven (dynamics_servo.c for composite and kinematic characters):
// - articulated: a torque-mode joint gets dJointAddHingeTorque / dJointAddSliderForce with its
//   u (kept until changed, as in OpenHRP; with joint limits, u clamped to the effort limit and,
//   for a velocity-limited joint, an ODE motor instead: see hsLIMIT_*); a high-gain joint's ODE
//   motor, bounded by opt.highGainFMax, gets the velocity that lands the joint on its target at
//   the end of the step (hsd_servoVelocity); a position-given root is an ODE kinematic body
//   moving to its target pose over the step;
// - composite and kinematic: the same joint velocities, applied exactly.
// External forces act at the link origin (torque about it). Nothing that could overflow inside
// ODE reaches it: a runaway character is stopped where its state is (a counted warning).

#include <math.h>
#include <string.h>

#include "dynamics_private.h"

//---------------------------------- state -> ODE ----------------------------------------------

// ODE flags for a representation: which bodies are dynamic, which joints take part, which
// motors hold
static void setRepFlags(hsdWorld *w, hsdCharacter *c, hstdRep rep) {
  c->rep = rep;
  for (int k = 0; k < c->body->nlink; k++) {
    hsdLinkOde *l = &c->links[k];
    if (l->body && l->top == k) {
      if (rep == hsdREP_ARTICULATED && !(k == 0 && hsd_servoed(c, 0))) {
        dBodySetDynamic(l->body);
      } else {
        dBodySetKinematic(l->body);
        dBodySetLinearVel(l->body, 0, 0, 0);
        dBodySetAngularVel(l->body, 0, 0, 0);
      }
    }
    if (l->joint) {
      hsd_configureMotor(w, l, c->in.mode[k]);
      if (rep == hsdREP_ARTICULATED) {
        dJointEnable(l->joint);
      } else {
        dJointDisable(l->joint);
      }
    }
    l->att = rep == hsdREP_ARTICULATED ? l->body : NULL;
    memset(l->vInt, 0, sizeof l->vInt);
    memset(l->wInt, 0, sizeof l->wInt);
  }
  if (c->cbody) {
    if (rep == hsdREP_COMPOSITE) {
      dBodyEnable(c->cbody);
    } else {
      dBodyDisable(c->cbody);
    }
  }
}

// the ODE half of hsd_placeBodies: each group body at its top link's state pose and motion
static void placeOdeBodies(hsdWorld *w, int ci) {
  hsdCharacter *c = &w->chars[ci];
  const hsBody *b = c->body;
  const hsBodyState *st = c->state;
  hstdRep rep = c->rep;
  // ODE bodies: each group's top link carries the body frame (offR of a top link is identity);
  // bodies move only in the articulated representation
  for (int k = 0; k < b->nlink; k++) {
    hsdLinkOde *l = &c->links[k];
    const double *p = st->linkP + 3 * k, *R = st->linkR + 9 * k;
    const hsdLinkMotion *m = &c->motion[k];
    if (l->body && l->top == k) {
      double x[3], pb[3], r[3], vc[3];
      hsu_rotVec(x, R, l->offP);
      for (int j = 0; j < 3; j++) {
        pb[j] = p[j] - x[j];
        r[j] = pb[j] - p[j];
      }
      hsu_cross(vc, m->w, r);
      for (int j = 0; j < 3; j++) {
        vc[j] += m->v[j];
      }
      dMatrix3 mR;
      hsd_toOdeR(mR, R);
      dBodySetPosition(l->body, pb[0], pb[1], pb[2]);
      dBodySetRotation(l->body, mR);
      if (rep == hsdREP_ARTICULATED) {
        dBodySetLinearVel(l->body, vc[0], vc[1], vc[2]);
        dBodySetAngularVel(l->body, m->w[0], m->w[1], m->w[2]);
      }
    }
  }
  c->bodiesStale = 0;
}

void hsd_placeBodies(hsdWorld *w, int ci) {
  placeOdeBodies(w, ci);
  hsd_placeShapes(w, ci);
}

void hsd_jsPlaceBodies(hsdWorld *w, int ci) {
  w->chars[ci].bodiesStale = 1;
  hsd_placeShapes(w, ci);
}

void hsd_syncOdeBodies(hsdWorld *w, int ci) {
  if (w->chars[ci].bodiesStale) {
    placeOdeBodies(w, ci);
  }
}

void hsd_syncFromState(hsdWorld *w, int ci, hstdRep rep) {
  hsdCharacter *c = &w->chars[ci];
  const hsBody *b = c->body;
  hsBodyState *st = c->state;
  setRepFlags(w, c, rep);
  hsm_forwardKinematics(b, st);
  // link origin velocities from the root's and the joint velocities
  if (!c->links[0].body) {
    memset(c->motion[0].v, 0, sizeof c->motion[0].v);
    memset(c->motion[0].w, 0, sizeof c->motion[0].w);
  }
  for (int k = 0; k < b->nlink; k++) {
    hsdLinkMotion *m = &c->motion[k];
    if (k > 0) {
      if (!hsm_hasOneDofJoint(&b->links[k])) {
        st->dq[k] = 0;
      }
      const hsdLinkMotion *pm = &c->motion[b->links[k].parent];
      hsd_childVelocity(b, st, k, pm->v, pm->w, st->dq[k], m->v, m->w);
    }
    memset(m->dv, 0, sizeof m->dv);
    memset(m->dw, 0, sizeof m->dw);
  }
  hsd_placeBodies(w, ci);
  // joint readings and the step restart here; servos hold the new configuration
  for (int k = 0; k < b->nlink; k++) {
    hsdLinkOde *l = &c->links[k];
    hsdLinkMotion *m = &c->motion[k];
    l->defect = 0;
    l->qHold = st->q[k];
    memcpy(m->vStart, m->v, sizeof m->vStart);
    memcpy(m->wStart, m->w, sizeof m->wStart);
    memcpy(m->RStart, st->linkR + 9 * k, sizeof m->RStart);
    double rc[3], x[3];
    hsu_rotVec(rc, st->linkR + 9 * k, b->links[k].com);
    hsu_cross(x, m->w, rc);
    for (int j = 0; j < 3; j++) {
      l->vcPrev[j] = m->v[j] + x[j];
    }
    memset(l->ac, 0, sizeof l->ac);
  }
  memcpy(c->pHold, st->rootP, sizeof c->pHold);
  memcpy(c->RHold, st->rootR, sizeof c->RHold);
  hsd_momentum(c);
  c->teleported = 0;
  c->resynced = 1;  // (closed loops re-place their auxiliary bodies, dynamics_loops.c)
  c->remode = 0;
  c->posesTouched = 0;
}

void hsd_applyTeleport(hsdWorld *w, int ci, hstdRep rep) {
  hsdCharacter *c = &w->chars[ci];
  hsBodyState *st = c->state;
  const hsdInput *in = &c->in;
  for (int k = 1; k < c->body->nlink; k++) {
    unsigned f = in->flags[k];
    if (f & hsdIN_Q) {
      st->q[k] = in->q[k];
    }
    if (f & hsdIN_DQ) {
      st->dq[k] = in->dq[k];
    }
  }
  if (in->flags[0] & hsdIN_POSE) {
    memcpy(st->rootP, in->rootP, sizeof st->rootP);
    memcpy(st->rootR, in->rootR, sizeof st->rootR);
  }
  hsd_syncFromState(w, ci, rep);
}

// the link poses in the state back to where the simulation has the links (after a client
// rewrote them between steps): forward kinematics, and the ODE bodies' poses where they move
// under dynamics (they carry what forward kinematics of the measured joints only approximates)
static void restorePoses(hsdCharacter *c) {
  hsBodyState *st = c->state;
  hsm_forwardKinematics(c->body, st);
  if (c->rep == hsdREP_ARTICULATED) {
    for (int k = 0; k < c->body->nlink; k++) {
      if (c->links[k].body) {
        hsd_linkPoseFromBody(&c->links[k], st->linkP + 3 * k, st->linkR + 9 * k);
      }
    }
  }
  c->posesTouched = 0;
}

//---------------------------------- drives ----------------------------------------------------

// drive the joint of link k of an articulated character for this step
static void driveJoint(hsdWorld *w, hsdCharacter *c, int k) {
  hsdLinkOde *l = &c->links[k];
  if (l->jkind == hsdODE_NONE) {
    return;
  }
  if (!hsd_servoed(c, k)) {
    double u = c->in.u[k];
    int limits = w->opt.jointLimits;
    if (limits & hsLIMIT_EFFORT) {
      u = fmin(fmax(u, -l->effort), l->effort);
    }
    if ((limits & hsLIMIT_VELOCITY) && (isfinite(l->vLo) || isfinite(l->vHi))) {
      // the drive as a motor: u (force bound |u|) until the joint would pass the limit in u's
      // direction, then what holds it there; no bound that way: the torque itself. Only near
      // the limit (moving at half of it or more in u's direction): a motor is a constraint row
      // every step, about 17 % more work for the iterative solver on a humanoid whose joints
      // all have limits; a torque that gains more than half the limit in one step passes it
      // for that step and is held from the next
      double v = u > 0 ? l->vHi : l->vLo;
      double dq = c->state->dq[k];
      int motor = u != 0 && isfinite(v) && (u > 0 ? dq >= 0.5 * v : dq <= 0.5 * v);
      if (l->jkind == hsdODE_HINGE) {
        dJointSetHingeParam(l->joint, dParamVel, motor ? v : 0);
        dJointSetHingeParam(l->joint, dParamFMax, motor ? fabs(u) : 0);
      } else {
        dJointSetSliderParam(l->joint, dParamVel, motor ? v : 0);
        dJointSetSliderParam(l->joint, dParamFMax, motor ? fabs(u) : 0);
      }
      if (motor) {
        return;
      }
    }
    if (u != 0) {
      if (l->jkind == hsdODE_HINGE) {
        dJointAddHingeTorque(l->joint, u);
      } else {
        dJointAddSliderForce(l->joint, u);
      }
    }
    return;
  }
  // ODE integrates each body's rotation on its own, which turns a joint between two turning
  // bodies by slightly more or less than the motor's velocity times dt (second order in dt);
  // the last step's defect corrects this one's target
  unsigned f = c->in.flags[k];
  double v = hsd_servoVelocity(w, c, k);
  if (!(f & hsdIN_DQ) || (f & hsdIN_Q)) {
    v -= l->defect / w->dt;
  }
  l->vMotor = v;
  if (l->jkind == hsdODE_HINGE) {
    dJointSetHingeParam(l->joint, dParamVel, v);
  } else {
    dJointSetSliderParam(l->joint, dParamVel, v);
  }
}

// give a position-given root the velocity that takes it to its target over the step
static void driveGivenRoot(hsdWorld *w, hsdCharacter *c) {
  hsdLinkOde *l = &c->links[0];
  const hsBodyState *st = c->state;
  double v[3], wv[3];
  const double *p = st->linkP, *R = st->linkR;
  unsigned f = c->in.flags[0];
  if ((f & hsdIN_VEL) && !(f & hsdIN_POSE)) {
    memcpy(v, c->in.rootV, sizeof v);
    memcpy(wv, c->in.rootW, sizeof wv);
  } else {
    const double *pT, *RT0;
    hsd_rootTarget(c, &pT, &RT0);
    double RT[9], Rd[9], aa[4];
    hsu_transpose(RT, R);
    hsu_mulMat(Rd, RT0, RT);
    hsu_matToAxisAngle(aa, Rd);
    for (int j = 0; j < 3; j++) {
      v[j] = (pT[j] - p[j]) / w->dt;
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

// apply a pending external force of link k (force at the link origin, torque about it)
static void applyExternal(hsdCharacter *c, int k) {
  if (!(c->in.flags[k] & hsdIN_EXT)) {
    return;
  }
  const hsdLinkOde *l = &c->links[k];
  const double *f = c->in.ext + 6 * k, *t = f + 3;
  const double *pk = c->state->linkP + 3 * k, *Rk = c->state->linkR + 9 * k;
  // for inverse dynamics: the same wrench about the link's centre of mass
  double rc[3], x[3];
  hsu_rotVec(rc, Rk, c->body->links[k].com);
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
    r[j] = pk[j] - bp[j];
  }
  hsu_cross(x, r, f);
  dBodyAddForce(b, f[0], f[1], f[2]);
  dBodyAddTorque(b, t[0] + x[0], t[1] + x[1], t[2] + x[2]);
}

//---------------------------------- numerical trouble -----------------------------------------

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

int hsd_saneCharacter(const hsdCharacter *c, int limits) {
  if (c->rep == hsdREP_COMPOSITE) {
    return saneBody(c->cbody, limits);
  }
  if (c->rep == hsdREP_KINEMATIC) {
    return 1;
  }
  for (int k = 0; k < c->body->nlink; k++) {
    const hsdLinkOde *l = &c->links[k];
    if (l->body && l->top == k && !saneBody(l->body, limits)) {
      return 0;
    }
  }
  return 1;
}

void hsd_recover(hsdWorld *w, int ci, const char *when) {
  hsdCharacter *c = &w->chars[ci];
  if (!w->runaway) {
    w->runaway = ci + 1;  // hsd_step reports it
    w->runawayWhen = when;
  }
  hsd_warn(w, hsdWARN_NONFINITE,
           "character %s: runaway or non-finite state %s step %ld; stopped it where it was",
           c->name, when, w->steps + 1);
  // the state is where the last good step left the character: there, at rest, no commands
  for (int k = 0; k < c->body->nlink; k++) {
    memset(c->motion[k].v, 0, sizeof c->motion[k].v);
    memset(c->motion[k].w, 0, sizeof c->motion[k].w);
    c->state->dq[k] = 0;
    c->in.flags[k] &= hsdIN_EXT;
  }
  hsd_syncFromState(w, ci, c->rep);
}

//---------------------------------- the phase -------------------------------------------------

void hsd_prepareCharacter(hsdWorld *w, int ci) {
  hsdCharacter *c = &w->chars[ci];
  hstdRep rep = hsd_chooseRep(w, ci);
  if (c->teleported) {
    hsd_applyTeleport(w, ci, rep);
  } else if (c->remode || rep != c->rep) {
    hsd_syncFromState(w, ci, rep);
  } else {
    if (c->posesTouched) {
      restorePoses(c);
    }
    // the step starts where the last one ended
    const double *R = c->state->linkR;
    for (int k = 0; k < c->body->nlink; k++) {
      hsdLinkMotion *m = &c->motion[k];
      memcpy(m->vStart, m->v, sizeof m->vStart);
      memcpy(m->wStart, m->w, sizeof m->wStart);
      memcpy(m->RStart, R + 9 * k, sizeof m->RStart);
    }
  }
  memset(c->linkWrench, 0, (size_t)c->body->nlink * sizeof *c->linkWrench);
  if (c->rep == hsdREP_ARTICULATED) {
    for (int k = 1; k < c->body->nlink; k++) {
      driveJoint(w, c, k);
    }
    if (c->links[0].body && hsd_servoed(c, 0)) {
      driveGivenRoot(w, c);
    }
  } else if (!c->still) {
    hsd_servoPrepare(w, ci);
  }
  // nothing that could overflow inside ODE may reach it
  if (!hsd_saneCharacter(c, 1)) {
    hsd_recover(w, ci, "before");
    if (c->rep != hsdREP_ARTICULATED && !c->still) {
      hsd_servoPrepare(w, ci);
    }
  }
  for (int k = 0; c->nExt > 0 && k < c->body->nlink; k++) {
    applyExternal(c, k);
  }
}

void hsd_jsPrepare(hsdWorld *w, int ci) {
  hsdCharacter *c = &w->chars[ci];
  if (c->teleported) {
    hsd_applyTeleport(w, ci, hsdREP_ARTICULATED);
  } else if (c->remode || c->rep != hsdREP_ARTICULATED) {
    hsd_syncFromState(w, ci, hsdREP_ARTICULATED);
  } else {
    if (c->posesTouched) {
      hsm_forwardKinematics(c->body, c->state);  // the state is the simulation's here
      c->posesTouched = 0;
    }
    const double *R = c->state->linkR;
    for (int k = 0; k < c->body->nlink; k++) {
      hsdLinkMotion *m = &c->motion[k];
      memcpy(m->vStart, m->v, sizeof m->vStart);
      memcpy(m->wStart, m->w, sizeof m->wStart);
      memcpy(m->RStart, R + 9 * k, sizeof m->RStart);
    }
  }
  // the external forces, about each link's centre of mass, for inverse dynamics
  memset(c->linkWrench, 0, (size_t)c->body->nlink * sizeof *c->linkWrench);
  for (int k = 0; c->nExt > 0 && k < c->body->nlink; k++) {
    if (c->in.flags[k] & hsdIN_EXT) {
      const double *f = c->in.ext + 6 * k, *t = f + 3;
      double rc[3], x[3];
      hsu_rotVec(rc, c->state->linkR + 9 * k, c->body->links[k].com);
      hsu_cross(x, f, rc);  // (origin - com) x f
      for (int j = 0; j < 3; j++) {
        c->linkWrench[k][j] += f[j];
        c->linkWrench[k][3 + j] += t[j] + x[j];
      }
    }
  }
}
