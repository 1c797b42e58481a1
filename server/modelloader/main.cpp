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

#include "format.h"
#include "model_loader.h"
#include "runtime.h"

namespace {

const char kSynopsis[] =
    "hrpsim-modelloader -ORBInitRef NameService=CORBALOC [--model-root DIR]...\n"
    "       [--allow-remote-shutdown] [cache and limit options] [-ORB options]";
// the options, with the defaults the code holds
std::string optionsText() {
  hrpsim::ModelLoaderOptions d;
  hsmLimits lim;
  hsm_defaultLimits(&lim);
  return hrpsim::format(
      "Serves OpenHRP's ModelLoader (VRML97 and URDF models), bound as \"ModelLoader\".\n"
      "  --model-root DIR      serve and read only files under DIR (repeatable; required when\n"
      "                        listening beyond 127.0.0.1)\n"
      "  --max-file-mb MB      largest model, mesh or texture file (%zu)\n"
      "  --mesh-seconds S      time one mesh file's import may take (%g)\n"
      "  --mesh-memory-mb MB   memory one mesh import may add (%zu)\n"
      "  --mesh-triangles N    triangles in one mesh file (%ld)\n"
      "  --mesh-in-process     import meshes in this process (no time or memory bound)\n"
      "  --cache-entries N     bodies kept by the getBodyInfo cache (%zu)\n"
      "  --cache-mb MB         bytes of bodies in that cache (%zu)\n"
      "  --retired-entries N   bodies kept alive after leaving the cache (%zu)\n"
      "  --retired-mb MB       bytes of those (%zu)\n"
      "  $HRPSIM_MODELLOADER_OPTIONS: cache and limit options read before the command line\n",
      static_cast<size_t>(lim.maxFileBytes >> 20), lim.meshSeconds,
      static_cast<size_t>(lim.meshBytes >> 20), static_cast<long>(lim.meshTriangles),
      d.cacheEntries, d.cacheBytes >> 20, d.retiredEntries, d.retiredBytes >> 20);
}

int usage(const std::string &problem) {
  std::fprintf(stderr, "hrpsim-modelloader: %s\nusage: %s\n(--help lists the options)\n",
               problem.c_str(), kSynopsis);
  return 2;
}

}  // namespace

int main(int argc, char **argv) {
  if (hrpsim::helpRequested(argc, argv, kSynopsis, optionsText().c_str())) {
    return 0;
  }
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
