// core_data.c - hsSim (core.h): the state views, link data with OpenHRP's semantics (checked
// before anything changes), kinematics, contact / intersection / distance queries, extra
// joints and what the scheduler logs, and the sensors' readings.

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core_private.h"

static const double kZeros[12] = {0};

//---------------------------------- state views -----------------------------------------------

static const hsBodyState *stateOf(const hsSim *sim, int ch) {
  return ch >= 0 && ch < sim->nchar ? hsd_state(sim->world, ch) : NULL;
}

const double *hs_q(const hsSim *sim, int ch) {
  const hsBodyState *st = stateOf(sim, ch);
  return st ? st->q : NULL;
}

const double *hs_dq(const hsSim *sim, int ch) {
  const hsBodyState *st = stateOf(sim, ch);
  return st ? st->dq : NULL;
}

const double *hs_ddq(const hsSim *sim, int ch) {
  const hsBodyState *st = stateOf(sim, ch);
  return st ? st->ddq : NULL;
}

const double *hs_u(const hsSim *sim, int ch) {
  const hsBodyState *st = stateOf(sim, ch);
  return st ? st->u : NULL;
}

const double *hs_linkP(const hsSim *sim, int ch) {
  const hsBodyState *st = stateOf(sim, ch);
  return st ? st->linkP : NULL;
}

const double *hs_linkR(const hsSim *sim, int ch) {
  const hsBodyState *st = stateOf(sim, ch);
  return st ? st->linkR : NULL;
}

const hsdLinkMotion *hs_linkMotions(const hsSim *sim, int ch) {
  return ch >= 0 && ch < sim->nchar ? hsd_linkMotion(sim->world, ch, 0) : NULL;
}

const double *hs_externalForces(const hsSim *sim, int ch) {
  return ch >= 0 && ch < sim->nchar ? hsd_input(sim->world, ch)->ext : NULL;
}

const double *hs_torqueCommands(const hsSim *sim, int ch) {
  return ch >= 0 && ch < sim->nchar ? hsd_input(sim->world, ch)->u : NULL;
}

//---------------------------------- link data -------------------------------------------------

static const char *const kDataNames[hsDATA_NTYPES] = {
    "INVALID_DATA_TYPE", "POSITION_GIVEN", "JOINT_VALUE", "JOINT_VELOCITY",
    "JOINT_ACCELERATION", "JOINT_TORQUE", "ABS_TRANSFORM", "ABS_VELOCITY", "ABS_ACCELERATION",
    "EXTERNAL_FORCE", "CONSTRAINT_FORCE"};

int hs_linkDataSize(int type) {
  switch (type) {
    case hsDATA_POSITION_GIVEN:
    case hsDATA_JOINT_VALUE:
    case hsDATA_JOINT_VELOCITY:
    case hsDATA_JOINT_ACCELERATION:
    case hsDATA_JOINT_TORQUE:
      return 1;
    case hsDATA_ABS_TRANSFORM:
      return 12;
    case hsDATA_ABS_VELOCITY:
    case hsDATA_ABS_ACCELERATION:
    case hsDATA_EXTERNAL_FORCE:
      return 6;
    default:
      return 0;
  }
}

const char *hs_linkDataName(int type) {
  return type > 0 && type < hsDATA_NTYPES ? kDataNames[type] : kDataNames[0];
}

static int isJointType(int type) {
  return type == hsDATA_JOINT_VALUE || type == hsDATA_JOINT_VELOCITY ||
         type == hsDATA_JOINT_ACCELERATION || type == hsDATA_JOINT_TORQUE;
}

// types a client may write
static int isWritable(int type) {
  return hs_linkDataSize(type) > 0 && type != hsDATA_ABS_ACCELERATION;
}

