// mjcf_body.c - build an hsBody from an MJCF model (hsm_loadMjcf), as MuJoCo's compiler would.
//
// What is read. <compiler>: angle (degree, the default, or radian: euler, axisangle, hinge
// range and ref), eulerseq (three of xyzXYZ: lower case turns about the axes of the frame
// turned so far, upper case about the fixed frame's), meshdir / assetdir, inertiafromgeom
// (false, true, auto: geoms only for a body without <inertial>), autolimits, boundmass,
// boundinertia and balanceinertia (on each body's principal moments), settotalmass.
// <default> classes nest (a class inherits every attribute of its parent; an element takes
// its class attribute's class, else the childclass of the nearest enclosing body or frame,
// else main). <asset>: <mesh> (file, scale) and <material> (rgba).
//
// Scenes. The top-level bodies of <worldbody> (directly or inside <frame>s) are the robots of
// the file: the URL without a fragment means the only one (or, when there is none, the
// world); URL#NAME selects the body NAME, URL#world an environment made of the worldbody's own
// geoms (one fixed link "world"). With several top-level bodies the plain URL is refused with
// their names.
//
// Bodies and joints. A body's frame is pos plus one of quat, axisangle, euler, xyaxes, zaxis,
// in its parent's frame (a <frame> inserts its own frame between). Joints: hinge (rotate),
// slide, free (and <freejoint/>) on a top-level body (the free root, placed where the file puts
// it); ball joints are refused (OpenHRP has no 3-dof joint: write three hinges). Each hinge or
// slide becomes a link named after the joint, its frame at the joint's anchor `pos` with the
// body's orientation, its axis the joint's, jointIds in file order. Several joints in one body
// make a chain of such links (each anchor relative to the previous one), the body's mass and
// shapes on the last, whose segment is named after the body. MuJoCo's joint value is measured
// from `ref`, the configuration the file draws: the link frames are those at q = 0 (turned
// back by ref about the axis) and the initial joint value is ref. A body without joints is a
// "fixed" link named after the body (a top-level one is the fixed root); a top-level body with
// hinges or slides hangs from a massless fixed root link "world". Unnamed bodies are
// "body<N>" (N MuJoCo's body number, the world 0), unnamed joints "<body>_joint<k>".
// range with limited (true, or auto with autolimits) gives llimit / ulimit; armature becomes
// rotorInertia with gearRatio 1; damping, frictionloss and stiffness have no place in
// hrpsim's dynamics: warned once per file and kept as info strings
// "mjcf joint <link> damping <d> frictionloss <f> stiffness <k>".
//
// Mass. <inertial> (pos, orientation, mass, diaginertia or fullinertia) or the geoms' (see
// mjcf_geom.c), as inertiafromgeom says; one segment per body.

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mjcf_private.h"

#define CLASSES(u) ((hsmMjcfClass *)(u)->classes.data)
#define MESHES(u) ((hsmMjcfMesh *)(u)->meshes.data)
#define LINKSPEC(u, i) (((hsmLinkSpec *)(u)->b->links.data)[i])
#define SEGSPEC(u, i) (((hsmSegmentSpec *)(u)->b->segments.data)[i])

static const double kIdentity[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};

static int isNamed(const hsmXmlElem *e, const char *name) {
  return strcmp(e->name, name) == 0;
}

//---------------------------------- compiler, defaults, assets --------------------------------

// an absolute directory: dir as written, relative to the model's directory
static char *absDir(hsmMjcfLoad *u, const char *dir) {
  size_t n = strlen(u->dir) + strlen(dir) + 2;
  char *out = hsu_malloc(n);
  if (out) {
    snprintf(out, n, "%s%s%s", dir[0] == '/' ? "" : u->dir, dir[0] == '/' ? "" : "/", dir);
  }
  return out;
}

static int readCompiler(hsmMjcfLoad *u, const hsmXmlElem *e) {
  static const char *const angles[] = {"radian", "degree", NULL};
  static const char *const fromGeom[] = {"false", "true", "auto", NULL};
  static const char *const truth[] = {"false", "true", NULL};
  int angle = u->radian ? 0 : 1;
  if (hsm_mjcfKeyword(u, e, -1, "angle", angles, &angle) ||
      hsm_mjcfKeyword(u, e, -1, "inertiafromgeom", fromGeom, &u->fromGeom) ||
      hsm_mjcfKeyword(u, e, -1, "autolimits", truth, &u->autolimits)) {
    return -1;
  }
  u->radian = angle == 0;
  const char *seq = hsm_mjcfOwn(e, "eulerseq");
  if (seq) {
    int ok = strlen(seq) == 3;
    for (int i = 0; ok && i < 3; i++) {
      ok = strchr("xyzXYZ", seq[i]) != NULL;
    }
    if (!ok) {
      return hsm_mjcfError(u, hsE_MODEL, e, "eulerseq", "<compiler> eulerseq=\"%.20s\": expected "
                           "three of x, y, z, X, Y, Z", seq);
    }
    memcpy(u->eulerseq, seq, 4);
  }
  const char *dir = hsm_mjcfOwn(e, "meshdir");
  dir = dir ? dir : hsm_mjcfOwn(e, "assetdir");
  if (dir) {
    hsu_free(u->meshdir);
    if (!(u->meshdir = absDir(u, dir))) {
      return hsm_mjcfNomem(u);
    }
  }
  int n = 0;
  if (hsm_mjcfNumbers(u, e, -1, "boundmass", 1, &u->boundmass, &n) ||
      hsm_mjcfNumbers(u, e, -1, "boundinertia", 1, &u->boundinertia, &n) ||
      hsm_mjcfKeyword(u, e, -1, "balanceinertia", truth, &u->balanceinertia) ||
      hsm_mjcfNumbers(u, e, -1, "settotalmass", 1, &u->settotalmass, &n)) {
    return -1;
  }
  static const char *const unread[] = {"fitaabb", "fusestatic", "discardvisual", "alignfree",
                                       NULL};
  for (int i = 0; unread[i]; i++) {
    const char *v = hsm_mjcfOwn(e, unread[i]);
    if (v && strcmp(v, "false") != 0 && strcmp(v, "0") != 0) {
      hsm_mjcfWarn(u, e, "<compiler %s> is not read: masses and inertias are as without it",
                   unread[i]);
    }
  }
  const char *coord = hsm_mjcfOwn(e, "coordinate");
  if (coord && strcmp(coord, "local") != 0) {
    return hsm_mjcfError(u, hsE_UNSUPPORTED, e, "coordinate", "<compiler coordinate=\"%s\"> is "
                         "not supported (MuJoCo dropped it too): frames must be local", coord);
  }
  return 0;
}

// the classes under <default> element d (class index parent), depth first
static int readClasses(hsmMjcfLoad *u, const hsmXmlElem *d, int parent) {
  for (int i = 0; i < d->nkid; i++) {
    const hsmXmlElem *k = d->kids[i];
    if (!isNamed(k, "default")) {
      continue;
    }
    const char *name = hsm_mjcfOwn(k, "class");
    if (!name || !name[0]) {
      return hsm_mjcfError(u, hsE_MODEL, k, NULL, "a nested <default> needs a class name");
    }
    for (size_t c = 0; c < u->classes.n; c++) {
      if (strcmp(CLASSES(u)[c].name, name) == 0) {
        return hsm_mjcfError(u, hsE_MODEL, k, "class", "<default> class '%s' is defined twice",
                             name);
      }
    }
    hsmMjcfClass c = {name, parent, k};
    if (!hsu_vecPush(&u->classes, sizeof c, &c)) {
      return hsm_mjcfNomem(u);
    }
    if (readClasses(u, k, (int)u->classes.n - 1)) {
      return -1;
    }
  }
  return 0;
}

