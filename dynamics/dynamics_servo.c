// dynamics_servo.c - characters whose every 1-dof joint is servoed (high-gain mode): the
// composite and kinematic representations, and inverse dynamics.
//
// A servoed joint follows its command exactly, so such a character has no joint dynamics to
// solve: with a free root only the root's six degrees of freedom move under forces, and with a
// fixed or position-given root nothing does. Solving 30 hinge constraints with motors every
// step (as the articulated representation does) gives the same motion at many times the cost,
// so these characters are simulated like this (OpenHRP's AIST engine does the same for
// high-gain joints):
//
// Composite (free root): one ODE body stands for the whole character frozen in its current
// configuration: mass M, centre c, inertia I_c about c, oriented like the root. The state
// carried from step to step is the character's total momentum P and angular momentum L about
// c. Before a step, the joint velocities of the step dq (see hsd_servoVelocity) give each
// link's velocity relative to the root frame ("internal" velocity) and the momentum it carries
// (P_int, L_int); the body gets the rigid velocity that leaves the rest: v = (P - P_int) / M,
// w = I_c^-1 (L - L_int). ODE then applies gravity, external forces and contacts; a contact on
// a link attaches to this body and carries the link's internal velocity at the contact point as
// ODE's surface motion (motion1, motion2, motionN), so the constraint acts on the true point
// velocity. After the step P = M v' + P_int and L = I_c w' + L_int (ODE's gyroscopic term is
// off: with the momentum carried over and w recomputed from it, the rigid rotation conserves L
// exactly), the root moves with the body, the joints land on their targets (q + dq dt, exactly
// the commanded value when one was given) and every link follows by forward kinematics.
//
// Kinematic (fixed or given root): every link moves by its commands; contacts attach only to
// the other side's body, with this side's whole point velocity as surface motion.
//
// In both, each link keeps a kinematic ODE body (for its geoms), and joint torques and force
// sensor readings come from inverse dynamics (Newton-Euler, backwards over the tree) of the
// motion the step produced, with the contact and external forces each link received.

#include <math.h>
#include <string.h>

#include "dynamics_private.h"

//---------------------------------- helpers ---------------------------------------------------

void hsd_rootTarget(const hsdCharacter *c, const double **p, const double **R) {
  int cmd = c->in.flags[0] & hsdIN_POSE;
  *p = cmd ? c->in.rootP : c->pHold;
  *R = cmd ? c->in.rootR : c->RHold;
}

// total mass and centre of mass of body b with its links at (linkP, linkR); a weightless body's
// centre is its root origin
static double centreOfMass(const hsBody *b, const double *linkP, const double *linkR,
                           double com[3]) {
  double M = 0;
  com[0] = com[1] = com[2] = 0;
  for (int k = 0; k < b->nlink; k++) {
    double ck[3];
    hsu_rotVec(ck, linkR + 9 * k, b->links[k].com);
    for (int j = 0; j < 3; j++) {
      com[j] += b->links[k].mass * (ck[j] + linkP[3 * k + j]);
    }
    M += b->links[k].mass;
  }
  for (int j = 0; j < 3; j++) {
    com[j] = M > 0 ? com[j] / M : linkP[j];
  }
  return M;
}

// res = inverse of the symmetric positive definite 3x3 matrix A
static void inv3(double res[9], const double A[9]) {
  double c[9] = {A[4] * A[8] - A[5] * A[7], A[2] * A[7] - A[1] * A[8], A[1] * A[5] - A[2] * A[4],
                 A[5] * A[6] - A[3] * A[8], A[0] * A[8] - A[2] * A[6], A[2] * A[3] - A[0] * A[5],
                 A[3] * A[7] - A[4] * A[6], A[1] * A[6] - A[0] * A[7], A[0] * A[4] - A[1] * A[3]};
  double det = A[0] * c[0] + A[1] * c[3] + A[2] * c[6];
  for (int i = 0; i < 9; i++) {
    res[i] = c[i] / det;
  }
}

