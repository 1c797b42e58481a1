// test_jscontact.c - the joint-space engine's contacts (dynamics_jscontact.c) against closed
// forms: a box resting on the floor, torsional friction of its face, a box sliding to a stop,
// momentum kept when two free boxes meet, the sample humanoid standing in torque mode,
// determinism.

#include "dyn_helpers.h"

// a box of mass 1 kg, 0.2 x 0.2 x 0.1 m, on floor/floor.wrl (its top at z = 0) on the
// joint-space engine, friction mu (static and slip), centre at height z; the box is
// character 0, the floor 1 (the pair's link[0] is the box: forces on it, normal +z)
static hsdWorld *jsBoxOnFloor(double mu, double z, hsBody **box, hsBody **floor);

// as jsBoxOnFloor, the box sx x sy (x 0.1 m)
static hsdWorld *jsSizedBoxOnFloor(double sx, double sy, double mu, double z, hsBody **box,
                                   hsBody **floor) {
  *box = dynBox("jsc_box.wrl", 1, sx, sy, 0.1, 0, 0, 0, NULL);
  *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(*box);
  CU_ASSERT_PTR_NOT_NULL_FATAL(*floor);
  hsdOptions opt;
  hsd_defaultOptions(&opt);
  opt.engine = hsENGINE_JOINT_SPACE;
  hsdWorld *w = dynWorldOn(&opt);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "box", *box, NULL), 0);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "floor", *floor, NULL), 1);
  hsdSurface s = {mu, mu, 0, 0.01};
  CU_ASSERT_EQUAL(hsd_addContactPair(w, 0, -1, 1, -1, &s, NULL), 0);
  dynPlace(w, 0, 0.3, -0.2, z, NULL);
  return w;
}

static hsdWorld *jsBoxOnFloor(double mu, double z, hsBody **box, hsBody **floor) {
  return jsSizedBoxOnFloor(0.2, 0.2, mu, z, box, floor);
}

// the sum of the contact forces on the box (link[0] of every contact), and the count
static int forceSum(const hsdWorld *w, double f[3]) {
  int n;
  const hsdContact *c = hsd_contacts(w, &n);
  f[0] = f[1] = f[2] = 0;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < 3; j++) {
      f[j] += c[i].force[j];
    }
  }
  return n;
}

// resting on the floor (dropped from 1 mm above): after 1 s of settling, over the next 1 s
// the contact forces sum to m g within 1e-6 relative (the solve's tolerance is 1e-10 of the
// largest impulse), their step-to-step change stays below 1e-6 N, every step has the face's
// four corners; the box sinks no deeper than the allowed penetration (0.1 mm)
static void testBoxResting(void) {
  hsBody *box, *floor;
  hsdWorld *w = jsBoxOnFloor(0.5, 0.051, &box, &floor);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  dynSteps(w, 1000);
  const double mg = 9.8;
  double f[3], fPrev = 0, worst = 0, change = 0;
  int fewer = 0;
  for (int i = 0; i < 1000; i++) {
    dynSteps(w, 1);
    fewer += forceSum(w, f) < 4;
    worst = fmax(worst, fabs(f[2] - mg) / mg);
    if (i > 0) {
      change = fmax(change, fabs(f[2] - fPrev));
    }
    fPrev = f[2];
  }
  CU_ASSERT_EQUAL(fewer, 0);
  CU_ASSERT(worst < 1e-6);
  CU_ASSERT(change < 1e-6);
  // one group (the box and the floor) of its four points, as the servers report it
  int ng, n;
  const hsdContactGroup *g = hsd_contactGroups(w, &ng);
  const hsdContact *c = hsd_contacts(w, &n);
  CU_ASSERT_EQUAL(ng, 1);
  CU_ASSERT(ng == 1 && g[0].first == 0 && g[0].count == n && g[0].link[0] == 0);
  // the points stay where they were while nothing moves
  double p0[16][3], moved = 0;
  for (int k = 0; k < n && k < 16; k++) {
    memcpy(p0[k], c[k].p, sizeof p0[k]);
  }
  dynSteps(w, 1);
  c = hsd_contacts(w, &n);
  for (int k = 0; k < n && k < 16; k++) {
    for (int j = 0; j < 3; j++) {
      moved = fmax(moved, fabs(c[k].p[j] - p0[k][j]));
    }
  }
  CU_ASSERT(moved < 1e-12);
  double sink = 0.05 - hsd_state(w, 0)->rootP[2];  // within the allowed penetration
  CU_ASSERT(sink > 0 && sink <= 1e-4);
  HST_NEAR(hsd_state(w, 0)->rootP[0], 0.3, 1e-9);  // no creep
  int sweeps;
  double rel;
  hsd_jsContactStats(w, &sweeps, &rel);
  CU_ASSERT(sweeps >= 1 && rel <= 1e-10);
  if (worst >= 1e-6 || change >= 1e-6) {
    fprintf(stderr, "\n  resting box: |sum Fz - m g| / m g %.3g, step change %.3g N, z %.9g\n",
            worst, change, hsd_state(w, 0)->rootP[2]);
  }
  hsd_freeWorld(w);
  hsm_freeBody(box);
  hsm_freeBody(floor);
}

