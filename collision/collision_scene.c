// collision_scene.c - hscScene: bodies at poses, and the queries over pairs of links.
//
// Setting a link's pose places its geoms in the world at once (rotation, origin, world box) and
// updates the link's world box, so queries only read. A query walks its pairs in order: the two
// links' world boxes first, then every pair of their geoms whose boxes overlap, then the narrow
// phase (collision_narrow.c, collision_mesh.c). Contacts of one link pair gather in the scene's
// candidate buffer and are reduced to at most maxContactsPerPair: the deepest, then the one
// farthest from it, then the one spanning the largest triangle with those two, then each time the
// one farthest from every kept point (so a resting face keeps its corners); a point closer than the
// pair's cull distance (at least 1 nm) to a kept one is never kept; exact ties go by the
// candidates' numbers, so the order the narrow phase found them in never matters. The broad phase
// over all links (hsc_overlappingLinks) is sweep and prune along x, its order kept from one query
// to the next and re-sorted by insertion (nearly sorted after small motions).

#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collision_private.h"

static const char *kWarnText[hscWARN_NTYPES] = {
    ("a link pair produced more candidate contact points than the scene's buffer holds; the "
     "rest are dropped"),
    "the contact buffer of a query is full; the remaining contacts are dropped",
    "a body was given a non-finite pose; it is left out of the queries until a finite one",
    ("a mesh-mesh distance query needed more node pairs than the scene's queue holds; it went "
     "on depth first (slower, same answer)")};

static void warn(hscScene *s, int kind, long n) {
  if (n <= 0) {
    return;
  }
  if (s->warnings[kind] == 0) {
    hsu_log(hsLOG_WARNING, "collision: %s (logged once)", kWarnText[kind]);
  }
  s->warnings[kind] += n;
}

void hsc_defaultOptions(hscOptions *opt) {
  opt->maxContactsPerPair = 4;
  opt->maxCandidates = 256;
  opt->capPoints = 8;
  opt->queuePairs = 4096;
}

hscScene *hsc_makeScene(const hscOptions *opt, hsError *err) {
  hscOptions o;
  hsc_defaultOptions(&o);
  if (opt) {
    o = *opt;
  }
  if (o.maxContactsPerPair < 1 || o.maxCandidates < o.maxContactsPerPair || o.capPoints < 3 ||
      o.capPoints > 32 || o.queuePairs < 0) {
    HS_ERR(err, hsE_INVALID, "bad collision options: %d points per pair, %d candidates, %d "
           "rim points, a queue of %d (need 1 <= points <= candidates, 3 <= rim points <= 32, "
           "queue >= 0)",
           o.maxContactsPerPair, o.maxCandidates, o.capPoints, o.queuePairs);
    return NULL;
  }
  hscScene *s = hsu_calloc(1, sizeof *s);
  if (s) {
    s->opt = o;
    s->cand = hsu_malloc(sizeof(hscCand) * (size_t)o.maxCandidates);
    s->kept = hsu_malloc(sizeof(hscCand) * (size_t)o.maxContactsPerPair);
    s->dmin = hsu_malloc(sizeof(double) * (size_t)o.maxCandidates);
    s->queue.item = hsu_malloc(sizeof(hscPairItem) * (size_t)(o.queuePairs > 0 ? o.queuePairs : 1));
    s->queue.cap = o.queuePairs;
  }
  if (!s || !s->cand || !s->kept || !s->dmin || !s->queue.item) {
    hsc_freeScene(s);
    HS_ERR(err, hsE_NOMEM, "out of memory");
    return NULL;
  }
  return s;
}

static void freeSlot(hscBodySlot *b) {
  hsu_free(b->pose);
  hsu_free(b->posed);
  hsu_free(b->linkAabb);
  hsu_free(b->looseAabb);
  hsu_free(b->looseRows);
  hsu_free(b->linkMidHalf);
  hsu_free(b->pending);
  memset(b, 0, sizeof *b);
}

void hsc_freeScene(hscScene *s) {
  if (!s) {
    return;
  }
  for (int i = 0; i < s->nbody; i++) {
    freeSlot(&s->bodies[i]);
  }
  hsu_free(s->bodies);
  hsu_free(s->cand);
  hsu_free(s->kept);
  hsu_free(s->dmin);
  hsu_free(s->queue.item);
  hsu_free(s->sapBody);
  hsu_free(s->sapLink);
  hsu_free(s);
}

int hsc_bodyCount(const hscScene *s) {
  return s ? s->nbody : 0;
}

//---------------------------------- poses -----------------------------------------------------

