// model_loader.h - the ModelLoader servant: loads model files into hsBody and serves them as
// BodyInfo / SceneInfo objects.

#ifndef HRPSIM_SERVER_MODELLOADER_MODEL_LOADER_H_
#define HRPSIM_SERVER_MODELLOADER_MODEL_LOADER_H_

#include <deque>
#include <map>
#include <mutex>
#include <string>

#include "body_info.h"

namespace hrpsim {

class ModelLoaderServant : public POA_OpenHRP::ModelLoader {
 public:
  ModelLoaderServant() = default;
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

  // load url into a new cache entry (activated, not yet stored); throws ModelLoaderException
  // with file:line on failure
  Cached load(const char *operation, const char *url,
              const OpenHRP::ModelLoader::ModelLoadOption &option);
  // keep an object no longer cached alive within a count and memory budget (lock held)
  void retire(const PortableServer::ObjectId &oid, size_t bytes);
  void deactivate(const PortableServer::ObjectId &oid);

  std::mutex mutex_;
  std::map<std::string, Cached> cache_;
  std::deque<Retired> retired_;
  size_t retiredBytes_ = 0;
};

}  // namespace hrpsim

#endif  // HRPSIM_SERVER_MODELLOADER_MODEL_LOADER_H_
