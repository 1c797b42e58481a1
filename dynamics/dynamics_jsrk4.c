// dynamics_jsrk4.c - the joint-space engine's fourth-order Runge-Kutta step (hsdOptions.integrator
// = hsINTEGRATE_RUNGE_KUTTA; OpenHRP's RUNGE_KUTTA IntegrateMethod).
//
// As OpenHRP's AIST engine (ForwardDynamicsMM): the step's constraint forces are found once, at
// the step's start, and held; the smooth dynamics are integrated by the classical RK4 over the
// step with them. Here the constraint forces come out of the semi-implicit Euler step that
// dynamics_jsstep.c has already made up to its end velocity (hsd_jsStepVelocity, then the
// contact solve hsd_jsContacts with the limit, motor, loop and track rows): that step changed
// the velocity by dt a_s (the smooth acceleration, damping implicit) plus the constraints'
// impulse's M^-1 p. Its generalized impulse p = (M + dt B) (v_end - v0) - dt M a_s (a_s the
// explicit smooth acceleration at the start: (M + dt B) a_imp = M a_s, both equal to the smooth
// force) is held as the generalized force p / dt in every stage.
// The stages: the classical tableau over (root position, root orientation, joint angles,
// velocities); a free root's orientation as the unit quaternion of its turn since the step's
// start (qdot = (0, w) q / 2, w in world axes; a stage's rotation that of its quaternion
// normalized, the end's renormalized), the end rotation then applied to the start's matrix (a
// root that does not turn keeps its bits).
// A given dof (a high-gain joint, a position-given root) moves with its given acceleration in
// the stages (the rest of the character responds to it) and ends the step exactly where the
// Euler step puts it: at its commanded velocity, its position advanced by dt times that (its
// commands followed as on EULER); its reported torque is the Euler step's inverse dynamics.
// Cost: four evaluations of the forward dynamics (position, velocity, acceleration phases) per
// character, the first without forward kinematics (the start's link poses are current).

#include <math.h>
#include <string.h>

#include "dynamics_private.h"

