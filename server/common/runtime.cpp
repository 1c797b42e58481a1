// runtime.cpp - ORB set-up, naming, and orderly shutdown shared by every server (runtime.h).
//
// SIGINT and SIGTERM are blocked before the ORB starts its threads, so they are delivered only
// to a watcher thread sitting in sigwait, which shuts the ORB down; run() then unbinds the
// names the process registered, so a stopped server never leaves a dead reference behind.
//
// Before ORB_init the command line is read for the endpoints asked for: none means loopback
// (an ORB_init option adds giop:tcp:127.0.0.1:), a unix endpoint gets the per-user socket
// directory and mode 0600 unless the command line names its own, and any TCP endpoint off
// the default loopback address marks the server exposed.

#include "runtime.h"

#include <omniORB4/Naming.hh>
#include <pthread.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <utility>

namespace hrpsim {

static Runtime *g_runtime = nullptr;

static void logHandler(hstLog level, const char *msg, void *user) {
  static const char *const names[] = {"debug", "info", "warning", "error"};
  std::fprintf(stderr, "%s: %s: %s\n", static_cast<const char *>(user), names[level], msg);
}

static const char kLoopbackEndpoint[] = "giop:tcp:127.0.0.1:";

bool isLoopbackEndpoint(const std::string &endpoint) {
  static const char tcp[] = "giop:tcp:";
  if (endpoint.rfind("giop:unix:", 0) == 0) {
    return true;
  }
  if (endpoint.rfind(tcp, 0) != 0) {
    return false;  // ssl, other transports: treat as exposed
  }
  std::string rest = endpoint.substr(sizeof tcp - 1);
  std::string host;
  if (!rest.empty() && rest[0] == '[') {
    size_t close = rest.find(']');
    if (close == std::string::npos) {
      return false;
    }
    host = rest.substr(1, close - 1);
  } else {
    size_t colon = rest.rfind(':');
    host = colon == std::string::npos ? rest : rest.substr(0, colon);
  }
  return host == "127.0.0.1" || host == "::1" || strcasecmp(host.c_str(), "localhost") == 0;
}

bool makeSocketDir(std::string *dir, std::string *why) {
  // the candidates: under the user's runtime directory, else a per-uid directory in /tmp
  std::vector<std::string> candidates;
  const char *xdg = std::getenv("XDG_RUNTIME_DIR");
  if (xdg && xdg[0] == '/') {
    candidates.push_back(std::string(xdg) + "/hrpsim");
  }
  candidates.push_back("/tmp/hrpsim-" + std::to_string(geteuid()));
  for (size_t i = 0; i < candidates.size(); i++) {
    const std::string &path = candidates[i];
    bool last = i + 1 == candidates.size();
    if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
      if (!last) {
        continue;  // e.g. XDG_RUNTIME_DIR names a directory that does not exist
      }
      *why = "cannot create the unix socket directory " + path + ": " + std::strerror(errno);
      return false;
    }
    // it may have been there before us: it must be a real directory of ours, private
    struct stat st;
    if (lstat(path.c_str(), &st) != 0) {
      *why = "cannot inspect the unix socket directory " + path + ": " + std::strerror(errno);
      return false;
    }
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
      *why = "the unix socket directory " + path + " is " +
             (S_ISLNK(st.st_mode)  ? std::string("a symbolic link")
              : !S_ISDIR(st.st_mode) ? std::string("not a directory")
                                     : "owned by uid " + std::to_string(st.st_uid)) +
             "; remove it, or give -ORBunixTransportDirectory DIR";
      return false;
    }
    if ((st.st_mode & 0777) != 0700 && chmod(path.c_str(), 0700) != 0) {
      *why = "cannot make the unix socket directory " + path + " private: " +
             std::strerror(errno);
      return false;
    }
    *dir = path;
    return true;
  }
  *why = "no unix socket directory";
  return false;
}

// true if argv has the omniORB option `name` (case as omniORB: exact after "-ORB")
static bool hasOption(int argc, char **argv, const char *name, std::vector<std::string> *values) {
  bool found = false;
  for (int i = 1; i + 1 < argc; i++) {
    if (std::strcmp(argv[i], name) == 0) {
      found = true;
      if (values) {
        values->push_back(argv[i + 1]);
      }
    }
  }
  return found;
}

