// test_mjcf.c - hsm_loadMjcf (model/mjcf/): MuJoCo's compiler rules against closed forms.
//
// Mass and inertia of capsules and cylinders from density (the capsule's hemispheres derived
// here independently: centre 3r/8 from the flat face, 83/320 m r^2 about it), fromto frames,
// euler sequences and angle units, default-class inheritance (nested classes, childclass,
// class), a body with several joints as a chain of links (anchors, axes, ref), a mesh's mass
// by volume, the scene rules (one body, #NAME, #world, several refused), includes, sensors and
// actuator limits, the sample quadruped, and errors at file:line:column.

#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model.h"
#include "test_support.h"

static hsBody *loadText(const char *name, const char *xml, hsError *err) {
  const char *path = hst_writeFile(name, xml);
  return hsm_loadModel(path, NULL, NULL, 0, NULL, err);
}

static hsBody *loadOk(const char *xml) {
  hsError err = {0};
  hsBody *b = loadText("m.xml", xml, &err);
  if (!b) {
    fprintf(stderr, "\nload failed: %s:%d:%d: %s\n", err.file, err.line, err.column,
            err.message);
  }
  return b;
}

// R = rotation about unit axis k (0 x, 1 y, 2 z) by a
static void axisMat(double R[9], int k, double a) {
  double aa[4] = {k == 0, k == 1, k == 2, a};
  hsu_axisAngleToMat(R, aa);
}

static void expectMat(const double *A, const double *B, double tol) {
  for (int k = 0; k < 9; k++) {
    HST_NEAR(A[k], B[k], tol);
  }
}

//---------------------------------- mass from geoms -------------------------------------------

static void testCapsule(void) {
  hsBody *b = loadOk("<mujoco><worldbody><body name='c'><freejoint/>"
                     "<geom type='capsule' size='0.1 0.2' density='500'/>"
                     "</body></worldbody></mujoco>");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  double r = 0.1, h = 0.2, rho = 500;
  double mc = rho * HS_PI * r * r * 2 * h, ms = rho * 4.0 / 3 * HS_PI * r * r * r;
  const hsLink *l = &b->links[0];
  HST_NEAR(l->mass, mc + ms, 1e-12);
  // each hemisphere (mass ms/2): about its own centre 83/320 m r^2 across, 2/5 m r^2 along;
  // its centre h + 3r/8 from the capsule's
  double d = h + 3 * r / 8, across = mc * (3 * r * r + 4 * h * h) / 12 +
                                      ms * (83.0 / 320 * r * r + d * d);
  HST_NEAR(l->inertia[0], across, 1e-12);
  HST_NEAR(l->inertia[4], across, 1e-12);
  HST_NEAR(l->inertia[8], mc * r * r / 2 + ms * 0.4 * r * r, 1e-12);
  HST_NEAR(l->com[2], 0, 1e-15);
  // the capsule's mesh encloses nearly its volume (tessellated, so a little less)
  CU_ASSERT_EQUAL(b->shapes[l->shapeRefs[0].shape].primitive, hsPRIM_MESH);
  hsm_freeBody(b);
}

static void testCylinderFromto(void) {
  // along x from (0.1, 0, 0) to (0.4, 0, 0): centre (0.25, 0, 0), z turned onto x
  hsBody *b = loadOk("<mujoco><worldbody><body name='c'><freejoint/>"
                     "<geom type='cylinder' size='0.05' fromto='0.1 0 0 0.4 0 0' density='700'/>"
                     "</body></worldbody></mujoco>");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  double r = 0.05, L = 0.3, m = 700 * HS_PI * r * r * L;
  const hsLink *l = &b->links[0];
  HST_NEAR(l->mass, m, 1e-12);
  HST_NEAR(l->com[0], 0.25, 1e-15);
  HST_NEAR(l->inertia[0], m * r * r / 2, 1e-12);  // about its axis, now x
  HST_NEAR(l->inertia[4], m * (3 * r * r + L * L) / 12, 1e-12);
  HST_NEAR(l->inertia[8], m * (3 * r * r + L * L) / 12, 1e-12);
  HST_NEAR(l->inertia[1], 0, 1e-15);
  // the shape: hrpsim's cylinder axis (y) lies along x, its centre at 0.25
  const hsShapeRef *s = &l->shapeRefs[0];
  CU_ASSERT_EQUAL(b->shapes[s->shape].primitive, hsPRIM_CYLINDER);
  HST_NEAR(s->T[1], 1, 1e-12);
  HST_NEAR(s->T[3], 0.25, 1e-12);
  HST_NEAR(b->shapes[s->shape].params[1], L, 1e-6);
  hsm_freeBody(b);
  // fromto along -z: half a turn about x (MuJoCo's rule), the box's z half-size half its
  // length, x and y half-sizes both size[0] (MuJoCo ignores size[1] there)
  b = loadOk("<mujoco><worldbody><body name='c'><freejoint/>"
             "<geom type='box' size='0.1 0.2 9' fromto='0 0 0 0 0 -1'/>"
             "</body></worldbody></mujoco>");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  HST_NEAR(b->links[0].mass, 1000 * 0.2 * 0.2 * 1.0, 1e-9);
  HST_NEAR(b->links[0].com[2], -0.5, 1e-15);
  HST_NEAR(b->links[0].shapeRefs[0].T[5], -1, 1e-12);  // y turned onto -y
  hsm_freeBody(b);
}

