// fuzz_support.c - the scratch directory and the body checks of fuzz_support.h.

#include "fuzz_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char g_dir[4096];

static void removeDir(void) {
  if (g_dir[0]) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) {
      fprintf(stderr, "fuzz: could not remove %s\n", g_dir);
    }
  }
}

const char *hsf_scratchDir(void) {
  if (!g_dir[0]) {
    const char *tmp = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/hrpsim-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_dir)) {
      perror("fuzz: mkdtemp");
      abort();
    }
    atexit(removeDir);
  }
  return g_dir;
}

const char *hsf_writeInput(const char *name, const uint8_t *data, size_t size) {
  static char path[4200];
  snprintf(path, sizeof path, "%s/%s", hsf_scratchDir(), name);
  FILE *f = fopen(path, "wb");
  if (!f) {
    return NULL;
  }
  size_t n = size ? fwrite(data, 1, size, f) : 0;
  if (fclose(f) != 0 || n != size) {
    return NULL;
  }
  return path;
}

void hsf_loadOptions(hsmLoadOptions *opt) {
  hsm_defaultLoadOptions(opt);
  opt->readImage = 0;
  opt->maxSceneNodes = 20000;
  opt->maxInlineDepth = 4;
  opt->maxNodeVisits = 100000;
  opt->maxShapeInstances = 10000;
  opt->maxTriangles = 100000;
  opt->maxNesting = 100;
  opt->limits.maxFileBytes = 1 << 20;
  opt->limits.meshTriangles = 100000;
  opt->limits.meshInProcess = 1;
}

static void quietLog(hstLog level, const char *msg, void *user) {
  (void)level;
  (void)msg;
  (void)user;
}

void hsf_quiet(void) {
  hsu_setLogHandler(quietLog, NULL);
}

static int finiteD(const double *v, int n) {
  for (int i = 0; i < n; i++) {
    if (!isfinite(v[i])) {
      return 0;
    }
  }
  return 1;
}

static int finiteF(const float *v, int n) {
  for (int i = 0; i < n; i++) {
    if (!isfinite(v[i])) {
      return 0;
    }
  }
  return 1;
}

#define CHECK(cond, ...)                      \
  do {                                        \
    if (!(cond)) {                            \
      fprintf(stderr, "fuzz finding: ");      \
      fprintf(stderr, __VA_ARGS__);           \
      fprintf(stderr, "\n");                  \
      abort();                                \
    }                                         \
  } while (0)

void hsf_checkBody(const hsBody *b) {
  CHECK(b->nlink >= 1, "a body without links");
  for (int s = 0; s < b->nshape; s++) {
    const hsShape *sh = &b->shapes[s];
    CHECK(finiteF(sh->vertices, 3 * sh->nvertex), "shape %d has a non-finite vertex", s);
    CHECK(finiteF(sh->params, sh->nparam), "shape %d has a non-finite parameter", s);
    for (int t = 0; t < 3 * sh->ntriangle; t++) {
      CHECK(sh->triangles[t] >= 0 && sh->triangles[t] < sh->nvertex,
            "shape %d: triangle corner %d out of range", s, t);
    }
    CHECK(sh->appearance >= -1 && sh->appearance < b->nappearance, "shape %d: bad appearance",
          s);
  }
  for (int a = 0; a < b->nappearance; a++) {
    const hsAppearance *ap = &b->appearances[a];
    CHECK(finiteF(ap->normals, 3 * ap->nnormal), "appearance %d: non-finite normal", a);
    CHECK(finiteF(ap->texCoords, 2 * ap->ntexCoord), "appearance %d: non-finite texCoord", a);
    CHECK(ap->material >= -1 && ap->material < b->nmaterial, "appearance %d: bad material", a);
    CHECK(ap->texture >= -1 && ap->texture < b->ntexture, "appearance %d: bad texture", a);
  }
  for (int k = 0; k < b->nlink; k++) {
    const hsLink *l = &b->links[k];
    CHECK(finiteD(&l->mass, 1) && l->mass >= 0, "link %s: bad mass", l->name);
    CHECK(finiteD(l->com, 3) && finiteD(l->inertia, 9) && finiteD(l->translation, 3) &&
              finiteD(l->R, 9) && finiteD(l->axis, 3) && finiteD(&l->jointValue, 1),
          "link %s: a non-finite number", l->name);
    CHECK(l->parent >= -1 && l->parent < b->nlink && (k == 0) == (l->parent == -1),
          "link %s: bad parent %d", l->name, l->parent);
    for (int r = 0; r < l->nshapeRef; r++) {
      CHECK(l->shapeRefs[r].shape >= 0 && l->shapeRefs[r].shape < b->nshape &&
                finiteD(l->shapeRefs[r].T, 12),
            "link %s: bad shape reference", l->name);
    }
  }
  for (int j = 0; j < b->njoint; j++) {
    CHECK(b->jointLink[j] >= -1 && b->jointLink[j] < b->nlink, "jointLink[%d] out of range", j);
  }
  for (int s = 0; s < b->nsensor; s++) {
    const hsSensor *se = &b->sensors[s];
    CHECK(se->link >= 0 && se->link < b->nlink && finiteD(se->translation, 3) &&
              finiteD(se->rotation, 4),
          "sensor %s: bad link or pose", se->name);
  }
  for (int s = 0; s < b->nsegment; s++) {
    const hsSegment *sg = &b->segments[s];
    CHECK(finiteD(&sg->mass, 1) && finiteD(sg->com, 3) && finiteD(sg->inertia, 9),
          "segment %s: a non-finite number", sg->name);
  }
  // the kinematics of the initial pose must stay finite too
  hsError err = {0};
  hsBodyState *st = hsm_makeState(b, &err);
  if (st) {
    hsm_forwardKinematics(b, st);
    CHECK(finiteD(st->linkP, 3 * b->nlink) && finiteD(st->linkR, 9 * b->nlink),
          "forward kinematics gave a non-finite pose");
    hsm_freeState(st);
  }
}
