// dynamics_loops.c - closed loops (OpenHRP's ExtraJoint) in the ODE world.
//
// An extra joint ties point p1 of link1 (link1 frame) to point p2 of link2 (link2 frame). ODE
// has no point-on-line or point-on-plane joint, so the directions a loop leaves free are made
// of ODE sliders through small auxiliary bodies:
// - xyz: a ball joint between the two links' bodies, anchored at p1 on link1 and p2 on link2;
// - xy:  an auxiliary body A slides on link1 along the axis (a slider: A keeps link1's
//        orientation and stays on the line through p1 along the axis) and carries a ball joint
//        to p2 on link2, so p2 may move only along that line (and turn freely);
// - z:   two auxiliary bodies slide along two directions across the axis (A1 on link1, A2 on
//        A1), then a ball to link2: p2 may move only in the plane through p1 across the axis.
// Anchors are set separately on each side, so a loop that is not closed at the start is pulled
// shut by the joints' error reduction (the world's ERP) instead of being frozen open. The
// auxiliary bodies weigh 1e-4 of the lighter moving side (gravity off): their inertia changes
// the dynamics by that fraction, well inside every tolerance we test (1%), while keeping the
// direct solver's matrices well conditioned.
//
// The force a loop transmits is the ball joint's feedback: the force on link2's side (or the
// opposite of the force on the other side when link2 is static) and its moment about p2.
//
// A loop only works with joint dynamics, so a character with one is always articulated
// (dynamics_servo.c's hsd_chooseRep). A loop that nothing on it can give way to (every joint
// on the tree path between its links high gain or fixed; for two characters also each root
// fixed or position given) over-constrains the system: the servos' commands would have to
// satisfy the loop exactly. hsd_init and hsd_step refuse such a configuration with an error
// naming the loop, rather than letting ODE tear the loop or fight the motors.

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "dynamics_private.h"

//---------------------------------- records ---------------------------------------------------

// 1 if name is used by a loop touching character ch
static int nameTaken(const hsdWorld *w, int ch, const char *name) {
  return hsd_extraJointIndex(w, ch, name) >= 0;
}

int hsd_addExtraJoint(hsdWorld *w, const char *name, int ch1, int link1, int ch2, int link2,
                      const double p1[3], const double p2[3], hstExtraJoint type,
                      const double axis[3], hsError *err) {
  if (!w) {
    return HS_ERR(err, hsE_INVALID, "no world");
  }
  if (w->initialised) {
    return HS_ERR(err, hsE_INVALID, "extra joints must be added before the simulation starts");
  }
  if (!name || !*name) {
    return HS_ERR(err, hsE_INVALID, "an extra joint needs a name");
  }
  if (hsd_checkLink(w, ch1, link1, err) < 0 || hsd_checkLink(w, ch2, link2, err) < 0) {
    return hsE_INVALID;
  }
  if (ch1 == ch2 && link1 == link2) {
    return HS_ERR(err, hsE_INVALID, "extra joint '%s': link1 and link2 are the same link (%s)",
                  name, w->chars[ch1].body->links[link1].name);
  }
  if (!hsm_extraJointTypeName(type)) {
    return HS_ERR(err, hsE_INVALID, "extra joint '%s': unknown joint type %d", name, (int)type);
  }
  if (!p1 || !p2 || !axis || !hsd_sane(p1, 3) || !hsd_sane(p2, 3) || !hsd_sane(axis, 3)) {
    return HS_ERR(err, hsE_INVALID, "extra joint '%s': positions and axis must be finite (and "
                  "below 1e12)", name);
  }
  double n = hsu_norm(axis);
  if (type != hsEXTRA_XYZ && !(n > 1e-9)) {
    return HS_ERR(err, hsE_INVALID, "extra joint '%s': an \"%s\" joint needs a non-zero axis",
                  name, hsm_extraJointTypeName(type));
  }
  if (nameTaken(w, ch1, name) || nameTaken(w, ch2, name)) {
    return HS_ERR(err, hsE_INVALID, "an extra joint named '%s' exists already for %s", name,
                  nameTaken(w, ch1, name) ? w->chars[ch1].name : w->chars[ch2].name);
  }
  if (w->nloop == w->capLoop) {
    int cap = w->capLoop ? 2 * w->capLoop : 4;
    hsdLoop *l = hsu_realloc(w->loops, (size_t)cap * sizeof *l);
    if (!l) {
      return HS_ERR(err, hsE_NOMEM, "out of memory");
    }
    w->loops = l;
    w->capLoop = cap;
  }
  hsdLoop *l = &w->loops[w->nloop];
  memset(l, 0, sizeof *l);
  l->name = hsu_strdup(name);
  if (!l->name) {
    return HS_ERR(err, hsE_NOMEM, "out of memory");
  }
  l->ch[0] = ch1;
  l->ch[1] = ch2;
  l->link[0] = link1;
  l->link[1] = link2;
  memcpy(l->p[0], p1, sizeof l->p[0]);
  memcpy(l->p[1], p2, sizeof l->p[1]);
  l->type = type;
  for (int j = 0; j < 3; j++) {
    l->axis[j] = n > 1e-9 ? axis[j] / n : (j == 0);
  }
  w->chars[ch1].nloop++;
  if (ch2 != ch1) {
    w->chars[ch2].nloop++;
  }
  return w->nloop++;
}