// world inertia of link k about its centre: R I R^T
static void worldInertia(double Iw[9], const hsLink *lk, const double R[9]) {
  double RI[9], RT[9];
  hsu_mulMat(RI, R, lk->inertia);
  hsu_transpose(RT, R);
  hsu_mulMat(Iw, RI, RT);
}

// add link lk's momentum and angular momentum about com to P and L, the link at pose (p, R)
// moving with origin velocity v and angular velocity w; its inertia about its centre in the
// world goes to Iw and its centre's offset from com to d
static void addLinkMomentum(const hsLink *lk, const double p[3], const double R[9],
                            const double v[3], const double w[3], const double com[3],
                            double P[3], double L[3], double Iw[9], double d[3]) {
  double rc[3], x[3], vc[3], Iww[3], dxv[3];
  hsu_rotVec(rc, R, lk->com);
  hsu_cross(x, w, rc);
  for (int j = 0; j < 3; j++) {
    vc[j] = v[j] + x[j];
    d[j] = p[j] + rc[j] - com[j];
  }
  worldInertia(Iw, lk, R);
  hsu_rotVec(Iww, Iw, w);
  hsu_cross(dxv, d, vc);
  for (int j = 0; j < 3; j++) {
    P[j] += lk->mass * vc[j];
    L[j] += Iww[j] + lk->mass * dxv[j];
  }
}

// velocities of every link from the root twist (v0 at the root origin, w0) and the joint
// velocities (dqStep when useStep, else the state's dq), at the state's configuration: v/w
// arrays of 3 per link
static void velocityPass(const hsdCharacter *c, const double v0[3], const double w0[3],
                         double *v, double *wv, int useStep) {
  const hsBody *b = c->body;
  const hsBodyState *st = c->state;
  memcpy(v, v0, 3 * sizeof *v);
  memcpy(wv, w0, 3 * sizeof *wv);
  for (int k = 1; k < b->nlink; k++) {
    int p = b->links[k].parent;
    double dq = useStep ? c->links[k].dqStep : st->dq[k];
    hsd_childVelocity(b, st, k, v + 3 * p, wv + 3 * p, dq, v + 3 * k, wv + 3 * k);
  }
}

// put every kinematic link body where the state's link poses say (top links carry the bodies)
static void placeLinkBodies(hsdCharacter *c) {
  const hsBodyState *st = c->state;
  for (int k = 0; k < c->body->nlink; k++) {
    hsdLinkOde *l = &c->links[k];
    if (!l->body || l->top != k) {
      continue;
    }
    const double *p = st->linkP + 3 * k, *R = st->linkR + 9 * k;
    double x[3];
    hsu_rotVec(x, R, l->offP);
    dMatrix3 m;
    hsd_toOdeR(m, R);
    dBodySetPosition(l->body, p[0] - x[0], p[1] - x[1], p[2] - x[2]);
    dBodySetRotation(l->body, m);
  }
}

//---------------------------------- representation -------------------------------------------

hstdRep hsd_chooseRep(const hsdWorld *w, int ci) {
  const hsdCharacter *c = &w->chars[ci];
  const hsBody *b = c->body;
  int all = 1, n = 0;
  for (int k = 1; k < b->nlink; k++) {
    if (hsm_hasOneDofJoint(&b->links[k])) {
      n++;
      all = all && hsd_servoed(c, k);
    }
  }
  if (!all || (w->opt.servoMotors && n > 0) || c->nloop > 0) {
    return hsdREP_ARTICULATED;  // (a closed loop needs joint dynamics)
  }
  if (c->links[0].body && !hsd_servoed(c, 0)) {
    return n > 0 ? hsdREP_COMPOSITE : hsdREP_ARTICULATED;
  }
  return hsdREP_KINEMATIC;
}

