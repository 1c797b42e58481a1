// test_filter.c - the models' collision filters (MJCF contype / conaffinity and <contact>
// <exclude>, read into hsLink.contype / conaffinity and hsBody.collisionExcludes) honoured by
// both engines where contact pairs are expanded: closed forms of a box dropped on a floor and of
// a box dropped on another box of the same robot. Bits that say "no contact" (or an exclude):
// the box falls freely through, z = z0 - g t^2 / 2; bits that match: it rests on what is under
// it.

#include "dyn_helpers.h"
#include "model.h"

// an MJCF file (written under name) loaded as url fragment `select` (NULL: the plain file)
static hsBody *loadMjcf(const char *name, const char *xml, const char *select) {
  char url[1200];
  const char *path = hst_writeFile(name, xml);
  snprintf(url, sizeof url, "%s%s%s", path, select ? "#" : "", select ? select : "");
  hsError err = {0};
  hsBody *b = hsm_loadModel(url, NULL, NULL, 0, NULL, &err);
  if (!b) {
    fprintf(stderr, "\n  %s:%d:%d: %s\n", err.file, err.line, err.column, err.message);
  }
  return b;
}

// a world on engine e with robot (character 0) and floor (1), 1 ms steps, a contact pair
// between them (friction 0.5) and, with self set, the robot's self-collision pair
static hsdWorld *robotAndFloor(hstEngine e, const hsBody *robot, const hsBody *floor,
                               int self) {
  hsdOptions opt;
  hsd_defaultOptions(&opt);
  opt.engine = e;
  hsdWorld *w = dynWorldOn(&opt);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "robot", robot, NULL), 0);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "floor", floor, NULL), 1);
  CU_ASSERT_EQUAL(hsd_setTimeStep(w, 1e-3, NULL), 0);
  hsdSurface s = {0.5, 0.5, 0, 0.01};
  CU_ASSERT_EQUAL(hsd_addContactPair(w, 0, -1, 1, -1, &s, NULL), 0);
  if (self) {
    CU_ASSERT_EQUAL(hsd_addContactPair(w, 0, -1, 0, -1, &s, NULL), 0);
  }
  return w;
}

// a floor (box, top at z = 0) in the world and a free 0.1 m cube `box` whose geom carries
// `bits` (attributes, may be empty), dropped with its centre at z0 for `steps` of 1 ms on
// engine e; the cube's final height into *z, the steps with contacts into *touching
static void dropCube(hstEngine e, const char *bits, double z0, int steps, double *z,
                     int *touching) {
  char xml[1024];
  snprintf(xml, sizeof xml,
           "<mujoco><worldbody><geom type='box' size='1 1 0.1' pos='0 0 -0.1'/>"
           "<body name='box' pos='0 0 %.17g'><freejoint/>"
           "<geom type='box' size='0.05 0.05 0.05' %s/></body></worldbody></mujoco>",
           z0, bits);
  hsBody *box = loadMjcf("filter_drop.xml", xml, "box");
  hsBody *floor = loadMjcf("filter_drop.xml", xml, "world");
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  hsdWorld *w = robotAndFloor(e, box, floor, 0);
  dynPlace(w, 0, 0, 0, z0, NULL);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  *touching = 0;
  for (int i = 0; i < steps; i++) {
    dynSteps(w, 1);
    int n;
    hsd_contacts(w, &n);
    *touching += n > 0;
  }
  *z = hsd_state(w, 0)->rootP[2];
  hsd_freeWorld(w);
  hsm_freeBody(box);
  hsm_freeBody(floor);
}

