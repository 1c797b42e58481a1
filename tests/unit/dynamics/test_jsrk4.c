// test_jsrk4.c - RUNGE_KUTTA on the joint-space engine (dynamics_jsrk4.c) against closed forms:
// a double pendulum's energy, a large-amplitude pendulum's period converging at fourth order, a
// free box spinning about its intermediate axis (energy and angular momentum), a box resting on
// the floor and the sample humanoid standing as on EULER, EULER's bits kept.

#include "dyn_helpers.h"

// a fixed base at height 2 with a chain of nlink rotary links about y, each 1 kg, 1 m long
// (com 0.5 m below its joint), inertia diag(0.01, 0.01, 0.001); released from (q0, q1) rad
static hsBody *rkChain(const char *file, int nlink, double q0, double q1) {
  char text[4096];
  const char *seg =
      "Segment { mass 1 centerOfMass 0 0 -0.5 momentsOfInertia [0.01 0 0 0 0.01 0 0 0 0.001] "
      "children Transform { translation 0 0 -0.5 children Shape { geometry Box { size 0.05 0.05 "
      "1 } } } }";
  const char *second = "\n  DEF L2 Joint { jointType \"rotate\" jointId 1 jointAxis 0 1 0 "
                       "translation 0 0 -1 jointValue %.17g children [ %s ] }";
  char tail[1024] = "";
  if (nlink == 2) {
    snprintf(tail, sizeof tail, second, q1, seg);
  }
  snprintf(text, sizeof text,
           "DEF P Humanoid { humanoidBody [ DEF BASE Joint { jointType \"fixed\" translation 0 "
           "0 2 children [\n DEF L1 Joint { jointType \"rotate\" jointId 0 jointAxis 0 1 0 "
           "jointValue %.17g children [ %s%s ] } ] } ]\n joints [ USE BASE USE L1 %s] }\n",
           q0, seg, tail, nlink == 2 ? "USE L2 " : "");
  return dynLoadText(file, text);
}

