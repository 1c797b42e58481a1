// test_broad.c - the broad phase (hsc_overlappingLinks): on random boxes of random sizes,
// moved about between calls (the sweep's order is kept from call to call), the pairs it finds
// are exactly the brute-force overlapping world-box pairs, in (body, link) order; and links
// moved lazily (hsc_moveLink) answer every query as links placed at once.

#include <float.h>

#include "col_helpers.h"

// a deterministic random number in [0, 1) (64-bit LCG)
static double rnd(unsigned long long *r) {
  *r = *r * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*r >> 11) / 9007199254740992.0;
}

// an axis-aligned box body of half sizes h at p: world box lo = p - h, hi = p + h. Coordinates
// are multiples of 1/64 and half sizes of 1/128 (exact in binary), so the box the scene computes
// is exactly this one and the brute force below compares the same numbers.
typedef struct Box {
  double p[3], h[3];
} Box;

static int overlap(const Box *a, const Box *b) {
  for (int j = 0; j < 3; j++) {
    if (a->p[j] - a->h[j] > b->p[j] + b->h[j] || b->p[j] - b->h[j] > a->p[j] + a->h[j]) {
      return 0;
    }
  }
  return 1;
}

static void testRandomBoxes(void) {
  enum { N = 150, MAXPAIRS = N * N };
  hscModel *models[N];
  Box box[N];
  unsigned long long r = 987654321;
  hscScene *s = hsc_makeScene(NULL, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < 3; j++) {
      box[i].h[j] = (1 + (int)(rnd(&r) * 24)) / 128.0;  // 1/128 .. 24/128 m
    }
    models[i] = colPrim(hsGEOM_BOX, 2 * box[i].h[0], 2 * box[i].h[1], 2 * box[i].h[2]);
    CU_ASSERT_EQUAL(hsc_addBody(s, models[i], NULL), i);
  }
  static hscPair out[MAXPAIRS];
  int checked = 0, mismatches = 0, ties = 0;
  for (int round = 0; round < 12; round++) {
    // small moves on most rounds (a nearly sorted sweep), a full shuffle on some; some boxes
    // share their lowest x (ties in the sweep)
    for (int i = 0; i < N; i++) {
      int shuffle = round % 4 == 0 || rnd(&r) < 0.1;
      for (int j = 0; j < 3; j++) {
        double x = shuffle ? (int)(rnd(&r) * 128) / 64.0
                           : box[i].p[j] + ((int)(rnd(&r) * 9) - 4) / 64.0;
        box[i].p[j] = x;
      }
      if (i % 10 == 1) {
        box[i].p[0] = box[i - 1].p[0] - box[i - 1].h[0] + box[i].h[0];  // same lo x
        ties++;
      }
      colPlace(s, i, box[i].p[0], box[i].p[1], box[i].p[2], NULL);
    }
    int n = hsc_overlappingLinks(s, out, MAXPAIRS);
    int k = 0;
    for (int i = 0; i < N; i++) {
      for (int j = i + 1; j < N; j++) {
        if (!overlap(&box[i], &box[j])) {
          continue;
        }
        if (k >= n || out[k].body[0] != i || out[k].body[1] != j || out[k].link[0] != 0 ||
            out[k].link[1] != 0) {
          mismatches++;
        }
        k++;
      }
    }
    CU_ASSERT_EQUAL(n, k);
    CU_ASSERT(k > 20);  // the scene is dense enough to test something
    checked += k;
    // a buffer too small: the count is still the total, the first maxOut are written
    int m = hsc_overlappingLinks(s, out, 5);
    CU_ASSERT_EQUAL(m, n);
  }
  CU_ASSERT_EQUAL(mismatches, 0);
  CU_ASSERT(checked > 500);
  CU_ASSERT(ties > 0);
  hsc_freeScene(s);
  for (int i = 0; i < N; i++) {
    hsc_freeModel(models[i]);
  }
}

