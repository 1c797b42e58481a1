// mesh_import.c - read mesh files (STL, COLLADA, OBJ, ...) through assimp's C API into
// hsmMeshPart arrays (see mesh_import.h).
//
// assimp imports the file with aiProcess_Triangulate and aiProcess_SortByPType, and drops point
// and line primitives (AI_CONFIG_PP_SBP_REMOVE). We then walk the scene's node tree, multiplying
// node transforms, and emit one part for every mesh reference of every node (a mesh used by two
// nodes gives two parts), in depth-first order, a node's own meshes before its children's.
// Triangles with two corners at the same position are left out; a mesh left without triangles
// gives no part, and a file without any is an error.
//
// Frames and units. assimp 5.2.5's COLLADA importer bakes the file's <unit> scale and a rotation
// to y-up into the root node's transform (nothing for Y_UP; for Z_UP (x, y, z) -> (x, z, -y);
// for X_UP (x, y, z) -> (-y, x, z)). So every COLLADA scene comes out y-up in metres, and we
// premultiply one fixed rotation, y-up to z-up ((x, y, z) -> (x, -z, y)): a Z_UP file gets back
// exactly its authored coordinates, a Y_UP file gets its +y turned to +z, and <unit> stays
// applied. Other formats are taken as authored, in metres. The caller's scale comes last (NULL
// means 1, 1, 1); when the whole transform of a part mirrors (negative determinant) its
// triangles are flipped so they still run counter-clockwise seen from outside.
//
// Attributes. The file's normals are kept (turned by the inverse transpose, renormalised), none
// are made up; a part with a zero or non-finite normal gets none, for the caller to generate.
// Texture coordinates come from channel 0. Materials are mapped to VRML's as readMaterial() says;
// the diffuse texture's path is made absolute against the mesh file's directory.
//
// Sharing. Vertices are welded per part by exact (bit-for-bit) position, and normals and
// texture coordinates separately by exact value, each with its own per-corner index list, so an
// STL cube comes out with 8 vertices and 6 normals. We do not use aiProcess_JoinIdenticalVertices:
// it compares normals too, so it cannot share STL corners that carry different facet normals,
// and it took 7 s on a 1-million-triangle STL whose whole read takes 0.45 s this way.
//
// Limits (hsmLimits). A mesh file must be a regular file within the size limit. A COLLADA file's
// index lists (<p>, <v>, <vcount>, <h>) are checked for anything but non-negative integers first,
// because assimp 5.2 loops without end, growing, on a word like "inf" there. Then, by default, the
// import and conversion run in a child process (fork) that serves the imports of one
// hsmMeshImporter (a model load) one after another over a socket pair; hsm_readMeshFile is an
// importer of one file. The child's address space is capped at what it maps at the fork plus the
// memory limit (setrlimit RLIMIT_AS; assimp then fails with bad_alloc, or the child dies); its
// CPU time at what it has used plus the time limit plus 1 s, set again for each import (a
// backstop); and the parent waits for each answer no longer than the time limit from its request,
// then kills the child (SIGKILL). The child writes each file's converted parts as one
// length-prefixed frame; the parent checks every count, index and number of it before it builds
// the parts, so whatever assimp did in the child, the caller gets valid parts or a clear error
// naming the file and the limit. A file with more triangles than the limit is refused while it is
// converted. A child that timed out, died or sent a broken answer is gone, and the next import
// starts a fresh one. A file that kills a child which had served earlier files, or runs it out of
// memory, is tried again in a fresh child before it is refused (fragments the earlier imports left
// might have been to blame), so a file is refused exactly when it would be alone. A fork costs
// about 10 ms in a large process (the dog of dm_control has 162 mesh files), so one child per load
// matters; limits.meshInProcess = 1 imports in the calling process instead, unbounded in time and
// memory. hsm_cancelMeshImports kills the running children and makes every later import fail at
// once, so a server that is asked to stop never waits on one. The child keeps only the standard
// streams and its socket open, resets the signals a server catches to their defaults, and leaves
// through _exit when its importer closes the socket.
//
// Threads. Each import has its own assimp importer and property store, but assimp's C API keeps
// the last error message in one unguarded global string, written by any failing import; so
// imports (and the copy of that message) are serialised by a process-wide mutex within a
// process. Imports in child processes run in parallel.

// close_range
#define _GNU_SOURCE
#include <assimp/cimport.h>
#include <assimp/commonMetaData.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mesh_import.h"

#if defined(__SANITIZE_ADDRESS__)
// an import that runs out of its memory limit under AddressSanitizer dies with a report; in the
// child that report is expected, not a finding, so it goes nowhere
#include <sanitizer/common_interface_defs.h>
#define SILENCE_SANITIZER_REPORTS() __sanitizer_set_report_path("/dev/null")
#else
#define SILENCE_SANITIZER_REPORTS() ((void)0)
#endif

// assimp imports run one at a time (see the file comment)
static pthread_mutex_t g_importLock = PTHREAD_MUTEX_INITIALIZER;

// the import processes running now, and whether imports are cancelled for good (a server
// shutting down): guarded by g_childLock
enum { kMaxChildren = 256 };
static pthread_mutex_t g_childLock = PTHREAD_MUTEX_INITIALIZER;
static pid_t g_children[kMaxChildren];
static int g_nchildren;
static int g_cancelled;

// values of VRML's Material node, used where the file gives none
static const hsMaterial kVrmlMaterial = {0.2f, {0.8f, 0.8f, 0.8f}, {0, 0, 0}, 0.2f, {0, 0, 0}, 0};

// a hash table entry: index of a welded value (-1: empty) and the value's hash
typedef struct Slot {
  int index;
  uint32_t hash;
} Slot;

// one file being converted
typedef struct Reader {
  const char *path;
  const struct aiScene *scene;
  hsuVec parts;  // hsmMeshPart
  // scratch of weld(), shared by the parts: per source vertex the index of its value, and an
  // open-addressing hash table of the values
  int *remap;
  size_t nremap;
  Slot *slots;
  size_t nslot;
  long triangles;      // triangles emitted so far
  long maxTriangles;   // the limit on them
  hsError *err;
} Reader;

// deepest node nesting of a scene we walk (assimp's own scenes are a few levels deep)
#define MAX_NODE_DEPTH 1000

// the value of source vertex v of mesh under M, dim floats into out; 0 if unusable
typedef int (*ValueFn)(float *out, const struct aiMesh *mesh, unsigned v, const double M[12]);

//---------------------------------- transforms ------------------------------------------------

// 3x4 [A t] from assimp's row-major 4x4 (column vectors, translation in the 4th column)
static void fromAiMatrix(double T[12], const struct aiMatrix4x4 *m) {
  const double rows[12] = {m->a1, m->a2, m->a3, m->a4, m->b1, m->b2, m->b3, m->b4,
                           m->c1, m->c2, m->c3, m->c4};
  memcpy(T, rows, sizeof rows);
}

// determinant of the 3x3 part of T
static double det3(const double T[12]) {
  return T[0] * (T[5] * T[10] - T[6] * T[9]) - T[1] * (T[4] * T[10] - T[6] * T[8]) +
         T[2] * (T[4] * T[9] - T[5] * T[8]);
}

// N = inverse transpose of the 3x3 part of T (3x4 with zero translation); 0 if singular
static int normalMatrix(double N[12], const double T[12]) {
  double d = det3(T);
  memset(N, 0, 12 * sizeof *N);
  if (!isfinite(d) || fabs(d) < 1e-300) {
    return 0;
  }
  // cofactors of the 3x3 part, divided by the determinant
  N[0] = (T[5] * T[10] - T[6] * T[9]) / d;
  N[1] = (T[6] * T[8] - T[4] * T[10]) / d;
  N[2] = (T[4] * T[9] - T[5] * T[8]) / d;
  N[4] = (T[2] * T[9] - T[1] * T[10]) / d;
  N[5] = (T[0] * T[10] - T[2] * T[8]) / d;
  N[6] = (T[1] * T[8] - T[0] * T[9]) / d;
  N[8] = (T[1] * T[6] - T[2] * T[5]) / d;
  N[9] = (T[2] * T[4] - T[0] * T[6]) / d;
  N[10] = (T[0] * T[5] - T[1] * T[4]) / d;
  return 1;
}

