// model_body.c - compile an hsmBuilder into a frozen hsBody held in one allocation.
//
// The body block is laid out as: the hsBody header, the arrays of records (links, shapes, ...),
// then typed pools (shape refs, doubles, ints, floats, pointers, image bytes, characters) from
// which every variable-length field is cut in order. Sizing counts each pool first, so the block
// is allocated exactly once and nothing is reallocated while copying.

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"

//---------------------------------- builder ---------------------------------------------------

int hsm_readTextureImage(hsmTextureSpec *t, int readImage, char *why, size_t whySize) {
  if (!readImage) {
    return 0;
  }
  hsmImage img;
  hsError imgErr = {0};
  int rc = hsm_readImage(t->url, &img, &imgErr);
  if (rc == 0) {
    t->image = img.pixels;
    t->tex.width = img.width, t->tex.height = img.height;
    t->tex.numComponents = img.components;
    t->tex.nimage = (size_t)img.width * img.height * img.components;
    return 0;
  }
  char buf[700];
  snprintf(why, whySize, "texture not loaded: %s", hsu_formatError(&imgErr, buf, sizeof buf));
  return imgErr.code ? imgErr.code : rc;
}

void hsm_defaultLoadOptions(hsmLoadOptions *opt) {
  opt->readImage = 0;
  opt->sphereSlices = 16;
  opt->sphereStacks = 8;
  opt->maxSceneNodes = 2000000;
  opt->maxInlineDepth = 32;
  opt->maxNodeVisits = 10000000;
  opt->maxShapeInstances = 1000000;
  opt->maxTriangles = 5000000;
  opt->maxNesting = 1000;
  hsm_defaultLimits(&opt->limits);
}

void hsm_effectiveLoadOptions(hsmLoadOptions *out, const hsmLoadOptions *in) {
  hsmLoadOptions d;
  hsm_defaultLoadOptions(&d);
  *out = in ? *in : d;
  out->readImage = out->readImage != 0;
  if (out->sphereSlices < 3) {
    out->sphereSlices = d.sphereSlices;
  }
  if (out->sphereStacks < 2) {
    out->sphereStacks = d.sphereStacks;
  }
  if (out->maxSceneNodes <= 0) {
    out->maxSceneNodes = d.maxSceneNodes;
  }
  if (out->maxInlineDepth <= 0) {
    out->maxInlineDepth = d.maxInlineDepth;
  }
  if (out->maxNodeVisits <= 0) {
    out->maxNodeVisits = d.maxNodeVisits;
  }
  if (out->maxShapeInstances <= 0) {
    out->maxShapeInstances = d.maxShapeInstances;
  }
  if (out->maxTriangles <= 0) {
    out->maxTriangles = d.maxTriangles;
  }
  if (out->maxNesting <= 0) {
    out->maxNesting = d.maxNesting;
  }
}

int hsm_addWarningInfo(hsmBuilder *b, const char *file, int line, const char *message) {
  enum { kMaxWarningInfo = 100 };
  int k = b->nwarningInfo++;
  char buf[1200];
  if (k < kMaxWarningInfo) {
    snprintf(buf, sizeof buf, "warning: %s:%d: %s", file ? file : "", line, message);
  } else {
    snprintf(buf, sizeof buf, "warning: %d more warnings (see the server log)",
             k + 1 - kMaxWarningInfo);
  }
  char *s = hsu_strdup(buf);
  if (!s) {
    return hsE_NOMEM;
  }
  if (k > kMaxWarningInfo) {
    // replace the running count
    char **last = (char **)b->info.data + b->info.n - 1;
    hsu_free(*last);
    *last = s;
    return 0;
  }
  if (!hsu_vecPush(&b->info, sizeof s, &s)) {
    hsu_free(s);
    return hsE_NOMEM;
  }
  return 0;
}

int hsm_addInfo(hsmBuilder *b, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  char *s = hsu_strdup(buf);
  if (!s || !hsu_vecPush(&b->info, sizeof s, &s)) {
    hsu_free(s);
    return hsE_NOMEM;
  }
  return 0;
}

