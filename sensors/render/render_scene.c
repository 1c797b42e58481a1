// render_scene.c - scenes of an hsrRenderer (render.h): bodies' visual shapes on the GPU, their
// poses and lights, and drawing them into a framebuffer object read back as RGB and metric depth.
//
// Each shape becomes one vertex buffer of unindexed triangles (position, normal, colour, texture
// coordinate per corner), since OpenHRP's appearances index normals, colours and texture
// coordinates per corner or per triangle independently of the vertices. A shape placed several
// times (several shapeRefs) is drawn from the same buffer. Textures are uploaded once per body
// texture that has pixels (the body was loaded with readImage); rows arrive top first, so the
// shader samples (s, 1 - t) to honour VRML's t = 0 at the image's bottom. Texture coordinates
// absent from a textured IndexedFaceSet take VRML's default: s along the bounding box's longest
// side, t along the second, both scaled by the longest side.
//
// The fragment shader writes the VRML97-lit colour (lighting per vertex, see the shaders) to
// attachment 0 (RGBA8) and the distance along the optical axis (-z in the camera frame,
// interpolated perspective-correctly, which is exact for planar triangles) to attachment 1
// (R32F, cleared to the far clip distance). Read-back flips rows so that the top row comes first.

#include <math.h>
#include <stdio.h>
#include <string.h>

#define GL_GLEXT_PROTOTYPES 1
#include <GL/glcorearb.h>

#include "render_internal.h"

//---------------------------------- shaders ---------------------------------------------------

// Lighting is VRML97's equation. Directional lights are evaluated per vertex (Gouraud shading,
// as VRML browsers and OpenHRP's Java3D viewer draw; exact on flat faces, where they are
// constant), point and spot lights per fragment (their falloff and cone vary across large faces
// such as floors, which Gouraud shading would miss). Both stages split the equation into a part
// that multiplies the surface's base colour (ambient + diffuse terms) and one that adds to it
// (specular); the fragment shader combines them with the base colour (diffuse, vertex colour
// or texture).
// lights: pos and dir in the camera frame; colour.w = type (0 point, 1 directional, 2 spot);
// params = (intensity, ambientIntensity, beamWidth, cutOffAngle); atten = (a0, a1, a2, radius)
#define HSS_LIGHT_GLSL                                                                        \
  "uniform vec3 uSpecular;\n"                                                                 \
  "uniform float uShininess;\n"                                                               \
  "uniform float uAmbient;\n"                                                                 \
  "uniform int uNLight;\n"                                                                    \
  "uniform vec3 uLightPos[8];\n"                                                              \
  "uniform vec3 uLightDir[8];\n"                                                              \
  "uniform vec4 uLightColor[8];\n"                                                            \
  "uniform vec4 uLightParams[8];\n"                                                           \
  "uniform vec4 uLightAtten[8];\n"                                                            \
  "uniform vec2 uLightCos[8];\n"                                                              \
  "void light(int i, vec3 P, vec3 N, vec3 V, inout vec3 lit, inout vec3 add) {\n"            \
  "  int type = int(uLightColor[i].w);\n"                                                     \
  "  vec3 L;\n"                                                                               \
  "  float k = 1.0;\n"                                                                        \
  "  if (type == 1) {\n"                                                                      \
  "    L = -uLightDir[i];\n"                                                                  \
  "  } else {\n"                                                                              \
  "    vec3 d = uLightPos[i] - P;\n"                                                          \
  "    float dist = length(d);\n"                                                             \
  "    if (dist > uLightAtten[i].w) return;\n"                                                \
  "    L = d / max(dist, 1e-12);\n"                                                           \
  "    vec3 a = uLightAtten[i].xyz;\n"                                                        \
  "    k = 1.0 / max(a.x + a.y * dist + a.z * dist * dist, 1.0);\n"                           \
  "    if (type == 2) {\n"                                                                    \
  "      float cd = dot(-L, uLightDir[i]);\n"                                                 \
  "      if (cd <= uLightCos[i].y) return;\n"                                                 \
  "      if (cd < uLightCos[i].x) {\n"                                                        \
  "        float beam = uLightParams[i].z, cut = uLightParams[i].w;\n"                        \
  "        k *= (acos(clamp(cd, -1.0, 1.0)) - cut) / (beam - cut);\n"                         \
  "      }\n"                                                                                 \
  "    }\n"                                                                                   \
  "  }\n"                                                                                     \
  "  float ndl = max(dot(N, L), 0.0);\n"                                                      \
  "  float spec = 0.0;\n"                                                                     \
  "  if (ndl > 0.0 && uSpecular != vec3(0.0))\n"                                              \
  "    spec = pow(max(dot(N, normalize(L + V)), 0.0), uShininess * 128.0);\n"                  \
  "  float I = uLightParams[i].x, Ia = uLightParams[i].y;\n"                                  \
  "  vec3 c = k * uLightColor[i].rgb;\n"                                                      \
  "  lit += c * (Ia * uAmbient + I * ndl);\n"                                                 \
  "  add += c * (I * spec) * uSpecular;\n"                                                    \
  "}\n"