// 0 if the n values of link `link` of character ch (-1: a jointId gap, number j) are what the
// dynamics accepts (finite, within +-hsdMAX_VALUE: hsd_sane), else hsE_INVALID naming the
// character, the link and the first value that is not
static int requireSane(const hsSim *sim, int ch, int link, int j, int type, const double *v,
                       size_t n, hsError *err) {
  for (size_t i = 0; i < n; i++) {
    if (!hsd_sane(v + i, 1)) {
      const hsBody *b = hsd_characterBody(sim->world, ch);
      char gap[32];
      snprintf(gap, sizeof gap, "jointId %d", j);
      return HS_ERR(err, hsE_INVALID, "'%s' link '%s': %s value %zu is %g (every number must "
                    "be finite and within +-%g)", hsd_characterName(sim->world, ch),
                    link >= 0 ? b->links[link].name : gap, hs_linkDataName(type), i, v[i],
                    hsdMAX_VALUE);
    }
  }
  return 0;
}

// 0 if R (row-major 3x3) is a rotation to within 1e-6, else hsE_INVALID
static int requireRotation(const char *what, const double R[9], hsError *err) {
  double T[12];
  const double zero[3] = {0.0, 0.0, 0.0};
  hsu_makeTransform(T, R, zero);
  if (!hsu_isRigid(T, 1e-6)) {
    return HS_ERR(err, hsE_INVALID, "%s: the rotation (row-major 3x3) is not orthonormal with "
                  "determinant +1 to within 1e-6: [%g %g %g; %g %g %g; %g %g %g]", what, R[0],
                  R[1], R[2], R[3], R[4], R[5], R[6], R[7], R[8]);
  }
  return 0;
}

// why type cannot be written
static int notWritable(int type, hsError *err) {
  return HS_ERR(err, hsE_INVALID, "%s cannot be set (%s)", hs_linkDataName(type),
                hs_linkDataSize(type) > 0 || type == hsDATA_CONSTRAINT_FORCE
                    ? "it is computed by the simulation"
                    : "not a data type");
}

// write one link's checked datum v
static int applyLinkData(hsSim *sim, int ch, int link, int type, const double *v, hsError *err) {
  hsdWorld *w = sim->world;
  switch (type) {
    case hsDATA_POSITION_GIVEN:
      return hsd_setPositionGiven(w, ch, link, v[0] > 0.0, err);
    case hsDATA_JOINT_VALUE:
      return hsd_setJointValue(w, ch, link, v[0], err);
    case hsDATA_JOINT_VELOCITY:
      return hsd_setJointVelocity(w, ch, link, v[0], err);
    case hsDATA_JOINT_ACCELERATION:
      return hsd_setJointAcceleration(w, ch, link, v[0], err);
    case hsDATA_JOINT_TORQUE:
      return hsd_setJointTorque(w, ch, link, v[0], err);
    case hsDATA_ABS_TRANSFORM:
      return hsd_setLinkPose(w, ch, link, v, v + 3, err);
    case hsDATA_ABS_VELOCITY:
      return hsd_setLinkVelocity(w, ch, link, v, v + 3, err);
    case hsDATA_EXTERNAL_FORCE:
      return hsd_setExternalForce(w, ch, link, v, v + 3, err);
    default:
      return notWritable(type, err);
  }
}

// read one link's fixed-size datum into out (hs_linkDataSize(type) numbers)
static void readLinkData(const hsSim *sim, int ch, int link, int type, double *out) {
  const hsdWorld *w = sim->world;
  const hsBodyState *st = hsd_state(w, ch);
  switch (type) {
    case hsDATA_POSITION_GIVEN:
      out[0] = hsd_positionGiven(w, ch, link) ? 1.0 : 0.0;
      break;
    case hsDATA_JOINT_VALUE:
      out[0] = st->q[link];
      break;
    case hsDATA_JOINT_VELOCITY:
      out[0] = st->dq[link];
      break;
    case hsDATA_JOINT_ACCELERATION:
      out[0] = st->ddq[link];
      break;
    case hsDATA_JOINT_TORQUE:
      out[0] = st->u[link];
      break;
    case hsDATA_ABS_TRANSFORM:
      memcpy(out, st->linkP + 3 * link, 3 * sizeof(double));
      memcpy(out + 3, st->linkR + 9 * link, 9 * sizeof(double));
      break;
    case hsDATA_ABS_VELOCITY:
    case hsDATA_ABS_ACCELERATION: {
      const hsdLinkMotion *m = hsd_linkMotion(w, ch, link);
      const double *lin = m ? (type == hsDATA_ABS_VELOCITY ? m->v : m->dv) : kZeros;
      const double *ang = m ? (type == hsDATA_ABS_VELOCITY ? m->w : m->dw) : kZeros;
      memcpy(out, lin, 3 * sizeof(double));
      memcpy(out + 3, ang, 3 * sizeof(double));
      break;
    }
    case hsDATA_EXTERNAL_FORCE:
      memcpy(out, hsd_input(w, ch)->ext + 6 * link, 6 * sizeof(double));
      break;
    default:
      HS_ASSERT(0);  // callers admit fixed-size types only
  }
}

