// dynamics_sleep.c - objects at rest fall asleep (hsdOptions.sleep, hsd_setSleep).
//
// Only free rigid objects sleep: a character with a free root in torque mode, no 1-dof joint,
// no closed loop and no force sensor, i.e. one ODE body (boxes, balls, props). Robots never do
// (their joints and sensors are what a controller reads: a sleeping body has no contacts, so a
// force sensor on it would read its links' weight alone), and an island holding an awake body
// stays awake.
// The sleeping itself is ODE's auto-disable rule, per body (run by hsd_autoDisable where ODE
// would run it, at the start of the ODE step, on counters kept in hsdCharacter.rest: ODE keeps
// its own where the public API can neither read nor write them, so a saved state could not
// hold them; ODE's own flag stays off): a body whose speed stays below
// opt.sleepLinearVel and opt.sleepAngularVel for opt.sleepTime (and at least 10 steps) while
// it touches something is disabled at the start of a step, its velocities zeroed; ODE's island
// walk enables again at once any disabled body that a contact joint ties to an awake one, so a
// pile falls asleep as a whole, when its last body comes to rest, and wakes from the body that
// is hit. ODE's walk starts from awake dynamic bodies only and reaches a body one step after it
// is touched, so two more rules wake what it would miss or reach late: before the contacts of
// a step are found, a sleeping character whose world box meets the box of an awake one moving
// fast (ten times the thresholds: a blow, not a resting neighbour's jitter) or one that never
// sleeps wakes (dynamics_geom.c, over the sweep's overlapping boxes); and hsd_wakeTouched wakes
// a sleeping body touched by a kinematic or servoed one. A command, an external force, a
// teleport or a mode change wakes the character before its step.
//
// Slow is not at rest when the body speeds up: a box let go on a slope a little steeper than
// its friction angle starts from zero speed and stays under sleepLinearVel for longer than
// sleepTime, and ODE would put it to sleep. So each awake sleeper's root velocities are
// averaged over windows of a quarter of sleepTime (at least 5 steps); when the speed of the
// mean velocity rose by more than sleepLinearAcc times the window's length (or the angular
// one by sleepAngularAcc) from one window to the next, twice in a row, the body is speeding up
// and its rest count starts again (dBodyEnable on an awake body resets ODE's idle steps and
// time). The first verdict comes three windows (3/4 of sleepTime) after the body woke, before
// ODE's count can run out, and one every window after it. A settled pile under QuickStep keeps
// rocking (window means of up to 0.005 m/s and 0.1 rad/s that change by up to 0.05 m/s^2 and
// 1 rad/s^2 from window to window) but does not speed up twice in a row often enough to stay
// awake; a sliding box does so in every window.
//
// While asleep, a character's pairs with static characters and other sleeping ones are not
// asked about (hsd_charsMayTouch): a sleeping pile costs no contacts and no constraint rows, and
// reports no contacts (its contact forces read zero). Everything here is deterministic: the
// same inputs put the same bodies to sleep at the same steps.

#include <math.h>
#include <string.h>

#include "dynamics_private.h"

int hsd_sleeper(const hsdCharacter *c) {
  const hsBody *b = c->body;
  if (!c->links[0].body || b->links[0].jointType != hsJOINT_FREE || c->nloop > 0 ||
      c->rep != hsdREP_ARTICULATED || hsd_servoed(c, 0)) {
    return 0;
  }
  for (int s = 0; s < b->nsensor; s++) {
    if (b->sensors[s].type == hsSENSOR_FORCE) {
      return 0;
    }
  }
  for (int k = 1; k < b->nlink; k++) {
    if (c->links[k].body != c->links[0].body) {
      return 0;
    }
  }
  return 1;
}

// 1 if character c sleeps (its body disabled; only sleepers' bodies ever are)
static int asleep(const hsdCharacter *c) {
  return c->links[0].body && !dBodyIsEnabled(c->links[0].body);
}