static const char *kVertexShader =
    "#version 330 core\n"
    "layout(location = 0) in vec3 aPos;\n"
    "layout(location = 1) in vec3 aNormal;\n"
    "layout(location = 2) in vec3 aColor;\n"
    "layout(location = 3) in vec2 aUv;\n"
    "uniform mat4 uModelView;\n"
    "uniform mat4 uProj;\n"
    "uniform mat3 uNormal;\n"
    "uniform int uPositional;\n"
    HSS_LIGHT_GLSL
    "invariant gl_Position;\n"
    "out vec3 vPos;\n"
    "out vec3 vNormal;\n"
    "out vec3 vLit;\n"
    "out vec3 vAdd;\n"
    "out vec3 vColor;\n"
    "out vec2 vUv;\n"
    "void main() {\n"
    "  vec4 p = uModelView * vec4(aPos, 1.0);\n"
    "  vPos = p.xyz;\n"
    "  vColor = aColor;\n"
    "  vUv = aUv;\n"
    "  gl_Position = uProj * p;\n"
    "  vLit = vec3(1.0);\n"
    "  vAdd = vec3(0.0);\n"
    "  vNormal = uNormal * aNormal;\n"
    "  if (uNLight < 0) return;\n"  // no material: unlit
    "  vLit = vec3(0.0);\n"
    "  vec3 N = normalize(vNormal);\n"
    "  vec3 V = normalize(-p.xyz);\n"
    "  if (dot(N, V) < 0.0) N = -N;\n"  // two-sided
    "  for (int i = 0; i < uNLight; i++) {\n"
    "    if (int(uLightColor[i].w) == 1) light(i, p.xyz, N, V, vLit, vAdd);\n"
    "  }\n"
    "}\n";

static const char *kFragmentShader =
    "#version 330 core\n"
    "in vec3 vPos;\n"
    "in vec3 vNormal;\n"
    "in vec3 vLit;\n"
    "in vec3 vAdd;\n"
    "in vec3 vColor;\n"
    "in vec2 vUv;\n"
    "uniform vec3 uDiffuse;\n"
    "uniform vec3 uEmissive;\n"
    "uniform float uTransparency;\n"
    "uniform int uUseVertexColor;\n"
    "uniform int uUseTexture;\n"
    "uniform int uTexComponents;\n"
    "uniform int uPositional;\n"
    "uniform sampler2D uTex;\n"
    HSS_LIGHT_GLSL
    "layout(location = 0) out vec4 oColor;\n"
    "layout(location = 1) out float oDepth;\n"
    "void main() {\n"
    "  vec3 base = uUseVertexColor == 1 ? vColor : uDiffuse;\n"
    "  if (uUseTexture == 1) {\n"
    "    vec4 t = texture(uTex, vec2(vUv.x, 1.0 - vUv.y));\n"
    "    base = uTexComponents <= 2 ? base * t.r : t.rgb;\n"
    "  }\n"
    "  vec3 lit = vLit, add = vAdd;\n"
    "  if (uPositional == 1 && uNLight > 0) {\n"
    "    vec3 N = normalize(vNormal);\n"
    "    vec3 V = normalize(-vPos);\n"
    "    if (dot(N, V) < 0.0) N = -N;\n"
    "    for (int i = 0; i < uNLight; i++) {\n"
    "      if (int(uLightColor[i].w) != 1) light(i, vPos, N, V, lit, add);\n"
    "    }\n"
    "  }\n"
    "  oColor = vec4(clamp(uEmissive + base * lit + add, 0.0, 1.0), 1.0 - uTransparency);\n"
    "  oDepth = -vPos.z;\n"
    "}\n";

// the depth pre-pass: the same positions (invariant), no shading, so that the shading pass runs
// the fragment shader once per pixel (the depth test then passes only the nearest surface)
static const char *kDepthVertexShader =
    "#version 330 core\n"
    "layout(location = 0) in vec3 aPos;\n"
    "uniform mat4 uModelView;\n"
    "uniform mat4 uProj;\n"
    "invariant gl_Position;\n"
    "void main() {\n"
    "  vec4 p = uModelView * vec4(aPos, 1.0);\n"
    "  gl_Position = uProj * p;\n"
    "}\n";

static const char *kDepthFragmentShader =
    "#version 330 core\n"
    "void main() {\n"
    "}\n";

static unsigned compile(GLenum kind, const char *src, hsError *err) {
  GLuint sh = glCreateShader(kind);
  glShaderSource(sh, 1, &src, NULL);
  glCompileShader(sh);
  GLint ok = 0;
  glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[1024] = "";
    glGetShaderInfoLog(sh, sizeof log, NULL, log);
    HS_ERR(err, hsE_UNSUPPORTED, "shader does not compile: %s", log);
    glDeleteShader(sh);
    return 0;
  }
  return sh;
}

static GLuint link(const char *vsrc, const char *fsrc, hsError *err) {
  GLuint vs = compile(GL_VERTEX_SHADER, vsrc, err);
  GLuint fs = vs ? compile(GL_FRAGMENT_SHADER, fsrc, err) : 0;
  if (!fs) {
    glDeleteShader(vs);
    return 0;
  }
  GLuint p = glCreateProgram();
  glAttachShader(p, vs);
  glAttachShader(p, fs);
  glLinkProgram(p);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[1024] = "";
    glGetProgramInfoLog(p, sizeof log, NULL, log);
    glDeleteProgram(p);
    HS_ERR(err, hsE_UNSUPPORTED, "shader program does not link: %s", log);
    return 0;
  }
  return p;
}

