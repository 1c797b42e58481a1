// util_log.c - one logger for all of hrpsim, with a replaceable handler (tests capture it).

#include <stdio.h>

#include "util.h"

static void defaultHandler(hstLog level, const char *msg, void *user);

static hsuLogHandler g_handler = defaultHandler;
static void *g_user = NULL;
static hstLog g_level = hsLOG_INFO;

static const char *levelName(hstLog level) {
  switch (level) {
    case hsLOG_DEBUG:
      return "debug";
    case hsLOG_INFO:
      return "info";
    case hsLOG_WARNING:
      return "warning";
    default:
      return "error";
  }
}

static void defaultHandler(hstLog level, const char *msg, void *user) {
  (void)user;
  fprintf(stderr, "hrpsim: %s: %s\n", levelName(level), msg);
}

void hsu_log(hstLog level, const char *fmt, ...) {
  if (level < g_level) {
    return;
  }
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  g_handler(level, msg, g_user);
}

hsuLogHandler hsu_setLogHandler(hsuLogHandler handler, void *user) {
  hsuLogHandler old = g_handler;
  g_handler = handler ? handler : defaultHandler;
  g_user = handler ? user : NULL;
  return old;
}

hstLog hsu_setLogLevel(hstLog level) {
  hstLog was = g_level;
  g_level = level;
  return was;
}
