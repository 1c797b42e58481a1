// vrml_geometry.h - private to model/vrml/: VRML97's polygonal geometry nodes (IndexedFaceSet,
// ElevationGrid, Extrusion) as triangle meshes (hsmMesh, see mesh/mesh.h).

#ifndef HRPSIM_MODEL_VRML_VRML_GEOMETRY_H_
#define HRPSIM_MODEL_VRML_VRML_GEOMETRY_H_

#include "../mesh/mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif
#endif  // HRPSIM_MODEL_VRML_VRML_GEOMETRY_H_
