// runtime.cpp - ORB set-up, naming, and orderly shutdown shared by every server (runtime.h).
//
// SIGINT and SIGTERM are blocked before the ORB starts its threads, so they are delivered only
// to a watcher thread sitting in sigwait, which shuts the ORB down; run() then unbinds the
// names the process registered, so a stopped server never leaves a dead reference behind.

#include "runtime.h"

#include <omniORB4/Naming.hh>
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <thread>

namespace hrpsim {

static Runtime *g_runtime = nullptr;

static void logHandler(hstLog level, const char *msg, void *user) {
  static const char *const names[] = {"debug", "info", "warning", "error"};
  std::fprintf(stderr, "%s: %s: %s\n", static_cast<const char *>(user), names[level], msg);
}

Runtime::Runtime(int &argc, char **argv, const char *program) : program_(program) {
  g_runtime = this;
  hsu_setLogHandler(logHandler, const_cast<char *>(program_.c_str()));
  // block the stop signals in this thread and every thread the ORB will start
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  // a BodyInfo of a million triangles is tens of megabytes: lift omniORB's 2 MB default
  // (command-line -ORBgiopMaxMsgSize still wins)
  static const char *options[][2] = {{"giopMaxMsgSize", "1073741824"}, {nullptr, nullptr}};
  orb_ = CORBA::ORB_init(argc, argv, "omniORB4", options);
  CORBA::Object_var obj = orb_->resolve_initial_references("RootPOA");
  poa_ = PortableServer::POA::_narrow(obj);
  PortableServer::POAManager_var manager = poa_->the_POAManager();
  manager->activate();
  // the watcher turns a signal into an ORB shutdown
  std::thread([stop]() {
    int sig = 0;
    if (sigwait(&stop, &sig) == 0 && g_runtime) {
      hsu_log(hsLOG_INFO, "signal %d: shutting down", sig);
      g_runtime->requestShutdown();
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

std::string describe(const hsError &err) {
  char buf[1200];
  return hsu_formatError(&err, buf, sizeof buf);
}

void logRequestError(const char *operation, const std::string &reason) {
  hsu_log(hsLOG_ERROR, "%s: %s", operation, reason.c_str());
}

void raiseSystemException(const char *operation, const hsError &err) {
  logRequestError(operation, describe(err));
  switch (err.code) {
    case hsE_NOMEM:
      throw CORBA::NO_MEMORY(0, CORBA::COMPLETED_NO);
    case hsE_UNSUPPORTED:
      throw CORBA::NO_IMPLEMENT(0, CORBA::COMPLETED_NO);
    default:
      throw CORBA::BAD_PARAM(0, CORBA::COMPLETED_NO);
  }
}

}  // namespace hrpsim
