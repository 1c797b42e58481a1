// collision_mesh.c - queries on meshes: BVH traversals against another geom or another mesh,
// triangle-level tests at the leaves, and rays.
//
// A mesh against a primitive: the primitive's box is taken into the mesh frame, the tree is
// walked with an explicit stack, and every triangle under an overlapping leaf is collided with
// the primitive as a one-sided convex (collision_narrow.c). Two meshes: node pairs are tested
// with the separating axes of the two boxes (the three of each box, in the frame of the first
// mesh), the larger node is opened first, and overlapping triangle pairs give contacts by
// clipping: each triangle is clipped against the prism of the other, the points behind the
// other's face are candidates, and of the two directions the one needing the smaller push wins
// (normals are the meshes' outward face normals, so a triangle only pushes to its front).
//
// Distances, a mesh against a primitive: the tree walked nearest first (by the gap of the
// nodes' bounding spheres), ties to the triangle first in the input. Two meshes: the lower
// bound of a node pair is the largest of the gap of their spheres, the gaps of their oriented
// boxes along each box's three axes taken together, the gap along the line through the boxes'
// centres and along the nine edge-cross axes, less a rounding margin; a triangle
// pair's is the gap of its world boxes and along the line through its centroids. The answer
// is defined without regard to the walk: the smallest (distance, triangle index on side 0,
// triangle index on side 1), indices as given in the input; so a distance walks node pairs
// best first (a heap sized at scene creation, depth first when it is full) and prunes only
// what lies strictly beyond the best so far, and the points are the brute force's to the bit.
// When the surfaces cross the distance is 0 at the first crossing pair a depth-first walk
// meets (run before the best-first one; deterministic, not the smallest indices: finding those
// would mean visiting every crossing). An intersection query walks depth first, each pair
// carrying its relative frame, bounding it by its spheres when pushed and in full when
// popped, and stops once within its bound.
//
// Rays use slab tests on node boxes and the Moller-Trumbore test on triangles, front faces
// only, visiting the nearer child first.

#include <float.h>
#include <limits.h>
#include <string.h>

#include "collision_private.h"

#define STACK 256

// world corners of triangle i of posed mesh g
static void worldTri(const hscPosed *g, int i, double t[3][3]) {
  const double *a, *b, *c;
  hsc_triangle(g->g->mesh, i, &a, &b, &c);
  const double *v[3] = {a, b, c};
  for (int k = 0; k < 3; k++) {
    m3mulv(t[k], g->R, v[k]);
    v3add(t[k], t[k], g->p);
  }
}

// world box -> the box around it in the frame (R, p)
static void boxToFrame(const double lo[3], const double hi[3], const double R[9],
                       const double p[3], double olo[3], double ohi[3]) {
  double c[3], h[3], x[3], lc[3];
  for (int j = 0; j < 3; j++) {
    c[j] = 0.5 * (lo[j] + hi[j]);
    h[j] = 0.5 * (hi[j] - lo[j]);
  }
  v3sub(x, c, p);
  m3tmulv(lc, R, x);
  for (int j = 0; j < 3; j++) {
    // row j of R^T is column j of R
    double e = fabs(R[j]) * h[0] + fabs(R[3 + j]) * h[1] + fabs(R[6 + j]) * h[2];
    olo[j] = lc[j] - e;
    ohi[j] = lc[j] + e;
  }
}

static int boxOverlap(const double alo[3], const double ahi[3], const double blo[3],
                      const double bhi[3]) {
  return alo[0] <= bhi[0] && blo[0] <= ahi[0] && alo[1] <= bhi[1] && blo[1] <= ahi[1] &&
         alo[2] <= bhi[2] && blo[2] <= ahi[2];
}

//---------------------------------- mesh against a primitive ----------------------------------

void hsc_collideMesh(const hscPosed *mesh, const hscPosed *other, int meshIsB, hscCandBuf *buf) {
  const hscMesh *m = mesh->g->mesh;
  if (m->nnode == 0) {
    return;
  }
  double qlo[3], qhi[3];
  boxToFrame(other->lo, other->hi, mesh->R, mesh->p, qlo, qhi);
  hscConvex oc;
  hsc_convexOf(&oc, other);
  int stack[HSC_MAX_DEPTH + 2], sp = 0;
  stack[sp++] = 0;
  while (sp > 0) {
    int ni = stack[--sp];
    const hscNode *nd = &m->nodes[ni];
    if (!boxOverlap(nd->lo, nd->hi, qlo, qhi)) {
      continue;
    }
    if (nd->count == 0) {
      stack[sp++] = nd->right;
      stack[sp++] = ni + 1;
      continue;
    }
    for (int i = nd->right; i < nd->right + nd->count; i++) {
      double t[3][3];
      worldTri(mesh, i, t);
      // the triangle's world box against the other geom's: most triangles of a mesh resting
      // on a large face stop here
      int apart = 0;
      for (int j = 0; j < 3 && !apart; j++) {
        double lo = t[0][j], hi = t[0][j];
        lo = t[1][j] < lo ? t[1][j] : lo;
        hi = t[1][j] > hi ? t[1][j] : hi;
        lo = t[2][j] < lo ? t[2][j] : lo;
        hi = t[2][j] > hi ? t[2][j] : hi;
        apart = hi < other->lo[j] || lo > other->hi[j];
      }
      if (apart) {
        continue;
      }
      hscConvex tc;
      hsc_convexTri(&tc, t[0], t[1], t[2]);
      int before = buf->n;
      hsc_collideConvex(&oc, &tc, buf, 1);
      if (!meshIsB) {
        // the mesh is side 0: normals from it into the other
        for (int k = before; k < buf->n; k++) {
          v3neg(buf->c[k].n, buf->c[k].n);
        }
      }
    }
  }
}

//---------------------------------- triangle pairs --------------------------------------------

static void triNormalOf(const double t[3][3], double n[3]) {
  double e1[3], e2[3];
  v3sub(e1, t[1], t[0]);
  v3sub(e2, t[2], t[0]);
  v3cross(n, e1, e2);
  v3normalize(n);
}

