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
//    half a solve with the engine's factors M = L^T D L, Y = D^-1 L^-T J^T (hsd_jsSolveMPath:
//    it stays on the same path, 12 dofs for a sole where M^-1 J^T fills all 36), so that
//    A = J M^-1 J^T = Y^T D Y; W = M^-1 J^T = L^-1 Y is finished only for an island solved
//    row by row, and an island solved on A gets its velocity change M^-1 (J^T lambda) by one
//    solve per character (a given dof does not move under an impulse);
// 3. solves for the impulses by projected Gauss-Seidel (PGS) on the contact-space inverse
//    inertia A = J M^-1 J^T, island by island (the characters linked through contacts; each
//    island to its own convergence). For an island of at most JS_DENSE rows whose sweep over A
//    costs no more than row by row (a robot's soles), A is formed (rows^2 / 2 dot products over
//    the Jacobian rows' nonzero dofs, the touched link's path to the root; 24 rows x 12 dofs
//    for a humanoid's two soles) and a row's update costs one row of A; otherwise (a pile of
//    boxes, or an island of free rigid bodies, below) A is not formed: a row's update reads
//    its relative velocity J v (over the path) and adds W dlambda to v (nv flops a side),
//    memory linear in the points: a point's three rows are read in one pass and written in
//    one, the tangents' velocities corrected for the normal's change through the point's own
//    3 x 3 block of A. In an island whose moving characters are all free rigid bodies (6 dofs
//    each, none given, no loop: rigidIslands) a contact is built in closed form, as ODE's
//    QuickStep does, J = [d; (p - o) x d] and W = M^-1 J^T from 1 / m and I_c^-1 (rigidRows:
//    no factor solves), and swept on its sides' 6-vectors of velocity two dofs at a time
//    (rigidVelocities, rigidApply: no gathers through the dof index). Per point the normal row
//    first (lambda_n >= 0, the normal velocity at least the bias), then the two tangents together,
//    solved on their 2x2 block of A within the friction cone |lambda_t| <= mu lambda_n (a round
//    cone, not a pyramid; frictionBlock). Torsional friction comes from the patch's several
//    points: mu N r for a face at its four corners, r their distance from the centre. Sweeps
//    stop when no impulse changed by more than JS_TOL times the largest normal impulse (or
//    after JS_MAX_SWEEPS, an island solved row by row after JS_PILE_SWEEPS, an island of free
//    rigid bodies after JS_RIGID_SWEEPS: a pile's PGS is still at 1e-5 .. 1e-3 relative
//    changes after 100 sweeps, so a falling pile's islands run the cap every step; 30 sweeps
//    (QuickStep runs 50 on piles, row by row on a pyramid) keep a settling 100-box pile's
//    jitter and penetration below the ODE engine's and at or below 50 sweeps'
//    (docs/benchmarks.md; a relative tolerance of 1e-4 instead ran 32 sweeps with 2.5x the
//    jitter); hsd_jsContactStats: the largest over the islands); docs/benchmarks.md
//    has the sweeps and instructions a step of the standing humanoid and the piles. A gap
//    point between two free bodies (no joints) that their free velocities do not close within
//    the step is left out of the solve (in the falling 100-box pile 48 of the 229 points a
//    step; 98.5 % of the others find a warm start, 85 % carry force).
//    Exact first, where it holds: an island of contacts that all stick (a robot standing, a
//    box at rest) is solved directly before any sweep. A contact point on a link moves with
//    the link's twist, J_i = G_i J_f (G_i = [d, (p_i - o) x d]), so a flat sole's four corners
//    are 12 rows on 6 dofs: A is singular, the impulses are not unique (only J^T lambda is), and
//    the sweeps' split drifted from step to step towards the cones' edges. solveFrames takes
//    the least-norm impulses in link space (each touched link a frame: Y_f = D^-1 L^-T J_f^T by
//    six half solves, Lambda = J_f M^-1 J_f^T in 6 x 6 blocks; a robot link's points take
//    Y = G Y_f from it), applies them and checks every row as a sweep would; failing that
//    (a point leaving or sliding, boxed rows, two moving sides), solveDirect solves the active
//    set's rows of the formed A (Cholesky of A + eps I refined to the least-norm solution,
//    trying a few active sets) and one sweep confirms it; else the sweeps, from the warm start.
//    Warm start: each point takes the impulse of the last step's point on the same link pair
//    nearest to it in link[0]'s frame (within JS_MATCH; the link pair found through a hash of
//    the last step's), so a resting contact starts solved.
//    Friction: staticFriction while the point's tangential speed (at the step's start) is below
//    opt.stickVelocity, slipFriction above. Restitution: the ODE engine's bounce
//    (a point approaching faster than bounceVelocity at the step's start that touches or closes
//    its gap this step leaves at restitution times that speed).
//    Penetration: a velocity bias, the normal velocity at least
//    min(contactErp (depth - layer) / dt, contactMaxCorrectingVel) with the allowed penetration
//    layer = max(contactSurfaceLayer, JS_MIN_LAYER); a resting contact settles at depth = layer
//    (its corners stay in contact, step after step) with a zero bias, so its force is steady;
// 4. writes v back (qacc corrected by the change over dt), the forces (impulse / dt) into
//    w->contacts and into each touched link's linkWrench (force, moment about its centre of
//    mass) for the force sensors' inverse dynamics.
// The same sweeps solve the step's other rows, as "boxed" points (each row's impulse clamped to
// its own bounds, a loop's rows together by the inverse of their 3 x 3 block): a torque-mode
// joint's position limit (one row on its coordinate, impulse >= 0, the contacts' bias, when the
// joint is within JS_LIMIT_MARGIN of the limit or reaches it this step), its velocity-limit
// motor (target the limit, impulse within +-|u| dt; dynamics_jsstep.c decides when, as the ODE
// engine does), and each closed loop (bilateral rows on the velocity of its point p2 on link2
// relative to link1's point there, target 0; their position error is removed after the
// integration, dynamics_loops.c's hsd_jsCloseLoops). A crawler track's
// contact has its tangents' targets cancel the track's surface speed (hsd_addTrackVel) and a
// soft normal row (JS_TRACK_CFM, as the ODE engine's tracks): J v = bias - R lambda.
// Everything runs in a fixed order: the same calls give the same bits.

#include <math.h>
#include <string.h>

#include "dynamics_private.h"

#define JS_MIN_LAYER 1e-4  // allowed penetration at least this [m]
#define JS_TOL 1e-10       // a sweep changing no impulse by more than this x the largest normal
                           // impulse ends the solve
#define JS_MAX_SWEEPS 100  // ... and at most this many sweeps
#define JS_PILE_SWEEPS 50  // ... or this many for an island solved row by row
#define JS_RIGID_SWEEPS 30  // ... or this many for an island of free rigid bodies (a pile: see
                            // the header)
#define JS_MATCH 2e-3      // warm start: a last step's point this near in link[0]'s frame [m]
#define JS_TRACK_CFM 1e-7  // a crawler track's contacts' softness at least this (ODE CFM units)
#define JS_LIMIT_MARGIN 1e-3  // a joint this near a limit [rad or m] (or reaching it) gets its row
#define JS_DENSE 300       // up to this many rows, A = J M^-1 J^T is formed and PGS runs on it
#define JS_DIRECT_ROWS 96  // an island of contacts with at most this many rows is first solved
                           // exactly on its active set (solveDirect), then checked by a sweep
#define JS_DIRECT_REG 1e-8  // ... on A + eps I, eps this x A's largest diagonal entry, refined
#define JS_DIRECT_ROUNDS 4  // ... trying at most this many active sets
#define JS_DIRECT_REFINE 5  // ... each with at most this many solves
#define JS_FRAMES 8         // an island of contacts on at most this many links is first solved in
                           // link space (solveFrames)

// what a point's rows are
enum {
  JS_CONTACT = 0,  // a contact: the normal row (lambda >= 0) and two tangents on the cone
  JS_BOXED         // nrow rows, each lambda clamped to [lo, hi] on its own: a joint limit
                   // (one row, [0, inf)), a velocity-limit motor ([-|u| dt, |u| dt]), a loop
                   // (up to 3 rows, unbounded)
};

// the larger of a and b (fmax is a call into libm in the solver's inner loops; no NaN here)
static inline double maxd(double a, double b) {
  return a > b ? a : b;
}

// two doubles as one vector (GCC's and Clang's vector extension: SSE2 or NEON registers), for
// the rigid points' 6-vectors; loaded and stored through memcpy (any alignment)
typedef double JsV2 __attribute__((vector_size(16)));

static inline JsV2 load2(const double *p) {
  JsV2 x;
  memcpy(&x, p, sizeof x);
  return x;
}

static inline void store2(double *p, JsV2 x) {
  memcpy(p, &x, sizeof x);
}

// one contact point's rows, or a joint limit's, a motor's or a loop's
typedef struct JsPoint {
  int kind;      // JS_CONTACT or JS_BOXED
  int nrow;      // rows in use (3 for a contact)
  int src;       // JS_BOXED: the loop index, or the dof (limit / motor) of character ch[0]
  int isLoop;    // 1: a loop's (src its index)
  int nside;     // characters whose dofs the point moves (0..2; one when both links are of one)
  int ch[2];
  size_t off[2];  // pool offsets: 3 Jacobian rows then 3 rows of Y or W (hasW; nv each)
  int last[2];    // the deepest dof of the one link the side's rows touch (its path to the root
                  // holds them: -1 none), or -2 (two links of one character)
  size_t zoff[2];  // idx offsets: the dofs where the Jacobian rows are not zero (the paths of
  int nz[2];       // the touched links to the root), nz of them
  double fr[9];   // the rows' directions: n, t1, t2 (world)
  double mu;      // friction coefficient of this step
  double bias;    // normal velocity the point must reach at least [m/s]
  double target[3];  // the rows' target velocities: a contact's tangents the other surface's
                     // track speed (0 but for crawlers); a boxed row's [m/s or rad/s]
  double lo[3], hi[3];  // a boxed row's impulse bounds [N s or N m s]
  double inv[3];  // 1 / A_rr, 0 when the row moves nothing
  double soft;    // a contact's normal row: its softness R (contactCfm / dt^2: the row holds
                  // J v = bias - R lambda, ODE's constraint force mixing) [m/s per N s]
  double invSoft;  // 1 / (A_00 + R)
  double Ab[9];   // a boxed point's own block of A (nrow x nrow, in 3 x 3)
  int block;      // 1: its rows are unbounded and Binv inverts Ab (a loop)
  double Binv[9];
  int hasW;       // 1: the pool's rows after J hold W = M^-1 J^T; 0: Y = D^-1 L^-T J^T
  int rigid;      // 1: every side is a character of 6 dofs (a free rigid body) whose rows
                  // cover them all: the sweeps' fixed-size path (rigidVelocities, rigidApply)
  double *vel[2];  // rigid: the sides' qvel
  double gam;     // frictionBlock's last multiplier g on the cone (its next Newton start)
  int frame[2];   // a contact's side on one link of a robot: its link's frame this step
                  // (s->frames; Y from the frame's), else -1
  double own[2][9];  // a frame side's sums of its own block Y^T D Y (frameRows: blockYDY's)
  double xl[3];   // a contact: its point in link[0]'s frame [m] (warm start, the next one's)
  double uv[3];   // a contact (not rigid): its rows' relative velocities at v* (pointVelocities's
                  // bits, made with startVelocities's; its characters' v is v* until their
                  // island is solved)
  double g[18];   // side 0's G when it has a frame: three rows sign [d, (p - o) x d] (frameRows)
  double lam[3];  // impulses along n, t1, t2 [N s]
} JsPoint;

// one link of a robot touched this step, as a rigid body: a contact point p on it moves at
// G [v_o; w] (G = [d, (p - o) x d] per direction d) with the link's twist J_f qvel, so its rows
// J = G J_f, its Y = G Y_f, and A's entries between two such points G Lambda G^T
typedef struct JsFrame {
  int ch, last;     // the character and the last dof of the link's path
  double o[3];      // the reference point (the first point's), world [m]
  size_t off;       // in fpool: Y_f = D^-1 L^-T J_f^T (6 rows of nv: o's velocity along the
                    // world axes, then the angular velocity)
  double lam[36];   // Lambda_ff = J_f M^-1 J_f^T = Y_f^T D Y_f (6 x 6)
  int hasT;         // frameRows: T (in fpool at off + 6 nv, 3 rows of nv + 1) holds the sums
  double dirs[9];   // of a point's Y entries over the frame's first three rows, for the signed
                    // directions dirs (G's first three columns: a face's corners share them)
} JsFrame;

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
  int *hash;     // the last step's link pairs: open addressing, each slot its first point + 1
  int nhash, capHash;  // (0: empty); nhash slots (a power of two) in use this step
  int *isl;       // islands: union-find, labels, the points' islands, their order, the starts
  int capIsl;
  double *A;      // dense contact-space inverse inertia (rows x rows) when rows <= JS_DENSE
  size_t capA;
  JsFrame *frames;  // the links of robots touched this step (JsFrame)
  int nframe, capFrame;
  double *fpool;    // their Y_f
  size_t capFPool, usedF;
  double *fac;    // solveDirect: the active rows' Cholesky factor, then its vectors
  size_t capFac;
  int *act;       // solveDirect: each point's guess (1 active), then the active rows
  int capAct;
  double *ufree;  // the rows' relative velocities at v*, then (nr on) their impulses
  size_t capU;
  double *vstar;  // each character's v* (at vOff[ci]), then (at nvAll + vOff[ci]) its pivots D
  size_t capV;    // (LD's diagonal, 0 on a given dof), then (2 nvAll on) a generalized impulse
  double *piv;    // = vstar + nvAll
  double *rhs;    // = vstar + 2 nvAll
  int *vOff;
  int capOff;
  int *hasGiven;  // = vOff + nchar: per character, 1 if it moves this step with a given dof
  double *rinv;   // per character, 10 each: 1 / its mass and the inverse of its rotational
  int capR;       // inertia about its centre of mass (world) when it moves this step as one
                  // free rigid body (rigidInverses), else 0 (first entry)
  double tanN[3];   // buildPoint: the last normal whose tangents were made (a sole's corners
  double tanT[6];   // share theirs), its tangents; tanN valid when hasTan
  int hasTan;
  const hsdJsModel *pathModel;  // pathDofs: the last path listed this step (model, its last
  int pathLast, pathN;          // dof, its length) and where (in idx; pathModel NULL: none)
  size_t pathOff;
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
    hsu_free(s->hash);
    hsu_free(s->vstar);
    hsu_free(s->A);
    hsu_free(s->fac);
    hsu_free(s->frames);
    hsu_free(s->fpool);
    hsu_free(s->act);
    hsu_free(s->isl);
    hsu_free(s->ufree);
    hsu_free(s->vOff);
    hsu_free(s->rinv);
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

