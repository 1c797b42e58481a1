// test_mesh.c - mesh queries through the BVH against a brute-force reference, and determinism.
//
// The reference is the same geometry as one geom per triangle (each a one-triangle mesh), so
// the scene visits every triangle pair with no tree at all; the per-triangle arithmetic is the
// same, so the answers must be identical to the bit: the minimum distance, the first ray hit,
// the intersection verdict, and the set of contact points (compared sorted, with the scene
// keeping every candidate). Meshes are random closed blobs (a sphere's triangulation with
// random radii, counter-clockwise from outside) and random triangle soups, at random poses, from
// a fixed seed.

#include <stdlib.h>

#include "col_helpers.h"
#include "collision_private.h"

// a small deterministic generator (xorshift), so the meshes are the same everywhere
static unsigned long long g_rng = 88172645463325252ULL;
static double rnd(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return (double)(g_rng >> 11) / 9007199254740992.0;
}

typedef struct Mesh {
  float *v;
  int *t;
  int nv, nt;
} Mesh;

// a closed blob: a UV sphere of nu x nv quads, radius in [r0, r1] per vertex
static Mesh blob(int nu, int nv, double r0, double r1) {
  Mesh m;
  m.nv = nu * (nv - 1) + 2;
  m.nt = 2 * nu * (nv - 1);
  m.v = malloc(sizeof(float) * 3 * (size_t)m.nv);
  m.t = malloc(sizeof(int) * 3 * (size_t)m.nt);
  int k = 0;
  for (int j = 1; j < nv; j++) {
    double th = HS_PI * j / nv;
    for (int i = 0; i < nu; i++) {
      double ph = 2 * HS_PI * i / nu, r = r0 + (r1 - r0) * rnd();
      m.v[3 * k] = (float)(r * sin(th) * cos(ph));
      m.v[3 * k + 1] = (float)(r * sin(th) * sin(ph));
      m.v[3 * k + 2] = (float)(r * cos(th));
      k++;
    }
  }
  int top = k, bottom = k + 1;
  m.v[3 * top] = 0;
  m.v[3 * top + 1] = 0;
  m.v[3 * top + 2] = (float)r1;
  m.v[3 * bottom] = 0;
  m.v[3 * bottom + 1] = 0;
  m.v[3 * bottom + 2] = (float)-r1;
  int t = 0;
  for (int i = 0; i < nu; i++) {
    int a = i, b = (i + 1) % nu;
    int *q = m.t + 3 * t++;
    q[0] = top;
    q[1] = a;
    q[2] = b;
    int base = nu * (nv - 2);
    q = m.t + 3 * t++;
    q[0] = bottom;
    q[1] = base + b;
    q[2] = base + a;
  }
  for (int j = 0; j < nv - 2; j++) {
    for (int i = 0; i < nu; i++) {
      int a = j * nu + i, b = j * nu + (i + 1) % nu, c = a + nu, d = b + nu;
      int *q = m.t + 3 * t++;
      q[0] = a;
      q[1] = c;
      q[2] = b;
      q = m.t + 3 * t++;
      q[0] = b;
      q[1] = c;
      q[2] = d;
    }
  }
  return m;
}

// n random triangles in a cube of side s
static Mesh soup(int n, double s, double size) {
  Mesh m;
  m.nv = 3 * n;
  m.nt = n;
  m.v = malloc(sizeof(float) * 9 * (size_t)n);
  m.t = malloc(sizeof(int) * 3 * (size_t)n);
  for (int i = 0; i < n; i++) {
    double c[3] = {s * (rnd() - 0.5), s * (rnd() - 0.5), s * (rnd() - 0.5)};
    for (int k = 0; k < 3; k++) {
      for (int j = 0; j < 3; j++) {
        m.v[9 * i + 3 * k + j] = (float)(c[j] + size * (rnd() - 0.5));
      }
      m.t[3 * i + k] = 3 * i + k;
    }
  }
  return m;
}

static void freeMesh(Mesh *m) {
  free(m->v);
  free(m->t);
}

