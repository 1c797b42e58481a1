// vrml_body.c - build an hsBody from an OpenHRP-format VRML97 scene.
//
// The generic reader (vrml.h) gives a typed scene graph; this file gives it OpenHRP's meaning.
// A Humanoid's root Joint is walked depth-first: every Joint becomes a link (numbered in
// depth-first order), Transforms and Groups accumulate a frame relative to the current link,
// Segments add mass elements, the five sensor PROTOs add sensors, Shapes add triangle meshes
// placed by the accumulated frame, lights add lights, and ExtraJoint nodes add closed-loop
// constraints. A file without a Humanoid is an environment: one fixed link called "root"
// carrying every shape. PROTOs other than OpenHRP's are replaced by their first body node, as
// VRML97 prescribes. Each Shape node becomes one hsShape (shared by every link that USEs it),
// except that a primitive placed under a scaling transform gets a separate mesh-only copy.

#include <math.h>
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
} Owner;

// a cache entry: which builder record a scene node (and variant) became
typedef struct CacheEntry {
  const void *key;
  int variant;
  int index;
} CacheEntry;

typedef struct Walker {
  hsmBuilder *b;
  hsmLoadOptions opt;
  hsError *err;
  hsmWarning *warnings;
  int maxWarnings;
  int nwarnings;
  hsuVec shapeCache;     // Shape node x rigid -> shape
  hsuVec materialCache;  // Material node -> material
  hsuVec textureCache;   // texture node -> texture
} Walker;

#define LINK(w, i) (((hsmLinkSpec *)(w)->b->links.data)[i])
#define SENSOR(w, i) (((hsmSensorSpec *)(w)->b->sensors.data)[i])
#define SEGMENT(w, i) (((hsmSegmentSpec *)(w)->b->segments.data)[i])