// a box on a box on the floor, both free (two characters coupled through the contact rows):
// after 1 s, every step of the next 0.5 s the top face of the lower box holds the upper one at
// four corners (clipped to the smaller face) with forces summing to m_top g, and the floor
// holds both, each within 1e-6 relative; nothing creeps
static void testBoxOnBox(void) {
  hsBody *top = dynBox("jsc_top.wrl", 1, 0.2, 0.2, 0.1, 0, 0, 0, NULL);
  hsBody *low = dynBox("jsc_low.wrl", 3, 0.4, 0.4, 0.1, 0, 0, 0, NULL);
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(top);
  CU_ASSERT_PTR_NOT_NULL_FATAL(low);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  hsdOptions opt;
  hsd_defaultOptions(&opt);
  opt.engine = hsENGINE_JOINT_SPACE;
  hsdWorld *w = dynWorldOn(&opt);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "top", top, NULL), 0);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "low", low, NULL), 1);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "floor", floor, NULL), 2);
  hsdSurface s = {0.5, 0.5, 0, 0.01};
  CU_ASSERT_EQUAL(hsd_addContactPair(w, 0, -1, 1, -1, &s, NULL), 0);
  CU_ASSERT_EQUAL(hsd_addContactPair(w, 1, -1, 2, -1, &s, NULL), 0);  // pair 1
  dynPlace(w, 0, 0.05, 0.02, 0.15, NULL);
  dynPlace(w, 1, 0, 0, 0.05, NULL);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  dynSteps(w, 1000);
  double worst[2] = {0, 0}, x0 = hsd_state(w, 0)->rootP[0];
  int fewer = 0;
  for (int i = 0; i < 500; i++) {
    dynSteps(w, 1);
    int n, count[2] = {0, 0};
    double fz[2] = {0, 0};
    const hsdContact *c = hsd_contacts(w, &n);
    for (int k = 0; k < n; k++) {
      fz[c[k].pair] += c[k].force[2];
      count[c[k].pair]++;
    }
    fewer += count[0] < 4 || count[1] < 4;
    worst[0] = fmax(worst[0], fabs(fz[0] - 9.8) / 9.8);
    worst[1] = fmax(worst[1], fabs(fz[1] - 4 * 9.8) / (4 * 9.8));
  }
  CU_ASSERT_EQUAL(fewer, 0);
  CU_ASSERT(worst[0] < 1e-6 && worst[1] < 1e-6);
  HST_NEAR(hsd_state(w, 0)->rootP[0], x0, 1e-9);
  if (fewer || worst[0] >= 1e-6 || worst[1] >= 1e-6) {
    fprintf(stderr, "\n  box on box: %d steps with few points, errors %.3g %.3g\n", fewer,
            worst[0], worst[1]);
  }
  hsd_freeWorld(w);
  hsm_freeBody(top);
  hsm_freeBody(low);
  hsm_freeBody(floor);
}

// a position-given box moving at 0.5 m/s pushes a free box along the floor (friction 0.3): the
// given root's dofs take no impulse (their rows' M^-1 J^T is zero), its prescribed velocity
// enters the contact's relative velocity, so the pushed box moves at the pusher's speed (1e-6:
// the pusher's rows hold it exactly, friction with the floor is pushed through), 0.2 m ahead
// of it less at most the allowed penetration, and the pusher is exactly where commanded
static void testKinematicPusher(void) {
  hsBody *box = dynBox("jsc_pushed.wrl", 1, 0.2, 0.2, 0.2, 0, 0, 0, NULL);
  hsBody *pusher = dynBox("jsc_pusher.wrl", 5, 0.2, 0.4, 0.2, 0, 0, 0, NULL);
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  CU_ASSERT_PTR_NOT_NULL_FATAL(pusher);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  hsdOptions opt;
  hsd_defaultOptions(&opt);
  opt.engine = hsENGINE_JOINT_SPACE;
  hsdWorld *w = dynWorldOn(&opt);
  hsd_addCharacter(w, "box", box, NULL);
  hsd_addCharacter(w, "pusher", pusher, NULL);
  hsd_addCharacter(w, "floor", floor, NULL);
  hsdSurface s = {0.3, 0.3, 0, 0.01};
  hsd_addContactPair(w, 0, -1, 2, -1, &s, NULL);
  hsd_addContactPair(w, 1, -1, 0, -1, &s, NULL);
  dynPlace(w, 0, 0.2, 0, 0.1, NULL);
  dynPlace(w, 1, 0, 0, 0.11, NULL);  // touching the box's -x face, just above the floor
  hsd_setPositionGiven(w, 1, 0, 1, NULL);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  for (int i = 1; i <= 1000; i++) {
    double p[3] = {0.5 * i * 0.001, 0, 0.11};
    hsd_setLinkPose(w, 1, 0, p, I, NULL);
    dynSteps(w, 1);
  }
  const hsBodyState *pb = hsd_state(w, 1), *bb = hsd_state(w, 0);
  HST_NEAR(pb->rootP[0], 0.5, 1e-12);
  double v = hsd_linkMotion(w, 0, 0)->v[0], gap = bb->rootP[0] - pb->rootP[0];
  HST_NEAR(v, 0.5, 1e-6);
  CU_ASSERT(gap <= 0.2 && gap >= 0.2 - 1e-4 - 1e-9);
  if (fabs(v - 0.5) > 1e-6) {
    fprintf(stderr, "\n  pushed box at %.9f m/s, %.6f m ahead\n", v, gap);
  }
  hsd_freeWorld(w);
  hsm_freeBody(box);
  hsm_freeBody(pusher);
  hsm_freeBody(floor);
}

// the lowest of the box's (0.2 x 0.2 x 0.1) bottom corners
static double lowestCorner(const hsdWorld *w) {
  const hsBodyState *st = hsd_state(w, 0);
  double low = INFINITY;
  for (int i = 0; i < 4; i++) {
    double c[3] = {(i & 1) ? 0.1 : -0.1, (i & 2) ? 0.1 : -0.1, -0.05}, x[3];
    hsu_rotVec(x, st->rootR, c);
    low = fmin(low, st->rootP[2] + x[2]);
  }
  return low;
}