int hsd_addModelLoops(hsdWorld *w, int ch, hsError *err) {
  const hsBody *b = w->chars[ch].body;
  for (int i = 0; i < b->nextraJoint; i++) {
    const hsExtraJoint *e = &b->extraJoints[i];
    if (hsd_addExtraJoint(w, e->name, ch, e->link[0], ch, e->link[1], e->point[0], e->point[1],
                          e->type, e->axis, err) < 0) {
      return hsE_INVALID;
    }
  }
  return 0;
}

void hsd_freeLoops(hsdWorld *w) {
  for (int i = 0; i < w->nloop; i++) {
    hsu_free(w->loops[i].name);
  }
  hsu_free(w->loops);
  hsu_free(w->loopWork);
  hsu_free(w->loopMoved);
  w->loops = NULL;
  w->loopWork = NULL;
  w->loopMoved = NULL;
  w->nloop = w->capLoop = 0;
}

int hsd_setJointOptions(hsdWorld *w, int jointLimits, int rotorInertia, hsError *err) {
  if (!w) {
    return HS_ERR(err, hsE_INVALID, "no world");
  }
  if (w->initialised) {
    return HS_ERR(err, hsE_ORDER, "joint options must be set before the simulation starts");
  }
  if (jointLimits < 0 || jointLimits > hsLIMIT_ALL) {
    return HS_ERR(err, hsE_INVALID, "joint limits %d: not a set of hsLIMIT_* bits (0..%d)",
                  jointLimits, hsLIMIT_ALL);
  }
  w->opt.jointLimits = jointLimits;
  w->opt.rotorInertia = rotorInertia != 0;
  return 0;
}

int hsd_setJointLimits(hsdWorld *w, int jointLimits, hsError *err) {
  return hsd_setJointOptions(w, jointLimits, w ? w->opt.rotorInertia : 0, err);
}

int hsd_extraJointCount(const hsdWorld *w) {
  return w ? w->nloop : 0;
}

int hsd_extraJointIndex(const hsdWorld *w, int ch, const char *name) {
  if (!w || !name) {
    return -1;
  }
  for (int i = 0; i < w->nloop; i++) {
    const hsdLoop *l = &w->loops[i];
    if ((l->ch[0] == ch || l->ch[1] == ch) && strcmp(l->name, name) == 0) {
      return i;
    }
  }
  return -1;
}

const char *hsd_extraJointName(const hsdWorld *w, int i, int ch[2], int link[2]) {
  if (!w || i < 0 || i >= w->nloop) {
    return NULL;
  }
  const hsdLoop *l = &w->loops[i];
  for (int k = 0; k < 2; k++) {
    if (ch) {
      ch[k] = l->ch[k];
    }
    if (link) {
      link[k] = l->link[k];
    }
  }
  return l->name;
}

int hsd_extraJointForce(const hsdWorld *w, int i, double out[6]) {
  if (!w || i < 0 || i >= w->nloop || !out) {
    return hsE_INVALID;
  }
  memcpy(out, w->loops[i].force, sizeof w->loops[i].force);
  return 0;
}

// world position of loop point k (0: on link1, 1: on link2) at the state's link poses
static void loopPoint(const hsdWorld *w, const hsdLoop *l, int k, double out[3]) {
  const hsBodyState *st = w->chars[l->ch[k]].state;
  double x[3];
  hsu_rotVec(x, st->linkR + 9 * l->link[k], l->p[k]);
  for (int j = 0; j < 3; j++) {
    out[j] = st->linkP[3 * l->link[k] + j] + x[j];
  }
}

// the loop's axis in the world at the state's pose of link1
static void loopAxis(const hsdWorld *w, const hsdLoop *l, double a[3]) {
  hsu_rotVec(a, w->chars[l->ch[0]].state->linkR + 9 * l->link[0], l->axis);
}