int hs_setLinkData(hsSim *sim, int ch, int link, int type, const double *v, int n,
                   hsError *err) {
  hs_enter(sim);
  int rc = 0;
  if (!hs_validLink(sim, ch, link, err)) {
    rc = hsE_INVALID;
  } else if (!isWritable(type)) {
    rc = notWritable(type, err);
  } else if (n != hs_linkDataSize(type)) {
    rc = HS_ERR(err, hsE_INVALID, "'%s' link '%s': %s needs %d numbers, got %d",
                hsd_characterName(sim->world, ch),
                hsd_characterBody(sim->world, ch)->links[link].name, hs_linkDataName(type),
                hs_linkDataSize(type), n);
  } else if (requireSane(sim, ch, link, -1, type, v, (size_t)n, err) < 0 ||
             (type == hsDATA_ABS_TRANSFORM && requireRotation("ABS_TRANSFORM", v + 3, err) < 0)) {
    rc = hsE_INVALID;
  } else {
    rc = applyLinkData(sim, ch, link, type, v, err);
  }
  hs_leave(sim);
  return rc;
}

// 1 if a joint datum of type reaches link l of body (a numbered 1-dof joint, or a crawler's
// track speed given as JOINT_TORQUE / JOINT_VELOCITY); other data reach every link
static int takesData(const hsBody *body, int l, int type) {
  if (!isJointType(type)) {
    return 1;
  }
  int track = body->links[l].jointType == hsJOINT_CRAWLER &&
              (type == hsDATA_JOINT_TORQUE || type == hsDATA_JOINT_VELOCITY);
  return hsm_hasOneDofJoint(&body->links[l]) || track;
}

// hs_checkAllLinkData without the lock: the body of character ch, or NULL with err
static const hsBody *checkAll(const hsSim *sim, int ch, int type, const double *v, int n,
                              hsError *err) {
  if (!isWritable(type)) {
    HS_ERR(err, hsE_INVALID, "%s cannot be set", hs_linkDataName(type));
    return NULL;
  }
  const hsBody *body = hs_validChar(sim, ch, err) ? hsd_characterBody(sim->world, ch) : NULL;
  if (!body) {
    return NULL;
  }
  size_t size = (size_t)hs_linkDataSize(type);
  size_t expected = size * (size_t)body->njoint;
  if (n < 0 || (size_t)n != expected || (n > 0 && !v)) {
    HS_ERR(err, hsE_INVALID, "'%s': %s needs %zu numbers (%d joints x %zu, jointId order), "
           "got %d", hsd_characterName(sim->world, ch), hs_linkDataName(type), expected,
           body->njoint, size, n);
    return NULL;
  }
  for (int j = 0; j < body->njoint; j++) {
    int l = body->jointLink[j];
    const double *d = v + size * (size_t)j;
    if (requireSane(sim, ch, l, j, type, d, size, err) < 0 ||
        (l >= 0 && type == hsDATA_ABS_TRANSFORM && requireRotation(body->links[l].name, d + 3,
                                                                   err) < 0)) {
      return NULL;
    }
  }
  return body;
}

