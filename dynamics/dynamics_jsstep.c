// dynamics_jsstep.c - a world stepped by the joint-space engine (hsdOptions.engine =
// hsENGINE_JOINT_SPACE): the seam between hsdWorld's characters and dynamics_jointspace.c.
//
// hsd_init builds the ODE side as for the ODE engine (it carries the collision geometry that
// the queries read, and the state every setter writes) and, here, one hsdJsModel and hsdJsData
// per character. A step then never steps ODE: per character, in index order,
// 1. hsd_jsPrepare (dynamics_prepare.c): teleports and mode changes applied to the state, the
//    step's start noted, the external forces kept for inverse dynamics;
// 2. the state into the joint-space data (root pose, q, the root's velocity and dq), the
//    commands as inputs: a torque-mode joint's u as its generalized force; a high-gain joint's
//    acceleration given: commanded with an angle and a velocity or acceleration (OpenHRP's
//    high gain, see prescribed), the commanded acceleration, the joint ending the step exactly
//    at the commanded angle and velocity; otherwise the acceleration that moves it at the ODE
//    engine's servo velocity over the step (hsd_servoVelocity: an angle alone is reached
//    exactly, moving at the difference over the step; a velocity (+ acceleration) command is
//    followed; no command: the joint holds); a position-given free root likewise reaches its
//    commanded pose (or moves at its commanded velocity); external forces; gravity;
// 3. the step's end velocity (hsd_jsStepVelocity; a prescribed joint's: its commanded one);
//    once every character has one, the contacts of the registered pairs correct them
//    (hsd_jsContacts, dynamics_jscontact.c; a given dof takes no impulse); then each
//    character's positions (hsd_jsIntegrate; a prescribed joint's angle: the commanded one),
//    refused as a runaway when it leaves the bounds;
// 4. the data back into the state: poses, q, dq, ddq, u (a high-gain joint's from inverse
//    dynamics), link velocities from the root's and dq; the shapes without an ODE body placed
//    there, the ODE bodies only when something reads them (hsd_jsPlaceBodies: a saved state,
//    the sleep rules); once every character is there, the closed loops' positions taken back
//    onto the loops (hsd_jsCloseLoops, dynamics_loops.c: the velocity rows leave the
//    integration's second-order drift);
// 5. hsd_jsFinish (dynamics_finish.c): accelerations by differences, force sensors by inverse
//    dynamics, holds, commands cleared;
// 6. sleeping (hsdOptions.sleep; dynamics_sleep.c): a sleeping character skips 2-4 (static to
//    the others' points), and islands at rest fall asleep (hsd_jsSleepAfter).

#include <math.h>
#include <string.h>

#include "dynamics_private.h"

// what the joint-space engine does not do, as an error naming it; 0 if nothing
static int refuse(const hsdWorld *w, hsError *err) {
  if (w->opt.rotorInertia != 0) {
    return HS_ERR(err, hsE_INVALID,
                  "the rotorInertia option (rotor inertia on the link) is the ODE engine's; the "
                  "joint-space engine always puts rotor inertia on the joint's diagonal");
  }
  return 0;
}

void hsd_jsFreeWorld(hsdWorld *w) {
  hsd_jsFreeContacts(w);
  for (int ci = 0; ci < w->nchar; ci++) {
    hsdCharacter *c = &w->chars[ci];
    hsd_freeJsData(c->jsd);
    hsd_freeJsModel(c->jsm);
    c->jsd = NULL;
    c->jsm = NULL;
  }
}

// the ODE engine's bounds (hsd_groupMass) on the model of character ci: each moving rigid group
// whose mass or inertia was bounded carries the bounded group's mass, centre and inertia on its
// top link (its welded links none), as the group's ODE body does; 0, or hsE_NOMEM
static int boundMasses(hsdWorld *w, int ci, hsError *err) {
  hsdCharacter *c = &w->chars[ci];
  const hsBody *b = c->body;
  static const double none[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int t = 0; t < b->nlink; t++) {
    double M, com[3], I[9], lmin;
    int dyn = t > 0 || b->links[0].jointType == hsJOINT_FREE;
    if (c->links[t].top != t || !dyn || !hsd_groupMass(w, c, t, &M, com, I, &lmin)) {
      continue;
    }
    for (int k = t; k < b->nlink; k++) {
      int rc = c->links[k].top != t ? 0
               : k == t             ? hsd_setJsLinkMass(c->jsm, k, M, com, I, err)
                                    : hsd_setJsLinkMass(c->jsm, k, 0, none, none, err);
      if (rc < 0) {
        return rc;
      }
    }
  }
  return 0;
}

