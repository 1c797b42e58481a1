// model_ik.c - inverse kinematics of one link relative to another (OpenHRP's
// calcCharacterInverseKinematics): damped least squares on the joints of the path.
//
// The base link keeps its world pose: after every change of q the body is placed again by
// forward kinematics from the root, then the root is moved by the rigid motion that brings the
// base back to where it was, and the kinematics run once more (no move is needed when the base
// is the root). Each iteration is a Levenberg-Marquardt step on the 6-vector error (position,
// then rotation vector, world frame): (J^T J + lambda I) dq = J^T e, or in the 6 x 6 form
// dq = J^T (J J^T + lambda I)^-1 e when the path has more than six joints; a step that lowers
// |e| is kept and lambda follows how well the linear model predicted the decrease (Nielsen's
// rule), otherwise the step is undone and lambda grows geometrically. Joint limits are
// honoured by clamping each step and by freezing, for that step, joints that sit on a limit and
// would be pushed through it. On failure every value the solver touched is restored from a copy
// taken on entry, so the state is bit for bit what it was.

#include <math.h>
#include <string.h>

#include "model.h"

// the scratch arrays of one solve, carved from one block sized by hsm_ikWorkSize
typedef struct Work {
  double *saveP, *saveR;  // link poses on entry, for an exact restore
  double *q0;             // q of the path joints on entry
  double *qPrev;          // q of the path joints before the trial step
  double *J;              // 6 x n Jacobian, row-major
  double *dq;             // step
  double *g;              // J^T e (n <= 6)
  double *A;              // normal matrix, at most 6 x 6
  double *y;              // 6-form solution
  int *links, *signs, *frozen;
} Work;

// doubles and ints a work block holds for a body of nlink links
static size_t workDoubles(int nlink) {
  return (size_t)nlink * (3 + 9 + 6 + 4) + 36 + 6;
}

size_t hsm_ikWorkSize(const hsBody *body) {
  if (!body) {
    return 0;
  }
  return workDoubles(body->nlink) * sizeof(double) + (size_t)body->nlink * 3 * sizeof(int);
}

static void layoutWork(Work *w, void *mem, int nlink) {
  double *d = mem;
  size_t nl = (size_t)nlink;
  w->saveP = d, d += 3 * nl;
  w->saveR = d, d += 9 * nl;
  w->J = d, d += 6 * nl;
  w->q0 = d, d += nl;
  w->qPrev = d, d += nl;
  w->dq = d, d += nl;
  w->g = d, d += nl;
  w->A = d, d += 36;
  w->y = d, d += 6;
  int *ip = (int *)d;
  w->links = ip, ip += nl;
  w->signs = ip, ip += nl;
  w->frozen = ip;
}

void hsm_defaultIkOptions(hsmIkOptions *opt) {
  opt->maxIterations = 200;
  opt->tolPosition = 1e-6;
  opt->tolRotation = 1e-6;
  opt->damping = 1e-3;
  opt->minDamping = 1e-12;
  opt->maxDamping = 1e8;
  opt->maxStep = 0.5;
  opt->useLimits = 1;
}

// rotation vector (axis * angle, angle in [0, pi]) of R
static void rotationVector(double w[3], const double R[9]) {
  double c = (R[0] + R[4] + R[8] - 1) / 2;
  double v[3] = {R[7] - R[5], R[2] - R[6], R[3] - R[1]};  // 2 sin(angle) axis
  double s = hsu_norm(v);
  if (c > -0.5) {
    // away from pi the antisymmetric part gives axis and angle accurately; angle/s -> 1/2
    double f = s < 1e-12 ? 0.5 : atan2(s / 2, c) / s;
    for (int k = 0; k < 3; k++) {
      w[k] = f * v[k];
    }
    return;
  }
  double aa[4];
  hsu_matToAxisAngle(aa, R);
  for (int k = 0; k < 3; k++) {
    w[k] = aa[k] * aa[3];
  }
}

// replace R (a rotation up to small errors) by its nearest rotation: Newton's iteration for
// the polar factor, R <- (R + R^-T) / 2
static void orthonormalize(double R[9]) {
  for (int it = 0; it < 8; it++) {
    double A[9];  // adjugate: R^-T = A^T / det
    double det = hsu_adjugate3(R, A);
    for (int k = 0; k < 9; k++) {
      R[k] = (R[k] + A[3 * (k % 3) + k / 3] / det) / 2;
    }
  }
}

// error of target against the goal: e = (p - p_target, rotation vector of R R_target^T),
// world frame; returns |e|^2 and sets the two norms
static double poseError(const hsBodyState *st, int target, const double p[3], const double R[9],
                        double e[6], double *errP, double *errR) {
  const double *pt = st->linkP + 3 * target, *Rt = st->linkR + 9 * target;
  double RtT[9], D[9];
  for (int k = 0; k < 3; k++) {
    e[k] = p[k] - pt[k];
  }
  hsu_transpose(RtT, Rt);
  hsu_mulMat(D, R, RtT);
  rotationVector(e + 3, D);
  *errP = hsu_norm(e);
  *errR = hsu_norm(e + 3);
  return *errP * *errP + *errR * *errR;
}

