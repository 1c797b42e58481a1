// geometry.h - private to model/: turn VRML geometry into triangle meshes, and decode images.
//
// Each builder fills an hsmMesh (zero-initialise it first; free with hsm_freeMesh). Vertices
// are in the geometry node's own frame. Triangles are counter-clockwise seen from outside (for
// IndexedFaceSet/ElevationGrid/Extrusion: seen from the side VRML calls the front, i.e. ccw
// TRUE; ccw FALSE inputs are flipped so the output is always counter-clockwise).
//
// Surface attributes follow OpenHRP's AppearanceInfo layout: an index list is per triangle
// corner (3 entries per triangle, same corner order as `triangles`) when the attribute is
// per-vertex, and one entry per triangle when per-face.

#ifndef HRPSIM_MODEL_GEOMETRY_H_
#define HRPSIM_MODEL_GEOMETRY_H_

#include <stddef.h>

#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

// a triangle mesh with optional attributes; all arrays owned by the mesh (hsu_malloc)
typedef struct hsmMesh {
  float *vertices;  // 3 per vertex
  int nvertex;
  int *triangles;  // 3 per triangle
  int ntriangle;

  float *normals;  // 3 per normal
  int nnormal;
  int *normalIndices;
  int nnormalIndex;
  int normalPerVertex;

  float *colors;  // 3 per colour
  int ncolor;
  int *colorIndices;
  int ncolorIndex;
  int colorPerVertex;

  float *texCoords;  // 2 per coordinate
  int ntexCoord;
  int *texCoordIndices;
  int ntexCoordIndex;
} hsmMesh;

// input of an IndexedFaceSet, as read from VRML (arrays borrowed; NULL/0 when absent)
typedef struct hsmFaceSetInput {
  const double *coord;  // 3 per point
  int ncoord;
  const int *coordIndex;  // polygons separated by -1 (a trailing -1 is optional)
  int ncoordIndex;
  const double *normal;  // 3 per normal
  int nnormal;
  const int *normalIndex;
  int nnormalIndex;
  int normalPerVertex;
  const double *color;  // 3 per colour
  int ncolor;
  const int *colorIndex;
  int ncolorIndex;
  int colorPerVertex;
  const double *texCoord;  // 2 per coordinate
  int ntexCoord;
  const int *texCoordIndex;
  int ntexCoordIndex;
  int ccw;         // 1: polygons are counter-clockwise seen from the front
  int convex;      // 1: polygons may be fanned; 0: ear-clip (works for any simple polygon)
  double creaseAngle;  // normals are generated when normal is absent (see hsm_generateNormals)
} hsmFaceSetInput;

// input of an ElevationGrid (arrays borrowed)
typedef struct hsmElevationGridInput {
  int xDimension, zDimension;
  double xSpacing, zSpacing;
  const double *height;  // xDimension * zDimension values, row by row along x
  int nheight;
  int ccw;
  double creaseAngle;
} hsmElevationGridInput;

// input of an Extrusion (arrays borrowed)
typedef struct hsmExtrusionInput {
  const double *crossSection;  // 2 per point (x, z)
  int ncrossSection;
  const double *spine;  // 3 per point
  int nspine;
  const double *scale;  // 2 per entry; 1 entry applies to all spine points, else one each
  int nscale;
  const double *orientation;  // 4 per entry (axis-angle); 1 entry for all, else one each
  int norientation;
  int beginCap, endCap;
  int ccw;
  int convex;
  double creaseAngle;
} hsmExtrusionInput;

// release a mesh's arrays and zero it; NULL is a no-op
void hsm_freeMesh(hsmMesh *mesh);

// box of the given full size centred on the origin: 8 vertices, 12 triangles
int hsm_meshBox(hsmMesh *mesh, const double size[3], hsError *err);

// sphere of radius r centred on the origin, with `slices` around y and `stacks` pole to pole
int hsm_meshSphere(hsmMesh *mesh, double r, int slices, int stacks, hsError *err);

// cylinder along y centred on the origin; top/bottom/side choose the parts (VRML Cylinder)
int hsm_meshCylinder(hsmMesh *mesh, double r, double height, int top, int bottom, int side,
                     int slices, hsError *err);

// cone along y centred on the origin, apex at +height/2 (VRML Cone)
int hsm_meshCone(hsmMesh *mesh, double bottomRadius, double height, int bottom, int side,
                 int slices, hsError *err);

// IndexedFaceSet: triangulate every polygon (non-convex ones by ear clipping in the polygon's
// best-fit plane), carry normals/colours/texture coordinates, generate normals if none given.
// Out-of-range indices and polygons with fewer than 3 points are errors (message says which
// index/polygon); degenerate (zero-area) polygons are skipped.
int hsm_meshFaceSet(hsmMesh *mesh, const hsmFaceSetInput *in, hsError *err);

// ElevationGrid: 2 triangles per grid cell
int hsm_meshElevationGrid(hsmMesh *mesh, const hsmElevationGridInput *in, hsError *err);

// Extrusion, following VRML97 6.18 (spine-aligned cross-section planes, scale, orientation,
// caps)
int hsm_meshExtrusion(hsmMesh *mesh, const hsmExtrusionInput *in, hsError *err);

// triangulate one simple polygon of n points (3 doubles each) by ear clipping in its best-fit
// plane; writes up to 3*(n-2) point indices (0..n-1) to tris, counter-clockwise with respect to
// the polygon's own winding; returns the number of triangles (< n-2 if degenerate), or a
// negative error code
int hsm_triangulatePolygon(const double *points, int n, int *tris, hsError *err);

// replace the mesh's normals with generated ones: per-vertex normals (per-corner indices) that
// average the face normals of faces meeting at a vertex at an angle below creaseAngle [rad]
// and keep the face normal otherwise. creaseAngle 0 gives flat (faceted) shading.
int hsm_generateNormals(hsmMesh *mesh, double creaseAngle, hsError *err);

// an image decoded to 8-bit components, rows top first; free pixels with hsu_free
typedef struct hsmImage {
  unsigned char *pixels;
  int width, height;
  int components;  // 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA
} hsmImage;

// decode a PNG or JPEG file (chosen by content, not name) into img
int hsm_readImage(const char *path, hsmImage *img, hsError *err);

#ifdef __cplusplus
}
#endif
#endif  // HRPSIM_MODEL_GEOMETRY_H_
