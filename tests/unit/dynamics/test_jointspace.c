// test_jointspace.c - the joint-space engine (dynamics_jointspace.c) against closed forms and
// independent references: rotor inertia as OpenHRP's armature, a pendulum's period, a double
// pendulum's energy, a free body's momenta, a free rigid body's closed form against the general
// path, a slide joint under gravity, damping's decay, and the sample humanoid's mass matrix, bias
// forces and momenta, and its factors of M bit for bit the dense LTDL's.

#include "dyn_helpers.h"

//---------------------------------- helpers ---------------------------------------------------

typedef struct jsRig {
  hsBody *body;
  hsdJsModel *m;
  hsdJsData *d;
} jsRig;

// model and data for body (NULL fails the test)
static jsRig jsMake(hsBody *body) {
  jsRig r = {body, NULL, NULL};
  CU_ASSERT_PTR_NOT_NULL_FATAL(body);
  hsError err = {0};
  r.m = hsd_makeJsModel(body, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r.m);
  r.d = hsd_makeJsData(r.m, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r.d);
  return r;
}

static void jsFree(jsRig *r) {
  hsd_freeJsData(r->d);
  hsd_freeJsModel(r->m);
  hsm_freeBody(r->body);
}

// a deterministic pseudo-random number in [-1, 1)
static double jsRand(unsigned *s) {
  *s = *s * 1664525u + 1013904223u;
  return (double)(*s >> 8) / (double)(1u << 23) - 1;
}

// a fixed base at height 2 with one or two rotary links about y (as test_motion.c's chain):
// link i hangs 0.5 m below its joint (com), 1 kg, inertia diag(0.01, 0.01, 0.001) about the
// com; the first joint with rotor inertia ir and gear ratio gr
static hsBody *jsChain(const char *file, int nlink, double q0, double q1, double ir, double gr) {
  char text[4096];
  const char *seg =
      "Segment { mass 1 centerOfMass 0 0 -0.5 momentsOfInertia [0.01 0 0 0 0.01 0 0 0 0.001] }";
  char second[1024] = "";
  if (nlink == 2) {
    snprintf(second, sizeof second,
             "DEF L2 Joint { jointType \"rotate\" jointId 1 jointAxis 0 1 0 translation 0 0 -1 "
             "jointValue %.17g children [ %s ] }",
             q1, seg);
  }
  snprintf(text, sizeof text,
           "DEF P Humanoid { humanoidBody [ DEF BASE Joint { jointType \"fixed\" translation 0 "
           "0 2 children [\n DEF L1 Joint { jointType \"rotate\" jointId 0 jointAxis 0 1 0 "
           "jointValue %.17g rotorInertia %.17g gearRatio %.17g children [ %s\n %s ] } ] } ]\n"
           " joints [ USE BASE USE L1 %s ] }\n",
           q0, ir, gr, seg, second, nlink == 2 ? "USE L2" : "");
  return dynLoadText(file, text);
}

//---------------------------------- armature --------------------------------------------------

// a free base (m1, inertia diag(0.1, 0.2, i1) about its com at its origin) and an arm on a
// rotate joint about z at the base origin (m2, com (d, 0, 0), inertia diag(0.01, 0.05, i2)),
// rotor inertia ir, gear ratio gr
static hsBody *jsTwoLink(const char *file, double m1, double i1, double m2, double i2, double d,
                         double ir, double gr) {
  char text[4096];
  snprintf(text, sizeof text,
           "DEF TWO Humanoid { humanoidBody [ DEF BASE Joint { jointType \"free\" children [\n"
           " Segment { mass %.17g momentsOfInertia [0.1 0 0 0 0.2 0 0 0 %.17g] }\n"
           " DEF ARM Joint { jointType \"rotate\" jointId 0 jointAxis 0 0 1 rotorInertia %.17g\n"
           "  gearRatio %.17g children [ Segment { mass %.17g centerOfMass %.17g 0 0\n"
           "  momentsOfInertia [0.01 0 0 0 0.05 0 0 0 %.17g] } ] } ] } ]\n"
           " joints [ USE BASE USE ARM ] }\n",
           m1, i1, ir, gr, m2, d, i2);
  return dynLoadText(file, text);
}

// 1 N m on the joint of a floating two-link body at rest in zero gravity. Lagrange's equations
// in (base origin velocity, base angular velocity, joint rate), OpenHRP's armature Ia = Ir g^2
// on the joint's own diagonal: with m = m1 + m2, e = m2 d, J = i2 + m2 d^2, A = i1 + J, the
// plane block [[m, e, e], [e, A, J], [e, J, J + Ia]] (vy, wz, dq) times the accelerations is
// (0, 0, 1); by Cramer's rule, D its determinant: ddq = (m A - e^2) / D, dwz = (e^2 - m J) / D,
// the base origin's ay = -e i1 / D, every other acceleration 0. To 1e-9 (round-off only).
static void checkArmature(double d, double ir, double gr) {
  const double m1 = 3, i1 = 0.3, m2 = 2, i2 = 0.06;
  jsRig r = jsMake(jsTwoLink("js_two.wrl", m1, i1, m2, i2, d, ir, gr));
  CU_ASSERT_EQUAL(r.m->nv, 7);
  HST_NEAR(r.m->armature[6], ir * gr * gr, 1e-15);
  memset(r.d->g, 0, sizeof r.d->g);
  r.d->qfrc[6] = 1;
  hsd_jsForward(r.m, r.d);
  double m = m1 + m2, e = m2 * d, J = i2 + m2 * d * d, A = i1 + J, Ia = ir * gr * gr;
  double D = m * (A * (J + Ia) - J * J) - e * e * Ia + e * e * (J - A);
  double want[7] = {0, -e * i1 / D, 0, 0, 0, (e * e - m * J) / D, (m * A - e * e) / D};
  double worst = 0;
  for (int j = 0; j < 7; j++) {
    worst = fmax(worst, fabs(r.d->qacc[j] - want[j]));
  }
  fprintf(stderr, " [d %g Ia %g: ddq %.12g dwz %.12g, error %.2g] ", d, Ia, r.d->qacc[6],
          r.d->qacc[5], worst);
  CU_ASSERT(worst < 1e-9);
  CU_ASSERT_EQUAL(r.d->badPivots, 0);
  // one step from rest: the velocities are dt times those accelerations
  hsd_jsStep(r.m, r.d, 0.001);
  HST_NEAR(r.d->qvel[6], 0.001 * want[6], 1e-12);
  HST_NEAR(r.d->qvel[5], 0.001 * want[5], 1e-12);
  jsFree(&r);
}

static void testArmature(void) {
  checkArmature(0, 1e-4, 50);    // arm's com on the axis: ddq = 1 / (Ia + i1 J / A)
  checkArmature(0, 0, 50);       // the same without rotor inertia
  checkArmature(0.4, 1e-4, 50);  // the arm's com off the axis: the base translates too
  checkArmature(0.4, 0, 1);
}

// the armature's effective inertia on a fixed base: 1 N m on a joint whose link (i about the
// axis) hangs from a fixed base gives ddq = 1 / (i + Ir g^2) exactly
static void testArmatureFixedBase(void) {
  jsRig r = jsMake(jsChain("js_fixed.wrl", 1, 0, 0, 0.001, 10));
  memset(r.d->g, 0, sizeof r.d->g);
  r.d->qfrc[0] = 1;
  hsd_jsForward(r.m, r.d);
  HST_NEAR(r.d->qacc[0], 1 / (0.01 + 0.25 + 0.1), 1e-12);
  jsFree(&r);
}

//---------------------------------- pendulums -------------------------------------------------

// a pendulum (1 kg, com 0.5 m below the joint, 0.01 kg m^2 about it, armature 0.1) released at
// 1e-3 rad: the period is 2 pi sqrt(I / (m g l)), I = 0.01 + 0.25 + 0.1 about the joint.
// Tolerance 2e-6 relative: the amplitude's correction theta0^2 / 16 = 6e-8, semi-implicit
// Euler's frequency error w^2 dt^2 / 24 = 6e-7 (w = 3.7 rad/s, dt = 1 ms), the zero crossings
// interpolated linearly (error O(dt^3))
static void testPendulumPeriod(void) {
  jsRig r = jsMake(jsChain("js_pendulum.wrl", 1, 1e-3, 0, 0.001, 10));
  const double dt = 0.001, I = 0.36, T = 2 * M_PI * sqrt(I / (9.8 * 0.5));
  double prev = r.d->st->q[1], first = -1, last = -1;
  int crossings = 0;
  for (int n = 1; n <= 12000; n++) {
    hsd_jsStep(r.m, r.d, dt);
    double q = r.d->st->q[1];
    if (prev > 0 && q <= 0) {  // downward crossings, one per period
      double t = (n - 1 + prev / (prev - q)) * dt;
      if (first < 0) {
        first = t;
      } else {
        last = t;
        crossings++;
      }
    }
    prev = q;
  }
  CU_ASSERT_FATAL(crossings >= 5);
  double period = (last - first) / crossings;
  fprintf(stderr, " [period %.9f s, closed form %.9f s, %d periods] ", period, T, crossings);
  CU_ASSERT(fabs(period - T) / T < 2e-6);
  jsFree(&r);
}

// the largest |E - E0| of a double pendulum released at (1, 0.5) rad over 5 s at step dt, and
// the largest |dV/dt - qdot' dM/dt qdot / 2| seen (dV/dt and dM/dt by differences over a step)
static double doublePendulumDrift(double dt, double *maxRate) {
  jsRig r = jsMake(jsChain("js_double.wrl", 2, 1.0, 0.5, 0, 1));
  double e[2], e0, worst = 0, vPrev, tPrev, qv[2];
  *maxRate = 0;
  hsd_jsPosition(r.m, r.d);
  hsd_jsEnergy(r.m, r.d, e);
  e0 = e[0] + e[1];
  vPrev = e[1];
  int steps = (int)lround(5 / dt);
  for (int n = 0; n < steps; n++) {
    memcpy(qv, r.d->qvel, sizeof qv);
    hsd_jsEnergy(r.m, r.d, e);
    tPrev = e[0];  // qdot_n' M_n qdot_n / 2
    hsd_jsStep(r.m, r.d, dt);
    hsd_jsPosition(r.m, r.d);
    double qNew[2];
    memcpy(qNew, r.d->qvel, sizeof qNew);
    memcpy(r.d->qvel, qv, sizeof qv);
    hsd_jsEnergy(r.m, r.d, e);  // qdot_n' M_n+1 qdot_n / 2
    double kineticRate = (e[0] - tPrev) / dt;
    memcpy(r.d->qvel, qNew, sizeof qNew);
    hsd_jsEnergy(r.m, r.d, e);
    worst = fmax(worst, fabs(e[0] + e[1] - e0));
    *maxRate = fmax(*maxRate, fabs((e[1] - vPrev) / dt - kineticRate));
    vPrev = e[1];
  }
  jsFree(&r);
  return worst;
}

// semi-implicit Euler in velocity form is first order and, with a mass matrix that depends on
// q, not symplectic: the energy's error is not bounded by a modified energy but grows at most
// linearly, each unit of time adding at most dt times the rate at which energy moves between
// its forms, g = dV/dt - qdot' dM/dt qdot / 2 (the first-order term a symplectic step would
// keep bounded). So |E - E0| <= dt T max |g| over T = 5 s (observed: 0.55 of it), and halving
// dt halves the error (ratio within [1.6, 2.5]): a missing or wrong force would leave an error
// that does not shrink with dt (measured: 0.096 J of m g l = 9.8 J at 1 ms; ODE's engine,
// test_motion.c, about 0.1 % over 10 s with its constraint stabilisation)
static void testDoublePendulumEnergy(void) {
  double p1, p2;
  double e1 = doublePendulumDrift(1e-3, &p1), e2 = doublePendulumDrift(5e-4, &p2);
  fprintf(stderr, " [|dE| %.3g J at 1 ms (bound %.3g), %.3g J at 0.5 ms (%.3g)] ", e1,
          1e-3 * 5 * p1, e2, 5e-4 * 5 * p2);
  CU_ASSERT(e1 < 1e-3 * 5 * p1);
  CU_ASSERT(e2 < 5e-4 * 5 * p2);
  CU_ASSERT(e1 / e2 > 1.6 && e1 / e2 < 2.5);
}

//---------------------------------- free body ------------------------------------------------

// linear momentum and angular momentum about the com of a free one-link body
static void freeMomenta(const jsRig *r, double P[3], double L[3]) {
  const hsLink *l = &r->body->links[0];
  const hsBodyState *st = r->d->st;
  const double *v = r->d->qvel, *w = r->d->qvel + 3;
  double rc[3], wxr[3], RI[9], Rt[9], Iw[9];
  hsu_rotVec(rc, st->rootR, l->com);
  hsu_cross(wxr, w, rc);
  for (int k = 0; k < 3; k++) {
    P[k] = l->mass * (v[k] + wxr[k]);
  }
  hsu_mulMat(RI, st->rootR, l->inertia);
  hsu_transpose(Rt, st->rootR);
  hsu_mulMat(Iw, RI, Rt);
  hsu_rotVec(L, Iw, w);
}

