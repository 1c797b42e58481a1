// test_loops.c - closed loops (extra joints) against independent answers: the sample four-bar
// (closure over 10 s, its small-oscillation period against the Lagrangian of the equivalent
// one-degree-of-freedom system, its loop force against the statics of its bars), xy and z loops
// constraining exactly their directions, a loop between two characters (a spherical pendulum's
// period), a high-gain crank driving the passive loop, and over-constrained loops refused.

#include "dyn_helpers.h"

//---------------------------------- the four-bar's own geometry -------------------------------
//
// samples/models/closed_link/four_bar.wrl in its BASE frame (see samples/models/README.md):
// ground pivots A = (0, 0), D = (0.4, 0); crank |AB| = 0.14 at angle phi; coupler |BC| = 0.5;
// rocker |DC| = 0.4; C on the branch with C.y > 0. Link frames have x along their bar; BASE's y
// is the world's z (gravity along -y here).

#define FB_CRANK_R0 2.4980915448    // crank's fixed rotation about z (its direction at q = 0)
#define FB_COUPLER_R0 -1.8545904360  // coupler's, relative to the crank
#define FB_ROCKER_R0 1.8545904360   // rocker's, relative to BASE

typedef struct FourBar {
  double B[2], C[2];  // joint points, BASE frame
  double ang[3];      // absolute angles of crank, coupler, rocker
  double q[3];        // joint values of CRANK, COUPLER, ROCKER
} FourBar;

// the closed configuration at crank angle phi; 0 if the loop cannot close there
static int fourBarAt(double phi, FourBar *f) {
  f->B[0] = 0.14 * cos(phi);
  f->B[1] = 0.14 * sin(phi);
  double dx = 0.4 - f->B[0], dy = -f->B[1], d = sqrt(dx * dx + dy * dy);
  double r1 = 0.5, r2 = 0.4;
  double a = (r1 * r1 - r2 * r2 + d * d) / (2 * d), h2 = r1 * r1 - a * a;
  if (h2 < 0) {
    return 0;
  }
  double h = sqrt(h2), mx = f->B[0] + a * dx / d, my = f->B[1] + a * dy / d;
  // the two intersections; keep the one above the ground line (the model's branch)
  double c1[2] = {mx + h * dy / d, my - h * dx / d}, c2[2] = {mx - h * dy / d, my + h * dx / d};
  const double *C = c1[1] > c2[1] ? c1 : c2;
  f->C[0] = C[0];
  f->C[1] = C[1];
  f->ang[0] = phi;
  f->ang[1] = atan2(C[1] - f->B[1], C[0] - f->B[0]);
  f->ang[2] = atan2(C[1], C[0] - 0.4);
  f->q[0] = remainder(phi - FB_CRANK_R0, 2 * HS_PI);
  f->q[1] = remainder(f->ang[1] - phi - FB_COUPLER_R0, 2 * HS_PI);
  f->q[2] = remainder(f->ang[2] - FB_ROCKER_R0, 2 * HS_PI);
  return 1;
}

// the centre of mass (x, y in BASE) of bar k at configuration f, from the body's link data
static void barCom(const hsBody *b, const FourBar *f, int k, double c[2]) {
  const hsLink *lk = &b->links[k + 1];
  static const double origin[3][2] = {{0, 0}, {0, 0}, {0.4, 0}};
  double o[2] = {origin[k][0], origin[k][1]};
  if (k == 1) {
    o[0] = f->B[0];
    o[1] = f->B[1];
  }
  double ca = cos(f->ang[k]), sa = sin(f->ang[k]);
  c[0] = o[0] + ca * lk->com[0] - sa * lk->com[1];
  c[1] = o[1] + sa * lk->com[0] + ca * lk->com[1];
}

// potential energy [J] and generalised inertia d(2T)/d(dphi^2) [kg m^2] at crank angle phi
static double fbPotential(const hsBody *b, double phi, double g) {
  FourBar f;
  fourBarAt(phi, &f);
  double V = 0, c[2];
  for (int k = 0; k < 3; k++) {
    barCom(b, &f, k, c);
    V += b->links[k + 1].mass * g * c[1];
  }
  return V;
}

