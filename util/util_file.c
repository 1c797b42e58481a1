// util_file.c - read a model file whole, safely (see util.h).
//
// The file is opened with O_NONBLOCK, so opening a FIFO returns at once instead of waiting for
// a writer; fstat on the open descriptor (not on the name, which could change between the two)
// then refuses anything but a regular file: FIFOs, sockets, character and block devices
// (/dev/zero, /dev/stdin), directories. A symbolic link is followed to what it names, so a
// link to /dev/zero is a device and is refused. The size is checked against the limit before
// anything is allocated, and the reading loop stops at the limit too, so a file that grows
// while it is read (or a regular file in /proc, whose size reads as 0) cannot make the buffer
// grow past it.

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

// the kind of a non-regular file, for messages
static const char *kindOf(mode_t mode) {
  return S_ISDIR(mode)    ? "a directory"
         : S_ISFIFO(mode) ? "a FIFO"
         : S_ISSOCK(mode) ? "a socket"
         : S_ISCHR(mode)  ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
                          : "not a regular file";
}

// the directories files must be under (hsu_setFileRoots), real paths; none: no confinement
static char **g_roots;
static int g_nroots;

int hsu_setFileRoots(const char *const *roots, int n, hsError *err) {
  char **copy = n > 0 ? hsu_calloc((size_t)n, sizeof *copy) : NULL;
  if (n > 0 && !copy) {
    return HS_ERR(err, hsE_NOMEM, "out of memory for the model roots");
  }
  for (int i = 0; i < n; i++) {
    char real[PATH_MAX];
    if (!realpath(roots[i], real) || !(copy[i] = hsu_strdup(real))) {
      int e = errno;
      for (int j = 0; j < i; j++) {
        hsu_free(copy[j]);
      }
      hsu_free(copy);
      return HS_ERR(err, hsE_INVALID, "model root '%s': %s", roots[i], strerror(e));
    }
  }
  for (int i = 0; i < g_nroots; i++) {
    hsu_free(g_roots[i]);
  }
  hsu_free(g_roots);
  g_roots = copy;
  g_nroots = n > 0 ? n : 0;
  return 0;
}

// 1 if the file open as fd lies under one of the roots (or there are none)
static int underRoots(int fd) {
  if (g_nroots == 0) {
    return 1;
  }
  char link[64], real[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, real, sizeof real - 1);
  if (n <= 0) {
    return 0;
  }
  real[n] = 0;
  for (int i = 0; i < g_nroots; i++) {
    size_t len = strlen(g_roots[i]);
    if (strcmp(g_roots[i], "/") == 0 ||
        (strncmp(real, g_roots[i], len) == 0 && (real[len] == '/' || real[len] == 0))) {
      return 1;
    }
  }
  return 0;
}

// open path for reading if it is a regular file of at most max bytes (and under the roots);
// the descriptor or -1 with *sysErr, and why in why[size]
static int openRegular(const char *path, size_t max, struct stat *st, int *sysErr, char *why,
                       size_t size) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    // a socket cannot be opened at all: name its kind rather than ENXIO
    int e = errno;
    if (stat(path, st) == 0 && !S_ISREG(st->st_mode)) {
      *sysErr = S_ISDIR(st->st_mode) ? EISDIR : EINVAL;
      snprintf(why, size, "%s, not a regular file", kindOf(st->st_mode));
    } else {
      *sysErr = e;
      snprintf(why, size, "%s", strerror(e));
    }
    return -1;
  }
  if (fstat(fd, st) != 0) {
    *sysErr = errno;
    snprintf(why, size, "%s", strerror(errno));
    close(fd);
    return -1;
  }
  if (!S_ISREG(st->st_mode)) {
    *sysErr = S_ISDIR(st->st_mode) ? EISDIR : EINVAL;
    snprintf(why, size, "%s, not a regular file", kindOf(st->st_mode));
    close(fd);
    return -1;
  }
  if (!underRoots(fd)) {
    *sysErr = EPERM;
    snprintf(why, size, "outside the model roots");
    close(fd);
    return -1;
  }
  if ((unsigned long long)st->st_size > (unsigned long long)max) {
    *sysErr = EFBIG;
    snprintf(why, size, "%lld bytes, over the limit of %zu bytes", (long long)st->st_size, max);
    close(fd);
    return -1;
  }
  // regular files never block; clear the flag anyway so reads behave as usual
  int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) {
    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  }
  return fd;
}

static size_t limitOf(size_t maxBytes) {
  return maxBytes ? maxBytes : HSU_DEFAULT_MAX_FILE_BYTES;
}