// the largest relative change of P and L of a spinning box (com off its origin) over 2 s at dt
static void freeBodyDrift(double dt, double *dP, double *dL) {
  jsRig r = jsMake(dynBox("js_free.wrl", 2, 0.1, 0.3, 0.6, 0.05, -0.03, 0.02, NULL));
  memset(r.d->g, 0, sizeof r.d->g);
  double v0[6] = {0.3, -0.1, 0.2, 1.0, 0.2, 3.0};  // near the middle axis: it tumbles
  memcpy(r.d->qvel, v0, sizeof v0);
  double P0[3], L0[3], P[3], L[3];
  freeMomenta(&r, P0, L0);
  *dP = *dL = 0;
  for (int n = 0; n < (int)lround(2 / dt); n++) {
    hsd_jsStep(r.m, r.d, dt);
    freeMomenta(&r, P, L);
    for (int k = 0; k < 3; k++) {
      *dP = fmax(*dP, fabs(P[k] - P0[k]) / hsu_norm(P0));
      *dL = fmax(*dL, fabs(L[k] - L0[k]) / hsu_norm(L0));
    }
  }
  // the orientation stays a rotation
  const double *R = r.d->st->rootR;
  double Rt[9], RtR[9];
  hsu_transpose(Rt, R);
  hsu_mulMat(RtR, Rt, R);
  for (int k = 0; k < 9; k++) {
    HST_NEAR(RtR[k], k % 4 == 0 ? 1 : 0, 1e-14);
  }
  jsFree(&r);
}

// torque-free precession: the dynamics conserve P and L (about the com) exactly; the
// semi-implicit step loses them at O(dt^2) per step (the first-order terms of I(t) w cancel):
// each step changes them by at most about (|w| dt)^2 / 2 relative, so over T = 2 s the change
// stays below dt |w|^2 T / 2 = 0.01 (|w| = 3.2 rad/s; observed 1e-3 and 2.9e-3), and it is
// first order: halved with dt (ratio within [1.6, 2.5]). The orientation stays orthonormal to
// 1e-14.
static void testFreeBodyPrecession(void) {
  double p1, l1, p2, l2;
  freeBodyDrift(1e-3, &p1, &l1);
  freeBodyDrift(5e-4, &p2, &l2);
  fprintf(stderr, " [relative dP %.3g, dL %.3g at 1 ms; %.3g, %.3g at 0.5 ms] ", p1, l1, p2, l2);
  CU_ASSERT(p1 < 0.01 && l1 < 0.01);
  CU_ASSERT(p1 / p2 > 1.6 && p1 / p2 < 2.5);
  CU_ASSERT(l1 / l2 > 1.6 && l1 / l2 < 2.5);
}

// a box with its com on its origin: no force gives no acceleration of the origin, so the
// linear momentum is exact (1e-13) whatever the spin
static void testFreeBodyMomentumExact(void) {
  jsRig r = jsMake(dynBox("js_free0.wrl", 2, 0.1, 0.3, 0.6, 0, 0, 0, NULL));
  memset(r.d->g, 0, sizeof r.d->g);
  double v0[6] = {0.3, -0.1, 0.2, 1.0, 0.2, 3.0};
  memcpy(r.d->qvel, v0, sizeof v0);
  for (int n = 0; n < 2000; n++) {
    hsd_jsStep(r.m, r.d, 1e-3);
  }
  for (int k = 0; k < 3; k++) {
    HST_NEAR(r.d->qvel[k], v0[k], 1e-13);
    HST_NEAR(r.d->st->rootP[k], 2 * v0[k], 1e-12);
  }
  jsFree(&r);
}

//---------------------------------- free rigid body: the closed form --------------------------

// a tumbling box whose centre of mass is off its origin, with a link welded to it by a fixed
// joint (welded: still one rigid body, 6 dofs), under gravity, an external force and torque on
// each link and forces on the root's dofs: its state set (a pose off the axes, a spin). With
// tiny set, the box alone, its centre of mass on its origin and almost no rotational inertia
// (1e-14 kg m^2: pivots below JS_MIN_PIVOT)
static jsRig rigidTumbler(int tiny) {
  char text[4096];
  snprintf(text, sizeof text,
           "DEF TUMBLER Humanoid { humanoidBody [\n"
           " DEF BOX Joint { jointType \"free\" children [\n"
           "  Segment { mass 2 centerOfMass %s momentsOfInertia [%s] }\n"
           "  DEF WELD Joint { jointType \"fixed\" translation 0.2 -0.1 0.05 rotation 0 0 1 0.4\n"
           "   children [ Segment { mass %s centerOfMass 0.03 0.1 -0.02\n"
           "    momentsOfInertia [%s] } ] } ] } ]\n"
           " joints [ USE BOX USE WELD ] }\n",
           tiny ? "0 0 0" : "0.05 -0.03 0.08",
           tiny ? "1e-14 0 0 0 1e-14 0 0 0 1e-14" : "0.075 0 0 0 0.062 0 0 0 0.017",
           tiny ? "0" : "0.7",
           tiny ? "1e-14 0 0 0 1e-14 0 0 0 1e-14" : "0.004 0.001 0 0.001 0.006 0 0 0 0.005");
  jsRig r = jsMake(dynLoadText(tiny ? "js_rigid0.wrl" : "js_rigid.wrl", text));
  CU_ASSERT_EQUAL_FATAL(r.m->nv, 6);
  CU_ASSERT_EQUAL_FATAL(r.body->nlink, 2);
  double aa[4] = {0.3, -0.5, 0.8, 0.7};
  hsu_axisAngleToMat(r.d->st->rootR, aa);
  r.d->st->rootP[0] = 0.4;
  r.d->st->rootP[2] = 1.1;
  double v0[6] = {0.3, -0.1, 0.2, 1.0, -2.0, 3.0}, q0[6] = {1.5, -0.7, 2.0, 0.3, -0.2, 0.1};
  double x0[12] = {3, -2, 5, 0.4, -0.1, 0.3, -1, 0.5, 2, 0.05, 0.2, -0.15};
  memcpy(r.d->qvel, v0, sizeof v0);
  memcpy(r.d->qfrc, q0, sizeof q0);
  memcpy(r.d->xfrc, x0, sizeof x0);
  return r;
}

// the general path's step (hsd_jsStepVelocity's, written out: the three phases, no damping)
static void generalStep(jsRig *r, double dt) {
  hsd_jsPosition(r->m, r->d);
  hsd_jsVelocity(r->m, r->d);
  hsd_jsAcceleration(r->m, r->d, 0);
  for (int j = 0; j < 6; j++) {
    r->d->qvel[j] += dt * r->d->qacc[j];
  }
  hsd_jsIntegrate(r->m, r->d, dt);
}

// the largest |a - b| over n numbers against the largest |b|, into *err and *scale
static void rigidDiff(const double *a, const double *b, int n, double *err, double *scale) {
  for (int k = 0; k < n; k++) {
    *err = fmax(*err, fabs(a[k] - b[k]));
    *scale = fmax(*scale, fabs(b[k]));
  }
}

// the closed form (givenPath 3) against the general path (CRBA, Newton-Euler bias, LTDL): the
// same equations, other round-off. The first step's accelerations agree to 1e-12 relative
// (observed ~1e-16: a few ulps of each), and 1,000 steps of 1 ms of the tumbling box (each
// path on its own state: round-off compounds through the rotation) keep the position, the
// orientation and the velocities within 1e-12 relative of each other
static void testRigidClosedForm(void) {
  jsRig a = rigidTumbler(0), g = rigidTumbler(0);
  const double dt = 1e-3;
  double ea = 0, sa = 0;
  hsd_jsStepVelocity(a.m, a.d, dt);
  CU_ASSERT_EQUAL(a.d->givenPath, 3);
  CU_ASSERT_EQUAL(a.d->badPivots, 0);
  double acc[6];
  memcpy(acc, a.d->qacc, sizeof acc);
  hsd_jsForward(g.m, g.d);
  CU_ASSERT_EQUAL(g.d->givenPath, 0);
  rigidDiff(acc, g.d->qacc, 6, &ea, &sa);
  CU_ASSERT(sa > 1);
  CU_ASSERT(ea <= 1e-12 * sa);
  jsFree(&a);
  jsFree(&g);
  a = rigidTumbler(0);
  g = rigidTumbler(0);
  for (int n = 0; n < 1000; n++) {
    hsd_jsStep(a.m, a.d, dt);
    generalStep(&g, dt);
  }
  CU_ASSERT_EQUAL(a.d->givenPath, 3);
  double ep = 0, sp = 0, eR = 0, sR = 0, ev = 0, sv = 0;
  rigidDiff(a.d->st->rootP, g.d->st->rootP, 3, &ep, &sp);
  rigidDiff(a.d->st->rootR, g.d->st->rootR, 9, &eR, &sR);
  rigidDiff(a.d->qvel, g.d->qvel, 6, &ev, &sv);
  fprintf(stderr, " [first qacc %.2g of %.3g; after 1 s: p %.2g, R %.2g, v %.2g of %.3g] ",
          ea, sa, ep, eR, ev, sv);
  CU_ASSERT(sp > 1 && sv > 1);
  CU_ASSERT(ep <= 1e-12 * sp && eR <= 1e-12 * sR && ev <= 1e-12 * sv);
  jsFree(&a);
  jsFree(&g);
}

// the contacts' solves with the closed form's factors (givenPath 3) against the general
// factors at the same state: hsd_jsSolveM the same to 1e-12 relative; and, as the general
// ones (testHalfSolves), hsd_jsSolveMPath gives hsd_jsSolveMHalf's bits, Half then Rest
// gives hsd_jsSolveM's bits and Y^T D Y' (D the diagonal of LD) is J M^-1 J'^T to 1e-12
// relative. A body with no rotational inertia (pivots the general path must raise) takes the
// general path and warns as before (badPivots)
static void testRigidSolves(void) {
  jsRig a = rigidTumbler(0), g = rigidTumbler(0);
  hsd_jsStepVelocity(a.m, a.d, 1e-3);
  hsd_jsForward(g.m, g.d);
  CU_ASSERT_EQUAL_FATAL(a.d->givenPath, 3);
  double J[18], Y[18], W[18], H[6], G[6];
  for (int k = 0; k < 18; k++) {
    J[k] = sin(1.0 + 3.7 * k);
  }
  memcpy(Y, J, sizeof J);
  hsd_jsSolveMPath(a.m, a.d, Y, 3, a.m->linkLastDof[0]);
  double err = 0, scale = 0;
  for (int q = 0; q < 3; q++) {
    memcpy(H, J + 6 * q, sizeof H);
    hsd_jsSolveMHalf(a.m, a.d, H);
    CU_ASSERT(memcmp(H, Y + 6 * q, sizeof H) == 0);
    memcpy(W + 6 * q, J + 6 * q, sizeof H);
    hsd_jsSolveM(a.m, a.d, W + 6 * q);
    hsd_jsSolveMRest(a.m, a.d, H);
    CU_ASSERT(memcmp(H, W + 6 * q, sizeof H) == 0);
    memcpy(G, J + 6 * q, sizeof G);
    hsd_jsSolveM(g.m, g.d, G);
    rigidDiff(W + 6 * q, G, 6, &err, &scale);
  }
  CU_ASSERT(scale > 0);
  CU_ASSERT(err <= 1e-12 * scale);
  double worst = 0, big = 0;
  for (int p = 0; p < 3; p++) {
    for (int q = 0; q < 3; q++) {
      double ydy = 0, jw = 0;
      for (int j = 0; j < 6; j++) {
        ydy += Y[6 * p + j] * a.d->LD[7 * j] * Y[6 * q + j];
        jw += J[6 * p + j] * W[6 * q + j];
      }
      worst = fmax(worst, fabs(ydy - jw));
      big = fmax(big, fabs(jw));
    }
  }
  fprintf(stderr, " [M^-1 x %.2g of %.3g; Y'DY %.2g of %.3g] ", err, scale, worst, big);
  CU_ASSERT(big > 0);
  CU_ASSERT(worst <= 1e-12 * big);
  jsFree(&a);
  jsFree(&g);
  // no rotational inertia: the general path, its pivots raised
  jsRig z = rigidTumbler(1);
  hsd_jsStepVelocity(z.m, z.d, 1e-3);
  CU_ASSERT_EQUAL(z.d->givenPath, 0);
  CU_ASSERT(z.d->badPivots > 0);
  jsFree(&z);
}

//---------------------------------- slide, damping --------------------------------------------

