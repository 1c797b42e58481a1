// runtime.h - what every hrpsim server process shares: ORB and POA set-up, binding names in
// the naming service, clean shutdown on SIGINT/SIGTERM or ServerObject::shutdown, and turning
// hsError into text for exceptions and the log.

#ifndef HRPSIM_SERVER_COMMON_RUNTIME_H_
#define HRPSIM_SERVER_COMMON_RUNTIME_H_

#include <omniORB4/CORBA.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "util.h"

namespace hrpsim {

// One per process. Construct first thing in main (it blocks SIGINT/SIGTERM in every thread so
// one watcher thread can turn them into an orderly ORB shutdown).
class Runtime {
 public:
  // initialise the ORB from the command line (-ORBInitRef NameService=... etc.) and activate
  // the root POA; `program` names the server in log lines
  Runtime(int &argc, char **argv, const char *program);
  ~Runtime();

  CORBA::ORB_ptr orb() const { return orb_; }
  PortableServer::POA_ptr poa() const { return poa_; }

  // (re)bind obj under `name` (empty kind) in the root naming context; throws on failure
  void bind(const char *name, CORBA::Object_ptr obj);

  // serve requests until a signal or requestShutdown(); then unbind our names and stop the
  // ORB. Returns the process exit status.
  int run();

  // run the shutdown hooks (once), unbind our names, then ask run() to return (safe from a
  // request thread, e.g. ServerObject::shutdown, and from the signal watcher)
  void requestShutdown();

  // register work to do at the start of a shutdown, while the ORB still serves: e.g. ending
  // requests that would otherwise hold the ORB's shutdown back. Register before run().
  void onShutdown(std::function<void()> hook);

  // the process's runtime (set by the constructor)
  static Runtime *instance();

 private:
  CORBA::ORB_var orb_;
  PortableServer::POA_var poa_;
  // unbind the names bound so far (best effort, each once)
  void unbindNames();

  std::mutex namesMutex_;
  std::vector<std::string> names_;
  std::string program_;
  std::vector<std::function<void()>> hooks_;
  std::atomic<bool> shuttingDown_{false};
};

// "file:line:column: message" for an hsError
std::string describe(const hsError &err);

// one log line for a failed request: "<operation>: <reason>"
void logRequestError(const char *operation, const std::string &reason);

// for interfaces without a user exception of their own: log "<operation>: <problem>" and raise
// the CORBA system exception matching err.code (hsE_NOMEM: NO_MEMORY, hsE_UNSUPPORTED:
// NO_IMPLEMENT, anything else: BAD_PARAM), completed NO
[[noreturn]] void raiseSystemException(const char *operation, const hsError &err);

}  // namespace hrpsim

#endif  // HRPSIM_SERVER_COMMON_RUNTIME_H_
