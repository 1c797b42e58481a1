// main.cpp - hrpsim-modelloader: serves OpenHRP's ModelLoader, bound as "ModelLoader".
//
// Usage: hrpsim-modelloader -ORBInitRef NameService=corbaloc:iiop:HOST:PORT/NameService
//        [other -ORB options]

#include <cstdio>

#include "model_loader.h"
#include "runtime.h"

int main(int argc, char **argv) {
  try {
    hrpsim::Runtime runtime(argc, argv, "hrpsim-modelloader");
    hrpsim::ModelLoaderServant *loader = new hrpsim::ModelLoaderServant;
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
