// collision_boxes.c - OpenHRP's bounding-box mode (ModelLoader's AABBdata): the boxes of one
// level of an axis-aligned bounding-box tree over a link's collision triangles, in the link
// frame.
//
// The tree: every triangle of the link's collision shapes (each under its shape reference's
// transform), one triangle per leaf; a node with more splits its triangles at the median of
// their centres along the longest axis of the centres' bounds (ties by triangle order, so the
// tree is deterministic). Level 0 is the root. The boxes of level d are the nodes at level d
// plus the leaves above it, in depth-first order (OpenHRP's getBoundingBoxData), so that their
// count grows with d up to one box per triangle. OpenHRP's tree is Opcode's; the levels and
// counts here are this tree's.

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "collision_private.h"

typedef struct Key {
  double key;
  int tri;
} Key;

typedef struct BoxTree {
  const double *v;  // 9 per triangle: its corners, link frame
  Key *keys;        // scratch of one split
  int *tris;        // triangle order (the tree permutes it)
  int depth;        // levels so far
  int *nodes, *leaves;  // per level: nodes, and leaves among them (sized by triangle count)
  int want;         // level whose boxes are collected (-1: none)
  double *out;      // 6 per box
  int nout, maxOut;
} BoxTree;

static int keyCmp(const void *a, const void *b) {
  const Key *x = a, *y = b;
  if (x->key != y->key) {
    return x->key < y->key ? -1 : 1;
  }
  return x->tri - y->tri;
}

static void bounds(const BoxTree *t, const int *tris, int n, double lo[3], double hi[3]) {
  for (int j = 0; j < 3; j++) {
    lo[j] = DBL_MAX;
    hi[j] = -DBL_MAX;
  }
  for (int i = 0; i < n; i++) {
    const double *c = t->v + 9 * tris[i];
    for (int k = 0; k < 3; k++) {
      for (int j = 0; j < 3; j++) {
        lo[j] = c[3 * k + j] < lo[j] ? c[3 * k + j] : lo[j];
        hi[j] = c[3 * k + j] > hi[j] ? c[3 * k + j] : hi[j];
      }
    }
  }
}

static void build(BoxTree *t, int *tris, int n, int level) {
  if (level + 1 > t->depth) {
    t->depth = level + 1;
  }
  t->nodes[level]++;
  if (n == 1) {
    t->leaves[level]++;
  }
  if (t->want >= 0 && (level == t->want || (n == 1 && level < t->want))) {
    if (t->nout < t->maxOut) {
      double *o = t->out + 6 * t->nout;
      bounds(t, tris, n, o, o + 3);
    }
    t->nout++;
  }
  if (n == 1) {
    return;
  }
  // split at the median centre along the longest axis of the centres' bounds
  double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
  for (int i = 0; i < n; i++) {
    const double *c = t->v + 9 * tris[i];
    for (int j = 0; j < 3; j++) {
      double m = (c[j] + c[3 + j] + c[6 + j]) / 3;
      lo[j] = m < lo[j] ? m : lo[j];
      hi[j] = m > hi[j] ? m : hi[j];
    }
  }
  int axis = 0;
  for (int j = 1; j < 3; j++) {
    if (hi[j] - lo[j] > hi[axis] - lo[axis]) {
      axis = j;
    }
  }
  for (int i = 0; i < n; i++) {
    const double *c = t->v + 9 * tris[i];
    t->keys[i].key = c[axis] + c[3 + axis] + c[6 + axis];
    t->keys[i].tri = tris[i];
  }
  qsort(t->keys, (size_t)n, sizeof *t->keys, keyCmp);
  for (int i = 0; i < n; i++) {
    tris[i] = t->keys[i].tri;
  }
  int half = n / 2;
  build(t, tris, half, level + 1);
  build(t, tris + half, n - half, level + 1);
}

int hsc_linkBoxTree(const hsBody *body, int link, int level, double *boxes, int maxBoxes,
                    int *depth, int *counts, int maxCounts, hsError *err) {
  if (!body || link < 0 || link >= body->nlink) {
    return HS_ERR(err, hsE_INVALID, "no link %d", link);
  }
  const hsLink *lk = &body->links[link];
  int n = 0;
  for (int r = 0; r < lk->ncollisionRef; r++) {
    int s = lk->collisionRefs[r].shape;
    if (s >= 0 && s < body->nshape) {
      n += body->shapes[s].ntriangle;
    }
  }
  BoxTree t;
  memset(&t, 0, sizeof t);
  t.want = level;
  t.out = boxes;
  t.maxOut = boxes ? maxBoxes : 0;
  double *v = n ? hsu_malloc(sizeof(double) * 9 * (size_t)n) : NULL;
  t.keys = n ? hsu_malloc(sizeof(Key) * (size_t)n) : NULL;
  t.tris = n ? hsu_malloc(sizeof(int) * (size_t)n) : NULL;
  t.nodes = hsu_calloc((size_t)n + 1, sizeof(int));
  t.leaves = hsu_calloc((size_t)n + 1, sizeof(int));
  if ((n && (!v || !t.keys || !t.tris)) || !t.nodes || !t.leaves) {
    hsu_free(v);
    hsu_free(t.keys);
    hsu_free(t.tris);
    hsu_free(t.nodes);
    hsu_free(t.leaves);
    return HS_ERR(err, hsE_NOMEM, "out of memory");
  }
  // the triangles in the link frame (indices out of range are skipped)
  int m = 0;
  for (int r = 0; r < lk->ncollisionRef; r++) {
    const hsShapeRef *ref = &lk->collisionRefs[r];
    if (ref->shape < 0 || ref->shape >= body->nshape) {
      continue;
    }
    const hsShape *sh = &body->shapes[ref->shape];
    for (int i = 0; i < sh->ntriangle; i++) {
      const int *tri = sh->triangles + 3 * i;
      int ok = 1;
      for (int k = 0; k < 3; k++) {
        ok = ok && tri[k] >= 0 && tri[k] < sh->nvertex;
      }
      if (!ok) {
        continue;
      }
      for (int k = 0; k < 3; k++) {
        const float *p = sh->vertices + 3 * tri[k];
        double q[3] = {p[0], p[1], p[2]};
        hsu_transformPoint(v + 9 * m + 3 * k, ref->T, q);
      }
      t.tris[m] = m;
      m++;
    }
  }
  t.v = v;
  if (m > 0) {
    build(&t, t.tris, m, 0);
  }
  if (depth) {
    *depth = t.depth;
  }
  // boxes at level d: the nodes there and the leaves above
  int above = 0;
  for (int d = 0; d < t.depth; d++) {
    if (counts && d < maxCounts) {
      counts[d] = t.nodes[d] + above;
    }
    above += t.leaves[d];
  }
  hsu_free(v);
  hsu_free(t.keys);
  hsu_free(t.tris);
  hsu_free(t.nodes);
  hsu_free(t.leaves);
  return t.nout;
}