double hsd_extraJointError(const hsdWorld *w, int i) {
  if (!w || i < 0 || i >= w->nloop) {
    return -1;
  }
  const hsdLoop *l = &w->loops[i];
  double a[3], b[3], d[3], ax[3];
  loopPoint(w, l, 0, a);
  loopPoint(w, l, 1, b);
  loopAxis(w, l, ax);
  for (int j = 0; j < 3; j++) {
    d[j] = b[j] - a[j];
  }
  double along = hsu_dot(d, ax);
  if (l->type == hsEXTRA_Z) {
    return fabs(along);
  }
  if (l->type == hsEXTRA_XY) {
    for (int j = 0; j < 3; j++) {
      d[j] -= along * ax[j];
    }
  }
  return hsu_norm(d);
}

//---------------------------------- over-constraint -------------------------------------------

// joints that move under dynamics (torque-mode 1-dof joints) on the path from link k of c up to
// (not including) ancestor `stop` (-1: through the root, whose freedom counts too)
static int dofUpTo(const hsdCharacter *c, int k, int stop) {
  const hsBody *b = c->body;
  int n = 0;
  for (; k > 0 && k != stop; k = b->links[k].parent) {
    if (hsm_hasOneDofJoint(&b->links[k]) && !hsd_servoed(c, k)) {
      n++;
    }
  }
  if (stop < 0 && k == 0 && b->links[0].jointType == hsJOINT_FREE && !hsd_servoed(c, 0)) {
    n += 6;
  }
  return n;
}

// 1 if link a is link k or an ancestor of it
static int isAncestor(const hsBody *b, int a, int k) {
  for (; k >= 0; k = b->links[k].parent) {
    if (k == a) {
      return 1;
    }
  }
  return 0;
}

// the degrees of freedom under dynamics around loop l
static int loopDof(const hsdWorld *w, const hsdLoop *l) {
  const hsdCharacter *c1 = &w->chars[l->ch[0]], *c2 = &w->chars[l->ch[1]];
  if (l->ch[0] != l->ch[1]) {
    return dofUpTo(c1, l->link[0], -1) + dofUpTo(c2, l->link[1], -1);
  }
  // the common ancestor of the two links
  int anc = l->link[0];
  while (!isAncestor(c1->body, anc, l->link[1])) {
    anc = c1->body->links[anc].parent;
  }
  return dofUpTo(c1, l->link[0], anc) + dofUpTo(c1, l->link[1], anc);
}

int hsd_checkLoops(const hsdWorld *w, hsError *err) {
  for (int i = 0; i < w->nloop; i++) {
    const hsdLoop *l = &w->loops[i];
    if (loopDof(w, l) == 0) {
      const hsdCharacter *c1 = &w->chars[l->ch[0]], *c2 = &w->chars[l->ch[1]];
      return HS_ERR(err, hsE_INVALID,
                    "extra joint '%s' (%s %s - %s %s) over-constrains its loop: every joint on "
                    "it is high gain or fixed%s, so the servos' commands would have to close "
                    "the loop exactly; put at least one of its joints in torque mode",
                    l->name, c1->name, c1->body->links[l->link[0]].name, c2->name,
                    c2->body->links[l->link[1]].name,
                    l->ch[0] != l->ch[1] ? " and each root fixed or position given" : "");
    }
  }
  return 0;
}

//---------------------------------- ODE -------------------------------------------------------

void hsd_forgetLoops(hsdWorld *w) {
  for (int i = 0; i < w->nloop; i++) {
    hsdLoop *l = &w->loops[i];
    l->aux[0] = l->aux[1] = NULL;
    l->slider[0] = l->slider[1] = NULL;
    l->ball = NULL;
    memset(l->force, 0, sizeof l->force);
    memset(l->jsImp, 0, sizeof l->jsImp);
  }
}

// an auxiliary body of mass m at p with rotation R (row-major), gravity off
static dBodyID makeAux(hsdWorld *w, double m, const double p[3], const double R[9]) {
  dBodyID b = dBodyCreate(w->world);
  dMass ms;
  double r = 0.01;  // an inertia of a 1 cm sphere of that mass
  dMassSetSphereTotal(&ms, m, r);
  dBodySetMass(b, &ms);
  dBodySetData(b, (void *)(intptr_t)(++w->nbody));
  dBodySetAutoDisableFlag(b, 0);
  dBodySetGravityMode(b, 0);
  dBodySetDamping(b, 0, 0);
  dBodySetPosition(b, p[0], p[1], p[2]);
  dMatrix3 mR;
  hsd_toOdeR(mR, R);
  dBodySetRotation(b, mR);
  return b;
}

// the velocity of the material point at world p of link k of character c (from its ODE body)
static void bodyPointVel(const hsdLinkOde *lo, const double p[3], double v[3]) {
  if (!lo->body) {
    v[0] = v[1] = v[2] = 0;
    return;
  }
  dVector3 r;
  dBodyGetPointVel(lo->body, p[0], p[1], p[2], r);
  for (int j = 0; j < 3; j++) {
    v[j] = r[j];
  }
}