// jacobianRow for the three directions fr (3 each) into the rows J, J + nv, J + 2 nv, in one
// pass over the path, the first two rows side by side (each entry the same operations in the
// same order as jacobianRow's: the same bits)
static void jacobianRows3(const hsdJsModel *m, const hsdJsData *d, int k, const double p[3],
                          const double fr[9], double sign, double *J, size_t nv) {
  double r[3] = {p[0] - d->c[0], p[1] - d->c[1], p[2] - d->c[2]}, rd[9];
  for (int a = 0; a < 3; a++) {
    hsu_cross(rd + 3 * a, r, fr + 3 * a);
  }
  // rows 0 and 1's [(p - c) x dir; dir] as pairs, row 2's alone
  JsV2 x01[6], sb = {sign, sign};
  double x2[6];
  for (int i = 0; i < 3; i++) {
    x01[i] = (JsV2){rd[i], rd[3 + i]};
    x01[3 + i] = (JsV2){fr[i], fr[3 + i]};
    x2[i] = rd[6 + i];
    x2[3 + i] = fr[6 + i];
  }
  for (int j = m->linkLastDof[k]; j >= 0; j = m->dofParent[j]) {
    const double *sd = d->cdof + 6 * j;
    JsV2 b0 = {sd[0], sd[0]}, b1 = {sd[1], sd[1]}, b2 = {sd[2], sd[2]};
    JsV2 b3 = {sd[3], sd[3]}, b4 = {sd[4], sd[4]}, b5 = {sd[5], sd[5]};
    JsV2 e = sb * (b0 * x01[0] + b1 * x01[1] + b2 * x01[2] + b3 * x01[3] + b4 * x01[4] +
                   b5 * x01[5]);
    double e2 = sign * (sd[0] * x2[0] + sd[1] * x2[1] + sd[2] * x2[2] + sd[3] * x2[3] +
                        sd[4] * x2[4] + sd[5] * x2[5]);
    J[j] += e[0];
    J[nv + j] += e[1];
    J[2 * nv + j] += e2;
  }
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

// the relative velocities of point P's three rows at the step's start (v* - dt qacc: before
// this step's forces, as the ODE engine's contacts see it), in one pass, for the choice of
// static or slip friction (a box at rest on a slope gains g sin(theta) dt in v*, more than
// stickVelocity) and restitution; along in uv (but for a rigid point) those at v* itself, as
// pointVelocities gives them (solveFrames's free velocities)
static void startVelocities(const hsdWorld *w, const hsdJsContacts *s, const JsPoint *P,
                            double u[3], double uv[3]) {
  u[0] = u[1] = u[2] = 0;
  double v0 = 0, v1 = 0, v2 = 0;
  for (int k = 0; k < P->nside; k++) {
    const hsdCharacter *c = &w->chars[P->ch[k]];
    size_t nv = (size_t)c->jsm->nv;
    const double *J = s->pool + P->off[k];
    const double *v = c->jsd->qvel, *a = c->jsd->qacc;
    if (P->rigid) {
      for (int j = 0; j < 6; j++) {  // (a rigid side's rows cover its 6 dofs in order)
        double x = v[j] - w->dt * a[j];
        u[0] += J[j] * x;
        u[1] += J[6 + j] * x;
        u[2] += J[12 + j] * x;
      }
      continue;
    }
    const int *z = s->idx + P->zoff[k];
    for (int t = 0; t < P->nz[k]; t++) {
      int j = z[t];
      double x = v[j] - w->dt * a[j], j0 = J[j], j1 = J[nv + j], j2 = J[2 * nv + j];
      u[0] += j0 * x;
      u[1] += j1 * x;
      u[2] += j2 * x;
      v0 += j0 * v[j];
      v1 += j1 * v[j];
      v2 += j2 * v[j];
    }
  }
  uv[0] = v0;
  uv[1] = v1;
  uv[2] = v2;
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
// block A_t of A (Ab's tangent rows) on the cone, exactly (Coulomb's maximal dissipation: a
// sliding point's friction opposes its slip): the point of the circle where
// (A_t + g I) l_t = A_t l_t - u for some g > 0, found by Newton's method on 1 / |l_t(g)|
// (monotone from g = 0, as for a trust region; started from the point's last g) in the
// block's eigenbasis, where each iterate costs two divisions. Scaling the row-by-row step onto
// the circle instead leaves a sliding point's friction at an angle to its slip where the block
// is not isotropic (a rectangle's corners), so that a torque below the patch's torsional
// capacity turned it. (A sticking point's updates stay row by row: the block's inside solve took a
// third more sweeps on the standing humanoid, for the same fixed point.)
static void frictionBlock(JsPoint *P, const double u[2], double l[3]) {
  const double a[3] = {P->Ab[4], P->Ab[5], P->Ab[8]};
  double det = a[0] * a[2] - a[1] * a[1], lj[3] = {l[0], l[1], l[2]};
  for (int r = 1; r < 3; r++) {
    lj[r] -= u[r - 1] * P->inv[r];
  }
  double lim = P->mu * l[0];
  if ((lim >= 0 && lj[1] * lj[1] + lj[2] * lj[2] <= lim * lim) || !(a[0] > 0) || !(a[2] > 0) ||
      !(det > 1e-12 * a[0] * a[2])) {
    projectCone(lj, P->mu);  // (inside, or a row that moves nothing)
    l[1] = lj[1];
    l[2] = lj[2];
    return;
  }
  // in the block's eigenbasis (A_t = Q diag(e) Q^T, Q = [q, q rotated by 90 degrees]) the
  // solves (A_t + g I)^-1 are two divisions: x'_i = c'_i / (e_i + g) with c' = Q^T c
  double c[2] = {a[0] * l[1] + a[1] * l[2] - u[0], a[1] * l[1] + a[2] * l[2] - u[1]};
  double h = 0.5 * (a[0] - a[2]), r = sqrt(h * h + a[1] * a[1]);
  double e[2] = {0.5 * (a[0] + a[2]) + r, 0}, q[2] = {h + r, a[1]};
  e[1] = det / e[0];
  if (h < 0) {
    q[0] = a[1];
    q[1] = r - h;
  }
  double qn = sqrt(q[0] * q[0] + q[1] * q[1]);
  if (qn > 0) {
    q[0] /= qn;
    q[1] /= qn;
  } else {
    q[0] = 1;  // (isotropic: any basis)
  }
  double cp[2] = {q[0] * c[0] + q[1] * c[1], q[0] * c[1] - q[1] * c[0]};
  double x[2] = {cp[0] / e[0], cp[1] / e[1]};
  double n = sqrt(x[0] * x[0] + x[1] * x[1]);
  if (n > lim) {
    double g = P->gam;  // (from the last sweep's: a point sliding on steadily needs one or two
                        // iterates; from the right of the root the first lands left of it)
    for (int it = 0; it < 30 && lim > 0; it++) {
      // psi = 1 / lim - 1 / |x|, psi' = -x^T (A + g I)^-1 x / |x|^3
      double b0 = 1 / (e[0] + g), b1 = 1 / (e[1] + g);
      x[0] = cp[0] * b0;
      x[1] = cp[1] * b1;
      double n2 = x[0] * x[0] + x[1] * x[1];
      n = sqrt(n2);
      if (fabs(n - lim) <= 1e-14 * lim) {
        break;
      }
      double dpsi = -(x[0] * x[0] * b0 + x[1] * x[1] * b1) / (n2 * n);
      g = maxd(0, g - (1 / lim - 1 / n) / dpsi);  // (the root is right of 0: psi(0) > 0)
    }
    P->gam = g;
    double f = n > 0 ? lim / n : 0;
    x[0] *= f;
    x[1] *= f;
  }
  // back from the eigenbasis
  l[1] = q[0] * x[0] - q[1] * x[1];
  l[2] = q[1] * x[0] + q[0] * x[1];
}

// the slot of the link pair (ch, link) in the hash of n slots
static unsigned pairSlot(const int ch[2], const int link[2], int n) {
  unsigned h = 2166136261u;
  int key[4] = {ch[0], link[0], ch[1], link[1]};
  for (int k = 0; k < 4; k++) {
    h = (h ^ (unsigned)key[k]) * 16777619u;
  }
  return h & (unsigned)(n - 1);
}

static int samePair(const JsPrev *q, const int ch[2], const int link[2]) {
  return q->ch[0] == ch[0] && q->ch[1] == ch[1] && q->link[0] == link[0] &&
         q->link[1] == link[1];
}

// the hash of the last step's link pairs (their points are consecutive in s->prev), so that a
// point finds its link pair's in constant time (a thousand resting boxes: 4,000 points); 0 or
// -1 (out of memory: no warm start this step)
static int hashPrev(hsdJsContacts *s) {
  int n = 16;
  while (n < 2 * s->nprev) {
    n *= 2;
  }
  if (growInt((void **)&s->hash, &s->capHash, n, sizeof *s->hash) < 0) {
    s->nhash = 0;
    return -1;
  }
  s->nhash = n;
  memset(s->hash, 0, (size_t)n * sizeof *s->hash);
  for (int i = 0; i < s->nprev; i++) {
    const JsPrev *q = &s->prev[i];
    if (i > 0 && samePair(&s->prev[i - 1], q->ch, q->link)) {
      continue;
    }
    unsigned h = pairSlot(q->ch, q->link, n);
    while (s->hash[h]) {
      h = (h + 1) & (unsigned)(n - 1);
    }
    s->hash[h] = i + 1;
  }
  return 0;
}

// the last step's impulse of the point nearest to contact hc (same link pair, within
// JS_MATCH in link[0]'s frame; x the point there), NULL if none
static const double *warmImpulse(const hsdJsContacts *s, const hsdContact *hc,
                                 const double x[3]) {
  if (s->nhash == 0) {
    return NULL;
  }
  // the link pair's first point of the last step
  unsigned h = pairSlot(hc->ch, hc->link, s->nhash);
  int first = -1;
  for (; s->hash[h]; h = (h + 1) & (unsigned)(s->nhash - 1)) {
    if (samePair(&s->prev[s->hash[h] - 1], hc->ch, hc->link)) {
      first = s->hash[h] - 1;
      break;
    }
  }
  if (first < 0) {
    return NULL;
  }
  const double *best = NULL;
  double bestD = JS_MATCH * JS_MATCH;
  for (int i = first; i < s->nprev && samePair(&s->prev[i], hc->ch, hc->link); i++) {
    const JsPrev *q = &s->prev[i];
    double dx = q->x[0] - x[0], dy = q->x[1] - x[1], dz = q->x[2] - x[2];
    double d2 = dx * dx + dy * dy + dz * dz;
    if (d2 < bestD) {
      bestD = d2;
      best = q->imp;
    }
  }
  return best;
}

static void finishRows(hsdWorld *w, hsdJsContacts *s, JsPoint *P);

// point P's rows W = M^-1 J^T from finishRows's Y (W = L^-1 Y), once
static void finishW(hsdWorld *w, hsdJsContacts *s, JsPoint *P) {
  for (int k = 0; k < P->nside && !P->hasW; k++) {
    const hsdCharacter *c = &w->chars[P->ch[k]];
    int nv = c->jsm->nv;
    for (int r = 0; r < 3; r++) {
      hsd_jsSolveMRest(c->jsm, c->jsd, s->pool + P->off[k] + (size_t)(3 + r) * nv);
    }
  }
  P->hasW = 1;
}

// the deepest dof on the path from dof last to the root that is not given (-1: none): the links
// below it down to last's move with it rigidly under an impulse (their given joints keep their
// commanded motion), so they share one frame
static int freeLast(const hsdJsModel *m, const hsdJsData *d, int last) {
  while (last >= 0 && d->given[last]) {
    last = m->dofParent[last];
  }
  return last;
}

// the frame of link path (ci, last) of this step, made with reference point o the first time
// (its Y_f by two half solves of three rows, its Lambda_ff); its index
static int frameOf(hsdWorld *w, hsdJsContacts *s, int ci, int last, const double o[3]) {
  // (a link pair's points come together: the few latest frames are searched, so that a pile
  // of a thousand boxes costs no search over all; a link met again later gets a second frame,
  // which only solveFrames refuses: two frames of one link make Lambda singular)
  for (int f = s->nframe - 1; f >= 0 && f >= s->nframe - JS_FRAMES; f--) {
    if (s->frames[f].ch == ci && s->frames[f].last == last) {
      return f;
    }
  }
  const hsdCharacter *c = &w->chars[ci];
  const hsdJsModel *jm = c->jsm;
  const hsdJsData *jd = c->jsd;
  size_t nv = (size_t)jm->nv;
  JsFrame *F = &s->frames[s->nframe];
  F->ch = ci;
  F->last = last;
  memcpy(F->o, o, sizeof F->o);
  F->off = s->usedF;
  F->hasT = 0;
  s->usedF += 6 * nv + 3 * (nv + 1);
  double *Y = s->fpool + F->off;
  double rc[3] = {o[0] - jd->c[0], o[1] - jd->c[1], o[2] - jd->c[2]};
  // J_f on the path (its readers, the half solves, frameRows and solveFrames' Lambda, read
  // Y_f on paths alone: the rest is not cleared)
  for (int j = last; j >= 0; j = jm->dofParent[j]) {
    const double *sd = jd->cdof + 6 * j;  // [w; u at c]: o moves at u + w x (o - c)
    double v[3];
    hsu_cross(v, sd, rc);
    for (int a = 0; a < 3; a++) {
      Y[a * nv + j] = sd[3 + a] + v[a];
      Y[(3 + a) * nv + j] = sd[a];
    }
  }
  hsd_jsSolveMPath(jm, jd, Y, 3, last);
  hsd_jsSolveMPath(jm, jd, Y + 3 * nv, 3, last);
  // Lambda_ff's upper triangle summed over the path in registers, two columns at a time (a
  // row's pairs from the one holding its diagonal; the entries below it come along unused):
  // each entry's sum in the path's order, the bits of one entry at a time
  const double *D = s->piv + s->vOff[ci];
  const JsV2 zero = {0, 0};
  JsV2 m0 = zero, m1 = zero, m2 = zero, m3 = zero, m4 = zero, m5 = zero, m6 = zero, m7 = zero;
  JsV2 m8 = zero, m9 = zero, m10 = zero, m11 = zero;
  for (int j = last; j >= 0; j = jm->dofParent[j]) {
    JsV2 q01 = {Y[j], Y[nv + j]}, q23 = {Y[2 * nv + j], Y[3 * nv + j]};
    JsV2 q45 = {Y[4 * nv + j], Y[5 * nv + j]};
    double d = D[j], p0 = q01[0] * d, p1 = q01[1] * d, p2 = q23[0] * d, p3 = q23[1] * d;
    double p4 = q45[0] * d, p5 = q45[1] * d;
    JsV2 b0 = {p0, p0}, b1 = {p1, p1}, b2 = {p2, p2}, b3 = {p3, p3}, b4 = {p4, p4};
    JsV2 b5 = {p5, p5};
    m0 += b0 * q01;  // (row 0: columns 0 .. 5)
    m1 += b0 * q23;
    m2 += b0 * q45;
    m3 += b1 * q01;  // (row 1: 0 .. 5)
    m4 += b1 * q23;
    m5 += b1 * q45;
    m6 += b2 * q23;  // (row 2: 2 .. 5)
    m7 += b2 * q45;
    m8 += b3 * q23;  // (row 3: 2 .. 5)
    m9 += b3 * q45;
    m10 += b4 * q45;  // (row 4: 4, 5)
    m11 += b5 * q45;  // (row 5: 4, 5)
  }
  double acc[36];
  store2(acc, m0);
  store2(acc + 2, m1);
  store2(acc + 4, m2);
  store2(acc + 6, m3);
  store2(acc + 8, m4);
  store2(acc + 10, m5);
  store2(acc + 14, m6);
  store2(acc + 16, m7);
  store2(acc + 20, m8);
  store2(acc + 22, m9);
  store2(acc + 28, m10);
  store2(acc + 34, m11);
  for (int a = 0; a < 6; a++) {
    for (int b = a; b < 6; b++) {
      F->lam[6 * a + b] = F->lam[6 * b + a] = acc[6 * a + b];
    }
  }
  return s->nframe++;
}

// the dofs of the path from dof last of model m to the root into z, ascending (the root's
// first); their number. The last path listed this step is copied when asked again (a link's
// points come together)
static int pathDofs(hsdJsContacts *s, const hsdJsModel *m, int last, int *z) {
  if (s->pathModel == m && s->pathLast == last) {
    memcpy(z, s->idx + s->pathOff, (size_t)s->pathN * sizeof *z);
    return s->pathN;
  }
  s->pathModel = m;
  s->pathLast = last;
  s->pathOff = (size_t)(z - s->idx);
  int n = 0;
  for (int j = last; j >= 0; j = m->dofParent[j]) {
    z[n++] = j;
  }
  for (int a = 0, b = n - 1; a < b; a++, b--) {
    int t = z[a];
    z[a] = z[b];
    z[b] = t;
  }
  s->pathN = n;
  return n;
}

// frameRows's running sums of Y^T D Y (blockYDY's a0 .. a8) in pairs: (a0, a1), (a3, a4),
// (a6, a7), (a2, a5), and a8
typedef struct JsOwn {
  JsV2 a01, a34, a67, a25;
  double a8;
} JsOwn;

// frameRows's step at dof j: its entries x01 = (x0, x1) and x2 of Y's three rows stored, its
// terms of Y^T D Y (blockYDY's products p_r x_c, p_r = x_r d) added to o
static inline void ownAdd(double *Y, size_t nv, size_t j, double d, JsV2 x01, double x2,
                          JsOwn *o) {
  Y[j] = x01[0];
  Y[nv + j] = x01[1];
  Y[2 * nv + j] = x2;
  JsV2 p01 = x01 * (JsV2){d, d};
  double p2 = x2 * d;
  o->a01 += (JsV2){p01[0], p01[0]} * x01;
  o->a34 += (JsV2){p01[1], p01[1]} * x01;
  o->a67 += (JsV2){p2, p2} * x01;
  o->a25 += p01 * (JsV2){x2, x2};
  o->a8 += p2 * x2;
}

// side k of contact P on a robot link with frame F (its path to the root through dof last,
// whose free part ends at eff): Y = G Y_f (G = sign [d, (p - o) x d] per direction d, Y_f the
// frame's) over the path from the root (the given dofs below eff keep the pool's zeros),
// instead of a half solve of its own; the side's own block
// Y^T D Y summed along in P->own[k], blockYDY's sums in its order (its terms on the given dofs
// are products of zeros: they add nothing)
static void frameRows(const hsdWorld *w, hsdJsContacts *s, JsPoint *P, int k, JsFrame *F,
                      const double p[3], double sign, int eff) {
  const hsdCharacter *c = &w->chars[P->ch[k]];
  size_t nv = (size_t)c->jsm->nv;
  const double *Yf = s->fpool + F->off, *D = s->piv + s->vOff[P->ch[k]];
  double *Y = s->pool + P->off[k] + 3 * nv, g[3][6];
  double r[3] = {p[0] - F->o[0], p[1] - F->o[1], p[2] - F->o[2]};
  for (int a = 0; a < 3; a++) {
    double rd[3];
    hsu_cross(rd, r, P->fr + 3 * a);
    for (int j = 0; j < 3; j++) {
      g[a][j] = sign * P->fr[3 * a + j];
      g[a][3 + j] = sign * rd[j];
    }
  }
  if (k == 0) {
    memcpy(P->g, g, sizeof P->g);  // (solveFrames's rows of G)
  }
  // the side's nonzero dofs: the path from the root to its link, ascending (eff's first)
  int *z = s->idx + P->zoff[k], nz = pathDofs(s, c->jsm, P->last[k], z), n = nz;
  while (n > 0 && z[n - 1] > eff) {
    n--;  // (the given dofs below eff, at the end)
  }
  P->nz[k] = nz;
  // Y two dofs at a time (each entry's sum over the frame's six rows in order from 0: the
  // bits of one at a time), the block's sums a dof at a time in the path's order
  JsV2 gb[3][6];
  for (int a = 0; a < 3; a++) {
    for (int q = 0; q < 6; q++) {
      gb[a][q] = (JsV2){g[a][q], g[a][q]};
    }
  }
  // the sums' first three terms (the directions' part) from the frame's T when an earlier
  // point had the same signed directions (the same bits, the same terms), else into T
  double dirs[9];
  for (int e = 0; e < 9; e++) {
    dirs[e] = g[e / 3][e % 3];
  }
  int reuse = F->hasT && memcmp(F->dirs, dirs, sizeof dirs) == 0;
  if (!reuse) {
    memcpy(F->dirs, dirs, sizeof dirs);
    F->hasT = 1;
  }
  double *T = s->fpool + F->off + 6 * nv;
  size_t np = nv + 1;  // (a row of T: the path's entries in its order, from the root)
  JsOwn o = {{0, 0}, {0, 0}, {0, 0}, {0, 0}, 0};
  for (int t = 0; t < n; t += 2) {
    size_t j0 = (size_t)z[t], j1 = t + 1 < n ? (size_t)z[t + 1] : j0;
    JsV2 y0 = {0, 0}, y1 = {0, 0}, y2 = {0, 0};
    if (reuse) {
      y0 = load2(T + t);
      y1 = load2(T + np + t);
      y2 = load2(T + 2 * np + t);
    } else {
      for (int q = 0; q < 3; q++) {
        JsV2 v = {Yf[q * nv + j0], Yf[q * nv + j1]};
        y0 += gb[0][q] * v;
        y1 += gb[1][q] * v;
        y2 += gb[2][q] * v;
      }
      store2(T + t, y0);
      store2(T + np + t, y1);
      store2(T + 2 * np + t, y2);
    }
    for (int q = 3; q < 6; q++) {
      JsV2 v = {Yf[q * nv + j0], Yf[q * nv + j1]};
      y0 += gb[0][q] * v;
      y1 += gb[1][q] * v;
      y2 += gb[2][q] * v;
    }
    ownAdd(Y, nv, j0, D[j0], (JsV2){y0[0], y1[0]}, y2[0], &o);
    if (t + 1 < n) {
      ownAdd(Y, nv, j1, D[j1], (JsV2){y0[1], y1[1]}, y2[1], &o);
    }
  }
  double *a = P->own[k];
  a[0] = o.a01[0];
  a[1] = o.a01[1];
  a[2] = o.a25[0];
  a[3] = o.a34[0];
  a[4] = o.a34[1];
  a[5] = o.a25[1];
  a[6] = o.a67[0];
  a[7] = o.a67[1];
  a[8] = o.a8;
}

// the rows of point P (directions P->fr, P->nrow of them) into the pool at *used (advanced):
// the relative velocity of world point p[0] on link[0] of character ch[0] with respect to p[1]
// on link[1] of ch[1], A's diagonal and (boxed points) its block; the characters that do not
// move (still) add nothing
static void buildRows(hsdWorld *w, hsdJsContacts *s, JsPoint *P, const int ch[2],
                      const int link[2], const double p[2][3], size_t *used) {
  P->nside = 0;
  P->frame[0] = P->frame[1] = -1;
  for (int side = 0; side < 2; side++) {
    const hsdCharacter *c = &w->chars[ch[side]];
    if (c->still || !c->jsd || hsd_jsAsleep(w, ch[side])) {
      continue;
    }
    int k = P->nside > 0 && P->ch[0] == ch[side] ? 0 : P->nside;
    int nv = c->jsm->nv;
    if (k < P->nside) {
      P->last[k] = -2;
      P->frame[k] = -1;
    } else {
      P->last[k] = c->jsm->linkLastDof[link[side]];
      P->ch[k] = ch[side];
      P->off[k] = *used;
      P->zoff[k] = *used / 6;
      memset(s->pool + *used, 0, 6 * (size_t)nv * sizeof *s->pool);
      *used += 6 * (size_t)nv;
      P->nside++;
    }
    P->frame[k] = -1;
    if (P->nrow == 3) {
      jacobianRows3(c->jsm, c->jsd, link[side], p[side], P->fr, side ? -1 : 1,
                    s->pool + P->off[k], (size_t)nv);
      int eff = freeLast(c->jsm, c->jsd, P->last[k]);
      if (P->kind == JS_CONTACT && eff >= 0 && c->jsm->nv > c->jsm->nroot) {
        // a robot link's point: Y = G Y_f over the path (no half solve of its own; a free
        // body's, a pile's boxes, keep theirs: their links are met by several pairs)
        int f = frameOf(w, s, ch[side], eff, p[side]);
        frameRows(w, s, P, k, &s->frames[f], p[side], side ? -1 : 1, eff);
        P->frame[k] = f;
      }
      continue;
    }
    for (int r = 0; r < P->nrow; r++) {
      jacobianRow(c->jsm, c->jsd, link[side], p[side], P->fr + 3 * r, side ? -1 : 1,
                  s->pool + P->off[k] + (size_t)r * nv);
    }
  }
  finishRows(w, s, P);
}

// a[3 r + q] += the entries of A = Y^T D Y between P's rows r (side k) and Q's rows q (side l,
// the same character), over P's nonzero dofs (Q's Y is zero off its own path), in one pass
static void blockYDY(const hsdWorld *w, const hsdJsContacts *s, const JsPoint *P, int k,
                     const JsPoint *Q, int l, double a[9]) {
  size_t nv = (size_t)w->chars[P->ch[k]].jsm->nv;
  const double *Y = s->pool + P->off[k] + 3 * nv, *Z = s->pool + Q->off[l] + 3 * nv;
  const double *D = s->piv + s->vOff[P->ch[k]];
  const int *z = s->idx + P->zoff[k];
  double a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0, a8 = 0;
  for (int t = 0; t < P->nz[k]; t++) {
    size_t j = (size_t)z[t];
    double p0 = Y[j] * D[j], p1 = Y[nv + j] * D[j], p2 = Y[2 * nv + j] * D[j];
    double q0 = Z[j], q1 = Z[nv + j], q2 = Z[2 * nv + j];
    a0 += p0 * q0;
    a1 += p0 * q1;
    a2 += p0 * q2;
    a3 += p1 * q0;
    a4 += p1 * q1;
    a5 += p1 * q2;
    a6 += p2 * q0;
    a7 += p2 * q1;
    a8 += p2 * q2;
  }
  a[0] += a0;
  a[1] += a1;
  a[2] += a2;
  a[3] += a3;
  a[4] += a4;
  a[5] += a5;
  a[6] += a6;
  a[7] += a7;
  a[8] += a8;
}

// Y = D^-1 L^-T J^T of point P whose Jacobian rows are in the pool (into the rows W takes:
// W = M^-1 J^T = L^-1 Y, finished by finishW only where a pile's row-by-row solve needs it),
// the nonzero dofs (Y's and J's: the touched links' paths to the root), A's diagonal and the
// point's block of A = J M^-1 J^T = Y^T D Y over those dofs
static void finishRows(hsdWorld *w, hsdJsContacts *s, JsPoint *P) {
  for (int k = 0; k < P->nside; k++) {
    const hsdCharacter *c = &w->chars[P->ch[k]];
    int nv = c->jsm->nv;
    double *J = s->pool + P->off[k], *Y = J + 3 * (size_t)nv;
    int *z = s->idx + P->zoff[k], last = P->last[k];
    if (P->frame[k] >= 0) {
      continue;  // (a robot link's point: its Y and nonzero dofs from frameRows)
    }
    P->nz[k] = 0;
    if (last >= -1) {
      // one link's rows: they and Y stay on its path, whose dofs (ascending) are the nonzero
      // ones (an entry that happens to be 0 among them adds nothing)
      P->nz[k] = pathDofs(s, c->jsm, last, z);
      memcpy(Y, J, 3 * (size_t)nv * sizeof *Y);
      hsd_jsSolveMPath(c->jsm, c->jsd, Y, 3, last);
      continue;
    }
    s->pathModel = NULL;  // (z is written over below: pathDofs's copy may be there)
    for (int r = 0; r < 3; r++) {
      memcpy(Y + (size_t)r * nv, J + (size_t)r * nv, (size_t)nv * sizeof *Y);
      hsd_jsSolveMHalf(c->jsm, c->jsd, Y + (size_t)r * nv);
    }
    for (int j = 0; j < nv; j++) {
      if (J[j] != 0 || J[nv + j] != 0 || J[2 * nv + j] != 0 || Y[j] != 0 || Y[nv + j] != 0 ||
          Y[2 * nv + j] != 0) {
        z[P->nz[k]++] = j;
      }
    }
  }
  P->hasW = 0;
  // the point's own block of A (a contact's tangents read their coupling to the normal); a
  // loop's inverted when well conditioned
  for (int r = 0; r < 9; r++) {
    P->Ab[r] = r % 4 == 0 ? 1 : 0;
  }
  double a[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int k = 0; k < P->nside; k++) {
    if (P->frame[k] >= 0) {
      for (int r = 0; r < 9; r++) {
        a[r] += P->own[k][r];  // (frameRows's sums: what blockYDY adds)
      }
    } else {
      blockYDY(w, s, P, k, P, k, a);
    }
  }
  for (int r = 0; r < 3; r++) {
    P->inv[r] = a[4 * r] > 0 ? 1 / a[4 * r] : 0;
    for (int q = 0; q < 3; q++) {
      if (r < P->nrow && q < P->nrow) {
        P->Ab[3 * r + q] = a[3 * r + q];
      }
    }
  }
  P->block = 0;
  if (P->kind != JS_BOXED) {
    return;
  }
  int unbounded = 1;
  double trace = 0;
  for (int r = 0; r < P->nrow; r++) {
    unbounded &= isinf(P->lo[r]) && isinf(P->hi[r]) && P->inv[r] > 0;
    trace += P->Ab[4 * r];
  }
  if (unbounded && P->nrow > 1) {
    double *b = P->Binv;
    double det = hsu_adjugate3(P->Ab, b);
    double t = P->nrow == 3 ? trace * trace * trace : trace * trace;
    if (det > 1e-9 * t) {
      for (int r = 0; r < 9; r++) {
        b[r] /= det;
      }
      P->block = 1;
    }
  }
}

static int findRoot(int *par, int x);

// s->rinv of every character (see there): a free root and no joint (6 dofs), none given, not
// asleep, a positive mass and a positive definite rotational inertia
static void rigidInverses(hsdWorld *w, hsdJsContacts *s) {
  for (int ci = 0; ci < w->nchar; ci++) {
    const hsdCharacter *c = &w->chars[ci];
    double *r = s->rinv + 10 * ci;
    r[0] = 0;
    if (c->still || !c->jsd || c->jsm->nv != 6 || c->jsm->nroot != 6 || hsd_jsAsleep(w, ci) ||
        !(c->jsd->mass > 0)) {
      continue;
    }
    int given = 0;
    for (int j = 0; j < 6; j++) {
      given |= c->jsd->given[j];
    }
    const double *I = c->jsd->crb + 4;  // (the root's composite: the whole body, about c)
    double adj[9], det = hsu_adjugate3(I, adj), tr = I[0] + I[4] + I[8];
    if (given || !(det > 1e-12 * tr * tr * tr)) {
      continue;
    }
    r[0] = 1 / c->jsd->mass;
    for (int k = 0; k < 9; k++) {
      r[1 + k] = adj[k] / det;
    }
  }
}

// the moving characters linked by this step's n contacts and the loops, and s->rinv cleared
// for the free rigid bodies linked to anything else (a robot, a loop): an island is all rigid
// contacts (rigidRows, the sweeps' rigid path and cap) or none (solved as without them: on A
// when small). Uses s->isl (solveIslands fills it again)
static void rigidIslands(hsdWorld *w, hsdJsContacts *s, int n) {
  int *par = s->isl, *mixed = par + w->nchar;
  for (int c = 0; c < w->nchar; c++) {
    par[c] = c;
    mixed[c] = 0;
  }
  for (int i = 0; i < n; i++) {
    const hsdContact *hc = &w->contacts[i];
    int moving = 1;
    for (int side = 0; side < 2; side++) {
      const hsdCharacter *c = &w->chars[hc->ch[side]];
      moving &= !c->still && c->jsd && !hsd_jsAsleep(w, hc->ch[side]);
    }
    if (moving) {
      par[findRoot(par, hc->ch[0])] = findRoot(par, hc->ch[1]);
    }
  }
  for (int i = 0; i < w->nloop; i++) {
    par[findRoot(par, w->loops[i].ch[0])] = findRoot(par, w->loops[i].ch[1]);
    mixed[findRoot(par, w->loops[i].ch[0])] = 1;
  }
  for (int c = 0; c < w->nchar; c++) {
    const hsdCharacter *ch = &w->chars[c];
    if (!(s->rinv[10 * c] > 0) && !ch->still && ch->jsd && !hsd_jsAsleep(w, c)) {
      mixed[findRoot(par, c)] = 1;
    }
  }
  for (int c = 0; c < w->nchar; c++) {
    if (mixed[findRoot(par, c)]) {
      s->rinv[10 * c] = 0;
    }
  }
}

// 1 if contact hc's moving sides (one or two) are distinct free rigid bodies (rigidInverses)
static int rigidContact(const hsdWorld *w, const hsdJsContacts *s, const hsdContact *hc) {
  int moving = 0;
  for (int side = 0; side < 2; side++) {
    int ci = hc->ch[side];
    const hsdCharacter *c = &w->chars[ci];
    if (c->still || !c->jsd || hsd_jsAsleep(w, ci)) {
      continue;
    }
    if (!(s->rinv[10 * ci] > 0)) {
      return 0;
    }
    moving++;
  }
  return moving > 0 && hc->ch[0] != hc->ch[1];
}

// buildRows and finishRows for a rigid contact (rigidContact) in closed form, no solves: on a
// side's velocity (v_o, w) (o its origin) a row along d at p is J = [d; (p - o) x d], and
// W = M^-1 J^T is the impulse's change of the centre of mass's velocity d / m and of the
// angular velocity dw = I_c^-1 ((p - c) x d), with v_o = v_c + w x (o - c): dv_o = d / m +
// dw x (o - c); A's diagonal and the point's block J W^T. The pool's layout is the generic
// one (J's three rows, then W's), so every other reader of the rows works on it
static void rigidRows(hsdWorld *w, hsdJsContacts *s, JsPoint *P, const hsdContact *hc,
                      size_t *used) {
  P->nside = 0;
  for (int side = 0; side < 2; side++) {
    int ci = hc->ch[side];
    hsdCharacter *c = &w->chars[ci];
    if (c->still || !c->jsd || hsd_jsAsleep(w, ci)) {
      continue;
    }
    int k = P->nside++;
    const hsdJsData *d = c->jsd;
    const double *ri = s->rinv + 10 * ci, *o = d->st->linkP, *cm = d->c;
    P->ch[k] = ci;
    P->off[k] = *used;
    P->zoff[k] = *used / 6;
    P->last[k] = 5;
    P->nz[k] = 6;
    P->vel[k] = d->qvel;
    int *z = s->idx + P->zoff[k];
    for (int t = 0; t < 6; t++) {
      z[t] = t;
    }
    double *J = s->pool + *used, *W = J + 18;
    *used += 36;
    double po[3], pc[3], oc[3], sign = side ? -1 : 1;
    for (int j = 0; j < 3; j++) {
      po[j] = hc->p[j] - o[j];
      pc[j] = hc->p[j] - cm[j];
      oc[j] = o[j] - cm[j];
    }
    for (int r = 0; r < 3; r++) {
      double *Jr = J + 6 * r, *Wr = W + 6 * r, t[3], x[3];
      for (int j = 0; j < 3; j++) {
        Jr[j] = sign * P->fr[3 * r + j];
      }
      hsu_cross(Jr + 3, po, Jr);
      hsu_cross(t, pc, Jr);
      for (int j = 0; j < 3; j++) {
        Wr[3 + j] = ri[1 + 3 * j] * t[0] + ri[2 + 3 * j] * t[1] + ri[3 + 3 * j] * t[2];
      }
      hsu_cross(x, Wr + 3, oc);
      for (int j = 0; j < 3; j++) {
        Wr[j] = Jr[j] * ri[0] + x[j];
      }
    }
  }
  P->hasW = 1;
  P->rigid = P->nside > 0;
  P->block = 0;
  double a[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int k = 0; k < P->nside; k++) {
    const double *J = s->pool + P->off[k], *W = J + 18;
    for (int r = 0; r < 3; r++) {
      for (int q = 0; q < 3; q++) {
        JsV2 x = load2(J + 6 * r) * load2(W + 6 * q) +
                 load2(J + 6 * r + 2) * load2(W + 6 * q + 2) +
                 load2(J + 6 * r + 4) * load2(W + 6 * q + 4);
        a[3 * r + q] += x[0] + x[1];
      }
    }
  }
  memcpy(P->Ab, a, sizeof a);
  for (int r = 0; r < 3; r++) {
    P->inv[r] = a[4 * r] > 0 ? 1 / a[4 * r] : 0;
  }
}

// the rows of contact hc into point P (pool at *used, advanced)
static void buildPoint(hsdWorld *w, hsdJsContacts *s, const hsdContact *hc, JsPoint *P,
                       size_t *used) {
  P->kind = JS_CONTACT;
  P->nrow = 3;
  P->gam = 0;
  P->isLoop = P->block = 0;
  P->target[0] = P->target[1] = P->target[2] = 0;
  memcpy(P->fr, hc->n, 3 * sizeof *P->fr);
  if (!s->hasTan || memcmp(s->tanN, hc->n, sizeof s->tanN) != 0) {
    tangents(hc->n, s->tanT, s->tanT + 3);  // (a function of n's bits alone)
    memcpy(s->tanN, hc->n, sizeof s->tanN);
    s->hasTan = 1;
  }
  memcpy(P->fr + 3, s->tanT, sizeof s->tanT);
  double p[2][3];
  memcpy(p[0], hc->p, sizeof p[0]);
  memcpy(p[1], hc->p, sizeof p[1]);
  P->rigid = 0;
  if (rigidContact(w, s, hc)) {
    rigidRows(w, s, P, hc, used);
  } else {
    buildRows(w, s, P, hc->ch, hc->link, (const double(*)[3])p, used);
  }
  // a track's points (its belt face's corners on the ground: a rigid support of many points
  // whose normal forces the rigid problem leaves open) are soft, as the ODE engine's (its CFM,
  // at least 1e-7), which makes their forces unique: those of equal springs. Others are hard
  int track = w->chars[hc->ch[0]].body->links[hc->link[0]].jointType == hsJOINT_CRAWLER ||
              w->chars[hc->ch[1]].body->links[hc->link[1]].jointType == hsJOINT_CRAWLER;
  P->soft = track ? fmax(w->opt.contactCfm, JS_TRACK_CFM) / (w->dt * w->dt) : 0;
  P->invSoft = P->inv[0] > 0 ? 1 / (1 / P->inv[0] + P->soft) : 0;
}

// the most boxed points (joint limits, motors, loops) this step can have, and their pool
static int extraBound(const hsdWorld *w, size_t *pool) {
  int n = 0;
  *pool = 0;
  for (int ci = 0; ci < w->nchar; ci++) {
    const hsdCharacter *c = &w->chars[ci];
    if (c->jsm && (w->opt.jointLimits & (hsLIMIT_POSITION | hsLIMIT_VELOCITY))) {
      int rows = 3 * (c->jsm->nv - c->jsm->nroot);
      n += rows;
      *pool += (size_t)rows * 6 * (size_t)c->jsm->nv;
    }
  }
  for (int i = 0; i < w->nloop; i++) {
    n++;
    for (int side = 0; side < 2; side++) {
      const hsdCharacter *c = &w->chars[w->loops[i].ch[side]];
      *pool += c->jsm ? 6 * (size_t)c->jsm->nv : 0;
    }
  }
  return n;
}

// the torques the given dofs (high-gain joints, a position-given root) take to hold their
// prescribed motion against the step's constraint impulses, added to their inverse dynamics
// at the free accelerations (qfrcGiven): M_gf times the free dofs' change of acceleration,
// less the rows' generalized impulses J^T lambda on them, over dt (a high-gain crank driving a
// closed loop: its torque times its speed is the mechanism's power, test_loops.c)
static void givenReactions(hsdWorld *w, const hsdJsContacts *s, int np) {
  for (int ci = 0; ci < w->nchar; ci++) {
    hsdCharacter *c = &w->chars[ci];
    if (c->still || !c->jsm || hsd_jsAsleep(w, ci)) {
      continue;
    }
    hsd_jsGivenReaction(c->jsm, c->jsd, s->vstar + s->vOff[ci], w->dt, c->jsd->qfrcGiven);
  }
  for (int i = 0; i < np; i++) {
    const JsPoint *P = &s->pts[i];
    for (int k = 0; k < P->nside; k++) {
      if (!s->hasGiven[P->ch[k]]) {
        continue;  // (no given dof on its rows)
      }
      hsdCharacter *c = &w->chars[P->ch[k]];
      int nv = c->jsm->nv;
      const double *J = s->pool + P->off[k];
      const int *z = s->idx + P->zoff[k];
      for (int t = 0; t < P->nz[k]; t++) {
        int j = z[t];
        if (c->jsd->given[j]) {
          double g = J[j] * P->lam[0] + J[nv + j] * P->lam[1] + J[2 * nv + j] * P->lam[2];
          c->jsd->qfrcGiven[j] -= g / w->dt;
        }
      }
    }
  }
}

// 1 if contact hc is between rigid bodies (free boxes, props: no side has joints)
static int rigidOnly(const hsdWorld *w, const hsdContact *hc) {
  for (int side = 0; side < 2; side++) {
    const hsdCharacter *c = &w->chars[hc->ch[side]];
    if (!c->still && c->jsm && c->jsm->nv > c->jsm->nroot) {
      return 0;
    }
  }
  return 1;
}

// the pool, points and velocity copies sized for this step's n contacts and the boxed points;
// 0 or -1
static int reserveStep(hsdWorld *w, hsdJsContacts *s, int n) {
  size_t pool = 0, nvAll = 0;
  int m = n + extraBound(w, &pool);
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
      growInt((void **)&s->pts, &s->capPts, m, sizeof *s->pts) < 0 ||
      growInt((void **)&s->prev, &s->capPrev, n, sizeof *s->prev) < 0 ||
      grow((void **)&s->vstar, &s->capV, 3 * nvAll, sizeof *s->vstar) < 0 ||
      growInt((void **)&s->vOff, &s->capOff, 2 * w->nchar, sizeof *s->vOff) < 0 ||
      growInt((void **)&s->rinv, &s->capR, 10 * w->nchar, sizeof *s->rinv) < 0 ||
      growInt((void **)&s->isl, &s->capIsl, 2 * w->nchar + 3 * m + 1, sizeof *s->isl) < 0 ||
      growInt((void **)&s->frames, &s->capFrame, 2 * n + 1, sizeof *s->frames) < 0 ||
      grow((void **)&s->fpool, &s->capFPool, 2 * pool + 1, sizeof *s->fpool) < 0) {
    return -1;
  }
  s->nframe = 0;
  s->usedF = 0;
  s->piv = s->vstar + nvAll;
  s->rhs = s->vstar + 2 * nvAll;
  s->hasGiven = s->vOff + w->nchar;
  return 0;
}

// the velocity bias of a row whose position error is depth (> 0: past the limit or into the
// other side; < 0: a gap), as a contact's: push out at erp (depth - layer) / dt at most the
// correcting speed, let a gap close within the step, none in between
static double rowBias(const hsdWorld *w, double depth, double erp) {
  double layer = fmax(w->opt.contactSurfaceLayer, JS_MIN_LAYER), dt = w->dt;
  return depth > layer ? fmin(erp * (depth - layer) / dt, w->opt.contactMaxCorrectingVel)
         : depth < 0   ? depth / dt
                       : 0;
}

// a boxed point of one row on dof j of character ci (J = sign e_j), with its target, bounds and
// warm start; P's pool at *used (advanced)
static void buildDofRow(hsdWorld *w, hsdJsContacts *s, JsPoint *P, int ci, int j, double sign,
                        double target, double lo, double hi, double warm, size_t *used) {
  const hsdCharacter *c = &w->chars[ci];
  int nv = c->jsm->nv;
  memset(P, 0, sizeof *P);
  P->frame[0] = P->frame[1] = -1;
  P->kind = JS_BOXED;
  P->nrow = 1;
  P->src = j;
  P->nside = 1;
  P->ch[0] = ci;
  P->off[0] = *used;
  P->zoff[0] = *used / 6;
  memset(s->pool + *used, 0, 6 * (size_t)nv * sizeof *s->pool);
  *used += 6 * (size_t)nv;
  s->pool[P->off[0] + (size_t)j] = sign;
  P->last[0] = j;
  P->target[0] = target;
  P->lo[0] = lo;
  P->hi[0] = hi;
  P->fr[0] = sign;  // (the row's direction on the dof: its impulse is sign lam along +q)
  finishRows(w, s, P);
  P->lam[0] = P->inv[0] > 0 ? fmin(hi, fmax(lo, warm)) : 0;
}

// this step's joint-limit and motor rows of character ci's torque-mode joints from pts[*np] on
// (hsLIMIT_POSITION: a row when the joint is past, at or within reach of a limit this step;
// hsLIMIT_VELOCITY: the motor beginCharacter chose)
static void buildLimits(hsdWorld *w, hsdJsContacts *s, int ci, int *np, size_t *used) {
  hsdCharacter *c = &w->chars[ci];
  const hsdJsModel *m = c->jsm;
  const hsdJsData *d = c->jsd;
  double dt = w->dt;
  for (int j = m->nroot; j < m->nv; j++) {
    int k = m->dofLink[j];
    hsdLinkOde *lo = &c->links[k];
    const hsLink *lk = &c->body->links[k];
    if (d->given[j]) {
      continue;
    }
    if (lo->motorF > 0) {
      double b = lo->motorF * dt;
      buildDofRow(w, s, &s->pts[(*np)++], ci, j, 1, lo->vMotor, -b, b, lo->jsMotor, used);
    }
    if (!(w->opt.jointLimits & hsLIMIT_POSITION) || lk->llimit.n == 0 || lk->ulimit.n == 0 ||
        !(lk->llimit.v[0] <= lk->ulimit.v[0])) {
      continue;
    }
    double q = c->state->q[k], q1 = q + dt * d->qvel[j];
    double bound[2] = {lk->llimit.v[0], lk->ulimit.v[0]};
    for (int side = 0; side < 2; side++) {
      double sign = side ? -1 : 1;
      double gap = sign * (q - bound[side]), gap1 = sign * (q1 - bound[side]);
      if (fmin(gap, gap1) < JS_LIMIT_MARGIN) {
        double warm = sign * lo->jsLimit > 0 ? fabs(lo->jsLimit) : 0;
        buildDofRow(w, s, &s->pts[(*np)++], ci, j, sign, rowBias(w, -gap, w->opt.stopErp), 0,
                    INFINITY, warm, used);
      }
    }
  }
}

// where loop l's rows act, world: p[0] its point p2 on link2, p[1] link1's point there (p1 for
// a ball, xyz; for xy and z the point of link1 that p2 is at, so that the directions turning
// with link1 cost nothing); e the error p2 - p1
static void loopPoints(const hsdWorld *w, const hsdLoop *l, double p[2][3], double e[3]) {
  double q[2][3], x[3];
  for (int side = 0; side < 2; side++) {
    const hsBodyState *st = w->chars[l->ch[1 - side]].state;
    int k = l->link[1 - side];
    hsu_rotVec(x, st->linkR + 9 * k, l->p[1 - side]);
    for (int j = 0; j < 3; j++) {
      q[side][j] = st->linkP[3 * k + j] + x[j];
    }
  }
  for (int j = 0; j < 3; j++) {
    e[j] = q[0][j] - q[1][j];
    p[0][j] = q[0][j];
    p[1][j] = l->type == hsEXTRA_XYZ ? q[1][j] : q[0][j];
  }
}

// loop l's rows into P: the velocity of its point p2 on link2 relative to link1's point there
// (loopPoints) along the directions it constrains (xyz: the world's axes; xy: two across the
// axis; z: the axis), unbounded, target 0, warm-started. The position error is no velocity's:
// hsd_jsCloseLoops (dynamics_loops.c) removes it after the integration (Baumgarte's bias
// -erp error / dt here put the links in motion: a four-bar released 1.4 cm open jolted its
// joints to 5 rad/s, where closing it by positions leaves them its swing's 0.2 rad/s)
static void buildLoop(hsdWorld *w, hsdJsContacts *s, int i, JsPoint *P, size_t *used) {
  const hsdLoop *l = &w->loops[i];
  double p[2][3], e[3], ax[3];
  loopPoints(w, l, p, e);
  hsu_rotVec(ax, w->chars[l->ch[0]].state->linkR + 9 * l->link[0], l->axis);
  memset(P, 0, sizeof *P);
  P->kind = JS_BOXED;
  P->src = i;
  P->isLoop = 1;
  if (l->type == hsEXTRA_XYZ) {
    P->nrow = 3;
    for (int r = 0; r < 9; r++) {
      P->fr[r] = r % 4 == 0 ? 1 : 0;
    }
  } else if (l->type == hsEXTRA_XY) {
    P->nrow = 2;
    tangents(ax, P->fr, P->fr + 3);
  } else {
    P->nrow = 1;
    memcpy(P->fr, ax, sizeof ax);
  }
  for (int r = 0; r < P->nrow; r++) {
    P->lo[r] = -INFINITY;
    P->hi[r] = INFINITY;
    P->target[r] = 0;
  }
  int ch[2] = {l->ch[1], l->ch[0]}, link[2] = {l->link[1], l->link[0]};
  buildRows(w, s, P, ch, link, (const double(*)[3])p, used);
  for (int r = 0; r < P->nrow; r++) {
    P->lam[r] = P->inv[r] > 0 ? hsu_dot(l->jsImp, P->fr + 3 * r) : 0;
  }
}

// the force f [N] (world) at world point p on link k of character c into its linkWrench (about
// the link's centre of mass), for the force sensors' inverse dynamics
static void addLinkForce(hsdCharacter *c, int k, const double p[3], const double f[3]) {
  const hsBodyState *st = c->state;
  double com[3], r[3], t[3];
  hsu_rotVec(com, st->linkR + 9 * k, c->body->links[k].com);
  for (int j = 0; j < 3; j++) {
    r[j] = p[j] - st->linkP[3 * k + j] - com[j];
  }
  hsu_cross(t, r, f);
  for (int j = 0; j < 3; j++) {
    c->linkWrench[k][j] += f[j];
    c->linkWrench[k][3 + j] += t[j];
  }
}

// the boxed points of this step from pts[n] on; returns the total number of points
static int buildExtras(hsdWorld *w, hsdJsContacts *s, int n, size_t *used) {
  int np = n;
  for (int ci = 0; ci < w->nchar; ci++) {
    const hsdCharacter *c = &w->chars[ci];
    if (!c->still && c->jsd && (w->opt.jointLimits & (hsLIMIT_POSITION | hsLIMIT_VELOCITY))) {
      buildLimits(w, s, ci, &np, used);
    }
  }
  for (int i = 0; i < w->nloop; i++) {
    const hsdLoop *l = &w->loops[i];
    if (!w->chars[l->ch[0]].still || !w->chars[l->ch[1]].still) {
      buildLoop(w, s, i, &s->pts[np++], used);
    }
  }
  return np;
}

// the boxed points' impulses out: the joints' limit and motor impulses (their warm start and
// hsd_jointConstraintTorque), the loops' forces on link2 (hsd_extraJointForce, no moment: they
// act at a point) and on both links' wrenches (force sensors), their warm start
static void extrasOut(hsdWorld *w, hsdJsContacts *s, int n, int np) {
  for (int ci = 0; ci < w->nchar; ci++) {
    hsdCharacter *c = &w->chars[ci];
    for (int k = 0; c->jsm && k < c->body->nlink; k++) {
      c->links[k].jsLimit = c->links[k].jsMotor = 0;
    }
  }
  for (int i = 0; i < w->nloop; i++) {
    memset(w->loops[i].jsImp, 0, sizeof w->loops[i].jsImp);
    memset(w->loops[i].force, 0, sizeof w->loops[i].force);
  }
  for (int i = n; i < np; i++) {
    const JsPoint *P = &s->pts[i];
    if (!P->isLoop) {
      hsdCharacter *c = &w->chars[P->ch[0]];
      hsdLinkOde *lo = &c->links[c->jsm->dofLink[P->src]];
      if (isinf(P->hi[0])) {
        lo->jsLimit += P->fr[0] * P->lam[0];
      } else {
        lo->jsMotor += P->lam[0];
      }
      continue;
    }
    hsdLoop *l = &w->loops[P->src];
    double p[2][3], e[3], f[3], mf[3];
    loopPoints(w, l, p, e);
    for (int j = 0; j < 3; j++) {
      for (int r = 0; r < P->nrow; r++) {
        l->jsImp[j] += P->lam[r] * P->fr[3 * r + j];
      }
      f[j] = l->jsImp[j] / w->dt;
      mf[j] = -f[j];
      l->force[j] = f[j];
    }
    if (!w->chars[l->ch[1]].still) {
      addLinkForce(&w->chars[l->ch[1]], l->link[1], p[0], f);
    }
    if (!w->chars[l->ch[0]].still) {
      addLinkForce(&w->chars[l->ch[0]], l->link[0], p[1], mf);
    }
  }
}

// the impulses of boxed point P from its rows' velocities u (at the current impulses): a
// loop's rows together by its block's inverse (exact for the point alone), else row after row
// (each with the velocity its predecessors' changes left: A's entries), each clamped to its
// bounds; the changes into dl, the largest change and impulse into *maxChange, *maxNormal
static void boxedUpdate(JsPoint *P, const double u[3], double dl[3], double *maxChange,
                        double *maxNormal) {
  double v[3] = {u[0], u[1], u[2]};
  if (P->block) {
    double e[3] = {0, 0, 0};
    for (int r = 0; r < P->nrow; r++) {
      e[r] = P->target[r] - v[r];
    }
    for (int r = 0; r < P->nrow; r++) {
      dl[r] = 0;
      for (int c = 0; c < P->nrow; c++) {
        dl[r] += P->Binv[3 * r + c] * e[c];
      }
    }
  } else {
    for (int r = 0; r < P->nrow; r++) {
      dl[r] = 0;
      if (P->inv[r] > 0) {
        for (int c = 0; c < r; c++) {
          v[r] += P->Ab[3 * r + c] * dl[c];
        }
        double l = fmin(P->hi[r], fmax(P->lo[r], P->lam[r] + (P->target[r] - v[r]) * P->inv[r]));
        dl[r] = l - P->lam[r];
      }
    }
  }
  for (int r = 0; r < P->nrow; r++) {
    P->lam[r] += dl[r];
    *maxChange = maxd(*maxChange, fabs(dl[r]));
    *maxNormal = maxd(*maxNormal, fabs(P->lam[r]));
  }
}

// the relative velocities of point P's three rows at the current velocities, in one pass
// over the nonzero dofs
static void pointVelocities(const hsdWorld *w, const hsdJsContacts *s, const JsPoint *P,
                            double u[3]) {
  double u0 = 0, u1 = 0, u2 = 0;
  for (int k = 0; k < P->nside; k++) {
    const hsdCharacter *c = &w->chars[P->ch[k]];
    int nv = c->jsm->nv;
    const double *J = s->pool + P->off[k], *v = c->jsd->qvel;
    const int *z = s->idx + P->zoff[k];
    for (int t = 0; t < P->nz[k]; t++) {
      int j = z[t];
      u0 += J[j] * v[j];
      u1 += J[nv + j] * v[j];
      u2 += J[2 * nv + j] * v[j];
    }
  }
  u[0] = u0;
  u[1] = u1;
  u[2] = u2;
}

// v += W dl for point P's three rows, in one pass
static void applyPoint(hsdWorld *w, const hsdJsContacts *s, const JsPoint *P,
                       const double dl[3]) {
  for (int k = 0; k < P->nside; k++) {
    hsdCharacter *c = &w->chars[P->ch[k]];
    int nv = c->jsm->nv;
    const double *W = s->pool + P->off[k] + 3 * (size_t)nv;
    double *v = c->jsd->qvel;
    for (int j = 0; j < nv; j++) {
      v[j] += W[j] * dl[0] + W[nv + j] * dl[1] + W[2 * nv + j] * dl[2];
    }
  }
}

// pointVelocities of a rigid point (P->rigid): each side's three Jacobian rows and its
// velocity are 6-vectors, taken two dofs at a time
static inline void rigidVelocities(const hsdJsContacts *s, const JsPoint *P, double u[3]) {
  JsV2 a0 = {0, 0}, a1 = {0, 0}, a2 = {0, 0};
  for (int k = 0; k < P->nside; k++) {
    const double *J = s->pool + P->off[k], *v = P->vel[k];
    for (int h = 0; h < 6; h += 2) {
      JsV2 x = load2(v + h);
      a0 += load2(J + h) * x;
      a1 += load2(J + 6 + h) * x;
      a2 += load2(J + 12 + h) * x;
    }
  }
  u[0] = a0[0] + a0[1];
  u[1] = a1[0] + a1[1];
  u[2] = a2[0] + a2[1];
}

// applyPoint of a rigid point: v += W dl on each side's 6-vector, two dofs at a time
static inline void rigidApply(const hsdJsContacts *s, const JsPoint *P, const double dl[3]) {
  JsV2 d0 = {dl[0], dl[0]}, d1 = {dl[1], dl[1]}, d2 = {dl[2], dl[2]};
  for (int k = 0; k < P->nside; k++) {
    const double *W = s->pool + P->off[k] + 18;
    double *v = P->vel[k];
    for (int h = 0; h < 6; h += 2) {
      store2(v + h, load2(v + h) + load2(W + h) * d0 + load2(W + 6 + h) * d1 +
                        load2(W + 12 + h) * d2);
    }
  }
}

// P->rigid and P->vel for a point whose W is formed: a contact whose every side is a
// character of 6 dofs (a free rigid body: its rows' path is all of them, 0..5 in order)
static void markRigid(hsdWorld *w, JsPoint *P) {
  P->rigid = P->kind == JS_CONTACT && P->nside > 0 && P->hasW;
  for (int k = 0; k < P->nside; k++) {
    hsdCharacter *c = &w->chars[P->ch[k]];
    P->rigid &= c->jsm->nv == 6 && P->last[k] == 5;
    P->vel[k] = c->jsd->qvel;
  }
}

// projected Gauss-Seidel over the m points idx[] until converged (JS_TOL) or maxSweeps, a
// point at a time: its three rows' velocities read in one pass, the normal impulse updated, the
// tangents' velocities corrected for it through the point's own block of A, projected on the
// cone, the three changes written in one pass; the sweeps and the last relative change into
// the stats (the largest over the calls)
static void solvePoints(hsdWorld *w, hsdJsContacts *s, const int *idx, int m, int maxSweeps) {
  int sweeps = 0;
  double change = 0;
  for (int sweep = 0; sweep < maxSweeps; sweep++) {
    double maxChange = 0, maxNormal = 0;
    for (int t = 0; t < m; t++) {
      JsPoint *P = &s->pts[idx[t]];
      double u[3], dl[3] = {0, 0, 0};
      if (P->rigid) {
        rigidVelocities(s, P, u);
      } else {
        pointVelocities(w, s, P, u);
      }
      if (P->kind == JS_BOXED) {
        boxedUpdate(P, u, dl, &maxChange, &maxNormal);
        applyPoint(w, s, P, dl);
        continue;
      }
      if (P->inv[0] > 0) {
        double un = u[0] + P->soft * P->lam[0];
        double l = maxd(0, P->lam[0] + (P->bias - un) * P->invSoft);
        dl[0] = l - P->lam[0];
        P->lam[0] = l;
        maxChange = maxd(maxChange, fabs(dl[0]));
        maxNormal = maxd(maxNormal, l);
      }
      double l[3] = {P->lam[0], P->lam[1], P->lam[2]}, ut[2];
      for (int r = 1; r < 3; r++) {
        ut[r - 1] = P->inv[r] > 0 ? u[r] + P->Ab[3 * r] * dl[0] - P->target[r] : 0;
      }
      frictionBlock(P, ut, l);
      for (int r = 1; r < 3; r++) {
        dl[r] = l[r] - P->lam[r];
        P->lam[r] = l[r];
        maxChange = maxd(maxChange, fabs(dl[r]));
      }
      if (P->rigid) {
        rigidApply(s, P, dl);
      } else {
        applyPoint(w, s, P, dl);
      }
    }
    sweeps = sweep + 1;
    change = maxNormal > 0 ? maxChange / maxNormal : 0;
    if (maxChange <= JS_TOL * maxd(maxNormal, s->scale)) {
      break;
    }
  }
  s->sweeps = sweeps > s->sweeps ? sweeps : s->sweeps;
  s->change = maxd(s->change, change);
}

static int findRoot(int *par, int x) {
  while (par[x] != x) {
    par[x] = par[par[x]];
    x = par[x];
  }
  return x;
}

// A = J M^-1 J^T = Y^T D Y over the m points idx[]'s rows (entries of rows sharing a
// character: the product over P's dofs, where Q's Y is zero off its own path) and
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
          double blk[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
          blockYDY(w, s, P, k, Q, l, blk);
          for (int a = 0; a < 3; a++) {
            for (int b = 0; b < 3; b++) {
              s->A[(3 * (size_t)i + a) * nr + 3 * (size_t)j + b] += blk[3 * a + b];
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

// v += M^-1 J^T lambda for the m points idx[]: each touched character's generalized impulse
// J^T lambda summed, then one solve with its factors (W = M^-1 J^T is never formed here)
static void applyImpulses(hsdWorld *w, hsdJsContacts *s, const int *idx, int m) {
  // (rhs is zero outside this function: cleared at the step's start and after each use)
  for (int i = 0; i < m; i++) {
    const JsPoint *P = &s->pts[idx[i]];
    for (int k = 0; k < P->nside; k++) {
      int nv = w->chars[P->ch[k]].jsm->nv;
      const double *J = s->pool + P->off[k];
      const int *z = s->idx + P->zoff[k];
      double *x = s->rhs + s->vOff[P->ch[k]];
      for (int t = 0; t < P->nz[k]; t++) {
        int j = z[t];
        x[j] += J[j] * P->lam[0] + J[nv + j] * P->lam[1] + J[2 * nv + j] * P->lam[2];
      }
    }
  }
  // each character once: its entry zeroed after it is applied (the last one applied skipped
  // at once: a robot's points are all its own)
  int lastDone = -1;
  for (int i = 0; i < m; i++) {
    const JsPoint *P = &s->pts[idx[i]];
    for (int k = 0; k < P->nside; k++) {
      if (P->ch[k] == lastDone) {
        continue;
      }
      hsdCharacter *c = &w->chars[P->ch[k]];
      int nv = c->jsm->nv;
      double *x = s->rhs + s->vOff[P->ch[k]];
      int any = 0;
      for (int j = 0; j < nv && !any; j++) {
        any = x[j] != 0;
      }
      if (!any) {
        continue;
      }
      hsd_jsSolveM(c->jsm, c->jsd, x);
      for (int j = 0; j < nv; j++) {
        c->jsd->qvel[j] += x[j];
      }
      memset(x, 0, (size_t)nv * sizeof *x);
      lastDone = P->ch[k];
    }
  }
}

// a . b over n entries (four partial sums: a fixed order, fewer loop steps; the four kept two
// by two in vector registers, each with the same additions in the same order)
static inline double dotn(const double *a, const double *b, int n) {
  JsV2 s01 = {0, 0}, s23 = {0, 0};
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    s01 += load2(a + i) * load2(b + i);
    s23 += load2(a + i + 2) * load2(b + i + 2);
  }
  double s0 = s01[0];
  if (i < n) {  // (at most three left, in order)
    s0 += a[i] * b[i];
    if (i + 1 < n) {
      s0 += a[i + 1] * b[i + 1];
      if (i + 2 < n) {
        s0 += a[i + 2] * b[i + 2];
      }
    }
  }
  return (s0 + s01[1]) + (s23[0] + s23[1]);
}

// factor the n x n symmetric positive definite a (row-major, its lower triangle read) as L L^T
// in place, L in the lower triangle, the reciprocals of its diagonal into inv; 0, or -1 when a
// pivot is not positive (or not a number)
static int cholesky(double *a, int n, double *inv) {
  for (int j = 0; j < n; j++) {
    double *aj = a + (size_t)j * n;
    for (int k = 0; k < j; k++) {
      aj[k] = (aj[k] - dotn(aj, a + (size_t)k * n, k)) * inv[k];
    }
    double d = aj[j] - dotn(aj, aj, j);
    if (!(d > 0)) {
      return -1;
    }
    aj[j] = sqrt(d);
    inv[j] = 1 / aj[j];
  }
  return 0;
}

// x = (L L^T)^-1 x with cholesky's factor of n rows, in place: forward by rows of L, back by
// the same rows (L^T's columns)
static void solveCholesky(const double *L, const double *inv, int n, double *x) {
  for (int j = 0; j < n; j++) {
    x[j] = (x[j] - dotn(L + (size_t)j * n, x, j)) * inv[j];
  }
  for (int j = n - 1; j >= 0; j--) {
    const double *lj = L + (size_t)j * n;
    double xj = x[j] *= inv[j];
    JsV2 xv = {xj, xj};
    int i = 0;
    for (; i + 2 <= j; i += 2) {  // (two entries at a time, each its own subtraction)
      store2(x + i, load2(x + i) - load2(lj + i) * xv);
    }
    if (i < j) {
      x[i] -= lj[i] * xj;
    }
  }
}

// the impulses of the m contact points idx[] on the formed A found exactly, where that works:
// a guess of the points in contact (last step's impulse, or a free velocity below the bias)
// whose rows all hold (normal velocity = bias, tangential = target: sticking), solved on
// A + eps I by Cholesky and refined from 0 (x += (A + eps I)^-1 r, whose new residual
// b - A x is eps times that correction), which converges to the least-norm solution: a flat
// sole's four corners are 12 rows on the 6 dofs of one link, so A is singular and the sweeps'
// answer is one of many with the same J^T lambda; the least-norm one spreads the load evenly
// (its corners far inside their cones, where the sweeps' drifted to them). A point of the guess
// with a negative normal impulse leaves it, one outside that the others push in (its velocity
// below its bias beyond the tolerance) joins it, up to JS_DIRECT_ROUNDS guesses. 1 with the
// impulses in the points' lam; 0 (lam untouched: the sweeps solve it) for boxed rows, a larger
// island, a row that moves nothing, a sliding point (its impulse outside the cone) or no guess
// that holds. The caller's sweep then checks the answer against the sweeps' own tolerance
static int solveDirect(hsdJsContacts *s, const int *idx, int m) {
  size_t nr = 3 * (size_t)m;
  const double *A = s->A, *uf = s->ufree;
  if (nr > JS_DIRECT_ROWS) {
    return 0;
  }
  double eps = 0, ref = s->scale;
  for (int i = 0; i < m; i++) {
    const JsPoint *P = &s->pts[idx[i]];
    if (P->kind != JS_CONTACT || !(P->inv[0] > 0 && P->inv[1] > 0 && P->inv[2] > 0)) {
      return 0;
    }
    ref = maxd(ref, P->lam[0]);
  }
  if (grow((void **)&s->fac, &s->capFac, nr * nr + 3 * nr, sizeof *s->fac) < 0 ||
      growInt((void **)&s->act, &s->capAct, (int)nr + m, sizeof *s->act) < 0) {
    return 0;
  }
  double *L = s->fac, *x = L + nr * nr, *y = x + nr, *inv = y + nr;
  int *act = s->act, *rows = act + m;
  for (size_t r = 0; r < nr; r++) {
    eps = maxd(eps, A[r * nr + r]);
  }
  eps *= JS_DIRECT_REG;
  // the guess: last step's contacts, and the points the free motion pushes in
  for (int i = 0; i < m; i++) {
    const JsPoint *P = &s->pts[idx[i]];
    act[i] = P->lam[0] > 0 || uf[3 * i] < P->bias;
  }
  for (int round = 0; round < JS_DIRECT_ROUNDS; round++) {
    int na = 0;
    for (int i = 0; i < m; i++) {
      for (int r = 0; act[i] && r < 3; r++) {
        rows[na++] = 3 * i + r;
      }
    }
    // A + eps I (a track's normal row: + its softness R) over the guess's rows, factored
    for (int a = 0; a < na; a++) {
      const double *Ar = A + (size_t)rows[a] * nr;
      double *La = L + (size_t)a * na;
      for (int c = 0; c <= a; c++) {
        La[c] = Ar[rows[c]];
      }
      La[a] += eps + (rows[a] % 3 ? 0 : s->pts[idx[rows[a] / 3]].soft);
    }
    if (na > 0 && cholesky(L, na, inv) < 0) {
      return 0;
    }
    // solved and refined from 0 (the residual b, the rows' targets less their free
    // velocities) until no row's residual would move its impulse by a hundredth of the sweeps'
    // tolerance
    int done = 0;
    memset(x, 0, (size_t)na * sizeof *x);
    for (int a = 0; a < na; a++) {
      const JsPoint *P = &s->pts[idx[rows[a] / 3]];
      y[a] = (rows[a] % 3 ? P->target[rows[a] % 3] : P->bias) - uf[rows[a]];
    }
    for (int it = 0; it < JS_DIRECT_REFINE && !done; it++) {
      solveCholesky(L, inv, na, y);
      double big = ref, worst = 0;
      for (int a = 0; a < na; a++) {
        x[a] += y[a];
        big = maxd(big, rows[a] % 3 ? 0 : x[a]);
      }
      for (int a = 0; a < na; a++) {
        y[a] *= eps;  // the new residual
        worst = maxd(worst, fabs(y[a]) * s->pts[idx[rows[a] / 3]].inv[rows[a] % 3]);
      }
      done = worst <= 1e-2 * JS_TOL * big;
    }
    // the guess checked: a pulling point leaves it, a point left out that the others push
    // into the floor (beyond the tolerance) joins it
    int changed = 0;
    for (int a = 0; a < na; a += 3) {
      ref = maxd(ref, x[a]);
    }
    for (int a = 0; a < na; a += 3) {
      if (x[a] < 0) {
        act[rows[a] / 3] = 0;
        changed = 1;
      }
    }
    for (int i = 0; i < m; i++) {
      if (act[i]) {
        continue;
      }
      const JsPoint *P = &s->pts[idx[i]];
      const double *Ar = A + 3 * (size_t)i * nr;
      double u = uf[3 * i];
      for (int c = 0; c < na; c++) {
        u += Ar[rows[c]] * x[c];
      }
      if ((P->bias - u) * P->invSoft > 1e-2 * JS_TOL * ref) {
        act[i] = 1;
        changed = 1;
      }
    }
    if (changed) {
      continue;
    }
    if (!done) {
      return 0;
    }
    for (int a = 0; a < na; a += 3) {
      const JsPoint *P = &s->pts[idx[rows[a] / 3]];
      if (hypot(x[a + 1], x[a + 2]) > P->mu * x[a]) {
        return 0;  // sliding: the sweeps find its friction on the cone
      }
    }
    for (int i = 0; i < m; i++) {
      JsPoint *P = &s->pts[idx[i]];
      P->lam[0] = P->lam[1] = P->lam[2] = 0;
    }
    for (int a = 0; a < na; a++) {
      s->pts[idx[rows[a] / 3]].lam[rows[a] % 3] = x[a];
    }
    return 1;
  }
  return 0;
}

// the lower triangle of G_f^T G_f into gtg (6 x 6, row-major; cholesky reads no other entry,
// the upper ones are left as they come) and G_f^T b_f into cf (6) for frame f of solveFrames:
// the rows t (frame[t] == f, G's rows 3 t .. 3 t + 2, b = target - ufree) summed in order from
// 0, each entry's sums in registers, two columns at a time (a row's pairs reach one past the
// diagonal): the bits of summing row by row into gtg and cf
static void gramFrame(const double *G, const double *uf, const JsPoint *pts, const int *idx,
                      const int *frame, int m, int f, double *gtg, double *cf) {
  const JsV2 zero = {0, 0};
  JsV2 m0 = zero, m1 = zero, m2 = zero, m3 = zero, m4 = zero, m5 = zero, m6 = zero, m7 = zero;
  JsV2 m8 = zero, m9 = zero, m10 = zero, m11 = zero, c0 = zero, c1 = zero, c2 = zero;
  for (int t = 0; t < m; t++) {
    if (frame[t] != f) {
      continue;
    }
    const JsPoint *P = &pts[idx[t]];
    for (int a = 0; a < 3; a++) {
      const double *g = G + 6 * (3 * (size_t)t + a);
      double b = (a ? P->target[a] : P->bias) - uf[3 * t + a];
      JsV2 g01 = load2(g), g23 = load2(g + 2), g45 = load2(g + 4), bb = {b, b};
      JsV2 p0 = {g[0], g[0]}, p1 = {g[1], g[1]}, p2 = {g[2], g[2]};
      JsV2 p3 = {g[3], g[3]}, p4 = {g[4], g[4]}, p5 = {g[5], g[5]};
      c0 += g01 * bb;
      c1 += g23 * bb;
      c2 += g45 * bb;
      m0 += g01 * p0;  // (row 0: columns 0, 1)
      m1 += g01 * p1;  // (row 1: 0, 1)
      m2 += g01 * p2;  // (row 2: 0 .. 3)
      m3 += g23 * p2;
      m4 += g01 * p3;  // (row 3: 0 .. 3)
      m5 += g23 * p3;
      m6 += g01 * p4;  // (row 4: 0 .. 5)
      m7 += g23 * p4;
      m8 += g45 * p4;
      m9 += g01 * p5;  // (row 5: 0 .. 5)
      m10 += g23 * p5;
      m11 += g45 * p5;
    }
  }
  store2(gtg, m0);
  store2(gtg + 6, m1);
  store2(gtg + 12, m2);
  store2(gtg + 14, m3);
  store2(gtg + 18, m4);
  store2(gtg + 20, m5);
  store2(gtg + 24, m6);
  store2(gtg + 26, m7);
  store2(gtg + 28, m8);
  store2(gtg + 30, m9);
  store2(gtg + 32, m10);
  store2(gtg + 34, m11);
  store2(cf, c0);
  store2(cf + 2, c1);
  store2(cf + 4, c2);
}

// the impulses of an island of sticking contacts on a few links of one character solved
// exactly in link space, without forming A. A point on a link moves with the link's twist (the
// velocity at a reference point o, the angular velocity), so its rows are J_i = G_i J_f with
// G_i = [d, (p_i - o) x d] per direction d, and A = G Lambda G^T, Lambda = J_f M^-1 J_f^T (6 x 6
// blocks per pair of links, from six half solves per link instead of three per point). A flat
// sole's four corners are 12 rows on the 6 dofs of one link: A is singular and the sweeps'
// impulses are one of many with the same J^T lambda; this takes the least-norm ones, which
// spread the load evenly (the sweeps' drifted to the edges of their cones): the rows' targets b
// as one twist change per link c_f = (G_f^T G_f)^-1 G_f^T b_f (when they are not one, some point
// must leave: 0), the links' impulses w = Lambda^-1 c, the points' lambda_f = G_f (G_f^T G_f)^-1
// w_f. The answer is applied (v += M^-1 J^T lambda) and checked as the sweeps check theirs:
// every normal impulse >= 0, every friction within its cone, every row's velocity at its target
// within JS_TOL of the largest normal impulse (over its A_rr); 1 then. 0, with v and lam as they
// were, for an island that does not qualify (a point out of contact last step whose free
// velocity does not push it in, a soft point, two moving sides or two links on one side, more
// than one character or JS_FRAMES links, a link's points on a line) or an answer that fails
static int solveFrames(hsdWorld *w, hsdJsContacts *s, const int *idx, int m) {
  size_t nr = 3 * (size_t)m;
  const JsPoint *P0 = &s->pts[idx[0]];
  int ci = P0->ch[0], nf = 0, fid[JS_FRAMES];
  if (nr > JS_DIRECT_ROWS || P0->nside != 1 ||
      grow((void **)&s->ufree, &s->capU, 2 * nr, sizeof *s->ufree) < 0 ||
      growInt((void **)&s->act, &s->capAct, (int)nr + m, sizeof *s->act) < 0) {
    return 0;
  }
  hsdCharacter *c = &w->chars[ci];
  const hsdJsModel *jm = c->jsm;
  const hsdJsData *jd = c->jsd;
  size_t nv = (size_t)jm->nv;
  int *frame = s->act;  // each point's frame, numbered within the island
  for (int t = 0; t < m; t++) {
    const JsPoint *P = &s->pts[idx[t]];
    if (P->kind != JS_CONTACT || P->nside != 1 || P->ch[0] != ci || P->last[0] < 0 ||
        P->soft != 0 || !(P->inv[0] > 0 && P->inv[1] > 0 && P->inv[2] > 0)) {
      return 0;
    }
    // its link's frame (a free body's made here: a robot standing on a free box)
    int eff = freeLast(jm, jd, P->last[0]);
    if (eff < 0) {
      return 0;  // (nothing on its path moves under an impulse)
    }
    int gf = P->frame[0] >= 0 ? P->frame[0] : frameOf(w, s, ci, eff, w->contacts[idx[t]].p);
    int f = 0;
    while (f < nf && fid[f] != gf) {
      f++;
    }
    if (f == nf && nf == JS_FRAMES) {
      return 0;
    }
    if (f == nf) {
      fid[nf++] = gf;
    }
    frame[t] = f;
  }
  for (int t = 0; t < m; t++) {
    memcpy(s->ufree + 3 * t, s->pts[idx[t]].uv, 3 * sizeof *s->ufree);  // (freeVelocities's)
  }
  const double *uf = s->ufree;
  for (int t = 0; t < m; t++) {
    const JsPoint *P = &s->pts[idx[t]];
    if (!(P->lam[0] > 0 || uf[3 * t] < P->bias)) {
      return 0;  // (a point that may leave: solveDirect or the sweeps find which)
    }
  }
  // scratch: Lambda (nL x nL), G (6 per row), per frame 64 (G^T G[36], its reciprocal
  // pivots[6], c[6], y[6]), w and Lambda's pivots (nL each), the impulses before (nr), v
  // before (nv)
  size_t nL = 6 * (size_t)nf;
  if (grow((void **)&s->fac, &s->capFac, nL * nL + 6 * nr + 64 * (size_t)nf + 2 * nL + nr + nv,
           sizeof *s->fac) < 0) {
    return 0;
  }
  double *L = s->fac, *G = L + nL * nL, *ff = G + 6 * nr;
  double *x = ff + 64 * (size_t)nf, *lpiv = x + nL, *lamWas = lpiv + nL, *vWas = lamWas + nr;
  // each row's G (the moving side's sign; frameRows's where it made them: the same
  // expressions on the same values)
  for (int t = 0; t < m; t++) {
    const JsPoint *P = &s->pts[idx[t]];
    if (P->frame[0] >= 0) {
      memcpy(G + 18 * (size_t)t, P->g, sizeof P->g);
      continue;
    }
    const hsdContact *hc = &w->contacts[idx[t]];
    const double *o = s->frames[fid[frame[t]]].o;
    double sign = hc->ch[0] == ci && jm->linkLastDof[hc->link[0]] == P->last[0] ? 1 : -1;
    double r[3] = {hc->p[0] - o[0], hc->p[1] - o[1], hc->p[2] - o[2]};
    for (int a = 0; a < 3; a++) {
      double *g = G + 6 * (3 * (size_t)t + a), rd[3];
      hsu_cross(rd, r, P->fr + 3 * a);
      for (int j = 0; j < 3; j++) {
        g[j] = sign * P->fr[3 * a + j];
        g[3 + j] = sign * rd[j];
      }
    }
  }
  // per frame: G_f^T G_f factored and the twist change c_f = (G_f^T G_f)^-1 G_f^T b_f
  for (int f = 0; f < nf; f++) {
    double *gtg = ff + 64 * f, *gpiv = gtg + 36, *cf = gpiv + 6;
    gramFrame(G, uf, s->pts, idx, frame, m, f, gtg, cf);
    if (cholesky(gtg, 6, gpiv) < 0) {
      return 0;  // (its points on a line: they do not fix the link's twist)
    }
    solveCholesky(gtg, gpiv, 6, cf);
    memcpy(x + 6 * f, cf, 6 * sizeof *x);
  }
  // the targets one twist change per link (to rounding: the check below is the sweeps'), or
  // some point must leave (solveDirect's guesses)
  double bmax = 0;
  for (int t = 0; t < m; t++) {
    const JsPoint *P = &s->pts[idx[t]];
    bmax = maxd(bmax, fabs(P->bias - uf[3 * t]));
    bmax = maxd(bmax, fabs(P->target[1] - uf[3 * t + 1]));
    bmax = maxd(bmax, fabs(P->target[2] - uf[3 * t + 2]));
  }
  for (int t = 0; t < m; t++) {
    const JsPoint *P = &s->pts[idx[t]];
    const double *cf = ff + 64 * frame[t] + 36 + 6;
    for (int a = 0; a < 3; a++) {
      const double *g = G + 6 * (3 * (size_t)t + a);
      double b = (a ? P->target[a] : P->bias) - uf[3 * t + a];
      for (int p = 0; p < 6; p++) {
        b -= g[p] * cf[p];
      }
      if (fabs(b) > 1e-9 * bmax) {
        return 0;
      }
    }
  }
  // Lambda in 6 x 6 blocks: each link's own (its frame's), and each pair's over the dofs their
  // paths share (Y is zero off a link's own path)
  const double *D = s->piv + s->vOff[ci];
  for (int f = 0; f < nf; f++) {
    const JsFrame *Ff = &s->frames[fid[f]];
    for (int a = 0; a < 6; a++) {
      memcpy(L + (6 * f + a) * nL + 6 * f, Ff->lam + 6 * a, 6 * sizeof *L);
    }
    for (int g = 0; g < f; g++) {
      const JsFrame *Fg = &s->frames[fid[g]];
      const double *Ya = s->fpool + Ff->off, *Yb = s->fpool + Fg->off;
      int x0 = Ff->last, y0 = Fg->last;
      while (x0 != y0 && x0 >= 0 && y0 >= 0) {
        if (x0 > y0) {
          x0 = jm->dofParent[x0];
        } else {
          y0 = jm->dofParent[y0];
        }
      }
      // (each entry summed along the shared path in order, two columns at a time)
      JsV2 av[18];
      for (int e = 0; e < 18; e++) {
        av[e] = (JsV2){0, 0};
      }
      for (int j = x0 == y0 ? x0 : -1; j >= 0; j = jm->dofParent[j]) {
        JsV2 q[3];
        for (int b = 0; b < 3; b++) {
          q[b] = (JsV2){Yb[2 * b * nv + j], Yb[(2 * b + 1) * nv + j]};
        }
        for (int a = 0; a < 6; a++) {
          double pa = Ya[a * nv + j] * D[j];
          JsV2 pb = {pa, pa};
          av[3 * a] += pb * q[0];
          av[3 * a + 1] += pb * q[1];
          av[3 * a + 2] += pb * q[2];
        }
      }
      double acc[36];
      memcpy(acc, av, sizeof acc);
      for (int a = 0; a < 6; a++) {
        for (int b = 0; b < 6; b++) {
          L[(6 * f + a) * nL + 6 * g + b] = acc[6 * a + b];
          L[(6 * g + b) * nL + 6 * f + a] = acc[6 * a + b];
        }
      }
    }
  }
  // w = Lambda^-1 c; lambda_f = G_f (G_f^T G_f)^-1 w_f, checked against the cones
  if (cholesky(L, (int)nL, lpiv) < 0) {
    return 0;
  }
  solveCholesky(L, lpiv, (int)nL, x);
  for (int f = 0; f < nf; f++) {
    double *gtg = ff + 64 * f, *y = gtg + 36 + 12;
    memcpy(y, x + 6 * f, 6 * sizeof *y);
    solveCholesky(gtg, gtg + 36, 6, y);
  }
  double *lam = s->ufree + nr;
  for (int t = 0; t < m; t++) {
    const JsPoint *P = &s->pts[idx[t]];
    const double *y = ff + 64 * frame[t] + 36 + 12;
    double *l = lam + 3 * t;
    for (int a = 0; a < 3; a++) {
      const double *g = G + 6 * (3 * (size_t)t + a);
      double sum = 0;  // (in a register: l may alias G for all the compiler knows)
      for (int p = 0; p < 6; p++) {
        sum += g[p] * y[p];
      }
      l[a] = sum;
    }
    if (!(l[0] >= 0) || hypot(l[1], l[2]) > P->mu * l[0]) {
      return 0;  // a point that pulls or slides: solveDirect or the sweeps
    }
  }
  // applied, then checked as a sweep would: each row's velocity at its target
  double big = s->scale;
  for (int t = 0; t < m; t++) {
    JsPoint *P = &s->pts[idx[t]];
    memcpy(lamWas + 3 * t, P->lam, 3 * sizeof *lamWas);
    memcpy(P->lam, lam + 3 * t, 3 * sizeof *lam);
    big = maxd(big, P->lam[0]);
  }
  memcpy(vWas, jd->qvel, nv * sizeof *vWas);
  applyImpulses(w, s, idx, m);
  double worst = 0;
  for (int t = 0; t < m; t++) {
    const JsPoint *P = &s->pts[idx[t]];
    double ut[3];
    pointVelocities(w, s, P, ut);
    for (int a = 0; a < 3; a++) {
      double u = fabs(ut[a] - (a ? P->target[a] : P->bias)) * P->inv[a];
      worst = maxd(worst, u);
      if (u > JS_TOL * big) {
        memcpy(jd->qvel, vWas, nv * sizeof *vWas);
        for (int q = 0; q < m; q++) {
          memcpy(s->pts[idx[q]].lam, lamWas + 3 * q, 3 * sizeof *lamWas);
        }
        return 0;
      }
    }
  }
  s->change = maxd(s->change, big > 0 ? worst / big : 0);  // (what a sweep would change)
  return 1;
}

// projected Gauss-Seidel on the formed A (as solvePoints, in contact space: a row's velocity
// is ufree + A lambda), from solveDirect's impulses where direct is set and it found them (then
// the first sweep only confirms them), then v += W lambda once
static void solveDense(hsdWorld *w, hsdJsContacts *s, const int *idx, int m, int direct) {
  size_t nr = 3 * (size_t)m;
  double *lam = s->ufree + nr;  // the impulses, flat (kept equal to the points' lam)
  if (direct) {
    solveDirect(s, idx, m);
  }
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
      if (P->kind == JS_BOXED) {
        double u[3], dl[3];
        for (int r = 0; r < P->nrow; r++) {
          u[r] = s->ufree[3 * i + r];
          for (size_t c = 0; c < nr; c++) {
            u[r] += Ar[(size_t)r * nr + c] * lam[c];
          }
        }
        boxedUpdate(P, u, dl, &maxChange, &maxNormal);
        for (int r = 0; r < P->nrow; r++) {
          lam[3 * i + r] = P->lam[r];
        }
        continue;
      }
      // the three rows' velocities in one pass over A's rows; the tangents' corrected for the
      // normal's change through their column of A (as solvePoints does with Ab)
      const double *A1 = Ar + nr, *A2 = Ar + 2 * nr;
      double u0 = s->ufree[3 * i], u1 = s->ufree[3 * i + 1], u2 = s->ufree[3 * i + 2];
      for (size_t c = 0; c < nr; c++) {
        u0 += Ar[c] * lam[c];
        u1 += A1[c] * lam[c];
        u2 += A2[c] * lam[c];
      }
      double dl0 = 0;
      if (P->inv[0] > 0) {
        double l = maxd(0, P->lam[0] + (P->bias - u0 - P->soft * P->lam[0]) * P->invSoft);
        dl0 = l - P->lam[0];
        maxChange = maxd(maxChange, fabs(dl0));
        maxNormal = maxd(maxNormal, l);
        P->lam[0] = lam[3 * i] = l;
      }
      double l[3] = {P->lam[0], P->lam[1], P->lam[2]}, ut[2] = {0, 0};
      if (P->inv[1] > 0) {
        ut[0] = u1 + A1[3 * i] * dl0 - P->target[1];
      }
      if (P->inv[2] > 0) {
        ut[1] = u2 + A2[3 * i] * dl0 - P->target[2];
      }
      frictionBlock(P, ut, l);
      for (int r = 1; r < 3; r++) {
        maxChange = maxd(maxChange, fabs(l[r] - P->lam[r]));
        P->lam[r] = lam[3 * i + r] = l[r];
      }
    }
    sweeps = sweep + 1;
    change = maxNormal > 0 ? maxChange / maxNormal : 0;
    if (maxChange <= JS_TOL * maxd(maxNormal, s->scale)) {
      break;
    }
  }
  s->sweeps = sweeps > s->sweeps ? sweeps : s->sweeps;
  s->change = maxd(s->change, change);
  applyImpulses(w, s, idx, m);
}

// the points of one island solved: on A when it has at most JS_DENSE rows and a sweep over A
// (rows^2) costs no more than one row by row (each row: its Jacobian's nonzero dofs plus nv, a
// side): a robot's soles, whose rows all couple through its tree; else row by row, as for a
// pile of boxes, whose A is mostly zeros (the warm start applied to v first)
static void solveIsland(hsdWorld *w, hsdJsContacts *s, const int *idx, int m) {
  long rowCost = 0, nr = 3 * (long)m;
  int rigid = 0;
  for (int i = 0; i < m; i++) {
    const JsPoint *P = &s->pts[idx[i]];
    rigid |= P->hasW;  // (a rigid contact's rows hold W, not Y: rigidRows; rigidIslands:
                       // then every point of the island is one)
    for (int k = 0; k < P->nside; k++) {
      rowCost += 3 * (long)(P->nz[k] + w->chars[P->ch[k]].jsm->nv);
    }
  }
  // the exact solves for an island with a robot in it (free bodies at rest, a box on the
  // floor, are converged from their warm start by a sweep or two: cheaper than a solve)
  int robot = 0;
  for (int i = 0; i < m && !robot; i++) {
    const JsPoint *P = &s->pts[idx[i]];
    for (int k = 0; k < P->nside; k++) {
      const hsdJsModel *jm = w->chars[P->ch[k]].jsm;
      robot |= jm->nv > jm->nroot;
    }
  }
  if (!rigid && nr <= JS_DENSE && nr * nr <= rowCost) {
    if (robot && solveFrames(w, s, idx, m)) {
      return;  // (a robot standing: solved in link space)
    }
    if (formDense(w, s, idx, m) == 0) {
      solveDense(w, s, idx, m, robot);
      return;
    }
  }
  for (int i = 0; i < m; i++) {
    JsPoint *P = &s->pts[idx[i]];
    finishW(w, s, P);
    markRigid(w, P);
    if (P->rigid) {
      rigidApply(s, P, P->lam);
      continue;
    }
    for (int r = 0; r < 3; r++) {
      applyRow(w, s, P, r, P->lam[r]);
    }
  }
  solvePoints(w, s, idx, m, rigid ? JS_RIGID_SWEEPS : JS_PILE_SWEEPS);
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
    const JsPoint *P = &s->pts[i];
    for (int r = 0; r < (P->kind == JS_BOXED ? P->nrow : 1); r++) {
      s->scale = fmax(s->scale, fabs(P->lam[r]));
    }
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
  hsd_jsWakeTouched(w, n);  // (dynamics_sleep.c: a sleeper touched by an awake body joins)
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
    s->hasGiven[ci] = 0;
    if (!c->still && c->jsm && !hsd_jsAsleep(w, ci)) {
      int nv = c->jsm->nv;
      memcpy(s->vstar + nvAll, c->jsd->qvel, (size_t)nv * sizeof *s->vstar);
      const unsigned char *given = c->jsd->given;
      const double *LD = c->jsd->LD;
      double *piv = s->piv + nvAll, *rhs = s->rhs + nvAll;
      int anyGiven = 0;
      for (int j = 0; j < nv; j++) {
        piv[j] = given[j] ? 0 : LD[(size_t)j * nv + j];
        rhs[j] = 0;
        anyGiven |= given[j];
      }
      s->hasGiven[ci] = anyGiven != 0;
      nvAll += (size_t)nv;
    }
  }
  rigidInverses(w, s);
  rigidIslands(w, s, n);
  // the rows, the bias, the friction of this step, the warm start applied
  hashPrev(s);
  s->hasTan = 0;
  s->pathModel = NULL;
  size_t used = 0;
  for (int i = 0; i < n; i++) {
    const hsdContact *hc = &w->contacts[i];
    JsPoint *P = &s->pts[i];
    buildPoint(w, s, hc, P, &used);
    // the point in link[0]'s frame (for the warm start, now and at the next step)
    const hsBodyState *st0 = w->chars[hc->ch[0]].state;
    int k0 = hc->link[0];
    double r0[3];
    for (int j = 0; j < 3; j++) {
      r0[j] = hc->p[j] - st0->linkP[3 * k0 + j];
    }
    hsu_rotVecT(P->xl, st0->linkR + 9 * k0, r0);
    // a crawler's track moves its surface: the tangent rows' targets cancel that motion (a
    // link that is not a crawler's adds nothing)
    double tr[3] = {0, 0, 0}, nOut[3] = {-hc->n[0], -hc->n[1], -hc->n[2]};
    if (w->chars[hc->ch[0]].body->links[hc->link[0]].jointType == hsJOINT_CRAWLER) {
      hsd_addTrackVel(&w->chars[hc->ch[0]], hc->link[0], nOut, tr, 1);
    }
    if (w->chars[hc->ch[1]].body->links[hc->link[1]].jointType == hsJOINT_CRAWLER) {
      hsd_addTrackVel(&w->chars[hc->ch[1]], hc->link[1], hc->n, tr, -1);
    }
    P->target[1] = -hsu_dot(tr, P->fr + 3);
    P->target[2] = -hsu_dot(tr, P->fr + 6);
    double u0[3];
    startVelocities(w, s, P, u0, P->uv);
    double ut1 = u0[1] - P->target[1];
    double ut2 = u0[2] - P->target[2];
    const hsdSurface *sf = &w->pairs[hc->pair].surface;
    P->mu = sqrt(ut1 * ut1 + ut2 * ut2) < w->opt.stickVelocity ? sf->staticFriction
                                                                : sf->slipFriction;
    P->bias = hc->depth > layer ? fmin(w->opt.contactErp * (hc->depth - layer) / dt,
                                       w->opt.contactMaxCorrectingVel)
              : hc->depth < 0 ? hc->depth / dt  // a gap: it may close within the step
                              : 0;
    // restitution (the ODE engine's bounce): a point approaching faster than bounceVelocity at
    // the step's start that touches, or closes its gap within the step, leaves at restitution
    // times the approach speed
    double un0 = u0[0];
    if (sf->restitution > 0 && -un0 > w->opt.bounceVelocity && un0 * dt <= hc->depth) {
      P->bias = fmax(P->bias, -sf->restitution * un0);
    }
    if (hc->depth < 0 && rigidOnly(w, hc) && rowVelocity(w, s, P, 0) >= P->bias) {
      P->nside = 0;  // a gap between free bodies that their free motion does not close: out
      P->lam[0] = P->lam[1] = P->lam[2] = 0;  // of the solve (in a pile most points are such
      continue;                                // gaps)
    }
    const double *imp = warmImpulse(s, hc, P->xl);
    for (int r = 0; r < 3; r++) {
      P->lam[r] = imp && P->inv[r] > 0 ? hsu_dot(imp, P->fr + 3 * r) : 0;
    }
    P->lam[0] = fmax(0, P->lam[0]);
    projectCone(P->lam, P->mu);
  }
  int np = buildExtras(w, s, n, &used);
  solveIslands(w, s, np);
  // qacc corrected by the velocity change
  for (int ci = 0; ci < w->nchar; ci++) {
    hsdCharacter *c = &w->chars[ci];
    if (c->still || !c->jsm || hsd_jsAsleep(w, ci)) {
      continue;
    }
    const double *vs = s->vstar + s->vOff[ci];
    for (int j = 0; j < c->jsm->nv; j++) {
      c->jsd->qacc[j] += (c->jsd->qvel[j] - vs[j]) / dt;
    }
  }
  // forces out: the contact list, the links' wrenches; the warm start of the next step (each
  // side's last link's centre of mass kept: a link's points come together)
  const hsdCharacter *comChar[2] = {NULL, NULL};
  int comLink[2] = {-1, -1};
  double comW[2][3] = {{0, 0, 0}, {0, 0, 0}};
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
      double *com = comW[side], r[3], f[3], t[3];
      if (comChar[side] != c || comLink[side] != k) {
        hsu_rotVec(com, st->linkR + 9 * k, c->body->links[k].com);
        comChar[side] = c;
        comLink[side] = k;
      }
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
    memcpy(q->ch, hc->ch, sizeof q->ch);
    memcpy(q->link, hc->link, sizeof q->link);
    memcpy(q->x, P->xl, sizeof q->x);
    memcpy(q->imp, imp, sizeof imp);
  }
  s->nprev = n;
  extrasOut(w, s, n, np);
  givenReactions(w, s, np);
  // the list keeps the points that touch or push: a gap that carried nothing is not a contact,
  // a gap that pushed closed within the step and touches: depth 0 (the list's depths are
  // penetrations, >= 0, as OpenHRP's idepth)
  int kept = 0;
  for (int i = 0; i < n; i++) {
    const hsdContact *hc = &w->contacts[i];
    if (hc->depth >= 0 || hc->force[0] != 0 || hc->force[1] != 0 || hc->force[2] != 0) {
      hsdContact *out = &w->contacts[kept++];
      if (out != hc) {
        *out = *hc;
      }
      out->depth = fmax(out->depth, 0);
    }
  }
  w->ncontact = kept;
  hsd_groupContacts(w);
}

void hsd_jsContactStats(const hsdWorld *w, int *sweeps, double *change) {
  *sweeps = w && w->jsc ? w->jsc->sweeps : 0;
  *change = w && w->jsc ? w->jsc->change : 0;
}
