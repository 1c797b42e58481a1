// dynamics_geom.c - contact generation: the seam between the dynamics and the geometry. This
// file alone knows how contacts are found: it asks collision/ (hsc_, the library the
// CollisionDetector server answers from) for the contacts of the link pairs that can touch, at
// the current link poses; dynamics_contact.c turns them into ODE contact joints.
//
// Each character's collision geometry is one hscModel (built from its links' collision shapes
// by hsc_makeModel: primitives exact, anything else a mesh with a BVH); the world has one
// hscScene holding every character's model, with its buffers sized when it is made. Before a
// query the scene's link poses are brought up to date: a link carried by an ODE body takes that
// body's pose, a static link its state pose.
//
// Which link pairs are asked about: every registered contact link pair whose links may touch
// (dynamics_contact.c), or with the broad phase (below) only those whose world boxes overlap;
// the answers are bit-identical either way.
//
// Contacts of a link pair: collision/'s manifold for the pair (every geom pair of the two links
// collided, the candidates reduced to at most opt.maxContactsPerPair points per LINK pair: the
// deepest, then the most spread out, none closer than the pair's cullingThresh to a kept one).
// Conventions: collision/ puts side 0 = link[0] and gives the normal from side 0 into side 1;
// the dynamics (hsdContact, ODE) wants it from link[1] towards link[0] (ODE's "into body 1"),
// so the normal is turned over here. Points come out grouped by link pair, in link pair order.
// Intersection and distance queries ask the same scene, so a CollisionDetector client and the
// physics see the same geometry at the same poses.

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collision.h"
#include "dynamics_private.h"

// the collision geometry of one character
struct hsdShapes {
  hscModel *model;  // built from its body; owned
  int body;         // its index in the world's scene
};

// one registered contact link pair under its scene key: side 0 the lower (body, link)
typedef struct hsdPairKey {
  int body[2], link[2];  // scene bodies and links, (body[0], link[0]) < (body[1], link[1])
  int index;             // the link pair's index in w->linkPairs
} hsdPairKey;

// the world's collision scene and query buffers (w->geo)
struct hsdGeometry {
  hscScene *scene;
  hscPair *qpairs;    // the link pairs of one query
  int *qindex;        // per query pair: its index in the world's link pair list
  int *qcount;        // per query pair: its number of contact points
  hscDistance *qdist; // per query pair: its distance
  int cap;            // size of the four arrays above
  hscContact *points; // contact points of one query: room for every point of every pair (the
                      // world's opt.maxContacts cap is applied when they are copied out)
  int npoints;

  // broad phase (made at hsd_init for the contact link pairs registered then)
  hsdPairKey *keys;   // the contact link pairs sorted by (key, index)
  size_t nkey;        // = w->linkPairs.n when made; the broad phase is off when they differ
  int *slots;         // hash table (open addressing): 1 + the first position in keys of each
                      // distinct key, 0 for an empty slot
  size_t mask;        // number of slots - 1 (a power of two, at least twice the keys)
  int use;            // 1: this world's steps go through the broad phase
  hscPair *overlap;   // link pairs whose world boxes overlap (hsc_overlappingLinks)
  int capOverlap;
  int *cand;          // link pair indices of registered pairs among them (cap: nkey)
  int noverlap;       // link pairs in overlap this step; -1 when they did not fit
  int bodyIsChar;     // 1 if scene body i is character i (the group wake relies on it)
  int atState;        // 1: hsd_stateScene posed every link from the state since the
                      // last placement here (the next one re-places every link)
};

static void freeGeometry(hsdWorld *w) {
  hsdGeometry *g = w->geo;
  if (!g) {
    return;
  }
  hsc_freeScene(g->scene);
  hsu_free(g->qpairs);
  hsu_free(g->qindex);
  hsu_free(g->qcount);
  hsu_free(g->qdist);
  hsu_free(g->points);
  hsu_free(g->keys);
  hsu_free(g->slots);
  hsu_free(g->overlap);
  hsu_free(g->cand);
  hsu_free(g);
  w->geo = NULL;
}

