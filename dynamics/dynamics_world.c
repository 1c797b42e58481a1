// dynamics_world.c - hsdWorld make/free, characters, time step, gravity, pair registration.
//
// Everything here works without ODE objects: characters and pairs are plain records until
// hsd_init (dynamics_build.c) turns them into ODE bodies, joints and geoms. Registered pairs
// are expanded into link pairs at once (deterministic order: pairs in registration order, then
// links of the first character by index, then links of the second), so a step only loops.

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dynamics_private.h"

//---------------------------------- helpers ---------------------------------------------------

void hsd_warn(hsdWorld *w, unsigned kind, const char *fmt, ...) {
  w->warnings++;
  if (w->warned & kind) {
    return;
  }
  w->warned |= kind;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  hsu_log(hsLOG_WARNING, "dynamics: %s (further warnings of this kind are only counted)", msg);
}

int hsd_checkLink(const hsdWorld *w, int ch, int link, hsError *err) {
  if (!w) {
    return HS_ERR(err, hsE_INVALID, "no world");
  }
  if (ch < 0 || ch >= w->nchar) {
    return HS_ERR(err, hsE_INVALID, "no character with index %d (the world has %d)", ch,
                  w->nchar);
  }
  if (link < 0 || link >= w->chars[ch].body->nlink) {
    return HS_ERR(err, hsE_INVALID, "character %s has no link with index %d (it has %d)",
                  w->chars[ch].name, link, w->chars[ch].body->nlink);
  }
  return 0;
}

//---------------------------------- make / free -----------------------------------------------

// check the options a world cannot run with
static int checkOptions(const hsdOptions *o, hsError *err) {
  double v[] = {o->erp, o->cfm, o->contactErp, o->contactCfm, o->contactSurfaceLayer,
                o->contactMaxCorrectingVel, o->highGainFMax, o->stickVelocity,
                o->bounceVelocity, o->stopErp, o->stopCfm, o->boundMass, o->boundInertia,
                o->sleepLinearVel, o->sleepAngularVel, o->sleepTime, o->sleepLinearAcc,
                o->sleepAngularAcc};
  if (!hsd_sane(v, (int)(sizeof v / sizeof v[0]))) {
    return HS_ERR(err, hsE_INVALID, "non-finite dynamics option");
  }
  if (o->engine != hsENGINE_ODE && o->engine != hsENGINE_JOINT_SPACE) {
    return HS_ERR(err, hsE_INVALID, "unknown engine %d", (int)o->engine);
  }
  if (o->stepper != hsSTEPPER_WORLD && o->stepper != hsSTEPPER_QUICK &&
      o->stepper != hsSTEPPER_AUTO) {
    return HS_ERR(err, hsE_INVALID, "unknown stepper %d", (int)o->stepper);
  }
  if (o->quickIterations < 1 || o->chainIterations < 1 || o->autoRows < 0 || o->pileRows < 0 ||
      o->erp < 0 || o->erp > 1 || o->cfm < 0 ||
      o->contactErp < 0 || o->contactErp > 1 || o->contactCfm < 0 || o->contactSurfaceLayer < 0 ||
      o->contactMaxCorrectingVel < 0 || o->highGainFMax <= 0 || o->stickVelocity < 0 ||
      o->bounceVelocity < 0 || o->stopErp < 0 || o->stopErp > 1 || o->stopCfm < 0 ||
      !(o->boundMass > 0) || !(o->boundInertia > 0) || o->broadPhase < hsBROAD_OFF ||
      o->broadPhase > hsBROAD_ON || o->sleepLinearVel < 0 || o->sleepAngularVel < 0 ||
      o->sleepTime < 0 || o->sleepLinearAcc < 0 || o->sleepAngularAcc < 0) {
    return HS_ERR(err, hsE_INVALID, "dynamics option out of range");
  }
  if (o->maxContactsPerPair < 1 || o->maxContactsPerPair > 0xffff || o->maxContacts < 1) {
    return HS_ERR(err, hsE_INVALID, "contact limits must be positive (per pair up to 65535)");
  }
  return 0;
}