// the total mass of the rigid group carrying link k of c (0 for the static group)
static double groupMass(const hsdLinkOde *lo) {
  if (!lo->body) {
    return 0;
  }
  dMass m;
  dBodyGetMass(lo->body, &m);
  return m.mass;
}

// anchor a ball joint at world point p1 on its body 1 and world point p2 on its body 2 (ODE's
// dJointSetBallAnchor2 takes body 2's frame, or the world's without a body 2)
static void anchorBall(dJointID j, const double p1[3], const double p2[3]) {
  dJointSetBallAnchor(j, p1[0], p1[1], p1[2]);
  dBodyID b2 = dJointGetBody(j, 1);
  double local[3];
  if (b2) {
    const dReal *c = dBodyGetPosition(b2);
    double R[9], d[3] = {p2[0] - c[0], p2[1] - c[1], p2[2] - c[2]};
    hsd_fromOdeR(R, dBodyGetRotation(b2));
    hsu_rotVecT(local, R, d);
  } else {
    memcpy(local, p2, sizeof local);
  }
  dJointSetBallAnchor2(j, local[0], local[1], local[2]);
}

// build loop l's ODE joints at the current poses
static void buildLoop(hsdWorld *w, hsdLoop *l) {
  hsdCharacter *c1 = &w->chars[l->ch[0]], *c2 = &w->chars[l->ch[1]];
  hsdLinkOde *lo1 = &c1->links[l->link[0]], *lo2 = &c2->links[l->link[1]];
  dBodyID B1 = lo1->body, B2 = lo2->body;
  double p1[3], p2[3], a[3];
  loopPoint(w, l, 0, p1);
  loopPoint(w, l, 1, p2);
  loopAxis(w, l, a);
  const double *R1 = c1->state->linkR + 9 * l->link[0];
  if (l->type == hsEXTRA_XYZ) {
    // body 1 of an ODE joint must exist: link2's side first when link1 is static
    l->ball = dJointCreateBall(w->world, 0);
    if (B1) {
      dJointAttach(l->ball, B1, B2);
      anchorBall(l->ball, p1, p2);
      l->link2Side = B2 ? 2 : 0;
    } else {
      dJointAttach(l->ball, B2, NULL);
      anchorBall(l->ball, p2, p1);
      l->link2Side = 1;
    }
  } else {
    double m1 = groupMass(lo1), m2 = groupMass(lo2);
    double m = 1e-4 * (m1 > 0 && m2 > 0 ? fmin(m1, m2) : fmax(m1, m2));
    if (!(m > 0)) {
      m = 1e-6;
    }
    // the directions the point may slide along, and the auxiliary bodies' places
    double dirs[2][3], d[3], at[3];
    int nslide = l->type == hsEXTRA_XY ? 1 : 2;
    if (nslide == 1) {
      memcpy(dirs[0], a, sizeof dirs[0]);
    } else {
      double e[3] = {0, 0, 0};
      e[fabs(a[0]) < 0.6 ? 0 : 1] = 1;
      double ea = hsu_dot(e, a);
      for (int j = 0; j < 3; j++) {
        dirs[0][j] = e[j] - ea * a[j];
      }
      double n = hsu_norm(dirs[0]);
      for (int j = 0; j < 3; j++) {
        dirs[0][j] /= n;
      }
      hsu_cross(dirs[1], a, dirs[0]);
    }
    for (int j = 0; j < 3; j++) {
      d[j] = p2[j] - p1[j];
      at[j] = p1[j];
    }
    dBodyID prev = B1;
    for (int s = 0; s < nslide; s++) {
      double along = hsu_dot(d, dirs[s]);
      for (int j = 0; j < 3; j++) {
        at[j] += along * dirs[s][j];
      }
      hsu_rotVecT(l->dirs[s], R1, dirs[s]);
      l->aux[s] = makeAux(w, m, at, R1);
      // moving with link1 (its point velocity and rotation): the sliders start at rest
      const dReal *w1 = lo1->body ? dBodyGetAngularVel(lo1->body) : NULL;
      double va[3];
      bodyPointVel(lo1, at, va);
      dBodySetLinearVel(l->aux[s], va[0], va[1], va[2]);
      if (w1) {
        dBodySetAngularVel(l->aux[s], w1[0], w1[1], w1[2]);
      }
      l->slider[s] = dJointCreateSlider(w->world, 0);
      dJointAttach(l->slider[s], l->aux[s], prev);
      dJointSetSliderAxis(l->slider[s], dirs[s][0], dirs[s][1], dirs[s][2]);
      prev = l->aux[s];
    }
    l->ball = dJointCreateBall(w->world, 0);
    dJointAttach(l->ball, prev, B2);
    anchorBall(l->ball, at, p2);
    l->link2Side = B2 ? 2 : 0;
  }
  memset(&l->fb, 0, sizeof l->fb);
  dJointSetFeedback(l->ball, &l->fb);
  memset(l->force, 0, sizeof l->force);
}

