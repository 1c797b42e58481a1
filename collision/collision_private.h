// collision_private.h - the insides of hscModel and hscScene, and the helpers the collision
// sources share (small vector math, posed geoms, the narrow phase entry points).
//
// A posed geom (hscPosed) is a geom of a model placed in the world for one query: its rotation
// and origin and its world AABB. Narrow-phase functions take two posed geoms and write
// candidate contact points into a caller's buffer, or a distance. Everything here works in
// double precision; meshes keep their vertices as doubles too.

#ifndef HRPSIM_COLLISION_COLLISION_PRIVATE_H_
#define HRPSIM_COLLISION_COLLISION_PRIVATE_H_

#include <math.h>

#include "collision.h"

//---------------------------------- vectors ---------------------------------------------------

static inline double v3dot(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void v3sub(double r[3], const double a[3], const double b[3]) {
  r[0] = a[0] - b[0];
  r[1] = a[1] - b[1];
  r[2] = a[2] - b[2];
}
static inline void v3add(double r[3], const double a[3], const double b[3]) {
  r[0] = a[0] + b[0];
  r[1] = a[1] + b[1];
  r[2] = a[2] + b[2];
}
// r = a + s b
static inline void v3mad(double r[3], const double a[3], double s, const double b[3]) {
  r[0] = a[0] + s * b[0];
  r[1] = a[1] + s * b[1];
  r[2] = a[2] + s * b[2];
}
static inline void v3scale(double r[3], double s, const double a[3]) {
  r[0] = s * a[0];
  r[1] = s * a[1];
  r[2] = s * a[2];
}
static inline void v3cross(double r[3], const double a[3], const double b[3]) {
  double x = a[1] * b[2] - a[2] * b[1];
  double y = a[2] * b[0] - a[0] * b[2];
  double z = a[0] * b[1] - a[1] * b[0];
  r[0] = x;
  r[1] = y;
  r[2] = z;
}
static inline double v3norm(const double a[3]) {
  return sqrt(v3dot(a, a));
}
static inline void v3copy(double r[3], const double a[3]) {
  r[0] = a[0];
  r[1] = a[1];
  r[2] = a[2];
}
static inline void v3neg(double r[3], const double a[3]) {
  r[0] = -a[0];
  r[1] = -a[1];
  r[2] = -a[2];
}
// normalise in place; returns the old length (a zero vector stays zero)
static inline double v3normalize(double a[3]) {
  double l = v3norm(a);
  if (l > 0) {
    a[0] /= l;
    a[1] /= l;
    a[2] /= l;
  }
  return l;
}
static inline double v3dist2(const double a[3], const double b[3]) {
  double d[3];
  v3sub(d, a, b);
  return v3dot(d, d);
}
// r = R v and r = R^T v (R row-major)
static inline void m3mulv(double r[3], const double R[9], const double v[3]) {
  double x = R[0] * v[0] + R[1] * v[1] + R[2] * v[2];
  double y = R[3] * v[0] + R[4] * v[1] + R[5] * v[2];
  double z = R[6] * v[0] + R[7] * v[1] + R[8] * v[2];
  r[0] = x;
  r[1] = y;
  r[2] = z;
}
static inline void m3tmulv(double r[3], const double R[9], const double v[3]) {
  double x = R[0] * v[0] + R[3] * v[1] + R[6] * v[2];
  double y = R[1] * v[0] + R[4] * v[1] + R[7] * v[2];
  double z = R[2] * v[0] + R[5] * v[1] + R[8] * v[2];
  r[0] = x;
  r[1] = y;
  r[2] = z;
}
// column k of R (the k-th axis of the frame R describes)
static inline void m3col(double r[3], const double R[9], int k) {
  r[0] = R[k];
  r[1] = R[3 + k];
  r[2] = R[6 + k];
}
// any unit vector orthogonal to unit n, and a third completing a right-handed frame
void hsc_basis(const double n[3], double t1[3], double t2[3]);

//---------------------------------- meshes and BVH --------------------------------------------

// one BVH node: a box; internal nodes have their first child right after them and the second
// at `right`; leaves hold triangles [first, first + count) of the mesh's BVH order
typedef struct hscNode {
  double lo[3], hi[3];  // box, geom frame [m]
  double c[3], r;       // a bounding sphere (the smaller of the box's and the OBB's)
  int right;            // internal: index of the second child; leaf: first triangle
  int count;            // leaf: number of triangles (> 0); internal: 0
} hscNode;

// a node's oriented box (OBB), for mesh-mesh distance bounds; kept apart from the nodes so
// that what rays and box tests read stays small
typedef struct hscObb {
  double ax[9];         // rows: its axes (geom frame): the triangles' mean normal and their
                        // principal in-plane directions
  double oc[3], oh[3];  // centre (geom frame) and half extents along the axes
  double ro;            // the radius of a sphere around oc holding the node (rounding allowed)
  double mag;           // 3 (r + ro) + |oc|_1: the scale of the node's rounding errors
  double pax[9];        // the axes in its parent's axes (rows), and its centre's offset from
  double poff[3];       // the parent's along the parent's axes (root: identity, 0)
} hscObb;

// a triangle mesh with its BVH; built once, read-only
typedef struct hscMesh {
  double *v;      // 3 per vertex, geom frame [m]
  int nvert;
  int *tri;       // 3 vertex indices per triangle, in BVH order
  int *orig;      // per triangle (BVH order): its index in the input, which orders ties
  int ntri;
  double *n;      // unit outward normal per triangle (zero for a degenerate one)
  hscNode *nodes;
  hscObb *obb;    // per node
  int nnode;
  int depth;      // deepest level of the tree (the root is level 1)
} hscMesh;

// build a mesh from float vertices and triangles (indices checked by the caller), transformed
// by T (3x4, may scale; NULL for identity); NULL on no memory
hscMesh *hsc_makeMesh(const float *v, int nvert, const int *tri, int ntri, const double *T,
                      int leafSize, hsError *err);
void hsc_freeMesh(hscMesh *m);

// the three corners of triangle i, geom frame
static inline void hsc_triangle(const hscMesh *m, int i, const double **a, const double **b,
                                const double **c) {
  const int *t = m->tri + 3 * i;
  *a = m->v + 3 * t[0];
  *b = m->v + 3 * t[1];
  *c = m->v + 3 * t[2];
}

// deepest possible BVH (stack size for traversals)
#define HSC_MAX_DEPTH 64

//---------------------------------- convex meshes ---------------------------------------------

// limits of a mesh treated as a convex polytope (collision_hull.c)
#define HSC_HULL_MAX_VERT 256  // vertices after welding
#define HSC_HULL_MAX_FACE 32   // corners of one face (a contact feature)
#define HSC_HULL_MAX_AXES 64   // separating-axis directions (face normals + edge directions)

// a closed convex mesh as a polytope, geom frame; built once, read-only
typedef struct hscHull {
  double *v;        // 3 per vertex (welded)
  int nv;
  double c[3];      // a point inside (the vertex mean)
  double *fn;       // per face: outward unit normal and offset (n . x = offset), 4 each
  int nf;
  int *fadr, *fv;   // face f: vertices fv[fadr[f] .. fadr[f + 1]), counter-clockwise around n
  int *ev;          // edges between two faces: 2 vertex indices each
  int ne;
  double *ax;       // separating-axis directions, unit, each once up to sign: nfax face
  int nfax, neax;   // normals, then neax edge directions
  int ext[6];       // a vertex farthest along +x, -x, +y, -y, +z, -z (geom frame): a cheap
                    // inner point of a projection (the separating-axis test's bounds)
} hscHull;

// the hull of a mesh when it is closed and convex (within the limits above): *out gets a new
// hull (free with hsc_freeHull) or NULL when the mesh does not qualify; returns 0 or hsE_NOMEM
int hsc_makeHull(const hscMesh *m, hscHull **out, hsError *err);
// free a hull made by hsc_makeHull (NULL does nothing)
void hsc_freeHull(hscHull *h);
// index of a vertex of h farthest along l (geom frame; the first of equals)
int hsc_hullSupportIndex(const hscHull *h, const double l[3]);
// range of l . x over the vertices x of h
void hsc_hullProject(const hscHull *h, const double l[3], double *lo, double *hi);

//---------------------------------- models ----------------------------------------------------

// one geom of a model, link frame
typedef struct hscGeom {
  hstGeom type;
  int link;
  double R[9], t[3];      // geom frame in the link frame
  double size[3];         // as hscGeomDesc
  const hscMesh *mesh;    // meshes (owned by the model)
  const hscHull *hull;    // meshes that are closed and convex: their polytope (owned by the
                          // model); the narrow phase then treats the geom as a convex solid
  double lo[3], hi[3];    // box bounding the geom, geom frame
} hscGeom;

struct hscModel {
  int nlink;
  hscGeom *geoms;   // grouped by link
  int ngeom;
  int *geomAdr;     // per link: first geom (nlink + 1 entries)
  hscMesh **meshes;  // owned
  hscHull **hulls;   // owned, per mesh (NULL when it is not convex)
  int nmesh;
  double *linkBox;  // per link: lo[3], hi[3] in the link frame (6 each); NaN if no geom
};

//---------------------------------- posed geoms -----------------------------------------------

// a geom placed in the world
typedef struct hscPosed {
  const hscGeom *g;
  double R[9], p[3];      // geom frame in the world
  double lo[3], hi[3];    // world AABB
} hscPosed;

// a convex shape in the world for support-function algorithms (GJK, MPR): a geom, a triangle
// or a segment, each with an optional radius swept around it
typedef struct hscConvex {
  int kind;               // hstGeom for geoms; HSC_TRI, HSC_SEG, HSC_POINT
  double R[9], p[3];      // frame (geoms)
  double size[3];
  double v[3][3];         // world corners (triangle: 3, segment: 2, point: 1)
  double radius;          // swept sphere radius (added by callers, not by the support)
  const hscHull *hull;    // HSC_HULL: the polytope, in the frame R, p
} hscConvex;

#define HSC_TRI 100
#define HSC_SEG 101
#define HSC_POINT 102
#define HSC_HULL 103

// 1 if a posed geom is a mesh walked triangle by triangle (not a convex hull)
static inline int hsc_isTriMesh(const hscPosed *g) {
  return g->g->type == hsGEOM_MESH && !g->g->hull;
}

// support point of a convex in direction d (not necessarily unit), radius not included
void hsc_support(const hscConvex *c, const double d[3], double out[3]);
// a point inside the convex
void hsc_center(const hscConvex *c, double out[3]);

// the convex core of a posed primitive geom: sphere -> point + radius, capsule -> segment +
// radius, a convex mesh -> its hull, others -> itself with radius 0
void hsc_convexOf(hscConvex *c, const hscPosed *g);
// a triangle as a convex
void hsc_convexTri(hscConvex *c, const double a[3], const double b[3], const double d[3]);

// GJK distance between two convexes (radii ignored): returns the distance (0 when they
// overlap) and the closest points pa on a, pb on b. When the result is 0 the points are
// meaningless.
double hsc_gjk(const hscConvex *a, const hscConvex *b, double pa[3], double pb[3]);

// penetration of two overlapping convexes by MPR (libccd): normal from a into b, depth, and a
// point; returns 0, or -1 if MPR finds them apart
int hsc_mpr(const hscConvex *a, const hscConvex *b, double n[3], double *depth, double p[3]);

//---------------------------------- narrow phase ----------------------------------------------

// a candidate contact before reduction
typedef struct hscCand {
  double p[3], n[3], depth;
} hscCand;

// a buffer of candidates for one pair
typedef struct hscCandBuf {
  hscCand *c;
  int n, max;
  int overflow;  // candidates dropped
  int capPoints;
  double margin;  // face clipping also keeps the points up to this far apart [m] (0: none)
} hscCandBuf;

// add a candidate (normal unit, from side 0 into side 1)
void hsc_addCand(hscCandBuf *buf, const double p[3], const double n[3], double depth);

// contacts between two posed geoms into buf (normals from a into b)
void hsc_collideGeoms(const hscPosed *a, const hscPosed *b, hscCandBuf *buf);

// contacts between two convexes (primitive geoms or triangles) given their normal and depth
// from a into b: the manifold of the touching features (face clipping) into buf
void hsc_manifold(const hscConvex *a, const hscConvex *b, const double n[3], double depth,
                  hscCandBuf *buf);

// contact between two convexes (any kinds), normal from a into b: 1 with a manifold added to
// buf, 0 if apart. oneSidedB: b is a mesh triangle and only its front counts
int hsc_collideConvex(const hscConvex *a, const hscConvex *b, hscCandBuf *buf, int oneSidedB);

// a node pair waiting in a mesh-mesh distance traversal: its lower bound and its order key
typedef struct hscPairItem {
  double lb, key;  // key: lb, raised to the query's floor (0, or an intersection's bound)
  unsigned seq;    // push number: among equal keys the latest first (depth first)
  int a, b;        // node indices
} hscPairItem;

// the priority queue of a scene's mesh-mesh distance queries (sized at scene creation; when
// full, the traversal goes on depth first: slower, same answer, counted in overflow)
typedef struct hscQueue {
  hscPairItem *item;
  int cap;
  long overflow;  // node pairs that did not fit
} hscQueue;

// minimum distance of two posed geoms (< 0: penetration of primitives), closest points; with
// earlyOut set it stops early (returning some value <= bound) once the distance is known to be
// <= bound, and may return some value > bound (not the distance) when it is beyond bound.
// q: the scene's queue for mesh pairs (NULL: depth first)
double hsc_distanceGeoms(const hscPosed *a, const hscPosed *b, double bound, int earlyOut,
                         hscQueue *q, double pa[3], double pb[3]);

// first hit of a ray on a posed geom (front faces only); 1 with *t, n filled if t < *t
int hsc_rayGeom(const hscPosed *g, const double o[3], const double d[3], double *t,
                double n[3]);

// mesh traversal entry points (collision_mesh.c)
void hsc_collideMesh(const hscPosed *mesh, const hscPosed *other, int meshIsB, hscCandBuf *buf);
void hsc_collideMeshMesh(const hscPosed *a, const hscPosed *b, hscCandBuf *buf);
double hsc_distanceMesh(const hscPosed *mesh, const hscPosed *other, double bound, int earlyOut,
                        double pm[3], double po[3]);
double hsc_distanceMeshMesh(const hscPosed *a, const hscPosed *b, double bound, int earlyOut,
                            hscQueue *q, double pa[3], double pb[3]);
int hsc_rayMesh(const hscPosed *g, const double o[3], const double d[3], double *t,
                double n[3]);

// triangle-triangle distance with closest points (0 when they cross)
double hsc_triTriDist(const double a[3][3], const double b[3][3], double pa[3], double pb[3]);

// closest points of segments p0-p1 and q0-q1; returns the squared distance
double hsc_segSeg(const double p0[3], const double p1[3], const double q0[3], const double q1[3],
                  double cp[3], double cq[3]);

// closest point on triangle abc to p
void hsc_closestOnTri(double out[3], const double p[3], const double a[3], const double b[3],
                      const double c[3]);

//---------------------------------- scenes ----------------------------------------------------

typedef struct hscBodySlot {
  const hscModel *model;
  double *pose;      // per link: R[9], p[3]
  hscPosed *posed;   // per geom of the model
  double *linkAabb;  // per link: lo[3], hi[3], world
  double *looseAabb; // per link: a world box holding linkAabb's, from the link's own box
                     // (hsc_moveLink: known before its geoms are placed)
  unsigned char *looseRows;  // per link: bit j set when row j (lo[j], hi[j]) of its looseAabb
                             // is that of its pose (a moved link's rows are made when read)
  double *linkMidHalf;       // per link: its own box's centre[3] and half sizes[3], link frame
  unsigned char *pending;  // per link: 1 while its geoms (posed, linkAabb) are not yet placed
                           // at its pose (hsc_moveLink)
  int npending;      // links pending
  int valid;         // poses finite
} hscBodySlot;

struct hscScene {
  hscOptions opt;
  hscBodySlot *bodies;
  int nbody, capBody;
  hscCand *cand;     // candidate buffer (opt.maxCandidates)
  hscCand *kept;     // reduction output
  double *dmin;      // reduction scratch (opt.maxCandidates)
  hscQueue queue;    // mesh-mesh distance traversals (opt.queuePairs pairs)
  long warnings[hscWARN_NTYPES];
  // sweep and prune: every (body, link) with geometry, sorted by AABB lo x
  int *sapBody, *sapLink;
  int nsap, capSap;
};

#endif  // HRPSIM_COLLISION_COLLISION_PRIVATE_H_