// the world's scene, made for the first character; NULL (err filled) when memory ran out
static hsdGeometry *makeGeometry(hsdWorld *w, hsError *err) {
  freeGeometry(w);
  hsdGeometry *g = hsu_calloc(1, sizeof *g);
  if (!g) {
    HS_ERR(err, hsE_NOMEM, "out of memory");
    return NULL;
  }
  w->geo = g;
  hscOptions o;
  hsc_defaultOptions(&o);
  o.maxContactsPerPair = w->opt.maxContactsPerPair;
  if (o.maxCandidates < 4 * o.maxContactsPerPair) {
    o.maxCandidates = 4 * o.maxContactsPerPair;
  }
  g->scene = hsc_makeScene(&o, err);
  if (!g->scene) {
    freeGeometry(w);
    HS_ERR(err, hsE_NOMEM, "out of memory");
    return NULL;
  }
  return g;
}

// room for n query pairs of k points each (made for every registered pair at hsd_init; grows
// only for pairs registered after it; 0 or hsE_NOMEM)
static int reserve(hsdGeometry *g, size_t n, int k) {
  if ((size_t)g->cap >= n && g->cap > 0) {
    return 0;
  }
  size_t c = n + 1, np = c * (size_t)k;
  if (np > ((size_t)1 << 22)) {
    np = (size_t)1 << 22;  // beyond this an overflow is collision/'s counted warning
  }
  hscContact *q = hsu_realloc(g->points, np * sizeof *q);
  if (q) {
    // zeroed beyond what it held: the step copies these records (padding and the fields a
    // query leaves alone too) into the contact list that a saved state holds byte for byte
    if (np > (size_t)g->npoints) {
      memset(q + g->npoints, 0, (np - (size_t)g->npoints) * sizeof *q);
    }
    g->points = q;
    g->npoints = (int)np;
  }
  hscPair *p = hsu_realloc(g->qpairs, c * sizeof *p);
  if (p) {
    g->qpairs = p;
  }
  int *x = hsu_realloc(g->qindex, c * sizeof *x);
  if (x) {
    g->qindex = x;
  }
  int *y = hsu_realloc(g->qcount, c * sizeof *y);
  if (y) {
    g->qcount = y;
  }
  hscDistance *d = hsu_realloc(g->qdist, c * sizeof *d);
  if (d) {
    g->qdist = d;
  }
  if (!p || !x || !y || !d || !q) {
    return hsE_NOMEM;
  }
  g->cap = (int)c;
  return 0;
}

//---------------------------------- broad phase -----------------------------------------------
//
// Today's registered pairs can be many (every pair of 1,000 boxes: 500,000 link pairs) while
// few of them are near each other. With the broad phase, a step asks collision/ for the link
// pairs of the whole scene whose world boxes overlap (sweep and prune along x, its order kept
// from step to step, ties by (body, link): hsc_sweepLinks), looks each one up among the
// registered link pairs (a hash table made at hsd_init: no walk over the registered list),
// sorts the link pairs found by their index in the registered list, and asks for the contacts
// of those alone. A link pair whose boxes do not overlap has no contacts (hsc_contacts tests
// the same boxes first, with the same comparisons), so the contacts, their order and every bit
// of them are those of the walk over every registered pair; only the cost differs.

// order of two keys: (body 0, link 0, body 1, link 1), then the link pair index
static int keyCmp(const void *x, const void *y) {
  const hsdPairKey *a = x, *b = y;
  int ka[5] = {a->body[0], a->link[0], a->body[1], a->link[1], a->index};
  int kb[5] = {b->body[0], b->link[0], b->body[1], b->link[1], b->index};
  for (int i = 0; i < 5; i++) {
    if (ka[i] != kb[i]) {
      return ka[i] < kb[i] ? -1 : 1;
    }
  }
  return 0;
}

