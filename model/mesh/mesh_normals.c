// mesh_normals.c - per-corner normals for a triangle mesh, smoothed up to a crease angle.
//
// hsm_generateNormals computes every triangle's unit normal and, at each corner, the angle of
// the triangle there. A corner of triangle t at vertex v gets the normalised sum of the normals
// of the triangles around v whose normal is within creaseAngle of t's, each weighted by its
// corner angle at v. Angle weights make the result independent of how a polygon was split into
// triangles (a cube corner gets exactly the diagonal). creaseAngle <= 0 gives every corner its
// face normal; creaseAngle >= pi gives one normal per vertex.
//
// The triangles around each vertex come from a compressed vertex -> corner table built in O(T).
// Comparing every corner with every other corner at a vertex costs O(d^2) for a vertex of d
// triangles; above kGroupDegree the triangles at a vertex are first grouped by (quantised)
// normal, so a large fan of coplanar triangles costs O(d log d). Normals are deduplicated
// exactly (same float bits) through an open-addressing hash table, so flat faces made of many
// triangles share one normal. A corner whose sum vanishes (degenerate triangles, opposite faces
// cancelling) falls back to its face normal, or to +z if its triangle has no area.

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mesh.h"

// vertices with more triangles than this group their triangles by normal first
enum { kGroupDegree = 32 };

// normals closer than this (per component) are grouped at high-degree vertices
static const double kGroupQuantum = 1.0 / (1 << 24);

// the set of distinct normals built so far
typedef struct NormalSet {
  float *v;      // 3 per normal
  int n, cap;    // normals stored, allocated
  int *table;    // hash slots holding a normal index, -1 when empty
  int tableCap;  // a power of two
} NormalSet;

static uint32_t hashNormal(const float *f) {
  uint32_t h = 2166136261u;
  for (int k = 0; k < 3; k++) {
    uint32_t b;
    memcpy(&b, f + k, sizeof b);
    h = (h ^ b) * 16777619u;
    h ^= h >> 15;
  }
  return h;
}

// (re)build the hash table with cap slots; returns 0 or -1 when out of memory
static int rehash(NormalSet *s, int cap) {
  int *table = hsu_malloc((size_t)cap * sizeof *table);
  if (!table) {
    return -1;
  }
  for (int i = 0; i < cap; i++) {
    table[i] = -1;
  }
  for (int i = 0; i < s->n; i++) {
    uint32_t h = hashNormal(s->v + 3 * i) & (uint32_t)(cap - 1);
    while (table[h] >= 0) {
      h = (h + 1) & (uint32_t)(cap - 1);
    }
    table[h] = i;
  }
  hsu_free(s->table);
  s->table = table;
  s->tableCap = cap;
  return 0;
}

// index of the normal n (unit length) in the set, adding it if new; -1 when out of memory
static int addNormal(NormalSet *s, const double n[3]) {
  // +0.0f turns -0 into +0 so equal directions have equal bits
  float f[3] = {(float)n[0] + 0.0f, (float)n[1] + 0.0f, (float)n[2] + 0.0f};
  if (2 * (s->n + 1) > s->tableCap && rehash(s, s->tableCap ? 2 * s->tableCap : 1024)) {
    return -1;
  }
  uint32_t h = hashNormal(f) & (uint32_t)(s->tableCap - 1);
  for (; s->table[h] >= 0; h = (h + 1) & (uint32_t)(s->tableCap - 1)) {
    if (memcmp(s->v + 3 * s->table[h], f, sizeof f) == 0) {
      return s->table[h];
    }
  }
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 256;
    float *v = hsu_realloc(s->v, 3 * (size_t)cap * sizeof *v);
    if (!v) {
      return -1;
    }
    s->v = v;
    s->cap = cap;
  }
  memcpy(s->v + 3 * s->n, f, sizeof f);
  s->table[h] = s->n;
  return s->n++;
}

// per-mesh working data
typedef struct Work {
  const hsmMesh *mesh;
  double *faceN;   // unit normal per triangle (zero if degenerate)
  double *angle;   // corner angle per corner (3 per triangle)
  int *start;      // corners of vertex v: corners[start[v] .. start[v + 1])
  int *corners;    // corner ids (3 * triangle + k)
  NormalSet set;
  int *out;        // normal index per corner
} Work;