int hsd_jsInitWorld(hsdWorld *w, hsError *err) {
  hsd_jsFreeWorld(w);
  if (refuse(w, err) < 0) {
    return hsE_INVALID;
  }
  for (int ci = 0; ci < w->nchar; ci++) {
    hsdCharacter *c = &w->chars[ci];
    c->jsm = hsd_makeJsModel(c->body, err);
    c->jsd = c->jsm && boundMasses(w, ci, err) == 0 ? hsd_makeJsData(c->jsm, err) : NULL;
    if (!c->jsd) {
      hsd_jsFreeWorld(w);
      return err ? err->code : hsE_NOMEM;
    }
    for (int k = 0; k < c->body->nlink; k++) {
      hsdLinkOde *l = &c->links[k];
      l->motorF = l->jsLimit = l->jsMotor = 0;
    }
  }
  for (int i = 0; i < w->nloop; i++) {
    memset(w->loops[i].jsImp, 0, sizeof w->loops[i].jsImp);
  }
  return 0;
}

// the velocity (v, wv) that takes a position-given root to its target over the step, or its
// commanded velocity (as the ODE engine's driveGivenRoot)
static void givenRootVelocity(const hsdWorld *w, const hsdCharacter *c, double v[3],
                              double wv[3]) {
  const hsBodyState *st = c->state;
  unsigned f = c->in.flags[0];
  if ((f & hsdIN_VEL) && !(f & hsdIN_POSE)) {
    memcpy(v, c->in.rootV, 3 * sizeof *v);
    memcpy(wv, c->in.rootW, 3 * sizeof *wv);
    return;
  }
  const double *pT, *RT0;
  hsd_rootTarget(c, &pT, &RT0);
  double RT[9], Rd[9], aa[4];
  hsu_transpose(RT, st->rootR);
  hsu_mulMat(Rd, RT0, RT);
  hsu_matToAxisAngle(aa, Rd);
  for (int j = 0; j < 3; j++) {
    v[j] = (pT[j] - st->rootP[j]) / w->dt;
    wv[j] = aa[j] * aa[3] / w->dt;
  }
}

// 1 if commands f prescribe a high-gain joint's motion (see prescribed)
static int prescribedFlags(unsigned f) {
  return (f & hsdIN_Q) && (f & (hsdIN_DQ | hsdIN_DDQ));
}

// 1 if the high-gain joint of link k follows prescribed motion this step (OpenHRP's high gain:
// an angle commanded with a velocity or an acceleration or both): then the joint ends the step
// at the commanded angle and at *dqEnd, the commanded velocity (without one, the start's
// velocity plus dt times the commanded acceleration), while the rest of the character responds
// to the acceleration *ddq, the commanded one (without one, the velocity's change over the
// step). An angle alone is not: the joint moves at the angle's difference over the step
// (hsd_servoVelocity), hrpsim's rule where OpenHRP's would keep the last acceleration written
static int prescribed(const hsdCharacter *c, int k, double dt, double *dqEnd, double *ddq) {
  unsigned f = c->in.flags[k];
  if (!prescribedFlags(f)) {
    return 0;
  }
  double dq = c->state->dq[k];
  *dqEnd = (f & hsdIN_DQ) ? c->in.dq[k] : dq + dt * c->in.ddq[k];
  *ddq = (f & hsdIN_DDQ) ? c->in.ddq[k] : (*dqEnd - dq) / dt;
  return 1;
}

// 1 if the data's state after a step is finite and within the runaway bounds
static int saneData(const hsdJsModel *m, const hsdJsData *d) {
  for (int k = 0; k < 3; k++) {
    if (!(fabs(d->st->rootP[k]) <= hsdMAX_POSITION)) {
      return 0;
    }
  }
  for (int k = 0; k < 9; k++) {
    if (!isfinite(d->st->rootR[k])) {
      return 0;
    }
  }
  for (int j = 0; j < m->nv; j++) {
    if (!(fabs(d->qvel[j]) <= hsdMAX_SPEED) ||
        (j >= m->nroot && !(fabs(d->st->q[m->dofLink[j]]) <= hsdMAX_POSITION))) {
      return 0;
    }
  }
  return 1;
}

