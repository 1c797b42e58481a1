// dynamics_build.c - hsd_init: ODE bodies and joints from each character (its collision
// geometry comes from dynamics_geom.c).
//
// Rigid groups: a link joins its parent's group unless its joint is rotate or slide (fixed
// and crawler joints weld: a crawler's track speed acts through its contacts, see
// dynamics_contact.c). The root's group is dynamic when the root is
// free and static otherwise (a fixed root never moves: its group has no ODE body and its geoms
// sit in the world). Each dynamic group becomes one ODE body at the group's centre of mass,
// oriented like the group's top link, carrying the summed mass and the inertia about that
// centre. ODE needs a positive mass and a positive definite inertia, so a moving group whose
// mass is zero (below 1e-12 kg: a sub-normal one would make 1/m infinite) gets opt.boundMass
// (1e-3 kg by default), and an inertia that is not positive definite (zero, singular,
// indefinite) gets the isotropic addition that makes its smallest
// principal moment opt.boundInertia (1e-6 kg m^2), each with one warning naming the model file
// and line (of the load warning about it, which the body keeps in its info strings), the link
// and its segments. A massless link on a fixed joint never needs a bound: it is welded into
// its parent's group, whose mass it does not change, and keeps its own frame and name.
//
// Joints: rotate -> dHinge, slide -> dSlider, anchored at the link origin with the link's axis
// in the world, body1 the link's body and body2 the parent's (0 for the static group). Their
// motors serve high-gain joints (see dynamics_prepare.c).

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "dynamics_private.h"

//---------------------------------- small math -------------------------------------------------

void hsd_fromOdeR(double R[9], const dReal *m) {
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      R[3 * i + j] = m[4 * i + j];
    }
  }
}

void hsd_toOdeR(dMatrix3 m, const double R[9]) {
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      m[4 * i + j] = R[3 * i + j];
    }
    m[4 * i + 3] = 0;
  }
}

// 1 if the symmetric 3x3 matrix I is positive definite (leading minors)
static int posDef(const double I[9]) {
  double m1 = I[0];
  double m2 = I[0] * I[4] - I[1] * I[3];
  double m3 = I[0] * (I[4] * I[8] - I[5] * I[7]) - I[1] * (I[3] * I[8] - I[5] * I[6]) +
              I[2] * (I[3] * I[7] - I[4] * I[6]);
  return m1 > 0 && m2 > 0 && m3 > 0;
}

// the smallest eigenvalue of the symmetric 3x3 matrix I (closed form, trigonometric)
static double minEigen(const double I[9]) {
  double p1 = I[1] * I[1] + I[2] * I[2] + I[5] * I[5];
  double q = (I[0] + I[4] + I[8]) / 3;
  if (p1 == 0) {
    return fmin(I[0], fmin(I[4], I[8]));
  }
  double a = I[0] - q, b = I[4] - q, d = I[8] - q;
  double p = sqrt((a * a + b * b + d * d + 2 * p1) / 6);
  // B = (I - q 1) / p; r = det(B) / 2
  double B[9];
  for (int k = 0; k < 9; k++) {
    B[k] = (I[k] - ((k % 4) == 0 ? q : 0)) / p;
  }
  double r = 0.5 * (B[0] * (B[4] * B[8] - B[5] * B[7]) - B[1] * (B[3] * B[8] - B[5] * B[6]) +
                    B[2] * (B[3] * B[7] - B[4] * B[6]));
  double phi = r <= -1 ? HS_PI / 3 : r >= 1 ? 0 : acos(r) / 3;
  return q + 2 * p * cos(phi + 2 * HS_PI / 3);
}