//---------------------------------- ODE's auto-disable, kept here -----------------------------

void hsd_initRest(hsdWorld *w, hsdCharacter *c) {
  hsdRest *r = &c->rest;
  memset(r, 0, sizeof *r);
  r->idleSteps = dWorldGetAutoDisableSteps(w->world);
  r->idleTime = dWorldGetAutoDisableTime(w->world);
  r->samples = dWorldGetAutoDisableAverageSamplesCount(w->world);
  r->stepsLeft = r->idleSteps;
  r->timeLeft = r->idleTime;
}

// dBodyEnable as ODE does it for a body with auto-disable: awake, idle count restarted
static void enableRest(hsdCharacter *c, dBodyID b) {
  dBodyEnable(b);
  c->rest.stepsLeft = c->rest.idleSteps;
  c->rest.timeLeft = c->rest.idleTime;
}

// a new sample count: the samples start again (dBodySetAutoDisableAverageSamplesCount)
static void setRestSamples(hsdRest *r, int n) {
  r->samples = n < hsdREST_SAMPLES ? n : hsdREST_SAMPLES;
  r->counter = r->ready = 0;
}

// the auto-disable flag as dBodySetAutoDisableFlag sets it: off also wakes the body (its idle
// count kept) and takes the world's idle steps, time and sample count
static void setRestFlag(hsdWorld *w, hsdCharacter *c, dBodyID b, int on) {
  hsdRest *r = &c->rest;
  r->on = on != 0;
  if (!on) {
    if (!dBodyIsEnabled(b)) {
      dBodyEnable(b);  // (ODE's own counters are not used)
    }
    r->idleSteps = dWorldGetAutoDisableSteps(w->world);
    r->idleTime = dWorldGetAutoDisableTime(w->world);
    setRestSamples(r, dWorldGetAutoDisableAverageSamplesCount(w->world));
  }
}

void hsd_autoDisable(hsdWorld *w) {
  for (int ci = 0; ci < w->nchar; ci++) {
    hsdCharacter *c = &w->chars[ci];
    hsdRest *r = &c->rest;
    dBodyID b = c->links[0].body;
    // only an awake body with the flag that touches something (no sleeping mid-air)
    if (!b || !r->on || !dBodyIsEnabled(b) || dBodyGetNumJoints(b) == 0 || r->samples == 0) {
      continue;
    }
    const dReal *v = dBodyGetLinearVel(b), *a = dBodyGetAngularVel(b);
    for (int j = 0; j < 3; j++) {
      r->lvel[r->counter][j] = v[j];
      r->avel[r->counter][j] = a[j];
    }
    if (++r->counter >= r->samples) {
      r->counter = 0;
      r->ready = 1;
    }
    int idle = 0;
    if (r->ready) {
      // the mean velocities (summed in slot order, then scaled: ODE's arithmetic)
      double lv[3], av[3];
      for (int j = 0; j < 3; j++) {
        lv[j] = r->lvel[0][j];
        av[j] = r->avel[0][j];
      }
      if (r->samples > 1) {
        for (int i = 1; i < r->samples; i++) {
          for (int j = 0; j < 3; j++) {
            lv[j] += r->lvel[i][j];
            av[j] += r->avel[i][j];
          }
        }
        double r1 = 1.0 / (double)r->samples;
        for (int j = 0; j < 3; j++) {
          lv[j] *= r1;
          av[j] *= r1;
        }
      }
      // (idle unless a speed is above its threshold, as ODE tests it)
      idle = !(lv[0] * lv[0] + lv[1] * lv[1] + lv[2] * lv[2] > r->linear2) &&
             !(av[0] * av[0] + av[1] * av[1] + av[2] * av[2] > r->angular2);
    }
    if (idle) {
      r->stepsLeft--;
      r->timeLeft -= w->dt;
    } else {
      r->stepsLeft = r->idleSteps;
      r->timeLeft = r->idleTime;
    }
    if (r->stepsLeft <= 0 && r->timeLeft <= 0) {
      dBodyDisable(b);  // asleep, stopped
      dBodySetLinearVel(b, 0, 0, 0);
      dBodySetAngularVel(b, 0, 0, 0);
    }
  }
}