// the generalized force of torque-mode joint k this step, with the ODE engine's limits
// (hsLIMIT_*): the command clamped to the effort limit; near a velocity limit in its direction
// (moving at half of it or more) a motor instead (0 here; the contact solver's row drives the
// joint towards the limit's velocity with at most |u|: l->motorF, vMotor)
static double torqueModeDrive(const hsdWorld *w, hsdCharacter *c, int k) {
  hsdLinkOde *l = &c->links[k];
  double u = c->in.u[k];
  int limits = w->opt.jointLimits;
  l->motorF = 0;
  if (limits & hsLIMIT_EFFORT) {
    u = fmin(fmax(u, -l->effort), l->effort);
  }
  if ((limits & hsLIMIT_VELOCITY) && u != 0) {
    double v = u > 0 ? l->vHi : l->vLo, dq = c->state->dq[k];
    if (isfinite(v) && (u > 0 ? dq >= 0.5 * v : dq <= 0.5 * v)) {
      l->motorF = fabs(u);
      l->vMotor = v;
      return 0;
    }
  }
  return u;
}

// the first half of character ci's joint-space step (not still): its state and commands into
// the data, the step's end velocity before contacts (hsd_jsStepVelocity)
static void beginCharacter(hsdWorld *w, int ci) {
  hsdCharacter *c = &w->chars[ci];
  const hsBody *b = c->body;
  const hsdJsModel *m = c->jsm;
  hsdJsData *d = c->jsd;
  hsBodyState *st = c->state;
  int n = b->nlink;
  double dt = w->dt;
  // the state and the commands into the data
  memcpy(d->st->rootP, st->rootP, sizeof st->rootP);
  memcpy(d->st->rootR, st->rootR, sizeof st->rootR);
  memcpy(d->st->q, st->q, (size_t)n * sizeof *st->q);
  memcpy(d->st->linkP, st->linkP, 3 * (size_t)n * sizeof *st->linkP);  // (current: the last
  memcpy(d->st->linkR, st->linkR, 9 * (size_t)n * sizeof *st->linkR);  // step or a teleport's
  d->posesCurrent = 1;                                                  // FK wrote them)
  memcpy(d->g, w->g, sizeof d->g);
  memcpy(d->xfrc, c->in.ext, 6 * (size_t)n * sizeof *d->xfrc);
  if (m->nroot) {
    int given = hsd_servoed(c, 0);
    double vt[6];
    if (given) {
      givenRootVelocity(w, c, vt, vt + 3);
    }
    for (int k = 0; k < 3; k++) {
      d->qvel[k] = c->motion[0].v[k];
      d->qvel[3 + k] = c->motion[0].w[k];
    }
    for (int j = 0; j < 6; j++) {
      d->qfrc[j] = 0;
      d->given[j] = (unsigned char)given;
      d->qaccGiven[j] = given ? (vt[j] - d->qvel[j]) / dt : 0;
    }
  }
  for (int j = m->nroot; j < m->nv; j++) {
    int k = m->dofLink[j], servo = hsd_servoed(c, k);
    d->qvel[j] = st->dq[k];
    d->given[j] = (unsigned char)servo;
    d->qaccGiven[j] = 0;
    if (servo) {
      double dqEnd, ddq;
      if (prescribed(c, k, dt, &dqEnd, &ddq)) {
        d->qaccGiven[j] = ddq;
      } else {
        d->qaccGiven[j] = (hsd_servoVelocity(w, c, k) - st->dq[k]) / dt;
      }
    }
    d->qfrc[j] = servo ? 0 : torqueModeDrive(w, c, k);
  }
  hsd_jsStepVelocity(m, d, dt);
  // a prescribed joint ends the step at its commanded velocity (which the contacts then see)
  for (int j = m->nroot; j < m->nv; j++) {
    double dqEnd, ddq;
    if (d->given[j] && prescribed(c, m->dofLink[j], dt, &dqEnd, &ddq)) {
      d->qvel[j] = dqEnd;
    }
  }
}