// a face coming down tilted: the box tilted 0.2 degrees about x, its low edge 0.05 mm into
// the floor, moving down at 2 m/s. Its high edge is 0.65 mm up and would go 1.35 mm into the
// floor in the 1 ms step; the margin's gap rows let it close the gap and no more, so after
// the step no corner is deeper than the low edge was, within 1e-6 m (the rows hold the
// corners' velocities; the turn over the step moves them at second order: 1.9e-7 m measured;
// without the gap rows a corner ends 1.93 mm deep)
static void testTiltedLandingGaps(void) {
  hsBody *box, *floor;
  hsdWorld *w = jsBoxOnFloor(0.5, 0, &box, &floor);
  double R[9], aa[4] = {1, 0, 0, 0.2 * HS_PI / 180};
  hsu_axisAngleToMat(R, aa);
  double zlow = -(sin(aa[3]) * -0.1 + cos(aa[3]) * -0.05) - 5e-5;
  dynPlace(w, 0, 0.3, -0.2, zlow, R);
  double v[3] = {0, 0, -2}, wv[3] = {0, 0, 0};
  CU_ASSERT_EQUAL(hsd_setLinkVelocity(w, 0, 0, v, wv, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  HST_NEAR(lowestCorner(w), -5e-5, 1e-12);
  dynSteps(w, 1);
  double low = lowestCorner(w);
  CU_ASSERT(low >= -5e-5 - 1e-6);
  if (low < -5e-5 - 1e-6) {
    fprintf(stderr, "\n  tilted landing: lowest corner %.6g m\n", low);
  }
  // the gaps that pushed are reported as contacts that touch: depth 0, not the gap they
  // started at (the list's depths are penetrations, OpenHRP's idepth >= 0)
  int n, gaps = 0;
  const hsdContact *c = hsd_contacts(w, &n);
  CU_ASSERT(n >= 3);
  for (int i = 0; i < n; i++) {
    CU_ASSERT(c[i].depth >= 0);
    gaps += c[i].depth == 0;
  }
  CU_ASSERT(gaps >= 2);  // the high edge's corners
  hsd_freeWorld(w);
  hsm_freeBody(box);
  hsm_freeBody(floor);
}

// the yaw angle of character 0's root
static double yaw(const hsdWorld *w) {
  const double *R = hsd_state(w, 0)->rootR;
  return atan2(R[3], R[0]);
}

// torsional friction: the face touches at its four corners, each at r = sqrt(a^2 + b^2) / 2
// from the centre (a x b the face) carrying m g / 4, so friction resists a yaw torque up to
// mu m g r (the corners' model, stated in docs/servers.md): for the 0.2 x 0.2 face 0.693 N m at
// mu = 0.5 (a uniformly pressed square patch would give mu m g 0.383 a = 0.375 N m), for a
// 0.3 x 0.1 face 0.775 N m (uniform pressure: 0.403 N m), the closed form telling the corners'
// radius from the patch's. 0.9 of it: the box turns less than 1e-4 rad in 1 s; 1.1 of it: it
// turns (for the square, the excess 0.069 N m over the yaw inertia 0.00667 kg m^2 gives 5.2
// rad in 1 s; more than 1 rad asked)
static void testTorsionalFriction(void) {
  const double mu = 0.5, sizes[2][2] = {{0.2, 0.2}, {0.3, 0.1}};
  for (int run = 0; run < 4; run++) {
    const double *ab = sizes[run / 2];
    double capacity = mu * 9.8 * 0.5 * hypot(ab[0], ab[1]);
    int above = run % 2;
    hsBody *box, *floor;
    hsdWorld *w = jsSizedBoxOnFloor(ab[0], ab[1], mu, 0.05 - 1e-4, &box, &floor);
    CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
    dynSteps(w, 200);  // settled
    double y = yaw(w), turned = 0, f[3] = {0, 0, 0};
    double t[3] = {0, 0, (above ? 1.1 : 0.9) * capacity};
    int fewer = 0;
    for (int i = 0; i < 1000; i++) {
      hsd_setExternalForce(w, 0, 0, f, t, NULL);  // (about the link origin: the centre)
      dynSteps(w, 1);
      double dy = yaw(w) - y;  // (unwrapped: under pi a step)
      turned += dy > HS_PI ? dy - 2 * HS_PI : (dy < -HS_PI ? dy + 2 * HS_PI : dy);
      y = yaw(w);
      int n;
      hsd_contacts(w, &n);
      fewer += n < 4;
    }
    turned = fabs(turned);
    if (above) {
      CU_ASSERT(turned > 1);
    } else {
      CU_ASSERT(turned < 1e-4);
      CU_ASSERT_EQUAL(fewer, 0);
    }
    if (above ? turned <= 1 : turned >= 1e-4) {
      int sw;
      double rel;
      hsd_jsContactStats(w, &sw, &rel);
      fprintf(stderr, "\n  torsion %.1f x capacity, %g x %g: turned %.3g rad (%d sweeps, "
              "%.3g)\n", above ? 1.1 : 0.9, ab[0], ab[1], turned, sw, rel);
    }
    hsd_freeWorld(w);
    hsm_freeBody(box);
    hsm_freeBody(floor);
  }
}

// a box sliding at v = 1 m/s on friction mu = 0.5 stops after v^2 / (2 mu g) = 0.10204 m.
// Discretely the speed drops by mu g dt a step, so the distance is dt sum (v - k mu g dt) over
// the steps while moving: within v dt (1 mm) of the closed form; it then stays (static
// friction holds it)
static void testBoxSlidingStops(void) {
  hsBody *box, *floor;
  const double mu = 0.5, v0 = 1, g = 9.8;
  hsdWorld *w = jsBoxOnFloor(mu, 0.05 - 1e-4, &box, &floor);
  double v[3] = {v0, 0, 0}, wv[3] = {0, 0, 0};
  CU_ASSERT_EQUAL(hsd_setLinkVelocity(w, 0, 0, v, wv, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  const hsBodyState *st = hsd_state(w, 0);
  double x0 = st->rootP[0], stopAt = -1;
  for (int i = 1; i <= 400; i++) {
    dynSteps(w, 1);
    if (stopAt < 0 && fabs(hsd_linkMotion(w, 0, 0)->v[0]) < 1e-9) {
      stopAt = i * 0.001;
    }
  }
  double d = st->rootP[0] - x0, closed = v0 * v0 / (2 * mu * g);
  HST_NEAR(d, closed, v0 * 0.001);
  HST_NEAR(stopAt, v0 / (mu * g), 0.002);  // 0.204 s
  HST_NEAR(st->rootP[1], -0.2, 1e-9);      // straight
  HST_NEAR(yaw(w), 0, 1e-9);
  dynSteps(w, 200);
  HST_NEAR(st->rootP[0] - x0, d, 1e-9);  // and stays
  hsd_freeWorld(w);
  hsm_freeBody(box);
  hsm_freeBody(floor);
}

//---------------------------------- the sample humanoid standing -----------------------------

// gains of samples/controllers/pd_controller.py (name fragment, P [N m/rad], D [N m s/rad]),
// first match wins; others 100, 1
static const struct {
  const char *frag;
  double p, d;
} kGains[] = {
    {"LEG_HIP_Y", 1000, 5},   {"LEG_HIP_R", 2000, 10},   {"LEG_HIP_P", 2500, 12},
    {"LEG_KNEE", 2500, 12},   {"LEG_ANKLE_P", 1500, 8},  {"LEG_ANKLE_R", 1200, 6},
    {"CHEST", 1500, 8},       {"NECK", 50, 0.2},         {"ARM_SHOULDER", 300, 0.75},
    {"ARM_ELBOW", 150, 0.4},  {"ARM_WRIST_Y", 5, 0.02},  {"ARM_WRIST", 20, 0.05},
};

// the standing pose of the PD controller (a = 0.2 rad: hip and ankle pitch -a, knee 2a,
// elbows -0.3) and its gains, per link
static void standingLaw(const hsBody *b, double *qRef, double *P, double *D) {
  for (int k = 0; k < b->nlink; k++) {
    const char *name = b->links[k].name;
    qRef[k] = strstr(name, "_HIP_P") || strstr(name, "_ANKLE_P") ? -0.2
              : strstr(name, "LEG_KNEE")                         ? 0.4
              : strstr(name, "ARM_ELBOW")                        ? -0.3
                                                                 : 0;
    P[k] = 100;
    D[k] = 1;
    for (size_t g = 0; g < sizeof kGains / sizeof kGains[0]; g++) {
      if (strstr(name, kGains[g].frag)) {
        P[k] = kGains[g].p;
        D[k] = kGains[g].d;
        break;
      }
    }
  }
}

// the humanoid (character 1) on the floor (0) in torque mode at the standing pose, root at
// 0.80804 m (the soles on the floor), on engine e
static hsdWorld *standingWorld(hstEngine e, hsBody *robot, hsBody *floor, double *qRef) {
  hsdOptions opt;
  hsd_defaultOptions(&opt);
  opt.engine = e;
  hsdWorld *w = dynWorldOn(&opt);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "floor", floor, NULL), 0);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "robot", robot, NULL), 1);
  hsdSurface s = {0.5, 0.5, 0, 0.01};
  CU_ASSERT_EQUAL(hsd_addContactPair(w, 0, -1, 1, -1, &s, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setAllJointModes(w, 1, hsMODE_TORQUE, NULL), 0);
  for (int k = 1; k < robot->nlink; k++) {
    hsd_setJointValue(w, 1, k, qRef[k], NULL);
  }
  dynPlace(w, 1, 0, 0, 0.80804, NULL);
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  return w;
}

// one step under the PD law tau = P (q_ref - q) - D dq
static void pdStep(hsdWorld *w, const hsBody *b, const double *qRef, const double *P,
                   const double *D) {
  const hsBodyState *st = hsd_state(w, 1);
  for (int k = 1; k < b->nlink; k++) {
    hsd_setJointTorque(w, 1, k, P[k] * (qRef[k] - st->q[k]) - D[k] * st->dq[k], NULL);
  }
  dynSteps(w, 1);
}

// the sample humanoid standing in torque mode under the sample PD gains for 3 s: the ankle
// force sensors' Fz sum equals the weight above them (the whole robot less the links below the
// sensors) within 0.5 % every step of the last 2 s, with a step-to-step standard deviation
// below 0.1 N; the soles keep 4+ points each; the robot stays up. The soles' load is spread
// over their corners (the least-norm impulses: a sole's four corners are 12 rows on its 6
// dofs, so only their sum is fixed): every corner's friction within a fifth of its cone
// (observed 0.03; the sweeps' split drifted to 0.3 .. 1.0), solved without a sweep
static void testHumanoidStanding(void) {
  hsBody *robot = dynLoadSample("humanoid/humanoid.wrl");
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(robot);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  int n = robot->nlink;
  double qRef[64], P[64], D[64];
  CU_ASSERT_FATAL(n <= 64);
  standingLaw(robot, qRef, P, D);
  hsdWorld *w = standingWorld(hsENGINE_JOINT_SPACE, robot, floor, qRef);
  int fs[2] = {hsm_sensorById(robot, hsSENSOR_FORCE, 0), hsm_sensorById(robot, hsSENSOR_FORCE, 1)};
  CU_ASSERT_FATAL(fs[0] >= 0 && fs[1] >= 0);
  // the weight above the sensors: every link but the sensors' links' subtrees
  double above = 0;
  for (int k = 0; k < n; k++) {
    int below = 0;
    for (int a = k; a >= 0 && !below; a = robot->links[a].parent) {
      below = a == robot->sensors[fs[0]].link || a == robot->sensors[fs[1]].link;
    }
    above += below ? 0 : robot->links[k].mass * 9.8;
  }
  double worst = 0, prev = 0, sum = 0, sum2 = 0, cone = 0;
  int nd = 0, fewer = 0, swept = 0;
  for (int i = 0; i < 3000; i++) {
    pdStep(w, robot, qRef, P, D);
    if (i < 1000) {
      continue;
    }
    int m;
    double fz = dynSensorReading(w, 1, fs[0], &m)[2] + dynSensorReading(w, 1, fs[1], &m)[2];
    worst = fmax(worst, fabs(fz - above) / above);
    if (i > 1000) {
      double d = fz - prev;
      sum += d;
      sum2 += d * d;
      nd++;
    }
    prev = fz;
    int nc, sweeps;
    double rel;
    const hsdContact *hc = hsd_contacts(w, &nc);
    fewer += nc < 8;
    for (int k = 0; k < nc; k++) {
      // (the floor's normal is z: a corner's friction is its force's horizontal part, its
      // load the vertical, whichever side the force is reported on)
      double ft = hypot(hc[k].force[0], hc[k].force[1]), fn = fabs(hc[k].force[2]);
      cone = fmax(cone, fn > 0 ? ft / (0.5 * fn) : 0);
    }
    hsd_jsContactStats(w, &sweeps, &rel);
    swept += sweeps;
  }
  double mean = sum / nd, sd = sqrt(fmax(0, sum2 / nd - mean * mean));
  CU_ASSERT(worst < 0.005);
  CU_ASSERT(sd < 0.1);
  CU_ASSERT_EQUAL(fewer, 0);
  CU_ASSERT(hsd_state(w, 1)->rootP[2] > 0.7);
  CU_ASSERT(cone < 0.2);
  CU_ASSERT(swept < 20);  // (of 2,000 steps)
  fprintf(stderr, "\n  humanoid standing (joint space): |Fz - W| / W <= %.3g, step sd %.3g N, "
          "%d steps with under 8 points, corners' friction <= %.3g of the cone, %d sweeps\n",
          worst, sd, fewer, cone, swept);
  hsd_freeWorld(w);
  hsm_freeBody(robot);
  hsm_freeBody(floor);
}

// the squat of the high-gain test: bend a(t) = 0.2 + 0.15 (1 - cos(pi t)) rad (hip and ankle
// pitch -a, knee 2a; a 2 s period), its rate and its acceleration
static void squatBend(double t, double a[3]) {
  a[0] = 0.2 + 0.15 * (1 - cos(HS_PI * t));
  a[1] = 0.15 * HS_PI * sin(HS_PI * t);
  a[2] = 0.15 * HS_PI * HS_PI * cos(HS_PI * t);
}

// the sample humanoid standing on the floor in high gain doing 4 s of that squat at 1 ms,
// commanded every step with its angles quantized to 1e-3 rad (as a pattern at an encoder's
// resolution) and, when full, its exact velocities and accelerations too. Counts the steps
// with no contact (*none) and returns the largest difference between the root's vertical
// velocity and the squat's, -0.6 sin(a) a' (the legs' 0.3 m thigh and shank); *drop: how far
// from its start height the root ends (the bend back at 0.2 after two periods)
static double squatRun(int full, int *none, double *drop) {
  hsBody *robot = dynLoadSample("humanoid/humanoid.wrl");
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(robot);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  int n = robot->nlink;
  double qRef[64], P[64], D[64], sign[64];
  CU_ASSERT_FATAL(n <= 64);
  standingLaw(robot, qRef, P, D);
  for (int k = 0; k < n; k++) {
    const char *name = robot->links[k].name;
    sign[k] = strstr(name, "_HIP_P") || strstr(name, "_ANKLE_P") ? -1
              : strstr(name, "LEG_KNEE")                         ? 2
                                                                 : 0;
  }
  hsdOptions opt;
  hsd_defaultOptions(&opt);
  opt.engine = hsENGINE_JOINT_SPACE;
  hsdWorld *w = dynWorldOn(&opt);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "floor", floor, NULL), 0);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "robot", robot, NULL), 1);
  hsdSurface sf = {0.5, 0.5, 0, 0.01};
  CU_ASSERT_EQUAL(hsd_addContactPair(w, 0, -1, 1, -1, &sf, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setAllJointModes(w, 1, hsMODE_HIGH_GAIN, NULL), 0);
  for (int k = 1; k < n; k++) {
    hsd_setJointValue(w, 1, k, qRef[k], NULL);
  }
  dynPlace(w, 1, 0, 0, 0.80804, NULL);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  const double dt = 0.001;
  dynSteps(w, 200);  // settled at a = 0.2, holding
  const hsBodyState *st = hsd_state(w, 1);
  double z0 = st->rootP[2], worst = 0;
  *none = 0;
  for (int i = 1; i <= 4000; i++) {
    double a[3];
    squatBend(i * dt, a);
    for (int k = 1; k < n; k++) {
      if (!hsm_hasOneDofJoint(&robot->links[k])) {
        continue;
      }
      double q = sign[k] != 0 ? sign[k] * a[0] : qRef[k];
      hsd_setJointValue(w, 1, k, 1e-3 * round(q / 1e-3), NULL);
      if (full) {
        hsd_setJointVelocity(w, 1, k, sign[k] * a[1], NULL);
        hsd_setJointAcceleration(w, 1, k, sign[k] * a[2], NULL);
      }
    }
    dynSteps(w, 1);
    int nc;
    hsd_contacts(w, &nc);
    *none += nc == 0;
    double vz = hsd_linkMotion(w, 1, 0)->v[2];
    worst = fmax(worst, fabs(vz + 0.6 * sin(a[0]) * a[1]));
  }
  // after two periods the bend is back at 0.2: the root where it started
  *drop = fabs(st->rootP[2] - z0);
  hsd_freeWorld(w);
  hsm_freeBody(robot);
  hsm_freeBody(floor);
  return worst;
}