// the warning for a moving group whose mass or inertia was bounded: the model file and line
// (from the load warning about one of its segments, when the body kept one), the character,
// the link (joint) and its segments (URDF links)
static void warnBound(const hsdWorld *w, const hsdCharacter *c, int t, int noMass, int padded,
                      double lmin) {
  const hsBody *b = c->body;
  char segs[256] = "";
  int line = 0;
  size_t used = 0;
  for (int k = t; k < b->nlink; k++) {
    if (c->links[k].top != t) {
      continue;
    }
    const hsLink *lk = &b->links[k];
    for (int g = lk->segmentAdr; g < lk->segmentAdr + lk->nsegment; g++) {
      const char *name = b->segments[g].name;
      if (!name || !*name || used >= sizeof segs - 1) {
        continue;
      }
      used += (size_t)snprintf(segs + used, sizeof segs - used, "%s'%s'", used ? ", " : "", name);
      if (!line) {
        line = hsm_warningLine(b, name);
      }
    }
    if (!line) {
      line = hsm_warningLine(b, lk->name);
    }
  }
  char what[200];
  if (noMass) {
    int n = snprintf(what, sizeof what, "has no mass: bounded to %g kg", w->opt.boundMass);
    if (padded && n > 0 && (size_t)n < sizeof what) {
      snprintf(what + n, sizeof what - (size_t)n, " and %g kg m^2", w->opt.boundInertia);
    }
  } else {
    snprintf(what, sizeof what,
             "has an inertia that is not positive definite (smallest principal moment %g kg "
             "m^2): raised to %g kg m^2",
             lmin, w->opt.boundInertia);
  }
  char where[600];
  if (line > 0) {
    snprintf(where, sizeof where, "%s:%d", b->url ? b->url : "", line);
  } else {
    snprintf(where, sizeof where, "%s", b->url ? b->url : "");
  }
  hsu_log(hsLOG_WARNING, "%s: dynamics: %s: moving link '%s' (segments %s) %s", where, c->name,
          b->links[t].name, *segs ? segs : "none", what);
}

//---------------------------------- destroy ---------------------------------------------------

void hsd_destroyOde(hsdWorld *w) {
  hsd_jsFreeWorld(w);
  for (int c = 0; c < w->nchar; c++) {
    hsdCharacter *ch = &w->chars[c];
    hsd_freeShapes(w, c);
    ch->cbody = NULL;
    ch->rep = hsdREP_ARTICULATED;
    for (int i = 0; i < ch->body->nlink; i++) {
      hsdLinkOde *l = &ch->links[i];
      l->body = NULL;
      l->joint = NULL;
      l->jkind = hsdODE_NONE;
    }
  }
  hsd_forgetLoops(w);
  hsu_free(w->pairActive);
  w->pairActive = NULL;
  hsu_free(w->islandParent);
  hsu_free(w->islandRows);
  w->islandParent = w->islandRows = NULL;
  w->nbody = 0;
  if (w->contactGroup) {
    dJointGroupDestroy(w->contactGroup);
    w->contactGroup = NULL;
  }
  if (w->world) {
    hsd_lockOde();
    dWorldDestroy(w->world);
    hsd_unlockOde();
    w->world = NULL;
  }
  if (w->threading) {
    dThreadingFreeImplementation(w->threading);  // after the world that used it
    w->threading = NULL;
  }
  w->ncontact = w->ngroup = 0;
  w->initialised = 0;
}

//---------------------------------- bodies ----------------------------------------------------

// link k's origin (pk) and orientation (Rk) in the frame of link t, at c's state
static void inTopFrame(const hsdCharacter *c, int t, int k, double pk[3], double Rk[9]) {
  const hsBodyState *st = c->state;
  const double *pt = st->linkP + 3 * t, *Rt = st->linkR + 9 * t;
  double d[3], RtT[9];
  for (int j = 0; j < 3; j++) {
    d[j] = st->linkP[3 * k + j] - pt[j];
  }
  hsu_rotVecT(pk, Rt, d);
  hsu_transpose(RtT, Rt);
  hsu_mulMat(Rk, RtT, st->linkR + 9 * k);
}

