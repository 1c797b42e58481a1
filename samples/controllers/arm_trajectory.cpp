// arm_trajectory.cpp: a sample OpenHRP Controller in C++ that drives the sample arm
// (samples/models/arm6/arm6.wrl) along a smooth joint trajectory in high-gain mode.
//
//   hrpsim-sample-arm-controller -ORBInitRef NameService=corbaloc:iiop:127.0.0.1:PORT/NameService
//                                [NAME]
//
// It registers an OpenHRP::Controller servant in the naming service under NAME (default
// "ArmController") and serves until SIGINT/SIGTERM or ServerObject::shutdown(), unbinding the
// name on the way out. A scheduler (hrpsim's Scheduler server, or a client of one's own) hands
// it the DynamicsSimulator with setDynamicsSimulator, the character with setModelName and the
// control period with setTimeStep, then calls initialize(), start(), and per period input(),
// control(), output(). initialize() puts every joint of the character in HIGH_GAIN_MODE. The
// k-th control() (k = 1, 2, ...) is called before the physics step that ends at t = k * period,
// and commands, with one setCharacterAllLinkData(JOINT_VALUE), the trajectory's value at that
// time:
//
//   q_j(t) = A_j sin(2 pi f_j t),   A_j = 0.6 - 0.05 j rad,  f_j = 0.25 (1 + j / 4) Hz,
//
// so the arm starts at rest at q = 0 (its initial pose) and every joint sweeps smoothly; a
// high-gain joint lands exactly on its command, so after k steps q_j = q_j(k * period) (the tests
// compute the same numbers). A call that fails (no dynamics yet, bad character) is reported on
// stderr and raised to the caller as CORBA::BAD_INV_ORDER / the dynamics' exception, so the
// scheduler stops the run naming us.

#include <csignal>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include <pthread.h>

#include <omniORB4/CORBA.h>
#include <omniORB4/Naming.hh>

#include "Controller.hh"

namespace {

// unbind our name (once), then stop the ORB: the unbinding must happen while the ORB still runs,
// since after shutdown no call leaves the process
void stopServing();

// the joint trajectory [rad] of joint j at time t [s]
double trajectory(int j, double t) {
  const double amplitude = 0.6 - 0.05 * j;
  const double frequency = 0.25 * (1.0 + j / 4.0);
  return amplitude * std::sin(2.0 * M_PI * frequency * t);
}

class ArmController : public virtual POA_OpenHRP::Controller {
 public:
  explicit ArmController(CORBA::ORB_ptr orb) : orb_(CORBA::ORB::_duplicate(orb)) {}

  void setDynamicsSimulator(OpenHRP::DynamicsSimulator_ptr dynamics) override {
    dynamics_ = OpenHRP::DynamicsSimulator::_duplicate(dynamics);
  }
  void setModelName(const char *name) override { model_ = name; }
  void setViewSimulator(OpenHRP::ViewSimulator_ptr) override {}
  void setTimeStep(CORBA::Double dt) override { dt_ = dt; }

  void initialize() override {
    if (CORBA::is_nil(dynamics_) || model_.empty()) {
      throw OpenHRP::Controller::ControllerException(
          "ArmController: initialize() before setDynamicsSimulator / setModelName");
    }
    if (!(dt_ > 0.0)) {
      throw OpenHRP::Controller::ControllerException("ArmController: no time step given");
    }
    try {
      dynamics_->setCharacterAllJointModes(model_.c_str(),
                                           OpenHRP::DynamicsSimulator::HIGH_GAIN_MODE);
      OpenHRP::DblSequence_var q;
      dynamics_->getCharacterAllLinkData(model_.c_str(), OpenHRP::DynamicsSimulator::JOINT_VALUE,
                                         q.out());
      joints_ = static_cast<int>(q->length());
    } catch (const CORBA::Exception &e) {
      std::string why = std::string("ArmController: character '") + model_ +
                        "' not usable: CORBA " + e._name();
      std::fprintf(stderr, "%s\n", why.c_str());
      throw OpenHRP::Controller::ControllerException(why.c_str());
    }
    calls_ = 0;
    std::fprintf(stderr, "ArmController: driving '%s' (%d joints) every %g s\n", model_.c_str(),
                 joints_, dt_);
  }

  void start() override { calls_ = 0; }

