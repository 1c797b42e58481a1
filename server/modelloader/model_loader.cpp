// model_loader.cpp - the ModelLoader servant (model_loader.h).
//
// Every request turns its URL (file:// or a plain path) into a path, loads the file with the C
// loader, and activates a BodyInfoServant holding the body. The cache maps (path, options) to
// the object last loaded for them, with the file's modification time and size: get* returns it
// while the file is unchanged; load* always reads the file and refreshes the entry. An object
// that leaves the cache (file changed, reloaded, clearData) is retired, not destroyed: clients
// may still hold it. Retired objects stay alive up to kMaxRetired of them and kMaxRetiredBytes
// of bodies; past that the oldest is deactivated (its holders then get OBJECT_NOT_EXIST).
// Loading happens outside the lock; when two requests race to fill one entry, the first
// stored wins and the other's fresh object is dropped before anyone sees it. Errors become
// ModelLoaderException with "file:line:column: problem" and one log line; a failed load
// changes nothing.

#include "model_loader.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "runtime.h"

namespace hrpsim {

static const size_t kMaxRetired = 256;
static const size_t kMaxRetiredBytes = size_t(1) << 30;

[[noreturn]] static void fail(const char *operation, const std::string &what) {
  logRequestError(operation, what);
  throw OpenHRP::ModelLoader::ModelLoaderException(what.c_str());
}

// the file path of a file:// URL or plain path; other schemes are refused
static std::string pathOf(const char *operation, const char *url) {
  std::string s = url ? url : "";
  if (s.rfind("file://", 0) == 0) {
    s = s.substr(7);
  } else if (s.find("://") != std::string::npos) {
    fail(operation, "'" + s + "': unsupported URL scheme (use a file:// URL or a path)");
  }
  if (s.empty()) {
    fail(operation, "empty model URL");
  }
  return s;
}

// the cache key: the path and every option that changes what is served
static std::string cacheKey(const std::string &path,
                            const OpenHRP::ModelLoader::ModelLoadOption &option) {
  std::string key = path + (option.readImage ? "|img|" : "|noimg|") +
                    (option.AABBtype == OpenHRP::ModelLoader::AABB_DEPTH ? "d" : "n");
  for (CORBA::ULong i = 0; i < option.AABBdata.length(); i++) {
    key += "," + std::to_string(option.AABBdata[i]);
  }
  return key;
}

static OpenHRP::ModelLoader::ModelLoadOption defaultOption() {
  OpenHRP::ModelLoader::ModelLoadOption option;
  option.readImage = false;
  option.AABBtype = OpenHRP::ModelLoader::AABB_NUM;
  return option;
}

ModelLoaderServant::~ModelLoaderServant() = default;

ModelLoaderServant::Cached ModelLoaderServant::load(
    const char *operation, const char *url, const OpenHRP::ModelLoader::ModelLoadOption &option) {
  std::string path = pathOf(operation, url);
  Cached entry;
  struct stat st;
  if (stat(path.c_str(), &st) == 0) {
    entry.mtimeNs = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    entry.size = st.st_size;
  }
  hsmLoadOptions opt;
  AabbOption aabb;
  loadOptionsFromWire(option, &opt, &aabb);
  hsError err = {};
  hsBody *raw = hsm_loadModel(path.c_str(), &opt, nullptr, 0, nullptr, &err);
  if (!raw) {
    fail(operation, describe(err));
  }
  entry.bytes = raw->nbytes;
  BodyInfoServant *servant = new BodyInfoServant(shareBody(raw), std::move(aabb));
  PortableServer::POA_ptr poa = Runtime::instance()->poa();
  entry.oid = poa->activate_object(servant);
  servant->_remove_ref();  // the POA holds it now
  CORBA::Object_var obj = poa->id_to_reference(entry.oid);
  entry.ref = OpenHRP::BodyInfo::_narrow(obj);
  return entry;
}

void ModelLoaderServant::deactivate(const PortableServer::ObjectId &oid) {
  try {
    Runtime::instance()->poa()->deactivate_object(oid);
  } catch (const CORBA::Exception &e) {
    hsu_log(hsLOG_WARNING, "deactivate: %s", e._name());
  }
}

void ModelLoaderServant::retire(const PortableServer::ObjectId &oid, size_t bytes) {
  retired_.push_back(Retired{new PortableServer::ObjectId(oid), bytes});
  retiredBytes_ += bytes;
  while (retired_.size() > kMaxRetired || (retired_.size() > 1 && retiredBytes_ > kMaxRetiredBytes)) {
    deactivate(retired_.front().oid.in());
    retiredBytes_ -= retired_.front().bytes;
    retired_.pop_front();
  }
}

OpenHRP::BodyInfo_ptr ModelLoaderServant::loadBodyInfo(const char *url) {
  return loadBodyInfoEx(url, defaultOption());
}

OpenHRP::BodyInfo_ptr ModelLoaderServant::loadBodyInfoEx(
    const char *url, const OpenHRP::ModelLoader::ModelLoadOption &option) {
  Cached entry = load("loadBodyInfo", url, option);
  std::string key = cacheKey(pathOf("loadBodyInfo", url), option);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = cache_.find(key);
  if (it != cache_.end()) {
    retire(it->second.oid.in(), it->second.bytes);
  }
  OpenHRP::BodyInfo_var ref = OpenHRP::BodyInfo::_duplicate(entry.ref.in());
  cache_[key] = entry;
  return ref._retn();
}

OpenHRP::BodyInfo_ptr ModelLoaderServant::getBodyInfo(const char *url) {
  return getBodyInfoEx(url, defaultOption());
}

OpenHRP::BodyInfo_ptr ModelLoaderServant::getBodyInfoEx(
    const char *url, const OpenHRP::ModelLoader::ModelLoadOption &option) {
  std::string path = pathOf("getBodyInfo", url);
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    fail("getBodyInfo", path + ": cannot open the model file: " + std::strerror(errno));
  }
  long long mtime = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
  std::string key = cacheKey(path, option);
  auto current = [&](const Cached &c) { return c.mtimeNs == mtime && c.size == st.st_size; };
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = cache_.find(key);
    if (it != cache_.end() && current(it->second)) {
      return OpenHRP::BodyInfo::_duplicate(it->second.ref.in());
    }
  }
  Cached entry = load("getBodyInfo", url, option);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = cache_.find(key);
  if (it != cache_.end() && current(it->second)) {
    // another request stored the same file meanwhile: serve that one, drop ours unseen
    deactivate(entry.oid.in());
    return OpenHRP::BodyInfo::_duplicate(it->second.ref.in());
  }
  if (it != cache_.end()) {
    retire(it->second.oid.in(), it->second.bytes);  // the file changed
  }
  OpenHRP::BodyInfo_var ref = OpenHRP::BodyInfo::_duplicate(entry.ref.in());
  cache_[key] = entry;
  return ref._retn();
}