// 1 if two triangles overlap (separating axes: both normals and the nine edge pairs)
static int triTriOverlap(const double a[3][3], const double b[3][3]) {
  double ea[3][3], eb[3][3], axes[11][3];
  int nax = 0;
  for (int i = 0; i < 3; i++) {
    v3sub(ea[i], a[(i + 1) % 3], a[i]);
    v3sub(eb[i], b[(i + 1) % 3], b[i]);
  }
  v3cross(axes[nax++], ea[0], ea[1]);
  v3cross(axes[nax++], eb[0], eb[1]);
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      v3cross(axes[nax++], ea[i], eb[j]);
    }
  }
  for (int k = 0; k < nax; k++) {
    const double *L = axes[k];
    if (v3dot(L, L) < 1e-30) {
      continue;
    }
    double alo = v3dot(a[0], L), ahi = alo, blo = v3dot(b[0], L), bhi = blo;
    for (int i = 1; i < 3; i++) {
      double x = v3dot(a[i], L), y = v3dot(b[i], L);
      // (plain comparisons: the corners are finite, and libm's fmin/fmax are calls)
      alo = x < alo ? x : alo;
      ahi = x > ahi ? x : ahi;
      blo = y < blo ? y : blo;
      bhi = y > bhi ? y : bhi;
    }
    if (ahi < blo || bhi < alo) {
      return 0;
    }
  }
  // coplanar triangles: the cross products above are the in-plane edge normals only when the
  // normals are not zero; for a degenerate pair the edge axes decide
  return 1;
}

// clip triangle `in` against the prism of triangle ref (normal nr): points into out, returns
// how many
static int clipToPrism(const double in[3][3], const double ref[3][3], const double nr[3],
                       double out[12][3]) {
  double p0[12][3], p1[12][3];
  int k = 3;
  memcpy(p0, in, sizeof(double) * 9);
  for (int i = 0; i < 3 && k > 0; i++) {
    double e[3], m[3];
    v3sub(e, ref[(i + 1) % 3], ref[i]);
    v3cross(m, nr, e);  // inward for a counter-clockwise triangle
    int kk = 0;
    for (int j = 0; j < k && kk < 11; j++) {
      const double *a = p0[j], *b = p0[(j + 1) % k];
      double xa[3], xb[3];
      v3sub(xa, a, ref[i]);
      v3sub(xb, b, ref[i]);
      double da = v3dot(xa, m), db = v3dot(xb, m);
      if (da >= 0) {
        v3copy(p1[kk++], a);
      }
      if ((da >= 0) != (db >= 0) && kk < 12) {
        double t = da / (da - db), ab[3];
        v3sub(ab, b, a);
        v3mad(p1[kk++], a, t, ab);
      }
    }
    k = kk;
    memcpy(p0, p1, sizeof(double) * 3 * (size_t)k);
  }
  memcpy(out, p0, sizeof(double) * 3 * (size_t)k);
  return k;
}

// contacts of triangle a (of side 0) and b (of side 1) that overlap
static void triTriContact(const double a[3][3], const double b[3][3], hscCandBuf *buf) {
  double na[3], nb[3];
  triNormalOf(a, na);
  triNormalOf(b, nb);
  double pts[2][12][3], dep[2][12], maxd[2] = {-1, -1};
  int cnt[2] = {0, 0};
  // option 0: a's part inside b's prism, behind b's face; option 1: the reverse
  for (int opt = 0; opt < 2; opt++) {
    const double(*inc)[3] = opt ? b : a;
    const double(*ref)[3] = opt ? a : b;
    const double *nr = opt ? na : nb;
    if (v3dot(nr, nr) == 0) {
      continue;
    }
    double cl[12][3];
    int k = clipToPrism(inc, ref, nr, cl);
    for (int i = 0; i < k; i++) {
      double x[3];
      v3sub(x, cl[i], ref[0]);
      double d = -v3dot(x, nr);
      if (d >= 0) {
        v3copy(pts[opt][cnt[opt]], cl[i]);
        dep[opt][cnt[opt]++] = d;
        maxd[opt] = fmax(maxd[opt], d);
      }
    }
  }
  int opt;
  if (cnt[0] && cnt[1]) {
    opt = maxd[1] < maxd[0] ? 1 : 0;
  } else if (cnt[0] || cnt[1]) {
    opt = cnt[0] ? 0 : 1;
  } else {
    return;
  }
  // normal from side 0 into side 1: -nb when b is the reference, +na when a is
  double n[3];
  const double *nr = opt ? na : nb;
  if (opt) {
    v3copy(n, na);
  } else {
    v3neg(n, nb);
  }
  for (int i = 0; i < cnt[opt]; i++) {
    double mid[3];
    v3mad(mid, pts[opt][i], 0.5 * dep[opt][i], nr);
    hsc_addCand(buf, mid, n, dep[opt][i]);
  }
}

// the separating-axis test of node boxes A (frame of mesh a) and B (frame of mesh b), with
// B's frame given in A's by Rab, tab; the three axes of each box
static int nodeOverlap(const hscNode *A, const hscNode *B, const double Rab[9],
                       const double absR[9], const double tab[3]) {
  double ca[3], ha[3], cb[3], hb[3], t[3];
  for (int j = 0; j < 3; j++) {
    ca[j] = 0.5 * (A->lo[j] + A->hi[j]);
    ha[j] = 0.5 * (A->hi[j] - A->lo[j]);
    cb[j] = 0.5 * (B->lo[j] + B->hi[j]);
    hb[j] = 0.5 * (B->hi[j] - B->lo[j]);
  }
  m3mulv(t, Rab, cb);
  v3add(t, t, tab);
  v3sub(t, t, ca);
  for (int i = 0; i < 3; i++) {
    double rb = absR[3 * i] * hb[0] + absR[3 * i + 1] * hb[1] + absR[3 * i + 2] * hb[2];
    if (fabs(t[i]) > ha[i] + rb) {
      return 0;
    }
  }
  for (int j = 0; j < 3; j++) {
    double ra = absR[j] * ha[0] + absR[3 + j] * ha[1] + absR[6 + j] * ha[2];
    double tj = Rab[j] * t[0] + Rab[3 + j] * t[1] + Rab[6 + j] * t[2];
    if (fabs(tj) > ra + hb[j]) {
      return 0;
    }
  }
  return 1;
}

