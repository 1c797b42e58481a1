// main.cpp - hrpsim-modelloader: serves OpenHRP's ModelLoader, bound as "ModelLoader".
//
// Usage: hrpsim-modelloader -ORBInitRef NameService=corbaloc:iiop:HOST:PORT/NameService
//        [--model-root DIR]... [--allow-remote-shutdown] [other -ORB options]
//        [cache and limit options, see parseModelLoaderOptions:
//        --cache-entries N --cache-mb MB --retired-entries N --retired-mb MB --max-file-mb MB
//        --mesh-seconds S --mesh-memory-mb MB --mesh-triangles N --mesh-in-process]
//
// --model-root DIR (repeatable): serve only files under DIR (see model_loader.h), and read
// only files under the roots while loading (Inlines, meshes, textures: hsu_setFileRoots). A server
// that listens beyond the default loopback address (runtime.h: exposed) refuses to start
// without one: it would otherwise hand any file it can read to anyone who reaches it.
// Cache and limit options may also come from $HRPSIM_MODELLOADER_OPTIONS (how `hrpsim up`
// passes them); the command line is read after it.

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "model_loader.h"
#include "runtime.h"

static int usage(const std::string &problem) {
  std::fprintf(stderr,
               "hrpsim-modelloader: %s\n"
               "usage: hrpsim-modelloader -ORBInitRef NameService=CORBALOC [--model-root DIR]... "
               "[--allow-remote-shutdown] [cache and limit options] [-ORB options]\n",
               problem.c_str());
  return 2;
}

int main(int argc, char **argv) {
  try {
    hrpsim::Runtime runtime(argc, argv, "hrpsim-modelloader");
    // our own options (the ORB's and the Runtime's are gone from argv by now)
    hrpsim::ModelLoaderOptions options;
    std::string bad = hrpsim::parseModelLoaderOptionsText(
        std::getenv("HRPSIM_MODELLOADER_OPTIONS"), &options);
    if (!bad.empty()) {
      return usage("$HRPSIM_MODELLOADER_OPTIONS: " + bad);
    }
    std::vector<std::string> others;
    bad = hrpsim::parseModelLoaderOptions(argc, argv, &options, &others);
    if (!bad.empty()) {
      return usage(bad);
    }
    for (size_t i = 0; i < others.size(); i++) {
      if (others[i] != "--model-root") {
        return usage("unknown argument '" + others[i] + "'");
      }
      if (i + 1 >= others.size()) {
        return usage("--model-root needs a directory");
      }
      std::string why;
      std::string root = hrpsim::resolveModelRoot(others[++i].c_str(), &why);
      if (root.empty()) {
        return usage("--model-root " + why);
      }
      options.roots.push_back(root);
    }
    if (runtime.exposed() && options.roots.empty()) {
      return usage("listening on " + runtime.endpoints() +
                   " exposes every file this process can read: give --model-root DIR");
    }
    for (const std::string &root : options.roots) {
      hsu_log(hsLOG_INFO, "serving model files under %s", root.c_str());
    }
    // every file a model refers to (Inline, mesh, texture) is confined to the roots as well
    std::vector<const char *> rootList;
    for (const std::string &root : options.roots) {
      rootList.push_back(root.c_str());
    }
    hsError rootErr = {};
    if (hsu_setFileRoots(rootList.data(), static_cast<int>(rootList.size()), &rootErr) != 0) {
      return usage(std::string("--model-root: ") + rootErr.message);
    }
    // a shutdown never waits on a mesh import
    runtime.onShutdown([] { hsm_cancelMeshImports(); });
    hrpsim::ModelLoaderServant *loader = new hrpsim::ModelLoaderServant(options);
    PortableServer::ObjectId_var oid = runtime.poa()->activate_object(loader);
    loader->_remove_ref();
    CORBA::Object_var ref = runtime.poa()->id_to_reference(oid);
    runtime.bind("ModelLoader", ref);
    return runtime.run();
  } catch (const CORBA::Exception &e) {
    std::fprintf(stderr, "hrpsim-modelloader: cannot start: CORBA %s (is the naming service "
                 "running and given with -ORBInitRef NameService=...?)\n", e._name());
    return 1;
  }
}