//---------------------------------- sleeping --------------------------------------------------

// steps in a window of the acceleration check: a quarter of sleepTime, at least 5
static int restWindow(const hsdWorld *w) {
  int n = (int)floor(w->opt.sleepTime / (4 * w->dt));
  return n < 5 ? 5 : n;
}

// the acceleration check of awake sleeper c (its body b) after a step; see the head comment
static void checkSpeedingUp(hsdWorld *w, hsdCharacter *c, dBodyID b) {
  const dReal *v = dBodyGetLinearVel(b), *a = dBodyGetAngularVel(b);
  for (int k = 0; k < 3; k++) {
    c->restSum[k] += v[k];
    c->restSum[3 + k] += a[k];
  }
  int n = restWindow(w);
  if (++c->restN < n) {
    return;
  }
  // the window's mean speeds, and which of them rose faster than the thresholds since the
  // window before (bit 0 linear, bit 1 angular)
  double speed[2], span = n * w->dt;
  speed[0] = sqrt(c->restSum[0] * c->restSum[0] + c->restSum[1] * c->restSum[1] +
                  c->restSum[2] * c->restSum[2]) / n;
  speed[1] = sqrt(c->restSum[3] * c->restSum[3] + c->restSum[4] * c->restSum[4] +
                  c->restSum[5] * c->restSum[5]) / n;
  int up = 0;
  if (c->restPrev) {
    up = (speed[0] - c->restMean[0] > w->opt.sleepLinearAcc * span) |
         (speed[1] - c->restMean[1] > w->opt.sleepAngularAcc * span) << 1;
  }
  if (up & c->restUp) {
    enableRest(c, b);  // speeding up: not at rest (resets the idle count)
    c->jsIdle = 0;     // (and the joint-space engine's)
  }
  c->restUp = up;
  c->restMean[0] = speed[0];
  c->restMean[1] = speed[1];
  memset(c->restSum, 0, sizeof c->restSum);
  c->restN = 0;
  c->restPrev = 1;
}

void hsd_setupSleep(hsdWorld *w) {
  const hsdOptions *o = &w->opt;
  for (int ci = 0; ci < w->nchar; ci++) {
    hsdCharacter *c = &w->chars[ci];
    dBodyID b = c->links[0].body;
    c->restN = c->restPrev = c->restUp = 0;
    memset(c->restSum, 0, sizeof c->restSum);
    if (!b) {
      continue;
    }
    c->rest.linear2 = o->sleepLinearVel * o->sleepLinearVel;
    c->rest.angular2 = o->sleepAngularVel * o->sleepAngularVel;
    c->rest.idleSteps = 10;
    c->rest.idleTime = o->sleepTime;
    setRestSamples(&c->rest, 10);
    setRestFlag(w, c, b, o->sleep && hsd_sleeper(c));
    if (!o->sleep && !dBodyIsEnabled(b)) {
      enableRest(c, b);
    }
  }
}

void hsd_prepareSleep(hsdWorld *w) {
  if (!w->opt.sleep) {
    return;
  }
  for (int ci = 0; ci < w->nchar; ci++) {
    hsdCharacter *c = &w->chars[ci];
    dBodyID b = c->links[0].body;
    if (!b) {
      continue;
    }
    int may = hsd_sleeper(c);
    if (!dBodyIsEnabled(b) && (!may || c->resynced || c->nExt > 0)) {
      enableRest(c, b);  // (resets its rest count)
    }
    if (c->rest.on != may) {
      setRestFlag(w, c, b, may);
    }
    if (may && dBodyIsEnabled(b)) {
      hsd_syncOdeBodies(w, ci);  // (the joint-space engine's root body, to be read)
      checkSpeedingUp(w, c, b);
    } else {
      // asleep or not a sleeper: a fresh start when it wakes
      c->restN = c->restPrev = c->restUp = 0;
      memset(c->restSum, 0, sizeof c->restSum);
    }
  }
}

