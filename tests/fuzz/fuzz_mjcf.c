// fuzz_mjcf.c - libFuzzer harness: the input is an MJCF file (hsm_loadMjcf: libxml2, includes,
// default classes, the MuJoCo compiler rules, meshes); next to it, parts/ holds the included
// file of tests/data/mjcf and meshes/ the sample quadruped's mesh, so the seeds' references
// resolve. A body that loads must pass hsf_checkBody. The seeds are the MJCF files of samples/
// and tests/data/ (tools/fuzz.sh).

#include <stdio.h>
#include <unistd.h>

#include "fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int init;
  if (!init) {
    hsf_quiet();
    static const char *const links[2][2] = {{"parts", HSF_MJCF_PARTS_DIR},
                                            {"meshes", HSF_MJCF_MESH_DIR}};
    for (int i = 0; i < 2; i++) {
      char link[4200];
      snprintf(link, sizeof link, "%s/%s", hsf_scratchDir(), links[i][0]);
      if (symlink(links[i][1], link) != 0) {
        perror("fuzz: symlink");
      }
    }
    init = 1;
  }
  const char *path = hsf_writeInput("model.xml", data, size);
  if (!path) {
    return 0;
  }
  hsmLoadOptions opt;
  hsf_loadOptions(&opt);
  hsError err = {0};
  hsBody *body = hsm_loadMjcf(path, &opt, NULL, 0, NULL, &err);
  if (body) {
    hsf_checkBody(body);
    hsm_freeBody(body);
  }
  return 0;
}
