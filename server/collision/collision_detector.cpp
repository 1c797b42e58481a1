// collision_detector.cpp - the CollisionDetector servant and its factory (collision_detector.h).
//
// Each query takes the instance lock, checks every position it was given (registered
// character, one LinkPosition per link, finite numbers, rotations orthonormal to 1e-6), places
// the links in the instance's scene and asks collision/; answers are built in one pass into
// a buffer the serving thread keeps from call to call, handed out as a sequence that does not
// own it (see ReplyBuffer). Geometry comes from a process-wide cache keyed by the BodyInfo's
// IOR: the first instance that registers a body reads it (server/common/body_info's
// bodyFromInfo, the same conversion every server uses) and builds its hscModel; later ones
// share it until the last user lets go.

#include "collision_detector.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cfloat>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <map>

#include "runtime.h"

namespace hrpsim {

CollisionGeometry::~CollisionGeometry() {
  hsc_freeModel(model);
}

namespace {

std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

[[noreturn]] void badParam(const char *op, const std::string &what) {
  logRequestError(op, what);
  throw CORBA::BAD_PARAM(0, CORBA::COMPLETED_NO);
}

// the largest number of rays one scanDistanceWithRay may cast
const long kMaxScan = 1000000;

// the geometry cache: BodyInfo IOR -> geometry, while anyone uses it
std::mutex g_cacheMutex;
std::map<std::string, std::weak_ptr<const CollisionGeometry>> g_cache;

GeometryPtr geometryFor(const char *op, const char *name, OpenHRP::BodyInfo_ptr info) {
  CORBA::String_var ior = Runtime::instance()->orb()->object_to_string(info);
  std::string key(ior.in());
  {
    std::lock_guard<std::mutex> lock(g_cacheMutex);
    auto it = g_cache.find(key);
    if (it != g_cache.end()) {
      if (GeometryPtr g = it->second.lock()) {
        return g;
      }
    }
  }
  // read the remote body and build its geometry without holding the cache
  hsError err = {};
  hsBody *raw = nullptr;
  try {
    raw = bodyFromInfo(info, &err);
  } catch (const CORBA::SystemException &e) {
    badParam(op, format("'%s': cannot read its BodyInfo: CORBA %s", name, e._name()));
  }
  if (!raw) {
    badParam(op, format("'%s': bad BodyInfo: %s", name, describe(err).c_str()));
  }
  auto g = std::make_shared<CollisionGeometry>();
  g->body = shareBody(raw);
  g->model = hsc_makeModel(raw, nullptr, &err);
  if (!g->model) {
    raiseSystemException(op, err);
  }
  std::lock_guard<std::mutex> lock(g_cacheMutex);
  auto &slot = g_cache[key];
  if (GeometryPtr other = slot.lock()) {
    return other;  // another request built it meanwhile
  }
  slot = g;
  // forget entries nobody uses any more
  for (auto it = g_cache.begin(); it != g_cache.end();) {
    it = it->second.expired() ? g_cache.erase(it) : std::next(it);
  }
  return g;
}

// Replies without per-call allocation of their elements. A query's out sequence is handed to
// omniORB as a view (release = false) of a buffer this thread keeps from call to call: the
// skeleton marshals the reply on the thread that made the upcall and then deletes the
// sequence object, never the buffer. An element's strings (charName1, linkName1, ...) are
// string_dup'ed only when it names another pair than the last reply did, or another instance's
// characters (the instance's stamp, new at every registration). hrpsim-collision never calls
// its servants in-process: a collocated caller would get a view the thread's next query
// overwrites.
std::atomic<unsigned long long> g_stamp{0};

template <class Seq, class Elem>
class ReplyBuffer {
 public:
  ReplyBuffer() = default;
  ReplyBuffer(const ReplyBuffer &) = delete;
  ReplyBuffer &operator=(const ReplyBuffer &) = delete;
  ~ReplyBuffer() {
    if (buf_) {
      Seq::freebuf(buf_);
    }
  }
  // room for n elements naming pairs of the instance with this stamp
  Elem *get(CORBA::ULong n, unsigned long long stamp) {
    if (n >= cap_ || !buf_) {
      CORBA::ULong cap = std::max<CORBA::ULong>(n + 1, 2 * cap_);
      Elem *b = Seq::allocbuf(cap);
      if (!b) {
        throw CORBA::NO_MEMORY(0, CORBA::COMPLETED_NO);
      }
      if (buf_) {
        Seq::freebuf(buf_);
      }
      buf_ = b;
      cap_ = cap;
      stamp_ = 0;
    }
    if (stamp != stamp_) {
      names_.assign(cap_, Key{{-1, -1, -1, -1}});
      stamp_ = stamp;
    }
    return buf_;
  }
  // true if element i already spells pair p's names
  bool names(CORBA::ULong i, const hscPair &p) const { return names_[i].v == key(p).v; }
  // element i now spells p's names (after the caller filled them: a string_dup that throws
  // leaves the element marked as naming nothing it may not)
  void named(CORBA::ULong i, const hscPair &p) { names_[i] = key(p); }
  // the first n elements as a sequence that does not own them
  Seq *view(CORBA::ULong n) { return new Seq(cap_, n, buf_, false); }

