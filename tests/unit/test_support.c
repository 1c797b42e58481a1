// test_support.c - see test_support.h.

#include "test_support.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int g_allow = 0;
static int g_count = 0;
static char g_last[1024];
static char g_tmp[256];
static const char *g_filter = NULL;

static void guardHandler(hstLog level, const char *msg, void *user) {
  (void)user;
  if (level < hsLOG_WARNING) {
    return;
  }
  g_count++;
  snprintf(g_last, sizeof g_last, "%s", msg);
  if (!g_allow) {
    fprintf(stderr, "\n  unexpected log: %s\n", msg);
    CU_FAIL("unexpected warning or error in the log");
  }
}

static void testSetup(void) {
  g_allow = 0;
  g_count = 0;
  g_last[0] = 0;
  hsu_failAllocAfter(0);
  hsu_setLogHandler(guardHandler, NULL);
}

static void testTeardown(void) {
  hsu_failAllocAfter(0);
  hsu_setLogHandler(NULL, NULL);
}

void hst_init(int argc, char **argv) {
  if (argc > 1) {
    g_filter = argv[1];
  }
  snprintf(g_tmp, sizeof g_tmp, "/tmp/hrpsim-unit-XXXXXX");
  if (!mkdtemp(g_tmp)) {
    perror("mkdtemp");
    exit(2);
  }
  if (CU_initialize_registry() != CUE_SUCCESS) {
    fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
    exit(2);
  }
}

int hst_run(void) {
  CU_basic_set_mode(CU_BRM_VERBOSE);
  if (g_filter) {
    CU_pSuite suite = CU_get_suite(g_filter);
    if (!suite) {
      fprintf(stderr, "no suite named %s\n", g_filter);
      return 2;
    }
    CU_basic_run_suite(suite);
  } else {
    CU_basic_run_tests();
  }
  unsigned failures = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
  CU_cleanup_registry();
  // remove the temporary directory (best effort)
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
  if (system(cmd) != 0) {
    fprintf(stderr, "could not remove %s\n", g_tmp);
  }
  return failures ? 1 : 0;
}

CU_pSuite hst_addSuite(const char *name) {
  CU_pSuite suite = CU_add_suite_with_setup_and_teardown(name, NULL, NULL, testSetup, testTeardown);
  if (!suite) {
    fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
    exit(2);
  }
  return suite;
}

void hst_expectLog(int allow) {
  g_allow = allow;
}

int hst_logCount(void) {
  return g_count;
}

const char *hst_lastLog(void) {
  return g_last;
}

const char *hst_tmpDir(void) {
  return g_tmp;
}

const char *hst_writeFile(const char *name, const char *text) {
  static char path[1024];
  snprintf(path, sizeof path, "%s/%s", g_tmp, name);
  // make parent directories for names with slashes
  for (char *p = path + strlen(g_tmp) + 1; *p; p++) {
    if (*p == '/') {
      *p = 0;
      mkdir(path, 0700);
      *p = '/';
    }
  }
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    exit(2);
  }
  fputs(text, f);
  fclose(f);
  return path;
}