// position of vertex v under T
static int positionOf(float *out, const struct aiMesh *mesh, unsigned v, const double T[12]) {
  const struct aiVector3D *p = &mesh->mVertices[v];
  double src[3] = {p->x, p->y, p->z}, dst[3];
  hsu_transformPoint(dst, T, src);
  for (int k = 0; k < 3; k++) {
    out[k] = (float)dst[k] + 0.0f;  // + 0 turns -0 into +0, so the weld sees them equal
  }
  return hsu_allFinite(dst, 3) && isfinite(out[0]) && isfinite(out[1]) && isfinite(out[2]);
}

// unit normal of vertex v under the normal matrix N; 0 if zero or not finite
static int normalOf(float *out, const struct aiMesh *mesh, unsigned v, const double N[12]) {
  const struct aiVector3D *n = &mesh->mNormals[v];
  double src[3] = {n->x, n->y, n->z}, dst[3];
  hsu_transformPoint(dst, N, src);
  double len = hsu_norm(dst);
  if (!isfinite(len) || len < 1e-12) {
    return 0;
  }
  for (int k = 0; k < 3; k++) {
    out[k] = (float)(dst[k] / len) + 0.0f;
  }
  return 1;
}

// texture coordinate (u, v) of vertex v from channel 0
static int texCoordOf(float *out, const struct aiMesh *mesh, unsigned v, const double M[12]) {
  (void)M;
  const struct aiVector3D *t = &mesh->mTextureCoords[0][v];
  out[0] = t->x + 0.0f;
  out[1] = t->y + 0.0f;
  return isfinite(out[0]) && isfinite(out[1]);
}

//---------------------------------- welding ---------------------------------------------------

// 1 if face is a triangle whose three corners are at different positions in the file (indices
// already checked); others (points, lines, degenerate triangles) are left out
static int isTriangle(const struct aiMesh *mesh, const struct aiFace *face) {
  if (face->mNumIndices != 3) {
    return 0;
  }
  const struct aiVector3D *a = &mesh->mVertices[face->mIndices[0]];
  const struct aiVector3D *b = &mesh->mVertices[face->mIndices[1]];
  const struct aiVector3D *c = &mesh->mVertices[face->mIndices[2]];
  return (a->x != b->x || a->y != b->y || a->z != b->z) &&
         (b->x != c->x || b->y != c->y || b->z != c->z) &&
         (c->x != a->x || c->y != a->y || c->z != a->z);
}

// hash of dim floats by their bits
static uint32_t hashValue(const float *v, int dim) {
  uint32_t h = 0x811c9dc5u;
  for (int k = 0; k < dim; k++) {
    uint32_t b;
    memcpy(&b, &v[k], sizeof b);
    h = (h ^ b) * 0x9e3779b1u;
    h ^= h >> 15;
  }
  return h;
}

// 1 if a and b (dim floats each) have the same bits
static int sameValue(const float *a, const float *b, int dim) {
  for (int k = 0; k < dim; k++) {
    uint32_t x, y;
    memcpy(&x, &a[k], sizeof x);
    memcpy(&y, &b[k], sizeof y);
    if (x != y) {
      return 0;
    }
  }
  return 1;
}

// make the reader's hash table nslot (a power of two) slots, all empty; 0 when out of memory
static int resetSlots(Reader *r, size_t nslot) {
  if (r->nslot < nslot) {
    Slot *p = hsu_realloc(r->slots, nslot * sizeof *p);
    if (!p) {
      return 0;
    }
    r->slots = p, r->nslot = nslot;
  }
  memset(r->slots, 0xff, nslot * sizeof *r->slots);
  return 1;
}

// the slot of value v (hash h) among the n values of out, or the empty slot where it belongs
static Slot *findSlot(Slot *slots, size_t mask, const float *out, int dim, const float *v,
                      uint32_t h) {
  size_t i = h & mask;
  while (slots[i].index >= 0 &&
         (slots[i].hash != h || !sameValue(&out[(size_t)slots[i].index * dim], v, dim))) {
    i = (i + 1) & mask;
  }
  return &slots[i];
}

// double the hash table holding the n values of out; 0 when out of memory
static int growSlots(Reader *r, size_t *mask, const float *out, int n, int dim) {
  size_t nslot = 2 * (*mask + 1);
  if (!resetSlots(r, nslot)) {
    return 0;
  }
  *mask = nslot - 1;
  for (int i = 0; i < n; i++) {
    uint32_t h = hashValue(&out[(size_t)i * dim], dim);
    size_t j = h & *mask;
    while (r->slots[j].index >= 0) {
      j = (j + 1) & *mask;
    }
    r->slots[j].index = i, r->slots[j].hash = h;
  }
  return 1;
}

// give every triangle corner of mesh (the nt faces isTriangle() takes) the index of its value
// (fn of its source vertex under M) in *values, which holds the *nvalue distinct ones, dim
// floats each; idx receives 3 nt indices. Returns 0, 1 if some value is unusable (nothing is
// then allocated), or hsE_NOMEM.
static int weld(Reader *r, const struct aiMesh *mesh, int nt, int dim, ValueFn fn,
                const double M[12], float **values, int *nvalue, int *idx) {
  size_t nsrc = mesh->mNumVertices;
  size_t cap = nsrc < 3 * (size_t)nt ? nsrc : 3 * (size_t)nt;  // distinct values at most
  // per source vertex the output index met so far (-1 if none)
  if (r->nremap < nsrc) {
    int *p = hsu_realloc(r->remap, nsrc * sizeof *p);
    if (!p) {
      return hsE_NOMEM;
    }
    r->remap = p, r->nremap = nsrc;
  }
  memset(r->remap, 0xff, nsrc * sizeof *r->remap);
  // a hash table kept at most half full, starting small so it stays in cache when many source
  // vertices share few values (as STL's do)
  size_t mask = 15;
  while (mask + 1 < 2 * cap && mask < 4095) {
    mask = 2 * mask + 1;
  }
  float *out = resetSlots(r, mask + 1) ? hsu_malloc(cap * (size_t)dim * sizeof *out) : NULL;
  if (!out) {
    return hsE_NOMEM;
  }
  int *remap = r->remap, n = 0, c = 0, last = -1;
  for (unsigned f = 0; f < mesh->mNumFaces; f++) {
    const struct aiFace *face = &mesh->mFaces[f];
    if (!isTriangle(mesh, face)) {
      continue;
    }
    for (int k = 0; k < 3; k++) {
      unsigned v = face->mIndices[k];
      if (remap[v] < 0) {
        float val[3];
        if (!fn(val, mesh, v, M)) {
          hsu_free(out);
          return 1;
        }
        // the same as the previous corner's (an STL facet normal)? else look it up or add it
        if (last >= 0 && sameValue(&out[(size_t)last * dim], val, dim)) {
          remap[v] = last;
        } else {
          uint32_t h = hashValue(val, dim);
          Slot *slot = findSlot(r->slots, mask, out, dim, val, h);
          if (slot->index < 0) {
            if (2 * (size_t)(n + 1) > mask + 1) {
              if (!growSlots(r, &mask, out, n, dim)) {
                hsu_free(out);
                return hsE_NOMEM;
              }
              slot = findSlot(r->slots, mask, out, dim, val, h);
            }
            memcpy(&out[(size_t)n * dim], val, (size_t)dim * sizeof *val);
            slot->index = n++, slot->hash = h;
          }
          remap[v] = slot->index;
        }
      }
      idx[c++] = last = remap[v];
    }
  }
  // give back a large unused tail (small ones are not worth a call)
  if (cap - (size_t)n > 1024) {
    float *p = hsu_realloc(out, (size_t)n * dim * sizeof *out);
    out = p ? p : out;
  }
  *values = out;
  *nvalue = n;
  return 0;
}