int hsd_groupMass(const hsdWorld *w, const hsdCharacter *c, int t, double *mass, double com[3],
                  double I[9], double *lmin) {
  const hsBody *b = c->body;
  // mass, centre and inertia of the group in the top link's frame
  double M = 0;
  memset(com, 0, 3 * sizeof *com);
  memset(I, 0, 9 * sizeof *I);
  for (int k = t; k < b->nlink; k++) {
    if (c->links[k].top != t) {
      continue;
    }
    const hsLink *lk = &b->links[k];
    double pk[3], Rk[9], ck[3];
    inTopFrame(c, t, k, pk, Rk);
    hsu_rotVec(ck, Rk, lk->com);
    for (int j = 0; j < 3; j++) {
      ck[j] += pk[j];
      com[j] += lk->mass * ck[j];
    }
    M += lk->mass;
  }
  for (int j = 0; j < 3; j++) {
    com[j] = M > 0 ? com[j] / M : 0;
  }
  for (int k = t; k < b->nlink; k++) {
    if (c->links[k].top != t) {
      continue;
    }
    const hsLink *lk = &b->links[k];
    double Rk[9], pk[3];
    inTopFrame(c, t, k, pk, Rk);
    double RI[9], RIRt[9], RkT[9], ck[3], d[3], Ik[9];
    memcpy(Ik, lk->inertia, sizeof Ik);
    if (w->opt.rotorInertia && lk->jointType == hsJOINT_ROTATE && lk->parent >= 0) {
      // the rotor, turning with the link about the joint axis (an approximation: a geared
      // rotor turns gearRatio times faster relative to the parent, not with the link)
      double Ir = lk->rotorInertia * lk->gearRatio * lk->gearRatio, n = hsu_norm(lk->axis);
      for (int r = 0; r < 3 && n > 0 && isfinite(Ir) && Ir > 0; r++) {
        for (int s = 0; s < 3; s++) {
          Ik[3 * r + s] += Ir * lk->axis[r] * lk->axis[s] / (n * n);
        }
      }
    }
    hsu_mulMat(RI, Rk, Ik);
    hsu_transpose(RkT, Rk);
    hsu_mulMat(RIRt, RI, RkT);
    hsu_rotVec(ck, Rk, lk->com);
    for (int j = 0; j < 3; j++) {
      d[j] = ck[j] + pk[j] - com[j];
    }
    double dd = hsu_dot(d, d);
    for (int r = 0; r < 3; r++) {
      for (int s = 0; s < 3; s++) {
        I[3 * r + s] += RIRt[3 * r + s] + lk->mass * ((r == s ? dd : 0) - d[r] * d[s]);
      }
    }
  }
  // what ODE needs: a positive mass (below 1e-12 kg counts as none: a sub-normal one would
  // make 1/m infinite) and a symmetric positive definite inertia
  for (int r = 0; r < 3; r++) {
    for (int s = r + 1; s < 3; s++) {
      double a = 0.5 * (I[3 * r + s] + I[3 * s + r]);
      I[3 * r + s] = I[3 * s + r] = a;
    }
  }
  int noMass = !(M >= 1e-12), padded = 0;
  *lmin = minEigen(I);
  if (noMass) {
    M = w->opt.boundMass;
  }
  if (!posDef(I) || !(*lmin > 0)) {
    double add = w->opt.boundInertia - fmin(*lmin, 0.0);
    I[0] += add;
    I[4] += add;
    I[8] += add;
    padded = 1;
  }
  *mass = M;
  return noMass | padded << 1;
}

// make the ODE body of the dynamic group topped by link t of character c
static int makeGroupBody(hsdWorld *w, hsdCharacter *c, int t, hsError *err) {
  const hsBody *b = c->body;
  double M, com[3], I[9], lmin;
  int bounds = hsd_groupMass(w, c, t, &M, com, I, &lmin);
  int noMass = bounds & 1, padded = bounds >> 1;
  if (noMass || padded) {
    warnBound(w, c, t, noMass, padded, lmin);
  }
  if (!posDef(I) || !hsd_sane(I, 9) || !isfinite(M)) {
    return HS_ERR(err, hsE_INVALID, "%s: link %s: unusable mass or inertia", c->name,
                  b->links[t].name);
  }
  // the body, at the group's centre of mass
  dBodyID body = dBodyCreate(w->world);
  dMass m;
  dMassSetZero(&m);
  m.mass = M;
  for (int r = 0; r < 3; r++) {
    for (int s = 0; s < 3; s++) {
      m.I[4 * r + s] = I[3 * r + s];
    }
  }
  dBodySetMass(body, &m);
  dBodySetData(body, (void *)(intptr_t)(++w->nbody));  // island index + 1
  dBodySetAutoDisableFlag(body, 0);
  dBodySetDamping(body, 0, 0);
  for (int k = t; k < b->nlink; k++) {
    if (c->links[k].top != t) {
      continue;
    }
    hsdLinkOde *l = &c->links[k];
    l->body = body;
    l->dynamic = 1;
    inTopFrame(c, t, k, l->offP, l->offR);
    for (int j = 0; j < 3; j++) {
      l->offP[j] -= com[j];
    }
  }
  return 0;
}

