// test_meshlimits.c - what a mesh import may cost (hsmLimits): the child process gives exactly
// the parts an in-process import gives; the triangle, time, memory and file-size limits stop an
// import with an error naming the file and the limit; COLLADA index lists with words that are
// not indices are refused with their line; FIFOs and devices are refused at once; nothing is
// left behind (children, descriptors). The big inputs are written at run time.

// gettid
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mesh_import.h"
#include "test_support.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static const char *fixture(const char *name) {
  static char path[1024];
  snprintf(path, sizeof path, "%s/meshes/%s", HST_DATA_DIR, name);
  return path;
}

// open descriptors of this process
static int openDescriptors(void) {
  DIR *d = opendir("/proc/self/fd");
  int n = 0;
  for (struct dirent *e = d ? readdir(d) : NULL; e; e = readdir(d)) {
    n += e->d_name[0] != '.';
  }
  if (d) {
    closedir(d);
  }
  return n;
}

// 1 if this process has no child left (none running, none waiting to be reaped)
static int noChildren(void) {
  return waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD;
}

// read path under limits; the return code, with err filled
static int readWith(const char *path, const hsmLimits *lim, hsmMeshPart **p, int *n,
                    hsError *err) {
  *p = NULL;
  *n = 0;
  return hsm_readMeshFile(path, NULL, lim, p, n, err);
}

// read path, which must fail with code, a message naming it and containing `what`, in less
// than `seconds`
static void expectFailure(const char *path, const hsmLimits *lim, int code, const char *what,
                          double seconds) {
  hsmMeshPart *p;
  int n;
  hsError err = {0};
  double t0 = now();
  int rc = readWith(path, lim, &p, &n, &err);
  double took = now() - t0;
  CU_ASSERT_EQUAL(rc, code);
  CU_ASSERT_PTR_NULL(p);
  CU_ASSERT_EQUAL(n, 0);
  int ok = strstr(err.message, path) && strstr(err.message, what);
  CU_ASSERT(ok);
  CU_ASSERT(took < seconds);
  if (!ok || rc != code || took >= seconds) {
    fprintf(stderr, "\n  %s: [%d] %s (%.3f s; wanted [%d] '%s' within %g s)\n", path, rc,
            err.message, took, code, what, seconds);
  }
  hsm_freeMeshParts(p, n);
}

static int sameArray(const void *a, const void *b, size_t bytes) {
  return bytes == 0 || (a && b && memcmp(a, b, bytes) == 0);
}

// the children of this thread, in /proc's order: their count, the first pid into *first
static int childrenOf(pid_t *first) {
  char path[128], text[512] = "";
  snprintf(path, sizeof path, "/proc/self/task/%ld/children", (long)gettid());
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
  if (f) {
    fclose(f);
  }
  text[n] = 0;
  int count = 0;
  *first = 0;
  for (char *p = text, *end; *p; p = end) {
    long pid = strtol(p, &end, 10);
    if (end == p) {
      break;
    }
    *first = count++ ? *first : (pid_t)pid;
  }
  return count;
}

// the parts of path read in this process
static int readInProcess(const char *path, hsmMeshPart **p, int *n) {
  hsmLimits lim = {0};
  lim.meshInProcess = 1;
  hsError err = {0};
  return readWith(path, &lim, p, n, &err);
}

// 1 if parts a and b (na, nb of them) are the same, byte for byte
static int sameParts(const hsmMeshPart *a, int na, const hsmMeshPart *b, int nb) {
  int same = na == nb;
  for (int i = 0; same && i < na; i++) {
    const hsmMesh *x = &a[i].mesh, *y = &b[i].mesh;
    same = x->nvertex == y->nvertex && x->ntriangle == y->ntriangle &&
           x->nnormal == y->nnormal && x->ntexCoord == y->ntexCoord &&
           sameArray(x->vertices, y->vertices, 3 * (size_t)x->nvertex * sizeof(float)) &&
           sameArray(x->triangles, y->triangles, 3 * (size_t)x->ntriangle * sizeof(int)) &&
           sameArray(x->normals, y->normals, 3 * (size_t)x->nnormal * sizeof(float)) &&
           sameArray(x->texCoords, y->texCoords, 2 * (size_t)x->ntexCoord * sizeof(float)) &&
           a[i].hasMaterial == b[i].hasMaterial &&
           sameArray(&a[i].material, &b[i].material, sizeof a[i].material);
  }
  return same;
}