int hs_checkAllLinkData(const hsSim *sim, int ch, int type, const double *v, int n,
                        hsError *err) {
  hs_enter(sim);
  int rc = checkAll(sim, ch, type, v, n, err) ? 0 : hsE_INVALID;
  hs_leave(sim);
  return rc;
}

int hs_setAllLinkData(hsSim *sim, int ch, int type, const double *v, int n, hsError *err) {
  hs_enter(sim);
  // everything is checked before anything changes
  const hsBody *body = checkAll(sim, ch, type, v, n, err);
  int rc = body ? 0 : hsE_INVALID;
  size_t size = (size_t)hs_linkDataSize(type);
  for (int j = 0; rc == 0 && j < body->njoint; j++) {
    // joint data skip numbered links without a 1-dof joint, as OpenHRP skips fixed joints; the
    // entry of a jointId no link has (a gap) is ignored
    int l = body->jointLink[j];
    if (l >= 0 && takesData(body, l, type) &&
        applyLinkData(sim, ch, l, type, v + size * (size_t)j, err) < 0) {
      rc = hsE_INVALID;
    }
  }
  hs_leave(sim);
  return rc;
}

int hs_getLinkData(const hsSim *sim, int ch, int link, int type, double *out, int max,
                   hsError *err) {
  hs_enter(sim);
  int rc = 0;
  if (!hs_validLink(sim, ch, link, err)) {
    rc = hsE_INVALID;
  } else if (type == hsDATA_CONSTRAINT_FORCE) {
    // per contact point of the last step on this link: point, then the force on this link
    int count = hsd_linkContacts(sim->world, ch, link, NULL, 0);
    if (count > 0 && max >= 6) {
      hsd_linkContacts(sim->world, ch, link, out, max / 6 < count ? max / 6 : count);
    }
    rc = 6 * count;
  } else if ((rc = hs_linkDataSize(type)) <= 0) {
    rc = HS_ERR(err, hsE_INVALID, "%s is not a data type", hs_linkDataName(type));
  } else if (max >= rc) {
    readLinkData(sim, ch, link, type, out);
  }
  hs_leave(sim);
  return rc;
}

int hs_getAllLinkData(const hsSim *sim, int ch, int type, double *out, int max, hsError *err) {
  if (type == hsDATA_CONSTRAINT_FORCE) {
    return HS_ERR(err, hsE_INVALID, "CONSTRAINT_FORCE has a varying number of values per link: "
                  "read it link by link with getCharacterLinkData");
  }
  int n = hs_linkDataSize(type);
  if (n <= 0) {
    return HS_ERR(err, hsE_INVALID, "%s is not a data type", hs_linkDataName(type));
  }
  hs_enter(sim);
  if (!hs_validChar(sim, ch, err)) {
    hs_leave(sim);
    return hsE_INVALID;
  }
  // jointId order; links without a jointId are not included
  const hsBody *body = hsd_characterBody(sim->world, ch);
  int total = body->njoint * n;
  for (int j = 0; total <= max && j < body->njoint; j++) {
    double *d = out + (size_t)j * (size_t)n;
    if (body->jointLink[j] < 0) {
      // a jointId no link has (a gap): OpenHRP's empty joint, at rest at the origin
      memset(d, 0, (size_t)n * sizeof *d);
      if (type == hsDATA_ABS_TRANSFORM) {
        d[3] = d[7] = d[11] = 1.0;
      }
      continue;
    }
    readLinkData(sim, ch, body->jointLink[j], type, d);
  }
  hs_leave(sim);
  return total;
}

int hs_setAllJointModes(hsSim *sim, int ch, int highGain, hsError *err) {
  hs_enter(sim);
  int rc = hs_validChar(sim, ch, err)
               ? hsd_setAllJointModes(sim->world, ch, highGain ? hsMODE_HIGH_GAIN : hsMODE_TORQUE,
                                      err)
               : hsE_INVALID;
  hs_leave(sim);
  return rc;
}