// OpenHRP's high gain with velocities and accelerations: the squat with quantized angles and
// exact velocities and accelerations never loses the floor, the root's vertical velocity stays
// within 1e-3 m/s of the squat's (whose peak is 0.136 m/s; measured 1.9e-4) and it ends within
// 1e-6 m of its start height. The angles alone, moving at their differences (jumping between 0
// and 1 rad/s), make the robot hop: steps without contact (measured 3020 of 4000) and a root
// velocity 0.23 m/s off (hrpsim's angles-only rule, documented in docs/servers.md). A second
// run gives the same bits
static void testHumanoidSquatHighGain(void) {
  int none[2];
  double drop[2], vz[2];
  for (int full = 0; full < 2; full++) {
    vz[full] = squatRun(full, &none[full], &drop[full]);
  }
  fprintf(stderr, "\n  squat, quantized angles: with velocities and accelerations |vz - "
          "squat| <= %.3g m/s, %d steps without contact, back within %.2g m; angles only "
          "%.3g m/s, %d steps without contact\n", vz[1], none[1], drop[1], vz[0], none[0]);
  CU_ASSERT_EQUAL(none[1], 0);
  CU_ASSERT(vz[1] < 1e-3);
  CU_ASSERT(drop[1] < 1e-6);
  CU_ASSERT(none[0] > 100 && vz[0] > 0.1);
  // and the same bits again
  int noneAgain;
  double dropAgain, vzAgain = squatRun(1, &noneAgain, &dropAgain);
  CU_ASSERT(memcmp(&vzAgain, &vz[1], sizeof vzAgain) == 0);
  CU_ASSERT(memcmp(&dropAgain, &drop[1], sizeof dropAgain) == 0);
}

