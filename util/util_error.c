// util_error.c - the one way hrpsim records and formats errors (see util.h).

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

int hsu_setError(hsError *err, int code, const char *srcFile, int srcLine, const char *file,
                 int line, int column, const char *fmt, ...) {
  // the first error wins: keep the root cause, drop follow-ups
  if (!err || err->code != 0) {
    return code;
  }
  err->code = code;
  err->srcFile = srcFile;
  err->srcLine = srcLine;
  err->line = line;
  err->column = column;
  snprintf(err->file, sizeof err->file, "%s", file ? file : "");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  return code;
}

void hsu_clearError(hsError *err) {
  if (err) {
    memset(err, 0, sizeof *err);
  }
}

char *hsu_formatError(const hsError *err, char *buf, size_t size) {
  if (!buf || size == 0) {
    return buf;
  }
  if (!err || err->code == 0) {
    snprintf(buf, size, "no error");
  } else if (err->file[0] && err->line > 0 && err->column > 0) {
    snprintf(buf, size, "%s:%d:%d: %s", err->file, err->line, err->column, err->message);
  } else if (err->file[0] && err->line > 0) {
    snprintf(buf, size, "%s:%d: %s", err->file, err->line, err->message);
  } else if (err->file[0]) {
    snprintf(buf, size, "%s: %s", err->file, err->message);
  } else {
    snprintf(buf, size, "%s", err->message);
  }
  return buf;
}

void hsu_assertFail(const char *what, const char *file, int line) {
  fprintf(stderr, "hrpsim: internal error: assertion '%s' failed at %s:%d\n", what, file, line);
  abort();
}
