// vrml_checks.h - helpers shared by the VRML reader tests: parsing text or files that must
// succeed (printing the error when it does not) or fail (returning the error), checking an
// error's code and location, and parsing with each allocation in turn failing.
//
// Header-only (static inline) because the test build compiles every tests/unit/<module>/test_*.c
// and nothing else. A test that parses text under one virtual path defines it before including
// this header,
//   #define VRML_TEST_PATH "/virtual/nodes.wrl"
// and gets parseOk, parseFail and checkError bound to that path; the other helpers take their
// paths as arguments.

#ifndef HRPSIM_TESTS_UNIT_MODEL_VRML_CHECKS_H_
#define HRPSIM_TESTS_UNIT_MODEL_VRML_CHECKS_H_

#include <stdio.h>
#include <string.h>

#include "test_support.h"
#include "vrml.h"

// the scene of a parse that must succeed; when there is none, err is printed and NULL returned
static inline hsvScene *sceneOrReport(hsvScene *scene, const hsError *err) {
  if (!scene) {
    char buf[1200];
    fprintf(stderr, "\n  unexpected error: %s\n", hsu_formatError(err, buf, sizeof buf));
  }
  return scene;
}

// the error of a parse that must fail: asserts there is no scene (freeing one that came anyway)
static inline hsError errorOf(hsvScene *scene, const hsError *err) {
  CU_ASSERT_PTR_NULL(scene);
  hsv_freeScene(scene);
  return *err;
}

// parse the file at path (opt may be NULL), which must be valid
static inline hsvScene *parseFileOk(const char *path, const hsvOptions *opt) {
  hsError err = {0};
  hsvScene *scene = hsv_parseFile(path, opt, &err);
  return sceneOrReport(scene, &err);
}

// the error of parsing the file at path (opt may be NULL), which must fail
static inline hsError parseFileFail(const char *path, const hsvOptions *opt) {
  hsError err = {0};
  hsvScene *scene = hsv_parseFile(path, opt, &err);
  return errorOf(scene, &err);
}

// check err's code, file, line, column and, unless message is NULL, message; prints what came
// and returns 0 when the location or message differ, else 1
static inline int checkErrorAt(const hsError *err, int code, const char *file, int line,
                               int column, const char *message) {
  CU_ASSERT_EQUAL(err->code, code);
  CU_ASSERT_STRING_EQUAL(err->file, file);
  CU_ASSERT_EQUAL(err->line, line);
  CU_ASSERT_EQUAL(err->column, column);
  if (message) {
    CU_ASSERT_STRING_EQUAL(err->message, message);
  }
  if (err->line != line || err->column != column || strcmp(err->file, file) != 0 ||
      (message && strcmp(err->message, message) != 0)) {
    fprintf(stderr, "\n  got %s:%d:%d %s\n", err->file, err->line, err->column, err->message);
    return 0;
  }
  return 1;
}

// parse VRML text under the virtual path, or with text NULL the file at path, with allocation
// n failing for n = 1, 2, ... below limit until a parse succeeds; every failure must be
// hsE_NOMEM (and leak nothing, which valgrind checks). Returns that n (the n of a wrong error,
// or limit, when none succeeds); the scene, or NULL, goes to *scene for the caller to check and
// free
static inline int failEachAllocation(const char *text, const char *path, int limit,
                                     hsvScene **scene) {
  int n;
  *scene = NULL;
  for (n = 1; n < limit; n++) {
    hsu_failAllocAfter(n);
    hsError err = {0};
    *scene = text ? hsv_parseString(text, path, NULL, &err) : hsv_parseFile(path, NULL, &err);
    hsu_failAllocAfter(0);
    if (*scene) {
      break;
    }
    CU_ASSERT_EQUAL(err.code, hsE_NOMEM);
    if (err.code != hsE_NOMEM) {
      fprintf(stderr, "\n  allocation %d: %s\n", n, err.message);
      break;
    }
  }
  return n;
}

#ifdef VRML_TEST_PATH

// parse text under VRML_TEST_PATH; it must be valid
static inline hsvScene *parseOk(const char *text) {
  hsError err = {0};
  hsvScene *scene = hsv_parseString(text, VRML_TEST_PATH, NULL, &err);
  return sceneOrReport(scene, &err);
}

// the error of parsing text under VRML_TEST_PATH, which must fail
static inline hsError parseFail(const char *text) {
  hsError err = {0};
  hsvScene *scene = hsv_parseString(text, VRML_TEST_PATH, NULL, &err);
  return errorOf(scene, &err);
}

// check err's code, line, column and message, in VRML_TEST_PATH (see checkErrorAt)
static inline int checkError(const hsError *err, int code, int line, int column,
                             const char *message) {
  return checkErrorAt(err, code, VRML_TEST_PATH, line, column, message);
}

#endif  // VRML_TEST_PATH

#endif  // HRPSIM_TESTS_UNIT_MODEL_VRML_CHECKS_H_
