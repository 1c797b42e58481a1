// body_info.cpp - hsBody <-> OpenHRP BodyInfo / SceneInfo (see body_info.h).
//
// Outward, each attribute builds a fresh IDL sequence from the body: numbers are copied in bulk
// where the layouts agree (float and int arrays), field by field otherwise. Nothing is cached:
// the body is immutable and clients normally read each attribute once. Inward (bodyFromInfo),
// the attributes fill the model library's builder, exactly as a file front end does, after
// every number and index has been checked, and hsm_compile freezes the result.

#include "body_info.h"

#include "collision.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "builder.h"

namespace hrpsim {

static_assert(sizeof(CORBA::Long) == sizeof(int), "LongSequence copies assume 32-bit int");
static_assert(sizeof(CORBA::Float) == sizeof(float), "FloatSequence copies assume float");

//---------------------------------- element converters ----------------------------------------

template <typename Seq, typename T>
static void fillSeq(Seq &seq, const T *src, int n) {
  seq.length(n);
  if (n > 0) {
    std::memcpy(seq.get_buffer(), src, sizeof(T) * n);
  }
}

static void copy3(CORBA::Double dst[3], const double src[3]) {
  for (int k = 0; k < 3; k++) dst[k] = src[k];
}

static void copyDoubles(OpenHRP::DblSequence &seq, const hsDoubles &d) {
  seq.length(d.n);
  for (int k = 0; k < d.n; k++) seq[k] = d.v[k];
}

static void convertRefs(OpenHRP::TransformedShapeIndexSequence &seq, const hsShapeRef *refs,
                        int n) {
  seq.length(n);
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < 12; k++) seq[i].transformMatrix[k] = refs[i].T[k];
    seq[i].inlinedShapeTransformMatrixIndex = static_cast<CORBA::Short>(refs[i].inlineMatrix);
    seq[i].shapeIndex = static_cast<CORBA::Short>(refs[i].shape);
  }
}

static void convertMatrices(OpenHRP::DblArray12Sequence &seq, const double *m, int n) {
  seq.length(n);
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < 12; k++) seq[i][k] = m[12 * i + k];
  }
}

static void convertSensor(OpenHRP::SensorInfo &out, const hsSensor &s) {
  out.type = CORBA::string_dup(hsm_sensorTypeName(s.type));
  out.name = CORBA::string_dup(s.name);
  out.id = s.id;
  copy3(out.translation, s.translation);
  for (int k = 0; k < 4; k++) out.rotation[k] = s.rotation[k];
  fillSeq(out.specValues, s.specValues, s.nspecValue);
  out.specFile = CORBA::string_dup(s.specFile);
  convertRefs(out.shapeIndices, s.shapeRefs, s.nshapeRef);
  convertMatrices(out.inlinedShapeTransformMatrices, s.inlinedMatrices, s.ninlinedMatrix);
}

static void convertSegment(OpenHRP::SegmentInfo &out, const hsSegment &s) {
  out.name = CORBA::string_dup(s.name);
  out.mass = s.mass;
  copy3(out.centerOfMass, s.com);
  for (int k = 0; k < 9; k++) out.inertia[k] = s.inertia[k];
  for (int k = 0; k < 12; k++) out.transformMatrix[k] = s.T[k];
  out.shapeIndices.length(s.nshapeRef);
  for (int k = 0; k < s.nshapeRef; k++) out.shapeIndices[k] = s.shapeRefs[k];
}

static void convertLight(OpenHRP::LightInfo &out, const hsLight &l) {
  out.name = CORBA::string_dup(l.name);
  out.type = static_cast<OpenHRP::LightType>(l.type);
  for (int k = 0; k < 12; k++) out.transformMatrix[k] = l.T[k];
  out.ambientIntensity = l.ambientIntensity;
  copy3(out.attenuation, l.attenuation);
  copy3(out.color, l.color);
  out.intensity = l.intensity;
  copy3(out.location, l.location);
  out.on = l.on != 0;
  out.radius = l.radius;
  copy3(out.direction, l.direction);
  out.beamWidth = l.beamWidth;
  out.cutOffAngle = l.cutOffAngle;
}

static void convertLink(OpenHRP::LinkInfo &out, const hsBody &b, int i) {
  const hsLink &l = b.links[i];
  out.name = CORBA::string_dup(l.name);
  out.jointId = static_cast<CORBA::Short>(l.jointId);
  out.jointType = CORBA::string_dup(l.jointTypeName);
  out.jointValue = l.jointValue;
  copy3(out.jointAxis, l.axis);
  copyDoubles(out.ulimit, l.ulimit);
  copyDoubles(out.llimit, l.llimit);
  copyDoubles(out.uvlimit, l.uvlimit);
  copyDoubles(out.lvlimit, l.lvlimit);
  copyDoubles(out.climit, l.climit);
  copy3(out.translation, l.translation);
  for (int k = 0; k < 4; k++) out.rotation[k] = l.rotation[k];
  out.mass = l.mass;
  copy3(out.centerOfMass, l.com);
  for (int k = 0; k < 9; k++) out.inertia[k] = l.inertia[k];
  out.rotorInertia = l.rotorInertia;
  out.rotorResistor = l.rotorResistor;
  out.gearRatio = l.gearRatio;
  out.torqueConst = l.torqueConst;
  out.encoderPulse = l.encoderPulse;
  out.parentIndex = static_cast<CORBA::Short>(l.parent);
  out.childIndices.length(l.nchild);
  for (int k = 0; k < l.nchild; k++) out.childIndices[k] = static_cast<CORBA::Short>(l.children[k]);
  convertRefs(out.shapeIndices, l.shapeRefs, l.nshapeRef);
  out.AABBmaxDepth = static_cast<CORBA::Short>(l.AABBmaxDepth);
  out.AABBmaxNum = static_cast<CORBA::Short>(l.AABBmaxNum);
  convertMatrices(out.inlinedShapeTransformMatrices, l.inlinedMatrices, l.ninlinedMatrix);
  out.sensors.length(l.nsensor);
  for (int k = 0; k < l.nsensor; k++) convertSensor(out.sensors[k], b.sensors[l.sensorAdr + k]);
  out.hwcs.length(0);
  out.segments.length(l.nsegment);
  for (int k = 0; k < l.nsegment; k++) {
    convertSegment(out.segments[k], b.segments[l.segmentAdr + k]);
  }
  out.lights.length(l.nlight);
  for (int k = 0; k < l.nlight; k++) convertLight(out.lights[k], b.lights[l.lightAdr + k]);
  out.specFiles.length(0);
}