 private:
  struct Key {
    std::array<int, 4> v;
  };
  static Key key(const hscPair &p) { return Key{{p.body[0], p.link[0], p.body[1], p.link[1]}}; }
  Elem *buf_ = nullptr;
  CORBA::ULong cap_ = 0;
  unsigned long long stamp_ = 0;
  std::vector<Key> names_;
};

thread_local ReplyBuffer<OpenHRP::LinkPairSequence, OpenHRP::LinkPair> t_pairReply;
thread_local ReplyBuffer<OpenHRP::CollisionSequence, OpenHRP::Collision> t_collisionReply;
thread_local ReplyBuffer<OpenHRP::DistanceSequence, OpenHRP::Distance> t_distanceReply;

}  // namespace

//---------------------------------- lifecycle -------------------------------------------------

CollisionDetectorServant::CollisionDetectorServant() : stamp_(++g_stamp) {
  hsError err = {};
  scene_ = hsc_makeScene(nullptr, &err);
  if (!scene_) {
    raiseSystemException("create", err);
  }
}

CollisionDetectorServant::~CollisionDetectorServant() {
  hsc_freeScene(scene_);  // before the geometry it borrows (chars_) goes
}

void CollisionDetectorServant::destroy() {
  PortableServer::POA_ptr poa = Runtime::instance()->poa();
  PortableServer::ObjectId_var oid = poa->servant_to_id(this);
  poa->deactivate_object(oid);
}

OpenHRP::CollisionDetector_ptr CollisionDetectorFactoryServant::create() {
  CollisionDetectorServant *cd = new CollisionDetectorServant;
  PortableServer::POA_ptr poa = Runtime::instance()->poa();
  PortableServer::ObjectId_var oid = poa->activate_object(cd);
  cd->_remove_ref();
  CORBA::Object_var obj = poa->id_to_reference(oid);
  return OpenHRP::CollisionDetector::_narrow(obj);
}

void CollisionDetectorFactoryServant::shutdown() {
  hsu_log(hsLOG_INFO, "shutdown requested by a client");
  Runtime::instance()->requestShutdown();
}

//---------------------------------- look-ups --------------------------------------------------

int CollisionDetectorServant::character(const char *op, const char *name) const {
  for (size_t i = 0; i < chars_.size(); i++) {
    if (chars_[i].name == name) {
      return static_cast<int>(i);
    }
  }
  std::string known;
  for (const Character &c : chars_) {
    known += (known.empty() ? "'" : ", '") + c.name + "'";
  }
  badParam(op, format("unknown character '%s' (registered: %s)", name,
                      known.empty() ? "none" : known.c_str()));
}

void CollisionDetectorServant::expandPair(const char *op, const OpenHRP::LinkPair &lp,
                                          std::vector<hscPair> &out) const {
  const char *cn[2] = {lp.charName1, lp.charName2};
  const char *ln[2] = {lp.linkName1, lp.linkName2};
  int ch[2], link[2];
  for (int s = 0; s < 2; s++) {
    ch[s] = character(op, cn[s]);
    link[s] = -1;
    if (*ln[s]) {
      link[s] = hsm_linkIndex(chars_[ch[s]].geom->body.get(), ln[s]);
      if (link[s] < 0) {
        badParam(op, format("character '%s' has no link '%s'", cn[s], ln[s]));
      }
    }
  }
  double tol = lp.tolerance;
  if (!std::isfinite(tol) || tol < 0) {
    badParam(op, format("pair '%s:%s' / '%s:%s': the tolerance must be finite and >= 0, got %g",
                        cn[0], ln[0], cn[1], ln[1], tol));
  }
  const hsBody *b0 = chars_[ch[0]].geom->body.get(), *b1 = chars_[ch[1]].geom->body.get();
  if (ch[0] == ch[1] && link[0] >= 0 && link[0] == link[1]) {
    badParam(op, format("pair '%s:%s' / '%s:%s': a link with itself", cn[0], ln[0], cn[1],
                        ln[1]));
  }
  int lo0 = link[0] < 0 ? 0 : link[0], hi0 = link[0] < 0 ? b0->nlink : link[0] + 1;
  int lo1 = link[1] < 0 ? 0 : link[1], hi1 = link[1] < 0 ? b1->nlink : link[1] + 1;
  bool expanded = link[0] < 0 || link[1] < 0;
  for (int a = lo0; a < hi0; a++) {
    for (int b = lo1; b < hi1; b++) {
      if (ch[0] == ch[1] && expanded) {
        // self collision: each unordered pair once, never a link with itself or its parent
        if (a == b || (link[0] < 0 && link[1] < 0 && b < a) || b0->links[a].parent == b ||
            b0->links[b].parent == a) {
          continue;
        }
      }
      hscPair p = {};
      p.body[0] = ch[0];
      p.body[1] = ch[1];
      p.link[0] = a;
      p.link[1] = b;
      p.tolerance = tol;
      out.push_back(p);
    }
  }
}

void CollisionDetectorServant::setPositions(const char *op,
                                            const OpenHRP::CharacterPositionSequence &pos) {
  std::vector<int> &which = which_;
  which.resize(pos.length());
  for (CORBA::ULong i = 0; i < pos.length(); i++) {
    const OpenHRP::CharacterPosition &cp = pos[i];
    int ch = character(op, cp.characterName);
    which[i] = ch;
    int n = chars_[ch].geom->body->nlink;
    if (static_cast<int>(cp.linkPositions.length()) != n) {
      badParam(op, format("character '%s': %u link positions given, it has %d links",
                          cp.characterName.in(), cp.linkPositions.length(), n));
    }
    for (int k = 0; k < n; k++) {
      const OpenHRP::LinkPosition &lp = cp.linkPositions[k];
      const char *link = chars_[ch].geom->body->links[k].name;
      if (!hsu_allFinite(lp.p, 3) || !hsu_allFinite(lp.R, 9)) {
        badParam(op, format("character '%s' link %d ('%s'): the position has a non-finite "
                            "number", cp.characterName.in(), k, link));
      }
      double T[12];
      const double zero[3] = {0, 0, 0};
      hsu_makeTransform(T, lp.R, zero);
      if (!hsu_isRigid(T, 1e-6)) {
        badParam(op, format("character '%s' link %d ('%s'): R (row-major 3x3) is not a "
                            "rotation to within 1e-6", cp.characterName.in(), k, link));
      }
    }
  }
  for (CORBA::ULong i = 0; i < pos.length(); i++) {
    const OpenHRP::LinkPositionSequence &lps = pos[i].linkPositions;
    for (CORBA::ULong k = 0; k < lps.length(); k++) {
      hsc_setLinkPose(scene_, which[i], static_cast<int>(k), lps[k].p, lps[k].R, nullptr);
    }
  }
}

void CollisionDetectorServant::fillLinkPair(OpenHRP::LinkPair &out, const hscPair &p,
                                            bool named) const {
  out.tolerance = p.tolerance;
  if (named) {
    return;
  }
  const Character &c0 = chars_[p.body[0]], &c1 = chars_[p.body[1]];
  out.charName1 = CORBA::string_dup(c0.name.c_str());
  out.linkName1 = CORBA::string_dup(c0.geom->body->links[p.link[0]].name);
  out.charName2 = CORBA::string_dup(c1.name.c_str());
  out.linkName2 = CORBA::string_dup(c1.geom->body->links[p.link[1]].name);
}

//---------------------------------- set-up ----------------------------------------------------

void CollisionDetectorServant::registerCharacter(const char *name, OpenHRP::BodyInfo_ptr cinfo) {
  const char *op = "registerCharacter";
  if (!*name) {
    badParam(op, "empty character name");
  }
  if (CORBA::is_nil(cinfo)) {
    badParam(op, format("'%s': the BodyInfo reference is nil", name));
  }
  GeometryPtr g = geometryFor(op, name, cinfo);
  std::lock_guard<std::mutex> lock(mutex_);
  stamp_ = ++g_stamp;  // names at the same indices may change: replies spell them anew
  hsError err = {};
  for (size_t i = 0; i < chars_.size(); i++) {
    if (chars_[i].name != name) {
      continue;
    }
    // OpenHRP replaces a character registered again under its name; the defined pairs keep
    // the links of the same names (pairs naming links the new body lacks are dropped)
    if (hsc_replaceBody(scene_, static_cast<int>(i), g->model, &err) < 0) {
      raiseSystemException(op, err);
    }
    GeometryPtr old = chars_[i].geom;
    chars_[i].geom = g;
    std::vector<hscPair> kept;
    for (hscPair p : defined_) {
      bool ok = true;
      for (int s = 0; s < 2; s++) {
        if (p.body[s] == static_cast<int>(i)) {
          p.link[s] = hsm_linkIndex(g->body.get(), old->body->links[p.link[s]].name);
          ok = ok && p.link[s] >= 0;
        }
      }
      if (ok) {
        kept.push_back(p);
      } else {
        hsu_log(hsLOG_WARNING, "%s: '%s' replaced; a collision pair naming a link it no longer "
                "has is dropped", op, name);
      }
    }
    defined_.swap(kept);
    hsu_log(hsLOG_INFO, "replaced character '%s' (body '%s', %d links)", name,
            g->body->name, g->body->nlink);
    return;
  }
  int index = hsc_addBody(scene_, g->model, &err);
  if (index < 0) {
    raiseSystemException(op, err);
  }
  chars_.push_back({name, g});
  hsu_log(hsLOG_INFO, "registered character '%s' (body '%s', %d links)", name, g->body->name,
          g->body->nlink);
}

void CollisionDetectorServant::addCollisionPair(const OpenHRP::LinkPair &lp) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<hscPair> add;
  expandPair("addCollisionPair", lp, add);
  defined_.insert(defined_.end(), add.begin(), add.end());
}

