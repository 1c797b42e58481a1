// model_urdf.c - URDF loader (placeholder until the URDF front end lands).

#include "model.h"

hsBody *hsm_loadUrdf(const char *path, const hsmLoadOptions *opt, hsmWarning *warnings,
                     int maxWarnings, int *nwarnings, hsError *err) {
  (void)opt, (void)warnings, (void)maxWarnings;
  if (nwarnings) {
    *nwarnings = 0;
  }
  HS_ERR(err, hsE_UNSUPPORTED, "%s: URDF is not supported yet", path ? path : "");
  return NULL;
}
