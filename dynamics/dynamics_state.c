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
// - Each ODE body's position, quaternion and rotation matrix (the joint-space engine's placed
//   from the state first: it places them only when they are read) are written through the
//   pointers ODE's getters return (dBodySetQuaternion and dBodySetRotation would renormalise and
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

void hsd_bodyStateBytes(const hsBodyState *st, hsuBytes *b, int save) {
  size_t n = (size_t)st->body->nlink;
  hsBodyState *s = (hsBodyState *)st;  // written only when restoring (save == 0)
  hsu_bytesField(b, save, s->q, n * sizeof *s->q);
  hsu_bytesField(b, save, s->dq, n * sizeof *s->dq);
  hsu_bytesField(b, save, s->ddq, n * sizeof *s->ddq);
  hsu_bytesField(b, save, s->u, n * sizeof *s->u);
  hsu_bytesField(b, save, s->rootP, sizeof s->rootP);
  hsu_bytesField(b, save, s->rootR, sizeof s->rootR);
  hsu_bytesField(b, save, s->linkP, 3 * n * sizeof *s->linkP);
  hsu_bytesField(b, save, s->linkR, 9 * n * sizeof *s->linkR);
}

// a character's input (every array of hsdInput), saved or restored
static void inputBytes(hsdCharacter *c, hsuBytes *b, int save) {
  size_t n = (size_t)c->body->nlink;
  hsu_bytesField(b, save, c->in.mode, n * sizeof *c->in.mode);
  hsu_bytesField(b, save, c->in.flags, n * sizeof *c->in.flags);
  hsu_bytesField(b, save, c->in.q, 10 * n * sizeof *c->in.q);  // the pool: q .. ext
  hsu_bytesField(b, save, c->in.rootP, sizeof c->in.rootP);
  hsu_bytesField(b, save, c->in.rootR, sizeof c->in.rootR);
  hsu_bytesField(b, save, c->in.rootV, sizeof c->in.rootV);
  hsu_bytesField(b, save, c->in.rootW, sizeof c->in.rootW);
}

// what hsd_init builds from, saved or restored
static void startBytes(hsdWorld *w, hsuBytes *b, int save) {
  hsu_bytesField(b, save, &w->opt, sizeof w->opt);
  hsu_bytesField(b, save, w->g, sizeof w->g);
  hsu_bytesField(b, save, &w->dt, sizeof w->dt);
  for (int ci = 0; ci < w->nchar; ci++) {
    hsdCharacter *c = &w->chars[ci];
    hsd_bodyStateBytes(c->state, b, save);
    hsu_bytesField(b, save, c->motion, (size_t)c->body->nlink * sizeof *c->motion);
    inputBytes(c, b, save);
  }
}