// forward kinematics, then move the root rigidly so the base link is back at (pb, Rb)
static void placeBody(const hsBody *body, hsBodyState *st, int base, const double pb[3],
                      const double Rb[9]) {
  hsm_forwardKinematics(body, st);
  const double *p = st->linkP + 3 * base, *R = st->linkR + 9 * base;
  if (memcmp(p, pb, 3 * sizeof(double)) == 0 && memcmp(R, Rb, 9 * sizeof(double)) == 0) {
    return;  // the base is where it belongs (always so for base = root)
  }
  // G = (pb, Rb) * (p, R)^-1 applied to the root
  double RT[9], GR[9], rootR[9], d[3], t[3];
  hsu_transpose(RT, R);
  hsu_mulMat(GR, Rb, RT);
  hsu_mulMat(rootR, GR, st->rootR);
  for (int k = 0; k < 3; k++) {
    d[k] = st->rootP[k] - p[k];
  }
  hsu_rotVec(t, GR, d);
  for (int k = 0; k < 3; k++) {
    st->rootP[k] = pb[k] + t[k];
  }
  memcpy(st->rootR, rootR, sizeof rootR);
  hsm_forwardKinematics(body, st);
}

// solve the m x m symmetric positive definite system A x = b in place (Cholesky; A's lower
// triangle is overwritten, b becomes x); returns 0, or -1 if A is not positive definite
static int choleskySolve(double *A, double *b, int m) {
  for (int j = 0; j < m; j++) {
    double s = A[j * m + j];
    for (int k = 0; k < j; k++) {
      s -= A[j * m + k] * A[j * m + k];
    }
    if (!(s > 0)) {
      return -1;
    }
    A[j * m + j] = sqrt(s);
    for (int i = j + 1; i < m; i++) {
      double t = A[i * m + j];
      for (int k = 0; k < j; k++) {
        t -= A[i * m + k] * A[j * m + k];
      }
      A[i * m + j] = t / A[j * m + j];
    }
  }
  // L z = b, then L^T x = z
  for (int i = 0; i < m; i++) {
    for (int k = 0; k < i; k++) {
      b[i] -= A[i * m + k] * b[k];
    }
    b[i] /= A[i * m + i];
  }
  for (int i = m - 1; i >= 0; i--) {
    for (int k = i + 1; k < m; k++) {
      b[i] -= A[k * m + i] * b[k];
    }
    b[i] /= A[i * m + i];
  }
  return 0;
}

// the damped least-squares step for the unfrozen joints; returns 0 or -1 on a failed solve
static int dampedStep(Work *w, int n, const double e[6], double lambda) {
  const double *J = w->J;
  if (n <= 6) {
    // (J^T J + lambda I) dq = J^T e over the unfrozen columns; frozen ones get dq = 0
    for (int i = 0; i < n; i++) {
      for (int k = 0; k <= i; k++) {
        double s = 0;
        if (!w->frozen[i] && !w->frozen[k]) {
          for (int r = 0; r < 6; r++) {
            s += J[r * n + i] * J[r * n + k];
          }
        }
        w->A[i * n + k] = w->A[k * n + i] = s + (i == k ? lambda : 0);
      }
      double g = 0;
      for (int r = 0; r < 6 && !w->frozen[i]; r++) {
        g += J[r * n + i] * e[r];
      }
      w->dq[i] = g;
    }
    return choleskySolve(w->A, w->dq, n);
  }
  // (J J^T + lambda I) y = e, dq = J^T y, frozen columns left out of J
  for (int r = 0; r < 6; r++) {
    for (int s = 0; s <= r; s++) {
      double a = 0;
      for (int j = 0; j < n; j++) {
        if (!w->frozen[j]) {
          a += J[r * n + j] * J[s * n + j];
        }
      }
      w->A[r * 6 + s] = w->A[s * 6 + r] = a + (r == s ? lambda : 0);
    }
    w->y[r] = e[r];
  }
  if (choleskySolve(w->A, w->y, 6)) {
    return -1;
  }
  for (int j = 0; j < n; j++) {
    double s = 0;
    for (int r = 0; r < 6 && !w->frozen[j]; r++) {
      s += J[r * n + j] * w->y[r];
    }
    w->dq[j] = s;
  }
  return 0;
}

