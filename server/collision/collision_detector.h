// collision_detector.h - the CollisionDetector and CollisionDetectorFactory servants: OpenHRP
// 3.1's collision interface on top of collision/ (one hscScene per instance).
//
// Conventions are OpenHRP's (see docs/servers.md, CollisionDetector): a Collision per
// queried pair, in pair order, its points' normals pointing from the pair's first link into the
// second and idepth positive; checkAll false stops at the first intersecting pair; a Distance's
// point0 lies on the pair's first link and point1 on its second, as OpenHRP 3.1's servant
// returns them, minD 0 when the links overlap and -1 when a link has no geometry; rays return the
// parameter of the first hit on a surface facing the ray (the distance for a unit direction),
// FLT_MAX when nothing is hit; scanDistanceWithRay casts 2 floor(range / 2 / step) + 1 rays
// at angles i step, i = -n..n, along (-sin a, 0, -cos a) of the frame R.
//
// Collision geometry is built once per BodyInfo (keyed by its IOR) and shared by every instance
// of the process while any uses it. Calls on one instance are serialised by its mutex;
// instances are independent and run in parallel.
//
// Errors: unknown character or link names, link position sequences of the wrong length,
// non-finite numbers, rotations that are not rotations, bad ray arguments raise
// CORBA::BAD_PARAM with one log line naming the operation and the problem; the instance keeps
// its state (a query whose positions are rejected changes no pose).

#ifndef HRPSIM_SERVER_COLLISION_COLLISION_DETECTOR_H_
#define HRPSIM_SERVER_COLLISION_COLLISION_DETECTOR_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "CollisionDetector.hh"
#include "Diagnostics.hh"
#include "body_info.h"
#include "collision.h"
#include "runtime.h"

namespace hrpsim {

// collision geometry of one body, shared by every instance using it
struct CollisionGeometry {
  BodyPtr body;
  hscModel *model = nullptr;
  ~CollisionGeometry();
};
using GeometryPtr = std::shared_ptr<const CollisionGeometry>;

class CollisionDetectorServant : public POA_hrpsim::CollisionDetector, public DiagnosticsServant {
 public:
  // an empty instance; throws CORBA::NO_MEMORY if its scene cannot be made
  CollisionDetectorServant();
  ~CollisionDetectorServant() override;

  // World
  void registerCharacter(const char *name, OpenHRP::BodyInfo_ptr cinfo) override;

  // CollisionDetector, in the IDL's order
  void destroy() override;
  void addCollisionPair(const OpenHRP::LinkPair &collisionPair) override;
  CORBA::Boolean queryIntersectionForDefinedPairs(
      CORBA::Boolean checkAll, const OpenHRP::CharacterPositionSequence &positions,
      OpenHRP::LinkPairSequence_out collidedPairs) override;
  CORBA::Boolean queryIntersectionForGivenPairs(
      CORBA::Boolean checkAll, const OpenHRP::LinkPairSequence &checkPairs,
      const OpenHRP::CharacterPositionSequence &positions,
      OpenHRP::LinkPairSequence_out collidedPairs) override;
  CORBA::Boolean queryContactDeterminationForDefinedPairs(
      const OpenHRP::CharacterPositionSequence &positions,
      OpenHRP::CollisionSequence_out collisions) override;
  CORBA::Boolean queryContactDeterminationForGivenPairs(
      const OpenHRP::LinkPairSequence &checkPairs,
      const OpenHRP::CharacterPositionSequence &positions,
      OpenHRP::CollisionSequence_out collisions) override;
  void queryDistanceForDefinedPairs(const OpenHRP::CharacterPositionSequence &positions,
                                    OpenHRP::DistanceSequence_out distances) override;
  void queryDistanceForGivenPairs(const OpenHRP::LinkPairSequence &checkPairs,
                                  const OpenHRP::CharacterPositionSequence &positions,
                                  OpenHRP::DistanceSequence_out distances) override;
  CORBA::Double queryDistanceWithRay(const OpenHRP::DblArray3 point,
                                     const OpenHRP::DblArray3 dir) override;
  OpenHRP::DblSequence *scanDistanceWithRay(const OpenHRP::DblArray3 p,
                                            const OpenHRP::DblArray9 R, CORBA::Double step,
                                            CORBA::Double range) override;

 private:
  struct Character {
    std::string name;
    GeometryPtr geom;
  };

  // look-ups that raise BAD_PARAM (with a log line naming op)
  int character(const char *op, const char *name) const;
  // the pairs a LinkPair names (an empty link name: every link of that character; one
  // character with itself: every pair of distinct links that are not parent and child)
  void expandPair(const char *op, const OpenHRP::LinkPair &lp, std::vector<hscPair> &out) const;
  // check every position, then apply them all (nothing changes if one is bad)
  void setPositions(const char *op, const OpenHRP::CharacterPositionSequence &positions);
  // fill a reply's LinkPair for p: the tolerance, and the four names unless named (the element
  // spells p's names already)
  void fillLinkPair(OpenHRP::LinkPair &out, const hscPair &p, bool named) const;

  // the answers, lock held
  CORBA::Boolean intersections(const std::vector<hscPair> &pairs, bool checkAll,
                               OpenHRP::LinkPairSequence_out out);
  CORBA::Boolean contacts(const std::vector<hscPair> &pairs, OpenHRP::CollisionSequence_out out);
  void distances(const std::vector<hscPair> &pairs, OpenHRP::DistanceSequence_out out);
  double ray(const double p[3], const double d[3]) const;

  std::mutex mutex_;
  unsigned long long stamp_;  // new (process-wide unique) at creation and every registration
  hscScene *scene_ = nullptr;
  std::vector<Character> chars_;  // index = body index in the scene
  std::vector<hscPair> defined_;
  // scratch reused across queries
  std::vector<hscContact> contacts_;
  std::vector<int> counts_;
  std::vector<int> fanScratch_;  // hsc_rayFan's, grown to hsc_fanScratchSize(scene_)
  std::vector<unsigned char> hits_;
  std::vector<hscDistance> dists_;
  std::vector<hscPair> given_;
  std::vector<int> which_;  // setPositions: body index per position
};

class CollisionDetectorFactoryServant : public POA_OpenHRP::CollisionDetectorFactory {
 public:
  // a new, independent CollisionDetector, activated in the runtime's POA
  OpenHRP::CollisionDetector_ptr create() override;
  // stop the server process
  void shutdown() override;
};

}  // namespace hrpsim

#endif  // HRPSIM_SERVER_COLLISION_COLLISION_DETECTOR_H_