// the mesh as one geom per triangle, each triangle its own mesh
static hscModel *perTriangle(const Mesh *m) {
  hscGeomDesc *g = calloc((size_t)m->nt, sizeof *g);
  static const int tri[3] = {0, 1, 2};
  float *v = malloc(sizeof(float) * 9 * (size_t)m->nt);
  for (int i = 0; i < m->nt; i++) {
    for (int k = 0; k < 3; k++) {
      memcpy(v + 9 * i + 3 * k, m->v + 3 * m->t[3 * i + k], 3 * sizeof(float));
    }
    g[i].type = hsGEOM_MESH;
    memcpy(g[i].T, kIdentity12, sizeof g[i].T);
    g[i].vertices = v + 9 * i;
    g[i].nvertex = 3;
    g[i].triangles = tri;
    g[i].ntriangle = 1;
  }
  hscModel *model = hsc_makeModelFromGeoms(g, m->nt, 1, NULL, NULL);
  free(v);
  free(g);
  CU_ASSERT_PTR_NOT_NULL(model);
  return model;
}

static void randomPose(double p[3], double R[9], double spread) {
  double ax[3] = {rnd() - 0.5, rnd() - 0.5, rnd() - 0.5};
  double aa[4] = {ax[0], ax[1], ax[2], 2 * HS_PI * rnd()};
  hsu_axisAngleToMat(R, aa);
  for (int j = 0; j < 3; j++) {
    p[j] = spread * (rnd() - 0.5);
  }
}

