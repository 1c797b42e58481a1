// urdf_shape.c - URDF visual and collision elements as shapes, materials and textures.
//
// box, sphere and cylinder become our primitives (hsPRIM_BOX with its size, hsPRIM_SPHERE with
// its radius, hsPRIM_CYLINDER with radius, height = length, top, bottom, side = 1 1 1). Our
// cylinder's axis is y while URDF's is z, so a cylinder's shape ref is placed at
// origin * Rx(+90 deg), which turns y into z. A mesh becomes one hsPRIM_MESH shape per part of
// the file (hsm_importMesh: one import process serves the load; scaled by the mesh's scale),
// each placed at the origin. Primitives are solid (closed); mesh files are drawn two-sided
// (solid 0), since many are open.
//
// Appearance: a URDF material's colour becomes an hsMaterial (diffuse = rgb, transparency =
// 1 - alpha, VRML's defaults for the rest: ambientIntensity 0.2, shininess 0.2, no emissive or
// specular colour) and its texture an hsTexture whose url is the resolved absolute path
// (decoded only when the load options ask for images); a material with a texture but no colour
// has no hsMaterial. A texture that cannot be found or decoded is a warning, not an error. A
// mesh visual without a URDF material keeps each part's own material and texture; a URDF
// material replaces them. Collision shapes carry the same appearance as a visual without a
// material would (they are not drawn, but this lets a visual and a collision that name the same
// mesh file and scale share their shapes: a file is read once per (path, scale, material)).
// A reference without a package name (package:///REST) is found as pinocchio finds it, with a
// warning at its element's line naming the file found.

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../mesh/mesh_import.h"
#include "urdf_private.h"

#define LINKSPEC(u, i) (((hsmLinkSpec *)(u)->b->links.data)[i])
#define SEGSPEC(u, i) (((hsmSegmentSpec *)(u)->b->segments.data)[i])

// a mesh file already turned into the consecutive shapes first .. first + count - 1
typedef struct MeshEntry {
  char *path;
  double scale[3];
  int material;  // URDF material table index, -1 for none
  int first, count;
} MeshEntry;

void hsm_urdfFreeShapeCache(hsmUrdfLoad *u) {
  MeshEntry *e = u->meshCache.data;
  for (size_t i = 0; i < u->meshCache.n; i++) {
    hsu_free(e[i].path);
  }
  hsu_vecFree(&u->meshCache);
  hsm_freeMeshImporter(u->importer);
  u->importer = NULL;
}

//---------------------------------- appearance ------------------------------------------------

static int pushMaterial(hsmUrdfLoad *u, const hsMaterial *m) {
  int idx = (int)u->b->materials.n;
  return hsu_vecPush(&u->b->materials, sizeof *m, m) ? idx : (hsm_urdfNomem(u), -1);
}

// the builder texture for an image file (one per path); -1 on error (out of memory only)
static int addTexture(hsmUrdfLoad *u, const char *path, int line) {
  hsmTextureSpec *tex = u->b->textures.data;
  for (size_t i = 0; i < u->b->textures.n; i++) {
    if (strcmp(tex[i].url, path) == 0) {
      return (int)i;
    }
  }
  hsmTextureSpec t;
  memset(&t, 0, sizeof t);
  t.tex.repeatS = t.tex.repeatT = 1;
  t.url = hsu_strdup(path);
  if (!t.url) {
    return hsm_urdfNomem(u), -1;
  }
  char why[800];
  int rc = hsm_readTextureImage(&t, u->opt.readImage, why, sizeof why);
  if (rc == hsE_NOMEM) {
    hsu_free(t.url);
    return hsm_urdfNomem(u), -1;
  } else if (rc) {
    hsm_urdfWarn(u, line, "%s", why);
  }
  int idx = (int)u->b->textures.n;
  if (!hsu_vecPush(&u->b->textures, sizeof t, &t)) {
    hsu_free(t.url);
    hsu_free(t.image);
    return hsm_urdfNomem(u), -1;
  }
  return idx;
}

// warn, at line, that reference ref (a mesh or texture, as what) has no package name and was
// found at path by searching the rest under each package root; nothing for other references
static void warnNoPackage(hsmUrdfLoad *u, int line, const char *what, const char *ref,
                          const char *path) {
  if (strncmp(ref, "package:///", 11) == 0) {
    hsm_urdfWarn(u, line,
                 "%s '%s' has no package name; read as pinocchio does, the rest of the path "
                 "under each package root: %s", what, ref, path);
  }
}

