// urdf_body.c - build an hsBody from a URDF robot (hsm_loadUrdf).
//
// urdf_xml.c reads the file into plain records; this file checks the kinematic tree and
// fills the builder; urdf_shape.c adds the geometry. The mapping onto OpenHRP's BodyInfo:
//
// Tree. The root is the one link that is no joint's child. ROS base convention: when the root is
// a link named `world` without <inertial>, <visual> or <collision>, and it has exactly one child
// joint, `world` is dropped and its child becomes the root link. A `fixed` joint gives a fixed
// base (jointType "fixed"), a `floating` joint a free root ("free"); either way the root is
// placed at that joint's origin. A bare `world` with several children or another joint type is
// kept as the root and is "fixed" (it is the world; massless without a warning), its children
// attached as their joints say.
// Any other root link is "free", at the origin. A floating joint anywhere else is an error, and
// so are planar joints and unknown types. Links are listed depth-first from the root, children
// in the order their joints appear in the file.
//
// Names. A non-root link is named after the URDF joint that moves it, the root after its URDF
// link. Every URDF link becomes one segment named after the URDF link (hsm_linkIndex finds a
// link by either name); so the root's name may not be a joint's name too.
//
// Joints. revolute and continuous give "rotate", prismatic "slide", fixed "fixed" (jointId -1).
// The movable joints (revolute, continuous, prismatic) get jointIds 0..n-1 in the order their
// <joint> elements appear in the file, whatever the tree order. translation/rotation are the
// joint's <origin> (xyz; rpy as fixed-axis roll about x, pitch about y, yaw about z, i.e.
// R = Rz(yaw) Ry(pitch) Rx(roll)) in the parent link frame; the joint frame is the child link
// frame, so <axis> (default 1 0 0, normalised; zero is an error) is copied into the link's axis
// as it is, which is OpenHRP's convention. <limit>: for revolute and prismatic joints lower and
// upper (URDF's default 0 when one is left out) give llimit and ulimit; continuous joints have no
// position limits; velocity gives uvlimit = velocity and lvlimit = -velocity; effort gives
// climit. climit is a current limit in OpenHRP, but with gearRatio 1 and torqueConst 1 (the
// defaults every URDF link gets) the current limit equals the torque or force limit. A revolute
// or prismatic joint without <limit> (URDF requires one) loads unbounded, with a warning.
// <dynamics> and <mimic> have no BodyInfo field; they become body info strings, per joint in
// file order, dynamics first:
//   "urdf dynamics <link> <damping> <friction>"
//   "urdf mimic <link> <master link> <multiplier> <offset>"
// where links are named as in the body (joint names) and numbers are printed with %.17g.
// A mimic must name another movable joint of the robot.
//
// Mass. A link's segment carries <inertial>: mass, centre of mass at the segment frame origin,
// the inertia tensor as given, and the segment frame = the inertial <origin> (its rpy turns the
// tensor into the link frame when hsm_compile merges the segment). A negative mass is an error;
// mass 0 (frame and sensor links), an all-zero, singular or indefinite tensor load as written,
// each with a warning, and so does a link without <inertial> (a massless segment). The body
// keeps them as the file gives them: making them something a physics engine can step (merging
// a massless link on a fixed joint into its parent, bounding the mass properties of a moving
// one) belongs to the dynamics.
//
// Geometry (see urdf_shape.c): <visual>s are the link's shapeRefs (and its segment's),
// <collision>s its collisionRefs; every link has separate collision geometry, so a link with
// visuals but no collision has no collision shapes.
//
// Sensors (see urdf_sensor.c): the <sensor>s of <gazebo reference=...> blocks become OpenHRP
// sensors on the referenced link, after the links' geometry; their noise becomes info strings
// after them, before dynamics and mimic.

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "urdf_private.h"

#define ULINK(u, i) (((hsmUrdfLink *)(u)->doc.links.data)[i])
#define UJOINT(u, i) (((hsmUrdfJoint *)(u)->doc.joints.data)[i])