//---------------------------------- queries ---------------------------------------------------

CORBA::Boolean CollisionDetectorServant::intersections(const std::vector<hscPair> &pairs,
                                                       bool checkAll,
                                                       OpenHRP::LinkPairSequence_out out) {
  hits_.assign(pairs.size(), 0);
  int n = hsc_intersections(scene_, pairs.data(), static_cast<int>(pairs.size()),
                            checkAll ? 1 : 0, hits_.data());
  OpenHRP::LinkPair *buf = t_pairReply.get(static_cast<CORBA::ULong>(n), stamp_);
  CORBA::ULong k = 0;
  for (size_t i = 0; i < pairs.size(); i++) {
    if (hits_[i]) {
      fillLinkPair(buf[k], pairs[i], t_pairReply.names(k, pairs[i]));
      t_pairReply.named(k, pairs[i]);
      k++;
    }
  }
  out = t_pairReply.view(static_cast<CORBA::ULong>(n));
  return n > 0;
}

CORBA::Boolean CollisionDetectorServant::contacts(const std::vector<hscPair> &pairs,
                                                  OpenHRP::CollisionSequence_out out) {
  int np = static_cast<int>(pairs.size());
  contacts_.resize(pairs.size() * 4 + 1);
  counts_.resize(pairs.size() + 1);
  int n = hsc_contacts(scene_, pairs.data(), np, contacts_.data(),
                       static_cast<int>(contacts_.size()), counts_.data());
  OpenHRP::Collision *buf = t_collisionReply.get(static_cast<CORBA::ULong>(np), stamp_);
  int c = 0;
  for (int i = 0; i < np; i++) {
    OpenHRP::Collision &col = buf[i];
    const hscPair &p = pairs[static_cast<size_t>(i)];
    fillLinkPair(col.pair, p, t_collisionReply.names(static_cast<CORBA::ULong>(i), p));
    t_collisionReply.named(static_cast<CORBA::ULong>(i), p);
    col.points.length(static_cast<CORBA::ULong>(counts_[static_cast<size_t>(i)]));
    for (int k = 0; k < counts_[static_cast<size_t>(i)]; k++, c++) {
      const hscContact &h = contacts_[static_cast<size_t>(c)];
      OpenHRP::CollisionPoint &cp = col.points[static_cast<CORBA::ULong>(k)];
      for (int j = 0; j < 3; j++) {
        cp.position[j] = h.p[j];
        cp.normal[j] = h.n[j];
      }
      cp.idepth = h.depth;
    }
  }
  out = t_collisionReply.view(static_cast<CORBA::ULong>(np));
  return n > 0;
}