int hss_initPrograms(hsrRenderer *r, hsError *err) {
  GLuint p = link(kVertexShader, kFragmentShader, err);
  GLuint d = p ? link(kDepthVertexShader, kDepthFragmentShader, err) : 0;
  if (!d) {
    glDeleteProgram(p);
    return hsE_UNSUPPORTED;
  }
  r->program = p;
  r->depthProgram = d;
  r->depthModelView = glGetUniformLocation(d, "uModelView");
  r->depthProj = glGetUniformLocation(d, "uProj");
  hssUniforms *u = &r->u;
  u->modelView = glGetUniformLocation(p, "uModelView");
  u->proj = glGetUniformLocation(p, "uProj");
  u->normal = glGetUniformLocation(p, "uNormal");
  u->diffuse = glGetUniformLocation(p, "uDiffuse");
  u->emissive = glGetUniformLocation(p, "uEmissive");
  u->specular = glGetUniformLocation(p, "uSpecular");
  u->shininess = glGetUniformLocation(p, "uShininess");
  u->ambient = glGetUniformLocation(p, "uAmbient");
  u->transparency = glGetUniformLocation(p, "uTransparency");
  u->useVertexColor = glGetUniformLocation(p, "uUseVertexColor");
  u->useTexture = glGetUniformLocation(p, "uUseTexture");
  u->texComponents = glGetUniformLocation(p, "uTexComponents");
  u->tex = glGetUniformLocation(p, "uTex");
  u->nlight = glGetUniformLocation(p, "uNLight");
  u->positional = glGetUniformLocation(p, "uPositional");
  u->lightPos = glGetUniformLocation(p, "uLightPos");
  u->lightDir = glGetUniformLocation(p, "uLightDir");
  u->lightColor = glGetUniformLocation(p, "uLightColor");
  u->lightParams = glGetUniformLocation(p, "uLightParams");
  u->lightAtten = glGetUniformLocation(p, "uLightAtten");
  u->lightCos = glGetUniformLocation(p, "uLightCos");
  return 0;
}

void hss_freePrograms(hsrRenderer *r) {
  if (r->program) {
    glDeleteProgram(r->program);
    glDeleteProgram(r->depthProgram);
    r->program = r->depthProgram = 0;
  }
}

//---------------------------------- scene data ------------------------------------------------

enum { kFloatsPerVertex = 11 };  // position 3, normal 3, colour 3, texture coordinate 2

typedef struct Mesh {
  GLuint vao, vbo;
  int nvertex;
  int vertexColors;  // the appearance gives colours (they replace the diffuse colour)
} Mesh;

typedef struct BodyGpu {
  const hsBody *body;
  Mesh *meshes;       // per shape
  GLuint *textures;   // per body texture, 0 when it has no pixels
  double *linkP;      // 3 per link, world [m]
  double *linkR;      // 9 per link, world
} BodyGpu;

typedef struct Target {
  int width, height;
  GLuint fbo, color, depth, zbuffer;
  unsigned long lastUse;
} Target;

enum { kTargets = 4 };

struct hsrScene {
  hsrRenderer *r;
  BodyGpu *bodies;
  int nbody;
  Target targets[kTargets];
  unsigned long uses;
  unsigned char *scratch;  // read-back buffer
  size_t nscratch;
  int warnedLights;
};

hsrScene *hsr_makeScene(hsrRenderer *r, hsError *err) {
  if (!r) {
    HS_ERR(err, hsE_INVALID, "no renderer");
    return NULL;
  }
  hsrScene *s = hsu_malloc(sizeof *s);
  if (!s) {
    HS_ERR(err, hsE_NOMEM, "no memory for a scene");
    return NULL;
  }
  memset(s, 0, sizeof *s);
  s->r = r;
  return s;
}

static void freeBodyGpu(BodyGpu *b) {
  if (b->meshes) {
    for (int i = 0; i < b->body->nshape; i++) {
      glDeleteBuffers(1, &b->meshes[i].vbo);
      glDeleteVertexArrays(1, &b->meshes[i].vao);
    }
  }
  if (b->textures) {
    glDeleteTextures(b->body->ntexture, b->textures);
  }
  hsu_free(b->meshes);
  hsu_free(b->textures);
  hsu_free(b->linkP);
  hsu_free(b->linkR);
}

void hsr_freeScene(hsrScene *s) {
  if (!s) {
    return;
  }
  hss_bindRenderer(s->r);
  for (int i = 0; i < s->nbody; i++) {
    freeBodyGpu(&s->bodies[i]);
  }
  for (int i = 0; i < kTargets; i++) {
    Target *t = &s->targets[i];
    if (t->fbo) {
      glDeleteFramebuffers(1, &t->fbo);
      glDeleteTextures(1, &t->color);
      glDeleteTextures(1, &t->depth);
      glDeleteRenderbuffers(1, &t->zbuffer);
    }
  }
  hsu_free(s->bodies);
  hsu_free(s->scratch);
  hsu_free(s);
}

// the index of attribute `corner` of triangle t: per-corner or per-triangle lists, with or
// without an index list (then the vertex index or the triangle number); -1 when out of range
static int attrIndex(const int *indices, int nindex, int count, int perVertex, int t, int c,
                     int vertex) {
  int k;
  if (perVertex) {
    k = nindex ? (3 * t + c < nindex ? indices[3 * t + c] : -1) : vertex;
  } else {
    k = nindex ? (t < nindex ? indices[t] : -1) : t;
  }
  return k >= 0 && k < count ? k : -1;
}

