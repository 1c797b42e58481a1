// model_load.c - choose the loader for a model file by its name.

#include <string.h>
#include <strings.h>

#include "model.h"

// 1 if path ends with ext, ignoring case
static int endsWith(const char *path, const char *ext) {
  size_t n = strlen(path), m = strlen(ext);
  return n >= m && strcasecmp(path + n - m, ext) == 0;
}

hsBody *hsm_loadModel(const char *path, const hsmLoadOptions *opt, hsmWarning *warnings,
                      int maxWarnings, int *nwarnings, hsError *err) {
  if (path && (endsWith(path, ".urdf") || endsWith(path, ".xml"))) {
    return hsm_loadUrdf(path, opt, warnings, maxWarnings, nwarnings, err);
  }
  return hsm_loadVrml(path, opt, warnings, maxWarnings, nwarnings, err);
}