// a slide joint along (1, 0, 1)/sqrt 2 with a 1.5 kg link and armature 0.02 * 5^2 = 0.5 kg:
// a = g . axis m / (m + Ia); semi-implicit Euler from rest gives v_n = n a dt and
// x_n = a dt^2 n (n + 1) / 2 exactly (1e-9), the continuous x = a t^2 / 2 within a dt t / 2
static void testSlideUnderGravity(void) {
  const char *text =
      "DEF S Humanoid { humanoidBody [ DEF BASE Joint { jointType \"fixed\" children [\n"
      " DEF SL Joint { jointType \"slide\" jointId 0 jointAxis 1 0 1 rotorInertia 0.02\n"
      "  gearRatio 5 children [ Segment { mass 1.5 centerOfMass 0.1 0.2 0\n"
      "  momentsOfInertia [0.1 0 0 0 0.1 0 0 0 0.1] } ] } ] } ] joints [ USE BASE USE SL ] }\n";
  jsRig r = jsMake(dynLoadText("js_slide.wrl", text));
  CU_ASSERT_EQUAL_FATAL(r.m->nv, 1);
  const double dt = 1e-3, a = -9.8 / sqrt(2) * 1.5 / (1.5 + 0.5);
  for (int n = 1; n <= 1000; n++) {
    hsd_jsStep(r.m, r.d, dt);
    HST_NEAR(r.d->qvel[0], n * a * dt, 1e-9);
    HST_NEAR(r.d->st->q[1], a * dt * dt * n * (n + 1) / 2, 1e-9);
  }
  HST_NEAR(r.d->st->q[1], a / 2, fabs(a) * dt / 2 * 1.0001);
  jsFree(&r);
}

// a URDF wheel on a vertical axis of a base fixed to the world (izz 0.2 about it) with
// <dynamics damping="0.5">, spun at 2 rad/s without gravity: implicit damping gives
// w_n = w0 / (1 + b dt / I)^n exactly (1e-12 relative), the continuous w0 exp(-b t / I) within
// t b^2 dt / (2 I^2) relative
static void testDampingDecay(void) {
  hsBody *b = dynDampedWheel("js_wheel.urdf");
  jsRig r = jsMake(b);
  CU_ASSERT_EQUAL_FATAL(r.m->nv, 1);
  HST_NEAR(r.m->damping[0], 0.5, 0);
  memset(r.d->g, 0, sizeof r.d->g);
  r.d->qvel[0] = 2;
  const double dt = 1e-3, B = 0.5, I = 0.2;
  for (int n = 1; n <= 2000; n++) {
    hsd_jsStep(r.m, r.d, dt);
    double discrete = 2 / pow(1 + B * dt / I, n), t = n * dt;
    HST_NEAR(r.d->qvel[0] / discrete, 1, 1e-12);
    double cont = 2 * exp(-B * t / I);
    CU_ASSERT(fabs(r.d->qvel[0] / cont - 1) <= t * B * B * dt / (2 * I * I) * 1.01 + 1e-12);
  }
  fprintf(stderr, " [w(2 s) %.9f, continuous %.9f] ", r.d->qvel[0], 2 * exp(-B * 2 / I));
  jsFree(&r);
}

//---------------------------------- the sample humanoid --------------------------------------

// the humanoid at a random configuration: root turned and moved, every joint and velocity
// random (seeded)
static jsRig jsHumanoid(unsigned seed) {
  jsRig r = jsMake(dynLoadSample("humanoid/humanoid.wrl"));
  unsigned s = seed;
  double aa[4] = {jsRand(&s), jsRand(&s), jsRand(&s), 2 * jsRand(&s)};
  hsu_axisAngleToMat(r.d->st->rootR, aa);
  for (int k = 0; k < 3; k++) {
    r.d->st->rootP[k] = jsRand(&s);
  }
  for (int j = 0; j < r.m->nv; j++) {
    r.d->qvel[j] = jsRand(&s);
    if (j >= r.m->nroot) {
      r.d->st->q[r.m->dofLink[j]] = jsRand(&s);
    }
  }
  return r;
}

// the mass matrix against inverse dynamics: ID is affine in qacc, so ID(e_j) - ID(0) is column
// j of M (armature included) up to round-off (1e-12 of the largest entry); M is symmetric and
// positive definite (a dense Cholesky of it succeeds, and the tree factorisation raised no
// pivot); the forward dynamics' qacc satisfies M qacc = f (residual 1e-12 relative)
static void testHumanoidMassMatrix(void) {
  jsRig r = jsHumanoid(7);
  int nv = r.m->nv;
  CU_ASSERT_EQUAL(nv, 6 + 30);
  for (int i = 0; i < r.body->nlink; i++) {
    for (int k = 0; k < 6; k++) {
      r.d->xfrc[6 * i + k] = 0.1 * (k + 1) * (i % 3);  // external forces: they cancel out
    }
  }
  hsd_jsForward(r.m, r.d);
  size_t sz = sizeof(double);
  double *id0 = hsu_calloc((size_t)nv, sz), *idj = hsu_calloc((size_t)nv, sz);
  double *acc = hsu_calloc((size_t)nv, sz), *L = hsu_calloc((size_t)nv * nv, sz);
  hsd_jsInverse(r.m, r.d, acc, id0);
  double big = 0, worst = 0, asym = 0;
  for (int j = 0; j < nv * nv; j++) {
    big = fmax(big, fabs(r.d->M[j]));
  }
  for (int j = 0; j < nv; j++) {
    acc[j] = 1;
    hsd_jsInverse(r.m, r.d, acc, idj);
    acc[j] = 0;
    for (int i = 0; i < nv; i++) {
      worst = fmax(worst, fabs(idj[i] - id0[i] - r.d->M[i * nv + j]));
      asym = fmax(asym, fabs(r.d->M[i * nv + j] - r.d->M[j * nv + i]));
    }
  }
  fprintf(stderr, " [M vs ID: %.2g of %.3g] ", worst, big);
  CU_ASSERT(worst < 1e-12 * big);
  CU_ASSERT(asym == 0);
  CU_ASSERT_EQUAL(r.d->badPivots, 0);
  // dense Cholesky: every pivot positive
  int pd = 1;
  for (int i = 0; i < nv && pd; i++) {
    for (int j = 0; j <= i; j++) {
      double s = r.d->M[i * nv + j];
      for (int k = 0; k < j; k++) {
        s -= L[i * nv + k] * L[j * nv + k];
      }
      if (i == j) {
        pd = s > 0;
        L[i * nv + i] = pd ? sqrt(s) : 0;
      } else {
        L[i * nv + j] = s / L[j * nv + j];
      }
    }
  }
  CU_ASSERT(pd);
  // the inverse at the forward's qacc gives back qfrc (zero): M qacc = f
  hsd_jsInverse(r.m, r.d, r.d->qacc, idj);
  double res = 0, scale = 0;
  for (int j = 0; j < nv; j++) {
    res = fmax(res, fabs(idj[j] - r.d->qfrc[j]));
    scale = fmax(scale, fabs(r.d->qfrcBias[j]));
  }
  fprintf(stderr, " [forward/inverse residual %.2g of %.3g] ", res, scale);
  CU_ASSERT(res < 1e-11 * scale);
  hsu_free(id0);
  hsu_free(idj);
  hsu_free(acc);
  hsu_free(L);
  jsFree(&r);
}

// the factors of M (+ dt B) as the textbook's dense LTDL over parent[] gives them, on H's own
// rows (Featherstone, Rigid Body Dynamics Algorithms, 6.5): the given dofs skipped, each row
// updated by its descendants from the last dof up, its ancestors nearest first
static void jsDenseLTDL(int nv, const int *parent, const unsigned char *given, double *H) {
  for (int k = nv - 1; k >= 0; k--) {
    double *rk = H + (size_t)k * nv;
    for (int i = given[k] ? -1 : parent[k]; i >= 0; i = parent[i]) {
      double a = rk[i] / rk[k], *ri = H + (size_t)i * nv;
      for (int j = i; j >= 0; j = parent[j]) {
        ri[j] -= a * rk[j];
      }
      rk[i] = a;
    }
  }
}

// the engine's factorisation (compact rows) gives the dense LTDL's bits on the humanoid: no
// dof given, some joints given (their tree skips them), the root given; with implicit damping
static void testFactorBits(void) {
  for (int pattern = 0; pattern < 3; pattern++) {
    jsRig r = jsHumanoid(11 + (unsigned)pattern);
    int nv = r.m->nv;
    for (int j = 0; j < nv; j++) {
      r.d->given[j] = pattern == 1 ? j >= 6 && j % 3 == 0 : pattern == 2 ? j < 6 : 0;
    }
    hsd_jsPosition(r.m, r.d);
    hsd_jsVelocity(r.m, r.d);
    // (the humanoid has no damping: B as if it had, for the factor's dt B term)
    double *damping = (double *)r.m->damping, dt = 0.001;
    for (int j = 6; j < nv; j++) {
      damping[j] = 0.01 * j;
    }
    hsd_jsAcceleration(r.m, r.d, dt);
    // the free dofs' tree and the reference factors from M
    int *parent = hsu_calloc((size_t)nv, sizeof(int));
    double *H = hsu_calloc((size_t)nv * nv, sizeof(double));
    for (int j = 0; j < nv; j++) {
      int p = r.m->dofParent[j];
      while (p >= 0 && r.d->given[p]) {
        p = r.m->dofParent[p];
      }
      parent[j] = p;
    }
    for (int j = 0; j < nv; j++) {
      for (int k = r.d->given[j] ? -1 : j; k >= 0; k = parent[k]) {
        H[(size_t)j * nv + k] = r.d->M[(size_t)j * nv + k];
      }
      H[(size_t)j * nv + j] += dt * damping[j];
    }
    jsDenseLTDL(nv, parent, r.d->given, H);
    int entries = 0, same = 0;
    for (int j = 0; j < nv; j++) {
      for (int k = r.d->given[j] ? -1 : j; k >= 0; k = parent[k]) {
        size_t at = (size_t)j * nv + k;
        entries++;
        same += memcmp(&H[at], &r.d->LD[at], sizeof H[at]) == 0;
      }
    }
    CU_ASSERT(entries > nv);
    CU_ASSERT_EQUAL(same, entries);
    CU_ASSERT_EQUAL(r.d->badPivots, 0);
    for (int j = 6; j < nv; j++) {
      damping[j] = 0;
    }
    hsu_free(H);
    hsu_free(parent);
    jsFree(&r);
  }
}

// the contacts' half solves (dynamics_jscontact.c): for rows zero but on one link's path to the
// root, hsd_jsSolveMPath gives hsd_jsSolveMHalf's bits (three rows side by side), Half then
// Rest gives hsd_jsSolveM's bits, and Y^T D Y' (D the factors' pivots) is J M^-1 J'^T (1e-12
// relative), with free dofs only and with some given (a given dof's entries 0); a wrist, a
// sole and the root link
static void testHalfSolves(void) {
  jsRig r = jsHumanoid(5);
  int nv = r.m->nv, links[3] = {r.body->nlink - 1, r.body->nlink / 2, 0};
  size_t sz = sizeof(double);
  double *J = hsu_calloc(3 * (size_t)nv, sz), *Y = hsu_calloc(3 * (size_t)nv, sz);
  double *H = hsu_calloc((size_t)nv, sz), *W = hsu_calloc(3 * (size_t)nv, sz);
  for (int pass = 0; pass < 2; pass++) {
    for (int j = 7; pass && j < nv; j += 5) {
      r.d->given[j] = 1;  // (second pass: some joints high gain)
    }
    hsd_jsForward(r.m, r.d);
    for (int li = 0; li < 3; li++) {
      int last = r.m->linkLastDof[links[li]], n = 0;
      memset(J, 0, 3 * (size_t)nv * sz);
      for (int j = last; j >= 0; j = r.m->dofParent[j], n++) {
        for (int q = 0; q < 3; q++) {
          J[q * nv + j] = sin(1.0 + j + 7.0 * q);
        }
      }
      CU_ASSERT(n >= 6);
      memcpy(Y, J, 3 * (size_t)nv * sz);
      hsd_jsSolveMPath(r.m, r.d, Y, 3, last);
      for (int q = 0; q < 3; q++) {
        memcpy(H, J + q * nv, (size_t)nv * sz);
        hsd_jsSolveMHalf(r.m, r.d, H);
        CU_ASSERT(memcmp(H, Y + q * nv, (size_t)nv * sz) == 0);
        memcpy(W + q * nv, J + q * nv, (size_t)nv * sz);
        hsd_jsSolveM(r.m, r.d, W + q * nv);
        hsd_jsSolveMRest(r.m, r.d, H);
        CU_ASSERT(memcmp(H, W + q * nv, (size_t)nv * sz) == 0);
      }
      double worst = 0, big = 0;
      for (int a = 0; a < 3; a++) {
        for (int b = 0; b < 3; b++) {
          double ydy = 0, jw = 0;
          for (int j = 0; j < nv; j++) {
            double D = r.d->given[j] ? 0 : r.d->LD[(size_t)j * nv + j];
            ydy += Y[a * nv + j] * D * Y[b * nv + j];
            jw += J[a * nv + j] * W[b * nv + j];
            CU_ASSERT(!r.d->given[j] || (Y[a * nv + j] == 0 && W[a * nv + j] == 0));
          }
          worst = fmax(worst, fabs(ydy - jw));
          big = fmax(big, fabs(jw));
        }
      }
      CU_ASSERT(big > 0);
      CU_ASSERT(worst <= 1e-12 * big);
    }
  }
  hsu_free(J);
  hsu_free(Y);
  hsu_free(H);
  hsu_free(W);
  jsFree(&r);
}

