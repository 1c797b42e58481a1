// collision_bvh.c - triangle meshes and their bounding-volume hierarchy.
//
// A mesh is copied into doubles (transformed by its shape transform if that scales), and its
// triangles are ordered so that every BVH node covers a contiguous run of them. The tree is a
// binary tree of axis-aligned boxes in the geom frame, stored depth first (a node's first child
// follows it, the second sits at node.right). It is built top down with the surface area
// heuristic evaluated over 16 bins of triangle centroids on each axis; a node with at most
// leafSize triangles becomes a leaf. Beyond depth 40 nodes are split in half by count, so no
// input can make the tree deeper than HSC_MAX_DEPTH. The build is deterministic (no sorting
// with unstable ties, no hashing). Each node also keeps an oriented box fitted to its
// triangles (one axis along their mean normal, two along their spread in that plane) and a
// sphere around it or around the box, for distance bounds.

#include <float.h>
#include <string.h>

#include "collision_private.h"

#define NBINS 16
#define SAH_DEPTH 40

// build scratch: per triangle its box and centroid
typedef struct Build {
  hscMesh *m;
  double *tlo, *thi, *cen;  // 3 per triangle, in the current triangle order
  int *order;               // current triangle order (indices into the input)
  const int *tri;           // the input triangles
  int leafSize;
  int depth;
} Build;

static void growBox(double lo[3], double hi[3], const double plo[3], const double phi[3]) {
  for (int j = 0; j < 3; j++) {
    lo[j] = fmin(lo[j], plo[j]);
    hi[j] = fmax(hi[j], phi[j]);
  }
}

static double area(const double lo[3], const double hi[3]) {
  double d[3] = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
  if (d[0] < 0) {
    return 0;
  }
  return d[0] * d[1] + d[1] * d[2] + d[2] * d[0];
}

// swap triangles i and j of the build order (and their cached boxes)
static void swapTri(Build *b, int i, int j) {
  int t = b->order[i];
  b->order[i] = b->order[j];
  b->order[j] = t;
  for (int k = 0; k < 3; k++) {
    double x = b->tlo[3 * i + k];
    b->tlo[3 * i + k] = b->tlo[3 * j + k];
    b->tlo[3 * j + k] = x;
    x = b->thi[3 * i + k];
    b->thi[3 * i + k] = b->thi[3 * j + k];
    b->thi[3 * j + k] = x;
    x = b->cen[3 * i + k];
    b->cen[3 * i + k] = b->cen[3 * j + k];
    b->cen[3 * j + k] = x;
  }
}

// the split position of [first, first + count): partitions the range and returns the size of
// the first part (0 < size < count)
static int split(Build *b, int first, int count, int level) {
  double clo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, chi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
  for (int i = first; i < first + count; i++) {
    growBox(clo, chi, b->cen + 3 * i, b->cen + 3 * i);
  }
  int bestAxis = -1, bestBin = -1;
  double bestCost = DBL_MAX;
  if (level < SAH_DEPTH) {
    for (int axis = 0; axis < 3; axis++) {
      double ext = chi[axis] - clo[axis];
      if (!(ext > 0)) {
        continue;
      }
      int cnt[NBINS] = {0};
      double blo[NBINS][3], bhi[NBINS][3];
      for (int k = 0; k < NBINS; k++) {
        for (int j = 0; j < 3; j++) {
          blo[k][j] = DBL_MAX;
          bhi[k][j] = -DBL_MAX;
        }
      }
      double scale = NBINS / ext;
      for (int i = first; i < first + count; i++) {
        int k = (int)((b->cen[3 * i + axis] - clo[axis]) * scale);
        k = k < 0 ? 0 : (k >= NBINS ? NBINS - 1 : k);
        cnt[k]++;
        growBox(blo[k], bhi[k], b->tlo + 3 * i, b->thi + 3 * i);
      }
      // sweep from the right to get the right-hand areas, then from the left
      double rArea[NBINS];
      int rCnt[NBINS];
      double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
      int n = 0;
      for (int k = NBINS - 1; k > 0; k--) {
        if (cnt[k]) {
          growBox(lo, hi, blo[k], bhi[k]);
        }
        n += cnt[k];
        rArea[k] = area(lo, hi);
        rCnt[k] = n;
      }
      double llo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, lhi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
      n = 0;
      for (int k = 0; k < NBINS - 1; k++) {
        if (cnt[k]) {
          growBox(llo, lhi, blo[k], bhi[k]);
        }
        n += cnt[k];
        if (n == 0 || rCnt[k + 1] == 0) {
          continue;
        }
        double cost = area(llo, lhi) * n + rArea[k + 1] * rCnt[k + 1];
        if (cost < bestCost) {
          bestCost = cost;
          bestAxis = axis;
          bestBin = k;
        }
      }
    }
  }
  if (bestAxis >= 0) {
    // partition by bin
    double ext = chi[bestAxis] - clo[bestAxis], scale = NBINS / ext;
    int i = first, j = first + count - 1;
    while (i <= j) {
      int k = (int)((b->cen[3 * i + bestAxis] - clo[bestAxis]) * scale);
      k = k < 0 ? 0 : (k >= NBINS ? NBINS - 1 : k);
      if (k <= bestBin) {
        i++;
      } else {
        swapTri(b, i, j);
        j--;
      }
    }
    int nleft = i - first;
    if (nleft > 0 && nleft < count) {
      return nleft;
    }
  }
  // no useful SAH split (all centroids equal, or too deep): halve by count
  return count / 2;
}

