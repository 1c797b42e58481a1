// body_info.cpp - hsBody -> OpenHRP BodyInfo / SceneInfo (see body_info.h).
//
// Each attribute builds a fresh IDL sequence from the body: numbers are copied in bulk where
// the layouts agree (float and int arrays), field by field otherwise. Nothing is cached: the
// body is immutable and clients normally read each attribute once.

#include "body_info.h"

#include <cstring>

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

static void convertLink(OpenHRP::LinkInfo &out, const hsBody &b, int i, const AabbOption *aabb) {
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
  if (aabb && !aabb->data.empty()) {
    short v = aabb->data[std::min<size_t>(i, aabb->data.size() - 1)];
    (aabb->byDepth ? out.AABBmaxDepth : out.AABBmaxNum) = v;
  }
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
    : body_(std::move(body)), aabb_(std::move(aabb)) {}

OpenHRP::ShapeInfoSequence *BodyInfoServant::shapes() { return convertShapes(*body_); }
OpenHRP::AppearanceInfoSequence *BodyInfoServant::appearances() {
  return convertAppearances(*body_);
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
  for (int i = 0; i < body_->nlink; i++) convertLink(seq[i], *body_, i, &aabb_);
  return seq._retn();
}

OpenHRP::AllLinkShapeIndexSequence *BodyInfoServant::linkShapeIndices() {
  // the collision shapes (LinkInfo.shapeIndices are the shapes to draw; for VRML they agree)
  OpenHRP::AllLinkShapeIndexSequence_var seq = new OpenHRP::AllLinkShapeIndexSequence;
  seq->length(body_->nlink);
  for (int i = 0; i < body_->nlink; i++) {
    convertRefs(seq[i], body_->links[i].collisionRefs, body_->links[i].ncollisionRef);
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

}  // namespace hrpsim
