// test_vrml_inline.c - Inline loading through real files: relative, absolute and file:// urls,
// the first loadable url, missing files and cycles with their location, reuse, the depth limit,
// Inline inside PROTO bodies, and hsv_parseFile's own path handling.

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_support.h"
#include "vrml.h"
#include "vrml_checks.h"

// write a file under the test directory; its resolved absolute path goes to abs
static void writeFile(const char *name, const char *text, char abs[PATH_MAX]) {
  const char *path = hst_writeFile(name, text);
  CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(path, abs));
}

static void testRelative(void) {
  char leg[PATH_MAX], main[PATH_MAX];
  writeFile("rel/parts/leg.wrl",
            "#VRML V2.0 utf8\nDEF LEG Shape { geometry Box { size 1 2 3 } }\nGroup {}\n", leg);
  writeFile("rel/main.wrl",
            "#VRML V2.0 utf8\nTransform { children [\n  Inline { url \"parts/leg.wrl\" }\n] }\n",
            main);
  hsvScene *scene = parseFileOk(main, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  CU_ASSERT_STRING_EQUAL(scene->file, main);
  const hsvNode *t = scene->roots[0];
  CU_ASSERT_STRING_EQUAL(t->file, main);
  const hsvNode *in = hsv_value(t, "children", hsvMFNODE)->node[0];
  CU_ASSERT_STRING_EQUAL(in->typeName, "Inline");
  CU_ASSERT_STRING_EQUAL(in->file, main);
  CU_ASSERT_EQUAL(in->line, 3);
  CU_ASSERT_STRING_EQUAL(in->inlineUrl, leg);
  CU_ASSERT_EQUAL_FATAL(in->ninlined, 2);
  const hsvNode *shape = in->inlined[0];
  CU_ASSERT_STRING_EQUAL(shape->typeName, "Shape");
  CU_ASSERT_STRING_EQUAL(shape->defName, "LEG");
  CU_ASSERT_STRING_EQUAL(shape->file, leg);
  CU_ASSERT_EQUAL(shape->line, 2);
  CU_ASSERT_EQUAL(shape->column, 1);
  double size[3];
  CU_ASSERT_TRUE(hsv_getVec3(hsv_value(shape, "geometry", hsvSFNODE)->node[0], "size", size));
  CU_ASSERT_EQUAL(size[2], 3);
  CU_ASSERT_STRING_EQUAL(in->inlined[1]->typeName, "Group");
  hsv_freeScene(scene);
  // DEF names of an inlined file stay in it
  writeFile("rel/leak.wrl",
            "#VRML V2.0 utf8\nInline { url \"parts/leg.wrl\" }\nShape { geometry USE LEG }\n",
            main);
  hsError err = parseFileFail(main, NULL);
  checkErrorAt(&err, hsE_SYNTAX, main, 3, 22, "USE of undefined name 'LEG'");
}

static void testUrls(void) {
  char part[PATH_MAX], main[PATH_MAX], text[3 * PATH_MAX];
  writeFile("urls/sub/part.wrl", "#VRML V2.0 utf8\nSphere { radius 2 }\n", part);
  // file:// URL, absolute path, the first loadable of several
  snprintf(text, sizeof text,
           "#VRML V2.0 utf8\n"
           "Inline { url \"file://%s\" }\n"
           "Inline { url \"%s\" }\n"
           "Inline { url [ \"missing.wrl\" \"http://example.com/x.wrl\" \"sub/part.wrl\" ] }\n"
           "Inline { url [ ] }\n",
           part, part);
  writeFile("urls/main.wrl", text, main);
  hsvScene *scene = parseFileOk(main, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  CU_ASSERT_EQUAL_FATAL(scene->nroot, 4);
  for (int i = 0; i < 3; i++) {
    CU_ASSERT_STRING_EQUAL(scene->roots[i]->inlineUrl, part);
    CU_ASSERT_EQUAL_FATAL(scene->roots[i]->ninlined, 1);
    CU_ASSERT_STRING_EQUAL(scene->roots[i]->inlined[0]->typeName, "Sphere");
  }
  CU_ASSERT_EQUAL(scene->roots[3]->ninlined, 0);
  CU_ASSERT_PTR_NULL(scene->roots[3]->inlineUrl);
  hsv_freeScene(scene);
  // hsv_parseFile takes a file:// URL too (with %-escapes) and stores the resolved path
  char spaced[PATH_MAX], url[PATH_MAX + 16];
  writeFile("urls/with space.wrl", "#VRML V2.0 utf8\nInline { url \"sub/part.wrl\" }\n", spaced);
  char *dir = strrchr(spaced, '/');
  snprintf(url, sizeof url, "file://%.*s/with%%20space.wrl", (int)(dir - spaced), spaced);
  scene = parseFileOk(url, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  CU_ASSERT_STRING_EQUAL(scene->file, spaced);
  CU_ASSERT_STRING_EQUAL(scene->roots[0]->file, spaced);
  CU_ASSERT_STRING_EQUAL(scene->roots[0]->inlineUrl, part);
  hsv_freeScene(scene);
}

static void testMissing(void) {
  char main[PATH_MAX], want[PATH_MAX + 200];
  writeFile("miss/main.wrl",
            "#VRML V2.0 utf8\nGroup { children [\n  Inline { url \"nope.wrl\" } ] }\n", main);
  hsError err = parseFileFail(main, NULL);
  snprintf(want, sizeof want,
           "cannot load Inline: tried '%.*s/nope.wrl' (No such file or directory)",
           (int)(strrchr(main, '/') - main), main);
  checkErrorAt(&err, hsE_IO, main, 3, 3, want);
  // every url tried is named; a directory is not loadable
  writeFile("miss/two.wrl",
            "#VRML V2.0 utf8\n DEF I Inline { url [ \"http://x/y.wrl\" \".\" ] }\n", main);
  err = parseFileFail(main, NULL);
  snprintf(want, sizeof want,
           "cannot load Inline: tried 'http://x/y.wrl' (unsupported URL), '%.*s/.' (a "
           "directory, not a regular file)",
           (int)(strrchr(main, '/') - main), main);
  checkErrorAt(&err, hsE_IO, main, 2, 2, want);
  // without loading, a missing file is no error
  hsvOptions opt;
  hsv_defaultOptions(&opt);
  CU_ASSERT_EQUAL(opt.loadInlines, 1);
  CU_ASSERT_EQUAL(opt.maxInlineDepth, 32);
  opt.loadInlines = 0;
  hsvScene *scene = parseFileOk(main, &opt);
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  CU_ASSERT_EQUAL(scene->roots[0]->ninlined, 0);
  CU_ASSERT_PTR_NULL(scene->roots[0]->inlined);
  hsv_freeScene(scene);
}

static void testCycle(void) {
  char a[PATH_MAX], b[PATH_MAX], top[PATH_MAX], self[PATH_MAX];
  writeFile("cyc/a.wrl", "#VRML V2.0 utf8\nInline { url \"b.wrl\" }\n", a);
  writeFile("cyc/b.wrl", "#VRML V2.0 utf8\nGroup { children [\n    Inline { url \"a.wrl\" } ] }\n",
            b);
  writeFile("cyc/top.wrl", "#VRML V2.0 utf8\nInline { url \"a.wrl\" }\n", top);
  writeFile("cyc/self.wrl", "#VRML V2.0 utf8\n\n  Inline { url \"self.wrl\" }\n", self);
  hsError err = parseFileFail(a, NULL);
  checkErrorAt(&err, hsE_MODEL, b, 3, 5, "Inline cycle: a.wrl -> b.wrl -> a.wrl");
  err = parseFileFail(top, NULL);
  checkErrorAt(&err, hsE_MODEL, b, 3, 5, "Inline cycle: a.wrl -> b.wrl -> a.wrl");
  err = parseFileFail(self, NULL);
  checkErrorAt(&err, hsE_MODEL, self, 3, 3, "Inline cycle: self.wrl -> self.wrl");
}

static void testReuse(void) {
  char main[PATH_MAX], part[PATH_MAX], sub[PATH_MAX];
  writeFile("twice/sub.wrl", "#VRML V2.0 utf8\nBox {}\n", sub);
  writeFile("twice/part.wrl", "#VRML V2.0 utf8\nGroup { children Inline { url \"sub.wrl\" } }\n",
            part);
  writeFile("twice/main.wrl",
            "#VRML V2.0 utf8\n"
            "PROTO P [ exposedField MFString u [] ] { Inline { url IS u } }\n"
            "Inline { url \"part.wrl\" }\n"
            "Transform { children Inline { url \"part.wrl\" } }\n"
            "P { u \"sub.wrl\" }\n"
            "P { u \"part.wrl\" }\n",
            main);
  hsvScene *scene = parseFileOk(main, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  CU_ASSERT_EQUAL_FATAL(scene->nroot, 4);
  const hsvNode *in1 = scene->roots[0];
  const hsvNode *in2 = hsv_value(scene->roots[1], "children", hsvMFNODE)->node[0];
  CU_ASSERT_STRING_EQUAL(in1->inlineUrl, part);
  CU_ASSERT_STRING_EQUAL(in2->inlineUrl, part);
  CU_ASSERT_EQUAL_FATAL(in1->ninlined, 1);
  CU_ASSERT_EQUAL_FATAL(in2->ninlined, 1);
  const hsvNode *nested = hsv_value(in2->inlined[0], "children", hsvMFNODE)->node[0];
  CU_ASSERT_STRING_EQUAL(nested->inlineUrl, sub);
  CU_ASSERT_STRING_EQUAL(nested->inlined[0]->typeName, "Box");
  // Inline in a PROTO body: loaded per instance, with the url it was given through IS
  const hsvNode *p1 = scene->roots[2]->body[0], *p2 = scene->roots[3]->body[0];
  CU_ASSERT_STRING_EQUAL(p1->typeName, "Inline");
  CU_ASSERT_STRING_EQUAL(p1->inlineUrl, sub);
  CU_ASSERT_STRING_EQUAL(p1->file, main);
  CU_ASSERT_EQUAL(p1->line, 2);
  CU_ASSERT_STRING_EQUAL(p2->inlineUrl, part);
  CU_ASSERT_EQUAL_FATAL(p2->ninlined, 1);
  CU_ASSERT_STRING_EQUAL(p2->inlined[0]->typeName, "Group");
  hsv_freeScene(scene);
}

static void testDepthLimit(void) {
  char d0[PATH_MAX], d1[PATH_MAX], d2[PATH_MAX], d3[PATH_MAX];
  writeFile("deep/d3.wrl", "#VRML V2.0 utf8\nBox {}\n", d3);
  writeFile("deep/d2.wrl", "#VRML V2.0 utf8\n  Inline { url \"d3.wrl\" }\n", d2);
  writeFile("deep/d1.wrl", "#VRML V2.0 utf8\nInline { url \"d2.wrl\" }\n", d1);
  writeFile("deep/d0.wrl", "#VRML V2.0 utf8\nInline { url \"d1.wrl\" }\n", d0);
  hsvOptions opt;
  hsv_defaultOptions(&opt);
  opt.maxInlineDepth = 3;
  hsvScene *scene = parseFileOk(d0, &opt);
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  const hsvNode *n = scene->roots[0];
  for (int level = 1; level <= 3; level++) {
    CU_ASSERT_EQUAL_FATAL(n->ninlined, 1);
    n = n->inlined[0];
  }
  CU_ASSERT_STRING_EQUAL(n->typeName, "Box");
  CU_ASSERT_STRING_EQUAL(n->file, d3);
  hsv_freeScene(scene);
  opt.maxInlineDepth = 2;
  hsError err = parseFileFail(d0, &opt);
  checkErrorAt(&err, hsE_MODEL, d2, 2, 3, "Inline nesting deeper than 2 levels");
  // a reused file still counts the levels below it: x (1 level below) via y is too deep
  char main[PATH_MAX], x[PATH_MAX], y[PATH_MAX], z[PATH_MAX];
  writeFile("reuse/z.wrl", "#VRML V2.0 utf8\nSphere {}\n", z);
  writeFile("reuse/x.wrl", "#VRML V2.0 utf8\nInline { url \"z.wrl\" }\n", x);
  writeFile("reuse/y.wrl", "#VRML V2.0 utf8\nGroup {}\n  Inline { url \"x.wrl\" }\n", y);
  writeFile("reuse/main.wrl",
            "#VRML V2.0 utf8\nInline { url \"x.wrl\" }\nInline { url \"y.wrl\" }\n", main);
  err = parseFileFail(main, &opt);
  checkErrorAt(&err, hsE_MODEL, y, 3, 3, "Inline nesting deeper than 2 levels");
  opt.maxInlineDepth = 3;
  scene = parseFileOk(main, &opt);
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  const hsvNode *viaY = scene->roots[1]->inlined[1];
  CU_ASSERT_STRING_EQUAL(viaY->inlineUrl, x);
  CU_ASSERT_STRING_EQUAL(viaY->inlined[0]->inlined[0]->typeName, "Sphere");
  hsv_freeScene(scene);
}

static void testErrorsInInlinedFiles(void) {
  char main[PATH_MAX], bad[PATH_MAX], nohead[PATH_MAX];
  writeFile("errs/bad.wrl", "#VRML V2.0 utf8\nBox { size 1 \"2\" 3 }\n", bad);
  writeFile("errs/nohead.wrl", "Box {}\n", nohead);
  writeFile("errs/main.wrl", "#VRML V2.0 utf8\nInline { url \"bad.wrl\" }\n", main);
  hsError err = parseFileFail(main, NULL);
  checkErrorAt(&err, hsE_SYNTAX, bad, 2, 14,
               "field 'size' of Box expects SFVec3f, got string \"2\"");
  // an inlined part file without a header (OpenHRP's PA10 and RH2 parts) is read, with a
  // warning naming the part
  writeFile("errs/main2.wrl", "#VRML V2.0 utf8\nInline { url \"nohead.wrl\" }\n", main);
  hsvScene *scene = parseFileOk(main, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  CU_ASSERT_EQUAL(scene->roots[0]->ninlined, 1);
  CU_ASSERT_STRING_EQUAL(scene->roots[0]->inlined[0]->typeName, "Box");
  CU_ASSERT_EQUAL_FATAL(scene->nwarning, 1);
  CU_ASSERT_STRING_EQUAL(scene->warnings[0].file, nohead);
  CU_ASSERT_EQUAL(scene->warnings[0].line, 1);
  hsv_freeScene(scene);
}

static void testParseFileErrors(void) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/does/not/exist.wrl", hst_tmpDir());
  hsError err = parseFileFail(path, NULL);
  CU_ASSERT_EQUAL(err.code, hsE_IO);
  CU_ASSERT_STRING_EQUAL(err.file, path);
  char want[PATH_MAX + 100];
  snprintf(want, sizeof want, "cannot read '%s': No such file or directory", path);
  CU_ASSERT_STRING_EQUAL(err.message, want);
  err = parseFileFail(hst_tmpDir(), NULL);
  CU_ASSERT_EQUAL(err.code, hsE_IO);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "a directory, not a regular file"));
  // a FIFO is refused at once (never opened, which would block), in the words URDF uses, and
  // so is an Inline naming one
  char fifo[PATH_MAX], main[PATH_MAX];
  snprintf(fifo, sizeof fifo, "%s/pipe.wrl", hst_tmpDir());
  unlink(fifo);
  CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
  err = parseFileFail(fifo, NULL);
  snprintf(want, sizeof want, "cannot read '%s': a FIFO, not a regular file", fifo);
  CU_ASSERT_STRING_EQUAL(err.message, want);
  writeFile("fifo_main.wrl", "#VRML V2.0 utf8\nInline { url \"pipe.wrl\" }\n", main);
  err = parseFileFail(main, NULL);
  snprintf(want, sizeof want, "cannot load Inline: tried '%s' (a FIFO, not a regular file)", fifo);
  checkErrorAt(&err, hsE_IO, main, 2, 1, want);
  unlink(fifo);
  err = (hsError){0};
  CU_ASSERT_PTR_NULL(hsv_parseFile(NULL, NULL, &err));
  CU_ASSERT_EQUAL(err.code, hsE_INVALID);
  // header errors name the file at line 1
  char v1[PATH_MAX];
  writeFile("v1.wrl", "#VRML V1.0 ascii\nSeparator {}\n", v1);
  err = parseFileFail(v1, NULL);
  checkErrorAt(&err, hsE_SYNTAX, v1, 1, 1, NULL);
}

static void testVirtualPath(void) {
  char part[PATH_MAX], virt[PATH_MAX + 32];
  writeFile("virt/part.wrl", "#VRML V2.0 utf8\nCone {}\n", part);
  snprintf(virt, sizeof virt, "%.*s/not-written.wrl", (int)(strrchr(part, '/') - part), part);
  hsError err = {0};
  hsvScene *scene =
      hsv_parseString("#VRML V2.0 utf8\nInline { url \"part.wrl\" }\n", virt, NULL, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  CU_ASSERT_STRING_EQUAL(scene->file, virt);
  CU_ASSERT_STRING_EQUAL(scene->roots[0]->file, virt);
  CU_ASSERT_STRING_EQUAL(scene->roots[0]->inlineUrl, part);
  CU_ASSERT_STRING_EQUAL(scene->roots[0]->inlined[0]->typeName, "Cone");
  hsv_freeScene(scene);
}

static void testAllocationFailure(void) {
  char main[PATH_MAX];
  writeFile("alloc/part.wrl",
            "#VRML V2.0 utf8\nDEF S Shape { geometry Box {} }\nTransform { children USE S }\n",
            main);
  writeFile("alloc/main.wrl",
            "#VRML V2.0 utf8\n"
            "PROTO P [ exposedField MFString u [] ] { Group { children Inline { url IS u } } }\n"
            "Inline { url \"part.wrl\" }\n"
            "P { u \"part.wrl\" }\n",
            main);
  hsvScene *scene;
  int n = failEachAllocation(NULL, main, 10000, &scene);
  if (scene) {
    CU_ASSERT_EQUAL(scene->roots[0]->ninlined, 2);
    hsv_freeScene(scene);
  }
  CU_ASSERT(n > 3 && n < 10000);
}

void register_vrml_inline(void) {
  CU_pSuite s = hst_addSuite("vrml_inline");
  CU_add_test(s, "relative url", testRelative);
  CU_add_test(s, "file:// and absolute urls", testUrls);
  CU_add_test(s, "missing files", testMissing);
  CU_add_test(s, "cycles", testCycle);
  CU_add_test(s, "the same file twice, Inline in PROTO", testReuse);
  CU_add_test(s, "depth limit", testDepthLimit);
  CU_add_test(s, "errors inside inlined files", testErrorsInInlinedFiles);
  CU_add_test(s, "hsv_parseFile errors", testParseFileErrors);
  CU_add_test(s, "virtual path", testVirtualPath);
  CU_add_test(s, "allocation failure", testAllocationFailure);
}
