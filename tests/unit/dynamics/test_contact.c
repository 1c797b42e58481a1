// test_contact.c - contacts against analytic answers: a box resting on the floor, a box on a
// 10 degree slope that sticks or slides (and how static and slip friction map), restitution,
// contact forces.

#include "dyn_helpers.h"

// a box (1 kg, 0.2 x 0.2 x 0.1) and an environment, paired with friction fs/fk and restitution e
static hsdWorld *boxOn(const char *env, double fs, double fk, double e, hsBody **box,
                       hsBody **ground) {
  *box = dynBox("contact_box.wrl", 1, 0.2, 0.2, 0.1, 0, 0, 0, NULL);
  *ground = dynLoadSample(env);
  CU_ASSERT_PTR_NOT_NULL_FATAL(*box);
  CU_ASSERT_PTR_NOT_NULL_FATAL(*ground);
  hsdWorld *w = dynWorld(NULL);
  hsd_addCharacter(w, "box", *box, NULL);
  hsd_addCharacter(w, "ground", *ground, NULL);
  hsdSurface s = {fs, fk, e, 0.01};
  CU_ASSERT_EQUAL(hsd_addContactPair(w, 0, -1, 1, -1, &s, NULL), 0);
  return w;
}

// resting on the floor for 10 s: penetration and drift under 1 mm (observed 1.5e-9 m and
// 1.4e-9 m); the contact forces carry the weight
static void testBoxResting(void) {
  hsBody *box, *floor;
  hsdWorld *w = boxOn("floor/floor.wrl", 0.5, 0.5, 0, &box, &floor);
  dynPlace(w, 0, 0.3, -0.2, 0.05, NULL);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  const hsBodyState *st = hsd_state(w, 0);
  double pen = 0, drift = 0, fz = 0;
  int flicker = 0;
  for (int i = 0; i < 10000; i++) {
    dynSteps(w, 1);
    int n;
    const hsdContact *c = hsd_contacts(w, &n);
    flicker += n != 4;  // a resting face keeps its four corners every step
    fz = 0;
    for (int k = 0; k < n; k++) {
      pen = fmax(pen, c[k].depth);
      CU_ASSERT_EQUAL(c[k].ch[0], 0);
      HST_NEAR(c[k].n[2], 1, 1e-9);  // from the floor (link[1]) towards the box (link[0])
      fz += c[k].force[2];
    }
    double d[3] = {st->rootP[0] - 0.3, st->rootP[1] + 0.2, st->rootP[2] - 0.05};
    drift = fmax(drift, hsu_norm(d));
  }
  fprintf(stderr, " [penetration %.2g m, drift %.2g m] ", pen, drift);
  CU_ASSERT(pen < 1e-3);
  CU_ASSERT(drift < 1e-3);
  CU_ASSERT_EQUAL(flicker, 0);
  HST_NEAR(fz, 9.8, 1e-6);
  hsd_freeWorld(w);
  hsm_freeBody(box);
  hsm_freeBody(floor);
}

// the slope of floor/slope.wrl: 10 degrees about y, surface through the origin, down along +x
static const double kTheta = 0.1745329252;

// place the box resting on the slope, centre 0.05 m above the surface at the origin, with an
// initial speed v0 down the slope
static void onSlope(hsdWorld *w, double v0) {
  double c = cos(kTheta), s = sin(kTheta);
  double R[9] = {c, 0, s, 0, 1, 0, -s, 0, c};
  dynPlace(w, 0, 0.05 * s, 0, 0.05 * c, R);
  double v[3] = {v0 * c, 0, -v0 * s}, zero[3] = {0, 0, 0};
  CU_ASSERT_EQUAL(hsd_setLinkVelocity(w, 0, 0, v, zero, NULL), 0);
}

// distance travelled down the slope and speed along it
static void slopeMotion(const hsdWorld *w, double *x, double *v) {
  double d[3] = {cos(kTheta), 0, -sin(kTheta)};
  const hsBodyState *st = hsd_state(w, 0);
  double p[3] = {st->rootP[0] - 0.05 * sin(kTheta), st->rootP[1],
                 st->rootP[2] - 0.05 * cos(kTheta)};
  *x = hsu_dot(p, d);
  *v = hsu_dot(hsd_linkMotion(w, 0, 0)->v, d);
}