// sort n non-negative ints ascending; tmp: room for n more (insertion sort for a few, else a
// radix sort of three 11-bit digits: no comparisons, no allocation)
static void sortInts(int *v, int n, int *tmp) {
  if (n < 64) {
    for (int i = 1; i < n; i++) {
      int x = v[i], j = i - 1;
      for (; j >= 0 && v[j] > x; j--) {
        v[j + 1] = v[j];
      }
      v[j + 1] = x;
    }
    return;
  }
  int *src = v, *dst = tmp;
  for (int shift = 0; shift < 33; shift += 11) {
    int count[2049] = {0};
    for (int i = 0; i < n; i++) {
      count[(((unsigned)src[i] >> shift) & 2047) + 1]++;
    }
    for (int d = 0; d < 2048; d++) {
      count[d + 1] += count[d];
    }
    for (int i = 0; i < n; i++) {
      dst[count[((unsigned)src[i] >> shift) & 2047]++] = src[i];
    }
    int *t = src;
    src = dst;
    dst = t;
  }
  memcpy(v, src, (size_t)n * sizeof *v);  // three passes: the result is in tmp
}

// the key of link pair lp (its sides in scene order)
static void pairKey(const hsdWorld *w, const hsdLinkPair *lp, int index, hsdPairKey *k) {
  int b0 = w->chars[lp->ch[0]].shapes->body, b1 = w->chars[lp->ch[1]].shapes->body;
  int swap = b1 < b0 || (b1 == b0 && lp->link[1] < lp->link[0]);
  k->body[0] = swap ? b1 : b0;
  k->link[0] = swap ? lp->link[1] : lp->link[0];
  k->body[1] = swap ? b0 : b1;
  k->link[1] = swap ? lp->link[0] : lp->link[1];
  k->index = index;
}

// the hash of a key's links
static size_t keyHash(int b0, int l0, int b1, int l1) {
  uint64_t h = (uint64_t)(unsigned)b0 * 0x9E3779B97F4A7C15ull;
  h = (h ^ (unsigned)l0) * 0xC2B2AE3D27D4EB4Full;
  h = (h ^ (unsigned)b1) * 0x165667B19E3779F9ull;
  h = (h ^ (unsigned)l1) * 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 17);
}

// 1 if key k joins the links of p
static int keyIs(const hsdPairKey *k, const hscPair *p) {
  return k->body[0] == p->body[0] && k->link[0] == p->link[0] && k->body[1] == p->body[1] &&
         k->link[1] == p->link[1];
}