void hsd_noteStart(hsdWorld *w) {
  w->start.n = w->start.pos = 0;
  w->start.bad = 0;
  startBytes(w, &w->start, 1);
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

// one ODE body, saved or restored (arg: a BodyIo): position, quaternion and rotation matrix as
// ODE holds them, velocities, enabled and kinematic flags
typedef struct BodyIo {
  hsuBytes *b;
  int save;
} BodyIo;

static void bodyBytes(dBodyID body, void *arg) {
  const BodyIo *io = arg;
  hsuBytes *b = io->b;
  dReal pos[3], lv[3], av[3];
  memcpy(pos, dBodyGetPosition(body), sizeof pos);
  memcpy(lv, dBodyGetLinearVel(body), sizeof lv);
  memcpy(av, dBodyGetAngularVel(body), sizeof av);
  int flags[2] = {dBodyIsEnabled(body), dBodyIsKinematic(body)};
  hsu_bytesField(b, io->save, pos, sizeof pos);
  // the orientation bit for bit through ODE's own arrays (its setters renormalise); ODE's
  // getters return pointers into the body, which is not const
  hsu_bytesField(b, io->save, (dReal *)dBodyGetQuaternion(body), 4 * sizeof(dReal));
  hsu_bytesField(b, io->save, (dReal *)dBodyGetRotation(body), 12 * sizeof(dReal));
  hsu_bytesField(b, io->save, lv, sizeof lv);
  hsu_bytesField(b, io->save, av, sizeof av);
  hsu_bytesField(b, io->save, flags, sizeof flags);
  if (io->save || b->bad) {
    return;
  }
  dBodySetPosition(body, pos[0], pos[1], pos[2]);
  if (flags[1]) {
    dBodySetKinematic(body);
  } else if (dBodyIsKinematic(body)) {
    dBodySetDynamic(body);
  }
  dBodySetLinearVel(body, lv[0], lv[1], lv[2]);
  dBodySetAngularVel(body, av[0], av[1], av[2]);
  if (flags[0]) {
    dBodyEnable(body);
  } else {
    dBodyDisable(body);
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

// the motors of character c's joints, saved or restored: enabled, and the limit-motor
// parameters (ODE's setters store stops, velocity and the rest as given, in any order)
static void jointBytes(hsdCharacter *c, hsuBytes *b, int save) {
  for (int k = 0; k < c->body->nlink; k++) {
    hsdLinkOde *l = &c->links[k];
    if (!l->joint) {
      continue;
    }
    int on = dJointIsEnabled(l->joint);
    hsu_bytesField(b, save, &on, sizeof on);
    if (!save && !b->bad) {
      if (on) {
        dJointEnable(l->joint);
      } else {
        dJointDisable(l->joint);
      }
    }
    for (int p = 0; p < NPARAMS; p++) {
      dReal v = jointParam(l->joint, l->jkind, kParams[p]);
      hsu_bytesField(b, save, &v, sizeof v);
      if (!save && !b->bad) {
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

// character c's per-link records, saved or restored: everything but the ODE handles (this
// world's), the contact attachment by what it is (none, the link's own body, the composite)
static void linkBytes(hsdCharacter *c, hsuBytes *b, int save) {
  for (int k = 0; k < c->body->nlink && !b->bad; k++) {
    hsdLinkOde *l = &c->links[k], copy;
    int att = attCode(c, l);
    HS_ASSERT(att < 3);
    memcpy(&copy, l, sizeof copy);
    copy.body = NULL;
    copy.joint = NULL;
    copy.att = NULL;
    hsu_bytesField(b, save, &att, sizeof att);
    hsu_bytesField(b, save, &copy, sizeof copy);
    if (!save && !b->bad) {
      copy.body = l->body;
      copy.joint = l->joint;
      copy.att = att == 1 ? l->body : att == 2 ? c->cbody : NULL;
      *l = copy;
    }
  }
}

// everything of character c that changes after hsd_init, saved or restored
static void characterBytes(hsdCharacter *c, hsuBytes *b, int save) {
  size_t n = (size_t)c->body->nlink;
  hsd_bodyStateBytes(c->state, b, save);
  hsu_bytesField(b, save, c->motion, n * sizeof *c->motion);
  inputBytes(c, b, save);
  int *ints[] = {&c->nExt, &c->teleported, &c->remode, &c->posesTouched, &c->resynced,
                 &c->needWrench, &c->still, &c->restN, &c->restPrev, &c->restUp,
                 &c->jsIdle};
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
    hsu_bytesField(b, save, ints[i], sizeof *ints[i]);
  }
  linkBytes(c, b, save);
  hsu_bytesField(b, save, &c->rep, sizeof c->rep);
  hsu_bytesField(b, save, c->pHold, sizeof c->pHold);
  hsu_bytesField(b, save, c->RHold, sizeof c->RHold);
  hsu_bytesField(b, save, c->linkWrench, n * sizeof *c->linkWrench);
  hsu_bytesField(b, save, c->subW, n * sizeof *c->subW);
  hsu_bytesField(b, save, c->restSum, sizeof c->restSum);
  hsu_bytesField(b, save, c->restMean, sizeof c->restMean);
  hsu_bytesField(b, save, &c->rest, sizeof c->rest);
  double *vecs[] = {c->P, c->L, c->com, c->PInt, c->LInt, c->bo, c->vRoot, c->wRoot};
  for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++) {
    hsu_bytesField(b, save, vecs[i], 3 * sizeof(double));
  }
  hsu_bytesField(b, save, &c->M, sizeof c->M);
  hsu_bytesField(b, save, c->Ic, sizeof c->Ic);
  jointBytes(c, b, save);
  int js = c->jsd != NULL, saved = js;
  hsu_bytesField(b, save, &saved, sizeof saved);
  if (saved != js) {
    b->bad = 1;  // a state of the other engine's records (the start would have said)
  } else if (js) {
    hsd_jsDataBytes(c->jsm, c->jsd, b, save);
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

// everything of the world that changes after hsd_init, saved or restored; -1 when a restore
// meets a damaged record (b->bad)
static int currentBytes(hsdWorld *w, hsuBytes *b, int save) {
  hsu_bytesField(b, save, &w->opt, sizeof w->opt);
  hsu_bytesField(b, save, &w->dt, sizeof w->dt);
  hsu_bytesField(b, save, w->g, sizeof w->g);
  hsu_bytesField(b, save, &w->time, sizeof w->time);
  hsu_bytesField(b, save, &w->steps, sizeof w->steps);
  int when = whenCode(w->runawayWhen);
  int *ints[] = {&w->runaway, &when, &w->warnings, &w->lastRows};
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
    hsu_bytesField(b, save, ints[i], sizeof *ints[i]);
  }
  if (!save) {
    w->runawayWhen = when == 0 ? NULL : when == 1 ? "before" : "after";
  }
  hsu_bytesField(b, save, &w->warned, sizeof w->warned);
  hsu_bytesField(b, save, &w->seed, sizeof w->seed);
  hsu_bytesField(b, save, &w->quickSteps, sizeof w->quickSteps);
  // the last step's contacts
  int nc[2] = {w->ncontact, w->ngroup};
  hsu_bytesField(b, save, nc, sizeof nc);
  if (b->bad || nc[0] < 0 || nc[0] > w->opt.maxContacts || nc[1] < 0 || nc[1] > nc[0]) {
    b->bad = 1;
    return -1;
  }
  if (!save) {
    w->ncontact = nc[0];
    w->ngroup = nc[1];
  }
  hsu_bytesField(b, save, w->contacts, (size_t)w->ncontact * sizeof *w->contacts);
  hsu_bytesField(b, save, w->contactJoint, (size_t)w->ncontact * sizeof *w->contactJoint);
  hsu_bytesField(b, save, w->contactIsland,
                 3 * (size_t)w->ncontact * sizeof *w->contactIsland);
  hsu_bytesField(b, save, w->groups, (size_t)w->ngroup * sizeof *w->groups);
  for (int ci = 0; ci < w->nchar && !b->bad; ci++) {
    characterBytes(&w->chars[ci], b, save);
  }
  for (int i = 0; i < w->nloop; i++) {
    hsdLoop *lp = &w->loops[i];
    hsu_bytesField(b, save, &lp->fb, sizeof lp->fb);
    hsu_bytesField(b, save, lp->cPre, sizeof lp->cPre);
    hsu_bytesField(b, save, lp->aPre, sizeof lp->aPre);
    hsu_bytesField(b, save, lp->force, sizeof lp->force);
    hsu_bytesField(b, save, lp->jsImp, sizeof lp->jsImp);
  }
  if (b->bad) {
    return -1;
  }
  BodyIo io = {b, save};
  for (int ci = 0; save && ci < w->nchar; ci++) {
    hsd_syncOdeBodies(w, ci);  // (the joint-space engine places them only when they are read)
  }
  eachBody(w, bodyBytes, &io);
  for (int ci = 0; !save && ci < w->nchar; ci++) {
    w->chars[ci].bodiesStale = 0;  // (every body written)
  }
  if (save) {
    hsd_jsSaveContacts(w, b);
    return b->bad ? -1 : 0;
  }
  if (hsd_jsRestoreContacts(w, b) < 0 || b->bad) {
    return -1;
  }
  dWorldSetGravity(w->world, w->g[0], w->g[1], w->g[2]);
  hsd_placeAllShapes(w);
  return 0;
}

int hsd_saveState(const hsdWorld *w, hsuBytes *out, hsError *err) {
  if (!w || !w->initialised) {
    return HS_ERR(err, hsE_ORDER, "no state to save before the simulation starts");
  }
  putShape(w, out);
  uint64_t nstart = w->start.n;
  hsu_bytesPut(out, &nstart, sizeof nstart);
  hsu_bytesPut(out, w->start.data, w->start.n);
  // (saving only reads the world, and places the joint-space engine's ODE bodies where the
  // state already says they are)
  if (currentBytes((hsdWorld *)w, out, 1) < 0) {
    return HS_ERR(err, hsE_NOMEM, "out of memory for a saved state");
  }
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
    startBytes(w, &s, 0);
    if (s.bad || s.pos != s.n) {
      return HS_ERR(err, hsE_INVALID, "the saved state is damaged (its start record)");
    }
    if (hsd_init(w, err) < 0) {
      return err ? err->code : hsE_INVALID;
    }
  }
  if (currentBytes(w, in, 0) < 0) {
    return HS_ERR(err, hsE_INVALID, "the saved state is damaged (its size does not match the "
                  "characters')");
  }
  return 0;
}