// solve the symmetric positive definite 6x6 system A x = b in place (A destroyed, x into b)
// by Cholesky; 0, or -1 when A is not positive definite (b unchanged then)
static int solve6(double A[36], double b[6]) {
  for (int j = 0; j < 6; j++) {
    for (int k = 0; k < j; k++) {
      A[6 * j + j] -= A[6 * j + k] * A[6 * j + k];
    }
    if (!(A[6 * j + j] > 0)) {
      return -1;
    }
    A[6 * j + j] = sqrt(A[6 * j + j]);
    for (int i = j + 1; i < 6; i++) {
      for (int k = 0; k < j; k++) {
        A[6 * i + j] -= A[6 * i + k] * A[6 * j + k];
      }
      A[6 * i + j] /= A[6 * j + j];
    }
  }
  for (int i = 0; i < 6; i++) {
    for (int k = 0; k < i; k++) {
      b[i] -= A[6 * i + k] * b[k];
    }
    b[i] /= A[6 * i + i];
  }
  for (int i = 5; i >= 0; i--) {
    for (int k = i + 1; k < 6; k++) {
      b[i] -= A[6 * k + i] * b[k];
    }
    b[i] /= A[6 * i + i];
  }
  return 0;
}

// the rotation of a touching link weighs in landPrescribed as the displacement it gives this
// far from the link [m]
#define JS_LAND_LENGTH 0.1
// ... and its least squares takes this many Gauss-Newton passes
#define JS_LAND_PASSES 2

// link k's velocity with the data's velocities (qvel) at the step's start poses (cdof): its
// spatial velocity is the sum of cdof qvel over the dofs from k to the root; v at the point p
static void linkVelocity(const hsdJsModel *m, const hsdJsData *d, int k, const double p[3],
                         double v[3], double wv[3]) {
  double s[6] = {0, 0, 0, 0, 0, 0}, r[3], x[3];
  for (int j = m->linkLastDof[k]; j >= 0; j = m->dofParent[j]) {
    for (int a = 0; a < 6; a++) {
      s[a] += d->cdof[6 * j + a] * d->qvel[j];
    }
  }
  for (int a = 0; a < 3; a++) {
    r[a] = p[a] - d->c[a];
  }
  hsu_cross(x, s, r);
  for (int a = 0; a < 3; a++) {
    v[a] = s[3 + a] + x[a];
    wv[a] = s[a];
  }
}

// one pass of landPrescribed's least squares: forward kinematics of d's state, the root's
// displacement solved and applied
static void landPass(hsdWorld *w, int ci) {
  hsdCharacter *c = &w->chars[ci];
  const hsBody *b = c->body;
  const hsdJsModel *m = c->jsm;
  hsdJsData *d = c->jsd;
  hsBodyState *st = d->st;
  hsm_forwardKinematics(b, st);
  // normal equations over the touching links of |t - [r]x theta - e|^2 + l^2 |theta - f|^2,
  // e and f the position and rotation from where the pose puts the link to where its velocity
  // takes it, r the link origin less the root origin, l = JS_LAND_LENGTH
  double H[36] = {0}, g[6] = {0}, l2 = JS_LAND_LENGTH * JS_LAND_LENGTH;
  for (int i = 0; i < w->ngroup; i++) {
    const hsdContactGroup *gr = &w->groups[i];
    int s = gr->ch[0] == ci ? 0 : 1;
    if (gr->ch[s] != ci || gr->ch[1 - s] == ci) {
      continue;
    }
    int k = gr->link[s];
    const double *p0 = c->state->linkP + 3 * k, *R0 = c->state->linkR + 9 * k;
    const double *p = st->linkP + 3 * k, *R = st->linkR + 9 * k;
    double v[3], wv[3], aa[4], E[9], Rt[9], RT[9], Rd[9], r[3], e[3], f[3];
    linkVelocity(m, d, k, p0, v, wv);
    double wn = hsu_norm(wv);
    aa[0] = wv[0];
    aa[1] = wv[1];
    aa[2] = wv[2];
    aa[3] = w->dt * wn;
    hsu_axisAngleToMat(E, aa);
    hsu_mulMat(Rt, E, R0);  // where the velocity turns it
    hsu_transpose(RT, R);
    hsu_mulMat(Rd, Rt, RT);
    hsu_matToAxisAngle(aa, Rd);
    for (int a = 0; a < 3; a++) {
      e[a] = p0[a] + w->dt * v[a] - p[a];
      f[a] = aa[a] * aa[3];
      r[a] = p[a] - st->rootP[a];
    }
    // B = [I, -[r]x]: B^T B = [[I, -[r]x], [[r]x, [r]x^T [r]x]], B^T e = [e; r x e]
    double rr = hsu_dot(r, r), rxe[3];
    hsu_cross(rxe, r, e);
    double Rx[9] = {0, -r[2], r[1], r[2], 0, -r[0], -r[1], r[0], 0};
    for (int a = 0; a < 3; a++) {
      H[6 * a + a] += 1;
      H[6 * (3 + a) + 3 + a] += l2;
      g[a] += e[a];
      g[3 + a] += rxe[a] + l2 * f[a];
      for (int q = 0; q < 3; q++) {
        H[6 * a + 3 + q] -= Rx[3 * a + q];
        H[6 * (3 + a) + q] += Rx[3 * a + q];
        H[6 * (3 + a) + 3 + q] += (a == q ? rr : 0) - r[a] * r[q];
      }
    }
  }
  if (solve6(H, g) < 0) {
    return;
  }
  double ang = hsu_norm(g + 3);
  for (int a = 0; a < 3; a++) {
    st->rootP[a] += g[a];
  }
  if (ang > 0) {
    double aa[4] = {g[3], g[4], g[5], ang}, E[9], R[9];
    hsu_axisAngleToMat(E, aa);
    hsu_mulMat(R, E, st->rootR);
    memcpy(st->rootR, R, sizeof R);
  }
}