// fill the vertex array of one shape (3 corners per triangle)
static void buildVertices(const hsBody *body, const hsShape *sh, float *out, int *vertexColors) {
  const hsAppearance *app =
      sh->appearance >= 0 && sh->appearance < body->nappearance ? &body->appearances[sh->appearance]
                                                                : NULL;
  *vertexColors = app && app->ncolor > 0;
  // VRML's default texture mapping: the bounding box's two longest sides
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int v = 0; v < sh->nvertex; v++) {
    for (int j = 0; j < 3; j++) {
      lo[j] = fmin(lo[j], sh->vertices[3 * v + j]);
      hi[j] = fmax(hi[j], sh->vertices[3 * v + j]);
    }
  }
  int sAxis = 0, tAxis = 1;
  double size[3] = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
  for (int j = 0; j < 3; j++) {
    if (size[j] > size[sAxis]) {
      sAxis = j;
    }
  }
  tAxis = sAxis == 0 ? 1 : 0;
  for (int j = 0; j < 3; j++) {
    if (j != sAxis && size[j] > size[tAxis]) {
      tAxis = j;
    }
  }
  double scale = size[sAxis] > 0 ? 1.0 / size[sAxis] : 1.0;
  for (int t = 0; t < sh->ntriangle; t++) {
    const float *p[3];
    for (int c = 0; c < 3; c++) {
      p[c] = &sh->vertices[3 * sh->triangles[3 * t + c]];
    }
    // the face normal, for corners without one
    float e1[3], e2[3], fn[3];
    for (int j = 0; j < 3; j++) {
      e1[j] = p[1][j] - p[0][j];
      e2[j] = p[2][j] - p[0][j];
    }
    fn[0] = e1[1] * e2[2] - e1[2] * e2[1];
    fn[1] = e1[2] * e2[0] - e1[0] * e2[2];
    fn[2] = e1[0] * e2[1] - e1[1] * e2[0];
    for (int c = 0; c < 3; c++) {
      int v = sh->triangles[3 * t + c];
      float *o = out + (size_t)(3 * t + c) * kFloatsPerVertex;
      memcpy(o, p[c], 3 * sizeof(float));
      int k = app && app->nnormal ? attrIndex(app->normalIndices, app->nnormalIndex, app->nnormal,
                                              app->normalPerVertex, t, c, v)
                                  : -1;
      memcpy(o + 3, k >= 0 ? &app->normals[3 * k] : fn, 3 * sizeof(float));
      k = *vertexColors ? attrIndex(app->colorIndices, app->ncolorIndex, app->ncolor,
                                    app->colorPerVertex, t, c, v)
                        : -1;
      if (k >= 0) {
        memcpy(o + 6, &app->colors[3 * k], 3 * sizeof(float));
      } else {
        o[6] = o[7] = o[8] = 1.0f;
      }
      double st[2];
      k = app && app->ntexCoord ? attrIndex(app->texCoordIndices, app->ntexCoordIndex,
                                            app->ntexCoord, 1, t, c, v)
                                : -1;
      if (k >= 0) {
        st[0] = app->texCoords[2 * k];
        st[1] = app->texCoords[2 * k + 1];
      } else {
        st[0] = (p[c][sAxis] - lo[sAxis]) * scale;
        st[1] = (p[c][tAxis] - lo[tAxis]) * scale;
      }
      if (app) {
        const double *M = app->texTransform;
        double s0 = M[0] * st[0] + M[1] * st[1] + M[2];
        double t0 = M[3] * st[0] + M[4] * st[1] + M[5];
        st[0] = s0;
        st[1] = t0;
      }
      o[9] = (float)st[0];
      o[10] = (float)st[1];
    }
  }
}

static GLuint uploadTexture(const hsTexture *tex) {
  static const GLenum formats[5] = {0, GL_RED, GL_RG, GL_RGB, GL_RGBA};
  if (!tex->image || tex->width <= 0 || tex->height <= 0 || tex->numComponents < 1 ||
      tex->numComponents > 4 ||
      tex->nimage < (size_t)tex->width * tex->height * tex->numComponents) {
    return 0;
  }
  GLuint id;
  glGenTextures(1, &id);
  glBindTexture(GL_TEXTURE_2D, id);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  GLenum f = formats[tex->numComponents];
  glTexImage2D(GL_TEXTURE_2D, 0, (GLint)f == GL_RED ? GL_R8 : f == GL_RG ? GL_RG8
                                  : f == GL_RGB ? GL_RGB8 : GL_RGBA8,
               tex->width, tex->height, 0, f, GL_UNSIGNED_BYTE, tex->image);
  glGenerateMipmap(GL_TEXTURE_2D);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, tex->repeatS ? GL_REPEAT : GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, tex->repeatT ? GL_REPEAT : GL_CLAMP_TO_EDGE);
  return id;
}

int hsr_addBody(hsrScene *s, const hsBody *body, hsError *err) {
  if (!s || !body) {
    return HS_ERR(err, hsE_INVALID, "hsr_addBody: no scene or no body");
  }
  BodyGpu *bodies = hsu_malloc((size_t)(s->nbody + 1) * sizeof *bodies);
  if (!bodies) {
    return HS_ERR(err, hsE_NOMEM, "no memory for body '%s'", body->name);
  }
  if (s->nbody) {
    memcpy(bodies, s->bodies, (size_t)s->nbody * sizeof *bodies);
  }
  hsu_free(s->bodies);
  s->bodies = bodies;
  BodyGpu *b = &s->bodies[s->nbody];
  memset(b, 0, sizeof *b);
  b->body = body;
  b->meshes = hsu_malloc((size_t)(body->nshape + 1) * sizeof *b->meshes);
  b->textures = hsu_malloc((size_t)(body->ntexture + 1) * sizeof *b->textures);
  b->linkP = hsu_malloc((size_t)(body->nlink + 1) * 3 * sizeof(double));
  b->linkR = hsu_malloc((size_t)(body->nlink + 1) * 9 * sizeof(double));
  size_t maxTri = 1;
  for (int i = 0; i < body->nshape; i++) {
    if ((size_t)body->shapes[i].ntriangle > maxTri) {
      maxTri = (size_t)body->shapes[i].ntriangle;
    }
  }
  float *vertices = hsu_malloc(maxTri * 3 * kFloatsPerVertex * sizeof(float));
  if (!b->meshes || !b->textures || !b->linkP || !b->linkR || !vertices) {
    hsu_free(vertices);
    hsu_free(b->meshes);
    hsu_free(b->textures);
    hsu_free(b->linkP);
    hsu_free(b->linkR);
    return HS_ERR(err, hsE_NOMEM, "no memory for body '%s'", body->name);
  }
  memset(b->meshes, 0, (size_t)(body->nshape + 1) * sizeof *b->meshes);
  memset(b->textures, 0, (size_t)(body->ntexture + 1) * sizeof *b->textures);
  hss_bindRenderer(s->r);
  for (int i = 0; i < body->nshape; i++) {
    const hsShape *sh = &body->shapes[i];
    Mesh *m = &b->meshes[i];
    buildVertices(body, sh, vertices, &m->vertexColors);
    m->nvertex = 3 * sh->ntriangle;
    glGenVertexArrays(1, &m->vao);
    glBindVertexArray(m->vao);
    glGenBuffers(1, &m->vbo);
    glBindBuffer(GL_ARRAY_BUFFER, m->vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)m->nvertex * kFloatsPerVertex * 4),
                 vertices, GL_STATIC_DRAW);
    static const int sizes[4] = {3, 3, 3, 2}, offsets[4] = {0, 3, 6, 9};
    for (int a = 0; a < 4; a++) {
      glEnableVertexAttribArray((GLuint)a);
      glVertexAttribPointer((GLuint)a, sizes[a], GL_FLOAT, GL_FALSE, kFloatsPerVertex * 4,
                            (const void *)(size_t)(offsets[a] * 4));
    }
  }
  glBindVertexArray(0);
  hsu_free(vertices);
  for (int i = 0; i < body->ntexture; i++) {
    b->textures[i] = uploadTexture(&body->textures[i]);
  }
  // the initial configuration
  hsBodyState *st = hsm_makeState(body, err);
  if (!st) {
    freeBodyGpu(b);
    return err ? err->code : hsE_NOMEM;
  }
  memcpy(b->linkP, st->linkP, (size_t)body->nlink * 3 * sizeof(double));
  memcpy(b->linkR, st->linkR, (size_t)body->nlink * 9 * sizeof(double));
  hsm_freeState(st);
  if (glGetError() != GL_NO_ERROR) {
    freeBodyGpu(b);
    return HS_ERR(err, hsE_UNSUPPORTED, "OpenGL failed to take the shapes of body '%s'",
                  body->name);
  }
  return s->nbody++;
}