//---------------------------------- ShapeSetInfo ----------------------------------------------

static OpenHRP::ShapeInfoSequence *convertShapes(const hsBody &b) {
  OpenHRP::ShapeInfoSequence_var seq = new OpenHRP::ShapeInfoSequence;
  seq->length(b.nshape);
  for (int i = 0; i < b.nshape; i++) {
    const hsShape &s = b.shapes[i];
    OpenHRP::ShapeInfo &out = seq[i];
    out.url = CORBA::string_dup(s.url);
    out.primitiveType = static_cast<OpenHRP::ShapePrimitiveType>(s.primitive);
    fillSeq(out.primitiveParameters, s.params, s.nparam);
    fillSeq(out.vertices, s.vertices, 3 * s.nvertex);
    fillSeq(out.triangles, s.triangles, 3 * s.ntriangle);
    out.appearanceIndex = s.appearance;
  }
  return seq._retn();
}

static OpenHRP::AppearanceInfoSequence *convertAppearances(const hsBody &b) {
  OpenHRP::AppearanceInfoSequence_var seq = new OpenHRP::AppearanceInfoSequence;
  seq->length(b.nappearance);
  for (int i = 0; i < b.nappearance; i++) {
    const hsAppearance &a = b.appearances[i];
    OpenHRP::AppearanceInfo &out = seq[i];
    out.materialIndex = a.material;
    fillSeq(out.normals, a.normals, 3 * a.nnormal);
    fillSeq(out.normalIndices, a.normalIndices, a.nnormalIndex);
    out.normalPerVertex = a.normalPerVertex != 0;
    out.solid = a.solid != 0;
    out.creaseAngle = a.creaseAngle;
    fillSeq(out.colors, a.colors, 3 * a.ncolor);
    fillSeq(out.colorIndices, a.colorIndices, a.ncolorIndex);
    out.colorPerVertex = a.colorPerVertex != 0;
    out.textureIndex = a.texture;
    fillSeq(out.textureCoordinate, a.texCoords, 2 * a.ntexCoord);
    fillSeq(out.textureCoordIndices, a.texCoordIndices, a.ntexCoordIndex);
    for (int k = 0; k < 9; k++) out.textransformMatrix[k] = a.texTransform[k];
  }
  return seq._retn();
}

static OpenHRP::MaterialInfoSequence *convertMaterials(const hsBody &b) {
  OpenHRP::MaterialInfoSequence_var seq = new OpenHRP::MaterialInfoSequence;
  seq->length(b.nmaterial);
  for (int i = 0; i < b.nmaterial; i++) {
    const hsMaterial &m = b.materials[i];
    OpenHRP::MaterialInfo &out = seq[i];
    out.ambientIntensity = m.ambientIntensity;
    for (int k = 0; k < 3; k++) {
      out.diffuseColor[k] = m.diffuseColor[k];
      out.emissiveColor[k] = m.emissiveColor[k];
      out.specularColor[k] = m.specularColor[k];
    }
    out.shininess = m.shininess;
    out.transparency = m.transparency;
  }
  return seq._retn();
}

static OpenHRP::TextureInfoSequence *convertTextures(const hsBody &b) {
  OpenHRP::TextureInfoSequence_var seq = new OpenHRP::TextureInfoSequence;
  seq->length(b.ntexture);
  for (int i = 0; i < b.ntexture; i++) {
    const hsTexture &t = b.textures[i];
    OpenHRP::TextureInfo &out = seq[i];
    fillSeq(out.image, t.image, static_cast<int>(t.nimage));
    out.numComponents = static_cast<CORBA::Short>(t.numComponents);
    out.width = static_cast<CORBA::Short>(t.width);
    out.height = static_cast<CORBA::Short>(t.height);
    out.repeatS = t.repeatS != 0;
    out.repeatT = t.repeatT != 0;
    out.url = CORBA::string_dup(t.url);
  }
  return seq._retn();
}

//---------------------------------- servants --------------------------------------------------

BodyPtr shareBody(hsBody *body) {
  return BodyPtr(body, [](const hsBody *b) { hsm_freeBody(const_cast<hsBody *>(b)); });
}

BodyInfoServant::BodyInfoServant(BodyPtr body, AabbOption aabb)
    : body_(std::move(body)), aabb_(std::move(aabb)) {
  if (!aabb_.data.empty()) {
    makeBoxes();
  }
}