// tests/data/vrml_openhrp/rotor_biped.wrl (10 kg m^2 of rotor inertia on each of its 17
// joints) on the floor at its standing bend (0.2 rad: the soles on the floor) on engine e
// (rotors: the ODE engine's rotor-inertia option) at 2 ms for up to 10 s, every joint under
// the stiff PD law of OpenHRP's samples for such motors, tau = 10000 (q_ref - q) - 100 dq
// (with the armature: w dt = sqrt(10000 / 10) 0.002 = 0.063). Returns the time it stayed up
// (the WAIST above 0.6 m and upright within 0.3 rad, no runaway) and, in *err, the largest
// joint error over the last 5 s
static double rotorBipedStands(hstEngine e, int rotors, double *err) {
  char path[1024];
  snprintf(path, sizeof path, "%s/vrml_openhrp/rotor_biped.wrl", HST_DATA_DIR);
  hsError lerr = {0};
  hsBody *robot = hsm_loadVrml(path, NULL, NULL, 0, NULL, &lerr);
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(robot);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  CU_ASSERT_FATAL(robot->nlink == 18);
  double qRef[18];
  for (int k = 0; k < robot->nlink; k++) {
    const char *name = robot->links[k].name;
    qRef[k] = strstr(name, "_HIP_P") || strstr(name, "_ANKLE_P") ? -0.2
              : strstr(name, "LEG_KNEE")                         ? 0.4
                                                                 : 0;
    HST_NEAR(k > 0 ? robot->links[k].rotorInertia * robot->links[k].gearRatio *
                         robot->links[k].gearRatio
                   : 10,
             10, 1e-12);
  }
  hsdOptions opt;
  hsd_defaultOptions(&opt);
  opt.engine = e;
  opt.rotorInertia = rotors;
  hsdWorld *w = dynWorldOn(&opt);
  CU_ASSERT_EQUAL(hsd_setTimeStep(w, 0.002, NULL), 0);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "floor", floor, NULL), 0);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "robot", robot, NULL), 1);
  hsdSurface s = {0.5, 0.5, 0, 0.01};
  CU_ASSERT_EQUAL(hsd_addContactPair(w, 0, -1, 1, -1, &s, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setAllJointModes(w, 1, hsMODE_TORQUE, NULL), 0);
  for (int k = 1; k < robot->nlink; k++) {
    hsd_setJointValue(w, 1, k, qRef[k], NULL);
  }
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  const hsBodyState *st = hsd_state(w, 1);
  double up = 0;
  *err = 0;
  for (int i = 1; i <= 5000; i++) {
    for (int k = 1; k < robot->nlink; k++) {
      hsd_setJointTorque(w, 1, k, 10000 * (qRef[k] - st->q[k]) - 100 * st->dq[k], NULL);
    }
    hsError serr = {0};
    if (hsd_step(w, &serr) < 0 || !(st->rootP[2] > 0.6) || !(st->rootR[8] > cos(0.3))) {
      break;
    }
    up = i * 0.002;
    for (int k = 1; k < robot->nlink && i > 2500; k++) {
      *err = fmax(*err, fabs(st->q[k] - qRef[k]));
    }
  }
  hsd_freeWorld(w);
  hsm_freeBody(robot);
  hsm_freeBody(floor);
  return up;
}

