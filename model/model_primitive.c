// model_primitive.c - a body from a parametric URL: "hrpsim-primitive:<kind>?key=value&..."
//
// kind is box (size=x,y,z), sphere (radius=r), cylinder (radius=r&height=h, axis z) or plane
// (size=x,y: the top face of a 1 m thick slab at z = 0, default 100 x 100). mass=m (> 0) makes
// the one link a free root with the closed-form inertia of a uniform solid about its centre
// (box m(b^2+c^2)/12 ..., sphere 2/5 m r^2, cylinder m(3r^2+h^2)/12 across and m r^2/2 along);
// without mass the root is fixed (an environment). color=r,g,b (0..1) sets the diffuse colour.
// The body is built straight into the model builder: no file is written, so the URL means the
// same body on every host (the ModelLoader, the in-process core, the stills renderer).
// Cylinders follow hrpsim's (OpenHRP's) shape convention, axis y, turned onto the link's z.

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "mesh/mesh.h"

#define PREFIX "hrpsim-primitive:"

typedef struct Params {
  int kind;  // 0 box, 1 sphere, 2 cylinder, 3 plane
  double size[3], radius, height, mass, color[3];
  int hasSize, hasRadius, hasHeight, hasMass, hasColor;
} Params;

int hsm_isPrimitiveUrl(const char *url) {
  return url && strncmp(url, PREFIX, sizeof PREFIX - 1) == 0;
}

// parse n comma-separated finite numbers from s into v; 0 on success
static int numbers(const char *s, double *v, int n) {
  for (int i = 0; i < n; i++) {
    char *end;
    v[i] = strtod(s, &end);
    if (end == s || !isfinite(v[i]) || (i < n - 1 ? *end != ',' : (*end && *end != '&'))) {
      return -1;
    }
    s = end + 1;
  }
  return 0;
}

// parse the URL into p; 0 or hsE_INVALID with err saying what is wrong
static int parse(const char *url, Params *p, hsError *err) {
  static const char *kinds[] = {"box", "sphere", "cylinder", "plane"};
  memset(p, 0, sizeof *p);
  const char *s = url + sizeof PREFIX - 1;
  size_t klen = strcspn(s, "?");
  p->kind = -1;
  for (int k = 0; k < 4; k++) {
    if (strlen(kinds[k]) == klen && strncmp(s, kinds[k], klen) == 0) {
      p->kind = k;
    }
  }
  if (p->kind < 0) {
    return HS_ERR(err, hsE_INVALID, "%s: unknown primitive '%.*s' (box, sphere, cylinder, plane)",
                  url, (int)klen, s);
  }
  s += klen;
  while (*s == '?' || *s == '&') {
    s++;
    size_t n = strcspn(s, "=&");
    if (s[n] != '=') {
      return HS_ERR(err, hsE_INVALID, "%s: parameter '%.*s' has no value", url, (int)n, s);
    }
    const char *v = s + n + 1;
    int rc = 0;
    if (n == 4 && strncmp(s, "size", 4) == 0) {
      rc = numbers(v, p->size, p->kind == 3 ? 2 : 3), p->hasSize = 1;
    } else if (n == 6 && strncmp(s, "radius", 6) == 0) {
      rc = numbers(v, &p->radius, 1), p->hasRadius = 1;
    } else if (n == 6 && strncmp(s, "height", 6) == 0) {
      rc = numbers(v, &p->height, 1), p->hasHeight = 1;
    } else if (n == 4 && strncmp(s, "mass", 4) == 0) {
      rc = numbers(v, &p->mass, 1), p->hasMass = 1;
    } else if (n == 5 && strncmp(s, "color", 5) == 0) {
      rc = numbers(v, p->color, 3), p->hasColor = 1;
    } else {
      return HS_ERR(err, hsE_INVALID, "%s: unknown parameter '%.*s'", url, (int)n, s);
    }
    if (rc) {
      return HS_ERR(err, hsE_INVALID, "%s: bad value for '%.*s'", url, (int)n, s);
    }
    s = v + strcspn(v, "&");
  }
  if (*s) {
    return HS_ERR(err, hsE_INVALID, "%s: malformed parameters at '%s'", url, s);
  }
  if (p->kind == 3 && !p->hasSize) {
    p->size[0] = p->size[1] = 100;
  }
  p->size[2] = p->kind == 3 ? 1 : p->size[2];
  int ok = p->kind == 0 || p->kind == 3
               ? p->hasSize || p->kind == 3
               : p->hasRadius && (p->kind == 1 || p->hasHeight);
  if (!ok) {
    return HS_ERR(err, hsE_INVALID, "%s: a %s needs %s", url, kinds[p->kind],
                  p->kind == 0 ? "size=x,y,z" : p->kind == 1 ? "radius=r" : "radius=r&height=h");
  }
  if ((p->kind == 0 || p->kind == 3) && !(p->size[0] > 0 && p->size[1] > 0 && p->size[2] > 0)) {
    return HS_ERR(err, hsE_INVALID, "%s: size must be positive", url);
  }
  if ((p->kind == 1 || p->kind == 2) && !(p->radius > 0)) {
    return HS_ERR(err, hsE_INVALID, "%s: radius must be positive", url);
  }
  if (p->kind == 2 && !(p->height > 0)) {
    return HS_ERR(err, hsE_INVALID, "%s: height must be positive", url);
  }
  if (p->hasMass && (p->kind == 3 || !(p->mass > 0))) {
    return HS_ERR(err, hsE_INVALID, p->kind == 3 ? "%s: a plane is fixed (no mass)"
                                                 : "%s: mass must be positive", url);
  }
  for (int i = 0; p->hasColor && i < 3; i++) {
    if (!(p->color[i] >= 0 && p->color[i] <= 1)) {
      return HS_ERR(err, hsE_INVALID, "%s: color components must be in 0..1", url);
    }
  }
  return 0;
}