// relative frame of b in a: Rab = Ra^T Rb, tab = Ra^T (pb - pa); absR with a small margin
static void relFrame(const hscPosed *a, const hscPosed *b, double Rab[9], double absR[9],
                     double tab[3]) {
  double RaT[9], x[3];
  hsu_transpose(RaT, a->R);
  hsu_mulMat(Rab, RaT, b->R);
  v3sub(x, b->p, a->p);
  m3tmulv(tab, a->R, x);
  for (int i = 0; i < 9; i++) {
    absR[i] = fabs(Rab[i]) + 1e-12;
  }
}

void hsc_collideMeshMesh(const hscPosed *a, const hscPosed *b, hscCandBuf *buf) {
  const hscMesh *ma = a->g->mesh, *mb = b->g->mesh;
  if (ma->nnode == 0 || mb->nnode == 0) {
    return;
  }
  double Rab[9], absR[9], tab[3];
  relFrame(a, b, Rab, absR, tab);
  int stack[STACK][2], sp = 0;
  stack[sp][0] = 0;
  stack[sp++][1] = 0;
  while (sp > 0) {
    sp--;
    int ia = stack[sp][0], ib = stack[sp][1];
    const hscNode *A = &ma->nodes[ia], *B = &mb->nodes[ib];
    if (!nodeOverlap(A, B, Rab, absR, tab)) {
      continue;
    }
    if (A->count && B->count) {
      for (int i = A->right; i < A->right + A->count; i++) {
        double ta[3][3];
        worldTri(a, i, ta);
        for (int j = B->right; j < B->right + B->count; j++) {
          double tb[3][3];
          worldTri(b, j, tb);
          if (triTriOverlap(ta, tb)) {
            triTriContact(ta, tb, buf);
          }
        }
      }
      continue;
    }
    // open the larger node (a leaf is never opened)
    int openA = B->count || (!A->count && A->r >= B->r);
    if (sp + 2 > STACK) {
      buf->overflow++;  // cannot happen with trees of depth <= HSC_MAX_DEPTH
      continue;
    }
    if (openA) {
      stack[sp][0] = A->right;
      stack[sp++][1] = ib;
      stack[sp][0] = ia + 1;
      stack[sp++][1] = ib;
    } else {
      stack[sp][0] = ia;
      stack[sp++][1] = B->right;
      stack[sp][0] = ia;
      stack[sp++][1] = ib + 1;
    }
  }
}

//---------------------------------- distances -------------------------------------------------

// world centre of a node's bounding sphere
static void nodeCentre(const hscPosed *g, const hscNode *nd, double c[3]) {
  m3mulv(c, g->R, nd->c);
  v3add(c, c, g->p);
}

double hsc_distanceMesh(const hscPosed *mesh, const hscPosed *other, double bound, int earlyOut,
                        double pm[3], double po[3]) {
  const hscMesh *m = mesh->g->mesh;
  double best = INFINITY;
  int bo = INT_MAX;
  if (m->nnode == 0) {
    return best;
  }
  hscConvex oc;
  hsc_convexOf(&oc, other);
  // the other geom's bounding sphere
  double oc0[3], orad;
  {
    double h[3];
    for (int j = 0; j < 3; j++) {
      oc0[j] = 0.5 * (other->lo[j] + other->hi[j]);
      h[j] = 0.5 * (other->hi[j] - other->lo[j]);
    }
    orad = v3norm(h);
  }
  int stack[HSC_MAX_DEPTH + 2], sp = 0;
  stack[sp++] = 0;
  while (sp > 0) {
    int ni = stack[--sp];
    const hscNode *nd = &m->nodes[ni];
    double c[3];
    nodeCentre(mesh, nd, c);
    double lb = sqrt(v3dist2(c, oc0)) - nd->r - orad;
    // (an intersection query also skips what lies beyond its bound, with a margin for rounding)
    if (lb > best || (earlyOut && lb > bound + 1e-12 * (1 + fabs(bound) + nd->r + orad))) {
      continue;
    }
    if (nd->count == 0) {
      // nearer child last, so it is popped first
      const hscNode *l = &m->nodes[ni + 1], *r = &m->nodes[nd->right];
      double cl[3], cr[3];
      nodeCentre(mesh, l, cl);
      nodeCentre(mesh, r, cr);
      double dl = sqrt(v3dist2(cl, oc0)) - l->r, dr = sqrt(v3dist2(cr, oc0)) - r->r;
      if (dl <= dr) {
        stack[sp++] = nd->right;
        stack[sp++] = ni + 1;
      } else {
        stack[sp++] = ni + 1;
        stack[sp++] = nd->right;
      }
      continue;
    }
    for (int i = nd->right; i < nd->right + nd->count; i++) {
      double t[3][3], pa[3], pb[3];
      worldTri(mesh, i, t);
      hscConvex tc;
      hsc_convexTri(&tc, t[0], t[1], t[2]);
      double d = hsc_gjk(&tc, &oc, pa, pb);
      if (d <= 0) {
        // the core touches the triangle: the surfaces cross
        if (best > 0) {
          best = 0;
          // a point of the crossing: the triangle's point nearest the core's centre
          double cc[3];
          hsc_center(&oc, cc);
          hsc_closestOnTri(pm, cc, t[0], t[1], t[2]);
          v3copy(po, pm);
        }
        if (earlyOut) {
          return 0;
        }
        continue;
      }
      double dd = d - oc.radius;
      // ties go to the triangle first in the input, whatever order they are met in
      if (dd < best || (dd == best && dd > 0 && m->orig[i] < bo)) {
        bo = m->orig[i];
        double u[3];
        v3sub(u, pb, pa);
        v3scale(u, 1 / d, u);
        if (dd <= 0) {
          // a sphere or capsule crossing the surface: distance 0 at the surface point
          best = 0;
          v3copy(pm, pa);
          v3copy(po, pa);
        } else {
          best = dd;
          v3copy(pm, pa);
          v3mad(po, pb, -oc.radius, u);
        }
      }
    }
    if (earlyOut && best <= bound) {
      return best;
    }
  }
  return best;
}