//---------------------------------- materials -------------------------------------------------

static float clamp01(double x) {
  return (float)(x > 1 ? 1 : x > 0 ? x : 0);  // NaN gives 0
}

// r, g, b of a colour key into rgb (clamped to 0..1); 0 if the material lacks it
static int readColor(float rgb[3], const struct aiMaterial *mat, const char *key, unsigned type,
                     unsigned index) {
  struct aiColor4D c;
  if (aiGetMaterialColor(mat, key, type, index, &c) != aiReturn_SUCCESS) {
    return 0;
  }
  rgb[0] = clamp01(c.r), rgb[1] = clamp01(c.g), rgb[2] = clamp01(c.b);
  return 1;
}

// one float key into *x; 0 if the material lacks it or it is not finite
static int readFloat(double *x, const struct aiMaterial *mat, const char *key, unsigned type,
                     unsigned index) {
  ai_real v;
  unsigned n = 1;
  if (aiGetMaterialFloatArray(mat, key, type, index, &v, &n) != aiReturn_SUCCESS || n < 1 ||
      !isfinite(v)) {
    return 0;
  }
  *x = v;
  return 1;
}

// the part's material: VRML's defaults, overwritten by what a named (not assimp's default)
// material gives. shininess is assimp's Phong exponent / 128 (VRML's 0..1 scale); transparency
// is 1 - opacity; ambientIntensity is the mean ratio ambient / diffuse over the channels with
// some diffuse, or stays 0.2 when the file has no ambient colour or the diffuse is black
static void readMaterial(hsmMeshPart *part, const struct aiMaterial *mat) {
  part->material = kVrmlMaterial;
  part->hasMaterial = 0;
  struct aiString name;
  if (!mat || aiGetMaterialString(mat, AI_MATKEY_NAME, &name) != aiReturn_SUCCESS ||
      strcmp(name.data, AI_DEFAULT_MATERIAL_NAME) == 0) {
    return;
  }
  hsMaterial *m = &part->material;
  part->hasMaterial = 1;
  readColor(m->diffuseColor, mat, AI_MATKEY_COLOR_DIFFUSE);
  readColor(m->specularColor, mat, AI_MATKEY_COLOR_SPECULAR);
  readColor(m->emissiveColor, mat, AI_MATKEY_COLOR_EMISSIVE);
  double x;
  if (readFloat(&x, mat, AI_MATKEY_SHININESS)) {
    m->shininess = clamp01(x / 128);
  }
  if (readFloat(&x, mat, AI_MATKEY_OPACITY)) {
    m->transparency = clamp01(1 - x);
  }
  float ambient[3];
  if (readColor(ambient, mat, AI_MATKEY_COLOR_AMBIENT)) {
    double sum = 0;
    int n = 0;
    for (int k = 0; k < 3; k++) {
      if (m->diffuseColor[k] > 1e-6f) {
        sum += ambient[k] / m->diffuseColor[k];
        n++;
      }
    }
    if (n > 0) {
      m->ambientIntensity = clamp01(sum / n);
    }
  }
}

// *out = absolute path of the part's diffuse texture, or NULL if it has none
static int readTexture(char **out, const Reader *r, const struct aiMaterial *mat) {
  *out = NULL;
  struct aiString tex;
  if (!mat || aiGetMaterialTextureCount(mat, aiTextureType_DIFFUSE) == 0 ||
      aiGetMaterialTexture(mat, aiTextureType_DIFFUSE, 0, &tex, NULL, NULL, NULL, NULL, NULL,
                           NULL) != aiReturn_SUCCESS) {
    return 0;
  }
  // "*N" names an image embedded in the file (scene->mTextures[N]); we read textures from
  // files only, so the part has none
  if (!tex.data[0] || tex.data[0] == '*') {
    return 0;
  }
  // assimp has already decoded COLLADA's URIs; other formats may still say file://; a texture
  // behind another URL scheme is left out
  char local[sizeof tex.data];
  if (hsu_urlToPath(tex.data, local, sizeof local) != 0) {
    return 0;
  }
  const char *name = local;
  while (name[0] == '.' && name[1] == '/') {
    name += 2;
  }
  // the directory of the mesh file (with its slash), made absolute, unless the texture's path
  // is absolute
  char cwd[PATH_MAX] = "";
  int dirLen = 0;
  if (name[0] != '/') {
    const char *slash = strrchr(r->path, '/');
    dirLen = slash ? (int)(slash - r->path) + 1 : 0;
    if (r->path[0] != '/' && getcwd(cwd, sizeof cwd - 1) == NULL) {
      cwd[0] = 0;  // leave the path relative
    } else if (cwd[0] && cwd[strlen(cwd) - 1] != '/') {
      strcat(cwd, "/");
    }
  }
  size_t len = strlen(cwd) + (size_t)dirLen + strlen(name) + 1;
  char *p = hsu_malloc(len);
  if (!p) {
    return HS_ERR(r->err, hsE_NOMEM, "%s: out of memory", r->path);
  }
  snprintf(p, len, "%s%.*s%s", cwd, dirLen, r->path, name);
  // texture names written on Windows use backslashes
  for (char *c = p + strlen(cwd) + dirLen; *c; c++) {
    *c = *c == '\\' ? '/' : *c;
  }
  *out = p;
  return 0;
}

//---------------------------------- parts -----------------------------------------------------

// swap corners 1 and 2 of each of nt triangles in idx (NULL: nothing)
static void flipCorners(int *idx, int nt) {
  for (int t = 0; idx && t < nt; t++) {
    int s = idx[3 * t + 1];
    idx[3 * t + 1] = idx[3 * t + 2];
    idx[3 * t + 2] = s;
  }
}

// weld an optional attribute (normals or texture coordinates) of a part; an unusable value
// leaves the attribute out (the caller then generates normals as it sees fit)
static int weldAttribute(Reader *r, const struct aiMesh *mesh, int nt, int dim, ValueFn fn,
                         const double M[12], float **values, int *nvalue, int **idx) {
  *idx = hsu_malloc(3 * (size_t)nt * sizeof **idx);
  int rc = *idx ? weld(r, mesh, nt, dim, fn, M, values, nvalue, *idx) : hsE_NOMEM;
  if (rc != 0) {
    hsu_free(*idx);
    *idx = NULL;
  }
  return rc == 1 ? 0 : rc;
}