//---------------------------------- joints ----------------------------------------------------

// set a joint's motor for its mode (high gain: huge force bound; torque: off until a
// velocity-limited drive sets it) and its stops (torque mode with hsLIMIT_POSITION only)
void hsd_configureMotor(const hsdWorld *w, hsdLinkOde *l, hstJointMode mode) {
  double fmax = mode == hsMODE_HIGH_GAIN ? w->opt.highGainFMax : 0;
  int stops = mode == hsMODE_TORQUE && (w->opt.jointLimits & hsLIMIT_POSITION);
  double lo = stops ? l->stopLo : -dInfinity, hi = stops ? l->stopHi : dInfinity;
  if (l->jkind == hsdODE_HINGE) {
    dJointSetHingeParam(l->joint, dParamVel, 0);
    dJointSetHingeParam(l->joint, dParamFMax, fmax);
    dJointSetHingeParam(l->joint, dParamLoStop, -dInfinity);
    dJointSetHingeParam(l->joint, dParamHiStop, hi);
    dJointSetHingeParam(l->joint, dParamLoStop, lo);
    dJointSetHingeParam(l->joint, dParamStopERP, w->opt.stopErp);
    dJointSetHingeParam(l->joint, dParamStopCFM, w->opt.stopCfm);
  } else if (l->jkind == hsdODE_SLIDER) {
    dJointSetSliderParam(l->joint, dParamVel, 0);
    dJointSetSliderParam(l->joint, dParamFMax, fmax);
    dJointSetSliderParam(l->joint, dParamLoStop, -dInfinity);
    dJointSetSliderParam(l->joint, dParamHiStop, hi);
    dJointSetSliderParam(l->joint, dParamLoStop, lo);
    dJointSetSliderParam(l->joint, dParamStopERP, w->opt.stopErp);
    dJointSetSliderParam(l->joint, dParamStopCFM, w->opt.stopCfm);
  }
}

// the limits of link i's joint. Stops relative to its value now (ODE measures from here): the
// model's llimit / ulimit; none where absent, inverted, or (a hinge) beyond ODE's +-pi range.
// Velocity: uvlimit > 0 and lvlimit < 0, each direction on its own. Effort: climit gearRatio
// torqueConst > 0. Absent, zero, wrong-signed or not finite: none (+-inf).
static void setLimits(hsdCharacter *c, int i) {
  const hsLink *lk = &c->body->links[i];
  hsdLinkOde *l = &c->links[i];
  double q0 = c->state->q[i];
  l->stopLo = -INFINITY;
  l->stopHi = INFINITY;
  if (lk->llimit.n > 0 && lk->ulimit.n > 0 && lk->llimit.v[0] <= lk->ulimit.v[0]) {
    double lo = lk->llimit.v[0] - q0, hi = lk->ulimit.v[0] - q0;
    int hinge = lk->jointType == hsJOINT_ROTATE;
    l->stopLo = (hinge && lo < -HS_PI) ? -INFINITY : lo;
    l->stopHi = (hinge && hi > HS_PI) ? INFINITY : hi;
  }
  double vHi = lk->uvlimit.n > 0 ? lk->uvlimit.v[0] : 0;
  double vLo = lk->lvlimit.n > 0 ? lk->lvlimit.v[0] : 0;
  l->vHi = vHi > 0 && isfinite(vHi) ? vHi : INFINITY;
  l->vLo = vLo < 0 && isfinite(vLo) ? vLo : -INFINITY;
  double e = lk->climit.n > 0 ? lk->climit.v[0] * lk->gearRatio * lk->torqueConst : 0;
  l->effort = e > 0 && isfinite(e) ? e : INFINITY;
}

