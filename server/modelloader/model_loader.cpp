// model_loader.cpp - the ModelLoader servant (model_loader.h).
//
// Every request converts its URL (file:// or a plain path) into a path, loads the file with the
// C loader, and activates a BodyInfoServant holding the body. get* requests share one object
// per (path, options) until the file changes on disk. load* objects are kept alive for clients
// to read, up to kMaxFresh objects and kMaxFreshBytes of bodies; past that the oldest is
// deactivated (a client still holding it gets OBJECT_NOT_EXIST). Errors become
// ModelLoaderException with "file:line:column: problem" and one log line; the servant's state
// is untouched by a failed load.

#include "model_loader.h"

#include <sys/stat.h>

#include <cstring>

#include "runtime.h"

namespace hrpsim {

static const size_t kMaxFresh = 256;
static const size_t kMaxFreshBytes = size_t(1) << 30;

static std::string pathOf(const char *url) {
  std::string s = url ? url : "";
  if (s.rfind("file://", 0) == 0) {
    s = s.substr(7);
  }
  return s;
}

static void fail(const char *operation, const std::string &what) {
  logRequestError(operation, what);
  throw OpenHRP::ModelLoader::ModelLoaderException(what.c_str());
}

ModelLoaderServant::~ModelLoaderServant() = default;

OpenHRP::BodyInfo_ptr ModelLoaderServant::load(const char *operation, const char *url,
                                               const OpenHRP::ModelLoader::ModelLoadOption *option,
                                               PortableServer::ObjectId_var &oid, size_t *bytes) {
  std::string path = pathOf(url);
  if (path.empty()) {
    fail(operation, "empty model URL");
  }
  hsmLoadOptions opt;
  hsm_defaultLoadOptions(&opt);
  AabbOption aabb;
  if (option) {
    opt.readImage = option->readImage ? 1 : 0;
    for (CORBA::ULong i = 0; i < option->AABBdata.length(); i++) {
      aabb.data.push_back(option->AABBdata[i]);
    }
    aabb.byDepth = option->AABBtype == OpenHRP::ModelLoader::AABB_DEPTH;
  }
  hsError err = {};
  hsBody *raw = hsm_loadVrml(path.c_str(), &opt, nullptr, 0, nullptr, &err);
  if (!raw) {
    fail(operation, describe(err));
  }
  *bytes = raw->nbytes;
  BodyInfoServant *servant = new BodyInfoServant(shareBody(raw), std::move(aabb));
  PortableServer::POA_ptr poa = Runtime::instance()->poa();
  oid = poa->activate_object(servant);
  servant->_remove_ref();  // the POA holds it now
  CORBA::Object_var obj = poa->id_to_reference(oid);
  return OpenHRP::BodyInfo::_narrow(obj);
}

void ModelLoaderServant::deactivate(const PortableServer::ObjectId &oid) {
  try {
    Runtime::instance()->poa()->deactivate_object(oid);
  } catch (const CORBA::Exception &e) {
    hsu_log(hsLOG_WARNING, "deactivate: %s", e._name());
  }
}

void ModelLoaderServant::retire(PortableServer::ObjectId_var oid, size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  fresh_.push_back(Fresh{oid, bytes});
  freshBytes_ += bytes;
  while (fresh_.size() > 1 && (fresh_.size() > kMaxFresh || freshBytes_ > kMaxFreshBytes)) {
    deactivate(fresh_.front().oid.in());
    freshBytes_ -= fresh_.front().bytes;
    fresh_.pop_front();
  }
}

OpenHRP::BodyInfo_ptr ModelLoaderServant::loadBodyInfo(const char *url) {
  OpenHRP::ModelLoader::ModelLoadOption option;
  option.readImage = false;
  option.AABBtype = OpenHRP::ModelLoader::AABB_NUM;
  return loadBodyInfoEx(url, option);
}

OpenHRP::BodyInfo_ptr ModelLoaderServant::loadBodyInfoEx(
    const char *url, const OpenHRP::ModelLoader::ModelLoadOption &option) {
  PortableServer::ObjectId_var oid;
  size_t bytes = 0;
  OpenHRP::BodyInfo_var ref = load("loadBodyInfo", url, &option, oid, &bytes);
  retire(oid, bytes);
  return ref._retn();
}

OpenHRP::BodyInfo_ptr ModelLoaderServant::getBodyInfo(const char *url) {
  OpenHRP::ModelLoader::ModelLoadOption option;
  option.readImage = false;
  option.AABBtype = OpenHRP::ModelLoader::AABB_NUM;
  return getBodyInfoEx(url, option);
}

OpenHRP::BodyInfo_ptr ModelLoaderServant::getBodyInfoEx(
    const char *url, const OpenHRP::ModelLoader::ModelLoadOption &option) {
  std::string path = pathOf(url);
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    fail("getBodyInfo", path + ": cannot open the model file: " + std::strerror(errno));
  }
  long long mtime = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
  // the cache key covers the options that change what is served
  std::string key = path + (option.readImage ? "|img|" : "|noimg|") +
                    (option.AABBtype == OpenHRP::ModelLoader::AABB_DEPTH ? "d" : "n");
  for (CORBA::ULong i = 0; i < option.AABBdata.length(); i++) {
    key += "," + std::to_string(option.AABBdata[i]);
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = cache_.find(key);
    if (it != cache_.end() && it->second.mtimeNs == mtime && it->second.size == st.st_size) {
      return OpenHRP::BodyInfo::_duplicate(it->second.ref.in());
    }
  }
  PortableServer::ObjectId_var oid;
  size_t bytes = 0;
  OpenHRP::BodyInfo_var ref = load("getBodyInfo", url, &option, oid, &bytes);
  std::lock_guard<std::mutex> lock(mutex_);
  Cached &slot = cache_[key];
  if (slot.oid.operator->() != nullptr) {
    deactivate(slot.oid.in());  // the file changed: the old object goes
  }
  slot.oid = oid;
  slot.ref = OpenHRP::BodyInfo::_duplicate(ref.in());
  slot.mtimeNs = mtime;
  slot.size = st.st_size;
  return ref._retn();
}

OpenHRP::SceneInfo_ptr ModelLoaderServant::loadSceneInfo(const char *url) {
  std::string path = pathOf(url);
  hsError err = {};
  hsBody *raw = hsm_loadVrml(path.c_str(), nullptr, nullptr, 0, nullptr, &err);
  if (!raw) {
    fail("loadSceneInfo", describe(err));
  }
  size_t bytes = raw->nbytes;
  SceneInfoServant *servant = new SceneInfoServant(shareBody(raw));
  PortableServer::POA_ptr poa = Runtime::instance()->poa();
  PortableServer::ObjectId_var oid = poa->activate_object(servant);
  servant->_remove_ref();
  CORBA::Object_var obj = poa->id_to_reference(oid);
  retire(oid, bytes);
  return OpenHRP::SceneInfo::_narrow(obj);
}

void ModelLoaderServant::clearData() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto &entry : cache_) {
    deactivate(entry.second.oid.in());
  }
  cache_.clear();
}

void ModelLoaderServant::shutdown() {
  hsu_log(hsLOG_INFO, "shutdown requested by a client");
  Runtime::instance()->requestShutdown();
}

}  // namespace hrpsim
