// dynamics_jscontact.c - the joint-space engine's contacts: the contact points of a step solved
// in contact space with each character's joint-space mass matrix.
//
// Between every character's hsd_jsStepVelocity (the step's end velocity v* without contacts,
// the factors of M in its data) and its hsd_jsIntegrate, hsd_jsContacts
// 1. asks dynamics_geom.c for the contact points of the registered pairs at the step's start
//    poses (collision/'s manifolds: a face on a face keeps the corners and clipped edges of
//    its patch, up to opt.maxContactsPerPair points a link pair; 4 by default), with the
//    clipped points up to hsdJS_CONTACT_MARGIN apart (hsc_contactsMargin) as gaps, so that a
//    slightly tilted sole still has its four corners (a gap's row lets it close, no more:
//    its bias is depth / dt < 0); gaps that carried nothing are left out of w->contacts;
// 2. gives each point three rows, the normal n (from link[1] towards link[0]) and two tangents,
//    with their Jacobian rows J over the dofs of the one or two characters it touches (for a
//    point p on link k: J_j = cdof_j . [(p - c) x d; d] for each dof j from k to the root) and
//    W = M^-1 J^T by the engine's factorisation (hsd_jsSolveM: a solve, no inverse; a given
//    dof does not move under an impulse);
// 3. solves for the impulses by projected Gauss-Seidel (PGS) on the contact-space inverse
//    inertia A = J M^-1 J^T, island by island (the characters linked through contacts; each
//    island to its own convergence). For an island of at most JS_DENSE rows whose sweep over A
//    costs no more than row by row (a robot's soles), A is formed (rows^2 / 2 dot products over
//    the Jacobian rows' nonzero dofs, the touched link's path to the root; 24 rows x 12 dofs
//    for a humanoid's two soles) and a row's update costs one row of A; otherwise (a pile of
//    boxes) A is not formed: a row's update reads its relative velocity J v (over the path) and
//    adds W dlambda to v (nv flops a side), memory linear in the points. Per point the normal
//    row first
//    (lambda_n >= 0, the normal velocity at least the bias), then the two tangents together,
//    solved on their 2x2 block of A within the friction cone |lambda_t| <= mu lambda_n (a round
//    cone, not a pyramid; frictionBlock). Torsional friction comes from the patch's several
//    points: mu N r for a face at its four corners, r their distance from the centre. Sweeps
//    stop when no impulse
//    changed by more than JS_TOL times the largest normal impulse (or after JS_MAX_SWEEPS;
//    hsd_jsContactStats: the largest over the islands). The standing humanoid takes 23 sweeps a
//    step on average (at most 26), 609k instructions per hsd_step in all over its first 2000
//    steps (its 24 solves of M for W: 106k; 20 sweeps and 566k before frictionBlock); a
//    settling 100-box pile mostly reaches the cap (30.7M instructions a step).
//    Warm start: each point takes the impulse of the last step's point on the same link pair
//    nearest to it in link[0]'s frame (within JS_MATCH), so a resting contact starts solved.
//    Friction: staticFriction while the point's tangential speed (of v*) is below
//    opt.stickVelocity, slipFriction above. Restitution: none.
//    Penetration: a velocity bias, the normal velocity at least
//    min(contactErp (depth - layer) / dt, contactMaxCorrectingVel) with the allowed penetration
//    layer = max(contactSurfaceLayer, JS_MIN_LAYER); a resting contact settles at depth = layer
//    (its corners stay in contact, step after step) with a zero bias, so its force is steady;
// 4. writes v back (qacc corrected by the change over dt), the forces (impulse / dt) into
//    w->contacts and into each touched link's linkWrench (force, moment about its centre of
//    mass) for the force sensors' inverse dynamics.
// Everything runs in a fixed order: the same calls give the same bits.

#include <math.h>
#include <string.h>

#include "dynamics_private.h"

#define JS_MIN_LAYER 1e-4  // allowed penetration at least this [m]
#define JS_TOL 1e-10       // a sweep changing no impulse by more than this x the largest normal
                           // impulse ends the solve
#define JS_MAX_SWEEPS 100  // ... and at most this many sweeps
#define JS_MATCH 2e-3      // warm start: a last step's point this near in link[0]'s frame [m]
#define JS_DENSE 300       // up to this many rows, A = J M^-1 J^T is formed and PGS runs on it