// place the geoms of link k of body b at its stored pose; update the link's world box
static void placeLink(hscBodySlot *b, int k) {
  const hscModel *m = b->model;
  const double *R = b->pose + 12 * k, *p = R + 9;
  double *lb = b->linkAabb + 6 * k;
  for (int j = 0; j < 3; j++) {
    lb[j] = DBL_MAX;
    lb[3 + j] = -DBL_MAX;
  }
  for (int gi = m->geomAdr[k]; gi < m->geomAdr[k + 1]; gi++) {
    const hscGeom *g = &m->geoms[gi];
    hscPosed *pg = &b->posed[gi];
    pg->g = g;
    hsu_mulMat(pg->R, R, g->R);
    m3mulv(pg->p, R, g->t);
    v3add(pg->p, pg->p, p);
    // world box: the geom-frame box turned into the world
    double c[3], h[3], wc[3];
    for (int j = 0; j < 3; j++) {
      c[j] = 0.5 * (g->lo[j] + g->hi[j]);
      h[j] = 0.5 * (g->hi[j] - g->lo[j]);
    }
    m3mulv(wc, pg->R, c);
    v3add(wc, wc, pg->p);
    for (int j = 0; j < 3; j++) {
      const double *row = pg->R + 3 * j;
      double e = fabs(row[0]) * h[0] + fabs(row[1]) * h[1] + fabs(row[2]) * h[2];
      pg->lo[j] = wc[j] - e;
      pg->hi[j] = wc[j] + e;
      lb[j] = fmin(lb[j], pg->lo[j]);
      lb[3 + j] = fmax(lb[3 + j], pg->hi[j]);
    }
  }
  memcpy(b->looseAabb + 6 * k, lb, 6 * sizeof *lb);
  b->looseRows[k] = 7;
  if (b->pending[k]) {
    b->pending[k] = 0;
    b->npending--;
  }
}

// make row j of the loose world box of link k of body b at its stored pose (the link's own box,
// of all its geoms in its frame, turned into the world, widened by a relative 1e-9 so that it
// holds the geoms' boxes whatever their rounding)
static void makeLooseRow(hscBodySlot *b, int k, int j) {
  const double *R = b->pose + 12 * k, *p = R + 9, *row = R + 3 * j;
  const double *mid = b->linkMidHalf + 6 * k, *half = mid + 3;
  double *lb = b->looseAabb + 6 * k;
  double c = p[j] + row[0] * mid[0] + row[1] * mid[1] + row[2] * mid[2];
  double e = fabs(row[0]) * half[0] + fabs(row[1]) * half[1] + fabs(row[2]) * half[2];
  e += 1e-9 * (fabs(c) + e) + 1e-12;
  lb[j] = c - e;
  lb[3 + j] = c + e;
  b->looseRows[k] |= (unsigned char)(1 << j);
}

// row j of the loose world box of link k of body b (lo at [j], hi at [3 + j]), made if needed
static inline const double *looseRow(hscBodySlot *b, int k, int j) {
  if (!(b->looseRows[k] & (1 << j))) {
    makeLooseRow(b, k, j);
  }
  return b->looseAabb + 6 * k;
}

// link k of body b moved to its stored pose: its loose world box to be made (looseRow, when a
// query reads it), its geoms pending
static void moveLink(hscBodySlot *b, int k) {
  b->looseRows[k] = 0;
  if (!b->pending[k]) {
    b->pending[k] = 1;
    b->npending++;
  }
}

// the geoms of link k of body b placed if it moved since
static void placeIfMoved(hscBodySlot *b, int k) {
  if (b->pending[k]) {
    placeLink(b, k);
  }
}

// 1 if stored pose T (R[9], p[3]) holds the bits of R and p (a moving link differs in its
// first entries: the test ends there)
static int samePose(const double *T, const double R[9], const double p[3]) {
  for (int j = 0; j < 12; j++) {
    uint64_t a, b;
    memcpy(&a, T + j, sizeof a);
    memcpy(&b, j < 9 ? R + j : p + j - 9, sizeof b);
    if (a != b) {
      return 0;
    }
  }
  return 1;
}

int hsc_moveLinks(hscScene *s, int body, const double *linkP, const double *linkR,
                  hsError *err) {
  if (!s || body < 0 || body >= s->nbody || !linkP || !linkR) {
    return HS_ERR(err, hsE_INVALID, "no scene or poses, or bad body %d", body);
  }
  hscBodySlot *b = &s->bodies[body];
  const hscModel *m = b->model;
  int n = m->nlink;
  double sum = 0;  // (finite, or some entry is not: then check which)
  for (int k = 0; k < 3 * n; k++) {
    sum += linkP[k];
  }
  for (int k = 0; k < 9 * n; k++) {
    sum += linkR[k];
  }
  if (!isfinite(sum) &&
      (!hsu_allFinite(linkP, 3 * (size_t)n) || !hsu_allFinite(linkR, 9 * (size_t)n))) {
    return HS_ERR(err, hsE_INVALID, "body %d: a link pose is not finite", body);
  }
  for (int k = 0; k < n; k++) {
    double *T = b->pose + 12 * k;
    if (samePose(T, linkR + 9 * k, linkP + 3 * k)) {
      continue;  // (a static body: everything made from its pose stands)
    }
    memcpy(T, linkR + 9 * k, 9 * sizeof(double));
    memcpy(T + 9, linkP + 3 * k, 3 * sizeof(double));
    if (m->geomAdr[k + 1] > m->geomAdr[k]) {
      moveLink(b, k);
    }
  }
  return 0;
}