int hsd_setSolver(hsdWorld *w, const hsdOptions *opt, hsError *err) {
  if (!w || !opt) {
    return HS_ERR(err, hsE_INVALID, "no world or no options");
  }
  if (w->initialised) {
    return HS_ERR(err, hsE_ORDER, "the engine and solver settings must be set before the "
                  "simulation starts (initSimulation)");
  }
  hsdOptions o;
  memcpy(&o, &w->opt, sizeof o);  // (bytes, padding too: a saved state holds the options whole)
  o.engine = opt->engine;
  o.stepper = opt->stepper;
  o.quickIterations = opt->quickIterations;
  o.chainIterations = opt->chainIterations;
  o.erp = opt->erp;
  o.cfm = opt->cfm;
  o.contactErp = opt->contactErp;
  o.contactCfm = opt->contactCfm;
  o.contactSurfaceLayer = opt->contactSurfaceLayer;
  o.contactMaxCorrectingVel = opt->contactMaxCorrectingVel;
  o.maxContactsPerPair = opt->maxContactsPerPair;
  if (checkOptions(&o, err) < 0) {
    return hsE_INVALID;
  }
  memcpy(&w->opt, &o, sizeof o);
  return 0;
}

const hsdOptions *hsd_options(const hsdWorld *w) {
  return w ? &w->opt : NULL;
}

hsdWorld *hsd_makeWorld(const hsdOptions *opt, hsError *err) {
  hsdOptions o;
  memset(&o, 0, sizeof o);  // (padding too: a saved state holds the options byte for byte)
  if (opt) {
    memcpy(&o, opt, sizeof o);
  } else {
    hsd_defaultOptions(&o);
  }
  if (checkOptions(&o, err) < 0) {
    return NULL;
  }
  hsdWorld *w = hsu_calloc(1, sizeof *w);
  if (!w) {
    HS_ERR(err, hsE_NOMEM, "out of memory");
    return NULL;
  }
  memcpy(&w->opt, &o, sizeof o);
  w->dt = 0.001;
  w->g[2] = -9.8;
  w->seed = 1;
  w->contacts = hsu_calloc((size_t)o.maxContacts, sizeof *w->contacts);
  w->groups = hsu_calloc((size_t)o.maxContacts, sizeof *w->groups);
  w->contactFb = hsu_calloc((size_t)o.maxContacts, sizeof *w->contactFb);
  w->contactJoint = hsu_calloc((size_t)o.maxContacts, sizeof *w->contactJoint);
  w->contactIsland = hsu_calloc(3 * (size_t)o.maxContacts, sizeof *w->contactIsland);
  if (!w->contacts || !w->groups || !w->contactFb || !w->contactJoint || !w->contactIsland) {
    hsd_freeWorld(w);
    HS_ERR(err, hsE_NOMEM, "out of memory");
    return NULL;
  }
  return w;
}

static void freeCharacter(hsdCharacter *c) {
  hsu_free(c->name);
  hsm_freeState(c->state);
  hsu_free(c->in.mode);
  hsu_free(c->in.flags);
  hsu_free(c->in.q);  // one pool: q, dq, ddq, u, ext
  hsu_free(c->links);
  hsu_free(c->motion);
  hsu_free(c->linkWrench);
  hsu_free(c->subW);
  hsu_free(c->scratch);
  hsm_freeState(c->ikState);
  hsu_free(c->ikWork);
  hsd_freeJsData(c->jsd);
  hsd_freeJsModel(c->jsm);
}

void hsd_freeWorld(hsdWorld *w) {
  if (!w) {
    return;
  }
  hsd_destroyOde(w);
  hsu_bytesFree(&w->start);
  for (int i = 0; i < w->nchar; i++) {
    freeCharacter(&w->chars[i]);
  }
  hsd_freeLoops(w);
  hsu_free(w->chars);
  hsu_free(w->pairs);
  hsu_free(w->ipairs);
  hsu_vecFree(&w->linkPairs);
  hsu_vecFree(&w->ilinkPairs);
  hsu_free(w->contacts);
  hsu_free(w->groups);
  hsu_free(w->contactFb);
  hsu_free(w->contactJoint);
  hsu_free(w->contactIsland);
  hsu_free(w);
}

