// vrml_body.c - build an hsBody from an OpenHRP-format VRML97 scene.
//
// The generic reader (vrml.h) gives a typed scene graph; this file gives it OpenHRP's meaning.
// A Humanoid's root Joint is walked depth-first: every Joint becomes a link (numbered in
// depth-first order), Transforms and Groups accumulate a frame relative to the current link,
// Segments add mass elements, the five sensor PROTOs add sensors, Shapes add triangle meshes
// placed by the accumulated frame, lights add lights, and ExtraJoint nodes add closed-loop
// constraints. A file without a Humanoid is an environment: one fixed link called "root"
// carrying every shape. PROTOs other than OpenHRP's are replaced by their first body node, as
// VRML97 prescribes.
//
// Shapes follow OpenHRP 3.1's ModelLoader (ShapeSetInfo_impl, TriangleMeshShaper): each Shape
// node becomes one hsShape, shared by every place that USEs it; OpenHRP reads an Inline's file
// anew for every Inline node, so a Shape reached through a different chain of Inline nodes is a
// different hsShape (the parse reads each file once; the walk tells the copies apart by an
// Inline context, one per chain of Inline nodes). A Box, Sphere, Cylinder or Cone keeps its
// primitive type and parameters under any transform, scaling included (the transform goes with
// the shape reference); a geometry given through a PROTO instance is a mesh, except OpenHRP's
// "Plane" PROTO over a Box, which is a plane.
//
// Limits (hsmLoadOptions): nodes visited, shapes placed, triangles and nesting are counted as
// the walk goes, so DEF/USE or Inline doubling fails fast with an error naming the node. Numbers
// that are not finite or exceed a float's range are refused where they carry meaning (mass,
// frames, geometry), and dropped with a warning where they are only shading (normals, colours,
// texture coordinates), which are then regenerated or left out.

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../builder.h"
#include "vrml_geometry.h"
#include "vrml.h"

// PROTO names that carry OpenHRP meaning (kept, not resolved to their bodies)
static const char *const kOpenHrpNodes[] = {
    "Humanoid",   "Joint",       "Segment",    "ForceSensor", "Gyro", "AccelerationSensor",
    "VisionSensor", "RangeSensor", "ExtraJoint", NULL};

// what geometry and sensors found while walking attach to
typedef struct Owner {
  int link;          // builder link index
  int sensor;        // builder sensor index (shapes go to the sensor), or -1
  int segment;       // builder segment index the shapes belong to, or -1
  int inlineMatrix;  // index into the owner's inlined matrices, or -1
  long ctx;          // Inline context: 0 in the top file, one per chain of Inline nodes
  const char *inlineUrl;  // the file of the outermost Inline the walk is in, or NULL
} Owner;

// a hash map from (node, context) to a builder index
typedef struct MapEntry {
  const void *key;  // NULL: empty slot
  long ctx;
  int value;
} MapEntry;

typedef struct Map {
  MapEntry *e;
  size_t n, cap;  // cap is 0 or a power of two
} Map;

typedef struct Walker {
  hsmBuilder *b;
  hsmLoadOptions opt;
  hsError *err;
  hsmWarning *warnings;
  int maxWarnings;
  int nwarnings;
  Map shapeCache;     // Shape node x Inline context -> shape
  Map materialCache;  // Material node -> material
  Map textureCache;   // texture node -> texture
  Map inlineCtx;      // Inline node x enclosing context -> context
  long nctx;          // contexts handed out
  long visits, instances, triangles;  // counted against the limits
  int depth;          // grouping nesting of the walk
} Walker;

#define LINK(w, i) (((hsmLinkSpec *)(w)->b->links.data)[i])
#define SENSOR(w, i) (((hsmSensorSpec *)(w)->b->sensors.data)[i])
#define SEGMENT(w, i) (((hsmSegmentSpec *)(w)->b->segments.data)[i])

static int walkNodes(Walker *w, hsvNode *const *nodes, int n, const double T[12], Owner o);
static int walkChildren(Walker *w, const hsvNode *node, hsvNode *const *nodes, int n,
                        const double T[12], Owner o);

//---------------------------------- reporting -------------------------------------------------

static int nomem(Walker *w) {
  return HS_ERR(w->err, hsE_NOMEM, "out of memory");
}