// append the part of mesh number m placed by T (file frame, scaled); nothing if the mesh has
// no triangles
static int addPart(Reader *r, unsigned m, const double T[12]) {
  const struct aiMesh *mesh = r->scene->mMeshes[m];
  // what assimp returned must hang together before we read it
  if (!mesh || (mesh->mNumFaces && !mesh->mFaces) || (mesh->mNumVertices && !mesh->mVertices)) {
    return HS_ERR(r->err, hsE_MODEL, "%s: mesh %u is incomplete (no faces or vertices array)",
                  r->path, m);
  }
  // check the indices, count the triangles
  size_t nt = 0;
  for (unsigned f = 0; f < mesh->mNumFaces; f++) {
    const struct aiFace *face = &mesh->mFaces[f];
    if (face->mNumIndices && !face->mIndices) {
      return HS_ERR(r->err, hsE_MODEL, "%s: mesh %u has a face without indices", r->path, m);
    }
    for (unsigned k = 0; k < face->mNumIndices; k++) {
      if (face->mIndices[k] >= mesh->mNumVertices) {
        return HS_ERR(r->err, hsE_MODEL, "%s: mesh %u has a vertex index out of range", r->path,
                      m);
      }
    }
    nt += isTriangle(mesh, face);
  }
  if (nt == 0) {
    return 0;
  }
  if (nt > INT_MAX / 3 || mesh->mNumVertices > INT_MAX) {
    return HS_ERR(r->err, hsE_MODEL, "%s: mesh %u is too large", r->path, m);
  }
  if ((long)nt > r->maxTriangles - r->triangles) {
    return HS_ERR(r->err, hsE_MODEL, "%s: the mesh file holds more than the limit of %ld "
                  "triangles", r->path, r->maxTriangles);
  }
  r->triangles += (long)nt;

  hsmMeshPart part;
  memset(&part, 0, sizeof part);
  hsmMesh *out = &part.mesh;
  int n = (int)nt, rc = 0;
  out->ntriangle = n;
  out->normalPerVertex = 1;
  out->colorPerVertex = 1;

  // vertices, shared by exact position
  out->triangles = hsu_malloc(3 * nt * sizeof *out->triangles);
  rc = out->triangles ? weld(r, mesh, n, 3, positionOf, T, &out->vertices, &out->nvertex,
                             out->triangles)
                      : hsE_NOMEM;
  if (rc == 1) {
    rc = HS_ERR(r->err, hsE_MODEL, "%s: mesh %u has a vertex that is not finite (or leaves the "
                "range of float after scaling)", r->path, m);
  }
  // normals, turned by the inverse transpose and renormalised
  double N[12];
  if (rc == 0 && mesh->mNormals && normalMatrix(N, T)) {
    rc = weldAttribute(r, mesh, n, 3, normalOf, N, &out->normals, &out->nnormal,
                       &out->normalIndices);
    out->nnormalIndex = out->normalIndices ? 3 * n : 0;
  }
  // texture coordinates of channel 0
  if (rc == 0 && mesh->mTextureCoords[0]) {
    rc = weldAttribute(r, mesh, n, 2, texCoordOf, NULL, &out->texCoords, &out->ntexCoord,
                       &out->texCoordIndices);
    out->ntexCoordIndex = out->texCoordIndices ? 3 * n : 0;
  }
  // a mirroring transform turns triangles inside out: flip them back
  if (rc == 0 && det3(T) < 0) {
    flipCorners(out->triangles, n);
    flipCorners(out->normalIndices, n);
    flipCorners(out->texCoordIndices, n);
  }
  // how it looks
  const struct aiMaterial *mat =
      mesh->mMaterialIndex < r->scene->mNumMaterials ? r->scene->mMaterials[mesh->mMaterialIndex]
                                                     : NULL;
  readMaterial(&part, mat);
  if (rc == 0) {
    rc = readTexture(&part.texture, r, mat);
  }
  if (rc == 0 && !hsu_vecPush(&r->parts, sizeof part, &part)) {
    rc = hsE_NOMEM;
  }
  if (rc != 0) {
    hsm_freeMesh(&part.mesh);
    hsu_free(part.texture);
    return rc == hsE_NOMEM ? HS_ERR(r->err, hsE_NOMEM, "%s: out of memory", r->path) : rc;
  }
  return 0;
}

// emit the meshes of node and its descendants; parent places node's parent
static int walkNode(Reader *r, const struct aiNode *node, const double parent[12], int depth) {
  if (depth > MAX_NODE_DEPTH) {
    return HS_ERR(r->err, hsE_MODEL, "%s: the scene's nodes nest deeper than %d levels", r->path,
                  MAX_NODE_DEPTH);
  }
  if ((node->mNumMeshes && !node->mMeshes) || (node->mNumChildren && !node->mChildren)) {
    return HS_ERR(r->err, hsE_MODEL, "%s: node '%s' is incomplete", r->path, node->mName.data);
  }
  double local[12], T[12];
  fromAiMatrix(local, &node->mTransformation);
  hsu_mulTransform(T, parent, local);
  for (unsigned i = 0; i < node->mNumMeshes; i++) {
    if (node->mMeshes[i] >= r->scene->mNumMeshes) {
      return HS_ERR(r->err, hsE_MODEL, "%s: node '%s' refers to a missing mesh", r->path,
                    node->mName.data);
    }
    int rc = addPart(r, node->mMeshes[i], T);
    if (rc) {
      return rc;
    }
  }
  for (unsigned i = 0; i < node->mNumChildren; i++) {
    if (!node->mChildren[i]) {
      return HS_ERR(r->err, hsE_MODEL, "%s: node '%s' has a missing child", r->path,
                    node->mName.data);
    }
    int rc = walkNode(r, node->mChildren[i], T, depth + 1);
    if (rc) {
      return rc;
    }
  }
  return 0;
}

//---------------------------------- reading ---------------------------------------------------

// 1 if assimp read the scene with its COLLADA importer (by the format it records, else by the
// file's extension)
static int isCollada(const struct aiScene *scene, const char *path) {
  const struct aiMetadata *md = scene->mMetaData;
  for (unsigned i = 0; md && md->mKeys && md->mValues && i < md->mNumProperties; i++) {
    if (strcmp(md->mKeys[i].data, AI_METADATA_SOURCE_FORMAT) == 0 &&
        md->mValues[i].mType == AI_AISTRING && md->mValues[i].mData) {
      return strncasecmp(((const struct aiString *)md->mValues[i].mData)->data, "collada", 7) == 0;
    }
  }
  const char *dot = strrchr(path, '.');
  return dot && (strcasecmp(dot, ".dae") == 0 || strcasecmp(dot, ".zae") == 0);
}

// check that path is a regular, non-empty file within the size limit
static int checkFile(const char *path, size_t maxBytes, hsError *err) {
  struct stat st;
  if (stat(path, &st) != 0) {
    return HS_ERR(err, hsE_IO, "%s: cannot open mesh file: %s", path, strerror(errno));
  }
  hsError e = {0};
  if (hsu_checkFile(path, maxBytes, &e)) {
    const char *why = strstr(e.message, "': ");
    return HS_ERR(err, hsE_IO, "%s: cannot open mesh file: %s", path, why ? why + 3 : e.message);
  }
  if (st.st_size == 0) {
    return HS_ERR(err, hsE_MODEL, "%s: mesh file is empty", path);
  }
  return 0;
}

// the text of a COLLADA index list element starting at p ("<p>", "<v>", "<vcount>", "<h>",
// "<ph>" is only a wrapper); its name length, or 0 if p starts no such element
static size_t indexListTag(const char *p) {
  static const char *const kTags[] = {"p", "v", "vcount", "h"};
  for (size_t i = 0; i < sizeof kTags / sizeof kTags[0]; i++) {
    size_t n = strlen(kTags[i]);
    if (strncmp(p + 1, kTags[i], n) == 0 && (p[1 + n] == '>' || p[1 + n] == ' ' ||
                                              p[1 + n] == '\t' || p[1 + n] == '\n' ||
                                              p[1 + n] == '\r')) {
      return n;
    }
  }
  return 0;
}

// 1 if path is a COLLADA file: named .dae, or a <COLLADA element near its start
static int looksLikeCollada(const char *path) {
  const char *dot = strrchr(path, '.');
  if (dot && strcasecmp(dot, ".dae") == 0) {
    return 1;
  }
  FILE *f = hsu_openFile(path, 0, NULL);
  if (!f) {
    return 0;
  }
  char head[2049];
  size_t n = fread(head, 1, sizeof head - 1, f);
  fclose(f);
  head[n] = 0;
  return memchr(head, 0, n) == NULL && strstr(head, "<COLLADA") != NULL;
}

// COLLADA's index lists must hold non-negative integers only. assimp 5.2's parser does not
// check: a word such as "inf" in a <p> list made it loop, growing without bound, so the lists
// are checked here first and the first bad word is reported with its line
static int checkColladaIndices(const char *path, size_t maxBytes, hsError *err) {
  char *text = NULL;
  size_t len = 0;
  hsError e = {0};
  if (hsu_readFile(path, maxBytes, &text, &len, &e)) {
    return HS_ERR(err, e.code, "%s: cannot open mesh file: %s", path, e.message);
  }
  int rc = 0, line = 1;
  for (const char *p = text; *p && !rc; p++) {
    if (*p == '\n') {
      line++;
      continue;
    }
    size_t n = *p == '<' ? indexListTag(p) : 0;
    if (!n) {
      continue;
    }
    char tag[8];
    snprintf(tag, sizeof tag, "%.*s", (int)n, p + 1);
    p = strchr(p, '>');
    if (!p) {
      break;  // unterminated: assimp reports it
    }
    if (p[-1] == '/') {
      continue;  // an empty element
    }
    // the text up to the next tag: digits and white space only
    for (p++; *p && *p != '<'; p++) {
      if (*p == '\n') {
        line++;
      } else if (!isdigit((unsigned char)*p) && !isspace((unsigned char)*p)) {
        // the whole word around the bad character
        const char *w = p;
        while (isdigit((unsigned char)w[-1])) {
          w--;
        }
        size_t n = strcspn(w, " \t\r\n<");
        rc = HS_ERR(err, hsE_MODEL, "%s:%d: <%s> holds '%.*s', which is not a vertex index (a "
                    "non-negative integer)", path, line, tag, (int)(n < 40 ? n : 40), w);
        break;
      }
    }
    p--;
  }
  hsu_free(text);
  return rc;
}