// make the joint of link i (rotate / slide) to its parent's body
static void makeJoint(hsdWorld *w, hsdCharacter *c, int i) {
  const hsLink *lk = &c->body->links[i];
  hsdLinkOde *l = &c->links[i];
  const double *p = c->state->linkP + 3 * i, *R = c->state->linkR + 9 * i;
  double axis[3], a[3];
  double n = hsu_norm(lk->axis);
  for (int j = 0; j < 3; j++) {
    a[j] = lk->axis[j] / n;
  }
  hsu_rotVec(axis, R, a);
  dBodyID parent = c->links[lk->parent].body;
  if (lk->jointType == hsJOINT_ROTATE) {
    l->joint = dJointCreateHinge(w->world, 0);
    dJointAttach(l->joint, l->body, parent);
    dJointSetHingeAnchor(l->joint, p[0], p[1], p[2]);
    dJointSetHingeAxis(l->joint, axis[0], axis[1], axis[2]);
    l->jkind = hsdODE_HINGE;
  } else {
    l->joint = dJointCreateSlider(w->world, 0);
    dJointAttach(l->joint, l->body, parent);
    dJointSetSliderAxis(l->joint, axis[0], axis[1], axis[2]);
    l->jkind = hsdODE_SLIDER;
  }
  memset(&l->fb, 0, sizeof l->fb);
  dJointSetFeedback(l->joint, &l->fb);
  setLimits(c, i);
  hsd_configureMotor(w, l, c->in.mode[i]);
}

//---------------------------------- geoms -----------------------------------------------------

void hsd_linkPoseFromBody(const hsdLinkOde *l, double p[3], double R[9]) {
  const dReal *bp = dBodyGetPosition(l->body);
  double Rb[9], x[3];
  hsd_fromOdeR(Rb, dBodyGetRotation(l->body));
  hsu_rotVec(x, Rb, l->offP);
  for (int j = 0; j < 3; j++) {
    p[j] = bp[j] + x[j];
  }
  hsu_mulMat(R, Rb, l->offR);
}

//---------------------------------- init ------------------------------------------------------