double hsd_servoVelocity(const hsdWorld *w, const hsdCharacter *c, int k) {
  const hsdInput *in = &c->in;
  const hsBodyState *st = c->state;
  unsigned f = in->flags[k];
  double dt = w->dt;
  if (f & hsdIN_Q) {
    return (in->q[k] - st->q[k]) / dt;
  }
  if (f & hsdIN_DQ) {
    return in->dq[k] + ((f & hsdIN_DDQ) ? in->ddq[k] * dt : 0);
  }
  if (f & hsdIN_DDQ) {
    return st->dq[k] + in->ddq[k] * dt;
  }
  return (c->links[k].qHold - st->q[k]) / dt;
}

void hsd_momentum(hsdCharacter *c) {
  const hsBody *b = c->body;
  const hsBodyState *st = c->state;
  double com[3];
  centreOfMass(b, st->linkP, st->linkR, com);
  for (int j = 0; j < 3; j++) {
    c->P[j] = c->L[j] = 0;
  }
  for (int k = 0; k < b->nlink; k++) {
    double Iw[9], d[3];
    addLinkMomentum(&b->links[k], st->linkP + 3 * k, st->linkR + 9 * k, c->motion[k].v,
                    c->motion[k].w, com, c->P, c->L, Iw, d);
  }
}

//---------------------------------- before the step -------------------------------------------

// the composite body's mass properties and state for this step
static void prepareComposite(hsdCharacter *c) {
  const hsBody *b = c->body;
  const hsBodyState *st = c->state;
  double com[3], Ic[9] = {0};
  double M = centreOfMass(b, st->linkP, st->linkR, com);
  double Mr = M;
  if (!(M > 0)) {
    Mr = 1e-6;  // a weightless character: keep ODE's body valid
  }
  for (int j = 0; j < 3; j++) {
    c->PInt[j] = c->LInt[j] = 0;
  }
  for (int k = 0; k < b->nlink; k++) {
    const hsLink *lk = &b->links[k];
    const hsdLinkOde *l = &c->links[k];
    // the momentum of the joint motion (root frame at rest), and the inertia about the centre
    double Iw[9], d[3];
    addLinkMomentum(lk, st->linkP + 3 * k, st->linkR + 9 * k, l->vInt, l->wInt, com, c->PInt,
                    c->LInt, Iw, d);
    double dd = hsu_dot(d, d);
    for (int r = 0; r < 3; r++) {
      for (int s = 0; s < 3; s++) {
        Ic[3 * r + s] += Iw[3 * r + s] + lk->mass * ((r == s ? dd : 0) - d[r] * d[s]);
      }
    }
  }
  // ODE needs a positive definite inertia: a character that is a point or a rod gets a trace
  double tr = Ic[0] + Ic[4] + Ic[8], add = fmax(1e-12, 1e-9 * tr);
  for (int it = 0; it < 200; it++) {
    double m2 = Ic[0] * Ic[4] - Ic[1] * Ic[3];
    double m3 = Ic[0] * (Ic[4] * Ic[8] - Ic[5] * Ic[7]) - Ic[1] * (Ic[3] * Ic[8] - Ic[5] * Ic[6]) +
                Ic[2] * (Ic[3] * Ic[7] - Ic[4] * Ic[6]);
    if (Ic[0] > 0 && m2 > 0 && m3 > 0) {
      break;
    }
    Ic[0] += add;
    Ic[4] += add;
    Ic[8] += add;
    add *= 2;
  }
  c->M = Mr;
  memcpy(c->com, com, sizeof com);
  memcpy(c->Ic, Ic, sizeof Ic);
  // the rigid velocity that leaves the internal momentum to the joints
  double Ii[9], dL[3], wB[3], vB[3];
  inv3(Ii, Ic);
  for (int j = 0; j < 3; j++) {
    dL[j] = c->L[j] - c->LInt[j];
    vB[j] = (c->P[j] - c->PInt[j]) / Mr;
  }
  hsu_rotVec(wB, Ii, dL);
  // place the body: at the centre, oriented like the root, with the frozen inertia
  const double *R0 = st->linkR;
  double RT[9], IR[9], Ib[9], d0[3];
  hsu_transpose(RT, R0);
  hsu_mulMat(IR, RT, Ic);
  hsu_mulMat(Ib, IR, R0);
  dMass m;
  dMassSetZero(&m);
  m.mass = Mr;
  for (int r = 0; r < 3; r++) {
    for (int s = 0; s < 3; s++) {
      m.I[4 * r + s] = 0.5 * (Ib[3 * r + s] + Ib[3 * s + r]);
    }
  }
  dBodySetMass(c->cbody, &m);
  dMatrix3 mR;
  hsd_toOdeR(mR, R0);
  dBodySetPosition(c->cbody, com[0], com[1], com[2]);
  dBodySetRotation(c->cbody, mR);
  dBodySetLinearVel(c->cbody, vB[0], vB[1], vB[2]);
  dBodySetAngularVel(c->cbody, wB[0], wB[1], wB[2]);
  for (int j = 0; j < 3; j++) {
    d0[j] = st->linkP[j] - com[j];
  }
  hsu_rotVecT(c->bo, R0, d0);
}

