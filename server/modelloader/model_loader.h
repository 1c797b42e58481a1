// model_loader.h - the ModelLoader servant: loads model files into hsBody and serves them as
// BodyInfo / SceneInfo objects, with a bounded cache and per-load resource limits, optionally
// only files under a set of model roots.

#ifndef HRPSIM_SERVER_MODELLOADER_MODEL_LOADER_H_
#define HRPSIM_SERVER_MODELLOADER_MODEL_LOADER_H_

#include <deque>
#include <list>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "body_info.h"
#include "model.h"

namespace hrpsim {

// what the ModelLoader keeps and what one load may cost (command-line options of
// hrpsim-modelloader; see parseModelLoaderOptions)
struct ModelLoaderOptions {
  // getBodyInfo's cache: at most this many bodies and bytes of bodies; past either, the least
  // recently used entry leaves the cache (its object is retired, see below)
  size_t cacheEntries = 128;
  size_t cacheBytes = size_t(512) << 20;
  // objects that left the cache (evicted, file changed, reloaded, clearData) and scenes stay
  // alive for clients that still hold them, up to this many and bytes; then the oldest is
  // deactivated (its holders get OBJECT_NOT_EXIST)
  size_t retiredEntries = 256;
  size_t retiredBytes = size_t(1) << 30;
  hsmLimits limits = {};  // per load: file size, mesh time, memory and triangles (0: default)
  // serve only files whose real path (symbolic links resolved) is under one of these (absolute,
  // symlink-free directory paths, see resolveModelRoot); relative paths are looked up under
  // each root in turn. Errors then name file, line, column and the kind of problem only, never
  // text from the file (the full message goes to the log). Empty: serve any file the process
  // can read (and quote the file in parse errors)
  std::vector<std::string> roots;
};

// read hrpsim-modelloader's options from what remains of the command line after the ORB took
// its own: --cache-entries N, --cache-mb MB, --retired-entries N, --retired-mb MB,
// --max-file-mb MB, --mesh-seconds S, --mesh-memory-mb MB, --mesh-triangles N,
// --mesh-in-process. Returns "" or a message for a bad option; an argument that is none of
// these is an error too, unless `others` is given, which then receives it
std::string parseModelLoaderOptions(int argc, char **argv, ModelLoaderOptions *opt,
                                    std::vector<std::string> *others = nullptr);

// the same options from one string of them separated by white space (NULL or "" is none)
std::string parseModelLoaderOptionsText(const char *text, ModelLoaderOptions *opt);

class ModelLoaderServant : public POA_OpenHRP::ModelLoader {
 public:
  explicit ModelLoaderServant(const ModelLoaderOptions &options = ModelLoaderOptions());
  ~ModelLoaderServant() override;

  // cached per (path, options) and reloaded when the file's modification time or size changes
  OpenHRP::BodyInfo_ptr getBodyInfo(const char *url) override;
  OpenHRP::BodyInfo_ptr getBodyInfoEx(const char *url,
                                      const OpenHRP::ModelLoader::ModelLoadOption &option) override;
  // always read the file again (the result also refreshes the get* cache)
  OpenHRP::BodyInfo_ptr loadBodyInfo(const char *url) override;
  OpenHRP::BodyInfo_ptr loadBodyInfoEx(
      const char *url, const OpenHRP::ModelLoader::ModelLoadOption &option) override;
  OpenHRP::SceneInfo_ptr loadSceneInfo(const char *url) override;
  // forget the cache (objects already handed out stay alive within the retire budget)
  void clearData() override;
  void shutdown() override;

 private:
  struct Cached {
    PortableServer::ObjectId_var oid;
    OpenHRP::BodyInfo_var ref;
    long long mtimeNs = 0;
    long long size = 0;
    size_t bytes = 0;
    std::list<std::string>::iterator use;  // its place in lru_ (once stored)
  };
  struct Retired {
    PortableServer::ObjectId_var oid;
    size_t bytes = 0;
  };

  // the file a request's url names (file:// stripped), checked against the model roots;
  // throws ModelLoaderException for other schemes, empty urls and files outside the roots
  std::string pathOf(const char *operation, const char *url) const;
  // log err in full and throw it as a ModelLoaderException (redacted when roots are set)
  [[noreturn]] void failLoad(const char *operation, const std::string &path,
                             const hsError &err) const;
  // load url into a new cache entry (activated, not yet stored); throws ModelLoaderException
  // with file:line on failure
  Cached load(const char *operation, const char *url,
              const OpenHRP::ModelLoader::ModelLoadOption &option);
  // keep an object no longer cached alive within a count and memory budget (lock held)
  void retire(const PortableServer::ObjectId &oid, size_t bytes);
  void deactivate(const PortableServer::ObjectId &oid);
  // store entry under key (replacing and retiring what was there), most recently used, then
  // evict the least recently used entries past the bounds (lock held)
  void store(const std::string &key, Cached entry);
  // mark the entry under it as just used (lock held)
  void touch(std::map<std::string, Cached>::iterator it);

  ModelLoaderOptions options_;
  std::mutex mutex_;
  std::map<std::string, Cached> cache_;
  std::list<std::string> lru_;  // cache keys, most recently used first
  size_t cacheBytes_ = 0;
  std::deque<Retired> retired_;
  size_t retiredBytes_ = 0;
};

// the real path of a --model-root directory (symbolic links resolved), or "" with the
// reason in *why if it is not an existing directory
std::string resolveModelRoot(const char *dir, std::string *why);

// true if the real path `path` is `root` or lies below it (both absolute and symlink-free)
bool isUnderRoot(const std::string &path, const std::string &root);

}  // namespace hrpsim

#endif  // HRPSIM_SERVER_MODELLOADER_MODEL_LOADER_H_
