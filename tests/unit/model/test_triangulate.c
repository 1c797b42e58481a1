// test_triangulate.c - ear clipping of single polygons: convex, non-convex, tilted in 3D, with
// collinear, repeated and spike points, keyholes, degenerate input, and random star-shaped
// polygons.
//
// A triangulation is accepted when its triangles all turn the polygon's way, have area, cover
// exactly the polygon's area, and lie inside the polygon (each centroid inside it).

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh.h"
#include "test_support.h"

// 2D polygon (x, y) to 3D points (x, y, 0)
static double *lift(const double *xy, int n) {
  double *p = malloc(3 * (size_t)n * sizeof *p);
  for (int i = 0; i < n; i++) {
    p[3 * i] = xy[2 * i], p[3 * i + 1] = xy[2 * i + 1], p[3 * i + 2] = 0;
  }
  return p;
}

// signed area of a 2D polygon (shoelace)
static double shoelace(const double *xy, int n) {
  double a = 0;
  for (int i = 0; i < n; i++) {
    const double *p = xy + 2 * i, *q = xy + 2 * ((i + 1) % n);
    a += p[0] * q[1] - q[0] * p[1];
  }
  return a / 2;
}

// 1 if (x, y) is strictly inside the polygon (even-odd rule)
static int insidePolygon(const double *xy, int n, double x, double y) {
  int in = 0;
  for (int i = 0, j = n - 1; i < n; j = i++) {
    const double *a = xy + 2 * i, *b = xy + 2 * j;
    if ((a[1] > y) != (b[1] > y) && x < (b[0] - a[0]) * (y - a[1]) / (b[1] - a[1]) + a[0]) {
      in = !in;
    }
  }
  return in;
}

// triangulate a 2D polygon and check the result; returns the number of triangles
static int checkPolygon(const double *xy, int n) {
  if (n < 3 || n > 100000) {
    CU_FAIL("bad test polygon");
    return -1;
  }
  double *p = lift(xy, n);
  int *tris = malloc(3 * (size_t)(n - 2) * sizeof *tris);
  int nt = hsm_triangulatePolygon(p, n, tris, NULL);
  CU_ASSERT(nt >= 0 && nt <= n - 2);
  double area = shoelace(xy, n), sign = area > 0 ? 1 : -1, sum = 0;
  for (int t = 0; t < nt; t++) {
    const int *v = tris + 3 * t;
    CU_ASSERT(v[0] >= 0 && v[0] < n && v[1] >= 0 && v[1] < n && v[2] >= 0 && v[2] < n);
    double tri[6] = {xy[2 * v[0]], xy[2 * v[0] + 1], xy[2 * v[1]], xy[2 * v[1] + 1],
                     xy[2 * v[2]], xy[2 * v[2] + 1]};
    double a = shoelace(tri, 3) * sign;
    CU_ASSERT(a > 0);  // the polygon's own winding, with area
    sum += a;
    double cx = (tri[0] + tri[2] + tri[4]) / 3, cy = (tri[1] + tri[3] + tri[5]) / 3;
    CU_ASSERT(insidePolygon(xy, n, cx, cy));
  }
  HST_NEAR(sum, fabs(area), 1e-9 * (1 + fabs(area)));
  free(p);
  free(tris);
  return nt;
}

static void testConvex(void) {
  double square[8] = {0, 0, 1, 0, 1, 1, 0, 1};
  CU_ASSERT_EQUAL(checkPolygon(square, 4), 2);
  double cw[8] = {0, 0, 0, 1, 1, 1, 1, 0};
  CU_ASSERT_EQUAL(checkPolygon(cw, 4), 2);
  double tri[6] = {0, 0, 2, 0, 0, 3};
  CU_ASSERT_EQUAL(checkPolygon(tri, 3), 1);
  double hexagon[12];
  for (int i = 0; i < 6; i++) {
    hexagon[2 * i] = cos(HS_PI / 3 * i), hexagon[2 * i + 1] = sin(HS_PI / 3 * i);
  }
  CU_ASSERT_EQUAL(checkPolygon(hexagon, 6), 4);
}