void CollisionDetectorServant::distances(const std::vector<hscPair> &pairs,
                                         OpenHRP::DistanceSequence_out out) {
  dists_.resize(pairs.size() + 1);
  hsc_distances(scene_, pairs.data(), static_cast<int>(pairs.size()), dists_.data());
  OpenHRP::Distance *buf = t_distanceReply.get(static_cast<CORBA::ULong>(pairs.size()), stamp_);
  for (size_t i = 0; i < pairs.size(); i++) {
    OpenHRP::Distance &d = buf[i];
    const hscDistance &h = dists_[i];
    fillLinkPair(d.pair, pairs[i], t_distanceReply.names(static_cast<CORBA::ULong>(i), pairs[i]));
    t_distanceReply.named(static_cast<CORBA::ULong>(i), pairs[i]);
    const hscModel *m0 = chars_[pairs[i].body[0]].geom->model;
    const hscModel *m1 = chars_[pairs[i].body[1]].geom->model;
    if (hsc_modelGeomCount(m0, pairs[i].link[0]) == 0 ||
        hsc_modelGeomCount(m1, pairs[i].link[1]) == 0) {
      // OpenHRP's answer for a link without triangles
      d.minD = -1;
      for (int j = 0; j < 3; j++) {
        d.point0[j] = d.point1[j] = 0;
      }
      continue;
    }
    if (h.d < 0) {
      // overlapping: OpenHRP measures between surfaces, which then touch: 0, at the point
      // midway between the deepest points
      d.minD = 0;
      for (int j = 0; j < 3; j++) {
        d.point0[j] = d.point1[j] = 0.5 * (h.p0[j] + h.p1[j]);
      }
      continue;
    }
    d.minD = h.d;
    // OpenHRP's order: point0 on the pair's first link, point1 on its second
    for (int j = 0; j < 3; j++) {
      d.point0[j] = h.p0[j];
      d.point1[j] = h.p1[j];
    }
  }
  out = t_distanceReply.view(static_cast<CORBA::ULong>(pairs.size()));
}