//---------------------------------- reporting -------------------------------------------------

int hsm_urdfError(hsmUrdfLoad *u, int code, int line, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return HS_ERR_AT(u->err, code, u->file, line, 0, "%s", msg);
}

int hsm_urdfNomem(hsmUrdfLoad *u) {
  return HS_ERR(u->err, hsE_NOMEM, "out of memory");
}

void hsm_urdfWarn(hsmUrdfLoad *u, int line, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  hsu_log(hsLOG_WARNING, "%s:%d: %s", u->file, line, msg);
  if (u->warnings && u->nwarnings < u->maxWarnings) {
    hsmWarning *out = &u->warnings[u->nwarnings];
    snprintf(out->message, sizeof out->message, "%s", msg);
    snprintf(out->file, sizeof out->file, "%s", u->file);
    out->line = line;
  }
  u->nwarnings++;
  hsm_addWarningInfo(u->b, u->file, line, msg);  // as VRML's: lost only if out of memory
}

//---------------------------------- names -----------------------------------------------------

// a name with the index of its record, for sorting and binary search
typedef struct NameRef {
  const char *name;
  int index;
} NameRef;

static int compareNameRef(const void *a, const void *b) {
  const NameRef *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : (x->index > y->index) - (x->index < y->index);
}

static int compareName(const void *a, const void *b) {
  return strcmp(((const NameRef *)a)->name, ((const NameRef *)b)->name);
}

// a sorted index of n names taken at `stride` bytes apart (the first field of each record);
// fails on a duplicate name, reported at the later record's line
static NameRef *sortNames(hsmUrdfLoad *u, const void *records, size_t n, size_t stride,
                          size_t lineOffset, const char *what) {
  NameRef *refs = hsu_malloc((n ? n : 1) * sizeof *refs);
  if (!refs) {
    return hsm_urdfNomem(u), NULL;
  }
  for (size_t i = 0; i < n; i++) {
    refs[i].name = *(char *const *)((const char *)records + i * stride);
    refs[i].index = (int)i;
  }
  qsort(refs, n, sizeof *refs, compareNameRef);
  // report the duplicate that comes first in the file
  int dup = -1, orig = -1;
  for (size_t i = 1; i < n; i++) {
    if (strcmp(refs[i].name, refs[i - 1].name) == 0 && (dup < 0 || refs[i].index < dup)) {
      dup = refs[i].index, orig = refs[i - 1].index;
      while (i + 1 < n && strcmp(refs[i + 1].name, refs[i].name) == 0) {
        i++;
      }
    }
  }
  if (dup >= 0) {
    const char *rec = (const char *)records;
    int line = *(const int *)(rec + (size_t)dup * stride + lineOffset);
    int first = *(const int *)(rec + (size_t)orig * stride + lineOffset);
    hsm_urdfError(u, hsE_MODEL, line, "two %ss are named '%s' (the first on line %d)", what,
                  *(char *const *)(rec + (size_t)dup * stride), first);
    hsu_free(refs);
    return NULL;
  }
  return refs;
}

static int findName(const NameRef *refs, size_t n, const char *name) {
  NameRef key = {name, 0};
  const NameRef *hit = n ? bsearch(&key, refs, n, sizeof key, compareName) : NULL;
  return hit ? hit->index : -1;
}

//---------------------------------- the tree --------------------------------------------------

// how the robot sits in the world
typedef struct Tree {
  int root;       // URDF link that becomes links[0]
  int baseJoint;  // the world joint that was dropped, or -1
  hstJoint rootType;
  int worldRoot;  // 1 if the root is a bare `world` kept as the (fixed) world itself
  int *order;     // URDF link indices, depth-first from root
  int norder;
  int *jointId;   // per URDF joint: its jointId, or -1
} Tree;