int hsd_buildLoops(hsdWorld *w, hsError *err) {
  for (int i = 0; i < w->nloop; i++) {
    hsdLoop *l = &w->loops[i];
    const hsdCharacter *c1 = &w->chars[l->ch[0]], *c2 = &w->chars[l->ch[1]];
    const hsdLinkOde *lo1 = &c1->links[l->link[0]], *lo2 = &c2->links[l->link[1]];
    if (!lo1->body && !lo2->body) {
      return HS_ERR(err, hsE_INVALID, "extra joint '%s' ties %s %s to %s %s, and neither can "
                    "move (both are fixed to the world)", l->name, c1->name,
                    c1->body->links[l->link[0]].name, c2->name, c2->body->links[l->link[1]].name);
    }
    if (lo1->body && lo1->body == lo2->body) {
      return HS_ERR(err, hsE_INVALID, "extra joint '%s' ties two links of one rigid group "
                    "(%s %s and %s): they cannot move relative to each other", l->name,
                    c1->name, c1->body->links[l->link[0]].name, c2->body->links[l->link[1]].name);
    }
  }
  if (hsd_checkLoops(w, err) < 0) {
    return hsE_INVALID;
  }
  for (int i = 0; i < w->nloop; i++) {
    buildLoop(w, &w->loops[i]);
  }
  // the joint-space engine's closing of the loops: room for two characters' rows
  hsu_free(w->loopWork);
  hsu_free(w->loopMoved);
  w->loopWork = NULL;
  w->loopMoved = NULL;
  if (w->opt.engine == hsENGINE_JOINT_SPACE && w->nloop > 0) {
    int most = 0;
    for (int ci = 0; ci < w->nchar; ci++) {
      most = w->chars[ci].body->nlink > most ? w->chars[ci].body->nlink : most;
    }
    w->loopWork = hsu_malloc(12 * (size_t)(most + 6) * sizeof *w->loopWork);
    w->loopMoved = hsu_calloc((size_t)w->nchar, 1);
    if (!w->loopWork || !w->loopMoved) {
      return HS_ERR(err, hsE_NOMEM, "out of memory");
    }
  }
  return 0;
}

void hsd_replaceLoops(hsdWorld *w) {
  for (int i = 0; i < w->nloop; i++) {
    hsdLoop *l = &w->loops[i];
    if (!l->aux[0] || !(w->chars[l->ch[0]].resynced || w->chars[l->ch[1]].resynced)) {
      continue;
    }
    // as buildLoop placed them: on link1, at p1 plus p2's offset along each slide direction,
    // oriented like link1 (the sliders keep that orientation), moving with link1
    const hsdLinkOde *lo1 = &w->chars[l->ch[0]].links[l->link[0]];
    const double *R1 = w->chars[l->ch[0]].state->linkR + 9 * l->link[0];
    double p1[3], p2[3], at[3], d[3];
    loopPoint(w, l, 0, p1);
    loopPoint(w, l, 1, p2);
    for (int j = 0; j < 3; j++) {
      d[j] = p2[j] - p1[j];
      at[j] = p1[j];
    }
    dMatrix3 mR;
    hsd_toOdeR(mR, R1);
    const dReal *w1 = lo1->body ? dBodyGetAngularVel(lo1->body) : NULL;
    for (int s = 0; s < 2 && l->aux[s]; s++) {
      double dir[3], va[3];
      hsu_rotVec(dir, R1, l->dirs[s]);
      double along = hsu_dot(d, dir);
      for (int j = 0; j < 3; j++) {
        at[j] += along * dir[j];
      }
      bodyPointVel(lo1, at, va);
      dBodySetPosition(l->aux[s], at[0], at[1], at[2]);
      dBodySetRotation(l->aux[s], mR);
      dBodySetLinearVel(l->aux[s], va[0], va[1], va[2]);
      dBodySetAngularVel(l->aux[s], w1 ? w1[0] : 0, w1 ? w1[1] : 0, w1 ? w1[2] : 0);
    }
  }
  for (int c = 0; c < w->nchar; c++) {
    w->chars[c].resynced = 0;
  }
}

void hsd_noteLoops(hsdWorld *w) {
  for (int i = 0; i < w->nloop; i++) {
    hsdLoop *l = &w->loops[i];
    if (!l->ball) {
      continue;
    }
    int side = l->link2Side == 2 ? 1 : 0;
    const dReal *bc = dBodyGetPosition(dJointGetBody(l->ball, side));
    dVector3 a;
    // link2's anchor: on body 2, on body 1, or (link2 static) the world point of anchor 2
    if (l->link2Side == 1) {
      dJointGetBallAnchor(l->ball, a);
    } else {
      dJointGetBallAnchor2(l->ball, a);
    }
    for (int j = 0; j < 3; j++) {
      l->cPre[j] = bc[j];
      l->aPre[j] = a[j];
    }
  }
}