static void testNonConvex(void) {
  // an L
  double ell[12] = {0, 0, 2, 0, 2, 1, 1, 1, 1, 2, 0, 2};
  CU_ASSERT_EQUAL(checkPolygon(ell, 6), 4);
  // a five-pointed star
  double star[20];
  for (int i = 0; i < 10; i++) {
    double r = i % 2 ? 0.4 : 1, a = HS_PI / 2 + HS_PI / 5 * i;
    star[2 * i] = r * cos(a), star[2 * i + 1] = r * sin(a);
  }
  CU_ASSERT_EQUAL(checkPolygon(star, 10), 8);
  // a comb with 10 teeth (many reflex points, ears only at the tips)
  double comb[2 * 42];
  int n = 0;
  comb[n++] = 0, comb[n++] = 0;
  comb[n++] = 20, comb[n++] = 0;
  for (int k = 9; k >= 0; k--) {
    double x = 2 * k;
    comb[n++] = x + 2, comb[n++] = 5;
    comb[n++] = x + 1, comb[n++] = 5;
    comb[n++] = x + 1, comb[n++] = 1;
    comb[n++] = x, comb[n++] = 1;
  }
  CU_ASSERT_EQUAL(n, 84);
  CU_ASSERT_EQUAL(checkPolygon(comb, 42), 40);
  // a spiral-like U with a narrow slot
  double u[16] = {0, 0, 3, 0, 3, 3, 2, 3, 2, 0.001, 1, 0.001, 1, 3, 0, 3};
  CU_ASSERT_EQUAL(checkPolygon(u, 8), 6);
}

static void testTilted3D(void) {
  // the L in a tilted plane: triangles follow its winding in 3D
  double ell[12] = {0, 0, 2, 0, 2, 1, 1, 1, 1, 2, 0, 2};
  double R[9], aa[4] = {1, 2, 3, 1.1}, p[18];
  hsu_axisAngleToMat(R, aa);
  for (int i = 0; i < 6; i++) {
    double q[3] = {ell[2 * i], ell[2 * i + 1], 0};
    hsu_rotVec(p + 3 * i, R, q);
    p[3 * i] += 5, p[3 * i + 1] -= 2;
  }
  int tris[12];
  CU_ASSERT_EQUAL_FATAL(hsm_triangulatePolygon(p, 6, tris, NULL), 4);
  double z[3] = {0, 0, 1}, normal[3], area = 0;
  hsu_rotVec(normal, R, z);
  for (int t = 0; t < 4; t++) {
    const double *a = p + 3 * tris[3 * t], *b = p + 3 * tris[3 * t + 1];
    const double *c = p + 3 * tris[3 * t + 2];
    double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]}, x[3];
    hsu_cross(x, u, v);
    CU_ASSERT(hsu_dot(x, normal) > 0);
    area += hsu_norm(x) / 2;
  }
  HST_NEAR(area, 3, 1e-12);
  // a slightly non-planar quad still gives 2 triangles
  double warped[12] = {0, 0, 0, 1, 0, 0.05, 1, 1, 0, 0, 1, 0.05};
  CU_ASSERT_EQUAL(hsm_triangulatePolygon(warped, 4, tris, NULL), 2);
}