// build the subtree of triangles [first, first + count) at node index b->m->nnode
static void buildNode(Build *b, int first, int count, int level) {
  hscMesh *m = b->m;
  int idx = m->nnode++;
  hscNode *nd = &m->nodes[idx];
  hscObb *ob = &m->obb[idx];
  for (int j = 0; j < 3; j++) {
    nd->lo[j] = DBL_MAX;
    nd->hi[j] = -DBL_MAX;
  }
  for (int i = first; i < first + count; i++) {
    growBox(nd->lo, nd->hi, b->tlo + 3 * i, b->thi + 3 * i);
  }
  double half[3];
  for (int j = 0; j < 3; j++) {
    nd->c[j] = 0.5 * (nd->lo[j] + nd->hi[j]);
    half[j] = 0.5 * (nd->hi[j] - nd->lo[j]);
  }
  nd->r = v3norm(half);
  // the OBB: first axis along the triangles' area-weighted mean normal (z if they cancel out),
  // the other two along the principal directions of the vertices' spread in the plane normal
  // to it (the eigenvectors of their covariance there). One pass gathers the normal and the
  // vertices' moments about the box centre (small numbers: no cancellation).
  double sn[3] = {0, 0, 0}, mu[3] = {0, 0, 0}, S[6] = {0, 0, 0, 0, 0, 0};
  for (int i = first; i < first + count; i++) {
    const int *t = b->tri + 3 * b->order[i];
    const double *p0 = m->v + 3 * t[0], *p1 = m->v + 3 * t[1], *p2 = m->v + 3 * t[2];
    double e1[3], e2[3], cr[3];
    v3sub(e1, p1, p0);
    v3sub(e2, p2, p0);
    v3cross(cr, e1, e2);
    v3add(sn, sn, cr);
    for (int k = 0; k < 3; k++) {
      double x[3];
      v3sub(x, m->v + 3 * t[k], nd->c);
      v3add(mu, mu, x);
      S[0] += x[0] * x[0];
      S[1] += x[1] * x[1];
      S[2] += x[2] * x[2];
      S[3] += x[0] * x[1];
      S[4] += x[1] * x[2];
      S[5] += x[0] * x[2];
    }
  }
  if (!(v3normalize(sn) > 0)) {
    sn[0] = sn[1] = 0;
    sn[2] = 1;
  }
  int nv = 3 * count;
  double cv[9];  // covariance
  {
    double mx = mu[0] / nv, my = mu[1] / nv, mz = mu[2] / nv;
    cv[0] = S[0] / nv - mx * mx;
    cv[4] = S[1] / nv - my * my;
    cv[8] = S[2] / nv - mz * mz;
    cv[1] = cv[3] = S[3] / nv - mx * my;
    cv[5] = cv[7] = S[4] / nv - my * mz;
    cv[2] = cv[6] = S[5] / nv - mx * mz;
  }
  double b1[3], b2[3], c1[3], c2[3];
  hsc_basis(sn, b1, b2);
  m3mulv(c1, cv, b1);
  m3mulv(c2, cv, b2);
  double sxx = v3dot(b1, c1), syy = v3dot(b2, c2), sxy = v3dot(b1, c2);
  double th = 0.5 * atan2(2 * sxy, sxx - syy), ct = cos(th), st = sin(th);
  double *ax = ob->ax;
  for (int j = 0; j < 3; j++) {
    ax[j] = sn[j];
    ax[3 + j] = ct * b1[j] + st * b2[j];
  }
  v3cross(ax + 6, ax, ax + 3);
  // extents: the vertices' range along each axis; and the farthest vertex from the box centre
  double olo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, ohi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
  double rb2 = 0;
  for (int i = first; i < first + count; i++) {
    const int *t = b->tri + 3 * b->order[i];
    for (int k = 0; k < 3; k++) {
      const double *v = m->v + 3 * t[k];
      for (int a = 0; a < 3; a++) {
        double x = v3dot(ax + 3 * a, v);
        olo[a] = x < olo[a] ? x : olo[a];
        ohi[a] = x > ohi[a] ? x : ohi[a];
      }
      double d2 = v3dist2(nd->c, v);
      rb2 = d2 > rb2 ? d2 : rb2;
    }
  }
  double oc[3] = {0.5 * (olo[0] + ohi[0]), 0.5 * (olo[1] + ohi[1]), 0.5 * (olo[2] + ohi[2])};
  for (int j = 0; j < 3; j++) {
    ob->oh[j] = 0.5 * (ohi[j] - olo[j]);
    ob->oc[j] = ax[j] * oc[0] + ax[3 + j] * oc[1] + ax[6 + j] * oc[2];
  }
  // the spheres around the box's and the OBB's centres through the farthest vertex (not the
  // corners: much tighter for round patches), rounding allowed for; the node's sphere is the
  // smaller
  double ro2 = 0;
  for (int i = first; i < first + count; i++) {
    const int *t = b->tri + 3 * b->order[i];
    for (int k = 0; k < 3; k++) {
      double d2 = v3dist2(ob->oc, m->v + 3 * t[k]);
      ro2 = d2 > ro2 ? d2 : ro2;
    }
  }
  double e = 1e-12 * (v3norm(half) + fabs(nd->c[0]) + fabs(nd->c[1]) + fabs(nd->c[2]) +
                      fabs(ob->oc[0]) + fabs(ob->oc[1]) + fabs(ob->oc[2]));
  nd->r = fmin(nd->r, sqrt(rb2)) + e;
  ob->ro = fmin(v3norm(ob->oh), sqrt(ro2)) + e;
  if (ob->ro < nd->r) {
    v3copy(nd->c, ob->oc);
    nd->r = ob->ro;
  }
  ob->mag = 3 * (nd->r + ob->ro) + fabs(ob->oc[0]) + fabs(ob->oc[1]) + fabs(ob->oc[2]);
  if (level > b->depth) {
    b->depth = level;
  }
  if (count <= b->leafSize) {
    nd->right = first;
    nd->count = count;
    return;
  }
  int nleft = split(b, first, count, level);
  nd->count = 0;
  buildNode(b, first, nleft, level + 1);
  m->nodes[idx].right = m->nnode;
  buildNode(b, first + nleft, count - nleft, level + 1);
  // each child's OBB in this node's OBB frame (walks carry a pair's relative frame down)
  const hscObb *pn = &m->obb[idx];
  int ch[2] = {idx + 1, m->nodes[idx].right};
  for (int k = 0; k < 2; k++) {
    hscObb *c = &m->obb[ch[k]];
    double x[3];
    v3sub(x, c->oc, pn->oc);
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) {
        c->pax[3 * i + j] = v3dot(c->ax + 3 * i, pn->ax + 3 * j);
      }
      c->poff[i] = v3dot(pn->ax + 3 * i, x);
    }
  }
}

