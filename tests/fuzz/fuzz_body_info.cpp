// fuzz_body_info.cpp - libFuzzer harness: the IDL -> C conversion of a BodyInfo
// (hrpsim::bodyFromInfo, what every server runs on a BodyInfo a client hands it).
//
// The input is a CDR stream (omniORB's marshalling, as on the wire) of the BodyInfo's ten
// attributes in this order: name, url, info, links, linkShapeIndices, shapes, appearances,
// materials, textures, extraJoints. A stream that does not unmarshal is skipped; one that does
// is served by a local BodyInfo servant and converted. A body that converts must pass
// hsf_checkBody. Seeds: `fuzz_body_info --make-seeds DIR MODEL...` writes the stream of each
// model as our ModelLoader serves it.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "body_info.h"
#include "fuzz_support.h"

// omniORB's array sequences (DblArray12 lists) multiply the length by the array size in 32 bits
// before their overrun check, so a length near 2^31 passes it and asks for hundreds of GB. A
// GIOP message is bounded (giopMaxMsgSize), these bytes are not: here an allocation over 1 GB
// is refused with std::bad_alloc (caught below as "not a BodyInfo stream") instead of being a
// finding of the harness. Replaces the global operator new of this executable only.
namespace {
constexpr size_t kMaxAllocation = size_t(1) << 30;
void *allocate(size_t n) {
  void *p = n <= kMaxAllocation ? std::malloc(n ? n : 1) : nullptr;
  if (!p) {
    throw std::bad_alloc();
  }
  return p;
}
}  // namespace
// (every unaligned form, so that each pair matches; libFuzzer itself uses nothrow new)
void *operator new(size_t n) { return allocate(n); }
void *operator new[](size_t n) { return allocate(n); }
void *operator new(size_t n, const std::nothrow_t &) noexcept {
  return n <= kMaxAllocation ? std::malloc(n ? n : 1) : nullptr;
}
void *operator new[](size_t n, const std::nothrow_t &) noexcept {
  return n <= kMaxAllocation ? std::malloc(n ? n : 1) : nullptr;
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete[](void *p) noexcept { std::free(p); }
void operator delete(void *p, size_t) noexcept { std::free(p); }
void operator delete[](void *p, size_t) noexcept { std::free(p); }
void operator delete(void *p, const std::nothrow_t &) noexcept { std::free(p); }
void operator delete[](void *p, const std::nothrow_t &) noexcept { std::free(p); }

namespace {

// the ten attributes, unmarshalled from one input
struct Attributes {
  CORBA::String_var name, url;
  OpenHRP::StringSequence info;
  OpenHRP::LinkInfoSequence links;
  OpenHRP::AllLinkShapeIndexSequence linkShapeIndices;
  OpenHRP::ShapeInfoSequence shapes;
  OpenHRP::AppearanceInfoSequence appearances;
  OpenHRP::MaterialInfoSequence materials;
  OpenHRP::TextureInfoSequence textures;
  OpenHRP::ExtraJointInfoSequence extraJoints;
};

// a BodyInfo answering with copies of the current input's attributes
class FuzzBodyInfo : public POA_OpenHRP::BodyInfo {
 public:
  const Attributes *a = nullptr;
  OpenHRP::ShapeInfoSequence *shapes() override {
    return new OpenHRP::ShapeInfoSequence(a->shapes);
  }
  OpenHRP::AppearanceInfoSequence *appearances() override {
    return new OpenHRP::AppearanceInfoSequence(a->appearances);
  }
  OpenHRP::MaterialInfoSequence *materials() override {
    return new OpenHRP::MaterialInfoSequence(a->materials);
  }
  OpenHRP::TextureInfoSequence *textures() override {
    return new OpenHRP::TextureInfoSequence(a->textures);
  }
  char *name() override { return CORBA::string_dup(a->name.in()); }
  char *url() override { return CORBA::string_dup(a->url.in()); }
  OpenHRP::StringSequence *info() override { return new OpenHRP::StringSequence(a->info); }
  OpenHRP::LinkInfoSequence *links() override { return new OpenHRP::LinkInfoSequence(a->links); }
  OpenHRP::AllLinkShapeIndexSequence *linkShapeIndices() override {
    return new OpenHRP::AllLinkShapeIndexSequence(a->linkShapeIndices);
  }
  OpenHRP::ExtraJointInfoSequence *extraJoints() override {
    return new OpenHRP::ExtraJointInfoSequence(a->extraJoints);
  }
};

// omniORB 4.3's cdrMemoryStream multiplies the element size by the count in 32 bits, so a
// length of 2^31 floats passes its overrun check as 0 bytes and the sequence asks for 8 GB:
// the check again in 64 bits (the wire's GIOP streams bound a message by giopMaxMsgSize)
class CheckedStream : public cdrMemoryStream {
 public:
  CheckedStream(void *buf, size_t len) : cdrMemoryStream(buf, len) {}
  CORBA::Boolean checkInputOverrun(CORBA::ULong itemSize, CORBA::ULong nItems,
                                   omni::alignment_t align) override {
    unsigned long long need = static_cast<unsigned long long>(itemSize) * nItems;
    unsigned long long left = static_cast<unsigned long long>(
        static_cast<const char *>(pd_inb_end) - static_cast<const char *>(pd_inb_mkr));
    return need <= left && cdrMemoryStream::checkInputOverrun(itemSize, nItems, align);
  }
};

CORBA::ORB_var g_orb;
FuzzBodyInfo *g_servant;
OpenHRP::BodyInfo_var g_ref;

void quietOrb(const char *) {}

void startOrb() {
  omniORB::setLogFunction(quietOrb);  // malformed strings are logged at every level
  int argc = 1;
  char arg0[] = "fuzz_body_info";
  char *argv[] = {arg0, nullptr};
  g_orb = CORBA::ORB_init(argc, argv);
  CORBA::Object_var obj = g_orb->resolve_initial_references("RootPOA");
  PortableServer::POA_var poa = PortableServer::POA::_narrow(obj);
  poa->the_POAManager()->activate();
  g_servant = new FuzzBodyInfo;
  PortableServer::ObjectId_var id = poa->activate_object(g_servant);
  g_ref = g_servant->_this();
}

// write the CDR stream of model's BodyInfo (as our ModelLoader serves it) to out
bool makeSeed(const char *model, const std::string &out) {
  hsmLoadOptions opt;
  hsf_loadOptions(&opt);
  hsError err = {};
  hsBody *raw = hsm_loadModel(model, &opt, nullptr, 0, nullptr, &err);
  if (!raw) {
    std::fprintf(stderr, "%s: %s\n", model, err.message);
    return false;
  }
  hrpsim::BodyInfoServant served(hrpsim::shareBody(raw), hrpsim::AabbOption());
  cdrMemoryStream s;
  CORBA::String_var name = served.name(), url = served.url();
  s.marshalString(name.in());
  s.marshalString(url.in());
  OpenHRP::StringSequence_var info = served.info();
  info.in() >>= s;
  OpenHRP::LinkInfoSequence_var links = served.links();
  links.in() >>= s;
  OpenHRP::AllLinkShapeIndexSequence_var lsi = served.linkShapeIndices();
  lsi.in() >>= s;
  OpenHRP::ShapeInfoSequence_var shapes = served.shapes();
  shapes.in() >>= s;
  OpenHRP::AppearanceInfoSequence_var apps = served.appearances();
  apps.in() >>= s;
  OpenHRP::MaterialInfoSequence_var mats = served.materials();
  mats.in() >>= s;
  OpenHRP::TextureInfoSequence_var texs = served.textures();
  texs.in() >>= s;
  OpenHRP::ExtraJointInfoSequence_var extras = served.extraJoints();
  extras.in() >>= s;
  FILE *f = std::fopen(out.c_str(), "wb");
  if (!f) {
    return false;
  }
  std::fwrite(s.bufPtr(), 1, s.bufSize(), f);
  return std::fclose(f) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
  hsf_quiet();
  startOrb();  // also for the seeds: marshalling strings needs the ORB's code sets
  if (*argc >= 3 && std::strcmp((*argv)[1], "--make-seeds") == 0) {
    int bad = 0;
    for (int i = 3; i < *argc; i++) {
      std::string base = (*argv)[i];
      base = base.substr(base.find_last_of('/') + 1);
      bad += !makeSeed((*argv)[i], std::string((*argv)[2]) + "/" + base + ".cdr");
    }
    std::exit(bad ? 1 : 0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // omniORB reads CDR aligned to the buffer's address: copy into an 8-aligned buffer
  std::string copy(reinterpret_cast<const char *>(data), size);
  Attributes a;
  try {
    CheckedStream s(const_cast<char *>(copy.data()), size);
    a.name = s.unmarshalString();
    a.url = s.unmarshalString();
    a.info <<= s;
    a.links <<= s;
    a.linkShapeIndices <<= s;
    a.shapes <<= s;
    a.appearances <<= s;
    a.materials <<= s;
    a.textures <<= s;
    a.extraJoints <<= s;
  } catch (const CORBA::SystemException &) {
    return 0;  // not a BodyInfo stream
  } catch (const std::bad_alloc &) {
    return 0;  // a length no message could carry
  }
  g_servant->a = &a;
  hsError err = {};
  hsBody *body = hrpsim::bodyFromInfo(g_ref, &err);
  g_servant->a = nullptr;
  if (body) {
    hsf_checkBody(body);
    hsm_freeBody(body);
  }
  return 0;
}
