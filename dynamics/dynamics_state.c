// dynamics_state.c - a world's whole state saved and restored bit for bit (hsd_saveState,
// hsd_restoreState), so that a world restored from a state saved after step k steps on exactly
// as the saved world did.
//
// What a world is made of, and how each part comes back:
// - What hsd_init builds from the characters' states (ODE bodies' masses and offsets, joints'
//   anchors, axes and zero angles, the collision shapes' offsets) cannot be set through ODE's
//   API, but hsd_init is deterministic: a state carries what the last hsd_init built from
//   (w->start, noted on its entry: options, gravity, time step, each character's state, motion
//   and input) and a restore whose world was built from other bits runs hsd_init again from
//   the state's. The same bits in give the same world out.
// - Everything that changes after hsd_init is then overwritten: time, steps, QuickStep's
//   random seed (ODE 0.16's QuickStep keeps nothing else between steps: its warm starting is
//   compiled out), options, gravity, warnings; each character's state, motion, input, step
//   history and per-link records (hsdLinkOde, its handles kept); the joint-space engine's data
//   and its contact solver's warm start; the last step's contacts; the extra joints' feedback.
// - Each ODE body's position, quaternion and rotation matrix are written through the pointers
//   ODE's getters return (dBodySetQuaternion and dBodySetRotation would renormalise and
//   recompute one from the other, changing bits: the quaternion about 38 % of the time), its
//   velocities through the setters (exact), its kinematic and enabled flags too. ODE's own
//   auto-disable counters are not in its API; dynamics_sleep.c keeps that rule's counters in
//   hsdCharacter.rest instead, so they are saved with the rest. Joint motors: each hinge's or
//   slider's enabled flag and limit-motor parameters (getters and setters are exact).
// The byte layout is this build's (plain structs copied as they are): the core's header says
// which layout and models a state is for (core/core_state.c).

#include <string.h>

#include "dynamics_private.h"

// the limit-motor parameters saved per hinge or slider (ODE's dxJointLimitMotor)
static const int kParams[] = {dParamLoStop, dParamHiStop,  dParamVel,     dParamFMax,
                              dParamFudgeFactor, dParamBounce, dParamCFM, dParamStopERP,
                              dParamStopCFM};
#define NPARAMS ((int)(sizeof kParams / sizeof kParams[0]))

// what runawayWhen points at, by number (string literals of dynamics_prepare.c and others)
static int whenCode(const char *when) {
  return !when ? 0 : strcmp(when, "before") == 0 ? 1 : 2;
}

uint64_t hsd_stateLayout(void) {
  uint64_t sizes[] = {sizeof(hsdOptions), sizeof(hsdLinkOde), sizeof(hsdLinkMotion),
                      sizeof(hsdContact), sizeof(hsdContactGroup), sizeof(hsdRest),
                      sizeof(dJointFeedback), sizeof(dReal), sizeof(hstJointMode),
                      sizeof(long), sizeof(hstdRep), 1};
  uint64_t h = 0xCBF29CE484222325ULL;
  const unsigned char *p = (const unsigned char *)sizes;
  for (size_t i = 0; i < sizeof sizes; i++) {
    h = (h ^ p[i]) * 0x100000001B3ULL;
  }
  return h;
}

void hsd_saveBodyState(const hsBodyState *st, hsuBytes *out) {
  size_t n = (size_t)st->body->nlink;
  hsu_bytesPut(out, st->q, n * sizeof *st->q);
  hsu_bytesPut(out, st->dq, n * sizeof *st->dq);
  hsu_bytesPut(out, st->ddq, n * sizeof *st->ddq);
  hsu_bytesPut(out, st->u, n * sizeof *st->u);
  hsu_bytesPut(out, st->rootP, sizeof st->rootP);
  hsu_bytesPut(out, st->rootR, sizeof st->rootR);
  hsu_bytesPut(out, st->linkP, 3 * n * sizeof *st->linkP);
  hsu_bytesPut(out, st->linkR, 9 * n * sizeof *st->linkR);
}

