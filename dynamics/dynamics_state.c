// dynamics_state.c - character state: setters, placing ODE bodies, reading ODE back, sensors.
//
// The character's hsBodyState is what clients see. Setters write it at once (write-through), and
// record commands: for a high-gain or position-given joint, or a position-given root, the value
// is where the step will take it; for anything that moves under dynamics (torque-mode joints, a
// free root) the write teleports, which happens at the start of the next step by placing every
// ODE body of the character from the state (hsd_syncFromState). What the simulation actually has
// is kept apart (qAct, pAct, ...), so commands never disturb it. After a step of an articulated
// character, readBack converts ODE's centre-of-mass bodies into link frames: p = p_body +
// R_body offP, R = R_body offR, v_origin = v_com + w x (p_origin - p_com); joint values are
// measured from the link frames (the rotation about the axis of R0^T R_parent^T R_link, unwrapped
// across +-pi; the displacement along the axis) and joint velocities from their relative motion.
//
// Accelerations (link dv/dw, ddq, accelerometers, inverse dynamics) are finite differences of
// velocities over the last step, (v(t) - v(t - dt)) / dt: with ODE's semi-implicit Euler this is
// exactly the acceleration the step applied.
//
// Sensors: a force sensor whose link has its own ODE joint (articulated characters) reads that
// joint's feedback (the constraint wrench on the link, plus the torque a torque-mode joint added
// outside the constraint), negated (what the link exerts on its parent) and moved to the sensor
// origin; otherwise inverse dynamics of the link's subtree gives the same wrench. Rate gyros:
// the link's angular velocity; accelerometers: the sensor point's acceleration minus gravity;
// all in the sensor frame.

#include <math.h>
#include <string.h>

#include "dynamics_private.h"

//---------------------------------- helpers ---------------------------------------------------

static hsdCharacter *charOf(hsdWorld *w, int ch) {
  return &w->chars[ch];
}

// 1 if link k of body b has a 1-dof joint
static int oneDof(const hsBody *b, int k) {
  return k > 0 &&
         (b->links[k].jointType == hsJOINT_ROTATE || b->links[k].jointType == hsJOINT_SLIDE);
}

// the unit joint axis of link k in the world, from its current world rotation
static void worldAxis(double a[3], const hsBody *b, const hsBodyState *st, int k) {
  const double *ax = b->links[k].axis;
  double n = hsu_norm(ax), u[3] = {ax[0] / n, ax[1] / n, ax[2] / n};
  hsu_rotVec(a, st->linkR + 9 * k, u);
}

void hsd_linkPoseFromBody(const hsdLink *l, double p[3], double R[9]) {
  const dReal *bp = dBodyGetPosition(l->body);
  double Rb[9], x[3];
  hsd_fromOdeR(Rb, dBodyGetRotation(l->body));
  hsu_rotVec(x, Rb, l->offP);
  for (int j = 0; j < 3; j++) {
    p[j] = bp[j] + x[j];
  }
  hsu_mulMat(R, Rb, l->offR);
}

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
  worldAxis(a, b, st, k);
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

//---------------------------------- state -> ODE ----------------------------------------------