// OpenHRP-style motors (issue 27): the biped with 10 kg m^2 of rotor inertia per joint stands
// 10 s under the stiff PD law at 2 ms on the joint-space engine (OpenHRP's armature on the
// joint's diagonal), its joints within 0.01 rad of the reference (measured 1.0e-3). On the ODE
// engine (its default: no rotor inertia; OpenHRP's interface had that until the joint-space
// engine became the default) the same law runs away within 0.01 s (a foot's roll,
// 0.0074 kg m^2 about its axis: w dt = sqrt(10000 / 0.0074) 0.002 = 2.3, past the explicit
// PD's limit of 2); with the ODE engine's rotor-inertia
// option (the inertia on the links) it stands too (measured error 1.1e-3 rad)
static void testRotorBipedStands(void) {
  hst_expectLog(1);  // the ODE runs' runaway warnings
  double err[3];
  double js = rotorBipedStands(hsENGINE_JOINT_SPACE, 0, &err[0]);
  double ode = rotorBipedStands(hsENGINE_ODE, 0, &err[1]);
  double odeRotors = rotorBipedStands(hsENGINE_ODE, 1, &err[2]);
  fprintf(stderr, "\n  rotor biped, stiff PD at 2 ms: joint space up %.3f s (joint error %.3g "
          "rad); ODE up %.3f s, with its rotor-inertia option %.3f s (error %.3g)\n", js,
          err[0], ode, odeRotors, err[2]);
  CU_ASSERT(js >= 10 - 1e-9);
  CU_ASSERT(err[0] < 0.01);
  CU_ASSERT(ode < 0.1);
  CU_ASSERT(odeRotors >= 10 - 1e-9);
}

