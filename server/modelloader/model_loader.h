// model_loader.h - the ModelLoader servant: loads model files into hsBody and serves them as
// BodyInfo / SceneInfo objects, optionally only files under a set of model roots.

#ifndef HRPSIM_SERVER_MODELLOADER_MODEL_LOADER_H_
#define HRPSIM_SERVER_MODELLOADER_MODEL_LOADER_H_

#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "body_info.h"

namespace hrpsim {

class ModelLoaderServant : public POA_OpenHRP::ModelLoader {
 public:
  // serve any file the process can read (and quote the file in parse errors)
  ModelLoaderServant() = default;
  // serve only files whose real path (symbolic links resolved) is under one of `roots`
  // (absolute, symlink-free directory paths, see resolveModelRoot); relative paths are looked
  // up under each root in turn. Errors then name file, line, column and the kind of problem
  // only, never text from the file (the full message goes to the log). Empty `roots`: as the
  // default constructor.
  explicit ModelLoaderServant(std::vector<std::string> roots) : roots_(std::move(roots)) {}
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

  const std::vector<std::string> roots_;
  std::mutex mutex_;
  std::map<std::string, Cached> cache_;
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
