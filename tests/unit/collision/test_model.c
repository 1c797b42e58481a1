// test_model.c - models built from hsBody (VRML): primitives stay primitives with OpenHRP's
// y axis turned onto the geom's z, faces become meshes; the sample humanoid resting on the
// floor touches it with its lowest links only; bounding-box mode; bad geoms and failed
// allocations; the broad phase against a brute-force box test; the candidate-overflow warning.

#include <stdlib.h>

#include "col_helpers.h"
#include "openhrp_fixtures.h"

static const char *kShapes =
    "DEF SHAPES Humanoid { humanoidBody [\n"
    " DEF ROOT Joint { jointType \"free\" children [\n"
    "  Segment { mass 1 children [ Transform { translation 0 0 1 rotation 1 0 0 0.5\n"
    "    children Shape { geometry Box { size 0.1 0.2 0.3 } } } ] }\n"
    "  DEF CYL Joint { jointType \"rotate\" jointId 0 children [\n"
    "   Segment { mass 1 children Shape { geometry Cylinder { radius 0.1 height 0.4 } } } ] }\n"
    "  DEF CONE Joint { jointType \"rotate\" jointId 1 children [\n"
    "   Segment { mass 1 children Shape { geometry Cone { bottomRadius 0.1 height 0.2 } } } ] }\n"
    "  DEF OPEN Joint { jointType \"rotate\" jointId 2 children [\n"
    "   Segment { mass 1 children Shape { geometry Cylinder { radius 0.1 height 0.4\n"
    "     top FALSE } } } ] }\n"
    "  DEF FACES Joint { jointType \"rotate\" jointId 3 children [\n"
    "   Segment { mass 1 children Shape { geometry IndexedFaceSet {\n"
    "     coord Coordinate { point [ 0 0 0, 1 0 0, 0 1 0, 0 0 1 ] }\n"
    "     coordIndex [ 0 2 1 -1 0 1 3 -1 0 3 2 -1 1 2 3 -1 ] } } } ] }\n"
    "  DEF BALL Joint { jointType \"rotate\" jointId 4 children [\n"
    "   Segment { mass 1 children Shape { geometry Sphere { radius 0.25 } } } ] }\n"
    " ] } ] }\n";

// the first hit of a ray on a one-body scene
static double rayT(hscScene *s, double ox, double oy, double oz, double dx, double dy, double dz) {
  double o[3] = {ox, oy, oz}, d[3] = {dx, dy, dz};
  hscRayHit h;
  return hsc_ray(s, o, d, INFINITY, &h) ? h.t : -1;
}