// world poses of the links at the configuration q + h qvel (a free root moved by h v and turned
// by exp(h w)), into P (3 per link) and R (9 per link)
static void posesAlong(jsRig *r, const hsBodyState *st0, double h, double *P, double *R) {
  hsBodyState *st = r->d->st;
  const hsdJsModel *m = r->m;
  memcpy(st->rootP, st0->rootP, sizeof st->rootP);
  memcpy(st->rootR, st0->rootR, sizeof st->rootR);
  if (m->nroot) {
    const double *w = r->d->qvel + 3;
    double aa[4] = {w[0], w[1], w[2], h * hsu_norm(w)}, E[9];
    hsu_axisAngleToMat(E, aa);
    hsu_mulMat(st->rootR, E, st0->rootR);
    for (int k = 0; k < 3; k++) {
      st->rootP[k] += h * r->d->qvel[k];
    }
  }
  for (int j = m->nroot; j < m->nv; j++) {
    st->q[m->dofLink[j]] = st0->q[m->dofLink[j]] + h * r->d->qvel[j];
  }
  hsm_forwardKinematics(r->body, st);
  if (P) {
    memcpy(P, st->linkP, 3 * (size_t)r->body->nlink * sizeof *P);
    memcpy(R, st->linkR, 9 * (size_t)r->body->nlink * sizeof *R);
  }
}

// an independent kinetic energy: link velocities by central differences of forward kinematics
// (step 1e-6: error O(1e-12) relative), sum m |v_com|^2 / 2 + w' I w / 2 + armature, against
// qvel' M qvel / 2 (1e-8 relative); the gravity forces against central differences of the
// potential energy (1e-7 relative)
static void testHumanoidEnergyAndGravity(void) {
  jsRig r = jsHumanoid(11);
  const hsBody *b = r.body;
  int n = b->nlink, nv = r.m->nv;
  hsBodyState *st0 = hsm_makeState(b, NULL);
  memcpy(st0->rootP, r.d->st->rootP, sizeof st0->rootP);
  memcpy(st0->rootR, r.d->st->rootR, sizeof st0->rootR);
  memcpy(st0->q, r.d->st->q, (size_t)n * sizeof *st0->q);
  double *Pp = hsu_calloc(24 * (size_t)n, sizeof(double)), *Pm = Pp + 3 * n;
  double *Rp = Pm + 3 * n, *Rm = Rp + 9 * n;
  const double h = 1e-6;
  posesAlong(&r, st0, h, Pp, Rp);
  posesAlong(&r, st0, -h, Pm, Rm);
  posesAlong(&r, st0, 0, NULL, NULL);  // the state back at q (link poses too)
  double T = 0;
  hsBodyState *st = r.d->st;
  for (int i = 0; i < n; i++) {
    const hsLink *l = &b->links[i];
    double cp[3], cm[3], v[3], Rd[9], Rt[9], W[9], w[3];
    hsu_rotVec(cp, Rp + 9 * i, l->com);
    hsu_rotVec(cm, Rm + 9 * i, l->com);
    for (int k = 0; k < 3; k++) {
      v[k] = (Pp[3 * i + k] + cp[k] - Pm[3 * i + k] - cm[k]) / (2 * h);
    }
    for (int k = 0; k < 9; k++) {
      Rd[k] = (Rp[9 * i + k] - Rm[9 * i + k]) / (2 * h);
    }
    hsu_transpose(Rt, st->linkR + 9 * i);
    hsu_mulMat(W, Rd, Rt);  // [w]x = dR R^T
    w[0] = W[7];
    w[1] = W[2];
    w[2] = W[3];
    double RI[9], Iw[9], Ivec[3];
    hsu_mulMat(RI, st->linkR + 9 * i, l->inertia);
    hsu_mulMat(Iw, RI, Rt);
    hsu_rotVec(Ivec, Iw, w);
    T += 0.5 * l->mass * hsu_dot(v, v) + 0.5 * hsu_dot(w, Ivec);
  }
  for (int j = 0; j < nv; j++) {
    T += 0.5 * r.m->armature[j] * r.d->qvel[j] * r.d->qvel[j];
  }
  hsd_jsPosition(r.m, r.d);
  double e[2];
  hsd_jsEnergy(r.m, r.d, e);
  fprintf(stderr, " [kinetic energy %.12g J, from differences %.12g J] ", e[0], T);
  CU_ASSERT(fabs(e[0] - T) < 1e-8 * T);
  // gravity: with qvel 0 the bias is grad V, V along each dof by central differences
  double *qv = hsu_calloc((size_t)nv, sizeof(double));
  memcpy(qv, r.d->qvel, (size_t)nv * sizeof *qv);
  memset(r.d->qvel, 0, (size_t)nv * sizeof *r.d->qvel);
  hsd_jsVelocity(r.m, r.d);
  double *bias = hsu_calloc((size_t)nv, sizeof(double)), worst = 0, big = 0;
  memcpy(bias, r.d->qfrcBias, (size_t)nv * sizeof *bias);
  for (int j = 0; j < nv; j++) {
    double V[2];
    for (int sgn = 0; sgn < 2; sgn++) {
      memset(r.d->qvel, 0, (size_t)nv * sizeof *r.d->qvel);
      r.d->qvel[j] = 1;
      posesAlong(&r, st0, sgn ? -1e-5 : 1e-5, NULL, NULL);
      hsd_jsPosition(r.m, r.d);
      hsd_jsEnergy(r.m, r.d, e);
      V[sgn] = e[1];
    }
    double dV = (V[0] - V[1]) / 2e-5;
    worst = fmax(worst, fabs(dV - bias[j]));
    big = fmax(big, fabs(bias[j]));
  }
  fprintf(stderr, " [gravity vs dV/dq: %.2g of %.3g] ", worst, big);
  CU_ASSERT(worst < 1e-7 * big);
  hsu_free(qv);
  hsu_free(bias);
  hsu_free(Pp);
  hsm_freeState(st0);
  jsFree(&r);
}

// the humanoid floating in zero gravity with random joint and root velocities and no torque:
// its linear momentum (sum m v_com, from the spatial velocities) and its energy stay; the
// step's first-order error over 0.2 s at dt = 1e-4 is below 1e-3 relative, and halving dt
// halves the energy error (ratio within [1.6, 2.5]): the Coriolis forces are consistent with M
static double humanoidFloatDrift(double dt, double *dP) {
  jsRig r = jsHumanoid(3);
  memset(r.d->g, 0, sizeof r.d->g);
  double e[2], e0, P0[3] = {0, 0, 0}, worst = 0;
  hsd_jsForward(r.m, r.d);
  hsd_jsEnergy(r.m, r.d, e);
  e0 = e[0];
  // about c, the total momentum is [L; P]; P = sum over links of m v + w x h
  double f[6];
  memset(f, 0, sizeof f);
  for (int i = 0; i < r.body->nlink; i++) {
    const double *I = r.d->cinert + 13 * i, *v = r.d->cvel + 6 * i;
    double hw[3];
    hsu_cross(hw, I + 1, v);
    for (int k = 0; k < 3; k++) {
      P0[k] += I[0] * v[3 + k] - hw[k];
    }
  }
  *dP = 0;
  for (int n = 0; n < (int)lround(0.2 / dt); n++) {
    hsd_jsStep(r.m, r.d, dt);
  }
  hsd_jsForward(r.m, r.d);
  hsd_jsEnergy(r.m, r.d, e);
  worst = fabs(e[0] - e0) / e0;
  double P[3] = {0, 0, 0};
  for (int i = 0; i < r.body->nlink; i++) {
    const double *I = r.d->cinert + 13 * i, *v = r.d->cvel + 6 * i;
    double hw[3];
    hsu_cross(hw, I + 1, v);
    for (int k = 0; k < 3; k++) {
      P[k] += I[0] * v[3 + k] - hw[k];
    }
  }
  for (int k = 0; k < 3; k++) {
    *dP = fmax(*dP, fabs(P[k] - P0[k]) / hsu_norm(P0));
  }
  jsFree(&r);
  return worst;
}

static void testHumanoidFloating(void) {
  double p1, p2, e1 = humanoidFloatDrift(1e-4, &p1), e2 = humanoidFloatDrift(5e-5, &p2);
  fprintf(stderr, " [energy %.3g / %.3g, momentum %.3g / %.3g relative] ", e1, e2, p1, p2);
  CU_ASSERT(e1 < 1e-3 && p1 < 1e-3);
  CU_ASSERT(e1 / e2 > 1.6 && e1 / e2 < 2.5);
}

//---------------------------------- prescribed dofs -------------------------------------------

// the floating two links with the joint's acceleration given (a = 2 rad/s^2, OpenHRP's high
// gain): the base's accelerations solve [[m, e], [e, A]] (ay, dwz) = -(e, J) a, so with
// det = m A - e^2: ay = -e i1 a / det, dwz = (e^2 - m J) a / det; the joint took
// tau = e ay + J dwz + (J + Ia) a (1e-9). Applied in torque mode, that tau gives a back.
static void testGivenJointAcceleration(void) {
  const double m1 = 3, i1 = 0.3, m2 = 2, i2 = 0.06, dd = 0.4, Ia = 1e-4 * 50 * 50, a = 2;
  jsRig r = jsMake(jsTwoLink("js_given.wrl", m1, i1, m2, i2, dd, 1e-4, 50));
  memset(r.d->g, 0, sizeof r.d->g);
  r.d->given[6] = 1;
  r.d->qaccGiven[6] = a;
  hsd_jsForward(r.m, r.d);
  double m = m1 + m2, e = m2 * dd, J = i2 + m2 * dd * dd, A = i1 + J, det = m * A - e * e;
  double ay = -e * i1 * a / det, dwz = (e * e - m * J) * a / det;
  double tau = e * ay + J * dwz + (J + Ia) * a;
  HST_NEAR(r.d->qacc[6], a, 0);
  HST_NEAR(r.d->qacc[1], ay, 1e-9);
  HST_NEAR(r.d->qacc[5], dwz, 1e-9);
  HST_NEAR(r.d->qacc[0], 0, 1e-12);
  HST_NEAR(r.d->qfrcGiven[6], tau, 1e-9);
  for (int j = 0; j < 6; j++) {
    HST_NEAR(r.d->qfrcGiven[j], 0, 0);
  }
  fprintf(stderr, " [tau %.12g] ", r.d->qfrcGiven[6]);
  r.d->given[6] = 0;
  r.d->qfrc[6] = tau;
  hsd_jsForward(r.m, r.d);
  HST_NEAR(r.d->qacc[6], a, 1e-9);
  HST_NEAR(r.d->qacc[5], dwz, 1e-9);
  jsFree(&r);
}