void hsc_placeMoved(hscScene *s) {
  for (int i = 0; s && i < s->nbody; i++) {
    hscBodySlot *b = &s->bodies[i];
    for (int k = 0; b->npending > 0 && k < b->model->nlink; k++) {
      placeIfMoved(b, k);
    }
  }
}

// (re)build the sweep-and-prune list of every link with geometry
static int rebuildSap(hscScene *s, hsError *err) {
  int n = 0;
  for (int i = 0; i < s->nbody; i++) {
    const hscModel *m = s->bodies[i].model;
    for (int k = 0; k < m->nlink; k++) {
      n += m->geomAdr[k + 1] > m->geomAdr[k];
    }
  }
  if (n > s->capSap) {
    int *nb = hsu_realloc(s->sapBody, sizeof(int) * (size_t)n);
    if (nb) {
      s->sapBody = nb;
    }
    int *nl = hsu_realloc(s->sapLink, sizeof(int) * (size_t)n);
    if (nl) {
      s->sapLink = nl;
    }
    if (!nb || !nl) {
      return HS_ERR(err, hsE_NOMEM, "out of memory");
    }
    s->capSap = n;
  }
  s->nsap = 0;
  for (int i = 0; i < s->nbody; i++) {
    const hscModel *m = s->bodies[i].model;
    for (int k = 0; k < m->nlink; k++) {
      if (m->geomAdr[k + 1] > m->geomAdr[k]) {
        s->sapBody[s->nsap] = i;
        s->sapLink[s->nsap++] = k;
      }
    }
  }
  return 0;
}

// fill slot b for model m with every link at the origin
static int initSlot(hscBodySlot *b, const hscModel *m, hsError *err) {
  memset(b, 0, sizeof *b);
  b->model = m;
  b->pose = hsu_malloc(sizeof(double) * 12 * (size_t)(m->nlink + 1));
  b->posed = hsu_calloc((size_t)m->ngeom + 1, sizeof *b->posed);
  b->linkAabb = hsu_malloc(sizeof(double) * 6 * (size_t)(m->nlink + 1));
  b->looseAabb = hsu_malloc(sizeof(double) * 6 * (size_t)(m->nlink + 1));
  b->looseRows = hsu_calloc((size_t)m->nlink + 1, 1);
  b->linkMidHalf = hsu_malloc(sizeof(double) * 6 * (size_t)(m->nlink + 1));
  b->pending = hsu_calloc((size_t)m->nlink + 1, 1);
  if (!b->pose || !b->posed || !b->linkAabb || !b->looseAabb || !b->looseRows ||
      !b->linkMidHalf || !b->pending) {
    freeSlot(b);
    return HS_ERR(err, hsE_NOMEM, "out of memory");
  }
  for (int k = 0; k < m->nlink; k++) {
    const double *box = m->linkBox + 6 * k;
    for (int j = 0; j < 3; j++) {
      b->linkMidHalf[6 * k + j] = 0.5 * (box[j] + box[3 + j]);
      b->linkMidHalf[6 * k + 3 + j] = 0.5 * (box[3 + j] - box[j]);
    }
  }
  b->valid = 1;
  for (int k = 0; k < m->nlink; k++) {
    double *T = b->pose + 12 * k;
    hsu_setIdentity(T);
    T[9] = T[10] = T[11] = 0;
    placeLink(b, k);
  }
  return 0;
}

int hsc_addBody(hscScene *s, const hscModel *model, hsError *err) {
  if (!s || !model) {
    return HS_ERR(err, hsE_INVALID, "no scene or no model");
  }
  if (s->nbody == s->capBody) {
    int cap = s->capBody ? 2 * s->capBody : 4;
    hscBodySlot *nb = hsu_realloc(s->bodies, sizeof *nb * (size_t)cap);
    if (!nb) {
      return HS_ERR(err, hsE_NOMEM, "out of memory");
    }
    s->bodies = nb;
    s->capBody = cap;
  }
  if (initSlot(&s->bodies[s->nbody], model, err) < 0) {
    return hsE_NOMEM;
  }
  s->nbody++;
  if (rebuildSap(s, err) < 0) {
    freeSlot(&s->bodies[--s->nbody]);
    return hsE_NOMEM;
  }
  return s->nbody - 1;
}

int hsc_replaceBody(hscScene *s, int body, const hscModel *model, hsError *err) {
  if (!s || !model || body < 0 || body >= s->nbody) {
    return HS_ERR(err, hsE_INVALID, "no scene, no model or bad body index %d", body);
  }
  hscBodySlot nb;
  if (initSlot(&nb, model, err) < 0) {
    return hsE_NOMEM;
  }
  hscBodySlot old = s->bodies[body];
  s->bodies[body] = nb;
  if (rebuildSap(s, err) < 0) {
    s->bodies[body] = old;
    freeSlot(&nb);
    return hsE_NOMEM;
  }
  freeSlot(&old);
  return 0;
}

