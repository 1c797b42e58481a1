// mesh.h - model/'s triangle meshes: primitives, polygon triangulation, normals, and decoded
// texture images. Used by every front end (VRML, URDF, mesh files) through builder.h.
//
// Each builder fills an hsmMesh (zero-initialise it first; free with hsm_freeMesh). Vertices
// are in the geometry node's own frame. Triangles are counter-clockwise seen from outside (for
// IndexedFaceSet/ElevationGrid/Extrusion: seen from the side VRML calls the front, i.e. ccw
// TRUE; ccw FALSE inputs are flipped so the output is always counter-clockwise).
//
// Surface attributes follow OpenHRP's AppearanceInfo layout: an index list is per triangle
// corner (3 entries per triangle, same corner order as `triangles`) when the attribute is
// per-vertex, and one entry per triangle when per-face.

#ifndef HRPSIM_MODEL_MESH_MESH_H_
#define HRPSIM_MODEL_MESH_MESH_H_

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


// release a mesh's arrays and zero it; NULL is a no-op
void hsm_freeMesh(hsmMesh *mesh);

// Sizes of the primitives may be zero (a flat or degenerate mesh with the same counts) but not
// negative or non-finite.

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
#endif  // HRPSIM_MODEL_MESH_MESH_H_