int hsd_init(hsdWorld *w, hsError *err) {
  if (!w) {
    return HS_ERR(err, hsE_INVALID, "no world");
  }
  hsd_noteStart(w);  // (before anything below changes the states)
  hsd_destroyOde(w);
  hsd_lockOde();
  w->world = dWorldCreate();
  hsd_unlockOde();
  // ODE steps every world through one process-wide job list unless a world has its own; a
  // world with one of its own lets threads step different worlds at the same time
  w->threading = dThreadingAllocateSelfThreadedImplementation();
  dWorldSetStepThreadingImplementation(w->world, dThreadingImplementationGetFunctions(
      w->threading), w->threading);
  w->contactGroup = dJointGroupCreate(0);
  const hsdOptions *o = &w->opt;
  dWorldSetGravity(w->world, w->g[0], w->g[1], w->g[2]);
  dWorldSetERP(w->world, o->erp);
  dWorldSetCFM(w->world, o->cfm);
  dWorldSetQuickStepNumIterations(w->world, o->quickIterations);
  dWorldSetContactSurfaceLayer(w->world, o->contactSurfaceLayer);
  // contacts cap their push-out speed themselves (dynamics_contact.c)
  dWorldSetContactMaxCorrectingVel(w->world, dInfinity);
  dWorldSetAutoDisableFlag(w->world, 0);
  for (int ci = 0; ci < w->nchar; ci++) {
    hsdCharacter *c = &w->chars[ci];
    const hsBody *b = c->body;
    hsm_forwardKinematics(b, c->state);
    // rigid groups
    for (int k = 0; k < b->nlink; k++) {
      const hsLink *lk = &b->links[k];
      hsdLinkOde *l = &c->links[k];
      int own = k == 0 || hsm_hasOneDofJoint(lk);
      l->top = own ? k : c->links[lk->parent].top;
      l->dynamic = 0;
      l->body = NULL;
      l->joint = NULL;
      l->jkind = hsdODE_NONE;
      hsu_setIdentity(l->offR);
      memset(l->offP, 0, sizeof l->offP);
    }
    for (int k = 0; k < b->nlink; k++) {
      int dyn = k > 0 || b->links[0].jointType == hsJOINT_FREE;
      if (c->links[k].top == k && dyn && makeGroupBody(w, c, k, err) < 0) {
        hsd_destroyOde(w);
        return hsE_INVALID;
      }
    }
    // static links: offsets relative to the root frame (used for their poses)
    for (int k = 0; k < b->nlink; k++) {
      hsdLinkOde *l = &c->links[k];
      if (!l->body) {
        const double *pt = c->state->linkP, *Rt = c->state->linkR;
        double d[3], RtT[9];
        for (int j = 0; j < 3; j++) {
          d[j] = c->state->linkP[3 * k + j] - pt[j];
        }
        hsu_rotVecT(l->offP, Rt, d);
        hsu_transpose(RtT, Rt);
        hsu_mulMat(l->offR, RtT, c->state->linkR + 9 * k);
      }
    }
    hsd_initRest(w, c);
    if (hsd_servoed(c, 0) && c->links[0].body) {
      dBodySetKinematic(c->links[0].body);
    }
    // the composite body of a free root (enabled only while every joint is servoed)
    c->cbody = NULL;
    if (b->links[0].jointType == hsJOINT_FREE) {
      c->cbody = dBodyCreate(w->world);
      dBodySetData(c->cbody, (void *)(intptr_t)(++w->nbody));
      dBodySetAutoDisableFlag(c->cbody, 0);
      dBodySetGyroscopicMode(c->cbody, 0);
      dBodySetFiniteRotationMode(c->cbody, 1);
      dBodySetDamping(c->cbody, 0, 0);
      dBodyDisable(c->cbody);
    }
    c->still = b->links[0].jointType != hsJOINT_FREE;
    for (int k = 1; k < b->nlink; k++) {
      if (hsm_hasOneDofJoint(&b->links[k])) {
        c->still = 0;
      }
    }
    // bodies where the state puts them, before the joints record their zero configuration
    w->initialised = 1;
    hsd_syncFromState(w, ci, hsdREP_ARTICULATED);
    for (int k = 1; k < b->nlink; k++) {
      if (c->links[k].top == k) {
        makeJoint(w, c, k);
      }
    }
    if (hsd_makeShapes(w, ci, err) < 0) {
      hsd_destroyOde(w);
      return hsE_NOMEM;
    }
    // force sensors without a joint of their own need the Newton-Euler fallback
    c->needWrench = 0;
    for (int s = 0; s < b->nsensor; s++) {
      const hsSensor *sn = &b->sensors[s];
      if (sn->type == hsSENSOR_FORCE && c->links[sn->link].jkind == hsdODE_NONE) {
        c->needWrench = 1;
      }
    }
    // commands given before the start are not for the first step
    memset(c->in.flags, 0, (size_t)b->nlink * sizeof *c->in.flags);
    memset(c->in.ext, 0, 6 * (size_t)b->nlink * sizeof *c->in.ext);
    c->nExt = 0;
    hsd_syncFromState(w, ci, hsd_chooseRep(w, ci));
  }
  if (hsd_buildLoops(w, err) < 0) {
    hsd_destroyOde(w);
    return hsE_INVALID;
  }
  w->pairActive = hsu_calloc(w->linkPairs.n + 1, sizeof *w->pairActive);
  w->islandParent = hsu_calloc((size_t)w->nbody + 1, sizeof *w->islandParent);
  w->islandRows = hsu_calloc((size_t)w->nbody + 1, sizeof *w->islandRows);
  if (!w->pairActive || !w->islandParent || !w->islandRows) {
    hsd_destroyOde(w);
    return HS_ERR(err, hsE_NOMEM, "out of memory");
  }
  if (w->opt.engine == hsENGINE_JOINT_SPACE && hsd_jsInitWorld(w, err) < 0) {
    int code = err ? err->code : hsE_INVALID;
    hsd_destroyOde(w);
    return code;
  }
  w->initialised = 1;
  w->quickSteps = 0;
  w->time = 0;
  w->steps = 0;
  w->runaway = 0;
  w->seed = 1;
  w->ncontact = w->ngroup = 0;
  return 0;
}
