// mesh_import.h - private to model/: read mesh files (STL, COLLADA, OBJ and whatever else assimp
// reads) into triangle meshes.
//
// A file becomes one part per assimp mesh, each with its own material. Vertices are in metres in
// the file's own frame as its author meant it: COLLADA's <unit> is applied, and its <up_axis> is
// honoured so that a Z_UP file keeps z up (assimp's own conversion to y-up is undone), while a
// Y_UP file is turned so its up becomes z; node transforms of the file's scene are applied.
// STL and OBJ carry no unit and are taken as metres. The caller's scale is applied last (NULL
// means 1 1 1; a zero or non-finite component is hsE_INVALID; a negative one mirrors, with the
// winding flipped so triangles still face out). Vertices are welded by exact position; triangles
// with two corners at one position are dropped; a file left without triangles is hsE_MODEL. A
// part whose file normals include a zero or NaN one gets none (the caller generates them). Parts
// come in depth-first node order. By default each import runs in a child process bounded in
// time and memory (hsmLimits; see mesh_import.c); in-process imports are serialised (assimp's C
// API keeps its last error in one global).

#ifndef HRPSIM_MODEL_MESH_MESH_IMPORT_H_
#define HRPSIM_MODEL_MESH_MESH_IMPORT_H_

#include "mesh.h"
#include "../model.h"

#ifdef __cplusplus
extern "C" {
#endif

// one mesh of a file, with how it looks
typedef struct hsmMeshPart {
  hsmMesh mesh;         // vertices, triangles, and normals / texture coordinates if the file
                        // has them (per-corner indices, as mesh.h describes)
  int hasMaterial;      // 1 if the file gives a material for this part
  hsMaterial material;  // its colours (diffuse, specular, emissive, shininess, transparency)
  char *texture;        // absolute path of its diffuse texture image, or NULL
} hsmMeshPart;

// read path (absolute) and scale it by scale[3] under limits (NULL: the defaults); on success
// *parts holds *nparts parts (free with hsm_freeMeshParts). Errors name the path and what went
// wrong (missing file, not a regular file, too large, unreadable or empty mesh, a limit of
// time, memory or triangles passed, a bad COLLADA index list with its line).
int hsm_readMeshFile(const char *path, const double scale[3], const hsmLimits *limits,
                     hsmMeshPart **parts, int *nparts, hsError *err);

// release parts from hsm_readMeshFile; NULL is a no-op
void hsm_freeMeshParts(hsmMeshPart *parts, int nparts);

#ifdef __cplusplus
}
#endif
#endif  // HRPSIM_MODEL_MESH_MESH_IMPORT_H_
