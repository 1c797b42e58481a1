// print_tree.cpp: load a model through a running ModelLoader and print its link tree.
//
//   hrpsim-print-tree -ORBInitRef NameService=corbaloc:iiop:127.0.0.1:2809/NameService
//                     file:///path/to/robot.wrl     (one command line)
//
// The ModelLoader is looked up under the name "ModelLoader" in the naming service. Each link
// is printed indented under its parent with its joint type, joint id and mass, followed by
// the number of shapes and triangles of the whole body. Exits 0 on success, 1 on any error
// (reported on stderr).

#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <omniORB4/CORBA.h>
#include <omniORB4/Naming.hh>

#include "ModelLoader.hh"

namespace {

// Print link i and, one level deeper, its children. depth also guards against a malformed
// tree whose child indices form a cycle.
void printLink(const OpenHRP::LinkInfoSequence &links, CORBA::Short i, unsigned depth) {
  if (i < 0 || static_cast<CORBA::ULong>(i) >= links.length() || depth > links.length()) {
    std::fprintf(stderr, "warning: bad link index %d in the tree\n", i);
    return;
  }
  const OpenHRP::LinkInfo &link = links[i];
  std::printf("%*s%s  (%s, jointId %d, mass %g kg)\n", static_cast<int>(2 * depth), "",
              static_cast<const char *>(link.name), static_cast<const char *>(link.jointType),
              link.jointId, link.mass);
  for (CORBA::ULong c = 0; c < link.childIndices.length(); ++c) {
    printLink(links, link.childIndices[c], depth + 1);
  }
}

// Find the ModelLoader in the naming service. Throws std::runtime_error when no naming service
// was given or a reference is of the wrong type, CosNaming::NamingContext::NotFound when the
// name is not bound, and CORBA system exceptions when a server cannot be reached.
OpenHRP::ModelLoader_ptr findModelLoader(CORBA::ORB_ptr orb) {
  CORBA::Object_var nsObj;
  try {
    nsObj = orb->resolve_initial_references("NameService");
  } catch (const CORBA::ORB::InvalidName &) {
    throw std::runtime_error("no naming service given (use -ORBInitRef NameService=...)");
  } catch (const CORBA::NO_RESOURCES &) {
    throw std::runtime_error("no naming service given (use -ORBInitRef NameService=...)");
  }
  CosNaming::NamingContext_var ns = CosNaming::NamingContext::_narrow(nsObj);
  if (CORBA::is_nil(ns)) {
    throw std::runtime_error("the NameService reference is not a naming context");
  }
  CosNaming::Name name;
  name.length(1);
  name[0].id = CORBA::string_dup("ModelLoader");
  name[0].kind = CORBA::string_dup("");
  CORBA::Object_var obj = ns->resolve(name);
  OpenHRP::ModelLoader_ptr loader = OpenHRP::ModelLoader::_narrow(obj);
  if (CORBA::is_nil(loader)) {
    throw std::runtime_error("\"ModelLoader\" in the naming service is not a ModelLoader");
  }
  return loader;
}

// Load url through the ModelLoader and print the body's name, link tree and geometry totals.
void printBody(CORBA::ORB_ptr orb, const char *url) {
  OpenHRP::ModelLoader_var loader = findModelLoader(orb);
  OpenHRP::BodyInfo_var body = loader->loadBodyInfo(url);
  CORBA::String_var bodyName = body->name();
  std::printf("%s\n", static_cast<const char *>(bodyName));

  // the tree, from each root (a link without a parent)
  OpenHRP::LinkInfoSequence_var links = body->links();
  for (CORBA::ULong i = 0; i < links->length(); ++i) {
    if (links[i].parentIndex < 0) {
      printLink(links.in(), static_cast<CORBA::Short>(i), 1);
    }
  }

  // geometry totals
  OpenHRP::ShapeInfoSequence_var shapes = body->shapes();
  CORBA::ULong triangles = 0;
  for (CORBA::ULong i = 0; i < shapes->length(); ++i) {
    triangles += shapes[i].triangles.length() / 3;
  }
  std::printf("shapes: %u, triangles: %u\n", static_cast<unsigned>(shapes->length()),
              static_cast<unsigned>(triangles));
}

// The server reads files from its own working directory, so send a plain path as an absolute
// file:// URL; URLs pass through unchanged.
std::string toUrl(const char *arg) {
  std::string s = arg;
  if (s.find("://") != std::string::npos) {
    return s;
  }
  return "file://" + std::filesystem::absolute(s).lexically_normal().string();
}

}  // namespace

int main(int argc, char **argv) {
  int status = 1;
  CORBA::ORB_var orb;
  try {
    // takes the -ORB... options out of argv; big models need more than omniORB's 2 MB messages
    static const char *options[][2] = {{"giopMaxMsgSize", "1073741824"}, {nullptr, nullptr}};
    orb = CORBA::ORB_init(argc, argv, "omniORB4", options);
    if (argc == 2) {
      printBody(orb, toUrl(argv[1]).c_str());
      status = 0;
    } else {
      std::fprintf(stderr, "usage: %s [-ORBInitRef NameService=<corbaloc>] <model path or url>\n",
                   argv[0]);
    }
  } catch (const OpenHRP::ModelLoader::ModelLoaderException &e) {
    std::fprintf(stderr, "error: the model did not load: %s\n",
                 static_cast<const char *>(e.description));
  } catch (const CosNaming::NamingContext::NotFound &) {
    std::fprintf(stderr, "error: no \"ModelLoader\" is registered in the naming service\n");
  } catch (const CORBA::TRANSIENT &) {
    std::fprintf(stderr, "error: cannot reach the naming service or the ModelLoader\n");
  } catch (const CORBA::SystemException &e) {
    std::fprintf(stderr, "error: CORBA system exception %s (minor 0x%lx)\n", e._name(),
                 static_cast<unsigned long>(e.minor()));
  } catch (const CORBA::Exception &e) {
    std::fprintf(stderr, "error: CORBA exception %s\n", e._name());
  } catch (const std::exception &e) {
    std::fprintf(stderr, "error: %s\n", e.what());
  }

  if (!CORBA::is_nil(orb)) {
    try {
      orb->destroy();
    } catch (const CORBA::Exception &) {
      // nothing useful left to do
    }
  }
  return status;
}
