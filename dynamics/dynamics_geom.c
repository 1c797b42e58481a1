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
// Contacts of a link pair: collision/'s manifold for the pair (every geom pair of the two links
// collided, the candidates reduced to at most opt.maxContactsPerPair points per LINK pair: the
// deepest, then the most spread out, none closer than the pair's cullingThresh to a kept one).
// Conventions: collision/ puts side 0 = link[0] and gives the normal from side 0 into side 1;
// the dynamics (hsdContact, ODE) wants it from link[1] towards link[0] (ODE's "into body 1"),
// so the normal is turned over here. Points come out grouped by link pair, in link pair order.
// Intersection and distance queries ask the same scene, so a CollisionDetector client and the
// physics see the same geometry at the same poses.

#include <math.h>
#include <string.h>

#include "collision.h"
#include "dynamics_private.h"

// the collision geometry of one character
struct hsdShapes {
  hscModel *model;  // built from its body; owned
  int body;         // its index in the world's scene
};

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
  // the last character: query buffers for every registered link pair, so that no step
  // allocates
  if (ch == w->nchar - 1 &&
      reserve(w->geo, w->linkPairs.n + w->ilinkPairs.n, w->opt.maxContactsPerPair) < 0) {
    return HS_ERR(err, hsE_NOMEM, "out of memory");
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

// the scene pose of link k of character ch: its ODE body's, or its state pose
static void placeLink(hsdWorld *w, int ch, int k) {
  const hsdCharacter *c = &w->chars[ch];
  const hsdLinkOde *l = &c->links[k];
  double p[3], R[9];
  if (l->body) {
    hsd_linkPoseFromBody(l, p, R);
  } else {
    memcpy(p, c->state->linkP + 3 * k, sizeof p);
    memcpy(R, c->state->linkR + 9 * k, sizeof R);
  }
  // a non-finite pose is refused by the scene (counted there; the link keeps its last pose)
  hsc_setLinkPose(w->geo->scene, c->shapes->body, k, p, R, NULL);
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

//---------------------------------- queries ---------------------------------------------------

void hsd_shapesMoved(hsdWorld *w) {
  if (!w->geo) {
    return;
  }
  for (int ci = 0; ci < w->nchar; ci++) {
    const hsdCharacter *c = &w->chars[ci];
    for (int k = 0; c->shapes && k < c->body->nlink; k++) {
      if (c->links[k].body) {
        placeLink(w, ci, k);
      }
    }
  }
}

// the scene pair of link pair lp: side 0 is link[0]
static void scenePair(const hsdWorld *w, const hsdLinkPair *lp, double tol, double cull,
                      hscPair *out) {
  memset(out, 0, sizeof *out);
  for (int s = 0; s < 2; s++) {
    out->body[s] = w->chars[lp->ch[s]].shapes->body;
    out->link[s] = lp->link[s];
  }
  out->tolerance = tol;
  out->cull = cull;
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

int hsd_findContacts(hsdWorld *w, const unsigned char *active, hsdContact *out, int max,
                     int *dropped) {
  *dropped = 0;
  hsdGeometry *g = w->geo;
  if (!g || reserve(g, w->linkPairs.n, w->opt.maxContactsPerPair) < 0) {
    return 0;
  }
  hsd_shapesMoved(w);
  const hsdLinkPair *lps = w->linkPairs.data;
  int nq = 0;
  for (size_t i = 0; i < w->linkPairs.n; i++) {
    if (active[i]) {
      scenePair(w, &lps[i], 0, w->pairs[lps[i].pair].surface.cullingThresh, &g->qpairs[nq]);
      g->qindex[nq++] = (int)i;
    }
  }
  int np = hsc_contacts(g->scene, g->qpairs, nq, g->points, g->npoints, g->qcount);
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
  // the geometry is where the last step (or hsd_init) left the bodies; apply pending teleports
  for (int ci = 0; ci < w->nchar; ci++) {
    if (w->chars[ci].teleported) {
      hsd_applyTeleport(w, ci, w->chars[ci].rep);
    }
  }
  hsdGeometry *g = w->geo;
  size_t total = w->linkPairs.n + w->ilinkPairs.n;
  if (reserve(g, total, w->opt.maxContactsPerPair) < 0) {
    return hsE_NOMEM;
  }
  hsd_shapesMoved(w);
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
  for (int ci = 0; ci < w->nchar; ci++) {
    if (w->chars[ci].teleported) {
      hsd_applyTeleport(w, ci, w->chars[ci].rep);
    }
  }
  hsd_shapesMoved(w);
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