  void control() override {
    if (CORBA::is_nil(dynamics_) || joints_ <= 0) {
      std::fprintf(stderr, "ArmController: control() before initialize()\n");
      throw CORBA::BAD_INV_ORDER(0, CORBA::COMPLETED_NO);
    }
    // the command for the end of the coming step
    ++calls_;
    const double t = calls_ * dt_;
    OpenHRP::DblSequence q;
    q.length(joints_);
    for (int j = 0; j < joints_; ++j) {
      q[j] = trajectory(j, t);
    }
    dynamics_->setCharacterAllLinkData(model_.c_str(), OpenHRP::DynamicsSimulator::JOINT_VALUE,
                                       q);
  }

  void input() override {}
  void output() override {}
  void stop() override {}
  void destroy() override {}
  void shutdown() override { stopServing(); }

 private:
  CORBA::ORB_var orb_;
  OpenHRP::DynamicsSimulator_var dynamics_;
  std::string model_;
  double dt_ = 0.0;
  int joints_ = 0;
  long calls_ = 0;
};

CosNaming::Name nameOf(const char *text) {
  CosNaming::Name n;
  n.length(1);
  n[0].id = CORBA::string_dup(text);
  n[0].kind = CORBA::string_dup("");
  return n;
}

CORBA::ORB_var g_orb;
CosNaming::NamingContext_var g_naming;
std::string g_name;
std::once_flag g_stopOnce;

void stopServing() {
  std::call_once(g_stopOnce, []() {
    try {
      g_naming->unbind(nameOf(g_name.c_str()));
    } catch (const CORBA::Exception &) {
      // the naming service may be gone already
    }
    g_orb->shutdown(false);
  });
}

}  // namespace

int main(int argc, char **argv) {
  // SIGINT/SIGTERM go to one watcher thread only, which stops the ORB
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  try {
    // listen on loopback unless the command line or environment names an endpoint (omniORB
    // alone would listen on every interface)
    bool endpointGiven = std::getenv("ORBendPoint") != nullptr;
    for (int i = 1; i < argc; i++) {
      endpointGiven = endpointGiven || std::strcmp(argv[i], "-ORBendPoint") == 0;
    }
    static const char *loopback[][2] = {{"endPoint", "giop:tcp:127.0.0.1:"}, {nullptr, nullptr}};
    static const char *asGiven[][2] = {{nullptr, nullptr}};
    CORBA::ORB_var orb =
        CORBA::ORB_init(argc, argv, "omniORB4", endpointGiven ? asGiven : loopback);
    const char *name = argc > 1 ? argv[1] : "ArmController";
    CORBA::Object_var obj = orb->resolve_initial_references("RootPOA");
    PortableServer::POA_var poa = PortableServer::POA::_narrow(obj);
    PortableServer::POAManager_var manager = poa->the_POAManager();
    manager->activate();

    ArmController *servant = new ArmController(orb);
    PortableServer::ObjectId_var oid = poa->activate_object(servant);
    servant->_remove_ref();
    CORBA::Object_var ref = poa->id_to_reference(oid);

    CORBA::Object_var nsObj = orb->resolve_initial_references("NameService");
    CosNaming::NamingContext_var ns = CosNaming::NamingContext::_narrow(nsObj);
    if (CORBA::is_nil(ns)) {
      std::fprintf(stderr, "hrpsim-sample-arm-controller: NameService is not a naming context\n");
      return 1;
    }
    ns->rebind(nameOf(name), ref);
    g_orb = CORBA::ORB::_duplicate(orb);
    g_naming = CosNaming::NamingContext::_duplicate(ns);
    g_name = name;
    std::printf("hrpsim-sample-arm-controller: bound '%s'\n", name);
    std::fflush(stdout);

    std::thread([stop]() {
      int sig = 0;
      if (sigwait(&stop, &sig) == 0) {
        stopServing();
      }
    }).detach();
    orb->run();
    // references are released before the ORB goes (stopServing has run: nothing uses them)
    g_naming = CosNaming::NamingContext::_nil();
    g_orb = CORBA::ORB::_nil();
    orb->destroy();
    return 0;
  } catch (const CORBA::Exception &e) {
    std::fprintf(stderr, "hrpsim-sample-arm-controller: CORBA %s (is the naming service given "
                 "with -ORBInitRef NameService=...?)\n", e._name());
    return 1;
  }
}
