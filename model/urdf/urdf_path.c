// urdf_path.c - find the files a URDF names (meshes and textures).
//
// A reference is one of:
//   - package://PKG/REST: the first existing file (not a directory) among, in this order,
//     1. for each directory D of ROS_PACKAGE_PATH (':'-separated, in order): D/REST when D itself
//        is called PKG, then D/PKG/REST, then D/*/PKG/REST (one level of subdirectories, hidden
//        ones skipped; when several match, the subdirectory whose name sorts first wins, so the
//        result does not depend on directory order);
//     2. for each directory D of AMENT_PREFIX_PATH (ROS 2 install spaces): D/share/PKG/REST;
//     3. walking up from the URDF file's directory to '/': for each ancestor A (the directory
//        itself first), A/REST when A is called PKG, then A/PKG/REST. So an unpacked
//        description package (PKG/urdf/robot.urdf beside PKG/meshes/...) or a workspace that
//        holds PKG loads as is, with or without a ROS environment;
//   - package:///REST (no package name, as a widely used collection of robot descriptions
//     writes them): read as pinocchio reads it, REST under each package root: for each D of
//     ROS_PACKAGE_PATH D/REST, for each D of AMENT_PREFIX_PATH D/share/REST, then for each
//     ancestor A of the URDF file's directory (itself first) A/REST. The callers warn;
//   - file://PATH (file://localhost/PATH too; %XX escapes decoded): PATH, relative to the URDF
//     file's directory when it is not absolute;
//   - any other text without a URL scheme: a path, relative to the URDF file's directory unless
//     absolute.
// Other schemes (http://, ...) are refused. A found file is returned as its canonical absolute
// path; when nothing is found the caller gets every candidate tried (a D/*/PKG/REST search is
// listed as that pattern) to put in its error or warning.

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "urdf_private.h"

typedef struct Search {
  char *tried;   // "; "-separated candidates
  size_t size;
  size_t used;
  int found;
  char hit[PATH_MAX];
} Search;

// remember a candidate in the tried list (cut with "..." when the list is full)
static void note(Search *s, const char *candidate) {
  if (!s->tried || s->size == 0) {
    return;
  }
  size_t room = s->size - s->used;
  int n = snprintf(s->tried + s->used, room, "%s%s", s->used ? "; " : "", candidate);
  if (n < 0 || (size_t)n >= room) {
    if (s->size >= 4) {
      strcpy(s->tried + s->size - 4, "...");
    }
    s->used = s->size - 1;
  } else {
    s->used += (size_t)n;
  }
}

// a candidate exists unless it is missing or a directory (a FIFO or device is found, so that
// its reader refuses it by name rather than the search calling it missing)
static int isFile(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

// try the file fmt... names; 1 if it exists (and s->hit holds it)
static int tryPath(Search *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int tryPath(Search *s, const char *fmt, ...) {
  char path[PATH_MAX];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(path, sizeof path, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof path) {
    return 0;
  }
  note(s, path);
  if (isFile(path)) {
    memcpy(s->hit, path, (size_t)n + 1);
    s->found = 1;
  }
  return s->found;
}

// the last component of a directory path (without trailing slashes) as [*start, +len)
static void lastComponent(const char *dir, size_t dirLen, const char **start, size_t *len) {
  size_t end = dirLen;
  while (end > 1 && dir[end - 1] == '/') {
    end--;
  }
  size_t begin = end;
  while (begin > 0 && dir[begin - 1] != '/') {
    begin--;
  }
  *start = dir + begin;
  *len = end - begin;
}

static int componentIs(const char *dir, size_t dirLen, const char *pkg) {
  const char *c;
  size_t n;
  lastComponent(dir, dirLen, &c, &n);
  return n == strlen(pkg) && strncmp(c, pkg, n) == 0;
}

// D/*/PKG/REST: the first subdirectory (by name) of dir that holds the file
static int trySubdirs(Search *s, const char *dir, int dirLen, const char *pkg, const char *rest) {
  char pattern[PATH_MAX];
  snprintf(pattern, sizeof pattern, "%.*s/*/%s/%s", dirLen, dir, pkg, rest);
  note(s, pattern);
  char path[PATH_MAX];
  if (snprintf(path, sizeof path, "%.*s", dirLen, dir) >= (int)sizeof path) {
    return 0;
  }
  DIR *d = opendir(path);
  if (!d) {
    return 0;
  }
  char best[NAME_MAX + 1] = "";
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.' || (best[0] && strcmp(e->d_name, best) >= 0)) {
      continue;
    }
    int n = snprintf(path, sizeof path, "%.*s/%s/%s/%s", dirLen, dir, e->d_name, pkg, rest);
    if (n > 0 && (size_t)n < sizeof path && isFile(path)) {
      snprintf(best, sizeof best, "%s", e->d_name);
    }
  }
  closedir(d);
  if (best[0]) {
    snprintf(s->hit, sizeof s->hit, "%.*s/%s/%s/%s", dirLen, dir, best, pkg, rest);
    s->found = 1;
  }
  return s->found;
}