// a scene with every contact candidate kept
static hscScene *keepAllScene(void) {
  hscOptions o;
  hsc_defaultOptions(&o);
  o.maxCandidates = 1 << 16;
  o.maxContactsPerPair = 1 << 16;
  hscScene *s = hsc_makeScene(&o, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  return s;
}

static int candOrder(const void *x, const void *y) {
  const hscContact *a = x, *b = y;
  const double ka[7] = {a->depth, a->p[0], a->p[1], a->p[2], a->n[0], a->n[1], a->n[2]};
  const double kb[7] = {b->depth, b->p[0], b->p[1], b->p[2], b->n[0], b->n[1], b->n[2]};
  for (int i = 0; i < 7; i++) {
    if (ka[i] != kb[i]) {
      return ka[i] < kb[i] ? -1 : 1;
    }
  }
  return 0;
}

// compare the BVH scene (bodies 0, 1) with the brute-force one (bodies 2, 3 at the same poses)
// on contacts, intersection, distance and a few rays
static int compareScenes(hscScene *s, int trials, double spread, int *touching) {
  static hscContact c1[1 << 16], c2[1 << 16];
  int mismatches = 0;
  for (int t = 0; t < trials; t++) {
    double p[2][3], R[2][9];
    for (int b = 0; b < 2; b++) {
      randomPose(p[b], R[b], spread);
      hsc_setLinkPose(s, b, 0, p[b], R[b], NULL);
      hsc_setLinkPose(s, b + 2, 0, p[b], R[b], NULL);
    }
    hscPair pairs[2] = {{{0, 1}, {0, 0}, 0, 0}, {{2, 3}, {0, 0}, 0, 0}};
    int n1 = hsc_contacts(s, &pairs[0], 1, c1, 1 << 16, NULL);
    int n2 = hsc_contacts(s, &pairs[1], 1, c2, 1 << 16, NULL);
    *touching += n1 > 0;
    qsort(c1, (size_t)n1, sizeof *c1, candOrder);
    qsort(c2, (size_t)n2, sizeof *c2, candOrder);
    for (int i = 0; i < n1; i++) {
      c1[i].pair = c2[i].pair = 0;
    }
    if (n1 != n2 || memcmp(c1, c2, sizeof *c1 * (size_t)n1) != 0) {
      fprintf(stderr, "\n  trial %d: %d contacts through the BVH, %d brute force\n", t, n1, n2);
      mismatches++;
    }
    unsigned char h1, h2;
    hsc_intersections(s, &pairs[0], 1, 1, &h1);
    hsc_intersections(s, &pairs[1], 1, 1, &h2);
    if (h1 != h2 || h1 != (n1 > 0)) {
      fprintf(stderr, "\n  trial %d: intersection %d vs %d (contacts %d)\n", t, h1, h2, n1);
      mismatches++;
    }
    hscDistance d1, d2;
    hsc_distances(s, &pairs[0], 1, &d1);
    hsc_distances(s, &pairs[1], 1, &d2);
    if (d1.d != d2.d) {
      fprintf(stderr, "\n  trial %d: distance %.17g vs %.17g\n", t, d1.d, d2.d);
      mismatches++;
    }
    // apart: the answer is the smallest (distance, triangle on side 0, triangle on side 1),
    // the same points to the bit whatever order the BVH met the pairs in; touching or crossing:
    // distance 0 at one point of both surfaces (the first crossing pair the walk meets)
    if (d1.d > 0 && memcmp(&d1, &d2, sizeof d1) != 0) {
      fprintf(stderr, "\n  trial %d: closest points differ at distance %.17g\n", t, d1.d);
      mismatches++;
    }
    if (d1.d == 0 && memcmp(d1.p0, d1.p1, sizeof d1.p0) != 0) {
      mismatches++;
    }
    // the closest points are that far apart
    if (d1.d > 0 && fabs(sqrt(v3dist2(d1.p0, d1.p1)) - d1.d) > 1e-12) {
      mismatches++;
    }
  }
  return mismatches;
}

// rays from random points towards the origin (only body 0 vs body 2 visible at a time)
static int compareRays(hscScene *bvh, hscScene *brute, int n) {
  int mismatches = 0;
  for (int i = 0; i < n; i++) {
    double o[3] = {4 * (rnd() - 0.5), 4 * (rnd() - 0.5), 4 * (rnd() - 0.5)};
    double d[3] = {-o[0] + 0.5 * (rnd() - 0.5), -o[1] + 0.5 * (rnd() - 0.5), -o[2]};
    hscRayHit h1, h2;
    int a = hsc_ray(bvh, o, d, INFINITY, &h1), b = hsc_ray(brute, o, d, INFINITY, &h2);
    if (a != b || h1.t != h2.t || memcmp(h1.n, h2.n, sizeof h1.n) != 0) {
      fprintf(stderr, "\n  ray %d: %d t %.17g vs %d t %.17g\n", i, a, h1.t, b, h2.t);
      mismatches++;
    }
  }
  return mismatches;
}

static void runPair(const Mesh *ma, const Mesh *mb, double spread, int trials) {
  hscModel *a = colMesh(ma->v, ma->nv, ma->t, ma->nt, 4);
  hscModel *b = colMesh(mb->v, mb->nv, mb->t, mb->nt, 4);
  hscModel *ra = perTriangle(ma), *rb = perTriangle(mb);
  hscScene *s = keepAllScene();
  hsc_addBody(s, a, NULL);
  hsc_addBody(s, b, NULL);
  hsc_addBody(s, ra, NULL);
  hsc_addBody(s, rb, NULL);
  int touching = 0;
  CU_ASSERT_EQUAL(compareScenes(s, trials, spread, &touching), 0);
  fprintf(stderr, " [%d of %d poses touching] ", touching, trials);
  CU_ASSERT(touching > trials / 10);  // the test exercises contacts, not just misses
  CU_ASSERT(touching < trials);
  hscScene *s1 = hsc_makeScene(NULL, NULL), *s2 = hsc_makeScene(NULL, NULL);
  hsc_addBody(s1, a, NULL);
  hsc_addBody(s2, ra, NULL);
  double p[3], R[9];
  randomPose(p, R, 0);
  hsc_setLinkPose(s1, 0, 0, p, R, NULL);
  hsc_setLinkPose(s2, 0, 0, p, R, NULL);
  CU_ASSERT_EQUAL(compareRays(s1, s2, 500), 0);
  hsc_freeScene(s);
  hsc_freeScene(s1);
  hsc_freeScene(s2);
  hsc_freeModel(a);
  hsc_freeModel(b);
  hsc_freeModel(ra);
  hsc_freeModel(rb);
}

static void testBlobs(void) {
  Mesh a = blob(24, 12, 0.4, 0.6), b = blob(16, 10, 0.2, 0.5);
  runPair(&a, &b, 1.6, 200);
  freeMesh(&a);
  freeMesh(&b);
}

static void testSoups(void) {
  Mesh a = soup(300, 1.0, 0.3), b = soup(200, 0.8, 0.4);
  runPair(&a, &b, 1.2, 150);
  freeMesh(&a);
  freeMesh(&b);
}

// a mesh against primitives: contacts and distance through the BVH equal the brute force
static void testMeshPrimitives(void) {
  Mesh mb = blob(20, 10, 0.4, 0.6);
  hscModel *a = colMesh(mb.v, mb.nv, mb.t, mb.nt, 4), *ra = perTriangle(&mb);
  hstGeom types[5] = {hsGEOM_SPHERE, hsGEOM_BOX, hsGEOM_CAPSULE, hsGEOM_CYLINDER, hsGEOM_CONE};
  for (int k = 0; k < 5; k++) {
    hscModel *p = colPrim(types[k], 0.2, 0.3, 0.25);
    hscScene *s = keepAllScene();
    hsc_addBody(s, a, NULL);
    hsc_addBody(s, p, NULL);
    hsc_addBody(s, ra, NULL);
    hsc_addBody(s, p, NULL);
    int touching = 0;
    CU_ASSERT_EQUAL(compareScenes(s, 100, 1.8, &touching), 0);
    CU_ASSERT(touching > 5);
    hsc_freeScene(s);
    hsc_freeModel(p);
  }
  hsc_freeModel(a);
  hsc_freeModel(ra);
  freeMesh(&mb);
}

// a mesh cube resting on a mesh slab: four points at the cube's bottom corners, normals from
// the cube into the slab, the penetration as depth
static void testMeshBoxOnMeshSlab(void) {
  static const float cube[24] = {-1, -1, -1, 1, -1, -1, 1, 1, -1, -1, 1, -1,
                                 -1, -1, 1,  1, -1, 1,  1, 1, 1,  -1, 1, 1};
  static const int faces[36] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                                1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};
  float small[24], slab[24];
  for (int i = 0; i < 24; i++) {
    small[i] = cube[i] * 0.1f;
    slab[i] = cube[i] * ((i % 3 == 2) ? 0.5f : 5.0f);
  }
  hscModel *a = colMesh(small, 8, faces, 12, 4), *b = colMesh(slab, 8, faces, 12, 4);
  hscPair pr;
  hscScene *s = colScene2(a, b, &pr);
  colPlace(s, 1, 0, 0, -0.5, NULL);
  colPlace(s, 0, 0.3, 0.2, 0.1f - 0.003, NULL);
  hscContact k[64];
  int n = hsc_contacts(s, &pr, 1, k, 64, NULL);
  CU_ASSERT_EQUAL_FATAL(n, 4);
  double down[3] = {0, 0, -1};
  for (int i = 0; i < n; i++) {
    COL_NEAR3(k[i].n, down, 1e-12);
    COL_NEAR(k[i].depth, 0.003, 1e-9);
    COL_NEAR(fabs(k[i].p[0] - 0.3), 0.1f, 1e-9);
    COL_NEAR(fabs(k[i].p[1] - 0.2), 0.1f, 1e-9);
  }
  hsc_freeScene(s);
  hsc_freeModel(a);
  hsc_freeModel(b);
}

