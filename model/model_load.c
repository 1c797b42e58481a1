// model_load.c - choose the loader for a model file by its name (and, for .xml, its top
// element: <mujoco> is MJCF, anything else URDF); the default load limits.

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

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

// the path of a model reference without an MJCF fragment (#NAME) unless the whole path exists
static void stripFragment(const char *path, char *out, size_t size) {
  if (hsu_urlToPath(path, out, size)) {
    snprintf(out, size, "%s", path);
    return;
  }
  char *hash = strrchr(out, '#');
  if (hash && access(out, F_OK) != 0) {
    *hash = 0;
  }
}

// 1 if the file's first element is <mujoco> (after the XML declaration, comments, processing
// instructions and a DOCTYPE): an MJCF model rather than a URDF robot
static int isMujocoXml(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    return 0;
  }
  char buf[4096];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  const char *s = buf;
  for (;;) {
    while (*s && isspace((unsigned char)*s)) {
      s++;
    }
    if (strncmp(s, "\xef\xbb\xbf", 3) == 0) {  // UTF-8 byte order mark
      s += 3;
    } else if (strncmp(s, "<?", 2) == 0 || strncmp(s, "<!", 2) == 0) {
      int comment = strncmp(s, "<!--", 4) == 0;
      const char *end = comment ? strstr(s, "-->") : strchr(s, '>');
      if (!end) {
        return 0;
      }
      s = end + (comment ? 3 : 1);
    } else {
      break;
    }
  }
  return strncmp(s, "<mujoco", 7) == 0 && (isspace((unsigned char)s[7]) || s[7] == '>' ||
                                           s[7] == '/');
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
  char file[PATH_MAX];
  if (path) {
    stripFragment(path, file, sizeof file);
  }
  if (path && (endsWith(file, ".mjcf") || (endsWith(file, ".xml") && isMujocoXml(file)))) {
    return hsm_loadMjcf(path, opt, warnings, maxWarnings, nwarnings, err);
  }
  if (path && (endsWith(path, ".urdf") || endsWith(path, ".xml"))) {
    return hsm_loadUrdf(path, opt, warnings, maxWarnings, nwarnings, err);
  }
  return hsm_loadVrml(path, opt, warnings, maxWarnings, nwarnings, err);
}
