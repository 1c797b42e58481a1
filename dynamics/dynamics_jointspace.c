// dynamics_jointspace.c - the joint-space engine: reduced-coordinate forward dynamics of one
// character (hsdJsModel + hsdJsData, dynamics.h).
//
// The phases follow MuJoCo's engine_forward.c over (model, data):
// - position: forward kinematics of the link frames (hsm_forwardKinematics), each link's
//   spatial inertia about the reference point c (the centre of mass), each dof's motion
//   subspace cdof, the composite inertias by one backward pass and the mass matrix by the
//   composite-rigid-body algorithm, armature on the diagonal;
// - velocity: link velocities by one forward pass (cvel = cvel_parent + cdof qvel), the dofs'
//   time derivatives, the bias forces by recursive Newton-Euler with zero acceleration and
//   gravity as the base's acceleration, the damping forces;
// - acceleration: M (+ dt B for implicit damping) factored as L^T D L over the dof tree, with
//   Featherstone's LTDL (Rigid Body Dynamics Algorithms, 6.5): because a dof's parent always has
//   a smaller index, the factors fill nothing outside the ancestors' entries; then qacc.
// Every spatial vector is in world axes about c, so a child's velocity is its parent's plus its
// own dof's term, with no change of frame (MuJoCo's com-based vectors). A step of a character
// whose every joint is given (high gain) skips the joints' mass matrix and its factorisation:
// one Newton-Euler pass, a free root's 6 x 6 composite block (compositeAcceleration). A step
// of one free rigid body (6 dofs, no joint, none given: a box in a pile) takes Newton-Euler
// about its centre of mass in closed form, and its own factors of M for the contacts' solves
// (rigidAcceleration, rigidHalf, rigidRest): no mass matrix, no LTDL.

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dynamics.h"

// pivots of the factorisation below this are raised to it (a massless subtree without armature
// has none) [kg m^2 or kg]
#define JS_MIN_PIVOT 1e-12

//---------------------------------- spatial algebra -------------------------------------------
//
// (util.h's inline hsu_rotVec and hsu_dot serve R v and a . b) r = a x b, r may alias a or b
// (every operand read before r is written; hsu_cross's res may not)
static inline void cross3(double r[3], const double a[3], const double b[3]) {
  double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2];
  r[2] = a[0] * b[1] - a[1] * b[0];
  r[0] = x;
  r[1] = y;
}

// res = v x s for motion vectors v = [w; u], s = [a; b]: [w x a; w x b + u x a]
static void crossMotion(double res[6], const double v[6], const double s[6]) {
  double t[3];
  cross3(res, v, s);
  cross3(res + 3, v, s + 3);
  cross3(t, v + 3, s);
  for (int k = 0; k < 3; k++) {
    res[3 + k] += t[k];
  }
}

// res = v x* f for a motion v = [w; u] and a force f = [n; f]: [w x n + u x f; w x f]
static void crossForce(double res[6], const double v[6], const double f[6]) {
  double t[3];
  cross3(res, v, f);
  cross3(t, v + 3, f + 3);
  cross3(res + 3, v, f + 3);
  for (int k = 0; k < 3; k++) {
    res[k] += t[k];
  }
}

// res = I v for a spatial inertia I = (m, h, Ic: 13 numbers) about c and a motion v = [w; u]:
// [Ic w + h x u; m u - h x w]
static inline void mulInertia(double res[6], const double I[13], const double v[6]) {
  double t[3], hw[3];
  hsu_rotVec(res, I + 4, v);
  cross3(t, I + 1, v + 3);
  cross3(hw, I + 1, v);
  for (int k = 0; k < 3; k++) {
    res[k] += t[k];
    res[3 + k] = I[0] * v[3 + k] - hw[k];
  }
}

// y[0 .. n'-1] -= a x[0 .. n'-1], n' = n rounded up to even (by pairs: the rows of
// factorLTDL's compact rows are padded), each entry on its own; y and x do not overlap
static inline void subScaled(double *restrict y, const double *restrict x, double a, int n) {
  for (int j = 0; j < n; j += 2) {
    y[j] -= a * x[j];
    y[j + 1] -= a * x[j + 1];
  }
}

// x0, x1, x2 [0 .. n-1] -= l [0 .. n-1] times a0, a1, a2, each entry on its own (no overlap)
static inline void subScaled3(double *restrict x0, double *restrict x1, double *restrict x2,
                              const double *restrict l, double a0, double a1, double a2, int n) {
  for (int j = 0; j < n; j++) {
    x0[j] -= l[j] * a0;
    x1[j] -= l[j] * a1;
    x2[j] -= l[j] * a2;
  }
}