void hsd_restoreBodyState(hsBodyState *st, hsuBytes *in) {
  size_t n = (size_t)st->body->nlink;
  hsu_bytesGet(in, st->q, n * sizeof *st->q);
  hsu_bytesGet(in, st->dq, n * sizeof *st->dq);
  hsu_bytesGet(in, st->ddq, n * sizeof *st->ddq);
  hsu_bytesGet(in, st->u, n * sizeof *st->u);
  hsu_bytesGet(in, st->rootP, sizeof st->rootP);
  hsu_bytesGet(in, st->rootR, sizeof st->rootR);
  hsu_bytesGet(in, st->linkP, 3 * n * sizeof *st->linkP);
  hsu_bytesGet(in, st->linkR, 9 * n * sizeof *st->linkR);
}

// a character's input (every array of hsdInput) to / from bytes
static void putInput(const hsdCharacter *c, hsuBytes *out) {
  size_t n = (size_t)c->body->nlink;
  hsu_bytesPut(out, c->in.mode, n * sizeof *c->in.mode);
  hsu_bytesPut(out, c->in.flags, n * sizeof *c->in.flags);
  hsu_bytesPut(out, c->in.q, 10 * n * sizeof *c->in.q);  // the pool: q, dq, ddq, u, ext
  hsu_bytesPut(out, c->in.rootP, sizeof c->in.rootP);
  hsu_bytesPut(out, c->in.rootR, sizeof c->in.rootR);
  hsu_bytesPut(out, c->in.rootV, sizeof c->in.rootV);
  hsu_bytesPut(out, c->in.rootW, sizeof c->in.rootW);
}

static void getInput(hsdCharacter *c, hsuBytes *in) {
  size_t n = (size_t)c->body->nlink;
  hsu_bytesGet(in, c->in.mode, n * sizeof *c->in.mode);
  hsu_bytesGet(in, c->in.flags, n * sizeof *c->in.flags);
  hsu_bytesGet(in, c->in.q, 10 * n * sizeof *c->in.q);
  hsu_bytesGet(in, c->in.rootP, sizeof c->in.rootP);
  hsu_bytesGet(in, c->in.rootR, sizeof c->in.rootR);
  hsu_bytesGet(in, c->in.rootV, sizeof c->in.rootV);
  hsu_bytesGet(in, c->in.rootW, sizeof c->in.rootW);
}

void hsd_noteStart(hsdWorld *w) {
  hsuBytes *b = &w->start;
  b->n = b->pos = 0;
  b->bad = 0;
  hsu_bytesPut(b, &w->opt, sizeof w->opt);
  hsu_bytesPut(b, w->g, sizeof w->g);
  hsu_bytesPut(b, &w->dt, sizeof w->dt);
  for (int ci = 0; ci < w->nchar; ci++) {
    const hsdCharacter *c = &w->chars[ci];
    hsd_saveBodyState(c->state, b);
    hsu_bytesPut(b, c->motion, (size_t)c->body->nlink * sizeof *c->motion);
    putInput(c, b);
  }
}

// the start's records back into the world (the inverse of hsd_noteStart)
static void loadStart(hsdWorld *w, hsuBytes *in) {
  hsu_bytesGet(in, &w->opt, sizeof w->opt);
  hsu_bytesGet(in, w->g, sizeof w->g);
  hsu_bytesGet(in, &w->dt, sizeof w->dt);
  for (int ci = 0; ci < w->nchar; ci++) {
    hsdCharacter *c = &w->chars[ci];
    hsd_restoreBodyState(c->state, in);
    hsu_bytesGet(in, c->motion, (size_t)c->body->nlink * sizeof *c->motion);
    getInput(c, in);
  }
}

//---------------------------------- ODE bodies and joints -------------------------------------

// call f on every ODE body of the world in one fixed order: each character's group bodies,
// then its composite body; then each loop's auxiliary bodies
static void eachBody(const hsdWorld *w, void (*f)(dBodyID, void *), void *arg) {
  for (int ci = 0; ci < w->nchar; ci++) {
    const hsdCharacter *c = &w->chars[ci];
    for (int k = 0; k < c->body->nlink; k++) {
      if (c->links[k].body && c->links[k].top == k) {
        f(c->links[k].body, arg);
      }
    }
    if (c->cbody) {
      f(c->cbody, arg);
    }
  }
  for (int i = 0; i < w->nloop; i++) {
    for (int j = 0; j < 2; j++) {
      if (w->loops[i].aux[j]) {
        f(w->loops[i].aux[j], arg);
      }
    }
  }
}