int hsr_setPose(hsrScene *s, int b, const double *linkP, const double *linkR, hsError *err) {
  if (!s || b < 0 || b >= s->nbody || !linkP || !linkR) {
    return HS_ERR(err, hsE_INVALID, "hsr_setPose: no body %d in the scene", b);
  }
  int n = s->bodies[b].body->nlink;
  for (int i = 0; i < 3 * n; i++) {
    if (!isfinite(linkP[i])) {
      return HS_ERR(err, hsE_INVALID, "link position not finite");
    }
  }
  for (int i = 0; i < 9 * n; i++) {
    if (!isfinite(linkR[i])) {
      return HS_ERR(err, hsE_INVALID, "link rotation not finite");
    }
  }
  memcpy(s->bodies[b].linkP, linkP, (size_t)n * 3 * sizeof(double));
  memcpy(s->bodies[b].linkR, linkR, (size_t)n * 9 * sizeof(double));
  return 0;
}

int hsr_linkPose(const hsrScene *s, int b, int link, double p[3], double R[9]) {
  if (!s || b < 0 || b >= s->nbody || link < 0 || link >= s->bodies[b].body->nlink) {
    return hsE_INVALID;
  }
  memcpy(p, &s->bodies[b].linkP[3 * link], 3 * sizeof(double));
  memcpy(R, &s->bodies[b].linkR[9 * link], 9 * sizeof(double));
  return 0;
}

//---------------------------------- transforms ------------------------------------------------

// C = A B for 3x4 transforms (A's and B's 3x3 parts may scale)
static void compose(double C[12], const double A[12], const double B[12]) {
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 4; j++) {
      double v = j == 3 ? A[4 * i + 3] : 0.0;
      for (int k = 0; k < 3; k++) {
        v += A[4 * i + k] * B[4 * k + j];
      }
      C[4 * i + j] = v;
    }
  }
}

// the world-to-camera transform of a rigid camera frame T
static void invertRigid(double V[12], const double T[12]) {
  for (int i = 0; i < 3; i++) {
    V[4 * i + 3] = 0;
    for (int j = 0; j < 3; j++) {
      V[4 * i + j] = T[4 * j + i];
      V[4 * i + 3] -= T[4 * j + i] * T[4 * j + 3];
    }
  }
}

// a link's world pose as a 3x4
static void linkFrame(double T[12], const BodyGpu *b, int link) {
  const double *p = &b->linkP[3 * link], *R = &b->linkR[9 * link];
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      T[4 * i + j] = R[3 * i + j];
    }
    T[4 * i + 3] = p[i];
  }
}

// GL column-major 4x4 from a 3x4 row-major
static void toGl(float M[16], const double T[12]) {
  memset(M, 0, 16 * sizeof(float));
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 4; j++) {
      M[4 * j + i] = (float)T[4 * i + j];
    }
  }
  M[15] = 1.0f;
}

// the normal matrix (inverse transpose of the 3x3 part), column-major for GL; identity when
// singular
static void normalMatrix(float N[9], const double T[12]) {
  const double a = T[0], b = T[1], c = T[2], d = T[4], e = T[5], f = T[6], g = T[8], h = T[9],
               k = T[10];
  double co[9] = {e * k - f * h, f * g - d * k, d * h - e * g,
                  c * h - b * k, a * k - c * g, b * g - a * h,
                  b * f - c * e, c * d - a * f, a * e - b * d};
  double det = a * co[0] + b * co[1] + c * co[2];
  if (fabs(det) < 1e-300) {
    static const float I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    memcpy(N, I, sizeof I);
    return;
  }
  // inverse transpose = cofactor matrix / det; row-major co -> column-major N
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      N[3 * j + i] = (float)(co[3 * i + j] / det);
    }
  }
}

//---------------------------------- drawing ---------------------------------------------------