double hsc_triTriDist(const double a[3][3], const double b[3][3], double pa[3], double pb[3]) {
  if (triTriOverlap(a, b)) {
    // a point where an edge of one crosses the other
    for (int s = 0; s < 2; s++) {
      const double(*t)[3] = s ? b : a;
      const double(*u)[3] = s ? a : b;
      double nu[3];
      triNormalOf(u, nu);
      for (int i = 0; i < 3; i++) {
        double x0[3], x1[3];
        v3sub(x0, t[i], u[0]);
        v3sub(x1, t[(i + 1) % 3], u[0]);
        double d0 = v3dot(x0, nu), d1 = v3dot(x1, nu);
        if ((d0 <= 0 && d1 >= 0) || (d0 >= 0 && d1 <= 0)) {
          if (d0 == d1) {
            continue;
          }
          double q[3], e[3], c[3];
          v3sub(e, t[(i + 1) % 3], t[i]);
          v3mad(q, t[i], d0 / (d0 - d1), e);
          hsc_closestOnTri(c, q, u[0], u[1], u[2]);
          if (v3dist2(c, q) <= 1e-24 * (1 + v3dot(q, q))) {
            v3copy(pa, q);
            v3copy(pb, q);
            return 0;
          }
        }
      }
    }
    // coplanar overlap: fall through to the nearest features, which are at distance ~0
  }
  double best = INFINITY, cp[3], cq[3];
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      double d = hsc_segSeg(a[i], a[(i + 1) % 3], b[j], b[(j + 1) % 3], cp, cq);
      if (d < best) {
        best = d;
        v3copy(pa, cp);
        v3copy(pb, cq);
      }
    }
  }
  for (int s = 0; s < 2; s++) {
    const double(*t)[3] = s ? b : a;
    const double(*u)[3] = s ? a : b;
    for (int i = 0; i < 3; i++) {
      double c[3];
      hsc_closestOnTri(c, t[i], u[0], u[1], u[2]);
      double d = v3dist2(c, t[i]);
      if (d < best) {
        best = d;
        v3copy(s ? pb : pa, t[i]);
        v3copy(s ? pa : pb, c);
      }
    }
  }
  return sqrt(best);
}

// world box of a triangle
static void triBox(const double t[3][3], double lo[3], double hi[3]) {
  for (int k = 0; k < 3; k++) {
    double l = t[0][k], h = t[0][k];
    l = t[1][k] < l ? t[1][k] : l;
    h = t[1][k] > h ? t[1][k] : h;
    l = t[2][k] < l ? t[2][k] : l;
    h = t[2][k] > h ? t[2][k] : h;
    lo[k] = l;
    hi[k] = h;
  }
}

// a lower bound of the distance between the triangles under nodes A (frame of mesh a) and B
// (frame of mesh b, given in a's by Rab, tab): the largest of the bounding spheres' gap, the
// gaps of the two oriented boxes along A's three axes taken together (the squared distance of
// two points is the sum of their squared separations along three orthogonal axes), the same
// along B's axes, and the gap along the line through the boxes' centres; less a relative
// margin for rounding so that it never exceeds a distance the triangles give. Stops at the
// first stage that prunes (beyond best or cut): later ones cannot change that.
static double boxBound(const hscObb *A, const hscObb *B, const double C[9],
                       const double tA[3], double dist, double gap, double margin, double best,
                       double cut);

static double nodeLowerBound(const hscObb *A, const hscObb *B, const double tA[3],
                             const double M[9], int bFixed, double tabMag, double worldMargin,
                             double *sphereGap, double best, double cut) {
  // best comes from world-frame triangle distances: their rounding counts too
  double margin = 1e-12 * (A->mag + B->mag + fabs(tA[0]) + fabs(tA[1]) + fabs(tA[2]) + tabMag) +
                  worldMargin;
#define HSC_DONE(g) ((g) - margin > best || (g) - margin > cut)
  // the gap of the spheres around the two oriented boxes
  double dist = sqrt(tA[0] * tA[0] + tA[1] * tA[1] + tA[2] * tA[2]);
  double gap = dist - A->ro - B->ro;
  *sphereGap = gap;
  if (HSC_DONE(gap)) {
    return gap - margin;
  }
  // C[i][k] = (A's axis i) . (B's axis k, in A's frame)
  double C[9];
  for (int i = 0; i < 3; i++) {
    for (int k = 0; k < 3; k++) {
      const double *x = bFixed ? A->ax + 3 * i : M + 3 * i;
      C[3 * i + k] = bFixed ? x[0] * M[k] + x[1] * M[3 + k] + x[2] * M[6 + k]
                            : x[0] * B->ax[3 * k] + x[1] * B->ax[3 * k + 1] +
                                  x[2] * B->ax[3 * k + 2];
    }
  }
#undef HSC_DONE
  return boxBound(A, B, C, tA, dist, gap, margin, best, cut);
}