// bodies of several links (one without geometry, which never appears) and pairs within one
// body: found like any other, side 0 the lower (body, link)
static void testLinksAndSelfPairs(void) {
  hscGeomDesc d[2];
  memset(d, 0, sizeof d);
  for (int g = 0; g < 2; g++) {
    d[g].type = hsGEOM_BOX;
    memcpy(d[g].T, kIdentity12, sizeof d[g].T);
    d[g].size[0] = d[g].size[1] = d[g].size[2] = 0.5;
  }
  d[0].link = 0;
  d[1].link = 2;  // link 1 has no geometry
  hscModel *m = hsc_makeModelFromGeoms(d, 2, 3, NULL, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  hscScene *s = hsc_makeScene(NULL, NULL);
  hsc_addBody(s, m, NULL);
  hsc_addBody(s, m, NULL);
  double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  // body 0: link 0 at the origin, link 2 overlapping it; link 1 (no geometry) there too;
  // body 1: link 0 touching body 0's link 2 only, link 2 far away
  double p00[3] = {0, 0, 0}, p02[3] = {0.25, 0, 0}, p01[3] = {0, 0, 0};
  double p10[3] = {0.75, 0, 0}, p12[3] = {5, 5, 5};
  hsc_setLinkPose(s, 0, 0, p00, I, NULL);
  hsc_setLinkPose(s, 0, 1, p01, I, NULL);
  hsc_setLinkPose(s, 0, 2, p02, I, NULL);
  hsc_setLinkPose(s, 1, 0, p10, I, NULL);
  hsc_setLinkPose(s, 1, 2, p12, I, NULL);
  hscPair out[8];
  int n = hsc_overlappingLinks(s, out, 8);
  CU_ASSERT_EQUAL_FATAL(n, 2);
  // (0,0)-(0,2), then (0,2)-(1,0): body 0 link 0 ends at 0.25 = body 0 link 2's start (touching
  // counts), body 1 link 0 starts at 0.5 = body 0 link 2's end
  CU_ASSERT(out[0].body[0] == 0 && out[0].link[0] == 0 && out[0].body[1] == 0 &&
            out[0].link[1] == 2);
  CU_ASSERT(out[1].body[0] == 0 && out[1].link[0] == 2 && out[1].body[1] == 1 &&
            out[1].link[1] == 0);
  hsc_freeScene(s);
  hsc_freeModel(m);
}

// hsc_moveLink (geoms placed when a query needs them) answers every query with the same bits
// as hsc_setLinkPose: 40 boxes, spheres and capsules at random turned poses over a floor box,
// moved in rounds, in two scenes (one moved each way); contacts with a margin, intersections,
// distances and overlapping link pairs compared byte for byte after each round
static void testMoveLinkSameAnswers(void) {
  enum { N = 40, NPAIR = N * (N + 1) / 2, MAXC = 4 * NPAIR };
  hscModel *models[N + 1];
  hscScene *sc[2];
  unsigned long long r = 12345;
  models[N] = colPrim(hsGEOM_BOX, 4, 4, 0.1);
  for (int i = 0; i < N; i++) {
    int kind = i % 3;
    models[i] = kind == 0   ? colPrim(hsGEOM_BOX, 0.1 + 0.2 * rnd(&r), 0.1 + 0.2 * rnd(&r), 0.1)
                : kind == 1 ? colPrim(hsGEOM_SPHERE, 0.05 + 0.1 * rnd(&r), 0, 0)
                            : colPrim(hsGEOM_CAPSULE, 0.05, 0.2, 0);
  }
  for (int k = 0; k < 2; k++) {
    sc[k] = hsc_makeScene(NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sc[k]);
    for (int i = 0; i <= N; i++) {
      CU_ASSERT_EQUAL(hsc_addBody(sc[k], models[i], NULL), i);
    }
    colPlace(sc[k], N, 0, 0, -0.05, NULL);
  }
  static hscPair pairs[NPAIR];
  int np = 0;
  for (int i = 0; i <= N; i++) {
    for (int j = i + 1; j <= N; j++) {
      memset(&pairs[np], 0, sizeof pairs[np]);
      pairs[np].body[0] = i;
      pairs[np].body[1] = j;
      pairs[np].cull = 0.01;
      np++;
    }
  }
  static hscContact c[2][MAXC];
  static hscDistance d[2][NPAIR];
  static hscPair ov[2][NPAIR];
  static int cnt[2][NPAIR];
  static unsigned char hit[2][NPAIR];
  int same = 1, touching = 0;
  static double Rs[N][9], Ps[N][3];
  for (int round = 0; round < 6; round++) {
    for (int i = 0; i < N; i++) {
      double *R = Rs[i], *p = Ps[i];
      p[0] = 3 * rnd(&r) - 1.5;
      p[1] = 3 * rnd(&r) - 1.5;
      p[2] = 0.5 * rnd(&r) - 0.05;
      if (round != 3) {  // (round 3: the same turn, only moved: hsc_moveLinks sees the same R)
        colRot(R, rnd(&r) - 0.5, rnd(&r) - 0.5, rnd(&r) + 0.1, 6 * rnd(&r));
      }
      double n = sqrt(R[0] * R[0] + R[3] * R[3] + R[6] * R[6]);
      CU_ASSERT(fabs(n - 1) < 1e-12);
      CU_ASSERT_EQUAL(hsc_setLinkPose(sc[0], i, 0, p, R, NULL), 0);
      if (round % 2) {  // (odd rounds: the whole body's links at once)
        CU_ASSERT_EQUAL(hsc_moveLinks(sc[1], i, p, R, NULL), 0);
      } else {
        CU_ASSERT_EQUAL(hsc_moveLink(sc[1], i, 0, p, R, NULL), 0);
      }
    }
    // the floor (and in round 5 every body) given the pose it has: nothing to do, same answers
    double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, f[3] = {0, 0, -0.05};
    CU_ASSERT_EQUAL(hsc_moveLinks(sc[1], N, f, I, NULL), 0);
    for (int i = 0; round == 5 && i < N; i++) {
      CU_ASSERT_EQUAL(hsc_moveLinks(sc[1], i, Ps[i], Rs[i], NULL), 0);
    }
    int nc[2], ni[2], no[2];
    for (int k = 0; k < 2; k++) {
      nc[k] = hsc_contactsMargin(sc[k], pairs, np, 0.002, c[k], MAXC, cnt[k]);
    }
    for (int k = 0; k < 2; k++) {  // (the moved scene places what the contacts left)
      ni[k] = hsc_intersections(sc[k], pairs, np, 1, hit[k]);
      hsc_distances(sc[k], pairs, np, d[k]);
      no[k] = hsc_overlappingLinks(sc[k], ov[k], NPAIR);
    }
    touching += nc[0];
    same &= nc[0] == nc[1] && memcmp(c[0], c[1], (size_t)nc[0] * sizeof c[0][0]) == 0 &&
            memcmp(cnt[0], cnt[1], (size_t)np * sizeof cnt[0][0]) == 0 && ni[0] == ni[1] &&
            memcmp(hit[0], hit[1], (size_t)np) == 0 &&
            memcmp(d[0], d[1], (size_t)np * sizeof d[0][0]) == 0 && no[0] == no[1] &&
            memcmp(ov[0], ov[1], (size_t)(no[0] < NPAIR ? no[0] : NPAIR) * sizeof ov[0][0]) == 0;
  }
  CU_ASSERT(same);
  CU_ASSERT(touching > 20);  // (the rounds had contacts to compare)
  // a non-finite pose is refused, the link keeps its last one
  double bad[3] = {NAN, 0, 0}, I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  CU_ASSERT_EQUAL(hsc_moveLink(sc[1], 0, 0, bad, I, NULL), hsE_INVALID);
  CU_ASSERT_EQUAL(hsc_moveLinks(sc[1], 0, bad, I, NULL), hsE_INVALID);
  double badR[9] = {1, 0, 0, 0, -INFINITY, 0, 0, 0, 1}, big[3] = {DBL_MAX, -DBL_MAX, 0};
  CU_ASSERT_EQUAL(hsc_moveLinks(sc[1], 0, big, badR, NULL), hsE_INVALID);
  CU_ASSERT_EQUAL(hsc_moveLinks(sc[1], 0, big, I, NULL), 0);  // (huge, but finite)
  for (int k = 0; k < 2; k++) {
    hsc_freeScene(sc[k]);
  }
  for (int i = 0; i <= N; i++) {
    hsc_freeModel(models[i]);
  }
}

void register_broad(void) {
  CU_pSuite s = hst_addSuite("collision_broad");
  CU_add_test(s, "random boxes: the pairs found are the brute-force overlapping pairs",
              testRandomBoxes);
  CU_add_test(s, "links without geometry, pairs within a body", testLinksAndSelfPairs);
  CU_add_test(s, "hsc_moveLink(s): the same answers as hsc_setLinkPose", testMoveLinkSameAnswers);
}
