// bench_jointspace.c - the joint-space engine's forward dynamics on the sample humanoid: time
// per call of each phase and of a whole step, with the fidelity figures that go with them.
//
//   hrpsim-bench-jointspace [SAMPLES_DIR] [CALLS] [ROUNDS] [CASE]
//
// The humanoid (free root + 30 joints: 36 dofs) at a seeded random configuration and velocity;
// each figure is the best of ROUNDS rounds of CALLS calls (default 20,000 x 5). Fidelity: the
// same robot floating in zero gravity from random joint and root velocities, no torque, 1 s
// at 1 ms and at 0.1 ms: the relative change of its kinetic energy and of its linear momentum
// (both conserved by the dynamics, so what changes is the integrator's first-order error).
// Beside them, hsd_step of the humanoid alone in the air on each engine (torque mode under a PD
// law, and high gain), in microseconds per step (CALLS / 10 steps), and high gain in flight on
// both engines (flightDrift: the centre's drift and the angular momentum about it while the
// limbs swing, both exactly 0 in the dynamics). The last line is JSON.
// CASE (ode-torque, ode-highgain, js-torque, js-highgain) runs that world case alone for CALLS
// steps, once: bench/bench_jointspace.py counts its instructions with callgrind.

#define BENCH_NAME "hrpsim-bench-jointspace"

#include <math.h>
#include <string.h>

#include "dynamics.h"
#include "bench_util.h"

static double rnd(unsigned *s) {
  *s = *s * 1664525u + 1013904223u;
  return (double)(*s >> 8) / (double)(1u << 23) - 1;
}

// the humanoid at a seeded random configuration and velocity
static void randomState(const hsdJsModel *m, hsdJsData *d, unsigned seed) {
  unsigned s = seed;
  double aa[4] = {rnd(&s), rnd(&s), rnd(&s), 2 * rnd(&s)};
  hsu_axisAngleToMat(d->st->rootR, aa);
  for (int k = 0; k < 3; k++) {
    d->st->rootP[k] = rnd(&s);
  }
  for (int j = 0; j < m->nv; j++) {
    d->qvel[j] = rnd(&s);
    if (j >= m->nroot) {
      d->st->q[m->dofLink[j]] = rnd(&s);
    }
  }
}

// linear momentum about the reference point, from the last position and velocity phases
static void momentum(const hsdJsModel *m, const hsdJsData *d, double P[3]) {
  memset(P, 0, 3 * sizeof *P);
  for (int i = 0; i < m->body->nlink; i++) {
    const double *I = d->cinert + 13 * i, *v = d->cvel + 6 * i;
    double hw[3];
    hsu_cross(hw, I + 1, v);
    for (int k = 0; k < 3; k++) {
      P[k] += I[0] * v[3 + k] - hw[k];
    }
  }
}

// relative drift of kinetic energy and linear momentum floating 1 s at dt
static void drift(const hsdJsModel *m, hsdJsData *d, double dt, double *dE, double *dP) {
  randomState(m, d, 3);
  memset(d->g, 0, sizeof d->g);
  double e[2], P0[3], P[3];
  hsd_jsForward(m, d);
  hsd_jsEnergy(m, d, e);
  momentum(m, d, P0);
  double e0 = e[0];
  for (int n = 0; n < (int)lround(1 / dt); n++) {
    hsd_jsStep(m, d, dt);
  }
  hsd_jsForward(m, d);
  hsd_jsEnergy(m, d, e);
  momentum(m, d, P);
  *dE = fabs(e[0] - e0) / e0;
  double dp[3] = {P[0] - P0[0], P[1] - P0[1], P[2] - P0[2]};
  *dP = hsu_norm(dp) / hsu_norm(P0);
  d->g[2] = -9.8;
}

// the gains of link k into pd[0..1] (0, 0 for a link none matches)
static void linkGains(const hsBody *b, int k, double pd[2]) {
  benchPdGains(b->links[k].name, pd);
}

