// test_file.c - hsu_readFile / hsu_checkFile (regular files only, size limit, never blocking)
// and hsu_urlToPath (file:// URLs, plain paths, other schemes).

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "test_support.h"
#include "util.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// a path under the run's temporary directory
static const char *tmpPath(const char *name, char *buf, size_t size) {
  snprintf(buf, size, "%s/%s", hst_tmpDir(), name);
  return buf;
}

static void testReadsRegularFile(void) {
  const char *path = hst_writeFile("file/plain.txt", "hello\nworld\n");
  char *text = NULL;
  size_t len = 0;
  hsError err = {0};
  CU_ASSERT_EQUAL_FATAL(hsu_readFile(path, 0, &text, &len, &err), 0);
  CU_ASSERT_EQUAL(len, 12);
  CU_ASSERT_STRING_EQUAL(text, "hello\nworld\n");
  hsu_free(text);
  // an empty file is a zero-length text
  path = hst_writeFile("file/empty.txt", "");
  CU_ASSERT_EQUAL_FATAL(hsu_readFile(path, 0, &text, &len, &err), 0);
  CU_ASSERT_EQUAL(len, 0);
  CU_ASSERT_STRING_EQUAL(text, "");
  hsu_free(text);
  // exactly at the limit is fine; one byte over is refused before reading
  path = hst_writeFile("file/ten.txt", "0123456789");
  CU_ASSERT_EQUAL(hsu_readFile(path, 10, &text, &len, &err), 0);
  CU_ASSERT_EQUAL(len, 10);
  hsu_free(text);
  text = (char *)1;
  CU_ASSERT_EQUAL(hsu_readFile(path, 9, &text, &len, &err), hsE_IO);
  CU_ASSERT_PTR_NULL(text);
  CU_ASSERT_STRING_EQUAL(err.file, path);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "cannot read '"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "10 bytes, over the limit of 9 bytes") ||
                         strstr(err.message, "larger than the limit of 9 bytes"));
  CU_ASSERT_EQUAL(hsu_checkFile(path, 10, NULL), 0);
  CU_ASSERT_EQUAL(hsu_checkFile(path, 9, NULL), hsE_IO);
}

// a regular file whose size reads as 0 but that has content (/proc) stops at the limit
static void testProcFileBounded(void) {
  char *text = NULL;
  size_t len = 0;
  int sysErr = 0;
  // /proc/self/maps of this process is several hundred bytes at least
  CU_ASSERT_EQUAL(hsu_readFileErrno("/proc/self/maps", 64, &text, &len, &sysErr), hsE_IO);
  CU_ASSERT_EQUAL(sysErr, EFBIG);
  CU_ASSERT_PTR_NULL(text);
  CU_ASSERT_EQUAL(hsu_readFileErrno("/proc/self/maps", 1 << 20, &text, &len, &sysErr), 0);
  CU_ASSERT(len > 64 && strlen(text) == len);
  hsu_free(text);
}

// everything that is not a regular file is refused at once, with its kind in the message
static void testRefusesOtherKinds(void) {
  char fifo[1024], link[1024], sock[1024], dirLink[1024];
  tmpPath("file/pipe.urdf", fifo, sizeof fifo);
  hst_writeFile("file/x", "");
  CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
  tmpPath("file/zero.urdf", link, sizeof link);
  CU_ASSERT_EQUAL_FATAL(symlink("/dev/zero", link), 0);
  tmpPath("file/dir.wrl", dirLink, sizeof dirLink);
  CU_ASSERT_EQUAL_FATAL(mkdir(dirLink, 0700), 0);
  tmpPath("file/sock.stl", sock, sizeof sock);
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  int bound = strlen(sock) < sizeof addr.sun_path;
  if (bound) {
    memcpy(addr.sun_path, sock, strlen(sock) + 1);
    bound = bind(s, (struct sockaddr *)&addr, sizeof addr) == 0;
  }
  static const struct {
    const char *path;
    const char *kind;
  } kCases[] = {{NULL, "a FIFO, not a regular file"},
                {NULL, "a character device, not a regular file"},
                {NULL, "a directory, not a regular file"},
                {"/dev/null", "a character device, not a regular file"},
                {NULL, "a socket, not a regular file"}};
  const char *paths[5] = {fifo, link, dirLink, "/dev/null", sock};
  for (int i = 0; i < 5; i++) {
    if (i == 4 && !bound) {
      continue;  // a temporary path too long for a socket name
    }
    char *text = NULL;
    size_t len = 0;
    hsError err = {0};
    double t0 = now();
    CU_ASSERT_EQUAL(hsu_readFile(paths[i], 0, &text, &len, &err), hsE_IO);
    CU_ASSERT(now() - t0 < 1.0);  // a FIFO without a writer must not block
    CU_ASSERT_PTR_NULL(text);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, kCases[i].kind));
    if (!strstr(err.message, kCases[i].kind)) {
      fprintf(stderr, "\n  %s: %s\n", paths[i], err.message);
    }
    hsError err2 = {0};
    CU_ASSERT_EQUAL(hsu_checkFile(paths[i], 0, &err2), hsE_IO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err2.message, kCases[i].kind));
  }
  close(s);
  // a missing file says so
  hsError err = {0};
  char *text = NULL;
  size_t len = 0;
  char missing[1024];
  CU_ASSERT_EQUAL(hsu_readFile(tmpPath("file/none.wrl", missing, sizeof missing), 0, &text,
                               &len, &err), hsE_IO);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "No such file or directory"));
  // hsu_fileProblem words the errno variant's reasons
  char why[200];
  CU_ASSERT_STRING_EQUAL(hsu_fileProblem(fifo, 0, EINVAL, why, sizeof why),
                         "a FIFO, not a regular file");
  CU_ASSERT_STRING_EQUAL(hsu_fileProblem(fifo, 100, EFBIG, why, sizeof why),
                         "larger than the limit of 100 bytes");
}