static void testSphereBoxEllipsoidMass(void) {
  hsBody *b = loadOk("<mujoco><worldbody><body name='c'><freejoint/>"
                     "<geom type='sphere' size='0.1' mass='2' pos='1 0 0'/>"
                     "<geom type='ellipsoid' size='0.1 0.2 0.3' mass='3' pos='-1 0 0'/>"
                     "</body></worldbody></mujoco>");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  const hsLink *l = &b->links[0];
  HST_NEAR(l->mass, 5, 1e-12);
  HST_NEAR(l->com[0], (2 - 3) / 5.0, 1e-12);
  // about the common centre: own inertias + parallel axis (each 1 m off in x)
  double dy = 2 * 0.4 * 0.01 + 3 * (0.01 + 0.09) / 5;
  double shift = 2 * pow(1 + 0.2, 2) + 3 * pow(-1 + 0.2, 2);
  HST_NEAR(l->inertia[0], 2 * 0.4 * 0.01 + 3 * (0.04 + 0.09) / 5, 1e-12);
  HST_NEAR(l->inertia[4], dy + shift, 1e-12);
  hsm_freeBody(b);
}

//---------------------------------- frames ----------------------------------------------------

// the fixed child's rotation for euler='30 40 50' under a compiler setting
static void childRotation(const char *compiler, const char *euler, double R[9]) {
  char xml[600];
  snprintf(xml, sizeof xml, "<mujoco><compiler %s/><worldbody><body name='a'><freejoint/>"
           "<geom size='0.1'/><body name='b' euler='%s'><geom size='0.1'/></body></body>"
           "</worldbody></mujoco>", compiler, euler);
  hsBody *b = loadOk(xml);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(b->links[1].jointType, hsJOINT_FIXED);
  memcpy(R, b->links[1].R, 9 * sizeof(double));
  hsm_freeBody(b);
}

static void testEuler(void) {
  double a = 30 * HS_PI / 180, bb = 40 * HS_PI / 180, c = 50 * HS_PI / 180;
  double X[9], Y[9], Z[9], T[9], R[9], got[9];
  axisMat(X, 0, a), axisMat(Y, 1, bb), axisMat(Z, 2, c);
  // default xyz: intrinsic x, then y, then z: Rx(a) Ry(b) Rz(c)
  hsu_mulMat(T, X, Y), hsu_mulMat(R, T, Z);
  childRotation("", "30 40 50", got);
  expectMat(got, R, 1e-12);
  // XYZ: about the fixed axes: Rz(c) Ry(b) Rx(a)
  hsu_mulMat(T, Z, Y), hsu_mulMat(R, T, X);
  childRotation("eulerseq='XYZ'", "30 40 50", got);
  expectMat(got, R, 1e-12);
  // zyx intrinsic: Rz(30) Ry(40) Rx(50)
  axisMat(Z, 2, a), axisMat(Y, 1, bb), axisMat(X, 0, c);
  hsu_mulMat(T, Z, Y), hsu_mulMat(R, T, X);
  childRotation("eulerseq='zyx'", "30 40 50", got);
  expectMat(got, R, 1e-12);
  // radians
  axisMat(R, 0, 0.5);
  childRotation("angle='radian'", "0.5 0 0", got);
  expectMat(got, R, 1e-12);
}

static void testOrientations(void) {
  hsBody *b = loadOk("<mujoco><worldbody><body name='a'><freejoint/><geom size='0.1'/>"
                     "<body name='q' quat='0 0 0 2'><geom size='.1'/></body>"
                     "<body name='aa' axisangle='0 0 2 90'><geom size='.1'/></body>"
                     "<body name='xy' xyaxes='0 1 0 -1 0.5 0'><geom size='.1'/></body>"
                     "<body name='z' zaxis='1 0 0'><geom size='.1'/></body>"
                     "</body></worldbody></mujoco>");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  double Rz180[9], Rz90[9], Ry90[9];
  axisMat(Rz180, 2, HS_PI), axisMat(Rz90, 2, HS_PI / 2), axisMat(Ry90, 1, HS_PI / 2);
  expectMat(b->links[1].R, Rz180, 1e-12);
  expectMat(b->links[2].R, Rz90, 1e-12);
  expectMat(b->links[3].R, Rz90, 1e-12);  // y made orthogonal to x
  expectMat(b->links[4].R, Ry90, 1e-12);  // z onto x: a quarter turn about y
  hsm_freeBody(b);
}

//---------------------------------- defaults --------------------------------------------------

static void testDefaults(void) {
  // main: density 100; class A: sphere of radius 0.2, joint range; B (in A): radius 0.1.
  // Body 'k' has childclass A: its geom is A's; its child geom names class B; a geom with
  // class main inside it gets main's (sphere type, but size from main: 0.3)
  hsBody *b = loadOk(
      "<mujoco><default><geom density='100' size='0.3'/><joint range='-10 10'/>"
      "<default class='A'><geom size='0.2' rgba='1 0 0 1'/><joint range='-20 20'/>"
      "<default class='B'><geom size='0.1'/></default></default></default>"
      "<worldbody><body name='k' childclass='A'><freejoint/><geom/>"
      "<body name='c'><joint name='j' axis='0 0 1'/><geom class='B'/>"
      "<geom class='main' pos='1 0 0'/></body></body></worldbody></mujoco>");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  double v = 4.0 / 3 * HS_PI;
  HST_NEAR(b->links[0].mass, 100 * v * 0.008, 1e-12);
  HST_NEAR(b->links[1].mass, 100 * v * (0.001 + 0.027), 1e-12);
  // the joint took A's range (childclass), in degrees
  CU_ASSERT_EQUAL_FATAL(b->links[1].ulimit.n, 1);
  HST_NEAR(b->links[1].ulimit.v[0], 20 * HS_PI / 180, 1e-15);
  HST_NEAR(b->links[1].llimit.v[0], -20 * HS_PI / 180, 1e-15);
  // B inherits A's colour
  const hsShape *s = &b->shapes[b->links[1].shapeRefs[0].shape];
  CU_ASSERT_EQUAL_FATAL(s->appearance >= 0, 1);
  int m = b->appearances[s->appearance].material;
  HST_NEAR(b->materials[m].diffuseColor[0], 1, 0);
  HST_NEAR(b->materials[m].diffuseColor[1], 0, 0);
  hsm_freeBody(b);
  // colour: a material's unless the geom's rgba (itself or its class) is not MuJoCo's grey
  b = loadOk("<mujoco><asset><material name='m' rgba='0 1 0 1'/></asset><default>"
             "<default class='c'><geom rgba='0 0 1 1'/></default></default><worldbody>"
             "<body name='k'><freejoint/><geom size='.1' material='m'/>"
             "<geom size='.1' material='m' rgba='0.5 0.5 0.5 1'/>"
             "<geom size='.1' material='m' class='c'/></body></worldbody></mujoco>");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  const float expect[3][3] = {{0, 1, 0}, {0, 1, 0}, {0, 0, 1}};
  for (int i = 0; i < 3; i++) {
    const hsShape *g = &b->shapes[b->links[0].shapeRefs[i].shape];
    const float *d = b->materials[b->appearances[g->appearance].material].diffuseColor;
    CU_ASSERT(memcmp(d, expect[i], sizeof expect[i]) == 0);
  }
  hsm_freeBody(b);
}