void BodyInfoServant::makeBoxes() {
  // OpenHRP's changetoBoundingBox: per link, the level asked for (AABB_DEPTH: the level;
  // AABB_NUM: the first level with at least that many boxes, else the deepest), at most the
  // deepest level; boxes of equal size (to 1e-6 m) share one box shape
  const double kEps = 1e-6;
  int n = body_->nlink;
  boxed_ = true;
  boxRefs_.assign(static_cast<size_t>(n), {});
  treeDepth_.assign(static_cast<size_t>(n), 0);
  treeMaxNum_.assign(static_cast<size_t>(n), 0);
  for (int i = 0; i < n; i++) {
    int depth = 0;
    std::vector<int> counts(64, 0);
    hsError err = {};
    if (hsc_linkBoxTree(body_.get(), i, -1, nullptr, 0, &depth, counts.data(),
                        static_cast<int>(counts.size()), &err) < 0 || depth == 0) {
      continue;  // no triangles (or no memory): no boxes
    }
    int levels = std::min<int>(depth, static_cast<int>(counts.size()));
    treeDepth_[static_cast<size_t>(i)] = depth;
    treeMaxNum_[static_cast<size_t>(i)] = counts[static_cast<size_t>(levels - 1)];
    int want = aabb_.data[std::min<size_t>(static_cast<size_t>(i), aabb_.data.size() - 1)];
    int level = want;
    if (!aabb_.byDepth) {
      level = depth;
      for (int d = 0; d < levels; d++) {
        if (want <= counts[static_cast<size_t>(d)]) {
          level = d;
          break;
        }
      }
    }
    level = std::max(0, std::min(level, depth - 1));
    int nbox = hsc_linkBoxTree(body_.get(), i, level, nullptr, 0, nullptr, nullptr, 0, &err);
    std::vector<double> boxes(6 * static_cast<size_t>(std::max(nbox, 0)));
    nbox = hsc_linkBoxTree(body_.get(), i, level, boxes.data(), nbox, nullptr, nullptr, 0, &err);
    for (int b = 0; b < nbox; b++) {
      const double *lo = &boxes[6 * static_cast<size_t>(b)], *hi = lo + 3;
      BoxRef ref;
      float size[3];
      for (int j = 0; j < 3; j++) {
        ref.c[j] = 0.5 * (lo[j] + hi[j]);
        size[j] = static_cast<float>(hi[j] - lo[j]);
      }
      size_t k = 0;
      for (; k < boxSizes_.size() / 3; k++) {
        double d2 = 0;
        for (int j = 0; j < 3; j++) {
          double e = boxSizes_[3 * k + static_cast<size_t>(j)] - size[j];
          d2 += e * e;
        }
        if (d2 < kEps * kEps) {
          break;
        }
      }
      if (k == boxSizes_.size() / 3) {
        boxSizes_.insert(boxSizes_.end(), size, size + 3);
      }
      ref.shape = static_cast<int>(k);
      boxRefs_[static_cast<size_t>(i)].push_back(ref);
    }
  }
}

void BodyInfoServant::convertBoxRefs(OpenHRP::TransformedShapeIndexSequence &seq,
                                     int link) const {
  const std::vector<BoxRef> &refs = boxRefs_[static_cast<size_t>(link)];
  seq.length(static_cast<CORBA::ULong>(refs.size()));
  for (size_t r = 0; r < refs.size(); r++) {
    OpenHRP::TransformedShapeIndex &t = seq[static_cast<CORBA::ULong>(r)];
    const double T[12] = {1, 0, 0, refs[r].c[0], 0, 1, 0, refs[r].c[1], 0, 0, 1, refs[r].c[2]};
    for (int k = 0; k < 12; k++) t.transformMatrix[k] = T[k];
    t.inlinedShapeTransformMatrixIndex = -1;
    t.shapeIndex = static_cast<CORBA::Short>(refs[r].shape);
  }
}

OpenHRP::ShapeInfoSequence *BodyInfoServant::shapes() {
  if (!boxed_) {
    return convertShapes(*body_);
  }
  // the box shapes only (OpenHRP replaces the shape list): each a box primitive and its 12
  // triangles, counter-clockwise seen from outside
  OpenHRP::ShapeInfoSequence_var seq = new OpenHRP::ShapeInfoSequence;
  CORBA::ULong n = static_cast<CORBA::ULong>(boxSizes_.size() / 3);
  seq->length(n);
  static const int kTris[36] = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4,
                                2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};
  for (CORBA::ULong i = 0; i < n; i++) {
    OpenHRP::ShapeInfo &out = seq[i];
    const float *size = &boxSizes_[3 * i];
    out.url = CORBA::string_dup("");
    out.primitiveType = OpenHRP::SP_BOX;
    fillSeq(out.primitiveParameters, size, 3);
    float v[24];
    for (int c = 0; c < 8; c++) {
      v[3 * c] = ((c & 1) ? 0.5f : -0.5f) * size[0];
      v[3 * c + 1] = ((c & 2) ? 0.5f : -0.5f) * size[1];
      v[3 * c + 2] = ((c & 4) ? 0.5f : -0.5f) * size[2];
    }
    fillSeq(out.vertices, v, 24);
    fillSeq(out.triangles, kTris, 36);
    out.appearanceIndex = 0;
  }
  return seq._retn();
}

OpenHRP::AppearanceInfoSequence *BodyInfoServant::appearances() {
  if (!boxed_) {
    return convertAppearances(*body_);
  }
  // one plain appearance for every box
  OpenHRP::AppearanceInfoSequence_var seq = new OpenHRP::AppearanceInfoSequence;
  seq->length(1);
  OpenHRP::AppearanceInfo &a = seq[0];
  a.materialIndex = -1;
  a.normalPerVertex = false;
  a.solid = true;
  a.creaseAngle = 0;
  a.colorPerVertex = false;
  a.textureIndex = -1;
  for (int k = 0; k < 9; k++) a.textransformMatrix[k] = (k % 4 == 0) ? 1 : 0;
  return seq._retn();
}
OpenHRP::MaterialInfoSequence *BodyInfoServant::materials() { return convertMaterials(*body_); }
OpenHRP::TextureInfoSequence *BodyInfoServant::textures() { return convertTextures(*body_); }
char *BodyInfoServant::name() { return CORBA::string_dup(body_->name); }
char *BodyInfoServant::url() { return CORBA::string_dup(body_->url); }

OpenHRP::StringSequence *BodyInfoServant::info() {
  OpenHRP::StringSequence_var seq = new OpenHRP::StringSequence;
  seq->length(body_->ninfo);
  for (int i = 0; i < body_->ninfo; i++) seq[i] = CORBA::string_dup(body_->info[i]);
  return seq._retn();
}