// face normals and corner angles
static void faceGeometry(Work *w, int withAngles) {
  const hsmMesh *m = w->mesh;
  for (int t = 0; t < m->ntriangle; t++) {
    double p[3][3];
    for (int k = 0; k < 3; k++) {
      const float *v = m->vertices + 3 * m->triangles[3 * t + k];
      p[k][0] = v[0], p[k][1] = v[1], p[k][2] = v[2];
    }
    double e[3][3];  // e[k] = edge from corner k to corner k + 1
    for (int k = 0; k < 3; k++) {
      for (int i = 0; i < 3; i++) {
        e[k][i] = p[(k + 1) % 3][i] - p[k][i];
      }
    }
    double n[3];
    hsu_cross(n, e[0], e[1]);
    double len = hsu_norm(n);
    double *fn = w->faceN + 3 * t;
    for (int i = 0; i < 3; i++) {
      fn[i] = len > 0 ? n[i] / len : 0;
    }
    if (!withAngles) {
      continue;
    }
    // the angle at corner k lies between e[k] and -e[k - 1]
    for (int k = 0; k < 3; k++) {
      const double *a = e[k], *b = e[(k + 2) % 3];
      double c[3];
      hsu_cross(c, a, b);
      w->angle[3 * t + k] = atan2(hsu_norm(c), -hsu_dot(a, b));
    }
  }
}

// unit direction of sum, else the face normal of triangle t, else +z
static void finish(double res[3], const double sum[3], const double *fn) {
  double len = hsu_norm(sum);
  if (len > 1e-300) {
    res[0] = sum[0] / len, res[1] = sum[1] / len, res[2] = sum[2] / len;
  } else if (hsu_dot(fn, fn) > 0) {
    res[0] = fn[0], res[1] = fn[1], res[2] = fn[2];
  } else {
    res[0] = 0, res[1] = 0, res[2] = 1;
  }
}

static int setCorner(Work *w, int corner, const double n[3]) {
  int idx = addNormal(&w->set, n);
  w->out[corner] = idx;
  return idx < 0 ? -1 : 0;
}

// vertex -> corner table (counting sort by vertex)
static void buildCornerTable(Work *w) {
  const hsmMesh *m = w->mesh;
  int nc = 3 * m->ntriangle;
  memset(w->start, 0, ((size_t)m->nvertex + 1) * sizeof *w->start);
  for (int c = 0; c < nc; c++) {
    w->start[m->triangles[c] + 1]++;
  }
  for (int v = 0; v < m->nvertex; v++) {
    w->start[v + 1] += w->start[v];
  }
  for (int c = 0; c < nc; c++) {
    int v = m->triangles[c];
    w->corners[w->start[v]++] = c;
  }
  // start[v] now holds the old start[v + 1]; shift back
  for (int v = m->nvertex; v > 0; v--) {
    w->start[v] = w->start[v - 1];
  }
  w->start[0] = 0;
}

// one grouped triangle direction at a vertex
typedef struct Group {
  long long key[3];  // quantised normal
  int corner;        // a corner of the group (sort payload)
} Group;

static int compareGroups(const void *pa, const void *pb) {
  const Group *a = pa, *b = pb;
  for (int k = 0; k < 3; k++) {
    if (a->key[k] != b->key[k]) {
      return a->key[k] < b->key[k] ? -1 : 1;
    }
  }
  return a->corner - b->corner;
}

// corner normals at one high-degree vertex, grouping its triangles by normal direction;
// scratch holds d Groups and 6 * d doubles
static int smoothVertexGrouped(Work *w, const int *cs, int d, double cosTol, Group *groups,
                               double *gsum) {
  for (int i = 0; i < d; i++) {
    const double *fn = w->faceN + 3 * (cs[i] / 3);
    for (int k = 0; k < 3; k++) {
      groups[i].key[k] = llround(fn[k] / kGroupQuantum);
    }
    groups[i].corner = cs[i];
  }
  qsort(groups, (size_t)d, sizeof *groups, compareGroups);
  // per group: weighted normal sum (gsum[6g..]) and a representative direction (gsum[6g+3..])
  int ng = 0;
  for (int i = 0; i < d; i++) {
    int c = groups[i].corner;
    const double *fn = w->faceN + 3 * (c / 3);
    if (i == 0 || memcmp(groups[i].key, groups[i - 1].key, sizeof groups[i].key) != 0) {
      double *g = gsum + 6 * ng++;
      g[0] = g[1] = g[2] = 0;
      g[3] = fn[0], g[4] = fn[1], g[5] = fn[2];
    }
    double *g = gsum + 6 * (ng - 1);
    for (int k = 0; k < 3; k++) {
      g[k] += w->angle[c] * fn[k];
    }
  }
  // each group's result, given to all its corners
  int g = -1;
  double res[3];
  for (int i = 0; i < d; i++) {
    int c = groups[i].corner;
    if (i == 0 || memcmp(groups[i].key, groups[i - 1].key, sizeof groups[i].key) != 0) {
      g++;
      const double *rep = gsum + 6 * g + 3;
      double sum[3] = {0, 0, 0};
      for (int h = 0; h < ng; h++) {
        const double *o = gsum + 6 * h;
        if (hsu_dot(rep, o + 3) >= cosTol) {
          sum[0] += o[0], sum[1] += o[1], sum[2] += o[2];
        }
      }
      finish(res, sum, rep);
    }
    if (setCorner(w, c, res)) {
      return -1;
    }
  }
  return 0;
}