// an error located at a node
static int errNode(Walker *w, const hsvNode *node, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int errNode(Walker *w, const hsvNode *node, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return HS_ERR_AT(w->err, hsE_MODEL, node->file, node->line, node->column, "%s", msg);
}

// an error located at a field's value (at the node if the field was not written)
static int errField(Walker *w, const hsvNode *node, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int errField(Walker *w, const hsvNode *node, const char *field, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const hsvField *f = hsv_field(node, field);
  int line = node->line, column = node->column;
  if (f && f->given && f->value.line > 0) {
    line = f->value.line, column = f->value.column;
  }
  return HS_ERR_AT(w->err, hsE_MODEL, node->file, line, column, "%s", msg);
}

// a non-fatal problem: logged and, if the caller asked, collected
static void warnAt(Walker *w, const char *file, int line, const char *msg) {
  hsu_log(hsLOG_WARNING, "%s:%d: %s", file ? file : "", line, msg);
  if (w->warnings && w->nwarnings < w->maxWarnings) {
    hsmWarning *out = &w->warnings[w->nwarnings];
    snprintf(out->message, sizeof out->message, "%s", msg);
    snprintf(out->file, sizeof out->file, "%s", file ? file : "");
    out->line = line;
  }
  w->nwarnings++;
  hsm_addWarningInfo(w->b, file, line, msg);  // only a warning: lost if out of memory
}

static void warn(Walker *w, const hsvNode *node, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void warn(Walker *w, const hsvNode *node, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  warnAt(w, node ? node->file : "", node ? node->line : 0, msg);
}

// 1 if a field is served as a double exactly as written (joint limits: 1e300 may stand for
// "no limit"), so only a non-finite number in it is bad
static int servedAsWritten(const char *name) {
  static const char *const names[] = {"ulimit", "llimit", "uvlimit", "lvlimit", "climit"};
  for (int i = 0; i < 5; i++) {
    if (strcmp(name, names[i]) == 0) {
      return 1;
    }
  }
  return 0;
}

// the first numeric field of node holding a number that is not finite or beyond a float's
// range, or NULL; Transform-like bounding boxes (never used) are not looked at
static const hsvField *badNumbers(const hsvNode *node) {
  for (int i = 0; node && i < node->nfield; i++) {
    const hsvField *f = &node->fields[i];
    if (!f->value.badLine || strncmp(f->name, "bbox", 4) == 0) {
      continue;
    }
    if (servedAsWritten(f->name)) {
      int finite = 1;
      for (int k = 0; k < f->value.nnum; k++) {
        finite &= isfinite(f->value.num[k]) != 0;
      }
      if (finite) {
        continue;
      }
    }
    return f;
  }
  return NULL;
}

// an error when a node the body is built from holds such a number
static int checkNumbers(Walker *w, const hsvNode *node) {
  const hsvField *f = badNumbers(node);
  if (!f) {
    return 0;
  }
  return HS_ERR_AT(w->err, hsE_MODEL, node->file, f->value.badLine, f->value.badColumn,
                   "%s '%s': field '%s' holds a number that is not finite or is beyond "
                   "3.4e38 (the range of the float it is served as)",
                   node->typeName, node->defName ? node->defName : "", f->name);
}

// an error when a transform computed from the file's numbers overflowed
static int checkFinite(Walker *w, const hsvNode *node, const double *v, int n,
                       const char *what) {
  for (int i = 0; i < n; i++) {
    if (!(fabs(v[i]) <= FLT_MAX)) {
      return errNode(w, node, "%s '%s': its %s is not finite or beyond 3.4e38 (nested scales "
                     "or translations overflow)", node->typeName,
                     node->defName ? node->defName : "", what);
    }
  }
  return 0;
}

//---------------------------------- small helpers ---------------------------------------------

static int isType(const hsvNode *node, const char *name) {
  return node && strcmp(node->typeName, name) == 0;
}

static size_t mapSlot(const MapEntry *e, size_t cap, const void *key, long ctx) {
  uint64_t h = ((uint64_t)(uintptr_t)key >> 4) * 0x9e3779b97f4a7c15u ^
               (uint64_t)ctx * 0xff51afd7ed558ccdu;
  size_t i = (size_t)(h >> 17) & (cap - 1);
  while (e[i].key && !(e[i].key == key && e[i].ctx == ctx)) {
    i = (i + 1) & (cap - 1);
  }
  return i;
}

// the value stored for (key, ctx), or -1
static int cacheFind(const Map *m, const void *key, long ctx) {
  if (!m->cap) {
    return -1;
  }
  const MapEntry *e = &m->e[mapSlot(m->e, m->cap, key, ctx)];
  return e->key ? e->value : -1;
}

// store value for (key, ctx), which must be absent
static int cachePut(Walker *w, Map *m, const void *key, long ctx, int value) {
  if (2 * (m->n + 1) > m->cap) {
    size_t cap = m->cap ? 2 * m->cap : 64;
    MapEntry *e = hsu_malloc(cap * sizeof *e);
    if (!e) {
      return nomem(w);
    }
    memset(e, 0, cap * sizeof *e);
    for (size_t i = 0; i < m->cap; i++) {
      if (m->e[i].key) {
        e[mapSlot(e, cap, m->e[i].key, m->e[i].ctx)] = m->e[i];
      }
    }
    hsu_free(m->e);
    m->e = e;
    m->cap = cap;
  }
  m->e[mapSlot(m->e, m->cap, key, ctx)] = (MapEntry){key, ctx, value};
  m->n++;
  return 0;
}

static void mapFree(Map *m) {
  hsu_free(m->e);
  memset(m, 0, sizeof *m);
}

static double getDoubleOr(const hsvNode *node, const char *name, double fallback) {
  double v = fallback;
  hsv_getDouble(node, name, &v);
  return v;
}

static int getIntOr(const hsvNode *node, const char *name, int fallback) {
  int v = fallback;
  hsv_getInt(node, name, &v);
  return v;
}

static int getBoolOr(const hsvNode *node, const char *name, int fallback) {
  int v = fallback;
  hsv_getBool(node, name, &v);
  return v;
}

static void getVec3Or(const hsvNode *node, const char *name, double out[3], double x, double y,
                      double z) {
  if (!hsv_getVec3(node, name, out)) {
    out[0] = x, out[1] = y, out[2] = z;
  }
}

// the VRML97 Transform of a node with (some of) the fields translation, rotation, scale,
// scaleOrientation, center: T C R SR S -SR -C
static void nodeTransform(const hsvNode *node, double T[12]) {
  double t[3], c[3], s[3], r[4] = {0, 0, 1, 0}, sr[4] = {0, 0, 1, 0};
  getVec3Or(node, "translation", t, 0, 0, 0);
  getVec3Or(node, "center", c, 0, 0, 0);
  getVec3Or(node, "scale", s, 1, 1, 1);
  hsv_getRotation(node, "rotation", r);
  hsv_getRotation(node, "scaleOrientation", sr);
  double R[9], SR[9], SRt[9], S[9] = {s[0], 0, 0, 0, s[1], 0, 0, 0, s[2]};
  hsu_axisAngleToMat(R, r);
  hsu_axisAngleToMat(SR, sr);
  hsu_transpose(SRt, SR);
  // linear part M = R SR S SR^T; translation = t + c - M c
  double A[9], B[9], M[9], Mc[3];
  hsu_mulMat(A, R, SR);
  hsu_mulMat(B, A, S);
  hsu_mulMat(M, B, SRt);
  hsu_rotVec(Mc, M, c);
  double p[3] = {t[0] + c[0] - Mc[0], t[1] + c[1] - Mc[1], t[2] + c[2] - Mc[2]};
  hsu_makeTransform(T, M, p);
}

static void identity12(double T[12]) {
  double I[9], z[3] = {0, 0, 0};
  hsu_setIdentity(I);
  hsu_makeTransform(T, I, z);
}

// copy an MF numeric value into a new int array (caller frees); NULL with *n = 0 if absent
static int *intsOf(const hsvValue *v, int *n) {
  *n = v ? v->nnum : 0;
  if (!v || v->nnum == 0) {
    return NULL;
  }
  int *out = hsu_malloc((size_t)v->nnum * sizeof(int));
  if (out) {
    for (int i = 0; i < v->nnum; i++) {
      out[i] = (int)v->num[i];
    }
  }
  return out;
}

// the node held by an SFNode field, resolved through non-OpenHRP PROTOs, or NULL
static const hsvNode *childNode(const hsvNode *node, const char *field) {
  const hsvValue *v = hsv_value(node, field, hsvSFNODE);
  return v && v->n > 0 ? hsv_resolve(v->node[0], kOpenHrpNodes) : NULL;
}

// the numbers of an MF field of the given type inside the node held by an SFNode field
static const hsvValue *childArray(const hsvNode *node, const char *field, const char *array,
                                  hstVrmlType type) {
  const hsvNode *c = childNode(node, field);
  return c ? hsv_value(c, array, type) : NULL;
}

// resolve a url (a file:// URL or a path, read by hsu_urlToPath) relative to the directory of
// the file that names it; caller frees. Another scheme stays as written (and fails to open,
// named, when the image is read).
static char *resolveUrl(const char *ref, const char *baseFile) {
  char url[PATH_MAX];
  if (hsu_urlToPath(ref, url, sizeof url) != 0) {
    snprintf(url, sizeof url, "%s", ref);
  }
  if (url[0] == '/' || !baseFile) {
    return hsu_strdup(url);
  }
  const char *slash = strrchr(baseFile, '/');
  size_t dirLen = slash ? (size_t)(slash - baseFile) + 1 : 0;
  char *out = hsu_malloc(dirLen + strlen(url) + 1);
  if (out) {
    memcpy(out, baseFile, dirLen);
    strcpy(out + dirLen, url);
  }
  return out;
}

//---------------------------------- appearance ------------------------------------------------

static int addMaterial(Walker *w, const hsvNode *mat) {
  int idx = cacheFind(&w->materialCache, mat, 0);
  if (idx >= 0) {
    return idx;
  }
  hsMaterial m;
  double c[3];
  m.ambientIntensity = (float)getDoubleOr(mat, "ambientIntensity", 0.2);
  getVec3Or(mat, "diffuseColor", c, 0.8, 0.8, 0.8);
  for (int k = 0; k < 3; k++) {
    m.diffuseColor[k] = (float)c[k];
  }
  getVec3Or(mat, "emissiveColor", c, 0, 0, 0);
  for (int k = 0; k < 3; k++) {
    m.emissiveColor[k] = (float)c[k];
  }
  m.shininess = (float)getDoubleOr(mat, "shininess", 0.2);
  getVec3Or(mat, "specularColor", c, 0, 0, 0);
  for (int k = 0; k < 3; k++) {
    m.specularColor[k] = (float)c[k];
  }
  m.transparency = (float)getDoubleOr(mat, "transparency", 0);
  idx = (int)w->b->materials.n;
  if (!hsu_vecPush(&w->b->materials, sizeof m, &m)) {
    return nomem(w);
  }
  return cachePut(w, &w->materialCache, mat, 0, idx) ? -1 : idx;
}

// PixelTexture's SFImage: width height components, then one packed integer per pixel, rows
// bottom first; stored rows top first
static int pixelImage(Walker *w, const hsvNode *tex, hsmTextureSpec *t) {
  const hsvValue *v = hsv_value(tex, "image", hsvSFIMAGE);
  if (!v || v->nnum < 3) {
    return 0;
  }
  int width = (int)v->num[0], height = (int)v->num[1], comps = (int)v->num[2];
  if (width <= 0 || height <= 0 || comps < 1 || comps > 4 || v->nnum < 3 + width * height) {
    return width * height == 0 ? 0 : errField(w, tex, "image", "malformed SFImage");
  }
  t->image = hsu_malloc((size_t)width * height * comps);
  if (!t->image) {
    return nomem(w);
  }
  for (int row = 0; row < height; row++) {
    for (int col = 0; col < width; col++) {
      unsigned long px = (unsigned long)v->num[3 + (height - 1 - row) * width + col];
      for (int k = 0; k < comps; k++) {
        t->image[((size_t)row * width + col) * comps + k] =
            (unsigned char)(px >> (8 * (comps - 1 - k)));
      }
    }
  }
  t->tex.width = width, t->tex.height = height, t->tex.numComponents = comps;
  t->tex.nimage = (size_t)width * height * comps;
  return 0;
}

static int addTexture(Walker *w, const hsvNode *tex) {
  int idx = cacheFind(&w->textureCache, tex, 0);
  if (idx >= 0) {
    return idx;
  }
  hsmTextureSpec t;
  memset(&t, 0, sizeof t);
  t.tex.repeatS = getBoolOr(tex, "repeatS", 1);
  t.tex.repeatT = getBoolOr(tex, "repeatT", 1);
  int rc = 0;
  if (isType(tex, "ImageTexture")) {
    const hsvValue *url = hsv_value(tex, "url", hsvMFSTRING);
    if (url && url->n > 0) {
      t.url = resolveUrl(url->str[0], tex->file);
      if (!t.url) {
        return nomem(w);
      }
      char why[800];
      if (hsm_readTextureImage(&t, w->opt.readImage, why, sizeof why)) {
        warn(w, tex, "%s", why);
      }
    }
  } else {
    rc = pixelImage(w, tex, &t);
  }
  if (!t.url) {
    t.url = hsu_strdup("");
  }
  idx = (int)w->b->textures.n;
  if (rc || !t.url || !hsu_vecPush(&w->b->textures, sizeof t, &t)) {
    hsu_free(t.url);
    hsu_free(t.image);
    return rc ? -1 : nomem(w);
  }
  return cachePut(w, &w->textureCache, tex, 0, idx) ? -1 : idx;
}

// VRML97 TextureTransform as a 3x3 matrix on (s, t, 1): -C S R C T
static void textureTransform(const hsvNode *tt, double M[9]) {
  hsu_setIdentity(M);
  if (!tt) {
    return;
  }
  const hsvValue *cv = hsv_value(tt, "center", hsvSFVEC2F);
  const hsvValue *sv = hsv_value(tt, "scale", hsvSFVEC2F);
  const hsvValue *tv = hsv_value(tt, "translation", hsvSFVEC2F);
  double c[2] = {cv ? cv->num[0] : 0, cv ? cv->num[1] : 0};
  double s[2] = {sv ? sv->num[0] : 1, sv ? sv->num[1] : 1};
  double t[2] = {tv ? tv->num[0] : 0, tv ? tv->num[1] : 0};
  double a = getDoubleOr(tt, "rotation", 0), ca = cos(a), sa = sin(a);
  double Tm[9] = {1, 0, t[0], 0, 1, t[1], 0, 0, 1};
  double Cm[9] = {1, 0, c[0], 0, 1, c[1], 0, 0, 1};
  double Rm[9] = {ca, -sa, 0, sa, ca, 0, 0, 0, 1};
  double Sm[9] = {s[0], 0, 0, 0, s[1], 0, 0, 0, 1};
  double Cn[9] = {1, 0, -c[0], 0, 1, -c[1], 0, 0, 1};
  double A[9], B[9], D[9];
  hsu_mulMat(A, Cm, Tm);
  hsu_mulMat(B, Rm, A);
  hsu_mulMat(D, Sm, B);
  hsu_mulMat(M, Cn, D);
}

// the material, texture and texture transform of a Shape's Appearance (-1: none); 0 or -1
static int appearanceOf(Walker *w, const hsvNode *shape, int *material, int *texture,
                        double texTransform[9]) {
  *material = -1, *texture = -1;
  hsu_setIdentity(texTransform);
  const hsvNode *app = childNode(shape, "appearance");
  if (!app) {
    return 0;
  }
  const hsvNode *mat = childNode(app, "material");
  const hsvField *bad = badNumbers(mat);
  if (bad) {
    warn(w, mat, "Material: field '%s' holds a number that is not finite or beyond 3.4e38; "
         "the material is left out", bad->name);
    mat = NULL;
  }
  if (mat && (*material = addMaterial(w, mat)) < 0) {
    return -1;
  }
  const hsvNode *tex = childNode(app, "texture");
  if (tex && (isType(tex, "ImageTexture") || isType(tex, "PixelTexture")) &&
      (*texture = addTexture(w, tex)) < 0) {
    return -1;
  }
  textureTransform(childNode(app, "textureTransform"), texTransform);
  return 0;
}

//---------------------------------- geometry --------------------------------------------------

// a geometry builder's error, located at the geometry node, keeping its code
static int errGeometry(Walker *w, const hsvNode *g, const hsError *e) {
  return HS_ERR_AT(w->err, e->code ? e->code : hsE_MODEL, g->file, g->line, g->column, "%s: %s",
                   g->typeName, e->message);
}

// the numbers of an attribute array (normals, colours, texture coordinates), or NULL when the
// array holds a number that is not finite or beyond a float's range: then it is dropped with a
// warning (an exporter's broken normals are regenerated)
static const hsvValue *shadingArray(Walker *w, const hsvNode *g, const char *field,
                                    const char *array, hstVrmlType type, const char *what) {
  const hsvValue *v = childArray(g, field, array, type);
  if (v && v->badLine) {
    char msg[300];
    snprintf(msg, sizeof msg, "%s: %s holds a number that is not finite or beyond 3.4e38; the "
             "%s are dropped%s", g->typeName, array, what,
             strcmp(what, "normals") == 0 ? " and generated from the geometry" : "");
    warnAt(w, g->file, v->badLine, msg);
    return NULL;
  }
  return v;
}

static int faceSetMesh(Walker *w, const hsvNode *g, hsmMesh *mesh) {
  hsmFaceSetInput in;
  memset(&in, 0, sizeof in);
  const hsvValue *coord = childArray(g, "coord", "point", hsvMFVEC3F);
  if (checkNumbers(w, g) || checkNumbers(w, childNode(g, "coord"))) {
    return -1;
  }
  const hsvValue *normal = shadingArray(w, g, "normal", "vector", hsvMFVEC3F, "normals");
  const hsvValue *color = shadingArray(w, g, "color", "color", hsvMFCOLOR, "colours");
  const hsvValue *tex =
      shadingArray(w, g, "texCoord", "point", hsvMFVEC2F, "texture coordinates");
  if (coord) {
    in.coord = coord->num, in.ncoord = coord->n;
  }
  if (normal) {
    in.normal = normal->num, in.nnormal = normal->n;
  }
  if (color) {
    in.color = color->num, in.ncolor = color->n;
  }
  if (tex) {
    in.texCoord = tex->num, in.ntexCoord = tex->n;
  }
  int *ci = intsOf(hsv_value(g, "coordIndex", hsvMFINT32), &in.ncoordIndex);
  int *ni = intsOf(normal ? hsv_value(g, "normalIndex", hsvMFINT32) : NULL, &in.nnormalIndex);
  int *ki = intsOf(color ? hsv_value(g, "colorIndex", hsvMFINT32) : NULL, &in.ncolorIndex);
  int *ti = intsOf(tex ? hsv_value(g, "texCoordIndex", hsvMFINT32) : NULL, &in.ntexCoordIndex);
  int rc = 0;
  if ((in.ncoordIndex && !ci) || (in.nnormalIndex && !ni) || (in.ncolorIndex && !ki) ||
      (in.ntexCoordIndex && !ti)) {
    rc = nomem(w);
  } else {
    in.coordIndex = ci, in.normalIndex = ni, in.colorIndex = ki, in.texCoordIndex = ti;
    in.normalPerVertex = getBoolOr(g, "normalPerVertex", 1);
    in.colorPerVertex = getBoolOr(g, "colorPerVertex", 1);
    in.ccw = getBoolOr(g, "ccw", 1);
    in.convex = getBoolOr(g, "convex", 1);
    in.creaseAngle = getDoubleOr(g, "creaseAngle", 0);
    hsError e = {0};
    if (hsm_meshFaceSet(mesh, &in, &e)) {
      rc = errGeometry(w, g, &e);
    }
  }
  hsu_free(ci);
  hsu_free(ni);
  hsu_free(ki);
  hsu_free(ti);
  return rc;
}

// an error when a geometry would make more triangles than the budget has left (a few numbers
// can ask for a huge grid or extrusion: checked before anything is allocated)
static int checkTriangleBudget(Walker *w, const hsvNode *g, double triangles) {
  if (w->triangles + triangles > (double)w->opt.maxTriangles) {
    return errNode(w, g, "%s would make %.0f triangles, beyond the model's limit of %ld (raise "
                   "the maxTriangles option if it is really this large)", g->typeName,
                   triangles, w->opt.maxTriangles);
  }
  return 0;
}

static int elevationGridMesh(Walker *w, const hsvNode *g, hsmMesh *mesh) {
  if (checkNumbers(w, g) ||
      checkTriangleBudget(w, g, 2.0 * fmax(getIntOr(g, "xDimension", 0) - 1, 0) *
                                    fmax(getIntOr(g, "zDimension", 0) - 1, 0))) {
    return -1;
  }
  hsmElevationGridInput in;
  memset(&in, 0, sizeof in);
  in.xDimension = getIntOr(g, "xDimension", 0);
  in.zDimension = getIntOr(g, "zDimension", 0);
  in.xSpacing = getDoubleOr(g, "xSpacing", 1);
  in.zSpacing = getDoubleOr(g, "zSpacing", 1);
  const hsvValue *h = hsv_value(g, "height", hsvMFFLOAT);
  if (h) {
    in.height = h->num, in.nheight = h->n;
  }
  in.ccw = getBoolOr(g, "ccw", 1);
  in.creaseAngle = getDoubleOr(g, "creaseAngle", 0);
  hsError e = {0};
  return hsm_meshElevationGrid(mesh, &in, &e) ? errGeometry(w, g, &e) : 0;
}

static int extrusionMesh(Walker *w, const hsvNode *g, hsmMesh *mesh) {
  if (checkNumbers(w, g)) {
    return -1;
  }
  hsmExtrusionInput in;
  memset(&in, 0, sizeof in);
  const hsvValue *cs = hsv_value(g, "crossSection", hsvMFVEC2F);
  const hsvValue *sp = hsv_value(g, "spine", hsvMFVEC3F);
  const hsvValue *sc = hsv_value(g, "scale", hsvMFVEC2F);
  const hsvValue *ori = hsv_value(g, "orientation", hsvMFROTATION);
  if (cs) {
    in.crossSection = cs->num, in.ncrossSection = cs->n;
  }
  if (sp) {
    in.spine = sp->num, in.nspine = sp->n;
  }
  if (sc) {
    in.scale = sc->num, in.nscale = sc->n;
  }
  if (ori) {
    in.orientation = ori->num, in.norientation = ori->n;
  }
  if (checkTriangleBudget(w, g, 2.0 * in.nspine * in.ncrossSection + 2.0 * in.ncrossSection)) {
    return -1;
  }
  in.beginCap = getBoolOr(g, "beginCap", 1);
  in.endCap = getBoolOr(g, "endCap", 1);
  in.ccw = getBoolOr(g, "ccw", 1);
  in.convex = getBoolOr(g, "convex", 1);
  in.creaseAngle = getDoubleOr(g, "creaseAngle", 0);
  hsError e = {0};
  return hsm_meshExtrusion(mesh, &in, &e) ? errGeometry(w, g, &e) : 0;
}

// a negative primitive size: OpenHRP's TriangleMeshShaper removes the shape with a message
static int negativeSize(Walker *w, const hsvNode *g, const double *v, int n) {
  for (int k = 0; k < n; k++) {
    if (v[k] < 0) {
      warn(w, g, "%s has a negative size; the shape is left out (as OpenHRP leaves it out)",
           g->typeName);
      return 1;
    }
  }
  return 0;
}

// build the mesh of a geometry node and remember its primitive; returns 1 if the node has no
// triangles (Text, PointSet, IndexedLineSet, negative sizes), 0 on success, negative on error
static int geometryMesh(Walker *w, const hsvNode *g, hsmShapeSpec *s) {
  hsError e = {0};
  int rc = 0;
  int slices = w->opt.sphereSlices, stacks = w->opt.sphereStacks;
  s->primitive = hsPRIM_MESH;
  if ((isType(g, "Box") || isType(g, "Sphere") || isType(g, "Cylinder") || isType(g, "Cone")) &&
      checkNumbers(w, g)) {
    return -1;
  }
  if (isType(g, "Box")) {
    double size[3];
    getVec3Or(g, "size", size, 2, 2, 2);
    if (negativeSize(w, g, size, 3)) {
      return 1;
    }
    rc = hsm_meshBox(&s->mesh, size, &e);
    s->primitive = hsPRIM_BOX;
    s->nparam = 3;
    for (int k = 0; k < 3; k++) {
      s->params[k] = (float)size[k];
    }
  } else if (isType(g, "Sphere")) {
    double r = getDoubleOr(g, "radius", 1);
    if (negativeSize(w, g, &r, 1)) {
      return 1;
    }
    rc = hsm_meshSphere(&s->mesh, r, slices, stacks, &e);
    s->primitive = hsPRIM_SPHERE;
    s->nparam = 1;
    s->params[0] = (float)r;
  } else if (isType(g, "Cylinder")) {
    double r = getDoubleOr(g, "radius", 1), h = getDoubleOr(g, "height", 2);
    int top = getBoolOr(g, "top", 1), bottom = getBoolOr(g, "bottom", 1);
    int side = getBoolOr(g, "side", 1);
    if (negativeSize(w, g, (double[2]){r, h}, 2)) {
      return 1;
    }
    rc = hsm_meshCylinder(&s->mesh, r, h, top, bottom, side, slices, &e);
    s->primitive = hsPRIM_CYLINDER;
    s->nparam = 5;
    float p[5] = {(float)r, (float)h, (float)top, (float)bottom, (float)side};
    memcpy(s->params, p, sizeof p);
  } else if (isType(g, "Cone")) {
    double r = getDoubleOr(g, "bottomRadius", 1), h = getDoubleOr(g, "height", 2);
    int bottom = getBoolOr(g, "bottom", 1), side = getBoolOr(g, "side", 1);
    if (negativeSize(w, g, (double[2]){r, h}, 2)) {
      return 1;
    }
    rc = hsm_meshCone(&s->mesh, r, h, bottom, side, slices, &e);
    s->primitive = hsPRIM_CONE;
    s->nparam = 4;
    float p[4] = {(float)r, (float)h, (float)bottom, (float)side};
    memcpy(s->params, p, sizeof p);
  } else if (isType(g, "IndexedFaceSet")) {
    return faceSetMesh(w, g, &s->mesh);
  } else if (isType(g, "ElevationGrid")) {
    return elevationGridMesh(w, g, &s->mesh);
  } else if (isType(g, "Extrusion")) {
    return extrusionMesh(w, g, &s->mesh);
  } else {
    return 1;
  }
  if (rc) {
    return errGeometry(w, g, &e);
  }
  return 0;
}

// the builder shape for a Shape node in an Inline context, named after url (the file of the
// outermost Inline, or NULL for the body's own file, as OpenHRP names shapes); -2 if it has no
// triangles
static int addShape(Walker *w, const hsvNode *shape, long ctx, const char *url) {
  int idx = cacheFind(&w->shapeCache, shape, ctx);
  if (idx >= 0) {
    return idx;
  }
  const hsvValue *gv = hsv_value(shape, "geometry", hsvSFNODE);
  const hsvNode *raw = gv && gv->n > 0 ? gv->node[0] : NULL;
  const hsvNode *geom = raw ? hsv_resolve(raw, NULL) : NULL;
  if (!geom) {
    return -2;
  }
  hsmShapeSpec s;
  memset(&s, 0, sizeof s);
  int rc = geometryMesh(w, geom, &s);
  if (rc != 0 || s.mesh.ntriangle == 0) {
    hsm_freeMesh(&s.mesh);
    return rc < 0 ? -1 : -2;
  }
  if (raw->proto) {
    // OpenHRP knows the primitive only of a geometry node written as itself; its "Plane"
    // PROTO over a Box is a plane of the Box's size
    int plane = strcmp(raw->typeName, "Plane") == 0 && s.primitive == hsPRIM_BOX;
    s.primitive = plane ? hsPRIM_PLANE : hsPRIM_MESH;
    s.nparam = plane ? 3 : 0;
  }
  w->triangles += s.mesh.ntriangle;
  if (w->triangles > w->opt.maxTriangles) {
    hsm_freeMesh(&s.mesh);
    return errNode(w, shape, "the model has more than %ld triangles (raise the maxTriangles "
                   "option if it is really this large)", w->opt.maxTriangles), -1;
  }
  hsmShapeInput in = {s.primitive, s.params, s.nparam, &s.mesh, url ? url : w->b->url, -1, -1,
                      getBoolOr(geom, "solid", 1), getDoubleOr(geom, "creaseAngle", 0), NULL};
  double texTransform[9];
  if (appearanceOf(w, shape, &in.material, &in.texture, texTransform)) {
    hsm_freeMesh(&s.mesh);
    return -1;
  }
  in.texTransform = texTransform;
  idx = hsm_addShape(w->b, &in, w->err);
  if (idx < 0) {
    return -1;
  }
  return cachePut(w, &w->shapeCache, shape, ctx, idx) ? -1 : idx;
}

static int placeShape(Walker *w, const hsvNode *shape, const double T[12], Owner o) {
  if (++w->instances > w->opt.maxShapeInstances) {
    return errNode(w, shape, "the model places more than %ld shapes (DEF/USE or Inline "
                   "repeat them; raise the maxShapeInstances option if it is really this "
                   "large)", w->opt.maxShapeInstances);
  }
  int idx = addShape(w, shape, o.ctx, o.inlineUrl);
  if (idx == -2) {
    return 0;
  }
  if (idx < 0) {
    return -1;
  }
  hsShapeRef ref;
  memcpy(ref.T, T, sizeof ref.T);
  ref.inlineMatrix = o.inlineMatrix;
  ref.shape = idx;
  hsuVec *refs = o.sensor >= 0 ? &SENSOR(w, o.sensor).shapeRefs : &LINK(w, o.link).shapeRefs;
  int refIndex = (int)refs->n;
  if (!hsu_vecPush(refs, sizeof ref, &ref)) {
    return nomem(w);
  }
  if (o.segment >= 0 && o.sensor < 0 &&
      !hsu_vecPush(&SEGMENT(w, o.segment).shapeRefs, sizeof(int), &refIndex)) {
    return nomem(w);
  }
  return 0;
}

//---------------------------------- OpenHRP nodes ---------------------------------------------

static int addSegment(Walker *w, const hsvNode *node, const double T[12], Owner o) {
  if (checkNumbers(w, node)) {
    return -1;
  }
  if (!hsu_isRigid(T, 1e-9)) {
    return errNode(w, node, "Segment '%s' is under a scaling Transform; mass properties need "
                   "a rigid frame", node->defName ? node->defName : "");
  }
  hsmSegmentSpec s;
  memset(&s, 0, sizeof s);
  s.seg.link = o.link;
  s.seg.mass = getDoubleOr(node, "mass", 0);
  getVec3Or(node, "centerOfMass", s.seg.com, 0, 0, 0);
  memcpy(s.seg.T, T, sizeof s.seg.T);
  s.where = (hsmSource){node->file, node->line, node->column};
  const char *name = node->defName ? node->defName : "";
  if (!(s.seg.mass >= 0) || !isfinite(s.seg.mass)) {
    return errField(w, node, "mass", "Segment '%s' has a negative or invalid mass %g", name,
                    s.seg.mass);
  }
  // inertia: 9 numbers, symmetric, positive definite (all zeros means "none given")
  const hsvValue *mi = hsv_value(node, "momentsOfInertia", hsvMFFLOAT);
  if (mi && mi->n != 0 && mi->n != 9) {
    return errField(w, node, "momentsOfInertia",
                    "Segment '%s': momentsOfInertia needs 9 numbers, has %d", name, mi->n);
  }
  if (mi && mi->n == 9) {
    memcpy(s.seg.inertia, mi->num, sizeof s.seg.inertia);
  }
  const double *I = s.seg.inertia;
  double scale = 0;
  int zero = 1;
  for (int k = 0; k < 9; k++) {
    scale = fmax(scale, fabs(I[k]));
    zero &= I[k] == 0;
  }
  if (!zero) {
    if (fabs(I[1] - I[3]) > 1e-9 * scale || fabs(I[2] - I[6]) > 1e-9 * scale ||
        fabs(I[5] - I[7]) > 1e-9 * scale) {
      return errField(w, node, "momentsOfInertia", "Segment '%s': inertia is not symmetric",
                      name);
    }
    // Cholesky: positive leading minors
    double d1 = I[0], d2 = I[0] * I[4] - I[1] * I[3];
    double d3 = I[0] * (I[4] * I[8] - I[5] * I[7]) - I[1] * (I[3] * I[8] - I[5] * I[6]) +
                I[2] * (I[3] * I[7] - I[4] * I[6]);
    if (!(d1 > 0 && d2 > 0 && d3 > 0)) {
      return errField(w, node, "momentsOfInertia",
                      "Segment '%s': inertia is not positive definite", name);
    }
  }
  s.name = hsu_strdup(name);
  int idx = (int)w->b->segments.n;
  if (!s.name || !hsu_vecPush(&w->b->segments, sizeof s, &s)) {
    hsu_free(s.name);
    return nomem(w);
  }
  // the segment's shapes: frames stay relative to the link
  const hsvValue *children = hsv_value(node, "children", hsvMFNODE);
  Owner inner = o;
  inner.segment = idx;
  return children ? walkChildren(w, node, children->node, children->n, T, inner) : 0;
}

// a sensor PROTO instance: its type, or -1 if the node is not a sensor
static int sensorType(const hsvNode *node) {
  static const char *const names[] = {"ForceSensor", "Gyro", "AccelerationSensor",
                                      "VisionSensor", "RangeSensor"};
  for (int i = 0; i < 5; i++) {
    if (node->proto && isType(node, names[i])) {
      return i;
    }
  }
  return -1;
}

static int pushFloat(Walker *w, hsuVec *v, double x) {
  float f = (float)x;
  return hsu_vecPush(v, sizeof f, &f) ? 0 : nomem(w);
}

static int pushVec3(Walker *w, hsuVec *v, const hsvNode *node, const char *field) {
  double x[3];
  getVec3Or(node, field, x, -1, -1, -1);
  for (int k = 0; k < 3; k++) {
    if (pushFloat(w, v, x[k])) {
      return -1;
    }
  }
  return 0;
}

// OpenHRP's specValues layout for each sensor type (see model.h)
static int sensorSpecValues(Walker *w, const hsvNode *node, hstSensor type, hsuVec *v) {
  switch (type) {
    case hsSENSOR_FORCE:
      return pushVec3(w, v, node, "maxForce") || pushVec3(w, v, node, "maxTorque") ? -1 : 0;
    case hsSENSOR_RATEGYRO:
      return pushVec3(w, v, node, "maxAngularVelocity");
    case hsSENSOR_ACCELERATION:
      return pushVec3(w, v, node, "maxAcceleration");
    case hsSENSOR_VISION: {
      static const char *const kinds[] = {"NONE", "COLOR", "MONO", "DEPTH", "COLOR_DEPTH",
                                          "MONO_DEPTH"};
      const char *kind = hsv_getString(node, "type");
      int k = 0;
      if (kind) {
        for (k = 0; k < 6 && strcmp(kind, kinds[k]) != 0; k++) {
        }
        if (k == 6) {
          return errField(w, node, "type", "VisionSensor '%s': unknown type \"%s\" (expected "
                          "NONE, COLOR, MONO, DEPTH, COLOR_DEPTH or MONO_DEPTH)",
                          node->defName ? node->defName : "", kind);
        }
      }
      double vals[7] = {getDoubleOr(node, "frontClipDistance", 0.01),
                        getDoubleOr(node, "backClipDistance", 10.0),
                        getDoubleOr(node, "fieldOfView", 0.785398),
                        k,
                        getIntOr(node, "width", 320),
                        getIntOr(node, "height", 240),
                        getDoubleOr(node, "frameRate", 30)};
      for (int i = 0; i < 7; i++) {
        if (pushFloat(w, v, vals[i])) {
          return -1;
        }
      }
      return 0;
    }
    default: {
      double vals[4] = {getDoubleOr(node, "scanAngle", 3.14159), getDoubleOr(node, "scanStep", 0.1),
                        getDoubleOr(node, "scanRate", 10), getDoubleOr(node, "maxDistance", 10)};
      for (int i = 0; i < 4; i++) {
        if (pushFloat(w, v, vals[i])) {
          return -1;
        }
      }
      return 0;
    }
  }
}

static int addSensor(Walker *w, const hsvNode *node, int type, const double T[12], Owner o) {
  hsmSensorSpec s;
  memset(&s, 0, sizeof s);
  s.sensor.type = (hstSensor)type;
  s.sensor.link = o.link;
  s.sensor.id = getIntOr(node, "sensorId", -1);
  if (checkNumbers(w, node)) {
    return -1;
  }
  const hsvField *idf = hsv_field(node, "sensorId");
  s.idAt = (hsmSource){node->file, node->line, node->column};
  if (idf && idf->given) {
    s.idAt.line = idf->value.line, s.idAt.column = idf->value.column;
  }
  const char *name = node->defName ? node->defName : hsv_getString(node, "name");
  if (s.sensor.id < 0) {
    return errField(w, node, "sensorId", "%s '%s' needs a sensorId >= 0", node->typeName,
                    name ? name : "");
  }
  // the sensor frame in the link frame
  double local[12], S[12], R[9];
  nodeTransform(node, local);
  hsu_mulTransform(S, T, local);
  if (checkFinite(w, node, S, 12, "frame")) {
    return -1;
  }
  if (!hsu_isRigid(S, 1e-9)) {
    return errNode(w, node, "%s '%s' is under a scaling Transform", node->typeName,
                   name ? name : "");
  }
  hsu_splitTransform(R, s.sensor.translation, S);
  hsu_matToAxisAngle(s.sensor.rotation, R);
  if (sensorSpecValues(w, node, s.sensor.type, &s.specValues)) {
    hsu_vecFree(&s.specValues);
    return -1;
  }
  s.name = hsu_strdup(name ? name : "");
  s.specFile = hsu_strdup("");
  int idx = (int)w->b->sensors.n;
  if (!s.name || !s.specFile || !hsu_vecPush(&w->b->sensors, sizeof s, &s)) {
    hsu_free(s.name);
    hsu_free(s.specFile);
    hsu_vecFree(&s.specValues);
    return nomem(w);
  }
  // shapes under the sensor are placed in the sensor frame
  const hsvValue *children = hsv_value(node, "children", hsvMFNODE);
  if (!children) {
    return 0;
  }
  double I[12];
  identity12(I);
  Owner inner = {o.link, idx, -1, -1, o.ctx, NULL};
  return walkChildren(w, node, children->node, children->n, I, inner);
}

static int addLight(Walker *w, const hsvNode *node, const double T[12], Owner o) {
  if (checkNumbers(w, node)) {
    return -1;
  }
  hsmLightSpec l;
  memset(&l, 0, sizeof l);
  l.light.type = isType(node, "PointLight")         ? hsLIGHT_POINT
                 : isType(node, "DirectionalLight") ? hsLIGHT_DIRECTIONAL
                                                    : hsLIGHT_SPOT;
  l.light.link = o.link;
  memcpy(l.light.T, T, sizeof l.light.T);
  l.light.ambientIntensity = getDoubleOr(node, "ambientIntensity", 0);
  getVec3Or(node, "attenuation", l.light.attenuation, 1, 0, 0);
  getVec3Or(node, "color", l.light.color, 1, 1, 1);
  l.light.intensity = getDoubleOr(node, "intensity", 1);
  getVec3Or(node, "location", l.light.location, 0, 0, 0);
  l.light.on = getBoolOr(node, "on", 1);
  l.light.radius = getDoubleOr(node, "radius", 100);
  getVec3Or(node, "direction", l.light.direction, 0, 0, -1);
  l.light.beamWidth = getDoubleOr(node, "beamWidth", 1.570796);
  l.light.cutOffAngle = getDoubleOr(node, "cutOffAngle", 0.785398);
  l.name = hsu_strdup(node->defName ? node->defName : "");
  if (!l.name || !hsu_vecPush(&w->b->lights, sizeof l, &l)) {
    hsu_free(l.name);
    return nomem(w);
  }
  return 0;
}

static int addExtraJoint(Walker *w, const hsvNode *node) {
  const char *name = node->defName ? node->defName : "";
  if (checkNumbers(w, node)) {
    return -1;
  }
  const char *type = hsv_getString(node, "jointType");
  hstExtraJoint t = hsEXTRA_NTYPES;
  int known = hsm_parseExtraJointType(type, &t) == 0;
  // Choreonoid's names: a "piston" keeps the point on the axis (xy), a "ball" is xyz
  if (!known && type && (strcmp(type, "piston") == 0 || strcmp(type, "ball") == 0)) {
    t = type[0] == 'p' ? hsEXTRA_XY : hsEXTRA_XYZ;
    known = 1;
    warn(w, node, "ExtraJoint '%s': jointType \"%s\" (Choreonoid) read as \"%s\"", name, type,
         hsm_extraJointTypeName(t));
  }
  if (!known) {
    return errField(w, node, "jointType",
                    "ExtraJoint '%s': jointType \"%s\" is not one of xyz, xy, z (or "
                    "Choreonoid's piston, ball)", name, type ? type : "");
  }
  const char *l1 = hsv_getString(node, "link1Name"), *l2 = hsv_getString(node, "link2Name");
  if (!l1 || !l2 || !l1[0] || !l2[0]) {
    return errNode(w, node, "ExtraJoint '%s' needs link1Name and link2Name", name);
  }
  hsmExtraJointSpec e;
  memset(&e, 0, sizeof e);
  e.ej.type = t;
  getVec3Or(node, "jointAxis", e.ej.axis, 0, 0, 1);
  getVec3Or(node, "link1LocalPos", e.ej.point[0], 0, 0, 0);
  getVec3Or(node, "link2LocalPos", e.ej.point[1], 0, 0, 0);
  e.where = (hsmSource){node->file, node->line, node->column};
  e.name = hsu_strdup(name);
  e.linkName[0] = hsu_strdup(l1);
  e.linkName[1] = hsu_strdup(l2);
  if (!e.name || !e.linkName[0] || !e.linkName[1] ||
      !hsu_vecPush(&w->b->extraJoints, sizeof e, &e)) {
    hsu_free(e.name);
    hsu_free(e.linkName[0]);
    hsu_free(e.linkName[1]);
    return nomem(w);
  }
  return 0;
}

// jointAxis as a vector, or the legacy strings "X", "Y", "Z"; unit length, except that a free or
// fixed joint, whose axis plays no role, keeps a zero axis as written (OpenHRP serves it so)
static int jointAxis(Walker *w, const hsvNode *node, hstJoint type, double axis[3]) {
  axis[0] = 0, axis[1] = 0, axis[2] = 1;
  const char *s = hsv_getString(node, "jointAxis");
  if (s) {
    if (strlen(s) != 1 || (s[0] != 'X' && s[0] != 'Y' && s[0] != 'Z')) {
      return errField(w, node, "jointAxis", "jointAxis \"%s\" is not X, Y, Z or a vector", s);
    }
    axis[2] = 0;
    axis[s[0] - 'X'] = 1;
    return 0;
  }
  hsv_getVec3(node, "jointAxis", axis);
  double n = hsu_norm(axis);
  if (n == 0 && (type == hsJOINT_FREE || type == hsJOINT_FIXED)) {
    return 0;
  }
  if (!(n > 0) || !isfinite(n)) {
    return errField(w, node, "jointAxis", "jointAxis has zero length (a %s joint needs an axis)",
                    hsm_jointTypeName(type));
  }
  for (int k = 0; k < 3; k++) {
    axis[k] /= n;
  }
  return 0;
}

// OpenHRP's name for a jointType that Choreonoid's VRML and YAML loaders also accept (the
// name itself when it has no other)
static const char *openHrpJointType(const char *type) {
  static const char *const names[][2] = {
      {"pseudoContinuousTrack", "crawler"}, {"pseudo_continuous_track", "crawler"},
      {"agx_crawler", "crawler"}, {"revolute", "rotate"}, {"prismatic", "slide"}};
  for (size_t i = 0; type && i < sizeof names / sizeof names[0]; i++) {
    if (strcmp(type, names[i][0]) == 0) {
      return names[i][1];
    }
  }
  return type;
}

static int addJoint(Walker *w, const hsvNode *node, int parent, const double T[12], long ctx) {
  const char *name = node->defName;
  if (!name || !name[0]) {
    return errNode(w, node, "a Joint needs a DEF name (the link name)");
  }
  for (size_t i = 0; i < w->b->links.n; i++) {
    if (strcmp(LINK(w, i).name, name) == 0) {
      return errNode(w, node, "two links are named '%s' (a Joint may not be USEd twice)", name);
    }
  }
  hsmLinkSpec l;
  memset(&l, 0, sizeof l);
  l.where = (hsmSource){node->file, node->line, node->column};
  l.jointIdAt = l.where;
  const hsvField *idf = hsv_field(node, "jointId");
  if (idf && idf->given) {
    l.jointIdAt.line = idf->value.line, l.jointIdAt.column = idf->value.column;
  }
  hsLink *k = &l.link;
  k->parent = parent;
  k->jointId = getIntOr(node, "jointId", -1);
  if (k->jointId < -1) {
    k->jointId = -1;  // any negative id means "not numbered", as in OpenHRP
  }
  if (k->jointId > 32767) {
    return errField(w, node, "jointId", "Joint '%s': jointId %d is beyond 32767 (OpenHRP "
                    "serves jointIds as shorts)", name, k->jointId);
  }
  if (checkNumbers(w, node)) {
    return -1;
  }
  const char *type = hsv_getString(node, "jointType");
  const char *openhrp = openHrpJointType(type);
  if (openhrp != type) {
    warn(w, node, "Joint '%s': jointType \"%s\" (Choreonoid) read as \"%s\"", name, type,
         openhrp);
    type = openhrp;
  }
  if (hsm_parseJointType(type, &k->jointType)) {
    return errField(w, node, "jointType", "Joint '%s': jointType \"%s\" is not one of free, "
                    "rotate, slide, fixed, crawler", name, type ? type : "");
  }
  if (jointAxis(w, node, k->jointType, k->axis)) {
    return -1;
  }
  k->jointValue = getDoubleOr(node, "jointValue", 0);
  k->rotorInertia = getDoubleOr(node, "rotorInertia", 0);
  k->rotorResistor = getDoubleOr(node, "rotorResistor", 0);
  k->gearRatio = getDoubleOr(node, "gearRatio", 1);
  k->torqueConst = getDoubleOr(node, "torqueConst", 1);
  k->encoderPulse = getDoubleOr(node, "encoderPulse", 1);
  k->AABBmaxDepth = 1;
  k->AABBmaxNum = 1;
  // the link frame: the enclosing frame times the Joint's own transform
  double local[12], L[12], R[9];
  nodeTransform(node, local);
  hsu_mulTransform(L, T, local);
  if (checkFinite(w, node, L, 12, "frame")) {
    return -1;
  }
  if (!hsu_isRigid(L, 1e-9)) {
    return errNode(w, node, "Joint '%s' has a scaled frame (scale applies to shapes only)",
                   name);
  }
  hsu_splitTransform(R, k->translation, L);
  hsu_matToAxisAngle(k->rotation, R);
  static const char *const limits[5] = {"ulimit", "llimit", "uvlimit", "lvlimit", "climit"};
  int rc = 0;
  for (int i = 0; i < 5 && !rc; i++) {
    const hsvValue *v = hsv_value(node, limits[i], hsvMFFLOAT);
    for (int j = 0; v && j < v->n && !rc; j++) {
      rc = hsu_vecPush(&l.limits[i], sizeof(double), &v->num[j]) ? 0 : nomem(w);
    }
  }
  l.name = hsu_strdup(name);
  l.jointTypeName = hsu_strdup(type);
  int idx = (int)w->b->links.n;
  if (rc || !l.name || !l.jointTypeName || !hsu_vecPush(&w->b->links, sizeof l, &l)) {
    hsu_free(l.name);
    hsu_free(l.jointTypeName);
    for (int i = 0; i < 5; i++) {
      hsu_vecFree(&l.limits[i]);
    }
    return rc ? rc : nomem(w);
  }
  const hsvValue *children = hsv_value(node, "children", hsvMFNODE);
  if (!children) {
    return 0;
  }
  double I[12];
  identity12(I);
  Owner o = {idx, -1, -1, -1, ctx, NULL};
  return walkChildren(w, node, children->node, children->n, I, o);
}

//---------------------------------- the walk --------------------------------------------------

static int walkNode(Walker *w, const hsvNode *raw, const double T[12], Owner o);

// walk a grouping node's children one level deeper, within the nesting limit
static int walkChildren(Walker *w, const hsvNode *node, hsvNode *const *nodes, int n,
                        const double T[12], Owner o) {
  if (++w->depth > w->opt.maxNesting) {
    return errNode(w, node, "grouping nodes nested more than %d deep (raise the maxNesting "
                   "option if the model is really this deep)", w->opt.maxNesting);
  }
  int rc = walkNodes(w, nodes, n, T, o);
  w->depth--;
  return rc;
}

static int walkNode(Walker *w, const hsvNode *raw, const double T[12], Owner o) {
  const hsvNode *node = hsv_resolve(raw, kOpenHrpNodes);
  int st;
  if (!node) {
    return 0;
  }
  if (++w->visits > w->opt.maxNodeVisits) {
    return errNode(w, node, "the scene expands to more than %ld nodes (DEF/USE or Inline "
                   "repeat parts of it; raise the maxNodeVisits option if it is really this "
                   "large)", w->opt.maxNodeVisits);
  }
  if (node->proto && isType(node, "Joint")) {
    return addJoint(w, node, o.link, T, o.ctx);
  }
  if (node->proto && isType(node, "Segment")) {
    return addSegment(w, node, T, o);
  }
  if ((st = sensorType(node)) >= 0) {
    return addSensor(w, node, st, T, o);
  }
  if (node->proto && isType(node, "ExtraJoint")) {
    return addExtraJoint(w, node);
  }
  if (node->proto && isType(node, "Humanoid")) {
    return errNode(w, node, "a Humanoid may only appear at the top level");
  }
  if (isType(node, "Shape")) {
    return placeShape(w, node, T, o);
  }
  if (isType(node, "Transform")) {
    double scale[3];
    if (checkNumbers(w, node)) {
      return -1;
    }
    if (hsv_getVec3(node, "scale", scale) && !(scale[0] > 0 && scale[1] > 0 && scale[2] > 0)) {
      return errField(w, node, "scale", "Transform scale %g %g %g: VRML97 requires each "
                      "component to be positive", scale[0], scale[1], scale[2]);
    }
    double local[12], S[12];
    nodeTransform(node, local);
    hsu_mulTransform(S, T, local);
    if (checkFinite(w, node, S, 12, "frame")) {
      return -1;
    }
    const hsvValue *c = hsv_value(node, "children", hsvMFNODE);
    return c ? walkChildren(w, node, c->node, c->n, S, o) : 0;
  }
  if (isType(node, "Group") || isType(node, "Anchor") || isType(node, "Billboard") ||
      isType(node, "Collision")) {
    const hsvValue *c = hsv_value(node, "children", hsvMFNODE);
    return c ? walkChildren(w, node, c->node, c->n, T, o) : 0;
  }
  if (isType(node, "Switch")) {
    const hsvValue *c = hsv_value(node, "choice", hsvMFNODE);
    int which = getIntOr(node, "whichChoice", -1);
    return c && which >= 0 && which < c->n ? walkChildren(w, node, &c->node[which], 1, T, o) : 0;
  }
  if (isType(node, "LOD")) {
    const hsvValue *c = hsv_value(node, "level", hsvMFNODE);
    return c && c->n > 0 ? walkChildren(w, node, &c->node[0], 1, T, o) : 0;
  }
  if (isType(node, "Inline")) {
    // as OpenHRP: the outermost Inline's frame is remembered so clients can tell inlined parts
    // apart, and its file names the shapes inside (nested Inlines keep both)
    Owner inner = o;
    if (o.inlineMatrix < 0) {
      hsuVec *mats = o.sensor >= 0 ? &SENSOR(w, o.sensor).inlined : &LINK(w, o.link).inlined;
      inner.inlineMatrix = (int)mats->n;
      inner.inlineUrl = node->inlineUrl;
      if (!hsu_vecPush(mats, 12 * sizeof(double), T)) {
        return nomem(w);
      }
    }
    // the file's nodes are OpenHRP's own copy for each chain of Inline nodes: a context
    long ctx = cacheFind(&w->inlineCtx, node, o.ctx);
    if (ctx < 0) {
      ctx = ++w->nctx;
      if (ctx > INT_MAX || cachePut(w, &w->inlineCtx, node, o.ctx, (int)ctx)) {
        return ctx > INT_MAX ? errNode(w, node, "too many Inline copies") : -1;
      }
    }
    inner.ctx = ctx;
    return walkChildren(w, node, node->inlined, node->ninlined, T, inner);
  }
  if (isType(node, "PointLight") || isType(node, "DirectionalLight") ||
      isType(node, "SpotLight")) {
    return addLight(w, node, T, o);
  }
  // everything else (viewpoints, sensors of VRML's own, interpolators, scripts ...) carries
  // nothing a body needs
  return 0;
}

static int walkNodes(Walker *w, hsvNode *const *nodes, int n, const double T[12], Owner o) {
  for (int i = 0; i < n; i++) {
    if (walkNode(w, nodes[i], T, o)) {
      return -1;
    }
  }
  return 0;
}

// warn about jointIds that no Joint has below the largest one: OpenHRP's Body fills them with
// empty joints, so joint-ordered arrays have largest + 1 entries (see hsBody.jointLink)
static void warnJointIdGaps(Walker *w) {
  int maxId = -1;
  for (size_t i = 0; i < w->b->links.n; i++) {
    maxId = LINK(w, i).link.jointId > maxId ? LINK(w, i).link.jointId : maxId;
  }
  if (maxId < 0) {
    return;
  }
  unsigned char *seen = hsu_malloc((size_t)maxId + 1);
  if (!seen) {
    return;
  }
  memset(seen, 0, (size_t)maxId + 1);
  const hsmLinkSpec *top = NULL;
  for (size_t i = 0; i < w->b->links.n; i++) {
    int id = LINK(w, i).link.jointId;
    if (id >= 0) {
      seen[id] = 1;
      if (id == maxId) {
        top = &LINK(w, i);
      }
    }
  }
  int missing = 0, first = -1;
  for (int id = 0; id <= maxId; id++) {
    if (!seen[id]) {
      missing++;
      first = first < 0 ? id : first;
    }
  }
  hsu_free(seen);
  if (missing) {
    char msg[300];
    snprintf(msg, sizeof msg, "jointIds have gaps: %d of 0..%d unused (the first %d); joint-"
             "ordered arrays have %d entries, the unused ones stay 0 (as OpenHRP's empty "
             "joints)", missing, maxId, first, maxId + 1);
    warnAt(w, top->jointIdAt.file, top->jointIdAt.line, msg);
  }
}

// warn when the Humanoid's joints list disagrees with the Joint tree
static void checkJointsList(Walker *w, const hsvNode *humanoid) {
  const hsvValue *joints = hsv_value(humanoid, "joints", hsvMFNODE);
  if (!joints || joints->n == 0) {
    return;
  }
  int nlink = (int)w->b->links.n;
  for (int i = 0; i < joints->n; i++) {
    const hsvNode *j = joints->node[i];
    int found = 0;
    for (int l = 0; l < nlink && !found; l++) {
      found = j->defName && strcmp(LINK(w, l).name, j->defName) == 0;
    }
    if (!found) {
      warn(w, humanoid, "Humanoid joints list names '%s', which is not a Joint of the body",
           j->defName ? j->defName : j->typeName);
    }
  }
  for (int l = 0; l < nlink; l++) {
    int listed = 0;
    for (int i = 0; i < joints->n && !listed; i++) {
      listed = joints->node[i]->defName && strcmp(joints->node[i]->defName, LINK(w, l).name) == 0;
    }
    if (!listed) {
      warn(w, humanoid, "Joint '%s' is missing from the Humanoid joints list", LINK(w, l).name);
    }
  }
}

static int loadHumanoid(Walker *w, const hsvScene *scene, const hsvNode *humanoid) {
  hsmBuilder *b = w->b;
  const char *name = humanoid->defName ? humanoid->defName : hsv_getString(humanoid, "name");
  b->name = hsu_strdup(name ? name : "");
  if (!b->name) {
    return nomem(w);
  }
  const hsvValue *info = hsv_value(humanoid, "info", hsvMFSTRING);
  for (int i = 0; info && i < info->n; i++) {
    char *s = hsu_strdup(info->str[i]);
    if (!s || !hsu_vecPush(&b->info, sizeof s, &s)) {
      hsu_free(s);
      return nomem(w);
    }
  }
  // exactly one root Joint in humanoidBody
  const hsvValue *hb = hsv_value(humanoid, "humanoidBody", hsvMFNODE);
  const hsvNode *root = NULL;
  for (int i = 0; hb && i < hb->n; i++) {
    const hsvNode *n = hsv_resolve(hb->node[i], kOpenHrpNodes);
    if (n && n->proto && isType(n, "Joint")) {
      if (root) {
        return errNode(w, n, "Humanoid '%s' has a second root Joint '%s'", b->name,
                       n->defName ? n->defName : "");
      }
      root = n;
    }
  }
  if (!root) {
    return errNode(w, humanoid, "Humanoid '%s' has no root Joint in humanoidBody", b->name);
  }
  double I[12];
  identity12(I);
  if (addJoint(w, root, -1, I, 0)) {
    return -1;
  }
  checkJointsList(w, humanoid);
  warnJointIdGaps(w);
  // ExtraJoints sit beside the Humanoid
  for (int i = 0; i < scene->nroot; i++) {
    const hsvNode *n = hsv_resolve(scene->roots[i], kOpenHrpNodes);
    if (n && n->proto && isType(n, "ExtraJoint") && addExtraJoint(w, n)) {
      return -1;
    }
  }
  return 0;
}

static int loadEnvironment(Walker *w, const hsvScene *scene) {
  hsmBuilder *b = w->b;
  // the body is named after the file
  const char *base = strrchr(scene->file, '/');
  base = base ? base + 1 : scene->file;
  const char *dot = strrchr(base, '.');
  size_t len = dot ? (size_t)(dot - base) : strlen(base);
  b->name = hsu_malloc(len + 1);
  if (!b->name) {
    return nomem(w);
  }
  memcpy(b->name, base, len);
  b->name[len] = 0;
  hsmLinkSpec l;
  memset(&l, 0, sizeof l);
  l.name = hsu_strdup("root");
  l.jointTypeName = hsu_strdup("fixed");
  l.link.jointType = hsJOINT_FIXED;
  l.link.jointId = -1;
  l.link.parent = -1;
  l.link.axis[2] = 1;
  l.link.rotation[2] = 1;
  l.link.gearRatio = l.link.torqueConst = l.link.encoderPulse = 1;
  l.link.AABBmaxDepth = l.link.AABBmaxNum = 1;
  l.where = (hsmSource){scene->file, 1, 1};
  l.jointIdAt = l.where;
  if (!l.name || !l.jointTypeName || !hsu_vecPush(&b->links, sizeof l, &l)) {
    hsu_free(l.name);
    hsu_free(l.jointTypeName);
    return nomem(w);
  }
  double I[12];
  identity12(I);
  Owner o = {0, -1, -1, -1, 0, NULL};
  for (int i = 0; i < scene->nroot; i++) {
    const hsvNode *n = hsv_resolve(scene->roots[i], kOpenHrpNodes);
    if (n && n->proto && isType(n, "ExtraJoint")) {
      warn(w, n, "ExtraJoint ignored: the file has no Humanoid");
      continue;
    }
    if (walkNode(w, scene->roots[i], I, o)) {
      return -1;
    }
  }
  return 0;
}

hsBody *hsm_loadVrml(const char *path, const hsmLoadOptions *opt, hsmWarning *warnings,
                     int maxWarnings, int *nwarnings, hsError *err) {
  if (nwarnings) {
    *nwarnings = 0;
  }
  if (!path) {
    HS_ERR(err, hsE_INVALID, "no model path");
    return NULL;
  }
  hsmBuilder b;
  memset(&b, 0, sizeof b);
  Walker w;
  memset(&w, 0, sizeof w);
  w.b = &b;
  w.err = err;
  w.warnings = warnings;
  w.maxWarnings = warnings ? maxWarnings : 0;
  hsm_effectiveLoadOptions(&w.opt, opt);
  hsvOptions popt;
  hsv_defaultOptions(&popt);
  popt.maxNodes = w.opt.maxSceneNodes;
  popt.maxInlineDepth = w.opt.maxInlineDepth;
  hsvScene *scene = hsv_parseFile(path, &popt, err);
  if (!scene) {
    return NULL;
  }
  // what the parser read past
  for (int i = 0; i < scene->nwarning; i++) {
    warnAt(&w, scene->warnings[i].file, scene->warnings[i].line, scene->warnings[i].message);
  }
  // a Humanoid at the top level makes a robot, else the file is an environment
  const hsvNode *humanoid = NULL;
  for (int i = 0; i < scene->nroot && !humanoid; i++) {
    const hsvNode *n = hsv_resolve(scene->roots[i], kOpenHrpNodes);
    if (n && n->proto && isType(n, "Humanoid")) {
      humanoid = n;
    }
  }
  b.url = hsu_strdup(scene->file);
  int rc = !b.url ? nomem(&w) : humanoid ? loadHumanoid(&w, scene, humanoid)
                                         : loadEnvironment(&w, scene);
  hsBody *body = NULL;
  if (rc == 0) {
    // compile while the scene (which owns the file names in error locations) is alive
    body = hsm_compile(&b, err);
  } else {
    hsm_freeBuilder(&b);
  }
  mapFree(&w.shapeCache);
  mapFree(&w.materialCache);
  mapFree(&w.textureCache);
  mapFree(&w.inlineCtx);
  hsv_freeScene(scene);
  if (nwarnings) {
    *nwarnings = w.nwarnings;
  }
  return body;
}