// the look-up table of the contact link pairs registered now and the broad phase's buffers
// (hsd_init); 0 or hsE_NOMEM
static int makeBroadPhase(hsdWorld *w) {
  hsdGeometry *g = w->geo;
  size_t n = w->linkPairs.n;
  int nlink = 0;
  for (int ci = 0; ci < w->nchar; ci++) {
    const hsdShapes *sh = w->chars[ci].shapes;
    for (int k = 0; k < w->chars[ci].body->nlink; k++) {
      nlink += hsc_modelGeomCount(sh->model, k) > 0;
    }
  }
  int mode = w->opt.broadPhase;
  g->use = mode == hsBROAD_ON || (mode == hsBROAD_AUTO && n > 4 * (size_t)nlink);
  g->bodyIsChar = 1;
  for (int ci = 0; ci < w->nchar; ci++) {
    g->bodyIsChar &= w->chars[ci].shapes->body == ci;
  }
  hsu_free(g->keys);
  hsu_free(g->slots);
  hsu_free(g->cand);
  hsu_free(g->overlap);
  g->keys = NULL;
  g->slots = NULL;
  g->cand = NULL;
  g->overlap = NULL;
  g->nkey = 0;
  g->capOverlap = 0;
  // room for as many overlapping link pairs as make sense (every link touching a handful of
  // others); beyond it a step walks every pair (a counted warning). Sleeping uses them too.
  size_t cap = 16 * (size_t)nlink + 1024;
  g->overlap = hsu_malloc(cap * sizeof *g->overlap);
  if (!g->overlap) {
    g->use = 0;
    return hsE_NOMEM;
  }
  g->capOverlap = (int)cap;
  if (!g->use) {
    return 0;
  }
  size_t nslot = 16;
  while (nslot < 2 * n) {
    nslot *= 2;
  }
  g->keys = hsu_malloc((n + 1) * sizeof *g->keys);
  g->slots = hsu_calloc(nslot, sizeof *g->slots);
  g->cand = hsu_malloc(2 * (n + 1) * sizeof *g->cand);  // and as much scratch for sorting
  if (!g->keys || !g->slots || !g->cand) {
    g->use = 0;
    return hsE_NOMEM;
  }
  const hsdLinkPair *lps = w->linkPairs.data;
  for (size_t i = 0; i < n; i++) {
    pairKey(w, &lps[i], (int)i, &g->keys[i]);
  }
  // equal keys (one link pair registered twice) side by side, by index; each distinct key
  // once in the table
  qsort(g->keys, n, sizeof *g->keys, keyCmp);
  g->mask = nslot - 1;
  for (size_t i = 0; i < n; i++) {
    const hsdPairKey *k = &g->keys[i];
    hscPair p = {{k->body[0], k->body[1]}, {k->link[0], k->link[1]}, 0, 0};
    if (i > 0 && keyIs(&g->keys[i - 1], &p)) {
      continue;
    }
    size_t h = keyHash(k->body[0], k->link[0], k->body[1], k->link[1]) & g->mask;
    while (g->slots[h]) {
      h = (h + 1) & g->mask;
    }
    g->slots[h] = (int)i + 1;
  }
  g->nkey = n;
  return 0;
}

// the registered contact link pairs whose links' world boxes overlap now, by index, into
// g->cand; their number, or -1 when the broad phase cannot answer this step (not in use, pairs
// registered since hsd_init, or more overlapping link pairs than its buffer holds: counted)
static int broadPhase(hsdWorld *w) {
  hsdGeometry *g = w->geo;
  g->noverlap = -1;
  if (!g->use || g->nkey != w->linkPairs.n) {
    return -1;
  }
  int total = hsc_sweepLinks(g->scene, g->overlap, g->capOverlap);
  g->noverlap = total <= g->capOverlap ? total : -1;
  if (total > g->capOverlap) {
    hsd_warn(w, hsdWARN_BROADPHASE, "more than %d link pairs with overlapping boxes in one "
             "step; every registered pair was tested", g->capOverlap);
    return -1;
  }
  int n = 0;
  for (int i = 0; i < total; i++) {
    const hscPair *p = &g->overlap[i];
    size_t h = keyHash(p->body[0], p->link[0], p->body[1], p->link[1]) & g->mask;
    for (; g->slots[h]; h = (h + 1) & g->mask) {
      size_t k = (size_t)g->slots[h] - 1;
      if (keyIs(&g->keys[k], p)) {
        for (; k < g->nkey && keyIs(&g->keys[k], p); k++) {
          g->cand[n++] = g->keys[k].index;
        }
        break;
      }
    }
  }
  // the contacts reach ODE in registration order, whatever order the sweep found them in
  sortInts(g->cand, n, g->cand + n);
  return n;
}

int hsd_makeShapes(hsdWorld *w, int ch, hsError *err) {
  hsdCharacter *c = &w->chars[ch];
  if (ch == 0 || !w->geo) {
    if (!makeGeometry(w, err)) {
      return hsE_NOMEM;
    }
  }
  hsdShapes *sh = hsu_calloc(1, sizeof *sh);
  c->shapes = sh;
  if (!sh) {
    return HS_ERR(err, hsE_NOMEM, "out of memory");
  }
  sh->model = hsc_makeModel(c->body, NULL, err);
  if (!sh->model) {
    return hsE_NOMEM;
  }
  sh->body = hsc_addBody(w->geo->scene, sh->model, err);
  if (sh->body < 0) {
    return hsE_NOMEM;
  }
  hsd_placeShapes(w, ch);
  // the last character: query buffers for every registered link pair and the broad phase, so
  // that no step allocates
  if (ch == w->nchar - 1 &&
      (reserve(w->geo, w->linkPairs.n + w->ilinkPairs.n, w->opt.maxContactsPerPair) < 0 ||
       makeBroadPhase(w) < 0)) {
    return HS_ERR(err, hsE_NOMEM, "out of memory");
  }
  if (ch == w->nchar - 1) {
    hsd_setupSleep(w);
  }
  return 0;
}

