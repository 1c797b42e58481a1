// test_kinematics.c - joint paths, Jacobians and inverse kinematics (model_jacobian.c,
// model_ik.c).
//
// Jacobians are checked against central finite differences of forward kinematics with the base
// link held still (step 1e-7, agreement 1e-6), and against the hand-written formula of a planar
// two-link arm (1e-12). Inverse kinematics is checked on goals made by forward kinematics of
// another configuration, with errors measured here independently of the solver (1e-6 m,
// 1e-6 rad), and on goals it must refuse, after which the state must be bit-identical.

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "openhrp_fixtures.h"
#include "test_support.h"

// a planar arm on a fixed base: L1 (z, at the origin), L2 (z, 0.4 along L1's x), HAND fixed
// 0.3 along L2's x; limits L1 [-0.5, 0.5], L2 [0, 1]
static const char *kPlanar =
    "DEF PLANAR Humanoid { humanoidBody [\n"
    "DEF BASE Joint { jointType \"fixed\" children [\n"
    " Segment { mass 1 momentsOfInertia [1 0 0 0 1 0 0 0 1] }\n"
    " DEF L1 Joint { jointType \"rotate\" jointId 0 jointAxis 0 0 1 llimit [-0.5] ulimit [0.5]\n"
    "  children [ Segment { mass 1 momentsOfInertia [1 0 0 0 1 0 0 0 1] }\n"
    "  DEF L2 Joint { jointType \"rotate\" jointId 1 jointAxis 0 0 1 translation 0.4 0 0\n"
    "   llimit [0] ulimit [1]\n"
    "   children [ Segment { mass 1 momentsOfInertia [1 0 0 0 1 0 0 0 1] }\n"
    "   DEF HAND Joint { jointType \"fixed\" translation 0.3 0 0\n"
    "    children [ Segment { mass 1 momentsOfInertia [1 0 0 0 1 0 0 0 1] } ] } ] } ] } ] } ]\n"
    "joints [ USE BASE USE L1 USE L2 USE HAND ] }\n";

// a branching tree with a free, turned root, rotated joint frames, slide joints and one rotate
// joint without a jointId (U). Depth-first: ROOT 0, A 1, B 2, C 3, U 4, D 5, E 6, F 7, G 8.
#define SEG " Segment { mass 1 momentsOfInertia [1 0 0 0 1 0 0 0 1] }\n"
static const char *kTree =
    "DEF TREE Humanoid { humanoidBody [\n"
    "DEF ROOT Joint { jointType \"free\" translation 0.1 0.2 0.3 rotation 0 0 1 0.4 children [\n"
    SEG
    " DEF A Joint { jointType \"rotate\" jointId 0 jointAxis 0 0.6 0.8 translation 0.2 0 0\n"
    "  rotation 1 0 0 0.3 children [\n" SEG
    "  DEF B Joint { jointType \"slide\" jointId 1 jointAxis 1 0 0 translation 0 0.3 0\n"
    "   rotation 0 1 0 -0.5 children [\n" SEG
    "   DEF C Joint { jointType \"rotate\" jointId 2 jointAxis 0 1 0 translation 0 0 0.25\n"
    "    children [\n" SEG
    "    DEF U Joint { jointType \"rotate\" jointAxis 1 0 0 translation 0.1 0 0 children [\n"
    SEG " ] } ] } ] }\n"
    "  DEF D Joint { jointType \"rotate\" jointId 3 jointAxis 1 0 0 translation 0 0 0.2\n"
    "   children [\n" SEG
    "   DEF E Joint { jointType \"slide\" jointId 4 jointAxis 0 0 1 translation 0.1 0.1 0\n"
    "    children [\n" SEG " ] } ] } ] }\n"
    " DEF F Joint { jointType \"rotate\" jointId 5 jointAxis 0 0 1 translation -0.2 0 0\n"
    "  children [\n" SEG
    "  DEF G Joint { jointType \"rotate\" jointId 6 jointAxis 0 1 0 translation 0 0 -0.3\n"
    "   children [\n" SEG " ] } ] } ] } ]\n"
    "joints [ USE ROOT USE A USE B USE C USE U USE D USE E USE F USE G ] }\n";

//---------------------------------- helpers ---------------------------------------------------

