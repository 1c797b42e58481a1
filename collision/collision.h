// collision.h - hrpsim's collision library: geometry built once from an hsBody, queried at
// any link poses for overlap, contact manifolds, minimum distance and rays.
//
// Two objects. An hscModel is the collision geometry of one body: per link a list of geoms in the
// link frame, primitives kept exact (sphere, capsule, box, cylinder, cone) and meshes with a
// bounding-volume hierarchy (BVH); a closed convex mesh is also a convex polytope, collided as one
// solid rather than triangle by triangle (collision_hull.c). It is built once (hsc_makeModel),
// never changes, and may be shared read-only by any number of scenes and threads. An hscScene holds
// bodies (each a model plus its current link poses), scratch buffers sized when it is made, warning
// counters, and answers queries on pairs of links. Queries never allocate; a buffer that would
// overflow is a counted warning (hsc_warningCount), logged once. Concurrent queries on separate
// scenes are safe; a scene itself is not locked.
//
// Conventions (OpenHRP 3.1's CollisionDetector): a pair is (side 0, side 1); a contact normal is
// a unit vector, world frame, pointing from side 0 into side 1 (moving side 1 along it by the
// depth separates the two); depth is positive for penetration [m]; a contact point lies midway
// between the two surfaces. Everything is deterministic: the same calls give the same bits.
//
// Frames: link poses are world frame (p [m], R 3x3 row-major, as hsBodyState). Geoms of type
// capsule, cylinder and cone have their axis along z of the geom frame (cone apex at +h/2); the
// conversion from an hsBody turns OpenHRP's y axis onto it.

#ifndef HRPSIM_COLLISION_COLLISION_H_
#define HRPSIM_COLLISION_COLLISION_H_

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

//---------------------------------- types -----------------------------------------------------

// geom types
typedef enum hstGeom {
  hsGEOM_SPHERE = 0,  // size[0] radius
  hsGEOM_CAPSULE,     // size[0] radius, size[1] length of the core segment along z
  hsGEOM_BOX,         // size[0..2] edge lengths along x, y, z
  hsGEOM_CYLINDER,    // size[0] radius, size[1] height along z
  hsGEOM_CONE,        // size[0] bottom radius, size[1] height along z (apex at +z)
  hsGEOM_MESH         // triangles, counter-clockwise seen from outside
} hstGeom;

// one geom to build a model from by hand (hsc_makeModelFromGeoms)
typedef struct hscGeomDesc {
  hstGeom type;
  int link;             // owning link index
  double T[12];         // geom frame in the link frame, rigid 3x4 [R t]
  double size[3];       // see hstGeom [m]
  const float *vertices;  // mesh only: x, y, z per vertex, geom frame [m] (copied)
  int nvertex;
  const int *triangles;   // mesh only: 3 vertex indices per triangle (copied)
  int ntriangle;
} hscGeomDesc;

// how a model is built from a body
typedef struct hscModelOptions {
  int boundingBoxes;  // 1: each link collides as the box bounding its shapes (link-frame AABB)
  int leafSize;       // triangles per BVH leaf, 1..16
} hscModelOptions;

// how a scene answers
typedef struct hscOptions {
  int maxContactsPerPair;  // points kept per link pair: the deepest, then the most spread out
  int maxCandidates;       // candidate points one link pair may produce before the reduction
  int capPoints;           // points on a cylinder's or cone's rim when a flat end rests on a face
  int queuePairs;          // BVH node pairs a mesh-mesh distance keeps waiting, nearest first;
                           // beyond, it goes on depth first (same answer, slower, a warning)
} hscOptions;

// one pair of links: side 0 and side 1
typedef struct hscPair {
  int body[2];       // body indices in the scene
  int link[2];       // link indices in each body
  double tolerance;  // intersection queries: the pair intersects when closer than this [m]
  double cull;       // contact queries: a point closer than this to a kept one is dropped [m]
} hscPair;

// one contact point
typedef struct hscContact {
  int pair;        // index into the query's pair array
  double p[3];     // point midway between the surfaces, world frame [m]
  double n[3];     // unit normal from side 0 into side 1, world frame
  double depth;    // penetration depth, > 0 [m]
} hscContact;

// the minimum distance of one pair
typedef struct hscDistance {
  double d;       // distance [m]: > 0 apart, 0 touching, < 0 minus the penetration depth of
                  // primitives and closed convex meshes (other meshes are surfaces: 0 when
                  // they cross); -1 and zero points when a side has no geometry
  double p0[3];   // closest point on side 0, world frame [m]
  double p1[3];   // closest point on side 1, world frame [m]
} hscDistance;

// the first hit of a ray
typedef struct hscRayHit {
  double t;       // ray parameter of the hit: point = origin + t dir (distance if dir is unit)
  double p[3];    // hit point, world frame [m]
  double n[3];    // outward surface normal there, world frame
  int body;       // body and link hit; -1 when nothing was hit
  int link;
} hscRayHit;