int hsm_generateNormals(hsmMesh *mesh, double creaseAngle, hsError *err) {
  if (!mesh || isnan(creaseAngle) || mesh->ntriangle < 0 || mesh->nvertex < 0 ||
      (mesh->ntriangle > 0 && (!mesh->triangles || !mesh->vertices))) {
    return HS_ERR(err, hsE_INVALID, "generating normals: invalid mesh or crease angle");
  }
  int nt = mesh->ntriangle, nc = 3 * nt, nv = mesh->nvertex;
  for (int c = 0; c < nc; c++) {
    if (mesh->triangles[c] < 0 || mesh->triangles[c] >= nv) {
      return HS_ERR(err, hsE_INVALID,
                    "generating normals: triangle %d refers to vertex %d of %d", c / 3,
                    mesh->triangles[c], nv);
    }
  }
  int flat = !(creaseAngle > 0), smooth = creaseAngle >= HS_PI;
  // a little slack so faces at exactly the crease angle (or coplanar, for 0) count
  double cosTol = cos(creaseAngle) - 1e-9;

  Work w;
  memset(&w, 0, sizeof w);
  w.mesh = mesh;
  w.faceN = hsu_malloc(3 * (size_t)nt * sizeof *w.faceN);
  w.out = hsu_malloc((size_t)nc * sizeof *w.out);
  int ok = w.faceN && w.out;
  if (ok && !flat) {
    w.angle = hsu_malloc((size_t)nc * sizeof *w.angle);
    w.start = hsu_malloc(((size_t)nv + 1) * sizeof *w.start);
    w.corners = hsu_malloc((size_t)nc * sizeof *w.corners);
    ok = w.angle && w.start && w.corners;
  }
  Group *groups = NULL;
  double *gsum = NULL;
  if (ok) {
    faceGeometry(&w, !flat);
    if (!flat) {
      buildCornerTable(&w);
    }
  }
  if (ok && flat) {
    // every corner takes its face normal
    for (int t = 0; ok && t < nt; t++) {
      double n[3], zero[3] = {0, 0, 0};
      finish(n, zero, w.faceN + 3 * t);
      int idx = addNormal(&w.set, n);
      ok = idx >= 0;
      w.out[3 * t] = w.out[3 * t + 1] = w.out[3 * t + 2] = idx;
    }
  } else if (ok) {
    int maxDegree = 0;
    for (int v = 0; v < nv; v++) {
      int d = w.start[v + 1] - w.start[v];
      maxDegree = d > maxDegree ? d : maxDegree;
    }
    if (!smooth && maxDegree > kGroupDegree) {
      groups = hsu_malloc((size_t)maxDegree * sizeof *groups);
      gsum = hsu_malloc(6 * (size_t)maxDegree * sizeof *gsum);
      ok = groups && gsum;
    }
    for (int v = 0; ok && v < nv; v++) {
      const int *cs = w.corners + w.start[v];
      int d = w.start[v + 1] - w.start[v];
      if (smooth) {
        // one normal for the whole vertex (corners of degenerate sums fall back per face)
        double sum[3] = {0, 0, 0};
        for (int j = 0; j < d; j++) {
          const double *fn = w.faceN + 3 * (cs[j] / 3);
          for (int k = 0; k < 3; k++) {
            sum[k] += w.angle[cs[j]] * fn[k];
          }
        }
        for (int i = 0; ok && i < d; i++) {
          double n[3];
          finish(n, sum, w.faceN + 3 * (cs[i] / 3));
          ok = setCorner(&w, cs[i], n) == 0;
        }
      } else if (d > kGroupDegree) {
        ok = smoothVertexGrouped(&w, cs, d, cosTol, groups, gsum) == 0;
      } else {
        for (int i = 0; ok && i < d; i++) {
          const double *fi = w.faceN + 3 * (cs[i] / 3);
          double sum[3] = {0, 0, 0};
          for (int j = 0; j < d; j++) {
            const double *fj = w.faceN + 3 * (cs[j] / 3);
            if (hsu_dot(fi, fj) >= cosTol) {
              for (int k = 0; k < 3; k++) {
                sum[k] += w.angle[cs[j]] * fj[k];
              }
            }
          }
          double n[3];
          finish(n, sum, fi);
          ok = setCorner(&w, cs[i], n) == 0;
        }
      }
    }
  }
  hsu_free(groups);
  hsu_free(gsum);
  hsu_free(w.faceN);
  hsu_free(w.angle);
  hsu_free(w.start);
  hsu_free(w.corners);
  hsu_free(w.set.table);
  if (!ok) {
    hsu_free(w.out);
    hsu_free(w.set.v);
    return HS_ERR(err, hsE_NOMEM, "out of memory generating normals for %d triangles", nt);
  }
  // replace the mesh's normals
  hsu_free(mesh->normals);
  hsu_free(mesh->normalIndices);
  mesh->normals = w.set.v;
  mesh->nnormal = w.set.n;
  mesh->normalIndices = w.out;
  mesh->nnormalIndex = nc;
  mesh->normalPerVertex = 1;
  return 0;
}