// the root twist of a kinematic character this step (position given: towards its target)
static void kinematicRootVelocity(const hsdWorld *w, hsdCharacter *c) {
  const hsBodyState *st = c->state;
  unsigned f = c->in.flags[0];
  memset(c->vRoot, 0, sizeof c->vRoot);
  memset(c->wRoot, 0, sizeof c->wRoot);
  if (!hsd_servoed(c, 0) || c->body->links[0].jointType != hsJOINT_FREE) {
    return;  // a fixed root never moves
  }
  if ((f & hsdIN_VEL) && !(f & hsdIN_POSE)) {
    memcpy(c->vRoot, c->in.rootV, sizeof c->vRoot);
    memcpy(c->wRoot, c->in.rootW, sizeof c->wRoot);
    return;
  }
  const double *pT, *RT0;
  hsd_rootTarget(c, &pT, &RT0);
  double RT[9], Rd[9], aa[4];
  hsu_transpose(RT, st->linkR);
  hsu_mulMat(Rd, RT0, RT);
  hsu_matToAxisAngle(aa, Rd);
  for (int j = 0; j < 3; j++) {
    c->vRoot[j] = (pT[j] - st->linkP[j]) / w->dt;
    c->wRoot[j] = aa[j] * aa[3] / w->dt;
  }
}

void hsd_servoPrepare(hsdWorld *w, int ci) {
  hsdCharacter *c = &w->chars[ci];
  const hsBody *b = c->body;
  const hsBodyState *st = c->state;
  for (int k = 1; k < b->nlink; k++) {
    c->links[k].dqStep = hsm_hasOneDofJoint(&b->links[k]) ? hsd_servoVelocity(w, c, k) : 0;
  }
  // internal velocities: the joint motion with the root at rest (kinematic: the whole motion)
  double v0[3] = {0, 0, 0}, w0[3] = {0, 0, 0};
  if (c->rep == hsdREP_KINEMATIC) {
    kinematicRootVelocity(w, c);
    memcpy(v0, c->vRoot, sizeof v0);
    memcpy(w0, c->wRoot, sizeof w0);
  }
  hsdLinkOde *L = c->links;
  memcpy(L[0].vInt, v0, sizeof v0);
  memcpy(L[0].wInt, w0, sizeof w0);
  for (int k = 1; k < b->nlink; k++) {
    int p = b->links[k].parent;
    hsd_childVelocity(b, st, k, L[p].vInt, L[p].wInt, L[k].dqStep, L[k].vInt, L[k].wInt);
  }
  if (c->rep == hsdREP_COMPOSITE) {
    prepareComposite(c);
    for (int k = 0; k < b->nlink; k++) {
      L[k].att = c->cbody;
    }
  } else {
    for (int k = 0; k < b->nlink; k++) {
      L[k].att = NULL;
    }
  }
}

//---------------------------------- after the step --------------------------------------------

