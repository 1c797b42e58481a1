// wire.cpp - the simulation's IDL <-> C conversions (wire.h), over the core (core.h).
//
// Answers are built in one pass into sequences allocated at their final size: WorldState copies
// every link pose and the last step's contacts, grouped by link pair by the core; SensorState
// copies q, dq, u in jointId order and the readings of each sensor type in sensorId order.
// Writes go to the core, which checks every number first, so a refused request changes nothing.

#include "wire.h"

#include "body_info.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace hrpsim {
namespace wire {

namespace {

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

// the core's link data type of a wire type (numbered alike)
int coreType(DS::LinkDataType type) {
  return static_cast<int>(type);
}

}  // namespace

//---------------------------------- enums and vectors -----------------------------------------

const char *typeName(DS::LinkDataType type) {
  return hs_linkDataName(coreType(type));
}

int dataSize(DS::LinkDataType type) {
  return hs_linkDataSize(coreType(type));
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

int jointMode(DS::JointDriveMode mode, int *highGain, hsError *err) {
  if (mode != DS::HIGH_GAIN_MODE && mode != DS::TORQUE_MODE) {
    return HS_ERR(err, hsE_INVALID, "unknown joint mode %d", static_cast<int>(mode));
  }
  *highGain = mode == DS::HIGH_GAIN_MODE ? 1 : 0;
  return 0;
}

int integrateMethod(hsSim *sim, DS::IntegrateMethod method, hsError *err) {
  if (method != DS::EULER && method != DS::RUNGE_KUTTA) {
    return HS_ERR(err, hsE_INVALID, "unknown integration method %d", static_cast<int>(method));
  }
  int rk = method == DS::RUNGE_KUTTA ? 1 : 0;
  // the ODE engine has one integrator (docs/servers.md, "DynamicsSimulator")
  if (rk && std::strcmp(hs_engine(sim), "ode") == 0) {
    hsu_log(hsLOG_INFO, "init: RUNGE_KUTTA requested on the ODE engine, which steps with its "
            "semi-implicit Euler stepper for both methods (the joint-space engine, if chosen "
            "before the start, takes it as a fourth-order step)");
  }
  return hs_setIntegrateMethod(sim, rk, err);
}

int sensorOption(DS::SensorOption option, bool *on, hsError *err) {
  if (option != DS::DISABLE_SENSOR && option != DS::ENABLE_SENSOR) {
    return HS_ERR(err, hsE_INVALID, "unknown sensor option %d", static_cast<int>(option));
  }
  *on = option == DS::ENABLE_SENSOR;
  return 0;
}

//---------------------------------- characters ------------------------------------------------

int addCharacter(hsSim *sim, const char *name, OpenHRP::BodyInfo_ptr info, hsError *err) {
  // the core's check of the name, before the remote body is read (hs_addCharacter repeats it)
  if (hs_checkCharacterName(sim, name, err) < 0) {
    return hsE_INVALID;
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
  // the simulation owns the body from here on, whatever happens
  return hs_addCharacter(sim, name, raw, 1, err);
}

//---------------------------------- link data -------------------------------------------------

int setLinkData(hsSim *sim, int ch, int link, DS::LinkDataType type,
                const OpenHRP::DblSequence &data, hsError *err) {
  return hs_setLinkData(sim, ch, link, coreType(type), data.get_buffer(),
                        static_cast<int>(data.length()), err);
}

int setAllLinkData(hsSim *sim, int ch, DS::LinkDataType type, const OpenHRP::DblSequence &data,
                   hsError *err) {
  return hs_setAllLinkData(sim, ch, coreType(type), data.get_buffer(),
                           static_cast<int>(data.length()), err);
}

int getLinkData(const hsSim *sim, int ch, int link, DS::LinkDataType type,
                OpenHRP::DblSequence &out, hsError *err) {
  SimLock lock(sim);
  int n = hs_getLinkData(sim, ch, link, coreType(type), nullptr, 0, err);
  if (n < 0) {
    return n;
  }
  out.length(static_cast<CORBA::ULong>(n));
  n = hs_getLinkData(sim, ch, link, coreType(type), out.get_buffer(), n, err);
  return n < 0 ? n : 0;
}

int getAllLinkData(const hsSim *sim, int ch, DS::LinkDataType type, OpenHRP::DblSequence &out,
                   hsError *err) {
  SimLock lock(sim);
  int n = hs_getAllLinkData(sim, ch, coreType(type), nullptr, 0, err);
  if (n < 0) {
    return n;
  }
  out.length(static_cast<CORBA::ULong>(n));
  n = hs_getAllLinkData(sim, ch, coreType(type), out.get_buffer(), n, err);
  return n < 0 ? n : 0;
}

//---------------------------------- states ----------------------------------------------------

OpenHRP::WorldState *worldState(const hsSim *sim) {
  SimLock lock(sim);
  OpenHRP::WorldState_var ws = new OpenHRP::WorldState;
  ws->time = hs_time(sim);
  // every character's link frames, in link index order
  int nchar = hs_characterCount(sim);
  ws->characterPositions.length(static_cast<CORBA::ULong>(nchar));
  for (int ch = 0; ch < nchar; ch++) {
    OpenHRP::CharacterPosition &cp = ws->characterPositions[static_cast<CORBA::ULong>(ch)];
    cp.characterName = CORBA::string_dup(hs_characterName(sim, ch));
    const double *p = hs_linkP(sim, ch), *R = hs_linkR(sim, ch);
    int nlink = hs_linkCount(sim, ch);
    cp.linkPositions.length(static_cast<CORBA::ULong>(nlink));
    OpenHRP::LinkPosition *lp = cp.linkPositions.get_buffer();
    for (int l = 0; l < nlink; l++) {
      std::memcpy(lp[l].p, p + 3 * l, 3 * sizeof(double));
      std::memcpy(lp[l].R, R + 9 * l, 9 * sizeof(double));
    }
  }
  // the last step's contacts, one Collision per touching link pair
  int n = 0, ngroup = 0;
  const hsdContact *c = hs_contacts(sim, &n);
  const hsdContactGroup *groups = hs_contactGroups(sim, &ngroup);
  collisionsInto(sim, groups, ngroup, c, ws->collisions);
  return ws._retn();
}

void collisionsInto(const hsSim *sim, const hsdContactGroup *groups, int ngroup,
                    const hsdContact *points, OpenHRP::CollisionSequence &out) {
  out.length(static_cast<CORBA::ULong>(ngroup));
  for (int g = 0; g < ngroup; g++) {
    const hsdContactGroup &k = groups[g];
    OpenHRP::Collision &col = out[static_cast<CORBA::ULong>(g)];
    linkPair(sim, col.pair, k.ch[0], k.link[0], k.ch[1], k.link[1], 0.0);
    col.points.length(static_cast<CORBA::ULong>(k.count));
    for (int i = 0; i < k.count; i++) {
      const hsdContact &ci = points[k.first + i];
      OpenHRP::CollisionPoint &pt = col.points[static_cast<CORBA::ULong>(i)];
      std::memcpy(pt.position, ci.p, 3 * sizeof(double));
      // OpenHRP's normal points from the pair's first link into its second (its solver takes
      // it as the inward normal of link 2); the C world's points from link[1] towards link[0]
      for (int j = 0; j < 3; j++) pt.normal[j] = -ci.n[j];
      pt.idepth = ci.depth;
    }
  }
}

namespace {

// the readings of the sensors of one fixed-size type into a sequence of arrays (force: 6,
// gyro and accelerometer: 3; the sizes are the sensor table's)
template <typename Seq>
void fixedReadings(const hsSim *sim, int ch, hstSensor type, Seq &seq) {
  int n = 0;
  const int *list = hs_sensorsOfType(sim, ch, type, &n);
  int size = hs_sensorTypeSize(type);
  seq.length(static_cast<CORBA::ULong>(n));
  for (int i = 0; i < n; i++) {
    int k = 0;
    const double *v = hs_reading(sim, ch, list[i], &k);
    for (int j = 0; j < size; j++) {
      seq[static_cast<CORBA::ULong>(i)][j] = v && j < k ? v[j] : 0.0;
    }
  }
}

}  // namespace

OpenHRP::SensorState *sensorState(const hsSim *sim, int ch) {
  OpenHRP::SensorState_var ss = new OpenHRP::SensorState;
  sensorStateInto(sim, ch, ss.inout());
  return ss._retn();
}

void sensorStateInto(const hsSim *sim, int ch, OpenHRP::SensorState &out) {
  SimLock lock(sim);
  OpenHRP::SensorState *ss = &out;
  // joints in jointId order
  CORBA::ULong nj = static_cast<CORBA::ULong>(hs_jointIdCount(sim, ch));
  const int *jointLink = hs_jointLinks(sim, ch);
  const double *q = hs_q(sim, ch), *dq = hs_dq(sim, ch), *u = hs_u(sim, ch);
  ss->q.length(nj);
  ss->dq.length(nj);
  ss->u.length(nj);
  for (CORBA::ULong j = 0; j < nj; j++) {
    int l = jointLink[j];
    ss->q[j] = l >= 0 ? q[l] : 0.0;  // a gap in the jointIds reads 0
    ss->dq[j] = l >= 0 ? dq[l] : 0.0;
    ss->u[j] = l >= 0 ? u[l] : 0.0;
  }
  // body sensors in sensorId order of each type (SensorState's blocks: the sensor table's
  // stateOrder); zeros while sensors are disabled
  fixedReadings(sim, ch, hsSENSOR_FORCE, ss->force);
  fixedReadings(sim, ch, hsSENSOR_RATEGYRO, ss->rateGyro);
  fixedReadings(sim, ch, hsSENSOR_ACCELERATION, ss->accel);
  // range sensors: the last scan, one number per beam (none while sensors are disabled)
  int n = 0;
  const int *range = hs_sensorsOfType(sim, ch, hsSENSOR_RANGE, &n);
  ss->range.length(static_cast<CORBA::ULong>(n));
  for (int i = 0; i < n; i++) {
    int size = 0;
    const double *v = hs_reading(sim, ch, range[i], &size);
    OpenHRP::DblSequence &r = ss->range[static_cast<CORBA::ULong>(i)];
    r.length(static_cast<CORBA::ULong>(size));
    if (size > 0) {
      std::memcpy(r.get_buffer(), v, static_cast<size_t>(size) * sizeof(double));
    }
  }
}

namespace {

// n doubles at v into a sequence
void doublesInto(const double *v, int n, OpenHRP::DblSequence &out) {
  out.length(static_cast<CORBA::ULong>(n));
  if (n > 0) {
    std::memcpy(out.get_buffer(), v, static_cast<size_t>(n) * sizeof(double));
  }
}

// the logged readings of one fixed-size sensor type (width numbers each) into a sequence
template <typename Seq>
void loggedReadings(const hsSim *sim, int ch, hstSensor type, const double *v, Seq &seq) {
  int n = 0, width = hs_sensorTypeSize(type);
  hs_sensorsOfType(sim, ch, type, &n);
  seq.length(static_cast<CORBA::ULong>(n));
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < width; j++) {
      seq[static_cast<CORBA::ULong>(i)][j] = v[width * i + j];
    }
  }
}

}  // namespace

void logRecordInto(const hsRun *run, long long r, hrpsim::LogRecord &out) {
  const hsSim *sim = hs_runSim(run);
  const double *rec = hs_runRecords(run) + r * hs_runRecordSize(run);
  CORBA::ULong nchar = static_cast<CORBA::ULong>(hs_characterCount(sim));
  auto at = [&](int block, int ch) { return rec + hs_runOffset(run, block, ch); };
  // the world: time, link frames, the record's contacts
  OpenHRP::WorldState &ws = out.world;
  ws.time = *at(hsRUN_TIME, 0);
  ws.characterPositions.length(nchar);
  for (CORBA::ULong ch = 0; ch < nchar; ch++) {
    OpenHRP::CharacterPosition &cp = ws.characterPositions[ch];
    cp.characterName = CORBA::string_dup(hs_characterName(sim, static_cast<int>(ch)));
    const double *p = at(hsRUN_LINK_P, static_cast<int>(ch));
    const double *R = at(hsRUN_LINK_R, static_cast<int>(ch));
    int nlink = hs_linkCount(sim, static_cast<int>(ch));
    cp.linkPositions.length(static_cast<CORBA::ULong>(nlink));
    OpenHRP::LinkPosition *lp = cp.linkPositions.get_buffer();
    for (int l = 0; l < nlink; l++) {
      std::memcpy(lp[l].p, p + 3 * l, 3 * sizeof(double));
      std::memcpy(lp[l].R, R + 9 * l, 9 * sizeof(double));
    }
  }
  const long long *index = hs_runContactIndex(run);
  long long npoint = 0, ngroup = 0;
  const hsdContact *points = hs_runContacts(run, &npoint) + index[2 * r];
  const hsdContactGroup *groups = hs_runContactGroups(run, &ngroup) + index[2 * r + 1];
  int ng = static_cast<int>(index[2 * r + 3] - index[2 * r + 1]);
  collisionsInto(sim, groups, ng, points, ws.collisions);
  // the force at every point, in the order of the collisions
  CORBA::ULong total = 0, k = 0;
  for (int g = 0; g < ng; g++) {
    total += 3 * static_cast<CORBA::ULong>(groups[g].count);
  }
  out.contactForces.length(total);
  for (int g = 0; g < ng; g++) {
    for (int i = 0; i < groups[g].count; i++, k += 3) {
      std::memcpy(out.contactForces.get_buffer() + k, points[groups[g].first + i].force,
                  3 * sizeof(double));
    }
  }
  // the sensor states, when logged (range scans from the run's scans, characters in order)
  bool sensors = hs_runOffset(run, hsRUN_Q, 0) >= 0;
  out.sensors.length(sensors ? nchar : 0);
  int nrange = hs_runRangeCount(run), scan = 0;
  long long nbeam = 0;
  const double *beams = hs_runRanges(run, &nbeam);
  const long long *rangeIndex = hs_runRangeIndex(run) + r * nrange;
  for (CORBA::ULong ch = 0; sensors && ch < nchar; ch++) {
    OpenHRP::SensorState &ss = out.sensors[ch];
    int c = static_cast<int>(ch), nj = hs_jointIdCount(sim, c);
    doublesInto(at(hsRUN_Q, c), nj, ss.q);
    doublesInto(at(hsRUN_DQ, c), nj, ss.dq);
    doublesInto(at(hsRUN_U, c), nj, ss.u);
    loggedReadings(sim, c, hsSENSOR_FORCE, at(hsRUN_FORCE, c), ss.force);
    loggedReadings(sim, c, hsSENSOR_RATEGYRO, at(hsRUN_GYRO, c), ss.rateGyro);
    loggedReadings(sim, c, hsSENSOR_ACCELERATION, at(hsRUN_ACCEL, c), ss.accel);
    int n = 0;
    hs_sensorsOfType(sim, c, hsSENSOR_RANGE, &n);
    ss.range.length(static_cast<CORBA::ULong>(n));
    for (int i = 0; i < n; i++, scan++) {
      long long first = rangeIndex[scan];
      doublesInto(beams + first, static_cast<int>(rangeIndex[scan + 1] - first),
                  ss.range[static_cast<CORBA::ULong>(i)]);
    }
  }
  // loop forces, track speeds, joint-stop torques
  int nloop = hs_extraJointCount(sim);
  out.loops.length(static_cast<CORBA::ULong>(nloop));
  for (int i = 0; i < nloop; i++) {
    hrpsim::LoopForce &lf = out.loops[static_cast<CORBA::ULong>(i)];
    int chs[2];
    lf.name = CORBA::string_dup(hs_extraJointName(sim, i, chs));
    lf.character = CORBA::string_dup(hs_characterName(sim, chs[0]));
    lf.force.length(6);
    std::memcpy(lf.force.get_buffer(), at(hsRUN_LOOP, i), 6 * sizeof(double));
  }
  out.tracks.length(0);
  out.jointStops.length(nchar);
  for (CORBA::ULong ch = 0; ch < nchar; ch++) {
    int c = static_cast<int>(ch);
    doublesInto(at(hsRUN_JOINT_STOPS, c), hs_jointIdCount(sim, c), out.jointStops[ch]);
    int ntrack = hs_tracks(sim, c, nullptr, 0);
    if (ntrack <= 0) {
      continue;
    }
    std::vector<int> links(static_cast<size_t>(ntrack));
    hs_tracks(sim, c, links.data(), ntrack);
    const double *speed = at(hsRUN_TRACKS, c);
    for (int t = 0; t < ntrack; t++) {
      CORBA::ULong n = out.tracks.length();
      out.tracks.length(n + 1);
      out.tracks[n].character = CORBA::string_dup(hs_characterName(sim, c));
      out.tracks[n].link = CORBA::string_dup(hs_linkName(sim, c, links[static_cast<size_t>(t)]));
      out.tracks[n].speed = speed[t];
    }
  }
  // the push applied in the step before the record, if any
  const double *push = at(hsRUN_PUSH, 0);
  out.pushes.length(push[0] >= 0.0 ? 1 : 0);
  if (push[0] >= 0.0) {
    int c = static_cast<int>(push[0]), link = static_cast<int>(push[1]);
    hrpsim::PushRecord &pr = out.pushes[0];
    pr.character = CORBA::string_dup(hs_characterName(sim, c));
    pr.link = CORBA::string_dup(hs_linkName(sim, c, link));
    pr.force.length(6);
    std::memcpy(pr.force.get_buffer(), push + 2, 6 * sizeof(double));
  }
}

OpenHRP::DblSequence *sensorValues(const hsSim *sim, int ch, int sensor) {
  SimLock lock(sim);
  int size = 0;
  const double *v = hs_reading(sim, ch, sensor, &size);
  OpenHRP::DblSequence_var out = new OpenHRP::DblSequence;
  out->length(static_cast<CORBA::ULong>(size));
  if (size > 0) {
    std::memcpy(out->get_buffer(), v, static_cast<size_t>(size) * sizeof(double));
  }
  return out._retn();
}

//---------------------------------- pairs and kinematics --------------------------------------

void linkPair(const hsSim *sim, OpenHRP::LinkPair &out, int ch0, int link0, int ch1, int link1,
              double tolerance) {
  out.charName1 = CORBA::string_dup(hs_characterName(sim, ch0));
  out.linkName1 = CORBA::string_dup(link0 >= 0 ? hs_linkName(sim, ch0, link0) : "");
  out.charName2 = CORBA::string_dup(hs_characterName(sim, ch1));
  out.linkName2 = CORBA::string_dup(link1 >= 0 ? hs_linkName(sim, ch1, link1) : "");
  out.tolerance = tolerance;
}

OpenHRP::LinkPairSequence *linkHits(const hsSim *sim, const hsdLinkHit *hits, int n) {
  OpenHRP::LinkPairSequence_var out = new OpenHRP::LinkPairSequence;
  out->length(static_cast<CORBA::ULong>(n));
  for (int i = 0; i < n; i++) {
    const hsdLinkHit &h = hits[i];
    linkPair(sim, out[static_cast<CORBA::ULong>(i)], h.ch[0], h.link[0], h.ch[1], h.link[1],
             h.tolerance);
  }
  return out._retn();
}

OpenHRP::DistanceSequence *distances(const hsSim *sim, const hsdDistance *d, int n) {
  OpenHRP::DistanceSequence_var out = new OpenHRP::DistanceSequence;
  out->length(static_cast<CORBA::ULong>(n));
  for (int i = 0; i < n; i++) {
    const hsdDistance &h = d[i];
    OpenHRP::Distance &o = out[static_cast<CORBA::ULong>(i)];
    double tolerance = 0.0;
    int ch[2], link[2];
    hs_pair(sim, h.pair, ch, link, &tolerance);
    linkPair(sim, o.pair, h.ch[0], h.link[0], h.ch[1], h.link[1], tolerance);
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

OpenHRP::LinkPairSequence *collidingPairs(const hsSim *sim, int ch) {
  SimLock lock(sim);
  int ngroup = 0;
  const hsdContactGroup *groups = hs_contactGroups(sim, &ngroup);
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
      linkPair(sim, out[i++], k.ch[0], k.link[0], k.ch[1], k.link[1], 0.0);
    }
  }
  return out._retn();
}

int jacobian(const hsSim *sim, int ch, int base, int target, OpenHRP::DblSequence &out,
             hsError *err) {
  SimLock lock(sim);
  int n = hs_jacobian(sim, ch, base, target, nullptr, 0, err);
  if (n < 0) {
    return n;
  }
  out.length(static_cast<CORBA::ULong>(n));
  n = hs_jacobian(sim, ch, base, target, out.get_buffer(), n, err);
  return n < 0 ? n : 0;
}

int setSolverFromWire(hsSim *sim, const char *engine, const hrpsim::SolverSettings &settings,
                      hsError *err) {
  std::vector<const char *> names, values;
  for (CORBA::ULong i = 0; i < settings.length(); i++) {
    names.push_back(settings[i].name);
    values.push_back(settings[i].value);
  }
  return hs_setSolver(sim, engine, static_cast<int>(names.size()), names.data(), values.data(),
                      err);
}

}  // namespace wire
}  // namespace hrpsim