static double fbInertia(const hsBody *b, double phi) {
  const double h = 1e-6;
  FourBar f0, f1;
  fourBarAt(phi - h, &f0);
  fourBarAt(phi + h, &f1);
  double M = 0;
  for (int k = 0; k < 3; k++) {
    double c0[2], c1[2];
    barCom(b, &f0, k, c0);
    barCom(b, &f1, k, c1);
    double vx = (c1[0] - c0[0]) / (2 * h), vy = (c1[1] - c0[1]) / (2 * h);
    double wk = remainder(f1.ang[k] - f0.ang[k], 2 * HS_PI) / (2 * h);
    M += b->links[k + 1].mass * (vx * vx + vy * vy) + b->links[k + 1].inertia[8] * wk * wk;
  }
  return M;
}

// the rotors' share of the generalised inertia at phi on the joint-space engine (OpenHRP's
// armature: rotorInertia gearRatio^2 times each joint's (dq/dphi)^2; the ODE engine adds none
// by default) [kg m^2]
static double fbArmature(const hsBody *b, double phi) {
  const double h = 1e-6;
  FourBar f0, f1;
  fourBarAt(phi - h, &f0);
  fourBarAt(phi + h, &f1);
  double M = 0;
  for (int k = 0; k < 3; k++) {
    const hsLink *lk = &b->links[k + 1];
    double dq = remainder(f1.q[k] - f0.q[k], 2 * HS_PI) / (2 * h);
    M += lk->rotorInertia * lk->gearRatio * lk->gearRatio * dq * dq;
  }
  return M;
}

// the crank angle of stable equilibrium (minimum potential over a full turn)
static double fbEquilibrium(const hsBody *b, double g) {
  double best = 0, vmin = INFINITY;
  for (int i = 0; i < 3600; i++) {
    double phi = 2 * HS_PI * i / 3600, v = fbPotential(b, phi, g);
    if (v < vmin) {
      vmin = v;
      best = phi;
    }
  }
  // golden-section refinement within one grid cell either side
  double lo = best - 2 * HS_PI / 3600, hi = best + 2 * HS_PI / 3600;
  for (int it = 0; it < 80; it++) {
    double m1 = hi - 0.618034 * (hi - lo), m2 = lo + 0.618034 * (hi - lo);
    if (fbPotential(b, m1, g) < fbPotential(b, m2, g)) {
      hi = m2;
    } else {
      lo = m1;
    }
  }
  return 0.5 * (lo + hi);
}

// a world with the four-bar placed at crank angle phi, at rest, every joint in mode
static hsdWorld *fourBarWorld(hsBody *b, double phi, hstJointMode mode, hsError *err) {
  hsdWorld *w = dynWorld(NULL);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "fb", b, NULL), 0);
  FourBar f;
  CU_ASSERT(fourBarAt(phi, &f));
  for (int k = 0; k < 3; k++) {
    CU_ASSERT_EQUAL(hsd_setJointValue(w, 0, k + 1, f.q[k], NULL), 0);
  }
  CU_ASSERT_EQUAL(hsd_setAllJointModes(w, 0, mode, NULL), 0);
  if (hsd_init(w, err) < 0) {
    hsd_freeWorld(w);
    return NULL;
  }
  return w;
}

// the largest closure error a test allows [m]: the joint-space engine closes its loops' positions
// after every step (hsd_jsCloseLoops, to 1e-12 m; before it the velocity rows alone left the
// driven crank open by 2.3e-6 m); the ODE engine's joints hold them by error reduction, which
// leaves the integration's drift (up to 2.1e-5 m here: the four-bar swinging for 10 s)
static double closureBound(const hsdWorld *w) {
  return hsd_options(w)->engine == hsENGINE_JOINT_SPACE ? 1e-11 : 1e-4;
}

//---------------------------------- tests -----------------------------------------------------