int hsc_setBodyPoses(hscScene *s, int body, const hsBodyState *st, hsError *err) {
  if (!s || body < 0 || body >= s->nbody || !st) {
    return HS_ERR(err, hsE_INVALID, "no scene, no state or bad body index %d", body);
  }
  hscBodySlot *b = &s->bodies[body];
  int n = b->model->nlink;
  if (!st->body || st->body->nlink != n) {
    return HS_ERR(err, hsE_INVALID, "body %d has %d links, the state %d", body, n,
                  st->body ? st->body->nlink : -1);
  }
  if (!hsu_allFinite(st->linkP, 3 * (size_t)n) || !hsu_allFinite(st->linkR, 9 * (size_t)n)) {
    warn(s, hscWARN_NONFINITE, 1);
    b->valid = 0;
    return HS_ERR(err, hsE_INVALID, "body %d: a link pose is not finite", body);
  }
  for (int k = 0; k < n; k++) {
    double *T = b->pose + 12 * k;
    memcpy(T, st->linkR + 9 * k, 9 * sizeof(double));
    memcpy(T + 9, st->linkP + 3 * k, 3 * sizeof(double));
    placeLink(b, k);
  }
  b->valid = 1;
  return 0;
}

int hsc_setLinkPose(hscScene *s, int body, int link, const double p[3], const double R[9],
                    hsError *err) {
  if (!s || body < 0 || body >= s->nbody || link < 0 || link >= s->bodies[body].model->nlink) {
    return HS_ERR(err, hsE_INVALID, "bad body %d or link %d", body, link);
  }
  if (!hsu_allFinite(p, 3) || !hsu_allFinite(R, 9)) {
    return HS_ERR(err, hsE_INVALID, "body %d link %d: the pose is not finite", body, link);
  }
  hscBodySlot *b = &s->bodies[body];
  double *T = b->pose + 12 * link;
  memcpy(T, R, 9 * sizeof(double));
  memcpy(T + 9, p, 3 * sizeof(double));
  placeLink(b, link);
  return 0;
}

int hsc_moveLink(hscScene *s, int body, int link, const double p[3], const double R[9],
                 hsError *err) {
  if (!s || body < 0 || body >= s->nbody || link < 0 || link >= s->bodies[body].model->nlink) {
    return HS_ERR(err, hsE_INVALID, "bad body %d or link %d", body, link);
  }
  double sum = p[0] + p[1] + p[2];  // (finite, or some entry is not: then check which)
  for (int j = 0; j < 9; j++) {
    sum += R[j];
  }
  if (!isfinite(sum) && (!hsu_allFinite(p, 3) || !hsu_allFinite(R, 9))) {
    return HS_ERR(err, hsE_INVALID, "body %d link %d: the pose is not finite", body, link);
  }
  hscBodySlot *b = &s->bodies[body];
  double *T = b->pose + 12 * link;
  memcpy(T, R, 9 * sizeof(double));
  memcpy(T + 9, p, 3 * sizeof(double));
  if (b->model->geomAdr[link + 1] > b->model->geomAdr[link]) {
    moveLink(b, link);
  }
  return 0;
}

//---------------------------------- pairs -----------------------------------------------------

int hsc_checkPairs(const hscScene *s, const hscPair *pairs, int npair, hsError *err) {
  if (!s || npair < 0 || (npair > 0 && !pairs)) {
    return HS_ERR(err, hsE_INVALID, "no scene or no pairs");
  }
  for (int i = 0; i < npair; i++) {
    const hscPair *p = &pairs[i];
    for (int side = 0; side < 2; side++) {
      if (p->body[side] < 0 || p->body[side] >= s->nbody) {
        return HS_ERR(err, hsE_INVALID, "pair %d: no body %d", i, p->body[side]);
      }
      if (p->link[side] < 0 || p->link[side] >= s->bodies[p->body[side]].model->nlink) {
        return HS_ERR(err, hsE_INVALID, "pair %d: body %d has no link %d", i, p->body[side],
                      p->link[side]);
      }
    }
    if (p->body[0] == p->body[1] && p->link[0] == p->link[1]) {
      return HS_ERR(err, hsE_INVALID, "pair %d: a link with itself", i);
    }
    if (!isfinite(p->tolerance) || !isfinite(p->cull) || p->tolerance < 0 || p->cull < 0) {
      return HS_ERR(err, hsE_INVALID, "pair %d: tolerance %g and cull %g must be finite and "
                    ">= 0", i, p->tolerance, p->cull);
    }
  }
  return 0;
}

static int boxesOverlap(const double *a, const double *b, double margin) {
  return a[0] <= b[3] + margin && b[0] <= a[3] + margin && a[1] <= b[4] + margin &&
         b[1] <= a[4] + margin && a[2] <= b[5] + margin && b[2] <= a[5] + margin;
}

