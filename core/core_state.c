// core_state.c - a simulation's whole state as bytes and back (hs_saveState, hs_restoreState):
// MuJoCo's mj_getState / mj_setState for hsSim, bit for bit.
//
// The bytes: a header, then the dynamics' state (dynamics/dynamics_state.c: the world's start
// and everything that changed since), then the core's own (sensor option, noise, each
// character's sensor readings, held range scans and noise generators). The header makes a
// state safe to hand to another simulation or process of the same build:
//   "HRPSIMST", format version, the layout of this build's records (a state is raw records),
//   a checksum of everything after the header, and the identity of the simulation it came
//   from: each character's name, its body's name, link and joint counts and a hash of what
//   the dynamics read of the body (links' joints, frames, inertia, rotor data; shapes'
//   vertices and triangles; sensors), then the registered pairs and the extra joints.
// A restore checks all of it before it changes anything, and names the first difference.

#include <string.h>

#include "core_private.h"

#define STATE_MAGIC "HRPSIMST"
#define STATE_VERSION 1u

//---------------------------------- hashing ---------------------------------------------------

// FNV-1a, 64 bits, over n bytes, continuing from h
static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) {
    h = (h ^ b[i]) * 0x100000001B3ULL;
  }
  return h;
}

static uint64_t fnvStr(uint64_t h, const char *s) {
  return fnv(h, s ? s : "", s ? strlen(s) + 1 : 1);
}

// what the dynamics and sensors read of a body, hashed
static uint64_t bodyHash(const hsBody *b) {
  uint64_t h = 0xCBF29CE484222325ULL;
  int sizes[6] = {b->nlink, b->njoint, b->nshape, b->nsensor, b->nextraJoint, b->nsegment};
  h = fnv(h, sizes, sizeof sizes);
  for (int k = 0; k < b->nlink; k++) {
    const hsLink *l = &b->links[k];
    h = fnvStr(h, l->name);
    int ints[4] = {l->jointId, (int)l->jointType, l->parent, l->ncollisionRef};
    h = fnv(h, ints, sizeof ints);
    h = fnv(h, &l->jointValue, sizeof l->jointValue);
    h = fnv(h, l->axis, sizeof l->axis);
    h = fnv(h, l->translation, sizeof l->translation);
    h = fnv(h, l->R, sizeof l->R);
    h = fnv(h, &l->mass, sizeof l->mass);
    h = fnv(h, l->com, sizeof l->com);
    h = fnv(h, l->inertia, sizeof l->inertia);
    double rotor[5] = {l->rotorInertia, l->rotorResistor, l->gearRatio, l->torqueConst,
                       l->encoderPulse};
    h = fnv(h, rotor, sizeof rotor);
    const hsDoubles *lim[5] = {&l->ulimit, &l->llimit, &l->uvlimit, &l->lvlimit, &l->climit};
    for (int j = 0; j < 5; j++) {
      h = fnv(h, &lim[j]->n, sizeof lim[j]->n);
      h = fnv(h, lim[j]->v, (size_t)lim[j]->n * sizeof *lim[j]->v);
    }
    for (int r = 0; r < l->ncollisionRef; r++) {
      h = fnv(h, l->collisionRefs[r].T, sizeof l->collisionRefs[r].T);
      h = fnv(h, &l->collisionRefs[r].shape, sizeof l->collisionRefs[r].shape);
    }
  }
  for (int s = 0; s < b->nshape; s++) {
    const hsShape *sh = &b->shapes[s];
    int ints[3] = {(int)sh->primitive, sh->nvertex, sh->ntriangle};
    h = fnv(h, ints, sizeof ints);
    h = fnv(h, sh->params, (size_t)sh->nparam * sizeof *sh->params);
    h = fnv(h, sh->vertices, 3 * (size_t)sh->nvertex * sizeof *sh->vertices);
    h = fnv(h, sh->triangles, 3 * (size_t)sh->ntriangle * sizeof *sh->triangles);
  }
  for (int s = 0; s < b->nsensor; s++) {
    const hsSensor *sn = &b->sensors[s];
    h = fnvStr(h, sn->name);
    int ints[3] = {(int)sn->type, sn->id, sn->link};
    h = fnv(h, ints, sizeof ints);
    h = fnv(h, sn->translation, sizeof sn->translation);
    h = fnv(h, sn->rotation, sizeof sn->rotation);
    h = fnv(h, sn->specValues, (size_t)sn->nspecValue * sizeof *sn->specValues);
  }
  return h;
}

