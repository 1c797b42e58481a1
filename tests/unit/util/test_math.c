// test_math.c - rotation and transform helpers against hand-computed values.

#include <math.h>

#include "test_support.h"
#include "util.h"

static void testAxisAngleRoundTrip(void) {
  // 90 degrees about z maps x to y
  double aa[4] = {0, 0, 2, HS_PI / 2}, R[9], v[3], x[3] = {1, 0, 0};
  hsu_axisAngleToMat(R, aa);
  hsu_rotVec(v, R, x);
  HST_NEAR(v[0], 0, 1e-15);
  HST_NEAR(v[1], 1, 1e-15);
  HST_NEAR(v[2], 0, 1e-15);
  double back[4];
  hsu_matToAxisAngle(back, R);
  HST_NEAR(back[2], 1, 1e-12);
  HST_NEAR(back[3], HS_PI / 2, 1e-12);
  // a half turn about a skew axis survives the near-pi branch
  double n = sqrt(3.0);
  double skew[4] = {1 / n, 1 / n, 1 / n, HS_PI};
  hsu_axisAngleToMat(R, skew);
  hsu_matToAxisAngle(back, R);
  HST_NEAR(back[3], HS_PI, 1e-9);
  HST_NEAR(fabs(back[0]), 1 / n, 1e-9);
  HST_NEAR(back[0] * back[1], 1.0 / 3, 1e-9);
  // a tiny angle keeps its axis (it must not be taken for a half turn)
  double tiny[4] = {0.6, 0.8, 0, 3e-7};
  hsu_axisAngleToMat(R, tiny);
  hsu_matToAxisAngle(back, R);
  HST_NEAR(back[0], 0.6, 1e-6);
  HST_NEAR(back[1], 0.8, 1e-6);
  HST_NEAR(back[3], 3e-7, 1e-15);
}

static void testTransformCompose(void) {
  // T1: translate (1,0,0); T2: rotate 90 deg about z; T1*T2 applied to (1,0,0) = (1,1,0)
  double R[9], I[9], t0[3] = {0, 0, 0}, t1[3] = {1, 0, 0};
  double aa[4] = {0, 0, 1, HS_PI / 2};
  hsu_axisAngleToMat(R, aa);
  hsu_setIdentity(I);
  double A[12], B[12], C[12], p[3], x[3] = {1, 0, 0};
  hsu_makeTransform(A, I, t1);
  hsu_makeTransform(B, R, t0);
  hsu_mulTransform(C, A, B);
  hsu_transformPoint(p, C, x);
  HST_NEAR(p[0], 1, 1e-15);
  HST_NEAR(p[1], 1, 1e-15);
  CU_ASSERT_TRUE(hsu_isRigid(C, 1e-9));
  C[1] *= 2;
  CU_ASSERT_FALSE(hsu_isRigid(C, 1e-9));
}

static void testFirstErrorWins(void) {
  hsError err = {0};
  CU_ASSERT_EQUAL(HS_ERR_AT(&err, hsE_SYNTAX, "a.wrl", 3, 7, "bad %s", "thing"), hsE_SYNTAX);
  HS_ERR(&err, hsE_IO, "later");
  char buf[600];
  CU_ASSERT_STRING_EQUAL(hsu_formatError(&err, buf, sizeof buf), "a.wrl:3:7: bad thing");
  CU_ASSERT_EQUAL(HS_ERR(NULL, hsE_IO, "nowhere"), hsE_IO);
}

static void testVecAndAllocFailure(void) {
  hsuVec v = {0};
  for (int i = 0; i < 100; i++) {
    int *slot = hsu_vecPush(&v, sizeof(int), &i);
    CU_ASSERT_PTR_NOT_NULL_FATAL(slot);
  }
  CU_ASSERT_EQUAL(((int *)v.data)[99], 99);
  hsu_vecFree(&v);
  hsu_failAllocAfter(1);
  CU_ASSERT_PTR_NULL(hsu_malloc(10));
  void *p = hsu_malloc(10);
  CU_ASSERT_PTR_NOT_NULL(p);
  hsu_free(p);
}

void register_math(void) {
  CU_pSuite s = hst_addSuite("util_math");
  CU_add_test(s, "axis-angle round trip", testAxisAngleRoundTrip);
  CU_add_test(s, "transform compose", testTransformCompose);
  CU_add_test(s, "first error wins", testFirstErrorWins);
  CU_add_test(s, "vector and allocation failure", testVecAndAllocFailure);
}