void hsd_readLoopForces(hsdWorld *w) {
  for (int i = 0; i < w->nloop; i++) {
    hsdLoop *l = &w->loops[i];
    if (!l->ball) {
      continue;
    }
    // the wrench on the ODE side carrying link2 (or minus the other side's), about that body's
    // centre where the step started (where ODE's feedback takes its moments)
    double f[3], t[3], x[3];
    const dReal *fo = l->link2Side == 2 ? l->fb.f2 : l->fb.f1;
    const dReal *to = l->link2Side == 2 ? l->fb.t2 : l->fb.t1;
    double sgn = l->link2Side == 0 ? -1 : 1;
    for (int j = 0; j < 3; j++) {
      f[j] = sgn * fo[j];
      t[j] = sgn * to[j];
    }
    // moment about link2's attachment point: t + (c - p2) x f
    double r[3] = {l->cPre[0] - l->aPre[0], l->cPre[1] - l->aPre[1], l->cPre[2] - l->aPre[2]};
    hsu_cross(x, r, f);
    for (int j = 0; j < 3; j++) {
      l->force[j] = f[j];
      l->force[3 + j] = t[j] + x[j];
    }
  }
}

double hsd_jointConstraintTorque(const hsdWorld *w, int ch, int link) {
  if (hsd_checkLink(w, ch, link, NULL) < 0) {
    return 0;
  }
  const hsdCharacter *c = &w->chars[ch];
  const hsdLinkOde *l = &c->links[link];
  if (w->opt.engine == hsENGINE_JOINT_SPACE) {
    // the joint-space engine: a high-gain joint's torque, else its limit and motor rows'
    if (!c->jsm || c->jsm->linkDof[link] < 0) {
      return 0;
    }
    return hsd_servoed(c, link) ? c->state->u[link] : (l->jsLimit + l->jsMotor) / w->dt;
  }
  if (l->jkind == hsdODE_NONE || c->rep != hsdREP_ARTICULATED || !l->body) {
    return 0;
  }
  const hsBodyState *st = c->state;
  double a[3];
  hsd_worldAxis(a, &c->body->links[link], st->linkR + 9 * link);
  double f[3] = {l->fb.f1[0], l->fb.f1[1], l->fb.f1[2]};
  if (l->jkind == hsdODE_SLIDER) {
    return hsu_dot(a, f);
  }
  const dReal *c1 = dBodyGetPosition(l->body);
  double r[3], x[3];
  for (int j = 0; j < 3; j++) {
    r[j] = c1[j] - st->linkP[3 * link + j];
  }
  hsu_cross(x, r, f);
  double t[3] = {l->fb.t1[0] + x[0], l->fb.t1[1] + x[1], l->fb.t1[2] + x[2]};
  return hsu_dot(a, t);
}

//---------------------------------- joint-space engine: closing the loops ---------------------
//
// The joint-space engine holds a loop by velocity rows (dynamics_jscontact.c: the relative
// velocity of its points along the directions it constrains, target 0), which leave the
// positions' second-order drift: q + dt v moves along the loop's tangent, not its curve, so a
// crank at 2 rad/s opens by about (dt w)^2 r a step (with Baumgarte's bias -erp error / dt, as
// those rows had, it settled at that over erp: 2.3e-6 m; the ODE engine's joints: 5e-7 m).
// After the step's positions are integrated, hsd_jsCloseLoops takes them back onto the loop:
// Gauss-Newton at the new poses in the mass matrix's metric (dq = M^-1 J^T lambda with
// J dq = -error: the least change of kinetic measure, given dofs kept; equal and opposite on
// the loop's two sides, so a free character's centre of mass stays), a pass over the loops at
// a time until each is within JS_LOOP_TOL (a pass leaves of the order of e^2 / r of an error e
// on a loop of size r: the four-bar's 1e-6 m goes in one or two). Velocities stay as solved.
// Cost: the four-bar's step 24k -> 35k instructions (callgrind), most of it the moved
// character's forward kinematics and (then) its ODE bodies placed again, which now wait until
// something reads them (hsd_jsPlaceBodies).

#define JS_LOOP_TOL 1e-12    // a loop this near closed [m] is left as it is
#define JS_LOOP_PASSES 4     // at most this many passes over the loops a step
#define JS_LOOP_REACH 1e-4   // a pass moves a loop by at most this [m]: a loop opened wider (a
                             // model not closed at the start) closes over some steps