// the lower and upper limits of link l's joint (infinite where the model gives none)
static void jointLimits(const hsLink *l, int useLimits, double *lo, double *hi) {
  *lo = -HUGE_VAL;
  *hi = HUGE_VAL;
  if (useLimits && l->llimit.n > 0) {
    *lo = l->llimit.v[0];
  }
  if (useLimits && l->ulimit.n > 0) {
    *hi = l->ulimit.v[0];
  }
}

// a step with limits: dq for the current lambda with the joints that sit on a limit and would
// be pushed through it frozen, scaled to at most maxStep per joint; returns 0 or -1
static int limitedStep(const hsBody *body, const hsBodyState *st, Work *w, int n,
                       const double e[6], double lambda, const hsmIkOptions *opt) {
  for (int j = 0; j < n; j++) {
    w->frozen[j] = 0;
  }
  // each pass freezes at least one more joint or ends the loop
  for (int pass = 0; pass <= n; pass++) {
    if (dampedStep(w, n, e, lambda)) {
      return -1;
    }
    int more = 0;
    for (int j = 0; j < n; j++) {
      const hsLink *l = &body->links[w->links[j]];
      double lo, hi, q = st->q[w->links[j]];
      jointLimits(l, opt->useLimits, &lo, &hi);
      if (!w->frozen[j] && ((q >= hi && w->dq[j] > 0) || (q <= lo && w->dq[j] < 0))) {
        w->frozen[j] = 1;
        more = 1;
      }
    }
    if (!more) {
      break;
    }
  }
  double big = 0;
  for (int j = 0; j < n; j++) {
    big = fmax(big, fabs(w->dq[j]));
  }
  if (!isfinite(big)) {
    return -1;
  }
  if (big > opt->maxStep) {
    for (int j = 0; j < n; j++) {
      w->dq[j] *= opt->maxStep / big;
    }
  }
  return 0;
}

// q += dq, clamped so that no joint moves through a limit (a joint already outside its limits
// may move back towards them but not further out)
static void applyStep(const hsBody *body, hsBodyState *st, const Work *w, int n,
                      const hsmIkOptions *opt) {
  for (int j = 0; j < n; j++) {
    int li = w->links[j];
    double lo, hi, q = st->q[li], next = q + w->dq[j];
    jointLimits(&body->links[li], opt->useLimits, &lo, &hi);
    if (w->dq[j] > 0 && next > hi) {
      next = fmax(hi, q);
    } else if (w->dq[j] < 0 && next < lo) {
      next = fmin(lo, q);
    }
    st->q[li] = next;
  }
}

// check the arguments of hsm_inverseKinematics; returns 0 or an error code
static int checkIkArgs(const hsBody *body, const hsBodyState *state, int base, int target,
                       const double p[3], const double R[9], const hsmIkOptions *opt,
                       hsError *err) {
  if (!body || !state || !p || !R) {
    return HS_ERR(err, hsE_INVALID, "inverse kinematics: missing body, state or target pose");
  }
  if (base < 0 || base >= body->nlink || target < 0 || target >= body->nlink) {
    return HS_ERR(err, hsE_INVALID,
                  "inverse kinematics: link index out of range (base %d, target %d)", base,
                  target);
  }
  double T[12], t0[3] = {0, 0, 0};
  hsu_makeTransform(T, R, t0);
  if (!hsu_allFinite(p, 3) || !hsu_allFinite(R, 9) || !hsu_isRigid(T, 1e-3)) {
    return HS_ERR(err, hsE_INVALID, "inverse kinematics: target pose is not finite or R is "
                                    "not a rotation");
  }
  if (opt->maxIterations < 0 || !(opt->tolPosition > 0) || !(opt->tolRotation > 0) ||
      !(opt->damping > 0) || !(opt->minDamping > 0) || !(opt->maxDamping >= opt->damping) ||
      !(opt->maxStep > 0)) {
    return HS_ERR(err, hsE_INVALID, "inverse kinematics: invalid options");
  }
  return 0;
}