// the builder material and texture of URDF material m (added on first use)
static int urdfMaterial(hsmUrdfLoad *u, int index, int *material, int *texture) {
  hsmUrdfMaterial *m = (hsmUrdfMaterial *)u->doc.materials.data + index;
  if (!m->added) {
    if (m->hasColor) {
      hsMaterial hm = {0.2f, {(float)m->rgba[0], (float)m->rgba[1], (float)m->rgba[2]},
                       {0, 0, 0}, 0.2f, {0, 0, 0}, (float)(1 - m->rgba[3])};
      if ((m->material = pushMaterial(u, &hm)) < 0) {
        return -1;
      }
    }
    if (m->texture) {
      char tried[1500], *path = NULL;
      int rc = hsm_urdfResolvePath(m->texture, u->file, &path, tried, sizeof tried);
      if (rc == hsE_NOMEM) {
        return hsm_urdfNomem(u);
      }
      if (rc == 0) {
        warnNoPackage(u, m->line, "texture", m->texture, path);
        m->texIndex = addTexture(u, path, m->line);
        hsu_free(path);
        if (m->texIndex < 0) {
          return -1;
        }
      } else if (rc == 1) {
        hsm_urdfWarn(u, m->line, "texture '%s' not found (tried %s)", m->texture, tried);
      } else {
        hsm_urdfWarn(u, m->line, "texture '%s': %s", m->texture, rc == hsE_UNSUPPORTED
                     ? "unsupported URL scheme" : "malformed package:// URL");
      }
    }
    m->added = 1;
  }
  *material = m->material;
  *texture = m->texIndex;
  return 0;
}

//---------------------------------- shapes ----------------------------------------------------

// the shape of a box, sphere or cylinder; its index or -1
static int primitiveShape(hsmUrdfLoad *u, const hsmUrdfGeom *g, int material, int texture) {
  hsmMesh mesh;
  memset(&mesh, 0, sizeof mesh);
  hsError e = {0};
  float params[5];
  int nparam = 0, rc = 0;
  hstPrimitive prim;
  if (g->type == hsURDF_BOX) {
    prim = hsPRIM_BOX;
    rc = hsm_meshBox(&mesh, g->size, &e);
    nparam = 3;
    for (int k = 0; k < 3; k++) {
      params[k] = (float)g->size[k];
    }
  } else if (g->type == hsURDF_SPHERE) {
    prim = hsPRIM_SPHERE;
    rc = hsm_meshSphere(&mesh, g->size[0], u->opt.sphereSlices, u->opt.sphereStacks, &e);
    nparam = 1;
    params[0] = (float)g->size[0];
  } else {
    prim = hsPRIM_CYLINDER;
    rc = hsm_meshCylinder(&mesh, g->size[0], g->size[1], 1, 1, 1, u->opt.sphereSlices, &e);
    nparam = 5;
    float p[5] = {(float)g->size[0], (float)g->size[1], 1, 1, 1};
    memcpy(params, p, sizeof p);
  }
  if (rc) {
    hsm_freeMesh(&mesh);
    return hsm_urdfError(u, e.code ? e.code : hsE_MODEL, g->geomLine, "%s", e.message), -1;
  }
  hsmShapeInput in = {prim, params, nparam, &mesh, u->file, material, texture, 1, 0, NULL};
  return hsm_addShape(u->b, &in, u->err);
}