void hsm_primitiveInertia(int kind, const double size[3], double radius, double height,
                          double mass, double inertia[9]) {
  memset(inertia, 0, 9 * sizeof *inertia);
  double m = mass;
  if (kind == 0) {
    const double *s = size;
    inertia[0] = m * (s[1] * s[1] + s[2] * s[2]) / 12;
    inertia[4] = m * (s[0] * s[0] + s[2] * s[2]) / 12;
    inertia[8] = m * (s[0] * s[0] + s[1] * s[1]) / 12;
  } else if (kind == 1) {
    inertia[0] = inertia[4] = inertia[8] = 0.4 * m * radius * radius;
  } else if (kind == 2) {
    inertia[0] = inertia[4] = m * (3 * radius * radius + height * height) / 12;
    inertia[8] = m * radius * radius / 2;
  }
}

// the shape of p (mesh and primitive parameters) added to b; its index or -1
static int addShape(hsmBuilder *b, const Params *p, const hsmLoadOptions *opt, const char *url,
                    hsError *err) {
  hsmMesh mesh;
  memset(&mesh, 0, sizeof mesh);
  float params[5] = {0};
  int nparam, rc;
  hstPrimitive prim;
  if (p->kind == 0 || p->kind == 3) {
    prim = hsPRIM_BOX, nparam = 3;
    rc = hsm_meshBox(&mesh, p->size, err);
    for (int k = 0; k < 3; k++) {
      params[k] = (float)p->size[k];
    }
  } else if (p->kind == 1) {
    prim = hsPRIM_SPHERE, nparam = 1, params[0] = (float)p->radius;
    rc = hsm_meshSphere(&mesh, p->radius, opt->sphereSlices, opt->sphereStacks, err);
  } else {
    prim = hsPRIM_CYLINDER, nparam = 5;
    float c[5] = {(float)p->radius, (float)p->height, 1, 1, 1};
    memcpy(params, c, sizeof c);
    rc = hsm_meshCylinder(&mesh, p->radius, p->height, 1, 1, 1, opt->sphereSlices, err);
  }
  if (rc) {
    hsm_freeMesh(&mesh);
    return -1;
  }
  hsMaterial mat = {0.2f, {0.7f, 0.7f, 0.7f}, {0, 0, 0}, 0.2f, {0, 0, 0}, 0};
  for (int k = 0; p->hasColor && k < 3; k++) {
    mat.diffuseColor[k] = (float)p->color[k];
  }
  int material = (int)b->materials.n;
  if (!hsu_vecPush(&b->materials, sizeof mat, &mat)) {
    hsm_freeMesh(&mesh);
    return HS_ERR(err, hsE_NOMEM, "out of memory"), -1;
  }
  hsmShapeInput in = {prim, params, nparam, &mesh, url, material, -1, 1, 0, NULL};
  return hsm_addShape(b, &in, err);
}