// a world of engine's with the default options and b as its one character, "robot" (not yet
// initialised); the caller frees it
static hsdWorld *robotWorld(const hsBody *b, hstEngine engine) {
  hsdOptions opt;
  hsd_defaultOptions(&opt);
  opt.engine = engine;
  hsError err = {0};
  hsdWorld *w = hsd_makeWorld(&opt, &err);
  check(w ? 0 : -1, &err);
  check(hsd_addCharacter(w, "robot", b, &err), &err);
  return w;
}

// microseconds per hsd_step of the humanoid alone in the air (no floor: neither engine solves
// contacts here), falling under gravity from its initial pose, torque mode under the sample PD
// law holding that pose (torque = 1) or every joint high gain holding it (torque = 0), on
// engine; the best of rounds of steps
static double worldStep(const hsBody *b, hstEngine engine, int torque, int steps, int rounds) {
  double best = 1e30;
  for (int r = 0; r < rounds; r++) {
    hsError err = {0};
    hsdWorld *w = robotWorld(b, engine);
    check(hsd_init(w, &err), &err);
    if (!torque) {
      check(hsd_setAllJointModes(w, 0, hsMODE_HIGH_GAIN, &err), &err);
    }
    const hsBodyState *st = hsd_state(w, 0);
    double *q0 = calloc((size_t)b->nlink, sizeof *q0);
    memcpy(q0, st->q, (size_t)b->nlink * sizeof *q0);
    double t0 = now();
    for (int n = 0; n < steps; n++) {
      for (int k = 1; torque && k < b->nlink; k++) {
        if (hsm_hasOneDofJoint(&b->links[k])) {
          double pd[2];
          linkGains(b, k, pd);
          double u = pd[0] * (q0[k] - st->q[k]) - pd[1] * st->dq[k];
          check(hsd_setJointTorque(w, 0, k, u, &err), &err);
        }
      }
      check(hsd_step(w, &err), &err);
    }
    best = fmin(best, 1e6 * (now() - t0) / steps);
    free(q0);
    hsd_freeWorld(w);
  }
  return best;
}

// centre of mass c, linear momentum P and angular momentum L about c of character 0 of w, from
// its link poses and motions
static void worldMomentum(const hsdWorld *w, double c[3], double P[3], double L[3]) {
  const hsBodyState *st = hsd_state(w, 0);
  const hsBody *b = hsd_characterBody(w, 0);
  double M = 0, x[64][3], vc[64][3];
  memset(c, 0, 3 * sizeof *c);
  memset(P, 0, 3 * sizeof *P);
  memset(L, 0, 3 * sizeof *L);
  for (int k = 0; k < b->nlink && k < 64; k++) {
    const hsdLinkMotion *mk = hsd_linkMotion(w, 0, k);
    double rc[3], wr[3];
    hsu_rotVec(rc, st->linkR + 9 * k, b->links[k].com);
    hsu_cross(wr, mk->w, rc);
    for (int j = 0; j < 3; j++) {
      x[k][j] = st->linkP[3 * k + j] + rc[j];
      vc[k][j] = mk->v[j] + wr[j];
      c[j] += b->links[k].mass * x[k][j];
      P[j] += b->links[k].mass * vc[k][j];
    }
    M += b->links[k].mass;
  }
  for (int j = 0; j < 3; j++) {
    c[j] /= M;
  }
  for (int k = 0; k < b->nlink && k < 64; k++) {
    const double *R = st->linkR + 9 * k;
    double RI[9], RT[9], Iw[9], Iww[3], d[3], dv[3];
    hsu_mulMat(RI, R, b->links[k].inertia);
    hsu_transpose(RT, R);
    hsu_mulMat(Iw, RI, RT);
    hsu_rotVec(Iww, Iw, hsd_linkMotion(w, 0, k)->w);
    for (int j = 0; j < 3; j++) {
      d[j] = x[k][j] - c[j];
    }
    hsu_cross(dv, d, vc[k]);
    for (int j = 0; j < 3; j++) {
      L[j] += Iww[j] + b->links[k].mass * dv[j];
    }
  }
}