OpenHRP::LinkInfoSequence *BodyInfoServant::links() {
  OpenHRP::LinkInfoSequence_var seq = new OpenHRP::LinkInfoSequence;
  seq->length(body_->nlink);
  for (int i = 0; i < body_->nlink; i++) {
    convertLink(seq[i], *body_, i);
    if (boxed_) {
      // the boxes are the link's shapes now, drawn and collided; sensors lose theirs
      convertBoxRefs(seq[i].shapeIndices, i);
      seq[i].AABBmaxDepth = static_cast<CORBA::Short>(treeDepth_[static_cast<size_t>(i)]);
      seq[i].AABBmaxNum = static_cast<CORBA::Short>(treeMaxNum_[static_cast<size_t>(i)]);
      for (CORBA::ULong k = 0; k < seq[i].sensors.length(); k++) {
        seq[i].sensors[k].shapeIndices.length(0);
      }
      for (CORBA::ULong k = 0; k < seq[i].segments.length(); k++) {
        seq[i].segments[k].shapeIndices.length(0);  // they indexed the shapes replaced
      }
    }
  }
  return seq._retn();
}

OpenHRP::AllLinkShapeIndexSequence *BodyInfoServant::linkShapeIndices() {
  // the collision shapes (LinkInfo.shapeIndices are the shapes to draw; for VRML they agree)
  OpenHRP::AllLinkShapeIndexSequence_var seq = new OpenHRP::AllLinkShapeIndexSequence;
  seq->length(body_->nlink);
  for (int i = 0; i < body_->nlink; i++) {
    if (boxed_) {
      convertBoxRefs(seq[i], i);
    } else {
      convertRefs(seq[i], body_->links[i].collisionRefs, body_->links[i].ncollisionRef);
    }
  }
  return seq._retn();
}

OpenHRP::ExtraJointInfoSequence *BodyInfoServant::extraJoints() {
  OpenHRP::ExtraJointInfoSequence_var seq = new OpenHRP::ExtraJointInfoSequence;
  seq->length(body_->nextraJoint);
  for (int i = 0; i < body_->nextraJoint; i++) {
    const hsExtraJoint &e = body_->extraJoints[i];
    OpenHRP::ExtraJointInfo &out = seq[i];
    out.name = CORBA::string_dup(e.name);
    // OpenHRP's ExtraJointType and model.h's hstExtraJoint number the types alike
    static_assert(OpenHRP::EJ_XYZ == static_cast<int>(hsEXTRA_XYZ) &&
                      OpenHRP::EJ_XY == static_cast<int>(hsEXTRA_XY) &&
                      OpenHRP::EJ_Z == static_cast<int>(hsEXTRA_Z),
                  "ExtraJointType differs from hstExtraJoint");
    out.jointType = static_cast<OpenHRP::ExtraJointType>(e.type);
    copy3(out.axis, e.axis);
    for (int k = 0; k < 2; k++) {
      out.link[k] = CORBA::string_dup(e.linkName[k]);
      copy3(out.point[k], e.point[k]);
    }
  }
  return seq._retn();
}

SceneInfoServant::SceneInfoServant(BodyPtr body) : body_(std::move(body)) {}

OpenHRP::ShapeInfoSequence *SceneInfoServant::shapes() { return convertShapes(*body_); }
OpenHRP::AppearanceInfoSequence *SceneInfoServant::appearances() {
  return convertAppearances(*body_);
}
OpenHRP::MaterialInfoSequence *SceneInfoServant::materials() { return convertMaterials(*body_); }
OpenHRP::TextureInfoSequence *SceneInfoServant::textures() { return convertTextures(*body_); }
char *SceneInfoServant::url() { return CORBA::string_dup(body_->url); }

OpenHRP::TransformedShapeIndexSequence *SceneInfoServant::shapeIndices() {
  // place each link's shapes with the link's initial world pose
  hsError err = {};
  hsBodyState *st = hsm_makeState(body_.get(), &err);
  if (!st) {
    throw CORBA::NO_MEMORY();
  }
  OpenHRP::TransformedShapeIndexSequence_var seq = new OpenHRP::TransformedShapeIndexSequence;
  CORBA::ULong n = 0;
  for (int i = 0; i < body_->nlink; i++) n += body_->links[i].nshapeRef;
  seq->length(n);
  CORBA::ULong k = 0;
  for (int i = 0; i < body_->nlink; i++) {
    const hsLink &l = body_->links[i];
    double L[12], T[12];
    hsu_makeTransform(L, st->linkR + 9 * i, st->linkP + 3 * i);
    for (int r = 0; r < l.nshapeRef; r++, k++) {
      hsu_mulTransform(T, L, l.shapeRefs[r].T);
      for (int c = 0; c < 12; c++) seq[k].transformMatrix[c] = T[c];
      seq[k].inlinedShapeTransformMatrixIndex = -1;
      seq[k].shapeIndex = static_cast<CORBA::Short>(l.shapeRefs[r].shape);
    }
  }
  hsm_freeState(st);
  return seq._retn();
}

//---------------------------------- BodyInfo -> hsBody ----------------------------------------

namespace {

// fills a builder from BodyInfo data; every method returns false with err set on bad input
class Importer {
 public:
  Importer(hsmBuilder &b, hsError *err) : b_(b), err_(err) {}

  bool fail(int code, const std::string &what) {
    HS_ERR(err_, code, "BodyInfo: %s", what.c_str());
    return false;
  }
  bool nomem() { return fail(hsE_NOMEM, "out of memory"); }

  template <typename T>
  bool finite(const T *v, size_t n, const std::string &what) {
    for (size_t i = 0; i < n; i++) {
      if (!std::isfinite(static_cast<double>(v[i]))) {
        return fail(hsE_INVALID, what + " holds a NaN or infinite number");
      }
    }
    return true;
  }