// balanceinertia: principal moments 0.1, 0.02, 0.03 break A + B >= C: all become 0.05 (turned
// by euler, the tensor stays 0.05 E); boundinertia 0.04 raises the two small ones
static void testInertiaBounds(void) {
  static const char *const compilers[2] = {"balanceinertia='true'", "boundinertia='0.04'"};
  for (int k = 0; k < 2; k++) {
    char xml[500];
    snprintf(xml, sizeof xml, "<mujoco><compiler %s boundmass='2'/><worldbody><body name='a'>"
             "<freejoint/><inertial pos='0 0 0' euler='%s' mass='1' "
             "diaginertia='0.1 0.02 0.03'/></body></worldbody></mujoco>", compilers[k],
             k ? "0 0 0" : "10 20 30");
    hsBody *b = loadOk(xml);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    const double *I = b->links[0].inertia;
    double expect[3] = {k ? 0.1 : 0.05, k ? 0.04 : 0.05, k ? 0.04 : 0.05};
    for (int r = 0; r < 3; r++) {
      for (int c = 0; c < 3; c++) {
        HST_NEAR(I[3 * r + c], r == c ? expect[r] : 0, 1e-12);
      }
    }
    HST_NEAR(b->links[0].mass, 2, 0);  // boundmass
    hsm_freeBody(b);
  }
}

//---------------------------------- joints ----------------------------------------------------