// high gain in flight on engine: the humanoid in zero gravity, every joint high gain, every third
// one commanded q = 0.8 sin(2 pi t + k) as angle, velocity and acceleration (OpenHRP's high
// gain) for 1 s at 1 ms, from rest: how far its centre of mass moved [m] (0 exactly) and its
// largest angular momentum about it [N m s] (0 exactly), beside one swinging link's own (the
// scale: link 3's inertia times its angular speed, the largest over the run)
static void flightDrift(const hsBody *b, hstEngine engine, double *dc, double *dL,
                        double *scale) {
  hsError err = {0};
  hsdWorld *w = robotWorld(b, engine);
  double g0[3] = {0, 0, 0}, c0[3], c[3], P[3], L[3];
  check(hsd_setGravity(w, g0, &err), &err);
  for (int k = 1; k < b->nlink; k++) {  // (from the pattern's start: no jump at the first step)
    check(hsd_setJointValue(w, 0, k, 0.8 * (k % 3 == 0) * sin(k), &err), &err);
  }
  check(hsd_setAllJointModes(w, 0, hsMODE_HIGH_GAIN, &err), &err);
  check(hsd_init(w, &err), &err);
  worldMomentum(w, c0, P, L);
  *dc = *dL = *scale = 0;
  for (int i = 1; i <= 1000; i++) {
    for (int k = 1; k < b->nlink; k++) {
      double a = 0.8 * (k % 3 == 0), ph = 2 * HS_PI * i * 0.001 + k, om = 2 * HS_PI;
      check(hsd_setJointValue(w, 0, k, a * sin(ph), &err), &err);
      check(hsd_setJointVelocity(w, 0, k, a * om * cos(ph), &err), &err);
      check(hsd_setJointAcceleration(w, 0, k, -a * om * om * sin(ph), &err), &err);
    }
    check(hsd_step(w, &err), &err);
    worldMomentum(w, c, P, L);
    double d[3] = {c[0] - c0[0], c[1] - c0[1], c[2] - c0[2]};
    *dc = fmax(*dc, hsu_norm(d));
    *dL = fmax(*dL, hsu_norm(L));
    *scale = fmax(*scale, b->links[3].inertia[0] * hsu_norm(hsd_linkMotion(w, 0, 3)->w));
  }
  hsd_freeWorld(w);
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "samples/models";
  int calls = argc > 2 ? atoi(argv[2]) : 20000, rounds = argc > 3 ? atoi(argv[3]) : 5;
  const char *only = argc > 4 ? argv[4] : NULL;  // one world case alone (for callgrind)
  char path[1024];
  snprintf(path, sizeof path, "%s/humanoid/humanoid.wrl", dir);
  hsd_initODE();
  hsError err = {0};
  hsBody *b = hsm_loadVrml(path, NULL, NULL, 0, NULL, &err);
  check(b ? 0 : -1, &err);
  hsdJsModel *m = hsd_makeJsModel(b, &err);
  check(m ? 0 : -1, &err);
  hsdJsData *d = hsd_makeJsData(m, &err);
  check(d ? 0 : -1, &err);
  randomState(m, d, 7);
  if (only) {
    const char *cases[4] = {"ode-highgain", "ode-torque", "js-highgain", "js-torque"};
    for (int c = 0; c < 4; c++) {
      if (strcmp(only, cases[c]) == 0) {
        printf("%s: %.3f us per hsd_step\n", only,
               worldStep(b, c >= 2 ? hsENGINE_JOINT_SPACE : hsENGINE_ODE, c % 2, calls, 1));
      }
    }
    hsd_freeJsData(d);
    hsd_freeJsModel(m);
    hsm_freeBody(b);
    return 0;
  }
  // the phases alone and together, best of the rounds [us per call]
  double best[5] = {1e30, 1e30, 1e30, 1e30, 1e30};
  for (int r = 0; r < rounds; r++) {
    double t0 = now();
    for (int i = 0; i < calls; i++) {
      hsd_jsPosition(m, d);
    }
    double t1 = now();
    for (int i = 0; i < calls; i++) {
      hsd_jsVelocity(m, d);
    }
    double t2 = now();
    for (int i = 0; i < calls; i++) {
      hsd_jsAcceleration(m, d, 0);
    }
    double t3 = now();
    for (int i = 0; i < calls; i++) {
      hsd_jsForward(m, d);
    }
    double t4 = now();
    hsdJsData *s = hsd_makeJsData(m, &err);  // a step moves the state: step a copy's
    check(s ? 0 : -1, &err);
    randomState(m, s, 7);
    double t5 = now();
    for (int i = 0; i < calls; i++) {
      hsd_jsStep(m, s, 1e-4);
    }
    double t6 = now();
    hsd_freeJsData(s);
    double t[5] = {t1 - t0, t2 - t1, t3 - t2, t4 - t3, t6 - t5};
    for (int k = 0; k < 5; k++) {
      best[k] = fmin(best[k], 1e6 * t[k] / calls);
    }
  }
  double e1, p1, e2, p2;
  drift(m, d, 1e-3, &e1, &p1);
  drift(m, d, 1e-4, &e2, &p2);
  int wsteps = calls / 10 > 100 ? calls / 10 : 100;
  double wt[2][2];
  for (int e = 0; e < 2; e++) {
    for (int torque = 0; torque < 2; torque++) {
      wt[e][torque] = worldStep(b, e ? hsENGINE_JOINT_SPACE : hsENGINE_ODE, torque, wsteps,
                                rounds);
    }
  }
  double fc[2], fl[2], fs[2];
  for (int e = 0; e < 2; e++) {
    flightDrift(b, e ? hsENGINE_JOINT_SPACE : hsENGINE_ODE, &fc[e], &fl[e], &fs[e]);
  }
  printf("humanoid: %d dofs, %d links\n", m->nv, b->nlink);
  printf("  position (FK, inertias, CRBA)  %8.3f us\n", best[0]);
  printf("  velocity (RNEA bias)           %8.3f us\n", best[1]);
  printf("  acceleration (LTDL + solve)    %8.3f us\n", best[2]);
  printf("  forward (all three)            %8.3f us\n", best[3]);
  printf("  step (forward + integrate)     %8.3f us\n", best[4]);
  printf("  floating 1 s, zero gravity: energy drift %.3g (1 ms) %.3g (0.1 ms), momentum "
         "drift %.3g (1 ms) %.3g (0.1 ms)\n",
         e1, e2, p1, p2);
  printf("  high gain in flight, zero gravity, limbs swung 1 s (prescribed): centre moved %.2g m "
         "(ODE) %.2g m (joint space); angular momentum at most %.2g N m s (ODE) %.2g N m s "
         "(joint space), a swinging link's own %.2g\n",
         fc[0], fc[1], fl[0], fl[1], fs[1]);
  printf("  hsd_step in the air, torque mode (PD): ODE %.2f us, joint space %.2f us; high gain: "
         "ODE %.2f us, joint space %.2f us\n",
         wt[0][1], wt[1][1], wt[0][0], wt[1][0]);
  printf("{\"world_ode_torque_us\": %.3f, \"world_js_torque_us\": %.3f, "
         "\"world_ode_highgain_us\": %.3f, \"world_js_highgain_us\": %.3f, ",
         wt[0][1], wt[1][1], wt[0][0], wt[1][0]);
  printf("\"nv\": %d, \"position_us\": %.4f, \"velocity_us\": %.4f, \"acceleration_us\": %.4f, "
         "\"forward_us\": %.4f, \"step_us\": %.4f, \"energy_drift_1ms\": %.4g, "
         "\"energy_drift_01ms\": %.4g, \"momentum_drift_1ms\": %.4g, "
         "\"momentum_drift_01ms\": %.4g, \"flight_centre_ode_m\": %.3g, "
         "\"flight_centre_js_m\": %.3g, \"flight_angular_ode\": %.3g, "
         "\"flight_angular_js\": %.3g}\n",
         m->nv, best[0], best[1], best[2], best[3], best[4], e1, e2, p1, p2, fc[0], fc[1], fl[0],
         fl[1]);
  hsd_freeJsData(d);
  hsd_freeJsModel(m);
  hsm_freeBody(b);
  return 0;
}