// the prescribed joints of character ci onto their commanded angles (d's state holds the
// integrated root pose and joint values), and, for a free root touching other characters, the
// root's pose moved so that each touching link ends the step where the contact solve's
// velocities take it (p + dt v, R turned by dt w: linear, as the solve assumed). The commanded
// angles differ from the integral of the commanded velocities (by dt^2 ddq / 2 a step, and by
// a pattern's quantization), and the links' poses are not linear in the angles: without this
// a sole standing on the floor creeps up (a step without contact) or tilts on an edge (the
// robot rocks). The root's displacement (t, theta: p -> p + t + theta x (p - rootP)) is the
// least-squares one over the touching links' poses (a rotation weighing as its displacement at
// JS_LAND_LENGTH): a position change only, the velocities, momenta and contact forces stay
// as solved
static void landPrescribed(hsdWorld *w, int ci) {
  hsdCharacter *c = &w->chars[ci];
  const hsdJsModel *m = c->jsm;
  hsdJsData *d = c->jsd;
  hsBodyState *st = d->st;
  int any = 0;
  for (int j = m->nroot; j < m->nv; j++) {
    int k = m->dofLink[j];
    if (d->given[j] && prescribedFlags(c->in.flags[k])) {
      st->q[k] = c->in.q[k];
      any = 1;
    }
  }
  int touching = 0;
  for (int i = 0; i < w->ngroup && !touching; i++) {
    touching = (w->groups[i].ch[0] == ci) != (w->groups[i].ch[1] == ci);
  }
  if (!any || !touching || !m->nroot || d->given[0]) {
    return;
  }
  // Gauss-Newton: the displacement is linear in theta, the rotation applied is not (a 1e-3 rad
  // turn about a point 0.7 m away misses by 4e-7 m); a second pass leaves 1e-13 m
  for (int pass = 0; pass < JS_LAND_PASSES; pass++) {
    landPass(w, ci);
  }
}

// x = A^-1 b for the symmetric 3x3 A (Cramer); 0, or -1 when A is singular (x unchanged)
static int solve3(double x[3], const double A[9], const double b[3]) {
  double c0 = A[4] * A[8] - A[5] * A[7], c1 = A[5] * A[6] - A[3] * A[8];
  double c2 = A[3] * A[7] - A[4] * A[6], det = A[0] * c0 + A[1] * c1 + A[2] * c2;
  if (!(fabs(det) > 0) || !isfinite(det)) {
    return -1;
  }
  double r[3];
  for (int i = 0; i < 3; i++) {
    double B[9];
    memcpy(B, A, sizeof B);
    B[i] = b[0];
    B[3 + i] = b[1];
    B[6 + i] = b[2];
    r[i] = (B[0] * (B[4] * B[8] - B[5] * B[7]) + B[1] * (B[5] * B[6] - B[3] * B[8]) +
            B[2] * (B[3] * B[7] - B[4] * B[6])) /
           det;
  }
  memcpy(x, r, sizeof r);
  return 0;
}

// 1 if character ci moves free of anything outside itself this step: a free root not given,
// at least one joint given (the prescribed motion whose reaction the root takes), no contact or
// loop with another character or the world, no external force
static int inFlight(const hsdWorld *w, int ci) {
  const hsdCharacter *c = &w->chars[ci];
  const hsdJsModel *m = c->jsm;
  const hsdJsData *d = c->jsd;
  int given = 0;
  for (int j = m->nroot; j < m->nv && !given; j++) {
    given = d->given[j];
  }
  if (!m->nroot || d->given[0] || !given) {
    return 0;
  }
  for (int i = 0; i < w->ngroup; i++) {
    if ((w->groups[i].ch[0] == ci) != (w->groups[i].ch[1] == ci)) {
      return 0;
    }
  }
  for (int i = 0; i < w->nloop; i++) {
    if ((w->loops[i].ch[0] == ci) != (w->loops[i].ch[1] == ci)) {
      return 0;
    }
  }
  for (int k = 0; k < 6 * c->body->nlink; k++) {
    if (d->xfrc[k] != 0) {
      return 0;
    }
  }
  return 1;
}

