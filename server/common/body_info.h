// body_info.h - the one place where hsBody meets OpenHRP's BodyInfo on the wire, with the
// ModelLoader's load options: the model's half of the conversion module (wire.h holds the
// simulation's half: link data, world and sensor states, gravity).
//
// BodyInfoServant serves a loaded hsBody as an OpenHRP::BodyInfo object (every attribute is
// converted on request from the shared, read-only body); SceneInfoServant serves it as a
// SceneInfo. Each LinkInfo.shapeIndices lists the shapes to draw and BodyInfo.linkShapeIndices
// the shapes to collide with: the same lists for VRML models, URDF's <visual> and <collision>
// for URDF models. bodyFromInfo is the inverse: a remote BodyInfo into an hsBody.

#ifndef HRPSIM_SERVER_COMMON_BODY_INFO_H_
#define HRPSIM_SERVER_COMMON_BODY_INFO_H_

#include <memory>
#include <vector>

#include "ModelLoader.hh"
#include "model.h"

namespace hrpsim {

// a body shared between servants and caches; freed with hsm_freeBody when the last user goes
using BodyPtr = std::shared_ptr<const hsBody>;

// wrap a freshly loaded body (takes ownership)
BodyPtr shareBody(hsBody *body);

// per-link bounding-box settings from a ModelLoadOption (OpenHRP's AABBdata/AABBtype)
struct AabbOption {
  std::vector<short> data;  // per link, by link index; the last value repeats
  bool byDepth = true;      // AABB_DEPTH: data are depths, else numbers of boxes
};

// a ModelLoadOption from the wire: the loader's options (images read or not; the rest default)
// and the bounding-box settings the BodyInfo serves
void loadOptionsFromWire(const OpenHRP::ModelLoader::ModelLoadOption &option,
                         hsmLoadOptions *opt, AabbOption *aabb);

class BodyInfoServant : public POA_OpenHRP::BodyInfo {
 public:
  BodyInfoServant(BodyPtr body, AabbOption aabb);

  // ShapeSetInfo
  OpenHRP::ShapeInfoSequence *shapes() override;
  OpenHRP::AppearanceInfoSequence *appearances() override;
  OpenHRP::MaterialInfoSequence *materials() override;
  OpenHRP::TextureInfoSequence *textures() override;
  // BodyInfo
  char *name() override;
  char *url() override;
  OpenHRP::StringSequence *info() override;
  OpenHRP::LinkInfoSequence *links() override;
  OpenHRP::AllLinkShapeIndexSequence *linkShapeIndices() override;
  OpenHRP::ExtraJointInfoSequence *extraJoints() override;

  const BodyPtr &body() const { return body_; }

 private:
  // OpenHRP's bounding-box mode (aabb_.data not empty): every link's shapes replaced by the
  // boxes of one level of an AABB tree over its collision triangles (hsc_linkBoxTree)
  struct BoxRef {
    int shape;     // index into boxSizes_
    double c[3];   // box centre, link frame
  };
  void makeBoxes();
  void convertBoxRefs(OpenHRP::TransformedShapeIndexSequence &seq, int link) const;

  BodyPtr body_;
  AabbOption aabb_;
  bool boxed_ = false;
  std::vector<float> boxSizes_;               // 3 per box shape (edge lengths)
  std::vector<std::vector<BoxRef>> boxRefs_;  // per link
  std::vector<int> treeDepth_, treeMaxNum_;   // per link: AABBmaxDepth, AABBmaxNum
};

class SceneInfoServant : public POA_OpenHRP::SceneInfo {
 public:
  explicit SceneInfoServant(BodyPtr body);

  OpenHRP::ShapeInfoSequence *shapes() override;
  OpenHRP::AppearanceInfoSequence *appearances() override;
  OpenHRP::MaterialInfoSequence *materials() override;
  OpenHRP::TextureInfoSequence *textures() override;
  char *url() override;
  // every shape of every link, placed in the world at the body's initial configuration
  OpenHRP::TransformedShapeIndexSequence *shapeIndices() override;

 private:
  BodyPtr body_;
};

// read a BodyInfo served by any ModelLoader (ours or OpenHRP's) into a new hsBody: every
// attribute is fetched once; numbers are checked (finite, indices in range, known joint and
// sensor types) before they reach the C libraries. Returns NULL with err filled on bad data;
// CORBA exceptions from the remote object propagate. The caller frees with hsm_freeBody.
hsBody *bodyFromInfo(OpenHRP::BodyInfo_ptr info, hsError *err);

}  // namespace hrpsim

#endif  // HRPSIM_SERVER_COMMON_BODY_INFO_H_
