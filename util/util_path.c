// util_path.c - local paths from model references: file:// URLs and plain paths (see util.h).
//
// file URLs: file:///PATH and file://localhost/PATH (RFC 8089), file:/PATH without the
// authority, and, as model files write it, file://RELATIVE/PATH, which is taken as the relative
// path RELATIVE/PATH (never as a host to contact). %XX escapes are decoded after the prefix is
// removed. Anything that starts like an RFC 3986 scheme ("http:", "package:", "urn:") is
// another URL; a one-letter "scheme" is a drive letter and stays a path.

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util.h"

// decode %XX escapes in place
static void percentDecode(char *s) {
  char *w = s;
  for (const char *r = s; *r; r++) {
    if (r[0] == '%' && isxdigit((unsigned char)r[1]) && isxdigit((unsigned char)r[2])) {
      char hex[3] = {r[1], r[2], 0};
      *w++ = (char)strtol(hex, NULL, 16);
      r += 2;
    } else {
      *w++ = *r;
    }
  }
  *w = 0;
}

// the length of ref's URL scheme (without the ':'), or 0 if ref is not a URL
static size_t schemeLength(const char *ref) {
  if (!isalpha((unsigned char)ref[0])) {
    return 0;
  }
  size_t n = 1;
  while (isalnum((unsigned char)ref[n]) || ref[n] == '+' || ref[n] == '-' || ref[n] == '.') {
    n++;
  }
  return ref[n] == ':' && n >= 2 ? n : 0;
}

int hsu_urlToPath(const char *ref, char *out, size_t size) {
  size_t scheme = schemeLength(ref);
  if (scheme == 0) {
    return snprintf(out, size, "%s", ref) >= (int)size ? -1 : 0;
  }
  if (scheme != 4 || strncasecmp(ref, "file", 4) != 0) {
    return 1;
  }
  const char *p = ref + 5;
  if (strncmp(p, "//", 2) == 0) {
    p += 2;
    if (strncasecmp(p, "localhost/", 10) == 0) {
      p += 9;
    }
  }
  int cut = snprintf(out, size, "%s", p) >= (int)size;
  percentDecode(out);
  return cut ? -1 : 0;
}

int hsu_fileUrlToPath(const char *url, char *out, size_t size) {
  size_t scheme = schemeLength(url);
  if (scheme != 4 || strncasecmp(url, "file", 4) != 0) {
    return 1;
  }
  return hsu_urlToPath(url, out, size);
}