// one contact point's rows
typedef struct JsPoint {
  int nside;     // characters whose dofs the point moves (0..2; one when both links are of one)
  int ch[2];
  size_t off[2];  // pool offsets: 3 Jacobian rows then 3 rows of W = M^-1 J^T (nv each)
  size_t zoff[2];  // idx offsets: the dofs where the Jacobian rows are not zero (the paths of
  int nz[2];       // the touched links to the root), nz of them
  double fr[9];   // the rows' directions: n, t1, t2 (world)
  double mu;      // friction coefficient of this step
  double bias;    // normal velocity the point must reach at least [m/s]
  double inv[3];  // 1 / A_rr, 0 when the row moves nothing
  double att[3];  // the tangent rows' block of A: A_11, A_12, A_22
  double lam[3];  // impulses along n, t1, t2 [N s]
} JsPoint;

// one point of the last step, for the warm start
typedef struct JsPrev {
  int ch[2], link[2];
  double x[3];    // the point in link[0]'s frame [m]
  double imp[3];  // its impulse on link[0], world [N s]
} JsPrev;

struct hsdJsContacts {
  JsPoint *pts;
  int capPts;
  double *pool;
  size_t capPool;
  int *idx;  // the points' nonzero dofs
  size_t capIdx;
  JsPrev *prev;
  int nprev, capPrev;
  int *isl;       // islands: union-find, labels, the points' islands, their order, the starts
  int capIsl;
  double *A;      // dense contact-space inverse inertia (rows x rows) when rows <= JS_DENSE
  size_t capA;
  double *ufree;  // the rows' relative velocities at v*, then (nr on) their impulses
  size_t capU;
  double *vstar;  // each character's v* (at vOff[ci])
  size_t capV;
  int *vOff;
  int capOff;
  double scale;     // the largest warm-start normal impulse of the step (every island's
                    // tolerance is relative to it or to its own largest, whichever is larger)
  int sweeps;       // last solve: sweeps
  double change;    // ... its last sweep's largest impulse change over the largest normal one
};

// grow *p to hold need elements of size elem; 0 or -1 (out of memory, *p unchanged)
static int grow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) {
    return 0;
  }
  size_t n = *cap ? *cap : 16;
  while (n < need) {
    n *= 2;
  }
  void *q = hsu_realloc(*p, n * elem);
  if (!q) {
    return -1;
  }
  *p = q;
  *cap = n;
  return 0;
}

static int growInt(void **p, int *cap, int need, size_t elem) {
  size_t c = (size_t)*cap;
  int r = grow(p, &c, (size_t)need, elem);
  *cap = (int)c;
  return r;
}

void hsd_jsSaveContacts(const hsdWorld *w, hsuBytes *out) {
  const hsdJsContacts *s = w->jsc;
  int have = s != NULL, n = s ? s->nprev : 0;
  hsu_bytesPut(out, &have, sizeof have);
  hsu_bytesPut(out, &n, sizeof n);
  if (s) {
    hsu_bytesPut(out, s->prev, (size_t)n * sizeof *s->prev);
    hsu_bytesPut(out, &s->scale, sizeof s->scale);
    hsu_bytesPut(out, &s->sweeps, sizeof s->sweeps);
    hsu_bytesPut(out, &s->change, sizeof s->change);
  }
}

int hsd_jsRestoreContacts(hsdWorld *w, hsuBytes *in) {
  int have = 0, n = 0;
  hsu_bytesGet(in, &have, sizeof have);
  hsu_bytesGet(in, &n, sizeof n);
  if (in->bad || n < 0 || (!have && n) || (size_t)n > (in->n - in->pos) / sizeof(JsPrev)) {
    in->bad = 1;
    return -1;
  }
  if (!have) {
    hsd_jsFreeContacts(w);  // no contact step yet: none to warm-start from
    return 0;
  }
  if (!w->jsc && !(w->jsc = hsu_calloc(1, sizeof *w->jsc))) {
    return -1;
  }
  hsdJsContacts *s = w->jsc;
  if (growInt((void **)&s->prev, &s->capPrev, n, sizeof *s->prev) < 0) {
    return -1;
  }
  s->nprev = n;
  hsu_bytesGet(in, s->prev, (size_t)n * sizeof *s->prev);
  hsu_bytesGet(in, &s->scale, sizeof s->scale);
  hsu_bytesGet(in, &s->sweeps, sizeof s->sweeps);
  hsu_bytesGet(in, &s->change, sizeof s->change);
  return in->bad ? -1 : 0;
}

void hsd_jsFreeContacts(hsdWorld *w) {
  hsdJsContacts *s = w->jsc;
  if (s) {
    hsu_free(s->pts);
    hsu_free(s->pool);
    hsu_free(s->idx);
    hsu_free(s->prev);
    hsu_free(s->vstar);
    hsu_free(s->A);
    hsu_free(s->isl);
    hsu_free(s->ufree);
    hsu_free(s->vOff);
    hsu_free(s);
  }
  w->jsc = NULL;
}