// a joint-space world (defaults otherwise) stepping with integrator and time step dt; always
// this engine (not HST_ENGINE's: the suite is about it)
static hsdWorld *rkWorld(hstIntegrator integrator, double dt) {
  hsdOptions opt;
  hsd_defaultOptions(&opt);
  opt.engine = hsENGINE_JOINT_SPACE;
  hsdWorld *w = hsd_makeWorld(&opt, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  CU_ASSERT_EQUAL(hsd_setIntegrator(w, integrator, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setTimeStep(w, dt, NULL), 0);
  return w;
}

// the largest |E(t) - E(0)| of the double pendulum released from (1.0, 0.5) rad over 10 s
static double doubleDrift(hstIntegrator integrator, double dt) {
  hsBody *p = rkChain("rk_double.wrl", 2, 1.0, 0.5);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  hsdWorld *w = rkWorld(integrator, dt);
  hsd_addCharacter(w, "p", p, NULL);
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  double e0 = dynEnergy(w, 0, 9.8), drift = 0;
  int n = (int)lround(10 / dt);
  for (int i = 0; i < n; i++) {
    dynSteps(w, 1);
    drift = fmax(drift, fabs(dynEnergy(w, 0, 9.8) - e0));
  }
  hsd_freeWorld(w);
  hsm_freeBody(p);
  return drift;
}

// the undamped double pendulum's energy over 10 s (scale m g l = 9.8 J): EULER drifts by
// 1.9 % at 1 ms; RK4's local error is O(dt^5), so its drift falls 16x per halving of dt.
// Measured: RK4 6.6e-8 at 2 ms, 4.3e-9 at 1 ms (ratio 15.3). Asserted: below 5e-8 at 1 ms
// (the measured value times about 10; EULER's is 4e6 times that), the ratio between 2 and 1 ms
// above 12 (fourth order: 16; third order would give 8), EULER's 1e5 times RK4's
static void testDoublePendulumEnergy(void) {
  const double scale = 9.8;
  double d2 = doubleDrift(hsINTEGRATE_RUNGE_KUTTA, 0.002) / scale;
  double d1 = doubleDrift(hsINTEGRATE_RUNGE_KUTTA, 0.001) / scale;
  double e1 = doubleDrift(hsINTEGRATE_EULER, 0.001) / scale;
  fprintf(stderr, "\n  double pendulum, 10 s, drift / m g l: RK4 2 ms %.3g, 1 ms %.3g (ratio "
          "%.3g); EULER 1 ms %.3g\n", d2, d1, d2 / d1, e1);
  CU_ASSERT(d1 < 5e-8);
  CU_ASSERT(d2 / d1 > 12);
  CU_ASSERT(e1 > 1e5 * d1);
}

// complete elliptic integral of the first kind K(k) = pi / (2 AGM(1, sqrt(1 - k^2)))
static double ellipticK(double k) {
  double a = 1, b = sqrt(1 - k * k);
  for (int i = 0; i < 40 && fabs(a - b) > 1e-16 * a; i++) {
    double an = 0.5 * (a + b);
    b = sqrt(a * b);
    a = an;
  }
  return HS_PI / (2 * a);
}

// the time in [0, dt] at which the cubic Hermite interpolant of (q0, v0) at 0 and (q1, v1) at
// dt crosses zero (Newton from the linear guess; the interpolant's own error is O(dt^4 q''''),
// 1e-13 s here, far below the integrator's)
static double hermiteZero(double q0, double v0, double q1, double v1, double dt) {
  double t = dt * q0 / (q0 - q1);
  for (int it = 0; it < 20; it++) {
    double s = t / dt, h00 = 2 * s * s * s - 3 * s * s + 1, h10 = s * s * s - 2 * s * s + s;
    double h01 = -2 * s * s * s + 3 * s * s, h11 = s * s * s - s * s;
    double f = h00 * q0 + h10 * dt * v0 + h01 * q1 + h11 * dt * v1;
    double d00 = (6 * s * s - 6 * s) / dt, d10 = 3 * s * s - 4 * s + 1;
    double d01 = (-6 * s * s + 6 * s) / dt, d11 = 3 * s * s - 2 * s;
    double df = d00 * q0 + d10 * v0 + d01 * q1 + d11 * v1;
    t -= f / df;
  }
  return t;
}

// the mean period over the first 4 periods of a motion stepped by step(ctx, dt, &q, &v) from
// amplitude a at rest (upward zero crossings of q, Hermite-interpolated)
typedef void (*rkStepFn)(void *ctx, double dt, double *q, double *v);

static double crossingPeriod(rkStepFn step, void *ctx, double a, double dt) {
  double first = -1, last = -1, q = a, v = 0;
  int n = 0;
  for (long i = 1; n < 4 && i < 1000000; i++) {
    double qn = q, vn = v;
    step(ctx, dt, &qn, &vn);
    if (q < 0 && qn >= 0) {
      double t = (double)(i - 1) * dt + hermiteZero(q, v, qn, vn, dt);
      n += first >= 0;
      first = first < 0 ? t : first;
      last = t;
    }
    q = qn;
    v = vn;
  }
  CU_ASSERT_EQUAL(n, 4);
  return (last - first) / 4;
}

// one step of the world ctx (the pendulum's joint 1)
static void worldStep(void *ctx, double dt, double *q, double *v) {
  (void)dt;
  hsdWorld *w = ctx;
  dynSteps(w, 1);
  *q = hsd_state(w, 0)->q[1];
  *v = hsd_state(w, 0)->dq[1];
}

// one classical RK4 step of I q'' = -m g l sin q (I = 0.26 kg m^2, m g l = 4.9 N m): the
// independent reference of the engine's stages
static void scalarStep(void *ctx, double dt, double *q, double *v) {
  (void)ctx;
  const double c = 4.9 / 0.26;
  double q1 = *q, v1 = *v, a1 = -c * sin(q1);
  double q2 = q1 + dt / 2 * v1, v2 = v1 + dt / 2 * a1, a2 = -c * sin(q2);
  double q3 = q1 + dt / 2 * v2, v3 = v1 + dt / 2 * a2, a3 = -c * sin(q3);
  double q4 = q1 + dt * v3, v4 = v1 + dt * a3, a4 = -c * sin(q4);
  *q = q1 + dt / 6 * (v1 + 2 * v2 + 2 * v3 + v4);
  *v = v1 + dt / 6 * (a1 + 2 * a2 + 2 * a3 + a4);
}

// the single pendulum's period on the engine released from amplitude a at time step dt
static double pendulumPeriod(hstIntegrator integrator, double a, double dt) {
  hsBody *p = rkChain("rk_pendulum.wrl", 1, a, 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  hsdWorld *w = rkWorld(integrator, dt);
  hsd_addCharacter(w, "p", p, NULL);
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  double T = crossingPeriod(worldStep, w, a, dt);
  hsd_freeWorld(w);
  hsm_freeBody(p);
  return T;
}

// the pendulum of 0.26 kg m^2 about its pivot, m g l = 4.9 N m, released from 2 rad: its period
// is 4 sqrt(I / (m g l)) K(sin(a / 2)) (1.9234 s, 1.39 times the small-angle one). RK4's error
// falls 16x per halving of dt once dt is small (measured 14.2 from 2 to 1 ms, 15.4 from 1 to
// 0.5 ms; at 4 to 2 ms 11.9: the phase error's dt^5 term still counts, as it does for a scalar
// RK4 of the same equation); asserted 12 to 20 for both, the error at 0.5 ms below 1e-12 s
// (measured 1.5e-13), and the engine's period that of the scalar RK4 (same crossings) within
// 1e-12 s at 2 ms. EULER (symplectic, first order: a second-order period) is 1e4 times off
static void testPendulumPeriodOrder(void) {
  const double a = 2.0;
  double want = 4 * sqrt(0.26 / 4.9) * ellipticK(sin(a / 2));
  double err[3], dts[3] = {0.002, 0.001, 0.0005};
  for (int i = 0; i < 3; i++) {
    err[i] = fabs(pendulumPeriod(hsINTEGRATE_RUNGE_KUTTA, a, dts[i]) - want);
  }
  double ref = crossingPeriod(scalarStep, NULL, a, 0.002);
  double engine = pendulumPeriod(hsINTEGRATE_RUNGE_KUTTA, a, 0.002);
  double eu = fabs(pendulumPeriod(hsINTEGRATE_EULER, a, 0.002) - want);
  fprintf(stderr, "\n  pendulum from 2 rad, period %.12f s: RK4 error 2 ms %.3g, 1 ms %.3g, 0.5 "
          "ms %.3g s (ratios %.3g, %.3g); scalar RK4 - engine at 2 ms %.3g s; EULER 2 ms %.3g "
          "s\n", want, err[0], err[1], err[2], err[0] / err[1], err[1] / err[2], ref - engine, eu);
  CU_ASSERT(err[0] / err[1] > 12 && err[0] / err[1] < 20);
  CU_ASSERT(err[1] / err[2] > 12 && err[1] / err[2] < 20);
  CU_ASSERT(err[2] < 1e-12);
  CU_ASSERT(fabs(ref - engine) < 1e-12);
  CU_ASSERT(eu > 1e4 * err[0]);
}

// a free box of 2 kg, 0.3 x 0.2 x 0.1 m, spinning in zero gravity at 5 rad/s about its
// intermediate axis (y) with 0.02 rad/s about x and z, for 4 s at time step dt: the largest
// relative change of its kinetic energy and of its angular momentum (world frame); *flips the
// number of sign changes of its spin about its own y axis (the Dzhanibekov flips)
static void spinErrors(hstIntegrator integrator, double dt, double *dE, double *dL, int *flips) {
  hsBody *box = dynBox("rk_spin.wrl", 2, 0.3, 0.2, 0.1, 0, 0, 0, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  hsdWorld *w = rkWorld(integrator, dt);
  double zero[3] = {0, 0, 0}, w0[3] = {0.02, 5, 0.02};
  hsd_setGravity(w, zero, NULL);
  hsd_addCharacter(w, "box", box, NULL);
  CU_ASSERT_EQUAL(hsd_setLinkVelocity(w, 0, 0, zero, w0, NULL), 0);
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  const hsBodyState *st = hsd_state(w, 0);
  const double *I = box->links[0].inertia;
  double E0 = 0, L0[3] = {0, 0, 0};
  *dE = *dL = 0;
  *flips = 0;
  int n = (int)lround(4 / dt);
  double wyPrev = w0[1];
  for (int i = 0; i <= n; i++) {
    const double *R = st->rootR, *om = hsd_linkMotion(w, 0, 0)->w;
    double wb[3], Iw[3], L[3];
    hsu_rotVecT(wb, R, om);  // body axes
    hsu_rotVec(Iw, I, wb);
    hsu_rotVec(L, R, Iw);
    double E = 0.5 * hsu_dot(wb, Iw);
    *flips += (wb[1] < 0) != (wyPrev < 0);
    wyPrev = wb[1];
    if (i == 0) {
      E0 = E;
      memcpy(L0, L, sizeof L0);
    } else {
      double d[3] = {L[0] - L0[0], L[1] - L0[1], L[2] - L0[2]};
      *dE = fmax(*dE, fabs(E - E0) / E0);
      *dL = fmax(*dL, hsu_norm(d) / hsu_norm(L0));
    }
    dynSteps(w, 1);
  }
  hsd_freeWorld(w);
  hsm_freeBody(box);
}

// the intermediate-axis spin (Dzhanibekov: the perturbation grows at 2.4 /s, the box turns
// over after about 2.3 s): RK4 conserves the energy and the angular momentum to its order
// (measured at 1 ms: 5.5e-13 and 3.5e-12 relative, 15.7 and 16.0 times less than at 2 ms;
// asserted below 1e-10, ratios above 12); EULER's energy error is 4.6e-3, asserted 1e6 times
// RK4's; both turn the box over at least once
static void testIntermediateAxisSpin(void) {
  double e2, l2, e1, l1, ee, le;
  int f2, f1, fe;
  spinErrors(hsINTEGRATE_RUNGE_KUTTA, 0.002, &e2, &l2, &f2);
  spinErrors(hsINTEGRATE_RUNGE_KUTTA, 0.001, &e1, &l1, &f1);
  spinErrors(hsINTEGRATE_EULER, 0.001, &ee, &le, &fe);
  fprintf(stderr, "\n  intermediate-axis spin, 4 s: RK4 dE/E 2 ms %.3g, 1 ms %.3g; dL/L 2 ms "
          "%.3g, 1 ms %.3g (%d flips); EULER 1 ms dE/E %.3g, dL/L %.3g (%d flips)\n", e2, e1, l2,
          l1, f1, ee, le, fe);
  CU_ASSERT(e1 < 1e-10 && l1 < 1e-10);
  CU_ASSERT(e2 / e1 > 12 && l2 / l1 > 12);
  CU_ASSERT(ee > 1e6 * e1);
  CU_ASSERT(f1 >= 1 && f2 == f1 && fe >= 1);
}

// a box of 1 kg, 0.2 x 0.2 x 0.1 m, dropped from 1 mm onto floor/floor.wrl (mu 0.5) on
// integrator; after 1 s of settling, over the next 1 s: its lowest and highest centre height,
// the contact forces' largest step-to-step change and largest |sum Fz - m g|, steps with fewer
// than 4 points
static void restingBox(hstIntegrator integrator, double z[2], double *change, double *off,
                       int *fewer) {
  hsBody *box = dynBox("rk_box.wrl", 1, 0.2, 0.2, 0.1, 0, 0, 0, NULL);
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  hsdWorld *w = rkWorld(integrator, 0.001);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "box", box, NULL), 0);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "floor", floor, NULL), 1);
  hsdSurface sf = {0.5, 0.5, 0, 0.01};
  CU_ASSERT_EQUAL(hsd_addContactPair(w, 0, -1, 1, -1, &sf, NULL), 0);
  dynPlace(w, 0, 0.3, -0.2, 0.051, NULL);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  dynSteps(w, 1000);
  double prev = 0;
  z[0] = 1e9;
  z[1] = -1e9;
  *change = *off = 0;
  *fewer = 0;
  for (int i = 0; i < 1000; i++) {
    dynSteps(w, 1);
    int n;
    const hsdContact *c = hsd_contacts(w, &n);
    double fz = 0;
    for (int k = 0; k < n; k++) {
      fz += c[k].force[2];
    }
    *fewer += n < 4;
    *off = fmax(*off, fabs(fz - 9.8));
    *change = i > 0 ? fmax(*change, fabs(fz - prev)) : 0;
    prev = fz;
    z[0] = fmin(z[0], hsd_state(w, 0)->rootP[2]);
    z[1] = fmax(z[1], hsd_state(w, 0)->rootP[2]);
  }
  hsd_freeWorld(w);
  hsm_freeBody(box);
  hsm_freeBody(floor);
}