//---------------------------------- characters ------------------------------------------------

// check that a body can be simulated: tree order, finite numbers, usable joint axes
static int checkBody(const hsBody *b, hsError *err) {
  if (!b || b->nlink < 1 || !b->links) {
    return HS_ERR(err, hsE_INVALID, "body has no links");
  }
  if (b->links[0].parent != -1) {
    return HS_ERR(err, hsE_INVALID, "body %s: link 0 is not the root", b->name);
  }
  for (int i = 0; i < b->nlink; i++) {
    const hsLink *l = &b->links[i];
    if (i > 0 && (l->parent < 0 || l->parent >= i)) {
      return HS_ERR(err, hsE_INVALID, "body %s: link %s is not in depth-first order", b->name,
                    l->name);
    }
    if (!hsd_sane(&l->mass, 1) || l->mass < 0 || !hsd_sane(l->com, 3) ||
        !hsd_sane(l->inertia, 9) || !hsd_sane(l->translation, 3) || !hsd_sane(l->R, 9) ||
        !hsd_sane(l->axis, 3) || !hsd_sane(&l->jointValue, 1)) {
      return HS_ERR(err, hsE_INVALID, "body %s: link %s has a negative mass or non-finite numbers",
                    b->name, l->name);
    }
    if (hsm_hasOneDofJoint(l) && hsu_norm(l->axis) < 1e-9) {
      return HS_ERR(err, hsE_INVALID, "body %s: joint %s has a zero axis", b->name, l->name);
    }
  }
  for (int i = 0; i < b->nsensor; i++) {
    const hsSensor *s = &b->sensors[i];
    if (s->link < 0 || s->link >= b->nlink || !hsd_sane(s->translation, 3) ||
        !hsd_sane(s->rotation, 4)) {
      return HS_ERR(err, hsE_INVALID, "body %s: sensor %s is broken", b->name, s->name);
    }
  }
  return 0;
}

int hsd_addCharacter(hsdWorld *w, const char *name, const hsBody *body, hsError *err) {
  if (!w) {
    return HS_ERR(err, hsE_INVALID, "no world");
  }
  if (w->initialised) {
    return HS_ERR(err, hsE_INVALID, "characters must be added before the simulation starts");
  }
  if (!name || !*name) {
    return HS_ERR(err, hsE_INVALID, "a character needs a name");
  }
  if (hsd_characterIndex(w, name) >= 0) {
    return HS_ERR(err, hsE_INVALID, "a character named %s exists already", name);
  }
  if (checkBody(body, err) < 0) {
    return hsE_INVALID;
  }
  if (w->nchar == w->capChar) {
    int cap = w->capChar ? 2 * w->capChar : 4;
    hsdCharacter *c = hsu_realloc(w->chars, (size_t)cap * sizeof *c);
    if (!c) {
      return HS_ERR(err, hsE_NOMEM, "out of memory");
    }
    w->chars = c;
    w->capChar = cap;
  }
  hsdCharacter *c = &w->chars[w->nchar];
  memset(c, 0, sizeof *c);
  size_t n = (size_t)body->nlink;
  c->body = body;
  c->name = hsu_strdup(name);
  c->state = hsm_makeState(body, err);
  c->in.mode = hsu_calloc(n, sizeof *c->in.mode);
  c->in.flags = hsu_calloc(n, sizeof *c->in.flags);
  c->in.q = hsu_calloc(10 * n, sizeof *c->in.q);
  c->links = hsu_calloc(n, sizeof *c->links);
  c->motion = hsu_calloc(n, sizeof *c->motion);
  c->linkWrench = hsu_calloc(n, sizeof *c->linkWrench);
  c->subW = hsu_calloc(n, sizeof *c->subW);
  c->scratch = hsu_calloc(6 * n, sizeof *c->scratch);
  c->ikState = hsm_makeState(body, err);
  c->ikWork = hsu_malloc(hsm_ikWorkSize(body) + sizeof(double));
  if (!c->name || !c->state || !c->in.mode || !c->in.flags || !c->in.q || !c->links ||
      !c->motion || !c->linkWrench || !c->subW || !c->scratch || !c->ikState || !c->ikWork) {
    freeCharacter(c);
    return HS_ERR(err, hsE_NOMEM, "out of memory");
  }
  // the input: OpenHRP's default drive mode is torque; commands start at the initial
  // configuration
  c->in.dq = c->in.q + n;
  c->in.ddq = c->in.q + 2 * n;
  c->in.u = c->in.q + 3 * n;
  c->in.ext = c->in.q + 4 * n;
  for (size_t i = 0; i < n; i++) {
    c->in.mode[i] = hsMODE_TORQUE;
    c->in.q[i] = c->state->q[i];
  }
  memcpy(c->in.rootP, c->state->rootP, sizeof c->in.rootP);
  memcpy(c->in.rootR, c->state->rootR, sizeof c->in.rootR);
  // the model's own closed loops; a failure takes the character back out
  int index = w->nchar++, loops = w->nloop;
  if (hsd_addModelLoops(w, index, err) < 0) {
    while (w->nloop > loops) {
      hsu_free(w->loops[--w->nloop].name);
    }
    w->nchar--;
    freeCharacter(c);
    return hsE_INVALID;
  }
  return index;
}

