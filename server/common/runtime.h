// runtime.h - what every hrpsim server process shares: ORB and POA set-up, binding names in
// the naming service, clean shutdown on SIGINT/SIGTERM or ServerObject::shutdown, and turning
// hsError into text for exceptions and the log.
//
// Safe by default: without an -ORBendPoint a server listens on 127.0.0.1 only (omniORB alone
// would listen on every interface); unix-socket endpoints live in a per-user directory of
// mode 0700 ($XDG_RUNTIME_DIR/hrpsim, else /tmp/hrpsim-<uid>), sockets mode 0600. A server
// with a TCP endpoint on any other address is "exposed": there a client's shutdown() is
// refused unless the server was started with --allow-remote-shutdown.

#ifndef HRPSIM_SERVER_COMMON_RUNTIME_H_
#define HRPSIM_SERVER_COMMON_RUNTIME_H_

#include <omniORB4/CORBA.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "Diagnostics.hh"
#include "util.h"

namespace hrpsim {

// One per process. Construct first thing in main (it blocks SIGINT/SIGTERM in every thread so
// one watcher thread can turn them into an orderly ORB shutdown).
class Runtime {
 public:
  // initialise the ORB from the command line (-ORBInitRef NameService=... etc.) and activate
  // the root POA; `program` names the server in log lines. Consumes the options every server
  // shares (--allow-remote-shutdown) from argv; the server's own options stay there. Exits
  // the process with status 2 and a message on an unsafe unix-socket directory.
  Runtime(int &argc, char **argv, const char *program);
  ~Runtime();

  CORBA::ORB_ptr orb() const { return orb_; }
  PortableServer::POA_ptr poa() const { return poa_; }

  // (re)bind obj under `name` (empty kind) in the root naming context; throws on failure
  void bind(const char *name, CORBA::Object_ptr obj);

  // serve requests until a signal or requestShutdown(); then unbind our names and stop the
  // ORB. Returns the process exit status.
  int run();

  // a client asked the server to stop (ServerObject::shutdown and the like): refused, with a
  // log line, when the server is exposed() and was not started with --allow-remote-shutdown;
  // otherwise as shutdown(). Safe from a request thread.
  void requestShutdown();

  // run the shutdown hooks (once), unbind our names, then ask run() to return (safe from a
  // request thread and from the signal watcher)
  void shutdown();

  // true if a TCP endpoint listens on anything but 127.0.0.1 / ::1 / localhost (another
  // loopback alias such as 127.0.0.2, a LAN address, or every interface)
  bool exposed() const { return exposed_; }

  // the listening endpoints given on the command line (or the loopback default), for logs
  const std::string &endpoints() const { return endpoints_; }

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
  bool exposed_ = false;
  bool allowRemoteShutdown_ = false;
  std::string endpoints_;
};

// the per-user directory for unix-socket endpoints ($XDG_RUNTIME_DIR/hrpsim when that is an
// absolute path, else /tmp/hrpsim-<uid>), created mode 0700 if missing; returns false with
// the reason in *why if it is not a directory of ours (a symlink, another owner) or cannot be
// made private
bool makeSocketDir(std::string *dir, std::string *why);

// true if the host of a "giop:tcp:HOST:PORT" endpoint is this machine's default loopback
// address (127.0.0.1, ::1 or localhost); false for every other address, an empty host
// (every interface) and every other transport except giop:unix (which counts as loopback)
bool isLoopbackEndpoint(const std::string &endpoint);

// Let every thread of the process allocate from one malloc arena (glibc's M_ARENA_MAX = 1)
// and give blocks of 128 KiB and more mappings of their own, always (a fixed
// M_MMAP_THRESHOLD: glibc otherwise raises it once such a block is freed and puts the next
// ones among the small blocks), each unless the environment sets MALLOC_ARENA_MAX /
// MALLOC_MMAP_THRESHOLD_. Call first thing in main, before any thread exists. For servers
// whose request threads make and free big objects (the dynamics server's worlds: half a
// megabyte of contact buffers each): with an arena per thread, blocks freed by other threads
// than the ones that made them fragment the arenas and the memory creeps up (+0.19 MiB a
// minute under the soak); with both settings it stays flat (docs/benchmarks.md, "Memory").
// No-op off glibc.
void useOneMallocArena();

// The usage text every server shares, after its own synopsis line and options: how to name
// the naming service, --allow-remote-shutdown, and the -ORB options that matter here.
extern const char *const kCommonUsage;

// If argv holds -h or --help, print "usage: <synopsis>\n<options><kCommonUsage>" to stdout and
// return true (main then exits 0 without starting anything). Call before the Runtime exists.
bool helpRequested(int argc, char **argv, const char *synopsis, const char *options);

// After the Runtime and the server's own options have taken theirs: if an argument is left in
// argv[1..argc), print "<program>: unknown argument 'X'" and the synopsis to stderr and return
// false (main then exits 2).
bool noArgumentsLeft(int argc, char **argv, const char *program, const char *synopsis);

// The hrpsim::Diagnostics half of a servant (idl/Diagnostics.idl): the reason its last refused
// request was refused. A servant class derives from this and from its POA_hrpsim skeleton;
// logRequestError() fills it in for the servant whose request is being served, so refusing
// code needs nothing more. Thread-safe.
class DiagnosticsServant : public virtual POA_hrpsim::Diagnostics {
 public:
  // "<operation>: <reason>" of the last refusal since the last call, or ""; clears it
  char *lastError() override;
  // remember a refusal (replaces any earlier one)
  void noteRefusal(const std::string &text);

 private:
  std::mutex lastErrorMutex_;
  std::string lastError_;
};

// "file:line:column: message" for an hsError
std::string describe(const hsError &err);

// one log line for a failed request: "<operation>: <reason>"; inside a request served by a
// DiagnosticsServant, also that servant's lastError()
void logRequestError(const char *operation, const std::string &reason);

// for interfaces without a user exception of their own: log "<operation>: <problem>" and raise
// the CORBA system exception matching err.code (hsE_NOMEM: NO_MEMORY, hsE_UNSUPPORTED:
// NO_IMPLEMENT, hsE_ORDER: BAD_INV_ORDER, hsE_RUNAWAY: BAD_OPERATION completed YES, anything
// else: BAD_PARAM), completed NO
[[noreturn]] void raiseSystemException(const char *operation, const hsError &err);

}  // namespace hrpsim

#endif  // HRPSIM_SERVER_COMMON_RUNTIME_H_