void hsm_freeBuilder(hsmBuilder *b) {
  if (!b) {
    return;
  }
  hsu_free(b->name);
  hsu_free(b->url);
  for (size_t i = 0; i < b->info.n; i++) {
    hsu_free(((char **)b->info.data)[i]);
  }
  hsu_vecFree(&b->info);
  for (size_t i = 0; i < b->links.n; i++) {
    hsmLinkSpec *l = (hsmLinkSpec *)b->links.data + i;
    hsu_free(l->name);
    hsu_free(l->jointTypeName);
    for (int k = 0; k < 5; k++) {
      hsu_vecFree(&l->limits[k]);
    }
    hsu_vecFree(&l->shapeRefs);
    hsu_vecFree(&l->collisionRefs);
    hsu_vecFree(&l->inlined);
  }
  hsu_vecFree(&b->links);
  for (size_t i = 0; i < b->segments.n; i++) {
    hsmSegmentSpec *s = (hsmSegmentSpec *)b->segments.data + i;
    hsu_free(s->name);
    hsu_vecFree(&s->shapeRefs);
  }
  hsu_vecFree(&b->segments);
  for (size_t i = 0; i < b->sensors.n; i++) {
    hsmSensorSpec *s = (hsmSensorSpec *)b->sensors.data + i;
    hsu_free(s->name);
    hsu_free(s->specFile);
    hsu_vecFree(&s->specValues);
    hsu_vecFree(&s->shapeRefs);
    hsu_vecFree(&s->inlined);
  }
  hsu_vecFree(&b->sensors);
  for (size_t i = 0; i < b->lights.n; i++) {
    hsu_free(((hsmLightSpec *)b->lights.data)[i].name);
  }
  hsu_vecFree(&b->lights);
  for (size_t i = 0; i < b->extraJoints.n; i++) {
    hsmExtraJointSpec *e = (hsmExtraJointSpec *)b->extraJoints.data + i;
    hsu_free(e->name);
    hsu_free(e->linkName[0]);
    hsu_free(e->linkName[1]);
  }
  hsu_vecFree(&b->extraJoints);
  for (size_t i = 0; i < b->shapes.n; i++) {
    hsmShapeSpec *s = (hsmShapeSpec *)b->shapes.data + i;
    hsu_free(s->url);
    hsm_freeMesh(&s->mesh);
  }
  hsu_vecFree(&b->shapes);
  for (size_t i = 0; i < b->appearances.n; i++) {
    hsm_freeMesh(&((hsmAppearanceSpec *)b->appearances.data)[i].attrs);
  }
  hsu_vecFree(&b->appearances);
  hsu_vecFree(&b->materials);
  for (size_t i = 0; i < b->textures.n; i++) {
    hsmTextureSpec *t = (hsmTextureSpec *)b->textures.data + i;
    hsu_free(t->url);
    hsu_free(t->image);
  }
  hsu_vecFree(&b->textures);
  memset(b, 0, sizeof *b);
}

int hsm_addShape(hsmBuilder *b, const hsmShapeInput *in, hsError *err) {
  hsmMesh *mesh = in->mesh;
  hsmAppearanceSpec a;
  memset(&a, 0, sizeof a);
  a.app.material = in->material;
  a.app.texture = in->texture;
  a.app.solid = in->solid;
  a.app.creaseAngle = (float)in->creaseAngle;
  if (in->texTransform) {
    memcpy(a.app.texTransform, in->texTransform, sizeof a.app.texTransform);
  } else {
    hsu_setIdentity(a.app.texTransform);
  }
  // the appearance takes the attributes, the shape keeps vertices and triangles
  hsmShapeSpec s;
  memset(&s, 0, sizeof s);
  s.primitive = in->primitive;
  s.nparam = in->nparam < 8 ? in->nparam : 8;
  if (s.nparam > 0) {
    memcpy(s.params, in->params, (size_t)s.nparam * sizeof(float));
  }
  s.mesh.vertices = mesh->vertices, s.mesh.nvertex = mesh->nvertex;
  s.mesh.triangles = mesh->triangles, s.mesh.ntriangle = mesh->ntriangle;
  a.attrs = *mesh;
  a.attrs.vertices = NULL, a.attrs.triangles = NULL;
  a.attrs.nvertex = a.attrs.ntriangle = 0;
  a.app.normalPerVertex = a.attrs.normalPerVertex;
  a.app.colorPerVertex = a.attrs.colorPerVertex;
  memset(mesh, 0, sizeof *mesh);
  s.url = hsu_strdup(in->url ? in->url : "");
  s.appearance = (int)b->appearances.n;
  int index = (int)b->shapes.n;
  if (!s.url || !hsu_vecPush(&b->appearances, sizeof a, &a)) {
    hsm_freeMesh(&a.attrs);
    hsm_freeMesh(&s.mesh);
    hsu_free(s.url);
    return HS_ERR(err, hsE_NOMEM, "out of memory"), -1;
  }
  if (!hsu_vecPush(&b->shapes, sizeof s, &s)) {
    hsm_freeMesh(&s.mesh);
    hsu_free(s.url);
    return HS_ERR(err, hsE_NOMEM, "out of memory"), -1;  // the appearance stays, unused
  }
  return index;
}

//---------------------------------- mass properties -------------------------------------------