// r = R v, and r = a x b: inlined here (util's are a call each in a loop over every link)
static inline void mulRv(double r[3], const double R[9], const double v[3]) {
  r[0] = R[0] * v[0] + R[1] * v[1] + R[2] * v[2];
  r[1] = R[3] * v[0] + R[4] * v[1] + R[5] * v[2];
  r[2] = R[6] * v[0] + R[7] * v[1] + R[8] * v[2];
}

static inline void crossV(double r[3], const double a[3], const double b[3]) {
  r[0] = a[1] * b[2] - a[2] * b[1];
  r[1] = a[2] * b[0] - a[0] * b[2];
  r[2] = a[0] * b[1] - a[1] * b[0];
}

// centre of mass (com) and momenta about it (P, L) of character ci at its state's link poses
// moving as its motion says, with the engine's link masses; Ic its inertia about com; returns
// the mass
static double stateMomentum(const hsdWorld *w, int ci, double com[3], double P[3], double L[3],
                            double Ic[9]) {
  const hsdCharacter *c = &w->chars[ci];
  const hsLink *links = c->jsm->links;
  const hsBodyState *st = c->state;
  int n = c->body->nlink;
  double M = 0, mc[3] = {0, 0, 0};
  memset(P, 0, 3 * sizeof *P);
  memset(L, 0, 3 * sizeof *L);
  memset(Ic, 0, 9 * sizeof *Ic);
  // about the origin first: P = sum m vc, L = sum Iw w + m x vc, Ic = sum Iw + m (|x|^2 1 - x x')
  for (int k = 0; k < n; k++) {
    const hsLink *l = &links[k];
    const double *R = st->linkR + 9 * k, *v = c->motion[k].v, *wk = c->motion[k].w;
    double rc[3], x[3], vc[3], RI[9], Iw[9], Iww[3], xv[3], m = l->mass;
    mulRv(rc, R, l->com);
    crossV(vc, wk, rc);
    for (int a = 0; a < 3; a++) {
      x[a] = st->linkP[3 * k + a] + rc[a];
      vc[a] += v[a];
    }
    for (int a = 0; a < 3; a++) {
      for (int q = 0; q < 3; q++) {
        RI[3 * a + q] = R[3 * a] * l->inertia[q] + R[3 * a + 1] * l->inertia[3 + q] +
                        R[3 * a + 2] * l->inertia[6 + q];
      }
    }
    for (int a = 0; a < 3; a++) {
      for (int q = a; q < 3; q++) {
        Iw[3 * a + q] = Iw[3 * q + a] = RI[3 * a] * R[3 * q] + RI[3 * a + 1] * R[3 * q + 1] +
                                        RI[3 * a + 2] * R[3 * q + 2];
      }
    }
    mulRv(Iww, Iw, wk);
    crossV(xv, x, vc);
    double xx = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
    for (int a = 0; a < 3; a++) {
      P[a] += m * vc[a];
      L[a] += Iww[a] + m * xv[a];
      mc[a] += m * x[a];
      for (int q = 0; q < 3; q++) {
        Ic[3 * a + q] += Iw[3 * a + q] + m * ((a == q ? xx : 0) - x[a] * x[q]);
      }
    }
    M += m;
  }
  // ... then moved to the centre: L_c = L - c x P, Ic_c = Ic - M (|c|^2 1 - c c')
  for (int a = 0; a < 3; a++) {
    com[a] = mc[a] / M;
  }
  double cP[3], cc = com[0] * com[0] + com[1] * com[1] + com[2] * com[2];
  crossV(cP, com, P);
  for (int a = 0; a < 3; a++) {
    L[a] -= cP[a];
    for (int q = 0; q < 3; q++) {
      Ic[3 * a + q] -= M * ((a == q ? cc : 0) - com[a] * com[q]);
    }
  }
  return M;
}