void hsd_servoFinish(hsdWorld *w, int ci) {
  hsdCharacter *c = &w->chars[ci];
  const hsBody *b = c->body;
  hsBodyState *st = c->state;
  unsigned f0 = c->in.flags[0];
  double p0[3], R0[9], v0[3], w0[3];
  if (c->rep == hsdREP_COMPOSITE) {
    const dReal *x = dBodyGetPosition(c->cbody), *vb = dBodyGetLinearVel(c->cbody);
    const dReal *wb = dBodyGetAngularVel(c->cbody);
    double Icw[3], wB[3] = {wb[0], wb[1], wb[2]}, ro[3];
    hsd_fromOdeR(R0, dBodyGetRotation(c->cbody));
    hsu_rotVec(Icw, c->Ic, wB);
    hsu_rotVec(ro, R0, c->bo);
    for (int j = 0; j < 3; j++) {
      c->P[j] = c->M * vb[j] + c->PInt[j];
      c->L[j] = Icw[j] + c->LInt[j];
      p0[j] = x[j] + ro[j];
      w0[j] = wB[j];
    }
    // the root origin's velocity: the body's rigid motion at the root origin
    double xr[3];
    hsu_cross(xr, wB, ro);
    for (int j = 0; j < 3; j++) {
      v0[j] = vb[j] + xr[j];
    }
  } else {
    memcpy(v0, c->vRoot, sizeof v0);
    memcpy(w0, c->wRoot, sizeof w0);
    if (hsd_servoed(c, 0) && b->links[0].jointType == hsJOINT_FREE) {
      if ((f0 & hsdIN_VEL) && !(f0 & hsdIN_POSE)) {
        double aa[4] = {w0[0], w0[1], w0[2], hsu_norm(w0) * w->dt}, Rd[9];
        hsu_axisAngleToMat(Rd, aa);
        hsu_mulMat(R0, Rd, st->rootR);
        for (int j = 0; j < 3; j++) {
          p0[j] = st->rootP[j] + v0[j] * w->dt;
        }
      } else {
        const double *pT, *RT;
        hsd_rootTarget(c, &pT, &RT);
        memcpy(p0, pT, sizeof p0);
        memcpy(R0, RT, sizeof R0);
      }
    } else {
      memcpy(p0, st->rootP, sizeof p0);
      memcpy(R0, st->rootR, sizeof R0);
    }
  }
  // joints land on their targets; links follow
  memcpy(st->rootP, p0, sizeof p0);
  memcpy(st->rootR, R0, sizeof R0);
  for (int k = 1; k < b->nlink; k++) {
    const hsdLinkOde *l = &c->links[k];
    if (!hsm_hasOneDofJoint(&b->links[k])) {
      continue;
    }
    st->q[k] = (c->in.flags[k] & hsdIN_Q) ? c->in.q[k] : st->q[k] + l->dqStep * w->dt;
    st->ddq[k] = (l->dqStep - st->dq[k]) / w->dt;
    st->dq[k] = l->dqStep;
  }
  hsm_forwardKinematics(b, st);
  if (c->rep == hsdREP_COMPOSITE && c->M > 0) {
    // the centre of mass moves exactly as the momentum says (c' = c + dt P' / M): shift the
    // character by what the joints' second-order motion added
    double cn[3];
    double M = centreOfMass(b, st->linkP, st->linkR, cn);
    if (M > 0) {
      for (int j = 0; j < 3; j++) {
        double d = c->com[j] + w->dt * c->P[j] / M - cn[j];
        st->rootP[j] += d;
        for (int k = 0; k < b->nlink; k++) {
          st->linkP[3 * k + j] += d;
        }
      }
    }
  }
  placeLinkBodies(c);
  // velocities at the new configuration
  double *vp = c->scratch, *wp = c->scratch + 3 * b->nlink;
  velocityPass(c, v0, w0, vp, wp, 1);
  for (int k = 0; k < b->nlink; k++) {
    memcpy(c->motion[k].v, vp + 3 * k, 3 * sizeof(double));
    memcpy(c->motion[k].w, wp + 3 * k, 3 * sizeof(double));
  }
}