static int geomBoxesOverlap(const hscPosed *a, const hscPosed *b, double margin) {
  return a->lo[0] <= b->hi[0] + margin && b->lo[0] <= a->hi[0] + margin &&
         a->lo[1] <= b->hi[1] + margin && b->lo[1] <= a->hi[1] + margin &&
         a->lo[2] <= b->hi[2] + margin && b->lo[2] <= a->hi[2] + margin;
}

// the geoms of a pair side: posed array and count; 0 if the body's poses are not valid
static int sideGeoms(const hscScene *s, const hscPair *p, int side, const hscPosed **g) {
  const hscBodySlot *b = &s->bodies[p->body[side]];
  if (!b->valid) {
    return 0;
  }
  const hscModel *m = b->model;
  int k = p->link[side];
  *g = b->posed + m->geomAdr[k];
  return m->geomAdr[k + 1] - m->geomAdr[k];
}

static const double *linkBox(const hscScene *s, const hscPair *p, int side) {
  return s->bodies[p->body[side]].linkAabb + 6 * p->link[side];
}

// 1 unless the loose world boxes of the links of pair p are apart (boxesOverlap's comparisons,
// margin 0), each row made only when needed: z first (a robot's links above a floor are apart
// along z alone, and their x and y rows are never made)
static int looseOverlap(hscScene *s, const hscPair *p) {
  static const int order[3] = {2, 0, 1};
  hscBodySlot *b0 = &s->bodies[p->body[0]], *b1 = &s->bodies[p->body[1]];
  for (int r = 0; r < 3; r++) {
    int j = order[r];
    const double *a = looseRow(b0, p->link[0], j), *b = looseRow(b1, p->link[1], j);
    if (!(a[j] <= b[3 + j] && b[j] <= a[3 + j])) {
      return 0;
    }
  }
  return 1;
}

//---------------------------------- contacts --------------------------------------------------

// order of two candidates by content (depth, point, normal), so that the reduction does not
// depend on the order the narrow phase found them in
static int candCmp(const hscCand *a, const hscCand *b) {
  const double ka[7] = {a->depth, a->p[0], a->p[1], a->p[2], a->n[0], a->n[1], a->n[2]};
  const double kb[7] = {b->depth, b->p[0], b->p[1], b->p[2], b->n[0], b->n[1], b->n[2]};
  for (int i = 0; i < 7; i++) {
    if (ka[i] != kb[i]) {
      return ka[i] < kb[i] ? -1 : 1;
    }
  }
  return 0;
}

// reduce candidates c[0..n) to at most k kept points (see the file comment); dmin is scratch
// of n doubles (each candidate's squared distance to the nearest kept point); returns the count
static int reduce(const hscCand *c, int n, int k, double cull, hscCand *kept, double *dmin) {
  double minD2 = fmax(cull, 1e-9);
  minD2 *= minD2;
  for (int i = 0; i < n; i++) {
    dmin[i] = INFINITY;
  }
  int nk = 0;
  while (nk < k) {
    int best = -1;
    double bestScore = -1, bestAlt = -1;
    for (int i = 0; i < n; i++) {
      // never near a kept point
      if (dmin[i] < minD2) {
        continue;
      }
      double score, alt = dmin[i];
      if (nk == 0) {
        score = c[i].depth;
      } else if (nk == 2) {
        double a[3], b[3], x[3];
        v3sub(a, c[i].p, kept[0].p);
        v3sub(b, c[i].p, kept[1].p);
        v3cross(x, a, b);
        score = v3dot(x, x);
      } else {
        score = dmin[i];
      }
      // ties (and collinear points at the third pick) go to the farthest, then by content
      if (score > bestScore || (score == bestScore && alt > bestAlt) ||
          (score == bestScore && alt == bestAlt && candCmp(&c[i], &c[best]) > 0)) {
        bestScore = score;
        bestAlt = alt;
        best = i;
      }
    }
    if (best < 0) {
      break;
    }
    kept[nk++] = c[best];
    // (after the last pick the distances are not read; a squared distance is never -0, and a
    // NaN one keeps dmin either way: the plain minimum is fmin here)
    for (int i = 0; nk < k && i < n; i++) {
      double d = v3dist2(c[i].p, c[best].p);
      dmin[i] = d < dmin[i] ? d : dmin[i];
    }
  }
  return nk;
}

int hsc_contacts(hscScene *s, const hscPair *pairs, int npair, hscContact *out, int maxOut,
                 int *pairCount) {
  return hsc_contactsMargin(s, pairs, npair, 0, out, maxOut, pairCount);
}