hscMesh *hsc_makeMesh(const float *v, int nvert, const int *tri, int ntri, const double *T,
                      int leafSize, hsError *err) {
  hscMesh *m = hsu_calloc(1, sizeof *m);
  Build b;
  memset(&b, 0, sizeof b);
  if (!m) {
    goto nomem;
  }
  m->nvert = nvert;
  m->ntri = ntri;
  m->v = hsu_malloc(sizeof(double) * 3 * (size_t)(nvert > 0 ? nvert : 1));
  m->tri = hsu_malloc(sizeof(int) * 3 * (size_t)(ntri > 0 ? ntri : 1));
  m->n = hsu_malloc(sizeof(double) * 3 * (size_t)(ntri > 0 ? ntri : 1));
  m->orig = hsu_malloc(sizeof(int) * (size_t)(ntri > 0 ? ntri : 1));
  m->nodes = hsu_malloc(sizeof(hscNode) * (size_t)(2 * ntri + 1));
  m->obb = hsu_malloc(sizeof(hscObb) * (size_t)(2 * ntri + 1));
  b.tlo = hsu_malloc(sizeof(double) * 3 * (size_t)(ntri + 1));
  b.thi = hsu_malloc(sizeof(double) * 3 * (size_t)(ntri + 1));
  b.cen = hsu_malloc(sizeof(double) * 3 * (size_t)(ntri + 1));
  b.order = hsu_malloc(sizeof(int) * (size_t)(ntri + 1));
  if (!m->v || !m->tri || !m->n || !m->orig || !m->nodes || !m->obb || !b.tlo || !b.thi ||
      !b.cen || !b.order) {
    goto nomem;
  }
  // vertices, transformed
  for (int i = 0; i < nvert; i++) {
    double p[3] = {v[3 * i], v[3 * i + 1], v[3 * i + 2]};
    if (T) {
      hsu_transformPoint(m->v + 3 * i, T, p);
    } else {
      v3copy(m->v + 3 * i, p);
    }
  }
  // triangle boxes and centroids
  for (int i = 0; i < ntri; i++) {
    const double *a = m->v + 3 * tri[3 * i], *bb = m->v + 3 * tri[3 * i + 1],
                 *c = m->v + 3 * tri[3 * i + 2];
    for (int j = 0; j < 3; j++) {
      b.tlo[3 * i + j] = fmin(a[j], fmin(bb[j], c[j]));
      b.thi[3 * i + j] = fmax(a[j], fmax(bb[j], c[j]));
      b.cen[3 * i + j] = (a[j] + bb[j] + c[j]) / 3;
    }
    b.order[i] = i;
  }
  b.m = m;
  b.tri = tri;
  b.leafSize = leafSize < 1 ? 1 : (leafSize > 16 ? 16 : leafSize);
  if (ntri > 0) {
    buildNode(&b, 0, ntri, 1);
    // the root has no parent: its frame within its own
    memset(m->obb[0].pax, 0, sizeof m->obb[0].pax);
    memset(m->obb[0].poff, 0, sizeof m->obb[0].poff);
    m->obb[0].pax[0] = m->obb[0].pax[4] = m->obb[0].pax[8] = 1;
  }
  m->depth = b.depth;
  // triangles in BVH order, with their normals
  for (int i = 0; i < ntri; i++) {
    const int *src = tri + 3 * b.order[i];
    memcpy(m->tri + 3 * i, src, 3 * sizeof(int));
    m->orig[i] = b.order[i];
    const double *a, *bb, *c;
    hsc_triangle(m, i, &a, &bb, &c);
    double e1[3], e2[3];
    v3sub(e1, bb, a);
    v3sub(e2, c, a);
    v3cross(m->n + 3 * i, e1, e2);
    v3normalize(m->n + 3 * i);
  }
  hsu_free(b.tlo);
  hsu_free(b.thi);
  hsu_free(b.cen);
  hsu_free(b.order);
  return m;
nomem:
  hsu_free(b.tlo);
  hsu_free(b.thi);
  hsu_free(b.cen);
  hsu_free(b.order);
  hsc_freeMesh(m);
  HS_ERR(err, hsE_NOMEM, "out of memory building a mesh of %d triangles", ntri);
  return NULL;
}

void hsc_freeMesh(hscMesh *m) {
  if (!m) {
    return;
  }
  hsu_free(m->v);
  hsu_free(m->tri);
  hsu_free(m->n);
  hsu_free(m->orig);
  hsu_free(m->nodes);
  hsu_free(m->obb);
  hsu_free(m);
}