// xorshift64*: a deterministic uniform number in [0, 1)
static double rnd(uint64_t *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return (double)((*s * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

static double uniform(uint64_t *s, double lo, double hi) {
  return lo + (hi - lo) * rnd(s);
}

static int isNumbered1Dof(const hsLink *l) {
  return l->jointId >= 0 && (l->jointType == hsJOINT_ROTATE || l->jointType == hsJOINT_SLIDE);
}

// the joint's range shrunk by margin, or [-1, 1] without limits
static void range(const hsLink *l, double margin, double *lo, double *hi) {
  *lo = l->llimit.n ? l->llimit.v[0] + margin : -1;
  *hi = l->ulimit.n ? l->ulimit.v[0] - margin : 1;
}

// every numbered joint random within its limits, and (free root) a random root pose
static void randomConfig(const hsBody *b, hsBodyState *st, uint64_t *s) {
  for (int i = 0; i < b->nlink; i++) {
    if (isNumbered1Dof(&b->links[i])) {
      double lo, hi;
      range(&b->links[i], 0.05, &lo, &hi);
      st->q[i] = uniform(s, lo, hi);
    }
  }
  if (b->links[0].jointType == hsJOINT_FREE) {
    double aa[4] = {uniform(s, -1, 1), uniform(s, -1, 1), uniform(s, -1, 1), uniform(s, -2, 2)};
    hsu_axisAngleToMat(st->rootR, aa);
    for (int k = 0; k < 3; k++) {
      st->rootP[k] = uniform(s, -1, 1);
    }
  }
  hsm_forwardKinematics(b, st);
}

// the vector of the antisymmetric part of R: sin(angle) * axis
static void vee(double v[3], const double R[9]) {
  v[0] = (R[7] - R[5]) / 2;
  v[1] = (R[2] - R[6]) / 2;
  v[2] = (R[3] - R[1]) / 2;
}

// the angle between two rotations [rad]
static double angleBetween(const double A[9], const double B[9]) {
  double BT[9], D[9], v[3];
  hsu_transpose(BT, B);
  hsu_mulMat(D, A, BT);
  vee(v, D);
  return atan2(hsu_norm(v), (D[0] + D[4] + D[8] - 1) / 2);
}

static double distance(const double a[3], const double b[3]) {
  double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  return hsu_norm(d);
}

// target's pose as it would be with base moved back to (pb0, Rb0): Rb0 Rb^T (pt - pb) + pb0
static void poseWithBaseAt(const hsBodyState *st, int base, int target, const double pb0[3],
                           const double Rb0[9], double p[3], double R[9]) {
  const double *pb = st->linkP + 3 * base, *Rb = st->linkR + 9 * base;
  const double *pt = st->linkP + 3 * target, *Rt = st->linkR + 9 * target;
  double RbT[9], G[9], d[3], Gd[3];
  hsu_transpose(RbT, Rb);
  hsu_mulMat(G, Rb0, RbT);
  for (int k = 0; k < 3; k++) {
    d[k] = pt[k] - pb[k];
  }
  hsu_rotVec(Gd, G, d);
  for (int k = 0; k < 3; k++) {
    p[k] = pb0[k] + Gd[k];
  }
  hsu_mulMat(R, G, Rt);
}

// move the root so that link base is at (pb0, Rb0), then forward kinematics
static void putBaseAt(const hsBody *b, hsBodyState *st, int base, const double pb0[3],
                      const double Rb0[9]) {
  hsm_forwardKinematics(b, st);
  double p[3], R[9];
  poseWithBaseAt(st, base, 0, pb0, Rb0, p, R);
  memcpy(st->rootP, p, sizeof p);
  memcpy(st->rootR, R, sizeof R);
  hsm_forwardKinematics(b, st);
}

// a snapshot of everything IK may touch
typedef struct Snapshot {
  double *q, *linkP, *linkR;
  double rootP[3], rootR[9];
} Snapshot;

static void takeSnapshot(Snapshot *s, const hsBody *b, const hsBodyState *st) {
  size_t n = (size_t)b->nlink;
  s->q = malloc(n * sizeof(double));
  s->linkP = malloc(3 * n * sizeof(double));
  s->linkR = malloc(9 * n * sizeof(double));
  memcpy(s->q, st->q, n * sizeof(double));
  memcpy(s->linkP, st->linkP, 3 * n * sizeof(double));
  memcpy(s->linkR, st->linkR, 9 * n * sizeof(double));
  memcpy(s->rootP, st->rootP, sizeof s->rootP);
  memcpy(s->rootR, st->rootR, sizeof s->rootR);
}

// 1 if state is bit for bit the snapshot
static int sameAsSnapshot(const Snapshot *s, const hsBody *b, const hsBodyState *st) {
  size_t n = (size_t)b->nlink;
  return memcmp(s->q, st->q, n * sizeof(double)) == 0 &&
         memcmp(s->linkP, st->linkP, 3 * n * sizeof(double)) == 0 &&
         memcmp(s->linkR, st->linkR, 9 * n * sizeof(double)) == 0 &&
         memcmp(s->rootP, st->rootP, sizeof s->rootP) == 0 &&
         memcmp(s->rootR, st->rootR, sizeof s->rootR) == 0;
}

static void restoreSnapshot(const Snapshot *s, const hsBody *b, hsBodyState *st) {
  size_t n = (size_t)b->nlink;
  memcpy(st->q, s->q, n * sizeof(double));
  memcpy(st->linkP, s->linkP, 3 * n * sizeof(double));
  memcpy(st->linkR, s->linkR, 9 * n * sizeof(double));
  memcpy(st->rootP, s->rootP, sizeof s->rootP);
  memcpy(st->rootR, s->rootR, sizeof s->rootR);
}

static void freeSnapshot(Snapshot *s) {
  free(s->q);
  free(s->linkP);
  free(s->linkR);
}

static int linkOf(const hsBody *b, const char *name) {
  int i = hsm_linkIndex(b, name);
  if (i < 0) {
    fprintf(stderr, "\n  no link %s\n", name);
  }
  CU_ASSERT_FATAL(i >= 0);
  return i;
}

//---------------------------------- joint paths -----------------------------------------------

// assert the path from base to target is exactly names[] with signs[]
static void expectPath(const hsBody *b, const char *base, const char *target, int n,
                       const char *const *names, const int *signs) {
  int links[64], sg[64];
  hsError err = {0};
  int got = hsm_jointPath(b, linkOf(b, base), linkOf(b, target), links, sg, 64, &err);
  CU_ASSERT_EQUAL(got, n);
  for (int i = 0; i < n && i < got; i++) {
    CU_ASSERT_STRING_EQUAL(b->links[links[i]].name, names[i]);
    CU_ASSERT_EQUAL(sg[i], signs[i]);
  }
  CU_ASSERT_EQUAL(err.code, 0);
}

static void testPathHumanoid(void) {
  hsBody *b = hst_loadSample("humanoid/humanoid.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  static const char *leg[] = {"RLEG_HIP_Y",   "RLEG_HIP_R",  "RLEG_HIP_P",
                              "RLEG_KNEE",    "RLEG_ANKLE_P", "RLEG_ANKLE_R"};
  static const int down6[] = {1, 1, 1, 1, 1, 1}, up6[] = {-1, -1, -1, -1, -1, -1};
  expectPath(b, "WAIST", "RLEG_ANKLE_R", 6, leg, down6);
  static const char *legUp[] = {"RLEG_ANKLE_R", "RLEG_ANKLE_P", "RLEG_KNEE",
                                "RLEG_HIP_P",   "RLEG_HIP_R",   "RLEG_HIP_Y"};
  expectPath(b, "RLEG_ANKLE_R", "WAIST", 6, legUp, up6);
  // foot to hand across the root: up the leg, down the chest and the arm
  static const char *footHand[] = {
      "RLEG_ANKLE_R",    "RLEG_ANKLE_P",    "RLEG_KNEE",       "RLEG_HIP_P",
      "RLEG_HIP_R",      "RLEG_HIP_Y",      "CHEST_P",         "CHEST_Y",
      "LARM_SHOULDER_P", "LARM_SHOULDER_R", "LARM_SHOULDER_Y", "LARM_ELBOW",
      "LARM_WRIST_Y",    "LARM_WRIST_P",    "LARM_WRIST_R"};
  static const int footHandSigns[] = {-1, -1, -1, -1, -1, -1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  expectPath(b, "RLEG_ANKLE_R", "LARM_WRIST_R", 15, footHand, footHandSigns);
  // hand to hand: the common ancestor CHEST_Y moves both hands alike and is not on the path
  static const char *hands[] = {"RARM_WRIST_P",    "RARM_WRIST_Y",    "RARM_ELBOW",
                                "RARM_SHOULDER_Y", "RARM_SHOULDER_R", "RARM_SHOULDER_P",
                                "LARM_SHOULDER_P", "LARM_SHOULDER_R", "LARM_SHOULDER_Y",
                                "LARM_ELBOW",      "LARM_WRIST_Y"};
  static const int handSigns[] = {-1, -1, -1, -1, -1, -1, 1, 1, 1, 1, 1};
  expectPath(b, "RARM_WRIST_P", "LARM_WRIST_Y", 11, hands, handSigns);
  // base == target; base a descendant of target; target below the base's parent
  expectPath(b, "RLEG_KNEE", "RLEG_KNEE", 0, NULL, NULL);
  static const char *kneeUp[] = {"RLEG_ANKLE_P", "RLEG_KNEE"};
  static const int kneeUpSigns[] = {-1, -1};
  expectPath(b, "RLEG_ANKLE_P", "RLEG_HIP_P", 2, kneeUp, kneeUpSigns);
  static const char *neck[] = {"NECK_Y", "NECK_P"};
  static const int neckSigns[] = {1, 1};
  expectPath(b, "CHEST_Y", "NECK_P", 2, neck, neckSigns);
  // truncated output still counts every joint and writes only what fits
  int links[3] = {-7, -7, -7};
  CU_ASSERT_EQUAL(hsm_jointPath(b, 0, linkOf(b, "RLEG_ANKLE_R"), links, NULL, 2, NULL), 6);
  CU_ASSERT_EQUAL(links[0], linkOf(b, "RLEG_HIP_Y"));
  CU_ASSERT_EQUAL(links[1], linkOf(b, "RLEG_HIP_R"));
  CU_ASSERT_EQUAL(links[2], -7);
  CU_ASSERT_EQUAL(hsm_jointPath(b, linkOf(b, "RLEG_ANKLE_R"), 0, links, NULL, 2, NULL), 6);
  CU_ASSERT_EQUAL(links[0], linkOf(b, "RLEG_ANKLE_R"));
  CU_ASSERT_EQUAL(links[2], -7);
  // bad indices
  hsError err = {0};
  CU_ASSERT_EQUAL(hsm_jointPath(b, 0, b->nlink, links, NULL, 3, &err), hsE_INVALID);
  CU_ASSERT_EQUAL(err.code, hsE_INVALID);
  CU_ASSERT_EQUAL(hsm_jointPath(b, -1, 0, NULL, NULL, 0, NULL), hsE_INVALID);
  hsm_freeBody(b);
}

static void testPathTree(void) {
  hsBody *b = hst_loadVrmlText("tree.wrl", kTree);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL_FATAL(b->nlink, 9);
  CU_ASSERT_EQUAL(b->links[linkOf(b, "U")].jointId, -1);
  // U has no jointId, A is the common ancestor: neither is on the path
  static const char *ue[] = {"C", "B", "D", "E"};
  static const int ueSigns[] = {-1, -1, 1, 1};
  expectPath(b, "U", "E", 4, ue, ueSigns);
  static const char *ge[] = {"G", "F", "A", "D", "E"};
  static const int geSigns[] = {-1, -1, 1, 1, 1};
  expectPath(b, "G", "E", 5, ge, geSigns);
  static const char *ru[] = {"A", "B", "C"};
  static const int ruSigns[] = {1, 1, 1};
  expectPath(b, "ROOT", "U", 3, ru, ruSigns);
  hsm_freeBody(b);
}

//---------------------------------- Jacobian --------------------------------------------------

// compare the Jacobian of target relative to base with central differences of forward
// kinematics (base held still) for every numbered joint of the body: path joints must match
// their column, every other joint must leave the relative pose still
static void checkJacobianFd(const hsBody *b, hsBodyState *st, int base, int target) {
  const double h = 1e-7, tol = 1e-6;
  hsError err = {0};
  int n = hsm_jacobian(b, st, base, target, NULL, 0, &err);
  CU_ASSERT_FATAL(n >= 0);
  double *J = malloc((size_t)(6 * n + 1) * sizeof(double));
  int *links = malloc((size_t)(n + 1) * sizeof(int));
  CU_ASSERT_EQUAL(hsm_jointPath(b, base, target, links, NULL, n, NULL), n);
  CU_ASSERT_EQUAL(hsm_jacobian(b, st, base, target, J, n, &err), n);
  CU_ASSERT_EQUAL(err.code, 0);
  double pb0[3], Rb0[9];
  memcpy(pb0, st->linkP + 3 * base, sizeof pb0);
  memcpy(Rb0, st->linkR + 9 * base, sizeof Rb0);
  int checked = 0;
  for (int l = 0; l < b->nlink; l++) {
    if (!isNumbered1Dof(&b->links[l])) {
      continue;
    }
    int c = -1;
    for (int k = 0; k < n; k++) {
      c = links[k] == l ? k : c;
    }
    double q0 = st->q[l], p1[3], R1[9], p2[3], R2[9];
    st->q[l] = q0 + h;
    hsm_forwardKinematics(b, st);
    poseWithBaseAt(st, base, target, pb0, Rb0, p1, R1);
    st->q[l] = q0 - h;
    hsm_forwardKinematics(b, st);
    poseWithBaseAt(st, base, target, pb0, Rb0, p2, R2);
    st->q[l] = q0;
    double R2T[9], D[9], fd[6];
    hsu_transpose(R2T, R2);
    hsu_mulMat(D, R1, R2T);
    vee(fd + 3, D);
    for (int k = 0; k < 3; k++) {
      fd[k] = (p1[k] - p2[k]) / (2 * h);
      fd[3 + k] /= 2 * h;
    }
    for (int r = 0; r < 6; r++) {
      double want = c >= 0 ? J[r * n + c] : 0;
      if (fabs(fd[r] - want) > tol) {
        fprintf(stderr, "\n  %s -> %s, joint %s row %d: J %.9g, differences %.9g\n",
                b->links[base].name, b->links[target].name, b->links[l].name, r, want, fd[r]);
      }
      HST_NEAR(fd[r], want, tol);
    }
    checked += c >= 0;
  }
  CU_ASSERT_EQUAL(checked, n);
  hsm_forwardKinematics(b, st);
  free(J);
  free(links);
}

// checkJacobianFd over named pairs in a few random configurations
static void checkPairs(const char *model, const char *const (*pairs)[2], int npair) {
  hsBody *b = strstr(model, ".wrl") ? hst_loadSample(model) : hst_loadVrmlText("model.wrl", model);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsBodyState *st = hsm_makeState(b, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(st);
  uint64_t seed = 0x9e3779b97f4a7c15ULL;
  for (int trial = 0; trial < 4; trial++) {
    randomConfig(b, st, &seed);
    for (int i = 0; i < npair; i++) {
      checkJacobianFd(b, st, linkOf(b, pairs[i][0]), linkOf(b, pairs[i][1]));
    }
  }
  hsm_freeState(st);
  hsm_freeBody(b);
}

static void testJacobianArm6(void) {
  static const char *const pairs[][2] = {
      {"BASE", "J6"}, {"J6", "BASE"}, {"J2", "J5"}, {"J5", "J2"}, {"J3", "J3"}};
  checkPairs("arm6/arm6.wrl", pairs, 5);
}

static void testJacobianHumanoid(void) {
  static const char *const pairs[][2] = {{"WAIST", "RLEG_ANKLE_R"},
                                         {"RLEG_ANKLE_R", "WAIST"},
                                         {"RLEG_ANKLE_R", "LARM_WRIST_R"},
                                         {"LLEG_ANKLE_R", "RLEG_ANKLE_R"},
                                         {"RARM_WRIST_R", "LARM_WRIST_R"},
                                         {"NECK_P", "LLEG_KNEE"},
                                         {"RLEG_KNEE", "WAIST"}};
  checkPairs("humanoid/humanoid.wrl", pairs, 7);
}

static void testJacobianTree(void) {
  // slide joints crossed both ways, turned joint frames, an unnumbered joint, a free root
  static const char *const pairs[][2] = {{"ROOT", "E"}, {"E", "ROOT"}, {"U", "E"},
                                         {"E", "U"},    {"G", "E"},    {"C", "G"}};
  checkPairs(kTree, pairs, 6);
}

static void testJacobianPlanar(void) {
  // x = a1 c1 + a2 c12, y = a1 s1 + a2 s12, angle = q1 + q2 (all about z)
  hsBody *b = hst_loadVrmlText("planar.wrl", kPlanar);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsBodyState *st = hsm_makeState(b, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(st);
  const double a1 = 0.4, a2 = 0.3, q1 = 0.3, q2 = 0.7;
  int l1 = linkOf(b, "L1"), l2 = linkOf(b, "L2"), hand = linkOf(b, "HAND");
  st->q[l1] = q1, st->q[l2] = q2;
  hsm_forwardKinematics(b, st);
  double J[12];
  CU_ASSERT_EQUAL(hsm_jacobian(b, st, 0, hand, J, 2, NULL), 2);
  double s1 = sin(q1), c1 = cos(q1), s12 = sin(q1 + q2), c12 = cos(q1 + q2);
  double want[12] = {-a1 * s1 - a2 * s12, -a2 * s12, a1 * c1 + a2 * c12, a2 * c12, 0, 0,
                     0, 0, 0, 0, 1, 1};
  for (int k = 0; k < 12; k++) {
    HST_NEAR(J[k], want[k], 1e-12);
  }
  // reversed: the base (HAND) holds still, so the root swings the opposite way about HAND
  CU_ASSERT_EQUAL(hsm_jacobian(b, st, hand, 0, J, 2, NULL), 2);
  // columns in path order HAND -> BASE, L2 then L1, each -[w x (0 - p_joint); w] with w = z:
  // L2's origin is (a1 c1, a1 s1, 0), L1's the origin itself
  double px = a1 * c1, py = a1 * s1;
  double wantRev[12] = {-py, 0, px, 0, 0, 0, 0, 0, 0, 0, -1, -1};
  for (int k = 0; k < 12; k++) {
    HST_NEAR(J[k], wantRev[k], 1e-12);
  }
  hsm_freeState(st);
  hsm_freeBody(b);
}

static void testJacobianErrors(void) {
  hsBody *b = hst_loadSample("arm6/arm6.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsBodyState *st = hsm_makeState(b, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(st);
  double J[36];
  hsError err = {0};
  CU_ASSERT_EQUAL(hsm_jacobian(b, st, 0, 6, NULL, 0, &err), 6);  // count only
  CU_ASSERT_EQUAL(hsm_jacobian(b, st, 0, 6, J, 5, &err), hsE_INVALID);  // no room
  CU_ASSERT_EQUAL(err.code, hsE_INVALID);
  hsu_clearError(&err);
  CU_ASSERT_EQUAL(hsm_jacobian(b, st, 0, 7, J, 6, &err), hsE_INVALID);
  CU_ASSERT_EQUAL(err.code, hsE_INVALID);
  CU_ASSERT_EQUAL(hsm_jacobian(b, NULL, 0, 6, J, 6, NULL), hsE_INVALID);
  CU_ASSERT_EQUAL(hsm_jacobian(b, st, 3, 3, J, 6, NULL), 0);
  hsm_freeState(st);
  hsm_freeBody(b);
}

//---------------------------------- inverse kinematics ----------------------------------------

// the reached pose must be the goal (1e-6 m, 1e-6 rad, measured here), q within limits
static void expectReached(const hsBody *b, const hsBodyState *st, int target, const double p[3],
                          const double R[9]) {
  double ep = distance(st->linkP + 3 * target, p);
  double er = angleBetween(st->linkR + 9 * target, R);
  if (ep > 1e-6 || er > 1e-6) {
    fprintf(stderr, "\n  %s: position error %g, rotation error %g\n", b->links[target].name, ep,
            er);
  }
  CU_ASSERT(ep <= 1e-6);
  CU_ASSERT(er <= 1e-6);
  for (int i = 0; i < b->nlink; i++) {
    const hsLink *l = &b->links[i];
    if (l->llimit.n) {
      CU_ASSERT(st->q[i] >= l->llimit.v[0]);
    }
    if (l->ulimit.n) {
      CU_ASSERT(st->q[i] <= l->ulimit.v[0]);
    }
  }
}

// goals from forward kinematics of a random configuration near a random start (each path
// joint moved by up to +-perturb, within limits; the base put back where it was); the solve
// from the start must reach them, keep the base (1e-12 m and rad; exactly for the root), leave
// joints off the path alone, and leave the state consistent with forward kinematics
static void checkReachable(const char *model, const char *baseName, const char *targetName,
                           int trials, double perturb) {
  hsBody *b = hst_loadSample(model);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsBodyState *st = hsm_makeState(b, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(st);
  int base = linkOf(b, baseName), target = linkOf(b, targetName);
  int links[64];
  int n = hsm_jointPath(b, base, target, links, NULL, 64, NULL);
  CU_ASSERT_FATAL(n > 0 && n <= 64);
  uint64_t seed = 0x2545f4914f6cdd1dULL;
  int solvedCount = 0;
  for (int trial = 0; trial < trials; trial++) {
    randomConfig(b, st, &seed);
    Snapshot start;
    takeSnapshot(&start, b, st);
    double pb[3], Rb[9], p[3], R[9];
    memcpy(pb, st->linkP + 3 * base, sizeof pb);
    memcpy(Rb, st->linkR + 9 * base, sizeof Rb);
    // the goal configuration
    for (int j = 0; j < n; j++) {
      double lo, hi;
      range(&b->links[links[j]], 0.01, &lo, &hi);
      double q = st->q[links[j]] + uniform(&seed, -perturb, perturb);
      st->q[links[j]] = fmin(hi, fmax(lo, q));
    }
    putBaseAt(b, st, base, pb, Rb);
    memcpy(p, st->linkP + 3 * target, sizeof p);
    memcpy(R, st->linkR + 9 * target, sizeof R);
    restoreSnapshot(&start, b, st);
    // solve from the start
    hsError err = {0};
    int rc = hsm_inverseKinematics(b, st, base, target, p, R, NULL, NULL, &err);
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT_EQUAL(err.code, 0);
    if (rc == 1) {
      solvedCount++;
      expectReached(b, st, target, p, R);
      if (base == 0) {
        CU_ASSERT(memcmp(st->rootP, start.rootP, sizeof st->rootP) == 0);
        CU_ASSERT(memcmp(st->rootR, start.rootR, sizeof st->rootR) == 0);
      }
      CU_ASSERT(distance(st->linkP + 3 * base, pb) <= 1e-12);
      CU_ASSERT(angleBetween(st->linkR + 9 * base, Rb) <= 1e-12);
      // joints off the path untouched
      for (int i = 0; i < b->nlink; i++) {
        int onPath = 0;
        for (int j = 0; j < n; j++) {
          onPath |= links[j] == i;
        }
        if (!onPath) {
          CU_ASSERT(st->q[i] == start.q[i]);
        }
      }
      // poses are forward kinematics of (root, q)
      Snapshot solved;
      takeSnapshot(&solved, b, st);
      hsm_forwardKinematics(b, st);
      CU_ASSERT(sameAsSnapshot(&solved, b, st));
      freeSnapshot(&solved);
    }
    freeSnapshot(&start);
  }
  CU_ASSERT_EQUAL(solvedCount, trials);
  hsm_freeState(st);
  hsm_freeBody(b);
}

static void testIkArm6(void) {
  checkReachable("arm6/arm6.wrl", "BASE", "J6", 30, 0.4);
}

static void testIkLeg(void) {
  checkReachable("humanoid/humanoid.wrl", "WAIST", "RLEG_ANKLE_R", 30, 0.3);
}

static void testIkFootToWaist(void) {
  checkReachable("humanoid/humanoid.wrl", "RLEG_ANKLE_R", "WAIST", 30, 0.3);
}

static void testIkAcrossBranches(void) {
  // 15 joints: redundant, the 6 x 6 form of the step
  checkReachable("humanoid/humanoid.wrl", "RLEG_ANKLE_R", "LARM_WRIST_R", 20, 0.3);
  checkReachable("humanoid/humanoid.wrl", "LARM_WRIST_R", "NECK_P", 10, 0.3);
}

static void testIkFromInitialPose(void) {
  // the humanoid at its initial pose (straight legs, singular for lowering the waist) lowers
  // its waist by 5 cm and turns it 0.1 rad about z with the right foot kept on the floor, then
  // lifts that foot by 5 cm with the goal given as pointers into the state
  hsBody *b = hst_loadSample("humanoid/humanoid.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsBodyState *st = hsm_makeState(b, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(st);
  int foot = linkOf(b, "RLEG_ANKLE_R");
  double footP[3], footR[9];
  memcpy(footP, st->linkP + 3 * foot, sizeof footP);
  memcpy(footR, st->linkR + 9 * foot, sizeof footR);
  double p[3] = {0, 0, 0.77}, aa[4] = {0, 0, 1, 0.1}, R[9];
  hsu_axisAngleToMat(R, aa);
  CU_ASSERT_EQUAL(hsm_inverseKinematics(b, st, foot, 0, p, R, NULL, NULL, NULL), 1);
  expectReached(b, st, 0, p, R);
  HST_NEAR(distance(st->rootP, p), 0, 1e-6);
  HST_NEAR(distance(st->linkP + 3 * foot, footP), 0, 1e-12);
  HST_NEAR(angleBetween(st->linkR + 9 * foot, footR), 0, 1e-12);
  double rootP[3], rootR[9];
  memcpy(rootP, st->rootP, sizeof rootP);
  memcpy(rootR, st->rootR, sizeof rootR);
  st->linkP[3 * foot + 2] += 0.05;  // the goal: the foot 5 cm up (state's poses are stale now)
  CU_ASSERT_EQUAL(hsm_inverseKinematics(b, st, 0, foot, st->linkP + 3 * foot,
                                        st->linkR + 9 * foot, NULL, NULL, NULL), 1);
  footP[2] += 0.05;
  expectReached(b, st, foot, footP, footR);
  CU_ASSERT(memcmp(st->rootP, rootP, sizeof rootP) == 0);
  CU_ASSERT(memcmp(st->rootR, rootR, sizeof rootR) == 0);
  hsm_freeState(st);
  hsm_freeBody(b);
}

// a goal that must be refused leaves the state bit for bit as it was
static void expectRefused(const hsBody *b, hsBodyState *st, int base, int target,
                          const double p[3], const double R[9], const hsmIkOptions *opt) {
  Snapshot before;
  takeSnapshot(&before, b, st);
  hsError err = {0};
  CU_ASSERT_EQUAL(hsm_inverseKinematics(b, st, base, target, p, R, opt, NULL, &err), 0);
  CU_ASSERT_EQUAL(err.code, 0);
  CU_ASSERT(sameAsSnapshot(&before, b, st));
  freeSnapshot(&before);
}

static void testIkUnreachable(void) {
  hsBody *b = hst_loadSample("arm6/arm6.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsBodyState *st = hsm_makeState(b, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(st);
  uint64_t seed = 7;
  randomConfig(b, st, &seed);
  double I[9];
  hsu_setIdentity(I);
  double far[3] = {2, 0, 0.5};  // the arm reaches about 1 m
  expectRefused(b, st, 0, 6, far, I, NULL);
  // reachable, but not within 2 iterations
  double p[3], R[9];
  memcpy(p, st->linkP + 3 * 6, sizeof p);
  memcpy(R, st->linkR + 9 * 6, sizeof R);
  p[0] += 0.2;
  hsmIkOptions opt;
  hsm_defaultIkOptions(&opt);
  opt.maxIterations = 2;
  expectRefused(b, st, 0, 6, p, R, &opt);
  hsm_freeState(st);
  hsm_freeBody(b);

  // the humanoid cannot lift its waist 2 m above the foot it stands on
  b = hst_loadSample("humanoid/humanoid.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  st = hsm_makeState(b, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(st);
  randomConfig(b, st, &seed);
  double up[3] = {st->rootP[0], st->rootP[1], st->rootP[2] + 2};
  expectRefused(b, st, linkOf(b, "RLEG_ANKLE_R"), 0, up, st->rootR, NULL);
  // a state whose link poses are stale is also given back untouched
  st->q[linkOf(b, "RLEG_KNEE")] += 0.1;
  st->rootP[0] += 0.3;
  expectRefused(b, st, linkOf(b, "RLEG_ANKLE_R"), 0, up, st->rootR, NULL);
  hsm_freeState(st);
  hsm_freeBody(b);
}

static void testIkLimits(void) {
  hsBody *b = hst_loadVrmlText("planar.wrl", kPlanar);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsBodyState *st = hsm_makeState(b, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(st);
  int l1 = linkOf(b, "L1"), l2 = linkOf(b, "L2"), hand = linkOf(b, "HAND");
  // the pose of (q1, q2) = (1.0, 0.5) is reached only there (the other elbow gives another
  // hand orientation), and L1's upper limit is 0.5: refused
  st->q[l1] = 1.0, st->q[l2] = 0.5;
  hsm_forwardKinematics(b, st);
  double p[3], R[9];
  memcpy(p, st->linkP + 3 * hand, sizeof p);
  memcpy(R, st->linkR + 9 * hand, sizeof R);
  st->q[l1] = 0.2, st->q[l2] = 0.3;
  hsm_forwardKinematics(b, st);
  expectRefused(b, st, 0, hand, p, R, NULL);
  // without limits it is solved
  hsmIkOptions opt;
  hsm_defaultIkOptions(&opt);
  opt.useLimits = 0;
  CU_ASSERT_EQUAL(hsm_inverseKinematics(b, st, 0, hand, p, R, &opt, NULL, NULL), 1);
  // the solve stops within 1e-6 of the goal pose; joint errors may be a few times that
  HST_NEAR(st->q[l1], 1.0, 1e-5);
  HST_NEAR(st->q[l2], 0.5, 1e-5);
  // a goal at (0.5, 0.9), on L1's upper limit, reached from (-0.4, 0.05): on the way L2 runs
  // into its upper limit (the step is clamped there, then L2 is held for a step)
  st->q[l1] = 0.5, st->q[l2] = 0.9;
  hsm_forwardKinematics(b, st);
  memcpy(p, st->linkP + 3 * hand, sizeof p);
  memcpy(R, st->linkR + 9 * hand, sizeof R);
  st->q[l1] = -0.4, st->q[l2] = 0.05;
  hsm_forwardKinematics(b, st);
  CU_ASSERT_EQUAL(hsm_inverseKinematics(b, st, 0, hand, p, R, NULL, NULL, NULL), 1);
  expectReached(b, st, hand, p, R);
  HST_NEAR(st->q[l1], 0.5, 1e-5);
  HST_NEAR(st->q[l2], 0.9, 1e-5);
  hsm_freeState(st);
  hsm_freeBody(b);

  // the humanoid's knee cannot bend backwards: a foot goal made with the knee at -0.4 is
  // refused or met within every limit
  b = hst_loadSample("humanoid/humanoid.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  st = hsm_makeState(b, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(st);
  int foot = linkOf(b, "RLEG_ANKLE_R"), knee = linkOf(b, "RLEG_KNEE");
  st->q[knee] = -0.4;
  hsm_forwardKinematics(b, st);
  memcpy(p, st->linkP + 3 * foot, sizeof p);
  memcpy(R, st->linkR + 9 * foot, sizeof R);
  st->q[knee] = 0.4;
  hsm_forwardKinematics(b, st);
  Snapshot before;
  takeSnapshot(&before, b, st);
  int rc = hsm_inverseKinematics(b, st, 0, foot, p, R, NULL, NULL, NULL);
  if (rc == 1) {
    expectReached(b, st, foot, p, R);
  } else {
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT(sameAsSnapshot(&before, b, st));
  }
  freeSnapshot(&before);
  hsm_freeState(st);
  hsm_freeBody(b);
}

static void testIkBaseIsTarget(void) {
  // no joints: the body moves rigidly so the link lands on the goal
  hsBody *b = hst_loadSample("humanoid/humanoid.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsBodyState *st = hsm_makeState(b, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(st);
  int foot = linkOf(b, "LLEG_ANKLE_R");
  Snapshot before;
  takeSnapshot(&before, b, st);
  double p[3] = {0.5, -0.2, 0.1}, aa[4] = {0.3, -0.2, 1, 0.7}, R[9];
  hsu_axisAngleToMat(R, aa);
  CU_ASSERT_EQUAL(hsm_inverseKinematics(b, st, foot, foot, p, R, NULL, NULL, NULL), 1);
  expectReached(b, st, foot, p, R);
  CU_ASSERT(memcmp(st->q, before.q, (size_t)b->nlink * sizeof(double)) == 0);
  // the relative pose of root and foot is kept
  double pr[3], Rr[9];
  poseWithBaseAt(st, foot, 0, before.linkP + 3 * foot, before.linkR + 9 * foot, pr, Rr);
  HST_NEAR(distance(pr, before.rootP), 0, 1e-12);
  HST_NEAR(angleBetween(Rr, before.rootR), 0, 1e-12);
  freeSnapshot(&before);
  // the root itself
  CU_ASSERT_EQUAL(hsm_inverseKinematics(b, st, 0, 0, p, R, NULL, NULL, NULL), 1);
  HST_NEAR(distance(st->rootP, p), 0, 1e-12);
  HST_NEAR(angleBetween(st->rootR, R), 0, 1e-12);
  hsm_freeState(st);
  hsm_freeBody(b);
}

static void testIkArguments(void) {
  hsBody *b = hst_loadSample("arm6/arm6.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsBodyState *st = hsm_makeState(b, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(st);
  hsmIkOptions opt;
  hsm_defaultIkOptions(&opt);
  CU_ASSERT_EQUAL(opt.maxIterations, 200);
  HST_NEAR(opt.tolPosition, 1e-6, 0);
  HST_NEAR(opt.tolRotation, 1e-6, 0);
  CU_ASSERT_EQUAL(opt.useLimits, 1);
  Snapshot before;
  takeSnapshot(&before, b, st);
  double p[3] = {0.3, 0.1, 0.6}, R[9], bad[9] = {1, 0, 0, 0, 1, 0, 0, 0, 2};
  hsu_setIdentity(R);
  hsError err = {0};
  CU_ASSERT_EQUAL(hsm_inverseKinematics(b, st, 0, 7, p, R, NULL, NULL, &err), hsE_INVALID);
  CU_ASSERT_EQUAL(err.code, hsE_INVALID);
  CU_ASSERT_EQUAL(hsm_inverseKinematics(b, st, -1, 6, p, R, NULL, NULL, NULL), hsE_INVALID);
  CU_ASSERT_EQUAL(hsm_inverseKinematics(b, st, 0, 6, p, bad, NULL, NULL, NULL), hsE_INVALID);
  double nanP[3] = {NAN, 0, 0};
  CU_ASSERT_EQUAL(hsm_inverseKinematics(b, st, 0, 6, nanP, R, NULL, NULL, NULL), hsE_INVALID);
  opt.tolPosition = 0;
  CU_ASSERT_EQUAL(hsm_inverseKinematics(b, st, 0, 6, p, R, &opt, NULL, NULL), hsE_INVALID);
  CU_ASSERT(sameAsSnapshot(&before, b, st));
  // no memory for the workspace
  hsu_clearError(&err);
  hsu_failAllocAfter(1);
  CU_ASSERT_EQUAL(hsm_inverseKinematics(b, st, 0, 6, p, R, NULL, NULL, &err), hsE_NOMEM);
  hsu_failAllocAfter(0);
  CU_ASSERT_EQUAL(err.code, hsE_NOMEM);
  CU_ASSERT(sameAsSnapshot(&before, b, st));
  freeSnapshot(&before);
  hsm_freeState(st);
  hsm_freeBody(b);
}

static void testIkWorkspace(void) {
  // a caller's workspace gives the same answer, bit for bit, and the solve allocates nothing
  hsBody *b = hst_loadSample("humanoid/humanoid.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsBodyState *st = hsm_makeState(b, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(st);
  uint64_t seed = 99;
  randomConfig(b, st, &seed);
  int foot = linkOf(b, "LLEG_ANKLE_R"), hand = linkOf(b, "RARM_WRIST_R");
  double p[3], R[9];
  memcpy(p, st->linkP + 3 * hand, sizeof p);
  memcpy(R, st->linkR + 9 * hand, sizeof R);
  p[0] += 0.05, p[2] -= 0.05;
  Snapshot start;
  takeSnapshot(&start, b, st);
  CU_ASSERT_EQUAL(hsm_inverseKinematics(b, st, foot, hand, p, R, NULL, NULL, NULL), 1);
  Snapshot first;
  takeSnapshot(&first, b, st);
  restoreSnapshot(&start, b, st);
  void *work = hsu_malloc(hsm_ikWorkSize(b));
  CU_ASSERT_PTR_NOT_NULL_FATAL(work);
  hsu_failAllocAfter(1);
  CU_ASSERT_EQUAL(hsm_inverseKinematics(b, st, foot, hand, p, R, NULL, work, NULL), 1);
  hsu_failAllocAfter(0);
  CU_ASSERT(sameAsSnapshot(&first, b, st));
  hsu_free(work);
  freeSnapshot(&first);
  freeSnapshot(&start);
  hsm_freeState(st);
  hsm_freeBody(b);
}

void register_kinematics(void) {
  CU_pSuite s = hst_addSuite("kinematics");
  CU_add_test(s, "joint paths on the humanoid", testPathHumanoid);
  CU_add_test(s, "joint paths: unnumbered joint, common ancestor", testPathTree);
  CU_add_test(s, "jacobian = differences (arm6)", testJacobianArm6);
  CU_add_test(s, "jacobian = differences (humanoid)", testJacobianHumanoid);
  CU_add_test(s, "jacobian = differences (slide, turned frames)", testJacobianTree);
  CU_add_test(s, "jacobian of a planar arm", testJacobianPlanar);
  CU_add_test(s, "jacobian errors", testJacobianErrors);
  s = hst_addSuite("kinematics_ik");
  CU_add_test(s, "arm6 reaches random goals", testIkArm6);
  CU_add_test(s, "waist to foot", testIkLeg);
  CU_add_test(s, "foot to waist (root moves)", testIkFootToWaist);
  CU_add_test(s, "across branches (redundant)", testIkAcrossBranches);
  CU_add_test(s, "from the initial pose", testIkFromInitialPose);
  CU_add_test(s, "unreachable goals leave the state alone", testIkUnreachable);
  CU_add_test(s, "joint limits", testIkLimits);
  CU_add_test(s, "base == target", testIkBaseIsTarget);
  CU_add_test(s, "arguments and defaults", testIkArguments);
  CU_add_test(s, "caller's workspace, no allocation", testIkWorkspace);
}
