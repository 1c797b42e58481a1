// bench_client.h - what the C++ CORBA benchmark clients share: finding a server in the naming
// service given by -ORBInitRef NameService=..., and a model file's URL for the ModelLoader.

#ifndef HRPSIM_BENCH_BENCH_CLIENT_H_
#define HRPSIM_BENCH_BENCH_CLIENT_H_

#include <omniORB4/CORBA.h>
#include <omniORB4/Naming.hh>

#include <filesystem>
#include <string>

namespace bench {

// the object bound as `name` (empty kind) in the root naming context; the caller owns it
inline CORBA::Object_ptr resolve(CORBA::ORB_ptr orb, const char *name) {
  CORBA::Object_var nsObj = orb->resolve_initial_references("NameService");
  CosNaming::NamingContext_var ns = CosNaming::NamingContext::_narrow(nsObj);
  CosNaming::Name n;
  n.length(1);
  n[0].id = CORBA::string_dup(name);
  n[0].kind = CORBA::string_dup("");
  return ns->resolve(n);
}

// file:// URL of a path (made absolute)
inline std::string url(const char *path) {
  return "file://" + std::filesystem::absolute(path).lexically_normal().string();
}

}  // namespace bench

#endif  // HRPSIM_BENCH_BENCH_CLIENT_H_