void hsd_freeShapes(hsdWorld *w, int ch) {
  hsdShapes *sh = w->chars[ch].shapes;
  // the scene goes with the first character's geometry (it borrows every model, and a world
  // frees all of its characters' geometry together)
  if (ch == 0 || !w->geo) {
    freeGeometry(w);
  }
  if (!sh) {
    return;
  }
  hsc_freeModel(sh->model);
  hsu_free(sh);
  w->chars[ch].shapes = NULL;
  int any = 0;
  for (int i = 0; i < w->nchar; i++) {
    any |= w->chars[i].shapes != NULL;
  }
  if (!any) {
    freeGeometry(w);
  }
}

// the scene pose of link k of character ch: its ODE body's on the ODE engine, else its state
// pose (the joint-space engine's own, which its ODE bodies only copy); the link's geoms are
// placed when a query needs them (hsc_moveLink: a robot's links far from the floor never are)
static void placeLink(hsdWorld *w, int ch, int k) {
  const hsdCharacter *c = &w->chars[ch];
  const hsdLinkOde *l = &c->links[k];
  double p[3], R[9];
  const double *pp = c->state->linkP + 3 * k, *RR = c->state->linkR + 9 * k;
  if (l->body && !c->jsd) {
    hsd_linkPoseFromBody(l, p, R);
    pp = p;
    RR = R;
  }
  // a non-finite pose is refused by the scene (counted there; the link keeps its last pose)
  hsc_moveLink(w->geo->scene, c->shapes->body, k, pp, RR, NULL);
}

void hsd_placeShapes(hsdWorld *w, int ch) {
  const hsdCharacter *c = &w->chars[ch];
  if (!w->geo || !c->shapes) {
    return;
  }
  for (int k = 0; k < c->body->nlink; k++) {
    if (!c->links[k].body) {
      placeLink(w, ch, k);
    }
  }
}

void hsd_placeCharacterShapes(hsdWorld *w, int ch) {
  const hsdCharacter *c = &w->chars[ch];
  for (int k = 0; w->geo && c->shapes && k < c->body->nlink; k++) {
    placeLink(w, ch, k);
  }
}

void hsd_placeAllShapes(hsdWorld *w) {
  for (int ci = 0; w->geo && ci < w->nchar; ci++) {
    for (int k = 0; w->chars[ci].shapes && k < w->chars[ci].body->nlink; k++) {
      placeLink(w, ci, k);
    }
  }
  hsd_shapesMoved(w);
}

//---------------------------------- queries ---------------------------------------------------

void hsd_shapesCurrent(hsdWorld *w) {
  // the geometry is where the last step (or hsd_init) left the bodies
  for (int ci = 0; ci < w->nchar; ci++) {
    if (w->chars[ci].teleported) {
      hsd_applyTeleport(w, ci, w->chars[ci].rep);
    }
  }
  hsd_shapesMoved(w);
}