// the humanoid standing, twice: bit-identical states, contacts and sensors
static void testDeterministic(void) {
  hsBody *robot = dynLoadSample("humanoid/humanoid.wrl");
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(robot);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  double qRef[64], P[64], D[64];
  standingLaw(robot, qRef, P, D);
  hsdWorld *a = standingWorld(hsENGINE_JOINT_SPACE, robot, floor, qRef);
  hsdWorld *b = standingWorld(hsENGINE_JOINT_SPACE, robot, floor, qRef);
  int diverged = -1;
  size_t n = (size_t)robot->nlink;
  for (int i = 1; i <= 300 && diverged < 0; i++) {
    double f[3] = {20 * sin(0.05 * i), 10, 0}, t[3] = {0, 0, 2};
    if (i % 50 == 0) {
      hsd_setExternalForce(a, 1, 0, f, t, NULL);
      hsd_setExternalForce(b, 1, 0, f, t, NULL);
    }
    pdStep(a, robot, qRef, P, D);
    pdStep(b, robot, qRef, P, D);
    const hsBodyState *sa = hsd_state(a, 1), *sb = hsd_state(b, 1);
    int na, nb;
    const hsdContact *ca = hsd_contacts(a, &na), *cb = hsd_contacts(b, &nb);
    int same = memcmp(sa->linkP, sb->linkP, 3 * n * sizeof(double)) == 0 &&
               memcmp(sa->q, sb->q, n * sizeof(double)) == 0 &&
               memcmp(sa->dq, sb->dq, n * sizeof(double)) == 0 && na == nb &&
               memcmp(ca, cb, (size_t)na * sizeof *ca) == 0;
    for (int s = 0; s < robot->nsensor && same; s++) {
      int k;
      const double *ra = dynSensorReading(a, 1, s, &k), *rb = dynSensorReading(b, 1, s, &k);
      same = memcmp(ra, rb, (size_t)k * sizeof(double)) == 0;
    }
    if (!same) {
      diverged = i;
    }
  }
  CU_ASSERT_EQUAL(diverged, -1);
  hsd_freeWorld(a);
  hsd_freeWorld(b);
  hsm_freeBody(robot);
  hsm_freeBody(floor);
}

// linear momentum p and angular momentum L about the world origin of free box ch: its link
// frame at (o, R), velocity (v, wv) of its origin, mass m, centre com and inertia I (link frame)
static void boxMomentum(const hsLink *l, const double o[3], const double R[9], const double v[3],
                        const double wv[3], double p[3], double L[3]) {
  double rc[3], vc[3], x[3], c[3], Iw[3], t[3], cp[3];
  hsu_rotVec(rc, R, l->com);
  hsu_cross(x, wv, rc);
  for (int j = 0; j < 3; j++) {
    vc[j] = v[j] + x[j];
    c[j] = o[j] + rc[j];
    p[j] = l->mass * vc[j];
  }
  hsu_rotVecT(t, R, wv);  // I_world w = R I R^T w
  for (int r = 0; r < 3; r++) {
    x[r] = l->inertia[3 * r] * t[0] + l->inertia[3 * r + 1] * t[1] + l->inertia[3 * r + 2] * t[2];
  }
  hsu_rotVec(Iw, R, x);
  hsu_cross(cp, c, p);
  for (int j = 0; j < 3; j++) {
    L[j] = cp[j] + Iw[j];
  }
}