// the child process's parts are the in-process parts, byte for byte
static void testIsolatedEqualsInProcess(void) {
  static const char *files[] = {"tetra_ascii.stl", "cube_binary.stl", "box_mm_zup.dae",
                                "tetra_zup.dae",   "tetra_yup.dae",   "tetra_xup.dae",
                                "nodes.dae",       "textured.obj",    "two_materials.obj"};
  hsmLimits inProcess = {0}, isolated = {0};
  inProcess.meshInProcess = 1;
  for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
    hsmMeshPart *a, *b;
    int na, nb;
    hsError ea = {0}, eb = {0};
    CU_ASSERT_EQUAL_FATAL(readWith(fixture(files[f]), &inProcess, &a, &na, &ea), 0);
    CU_ASSERT_EQUAL_FATAL(readWith(fixture(files[f]), &isolated, &b, &nb, &eb), 0);
    CU_ASSERT_EQUAL_FATAL(na, nb);
    for (int i = 0; i < na; i++) {
      const hsmMesh *x = &a[i].mesh, *y = &b[i].mesh;
      CU_ASSERT_EQUAL(x->nvertex, y->nvertex);
      CU_ASSERT_EQUAL(x->ntriangle, y->ntriangle);
      CU_ASSERT_EQUAL(x->nnormal, y->nnormal);
      CU_ASSERT_EQUAL(x->nnormalIndex, y->nnormalIndex);
      CU_ASSERT_EQUAL(x->normalPerVertex, y->normalPerVertex);
      CU_ASSERT_EQUAL(x->ntexCoord, y->ntexCoord);
      CU_ASSERT_EQUAL(x->ntexCoordIndex, y->ntexCoordIndex);
      CU_ASSERT(sameArray(x->vertices, y->vertices, 3 * (size_t)x->nvertex * sizeof(float)));
      CU_ASSERT(sameArray(x->triangles, y->triangles, 3 * (size_t)x->ntriangle * sizeof(int)));
      CU_ASSERT(sameArray(x->normals, y->normals, 3 * (size_t)x->nnormal * sizeof(float)));
      CU_ASSERT(sameArray(x->normalIndices, y->normalIndices,
                          (size_t)x->nnormalIndex * sizeof(int)));
      CU_ASSERT(sameArray(x->texCoords, y->texCoords, 2 * (size_t)x->ntexCoord * sizeof(float)));
      CU_ASSERT(sameArray(x->texCoordIndices, y->texCoordIndices,
                          (size_t)x->ntexCoordIndex * sizeof(int)));
      CU_ASSERT_EQUAL(a[i].hasMaterial, b[i].hasMaterial);
      CU_ASSERT(sameArray(&a[i].material, &b[i].material, sizeof a[i].material));
      CU_ASSERT((!a[i].texture && !b[i].texture) ||
                (a[i].texture && b[i].texture && strcmp(a[i].texture, b[i].texture) == 0));
    }
    hsm_freeMeshParts(a, na);
    hsm_freeMeshParts(b, nb);
  }
  CU_ASSERT(noChildren());
}

// the cube has 12 triangles: 12 pass, 11 do not, either way of importing
static void testTriangleLimit(void) {
  for (int mode = 0; mode < 2; mode++) {
    hsmLimits lim = {0};
    lim.meshInProcess = mode;
    lim.meshTriangles = 12;
    hsmMeshPart *p;
    int n;
    hsError err = {0};
    CU_ASSERT_EQUAL(readWith(fixture("cube_binary.stl"), &lim, &p, &n, &err), 0);
    hsm_freeMeshParts(p, n);
    lim.meshTriangles = 11;
    expectFailure(fixture("cube_binary.stl"), &lim, hsE_MODEL,
                  "holds more than the limit of 11 triangles", 10);
  }
}

