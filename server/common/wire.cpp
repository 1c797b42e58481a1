// wire.cpp - the simulation's IDL <-> C conversions (wire.h).
//
// Answers are built in one pass into sequences allocated at their final size: WorldState copies
// every link pose and the last step's contacts, grouped by link pair by the C world; SensorState
// copies q, dq, u in jointId order and the readings of each sensor type in sensorId order.
// Writes check every number first, so a refused request changes nothing.

#include "wire.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

namespace hrpsim {
namespace wire {

namespace {

const double kZeros[12] = {0};

// numbers a sensor type reports (range and vision: variable, 0 here)
int sensorSize(hstSensor type) {
  switch (type) {
    case hsSENSOR_FORCE: return 6;
    case hsSENSOR_RATEGYRO:
    case hsSENSOR_ACCELERATION: return 3;
    default: return 0;
  }
}

bool isJointType(DS::LinkDataType type) {
  return type == DS::JOINT_VALUE || type == DS::JOINT_VELOCITY ||
         type == DS::JOINT_ACCELERATION || type == DS::JOINT_TORQUE;
}

// types a client may write
bool isWritable(DS::LinkDataType type) {
  return dataSize(type) > 0 && type != DS::ABS_ACCELERATION;
}

// 0 if the n values are finite, else hsE_INVALID naming the first that is not
int requireFinite(const char *what, const double *v, size_t n, hsError *err) {
  for (size_t i = 0; i < n; i++) {
    if (!std::isfinite(v[i])) {
      return HS_ERR(err, hsE_INVALID, "%s: value %zu is %g (every number must be finite)", what,
                    i, v[i]);
    }
  }
  return 0;
}

// 0 if R (row-major 3x3) is a rotation to within 1e-6, else hsE_INVALID
int requireRotation(const char *what, const double R[9], hsError *err) {
  double T[12];
  double zero[3] = {0.0, 0.0, 0.0};
  hsu_makeTransform(T, R, zero);
  if (!hsu_isRigid(T, 1e-6)) {
    return HS_ERR(err, hsE_INVALID, "%s: the rotation (row-major 3x3) is not orthonormal with "
                  "determinant +1 to within 1e-6: [%g %g %g; %g %g %g; %g %g %g]", what, R[0],
                  R[1], R[2], R[3], R[4], R[5], R[6], R[7], R[8]);
  }
  return 0;
}

// why type cannot be written
int notWritable(DS::LinkDataType type, hsError *err) {
  return HS_ERR(err, hsE_INVALID, "%s cannot be set (%s)", typeName(type),
                dataSize(type) > 0 || type == DS::CONSTRAINT_FORCE
                    ? "it is computed by the simulation"
                    : "not a data type");
}

// write one link's checked datum v
int applyLinkData(SimCore &core, int ch, int link, DS::LinkDataType type, const double *v,
                  hsError *err) {
  hsdWorld *w = core.world();
  switch (type) {
    case DS::POSITION_GIVEN:
      return hsd_setPositionGiven(w, ch, link, v[0] > 0.0, err);
    case DS::JOINT_VALUE:
      return hsd_setJointValue(w, ch, link, v[0], err);
    case DS::JOINT_VELOCITY:
      return hsd_setJointVelocity(w, ch, link, v[0], err);
    case DS::JOINT_ACCELERATION:
      return hsd_setJointAcceleration(w, ch, link, v[0], err);
    case DS::JOINT_TORQUE:
      return hsd_setJointTorque(w, ch, link, v[0], err);
    case DS::ABS_TRANSFORM:
      return hsd_setLinkPose(w, ch, link, v, v + 3, err);
    case DS::ABS_VELOCITY:
      return hsd_setLinkVelocity(w, ch, link, v, v + 3, err);
    case DS::EXTERNAL_FORCE:
      return hsd_setExternalForce(w, ch, link, v, v + 3, err);
    default:
      return notWritable(type, err);
  }
}

// read one link's fixed-size datum into out (dataSize(type) numbers)
void readLinkData(const SimCore &core, int ch, int link, DS::LinkDataType type, double *out) {
  const hsdWorld *w = core.world();
  const hsBodyState *st = hsd_state(w, ch);
  switch (type) {
    case DS::POSITION_GIVEN:
      out[0] = hsd_positionGiven(w, ch, link) ? 1.0 : 0.0;
      break;
    case DS::JOINT_VALUE:
      out[0] = st->q[link];
      break;
    case DS::JOINT_VELOCITY:
      out[0] = st->dq[link];
      break;
    case DS::JOINT_ACCELERATION:
      out[0] = st->ddq[link];
      break;
    case DS::JOINT_TORQUE:
      out[0] = st->u[link];
      break;
    case DS::ABS_TRANSFORM:
      std::memcpy(out, st->linkP + 3 * link, 3 * sizeof(double));
      std::memcpy(out + 3, st->linkR + 9 * link, 9 * sizeof(double));
      break;
    case DS::ABS_VELOCITY:
    case DS::ABS_ACCELERATION: {
      const hsdLinkMotion *m = hsd_linkMotion(w, ch, link);
      const double *lin = m ? (type == DS::ABS_VELOCITY ? m->v : m->dv) : kZeros;
      const double *ang = m ? (type == DS::ABS_VELOCITY ? m->w : m->dw) : kZeros;
      std::memcpy(out, lin, 3 * sizeof(double));
      std::memcpy(out + 3, ang, 3 * sizeof(double));
      break;
    }
    case DS::EXTERNAL_FORCE:
      std::memcpy(out, hsd_input(w, ch)->ext + 6 * link, 6 * sizeof(double));
      break;
    default:
      HS_ASSERT(0);  // callers admit fixed-size types only
  }
}

}  // namespace

//---------------------------------- enums and vectors -----------------------------------------

const char *typeName(DS::LinkDataType type) {
  switch (type) {
    case DS::POSITION_GIVEN: return "POSITION_GIVEN";
    case DS::JOINT_VALUE: return "JOINT_VALUE";
    case DS::JOINT_VELOCITY: return "JOINT_VELOCITY";
    case DS::JOINT_ACCELERATION: return "JOINT_ACCELERATION";
    case DS::JOINT_TORQUE: return "JOINT_TORQUE";
    case DS::ABS_TRANSFORM: return "ABS_TRANSFORM";
    case DS::ABS_VELOCITY: return "ABS_VELOCITY";
    case DS::ABS_ACCELERATION: return "ABS_ACCELERATION";
    case DS::EXTERNAL_FORCE: return "EXTERNAL_FORCE";
    case DS::CONSTRAINT_FORCE: return "CONSTRAINT_FORCE";
    default: return "INVALID_DATA_TYPE";
  }
}

int dataSize(DS::LinkDataType type) {
  switch (type) {
    case DS::POSITION_GIVEN:
    case DS::JOINT_VALUE:
    case DS::JOINT_VELOCITY:
    case DS::JOINT_ACCELERATION:
    case DS::JOINT_TORQUE:
      return 1;
    case DS::ABS_TRANSFORM:
      return 12;
    case DS::ABS_VELOCITY:
    case DS::ABS_ACCELERATION:
    case DS::EXTERNAL_FORCE:
      return 6;
    default:
      return 0;
  }
}

int vector3(const OpenHRP::DblSequence3 &v, const char *what, double out[3], hsError *err) {
  if (v.length() != 3) {
    return HS_ERR(err, hsE_INVALID, "%s needs 3 numbers, got %u", what,
                  static_cast<unsigned>(v.length()));
  }
  if (requireFinite(what, v.get_buffer(), 3, err) < 0) {
    return hsE_INVALID;
  }
  for (CORBA::ULong k = 0; k < 3; k++) {
    out[k] = v[k];
  }
  return 0;
}

int gravityFromWire(const OpenHRP::DblSequence3 &v, double g[3], hsError *err) {
  if (v.length() != 3) {
    return HS_ERR(err, hsE_INVALID, "the gravity vector needs 3 numbers, got %u",
                  static_cast<unsigned>(v.length()));
  }
  if (requireFinite("gravity", v.get_buffer(), 3, err) < 0) {
    return hsE_INVALID;
  }
  // OpenHRP's vector is minus the gravitational acceleration: (0, 0, 9.8) pulls towards -z
  for (int k = 0; k < 3; k++) {
    g[k] = -v[k];
  }
  return 0;
}

void gravityToWire(const double g[3], OpenHRP::DblSequence3 &v) {
  v.length(3);
  for (CORBA::ULong k = 0; k < 3; k++) {
    v[k] = -g[k];
  }
}

int jointMode(DS::JointDriveMode mode, hstJointMode *out, hsError *err) {
  if (mode != DS::HIGH_GAIN_MODE && mode != DS::TORQUE_MODE) {
    return HS_ERR(err, hsE_INVALID, "unknown joint mode %d", static_cast<int>(mode));
  }
  *out = mode == DS::HIGH_GAIN_MODE ? hsMODE_HIGH_GAIN : hsMODE_TORQUE;
  return 0;
}

int integrateMethod(DS::IntegrateMethod method, hsError *err) {
  if (method != DS::EULER && method != DS::RUNGE_KUTTA) {
    return HS_ERR(err, hsE_INVALID, "unknown integration method %d", static_cast<int>(method));
  }
  // ODE has one integrator: both methods step with it (README, "DynamicsSimulator")
  if (method == DS::RUNGE_KUTTA) {
    hsu_log(hsLOG_INFO, "init: RUNGE_KUTTA requested; ODE's semi-implicit Euler stepper is used "
            "for both integration methods");
  }
  return 0;
}

int sensorOption(DS::SensorOption option, bool *on, hsError *err) {
  if (option != DS::DISABLE_SENSOR && option != DS::ENABLE_SENSOR) {
    return HS_ERR(err, hsE_INVALID, "unknown sensor option %d", static_cast<int>(option));
  }
  *on = option == DS::ENABLE_SENSOR;
  return 0;
}

//---------------------------------- characters ------------------------------------------------

int addCharacter(SimCore &core, const char *name, OpenHRP::BodyInfo_ptr info, hsError *err) {
  if (!*name) {
    return HS_ERR(err, hsE_INVALID, "empty character name");
  }
  {
    SimCore::Lock lock(core);
    if (hsd_characterIndex(core.world(), name) >= 0) {
      return HS_ERR(err, hsE_INVALID, "a character named '%s' is already registered in this "
                    "world (register one body under several names to simulate several copies)",
                    name);
    }
  }
  if (CORBA::is_nil(info)) {
    return HS_ERR(err, hsE_INVALID, "'%s': the BodyInfo reference is nil", name);
  }
  // read the remote body without the lock: it is a dozen round trips
  hsBody *raw = nullptr;
  hsError why = {};
  try {
    raw = bodyFromInfo(info, &why);
  } catch (const CORBA::SystemException &e) {
    return HS_ERR(err, hsE_INVALID, "'%s': cannot read its BodyInfo: CORBA %s", name, e._name());
  }
  if (!raw) {
    // the loader's error, where it was found kept, about this character
    std::string msg = std::string("'") + name + "': bad BodyInfo: " + why.message;
    std::snprintf(why.message, sizeof why.message, "%s", msg.c_str());
    if (err) {
      *err = why;
    }
    return why.code ? why.code : hsE_INVALID;
  }
  BodyPtr body = shareBody(raw);
  SimCore::Lock lock(core);
  return core.addCharacter(name, std::move(body), err);
}

//---------------------------------- link data -------------------------------------------------

int setLinkData(SimCore &core, int ch, int link, DS::LinkDataType type,
                const OpenHRP::DblSequence &data, hsError *err) {
  if (!isWritable(type)) {
    return notWritable(type, err);
  }
  size_t n = static_cast<size_t>(dataSize(type));
  if (data.length() != n) {
    return HS_ERR(err, hsE_INVALID, "'%s' link '%s': %s needs %zu numbers, got %u",
                  core.name(ch).c_str(), core.body(ch)->links[link].name, typeName(type), n,
                  static_cast<unsigned>(data.length()));
  }
  if (requireFinite(typeName(type), data.get_buffer(), n, err) < 0 ||
      (type == DS::ABS_TRANSFORM && requireRotation("ABS_TRANSFORM", data.get_buffer() + 3,
                                                   err) < 0)) {
    return hsE_INVALID;
  }
  return applyLinkData(core, ch, link, type, data.get_buffer(), err);
}

int setAllLinkData(SimCore &core, int ch, DS::LinkDataType type,
                   const OpenHRP::DblSequence &data, hsError *err) {
  if (!isWritable(type)) {
    return HS_ERR(err, hsE_INVALID, "%s cannot be set", typeName(type));
  }
  const hsBody *body = core.body(ch);
  size_t n = static_cast<size_t>(dataSize(type));
  size_t expected = n * static_cast<size_t>(body->njoint);
  if (data.length() != expected) {
    return HS_ERR(err, hsE_INVALID, "'%s': %s needs %zu numbers (%d joints x %zu, jointId "
                  "order), got %u", core.name(ch).c_str(), typeName(type), expected,
                  body->njoint, n, static_cast<unsigned>(data.length()));
  }
  // check everything before changing anything
  const double *v = data.get_buffer();
  if (requireFinite(typeName(type), v, expected, err) < 0) {
    return hsE_INVALID;
  }
  if (type == DS::ABS_TRANSFORM) {
    for (int j = 0; j < body->njoint; j++) {
      int l = body->jointLink[j];
      if (l >= 0 && requireRotation(body->links[l].name, v + 12 * j + 3, err) < 0) {
        return hsE_INVALID;
      }
    }
  }
  for (int j = 0; j < body->njoint; j++) {
    int l = body->jointLink[j];
    // joint data skip numbered links without a 1-dof joint, as OpenHRP skips fixed joints; the
    // entry of a jointId no link has (a gap) is ignored
    // (a crawler takes its track speed as JOINT_TORQUE, or JOINT_VELOCITY)
    bool track = body->links[l >= 0 ? l : 0].jointType == hsJOINT_CRAWLER &&
                 (type == DS::JOINT_TORQUE || type == DS::JOINT_VELOCITY);
    if (l < 0 || (isJointType(type) && !hsm_hasOneDofJoint(&body->links[l]) && !track)) {
      continue;
    }
    if (applyLinkData(core, ch, l, type, v + n * j, err) < 0) {
      return hsE_INVALID;
    }
  }
  return 0;
}

int getLinkData(const SimCore &core, int ch, int link, DS::LinkDataType type,
                OpenHRP::DblSequence &out, hsError *err) {
  if (type == DS::CONSTRAINT_FORCE) {
    // per contact point of the last step on this link: point, then the force on this link
    int count = hsd_linkContacts(core.world(), ch, link, nullptr, 0);
    out.length(static_cast<CORBA::ULong>(6 * count));
    hsd_linkContacts(core.world(), ch, link, out.get_buffer(), count);
    return 0;
  }
  int n = dataSize(type);
  if (n <= 0) {
    return HS_ERR(err, hsE_INVALID, "%s is not a data type", typeName(type));
  }
  out.length(static_cast<CORBA::ULong>(n));
  readLinkData(core, ch, link, type, out.get_buffer());
  return 0;
}

int getAllLinkData(const SimCore &core, int ch, DS::LinkDataType type, OpenHRP::DblSequence &out,
                   hsError *err) {
  if (type == DS::CONSTRAINT_FORCE) {
    return HS_ERR(err, hsE_INVALID, "CONSTRAINT_FORCE has a varying number of values per link: "
                  "read it link by link with getCharacterLinkData");
  }
  int n = dataSize(type);
  if (n <= 0) {
    return HS_ERR(err, hsE_INVALID, "%s is not a data type", typeName(type));
  }
  // jointId order; links without a jointId are not included
  const hsBody *body = core.body(ch);
  out.length(static_cast<CORBA::ULong>(body->njoint * n));
  double *buf = out.get_buffer();
  for (int j = 0; j < body->njoint; j++) {
    double *d = buf + static_cast<size_t>(j) * n;
    if (body->jointLink[j] < 0) {
      // a jointId no link has (a gap): OpenHRP's empty joint, at rest at the origin
      std::fill(d, d + n, 0.0);
      if (type == DS::ABS_TRANSFORM) {
        d[3] = d[7] = d[11] = 1.0;
      }
      continue;
    }
    readLinkData(core, ch, body->jointLink[j], type, d);
  }
  return 0;
}

//---------------------------------- states ----------------------------------------------------

OpenHRP::WorldState *worldState(const SimCore &core) {
  const hsdWorld *w = core.world();
  OpenHRP::WorldState_var ws = new OpenHRP::WorldState;
  ws->time = hsd_time(w);
  // every character's link frames, in link index order
  int nchar = core.characterCount();
  ws->characterPositions.length(static_cast<CORBA::ULong>(nchar));
  for (int ch = 0; ch < nchar; ch++) {
    OpenHRP::CharacterPosition &cp = ws->characterPositions[static_cast<CORBA::ULong>(ch)];
    cp.characterName = CORBA::string_dup(core.name(ch).c_str());
    const hsBodyState *st = hsd_state(w, ch);
    int nlink = core.body(ch)->nlink;
    cp.linkPositions.length(static_cast<CORBA::ULong>(nlink));
    OpenHRP::LinkPosition *lp = cp.linkPositions.get_buffer();
    for (int l = 0; l < nlink; l++) {
      std::memcpy(lp[l].p, st->linkP + 3 * l, 3 * sizeof(double));
      std::memcpy(lp[l].R, st->linkR + 9 * l, 9 * sizeof(double));
    }
  }
  // the last step's contacts, one Collision per touching link pair
  int n = 0, ngroup = 0;
  const hsdContact *c = hsd_contacts(w, &n);
  const hsdContactGroup *groups = hsd_contactGroups(w, &ngroup);
  ws->collisions.length(static_cast<CORBA::ULong>(ngroup));
  for (int g = 0; g < ngroup; g++) {
    const hsdContactGroup &k = groups[g];
    OpenHRP::Collision &col = ws->collisions[static_cast<CORBA::ULong>(g)];
    linkPair(core, col.pair, k.ch[0], k.link[0], k.ch[1], k.link[1], 0.0);
    col.points.length(static_cast<CORBA::ULong>(k.count));
    for (int i = 0; i < k.count; i++) {
      const hsdContact &ci = c[k.first + i];
      OpenHRP::CollisionPoint &pt = col.points[static_cast<CORBA::ULong>(i)];
      std::memcpy(pt.position, ci.p, 3 * sizeof(double));
      // OpenHRP's normal points from the pair's first link into its second (its solver takes
      // it as the inward normal of link 2); the C world's points from link[1] towards link[0]
      for (int j = 0; j < 3; j++) pt.normal[j] = -ci.n[j];
      pt.idepth = ci.depth;
    }
  }
  return ws._retn();
}

OpenHRP::SensorState *sensorState(const SimCore &core, int ch) {
  const hsBody *body = core.body(ch);
  const hsBodyState *st = hsd_state(core.world(), ch);
  OpenHRP::SensorState_var ss = new OpenHRP::SensorState;
  // joints in jointId order
  CORBA::ULong nj = static_cast<CORBA::ULong>(body->njoint);
  ss->q.length(nj);
  ss->dq.length(nj);
  ss->u.length(nj);
  for (CORBA::ULong j = 0; j < nj; j++) {
    int l = body->jointLink[j];
    ss->q[j] = l >= 0 ? st->q[l] : 0.0;  // a gap in the jointIds reads 0
    ss->dq[j] = l >= 0 ? st->dq[l] : 0.0;
    ss->u[j] = l >= 0 ? st->u[l] : 0.0;
  }
  // body sensors in sensorId order of each type; zeros while sensors are disabled
  int n = 0;
  const int *force = core.sensorsOfType(ch, hsSENSOR_FORCE, &n);
  ss->force.length(static_cast<CORBA::ULong>(n));
  for (int i = 0; i < n; i++) core.reading(ch, force[i], 6, ss->force[i]);
  const int *gyro = core.sensorsOfType(ch, hsSENSOR_RATEGYRO, &n);
  ss->rateGyro.length(static_cast<CORBA::ULong>(n));
  for (int i = 0; i < n; i++) core.reading(ch, gyro[i], 3, ss->rateGyro[i]);
  const int *accel = core.sensorsOfType(ch, hsSENSOR_ACCELERATION, &n);
  ss->accel.length(static_cast<CORBA::ULong>(n));
  for (int i = 0; i < n; i++) core.reading(ch, accel[i], 3, ss->accel[i]);
  // range sensors: the last scan, one number per beam (none while sensors are disabled)
  const int *range = core.sensorsOfType(ch, hsSENSOR_RANGE, &n);
  ss->range.length(static_cast<CORBA::ULong>(n));
  for (int i = 0; i < n; i++) {
    int size = core.readingCount(ch, range[i]);
    ss->range[static_cast<CORBA::ULong>(i)].length(static_cast<CORBA::ULong>(size));
    core.reading(ch, range[i], size, ss->range[static_cast<CORBA::ULong>(i)].get_buffer());
  }
  return ss._retn();
}

OpenHRP::DblSequence *sensorValues(const SimCore &core, int ch, int sensor) {
  int size = core.body(ch)->sensors[sensor].type == hsSENSOR_RANGE
                 ? core.readingCount(ch, sensor)
                 : sensorSize(core.body(ch)->sensors[sensor].type);
  OpenHRP::DblSequence_var out = new OpenHRP::DblSequence;
  out->length(static_cast<CORBA::ULong>(size));
  core.reading(ch, sensor, size, out->get_buffer());
  return out._retn();
}

//---------------------------------- pairs and kinematics --------------------------------------

void linkPair(const SimCore &core, OpenHRP::LinkPair &out, int ch0, int link0, int ch1,
              int link1, double tolerance) {
  out.charName1 = CORBA::string_dup(core.name(ch0).c_str());
  out.linkName1 = CORBA::string_dup(link0 >= 0 ? core.body(ch0)->links[link0].name : "");
  out.charName2 = CORBA::string_dup(core.name(ch1).c_str());
  out.linkName2 = CORBA::string_dup(link1 >= 0 ? core.body(ch1)->links[link1].name : "");
  out.tolerance = tolerance;
}

OpenHRP::LinkPairSequence *linkHits(const SimCore &core, const std::vector<hsdLinkHit> &hits) {
  OpenHRP::LinkPairSequence_var out = new OpenHRP::LinkPairSequence;
  out->length(static_cast<CORBA::ULong>(hits.size()));
  for (size_t i = 0; i < hits.size(); i++) {
    const hsdLinkHit &h = hits[i];
    linkPair(core, out[static_cast<CORBA::ULong>(i)], h.ch[0], h.link[0], h.ch[1], h.link[1],
             h.tolerance);
  }
  return out._retn();
}

OpenHRP::DistanceSequence *distances(const SimCore &core, const std::vector<hsdDistance> &d) {
  OpenHRP::DistanceSequence_var out = new OpenHRP::DistanceSequence;
  out->length(static_cast<CORBA::ULong>(d.size()));
  for (size_t i = 0; i < d.size(); i++) {
    const hsdDistance &h = d[i];
    OpenHRP::Distance &o = out[static_cast<CORBA::ULong>(i)];
    double tolerance = 0.0;
    int ch[2], link[2];
    hsd_pair(core.world(), h.pair, ch, link, &tolerance);
    linkPair(core, o.pair, h.ch[0], h.link[0], h.ch[1], h.link[1], tolerance);
    for (int j = 0; j < 3; j++) {
      if (h.empty) {
        o.minD = -1;
        o.point0[j] = o.point1[j] = 0;
      } else if (h.d < 0) {
        o.minD = 0;
        o.point0[j] = o.point1[j] = 0.5 * (h.p0[j] + h.p1[j]);
      } else {
        o.minD = h.d;
        o.point0[j] = h.p0[j];
        o.point1[j] = h.p1[j];
      }
    }
  }
  return out._retn();
}

OpenHRP::LinkPairSequence *collidingPairs(const SimCore &core, int ch) {
  int ngroup = 0;
  const hsdContactGroup *groups = hsd_contactGroups(core.world(), &ngroup);
  CORBA::ULong count = 0;
  for (int g = 0; g < ngroup; g++) {
    count += groups[g].ch[0] == ch || groups[g].ch[1] == ch;
  }
  OpenHRP::LinkPairSequence_var out = new OpenHRP::LinkPairSequence;
  out->length(count);
  CORBA::ULong i = 0;
  for (int g = 0; g < ngroup; g++) {
    const hsdContactGroup &k = groups[g];
    if (k.ch[0] == ch || k.ch[1] == ch) {
      linkPair(core, out[i++], k.ch[0], k.link[0], k.ch[1], k.link[1], 0.0);
    }
  }
  return out._retn();
}

int jacobian(const SimCore &core, int ch, int base, int target, OpenHRP::DblSequence &out,
             hsError *err) {
  const hsBody *body = core.body(ch);
  int n = hsm_jointPath(body, base, target, nullptr, nullptr, 0, err);
  if (n < 0) {
    return n;
  }
  out.length(static_cast<CORBA::ULong>(6 * n));
  if (n > 0 &&
      hsm_jacobian(body, hsd_state(core.world(), ch), base, target, out.get_buffer(), n, err) < 0) {
    return hsE_INVALID;
  }
  return 0;
}

}  // namespace wire
}  // namespace hrpsim