// character ch's body hash, computed once (the body is read-only; meshes make it costly)
static uint64_t charHash(hsSim *sim, int ch) {
  hsCharacter *c = &sim->chars[ch];
  if (!c->hash) {
    c->hash = bodyHash(hs_body(sim, ch)) | 1;  // (never 0: 0 means not yet)
  }
  return c->hash;
}

// the registered pairs and extra joints, hashed
static uint64_t setupHash(const hsSim *sim) {
  uint64_t h = 0xCBF29CE484222325ULL;
  int n = hs_pairCount(sim);
  h = fnv(h, &n, sizeof n);
  for (int i = 0; i < n; i++) {
    int ch[2], link[2];
    double tol = 0;
    hs_pair(sim, i, ch, link, &tol);
    h = fnv(h, ch, sizeof ch);
    h = fnv(h, link, sizeof link);
    h = fnv(h, &tol, sizeof tol);
  }
  n = hsd_extraJointCount(sim->world);
  h = fnv(h, &n, sizeof n);
  for (int i = 0; i < n; i++) {
    int ch[2], link[2];
    h = fnvStr(h, hsd_extraJointName(sim->world, i, ch, link));
    h = fnv(h, ch, sizeof ch);
    h = fnv(h, link, sizeof link);
  }
  return h;
}

//---------------------------------- the header ------------------------------------------------

// a string field: length, then the bytes
static void putStr(hsuBytes *b, const char *s) {
  uint32_t n = s ? (uint32_t)strlen(s) : 0;
  hsu_bytesPut(b, &n, sizeof n);
  hsu_bytesPut(b, s, n);
}

// a string field into out[size] (cut), -1 when the bytes end first
static int getStr(hsuBytes *b, char *out, size_t size) {
  uint32_t n = 0;
  if (hsu_bytesGet(b, &n, sizeof n) < 0 || n > b->n - b->pos) {
    b->bad = 1;
    out[0] = 0;
    return -1;
  }
  size_t m = n < size - 1 ? n : size - 1;
  memcpy(out, b->data + b->pos, m);
  out[m] = 0;
  b->pos += n;
  return 0;
}

// the identity of the simulation: characters (name, body name, links, joints, body hash),
// then the set-up's hash
static void putIdentity(hsSim *sim, hsuBytes *b) {
  int n = sim->nchar;
  hsu_bytesPut(b, &n, sizeof n);
  for (int ch = 0; ch < n; ch++) {
    const hsBody *body = hs_body(sim, ch);
    putStr(b, hs_characterName(sim, ch));
    putStr(b, body->name);
    int sizes[2] = {body->nlink, body->njoint};
    hsu_bytesPut(b, sizes, sizeof sizes);
    uint64_t h = charHash(sim, ch);
    hsu_bytesPut(b, &h, sizeof h);
  }
  uint64_t h = setupHash(sim);
  hsu_bytesPut(b, &h, sizeof h);
}