// the package search of the file comment; pkg NULL for package:///REST (REST under each root)
static void findInPackage(Search *s, const char *pkg, const char *rest, const char *urdfFile) {
  // 1. ROS_PACKAGE_PATH
  const char *rpp = getenv("ROS_PACKAGE_PATH");
  for (const char *p = rpp; p && *p && !s->found;) {
    const char *colon = strchr(p, ':');
    int len = (int)(colon ? (size_t)(colon - p) : strlen(p));
    while (len > 1 && p[len - 1] == '/') {
      len--;
    }
    if (len > 0 && !pkg && tryPath(s, "%.*s/%s", len, p, rest)) {
      break;
    }
    if (len > 0 && pkg &&
        ((componentIs(p, (size_t)len, pkg) && tryPath(s, "%.*s/%s", len, p, rest)) ||
         tryPath(s, "%.*s/%s/%s", len, p, pkg, rest) || trySubdirs(s, p, len, pkg, rest))) {
      break;
    }
    p = colon ? colon + 1 : p + strlen(p);
  }
  // 2. AMENT_PREFIX_PATH
  const char *app = getenv("AMENT_PREFIX_PATH");
  for (const char *p = app; p && *p && !s->found;) {
    const char *colon = strchr(p, ':');
    int len = (int)(colon ? (size_t)(colon - p) : strlen(p));
    while (len > 1 && p[len - 1] == '/') {
      len--;
    }
    if (len > 0 && tryPath(s, "%.*s/share/%s%s%s", len, p, pkg ? pkg : "", pkg ? "/" : "",
                           rest)) {
      break;
    }
    p = colon ? colon + 1 : p + strlen(p);
  }
  // 3. the URDF file's ancestors
  const char *slash = strrchr(urdfFile, '/');
  int len = slash ? (int)(slash - urdfFile) : 0;
  while (!s->found && slash) {
    if (len == 0) {
      // the root directory
      tryPath(s, "/%s%s%s", pkg ? pkg : "", pkg ? "/" : "", rest);
      break;
    }
    if (!pkg && tryPath(s, "%.*s/%s", len, urdfFile, rest)) {
      break;
    }
    if (pkg &&
        ((componentIs(urdfFile, (size_t)len, pkg) && tryPath(s, "%.*s/%s", len, urdfFile, rest)) ||
         tryPath(s, "%.*s/%s/%s", len, urdfFile, pkg, rest))) {
      break;
    }
    while (len > 0 && urdfFile[len - 1] != '/') {
      len--;
    }
    while (len > 0 && urdfFile[len - 1] == '/') {
      len--;
    }
  }
}

// a path absolute or relative to the URDF file's directory
static void findPath(Search *s, const char *path, const char *urdfFile) {
  if (path[0] == '/') {
    tryPath(s, "%s", path);
    return;
  }
  const char *slash = strrchr(urdfFile, '/');
  int dirLen = slash ? (int)(slash - urdfFile) : 0;
  if (slash) {
    tryPath(s, "%.*s/%s", dirLen, urdfFile, path);
  } else {
    tryPath(s, "%s", path);
  }
}

int hsm_urdfResolvePath(const char *ref, const char *urdfFile, char **found, char *tried,
                        size_t size) {
  *found = NULL;
  if (tried && size) {
    tried[0] = 0;
  }
  Search *s = hsu_malloc(sizeof *s);
  if (!s) {
    return hsE_NOMEM;
  }
  memset(s, 0, sizeof *s);
  s->tried = tried, s->size = size;
  int rc = 0;
  if (strncmp(ref, "package://", 10) == 0) {
    const char *pkg = ref + 10, *slash = strchr(pkg, '/');
    char name[NAME_MAX + 1];
    int n = slash ? (int)(slash - pkg) : 0;
    if (pkg[0] == '/') {
      // package:///REST: no package name
      const char *rest = pkg + strspn(pkg, "/");
      if (!*rest) {
        rc = hsE_MODEL;
      } else {
        findInPackage(s, NULL, rest, urdfFile);
      }
    } else if (n == 0 || n > NAME_MAX || !slash[1]) {
      rc = hsE_MODEL;
    } else {
      snprintf(name, sizeof name, "%.*s", n, pkg);
      if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
        rc = hsE_MODEL;
      } else {
        findInPackage(s, name, slash + 1, urdfFile);
      }
    }
  } else {
    // file:// or a plain path; another URL scheme is refused
    char path[PATH_MAX];
    if (hsu_urlToPath(ref, path, sizeof path) > 0) {
      rc = hsE_UNSUPPORTED;
    } else {
      findPath(s, path, urdfFile);  // a cut path is looked for as it is
    }
  }
  if (!rc && s->found) {
    char canon[PATH_MAX];
    *found = hsu_strdup(realpath(s->hit, canon) ? canon : s->hit);
    rc = *found ? 0 : hsE_NOMEM;
  } else if (!rc) {
    rc = 1;
  }
  hsu_free(s);
  return rc;
}