int hsc_contactsMargin(hscScene *s, const hscPair *pairs, int npair, double margin,
                       hscContact *out, int maxOut, int *pairCount) {
  int total = 0;
  long dropped = 0, overflow = 0;
  for (int i = 0; i < npair; i++) {
    const hscPair *p = &pairs[i];
    if (pairCount) {
      pairCount[i] = 0;
    }
    // (the loose boxes hold the exact ones; a link without geoms has an empty one, never moved)
    if (!looseOverlap(s, p)) {
      continue;
    }
    const hscPosed *ga = NULL, *gb = NULL;
    int na = sideGeoms(s, p, 0, &ga), nb = sideGeoms(s, p, 1, &gb);
    if (!na || !nb) {
      continue;
    }
    placeIfMoved(&s->bodies[p->body[0]], p->link[0]);
    placeIfMoved(&s->bodies[p->body[1]], p->link[1]);
    if (!boxesOverlap(linkBox(s, p, 0), linkBox(s, p, 1), 0)) {
      continue;
    }
    hscCandBuf buf = {s->cand, 0, s->opt.maxCandidates, 0, s->opt.capPoints, margin};
    for (int a = 0; a < na; a++) {
      for (int b = 0; b < nb; b++) {
        if (geomBoxesOverlap(&ga[a], &gb[b], 0)) {
          hsc_collideGeoms(&ga[a], &gb[b], &buf);
        }
      }
    }
    overflow += buf.overflow;
    int nk = reduce(buf.c, buf.n, s->opt.maxContactsPerPair, p->cull, s->kept, s->dmin);
    for (int q = 0; q < nk; q++) {
      if (total >= maxOut) {
        dropped++;
        continue;
      }
      hscContact *c = &out[total++];
      c->pair = i;
      v3copy(c->p, s->kept[q].p);
      v3copy(c->n, s->kept[q].n);
      v3normalize(c->n);
      c->depth = margin > 0 ? s->kept[q].depth : fmax(s->kept[q].depth, 0);
      if (pairCount) {
        pairCount[i]++;
      }
    }
  }
  warn(s, hscWARN_CANDIDATES, overflow);
  warn(s, hscWARN_CONTACTS, dropped);
  return total;
}

//---------------------------------- intersections and distances -------------------------------

// 1 if the links of pair p are within tol of each other
static int pairIntersects(hscScene *s, const hscPair *p) {
  const hscPosed *ga = NULL, *gb = NULL;
  int na = sideGeoms(s, p, 0, &ga), nb = sideGeoms(s, p, 1, &gb);
  double tol = p->tolerance;
  if (!na || !nb || !boxesOverlap(linkBox(s, p, 0), linkBox(s, p, 1), tol)) {
    return 0;
  }
  for (int a = 0; a < na; a++) {
    for (int b = 0; b < nb; b++) {
      if (!geomBoxesOverlap(&ga[a], &gb[b], tol)) {
        continue;
      }
      double pa[3], pb[3];
      if (hsc_distanceGeoms(&ga[a], &gb[b], tol, 1, &s->queue, pa, pb) <= tol) {
        return 1;
      }
    }
  }
  return 0;
}

int hsc_intersections(hscScene *s, const hscPair *pairs, int npair, int checkAll,
                      unsigned char *hit) {
  hsc_placeMoved(s);
  int count = 0;
  if (hit) {
    memset(hit, 0, (size_t)npair);
  }
  for (int i = 0; i < npair; i++) {
    if (pairIntersects(s, &pairs[i])) {
      count++;
      if (hit) {
        hit[i] = 1;
      }
      if (!checkAll) {
        break;
      }
    }
  }
  warn(s, hscWARN_QUEUE, s->queue.overflow);
  s->queue.overflow = 0;
  return count;
}

// distance between two world boxes (0 if they overlap)
static double boxDistance(const double alo[3], const double ahi[3], const double blo[3],
                          const double bhi[3]) {
  double d2 = 0;
  for (int j = 0; j < 3; j++) {
    double g = fmax(blo[j] - ahi[j], alo[j] - bhi[j]);
    if (g > 0) {
      d2 += g * g;
    }
  }
  return sqrt(d2);
}

void hsc_distances(hscScene *s, const hscPair *pairs, int npair, hscDistance *out) {
  hsc_placeMoved(s);
  for (int i = 0; i < npair; i++) {
    const hscPair *p = &pairs[i];
    hscDistance *o = &out[i];
    memset(o, 0, sizeof *o);
    o->d = -1;
    const hscPosed *ga = NULL, *gb = NULL;
    int na = sideGeoms(s, p, 0, &ga), nb = sideGeoms(s, p, 1, &gb);
    if (!na || !nb) {
      continue;
    }
    double best = INFINITY;
    for (int a = 0; a < na; a++) {
      for (int b = 0; b < nb; b++) {
        if (boxDistance(ga[a].lo, ga[a].hi, gb[b].lo, gb[b].hi) >= best) {
          continue;
        }
        double pa[3], pb[3];
        double d = hsc_distanceGeoms(&ga[a], &gb[b], best, 0, &s->queue, pa, pb);
        if (d < best) {
          best = d;
          v3copy(o->p0, pa);
          v3copy(o->p1, pb);
        }
      }
    }
    o->d = best;
  }
  warn(s, hscWARN_QUEUE, s->queue.overflow);
  s->queue.overflow = 0;
}

//---------------------------------- rays ------------------------------------------------------