// 0 if the identity in b is sim's, else hsE_INVALID with err naming the first difference
static int checkIdentity(hsSim *sim, hsuBytes *b, hsError *err) {
  int n = -1;
  hsu_bytesGet(b, &n, sizeof n);
  if (b->bad || n < 0) {
    return HS_ERR(err, hsE_INVALID, "the saved state is damaged (its list of characters)");
  }
  char name[256], bodyName[256];
  for (int ch = 0; ch < n; ch++) {
    int sizes[2] = {0, 0};
    uint64_t h = 0;
    getStr(b, name, sizeof name);
    getStr(b, bodyName, sizeof bodyName);
    hsu_bytesGet(b, sizes, sizeof sizes);
    hsu_bytesGet(b, &h, sizeof h);
    if (b->bad) {
      return HS_ERR(err, hsE_INVALID, "the saved state is damaged (its list of characters)");
    }
    if (ch >= sim->nchar) {
      return HS_ERR(err, hsE_INVALID, "the saved state has character '%s' (body '%s'), which "
                    "this simulation does not have (it has %d characters, the state %d)", name,
                    bodyName, sim->nchar, n);
    }
    const char *mine = hs_characterName(sim, ch);
    const hsBody *body = hs_body(sim, ch);
    if (strcmp(mine, name) != 0) {
      return HS_ERR(err, hsE_INVALID, "character %d is '%s' here but '%s' in the saved state",
                    ch, mine, name);
    }
    if (strcmp(body->name, bodyName) != 0 || body->nlink != sizes[0] ||
        body->njoint != sizes[1]) {
      return HS_ERR(err, hsE_INVALID, "character '%s' is body '%s' (%d links, %d joint ids) "
                    "here but body '%s' (%d links, %d joint ids) in the saved state", name,
                    body->name, body->nlink, body->njoint, bodyName, sizes[0], sizes[1]);
    }
    if (charHash(sim, ch) != h) {
      return HS_ERR(err, hsE_INVALID, "character '%s': body '%s' differs from the saved "
                    "state's (same name and sizes; other joints, inertia, shapes or sensors)",
                    name, bodyName);
    }
  }
  if (n < sim->nchar) {
    return HS_ERR(err, hsE_INVALID, "this simulation has character '%s', which the saved "
                  "state does not have (it has %d characters, the state %d)",
                  hs_characterName(sim, n), sim->nchar, n);
  }
  uint64_t h = 0;
  hsu_bytesGet(b, &h, sizeof h);
  if (b->bad || h != setupHash(sim)) {
    return HS_ERR(err, hsE_INVALID, "the saved state's collision pairs or extra joints differ "
                  "from this simulation's (%d pairs, %d extra joints here)", hs_pairCount(sim),
                  hsd_extraJointCount(sim->world));
  }
  return 0;
}

//---------------------------------- save ------------------------------------------------------

// the whole state into b (header first; the checksum filled in last)
static int saveInto(hsSim *sim, hsuBytes *b, hsError *err) {
  hsu_bytesPut(b, STATE_MAGIC, 8);
  uint32_t version = STATE_VERSION;
  hsu_bytesPut(b, &version, sizeof version);
  uint64_t layout = hsd_stateLayout(), sum = 0;
  hsu_bytesPut(b, &layout, sizeof layout);
  size_t sumAt = b->n;
  hsu_bytesPut(b, &sum, sizeof sum);
  size_t bodyAt = b->n;
  putIdentity(sim, b);
  int rc = hsd_saveState(sim->world, b, err);
  if (rc < 0) {
    return rc;
  }
  hsu_bytesPut(b, &sim->sensors, sizeof sim->sensors);
  hsu_bytesPut(b, &sim->noise, sizeof sim->noise);
  for (int ch = 0; ch < sim->nchar; ch++) {
    hss_saveState(sim->chars[ch].sensors, b);
  }
  if (b->bad) {
    return HS_ERR(err, hsE_NOMEM, "out of memory for a saved state");
  }
  sum = fnv(0xCBF29CE484222325ULL, b->data + bodyAt, b->n - bodyAt);
  memcpy(b->data + sumAt, &sum, sizeof sum);
  return 0;
}

long long hs_saveState(hsSim *sim, void *buf, long long size, hsError *err) {
  hs_enter(sim);
  hsuBytes b = {0};
  int rc = sim->started ? saveInto(sim, &b, err)
                        : HS_ERR(err, hsE_ORDER, "the simulation has no state to save before "
                                 "it starts (initSimulation)");
  long long n = rc < 0 ? rc : (long long)b.n;
  if (rc == 0 && buf && size >= n) {
    memcpy(buf, b.data, b.n);
  }
  hsu_bytesFree(&b);
  hs_leave(sim);
  return n;
}