void hsd_shapesMoved(hsdWorld *w) {
  if (!w->geo) {
    return;
  }
  if (w->geo->atState) {
    // the scene was lent at the state's poses: every link back where the dynamics puts it (a
    // sleeping body's too: it has not moved since it was placed, so it gets the same bits)
    w->geo->atState = 0;
    for (int ci = 0; ci < w->nchar; ci++) {
      for (int k = 0; w->chars[ci].shapes && k < w->chars[ci].body->nlink; k++) {
        placeLink(w, ci, k);
      }
    }
    return;
  }
  for (int ci = 0; ci < w->nchar; ci++) {
    const hsdCharacter *c = &w->chars[ci];
    if (c->links[0].body && !dBodyIsEnabled(c->links[0].body) && !c->resynced) {
      continue;  // asleep where it was placed last (a teleport marks it resynced)
    }
    if (c->jsd && c->shapes) {
      // (the joint-space engine: every link at its state pose, at once; a link without an ODE
      // body of its own is already there)
      hsc_moveLinks(w->geo->scene, c->shapes->body, c->state->linkP, c->state->linkR, NULL);
      continue;
    }
    for (int k = 0; c->shapes && k < c->body->nlink; k++) {
      if (c->links[k].body) {
        placeLink(w, ci, k);
      }
    }
  }
}

const hscScene *hsd_stateScene(hsdWorld *w) {
  hsdGeometry *g = w ? w->geo : NULL;
  if (!g || !w->initialised) {
    return NULL;
  }
  for (int ci = 0; ci < w->nchar; ci++) {
    const hsdCharacter *c = &w->chars[ci];
    for (int k = 0; c->shapes && k < c->body->nlink; k++) {
      // a non-finite pose is refused by the scene (the link keeps its last pose)
      hsc_setLinkPose(g->scene, c->shapes->body, k, c->state->linkP + 3 * k,
                      c->state->linkR + 9 * k, NULL);
    }
  }
  g->atState = 1;
  return g->scene;
}

// the scene pair of link pair lp whose characters are scene bodies body[2]: side 0 is link[0]
static inline void scenePairOf(const int body[2], const hsdLinkPair *lp, double tol,
                               double cull, hscPair *out) {
  memset(out, 0, sizeof *out);
  for (int s = 0; s < 2; s++) {
    out->body[s] = body[s];
    out->link[s] = lp->link[s];
  }
  out->tolerance = tol;
  out->cull = cull;
}

// the scene pair of link pair lp: side 0 is link[0]
static void scenePair(const hsdWorld *w, const hsdLinkPair *lp, double tol, double cull,
                      hscPair *out) {
  int body[2] = {w->chars[lp->ch[0]].shapes->body, w->chars[lp->ch[1]].shapes->body};
  scenePairOf(body, lp, tol, cull, out);
}

// 1 if point a comes before point b in the order the dynamics hands a pair's points to ODE:
// descending x, then y, then z
static int before(const hscContact *a, const hscContact *b) {
  for (int j = 0; j < 3; j++) {
    if (a->p[j] != b->p[j]) {
      return a->p[j] > b->p[j];
    }
  }
  return 0;
}

// the points of each pair in a fixed spatial order (before()) instead of collision/'s (the
// deepest, then the farthest from it, ...): ODE's pivoting LCP solver (dWorldStep) is sensitive
// to the order of the rows on degenerate resting contacts (a box on a floor pushed face-on by a
// kinematic box: 8 points, 24 rows on 6 dofs) and was seen to fail once in 1000 steps with
// collision/'s order and with a corner-polygon order, not with this one. The order never
// changes which points there are.
static void orderPoints(hscContact *pts, int n) {
  for (int first = 0; first < n;) {
    int last = first + 1;
    while (last < n && pts[last].pair == pts[first].pair) {
      last++;
    }
    // insertion sort (a handful of points, stable)
    for (int i = first + 1; i < last; i++) {
      hscContact t = pts[i];
      int j = i - 1;
      for (; j >= first && before(&t, &pts[j]); j--) {
        pts[j + 1] = pts[j];
      }
      pts[j + 1] = t;
    }
    first = last;
  }
}