// counted warnings
typedef enum hstCollisionWarning {
  hscWARN_CANDIDATES = 0,  // a pair produced more than maxCandidates candidate points
  hscWARN_CONTACTS,        // a query's contact buffer was full
  hscWARN_NONFINITE,       // a pose given to the scene was not finite (the body is skipped)
  hscWARN_QUEUE,           // a mesh-mesh distance outgrew the scene's queue (same answer, slower)
  hscWARN_NTYPES
} hstCollisionWarning;

typedef struct hscModel hscModel;  // geometry of one body, read-only once built
typedef struct hscScene hscScene;  // bodies at poses, buffers, counters

//---------------------------------- models ----------------------------------------------------

// fill opt with the defaults: no bounding boxes, 4 triangles per BVH leaf
void hsc_defaultModelOptions(hscModelOptions *opt);

// build the collision geometry of body from each link's collision shapes (collisionRefs, i.e.
// BodyInfo.linkShapeIndices): a primitive under a transform that keeps its kind (rotation,
// translation, and a scale the kind can absorb) stays that primitive, anything else becomes a
// mesh of the shape's triangles; opt may be NULL. The model keeps no pointer into body.
// Returns a new model (free with hsc_freeModel) or NULL with err filled.
hscModel *hsc_makeModel(const hsBody *body, const hscModelOptions *opt, hsError *err);

// build a model of nlink links from explicit geoms (tests, benchmarks, other front ends)
hscModel *hsc_makeModelFromGeoms(const hscGeomDesc *geoms, int ngeom, int nlink,
                                 const hscModelOptions *opt, hsError *err);

// release a model; NULL is a no-op. No scene may use it any more.
void hsc_freeModel(hscModel *model);

// number of links; number of geoms of one link (0 for a bad index)
int hsc_modelLinkCount(const hscModel *model);
int hsc_modelGeomCount(const hscModel *model, int link);

// type of the k-th geom of a link, and its size (may be NULL) and triangle count (meshes);
// -1 for bad indices
int hsc_modelGeom(const hscModel *model, int link, int k, double size[3], int *ntriangle);

// the link-frame box bounding a link's geoms (lo x y z, hi x y z); 0, or -1 if it has none
int hsc_modelLinkBox(const hscModel *model, int link, double box[6]);

// OpenHRP's bounding-box mode (ModelLoader's AABBdata): the AABB tree over a link's collision
// triangles (link frame, one triangle per leaf, median splits; see collision_boxes.c). *depth
// (may be NULL) gets its number of levels (0 for a link without triangles); counts[d] for
// d < maxCounts (counts may be NULL) how many boxes level d gives (the nodes at d plus the
// leaves above it); with level >= 0 the boxes of that level (lo x y z, hi x y z, 6 doubles
// each) go to boxes, at most maxBoxes. Returns the number of boxes at level (0 when level < 0
// or beyond the tree), or hsE_INVALID / hsE_NOMEM with err.
int hsc_linkBoxTree(const hsBody *body, int link, int level, double *boxes, int maxBoxes,
                    int *depth, int *counts, int maxCounts, hsError *err);

//---------------------------------- scenes ----------------------------------------------------

// fill opt with the defaults: 4 points per pair, 256 candidates per pair, 8 rim points, a
// queue of 4096 node pairs
void hsc_defaultOptions(hscOptions *opt);

// an empty scene; opt may be NULL for the defaults. Free with hsc_freeScene.
hscScene *hsc_makeScene(const hscOptions *opt, hsError *err);

// release a scene; NULL is a no-op
void hsc_freeScene(hscScene *scene);

// add a body (borrowed: model must outlive the scene) with every link at the origin; returns
// its index (0, 1, ...) or a negative code
int hsc_addBody(hscScene *scene, const hscModel *model, hsError *err);

// replace the model of a body (same use as hsc_addBody); its links go back to the origin
int hsc_replaceBody(hscScene *scene, int body, const hscModel *model, hsError *err);

// number of bodies
int hsc_bodyCount(const hscScene *scene);

// set every link pose of a body from a kinematic state (linkP, linkR); the state's body must
// have as many links as the model. Non-finite poses: hsE_INVALID, nothing changed.
int hsc_setBodyPoses(hscScene *scene, int body, const hsBodyState *state, hsError *err);

// set one link pose (p [m], R rotation row-major, world frame); hsE_INVALID on bad indices or
// non-finite numbers (nothing changed)
int hsc_setLinkPose(hscScene *scene, int body, int link, const double p[3], const double R[9],
                    hsError *err);