// character ci in flight (inFlight) after its step, poses and motion written: its momenta made
// those of the step's start (h0 about the start's centre c0: hsd_jsMomentum) plus gravity's
// impulse, and its centre placed where the start's centre moves at the end's centre velocity
// (c0 + dt P / M), as one rigid motion of the whole character added to its root: the joints'
// accelerations given (prescribed, or their angles' differences) make the root's response
// right only to first order in dt, and a humanoid swinging its limbs would drift
static void conserveMomentum(hsdWorld *w, int ci, const double h0[6], const double c0[3]) {
  hsdCharacter *c = &w->chars[ci];
  hsdJsData *d = c->jsd;
  hsBodyState *st = c->state;
  const hsBody *b = c->body;
  double com[3], P[3], L[3], Ic[9], Pt[3], ct[3], dL[3], dw[3];
  double M = stateMomentum(w, ci, com, P, L, Ic);
  for (int a = 0; a < 3; a++) {
    Pt[a] = h0[3 + a] + M * w->g[a] * w->dt;
    ct[a] = c0[a] + w->dt * Pt[a] / M;
    dL[a] = h0[a] - L[a];
  }
  if (!(M > 0) || solve3(dw, Ic, dL) < 0) {
    return;
  }
  // positions: the character turned by dt dw about its centre (a first estimate of the angular
  // velocity's correction) and moved to put that centre at ct; the link poses as forward
  // kinematics would give them from the root's, their velocities and momenta turned likewise
  double aa[4] = {dw[0], dw[1], dw[2], w->dt * hsu_norm(dw)}, E[9], ET[9], T[9];
  if (aa[3] > 0) {
    hsu_axisAngleToMat(E, aa);
  } else {
    hsu_setIdentity(E);
  }
  for (int k = -1; k < b->nlink; k++) {
    double *p = k < 0 ? st->rootP : st->linkP + 3 * k, *R = k < 0 ? st->rootR : st->linkR + 9 * k;
    double r[3], x[3], RE[9];
    for (int a = 0; a < 3; a++) {
      r[a] = p[a] - com[a];
    }
    mulRv(x, E, r);
    for (int a = 0; a < 3; a++) {
      for (int q = 0; q < 3; q++) {
        RE[3 * a + q] = E[3 * a] * R[q] + E[3 * a + 1] * R[3 + q] + E[3 * a + 2] * R[6 + q];
      }
    }
    memcpy(R, RE, sizeof RE);
    for (int a = 0; a < 3; a++) {
      p[a] = ct[a] + x[a];
    }
    if (k >= 0) {
      mulRv(x, E, c->motion[k].v);
      memcpy(c->motion[k].v, x, sizeof x);
      mulRv(x, E, c->motion[k].w);
      memcpy(c->motion[k].w, x, sizeof x);
    }
  }
  memcpy(d->st->rootP, st->rootP, sizeof st->rootP);
  memcpy(d->st->rootR, st->rootR, sizeof st->rootR);
  double x[3];
  hsu_rotVec(x, E, P);
  memcpy(P, x, sizeof x);
  hsu_rotVec(x, E, L);
  hsu_transpose(ET, E);
  hsu_mulMat(T, E, Ic);
  hsu_mulMat(Ic, T, ET);
  // velocities: the rigid motion (dv at the centre, dw) that brings the momenta to the targets
  for (int a = 0; a < 3; a++) {
    dL[a] = h0[a] - x[a];
  }
  if (solve3(dw, Ic, dL) < 0) {
    return;
  }
  for (int k = 0; k < b->nlink; k++) {
    double rk[3], wx[3];
    for (int a = 0; a < 3; a++) {
      rk[a] = st->linkP[3 * k + a] - ct[a];
    }
    crossV(wx, dw, rk);
    for (int a = 0; a < 3; a++) {
      c->motion[k].v[a] += (Pt[a] - P[a]) / M + wx[a];
      c->motion[k].w[a] += dw[a];
    }
  }
  for (int a = 0; a < 3; a++) {
    d->qvel[a] = c->motion[0].v[a];
    d->qvel[3 + a] = c->motion[0].w[a];
  }
}

