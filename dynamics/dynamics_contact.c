// dynamics_contact.c - the collide phase of a step: which link pairs can touch, their contacts
// (found by collision/ through dynamics_geom.c) turned into ODE contact joints, the contact
// forces after the step, grouped by link pair; intersection checks.
//
// Link pairs that cannot move relative to each other (two static characters, links on one ODE
// body, links of one servoed character) are not asked about, nor pairs whose sides are both
// static or asleep (dynamics_sleep.c). Each contact point becomes a
// contact joint in the world's contact group (emptied after every step) with a preallocated
// feedback buffer, unless neither side has a dynamic body (the point is then reported with zero
// force).
//
// A contact joint attaches to the ODE body each side's link moves with (its own, the composite
// body of a servoed character, or none for kinematic and static ones); the part of the link's
// velocity that body does not carry (servoed joint motion, a kinematic character's whole motion)
// becomes ODE's surface motion (motion1, motion2, motionN), so the constraint acts on the true
// relative velocity. ODE's push-out speed cap would also cap that motion, so it is disabled in
// the world and applied here by capping the depth handed to ODE.
//
// Friction (ODE has one Coulomb coefficient per contact): the pair's staticFriction is used
// while the relative tangential speed of the two surfaces at the point is below
// opt.stickVelocity, its slipFriction otherwise. ODE's friction pyramid (dContactApprox1: each
// of two tangent directions bounded by mu times the normal force) is aligned with the sliding
// direction while sliding, so a sliding contact feels exactly mu N against its motion.
// Restitution becomes ODE's bounce (for approach speeds above opt.bounceVelocity); contact
// softness comes from opt.contactErp / contactCfm. OpenHRP's spring/damper K and C are not used.
//
// Crawler links (tracks) take part like servoed joint motion: the track surface at a contact moves
// relative to the link at u along dir = normalize((R a) x nOut) (R the link's rotation, a its joint
// axis, nOut the contact normal pointing out of the crawler into the other side; OpenHRP AIST's
// convention, with its sign flip for a crawler that is the pair's second link folded into nOut).
// That velocity enters the contact's surface motion (motion1/2 along fdir1 and the direction across
// it), so friction drives the vehicle up to mu N. u is the link's joint torque or joint velocity,
// whichever the client wrote last (OpenHRP writes the torque, Choreonoid's pseudoContinuousTrack
// the velocity command). While a track's contact slides, its friction acts along the slip only
// (ODE's second friction direction frictionless), approximating the friction cone OpenHRP AIST
// uses: the pyramid's independent sideways row would stall a turn on the spot. Track contacts are a
// little softer (CFM at least 1e-7) for ODE's solver's sake.

#include <math.h>
#include <string.h>

#include "dynamics_private.h"

// velocity at point p not carried by the link's attached body (servoed joint motion); o is the
// link's origin
static void internalVel(const hsdLinkOde *l, const double o[3], const double p[3], double v[3]) {
  double r[3] = {p[0] - o[0], p[1] - o[1], p[2] - o[2]}, x[3];
  hsu_cross(x, l->wInt, r);
  for (int j = 0; j < 3; j++) {
    v[j] = l->vInt[j] + x[j];
  }
}

// velocity of the material point at p of a link: its attached body's plus the internal part
static void pointVel(const hsdLinkOde *l, const double o[3], const double p[3], double v[3]) {
  internalVel(l, o, p, v);
  if (l->att) {
    dVector3 r;
    dBodyGetPointVel(l->att, p[0], p[1], p[2], r);
    for (int j = 0; j < 3; j++) {
      v[j] += r[j];
    }
  }
}

// the track speed of link k of character c (the last JOINT_TORQUE or JOINT_VELOCITY written,
// kept in u; dynamics_input.c); 0 for a link that is not a crawler
static double trackSpeed(const hsdCharacter *c, int k) {
  return c->body->links[k].jointType == hsJOINT_CRAWLER ? c->in.u[k] : 0;
}

void hsd_addTrackVel(const hsdCharacter *c, int k, const double nOut[3], double v[3],
                     double sign) {
  double u = trackSpeed(c, k);
  if (u == 0) {
    return;
  }
  double a[3], d[3];
  hsd_worldAxis(a, &c->body->links[k], c->state->linkR + 9 * k);
  hsu_cross(d, a, nOut);
  double n = hsu_norm(d);
  if (!(n > 1e-9)) {
    return;  // the normal runs along the wheels' axis: the track does not move that way
  }
  for (int j = 0; j < 3; j++) {
    v[j] += sign * (u * d[j] / n);
  }
}