// a <mesh> asset
static int readMesh(hsmMjcfLoad *u, const hsmXmlElem *e) {
  int cls = 0;
  if (hsm_mjcfClassOf(u, e, 0, &cls)) {
    return -1;
  }
  const char *file = hsm_mjcfOwn(e, "file");
  if (!file || !file[0]) {
    return hsm_mjcfError(u, hsE_UNSUPPORTED, e, NULL, "<mesh> without a file (vertices written "
                         "in the model) is not supported");
  }
  hsmMjcfMesh m;
  memset(&m, 0, sizeof m);
  m.elem = e;
  m.scale[0] = m.scale[1] = m.scale[2] = 1;
  if (hsm_mjcfExact(u, e, cls, "scale", 3, m.scale, NULL)) {
    return -1;
  }
  // the name: as given, else the file's name without directory and extension (MuJoCo's)
  const char *name = hsm_mjcfOwn(e, "name");
  char base[256];
  if (!name) {
    const char *slash = strrchr(file, '/');
    snprintf(base, sizeof base, "%s", slash ? slash + 1 : file);
    char *dot = strrchr(base, '.');
    if (dot) {
      *dot = 0;
    }
  }
  const char *dir = u->meshdir ? u->meshdir : u->dir;
  char cand[PATH_MAX], abs[PATH_MAX];
  snprintf(cand, sizeof cand, "%s%s%s", file[0] == '/' ? "" : dir, file[0] == '/' ? "" : "/",
           file);
  if (!realpath(cand, abs)) {
    return hsm_mjcfError(u, hsE_IO, e, "file", "<mesh> file '%s' not found (tried %s)", file,
                         cand);
  }
  m.path = hsu_strdup(abs);
  if (!m.path) {
    return hsm_mjcfNomem(u);
  }
  // the name string must outlive the load: keep the attribute's, or store the base in path's
  // allocation? simpler: a name attribute on the element is always there; else reuse the file
  if (name) {
    m.name = name;
  } else {
    char *copy = hsu_malloc(strlen(abs) + strlen(base) + 2);
    if (!copy) {
      hsu_free(m.path);
      return hsm_mjcfNomem(u);
    }
    sprintf(copy, "%s%c%s", abs, 0, base);
    hsu_free(m.path);
    m.path = copy;
    m.name = copy + strlen(abs) + 1;
  }
  if (!hsu_vecPush(&u->meshes, sizeof m, &m)) {
    hsu_free(m.path);
    return hsm_mjcfNomem(u);
  }
  return 0;
}

static int readAssets(hsmMjcfLoad *u, const hsmXmlElem *a) {
  for (int i = 0; i < a->nkid; i++) {
    const hsmXmlElem *k = a->kids[i];
    if (isNamed(k, "mesh")) {
      if (readMesh(u, k)) {
        return -1;
      }
    } else if (isNamed(k, "material")) {
      int cls = 0;
      hsmMjcfMaterial m = {hsm_mjcfOwn(k, "name"), {1, 1, 1, 1}, -1};
      if (hsm_mjcfClassOf(u, k, 0, &cls) || hsm_mjcfExact(u, k, cls, "rgba", 4, m.rgba, NULL)) {
        return -1;
      }
      if (m.name && !hsu_vecPush(&u->materials, sizeof m, &m)) {
        return hsm_mjcfNomem(u);
      }
    }
  }
  return 0;
}

//---------------------------------- bodies ----------------------------------------------------

// the joint kinds
enum { JOINT_FREE, JOINT_BALL, JOINT_SLIDE, JOINT_HINGE };

// one joint of a body, as read
typedef struct Joint {
  const hsmXmlElem *e;
  int type;
  char name[256];
  double pos[3], axis[3], range[2], ref, armature, damping, frictionloss, stiffness;
  double frcrange[2];
  int limited, frclimited;
} Joint;

// the name of a body (unnamed: "body<N>")
static void bodyName(const hsmXmlElem *e, int id, char *out, size_t size) {
  const char *name = hsm_mjcfOwn(e, "name");
  if (name && name[0]) {
    snprintf(out, size, "%s", name);
  } else {
    snprintf(out, size, "body%d", id);
  }
}

// limited as MuJoCo decides it: true, false, or auto (limited when a range is given, with
// autolimits; an error without autolimits)
static int limitedOf(hsmMjcfLoad *u, const hsmXmlElem *e, int cls, const char *flag,
                     const char *range, int hasRange, int *out) {
  static const char *const words[] = {"false", "true", "auto", NULL};
  int v = 2;
  if (hsm_mjcfKeyword(u, e, cls, flag, words, &v)) {
    return -1;
  }
  if (v == 2 && hasRange && !u->autolimits) {
    return hsm_mjcfError(u, hsE_MODEL, e, range, "<%s> has %s but %s=\"auto\" and "
                         "<compiler autolimits=\"false\">: say %s", e->name, range, flag, flag);
  }
  *out = v == 2 ? hasRange : v;
  return 0;
}

static int readJoint(hsmMjcfLoad *u, const hsmXmlElem *e, int cls, const char *body, int k,
                     Joint *j) {
  memset(j, 0, sizeof *j);
  j->e = e;
  j->type = JOINT_HINGE;
  j->axis[2] = 1;
  if (isNamed(e, "freejoint")) {
    j->type = JOINT_FREE;
    cls = -1;
  } else {
    static const char *const types[] = {"free", "ball", "slide", "hinge", NULL};
    if (hsm_mjcfKeyword(u, e, cls, "type", types, &j->type)) {
      return -1;
    }
  }
  const char *name = hsm_mjcfOwn(e, "name");
  if (name && name[0]) {
    snprintf(j->name, sizeof j->name, "%s", name);
  } else {
    snprintf(j->name, sizeof j->name, "%.200s_joint%d", body, k);
  }
  if (j->type == JOINT_BALL) {
    return hsm_mjcfError(u, hsE_UNSUPPORTED, e, "type", "joint '%s': ball joints are not "
                         "supported (OpenHRP joints have one degree of freedom): write three "
                         "hinges", j->name);
  }
  if (j->type == JOINT_FREE) {
    return 0;
  }
  int n = 0, hasRange = 0, hasFrc = 0;
  if (hsm_mjcfExact(u, e, cls, "pos", 3, j->pos, NULL) ||
      hsm_mjcfExact(u, e, cls, "axis", 3, j->axis, NULL) ||
      hsm_mjcfExact(u, e, cls, "range", 2, j->range, &hasRange) ||
      hsm_mjcfExact(u, e, cls, "actuatorfrcrange", 2, j->frcrange, &hasFrc) ||
      hsm_mjcfNumbers(u, e, cls, "ref", 1, &j->ref, &n) ||
      hsm_mjcfNumbers(u, e, cls, "armature", 1, &j->armature, &n) ||
      hsm_mjcfNumbers(u, e, cls, "damping", 1, &j->damping, &n) ||
      hsm_mjcfNumbers(u, e, cls, "frictionloss", 1, &j->frictionloss, &n) ||
      hsm_mjcfNumbers(u, e, cls, "stiffness", 1, &j->stiffness, &n) ||
      limitedOf(u, e, cls, "limited", "range", hasRange, &j->limited) ||
      limitedOf(u, e, cls, "actuatorfrclimited", "actuatorfrcrange", hasFrc, &j->frclimited)) {
    return -1;
  }
  double an = hsu_norm(j->axis);
  if (!(an > 1e-12)) {
    return hsm_mjcfError(u, hsE_MODEL, e, "axis", "joint '%s': the axis is zero", j->name);
  }
  for (int i = 0; i < 3; i++) {
    j->axis[i] /= an;
  }
  if (j->type == JOINT_HINGE) {
    j->range[0] = hsm_mjcfAngle(u, j->range[0]);
    j->range[1] = hsm_mjcfAngle(u, j->range[1]);
    j->ref = hsm_mjcfAngle(u, j->ref);
  }
  if (j->limited && !(j->range[0] < j->range[1])) {
    return hsm_mjcfError(u, hsE_MODEL, e, "range", "joint '%s': range %g %g is empty (the lower "
                         "end must be below the upper)", j->name, j->range[0], j->range[1]);
  }
  if (j->armature < 0) {
    return hsm_mjcfError(u, hsE_MODEL, e, "armature", "joint '%s': armature %g is negative",
                         j->name, j->armature);
  }
  return 0;
}

