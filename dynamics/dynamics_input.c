// dynamics_input.c - what clients set: commands into a character's input, teleports into its
// state; and the read-only queries.
//
// Every setter checks its arguments first (valid indices, finite values within +-1e12, a
// rotation that is one) and then does exactly one of:
// - before hsd_init: writes the state (the initial condition hsd_init builds from) and the
//   input's persistent values (torque, mode);
// - a command: records it in the input, flagged for the next step (the value, velocity or
//   acceleration of a servoed joint, the pose or velocity of a position-given free root, an
//   external force), or as a persistent value (torque, drive mode);
// - a teleport: writes the state at once (the value or velocity of a torque-mode joint, the
//   pose or velocity of a root that is not position given) and marks the character, so that
//   the next step re-places its ODE bodies there first.
// Nothing here touches ODE but to place the joint-space engine's bodies where the last step
// left them before a setter writes the link poses or velocities they are placed from
// (hsd_syncOdeBodies: a state saved after the setter holds them as it did when the step placed
// them at once).

#include <math.h>
#include <string.h>

#include "dynamics_private.h"

//---------------------------------- queries ---------------------------------------------------

const hsBodyState *hsd_state(const hsdWorld *w, int ch) {
  return (w && ch >= 0 && ch < w->nchar) ? w->chars[ch].state : NULL;
}

const hsdInput *hsd_input(const hsdWorld *w, int ch) {
  return (w && ch >= 0 && ch < w->nchar) ? &w->chars[ch].in : NULL;
}

const hsdLinkMotion *hsd_linkMotion(const hsdWorld *w, int ch, int link) {
  if (!w || ch < 0 || ch >= w->nchar || link < 0 || link >= w->chars[ch].body->nlink) {
    return NULL;
  }
  return &w->chars[ch].motion[link];
}

hstJointMode hsd_jointMode(const hsdWorld *w, int ch, int link) {
  if (hsd_checkLink(w, ch, link, NULL) < 0) {
    return hsMODE_TORQUE;
  }
  return w->chars[ch].in.mode[link];
}

int hsd_positionGiven(const hsdWorld *w, int ch, int link) {
  return hsd_checkLink(w, ch, link, NULL) == 0 && hsd_servoed(&w->chars[ch], link);
}

void hsd_forwardKinematics(hsdWorld *w, int ch) {
  if (!w) {
    return;
  }
  for (int i = 0; i < w->nchar; i++) {
    if (ch < 0 || ch == i) {
      hsdCharacter *c = &w->chars[i];
      if (w->initialised) {
        hsd_syncOdeBodies(w, i);
      }
      hsm_forwardKinematics(c->body, c->state);
      c->posesTouched = w->initialised;
    }
  }
}

//---------------------------------- setters ---------------------------------------------------

// common checks of the joint setters: valid link with a joint, finite value
static int checkJointSet(hsdWorld *w, int ch, int link, double x, const char *what,
                         hsError *err) {
  if (hsd_checkLink(w, ch, link, err) < 0) {
    return hsE_INVALID;
  }
  if (link == 0) {
    return HS_ERR(err, hsE_INVALID, "%s: the root link %s has no joint %s", w->chars[ch].name,
                  w->chars[ch].body->links[0].name, what);
  }
  if (!hsd_sane(&x, 1)) {
    return HS_ERR(err, hsE_INVALID, "%s: joint %s %s must be finite (and below 1e12)",
                  w->chars[ch].name, w->chars[ch].body->links[link].name, what);
  }
  return 0;
}

// 1 if link k of character c is a 1-dof joint driven by its commands this step (rather than a
// joint under dynamics, or no joint at all)
static int commanded(const hsdWorld *w, const hsdCharacter *c, int k) {
  return w->initialised && hsm_hasOneDofJoint(&c->body->links[k]) && hsd_servoed(c, k);
}

// a joint value, velocity or acceleration x of link `link`: into the input (in[link]) and, as
// a command (flag) for a servoed joint, else as a teleport into the state (st[link]; for an
// acceleration only before the start, when the state is the initial condition)
static int setJoint(hsdWorld *w, int ch, int link, double x, const char *what, unsigned flag,
                    hsError *err) {
  if (checkJointSet(w, ch, link, x, what, err) < 0) {
    return hsE_INVALID;
  }
  hsdCharacter *c = &w->chars[ch];
  if (flag == hsdIN_DQ && c->body->links[link].jointType == hsJOINT_CRAWLER) {
    c->in.u[link] = x;  // a track's speed (Choreonoid's pseudoContinuousTrack convention)
  }
  double *in = flag == hsdIN_Q ? c->in.q : flag == hsdIN_DQ ? c->in.dq : c->in.ddq;
  double *st = flag == hsdIN_Q ? c->state->q : flag == hsdIN_DQ ? c->state->dq : c->state->ddq;
  in[link] = x;
  if (commanded(w, c, link)) {
    c->in.flags[link] |= flag;
  } else if (flag != hsdIN_DDQ || !w->initialised) {
    st[link] = x;
    c->teleported |= w->initialised && hsm_hasOneDofJoint(&c->body->links[link]);
  }
  return 0;
}