// tan 10 deg = 0.176 < mu = 0.2: the box stays (moves less than 0.1 mm in 2 s)
static void testSlopeSticks(void) {
  hsBody *box, *slope;
  hsdWorld *w = boxOn("floor/slope.wrl", 0.2, 0.2, 0, &box, &slope);
  onSlope(w, 0);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  dynSteps(w, 2000);
  double x, v;
  slopeMotion(w, &x, &v);
  fprintf(stderr, " [moved %.2g m] ", x);
  CU_ASSERT(fabs(x) < 1e-4);
  CU_ASSERT(fabs(v) < 1e-4);
  hsd_freeWorld(w);
  hsm_freeBody(box);
  hsm_freeBody(slope);
}

// mu = 0.1 < tan 10 deg: slides with a = g (sin - mu cos) = 0.73664 m/s^2 within 5 %
// (observed 3e-13 %)
static void testSlopeSlides(void) {
  hsBody *box, *slope;
  hsdWorld *w = boxOn("floor/slope.wrl", 0.1, 0.1, 0, &box, &slope);
  onSlope(w, 0);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  double x0, v0, x1, v1;
  dynSteps(w, 500);
  slopeMotion(w, &x0, &v0);
  dynSteps(w, 1000);
  slopeMotion(w, &x1, &v1);
  double a = (v1 - v0) / 1.0, want = 9.8 * (sin(kTheta) - 0.1 * cos(kTheta));
  fprintf(stderr, " [a %.5f, want %.5f: %.2g %%] ", a, want, 100 * fabs(a - want) / want);
  CU_ASSERT(fabs(a - want) / want < 0.05);
  hsd_freeWorld(w);
  hsm_freeBody(box);
  hsm_freeBody(slope);
}

// static 0.3, slip 0.1: at rest the static coefficient holds the box; pushed at 0.5 m/s it
// slides with the slip coefficient (a = 0.73664 m/s^2 within 5 %)
static void testStaticVersusSlip(void) {
  hsBody *box, *slope;
  hsdWorld *w = boxOn("floor/slope.wrl", 0.3, 0.1, 0, &box, &slope);
  onSlope(w, 0);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  dynSteps(w, 1000);
  double x, v;
  slopeMotion(w, &x, &v);
  CU_ASSERT(fabs(x) < 1e-4);
  // a push
  onSlope(w, 0.5);
  double x0, v0, x1, v1;
  dynSteps(w, 100);
  slopeMotion(w, &x0, &v0);
  dynSteps(w, 500);
  slopeMotion(w, &x1, &v1);
  double a = (v1 - v0) / 0.5, want = 9.8 * (sin(kTheta) - 0.1 * cos(kTheta));
  fprintf(stderr, " [a %.5f, want %.5f] ", a, want);
  CU_ASSERT(fabs(a - want) / want < 0.05);
  hsd_freeWorld(w);
  hsm_freeBody(box);
  hsm_freeBody(slope);
}

// a sphere dropped on the floor with restitution 0.5 leaves at half its impact speed (5 %)
static void testRestitution(void) {
  hsBody *ball = dynLoadText(
      "ball.wrl",
      "DEF BALL Humanoid { humanoidBody [ DEF B Joint { jointType \"free\" children [\n"
      " Segment { mass 1 momentsOfInertia [0.001 0 0 0 0.001 0 0 0 0.001]\n"
      "  children Shape { geometry Sphere { radius 0.05 } } } ] } ] joints [ USE B ] }\n");
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(ball);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  hsdWorld *w = dynWorld(NULL);
  hsd_addCharacter(w, "ball", ball, NULL);
  hsd_addCharacter(w, "floor", floor, NULL);
  hsdSurface s = {0.5, 0.5, 0.5, 0.01};
  hsd_addContactPair(w, 1, -1, 0, -1, &s, NULL);  // the floor first: forces still on link[0]
  dynPlace(w, 0, 0, 0, 0.3, NULL);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  double vin = 0, vout = 0, fz = 0;
  for (int i = 0; i < 600; i++) {
    dynSteps(w, 1);
    double vz = hsd_linkMotion(w, 0, 0)->v[2];
    vin = fmin(vin, vz);
    if (vin < -1) {
      vout = fmax(vout, vz);
    }
    int n;
    const hsdContact *c = hsd_contacts(w, &n);
    for (int k = 0; k < n; k++) {
      CU_ASSERT_EQUAL(c[k].ch[0], 1);
      fz = fmin(fz, c[k].force[2]);  // on the floor: downwards
    }
  }
  fprintf(stderr, " [in %.4f m/s, out %.4f m/s] ", vin, vout);
  CU_ASSERT(fabs(vout / -vin - 0.5) < 0.025);
  CU_ASSERT(fz < 0);
  hsd_freeWorld(w);
  hsm_freeBody(ball);
  hsm_freeBody(floor);
}