// a closed mesh cube tilted by 1e-4 to 5e-4 rad about 50 axes resting on a large box (a foot
// sole on the floor): its walls touch the floor's top face with normals nearly in their planes,
// which must count as side contacts (before, a one-sided wall refused the floor's normal and
// pushed the cube out through the floor's 5 m side: depths of 5.3 m on these poses). Every
// point: normal straight down into the floor (within the tilt), depth at most the sunk corner's
// 1e-6 m
static void testTiltedMeshOnBox(void) {
  static const float cube[24] = {-1, -1, -1, 1, -1, -1, 1, 1, -1, -1, 1, -1,
                                 -1, -1, 1,  1, -1, 1,  1, 1, 1,  -1, 1, 1};
  static const int faces[36] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                                1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};
  float small[24];
  for (int i = 0; i < 24; i++) {
    small[i] = cube[i] * 0.1f;
  }
  CU_ASSERT_EQUAL(colTiltedOnFloorFaults(colMesh(small, 8, faces, 12, 4), small), 0);
}

// the same queries twice, and on a scene built again from scratch: identical bits
static void testDeterminism(void) {
  Mesh ma = blob(24, 12, 0.4, 0.6);
  unsigned char out[2][3][sizeof(hscContact) * 256 + sizeof(hscDistance) + sizeof(hscRayHit)];
  for (int build = 0; build < 2; build++) {
    hscModel *a = colMesh(ma.v, ma.nv, ma.t, ma.nt, 4);
    hscModel *box = colPrim(hsGEOM_BOX, 0.5, 0.3, 0.2);
    hscModel *cyl = colPrim(hsGEOM_CYLINDER, 0.2, 0.5, 0);
    hscScene *s = hsc_makeScene(NULL, NULL);
    hsc_addBody(s, a, NULL);
    hsc_addBody(s, box, NULL);
    hsc_addBody(s, cyl, NULL);
    double R[9];
    colRot(R, 0.2, 0.7, 0.1, 0.9);
    colPlace(s, 1, 0.3, 0.2, 0.45, R);
    colPlace(s, 2, -0.4, 0.1, -0.3, R);
    hscPair pairs[3] = {{{0, 1}, {0, 0}, 0, 0}, {{2, 0}, {0, 0}, 0, 0}, {{1, 2}, {0, 0}, 0, 0}};
    for (int rep = 0; rep < 3; rep++) {
      unsigned char *o = out[build][rep];
      memset(o, 0, sizeof out[build][rep]);
      hscContact *c = (hscContact *)o;
      int n = hsc_contacts(s, pairs, 3, c, 256, NULL);
      CU_ASSERT(n > 0);
      hscDistance *d = (hscDistance *)(o + sizeof(hscContact) * 256);
      hsc_distances(s, &pairs[2], 1, d);
      hscRayHit *h = (hscRayHit *)(o + sizeof(hscContact) * 256 + sizeof(hscDistance));
      double org[3] = {2, 0.1, 0.2}, dir[3] = {-1, 0, 0};
      hsc_ray(s, org, dir, INFINITY, h);
      CU_ASSERT_EQUAL(h->body, 0);
    }
    hsc_freeScene(s);
    hsc_freeModel(a);
    hsc_freeModel(box);
    hsc_freeModel(cyl);
  }
  CU_ASSERT(memcmp(out[0][0], out[0][1], sizeof out[0][0]) == 0);
  CU_ASSERT(memcmp(out[0][0], out[0][2], sizeof out[0][0]) == 0);
  CU_ASSERT(memcmp(out[0][0], out[1][0], sizeof out[0][0]) == 0);
  freeMesh(&ma);
}