// with contacts: the resting box on RK4 (the contact impulse held through the stages) rests as
// on EULER: its height within the allowed penetration (1e-4 m) of EULER's and at most that deep,
// not moving (spread below 1e-9 m), four points every step, the forces summing to m g within
// 1e-5 N with a step-to-step change below 1e-6 N (EULER's test: 1e-6 relative, 1e-6 N)
static void testRestingBox(void) {
  double ze[2], zr[2], ce, cr, oe, or_;
  int fe, fr;
  restingBox(hsINTEGRATE_EULER, ze, &ce, &oe, &fe);
  restingBox(hsINTEGRATE_RUNGE_KUTTA, zr, &cr, &or_, &fr);
  fprintf(stderr, "\n  resting box: z EULER %.9f, RK4 %.9f (spread %.3g) m; |sum Fz - m g| "
          "%.3g / %.3g N, step change %.3g / %.3g N\n", ze[0], zr[0], zr[1] - zr[0], oe, or_,
          ce, cr);
  CU_ASSERT(fabs(zr[0] - ze[0]) <= 1e-4);
  CU_ASSERT(zr[0] >= 0.05 - 1e-4 - 1e-9 && zr[1] <= 0.05);
  CU_ASSERT(zr[1] - zr[0] < 1e-9);
  CU_ASSERT_EQUAL(fr, 0);
  CU_ASSERT(or_ < 1e-5);
  CU_ASSERT(cr < 1e-6);
}