// what a body's contents are placed against
typedef struct Place {
  int link;         // builder link
  double T[12];     // the body frame in the link frame
  int segment;      // the body's segment
  hsuVec masses;    // hsSegment, one per geom with mass (body frame)
  int skipBodies;   // 1 for the world's own geoms
} Place;

static int pushLimit(hsmMjcfLoad *u, hsuVec *v, double x) {
  return hsu_vecPush(v, sizeof x, &x) ? 0 : hsm_mjcfNomem(u);
}

// add a link: parent, joint type, frame F in the parent link's frame; its index or -1
static int addLink(hsmMjcfLoad *u, const char *name, int parent, hstJoint type, const double F[12],
                   const Joint *j, int jointId, const hsmXmlElem *where) {
  hsmLinkSpec l;
  memset(&l, 0, sizeof l);
  hsLink *k = &l.link;
  k->parent = parent;
  k->jointType = type;
  k->jointId = jointId;
  k->axis[2] = 1;
  double R[9];
  hsu_splitTransform(R, k->translation, F);
  hsu_matToAxisAngle(k->rotation, R);
  k->gearRatio = k->torqueConst = k->encoderPulse = 1;
  k->AABBmaxDepth = k->AABBmaxNum = 1;
  l.separateCollision = 1;
  const char *file = ((const hsmMjcfFile *)u->files.data)[where->file].path;
  l.where = l.jointIdAt = (hsmSource){file, where->line, 0};
  l.name = hsu_strdup(name);
  l.jointTypeName = hsu_strdup(hsm_jointTypeName(type));
  int rc = l.name && l.jointTypeName ? 0 : hsm_mjcfNomem(u);
  if (!rc && j) {
    memcpy(k->axis, j->axis, sizeof k->axis);
    k->jointValue = j->ref;
    k->rotorInertia = j->armature;
    if (j->limited) {
      rc = pushLimit(u, &l.limits[0], j->range[1]) || pushLimit(u, &l.limits[1], j->range[0]);
    }
    if (!rc && j->frclimited) {
      rc = pushLimit(u, &l.limits[4], fmax(fabs(j->frcrange[0]), fabs(j->frcrange[1])));
    }
  }
  if (rc || !hsu_vecPush(&u->b->links, sizeof l, &l)) {
    hsu_free(l.name);
    hsu_free(l.jointTypeName);
    for (int i = 0; i < 5; i++) {
      hsu_vecFree(&l.limits[i]);
    }
    return (rc ? rc : hsm_mjcfNomem(u)), -1;
  }
  int index = (int)u->b->links.n - 1;
  if (j) {
    hsmMjcfJointRef ref = {hsm_mjcfOwn(j->e, "name"), index};
    if (ref.name && !hsu_vecPush(&u->joints, sizeof ref, &ref)) {
      return hsm_mjcfNomem(u), -1;
    }
  }
  return index;
}

