// collision_hull.c - closed convex meshes as convex polytopes.
//
// When a model is built, each mesh is checked: after welding vertices with identical
// coordinates, every triangle must be non-degenerate, every edge shared by exactly two
// triangles running it in opposite directions (closed and consistently oriented), and every
// vertex on or behind every triangle's plane to within 1e-12 of the mesh's size (rounding of
// the plane test only, so the hull is the mesh's own solid, not an approximation of it). Such
// a mesh also gets an hscHull: its vertices, its faces (coplanar triangles merged into one
// convex polygon, counter-clockwise around the outward normal), the edges between faces, and
// the directions the separating-axis test needs (face normals and edge directions, each once
// up to sign). The narrow phase then treats the mesh like a primitive: a support function over
// the vertices for GJK and MPR, the separating-axis test against boxes, triangles and other
// hulls, and a face or edge as the feature a contact manifold is clipped from. Meshes that are
// open, non-convex or too large (more than HSC_HULL_MAX_VERT vertices, a face of more than
// HSC_HULL_MAX_FACE corners, more than HSC_HULL_MAX_AXES axes) keep the BVH path only.

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "collision_private.h"

void hsc_freeHull(hscHull *h) {
  if (!h) {
    return;
  }
  hsu_free(h->v);
  hsu_free(h->fn);
  hsu_free(h->fadr);
  hsu_free(h->fv);
  hsu_free(h->ev);
  hsu_free(h->ax);
  hsu_free(h);
}

// a vertex with its index, for welding by coordinates
typedef struct Key {
  double x[3];
  int i;
} Key;

static int keyCmp(const void *pa, const void *pb) {
  const Key *a = pa, *b = pb;
  for (int j = 0; j < 3; j++) {
    if (a->x[j] != b->x[j]) {
      return a->x[j] < b->x[j] ? -1 : 1;
    }
  }
  return (a->i > b->i) - (a->i < b->i);
}

// scratch of the build, freed together
typedef struct Scratch {
  Key *keys;
  int *weld;      // input vertex -> hull vertex
  int *dirTri;    // nv x nv: triangle running edge a -> b, or -1
  int *triFace;   // triangle -> face
  double *tn;     // unit normal per triangle
  double *td;     // plane offset per triangle
  int *mark;      // per hull vertex: last face that listed it
  double *uv;     // 2D coordinates of a face's vertices
  int *idx;       // a face's vertex list
} Scratch;

static void freeScratch(Scratch *s) {
  hsu_free(s->keys);
  hsu_free(s->weld);
  hsu_free(s->dirTri);
  hsu_free(s->triFace);
  hsu_free(s->tn);
  hsu_free(s->td);
  hsu_free(s->mark);
  hsu_free(s->uv);
  hsu_free(s->idx);
}

// add unit direction u to the axis list ax (n so far, room for max) unless it is there already
// up to sign; returns the new count, or max + 1 when full
static int addAxis(double *ax, int n, int max, const double u[3]) {
  for (int i = 0; i < n; i++) {
    double x[3];
    v3cross(x, ax + 3 * i, u);
    if (v3dot(x, x) <= 1e-18) {
      return n;
    }
  }
  if (n >= max) {
    return max + 1;
  }
  v3copy(ax + 3 * n, u);
  return n + 1;
}