// the box stages of nodeLowerBound, given C, tA, the centres' distance, the bound so far and
// the rounding margin
static double boxBound(const hscObb *A, const hscObb *B, const double C[9],
                       const double tA[3], double dist, double gap, double margin, double best,
                       double cut) {
#define HSC_DONE(g) ((g) - margin > best || (g) - margin > cut)
  double tB[3];
  const double *ha = A->oh, *hb = B->oh;
  double g2 = 0;
  for (int i = 0; i < 3; i++) {
    double rb = fabs(C[3 * i]) * hb[0] + fabs(C[3 * i + 1]) * hb[1] + fabs(C[3 * i + 2]) * hb[2];
    double g = fabs(tA[i]) - ha[i] - rb;
    g2 += g > 0 ? g * g : 0;
  }
  double g = g2 > 0 ? sqrt(g2) : 0;
  gap = g > gap ? g : gap;
  if (HSC_DONE(gap)) {
    return gap - margin;
  }
  g2 = 0;
  for (int k = 0; k < 3; k++) {
    tB[k] = C[k] * tA[0] + C[3 + k] * tA[1] + C[6 + k] * tA[2];
    double ra = fabs(C[k]) * ha[0] + fabs(C[3 + k]) * ha[1] + fabs(C[6 + k]) * ha[2];
    double h = fabs(tB[k]) - ra - hb[k];
    g2 += h > 0 ? h * h : 0;
  }
  g = g2 > 0 ? sqrt(g2) : 0;
  gap = g > gap ? g : gap;
  if (HSC_DONE(gap)) {
    return gap - margin;
  }
  // the line through the two centres: tighter for boxes apart along a diagonal
  double len = dist;
  if (len > 0) {
    g = len - (fabs(tA[0]) * ha[0] + fabs(tA[1]) * ha[1] + fabs(tA[2]) * ha[2] +
               fabs(tB[0]) * hb[0] + fabs(tB[1]) * hb[1] + fabs(tB[2]) * hb[2]) / len;
    gap = g > gap ? g : gap;
    if (HSC_DONE(gap)) {
      return gap - margin;
    }
  }
  // the nine axes across an edge direction of each box (the rest of the separating axes of
  // two boxes): the gap along a unit axis is a lower bound alone
  if (gap <= 0 || cut < INFINITY) {
    // axis A_i x B_k: the centres' separation along it and the two boxes' radii, over its
    // length (slightly over: rounding in 1 - C^2; nearly parallel axes, where rounding
    // would grow, are left to the face axes). Unrolled: constant indices.
#define HSC_CROSS(i, i1, i2, k, k1, k2)                                                        \
  {                                                                                            \
    double s2 = 1 - C[3 * i + k] * C[3 * i + k];                                               \
    double x = fabs(tA[i2] * C[3 * i1 + k] - tA[i1] * C[3 * i2 + k]);                          \
    double r = ha[i1] * fabs(C[3 * i2 + k]) + ha[i2] * fabs(C[3 * i1 + k]) +                   \
               hb[k1] * fabs(C[3 * i + k2]) + hb[k2] * fabs(C[3 * i + k1]);                    \
    if (x > r && s2 > 1e-4) {                                                                  \
      g = (x - r) / sqrt(s2 + 1e-13);                                                          \
      gap = g > gap ? g : gap;                                                                 \
      if (HSC_DONE(gap)) {                                                                     \
        return gap - margin;                                                                   \
      }                                                                                        \
    }                                                                                          \
  }
    HSC_CROSS(0, 1, 2, 0, 1, 2)
    HSC_CROSS(0, 1, 2, 1, 2, 0)
    HSC_CROSS(0, 1, 2, 2, 0, 1)
    HSC_CROSS(1, 2, 0, 0, 1, 2)
    HSC_CROSS(1, 2, 0, 1, 2, 0)
    HSC_CROSS(1, 2, 0, 2, 0, 1)
    HSC_CROSS(2, 0, 1, 0, 1, 2)
    HSC_CROSS(2, 0, 1, 1, 2, 0)
    HSC_CROSS(2, 0, 1, 2, 0, 1)
#undef HSC_CROSS
  }
#undef HSC_DONE
  return gap - margin;
}


// the state of one mesh-mesh distance traversal
typedef struct MMQuery {
  const hscPosed *a, *b;
  const hscMesh *ma, *mb;
  double Rab[9], absR[9], tab[3];
  double bound;
  int earlyOut;
  double tabMag;          // |tab|_1, for rounding margins
  double worldMargin;     // rounding of a world-frame triangle-pair bound: 1e-12 x the scale
                          // of the triangles' world coordinates
  double cut;             // node and triangle pairs with a lower bound above it are dropped
  double best;            // the answer so far: distance, then the input triangle indices
  int oa, ob;
  double *pa, *pb;
} MMQuery;

// lower bound of node pair (ia, ib), from the bounding spheres' gap upwards
// what the two children of a node pair share: with B fixed (A opened), D (column k: B's axis
// k in A's frame) and B's centre in A's frame; with A fixed, E (row i: A's axis i in B's
// frame) and A's axes applied to tab - A's centre
typedef struct Fixed {
  int bFixed;
  double M[9], v[3];
} Fixed;

static void fixSide(const MMQuery *q, const hscObb *A, const hscObb *B, int bFixed,
                    Fixed *f) {
  const double *R = q->Rab;
  f->bFixed = bFixed;
  if (bFixed) {
    for (int j = 0; j < 3; j++) {
      for (int k = 0; k < 3; k++) {
        f->M[3 * j + k] = R[3 * j] * B->ax[3 * k] + R[3 * j + 1] * B->ax[3 * k + 1] +
                          R[3 * j + 2] * B->ax[3 * k + 2];
      }
    }
    m3mulv(f->v, R, B->oc);
    v3add(f->v, f->v, q->tab);
  } else {
    double x[3];
    v3sub(x, q->tab, A->oc);
    for (int i = 0; i < 3; i++) {
      const double *e = A->ax + 3 * i;
      for (int j = 0; j < 3; j++) {
        f->M[3 * i + j] = e[0] * R[j] + e[1] * R[3 + j] + e[2] * R[6 + j];
      }
      f->v[i] = v3dot(e, x);
    }
  }
}