CORBA::Boolean CollisionDetectorServant::queryIntersectionForDefinedPairs(
    CORBA::Boolean checkAll, const OpenHRP::CharacterPositionSequence &positions,
    OpenHRP::LinkPairSequence_out collidedPairs) {
  std::lock_guard<std::mutex> lock(mutex_);
  setPositions("queryIntersectionForDefinedPairs", positions);
  return intersections(defined_, checkAll, collidedPairs);
}

CORBA::Boolean CollisionDetectorServant::queryIntersectionForGivenPairs(
    CORBA::Boolean checkAll, const OpenHRP::LinkPairSequence &checkPairs,
    const OpenHRP::CharacterPositionSequence &positions,
    OpenHRP::LinkPairSequence_out collidedPairs) {
  const char *op = "queryIntersectionForGivenPairs";
  std::lock_guard<std::mutex> lock(mutex_);
  given_.clear();
  for (CORBA::ULong i = 0; i < checkPairs.length(); i++) {
    expandPair(op, checkPairs[i], given_);
  }
  setPositions(op, positions);
  return intersections(given_, checkAll, collidedPairs);
}

CORBA::Boolean CollisionDetectorServant::queryContactDeterminationForDefinedPairs(
    const OpenHRP::CharacterPositionSequence &positions,
    OpenHRP::CollisionSequence_out collisions) {
  std::lock_guard<std::mutex> lock(mutex_);
  setPositions("queryContactDeterminationForDefinedPairs", positions);
  return contacts(defined_, collisions);
}

CORBA::Boolean CollisionDetectorServant::queryContactDeterminationForGivenPairs(
    const OpenHRP::LinkPairSequence &checkPairs,
    const OpenHRP::CharacterPositionSequence &positions,
    OpenHRP::CollisionSequence_out collisions) {
  const char *op = "queryContactDeterminationForGivenPairs";
  std::lock_guard<std::mutex> lock(mutex_);
  given_.clear();
  for (CORBA::ULong i = 0; i < checkPairs.length(); i++) {
    expandPair(op, checkPairs[i], given_);
  }
  setPositions(op, positions);
  return contacts(given_, collisions);
}

void CollisionDetectorServant::queryDistanceForDefinedPairs(
    const OpenHRP::CharacterPositionSequence &positions,
    OpenHRP::DistanceSequence_out out) {
  std::lock_guard<std::mutex> lock(mutex_);
  setPositions("queryDistanceForDefinedPairs", positions);
  distances(defined_, out);
}