// as hsc_setLinkPose, but the link's geoms are placed only when a query first needs them:
// hsc_contactsMargin places a moved link only when a world box around it (from its own box)
// meets the other side's, every other query that reads poses places all moved links first (the
// same bits as hsc_setLinkPose). For a scene whose moved links are mostly far from each other
// (a robot above a floor). hsc_ray and hsc_rayFan (const) need hsc_placeMoved first.
int hsc_moveLink(hscScene *scene, int body, int link, const double p[3], const double R[9],
                 hsError *err);

// hsc_moveLink for every link of a body at once from a kinematic state's arrays: linkP (3 per
// link [m]) and linkR (9 per link, row-major), as many links as the body's model has;
// hsE_INVALID on a bad index or a non-finite number (nothing changed)
int hsc_moveLinks(hscScene *scene, int body, const double *linkP, const double *linkR,
                  hsError *err);

// place the geoms of every link moved by hsc_moveLink and not yet placed
void hsc_placeMoved(hscScene *scene);

//---------------------------------- queries ---------------------------------------------------

// check the pairs (indices in range, no link with itself); hsE_INVALID with err naming the
// first bad pair. Queries assume checked pairs.
int hsc_checkPairs(const hscScene *scene, const hscPair *pairs, int npair, hsError *err);

// contact manifolds of the pairs, in pair order: for each pair at most maxContactsPerPair points
// (pair.cull applied), written to out (at most maxOut; the rest is a counted warning). If
// pairCount is not NULL it receives the number of points of each pair. Returns the number of
// points written.
int hsc_contacts(hscScene *scene, const hscPair *pairs, int npair, hscContact *out, int maxOut,
                 int *pairCount);

// 1 if the two links of pair i are closer than pairs[i].tolerance (tolerance 0: they touch or
// overlap), else 0. For every pair in order: hit[i] (may be NULL) gets that answer; with
// checkAll 0 the scan stops at the first hit (later entries of hit are 0). Returns the number of
// pairs found intersecting.
int hsc_intersections(hscScene *scene, const hscPair *pairs, int npair, int checkAll,
                      unsigned char *hit);

// hsc_contacts, and where two faces touch (the clipped face-on-face manifold of two shapes that
// overlap) also the clipped points up to margin [m] apart, with their negative depth (minus the
// gap): a slightly tilted face keeps all its corners, the ones in the air as gaps. Depths of
// other points are as hsc_contacts gives them. margin 0 is hsc_contacts.
int hsc_contactsMargin(hscScene *scene, const hscPair *pairs, int npair, double margin,
                       hscContact *out, int maxOut, int *pairCount);

// minimum distance and closest points of each pair into out[i]. Primitives and closed convex
// meshes are solids (penetration gives a negative distance); other meshes are surfaces.
void hsc_distances(hscScene *scene, const hscPair *pairs, int npair, hscDistance *out);

// first hit of the ray from origin along dir (not zero) over every link of every body, only
// surfaces facing the ray (a ray starting inside a solid leaves it unhit), up to parameter
// maxT (INFINITY for no limit). Returns 1 with hit filled, or 0 (hit->t = maxT, body -1).
int hsc_ray(const hscScene *scene, const double origin[3], const double dir[3], double maxT,
            hscRayHit *hit);

// first hits of n rays from one origin whose directions (dirs, 3 each, not zero) all lie in the
// plane through origin with unit normal `normal` (a scanner's fan): t[r] = the ray parameter of
// its hit, or maxT for none; link (may be NULL) gets body and link per ray (-1 -1 for none).
// Geoms whose world boxes miss the plane are culled once for the whole fan, so the answers are
// those of n calls of hsc_ray, faster. scratch: hsc_fanScratchSize(scene) ints of the caller's
// (no allocation). Returns the number of rays that hit.
int hsc_rayFan(const hscScene *scene, const double origin[3], const double normal[3],
               const double *dirs, int n, double maxT, int *scratch, double *t, int *link);

// ints of scratch hsc_rayFan needs for the scene as it is (3 per geom, plus 1)
int hsc_fanScratchSize(const hscScene *scene);

// link pairs of the scene whose world bounding boxes overlap (sweep and prune over every link
// with geometry; pairs within one body included, a link never with itself), sorted by (body 0,
// link 0, body 1, link 1) with side 0 the lower (body, link). Writes at most maxOut into out
// and returns the total found.
int hsc_overlappingLinks(hscScene *scene, hscPair *out, int maxOut);

// the same link pairs as hsc_overlappingLinks (side 0 the lower (body, link)), unsorted: in the
// sweep's order (by the lower world box x of the link met first, ties by (body, link)), which
// depends on the poses alone. For callers that order the pairs themselves.
int hsc_sweepLinks(hscScene *scene, hscPair *out, int maxOut);

// warnings counted so far of one kind (hstCollisionWarning)
long hsc_warningCount(const hscScene *scene, int kind);

#ifdef __cplusplus
}
#endif
#endif  // HRPSIM_COLLISION_COLLISION_H_