// one info string, printf-style
static int addInfo(hsmMjcfLoad *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int addInfo(hsmMjcfLoad *u, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return hsm_addInfo(u->b, "%s", buf) < 0 ? hsm_mjcfNomem(u) : 0;
}

// warn once per file about joint dynamics hrpsim lacks, and keep them as an info string
static int jointDynamics(hsmMjcfLoad *u, const Joint *j) {
  static const struct {
    unsigned bit;
    const char *what;
  } kinds[] = {{hsMJCF_ONCE_DAMPING, "damping"}, {hsMJCF_ONCE_FRICTIONLOSS, "frictionloss"},
               {hsMJCF_ONCE_STIFFNESS, "stiffness"}};
  double v[3] = {j->damping, j->frictionloss, j->stiffness};
  int any = 0;
  for (int i = 0; i < 3; i++) {
    if (v[i] != 0) {
      any = 1;
      if (!(u->warned & kinds[i].bit)) {
        u->warned |= kinds[i].bit;
        hsm_mjcfWarn(u, j->e, "joint '%s': %s is not simulated by hrpsim's dynamics (kept as a "
                     "body info string; warned once per file)", j->name, kinds[i].what);
      }
    }
  }
  return any ? addInfo(u, "mjcf joint %s damping %.17g frictionloss %.17g stiffness %.17g",
                       j->name, j->damping, j->frictionloss, j->stiffness)
             : 0;
}

static int walkContents(hsmMjcfLoad *u, const hsmXmlElem *e, int cls, Place *pl,
                        const double F[12], int *jointId);

// the principal moments d and axes (columns of V) of a symmetric 3x3 I, by Jacobi rotations
static void eigenSymmetric(const double I[9], double d[3], double V[9]) {
  double A[9];
  memcpy(A, I, sizeof A);
  hsu_setIdentity(V);
  for (int sweep = 0; sweep < 50; sweep++) {
    double off = fabs(A[1]) + fabs(A[2]) + fabs(A[5]);
    if (off <= 1e-300 || off <= 1e-15 * (fabs(A[0]) + fabs(A[4]) + fabs(A[8]))) {
      break;
    }
    static const int pq[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    for (int k = 0; k < 3; k++) {
      int p = pq[k][0], q = pq[k][1];
      double apq = A[3 * p + q];
      if (apq == 0) {
        continue;
      }
      // the rotation in the p-q plane that zeroes A[p][q]
      double theta = (A[3 * q + q] - A[3 * p + p]) / (2 * apq);
      double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
      double c = 1 / sqrt(t * t + 1), s = t * c;
      for (int r = 0; r < 3; r++) {  // A = A J, V = V J
        double arp = A[3 * r + p], arq = A[3 * r + q];
        A[3 * r + p] = c * arp - s * arq, A[3 * r + q] = s * arp + c * arq;
        double vrp = V[3 * r + p], vrq = V[3 * r + q];
        V[3 * r + p] = c * vrp - s * vrq, V[3 * r + q] = s * vrp + c * vrq;
      }
      for (int r = 0; r < 3; r++) {  // A = J^T A
        double apr = A[3 * p + r], aqr = A[3 * q + r];
        A[3 * p + r] = c * apr - s * aqr, A[3 * q + r] = s * apr + c * aqr;
      }
    }
  }
  d[0] = A[0], d[1] = A[4], d[2] = A[8];
}

// MuJoCo's balanceinertia (principal moments breaking A + B >= C all become their mean) and
// boundinertia (each principal moment at least bound), on a tensor in any frame
static void boundPrincipal(double I[9], int balance, double bound) {
  double d[3], V[9];
  eigenSymmetric(I, d, V);
  if (balance && (d[0] + d[1] < d[2] || d[0] + d[2] < d[1] || d[1] + d[2] < d[0])) {
    d[0] = d[1] = d[2] = (d[0] + d[1] + d[2]) / 3;
  }
  for (int k = 0; k < 3; k++) {
    d[k] = fmax(d[k], bound);
  }
  // I = V diag(d) V^T
  for (int r = 0; r < 3; r++) {
    for (int c = 0; c < 3; c++) {
      I[3 * r + c] = V[3 * r] * d[0] * V[3 * c] + V[3 * r + 1] * d[1] * V[3 * c + 1] +
                     V[3 * r + 2] * d[2] * V[3 * c + 2];
    }
  }
}

// the links of body e whose parent frame is P in link `parent`'s frame (parent -1: e is the
// top-level body, the root); then its contents
static int walkBody(hsmMjcfLoad *u, const hsmXmlElem *e, int inherited, int parent,
                    const double P[12], int *jointId) {
  int id = ++u->nbody;
  char name[256];
  bodyName(e, id, name, sizeof name);
  int cls = inherited;
  if (hsm_mjcfOwn(e, "childclass")) {
    hsmXmlElem probe = *e;  // read childclass as a class attribute
    hsmXmlAttr a = {"class", (char *)hsm_mjcfOwn(e, "childclass")};
    probe.attrs = &a;
    probe.nattr = 1;
    if (hsm_mjcfClassOf(u, &probe, inherited, &cls)) {
      return -1;
    }
  }
  double Tb[12], B[12];
  if (hsm_mjcfFrame(u, e, -1, Tb)) {
    return -1;
  }
  hsu_mulTransform(B, P, Tb);
  // joints, in file order
  Joint *joints = hsu_malloc(16 * sizeof *joints);
  int nj = 0;
  if (!joints) {
    return hsm_mjcfNomem(u);
  }
  for (int i = 0; i < e->nkid; i++) {
    const hsmXmlElem *k = e->kids[i];
    if (!isNamed(k, "joint") && !isNamed(k, "freejoint")) {
      continue;
    }
    int jc = cls;
    if (nj == 16) {
      hsu_free(joints);
      return hsm_mjcfError(u, hsE_UNSUPPORTED, k, NULL, "body '%s' has more than 16 joints",
                           name);
    }
    if (hsm_mjcfClassOf(u, k, cls, &jc) || readJoint(u, k, jc, name, nj, &joints[nj])) {
      hsu_free(joints);
      return -1;
    }
    if (joints[nj].type == JOINT_FREE && parent >= 0) {
      hsm_mjcfError(u, hsE_UNSUPPORTED, k, NULL, "joint '%s': a free joint is supported only "
                    "on a top-level body (the root of an OpenHRP body)", joints[nj].name);
      hsu_free(joints);
      return -1;
    }
    nj++;
  }
  if (nj > 1) {
    for (int i = 0; i < nj; i++) {
      if (joints[i].type == JOINT_FREE) {
        hsm_mjcfError(u, hsE_UNSUPPORTED, joints[i].e, NULL, "joint '%s': a free joint must be "
                      "its body's only joint", joints[i].name);
        hsu_free(joints);
        return -1;
      }
    }
  }
  Place pl;
  memset(&pl, 0, sizeof pl);
  memcpy(pl.T, kIdentity, sizeof pl.T);
  int link = -1;
  if (nj == 1 && joints[0].type == JOINT_FREE) {
    link = addLink(u, name[0] && !hsm_mjcfOwn(joints[0].e, "name") ? name : joints[0].name, -1,
                   hsJOINT_FREE, B, NULL, -1, e);
  } else if (nj == 0) {
    link = addLink(u, name, parent, hsJOINT_FIXED, B, NULL, -1, e);
  } else {
    if (parent < 0) {
      parent = addLink(u, "world", -1, hsJOINT_FIXED, kIdentity, NULL, -1, e);
    }
    // the chain: link k at anchor pos_k (relative to the previous anchor), turned back by ref
    // about its axis (hinge) or shifted back along it (slide); the body frame is the last
    // link's shifted by -pos
    const double *prev = NULL;
    for (int i = 0; i < nj && parent >= 0; i++) {
      const Joint *j = &joints[i];
      double A[12], M[12], R[9], d[3];
      for (int k = 0; k < 3; k++) {
        d[k] = j->pos[k] - (prev ? prev[k] : 0);
      }
      if (j->type == JOINT_HINGE) {
        double aa[4] = {j->axis[0], j->axis[1], j->axis[2], -j->ref};
        hsu_axisAngleToMat(R, aa);
      } else {
        hsu_setIdentity(R);
        for (int k = 0; k < 3; k++) {
          d[k] -= j->ref * j->axis[k];
        }
      }
      hsu_makeTransform(A, R, d);
      if (prev) {
        memcpy(M, A, sizeof M);
      } else {
        hsu_mulTransform(M, B, A);
      }
      hstJoint type = j->type == JOINT_HINGE ? hsJOINT_ROTATE : hsJOINT_SLIDE;
      parent = addLink(u, j->name, parent, type, M, j, (*jointId)++, j->e);
      if (parent >= 0 && jointDynamics(u, j)) {
        hsu_free(joints);
        return -1;
      }
      prev = j->pos;
    }
    link = parent;
    pl.T[3] = -prev[0], pl.T[7] = -prev[1], pl.T[11] = -prev[2];
  }
  hsu_free(joints);
  if (link < 0) {
    return -1;
  }
  // the body's segment, filled once its geoms are read
  hsmSegmentSpec s;
  memset(&s, 0, sizeof s);
  s.seg.link = link;
  memcpy(s.seg.T, pl.T, sizeof s.seg.T);
  const char *file = ((const hsmMjcfFile *)u->files.data)[e->file].path;
  s.where = (hsmSource){file, e->line, 0};
  s.name = hsu_strdup(name);
  if (!s.name || !hsu_vecPush(&u->b->segments, sizeof s, &s)) {
    hsu_free(s.name);
    return hsm_mjcfNomem(u);
  }
  pl.link = link;
  pl.segment = (int)u->b->segments.n - 1;
  // the body, for the collision filter: welded to its parent's weld when it has no joint
  int up = u->body, self = (int)u->bodies.n;
  hsmMjcfBody rec = {hsu_strdup(name), link, self, up};
  if (nj == 0) {
    rec.weld = up >= 0 ? ((const hsmMjcfBody *)u->bodies.data)[up].weld : -1;
  }
  if (!rec.name || !hsu_vecPush(&u->bodies, sizeof rec, &rec)) {
    hsu_free(rec.name);
    return hsm_mjcfNomem(u);
  }
  u->body = self;
  int rc = walkContents(u, e, cls, &pl, kIdentity, jointId);
  u->body = up;
  // mass: the inertial, else the geoms (as inertiafromgeom says)
  const hsmXmlElem *in = NULL;
  for (int i = 0; i < e->nkid && !in; i++) {
    in = isNamed(e->kids[i], "inertial") ? e->kids[i] : NULL;
  }
  hsSegment *seg = &SEGSPEC(u, pl.segment).seg;
  if (!rc && in && u->fromGeom != 1) {
    double I[12], m = 0, d[6] = {0}, f[6] = {0};
    int nm = 0, nd = 0, nf = 0;
    rc = hsm_mjcfFrame(u, in, -1, I) || hsm_mjcfNumbers(u, in, -1, "mass", 1, &m, &nm) ||
         hsm_mjcfExact(u, in, -1, "diaginertia", 3, d, &nd) ||
         hsm_mjcfExact(u, in, -1, "fullinertia", 6, f, &nf);
    if (!rc && (!nm || m < 0)) {
      rc = hsm_mjcfError(u, hsE_MODEL, in, "mass", "<inertial> needs a mass of at least 0");
    } else if (!rc && nd == nf) {
      rc = hsm_mjcfError(u, hsE_MODEL, in, NULL, "<inertial> needs one of diaginertia and "
                         "fullinertia");
    } else if (!rc && nf) {
      static const char *const orient[] = {"quat", "axisangle", "euler", "xyaxes", "zaxis"};
      for (int k = 0; k < 5 && !rc; k++) {
        if (hsm_mjcfOwn(in, orient[k])) {
          rc = hsm_mjcfError(u, hsE_MODEL, in, orient[k], "<inertial> has fullinertia and %s: "
                             "a full tensor is written in the body frame (as MuJoCo requires)",
                             orient[k]);
        }
      }
    }
    if (!rc) {
      seg = &SEGSPEC(u, pl.segment).seg;
      hsu_mulTransform(seg->T, pl.T, I);
      seg->mass = m;
      double full[9] = {d[0], 0, 0, 0, d[1], 0, 0, 0, d[2]};
      if (nf) {  // ixx iyy izz ixy ixz iyz
        double g[9] = {f[0], f[3], f[4], f[3], f[1], f[5], f[4], f[5], f[2]};
        memcpy(full, g, sizeof g);
      }
      memcpy(seg->inertia, full, sizeof full);
      SEGSPEC(u, pl.segment).where.line = in->line;
    }
  } else if (!rc && u->fromGeom != 0 && pl.masses.n) {
    double m, com[3], I[9];
    hsm_mergeMass(pl.masses.data, (int)pl.masses.n, &m, com, I);
    seg = &SEGSPEC(u, pl.segment).seg;
    seg->mass = m;
    memcpy(seg->com, com, sizeof com);
    memcpy(seg->inertia, I, sizeof I);
  }
  // balanceinertia, boundmass, boundinertia, in MuJoCo's order
  seg = &SEGSPEC(u, pl.segment).seg;
  if (!rc && (u->balanceinertia || u->boundinertia > 0)) {
    boundPrincipal(seg->inertia, u->balanceinertia, u->boundinertia);
  }
  if (!rc && u->boundmass > 0 && seg->mass < u->boundmass) {
    seg->mass = u->boundmass;
  }
  hsu_vecFree(&pl.masses);
  return rc;
}

static int walkContents(hsmMjcfLoad *u, const hsmXmlElem *e, int cls, Place *pl,
                        const double F[12], int *jointId) {
  for (int i = 0; i < e->nkid; i++) {
    const hsmXmlElem *k = e->kids[i];
    int kc = cls;
    double T[12], S[12];
    if (isNamed(k, "body")) {
      double P[12];
      hsu_mulTransform(P, pl->T, F);
      if (pl->skipBodies) {  // a body of the world: not selected here
        continue;
      }
      if (walkBody(u, k, cls, pl->link, P, jointId)) {
        return -1;
      }
    } else if (isNamed(k, "frame")) {
      if (hsm_mjcfOwn(k, "childclass")) {
        hsmXmlElem probe = *k;
        hsmXmlAttr a = {"class", (char *)hsm_mjcfOwn(k, "childclass")};
        probe.attrs = &a;
        probe.nattr = 1;
        if (hsm_mjcfClassOf(u, &probe, cls, &kc)) {
          return -1;
        }
      }
      if (hsm_mjcfClassOf(u, k, kc, &kc) || hsm_mjcfFrame(u, k, -1, T)) {
        return -1;
      }
      hsu_mulTransform(S, F, T);
      if (walkContents(u, k, kc, pl, S, jointId)) {
        return -1;
      }
    } else if (isNamed(k, "geom")) {
      hsmMjcfMass m;
      if (hsm_mjcfClassOf(u, k, cls, &kc) ||
          hsm_mjcfGeom(u, k, kc, F, pl->link, pl->T, pl->segment, &m)) {
        return -1;
      }
      if (m.mass > 0) {
        hsSegment g;
        memset(&g, 0, sizeof g);
        g.mass = m.mass;
        memcpy(g.com, m.com, sizeof g.com);
        memcpy(g.inertia, m.inertia, sizeof g.inertia);
        memcpy(g.T, kIdentity, sizeof g.T);
        if (!hsu_vecPush(&pl->masses, sizeof g, &g)) {
          return hsm_mjcfNomem(u);
        }
      }
    } else if (isNamed(k, "site") || isNamed(k, "camera")) {
      if (hsm_mjcfClassOf(u, k, cls, &kc) || hsm_mjcfFrame(u, k, kc, T)) {
        return -1;
      }
      hsu_mulTransform(S, F, T);
      double L[12];
      hsu_mulTransform(L, pl->T, S);
      if (isNamed(k, "camera")) {
        if (hsm_mjcfCamera(u, k, kc, pl->link, L)) {
          return -1;
        }
      } else if (hsm_mjcfOwn(k, "name")) {
        hsmMjcfSite site = {hsm_mjcfOwn(k, "name"), pl->link, {0}};
        memcpy(site.T, L, sizeof L);
        if (!hsu_vecPush(&u->sites, sizeof site, &site)) {
          return hsm_mjcfNomem(u);
        }
      }
    } else if (!isNamed(k, "joint") && !isNamed(k, "freejoint") && !isNamed(k, "inertial") &&
               !isNamed(k, "light")) {
      hsm_mjcfWarn(u, k, "<%s> is not supported: skipped", k->name);
    }
  }
  return 0;
}

//---------------------------------- scene selection -------------------------------------------

// a top-level body and its frame in the world
typedef struct Top {
  const hsmXmlElem *e;
  int cls;
  double P[12];
  int firstId;  // MuJoCo's number of its first body - 1
} Top;

static int countBodies(const hsmXmlElem *e) {
  int n = 0;
  for (int i = 0; i < e->nkid; i++) {
    n += (isNamed(e->kids[i], "body") ? 1 : 0) +
         (isNamed(e->kids[i], "body") || isNamed(e->kids[i], "frame") ? countBodies(e->kids[i])
                                                                       : 0);
  }
  return n;
}

// the top-level bodies under e (worldbody or a frame in it), in file order
static int findTops(hsmMjcfLoad *u, const hsmXmlElem *e, int cls, const double F[12],
                    hsuVec *tops, int *ids) {
  for (int i = 0; i < e->nkid; i++) {
    const hsmXmlElem *k = e->kids[i];
    double T[12];
    if (isNamed(k, "body")) {
      Top t = {k, cls, {0}, *ids};
      memcpy(t.P, F, sizeof t.P);
      *ids += 1 + countBodies(k);
      if (!hsu_vecPush(tops, sizeof t, &t)) {
        return hsm_mjcfNomem(u);
      }
    } else if (isNamed(k, "frame")) {
      int kc = cls;
      double S[12];
      if (hsm_mjcfClassOf(u, k, cls, &kc) || hsm_mjcfFrame(u, k, -1, T)) {
        return -1;
      }
      if (hsm_mjcfOwn(k, "childclass")) {
        hsmXmlElem probe = *k;
        hsmXmlAttr a = {"class", (char *)hsm_mjcfOwn(k, "childclass")};
        probe.attrs = &a;
        probe.nattr = 1;
        if (hsm_mjcfClassOf(u, &probe, cls, &kc)) {
          return -1;
        }
      }
      hsu_mulTransform(S, F, T);
      if (findTops(u, k, kc, S, tops, ids)) {
        return -1;
      }
    }
  }
  return 0;
}

// the environment: the world's own geoms on one fixed link "world"
static int buildWorld(hsmMjcfLoad *u, const hsmXmlElem *wb) {
  int link = addLink(u, "world", -1, hsJOINT_FIXED, kIdentity, NULL, -1, wb);
  if (link < 0) {
    return -1;
  }
  hsmSegmentSpec s;
  memset(&s, 0, sizeof s);
  s.seg.link = link;
  memcpy(s.seg.T, kIdentity, sizeof s.seg.T);
  const char *file = ((const hsmMjcfFile *)u->files.data)[wb->file].path;
  s.where = (hsmSource){file, wb->line, 0};
  s.name = hsu_strdup("world");
  if (!s.name || !hsu_vecPush(&u->b->segments, sizeof s, &s)) {
    hsu_free(s.name);
    return hsm_mjcfNomem(u);
  }
  Place pl;
  memset(&pl, 0, sizeof pl);
  memcpy(pl.T, kIdentity, sizeof pl.T);
  pl.link = link;
  pl.segment = (int)u->b->segments.n - 1;
  pl.skipBodies = 1;
  int jointId = 0;
  int rc = walkContents(u, wb, 0, &pl, kIdentity, &jointId);
  hsu_vecFree(&pl.masses);
  return rc;
}

//---------------------------------- collision filter ------------------------------------------

#define BODIES(u) ((const hsmMjcfBody *)(u)->bodies.data)

// the filter of builder link l (NULL when no colliding geom is on it)
static const hsmMjcfLinkFilter *linkFilter(const hsmMjcfLoad *u, int l) {
  const hsmMjcfLinkFilter *f = (size_t)l < u->filters.n
                                   ? (const hsmMjcfLinkFilter *)u->filters.data + l : NULL;
  return f && f->ngeom ? f : NULL;
}

// 1 if builder links a and b are one link or a link and its parent (hrpsim never collides them)
static int adjacentLinks(const hsmMjcfLoad *u, int a, int b) {
  return a == b || LINKSPEC(u, a).link.parent == b || LINKSPEC(u, b).link.parent == a;
}

// 1 if a link name can stand in a collision info string (one word)
static int oneWord(const char *name) {
  return name[0] && !strchr(name, ' ') && strlen(name) < 256;
}

// at most this many link pairs excluded per model, and pair checks of the parent filter (a
// hostile file of many bodies must not take quadratic time); past either, a warning
enum { kMaxExcludes = 100000, kMaxFilterChecks = 20000000 };

// note the exclude of links a and b (lower first) in pairs; 1 when the cap is reached
static int noteExclude(hsmMjcfLoad *u, hsuVec *pairs, int a, int b, int *rc) {
  if (!oneWord(LINKSPEC(u, a).name) || !oneWord(LINKSPEC(u, b).name)) {
    return 0;
  }
  if (pairs->n >= kMaxExcludes) {
    return 1;
  }
  int pair[2] = {a < b ? a : b, a < b ? b : a};
  if (!hsu_vecPush(pairs, sizeof pair, pair)) {
    *rc = hsm_mjcfNomem(u);
  }
  return 0;
}

static int comparePairs(const void *x, const void *y) {
  const int *a = x, *b = y;
  return a[0] != b[0] ? (a[0] > b[0]) - (a[0] < b[0]) : (a[1] > b[1]) - (a[1] < b[1]);
}

// MuJoCo's parent filter over the bodies with colliding geoms, grouped by weld: the pairs
// within a welded group and between a group and its parent group (not the world's) that hrpsim
// would pair (not a link and its parent), into pairs; 1 when a cap is reached
static int parentFilter(hsmMjcfLoad *u, hsuVec *pairs, int *rc) {
  int n = (int)u->bodies.n;
  int *start = hsu_calloc((size_t)n + 2, sizeof *start), *order =
      hsu_malloc(((size_t)n + 1) * sizeof *order);
  if (!start || !order) {
    hsu_free(start), hsu_free(order);
    *rc = hsm_mjcfNomem(u);
    return 0;
  }
  // counting sort by weld + 1 (0: the world), bodies without colliding geoms left out
  for (int i = 0; i < n; i++) {
    start[BODIES(u)[i].weld + 2] += linkFilter(u, BODIES(u)[i].link) != NULL;
  }
  for (int k = 1; k <= n + 1; k++) {
    start[k] += start[k - 1];
  }
  for (int i = 0; i < n; i++) {
    if (linkFilter(u, BODIES(u)[i].link)) {
      order[start[BODIES(u)[i].weld + 1]++] = i;
    }
  }
  for (int k = n; k > 0; k--) {
    start[k] = start[k - 1];
  }
  start[0] = 0;
  // group k holds order[start[k] .. start[k + 1]); its pairs, then its pairs with the parent
  long checks = 0;
  int capped = 0;
  for (int k = 0; k <= n && !capped && !*rc; k++) {
    int w = k - 1;
    int up = w >= 0 && BODIES(u)[w].parent >= 0 ? BODIES(u)[BODIES(u)[w].parent].weld : -1;
    for (int i = start[k]; i < start[k + 1] && !capped && !*rc; i++) {
      int a = BODIES(u)[order[i]].link;
      int from = up >= 0 ? start[up + 1] : start[k + 1], to = up >= 0 ? start[up + 2] : 0;
      for (int j = i + 1; j < start[k + 1] && !capped && !*rc; j++) {
        int b = BODIES(u)[order[j]].link;
        capped = ++checks > kMaxFilterChecks ||
                 (!adjacentLinks(u, a, b) && noteExclude(u, pairs, a, b, rc));
      }
      for (int j = from; j < to && !capped && !*rc; j++) {
        int b = BODIES(u)[order[j]].link;
        capped = ++checks > kMaxFilterChecks ||
                 (!adjacentLinks(u, a, b) && noteExclude(u, pairs, a, b, rc));
      }
    }
  }
  hsu_free(start);
  hsu_free(order);
  return capped;
}

// the body of this load named name, or -1
static int findBody(const hsmMjcfLoad *u, const char *name) {
  for (size_t i = 0; name && i < u->bodies.n; i++) {
    if (strcmp(BODIES(u)[i].name, name) == 0) {
      return (int)i;
    }
  }
  return -1;
}

// 1 if a <body> named name is in e's subtree ("world" is MuJoCo's world body); NULL is none
static int bodyInFile(const hsmXmlElem *e, const char *name) {
  if (!name || strcmp(name, "world") == 0) {
    return name != NULL;
  }
  for (int i = 0; i < e->nkid; i++) {
    const char *n = isNamed(e->kids[i], "body") ? hsm_mjcfOwn(e->kids[i], "name") : NULL;
    if ((n && strcmp(n, name) == 0) || bodyInFile(e->kids[i], name)) {
      return 1;
    }
  }
  return 0;
}

// the links' contype / conaffinity, MuJoCo's parent filter and <contact><exclude> as the info
// strings hsm_compile reads (hsm_linksMayCollide); <contact><pair> warned
static int collisionFilter(hsmMjcfLoad *u) {
  // bits: the OR of each link's colliding geoms'
  int rc = 0;
  for (size_t l = 0; l < u->filters.n && !rc; l++) {
    const hsmMjcfLinkFilter *f = linkFilter(u, (int)l);
    const char *name = LINKSPEC(u, l).name;
    if (f && f->mixed && !(u->warned & hsMJCF_ONCE_MIXEDBITS)) {
      u->warned |= hsMJCF_ONCE_MIXEDBITS;
      hsm_mjcfWarn(u, f->mixed, "link '%s': geoms with different contype/conaffinity on one "
                   "link; hrpsim filters collisions per link, with the OR of its geoms' bits "
                   "(warned once)", name);
    }
    if (f && (f->contype != 1 || f->conaffinity != 1)) {
      if (!oneWord(name)) {
        hsm_mjcfWarn(u, f->mixed ? f->mixed : u->root, "link '%s': its contype/conaffinity are "
                     "not kept (a name with a space)", name);
        continue;
      }
      rc = addInfo(u, "collision filter %s contype %u conaffinity %u", name, f->contype,
                   f->conaffinity);
    }
  }
  // MuJoCo's filters: bodies welded together, and a welded group and its parent group unless
  // that is the world, never touch; links hrpsim pairs anyway (not a link and its parent)
  // are excluded
  hsuVec pairs = {0};
  int capped = rc ? 0 : parentFilter(u, &pairs, &rc);
  // <contact>: excludes between bodies of this model; pairs are the project's business
  for (int i = 0; i < u->root->nkid && !rc; i++) {
    const hsmXmlElem *c = u->root->kids[i];
    for (int k = 0; isNamed(c, "contact") && k < c->nkid && !rc; k++) {
      const hsmXmlElem *x = c->kids[k];
      if (!isNamed(x, "exclude")) {
        hsm_mjcfWarn(u, x, "<contact><%s> is not supported: hrpsim's contact pairs and their "
                     "friction are the project's", x->name);
        continue;
      }
      const char *n1 = hsm_mjcfOwn(x, "body1"), *n2 = hsm_mjcfOwn(x, "body2");
      int b1 = findBody(u, n1), b2 = findBody(u, n2);
      const char *missing = !bodyInFile(u->root, n1) ? n1 : !bodyInFile(u->root, n2) ? n2 : NULL;
      if (missing || !n1 || !n2) {
        hsm_mjcfWarn(u, x, "<exclude> names no body '%s': not kept", missing ? missing : "");
        continue;
      }
      if ((b1 < 0) != (b2 < 0)) {
        hsm_mjcfWarn(u, x, "<exclude> of bodies '%s' and '%s' is not kept: '%s' is not part of "
                     "this model (another top-level body, or the world: hrpsim filters within "
                     "one model)", n1, n2, b1 < 0 ? n1 : n2);
        continue;
      }
      if (b1 < 0) {
        continue;  // two bodies of another model of this file
      }
      int l1 = BODIES(u)[b1].link, l2 = BODIES(u)[b2].link;
      if (l1 != l2 && !adjacentLinks(u, l1, l2)) {
        capped |= noteExclude(u, &pairs, l1, l2, &rc);
      }
    }
  }
  if (!rc && capped) {
    hsm_mjcfWarn(u, u->root, "the collision filter keeps its first %zu excluded link pairs "
                 "only (at most %d, and %d checks of MuJoCo's parent filter)", pairs.n,
                 (int)kMaxExcludes, (int)kMaxFilterChecks);
  }
  // once each, in link order
  int *p = pairs.data;
  if (pairs.n) {
    qsort(p, pairs.n, 2 * sizeof(int), comparePairs);
  }
  for (size_t i = 0; i < pairs.n && !rc; i++) {
    if (i == 0 || comparePairs(&p[2 * i], &p[2 * i - 2]) != 0) {
      rc = addInfo(u, "collision exclude %s %s", LINKSPEC(u, p[2 * i]).name,
                   LINKSPEC(u, p[2 * i + 1]).name);
    }
  }
  hsu_vecFree(&pairs);
  return rc;
}

//---------------------------------- the model -------------------------------------------------

// the <default> of a model without one
static const hsmXmlElem kNoDefault = {"default", 0, 0, NULL, 0, NULL, 0};

// <compiler> and the <default> classes, in file order; the <worldbody> into *worldbody
static int readSettings(hsmMjcfLoad *u, const hsmXmlElem **worldbody) {
  const hsmXmlElem *root = u->root;
  hsmMjcfClass main = {"main", -1, &kNoDefault};
  if (!hsu_vecPush(&u->classes, sizeof main, &main)) {
    return hsm_mjcfNomem(u);
  }
  *worldbody = NULL;
  for (int i = 0; i < root->nkid; i++) {
    const hsmXmlElem *k = root->kids[i];
    if (isNamed(k, "compiler") && readCompiler(u, k)) {
      return -1;
    }
    if (isNamed(k, "default")) {
      if (CLASSES(u)[0].elem == &kNoDefault) {
        CLASSES(u)[0].elem = k;
      }
      if (readClasses(u, k, 0)) {
        return -1;
      }
    }
    *worldbody = isNamed(k, "worldbody") && !*worldbody ? k : *worldbody;
  }
  if (!*worldbody) {
    return hsm_mjcfError(u, hsE_MODEL, root, NULL, "the model has no <worldbody>");
  }
  return 0;
}

static int buildModel(hsmMjcfLoad *u) {
  const hsmXmlElem *root = u->root, *worldbody = NULL;
  // compiler, defaults, assets (defaults before the assets that use them)
  if (readSettings(u, &worldbody)) {
    return -1;
  }
  int rc = 0;
  for (int i = 0; i < root->nkid && !rc; i++) {
    if (isNamed(root->kids[i], "asset")) {
      rc = readAssets(u, root->kids[i]);
    }
  }
  if (rc) {
    return rc;
  }
  hsuVec tops = {0};
  int ids = 1;
  rc = findTops(u, worldbody, 0, kIdentity, &tops, &ids);
  const Top *t = tops.data;
  int pick = -1;
  char names[600] = "";
  for (size_t i = 0; i < tops.n; i++) {
    char name[256];
    bodyName(t[i].e, t[i].firstId, name, sizeof name);
    size_t n = strlen(names);
    snprintf(names + n, sizeof names - n, "%s'%s'", i ? ", " : "", name);
    if (u->select && strcmp(u->select, name) == 0) {
      pick = (int)i;
    }
  }
  const char *model = hsm_mjcfOwn(root, "model");
  if (!rc && u->select && strcmp(u->select, "world") != 0 && pick < 0) {
    rc = hsm_mjcfError(u, hsE_MODEL, worldbody, NULL, "no top-level body '%s' (the model has "
                       "%s%s; #world selects the world's own geoms)", u->select,
                       tops.n ? "" : "none", names);
  } else if (!rc && !u->select && tops.n > 1) {
    rc = hsm_mjcfError(u, hsE_MODEL, worldbody, NULL, "the model has %zu top-level bodies (%s): "
                       "select one with URL#NAME, or the world's own geoms with URL#world",
                       tops.n, names);
  }
  int world = !rc && (tops.n == 0 || (u->select && strcmp(u->select, "world") == 0));
  if (!rc && world) {
    u->b->name = hsu_strdup(model ? model : "world");
    rc = u->b->name ? buildWorld(u, worldbody) : hsm_mjcfNomem(u);
  } else if (!rc) {
    const Top *top = &t[pick >= 0 ? pick : 0];
    char name[256];
    bodyName(top->e, top->firstId, name, sizeof name);
    u->b->name = hsu_strdup(hsm_mjcfOwn(top->e, "name") || !model ? name : model);
    u->nbody = top->firstId - 1;
    int jointId = 0;
    rc = u->b->name ? walkBody(u, top->e, top->cls, -1, top->P, &jointId) : hsm_mjcfNomem(u);
  }
  size_t ntop = tops.n;
  hsu_vecFree(&tops);
  if (!rc) {
    rc = collisionFilter(u);
  }
  if (!rc) {
    rc = hsm_mjcfSensorsAndActuators(u);
  }
  if (!rc && u->settotalmass > 0 && ntop > 1 && !world) {
    for (int i = 0; i < root->nkid; i++) {
      if (isNamed(root->kids[i], "compiler") && hsm_mjcfOwn(root->kids[i], "settotalmass")) {
        hsm_mjcfWarn(u, root->kids[i], "settotalmass scales the selected body to %g kg; MuJoCo "
                     "scales the %zu top-level bodies together", u->settotalmass, ntop);
      }
    }
  }
  // settotalmass: every segment scaled alike
  if (!rc && u->settotalmass > 0) {
    double total = 0;
    for (size_t i = 0; i < u->b->segments.n; i++) {
      total += SEGSPEC(u, i).seg.mass;
    }
    double f = total > 0 ? u->settotalmass / total : 0;
    for (size_t i = 0; f > 0 && i < u->b->segments.n; i++) {
      SEGSPEC(u, i).seg.mass *= f;
      for (int k = 0; k < 9; k++) {
        SEGSPEC(u, i).seg.inertia[k] *= f;
      }
    }
  }
  return rc;
}

//---------------------------------- entry -----------------------------------------------------

// set up u for path (a plain path or file: URL, maybe with #fragment); 0 or an error
static int startLoad(hsmMjcfLoad *u, hsmBuilder *b, const char *path, const hsmLoadOptions *opt,
                     char abs[PATH_MAX], hsError *err) {
  // the fragment selects a body; a path that exists as written has none
  char p[PATH_MAX];
  int rc = hsu_urlToPath(path, p, PATH_MAX);
  if (rc) {
    return HS_ERR_AT(err, rc > 0 ? hsE_UNSUPPORTED : hsE_IO, path, 0, 0, "cannot read '%s': %s",
                     path, rc > 0 ? "unsupported URL scheme (use a file:// URL or a path)"
                                  : "path too long");
  }
  char *hash = strrchr(p, '#');
  const char *select = NULL;
  if (hash && access(p, F_OK) != 0) {
    *hash = 0;
    select = strrchr(path, '#') ? strrchr(path, '#') + 1 : NULL;  // the caller's string
  }
  hsmLoadOptions o;
  hsm_effectiveLoadOptions(&o, opt);
  if ((rc = hsu_checkFile(p, o.limits.maxFileBytes, err)) != 0) {
    return rc;
  }
  if (!realpath(p, abs)) {
    return HS_ERR_AT(err, hsE_IO, path, 0, 0, "cannot read '%s'", path);
  }
  memset(u, 0, sizeof *u);
  u->file = abs;
  u->select = select && select[0] ? select : NULL;
  u->opt = o;
  u->err = err;
  u->b = b;
  u->fromGeom = 2;
  u->autolimits = 1;
  u->body = -1;
  memcpy(u->eulerseq, "xyz", 4);
  u->dir = hsu_strdup(abs);
  if (!u->dir) {
    return HS_ERR(err, hsE_NOMEM, "out of memory");
  }
  char *slash = strrchr(u->dir, '/');
  if (slash) {
    *(slash == u->dir ? slash + 1 : slash) = 0;
  }
  return 0;
}

// release what a load holds (not the builder)
static void endLoad(hsmMjcfLoad *u) {
  hsm_mjcfFreeMeshes(u);
  hsu_vecFree(&u->classes);
  hsu_vecFree(&u->materials);
  hsu_vecFree(&u->sites);
  hsu_vecFree(&u->joints);
  for (size_t i = 0; i < u->bodies.n; i++) {
    hsu_free(BODIES(u)[i].name);
  }
  hsu_vecFree(&u->bodies);
  hsu_vecFree(&u->filters);
  hsm_mjcfFreeTree(u);
  hsu_free(u->meshdir);
  hsu_free(u->dir);
}

// 0 if every number the compiled body serves is finite, else an error naming the link or shape:
// finite but huge inputs (a fromto of 1e86, an inertia near 1e308 turned by a quat) overflow
// the float vertices or the merged mass properties while compiling
static int checkServed(const char *file, const hsBody *body, hsError *err) {
  for (int i = 0; i < body->nlink; i++) {
    const hsLink *l = &body->links[i];
    if (!isfinite(l->mass) || !hsu_allFinite(l->com, 3) || !hsu_allFinite(l->inertia, 9) ||
        !hsu_allFinite(l->translation, 3) || !hsu_allFinite(l->R, 9)) {
      return HS_ERR_AT(err, hsE_MODEL, file, 0, 0, "link '%s': its placement or mass "
                       "properties overflow (a number near the limit of double, 1.8e308)",
                       l->name);
    }
  }
  for (int i = 0; i < body->nshape; i++) {
    const hsShape *sh = &body->shapes[i];
    for (int k = 0; k < 3 * sh->nvertex; k++) {
      if (!isfinite(sh->vertices[k])) {
        return HS_ERR_AT(err, hsE_MODEL, file, 0, 0, "shape %d has a vertex beyond the range "
                         "of float (3.4e38): a size, pos or fromto too large", i);
      }
    }
    for (int k = 0; k < sh->nparam; k++) {
      if (!isfinite(sh->params[k])) {
        return HS_ERR_AT(err, hsE_MODEL, file, 0, 0, "shape %d has a size beyond the range of "
                         "float (3.4e38)", i);
      }
    }
  }
  return 0;
}

hsBody *hsm_loadMjcf(const char *path, const hsmLoadOptions *opt, hsmWarning *warnings,
                     int maxWarnings, int *nwarnings, hsError *err) {
  if (nwarnings) {
    *nwarnings = 0;
  }
  if (!path) {
    HS_ERR(err, hsE_INVALID, "no model path");
    return NULL;
  }
  hsmBuilder b;
  memset(&b, 0, sizeof b);
  hsmMjcfLoad u;
  char abs[PATH_MAX];
  if (startLoad(&u, &b, path, opt, abs, err)) {
    return NULL;
  }
  u.warnings = warnings;
  u.maxWarnings = warnings ? maxWarnings : 0;
  int rc = hsm_mjcfRead(&u);
  if (!rc) {
    b.url = hsu_strdup(abs);
    rc = b.url ? buildModel(&u) : hsm_mjcfNomem(&u);
  }
  hsBody *body = NULL;
  if (!rc) {
    body = hsm_compile(&b, err);
    if (body && checkServed(abs, body, err)) {
      hsm_freeBody(body);
      body = NULL;
    }
  } else {
    hsm_freeBuilder(&b);
  }
  endLoad(&u);
  if (nwarnings) {
    *nwarnings = u.nwarnings;
  }
  return body;
}

int hsm_mjcfScene(const char *path, char *names, size_t size, int *worldGeoms, hsError *err) {
  if (!path || (!names && size) || !worldGeoms) {
    return HS_ERR(err, hsE_INVALID, "hsm_mjcfScene: no path or output");
  }
  hsmBuilder b;
  memset(&b, 0, sizeof b);
  hsmMjcfLoad u;
  char abs[PATH_MAX];
  int rc = startLoad(&u, &b, path, NULL, abs, err);
  if (rc) {
    return rc;
  }
  const hsmXmlElem *wb = NULL;
  hsuVec tops = {0};
  int ids = 1;
  rc = hsm_mjcfRead(&u);
  rc = rc ? rc : readSettings(&u, &wb);
  rc = rc ? rc : findTops(&u, wb, 0, kIdentity, &tops, &ids);
  size_t used = 0;
  for (size_t i = 0; !rc && i < tops.n; i++) {
    const Top *t = (const Top *)tops.data + i;
    char name[256];
    bodyName(t->e, t->firstId, name, sizeof name);
    size_t n = strlen(name) + 1;
    if (used + n > size) {
      rc = HS_ERR(err, hsE_INVALID, "hsm_mjcfScene: %zu bytes hold not every body name",
                  size);
    } else {
      memcpy(names + used, name, n);
      used += n;
    }
  }
  *worldGeoms = 0;
  for (int i = 0; !rc && i < wb->nkid; i++) {
    *worldGeoms |= isNamed(wb->kids[i], "geom") || isNamed(wb->kids[i], "frame");
  }
  int count = (int)tops.n;
  hsu_vecFree(&tops);
  hsm_freeBuilder(&b);
  endLoad(&u);
  return rc ? rc : count;
}