// two unit tangents completing the unit normal n (a fixed choice of n alone)
static void tangents(const double n[3], double t1[3], double t2[3]) {
  double e[3] = {0, 0, 0};
  int k = fabs(n[0]) <= fabs(n[1]) ? (fabs(n[0]) <= fabs(n[2]) ? 0 : 2)
                                   : (fabs(n[1]) <= fabs(n[2]) ? 1 : 2);
  e[k] = 1;
  hsu_cross(t1, n, e);
  double l = hsu_norm(t1);
  for (int j = 0; j < 3; j++) {
    t1[j] /= l;
  }
  hsu_cross(t2, n, t1);
}

// J[j] += sign cdof_j . [(p - c) x dir; dir] for the dofs from link k to the root
static void jacobianRow(const hsdJsModel *m, const hsdJsData *d, int k, const double p[3],
                        const double dir[3], double sign, double *J) {
  double r[3] = {p[0] - d->c[0], p[1] - d->c[1], p[2] - d->c[2]}, rd[3];
  hsu_cross(rd, r, dir);
  for (int j = m->linkLastDof[k]; j >= 0; j = m->dofParent[j]) {
    const double *s = d->cdof + 6 * j;
    J[j] += sign * (s[0] * rd[0] + s[1] * rd[1] + s[2] * rd[2] + s[3] * dir[0] +
                    s[4] * dir[1] + s[5] * dir[2]);
  }
}

static double dotN(const double *a, const double *b, int n) {
  double s = 0;
  for (int j = 0; j < n; j++) {
    s += a[j] * b[j];
  }
  return s;
}

// the relative velocity of point P along row r at the current velocities
static double rowVelocity(const hsdWorld *w, const hsdJsContacts *s, const JsPoint *P, int r) {
  double u = 0;
  for (int k = 0; k < P->nside; k++) {
    const hsdCharacter *c = &w->chars[P->ch[k]];
    const double *J = s->pool + P->off[k] + (size_t)r * c->jsm->nv, *v = c->jsd->qvel;
    const int *z = s->idx + P->zoff[k];
    for (int t = 0; t < P->nz[k]; t++) {
      u += J[z[t]] * v[z[t]];
    }
  }
  return u;
}

// v += W_r dl for point P's row r
static void applyRow(hsdWorld *w, const hsdJsContacts *s, const JsPoint *P, int r, double dl) {
  for (int k = 0; k < P->nside; k++) {
    hsdCharacter *c = &w->chars[P->ch[k]];
    int nv = c->jsm->nv;
    const double *W = s->pool + P->off[k] + (size_t)(3 + r) * nv;
    double *v = c->jsd->qvel;
    for (int j = 0; j < nv; j++) {
      v[j] += W[j] * dl;
    }
  }
}

// the tangential impulses (l[1], l[2]) scaled onto the cone of radius mu l[0]
static void projectCone(double l[3], double mu) {
  double lim = mu * l[0], t = sqrt(l[1] * l[1] + l[2] * l[2]);
  if (t > lim) {
    double f = t > 0 ? lim / t : 0;
    l[1] *= f;
    l[2] *= f;
  }
}

