// test_urdf.c - hsm_loadUrdf: names, joint types and ids, frames from rpy, limits, inertials,
// the world-link rule, shapes and materials, meshes and package:// lookup, mimic/dynamics info
// strings, validation errors with their lines (inline, and the files of tests/data/urdf/bad),
// the hsm_loadModel dispatch, and allocation failure.

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "openhrp_fixtures.h"
#include "test_support.h"

// a unit inertial, and a link that has only it
#define INERTIAL                                                                        \
  "<inertial><mass value=\"1\"/><inertia ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.1\" " \
  "iyz=\"0\" izz=\"0.1\"/></inertial>"
#define LINK(name) "  <link name=\"" name "\">" INERTIAL "</link>\n"
#define LIMIT "<limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/>"

static char g_text[32768];

// write text to name (under the run's temporary directory) and load it
static hsBody *loadUrdf(const char *name, const char *text, hsError *err) {
  snprintf(g_text, sizeof g_text, "%s", text);
  const char *path = hst_writeFile(name, text);
  return hsm_loadUrdf(path, NULL, NULL, 0, NULL, err);
}

// the 1-based line of the first occurrence of needle in the last loaded text
static int lineOf(const char *needle) {
  return hst_lineOf(g_text, needle);
}

static void printError(const hsError *err) {
  char buf[1200];
  fprintf(stderr, "\n  %s\n", hsu_formatError(err, buf, sizeof buf));
}

// load text that must succeed
static hsBody *loadOk(const char *name, const char *text) {
  hsError err = {0};
  hsBody *b = loadUrdf(name, text, &err);
  if (!b) {
    printError(&err);
  }
  return b;
}

static const hsAppearance *appearanceOf(const hsBody *b, const hsShapeRef *ref) {
  return &b->appearances[b->shapes[ref->shape].appearance];
}

// the link-frame extent of a placed shape along axis k
static void placedRange(const hsBody *b, const hsShapeRef *ref, int k, double *lo, double *hi) {
  const hsShape *s = &b->shapes[ref->shape];
  *lo = INFINITY, *hi = -INFINITY;
  for (int v = 0; v < s->nvertex; v++) {
    double p[3] = {s->vertices[3 * v], s->vertices[3 * v + 1], s->vertices[3 * v + 2]}, q[3];
    hsu_transformPoint(q, ref->T, p);
    *lo = fmin(*lo, q[k]), *hi = fmax(*hi, q[k]);
  }
}

//---------------------------------- structure and frames --------------------------------------

// rpy = (90, 30, 60) degrees
static const char *kArm =
    "<?xml version=\"1.0\"?>\n"
    "<robot name=\"arm\">\n" LINK("base")
    "  <joint name=\"shoulder\" type=\"revolute\">\n"
    "    <origin xyz=\"0.1 0.2 0.3\" rpy=\"1.5707963267948966 0.52359877559829882 "
    "1.0471975511965976\"/>\n"
    "    <parent link=\"base\"/>\n"
    "    <child link=\"upper\"/>\n"
    "    <axis xyz=\"0 0 2\"/>\n"
    "    <limit lower=\"-1.5\" upper=\"2\" velocity=\"3\" effort=\"40\"/>\n"
    "  </joint>\n" LINK("upper") "</robot>\n";

