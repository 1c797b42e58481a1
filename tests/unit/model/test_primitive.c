// test_primitive.c - hsm_loadPrimitive (model_primitive.c): one-link bodies from parametric
// URLs with their shape, closed-form mass properties and joint type, the hsm_loadModel
// dispatch, refusals of bad parameters, and allocation failure.

#include <CUnit/CUnit.h>
#include <math.h>
#include <string.h>

#include "model.h"
#include "test_support.h"

static hsBody *load(const char *url, hsError *err) {
  return hsm_loadModel(url, NULL, NULL, 0, NULL, err);
}

static void testBox(void) {
  hsError err = {0};
  hsBody *b = load("hrpsim-primitive:box?size=0.3,0.2,0.1&mass=2&color=1,0,0.5", &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(b->nlink, 1);
  const hsLink *l = &b->links[0];
  CU_ASSERT_EQUAL(l->jointType, hsJOINT_FREE);
  CU_ASSERT_DOUBLE_EQUAL(l->mass, 2, 0);
  // m (b^2 + c^2) / 12 ... about the centre, no products
  CU_ASSERT_DOUBLE_EQUAL(l->inertia[0], 2 * (0.04 + 0.01) / 12, 1e-15);
  CU_ASSERT_DOUBLE_EQUAL(l->inertia[4], 2 * (0.09 + 0.01) / 12, 1e-15);
  CU_ASSERT_DOUBLE_EQUAL(l->inertia[8], 2 * (0.09 + 0.04) / 12, 1e-15);
  CU_ASSERT_EQUAL(l->inertia[1], 0);
  CU_ASSERT_EQUAL(l->nshapeRef, 1);
  const hsShape *s = &b->shapes[l->shapeRefs[0].shape];
  CU_ASSERT_EQUAL(s->primitive, hsPRIM_BOX);
  CU_ASSERT_EQUAL(s->nparam, 3);
  CU_ASSERT_DOUBLE_EQUAL(s->params[0], 0.3, 1e-7);
  CU_ASSERT_DOUBLE_EQUAL(s->params[2], 0.1, 1e-7);
  CU_ASSERT_EQUAL(b->nmaterial, 1);
  CU_ASSERT_DOUBLE_EQUAL(b->materials[0].diffuseColor[2], 0.5, 1e-7);
  hsm_freeBody(b);
}

static void testSphereCylinderPlane(void) {
  hsError err = {0};
  hsBody *b = load("hrpsim-primitive:sphere?radius=0.5&mass=3", &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_DOUBLE_EQUAL(b->links[0].inertia[4], 0.4 * 3 * 0.25, 1e-15);  // 2/5 m r^2
  hsm_freeBody(b);
  b = load("hrpsim-primitive:cylinder?radius=0.1&height=0.6&mass=2", &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  const hsLink *l = &b->links[0];
  CU_ASSERT_DOUBLE_EQUAL(l->inertia[0], 2 * (3 * 0.01 + 0.36) / 12, 1e-15);
  CU_ASSERT_DOUBLE_EQUAL(l->inertia[8], 2 * 0.01 / 2, 1e-15);  // m r^2 / 2 along z
  // the shape's y axis (OpenHRP's cylinder axis) is turned onto the link's z
  const double *T = l->shapeRefs[0].T;
  CU_ASSERT_DOUBLE_EQUAL(T[4 * 2 + 1], 1, 1e-15);
  hsm_freeBody(b);
  b = load("hrpsim-primitive:plane", &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(b->links[0].jointType, hsJOINT_FIXED);
  CU_ASSERT_EQUAL(b->links[0].mass, 0);
  CU_ASSERT_DOUBLE_EQUAL(b->links[0].shapeRefs[0].T[11], -0.5, 0);  // top face at z = 0
  CU_ASSERT_DOUBLE_EQUAL(b->shapes[0].params[0], 100, 0);
  hsm_freeBody(b);
}

static void testRefusals(void) {
  static const char *bad[][2] = {
      {"hrpsim-primitive:box?size=1,-1,1", "size must be positive"},
      {"hrpsim-primitive:box", "a box needs size"},
      {"hrpsim-primitive:box?size=1,1", "bad value for 'size'"},
      {"hrpsim-primitive:box?size=1,1,1&mass=0", "mass must be positive"},
      {"hrpsim-primitive:sphere?radius=nan", "bad value"},
      {"hrpsim-primitive:cylinder?radius=1", "needs radius=r&height=h"},
      {"hrpsim-primitive:plane?mass=1", "a plane is fixed"},
      {"hrpsim-primitive:cone?radius=1", "unknown primitive 'cone'"},
      {"hrpsim-primitive:box?size=1,1,1&spin=1", "unknown parameter 'spin'"},
      {"hrpsim-primitive:box?size", "has no value"},
      {"hrpsim-primitive:box?size=1,1,1&color=2,0,0", "color components"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    hsError err = {0};
    CU_ASSERT_PTR_NULL(load(bad[i][0], &err));
    CU_ASSERT_EQUAL(err.code, hsE_INVALID);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, bad[i][1]));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, bad[i][0]));
  }
  CU_ASSERT(!hsm_isPrimitiveUrl("file:///box.wrl"));
  CU_ASSERT(!hsm_isPrimitiveUrl(NULL));
}

// every allocation fails in turn: hsE_NOMEM, never a crash or a leak
static void testAllocationFailure(void) {
  int loaded = 0;
  for (long n = 1; n < 5000 && !loaded; n++) {
    hsError err = {0};
    hsu_failAllocAfter(n);
    hsBody *b = load("hrpsim-primitive:sphere?radius=0.2&mass=1", &err);
    hsu_failAllocAfter(0);
    CU_ASSERT(b != NULL || err.code == hsE_NOMEM);
    if (b) {
      loaded = 1;
      hsm_freeBody(b);
    }
  }
  CU_ASSERT(loaded);
}

void register_primitive(void) {
  CU_pSuite s = hst_addSuite("primitive");
  CU_add_test(s, "box: shape, closed-form inertia, colour, free root", testBox);
  CU_add_test(s, "sphere, cylinder along z, plane fixed below z = 0", testSphereCylinderPlane);
  CU_add_test(s, "bad parameters are hsE_INVALID naming the URL", testRefusals);
  CU_add_test(s, "allocation failure", testAllocationFailure);
}