// every joint of the humanoid given (random accelerations, a random state, external forces on
// every link, gravity), the root free (rootGiven 0) or given too: hsd_jsStepVelocity's composite
// path (d->givenPath 1: one Newton-Euler pass, the root's 6 x 6 block; 2: the pass alone) gives
// the accelerations and the given dofs' forces of the general path (hsd_jsForward: the whole M
// and its factors) to 1e-12 relative, and both agree with inverse dynamics at those
// accelerations (a free root takes no force, each given dof its qfrcGiven); a free root's
// change of velocity reacts on the joints (hsd_jsGivenReaction) as the sum over M's rows says
// (1e-12 relative)
static void checkAllGiven(int rootGiven) {
  jsRig r = jsHumanoid(11);
  int nv = r.m->nv, j0 = rootGiven ? 0 : 6;
  unsigned s = 5;
  for (int i = 0; i < r.body->nlink; i++) {
    for (int k = 0; k < 6; k++) {
      r.d->xfrc[6 * i + k] = 3 * jsRand(&s);
    }
  }
  for (int j = j0; j < nv; j++) {
    r.d->given[j] = 1;
    r.d->qaccGiven[j] = 5 * jsRand(&s);
  }
  size_t sz = sizeof(double);
  double *qvel0 = hsu_calloc((size_t)nv, sz), *acc = hsu_calloc((size_t)nv, sz);
  double *frc = hsu_calloc((size_t)nv, sz), *id = hsu_calloc((size_t)nv, sz);
  double *vs = hsu_calloc((size_t)nv, sz), *f0 = hsu_calloc((size_t)nv, sz);
  double *f1 = hsu_calloc((size_t)nv, sz);
  memcpy(qvel0, r.d->qvel, (size_t)nv * sz);
  hsd_jsForward(r.m, r.d);
  CU_ASSERT_EQUAL(r.d->givenPath, 0);
  memcpy(acc, r.d->qacc, (size_t)nv * sz);
  memcpy(frc, r.d->qfrcGiven, (size_t)nv * sz);
  // the general path's reaction to a change of the root's velocities
  for (int j = 0; j < nv; j++) {
    vs[j] = r.d->qvel[j] - (j < 6 ? 0.1 * jsRand(&s) : 0);
  }
  double scaleR = 0, errR = 0;
  if (!rootGiven) {
    hsd_jsGivenReaction(r.m, r.d, vs, 0.001, f0);
    r.d->givenPath = 1;
    hsd_jsGivenReaction(r.m, r.d, vs, 0.001, f1);
    for (int j = 6; j < nv; j++) {
      scaleR = fmax(scaleR, fabs(f0[j]));
      errR = fmax(errR, fabs(f1[j] - f0[j]));
    }
  }
  // the composite path, from the same state
  memcpy(r.d->qvel, qvel0, (size_t)nv * sz);
  r.d->posesCurrent = 0;
  hsd_jsStepVelocity(r.m, r.d, 0.001);
  CU_ASSERT_EQUAL(r.d->givenPath, rootGiven ? 2 : 1);
  CU_ASSERT_EQUAL(r.d->badPivots, 0);
  double scaleA = 0, errA = 0, scaleF = 0, errF = 0, errV = 0;
  for (int j = 0; j < nv; j++) {
    scaleA = fmax(scaleA, fabs(acc[j]));
    errA = fmax(errA, fabs(r.d->qacc[j] - acc[j]));
    scaleF = fmax(scaleF, fabs(frc[j]));
    errF = fmax(errF, fabs(r.d->qfrcGiven[j] - frc[j]));
    errV = fmax(errV, fabs(r.d->qvel[j] - (qvel0[j] + 0.001 * r.d->qacc[j])));
  }
  // inverse dynamics at the composite's accelerations (from the start's velocities)
  memcpy(r.d->qvel, qvel0, (size_t)nv * sz);
  hsd_jsVelocity(r.m, r.d);
  hsd_jsInverse(r.m, r.d, r.d->qacc, id);
  double errId = 0;
  for (int j = 0; j < nv; j++) {
    errId = fmax(errId, fabs(id[j] - (j < j0 ? 0 : r.d->qfrcGiven[j])));
  }
  fprintf(stderr, " [root %s: accelerations %.2g of %.3g, given forces %.2g of %.3g, ID %.2g, "
          "reaction %.2g of %.3g] ", rootGiven ? "given" : "free", errA, scaleA, errF, scaleF,
          errId, errR, scaleR);
  CU_ASSERT(scaleA > 1 && scaleF > 1 && (rootGiven || scaleR > 1));
  CU_ASSERT(errA < 1e-12 * scaleA);
  CU_ASSERT(errF < 1e-12 * scaleF);
  CU_ASSERT(errId < 1e-12 * scaleF);
  CU_ASSERT(errR <= 1e-12 * scaleR);
  CU_ASSERT(errV == 0);
  hsu_free(qvel0);
  hsu_free(acc);
  hsu_free(frc);
  hsu_free(id);
  hsu_free(vs);
  hsu_free(f0);
  hsu_free(f1);
  jsFree(&r);
}

// the same with joint damping (URDF <dynamics damping>, implicit in a step): a free base with
// two damped joints in a chain, both given, moving; the composite path's root accelerations and
// joint forces (damping at the step's end velocity included) are the general step's
// (hsd_jsAcceleration with dt implicit) to 1e-12 relative
static void checkAllGivenDamped(void) {
  const char *urdf =
      "<robot name=\"damped\">\n"
      "<link name=\"base\"><inertial><mass value=\"3\"/>\n"
      "<inertia ixx=\"0.1\" iyy=\"0.2\" izz=\"0.3\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/>"
      "</inertial></link>\n"
      "<link name=\"a\"><inertial><mass value=\"1\"/><origin xyz=\"0.3 0 0\"/>\n"
      "<inertia ixx=\"0.01\" iyy=\"0.02\" izz=\"0.03\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/>"
      "</inertial></link>\n"
      "<link name=\"b\"><inertial><mass value=\"0.5\"/><origin xyz=\"0 0.2 0\"/>\n"
      "<inertia ixx=\"0.01\" iyy=\"0.01\" izz=\"0.02\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/>"
      "</inertial></link>\n"
      "<joint name=\"ja\" type=\"continuous\"><parent link=\"base\"/><child link=\"a\"/>"
      "<axis xyz=\"0 0 1\"/><dynamics damping=\"0.5\"/></joint>\n"
      "<joint name=\"jb\" type=\"continuous\"><parent link=\"a\"/><child link=\"b\"/>"
      "<origin xyz=\"0.6 0 0\"/><axis xyz=\"1 0 0\"/><dynamics damping=\"2\"/></joint>\n"
      "</robot>\n";
  hsError err = {0};
  hsBody *b = hsm_loadUrdf(hst_writeFile("js_damped.urdf", urdf), NULL, NULL, 0, NULL, &err);
  jsRig r = jsMake(b);
  int nv = r.m->nv;
  CU_ASSERT_EQUAL_FATAL(nv, 8);
  CU_ASSERT(r.m->damped);
  const double dt = 1e-3;
  unsigned s = 9;
  double qvel0[8], acc[8], frc[8];
  for (int j = 0; j < nv; j++) {
    qvel0[j] = r.d->qvel[j] = jsRand(&s);
    r.d->given[j] = j >= 6;
    r.d->qaccGiven[j] = j >= 6 ? 4 * jsRand(&s) : 0;
  }
  hsd_jsPosition(r.m, r.d);
  hsd_jsVelocity(r.m, r.d);
  hsd_jsAcceleration(r.m, r.d, dt);
  memcpy(acc, r.d->qacc, sizeof acc);
  memcpy(frc, r.d->qfrcGiven, sizeof frc);
  memcpy(r.d->qvel, qvel0, sizeof qvel0);
  r.d->posesCurrent = 0;
  hsd_jsStepVelocity(r.m, r.d, dt);
  CU_ASSERT_EQUAL(r.d->givenPath, 1);
  double scaleA = 0, errA = 0, scaleF = 0, errF = 0;
  for (int j = 0; j < nv; j++) {
    scaleA = fmax(scaleA, fabs(acc[j]));
    errA = fmax(errA, fabs(r.d->qacc[j] - acc[j]));
    scaleF = fmax(scaleF, fabs(frc[j]));
    errF = fmax(errF, fabs(r.d->qfrcGiven[j] - frc[j]));
  }
  fprintf(stderr, " [damped: accelerations %.2g of %.3g, forces %.2g of %.3g] ", errA, scaleA,
          errF, scaleF);
  CU_ASSERT(scaleA > 0.1 && scaleF > 0.1);
  CU_ASSERT(errA < 1e-12 * scaleA);
  CU_ASSERT(errF < 1e-12 * scaleF);
  jsFree(&r);
}

static void testAllGivenComposite(void) {
  checkAllGiven(0);
  checkAllGiven(1);
  checkAllGivenDamped();
}

//---------------------------------- the engine in a world ------------------------------------

// a world on the joint-space engine with character body; the character's index is 0
static hsdWorld *jsWorld(hsBody *body) {
  hsdOptions opt;
  hsd_defaultOptions(&opt);
  CU_ASSERT_EQUAL(opt.engine, hsENGINE_JOINT_SPACE);  // the default (issue 27)
  opt.engine = hsENGINE_JOINT_SPACE;
  hsdWorld *w = dynWorldOn(&opt);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "c", body, NULL), 0);
  return w;
}