// import with assimp; `serialise`: one at a time within the process (see the file comment; the
// import child, alone in its process, must not take a lock another thread held at the fork)
static int importScene(const struct aiScene **scene, const char *path, int serialise,
                       hsError *err) {
  *scene = NULL;
  struct aiPropertyStore *props = aiCreatePropertyStore();
  if (!props) {
    return HS_ERR(err, hsE_NOMEM, "%s: out of memory", path);
  }
  aiSetImportPropertyInteger(props, AI_CONFIG_PP_SBP_REMOVE,
                             aiPrimitiveType_POINT | aiPrimitiveType_LINE);
  char why[400] = "";
  if (serialise) {
    pthread_mutex_lock(&g_importLock);
  }
  const struct aiScene *sc = aiImportFileExWithProperties(
      path, aiProcess_Triangulate | aiProcess_SortByPType, NULL, props);
  if (!sc) {
    snprintf(why, sizeof why, "%s", aiGetErrorString());
  }
  if (serialise) {
    pthread_mutex_unlock(&g_importLock);
  }
  aiReleasePropertyStore(props);
  if (!sc) {
    if (strstr(why, "bad_alloc")) {
      return HS_ERR(err, hsE_NOMEM, "%s: cannot read mesh: out of memory (%s)", path, why);
    }
    return HS_ERR(err, hsE_MODEL, "%s: cannot read mesh: %s", path, why[0] ? why : "unknown error");
  }
  if (!sc->mRootNode || (sc->mNumMeshes && !sc->mMeshes) ||
      (sc->mNumMaterials && !sc->mMaterials)) {
    aiReleaseImport(sc);
    return HS_ERR(err, hsE_MODEL, "%s: mesh file has no scene", path);
  }
  *scene = sc;
  return 0;
}

// import and convert in this process (the file was checked); parts on success
static int readScene(const char *path, const double s[3], const hsmLimits *lim, int serialise,
                     hsmMeshPart **parts, int *nparts, hsError *err) {
  Reader r;
  memset(&r, 0, sizeof r);
  r.path = path;
  r.err = err;
  r.maxTriangles = lim->meshTriangles;
  int rc = importScene(&r.scene, path, serialise, err);
  if (rc) {
    return rc;
  }
  // the frame placing the root node: scale, after (for COLLADA) assimp's y-up turned to z-up
  double pre[12] = {s[0], 0, 0, 0, 0, s[1], 0, 0, 0, 0, s[2], 0};
  if (isCollada(r.scene, path)) {
    double yUpToZUp[12] = {1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0};
    double S[12];
    memcpy(S, pre, sizeof S);
    hsu_mulTransform(pre, S, yUpToZUp);
  }
  rc = walkNode(&r, r.scene->mRootNode, pre, 0);
  if (rc == 0 && r.parts.n == 0) {
    rc = HS_ERR(err, hsE_MODEL, "%s: mesh file has no triangles", path);
  }
  aiReleaseImport(r.scene);
  hsu_free(r.remap);
  hsu_free(r.slots);
  if (rc) {
    hsm_freeMeshParts(r.parts.data, (int)r.parts.n);
    return rc;
  }
  *parts = r.parts.data;
  *nparts = (int)r.parts.n;
  return 0;
}

//---------------------------------- the import process ----------------------------------------

// One child process serves the imports of one hsmMeshImporter, one after another, over a
// socket pair. A request is a magic number, the scale (3 doubles) and the path (uint32 length +
// bytes). The answer is a frame: a magic number and the length (uint64) of the message that
// follows: an int32 status (0 or an hstError), then on failure the error message (uint32 length
// + bytes), on success the part count (uint32) and per part: hasMaterial, the hsMaterial as
// bytes, the texture path (uint32 length + bytes, length 0 for none), and the mesh's counts and
// arrays (vertices, triangles, normals and their indices, texture coordinates and their
// indices). The parent checks every count against what is left of the message and every index
// against its array before it builds the parts.

#define REQUEST_MAGIC 0x68737271u  // "hsrq"
#define FRAME_MAGIC 0x68736d32u    // "hsm2"
#define MSG_MAGIC 0x68736d31u      // "hsm1"

// a buffered writer on a descriptor (the child uses no stdio); with fd -1 it only counts
typedef struct Writer {
  int fd;
  int failed;
  size_t used;
  uint64_t counted;
  unsigned char buf[65536];
} Writer;

static void flushWriter(Writer *w) {
  size_t off = 0;
  while (off < w->used && !w->failed && w->fd >= 0) {
    ssize_t n = send(w->fd, w->buf + off, w->used - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      w->failed = 1;
    } else {
      off += (size_t)n;
    }
  }
  w->used = 0;
}

static void put(Writer *w, const void *data, size_t size) {
  if (w->fd < 0) {
    w->counted += size;
    return;
  }
  const unsigned char *p = data;
  while (size > 0 && !w->failed) {
    if (w->used == sizeof w->buf) {
      flushWriter(w);
    }
    size_t n = sizeof w->buf - w->used < size ? sizeof w->buf - w->used : size;
    memcpy(w->buf + w->used, p, n);
    w->used += n, p += n, size -= n;
  }
}

static void putU32(Writer *w, uint32_t v) {
  put(w, &v, sizeof v);
}

static void putString(Writer *w, const char *str) {
  uint32_t n = str ? (uint32_t)strlen(str) : 0;
  putU32(w, n);
  put(w, str, n);
}

// the message of one import (rc, with err or the parts) into w
static void putMessage(Writer *w, int rc, const hsError *err, const hsmMeshPart *parts,
                       int nparts) {
  putU32(w, MSG_MAGIC);
  int32_t status = rc;
  put(w, &status, sizeof status);
  if (rc) {
    putString(w, err->message);
    return;
  }
  putU32(w, (uint32_t)nparts);
  for (int i = 0; i < nparts; i++) {
    const hsmMeshPart *p = &parts[i];
    const hsmMesh *m = &p->mesh;
    int32_t head[8] = {p->hasMaterial, m->nvertex, m->ntriangle, m->nnormal, m->nnormalIndex,
                       m->normalPerVertex, m->ntexCoord, m->ntexCoordIndex};
    put(w, head, sizeof head);
    put(w, &p->material, sizeof p->material);
    putString(w, p->texture);
    put(w, m->vertices, 3 * (size_t)m->nvertex * sizeof(float));
    put(w, m->triangles, 3 * (size_t)m->ntriangle * sizeof(int));
    put(w, m->normals, 3 * (size_t)m->nnormal * sizeof(float));
    put(w, m->normalIndices, (size_t)m->nnormalIndex * sizeof(int));
    put(w, m->texCoords, 2 * (size_t)m->ntexCoord * sizeof(float));
    put(w, m->texCoordIndices, (size_t)m->ntexCoordIndex * sizeof(int));
  }
}

// read exactly size bytes from fd; 0 at the end of the stream or on an error
static int readAll(int fd, void *data, size_t size) {
  unsigned char *p = data;
  while (size > 0) {
    ssize_t n = read(fd, p, size);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return 0;
    }
    p += n, size -= (size_t)n;
  }
  return 1;
}