// entry parameter of a ray (origin o, direction d, inv[j] = 1 / d[j]) into a world box within
// [0, tmax], or INFINITY. Multiplications by the precomputed inverse and plain comparisons
// (no divisions, no libm calls): this test runs for every link and geom a ray passes.
static double rayBox(const double lo[3], const double hi[3], const double o[3],
                     const double d[3], const double inv[3], double tmax) {
  double t0 = 0, t1 = tmax;
  for (int j = 0; j < 3; j++) {
    if (d[j] == 0) {
      if (o[j] < lo[j] || o[j] > hi[j]) {
        return INFINITY;
      }
      continue;
    }
    double a = (lo[j] - o[j]) * inv[j], b = (hi[j] - o[j]) * inv[j];
    if (a > b) {
      double x = a;
      a = b;
      b = x;
    }
    t0 = a > t0 ? a : t0;
    t1 = b < t1 ? b : t1;
    if (t0 > t1) {
      return INFINITY;
    }
  }
  return t0;
}

int hsc_ray(const hscScene *s, const double origin[3], const double dir[3], double maxT,
            hscRayHit *hit) {
  double best = maxT, bn[3] = {0, 0, 0};
  int hb = -1, hl = -1;
  if (s && hsu_allFinite(origin, 3) && hsu_allFinite(dir, 3) && v3dot(dir, dir) > 0) {
    double inv[3];
    for (int j = 0; j < 3; j++) {
      inv[j] = dir[j] != 0 ? 1 / dir[j] : 0;  // unused where dir[j] is 0
    }
    for (int i = 0; i < s->nbody; i++) {
      const hscBodySlot *b = &s->bodies[i];
      if (!b->valid) {
        continue;
      }
      const hscModel *m = b->model;
      for (int k = 0; k < m->nlink; k++) {
        if (m->geomAdr[k + 1] == m->geomAdr[k]) {
          continue;
        }
        const double *lb = b->linkAabb + 6 * k;
        if (rayBox(lb, lb + 3, origin, dir, inv, best) == INFINITY) {
          continue;
        }
        for (int gi = m->geomAdr[k]; gi < m->geomAdr[k + 1]; gi++) {
          const hscPosed *g = &b->posed[gi];
          if (rayBox(g->lo, g->hi, origin, dir, inv, best) == INFINITY) {
            continue;
          }
          double n[3];
          if (hsc_rayGeom(g, origin, dir, &best, n)) {
            v3copy(bn, n);
            hb = i;
            hl = k;
          }
        }
      }
    }
  }
  if (hit) {
    hit->t = best;
    hit->body = hb;
    hit->link = hl;
    v3copy(hit->n, bn);
    if (hb >= 0) {
      v3mad(hit->p, origin, best, dir);
    } else {
      hit->p[0] = hit->p[1] = hit->p[2] = 0;
    }
  }
  return hb >= 0;
}

// 1 if the world box (lo, hi) meets the plane through o with unit normal nrm (a little slack
// for rounding: rays of a fan deviate from their plane by rounding only)
static int boxMeetsPlane(const double lo[3], const double hi[3], const double o[3],
                         const double nrm[3]) {
  double dist = 0, radius = 0, size = 0;
  for (int j = 0; j < 3; j++) {
    double c = 0.5 * (lo[j] + hi[j]), h = 0.5 * (hi[j] - lo[j]);
    dist += nrm[j] * (c - o[j]);
    radius += fabs(nrm[j]) * h;
    size += fabs(c - o[j]) + h;
  }
  return fabs(dist) <= radius + 1e-9 * (1 + size);
}

int hsc_fanScratchSize(const hscScene *s) {
  int n = 0;
  for (int i = 0; s && i < s->nbody; i++) {
    n += s->bodies[i].model->ngeom;
  }
  return 3 * n + 1;
}