// the BVH: every triangle under exactly one leaf, boxes nested, depth bounded; every vertex
// under a node inside its oriented box and its two spheres (the distance bounds rest on it)
static void testTreeInvariants(void) {
  Mesh m = soup(5000, 10.0, 0.2), bl = blob(40, 20, 0.3, 0.6);
  for (int which = 0; which < 2; which++) {
    const Mesh *mm = which ? &bl : &m;
    hscMesh *mesh = hsc_makeMesh(mm->v, mm->nv, mm->t, mm->nt, NULL, 4, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mesh);
    int *seen = calloc((size_t)mm->nt, sizeof *seen), leaves = 0, outside = 0;
    for (int i = 0; i < mesh->nnode; i++) {
      const hscNode *nd = &mesh->nodes[i];
      const hscObb *ob = &mesh->obb[i];
      if (nd->count) {
        leaves++;
        CU_ASSERT(nd->count <= 4);
        for (int t = nd->right; t < nd->right + nd->count; t++) {
          seen[t]++;
          const double *a, *b, *c;
          hsc_triangle(mesh, t, &a, &b, &c);
          const double *v[3] = {a, b, c};
          for (int k = 0; k < 3; k++) {
            for (int j = 0; j < 3; j++) {
              CU_ASSERT(v[k][j] >= nd->lo[j] && v[k][j] <= nd->hi[j]);
            }
          }
        }
      } else {
        const hscNode *ch[2] = {&mesh->nodes[i + 1], &mesh->nodes[nd->right]};
        for (int k = 0; k < 2; k++) {
          for (int j = 0; j < 3; j++) {
            CU_ASSERT(ch[k]->lo[j] >= nd->lo[j] && ch[k]->hi[j] <= nd->hi[j]);
          }
        }
      }
      // the node's triangles: from its leftmost leaf's first to its rightmost leaf's last
      int lf = i, rt = i;
      while (!mesh->nodes[lf].count) {
        lf++;
      }
      while (!mesh->nodes[rt].count) {
        rt = mesh->nodes[rt].right;
      }
      int t1 = mesh->nodes[rt].right + mesh->nodes[rt].count;
      for (int t = mesh->nodes[lf].right; t < t1; t++) {
        const double *a, *b, *c;
        hsc_triangle(mesh, t, &a, &b, &c);
        const double *v[3] = {a, b, c};
        for (int k = 0; k < 3; k++) {
          double x[3];
          v3sub(x, v[k], ob->oc);
          for (int j = 0; j < 3; j++) {
            outside += fabs(v3dot(ob->ax + 3 * j, x)) > ob->oh[j] + 1e-13;
          }
          outside += sqrt(v3dist2(v[k], ob->oc)) > ob->ro;
          outside += sqrt(v3dist2(v[k], nd->c)) > nd->r;
        }
      }
      for (int j = 0; j < 3; j++) {
        for (int k = 0; k < 3; k++) {
          CU_ASSERT(fabs(v3dot(ob->ax + 3 * j, ob->ax + 3 * k) - (j == k)) < 1e-12);
        }
      }
    }
    CU_ASSERT_EQUAL(outside, 0);
    int once = 1;
    for (int t = 0; t < mm->nt; t++) {
      once &= seen[t] == 1;
    }
    CU_ASSERT(once);
    CU_ASSERT(mesh->depth <= HSC_MAX_DEPTH);
    CU_ASSERT_EQUAL(mesh->nnode, 2 * leaves - 1);
    // orig is a permutation
    memset(seen, 0, sizeof *seen * (size_t)mm->nt);
    for (int t = 0; t < mm->nt; t++) {
      seen[mesh->orig[t]]++;
    }
    once = 1;
    for (int t = 0; t < mm->nt; t++) {
      once &= seen[t] == 1;
    }
    CU_ASSERT(once);
    free(seen);
    hsc_freeMesh(mesh);
  }
  freeMesh(&m);
  freeMesh(&bl);
}