static void putBody(dBodyID b, void *arg) {
  hsuBytes *out = arg;
  hsu_bytesPut(out, dBodyGetPosition(b), 3 * sizeof(dReal));
  hsu_bytesPut(out, dBodyGetQuaternion(b), 4 * sizeof(dReal));
  hsu_bytesPut(out, dBodyGetRotation(b), 12 * sizeof(dReal));
  hsu_bytesPut(out, dBodyGetLinearVel(b), 3 * sizeof(dReal));
  hsu_bytesPut(out, dBodyGetAngularVel(b), 3 * sizeof(dReal));
  int flags[2] = {dBodyIsEnabled(b), dBodyIsKinematic(b)};
  hsu_bytesPut(out, flags, sizeof flags);
}

static void getBody(dBodyID b, void *arg) {
  hsuBytes *in = arg;
  dReal pos[3], lv[3], av[3];
  int flags[2];
  // the pose bit for bit through ODE's own arrays (no renormalising setter); ODE's getters
  // return pointers into the body, which is not const
  hsu_bytesGet(in, pos, sizeof pos);
  hsu_bytesGet(in, (dReal *)dBodyGetQuaternion(b), 4 * sizeof(dReal));
  hsu_bytesGet(in, (dReal *)dBodyGetRotation(b), 12 * sizeof(dReal));
  hsu_bytesGet(in, lv, sizeof lv);
  hsu_bytesGet(in, av, sizeof av);
  hsu_bytesGet(in, flags, sizeof flags);
  dBodySetPosition(b, pos[0], pos[1], pos[2]);
  if (flags[1]) {
    dBodySetKinematic(b);
  } else if (dBodyIsKinematic(b)) {
    dBodySetDynamic(b);
  }
  dBodySetLinearVel(b, lv[0], lv[1], lv[2]);
  dBodySetAngularVel(b, av[0], av[1], av[2]);
  if (flags[0]) {
    dBodyEnable(b);
  } else {
    dBodyDisable(b);
  }
}

static dReal jointParam(dJointID j, hstdOdeJoint kind, int p) {
  return kind == hsdODE_HINGE ? dJointGetHingeParam(j, p) : dJointGetSliderParam(j, p);
}

static void setJointParam(dJointID j, hstdOdeJoint kind, int p, dReal v) {
  if (kind == hsdODE_HINGE) {
    dJointSetHingeParam(j, p, v);
  } else {
    dJointSetSliderParam(j, p, v);
  }
}

// the motors of character c's joints to / from bytes
static void putJoints(const hsdCharacter *c, hsuBytes *out) {
  for (int k = 0; k < c->body->nlink; k++) {
    const hsdLinkOde *l = &c->links[k];
    if (!l->joint) {
      continue;
    }
    int on = dJointIsEnabled(l->joint);
    hsu_bytesPut(out, &on, sizeof on);
    for (int p = 0; p < NPARAMS; p++) {
      dReal v = jointParam(l->joint, l->jkind, kParams[p]);
      hsu_bytesPut(out, &v, sizeof v);
    }
  }
}

static void getJoints(hsdCharacter *c, hsuBytes *in) {
  for (int k = 0; k < c->body->nlink; k++) {
    hsdLinkOde *l = &c->links[k];
    if (!l->joint) {
      continue;
    }
    int on = 0;
    hsu_bytesGet(in, &on, sizeof on);
    if (on) {
      dJointEnable(l->joint);
    } else {
      dJointDisable(l->joint);
    }
    for (int p = 0; p < NPARAMS; p++) {
      dReal v = 0;
      hsu_bytesGet(in, &v, sizeof v);
      if (!in->bad) {
        setJointParam(l->joint, l->jkind, kParams[p], v);
      }
    }
  }
}

//---------------------------------- characters ------------------------------------------------

// what a link's contact attachment is: 0 none, 1 its own body, 2 the composite body
static int attCode(const hsdCharacter *c, const hsdLinkOde *l) {
  return !l->att ? 0 : l->att == l->body ? 1 : l->att == c->cbody ? 2 : 3;
}

