// fuzz_urdf.c - libFuzzer harness: the input is a URDF file (hsm_loadUrdf: libxml2, the URDF
// front end, mesh references resolved next to the file, where the test meshes are linked); a
// body that loads must pass hsf_checkBody.

#include <stdio.h>
#include <unistd.h>

#include "fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int init;
  if (!init) {
    hsf_quiet();
    // mesh references such as meshes/tetra_ascii.stl resolve to the test meshes
    char link[4200];
    snprintf(link, sizeof link, "%s/meshes", hsf_scratchDir());
    if (symlink(HSF_MESH_DIR, link) != 0) {
      perror("fuzz: symlink");
    }
    init = 1;
  }
  const char *path = hsf_writeInput("robot.urdf", data, size);
  if (!path) {
    return 0;
  }
  hsmLoadOptions opt;
  hsf_loadOptions(&opt);
  hsError err = {0};
  hsBody *body = hsm_loadUrdf(path, &opt, NULL, 0, NULL, &err);
  if (body) {
    hsf_checkBody(body);
    hsm_freeBody(body);
  }
  return 0;
}