int hsc_rayFan(const hscScene *s, const double origin[3], const double normal[3],
               const double *dirs, int n, double maxT, int *scratch, double *t, int *link) {
  for (int k = 0; k < n; k++) {
    t[k] = maxT;
    if (link) {
      link[2 * k] = link[2 * k + 1] = -1;
    }
  }
  if (!s || !hsu_allFinite(origin, 3) || !hsu_allFinite(normal, 3)) {
    return 0;
  }
  // the geoms whose boxes meet the fan's plane: (body, link, geom) each, in hsc_ray's order
  int nc = 0;
  for (int i = 0; i < s->nbody; i++) {
    const hscBodySlot *b = &s->bodies[i];
    if (!b->valid) {
      continue;
    }
    const hscModel *m = b->model;
    for (int k = 0; k < m->nlink; k++) {
      const double *lb = b->linkAabb + 6 * k;
      if (m->geomAdr[k + 1] == m->geomAdr[k] || !boxMeetsPlane(lb, lb + 3, origin, normal)) {
        continue;
      }
      for (int gi = m->geomAdr[k]; gi < m->geomAdr[k + 1]; gi++) {
        if (boxMeetsPlane(b->posed[gi].lo, b->posed[gi].hi, origin, normal)) {
          scratch[3 * nc] = i;
          scratch[3 * nc + 1] = k;
          scratch[3 * nc + 2] = gi;
          nc++;
        }
      }
    }
  }
  int hits = 0;
  for (int r = 0; r < n; r++) {
    const double *dir = dirs + 3 * r;
    if (!hsu_allFinite(dir, 3) || !(v3dot(dir, dir) > 0)) {
      continue;
    }
    double inv[3], best = maxT, nn[3];
    for (int j = 0; j < 3; j++) {
      inv[j] = dir[j] != 0 ? 1 / dir[j] : 0;  // unused where dir[j] is 0
    }
    int hb = -1, hl = -1;
    for (int c = 0; c < nc; c++) {
      const hscPosed *g = &s->bodies[scratch[3 * c]].posed[scratch[3 * c + 2]];
      if (rayBox(g->lo, g->hi, origin, dir, inv, best) != INFINITY &&
          hsc_rayGeom(g, origin, dir, &best, nn)) {
        hb = scratch[3 * c];
        hl = scratch[3 * c + 1];
      }
    }
    if (hb >= 0) {
      t[r] = best;
      hits++;
      if (link) {
        link[2 * r] = hb;
        link[2 * r + 1] = hl;
      }
    }
  }
  return hits;
}

//---------------------------------- broad phase -----------------------------------------------

static int pairOrder(const void *x, const void *y) {
  const hscPair *a = x, *b = y;
  int ka[4] = {a->body[0], a->link[0], a->body[1], a->link[1]};
  int kb[4] = {b->body[0], b->link[0], b->body[1], b->link[1]};
  for (int i = 0; i < 4; i++) {
    if (ka[i] != kb[i]) {
      return ka[i] < kb[i] ? -1 : 1;
    }
  }
  return 0;
}

// 1 if (b1, l1) comes before (b2, l2)
static int pairOrderIndex(int b1, int l1, int b2, int l2) {
  return b1 < b2 || (b1 == b2 && l1 < l2);
}

// 1 if SAP entry i should sort after entry j
static int sapAfter(const hscScene *s, int i, int j) {
  const double *a = s->bodies[s->sapBody[i]].linkAabb + 6 * s->sapLink[i];
  const double *b = s->bodies[s->sapBody[j]].linkAabb + 6 * s->sapLink[j];
  if (a[0] != b[0]) {
    return a[0] > b[0];
  }
  if (s->sapBody[i] != s->sapBody[j]) {
    return s->sapBody[i] > s->sapBody[j];
  }
  return s->sapLink[i] > s->sapLink[j];
}

int hsc_sweepLinks(hscScene *s, hscPair *out, int maxOut) {
  hsc_placeMoved(s);
  // insertion sort by box lo x (nearly sorted from the last call)
  for (int i = 1; i < s->nsap; i++) {
    for (int j = i; j > 0 && sapAfter(s, j - 1, j); j--) {
      int tb = s->sapBody[j], tl = s->sapLink[j];
      s->sapBody[j] = s->sapBody[j - 1];
      s->sapLink[j] = s->sapLink[j - 1];
      s->sapBody[j - 1] = tb;
      s->sapLink[j - 1] = tl;
    }
  }
  int total = 0, written = 0;
  for (int i = 0; i < s->nsap; i++) {
    const hscBodySlot *bi = &s->bodies[s->sapBody[i]];
    if (!bi->valid) {
      continue;
    }
    const double *a = bi->linkAabb + 6 * s->sapLink[i];
    for (int j = i + 1; j < s->nsap; j++) {
      const hscBodySlot *bj = &s->bodies[s->sapBody[j]];
      const double *b = bj->linkAabb + 6 * s->sapLink[j];
      if (b[0] > a[3]) {
        break;
      }
      if (!bj->valid || !boxesOverlap(a, b, 0)) {
        continue;
      }
      total++;
      if (written < maxOut) {
        int first = pairOrderIndex(s->sapBody[i], s->sapLink[i], s->sapBody[j], s->sapLink[j]);
        hscPair *p = &out[written++];
        memset(p, 0, sizeof *p);
        p->body[0] = first ? s->sapBody[i] : s->sapBody[j];
        p->link[0] = first ? s->sapLink[i] : s->sapLink[j];
        p->body[1] = first ? s->sapBody[j] : s->sapBody[i];
        p->link[1] = first ? s->sapLink[j] : s->sapLink[i];
      }
    }
  }
  return total;
}

int hsc_overlappingLinks(hscScene *s, hscPair *out, int maxOut) {
  int total = hsc_sweepLinks(s, out, maxOut);
  qsort(out, (size_t)(total < maxOut ? total : maxOut), sizeof *out, pairOrder);
  return total;
}

long hsc_warningCount(const hscScene *s, int kind) {
  if (!s || kind < 0 || kind >= hscWARN_NTYPES) {
    return 0;
  }
  return s->warnings[kind];
}