static int checkView(const hsrView *v, hsError *err) {
  if (!v || !(v->fieldOfView > 0 && v->fieldOfView < M_PI) || !(v->nearClip > 0) ||
      !(v->farClip > v->nearClip) || !isfinite(v->farClip) || v->width < 1 || v->height < 1 ||
      v->width > 8192 || v->height > 8192) {
    return HS_ERR(err, hsE_INVALID,
                  "bad view: fieldOfView must be in (0, pi), 0 < near < far, 1 <= width, height "
                  "<= 8192");
  }
  for (int i = 0; i < 12; i++) {
    if (!isfinite(v->T[i])) {
      return HS_ERR(err, hsE_INVALID, "bad view: camera pose not finite");
    }
  }
  return 0;
}

// a framebuffer of the view's size (the least recently used of kTargets is remade)
static Target *target(hsrScene *s, int w, int h, hsError *err) {
  Target *t = NULL;
  for (int i = 0; i < kTargets; i++) {
    if (s->targets[i].fbo && s->targets[i].width == w && s->targets[i].height == h) {
      t = &s->targets[i];
    }
  }
  if (!t) {
    t = &s->targets[0];
    for (int i = 1; i < kTargets; i++) {
      if (s->targets[i].lastUse < t->lastUse) {
        t = &s->targets[i];
      }
    }
    if (t->fbo) {
      glDeleteFramebuffers(1, &t->fbo);
      glDeleteTextures(1, &t->color);
      glDeleteTextures(1, &t->depth);
      glDeleteRenderbuffers(1, &t->zbuffer);
    }
    memset(t, 0, sizeof *t);
    glGenFramebuffers(1, &t->fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, t->fbo);
    glGenTextures(1, &t->color);
    glBindTexture(GL_TEXTURE_2D, t->color);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, t->color, 0);
    glGenTextures(1, &t->depth);
    glBindTexture(GL_TEXTURE_2D, t->depth);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, w, h, 0, GL_RED, GL_FLOAT, NULL);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT1, GL_TEXTURE_2D, t->depth, 0);
    glGenRenderbuffers(1, &t->zbuffer);
    glBindRenderbuffer(GL_RENDERBUFFER, t->zbuffer);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT32F, w, h);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, t->zbuffer);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
      HS_ERR(err, hsE_UNSUPPORTED, "OpenGL cannot make a %d x %d framebuffer", w, h);
      return NULL;
    }
    t->width = w;
    t->height = h;
  }
  t->lastUse = ++s->uses;
  glBindFramebuffer(GL_FRAMEBUFFER, t->fbo);
  return t;
}

// the lights of every body, in the camera frame (V: world to camera); -1 count means "no light
// in the scene": the headlight is used
static int collectLights(hsrScene *s, const double V[12], float pos[][3], float dir[][3],
                         float color[][4], float params[][4], float atten[][4], float cosines[][2],
                         int *positional) {
  int n = 0, total = 0, lighting = 0;
  *positional = 0;
  for (int bi = 0; bi < s->nbody; bi++) {
    const BodyGpu *b = &s->bodies[bi];
    for (int li = 0; li < b->body->nlight; li++) {
      const hsLight *L = &b->body->lights[li];
      total++;
      if (!L->on || n == HSS_MAX_LIGHTS) {
        continue;
      }
      double W[12], C[12];
      linkFrame(W, b, L->link);
      compose(C, W, L->T);
      double VC[12];
      compose(VC, V, C);
      for (int i = 0; i < 3; i++) {
        pos[n][i] = (float)(VC[4 * i] * L->location[0] + VC[4 * i + 1] * L->location[1] +
                            VC[4 * i + 2] * L->location[2] + VC[4 * i + 3]);
        dir[n][i] = (float)(VC[4 * i] * L->direction[0] + VC[4 * i + 1] * L->direction[1] +
                            VC[4 * i + 2] * L->direction[2]);
        color[n][i] = (float)L->color[i];
      }
      double dn = sqrt((double)dir[n][0] * dir[n][0] + (double)dir[n][1] * dir[n][1] +
                       (double)dir[n][2] * dir[n][2]);
      for (int i = 0; i < 3; i++) {
        dir[n][i] = dn > 0 ? (float)(dir[n][i] / dn) : 0.0f;
      }
      cosines[n][0] = (float)cos(L->beamWidth);
      cosines[n][1] = (float)cos(L->cutOffAngle);
      color[n][3] = L->type == hsLIGHT_DIRECTIONAL ? 1.0f : L->type == hsLIGHT_SPOT ? 2.0f : 0.0f;
      lighting += L->type != hsLIGHT_SPOT;
      *positional |= L->type != hsLIGHT_DIRECTIONAL;
      params[n][0] = (float)L->intensity;
      params[n][1] = (float)L->ambientIntensity;
      params[n][2] = (float)L->beamWidth;
      params[n][3] = (float)L->cutOffAngle;
      for (int i = 0; i < 3; i++) {
        atten[n][i] = (float)L->attenuation[i];
      }
      atten[n][3] = (float)L->radius;
      n++;
    }
  }
  if (total > HSS_MAX_LIGHTS && !s->warnedLights) {
    s->warnedLights = 1;
    hsu_log(hsLOG_WARNING, "the scene has %d lights; only the first %d are drawn", total,
            HSS_MAX_LIGHTS);
  }
  if (lighting == 0 && n < HSS_MAX_LIGHTS) {
    // no directional or point light: the headlight, white, intensity 1, along the view
    // direction (spot lights alone leave most of a scene dark)
    memmove(pos + 1, pos, (size_t)n * sizeof pos[0]);
    memmove(dir + 1, dir, (size_t)n * sizeof dir[0]);
    memmove(color + 1, color, (size_t)n * sizeof color[0]);
    memmove(params + 1, params, (size_t)n * sizeof params[0]);
    memmove(atten + 1, atten, (size_t)n * sizeof atten[0]);
    memmove(cosines + 1, cosines, (size_t)n * sizeof cosines[0]);
    cosines[0][0] = cosines[0][1] = 0.0f;
    memset(pos[0], 0, sizeof pos[0]);
    dir[0][0] = dir[0][1] = 0.0f;
    dir[0][2] = -1.0f;
    color[0][0] = color[0][1] = color[0][2] = color[0][3] = 1.0f;
    params[0][0] = 1.0f;
    params[0][1] = params[0][2] = params[0][3] = 0.0f;
    atten[0][0] = 1.0f;
    atten[0][1] = atten[0][2] = atten[0][3] = 0.0f;
    n++;
  }
  return n;
}