// 2D cross of (b - a) and (c - a)
static double cross2(const double *a, const double *b, const double *c) {
  return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

// sort order of face vertices by their 2D coordinates (insertion sort: faces are small)
static void sort2(int *idx, int n, const double *uv) {
  for (int i = 1; i < n; i++) {
    int k = idx[i];
    int j = i;
    while (j > 0) {
      const double *a = uv + 2 * idx[j - 1], *b = uv + 2 * k;
      if (a[0] < b[0] || (a[0] == b[0] && (a[1] < b[1] || (a[1] == b[1] && idx[j - 1] < k)))) {
        break;
      }
      idx[j] = idx[j - 1];
      j--;
    }
    idx[j] = k;
  }
}

// convex hull (monotone chain, collinear points dropped) of the n local indices idx into uv,
// counter-clockwise; writes at most 2 n + 1 indices into out and returns the count
static int hull2(int *idx, int n, const double *uv, int *out) {
  sort2(idx, n, uv);
  int k = 0;
  for (int i = 0; i < n; i++) {
    while (k >= 2 && cross2(uv + 2 * out[k - 2], uv + 2 * out[k - 1], uv + 2 * idx[i]) <= 0) {
      k--;
    }
    out[k++] = idx[i];
  }
  for (int i = n - 2, lo = k + 1; i >= 0; i--) {
    while (k >= lo && cross2(uv + 2 * out[k - 2], uv + 2 * out[k - 1], uv + 2 * idx[i]) <= 0) {
      k--;
    }
    out[k++] = idx[i];
  }
  return k > 1 ? k - 1 : k;  // the last point repeats the first
}

// what a phase of hsc_makeHull found
enum { hullNO = 0, hullOK = 1 };

// weld vertices with identical coordinates (hull vertex order: sorted by coordinates): fills
// s->weld (mesh vertex -> welded index); returns the number of welded vertices
static int weldVertices(const hscMesh *m, Scratch *s) {
  int n = m->nvert, nv = 0;
  for (int i = 0; i < n; i++) {
    memcpy(s->keys[i].x, m->v + 3 * i, sizeof s->keys[i].x);
    s->keys[i].i = i;
  }
  qsort(s->keys, (size_t)n, sizeof *s->keys, keyCmp);
  for (int i = 0; i < n; i++) {
    // equal as numbers (-0 welds with 0, which keyCmp sorts among its equals)
    const double *x = s->keys[i].x, *y = i ? s->keys[i - 1].x : NULL;
    if (i == 0 || x[0] != y[0] || x[1] != y[1] || x[2] != y[2]) {
      nv++;
    }
    s->weld[s->keys[i].i] = nv - 1;
  }
  return nv;
}

// the hull's vertices (h->v, h->nv given) and their centre h->c; *size is the diagonal of
// their bounding box
static void placeVertices(const hscMesh *m, const Scratch *s, hscHull *h, double *size) {
  int nv = h->nv;
  for (int i = 0; i < m->nvert; i++) {
    memcpy(h->v + 3 * s->weld[i], m->v + 3 * i, 3 * sizeof(double));
  }
  double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
  h->c[0] = h->c[1] = h->c[2] = 0;
  for (int i = 0; i < nv; i++) {
    for (int j = 0; j < 3; j++) {
      lo[j] = fmin(lo[j], h->v[3 * i + j]);
      hi[j] = fmax(hi[j], h->v[3 * i + j]);
      h->c[j] += h->v[3 * i + j];
    }
  }
  v3scale(h->c, 1.0 / nv, h->c);
  double ext[3];
  v3sub(ext, hi, lo);
  *size = v3norm(ext);
}

// closed and consistently oriented: each directed edge once, its reverse once (s->dirTri:
// the triangle of each directed edge); s->tn, s->td: each triangle's unit normal and offset
static int checkClosed(const hscMesh *m, Scratch *s, const hscHull *h) {
  int nv = h->nv, nt = m->ntri;
  for (int i = 0; i < nv * nv; i++) {
    s->dirTri[i] = -1;
  }
  for (int t = 0; t < nt; t++) {
    int w[3];
    for (int k = 0; k < 3; k++) {
      w[k] = s->weld[m->tri[3 * t + k]];
    }
    if (w[0] == w[1] || w[1] == w[2] || w[2] == w[0]) {
      return hullNO;
    }
    for (int k = 0; k < 3; k++) {
      int *e = &s->dirTri[w[k] * nv + w[(k + 1) % 3]];
      if (*e >= 0) {
        return hullNO;
      }
      *e = t;
    }
    const double *a = h->v + 3 * w[0], *b = h->v + 3 * w[1], *c = h->v + 3 * w[2];
    double e1[3], e2[3], *nn = s->tn + 3 * t;
    v3sub(e1, b, a);
    v3sub(e2, c, a);
    v3cross(nn, e1, e2);
    if (!(v3normalize(nn) > 0)) {
      return hullNO;
    }
    s->td[t] = v3dot(nn, a);
  }
  for (int a = 0; a < nv; a++) {
    for (int b = 0; b < nv; b++) {
      if ((s->dirTri[a * nv + b] >= 0) != (s->dirTri[b * nv + a] >= 0)) {
        return hullNO;
      }
    }
  }
  return hullOK;
}

// convex: every vertex on or behind every plane (within tol); and some volume, and not flat
static int checkSolid(const hscMesh *m, const Scratch *s, const hscHull *h, double tol,
                      double size) {
  int nv = h->nv, nt = m->ntri;
  double vol = 0;
  for (int t = 0; t < nt; t++) {
    const double *nn = s->tn + 3 * t;
    for (int i = 0; i < nv; i++) {
      if (v3dot(nn, h->v + 3 * i) - s->td[t] > tol) {
        return hullNO;
      }
    }
    const double *a = h->v + 3 * s->weld[m->tri[3 * t]];
    const double *b = h->v + 3 * s->weld[m->tri[3 * t + 1]];
    const double *c = h->v + 3 * s->weld[m->tri[3 * t + 2]];
    double x[3], ac[3], bc[3], ca[3];
    v3sub(ac, a, h->c);
    v3sub(bc, b, h->c);
    v3sub(ca, c, h->c);
    v3cross(x, bc, ca);
    vol += v3dot(ac, x);
  }
  // and not flat: a sheet closed by facing triangles passes the tests above, its volume
  // rounding noise of either sign; a solid has vertices well behind its first face's plane
  double behind = 0;
  for (int i = 0; i < nv; i++) {
    behind = fmax(behind, s->td[0] - v3dot(s->tn, h->v + 3 * i));
  }
  return vol > 0 && behind > 1e-9 * size ? hullOK : hullNO;
}

// faces: triangles with the same outward normal (a convex solid has one plane per normal),
// each a polygon of at most HSC_HULL_MAX_FACE vertices (h->fn, h->fadr, h->fv allocated)
static int makeFaces(const hscMesh *m, Scratch *s, hscHull *h) {
  int nv = h->nv, nt = m->ntri;
  for (int t = 0; t < nt; t++) {
    s->triFace[t] = -1;
  }
  for (int i = 0; i < nv; i++) {
    s->mark[i] = -1;
  }
  h->nf = 0;
  int nfv = 0;
  for (int t = 0; t < nt; t++) {
    if (s->triFace[t] >= 0) {
      continue;
    }
    int f = h->nf++;
    const double *nn = s->tn + 3 * t;
    double *fn = h->fn + 4 * f;
    v3copy(fn, nn);
    fn[3] = s->td[t];
    int cnt = 0;
    for (int u = t; u < nt; u++) {
      if (s->triFace[u] < 0 && v3dot(s->tn + 3 * u, nn) > 1 - 1e-10) {
        s->triFace[u] = f;
        for (int k = 0; k < 3; k++) {
          int w = s->weld[m->tri[3 * u + k]];
          if (s->mark[w] != f) {
            s->mark[w] = f;
            s->idx[cnt++] = w;
          }
        }
      }
    }
    // the face polygon: the 2D hull of its vertices in the plane's basis (t1, t2, n)
    double t1[3], t2[3];
    hsc_basis(nn, t1, t2);
    for (int i = 0; i < cnt; i++) {
      const double *x = h->v + 3 * s->idx[i];
      s->uv[2 * s->idx[i]] = v3dot(x, t1);
      s->uv[2 * s->idx[i] + 1] = v3dot(x, t2);
    }
    int *poly = s->idx + nv;
    int k = hull2(s->idx, cnt, s->uv, poly);
    if (k < 3 || k > HSC_HULL_MAX_FACE) {
      return hullNO;
    }
    h->fadr[f] = nfv;
    memcpy(h->fv + nfv, poly, sizeof(int) * (size_t)k);
    nfv += k;
  }
  h->fadr[h->nf] = nfv;
  return hullOK;
}

// edges between different faces (h->ev), and the separating axes: face normals, then edge
// directions, at most HSC_HULL_MAX_AXES in all
static int makeEdgesAndAxes(const Scratch *s, hscHull *h) {
  int nv = h->nv;
  h->ne = 0;
  for (int a = 0; a < nv; a++) {
    for (int b = a + 1; b < nv; b++) {
      int t = s->dirTri[a * nv + b];
      if (t >= 0 && s->triFace[t] != s->triFace[s->dirTri[b * nv + a]]) {
        h->ev[2 * h->ne] = a;
        h->ev[2 * h->ne + 1] = b;
        h->ne++;
      }
    }
  }
  int nax = 0;
  for (int f = 0; f < h->nf && nax <= HSC_HULL_MAX_AXES; f++) {
    nax = addAxis(h->ax, nax, HSC_HULL_MAX_AXES, h->fn + 4 * f);
  }
  h->nfax = nax;
  double *eax = h->ax + 3 * h->nfax;
  int ne = 0;
  for (int e = 0; e < h->ne && nax + ne <= HSC_HULL_MAX_AXES; e++) {
    double u[3];
    v3sub(u, h->v + 3 * h->ev[2 * e + 1], h->v + 3 * h->ev[2 * e]);
    v3normalize(u);
    ne = addAxis(eax, ne, HSC_HULL_MAX_AXES - nax, u);
  }
  if (nax + ne > HSC_HULL_MAX_AXES) {
    return hullNO;
  }
  h->neax = ne;
  return hullOK;
}

int hsc_makeHull(const hscMesh *m, hscHull **out, hsError *err) {
  *out = NULL;
  int n = m->nvert, nt = m->ntri;
  // a closed mesh of at most HSC_HULL_MAX_VERT vertices has at most 2 of them - 4 triangles:
  // larger meshes are not even welded
  if (nt < 4 || n < 4 || nt > 2 * HSC_HULL_MAX_VERT - 4) {
    return 0;
  }
  Scratch s = {0};
  hscHull *h = NULL;
  int rc = 0;
  s.keys = hsu_malloc(sizeof *s.keys * (size_t)n);
  s.weld = hsu_malloc(sizeof *s.weld * (size_t)n);
  if (!s.keys || !s.weld) {
    goto nomem;
  }
  int nv = weldVertices(m, &s);
  // a closed mesh has at most 2 nv - 4 triangles
  if (nv > HSC_HULL_MAX_VERT || nv < 4 || nt > 2 * nv - 4) {
    goto notConvex;
  }
  h = hsu_calloc(1, sizeof *h);
  s.dirTri = hsu_malloc(sizeof(int) * (size_t)nv * (size_t)nv);
  s.triFace = hsu_malloc(sizeof(int) * (size_t)nt);
  s.tn = hsu_malloc(sizeof(double) * 3 * (size_t)nt);
  s.td = hsu_malloc(sizeof(double) * (size_t)nt);
  s.mark = hsu_malloc(sizeof(int) * (size_t)nv);
  s.uv = hsu_malloc(sizeof(double) * 2 * (size_t)nv);
  s.idx = hsu_malloc(sizeof(int) * 4 * (size_t)nv + 4);
  if (!h || !s.dirTri || !s.triFace || !s.tn || !s.td || !s.mark || !s.uv || !s.idx) {
    goto nomem;
  }
  h->nv = nv;
  h->v = hsu_malloc(sizeof(double) * 3 * (size_t)nv);
  if (!h->v) {
    goto nomem;
  }
  double size;
  placeVertices(m, &s, h, &size);
  double tol = 1e-12 * size;
  if (!(tol > 0) || checkClosed(m, &s, h) != hullOK || checkSolid(m, &s, h, tol, size) != hullOK) {
    goto notConvex;
  }
  h->fn = hsu_malloc(sizeof(double) * 4 * (size_t)nt);
  h->fadr = hsu_malloc(sizeof(int) * ((size_t)nt + 1));
  h->fv = hsu_malloc(sizeof(int) * 3 * (size_t)nt);
  h->ev = hsu_malloc(sizeof(int) * 3 * (size_t)nt);
  h->ax = hsu_malloc(sizeof(double) * 3 * 2 * (HSC_HULL_MAX_AXES + 1));
  if (!h->fn || !h->fadr || !h->fv || !h->ev || !h->ax) {
    goto nomem;
  }
  if (makeFaces(m, &s, h) != hullOK || makeEdgesAndAxes(&s, h) != hullOK) {
    goto notConvex;
  }
  for (int k = 0; k < 6; k++) {
    double u[3] = {0, 0, 0};
    u[k / 2] = k % 2 ? -1 : 1;
    h->ext[k] = hsc_hullSupportIndex(h, u);
  }
  *out = h;
  freeScratch(&s);
  return 0;
nomem:
  rc = HS_ERR(err, hsE_NOMEM, "out of memory");
notConvex:
  hsc_freeHull(h);
  freeScratch(&s);
  return rc;
}

//---------------------------------- queries ---------------------------------------------------

int hsc_hullSupportIndex(const hscHull *h, const double l[3]) {
  int best = 0;
  double bd = v3dot(h->v, l);
  for (int i = 1; i < h->nv; i++) {
    double x = v3dot(h->v + 3 * i, l);
    if (x > bd) {
      bd = x;
      best = i;
    }
  }
  return best;
}

void hsc_hullProject(const hscHull *h, const double l[3], double *lo, double *hi) {
  double a = v3dot(h->v, l), b = a;
  for (int i = 1; i < h->nv; i++) {
    double x = v3dot(h->v + 3 * i, l);
    a = x < a ? x : a;
    b = x > b ? x : b;
  }
  *lo = a;
  *hi = b;
}