OpenHRP::SceneInfo_ptr ModelLoaderServant::loadSceneInfo(const char *url) {
  std::string path = pathOf("loadSceneInfo", url);
  hsError err = {};
  hsBody *raw = hsm_loadModel(path.c_str(), nullptr, nullptr, 0, nullptr, &err);
  if (!raw) {
    fail("loadSceneInfo", describe(err));
  }
  size_t bytes = raw->nbytes;
  SceneInfoServant *servant = new SceneInfoServant(shareBody(raw));
  PortableServer::POA_ptr poa = Runtime::instance()->poa();
  PortableServer::ObjectId_var oid = poa->activate_object(servant);
  servant->_remove_ref();
  CORBA::Object_var obj = poa->id_to_reference(oid);
  std::lock_guard<std::mutex> lock(mutex_);
  retire(oid.in(), bytes);  // scenes are never cached: budget them like retired bodies
  return OpenHRP::SceneInfo::_narrow(obj);
}

void ModelLoaderServant::clearData() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto &entry : cache_) {
    retire(entry.second.oid.in(), entry.second.bytes);
  }
  cache_.clear();
}

void ModelLoaderServant::shutdown() {
  hsu_log(hsLOG_INFO, "shutdown requested by a client");
  Runtime::instance()->requestShutdown();
}

}  // namespace hrpsim
