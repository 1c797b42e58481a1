// util_math.c - small fixed-size vector, rotation and rigid-transform helpers.
//
// Matrices are row-major; a 3x4 transform holds the rows of [R t].

#include <math.h>
#include <string.h>

#include "util.h"

double hsu_adjugate3(const double a[9], double adj[9]) {
  adj[0] = a[4] * a[8] - a[5] * a[7];
  adj[1] = a[2] * a[7] - a[1] * a[8];
  adj[2] = a[1] * a[5] - a[2] * a[4];
  adj[3] = a[5] * a[6] - a[3] * a[8];
  adj[4] = a[0] * a[8] - a[2] * a[6];
  adj[5] = a[2] * a[3] - a[0] * a[5];
  adj[6] = a[3] * a[7] - a[4] * a[6];
  adj[7] = a[1] * a[6] - a[0] * a[7];
  adj[8] = a[0] * a[4] - a[1] * a[3];
  return a[0] * adj[0] + a[1] * adj[3] + a[2] * adj[6];
}

void hsu_matToAxisAngle(double aa[4], const double R[9]) {
  // |v| = 2 sin(angle), trace - 1 = 2 cos(angle); atan2 stays accurate near 0 and pi
  double c = (R[0] + R[4] + R[8] - 1) / 2;
  double v[3] = {R[7] - R[5], R[2] - R[6], R[3] - R[1]};
  double s = hsu_norm(v);
  double angle = atan2(s / 2, c);
  if (angle < 1e-12) {
    aa[0] = 0, aa[1] = 0, aa[2] = 1, aa[3] = 0;
    return;
  }
  // away from pi the antisymmetric part gives the axis (for small angles too: v ~ 2 angle axis)
  if (s > 1e-6 || c > 0) {
    aa[0] = v[0] / s, aa[1] = v[1] / s, aa[2] = v[2] / s, aa[3] = angle;
    return;
  }
  // angle near pi: the axis comes from the symmetric part R + I = 2 a a^T (largest diagonal)
  int k = 0;
  if (R[4] > R[0]) {
    k = 1;
  }
  if (R[8] > R[3 * k + k]) {
    k = 2;
  }
  double a[3];
  a[k] = sqrt((R[3 * k + k] + 1) / 2);
  for (int i = 0; i < 3; i++) {
    if (i != k) {
      a[i] = (R[3 * i + k] + R[3 * k + i]) / (4 * a[k]);
    }
  }
  double n = hsu_norm(a);
  // keep the sign consistent with the small antisymmetric remainder
  if (hsu_dot(a, v) < 0) {
    n = -n;
  }
  aa[0] = a[0] / n, aa[1] = a[1] / n, aa[2] = a[2] / n, aa[3] = angle;
}

void hsu_makeTransform(double T[12], const double R[9], const double t[3]) {
  for (int i = 0; i < 3; i++) {
    T[4 * i] = R[3 * i];
    T[4 * i + 1] = R[3 * i + 1];
    T[4 * i + 2] = R[3 * i + 2];
    T[4 * i + 3] = t[i];
  }
}

void hsu_mulTransform(double res[12], const double A[12], const double B[12]) {
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 4; j++) {
      double s = A[4 * i] * B[j] + A[4 * i + 1] * B[4 + j] + A[4 * i + 2] * B[8 + j];
      res[4 * i + j] = j == 3 ? s + A[4 * i + 3] : s;
    }
  }
}

void hsu_transformPoint(double res[3], const double T[12], const double p[3]) {
  for (int i = 0; i < 3; i++) {
    res[i] = T[4 * i] * p[0] + T[4 * i + 1] * p[1] + T[4 * i + 2] * p[2] + T[4 * i + 3];
  }
}

void hsu_splitTransform(double R[9], double t[3], const double T[12]) {
  for (int i = 0; i < 3; i++) {
    R[3 * i] = T[4 * i];
    R[3 * i + 1] = T[4 * i + 1];
    R[3 * i + 2] = T[4 * i + 2];
    t[i] = T[4 * i + 3];
  }
}

int hsu_isRigid(const double T[12], double tol) {
  double R[9], t[3], RtR[9], Rt[9];
  hsu_splitTransform(R, t, T);
  hsu_transpose(Rt, R);
  hsu_mulMat(RtR, Rt, R);
  for (int i = 0; i < 9; i++) {
    double want = (i % 4 == 0) ? 1.0 : 0.0;
    if (fabs(RtR[i] - want) > tol) {
      return 0;
    }
  }
  double det = R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) +
               R[2] * (R[3] * R[7] - R[4] * R[6]);
  return det > 0;
}

int hsu_allFinite(const double *v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(v[i])) {
      return 0;
    }
  }
  return 1;
}