// the CPU time this process has used [s]
static double cpuSeconds(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
         (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

// the child's side: limits, then per request import, convert, answer; exit when the parent
// closes its end
static void childServe(int fd, const hsmLimits *lim) {
  // keep only the standard streams and our socket: another import's socket inherited here
  // would keep that import's child from seeing its parent go
  if (fd > 3) {
    close_range(3, (unsigned)fd - 1, 0);
  }
  close_range((unsigned)fd + 1, ~0u, 0);
  // the server's handlers and blocked signals are for the server: a signal ends the child
  sigset_t none;
  sigemptyset(&none);
  pthread_sigmask(SIG_SETMASK, &none, NULL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGINT, SIG_DFL);
  signal(SIGHUP, SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
  signal(SIGXCPU, SIG_DFL);
  SILENCE_SANITIZER_REPORTS();
  // memory: what the process maps now plus the budget; no core files
  long pages = 0;
  int statm = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (statm >= 0) {
    char text[64];
    ssize_t n = read(statm, text, sizeof text - 1);
    close(statm);
    text[n > 0 ? n : 0] = 0;
    pages = strtol(text, NULL, 10);
  }
  struct rlimit rl;
  if (pages > 0) {
    rl.rlim_cur = rl.rlim_max = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + lim->meshBytes;
    setrlimit(RLIMIT_AS, &rl);
  }
  rl.rlim_cur = rl.rlim_max = 0;
  setrlimit(RLIMIT_CORE, &rl);

  static Writer w;  // static: 64 KiB is better off the stack
  static char path[PATH_MAX + 1];
  w.fd = fd;
  for (;;) {
    uint32_t magic = 0, len = 0;
    double s[3];
    if (!readAll(fd, &magic, sizeof magic) || magic != REQUEST_MAGIC ||
        !readAll(fd, s, sizeof s) || !readAll(fd, &len, sizeof len) || len > PATH_MAX ||
        !readAll(fd, path, len)) {
      _exit(0);
    }
    path[len] = 0;
    // CPU time: this import's share from now, a backstop of the parent's clock (SIGXCPU at
    // the soft limit ends the child)
    if (getrlimit(RLIMIT_CPU, &rl) == 0) {
      rl.rlim_cur = (rlim_t)ceil(cpuSeconds() + lim->meshSeconds) + 1;
      if (rl.rlim_max != RLIM_INFINITY && rl.rlim_cur > rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
      }
      setrlimit(RLIMIT_CPU, &rl);
    }
    hsError err = {0};
    hsmMeshPart *parts = NULL;
    int nparts = 0;
    int rc = readScene(path, s, lim, 0, &parts, &nparts, &err);
    // the frame: its length first (counted), then the message
    static Writer count;
    count.fd = -1, count.counted = 0;
    putMessage(&count, rc, &err, parts, nparts);
    putU32(&w, FRAME_MAGIC);
    uint64_t size = count.counted;
    put(&w, &size, sizeof size);
    putMessage(&w, rc, &err, parts, nparts);
    flushWriter(&w);
    hsm_freeMeshParts(parts, nparts);
    if (w.failed) {
      _exit(3);
    }
  }
}

// a message being taken apart; every take checks what is left
typedef struct Message {
  const unsigned char *p;
  size_t left;
  int bad;
} Message;

static const void *take(Message *m, size_t size) {
  if (m->bad || size > m->left) {
    m->bad = 1;
    return NULL;
  }
  const void *at = m->p;
  m->p += size, m->left -= size;
  return at;
}

static uint32_t takeU32(Message *m) {
  const void *at = take(m, sizeof(uint32_t));
  uint32_t v = 0;
  if (at) {
    memcpy(&v, at, sizeof v);
  }
  return v;
}

// a copy (hsu_malloc) of count elements of size bytes; 0, 1 if the message is short, hsE_NOMEM
static int takeArray(Message *m, void **out, size_t count, size_t size) {
  *out = NULL;
  if (count == 0) {
    return 0;
  }
  if (count > m->left / size) {
    m->bad = 1;
    return 1;
  }
  const void *at = take(m, count * size);
  *out = hsu_malloc(count * size);
  if (!*out) {
    return hsE_NOMEM;
  }
  memcpy(*out, at, count * size);
  return 0;
}

// 1 if all n indices lie in [0, limit)
static int indicesIn(const int *idx, size_t n, int limit) {
  for (size_t i = 0; i < n; i++) {
    if (idx[i] < 0 || idx[i] >= limit) {
      return 0;
    }
  }
  return 1;
}

// 1 if all n floats are finite
static int finiteFloats(const float *v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(v[i])) {
      return 0;
    }
  }
  return 1;
}

// one part from the message, checked; 0, 1 if the message is wrong, hsE_NOMEM
static int takePart(Message *msg, hsmMeshPart *part) {
  const int32_t *head = take(msg, 8 * sizeof(int32_t));
  const hsMaterial *mat = take(msg, sizeof(hsMaterial));
  if (!head || !mat) {
    return 1;
  }
  hsmMesh *m = &part->mesh;
  part->hasMaterial = head[0] != 0;
  part->material = *mat;
  m->nvertex = head[1], m->ntriangle = head[2], m->nnormal = head[3], m->nnormalIndex = head[4];
  m->normalPerVertex = head[5] != 0, m->ntexCoord = head[6], m->ntexCoordIndex = head[7];
  m->colorPerVertex = 1;
  if (m->nvertex < 3 || m->ntriangle < 1 || m->ntriangle > INT_MAX / 3 || m->nnormal < 0 ||
      m->ntexCoord < 0 || (m->nnormalIndex != 0 && m->nnormalIndex != 3 * m->ntriangle) ||
      (m->ntexCoordIndex != 0 && m->ntexCoordIndex != 3 * m->ntriangle)) {
    return 1;
  }
  uint32_t tlen = takeU32(msg);
  const char *tex = take(msg, tlen);
  if (msg->bad) {
    return 1;
  }
  if (tlen > 0) {
    part->texture = hsu_malloc(tlen + 1);
    if (!part->texture) {
      return hsE_NOMEM;
    }
    memcpy(part->texture, tex, tlen);
    part->texture[tlen] = 0;
    if (strlen(part->texture) != tlen) {
      return 1;
    }
  }
  int rc = takeArray(msg, (void **)&m->vertices, 3 * (size_t)m->nvertex, sizeof(float));
  rc = rc ? rc : takeArray(msg, (void **)&m->triangles, 3 * (size_t)m->ntriangle, sizeof(int));
  rc = rc ? rc : takeArray(msg, (void **)&m->normals, 3 * (size_t)m->nnormal, sizeof(float));
  rc = rc ? rc : takeArray(msg, (void **)&m->normalIndices, (size_t)m->nnormalIndex, sizeof(int));
  rc = rc ? rc : takeArray(msg, (void **)&m->texCoords, 2 * (size_t)m->ntexCoord, sizeof(float));
  rc = rc ? rc : takeArray(msg, (void **)&m->texCoordIndices, (size_t)m->ntexCoordIndex,
                           sizeof(int));
  if (rc) {
    return rc;
  }
  // what a part promises: finite numbers, indices inside their arrays
  size_t corners = 3 * (size_t)m->ntriangle;
  if (!finiteFloats(m->vertices, 3 * (size_t)m->nvertex) ||
      !finiteFloats(m->normals, 3 * (size_t)m->nnormal) ||
      !finiteFloats(m->texCoords, 2 * (size_t)m->ntexCoord) ||
      !indicesIn(m->triangles, corners, m->nvertex) ||
      !indicesIn(m->normalIndices, (size_t)m->nnormalIndex, m->nnormal) ||
      !indicesIn(m->texCoordIndices, (size_t)m->ntexCoordIndex, m->ntexCoord)) {
    return 1;
  }
  return 0;
}

// the parts (or the error) of a complete message from the child
static int readMessage(const char *path, const unsigned char *data, size_t size, long maxTriangles,
                       hsmMeshPart **parts, int *nparts, hsError *err) {
  Message msg = {data, size, 0};
  uint32_t magic = takeU32(&msg);
  const int32_t *status = take(&msg, sizeof(int32_t));
  if (msg.bad || magic != MSG_MAGIC) {
    return HS_ERR(err, hsE_MODEL, "%s: the mesh import process ended without an answer", path);
  }
  if (*status != 0) {
    uint32_t n = takeU32(&msg);
    const char *text = take(&msg, n);
    int code = *status < 0 && *status >= hsE_UNSUPPORTED ? *status : hsE_MODEL;
    return HS_ERR(err, code, "%.*s", msg.bad ? 0 : (int)(n < 500 ? n : 500),
                  msg.bad ? "" : text);
  }
  uint32_t count = takeU32(&msg);
  if (msg.bad || count == 0 || count > (uint32_t)INT_MAX ||
      (long)count > maxTriangles || count > size / sizeof(hsMaterial)) {
    return HS_ERR(err, hsE_MODEL, "%s: the mesh import process gave a broken answer", path);
  }
  hsmMeshPart *out = hsu_calloc(count, sizeof *out);
  if (!out) {
    return HS_ERR(err, hsE_NOMEM, "%s: out of memory", path);
  }
  int rc = 0;
  for (uint32_t i = 0; i < count && !rc; i++) {
    rc = takePart(&msg, &out[i]);
  }
  if (!rc && msg.left != 0) {
    rc = 1;
  }
  if (rc) {
    hsm_freeMeshParts(out, (int)count);
    return rc == hsE_NOMEM ? HS_ERR(err, hsE_NOMEM, "%s: out of memory", path)
                           : HS_ERR(err, hsE_MODEL, "%s: the mesh import process gave a broken "
                                    "answer", path);
  }
  *parts = out;
  *nparts = (int)count;
  return 0;
}


static double monotonicSeconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// a sequence of imports served by one child process (see the file comment)
struct hsmMeshImporter {
  hsmLimits lim;  // effective limits
  pid_t pid;      // the child, 0 when none runs
  int fd;         // our end of its socket, -1 when none
  int served;     // imports the running child has answered
};

// end the importer's child (killed if still running) and forget it; its wait status into
// *status when not NULL; the pid reaped, or -1
static pid_t stopChild(hsmMeshImporter *imp, int kill9, int *status) {
  if (imp->fd >= 0) {
    close(imp->fd);
    imp->fd = -1;
  }
  if (imp->pid <= 0) {
    return -1;
  }
  if (kill9) {
    kill(imp->pid, SIGKILL);
  }
  int st = 0;
  pid_t got;
  do {
    got = waitpid(imp->pid, &st, 0);
  } while (got < 0 && errno == EINTR);
  pthread_mutex_lock(&g_childLock);
  for (int i = 0; i < g_nchildren; i++) {
    if (g_children[i] == imp->pid) {
      g_children[i] = g_children[--g_nchildren];
      break;
    }
  }
  pthread_mutex_unlock(&g_childLock);
  imp->pid = 0;
  imp->served = 0;
  if (status) {
    *status = st;
  }
  return got;
}

// start the importer's child; 0 or an error naming path
static int startChild(hsmMeshImporter *imp, const char *path, hsError *err) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    return HS_ERR(err, hsE_IO, "%s: cannot start the mesh import: %s", path, strerror(errno));
  }
  // fork and register the child under the lock, so a cancel sees every child
  pthread_mutex_lock(&g_childLock);
  pid_t pid = g_cancelled || g_nchildren == kMaxChildren ? -2 : fork();
  int e = errno;
  if (pid == 0) {
    close(fds[0]);
    childServe(fds[1], &imp->lim);
  }
  if (pid > 0) {
    g_children[g_nchildren++] = pid;
  }
  int cancelled = g_cancelled;
  pthread_mutex_unlock(&g_childLock);
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    if (pid == -2) {
      return HS_ERR(err, hsE_IO, "%s: %s", path, cancelled
                    ? "mesh imports are cancelled (the server is shutting down)"
                    : "too many mesh imports at once");
    }
    return HS_ERR(err, e == ENOMEM || e == EAGAIN ? hsE_NOMEM : hsE_IO,
                  "%s: cannot start the mesh import: %s", path, strerror(e));
  }
  imp->pid = pid;
  imp->fd = fds[0];
  imp->served = 0;
  return 0;
}