// the sample PD gains (samples/controllers/pd_controller.py: name fragment, P [N m/rad],
// D [N m s/rad]; first match wins, others 100, 1)
static const struct {
  const char *frag;
  double p, d;
} kRkGains[] = {
    {"LEG_HIP_Y", 1000, 5},   {"LEG_HIP_R", 2000, 10},   {"LEG_HIP_P", 2500, 12},
    {"LEG_KNEE", 2500, 12},   {"LEG_ANKLE_P", 1500, 8},  {"LEG_ANKLE_R", 1200, 6},
    {"CHEST", 1500, 8},       {"NECK", 50, 0.2},         {"ARM_SHOULDER", 300, 0.75},
    {"ARM_ELBOW", 150, 0.4},  {"ARM_WRIST_Y", 5, 0.02},  {"ARM_WRIST", 20, 0.05},
};

// the sample humanoid standing in torque mode (knees bent 0.4 rad) on the floor for 3 s on
// integrator, 1 ms: over the last 2 s, the ankle force sensors' Fz sum's mean (*mean) and
// step-to-step standard deviation (*sd), the root's height at the end (*z); the weight above
// the sensors into *above
static void standing(hstIntegrator integrator, double *above, double *mean, double *sd,
                     double *z) {
  hsBody *robot = dynLoadSample("humanoid/humanoid.wrl");
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(robot);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  int n = robot->nlink;
  CU_ASSERT_FATAL(n <= 64);
  double qRef[64], P[64], D[64];
  hsdWorld *w = rkWorld(integrator, 0.001);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "floor", floor, NULL), 0);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "robot", robot, NULL), 1);
  hsdSurface sf = {0.5, 0.5, 0, 0.01};
  CU_ASSERT_EQUAL(hsd_addContactPair(w, 0, -1, 1, -1, &sf, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setAllJointModes(w, 1, hsMODE_TORQUE, NULL), 0);
  for (int k = 1; k < n; k++) {
    const char *name = robot->links[k].name;
    qRef[k] = strstr(name, "_HIP_P") || strstr(name, "_ANKLE_P") ? -0.2
              : strstr(name, "LEG_KNEE")                         ? 0.4
              : strstr(name, "ARM_ELBOW")                        ? -0.3
                                                                 : 0;
    P[k] = 100;
    D[k] = 1;
    for (size_t g = 0; g < sizeof kRkGains / sizeof kRkGains[0]; g++) {
      if (strstr(name, kRkGains[g].frag)) {
        P[k] = kRkGains[g].p;
        D[k] = kRkGains[g].d;
        break;
      }
    }
    hsd_setJointValue(w, 1, k, qRef[k], NULL);
  }
  dynPlace(w, 1, 0, 0, 0.80804, NULL);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  int fs[2] = {hsm_sensorById(robot, hsSENSOR_FORCE, 0), hsm_sensorById(robot, hsSENSOR_FORCE, 1)};
  CU_ASSERT_FATAL(fs[0] >= 0 && fs[1] >= 0);
  *above = 0;
  for (int k = 0; k < n; k++) {
    int below = 0;
    for (int a = k; a >= 0 && !below; a = robot->links[a].parent) {
      below = a == robot->sensors[fs[0]].link || a == robot->sensors[fs[1]].link;
    }
    *above += below ? 0 : robot->links[k].mass * 9.8;
  }
  const hsBodyState *st = hsd_state(w, 1);
  double prev = 0, sum = 0, sumD = 0, sumD2 = 0;
  int nd = 0;
  for (int i = 0; i < 3000; i++) {
    for (int k = 1; k < n; k++) {
      hsd_setJointTorque(w, 1, k, P[k] * (qRef[k] - st->q[k]) - D[k] * st->dq[k], NULL);
    }
    dynSteps(w, 1);
    int m;
    double fz = dynSensorReading(w, 1, fs[0], &m)[2] + dynSensorReading(w, 1, fs[1], &m)[2];
    if (i > 1000) {
      sum += fz;
      sumD += fz - prev;
      sumD2 += (fz - prev) * (fz - prev);
      nd++;
    }
    prev = fz;
  }
  *mean = sum / nd;
  double md = sumD / nd;
  *sd = sqrt(fmax(0, sumD2 / nd - md * md));
  *z = st->rootP[2];
  hsd_freeWorld(w);
  hsm_freeBody(robot);
  hsm_freeBody(floor);
}

