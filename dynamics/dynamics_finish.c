// dynamics_finish.c - the last phase of a step: each character's state written from the
// simulation, then its joint torques; the step's commands cleared. Also what sensors read of a
// step: the joint wrenches (hsd_jointWrench).
//
// After a step of an articulated character ODE's centre-of-mass bodies become link frames:
// p = p_body + R_body offP, R = R_body offR, v_origin = v_com + w x (p_origin - p_com); joint
// values are measured from the link frames (the rotation about the axis of R0^T R_parent^T
// R_link, unwrapped across +-pi; the displacement along the axis) and joint velocities from
// their relative motion. Composite and kinematic characters are written by hsd_servoFinish.
//
// Accelerations (link dv/dw, ddq, accelerometers, inverse dynamics) are finite differences of
// velocities over the last step, (v(t) - v(t - dt)) / dt: with ODE's semi-implicit Euler this is
// exactly the acceleration the step applied.
//
// Joint wrenches (what a force sensor measures): where the link has its own ODE joint
// (articulated characters) that joint's feedback (the constraint wrench on the link, plus the
// torque a torque-mode joint added outside the constraint), negated (what the link exerts on
// its parent); otherwise inverse dynamics of the link's subtree gives the same wrench.

#include <math.h>
#include <string.h>

#include "dynamics_private.h"

//---------------------------------- joints from link frames -----------------------------------

// the joint value of link k from the link poses in the state (near qNear for unwrapping):
// rotate: the angle about the axis of R0^T R_parent^T R_link, R0 the link's fixed rotation
// (a misalignment of the joint's other axes enters only to second order, while ODE's hinge
// angle takes it in to first order near zero); slide: the displacement along the axis
static double measureJoint(const hsBody *b, const hsBodyState *st, int k, double qNear) {
  const hsLink *lk = &b->links[k];
  int p = lk->parent;
  const double *Rp = st->linkR + 9 * p, *Rk = st->linkR + 9 * k;
  double n = hsu_norm(lk->axis), a[3] = {lk->axis[0] / n, lk->axis[1] / n, lk->axis[2] / n};
  if (lk->jointType == hsJOINT_SLIDE) {
    double off[3], d[3], R0[9], aw[3];
    hsu_rotVec(off, Rp, lk->translation);
    hsu_mulMat(R0, Rp, lk->R);
    hsu_rotVec(aw, R0, a);
    for (int j = 0; j < 3; j++) {
      d[j] = st->linkP[3 * k + j] - st->linkP[3 * p + j] - off[j];
    }
    return hsu_dot(aw, d);
  }
  double R0[9], R0T[9], Rq[9];
  hsu_mulMat(R0, Rp, lk->R);
  hsu_transpose(R0T, R0);
  hsu_mulMat(Rq, R0T, Rk);
  // for a rotation by q about a: Rq - Rq^T = 2 sin(q) [a]x and trace = 1 + 2 cos(q)
  double v[3] = {Rq[7] - Rq[5], Rq[2] - Rq[6], Rq[3] - Rq[1]};
  double q = atan2(0.5 * hsu_dot(v, a), 0.5 * (Rq[0] + Rq[4] + Rq[8] - 1));
  return qNear + remainder(q - qNear, 2 * HS_PI);
}

// the joint velocity of link k from the link motion
static double measureRate(const hsBody *b, const hsBodyState *st, const hsdLinkMotion *motion,
                          int k) {
  const hsLink *lk = &b->links[k];
  int p = lk->parent;
  double a[3];
  hsd_worldAxis(a, lk, st->linkR + 9 * k);
  if (lk->jointType == hsJOINT_SLIDE) {
    double r[3], x[3], rel[3];
    for (int j = 0; j < 3; j++) {
      r[j] = st->linkP[3 * k + j] - st->linkP[3 * p + j];
    }
    hsu_cross(x, motion[p].w, r);
    for (int j = 0; j < 3; j++) {
      rel[j] = motion[k].v[j] - motion[p].v[j] - x[j];
    }
    return hsu_dot(a, rel);
  }
  double rel[3] = {motion[k].w[0] - motion[p].w[0], motion[k].w[1] - motion[p].w[1],
                   motion[k].w[2] - motion[p].w[2]};
  return hsu_dot(a, rel);
}

//---------------------------------- articulated characters ------------------------------------

// put a position-given root exactly on its target pose (after the step)
static void snapGivenRoot(hsdCharacter *c) {
  const hsdLinkOde *l = &c->links[0];
  const double *pT, *RT;
  hsd_rootTarget(c, &pT, &RT);
  double x[3], pb[3];
  hsu_rotVec(x, RT, l->offP);
  for (int j = 0; j < 3; j++) {
    pb[j] = pT[j] - x[j];
  }
  dMatrix3 m;
  hsd_toOdeR(m, RT);  // a root's offR is the identity
  dBodySetPosition(l->body, pb[0], pb[1], pb[2]);
  dBodySetRotation(l->body, m);
}

