// test_servo.c - high-gain and position-given motion: an arm tracking a sinusoid with torques
// checked against an independent recursive Newton-Euler, the humanoid standing and squatting
// (the composite representation against ODE joint motors), momentum in flight, a given root,
// mode switches.

#include "dyn_helpers.h"

//---------------------------------- independent inverse dynamics -------------------------------

// joint torques of a fixed-base tree at (q, dq, ddq) per link under gravity g (acceleration),
// by the textbook recursive Newton-Euler: forward pass of angular velocity/acceleration and
// origin acceleration (the base accelerates with -g), backward pass of forces and moments
static void rnea(const hsBody *b, const double *q, const double *dq, const double *ddq,
                 const double g[3], double *tau) {
  hsError err = {0};
  hsBodyState *st = hsm_makeState(b, &err);
  for (int k = 0; k < b->nlink; k++) {
    st->q[k] = q[k];
  }
  hsm_forwardKinematics(b, st);
  int n = b->nlink;
  double w[64][3], dw[64][3], a[64][3], f[64][3], m[64][3], ax[64][3];
  for (int k = 0; k < n; k++) {
    const hsLink *lk = &b->links[k];
    const double *R = st->linkR + 9 * k;
    double na = hsu_norm(lk->axis), u[3] = {0, 0, 0};
    if (na > 0) {
      for (int j = 0; j < 3; j++) {
        u[j] = lk->axis[j] / na;
      }
    }
    hsu_rotVec(ax[k], R, u);
    if (k == 0) {
      for (int j = 0; j < 3; j++) {
        w[0][j] = dw[0][j] = 0;
        a[0][j] = -g[j];
      }
      continue;
    }
    int p = lk->parent;
    double r[3], x[3], y[3];
    for (int j = 0; j < 3; j++) {
      r[j] = st->linkP[3 * k + j] - st->linkP[3 * p + j];
    }
    // origin acceleration: parent's plus dw x r + w x (w x r)
    hsu_cross(x, dw[p], r);
    hsu_cross(y, w[p], r);
    double z[3];
    hsu_cross(z, w[p], y);
    for (int j = 0; j < 3; j++) {
      a[k][j] = a[p][j] + x[j] + z[j];
    }
    double wz[3];
    hsu_cross(wz, w[p], ax[k]);
    for (int j = 0; j < 3; j++) {
      w[k][j] = w[p][j] + ax[k][j] * dq[k];
      dw[k][j] = dw[p][j] + wz[j] * dq[k] + ax[k][j] * ddq[k];
    }
  }
  for (int k = n - 1; k >= 0; k--) {
    const hsLink *lk = &b->links[k];
    const double *R = st->linkR + 9 * k;
    double rc[3], x[3], y[3], ac[3], RI[9], RT[9], I[9], Idw[3], Iw[3], wIw[3];
    hsu_rotVec(rc, R, lk->com);
    hsu_cross(x, dw[k], rc);
    hsu_cross(y, w[k], rc);
    double z[3];
    hsu_cross(z, w[k], y);
    for (int j = 0; j < 3; j++) {
      ac[j] = a[k][j] + x[j] + z[j];
    }
    hsu_mulMat(RI, R, lk->inertia);
    hsu_transpose(RT, R);
    hsu_mulMat(I, RI, RT);
    hsu_rotVec(Idw, I, dw[k]);
    hsu_rotVec(Iw, I, w[k]);
    hsu_cross(wIw, w[k], Iw);
    double F[3], mc[3];
    for (int j = 0; j < 3; j++) {
      F[j] = lk->mass * ac[j];
    }
    hsu_cross(mc, rc, F);
    for (int j = 0; j < 3; j++) {
      f[k][j] = F[j];
      m[k][j] = Idw[j] + wIw[j] + mc[j];
    }
    for (int c = k + 1; c < n; c++) {
      if (b->links[c].parent != k) {
        continue;
      }
      double r[3], xc[3];
      for (int j = 0; j < 3; j++) {
        r[j] = st->linkP[3 * c + j] - st->linkP[3 * k + j];
      }
      hsu_cross(xc, r, f[c]);
      for (int j = 0; j < 3; j++) {
        f[k][j] += f[c][j];
        m[k][j] += m[c][j] + xc[j];
      }
    }
    tau[k] = k > 0 ? hsu_dot(ax[k], m[k]) : 0;
  }
  hsm_freeState(st);
}

//---------------------------------- arm6 -------------------------------------------------------