// an import past its time is killed at the limit, and the next import works
static void testTimeLimit(void) {
  char path[1024];
  snprintf(path, sizeof path, "%s/meshlimits/slow.stl", hst_tmpDir());
  hst_writeFile("meshlimits/slow.stl", "");
  const char *big = path;
  {
    // 600000 triangles take a few hundred milliseconds to read and weld
    FILE *f = fopen(big, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char header[80] = "binary STL written by test_meshlimits.c";
    uint32_t n = 600000;
    fwrite(header, 1, sizeof header, f);
    fwrite(&n, sizeof n, 1, f);
    for (uint32_t t = 0; t < n; t++) {
      float x = (float)t * 1e-3f;
      float tri[12] = {0, 0, 1, x, 0, 0, x + 1e-3f, 0, 0, x, 1, 0};
      uint16_t attr = 0;
      fwrite(tri, sizeof tri, 1, f);
      fwrite(&attr, sizeof attr, 1, f);
    }
    fclose(f);
  }
  int fds = openDescriptors();
  hsmLimits lim = {0};
  lim.meshSeconds = 0.02;
  expectFailure(big, &lim, hsE_MODEL, "importing the mesh took longer than the limit of 0.02 s",
                1.5);
  CU_ASSERT(noChildren());
  CU_ASSERT_EQUAL(openDescriptors(), fds);
  // with time enough it loads: 600000 triangles
  lim.meshSeconds = 0;
  hsmMeshPart *p;
  int n;
  hsError err = {0};
  CU_ASSERT_EQUAL(readWith(big, &lim, &p, &n, &err), 0);
  CU_ASSERT_EQUAL(n, 1);
  if (n == 1) {
    CU_ASSERT_EQUAL(p[0].mesh.ntriangle, 600000);
  }
  hsm_freeMeshParts(p, n);
  unlink(big);
}

// tetra_zup.dae asking assimp for 900 million floats, written as name; its path
static const char *writeHugeCollada(const char *name) {
  char text[4096];
  FILE *f = fopen(fixture("tetra_zup.dae"), "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  size_t len = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[len] = 0;
  char *at = strstr(text, "count=\"12\"");
  CU_ASSERT_PTR_NOT_NULL_FATAL(at);
  char big[4200];
  snprintf(big, sizeof big, "%.*scount=\"900000000\"%s", (int)(at - text), text,
           at + strlen("count=\"12\""));
  return hst_writeFile(name, big);
}

// a COLLADA file that asks assimp for 900 million floats: stopped at the memory limit
static void testMemoryLimit(void) {
  const char *bigPath = writeHugeCollada("meshlimits/huge_count.dae");
  hsmLimits lim = {0};
  lim.meshBytes = (size_t)256 << 20;
  int fds = openDescriptors();
  // natively assimp's bad_alloc says "importing the mesh needs more memory than the limit of
  // 256 MiB"; under AddressSanitizer or valgrind the child ends at the failed allocation:
  // "the mesh importer failed on this file (...; perhaps at its memory limit of 256 MiB)"
  expectFailure(bigPath, &lim, hsE_MODEL, "limit of 256 MiB", 20);
  CU_ASSERT(noChildren());
  CU_ASSERT_EQUAL(openDescriptors(), fds);
}

// index lists holding words that are not indices: refused before assimp, with the line
static void testColladaIndexWords(void) {
  char text[4096];
  FILE *f = fopen(fixture("tetra_zup.dae"), "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  size_t len = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[len] = 0;
  const char *p = strstr(text, "<p>");
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  int line = 1;
  for (const char *c = text; c < p; c++) {
    line += *c == '\n';
  }
  static const struct {
    const char *name;
    const char *word;
  } kCases[] = {{"inf.dae", "inf"}, {"nan.dae", "nan"}, {"negative.dae", "-1"},
                {"float.dae", "1.5"}, {"exp.dae", "1e3"}, {"inf_named.xml", "inf"}};
  for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; i++) {
    char bad[4200], name[128], what[160];
    // the first index of the list replaced by the word
    snprintf(bad, sizeof bad, "%.*s<p>%s%s", (int)(p - text), text, kCases[i].word, p + 4);
    snprintf(name, sizeof name, "meshlimits/%s", kCases[i].name);
    snprintf(what, sizeof what, ":%d: <p> holds '%s', which is not a vertex index", line,
             kCases[i].word);
    expectFailure(hst_writeFile(name, bad), NULL, hsE_MODEL, what, 2);
  }
  // a word in <vcount> of a polylist too
  const char *poly =
      "<?xml version=\"1.0\"?>\n<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" "
      "version=\"1.4.1\">\n<library_geometries><geometry id=\"g\"><mesh>\n"
      "<polylist count=\"1\"><vcount>3 nan</vcount><p>0 1 2</p></polylist>\n"
      "</mesh></geometry></library_geometries>\n</COLLADA>\n";
  expectFailure(hst_writeFile("meshlimits/vcount.dae", poly), NULL, hsE_MODEL,
                ":4: <vcount> holds 'nan'", 2);
}

// not a regular file, or too large: refused before anything is imported
static void testFileKinds(void) {
  char fifo[1024], zero[1024];
  hst_writeFile("meshlimits/x", "");
  snprintf(fifo, sizeof fifo, "%s/meshlimits/pipe.stl", hst_tmpDir());
  snprintf(zero, sizeof zero, "%s/meshlimits/zero.dae", hst_tmpDir());
  CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
  CU_ASSERT_EQUAL_FATAL(symlink("/dev/zero", zero), 0);
  expectFailure(fifo, NULL, hsE_IO, "cannot open mesh file: a FIFO, not a regular file", 1);
  expectFailure(zero, NULL, hsE_IO, "cannot open mesh file: a character device, not a regular "
                "file", 1);
  hsmLimits lim = {0};
  lim.maxFileBytes = 100;
  expectFailure(fixture("cube_binary.stl"), &lim, hsE_IO, "over the limit of 100 bytes", 1);
  CU_ASSERT(noChildren());
}

// an OBJ whose material library is a FIFO: assimp, in the child, waits for a writer forever
static const char *writeFifoObj(const char *dir) {
  char sub[256], fifo[1024];
  snprintf(sub, sizeof sub, "%s/x", dir);
  hst_writeFile(sub, "");
  snprintf(fifo, sizeof fifo, "%s/%s/pipe.mtl", hst_tmpDir(), dir);
  unlink(fifo);
  CU_ASSERT_FATAL(mkfifo(fifo, 0600) == 0);
  snprintf(sub, sizeof sub, "%s/fifo.obj", dir);
  return hst_writeFile(sub, "mtllib pipe.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
}

// the blocked child is killed at the limit
static void testBlockedImportTimesOut(void) {
  char path[1024];
  snprintf(path, sizeof path, "%s", writeFifoObj("meshlimits/fifo"));
  hsmLimits lim = {0};
  lim.meshSeconds = 0.3;
  int fds = openDescriptors();
  expectFailure(path, &lim, hsE_MODEL, "took longer than the limit of 0.3 s", 3);
  CU_ASSERT(noChildren());
  CU_ASSERT_EQUAL(openDescriptors(), fds);
}

static void *cancelLater(void *arg) {
  (void)arg;
  struct timespec t = {0, 300 * 1000 * 1000};
  nanosleep(&t, NULL);
  hsm_cancelMeshImports();
  return NULL;
}

// hsm_cancelMeshImports ends a running import at once and refuses later ones (in a forked copy
// of this test process, since a cancel is for good)
static void testCancel(void) {
  char path[1024];
  snprintf(path, sizeof path, "%s", writeFifoObj("meshlimits/cancel"));
  fflush(NULL);
  pid_t pid = fork();
  CU_ASSERT_FATAL(pid >= 0);
  if (pid == 0) {
    // exit status: 0 all as expected, else the number of the check that failed
    pthread_t th;
    pthread_create(&th, NULL, cancelLater, NULL);
    hsmMeshPart *p;
    int n;
    hsError err = {0};
    double t0 = now();
    int rc = readWith(path, NULL, &p, &n, &err);  // the default 60 s limit
    double took = now() - t0;
    pthread_join(th, NULL);
    int bad = rc != hsE_IO                                      ? 1
              : !strstr(err.message, "the mesh import was cancelled") ? 2
              : took > 5                                        ? 3
                                                                : 0;
    hsError err2 = {0};
    rc = bad ? 0 : readWith(fixture("cube_binary.stl"), NULL, &p, &n, &err2);
    bad = bad ? bad : rc != hsE_IO || !strstr(err2.message, "mesh imports are cancelled") ? 4 : 0;
    _exit(bad);
  }
  int status = 0;
  CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
  CU_ASSERT(WIFEXITED(status));
  CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
  // this process still imports
  hsmMeshPart *p;
  int n;
  hsError err = {0};
  CU_ASSERT_EQUAL(readWith(fixture("cube_binary.stl"), NULL, &p, &n, &err), 0);
  hsm_freeMeshParts(p, n);
}

// one importer for a model's files: the good files are served by one child process (the same
// pid), each bad one among them is refused with its own file named (a crash of assimp, the
// memory limit, the time limit), the files after it still load, and nothing is left behind
static void testImporterBadAmongGood(void) {
  char crash[1024], huge[1024], fifo[1024];
  snprintf(huge, sizeof huge, "%s", writeHugeCollada("meshlimits/among/huge.dae"));
  snprintf(crash, sizeof crash, "%s", fixture("assimp_crash.dae"));
  snprintf(fifo, sizeof fifo, "%s", writeFifoObj("meshlimits/among"));
  static const char *good[] = {"cube_binary.stl", "tetra_zup.dae", "textured.obj",
                               "nodes.dae"};
  const struct {
    const char *path;  // NULL: good[k] of the good ones so far
    const char *what;  // what the error says
  } files[] = {{NULL, NULL},  {NULL, NULL},  {crash, "the mesh importer failed on this file"},
               {NULL, NULL},  {huge, "limit of 256 MiB"},
               {fifo, "took longer than the limit of 0.5 s"}, {NULL, NULL}};
  int fds = openDescriptors();
  hsmLimits lim = {0};
  lim.meshBytes = (size_t)256 << 20;
  lim.meshSeconds = 0.5;
  hsmMeshImporter *imp = hsm_makeMeshImporter(&lim, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(imp);
  CU_ASSERT(noChildren());  // no child before the first import
  pid_t server = 0;
  int k = 0;
  double t0 = now();
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    const char *path = files[i].path ? files[i].path : fixture(good[k++]);
    hsmMeshPart *p = NULL, *q = NULL;
    int n = 0, m = 0;
    hsError err = {0};
    int rc = hsm_importMesh(imp, path, NULL, &p, &n, &err);
    if (!files[i].path) {
      CU_ASSERT_EQUAL(rc, 0);
      CU_ASSERT_EQUAL_FATAL(readInProcess(path, &q, &m), 0);
      CU_ASSERT(sameParts(p, n, q, m));
      // served by a child: the same one as the good file before, unless a bad one ended it
      pid_t pid;
      CU_ASSERT_EQUAL(childrenOf(&pid), 1);
      if (i == 1) {
        CU_ASSERT_EQUAL(pid, server);
      }
      server = pid;
    } else {
      int ok = rc == hsE_MODEL && !p && n == 0 && strstr(err.message, path) &&
               strstr(err.message, files[i].what);
      CU_ASSERT(ok);
      if (!ok) {
        fprintf(stderr, "\n  %s: [%d] %s\n", path, rc, err.message);
      }
    }
    if (i == 0) {
      CU_ASSERT_EQUAL(childrenOf(&server), 1);
    }
    hsm_freeMeshParts(p, n);
    hsm_freeMeshParts(q, m);
  }
  CU_ASSERT(now() - t0 < 20);
  hsm_freeMeshImporter(imp);
  hsm_freeMeshImporter(NULL);
  CU_ASSERT(noChildren());
  CU_ASSERT_EQUAL(openDescriptors(), fds);
}

// a cancel ends an importer's idle child too: its next import is refused at once, saying so,
// and freeing it leaves no child (in a forked copy of this test process, as testCancel)
static void testCancelIdleImporter(void) {
  fflush(NULL);
  pid_t pid = fork();
  CU_ASSERT_FATAL(pid >= 0);
  if (pid == 0) {
    // exit status: 0 all as expected, else the number of the check that failed
    hsmMeshImporter *imp = hsm_makeMeshImporter(NULL, NULL);
    hsmMeshPart *p = NULL;
    int n = 0;
    hsError err = {0};
    int bad = !imp ? 1 : hsm_importMesh(imp, fixture("cube_binary.stl"), NULL, &p, &n, &err) ? 2
                                                                                          : 0;
    hsm_freeMeshParts(p, n);
    pid_t child;
    bad = bad ? bad : childrenOf(&child) != 1 ? 3 : 0;
    hsm_cancelMeshImports();
    double t0 = now();
    int rc = bad ? 0 : hsm_importMesh(imp, fixture("tetra_zup.dae"), NULL, &p, &n, &err);
    bad = bad                                   ? bad
          : rc != hsE_IO                        ? 4
          : !strstr(err.message, "cancelled")   ? 5
          : now() - t0 > 2                      ? 6
                                                : 0;
    hsm_freeMeshImporter(imp);
    bad = bad ? bad : !noChildren() ? 7 : 0;
    _exit(bad);
  }
  int status = 0;
  CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
  CU_ASSERT(WIFEXITED(status));
  CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
}

void register_meshlimits(void) {
  CU_pSuite s = hst_addSuite("meshlimits");
  CU_add_test(s, "the child's parts are the in-process parts", testIsolatedEqualsInProcess);
  CU_add_test(s, "triangle limit", testTriangleLimit);
  CU_add_test(s, "time limit: killed, then the next import works", testTimeLimit);
  CU_add_test(s, "memory limit", testMemoryLimit);
  CU_add_test(s, "an import blocked on a FIFO times out", testBlockedImportTimesOut);
  CU_add_test(s, "cancel ends running imports and refuses new ones", testCancel);
  CU_add_test(s, "COLLADA index lists with words that are not indices", testColladaIndexWords);
  CU_add_test(s, "FIFO, /dev/zero link, size limit", testFileKinds);
  CU_add_test(s, "one importer: bad files among good ones", testImporterBadAmongGood);
  CU_add_test(s, "a cancel ends an importer's idle child", testCancelIdleImporter);
}