// link poses and velocities of an articulated character from its ODE bodies (static links
// stay where they are)
static void readBodies(hsdCharacter *c) {
  const hsBody *b = c->body;
  hsBodyState *st = c->state;
  for (int k = 0; k < b->nlink; k++) {
    const hsdLinkOde *l = &c->links[k];
    if (!l->body) {
      continue;
    }
    hsdLinkMotion *m = &c->motion[k];
    double *p = st->linkP + 3 * k, *R = st->linkR + 9 * k;
    const dReal *bp = dBodyGetPosition(l->body);
    const dReal *bv = dBodyGetLinearVel(l->body);
    const dReal *bw = dBodyGetAngularVel(l->body);
    hsd_linkPoseFromBody(l, p, R);
    double r[3], x[3];
    for (int j = 0; j < 3; j++) {
      r[j] = p[j] - bp[j];
      m->w[j] = bw[j];
    }
    hsu_cross(x, m->w, r);
    for (int j = 0; j < 3; j++) {
      m->v[j] = bv[j] + x[j];
    }
  }
  memcpy(st->rootP, st->linkP, sizeof st->rootP);
  memcpy(st->rootR, st->linkR, sizeof st->rootR);
}

// joint values, velocities and torques of an articulated character from its ODE joints (the
// state still holds the last step's joint values and velocities on entry)
static void readJoints(hsdWorld *w, hsdCharacter *c) {
  const hsBody *b = c->body;
  hsBodyState *st = c->state;
  for (int k = 1; k < b->nlink; k++) {
    hsdLinkOde *l = &c->links[k];
    if (l->jkind == hsdODE_NONE) {
      continue;
    }
    int servo = hsd_servoed(c, k);
    double q = measureJoint(b, st, k, st->q[k]);
    if (servo) {
      l->defect = q - st->q[k] - l->vMotor * w->dt;
    }
    st->q[k] = q;
    double dq = measureRate(b, st, c->motion, k);
    st->ddq[k] = (dq - st->dq[k]) / w->dt;
    st->dq[k] = dq;
    if (servo) {
      // the motor's torque: the joint's wrench on this link about the axis through the anchor
      double a[3];
      hsd_worldAxis(a, &b->links[k], st->linkR + 9 * k);
      if (l->jkind == hsdODE_HINGE) {
        const dReal *c1 = dBodyGetPosition(l->body);
        double r[3], f[3] = {l->fb.f1[0], l->fb.f1[1], l->fb.f1[2]}, x[3];
        for (int j = 0; j < 3; j++) {
          r[j] = c1[j] - st->linkP[3 * k + j];
        }
        hsu_cross(x, r, f);
        double t[3] = {l->fb.t1[0] + x[0], l->fb.t1[1] + x[1], l->fb.t1[2] + x[2]};
        st->u[k] = hsu_dot(a, t);
      } else {
        double f[3] = {l->fb.f1[0], l->fb.f1[1], l->fb.f1[2]};
        st->u[k] = hsu_dot(a, f);
      }
    } else {
      st->u[k] = c->in.u[k];
    }
  }
}

//---------------------------------- all characters --------------------------------------------

// accelerations over the step of every link, from the velocities before and after it
static void differentiate(const hsdWorld *w, hsdCharacter *c) {
  const hsBody *b = c->body;
  const hsBodyState *st = c->state;
  double idt = 1.0 / w->dt;
  for (int k = 0; k < b->nlink; k++) {
    hsdLinkOde *l = &c->links[k];
    hsdLinkMotion *m = &c->motion[k];
    double rc[3], x[3], vc[3];
    hsu_rotVec(rc, st->linkR + 9 * k, b->links[k].com);
    hsu_cross(x, m->w, rc);
    for (int j = 0; j < 3; j++) {
      m->dv[j] = (m->v[j] - m->vStart[j]) * idt;
      m->dw[j] = (m->w[j] - m->wStart[j]) * idt;
      vc[j] = m->v[j] + x[j];
      l->ac[j] = (vc[j] - l->vcPrev[j]) * idt;
    }
    memcpy(l->vcPrev, vc, sizeof vc);
  }
}