static void testMultiJointChain(void) {
  // body 'leg' at (0, 0, -1) with a hinge about z at (0.1, 0, 0), then a slide along x at
  // (0, 0.2, 0) with ref 0.05, then a hinge about y with ref 30 degrees at (0, 0, 0.3)
  hsBody *b = loadOk(
      "<mujoco><worldbody><body name='base' pos='0 0 2'><freejoint name='root'/>"
      "<geom size='0.1'/><body name='leg' pos='0 0 -1'>"
      "<joint name='a' pos='0.1 0 0' axis='0 0 2' armature='0.3'/>"
      "<joint name='b' type='slide' pos='0 0.2 0' axis='1 0 0' ref='0.05' range='0 1'/>"
      "<joint name='c' pos='0 0 0.3' axis='0 1 0' ref='30'/>"
      "<geom type='box' size='0.1 0.1 0.1' pos='0 0 -0.5' mass='2'/></body></body>"
      "</worldbody></mujoco>");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL_FATAL(b->nlink, 4);
  CU_ASSERT_STRING_EQUAL(b->links[0].name, "root");
  CU_ASSERT_STRING_EQUAL(b->links[1].name, "a");
  CU_ASSERT_STRING_EQUAL(b->links[2].name, "b");
  CU_ASSERT_STRING_EQUAL(b->links[3].name, "c");
  CU_ASSERT_EQUAL(b->links[2].parent, 1);
  CU_ASSERT_EQUAL(b->links[3].parent, 2);
  CU_ASSERT_EQUAL(b->links[1].jointId, 0);
  CU_ASSERT_EQUAL(b->links[3].jointId, 2);
  CU_ASSERT_EQUAL(b->links[2].jointType, hsJOINT_SLIDE);
  HST_NEAR(b->links[1].axis[2], 1, 1e-15);  // normalised
  HST_NEAR(b->links[1].rotorInertia, 0.3, 0);
  HST_NEAR(b->links[1].gearRatio, 1, 0);
  // masses: the first two massless, the body's on the last, its segment named 'leg'
  HST_NEAR(b->links[1].mass, 0, 0);
  HST_NEAR(b->links[2].mass, 0, 0);
  HST_NEAR(b->links[3].mass, 2, 1e-12);
  CU_ASSERT_EQUAL(b->links[3].nsegment, 1);
  CU_ASSERT_STRING_EQUAL(b->segments[b->links[3].segmentAdr].name, "leg");
  CU_ASSERT_EQUAL(hsm_linkIndex(b, "leg"), 3);
  // initial values are the refs (radians)
  HST_NEAR(b->links[2].jointValue, 0.05, 0);
  HST_NEAR(b->links[3].jointValue, HS_PI / 6, 1e-15);
  // at the initial values the world anchors are the body frame's points and the body's
  // centre of mass is where the file puts it: (0, 0, 1) + (0, 0, -0.5)
  hsError err = {0};
  hsBodyState *st = hsm_makeState(b, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(st);
  HST_NEAR(st->linkP[3 * 1 + 0], 0.1, 1e-12);
  HST_NEAR(st->linkP[3 * 1 + 2], 1, 1e-12);
  HST_NEAR(st->linkP[3 * 2 + 1], 0.2, 1e-12);
  HST_NEAR(st->linkP[3 * 3 + 2], 1.3, 1e-12);
  double com[3];
  hsu_rotVec(com, st->linkR + 9 * 3, b->links[3].com);
  HST_NEAR(st->linkP[9] + com[0], 0, 1e-12);
  HST_NEAR(st->linkP[10] + com[1], 0, 1e-12);
  HST_NEAR(st->linkP[11] + com[2], 0.5, 1e-12);
  // the last link's frame has the body's orientation at q = ref
  double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  expectMat(st->linkR + 27, I, 1e-12);
  hsm_freeState(st);
  // slide: limits as written (metres)
  HST_NEAR(b->links[2].ulimit.v[0], 1, 0);
  hsm_freeBody(b);
}

static void testTopLevelHingeAndFixed(void) {
  hsBody *b = loadOk("<mujoco><worldbody><body name='p' pos='0 0 1'><joint name='h'/>"
                     "<geom size='0.1'/></body></worldbody></mujoco>");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(b->nlink, 2);
  CU_ASSERT_STRING_EQUAL(b->links[0].name, "world");
  CU_ASSERT_EQUAL(b->links[0].jointType, hsJOINT_FIXED);
  CU_ASSERT_EQUAL(b->links[1].jointType, hsJOINT_ROTATE);
  HST_NEAR(b->links[1].translation[2], 1, 0);
  hsm_freeBody(b);
  b = loadOk("<mujoco><worldbody><body pos='0 0 1'><geom size='0.1'/></body>"
             "</worldbody></mujoco>");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(b->nlink, 1);
  CU_ASSERT_STRING_EQUAL(b->links[0].name, "body1");
  CU_ASSERT_EQUAL(b->links[0].jointType, hsJOINT_FIXED);
  hsm_freeBody(b);
}

//---------------------------------- meshes ----------------------------------------------------

static void testMeshVolume(void) {
  // a cube of side 0.2 from the origin to (0.2, 0.2, 0.2), ASCII STL, twelve triangles
  static const int tri[12][3] = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5},
                                 {0, 5, 4}, {1, 2, 6}, {1, 6, 5}, {2, 3, 7}, {2, 7, 6},
                                 {3, 0, 4}, {3, 4, 7}};
  static const double v[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                 {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  char stl[8000] = "solid cube\n";
  for (int t = 0; t < 12; t++) {
    size_t n = strlen(stl);
    snprintf(stl + n, sizeof stl - n, "facet normal 0 0 0\nouter loop\n");
    for (int k = 0; k < 3; k++) {
      n = strlen(stl);
      const double *p = v[tri[t][k]];
      snprintf(stl + n, sizeof stl - n, "vertex %g %g %g\n", 0.2 * p[0], 0.2 * p[1],
               0.2 * p[2]);
    }
    n = strlen(stl);
    snprintf(stl + n, sizeof stl - n, "endloop\nendfacet\n");
  }
  strcat(stl, "endsolid cube\n");
  hst_writeFile("cube.stl", stl);
  hsmLoadOptions opt;
  hsm_defaultLoadOptions(&opt);
  opt.limits.meshInProcess = 1;
  const char *path = hst_writeFile(
      "meshbody.xml", "<mujoco><asset><mesh file='cube.stl' scale='1 1 2'/></asset>"
      "<worldbody><body name='m'><freejoint/><geom type='mesh' mesh='cube' density='500' "
      "pos='1 0 0'/></body></worldbody></mujoco>");
  hsError err = {0};
  hsBody *b = hsm_loadModel(path, &opt, NULL, 0, NULL, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  // 0.2 x 0.2 x 0.4 (scaled in z): mass, centre, box inertia about it
  double m = 500 * 0.2 * 0.2 * 0.4;
  const hsLink *l = &b->links[0];
  // (vertices are floats: 0.2 is kept to 3e-9, so 1e-6 relative)
  HST_NEAR(l->mass, m, 1e-6 * m);
  HST_NEAR(l->com[0], 1.1, 1e-7);
  HST_NEAR(l->com[2], 0.2, 1e-7);
  HST_NEAR(l->inertia[0], m * (0.04 + 0.16) / 12, 1e-6 * l->inertia[0]);
  HST_NEAR(l->inertia[8], m * (0.04 + 0.04) / 12, 1e-6 * l->inertia[8]);
  HST_NEAR(l->inertia[2], 0, 1e-9);
  CU_ASSERT_EQUAL(b->shapes[l->shapeRefs[0].shape].ntriangle, 12);
  hsm_freeBody(b);
  // the same cube as a shell (mass on its six faces): m = rho 6 a^2, Izz = 5/18 m a^2
  path = hst_writeFile("shell.xml", "<mujoco><asset><mesh file='cube.stl' inertia='shell'/>"
                       "</asset><worldbody><body name='m'><freejoint/><geom type='mesh' "
                       "mesh='cube' density='3'/></body></worldbody></mujoco>");
  b = hsm_loadModel(path, &opt, NULL, 0, NULL, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  m = 3 * 6 * 0.04;
  HST_NEAR(b->links[0].mass, m, 1e-6 * m);
  HST_NEAR(b->links[0].com[2], 0.1, 1e-7);
  HST_NEAR(b->links[0].inertia[8], 5.0 / 18 * m * 0.04, 1e-6 * m * 0.04);
  hsm_freeBody(b);
}

// an L-shaped prism (not convex): a 2 x 1 and a 1 x 1 rectangle side by side in x-y, 1 high;
// legacy (MuJoCo's default: pyramids from the surface centroid) and exact agree for it (every
// pyramid is outward), and both are the closed form
static void testMeshNotConvex(void) {
  static const double poly[6][2] = {{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}};
  char stl[20000] = "solid l\n";
  double tri[20][3][3];
  int nt = 0;
  for (int k = 1; k < 5; k++) {  // caps: a fan from corner 0 (the L is star-shaped about it)
    int idx[2][3] = {{0, k, k + 1}, {0, k + 1, k}};
    for (int c = 0; c < 2; c++, nt++) {
      for (int v = 0; v < 3; v++) {
        tri[nt][v][0] = poly[idx[c][v]][0], tri[nt][v][1] = poly[idx[c][v]][1];
        tri[nt][v][2] = c == 0 ? 1 : 0;
      }
    }
  }
  for (int k = 0; k < 6; k++) {  // sides, outward
    int k1 = (k + 1) % 6;
    double q[4][3] = {{poly[k][0], poly[k][1], 0}, {poly[k1][0], poly[k1][1], 0},
                      {poly[k1][0], poly[k1][1], 1}, {poly[k][0], poly[k][1], 1}};
    int idx[2][3] = {{0, 1, 2}, {0, 2, 3}};
    for (int c = 0; c < 2; c++, nt++) {
      for (int v = 0; v < 3; v++) {
        memcpy(tri[nt][v], q[idx[c][v]], sizeof q[0]);
      }
    }
  }
  for (int t = 0; t < nt; t++) {
    size_t n = strlen(stl);
    n += (size_t)snprintf(stl + n, sizeof stl - n, "facet normal 0 0 0\nouter loop\n");
    for (int v = 0; v < 3; v++) {
      n += (size_t)snprintf(stl + n, sizeof stl - n, "vertex %g %g %g\n", tri[t][v][0],
                            tri[t][v][1], tri[t][v][2]);
    }
    snprintf(stl + n, sizeof stl - n, "endloop\nendfacet\n");
  }
  strcat(stl, "endsolid l\n");
  hst_writeFile("l.stl", stl);
  hsmLoadOptions opt;
  hsm_defaultLoadOptions(&opt);
  opt.limits.meshInProcess = 1;
  for (int exact = 0; exact < 2; exact++) {
    char xml[400];
    snprintf(xml, sizeof xml, "<mujoco><asset><mesh file='l.stl'%s/></asset><worldbody>"
             "<body name='m'><freejoint/><geom type='mesh' mesh='l' density='2'/></body>"
             "</worldbody></mujoco>", exact ? " inertia='exact'" : "");
    hsError err = {0};
    hsBody *b = hsm_loadModel(hst_writeFile("l.xml", xml), &opt, NULL, 0, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    const hsLink *l = &b->links[0];
    HST_NEAR(l->mass, 6, 1e-9);
    HST_NEAR(l->com[0], 5.0 / 6, 1e-9);
    HST_NEAR(l->com[1], 5.0 / 6, 1e-9);
    // about z: 2 x 1 block (mass 4) 1/6, -1/3 off; 1 x 1 block (mass 2) -1/3, 2/3 off
    double izz = 4 * 5.0 / 12 + 4 * 5.0 / 36 + 2 * 2.0 / 12 + 2 * 5.0 / 9;
    HST_NEAR(l->inertia[8], izz, 1e-9);
    hsm_freeBody(b);
  }
}

//---------------------------------- scenes, includes ------------------------------------------

static const char *kScene =
    "<mujoco model='two'><worldbody><geom name='floor' type='plane' size='0 0 1'/>"
    "<body name='r1' pos='1 0 0.5'><freejoint/><geom size='0.1'/></body>\n"
    "<body name='r2' pos='-1 0 0.5'><freejoint/><geom size='0.2'/></body>"
    "</worldbody></mujoco>";

static void testScenes(void) {
  const char *path = hst_writeFile("scene.xml", kScene);
  hsError err = {0};
  hsBody *b = hsm_loadModel(path, NULL, NULL, 0, NULL, &err);
  CU_ASSERT_PTR_NULL(b);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "'r1', 'r2'"));
  CU_ASSERT_EQUAL(err.line, 1);
  char url[1200];
  snprintf(url, sizeof url, "file://%s#r2", path);
  b = hsm_loadModel(url, NULL, NULL, 0, NULL, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_STRING_EQUAL(b->name, "r2");
  HST_NEAR(b->links[0].translation[0], -1, 0);  // the free body's pose from the file
  HST_NEAR(b->links[0].mass, 1000 * 4.0 / 3 * HS_PI * 0.008, 1e-9);
  hsm_freeBody(b);
  snprintf(url, sizeof url, "%s#world", path);
  b = hsm_loadModel(url, NULL, NULL, 0, NULL, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(b->nlink, 1);
  CU_ASSERT_EQUAL(b->links[0].jointType, hsJOINT_FIXED);
  CU_ASSERT_EQUAL(b->links[0].nshapeRef, 1);  // the floor only
  CU_ASSERT_EQUAL(b->links[0].ncollisionRef, 1);
  HST_NEAR(b->links[0].mass, 0, 0);
  hsm_freeBody(b);
  hsError e2 = {0};
  snprintf(url, sizeof url, "%s#r3", path);
  CU_ASSERT_PTR_NULL(hsm_loadModel(url, NULL, NULL, 0, NULL, &e2));
  CU_ASSERT_PTR_NOT_NULL(strstr(e2.message, "no top-level body 'r3'"));
}

static void testInclude(void) {
  hst_writeFile("parts/leg.xml", "<mujoco><body name='leg' pos='0 0 -0.5'>"
                "<joint name='knee'/><geom size='0.05' mass='1'/></body></mujoco>");
  hsBody *b = loadOk("<mujoco><worldbody><body name='top'><freejoint/><geom size='0.1'/>"
                     "<include file='parts/leg.xml'/></body></worldbody></mujoco>");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(b->nlink, 2);
  CU_ASSERT_STRING_EQUAL(b->links[1].name, "knee");
  HST_NEAR(b->links[1].mass, 1, 1e-12);
  hsm_freeBody(b);
  // a long comment before <mujoco> (a licence) does not hide that the file is MJCF
  static char text[12000];
  memset(text, 0, sizeof text);
  strcpy(text, "<?xml version='1.0'?>\n<!-- ");
  memset(text + strlen(text), 'x', 9000);
  strcat(text, " -->\n<mujoco><worldbody><body name='b'><geom size='1'/></body></worldbody>"
         "</mujoco>");
  b = loadOk(text);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_STRING_EQUAL(b->name, "b");
  hsm_freeBody(b);
}

//---------------------------------- sensors, actuators ----------------------------------------

static void testSensorsActuators(void) {
  hst_expectLog(1);  // the jointpos sensor and the position actuator are warned
  hsBody *b = loadOk(
      "<mujoco><worldbody><body name='t'><freejoint/><geom size='0.1'/>"
      "<site name='s' pos='0 0 0.1'/><site name='r' zaxis='1 0 0'/>"
      "<camera name='cam' fovy='60' resolution='40 20'/>"
      "<camera name='tall' fovy='60' resolution='20 40'/>"
      "<body name='l'><joint name='j' axis='0 1 0'/><geom size='0.05'/></body>"
      "<body name='l2'><joint name='j2' axis='0 1 0' actuatorfrcrange='-5 5'/>"
      "<geom size='0.05'/></body></body></worldbody>"
      "<actuator><motor joint='j' gear='20' ctrlrange='-2 2' forcerange='-30 30'/>"
      "<position joint='j2' kp='10'/></actuator>"
      "<sensor><accelerometer site='s'/><gyro name='g' site='s'/><force name='f' site='s'/>"
      "<torque site='s'/><rangefinder name='rf' site='r'/><jointpos joint='j'/></sensor>"
      "</mujoco>");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(hsm_sensorCount(b, hsSENSOR_ACCELERATION), 1);
  CU_ASSERT_EQUAL(hsm_sensorCount(b, hsSENSOR_RATEGYRO), 1);
  CU_ASSERT_EQUAL(hsm_sensorCount(b, hsSENSOR_FORCE), 1);  // the force-torque pair
  CU_ASSERT_EQUAL(hsm_sensorCount(b, hsSENSOR_RANGE), 1);
  CU_ASSERT_EQUAL(hsm_sensorCount(b, hsSENSOR_VISION), 2);
  const hsSensor *g = &b->sensors[hsm_sensorIndex(b, "g")];
  HST_NEAR(g->translation[2], 0.1, 0);
  // the rangefinder looks along the site's +z (here world x): the sensor's -z
  const hsSensor *rf = &b->sensors[hsm_sensorIndex(b, "rf")];
  double R[9], down[3] = {0, 0, -1}, dir[3];
  hsu_axisAngleToMat(R, rf->rotation);
  hsu_rotVec(dir, R, down);
  HST_NEAR(dir[0], 1, 1e-12);
  // camera: fovy 60 (vertical) as OpenHRP's horizontal fieldOfView: 2 atan(tan 30 deg * 2)
  const hsSensor *cam = &b->sensors[hsm_sensorIndex(b, "cam")];
  HST_NEAR(cam->specValues[2], 2 * atan(tan(HS_PI / 6) * 2), 1e-6);
  HST_NEAR(cam->specValues[4], 40, 0);
  const hsSensor *tall = &b->sensors[hsm_sensorIndex(b, "tall")];
  HST_NEAR(tall->specValues[2], 2 * atan(tan(HS_PI / 6) / 2), 1e-6);
  // climit: min(ctrl 2 x gear 20, force 30) = 30; j2: its actuatorfrcrange 5
  CU_ASSERT_EQUAL_FATAL(b->links[1].climit.n, 1);
  HST_NEAR(b->links[1].climit.v[0], 30, 0);
  CU_ASSERT_EQUAL_FATAL(b->links[2].climit.n, 1);
  HST_NEAR(b->links[2].climit.v[0], 5, 0);
  CU_ASSERT(hst_logCount() >= 2);
  hsm_freeBody(b);
  // a class's actuator default is one, whichever element writes it: <general> gives <motor>
  // its ctrlrange, the later <motor> its gear
  b = loadOk("<mujoco><default><general ctrlrange='-3 3' gear='1'/><motor gear='7'/>"
             "</default><worldbody><body name='t'><freejoint/><geom size='0.1'/>"
             "<body name='l'><joint name='j'/><geom size='0.05'/></body></body></worldbody>"
             "<actuator><motor joint='j'/></actuator></mujoco>");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL_FATAL(b->links[1].climit.n, 1);
  HST_NEAR(b->links[1].climit.v[0], 21, 0);
  hsm_freeBody(b);
}

//---------------------------------- the sample ------------------------------------------------

static void testSampleQuadruped(void) {
  char path[1024];
  snprintf(path, sizeof path, "%s/mjcf/quadruped/quadruped.xml", HST_SAMPLES_DIR);
  hsmLoadOptions opt;
  hsm_defaultLoadOptions(&opt);
  opt.limits.meshInProcess = 1;
  hst_expectLog(1);  // damping and the jointpos sensor are warned
  hsError err = {0};
  hsBody *b = hsm_loadModel(path, &opt, NULL, 0, NULL, &err);
  if (!b) {
    fprintf(stderr, "\n%s:%d:%d: %s\n", err.file, err.line, err.column, err.message);
  }
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(b->nlink, 13);
  CU_ASSERT_EQUAL(b->njoint, 12);
  CU_ASSERT_EQUAL(b->links[0].jointType, hsJOINT_FREE);
  CU_ASSERT_STRING_EQUAL(b->links[0].name, "root");
  CU_ASSERT_STRING_EQUAL(b->links[1].name, "fl_abd");
  CU_ASSERT_STRING_EQUAL(b->links[2].name, "fl_hip");
  CU_ASSERT_EQUAL(b->links[2].parent, 1);
  CU_ASSERT_EQUAL(hsm_sensorCount(b, hsSENSOR_FORCE), 1);
  CU_ASSERT_EQUAL(hsm_sensorCount(b, hsSENSOR_VISION), 1);
  CU_ASSERT_EQUAL(b->links[3].climit.n, 1);
  hsm_freeBody(b);
  char world[1100];
  snprintf(world, sizeof world, "%s#world", path);
  b = hsm_loadModel(world, &opt, NULL, 0, NULL, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(b->nlink, 1);
  hsm_freeBody(b);
}

//---------------------------------- errors ----------------------------------------------------

// 1 if links x and y (by name) of body b are an exclude pair (lower index first)
static int excluded(const hsBody *b, const char *x, const char *y) {
  int i = hsm_linkIndex(b, x), j = hsm_linkIndex(b, y);
  CU_ASSERT_FATAL(i >= 0 && j >= 0);
  for (int k = 0; k < b->ncollisionExclude; k++) {
    const int *p = &b->collisionExcludes[2 * k];
    if (p[0] == (i < j ? i : j) && p[1] == (i < j ? j : i)) {
      return 1;
    }
  }
  return 0;
}

// contype / conaffinity per link (the OR of its colliding geoms', a class's too), MuJoCo's
// parent filter as excludes (a multi-joint child's last link and its parent's link, welded
// bodies and their parent group; not bodies whose parent is welded to the world), and
// <contact><exclude>; a mixed link and an exclude reaching outside the model warned
static void testCollisionFilter(void) {
  hst_expectLog(1);
  const char *path = hst_writeFile("filter.xml",
      "<mujoco><default><default class='ghost'><geom contype='0' conaffinity='2'/></default>"
      "</default><worldbody><geom type='plane' size='1 1 1'/>"
      "<body name='torso'><freejoint/><geom size='0.1' contype='4' conaffinity='9'/>"
      " <body name='head' pos='0 0 0.3'><geom size='0.05'/></body>"
      " <body name='thigh' pos='0 0 -0.2'><joint name='hx' axis='1 0 0'/>"
      "  <joint name='hy' axis='0 1 0'/><geom size='0.05' class='ghost'/>"
      "  <geom size='0.04' pos='0 0 -0.1' contype='8' conaffinity='0'/>"
      "  <body name='shin' pos='0 0 -0.3'><joint name='knee'/><geom size='0.04'/>"
      "   <body name='foot' pos='0 0 -0.3'><joint name='ankle'/><geom size='0.03'/></body>"
      "  </body></body></body>"
      "<body name='other' pos='2 0 0'><freejoint/><geom size='0.1'/></body>"
      "</worldbody><contact><exclude body1='torso' body2='foot'/>"
      "<exclude body1='shin' body2='world'/><exclude body1='other' body2='other'/>"
      "</contact></mujoco>");
  char url[1100];
  snprintf(url, sizeof url, "%s#torso", path);
  hsBody *b = hsm_loadModel(url, NULL, NULL, 0, NULL, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  int torso = hsm_linkIndex(b, "torso"), thigh = hsm_linkIndex(b, "hy");
  CU_ASSERT_FATAL(torso >= 0 && thigh >= 0);
  CU_ASSERT_EQUAL(b->links[torso].contype, 4u);
  CU_ASSERT_EQUAL(b->links[torso].conaffinity, 9u);
  CU_ASSERT_EQUAL(b->links[thigh].contype, 8u);      // 0 | 8
  CU_ASSERT_EQUAL(b->links[thigh].conaffinity, 2u);  // 2 | 0
  CU_ASSERT_EQUAL(b->links[hsm_linkIndex(b, "knee")].contype, 1u);
  // thigh's last link 'hy' hangs from 'hx', not from torso's link, so only an exclude keeps
  // them apart, as MuJoCo's parent filter does; head (a fixed link welded to torso) belongs to
  // torso's welded group, so it is kept from hy too; knee-hy and ankle-knee are parent and
  // child links already; torso-ankle is the <exclude>
  CU_ASSERT_TRUE(excluded(b, "torso", "hy"));
  CU_ASSERT_TRUE(excluded(b, "head", "hy"));
  CU_ASSERT_TRUE(excluded(b, "torso", "ankle"));
  CU_ASSERT_FALSE(excluded(b, "torso", "knee"));
  CU_ASSERT_FALSE(excluded(b, "hy", "ankle"));
  CU_ASSERT_EQUAL(b->ncollisionExclude, 3);
  // bits: thigh (8, 2) and knee (1, 1) share none (8 & 1, 1 & 2); knee and torso (4, 9) do
  // (1 & 9), as thigh and torso (8 & 9)
  int knee = hsm_linkIndex(b, "knee");
  CU_ASSERT_FALSE(hsm_linksMayCollide(b, thigh, b, knee, 0));
  CU_ASSERT_TRUE(hsm_linksMayCollide(b, torso, b, knee, 1));
  CU_ASSERT_TRUE(hsm_linksMayCollide(b, torso, b, thigh, 0));
  CU_ASSERT_FALSE(hsm_linksMayCollide(b, torso, b, thigh, 1));  // the exclude
  hsm_freeBody(b);
  // the mixed thigh, and the exclude with the world (another model here), were warned
  CU_ASSERT_EQUAL(hst_logCount(), 2);
  // the world's own geoms: default bits, no excludes, nothing about the bodies' excludes
  hst_expectLog(1);
  snprintf(url, sizeof url, "%s#world", path);
  hsBody *w = hsm_loadModel(url, NULL, NULL, 0, NULL, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  CU_ASSERT_EQUAL(w->links[0].contype, 1u);
  CU_ASSERT_EQUAL(w->ncollisionExclude, 0);
  hsm_freeBody(w);
}

static void testErrors(void) {
  static const struct {
    const char *xml, *message;
    int line, column;
  } bad[] = {
      {"<mujoco><worldbody>\n<body name='a'>\n  <geom size='0.1 x'/></body>"
       "</worldbody></mujoco>", "size=\"0.1 x\"", 3, 9},
      {"<mujoco><worldbody><body name='a'>\n<joint type='ball'/><geom size='1'/></body>"
       "</worldbody></mujoco>", "ball joints are not supported", 2, 8},
      {"<mujoco><worldbody><body name='a'>\n<geom class='nope' size='1'/></body>"
       "</worldbody></mujoco>", "class 'nope' is not a <default> class", 2, 7},
      {"<mujoco><worldbody><body name='a'><geom size='1'/>\n<body><freejoint/>"
       "<geom size='1'/></body></body></worldbody></mujoco>",
       "a free joint is supported only on a top-level body", 2, 0},
      {"<mujoco><worldbody><body>\n<geom type='capsule' size='0.1'/></body></worldbody>"
       "</mujoco>", "needs 2 positive sizes", 2, 22},
      {"<mujoco><worldbody><body>\n<geom size='1' quat='1 0 0 0' euler='0 0 0'/></body>"
       "</worldbody></mujoco>", "both quat and euler", 2, 31},
      {"<mujoco><worldbody>\n<body><geom size='1'></body></worldbody></mujoco>",
       "not well-formed XML", 2, 0},
      {"<mujoco><compiler autolimits='false'/><worldbody><body>\n<joint range='0 1'/>"
       "<geom size='1'/></body></worldbody></mujoco>", "say limited", 2, 8},
      {"<mujoco><worldbody><body>\n<geom type='mesh' mesh='m'/></body></worldbody></mujoco>",
       "which no <mesh> asset defines", 2, 19},
      {"<mujoco><worldbody>\n<geom type='hfield' hfield='h'/></worldbody></mujoco>",
       "height fields have no hrpsim shape", 2, 7},
      // a finite fromto beyond float (a fuzz finding): refused, not served as inf vertices
      {"<mujoco><worldbody><body><geom type='cylinder' size='0.1' "
       "fromto='0 0 0 5e86 0 0'/></body></worldbody></mujoco>", "beyond the range of float",
       0, 0},
      {"<mujoco><worldbody><body>\n<geom size='1' contype='1.5'/></body></worldbody>"
       "</mujoco>", "contype 1.5 is not a bit mask", 2, 16},
      {"<robot name='r'/>", "", 0, 0},  // a URDF .xml: the URDF reader's business
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    hsError err = {0};
    hst_expectLog(1);
    hsBody *b = loadText("bad.xml", bad[i].xml, &err);
    if (i + 1 == sizeof bad / sizeof bad[0]) {
      CU_ASSERT_PTR_NULL(strstr(err.message, "MJCF"));  // not routed to the MJCF reader
      hsm_freeBody(b);
      continue;
    }
    CU_ASSERT_PTR_NULL(b);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, bad[i].message));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.file, "bad.xml"));
    CU_ASSERT_EQUAL(err.line, bad[i].line);
    if (bad[i].column) {
      CU_ASSERT_EQUAL(err.column, bad[i].column);
    }
    if (!strstr(err.message, bad[i].message) || err.line != bad[i].line ||
        (bad[i].column && err.column != bad[i].column)) {
      fprintf(stderr, "\ncase %zu: %d:%d: %s\n", i, err.line, err.column, err.message);
    }
  }
}

// every allocation fails in turn: hsE_NOMEM, never a crash or a leak
static void testAllocationFailure(void) {
  const char *path = hst_writeFile("alloc.xml", "<mujoco><default><geom density='5'/>"
                                   "</default><worldbody><body name='a'><freejoint/>"
                                   "<geom type='capsule' size='0.1 0.2'/><body name='b'>"
                                   "<joint/><joint type='slide'/><geom size='0.1'/></body>"
                                   "</body></worldbody></mujoco>");
  int loaded = 0;
  for (long n = 1; n < 20000 && !loaded; n++) {
    hsError err = {0};
    hsu_failAllocAfter(n);
    hsBody *b = hsm_loadModel(path, NULL, NULL, 0, NULL, &err);
    hsu_failAllocAfter(0);
    CU_ASSERT(b != NULL || err.code == hsE_NOMEM);
    if (b) {
      loaded = 1;
      hsm_freeBody(b);
    }
  }
  CU_ASSERT(loaded);
}

void register_mjcf(void) {
  CU_pSuite s = hst_addSuite("mjcf");
  CU_add_test(s, "capsule mass and inertia from density (closed form)", testCapsule);
  CU_add_test(s, "cylinder and box by fromto: frame, mass, inertia", testCylinderFromto);
  CU_add_test(s, "sphere and ellipsoid by mass: merged about the centre",
              testSphereBoxEllipsoidMass);
  CU_add_test(s, "euler sequences (intrinsic, extrinsic) and angle units", testEuler);
  CU_add_test(s, "quat, axisangle, xyaxes, zaxis", testOrientations);
  CU_add_test(s, "default classes: nested, childclass, class", testDefaults);
  CU_add_test(s, "balanceinertia, boundinertia, boundmass", testInertiaBounds);
  CU_add_test(s, "a body with three joints: a chain at the anchors, ref, armature",
              testMultiJointChain);
  CU_add_test(s, "top-level hinge hangs from 'world'; jointless body is fixed",
              testTopLevelHingeAndFixed);
  CU_add_test(s, "mesh mass, centre and inertia by volume (scaled cube) and as a shell",
              testMeshVolume);
  CU_add_test(s, "a mesh that is not convex: legacy and exact rules", testMeshNotConvex);
  CU_add_test(s, "scenes: several bodies refused, #NAME, #world", testScenes);
  CU_add_test(s, "include relative to the including file; MJCF after a long comment",
              testInclude);
  CU_add_test(s, "sensors on sites, camera, actuator limits", testSensorsActuators);
  CU_add_test(s, "the sample quadruped", testSampleQuadruped);
  CU_add_test(s, "collision filter: bits, parent filter, excludes", testCollisionFilter);
  CU_add_test(s, "errors at file:line:column", testErrors);
  CU_add_test(s, "allocation failure", testAllocationFailure);
}