// ODE flags for a representation: which bodies are dynamic, which joints take part
static void setRepFlags(hsdCharacter *c, hstdRep rep) {
  c->rep = rep;
  for (int k = 0; k < c->body->nlink; k++) {
    hsdLink *l = &c->links[k];
    if (l->body && l->top == k) {
      if (rep == hsdREP_ARTICULATED && !(k == 0 && l->given)) {
        dBodySetDynamic(l->body);
      } else {
        dBodySetKinematic(l->body);
        dBodySetLinearVel(l->body, 0, 0, 0);
        dBodySetAngularVel(l->body, 0, 0, 0);
      }
    }
    if (l->joint) {
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

void hsd_restoreActual(hsdCharacter *c) {
  hsBodyState *st = c->state;
  for (int k = 0; k < c->body->nlink; k++) {
    st->q[k] = c->links[k].qAct;
    st->dq[k] = c->links[k].dqAct;
  }
  memcpy(st->rootP, c->links[0].pAct, sizeof st->rootP);
  memcpy(st->rootR, c->links[0].RAct, sizeof st->rootR);
}

void hsd_syncFromState(hsdWorld *w, int ci, hstdRep rep) {
  hsdCharacter *c = charOf(w, ci);
  const hsBody *b = c->body;
  hsBodyState *st = c->state;
  setRepFlags(c, rep);
  hsm_forwardKinematics(b, st);
  // link origin velocities from the root's and the joint velocities
  if (!c->links[0].body) {
    memset(c->motion[0].v, 0, sizeof c->motion[0].v);
    memset(c->motion[0].w, 0, sizeof c->motion[0].w);
  }
  for (int k = 0; k < b->nlink; k++) {
    hsdLinkMotion *m = &c->motion[k];
    if (k > 0) {
      const hsdLinkMotion *pm = &c->motion[b->links[k].parent];
      double r[3], x[3];
      for (int j = 0; j < 3; j++) {
        r[j] = st->linkP[3 * k + j] - st->linkP[3 * b->links[k].parent + j];
      }
      hsu_cross(x, pm->w, r);
      for (int j = 0; j < 3; j++) {
        m->v[j] = pm->v[j] + x[j];
        m->w[j] = pm->w[j];
      }
      if (oneDof(b, k)) {
        double a[3];
        worldAxis(a, b, st, k);
        for (int j = 0; j < 3; j++) {
          if (b->links[k].jointType == hsJOINT_ROTATE) {
            m->w[j] += a[j] * st->dq[k];
          } else {
            m->v[j] += a[j] * st->dq[k];
          }
        }
      } else {
        st->dq[k] = 0;
      }
    }
    memset(m->dv, 0, sizeof m->dv);
    memset(m->dw, 0, sizeof m->dw);
  }
  // ODE bodies: each group's top link carries the body frame (offR of a top link is identity);
  // bodies move only in the articulated representation
  for (int k = 0; k < b->nlink; k++) {
    hsdLink *l = &c->links[k];
    const double *p = st->linkP + 3 * k, *R = st->linkR + 9 * k;
    const hsdLinkMotion *m = &c->motion[k];
    memcpy(l->pAct, p, sizeof l->pAct);
    memcpy(l->RAct, R, sizeof l->RAct);
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
    if (!l->body) {
      for (int g = l->geomAdr; g < l->geomAdr + l->ngeom; g++) {
        hsdGeom *gg = &c->geoms[g];
        hsd_placeGeom(gg->g, l, gg->T, p, R);
        if (gg->twin) {
          double I[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
          hsd_placeGeom(gg->twin, l, I, p, R);
        }
      }
    }
  }
  // joint readings restart here; commands hold the new configuration
  for (int k = 0; k < b->nlink; k++) {
    hsdLink *l = &c->links[k];
    const hsdLinkMotion *m = &c->motion[k];
    l->defect = 0;
    l->qAct = st->q[k];
    l->dqAct = st->dq[k];
    if (!(l->cmd & hsdCMD_Q)) {
      l->qCmd = st->q[k];
    }
    memcpy(l->vPrev, m->v, sizeof l->vPrev);
    memcpy(l->wPrev, m->w, sizeof l->wPrev);
    double rc[3], x[3];
    hsu_rotVec(rc, st->linkR + 9 * k, b->links[k].com);
    hsu_cross(x, m->w, rc);
    for (int j = 0; j < 3; j++) {
      l->vcPrev[j] = m->v[j] + x[j];
    }
    memset(l->ac, 0, sizeof l->ac);
  }
  if (!(c->links[0].cmd & hsdCMD_POSE)) {
    memcpy(c->links[0].pCmd, st->rootP, sizeof st->rootP);
    memcpy(c->links[0].RCmd, st->rootR, sizeof st->rootR);
  }
  // accelerometers restart from the current velocity
  for (int s = 0; s < b->nsensor; s++) {
    const hsSensor *sn = &b->sensors[s];
    const hsdLinkMotion *m = &c->motion[sn->link];
    double r[3], x[3];
    hsu_rotVec(r, st->linkR + 9 * sn->link, sn->translation);
    hsu_cross(x, m->w, r);
    for (int j = 0; j < 3; j++) {
      c->sensorVPrev[s][j] = m->v[j] + x[j];
    }
  }
  hsd_momentum(c);
  c->dirty = 0;
  c->remode = 0;
}

//---------------------------------- ODE -> state ----------------------------------------------

// link poses and velocities of an articulated character from its ODE bodies
static void readBodies(hsdCharacter *c) {
  const hsBody *b = c->body;
  hsBodyState *st = c->state;
  for (int k = 0; k < b->nlink; k++) {
    hsdLink *l = &c->links[k];
    hsdLinkMotion *m = &c->motion[k];
    double *p = st->linkP + 3 * k, *R = st->linkR + 9 * k;
    if (l->body) {
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
    } else {
      // static links stay where they are
      memcpy(p, l->pAct, sizeof l->pAct);
      memcpy(R, l->RAct, sizeof l->RAct);
    }
    memcpy(l->pAct, p, sizeof l->pAct);
    memcpy(l->RAct, R, sizeof l->RAct);
  }
  memcpy(st->rootP, st->linkP, sizeof st->rootP);
  memcpy(st->rootR, st->linkR, sizeof st->rootR);
}

// joint values, velocities and torques of an articulated character from its ODE joints
static void readJoints(hsdWorld *w, hsdCharacter *c) {
  const hsBody *b = c->body;
  hsBodyState *st = c->state;
  for (int k = 1; k < b->nlink; k++) {
    hsdLink *l = &c->links[k];
    if (l->jkind == hsdJ_NONE) {
      continue;
    }
    double q = measureJoint(b, st, k, l->qAct), d = q - l->qAct;
    l->qAct = q;
    if (l->mode == hsMODE_HIGH_GAIN || l->given) {
      l->defect = d - l->vMotor * w->dt;
    }
    st->q[k] = l->qAct;
    double dq = measureRate(b, st, c->motion, k);
    st->ddq[k] = (dq - l->dqAct) / w->dt;
    st->dq[k] = l->dqAct = dq;
    if (l->mode == hsMODE_HIGH_GAIN || l->given) {
      // the motor's torque: the joint's wrench on this link about the axis through the anchor
      double a[3];
      worldAxis(a, b, st, k);
      if (l->jkind == hsdJ_HINGE) {
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
      if (!(l->cmd & hsdCMD_Q) && (l->cmd & (hsdCMD_DQ | hsdCMD_DDQ))) {
        l->qCmd = l->qAct;  // after a velocity command the servo holds where it went
      }
    } else {
      st->u[k] = l->uCmd;
    }
  }
}

void hsd_readBack(hsdWorld *w, int ci) {
  hsdCharacter *c = charOf(w, ci);
  const hsBody *b = c->body;
  const hsBodyState *st = c->state;
  double idt = 1.0 / w->dt;
  if (c->rep == hsdREP_ARTICULATED) {
    readBodies(c);
  }
  // accelerations over the step
  for (int k = 0; k < b->nlink; k++) {
    hsdLink *l = &c->links[k];
    hsdLinkMotion *m = &c->motion[k];
    double rc[3], x[3], vc[3];
    hsu_rotVec(rc, st->linkR + 9 * k, b->links[k].com);
    hsu_cross(x, m->w, rc);
    for (int j = 0; j < 3; j++) {
      m->dv[j] = (m->v[j] - l->vPrev[j]) * idt;
      m->dw[j] = (m->w[j] - l->wPrev[j]) * idt;
      vc[j] = m->v[j] + x[j];
      l->ac[j] = (vc[j] - l->vcPrev[j]) * idt;
    }
    memcpy(l->vPrev, m->v, sizeof l->vPrev);
    memcpy(l->wPrev, m->w, sizeof l->wPrev);
    memcpy(l->vcPrev, vc, sizeof vc);
  }
  if (c->rep == hsdREP_ARTICULATED) {
    readJoints(w, c);
    if (c->needWrench) {
      hsd_inverseDynamics(w, ci);
    }
  } else {
    hsd_inverseDynamics(w, ci);
  }
}

//---------------------------------- sensors ---------------------------------------------------

void hsd_updateSensors(hsdWorld *w, int ci) {
  hsdCharacter *c = charOf(w, ci);
  const hsBody *b = c->body;
  const hsBodyState *st = c->state;
  double idt = 1.0 / w->dt;
  for (int s = 0; s < b->nsensor; s++) {
    const hsSensor *sn = &b->sensors[s];
    int k = sn->link;
    const hsdLink *l = &c->links[k];
    const hsdLinkMotion *m = &c->motion[k];
    const double *pk = st->linkP + 3 * k, *Rk = st->linkR + 9 * k;
    double Rs[9], ps[3], r[3], *out = c->readings + 6 * s;
    hsu_mulMat(Rs, Rk, c->sensorR[s]);
    hsu_rotVec(r, Rk, sn->translation);
    for (int j = 0; j < 3; j++) {
      ps[j] = pk[j] + r[j];
    }
    switch (sn->type) {
      case hsSENSOR_FORCE: {
        double F[3], M[3];
        if (l->jkind != hsdJ_NONE && c->rep == hsdREP_ARTICULATED) {
          // the joint's wrench on this link (f1, t1 about the body's centre), plus the torque
          // or force a torque-mode joint added outside the constraint
          double f1[3] = {l->fb.f1[0], l->fb.f1[1], l->fb.f1[2]};
          double t1[3] = {l->fb.t1[0], l->fb.t1[1], l->fb.t1[2]};
          if (l->mode == hsMODE_TORQUE && !l->given) {
            double a[3];
            worldAxis(a, b, st, k);
            for (int j = 0; j < 3; j++) {
              if (l->jkind == hsdJ_HINGE) {
                t1[j] += l->uCmd * a[j];
              } else {
                f1[j] += l->uCmd * a[j];
              }
            }
          }
          // what the link exerts on its parent is the opposite, moved to the sensor origin
          const dReal *c1 = dBodyGetPosition(l->body);
          double d[3], x[3];
          for (int j = 0; j < 3; j++) {
            d[j] = c1[j] - ps[j];
          }
          hsu_cross(x, d, f1);
          for (int j = 0; j < 3; j++) {
            F[j] = -f1[j];
            M[j] = -t1[j] - x[j];
          }
        } else {
          // inverse dynamics: the subtree's wrench about the link origin, moved to the sensor
          double d[3], x[3];
          for (int j = 0; j < 3; j++) {
            d[j] = pk[j] - ps[j];
            F[j] = c->subW[k][j];
          }
          hsu_cross(x, d, F);
          for (int j = 0; j < 3; j++) {
            M[j] = c->subW[k][3 + j] + x[j];
          }
        }
        hsu_rotVecT(out, Rs, F);
        hsu_rotVecT(out + 3, Rs, M);
        break;
      }
      case hsSENSOR_RATEGYRO:
        hsu_rotVecT(out, Rs, m->w);
        break;
      case hsSENSOR_ACCELERATION: {
        double v[3], x[3], a[3];
        hsu_cross(x, m->w, r);
        for (int j = 0; j < 3; j++) {
          v[j] = m->v[j] + x[j];
          a[j] = (v[j] - c->sensorVPrev[s][j]) * idt - w->g[j];
          c->sensorVPrev[s][j] = v[j];
        }
        hsu_rotVecT(out, Rs, a);
        break;
      }
      default:
        break;
    }
  }
}

const double *hsd_sensorReading(const hsdWorld *w, int ch, int sensor, int *n) {
  if (n) {
    *n = 0;
  }
  if (!w || ch < 0 || ch >= w->nchar || sensor < 0 || sensor >= w->chars[ch].body->nsensor) {
    return NULL;
  }
  if (n) {
    *n = w->chars[ch].nreading[sensor];
  }
  return w->chars[ch].readings + 6 * sensor;
}

//---------------------------------- queries ---------------------------------------------------

const hsBodyState *hsd_state(const hsdWorld *w, int ch) {
  return (w && ch >= 0 && ch < w->nchar) ? w->chars[ch].state : NULL;
}

const hsdLinkMotion *hsd_linkMotion(const hsdWorld *w, int ch, int link) {
  if (!w || ch < 0 || ch >= w->nchar || link < 0 || link >= w->chars[ch].body->nlink) {
    return NULL;
  }
  return &w->chars[ch].motion[link];
}

hstJointMode hsd_jointMode(const hsdWorld *w, int ch, int link) {
  if (hsd_checkLink(w, ch, link, NULL) < 0) {
    return hsMODE_TORQUE;
  }
  return w->chars[ch].links[link].mode;
}

int hsd_positionGiven(const hsdWorld *w, int ch, int link) {
  if (hsd_checkLink(w, ch, link, NULL) < 0) {
    return 0;
  }
  return w->chars[ch].links[link].given;
}

void hsd_forwardKinematics(hsdWorld *w, int ch) {
  if (!w) {
    return;
  }
  for (int i = 0; i < w->nchar; i++) {
    if (ch < 0 || ch == i) {
      hsm_forwardKinematics(w->chars[i].body, w->chars[i].state);
    }
  }
}

//---------------------------------- setters ---------------------------------------------------

// common checks of the joint setters: valid link with a joint, finite value
static int checkJointSet(hsdWorld *w, int ch, int link, double x, const char *what,
                         hsError *err) {
  if (hsd_checkLink(w, ch, link, err) < 0) {
    return hsE_INVALID;
  }
  if (link == 0) {
    return HS_ERR(err, hsE_INVALID, "%s: the root link %s has no joint %s", w->chars[ch].name,
                  w->chars[ch].body->links[0].name, what);
  }
  if (!hsd_sane(&x, 1)) {
    return HS_ERR(err, hsE_INVALID, "%s: joint %s %s must be finite (and below 1e12)",
                  w->chars[ch].name, w->chars[ch].body->links[link].name, what);
  }
  return 0;
}

// 1 if the link follows commands (high gain or position given) rather than dynamics
static int servoed(const hsdLink *l) {
  return l->mode == hsMODE_HIGH_GAIN || l->given;
}

int hsd_setJointValue(hsdWorld *w, int ch, int link, double q, hsError *err) {
  if (checkJointSet(w, ch, link, q, "value", err) < 0) {
    return hsE_INVALID;
  }
  hsdCharacter *c = charOf(w, ch);
  hsdLink *l = &c->links[link];
  c->state->q[link] = q;
  l->qCmd = q;
  if (w->initialised && oneDof(c->body, link)) {
    if (servoed(l)) {
      l->cmd |= hsdCMD_Q;
    } else {
      c->dirty = 1;
    }
  }
  return 0;
}

int hsd_setJointVelocity(hsdWorld *w, int ch, int link, double dq, hsError *err) {
  if (checkJointSet(w, ch, link, dq, "velocity", err) < 0) {
    return hsE_INVALID;
  }
  hsdCharacter *c = charOf(w, ch);
  hsdLink *l = &c->links[link];
  c->state->dq[link] = dq;
  l->dqCmd = dq;
  if (w->initialised && oneDof(c->body, link)) {
    if (servoed(l)) {
      l->cmd |= hsdCMD_DQ;
    } else {
      c->dirty = 1;
    }
  }
  return 0;
}

int hsd_setJointAcceleration(hsdWorld *w, int ch, int link, double ddq, hsError *err) {
  if (checkJointSet(w, ch, link, ddq, "acceleration", err) < 0) {
    return hsE_INVALID;
  }
  hsdCharacter *c = charOf(w, ch);
  hsdLink *l = &c->links[link];
  c->state->ddq[link] = ddq;
  l->ddqCmd = ddq;
  if (w->initialised && servoed(l)) {
    l->cmd |= hsdCMD_DDQ;
  }
  return 0;
}

int hsd_setJointTorque(hsdWorld *w, int ch, int link, double u, hsError *err) {
  if (checkJointSet(w, ch, link, u, "torque", err) < 0) {
    return hsE_INVALID;
  }
  hsdCharacter *c = charOf(w, ch);
  c->links[link].uCmd = u;
  c->state->u[link] = u;
  return 0;
}

// 1 if R is a rotation matrix within 1e-6
static int isRotation(const double R[9]) {
  double T[12] = {R[0], R[1], R[2], 0, R[3], R[4], R[5], 0, R[6], R[7], R[8], 0};
  return hsu_isRigid(T, 1e-6);
}

int hsd_setLinkPose(hsdWorld *w, int ch, int link, const double p[3], const double R[9],
                    hsError *err) {
  if (hsd_checkLink(w, ch, link, err) < 0) {
    return hsE_INVALID;
  }
  if (!p || !R || !hsd_sane(p, 3) || !hsd_sane(R, 9)) {
    return HS_ERR(err, hsE_INVALID, "link pose must be finite (and below 1e12)");
  }
  if (!isRotation(R)) {
    return HS_ERR(err, hsE_INVALID, "link pose: R is not a rotation matrix");
  }
  hsdCharacter *c = charOf(w, ch);
  hsBodyState *st = c->state;
  if (link > 0) {
    // only the root places a body; other link frames follow from it and q
    memcpy(st->linkP + 3 * link, p, 3 * sizeof *p);
    memcpy(st->linkR + 9 * link, R, 9 * sizeof *R);
    return 0;
  }
  hsdLink *l = &c->links[0];
  memcpy(st->rootP, p, sizeof st->rootP);
  memcpy(st->rootR, R, sizeof st->rootR);
  memcpy(l->pCmd, p, sizeof l->pCmd);
  memcpy(l->RCmd, R, sizeof l->RCmd);
  if (w->initialised) {
    if (l->given && c->body->links[0].jointType == hsJOINT_FREE) {
      l->cmd |= hsdCMD_POSE;
    } else {
      c->dirty = 1;
    }
  }
  return 0;
}

int hsd_setLinkVelocity(hsdWorld *w, int ch, int link, const double v[3], const double wv[3],
                        hsError *err) {
  if (hsd_checkLink(w, ch, link, err) < 0) {
    return hsE_INVALID;
  }
  if (!v || !wv || !hsd_sane(v, 3) || !hsd_sane(wv, 3)) {
    return HS_ERR(err, hsE_INVALID, "link velocity must be finite (and below 1e12)");
  }
  hsdCharacter *c = charOf(w, ch);
  hsdLink *l = &c->links[link];
  hsdLinkMotion *m = &c->motion[link];
  if (link > 0) {
    return 0;  // follows from the root's velocity and dq
  }
  memcpy(l->vCmd, v, sizeof l->vCmd);
  memcpy(l->wCmd, wv, sizeof l->wCmd);
  if (w->initialised && l->given && c->body->links[0].jointType == hsJOINT_FREE) {
    l->cmd |= hsdCMD_VEL;  // a command: the motion keeps the actual velocity until the step
  } else {
    memcpy(m->v, v, sizeof m->v);
    memcpy(m->w, wv, sizeof m->w);
    c->dirty = w->initialised;
  }
  return 0;
}

int hsd_setJointMode(hsdWorld *w, int ch, int link, hstJointMode mode, hsError *err) {
  if (hsd_checkLink(w, ch, link, err) < 0) {
    return hsE_INVALID;
  }
  if (mode != hsMODE_HIGH_GAIN && mode != hsMODE_TORQUE) {
    return HS_ERR(err, hsE_INVALID, "unknown joint mode %d", (int)mode);
  }
  hsdCharacter *c = charOf(w, ch);
  hsdLink *l = &c->links[link];
  if (l->mode != mode && !(l->cmd & hsdCMD_Q)) {
    l->qCmd = w->initialised ? l->qAct : c->state->q[link];  // a new servo holds where it is
  }
  l->mode = mode;
  c->remode = 1;
  if (l->joint) {
    hsd_configureMotor(w, l);
  }
  return 0;
}

int hsd_setAllJointModes(hsdWorld *w, int ch, hstJointMode mode, hsError *err) {
  if (hsd_checkLink(w, ch, 0, err) < 0) {
    return hsE_INVALID;
  }
  for (int k = 1; k < w->chars[ch].body->nlink; k++) {
    if (oneDof(w->chars[ch].body, k) && hsd_setJointMode(w, ch, k, mode, err) < 0) {
      return hsE_INVALID;
    }
  }
  return 0;
}

int hsd_setPositionGiven(hsdWorld *w, int ch, int link, int given, hsError *err) {
  if (hsd_checkLink(w, ch, link, err) < 0) {
    return hsE_INVALID;
  }
  hsdCharacter *c = charOf(w, ch);
  hsdLink *l = &c->links[link];
  given = given != 0;
  if (given && !l->given) {
    // start from where the link is
    if (link == 0) {
      if (!(l->cmd & hsdCMD_POSE)) {
        memcpy(l->pCmd, c->state->rootP, sizeof l->pCmd);
        memcpy(l->RCmd, c->state->rootR, sizeof l->RCmd);
      }
    } else if (!(l->cmd & hsdCMD_Q)) {
      l->qCmd = w->initialised ? l->qAct : c->state->q[link];
    }
  }
  l->given = given;
  c->remode = 1;
  if (l->joint) {
    hsd_configureMotor(w, l);
  }
  return 0;
}

int hsd_setExternalForce(hsdWorld *w, int ch, int link, const double f[3], const double t[3],
                         hsError *err) {
  if (hsd_checkLink(w, ch, link, err) < 0) {
    return hsE_INVALID;
  }
  if (!f || !t || !hsd_sane(f, 3) || !hsd_sane(t, 3)) {
    return HS_ERR(err, hsE_INVALID, "external force and torque must be finite (and below 1e12)");
  }
  hsdLink *l = &w->chars[ch].links[link];
  memcpy(l->fExt, f, sizeof l->fExt);
  memcpy(l->tExt, t, sizeof l->tExt);
  l->hasExt = 1;
  return 0;
}