// point P's tangential impulses (l[1], l[2]) updated from the tangent rows' velocities u at
// the current ones: row by row (l_r - u_r / A_rr) while that stays inside the cone
// |l_t| <= mu l[0]; else the impulses that minimise the point's kinetic energy in its 2x2
// block (att) on the cone, exactly (Coulomb's maximal dissipation: a sliding point's friction
// opposes its slip): the point of the circle where (att + g I) l_t = att l_t - u for some
// g > 0, found by Newton's method on 1 / |l_t(g)| (monotone from g = 0, as for a trust
// region). Scaling the row-by-row step onto the circle instead leaves a sliding point's
// friction at an angle to its slip where the block is not isotropic (a rectangle's corners),
// so that a torque below the patch's torsional capacity turned it. (A sticking point's
// updates stay row by row: the block's inside solve took a third more sweeps on the standing
// humanoid, for the same fixed point.)
static void frictionBlock(const JsPoint *P, const double u[2], double l[3]) {
  const double *a = P->att;
  double det = a[0] * a[2] - a[1] * a[1], lj[3] = {l[0], l[1], l[2]};
  for (int r = 1; r < 3; r++) {
    lj[r] -= u[r - 1] * P->inv[r];
  }
  double lim = P->mu * l[0];
  if (hypot(lj[1], lj[2]) <= lim || !(a[0] > 0) || !(a[2] > 0) ||
      !(det > 1e-12 * a[0] * a[2])) {
    projectCone(lj, P->mu);  // (inside, or a row that moves nothing)
    l[1] = lj[1];
    l[2] = lj[2];
    return;
  }
  double c[2] = {a[0] * l[1] + a[1] * l[2] - u[0], a[1] * l[1] + a[2] * l[2] - u[1]};
  double x[2] = {(a[2] * c[0] - a[1] * c[1]) / det, (a[0] * c[1] - a[1] * c[0]) / det};
  double n = hypot(x[0], x[1]);
  if (n > lim) {
    double g = 0;
    for (int it = 0; it < 30 && lim > 0; it++) {
      // x = (A + g I)^-1 c; psi = 1 / lim - 1 / |x|, psi' = -x^T (A + g I)^-1 x / |x|^3
      double b0 = a[0] + g, b2 = a[2] + g, d = b0 * b2 - a[1] * a[1];
      x[0] = (b2 * c[0] - a[1] * c[1]) / d;
      x[1] = (b0 * c[1] - a[1] * c[0]) / d;
      n = hypot(x[0], x[1]);
      if (fabs(n - lim) <= 1e-14 * lim) {
        break;
      }
      double y[2] = {(b2 * x[0] - a[1] * x[1]) / d, (b0 * x[1] - a[1] * x[0]) / d};
      double dpsi = -(x[0] * y[0] + x[1] * y[1]) / (n * n * n);
      g = fmax(0, g - (1 / lim - 1 / n) / dpsi);  // (psi(0) > 0: never left of 0)
    }
    double f = n > 0 ? lim / n : 0;
    x[0] *= f;
    x[1] *= f;
  }
  l[1] = x[0];
  l[2] = x[1];
}

// the last step's impulse of the point nearest to contact hc (same link pair, within
// JS_MATCH in link[0]'s frame), NULL if none
static const double *warmImpulse(const hsdWorld *w, const hsdJsContacts *s,
                                 const hsdContact *hc) {
  const hsBodyState *st = w->chars[hc->ch[0]].state;
  int k = hc->link[0];
  double x[3], r[3];
  for (int j = 0; j < 3; j++) {
    r[j] = hc->p[j] - st->linkP[3 * k + j];
  }
  hsu_rotVecT(x, st->linkR + 9 * k, r);
  const double *best = NULL;
  double bestD = JS_MATCH * JS_MATCH;
  for (int i = 0; i < s->nprev; i++) {
    const JsPrev *q = &s->prev[i];
    if (q->ch[0] != hc->ch[0] || q->ch[1] != hc->ch[1] || q->link[0] != hc->link[0] ||
        q->link[1] != hc->link[1]) {
      continue;
    }
    double dx = q->x[0] - x[0], dy = q->x[1] - x[1], dz = q->x[2] - x[2];
    double d2 = dx * dx + dy * dy + dz * dz;
    if (d2 < bestD) {
      bestD = d2;
      best = q->imp;
    }
  }
  return best;
}

// the rows of contact hc into point P (pool at *used, advanced); the characters that do not
// move (still) add nothing
static void buildPoint(hsdWorld *w, hsdJsContacts *s, const hsdContact *hc, JsPoint *P,
                       size_t *used) {
  memcpy(P->fr, hc->n, 3 * sizeof *P->fr);
  tangents(hc->n, P->fr + 3, P->fr + 6);
  P->nside = 0;
  for (int side = 0; side < 2; side++) {
    const hsdCharacter *c = &w->chars[hc->ch[side]];
    if (c->still || !c->jsd) {
      continue;
    }
    int k = P->nside > 0 && P->ch[0] == hc->ch[side] ? 0 : P->nside;
    int nv = c->jsm->nv;
    if (k == P->nside) {
      P->ch[k] = hc->ch[side];
      P->off[k] = *used;
      P->zoff[k] = *used / 6;
      memset(s->pool + *used, 0, 6 * (size_t)nv * sizeof *s->pool);
      *used += 6 * (size_t)nv;
      P->nside++;
    }
    for (int r = 0; r < 3; r++) {
      jacobianRow(c->jsm, c->jsd, hc->link[side], hc->p, P->fr + 3 * r, side ? -1 : 1,
                  s->pool + P->off[k] + (size_t)r * nv);
    }
  }
  for (int k = 0; k < P->nside; k++) {
    int nv = w->chars[P->ch[k]].jsm->nv;
    const double *J = s->pool + P->off[k];
    int *z = s->idx + P->zoff[k];
    P->nz[k] = 0;
    for (int j = 0; j < nv; j++) {
      if (J[j] != 0 || J[nv + j] != 0 || J[2 * nv + j] != 0) {
        z[P->nz[k]++] = j;
      }
    }
  }
  for (int r = 0; r < 3; r++) {
    double A = 0;
    for (int k = 0; k < P->nside; k++) {
      const hsdCharacter *c = &w->chars[P->ch[k]];
      int nv = c->jsm->nv;
      double *J = s->pool + P->off[k] + (size_t)r * nv, *W = J + 3 * (size_t)nv;
      memcpy(W, J, (size_t)nv * sizeof *W);
      hsd_jsSolveM(c->jsm, c->jsd, W);
      A += dotN(J, W, nv);
    }
    P->inv[r] = A > 0 ? 1 / A : 0;
    if (r > 0) {
      P->att[r == 1 ? 0 : 2] = A;
    }
  }
  P->att[1] = 0;
  for (int k = 0; k < P->nside; k++) {
    int nv = w->chars[P->ch[k]].jsm->nv;
    const double *J1 = s->pool + P->off[k] + (size_t)nv, *W2 = J1 + 4 * (size_t)nv;
    P->att[1] += dotN(J1, W2, nv);
  }
}