// hsu_setFileRoots: only files whose real path is under a root are read (links resolved)
static void testFileRoots(void) {
  char root[4200], inside[4200], outside[4200], link[4200], up[4200];
  snprintf(inside, sizeof inside, "%s", hst_writeFile("roots/root/in.txt", "inside\n"));
  snprintf(outside, sizeof outside, "%s", hst_writeFile("roots/out.txt", "outside\n"));
  tmpPath("roots/root", root, sizeof root);
  tmpPath("roots/root/link.txt", link, sizeof link);
  tmpPath("roots/root/../out.txt", up, sizeof up);
  unlink(link);
  CU_ASSERT_EQUAL_FATAL(symlink(outside, link), 0);
  const char *roots[] = {root};
  CU_ASSERT_EQUAL_FATAL(hsu_setFileRoots(roots, 1, NULL), 0);
  char *text = NULL;
  size_t len = 0;
  hsError err = {0};
  CU_ASSERT_EQUAL(hsu_readFile(inside, 0, &text, &len, &err), 0);
  hsu_free(text);
  const char *refused[] = {outside, link, up};
  for (int i = 0; i < 3; i++) {
    hsError e = {0};
    text = NULL;
    CU_ASSERT_EQUAL(hsu_readFile(refused[i], 0, &text, &len, &e), hsE_IO);
    CU_ASSERT_PTR_NULL(text);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.message, "outside the model roots"));
    CU_ASSERT_EQUAL(hsu_checkFile(refused[i], 0, NULL), hsE_IO);
    CU_ASSERT_PTR_NULL(hsu_openFile(refused[i], 0, NULL));
  }
  // a root that does not resolve is refused and leaves the roots as they were
  const char *bad[] = {"/no/such/root/dir"};
  hsError e = {0};
  CU_ASSERT_EQUAL(hsu_setFileRoots(bad, 1, &e), hsE_INVALID);
  CU_ASSERT_EQUAL(hsu_checkFile(outside, 0, NULL), hsE_IO);
  // no roots: no confinement
  CU_ASSERT_EQUAL(hsu_setFileRoots(NULL, 0, NULL), 0);
  CU_ASSERT_EQUAL(hsu_checkFile(outside, 0, NULL), 0);
  CU_ASSERT_EQUAL(hsu_checkFile(link, 0, NULL), 0);
}

static void testUrlToPath(void) {
  static const struct {
    const char *ref;
    int rc;
    const char *path;
  } kCases[] = {
      {"/abs/robot.wrl", 0, "/abs/robot.wrl"},
      {"rel/robot.wrl", 0, "rel/robot.wrl"},
      {"file:///abs/my%20robot.wrl", 0, "/abs/my robot.wrl"},
      {"file://localhost/abs/r.urdf", 0, "/abs/r.urdf"},
      {"FILE://LOCALHOST/abs/r.urdf", 0, "/abs/r.urdf"},
      {"file:/abs/r.urdf", 0, "/abs/r.urdf"},
      {"file://meshes/a.stl", 0, "meshes/a.stl"},
      {"C:/models/r.wrl", 0, "C:/models/r.wrl"},
      {"http://example.com/r.wrl", 1, NULL},
      {"package://pkg/meshes/a.stl", 1, NULL},
      {"urn:x-openhrp:thing", 1, NULL},
      {"model+v2:thing", 1, NULL},
  };
  for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; i++) {
    char out[256] = "untouched";
    int rc = hsu_urlToPath(kCases[i].ref, out, sizeof out);
    CU_ASSERT_EQUAL(rc, kCases[i].rc);
    CU_ASSERT_STRING_EQUAL(out, kCases[i].path ? kCases[i].path : "untouched");
  }
  // too long: cut, -1
  char small[8];
  CU_ASSERT_EQUAL(hsu_urlToPath("/a/very/long/path", small, sizeof small), -1);
  CU_ASSERT_STRING_EQUAL(small, "/a/very");
  CU_ASSERT_EQUAL(hsu_urlToPath("file:///a/very/long", small, sizeof small), -1);
  // the file-URL-only variant leaves plain paths alone
  char out[64] = "untouched";
  CU_ASSERT_EQUAL(hsu_fileUrlToPath("/plain", out, sizeof out), 1);
  CU_ASSERT_STRING_EQUAL(out, "untouched");
  CU_ASSERT_EQUAL(hsu_fileUrlToPath("file:///x%41", out, sizeof out), 0);
  CU_ASSERT_STRING_EQUAL(out, "/xA");
}

void register_file(void) {
  CU_pSuite s = hst_addSuite("util_file");
  CU_add_test(s, "regular files, empty, at and over the limit", testReadsRegularFile);
  CU_add_test(s, "a /proc file stops at the limit", testProcFileBounded);
  CU_add_test(s, "FIFO, device link, directory, socket refused at once", testRefusesOtherKinds);
  CU_add_test(s, "file:// URLs, paths and other schemes", testUrlToPath);
  CU_add_test(s, "model roots confine every read", testFileRoots);
}