// the shapes of a mesh file (first, count); 0 or -1
static int meshShapes(hsmUrdfLoad *u, const hsmUrdfGeom *g, int material, int texture,
                      int *first, int *count) {
  char tried[1500], *path = NULL;
  int rc = hsm_urdfResolvePath(g->filename, u->file, &path, tried, sizeof tried);
  if (rc == hsE_NOMEM) {
    return hsm_urdfNomem(u);
  }
  if (rc == 1) {
    return hsm_urdfError(u, hsE_IO, g->geomLine, "mesh '%s' not found (tried %s)", g->filename,
                         tried);
  }
  if (rc) {
    return hsm_urdfError(u, rc == hsE_UNSUPPORTED ? hsE_UNSUPPORTED : hsE_MODEL, g->geomLine,
                         "mesh '%s': %s", g->filename, rc == hsE_UNSUPPORTED
                         ? "unsupported URL scheme (use package://, file:// or a path)"
                         : "malformed package:// URL (expected package://name/path)");
  }
  warnNoPackage(u, g->geomLine, "mesh", g->filename, path);
  // read once per (path, scale, URDF material)
  const MeshEntry *cache = u->meshCache.data;
  for (size_t i = 0; i < u->meshCache.n; i++) {
    if (strcmp(cache[i].path, path) == 0 && cache[i].material == g->material &&
        memcmp(cache[i].scale, g->scale, sizeof g->scale) == 0) {
      *first = cache[i].first, *count = cache[i].count;
      hsu_free(path);
      return 0;
    }
  }
  hsmMeshPart *parts = NULL;
  int nparts = 0;
  hsError e = {0};
  if (!u->importer && !(u->importer = hsm_makeMeshImporter(&u->opt.limits, NULL))) {
    hsu_free(path);
    return hsm_urdfNomem(u);
  }
  if (hsm_importMesh(u->importer, path, g->scale, &parts, &nparts, &e)) {
    hsu_free(path);
    return hsm_urdfError(u, e.code ? e.code : hsE_IO, g->geomLine, "mesh '%s': %s", g->filename,
                         e.message);
  }
  *first = (int)u->b->shapes.n;
  *count = 0;
  rc = 0;
  for (int i = 0; i < nparts && !rc; i++) {
    hsmMeshPart *part = &parts[i];
    int mat = material, tex = texture;
    if (g->material < 0) {
      mat = part->hasMaterial ? pushMaterial(u, &part->material) : -1;
      tex = part->texture ? addTexture(u, part->texture, g->geomLine) : -1;
      if ((part->hasMaterial && mat < 0) || (part->texture && tex < 0)) {
        rc = -1;
        break;
      }
    }
    static const float noParams[1] = {0};  // hsm_addShape copies nparam (0) of them
    hsmShapeInput in = {hsPRIM_MESH, noParams, 0, &part->mesh, path, mat, tex, 0, 0, NULL};
    if (hsm_addShape(u->b, &in, u->err) < 0) {
      rc = -1;
    } else {
      ++*count;
    }
  }
  hsm_freeMeshParts(parts, nparts);
  MeshEntry entry = {path, {g->scale[0], g->scale[1], g->scale[2]}, g->material, *first, *count};
  if (!rc && !hsu_vecPush(&u->meshCache, sizeof entry, &entry)) {
    rc = hsm_urdfNomem(u);
  }
  if (rc) {
    hsu_free(path);
  }
  return rc;
}

int hsm_urdfAddGeom(hsmUrdfLoad *u, const hsmUrdfGeom *g, int link, int segment, int visual) {
  int material = -1, texture = -1;
  if (g->material >= 0 && urdfMaterial(u, g->material, &material, &texture)) {
    return -1;
  }
  int first = -1, count = 1;
  if (g->type == hsURDF_MESH) {
    if (meshShapes(u, g, material, texture, &first, &count)) {
      return -1;
    }
  } else if ((first = primitiveShape(u, g, material, texture)) < 0) {
    return -1;
  }
  hsShapeRef ref;
  memcpy(ref.T, g->T, sizeof ref.T);
  if (g->type == hsURDF_CYLINDER) {
    // our cylinder axis y onto URDF's z: T * Rx(+90 deg)
    double Rx[9] = {1, 0, 0, 0, 0, -1, 0, 1, 0}, zero[3] = {0, 0, 0}, X[12];
    hsu_makeTransform(X, Rx, zero);
    hsu_mulTransform(ref.T, g->T, X);
  }
  ref.inlineMatrix = -1;
  hsmLinkSpec *l = &LINKSPEC(u, link);
  hsuVec *refs = visual ? &l->shapeRefs : &l->collisionRefs;
  for (int k = 0; k < count; k++) {
    ref.shape = first + k;
    int refIndex = (int)refs->n;
    if (!hsu_vecPush(refs, sizeof ref, &ref) ||
        (visual && !hsu_vecPush(&SEGSPEC(u, segment).shapeRefs, sizeof(int), &refIndex))) {
      return hsm_urdfNomem(u);
    }
  }
  return 0;
}
