// util_path.c - local paths from file:// URLs (see util.h).

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int hsu_fileUrlToPath(const char *url, char *out, size_t size) {
  if (strncmp(url, "file://", 7) != 0) {
    return 1;
  }
  url += 7;
  if (strncmp(url, "localhost/", 10) == 0) {
    url += 9;
  }
  int cut = snprintf(out, size, "%s", url) >= (int)size;
  percentDecode(out);
  return cut ? -1 : 0;
}