// send a request for path scaled by s; 0 if the child has gone
static int sendRequest(int fd, const char *path, const double s[3]) {
  uint32_t len = (uint32_t)strlen(path);
  unsigned char head[4 + 3 * sizeof(double) + 4];
  uint32_t magic = REQUEST_MAGIC;
  memcpy(head, &magic, 4);
  memcpy(head + 4, s, 3 * sizeof(double));
  memcpy(head + 4 + 3 * sizeof(double), &len, 4);
  const struct iovec parts[2] = {{head, sizeof head}, {(void *)path, len}};
  size_t total = sizeof head + len, sent = 0;
  while (sent < total) {
    // the rest of the request (sendmsg with MSG_NOSIGNAL: a dead child is no SIGPIPE)
    struct iovec iov[2];
    int niov = 0;
    size_t skip = sent;
    for (int i = 0; i < 2; i++) {
      if (skip >= parts[i].iov_len) {
        skip -= parts[i].iov_len;
        continue;
      }
      iov[niov].iov_base = (unsigned char *)parts[i].iov_base + skip;
      iov[niov++].iov_len = parts[i].iov_len - skip;
      skip = 0;
    }
    struct msghdr msg = {0};
    msg.msg_iov = iov;
    msg.msg_iovlen = (size_t)niov;
    ssize_t n = sendmsg(fd, &msg, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return 0;
    }
    sent += (size_t)n;
  }
  return 1;
}

// how one request ended on the parent's side
typedef enum hstAnswer {
  ANSWER_OK,        // a whole frame in the buffer
  ANSWER_GONE,      // the child closed its end (died) before a whole frame
  ANSWER_BROKEN,    // what came is not a frame
  ANSWER_TIMEOUT,   // the clock ran out
  ANSWER_TOOLARGE,  // the frame is larger than the child could have built
  ANSWER_NOMEM      // no memory here for it
} hstAnswer;

// read one frame from fd before deadline into *buf (hsu_malloc; *used bytes)
static hstAnswer readFrame(int fd, double deadline, size_t maxBytes, unsigned char **buf,
                           size_t *used) {
  unsigned char head[12];
  size_t got = 0, cap = 0, want = sizeof head;
  uint64_t length = 0;
  *buf = NULL;
  *used = 0;
  for (;;) {
    // the header, then the message it announces
    if (got == want && want == sizeof head) {
      uint32_t magic;
      memcpy(&magic, head, sizeof magic);
      memcpy(&length, head + 4, sizeof length);
      if (magic != FRAME_MAGIC) {
        return ANSWER_BROKEN;
      }
      if (length > maxBytes + 65536) {
        return ANSWER_TOOLARGE;
      }
      want = sizeof head + (size_t)length;
    }
    if (got == want) {
      *used = (size_t)length;
      return ANSWER_OK;
    }
    double left = deadline - monotonicSeconds();
    if (left <= 0) {
      return ANSWER_TIMEOUT;
    }
    struct pollfd pfd = {fd, POLLIN, 0};
    int ready = poll(&pfd, 1, (int)ceil(left * 1000));
    if (ready < 0 && errno == EINTR) {
      continue;
    }
    if (ready == 0) {
      return ANSWER_TIMEOUT;
    }
    unsigned char *to;
    size_t room;
    if (got < sizeof head) {
      to = head + got, room = sizeof head - got;
    } else {
      // grow the buffer as the message comes, doubling, up to its announced length
      size_t have = got - sizeof head;
      if (have == cap) {
        size_t bigger = cap ? 2 * cap : 65536;
        bigger = bigger < (size_t)length ? bigger : (size_t)length;
        unsigned char *p = hsu_realloc(*buf, bigger);
        if (!p) {
          return ANSWER_NOMEM;
        }
        *buf = p, cap = bigger;
      }
      to = *buf + have, room = cap - have;
    }
    ssize_t n = read(fd, to, room);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return ANSWER_GONE;
    }
    got += (size_t)n;
  }
}