hsBody *hsm_loadPrimitive(const char *url, const hsmLoadOptions *opt, hsError *err) {
  Params p;
  if (!hsm_isPrimitiveUrl(url)) {
    HS_ERR(err, hsE_INVALID, "not a primitive URL: %s", url ? url : "(null)");
    return NULL;
  }
  if (parse(url, &p, err)) {
    return NULL;
  }
  hsmLoadOptions o;
  hsm_effectiveLoadOptions(&o, opt);
  hsmBuilder b;
  memset(&b, 0, sizeof b);
  hsmLinkSpec l;
  memset(&l, 0, sizeof l);
  hsLink *k = &l.link;
  k->parent = -1;
  k->jointId = -1;
  k->jointType = p.hasMass ? hsJOINT_FREE : hsJOINT_FIXED;
  k->axis[2] = 1;
  k->rotation[2] = 1;
  k->gearRatio = k->torqueConst = k->encoderPulse = 1;
  k->AABBmaxDepth = k->AABBmaxNum = 1;
  l.where = l.jointIdAt = (hsmSource){url, 0, 0};
  l.name = hsu_strdup("root");
  l.jointTypeName = hsu_strdup(hsm_jointTypeName(k->jointType));
  b.name = hsu_strdup(p.kind == 0 ? "box" : p.kind == 1 ? "sphere" : p.kind == 2 ? "cylinder"
                                                                                 : "plane");
  b.url = hsu_strdup(url);
  int ok = l.name && l.jointTypeName && b.name && b.url;
  if (!ok || !hsu_vecPush(&b.links, sizeof l, &l)) {
    hsu_free(l.name);
    hsu_free(l.jointTypeName);
    hsm_freeBuilder(&b);
    HS_ERR(err, hsE_NOMEM, "out of memory");
    return NULL;
  }
  int shape = addShape(&b, &p, &o, url, err);
  if (shape < 0) {
    hsm_freeBuilder(&b);
    return NULL;
  }
  hsShapeRef ref;
  memset(&ref, 0, sizeof ref);
  ref.inlineMatrix = -1;
  ref.shape = shape;
  // identity, or cylinder y onto z (Rx(+90 deg)), or the plane's slab below z = 0
  double T[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
  if (p.kind == 2) {
    double X[12] = {1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0};
    memcpy(T, X, sizeof T);
  } else if (p.kind == 3) {
    T[11] = -0.5;
  }
  memcpy(ref.T, T, sizeof T);
  hsmLinkSpec *link = (hsmLinkSpec *)b.links.data;
  int refIndex = 0;
  hsmSegmentSpec s;
  memset(&s, 0, sizeof s);
  s.seg.T[0] = s.seg.T[5] = s.seg.T[10] = 1;
  s.seg.mass = p.hasMass ? p.mass : 0;
  hsm_primitiveInertia(p.kind, p.size, p.radius, p.height, s.seg.mass, s.seg.inertia);
  s.where = l.where;
  s.name = hsu_strdup("root");
  if (!hsu_vecPush(&link->shapeRefs, sizeof ref, &ref) || !s.name ||
      !hsu_vecPush(&s.shapeRefs, sizeof(int), &refIndex) ||
      !hsu_vecPush(&b.segments, sizeof s, &s)) {
    hsu_free(s.name);
    hsu_vecFree(&s.shapeRefs);
    hsm_freeBuilder(&b);
    HS_ERR(err, hsE_NOMEM, "out of memory");
    return NULL;
  }
  return hsm_compile(&b, err);
}