//---------------------------------- restore ---------------------------------------------------

// the header of in: magic, version, layout, checksum, identity; 0 or hsE_INVALID (nothing read
// past the identity)
static int checkHeader(hsSim *sim, hsuBytes *in, hsError *err) {
  char magic[8];
  uint32_t version = 0;
  uint64_t layout = 0, sum = 0;
  hsu_bytesGet(in, magic, sizeof magic);
  if (in->bad || memcmp(magic, STATE_MAGIC, 8) != 0) {
    return HS_ERR(err, hsE_INVALID, "not a saved hrpsim state (no HRPSIMST header)");
  }
  hsu_bytesGet(in, &version, sizeof version);
  if (version != STATE_VERSION) {
    return HS_ERR(err, hsE_INVALID, "saved state format version %u; this hrpsim reads version "
                  "%u", version, STATE_VERSION);
  }
  hsu_bytesGet(in, &layout, sizeof layout);
  if (layout != hsd_stateLayout()) {
    return HS_ERR(err, hsE_INVALID, "the saved state comes from another build of hrpsim (its "
                  "record layout %016llx differs from this build's %016llx)",
                  (unsigned long long)layout, (unsigned long long)hsd_stateLayout());
  }
  hsu_bytesGet(in, &sum, sizeof sum);
  if (in->bad || fnv(0xCBF29CE484222325ULL, in->data + in->pos, in->n - in->pos) != sum) {
    return HS_ERR(err, hsE_INVALID, "the saved state is damaged (its checksum does not "
                  "match)");
  }
  return checkIdentity(sim, in, err);
}

// the state in in (after its header) applied; 0 or a negative code with err
static int restoreFrom(hsSim *sim, hsuBytes *in, hsError *err) {
  int rc = hsd_restoreState(sim->world, in, err);
  if (rc < 0) {
    return rc;
  }
  sim->started = 1;
  int sensors = 0;
  hsNoise noise;
  hsu_bytesGet(in, &sensors, sizeof sensors);
  hsu_bytesGet(in, &noise, sizeof noise);
  int anyRange = 0;
  for (int ch = 0; ch < sim->nchar && rc == 0; ch++) {
    int n = 0;
    hss_sensorsOfType(sim->chars[ch].sensors, hsSENSOR_RANGE, &n);
    anyRange = anyRange || n > 0;
    rc = hss_restoreState(sim->chars[ch].sensors, in, err);
  }
  if (rc == 0 && (in->bad || in->pos != in->n)) {
    rc = HS_ERR(err, hsE_INVALID, "the saved state is damaged (its size does not match)");
  }
  if (rc == 0 && anyRange) {
    rc = hs_sizeFanScratch(sim, err);
  }
  if (rc == 0) {
    sim->sensors = sensors;
    sim->noise = noise;
  }
  return rc;
}

int hs_restoreState(hsSim *sim, const void *buf, long long size, hsError *err) {
  if (!buf || size <= 0) {
    return HS_ERR(err, hsE_INVALID, "no saved state (%lld bytes)", size);
  }
  hs_enter(sim);
  hsuBytes in = {(unsigned char *)buf, (size_t)size, (size_t)size, 0, 0};
  int rc = checkHeader(sim, &in, err);
  hsuBytes backup = {0};
  if (rc == 0 && sim->started) {
    rc = saveInto(sim, &backup, err);  // what to go back to if the restore fails midway
  }
  if (rc == 0) {
    rc = restoreFrom(sim, &in, err);
    if (rc < 0 && backup.n) {
      // a state that passed its checks failed (out of memory): back to where it was
      hsuBytes again = backup;
      again.pos = 0;
      if (checkHeader(sim, &again, NULL) < 0 || restoreFrom(sim, &again, NULL) < 0) {
        sim->started = 0;  // the world could not be rebuilt: start it again
      }
    }
  }
  hsu_bytesFree(&backup);
  hs_leave(sim);
  return rc;
}
