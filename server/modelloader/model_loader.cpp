// model_loader.cpp - the ModelLoader servant (model_loader.h).
//
// Every request turns its URL (file:// or a plain path, through hsu_urlToPath) into a path,
// loads the file with the C loader under the load limits, and activates a BodyInfoServant
// holding the body. The cache maps (path, options) to the object last loaded for them, with the
// file's modification time and size: get* returns it while the file is unchanged; load* always
// reads the file and refreshes the entry. The cache is bounded in entries and bytes of bodies:
// past either bound the least recently used entry leaves it. An object that leaves the cache
// (evicted, file changed, reloaded, clearData) is retired, not destroyed: clients may still
// hold it. Retired objects stay alive within their own count and byte budget; past that the
// oldest is deactivated (its holders then get OBJECT_NOT_EXIST). So what the server keeps is
// bounded by the two budgets whatever number of distinct files it is asked for. Loading happens
// outside the lock; when two requests race to fill one entry, the first stored wins and the
// other's fresh object is dropped before anyone sees it. Errors become ModelLoaderException
// with "file:line:column: problem" and one log line; a failed load changes nothing.
//
// With model roots (--model-root, required when the server is exposed) a request's path is
// turned into its real path (realpath: every symbolic link and ".." resolved) and served
// only if that lies under a root; a missing file and a file outside the roots get the same
// answer, so the error tells nothing about files elsewhere. Parse errors then carry the
// location and the kind of problem only: the parsers quote the offending text, and that
// text goes to the server's log, never to the client.

#include "model_loader.h"

#include <limits.h>
#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "runtime.h"