// sleeping: wake every sleeping character whose world box meets that of an awake one that
// wakes its neighbours (hsd_wakesNeighbours), in the sweep's order (a function of the poses)
static void wakeGroups(hsdWorld *w) {
  hsdGeometry *g = w->geo;
  if (!g->bodyIsChar || !g->overlap) {
    return;
  }
  int any = 0;
  for (int ci = 0; ci < w->nchar && !any; ci++) {
    any = hsd_sleeping(w, ci);
  }
  if (!any) {
    return;  // nothing to wake
  }
  if (g->noverlap < 0) {
    int total = hsc_sweepLinks(g->scene, g->overlap, g->capOverlap);
    g->noverlap = total <= g->capOverlap ? total : -1;
    if (g->noverlap < 0) {
      return;  // (contacts still wake: ODE's island walk, hsd_wakeTouched)
    }
  }
  for (int i = 0; i < g->noverlap; i++) {
    int a = g->overlap[i].body[0], b = g->overlap[i].body[1];
    if (a != b && hsd_wakesNeighbours(w, a)) {
      hsd_wake(w, b);
    }
    if (a != b && hsd_wakesNeighbours(w, b)) {
      hsd_wake(w, a);
    }
  }
}

// which characters the last link pair asked about joined, their scene bodies, and whether
// they may touch
typedef struct CharsSeen {
  int ch[2], body[2];
  int mayTouch;
} CharsSeen;

// add link pair i to the query when its links may touch this step (hsd_linksMayTouch, and
// hsd_charsMayTouch asked once for a run of link pairs between the same two characters)
static inline void queryPair(hsdWorld *w, int i, int *nq, CharsSeen *seen) {
  hsdGeometry *g = w->geo;
  const hsdLinkPair *lp = (const hsdLinkPair *)w->linkPairs.data + i;
  if (lp->ch[0] != seen->ch[0] || lp->ch[1] != seen->ch[1]) {
    for (int s = 0; s < 2; s++) {
      seen->ch[s] = lp->ch[s];
      seen->body[s] = w->chars[lp->ch[s]].shapes->body;
    }
    seen->mayTouch = hsd_charsMayTouch(w, lp->ch[0], lp->ch[1]);
  }
  if (seen->mayTouch && hsd_linksMayTouch(w, lp)) {
    scenePairOf(seen->body, lp, 0, w->pairs[lp->pair].surface.cullingThresh, &g->qpairs[*nq]);
    g->qindex[(*nq)++] = i;
  }
}

int hsd_findContacts(hsdWorld *w, hsdContact *out, int max, int *dropped) {
  *dropped = 0;
  hsdGeometry *g = w->geo;
  if (!g || reserve(g, w->linkPairs.n, w->opt.maxContactsPerPair) < 0) {
    return 0;
  }
  hsd_shapesMoved(w);
  const hsdLinkPair *lps = w->linkPairs.data;
  int nq = 0, ncand = broadPhase(w);
  if (w->opt.sleep) {
    wakeGroups(w);
  }
  CharsSeen seen = {{-1, -1}, {-1, -1}, 0};
  if (ncand >= 0) {
    for (int c = 0; c < ncand; c++) {
      queryPair(w, g->cand[c], &nq, &seen);
    }
  } else {
    for (size_t i = 0; i < w->linkPairs.n; i++) {
      queryPair(w, (int)i, &nq, &seen);
    }
  }
  // (the joint-space engine also takes a face's clipped points within a margin, as gaps)
  double margin = w->opt.engine == hsENGINE_JOINT_SPACE ? hsdJS_CONTACT_MARGIN : 0;
  int np = hsc_contactsMargin(g->scene, g->qpairs, nq, margin, g->points, g->npoints, g->qcount);
  orderPoints(g->points, np);
  int n = 0;
  for (int i = 0; i < np && n < max; i++) {
    const hscContact *pc = &g->points[i];
    const hsdLinkPair *lp = &lps[g->qindex[pc->pair]];
    hsdContact *hc = &out[n++];
    hc->pair = lp->pair;
    memcpy(hc->ch, lp->ch, sizeof hc->ch);
    memcpy(hc->link, lp->link, sizeof hc->link);
    for (int j = 0; j < 3; j++) {
      hc->p[j] = pc->p[j];
      hc->n[j] = -pc->n[j];  // collision/: side 0 into side 1; here: link[1] towards link[0]
      hc->force[j] = 0;
    }
    hc->depth = pc->depth;
  }
  *dropped = np - n;
  return n;
}