// two free boxes of different shapes, masses and centre-of-mass offsets (origin != centre),
// turned, meet off centre in zero gravity (friction 0.5): over the step whose contact impulses
// first act, the total linear momentum and the angular momentum about the origin (velocities
// after the step at the poses where it began, where the impulses were computed) are what they
// were before, to 1e-12 of m |v|: equal and opposite impulses at one point through
// W = M^-1 J^T (dynamics_jscontact.c's closed form for rigid bodies: a wrong inverse inertia
// or a missing centre offset moves them), while each box's own momentum changes by 0.1 N s
// or more and the first box starts to spin
static void testRigidImpactMomentum(void) {
  hsBody *a = dynBox("jsc_ma.wrl", 2, 0.3, 0.2, 0.1, 0.04, -0.02, 0.01, NULL);
  hsBody *b = dynBox("jsc_mb.wrl", 1, 0.2, 0.2, 0.15, -0.03, 0.02, 0, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(a);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsdOptions opt;
  hsd_defaultOptions(&opt);
  opt.engine = hsENGINE_JOINT_SPACE;
  hsdWorld *w = dynWorldOn(&opt);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "a", a, NULL), 0);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "b", b, NULL), 1);
  hsdSurface s = {0.5, 0.5, 0, 0.01};
  CU_ASSERT_EQUAL(hsd_addContactPair(w, 0, -1, 1, -1, &s, NULL), 0);
  double g0[3] = {0, 0, 0}, ca = cos(0.3), sa = sin(0.3), cb = cos(0.2), sb = sin(0.2);
  CU_ASSERT_EQUAL(hsd_setGravity(w, g0, NULL), 0);
  const double Ra[9] = {ca, -sa * cb, sa * sb, sa, ca * cb, -ca * sb, 0, sb, cb};
  const double Rb[9] = {cb, 0, sb, 0, 1, 0, -sb, 0, cb};
  dynPlace(w, 0, 0, 0, 0, Ra);
  dynPlace(w, 1, 0.45, 0.06, 0.03, Rb);
  double va[3] = {1, 0, 0}, vb[3] = {-0.5, 0.1, 0}, zero[3] = {0, 0, 0};
  CU_ASSERT_EQUAL(hsd_setLinkVelocity(w, 0, 0, va, zero, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setLinkVelocity(w, 1, 0, vb, zero, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  const hsLink *links[2] = {&a->links[0], &b->links[0]};
  int hit = -1;
  double before[2][6], after[2][6], o[2][3], R[2][9];
  for (int i = 0; i < 400 && hit < 0; i++) {
    for (int c = 0; c < 2; c++) {
      const hsBodyState *st = hsd_state(w, c);
      const hsdLinkMotion *m = hsd_linkMotion(w, c, 0);
      memcpy(o[c], st->rootP, sizeof o[c]);
      memcpy(R[c], st->rootR, sizeof R[c]);
      boxMomentum(links[c], o[c], R[c], m->v, m->w, before[c], before[c] + 3);
    }
    dynSteps(w, 1);
    int n;
    const hsdContact *ct = hsd_contacts(w, &n);
    double f = 0;
    for (int k = 0; k < n; k++) {
      f += fabs(ct[k].force[0]) + fabs(ct[k].force[1]) + fabs(ct[k].force[2]);
    }
    if (f > 0) {
      hit = i;
    }
  }
  CU_ASSERT_FATAL(hit > 0);
  double dP = 0, dL = 0, exchange = 0;
  for (int c = 0; c < 2; c++) {
    const hsdLinkMotion *m = hsd_linkMotion(w, c, 0);
    boxMomentum(links[c], o[c], R[c], m->v, m->w, after[c], after[c] + 3);
  }
  for (int j = 0; j < 3; j++) {
    dP = fmax(dP, fabs(after[0][j] + after[1][j] - before[0][j] - before[1][j]));
    dL = fmax(dL, fabs(after[0][3 + j] + after[1][3 + j] - before[0][3 + j] - before[1][3 + j]));
    exchange = fmax(exchange, fabs(after[0][j] - before[0][j]));
  }
  const hsdLinkMotion *ma = hsd_linkMotion(w, 0, 0);
  double spin = sqrt(ma->w[0] * ma->w[0] + ma->w[1] * ma->w[1] + ma->w[2] * ma->w[2]);
  double scale = 2 * 1 + 1 * 0.5;  // sum of m |v| [kg m/s]
  CU_ASSERT(dP <= 1e-12 * scale);
  CU_ASSERT(dL <= 1e-12 * scale);
  CU_ASSERT(exchange >= 0.1);
  CU_ASSERT(spin > 1e-3);
  if (dP > 1e-12 * scale || dL > 1e-12 * scale || exchange < 0.1 || spin <= 1e-3) {
    fprintf(stderr, "\n  impact at step %d: momentum change %.3g, angular %.3g, exchanged %.3g, "
            "spin %.3g\n", hit, dP, dL, exchange, spin);
  }
  hsd_freeWorld(w);
  hsm_freeBody(a);
  hsm_freeBody(b);
}

void register_jscontact(void) {
  CU_pSuite s = hst_addSuite("dynamics_jscontact");
  CU_add_test(s, "box resting: sum = m g, steady, four corners", testBoxResting);
  CU_add_test(s, "box on box: both faces at four corners, forces", testBoxOnBox);
  CU_add_test(s, "a position-given box pushes a free box", testKinematicPusher);
  CU_add_test(s, "a tilted face landing: the gaps close, no deeper", testTiltedLandingGaps);
  CU_add_test(s, "box: torsional friction below and above capacity", testTorsionalFriction);
  CU_add_test(s, "box sliding stops after v^2 / (2 mu g)", testBoxSlidingStops);
  CU_add_test(s, "two free boxes meet off centre: momentum and angular momentum kept",
              testRigidImpactMomentum);
  CU_add_test(s, "humanoid standing in torque mode: smooth ankle forces",
              testHumanoidStanding);
  CU_add_test(s, "humanoid standing: bit-identical on repeat", testDeterministic);
  CU_add_test(s, "a biped with 10 kg m^2 rotors stands 10 s under stiff PD at 2 ms",
              testRotorBipedStands);
  CU_add_test(s, "humanoid squat in high gain: quantized angles, exact velocities",
              testHumanoidSquatHighGain);
}