  char *dup(const char *s) { return hsu_strdup(s ? s : ""); }

  template <typename T>
  bool push(hsuVec &v, const T &x) {
    return hsu_vecPush(&v, sizeof(T), &x) ? true : nomem();
  }

  bool refs(hsuVec &out, const OpenHRP::TransformedShapeIndexSequence &in, int nshape,
            int nmatrix, const std::string &where) {
    for (CORBA::ULong i = 0; i < in.length(); i++) {
      hsShapeRef r;
      for (int k = 0; k < 12; k++) r.T[k] = in[i].transformMatrix[k];
      r.inlineMatrix = in[i].inlinedShapeTransformMatrixIndex;
      r.shape = in[i].shapeIndex;
      if (r.shape < 0 || r.shape >= nshape || r.inlineMatrix < -1 || r.inlineMatrix >= nmatrix) {
        return fail(hsE_INVALID, where + ": shape index out of range");
      }
      if (!finite(r.T, 12, where + " transformMatrix") || !push(out, r)) return false;
    }
    return true;
  }

  bool matrices(hsuVec &out, const OpenHRP::DblArray12Sequence &in, const std::string &where) {
    for (CORBA::ULong i = 0; i < in.length(); i++) {
      double m[12];
      for (int k = 0; k < 12; k++) m[k] = in[i][k];
      if (!finite(m, 12, where) || !hsu_vecPush(&out, sizeof m, m)) return false;
    }
    return true;
  }

  bool shapes(const OpenHRP::ShapeInfoSequence &in, int nappearance) {
    for (CORBA::ULong i = 0; i < in.length(); i++) {
      const OpenHRP::ShapeInfo &si = in[i];
      std::string where = "shape " + std::to_string(i);
      hsmShapeSpec s;
      std::memset(&s, 0, sizeof s);
      s.primitive = static_cast<hstPrimitive>(si.primitiveType);
      s.nparam = std::min<int>(si.primitiveParameters.length(), 8);
      for (int k = 0; k < s.nparam; k++) s.params[k] = si.primitiveParameters[k];
      // (found by fuzzing: a NaN box size from a client's BodyInfo was taken as it was)
      if (!finite(s.params, s.nparam, where + " primitiveParameters")) return false;
      int nv = si.vertices.length() / 3, nt = si.triangles.length() / 3;
      const int *tri = reinterpret_cast<const int *>(si.triangles.get_buffer());
      for (int k = 0; k < 3 * nt; k++) {
        if (tri[k] < 0 || tri[k] >= nv) {
          return fail(hsE_INVALID, where + ": vertex index out of range");
        }
      }
      if (!finite(si.vertices.get_buffer(), 3 * nv, where + " vertices")) return false;
      if (si.appearanceIndex < -1 || si.appearanceIndex >= nappearance) {
        return fail(hsE_INVALID, where + ": appearance index out of range");
      }
      s.appearance = si.appearanceIndex;
      s.url = dup(si.url);
      s.mesh.vertices = static_cast<float *>(hsu_malloc(sizeof(float) * 3 * (nv ? nv : 1)));
      s.mesh.triangles = static_cast<int *>(hsu_malloc(sizeof(int) * 3 * (nt ? nt : 1)));
      s.mesh.nvertex = nv, s.mesh.ntriangle = nt;
      if (!s.url || !s.mesh.vertices || !s.mesh.triangles) {
        hsu_free(s.url);
        hsm_freeMesh(&s.mesh);
        return nomem();
      }
      std::memcpy(s.mesh.vertices, si.vertices.get_buffer(), sizeof(float) * 3 * nv);
      std::memcpy(s.mesh.triangles, tri, sizeof(int) * 3 * nt);
      if (!hsu_vecPush(&b_.shapes, sizeof s, &s)) {
        hsu_free(s.url);
        hsm_freeMesh(&s.mesh);
        return nomem();
      }
    }
    return true;
  }

  template <typename Seq, typename T>
  bool copyArray(T **dst, int *n, const Seq &src, int width) {
    *n = src.length() / width;
    *dst = static_cast<T *>(hsu_malloc(sizeof(T) * (src.length() ? src.length() : 1)));
    if (!*dst) return nomem();
    if (src.length()) std::memcpy(*dst, src.get_buffer(), sizeof(T) * src.length());
    return true;
  }

  bool appearances(const OpenHRP::AppearanceInfoSequence &in, int nmaterial, int ntexture) {
    for (CORBA::ULong i = 0; i < in.length(); i++) {
      const OpenHRP::AppearanceInfo &ai = in[i];
      hsmAppearanceSpec a;
      std::memset(&a, 0, sizeof a);
      if (ai.materialIndex < -1 || ai.materialIndex >= nmaterial || ai.textureIndex < -1 ||
          ai.textureIndex >= ntexture) {
        return fail(hsE_INVALID, "appearance " + std::to_string(i) + ": index out of range");
      }
      // every number finite (found by fuzzing: a NaN texture coordinate was taken as it was)
      std::string where = "appearance " + std::to_string(i);
      if (!finite(ai.normals.get_buffer(), ai.normals.length(), where + " normals") ||
          !finite(ai.colors.get_buffer(), ai.colors.length(), where + " colors") ||
          !finite(ai.textureCoordinate.get_buffer(), ai.textureCoordinate.length(),
                  where + " textureCoordinate") ||
          !finite(&ai.creaseAngle, 1, where + " creaseAngle") ||
          !finite(ai.textransformMatrix, 9, where + " textransformMatrix")) {
        return false;
      }
      a.app.material = ai.materialIndex;
      a.app.texture = ai.textureIndex;
      a.app.normalPerVertex = ai.normalPerVertex;
      a.app.solid = ai.solid;
      a.app.creaseAngle = ai.creaseAngle;
      a.app.colorPerVertex = ai.colorPerVertex;
      for (int k = 0; k < 9; k++) a.app.texTransform[k] = ai.textransformMatrix[k];
      hsmMesh &m = a.attrs;
      m.normalPerVertex = ai.normalPerVertex;
      m.colorPerVertex = ai.colorPerVertex;
      bool ok = copyArray(&m.normals, &m.nnormal, ai.normals, 3) &&
                copyArray(&m.normalIndices, &m.nnormalIndex, ai.normalIndices, 1) &&
                copyArray(&m.colors, &m.ncolor, ai.colors, 3) &&
                copyArray(&m.colorIndices, &m.ncolorIndex, ai.colorIndices, 1) &&
                copyArray(&m.texCoords, &m.ntexCoord, ai.textureCoordinate, 2) &&
                copyArray(&m.texCoordIndices, &m.ntexCoordIndex, ai.textureCoordIndices, 1);
      if (!ok || !hsu_vecPush(&b_.appearances, sizeof a, &a)) {
        hsm_freeMesh(&m);
        return ok ? nomem() : false;
      }
    }
    return true;
  }