int hsd_characterIndex(const hsdWorld *w, const char *name) {
  if (!w || !name) {
    return -1;
  }
  for (int i = 0; i < w->nchar; i++) {
    if (strcmp(w->chars[i].name, name) == 0) {
      return i;
    }
  }
  return -1;
}

int hsd_characterCount(const hsdWorld *w) {
  return w ? w->nchar : 0;
}

const char *hsd_characterName(const hsdWorld *w, int ch) {
  return (w && ch >= 0 && ch < w->nchar) ? w->chars[ch].name : NULL;
}

const hsBody *hsd_characterBody(const hsdWorld *w, int ch) {
  return (w && ch >= 0 && ch < w->nchar) ? w->chars[ch].body : NULL;
}

//---------------------------------- time, gravity ---------------------------------------------

int hsd_setTimeStep(hsdWorld *w, double dt, hsError *err) {
  if (!w) {
    return HS_ERR(err, hsE_INVALID, "no world");
  }
  if (!(dt >= hsdMIN_TIME_STEP && dt <= hsdMAX_TIME_STEP)) {
    return HS_ERR(err, hsE_INVALID, "time step must be between %g and %g s (got %.17g)",
                  hsdMIN_TIME_STEP, hsdMAX_TIME_STEP, dt);
  }
  w->dt = dt;
  return 0;
}

int hsd_setIntegrator(hsdWorld *w, int integrator, hsError *err) {
  if (!w) {
    return HS_ERR(err, hsE_INVALID, "no world");
  }
  if (integrator != hsINTEGRATE_EULER && integrator != hsINTEGRATE_RUNGE_KUTTA) {
    return HS_ERR(err, hsE_INVALID, "unknown integration method %d (0: EULER, 1: RUNGE_KUTTA)",
                  integrator);
  }
  w->opt.integrator = (hstIntegrator)integrator;
  return 0;
}

int hsd_integrator(const hsdWorld *w) {
  return w ? (int)w->opt.integrator : hsINTEGRATE_EULER;
}

int hsd_runaway(const hsdWorld *w) {
  return w ? w->runaway - 1 : -1;
}

double hsd_runawayMaxPosition(void) {
  return hsdMAX_POSITION;
}

double hsd_runawayMaxSpeed(void) {
  return hsdMAX_SPEED;
}