// 1 if a body moves under dynamics
static int dynamicBody(dBodyID b) {
  return b && !dBodyIsKinematic(b);
}

// add a contact joint for contact i (point hc) between links l1 and l2 with origins o1 and o2
// (at least one attached to a dynamic body)
static void makeContactJoint(hsdWorld *w, int i, const hsdContact *hc, const hsdLinkOde *l1,
                             const double o1[3], const hsdLinkOde *l2, const double o2[3],
                             const hsdSurface *s) {
  dContact ct;
  memset(&ct, 0, sizeof ct);
  for (int j = 0; j < 3; j++) {
    ct.geom.pos[j] = hc->p[j];
    ct.geom.normal[j] = hc->n[j];
  }
  ct.geom.depth = hc->depth;
  ct.surface.mode = dContactApprox1 | dContactSoftERP | dContactSoftCFM;
  ct.surface.soft_erp = w->opt.contactErp;
  ct.surface.soft_cfm = w->opt.contactCfm;
  if (s->restitution > 0) {
    ct.surface.mode |= dContactBounce;
    ct.surface.bounce = s->restitution;
    ct.surface.bounce_vel = w->opt.bounceVelocity;
  }
  // ODE's body 1 must exist: swap the sides when only link[1]'s side has a body
  dBodyID b1 = l1->att, b2 = l2->att;
  double n[3] = {hc->n[0], hc->n[1], hc->n[2]}, sgn = 1;
  double v1[3], v2[3], i1[3], i2[3], vr[3], ir[3], vt[3];
  pointVel(l1, o1, hc->p, v1);
  pointVel(l2, o2, hc->p, v2);
  internalVel(l1, o1, hc->p, i1);
  internalVel(l2, o2, hc->p, i2);
  // tracks: link[0]'s normal out of it is -n, link[1]'s is n
  double tr1[3] = {0, 0, 0}, tr2[3] = {0, 0, 0}, nOut1[3] = {-n[0], -n[1], -n[2]};
  hsd_addTrackVel(&w->chars[hc->ch[0]], hc->link[0], nOut1, tr1, 1);
  hsd_addTrackVel(&w->chars[hc->ch[1]], hc->link[1], n, tr2, 1);
  for (int j = 0; j < 3; j++) {
    v1[j] += tr1[j];
    i1[j] += tr1[j];
    v2[j] += tr2[j];
    i2[j] += tr2[j];
  }
  if (!b1) {
    b1 = l2->att;
    b2 = NULL;
    sgn = -1;
  }
  for (int j = 0; j < 3; j++) {
    n[j] *= sgn;
    vr[j] = sgn * (v1[j] - v2[j]);  // body 1's side relative to body 2's
    ir[j] = sgn * (i1[j] - i2[j]);
    ct.geom.normal[j] = n[j];
  }
  // the push-out speed is capped here (ODE's own cap would also cap the surface motion)
  double erp = w->opt.contactErp;
  if (erp > 0) {
    double cap = w->opt.contactSurfaceLayer + w->opt.contactMaxCorrectingVel * w->dt / erp;
    ct.geom.depth = fmin(hc->depth, cap);
  }
  // static or slip friction by the relative tangential speed at the point
  double vn = hsu_dot(vr, n);
  for (int j = 0; j < 3; j++) {
    vt[j] = vr[j] - vn * n[j];
  }
  double speed = hsu_norm(vt), t1[3];
  int sliding = speed >= w->opt.stickVelocity && speed > 0;
  ct.surface.mu = sliding ? s->slipFriction : s->staticFriction;
  int track = w->chars[hc->ch[0]].body->links[hc->link[0]].jointType == hsJOINT_CRAWLER ||
              w->chars[hc->ch[1]].body->links[hc->link[1]].jointType == hsJOINT_CRAWLER;
  if (track) {
    // a track's many nearly redundant points (its belt face and its rollers on one surface)
    // led ODE's pivoting solver into degenerate steps ("LCP internal error, s <= 0") climbing
    // a step edge; a CFM of 1e-7 instead of 1e-8 removes them (0.01 mm more give per kN)
    ct.surface.soft_cfm = fmax(ct.surface.soft_cfm, 1e-7);
  }
  if (sliding && track) {
    // a skidding track: Coulomb friction opposes the slip alone (one friction row along it, none
    // across), as a friction cone would; the pyramid's second row would hold the track
    // sideways with a full mu N of its own and stall a turn on the spot
    ct.surface.mode |= dContactMu2;
    ct.surface.mu2 = 0;
  }
  int moving = ir[0] != 0 || ir[1] != 0 || ir[2] != 0;
  if (sliding || moving) {
    // friction directions: along the sliding, or any tangent
    if (sliding) {
      for (int j = 0; j < 3; j++) {
        t1[j] = vt[j] / speed;
      }
    } else {
      double e[3] = {0, 0, 0};
      e[fabs(n[0]) < 0.6 ? 0 : 1] = 1;
      double en = hsu_dot(e, n);
      for (int j = 0; j < 3; j++) {
        t1[j] = e[j] - en * n[j];
      }
      double tn = hsu_norm(t1);
      for (int j = 0; j < 3; j++) {
        t1[j] /= tn;
      }
    }
    ct.surface.mode |= dContactFDir1;
    memcpy(ct.fdir1, t1, sizeof t1);
  }
  if (moving) {
    // servoed joint motion moves the surfaces: ODE's surface velocities (row = J v' - motion)
    double t2[3];
    hsu_cross(t2, n, t1);
    ct.surface.mode |= dContactMotion1 | dContactMotion2 | dContactMotionN;
    ct.surface.motion1 = -hsu_dot(t1, ir);
    ct.surface.motion2 = -hsu_dot(t2, ir);
    ct.surface.motionN = -hsu_dot(n, ir);
  }
  dJointID j = dJointCreateContact(w->world, w->contactGroup, &ct);
  dJointAttach(j, b1, b2);
  int *isl = w->contactIsland + 3 * i;
  isl[0] = hsd_islandIndex(b1);
  isl[1] = hsd_islandIndex(b2);
  isl[2] = ct.surface.mu > 0 ? 3 : 1;
  memset(&w->contactFb[i], 0, sizeof w->contactFb[i]);
  dJointSetFeedback(j, &w->contactFb[i]);
  w->contactJoint[i] = (int)sgn;
}