Runtime::Runtime(int &argc, char **argv, const char *program) : program_(program) {
  g_runtime = this;
  hsu_setLogHandler(logHandler, const_cast<char *>(program_.c_str()));
  // the options every server shares leave argv here; the server's own stay
  int kept = 1;
  for (int i = 1; i < argc; i++) {
    if (std::strcmp(argv[i], "--allow-remote-shutdown") == 0) {
      allowRemoteShutdown_ = true;
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  argv[argc] = nullptr;

  // a BodyInfo of a million triangles is tens of megabytes: lift omniORB's 2 MB default
  // (command-line -ORBgiopMaxMsgSize still wins)
  std::vector<std::pair<std::string, std::string>> opts = {{"giopMaxMsgSize", "1073741824"}};
  // the endpoints that will listen: the command line's (or the environment's), else loopback
  std::vector<std::string> listen;
  hasOption(argc, argv, "-ORBendPoint", &listen);
  hasOption(argc, argv, "-ORBendPointNoPublish", &listen);
  if (const char *env = std::getenv("ORBendPoint")) {
    listen.push_back(env);
  }
  if (listen.empty()) {
    listen.push_back(kLoopbackEndpoint);
    opts.push_back({"endPoint", kLoopbackEndpoint});
  }
  bool unixSocket = false;
  for (const std::string &e : listen) {
    exposed_ = exposed_ || !isLoopbackEndpoint(e);
    unixSocket = unixSocket || e.rfind("giop:unix:", 0) == 0;
    endpoints_ += (endpoints_.empty() ? "" : " ") + e;
  }
  // unix sockets in a private per-user directory (omniORB's default is /tmp/omni-<user>,
  // mode 0755, sockets 0777), unless the command line or environment chose
  if (unixSocket && !hasOption(argc, argv, "-ORBunixTransportDirectory", nullptr) &&
      !std::getenv("ORBunixTransportDirectory")) {
    std::string dir, why;
    if (!makeSocketDir(&dir, &why)) {
      std::fprintf(stderr, "%s: cannot start: %s\n", program, why.c_str());
      std::exit(2);
    }
    opts.push_back({"unixTransportDirectory", dir});
  }
  if (unixSocket && !hasOption(argc, argv, "-ORBunixTransportPermission", nullptr) &&
      !std::getenv("ORBunixTransportPermission")) {
    opts.push_back({"unixTransportPermission", "0600"});
  }

  // block the stop signals in this thread and every thread the ORB will start
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  std::unique_ptr<const char *[][2]> table(new const char *[opts.size() + 1][2]);
  for (size_t i = 0; i < opts.size(); i++) {
    table[i][0] = opts[i].first.c_str();
    table[i][1] = opts[i].second.c_str();
  }
  table[opts.size()][0] = table[opts.size()][1] = nullptr;
  orb_ = CORBA::ORB_init(argc, argv, "omniORB4", table.get());
  CORBA::Object_var obj = orb_->resolve_initial_references("RootPOA");
  poa_ = PortableServer::POA::_narrow(obj);
  PortableServer::POAManager_var manager = poa_->the_POAManager();
  manager->activate();
  if (exposed_) {
    hsu_log(hsLOG_INFO, "exposed: listening on %s; shutdown() from clients %s",
            endpoints_.c_str(), allowRemoteShutdown_ ? "allowed (--allow-remote-shutdown)"
                                                     : "refused");
  }
  // the watcher turns a signal into an ORB shutdown
  std::thread([stop]() {
    int sig = 0;
    if (sigwait(&stop, &sig) == 0 && g_runtime) {
      hsu_log(hsLOG_INFO, "signal %d: shutting down", sig);
      g_runtime->shutdown();
    }
  }).detach();
}

Runtime::~Runtime() {
  g_runtime = nullptr;
}

Runtime *Runtime::instance() {
  return g_runtime;
}

static CosNaming::NamingContext_ptr rootContext(CORBA::ORB_ptr orb) {
  CORBA::Object_var obj = orb->resolve_initial_references("NameService");
  CosNaming::NamingContext_var ctx = CosNaming::NamingContext::_narrow(obj);
  if (CORBA::is_nil(ctx)) {
    throw CORBA::OBJECT_NOT_EXIST();
  }
  return ctx._retn();
}

void Runtime::bind(const char *name, CORBA::Object_ptr obj) {
  CosNaming::NamingContext_var ctx = rootContext(orb_);
  CosNaming::Name n;
  n.length(1);
  n[0].id = CORBA::string_dup(name);
  n[0].kind = CORBA::string_dup("");
  ctx->rebind(n, obj);
  std::lock_guard<std::mutex> lock(namesMutex_);
  names_.push_back(name);
  hsu_log(hsLOG_INFO, "bound '%s' in the naming service", name);
}

int Runtime::run() {
  orb_->run();
  unbindNames();  // normally done already by requestShutdown
  orb_->destroy();
  hsu_log(hsLOG_INFO, "stopped");
  return 0;
}

void Runtime::unbindNames() {
  std::vector<std::string> names;
  {
    std::lock_guard<std::mutex> lock(namesMutex_);
    names.swap(names_);
  }
  if (names.empty()) {
    return;
  }
  // best effort: the naming service may be gone already
  try {
    CosNaming::NamingContext_var ctx = rootContext(orb_);
    for (const std::string &name : names) {
      CosNaming::Name n;
      n.length(1);
      n[0].id = CORBA::string_dup(name.c_str());
      n[0].kind = CORBA::string_dup("");
      ctx->unbind(n);
    }
  } catch (const CORBA::Exception &e) {
    hsu_log(hsLOG_WARNING, "could not unbind names: %s", e._name());
  }
}

void Runtime::requestShutdown() {
  if (exposed_ && !allowRemoteShutdown_) {
    hsu_log(hsLOG_WARNING, "shutdown() from a client refused: the server listens on %s (start "
            "it with --allow-remote-shutdown to allow it; SIGTERM stops it)", endpoints_.c_str());
    return;
  }
  shutdown();
}

void Runtime::shutdown() {
  // the hooks run once, whoever asks first (a signal, a client, or both)
  if (!shuttingDown_.exchange(true)) {
    for (const auto &hook : hooks_) {
      hook();
    }
  }
  // unbind while the ORB still runs: once it is shut down, no call leaves the process
  unbindNames();
  orb_->shutdown(false);
}

void Runtime::onShutdown(std::function<void()> hook) {
  hooks_.push_back(std::move(hook));
}

const char *const kCommonUsage =
    "  -ORBInitRef NameService=corbaloc:iiop:HOST:PORT/NameService\n"
    "                        the naming service to bind in (required; `hrpsim up` passes it)\n"
    "  --allow-remote-shutdown\n"
    "                        let clients stop a server that listens beyond 127.0.0.1\n"
    "  -ORBendPoint giop:tcp:ADDR:PORT, -ORBendPoint giop:unix:\n"
    "                        where to listen (repeatable; default: 127.0.0.1 on a free port;\n"
    "                        `hrpsim up` adds a unix socket in a private directory)\n"
    "  other -ORB options    omniORB's (see its documentation)\n"
    "  -h, --help            print this and exit\n";

bool helpRequested(int argc, char **argv, const char *synopsis, const char *options) {
  for (int i = 1; i < argc; i++) {
    if (std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help") == 0) {
      std::printf("usage: %s\n%s%s", synopsis, options, kCommonUsage);
      return true;
    }
  }
  return false;
}

bool noArgumentsLeft(int argc, char **argv, const char *program, const char *synopsis) {
  if (argc <= 1) {
    return true;
  }
  std::fprintf(stderr, "%s: unknown argument '%s'\nusage: %s\n(--help lists the options)\n",
               program, argv[1], synopsis);
  return false;
}

std::string describe(const hsError &err) {
  char buf[1200];
  return hsu_formatError(&err, buf, sizeof buf);
}

char *DiagnosticsServant::lastError() {
  std::lock_guard<std::mutex> lock(lastErrorMutex_);
  CORBA::String_var text = CORBA::string_dup(lastError_.c_str());
  lastError_.clear();
  return text._retn();
}

void DiagnosticsServant::noteRefusal(const std::string &text) {
  std::lock_guard<std::mutex> lock(lastErrorMutex_);
  lastError_ = text;
}

namespace {

// the DiagnosticsServant serving the calling thread's request, or nullptr (not in a request,
// or the servant is no DiagnosticsServant); *hold keeps it alive meanwhile
DiagnosticsServant *servingDiagnostics(PortableServer::ServantBase_var *hold) {
  Runtime *rt = Runtime::instance();
  if (!rt) {
    return nullptr;
  }
  try {
    CORBA::Object_var obj = rt->orb()->resolve_initial_references("POACurrent");
    PortableServer::Current_var current = PortableServer::Current::_narrow(obj);
    if (CORBA::is_nil(current)) {
      return nullptr;
    }
    *hold = current->get_servant();  // get_servant adds a reference; the _var drops it
    return dynamic_cast<DiagnosticsServant *>(hold->in());
  } catch (const PortableServer::Current::NoContext &) {
    return nullptr;  // a log line from outside a request (the run's own thread, say)
  } catch (const CORBA::Exception &) {
    return nullptr;
  }
}

}  // namespace

void logRequestError(const char *operation, const std::string &reason) {
  hsu_log(hsLOG_ERROR, "%s: %s", operation, reason.c_str());
  PortableServer::ServantBase_var hold;
  if (DiagnosticsServant *d = servingDiagnostics(&hold)) {
    d->noteRefusal(std::string(operation) + ": " + reason);
  }
}

void raiseSystemException(const char *operation, const hsError &err) {
  logRequestError(operation, describe(err));
  switch (err.code) {
    case hsE_NOMEM:
      throw CORBA::NO_MEMORY(0, CORBA::COMPLETED_NO);
    case hsE_UNSUPPORTED:
      throw CORBA::NO_IMPLEMENT(0, CORBA::COMPLETED_NO);
    case hsE_ORDER:
      throw CORBA::BAD_INV_ORDER(0, CORBA::COMPLETED_NO);
    case hsE_RUNAWAY:
      // the step was made; a character's state had to be stopped (docs/servers.md, Runaways)
      throw CORBA::BAD_OPERATION(0, CORBA::COMPLETED_YES);
    default:
      throw CORBA::BAD_PARAM(0, CORBA::COMPLETED_NO);
  }
}

void useOneMallocArena() {
#ifdef __GLIBC__
  if (!std::getenv("MALLOC_ARENA_MAX")) {
    mallopt(M_ARENA_MAX, 1);
  }
  if (!std::getenv("MALLOC_MMAP_THRESHOLD_")) {
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);  // fixed: big blocks always mapped on their own
  }
#endif
}

}  // namespace hrpsim