// the Levenberg-Marquardt loop; returns 1 when the goal is reached within tolerance, else 0
static int solve(const hsBody *body, hsBodyState *st, Work *w, int n, int base, int target,
                 const double pb[3], const double Rb[9], const double p[3], const double R[9],
                 const hsmIkOptions *opt) {
  double e[6], et[6], errP, errR;
  double cost = poseError(st, target, p, R, e, &errP, &errR);
  double lambda = opt->damping, nu = 2;
  for (int it = 0;; it++) {
    if (errP <= opt->tolPosition && errR <= opt->tolRotation) {
      return 1;
    }
    if (it >= opt->maxIterations || n == 0) {
      return 0;
    }
    // step from the Jacobian at the current (kept) configuration
    hsm_jacobian(body, st, base, target, w->J, n, NULL);
    if (limitedStep(body, st, w, n, e, lambda, opt)) {
      return 0;
    }
    double rootP[3], rootR[9];
    memcpy(rootP, st->rootP, sizeof rootP);
    memcpy(rootR, st->rootR, sizeof rootR);
    int moved = 0;
    for (int j = 0; j < n; j++) {
      w->qPrev[j] = st->q[w->links[j]];
    }
    applyStep(body, st, w, n, opt);
    for (int j = 0; j < n; j++) {
      moved |= st->q[w->links[j]] != w->qPrev[j];
    }
    if (!moved) {
      return 0;  // every joint is blocked by a limit or the step vanished: no progress possible
    }
    // the decrease the linear model predicts for the step actually taken (after clamping)
    double pred = cost;
    for (int r = 0; r < 6; r++) {
      double lin = e[r];
      for (int j = 0; j < n; j++) {
        lin -= w->J[r * n + j] * (st->q[w->links[j]] - w->qPrev[j]);
      }
      pred -= lin * lin;
    }
    placeBody(body, st, base, pb, Rb);
    double tP, tR, trial = poseError(st, target, p, R, et, &tP, &tR);
    if (trial < cost) {
      // keep the step; adapt lambda to how well the linear model predicted it (Nielsen)
      double rho = pred > 0 ? (cost - trial) / pred : 1;
      double f = 2 * rho - 1;
      cost = trial, errP = tP, errR = tR;
      memcpy(e, et, sizeof e);
      lambda = fmax(lambda * fmax(1.0 / 3, 1 - f * f * f), opt->minDamping);
      nu = 2;
    } else {
      // undo it exactly (same q and root give the same poses), damp more
      for (int j = 0; j < n; j++) {
        st->q[w->links[j]] = w->qPrev[j];
      }
      memcpy(st->rootP, rootP, sizeof rootP);
      memcpy(st->rootR, rootR, sizeof rootR);
      hsm_forwardKinematics(body, st);
      lambda *= nu;
      nu *= 2;
      if (lambda > opt->maxDamping) {
        return 0;
      }
    }
  }
}

int hsm_inverseKinematics(const hsBody *body, hsBodyState *state, int base, int target,
                          const double p[3], const double R[9], const hsmIkOptions *opt,
                          void *work, hsError *err) {
  hsmIkOptions defaults;
  if (!opt) {
    hsm_defaultIkOptions(&defaults);
    opt = &defaults;
  }
  int rc = checkIkArgs(body, state, base, target, p, R, opt, err);
  if (rc) {
    return rc;
  }
  void *mem = work;
  if (!mem) {
    mem = hsu_malloc(hsm_ikWorkSize(body));
    if (!mem) {
      return HS_ERR(err, hsE_NOMEM, "inverse kinematics: out of memory");
    }
  }
  Work w;
  layoutWork(&w, mem, body->nlink);
  int n = hsm_jointPath(body, base, target, w.links, w.signs, body->nlink, NULL);
  // keep everything the solver may change, for an exact restore
  size_t nl = (size_t)body->nlink;
  double rootP0[3], rootR0[9], goalP[3], goalR[9], pb[3], Rb[9];
  memcpy(rootP0, state->rootP, sizeof rootP0);
  memcpy(rootR0, state->rootR, sizeof rootR0);
  memcpy(w.saveP, state->linkP, 3 * nl * sizeof(double));
  memcpy(w.saveR, state->linkR, 9 * nl * sizeof(double));
  for (int j = 0; j < n; j++) {
    w.q0[j] = state->q[w.links[j]];
  }
  memcpy(pb, state->linkP + 3 * base, sizeof pb);
  memcpy(Rb, state->linkR + 9 * base, sizeof Rb);
  // copies of the goal, which may point into the state
  memcpy(goalP, p, sizeof goalP);
  memcpy(goalR, R, sizeof goalR);
  orthonormalize(goalR);
  int solved;
  if (base == target) {
    // no joints: the whole body moves so that the link lands on the goal (as OpenHRP's path
    // with base == target does for the root)
    placeBody(body, state, base, goalP, goalR);
    double e[6], errP, errR;
    poseError(state, target, goalP, goalR, e, &errP, &errR);
    solved = errP <= opt->tolPosition && errR <= opt->tolRotation;
  } else {
    placeBody(body, state, base, pb, Rb);
    solved = solve(body, state, &w, n, base, target, pb, Rb, goalP, goalR, opt);
  }
  if (!solved) {
    // restore exactly what the caller had
    for (int j = 0; j < n; j++) {
      state->q[w.links[j]] = w.q0[j];
    }
    memcpy(state->rootP, rootP0, sizeof rootP0);
    memcpy(state->rootR, rootR0, sizeof rootR0);
    memcpy(state->linkP, w.saveP, 3 * nl * sizeof(double));
    memcpy(state->linkR, w.saveR, 9 * nl * sizeof(double));
  }
  if (!work) {
    hsu_free(mem);
  }
  return solved;
}