// 1 if character ci moves in this step of the joint-space engine
static int jsMoves(const hsdWorld *w, int ci) {
  const hsdCharacter *c = &w->chars[ci];
  return !c->still && c->jsm && c->jsd && !hsd_jsAsleep(w, ci);
}

// loop l's constrained directions (world, rows of dir: xyz the world's axes, xy two across its
// axis, z the axis) and its error along them at the state's poses; at[0] its point p2 on link2,
// at[1] link1's point where the rows act (p1 for xyz; for xy and z link1's point where p2 is,
// so that the rows' turning with link1 is in J); returns the number of rows
static int loopRows(const hsdWorld *w, const hsdLoop *l, double dir[9], double e[3],
                    double at[2][3]) {
  double p1[3], p2[3], d[3], ax[3];
  loopPoint(w, l, 0, p1);
  loopPoint(w, l, 1, p2);
  loopAxis(w, l, ax);
  for (int j = 0; j < 3; j++) {
    d[j] = p2[j] - p1[j];
    at[0][j] = p2[j];
    at[1][j] = l->type == hsEXTRA_XYZ ? p1[j] : p2[j];
  }
  int n = l->type == hsEXTRA_XYZ ? 3 : l->type == hsEXTRA_XY ? 2 : 1;
  if (n == 3) {
    for (int r = 0; r < 9; r++) {
      dir[r] = r % 4 == 0 ? 1 : 0;
    }
  } else if (n == 2) {
    // the world axis least along the axis, crossed with it, and the third direction
    double x[3] = {0, 0, 0};
    int k = fabs(ax[0]) <= fabs(ax[1]) ? (fabs(ax[0]) <= fabs(ax[2]) ? 0 : 2)
                                       : (fabs(ax[1]) <= fabs(ax[2]) ? 1 : 2);
    x[k] = 1;
    hsu_cross(dir, ax, x);
    double s = hsu_norm(dir);
    for (int j = 0; j < 3; j++) {
      dir[j] /= s;
    }
    hsu_cross(dir + 3, ax, dir);
  } else {
    memcpy(dir, ax, sizeof ax);
  }
  for (int r = 0; r < n; r++) {
    e[r] = hsu_dot(d, dir + 3 * r);
  }
  return n;
}

// J[j] += sign d . (the velocity of world point p on link k per unit velocity of dof j) for the
// dofs of character c from link k to the root, at the state's poses (a free root's dofs: its
// origin's velocity, then its angular velocity, world)
static void pointJacobian(const hsdCharacter *c, int k, const double p[3], const double d[3],
                          double sign, double *J) {
  const hsdJsModel *m = c->jsm;
  const hsBodyState *st = c->state;
  for (int j = m->linkLastDof[k]; j >= 0; j = m->dofParent[j]) {
    double x, r[3], rd[3], a[3];
    if (j < m->nroot) {
      for (int t = 0; t < 3; t++) {
        r[t] = p[t] - st->rootP[t];
      }
      hsu_cross(rd, r, d);
      x = j < 3 ? d[j] : rd[j - 3];
    } else {
      int i = m->dofLink[j];
      const hsLink *lk = &c->body->links[i];
      hsd_worldAxis(a, lk, st->linkR + 9 * i);
      if (hsm_jointHalf(lk) == 3) {
        for (int t = 0; t < 3; t++) {
          r[t] = p[t] - st->linkP[3 * i + t];
        }
        hsu_cross(rd, r, d);
        x = hsu_dot(a, rd);
      } else {
        x = hsu_dot(a, d);
      }
    }
    J[j] += sign * x;
  }
}

// character c's root and joints moved by dq (per dof) and its link poses updated
static void moveDofs(hsdCharacter *c, const double *dq) {
  const hsdJsModel *m = c->jsm;
  hsBodyState *st = c->state;
  if (m->nroot) {
    for (int t = 0; t < 3; t++) {
      st->rootP[t] += dq[t];
    }
    double ang = hsu_norm(dq + 3);
    if (ang > 0) {
      double aa[4] = {dq[3], dq[4], dq[5], ang}, E[9], R[9];
      hsu_axisAngleToMat(E, aa);
      hsu_mulMat(R, E, st->rootR);
      memcpy(st->rootR, R, sizeof R);
    }
  }
  for (int j = m->nroot; j < m->nv; j++) {
    st->q[m->dofLink[j]] += dq[j];
  }
  hsm_forwardKinematics(c->body, st);
}