int hsd_setJointValue(hsdWorld *w, int ch, int link, double q, hsError *err) {
  return setJoint(w, ch, link, q, "value", hsdIN_Q, err);
}

int hsd_setJointVelocity(hsdWorld *w, int ch, int link, double dq, hsError *err) {
  return setJoint(w, ch, link, dq, "velocity", hsdIN_DQ, err);
}

int hsd_setJointAcceleration(hsdWorld *w, int ch, int link, double ddq, hsError *err) {
  return setJoint(w, ch, link, ddq, "acceleration", hsdIN_DDQ, err);
}

int hsd_setJointTorque(hsdWorld *w, int ch, int link, double u, hsError *err) {
  if (checkJointSet(w, ch, link, u, "torque", err) < 0) {
    return hsE_INVALID;
  }
  hsdCharacter *c = &w->chars[ch];
  c->in.u[link] = u;
  if (!w->initialised) {
    c->state->u[link] = u;
  }
  return 0;
}

// 1 if R is a rotation matrix within 1e-6
static int isRotation(const double R[9]) {
  double T[12] = {R[0], R[1], R[2], 0, R[3], R[4], R[5], 0, R[6], R[7], R[8], 0};
  return hsu_isRigid(T, 1e-6);
}

// 1 if the root of character c is commanded rather than teleported (a position-given free root
// of a running simulation)
static int rootCommanded(const hsdWorld *w, const hsdCharacter *c) {
  return w->initialised && hsd_servoed(c, 0) && c->body->links[0].jointType == hsJOINT_FREE;
}

int hsd_setLinkPose(hsdWorld *w, int ch, int link, const double p[3], const double R[9],
                    hsError *err) {
  if (hsd_checkLink(w, ch, link, err) < 0) {
    return hsE_INVALID;
  }
  if (!p || !R || !hsd_sane(p, 3) || !hsd_sane(R, 9)) {
    return HS_ERR(err, hsE_INVALID, "link pose must be finite (and below 1e12)");
  }
  if (!isRotation(R)) {
    return HS_ERR(err, hsE_INVALID, "link pose: R is not a rotation matrix");
  }
  hsdCharacter *c = &w->chars[ch];
  hsBodyState *st = c->state;
  if (w->initialised) {
    hsd_syncOdeBodies(w, ch);
  }
  if (link > 0) {
    // only the root places a body; other link frames follow from it and q
    memcpy(st->linkP + 3 * link, p, 3 * sizeof *p);
    memcpy(st->linkR + 9 * link, R, 9 * sizeof *R);
    c->posesTouched = w->initialised;
    return 0;
  }
  if (rootCommanded(w, c)) {
    memcpy(c->in.rootP, p, sizeof c->in.rootP);
    memcpy(c->in.rootR, R, sizeof c->in.rootR);
    c->in.flags[0] |= hsdIN_POSE;
    return 0;
  }
  // a teleport: the whole body moves at once
  memcpy(st->rootP, p, sizeof st->rootP);
  memcpy(st->rootR, R, sizeof st->rootR);
  hsm_forwardKinematics(c->body, st);
  c->teleported |= w->initialised;
  return 0;
}

int hsd_setLinkVelocity(hsdWorld *w, int ch, int link, const double v[3], const double wv[3],
                        hsError *err) {
  if (hsd_checkLink(w, ch, link, err) < 0) {
    return hsE_INVALID;
  }
  if (!v || !wv || !hsd_sane(v, 3) || !hsd_sane(wv, 3)) {
    return HS_ERR(err, hsE_INVALID, "link velocity must be finite (and below 1e12)");
  }
  if (link > 0) {
    return 0;  // follows from the root's velocity and dq
  }
  hsdCharacter *c = &w->chars[ch];
  if (rootCommanded(w, c)) {
    memcpy(c->in.rootV, v, sizeof c->in.rootV);
    memcpy(c->in.rootW, wv, sizeof c->in.rootW);
    c->in.flags[0] |= hsdIN_VEL;
    return 0;
  }
  if (w->initialised) {
    hsd_syncOdeBodies(w, ch);
  }
  memcpy(c->motion[0].v, v, sizeof c->motion[0].v);
  memcpy(c->motion[0].w, wv, sizeof c->motion[0].w);
  c->teleported |= w->initialised;
  return 0;
}