int hsd_atRest(const hsdWorld *w, int ch) {
  const hsdCharacter *c = &w->chars[ch];
  return c->still || (w->opt.sleep && asleep(c));
}

// 1 if link l of character c moves on its own this step without an awake dynamic body of its
// own (kinematic, servoed): ODE's island walk does not start from it
static int movesUnseen(const hsdCharacter *c, const hsdLinkOde *l) {
  if (c->still) {
    return 0;
  }
  return !l->att || dBodyIsKinematic(l->att);
}

void hsd_wakeTouched(hsdWorld *w) {
  if (!w->opt.sleep) {
    return;
  }
  for (int i = 0; i < w->ncontact; i++) {
    const hsdContact *hc = &w->contacts[i];
    for (int side = 0; side < 2; side++) {
      hsdCharacter *c = &w->chars[hc->ch[side]];
      const hsdCharacter *o = &w->chars[hc->ch[1 - side]];
      if (asleep(c) && movesUnseen(o, &o->links[hc->link[1 - side]])) {
        enableRest(c, c->links[0].body);
      }
    }
  }
}

int hsd_wakesNeighbours(hsdWorld *w, int ch) {
  const hsdCharacter *c = &w->chars[ch];
  if (c->still || asleep(c)) {
    return 0;
  }
  if (!hsd_sleeper(c)) {
    return 1;
  }
  hsd_syncOdeBodies(w, ch);
  const dReal *v = dBodyGetLinearVel(c->links[0].body), *a = dBodyGetAngularVel(c->links[0].body);
  double lin = w->opt.sleepLinearVel, ang = w->opt.sleepAngularVel;
  return v[0] * v[0] + v[1] * v[1] + v[2] * v[2] > 100 * lin * lin ||
         a[0] * a[0] + a[1] * a[1] + a[2] * a[2] > 100 * ang * ang;
}

int hsd_wake(hsdWorld *w, int ch) {
  hsdCharacter *c = &w->chars[ch];
  if (!asleep(c)) {
    return 0;
  }
  enableRest(c, c->links[0].body);
  return 1;
}

void hsd_wakeAll(hsdWorld *w) {
  for (int ci = 0; w->initialised && ci < w->nchar; ci++) {
    hsd_wake(w, ci);
  }
}

int hsd_setSleep(hsdWorld *w, int on, hsError *err) {
  if (!w) {
    return HS_ERR(err, hsE_INVALID, "no world");
  }
  w->opt.sleep = on != 0;
  if (w->initialised) {
    hsd_setupSleep(w);
    if (!on) {
      hsd_wakeAll(w);
    }
  }
  return 0;
}

//---------------------------------- the joint-space engine -----------------------------------
//
// The joint-space engine has no ODE step, so it keeps the rest count itself: after each step an
// awake sleeper (hsd_sleeper) whose root moves slower than sleepLinearVel and sleepAngularVel
// counts a step, any faster step (or the acceleration check above) starts the count again; the
// characters linked by the step's contact points form islands (static characters link
// nothing), and an island whose members are all sleepers counted to sleepTime (at least 10
// steps) falls asleep together: velocities zeroed, bodies disabled, counts restarted. A
// sleeping character is not stepped; one whose contact points of a step reach an awake
// character that is not static wakes and joins that step (as ODE's island walk), as do those
// the rules above wake (commands, forces, teleports, a fast neighbour's box).

int hsd_jsAsleep(const hsdWorld *w, int ci) {
  return w->opt.sleep && asleep(&w->chars[ci]);
}

static int islandRoot(hsdWorld *w, int c) {
  while (w->chars[c].jsIsland != c) {
    hsdCharacter *x = &w->chars[c];
    x->jsIsland = w->chars[x->jsIsland].jsIsland;
    c = x->jsIsland;
  }
  return c;
}