namespace hrpsim {

[[noreturn]] static void fail(const char *operation, const std::string &what) {
  logRequestError(operation, what);
  throw OpenHRP::ModelLoader::ModelLoaderException(what.c_str());
}

std::string resolveModelRoot(const char *dir, std::string *why) {
  char real[PATH_MAX];
  struct stat st;
  if (!realpath(dir, real)) {
    *why = std::string(dir) + ": " + std::strerror(errno);
    return "";
  }
  if (stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
    *why = std::string(dir) + ": not a directory";
    return "";
  }
  return real;
}

bool isUnderRoot(const std::string &path, const std::string &root) {
  if (root == "/") {
    return !path.empty() && path[0] == '/';
  }
  return path.compare(0, root.size(), root) == 0 &&
         (path.size() == root.size() || path[root.size()] == '/');
}

// the file of a model path: the path without a trailing "#NAME" when the whole does not exist
// (an MJCF fragment, see hsm_loadMjcf)
static std::string withoutFragment(const std::string &path) {
  size_t hash = path.rfind('#');
  struct stat st;
  if (hash == std::string::npos || stat(path.c_str(), &st) == 0) {
    return path;
  }
  return path.substr(0, hash);
}

std::string ModelLoaderServant::pathOf(const char *operation, const char *url) const {
  std::string s = url ? url : "";
  if (s.empty()) {
    fail(operation, "empty model URL");
  }
  if (hsm_isPrimitiveUrl(s.c_str())) {
    return s;  // built in memory from its parameters: no file, so no model root applies
  }
  std::vector<char> path(s.size() + 1);
  int rc = hsu_urlToPath(s.c_str(), path.data(), path.size());
  if (rc > 0) {
    fail(operation, "'" + s + "': unsupported URL scheme (use a file:// URL or a path)");
  }
  if (path[0] == 0) {
    fail(operation, "'" + s + "': the URL names no file");
  }
  s = path.data();
  // an MJCF fragment (#NAME selects a top-level body) is no part of the file's name
  std::string fragment;
  if (withoutFragment(s) != s) {
    fragment = s.substr(withoutFragment(s).size());
    s = withoutFragment(s);
  }
  if (options_.roots.empty()) {
    return s + fragment;
  }
  // the real path of each candidate (a relative path under each root in turn), served only
  // if it is a regular file under a root; anything else gets one answer
  std::vector<std::string> candidates;
  if (s[0] == '/') {
    candidates.push_back(s);
  } else {
    for (const std::string &root : options_.roots) {
      candidates.push_back(root + "/" + s);
    }
  }
  for (const std::string &candidate : candidates) {
    char real[PATH_MAX];
    struct stat st;
    if (!realpath(candidate.c_str(), real) || stat(real, &st) != 0 || !S_ISREG(st.st_mode)) {
      continue;
    }
    for (const std::string &root : options_.roots) {
      if (isUnderRoot(real, root)) {
        return real + fragment;
      }
    }
    hsu_log(hsLOG_WARNING, "%s: '%s' resolves to %s, outside the model roots", operation,
            s.c_str(), real);
  }
  fail(operation, "'" + s + "': no such model file under the model roots");
}

void ModelLoaderServant::failLoad(const char *operation, const std::string &path,
                                  const hsError &err) const {
  std::string full = describe(err);
  // a primitive's message names only its URL and parameters: nothing of the file system
  if (options_.roots.empty() || hsm_isPrimitiveUrl(path.c_str())) {
    fail(operation, full);
  }
  logRequestError(operation, full);
  // the location (a file under the roots, else the file asked for) and the kind of problem
  std::string file = err.file[0] ? err.file : path;
  char real[PATH_MAX];
  bool inside = false;
  if (realpath(file.c_str(), real)) {
    for (const std::string &root : options_.roots) {
      inside = inside || isUnderRoot(real, root);
    }
  }
  std::string where = inside ? file : path;
  if (inside && err.file[0] && err.line > 0) {
    where += ":" + std::to_string(err.line);
    if (err.column > 0) {
      where += ":" + std::to_string(err.column);
    }
  }
  const char *kind = "cannot load the model";
  switch (err.code) {
    case hsE_IO:
      kind = "cannot read a file of the model";
      break;
    case hsE_SYNTAX:
      kind = "syntax error";
      break;
    case hsE_MODEL:
      kind = "not a valid model";
      break;
    case hsE_UNSUPPORTED:
      kind = "unsupported feature";
      break;
    case hsE_NOMEM:
      kind = "out of memory";
      break;
    default:
      break;
  }
  std::string what = where + ": " + kind + " (details in the ModelLoader's log)";
  throw OpenHRP::ModelLoader::ModelLoaderException(what.c_str());
}

//---------------------------------- options ---------------------------------------------------

// a number from an option's value: a whole number when `whole`, positive either way
static bool parseNumber(const char *text, bool whole, double *out) {
  if (!text || !*text) {
    return false;
  }
  char *end = nullptr;
  errno = 0;
  double v = std::strtod(text, &end);
  if (errno || *end || !std::isfinite(v) || v <= 0 || (whole && v != std::floor(v)) ||
      v > 9.0e15) {
    return false;
  }
  *out = v;
  return true;
}

std::string parseModelLoaderOptions(int argc, char **argv, ModelLoaderOptions *opt,
                                    std::vector<std::string> *others) {
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--mesh-in-process") {
      opt->limits.meshInProcess = 1;
      continue;
    }
    static const struct {
      const char *name;
      bool whole;
    } kValued[] = {{"--cache-entries", true},  {"--cache-mb", false},
                   {"--retired-entries", true}, {"--retired-mb", false},
                   {"--max-file-mb", false},    {"--mesh-seconds", false},
                   {"--mesh-memory-mb", false}, {"--mesh-triangles", true}};
    int k = -1;
    for (int j = 0; j < int(sizeof kValued / sizeof kValued[0]); j++) {
      if (a == kValued[j].name) {
        k = j;
      }
    }
    if (k < 0) {
      if (!others) {
        return "unknown option '" + a + "'";
      }
      others->push_back(a);
      continue;
    }
    double v = 0;
    if (i + 1 >= argc || !parseNumber(argv[i + 1], kValued[k].whole, &v)) {
      return std::string(kValued[k].name) + " needs a positive " +
             (kValued[k].whole ? "whole number" : "number") +
             (i + 1 < argc ? std::string(" (got '") + argv[i + 1] + "')" : std::string());
    }
    i++;
    size_t mb = size_t(v * 1048576.0);
    switch (k) {
      case 0: opt->cacheEntries = size_t(v); break;
      case 1: opt->cacheBytes = mb; break;
      case 2: opt->retiredEntries = size_t(v); break;
      case 3: opt->retiredBytes = mb; break;
      case 4: opt->limits.maxFileBytes = mb; break;
      case 5: opt->limits.meshSeconds = v; break;
      case 6: opt->limits.meshBytes = mb; break;
      default: opt->limits.meshTriangles = v > double(LONG_MAX) ? LONG_MAX : long(v); break;
    }
  }
  return "";
}

std::string parseModelLoaderOptionsText(const char *text, ModelLoaderOptions *opt) {
  std::vector<std::string> words{"hrpsim-modelloader"};
  for (const char *p = text ? text : ""; *p;) {
    while (*p && std::isspace((unsigned char)*p)) {
      p++;
    }
    const char *start = p;
    while (*p && !std::isspace((unsigned char)*p)) {
      p++;
    }
    if (p > start) {
      words.emplace_back(start, p);
    }
  }
  std::vector<char *> argv;
  for (auto &w : words) {
    argv.push_back(&w[0]);
  }
  return parseModelLoaderOptions(int(argv.size()), argv.data(), opt);
}

//---------------------------------- the servant -----------------------------------------------

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

ModelLoaderServant::ModelLoaderServant(const ModelLoaderOptions &options) : options_(options) {
  options_.limits = hsm_effectiveLimits(&options_.limits);
}

ModelLoaderServant::~ModelLoaderServant() = default;