// lower bound of node pair (ia, ib), one of whose nodes is the fixed one of f
static double pairBound(const MMQuery *q, const Fixed *f, int ia, int ib, double *sphereGap) {
  const hscObb *A = &q->ma->obb[ia], *B = &q->mb->obb[ib];
  double tA[3];
  if (f->bFixed) {
    double d[3];
    v3sub(d, f->v, A->oc);
    for (int i = 0; i < 3; i++) {
      tA[i] = v3dot(A->ax + 3 * i, d);
    }
  } else {
    for (int i = 0; i < 3; i++) {
      tA[i] = v3dot(f->M + 3 * i, B->oc) + f->v[i];
    }
  }
  return nodeLowerBound(A, B, tA, f->M, f->bFixed, q->tabMag, q->worldMargin, sphereGap, q->best,
                        q->cut);
}

// every triangle pair of leaves A and B that may beat the answer so far
static void leafPair(MMQuery *q, const hscNode *A, const hscNode *B) {
  double tbs[16][3][3], blo[16][3], bhi[16][3];
  for (int j = 0; j < B->count; j++) {
    worldTri(q->b, B->right + j, tbs[j]);
    triBox(tbs[j], blo[j], bhi[j]);
  }
  for (int i = A->right; i < A->right + A->count; i++) {
    double ta[3][3], alo[3], ahi[3];
    worldTri(q->a, i, ta);
    triBox(ta, alo, ahi);
    int oi = q->ma->orig[i];
    for (int j = 0; j < B->count; j++) {
      // the gap of the triangles' world boxes bounds their distance from below
      double g2 = 0;
      for (int k = 0; k < 3; k++) {
        double g = blo[j][k] - ahi[k], h = alo[k] - bhi[j][k];
        g = g > h ? g : h;
        g2 += g > 0 ? g * g : 0;
      }
      double tlb = sqrt(g2);
      // and the gap along the line through the two centroids
      double u[3], ul = 0;
      for (int k = 0; k < 3; k++) {
        u[k] = tbs[j][0][k] + tbs[j][1][k] + tbs[j][2][k] - ta[0][k] - ta[1][k] - ta[2][k];
        ul += u[k] * u[k];
      }
      if (ul > 0) {
        double amax = v3dot(ta[0], u), bmin = v3dot(tbs[j][0], u);
        for (int k = 1; k < 3; k++) {
          double x = v3dot(ta[k], u), y = v3dot(tbs[j][k], u);
          amax = x > amax ? x : amax;
          bmin = y < bmin ? y : bmin;
        }
        double g = (bmin - amax) / sqrt(ul);
        tlb = g > tlb ? g : tlb;
      }
      // less the rounding of world coordinates (as large as they are, however small the gap)
      tlb = tlb * (1 - 1e-12) - q->worldMargin - 1e-300;
      if (tlb > q->best || tlb > q->cut) {
        continue;
      }
      double qa[3], qb[3];
      // an intersection query within 0 needs the triangles to overlap (a separating axis
      // with a gap between them means they are apart)
      if (q->cut <= 0 && !triTriOverlap(ta, tbs[j])) {
        continue;
      }
      double d = hsc_triTriDist(ta, tbs[j], qa, qb);
      int ob = q->mb->orig[B->right + j];
      // the smallest (distance, index on side 0, index on side 1) is the answer, whatever
      // order the pairs are met in
      if (d < q->best || (d == q->best && (oi < q->oa || (oi == q->oa && ob < q->ob)))) {
        q->best = d;
        q->oa = oi;
        q->ob = ob;
        v3copy(q->pa, qa);
        v3copy(q->pb, qb);
        if (d <= 0 || (q->earlyOut && d <= q->bound)) {
          return;  // done: see hsc_distanceMeshMesh
        }
      }
    }
  }
}

// the heap of q: the least key on top, the latest push first among equal keys
static int itemBefore(const hscPairItem *x, const hscPairItem *y) {
  return x->key < y->key || (x->key == y->key && x->seq > y->seq);
}

static void heapPush(hscQueue *h, int *n, hscPairItem it) {
  int i = (*n)++;
  while (i > 0) {
    int p = (i - 1) / 2;
    if (!itemBefore(&it, &h->item[p])) {
      break;
    }
    h->item[i] = h->item[p];
    i = p;
  }
  h->item[i] = it;
}

static hscPairItem heapPop(hscQueue *h, int *n) {
  hscPairItem top = h->item[0], last = h->item[--*n];
  int i = 0;
  for (;;) {
    int c = 2 * i + 1;
    if (c >= *n) {
      break;
    }
    if (c + 1 < *n && itemBefore(&h->item[c + 1], &h->item[c])) {
      c++;
    }
    if (!itemBefore(&h->item[c], &last)) {
      break;
    }
    h->item[i] = h->item[c];
    i = c;
  }
  h->item[i] = last;
  return top;
}