int hsd_setJointMode(hsdWorld *w, int ch, int link, hstJointMode mode, hsError *err) {
  if (hsd_checkLink(w, ch, link, err) < 0) {
    return hsE_INVALID;
  }
  if (mode != hsMODE_HIGH_GAIN && mode != hsMODE_TORQUE) {
    return HS_ERR(err, hsE_INVALID, "unknown joint mode %d", (int)mode);
  }
  hsdCharacter *c = &w->chars[ch];
  if (c->in.mode[link] != mode) {
    // a servo switched on holds where the joint (or root) is: the next step re-places the
    // bodies and restarts the holds from the state
    c->in.mode[link] = mode;
    c->remode = 1;
  }
  return 0;
}

int hsd_setAllJointModes(hsdWorld *w, int ch, hstJointMode mode, hsError *err) {
  if (hsd_checkLink(w, ch, 0, err) < 0) {
    return hsE_INVALID;
  }
  for (int k = 1; k < w->chars[ch].body->nlink; k++) {
    if (hsd_setJointMode(w, ch, k, mode, err) < 0) {
      return hsE_INVALID;
    }
  }
  return 0;
}

int hsd_setPositionGiven(hsdWorld *w, int ch, int link, int given, hsError *err) {
  return hsd_setJointMode(w, ch, link, given ? hsMODE_HIGH_GAIN : hsMODE_TORQUE, err);
}

int hsd_setExternalForce(hsdWorld *w, int ch, int link, const double f[3], const double t[3],
                         hsError *err) {
  if (hsd_checkLink(w, ch, link, err) < 0) {
    return hsE_INVALID;
  }
  if (!f || !t || !hsd_sane(f, 3) || !hsd_sane(t, 3)) {
    return HS_ERR(err, hsE_INVALID, "external force and torque must be finite (and below 1e12)");
  }
  hsdCharacter *c = &w->chars[ch];
  double *e = c->in.ext + 6 * link;
  memcpy(e, f, 3 * sizeof *f);
  memcpy(e + 3, t, 3 * sizeof *t);
  if (!(c->in.flags[link] & hsdIN_EXT)) {
    c->in.flags[link] |= hsdIN_EXT;
    c->nExt++;
  }
  return 0;
}

int hsd_inverseKinematics(hsdWorld *w, int ch, int base, int target, const double p[3],
                          const double R[9], hsError *err) {
  if (hsd_checkLink(w, ch, base, err) < 0 || hsd_checkLink(w, ch, target, err) < 0) {
    return hsE_INVALID;
  }
  if (!p || !R || !hsd_sane(p, 3) || !hsd_sane(R, 9)) {
    return HS_ERR(err, hsE_INVALID, "the goal pose must be finite (and below 1e12)");
  }
  hsdCharacter *c = &w->chars[ch];
  const hsBody *b = c->body;
  const hsBodyState *st = c->state;
  // solve on a copy: the state changes only when the goal is reached
  hsBodyState *s = c->ikState;
  size_t n = (size_t)b->nlink;
  memcpy(s->q, st->q, n * sizeof *s->q);
  memcpy(s->dq, st->dq, n * sizeof *s->dq);
  memcpy(s->ddq, st->ddq, n * sizeof *s->ddq);
  memcpy(s->u, st->u, n * sizeof *s->u);
  memcpy(s->rootP, st->rootP, sizeof s->rootP);
  memcpy(s->rootR, st->rootR, sizeof s->rootR);
  memcpy(s->linkP, st->linkP, 3 * n * sizeof *s->linkP);
  memcpy(s->linkR, st->linkR, 9 * n * sizeof *s->linkR);
  int rc = hsm_inverseKinematics(b, s, base, target, p, R, NULL, c->ikWork, err);
  if (rc <= 0) {
    return rc;
  }
  // reached: the joints, then the root (which carries the links along)
  for (int k = 1; k < b->nlink; k++) {
    if (s->q[k] != st->q[k] && hsd_setJointValue(w, ch, k, s->q[k], err) < 0) {
      return hsE_INVALID;
    }
  }
  if (memcmp(s->rootP, st->rootP, sizeof s->rootP) != 0 ||
      memcmp(s->rootR, st->rootR, sizeof s->rootR) != 0) {
    double rp[3], rR[9];
    memcpy(rp, s->rootP, sizeof rp);
    memcpy(rR, s->rootR, sizeof rR);
    if (hsd_setLinkPose(w, ch, 0, rp, rR, err) < 0) {
      return hsE_INVALID;
    }
  }
  hsd_forwardKinematics(w, ch);
  return 1;
}