// the pool, points and velocity copies sized for this step's n contacts; 0 or -1
static int reserveStep(hsdWorld *w, hsdJsContacts *s, int n) {
  size_t pool = 0, nvAll = 0;
  for (int i = 0; i < n; i++) {
    for (int side = 0; side < 2; side++) {
      const hsdCharacter *c = &w->chars[w->contacts[i].ch[side]];
      pool += c->jsm ? 6 * (size_t)c->jsm->nv : 0;
    }
  }
  for (int ci = 0; ci < w->nchar; ci++) {
    nvAll += w->chars[ci].jsm ? (size_t)w->chars[ci].jsm->nv : 0;
  }
  if (grow((void **)&s->pool, &s->capPool, pool, sizeof *s->pool) < 0 ||
      grow((void **)&s->idx, &s->capIdx, pool / 6, sizeof *s->idx) < 0 ||
      growInt((void **)&s->pts, &s->capPts, n, sizeof *s->pts) < 0 ||
      growInt((void **)&s->prev, &s->capPrev, n, sizeof *s->prev) < 0 ||
      grow((void **)&s->vstar, &s->capV, nvAll, sizeof *s->vstar) < 0 ||
      growInt((void **)&s->vOff, &s->capOff, w->nchar, sizeof *s->vOff) < 0 ||
      growInt((void **)&s->isl, &s->capIsl, 2 * w->nchar + 3 * n + 1, sizeof *s->isl) < 0) {
    return -1;
  }
  return 0;
}

// projected Gauss-Seidel over the m points idx[] until converged (JS_TOL) or JS_MAX_SWEEPS;
// the sweeps and the last relative change into the stats (the largest over the calls)
static void solvePoints(hsdWorld *w, hsdJsContacts *s, const int *idx, int m) {
  int sweeps = 0;
  double change = 0;
  for (int sweep = 0; sweep < JS_MAX_SWEEPS; sweep++) {
    double maxChange = 0, maxNormal = 0;
    for (int t = 0; t < m; t++) {
      JsPoint *P = &s->pts[idx[t]];
      if (P->inv[0] > 0) {
        double u = rowVelocity(w, s, P, 0);
        double l = fmax(0, P->lam[0] + (P->bias - u) * P->inv[0]), dl = l - P->lam[0];
        P->lam[0] = l;
        applyRow(w, s, P, 0, dl);
        maxChange = fmax(maxChange, fabs(dl));
        maxNormal = fmax(maxNormal, l);
      }
      double l[3] = {P->lam[0], P->lam[1], P->lam[2]}, ut[2];
      for (int r = 1; r < 3; r++) {
        ut[r - 1] = P->inv[r] > 0 ? rowVelocity(w, s, P, r) : 0;
      }
      frictionBlock(P, ut, l);
      for (int r = 1; r < 3; r++) {
        double dl = l[r] - P->lam[r];
        P->lam[r] = l[r];
        applyRow(w, s, P, r, dl);
        maxChange = fmax(maxChange, fabs(dl));
      }
    }
    sweeps = sweep + 1;
    change = maxNormal > 0 ? maxChange / maxNormal : 0;
    if (maxChange <= JS_TOL * fmax(maxNormal, s->scale)) {
      break;
    }
  }
  s->sweeps = sweeps > s->sweeps ? sweeps : s->sweeps;
  s->change = fmax(s->change, change);
}