static void putCharacter(const hsdWorld *w, const hsdCharacter *c, hsuBytes *out) {
  size_t n = (size_t)c->body->nlink;
  hsd_saveBodyState(c->state, out);
  hsu_bytesPut(out, c->motion, n * sizeof *c->motion);
  putInput(c, out);
  int flags[5] = {c->nExt, c->teleported, c->remode, c->posesTouched, c->resynced};
  hsu_bytesPut(out, flags, sizeof flags);
  for (size_t k = 0; k < n; k++) {
    const hsdLinkOde *l = &c->links[k];
    int att = attCode(c, l);
    HS_ASSERT(att < 3);
    hsu_bytesPut(out, &att, sizeof att);
    // the record without its handles (this world's; a restore keeps the live world's)
    hsdLinkOde copy;
    memcpy(&copy, l, sizeof copy);
    copy.body = NULL;
    copy.joint = NULL;
    copy.att = NULL;
    hsu_bytesPut(out, &copy, sizeof copy);
  }
  hsu_bytesPut(out, c->pHold, sizeof c->pHold);
  hsu_bytesPut(out, c->RHold, sizeof c->RHold);
  hsu_bytesPut(out, &c->needWrench, sizeof c->needWrench);
  hsu_bytesPut(out, c->linkWrench, n * sizeof *c->linkWrench);
  hsu_bytesPut(out, c->subW, n * sizeof *c->subW);
  hsu_bytesPut(out, &c->rep, sizeof c->rep);
  hsu_bytesPut(out, &c->still, sizeof c->still);
  hsu_bytesPut(out, c->restSum, sizeof c->restSum);
  hsu_bytesPut(out, c->restMean, sizeof c->restMean);
  int rest[3] = {c->restN, c->restPrev, c->restUp};
  hsu_bytesPut(out, rest, sizeof rest);
  hsu_bytesPut(out, &c->rest, sizeof c->rest);
  hsu_bytesPut(out, c->P, sizeof c->P);
  hsu_bytesPut(out, c->L, sizeof c->L);
  hsu_bytesPut(out, &c->M, sizeof c->M);
  hsu_bytesPut(out, c->com, sizeof c->com);
  hsu_bytesPut(out, c->Ic, sizeof c->Ic);
  hsu_bytesPut(out, c->PInt, sizeof c->PInt);
  hsu_bytesPut(out, c->LInt, sizeof c->LInt);
  hsu_bytesPut(out, c->bo, sizeof c->bo);
  hsu_bytesPut(out, c->vRoot, sizeof c->vRoot);
  hsu_bytesPut(out, c->wRoot, sizeof c->wRoot);
  putJoints(c, out);
  int js = c->jsd != NULL;
  hsu_bytesPut(out, &js, sizeof js);
  if (js) {
    hsd_jsSaveData(c->jsm, c->jsd, out);
  }
  (void)w;
}

static void getCharacter(hsdCharacter *c, hsuBytes *in) {
  size_t n = (size_t)c->body->nlink;
  hsd_restoreBodyState(c->state, in);
  hsu_bytesGet(in, c->motion, n * sizeof *c->motion);
  getInput(c, in);
  int flags[5];
  hsu_bytesGet(in, flags, sizeof flags);
  c->nExt = flags[0];
  c->teleported = flags[1];
  c->remode = flags[2];
  c->posesTouched = flags[3];
  c->resynced = flags[4];
  for (size_t k = 0; k < n; k++) {
    hsdLinkOde *l = &c->links[k], saved;
    int att = 0;
    hsu_bytesGet(in, &att, sizeof att);
    hsu_bytesGet(in, &saved, sizeof saved);
    if (in->bad) {
      return;
    }
    // everything but the handles, which are this world's
    saved.body = l->body;
    saved.joint = l->joint;
    saved.att = att == 1 ? l->body : att == 2 ? c->cbody : NULL;
    *l = saved;
  }
  hsu_bytesGet(in, c->pHold, sizeof c->pHold);
  hsu_bytesGet(in, c->RHold, sizeof c->RHold);
  hsu_bytesGet(in, &c->needWrench, sizeof c->needWrench);
  hsu_bytesGet(in, c->linkWrench, n * sizeof *c->linkWrench);
  hsu_bytesGet(in, c->subW, n * sizeof *c->subW);
  hsu_bytesGet(in, &c->rep, sizeof c->rep);
  hsu_bytesGet(in, &c->still, sizeof c->still);
  hsu_bytesGet(in, c->restSum, sizeof c->restSum);
  hsu_bytesGet(in, c->restMean, sizeof c->restMean);
  int rest[3];
  hsu_bytesGet(in, rest, sizeof rest);
  c->restN = rest[0];
  c->restPrev = rest[1];
  c->restUp = rest[2];
  hsu_bytesGet(in, &c->rest, sizeof c->rest);
  hsu_bytesGet(in, c->P, sizeof c->P);
  hsu_bytesGet(in, c->L, sizeof c->L);
  hsu_bytesGet(in, &c->M, sizeof c->M);
  hsu_bytesGet(in, c->com, sizeof c->com);
  hsu_bytesGet(in, c->Ic, sizeof c->Ic);
  hsu_bytesGet(in, c->PInt, sizeof c->PInt);
  hsu_bytesGet(in, c->LInt, sizeof c->LInt);
  hsu_bytesGet(in, c->bo, sizeof c->bo);
  hsu_bytesGet(in, c->vRoot, sizeof c->vRoot);
  hsu_bytesGet(in, c->wRoot, sizeof c->wRoot);
  getJoints(c, in);
  int js = 0;
  hsu_bytesGet(in, &js, sizeof js);
  if (js != (c->jsd != NULL)) {
    in->bad = 1;
  } else if (js) {
    hsd_jsRestoreData(c->jsm, c->jsd, in);
  }
}