int hsd_runawayMessage(char *out, size_t size, const char *name, const char *when, long steps) {
  return snprintf(out, size,
                  "character %s ran away %s step %ld: its state became non-finite or left the "
                  "bounds (|position| <= %g m, |velocity| <= %g m/s and rad/s); it was stopped "
                  "where the last good step left it",
                  name ? name : "?", when ? when : "by", steps, hsdMAX_POSITION, hsdMAX_SPEED);
}

double hsd_timeStep(const hsdWorld *w) {
  return w ? w->dt : 0;
}

int hsd_setGravity(hsdWorld *w, const double g[3], hsError *err) {
  if (!w || !g) {
    return HS_ERR(err, hsE_INVALID, "no world or no vector");
  }
  if (!hsd_sane(g, 3)) {
    return HS_ERR(err, hsE_INVALID, "gravity must be finite (and below 1e12)");
  }
  memcpy(w->g, g, sizeof w->g);
  if (w->world) {
    dWorldSetGravity(w->world, g[0], g[1], g[2]);
    hsd_wakeAll(w);  // what rested under the old gravity may not under the new
  }
  return 0;
}

void hsd_gravity(const hsdWorld *w, double g[3]) {
  if (w) {
    memcpy(g, w->g, sizeof w->g);
  } else {
    memset(g, 0, 3 * sizeof *g);
  }
}

double hsd_time(const hsdWorld *w) {
  return w ? w->time : 0;
}

long hsd_stepCount(const hsdWorld *w) {
  return w ? w->steps : 0;
}

int hsd_warningCount(const hsdWorld *w) {
  return w ? w->warnings : 0;
}

//---------------------------------- pairs -----------------------------------------------------

// 1 if links a and b of one body are a link and its parent (or the same link)
static int adjacent(const hsBody *b, int a, int c) {
  return a == c || b->links[a].parent == c || b->links[c].parent == a;
}

int hsd_expandPair(hsdWorld *w, hsdPair *p, hsuVec *out, int index, hsError *err) {
  const hsBody *b1 = w->chars[p->ch[0]].body, *b2 = w->chars[p->ch[1]].body;
  int self = p->ch[0] == p->ch[1];
  int lo1 = p->link[0] < 0 ? 0 : p->link[0], hi1 = p->link[0] < 0 ? b1->nlink : p->link[0] + 1;
  int lo2 = p->link[1] < 0 ? 0 : p->link[1], hi2 = p->link[1] < 0 ? b2->nlink : p->link[1] + 1;
  p->first = (int)out->n;
  for (int i = lo1; i < hi1; i++) {
    for (int j = lo2; j < hi2; j++) {
      // self pairs: each unordered link pair once, never a link with itself or its parent
      if (self && (adjacent(b1, i, j) || (p->link[0] < 0 && p->link[1] < 0 && j < i))) {
        continue;
      }
      // contact pairs: what the models' collision filters (MJCF contype / conaffinity and
      // excludes) keep apart never touches
      if (p->filtered && !hsm_linksMayCollide(b1, i, b2, j, self)) {
        continue;
      }
      hsdLinkPair lp = {index, {p->ch[0], p->ch[1]}, {i, j}};
      if (!hsu_vecPush(out, sizeof lp, &lp)) {
        return HS_ERR(err, hsE_NOMEM, "out of memory");
      }
    }
  }
  p->count = (int)out->n - p->first;
  return 0;
}