// the cycle through the ancestors of link `start` (which never reaches a root), as an error
static int cycleError(hsmUrdfLoad *u, int start) {
  int nlink = (int)u->doc.links.n;
  // walk up nlink steps: then we are surely on the cycle
  int l = start;
  for (int k = 0; k < nlink; k++) {
    l = UJOINT(u, ULINK(u, l).parentJoint).parent;
  }
  // name the links around it; report at its joint that comes last in the file (it closes it)
  char names[400] = "";
  size_t used = 0;
  int first = l, joint = -1;
  do {
    int n = snprintf(names + used, sizeof names - used, "'%s' <- ", ULINK(u, l).name);
    used = n > 0 && (size_t)n < sizeof names - used ? used + (size_t)n : sizeof names - 1;
    if (ULINK(u, l).parentJoint > joint) {
      joint = ULINK(u, l).parentJoint;
    }
    l = UJOINT(u, ULINK(u, l).parentJoint).parent;
  } while (l != first);
  snprintf(names + used, sizeof names - used, "'%s'", ULINK(u, first).name);
  return hsm_urdfError(u, hsE_MODEL, UJOINT(u, joint).line,
                       "the joints form a cycle: link %s (each the child of the next)", names);
}

// resolve parents and children, find the root, order the links, number the joints
static int buildTree(hsmUrdfLoad *u, Tree *t) {
  int nlink = (int)u->doc.links.n, njoint = (int)u->doc.joints.n;
  NameRef *links = sortNames(u, u->doc.links.data, (size_t)nlink, sizeof(hsmUrdfLink),
                             offsetof(hsmUrdfLink, line), "link");
  if (!links) {
    return -1;
  }
  NameRef *joints = sortNames(u, u->doc.joints.data, (size_t)njoint, sizeof(hsmUrdfJoint),
                              offsetof(hsmUrdfJoint, line), "joint");
  if (!joints) {
    hsu_free(links);
    return -1;
  }
  int rc = 0;
  // parents and children, in file order
  for (int i = 0; i < njoint && !rc; i++) {
    hsmUrdfJoint *j = &UJOINT(u, i);
    j->parent = findName(links, (size_t)nlink, j->parentName);
    j->child = findName(links, (size_t)nlink, j->childName);
    if (j->parent < 0) {
      rc = hsm_urdfError(u, hsE_MODEL, j->parentLine, "joint '%s': parent link '%s' does not "
                         "exist", j->name, j->parentName);
    } else if (j->child < 0) {
      rc = hsm_urdfError(u, hsE_MODEL, j->childLine, "joint '%s': child link '%s' does not "
                         "exist", j->name, j->childName);
    } else if (j->parent == j->child) {
      rc = hsm_urdfError(u, hsE_MODEL, j->line, "joint '%s' connects link '%s' to itself",
                         j->name, j->childName);
    } else if (ULINK(u, j->child).parentJoint >= 0) {
      const hsmUrdfJoint *other = &UJOINT(u, ULINK(u, j->child).parentJoint);
      rc = hsm_urdfError(u, hsE_MODEL, j->line, "link '%s' is the child of two joints: '%s' "
                         "(line %d) and '%s'", j->childName, other->name, other->line, j->name);
    } else {
      ULINK(u, j->child).parentJoint = i;
    }
  }
  // mimic masters: other movable joints
  for (int i = 0; i < njoint && !rc; i++) {
    const hsmUrdfJoint *j = &UJOINT(u, i);
    if (!j->hasMimic) {
      continue;
    }
    int m = findName(joints, (size_t)njoint, j->mimicJoint);
    if (m < 0) {
      rc = hsm_urdfError(u, hsE_MODEL, j->mimicLine, "joint '%s' mimics joint '%s', which does "
                         "not exist", j->name, j->mimicJoint);
    } else if (m == i) {
      rc = hsm_urdfError(u, hsE_MODEL, j->mimicLine, "joint '%s' mimics itself", j->name);
    } else if (UJOINT(u, m).type == hsURDF_FIXED || UJOINT(u, m).type == hsURDF_FLOATING) {
      rc = hsm_urdfError(u, hsE_MODEL, j->mimicLine, "joint '%s' mimics joint '%s', which does "
                         "not move", j->name, j->mimicJoint);
    }
  }
  hsu_free(links);
  hsu_free(joints);
  if (rc) {
    return rc;
  }
  // child lists in file order
  for (int i = njoint - 1; i >= 0; i--) {
    hsmUrdfJoint *j = &UJOINT(u, i);
    j->nextSibling = ULINK(u, j->parent).firstChild;
    ULINK(u, j->parent).firstChild = i;
  }
  // exactly one root
  int root = -1, nroot = 0;
  char names[400] = "";
  size_t used = 0;
  for (int i = 0; i < nlink; i++) {
    if (ULINK(u, i).parentJoint >= 0) {
      continue;
    }
    // the only root, or the second one, where an error about several is reported
    if (++nroot <= 2) {
      root = i;
    }
    int n = snprintf(names + used, sizeof names - used, "%s'%s'", used ? ", " : "",
                     ULINK(u, i).name);
    used = n > 0 && (size_t)n < sizeof names - used ? used + (size_t)n : sizeof names - 1;
  }
  if (nroot == 0) {
    return cycleError(u, 0);
  }
  if (nroot > 1) {
    return hsm_urdfError(u, hsE_MODEL, ULINK(u, root).line, "the robot has %d root links (links "
                         "that are no joint's child): %s; joints must connect them into one "
                         "tree", nroot, names);
  }
  // the world convention
  const hsmUrdfLink *r = &ULINK(u, root);
  t->root = root;
  t->baseJoint = -1;
  t->rootType = hsJOINT_FREE;
  if (strcmp(r->name, "world") == 0 && !r->hasInertial && r->visuals.n == 0 &&
      r->collisions.n == 0) {
    const hsmUrdfJoint *first = r->firstChild >= 0 ? &UJOINT(u, r->firstChild) : NULL;
    t->rootType = hsJOINT_FIXED;
    t->worldRoot = 1;
    if (first && first->nextSibling < 0 &&
        (first->type == hsURDF_FIXED || first->type == hsURDF_FLOATING)) {
      t->baseJoint = r->firstChild;
      t->root = first->child;
      t->rootType = first->type == hsURDF_FIXED ? hsJOINT_FIXED : hsJOINT_FREE;
      t->worldRoot = 0;
    }
  }
  for (int i = 0; i < njoint; i++) {
    if (UJOINT(u, i).type == hsURDF_FLOATING && i != t->baseJoint) {
      return hsm_urdfError(u, hsE_MODEL, UJOINT(u, i).line, "joint '%s': a floating joint may "
                           "only connect a link named 'world' (without inertial or geometry) to "
                           "the robot's root link", UJOINT(u, i).name);
    }
  }
  // depth-first order without recursion: down to the first child, else on to the next sibling
  // of the nearest ancestor that has one
  t->order = hsu_malloc((size_t)nlink * sizeof(int));
  t->jointId = hsu_malloc((size_t)(njoint ? njoint : 1) * sizeof(int));
  char *seen = hsu_calloc((size_t)nlink, 1);
  if (!t->order || !t->jointId || !seen) {
    hsu_free(seen);
    return hsm_urdfNomem(u);
  }
  int l = t->root;
  for (;;) {
    seen[l] = 1;
    t->order[t->norder++] = l;
    int next = ULINK(u, l).firstChild;
    while (next < 0 && l != t->root) {
      next = UJOINT(u, ULINK(u, l).parentJoint).nextSibling;
      l = UJOINT(u, ULINK(u, l).parentJoint).parent;
    }
    if (next < 0) {
      break;
    }
    l = UJOINT(u, next).child;
  }
  // every other link hangs from a cycle (the dropped world is the one exception)
  if (t->baseJoint >= 0) {
    seen[root] = 1;
  }
  for (int i = 0; i < nlink && !rc; i++) {
    if (!seen[i]) {
      rc = cycleError(u, i);
    }
  }
  hsu_free(seen);
  if (rc) {
    return rc;
  }
  // the root's name may not be a joint's too (they would name two links alike)
  for (int i = 0; i < njoint; i++) {
    if (i != t->baseJoint && strcmp(UJOINT(u, i).name, ULINK(u, t->root).name) == 0) {
      return hsm_urdfError(u, hsE_MODEL, UJOINT(u, i).line, "joint '%s' has the name of the root "
                           "link; body links are named after joints and the root link, so they "
                           "must differ", UJOINT(u, i).name);
    }
  }
  // jointIds in file order of the movable joints
  int id = 0;
  for (int i = 0; i < njoint; i++) {
    hstUrdfJoint type = UJOINT(u, i).type;
    int movable = type == hsURDF_REVOLUTE || type == hsURDF_CONTINUOUS ||
                  type == hsURDF_PRISMATIC;
    t->jointId[i] = movable ? id++ : -1;
  }
  return 0;
}