int hsd_charsMayTouch(const hsdWorld *w, int ch0, int ch1) {
  return !(w->chars[ch0].still && w->chars[ch1].still) &&
         !(hsd_atRest(w, ch0) && hsd_atRest(w, ch1));
}

void hsd_collide(hsdWorld *w) {
  hsd_prepareSleep(w);
  // the contacts of the link pairs that may touch, at the current poses
  int dropped = 0;
  w->ncontact = hsd_findContacts(w, w->contacts, w->opt.maxContacts, &dropped);
  for (int i = 0; i < dropped; i++) {
    hsd_warn(w, hsdWARN_CONTACTS, "more than %d contact points in one step; the rest are "
             "dropped", w->opt.maxContacts);
  }
  // a contact joint for each point with a dynamic body on either side
  for (int i = 0; i < w->ncontact; i++) {
    const hsdContact *hc = &w->contacts[i];
    const hsdCharacter *c1 = &w->chars[hc->ch[0]], *c2 = &w->chars[hc->ch[1]];
    const hsdLinkOde *l1 = &c1->links[hc->link[0]], *l2 = &c2->links[hc->link[1]];
    w->contactJoint[i] = 0;
    if (dynamicBody(l1->att) || dynamicBody(l2->att)) {
      makeContactJoint(w, i, hc, l1, c1->state->linkP + 3 * hc->link[0], l2,
                       c2->state->linkP + 3 * hc->link[1], &w->pairs[hc->pair].surface);
    }
  }
  hsd_wakeTouched(w);
}

// group the contacts by link pair: the generation loop writes each link pair's points in one
// run, so a group is a run of equal (pair, characters, links)
void hsd_groupContacts(hsdWorld *w) {
  w->ngroup = 0;
  for (int i = 0; i < w->ncontact; i++) {
    const hsdContact *c = &w->contacts[i];
    hsdContactGroup *g = w->ngroup ? &w->groups[w->ngroup - 1] : NULL;
    if (!g || g->pair != c->pair || g->ch[0] != c->ch[0] || g->ch[1] != c->ch[1] ||
        g->link[0] != c->link[0] || g->link[1] != c->link[1]) {
      g = &w->groups[w->ngroup++];
      g->pair = c->pair;
      memcpy(g->ch, c->ch, sizeof g->ch);
      memcpy(g->link, c->link, sizeof g->link);
      g->first = i;
      g->count = 0;
    }
    g->count++;
  }
}