// read one more byte of fd: 1 if there is one, 0 at the end, -1 on error (errno)
static int oneMore(int fd) {
  char extra;
  ssize_t got;
  do {
    got = read(fd, &extra, 1);
  } while (got < 0 && errno == EINTR);
  return got > 0 ? 1 : (int)got;
}

int hsu_readFileErrno(const char *path, size_t maxBytes, char **text, size_t *len, int *sysErr) {
  char why[160];
  size_t max = limitOf(maxBytes);
  struct stat st;
  *text = NULL;
  *len = 0;
  int fd = openRegular(path, max, &st, sysErr, why, sizeof why);
  if (fd < 0) {
    return hsE_IO;
  }
  // room for the size fstat gave and the NUL, grown up to max + 1 if the file is longer
  size_t cap = (size_t)st.st_size + 1, n = 0;
  char *buf = hsu_malloc(cap);
  int rc = buf ? 0 : hsE_NOMEM;
  while (!rc) {
    if (n + 1 == cap) {
      if (n >= max) {
        // full at the limit: one more byte makes the file too large
        int more = oneMore(fd);
        if (more != 0) {
          *sysErr = more > 0 ? EFBIG : errno;
          rc = hsE_IO;
        }
        break;
      }
      size_t bigger = cap - 1 < max / 2 ? 2 * cap : max + 1;
      char *p = hsu_realloc(buf, bigger);
      if (!p) {
        rc = hsE_NOMEM;
        break;
      }
      buf = p, cap = bigger;
    }
    ssize_t got = read(fd, buf + n, cap - 1 - n);
    if (got < 0 && errno != EINTR) {
      *sysErr = errno;
      rc = hsE_IO;
    } else if (got == 0) {
      break;
    } else if (got > 0) {
      n += (size_t)got;
    }
  }
  close(fd);
  if (rc) {
    hsu_free(buf);
    return rc;
  }
  buf[n] = 0;
  *text = buf;
  *len = n;
  return 0;
}

int hsu_readFile(const char *path, size_t maxBytes, char **text, size_t *len, hsError *err) {
  size_t max = limitOf(maxBytes);
  int sysErr = 0;
  int rc = hsu_readFileErrno(path, maxBytes, text, len, &sysErr);
  if (rc == hsE_NOMEM) {
    return HS_ERR_AT(err, hsE_NOMEM, path, 0, 0, "out of memory reading '%s'", path);
  }
  if (rc) {
    char why[200];
    hsu_fileProblem(path, max, sysErr, why, sizeof why);
    return HS_ERR_AT(err, hsE_IO, path, 0, 0, "cannot read '%s': %s", path, why);
  }
  return 0;
}

FILE *hsu_openFile(const char *path, size_t maxBytes, hsError *err) {
  size_t max = limitOf(maxBytes);
  struct stat st;
  int sysErr = 0;
  char why[160];
  int fd = openRegular(path, max, &st, &sysErr, why, sizeof why);
  if (fd < 0) {
    HS_ERR_AT(err, hsE_IO, path, 0, 0, "cannot read '%s': %s", path, why);
    return NULL;
  }
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    HS_ERR_AT(err, hsE_IO, path, 0, 0, "cannot read '%s': %s", path, strerror(errno));
    close(fd);
  }
  return f;
}

int hsu_checkFile(const char *path, size_t maxBytes, hsError *err) {
  size_t max = limitOf(maxBytes);
  struct stat st;
  int sysErr = 0;
  char why[160];
  int fd = openRegular(path, max, &st, &sysErr, why, sizeof why);
  if (fd < 0) {
    return HS_ERR_AT(err, hsE_IO, path, 0, 0, "cannot read '%s': %s", path, why);
  }
  close(fd);
  return 0;
}

char *hsu_fileProblem(const char *path, size_t maxBytes, int sysErr, char *buf, size_t size) {
  size_t max = limitOf(maxBytes);
  struct stat st;
  if (sysErr == EFBIG) {
    snprintf(buf, size, "larger than the limit of %zu bytes", max);
  } else if (sysErr == EPERM && g_nroots > 0) {
    snprintf(buf, size, "outside the model roots");
  } else if (sysErr == EINVAL && stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    snprintf(buf, size, "%s, not a regular file", kindOf(st.st_mode));
  } else if (sysErr == EISDIR) {
    snprintf(buf, size, "a directory, not a regular file");
  } else {
    snprintf(buf, size, "%s", strerror(sysErr));
  }
  return buf;
}