// the second half: the positions from the (contact-corrected) velocity, the data back into the
// state, the ODE bodies marked to be placed there (hsd_jsPlaceBodies)
static void endCharacter(hsdWorld *w, int ci) {
  hsdCharacter *c = &w->chars[ci];
  const hsBody *b = c->body;
  const hsdJsModel *m = c->jsm;
  hsdJsData *d = c->jsd;
  hsBodyState *st = c->state;
  int n = b->nlink;
  double h0[6], c0[3];
  int flight = inFlight(w, ci);
  if (flight) {
    hsd_jsMomentum(m, d, h0);  // (the step's start: the velocity phase's)
    memcpy(c0, d->c, sizeof c0);
  }
  if (w->opt.integrator == hsINTEGRATE_RUNGE_KUTTA) {
    hsd_jsRungeKutta(w, ci);  // (dynamics_jsrk4.c)
  } else {
    hsd_jsIntegrate(m, d, w->dt);
  }
  landPrescribed(w, ci);  // (prescribed joints on their commanded angles)
  if (d->badPivots > 0) {
    hsd_warn(w, hsdWARN_SINGULAR,
             "character %s: its joint-space mass matrix is singular (a joint moves no mass and "
             "no rotor inertia); %d pivot%s raised to 1e-12 at step %ld",
             c->name, d->badPivots, d->badPivots == 1 ? "" : "s", w->steps + 1);
  }
  if (!saneData(m, d)) {
    hsd_recover(w, ci, "after");
    return;
  }
  // the data back into the state
  memcpy(st->rootP, d->st->rootP, sizeof st->rootP);
  memcpy(st->rootR, d->st->rootR, sizeof st->rootR);
  for (int j = m->nroot; j < m->nv; j++) {
    int k = m->dofLink[j];
    st->q[k] = d->st->q[k];
    st->dq[k] = d->qvel[j];
    st->ddq[k] = d->qacc[j];
    st->u[k] = d->given[j] ? d->qfrcGiven[j] : c->in.u[k];
  }
  hsm_forwardKinematics(b, st);
  hsdLinkMotion *m0 = &c->motion[0];
  for (int k = 0; k < 3; k++) {
    m0->v[k] = m->nroot ? d->qvel[k] : 0;
    m0->w[k] = m->nroot ? d->qvel[3 + k] : 0;
  }
  for (int k = 1; k < n; k++) {
    const hsdLinkMotion *pm = &c->motion[b->links[k].parent];
    double dq = m->linkDof[k] >= 0 ? st->dq[k] : 0;
    hsd_childVelocity(b, st, k, pm->v, pm->w, dq, c->motion[k].v, c->motion[k].w);
  }
  if (flight) {
    conserveMomentum(w, ci, h0, c0);
  }
  hsd_jsPlaceBodies(w, ci);
}

void hsd_jsBegin(hsdWorld *w, int ci) {
  beginCharacter(w, ci);
}

int hsd_jsStepWorld(hsdWorld *w, hsError *err) {
  if (refuse(w, err) < 0) {
    return hsE_INVALID;
  }
  w->runaway = 0;
  w->ncontact = w->ngroup = 0;
  for (int ci = 0; ci < w->nchar; ci++) {
    hsd_jsPrepare(w, ci);
  }
  hsd_prepareSleep(w);  // (dynamics_sleep.c: wakes the commanded, pushed, teleported)
  for (int ci = 0; ci < w->nchar; ci++) {
    if (!w->chars[ci].still && !hsd_jsAsleep(w, ci)) {
      beginCharacter(w, ci);
    }
  }
  if (w->npair > 0 || w->nloop > 0 ||
      (w->opt.jointLimits & (hsLIMIT_POSITION | hsLIMIT_VELOCITY))) {
    hsd_jsContacts(w);  // (dynamics_jscontact.c) at the step's start poses, with the joints'
                        // limit and motor rows and the loops'
  }
  for (int ci = 0; ci < w->nchar; ci++) {
    if (!w->chars[ci].still && !hsd_jsAsleep(w, ci)) {
      endCharacter(w, ci);
    }
  }
  if (w->nloop > 0) {
    hsd_jsCloseLoops(w);  // (dynamics_loops.c) the loops closed again after the integration
  }
  for (int ci = 0; ci < w->nchar; ci++) {
    hsd_jsFinish(w, ci);
  }
  hsd_jsSleepAfter(w);
  for (int ci = 0; ci < w->nchar; ci++) {
    w->chars[ci].resynced = 0;  // (read by the sleep rules of the next step)
  }
  w->time += w->dt;
  w->steps++;
  if (w->runaway) {
    char text[512];
    hsd_runawayMessage(text, sizeof text, w->chars[w->runaway - 1].name, w->runawayWhen,
                       w->steps);
    return HS_ERR(err, hsE_RUNAWAY, "%s", text);
  }
  return 0;
}