// a position-given box moving at 0.5 m/s pushes a free box along the floor: contacts with a
// kinematic body carry its surface velocity, so the pushed box moves at the pusher's speed (1 %)
// and the pusher's own pose is exactly as commanded
static void testKinematicPusher(void) {
  hsBody *box = dynBox("pushed.wrl", 1, 0.2, 0.2, 0.2, 0, 0, 0, NULL);
  hsBody *pusher = dynBox("pusher.wrl", 5, 0.2, 0.4, 0.2, 0, 0, 0, NULL);
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  CU_ASSERT_PTR_NOT_NULL_FATAL(pusher);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  hsdWorld *w = dynWorld(NULL);
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
  double v = hsd_linkMotion(w, 0, 0)->v[0];
  fprintf(stderr, " [pushed box at %.4f m/s, %.4f m ahead] ", v, bb->rootP[0] - pb->rootP[0]);
  HST_NEAR(v, 0.5, 0.005);
  HST_NEAR(bb->rootP[0] - pb->rootP[0], 0.2, 1e-3);
  hsd_freeWorld(w);
  hsm_freeBody(box);
  hsm_freeBody(pusher);
  hsm_freeBody(floor);
}

// 27 boxes dropped in 3 staggered layers form one pile (one island: hsSTEPPER_AUTO hands it to
// QuickStep): after 2 s everything rests (speeds under 1 cm/s), nothing sinks into anything by
// more than 2 mm, no warnings
static void testPile(void) {
  hsBody *box = dynBox("pile_box.wrl", 0.5, 0.1, 0.1, 0.1, 0, 0, 0, NULL);
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  hsdWorld *w = dynWorld(NULL);
  hsd_addCharacter(w, "floor", floor, NULL);
  hsdSurface s = {0.5, 0.5, 0, 0.01};
  for (int i = 0; i < 27; i++) {
    char name[16];
    snprintf(name, sizeof name, "box%d", i);
    int ch = hsd_addCharacter(w, name, box, NULL);
    int layer = i / 9, row = (i % 9) / 3, col = i % 3;
    dynPlace(w, ch, (col - 1) * 0.12 + 0.05 * layer, (row - 1) * 0.12 + 0.04 * layer,
             0.06 + 0.12 * layer, NULL);
    hsd_addContactPair(w, ch, -1, 0, -1, &s, NULL);
    for (int j = 1; j < ch; j++) {
      hsd_addContactPair(w, j, -1, ch, -1, &s, NULL);
    }
  }
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  dynSteps(w, 2000);
  double vmax = 0, dmax = 0;
  for (int ch = 1; ch <= 27; ch++) {
    vmax = fmax(vmax, hsu_norm(hsd_linkMotion(w, ch, 0)->v));
  }
  int n;
  const hsdContact *c = hsd_contacts(w, &n);
  for (int k = 0; k < n; k++) {
    dmax = fmax(dmax, c[k].depth);
  }
  fprintf(stderr, " [%d contacts, max speed %.2g m/s, max depth %.2g m] ", n, vmax, dmax);
  CU_ASSERT(vmax < 0.01);
  CU_ASSERT(dmax < 2e-3);
  CU_ASSERT_EQUAL(hsd_warningCount(w), 0);
  hsd_freeWorld(w);
  hsm_freeBody(box);
  hsm_freeBody(floor);
}

void register_contact(void) {
  hsd_initODE();
  CU_pSuite s = hst_addSuite("dynamics_contact");
  CU_add_test(s, "box resting on the floor for 10 s", testBoxResting);
  CU_add_test(s, "box sticks on a slope when tan < mu", testSlopeSticks);
  CU_add_test(s, "box slides with g (sin - mu cos)", testSlopeSlides);
  CU_add_test(s, "static friction at rest, slip friction sliding", testStaticVersusSlip);
  CU_add_test(s, "restitution", testRestitution);
  CU_add_test(s, "a position-given body pushes a free one", testKinematicPusher);
  CU_add_test(s, "a pile of 27 boxes comes to rest", testPile);
}
