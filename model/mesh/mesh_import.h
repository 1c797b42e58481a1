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
// time and memory (hsmLimits; see mesh_import.c): hsm_readMeshFile starts one for its file, an
// hsmMeshImporter one for all the files of a model load (one fork instead of one per file,
// every file still bounded alone); in-process imports are serialised (assimp's C API keeps its
// last error in one global).

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

// imports for one model load, served one after another by one child process (started at the
// first import; a child that dies or times out is replaced at the next). Each import has the
// limits of hsm_readMeshFile to itself: time from its request, memory and CPU time from its
// start; a file that kills or exhausts a child that had served others is tried once more in a
// fresh child before it is refused, so a file is refused exactly when it is refused alone.
// limits: NULL for the defaults (copied). Free with hsm_freeMeshImporter; NULL on no memory.
typedef struct hsmMeshImporter hsmMeshImporter;
hsmMeshImporter *hsm_makeMeshImporter(const hsmLimits *limits, hsError *err);

// end the importer's child and free it; NULL is a no-op
void hsm_freeMeshImporter(hsmMeshImporter *imp);

// hsm_readMeshFile through the importer (its limits); same results, errors and ownership
int hsm_importMesh(hsmMeshImporter *imp, const char *path, const double scale[3],
                   hsmMeshPart **parts, int *nparts, hsError *err);

// release parts from hsm_readMeshFile or hsm_importMesh; NULL is a no-op
void hsm_freeMeshParts(hsmMeshPart *parts, int nparts);

#ifdef __cplusplus
}
#endif
#endif  // HRPSIM_MODEL_MESH_MESH_IMPORT_H_