// the sample humanoid standing in torque mode under the sample PD gains: on RK4 as on EULER, the
// ankle Fz sum is the weight above the sensors within 0.5 % with a step-to-step standard
// deviation below 0.1 N (issue 27's smooth forces), and the root stands where EULER's does
// within 1 mm
static void testHumanoidStanding(void) {
  double W, me, se, ze, mr, sr, zr;
  standing(hsINTEGRATE_EULER, &W, &me, &se, &ze);
  standing(hsINTEGRATE_RUNGE_KUTTA, &W, &mr, &sr, &zr);
  fprintf(stderr, "\n  humanoid standing: weight above the ankles %.6g N; mean Fz EULER %.6g, "
          "RK4 %.6g N; step sd %.3g / %.3g N; root z %.6f / %.6f m\n", W, me, mr, se, sr, ze, zr);
  CU_ASSERT(fabs(mr - W) / W < 0.005);
  CU_ASSERT(sr < 0.1);
  CU_ASSERT(fabs(zr - ze) < 1e-3);
}

// a box of 1 kg, 0.3 x 0.2 x 0.1 m, dropped tilted and spinning onto the floor on RK4 (world
// made, not started); *box and *floor the caller's to free
static hsdWorld *tumblingBox(hsBody **box, hsBody **floor) {
  *box = dynBox("rk_tumble.wrl", 1, 0.3, 0.2, 0.1, 0, 0, 0, NULL);
  *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(*box);
  CU_ASSERT_PTR_NOT_NULL_FATAL(*floor);
  hsdWorld *w = rkWorld(hsINTEGRATE_RUNGE_KUTTA, 0.001);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "box", *box, NULL), 0);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "floor", *floor, NULL), 1);
  hsdSurface sf = {0.5, 0.5, 0, 0.01};
  CU_ASSERT_EQUAL(hsd_addContactPair(w, 0, -1, 1, -1, &sf, NULL), 0);
  double aa[4] = {1, 2, 0.5, 0.4}, R[9], v[3] = {0.3, 0, 0}, om[3] = {1, -2, 3};
  hsu_axisAngleToMat(R, aa);
  dynPlace(w, 0, 0, 0, 0.25, R);
  CU_ASSERT_EQUAL(hsd_setLinkVelocity(w, 0, 0, v, om, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  return w;
}

// the box's root pose after the world's steps, 12 numbers
static void boxPose(const hsdWorld *w, double out[12]) {
  memcpy(out, hsd_state(w, 0)->rootP, 3 * sizeof *out);
  memcpy(out + 3, hsd_state(w, 0)->rootR, 9 * sizeof *out);
}

// RK4 is deterministic (two runs of a box tumbling onto the floor give the same bits) and a
// saved state continues with the same bits (the method travels with the state's options): save
// after 300 steps, 400 more, restore, 400 more: the same pose, bit for bit; the box has landed
// (contacts in the last step)
static void testDeterminismAndRestore(void) {
  hsBody *b1, *f1, *b2, *f2;
  hsdWorld *w1 = tumblingBox(&b1, &f1), *w2 = tumblingBox(&b2, &f2);
  dynSteps(w1, 300);
  dynSteps(w2, 300);
  hsuBytes saved = {0};
  CU_ASSERT_EQUAL(hsd_saveState(w1, &saved, NULL), 0);
  dynSteps(w1, 400);
  dynSteps(w2, 400);
  double p1[12], p2[12], p3[12];
  boxPose(w1, p1);
  boxPose(w2, p2);
  CU_ASSERT(memcmp(p1, p2, sizeof p1) == 0);
  int n;
  hsd_contacts(w1, &n);
  CU_ASSERT(n >= 1);
  CU_ASSERT_EQUAL(hsd_integrator(w1), hsINTEGRATE_RUNGE_KUTTA);
  hsd_setIntegrator(w1, hsINTEGRATE_EULER, NULL);  // (the state brings RK4 back)
  saved.pos = 0;
  CU_ASSERT_EQUAL(hsd_restoreState(w1, &saved, NULL), 0);
  CU_ASSERT_EQUAL(hsd_integrator(w1), hsINTEGRATE_RUNGE_KUTTA);
  dynSteps(w1, 400);
  boxPose(w1, p3);
  CU_ASSERT(memcmp(p1, p3, sizeof p1) == 0);
  hsu_bytesFree(&saved);
  hsd_freeWorld(w1);
  hsd_freeWorld(w2);
  hsm_freeBody(b1);
  hsm_freeBody(f1);
  hsm_freeBody(b2);
  hsm_freeBody(f2);
}

// the method's setter refuses what is neither method; EULER is the default
static void testSetter(void) {
  hsdWorld *w = dynWorld(NULL);
  hsError err = {0};
  CU_ASSERT_EQUAL(hsd_integrator(w), hsINTEGRATE_EULER);
  CU_ASSERT_EQUAL(hsd_setIntegrator(w, 2, &err), hsE_INVALID);
  CU_ASSERT(strstr(err.message, "integration method 2") != NULL);
  CU_ASSERT_EQUAL(hsd_integrator(w), hsINTEGRATE_EULER);
  hsd_freeWorld(w);
}

// high gain on RK4: the double pendulum's upper joint commanded q = A sin(w t) with its velocity
// and acceleration (prescribed motion), the lower joint free (torque mode, no torque): the upper
// joint ends every step exactly on its command, as on EULER. The command is a sample per step
// (its acceleration held through the stages, as OpenHRP's engine holds a high-gain joint's), so
// the lower joint's response converges at first order on both methods (measured: its angle
// after 2 s moves by 1.6e-3 rad from 1 to 0.5 ms on RK4, 2.7e-3 on EULER); asserted: RK4 and
// EULER agree on it within 1e-2 rad and RK4 moves less with dt than EULER
static double drivenLower(hstIntegrator integrator, double dt, double *follow) {
  hsBody *p = rkChain("rk_driven.wrl", 2, 0, 0.3);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  hsdWorld *w = rkWorld(integrator, dt);
  hsd_addCharacter(w, "p", p, NULL);
  CU_ASSERT_EQUAL(hsd_setJointMode(w, 0, 1, hsMODE_HIGH_GAIN, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setJointMode(w, 0, 2, hsMODE_TORQUE, NULL), 0);
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  const double A = 0.5, om = 3;
  const hsBodyState *st = hsd_state(w, 0);
  int n = (int)lround(2 / dt);
  *follow = 0;
  for (int i = 1; i <= n; i++) {
    double t = i * dt;
    hsd_setJointValue(w, 0, 1, A * sin(om * t), NULL);
    hsd_setJointVelocity(w, 0, 1, A * om * cos(om * t), NULL);
    hsd_setJointAcceleration(w, 0, 1, -A * om * om * sin(om * t), NULL);
    dynSteps(w, 1);
    *follow = fmax(*follow, fabs(st->q[1] - A * sin(om * t)));
  }
  double q2 = st->q[2];
  hsd_freeWorld(w);
  hsm_freeBody(p);
  return q2;
}

static void testHighGain(void) {
  double f1, f2, fe1, fe2;
  double r1 = drivenLower(hsINTEGRATE_RUNGE_KUTTA, 0.001, &f1);
  double r2 = drivenLower(hsINTEGRATE_RUNGE_KUTTA, 0.0005, &f2);
  double e1 = drivenLower(hsINTEGRATE_EULER, 0.001, &fe1);
  double e2 = drivenLower(hsINTEGRATE_EULER, 0.0005, &fe2);
  fprintf(stderr, "\n  driven pendulum: upper joint off its command RK4 %.3g / %.3g, EULER %.3g "
          "rad; lower joint at 2 s, 1 ms - 0.5 ms: RK4 %.3g, EULER %.3g rad\n", f1, f2, fe1,
          r1 - r2, e1 - e2);
  CU_ASSERT(f1 < 1e-12 && f2 < 1e-12 && fe1 < 1e-12);
  CU_ASSERT(fabs(r1 - e1) < 1e-2 && fabs(r2 - e2) < 1e-2);
  CU_ASSERT(fabs(r1 - r2) < fabs(e1 - e2));
}

// the ODE engine has one integrator: RUNGE_KUTTA steps it as EULER, to the bit (the double
// pendulum, 500 steps)
static void testOdeEngineEuler(void) {
  double q[2][2];
  for (int m = 0; m < 2; m++) {
    hsBody *p = rkChain("rk_ode.wrl", 2, 1.0, 0.5);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    hsdOptions opt;
    hsd_defaultOptions(&opt);
    opt.engine = hsENGINE_ODE;
    hsdWorld *w = hsd_makeWorld(&opt, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_EQUAL(hsd_setIntegrator(w, m ? hsINTEGRATE_RUNGE_KUTTA : hsINTEGRATE_EULER, NULL),
                    0);
    hsd_addCharacter(w, "p", p, NULL);
    CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
    dynSteps(w, 500);
    q[m][0] = hsd_state(w, 0)->q[1];
    q[m][1] = hsd_state(w, 0)->q[2];
    hsd_freeWorld(w);
    hsm_freeBody(p);
  }
  CU_ASSERT(memcmp(q[0], q[1], sizeof q[0]) == 0);
}

// damping on RK4 (explicit in the stages): a URDF wheel on a vertical axis (izz 0.2 about it,
// <dynamics damping="0.5">) spun at 2 rad/s without gravity. RK4 on w' = -(b / I) w multiplies
// w by R(z) = 1 + z + z^2/2 + z^3/6 + z^4/24, z = -b dt / I, each step: asserted to 1e-12
// relative over 2 s (EULER's implicit damping gives 1 / (1 - z) instead); the continuous
// exp(-b t / I) within RK4's own error, n |z|^5 / 120 after n steps (1.6e-12 at 2 s; measured
// 1.63e-12), plus 1e-13 for rounding
static void testDamping(void) {
  hsBody *b = dynDampedWheel("rk_wheel.urdf");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  const double dt = 1e-3, B = 0.5, I = 0.2, z = -B * dt / I;
  const double R = 1 + z + z * z / 2 + z * z * z / 6 + z * z * z * z / 24;
  hsdWorld *w = rkWorld(hsINTEGRATE_RUNGE_KUTTA, dt);
  double zero[3] = {0, 0, 0};
  hsd_setGravity(w, zero, NULL);
  hsd_addCharacter(w, "wheel", b, NULL);
  int k = b->nlink - 1;
  CU_ASSERT_EQUAL(hsd_setJointMode(w, 0, k, hsMODE_TORQUE, NULL), 0);
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setJointVelocity(w, 0, k, 2.0, NULL), 0);
  const hsBodyState *st = hsd_state(w, 0);
  double worst = 0, worstC = 0;
  for (int n = 1; n <= 2000; n++) {
    dynSteps(w, 1);
    worst = fmax(worst, fabs(st->dq[k] / (2 * pow(R, n)) - 1));
    worstC = fmax(worstC, fabs(st->dq[k] / (2 * exp(-B * n * dt / I)) - 1));
  }
  fprintf(stderr, "\n  damped wheel: |w / (w0 R^n) - 1| <= %.3g, |w / w0 exp(-b t / I) - 1| <= "
          "%.3g\n", worst, worstC);
  CU_ASSERT(worst < 1e-12);
  CU_ASSERT(worstC < 2000 * pow(fabs(z), 5) / 120 + 1e-13);
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

// the sample humanoid in high gain on the floor squatting for 4 s on integrator (1 ms): bend
// a(t) = 0.2 + 0.15 (1 - cos(pi t)) rad (hip and ankle pitch -a, knee 2a, elbows -0.3),
// commanded every step as angle, velocity and acceleration; counts the steps without contact
// (*none), returns the largest difference between the root's vertical velocity and the squat's,
// -0.6 sin(a) a' (the 0.3 m thigh and shank); *drop: how far from its start height it ends
static double squat(hstIntegrator integrator, int *none, double *drop) {
  hsBody *robot = dynLoadSample("humanoid/humanoid.wrl");
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(robot);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  int n = robot->nlink;
  CU_ASSERT_FATAL(n <= 64);
  double sign[64], rest[64];
  hsdWorld *w = rkWorld(integrator, 0.001);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "floor", floor, NULL), 0);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "robot", robot, NULL), 1);
  hsdSurface sf = {0.5, 0.5, 0, 0.01};
  CU_ASSERT_EQUAL(hsd_addContactPair(w, 0, -1, 1, -1, &sf, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setAllJointModes(w, 1, hsMODE_HIGH_GAIN, NULL), 0);
  for (int k = 1; k < n; k++) {
    const char *name = robot->links[k].name;
    sign[k] = strstr(name, "_HIP_P") || strstr(name, "_ANKLE_P") ? -1
              : strstr(name, "LEG_KNEE")                         ? 2
                                                                 : 0;
    rest[k] = strstr(name, "ARM_ELBOW") ? -0.3 : 0.2 * sign[k];
    hsd_setJointValue(w, 1, k, rest[k], NULL);
  }
  dynPlace(w, 1, 0, 0, 0.80804, NULL);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  dynSteps(w, 200);  // settled at a = 0.2, holding
  const hsBodyState *st = hsd_state(w, 1);
  double z0 = st->rootP[2], worst = 0;
  *none = 0;
  for (int i = 1; i <= 4000; i++) {
    double t = i * 0.001, a = 0.2 + 0.15 * (1 - cos(HS_PI * t));
    double da = 0.15 * HS_PI * sin(HS_PI * t), dda = 0.15 * HS_PI * HS_PI * cos(HS_PI * t);
    for (int k = 1; k < n; k++) {
      if (hsm_hasOneDofJoint(&robot->links[k])) {
        hsd_setJointValue(w, 1, k, sign[k] != 0 ? sign[k] * a : rest[k], NULL);
        hsd_setJointVelocity(w, 1, k, sign[k] * da, NULL);
        hsd_setJointAcceleration(w, 1, k, sign[k] * dda, NULL);
      }
    }
    dynSteps(w, 1);
    int nc;
    hsd_contacts(w, &nc);
    *none += nc == 0;
    worst = fmax(worst, fabs(hsd_linkMotion(w, 1, 0)->v[2] + 0.6 * sin(a) * da));
  }
  *drop = fabs(st->rootP[2] - z0);
  hsd_freeWorld(w);
  hsm_freeBody(robot);
  hsm_freeBody(floor);
  return worst;
}

