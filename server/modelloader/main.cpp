// main.cpp - hrpsim-modelloader: serves OpenHRP's ModelLoader, bound as "ModelLoader".
//
// Usage: hrpsim-modelloader -ORBInitRef NameService=corbaloc:iiop:HOST:PORT/NameService
//        [other -ORB options] [cache and limit options, see parseModelLoaderOptions:
//        --cache-entries N --cache-mb MB --retired-entries N --retired-mb MB --max-file-mb MB
//        --mesh-seconds S --mesh-memory-mb MB --mesh-triangles N --mesh-in-process]

#include <cstdio>
#include <cstdlib>
#include <string>

#include "model_loader.h"
#include "runtime.h"

int main(int argc, char **argv) {
  try {
    hrpsim::Runtime runtime(argc, argv, "hrpsim-modelloader");
    // options: $HRPSIM_MODELLOADER_OPTIONS first (how `hrpsim up` passes them), then the
    // command line
    hrpsim::ModelLoaderOptions options;
    std::string bad = hrpsim::parseModelLoaderOptionsText(
        std::getenv("HRPSIM_MODELLOADER_OPTIONS"), &options);
    if (!bad.empty()) {
      bad = "$HRPSIM_MODELLOADER_OPTIONS: " + bad;
    } else {
      bad = hrpsim::parseModelLoaderOptions(argc, argv, &options);
    }
    if (!bad.empty()) {
      std::fprintf(stderr, "hrpsim-modelloader: %s\n", bad.c_str());
      return 2;
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