static double dot6(const double a[6], const double b[6]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

// the runs and the factor's rows of the tree parent[] (parents before children) over its dofs
// that are not given (given NULL: all): top[j], the first dof of the run of consecutive dofs
// that ends at j, parent[x] = x - 1 for x in top[j] + 1 .. j, so that the ancestors of j, j
// first, are the runs e, e - 1, .. top[e] for e = j, parent[top[e]], ... until -1 (the loops
// over a dof's path walk index ranges, not a chain of parent[] loads); len[j], the length of
// that path (0 if given) and adr[j], the start of j's row in factorLTDL's compact rows (len[j]
// rounded up to even: the rows' updates go by pairs)
static void treeRuns(int nv, const int *parent, const unsigned char *given, int *top, int *len,
                     int *adr) {
  adr[0] = 0;
  for (int j = 0; j < nv; j++) {
    int p = parent[j];
    top[j] = j > 0 && p == j - 1 ? top[j - 1] : j;
    len[j] = given && given[j] ? 0 : p < 0 ? 1 : len[p] + 1;
    adr[j + 1] = adr[j] + (len[j] + 1) / 2 * 2;
  }
}

//---------------------------------- model -----------------------------------------------------

// the damping URDF gave the joint of link k ("urdf dynamics <link> <damping> <friction>" in
// the body's info), 0 if none
static double urdfDamping(const hsBody *b, int k) {
  for (int i = 0; i < b->ninfo; i++) {
    char name[256];
    double damping, friction;
    if (sscanf(b->info[i], "urdf dynamics %255s %lf %lf", name, &damping, &friction) == 3 &&
        strcmp(name, b->links[k].name) == 0 && isfinite(damping) && damping > 0) {
      return damping;
    }
  }
  return 0;
}

hsdJsModel *hsd_makeJsModel(const hsBody *body, hsError *err) {
  if (!body || body->nlink < 1 || !body->links || body->links[0].parent != -1) {
    HS_ERR(err, hsE_INVALID, "joint-space model: the body has no links or no root");
    return NULL;
  }
  int n = body->nlink;
  int nroot = body->links[0].jointType == hsJOINT_FREE ? 6 : 0, nv = nroot;
  for (int i = 1; i < n; i++) {
    const hsLink *l = &body->links[i];
    if (l->parent < 0 || l->parent >= i) {
      HS_ERR(err, hsE_INVALID, "joint-space model: body %s, link %s is not in depth-first order",
             body->name, l->name);
      return NULL;
    }
    nv += hsm_hasOneDofJoint(l);
  }
  // one block: the struct, then the int arrays, then the double arrays
  size_t nint = 5 * (size_t)nv + 1 + 2 * (size_t)n, ndbl = 2 * (size_t)nv;
  size_t head = (sizeof(hsdJsModel) + sizeof(double) - 1) / sizeof(double) * sizeof(double);
  size_t ints = (nint * sizeof(int) + sizeof(double) - 1) / sizeof(double) * sizeof(double);
  char *block = hsu_calloc(1, head + ints + ndbl * sizeof(double));
  if (!block) {
    HS_ERR(err, hsE_NOMEM, "out of memory");
    return NULL;
  }
  hsdJsModel *m = (hsdJsModel *)block;
  int *dofLink = (int *)(block + head), *dofParent = dofLink + nv, *linkDof = dofParent + nv;
  int *linkLastDof = linkDof + n, *dofTop = linkLastDof + n, *dofLen = dofTop + nv;
  int *dofAdr = dofLen + nv;
  double *armature = (double *)(block + head + ints), *damping = armature + nv;
  m->body = body;
  m->nv = nv;
  m->nroot = nroot;
  // the root's dofs form a chain; each joint's dof rides on the last dof above it
  for (int j = 0; j < nroot; j++) {
    dofLink[j] = 0;
    dofParent[j] = j - 1;
  }
  linkDof[0] = nroot ? 0 : -1;
  linkLastDof[0] = nroot - 1;
  int next = nroot;
  for (int i = 1; i < n; i++) {
    const hsLink *l = &body->links[i];
    int above = linkLastDof[l->parent];
    if (hsm_hasOneDofJoint(l)) {
      int j = next++;
      dofLink[j] = i;
      dofParent[j] = above;
      linkDof[i] = j;
      linkLastDof[i] = j;
      double gr = l->gearRatio;
      armature[j] = l->rotorInertia * gr * gr;
      damping[j] = urdfDamping(body, i);
      m->damped |= damping[j] != 0;
    } else {
      linkDof[i] = -1;
      linkLastDof[i] = above;
    }
  }
  treeRuns(nv, dofParent, NULL, dofTop, dofLen, dofAdr);
  m->dofLink = dofLink;
  m->dofParent = dofParent;
  m->dofTop = dofTop;
  m->dofLen = dofLen;
  m->dofAdr = dofAdr;
  m->linkDof = linkDof;
  m->linkLastDof = linkLastDof;
  m->armature = armature;
  m->damping = damping;
  m->links = body->links;
  return m;
}

void hsd_freeJsModel(hsdJsModel *m) {
  if (m) {
    hsu_free(m->own);
  }
  hsu_free(m);
}

int hsd_setJsLinkMass(hsdJsModel *m, int k, double mass, const double com[3],
                      const double inertia[9], hsError *err) {
  if (!m->own) {
    size_t n = (size_t)m->body->nlink;
    m->own = hsu_malloc(n * sizeof *m->own);
    if (!m->own) {
      return HS_ERR(err, hsE_NOMEM, "out of memory");
    }
    memcpy(m->own, m->body->links, n * sizeof *m->own);  // (shallow: names stay the body's)
    m->links = m->own;
  }
  hsLink *l = &m->own[k];
  l->mass = mass;
  memcpy(l->com, com, sizeof l->com);
  memcpy(l->inertia, inertia, sizeof l->inertia);
  return 0;
}

//---------------------------------- data ------------------------------------------------------

hsdJsData *hsd_makeJsData(const hsdJsModel *m, hsError *err) {
  int nv = m->nv, n = m->body->nlink;
  // one block: the struct, the compact rows of M and of the factor (each at most
  // nv (nv + 1) / 2 doubles and nv of padding), freeParent, freeTop, freeLen, freeAdr, given
  size_t nfac = (size_t)nv * ((size_t)nv + 3) / 2;
  hsdJsData *d = hsu_calloc(1, sizeof *d + 2 * nfac * sizeof(double) +
                                   (4 * (size_t)nv + 1) * sizeof(int) + (size_t)nv);
  size_t ndbl = (size_t)nv * (4 + 6 + 6 + 1 + 2) + 2 * (size_t)nv * (size_t)nv +
                (size_t)n * (6 + 13 + 13 + 6 + 6 + 6);
  double *pool = d ? hsu_calloc(ndbl, sizeof(double)) : NULL;
  hsBodyState *st = pool ? hsm_makeState(m->body, err) : NULL;
  if (!st) {
    hsu_free(pool);
    hsu_free(d);
    if (!d || !pool) {
      HS_ERR(err, hsE_NOMEM, "out of memory");
    }
    return NULL;
  }
  d->st = st;
  d->qvel = pool;
  d->qfrc = d->qvel + nv;
  d->qfrcBias = d->qfrc + nv;
  d->qfrcPassive = d->qfrcBias + nv;
  d->qacc = d->qfrcPassive + nv;
  d->cdof = d->qacc + nv;
  d->cdofDot = d->cdof + 6 * (size_t)nv;
  d->M = d->cdofDot + 6 * (size_t)nv;
  d->LD = d->M + (size_t)nv * (size_t)nv;
  d->xfrc = d->LD + (size_t)nv * (size_t)nv;
  d->cinert = d->xfrc + 6 * (size_t)n;
  d->crb = d->cinert + 13 * (size_t)n;
  d->cvel = d->crb + 13 * (size_t)n;
  d->cacc = d->cvel + 6 * (size_t)n;
  d->cfrc = d->cacc + 6 * (size_t)n;
  d->qaccGiven = d->cfrc + 6 * (size_t)n;
  d->qfrcGiven = d->qaccGiven + nv;
  d->Mc = (double *)(d + 1);
  d->fac = d->Mc + nfac;
  d->freeParent = (int *)(d->fac + nfac);
  d->freeTop = d->freeParent + nv;
  d->freeLen = d->freeTop + nv;
  d->freeAdr = d->freeLen + nv;
  d->given = (unsigned char *)(d->freeAdr + nv + 1);
  d->g[2] = -9.8;
  return d;
}

// doubles in the pool of a data for m (hsd_makeJsData)
static size_t poolDoubles(const hsdJsModel *m) {
  size_t nv = (size_t)m->nv, n = (size_t)m->body->nlink;
  return nv * (4 + 6 + 6 + 1 + 2) + 2 * nv * nv + n * (6 + 13 + 13 + 6 + 6 + 6);
}

void hsd_jsDataBytes(const hsdJsModel *m, hsdJsData *d, hsuBytes *b, int save) {
  size_t nv = (size_t)m->nv;
  hsd_bodyStateBytes(d->st, b, save);
  hsu_bytesField(b, save, &d->posesCurrent, sizeof d->posesCurrent);
  hsu_bytesField(b, save, d->qvel, poolDoubles(m) * sizeof(double));
  hsu_bytesField(b, save, d->g, sizeof d->g);
  hsu_bytesField(b, save, d->given, nv);
  hsu_bytesField(b, save, d->c, sizeof d->c);
  hsu_bytesField(b, save, &d->mass, sizeof d->mass);
  hsu_bytesField(b, save, d->freeParent, nv * sizeof(int));
  hsu_bytesField(b, save, &d->badPivots, sizeof d->badPivots);
}

void hsd_freeJsData(hsdJsData *d) {
  if (d) {
    hsm_freeState(d->st);
    hsu_free(d->qvel);  // the pool
    hsu_free(d);
  }
}

//---------------------------------- position --------------------------------------------------

// link i's spatial inertia about c (13 numbers: m, m r, Ic), r its centre of mass less c; on
// entry I[1..3] holds R com, the centre's offset from the link origin (positionKinematics')
static void linkInertia(const hsLink *l, const double p[3], const double R[9],
                        const double c[3], double I[13]) {
  double x[3] = {I[1], I[2], I[3]}, r[3], RI[9];
  for (int a = 0; a < 3; a++) {
    for (int b = 0; b < 3; b++) {
      RI[3 * a + b] = R[3 * a] * l->inertia[b] + R[3 * a + 1] * l->inertia[3 + b] +
                      R[3 * a + 2] * l->inertia[6 + b];
    }
  }
  double m = l->mass;
  for (int k = 0; k < 3; k++) {
    r[k] = p[k] + x[k] - c[k];
  }
  double rr = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
  I[0] = m;
  for (int a = 0; a < 3; a++) {
    I[1 + a] = m * r[a];
    for (int b = 0; b < 3; b++) {
      // (R I R^T)[a][b] + m (|r|^2 [a == b] - r_a r_b)
      double Iw =
          RI[3 * a] * R[3 * b] + RI[3 * a + 1] * R[3 * b + 1] + RI[3 * a + 2] * R[3 * b + 2];
      I[4 + 3 * a + b] = Iw + m * ((a == b ? rr : 0) - r[a] * r[b]);
    }
  }
}

// the position phase up to the mass matrix: link poses (FK, unless current), the centre of
// mass, cinert, the composite inertias crb, cdof
static void positionKinematics(const hsdJsModel *m, hsdJsData *d) {
  const hsBody *b = m->body;
  hsBodyState *st = d->st;
  int n = b->nlink, nv = m->nv;
  if (!d->posesCurrent) {
    hsm_forwardKinematics(b, st);
  }
  d->posesCurrent = 0;
  // the reference point: the centre of mass (the root's origin for a massless body)
  double mc[3] = {0, 0, 0};
  d->mass = 0;
  for (int i = 0; i < n; i++) {
    const hsLink *l = &m->links[i];
    double *x = d->cinert + 13 * i + 1;  // (R com, kept there for linkInertia)
    hsu_rotVec(x, st->linkR + 9 * i, l->com);
    for (int k = 0; k < 3; k++) {
      mc[k] += l->mass * (st->linkP[3 * i + k] + x[k]);
    }
    d->mass += l->mass;
  }
  for (int k = 0; k < 3; k++) {
    d->c[k] = d->mass > 0 ? mc[k] / d->mass : st->rootP[k];
  }
  // spatial inertias, composite inertias (backward pass)
  for (int i = 0; i < n; i++) {
    linkInertia(&m->links[i], st->linkP + 3 * i, st->linkR + 9 * i, d->c, d->cinert + 13 * i);
  }
  memcpy(d->crb, d->cinert, 13 * (size_t)n * sizeof *d->crb);
  for (int i = n - 1; i > 0; i--) {
    double *cp = d->crb + 13 * b->links[i].parent, *ci = d->crb + 13 * i;
    for (int k = 0; k < 13; k++) {
      cp[k] += ci[k];
    }
  }
  // motion subspaces: a free root's translations along and rotations about the world axes
  // through its origin; a rotate joint about its axis through the link origin; a slide along it
  if (m->nroot) {
    double pc[3] = {d->c[0] - st->linkP[0], d->c[1] - st->linkP[1], d->c[2] - st->linkP[2]};
    memset(d->cdof, 0, 36 * sizeof *d->cdof);
    for (int k = 0; k < 3; k++) {
      double a[3] = {0, 0, 0}, *s = d->cdof + 6 * (3 + k);
      a[k] = 1;
      d->cdof[6 * k + 3 + k] = 1;
      s[k] = 1;
      cross3(s + 3, a, pc);
    }
  }
  for (int j = m->nroot; j < nv; j++) {
    double *s = d->cdof + 6 * j;
    memset(s, 0, 6 * sizeof *s);
    int i = m->dofLink[j];
    const double *p = st->linkP + 3 * i;
    double a[3], pc[3] = {d->c[0] - p[0], d->c[1] - p[1], d->c[2] - p[2]};
    const hsLink *l = &b->links[i];
    hsu_rotVec(a, st->linkR + 9 * i, l->axis);
    double na = hsu_norm(a);
    for (int k = 0; k < 3; k++) {
      a[k] /= na;
    }
    if (l->jointType == hsJOINT_ROTATE) {
      memcpy(s, a, sizeof a);
      cross3(s + 3, a, pc);
    } else {
      memcpy(s + 3, a, sizeof a);
    }
  }
}

// the mass matrix by composite rigid bodies (after positionKinematics): M[j][k] =
// cdof_k . (crb_link(j) cdof_j) for k = j and each dof above j; the armature on the diagonal.
// Rows below last are left as they are (the free root's block alone: last = 5). The same
// entries of the rows, the lower triangle's, go into Mc, the factorisation's compact rows
// (factorLTDL) of the model's tree
static void massMatrix(const hsdJsModel *m, hsdJsData *d, int last) {
  int nv = m->nv;
  for (int j = 0; j <= last; j++) {
    double f[6], *mc = d->Mc + m->dofAdr[j] + m->dofLen[j] - 1;
    mulInertia(f, d->crb + 13 * m->dofLink[j], d->cdof + 6 * j);
    // j's path, a run of consecutive dofs at a time (Mc's row backwards from the diagonal)
    for (int e = j; e >= 0; e = m->dofParent[m->dofTop[e]]) {
      for (int k = e; k >= m->dofTop[e]; k--) {
        double v = dot6(d->cdof + 6 * k, f);
        d->M[(size_t)j * nv + k] = v;
        d->M[(size_t)k * nv + j] = v;
        *mc-- = v;
      }
    }
    d->M[(size_t)j * nv + j] += m->armature[j];
    d->Mc[m->dofAdr[j] + m->dofLen[j] - 1] = d->M[(size_t)j * nv + j];
  }
}

void hsd_jsPosition(const hsdJsModel *m, hsdJsData *d) {
  positionKinematics(m, d);
  massMatrix(m, d, m->nv - 1);
}

//---------------------------------- velocity --------------------------------------------------

// recursive Newton-Euler over the links: cacc (from the base's acceleration -g, cdofDot qvel
// and, when qacc is not NULL, cdof qacc), cfrc (I a + v x* I v, less the external forces when
// ext is set), summed into the parents; gen[j] = cdof_j . cfrc_link(j)
static void newtonEuler(const hsdJsModel *m, hsdJsData *d, const double *qacc, int ext,
                        double *gen) {
  const hsBody *b = m->body;
  int n = b->nlink;
  for (int i = 0; i < n; i++) {
    double *a = d->cacc + 6 * i;
    if (i == 0) {
      double base[6] = {0, 0, 0, -d->g[0], -d->g[1], -d->g[2]};
      memcpy(a, base, sizeof base);
    } else {
      memcpy(a, d->cacc + 6 * b->links[i].parent, 6 * sizeof *a);
    }
    int j0 = m->linkDof[i], j1 = j0 < 0 ? j0 : (i == 0 ? m->nroot : j0 + 1);
    for (int j = j0; j >= 0 && j < j1; j++) {
      for (int k = 0; k < 6; k++) {
        a[k] += d->cdofDot[6 * j + k] * d->qvel[j] + (qacc ? d->cdof[6 * j + k] * qacc[j] : 0);
      }
    }
    double Ia[6], Iv[6], vIv[6];
    const double *I = d->cinert + 13 * i, *v = d->cvel + 6 * i;
    mulInertia(Ia, I, a);
    mulInertia(Iv, I, v);
    crossForce(vIv, v, Iv);
    double *f = d->cfrc + 6 * i;
    for (int k = 0; k < 6; k++) {
      f[k] = Ia[k] + vIv[k];
    }
    if (ext) {
      // external force at the link origin: its torque about c gains (p - c) x f
      const double *x = d->xfrc + 6 * i, *p = d->st->linkP + 3 * i;
      double r[3] = {p[0] - d->c[0], p[1] - d->c[1], p[2] - d->c[2]}, t[3];
      cross3(t, r, x);
      for (int k = 0; k < 3; k++) {
        f[k] -= x[3 + k] + t[k];
        f[3 + k] -= x[k];
      }
    }
  }
  for (int i = n - 1; i > 0; i--) {
    double *fp = d->cfrc + 6 * b->links[i].parent, *fi = d->cfrc + 6 * i;
    for (int k = 0; k < 6; k++) {
      fp[k] += fi[k];
    }
  }
  for (int j = 0; j < m->nv; j++) {
    gen[j] = dot6(d->cdof + 6 * j, d->cfrc + 6 * m->dofLink[j]);
  }
}

// the link velocities cvel (the velocity phase's first part)
static void linkVelocities(const hsdJsModel *m, hsdJsData *d) {
  const hsBody *b = m->body;
  int n = b->nlink;
  // link velocities; a free root's from its six dofs
  memset(d->cvel, 0, 6 * sizeof *d->cvel);
  for (int j = 0; j < m->nroot; j++) {
    for (int k = 0; k < 6; k++) {
      d->cvel[k] += d->cdof[6 * j + k] * d->qvel[j];
    }
  }
  for (int i = 1; i < n; i++) {
    double *v = d->cvel + 6 * i;
    memcpy(v, d->cvel + 6 * b->links[i].parent, 6 * sizeof *v);
    int j = m->linkDof[i];
    for (int k = 0; j >= 0 && k < 6; k++) {
      v[k] += d->cdof[6 * j + k] * d->qvel[j];
    }
  }
}

// the velocity phase's kinematics: link velocities cvel, the subspaces' derivatives cdofDot
static void velocityKinematics(const hsdJsModel *m, hsdJsData *d) {
  int nv = m->nv;
  linkVelocities(m, d);
  // time derivatives of the subspaces: a joint's moves with its link (cvel x cdof); a free
  // root's rotations move with its origin ([0; v x e]), its translations not at all
  for (int j = 0; j < nv; j++) {
    double *sd = d->cdofDot + 6 * j;
    if (j < m->nroot) {
      memset(sd, 0, 6 * sizeof *sd);
      if (j >= 3) {
        double e[3] = {0, 0, 0};
        e[j - 3] = 1;
        cross3(sd + 3, d->qvel, e);
      }
    } else {
      crossMotion(sd, d->cvel + 6 * m->dofLink[j], d->cdof + 6 * j);
    }
  }
}

void hsd_jsVelocity(const hsdJsModel *m, hsdJsData *d) {
  velocityKinematics(m, d);
  newtonEuler(m, d, NULL, 0, d->qfrcBias);
  for (int j = 0; j < m->nv; j++) {
    d->qfrcPassive[j] = -m->damping[j] * d->qvel[j];
  }
}

//---------------------------------- acceleration ----------------------------------------------

// factor H = M + dt B (nv x nv, the tree's entries; B diagonal, damp[j] its B_jj) as L^T D L
// (Featherstone's LTDL) into LD over the dofs that are not given, parent[] their tree, top[],
// len[] and adr[] its runs and compact rows (treeRuns), C scratch for those rows; Mc, if not
// NULL, M's compact rows in that tree (massMatrix's, no dof given); LD's other entries stay as
// they are. Returns the pivots that had to be raised to JS_MIN_PIVOT. A compact row holds k's
// entries along its path from the root down to k (the diagonal last): an ancestor i of k sits
// at len[i] - 1 and i's own row is a prefix of k's, so row i's update by row k is one straight
// loop from the rows' starts (by pairs: a row's padding takes the odd one's partner). Each
// entry sees the same operations in the same order as on H's own rows before
static int factorLTDL(int nv, const int *parent, const int *top, const int *len,
                      const int *adr, const unsigned char *given, const double *M,
                      const double *Mc, double dt, const double *damp, double *LD, double *C) {
  // M's path entries into C, a run at a time from the row's end, and dt B
  if (Mc) {
    memcpy(C, Mc, (size_t)adr[nv] * sizeof *C);
  }
  for (int j = 0; j < nv; j++) {
    double *cj = C + adr[j] + len[j];
    const double *mj = M + (size_t)j * nv;
    for (int e = given[j] || Mc ? -1 : j; e >= 0; e = parent[top[e]]) {
      cj -= e - top[e] + 1;
      memcpy(cj, mj + top[e], (size_t)(e - top[e] + 1) * sizeof *cj);
    }
    if (!given[j]) {
      C[adr[j] + len[j] - 1] += dt * damp[j];
    }
  }
  int bad = 0;
  for (int k = nv - 1; k >= 0; k--) {
    if (given[k]) {
      continue;
    }
    double *rk = C + adr[k], dk = rk[len[k] - 1];
    if (!(dk >= JS_MIN_PIVOT)) {
      dk = rk[len[k] - 1] = JS_MIN_PIVOT;
      bad++;
    }
    // each ancestor i, nearest first: row i -= (H_ki / H_kk) row k, then H_ki = that ratio
    for (int e = parent[k]; e >= 0; e = parent[top[e]]) {
      for (int i = e; i >= top[e]; i--) {
        int li = len[i];
        double a = rk[li - 1] / dk;
        subScaled(C + adr[i], rk, a, li);
        rk[li - 1] = a;
      }
    }
  }
  // the factors into LD's entries
  for (int j = 0; j < nv; j++) {
    const double *cj = C + adr[j] + len[j];
    double *hj = LD + (size_t)j * nv;
    for (int e = given[j] ? -1 : j; e >= 0; e = parent[top[e]]) {
      cj -= e - top[e] + 1;
      memcpy(hj + top[e], cj, (size_t)(e - top[e] + 1) * sizeof *cj);
    }
  }
  return bad;
}

// solveLTDL's first two passes: x = D^-1 L^-T x over the dofs that are not given (a contact's
// Jacobian row stays on its path to the root: sparse skips the zero entries, which changes no
// bit)
static void solveLTDLHalf(int nv, const int *parent, const unsigned char *given,
                          const double *LD, double *x, int sparse) {
  for (int k = nv - 1; k >= 0; k--) {
    if (sparse && x[k] == 0) {
      continue;
    }
    const double *rk = LD + (size_t)k * nv;
    for (int i = given[k] ? -1 : parent[k]; i >= 0; i = parent[i]) {
      x[i] -= rk[i] * x[k];
    }
  }
  for (int k = 0; k < nv; k++) {
    if (!given[k] && !(sparse && x[k] == 0)) {
      x[k] /= LD[(size_t)k * nv + k];
    }
  }
}

// solveLTDL's last pass: x = L^-1 x
static void solveLTDLRest(int nv, const int *parent, const unsigned char *given,
                          const double *LD, double *x) {
  for (int k = 0; k < nv; k++) {
    if (given[k]) {
      continue;
    }
    const double *rk = LD + (size_t)k * nv;
    double xk = x[k];
    for (int i = parent[k]; i >= 0; i = parent[i]) {
      xk -= rk[i] * x[i];
    }
    x[k] = xk;
  }
}

// solve (L^T D L) x = x in place over the dofs that are not given, with factorLTDL's factors
static void solveLTDL(int nv, const int *parent, const unsigned char *given, const double *LD,
                      double *x, int sparse) {
  solveLTDLHalf(nv, parent, given, LD, x, sparse);
  solveLTDLRest(nv, parent, given, LD, x);
}

void hsd_jsAcceleration(const hsdJsModel *m, hsdJsData *d, double dtImplicit) {
  const hsBody *b = m->body;
  int n = b->nlink, nv = m->nv, ngiven = 0;
  d->givenPath = 0;
  // the external forces as generalized forces (J^T xfrc): spatial forces about c summed
  // towards the root, projected on each dof
  for (int i = 0; i < n; i++) {
    const double *x = d->xfrc + 6 * i, *p = d->st->linkP + 3 * i;
    double r[3] = {p[0] - d->c[0], p[1] - d->c[1], p[2] - d->c[2]}, *f = d->cfrc + 6 * i;
    cross3(f, r, x);
    for (int k = 0; k < 3; k++) {
      f[k] += x[3 + k];
      f[3 + k] = x[k];
    }
  }
  for (int i = n - 1; i > 0; i--) {
    double *fp = d->cfrc + 6 * b->links[i].parent, *fi = d->cfrc + 6 * i;
    for (int k = 0; k < 6; k++) {
      fp[k] += fi[k];
    }
  }
  for (int j = 0; j < nv; j++) {
    d->qacc[j] = d->qfrc[j] - d->qfrcBias[j] + d->qfrcPassive[j] +
                 dot6(d->cdof + 6 * j, d->cfrc + 6 * m->dofLink[j]);
    ngiven += d->given[j] != 0;
  }
  const int *parent = m->dofParent, *top = m->dofTop, *len = m->dofLen, *adr = m->dofAdr;
  if (ngiven > 0) {
    // the given dofs' accelerations move to the right-hand side; the free dofs' tree skips them
    for (int j = 0; j < nv; j++) {
      int p = m->dofParent[j];
      while (p >= 0 && d->given[p]) {
        p = m->dofParent[p];
      }
      d->freeParent[j] = p;
      for (int k = m->dofParent[j]; k >= 0; k = m->dofParent[k]) {
        double Mjk = d->M[(size_t)j * nv + k];
        if (d->given[k] && !d->given[j]) {
          d->qacc[j] -= Mjk * d->qaccGiven[k];
        } else if (d->given[j] && !d->given[k]) {
          d->qacc[k] -= Mjk * d->qaccGiven[j];
        }
      }
    }
    treeRuns(nv, d->freeParent, d->given, d->freeTop, d->freeLen, d->freeAdr);
    parent = d->freeParent;
    top = d->freeTop;
    len = d->freeLen;
    adr = d->freeAdr;
  }
  // M (+ dt B) factored into LD, the free dofs' tree entries only, and solved (a given dof's
  // diagonal entry in LD gains dt B too, as it always has: nothing reads it)
  for (int j = 0; j < nv && ngiven > 0; j++) {
    if (d->given[j]) {
      d->LD[(size_t)j * nv + j] += dtImplicit * m->damping[j];
    }
  }
  d->badPivots = factorLTDL(nv, parent, top, len, adr, d->given, d->M, ngiven ? NULL : d->Mc,
                            dtImplicit, m->damping, d->LD, d->fac);
  solveLTDL(nv, parent, d->given, d->LD, d->qacc, 0);
  if (ngiven > 0) {
    for (int j = 0; j < nv; j++) {
      if (d->given[j]) {
        d->qacc[j] = d->qaccGiven[j];
      }
    }
    // what the given dofs took: inverse dynamics at this acceleration, less what was applied
    // (damping implicit in the step: its force at the step's end velocity)
    newtonEuler(m, d, d->qacc, 1, d->qfrcGiven);
    for (int j = 0; j < nv; j++) {
      double dampEnd = m->damping[j] * (d->qvel[j] + dtImplicit * d->qacc[j]);
      d->qfrcGiven[j] = d->given[j] ? d->qfrcGiven[j] + m->armature[j] * d->qacc[j] + dampEnd -
                                          d->qfrc[j]
                                    : 0;
    }
  } else {
    memset(d->qfrcGiven, 0, (size_t)nv * sizeof *d->qfrcGiven);
  }
}

// the path a character's given dofs allow (hsdJsData.givenPath): 1 if the free root's six
// dofs are the only ones not given (every joint prescribed, the root free: a robot in high
// gain), the composite rigid body; 2 if every dof is given and there are joints (a fixed-root or
// position-given robot in high gain), inverse dynamics alone; 0 otherwise, the general path
static int givenPath(const hsdJsModel *m, const hsdJsData *d) {
  int freeRoot = 0;
  if (m->nv == m->nroot) {
    return 0;
  }
  for (int j = 0; j < m->nv; j++) {
    if (!d->given[j] && j >= m->nroot) {
      return 0;
    }
    freeRoot += !d->given[j];
  }
  return freeRoot == 0 ? 2 : freeRoot == 6 ? 1 : 0;
}

// the acceleration phase of a character whose joints are all given (givenPath 1 or 2), after
// positionKinematics, velocityKinematics and the damping forces, without the joints' rows of M
// or their factorisation: one recursive Newton-Euler pass at the given accelerations (and the
// free root's zero) gives every dof's force (the bias, the given motion's, less J^T xfrc). A
// free root (1): the root's 6 x 6 block of M (the composite inertia of the whole character,
// crb of link 0, seen by its dofs) is factored and solved for the root's acceleration, and a
// joint's force gains what that acceleration A takes from its subtree: A is the same spatial
// vector for every link, so that is cdof_j . (crb_link(j) A), M_jr qacc_r without M_jr
static void compositeAcceleration(const hsdJsModel *m, hsdJsData *d, double dtImplicit) {
  int nv = m->nv, root = d->givenPath == 1;
  double *qacc = d->qacc, *gen = d->qfrcGiven;
  for (int j = 0; j < nv; j++) {
    qacc[j] = root && j < 6 ? 0 : d->qaccGiven[j];
    d->freeParent[j] = !root ? -1 : j < 6 ? j - 1 : 5;
  }
  treeRuns(nv, d->freeParent, d->given, d->freeTop, d->freeLen, d->freeAdr);
  newtonEuler(m, d, qacc, 1, gen);
  double A[6] = {0, 0, 0, 0, 0, 0};
  d->badPivots = 0;
  if (root) {
    massMatrix(m, d, 5);
    for (int j = 0; j < 6; j++) {
      qacc[j] = d->qfrc[j] + d->qfrcPassive[j] - gen[j];
    }
    d->badPivots = factorLTDL(nv, d->freeParent, d->freeTop, d->freeLen, d->freeAdr, d->given,
                              d->M, NULL, dtImplicit, m->damping, d->LD, d->fac);
    solveLTDL(nv, d->freeParent, d->given, d->LD, qacc, 0);
    for (int j = 0; j < 6; j++) {
      for (int k = 0; k < 6; k++) {
        A[k] += d->cdof[6 * j + k] * qacc[j];
      }
    }
  }
  for (int j = 0; j < nv; j++) {
    if (!d->given[j]) {
      gen[j] = 0;
      continue;
    }
    double dampEnd = m->damping[j] * (d->qvel[j] + dtImplicit * qacc[j]);
    if (root) {
      double F[6];
      mulInertia(F, d->crb + 13 * m->dofLink[j], A);
      gen[j] += dot6(d->cdof + 6 * j, F);
    }
    gen[j] += m->armature[j] * qacc[j] + dampEnd - d->qfrc[j];
  }
}

// the path of a character that is one free rigid body (hsdJsData.givenPath 3): a free root,
// no joint (links welded to the root are one body with it), no dof given
static int rigidPath(const hsdJsModel *m, const hsdJsData *d) {
  if (m->nv != 6 || m->nroot != 6) {
    return 0;
  }
  for (int j = 0; j < 6; j++) {
    if (d->given[j]) {
      return 0;
    }
  }
  return 1;
}

// the acceleration phase of a free rigid body (rigidPath) in closed form, after
// positionKinematics and linkVelocities; 0, or -1 (nothing written) when its mass or its
// inertia about c has a pivot below JS_MIN_PIVOT (the general path raises it and warns).
// With r = c - o (o the root's origin), the velocity of c is v_c = v + w x r, so M = U^T D U
// for U = [[1, -[r]x], [0, L]] and D = (m, m, m, D_I), L^T D_I L = I the inertia about c
// (LTDL of its 3 x 3, L unit lower). LD takes D on its diagonal, L below it in the rotations'
// block and -[r]x above it in the rows of the translations (rigidHalf, rigidRest solve with
// them). Newton-Euler, F the applied force with gravity, n_c the torque about c:
// a_c = F / m, I w' = n_c - w x I w, and the origin's a = a_c - w' x r - w x (w x r)
static int rigidAcceleration(const hsdJsModel *m, hsdJsData *d) {
  const hsBody *b = m->body;
  const double *I = d->crb + 4, *o = d->st->linkP, *v = d->qvel + 3;
  double mass = d->mass, *LD = d->LD;
  // I = L^T D_I L by Featherstone's LTDL (its rows 2, then 1, then 0)
  double d2 = I[8], l20 = I[6] / d2, l21 = I[7] / d2;
  double d1 = I[4] - l21 * I[7], i10 = I[3] - l21 * I[6], l10 = i10 / d1;
  double d0 = I[0] - l20 * I[6] - l10 * i10;
  if (!(mass >= JS_MIN_PIVOT && d0 >= JS_MIN_PIVOT && d1 >= JS_MIN_PIVOT &&
        d2 >= JS_MIN_PIVOT)) {
    return -1;
  }
  double r[3] = {d->c[0] - o[0], d->c[1] - o[1], d->c[2] - o[2]};
  memset(LD, 0, 36 * sizeof *LD);
  LD[0] = LD[7] = LD[14] = mass;
  LD[21] = d0;
  LD[28] = d1;
  LD[35] = d2;
  LD[27] = l10;
  LD[33] = l20;
  LD[34] = l21;
  // -[r]x in rows 0..2, columns 3..5
  LD[4] = r[2];
  LD[5] = -r[1];
  LD[9] = -r[2];
  LD[11] = r[0];
  LD[15] = r[1];
  LD[16] = -r[0];
  // the applied force f and its torque n about c: the root dofs' (f at o, the torque about o),
  // each link's external force at its origin and torque
  double f[3], n[3], t[3];
  memcpy(f, d->qfrc, sizeof f);
  cross3(t, f, r);  // (o - c) x f
  for (int k = 0; k < 3; k++) {
    n[k] = d->qfrc[3 + k] + t[k];
  }
  for (int i = 0; i < b->nlink; i++) {
    const double *x = d->xfrc + 6 * i, *p = d->st->linkP + 3 * i;
    double ri[3] = {p[0] - d->c[0], p[1] - d->c[1], p[2] - d->c[2]};
    cross3(t, ri, x);
    for (int k = 0; k < 3; k++) {
      f[k] += x[k];
      n[k] += x[3 + k] + t[k];
    }
  }
  // w' = I^-1 (n - w x I w)
  double Iw[3], wIw[3], wd[3];
  hsu_rotVec(Iw, I, v);
  cross3(wIw, v, Iw);
  for (int k = 0; k < 3; k++) {
    wd[k] = n[k] - wIw[k];
  }
  wd[1] -= l21 * wd[2];
  wd[0] -= l10 * wd[1] + l20 * wd[2];
  wd[0] /= d0;
  wd[1] /= d1;
  wd[2] /= d2;
  wd[1] -= l10 * wd[0];
  wd[2] -= l20 * wd[0] + l21 * wd[1];
  // the origin's acceleration
  double wr[3], wwr[3], wdr[3];
  cross3(wr, v, r);
  cross3(wwr, v, wr);
  cross3(wdr, wd, r);
  for (int k = 0; k < 3; k++) {
    d->qacc[k] = f[k] / mass + d->g[k] - wdr[k] - wwr[k];
    d->qacc[3 + k] = wd[k];
    d->qfrcPassive[k] = d->qfrcPassive[3 + k] = 0;
    d->qfrcGiven[k] = d->qfrcGiven[3 + k] = 0;
  }
  d->badPivots = 0;
  return 0;
}

// x = D^-1 U^-T x with a free rigid body's factors (rigidAcceleration): U^T z = x is z = x on
// the translations, L^T z = x_r - r x x_t on the rotations
static void rigidHalf(const double *LD, double x[6]) {
  double r[3] = {LD[11], LD[15], LD[4]}, t[3];
  cross3(t, r, x);
  for (int k = 0; k < 3; k++) {
    x[3 + k] -= t[k];
  }
  x[4] -= LD[34] * x[5];
  x[3] -= LD[27] * x[4] + LD[33] * x[5];
  for (int k = 0; k < 6; k++) {
    x[k] /= LD[7 * k];
  }
}

// x = U^-1 x with a free rigid body's factors: L x_r = x_r, then x_t = x_t + r x x_r
static void rigidRest(const double *LD, double x[6]) {
  double r[3] = {LD[11], LD[15], LD[4]}, t[3];
  x[4] -= LD[27] * x[3];
  x[5] -= LD[33] * x[3] + LD[34] * x[4];
  cross3(t, r, x + 3);
  for (int k = 0; k < 3; k++) {
    x[k] += t[k];
  }
}

void hsd_jsGivenReaction(const hsdJsModel *m, const hsdJsData *d, const double *vstar,
                         double dt, double *f) {
  int nv = m->nv;
  if (d->givenPath == 2 || d->givenPath == 3) {
    return;  // (nothing is free, or nothing given)
  }
  if (d->givenPath == 1) {
    double A[6] = {0, 0, 0, 0, 0, 0}, F[6];
    for (int r = 0; r < 6; r++) {
      for (int k = 0; k < 6; k++) {
        A[k] += d->cdof[6 * r + k] * (d->qvel[r] - vstar[r]);
      }
    }
    for (int j = 6; j < nv; j++) {
      mulInertia(F, d->crb + 13 * m->dofLink[j], A);
      f[j] += dot6(d->cdof + 6 * j, F) / dt;
    }
    return;
  }
  for (int j = 0; j < nv; j++) {
    if (!d->given[j]) {
      continue;
    }
    double s = 0;
    for (int k = 0; k < nv; k++) {
      s += d->given[k] ? 0 : d->M[(size_t)j * nv + k] * (d->qvel[k] - vstar[k]);
    }
    f[j] += s / dt;
  }
}

void hsd_jsForward(const hsdJsModel *m, hsdJsData *d) {
  hsd_jsPosition(m, d);
  hsd_jsVelocity(m, d);
  hsd_jsAcceleration(m, d, 0);
}

void hsd_jsInverse(const hsdJsModel *m, hsdJsData *d, const double *qacc, double *out) {
  newtonEuler(m, d, qacc, 1, out);
  for (int j = 0; j < m->nv; j++) {
    out[j] += m->armature[j] * qacc[j] - d->qfrcPassive[j];
  }
}

//---------------------------------- integration -----------------------------------------------

// R = exp(dt [w]x) R, then one Newton step of the polar decomposition (R (3 I - R^T R) / 2)
// so that round-off never lets R drift off SO(3)
static void rotateRoot(double R[9], const double w[3], double dt) {
  double aa[4] = {w[0], w[1], w[2], dt * hsu_norm(w)}, E[9], Rn[9], RtR[9], Rt[9], K[9];
  hsu_axisAngleToMat(E, aa);
  hsu_mulMat(Rn, E, R);
  hsu_transpose(Rt, Rn);
  hsu_mulMat(RtR, Rt, Rn);
  for (int k = 0; k < 9; k++) {
    K[k] = ((k % 4 == 0) ? 1.5 : 0) - 0.5 * RtR[k];
  }
  hsu_mulMat(R, Rn, K);
}

// the given dofs' entries of x zeroed; 1 if there were any
static int zeroGiven(const hsdJsModel *m, const hsdJsData *d, double *x) {
  int ngiven = 0;
  for (int j = 0; j < m->nv; j++) {
    if (d->given[j]) {
      x[j] = 0;
      ngiven++;
    }
  }
  return ngiven > 0;
}

void hsd_jsSolveM(const hsdJsModel *m, const hsdJsData *d, double *x) {
  if (d->givenPath == 3) {
    rigidHalf(d->LD, x);
    rigidRest(d->LD, x);
    return;
  }
  int any = zeroGiven(m, d, x);
  solveLTDL(m->nv, any ? d->freeParent : m->dofParent, d->given, d->LD, x, 1);
}

void hsd_jsSolveMHalf(const hsdJsModel *m, const hsdJsData *d, double *x) {
  if (d->givenPath == 3) {
    rigidHalf(d->LD, x);
    return;
  }
  int any = zeroGiven(m, d, x);
  solveLTDLHalf(m->nv, any ? d->freeParent : m->dofParent, d->given, d->LD, x, 1);
}

void hsd_jsSolveMPath(const hsdJsModel *m, const hsdJsData *d, double *x, int nrhs, int last) {
  // solveLTDLHalf's passes along the path alone (its dofs in the same descending order, the
  // given ones skipped as the free tree skips them), the nrhs vectors side by side: the same
  // bits as one at a time
  const int *par = m->dofParent, *top = m->dofTop;
  const unsigned char *g = d->given;
  size_t nv = (size_t)m->nv;
  if (d->givenPath == 3) {
    for (int r = 0; r < nrhs && last >= 0; r++) {
      rigidHalf(d->LD, x + r * nv);  // (the body's one link: its path is all six dofs)
    }
    return;
  }
  int anyGiven = 0;
  for (int k = last; k >= 0; k = par[k]) {
    if (g[k]) {
      anyGiven = 1;
      for (int r = 0; r < nrhs; r++) {
        x[r * nv + k] = 0;
      }
    }
  }
  for (int k = last; k >= 0; k = par[k]) {
    if (g[k]) {
      continue;
    }
    const double *rk = d->LD + k * nv;
    if (nrhs == 3 && !anyGiven) {
      // three vectors at once, each entry of the row read once: each vector's entries see the
      // same operations in the same order as below, and where a vector's x_k is 0 (skipped
      // below) subtracting l 0 changes no bit (an entry is never -0: the rows start at +0, and
      // a difference is -0 only from -0)
      double *x0 = x, *x1 = x + nv, *x2 = x + 2 * nv, a0 = x0[k], a1 = x1[k], a2 = x2[k];
      if (a0 == 0 && a1 == 0 && a2 == 0) {
        continue;
      }
      for (int e = par[k]; e >= 0; e = par[top[e]]) {
        subScaled3(x0 + top[e], x1 + top[e], x2 + top[e], rk + top[e], a0, a1, a2,
                   e - top[e] + 1);
      }
      continue;
    }
    for (int r = 0; r < nrhs; r++) {
      double *xr = x + r * nv, xk = xr[k];
      if (xk == 0) {
        continue;
      }
      for (int i = par[k]; i >= 0; i = par[i]) {
        if (!g[i]) {
          xr[i] -= rk[i] * xk;
        }
      }
    }
  }
  for (int k = last; k >= 0; k = par[k]) {
    double dk = d->LD[k * nv + k];
    for (int r = 0; r < nrhs && !g[k]; r++) {
      if (x[r * nv + k] != 0) {
        x[r * nv + k] /= dk;
      }
    }
  }
}

void hsd_jsSolveMRest(const hsdJsModel *m, const hsdJsData *d, double *x) {
  if (d->givenPath == 3) {
    rigidRest(d->LD, x);
    return;
  }
  int any = 0;
  for (int j = 0; j < m->nv && !any; j++) {
    any = d->given[j] != 0;
  }
  solveLTDLRest(m->nv, any ? d->freeParent : m->dofParent, d->given, d->LD, x);
}

void hsd_jsStepVelocity(const hsdJsModel *m, hsdJsData *d, double dt) {
  d->givenPath = givenPath(m, d);
  if (rigidPath(m, d)) {
    positionKinematics(m, d);
    linkVelocities(m, d);
    d->givenPath = 3;
    if (rigidAcceleration(m, d) < 0) {
      // (a pivot the general path raises: it warns; its velocity phase from the start)
      d->givenPath = 0;
      massMatrix(m, d, m->nv - 1);
      hsd_jsVelocity(m, d);
      hsd_jsAcceleration(m, d, m->damped ? dt : 0);
    }
  } else if (d->givenPath) {
    positionKinematics(m, d);
    velocityKinematics(m, d);
    for (int j = 0; j < m->nv; j++) {
      d->qfrcPassive[j] = -m->damping[j] * d->qvel[j];
    }
    compositeAcceleration(m, d, m->damped ? dt : 0);
  } else {
    hsd_jsPosition(m, d);
    hsd_jsVelocity(m, d);
    hsd_jsAcceleration(m, d, m->damped ? dt : 0);
  }
  for (int j = 0; j < m->nv; j++) {
    d->qvel[j] += dt * d->qacc[j];
  }
}

void hsd_jsStep(const hsdJsModel *m, hsdJsData *d, double dt) {
  hsd_jsStepVelocity(m, d, dt);
  hsd_jsIntegrate(m, d, dt);
}

void hsd_jsIntegrate(const hsdJsModel *m, hsdJsData *d, double dt) {
  hsBodyState *st = d->st;
  if (m->nroot) {
    for (int k = 0; k < 3; k++) {
      st->rootP[k] += dt * d->qvel[k];
    }
    rotateRoot(st->rootR, d->qvel + 3, dt);
  }
  for (int j = m->nroot; j < m->nv; j++) {
    int i = m->dofLink[j];
    st->q[i] += dt * d->qvel[j];
    st->dq[i] = d->qvel[j];
    st->ddq[i] = d->qacc[j];
  }
}

void hsd_jsMomentum(const hsdJsModel *m, const hsdJsData *d, double h[6]) {
  memset(h, 0, 6 * sizeof *h);
  for (int i = 0; i < m->body->nlink; i++) {
    double hi[6];
    mulInertia(hi, d->cinert + 13 * i, d->cvel + 6 * i);
    for (int k = 0; k < 6; k++) {
      h[k] += hi[k];
    }
  }
}

void hsd_jsEnergy(const hsdJsModel *m, const hsdJsData *d, double e[2]) {
  int nv = m->nv;
  double T = 0;
  for (int j = 0; j < nv; j++) {
    T += 0.5 * d->M[(size_t)j * nv + j] * d->qvel[j] * d->qvel[j];
    for (int k = m->dofParent[j]; k >= 0; k = m->dofParent[k]) {
      T += d->M[(size_t)j * nv + k] * d->qvel[j] * d->qvel[k];
    }
  }
  // sum m x = sum (m (x - c) + m c) over the links
  double mx[3] = {d->mass * d->c[0], d->mass * d->c[1], d->mass * d->c[2]};
  for (int i = 0; i < m->body->nlink; i++) {
    for (int k = 0; k < 3; k++) {
      mx[k] += d->cinert[13 * i + 1 + k];
    }
  }
  e[0] = T;
  e[1] = -hsu_dot(d->g, mx);
}