ModelLoaderServant::Cached ModelLoaderServant::load(
    const char *operation, const char *url, const OpenHRP::ModelLoader::ModelLoadOption &option) {
  std::string path = pathOf(operation, url);
  Cached entry;
  struct stat st;
  if (stat(withoutFragment(path).c_str(), &st) == 0) {
    entry.mtimeNs = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    entry.size = st.st_size;
  }
  hsmLoadOptions opt;
  AabbOption aabb;
  loadOptionsFromWire(option, &opt, &aabb);
  opt.limits = options_.limits;
  hsError err = {};
  hsBody *raw = hsm_loadModel(path.c_str(), &opt, nullptr, 0, nullptr, &err);
  if (!raw) {
    failLoad(operation, path, err);
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
  while (!retired_.empty() && (retired_.size() > options_.retiredEntries ||
                               (retired_.size() > 1 && retiredBytes_ > options_.retiredBytes))) {
    deactivate(retired_.front().oid.in());
    retiredBytes_ -= retired_.front().bytes;
    retired_.pop_front();
  }
}

void ModelLoaderServant::touch(std::map<std::string, Cached>::iterator it) {
  lru_.splice(lru_.begin(), lru_, it->second.use);
}

void ModelLoaderServant::store(const std::string &key, Cached entry) {
  auto it = cache_.find(key);
  if (it != cache_.end()) {
    retire(it->second.oid.in(), it->second.bytes);
    cacheBytes_ -= it->second.bytes;
    lru_.erase(it->second.use);
    cache_.erase(it);
  }
  lru_.push_front(key);
  entry.use = lru_.begin();
  cacheBytes_ += entry.bytes;
  cache_.emplace(key, entry);
  // evict the least recently used past either bound (the entry just stored stays)
  while (cache_.size() > 1 &&
         (cache_.size() > options_.cacheEntries || cacheBytes_ > options_.cacheBytes)) {
    auto old = cache_.find(lru_.back());
    retire(old->second.oid.in(), old->second.bytes);
    cacheBytes_ -= old->second.bytes;
    cache_.erase(old);
    lru_.pop_back();
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
  OpenHRP::BodyInfo_var ref = OpenHRP::BodyInfo::_duplicate(entry.ref.in());
  store(key, entry);
  return ref._retn();
}

OpenHRP::BodyInfo_ptr ModelLoaderServant::getBodyInfo(const char *url) {
  return getBodyInfoEx(url, defaultOption());
}

OpenHRP::BodyInfo_ptr ModelLoaderServant::getBodyInfoEx(
    const char *url, const OpenHRP::ModelLoader::ModelLoadOption &option) {
  std::string path = pathOf("getBodyInfo", url);
  struct stat st = {};
  if (!hsm_isPrimitiveUrl(path.c_str()) && stat(withoutFragment(path).c_str(), &st) != 0) {
    // worded as the loader words it (hsu_readFile), so getBodyInfo and loadBodyInfo, and the
    // local back end's hs_loadBody, say the same
    std::string file = withoutFragment(path);
    fail("getBodyInfo", file + ": cannot read '" + file + "': " + std::strerror(errno));
  }
  long long mtime = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
  std::string key = cacheKey(path, option);
  auto current = [&](const Cached &c) { return c.mtimeNs == mtime && c.size == st.st_size; };
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = cache_.find(key);
    if (it != cache_.end() && current(it->second)) {
      touch(it);
      return OpenHRP::BodyInfo::_duplicate(it->second.ref.in());
    }
  }
  Cached entry = load("getBodyInfo", url, option);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = cache_.find(key);
  if (it != cache_.end() && current(it->second)) {
    // another request stored the same file meanwhile: serve that one, drop ours unseen
    deactivate(entry.oid.in());
    touch(it);
    return OpenHRP::BodyInfo::_duplicate(it->second.ref.in());
  }
  // new, or the file changed (store retires the old object)
  OpenHRP::BodyInfo_var ref = OpenHRP::BodyInfo::_duplicate(entry.ref.in());
  store(key, entry);
  return ref._retn();
}

OpenHRP::SceneInfo_ptr ModelLoaderServant::loadSceneInfo(const char *url) {
  std::string path = pathOf("loadSceneInfo", url);
  hsmLoadOptions opt;
  hsm_defaultLoadOptions(&opt);
  opt.limits = options_.limits;
  hsError err = {};
  hsBody *raw = hsm_loadModel(path.c_str(), &opt, nullptr, 0, nullptr, &err);
  if (!raw) {
    failLoad("loadSceneInfo", path, err);
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
  lru_.clear();
  cacheBytes_ = 0;
}

void ModelLoaderServant::shutdown() {
  hsu_log(hsLOG_INFO, "shutdown requested by a client");
  Runtime::instance()->requestShutdown();  // refused there when exposed (runtime.h)
}

}  // namespace hrpsim