void hsd_readContactForces(hsdWorld *w) {
  hsd_groupContacts(w);
  for (int i = 0; i < w->ncontact; i++) {
    hsdContact *c = &w->contacts[i];
    if (!w->contactJoint[i]) {
      continue;
    }
    // feedback f1 is the force on ODE's body 1, which is link[0]'s side unless swapped
    for (int j = 0; j < 3; j++) {
      c->force[j] = w->contactJoint[i] * w->contactFb[i].f1[j];
    }
    // per-link wrenches about the centres of mass, for inverse dynamics
    for (int side = 0; side < 2; side++) {
      hsdCharacter *ch = &w->chars[c->ch[side]];
      int k = c->link[side];
      const double *pk = ch->state->linkP + 3 * k, *Rk = ch->state->linkR + 9 * k;
      double sgn = side == 0 ? 1 : -1, f[3], cm[3], r[3], x[3];
      hsu_rotVec(cm, Rk, ch->body->links[k].com);
      for (int j = 0; j < 3; j++) {
        f[j] = sgn * c->force[j];
        r[j] = c->p[j] - (pk[j] + cm[j]);
      }
      hsu_cross(x, r, f);
      for (int j = 0; j < 3; j++) {
        ch->linkWrench[k][j] += f[j];
        ch->linkWrench[k][3 + j] += x[j];
      }
    }
  }
}

const hsdContact *hsd_contacts(const hsdWorld *w, int *n) {
  if (n) {
    *n = w ? w->ncontact : 0;
  }
  return w ? w->contacts : NULL;
}

const hsdContactGroup *hsd_contactGroups(const hsdWorld *w, int *n) {
  if (n) {
    *n = w ? w->ngroup : 0;
  }
  return w ? w->groups : NULL;
}

int hsd_linkContacts(const hsdWorld *w, int ch, int link, double *out, int max) {
  if (hsd_checkLink(w, ch, link, NULL) < 0) {
    return hsE_INVALID;
  }
  int count = 0;
  for (int i = 0; i < w->ncontact; i++) {
    const hsdContact *c = &w->contacts[i];
    for (int side = 0; side < 2; side++) {
      if (c->ch[side] != ch || c->link[side] != link) {
        continue;
      }
      if (count < max) {
        double sign = side == 0 ? 1 : -1, *o = out + 6 * count;
        for (int k = 0; k < 3; k++) {
          o[k] = c->p[k];
          o[3 + k] = sign * c->force[k];
        }
      }
      count++;
    }
  }
  return count;
}

// 1 if any link pair [first, first + count) of list is closer than tolerance (links of one
// rigid group of a character never are)
static int pairHits(hsdWorld *w, const hsdLinkPair *list, int first, int count,
                    double tolerance) {
  for (int i = first; i < first + count; i++) {
    const hsdLinkPair *lp = &list[i];
    const hsdCharacter *c1 = &w->chars[lp->ch[0]], *c2 = &w->chars[lp->ch[1]];
    if (lp->ch[0] == lp->ch[1] && c1->links[lp->link[0]].top == c2->links[lp->link[1]].top) {
      continue;
    }
    if (hsd_touches(w, lp, tolerance)) {
      return 1;
    }
  }
  return 0;
}

int hsd_checkIntersections(hsdWorld *w, int checkAll, int *hits, int maxHits) {
  if (!w || !w->initialised) {
    return hsE_INVALID;
  }
  hsd_shapesCurrent(w);
  int count = 0;
  for (int list = 0; list < 2; list++) {
    const hsdPair *pairs = list ? w->ipairs : w->pairs;
    int np = list ? w->nipair : w->npair;
    const hsdLinkPair *lps = list ? w->ilinkPairs.data : w->linkPairs.data;
    for (int i = 0; i < np; i++) {
      if (!pairHits(w, lps, pairs[i].first, pairs[i].count, pairs[i].tolerance)) {
        continue;
      }
      if (hits && count < maxHits) {
        hits[count] = list ? w->npair + i : i;
      }
      count++;
      if (!checkAll) {
        return hits ? (count < maxHits ? count : maxHits) : 1;
      }
    }
  }
  if (!hits) {
    return count > 0;
  }
  return count < maxHits ? count : maxHits;
}