//---------------------------------- inverse dynamics ------------------------------------------

// inverse dynamics of character ci (hsd_inverseDynamics), over the links where need[k] is not 0
// (NULL: every link): each needed link's subW is that of hsd_inverseDynamics, bit for bit, if
// every descendant of a needed link is needed; the others keep theirs
static void inverseDynamics(hsdWorld *w, int ci, const double *need) {
  hsdCharacter *c = &w->chars[ci];
  const hsBody *b = c->body;
  hsBodyState *st = c->state;
  // each link's own share: applied forces minus the rate of change of its momentum
  for (int k = 0; k < b->nlink; k++) {
    if (need && !need[k]) {
      continue;
    }
    const hsLink *lk = &b->links[k];
    const hsdLinkOde *l = &c->links[k];
    const hsdLinkMotion *m = &c->motion[k];
    const double *R = st->linkR + 9 * k;
    double *W = c->subW[k], rc[3], f[3], x[3], Iw[9], Idw[3], Iww[3], wIw[3], xe[3];
    hsu_rotVec(rc, R, lk->com);
    for (int j = 0; j < 3; j++) {
      f[j] = lk->mass * (w->g[j] - l->ac[j]);
      W[j] = f[j] + c->linkWrench[k][j];
    }
    hsu_cross(x, rc, f);
    hsu_cross(xe, rc, c->linkWrench[k]);
    worldInertia(Iw, lk, R);
    hsu_rotVec(Idw, Iw, m->dw);
    hsu_rotVec(Iww, Iw, m->w);
    hsu_cross(wIw, m->w, Iww);
    for (int j = 0; j < 3; j++) {
      W[3 + j] = x[j] + xe[j] + c->linkWrench[k][3 + j] - Idw[j] - wIw[j];
    }
  }
  // children into parents (children have larger indices)
  for (int k = b->nlink - 1; k > 0; k--) {
    int p = b->links[k].parent;
    if (need && !need[p]) {
      continue;
    }
    double r[3], x[3];
    for (int j = 0; j < 3; j++) {
      r[j] = st->linkP[3 * k + j] - st->linkP[3 * p + j];
    }
    hsu_cross(x, r, c->subW[k]);
    for (int j = 0; j < 3; j++) {
      c->subW[p][j] += c->subW[k][j];
      c->subW[p][3 + j] += c->subW[k][3 + j] + x[j];
    }
  }
  if (c->rep == hsdREP_ARTICULATED || need) {
    return;
  }
  // the torque each servo applied: what the parent exerts on the subtree, about the axis
  for (int k = 1; k < b->nlink; k++) {
    const hsLink *lk = &b->links[k];
    if (!hsm_hasOneDofJoint(lk)) {
      continue;
    }
    double a[3];
    hsd_worldAxis(a, lk, st->linkR + 9 * k);
    st->u[k] = -hsu_dot(a, c->subW[k] + hsm_jointHalf(lk));
  }
}

void hsd_inverseDynamics(hsdWorld *w, int ci) {
  inverseDynamics(w, ci, NULL);
}

void hsd_sensorInverseDynamics(hsdWorld *w, int ci) {
  hsdCharacter *c = &w->chars[ci];
  const hsBody *b = c->body;
  if (c->rep != hsdREP_ARTICULATED) {
    inverseDynamics(w, ci, NULL);  // (the servos' torques too)
    return;
  }
  // the links carrying a force sensor and their descendants (children have larger indices),
  // marked in the character's scratch
  double *need = c->scratch;
  memset(need, 0, (size_t)b->nlink * sizeof *need);
  for (int s = 0; s < b->nsensor; s++) {
    if (b->sensors[s].type == hsSENSOR_FORCE) {
      need[b->sensors[s].link] = 1;
    }
  }
  for (int k = 1; k < b->nlink; k++) {
    need[k] = need[k] != 0 || need[b->links[k].parent] != 0;
  }
  inverseDynamics(w, ci, need);
}
