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
  // always read the file again
  OpenHRP::BodyInfo_ptr loadBodyInfo(const char *url) override;
  OpenHRP::BodyInfo_ptr loadBodyInfoEx(
      const char *url, const OpenHRP::ModelLoader::ModelLoadOption &option) override;
  OpenHRP::SceneInfo_ptr loadSceneInfo(const char *url) override;
  // forget the cache (cached BodyInfo objects are deactivated)
  void clearData() override;
  void shutdown() override;

 private:
  struct Cached {
    PortableServer::ObjectId_var oid;
    OpenHRP::BodyInfo_var ref;
    long long mtimeNs = 0;
    long long size = 0;
  };
  struct Fresh {
    PortableServer::ObjectId_var oid;
    size_t bytes = 0;
  };

  // load and activate; throws ModelLoaderException with file:line on failure
  OpenHRP::BodyInfo_ptr load(const char *operation, const char *url,
                             const OpenHRP::ModelLoader::ModelLoadOption *option,
                             PortableServer::ObjectId_var &oid, size_t *bytes);
  // keep recently loaded (uncached) objects alive within a count and memory budget
  void retire(PortableServer::ObjectId_var oid, size_t bytes);
  void deactivate(const PortableServer::ObjectId &oid);

  std::mutex mutex_;
  std::map<std::string, Cached> cache_;
  std::deque<Fresh> fresh_;
  size_t freshBytes_ = 0;
};

}  // namespace hrpsim

#endif  // HRPSIM_SERVER_MODELLOADER_MODEL_LOADER_H_