int hsd_touches(hsdWorld *w, const hsdLinkPair *lp, double tolerance) {
  if (!w->geo) {
    return 0;
  }
  hscPair p;
  scenePair(w, lp, tolerance, 0, &p);
  return hsc_intersections(w->geo->scene, &p, 1, 0, NULL) > 0;
}

int hsd_checkDistances(hsdWorld *w, hsdDistance *out, int max) {
  if (!w || !w->initialised || !w->geo) {
    return hsE_INVALID;
  }
  hsd_shapesCurrent(w);
  hsdGeometry *g = w->geo;
  size_t total = w->linkPairs.n + w->ilinkPairs.n;
  if (reserve(g, total, w->opt.maxContactsPerPair) < 0) {
    return hsE_NOMEM;
  }
  int nq = 0;
  for (int list = 0; list < 2; list++) {
    const hsuVec *v = list ? &w->ilinkPairs : &w->linkPairs;
    const hsdLinkPair *lps = v->data;
    for (size_t i = 0; i < v->n; i++) {
      const hsdPair *rp = list ? &w->ipairs[lps[i].pair] : &w->pairs[lps[i].pair];
      scenePair(w, &lps[i], rp->tolerance, 0, &g->qpairs[nq++]);
    }
  }
  hsc_distances(g->scene, g->qpairs, nq, g->qdist);
  int k = 0;
  for (int list = 0; list < 2; list++) {
    const hsuVec *v = list ? &w->ilinkPairs : &w->linkPairs;
    const hsdLinkPair *lps = v->data;
    for (size_t i = 0; i < v->n; i++, k++) {
      if (k >= max) {
        continue;
      }
      const hscDistance *d = &g->qdist[k];
      hsdDistance *o = &out[k];
      o->pair = list ? w->npair + lps[i].pair : lps[i].pair;
      memcpy(o->ch, lps[i].ch, sizeof o->ch);
      memcpy(o->link, lps[i].link, sizeof o->link);
      o->empty = 0;
      for (int s = 0; s < 2; s++) {
        const hsdShapes *sh = w->chars[lps[i].ch[s]].shapes;
        o->empty |= hsc_modelGeomCount(sh->model, lps[i].link[s]) == 0;
      }
      o->d = d->d;
      memcpy(o->p0, d->p0, sizeof o->p0);
      memcpy(o->p1, d->p1, sizeof o->p1);
    }
  }
  return nq;
}

int hsd_intersectingLinks(hsdWorld *w, int checkAll, hsdLinkHit *out, int max) {
  if (!w || !w->initialised || !w->geo) {
    return hsE_INVALID;
  }
  hsd_shapesCurrent(w);
  int count = 0;
  for (int list = 0; list < 2; list++) {
    const hsuVec *v = list ? &w->ilinkPairs : &w->linkPairs;
    const hsdLinkPair *lps = v->data;
    for (size_t i = 0; i < v->n; i++) {
      const hsdLinkPair *lp = &lps[i];
      const hsdCharacter *c1 = &w->chars[lp->ch[0]], *c2 = &w->chars[lp->ch[1]];
      if (lp->ch[0] == lp->ch[1] && c1->links[lp->link[0]].top == c2->links[lp->link[1]].top) {
        continue;
      }
      double tol = list ? w->ipairs[lp->pair].tolerance : 0;
      if (!hsd_touches(w, lp, tol)) {
        continue;
      }
      if (count < max) {
        hsdLinkHit *h = &out[count];
        h->pair = list ? w->npair + lp->pair : lp->pair;
        memcpy(h->ch, lp->ch, sizeof h->ch);
        memcpy(h->link, lp->link, sizeof h->link);
        h->tolerance = tol;
      }
      count++;
      if (!checkAll) {
        return count;
      }
    }
  }
  return count;
}