// arm6 follows q_j(t) = A_j sin(2 pi f t + phi_j) in high-gain mode for 2 s: after every step
// |q - q_cmd| < 1e-6 rad, and each joint's reported torque matches the recursive Newton-Euler
// of the analytic motion within 5 % of that joint's peak torque. servoMotors selects ODE joint
// motors (constraint forces from ODE's solver) instead of the kinematic representation
// (torques by the library's own inverse dynamics): both must pass. The first `skip` steps are
// left out of the torque comparison: the discrete velocity history starts there, and ODE's
// joints start without constraint drift, so their error correction (ERP 0.2) settles to its
// steady share over some 30 steps (observed: 0.8 % steady error without motors, 1.1 % with).
static void armTracking(int servoMotors, int skip) {
  hsBody *arm = dynLoadSample("arm6/arm6.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(arm);
  CU_ASSERT_EQUAL_FATAL(arm->nlink, 7);
  hsdOptions o;
  hsd_defaultOptions(&o);
  o.servoMotors = servoMotors;
  hsdWorld *w = dynWorld(&o);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "arm", arm, NULL), 0);
  const double A[7] = {0, 0.8, 0.6, 0.7, 1.0, 0.9, 1.2};
  const double phi[7] = {0, 0.3, 1.1, -0.4, 2.0, 0.7, -1.3};
  const double om = 2 * HS_PI * 0.5, dt = 0.001;
  double q[7], dq[7], ddq[7], tau[7], g[3] = {0, 0, -9.8};
  for (int k = 1; k < 7; k++) {
    CU_ASSERT_EQUAL(hsd_setJointValue(w, 0, k, A[k] * sin(phi[k]), NULL), 0);
    CU_ASSERT_EQUAL(hsd_setJointVelocity(w, 0, k, A[k] * om * cos(phi[k]), NULL), 0);
  }
  CU_ASSERT_EQUAL(hsd_setAllJointModes(w, 0, hsMODE_HIGH_GAIN, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  const hsBodyState *st = hsd_state(w, 0);
  double track = 0, err[7] = {0}, peak[7] = {0};
  for (int i = 1; i <= 2000; i++) {
    double t = i * dt;
    for (int k = 1; k < 7; k++) {
      q[k] = A[k] * sin(om * t + phi[k]);
      dq[k] = A[k] * om * cos(om * t + phi[k]);
      ddq[k] = -A[k] * om * om * sin(om * t + phi[k]);
      hsd_setJointValue(w, 0, k, q[k], NULL);
    }
    q[0] = dq[0] = ddq[0] = 0;
    dynSteps(w, 1);
    rnea(arm, q, dq, ddq, g, tau);
    for (int k = 1; k < 7; k++) {
      if (hsd_options(w)->engine == hsENGINE_JOINT_SPACE) {
        // the joint-space engine's rotors (OpenHRP's armature) take their share too
        const hsLink *lk = &arm->links[k];
        tau[k] += lk->rotorInertia * lk->gearRatio * lk->gearRatio * ddq[k];
      }
      track = fmax(track, fabs(st->q[k] - q[k]));
      peak[k] = fmax(peak[k], fabs(tau[k]));
      if (i > skip) {  // the first steps start the discrete velocity history
        err[k] = fmax(err[k], fabs(st->u[k] - tau[k]));
      }
    }
  }
  double worst = 0;
  for (int k = 1; k < 7; k++) {
    worst = fmax(worst, err[k] / peak[k]);
  }
  fprintf(stderr, " [tracking %.2g rad, torque error %.2g %% of peak; peaks (error)", track,
          100 * worst);
  for (int k = 1; k < 7; k++) {
    fprintf(stderr, " %.3g (%.2g)", peak[k], err[k]);
  }
  fprintf(stderr, " N m] ");
  CU_ASSERT(track < 1e-6);
  CU_ASSERT(worst < 0.05);
  hsd_freeWorld(w);
  hsm_freeBody(arm);
}

static void testArmTracking(void) {
  armTracking(0, 2);
}

static void testArmTrackingMotors(void) {
  armTracking(1, 50);
}

// the wrist force sensor of the arm held still: the wrench J6 exerts on J5 is J6's weight
// (0.3 kg at 0.04 m above the joint, sensor at 0.02 m): F = (0, 0, -2.94) N, no moment, in the
// z-up sensor frame; same in both representations (1e-6)
static void testArmWristSensor(void) {
  for (int motors = 0; motors < 2; motors++) {
    hsBody *arm = dynLoadSample("arm6/arm6.wrl");
    CU_ASSERT_PTR_NOT_NULL_FATAL(arm);
    hsdOptions o;
    hsd_defaultOptions(&o);
    o.servoMotors = motors;
    hsdWorld *w = dynWorld(&o);
    hsd_addCharacter(w, "arm", arm, NULL);
    hsd_setAllJointModes(w, 0, hsMODE_HIGH_GAIN, NULL);
    CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
    dynSteps(w, 20);
    int n, s = hsm_sensorById(arm, hsSENSOR_FORCE, 0);
    const double *r = dynSensorReading(w, 0, s, &n);
    CU_ASSERT_EQUAL(n, 6);
    HST_NEAR(r[0], 0, 1e-6);
    HST_NEAR(r[1], 0, 1e-6);
    HST_NEAR(r[2], -0.3 * 9.8, 1e-6);
    for (int j = 3; j < 6; j++) {
      HST_NEAR(r[j], 0, 1e-6);
    }
    hsd_freeWorld(w);
    hsm_freeBody(arm);
  }
}

//---------------------------------- humanoid ---------------------------------------------------

// the humanoid and the floor; robot index 1; on HST_ENGINE's engine (dynWorld), or pinned to o's
static hsdWorld *humanoidWorldOn(const hsdOptions *o, int pinned, hsBody **robot,
                                 hsBody **floor) {
  *robot = dynLoadSample("humanoid/humanoid.wrl");
  *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(*robot);
  CU_ASSERT_PTR_NOT_NULL_FATAL(*floor);
  hsdWorld *w = pinned ? dynWorldOn(o) : dynWorld(o);
  hsd_addCharacter(w, "floor", *floor, NULL);
  hsd_addCharacter(w, "robot", *robot, NULL);
  hsdSurface s = {0.5, 0.5, 0, 0.01};
  CU_ASSERT_EQUAL(hsd_addContactPair(w, 1, -1, 0, -1, &s, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setAllJointModes(w, 1, hsMODE_HIGH_GAIN, NULL), 0);
  return w;
}

// the humanoid and the floor on HST_ENGINE's engine; robot index 1
static hsdWorld *humanoidWorld(const hsdOptions *o, hsBody **robot, hsBody **floor) {
  return humanoidWorldOn(o, 0, robot, floor);
}

// standing in high-gain mode for 10 s with every joint commanded to 0: root drift under 5 mm
// (observed 9e-9 m), joints exactly at 0
static void testHumanoidStanding(void) {
  hsBody *robot, *floor;
  hsdWorld *w = humanoidWorld(NULL, &robot, &floor);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  const hsBodyState *st = hsd_state(w, 1);
  double p0[3], qerr = 0;
  memcpy(p0, st->rootP, sizeof p0);
  for (int i = 0; i < 10000; i++) {
    for (int j = 0; j < robot->njoint; j++) {
      hsd_setJointValue(w, 1, robot->jointLink[j], 0, NULL);
    }
    dynSteps(w, 1);
    for (int k = 1; k < robot->nlink; k++) {
      qerr = fmax(qerr, fabs(st->q[k]));
    }
  }
  double d[3] = {st->rootP[0] - p0[0], st->rootP[1] - p0[1], st->rootP[2] - p0[2]};
  fprintf(stderr, " [root drift %.2g m] ", hsu_norm(d));
  CU_ASSERT(hsu_norm(d) < 5e-3);
  CU_ASSERT(qerr < 1e-12);
  HST_NEAR(st->rootR[0], 1, 1e-6);
  CU_ASSERT_EQUAL(hsd_warningCount(w), 0);
  hsd_freeWorld(w);
  hsm_freeBody(robot);
  hsm_freeBody(floor);
}

// the sum of the ankle force sensors' Fz over its closed form while the humanoid stands still:
// (m - m_feet) g, m_feet the mass of the sensors' links and what is beyond them (the sensors
// carry everything above them). Stands 1.5 s (every joint held at 0: by high-gain commands, or
// in torque mode by the PD gains of testHumanoidTorquePD's controller), returns the smallest and
// largest ratio and the mean over the last second, every step
static void standingAnkleFz(hstStepper stepper, int torque, double *lo, double *hi,
                            double *mean) {
  static const struct {
    const char *frag;
    double p, d;
  } gains[] = {{"LEG_HIP_Y", 1000, 5},  {"LEG_HIP_R", 2000, 10},  {"LEG_HIP_P", 2500, 12},
               {"LEG_KNEE", 2500, 12},  {"LEG_ANKLE_P", 1500, 8}, {"LEG_ANKLE_R", 1200, 6},
               {"CHEST", 1500, 8},      {"NECK", 50, 0.2},        {"ARM_SHOULDER", 300, 0.75},
               {"ARM_ELBOW", 150, 0.4}, {"ARM_WRIST_Y", 5, 0.02}, {"ARM_WRIST", 20, 0.05}};
  hsdOptions o;
  hsd_defaultOptions(&o);
  o.stepper = stepper;
  hsBody *robot, *floor;
  hsdWorld *w = humanoidWorld(&o, &robot, &floor);
  if (torque) {
    CU_ASSERT_EQUAL_FATAL(hsd_setAllJointModes(w, 1, hsMODE_TORQUE, NULL), 0);
  }
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  CU_ASSERT_FATAL(robot->nlink <= 64);
  int fs[2] = {hsm_sensorById(robot, hsSENSOR_FORCE, 0),
               hsm_sensorById(robot, hsSENSOR_FORCE, 1)};
  CU_ASSERT_FATAL(fs[0] >= 0 && fs[1] >= 0);
  // the feet: the sensors' links and their descendants (a link's parent precedes it)
  int below[64] = {0};
  double mFeet = 0;
  for (int k = 0; k < robot->nlink; k++) {
    int p = robot->links[k].parent;
    below[k] = k == robot->sensors[fs[0]].link || k == robot->sensors[fs[1]].link ||
               (p >= 0 && below[p]);
    mFeet += below[k] ? robot->links[k].mass : 0;
  }
  double share = (dynMass(robot) - mFeet) * 9.8;
  double P[64] = {0}, D[64] = {0};
  for (int k = 1; k < robot->nlink; k++) {
    for (size_t g = 0; g < sizeof gains / sizeof gains[0]; g++) {
      if (strstr(robot->links[k].name, gains[g].frag)) {
        P[k] = gains[g].p;
        D[k] = gains[g].d;
        break;
      }
    }
  }
  const hsBodyState *st = hsd_state(w, 1);
  *lo = INFINITY;
  *hi = -INFINITY;
  *mean = 0;
  for (int i = 0; i < 1500; i++) {
    for (int k = 1; k < robot->nlink; k++) {
      if (torque) {
        hsd_setJointTorque(w, 1, k, -P[k] * st->q[k] - D[k] * st->dq[k], NULL);
      } else if (robot->links[k].jointType == hsJOINT_ROTATE) {
        hsd_setJointValue(w, 1, k, 0, NULL);
      }
    }
    dynSteps(w, 1);
    if (i >= 500) {
      int n;
      double r = (dynSensorReading(w, 1, fs[0], &n)[2] + dynSensorReading(w, 1, fs[1], &n)[2]) /
                 share;
      *lo = fmin(*lo, r);
      *hi = fmax(*hi, r);
      *mean += r / 1000;
    }
  }
  CU_ASSERT_EQUAL(hsd_warningCount(w), 0);
  hsd_freeWorld(w);
  hsm_freeBody(robot);
  hsm_freeBody(floor);
}

// the ankle force sensors of the standing humanoid read the weight above them, (m - m_feet) g,
// at every step of a second: within 0.5% in high gain (composite body, inverse dynamics) and in
// torque mode on dWorldStep (joint feedback of an exact solve). On the ODE engine
// (HST_ENGINE=ode) the default stepper (QuickStep, chainIterations) has the right mean (within
// 0.5%) but its steps swing: the iterative solve leaves the chain and the feet vibrating at the
// 1e-6 m level, and a foot that rocks by a few micrometres loses its toe (or heel) contacts for
// a step (dynamics/dynamics_options.c): observed 0.85..1.09 at 12 iterations (0.88..1.09 at 10),
// asserted within 0.8..1.2 (a bound on the known swing, not a closed form). The joint-space
// engine (the default) has no stepper: every case converged, within 0.5%
static void testHumanoidAnkleForce(void) {
  static const struct {
    const char *name;
    hstStepper stepper;
    int torque;
    double tol;
  } cases[] = {{"high gain", hsSTEPPER_AUTO, 0, 0.005},
               {"torque, dWorldStep", hsSTEPPER_WORLD, 1, 0.005},
               {"torque, default stepper", hsSTEPPER_AUTO, 1, 0.2}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    double lo, hi, mean;
    standingAnkleFz(cases[i].stepper, cases[i].torque, &lo, &hi, &mean);
    fprintf(stderr, " [%s: Fz / (m - m_feet) g %.4f..%.4f, mean %.4f] ", cases[i].name, lo, hi,
            mean);
    double tol = dynEngine() == hsENGINE_ODE ? cases[i].tol : 0.005;
    CU_ASSERT(fabs(lo - 1) <= tol);
    CU_ASSERT(fabs(hi - 1) <= tol);
    CU_ASSERT(fabs(mean - 1) <= 0.005);
  }
}

// the humanoid standing in torque mode for 2 s under a PD loop (the gains of
// samples/controllers/pd_controller.py, every joint held at 0), stepped by the ODE engine's
// default automatic stepper (QuickStep with chainIterations: 31 bodies, 150 hinge rows and the
// contacts) and by dWorldStep (exact): the waist within 1 mm of the exact run's, the joints
// within 1e-3 rad, the hinges never more than 0.2 mm apart, the ankle force sensors' mean Fz
// over the last second within 1% of the exact run's. The ODE engine's steppers and statistics
// (hsd_stepStats): on engine "ode" whatever HST_ENGINE says
static void testHumanoidTorquePD(void) {
  static const struct {
    const char *frag;
    double p, d;
  } gains[] = {{"LEG_HIP_Y", 1000, 5},  {"LEG_HIP_R", 2000, 10},  {"LEG_HIP_P", 2500, 12},
               {"LEG_KNEE", 2500, 12},  {"LEG_ANKLE_P", 1500, 8}, {"LEG_ANKLE_R", 1200, 6},
               {"CHEST", 1500, 8},      {"NECK", 50, 0.2},        {"ARM_SHOULDER", 300, 0.75},
               {"ARM_ELBOW", 150, 0.4}, {"ARM_WRIST_Y", 5, 0.02}, {"ARM_WRIST", 20, 0.05}};
  double root[2][3], q[2][64], fz[2], gap[2];
  long quick[2];
  for (int exact = 0; exact < 2; exact++) {
    hsdOptions o;
    hsd_defaultOptions(&o);
    o.engine = hsENGINE_ODE;
    o.stepper = exact ? hsSTEPPER_WORLD : hsSTEPPER_AUTO;
    hsBody *robot, *floor;
    hsdWorld *w = humanoidWorldOn(&o, 1, &robot, &floor);
    CU_ASSERT_EQUAL_FATAL(hsd_setAllJointModes(w, 1, hsMODE_TORQUE, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
    CU_ASSERT_FATAL(robot->nlink <= 64);
    double P[64] = {0}, D[64] = {0};
    for (int k = 1; k < robot->nlink; k++) {
      for (size_t g = 0; g < sizeof gains / sizeof gains[0]; g++) {
        if (strstr(robot->links[k].name, gains[g].frag)) {
          P[k] = gains[g].p;
          D[k] = gains[g].d;
          break;
        }
      }
    }
    int fs[2] = {hsm_sensorById(robot, hsSENSOR_FORCE, 0),
                 hsm_sensorById(robot, hsSENSOR_FORCE, 1)};
    const hsBodyState *st = hsd_state(w, 1);
    fz[exact] = gap[exact] = 0;
    for (int i = 0; i < 2000; i++) {
      for (int k = 1; k < robot->nlink; k++) {
        hsd_setJointTorque(w, 1, k, -P[k] * st->q[k] - D[k] * st->dq[k], NULL);
      }
      dynSteps(w, 1);
      hsdStepStats ss;
      hsd_stepStats(w, &ss);
      gap[exact] = fmax(gap[exact], ss.jointGap);
      if (i >= 1000) {
        int n;
        fz[exact] += (dynSensorReading(w, 1, fs[0], &n)[2] + dynSensorReading(w, 1, fs[1], &n)[2]) /
                     (1000 * dynMass(robot) * 9.8);
      }
    }
    hsdStepStats ss;
    hsd_stepStats(w, &ss);
    quick[exact] = ss.quickSteps;
    memcpy(root[exact], st->rootP, sizeof root[exact]);
    memcpy(q[exact], st->q, (size_t)robot->nlink * sizeof(double));
    CU_ASSERT_EQUAL(hsd_warningCount(w), 0);
    hsd_freeWorld(w);
    if (exact) {
      double d[3] = {root[0][0] - root[1][0], root[0][1] - root[1][1], root[0][2] - root[1][2]};
      double qd = 0;
      for (int k = 1; k < robot->nlink; k++) {
        qd = fmax(qd, fabs(q[0][k] - q[1][k]));
      }
      fprintf(stderr, " [QuickStep %ld of 2000 steps: waist %.2g m from dWorldStep's, joints "
              "%.2g rad, hinge gap %.2g m (exact %.2g), mean Fz/mg %.4f (exact %.4f)] ", quick[0],
              hsu_norm(d), qd, gap[0], gap[1], fz[0], fz[1]);
      CU_ASSERT(quick[0] >= 1990);
      CU_ASSERT_EQUAL(quick[1], 0);
      CU_ASSERT(hsu_norm(d) < 1e-3);
      CU_ASSERT(qd < 1e-3);
      CU_ASSERT(gap[0] < 2e-4);
      CU_ASSERT(fabs(fz[0] - fz[1]) < 0.01 * fz[1]);
    }
    hsm_freeBody(robot);
    hsm_freeBody(floor);
  }
}

// knee bend: hip pitch -a s, knee 2 a s, ankle pitch -a s with s = (1 - cos(2 pi t / T)) / 2
static double squat(const hsBody *robot, int link, double t) {
  const char *name = robot->links[link].name;
  double s = 0.5 * (1 - cos(2 * HS_PI * t / 1.5)), a = 0.35;
  if (strstr(name, "HIP_P")) {
    return -a * s;
  }
  if (strstr(name, "KNEE")) {
    return 2 * a * s;
  }
  if (strstr(name, "ANKLE_P")) {
    return -a * s;
  }
  if (strstr(name, "SHOULDER_P")) {
    return -1.2 * s;  // arms forward, to move the centre of mass
  }
  return 0;
}

// the same squat with the composite representation and with ODE joint motors: the root follows
// the same path (within 1 mm), the ankle force sensors' sum agrees within 2 % of the weight. Two
// representations of the ODE engine (servoMotors): on engine "ode" whatever HST_ENGINE says
static void testHumanoidSquatCrossCheck(void) {
  double root[2][3], fz[2][2];
  for (int motors = 0; motors < 2; motors++) {
    hsdOptions o;
    hsd_defaultOptions(&o);
    o.engine = hsENGINE_ODE;
    o.servoMotors = motors;
    hsBody *robot, *floor;
    hsdWorld *w = humanoidWorldOn(&o, 1, &robot, &floor);
    CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
    for (int i = 1; i <= 750; i++) {  // down to the deepest point
      for (int k = 1; k < robot->nlink; k++) {
        hsd_setJointValue(w, 1, k, squat(robot, k, i * 0.001), NULL);
      }
      dynSteps(w, 1);
    }
    const hsBodyState *st = hsd_state(w, 1);
    memcpy(root[motors], st->rootP, sizeof root[motors]);
    for (int f = 0; f < 2; f++) {
      int n;
      fz[motors][f] = dynSensorReading(w, 1, hsm_sensorById(robot, hsSENSOR_FORCE, f), &n)[2];
    }
    CU_ASSERT_EQUAL(hsd_warningCount(w), 0);
    double mg = dynMass(robot) * 9.8;
    for (int f = 0; f < 2; f++) {
      fz[motors][f] /= mg;
    }
    hsd_freeWorld(w);
    hsm_freeBody(robot);
    hsm_freeBody(floor);
  }
  double d[3] = {root[0][0] - root[1][0], root[0][1] - root[1][1], root[0][2] - root[1][2]};
  fprintf(stderr, " [root %.4f %.4f vs %.4f %.4f: %.2g m; Fz/mg %.4f %.4f vs %.4f %.4f] ",
          root[0][0], root[0][2], root[1][0], root[1][2], hsu_norm(d), fz[0][0], fz[0][1],
          fz[1][0], fz[1][1]);
  CU_ASSERT(hsu_norm(d) < 1e-3);
  CU_ASSERT(root[0][2] < 0.79);  // it did squat (3.6 cm)
  // the split between two flat feet is statically indeterminate (each solver picks one); the
  // sum is not
  HST_NEAR(fz[0][0] + fz[0][1], fz[1][0] + fz[1][1], 0.02);
  for (int f = 0; f < 2; f++) {
    CU_ASSERT(fz[0][f] > 0.3 && fz[1][f] > 0.3);
  }
}

// in zero gravity without contacts, swinging arms and legs cannot move the centre of mass or
// change the angular momentum (the composite representation carries them exactly: 1e-9)
static void testMomentumInFlight(void) {
  hsBody *robot = dynLoadSample("humanoid/humanoid.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(robot);
  hsdWorld *w = dynWorld(NULL);
  double zero[3] = {0, 0, 0};
  hsd_setGravity(w, zero, NULL);
  hsd_addCharacter(w, "robot", robot, NULL);
  hsd_setAllJointModes(w, 0, hsMODE_HIGH_GAIN, NULL);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  double M = dynMass(robot), c0[3] = {0, 0, 0};
  for (int k = 0; k < robot->nlink; k++) {
    double c[3];
    dynCom(w, 0, k, c);
    for (int j = 0; j < 3; j++) {
      c0[j] += robot->links[k].mass * c[j] / M;
    }
  }
  double cerr = 0, lmax = 0;
  for (int i = 1; i <= 1000; i++) {
    for (int k = 1; k < robot->nlink; k++) {
      hsd_setJointValue(w, 0, k, 0.8 * sin(2 * HS_PI * i * 0.001 + k) * (k % 3 == 0), NULL);
    }
    dynSteps(w, 1);
    double c[3] = {0, 0, 0};
    for (int k = 0; k < robot->nlink; k++) {
      double ck[3];
      dynCom(w, 0, k, ck);
      for (int j = 0; j < 3; j++) {
        c[j] += robot->links[k].mass * ck[j] / M;
      }
    }
    double d[3] = {c[0] - c0[0], c[1] - c0[1], c[2] - c0[2]};
    cerr = fmax(cerr, hsu_norm(d));
  }
  // the root turned (the arms' reaction) while the centre stayed
  lmax = acos(fmin(1, hsd_state(w, 0)->rootR[0]));
  fprintf(stderr, " [centre moved %.2g m; root turned %.3g rad] ", cerr, lmax);
  CU_ASSERT(cerr < 1e-6);
  hsd_freeWorld(w);
  hsm_freeBody(robot);
}

// a position-given root follows its commanded pose exactly, children follow by FK
static void testGivenRoot(void) {
  hsBody *robot, *floor;
  hsdWorld *w = humanoidWorld(NULL, &robot, &floor);
  CU_ASSERT_EQUAL(hsd_setPositionGiven(w, 1, 0, 1, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  const hsBodyState *st = hsd_state(w, 1);
  double perr = 0;
  for (int i = 1; i <= 500; i++) {
    double t = i * 0.001, a = 0.5 * t;
    double p[3] = {0.2 * t, 0, 0.9 + 0.05 * sin(t)}, R[9] = {cos(a), -sin(a), 0, sin(a), cos(a),
                                                              0, 0, 0, 1};
    CU_ASSERT_EQUAL(hsd_setLinkPose(w, 1, 0, p, R, NULL), 0);
    dynSteps(w, 1);
    for (int j = 0; j < 3; j++) {
      perr = fmax(perr, fabs(st->rootP[j] - p[j]));
    }
    for (int j = 0; j < 9; j++) {
      perr = fmax(perr, fabs(st->rootR[j] - R[j]));
    }
  }
  const hsdLinkMotion *m = hsd_linkMotion(w, 1, 0);
  HST_NEAR(m->v[0], 0.2, 1e-6);
  HST_NEAR(m->w[2], 0.5, 1e-6);
  CU_ASSERT(perr < 1e-12);
  // a foot is where FK puts it
  int foot = hsm_linkIndex(robot, "RLEG_ANKLE_R");
  HST_NEAR(st->linkP[3 * foot + 2], st->rootP[2] - 0.74, 1e-9);  // ankle 0.74 below the waist
  hsd_freeWorld(w);
  hsm_freeBody(robot);
  hsm_freeBody(floor);
}

// switching modes mid-run: high gain holds, torque mode lets the arm fall, high gain catches it
// where it is
static void testModeSwitch(void) {
  hsBody *arm = dynLoadSample("arm6/arm6.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(arm);
  hsdWorld *w = dynWorld(NULL);
  hsd_addCharacter(w, "arm", arm, NULL);
  hsd_setJointValue(w, 0, 2, 0.5, NULL);
  hsd_setAllJointModes(w, 0, hsMODE_HIGH_GAIN, NULL);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  const hsBodyState *st = hsd_state(w, 0);
  dynSteps(w, 100);
  HST_NEAR(st->q[2], 0.5, 1e-12);
  CU_ASSERT(st->u[2] < -1);  // holding the arm against gravity (leaning towards +x)
  CU_ASSERT_EQUAL(hsd_setJointMode(w, 0, 2, hsMODE_TORQUE, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setJointTorque(w, 0, 2, 0, NULL), 0);
  dynSteps(w, 100);
  double q = st->q[2];
  CU_ASSERT(q > 0.52);  // fell further (about 0.04 rad in 0.1 s)
  CU_ASSERT_EQUAL(hsd_setJointMode(w, 0, 2, hsMODE_HIGH_GAIN, NULL), 0);
  dynSteps(w, 1);
  double q1 = st->q[2];
  dynSteps(w, 100);
  HST_NEAR(st->q[2], q1, 1e-9);
  CU_ASSERT(fabs(q1 - q) < 0.01);
  hsd_freeWorld(w);
  hsm_freeBody(arm);
}

// angular acceleration from rest of the subtree beyond link j swinging as one rigid body about
// j's axis under gravity g (every other joint held): gravity moment / moment of inertia about
// the axis, from the body's masses and the link poses in st
static double pendulumMoments(const hsBody *b, const hsBodyState *st, int j, double g,
                              double *inertiaOut);

// the inertia [kg m^2] about joint j's axis of the links it carries, at st
static double pendulumInertia(const hsBody *b, const hsBodyState *st, int j) {
  double I = 0;
  pendulumMoments(b, st, j, 9.8, &I);
  return I;
}

static double pendulumAcceleration(const hsBody *b, const hsBodyState *st, int j, double g) {
  return pendulumMoments(b, st, j, g, NULL);
}

// gravity's moment about joint j over the inertia of what it carries (the inertia into
// *inertiaOut when not NULL)
static double pendulumMoments(const hsBody *b, const hsBodyState *st, int j, double g,
                              double *inertiaOut) {
  double n = hsu_norm(b->links[j].axis), u[3], a[3], moment = 0, inertia = 0;
  for (int i = 0; i < 3; i++) {
    u[i] = b->links[j].axis[i] / n;
  }
  hsu_rotVec(a, st->linkR + 9 * j, u);
  int in[64] = {0};
  in[j] = 1;
  for (int k = j + 1; k < b->nlink; k++) {
    in[k] = in[b->links[k].parent];
  }
  for (int k = j; k < b->nlink; k++) {
    if (!in[k]) {
      continue;
    }
    const hsLink *lk = &b->links[k];
    const double *R = st->linkR + 9 * k;
    double d[3], f[3] = {0, 0, -lk->mass * g}, x[3], Ia[3], Iwa[3], ax[3];
    hsu_rotVec(d, R, lk->com);
    for (int i = 0; i < 3; i++) {
      d[i] += st->linkP[3 * k + i] - st->linkP[3 * j + i];
    }
    hsu_cross(x, d, f);
    moment += hsu_dot(a, x);
    hsu_rotVecT(Ia, R, a);  // the axis in the link frame: a^T R I R^T a
    hsu_rotVec(Iwa, lk->inertia, Ia);
    hsu_cross(ax, a, d);
    inertia += hsu_dot(Ia, Iwa) + lk->mass * hsu_dot(ax, ax);
  }
  if (inertiaOut) {
    *inertiaOut = inertia;
  }
  return moment / inertia;
}

// one drive mode per link, as OpenHRP's single high-gain flag: hsd_setAllJointModes and
// hsd_setPositionGiven both write it and the later call wins. J2 ends in torque mode (u = 0)
// while the others hold: its first step accelerates it exactly as the rigid pendulum beyond it
static void testOneModePerLink(void) {
  hsBody *arm = dynLoadSample("arm6/arm6.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(arm);
  CU_ASSERT_FATAL(arm->nlink <= 64);
  for (int order = 0; order < 2; order++) {
    hsdWorld *w = dynWorld(NULL);
    hsd_addCharacter(w, "arm", arm, NULL);
    hsd_setJointValue(w, 0, 2, 0.5, NULL);
    if (order == 0) {
      CU_ASSERT_EQUAL(hsd_setAllJointModes(w, 0, hsMODE_HIGH_GAIN, NULL), 0);
      CU_ASSERT_EQUAL(hsd_setPositionGiven(w, 0, 2, 0, NULL), 0);
    } else {
      CU_ASSERT_EQUAL(hsd_setPositionGiven(w, 0, 2, 1, NULL), 0);
      CU_ASSERT_EQUAL(hsd_setAllJointModes(w, 0, hsMODE_TORQUE, NULL), 0);
      for (int k = 1; k < arm->nlink; k++) {
        CU_ASSERT_EQUAL(hsd_setPositionGiven(w, 0, k, k != 2, NULL), 0);
      }
    }
    for (int k = 1; k < arm->nlink; k++) {
      CU_ASSERT_EQUAL(hsd_jointMode(w, 0, k), k == 2 ? hsMODE_TORQUE : hsMODE_HIGH_GAIN);
      CU_ASSERT_EQUAL(hsd_positionGiven(w, 0, k), k != 2);
      CU_ASSERT_EQUAL(hsd_input(w, 0)->mode[k], hsd_jointMode(w, 0, k));
    }
    // the root is not a joint: hsd_setAllJointModes leaves it alone
    CU_ASSERT_EQUAL(hsd_positionGiven(w, 0, 0), 0);
    CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
    const hsBodyState *st = hsd_state(w, 0);
    double alpha = pendulumAcceleration(arm, st, 2, 9.8);
    if (hsd_options(w)->engine == hsENGINE_JOINT_SPACE) {
      // the joint-space engine's rotor (OpenHRP's armature) on the joint's own inertia
      const hsLink *lk = &arm->links[2];
      double Ir = lk->rotorInertia * lk->gearRatio * lk->gearRatio;
      alpha *= pendulumInertia(arm, st, 2) / (pendulumInertia(arm, st, 2) + Ir);
    }
    CU_ASSERT(alpha > 5);  // a real pull (about 8 rad/s^2)
    dynSteps(w, 1);
    HST_NEAR(st->ddq[2], alpha, 1e-3 * alpha);
    dynSteps(w, 99);
    CU_ASSERT(st->q[2] > 0.5 + 0.9 * 0.5 * alpha * 0.01);  // fell, accelerating
    HST_NEAR(st->u[2], 0, 0);
    for (int k = 1; k < arm->nlink; k++) {
      if (k != 2 && hsm_hasOneDofJoint(&arm->links[k])) {
        HST_NEAR(st->q[k], 0, 1e-12);  // the servos hold
      }
    }
    hsd_freeWorld(w);
  }
  // the root's mode is "position given"
  hsdWorld *w = dynWorld(NULL);
  hsd_addCharacter(w, "arm", arm, NULL);
  CU_ASSERT_EQUAL(hsd_setPositionGiven(w, 0, 0, 1, NULL), 0);
  CU_ASSERT_EQUAL(hsd_jointMode(w, 0, 0), hsMODE_HIGH_GAIN);
  CU_ASSERT_EQUAL(hsd_setAllJointModes(w, 0, hsMODE_TORQUE, NULL), 0);
  CU_ASSERT_EQUAL(hsd_positionGiven(w, 0, 0), 1);
  hsd_freeWorld(w);
  hsm_freeBody(arm);
}

// the state shows where the character is, the input what was commanded: a servo command waits
// in the input until the step carries it out, a teleport of a torque-mode joint is in the state
// at once, an external force shows in the input until the step spends it
static void testStateAndInput(void) {
  hsBody *arm = dynLoadSample("arm6/arm6.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(arm);
  hsdWorld *w = dynWorld(NULL);
  hsd_addCharacter(w, "arm", arm, NULL);
  hsd_setAllJointModes(w, 0, hsMODE_HIGH_GAIN, NULL);
  hsd_setPositionGiven(w, 0, 3, 0, NULL);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  const hsBodyState *st = hsd_state(w, 0);
  const hsdInput *in = hsd_input(w, 0);
  CU_ASSERT_EQUAL(hsd_setJointValue(w, 0, 2, 0.001, NULL), 0);
  HST_NEAR(st->q[2], 0, 0);
  HST_NEAR(in->q[2], 0.001, 0);
  CU_ASSERT_EQUAL(in->flags[2], hsdIN_Q);
  CU_ASSERT_EQUAL(hsd_setJointValue(w, 0, 3, -0.2, NULL), 0);  // torque mode: a teleport
  HST_NEAR(st->q[3], -0.2, 0);
  CU_ASSERT_EQUAL(in->flags[3], 0);
  double f[3] = {1, 2, 3}, t[3] = {4, 5, 6};
  CU_ASSERT_EQUAL(hsd_setExternalForce(w, 0, 4, f, t, NULL), 0);
  HST_NEAR(in->ext[6 * 4 + 5], 6, 0);
  dynSteps(w, 1);
  HST_NEAR(st->q[2], 0.001, 1e-6);  // where the command put it (ODE's joint motor)
  CU_ASSERT(fabs(st->q[3] + 0.2) < 1e-3);  // from where the teleport put it
  CU_ASSERT_EQUAL(in->flags[2], 0);
  CU_ASSERT_EQUAL(in->flags[4], 0);
  for (int k = 0; k < 6; k++) {
    HST_NEAR(in->ext[6 * 4 + k], 0, 0);
  }
  hsd_freeWorld(w);
  hsm_freeBody(arm);
}

void register_servo(void) {
  hsd_initODE();
  CU_pSuite s = hst_addSuite("dynamics_servo");
  CU_add_test(s, "arm6 tracks a sinusoid; torques match RNEA", testArmTracking);
  CU_add_test(s, "the same with ODE joint motors", testArmTrackingMotors);
  CU_add_test(s, "arm6 wrist force sensor", testArmWristSensor);
  CU_add_test(s, "humanoid stands 10 s in high gain", testHumanoidStanding);
  CU_add_test(s, "humanoid stands 2 s in torque mode under PD: QuickStep vs dWorldStep",
              testHumanoidTorquePD);
  CU_add_test(s, "humanoid standing: ankle force sensors read the weight above them every step",
              testHumanoidAnkleForce);
  CU_add_test(s, "humanoid squat: composite vs joint motors", testHumanoidSquatCrossCheck);
  CU_add_test(s, "momentum is conserved in flight", testMomentumInFlight);
  CU_add_test(s, "position-given root", testGivenRoot);
  CU_add_test(s, "mode switches", testModeSwitch);
  CU_add_test(s, "one drive mode per link, the last call wins", testOneModePerLink);
  CU_add_test(s, "commands wait in the input, teleports are state", testStateAndInput);
}