//---------------------------------- links -----------------------------------------------------

static int pushLimit(hsmUrdfLoad *u, hsuVec *v, double x) {
  return hsu_vecPush(v, sizeof x, &x) ? 0 : hsm_urdfNomem(u);
}

// fill link l of the builder from URDF link `ul` (whose parent joint, if any, is its joint)
static int addLink(hsmUrdfLoad *u, const Tree *t, int ul, const int *linkOf) {
  const hsmUrdfLink *src = &ULINK(u, ul);
  int isRoot = ul == t->root;
  const hsmUrdfJoint *j = isRoot ? (t->baseJoint >= 0 ? &UJOINT(u, t->baseJoint) : NULL)
                                 : &UJOINT(u, src->parentJoint);
  hsmLinkSpec l;
  memset(&l, 0, sizeof l);
  hsLink *k = &l.link;
  k->parent = isRoot ? -1 : linkOf[j->parent];
  k->jointId = isRoot ? -1 : t->jointId[src->parentJoint];
  if (isRoot) {
    k->jointType = t->rootType;
  } else {
    static const hstJoint types[] = {hsJOINT_ROTATE, hsJOINT_ROTATE, hsJOINT_SLIDE,
                                     hsJOINT_FIXED, hsJOINT_FREE};
    k->jointType = types[j->type];
  }
  k->axis[0] = 1;
  if (j) {
    memcpy(k->axis, j->axis, sizeof k->axis);
    double R[9];
    hsu_splitTransform(R, k->translation, j->T);
    hsu_matToAxisAngle(k->rotation, R);
  } else {
    k->rotation[2] = 1;
  }
  k->gearRatio = k->torqueConst = k->encoderPulse = 1;
  k->AABBmaxDepth = k->AABBmaxNum = 1;
  l.separateCollision = 1;
  int line = isRoot ? src->line : j->line;
  l.where = (hsmSource){u->file, line, 0};
  l.jointIdAt = l.where;
  l.name = hsu_strdup(isRoot ? src->name : j->name);
  l.jointTypeName = hsu_strdup(hsm_jointTypeName(k->jointType));
  int rc = l.name && l.jointTypeName ? 0 : hsm_urdfNomem(u);
  // limits: ulimit, llimit, uvlimit, lvlimit, climit
  if (!rc && !isRoot && j->hasLimit) {
    if (j->type == hsURDF_REVOLUTE || j->type == hsURDF_PRISMATIC) {
      rc = pushLimit(u, &l.limits[0], j->hasUpper ? j->upper : 0) ||
           pushLimit(u, &l.limits[1], j->hasLower ? j->lower : 0);
    }
    if (!rc && j->hasVelocity && j->type != hsURDF_FIXED) {
      rc = pushLimit(u, &l.limits[2], j->velocity) || pushLimit(u, &l.limits[3], 0.0 - j->velocity);
    }
    if (!rc && j->hasEffort && j->type != hsURDF_FIXED) {
      rc = pushLimit(u, &l.limits[4], j->effort);
    }
  }
  if (rc || !hsu_vecPush(&u->b->links, sizeof l, &l)) {
    hsu_free(l.name);
    hsu_free(l.jointTypeName);
    for (int i = 0; i < 5; i++) {
      hsu_vecFree(&l.limits[i]);
    }
    return rc ? rc : hsm_urdfNomem(u);
  }
  int link = (int)u->b->links.n - 1;
  // the segment: the inertial, or nothing
  hsmSegmentSpec s;
  memset(&s, 0, sizeof s);
  s.seg.link = link;
  s.seg.mass = src->hasInertial ? src->mass : 0;
  memcpy(s.seg.inertia, src->inertia, sizeof s.seg.inertia);
  memcpy(s.seg.T, src->T, sizeof s.seg.T);
  s.where = (hsmSource){u->file, src->hasInertial ? src->inertialLine : src->line, 0};
  s.name = hsu_strdup(src->name);
  int segment = (int)u->b->segments.n;
  if (!s.name || !hsu_vecPush(&u->b->segments, sizeof s, &s)) {
    hsu_free(s.name);
    return hsm_urdfNomem(u);
  }
  if (!src->hasInertial && !(isRoot && t->worldRoot)) {
    hsm_urdfWarn(u, src->line, "link '%s' has no inertial: massless", src->name);
  }
  // geometry
  for (size_t i = 0; i < src->visuals.n; i++) {
    if (hsm_urdfAddGeom(u, (const hsmUrdfGeom *)src->visuals.data + i, link, segment, 1)) {
      return -1;
    }
  }
  for (size_t i = 0; i < src->collisions.n; i++) {
    if (hsm_urdfAddGeom(u, (const hsmUrdfGeom *)src->collisions.data + i, link, segment, 0)) {
      return -1;
    }
  }
  return 0;
}

