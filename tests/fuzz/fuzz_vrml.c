// fuzz_vrml.c - libFuzzer harness: the input is an OpenHRP VRML97 model file, read by the VRML
// reader and the OpenHRP walker (hsm_loadVrml); a body that loads must pass hsf_checkBody.

#include "fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int init;
  if (!init) {
    hsf_quiet();
    init = 1;
  }
  const char *path = hsf_writeInput("model.wrl", data, size);
  if (!path) {
    return 0;
  }
  hsmLoadOptions opt;
  hsf_loadOptions(&opt);
  hsError err = {0};
  hsBody *body = hsm_loadVrml(path, &opt, NULL, 0, NULL, &err);
  if (body) {
    hsf_checkBody(body);
    hsm_freeBody(body);
  }
  return 0;
}