// an intersection query (q->earlyOut): depth first, every node pair on the stack carrying
// its relative frame (C, tA of nodeLowerBound) so that a child's comes from its parent's by
// the child's frame within its parent node (27 + 9 products instead of 63); the spheres'
// gap bounds a pair when pushed, the boxes when popped. Rounding builds up along the descent
// (at most a few 1e-16 per level), hence a wider margin than nodeLowerBound's.
static double intersectMeshMesh(MMQuery *q) {
  struct {
    int a, b, derive;    // derive: 0 C is the pair's; 1 its A is a child of C's A; 2 B is
    double C[9], tA[3];  // tA: the pair's own
  } st[STACK];
  int sp = 0;
  const hscObb *A0 = &q->ma->obb[0], *B0 = &q->mb->obb[0];
  {
    Fixed f;
    fixSide(q, A0, B0, 1, &f);
    double d[3];
    v3sub(d, f.v, A0->oc);
    for (int i = 0; i < 3; i++) {
      const double *e = A0->ax + 3 * i;
      for (int k = 0; k < 3; k++) {
        st[0].C[3 * i + k] = e[0] * f.M[k] + e[1] * f.M[3 + k] + e[2] * f.M[6 + k];
      }
      st[0].tA[i] = v3dot(e, d);
    }
    st[0].a = st[0].b = st[0].derive = 0;
    sp = 1;
  }
  while (sp > 0) {
    sp--;
    int ia = st[sp].a, ib = st[sp].b;
    const hscNode *A = &q->ma->nodes[ia], *B = &q->mb->nodes[ib];
    const hscObb *OA = &q->ma->obb[ia], *OB = &q->mb->obb[ib];
    double C[9], tA[3];
    const double *P = st[sp].C;
    v3copy(tA, st[sp].tA);
    if (st[sp].derive == 1) {
      for (int i = 0; i < 3; i++) {
        const double *x = OA->pax + 3 * i;
        for (int k = 0; k < 3; k++) {
          C[3 * i + k] = x[0] * P[k] + x[1] * P[3 + k] + x[2] * P[6 + k];
        }
      }
    } else if (st[sp].derive == 2) {
      for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 3; k++) {
          const double *y = OB->pax + 3 * k;
          C[3 * i + k] = P[3 * i] * y[0] + P[3 * i + 1] * y[1] + P[3 * i + 2] * y[2];
        }
      }
    } else {
      memcpy(C, P, sizeof C);
    }
    double margin =
        1e-10 * (OA->mag + OB->mag + fabs(tA[0]) + fabs(tA[1]) + fabs(tA[2]) + q->tabMag);
    double dist = sqrt(tA[0] * tA[0] + tA[1] * tA[1] + tA[2] * tA[2]);
    double lb = boxBound(OA, OB, C, tA, dist, dist - OA->ro - OB->ro, margin, INFINITY, q->cut);
    if (lb > q->cut) {
      continue;
    }
    if (A->count && B->count) {
      leafPair(q, A, B);
      if (q->best <= q->bound) {
        return q->best;
      }
      continue;
    }
    int openA = B->count || (!A->count && OA->ro >= OB->ro);
    int c[2][2] = {{openA ? ia + 1 : ia, openA ? ib : ib + 1},
                   {openA ? A->right : ia, openA ? ib : B->right}};
    double ct[2][3], sg[2];
    for (int k = 0; k < 2; k++) {
      const hscObb *X = &q->ma->obb[c[k][0]], *Y = &q->mb->obb[c[k][1]];
      double *t = ct[k];
      if (openA) {
        double x[3] = {tA[0] - X->poff[0], tA[1] - X->poff[1], tA[2] - X->poff[2]};
        for (int i = 0; i < 3; i++) {
          t[i] = v3dot(X->pax + 3 * i, x);
        }
      } else {
        for (int i = 0; i < 3; i++) {
          t[i] = tA[i] + v3dot(C + 3 * i, Y->poff);
        }
      }
      double m = 1e-10 * (X->mag + Y->mag + fabs(t[0]) + fabs(t[1]) + fabs(t[2]) + q->tabMag);
      sg[k] = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]) - X->ro - Y->ro - m;
    }
    // the nearer spheres first (pushed last)
    int first = sg[1] < sg[0] ? 1 : 0;
    for (int k = 0; k < 2; k++) {
      int w = k ? first : 1 - first;
      if (sg[w] > q->cut || sp >= STACK) {
        continue;  // (the stack cannot fill: at most two pairs per level of the two trees)
      }
      st[sp].a = c[w][0];
      st[sp].b = c[w][1];
      st[sp].derive = openA ? 1 : 2;
      memcpy(st[sp].C, C, sizeof C);
      v3copy(st[sp].tA, ct[w]);
      sp++;
    }
  }
  return q->best;
}

double hsc_distanceMeshMesh(const hscPosed *a, const hscPosed *b, double bound, int earlyOut,
                            hscQueue *hq, double pa[3], double pb[3]) {
  MMQuery q;
  q.a = a;
  q.b = b;
  q.ma = a->g->mesh;
  q.mb = b->g->mesh;
  q.best = INFINITY;
  q.oa = q.ob = INT_MAX;
  q.pa = pa;
  q.pb = pb;
  if (q.ma->nnode == 0 || q.mb->nnode == 0) {
    return q.best;
  }
  relFrame(a, b, q.Rab, q.absR, q.tab);
  q.bound = bound;
  q.earlyOut = earlyOut;
  q.cut = earlyOut ? bound : INFINITY;
  q.tabMag = fabs(q.tab[0]) + fabs(q.tab[1]) + fabs(q.tab[2]);
  q.worldMargin = 1e-12 * (fabs(a->p[0]) + fabs(a->p[1]) + fabs(a->p[2]) + q.ma->obb[0].mag +
                           fabs(b->p[0]) + fabs(b->p[1]) + fabs(b->p[2]) + q.mb->obb[0].mag);
  if (earlyOut) {
    return intersectMeshMesh(&q);
  }
  // first look for a crossing depth first (cheap, and it ends the query at 0); whatever it
  // met on the way (a real triangle pair) stays the answer so far
  q.earlyOut = 1;
  q.cut = q.bound = 0;
  if (intersectMeshMesh(&q) <= 0) {
    return q.best;
  }
  q.earlyOut = 0;
  q.cut = INFINITY;
  q.bound = bound;
  // node pairs wait in the heap by lower bound (nearest first: a good answer early prunes the
  // rest); those with the same key (overlapping nodes, whose bounds are raised to 0) latest
  // first, so overlapping nodes are walked depth first towards a crossing. When the heap is
  // full, pairs go to a depth-first stack instead. The answer is the same either way.
  const double floor = 0;
  struct {
    int a, b;
    double lb;
  } stack[STACK];
  int sp = 0, nh = 0, cap = hq ? hq->cap : 0;
  unsigned seq = 0;
  double sg[2];
  Fixed fx;
  fixSide(&q, &q.ma->obb[0], &q.mb->obb[0], 1, &fx);
  double lb0 = pairBound(&q, &fx, 0, 0, sg);
  if (lb0 > q.cut) {
    return q.best;
  }
  if (cap > 0) {
    heapPush(hq, &nh, (hscPairItem){lb0, fmax(lb0, floor), seq++, 0, 0});
  } else {
    stack[sp].a = stack[sp].b = 0;
    stack[sp++].lb = lb0;
  }
  while (sp > 0 || nh > 0) {
    int ia, ib, fromStack = sp > 0;
    double lb;
    if (fromStack) {
      sp--;
      ia = stack[sp].a;
      ib = stack[sp].b;
      lb = stack[sp].lb;
    } else {
      hscPairItem it = heapPop(hq, &nh);
      ia = it.a;
      ib = it.b;
      lb = it.lb;
    }
    // no triangle pair under the nodes is nearer than lb: a pair beyond the answer so far
    // (ties may still win by their indices) or beyond the cut holds nothing
    if (lb > q.best || lb > q.cut) {
      continue;
    }
    const hscNode *A = &q.ma->nodes[ia], *B = &q.mb->nodes[ib];
    if (A->count && B->count) {
      leafPair(&q, A, B);
      // an intersection query is answered once within its bound; a distance of 0 (the
      // surfaces touch or cross) is final, with the points of the first such pair met
      if ((earlyOut && q.best <= bound) || q.best <= 0) {
        return q.best;
      }
      continue;
    }
    // open the larger node (a leaf is never opened)
    int openA = B->count || (!A->count && q.ma->obb[ia].ro >= q.mb->obb[ib].ro);
    int c[2][2];
    if (openA) {
      c[0][0] = ia + 1;
      c[0][1] = ib;
      c[1][0] = A->right;
      c[1][1] = ib;
    } else {
      c[0][0] = ia;
      c[0][1] = ib + 1;
      c[1][0] = ia;
      c[1][1] = B->right;
    }
    fixSide(&q, &q.ma->obb[ia], &q.mb->obb[ib], openA, &fx);
    double l[2] = {pairBound(&q, &fx, c[0][0], c[0][1], sg),
                   pairBound(&q, &fx, c[1][0], c[1][1], sg + 1)};
    // the lower bound first (pushed last); between overlapping boxes, the nearer spheres
    double k0 = l[0] > floor ? l[0] : floor, k1 = l[1] > floor ? l[1] : floor;
    int first = k1 < k0 || (k1 == k0 && sg[1] < sg[0]) ? 1 : 0;
    for (int k = 0; k < 2; k++) {
      int w = k ? first : 1 - first;
      if (l[w] > q.best || l[w] > q.cut) {
        continue;
      }
      if (!fromStack && nh < cap) {
        heapPush(hq, &nh, (hscPairItem){l[w], w ? k1 : k0, seq++, c[w][0], c[w][1]});
      } else if (sp < STACK) {
        if (!fromStack) {
          hq->overflow++;
        }
        stack[sp].a = c[w][0];
        stack[sp].b = c[w][1];
        stack[sp++].lb = l[w];
      }
      // (the stack cannot fill: it holds at most two pairs per level of the two trees)
    }
  }
  return q.best;
}