// high gain with contacts on RK4 (the prescribed joints, the root responding, the soles landed
// where the contact solve's velocities take them): the squat never loses the floor, the root's
// vertical velocity stays within 1e-3 m/s of the squat's (peak 0.136 m/s) and it ends within
// 1e-6 m of its start height, as on EULER (measured on both: 0 steps, 1.25e-4 m/s; 4.5e-10 m
// on RK4). The stages leave the last stage's kinematics in the data; the step's landing of the
// soles reads the start's (as on EULER), which RK4 puts back: without that the soles rose by
// 1e-7 m a step, lost the floor every ~90 steps (25 steps without contact) and fell a step
static void testSquat(void) {
  int ne, nr;
  double de, dr;
  double ve = squat(hsINTEGRATE_EULER, &ne, &de), vr = squat(hsINTEGRATE_RUNGE_KUTTA, &nr, &dr);
  fprintf(stderr, "\n  high-gain squat: steps without contact EULER %d, RK4 %d; root vz off "
          "%.3g / %.3g m/s; end height off %.3g / %.3g m\n", ne, nr, ve, vr, de, dr);
  CU_ASSERT_EQUAL(nr, 0);
  CU_ASSERT(vr < 1e-3);
  CU_ASSERT(dr < 1e-6);
}

// a position-given root on RK4 ends every step where commanded, as on EULER: a 5 kg box given
// a pose moving at 0.5 m/s along x and turning at 0.8 rad/s about z pushes a free 1 kg box
// along the floor (friction 0.3); after 1 s the pusher is at its commanded pose (1e-12 m and
// rad) and the pushed box moves along x (the contact rows and the friction with the floor held
// through the stages)
static void testGivenRoot(void) {
  hsBody *box = dynBox("rk_pushed.wrl", 1, 0.2, 0.2, 0.2, 0, 0, 0, NULL);
  hsBody *pusher = dynBox("rk_pusher.wrl", 5, 0.2, 0.4, 0.2, 0, 0, 0, NULL);
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  CU_ASSERT_PTR_NOT_NULL_FATAL(pusher);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  hsdWorld *w = rkWorld(hsINTEGRATE_RUNGE_KUTTA, 0.001);
  hsd_addCharacter(w, "box", box, NULL);
  hsd_addCharacter(w, "pusher", pusher, NULL);
  hsd_addCharacter(w, "floor", floor, NULL);
  hsdSurface sf = {0.3, 0.3, 0, 0.01};
  hsd_addContactPair(w, 0, -1, 2, -1, &sf, NULL);
  hsd_addContactPair(w, 1, -1, 0, -1, &sf, NULL);
  dynPlace(w, 0, 0.2, 0, 0.1, NULL);
  dynPlace(w, 1, 0, 0, 0.11, NULL);
  hsd_setPositionGiven(w, 1, 0, 1, NULL);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, p[3] = {0, 0, 0.11};
  for (int i = 1; i <= 1000; i++) {
    double aa[4] = {0, 0, 1, 0.8 * i * 0.001};
    hsu_axisAngleToMat(R, aa);
    p[0] = 0.5 * i * 0.001;
    hsd_setLinkPose(w, 1, 0, p, R, NULL);
    dynSteps(w, 1);
  }
  const hsBodyState *pb = hsd_state(w, 1);
  double off = 0;
  for (int k = 0; k < 9; k++) {
    off = fmax(off, fabs(pb->rootR[k] - R[k]));
  }
  for (int k = 0; k < 3; k++) {
    off = fmax(off, fabs(pb->rootP[k] - p[k]));
  }
  double v = hsd_linkMotion(w, 0, 0)->v[0];
  fprintf(stderr, "\n  given root on RK4: off its command %.3g; pushed box at %.4f m/s\n", off, v);
  CU_ASSERT(off < 1e-12);
  CU_ASSERT(v > 0.1);
  hsd_freeWorld(w);
  hsm_freeBody(box);
  hsm_freeBody(pusher);
  hsm_freeBody(floor);
}

void register_jsrk4(void) {
  hsd_initODE();
  CU_pSuite s = hst_addSuite("dynamics_jsrk4");
  CU_add_test(s, "double pendulum energy: RK4 vs EULER", testDoublePendulumEnergy);
  CU_add_test(s, "large-amplitude pendulum period: fourth order", testPendulumPeriodOrder);
  CU_add_test(s, "intermediate-axis spin: energy and momentum", testIntermediateAxisSpin);
  CU_add_test(s, "resting box: as on EULER", testRestingBox);
  CU_add_test(s, "standing humanoid: smooth ankle forces", testHumanoidStanding);
  CU_add_test(s, "determinism, save and restore", testDeterminismAndRestore);
  CU_add_test(s, "the method's setter", testSetter);
  CU_add_test(s, "high gain: prescribed joint on its command", testHighGain);
  CU_add_test(s, "ODE engine: RUNGE_KUTTA is EULER", testOdeEngineEuler);
  CU_add_test(s, "damping: RK4's amplification factor", testDamping);
  CU_add_test(s, "high-gain squat on the floor", testSquat);
  CU_add_test(s, "position-given root on its command", testGivenRoot);
}