// the material of a shape that has no material, no texture and no vertex colours: the field
// defaults of VRML97's Material node (diffuse 0.8 grey, ambientIntensity 0.2, shininess 0.2)
static const hsMaterial kDefaultMaterial = {0.2f, {0.8f, 0.8f, 0.8f}, {0, 0, 0}, 0.2f, {0, 0, 0},
                                            0.0f};

// draw every shape of the scene (V: world to camera): with the shading uniforms u and nlight
// lights, or (u NULL) with the depth program's model-view only
static void drawAll(hsrScene *s, const double V[12], const hssUniforms *u, int nlight) {
  for (int bi = 0; bi < s->nbody; bi++) {
    const BodyGpu *b = &s->bodies[bi];
    const hsBody *body = b->body;
    for (int li = 0; li < body->nlink; li++) {
      const hsLink *link = &body->links[li];
      double W[12], VW[12];
      linkFrame(W, b, li);
      compose(VW, V, W);
      for (int k = 0; k < link->nshapeRef; k++) {
        const hsShapeRef *ref = &link->shapeRefs[k];
        if (ref->shape < 0 || ref->shape >= body->nshape) {
          continue;
        }
        const hsShape *sh = &body->shapes[ref->shape];
        const Mesh *m = &b->meshes[ref->shape];
        if (m->nvertex == 0) {
          continue;
        }
        double MV[12];
        compose(MV, VW, ref->T);
        float M[16], N[9];
        toGl(M, MV);
        if (u) {
          normalMatrix(N, MV);
        }
        if (!u) {
          glUniformMatrix4fv(s->r->depthModelView, 1, GL_FALSE, M);
          glBindVertexArray(m->vao);
          glDrawArrays(GL_TRIANGLES, 0, m->nvertex);
          continue;
        }
        glUniformMatrix4fv(u->modelView, 1, GL_FALSE, M);
        glUniformMatrix3fv(u->normal, 1, GL_FALSE, N);
        const hsAppearance *app = sh->appearance >= 0 && sh->appearance < body->nappearance
                                      ? &body->appearances[sh->appearance]
                                      : NULL;
        const hsMaterial *mat = app && app->material >= 0 && app->material < body->nmaterial
                                    ? &body->materials[app->material]
                                    : NULL;
        GLuint tex = app && app->texture >= 0 && app->texture < body->ntexture
                         ? b->textures[app->texture]
                         : 0;
        if (!mat && !m->vertexColors && !tex) {
          // nothing colours the shape (a URDF visual without <material>, a VRML Shape without
          // Appearance or Material): VRML's default Material, lit, as the web viewer and
          // Choreonoid draw it, rather than VRML97's unlit white (a flat silhouette)
          mat = &kDefaultMaterial;
        }
        if (mat) {
          glUniform3fv(u->diffuse, 1, mat->diffuseColor);
          glUniform3fv(u->emissive, 1, mat->emissiveColor);
          glUniform3fv(u->specular, 1, mat->specularColor);
          glUniform1f(u->shininess, mat->shininess);
          glUniform1f(u->ambient, mat->ambientIntensity);
          glUniform1f(u->transparency, mat->transparency);
          glUniform1i(u->nlight, nlight);
        } else {
          // VRML: a texture or vertex colours without a material are unlit
          const float white[3] = {1, 1, 1};
          const float zero[3] = {0, 0, 0};
          glUniform3fv(u->diffuse, 1, white);
          glUniform3fv(u->emissive, 1, zero);
          glUniform1f(u->transparency, 0.0f);
          glUniform1i(u->nlight, -1);
        }
        glUniform1i(u->useVertexColor, m->vertexColors);
        glUniform1i(u->useTexture, tex != 0);
        if (tex) {
          glBindTexture(GL_TEXTURE_2D, tex);
          glUniform1i(u->texComponents, body->textures[app->texture].numComponents);
        }
        glBindVertexArray(m->vao);
        glDrawArrays(GL_TRIANGLES, 0, m->nvertex);
      }
    }
  }
}