static int findRoot(int *par, int x) {
  while (par[x] != x) {
    par[x] = par[par[x]];
    x = par[x];
  }
  return x;
}

// A = J M^-1 J^T over the m points idx[]'s rows (entries of rows sharing a character) and
// the rows' free velocities (at v*); 0 or -1 (out of memory: the caller solves row by row)
static int formDense(hsdWorld *w, hsdJsContacts *s, const int *idx, int m) {
  size_t nr = 3 * (size_t)m;
  if (grow((void **)&s->A, &s->capA, nr * nr, sizeof *s->A) < 0 ||
      grow((void **)&s->ufree, &s->capU, 2 * nr, sizeof *s->ufree) < 0) {
    return -1;
  }
  memset(s->A, 0, nr * nr * sizeof *s->A);
  for (int i = 0; i < m; i++) {
    const JsPoint *P = &s->pts[idx[i]];
    for (int a = 0; a < 3; a++) {
      s->ufree[3 * i + a] = rowVelocity(w, s, P, a);
    }
    for (int j = i; j < m; j++) {
      const JsPoint *Q = &s->pts[idx[j]];
      for (int k = 0; k < P->nside; k++) {
        for (int l = 0; l < Q->nside; l++) {
          if (P->ch[k] != Q->ch[l]) {
            continue;
          }
          int nv = w->chars[P->ch[k]].jsm->nv;
          const int *z = s->idx + P->zoff[k];
          for (int a = 0; a < 3; a++) {
            const double *J = s->pool + P->off[k] + (size_t)a * nv;
            for (int b = 0; b < 3; b++) {
              const double *W = s->pool + Q->off[l] + (size_t)(3 + b) * nv;
              double sum = 0;
              for (int t = 0; t < P->nz[k]; t++) {
                sum += J[z[t]] * W[z[t]];
              }
              s->A[(3 * (size_t)i + a) * nr + 3 * (size_t)j + b] += sum;
            }
          }
        }
      }
      for (int a = 0; a < 3 && j > i; a++) {
        for (int b = 0; b < 3; b++) {
          s->A[(3 * (size_t)j + b) * nr + 3 * (size_t)i + a] =
              s->A[(3 * (size_t)i + a) * nr + 3 * (size_t)j + b];
        }
      }
    }
  }
  return 0;
}

// projected Gauss-Seidel on the formed A (as solvePoints, in contact space: a row's velocity
// is ufree + A lambda), then v += W lambda once
static void solveDense(hsdWorld *w, hsdJsContacts *s, const int *idx, int m) {
  size_t nr = 3 * (size_t)m;
  double *lam = s->ufree + nr;  // the impulses, flat (kept equal to the points' lam)
  for (int i = 0; i < m; i++) {
    memcpy(lam + 3 * i, s->pts[idx[i]].lam, sizeof s->pts[idx[i]].lam);
  }
  int sweeps = 0;
  double change = 0;
  for (int sweep = 0; sweep < JS_MAX_SWEEPS; sweep++) {
    double maxChange = 0, maxNormal = 0;
    for (int i = 0; i < m; i++) {
      JsPoint *P = &s->pts[idx[i]];
      const double *Ar = s->A + 3 * (size_t)i * nr;
      if (P->inv[0] > 0) {
        double u = s->ufree[3 * i];
        for (size_t c = 0; c < nr; c++) {
          u += Ar[c] * lam[c];
        }
        double l = fmax(0, P->lam[0] + (P->bias - u) * P->inv[0]);
        maxChange = fmax(maxChange, fabs(l - P->lam[0]));
        maxNormal = fmax(maxNormal, l);
        P->lam[0] = lam[3 * i] = l;
      }
      double l[3] = {P->lam[0], P->lam[1], P->lam[2]}, ut[2] = {0, 0};
      for (int r = 1; r < 3; r++) {
        if (P->inv[r] > 0) {
          const double *Arr = Ar + (size_t)r * nr;
          double u = s->ufree[3 * i + r];
          for (size_t c = 0; c < nr; c++) {
            u += Arr[c] * lam[c];
          }
          ut[r - 1] = u;
        }
      }
      frictionBlock(P, ut, l);
      for (int r = 1; r < 3; r++) {
        maxChange = fmax(maxChange, fabs(l[r] - P->lam[r]));
        P->lam[r] = lam[3 * i + r] = l[r];
      }
    }
    sweeps = sweep + 1;
    change = maxNormal > 0 ? maxChange / maxNormal : 0;
    if (maxChange <= JS_TOL * fmax(maxNormal, s->scale)) {
      break;
    }
  }
  s->sweeps = sweeps > s->sweeps ? sweeps : s->sweeps;
  s->change = fmax(s->change, change);
  for (int i = 0; i < m; i++) {
    for (int r = 0; r < 3; r++) {
      applyRow(w, s, &s->pts[idx[i]], r, s->pts[idx[i]].lam[r]);
    }
  }
}