void hsm_mergeMass(const hsSegment *seg, int n, double *mass, double com[3], double inertia[9]) {
  // total mass and mass-weighted centre, in the link frame
  double m = 0, c[3] = {0, 0, 0};
  for (int i = 0; i < n; i++) {
    double p[3];
    hsu_transformPoint(p, seg[i].T, seg[i].com);
    m += seg[i].mass;
    for (int k = 0; k < 3; k++) {
      c[k] += seg[i].mass * p[k];
    }
  }
  if (m > 0) {
    for (int k = 0; k < 3; k++) {
      c[k] /= m;
    }
  }
  // rotate each tensor into the link frame (R I R^T) and add the parallel-axis term about c
  double I[9] = {0};
  for (int i = 0; i < n; i++) {
    double R[9], t[3], Rt[9], RI[9], RIRt[9], p[3];
    hsu_splitTransform(R, t, seg[i].T);
    hsu_transpose(Rt, R);
    hsu_mulMat(RI, R, seg[i].inertia);
    hsu_mulMat(RIRt, RI, Rt);
    hsu_transformPoint(p, seg[i].T, seg[i].com);
    double d[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
    double dd = hsu_dot(d, d);
    for (int r = 0; r < 3; r++) {
      for (int s = 0; s < 3; s++) {
        I[3 * r + s] += RIRt[3 * r + s] + seg[i].mass * ((r == s ? dd : 0) - d[r] * d[s]);
      }
    }
  }
  *mass = m;
  memcpy(com, c, sizeof c);
  memcpy(inertia, I, sizeof I);
}

//---------------------------------- sizing ----------------------------------------------------

// element counts of each pool
typedef struct Pools {
  size_t refs, dbl, ints, flt, ptrs, bytes, chars;
} Pools;

static size_t strBytes(const char *s) {
  return s ? strlen(s) + 1 : 1;
}

static void countMeshAttrs(Pools *p, const hsmMesh *m) {
  p->flt += 3 * (size_t)m->nnormal + 3 * (size_t)m->ncolor + 2 * (size_t)m->ntexCoord;
  p->ints += (size_t)m->nnormalIndex + (size_t)m->ncolorIndex + (size_t)m->ntexCoordIndex;
}

static Pools countPools(const hsmBuilder *b) {
  Pools p = {0};
  int maxId = -1;
  p.chars += strBytes(b->name) + strBytes(b->url);
  p.ptrs += b->info.n;
  for (size_t i = 0; i < b->info.n; i++) {
    p.chars += strBytes(((char **)b->info.data)[i]);
    const char *info = ((char **)b->info.data)[i];
    p.ints += info && strncmp(info, "collision exclude ", 18) == 0 ? 2 : 0;
  }
  for (size_t i = 0; i < b->links.n; i++) {
    const hsmLinkSpec *l = (const hsmLinkSpec *)b->links.data + i;
    p.chars += strBytes(l->name) + strBytes(l->jointTypeName);
    for (int k = 0; k < 5; k++) {
      p.dbl += l->limits[k].n;
    }
    p.refs += l->shapeRefs.n + (l->separateCollision ? l->collisionRefs.n : 0);
    p.dbl += 12 * l->inlined.n;
    p.ints += 1;  // one child slot (every link but the root is somebody's child)
    if (l->link.jointId >= 0) {
      maxId = l->link.jointId > maxId ? l->link.jointId : maxId;
    }
  }
  p.ints += (size_t)(maxId + 1);  // jointLink
  for (size_t i = 0; i < b->segments.n; i++) {
    const hsmSegmentSpec *s = (const hsmSegmentSpec *)b->segments.data + i;
    p.chars += strBytes(s->name);
    p.ints += s->shapeRefs.n;
  }
  for (size_t i = 0; i < b->sensors.n; i++) {
    const hsmSensorSpec *s = (const hsmSensorSpec *)b->sensors.data + i;
    p.chars += strBytes(s->name) + strBytes(s->specFile);
    p.flt += s->specValues.n;
    p.refs += s->shapeRefs.n;
    p.dbl += 12 * s->inlined.n;
  }
  for (size_t i = 0; i < b->lights.n; i++) {
    p.chars += strBytes(((const hsmLightSpec *)b->lights.data)[i].name);
  }
  for (size_t i = 0; i < b->extraJoints.n; i++) {
    const hsmExtraJointSpec *e = (const hsmExtraJointSpec *)b->extraJoints.data + i;
    p.chars += strBytes(e->name) + strBytes(e->linkName[0]) + strBytes(e->linkName[1]);
  }
  for (size_t i = 0; i < b->shapes.n; i++) {
    const hsmShapeSpec *s = (const hsmShapeSpec *)b->shapes.data + i;
    p.chars += strBytes(s->url);
    p.flt += (size_t)s->nparam + 3 * (size_t)s->mesh.nvertex;
    p.ints += 3 * (size_t)s->mesh.ntriangle;
  }
  for (size_t i = 0; i < b->appearances.n; i++) {
    countMeshAttrs(&p, &((const hsmAppearanceSpec *)b->appearances.data)[i].attrs);
  }
  for (size_t i = 0; i < b->textures.n; i++) {
    const hsmTextureSpec *t = (const hsmTextureSpec *)b->textures.data + i;
    p.chars += strBytes(t->url);
    p.bytes += t->image ? t->tex.nimage : 0;
  }
  return p;
}

//---------------------------------- carving ---------------------------------------------------

// a cursor over one typed pool inside the body block
typedef struct Cursor {
  char *next;
} Cursor;

static size_t align8(size_t n) {
  return (n + 7) & ~(size_t)7;
}

static void *take(Cursor *c, size_t bytes) {
  void *p = c->next;
  c->next += bytes;
  return p;
}

static const char *copyStr(Cursor *chars, const char *s) {
  size_t n = strBytes(s);
  char *d = take(chars, n);
  memcpy(d, s ? s : "", n);
  return d;
}

static const void *copyArr(Cursor *c, const void *src, size_t bytes) {
  void *d = take(c, bytes);
  if (bytes) {
    memcpy(d, src, bytes);
  }
  return d;
}

// stable order of record indices by owning link (records keep file order within a link)
static int *orderByLink(const void *records, size_t n, size_t stride, size_t linkOffset,
                        int nlink, int *adr, int *cnt) {
  int *order = hsu_malloc((n ? n : 1) * sizeof(int));
  if (!order) {
    return NULL;
  }
  for (int l = 0; l < nlink; l++) {
    cnt[l] = 0;
  }
  for (size_t i = 0; i < n; i++) {
    cnt[*(const int *)((const char *)records + i * stride + linkOffset)]++;
  }
  int pos = 0;
  for (int l = 0; l < nlink; l++) {
    adr[l] = pos;
    pos += cnt[l];
  }
  int *fill = hsu_calloc((size_t)nlink, sizeof(int));
  if (!fill) {
    hsu_free(order);
    return NULL;
  }
  for (size_t i = 0; i < n; i++) {
    int l = *(const int *)((const char *)records + i * stride + linkOffset);
    order[adr[l] + fill[l]++] = (int)i;
  }
  hsu_free(fill);
  return order;
}

//---------------------------------- checks ----------------------------------------------------

static int checkBuilder(const hsmBuilder *b, hsError *err) {
  int nlink = (int)b->links.n;
  if (nlink == 0) {
    return HS_ERR(err, hsE_MODEL, "the model has no links");
  }
  // jointIds are -1 or 0..32767 (OpenHRP's short), each used once; gaps are allowed (OpenHRP
  // fills them with empty joints; front ends warn)
  const hsmLinkSpec *links = b->links.data;
  int maxId = -1;
  for (int i = 0; i < nlink; i++) {
    int id = links[i].link.jointId;
    if (id < -1 || id > 32767) {
      const hsmSource *s = &links[i].jointIdAt;
      return HS_ERR_AT(err, hsE_MODEL, s->file, s->line, s->column,
                       "jointId %d of Joint '%s' is out of range (-1, or 0 to 32767)", id,
                       links[i].name);
    }
    maxId = id > maxId ? id : maxId;
  }
  int *owner = hsu_malloc((size_t)(maxId + 1) * sizeof(int) + 1);
  if (!owner) {
    return HS_ERR(err, hsE_NOMEM, "out of memory");
  }
  for (int i = 0; i <= maxId; i++) {
    owner[i] = -1;
  }
  int rc = 0;
  for (int i = 0; i < nlink && !rc; i++) {
    int id = links[i].link.jointId;
    if (id >= 0 && owner[id] >= 0) {
      const hsmSource *s = &links[i].jointIdAt;
      rc = HS_ERR_AT(err, hsE_MODEL, s->file, s->line, s->column,
                     "duplicate jointId %d: Joint '%s' and Joint '%s'", id, links[owner[id]].name,
                     links[i].name);
    } else if (id >= 0) {
      owner[id] = i;
    }
  }
  hsu_free(owner);
  if (rc) {
    return rc;
  }
  // duplicate sensorIds within a type
  const hsmSensorSpec *sensors = b->sensors.data;
  for (size_t i = 0; i < b->sensors.n; i++) {
    for (size_t j = 0; j < i; j++) {
      if (sensors[i].sensor.type == sensors[j].sensor.type &&
          sensors[i].sensor.id == sensors[j].sensor.id) {
        const hsmSource *s = &sensors[i].idAt;
        return HS_ERR_AT(err, hsE_MODEL, s->file, s->line, s->column,
                         "duplicate sensorId %d for %s sensors: '%s' and '%s'",
                         sensors[i].sensor.id, hsm_sensorTypeName(sensors[i].sensor.type),
                         sensors[j].name, sensors[i].name);
      }
    }
  }
  return 0;
}

//---------------------------------- compile ---------------------------------------------------

// resolve each extra joint's link names into link indices
static int resolveExtraJoints(hsmBuilder *b, hsError *err) {
  const hsmLinkSpec *ls = b->links.data;
  int nlink = (int)b->links.n;
  hsmExtraJointSpec *ejs = b->extraJoints.data;
  for (size_t i = 0; i < b->extraJoints.n; i++) {
    for (int k = 0; k < 2; k++) {
      ejs[i].ej.link[k] = -1;
      for (int l = 0; l < nlink; l++) {
        if (strcmp(ls[l].name, ejs[i].linkName[k]) == 0) {
          ejs[i].ej.link[k] = l;
        }
      }
      if (ejs[i].ej.link[k] < 0) {
        return HS_ERR_AT(err, hsE_MODEL, ejs[i].where.file, ejs[i].where.line,
                         ejs[i].where.column, "ExtraJoint '%s': no link named '%s'", ejs[i].name,
                         ejs[i].linkName[k]);
      }
    }
  }
  return 0;
}

// segments, sensors and lights grouped by link: each kind's record order, and per link the
// first position (adr) and count (cnt) of its records; segments at [0, nlink), sensors at
// [nlink, 2 nlink), lights at [2 nlink, 3 nlink)
typedef struct Groups {
  int *segOrder, *senOrder, *lightOrder, *adr, *cnt;
} Groups;

static void freeGroups(Groups *g) {
  hsu_free(g->segOrder);
  hsu_free(g->senOrder);
  hsu_free(g->lightOrder);
  hsu_free(g->adr);
  hsu_free(g->cnt);
}

static int groupByLink(const hsmBuilder *b, Groups *g, hsError *err) {
  int nlink = (int)b->links.n;
  g->adr = hsu_malloc(3 * (size_t)nlink * sizeof(int));
  g->cnt = hsu_malloc(3 * (size_t)nlink * sizeof(int));
  if (!g->adr || !g->cnt) {
    return HS_ERR(err, hsE_NOMEM, "out of memory");
  }
  g->segOrder = orderByLink(b->segments.data, b->segments.n, sizeof(hsmSegmentSpec),
                            offsetof(hsmSegmentSpec, seg.link), nlink, g->adr, g->cnt);
  g->senOrder = orderByLink(b->sensors.data, b->sensors.n, sizeof(hsmSensorSpec),
                            offsetof(hsmSensorSpec, sensor.link), nlink, g->adr + nlink,
                            g->cnt + nlink);
  g->lightOrder = orderByLink(b->lights.data, b->lights.n, sizeof(hsmLightSpec),
                              offsetof(hsmLightSpec, light.link), nlink, g->adr + 2 * nlink,
                              g->cnt + 2 * nlink);
  if (!g->segOrder || !g->senOrder || !g->lightOrder) {
    return HS_ERR(err, hsE_NOMEM, "out of memory");
  }
  return 0;
}

// the typed pools of the body block, each carved from the front
typedef struct Carve {
  Cursor refs, dbl, ints, flt, ptrs, bytes, chars;
  char *end;  // one past the block
} Carve;

// size the block (records, then pools), allocate it zeroed and point the body's record arrays
// into it; NULL with err set when out of memory
static hsBody *allocBody(const hsmBuilder *b, Carve *c, hsError *err) {
  Pools p = countPools(b);
  size_t nrec[10] = {1, b->links.n, b->shapes.n, b->appearances.n, b->materials.n,
                     b->textures.n, b->sensors.n, b->segments.n, b->lights.n, b->extraJoints.n};
  size_t recSize[10] = {sizeof(hsBody), sizeof(hsLink), sizeof(hsShape), sizeof(hsAppearance),
                        sizeof(hsMaterial), sizeof(hsTexture), sizeof(hsSensor),
                        sizeof(hsSegment), sizeof(hsLight), sizeof(hsExtraJoint)};
  size_t total = 0;
  for (int i = 0; i < 10; i++) {
    total += align8(nrec[i] * recSize[i]);
  }
  total += align8(p.refs * sizeof(hsShapeRef)) + align8(p.dbl * sizeof(double)) +
           align8(p.ints * sizeof(int)) + align8(p.flt * sizeof(float)) +
           align8(p.ptrs * sizeof(char *)) + align8(p.bytes) + align8(p.chars);
  char *block = hsu_calloc(1, total);
  if (!block) {
    HS_ERR(err, hsE_NOMEM, "out of memory allocating a %zu-byte body", total);
    return NULL;
  }
  Cursor rec = {block};
  hsBody *body = take(&rec, align8(sizeof(hsBody)));
  body->nbytes = total;
  body->links = take(&rec, align8(b->links.n * sizeof(hsLink)));
  body->shapes = take(&rec, align8(b->shapes.n * sizeof(hsShape)));
  body->appearances = take(&rec, align8(b->appearances.n * sizeof(hsAppearance)));
  body->materials = take(&rec, align8(b->materials.n * sizeof(hsMaterial)));
  body->textures = take(&rec, align8(b->textures.n * sizeof(hsTexture)));
  body->sensors = take(&rec, align8(b->sensors.n * sizeof(hsSensor)));
  body->segments = take(&rec, align8(b->segments.n * sizeof(hsSegment)));
  body->lights = take(&rec, align8(b->lights.n * sizeof(hsLight)));
  body->extraJoints = take(&rec, align8(b->extraJoints.n * sizeof(hsExtraJoint)));
  c->refs.next = rec.next;
  c->dbl.next = c->refs.next + align8(p.refs * sizeof(hsShapeRef));
  c->ints.next = c->dbl.next + align8(p.dbl * sizeof(double));
  c->flt.next = c->ints.next + align8(p.ints * sizeof(int));
  c->ptrs.next = c->flt.next + align8(p.flt * sizeof(float));
  c->bytes.next = c->ptrs.next + align8(p.ptrs * sizeof(char *));
  c->chars.next = c->bytes.next + align8(p.bytes);
  c->end = block + total;
  return body;
}

// body header
static void copyHeader(hsBody *body, const hsmBuilder *b, Carve *c) {
  body->name = copyStr(&c->chars, b->name);
  body->url = copyStr(&c->chars, b->url);
  body->ninfo = (int)b->info.n;
  const char **info = take(&c->ptrs, b->info.n * sizeof(char *));
  for (size_t i = 0; i < b->info.n; i++) {
    info[i] = copyStr(&c->chars, ((char **)b->info.data)[i]);
  }
  body->info = info;
}

// segments, grouped by link
static void copySegments(hsBody *body, const hsmBuilder *b, const Groups *g, Carve *c) {
  body->nsegment = (int)b->segments.n;
  for (int i = 0; i < body->nsegment; i++) {
    const hsmSegmentSpec *s = (const hsmSegmentSpec *)b->segments.data + g->segOrder[i];
    hsSegment *d = &body->segments[i];
    *d = s->seg;
    d->name = copyStr(&c->chars, s->name);
    d->nshapeRef = (int)s->shapeRefs.n;
    d->shapeRefs = copyArr(&c->ints, s->shapeRefs.data, s->shapeRefs.n * sizeof(int));
  }
}

// links, with merged mass properties and child lists, then the jointId -> link table
static void copyLinks(hsBody *body, const hsmBuilder *b, const Groups *g, Carve *c) {
  int nlink = (int)b->links.n;
  const hsmLinkSpec *ls = b->links.data;
  const int *adr = g->adr, *cnt = g->cnt;
  body->nlink = nlink;
  int njoint = 0;
  for (int i = 0; i < nlink; i++) {
    const hsmLinkSpec *s = &ls[i];
    hsLink *d = &body->links[i];
    *d = s->link;
    d->name = copyStr(&c->chars, s->name);
    d->jointTypeName = copyStr(&c->chars, s->jointTypeName);
    hsDoubles *lim[5] = {&d->ulimit, &d->llimit, &d->uvlimit, &d->lvlimit, &d->climit};
    for (int k = 0; k < 5; k++) {
      lim[k]->n = (int)s->limits[k].n;
      lim[k]->v = copyArr(&c->dbl, s->limits[k].data, s->limits[k].n * sizeof(double));
    }
    hsu_axisAngleToMat(d->R, d->rotation);
    d->nshapeRef = (int)s->shapeRefs.n;
    d->shapeRefs = copyArr(&c->refs, s->shapeRefs.data, s->shapeRefs.n * sizeof(hsShapeRef));
    if (s->separateCollision) {
      d->ncollisionRef = (int)s->collisionRefs.n;
      d->collisionRefs =
          copyArr(&c->refs, s->collisionRefs.data, s->collisionRefs.n * sizeof(hsShapeRef));
    } else {
      d->ncollisionRef = d->nshapeRef;
      d->collisionRefs = d->shapeRefs;
    }
    d->ninlinedMatrix = (int)s->inlined.n;
    d->inlinedMatrices = copyArr(&c->dbl, s->inlined.data, 12 * s->inlined.n * sizeof(double));
    d->segmentAdr = adr[i], d->nsegment = cnt[i];
    d->sensorAdr = adr[nlink + i], d->nsensor = cnt[nlink + i];
    d->lightAdr = adr[2 * nlink + i], d->nlight = cnt[2 * nlink + i];
    if (!s->massGiven) {
      hsm_mergeMass(body->segments + d->segmentAdr, d->nsegment, &d->mass, d->com, d->inertia);
    }
    // children in link order (= file order, since links are numbered depth-first)
    int *children = (int *)c->ints.next;
    d->nchild = 0;
    for (int k = i + 1; k < nlink; k++) {
      if (ls[k].link.parent == i) {
        children[d->nchild++] = k;
      }
    }
    take(&c->ints, (size_t)d->nchild * sizeof(int));
    d->children = children;
    njoint = d->jointId >= njoint ? d->jointId + 1 : njoint;
  }
  body->njoint = njoint;
  int *jointLink = take(&c->ints, (size_t)njoint * sizeof(int));
  for (int j = 0; j < njoint; j++) {
    jointLink[j] = -1;
  }
  for (int i = 0; i < nlink; i++) {
    if (body->links[i].jointId >= 0) {
      jointLink[body->links[i].jointId] = i;
    }
  }
  body->jointLink = jointLink;
}

// merged mass properties of huge but finite inputs can overflow: an error at the link's first
// segment (where its mass is written) when it has one, else at the link
static int checkMasses(const hsBody *body, const hsmBuilder *b, const Groups *g, hsError *err) {
  const hsmLinkSpec *ls = b->links.data;
  for (int i = 0; i < body->nlink; i++) {
    const hsLink *d = &body->links[i];
    int bad = !isfinite(d->mass);
    for (int k = 0; k < 9; k++) {
      bad |= !isfinite(d->inertia[k]) || (k < 3 && !isfinite(d->com[k]));
    }
    if (bad) {
      const hsmSource *w = &ls[i].where;
      const char *segName = "";
      if (d->nsegment > 0) {
        const hsmSegmentSpec *s0 =
            (const hsmSegmentSpec *)b->segments.data + g->segOrder[d->segmentAdr];
        if (s0->where.line > 0) {
          w = &s0->where;
          segName = s0->name ? s0->name : "";
        }
      }
      return HS_ERR_AT(err, hsE_MODEL, w->file, w->line, w->column,
                       "link '%s'%s%s%s: its mass properties overflow (not finite once merged)",
                       d->name, segName[0] ? " (segment '" : "", segName,
                       segName[0] ? "')" : "");
    }
  }
  return 0;
}

// sensors and lights, grouped by link; extra joints
static void copySensorsLightsLoops(hsBody *body, const hsmBuilder *b, const Groups *g,
                                   Carve *c) {
  body->nsensor = (int)b->sensors.n;
  for (int i = 0; i < body->nsensor; i++) {
    const hsmSensorSpec *s = (const hsmSensorSpec *)b->sensors.data + g->senOrder[i];
    hsSensor *d = &body->sensors[i];
    *d = s->sensor;
    d->name = copyStr(&c->chars, s->name);
    d->specFile = copyStr(&c->chars, s->specFile);
    d->nspecValue = (int)s->specValues.n;
    d->specValues = copyArr(&c->flt, s->specValues.data, s->specValues.n * sizeof(float));
    d->nshapeRef = (int)s->shapeRefs.n;
    d->shapeRefs = copyArr(&c->refs, s->shapeRefs.data, s->shapeRefs.n * sizeof(hsShapeRef));
    d->ninlinedMatrix = (int)s->inlined.n;
    d->inlinedMatrices = copyArr(&c->dbl, s->inlined.data, 12 * s->inlined.n * sizeof(double));
  }
  body->nlight = (int)b->lights.n;
  for (int i = 0; i < body->nlight; i++) {
    const hsmLightSpec *s = (const hsmLightSpec *)b->lights.data + g->lightOrder[i];
    body->lights[i] = s->light;
    body->lights[i].name = copyStr(&c->chars, s->name);
  }
  const hsmExtraJointSpec *ejs = b->extraJoints.data;
  body->nextraJoint = (int)b->extraJoints.n;
  for (int i = 0; i < body->nextraJoint; i++) {
    hsExtraJoint *d = &body->extraJoints[i];
    *d = ejs[i].ej;
    d->name = copyStr(&c->chars, ejs[i].name);
    d->linkName[0] = copyStr(&c->chars, ejs[i].linkName[0]);
    d->linkName[1] = copyStr(&c->chars, ejs[i].linkName[1]);
  }
}

// shapes and appearances
static void copyShapes(hsBody *body, const hsmBuilder *b, Carve *c) {
  body->nshape = (int)b->shapes.n;
  for (int i = 0; i < body->nshape; i++) {
    const hsmShapeSpec *s = (const hsmShapeSpec *)b->shapes.data + i;
    hsShape *d = &body->shapes[i];
    d->url = copyStr(&c->chars, s->url);
    d->primitive = s->primitive;
    d->nparam = s->nparam;
    d->params = copyArr(&c->flt, s->params, (size_t)s->nparam * sizeof(float));
    d->nvertex = s->mesh.nvertex;
    d->vertices = copyArr(&c->flt, s->mesh.vertices, 3 * (size_t)s->mesh.nvertex * sizeof(float));
    d->ntriangle = s->mesh.ntriangle;
    d->triangles =
        copyArr(&c->ints, s->mesh.triangles, 3 * (size_t)s->mesh.ntriangle * sizeof(int));
    d->appearance = s->appearance;
  }
  body->nappearance = (int)b->appearances.n;
  for (int i = 0; i < body->nappearance; i++) {
    const hsmAppearanceSpec *s = (const hsmAppearanceSpec *)b->appearances.data + i;
    const hsmMesh *m = &s->attrs;
    hsAppearance *d = &body->appearances[i];
    *d = s->app;
    d->nnormal = m->nnormal;
    d->normals = copyArr(&c->flt, m->normals, 3 * (size_t)m->nnormal * sizeof(float));
    d->nnormalIndex = m->nnormalIndex;
    d->normalIndices =
        copyArr(&c->ints, m->normalIndices, (size_t)m->nnormalIndex * sizeof(int));
    d->normalPerVertex = m->normalPerVertex;
    d->ncolor = m->ncolor;
    d->colors = copyArr(&c->flt, m->colors, 3 * (size_t)m->ncolor * sizeof(float));
    d->ncolorIndex = m->ncolorIndex;
    d->colorIndices = copyArr(&c->ints, m->colorIndices, (size_t)m->ncolorIndex * sizeof(int));
    d->colorPerVertex = m->colorPerVertex;
    d->ntexCoord = m->ntexCoord;
    d->texCoords = copyArr(&c->flt, m->texCoords, 2 * (size_t)m->ntexCoord * sizeof(float));
    d->ntexCoordIndex = m->ntexCoordIndex;
    d->texCoordIndices =
        copyArr(&c->ints, m->texCoordIndices, (size_t)m->ntexCoordIndex * sizeof(int));
  }
}

// materials and textures
static void copyMaterials(hsBody *body, const hsmBuilder *b, Carve *c) {
  body->nmaterial = (int)b->materials.n;
  if (b->materials.n) {
    memcpy(body->materials, b->materials.data, b->materials.n * sizeof(hsMaterial));
  }
  body->ntexture = (int)b->textures.n;
  for (int i = 0; i < body->ntexture; i++) {
    const hsmTextureSpec *s = (const hsmTextureSpec *)b->textures.data + i;
    hsTexture *d = &body->textures[i];
    *d = s->tex;
    d->url = copyStr(&c->chars, s->url);
    d->nimage = s->image ? s->tex.nimage : 0;
    d->image = copyArr(&c->bytes, s->image, d->nimage);
  }
}

//---------------------------------- collision filter ------------------------------------------

// an unsigned 32-bit number in decimal at *p, which moves past it; 0 if there is none
static int readBits(const char **p, unsigned *out) {
  const char *s = *p;
  unsigned long long v = 0;
  if (*s < '0' || *s > '9') {
    return 0;
  }
  while (*s >= '0' && *s <= '9' && v <= 0xffffffffull) {
    v = 10 * v + (unsigned)(*s++ - '0');
  }
  if (v > 0xffffffffull || (*s >= '0' && *s <= '9')) {
    return 0;
  }
  *out = (unsigned)v;
  *p = s;
  return 1;
}

// the word at *p up to a space or the end, into out (size bytes); *p moves past it and one
// space; 0 if empty or too long
static int readWord(const char **p, char *out, size_t size) {
  size_t n = strcspn(*p, " ");
  if (n == 0 || n >= size) {
    return 0;
  }
  memcpy(out, *p, n);
  out[n] = 0;
  *p += n + ((*p)[n] == ' ');
  return 1;
}

// the parts of info string s when it is a collision filter ("collision filter LINK contype T
// conaffinity A": returns 1) or an exclude ("collision exclude LINK1 LINK2": returns 2); else 0
static int parseFilterInfo(const char *s, char a[256], char b[256], unsigned bits[2]) {
  if (strncmp(s, "collision filter ", 17) == 0) {
    const char *p = s + 17;
    if (readWord(&p, a, 256) && strncmp(p, "contype ", 8) == 0) {
      p += 8;
      if (readBits(&p, &bits[0]) && strncmp(p, " conaffinity ", 13) == 0) {
        p += 13;
        return readBits(&p, &bits[1]) && *p == 0 ? 1 : 0;
      }
    }
    return 0;
  }
  if (strncmp(s, "collision exclude ", 18) == 0) {
    const char *p = s + 18;
    return readWord(&p, a, 256) && readWord(&p, b, 256) && *p == 0 ? 2 : 0;
  }
  return 0;
}

// order of link index pairs (2 ints each): by first, then second
static int comparePairs(const void *x, const void *y) {
  const int *a = x, *b = y;
  return a[0] != b[0] ? (a[0] > b[0]) - (a[0] < b[0]) : (a[1] > b[1]) - (a[1] < b[1]);
}

// a link name and its index, for lookups by name
typedef struct NamedLink {
  const char *name;
  int index;
} NamedLink;

static int compareNamedLinks(const void *x, const void *y) {
  const NamedLink *a = x, *b = y;
  int c = strcmp(a->name, b->name);
  return c ? c : (a->index > b->index) - (a->index < b->index);
}

// the link named name: by link name through the sorted table (n entries) when there is one,
// else as hsm_linkIndex finds it (which also knows segment names); -1 if none
static int findLink(const hsBody *body, const NamedLink *sorted, int n, const char *name) {
  int lo = 0, hi = sorted ? n : 0;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (strcmp(sorted[mid].name, name) < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (sorted && lo < n && strcmp(sorted[lo].name, name) == 0) {
    return sorted[lo].index;
  }
  return hsm_linkIndex(body, name);
}

// the links' filter bits (1, 1 unless an info string sets them) and the excluded link pairs,
// from the body's info strings; the pairs go in the ints pool (two per exclude string counted).
// Names are looked up in a sorted table, so that many strings cost n log n, not n^2 (without
// memory for the table, one by one).
static void copyCollisionFilter(hsBody *body, Carve *c) {
  for (int i = 0; i < body->nlink; i++) {
    body->links[i].contype = body->links[i].conaffinity = 1;
  }
  int any = 0;
  for (int i = 0; i < body->ninfo && !any; i++) {
    any = strncmp(body->info[i], "collision ", 10) == 0;
  }
  NamedLink *sorted = any && body->nlink ? hsu_malloc((size_t)body->nlink * sizeof *sorted)
                                         : NULL;
  for (int i = 0; sorted && i < body->nlink; i++) {
    sorted[i] = (NamedLink){body->links[i].name, i};
  }
  if (sorted) {
    qsort(sorted, (size_t)body->nlink, sizeof *sorted, compareNamedLinks);
  }
  int *pairs = (int *)c->ints.next, n = 0;
  for (int i = 0; any && i < body->ninfo; i++) {
    char a[256], b[256];
    unsigned bits[2];
    int kind = parseFilterInfo(body->info[i], a, b, bits);
    int la = kind ? findLink(body, sorted, body->nlink, a) : -1;
    int lb = kind == 2 ? findLink(body, sorted, body->nlink, b) : -1;
    if (kind == 1 && la >= 0) {
      body->links[la].contype = bits[0];
      body->links[la].conaffinity = bits[1];
    } else if (kind == 2 && la >= 0 && lb >= 0 && la != lb) {
      pairs[2 * n] = la < lb ? la : lb;
      pairs[2 * n + 1] = la < lb ? lb : la;
      n++;
    }
  }
  hsu_free(sorted);
  // sorted and once each, for hsm_linksMayCollide's binary search
  if (n > 1) {
    qsort(pairs, (size_t)n, 2 * sizeof(int), comparePairs);
  }
  int kept = 0;
  for (int i = 0; i < n; i++) {
    if (kept == 0 || comparePairs(&pairs[2 * i], &pairs[2 * kept - 2]) != 0) {
      pairs[2 * kept] = pairs[2 * i], pairs[2 * kept + 1] = pairs[2 * i + 1];
      kept++;
    }
  }
  n = kept;
  take(&c->ints, 2 * (size_t)n * sizeof(int));
  body->collisionExcludes = pairs;
  body->ncollisionExclude = n;
}

int hsm_linksMayCollide(const hsBody *b1, int l1, const hsBody *b2, int l2, int sameCharacter) {
  if (!b1 || !b2 || l1 < 0 || l2 < 0 || l1 >= b1->nlink || l2 >= b2->nlink) {
    return 0;
  }
  const hsLink *x = &b1->links[l1], *y = &b2->links[l2];
  if (!((x->contype & y->conaffinity) || (y->contype & x->conaffinity))) {
    return 0;
  }
  if (sameCharacter) {
    // the excludes are sorted (copyCollisionFilter)
    int key[2] = {l1 < l2 ? l1 : l2, l1 < l2 ? l2 : l1};
    int lo = 0, hi = b1->ncollisionExclude;
    while (lo < hi) {
      int mid = lo + (hi - lo) / 2, c = comparePairs(&b1->collisionExcludes[2 * mid], key);
      if (c == 0) {
        return 0;
      }
      lo = c < 0 ? mid + 1 : lo;
      hi = c < 0 ? hi : mid;
    }
  }
  return 1;
}

hsBody *hsm_compile(hsmBuilder *b, hsError *err) {
  hsBody *body = NULL;
  Groups g = {0};
  Carve c;
  if (checkBuilder(b, err) || resolveExtraJoints(b, err) || groupByLink(b, &g, err) ||
      !(body = allocBody(b, &c, err))) {
    goto done;
  }
  copyHeader(body, b, &c);
  copySegments(body, b, &g, &c);
  copyLinks(body, b, &g, &c);
  copyCollisionFilter(body, &c);
  if (checkMasses(body, b, &g, err)) {
    hsm_freeBody(body);
    body = NULL;
    goto done;
  }
  copySensorsLightsLoops(body, b, &g, &c);
  copyShapes(body, b, &c);
  copyMaterials(body, b, &c);
  HS_ASSERT(c.chars.next <= c.end);

done:
  freeGroups(&g);
  hsm_freeBuilder(b);
  return body;
}

void hsm_freeBody(hsBody *body) {
  // the header is the start of the single block
  hsu_free(body);
}
