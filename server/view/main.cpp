// main.cpp - hrpsim-view: serves OpenHRP's ViewSimulatorFactory, bound as
// "ViewSimulatorFactory"; each create() makes an independent ViewSimulator (one scene) whose
// cameras render headless (EGL, no display; see sensors/render/render.h for the device choice).
//
// Usage: hrpsim-view -ORBInitRef NameService=corbaloc:iiop:HOST:PORT/NameService
//        [--color-format argb|rgb] [--name NAME] [other -ORB options]
// --color-format rgb sends colour images as PixelFormat RGB (3 bytes per pixel in octetData)
// instead of OpenHRP's ARGB (one long per pixel); --name binds the factory under another name
// than "ViewSimulatorFactory" (e.g. a second server with other options).

#include <cstdio>
#include <cstring>

#include "runtime.h"
#include "view_simulator.h"

namespace {

const char kSynopsis[] =
    "hrpsim-view -ORBInitRef NameService=CORBALOC [--color-format argb|rgb] [--name NAME]\n"
    "       [--allow-remote-shutdown] [-ORB options]";
const char kOptions[] =
    "Serves OpenHRP's ViewSimulatorFactory (vision sensors rendered headless through EGL).\n"
    "  --color-format argb|rgb\n"
    "                        colour images as OpenHRP's ARGB (one long per pixel, the default)\n"
    "                        or RGB (3 bytes per pixel in octetData)\n"
    "  --name NAME           bind the factory as NAME instead of \"ViewSimulatorFactory\"\n";
}  // namespace

int main(int argc, char **argv) {
  if (hrpsim::helpRequested(argc, argv, kSynopsis, kOptions)) {
    return 0;
  }
  try {
    hrpsim::Runtime runtime(argc, argv, "hrpsim-view");
    hrpsim::ColorFormat format = hrpsim::ColorFormat::ARGB;
    const char *name = "ViewSimulatorFactory";
    for (int i = 1; i < argc; i++) {
      if (std::strcmp(argv[i], "--color-format") == 0 && i + 1 < argc) {
        const char *f = argv[++i];
        if (std::strcmp(f, "rgb") == 0) {
          format = hrpsim::ColorFormat::RGB;
        } else if (std::strcmp(f, "argb") != 0) {
          std::fprintf(stderr, "hrpsim-view: --color-format must be argb or rgb, not '%s'\n", f);
          return 2;
        }
      } else if (std::strcmp(argv[i], "--name") == 0 && i + 1 < argc && *argv[i + 1]) {
        name = argv[++i];
      } else if (std::strncmp(argv[i], "-ORB", 4) != 0) {
        std::fprintf(stderr, "hrpsim-view: unknown argument '%s'\nusage: %s\n(--help lists the "
                     "options)\n", argv[i], kSynopsis);
        return 2;
      }
    }
    // open the GL context now, so the log names the device and a machine without headless GL
    // fails at start rather than at the first picture
    try {
      hrpsim::requireRenderer("start");  // logs "renderer: <device>"
    } catch (const CORBA::Exception &) {
      std::fprintf(stderr, "hrpsim-view: cannot start: no headless OpenGL (see the log)\n");
      return 1;
    }
    auto *factory = new hrpsim::ViewSimulatorFactoryServant(format);
    PortableServer::ObjectId_var oid = runtime.poa()->activate_object(factory);
    factory->_remove_ref();
    CORBA::Object_var ref = runtime.poa()->id_to_reference(oid);
    runtime.bind(name, ref);
    return runtime.run();
  } catch (const CORBA::Exception &e) {
    std::fprintf(stderr, "hrpsim-view: cannot start: CORBA %s (is the naming service "
                 "running and given with -ORBInitRef NameService=...?)\n", e._name());
    return 1;
  }
}