// a flat grid of n x n squares of side h at z = 0, two triangles each, in a shuffled order
static Mesh grid(int n, double h) {
  Mesh m;
  m.nv = (n + 1) * (n + 1);
  m.nt = 2 * n * n;
  m.v = malloc(sizeof(float) * 3 * (size_t)m.nv);
  m.t = malloc(sizeof(int) * 3 * (size_t)m.nt);
  for (int j = 0; j <= n; j++) {
    for (int i = 0; i <= n; i++) {
      float *v = m.v + 3 * (j * (n + 1) + i);
      v[0] = (float)(h * i);
      v[1] = (float)(h * j);
      v[2] = 0;
    }
  }
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < n; i++) {
      int a = j * (n + 1) + i, b = a + 1, c = a + n + 1, d = c + 1;
      int *q = m.t + 6 * (j * n + i);
      q[0] = a;
      q[1] = b;
      q[2] = d;
      q[3] = a;
      q[4] = d;
      q[5] = c;
    }
  }
  for (int i = m.nt - 1; i > 0; i--) {
    int k = (int)(rnd() * (i + 1)), x[3];
    memcpy(x, m.t + 3 * i, sizeof x);
    memcpy(m.t + 3 * i, m.t + 3 * k, sizeof x);
    memcpy(m.t + 3 * k, x, sizeof x);
  }
  return m;
}