// one info string, printf-style
static int addInfo(hsmUrdfLoad *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int addInfo(hsmUrdfLoad *u, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return hsm_addInfo(u->b, "%s", buf) < 0 ? hsm_urdfNomem(u) : 0;
}

static int buildBody(hsmUrdfLoad *u, const Tree *t) {
  int nlink = (int)u->doc.links.n, njoint = (int)u->doc.joints.n;
  u->b->name = hsu_strdup(u->doc.name);
  u->b->url = hsu_strdup(u->file);
  int *linkOf = hsu_malloc((size_t)nlink * sizeof(int));
  int rc = u->b->name && u->b->url && linkOf ? 0 : hsm_urdfNomem(u);
  for (int i = 0; i < t->norder && !rc; i++) {
    linkOf[t->order[i]] = i;
    rc = addLink(u, t, t->order[i], linkOf);
  }
  // Gazebo sensors (urdf_sensor.c), after every link has its body index
  if (!rc) {
    rc = hsm_urdfAddSensors(u, linkOf, t->baseJoint >= 0 ? UJOINT(u, t->baseJoint).parent : -1);
  }
  // dynamics and mimic as info strings
  for (int i = 0; i < njoint && !rc; i++) {
    const hsmUrdfJoint *j = &UJOINT(u, i);
    if (i == t->baseJoint) {
      continue;
    }
    if (j->hasDynamics) {
      rc = addInfo(u, "urdf dynamics %s %.17g %.17g", j->name, j->damping, j->friction);
    }
    if (!rc && j->hasMimic) {
      rc = addInfo(u, "urdf mimic %s %s %.17g %.17g", j->name, j->mimicJoint, j->multiplier,
                   j->offset);
    }
  }
  hsu_free(linkOf);
  return rc;
}

//---------------------------------- served values ---------------------------------------------

// every number the body serves for a link is finite: finite but huge inputs (an inertia entry
// of 1e308 turned by an rpy) can overflow while compiling, and are refused at their element
static int checkServed(hsmUrdfLoad *u, const Tree *t, const hsBody *body) {
  for (int i = 0; i < body->nlink && i < t->norder; i++) {
    const hsLink *l = &body->links[i];
    const hsmUrdfLink *src = &ULINK(u, t->order[i]);
    if (!isfinite(l->mass) || !hsu_allFinite(l->com, 3) || !hsu_allFinite(l->inertia, 9)) {
      return hsm_urdfError(u, hsE_MODEL, src->hasInertial ? src->inertialLine : src->line,
                           "link '%s': its mass properties overflow (a number near the limit of "
                           "double, 1.8e308)", src->name);
    }
    if (!hsu_allFinite(l->translation, 3) || !hsu_allFinite(l->R, 9)) {
      return hsm_urdfError(u, hsE_MODEL, src->line, "link '%s': its placement overflows",
                           src->name);
    }
  }
  for (int i = 0; i < body->nshape; i++) {
    const hsShape *s = &body->shapes[i];
    for (int k = 0; k < 3 * s->nvertex; k++) {
      if (!isfinite(s->vertices[k])) {
        return HS_ERR_AT(u->err, hsE_MODEL, u->file, 0, 0, "shape %d ('%s') has a vertex beyond "
                         "the range of float", i, s->url ? s->url : "");
      }
    }
  }
  return 0;
}

//---------------------------------- entry -----------------------------------------------------

// the absolute path of a plain path or file:// URL that names a regular file of at most
// maxBytes (0: the default limit); NULL with err filled, naming the path as given (a symbolic
// link to /dev/zero is reported under its own name)
static char *absolutePath(const char *path, size_t maxBytes, hsError *err) {
  char p[PATH_MAX];
  int rc = hsu_urlToPath(path, p, sizeof p);
  if (rc) {
    HS_ERR_AT(err, rc > 0 ? hsE_UNSUPPORTED : hsE_IO, path, 0, 0, "cannot read '%s': %s", path,
              rc > 0 ? "unsupported URL scheme (use a file:// URL or a path)" : "path too long");
    return NULL;
  }
  if (hsu_checkFile(p, maxBytes, err)) {
    return NULL;
  }
  char abs[PATH_MAX];
  if (!realpath(p, abs)) {
    int e = errno;
    HS_ERR_AT(err, hsE_IO, path, 0, 0, "cannot read '%s': %s", path, strerror(e));
    return NULL;
  }
  char *out = hsu_strdup(abs);
  if (!out) {
    HS_ERR(err, hsE_NOMEM, "out of memory");
  }
  return out;
}

hsBody *hsm_loadUrdf(const char *path, const hsmLoadOptions *opt, hsmWarning *warnings,
                     int maxWarnings, int *nwarnings, hsError *err) {
  if (nwarnings) {
    *nwarnings = 0;
  }
  if (!path) {
    HS_ERR(err, hsE_INVALID, "no model path");
    return NULL;
  }
  char *abs = absolutePath(path, opt ? opt->limits.maxFileBytes : 0, err);
  if (!abs) {
    return NULL;
  }
  hsmBuilder b;
  memset(&b, 0, sizeof b);
  hsmUrdfLoad u;
  memset(&u, 0, sizeof u);
  u.file = abs;
  u.err = err;
  u.warnings = warnings;
  u.maxWarnings = warnings ? maxWarnings : 0;
  u.b = &b;
  hsm_effectiveLoadOptions(&u.opt, opt);
  Tree t;
  memset(&t, 0, sizeof t);
  int rc = hsm_urdfRead(&u);
  if (!rc) {
    rc = buildTree(&u, &t);
  }
  if (!rc) {
    rc = buildBody(&u, &t);
  }
  hsBody *body = NULL;
  if (rc == 0) {
    // compile while u.file (named by error locations) is alive
    body = hsm_compile(&b, err);
    if (body && checkServed(&u, &t, body)) {
      hsm_freeBody(body);
      body = NULL;
    }
  } else {
    hsm_freeBuilder(&b);
  }
  hsu_free(t.order);
  hsu_free(t.jointId);
  hsm_urdfFreeShapeCache(&u);
  hsm_urdfFreeDoc(&u.doc);
  hsu_free(abs);
  if (nwarnings) {
    *nwarnings = u.nwarnings;
  }
  return body;
}
