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

static int startsWithMujoco(const char *text);

// 1 if the file's first element is <mujoco> (after the XML declaration, comments, processing
// instructions and a DOCTYPE): an MJCF model rather than a URDF robot; -1 out of memory
static int isMujocoXml(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    return 0;
  }
  // long licence comments come first in some files: look at the first 64 KiB
  enum { kSniff = 65536 };
  char *buf = hsu_malloc(kSniff);
  if (!buf) {
    fclose(f);
    return -1;
  }
  size_t n = fread(buf, 1, kSniff - 1, f);
  fclose(f);
  buf[n] = 0;
  int yes = startsWithMujoco(buf);
  hsu_free(buf);
  return yes;
}

// 1 if text's first element (after declarations and comments) is <mujoco>
static int startsWithMujoco(const char *text) {
  const char *s = text;
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
  int mujoco = path && endsWith(file, ".xml") ? isMujocoXml(file) : 0;
  if (mujoco < 0) {
    if (nwarnings) {
      *nwarnings = 0;
    }
    HS_ERR(err, hsE_NOMEM, "out of memory");
    return NULL;
  }
  if (path && (endsWith(file, ".mjcf") || mujoco)) {
    return hsm_loadMjcf(path, opt, warnings, maxWarnings, nwarnings, err);
  }
  if (path && (endsWith(path, ".urdf") || endsWith(path, ".xml"))) {
    return hsm_loadUrdf(path, opt, warnings, maxWarnings, nwarnings, err);
  }
  return hsm_loadVrml(path, opt, warnings, maxWarnings, nwarnings, err);
}