//---------------------------------- rays ------------------------------------------------------

// entry parameter of the ray (o, 1/d) into box [lo, hi], or INFINITY if it misses within tmax
static double slab(const double lo[3], const double hi[3], const double o[3],
                   const double inv[3], double tmax) {
  double t0 = 0, t1 = tmax;
  for (int j = 0; j < 3; j++) {
    double a = (lo[j] - o[j]) * inv[j], b = (hi[j] - o[j]) * inv[j];
    if (a > b) {
      double x = a;
      a = b;
      b = x;
    }
    // NaN (0 * inf on a face) leaves the bounds as they are
    t0 = a > t0 ? a : t0;
    t1 = b < t1 ? b : t1;
    if (t0 > t1) {
      return INFINITY;
    }
  }
  return t0;
}

int hsc_rayMesh(const hscPosed *g, const double o[3], const double d[3], double *t,
                double n[3]) {
  const hscMesh *m = g->g->mesh;
  if (m->nnode == 0) {
    return 0;
  }
  double lo[3], ld[3], x[3], inv[3];
  v3sub(x, o, g->p);
  m3tmulv(lo, g->R, x);
  m3tmulv(ld, g->R, d);
  for (int j = 0; j < 3; j++) {
    inv[j] = 1 / ld[j];
  }
  int hitTri = -1;
  double best = *t;
  int stack[HSC_MAX_DEPTH + 2], sp = 0;
  stack[sp++] = 0;
  while (sp > 0) {
    int ni = stack[--sp];
    const hscNode *nd = &m->nodes[ni];
    if (slab(nd->lo, nd->hi, lo, inv, best) == INFINITY) {
      continue;
    }
    if (nd->count == 0) {
      // the child nearer along the ray on top
      const hscNode *l = &m->nodes[ni + 1], *r = &m->nodes[nd->right];
      double tl = slab(l->lo, l->hi, lo, inv, best), tr = slab(r->lo, r->hi, lo, inv, best);
      if (tl <= tr) {
        if (tr != INFINITY) {
          stack[sp++] = nd->right;
        }
        if (tl != INFINITY) {
          stack[sp++] = ni + 1;
        }
      } else {
        if (tl != INFINITY) {
          stack[sp++] = ni + 1;
        }
        stack[sp++] = nd->right;
      }
      continue;
    }
    for (int i = nd->right; i < nd->right + nd->count; i++) {
      const double *a, *b, *c;
      hsc_triangle(m, i, &a, &b, &c);
      double e1[3], e2[3], pv[3], tv[3], qv[3];
      v3sub(e1, b, a);
      v3sub(e2, c, a);
      v3cross(pv, ld, e2);
      double det = v3dot(e1, pv);
      if (!(det > 1e-300)) {
        continue;  // back face, or parallel
      }
      v3sub(tv, lo, a);
      double u = v3dot(tv, pv);
      if (u < 0 || u > det) {
        continue;
      }
      v3cross(qv, tv, e1);
      double v = v3dot(ld, qv);
      if (v < 0 || u + v > det) {
        continue;
      }
      double tt = v3dot(e2, qv) / det;
      if (tt >= 0 && tt < best) {
        best = tt;
        hitTri = i;
      }
    }
  }
  if (hitTri < 0) {
    return 0;
  }
  *t = best;
  m3mulv(n, g->R, m->n + 3 * hitTri);
  return 1;
}