// the points of one island solved: on A when it has at most JS_DENSE rows and a sweep over A
// (rows^2) costs no more than one row by row (each row: its Jacobian's nonzero dofs plus nv, a
// side): a robot's soles, whose rows all couple through its tree; else row by row, as for a
// pile of boxes, whose A is mostly zeros (the warm start applied to v first)
static void solveIsland(hsdWorld *w, hsdJsContacts *s, const int *idx, int m) {
  long rowCost = 0, nr = 3 * (long)m;
  for (int i = 0; i < m; i++) {
    const JsPoint *P = &s->pts[idx[i]];
    for (int k = 0; k < P->nside; k++) {
      rowCost += 3 * (long)(P->nz[k] + w->chars[P->ch[k]].jsm->nv);
    }
  }
  if (nr <= JS_DENSE && nr * nr <= rowCost && formDense(w, s, idx, m) == 0) {
    solveDense(w, s, idx, m);
    return;
  }
  for (int i = 0; i < m; i++) {
    for (int r = 0; r < 3; r++) {
      applyRow(w, s, &s->pts[idx[i]], r, s->pts[idx[i]].lam[r]);
    }
  }
  solvePoints(w, s, idx, m);
}

// the n points solved island by island (the characters linked through points; static ones
// link nothing), each to its own convergence (solveIsland): sixteen humanoids cost sixteen
// times one, and a resting group stops sweeping when it is solved. Points in index order
// within an island, islands in order of their first point: deterministic (buffers from
// reserveStep)
static void solveIslands(hsdWorld *w, hsdJsContacts *s, int n) {
  int *par = s->isl, *lab = par + w->nchar, *pointIsl = lab + w->nchar, *order = pointIsl + n;
  int *start = order + n;
  for (int c = 0; c < w->nchar; c++) {
    par[c] = c;
    lab[c] = -1;
  }
  for (int i = 0; i < n; i++) {
    const JsPoint *P = &s->pts[i];
    if (P->nside == 2) {
      par[findRoot(par, P->ch[0])] = findRoot(par, P->ch[1]);
    }
  }
  int nisl = 0;
  for (int i = 0; i < n; i++) {
    const JsPoint *P = &s->pts[i];
    if (P->nside == 0) {
      pointIsl[i] = -1;
      continue;
    }
    int r = findRoot(par, P->ch[0]);
    if (lab[r] < 0) {
      lab[r] = nisl++;
    }
    pointIsl[i] = lab[r];
  }
  memset(start, 0, ((size_t)nisl + 1) * sizeof *start);
  for (int i = 0; i < n; i++) {
    if (pointIsl[i] >= 0) {
      start[pointIsl[i] + 1]++;
    }
  }
  for (int k = 0; k < nisl; k++) {
    start[k + 1] += start[k];
  }
  int *fill = lab;  // (reused as the islands' fill cursors: nisl <= nchar)
  memcpy(fill, start, (size_t)nisl * sizeof *fill);
  for (int i = 0; i < n; i++) {
    if (pointIsl[i] >= 0) {
      order[fill[pointIsl[i]]++] = i;
    }
  }
  s->sweeps = 0;
  s->change = 0;
  s->scale = 0;
  for (int i = 0; i < n; i++) {
    s->scale = fmax(s->scale, s->pts[i].lam[0]);
  }
  for (int k = 0; k < nisl; k++) {
    solveIsland(w, s, order + start[k], start[k + 1] - start[k]);
  }
}