static void testDegenerate(void) {
  // points on the edges are kept (shared with neighbouring faces): n - 2 triangles
  double mid[16] = {0, 0, 0.5, 0, 1, 0, 1, 0.5, 1, 1, 0.5, 1, 0, 1, 0, 0.5};
  CU_ASSERT_EQUAL(checkPolygon(mid, 8), 6);
  // a repeated point: one triangle fewer, same area
  double dup[10] = {0, 0, 1, 0, 1, 0, 1, 1, 0, 1};
  CU_ASSERT_EQUAL(checkPolygon(dup, 5), 2);
  // a spike out and back, with its root repeated
  double spike[12] = {0, 0, 2, 0, 2, 2, 3, 3, 2, 2, 0, 2};
  int nt = checkPolygon(spike, 6);
  CU_ASSERT(nt >= 2 && nt <= 4);
  // a keyhole: a square with a square hole joined by a bridge (points repeated)
  double keyhole[20] = {0, 0, 4, 0, 4, 4, 0, 4, 0, 0, 1, 1, 1, 3, 3, 3, 3, 1, 1, 1};
  CU_ASSERT_EQUAL(checkPolygon(keyhole, 10), 8);
  // no area at all: no triangles, no error
  double line[8] = {0, 0, 1, 1, 2, 2, 3, 3};
  double *p = lift(line, 4);
  int tris[6];
  CU_ASSERT_EQUAL(hsm_triangulatePolygon(p, 4, tris, NULL), 0);
  free(p);
  double same[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  CU_ASSERT_EQUAL(hsm_triangulatePolygon(same, 3, tris, NULL), 0);
  // bad arguments
  hsError err = {0};
  CU_ASSERT_EQUAL(hsm_triangulatePolygon(same, 2, tris, &err), hsE_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "3 points"));
  double nan3[9] = {0, 0, 0, 1, 0, 0, NAN, 1, 0};
  CU_ASSERT_EQUAL(hsm_triangulatePolygon(nan3, 3, tris, NULL), hsE_INVALID);
}

static void testRandomStars(void) {
  // star-shaped polygons (sorted random angles, random radii) are simple; large ones use the
  // heap scratch path
  srand(12345);
  for (int iter = 0; iter < 300; iter++) {
    int n = 3 + rand() % (iter < 290 ? 60 : 400);
    double *ang = malloc((size_t)n * sizeof *ang), *xy = malloc(2 * (size_t)n * sizeof *xy);
    for (int i = 0; i < n; i++) {
      ang[i] = 2 * HS_PI * (i + 0.8 * rand() / (double)RAND_MAX) / n;
    }
    for (int i = 0; i < n; i++) {
      double r = 0.2 + rand() / (double)RAND_MAX;
      xy[2 * i] = r * cos(ang[i]), xy[2 * i + 1] = r * sin(ang[i]);
    }
    CU_ASSERT_EQUAL(checkPolygon(xy, n), n - 2);
    // the same outline with edge midpoints and repeated points inserted at random
    double *messy = malloc(6 * (size_t)n * sizeof *messy);
    int m = 0;
    for (int i = 0; i < n; i++) {
      const double *a = xy + 2 * i, *b = xy + 2 * ((i + 1) % n);
      messy[2 * m] = a[0], messy[2 * m + 1] = a[1], m++;
      int what = rand() % 4;
      if (what == 1) {
        messy[2 * m] = a[0], messy[2 * m + 1] = a[1], m++;
      } else if (what == 2) {
        messy[2 * m] = (a[0] + b[0]) / 2, messy[2 * m + 1] = (a[1] + b[1]) / 2, m++;
      }
    }
    int nt = checkPolygon(messy, m);
    CU_ASSERT(nt >= n - 2);
    free(messy);
    free(ang);
    free(xy);
  }
}

static void testAllocFailure(void) {
  // a polygon above the stack-scratch size allocates; failure is an error, not a crash
  enum { N = 100 };
  double p[3 * N];
  for (int i = 0; i < N; i++) {
    p[3 * i] = cos(2 * HS_PI * i / N), p[3 * i + 1] = sin(2 * HS_PI * i / N), p[3 * i + 2] = 0;
  }
  int tris[3 * (N - 2)];
  hsError err = {0};
  hsu_failAllocAfter(2);
  CU_ASSERT_EQUAL(hsm_triangulatePolygon(p, N, tris, &err), hsE_NOMEM);
  hsu_failAllocAfter(0);
  CU_ASSERT_EQUAL(hsm_triangulatePolygon(p, N, tris, NULL), N - 2);
}

void register_triangulate(void) {
  CU_pSuite s = hst_addSuite("model_triangulate");
  CU_add_test(s, "convex", testConvex);
  CU_add_test(s, "non-convex", testNonConvex);
  CU_add_test(s, "tilted in 3D", testTilted3D);
  CU_add_test(s, "degenerate points", testDegenerate);
  CU_add_test(s, "random star-shaped polygons", testRandomStars);
  CU_add_test(s, "allocation failure", testAllocFailure);
}