//---------------------------------- the world -------------------------------------------------

// the sizes a state is for, checked before anything is read: characters, links each, loops
static void putShape(const hsdWorld *w, hsuBytes *out) {
  int head[3] = {w->nchar, w->nloop, w->opt.maxContacts};
  hsu_bytesPut(out, head, sizeof head);
  for (int ci = 0; ci < w->nchar; ci++) {
    hsu_bytesPut(out, &w->chars[ci].body->nlink, sizeof w->chars[ci].body->nlink);
  }
}

static int shapeMatches(const hsdWorld *w, hsuBytes *in) {
  int head[3] = {0, 0, 0};
  hsu_bytesGet(in, head, sizeof head);
  int ok = head[0] == w->nchar && head[1] == w->nloop && head[2] == w->opt.maxContacts;
  for (int ci = 0; ok && ci < w->nchar; ci++) {
    int n = -1;
    hsu_bytesGet(in, &n, sizeof n);
    ok = n == w->chars[ci].body->nlink;
  }
  return ok && !in->bad;
}

int hsd_saveState(const hsdWorld *w, hsuBytes *out, hsError *err) {
  if (!w || !w->initialised) {
    return HS_ERR(err, hsE_ORDER, "no state to save before the simulation starts");
  }
  putShape(w, out);
  uint64_t nstart = w->start.n;
  hsu_bytesPut(out, &nstart, sizeof nstart);
  hsu_bytesPut(out, w->start.data, w->start.n);
  // the world's scalars
  hsu_bytesPut(out, &w->opt, sizeof w->opt);
  hsu_bytesPut(out, &w->dt, sizeof w->dt);
  hsu_bytesPut(out, w->g, sizeof w->g);
  hsu_bytesPut(out, &w->time, sizeof w->time);
  hsu_bytesPut(out, &w->steps, sizeof w->steps);
  int when = whenCode(w->runawayWhen);
  int ints[4] = {w->runaway, when, w->warnings, w->lastRows};
  hsu_bytesPut(out, ints, sizeof ints);
  hsu_bytesPut(out, &w->warned, sizeof w->warned);
  hsu_bytesPut(out, &w->seed, sizeof w->seed);
  hsu_bytesPut(out, &w->quickSteps, sizeof w->quickSteps);
  // the last step's contacts
  int nc[2] = {w->ncontact, w->ngroup};
  hsu_bytesPut(out, nc, sizeof nc);
  hsu_bytesPut(out, w->contacts, (size_t)w->ncontact * sizeof *w->contacts);
  hsu_bytesPut(out, w->contactJoint, (size_t)w->ncontact * sizeof *w->contactJoint);
  hsu_bytesPut(out, w->contactIsland, 3 * (size_t)w->ncontact * sizeof *w->contactIsland);
  hsu_bytesPut(out, w->groups, (size_t)w->ngroup * sizeof *w->groups);
  for (int ci = 0; ci < w->nchar; ci++) {
    putCharacter(w, &w->chars[ci], out);
  }
  for (int i = 0; i < w->nloop; i++) {
    const hsdLoop *lp = &w->loops[i];
    hsu_bytesPut(out, &lp->fb, sizeof lp->fb);
    hsu_bytesPut(out, lp->cPre, sizeof lp->cPre);
    hsu_bytesPut(out, lp->aPre, sizeof lp->aPre);
    hsu_bytesPut(out, lp->force, sizeof lp->force);
  }
  eachBody(w, putBody, out);
  hsd_jsSaveContacts(w, out);
  if (out->bad) {
    return HS_ERR(err, hsE_NOMEM, "out of memory for a saved state");
  }
  return 0;
}

