// main.cpp - hrpsim-modelloader: serves OpenHRP's ModelLoader, bound as "ModelLoader".
//
// Usage: hrpsim-modelloader -ORBInitRef NameService=corbaloc:iiop:HOST:PORT/NameService
//        [--model-root DIR]... [--allow-remote-shutdown] [other -ORB options]
//
// --model-root DIR (repeatable): serve only files under DIR (see model_loader.h). A server
// that listens beyond the default loopback address (runtime.h: exposed) refuses to start
// without one: it would otherwise hand any file it can read to anyone who reaches it.

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "model_loader.h"
#include "runtime.h"

static int usage(const char *problem) {
  std::fprintf(stderr,
               "hrpsim-modelloader: %s\n"
               "usage: hrpsim-modelloader -ORBInitRef NameService=CORBALOC [--model-root DIR]... "
               "[--allow-remote-shutdown] [-ORB options]\n",
               problem);
  return 2;
}

int main(int argc, char **argv) {
  try {
    hrpsim::Runtime runtime(argc, argv, "hrpsim-modelloader");
    // our own options (the ORB's and the Runtime's are gone from argv by now)
    std::vector<std::string> roots;
    for (int i = 1; i < argc; i++) {
      if (std::strcmp(argv[i], "--model-root") == 0) {
        if (i + 1 >= argc) {
          return usage("--model-root needs a directory");
        }
        std::string why;
        std::string root = hrpsim::resolveModelRoot(argv[++i], &why);
        if (root.empty()) {
          return usage(("--model-root " + why).c_str());
        }
        roots.push_back(root);
      } else {
        return usage((std::string("unknown argument '") + argv[i] + "'").c_str());
      }
    }
    if (runtime.exposed() && roots.empty()) {
      return usage(("listening on " + runtime.endpoints() +
                    " exposes every file this process can read: give --model-root DIR")
                       .c_str());
    }
    for (const std::string &root : roots) {
      hsu_log(hsLOG_INFO, "serving model files under %s", root.c_str());
    }
    hrpsim::ModelLoaderServant *loader = new hrpsim::ModelLoaderServant(roots);
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