// set every 1-dof joint's datum of type from per-link v (n links), checked first
static int setPerLink(hsSim *sim, int ch, int type, const double *v, int n, hsError *err) {
  hs_enter(sim);
  int rc = 0;
  const hsBody *body = hs_validChar(sim, ch, err) ? hsd_characterBody(sim->world, ch) : NULL;
  if (!body) {
    rc = hsE_INVALID;
  } else if (n != body->nlink) {
    rc = HS_ERR(err, hsE_INVALID, "'%s': %s needs %d numbers (one per link), got %d",
                hsd_characterName(sim->world, ch), hs_linkDataName(type), body->nlink, n);
  }
  for (int l = 0; rc == 0 && l < n; l++) {
    if (requireSane(sim, ch, l, -1, type, v + l, 1, err) < 0) {
      rc = hsE_INVALID;  // everything is checked before anything changes
    }
  }
  for (int l = 1; rc == 0 && l < n; l++) {
    if (takesData(body, l, type)) {
      rc = applyLinkData(sim, ch, l, type, v + l, err);
    }
  }
  hs_leave(sim);
  return rc;
}

int hs_setJointValuesByLink(hsSim *sim, int ch, const double *q, int n, hsError *err) {
  return setPerLink(sim, ch, hsDATA_JOINT_VALUE, q, n, err);
}

int hs_setJointTorquesByLink(hsSim *sim, int ch, const double *u, int n, hsError *err) {
  return setPerLink(sim, ch, hsDATA_JOINT_TORQUE, u, n, err);
}

//---------------------------------- kinematics ------------------------------------------------

int hs_inverseKinematics(hsSim *sim, int ch, int base, int target, const double p[3],
                         const double R[9], hsError *err) {
  hs_enter(sim);
  int rc = hs_validChar(sim, ch, err)
               ? hsd_inverseKinematics(sim->world, ch, base, target, p, R, err)
               : hsE_INVALID;
  hs_leave(sim);
  return rc;
}

void hs_forwardKinematics(hsSim *sim, int ch) {
  hs_enter(sim);
  if (ch < sim->nchar) {
    hsd_forwardKinematics(sim->world, ch < 0 ? -1 : ch);
  }
  hs_leave(sim);
}

int hs_jacobian(const hsSim *sim, int ch, int base, int target, double *out, int max,
                hsError *err) {
  hs_enter(sim);
  int rc = 0;
  const hsBody *body = hs_validChar(sim, ch, err) ? hsd_characterBody(sim->world, ch) : NULL;
  int n = body ? hsm_jointPath(body, base, target, NULL, NULL, 0, err) : hsE_INVALID;
  if (n < 0) {
    rc = n;
  } else if (n > 0 && max >= 6 * n &&
             hsm_jacobian(body, hsd_state(sim->world, ch), base, target, out, n, err) < 0) {
    rc = hsE_INVALID;
  } else {
    rc = 6 * n;
  }
  hs_leave(sim);
  return rc;
}

//---------------------------------- contacts, intersections, distances ------------------------

const hsdContact *hs_contacts(const hsSim *sim, int *n) {
  return hsd_contacts(sim->world, n);
}

const hsdContactGroup *hs_contactGroups(const hsSim *sim, int *n) {
  return hsd_contactGroups(sim->world, n);
}

int hs_pairCount(const hsSim *sim) {
  return hsd_pairCount(sim->world);
}

int hs_pair(const hsSim *sim, int i, int ch[2], int link[2], double *tolerance) {
  return hsd_pair(sim->world, i, ch, link, tolerance);
}

// grow *buf (of *cap elements of size) to hold n; 0 or hsE_NOMEM
static int reserve(void **buf, int *cap, int n, size_t size, hsError *err) {
  if (n <= *cap) {
    return 0;
  }
  void *p = hsu_realloc(*buf, (size_t)n * size);
  if (!p) {
    return HS_ERR(err, hsE_NOMEM, "out of memory for a query's answer");
  }
  *buf = p;
  *cap = n;
  return 0;
}

// hsE_ORDER before start
static int requireStarted(const hsSim *sim, hsError *err) {
  if (!sim->started) {
    return HS_ERR(err, hsE_ORDER, "the simulation is not initialised: call initSimulation "
                  "first");
  }
  return 0;
}