// check and record one pair in (*list, *n, *cap) and expand it into lps
static int addPair(hsdWorld *w, hsdPair **list, int *n, int *cap, hsuVec *lps, int ch1,
                   int link1, int ch2, int link2, const hsdSurface *s, double tol,
                   hsError *err) {
  if (!w) {
    return HS_ERR(err, hsE_INVALID, "no world");
  }
  if (ch1 < 0 || ch1 >= w->nchar || ch2 < 0 || ch2 >= w->nchar) {
    return HS_ERR(err, hsE_INVALID, "pair names a character that does not exist (%d, %d)", ch1,
                  ch2);
  }
  if (link1 < -1 || link1 >= w->chars[ch1].body->nlink || link2 < -1 ||
      link2 >= w->chars[ch2].body->nlink) {
    return HS_ERR(err, hsE_INVALID, "pair names a link that does not exist (%d, %d)", link1,
                  link2);
  }
  if (ch1 == ch2 && link1 == link2 && link1 >= 0) {
    return HS_ERR(err, hsE_INVALID, "%s link %s: a link cannot %s itself", w->chars[ch1].name,
                  w->chars[ch1].body->links[link1].name, s ? "collide with" : "intersect");
  }
  if (s) {
    double v[4] = {s->staticFriction, s->slipFriction, s->restitution, s->cullingThresh};
    if (!hsd_sane(v, 4)) {
      return HS_ERR(err, hsE_INVALID, "friction, culling_thresh and restitution must be finite "
                    "(and below 1e12)");
    }
    if (s->staticFriction < 0 || s->slipFriction < 0) {
      return HS_ERR(err, hsE_INVALID, "friction coefficients must be >= 0, got static %g, slip %g",
                    s->staticFriction, s->slipFriction);
    }
    if (s->cullingThresh < 0) {
      return HS_ERR(err, hsE_INVALID, "culling_thresh must be >= 0, got %g", s->cullingThresh);
    }
    if (s->restitution < 0 || s->restitution > 1) {
      return HS_ERR(err, hsE_INVALID, "restitution must be in [0, 1], got %g", s->restitution);
    }
  }
  if (!hsd_sane(&tol, 1) || tol < 0) {
    return HS_ERR(err, hsE_INVALID, "tolerance must be a finite distance >= 0, got %g", tol);
  }
  if (*n == *cap) {
    int c = *cap ? 2 * *cap : 8;
    hsdPair *p = hsu_realloc(*list, (size_t)c * sizeof *p);
    if (!p) {
      return HS_ERR(err, hsE_NOMEM, "out of memory");
    }
    *list = p;
    *cap = c;
  }
  hsdPair *p = &(*list)[*n];
  memset(p, 0, sizeof *p);
  p->ch[0] = ch1;
  p->ch[1] = ch2;
  p->link[0] = link1;
  p->link[1] = link2;
  if (s) {
    p->surface = *s;
  }
  p->tolerance = tol;
  p->filtered = s != NULL;
  size_t before = lps->n;
  if (hsd_expandPair(w, p, lps, *n, err) < 0) {
    lps->n = before;
    return hsE_NOMEM;
  }
  (*n)++;
  return 0;
}

int hsd_addContactPair(hsdWorld *w, int ch1, int link1, int ch2, int link2,
                       const hsdSurface *surface, hsError *err) {
  if (!w) {
    return HS_ERR(err, hsE_INVALID, "no world");
  }
  if (!surface) {
    return HS_ERR(err, hsE_INVALID, "a contact pair needs surface properties");
  }
  return addPair(w, &w->pairs, &w->npair, &w->capPair, &w->linkPairs, ch1, link1, ch2, link2,
                 surface, 0, err);
}

int hsd_addIntersectionPair(hsdWorld *w, int ch1, int link1, int ch2, int link2,
                            double tolerance, hsError *err) {
  if (!w) {
    return HS_ERR(err, hsE_INVALID, "no world");
  }
  return addPair(w, &w->ipairs, &w->nipair, &w->capIpair, &w->ilinkPairs, ch1, link1, ch2,
                 link2, NULL, tolerance, err);
}

int hsd_pairCount(const hsdWorld *w) {
  return w ? w->npair + w->nipair : 0;
}

int hsd_pair(const hsdWorld *w, int index, int ch[2], int link[2], double *tolerance) {
  if (!w || index < 0 || index >= w->npair + w->nipair) {
    return hsE_INVALID;
  }
  const hsdPair *p = index < w->npair ? &w->pairs[index] : &w->ipairs[index - w->npair];
  for (int k = 0; k < 2; k++) {
    ch[k] = p->ch[k];
    link[k] = p->link[k];
  }
  if (tolerance) {
    *tolerance = p->tolerance;
  }
  return 0;
}