// the model's loop is there with its numbers, and its points coincide at the start
static void testModelLoop(void) {
  hsBody *b = dynLoadSample("closed_link/four_bar.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsdWorld *w = dynWorld(NULL);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "fb", b, NULL), 0);
  CU_ASSERT_EQUAL(hsd_extraJointCount(w), 1);
  CU_ASSERT_EQUAL(hsd_extraJointIndex(w, 0, "LOOP"), 0);
  CU_ASSERT_EQUAL(hsd_extraJointIndex(w, 0, "NOPE"), -1);
  int ch[2], link[2];
  CU_ASSERT_STRING_EQUAL(hsd_extraJointName(w, 0, ch, link), "LOOP");
  CU_ASSERT_EQUAL(link[0], 2);  // COUPLER
  CU_ASSERT_EQUAL(link[1], 3);  // ROCKER
  CU_ASSERT(hsd_extraJointError(w, 0) < 1e-9);
  // a second loop of that name for this character is refused
  double p[3] = {0, 0, 0}, a[3] = {0, 0, 1};
  hsError err = {0};
  CU_ASSERT(hsd_addExtraJoint(w, "LOOP", 0, 1, 0, 3, p, p, hsEXTRA_XYZ, a, &err) < 0);
  CU_ASSERT(strstr(err.message, "LOOP") != NULL);
  CU_ASSERT(hsd_addExtraJoint(w, "Z0", 0, 1, 0, 3, p, p, hsEXTRA_Z, p, &err) < 0);  // no axis
  CU_ASSERT(hsd_addExtraJoint(w, "SAME", 0, 1, 0, 1, p, p, hsEXTRA_XYZ, a, &err) < 0);
  CU_ASSERT_EQUAL(hsd_extraJointCount(w), 1);
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

// released under gravity in torque mode from the model's pose: the loop stays closed
static void testFourBarClosure(void) {
  hsBody *b = dynLoadSample("closed_link/four_bar.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsdWorld *w = dynWorld(NULL);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "fb", b, NULL), 0);
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  double worst = 0, q0 = hsd_state(w, 0)->q[1], travel = 0;
  for (int i = 0; i < 10000; i++) {
    dynSteps(w, 1);
    worst = fmax(worst, hsd_extraJointError(w, 0));
    travel = fmax(travel, fabs(hsd_state(w, 0)->q[1] - q0));
  }
  fprintf(stderr, " [closure error over 10 s: max %.2g m; crank swing %.2f rad] ", worst, travel);
  CU_ASSERT(worst < closureBound(w));
  CU_ASSERT(travel > 0.5);  // it really moved
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

// small oscillation about the stable equilibrium against 2 pi sqrt(M / V'') of the equivalent
// one-degree-of-freedom system (its Lagrangian from the bars' kinematics and mass data)
static void testFourBarPeriod(void) {
  hsBody *b = dynLoadSample("closed_link/four_bar.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  const double g = 9.8;
  double phi0 = fbEquilibrium(b, g), h = 1e-4;
  double V2 = (fbPotential(b, phi0 + h, g) - 2 * fbPotential(b, phi0, g) +
               fbPotential(b, phi0 - h, g)) / (h * h);
  hsdWorld *w = fourBarWorld(b, phi0 + 0.03, hsMODE_TORQUE, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  int js = hsd_options(w)->engine == hsENGINE_JOINT_SPACE;
  double T = 2 * HS_PI * sqrt((fbInertia(b, phi0) + (js ? fbArmature(b, phi0) : 0)) / V2);
  FourBar f;
  fourBarAt(phi0, &f);
  double qe = f.q[0], prev = hsd_state(w, 0)->q[1] - qe, first = -1, last = -1;
  int crossings = 0;
  for (int i = 1; i <= 20000; i++) {
    dynSteps(w, 1);
    double x = hsd_state(w, 0)->q[1] - qe;
    if (prev < 0 && x >= 0) {  // upward crossing, interpolated
      double t = (i - 1 + prev / (prev - x)) * 0.001;
      if (first < 0) {
        first = t;
      } else {
        crossings++;
      }
      last = t;
    }
    prev = x;
  }
  CU_ASSERT_FATAL(crossings >= 2);
  double Tsim = (last - first) / crossings;
  fprintf(stderr, " [period %.5f s, analytic %.5f s, ratio %.5f; closure %.2g m] ", Tsim, T,
          Tsim / T, hsd_extraJointError(w, 0));
  CU_ASSERT(fabs(Tsim / T - 1) < 1e-3);  // (ODE 3.4e-4, the joint-space engine 1.1e-4)
  CU_ASSERT(hsd_extraJointError(w, 0) < closureBound(w));
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

// at rest at the equilibrium the loop carries what the bars' statics say: the rocker (pivot
// D) and the coupler (pivot B on a crank whose own balance needs no loop force) each balance
// their weight's moment with the loop force F at C:
//   rocker:  (C - D) x F + (c_r - D) x W_r = 0;   coupler: (C - B) x (-F) + (c_c - B) x W_c = 0
// The crank at equilibrium carries no joint torque, so the static solution is unique.
static void testFourBarStaticForce(void) {
  hsBody *b = dynLoadSample("closed_link/four_bar.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  const double g = 9.8;
  double phi0 = fbEquilibrium(b, g);
  hsdWorld *w = fourBarWorld(b, phi0, hsMODE_TORQUE, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  dynSteps(w, 200);
  double F[6];
  CU_ASSERT_EQUAL(hsd_extraJointForce(w, 0, F), 0);
  // statics in BASE (x, y) = world (x, z)
  FourBar f;
  fourBarAt(phi0, &f);
  double cr[2], cc[2];
  barCom(b, &f, 2, cr);
  barCom(b, &f, 1, cc);
  double Wr = -b->links[3].mass * g, Wc = -b->links[2].mass * g;
  // rocker: (C-D)x F = -(c_r-D) x W_r  ->  rx Fy - ry Fx = -(crx - 0.4) Wr
  // coupler: (C-B) x F = (c_c-B) x W_c ->  sx Fy - sy Fx = (ccx - Bx) Wc
  double rx = f.C[0] - 0.4, ry = f.C[1], sx = f.C[0] - f.B[0], sy = f.C[1] - f.B[1];
  double e1 = -(cr[0] - 0.4) * Wr, e2 = (cc[0] - f.B[0]) * Wc;
  double det = rx * (-sy) - (-ry) * sx;  // unknowns (Fy, Fx): [rx -ry; sx -sy]
  double Fy = (e1 * (-sy) - (-ry) * e2) / det, Fx = (rx * e2 - sx * e1) / det;
  double mag = hypot(Fx, Fy);
  fprintf(stderr, " [loop force on ROCKER (%.7f, %.2g, %.7f) N, statics (%.7f, 0, %.7f); moment "
          "%.1g] ", F[0], F[1], F[2], Fx, Fy, hsu_norm(F + 3));
  // (at rest the statics are exact: both engines agree with them to 1e-7 N)
  CU_ASSERT(fabs(F[0] - Fx) < 1e-6 * mag);
  CU_ASSERT(fabs(F[2] - Fy) < 1e-6 * mag);
  CU_ASSERT(fabs(F[1]) < 1e-6 * mag);
  CU_ASSERT(hsu_norm(F + 3) < 1e-6 * mag);
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

// a free box tied to the world's floor link by an xy (axis x) or z (axis z) loop at its centre,
// pushed by a constant force (1, 1, 1) N with gravity: the free directions move as F t^2 / 2m,
// the constrained ones stay put
static void directionCase(hstExtraJoint type) {
  hsBody *box = dynBox("ej_box.wrl", 2, 0.1, 0.1, 0.1, 0, 0, 0, NULL);
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  hsdWorld *w = dynWorld(NULL);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "floor", floor, NULL), 0);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "box", box, NULL), 1);
  dynPlace(w, 1, 0, 0, 1, NULL);
  double p1[3] = {0, 0, 1}, p2[3] = {0, 0, 0};
  double axis[3] = {type == hsEXTRA_XY ? 2 : 0, 0, type == hsEXTRA_Z ? 3 : 0};  // normalised
  hsError err = {0};
  CU_ASSERT_EQUAL(hsd_addExtraJoint(w, "tie", 0, 0, 1, 0, p1, p2, type, axis, &err), 0);
  CU_ASSERT_EQUAL(hsd_init(w, &err), 0);
  double f[3] = {1, 1, 1}, t[3] = {0, 0, 0};
  for (int i = 0; i < 1000; i++) {
    CU_ASSERT_EQUAL(hsd_setExternalForce(w, 1, 0, f, t, NULL), 0);
    dynSteps(w, 1);
  }
  const double *p = hsd_state(w, 1)->rootP;
  double free = 1.0 * 1.0 / (2 * 2.0) * 1.001;  // F t^2 / 2m with ODE's discrete sum (1.001)
  double d[3] = {p[0], p[1], p[2] - 1};
  // the ODE engine's loop carries auxiliary bodies of 1e-4 of the box's mass (2.5e-5 m less
  // travel here); the joint-space engine's rows add no mass
  int js = hsd_options(w)->engine == hsENGINE_JOINT_SPACE;
  double along = js ? 1e-12 : 1e-3, across = js ? 1e-12 : 1e-6;
  if (type == hsEXTRA_XY) {  // free along x only
    fprintf(stderr, " [xy: along %.6f m (free %.6f), across %.2g %.2g m] ", d[0], free, d[1],
            d[2]);
    CU_ASSERT(fabs(d[0] - free) < along * free);
    CU_ASSERT(fabs(d[1]) < across && fabs(d[2]) < across);
  } else {  // free in x and y
    fprintf(stderr, " [z: across %.6f %.6f m (free %.6f), along %.2g m] ", d[0], d[1], free,
            d[2]);
    CU_ASSERT(fabs(d[0] - free) < along * free && fabs(d[1] - free) < along * free);
    CU_ASSERT(fabs(d[2]) < across);
  }
  double F[6];
  hsd_extraJointForce(w, 0, F);
  // the loop holds the box against gravity and the push in its constrained directions
  if (type == hsEXTRA_Z) {
    HST_NEAR(F[2], 2 * 9.8 - 1, 1e-3);
    HST_NEAR(F[0], 0, 1e-3);
  } else {
    HST_NEAR(F[2], 2 * 9.8 - 1, 1e-3);
    HST_NEAR(F[1], -1, 1e-3);
    HST_NEAR(F[0], 0, 1e-3);
  }
  hsd_freeWorld(w);
  hsm_freeBody(box);
  hsm_freeBody(floor);
}

static void testXyLoop(void) {
  directionCase(hsEXTRA_XY);
}

static void testZLoop(void) {
  directionCase(hsEXTRA_Z);
}

// a loop between two characters: a free box hung by an xyz loop from a second, fixed-root
// character's link, 0.3 m above its centre: a compound pendulum of period
// 2 pi sqrt((I + m d^2) / (m g d)); the loop carries the box's weight at rest
static void testTwoCharacters(void) {
  hsBody *box = dynBox("ej_pend.wrl", 1.5, 0.1, 0.1, 0.1, 0, 0, 0, NULL);
  hsBody *post = dynLoadText(
      "ej_post.wrl",
      "DEF POST Humanoid { humanoidBody [ DEF BASE Joint { jointType \"fixed\" translation 0 0 2 "
      "children [ Segment { mass 1 momentsOfInertia [0.01 0 0 0 0.01 0 0 0 0.01] } ] } ] "
      "joints [ USE BASE ] }\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  CU_ASSERT_PTR_NOT_NULL_FATAL(post);
  hsdWorld *w = dynWorld(NULL);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "post", post, NULL), 0);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "bob", box, NULL), 1);
  const double d = 0.3, a0 = 0.02;  // hanging 0.02 rad off vertical, about y
  double R[9];
  double aa[4] = {0, 1, 0, a0};
  hsu_axisAngleToMat(R, aa);
  // the pivot (d along the box's own z from its centre) at the post's origin (0, 0, 2)
  double px = -d * sin(a0), pz = 2 - d * cos(a0);
  dynPlace(w, 1, px, 0, pz, R);
  double p1[3] = {0, 0, 0}, p2[3] = {0, 0, 0}, ax[3] = {1, 0, 0};
  // p2: the pivot in the box frame, d above its centre along the box's own z
  p2[2] = d;
  hsError err = {0};
  CU_ASSERT_EQUAL(hsd_addExtraJoint(w, "hook", 0, 0, 1, 0, p1, p2, hsEXTRA_XYZ, ax, &err), 0);
  CU_ASSERT(hsd_extraJointIndex(w, 1, "hook") == 0 && hsd_extraJointIndex(w, 0, "hook") == 0);
  CU_ASSERT_EQUAL(hsd_init(w, &err), 0);
  CU_ASSERT(hsd_extraJointError(w, 0) < 1e-9);
  double m = 1.5, I = m * (0.01 + 0.01) / 12, g = 9.8;
  double T = 2 * HS_PI * sqrt((I + m * d * d) / (m * g * d));
  double prev = hsd_state(w, 1)->rootP[0], first = -1, last = -1, worst = 0;
  int crossings = 0;
  for (int i = 1; i <= 5000; i++) {
    dynSteps(w, 1);
    double x = hsd_state(w, 1)->rootP[0];
    worst = fmax(worst, hsd_extraJointError(w, 0));
    if (prev < 0 && x >= 0) {
      double t = (i - 1 + prev / (prev - x)) * 0.001;
      if (first < 0) {
        first = t;
      } else {
        crossings++;
      }
      last = t;
    }
    prev = x;
  }
  CU_ASSERT_FATAL(crossings >= 2);
  double Tsim = (last - first) / crossings;
  fprintf(stderr, " [pendulum period %.5f s, analytic %.5f s; closure max %.2g m] ", Tsim, T,
          worst);
  CU_ASSERT(fabs(Tsim / T - 1) < 1e-3);  // (both engines 3e-5)
  CU_ASSERT(worst < closureBound(w));
  hsd_freeWorld(w);
  hsm_freeBody(box);
  hsm_freeBody(post);
}

// a closed-chain mechanism driven by one high-gain motor: the crank follows its velocity
// command exactly, the passive joints follow the loop, which stays closed, and the crank's
// torque is the power the mechanism takes over its speed
static void testDrivenCrank(void) {
  hsBody *b = dynLoadSample("closed_link/four_bar.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsdWorld *w = dynWorld(NULL);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "fb", b, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setJointMode(w, 0, 1, hsMODE_HIGH_GAIN, NULL), 0);
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  double q0 = hsd_state(w, 0)->q[1], worst = 0, e0 = 0, e1 = 0;
  for (int i = 0; i < 2000; i++) {
    CU_ASSERT_EQUAL(hsd_setJointVelocity(w, 0, 1, 2.0, NULL), 0);  // 2 rad/s: over 4 s, 8 rad
    e0 = dynEnergy(w, 0, 9.8);
    dynSteps(w, 1);
    e1 = dynEnergy(w, 0, 9.8);
    worst = fmax(worst, hsd_extraJointError(w, 0));
  }
  double q = hsd_state(w, 0)->q[1], u = hsd_state(w, 0)->u[1];
  // the crank's torque times its speed is the power the mechanism takes (no damping; the
  // crank's rotor, at constant speed, takes none): (E1 - E0) / dt / 2 rad/s, first order in dt
  double power = (e1 - e0) / hsd_timeStep(w) / 2.0;
  fprintf(stderr, " [crank %.9f rad after 2 s at 2 rad/s; closure max %.2g m; torque %.6f, "
          "power / speed %.6f] ", q - q0, worst, u, power);
  HST_NEAR(q - q0, 4.0, 1e-5);  // the articulated servo's defect correction: ~1e-6
  CU_ASSERT(worst < closureBound(w));
  HST_NEAR(u, power, 1e-3);  // (ODE 3e-4, the joint-space engine 1.3e-5)
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

// the sample parallelogram leg: the hip motor (high gain) follows a sine, the passive knee and
// rod follow the loop, and the parallelogram keeps the shank's orientation: its rotation stays
// the identity (the geometry's own answer) while the thigh swings +-0.4 rad
static void testParallelLeg(void) {
  hsBody *b = dynLoadSample("closed_link/parallel_leg.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(b->nextraJoint, 1);
  hsdWorld *w = dynWorld(NULL);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "leg", b, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setJointMode(w, 0, 1, hsMODE_HIGH_GAIN, NULL), 0);
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  CU_ASSERT(hsd_extraJointError(w, 0) < 1e-12);
  double worst = 0, tilt = 0, qmax = 0;
  for (int i = 1; i <= 2000; i++) {
    double t = i * 0.001;
    CU_ASSERT_EQUAL(hsd_setJointValue(w, 0, 1, 0.4 * sin(2 * HS_PI * t), NULL), 0);
    dynSteps(w, 1);
    const hsBodyState *st = hsd_state(w, 0);
    worst = fmax(worst, hsd_extraJointError(w, 0));
    const double *R = st->linkR + 9 * 2;  // SHANK
    tilt = fmax(tilt, fabs(atan2(R[2], R[0])));
    qmax = fmax(qmax, fabs(st->q[1]));
  }
  fprintf(stderr, " [hip swing %.3f rad; closure max %.2g m; shank tilt max %.2g rad] ", qmax,
          worst, tilt);
  CU_ASSERT(qmax > 0.39);
  CU_ASSERT(worst < closureBound(w));
  CU_ASSERT(tilt < 1e-3);
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

// a teleport of the loop's joints to another closed configuration between steps: the next
// step starts there with the loop closed (the auxiliary body re-placed too), no jolt
static void testTeleportKeepsLoop(void) {
  hsBody *b = dynLoadSample("closed_link/four_bar.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  const double g = 9.8;
  double phi0 = fbEquilibrium(b, g);
  hsdWorld *w = fourBarWorld(b, phi0, hsMODE_TORQUE, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  dynSteps(w, 50);
  FourBar f;
  CU_ASSERT(fourBarAt(phi0 + 1.0, &f));
  for (int k = 0; k < 3; k++) {
    CU_ASSERT_EQUAL(hsd_setJointValue(w, 0, k + 1, f.q[k], NULL), 0);
    CU_ASSERT_EQUAL(hsd_setJointVelocity(w, 0, k + 1, 0, NULL), 0);
  }
  dynSteps(w, 1);
  double e1 = hsd_extraJointError(w, 0), dq = fabs(hsd_state(w, 0)->dq[1]);
  fprintf(stderr, " [after the teleport: closure %.2g m, crank speed %.3g rad/s] ", e1, dq);
  CU_ASSERT(e1 < fmin(1e-6, closureBound(w)));
  CU_ASSERT(dq < 0.1);  // released from rest: g dt-sized, not a jolt
  HST_NEAR(hsd_state(w, 0)->q[1], f.q[0], 1e-3);
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

// released with the loop open (the crank turned 0.05 rad off the closed pose at the
// equilibrium, the others not): the loop closes within 0.1 s and stays closed. The joint-space
// engine moves its positions back (at most 4e-4 m a step, hsd_jsCloseLoops) without a jolt: the
// joints move at the swing's own speed (the crank's 0.05 rad at period 1.37 s: 0.23 rad/s);
// the ODE engine's error reduction pulls it shut by velocity (8.2 rad/s)
static void testOpenLoopCloses(void) {
  hsBody *b = dynLoadSample("closed_link/four_bar.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  double phi0 = fbEquilibrium(b, 9.8);
  hsdWorld *w = fourBarWorld(b, phi0, hsMODE_TORQUE, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  CU_ASSERT_EQUAL(hsd_setJointValue(w, 0, 1, hsd_state(w, 0)->q[1] + 0.05, NULL), 0);
  dynSteps(w, 1);
  double e0 = hsd_extraJointError(w, 0), fast = 0, e100 = 0, worst = 0;
  for (int i = 1; i <= 1000; i++) {
    dynSteps(w, 1);
    for (int k = 1; k <= 3; k++) {
      fast = fmax(fast, fabs(hsd_state(w, 0)->dq[k]));
    }
    if (i == 100) {
      e100 = hsd_extraJointError(w, 0);
    }
    if (i >= 100) {
      worst = fmax(worst, hsd_extraJointError(w, 0));
    }
  }
  fprintf(stderr, " [open by %.2g m after the first step; %.2g m at 0.1 s, at most %.2g m after; "
          "joint speeds at most %.4g rad/s] ", e0, e100, worst, fast);
  CU_ASSERT(e0 > 1e-3);
  CU_ASSERT(worst < closureBound(w));
  CU_ASSERT(fast < (hsd_options(w)->engine == hsENGINE_JOINT_SPACE ? 0.5 : 10));
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

// a slider-crank (crank r = 0.2 m about y at the base, a slider along x from x = 0.6, a rod
// l = 0.4 m about y on the slider, its end tied to the crank's tip by an xy loop about y) falling
// in torque mode under gravity: the slider's travel is the linkage's own, s = r cos phi +
// sqrt(l^2 - r^2 sin^2 phi) - 0.6 (a rotation phi about y takes x to (cos phi, 0, -sin phi)),
// within what the closure allows, and the loop stays closed (a slide joint's rows)
static void testSliderCrank(void) {
  static const char *bar =
      "Segment { mass %g centerOfMass %g 0 0 momentsOfInertia [0.001 0 0 0 %g 0 0 0 %g] }";
  char crank[256], rod[256], text[2048];
  snprintf(crank, sizeof crank, bar, 1.0, 0.1, 0.2 * 0.2 / 12, 0.2 * 0.2 / 12);
  snprintf(rod, sizeof rod, bar, 0.5, -0.2, 0.5 * 0.4 * 0.4 / 12, 0.5 * 0.4 * 0.4 / 12);
  snprintf(text, sizeof text,
           "DEF SC Humanoid { humanoidBody [ DEF BASE Joint { jointType \"fixed\" "
           "translation 0 0 1 children [\n"
           " DEF CRANK Joint { jointType \"rotate\" jointId 0 jointAxis 0 1 0 children [ %s ] }\n"
           " DEF SLIDER Joint { jointType \"slide\" jointId 1 jointAxis 1 0 0 translation 0.6 0 0 "
           "children [ Segment { mass 2 momentsOfInertia [0.01 0 0 0 0.01 0 0 0 0.01] }\n"
           "  DEF ROD Joint { jointType \"rotate\" jointId 2 jointAxis 0 1 0 children [ %s ] } ] }"
           " ] } ]\n joints [ USE BASE USE CRANK USE SLIDER USE ROD ] }\n",
           crank, rod);
  hsBody *b = dynLoadText("slider_crank.wrl", text);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsdWorld *w = dynWorld(NULL);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "sc", b, NULL), 0);
  double p1[3] = {-0.4, 0, 0}, p2[3] = {0.2, 0, 0}, ax[3] = {0, 1, 0};
  hsError err = {0};
  CU_ASSERT_EQUAL(hsd_addExtraJoint(w, "TIE", 0, 3, 0, 1, p1, p2, hsEXTRA_XY, ax, &err), 0);
  CU_ASSERT_EQUAL(hsd_setJointValue(w, 0, 1, 0.3, NULL), 0);  // closed there: the slider at s
  double s0 = 0.2 * cos(0.3) + sqrt(0.16 - 0.04 * sin(0.3) * sin(0.3)) - 0.6;
  CU_ASSERT_EQUAL(hsd_setJointValue(w, 0, 2, s0, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setJointValue(w, 0, 3, -asin(0.2 * sin(0.3) / 0.4), NULL), 0);
  CU_ASSERT_EQUAL(hsd_init(w, &err), 0);
  CU_ASSERT(hsd_extraJointError(w, 0) < 1e-12);
  double worst = 0, off = 0, smin = s0, smax = s0;
  for (int i = 0; i < 2000; i++) {
    dynSteps(w, 1);
    const hsBodyState *st = hsd_state(w, 0);
    double phi = st->q[1], sq = 0.2 * cos(phi) + sqrt(0.16 - 0.04 * sin(phi) * sin(phi)) - 0.6;
    worst = fmax(worst, hsd_extraJointError(w, 0));
    off = fmax(off, fabs(st->q[2] - sq));
    smin = fmin(smin, st->q[2]);
    smax = fmax(smax, st->q[2]);
  }
  fprintf(stderr, " [slider %.3f .. %.3f m; off the linkage's travel by %.2g m; closure max "
          "%.2g m] ", smin, smax, off, worst);
  CU_ASSERT(smax - smin > 0.1);  // it really moved
  CU_ASSERT(worst < closureBound(w));
  CU_ASSERT(off < 10 * closureBound(w));
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

// every joint of the loop high gain: refused at hsd_init, and at a step after the modes changed
// (nothing stepped, the state as it was)
static void testOverConstrained(void) {
  hsBody *b = dynLoadSample("closed_link/four_bar.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsError err = {0};
  hsdWorld *w = fourBarWorld(b, FB_CRANK_R0, hsMODE_HIGH_GAIN, &err);
  CU_ASSERT_PTR_NULL(w);
  fprintf(stderr, " [%s] ", err.message);
  CU_ASSERT(strstr(err.message, "'LOOP'") != NULL);
  CU_ASSERT(strstr(err.message, "over-constrain") != NULL);
  w = fourBarWorld(b, FB_CRANK_R0, hsMODE_TORQUE, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  dynSteps(w, 10);
  double q1 = hsd_state(w, 0)->q[1];
  CU_ASSERT_EQUAL(hsd_setAllJointModes(w, 0, hsMODE_HIGH_GAIN, NULL), 0);
  memset(&err, 0, sizeof err);
  CU_ASSERT(hsd_step(w, &err) < 0);
  CU_ASSERT(strstr(err.message, "'LOOP'") != NULL);
  CU_ASSERT_EQUAL(hsd_stepCount(w), 10);
  CU_ASSERT_EQUAL(hsd_state(w, 0)->q[1], q1);
  // one passive joint again: it steps
  CU_ASSERT_EQUAL(hsd_setJointMode(w, 0, 3, hsMODE_TORQUE, NULL), 0);
  CU_ASSERT_EQUAL(hsd_step(w, &err), 0);
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

void register_loops(void) {
  CU_pSuite s = hst_addSuite("dynamics_loops");
  CU_add_test(s, "the model's extra joint and bad extra joints", testModelLoop);
  CU_add_test(s, "four-bar under gravity stays closed for 10 s", testFourBarClosure);
  CU_add_test(s, "four-bar small-oscillation period vs its Lagrangian", testFourBarPeriod);
  CU_add_test(s, "four-bar loop force vs statics", testFourBarStaticForce);
  CU_add_test(s, "xy loop constrains exactly its two directions", testXyLoop);
  CU_add_test(s, "z loop constrains exactly its direction", testZLoop);
  CU_add_test(s, "a loop between two characters (pendulum period)", testTwoCharacters);
  CU_add_test(s, "a high-gain crank drives the passive loop", testDrivenCrank);
  CU_add_test(s, "the parallelogram leg keeps its shank upright", testParallelLeg);
  CU_add_test(s, "a teleport to another closed configuration keeps the loop",
              testTeleportKeepsLoop);
  CU_add_test(s, "a loop open at the start closes", testOpenLoopCloses);
  CU_add_test(s, "a slider-crank follows its linkage (a slide joint in the loop)",
              testSliderCrank);
  CU_add_test(s, "over-constrained loops are refused, naming the loop", testOverConstrained);
}