void hsd_jsContacts(hsdWorld *w) {
  if (!w->jsc) {
    w->jsc = hsu_calloc(1, sizeof *w->jsc);
  }
  hsdJsContacts *s = w->jsc;
  int dropped = 0;
  int n = s ? hsd_findContacts(w, w->contacts, w->opt.maxContacts, &dropped) : 0;
  if (dropped > 0) {
    hsd_warn(w, hsdWARN_CONTACTS, "contact buffer full (%d points): %d dropped",
             w->opt.maxContacts, dropped);
  }
  if (!s || reserveStep(w, s, n) < 0) {
    w->ncontact = 0;
    return;
  }
  double dt = w->dt, layer = fmax(w->opt.contactSurfaceLayer, JS_MIN_LAYER);
  // v* kept, to correct qacc after the solve
  size_t nvAll = 0;
  for (int ci = 0; ci < w->nchar; ci++) {
    const hsdCharacter *c = &w->chars[ci];
    s->vOff[ci] = (int)nvAll;
    if (!c->still && c->jsm) {
      memcpy(s->vstar + nvAll, c->jsd->qvel, (size_t)c->jsm->nv * sizeof *s->vstar);
      nvAll += (size_t)c->jsm->nv;
    }
  }
  // the rows, the bias, the friction of this step, the warm start applied
  size_t used = 0;
  for (int i = 0; i < n; i++) {
    const hsdContact *hc = &w->contacts[i];
    JsPoint *P = &s->pts[i];
    buildPoint(w, s, hc, P, &used);
    double ut1 = rowVelocity(w, s, P, 1), ut2 = rowVelocity(w, s, P, 2);
    const hsdSurface *sf = &w->pairs[hc->pair].surface;
    P->mu = sqrt(ut1 * ut1 + ut2 * ut2) < w->opt.stickVelocity ? sf->staticFriction
                                                                : sf->slipFriction;
    P->bias = hc->depth > layer ? fmin(w->opt.contactErp * (hc->depth - layer) / dt,
                                       w->opt.contactMaxCorrectingVel)
              : hc->depth < 0 ? hc->depth / dt  // a gap: it may close within the step
                              : 0;
    const double *imp = warmImpulse(w, s, hc);
    for (int r = 0; r < 3; r++) {
      P->lam[r] = imp && P->inv[r] > 0 ? hsu_dot(imp, P->fr + 3 * r) : 0;
    }
    P->lam[0] = fmax(0, P->lam[0]);
    projectCone(P->lam, P->mu);
  }
  solveIslands(w, s, n);
  // qacc corrected by the velocity change
  for (int ci = 0; ci < w->nchar; ci++) {
    hsdCharacter *c = &w->chars[ci];
    if (c->still || !c->jsm) {
      continue;
    }
    const double *vs = s->vstar + s->vOff[ci];
    for (int j = 0; j < c->jsm->nv; j++) {
      c->jsd->qacc[j] += (c->jsd->qvel[j] - vs[j]) / dt;
    }
  }
  // forces out: the contact list, the links' wrenches; the warm start of the next step
  for (int i = 0; i < n; i++) {
    hsdContact *hc = &w->contacts[i];
    const JsPoint *P = &s->pts[i];
    JsPrev *q = &s->prev[i];
    double imp[3];
    for (int j = 0; j < 3; j++) {
      imp[j] = P->lam[0] * P->fr[j] + P->lam[1] * P->fr[3 + j] + P->lam[2] * P->fr[6 + j];
      hc->force[j] = imp[j] / dt;
    }
    for (int side = 0; side < 2; side++) {
      hsdCharacter *c = &w->chars[hc->ch[side]];
      const hsBodyState *st = c->state;
      int k = hc->link[side];
      double com[3], r[3], f[3], t[3];
      hsu_rotVec(com, st->linkR + 9 * k, c->body->links[k].com);
      for (int j = 0; j < 3; j++) {
        r[j] = hc->p[j] - st->linkP[3 * k + j] - com[j];
        f[j] = side ? -hc->force[j] : hc->force[j];
      }
      hsu_cross(t, r, f);
      for (int j = 0; j < 3; j++) {
        c->linkWrench[k][j] += f[j];
        c->linkWrench[k][3 + j] += t[j];
      }
    }
    const hsBodyState *st0 = w->chars[hc->ch[0]].state;
    int k0 = hc->link[0];
    double r0[3];
    for (int j = 0; j < 3; j++) {
      r0[j] = hc->p[j] - st0->linkP[3 * k0 + j];
    }
    memcpy(q->ch, hc->ch, sizeof q->ch);
    memcpy(q->link, hc->link, sizeof q->link);
    hsu_rotVecT(q->x, st0->linkR + 9 * k0, r0);
    memcpy(q->imp, imp, sizeof imp);
  }
  s->nprev = n;
  // the list keeps the points that touch or push: a gap that carried nothing is not a contact
  int kept = 0;
  for (int i = 0; i < n; i++) {
    const hsdContact *hc = &w->contacts[i];
    if (hc->depth >= 0 || hc->force[0] != 0 || hc->force[1] != 0 || hc->force[2] != 0) {
      w->contacts[kept++] = *hc;
    }
  }
  w->ncontact = kept;
  hsd_groupContacts(w);
}

void hsd_jsContactStats(const hsdWorld *w, int *sweeps, double *change) {
  *sweeps = w && w->jsc ? w->jsc->sweeps : 0;
  *change = w && w->jsc ? w->jsc->change : 0;
}