  bool materials(const OpenHRP::MaterialInfoSequence &in) {
    for (CORBA::ULong i = 0; i < in.length(); i++) {
      const OpenHRP::MaterialInfo &mi = in[i];
      std::string where = "material " + std::to_string(i);
      if (!finite(&mi.ambientIntensity, 1, where) || !finite(mi.diffuseColor, 3, where) ||
          !finite(mi.emissiveColor, 3, where) || !finite(mi.specularColor, 3, where) ||
          !finite(&mi.shininess, 1, where) || !finite(&mi.transparency, 1, where)) {
        return false;
      }
      hsMaterial m;
      m.ambientIntensity = in[i].ambientIntensity;
      for (int k = 0; k < 3; k++) {
        m.diffuseColor[k] = in[i].diffuseColor[k];
        m.emissiveColor[k] = in[i].emissiveColor[k];
        m.specularColor[k] = in[i].specularColor[k];
      }
      m.shininess = in[i].shininess;
      m.transparency = in[i].transparency;
      if (!push(b_.materials, m)) return false;
    }
    return true;
  }

  bool textures(const OpenHRP::TextureInfoSequence &in) {
    for (CORBA::ULong i = 0; i < in.length(); i++) {
      const OpenHRP::TextureInfo &ti = in[i];
      hsmTextureSpec t;
      std::memset(&t, 0, sizeof t);
      t.tex.numComponents = ti.numComponents;
      t.tex.width = ti.width;
      t.tex.height = ti.height;
      t.tex.repeatS = ti.repeatS;
      t.tex.repeatT = ti.repeatT;
      t.tex.nimage = ti.image.length();
      size_t want = size_t(ti.width > 0 ? ti.width : 0) * (ti.height > 0 ? ti.height : 0) *
                    (ti.numComponents > 0 ? ti.numComponents : 0);
      if (t.tex.nimage && t.tex.nimage != want) {
        return fail(hsE_INVALID, "texture " + std::to_string(i) + ": image size mismatch");
      }
      t.url = dup(ti.url);
      t.image = t.tex.nimage ? static_cast<unsigned char *>(hsu_malloc(t.tex.nimage)) : nullptr;
      if (!t.url || (t.tex.nimage && !t.image)) {
        hsu_free(t.url);
        hsu_free(t.image);
        return nomem();
      }
      if (t.tex.nimage) std::memcpy(t.image, ti.image.get_buffer(), t.tex.nimage);
      if (!hsu_vecPush(&b_.textures, sizeof t, &t)) {
        hsu_free(t.url);
        hsu_free(t.image);
        return nomem();
      }
    }
    return true;
  }

  bool sensor(const OpenHRP::SensorInfo &si, int link, int nshape) {
    hsmSensorSpec s;
    std::memset(&s, 0, sizeof s);
    std::string where = std::string("sensor '") + static_cast<const char *>(si.name) + "'";
    int type = -1;
    for (int k = 0; k < hsSENSOR_NTYPES; k++) {
      if (std::strcmp(si.type, hsm_sensorTypeName(static_cast<hstSensor>(k))) == 0) type = k;
    }
    if (type < 0) {
      return fail(hsE_INVALID,
                  where + ": unknown type '" + static_cast<const char *>(si.type) + "'");
    }
    s.sensor.type = static_cast<hstSensor>(type);
    s.sensor.id = si.id;
    s.sensor.link = link;
    for (int k = 0; k < 3; k++) s.sensor.translation[k] = si.translation[k];
    for (int k = 0; k < 4; k++) s.sensor.rotation[k] = si.rotation[k];
    if (!finite(s.sensor.translation, 3, where) || !finite(s.sensor.rotation, 4, where)) {
      return false;
    }
    s.name = dup(si.name);
    s.specFile = dup(si.specFile);
    bool ok = s.name && s.specFile;
    for (CORBA::ULong k = 0; ok && k < si.specValues.length(); k++) {
      float v = si.specValues[k];
      ok = hsu_vecPush(&s.specValues, sizeof v, &v) != nullptr;
    }
    ok = ok && matrices(s.inlined, si.inlinedShapeTransformMatrices, where) &&
         refs(s.shapeRefs, si.shapeIndices, nshape, static_cast<int>(s.inlined.n), where);
    if (!ok || !hsu_vecPush(&b_.sensors, sizeof s, &s)) {
      hsu_free(s.name);
      hsu_free(s.specFile);
      hsu_vecFree(&s.specValues);
      hsu_vecFree(&s.shapeRefs);
      hsu_vecFree(&s.inlined);
      return ok ? nomem() : (err_->code ? false : nomem());
    }
    return true;
  }