int hsr_render(hsrScene *s, const hsrView *view, unsigned char *rgb, float *depth, hsError *err) {
  if (!s) {
    return HS_ERR(err, hsE_INVALID, "hsr_render: no scene");
  }
  if (checkView(view, err) != 0) {
    return hsE_INVALID;
  }
  hsrRenderer *r = s->r;
  hss_bindRenderer(r);
  int w = view->width, h = view->height;
  size_t need = (size_t)w * h * 4;
  if (need > s->nscratch) {
    unsigned char *p = hsu_malloc(need);
    if (!p) {
      return HS_ERR(err, hsE_NOMEM, "no memory for a %d x %d image", w, h);
    }
    hsu_free(s->scratch);
    s->scratch = p;
    s->nscratch = need;
  }
  if (!target(s, w, h, err)) {
    return hsE_UNSUPPORTED;
  }
  static const GLenum buffers[2] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1};
  glDrawBuffers(2, buffers);
  glViewport(0, 0, w, h);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDisable(GL_CULL_FACE);
  glDisable(GL_BLEND);
  const float black[4] = {0, 0, 0, 1}, far[4] = {(float)view->farClip, 0, 0, 0};
  glClearBufferfv(GL_COLOR, 0, black);
  glClearBufferfv(GL_COLOR, 1, far);
  glClearDepth(1.0);
  glClear(GL_DEPTH_BUFFER_BIT);

  // projection: horizontal field of view, square pixels
  double n = view->nearClip, f = view->farClip;
  double rx = n * tan(view->fieldOfView / 2), ty = rx * h / w;
  float P[16] = {0};
  P[0] = (float)(n / rx);
  P[5] = (float)(n / ty);
  P[10] = (float)(-(f + n) / (f - n));
  P[11] = -1.0f;
  P[14] = (float)(-2 * f * n / (f - n));
  double V[12];
  invertRigid(V, view->T);

  // pass 1: depth only
  glUseProgram(r->depthProgram);
  glUniformMatrix4fv(r->depthProj, 1, GL_FALSE, P);
  glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
  glDepthMask(GL_TRUE);
  drawAll(s, V, NULL, 0);
  // pass 2: shading, one fragment per pixel (the nearest surface's depth equals its own)
  glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
  glDepthMask(GL_FALSE);
  glDepthFunc(GL_LEQUAL);
  const hssUniforms *u = &r->u;
  glUseProgram(r->program);
  glUniformMatrix4fv(u->proj, 1, GL_FALSE, P);
  glUniform1i(u->tex, 0);
  float lpos[HSS_MAX_LIGHTS][3], ldir[HSS_MAX_LIGHTS][3], lcol[HSS_MAX_LIGHTS][4],
      lpar[HSS_MAX_LIGHTS][4], latt[HSS_MAX_LIGHTS][4], lcos[HSS_MAX_LIGHTS][2];
  int positional = 0;
  int nlight = collectLights(s, V, lpos, ldir, lcol, lpar, latt, lcos, &positional);
  glUniform2fv(u->lightCos, nlight, &lcos[0][0]);
  glUniform1i(u->positional, positional);
  glUniform3fv(u->lightPos, nlight, &lpos[0][0]);
  glUniform3fv(u->lightDir, nlight, &ldir[0][0]);
  glUniform4fv(u->lightColor, nlight, &lcol[0][0]);
  glUniform4fv(u->lightParams, nlight, &lpar[0][0]);
  glUniform4fv(u->lightAtten, nlight, &latt[0][0]);
  glActiveTexture(GL_TEXTURE0);
  drawAll(s, V, u, nlight);
  glDepthMask(GL_TRUE);
  glBindVertexArray(0);

  // read back, flipping rows so that the top one comes first
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  if (rgb) {
    glReadBuffer(GL_COLOR_ATTACHMENT0);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, s->scratch);
    for (int y = 0; y < h; y++) {
      const unsigned char *src = s->scratch + (size_t)(h - 1 - y) * w * 4;
      unsigned char *dst = rgb + (size_t)y * w * 3;
      for (int x = 0; x < w; x++) {
        dst[3 * x] = src[4 * x];
        dst[3 * x + 1] = src[4 * x + 1];
        dst[3 * x + 2] = src[4 * x + 2];
      }
    }
  }
  if (depth) {
    glReadBuffer(GL_COLOR_ATTACHMENT1);
    glReadPixels(0, 0, w, h, GL_RED, GL_FLOAT, s->scratch);
    for (int y = 0; y < h; y++) {
      memcpy(depth + (size_t)y * w, s->scratch + (size_t)(h - 1 - y) * w * 4,
             (size_t)w * sizeof(float));
    }
  }
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  GLenum e = glGetError();
  if (e != GL_NO_ERROR) {
    return HS_ERR(err, hsE_UNSUPPORTED, "OpenGL error 0x%x while drawing", (unsigned)e);
  }
  return 0;
}

// grow lo..hi by the world positions of body bi's visual vertices; 1 if it has any
static int growBounds(const hsrScene *s, int bi, double lo[3], double hi[3]) {
  int any = 0;
  const BodyGpu *b = &s->bodies[bi];
  const hsBody *body = b->body;
  for (int li = 0; li < body->nlink; li++) {
    const hsLink *link = &body->links[li];
    double W[12];
    linkFrame(W, b, li);
    for (int k = 0; k < link->nshapeRef; k++) {
      const hsShapeRef *ref = &link->shapeRefs[k];
      if (ref->shape < 0 || ref->shape >= body->nshape) {
        continue;
      }
      const hsShape *sh = &body->shapes[ref->shape];
      double C[12];
      compose(C, W, ref->T);
      for (int v = 0; v < sh->nvertex; v++) {
        const float *p = &sh->vertices[3 * v];
        for (int j = 0; j < 3; j++) {
          double x = C[4 * j] * p[0] + C[4 * j + 1] * p[1] + C[4 * j + 2] * p[2] + C[4 * j + 3];
          lo[j] = fmin(lo[j], x);
          hi[j] = fmax(hi[j], x);
          any = 1;
        }
      }
    }
  }
  return any;
}

int hsr_sceneBounds(const hsrScene *s, double lo[3], double hi[3]) {
  int any = 0;
  for (int j = 0; j < 3; j++) {
    lo[j] = INFINITY;
    hi[j] = -INFINITY;
  }
  for (int bi = 0; s && bi < s->nbody; bi++) {
    any |= growBounds(s, bi, lo, hi);
  }
  return any ? 0 : -1;
}

int hsr_bodyBounds(const hsrScene *s, int b, double lo[3], double hi[3]) {
  for (int j = 0; j < 3; j++) {
    lo[j] = INFINITY;
    hi[j] = -INFINITY;
  }
  if (!s || b < 0 || b >= s->nbody) {
    return -1;
  }
  return growBounds(s, b, lo, hi) ? 0 : -1;
}