void hsd_jointWrench(const hsdWorld *w, int ch, int link, const double point[3], double out[6]) {
  memset(out, 0, 6 * sizeof *out);
  if (hsd_checkLink(w, ch, link, NULL) < 0) {
    return;
  }
  const hsdCharacter *c = &w->chars[ch];
  const hsdLinkOde *l = &c->links[link];
  const hsBodyState *st = c->state;
  double *F = out, *M = out + 3, x[3];
  if (l->jkind != hsdODE_NONE && c->rep == hsdREP_ARTICULATED && !c->jsd) {
    // the joint's wrench on this link (f1, t1 about the body's centre), plus the torque or
    // force a torque-mode joint added outside the constraint
    double f1[3] = {l->fb.f1[0], l->fb.f1[1], l->fb.f1[2]};
    double t1[3] = {l->fb.t1[0], l->fb.t1[1], l->fb.t1[2]};
    if (!hsd_servoed(c, link)) {
      double a[3], u = c->in.u[link];
      hsd_worldAxis(a, &c->body->links[link], st->linkR + 9 * link);
      double *along = hsm_jointHalf(&c->body->links[link]) == 3 ? t1 : f1;
      for (int j = 0; j < 3; j++) {
        along[j] += u * a[j];
      }
    }
    // what the link exerts on its parent is the opposite, moved to point
    const dReal *c1 = dBodyGetPosition(l->body);
    double d[3];
    for (int j = 0; j < 3; j++) {
      d[j] = c1[j] - point[j];
    }
    hsu_cross(x, d, f1);
    for (int j = 0; j < 3; j++) {
      F[j] = -f1[j];
      M[j] = -t1[j] - x[j];
    }
    return;
  }
  // inverse dynamics: the subtree's wrench about the link origin, moved to point
  double d[3];
  for (int j = 0; j < 3; j++) {
    d[j] = st->linkP[3 * link + j] - point[j];
    F[j] = c->subW[link][j];
  }
  hsu_cross(x, d, F);
  for (int j = 0; j < 3; j++) {
    M[j] = c->subW[link][3 + j] + x[j];
  }
}

// the holds of the servos after the step: a commanded value is held, a velocity command holds
// where it went
static void updateHolds(hsdCharacter *c) {
  const hsBodyState *st = c->state;
  for (int k = 1; k < c->body->nlink; k++) {
    unsigned f = c->in.flags[k];
    if (f & hsdIN_Q) {
      c->links[k].qHold = c->in.q[k];
    } else if (f & (hsdIN_DQ | hsdIN_DDQ)) {
      c->links[k].qHold = st->q[k];
    }
  }
  unsigned f0 = c->in.flags[0];
  if (f0 & hsdIN_POSE) {
    memcpy(c->pHold, c->in.rootP, sizeof c->pHold);
    memcpy(c->RHold, c->in.rootR, sizeof c->RHold);
  } else if (f0 & hsdIN_VEL) {
    memcpy(c->pHold, st->rootP, sizeof c->pHold);
    memcpy(c->RHold, st->rootR, sizeof c->RHold);
  }
}

// the step's commands are spent: flags and external forces cleared
static void clearCommands(hsdCharacter *c) {
  int n = c->body->nlink;
  memset(c->in.flags, 0, (size_t)n * sizeof *c->in.flags);
  if (c->nExt > 0) {
    memset(c->in.ext, 0, 6 * (size_t)n * sizeof *c->in.ext);
    c->nExt = 0;
  }
}

void hsd_finishCharacter(hsdWorld *w, int ci) {
  hsdCharacter *c = &w->chars[ci];
  const hsdLinkOde *l0 = &c->links[0];
  unsigned f0 = c->in.flags[0];
  int givenRoot = c->rep == hsdREP_ARTICULATED && l0->body && hsd_servoed(c, 0);
  if (givenRoot && (!(f0 & hsdIN_VEL) || (f0 & hsdIN_POSE))) {
    snapGivenRoot(c);
  }
  if (!hsd_saneCharacter(c, 1)) {
    hsd_recover(w, ci, "after");
  } else if (c->rep != hsdREP_ARTICULATED && !c->still) {
    hsd_servoFinish(w, ci);
  }
  if (!c->still) {
    if (c->rep == hsdREP_ARTICULATED) {
      readBodies(c);
    }
    differentiate(w, c);
    if (c->rep == hsdREP_ARTICULATED) {
      readJoints(w, c);
      if (c->needWrench) {
        hsd_inverseDynamics(w, ci);
      }
    } else {
      hsd_inverseDynamics(w, ci);
    }
  } else if (c->still && c->needWrench) {
    hsd_inverseDynamics(w, ci);  // a static robot's force sensors: its weight and contacts
  }
  // a track reads back its speed, as torque and as velocity
  for (int k = 1; k < c->body->nlink; k++) {
    if (c->body->links[k].jointType == hsJOINT_CRAWLER) {
      c->state->u[k] = c->state->dq[k] = c->in.u[k];
    }
  }
  updateHolds(c);
  clearCommands(c);
}

void hsd_jsFinish(hsdWorld *w, int ci) {
  hsdCharacter *c = &w->chars[ci];
  if (!c->still) {
    differentiate(w, c);
  }
  int sensors = 0;
  for (int s = 0; s < c->body->nsensor; s++) {
    sensors |= c->body->sensors[s].type == hsSENSOR_FORCE;
  }
  if (sensors) {
    hsd_sensorInverseDynamics(w, ci);  // (after differentiate: this step's accelerations)
  }
  // a track (welded: no contacts here to drive) reads back its speed, as torque and velocity
  for (int k = 1; k < c->body->nlink; k++) {
    if (c->body->links[k].jointType == hsJOINT_CRAWLER) {
      c->state->u[k] = c->state->dq[k] = c->in.u[k];
    }
  }
  updateHolds(c);
  clearCommands(c);
}