// two parallel grids facing each other: hundreds of triangle pairs at exactly the same
// distance. The BVH (best first, depth first when its queue is tiny or absent) answers the
// brute force's smallest (distance, triangle on side 0, triangle on side 1) to the bit, twice
// and on a scene built again; a queue too small is counted as a warning, answer unchanged.
static void testDistanceTies(void) {
  Mesh ga = grid(16, 0.0625), gb = grid(12, 0.0625);
  hscModel *a = colMesh(ga.v, ga.nv, ga.t, ga.nt, 4), *b = colMesh(gb.v, gb.nv, gb.t, gb.nt, 2);
  hscModel *ra = perTriangle(&ga), *rb = perTriangle(&gb);
  static const int queues[4] = {4096, 0, 1, 8};
  // poses of b: above a by 0.25, shifted by multiples of the grid step, turned by quarter
  // turns about z (exact in binary, so the ties are exact)
  static const double shifts[4][3] = {
      {0, 0, 0.25}, {0.125, 0.0625, 0.25}, {0.5, 0.25, 0.375}, {1.0, 0.5, 0.25}};
  int mismatches = 0, ties = 0;
  for (int qi = 0; qi < 4; qi++) {
    hscOptions o;
    hsc_defaultOptions(&o);
    o.queuePairs = queues[qi];
    hst_expectLog(queues[qi] != 4096);  // a queue too small is a warning
    hscScene *s = hsc_makeScene(&o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    hsc_addBody(s, a, NULL);
    hsc_addBody(s, b, NULL);
    hsc_addBody(s, ra, NULL);
    hsc_addBody(s, rb, NULL);
    for (int k = 0; k < 4; k++) {
      for (int turn = 0; turn < 4; turn++) {
        static const double c4[4] = {1, 0, -1, 0}, s4[4] = {0, 1, 0, -1};
        double R[9] = {c4[turn], -s4[turn], 0, s4[turn], c4[turn], 0, 0, 0, 1};
        double p[3] = {shifts[k][0], shifts[k][1], shifts[k][2]};
        // (back over a after the turn)
        p[0] += turn == 1 || turn == 2 ? 0.75 : 0;
        p[1] += turn == 2 || turn == 3 ? 0.75 : 0;
        hsc_setLinkPose(s, 1, 0, p, R, NULL);
        hsc_setLinkPose(s, 3, 0, p, R, NULL);
        hscPair pairs[2] = {{{0, 1}, {0, 0}, 0, 0}, {{2, 3}, {0, 0}, 0, 0}};
        hscDistance d1, d2, d3;
        hsc_distances(s, &pairs[0], 1, &d1);
        hsc_distances(s, &pairs[1], 1, &d2);
        hsc_distances(s, &pairs[0], 1, &d3);
        ties += d1.d == shifts[k][2];
        if (memcmp(&d1, &d2, sizeof d1) != 0 || memcmp(&d1, &d3, sizeof d1) != 0) {
          fprintf(stderr, "\n  queue %d pose %d turn %d: %.17g (%g %g %g) vs %.17g (%g %g %g)\n",
                  queues[qi], k, turn, d1.d, d1.p0[0], d1.p0[1], d1.p0[2], d2.d, d2.p0[0],
                  d2.p0[1], d2.p0[2]);
          mismatches++;
        }
      }
    }
    if (queues[qi] == 1) {
      CU_ASSERT(hsc_warningCount(s, hscWARN_QUEUE) > 0);
    }
    if (queues[qi] == 4096) {
      CU_ASSERT_EQUAL(hsc_warningCount(s, hscWARN_QUEUE), 0);
    }
    hsc_freeScene(s);
    hst_expectLog(0);
  }
  CU_ASSERT_EQUAL(mismatches, 0);
  CU_ASSERT_EQUAL(ties, 4 * 16);  // every pose is a tie at the gap
  // the same meshes built again: the same bits
  hscModel *a2 = colMesh(ga.v, ga.nv, ga.t, ga.nt, 4), *b2 = colMesh(gb.v, gb.nv, gb.t, gb.nt, 2);
  hscScene *s1 = hsc_makeScene(NULL, NULL), *s2 = hsc_makeScene(NULL, NULL);
  hsc_addBody(s1, a, NULL);
  hsc_addBody(s1, b, NULL);
  hsc_addBody(s2, a2, NULL);
  hsc_addBody(s2, b2, NULL);
  double R[9];
  colRot(R, 0.3, 0.4, 0.866, 0.4);
  double p[3] = {0.2, 0.1, 0.3};
  hsc_setLinkPose(s1, 1, 0, p, R, NULL);
  hsc_setLinkPose(s2, 1, 0, p, R, NULL);
  hscPair pr = {{0, 1}, {0, 0}, 0, 0};
  hscDistance e1, e2;
  hsc_distances(s1, &pr, 1, &e1);
  hsc_distances(s2, &pr, 1, &e2);
  CU_ASSERT(memcmp(&e1, &e2, sizeof e1) == 0);
  hsc_freeScene(s1);
  hsc_freeScene(s2);
  hsc_freeModel(a);
  hsc_freeModel(b);
  hsc_freeModel(a2);
  hsc_freeModel(b2);
  hsc_freeModel(ra);
  hsc_freeModel(rb);
  freeMesh(&ga);
  freeMesh(&gb);
}

void register_mesh(void) {
  CU_pSuite s = hst_addSuite("collision meshes");
  CU_add_test(s, "tilted closed mesh resting on a large box: side contacts", testTiltedMeshOnBox);
  CU_add_test(s, "BVH invariants", testTreeInvariants);
  CU_add_test(s, "closed blobs: BVH equals brute force", testBlobs);
  CU_add_test(s, "triangle soups: BVH equals brute force", testSoups);
  CU_add_test(s, "mesh against each primitive: BVH equals brute force", testMeshPrimitives);
  CU_add_test(s, "mesh cube on a mesh slab", testMeshBoxOnMeshSlab);
  CU_add_test(s, "determinism", testDeterminism);
  CU_add_test(s, "mesh distance ties: the smallest triangle indices, any traversal",
              testDistanceTies);
}