static int walkNodes(Walker *w, hsvNode *const *nodes, int n, const double T[12], Owner o);

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
static void warn(Walker *w, const hsvNode *node, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void warn(Walker *w, const hsvNode *node, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  hsu_log(hsLOG_WARNING, "%s:%d: %s", node ? node->file : "", node ? node->line : 0, msg);
  if (w->warnings && w->nwarnings < w->maxWarnings) {
    hsmWarning *out = &w->warnings[w->nwarnings];
    snprintf(out->message, sizeof out->message, "%s", msg);
    snprintf(out->file, sizeof out->file, "%s", node ? node->file : "");
    out->line = node ? node->line : 0;
  }
  w->nwarnings++;
}

//---------------------------------- small helpers ---------------------------------------------

static int isType(const hsvNode *node, const char *name) {
  return node && strcmp(node->typeName, name) == 0;
}

static int cacheFind(const hsuVec *cache, const void *key, int variant) {
  const CacheEntry *e = cache->data;
  for (size_t i = 0; i < cache->n; i++) {
    if (e[i].key == key && e[i].variant == variant) {
      return e[i].index;
    }
  }
  return -1;
}

static int cachePut(Walker *w, hsuVec *cache, const void *key, int variant, int index) {
  CacheEntry e = {key, variant, index};
  return hsu_vecPush(cache, sizeof e, &e) ? 0 : nomem(w);
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

// resolve a url relative to the directory of the file that names it; caller frees
static char *resolveUrl(const char *url, const char *baseFile) {
  if (strncmp(url, "file://", 7) == 0) {
    url += 7;
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

static int faceSetMesh(Walker *w, const hsvNode *g, hsmMesh *mesh) {
  hsmFaceSetInput in;
  memset(&in, 0, sizeof in);
  const hsvValue *coord = childArray(g, "coord", "point", hsvMFVEC3F);
  const hsvValue *normal = childArray(g, "normal", "vector", hsvMFVEC3F);
  const hsvValue *color = childArray(g, "color", "color", hsvMFCOLOR);
  const hsvValue *tex = childArray(g, "texCoord", "point", hsvMFVEC2F);
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
  int *ni = intsOf(hsv_value(g, "normalIndex", hsvMFINT32), &in.nnormalIndex);
  int *ki = intsOf(hsv_value(g, "colorIndex", hsvMFINT32), &in.ncolorIndex);
  int *ti = intsOf(hsv_value(g, "texCoordIndex", hsvMFINT32), &in.ntexCoordIndex);
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

static int elevationGridMesh(Walker *w, const hsvNode *g, hsmMesh *mesh) {
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
  in.beginCap = getBoolOr(g, "beginCap", 1);
  in.endCap = getBoolOr(g, "endCap", 1);
  in.ccw = getBoolOr(g, "ccw", 1);
  in.convex = getBoolOr(g, "convex", 1);
  in.creaseAngle = getDoubleOr(g, "creaseAngle", 0);
  hsError e = {0};
  return hsm_meshExtrusion(mesh, &in, &e) ? errGeometry(w, g, &e) : 0;
}

// build the mesh of a geometry node and remember its primitive (when kept); returns 1 if the
// node has no triangles (Text, PointSet, IndexedLineSet), 0 on success, negative on error
static int geometryMesh(Walker *w, const hsvNode *g, int rigid, hsmShapeSpec *s) {
  hsError e = {0};
  int rc = 0;
  int slices = w->opt.sphereSlices, stacks = w->opt.sphereStacks;
  s->primitive = hsPRIM_MESH;
  if (isType(g, "Box")) {
    double size[3];
    getVec3Or(g, "size", size, 2, 2, 2);
    rc = hsm_meshBox(&s->mesh, size, &e);
    s->primitive = hsPRIM_BOX;
    s->nparam = 3;
    for (int k = 0; k < 3; k++) {
      s->params[k] = (float)size[k];
    }
  } else if (isType(g, "Sphere")) {
    double r = getDoubleOr(g, "radius", 1);
    rc = hsm_meshSphere(&s->mesh, r, slices, stacks, &e);
    s->primitive = hsPRIM_SPHERE;
    s->nparam = 1;
    s->params[0] = (float)r;
  } else if (isType(g, "Cylinder")) {
    double r = getDoubleOr(g, "radius", 1), h = getDoubleOr(g, "height", 2);
    int top = getBoolOr(g, "top", 1), bottom = getBoolOr(g, "bottom", 1);
    int side = getBoolOr(g, "side", 1);
    rc = hsm_meshCylinder(&s->mesh, r, h, top, bottom, side, slices, &e);
    s->primitive = hsPRIM_CYLINDER;
    s->nparam = 5;
    float p[5] = {(float)r, (float)h, (float)top, (float)bottom, (float)side};
    memcpy(s->params, p, sizeof p);
  } else if (isType(g, "Cone")) {
    double r = getDoubleOr(g, "bottomRadius", 1), h = getDoubleOr(g, "height", 2);
    int bottom = getBoolOr(g, "bottom", 1), side = getBoolOr(g, "side", 1);
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
  // a primitive under a scaling transform is only a mesh
  if (!rigid) {
    s->primitive = hsPRIM_MESH;
    s->nparam = 0;
  }
  return 0;
}

// the builder shape for a Shape node in a rigid or scaling frame; -2 if it has no triangles
static int addShape(Walker *w, const hsvNode *shape, int rigid) {
  int idx = cacheFind(&w->shapeCache, shape, rigid);
  if (idx >= 0) {
    return idx;
  }
  const hsvNode *geom = childNode(shape, "geometry");
  if (!geom) {
    return -2;
  }
  hsmShapeSpec s;
  memset(&s, 0, sizeof s);
  int rc = geometryMesh(w, geom, rigid, &s);
  if (rc != 0 || s.mesh.ntriangle == 0) {
    hsm_freeMesh(&s.mesh);
    return rc < 0 ? -1 : -2;
  }
  hsmShapeInput in = {s.primitive, s.params, s.nparam, &s.mesh, shape->file, -1, -1,
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
  return cachePut(w, &w->shapeCache, shape, rigid, idx) ? -1 : idx;
}

static int placeShape(Walker *w, const hsvNode *shape, const double T[12], Owner o) {
  int idx = addShape(w, shape, hsu_isRigid(T, 1e-9));
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
  return children ? walkNodes(w, children->node, children->n, T, inner) : 0;
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
  Owner inner = {o.link, idx, -1, -1};
  return walkNodes(w, children->node, children->n, I, inner);
}

static int addLight(Walker *w, const hsvNode *node, const double T[12], Owner o) {
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
  static const char *const types[] = {"xyz", "xy", "z"};
  const char *name = node->defName ? node->defName : "";
  const char *type = hsv_getString(node, "jointType");
  int t = 0;
  for (t = 0; t < 3 && !(type && strcmp(type, types[t]) == 0); t++) {
  }
  if (t == 3) {
    return errField(w, node, "jointType",
                    "ExtraJoint '%s': jointType \"%s\" is not one of xyz, xy, z", name,
                    type ? type : "");
  }
  const char *l1 = hsv_getString(node, "link1Name"), *l2 = hsv_getString(node, "link2Name");
  if (!l1 || !l2 || !l1[0] || !l2[0]) {
    return errNode(w, node, "ExtraJoint '%s' needs link1Name and link2Name", name);
  }
  hsmExtraJointSpec e;
  memset(&e, 0, sizeof e);
  e.ej.type = (hstExtraJoint)t;
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

// jointAxis as a vector, or the legacy strings "X", "Y", "Z"; unit length
static int jointAxis(Walker *w, const hsvNode *node, double axis[3]) {
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
  if (!(n > 0) || !isfinite(n)) {
    return errField(w, node, "jointAxis", "jointAxis has zero length");
  }
  for (int k = 0; k < 3; k++) {
    axis[k] /= n;
  }
  return 0;
}

static int addJoint(Walker *w, const hsvNode *node, int parent, const double T[12]) {
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
  const char *type = hsv_getString(node, "jointType");
  if (hsm_parseJointType(type, &k->jointType)) {
    return errField(w, node, "jointType", "Joint '%s': jointType \"%s\" is not one of free, "
                    "rotate, slide, fixed, crawler", name, type ? type : "");
  }
  if (jointAxis(w, node, k->axis)) {
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
  Owner o = {idx, -1, -1, -1};
  return walkNodes(w, children->node, children->n, I, o);
}

//---------------------------------- the walk --------------------------------------------------

static int walkNode(Walker *w, const hsvNode *raw, const double T[12], Owner o) {
  const hsvNode *node = hsv_resolve(raw, kOpenHrpNodes);
  int st;
  if (!node) {
    return 0;
  }
  if (node->proto && isType(node, "Joint")) {
    return addJoint(w, node, o.link, T);
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
    if (hsv_getVec3(node, "scale", scale) && !(scale[0] > 0 && scale[1] > 0 && scale[2] > 0)) {
      return errField(w, node, "scale", "Transform scale %g %g %g: VRML97 requires each "
                      "component to be positive", scale[0], scale[1], scale[2]);
    }
    double local[12], S[12];
    nodeTransform(node, local);
    hsu_mulTransform(S, T, local);
    const hsvValue *c = hsv_value(node, "children", hsvMFNODE);
    return c ? walkNodes(w, c->node, c->n, S, o) : 0;
  }
  if (isType(node, "Group") || isType(node, "Anchor") || isType(node, "Billboard") ||
      isType(node, "Collision")) {
    const hsvValue *c = hsv_value(node, "children", hsvMFNODE);
    return c ? walkNodes(w, c->node, c->n, T, o) : 0;
  }
  if (isType(node, "Switch")) {
    const hsvValue *c = hsv_value(node, "choice", hsvMFNODE);
    int which = getIntOr(node, "whichChoice", -1);
    return c && which >= 0 && which < c->n ? walkNode(w, c->node[which], T, o) : 0;
  }
  if (isType(node, "LOD")) {
    const hsvValue *c = hsv_value(node, "level", hsvMFNODE);
    return c && c->n > 0 ? walkNode(w, c->node[0], T, o) : 0;
  }
  if (isType(node, "Inline")) {
    // remember the Inline's frame so clients can tell inlined parts apart
    hsuVec *mats = o.sensor >= 0 ? &SENSOR(w, o.sensor).inlined : &LINK(w, o.link).inlined;
    Owner inner = o;
    inner.inlineMatrix = (int)mats->n;
    if (!hsu_vecPush(mats, 12 * sizeof(double), T)) {
      return nomem(w);
    }
    return walkNodes(w, node->inlined, node->ninlined, T, inner);
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
  if (addJoint(w, root, -1, I)) {
    return -1;
  }
  checkJointsList(w, humanoid);
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
  Owner o = {0, -1, -1, -1};
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

void hsm_defaultLoadOptions(hsmLoadOptions *opt) {
  opt->readImage = 0;
  opt->sphereSlices = 16;
  opt->sphereStacks = 8;
  hsm_defaultLimits(&opt->limits);
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
  hsvScene *scene = hsv_parseFile(path, NULL, err);
  if (!scene) {
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
  if (opt) {
    w.opt = *opt;
  } else {
    hsm_defaultLoadOptions(&w.opt);
  }
  if (w.opt.sphereSlices < 3) {
    w.opt.sphereSlices = 16;
  }
  if (w.opt.sphereStacks < 2) {
    w.opt.sphereStacks = 8;
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
  hsu_vecFree(&w.shapeCache);
  hsu_vecFree(&w.materialCache);
  hsu_vecFree(&w.textureCache);
  hsv_freeScene(scene);
  if (nwarnings) {
    *nwarnings = w.nwarnings;
  }
  return body;
}