static void testTwoLinkArm(void) {
  hsBody *b = loadOk("arm.urdf", kArm);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_STRING_EQUAL(b->name, "arm");
  CU_ASSERT(b->url[0] == '/' && strstr(b->url, "/arm.urdf") != NULL);
  CU_ASSERT_EQUAL(b->ninfo, 0);
  CU_ASSERT_EQUAL(b->nlink, 2);
  CU_ASSERT_EQUAL(b->njoint, 1);
  CU_ASSERT_EQUAL(b->jointLink[0], 1);
  // the root: its URDF link name, free at the origin
  const hsLink *root = &b->links[0];
  CU_ASSERT_STRING_EQUAL(root->name, "base");
  CU_ASSERT_EQUAL(root->jointType, hsJOINT_FREE);
  CU_ASSERT_STRING_EQUAL(root->jointTypeName, "free");
  CU_ASSERT_EQUAL(root->jointId, -1);
  CU_ASSERT_EQUAL(root->parent, -1);
  for (int k = 0; k < 3; k++) {
    HST_NEAR(root->translation[k], 0, 0);
    HST_NEAR(root->R[4 * k], 1, 0);
  }
  // the arm: named after its joint, its segment after its URDF link
  const hsLink *arm = &b->links[1];
  CU_ASSERT_STRING_EQUAL(arm->name, "shoulder");
  CU_ASSERT_STRING_EQUAL(arm->jointTypeName, "rotate");
  CU_ASSERT_EQUAL(arm->jointType, hsJOINT_ROTATE);
  CU_ASSERT_EQUAL(arm->jointId, 0);
  CU_ASSERT_EQUAL(arm->parent, 0);
  CU_ASSERT_EQUAL(arm->nsegment, 1);
  CU_ASSERT_STRING_EQUAL(b->segments[arm->segmentAdr].name, "upper");
  CU_ASSERT_STRING_EQUAL(b->segments[root->segmentAdr].name, "base");
  CU_ASSERT_EQUAL(hsm_linkIndex(b, "upper"), 1);
  CU_ASSERT_EQUAL(hsm_linkIndex(b, "shoulder"), 1);
  CU_ASSERT_EQUAL(hsm_linkIndex(b, "base"), 0);
  HST_NEAR(arm->translation[0], 0.1, 1e-15);
  HST_NEAR(arm->translation[1], 0.2, 1e-15);
  HST_NEAR(arm->translation[2], 0.3, 1e-15);
  // Rz(60) Ry(30) Rx(90) by hand: with cy = 1/2, sy = s3/2, cp = s3/2, sp = 1/2, cr = 0, sr = 1
  // R = [cy cp, cy sp sr - sy cr, cy sp cr + sy sr;  sy cp, sy sp sr + cy cr, sy sp cr - cy sr;
  //      -sp, cp sr, cp cr]
  double s3 = sqrt(3.0);
  double want[9] = {s3 / 4, 0.25, s3 / 2, 0.75, s3 / 4, -0.5, -0.5, s3 / 2, 0};
  for (int k = 0; k < 9; k++) {
    HST_NEAR(arm->R[k], want[k], 1e-12);
  }
  // axis normalised, in the child frame as written
  HST_NEAR(arm->axis[0], 0, 0);
  HST_NEAR(arm->axis[1], 0, 0);
  HST_NEAR(arm->axis[2], 1, 1e-15);
  // limits: position, velocity both ways, effort as the current limit
  CU_ASSERT_EQUAL(arm->ulimit.n, 1);
  CU_ASSERT_EQUAL(arm->llimit.n, 1);
  CU_ASSERT_EQUAL(arm->uvlimit.n, 1);
  CU_ASSERT_EQUAL(arm->lvlimit.n, 1);
  CU_ASSERT_EQUAL_FATAL(arm->climit.n, 1);
  HST_NEAR(arm->ulimit.v[0], 2, 0);
  HST_NEAR(arm->llimit.v[0], -1.5, 0);
  HST_NEAR(arm->uvlimit.v[0], 3, 0);
  HST_NEAR(arm->lvlimit.v[0], -3, 0);
  HST_NEAR(arm->climit.v[0], 40, 0);
  HST_NEAR(arm->gearRatio, 1, 0);
  HST_NEAR(arm->torqueConst, 1, 0);
  // no geometry: nothing to draw, nothing to collide
  CU_ASSERT_EQUAL(arm->nshapeRef, 0);
  CU_ASSERT_EQUAL(arm->ncollisionRef, 0);
  // forward kinematics at q = 90 deg: the arm's x axis becomes R (0, 1, 0)
  hsError err = {0};
  hsBodyState *st = hsm_makeState(b, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(st);
  st->q[1] = HS_PI / 2;
  hsm_forwardKinematics(b, st);
  HST_NEAR(st->linkP[5], 0.3, 1e-15);
  HST_NEAR(st->linkR[9 + 0], want[1], 1e-12);
  HST_NEAR(st->linkR[9 + 3], want[4], 1e-12);
  HST_NEAR(st->linkR[9 + 6], want[7], 1e-12);
  hsm_freeState(st);
  hsm_freeBody(b);
}

static void testInertialFrame(void) {
  // diag(1, 2, 3) given in a frame turned 45 deg about z: R D R^T with c = s = 1/sqrt(2) is
  // xx = c^2 + 2 s^2 = 1.5, yy = s^2 + 2 c^2 = 1.5, xy = c s (1 - 2) = -0.5, zz = 3;
  // the centre of mass is the inertial origin
  hsBody *b = loadOk("inertial.urdf",
                     "<robot name=\"m\">\n"
                     "  <link name=\"base\"><inertial>\n"
                     "    <origin xyz=\"0.1 0.2 0.3\" rpy=\"0 0 0.78539816339744831\"/>\n"
                     "    <mass value=\"2\"/>\n"
                     "    <inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"2\" iyz=\"0\" izz=\"3\"/>\n"
                     "  </inertial></link>\n"
                     "  <link name=\"tip\"><inertial><mass value=\"0.5\"/>\n"
                     "    <inertia ixx=\"1\" ixy=\"0.1\" ixz=\"0.05\" iyy=\"1\" iyz=\"0.2\" "
                     "izz=\"1\"/></inertial></link>\n"
                     "  <joint name=\"weld\" type=\"fixed\"><parent link=\"base\"/>"
                     "<child link=\"tip\"/></joint>\n"
                     "</robot>\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  const hsLink *base = &b->links[0];
  HST_NEAR(base->mass, 2, 0);
  HST_NEAR(base->com[0], 0.1, 1e-15);
  HST_NEAR(base->com[1], 0.2, 1e-15);
  HST_NEAR(base->com[2], 0.3, 1e-15);
  double want[9] = {1.5, -0.5, 0, -0.5, 1.5, 0, 0, 0, 3};
  for (int k = 0; k < 9; k++) {
    HST_NEAR(base->inertia[k], want[k], 1e-12);
  }
  // the segment keeps the tensor as given, placed by the inertial frame
  const hsSegment *seg = &b->segments[base->segmentAdr];
  CU_ASSERT_STRING_EQUAL(seg->name, "base");
  HST_NEAR(seg->mass, 2, 0);
  HST_NEAR(seg->com[0], 0, 0);
  HST_NEAR(seg->inertia[4], 2, 0);
  HST_NEAR(seg->T[3], 0.1, 1e-15);
  HST_NEAR(seg->T[11], 0.3, 1e-15);
  HST_NEAR(seg->T[1], -sqrt(0.5), 1e-15);
  // products of inertia fill both halves of the symmetric tensor
  const hsLink *tip = &b->links[1];
  CU_ASSERT_STRING_EQUAL(tip->name, "weld");
  CU_ASSERT_EQUAL(tip->jointId, -1);
  CU_ASSERT_EQUAL(b->njoint, 0);
  HST_NEAR(tip->inertia[1], 0.1, 0);
  HST_NEAR(tip->inertia[3], 0.1, 0);
  HST_NEAR(tip->inertia[2], 0.05, 0);
  HST_NEAR(tip->inertia[6], 0.05, 0);
  HST_NEAR(tip->inertia[5], 0.2, 0);
  HST_NEAR(tip->inertia[7], 0.2, 0);
  hsm_freeBody(b);
}

//---------------------------------- the world-link rule ---------------------------------------

static void testFixedBaseThroughWorld(void) {
  hsBody *b = loadOk("fixedbase.urdf",
                     "<robot name=\"fixedbase\">\n"
                     "  <link name=\"world\"/>\n"
                     "  <joint name=\"anchor\" type=\"fixed\">\n"
                     "    <origin xyz=\"1 2 3\" rpy=\"0 0 1.5707963267948966\"/>\n"
                     "    <parent link=\"world\"/><child link=\"base\"/></joint>\n" LINK("base")
                     LINK("arm")
                     "  <joint name=\"j1\" type=\"continuous\"><parent link=\"base\"/>"
                     "<child link=\"arm\"/></joint>\n"
                     "</robot>\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  // world is dropped (without a massless-link warning); base is the root, fixed, at the joint
  CU_ASSERT_EQUAL(b->nlink, 2);
  CU_ASSERT_EQUAL(b->nsegment, 2);
  CU_ASSERT_EQUAL(hsm_linkIndex(b, "world"), -1);
  CU_ASSERT_EQUAL(hsm_linkIndex(b, "anchor"), -1);
  const hsLink *root = &b->links[0];
  CU_ASSERT_STRING_EQUAL(root->name, "base");
  CU_ASSERT_EQUAL(root->jointType, hsJOINT_FIXED);
  CU_ASSERT_STRING_EQUAL(root->jointTypeName, "fixed");
  CU_ASSERT_EQUAL(root->jointId, -1);
  HST_NEAR(root->translation[0], 1, 0);
  HST_NEAR(root->translation[1], 2, 0);
  HST_NEAR(root->translation[2], 3, 0);
  double rz[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1};
  for (int k = 0; k < 9; k++) {
    HST_NEAR(root->R[k], rz[k], 1e-15);
  }
  CU_ASSERT_STRING_EQUAL(b->links[1].name, "j1");
  CU_ASSERT_EQUAL(b->links[1].jointId, 0);
  // the initial state puts the root where the joint says
  hsError err = {0};
  hsBodyState *st = hsm_makeState(b, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(st);
  HST_NEAR(st->rootP[2], 3, 0);
  hsm_freeState(st);
  hsm_freeBody(b);
}

static void testFloatingBaseThroughWorld(void) {
  hsBody *b = loadOk("floating.urdf",
                     "<robot name=\"floater\">\n"
                     "  <link name=\"world\"/>\n"
                     "  <joint name=\"float\" type=\"floating\"><origin xyz=\"0 0 0.5\"/>\n"
                     "    <parent link=\"world\"/><child link=\"torso\"/></joint>\n" LINK("torso")
                     "</robot>\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(b->nlink, 1);
  CU_ASSERT_STRING_EQUAL(b->links[0].name, "torso");
  CU_ASSERT_EQUAL(b->links[0].jointType, hsJOINT_FREE);
  CU_ASSERT_STRING_EQUAL(b->links[0].jointTypeName, "free");
  HST_NEAR(b->links[0].translation[2], 0.5, 0);
  hsm_freeBody(b);
}

static void testWorldKeptOrOrdinary(void) {
  // a bare world with two children stays: the fixed root, named world, without a warning
  hsBody *b = loadOk("world2.urdf",
                     "<robot name=\"scene\">\n"
                     "  <link name=\"world\"/>\n" LINK("robot") LINK("table")
                     "  <joint name=\"put_robot\" type=\"fixed\"><origin xyz=\"1 0 0\"/>"
                     "<parent link=\"world\"/><child link=\"robot\"/></joint>\n"
                     "  <joint name=\"put_table\" type=\"fixed\"><parent link=\"world\"/>"
                     "<child link=\"table\"/></joint>\n"
                     "</robot>\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(b->nlink, 3);
  CU_ASSERT_STRING_EQUAL(b->links[0].name, "world");
  CU_ASSERT_EQUAL(b->links[0].jointType, hsJOINT_FIXED);
  HST_NEAR(b->links[0].mass, 0, 0);
  CU_ASSERT_STRING_EQUAL(b->links[1].name, "put_robot");
  CU_ASSERT_EQUAL(b->links[1].jointType, hsJOINT_FIXED);
  HST_NEAR(b->links[1].translation[0], 1, 0);
  CU_ASSERT_STRING_EQUAL(b->links[2].name, "put_table");
  hsm_freeBody(b);
  // a world with an inertial is an ordinary link: a free root
  b = loadOk("world3.urdf",
             "<robot name=\"w\">\n" LINK("world") LINK("a")
             "  <joint name=\"j\" type=\"fixed\"><parent link=\"world\"/><child link=\"a\"/>"
             "</joint>\n</robot>\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(b->nlink, 2);
  CU_ASSERT_STRING_EQUAL(b->links[0].name, "world");
  CU_ASSERT_EQUAL(b->links[0].jointType, hsJOINT_FREE);
  hsm_freeBody(b);
}

//---------------------------------- joint types, ids and order --------------------------------

static void testTypesIdsAndOrder(void) {
  // tree: r -(jF fixed)- c -(jD revolute)- d, and r -(jB continuous)- a -(jA prismatic)- b.
  // Depth-first with children in joint file order: r, jF, jD, jB, jA. jointIds in the file
  // order of the movable joints: jA 0, jB 1, jD 2.
  hsBody *b = loadOk(
      "tree.urdf",
      "<robot name=\"tree\">\n" LINK("r") LINK("a") LINK("b") LINK("c") LINK("d")
      "  <joint name=\"jA\" type=\"prismatic\"><parent link=\"a\"/><child link=\"b\"/>\n"
      "    <axis xyz=\"0 1 0\"/><limit lower=\"-0.1\" upper=\"0.2\" effort=\"5\" "
      "velocity=\"0.5\"/></joint>\n"
      "  <joint name=\"jF\" type=\"fixed\"><parent link=\"r\"/><child link=\"c\"/></joint>\n"
      "  <joint name=\"jB\" type=\"continuous\"><parent link=\"r\"/><child link=\"a\"/>\n"
      "    <limit effort=\"7\" velocity=\"8\"/></joint>\n"
      "  <joint name=\"jD\" type=\"revolute\"><parent link=\"c\"/><child link=\"d\"/>" LIMIT
      "</joint>\n"
      "</robot>\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL_FATAL(b->nlink, 5);
  const char *names[5] = {"r", "jF", "jD", "jB", "jA"};
  const char *segments[5] = {"r", "c", "d", "a", "b"};
  int ids[5] = {-1, -1, 2, 1, 0}, parents[5] = {-1, 0, 1, 0, 3};
  for (int i = 0; i < 5; i++) {
    CU_ASSERT_STRING_EQUAL(b->links[i].name, names[i]);
    CU_ASSERT_STRING_EQUAL(b->segments[b->links[i].segmentAdr].name, segments[i]);
    CU_ASSERT_EQUAL(b->links[i].jointId, ids[i]);
    CU_ASSERT_EQUAL(b->links[i].parent, parents[i]);
  }
  CU_ASSERT_EQUAL(b->njoint, 3);
  CU_ASSERT_EQUAL(b->jointLink[0], 4);
  CU_ASSERT_EQUAL(b->jointLink[1], 3);
  CU_ASSERT_EQUAL(b->jointLink[2], 2);
  CU_ASSERT_EQUAL(b->links[0].nchild, 2);
  CU_ASSERT_EQUAL(b->links[0].children[0], 1);
  CU_ASSERT_EQUAL(b->links[0].children[1], 3);
  // fixed
  const hsLink *jF = &b->links[1];
  CU_ASSERT_EQUAL(jF->jointType, hsJOINT_FIXED);
  CU_ASSERT_STRING_EQUAL(jF->jointTypeName, "fixed");
  // continuous: a rotate joint without position limits
  const hsLink *jB = &b->links[3];
  CU_ASSERT_STRING_EQUAL(jB->jointTypeName, "rotate");
  CU_ASSERT_EQUAL(jB->ulimit.n, 0);
  CU_ASSERT_EQUAL(jB->llimit.n, 0);
  CU_ASSERT_EQUAL_FATAL(jB->uvlimit.n, 1);
  HST_NEAR(jB->uvlimit.v[0], 8, 0);
  HST_NEAR(jB->lvlimit.v[0], -8, 0);
  HST_NEAR(jB->climit.v[0], 7, 0);
  HST_NEAR(jB->axis[0], 1, 0);  // the default axis
  // prismatic
  const hsLink *jA = &b->links[4];
  CU_ASSERT_EQUAL(jA->jointType, hsJOINT_SLIDE);
  CU_ASSERT_STRING_EQUAL(jA->jointTypeName, "slide");
  HST_NEAR(jA->axis[1], 1, 0);
  CU_ASSERT_EQUAL_FATAL(jA->ulimit.n, 1);
  HST_NEAR(jA->ulimit.v[0], 0.2, 0);
  HST_NEAR(jA->llimit.v[0], -0.1, 0);
  HST_NEAR(jA->uvlimit.v[0], 0.5, 0);
  HST_NEAR(jA->climit.v[0], 5, 0);
  hsm_freeBody(b);
}

static void testLimitDefaults(void) {
  // a <limit> without lower/upper bounds the joint to [0, 0], as URDF says; without velocity
  // or effort there are no such limits
  hsBody *b = loadOk("limits.urdf",
                     "<robot name=\"l\">\n" LINK("a") LINK("b")
                     "  <joint name=\"j\" type=\"revolute\"><parent link=\"a\"/>"
                     "<child link=\"b\"/><limit upper=\"0.5\"/></joint>\n</robot>\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  const hsLink *j = &b->links[1];
  CU_ASSERT_EQUAL_FATAL(j->llimit.n, 1);
  HST_NEAR(j->llimit.v[0], 0, 0);
  HST_NEAR(j->ulimit.v[0], 0.5, 0);
  CU_ASSERT_EQUAL(j->uvlimit.n, 0);
  CU_ASSERT_EQUAL(j->lvlimit.n, 0);
  CU_ASSERT_EQUAL(j->climit.n, 0);
  hsm_freeBody(b);
}

//---------------------------------- geometry --------------------------------------------------

static void testVisualAndCollision(void) {
  hsBody *b = loadOk(
      "shapes.urdf",
      "<robot name=\"shapes\">\n"
      "  <link name=\"base\">" INERTIAL "\n"
      "    <visual><origin xyz=\"1 0 0\"/><geometry><box size=\"0.1 0.2 0.3\"/></geometry>"
      "</visual>\n"
      "    <visual><origin xyz=\"0 0 0.5\"/>\n"
      "      <geometry><cylinder radius=\"0.05\" length=\"0.4\"/></geometry></visual>\n"
      "    <collision><geometry><sphere radius=\"0.25\"/></geometry></collision>\n"
      "  </link>\n"
      "  <link name=\"arm\">" INERTIAL
      "<visual><geometry><box size=\"1 1 1\"/></geometry></visual></link>\n"
      "  <joint name=\"j\" type=\"fixed\"><parent link=\"base\"/><child link=\"arm\"/></joint>\n"
      "</robot>\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(b->nshape, 4);
  const hsLink *base = &b->links[0], *arm = &b->links[1];
  CU_ASSERT_EQUAL_FATAL(base->nshapeRef, 2);
  CU_ASSERT_EQUAL_FATAL(base->ncollisionRef, 1);
  CU_ASSERT_EQUAL(arm->nshapeRef, 1);
  CU_ASSERT_EQUAL(arm->ncollisionRef, 0);  // visuals are not collision shapes
  // the segment lists the visuals
  const hsSegment *seg = &b->segments[base->segmentAdr];
  CU_ASSERT_EQUAL_FATAL(seg->nshapeRef, 2);
  CU_ASSERT_EQUAL(seg->shapeRefs[0], 0);
  CU_ASSERT_EQUAL(seg->shapeRefs[1], 1);
  // box
  const hsShapeRef *box = &base->shapeRefs[0];
  const hsShape *bs = &b->shapes[box->shape];
  CU_ASSERT_EQUAL(bs->primitive, hsPRIM_BOX);
  CU_ASSERT_EQUAL_FATAL(bs->nparam, 3);
  HST_NEAR(bs->params[1], 0.2, 1e-7);
  HST_NEAR(box->T[3], 1, 0);
  HST_NEAR(box->T[0], 1, 0);
  CU_ASSERT_EQUAL(box->inlineMatrix, -1);
  // cylinder: placed at origin * Rx(+90 deg) = [1 0 0; 0 0 -1; 0 1 0], so its axis (the
  // shape's y) is the link's z and it spans z = 0.5 -+ 0.2
  const hsShapeRef *cyl = &base->shapeRefs[1];
  const hsShape *cs = &b->shapes[cyl->shape];
  CU_ASSERT_EQUAL(cs->primitive, hsPRIM_CYLINDER);
  CU_ASSERT_EQUAL_FATAL(cs->nparam, 5);
  float wantParams[5] = {0.05f, 0.4f, 1, 1, 1};
  for (int k = 0; k < 5; k++) {
    HST_NEAR(cs->params[k], wantParams[k], 0);
  }
  double rx[12] = {1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0.5};
  for (int k = 0; k < 12; k++) {
    HST_NEAR(cyl->T[k], rx[k], 0);
  }
  double lo, hi;
  placedRange(b, cyl, 2, &lo, &hi);
  HST_NEAR(lo, 0.3, 1e-6);
  HST_NEAR(hi, 0.7, 1e-6);
  placedRange(b, cyl, 1, &lo, &hi);
  HST_NEAR(hi, 0.05, 1e-6);
  // collision sphere
  const hsShape *ss = &b->shapes[base->collisionRefs[0].shape];
  CU_ASSERT_EQUAL(ss->primitive, hsPRIM_SPHERE);
  HST_NEAR(ss->params[0], 0.25, 0);
  CU_ASSERT(ss->ntriangle > 0);
  hsm_freeBody(b);
}

static void testMaterials(void) {
  hst_writeFile("mat/textures/skin.png", "pixels are not decoded unless asked");
  hst_expectLog(1);  // the inline redefinition of red
  hsBody *b = loadOk(
      "mat/robot.urdf",
      "<robot name=\"mat\">\n"
      "  <material name=\"red\"><color rgba=\"1 0 0 0.25\"/></material>\n"
      "  <link name=\"base\">" INERTIAL "\n"
      "    <visual><geometry><box size=\"1 1 1\"/></geometry><material name=\"red\"/></visual>\n"
      "    <visual><geometry><box size=\"1 1 1\"/></geometry>\n"
      "      <material name=\"blue\"><color rgba=\"0 0 1 1\"/></material></visual>\n"
      "    <visual><geometry><box size=\"1 1 1\"/></geometry>\n"
      "      <material name=\"red\"><color rgba=\"0 1 0 1\"/></material></visual>\n"
      "    <visual><geometry><box size=\"1 1 1\"/></geometry>\n"
      "      <material><color rgba=\"0.5 0.5 0.5 1\"/></material></visual>\n"
      "    <visual><geometry><box size=\"1 1 1\"/></geometry></visual>\n"
      "    <visual><geometry><box size=\"1 1 1\"/></geometry><material name=\"skin\"/></visual>\n"
      "  </link>\n"
      "  <link name=\"arm\">" INERTIAL
      "<visual><geometry><sphere radius=\"1\"/></geometry><material name=\"blue\"/></visual>"
      "</link>\n"
      "  <joint name=\"j\" type=\"fixed\"><parent link=\"base\"/><child link=\"arm\"/></joint>\n"
      "  <material name=\"skin\"><texture filename=\"textures/skin.png\"/></material>\n"
      "</robot>\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(hst_logCount(), 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(hst_lastLog(), "robot.urdf:8: material 'red' is defined again, "
                                "differently (first at robot level on line 2)"));
  // red, blue (inline, named: reused by the arm), the anonymous grey; the skin has no colour
  CU_ASSERT_EQUAL_FATAL(b->nmaterial, 3);
  const hsLink *base = &b->links[0];
  CU_ASSERT_EQUAL_FATAL(base->nshapeRef, 6);
  int want[6] = {0, 1, 0, 2, -1, -1};  // a robot-level name wins over an inline definition
  for (int i = 0; i < 6; i++) {
    CU_ASSERT_EQUAL(appearanceOf(b, &base->shapeRefs[i])->material, want[i]);
  }
  CU_ASSERT_EQUAL(appearanceOf(b, &b->links[1].shapeRefs[0])->material, 1);
  const hsMaterial *red = &b->materials[0];
  HST_NEAR(red->diffuseColor[0], 1, 0);
  HST_NEAR(red->diffuseColor[1], 0, 0);
  HST_NEAR(red->transparency, 0.75, 0);
  HST_NEAR(red->ambientIntensity, 0.2, 1e-7);
  HST_NEAR(red->shininess, 0.2, 1e-7);
  HST_NEAR(red->emissiveColor[0], 0, 0);
  HST_NEAR(red->specularColor[2], 0, 0);
  HST_NEAR(b->materials[1].diffuseColor[2], 1, 0);
  HST_NEAR(b->materials[1].transparency, 0, 0);
  HST_NEAR(b->materials[2].diffuseColor[1], 0.5, 0);
  // the texture: resolved to an absolute path, not decoded
  CU_ASSERT_EQUAL_FATAL(b->ntexture, 1);
  CU_ASSERT_EQUAL(appearanceOf(b, &base->shapeRefs[5])->texture, 0);
  CU_ASSERT_EQUAL(appearanceOf(b, &base->shapeRefs[0])->texture, -1);
  CU_ASSERT(b->textures[0].url[0] == '/');
  CU_ASSERT_PTR_NOT_NULL(strstr(b->textures[0].url, "/mat/textures/skin.png"));
  CU_ASSERT_EQUAL(b->textures[0].nimage, 0);
  CU_ASSERT_EQUAL(b->textures[0].repeatS, 1);
  hsm_freeBody(b);
}

static void testMissingTextureWarns(void) {
  hst_expectLog(1);
  hsmWarning warnings[4];
  int nwarn = 0;
  snprintf(g_text, sizeof g_text,
           "<robot name=\"t\">\n"
           "  <material name=\"ghost\">\n"
           "    <color rgba=\"1 1 1 1\"/><texture filename=\"missing.png\"/></material>\n"
           "  <link name=\"base\">" INERTIAL
           "<visual><geometry><box size=\"1 1 1\"/></geometry><material name=\"ghost\"/>"
           "</visual></link>\n</robot>\n");
  const char *path = hst_writeFile("tex/robot.urdf", g_text);
  hsError err = {0};
  hsBody *b = hsm_loadUrdf(path, NULL, warnings, 4, &nwarn, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(nwarn, 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(warnings[0].message, "texture 'missing.png' not found"));
  CU_ASSERT_PTR_NOT_NULL(strstr(warnings[0].message, "/tex/missing.png"));  // what was tried
  CU_ASSERT_EQUAL(warnings[0].line, lineOf("<material name=\"ghost\">"));
  CU_ASSERT_EQUAL(b->ntexture, 0);
  CU_ASSERT_EQUAL(b->nmaterial, 1);  // the colour stays
  CU_ASSERT_EQUAL(appearanceOf(b, &b->links[0].shapeRefs[0])->texture, -1);
  CU_ASSERT_EQUAL(hst_logCount(), 1);
  hsm_freeBody(b);
}

static void testTextureImages(void) {
  // decoded when asked; a texture that does not decode is a warning; a mesh part brings its
  // own material and texture (tests/data/meshes/textured.obj and its .mtl)
  hst_expectLog(1);
  hst_writeFile("img/broken.png", "not an image");
  snprintf(g_text, sizeof g_text,
           "<robot name=\"img\">\n"
           "  <material name=\"checker\"><texture filename=\"%s\"/></material>\n"
           "  <material name=\"broken\"><texture filename=\"broken.png\"/></material>\n"
           "  <link name=\"base\">" INERTIAL "\n"
           "    <visual><geometry><box size=\"1 1 1\"/></geometry><material name=\"checker\"/>"
           "</visual>\n"
           "    <visual><geometry><box size=\"1 1 1\"/></geometry><material name=\"broken\"/>"
           "</visual>\n"
           "    <visual><geometry><mesh filename=\"%s\"/></geometry></visual>\n"
           "  </link>\n</robot>\n",
           HST_DATA_DIR "/meshes/textures/checker.png", HST_DATA_DIR "/meshes/textured.obj");
  const char *path = hst_writeFile("img/robot.urdf", g_text);
  hsmLoadOptions opt;
  hsm_defaultLoadOptions(&opt);
  opt.readImage = 1;
  hsmWarning warnings[2];
  int nwarn = 0;
  hsError err = {0};
  hsBody *b = hsm_loadUrdf(path, &opt, warnings, 2, &nwarn, &err);
  if (!b) {
    printError(&err);
  }
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(nwarn, 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(warnings[0].message, "texture not loaded"));
  CU_ASSERT_EQUAL(warnings[0].line, lineOf("name=\"broken\"><texture"));
  // the checker shared by the URDF material and the mesh part: one texture, decoded
  CU_ASSERT_EQUAL_FATAL(b->ntexture, 2);
  const hsLink *base = &b->links[0];
  CU_ASSERT_EQUAL_FATAL(base->nshapeRef, 3);
  const hsTexture *checker = &b->textures[appearanceOf(b, &base->shapeRefs[0])->texture];
  CU_ASSERT(checker->width > 0 && checker->height > 0);
  CU_ASSERT_EQUAL(checker->nimage,
                  (size_t)checker->width * checker->height * checker->numComponents);
  CU_ASSERT_PTR_NOT_NULL(checker->image);
  const hsTexture *broken = &b->textures[appearanceOf(b, &base->shapeRefs[1])->texture];
  CU_ASSERT_EQUAL(broken->nimage, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(broken->url, "/img/broken.png"));
  const hsAppearance *part = appearanceOf(b, &base->shapeRefs[2]);
  CU_ASSERT_EQUAL(part->texture, appearanceOf(b, &base->shapeRefs[0])->texture);
  CU_ASSERT_FATAL(part->material >= 0);
  HST_NEAR(b->materials[part->material].diffuseColor[2], 0.75, 1e-6);
  CU_ASSERT(part->ntexCoord > 0);
  hsm_freeBody(b);
}

//---------------------------------- meshes and paths ------------------------------------------

static const char *kTetraStl =
    "solid t\n"
    "facet normal 0 0 -1\nouter loop\nvertex 0 0 0\nvertex 0 1 0\nvertex 1 0 0\nendloop\n"
    "endfacet\n"
    "facet normal 0 -1 0\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 0 1\nendloop\n"
    "endfacet\n"
    "facet normal -1 0 0\nouter loop\nvertex 0 0 0\nvertex 0 0 1\nvertex 0 1 0\nendloop\n"
    "endfacet\n"
    "facet normal 1 1 1\nouter loop\nvertex 1 0 0\nvertex 0 1 0\nvertex 0 0 1\nendloop\n"
    "endfacet\n"
    "endsolid t\n";

// a robot with one link whose visual is the given mesh reference
static void meshRobot(const char *filename) {
  snprintf(g_text, sizeof g_text,
           "<robot name=\"m\">\n"
           "  <link name=\"base\">" INERTIAL "\n"
           "    <visual><geometry><mesh filename=\"%s\"/></geometry></visual>\n"
           "  </link>\n</robot>\n",
           filename);
}

// load the mesh robot written at urdfName; the url of its only shape into url (or "")
static int loadMeshUrl(const char *urdfName, const char *filename, char *url, size_t size,
                       hsError *err) {
  meshRobot(filename);
  const char *path = hst_writeFile(urdfName, g_text);
  hsBody *b = hsm_loadUrdf(path, NULL, NULL, 0, NULL, err);
  url[0] = 0;
  if (!b) {
    return -1;
  }
  if (b->nshape == 1) {
    snprintf(url, size, "%s", b->shapes[0].url);
  }
  hsm_freeBody(b);
  return 0;
}

static void expectUrl(const char *urdfName, const char *filename, const char *wantSuffix) {
  char url[1024];
  hsError err = {0};
  if (loadMeshUrl(urdfName, filename, url, sizeof url, &err)) {
    printError(&err);
  }
  size_t n = strlen(url), m = strlen(wantSuffix);
  CU_ASSERT(n >= m && strcmp(url + n - m, wantSuffix) == 0);
  CU_ASSERT(url[0] == '/');
  if (n < m || strcmp(url + n - m, wantSuffix) != 0) {
    fprintf(stderr, "\n  %s: got '%s', wanted '...%s'\n", filename, url, wantSuffix);
  }
}

// save, then set or clear an environment variable
typedef struct SavedEnv {
  char name[64];
  char *value;
} SavedEnv;

static void saveEnv(SavedEnv *s, const char *name) {
  snprintf(s->name, sizeof s->name, "%s", name);
  const char *v = getenv(name);
  s->value = v ? strdup(v) : NULL;
}

static void restoreEnv(SavedEnv *s) {
  if (s->value) {
    setenv(s->name, s->value, 1);
  } else {
    unsetenv(s->name);
  }
  free(s->value);
}

static void testPackageLookup(void) {
  SavedEnv rpp, app;
  saveEnv(&rpp, "ROS_PACKAGE_PATH");
  saveEnv(&app, "AMENT_PREFIX_PATH");
  unsetenv("ROS_PACKAGE_PATH");
  unsetenv("AMENT_PREFIX_PATH");
  char dir[600], env[1400];
  snprintf(dir, sizeof dir, "%s", hst_tmpDir());
  // walking up: an ancestor named after the package (an unpacked description package) ...
  hst_writeFile("pkgA/my_robot/meshes/t.stl", kTetraStl);
  expectUrl("pkgA/my_robot/urdf/r.urdf", "package://my_robot/meshes/t.stl",
            "/pkgA/my_robot/meshes/t.stl");
  // ... or an ancestor holding the package
  hst_writeFile("pkgB/parts_pkg/t.stl", kTetraStl);
  expectUrl("pkgB/desc/urdf/r.urdf", "package://parts_pkg/t.stl", "/pkgB/parts_pkg/t.stl");
  // ROS_PACKAGE_PATH: D/*/PKG ...
  hst_writeFile("rpp/two/src/zpkg/m/t.stl", kTetraStl);
  snprintf(env, sizeof env, "%s/rpp/one:%s/rpp/two", dir, dir);
  setenv("ROS_PACKAGE_PATH", env, 1);
  expectUrl("elsewhere/r.urdf", "package://zpkg/m/t.stl", "/rpp/two/src/zpkg/m/t.stl");
  // ... an earlier entry wins, D/PKG before D/*/PKG ...
  hst_writeFile("rpp/one/zpkg/m/t.stl", kTetraStl);
  hst_writeFile("rpp/one/aaa/zpkg/m/t.stl", kTetraStl);
  expectUrl("elsewhere/r.urdf", "package://zpkg/m/t.stl", "/rpp/one/zpkg/m/t.stl");
  // ... and an entry that is the package itself
  hst_writeFile("rpp3/qpkg/t.stl", kTetraStl);
  snprintf(env, sizeof env, "%s/rpp3/qpkg/", dir);
  setenv("ROS_PACKAGE_PATH", env, 1);
  expectUrl("elsewhere/r.urdf", "package://qpkg/t.stl", "/rpp3/qpkg/t.stl");
  unsetenv("ROS_PACKAGE_PATH");
  // AMENT_PREFIX_PATH: D/share/PKG
  hst_writeFile("ament/install/share/apkg/t.stl", kTetraStl);
  snprintf(env, sizeof env, "/nonexistent:%s/ament/install", dir);
  setenv("AMENT_PREFIX_PATH", env, 1);
  expectUrl("elsewhere/r.urdf", "package://apkg/t.stl", "/ament/install/share/apkg/t.stl");
  unsetenv("AMENT_PREFIX_PATH");
  // relative paths and file:// URLs
  hst_writeFile("rel/meshes/t.stl", kTetraStl);
  expectUrl("rel/r.urdf", "meshes/t.stl", "/rel/meshes/t.stl");
  char url[1024];
  snprintf(url, sizeof url, "file://%s/rel/meshes/t.stl", dir);
  expectUrl("elsewhere/r.urdf", url, "/rel/meshes/t.stl");
  expectUrl("rel/r.urdf", "file://meshes/t.stl", "/rel/meshes/t.stl");
  // not found: an I/O error at the mesh's line, naming what was tried
  hsError err = {0};
  char got[8];
  CU_ASSERT_EQUAL(loadMeshUrl("pkgC/r.urdf", "package://nopkg/t.stl", got, sizeof got, &err),
                  -1);
  CU_ASSERT_EQUAL(err.code, hsE_IO);
  CU_ASSERT_EQUAL(err.line, lineOf("<mesh"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "mesh 'package://nopkg/t.stl' not found"));
  char tried[1400];
  snprintf(tried, sizeof tried, "%s/pkgC/nopkg/t.stl; %s/nopkg/t.stl", dir, dir);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, tried));
  // other schemes and malformed package URLs
  hsError err2 = {0};
  CU_ASSERT_EQUAL(loadMeshUrl("pkgC/r.urdf", "http://example.com/t.stl", got, sizeof got, &err2),
                  -1);
  CU_ASSERT_EQUAL(err2.code, hsE_UNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(err2.message, "unsupported URL scheme"));
  hsError err3 = {0};
  CU_ASSERT_EQUAL(loadMeshUrl("pkgC/r.urdf", "package://onlyname", got, sizeof got, &err3), -1);
  CU_ASSERT_EQUAL(err3.code, hsE_MODEL);
  CU_ASSERT_PTR_NOT_NULL(strstr(err3.message, "malformed package:// URL"));
  restoreEnv(&rpp);
  restoreEnv(&app);
}

// load the mesh robot at urdfName with mesh reference filename, which must load with exactly
// one warning (at the mesh's line, naming the reference) and one shape whose url ends in
// wantSuffix
static void expectNoPackageUrl(const char *urdfName, const char *filename,
                               const char *wantSuffix) {
  meshRobot(filename);
  const char *path = hst_writeFile(urdfName, g_text);
  hsmWarning warnings[2];
  int nwarn = 0;
  hsError err = {0};
  hsBody *b = hsm_loadUrdf(path, NULL, warnings, 2, &nwarn, &err);
  if (!b) {
    printError(&err);
  }
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL_FATAL(b->nshape, 1);
  const char *url = b->shapes[0].url;
  size_t n = strlen(url), m = strlen(wantSuffix);
  CU_ASSERT(url[0] == '/' && n >= m && strcmp(url + n - m, wantSuffix) == 0);
  CU_ASSERT_EQUAL_FATAL(nwarn, 1);
  CU_ASSERT_STRING_EQUAL(warnings[0].file, path);
  CU_ASSERT_EQUAL(warnings[0].line, lineOf("<mesh"));
  char want[2400];
  snprintf(want, sizeof want,
           "mesh '%s' has no package name; read as pinocchio does, the rest of the path under "
           "each package root: %s", filename, url);
  CU_ASSERT_STRING_EQUAL(warnings[0].message, want);
  hsm_freeBody(b);
}

static void testPackageWithoutName(void) {
  // package:///REST, as a widely used collection of robot descriptions writes its mesh URLs:
  // REST under each package root, with a warning
  SavedEnv rpp, app;
  saveEnv(&rpp, "ROS_PACKAGE_PATH");
  saveEnv(&app, "AMENT_PREFIX_PATH");
  unsetenv("ROS_PACKAGE_PATH");
  unsetenv("AMENT_PREFIX_PATH");
  hst_expectLog(1);
  char dir[600], env[1400];
  snprintf(dir, sizeof dir, "%s", hst_tmpDir());
  // without ROS: the collection checked out somewhere, found from the URDF's ancestors
  hst_writeFile("np/coll/robots/r1/meshes/base_link.STL", kTetraStl);
  expectNoPackageUrl("np/coll/robots/r1/urdf/r1.urdf",
                     "package:///coll/robots/r1/meshes/base_link.STL",
                     "/np/coll/robots/r1/meshes/base_link.STL");
  // ROS_PACKAGE_PATH: D/REST, the first entry that holds it (extra slashes ignored)
  hst_writeFile("nproots/b/coll/m/t.STL", kTetraStl);
  snprintf(env, sizeof env, "/nonexistent:%s/nproots/a/:%s/nproots/b", dir, dir);
  setenv("ROS_PACKAGE_PATH", env, 1);
  expectNoPackageUrl("npelse/r.urdf", "package:///coll/m/t.STL", "/nproots/b/coll/m/t.STL");
  hst_writeFile("nproots/a/coll/m/t.STL", kTetraStl);
  expectNoPackageUrl("npelse/r.urdf", "package:////coll/m/t.STL", "/nproots/a/coll/m/t.STL");
  unsetenv("ROS_PACKAGE_PATH");
  // AMENT_PREFIX_PATH: D/share/REST
  hst_writeFile("npament/share/coll/m/t.STL", kTetraStl);
  snprintf(env, sizeof env, "%s/npament", dir);
  setenv("AMENT_PREFIX_PATH", env, 1);
  expectNoPackageUrl("npelse/r.urdf", "package:///coll/m/t.STL", "/npament/share/coll/m/t.STL");
  unsetenv("AMENT_PREFIX_PATH");
  // nothing matches: the usual error at the mesh's line, naming every candidate tried
  snprintf(env, sizeof env, "%s/nproots/a", dir);
  setenv("ROS_PACKAGE_PATH", env, 1);
  hsError err = {0};
  char got[8];
  CU_ASSERT_EQUAL(loadMeshUrl("npelse/r.urdf", "package:///coll/none.STL", got, sizeof got,
                              &err), -1);
  CU_ASSERT_EQUAL(err.code, hsE_IO);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.file, "/npelse/r.urdf"));
  CU_ASSERT_EQUAL(err.line, lineOf("<mesh"));
  char want[2400];
  snprintf(want, sizeof want,
           "mesh 'package:///coll/none.STL' not found (tried %s/nproots/a/coll/none.STL; "
           "%s/npelse/coll/none.STL; %s/coll/none.STL", dir, dir, dir);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, want));
  if (!strstr(err.message, want)) {
    fprintf(stderr, "\n  got '%s'\n  wanted '%s...'\n", err.message, want);
  }
  unsetenv("ROS_PACKAGE_PATH");
  // no path at all: malformed
  hsError err2 = {0};
  CU_ASSERT_EQUAL(loadMeshUrl("npelse/r.urdf", "package:///", got, sizeof got, &err2), -1);
  CU_ASSERT_EQUAL(err2.code, hsE_MODEL);
  CU_ASSERT_EQUAL(err2.line, lineOf("<mesh"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err2.message, "malformed package:// URL"));
  restoreEnv(&rpp);
  restoreEnv(&app);
}

static void testMeshParts(void) {
  hst_writeFile("parts/meshes/two.mtl", "newmtl red\nKd 1 0 0\n\nnewmtl blue\nKd 0 0 1\n");
  hst_writeFile("parts/meshes/two.obj",
                "mtllib two.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 0 1 1\n"
                "usemtl red\nf 1 2 3\nusemtl blue\nf 4 5 6\n");
  hst_writeFile("parts/meshes/t.stl", kTetraStl);
  hsBody *b = loadOk(
      "parts/robot.urdf",
      "<robot name=\"parts\">\n"
      "  <material name=\"green\"><color rgba=\"0 1 0 1\"/></material>\n"
      "  <link name=\"base\">" INERTIAL "\n"
      "    <visual><origin xyz=\"0 0 1\"/><geometry><mesh filename=\"meshes/two.obj\"/>"
      "</geometry></visual>\n"
      "    <visual><geometry><mesh filename=\"meshes/two.obj\"/></geometry>"
      "<material name=\"green\"/></visual>\n"
      "    <visual><geometry><mesh filename=\"meshes/t.stl\" scale=\"2 3 4\"/></geometry>"
      "</visual>\n"
      "    <collision><geometry><mesh filename=\"meshes/two.obj\"/></geometry></collision>\n"
      "  </link>\n</robot>\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  const hsLink *base = &b->links[0];
  // two.obj: two parts per use; read again under the URDF material; the collision shares the
  // shapes of the first visual
  CU_ASSERT_EQUAL(b->nshape, 5);
  CU_ASSERT_EQUAL_FATAL(base->nshapeRef, 5);
  CU_ASSERT_EQUAL_FATAL(base->ncollisionRef, 2);
  CU_ASSERT_EQUAL(base->collisionRefs[0].shape, base->shapeRefs[0].shape);
  CU_ASSERT_EQUAL(base->collisionRefs[1].shape, base->shapeRefs[1].shape);
  CU_ASSERT_EQUAL(b->segments[base->segmentAdr].nshapeRef, 5);
  for (int i = 0; i < 5; i++) {
    CU_ASSERT_EQUAL(b->shapes[base->shapeRefs[i].shape].primitive, hsPRIM_MESH);
  }
  HST_NEAR(base->shapeRefs[1].T[11], 1, 0);  // every part at the visual's origin
  // each part keeps its own colour without a URDF material ...
  const hsAppearance *a0 = appearanceOf(b, &base->shapeRefs[0]);
  const hsAppearance *a1 = appearanceOf(b, &base->shapeRefs[1]);
  CU_ASSERT_FATAL(a0->material >= 0 && a1->material >= 0);
  HST_NEAR(b->materials[a0->material].diffuseColor[0], 1, 1e-6);
  HST_NEAR(b->materials[a1->material].diffuseColor[2], 1, 1e-6);
  // ... and takes the URDF's otherwise
  for (int i = 2; i < 4; i++) {
    const hsAppearance *a = appearanceOf(b, &base->shapeRefs[i]);
    CU_ASSERT_FATAL(a->material >= 0);
    HST_NEAR(b->materials[a->material].diffuseColor[1], 1, 0);
    HST_NEAR(b->materials[a->material].diffuseColor[0], 0, 0);
  }
  // the scaled tetrahedron spans 2 x 3 x 4
  const hsShape *t = &b->shapes[base->shapeRefs[4].shape];
  CU_ASSERT(strstr(t->url, "/parts/meshes/t.stl") != NULL);
  for (int k = 0; k < 3; k++) {
    double lo, hi;
    placedRange(b, &base->shapeRefs[4], k, &lo, &hi);
    HST_NEAR(lo, 0, 1e-6);
    HST_NEAR(hi, 2 + k, 1e-6);
  }
  hsm_freeBody(b);
}

//---------------------------------- info strings and warnings ---------------------------------

static void testMimicAndDynamicsInfo(void) {
  hsBody *b = loadOk(
      "mimic.urdf",
      "<robot name=\"mim\">\n" LINK("base") LINK("a") LINK("b") LINK("c")
      "  <joint name=\"j1\" type=\"revolute\"><parent link=\"base\"/><child link=\"a\"/>" LIMIT
      "<dynamics damping=\"0.1\" friction=\"2\"/></joint>\n"
      "  <joint name=\"j2\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/>" LIMIT
      "<mimic joint=\"j1\" multiplier=\"-0.5\" offset=\"0.25\"/></joint>\n"
      "  <joint name=\"j3\" type=\"prismatic\"><parent link=\"b\"/><child link=\"c\"/>" LIMIT
      "<mimic joint=\"j1\"/><dynamics damping=\"3\"/></joint>\n"
      "</robot>\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  const char *want[4] = {"urdf dynamics j1 0.10000000000000001 2", "urdf mimic j2 j1 -0.5 0.25",
                         "urdf dynamics j3 3 0", "urdf mimic j3 j1 1 0"};
  CU_ASSERT_EQUAL_FATAL(b->ninfo, 4);
  for (int i = 0; i < 4; i++) {
    CU_ASSERT_STRING_EQUAL(b->info[i], want[i]);
  }
  hsm_freeBody(b);
}

static void testWarnings(void) {
  hst_expectLog(1);
  hsmWarning warnings[4];
  int nwarn = 0;
  snprintf(g_text, sizeof g_text,
           "<robot name=\"w\">\n" LINK("base")
           "  <link name=\"hollow\"/>\n"
           "  <joint name=\"j\" type=\"revolute\"><parent link=\"base\"/>"
           "<child link=\"hollow\"/></joint>\n"
           "</robot>\n");
  const char *path = hst_writeFile("warn.urdf", g_text);
  hsError err = {0};
  hsBody *b = hsm_loadUrdf(path, NULL, warnings, 4, &nwarn, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL_FATAL(nwarn, 2);
  CU_ASSERT_STRING_EQUAL(warnings[0].message, "joint 'j' (revolute) has no <limit>: no position, "
                         "velocity or effort limits");
  CU_ASSERT_EQUAL(warnings[0].line, lineOf("<joint"));
  CU_ASSERT_STRING_EQUAL(warnings[1].message, "link 'hollow' has no inertial: massless");
  CU_ASSERT_EQUAL(warnings[1].line, lineOf("\"hollow\"/>"));
  CU_ASSERT_PTR_NOT_NULL(strstr(warnings[1].file, "warn.urdf"));
  CU_ASSERT_EQUAL(hst_logCount(), 2);
  // the massless link: one segment named after it, no mass, no limits
  const hsLink *j = &b->links[1];
  CU_ASSERT_EQUAL(j->nsegment, 1);
  CU_ASSERT_STRING_EQUAL(b->segments[j->segmentAdr].name, "hollow");
  HST_NEAR(j->mass, 0, 0);
  HST_NEAR(b->segments[j->segmentAdr].T[0], 1, 0);
  CU_ASSERT_EQUAL(j->ulimit.n + j->llimit.n + j->uvlimit.n + j->climit.n, 0);
  hsm_freeBody(b);
  // fewer slots than warnings: the count is still the total
  nwarn = 0;
  path = hst_writeFile("warn.urdf", g_text);
  b = hsm_loadUrdf(path, NULL, warnings, 1, &nwarn, &err);
  CU_ASSERT_EQUAL(nwarn, 2);
  hsm_freeBody(b);
}

//---------------------------------- errors ----------------------------------------------------

// load text expected to fail with code at the line holding the last occurrence of `needle`,
// with `what` in the message
static void expectError(const char *text, const char *needle, int code, const char *what) {
  hsError err = {0};
  hsBody *b = loadUrdf("bad.urdf", text, &err);
  CU_ASSERT_PTR_NULL(b);
  hsm_freeBody(b);
  int line = -1;
  for (const char *p = strstr(g_text, needle); p; p = strstr(p + 1, needle)) {
    line = 1;
    for (const char *c = g_text; c < p; c++) {
      line += *c == '\n';
    }
  }
  int ok = err.line == line && err.code == code && strstr(err.message, what) &&
           strstr(err.file, "bad.urdf");
  CU_ASSERT(ok);
  if (!ok) {
    fprintf(stderr, "\n  got %s:%d: [%d] %s (wanted line %d, code %d, '%s')\n", err.file,
            err.line, err.code, err.message, line, code, what);
  }
}

static void testValidationErrors(void) {
  const char *two = LINK("base") LINK("a");
  char t[4096];
#define CASE(body) (snprintf(t, sizeof t, "<robot name=\"bad\">\n%s%s</robot>\n", two, body), t)
  expectError(CASE("  <joint name=\"j\" type=\"fixed\">\n  <child link=\"a\"/></joint>\n"),
              "<joint", hsE_MODEL, "joint 'j' has no <parent>");
  expectError(CASE("  <joint name=\"j\" type=\"fixed\">\n  <parent/><child link=\"a\"/></joint>\n"),
              "<parent/>", hsE_MODEL, "<parent> of joint 'j' needs a non-empty 'link'");
  expectError(CASE("  <joint name=\"j\" type=\"fixed\"><parent link=\"a\"/><child link=\"a\"/>"
                   "</joint>\n"),
              "<joint", hsE_MODEL, "connects link 'a' to itself");
  expectError(CASE("  <link name=\"b\"><inertial><mass value=\"-2\"/></inertial></link>\n"),
              "-2", hsE_MODEL, "mass -2 is negative");
  expectError(CASE("  <link name=\"b\"><inertial><mass value=\"1\"/>\n"
                   "    <inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\"/></inertial>"
                   "</link>\n"),
              "<inertia ", hsE_MODEL, "<inertia> needs attribute 'izz'");
  expectError(CASE("  <link name=\"b\"><inertial><mass value=\"nan\"/></inertial></link>\n"),
              "nan", hsE_MODEL, "value=\"nan\": expected 1 finite number");
  expectError(CASE("  <joint name=\"j\" type=\"revolute\"><parent link=\"base\"/>"
                   "<child link=\"a\"/>\n    <limit lower=\"1\" upper=\"-1\"/></joint>\n"),
              "<limit", hsE_MODEL, "limit lower 1 is above upper -1");
  expectError(CASE("  <joint name=\"j\" type=\"continuous\"><parent link=\"base\"/>"
                   "<child link=\"a\"/>\n    <limit velocity=\"-1\"/></joint>\n"),
              "<limit", hsE_MODEL, "limit velocity -1 is negative");
  expectError(CASE("  <joint name=\"j\" type=\"continuous\"><parent link=\"base\"/>"
                   "<child link=\"a\"/>\n    <mimic joint=\"j\"/></joint>\n"),
              "<mimic", hsE_MODEL, "joint 'j' mimics itself");
  expectError(CASE(LINK("b") "  <joint name=\"f\" type=\"fixed\"><parent link=\"base\"/>"
                   "<child link=\"b\"/></joint>\n"
                   "  <joint name=\"j\" type=\"continuous\"><parent link=\"base\"/>"
                   "<child link=\"a\"/>\n    <mimic joint=\"f\"/></joint>\n"),
              "<mimic", hsE_MODEL, "mimics joint 'f', which does not move");
  expectError(CASE("  <joint name=\"base\" type=\"fixed\"><parent link=\"base\"/>"
                   "<child link=\"a\"/></joint>\n"),
              "<joint", hsE_MODEL, "joint 'base' has the name of the root link");
  expectError(CASE("  <link name=\"b\"><visual><origin xyz=\"0 0 0\"/></visual></link>\n"),
              "<visual>", hsE_MODEL, "link 'b': <visual> has no <geometry>");
  expectError(CASE("  <link name=\"b\"><collision>\n<geometry/></collision></link>\n"),
              "<geometry/>", hsE_MODEL, "<geometry> is empty");
  expectError(CASE("  <link name=\"b\"><collision><geometry>\n"
                   "<sphere radius=\"0\"/></geometry></collision></link>\n"),
              "<sphere", hsE_MODEL, "<sphere> radius=0 must be positive");
  expectError(CASE("  <link name=\"b\"><collision><geometry>\n"
                   "<cylinder radius=\"1\"/></geometry></collision></link>\n"),
              "<cylinder", hsE_MODEL, "<cylinder> needs attribute 'length'");
  expectError(CASE("  <material name=\"m\"><color rgba=\"1 1 1 1\"/></material>\n"
                   "  <material name=\"m\"><color rgba=\"1 1 1 1\"/></material>\n"),
              "<material", hsE_MODEL, "material 'm' is defined twice (first on line 4)");
  expectError(CASE("  <link name=\"b\"><visual><geometry>\n"
                   "    <mesh filename=\"\"/></geometry></visual></link>\n"),
              "<mesh", hsE_MODEL, "<mesh> needs a non-empty 'filename' attribute");
  expectError(CASE("  <link name=\"b\"><visual><geometry>\n"
                   "    <mesh filename=\"m.stl\" scale=\"2\"/></geometry></visual></link>\n"),
              "<mesh", hsE_MODEL, "scale=\"2\": expected 3 finite numbers");
  expectError(CASE("  <joint name=\"j\" type=\"revolute\"><parent link=\"base\"/>"
                   "<child link=\"a\"/>\n    <axis xyz=\"1 0 1e999\"/></joint>\n"),
              "<axis", hsE_MODEL, "xyz=\"1 0 1e999\": expected 3 finite numbers");
  expectError(CASE("  <joint name=\"j\" type=\"\"><parent link=\"base\"/><child link=\"a\"/>"
                   "</joint>\n"),
              "<joint", hsE_MODEL, "joint 'j' needs a non-empty 'type'");
  // finite numbers that overflow what is served: float shapes, turned inertias
  expectError(CASE("  <link name=\"b\"><collision><geometry>\n"
                   "<box size=\"1e39 1 1\"/></geometry></collision></link>\n"),
              "<box", hsE_MODEL, "<box> size=1e+39 is beyond the range of float");
  expectError(CASE("  <link name=\"b\"><visual><geometry>\n"
                   "<sphere radius=\"1.7e308\"/></geometry></visual></link>\n"),
              "<sphere", hsE_MODEL, "<sphere> radius=1.7e+308 is beyond the range of float");
  hst_expectLog(1);  // the tensor is also singular: a warning before the error
  expectError(CASE("  <link name=\"b\">\n    <inertial><origin rpy=\"0.5 0.5 0.5\"/>"
                   "<mass value=\"1\"/><inertia ixx=\"1.7e308\" ixy=\"1.7e308\" ixz=\"1.7e308\" "
                   "iyy=\"1.7e308\" iyz=\"1.7e308\" izz=\"1.7e308\"/></inertial></link>\n"
                   "  <joint name=\"j1\" type=\"fixed\"><parent link=\"base\"/>"
                   "<child link=\"a\"/></joint>\n"
                   "  <joint name=\"j2\" type=\"fixed\"><parent link=\"base\"/>"
                   "<child link=\"b\"/></joint>\n"),
              "<inertial>", hsE_MODEL, "(segment 'b'): its mass properties overflow");
#undef CASE
  // a robot without links; every link in a cycle; text after the root element
  expectError("<robot name=\"empty\">\n</robot>\n", "<robot", hsE_MODEL,
              "robot 'empty' has no <link>");
  expectError("<robot name=\"loop\">\n" LINK("a") LINK("b")
              "  <joint name=\"j1\" type=\"fixed\"><parent link=\"a\"/><child link=\"b\"/>"
              "</joint>\n"
              "  <joint name=\"j2\" type=\"fixed\"><parent link=\"b\"/><child link=\"a\"/>"
              "</joint>\n</robot>\n",
              "name=\"j2\"", hsE_MODEL, "the joints form a cycle: link 'a' <- 'b' <- 'a'");
  expectError("<robot name=\"x\">\n" LINK("a") "</robot>\ntrailing text\n", "trailing",
              hsE_SYNTAX, "not well-formed XML: Extra content at the end of the document");
}

static void testMissingFile(void) {
  hsError err = {0};
  char path[1024];
  snprintf(path, sizeof path, "%s/no/such.urdf", hst_tmpDir());
  CU_ASSERT_PTR_NULL(hsm_loadUrdf(path, NULL, NULL, 0, NULL, &err));
  CU_ASSERT_EQUAL(err.code, hsE_IO);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "no/such.urdf"));
  hsError err2 = {0};
  CU_ASSERT_PTR_NULL(hsm_loadUrdf(NULL, NULL, NULL, 0, NULL, &err2));
  CU_ASSERT_EQUAL(err2.code, hsE_INVALID);
  // a file:// URL names the file too; a NULL err is allowed
  const char *written = hst_writeFile("url.urdf", "<robot name=\"u\">\n" LINK("base") "</robot>\n");
  snprintf(path, sizeof path, "file://%s", written);
  hsBody *b = hsm_loadUrdf(path, NULL, NULL, 0, NULL, NULL);
  CU_ASSERT_PTR_NOT_NULL(b);
  hsm_freeBody(b);
  snprintf(path, sizeof path, "%s/url.urdf.missing", hst_tmpDir());
  CU_ASSERT_PTR_NULL(hsm_loadUrdf(path, NULL, NULL, 0, NULL, NULL));
}

// the value after `key` in text (up to the end of its line, or " -->") into out
static int fixtureValue(const char *text, const char *key, char *out, size_t size) {
  const char *p = strstr(text, key);
  if (!p) {
    return -1;
  }
  p += strlen(key);
  size_t n = strcspn(p, "\n");
  const char *end = strstr(p, " -->");
  if (end && (size_t)(end - p) < n) {
    n = (size_t)(end - p);
  }
  snprintf(out, size, "%.*s", (int)n, p);
  return 0;
}

// every file of tests/data/urdf/bad fails as its header comment says
static void testBadFixtures(void) {
  static const struct {
    const char *name;
    int code;
  } kCodes[] = {{"MODEL", hsE_MODEL}, {"SYNTAX", hsE_SYNTAX}, {"IO", hsE_IO}};
  const char *dirPath = HST_DATA_DIR "/urdf/bad";
  DIR *dir = opendir(dirPath);
  CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
  int nfiles = 0;
  struct dirent *e;
  while ((e = readdir(dir)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 5, ".urdf") != 0) {
      continue;
    }
    char path[1024], text[8192], line[32], code[32], message[256];
    snprintf(path, sizeof path, "%s/%s", dirPath, e->d_name);
    FILE *f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    int ok = fixtureValue(text, "expect-line: ", line, sizeof line) == 0 &&
             fixtureValue(text, "expect-code: ", code, sizeof code) == 0 &&
             fixtureValue(text, "expect-message: ", message, sizeof message) == 0;
    CU_ASSERT(ok);
    int wantCode = 0;
    for (size_t k = 0; k < sizeof kCodes / sizeof kCodes[0]; k++) {
      if (strcmp(code, kCodes[k].name) == 0) {
        wantCode = kCodes[k].code;
      }
    }
    hsError err = {0};
    hsBody *b = hsm_loadUrdf(path, NULL, NULL, 0, NULL, &err);
    hsm_freeBody(b);
    int pass = ok && !b && err.line == atoi(line) && err.code == wantCode &&
               strstr(err.message, message) && strstr(err.file, e->d_name);
    CU_ASSERT(pass);
    if (!pass) {
      fprintf(stderr, "\n  %s: got line %d [%d] %s (wanted line %s, %s, '%s')\n", e->d_name,
              err.line, err.code, err.message, line, code, message);
    }
    nfiles++;
  }
  closedir(dir);
  CU_ASSERT(nfiles >= 26);
}

//---------------------------------- what real robots contain ---------------------------------

// load a fixture of tests/data/urdf/quirks, which must succeed with exactly the warnings its
// header lists ("expect-warning: LINE TEXT", in any order); the body or NULL
static hsBody *loadQuirk(const char *name, hsmWarning *warnings, int max, int *nwarn) {
  char path[1024], text[16384];
  snprintf(path, sizeof path, "%s/urdf/quirks/%s", HST_DATA_DIR, name);
  FILE *f = fopen(path, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = 0;
  hst_expectLog(1);
  hsError err = {0};
  *nwarn = 0;
  hsBody *b = hsm_loadUrdf(path, NULL, warnings, max, nwarn, &err);
  if (!b) {
    printError(&err);
  }
  CU_ASSERT_PTR_NOT_NULL(b);
  CU_ASSERT_EQUAL(hst_logCount(), *nwarn);
  int nexpect = 0, matched = 0;
  for (const char *p = strstr(text, "expect-warning: "); p; p = strstr(p + 1, "expect-warning: ")) {
    char what[256];
    int line = 0, len = 0;
    CU_ASSERT_FATAL(sscanf(p, "expect-warning: %d %n", &line, &len) == 1);
    size_t m = strcspn(p + len, "\n");
    const char *end = strstr(p + len, " -->");
    if (end && (size_t)(end - (p + len)) < m) {
      m = (size_t)(end - (p + len));
    }
    snprintf(what, sizeof what, "%.*s", (int)m, p + len);
    nexpect++;
    int found = 0;
    for (int i = 0; i < *nwarn && i < max; i++) {
      found |= warnings[i].line == line && strstr(warnings[i].message, what) != NULL &&
               strstr(warnings[i].file, name) != NULL;
    }
    matched += found;
    if (!found) {
      fprintf(stderr, "\n  %s: no warning at line %d with '%s'\n", name, line, what);
    }
  }
  CU_ASSERT(nexpect > 0);
  CU_ASSERT_EQUAL(matched, nexpect);
  CU_ASSERT_EQUAL(*nwarn, nexpect);
  // every warning is also a body info string, as VRML's are: "warning: <file>:<line>: <msg>"
  for (int i = 0; b && i < *nwarn && i < max; i++) {
    // (the expected string: "warning: ", the file, the line, the message)
    char want[sizeof warnings->file + sizeof warnings->message + 32];
    int len = snprintf(want, sizeof want, "warning: %s:%d: %s", warnings[i].file,
                       warnings[i].line, warnings[i].message);
    CU_ASSERT(len > 0 && (size_t)len < sizeof want);
    int found = 0;
    for (int k = 0; k < b->ninfo; k++) {
      found |= strcmp(b->info[k], want) == 0;
    }
    CU_ASSERT(found);
    if (!found) {
      fprintf(stderr, "\n  %s: no info string '%s'\n", name, want);
    }
    CU_ASSERT_EQUAL(hsm_warningLine(b, "no such link"), 0);
  }
  if (*nwarn != nexpect) {
    for (int i = 0; i < *nwarn && i < max; i++) {
      fprintf(stderr, "\n  %s:%d: %s", name, warnings[i].line, warnings[i].message);
    }
  }
  return b;
}

// frame links: massless links on fixed joints and a massless moving tip load as written
static void testFrameLinks(void) {
  hsmWarning w[8];
  int nwarn;
  hsBody *b = loadQuirk("frame_links.urdf", w, 8, &nwarn);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  // the dynamics find the line of a link's load warning through its name
  CU_ASSERT_EQUAL(hsm_warningLine(b, "tip"), 70);
  CU_ASSERT_EQUAL(hsm_warningLine(b, "ee_frame"), 40);
  CU_ASSERT_EQUAL(hsm_warningLine(b, "upper"), 0);
  // base, shoulder (upper), ee_fixed, tool_fixed, swing (tip), camera_optical
  CU_ASSERT_EQUAL_FATAL(b->nlink, 6);
  const char *names[6] = {"base", "shoulder", "ee_fixed", "tool_fixed", "swing",
                          "camera_optical"};
  const double mass[6] = {4, 2, 0, 0, 0, 0};
  const hstJoint types[6] = {hsJOINT_FREE, hsJOINT_ROTATE, hsJOINT_FIXED, hsJOINT_FIXED,
                             hsJOINT_ROTATE, hsJOINT_FIXED};
  for (int i = 0; i < 6; i++) {
    CU_ASSERT_STRING_EQUAL(b->links[i].name, names[i]);
    CU_ASSERT_EQUAL(b->links[i].jointType, types[i]);
    HST_NEAR(b->links[i].mass, mass[i], 0);
    CU_ASSERT_EQUAL(b->links[i].nsegment, 1);
  }
  // what the dynamics needs to merge or bound them: zero mass and an all-zero tensor, exact
  for (int i = 2; i < 6; i++) {
    for (int k = 0; k < 9; k++) {
      HST_NEAR(b->links[i].inertia[k], 0, 0);
    }
    for (int k = 0; k < 3; k++) {
      CU_ASSERT(isfinite(b->links[i].com[k]));
    }
  }
  // the frames keep their names (joint and URDF link) and placement for the wire
  CU_ASSERT_EQUAL(hsm_linkIndex(b, "ee_frame"), 2);
  CU_ASSERT_EQUAL(hsm_linkIndex(b, "optical_frame"), 5);
  HST_NEAR(b->links[2].translation[2], 0.5, 0);
  HST_NEAR(b->links[3].translation[2], 0.02, 0);
  CU_ASSERT_EQUAL(b->links[2].parent, 1);
  CU_ASSERT_EQUAL(b->links[3].parent, 2);
  // the massless tip still moves and keeps its shape
  CU_ASSERT_EQUAL(b->links[4].jointId, 1);
  CU_ASSERT_EQUAL(b->links[4].nshapeRef, 1);
  CU_ASSERT_EQUAL(b->njoint, 2);
  // the real links are untouched: upper's centre of mass 0.25 up its axis
  HST_NEAR(b->links[1].com[2], 0.25, 1e-15);
  HST_NEAR(b->links[1].inertia[8], 0.002, 1e-18);
  hsm_freeBody(b);
}

// singular and indefinite tensors load unchanged
static void testSingularInertia(void) {
  hsmWarning w[4];
  int nwarn;
  hsBody *b = loadQuirk("singular_inertia.urdf", w, 4, &nwarn);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL_FATAL(b->nlink, 2);
  HST_NEAR(b->links[0].mass, 1.5, 0);
  for (int k = 0; k < 9; k++) {
    HST_NEAR(b->links[0].inertia[k], 1e-6, 0);
  }
  const double want[9] = {0.01, -0.02, 0, -0.02, 0.01, 0, 0, 0, 0.01};
  HST_NEAR(b->links[1].mass, 0.5, 0);
  for (int k = 0; k < 9; k++) {
    HST_NEAR(b->links[1].inertia[k], want[k], 0);
  }
  hsm_freeBody(b);
}

// the material of visual i of link l: its diffuse colour in rgb[3] and transparency; 0 if it
// has a material, -1 for the default appearance
static int visualColor(const hsBody *b, int l, int i, float rgba[4]) {
  CU_ASSERT_FATAL(i < b->links[l].nshapeRef);
  const hsAppearance *a = appearanceOf(b, &b->links[l].shapeRefs[i]);
  if (a->material < 0) {
    return -1;
  }
  const hsMaterial *m = &b->materials[a->material];
  memcpy(rgba, m->diffuseColor, 3 * sizeof(float));
  rgba[3] = 1 - m->transparency;
  return 0;
}

// named materials: one meaning per name, found before or after its use
static void testMaterialOrder(void) {
  hsmWarning w[8];
  int nwarn;
  hsBody *b = loadQuirk("material_order.urdf", w, 8, &nwarn);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL_FATAL(b->nlink, 3);
  CU_ASSERT_STRING_EQUAL(b->links[1].name, "right");
  CU_ASSERT_STRING_EQUAL(b->links[2].name, "left");
  static const struct {
    int link, visual;
    float rgba[4];  // a negative red: the default appearance
  } kWant[] = {
      {0, 0, {0.8f, 0.8f, 0.8f, 1}},  // shell, defined here
      {0, 1, {0.8f, 0.8f, 0.8f, 1}},  // shell, named by the next visual of the link
      {1, 0, {0.2f, 0.6f, 0.2f, 1}},  // leg, used before the left leg defines it
      {1, 1, {0.8f, 0.8f, 0.8f, 1}},  // shell, from another link
      {2, 0, {0.2f, 0.6f, 0.2f, 1}},  // leg, its definition
      {2, 1, {0.2f, 0.6f, 0.2f, 1}},  // leg redefined red: the first definition wins
      {2, 2, {0.1f, 0.2f, 0.3f, 0.5f}},  // anonymous
      {2, 3, {-1, 0, 0, 0}},             // gold: defined nowhere
      {2, 4, {0, 0, 1, 1}},              // trim: robot level, written after the links
  };
  for (size_t i = 0; i < sizeof kWant / sizeof kWant[0]; i++) {
    float rgba[4] = {0};
    int rc = visualColor(b, kWant[i].link, kWant[i].visual, rgba);
    if (kWant[i].rgba[0] < 0) {
      CU_ASSERT_EQUAL(rc, -1);
      continue;
    }
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    for (int k = 0; k < 4; k++) {
      HST_NEAR(rgba[k], kWant[i].rgba[k], 1e-7);
    }
  }
  // one hsMaterial per material used: shell, leg, the anonymous one, trim
  CU_ASSERT_EQUAL(b->nmaterial, 4);
  hsm_freeBody(b);
}

// what urdfdom accepts with a message loads here with a warning: empty materials, colours
// outside [0, 1], a positive mass with a zero tensor
static void testAcceptedWithWarning(void) {
  static const struct {
    const char *body;
    const char *needle;  // on the line warned about
    const char *what;
  } kCases[] = {
      {"  <link name=\"b\">" INERTIAL "<visual><geometry><box size=\"1 1 1\"/></geometry>\n"
       "    <material/></visual></link>\n",
       "<material/>", "<material> has no name, <color> or <texture filename>: the default "
       "appearance is used"},
      {"  <material name=\"m\">\n  </material>\n"
       "  <link name=\"b\">" INERTIAL "<visual><geometry><box size=\"1 1 1\"/></geometry>"
       "<material name=\"m\"/></visual></link>\n",
       "<material name=\"m\">", "material 'm' has neither a <color> nor a <texture filename>: "
       "shapes using it get the default appearance"},
      {"  <material name=\"m\"><color rgba=\"1 1 2 1\"/></material>\n", "<color",
       "<color> rgba component 2 is outside [0, 1]: clamped"},
      {"  <link name=\"b\"><inertial><mass value=\"1\"/>\n"
       "    <inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"0\"/></inertial>"
       "</link>\n",
       "izz=\"0\"", "link 'b': inertia (ixx 1 ixy 0 ixz 0 iyy 1 iyz 0 izz 0) is not positive "
       "definite: loaded as written"},
      {"  <link name=\"b\"><inertial><mass value=\"-0\"/>\n"
       "    <inertia ixx=\"0\" ixy=\"0\" ixz=\"0\" iyy=\"0\" iyz=\"0\" izz=\"0\"/></inertial>"
       "</link>\n",
       "\"-0\"", "link 'b' has mass 0 (a frame or sensor link): loaded massless"},
  };
  for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; i++) {
    char t[4096];
    snprintf(t, sizeof t, "<robot name=\"w\">\n" LINK("base") "%s"
             "  <joint name=\"j\" type=\"fixed\"><parent link=\"base\"/><child link=\"b\"/>"
             "</joint>\n</robot>\n", kCases[i].body);
    if (!strstr(t, "name=\"b\"")) {
      snprintf(t, sizeof t, "<robot name=\"w\">\n" LINK("base") "%s</robot>\n", kCases[i].body);
    }
    hst_expectLog(1);
    hsmWarning w[4];
    int nwarn = 0;
    hsError err = {0};
    snprintf(g_text, sizeof g_text, "%s", t);
    hsBody *b = hsm_loadUrdf(hst_writeFile("warn.urdf", t), NULL, w, 4, &nwarn, &err);
    CU_ASSERT_PTR_NOT_NULL(b);
    if (!b) {
      printError(&err);
    }
    CU_ASSERT_EQUAL(nwarn, 1);
    int ok = nwarn >= 1 && strcmp(w[0].message, kCases[i].what) == 0 &&
             w[0].line == lineOf(kCases[i].needle);
    CU_ASSERT(ok);
    if (!ok && nwarn >= 1) {
      fprintf(stderr, "\n  case %zu: got line %d '%s'\n", i, w[0].line, w[0].message);
    }
    hsm_freeBody(b);
  }
}

//---------------------------------- XML details, dispatch, memory -----------------------------

static void testXmlDetails(void) {
  // internal entities expand; external ones are never read; prefixed and foreign elements are
  // skipped; a default namespace is fine
  hsBody *b = loadOk(
      "entities.urdf",
      "<?xml version=\"1.0\"?>\n"
      "<!DOCTYPE robot [\n"
      "  <!ENTITY base \"torso\">\n"
      "  <!ENTITY secret SYSTEM \"/etc/hostname\">\n"
      "]>\n"
      "<robot name=\"&base;_bot\" xmlns=\"http://example.com/urdf\" "
      "xmlns:xacro=\"http://www.ros.org/wiki/xacro\">\n"
      "  <xacro:property name=\"x\" value=\"1\"/>\n"
      "  <gazebo reference=\"torso\"><material>Gazebo/Red</material></gazebo>\n"
      "  <link name=\"&base;\">" INERTIAL "<!-- &secret; -->&secret;</link>\n"
      "  <transmission name=\"t\"/>\n"
      "</robot>\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_STRING_EQUAL(b->name, "torso_bot");
  CU_ASSERT_EQUAL(b->nlink, 1);
  CU_ASSERT_STRING_EQUAL(b->links[0].name, "torso");
  hsm_freeBody(b);
  // an XML error names libxml2's reason and line
  expectError("<robot name=\"x\">\n  <link name=\"a\">\n  </joint>\n</robot>\n", "</joint>",
              hsE_SYNTAX, "Opening and ending tag mismatch");
}

static void testLoadModelDispatch(void) {
  const char *path = hst_writeFile("dispatch/robot.xml", "<robot name=\"xmlbot\">\n" LINK("base")
                                   "</robot>\n");
  hsError err = {0};
  hsBody *b = hsm_loadModel(path, NULL, NULL, 0, NULL, &err);
  if (!b) {
    printError(&err);
  }
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_STRING_EQUAL(b->name, "xmlbot");
  CU_ASSERT_STRING_EQUAL(b->links[0].jointTypeName, "free");
  hsm_freeBody(b);
}

static void testAllocationFailureIsClean(void) {
  // every allocation a load makes (tree, shapes, a mesh file, materials, a texture, info
  // strings) fails in turn; each must give hsE_NOMEM, never a crash, a leak or another error
  hst_writeFile("oom/meshes/t.stl", kTetraStl);
  hst_writeFile("oom/skin.png", "x");
  snprintf(g_text, sizeof g_text,
           "<robot name=\"oom\">\n"
           "  <material name=\"red\"><color rgba=\"1 0 0 1\"/></material>\n"
           "  <material name=\"skin\"><color rgba=\"1 1 1 1\"/><texture filename=\"skin.png\"/>"
           "</material>\n"
           "  <link name=\"world\"/>\n"
           "  <joint name=\"anchor\" type=\"fixed\"><parent link=\"world\"/>"
           "<child link=\"base\"/></joint>\n"
           "  <link name=\"base\">" INERTIAL "\n"
           "    <visual><geometry><mesh filename=\"meshes/t.stl\"/></geometry>"
           "<material name=\"red\"/></visual>\n"
           "    <visual><geometry><cylinder radius=\"1\" length=\"1\"/></geometry>"
           "<material name=\"skin\"/></visual>\n"
           "    <collision><geometry><mesh filename=\"meshes/t.stl\"/></geometry></collision>\n"
           "  </link>\n" LINK("arm") LINK("hand")
           "  <joint name=\"j1\" type=\"revolute\"><parent link=\"base\"/><child link=\"arm\"/>"
           LIMIT "<dynamics damping=\"1\"/></joint>\n"
           "  <joint name=\"j2\" type=\"revolute\"><parent link=\"arm\"/><child link=\"hand\"/>"
           LIMIT "<mimic joint=\"j1\"/></joint>\n"
           "</robot>\n");
  const char *path = hst_writeFile("oom/robot.urdf", g_text);
  char saved[1024];
  snprintf(saved, sizeof saved, "%s", path);
  int loaded = 0;
  long n;
  for (n = 1; n < 20000 && !loaded; n++) {
    hsError err = {0};
    hsu_failAllocAfter(n);
    hsBody *b = hsm_loadUrdf(saved, NULL, NULL, 0, NULL, &err);
    hsu_failAllocAfter(0);
    CU_ASSERT(b != NULL || err.code == hsE_NOMEM);
    if (!b && err.code != hsE_NOMEM) {
      fprintf(stderr, "\n  allocation %ld failing: ", n);
      printError(&err);
    }
    if (b) {
      // the first n that loads fails no allocation: every one before it was tried
      loaded = 1;
      CU_ASSERT_EQUAL(b->nlink, 3);
      CU_ASSERT_EQUAL(b->ninfo, 2);
    }
    hsm_freeBody(b);
  }
  CU_ASSERT(loaded);
  CU_ASSERT(n > 50);
}

void register_urdf(void) {
  CU_pSuite s = hst_addSuite("urdf");
  CU_add_test(s, "two-link arm: names, rpy frame, axis, limits", testTwoLinkArm);
  CU_add_test(s, "inertial frame turns the inertia", testInertialFrame);
  CU_add_test(s, "fixed base through world", testFixedBaseThroughWorld);
  CU_add_test(s, "floating base through world", testFloatingBaseThroughWorld);
  CU_add_test(s, "bare world kept, world with mass ordinary", testWorldKeptOrOrdinary);
  CU_add_test(s, "joint types, jointIds in file order, depth-first links", testTypesIdsAndOrder);
  CU_add_test(s, "limit defaults", testLimitDefaults);
  CU_add_test(s, "visual and collision shapes, cylinder turned", testVisualAndCollision);
  CU_add_test(s, "materials and textures", testMaterials);
  CU_add_test(s, "missing texture is a warning", testMissingTextureWarns);
  CU_add_test(s, "texture images and mesh part textures", testTextureImages);
  CU_add_test(s, "package://, relative and file:// lookup", testPackageLookup);
  CU_add_test(s, "package:/// (no package name) under each root", testPackageWithoutName);
  CU_add_test(s, "mesh parts, their materials, shared collision", testMeshParts);
  CU_add_test(s, "mimic and dynamics info strings", testMimicAndDynamicsInfo);
  CU_add_test(s, "warnings with lines", testWarnings);
  CU_add_test(s, "validation errors with lines", testValidationErrors);
  CU_add_test(s, "missing file and file:// path", testMissingFile);
  CU_add_test(s, "broken files in tests/data/urdf/bad", testBadFixtures);
  CU_add_test(s, "frame links: mass 0, no inertial, moving massless tip", testFrameLinks);
  CU_add_test(s, "singular and indefinite inertia load as written", testSingularInertia);
  CU_add_test(s, "material names: forward use, reuse, redefinition", testMaterialOrder);
  CU_add_test(s, "accepted with a warning", testAcceptedWithWarning);
  CU_add_test(s, "entities, namespaces, foreign elements", testXmlDetails);
  CU_add_test(s, "hsm_loadModel dispatch by .xml", testLoadModelDispatch);
  CU_add_test(s, "allocation failure", testAllocationFailureIsClean);
}