void CollisionDetectorServant::queryDistanceForGivenPairs(
    const OpenHRP::LinkPairSequence &checkPairs,
    const OpenHRP::CharacterPositionSequence &positions,
    OpenHRP::DistanceSequence_out out) {
  const char *op = "queryDistanceForGivenPairs";
  std::lock_guard<std::mutex> lock(mutex_);
  given_.clear();
  for (CORBA::ULong i = 0; i < checkPairs.length(); i++) {
    expandPair(op, checkPairs[i], given_);
  }
  setPositions(op, positions);
  distances(given_, out);
}

double CollisionDetectorServant::ray(const double p[3], const double d[3]) const {
  hscRayHit hit;
  if (!hsc_ray(scene_, p, d, INFINITY, &hit)) {
    return FLT_MAX;  // OpenHRP's miss
  }
  return hit.t;
}

CORBA::Double CollisionDetectorServant::queryDistanceWithRay(const OpenHRP::DblArray3 point,
                                                             const OpenHRP::DblArray3 dir) {
  const char *op = "queryDistanceWithRay";
  if (!hsu_allFinite(point, 3) || !hsu_allFinite(dir, 3)) {
    badParam(op, "the point and the direction must be finite");
  }
  if (dir[0] == 0 && dir[1] == 0 && dir[2] == 0) {
    badParam(op, "the direction is zero");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  return ray(point, dir);
}

OpenHRP::DblSequence *CollisionDetectorServant::scanDistanceWithRay(const OpenHRP::DblArray3 p,
                                                                    const OpenHRP::DblArray9 R,
                                                                    CORBA::Double step,
                                                                    CORBA::Double range) {
  const char *op = "scanDistanceWithRay";
  if (!hsu_allFinite(p, 3) || !hsu_allFinite(R, 9)) {
    badParam(op, "the point and the rotation must be finite");
  }
  double T[12];
  const double zero[3] = {0, 0, 0};
  hsu_makeTransform(T, R, zero);
  if (!hsu_isRigid(T, 1e-6)) {
    badParam(op, "R (row-major 3x3) is not a rotation to within 1e-6");
  }
  if (!std::isfinite(step) || step <= 0 || !std::isfinite(range) || range < 0) {
    badParam(op, format("step must be > 0 and range >= 0, both finite; got step %g, range %g",
                        step, range));
  }
  double halfCount = std::floor(range / 2 / step);
  if (halfCount > kMaxScan) {
    badParam(op, format("range %g / step %g asks for more than %ld rays", range, step,
                        2 * kMaxScan + 1));
  }
  int half = static_cast<int>(halfCount);
  CORBA::ULong n = static_cast<CORBA::ULong>(2 * half + 1);
  OpenHRP::DblSequence_var out = new OpenHRP::DblSequence;
  out->length(n);
  // every direction is (-sin a) R e_x + (-cos a) R e_z, so the fan's plane has the normal
  // R e_x x R e_z (exactly, even for an R that is a rotation only to within 1e-6)
  double cx[3] = {R[0], R[3], R[6]}, cz[3] = {R[2], R[5], R[8]}, nrm[3];
  hsu_cross(nrm, cx, cz);
  double len = hsu_norm(nrm);
  for (double &c : nrm) {
    c /= len;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  // hsc_rayFan's scratch grows with the scene only; kFan directions at a time on the stack,
  // answers straight into the reply (CORBA::Double is double)
  size_t need = static_cast<size_t>(hsc_fanScratchSize(scene_));
  if (fanScratch_.size() < need) {
    fanScratch_.resize(need);
  }
  constexpr CORBA::ULong kFan = 256;
  double dirs[3 * kFan];
  double *t = out->get_buffer();
  for (CORBA::ULong k0 = 0; k0 < n; k0 += kFan) {
    CORBA::ULong m = n - k0 < kFan ? n - k0 : kFan;
    for (CORBA::ULong k = 0; k < m; k++) {
      double a = (static_cast<int>(k0 + k) - half) * step;
      double l[3] = {-std::sin(a), 0, -std::cos(a)};
      hsu_rotVec(dirs + 3 * k, R, l);
    }
    hsc_rayFan(scene_, p, nrm, dirs, static_cast<int>(m), INFINITY, fanScratch_.data(), t + k0,
               nullptr);
  }
  for (CORBA::ULong k = 0; k < n; k++) {
    if (t[k] == INFINITY) {
      t[k] = FLT_MAX;  // OpenHRP's miss, as queryDistanceWithRay
    }
  }
  return out._retn();
}

}  // namespace hrpsim
