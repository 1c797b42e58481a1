// fuzz_mesh.c - libFuzzer harness: mesh import (hsm_readMeshFile through assimp). The first
// byte picks the file type (STL, OBJ, COLLADA, PLY, OFF), the rest is the file; the second picks
// a scale. Imported parts must hold finite vertices and indices in range.
//
// By default the import runs in this process, so that the sanitizers see our conversion code;
// assimp's own crashes then show up too (Debian's assimp 5.2 reads through a null pointer on
// some COLLADA files: tests/data/meshes/assimp_crash.dae), although the servers never import in
// process (a child process per mesh, see mesh_import.c). HRPSIM_FUZZ_MESH_FORK=1 fuzzes what
// the servers run instead: the import in a child process, whose crash must come back as an
// error (tools/fuzz.sh --ci sets it, so that CI fails on our bugs, not on assimp's).

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_support.h"
#include "mesh_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const kNames[] = {"mesh.stl", "mesh.obj", "mesh.dae", "mesh.ply",
                                       "mesh.off"};
  static const double kScales[] = {1, 0.001, -1, 1e30, 1e-30, 1e300};
  static int init;
  if (!init) {
    hsf_quiet();
    init = 1;
  }
  if (size < 2) {
    return 0;
  }
  const char *name = kNames[data[0] % (sizeof kNames / sizeof kNames[0])];
  double s = kScales[data[1] % (sizeof kScales / sizeof kScales[0])];
  const char *path = hsf_writeInput(name, data + 2, size - 2);
  if (!path) {
    return 0;
  }
  hsmLoadOptions opt;
  hsf_loadOptions(&opt);
  const char *fork = getenv("HRPSIM_FUZZ_MESH_FORK");
  if (fork && fork[0] == '1') {
    opt.limits.meshInProcess = 0;
  }
  double scale[3] = {s, s, s};
  hsmMeshPart *parts = NULL;
  int nparts = 0;
  hsError err = {0};
  if (hsm_readMeshFile(path, scale, &opt.limits, &parts, &nparts, &err) == 0) {
    for (int p = 0; p < nparts; p++) {
      const hsmMesh *m = &parts[p].mesh;
      for (int i = 0; i < 3 * m->nvertex; i++) {
        if (!isfinite(m->vertices[i])) {
          fprintf(stderr, "fuzz finding: part %d has a non-finite vertex\n", p);
          abort();
        }
      }
      for (int i = 0; i < 3 * m->ntriangle; i++) {
        if (m->triangles[i] < 0 || m->triangles[i] >= m->nvertex) {
          fprintf(stderr, "fuzz finding: part %d: triangle corner out of range\n", p);
          abort();
        }
      }
    }
    hsm_freeMeshParts(parts, nparts);
  }
  return 0;
}