// free fall through hsd_step: the discrete semi-implicit solution v_n = v0 + n g dt,
// x_n = x0 + dt sum v_k (1e-9), the orientation untouched, the link's dv = g
static void testWorldFreeFall(void) {
  hsBody *box = dynBox("js_fall.wrl", 2, 0.1, 0.2, 0.3, 0.02, 0, 0, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  hsdWorld *w = jsWorld(box);
  dynPlace(w, 0, 0.1, -0.2, 10, NULL);
  double v0[3] = {0.5, 0, 2}, w0[3] = {0, 0, 0};
  CU_ASSERT_EQUAL(hsd_setLinkVelocity(w, 0, 0, v0, w0, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  const double dt = 0.001, g = -9.8;
  double x[3] = {0.1, -0.2, 10}, v[3] = {0.5, 0, 2}, err = 0;
  const hsBodyState *st = hsd_state(w, 0);
  for (int i = 1; i <= 1000; i++) {
    dynSteps(w, 1);
    v[2] += g * dt;
    for (int j = 0; j < 3; j++) {
      x[j] += dt * v[j];
      err = fmax(err, fabs(st->rootP[j] - x[j]));
      err = fmax(err, fabs(hsd_linkMotion(w, 0, 0)->v[j] - v[j]));
    }
  }
  CU_ASSERT(err < 1e-9);
  HST_NEAR(st->rootR[0], 1, 1e-15);
  HST_NEAR(hsd_linkMotion(w, 0, 0)->dv[2], g, 1e-9);
  HST_NEAR(hsd_time(w), 1, 1e-12);
  hsdStepStats stats;
  hsd_stepStats(w, &stats);  // ODE was never stepped
  CU_ASSERT_EQUAL(stats.steps, 1000);
  CU_ASSERT_EQUAL(stats.bodies, 0);
  CU_ASSERT_EQUAL(stats.rows, 0);
  hsd_freeWorld(w);
  hsm_freeBody(box);
}

// torque mode through the world: a link turning about the vertical axis (com 0.3 m out,
// m = 2, Izz = 0.05: I = 0.23 kg m^2) with rotor inertia 0.002 * 10^2 = 0.2: 1.5 N m gives
// ddq = 1.5 / 0.43 every step (1e-12), u reads back 1.5, q and dq the discrete solution
static void testWorldTorqueMode(void) {
  hsBody *b = dynLoadText(
      "js_torque.wrl",
      "DEF T Humanoid { humanoidBody [ DEF BASE Joint { jointType \"fixed\" children [\n"
      " DEF ARM Joint { jointType \"rotate\" jointId 0 jointAxis 0 0 1 translation 0 0 0.5\n"
      "  rotorInertia 0.002 gearRatio 10\n"
      "  children [ Segment { mass 2 centerOfMass 0.3 0 0\n"
      "   momentsOfInertia [0.01 0 0 0 0.05 0 0 0 0.05] } ] } ] } ]\n"
      " joints [ USE BASE USE ARM ] }\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsdWorld *w = jsWorld(b);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setJointTorque(w, 0, 1, 1.5, NULL), 0);
  const hsBodyState *st = hsd_state(w, 0);
  const double a = 1.5 / 0.43, dt = 0.001;
  for (int n = 1; n <= 200; n++) {
    dynSteps(w, 1);
    HST_NEAR(st->ddq[1], a, 1e-12);
    HST_NEAR(st->dq[1], n * a * dt, 1e-12);
    HST_NEAR(st->q[1], a * dt * dt * n * (n + 1) / 2, 1e-12);
    HST_NEAR(st->u[1], 1.5, 0);
  }
  // the link's frame follows the joint (forward kinematics written back)
  HST_NEAR(st->linkR[9 + 0], cos(st->q[1]), 1e-12);
  HST_NEAR(st->linkR[9 + 3], sin(st->q[1]), 1e-12);
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

// high gain as prescribed motion: the pendulum (1 kg, com 0.5 m below, I = 0.36 about the
// joint with armature 0.1) commanded q(t) = A sin(w t) by angle each step lands on it exactly
// (1e-12), and the torque it reports is the inverse dynamics of the step: I (dq_n+1 - dq_n) /
// dt + m g l sin(q_n) (1e-9); commanded by velocity and acceleration instead, it moves by
// dt (dq + ddq dt) each step
static void testWorldHighGain(void) {
  hsBody *b = jsChain("js_hg.wrl", 1, 0, 0, 0.001, 10);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsdWorld *w = jsWorld(b);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setJointMode(w, 0, 1, hsMODE_HIGH_GAIN, NULL), 0);
  const hsBodyState *st = hsd_state(w, 0);
  const double A = 0.3, om = 5, dt = 0.001, I = 0.36;
  double dqPrev = 0, worstQ = 0, worstU = 0;
  for (int n = 1; n <= 1000; n++) {
    double qn = st->q[1], target = A * sin(om * n * dt);
    CU_ASSERT_EQUAL(hsd_setJointValue(w, 0, 1, target, NULL), 0);
    dynSteps(w, 1);
    double dq = (target - qn) / dt;
    double tau = I * (dq - dqPrev) / dt + 1 * 9.8 * 0.5 * sin(qn);
    worstQ = fmax(worstQ, fabs(st->q[1] - target));
    worstU = fmax(worstU, fabs(st->u[1] - tau));
    dqPrev = dq;
  }
  fprintf(stderr, " [angle error %.2g rad, torque error %.2g N m] ", worstQ, worstU);
  CU_ASSERT(worstQ < 1e-12);
  CU_ASSERT(worstU < 1e-9);
  // velocity and acceleration commands
  double q0 = st->q[1], dq0 = st->dq[1];
  CU_ASSERT_EQUAL(hsd_setJointVelocity(w, 0, 1, 0.7, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setJointAcceleration(w, 0, 1, 3, NULL), 0);
  dynSteps(w, 1);
  HST_NEAR(st->dq[1], 0.7 + 3 * dt, 1e-12);
  HST_NEAR(st->q[1], q0 + dt * (0.7 + 3 * dt), 1e-12);
  HST_NEAR(st->ddq[1], (0.7 + 3 * dt - dq0) / dt, 1e-6);
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

// the floating two links in zero gravity with the joint in high gain, commanded from rest to
// dq = 2 dt over one step (acceleration 2): the base moves as testGivenJointAcceleration's
// closed form says (its velocities after the step are dt times those accelerations, 1e-12),
// and the joint torque reads that tau
static void testWorldHighGainFloating(void) {
  const double m1 = 3, i1 = 0.3, m2 = 2, i2 = 0.06, dd = 0.4, Ia = 0.25, a = 2, dt = 0.001;
  hsBody *b = jsTwoLink("js_hgfloat.wrl", m1, i1, m2, i2, dd, 1e-4, 50);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsdWorld *w = jsWorld(b);
  double g0[3] = {0, 0, 0};
  CU_ASSERT_EQUAL(hsd_setGravity(w, g0, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setJointMode(w, 0, 1, hsMODE_HIGH_GAIN, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setJointVelocity(w, 0, 1, a * dt, NULL), 0);
  dynSteps(w, 1);
  double m = m1 + m2, e = m2 * dd, J = i2 + m2 * dd * dd, A = i1 + J, det = m * A - e * e;
  double ay = -e * i1 * a / det, dwz = (e * e - m * J) * a / det;
  const hsdLinkMotion *mo = hsd_linkMotion(w, 0, 0);
  HST_NEAR(mo->v[1], ay * dt, 1e-12);
  HST_NEAR(mo->w[2], dwz * dt, 1e-12);
  HST_NEAR(hsd_state(w, 0)->u[1], e * ay + J * dwz + (J + Ia) * a, 1e-9);
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

// OpenHRP's high gain: the pendulum commanded q(t) = A sin(w t) as angle, velocity and
// acceleration together (all three the closed form at the step's end time) ends every step at
// that angle and velocity (1e-9; the angle's difference over the step would miss the velocity
// by A w^2 dt / 2 = 3.8e-3 rad/s), reports the commanded acceleration, and its torque is the
// inverse dynamics at that acceleration from the step's start, I ddq + m g l sin(q_start)
// (1e-9). Angle and acceleration without a velocity: the velocity is the start's plus dt ddq
static void testWorldHighGainPrescribed(void) {
  hsBody *b = jsChain("js_hgsin.wrl", 1, 0, 0, 0.001, 10);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsdWorld *w = jsWorld(b);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setJointMode(w, 0, 1, hsMODE_HIGH_GAIN, NULL), 0);
  const hsBodyState *st = hsd_state(w, 0);
  const double A = 0.3, om = 5, dt = 0.001, I = 0.36;
  double worstQ = 0, worstDq = 0, worstU = 0, worstDdq = 0;
  for (int n = 1; n <= 2000; n++) {
    double t = n * dt, qStart = st->q[1];
    double q = A * sin(om * t), dq = A * om * cos(om * t), ddq = -A * om * om * sin(om * t);
    CU_ASSERT_EQUAL(hsd_setJointValue(w, 0, 1, q, NULL), 0);
    CU_ASSERT_EQUAL(hsd_setJointVelocity(w, 0, 1, dq, NULL), 0);
    CU_ASSERT_EQUAL(hsd_setJointAcceleration(w, 0, 1, ddq, NULL), 0);
    dynSteps(w, 1);
    worstQ = fmax(worstQ, fabs(st->q[1] - q));
    worstDq = fmax(worstDq, fabs(st->dq[1] - dq));
    worstDdq = fmax(worstDdq, fabs(st->ddq[1] - ddq));
    worstU = fmax(worstU, fabs(st->u[1] - (I * ddq + 9.8 * 0.5 * sin(qStart))));
  }
  fprintf(stderr, " [angle %.2g rad, velocity %.2g rad/s, torque %.2g N m] ", worstQ, worstDq,
          worstU);
  CU_ASSERT(worstQ < 1e-9);
  CU_ASSERT(worstDq < 1e-9);
  CU_ASSERT(worstDdq < 1e-9);
  CU_ASSERT(worstU < 1e-9);
  double dq0 = st->dq[1];
  CU_ASSERT_EQUAL(hsd_setJointValue(w, 0, 1, 0.25, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setJointAcceleration(w, 0, 1, 4, NULL), 0);
  dynSteps(w, 1);
  HST_NEAR(st->q[1], 0.25, 0);
  HST_NEAR(st->dq[1], dq0 + 4 * dt, 1e-12);
  HST_NEAR(st->ddq[1], 4, 0);
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

// the floating two links in zero gravity, the joint in high gain commanded from rest with
// angle a dt^2 / 2 (not a dt^2: a velocity by differences would be half the commanded one),
// velocity a dt and acceleration a: the joint ends there exactly, and the base responds to the
// commanded acceleration as testGivenJointAcceleration's closed form says (its velocities
// after the step are dt times those accelerations, 1e-12)
static void testWorldHighGainPrescribedFloating(void) {
  const double m1 = 3, i1 = 0.3, m2 = 2, i2 = 0.06, dd = 0.4, Ia = 0.25, a = 2, dt = 0.001;
  hsBody *b = jsTwoLink("js_hgpre.wrl", m1, i1, m2, i2, dd, 1e-4, 50);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsdWorld *w = jsWorld(b);
  double g0[3] = {0, 0, 0};
  CU_ASSERT_EQUAL(hsd_setGravity(w, g0, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setJointMode(w, 0, 1, hsMODE_HIGH_GAIN, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setJointValue(w, 0, 1, 0.5 * a * dt * dt, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setJointVelocity(w, 0, 1, a * dt, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setJointAcceleration(w, 0, 1, a, NULL), 0);
  dynSteps(w, 1);
  const hsBodyState *st = hsd_state(w, 0);
  HST_NEAR(st->q[1], 0.5 * a * dt * dt, 0);
  HST_NEAR(st->dq[1], a * dt, 0);
  double m = m1 + m2, e = m2 * dd, J = i2 + m2 * dd * dd, A = i1 + J, det = m * A - e * e;
  double ay = -e * i1 * a / det, dwz = (e * e - m * J) * a / det;
  const hsdLinkMotion *mo = hsd_linkMotion(w, 0, 0);
  HST_NEAR(mo->v[1], ay * dt, 1e-12);
  HST_NEAR(mo->w[2], dwz * dt, 1e-12);
  HST_NEAR(st->u[1], e * ay + J * dwz + (J + Ia) * a, 1e-9);
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

// the two engines agree where both are right: the double pendulum released at (1, 0.5) rad
// for 0.3 s at 1 ms (before its chaos amplifies their first-order differences) within 2e-3
// rad, and the energy each keeps within 1 % of m g l
static void testWorldAgreesWithOde(void) {
  double q[2][2];
  for (int e = 0; e < 2; e++) {
    hsBody *b = jsChain("js_cmp.wrl", 2, 1.0, 0.5, 0, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    hsdOptions opt;
    hsd_defaultOptions(&opt);
    opt.engine = e ? hsENGINE_JOINT_SPACE : hsENGINE_ODE;
    hsdWorld *w = dynWorldOn(&opt);
    CU_ASSERT_EQUAL(hsd_addCharacter(w, "c", b, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
    double e0 = dynEnergy(w, 0, 9.8);
    dynSteps(w, 300);
    HST_NEAR(dynEnergy(w, 0, 9.8), e0, 0.098);
    q[e][0] = hsd_state(w, 0)->q[1];
    q[e][1] = hsd_state(w, 0)->q[2];
    hsd_freeWorld(w);
    hsm_freeBody(b);
  }
  fprintf(stderr, " [ODE (%.6f, %.6f), joint space (%.6f, %.6f)] ", q[0][0], q[0][1], q[1][0],
          q[1][1]);
  HST_NEAR(q[1][0], q[0][0], 2e-3);
  HST_NEAR(q[1][1], q[0][1], 2e-3);
}

// the humanoid held in the air by its position-given root and moving every joint in high gain
// (q_k(t) = 0.2 sin(2 t + k), the root swaying by 1 cm and turning by 0.2 rad at 1 Hz): each
// engine lands every joint and the root on the commands, so both give the same motion, and the
// force sensors, gyro, accelerometer (inverse dynamics of that motion at the step's end, in
// both) agree to 1e-6 relative. The joint torques (less the joint-space engine's armature
// Ia ddq) agree to first order only: the joint-space engine gives the torque that made the step
// (inverse dynamics at its start), the ODE engine's servo the one at its end; over a step the
// gravity torques move by dq dt dtau/dq <= 0.4 rad/s x 1 ms x ~50 N m/rad = 0.02 N m, so
// within 0.05 N m
static void testWorldSensorsAgreeWithOde(void) {
  double out[2][96];
  int nout = 0;
  for (int e = 0; e < 2; e++) {
    hsBody *b = dynLoadSample("humanoid/humanoid.wrl");
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    hsdOptions opt;
    hsd_defaultOptions(&opt);
    opt.engine = e ? hsENGINE_JOINT_SPACE : hsENGINE_ODE;
    hsdWorld *w = dynWorldOn(&opt);
    CU_ASSERT_EQUAL(hsd_addCharacter(w, "h", b, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
    CU_ASSERT_EQUAL(hsd_setAllJointModes(w, 0, hsMODE_HIGH_GAIN, NULL), 0);
    CU_ASSERT_EQUAL(hsd_setPositionGiven(w, 0, 0, 1, NULL), 0);
    const hsBodyState *st = hsd_state(w, 0);
    double p0[3], R0[9];
    memcpy(p0, st->rootP, sizeof p0);
    memcpy(R0, st->rootR, sizeof R0);
    for (int n = 1; n <= 200; n++) {
      double t = n * 0.001, p[3] = {p0[0] + 0.01 * sin(2 * M_PI * t), p0[1], p0[2]};
      double aa[4] = {0.3, 0.2, 1, 0.2 * sin(2 * M_PI * t)}, Rz[9], R[9];
      hsu_axisAngleToMat(Rz, aa);
      hsu_mulMat(R, Rz, R0);
      CU_ASSERT_EQUAL(hsd_setLinkPose(w, 0, 0, p, R, NULL), 0);
      for (int k = 1; k < b->nlink; k++) {
        if (hsm_hasOneDofJoint(&b->links[k])) {
          CU_ASSERT_EQUAL(hsd_setJointValue(w, 0, k, 0.2 * sin(2 * t + k), NULL), 0);
        }
      }
      dynSteps(w, 1);
    }
    nout = 0;
    for (int s2 = 0; s2 < b->nsensor; s2++) {
      hstSensor type = b->sensors[s2].type;
      if (type == hsSENSOR_FORCE || type == hsSENSOR_RATEGYRO || type == hsSENSOR_ACCELERATION) {
        int nr;
        const double *r = dynSensorReading(w, 0, s2, &nr);
        for (int k = 0; r && k < nr && nout < 56; k++) {
          out[e][nout++] = r[k];
        }
      }
    }
    // every joint's torque; the joint-space engine's holds the rotor's Ia ddq too (OpenHRP's
    // armature), the ODE engine's not (its rotorInertia option is off by default)
    for (int k = 1; k < b->nlink; k++) {
      const hsLink *lk = &b->links[k];
      if (hsm_hasOneDofJoint(lk) && nout < 96) {
        double Ia = lk->rotorInertia * lk->gearRatio * lk->gearRatio;
        out[e][nout++] = st->u[k] - (e ? Ia * st->ddq[k] : 0);
      }
    }
    hsd_freeWorld(w);
    hsm_freeBody(b);
  }
  double worst = 0, big = 0, worstU = 0;
  CU_ASSERT_FATAL(nout == 4 * 6 + 3 + 3 + 30);
  for (int k = 0; k < 30; k++) {
    worst = fmax(worst, fabs(out[0][k] - out[1][k]));
    big = fmax(big, fabs(out[0][k]));
  }
  for (int k = 30; k < nout; k++) {
    worstU = fmax(worstU, fabs(out[0][k] - out[1][k]));
  }
  fprintf(stderr, " [sensors: largest difference %.2g of %.3g; torques %.2g N m] ", worst, big,
          worstU);
  CU_ASSERT(worst < 1e-6 * big);
  CU_ASSERT(worstU < 0.05);
}

// the humanoid in the air in torque mode under a PD law, 300 steps on the joint-space engine
// into q (n doubles) and the root pose (12)
static void humanoidRun(double *q, double root[12]) {
  hsBody *b = dynLoadSample("humanoid/humanoid.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsdWorld *w = jsWorld(b);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  const hsBodyState *st = hsd_state(w, 0);
  for (int n = 0; n < 300; n++) {
    for (int k = 1; k < b->nlink; k++) {
      if (hsm_hasOneDofJoint(&b->links[k])) {
        double u = 20 * (0.3 * sin(0.01 * n + k) - st->q[k]) - 0.1 * st->dq[k];
        CU_ASSERT_EQUAL(hsd_setJointTorque(w, 0, k, u, NULL), 0);
      }
    }
    dynSteps(w, 1);
  }
  memcpy(q, st->q, (size_t)b->nlink * sizeof *q);
  memcpy(root, st->rootP, 3 * sizeof *root);
  memcpy(root + 3, st->rootR, 9 * sizeof *root);
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

// the same inputs give the same trajectory bit for bit (no hidden state: each step starts from
// the character's state alone), and the run moved (the joints are not where they began)
static void testWorldDeterministic(void) {
  double q1[64], q2[64], r1[12], r2[12];
  humanoidRun(q1, r1);
  humanoidRun(q2, r2);
  CU_ASSERT(memcmp(q1, q2, 31 * sizeof *q1) == 0);
  CU_ASSERT(memcmp(r1, r2, sizeof r1) == 0);
  CU_ASSERT(fabs(q1[5]) > 1e-3);
}

// the sample humanoid falling under a PD law for 30 steps on the joint-space engine; then, if
// saveFirst, a state saved (and dropped); then setter 0 (the root's velocity: a teleport) or 1
// (link 1's pose: a non-root pose written) applied; the state saved into out
static void savedAfterSetter(int setter, int saveFirst, hsuBytes *out) {
  hsBody *b = dynLoadSample("humanoid/humanoid.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsdWorld *w = jsWorld(b);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  const hsBodyState *st = hsd_state(w, 0);
  for (int n = 0; n < 30; n++) {
    for (int k = 1; k < b->nlink; k++) {
      if (hsm_hasOneDofJoint(&b->links[k])) {
        double u = 20 * (0.3 * sin(0.01 * n + k) - st->q[k]) - 0.1 * st->dq[k];
        CU_ASSERT_EQUAL(hsd_setJointTorque(w, 0, k, u, NULL), 0);
      }
    }
    dynSteps(w, 1);
  }
  if (saveFirst) {
    hsuBytes first = {0};
    CU_ASSERT_EQUAL(hsd_saveState(w, &first, NULL), 0);
    hsu_bytesFree(&first);
  }
  double v[3] = {0.3, -0.1, 0.2}, wv[3] = {0.5, 0.2, -0.4}, p[3] = {0.1, 0.2, 1.5};
  double R[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1};
  if (setter == 0) {
    CU_ASSERT_EQUAL(hsd_setLinkVelocity(w, 0, 0, v, wv, NULL), 0);
  } else {
    CU_ASSERT_EQUAL(hsd_setLinkPose(w, 0, 1, p, R, NULL), 0);
  }
  CU_ASSERT_EQUAL(hsd_saveState(w, out, NULL), 0);
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

// the engine places the ODE bodies only when something reads them (hsd_syncOdeBodies): a state
// saved after a setter that writes the link velocities or poses holds the bodies where the last
// step left them, the same bytes whether or not a save between the step and the setter placed
// them already (without the setters' placing first, the second save would place them from what
// the setter wrote)
static void testWorldLazyBodiesSaved(void) {
  for (int setter = 0; setter < 2; setter++) {
    hsuBytes a = {0}, c = {0};
    savedAfterSetter(setter, 1, &a);
    savedAfterSetter(setter, 0, &c);
    CU_ASSERT(a.n > 0 && a.n == c.n);
    CU_ASSERT(a.n == c.n && memcmp(a.data, c.data, a.n) == 0);
    hsu_bytesFree(&a);
    hsu_bytesFree(&c);
  }
}

// high gain and torque mode mixed: the double pendulum's upper joint commanded q1(t) =
// 0.5 sin(4 t) in high gain while the lower one swings freely (torque mode, 0), beside a twin
// whose upper joint is in torque mode, driven each step by the torque the first one reported:
// the torque that made the prescribed step reproduces it, so the twins' four values agree to
// 1e-9 over 0.5 s (the prescribed solve's free part and its inverse dynamics consistent with
// the plain forward dynamics), and the first's upper joint is on its command to 1e-12
static void testWorldMixedModes(void) {
  hsBody *b1 = jsChain("js_mix1.wrl", 2, 0, 0.3, 0.001, 10);
  hsBody *b2 = jsChain("js_mix2.wrl", 2, 0, 0.3, 0.001, 10);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b2);
  hsdWorld *w1 = jsWorld(b1), *w2 = jsWorld(b2);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w1, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w2, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setJointMode(w1, 0, 1, hsMODE_HIGH_GAIN, NULL), 0);
  const hsBodyState *s1 = hsd_state(w1, 0), *s2 = hsd_state(w2, 0);
  double worst = 0, onCommand = 0;
  for (int n = 1; n <= 500; n++) {
    double target = 0.5 * sin(4 * n * 0.001);
    CU_ASSERT_EQUAL(hsd_setJointValue(w1, 0, 1, target, NULL), 0);
    dynSteps(w1, 1);
    CU_ASSERT_EQUAL(hsd_setJointTorque(w2, 0, 1, s1->u[1], NULL), 0);
    dynSteps(w2, 1);
    onCommand = fmax(onCommand, fabs(s1->q[1] - target));
    for (int k = 1; k <= 2; k++) {
      worst = fmax(worst, fmax(fabs(s1->q[k] - s2->q[k]), fabs(s1->dq[k] - s2->dq[k])));
    }
  }
  fprintf(stderr, " [twins differ by %.2g, lower joint at %.4f rad] ", worst, s1->q[2]);
  CU_ASSERT(worst < 1e-9);
  CU_ASSERT(onCommand < 1e-12);
  CU_ASSERT(fabs(s1->q[2] - 0.3) > 1e-2);  // the free joint did swing
  hsd_freeWorld(w1);
  hsd_freeWorld(w2);
  hsm_freeBody(b1);
  hsm_freeBody(b2);
}

// the sample arm (fixed root, 6 rotate joints) held at a bent pose in high gain: at rest the
// torque each joint reports is what holds the links beyond it against gravity, by statics alone:
// u_j = -a_j . sum_i (x_i - p_j) x m_i g over the links i beyond joint j (x_i their centres of
// mass, p_j and a_j the joint's origin and axis), to 1e-9 N m; then the same torques in torque
// mode keep it still (no joint moves more than 1e-9 rad in 0.1 s)
static void testWorldArmStatics(void) {
  hsBody *b = dynLoadSample("arm6/arm6.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsdWorld *w = jsWorld(b);
  for (int k = 1; k < b->nlink; k++) {
    if (hsm_hasOneDofJoint(&b->links[k])) {
      CU_ASSERT_EQUAL(hsd_setJointValue(w, 0, k, 0.4 + 0.1 * k, NULL), 0);
    }
  }
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setAllJointModes(w, 0, hsMODE_HIGH_GAIN, NULL), 0);
  dynSteps(w, 2);
  const hsBodyState *st = hsd_state(w, 0);
  double worst = 0, u[64] = {0}, q0[64];
  for (int j = 1; j < b->nlink; j++) {
    if (!hsm_hasOneDofJoint(&b->links[j])) {
      continue;
    }
    double a[3], mom[3] = {0, 0, 0};
    hsu_rotVec(a, st->linkR + 9 * j, b->links[j].axis);
    for (int i = j; i < b->nlink; i++) {
      int beyond = 0;
      for (int k = i; k >= 0 && !beyond; k = b->links[k].parent) {
        beyond = k == j;
      }
      if (!beyond) {
        continue;
      }
      double x[3], r[3], f[3] = {0, 0, -9.8 * b->links[i].mass}, t[3];
      dynCom(w, 0, i, x);
      for (int k = 0; k < 3; k++) {
        r[k] = x[k] - st->linkP[3 * j + k];
      }
      hsu_cross(t, r, f);
      for (int k = 0; k < 3; k++) {
        mom[k] += t[k];
      }
    }
    u[j] = -hsu_dot(a, mom) / hsu_norm(b->links[j].axis);
    worst = fmax(worst, fabs(st->u[j] - u[j]));
    q0[j] = st->q[j];
  }
  fprintf(stderr, " [torque error %.2g N m] ", worst);
  CU_ASSERT(worst < 1e-9);
  CU_ASSERT(fabs(st->q[2] - 0.6) < 1e-12);
  // torque mode with those torques: still
  CU_ASSERT_EQUAL(hsd_setAllJointModes(w, 0, hsMODE_TORQUE, NULL), 0);
  for (int j = 1; j < b->nlink; j++) {
    if (hsm_hasOneDofJoint(&b->links[j])) {
      CU_ASSERT_EQUAL(hsd_setJointTorque(w, 0, j, u[j], NULL), 0);
    }
  }
  dynSteps(w, 100);
  for (int j = 1; j < b->nlink; j++) {
    if (hsm_hasOneDofJoint(&b->links[j])) {
      HST_NEAR(st->q[j], q0[j], 1e-9);
    }
  }
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

// momenta of character ch from the reported link poses and motion and the model's masses: P,
// and L about the centre of mass c
static void worldMomentum(const hsdWorld *w, int ch, double c[3], double P[3], double L[3]) {
  const hsBodyState *st = hsd_state(w, ch);
  const hsBody *b = st->body;
  double M = dynMass(b);
  memset(c, 0, 3 * sizeof *c);
  memset(P, 0, 3 * sizeof *P);
  memset(L, 0, 3 * sizeof *L);
  for (int k = 0; k < b->nlink; k++) {
    double ck[3];
    dynCom(w, ch, k, ck);
    for (int j = 0; j < 3; j++) {
      c[j] += b->links[k].mass * ck[j] / M;
    }
  }
  for (int k = 0; k < b->nlink; k++) {
    const hsLink *lk = &b->links[k];
    const hsdLinkMotion *m = hsd_linkMotion(w, ch, k);
    const double *R = st->linkR + 9 * k;
    double ck[3], rc[3], x[3], vc[3], d[3], RI[9], RT[9], Iw[9], Iww[3], dxv[3];
    dynCom(w, ch, k, ck);
    hsu_rotVec(rc, R, lk->com);
    hsu_cross(x, m->w, rc);
    for (int j = 0; j < 3; j++) {
      vc[j] = m->v[j] + x[j];
      d[j] = ck[j] - c[j];
    }
    hsu_mulMat(RI, R, lk->inertia);
    hsu_transpose(RT, R);
    hsu_mulMat(Iw, RI, RT);
    hsu_rotVec(Iww, Iw, m->w);
    hsu_cross(dxv, d, vc);
    for (int j = 0; j < 3; j++) {
      P[j] += lk->mass * vc[j];
      L[j] += Iww[j] + lk->mass * dxv[j];
    }
  }
}

// the sample humanoid falling from rest, every joint high gain, every third one following
// q = 0.8 sin(2 pi t + k) given as angle, velocity and acceleration (prescribed motion): nothing
// outside acts but gravity, so after N steps of dt its momentum is M g N dt and its angular
// momentum about its centre zero, and its centre is where semi-implicit Euler puts a body
// falling from rest, c0 + g dt^2 N (N + 1) / 2 (the ODE engine's composite body, to rounding).
// The joints' given accelerations alone would keep these only to first order in dt a step.
static void testWorldPrescribedFlight(void) {
  hsBody *b = dynLoadSample("humanoid/humanoid.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsdWorld *w = jsWorld(b);
  CU_ASSERT_EQUAL(hsd_setAllJointModes(w, 0, hsMODE_HIGH_GAIN, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  double dt = 0.001, g = 9.8, M = dynMass(b), c0[3], c[3], P[3], L[3];
  worldMomentum(w, 0, c0, P, L);
  double cerr = 0, perr = 0, lerr = 0, lscale = 0;
  const int N = 1000;
  for (int i = 1; i <= N; i++) {
    double t = i * dt;
    for (int k = 1; k < b->nlink; k++) {
      double a = 0.8 * (k % 3 == 0), ph = 2 * HS_PI * t + k, om = 2 * HS_PI;
      hsd_setJointValue(w, 0, k, a * sin(ph), NULL);
      hsd_setJointVelocity(w, 0, k, a * om * cos(ph), NULL);
      hsd_setJointAcceleration(w, 0, k, -a * om * om * sin(ph), NULL);
    }
    dynSteps(w, 1);
    worldMomentum(w, 0, c, P, L);
    double fall = g * dt * dt * i * (i + 1) / 2;
    double dc[3] = {c[0] - c0[0], c[1] - c0[1], c[2] - (c0[2] - fall)};
    double dp[3] = {P[0], P[1], P[2] + M * g * t};
    cerr = fmax(cerr, hsu_norm(dc));
    perr = fmax(perr, hsu_norm(dp));
    lerr = fmax(lerr, hsu_norm(L));
    // the scale of the angular momenta inside: one swinging link's
    int k = 3;
    const hsdLinkMotion *mk = hsd_linkMotion(w, 0, k);
    lscale = fmax(lscale, b->links[k].inertia[0] * hsu_norm(mk->w));
  }
  fprintf(stderr, " [centre %.2g m off the fall, momentum %.2g N s, angular %.2g N m s (a link's "
          "%.2g)] ", cerr, perr, lerr, lscale);
  CU_ASSERT(cerr < 1e-9);
  CU_ASSERT(perr < 1e-9 * M * g * N * dt);
  CU_ASSERT(lerr < 1e-9);
  CU_ASSERT(lscale > 1e-3);  // (the limbs did swing)
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

// a joint that moves no mass and has no rotor inertia: the link gets the ODE engine's bounds
// (hsdOptions.boundMass at its origin, boundInertia isotropic: one warning at hsd_init naming
// it), so 1e-6 N m about its axis turns it at 1e-6 / 1e-6 = 1 rad/s^2: after N steps of semi-
// implicit Euler q = dt^2 N (N + 1) / 2 (6e-6 rad for 3 steps of 1 ms), with no warning while
// stepping. Bounds below the pivot floor leave the mass matrix singular: the step raises that
// pivot, goes on, and says so once (a counted warning naming the character).
static void testWorldSingularWarns(void) {
  hsBody *b = dynLoadText(
      "js_massless.wrl",
      "DEF M Humanoid { humanoidBody [ DEF BASE Joint { jointType \"fixed\" children [\n"
      " Segment { mass 1 momentsOfInertia [1 0 0 0 1 0 0 0 1] }\n"
      " DEF J Joint { jointType \"rotate\" jointId 0 jointAxis 0 0 1 children [\n"
      "  Segment { mass 0 momentsOfInertia [0 0 0 0 0 0 0 0 0] } ] } ] } ]\n"
      " joints [ USE BASE USE J ] }\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hst_expectLog(1);
  hsdWorld *w = jsWorld(b);
  int logs = hst_logCount();
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  CU_ASSERT_EQUAL(hst_logCount(), logs + 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(hst_lastLog(), "moving link 'J' (segments none) has no mass: "
                                               "bounded to 0.001 kg and 1e-06 kg m^2"));
  int before = hsd_warningCount(w);
  for (int i = 0; i < 3; i++) {
    CU_ASSERT_EQUAL(hsd_setJointTorque(w, 0, 1, 1e-6, NULL), 0);
    dynSteps(w, 1);
  }
  CU_ASSERT_EQUAL(hsd_warningCount(w), before);
  CU_ASSERT_EQUAL(hst_logCount(), logs + 1);
  HST_NEAR(hsd_state(w, 0)->q[1], 6e-6, 1e-15);
  hsd_freeWorld(w);

  hsdOptions opt;
  hsd_defaultOptions(&opt);
  opt.engine = hsENGINE_JOINT_SPACE;
  opt.boundMass = opt.boundInertia = 1e-15;
  w = dynWorldOn(&opt);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "c", b, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  before = hsd_warningCount(w);
  dynSteps(w, 3);
  CU_ASSERT_EQUAL(hsd_warningCount(w), before + 3);
  CU_ASSERT_PTR_NOT_NULL(strstr(hst_lastLog(), "singular"));
  HST_NEAR(hsd_state(w, 0)->q[1], 0, 0);
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

// the sample humanoid with every joint's rotor inertia and gear ratio replaced (ir, gr), its
// parts inlined from the samples
static hsBody *humanoidWithRotors(const char *file, double ir, double gr) {
  char path[1024];
  snprintf(path, sizeof path, "%s/humanoid/humanoid.wrl", HST_SAMPLES_DIR);
  char *text = NULL;
  size_t len = 0;
  CU_ASSERT_EQUAL_FATAL(hsu_readFile(path, 0, &text, &len, NULL), 0);
  size_t cap = 2 * len + 65536, o = 0;
  char *out = hsu_malloc(cap);
  for (const char *p = text; *p && o + 1024 < cap;) {
    double v;
    int used = 0;
    if (strncmp(p, "rotorInertia ", 13) == 0 && sscanf(p + 13, "%lf%n", &v, &used) == 1) {
      o += (size_t)snprintf(out + o, cap - o, "rotorInertia %.17g", ir);
      p += 13 + used;
    } else if (strncmp(p, "gearRatio ", 10) == 0 && sscanf(p + 10, "%lf%n", &v, &used) == 1) {
      o += (size_t)snprintf(out + o, cap - o, "gearRatio %.17g", gr);
      p += 10 + used;
    } else if (strncmp(p, "url \"parts/", 11) == 0) {
      o += (size_t)snprintf(out + o, cap - o, "url \"%s/humanoid/parts/", HST_SAMPLES_DIR);
      p += 11;
    } else {
      out[o++] = *p++;
    }
  }
  out[o] = 0;
  hsError err = {0};
  hsBody *b = hsm_loadVrml(hst_writeFile(file, out), NULL, NULL, 0, NULL, &err);
  if (!b) {
    fprintf(stderr, "\n  %s\n", err.message);
  }
  hsu_free(out);
  hsu_free(text);
  return b;
}

// the largest |q - q0| over 10 s of the humanoid in the air at 2 ms under a stiff PD law
// holding its initial pose (P 10000 N m/rad, D 100 N m s/rad on every joint, as stiff as
// OpenHRP's samples for their 10 kg m^2 rotors), started 0.1 rad off it; -1 for a runaway
static double stiffPd(hsBody *b) {
  hsdWorld *w = jsWorld(b);
  CU_ASSERT_EQUAL_FATAL(hsd_setTimeStep(w, 0.002, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  const hsBodyState *st = hsd_state(w, 0);
  double q0[64], worst = 0;
  for (int k = 1; k < b->nlink; k++) {
    q0[k] = st->q[k];
    if (hsm_hasOneDofJoint(&b->links[k])) {
      CU_ASSERT_EQUAL(hsd_setJointValue(w, 0, k, q0[k] + 0.1, NULL), 0);
    }
  }
  for (int n = 0; n < 5000; n++) {
    for (int k = 1; k < b->nlink; k++) {
      if (hsm_hasOneDofJoint(&b->links[k])) {
        double u = 10000 * (q0[k] - st->q[k]) - 100 * st->dq[k];
        CU_ASSERT_EQUAL(hsd_setJointTorque(w, 0, k, u, NULL), 0);
      }
    }
    hsError err = {0};
    if (hsd_step(w, &err) < 0) {
      hsd_freeWorld(w);
      return -1;
    }
    for (int k = 1; k < b->nlink; k++) {
      worst = fmax(worst, fabs(st->q[k] - q0[k]));
    }
  }
  hsd_freeWorld(w);
  return worst;
}

// OpenHRP's rotor inertia is what lets its samples use stiff PD gains at 2 ms: the humanoid
// with 10 kg m^2 of armature on every joint (Ir 1e-3, gear ratio 100) holds its pose under the
// stiff law for 10 s (the 0.1 rad start error never grows: the PD with armature is a damped
// oscillator, w dt = sqrt(10000 / 10) x 2 ms = 0.06); the same law on the sample's own small
// rotors (Ia up to 0.72 kg m^2, none on 10 of its 30 joints) runs away, as ODE's engine did on
// OpenHRP's sample PD walk (issue 27)
static void testWorldStiffPdWithRotors(void) {
  hst_expectLog(1);  // the runaway's warning
  hsBody *big = humanoidWithRotors("js_rotors.wrl", 1e-3, 100);
  CU_ASSERT_PTR_NOT_NULL_FATAL(big);
  double held = stiffPd(big);
  hsBody *own = dynLoadSample("humanoid/humanoid.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(own);
  double ran = stiffPd(own);
  fprintf(stderr, " [10 kg m^2 rotors: largest error %.4f rad; the sample's own: %s] ", held,
          ran < 0 ? "ran away" : "held");
  CU_ASSERT(held >= 0 && held <= 0.1 + 1e-9);
  CU_ASSERT(ran < 0 || ran > 1);
  hsm_freeBody(big);
  hsm_freeBody(own);
}

// contacts are the engine's (dynamics_jscontact.c; tested in test_jscontact.c): a pair
// registered before hsd_init or after it is accepted, and two boxes apart stay apart
static void testWorldAcceptsContacts(void) {
  hsBody *box = dynBox("js_refuse.wrl", 1, 0.1, 0.1, 0.1, 0, 0, 0, NULL);
  hsBody *box2 = dynBox("js_refuse2.wrl", 1, 0.1, 0.1, 0.1, 0, 0, 0, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  CU_ASSERT_PTR_NOT_NULL_FATAL(box2);
  hsdWorld *w = jsWorld(box);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "d", box2, NULL), 1);
  dynPlace(w, 1, 1, 0, 0, NULL);
  hsdSurface s = {0.5, 0.5, 0, 0};
  CU_ASSERT_EQUAL(hsd_addContactPair(w, 0, -1, 1, -1, &s, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  dynSteps(w, 10);
  int n;
  hsd_contacts(w, &n);
  CU_ASSERT_EQUAL(n, 0);
  hsd_freeWorld(w);
  // a pair registered after the start
  w = jsWorld(box);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "d", box2, NULL), 1);
  dynPlace(w, 1, 1, 0, 0, NULL);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  dynSteps(w, 1);
  CU_ASSERT_EQUAL(hsd_addContactPair(w, 0, -1, 1, -1, &s, NULL), 0);
  dynSteps(w, 1);
  HST_NEAR(hsd_time(w), 0.002, 1e-15);
  hsd_freeWorld(w);
  hsm_freeBody(box);
  hsm_freeBody(box2);
}

//---------------------------------- bad input -------------------------------------------------

static void testBadModel(void) {
  hsError err = {0};
  hsdOptions opt;
  hsd_defaultOptions(&opt);
  opt.engine = (hstEngine)7;
  CU_ASSERT_PTR_NULL(hsd_makeWorld(&opt, &err));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "unknown engine 7"));
  hsu_clearError(&err);
  CU_ASSERT_PTR_NULL(hsd_makeJsModel(NULL, &err));
  CU_ASSERT_EQUAL(err.code, hsE_INVALID);
  hsd_freeJsModel(NULL);
  hsd_freeJsData(NULL);
}

void register_jointspace(void) {
  CU_pSuite s = hst_addSuite("dynamics_jointspace");
  CU_add_test(s, "armature: floating two links, closed form", testArmature);
  CU_add_test(s, "armature: fixed base, 1 / (i + Ir g^2)", testArmatureFixedBase);
  CU_add_test(s, "pendulum small-oscillation period", testPendulumPeriod);
  CU_add_test(s, "double pendulum energy: drift below dt T rate", testDoublePendulumEnergy);
  CU_add_test(s, "free body precession: momenta, first order", testFreeBodyPrecession);
  CU_add_test(s, "free body, com at origin: momentum exact", testFreeBodyMomentumExact);
  CU_add_test(s, "free rigid body: closed form = general path (1e-12)", testRigidClosedForm);
  CU_add_test(s, "free rigid body: M^-1 solves, halves, Y^T D Y", testRigidSolves);
  CU_add_test(s, "slide joint under gravity with armature", testSlideUnderGravity);
  CU_add_test(s, "damping: exponential decay", testDampingDecay);
  CU_add_test(s, "humanoid: M = d ID / d qacc, SPD", testHumanoidMassMatrix);
  CU_add_test(s, "half solves on a path: bits, Y^T D Y = J M^-1 J^T", testHalfSolves);
  CU_add_test(s, "humanoid: factors bit for bit the dense LTDL's (none, some, root given)",
              testFactorBits);
  CU_add_test(s, "humanoid: kinetic energy and gravity by differences",
              testHumanoidEnergyAndGravity);
  CU_add_test(s, "humanoid floating: energy and momentum", testHumanoidFloating);
  CU_add_test(s, "given joint acceleration: base reaction, torque", testGivenJointAcceleration);
  CU_add_test(s, "every joint given, root free or given: composite path = general = ID",
              testAllGivenComposite);
  CU_add_test(s, "world: free fall, discrete solution", testWorldFreeFall);
  CU_add_test(s, "world: torque mode with rotor inertia", testWorldTorqueMode);
  CU_add_test(s, "world: high gain follows, torque by inverse dynamics", testWorldHighGain);
  CU_add_test(s, "world: high gain on a floating base", testWorldHighGainFloating);
  CU_add_test(s, "world: high gain with velocity and acceleration follows A sin wt",
              testWorldHighGainPrescribed);
  CU_add_test(s, "world: prescribed high gain on a floating base",
              testWorldHighGainPrescribedFloating);
  CU_add_test(s, "world: agrees with the ODE engine", testWorldAgreesWithOde);
  CU_add_test(s, "world: sensors agree with the ODE engine", testWorldSensorsAgreeWithOde);
  CU_add_test(s, "world: bit-identical on repeat", testWorldDeterministic);
  CU_add_test(s, "world: ODE bodies placed when saved, before a setter", testWorldLazyBodiesSaved);
  CU_add_test(s, "world: high gain and torque mode mixed", testWorldMixedModes);
  CU_add_test(s, "world: a fixed-root arm's statics in high gain", testWorldArmStatics);
  CU_add_test(s, "world: stiff PD at 2 ms held by 10 kg m^2 rotors", testWorldStiffPdWithRotors);
  CU_add_test(s, "world: prescribed motion in flight keeps momentum", testWorldPrescribedFlight);
  CU_add_test(s, "world: a massless joint is bounded; a singular mass matrix warns",
              testWorldSingularWarns);
  CU_add_test(s, "world: contacts accepted", testWorldAcceptsContacts);
  CU_add_test(s, "bad model, bad engine", testBadModel);
}