// every record after the start overwritten from in; -1 when in is damaged
static int loadCurrent(hsdWorld *w, hsuBytes *in) {
  hsu_bytesGet(in, &w->opt, sizeof w->opt);
  hsu_bytesGet(in, &w->dt, sizeof w->dt);
  hsu_bytesGet(in, w->g, sizeof w->g);
  hsu_bytesGet(in, &w->time, sizeof w->time);
  hsu_bytesGet(in, &w->steps, sizeof w->steps);
  int ints[4] = {0, 0, 0, 0};
  hsu_bytesGet(in, ints, sizeof ints);
  w->runaway = ints[0];
  w->runawayWhen = ints[1] == 0 ? NULL : ints[1] == 1 ? "before" : "after";
  w->warnings = ints[2];
  w->lastRows = ints[3];
  hsu_bytesGet(in, &w->warned, sizeof w->warned);
  hsu_bytesGet(in, &w->seed, sizeof w->seed);
  hsu_bytesGet(in, &w->quickSteps, sizeof w->quickSteps);
  int nc[2] = {0, 0};
  hsu_bytesGet(in, nc, sizeof nc);
  if (in->bad || nc[0] < 0 || nc[0] > w->opt.maxContacts || nc[1] < 0 || nc[1] > nc[0]) {
    return -1;
  }
  w->ncontact = nc[0];
  w->ngroup = nc[1];
  hsu_bytesGet(in, w->contacts, (size_t)w->ncontact * sizeof *w->contacts);
  hsu_bytesGet(in, w->contactJoint, (size_t)w->ncontact * sizeof *w->contactJoint);
  hsu_bytesGet(in, w->contactIsland, 3 * (size_t)w->ncontact * sizeof *w->contactIsland);
  hsu_bytesGet(in, w->groups, (size_t)w->ngroup * sizeof *w->groups);
  for (int ci = 0; ci < w->nchar && !in->bad; ci++) {
    getCharacter(&w->chars[ci], in);
  }
  for (int i = 0; i < w->nloop; i++) {
    hsdLoop *lp = &w->loops[i];
    hsu_bytesGet(in, &lp->fb, sizeof lp->fb);
    hsu_bytesGet(in, lp->cPre, sizeof lp->cPre);
    hsu_bytesGet(in, lp->aPre, sizeof lp->aPre);
    hsu_bytesGet(in, lp->force, sizeof lp->force);
  }
  if (in->bad) {
    return -1;
  }
  eachBody(w, getBody, in);
  if (hsd_jsRestoreContacts(w, in) < 0 || in->bad) {
    return -1;
  }
  dWorldSetGravity(w->world, w->g[0], w->g[1], w->g[2]);
  hsd_placeAllShapes(w);
  return 0;
}

int hsd_restoreState(hsdWorld *w, hsuBytes *in, hsError *err) {
  if (!w) {
    return HS_ERR(err, hsE_INVALID, "no world");
  }
  if (!shapeMatches(w, in)) {
    return HS_ERR(err, hsE_INVALID, "the saved state is for other characters (their number, "
                  "links or extra joints differ)");
  }
  uint64_t nstart = 0;
  hsu_bytesGet(in, &nstart, sizeof nstart);
  if (in->bad || nstart > in->n - in->pos) {
    return HS_ERR(err, hsE_INVALID, "the saved state is damaged (its start record)");
  }
  const unsigned char *start = in->data + in->pos;
  in->pos += (size_t)nstart;
  int same = w->initialised && nstart == w->start.n &&
             memcmp(start, w->start.data, (size_t)nstart) == 0;
  if (!same) {
    hsuBytes s = {(unsigned char *)start, (size_t)nstart, (size_t)nstart, 0, 0};
    loadStart(w, &s);
    if (s.bad || s.pos != s.n) {
      return HS_ERR(err, hsE_INVALID, "the saved state is damaged (its start record)");
    }
    if (hsd_init(w, err) < 0) {
      return err ? err->code : hsE_INVALID;
    }
  }
  if (loadCurrent(w, in) < 0) {
    return HS_ERR(err, hsE_INVALID, "the saved state is damaged (its size does not match the "
                  "characters')");
  }
  return 0;
}