  bool segment(const OpenHRP::SegmentInfo &si, int link, int nlinkRefs) {
    hsmSegmentSpec s;
    std::memset(&s, 0, sizeof s);
    s.seg.link = link;
    s.seg.mass = si.mass;
    for (int k = 0; k < 3; k++) s.seg.com[k] = si.centerOfMass[k];
    for (int k = 0; k < 9; k++) s.seg.inertia[k] = si.inertia[k];
    for (int k = 0; k < 12; k++) s.seg.T[k] = si.transformMatrix[k];
    std::string where = std::string("segment '") + static_cast<const char *>(si.name) + "'";
    if (!finite(&s.seg.mass, 1, where) || !finite(s.seg.com, 3, where) ||
        !finite(s.seg.inertia, 9, where) || !finite(s.seg.T, 12, where)) {
      return false;
    }
    s.name = dup(si.name);
    bool ok = s.name != nullptr;
    for (CORBA::ULong k = 0; ok && k < si.shapeIndices.length(); k++) {
      int r = si.shapeIndices[k];
      if (r < 0 || r >= nlinkRefs) {
        hsu_free(s.name);
        hsu_vecFree(&s.shapeRefs);
        return fail(hsE_INVALID, where + ": shape index out of range");
      }
      ok = hsu_vecPush(&s.shapeRefs, sizeof r, &r) != nullptr;
    }
    if (!ok || !hsu_vecPush(&b_.segments, sizeof s, &s)) {
      hsu_free(s.name);
      hsu_vecFree(&s.shapeRefs);
      return nomem();
    }
    return true;
  }

  bool light(const OpenHRP::LightInfo &li, int link) {
    hsmLightSpec l;
    std::memset(&l, 0, sizeof l);
    hsLight &d = l.light;
    d.type = static_cast<hstLight>(li.type);
    d.link = link;
    for (int k = 0; k < 12; k++) d.T[k] = li.transformMatrix[k];
    d.ambientIntensity = li.ambientIntensity;
    for (int k = 0; k < 3; k++) {
      d.attenuation[k] = li.attenuation[k];
      d.color[k] = li.color[k];
      d.location[k] = li.location[k];
      d.direction[k] = li.direction[k];
    }
    d.intensity = li.intensity;
    d.on = li.on;
    d.radius = li.radius;
    d.beamWidth = li.beamWidth;
    d.cutOffAngle = li.cutOffAngle;
    l.name = dup(li.name);
    if (!l.name || !hsu_vecPush(&b_.lights, sizeof l, &l)) {
      hsu_free(l.name);
      return nomem();
    }
    return true;
  }

  // one link; `order` maps wire indices to depth-first builder indices
  bool link(const OpenHRP::LinkInfo &li, const OpenHRP::TransformedShapeIndexSequence *collision,
            const std::vector<int> &order, int nshape) {
    hsmLinkSpec l;
    std::memset(&l, 0, sizeof l);
    hsLink &k = l.link;
    int self = static_cast<int>(b_.links.n);
    std::string where = std::string("link '") + static_cast<const char *>(li.name) + "'";
    if (hsm_parseJointType(li.jointType, &k.jointType)) {
      return fail(hsE_INVALID, where + ": unknown jointType '" +
                                   static_cast<const char *>(li.jointType) + "'");
    }
    k.jointId = li.jointId;
    k.jointValue = li.jointValue;
    for (int i = 0; i < 3; i++) {
      k.axis[i] = li.jointAxis[i];
      k.translation[i] = li.translation[i];
      k.com[i] = li.centerOfMass[i];
    }
    for (int i = 0; i < 4; i++) k.rotation[i] = li.rotation[i];
    for (int i = 0; i < 9; i++) k.inertia[i] = li.inertia[i];
    k.mass = li.mass;
    k.rotorInertia = li.rotorInertia;
    k.rotorResistor = li.rotorResistor;
    k.gearRatio = li.gearRatio;
    k.torqueConst = li.torqueConst;
    k.encoderPulse = li.encoderPulse;
    k.AABBmaxDepth = li.AABBmaxDepth;
    k.AABBmaxNum = li.AABBmaxNum;
    k.parent = li.parentIndex < 0 ? -1 : order[li.parentIndex];
    double scalars[] = {k.jointValue, k.mass, k.rotorInertia, k.rotorResistor, k.gearRatio,
                        k.torqueConst, k.encoderPulse};
    if (!finite(scalars, 7, where) || !finite(k.axis, 3, where + " jointAxis") ||
        !finite(k.translation, 3, where) || !finite(k.rotation, 4, where) ||
        !finite(k.com, 3, where) || !finite(k.inertia, 9, where)) {
      return false;
    }
    if (k.mass < 0) return fail(hsE_INVALID, where + ": negative mass");
    l.massGiven = 1;
    l.where = hsmSource{"", 0, 0};
    l.jointIdAt = l.where;
    l.name = dup(li.name);
    l.jointTypeName = dup(li.jointType);
    const OpenHRP::DblSequence *limits[5] = {&li.ulimit, &li.llimit, &li.uvlimit, &li.lvlimit,
                                             &li.climit};
    bool ok = l.name && l.jointTypeName;
    for (int i = 0; ok && i < 5; i++) {
      for (CORBA::ULong j = 0; ok && j < limits[i]->length(); j++) {
        double v = (*limits[i])[j];
        ok = hsu_vecPush(&l.limits[i], sizeof v, &v) != nullptr;
      }
    }
    if (!ok) {
      nomem();
    } else {
      ok = matrices(l.inlined, li.inlinedShapeTransformMatrices, where) &&
           refs(l.shapeRefs, li.shapeIndices, nshape, static_cast<int>(l.inlined.n), where);
      if (ok && collision) {
        l.separateCollision = 1;
        ok = refs(l.collisionRefs, *collision, nshape, static_cast<int>(l.inlined.n), where);
      }
    }
    int nrefs = static_cast<int>(l.shapeRefs.n);
    if (!ok || !hsu_vecPush(&b_.links, sizeof l, &l)) {
      hsu_free(l.name);
      hsu_free(l.jointTypeName);
      for (int i = 0; i < 5; i++) hsu_vecFree(&l.limits[i]);
      hsu_vecFree(&l.shapeRefs);
      hsu_vecFree(&l.collisionRefs);
      hsu_vecFree(&l.inlined);
      return ok ? nomem() : false;
    }
    for (CORBA::ULong i = 0; i < li.sensors.length(); i++) {
      if (!sensor(li.sensors[i], self, nshape)) return false;
    }
    for (CORBA::ULong i = 0; i < li.segments.length(); i++) {
      if (!segment(li.segments[i], self, nrefs)) return false;
    }
    for (CORBA::ULong i = 0; i < li.lights.length(); i++) {
      if (!light(li.lights[i], self)) return false;
    }
    return true;
  }