// q = a * b for quaternions (w, x, y, z)
static void quatMul(double q[4], const double a[4], const double b[4]) {
  q[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  q[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  q[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  q[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}

// q scaled to unit length (left alone when it has none)
static void quatNormalize(double q[4]) {
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int k = 0; k < 4 && n > 0; k++) {
    q[k] /= n;
  }
}

// the rotation matrix of the unit quaternion q
static void quatToMat(double R[9], const double q[4]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  R[0] = 1 - 2 * (y * y + z * z);
  R[1] = 2 * (x * y - w * z);
  R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z);
  R[4] = 1 - 2 * (x * x + z * z);
  R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y);
  R[7] = 2 * (y * z + w * x);
  R[8] = 1 - 2 * (x * x + y * y);
}

// qd = dq/dt of the orientation quaternion q turning at w (world axes): (0, w) * q / 2
static void quatRate(double qd[4], const double q[4], const double w[3]) {
  double wq[4] = {0, w[0], w[1], w[2]};
  quatMul(qd, wq, q);
  for (int k = 0; k < 4; k++) {
    qd[k] *= 0.5;
  }
}

// R = E R0 with E the unit quaternion e's rotation, then one Newton step of the polar
// decomposition (R (3 I - R^T R) / 2) so that round-off never lets R drift off SO(3)
static void turnRoot(double R[9], const double R0[9], const double e[4]) {
  double E[9], Rn[9], Rt[9], RtR[9], K[9];
  if (e[1] == 0 && e[2] == 0 && e[3] == 0) {
    memcpy(R, R0, 9 * sizeof *R);
    return;
  }
  quatToMat(E, e);
  hsu_mulMat(Rn, E, R0);
  hsu_transpose(Rt, Rn);
  hsu_mulMat(RtR, Rt, Rn);
  for (int k = 0; k < 9; k++) {
    K[k] = ((k % 4 == 0) ? 1.5 : 0) - 0.5 * RtR[k];
  }
  hsu_mulMat(R, Rn, K);
}

// the scratch of one character's step: per dof nv doubles each
typedef struct Rk4Work {
  double *x0;    // start positions: the root's origin (dofs 0-2), the joints' angles
  double *v0;    // start velocities
  double *vEnd;  // the Euler step's end velocity (contacts included)
  double *fc;    // the held constraint force p / dt
  double *x;     // a stage's positions
  double *v[4];  // the stages' velocities
  double *a[4];  // ... and accelerations
  double *tmp;   // scratch of the solves
  double *qfrc;  // the step's applied generalized forces (hsd_jsStepWorld's)
  double *qfrcGiven;  // the Euler step's given dofs' forces (their reported torques)
  double *cdof;  // the start pose's motion subspaces (6 per dof), centre of mass (c) and
  double *LD;    // factors (nv x nv): what the rest of the step reads after the integration
  double c[3];   // (landPrescribed's link velocities, the loops' metric) is the start's, as
                 // on EULER
} Rk4Work;

// doubles Rk4Work takes for nv dofs
#define RK4_DOUBLES(nv) ((size_t)(nv) * (16 + 6) + (size_t)(nv) * (size_t)(nv))

static void splitWork(Rk4Work *k, double *buf, int nv) {
  double **fields[] = {&k->x0, &k->v0, &k->vEnd, &k->fc, &k->x, &k->v[0], &k->v[1], &k->v[2],
                       &k->v[3], &k->a[0], &k->a[1], &k->a[2], &k->a[3], &k->tmp, &k->qfrc,
                       &k->qfrcGiven};
  size_t n = sizeof fields / sizeof fields[0];
  for (size_t i = 0; i < n; i++) {
    *fields[i] = buf + i * (size_t)nv;
  }
  k->cdof = buf + n * (size_t)nv;
  k->LD = k->cdof + 6 * (size_t)nv;
}

// d's state set to positions x (root origin in x[0..2]) with the root turned by e from R0, and
// velocities v; then the dynamics evaluated there with the applied forces qfrc + fc: a = qacc
static void evaluate(const hsdJsModel *m, hsdJsData *d, const double *x, const double R0[9],
                     const double e[4], const double *v, const Rk4Work *k, double *a) {
  hsBodyState *st = d->st;
  if (m->nroot) {
    double eu[4] = {e[0], e[1], e[2], e[3]};
    quatNormalize(eu);
    memcpy(st->rootP, x, 3 * sizeof *x);
    turnRoot(st->rootR, R0, eu);
  }
  for (int j = m->nroot; j < m->nv; j++) {
    st->q[m->dofLink[j]] = x[j];
  }
  memcpy(d->qvel, v, (size_t)m->nv * sizeof *v);
  d->posesCurrent = 0;
  hsd_jsPosition(m, d);
  hsd_jsVelocity(m, d);
  for (int j = 0; j < m->nv; j++) {
    d->qfrc[j] = k->qfrc[j] + k->fc[j];
  }
  hsd_jsAcceleration(m, d, 0);
  memcpy(a, d->qacc, (size_t)m->nv * sizeof *a);
}

// the first stage at the start state (d's link poses are still the start's): its position and
// velocity phases again (the Euler step may have skipped parts of them: a character whose
// joints are all given takes a shortcut without the whole mass matrix), the explicit smooth
// acceleration a_s, the held force fc from the Euler step's end velocity, and the first stage's
// acceleration a_s + M^-1 fc
static void firstStage(const hsdJsModel *m, hsdJsData *d, double dt, Rk4Work *k) {
  int nv = m->nv;
  double *as = k->tmp, *a1 = k->a[0];
  memcpy(d->qvel, k->v0, (size_t)nv * sizeof *d->qvel);
  d->posesCurrent = 1;
  hsd_jsPosition(m, d);
  hsd_jsVelocity(m, d);
  hsd_jsAcceleration(m, d, 0);  // (M factored alone: the stages' damping is explicit)
  memcpy(as, d->qacc, (size_t)nv * sizeof *as);
  // u: the Euler step's mean acceleration (a given dof's: its given one, no impulse);
  // fc = M (u - a_s) + B u (M's tree entries: a dof and its ancestors)
  double *du = k->x;  // (free until the stages)
  for (int j = 0; j < nv; j++) {
    double u = d->given[j] ? as[j] : (k->vEnd[j] - k->v0[j]) / dt;
    du[j] = u - as[j];
    k->fc[j] = m->damping[j] * dt * u;
  }
  for (int j = 0; j < nv; j++) {
    k->fc[j] += d->M[(size_t)j * nv + j] * du[j];
    for (int i = m->dofParent[j]; i >= 0; i = m->dofParent[i]) {
      double Mji = d->M[(size_t)j * nv + i];
      k->fc[j] += Mji * du[i];
      k->fc[i] += Mji * du[j];
    }
  }
  // a1 = a_s + M^-1 fc over the free dofs (the given keep theirs)
  memcpy(a1, k->fc, (size_t)nv * sizeof *a1);
  hsd_jsSolveM(m, d, a1);
  for (int j = 0; j < nv; j++) {
    a1[j] = d->given[j] ? as[j] : as[j] + a1[j];
  }
  memcpy(k->v[0], k->v0, (size_t)nv * sizeof *k->v0);
}

// the stage positions x0 + h v into k->x; the root's turn e = 1 + h ed (the classical tableau
// on the quaternion's four numbers, whose exact solution keeps its unit length: the stage's
// rotation is that of e normalized, evaluate's)
static void stagePositions(const hsdJsModel *m, const Rk4Work *k, double h, const double *v,
                           const double ed[4], double e[4]) {
  for (int j = 0; j < m->nv; j++) {
    k->x[j] = k->x0[j] + h * v[j];
  }
  e[0] = 1 + h * ed[0];
  for (int q = 1; q < 4; q++) {
    e[q] = h * ed[q];
  }
}

void hsd_jsRungeKutta(hsdWorld *w, int ci) {
  hsdCharacter *c = &w->chars[ci];
  const hsdJsModel *m = c->jsm;
  hsdJsData *d = c->jsd;
  hsBodyState *st = d->st;
  int nv = m->nv;
  double dt = w->dt, *buf = hsu_malloc(RK4_DOUBLES(nv) * sizeof *buf);
  if (!buf) {
    hsu_log(hsLOG_WARNING, "character %s: out of memory for RUNGE_KUTTA's stages; an Euler "
            "step instead at step %ld", c->name, w->steps + 1);
    hsd_jsIntegrate(m, d, dt);
    return;
  }
  Rk4Work k;
  splitWork(&k, buf, nv);
  // the start (the state hsd_jsStepWorld read in: the character's state, untouched so far)
  double R0[9];
  memcpy(R0, st->rootR, sizeof R0);
  for (int j = 0; j < nv; j++) {
    int i = m->dofLink[j];
    k.x0[j] = j < 3 && m->nroot ? st->rootP[j] : j < m->nroot ? 0 : st->q[i];
    k.v0[j] = j >= m->nroot ? c->state->dq[i]
              : j < 3      ? c->motion[0].v[j]
                           : c->motion[0].w[j - 3];
  }
  memcpy(k.vEnd, d->qvel, (size_t)nv * sizeof *k.vEnd);
  memcpy(k.qfrc, d->qfrc, (size_t)nv * sizeof *k.qfrc);
  memcpy(k.qfrcGiven, d->qfrcGiven, (size_t)nv * sizeof *k.qfrcGiven);
  memcpy(k.cdof, d->cdof, 6 * (size_t)nv * sizeof *k.cdof);
  memcpy(k.LD, d->LD, (size_t)nv * (size_t)nv * sizeof *k.LD);
  memcpy(k.c, d->c, sizeof k.c);
  firstStage(m, d, dt, &k);
  // stages 2-4: positions x0 + c h v_{i-1}, velocities v0 + c h a_{i-1}, c = 1/2, 1/2, 1
  static const double frac[4] = {0, 0.5, 0.5, 1};
  double ed[4][4] = {{0}}, e[4] = {1, 0, 0, 0};
  if (m->nroot) {
    quatRate(ed[0], e, k.v[0] + 3);
  }
  for (int s = 1; s < 4; s++) {
    double h = frac[s] * dt;
    stagePositions(m, &k, h, k.v[s - 1], ed[s - 1], e);
    for (int j = 0; j < nv; j++) {
      k.v[s][j] = k.v0[j] + h * k.a[s - 1][j];
    }
    if (m->nroot) {
      quatRate(ed[s], e, k.v[s] + 3);
    }
    evaluate(m, d, k.x, R0, e, k.v[s], &k, k.a[s]);
  }
  // the end: the weighted means; a given dof as the Euler step ends it
  for (int j = 0; j < nv; j++) {
    double vm = (k.v[0][j] + 2 * k.v[1][j] + 2 * k.v[2][j] + k.v[3][j]) / 6;
    double am = (k.a[0][j] + 2 * k.a[1][j] + 2 * k.a[2][j] + k.a[3][j]) / 6;
    if (d->given[j]) {
      k.x[j] = k.x0[j] + dt * k.vEnd[j];
      d->qvel[j] = k.vEnd[j];
      d->qacc[j] = (k.vEnd[j] - k.v0[j]) / dt;
    } else {
      k.x[j] = k.x0[j] + dt * vm;
      d->qvel[j] = k.v0[j] + dt * am;
      d->qacc[j] = am;
    }
  }
  if (m->nroot) {
    memcpy(st->rootP, k.x, 3 * sizeof *k.x);
    memcpy(st->rootR, R0, sizeof R0);
    if (d->given[3]) {
      // a position-given root turns at its end velocity, as the Euler step turns it
      double aa[4] = {k.vEnd[3], k.vEnd[4], k.vEnd[5], dt * hsu_norm(k.vEnd + 3)};
      double wn = aa[3] / dt;
      e[0] = cos(aa[3] / 2);
      for (int q = 0; q < 3; q++) {
        e[1 + q] = wn > 0 ? sin(aa[3] / 2) * aa[q] / wn : 0;
      }
    } else {
      for (int q = 0; q < 4; q++) {
        e[q] = (q == 0 ? 1 : 0) + dt * (ed[0][q] + 2 * ed[1][q] + 2 * ed[2][q] + ed[3][q]) / 6;
      }
      quatNormalize(e);
    }
    turnRoot(st->rootR, R0, e);
  }
  for (int j = m->nroot; j < nv; j++) {
    int i = m->dofLink[j];
    st->q[i] = k.x[j];
    st->dq[i] = d->qvel[j];
    st->ddq[i] = d->qacc[j];
  }
  memcpy(d->qfrc, k.qfrc, (size_t)nv * sizeof *k.qfrc);
  memcpy(d->qfrcGiven, k.qfrcGiven, (size_t)nv * sizeof *k.qfrcGiven);
  memcpy(d->cdof, k.cdof, 6 * (size_t)nv * sizeof *k.cdof);
  memcpy(d->LD, k.LD, (size_t)nv * (size_t)nv * sizeof *k.LD);
  memcpy(d->c, k.c, sizeof k.c);
  d->posesCurrent = 0;  // (st's link poses are the last stage's)
  hsu_free(buf);
}