const int *hs_checkIntersections(hsSim *sim, int checkAll, int *n, hsError *err) {
  *n = 0;
  hs_enter(sim);
  const int *out = NULL;
  if (requireStarted(sim, err) == 0) {
    hsd_forwardKinematics(sim->world, -1);
    int npair = hsd_pairCount(sim->world);
    if (reserve((void **)&sim->hits, &sim->capHit, npair + 1, sizeof *sim->hits, err) == 0) {
      int k = hsd_checkIntersections(sim->world, checkAll ? 1 : 0, sim->hits, npair);
      *n = k < 0 ? 0 : (k > npair ? npair : k);
      out = sim->hits;
    }
  }
  hs_leave(sim);
  return out;
}

const hsdLinkHit *hs_intersectingLinks(hsSim *sim, int checkAll, int *n, hsError *err) {
  *n = 0;
  hs_enter(sim);
  const hsdLinkHit *out = NULL;
  if (requireStarted(sim, err) == 0) {
    hsd_forwardKinematics(sim->world, -1);
    int k = hsd_intersectingLinks(sim->world, checkAll ? 1 : 0, sim->linkHits, sim->capLinkHit);
    if (k > sim->capLinkHit &&
        reserve((void **)&sim->linkHits, &sim->capLinkHit, k, sizeof *sim->linkHits, err) == 0) {
      k = hsd_intersectingLinks(sim->world, checkAll ? 1 : 0, sim->linkHits, k);
    }
    if (k < 0) {
      HS_ERR(err, k, "intersection query failed");
    } else if (k <= sim->capLinkHit) {
      *n = k;
      out = sim->linkHits ? sim->linkHits : (const hsdLinkHit *)kZeros;
    }
  }
  hs_leave(sim);
  return out;
}

const hsdDistance *hs_distances(hsSim *sim, int *n, hsError *err) {
  *n = 0;
  hs_enter(sim);
  const hsdDistance *out = NULL;
  if (requireStarted(sim, err) == 0) {
    hsd_forwardKinematics(sim->world, -1);
    int k = hsd_checkDistances(sim->world, sim->dists, sim->capDist);
    if (k > sim->capDist &&
        reserve((void **)&sim->dists, &sim->capDist, k, sizeof *sim->dists, err) == 0) {
      k = hsd_checkDistances(sim->world, sim->dists, k);
    }
    if (k < 0) {
      HS_ERR(err, k, "distance query failed");
    } else if (k <= sim->capDist) {
      *n = k;
      out = sim->dists ? sim->dists : (const hsdDistance *)kZeros;
    }
  }
  hs_leave(sim);
  return out;
}

//---------------------------------- extra joints and logging records --------------------------

const char *hs_extraJointTypeName(int type) {
  return hsm_extraJointTypeName((hstExtraJoint)type);
}

int hs_extraJointCount(const hsSim *sim) {
  return hsd_extraJointCount(sim->world);
}

int hs_extraJoint(const hsSim *sim, int ch, const char *name, hsError *err) {
  if (!hs_validChar(sim, ch, err)) {
    return -1;
  }
  int i = hsd_extraJointIndex(sim->world, ch, name);
  if (i >= 0) {
    return i;
  }
  char known[400] = "";
  size_t len = 0;
  for (int k = 0; k < hsd_extraJointCount(sim->world) && len < sizeof known; k++) {
    int chs[2];
    const char *n = hsd_extraJointName(sim->world, k, chs, NULL);
    if (chs[0] == ch || chs[1] == ch) {
      int w = snprintf(known + len, sizeof known - len, "%s'%s'", len ? ", " : "", n);
      len += w > 0 ? (size_t)w : 0;
    }
  }
  HS_ERR(err, hsE_INVALID, "character '%s' has no extra joint named '%s' (it has %s)",
         hsd_characterName(sim->world, ch), name, len ? known : "none");
  return -1;
}