 private:
  hsmBuilder &b_;
  hsError *err_;
};

// 1 if two shape-ref lists are identical
bool sameRefs(const OpenHRP::TransformedShapeIndexSequence &a,
              const OpenHRP::TransformedShapeIndexSequence &b) {
  if (a.length() != b.length()) return false;
  for (CORBA::ULong i = 0; i < a.length(); i++) {
    if (a[i].shapeIndex != b[i].shapeIndex ||
        a[i].inlinedShapeTransformMatrixIndex != b[i].inlinedShapeTransformMatrixIndex ||
        std::memcmp(a[i].transformMatrix, b[i].transformMatrix, sizeof(double) * 12) != 0) {
      return false;
    }
  }
  return true;
}

}  // namespace

void loadOptionsFromWire(const OpenHRP::ModelLoader::ModelLoadOption &option,
                         hsmLoadOptions *opt, AabbOption *aabb) {
  hsm_defaultLoadOptions(opt);
  opt->readImage = option.readImage ? 1 : 0;
  aabb->data.assign(option.AABBdata.get_buffer(),
                    option.AABBdata.get_buffer() + option.AABBdata.length());
  aabb->byDepth = option.AABBtype == OpenHRP::ModelLoader::AABB_DEPTH;
}

hsBody *bodyFromInfo(OpenHRP::BodyInfo_ptr info, hsError *err) {
  // fetch every attribute once: each is a round trip
  CORBA::String_var name = info->name();
  CORBA::String_var url = info->url();
  OpenHRP::StringSequence_var infos = info->info();
  OpenHRP::LinkInfoSequence_var links = info->links();
  OpenHRP::AllLinkShapeIndexSequence_var collision = info->linkShapeIndices();
  OpenHRP::ShapeInfoSequence_var shapes = info->shapes();
  OpenHRP::AppearanceInfoSequence_var appearances = info->appearances();
  OpenHRP::MaterialInfoSequence_var materials = info->materials();
  OpenHRP::TextureInfoSequence_var textures = info->textures();
  OpenHRP::ExtraJointInfoSequence_var extras = info->extraJoints();

  hsmBuilder b;
  std::memset(&b, 0, sizeof b);
  Importer in(b, err);
  int nlink = static_cast<int>(links->length());

  // depth-first order from the root, whatever order the wire used (siblings in wire order)
  std::vector<int> order(nlink, -1), dfs(nlink, -1), parent(nlink, -1);
  for (int i = 0; i < nlink; i++) {
    parent[i] = links[i].parentIndex;
  }
  hsError why = {};
  bool ok = hsm_treeOrder(parent.data(), nullptr, nlink, dfs.data(), &why) == 0 ||
            in.fail(why.code, why.message);
  for (int k = 0; ok && k < nlink; k++) {
    order[dfs[k]] = k;
  }

  ok = ok && in.materials(materials.in()) && in.textures(textures.in()) &&
       in.appearances(appearances.in(), static_cast<int>(materials->length()),
                      static_cast<int>(textures->length())) &&
       in.shapes(shapes.in(), static_cast<int>(appearances->length()));
  int nshape = static_cast<int>(shapes->length());
  for (int k = 0; ok && k < nlink; k++) {
    int i = dfs[k];
    const OpenHRP::TransformedShapeIndexSequence *coll = nullptr;
    if (collision->length() == static_cast<CORBA::ULong>(nlink) &&
        !sameRefs(collision[i], links[i].shapeIndices)) {
      coll = &collision[i];
    }
    ok = in.link(links[i], coll, order, nshape);
  }
  if (ok) {
    b.name = in.dup(name);
    b.url = in.dup(url);
    ok = (b.name && b.url) || in.nomem();
  }
  for (CORBA::ULong i = 0; ok && i < infos->length(); i++) {
    char *s = in.dup(infos[i]);
    ok = (s && hsu_vecPush(&b.info, sizeof s, &s)) || (hsu_free(s), in.nomem());
  }
  for (CORBA::ULong i = 0; ok && i < extras->length(); i++) {
    const OpenHRP::ExtraJointInfo &ei = extras[i];
    hsmExtraJointSpec e;
    std::memset(&e, 0, sizeof e);
    e.ej.type = static_cast<hstExtraJoint>(ei.jointType);
    for (int k = 0; k < 3; k++) {
      e.ej.axis[k] = ei.axis[k];
      e.ej.point[0][k] = ei.point[0][k];
      e.ej.point[1][k] = ei.point[1][k];
    }
    e.where = hsmSource{"", 0, 0};
    e.name = in.dup(ei.name);
    e.linkName[0] = in.dup(ei.link[0]);
    e.linkName[1] = in.dup(ei.link[1]);
    ok = e.name && e.linkName[0] && e.linkName[1] &&
         hsu_vecPush(&b.extraJoints, sizeof e, &e);
    if (!ok) {
      hsu_free(e.name);
      hsu_free(e.linkName[0]);
      hsu_free(e.linkName[1]);
      in.nomem();
    }
  }
  if (!ok) {
    hsm_freeBuilder(&b);
    return nullptr;
  }
  return hsm_compile(&b, err);
}

}  // namespace hrpsim