static void testPrimitivesFromVrml(void) {
  hsBody *b = hst_loadVrmlText("shapes.wrl", kShapes);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsError err = {0};
  hscModel *m = hsc_makeModel(b, NULL, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  CU_ASSERT_EQUAL(hsc_modelLinkCount(m), 6);
  double sz[3];
  int nt;
  CU_ASSERT_EQUAL(hsc_modelGeom(m, 0, 0, sz, NULL), hsGEOM_BOX);
  COL_NEAR(sz[0], 0.1f, 0);
  COL_NEAR(sz[2], 0.3f, 0);
  CU_ASSERT_EQUAL(hsc_modelGeom(m, 1, 0, sz, NULL), hsGEOM_CYLINDER);
  COL_NEAR(sz[0], 0.1f, 0);
  COL_NEAR(sz[1], 0.4f, 0);
  CU_ASSERT_EQUAL(hsc_modelGeom(m, 2, 0, sz, NULL), hsGEOM_CONE);
  CU_ASSERT_EQUAL(hsc_modelGeom(m, 3, 0, NULL, &nt), hsGEOM_MESH);  // open: its triangles
  CU_ASSERT(nt > 0);
  CU_ASSERT_EQUAL(hsc_modelGeom(m, 4, 0, NULL, &nt), hsGEOM_MESH);
  CU_ASSERT_EQUAL(nt, 4);
  CU_ASSERT_EQUAL(hsc_modelGeom(m, 5, 0, sz, NULL), hsGEOM_SPHERE);
  CU_ASSERT_EQUAL(hsc_modelGeom(m, 5, 1, NULL, NULL), -1);
  // the axes: every link at the origin, rays along VRML's y meet the caps and the apex
  hscScene *s = hsc_makeScene(NULL, NULL);
  hsc_addBody(s, m, NULL);
  hsBodyState *st = hsm_makeState(b, NULL);
  double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, far[3] = {50, 50, 50}, zero[3] = {0, 0, 0};
  for (int k = 0; k < 6; k++) {
    hsc_setLinkPose(s, 0, k, far, I, NULL);
  }
  hsc_setLinkPose(s, 0, 1, zero, I, NULL);
  COL_NEAR(rayT(s, 0.05, 5, 0, 0, -1, 0), 5.0 - (double)0.2f, 1e-12);  // cap at y = +0.2
  COL_NEAR(rayT(s, 5, 0.1, 0, -1, 0, 0), 5.0 - (double)0.1f, 1e-12);   // side, radius 0.1
  hsc_setLinkPose(s, 0, 1, far, I, NULL);
  hsc_setLinkPose(s, 0, 2, zero, I, NULL);
  COL_NEAR(rayT(s, 0, 5, 0, 0, -1, 0), 5.0 - (double)0.1f, 1e-12);  // apex at y = +0.1
  COL_NEAR(rayT(s, 0.02, -5, 0.03, 0, 1, 0), 5.0 - (double)0.1f, 1e-12);  // base at y = -0.1
  // the box under its rotation: 0.5 rad about x, at z = 1
  hsc_setLinkPose(s, 0, 2, far, I, NULL);
  hsc_setLinkPose(s, 0, 0, zero, I, NULL);
  double h = 0.5 * 0.3f, w = 0.5 * 0.2f;
  double top = 1 + h * cos(0.5) + w * sin(0.5);  // the highest edge, box (y, z) = (w, h)
  COL_NEAR(rayT(s, 0, w * cos(0.5) - h * sin(0.5), 5, 0, 0, -1), 5 - top, 1e-12);
  hsm_freeState(st);
  hsc_freeScene(s);
  hsc_freeModel(m);
  hsm_freeBody(b);
}

// the humanoid lowered 1 mm below touching the floor: only its lowest links touch, each pair
// with at most four points, normals down (from the robot into the floor), depths <= 1 mm
static void testHumanoidOnFloor(void) {
  hsBody *robot = hst_loadSample("humanoid/humanoid.wrl");
  hsBody *floor = hst_loadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(robot);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  hscModel *mr = hsc_makeModel(robot, NULL, NULL), *mf = hsc_makeModel(floor, NULL, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
  CU_ASSERT_PTR_NOT_NULL_FATAL(mf);
  hscScene *s = hsc_makeScene(NULL, NULL);
  hsc_addBody(s, mr, NULL);
  hsc_addBody(s, mf, NULL);
  hsBodyState *st = hsm_makeState(robot, NULL);
  hsBodyState *fs = hsm_makeState(floor, NULL);
  CU_ASSERT_EQUAL(hsc_setBodyPoses(s, 1, fs, NULL), 0);
  int n = robot->nlink;
  hscPair *pairs = calloc((size_t)n, sizeof *pairs);
  hscDistance *d = calloc((size_t)n, sizeof *d);
  for (int k = 0; k < n; k++) {
    pairs[k].body[1] = 1;
    pairs[k].link[0] = k;
  }
  CU_ASSERT_EQUAL(hsc_setBodyPoses(s, 0, st, NULL), 0);
  hsc_distances(s, pairs, n, d);
  double low = INFINITY;
  for (int k = 0; k < n; k++) {
    if (hsc_modelGeomCount(mr, k) > 0) {
      low = fmin(low, d[k].d);
    }
  }
  CU_ASSERT(isfinite(low));
  st->rootP[2] -= low + 1e-3;
  hsm_forwardKinematics(robot, st);
  CU_ASSERT_EQUAL(hsc_setBodyPoses(s, 0, st, NULL), 0);
  hscContact c[256];
  int *count = calloc((size_t)n, sizeof *count);
  int nc = hsc_contacts(s, pairs, n, c, 256, count);
  CU_ASSERT(nc > 0);
  int touching = 0;
  for (int k = 0; k < n; k++) {
    CU_ASSERT(count[k] <= 4);
    // a link touches exactly when it came within 1 mm of the floor
    int near = hsc_modelGeomCount(mr, k) > 0 && d[k].d <= low + 1e-3 - 1e-9;
    CU_ASSERT_EQUAL(count[k] > 0, near);
    touching += count[k] > 0;
  }
  CU_ASSERT(touching >= 2);  // both feet
  for (int i = 0; i < nc; i++) {
    double down[3] = {0, 0, -1};
    COL_NEAR3(c[i].n, down, 1e-9);
    CU_ASSERT(c[i].depth >= 0 && c[i].depth <= 1e-3 + 1e-9);
  }
  free(count);
  free(pairs);
  free(d);
  hsm_freeState(st);
  hsm_freeState(fs);
  hsc_freeScene(s);
  hsc_freeModel(mr);
  hsc_freeModel(mf);
  hsm_freeBody(robot);
  hsm_freeBody(floor);
}

// bounding-box mode: a link of two spheres becomes the box around both
static void testBoundingBoxes(void) {
  hscGeomDesc g[3];
  memset(g, 0, sizeof g);
  for (int i = 0; i < 3; i++) {
    memcpy(g[i].T, kIdentity12, sizeof g[i].T);
  }
  g[0].type = g[1].type = hsGEOM_SPHERE;
  g[0].size[0] = 0.1;
  g[1].size[0] = 0.2;
  g[0].T[3] = -1;
  g[1].T[3] = 1;
  g[1].T[11] = 0.5;
  g[2].type = hsGEOM_BOX;
  g[2].link = 1;
  g[2].size[0] = g[2].size[1] = g[2].size[2] = 0.3;
  hscModelOptions o;
  hsc_defaultModelOptions(&o);
  o.boundingBoxes = 1;
  hscModel *m = hsc_makeModelFromGeoms(g, 3, 2, &o, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  double sz[3], box[6];
  CU_ASSERT_EQUAL(hsc_modelGeomCount(m, 0), 1);
  CU_ASSERT_EQUAL(hsc_modelGeom(m, 0, 0, sz, NULL), hsGEOM_BOX);
  COL_NEAR(sz[0], 2.3, 1e-15);
  COL_NEAR(sz[1], 0.4, 1e-15);
  COL_NEAR(sz[2], 0.8, 1e-15);
  CU_ASSERT_EQUAL(hsc_modelLinkBox(m, 0, box), 0);
  COL_NEAR(box[0], -1.1, 1e-15);
  COL_NEAR(box[5], 0.7, 1e-15);
  CU_ASSERT_EQUAL(hsc_modelGeom(m, 1, 0, sz, NULL), hsGEOM_BOX);
  COL_NEAR(sz[0], 0.3, 1e-15);
  hsc_freeModel(m);
}

// bad geoms are refused with a message; failed allocations leave nothing behind
static void testErrors(void) {
  hscGeomDesc g;
  memset(&g, 0, sizeof g);
  memcpy(g.T, kIdentity12, sizeof g.T);
  g.type = hsGEOM_SPHERE;
  g.size[0] = -1;
  hsError err = {0};
  CU_ASSERT_PTR_NULL(hsc_makeModelFromGeoms(&g, 1, 1, NULL, &err));
  CU_ASSERT_EQUAL(err.code, hsE_INVALID);
  g.size[0] = 0.1;
  g.T[0] = 2;  // scaled
  hsu_clearError(&err);
  CU_ASSERT_PTR_NULL(hsc_makeModelFromGeoms(&g, 1, 1, NULL, &err));
  CU_ASSERT(strstr(err.message, "rigid") != NULL);
  g.T[0] = 1;
  g.link = 3;
  CU_ASSERT_PTR_NULL(hsc_makeModelFromGeoms(&g, 1, 1, NULL, NULL));
  g.link = 0;
  // a bad scene option
  hscOptions o;
  hsc_defaultOptions(&o);
  o.capPoints = 2;
  CU_ASSERT_PTR_NULL(hsc_makeScene(&o, NULL));
  hsc_defaultOptions(&o);
  o.queuePairs = -1;
  CU_ASSERT_PTR_NULL(hsc_makeScene(&o, NULL));
  // every allocation of building the humanoid's model and a scene may fail
  hsBody *robot = hst_loadSample("humanoid/humanoid.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(robot);
  int failures = 0;
  for (long n = 1; n < 400; n++) {
    hsu_failAllocAfter(n);
    hsu_clearError(&err);
    hscModel *m = hsc_makeModel(robot, NULL, &err);
    hscScene *s = m ? hsc_makeScene(NULL, &err) : NULL;
    int added = s ? hsc_addBody(s, m, &err) : -1;
    hsu_failAllocAfter(0);
    if (added < 0) {
      CU_ASSERT_EQUAL(err.code, hsE_NOMEM);
      failures++;
    }
    hsc_freeScene(s);
    hsc_freeModel(m);
    if (added >= 0) {
      break;
    }
  }
  CU_ASSERT(failures > 10);
  hsm_freeBody(robot);
  // non-finite poses are refused and leave the body out of queries
  hscModel *sph = colPrim(hsGEOM_SPHERE, 1, 0, 0);
  hscScene *s = hsc_makeScene(NULL, NULL);
  hsc_addBody(s, sph, NULL);
  double p[3] = {0, NAN, 0}, I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  CU_ASSERT_EQUAL(hsc_setLinkPose(s, 0, 0, p, I, NULL), hsE_INVALID);
  hscPair bad = {{0, 1}, {0, 0}, 0, 0};
  CU_ASSERT_EQUAL(hsc_checkPairs(s, &bad, 1, NULL), hsE_INVALID);
  hsc_freeScene(s);
  hsc_freeModel(sph);
}

// the broad phase finds exactly the pairs of links whose world boxes overlap, sorted
static void testOverlappingLinks(void) {
  hscModel *m = colPrim(hsGEOM_BOX, 0.3, 0.3, 0.3);
  hscScene *s = hsc_makeScene(NULL, NULL);
  enum { N = 60 };
  double pos[N][3];
  unsigned long long r = 12345;
  for (int i = 0; i < N; i++) {
    hsc_addBody(s, m, NULL);
    for (int j = 0; j < 3; j++) {
      r = r * 6364136223846793005ULL + 1442695040888963407ULL;
      pos[i][j] = (double)(r >> 11) / 9007199254740992.0 * 2;
    }
  }
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < N; i++) {
      colPlace(s, i, pos[i][0] + 0.1 * round, pos[i][1], pos[i][2] - 0.05 * round * (i % 3), NULL);
    }
    hscPair out[N * N];
    int n = hsc_overlappingLinks(s, out, N * N);
    int expect = 0, k = 0, ok = 1;
    for (int i = 0; i < N; i++) {
      for (int j = i + 1; j < N; j++) {
        double a[3] = {pos[i][0] + 0.1 * round, pos[i][1], pos[i][2] - 0.05 * round * (i % 3)};
        double b[3] = {pos[j][0] + 0.1 * round, pos[j][1], pos[j][2] - 0.05 * round * (j % 3)};
        if (fabs(a[0] - b[0]) <= 0.3 && fabs(a[1] - b[1]) <= 0.3 && fabs(a[2] - b[2]) <= 0.3) {
          expect++;
          ok &= k < n && out[k].body[0] == i && out[k].body[1] == j;
          k++;
        }
      }
    }
    CU_ASSERT_EQUAL(n, expect);
    CU_ASSERT(ok);
    CU_ASSERT(expect > 5);
  }
  hsc_freeScene(s);
  hsc_freeModel(m);
}

// a pair producing more candidates than the buffer holds: a counted warning, logged once
static void testCandidateOverflow(void) {
  hscOptions o;
  hsc_defaultOptions(&o);
  o.maxCandidates = 4;
  o.capPoints = 16;
  hscScene *s = hsc_makeScene(&o, NULL);
  hscModel *cyl = colPrim(hsGEOM_CYLINDER, 0.1, 0.2, 0), *box = colPrim(hsGEOM_BOX, 1, 1, 1);
  hsc_addBody(s, cyl, NULL);
  hsc_addBody(s, box, NULL);
  colPlace(s, 0, 0, 0, 0.599, NULL);
  hscPair p = {{0, 1}, {0, 0}, 0, 0};
  hscContact c[8];
  hst_expectLog(1);
  CU_ASSERT_EQUAL(hsc_contacts(s, &p, 1, c, 8, NULL), 4);
  CU_ASSERT(hsc_warningCount(s, hscWARN_CANDIDATES) > 0);
  CU_ASSERT_EQUAL(hst_logCount(), 1);
  hsc_contacts(s, &p, 1, c, 8, NULL);
  CU_ASSERT_EQUAL(hst_logCount(), 1);  // once
  hsc_freeScene(s);
  hsc_freeModel(cyl);
  hsc_freeModel(box);
}

void register_model(void) {
  CU_pSuite s = hst_addSuite("collision models");
  CU_add_test(s, "primitives from VRML", testPrimitivesFromVrml);
  CU_add_test(s, "the sample humanoid on the floor", testHumanoidOnFloor);
  CU_add_test(s, "bounding-box mode", testBoundingBoxes);
  CU_add_test(s, "errors and failed allocations", testErrors);
  CU_add_test(s, "broad phase", testOverlappingLinks);
  CU_add_test(s, "candidate overflow warning", testCandidateOverflow);
}