const char *hs_extraJointName(const hsSim *sim, int i, int ch[2]) {
  int chs[2];
  return hsd_extraJointName(sim->world, i, ch ? ch : chs, NULL);
}

int hs_extraJointForce(const hsSim *sim, int i, double out[6]) {
  return hsd_extraJointForce(sim->world, i, out);
}

int hs_jointStopTorques(const hsSim *sim, int ch, double *out, int max) {
  const hsBody *b = hs_body(sim, ch);
  if (!b) {
    return 0;
  }
  hs_enter(sim);  // the torques are read from ODE's joint feedback
  for (int j = 0; j < b->njoint && j < max; j++) {
    int l = b->jointLink[j];
    out[j] = l > 0 ? hsd_jointConstraintTorque(sim->world, ch, l) : 0.0;
  }
  hs_leave(sim);
  return b->njoint;
}

int hs_tracks(const hsSim *sim, int ch, int *links, int max) {
  const hsBody *b = hs_body(sim, ch);
  int n = 0;
  for (int k = 1; b && k < b->nlink; k++) {
    if (b->links[k].jointType == hsJOINT_CRAWLER) {
      if (n < max) {
        links[n] = k;
      }
      n++;
    }
  }
  return n;
}

//---------------------------------- sensors ---------------------------------------------------

const char *hs_sensorTypeName(int type) {
  const hsmSensorType *t = hsm_sensorType((hstSensor)type);
  return t ? t->name : NULL;
}

const char *hs_sensorTypeKey(int type) {
  const hsmSensorType *t = hsm_sensorType((hstSensor)type);
  return t ? t->key : NULL;
}

int hs_sensorTypeNoisy(int type) {
  const hsmSensorType *t = hsm_sensorType((hstSensor)type);
  return t ? t->noisy : 0;
}

int hs_sensorTypeSize(int type) {
  const hsmSensorType *t = hsm_sensorType((hstSensor)type);
  return t ? t->size : -1;
}

int hs_sensorTypeOrder(int type) {
  const hsmSensorType *t = hsm_sensorType((hstSensor)type);
  return t ? t->stateOrder : -1;
}

int hs_sensorCount(const hsSim *sim, int ch) {
  const hsBody *b = hs_body(sim, ch);
  return b ? b->nsensor : 0;
}

// sensor s of character ch, or NULL
static const hsSensor *sensorOf(const hsSim *sim, int ch, int s) {
  const hsBody *b = hs_body(sim, ch);
  return b && s >= 0 && s < b->nsensor ? &b->sensors[s] : NULL;
}

const char *hs_sensorName(const hsSim *sim, int ch, int s) {
  const hsSensor *sn = sensorOf(sim, ch, s);
  return sn ? sn->name : NULL;
}

int hs_sensorType(const hsSim *sim, int ch, int s) {
  const hsSensor *sn = sensorOf(sim, ch, s);
  return sn ? (int)sn->type : -1;
}

int hs_sensorId(const hsSim *sim, int ch, int s) {
  const hsSensor *sn = sensorOf(sim, ch, s);
  return sn ? sn->id : -1;
}

const int *hs_sensorsOfType(const hsSim *sim, int ch, int type, int *n) {
  *n = 0;
  if (ch < 0 || ch >= sim->nchar || type < 0 || type >= hsSENSOR_NTYPES) {
    return NULL;
  }
  return hss_sensorsOfType(sim->chars[ch].sensors, (hstSensor)type, n);
}

const double *hs_reading(const hsSim *sim, int ch, int s, int *n) {
  *n = 0;
  const hsSensor *sn = sensorOf(sim, ch, s);
  if (!sn) {
    return NULL;
  }
  int k = 0;
  const double *v = hss_reading(sim->chars[ch].sensors, s, &k);
  if (!v || k == 0) {
    return NULL;
  }
  if (!sim->sensors) {
    // disabled: zeros, and no beams for range sensors
    *n = sn->type == hsSENSOR_RANGE ? 0 : k;
    return sim->zeros;
  }
  *n = k;
  return v;
}