// one Gauss-Newton step of loop l (its error capped at JS_LOOP_REACH); 1 if it moved anything
static int closeLoop(hsdWorld *w, const hsdLoop *l) {
  double dir[9], e[3], at[2][3];
  int n = loopRows(w, l, dir, e, at), side[2] = {l->ch[1], l->ch[0]};
  int link[2] = {l->link[1], l->link[0]};
  double en = 0;
  for (int r = 0; r < n; r++) {
    en += e[r] * e[r];
  }
  en = sqrt(en);
  if (!(en > JS_LOOP_TOL) || !isfinite(en)) {
    return 0;
  }
  // the characters that move, once each: their rows J (n x nv) and Y = M^-1 J^T, side by side
  int chs[2], nch = 0;
  size_t off[2], used = 0;
  for (int s = 0; s < 2; s++) {
    if (jsMoves(w, side[s]) && !(nch == 1 && chs[0] == side[s])) {
      int nv = w->chars[side[s]].jsm->nv;
      chs[nch] = side[s];
      off[nch++] = used;
      memset(w->loopWork + used, 0, 6 * (size_t)nv * sizeof *w->loopWork);
      used += 6 * (size_t)nv;
    }
  }
  double A[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, trace = 0;
  for (int r = 0; r < n; r++) {
    A[4 * r] = 0;
  }
  for (int k = 0; k < nch; k++) {
    const hsdCharacter *c = &w->chars[chs[k]];
    size_t nv = (size_t)c->jsm->nv;
    double *J = w->loopWork + off[k], *Y = J + 3 * nv;
    for (int s = 0; s < 2; s++) {
      for (int r = 0; r < n && side[s] == chs[k]; r++) {
        pointJacobian(c, link[s], at[s], dir + 3 * r, s ? -1 : 1, J + r * nv);
      }
    }
    for (int r = 0; r < n; r++) {
      memcpy(Y + r * nv, J + r * nv, nv * sizeof *Y);
      hsd_jsSolveM(c->jsm, c->jsd, Y + r * nv);
    }
    for (int r = 0; r < n; r++) {
      for (int q = 0; q < n; q++) {
        for (size_t j = 0; j < nv; j++) {
          A[3 * r + q] += J[r * nv + j] * Y[q * nv + j];
        }
      }
    }
  }
  // lambda = A^-1 (-e), A damped by 1e-10 of its mean diagonal (a loop near a singular pose
  // takes a bounded step); nothing when the loop's rows move nothing
  for (int r = 0; r < n; r++) {
    trace += A[4 * r];
  }
  if (!(trace > 0) || !isfinite(trace)) {
    return 0;
  }
  for (int r = 0; r < n; r++) {
    A[4 * r] += 1e-10 * trace / n;
  }
  double adj[9], det = hsu_adjugate3(A, adj), scale = en > JS_LOOP_REACH ? JS_LOOP_REACH / en : 1;
  if (!(fabs(det) > 0)) {
    return 0;
  }
  double lam[3] = {0, 0, 0};
  for (int r = 0; r < n; r++) {
    for (int q = 0; q < n; q++) {
      lam[r] -= adj[3 * r + q] * scale * e[q] / det;
    }
  }
  // dq = Y lambda per character (into its J rows' place), applied when finite
  for (int k = 0; k < nch; k++) {
    hsdCharacter *c = &w->chars[chs[k]];
    size_t nv = (size_t)c->jsm->nv;
    double *dq = w->loopWork + off[k], *Y = dq + 3 * nv;
    int ok = 1;
    for (size_t j = 0; j < nv; j++) {
      dq[j] = Y[j] * lam[0] + Y[nv + j] * lam[1] + Y[2 * nv + j] * lam[2];
      ok &= isfinite(dq[j]);
    }
    if (!ok) {
      return 0;
    }
  }
  for (int k = 0; k < nch; k++) {
    moveDofs(&w->chars[chs[k]], w->loopWork + off[k]);
    w->loopMoved[chs[k]] = 1;
  }
  return 1;
}

void hsd_jsCloseLoops(hsdWorld *w) {
  if (!w->loopWork || w->runaway) {
    return;
  }
  memset(w->loopMoved, 0, (size_t)w->nchar);
  for (int pass = 0; pass < JS_LOOP_PASSES; pass++) {
    int moved = 0;
    for (int i = 0; i < w->nloop; i++) {
      moved |= closeLoop(w, &w->loops[i]);
    }
    if (!moved) {
      break;
    }
  }
  // the moved characters' link velocities at their new poses (the dofs' stay), ODE's bodies
  // marked to be placed there
  for (int ci = 0; ci < w->nchar; ci++) {
    if (!w->loopMoved[ci]) {
      continue;
    }
    hsdCharacter *c = &w->chars[ci];
    const hsBody *b = c->body;
    for (int k = 1; k < b->nlink; k++) {
      const hsdLinkMotion *pm = &c->motion[b->links[k].parent];
      double dq = c->jsm->linkDof[k] >= 0 ? c->state->dq[k] : 0;
      hsd_childVelocity(b, c->state, k, pm->v, pm->w, dq, c->motion[k].v, c->motion[k].w);
    }
    hsd_jsPlaceBodies(w, ci);
  }
}