// the bits reach the links: the cube's contype / conaffinity as written, the floor's 1 and 1
static void testBitsCompiled(void) {
  hsBody *b = loadMjcf("filter_bits.xml",
                       "<mujoco><worldbody><body name='box'><freejoint/>"
                       "<geom type='box' size='0.05 0.05 0.05' contype='6' conaffinity='9'/>"
                       "</body></worldbody></mujoco>", NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(b->links[0].contype, 6u);
  CU_ASSERT_EQUAL(b->links[0].conaffinity, 9u);
  hsBody *v = dynBox("filter_vrml.wrl", 1, 0.1, 0.1, 0.1, 0, 0, 0, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(v);
  CU_ASSERT_EQUAL(v->links[0].contype, 1u);
  CU_ASSERT_EQUAL(v->links[0].conaffinity, 1u);
  CU_ASSERT_EQUAL(v->ncollisionExclude, 0);
  // MuJoCo's rule: (6 & 1) || (1 & 9) -> the cube and a VRML box collide; 6 & 9 == 0 and
  // 6 & 9 == 0 -> two such cubes do not
  CU_ASSERT_TRUE(hsm_linksMayCollide(b, 0, v, 0, 0));
  CU_ASSERT_FALSE(hsm_linksMayCollide(b, 0, b, 0, 0));
  hsm_freeBody(b);
  hsm_freeBody(v);
}

// on each engine: contype 2 / conaffinity 2 against the floor's 1 / 1 shares no bit, so the cube
// falls through the floor as if it were not there: 0.6 s from 0.5 m, z = 0.5 - 9.8 0.36 / 2 =
// -1.264 m (semi-implicit Euler at 1 ms: g dt t / 2 = 2.9 mm off); contype 2 / conaffinity 1
// shares a bit (2 & 1 = 0 but 1 & 1 = 1), so it rests on the floor at its half size, 0.05 m
// (within the contact's allowed penetration, 1 mm)
static void testBitsFallThroughOrRest(void) {
  static const hstEngine engines[] = {hsENGINE_ODE, hsENGINE_JOINT_SPACE};
  for (int k = 0; k < 2; k++) {
    double z;
    int touching;
    dropCube(engines[k], "contype='2' conaffinity='2'", 0.5, 600, &z, &touching);
    CU_ASSERT_EQUAL(touching, 0);
    HST_NEAR(z, 0.5 - 9.8 * 0.36 / 2, 4e-3);
    dropCube(engines[k], "contype='2' conaffinity='1'", 0.1, 600, &z, &touching);
    CU_ASSERT(touching > 0);
    HST_NEAR(z, 0.05, 1e-3);
    // the default bits (1, 1) rest too
    dropCube(engines[k], "", 0.1, 600, &z, &touching);
    HST_NEAR(z, 0.05, 1e-3);
  }
}

// a robot of two sibling slides, `lower` resting on the floor and `upper` dropped from above
// it; with self-collision registered, upper rests on lower (centre at 0.15 m) unless the file
// excludes the pair, when it falls through lower onto the floor (0.05 m, where lower is). The
// siblings are not a link and its parent, and MuJoCo's parent filter does not part them (their
// parent is welded to the world), so only the exclude does.
static void testExcludeFallsThrough(void) {
  static const hstEngine engines[] = {hsENGINE_ODE, hsENGINE_JOINT_SPACE};
  static const char *const contact[] = {"", "<contact><exclude body1='upper' body2='lower'/>"
                                            "</contact>"};
  for (int k = 0; k < 2; k++) {
    for (int x = 0; x < 2; x++) {
      char xml[2048];
      snprintf(xml, sizeof xml,
               "<mujoco><worldbody><geom type='box' size='1 1 0.1' pos='0 0 -0.1'/>"
               "<body name='rig'>"
               "<body name='lower' pos='0 0 0.06'><joint name='zl' type='slide' axis='0 0 1'/>"
               "<geom type='box' size='0.05 0.05 0.05'/></body>"
               "<body name='upper' pos='0 0 0.3'><joint name='zu' type='slide' axis='0 0 1'/>"
               "<geom type='box' size='0.05 0.05 0.05'/></body>"
               "</body></worldbody>%s</mujoco>", contact[x]);
      hsBody *rig = loadMjcf("filter_rig.xml", xml, "rig");
      hsBody *floor = loadMjcf("filter_rig.xml", xml, "world");
      CU_ASSERT_PTR_NOT_NULL_FATAL(rig);
      CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
      int lower = hsm_linkIndex(rig, "zl"), upper = hsm_linkIndex(rig, "zu");
      CU_ASSERT_FATAL(lower >= 0 && upper >= 0);
      CU_ASSERT_EQUAL(rig->ncollisionExclude, x);
      CU_ASSERT_EQUAL(hsm_linksMayCollide(rig, lower, rig, upper, 1), !x);
      CU_ASSERT_TRUE(hsm_linksMayCollide(rig, lower, rig, upper, 0));  // two robots: no exclude
      hsdWorld *w = robotAndFloor(engines[k], rig, floor, 1);
      CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
      dynSteps(w, 1500);
      const hsBodyState *st = hsd_state(w, 0);
      HST_NEAR(st->linkP[3 * lower + 2], 0.05, 1e-3);
      HST_NEAR(st->linkP[3 * upper + 2], x ? 0.05 : 0.15, 2e-3);
      hsd_freeWorld(w);
      hsm_freeBody(rig);
      hsm_freeBody(floor);
    }
  }
}

void register_filter(void) {
  CU_pSuite s = hst_addSuite("filter");
  CU_add_test(s, "contype / conaffinity compiled, VRML unchanged", testBitsCompiled);
  CU_add_test(s, "bits: fall through or rest, both engines", testBitsFallThroughOrRest);
  CU_add_test(s, "exclude: fall through or rest, both engines", testExcludeFallsThrough);
}
