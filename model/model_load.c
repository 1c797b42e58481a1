// model_load.c - choose the loader for a model file by its name; the default load limits.

#include <string.h>
#include <strings.h>

#include "model.h"

// 1 if path ends with ext, ignoring case
static int endsWith(const char *path, const char *ext) {
  size_t n = strlen(path), m = strlen(ext);
  return n >= m && strcasecmp(path + n - m, ext) == 0;
}

void hsm_defaultLimits(hsmLimits *limits) {
  limits->maxFileBytes = HSU_DEFAULT_MAX_FILE_BYTES;
  limits->meshSeconds = 60;
  limits->meshBytes = (size_t)4 << 30;
  limits->meshTriangles = 20000000;
  limits->meshInProcess = 0;
}

hsmLimits hsm_effectiveLimits(const hsmLimits *limits) {
  hsmLimits d, out;
  hsm_defaultLimits(&d);
  if (!limits) {
    return d;
  }
  out = *limits;
  out.maxFileBytes = out.maxFileBytes ? out.maxFileBytes : d.maxFileBytes;
  out.meshSeconds = out.meshSeconds > 0 ? out.meshSeconds : d.meshSeconds;
  out.meshBytes = out.meshBytes ? out.meshBytes : d.meshBytes;
  out.meshTriangles = out.meshTriangles > 0 ? out.meshTriangles : d.meshTriangles;
  return out;
}

hsBody *hsm_loadModel(const char *path, const hsmLoadOptions *opt, hsmWarning *warnings,
                      int maxWarnings, int *nwarnings, hsError *err) {
  if (hsm_isPrimitiveUrl(path)) {
    if (nwarnings) {
      *nwarnings = 0;
    }
    (void)warnings, (void)maxWarnings;
    return hsm_loadPrimitive(path, opt, err);
  }
  if (path && (endsWith(path, ".urdf") || endsWith(path, ".xml"))) {
    return hsm_loadUrdf(path, opt, warnings, maxWarnings, nwarnings, err);
  }
  return hsm_loadVrml(path, opt, warnings, maxWarnings, nwarnings, err);
}
