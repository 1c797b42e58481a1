// test_body_info.cpp - hsBody -> BodyInfo -> hsBody is the identity: every sample model is
// served by an in-process BodyInfoServant, read back with bodyFromInfo through its CORBA
// reference, and compared field by field, numbers exactly (the wire carries the same doubles and
// floats). Bad BodyInfo data (a NaN, an index out of range) gives an error, not a crash.

#include <CUnit/CUnit.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "body_info.h"
#include "test_support.h"

namespace {

CORBA::ORB_var g_orb;
PortableServer::POA_var g_poa;

void startOrb() {
  if (!CORBA::is_nil(g_orb)) {
    return;
  }
  int argc = 1;
  char name[] = "server_tests";
  char *argv[] = {name, nullptr};
  g_orb = CORBA::ORB_init(argc, argv);
  CORBA::Object_var obj = g_orb->resolve_initial_references("RootPOA");
  g_poa = PortableServer::POA::_narrow(obj);
  PortableServer::POAManager_var manager = g_poa->the_POAManager();
  manager->activate();
  // release the ORB's resources at exit, so leak checkers see only our own allocations
  std::atexit([] {
    g_poa = PortableServer::POA::_nil();
    g_orb->destroy();
    g_orb = CORBA::ORB::_nil();
  });
}

// serve body (taken over) and return its reference
OpenHRP::BodyInfo_ptr serve(hsBody *body, PortableServer::ObjectId_var &oid) {
  startOrb();
  auto *servant = new hrpsim::BodyInfoServant(hrpsim::shareBody(body), hrpsim::AabbOption());
  oid = g_poa->activate_object(servant);
  servant->_remove_ref();
  CORBA::Object_var obj = g_poa->id_to_reference(oid);
  return OpenHRP::BodyInfo::_narrow(obj);
}

bool sameDoubles(const double *a, const double *b, int n) {
  return n == 0 || std::memcmp(a, b, sizeof(double) * n) == 0;
}

template <typename T>
bool sameArray(const T *a, int na, const T *b, int nb) {
  return na == nb && (na == 0 || std::memcmp(a, b, sizeof(T) * na) == 0);
}

bool sameRefs(const hsShapeRef *a, int na, const hsShapeRef *b, int nb) {
  if (na != nb) return false;
  for (int i = 0; i < na; i++) {
    if (!sameDoubles(a[i].T, b[i].T, 12) || a[i].shape != b[i].shape ||
        a[i].inlineMatrix != b[i].inlineMatrix) {
      return false;
    }
  }
  return true;
}

void compareBodies(const hsBody *a, const hsBody *b) {
  CU_ASSERT_STRING_EQUAL(a->name, b->name);
  CU_ASSERT_STRING_EQUAL(a->url, b->url);
  CU_ASSERT_EQUAL_FATAL(a->ninfo, b->ninfo);
  for (int i = 0; i < a->ninfo; i++) CU_ASSERT_STRING_EQUAL(a->info[i], b->info[i]);
  CU_ASSERT_EQUAL_FATAL(a->nlink, b->nlink);
  CU_ASSERT_EQUAL(a->njoint, b->njoint);
  for (int i = 0; i < a->nlink; i++) {
    const hsLink &x = a->links[i], &y = b->links[i];
    CU_ASSERT_STRING_EQUAL(x.name, y.name);
    CU_ASSERT_STRING_EQUAL(x.jointTypeName, y.jointTypeName);
    CU_ASSERT_EQUAL(x.jointType, y.jointType);
    CU_ASSERT_EQUAL(x.jointId, y.jointId);
    CU_ASSERT_EQUAL(x.parent, y.parent);
    CU_ASSERT(sameArray(x.children, x.nchild, y.children, y.nchild));
    CU_ASSERT(sameDoubles(x.axis, y.axis, 3));
    CU_ASSERT(sameDoubles(x.translation, y.translation, 3));
    CU_ASSERT(sameDoubles(x.rotation, y.rotation, 4));
    CU_ASSERT(sameDoubles(x.R, y.R, 9));
    CU_ASSERT(x.mass == y.mass);
    CU_ASSERT(sameDoubles(x.com, y.com, 3));
    CU_ASSERT(sameDoubles(x.inertia, y.inertia, 9));
    CU_ASSERT(x.gearRatio == y.gearRatio && x.rotorInertia == y.rotorInertia &&
              x.rotorResistor == y.rotorResistor && x.torqueConst == y.torqueConst &&
              x.encoderPulse == y.encoderPulse && x.jointValue == y.jointValue);
    const hsDoubles *lx[5] = {&x.ulimit, &x.llimit, &x.uvlimit, &x.lvlimit, &x.climit};
    const hsDoubles *ly[5] = {&y.ulimit, &y.llimit, &y.uvlimit, &y.lvlimit, &y.climit};
    for (int k = 0; k < 5; k++) CU_ASSERT(sameArray(lx[k]->v, lx[k]->n, ly[k]->v, ly[k]->n));
    CU_ASSERT(sameRefs(x.shapeRefs, x.nshapeRef, y.shapeRefs, y.nshapeRef));
    CU_ASSERT(sameRefs(x.collisionRefs, x.ncollisionRef, y.collisionRefs, y.ncollisionRef));
    CU_ASSERT(sameArray(x.inlinedMatrices, 12 * x.ninlinedMatrix, y.inlinedMatrices,
                        12 * y.ninlinedMatrix));
    CU_ASSERT_EQUAL(x.nsensor, y.nsensor);
    CU_ASSERT_EQUAL(x.nsegment, y.nsegment);
    CU_ASSERT_EQUAL(x.nlight, y.nlight);
  }
  CU_ASSERT_EQUAL_FATAL(a->nsensor, b->nsensor);
  for (int i = 0; i < a->nsensor; i++) {
    const hsSensor &x = a->sensors[i], &y = b->sensors[i];
    CU_ASSERT_STRING_EQUAL(x.name, y.name);
    CU_ASSERT(x.type == y.type && x.id == y.id && x.link == y.link);
    CU_ASSERT(sameDoubles(x.translation, y.translation, 3));
    CU_ASSERT(sameDoubles(x.rotation, y.rotation, 4));
    CU_ASSERT(sameArray(x.specValues, x.nspecValue, y.specValues, y.nspecValue));
    CU_ASSERT(sameRefs(x.shapeRefs, x.nshapeRef, y.shapeRefs, y.nshapeRef));
  }
  CU_ASSERT_EQUAL_FATAL(a->nsegment, b->nsegment);
  for (int i = 0; i < a->nsegment; i++) {
    const hsSegment &x = a->segments[i], &y = b->segments[i];
    CU_ASSERT_STRING_EQUAL(x.name, y.name);
    CU_ASSERT(x.mass == y.mass && x.link == y.link);
    CU_ASSERT(sameDoubles(x.com, y.com, 3) && sameDoubles(x.inertia, y.inertia, 9));
    CU_ASSERT(sameDoubles(x.T, y.T, 12));
    CU_ASSERT(sameArray(x.shapeRefs, x.nshapeRef, y.shapeRefs, y.nshapeRef));
  }
  CU_ASSERT_EQUAL_FATAL(a->nlight, b->nlight);
  for (int i = 0; i < a->nlight; i++) {
    CU_ASSERT_STRING_EQUAL(a->lights[i].name, b->lights[i].name);
    CU_ASSERT(a->lights[i].type == b->lights[i].type);
    CU_ASSERT(sameDoubles(a->lights[i].T, b->lights[i].T, 12));
    CU_ASSERT(a->lights[i].intensity == b->lights[i].intensity);
  }
  CU_ASSERT_EQUAL_FATAL(a->nextraJoint, b->nextraJoint);
  for (int i = 0; i < a->nextraJoint; i++) {
    const hsExtraJoint &x = a->extraJoints[i], &y = b->extraJoints[i];
    CU_ASSERT_STRING_EQUAL(x.name, y.name);
    CU_ASSERT(x.type == y.type && x.link[0] == y.link[0] && x.link[1] == y.link[1]);
    CU_ASSERT(sameDoubles(x.axis, y.axis, 3) && sameDoubles(&x.point[0][0], &y.point[0][0], 6));
  }
  CU_ASSERT_EQUAL_FATAL(a->nshape, b->nshape);
  for (int i = 0; i < a->nshape; i++) {
    const hsShape &x = a->shapes[i], &y = b->shapes[i];
    CU_ASSERT(x.primitive == y.primitive && x.appearance == y.appearance);
    CU_ASSERT(sameArray(x.params, x.nparam, y.params, y.nparam));
    CU_ASSERT(sameArray(x.vertices, 3 * x.nvertex, y.vertices, 3 * y.nvertex));
    CU_ASSERT(sameArray(x.triangles, 3 * x.ntriangle, y.triangles, 3 * y.ntriangle));
    CU_ASSERT_STRING_EQUAL(x.url, y.url);
  }
  CU_ASSERT_EQUAL_FATAL(a->nappearance, b->nappearance);
  for (int i = 0; i < a->nappearance; i++) {
    const hsAppearance &x = a->appearances[i], &y = b->appearances[i];
    CU_ASSERT(x.material == y.material && x.texture == y.texture && x.solid == y.solid);
    CU_ASSERT(sameArray(x.normals, 3 * x.nnormal, y.normals, 3 * y.nnormal));
    CU_ASSERT(sameArray(x.normalIndices, x.nnormalIndex, y.normalIndices, y.nnormalIndex));
    CU_ASSERT(sameArray(x.texCoords, 2 * x.ntexCoord, y.texCoords, 2 * y.ntexCoord));
    CU_ASSERT(sameDoubles(x.texTransform, y.texTransform, 9));
  }
  CU_ASSERT_EQUAL(a->nmaterial, b->nmaterial);
  CU_ASSERT(sameArray(reinterpret_cast<const char *>(a->materials),
                      static_cast<int>(sizeof(hsMaterial)) * a->nmaterial,
                      reinterpret_cast<const char *>(b->materials),
                      static_cast<int>(sizeof(hsMaterial)) * b->nmaterial));
  CU_ASSERT_EQUAL_FATAL(a->ntexture, b->ntexture);
  for (int i = 0; i < a->ntexture; i++) {
    CU_ASSERT_STRING_EQUAL(a->textures[i].url, b->textures[i].url);
    CU_ASSERT(a->textures[i].width == b->textures[i].width);
    CU_ASSERT(a->textures[i].nimage == b->textures[i].nimage);
  }
}

void roundTrip(const char *relative, int readImage) {
  std::string path = std::string(HST_SAMPLES_DIR) + "/" + relative;
  hsmLoadOptions opt;
  hsm_defaultLoadOptions(&opt);
  opt.readImage = readImage;
  hsError err = {};
  hsBody *original = hsm_loadModel(path.c_str(), &opt, nullptr, 0, nullptr, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(original);
  hsBody *again = hsm_loadModel(path.c_str(), &opt, nullptr, 0, nullptr, &err);
  PortableServer::ObjectId_var oid;
  OpenHRP::BodyInfo_var ref = serve(again, oid);
  hsBody *copy = hrpsim::bodyFromInfo(ref, &err);
  if (!copy) {
    char buf[1200];
    fprintf(stderr, "\n  %s\n", hsu_formatError(&err, buf, sizeof buf));
  }
  CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
  compareBodies(original, copy);
  g_poa->deactivate_object(oid);
  hsm_freeBody(copy);
  hsm_freeBody(original);
}

void testHumanoid() { roundTrip("humanoid/humanoid.wrl", 0); }
void testArm() { roundTrip("arm6/arm6.wrl", 0); }
void testClosedLink() { roundTrip("closed_link/four_bar.wrl", 0); }
void testCrawler() { roundTrip("crawler/crawler.wrl", 0); }
void testRoomWithTexture() { roundTrip("env/room.wrl", 1); }
// MJCF: a chain of links per multi-joint body, capsule meshes, a mesh file, sensors, climits
// (its joint damping and a jointpos sensor are warned)
void testMjcfQuadruped() {
  hst_expectLog(1);
  roundTrip("mjcf/quadruped/quadruped.xml", 0);
}
void testMjcfWorld() {
  hst_expectLog(1);
  roundTrip("mjcf/quadruped/quadruped.xml#world", 0);
}

// a servant whose links or shapes hold bad numbers: the import refuses them
class BadBodyInfo : public hrpsim::BodyInfoServant {
 public:
  BadBodyInfo(hsBody *body, int mode)
      : hrpsim::BodyInfoServant(hrpsim::shareBody(body), hrpsim::AabbOption()), mode_(mode) {}
  OpenHRP::LinkInfoSequence *links() override {
    OpenHRP::LinkInfoSequence *seq = hrpsim::BodyInfoServant::links();
    if (mode_ == 0) (*seq)[1].mass = std::nan("");
    if (mode_ == 1) (*seq)[1].parentIndex = 99;
    if (mode_ == 2) (*seq)[1].jointType = CORBA::string_dup("hinge");
    if (mode_ == 3) (*seq)[1].shapeIndices[0].shapeIndex = 999;
    return seq;
  }
  OpenHRP::ShapeInfoSequence *shapes() override {
    OpenHRP::ShapeInfoSequence *seq = hrpsim::BodyInfoServant::shapes();
    for (CORBA::ULong i = 0; mode_ == 4 && i < seq->length(); i++) {
      if ((*seq)[i].primitiveParameters.length() > 0) {
        (*seq)[i].primitiveParameters[0] = std::numeric_limits<float>::infinity();
        break;
      }
    }
    return seq;
  }

 private:
  int mode_;
};

void testBadData() {
  static const char *const expected[] = {"NaN",         "parentIndex", "jointType",
                                         "shape index", "primitiveParameters"};
  std::string path = std::string(HST_SAMPLES_DIR) + "/arm6/arm6.wrl";
  startOrb();
  for (int mode = 0; mode < 5; mode++) {
    hsError err = {};
    hsBody *body = hsm_loadModel(path.c_str(), nullptr, nullptr, 0, nullptr, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(body);
    auto *servant = new BadBodyInfo(body, mode);
    PortableServer::ObjectId_var oid = g_poa->activate_object(servant);
    servant->_remove_ref();
    CORBA::Object_var obj = g_poa->id_to_reference(oid);
    OpenHRP::BodyInfo_var ref = OpenHRP::BodyInfo::_narrow(obj);
    hsBody *copy = hrpsim::bodyFromInfo(ref, &err);
    CU_ASSERT_PTR_NULL(copy);
    CU_ASSERT_EQUAL(err.code, hsE_INVALID);
    CU_ASSERT_PTR_NOT_NULL(std::strstr(err.message, expected[mode]));
    hsm_freeBody(copy);
    g_poa->deactivate_object(oid);
  }
}

}  // namespace

extern "C" void register_body_info(void) {
  CU_pSuite s = hst_addSuite("server_body_info");
  CU_add_test(s, "round trip: humanoid", testHumanoid);
  CU_add_test(s, "round trip: arm", testArm);
  CU_add_test(s, "round trip: closed link", testClosedLink);
  CU_add_test(s, "round trip: crawler", testCrawler);
  CU_add_test(s, "round trip: room with texture", testRoomWithTexture);
  CU_add_test(s, "round trip: MJCF quadruped", testMjcfQuadruped);
  CU_add_test(s, "round trip: MJCF world (a fragment)", testMjcfWorld);
  CU_add_test(s, "bad data is refused", testBadData);
}