// one import by the importer's child (started if none runs); *retry set when the child failed
// in a way the imports it served before may have caused (it died, or ran out of memory), so
// that the caller can try again in a fresh child
static int importOnce(hsmMeshImporter *imp, const char *path, const double s[3],
                      hsmMeshPart **parts, int *nparts, int *retry, hsError *err) {
  const hsmLimits *lim = &imp->lim;
  *retry = 0;
  if (imp->pid <= 0) {
    int rc = startChild(imp, path, err);
    if (rc) {
      return rc;
    }
  }
  int earlier = imp->served;
  double deadline = monotonicSeconds() + lim->meshSeconds;
  unsigned char *buf = NULL;
  size_t used = 0;
  hstAnswer a = sendRequest(imp->fd, path, s)
                    ? readFrame(imp->fd, deadline, lim->meshBytes, &buf, &used)
                    : ANSWER_GONE;
  int status = 0;
  pid_t got = -1;
  if (a != ANSWER_OK) {
    got = stopChild(imp, a != ANSWER_GONE, &status);
  }
  pthread_mutex_lock(&g_childLock);
  int cancelled = g_cancelled;
  pthread_mutex_unlock(&g_childLock);
  int rc;
  if (cancelled && a != ANSWER_OK) {
    rc = HS_ERR(err, hsE_IO, "%s: the mesh import was cancelled (the server is shutting down)",
                path);
  } else if (a == ANSWER_TIMEOUT) {
    rc = HS_ERR(err, hsE_MODEL, "%s: importing the mesh took longer than the limit of %g s",
                path, lim->meshSeconds);
  } else if (a == ANSWER_BROKEN) {
    rc = HS_ERR(err, hsE_MODEL, "%s: the mesh import process gave a broken answer", path);
  } else if (a == ANSWER_TOOLARGE || a == ANSWER_NOMEM) {
    rc = HS_ERR(err, hsE_NOMEM, "%s: the imported mesh is larger than the memory limit of %zu "
                "MiB", path, lim->meshBytes >> 20);
  } else if (a == ANSWER_GONE && got > 0 && WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    *retry = earlier > 0 && sig != SIGXCPU;
    rc = sig == SIGXCPU
             ? HS_ERR(err, hsE_MODEL, "%s: importing the mesh took longer than the limit of %g "
                      "s of CPU time", path, lim->meshSeconds)
             : HS_ERR(err, hsE_MODEL, "%s: the mesh importer failed on this file (signal %d, %s;"
                      " perhaps at its memory limit of %zu MiB)", path, sig, strsignal(sig),
                      lim->meshBytes >> 20);
  } else if (a == ANSWER_GONE) {
    // it ended without a whole answer (a sanitizer's or the C++ runtime's fatal error)
    *retry = earlier > 0;
    rc = HS_ERR(err, hsE_MODEL, "%s: the mesh importer failed on this file (exit status %d; "
                "perhaps at its memory limit of %zu MiB)", path,
                got > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1, lim->meshBytes >> 20);
  } else {
    imp->served++;
    rc = readMessage(path, buf, used, lim->meshTriangles, parts, nparts, err);
    if (rc == hsE_NOMEM && err && strstr(err->message, "out of memory (")) {
      // assimp's bad_alloc in the child: the limit, not this process, ran out
      hsu_clearError(err);
      *retry = earlier > 0;
      stopChild(imp, 1, NULL);
      rc = HS_ERR(err, hsE_MODEL, "%s: importing the mesh needs more memory than the limit of "
                  "%zu MiB", path, lim->meshBytes >> 20);
    }
  }
  hsu_free(buf);
  return rc;
}

// check path and scale, then import: in this process, or by the importer's child (see the
// file comment for the retry in a fresh child)
static int importMesh(hsmMeshImporter *imp, const char *path, const double scale[3],
                      hsmMeshPart **parts, int *nparts, hsError *err) {
  if (parts) {
    *parts = NULL;
  }
  if (nparts) {
    *nparts = 0;
  }
  if (!path || !parts || !nparts) {
    return HS_ERR(err, hsE_INVALID, "%s: reading a mesh file: no path or output given",
                  path ? path : "(no path)");
  }
  // scale may be NULL (1, 1, 1); a zero component would flatten the mesh
  double s[3] = {1, 1, 1};
  if (scale) {
    if (!hsu_allFinite(scale, 3) || scale[0] == 0 || scale[1] == 0 || scale[2] == 0) {
      return HS_ERR(err, hsE_INVALID, "%s: mesh scale (%g, %g, %g) must be finite and non-zero",
                    path, scale[0], scale[1], scale[2]);
    }
    memcpy(s, scale, sizeof s);
  }
  const hsmLimits *lim = &imp->lim;
  int rc = checkFile(path, lim->maxFileBytes, err);
  if (!rc && looksLikeCollada(path)) {
    rc = checkColladaIndices(path, lim->maxFileBytes, err);
  }
  if (rc) {
    return rc;
  }
  if (lim->meshInProcess) {
    return readScene(path, s, lim, 1, parts, nparts, err);
  }
  if (strlen(path) > PATH_MAX) {
    return HS_ERR(err, hsE_IO, "%s: cannot open mesh file: path too long", path);
  }
  int retry = 0;
  hsError first = {0};
  rc = importOnce(imp, path, s, parts, nparts, &retry, &first);
  if (rc && retry) {
    // the child had served other files: what failed it is only this file's fault if it fails
    // again in a child of its own
    hsError again = {0};
    rc = importOnce(imp, path, s, parts, nparts, &retry, &again);
    first = again;
  }
  if (rc && err) {
    *err = first;
  }
  return rc;
}

//---------------------------------- entry -----------------------------------------------------

void hsm_cancelMeshImports(void) {
  pthread_mutex_lock(&g_childLock);
  g_cancelled = 1;
  for (int i = 0; i < g_nchildren; i++) {
    kill(g_children[i], SIGKILL);
  }
  pthread_mutex_unlock(&g_childLock);
}

hsmMeshImporter *hsm_makeMeshImporter(const hsmLimits *limits, hsError *err) {
  hsmMeshImporter *imp = hsu_calloc(1, sizeof *imp);
  if (!imp) {
    HS_ERR(err, hsE_NOMEM, "out of memory");
    return NULL;
  }
  imp->lim = hsm_effectiveLimits(limits);
  imp->fd = -1;
  return imp;
}

void hsm_freeMeshImporter(hsmMeshImporter *imp) {
  if (!imp) {
    return;
  }
  stopChild(imp, 1, NULL);
  hsu_free(imp);
}

int hsm_importMesh(hsmMeshImporter *imp, const char *path, const double scale[3],
                   hsmMeshPart **parts, int *nparts, hsError *err) {
  if (!imp) {
    if (parts) {
      *parts = NULL;
    }
    if (nparts) {
      *nparts = 0;
    }
    return HS_ERR(err, hsE_INVALID, "%s: importing a mesh: no importer given",
                  path ? path : "(no path)");
  }
  return importMesh(imp, path, scale, parts, nparts, err);
}

int hsm_readMeshFile(const char *path, const double scale[3], const hsmLimits *limits,
                     hsmMeshPart **parts, int *nparts, hsError *err) {
  hsmMeshImporter imp;
  memset(&imp, 0, sizeof imp);
  imp.lim = hsm_effectiveLimits(limits);
  imp.fd = -1;
  int rc = importMesh(&imp, path, scale, parts, nparts, err);
  stopChild(&imp, 1, NULL);
  return rc;
}

void hsm_freeMeshParts(hsmMeshPart *parts, int nparts) {
  if (!parts) {
    return;
  }
  for (int i = 0; i < nparts; i++) {
    hsm_freeMesh(&parts[i].mesh);
    hsu_free(parts[i].texture);
  }
  hsu_free(parts);
}