void hsd_jsWakeTouched(hsdWorld *w, int n) {
  if (!w->opt.sleep) {
    return;
  }
  for (int i = 0; i < n; i++) {
    const hsdContact *hc = &w->contacts[i];
    hsdCharacter *a = &w->chars[hc->ch[0]], *b = &w->chars[hc->ch[1]];
    if (a->still || b->still || asleep(a) == asleep(b)) {
      continue;
    }
    int ci = asleep(a) ? hc->ch[0] : hc->ch[1];
    hsdCharacter *s = &w->chars[ci];
    dBodyEnable(s->links[0].body);
    s->jsIdle = 0;
    hsd_jsBegin(w, ci);
  }
}

void hsd_jsSleepAfter(hsdWorld *w) {
  if (!w->opt.sleep) {
    return;
  }
  double lin = w->opt.sleepLinearVel, ang = w->opt.sleepAngularVel;
  int need = (int)ceil(w->opt.sleepTime / w->dt - 1e-9);
  need = need < 10 ? 10 : need;
  // the rest counts; islands start as single characters
  for (int ci = 0; ci < w->nchar; ci++) {
    hsdCharacter *c = &w->chars[ci];
    c->jsIsland = ci;
    if (c->still || asleep(c)) {
      continue;
    }
    const hsdLinkMotion *m = &c->motion[0];
    int slow = hsu_dot(m->v, m->v) < lin * lin && hsu_dot(m->w, m->w) < ang * ang;
    c->jsIdle = hsd_sleeper(c) && slow ? c->jsIdle + 1 : 0;
  }
  // the points between awake characters link islands
  for (int i = 0; i < w->ncontact; i++) {
    const hsdContact *hc = &w->contacts[i];
    hsdCharacter *a = &w->chars[hc->ch[0]], *b = &w->chars[hc->ch[1]];
    if (a->still || b->still) {
      continue;
    }
    if (!asleep(a) && !asleep(b)) {
      int ra = islandRoot(w, hc->ch[0]), rb = islandRoot(w, hc->ch[1]);
      if (ra != rb) {
        w->chars[ra > rb ? ra : rb].jsIsland = ra < rb ? ra : rb;
      }
    }
  }
  // an island whose every member is a sleeper at rest long enough falls asleep: a first pass
  // marks the roots of the islands that cannot, a second puts the others to sleep
  for (int ci = 0; ci < w->nchar; ci++) {
    w->chars[ci].jsKeep = 0;
  }
  for (int ci = 0; ci < w->nchar; ci++) {
    hsdCharacter *c = &w->chars[ci];
    if (!c->still && !asleep(c) && c->jsIdle < need) {
      w->chars[islandRoot(w, ci)].jsKeep = 1;
    }
  }
  for (int ci = 0; ci < w->nchar; ci++) {
    hsdCharacter *c = &w->chars[ci];
    if (c->still || asleep(c) || w->chars[islandRoot(w, ci)].jsKeep) {
      continue;
    }
    hsd_syncOdeBodies(w, ci);  // (placed where the step left it, then stopped)
    for (int k = 0; k < c->body->nlink; k++) {
      memset(c->motion[k].v, 0, sizeof c->motion[k].v);
      memset(c->motion[k].w, 0, sizeof c->motion[k].w);
    }
    dBodySetLinearVel(c->links[0].body, 0, 0, 0);
    dBodySetAngularVel(c->links[0].body, 0, 0, 0);
    dBodyDisable(c->links[0].body);
    c->jsIdle = 0;
    hsd_placeCharacterShapes(w, ci);  // (where it stopped: a restored state places it there)
  }
}

int hsd_sleeping(const hsdWorld *w, int ch) {
  if (!w || !w->initialised || ch < 0 || ch >= w->nchar || !w->opt.sleep) {
    return 0;
  }
  return asleep(&w->chars[ch]);
}
