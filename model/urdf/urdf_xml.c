// urdf_xml.c - read a URDF file with libxml2 into the plain records of urdf_private.h.
//
// The file is read into memory (hsu_readFile: a regular file within the size limit of the load
// options) and parsed by model_xml.c's private libxml2 parser context (no network, no entities,
// no DTD; the first error, with its line, becomes ours; a document libxml2 recovers from is
// taken). Then the direct children of
// <robot> are read: robot-level <material>s first (a visual may name one defined further down,
// as urdfdom allows), then <link>s and <joint>s in file order. Elements with a namespace prefix
// (xacro:, gazebo extensions ...) and elements URDF does not define for a body (<transmission>,
// <ros2_control> ...) are skipped; of <gazebo> blocks only the <sensor>s are read (see "Gazebo
// sensors" below). Every number is checked here: an attribute must
// hold exactly the count of finite numbers it needs, or the error names the element, the
// attribute, its text and the line. Lines are libxml2's (xmlGetLineNo): the line on which an
// element's start tag ends; attribute errors are reported there too, as libxml2 keeps no line
// per attribute.
//
// Materials. A name means one material across the file: its robot-level definition, else its
// first definition inside a <visual> (in file order). That is urdfdom's table (robot-level
// materials first; a link's visual material enters the table under its name unless the name is
// there already, so the first definition wins), with two differences kept deliberately, each
// a warning: a use before the definition (Choreonoid's SR1.urdf names materials in the right
// leg that the left leg defines) gets that definition, where urdfdom enters an empty material
// that makes the shape black and shadows the later definition; and a name defined nowhere
// gives the default appearance. A redefinition that differs from the first is ignored with a
// warning; an anonymous <material> uses its own colour or texture. A robot-level material
// without colour or texture (urdfdom accepts one) is a warning. Two robot-level materials of
// one name are an error, as in urdfdom.

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "../model_xml.h"
#include "urdf_private.h"

#define LINKS(u) ((hsmUrdfLink *)(u)->doc.links.data)
#define JOINTS(u) ((hsmUrdfJoint *)(u)->doc.joints.data)
#define MATERIALS(u) ((hsmUrdfMaterial *)(u)->doc.materials.data)

//---------------------------------- parsing ---------------------------------------------------

// parse the file (model_xml.h; a document libxml2 recovered from is taken, as before); NULL
// with u->err filled
static xmlDocPtr parseXml(hsmUrdfLoad *u) {
  // a regular file within the size limit (never a FIFO or /dev/zero)
  char *text = NULL;
  size_t len = 0;
  if (hsu_readFile(u->file, u->opt.limits.maxFileBytes, &text, &len, u->err)) {
    return NULL;
  }
  xmlDocPtr doc = hsm_parseXml(u->file, text, len, 0, u->err);
  hsu_free(text);
  return doc;
}

//---------------------------------- element helpers -------------------------------------------

static int lineOf(const xmlNode *n) {
  return hsm_xmlLine(n);
}

// 1 if n is an element called name without a namespace prefix
static int isElem(const xmlNode *n, const char *name) {
  return n && n->type == XML_ELEMENT_NODE && (!n->ns || !n->ns->prefix) &&
         strcmp((const char *)n->name, name) == 0;
}

// the first child element of n called name, or NULL
static const xmlNode *child(const xmlNode *n, const char *name) {
  for (const xmlNode *c = n ? n->children : NULL; c; c = c->next) {
    if (isElem(c, name)) {
      return c;
    }
  }
  return NULL;
}

// the first child element of n (any name), or NULL
static const xmlNode *firstElem(const xmlNode *n) {
  for (const xmlNode *c = n->children; c; c = c->next) {
    if (c->type == XML_ELEMENT_NODE) {
      return c;
    }
  }
  return NULL;
}

// an attribute's value (free with xmlFree), or NULL if absent
static xmlChar *attr(const xmlNode *n, const char *name) {
  return xmlGetNoNsProp(n, (const xmlChar *)name);
}

static int hasAttr(const xmlNode *n, const char *name) {
  return xmlHasNsProp(n, (const xmlChar *)name, NULL) != NULL;
}

// a copy (hsu_free) of a required, non-empty attribute; `what` names the owner in the message
static int requiredName(hsmUrdfLoad *u, const xmlNode *n, const char *name, const char *what,
                        char **out) {
  xmlChar *v = attr(n, name);
  if (!v || !v[0]) {
    xmlFree(v);
    return hsm_urdfError(u, hsE_MODEL, lineOf(n), "%s needs a non-empty '%s' attribute", what,
                         name);
  }
  *out = hsu_strdup((const char *)v);
  xmlFree(v);
  return *out ? 0 : hsm_urdfNomem(u);
}

// exactly `count` finite numbers from attribute `name` of n into out. An absent attribute
// leaves out as it is (the defaults), or is an error when required.
static int numbers(hsmUrdfLoad *u, const xmlNode *n, const char *name, int count, double *out,
                   int required) {
  xmlChar *v = attr(n, name);
  if (!v) {
    return required ? hsm_urdfError(u, hsE_MODEL, lineOf(n), "<%s> needs attribute '%s'",
                                    (const char *)n->name, name)
                    : 0;
  }
  double tmp[4];
  int rc = 0;
  if (hsm_parseNumbers((const char *)v, tmp, count) != count) {
    rc = hsm_urdfError(u, hsE_MODEL, lineOf(n), "<%s> %s=\"%.80s\": expected %d finite number%s",
                       (const char *)n->name, name, (const char *)v, count, count > 1 ? "s" : "");
  } else {
    memcpy(out, tmp, (size_t)count * sizeof(double));
  }
  xmlFree(v);
  return rc;
}

// one number that must be positive (dimensions of primitives)
// a shape dimension: positive, and within the range of float, in which shapes cross the wire
static int dimension(hsmUrdfLoad *u, const xmlNode *n, const char *name, double x) {
  if (!(x > 0)) {
    return hsm_urdfError(u, hsE_MODEL, lineOf(n), "<%s> %s=%g must be positive",
                         (const char *)n->name, name, x);
  }
  if (!(x <= FLT_MAX)) {
    return hsm_urdfError(u, hsE_MODEL, lineOf(n), "<%s> %s=%g is beyond the range of float "
                         "(3.4e38), in which shapes are served", (const char *)n->name, name, x);
  }
  return 0;
}

static int positive(hsmUrdfLoad *u, const xmlNode *n, const char *name, double *out) {
  if (numbers(u, n, name, 1, out, 1)) {
    return -1;
  }
  return dimension(u, n, name, *out);
}

// the transform of the first <origin> child of n (identity if there is none)
static int origin(hsmUrdfLoad *u, const xmlNode *n, double T[12]) {
  double xyz[3] = {0, 0, 0}, rpy[3] = {0, 0, 0}, R[9];
  const xmlNode *o = child(n, "origin");
  if (o && (numbers(u, o, "xyz", 3, xyz, 0) || numbers(u, o, "rpy", 3, rpy, 0))) {
    return -1;
  }
  hsm_urdfRpyToMat(R, rpy);
  hsu_makeTransform(T, R, xyz);
  return 0;
}

void hsm_urdfRpyToMat(double R[9], const double rpy[3]) {
  double cr = cos(rpy[0]), sr = sin(rpy[0]);
  double cp = cos(rpy[1]), sp = sin(rpy[1]);
  double cy = cos(rpy[2]), sy = sin(rpy[2]);
  // Rz(yaw) Ry(pitch) Rx(roll), row-major
  R[0] = cy * cp, R[1] = cy * sp * sr - sy * cr, R[2] = cy * sp * cr + sy * sr;
  R[3] = sy * cp, R[4] = sy * sp * sr + cy * cr, R[5] = sy * sp * cr - cy * sr;
  R[6] = -sp, R[7] = cp * sr, R[8] = cp * cr;
}

//---------------------------------- materials -------------------------------------------------

// the material table entry called name, or -1 (anonymous entries are never found)
static int findMaterial(hsmUrdfLoad *u, const char *name) {
  for (size_t i = 0; name[0] && i < u->doc.materials.n; i++) {
    if (strcmp(MATERIALS(u)[i].name, name) == 0) {
      return (int)i;
    }
  }
  return -1;
}

// read the colour and texture of a <material> element into m (name already set); *defined
// tells whether it has either. A colour component outside [0, 1] is clamped, with a warning
// (urdfdom drops such a colour with an error message and loads on).
static int materialBody(hsmUrdfLoad *u, const xmlNode *n, hsmUrdfMaterial *m, int *defined) {
  const xmlNode *color = child(n, "color");
  const xmlNode *texture = child(n, "texture");
  *defined = 0;
  if (color) {
    if (numbers(u, color, "rgba", 4, m->rgba, 1)) {
      return -1;
    }
    for (int k = 0; k < 4; k++) {
      if (m->rgba[k] < 0 || m->rgba[k] > 1) {
        hsm_urdfWarn(u, lineOf(color), "<color> rgba component %g is outside [0, 1]: clamped",
                     m->rgba[k]);
        m->rgba[k] = m->rgba[k] < 0 ? 0 : 1;
      }
    }
    m->hasColor = 1;
    *defined = 1;
  }
  if (texture) {
    xmlChar *file = attr(texture, "filename");
    if (file && file[0]) {
      m->texture = hsu_strdup((const char *)file);
      if (!m->texture) {
        xmlFree(file);
        return hsm_urdfNomem(u);
      }
      *defined = 1;
    }
    xmlFree(file);
  }
  return 0;
}

// append a material entry (taking over name and texture); its index or -1
static int pushMaterial(hsmUrdfLoad *u, hsmUrdfMaterial *m) {
  m->material = -1;
  m->texIndex = -1;
  int idx = (int)u->doc.materials.n;
  if (!hsu_vecPush(&u->doc.materials, sizeof *m, m)) {
    hsu_free(m->name);
    hsu_free(m->texture);
    return hsm_urdfNomem(u), -1;
  }
  return idx;
}

// 1 if two definitions give the same colour and texture
static int sameMaterial(const hsmUrdfMaterial *a, const hsmUrdfMaterial *b) {
  if (a->hasColor != b->hasColor || (!a->texture) != (!b->texture)) {
    return 0;
  }
  if (a->hasColor && memcmp(a->rgba, b->rgba, sizeof a->rgba) != 0) {
    return 0;
  }
  return !a->texture || strcmp(a->texture, b->texture) == 0;
}

// a robot-level <material name="...">
static int robotMaterial(hsmUrdfLoad *u, const xmlNode *n) {
  hsmUrdfMaterial m;
  memset(&m, 0, sizeof m);
  m.line = lineOf(n);
  m.robotLevel = 1;
  if (requiredName(u, n, "name", "a robot-level <material>", &m.name)) {
    return -1;
  }
  int defined = 0;
  int rc = materialBody(u, n, &m, &defined);
  if (!rc && findMaterial(u, m.name) >= 0) {
    rc = hsm_urdfError(u, hsE_MODEL, m.line, "material '%s' is defined twice (first on line %d)",
                       m.name, MATERIALS(u)[findMaterial(u, m.name)].line);
  } else if (!rc && !defined) {
    hsm_urdfWarn(u, m.line, "material '%s' has neither a <color> nor a <texture filename>: "
                 "shapes using it get the default appearance", m.name);
  }
  if (rc) {
    hsu_free(m.name);
    hsu_free(m.texture);
    return rc;
  }
  return pushMaterial(u, &m) < 0 ? -1 : 0;
}

// a named <material> with a colour or texture inside a link's <visual>: the name's definition
// unless an earlier one exists (robot-level, or inline further up); a different redefinition
// is ignored with a warning
static int inlineDefinition(hsmUrdfLoad *u, const xmlNode *n) {
  xmlChar *name = attr(n, "name");
  if (!name || !name[0]) {
    xmlFree(name);
    return 0;
  }
  hsmUrdfMaterial m;
  memset(&m, 0, sizeof m);
  m.line = lineOf(n);
  m.name = hsu_strdup((const char *)name);
  xmlFree(name);
  if (!m.name) {
    return hsm_urdfNomem(u);
  }
  int defined = 0;
  int rc = materialBody(u, n, &m, &defined);
  int found = rc || !defined ? -1 : findMaterial(u, m.name);
  if (!rc && defined && found >= 0) {
    const hsmUrdfMaterial *first = &MATERIALS(u)[found];
    if (!sameMaterial(first, &m)) {
      hsm_urdfWarn(u, m.line, "material '%s' is defined again, differently (first %son line %d)"
                   ": the first definition is used", m.name,
                   first->robotLevel ? "at robot level " : "", first->line);
    }
  }
  if (rc || !defined || found >= 0) {
    hsu_free(m.name);
    hsu_free(m.texture);
    return rc;
  }
  return pushMaterial(u, &m) < 0 ? -1 : 0;
}

// the <material> of a visual: an index into the table, or -1 for the default appearance (see
// the file comment)
static int visualMaterial(hsmUrdfLoad *u, const xmlNode *n, int *index) {
  *index = -1;
  int line = lineOf(n);
  xmlChar *name = attr(n, "name");
  if (name && name[0]) {
    int found = findMaterial(u, (const char *)name);
    if (found < 0) {
      hsm_urdfWarn(u, line, "material '%s' is defined nowhere in the file: the default "
                   "appearance is used", (const char *)name);
    } else if (MATERIALS(u)[found].line > line && !MATERIALS(u)[found].robotLevel &&
               !child(n, "color") && !child(n, "texture")) {
      hsm_urdfWarn(u, line, "material '%s' is used before its definition on line %d (urdfdom "
                   "would give this visual no colour)", (const char *)name,
                   MATERIALS(u)[found].line);
    }
    xmlFree(name);
    *index = found;
    return 0;
  }
  xmlFree(name);
  // anonymous: its own colour or texture, if any
  hsmUrdfMaterial m;
  memset(&m, 0, sizeof m);
  m.line = line;
  m.name = hsu_strdup("");
  if (!m.name) {
    return hsm_urdfNomem(u);
  }
  int defined = 0;
  if (materialBody(u, n, &m, &defined) || !defined) {
    hsu_free(m.name);
    hsu_free(m.texture);
    if (!defined && !(u->err && u->err->code)) {
      hsm_urdfWarn(u, line, "<material> has no name, <color> or <texture filename>: the default "
                   "appearance is used");
      return 0;
    }
    return -1;
  }
  *index = pushMaterial(u, &m);
  return *index < 0 ? -1 : 0;
}

//---------------------------------- links -----------------------------------------------------

// <inertial>: origin, mass, inertia. A negative mass is an error; what real robots carry on
// frame and sensor links (mass 0, an all-zero inertia) and singular or indefinite tensors load
// as written, with a warning (the dynamics bounds what it cannot simulate)
static int inertial(hsmUrdfLoad *u, const xmlNode *n, hsmUrdfLink *l) {
  l->hasInertial = 1;
  l->inertialLine = lineOf(n);
  if (origin(u, n, l->T)) {
    return -1;
  }
  const xmlNode *mass = child(n, "mass");
  if (!mass) {
    return hsm_urdfError(u, hsE_MODEL, lineOf(n), "link '%s': <inertial> has no <mass>",
                         l->name);
  }
  if (numbers(u, mass, "value", 1, &l->mass, 1)) {
    return -1;
  }
  if (l->mass < 0) {
    return hsm_urdfError(u, hsE_MODEL, lineOf(mass), "link '%s': mass %g is negative", l->name,
                         l->mass);
  }
  l->mass += 0.0;  // -0 reads as 0
  const xmlNode *in = child(n, "inertia");
  if (!in) {
    return hsm_urdfError(u, hsE_MODEL, lineOf(n), "link '%s': <inertial> has no <inertia>",
                         l->name);
  }
  static const char *const names[6] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
  double v[6];
  for (int k = 0; k < 6; k++) {
    if (numbers(u, in, names[k], 1, &v[k], 1)) {
      return -1;
    }
  }
  double I[9] = {v[0], v[1], v[2], v[1], v[3], v[4], v[2], v[4], v[5]};
  memcpy(l->inertia, I, sizeof I);
  if (l->mass == 0) {
    hsm_urdfWarn(u, lineOf(mass), "link '%s' has mass 0 (a frame or sensor link): loaded "
                 "massless", l->name);
    return 0;
  }
  // positive definite: positive leading principal minors
  double d2 = I[0] * I[4] - I[1] * I[1];
  double d3 = I[0] * (I[4] * I[8] - I[5] * I[5]) - I[1] * (I[1] * I[8] - I[5] * I[2]) +
              I[2] * (I[1] * I[5] - I[4] * I[2]);
  if (!(I[0] > 0 && d2 > 0 && d3 > 0)) {
    hsm_urdfWarn(u, lineOf(in), "link '%s': inertia (ixx %g ixy %g ixz %g iyy %g iyz %g izz %g) "
                 "is not positive definite: loaded as written", l->name, v[0], v[1], v[2], v[3],
                 v[4], v[5]);
  }
  return 0;
}

// the <geometry> of a visual or collision
static int geometry(hsmUrdfLoad *u, const xmlNode *n, const char *what, const char *linkName,
                    hsmUrdfGeom *g) {
  const xmlNode *geom = child(n, "geometry");
  if (!geom) {
    return hsm_urdfError(u, hsE_MODEL, lineOf(n), "link '%s': <%s> has no <geometry>", linkName,
                         what);
  }
  const xmlNode *s = firstElem(geom);
  if (!s) {
    return hsm_urdfError(u, hsE_MODEL, lineOf(geom), "link '%s': <geometry> is empty", linkName);
  }
  g->geomLine = lineOf(s);
  if (isElem(s, "box")) {
    g->type = hsURDF_BOX;
    if (numbers(u, s, "size", 3, g->size, 1)) {
      return -1;
    }
    for (int k = 0; k < 3; k++) {
      if (!(g->size[k] > 0)) {
        return hsm_urdfError(u, hsE_MODEL, g->geomLine, "<box> size components must be "
                             "positive, got %g", g->size[k]);
      }
      if (dimension(u, s, "size", g->size[k])) {
        return -1;
      }
    }
    return 0;
  }
  if (isElem(s, "sphere")) {
    g->type = hsURDF_SPHERE;
    return positive(u, s, "radius", &g->size[0]);
  }
  if (isElem(s, "cylinder")) {
    g->type = hsURDF_CYLINDER;
    return positive(u, s, "radius", &g->size[0]) || positive(u, s, "length", &g->size[1]) ? -1
                                                                                           : 0;
  }
  if (isElem(s, "mesh")) {
    g->type = hsURDF_MESH;
    g->scale[0] = g->scale[1] = g->scale[2] = 1;
    return requiredName(u, s, "filename", "<mesh>", &g->filename) ||
                   numbers(u, s, "scale", 3, g->scale, 0)
               ? -1
               : 0;
  }
  return hsm_urdfError(u, hsE_MODEL, g->geomLine, "link '%s': unsupported geometry <%s> "
                       "(expected box, sphere, cylinder or mesh)", linkName,
                       (const char *)s->name);
}

// a <visual> (with its material) or <collision>, appended to list
static int geomElement(hsmUrdfLoad *u, const xmlNode *n, int visual, hsmUrdfLink *l) {
  hsmUrdfGeom g;
  memset(&g, 0, sizeof g);
  g.line = lineOf(n);
  g.material = -1;
  const char *what = visual ? "visual" : "collision";
  int rc = origin(u, n, g.T) || geometry(u, n, what, l->name, &g) ? -1 : 0;
  const xmlNode *mat = visual ? child(n, "material") : NULL;
  if (!rc && mat) {
    rc = visualMaterial(u, mat, &g.material);
  }
  hsuVec *list = visual ? &l->visuals : &l->collisions;
  if (!rc && !hsu_vecPush(list, sizeof g, &g)) {
    rc = hsm_urdfNomem(u);
  }
  if (rc) {
    hsu_free(g.filename);
  }
  return rc;
}

static int readLink(hsmUrdfLoad *u, const xmlNode *n) {
  hsmUrdfLink l;
  memset(&l, 0, sizeof l);
  l.line = lineOf(n);
  l.parentJoint = -1;
  l.firstChild = -1;
  double I[9];
  hsu_setIdentity(I);
  double zero[3] = {0, 0, 0};
  hsu_makeTransform(l.T, I, zero);
  // push first, so whatever is filled in below is freed with the document
  if (requiredName(u, n, "name", "<link>", &l.name)) {
    return -1;
  }
  hsmUrdfLink *p = hsu_vecPush(&u->doc.links, sizeof l, &l);
  if (!p) {
    hsu_free(l.name);
    return hsm_urdfNomem(u);
  }
  const xmlNode *in = child(n, "inertial");
  if (in && inertial(u, in, p)) {
    return -1;
  }
  for (const xmlNode *c = n->children; c; c = c->next) {
    if ((isElem(c, "visual") && geomElement(u, c, 1, p)) ||
        (isElem(c, "collision") && geomElement(u, c, 0, p))) {
      return -1;
    }
  }
  return 0;
}

//---------------------------------- joints ----------------------------------------------------

static int jointType(hsmUrdfLoad *u, const xmlNode *n, hsmUrdfJoint *j) {
  static const char *const names[] = {"revolute", "continuous", "prismatic", "fixed", "floating"};
  xmlChar *type = attr(n, "type");
  int rc = 0;
  if (!type || !type[0]) {
    rc = hsm_urdfError(u, hsE_MODEL, j->line, "joint '%s' needs a non-empty 'type' attribute",
                       j->name);
  } else if (strcmp((const char *)type, "planar") == 0) {
    rc = hsm_urdfError(u, hsE_MODEL, j->line, "joint '%s': planar joints are not supported",
                       j->name);
  } else {
    int k = 0;
    while (k < 5 && strcmp((const char *)type, names[k]) != 0) {
      k++;
    }
    if (k == 5) {
      rc = hsm_urdfError(u, hsE_MODEL, j->line, "joint '%s': unknown type '%.80s' (expected "
                         "revolute, continuous, prismatic, fixed or floating)", j->name,
                         (const char *)type);
    }
    j->type = (hstUrdfJoint)k;
  }
  xmlFree(type);
  return rc;
}

// <parent link> or <child link>
static int jointEnd(hsmUrdfLoad *u, const xmlNode *n, const char *which, hsmUrdfJoint *j,
                    char **name, int *line) {
  const xmlNode *e = child(n, which);
  if (!e) {
    return hsm_urdfError(u, hsE_MODEL, j->line, "joint '%s' has no <%s>", j->name, which);
  }
  *line = lineOf(e);
  char what[300];
  snprintf(what, sizeof what, "<%s> of joint '%s'", which, j->name);
  return requiredName(u, e, "link", what, name);
}

static int isMovable(hstUrdfJoint type) {
  return type == hsURDF_REVOLUTE || type == hsURDF_CONTINUOUS || type == hsURDF_PRISMATIC;
}

// <axis>, <limit>, <dynamics>, <mimic> of a movable joint
static int jointMotion(hsmUrdfLoad *u, const xmlNode *n, hsmUrdfJoint *j) {
  const xmlNode *axis = child(n, "axis");
  if (axis && numbers(u, axis, "xyz", 3, j->axis, 0)) {
    return -1;
  }
  double len = hsu_norm(j->axis);
  if (!(len > 0)) {
    return hsm_urdfError(u, hsE_MODEL, axis ? lineOf(axis) : j->line,
                         "joint '%s': axis has zero length",
                         j->name);
  }
  for (int k = 0; k < 3; k++) {
    j->axis[k] /= len;
  }
  const xmlNode *limit = child(n, "limit");
  if (limit) {
    j->hasLimit = 1;
    j->limitLine = lineOf(limit);
    j->hasLower = hasAttr(limit, "lower"), j->hasUpper = hasAttr(limit, "upper");
    j->hasVelocity = hasAttr(limit, "velocity"), j->hasEffort = hasAttr(limit, "effort");
    if (numbers(u, limit, "lower", 1, &j->lower, 0) ||
        numbers(u, limit, "upper", 1, &j->upper, 0) ||
        numbers(u, limit, "velocity", 1, &j->velocity, 0) ||
        numbers(u, limit, "effort", 1, &j->effort, 0)) {
      return -1;
    }
    if (j->velocity < 0 || j->effort < 0) {
      return hsm_urdfError(u, hsE_MODEL, j->limitLine, "joint '%s': limit %s %g is negative",
                           j->name, j->velocity < 0 ? "velocity" : "effort",
                           j->velocity < 0 ? j->velocity : j->effort);
    }
    if (j->type != hsURDF_CONTINUOUS && j->lower > j->upper) {
      return hsm_urdfError(u, hsE_MODEL, j->limitLine, "joint '%s': limit lower %g is above "
                           "upper %g", j->name, j->lower, j->upper);
    }
  } else if (j->type != hsURDF_CONTINUOUS) {
    hsm_urdfWarn(u, j->line, "joint '%s' (%s) has no <limit>: no position, velocity or effort "
                 "limits", j->name, j->type == hsURDF_REVOLUTE ? "revolute" : "prismatic");
  }
  const xmlNode *dyn = child(n, "dynamics");
  if (dyn) {
    j->hasDynamics = 1;
    if (numbers(u, dyn, "damping", 1, &j->damping, 0) ||
        numbers(u, dyn, "friction", 1, &j->friction, 0)) {
      return -1;
    }
  }
  const xmlNode *mimic = child(n, "mimic");
  if (mimic) {
    j->hasMimic = 1;
    j->mimicLine = lineOf(mimic);
    char what[300];
    snprintf(what, sizeof what, "<mimic> of joint '%s'", j->name);
    if (requiredName(u, mimic, "joint", what, &j->mimicJoint) ||
        numbers(u, mimic, "multiplier", 1, &j->multiplier, 0) ||
        numbers(u, mimic, "offset", 1, &j->offset, 0)) {
      return -1;
    }
  }
  return 0;
}

static int readJoint(hsmUrdfLoad *u, const xmlNode *n) {
  hsmUrdfJoint j;
  memset(&j, 0, sizeof j);
  j.line = lineOf(n);
  j.axis[0] = 1;
  j.multiplier = 1;
  j.parent = j.child = j.nextSibling = -1;
  if (requiredName(u, n, "name", "<joint>", &j.name)) {
    return -1;
  }
  hsmUrdfJoint *p = hsu_vecPush(&u->doc.joints, sizeof j, &j);
  if (!p) {
    hsu_free(j.name);
    return hsm_urdfNomem(u);
  }
  if (jointType(u, n, p) || origin(u, n, p->T) ||
      jointEnd(u, n, "parent", p, &p->parentName, &p->parentLine) ||
      jointEnd(u, n, "child", p, &p->childName, &p->childLine)) {
    return -1;
  }
  // fixed and floating joints ignore axis, limits, dynamics and mimic, as urdfdom does
  return isMovable(p->type) ? jointMotion(u, n, p) : 0;
}

//---------------------------------- Gazebo sensors --------------------------------------------
// <gazebo reference="link or joint"><sensor name=... type=...> blocks, Gazebo's (SDF 1.x) URDF
// extension, read after the links and joints (so a reference can be checked wherever the block
// stands). Values sit in element text; an absent element keeps Gazebo's default. A sensor whose
// values cannot work (a number that does not parse, a field of view outside (0, pi), no
// samples ...) is a warning and is skipped: the robot loads without it. urdf_sensor.c maps the
// records onto OpenHRP sensors and their frames.

// a sensor's name for messages
#define SNAME(s) ((s)->name ? (s)->name : "")

// the trimmed text of element n into buf ("" if none)
static void elemText(const xmlNode *n, char *buf, size_t size) {
  buf[0] = 0;
  xmlChar *t = n ? xmlNodeGetContent((xmlNodePtr)n) : NULL;
  if (!t) {
    return;
  }
  const char *a = (const char *)t;
  while (isspace((unsigned char)*a)) {
    a++;
  }
  snprintf(buf, size, "%s", a);
  size_t len = strlen(buf);
  while (len > 0 && isspace((unsigned char)buf[len - 1])) {
    buf[--len] = 0;
  }
  xmlFree(t);
}

// the text of element n as exactly `count` finite numbers into out; 1 with a warning (the
// sensor is then unusable) when it is not
static int textNumbers(hsmUrdfLoad *u, const xmlNode *n, int count, double *out,
                       hsmUrdfSensor *s) {
  char buf[256];
  elemText(n, buf, sizeof buf);
  double tmp[6];
  if (hsm_parseNumbers(buf, tmp, count) != count) {
    hsm_urdfWarn(u, lineOf(n), "sensor '%s': <%s>%.60s</%s> is not %d finite number%s: the "
                 "sensor is skipped", SNAME(s), (const char *)n->name, buf,
                 (const char *)n->name, count, count > 1 ? "s" : "");
    s->usable = 0;
    return 1;
  }
  memcpy(out, tmp, (size_t)count * sizeof(double));
  return 0;
}

// the number in child `name` of n into *out (kept when the child is absent); 1 if malformed
static int childNumber(hsmUrdfLoad *u, const xmlNode *n, const char *name, double *out,
                       hsmUrdfSensor *s) {
  const xmlNode *c = child(n, name);
  return c ? textNumbers(u, c, 1, out, s) : 0;
}

// a positive whole number of child `name` of n (absent: *out kept); 1 if it is not one
static int childCount(hsmUrdfLoad *u, const xmlNode *n, const char *name, int *out,
                      hsmUrdfSensor *s) {
  const xmlNode *c = child(n, name);
  double x = *out;
  if (!c || textNumbers(u, c, 1, &x, s)) {
    return c ? 1 : 0;
  }
  if (!(x >= 1 && x <= 1e6 && x == floor(x))) {
    hsm_urdfWarn(u, lineOf(c), "sensor '%s': <%s> %g must be a whole number from 1 to "
                 "1000000: the sensor is skipped", SNAME(s), name, x);
    s->usable = 0;
    return 1;
  }
  *out = (int)x;
  return 0;
}

// a <pose>x y z roll pitch yaw</pose> child of n composed onto T (T = T * pose)
static void childPose(hsmUrdfLoad *u, const xmlNode *n, double T[12], hsmUrdfSensor *s) {
  const xmlNode *p = child(n, "pose");
  double v[6];
  if (!p || textNumbers(u, p, 6, v, s)) {
    return;
  }
  if (hasAttr(p, "relative_to") || hasAttr(p, "frame")) {
    hsm_urdfWarn(u, lineOf(p), "sensor '%s': <pose> relative to another frame: read relative "
                 "to the sensor's link", SNAME(s));
  }
  double R[9], local[12], out[12];
  hsm_urdfRpyToMat(R, v + 3);
  hsu_makeTransform(local, R, v);
  hsu_mulTransform(out, T, local);
  memcpy(T, out, sizeof out);
}

// a Gazebo <noise> element: its type (attribute, or <type> child as in older Gazebo) and, for
// gaussian noise, mean + bias_mean into *mean and stddev into *std. 1 if it adds noise.
static int readNoise(hsmUrdfLoad *u, const xmlNode *n, double *mean, double *std,
                     hsmUrdfSensor *s) {
  char type[64] = "";
  xmlChar *a = attr(n, "type");
  if (a) {
    snprintf(type, sizeof type, "%s", (const char *)a);
    xmlFree(a);
  } else {
    elemText(child(n, "type"), type, sizeof type);
  }
  if (type[0] == 0 || strcmp(type, "none") == 0) {
    return 0;
  }
  if (strcmp(type, "gaussian") != 0 && strcmp(type, "gaussian_quantized") != 0) {
    hsm_urdfWarn(u, lineOf(n), "sensor '%s': noise type '%.40s' is not supported (gaussian "
                 "is): no noise", SNAME(s), type);
    return 0;
  }
  double m = 0, sd = 0, bm = 0;
  if (childNumber(u, n, "mean", &m, s) || childNumber(u, n, "stddev", &sd, s) ||
      childNumber(u, n, "bias_mean", &bm, s)) {
    return 0;
  }
  if (sd < 0) {
    hsm_urdfWarn(u, lineOf(n), "sensor '%s': noise stddev %g is negative: its magnitude is "
                 "used", SNAME(s), sd);
    sd = -sd;
  }
  *mean = m + bm;
  *std = sd;
  return 1;
}

// per-axis noise of SDF 1.5+ (<angular_velocity><x><noise>...) into components k0..k0+2
static void axisNoise(hsmUrdfLoad *u, const xmlNode *n, int k0, hsmUrdfSensor *s) {
  static const char *const axes[3] = {"x", "y", "z"};
  for (int k = 0; k < 3 && n; k++) {
    const xmlNode *noise = child(child(n, axes[k]), "noise");
    if (noise && readNoise(u, noise, &s->noiseMean[k0 + k], &s->noiseStd[k0 + k], s)) {
      s->hasNoise |= k0 ? 2 : 1;
    }
  }
}

// <camera>: field of view, image, clip, its own pose; image noise is not simulated
static void readCamera(hsmUrdfLoad *u, const xmlNode *n, hsmUrdfSensor *s) {
  const xmlNode *cam = child(n, "camera");
  if (!cam) {
    hsm_urdfWarn(u, s->line, "sensor '%s' has no <camera>: Gazebo's defaults are used",
                 SNAME(s));
    return;
  }
  childPose(u, cam, s->T, s);
  childNumber(u, cam, "horizontal_fov", &s->fov, s);
  const xmlNode *image = child(cam, "image");
  if (image) {
    childCount(u, image, "width", &s->width, s);
    childCount(u, image, "height", &s->height, s);
    char format[64];
    elemText(child(image, "format"), format, sizeof format);
    s->mono = strcmp(format, "L8") == 0 || strcmp(format, "L16") == 0 ||
              strcmp(format, "L_INT8") == 0 || strcmp(format, "L_INT16") == 0;
  }
  const xmlNode *clip = child(cam, "clip");
  if (clip) {
    childNumber(u, clip, "near", &s->nearClip, s);
    childNumber(u, clip, "far", &s->farClip, s);
  }
  if (child(cam, "noise")) {
    hsm_urdfWarn(u, lineOf(child(cam, "noise")), "sensor '%s': image noise is not simulated: "
                 "ignored", SNAME(s));
  }
  if (!s->usable) {
    return;
  }
  if (!(s->fov > 0 && s->fov < M_PI)) {
    hsm_urdfWarn(u, s->line, "sensor '%s': horizontal_fov %g is outside (0, pi): the sensor is "
                 "skipped", SNAME(s), s->fov);
    s->usable = 0;
  } else if (s->width > 8192 || s->height > 8192) {
    hsm_urdfWarn(u, s->line, "sensor '%s': image %d x %d is larger than 8192 pixels a side: the "
                 "sensor is skipped", SNAME(s), s->width, s->height);
    s->usable = 0;
  } else if (!(s->nearClip > 0 && s->farClip > s->nearClip)) {
    hsm_urdfWarn(u, s->line, "sensor '%s': clip near %g, far %g (need 0 < near < far): the "
                 "sensor is skipped", SNAME(s), s->nearClip, s->farClip);
    s->usable = 0;
  }
}

// <ray> (or <lidar>): the horizontal scan, the row of a vertical block, the range, noise
static void readRay(hsmUrdfLoad *u, const xmlNode *n, hsmUrdfSensor *s) {
  const xmlNode *ray = child(n, "ray");
  ray = ray ? ray : child(n, "lidar");
  const xmlNode *scan = child(ray, "scan");
  const xmlNode *horiz = child(scan, "horizontal");
  if (!horiz) {
    hsm_urdfWarn(u, s->line, "sensor '%s' has no <%s><scan><horizontal>: the sensor is skipped",
                 SNAME(s), ray ? (const char *)ray->name : "ray");
    s->usable = 0;
    return;
  }
  double resolution = 1;
  childCount(u, horiz, "samples", &s->samples, s);
  childNumber(u, horiz, "resolution", &resolution, s);
  childNumber(u, horiz, "min_angle", &s->minAngle, s);
  childNumber(u, horiz, "max_angle", &s->maxAngle, s);
  if (resolution != 1) {
    hsm_urdfWarn(u, lineOf(horiz), "sensor '%s': horizontal resolution %g is ignored: one "
                 "reading per sample", SNAME(s), resolution);
  }
  const xmlNode *vert = child(scan, "vertical");
  if (vert) {
    int vs = 1;
    double vmin = 0, vmax = 0;
    childCount(u, vert, "samples", &vs, s);
    childNumber(u, vert, "min_angle", &vmin, s);
    childNumber(u, vert, "max_angle", &vmax, s);
    if (vs > 1) {
      s->pitch = (vmin + vmax) / 2;
      hsm_urdfWarn(u, lineOf(vert), "sensor '%s': %d vertical samples: range sensors scan one "
                   "row; only the middle one (elevation %g rad) is used", SNAME(s), vs,
                   s->pitch);
    }
  }
  const xmlNode *range = child(ray, "range");
  if (!range || !child(range, "max")) {
    hsm_urdfWarn(u, range ? lineOf(range) : s->line, "sensor '%s' has no <range><max>: the "
                 "sensor is skipped", SNAME(s));
    s->usable = 0;
  } else {
    childNumber(u, range, "max", &s->rangeMax, s);
  }
  const xmlNode *noise = child(ray, "noise");
  noise = noise ? noise : child(n, "noise");
  if (noise && readNoise(u, noise, &s->noiseMean[0], &s->noiseStd[0], s)) {
    s->hasNoise = 1;
  }
  if (!s->usable) {
    return;
  }
  if (!(s->maxAngle >= s->minAngle)) {
    hsm_urdfWarn(u, lineOf(horiz), "sensor '%s': max_angle %g is below min_angle %g: the sensor "
                 "is skipped", SNAME(s), s->maxAngle, s->minAngle);
    s->usable = 0;
  } else if (s->samples > 1 && s->maxAngle == s->minAngle) {
    hsm_urdfWarn(u, lineOf(horiz), "sensor '%s': %d samples over no angle (min_angle = "
                 "max_angle): the sensor is skipped", SNAME(s), s->samples);
    s->usable = 0;
  } else if (!(s->rangeMax > 0)) {
    hsm_urdfWarn(u, lineOf(range), "sensor '%s': range max %g is not positive: the sensor is "
                 "skipped", SNAME(s), s->rangeMax);
    s->usable = 0;
  }
}

// <imu>: noise per axis (SDF 1.5+) or the older <noise><rate>/<accel> block
static void readImu(hsmUrdfLoad *u, const xmlNode *n, hsmUrdfSensor *s) {
  const xmlNode *imu = child(n, "imu");
  axisNoise(u, child(imu, "angular_velocity"), 0, s);
  axisNoise(u, child(imu, "linear_acceleration"), 3, s);
  // the older block, one noise for the three axes of each
  const xmlNode *old = child(imu, "noise");
  if (old) {
    char type[64];
    elemText(child(old, "type"), type, sizeof type);
    const xmlNode *parts[2] = {child(old, "rate"), child(old, "accel")};
    for (int p = 0; p < 2; p++) {
      double mean = 0, std = 0;
      if (!parts[p] || strcmp(type, "gaussian") != 0) {
        continue;
      }
      if (childNumber(u, parts[p], "mean", &mean, s) ||
          childNumber(u, parts[p], "stddev", &std, s)) {
        continue;
      }
      double bias = 0;
      childNumber(u, parts[p], "bias_mean", &bias, s);
      for (int k = 0; k < 3; k++) {
        s->noiseMean[3 * p + k] = mean + bias;
        s->noiseStd[3 * p + k] = fabs(std);
      }
      s->hasNoise |= 1 << p;
    }
  }
}

// <force_torque>: frame, measure direction and per-axis noise (SDF 1.7+)
static void readForceTorque(hsmUrdfLoad *u, const xmlNode *n, hsmUrdfSensor *s) {
  const xmlNode *ft = child(n, "force_torque");
  char text[64];
  elemText(child(ft, "frame"), text, sizeof text);
  if (strcmp(text, "parent") == 0) {
    s->ftFrame = 1;
  } else if (strcmp(text, "sensor") == 0) {
    s->ftFrame = 2;
  } else if (text[0] && strcmp(text, "child") != 0) {
    hsm_urdfWarn(u, lineOf(child(ft, "frame")), "sensor '%s': unknown <frame> '%.40s' (child, "
                 "parent or sensor): child is used", SNAME(s), text);
  }
  elemText(child(ft, "measure_direction"), text, sizeof text);
  if (strcmp(text, "parent_to_child") == 0) {
    s->parentToChild = 1;
    hsm_urdfWarn(u, lineOf(child(ft, "measure_direction")), "sensor '%s': measure_direction "
                 "parent_to_child is not supported: the sensor reads child_to_parent (the "
                 "wrench the child exerts on its parent); negate its readings", SNAME(s));
  } else if (text[0] && strcmp(text, "child_to_parent") != 0) {
    hsm_urdfWarn(u, lineOf(child(ft, "measure_direction")), "sensor '%s': unknown "
                 "<measure_direction> '%.40s': child_to_parent is used", SNAME(s), text);
  }
  axisNoise(u, child(ft, "force"), 0, s);
  axisNoise(u, child(ft, "torque"), 3, s);
}

// Gazebo's sensor types and what each becomes (urdf_private.h)
static const struct {
  const char *name;
  hstUrdfSensor type;
} kSensorTypes[] = {{"camera", hsURDF_CAMERA},  {"depth", hsURDF_DEPTH},
                    {"depth_camera", hsURDF_DEPTH}, {"rgbd_camera", hsURDF_DEPTH},
                    {"ray", hsURDF_RAY},         {"gpu_ray", hsURDF_RAY},
                    {"lidar", hsURDF_RAY},       {"gpu_lidar", hsURDF_RAY},
                    {"imu", hsURDF_IMU},         {"force_torque", hsURDF_FT}};

// one <sensor> of a <gazebo reference=...> block
static int readSensor(hsmUrdfLoad *u, const xmlNode *n, const char *reference) {
  hsmUrdfSensor s;
  memset(&s, 0, sizeof s);
  s.line = lineOf(n);
  s.usable = 1;
  s.fov = 1.047, s.width = 320, s.height = 240, s.nearClip = 0.1, s.farClip = 100;
  s.samples = 640;
  double I[9], zero[3] = {0, 0, 0};
  hsu_setIdentity(I);
  hsu_makeTransform(s.T, I, zero);
  xmlChar *type = attr(n, "type");
  xmlChar *name = attr(n, "name");
  char typeName[64];
  snprintf(typeName, sizeof typeName, "%s", type ? (const char *)type : "");
  xmlFree(type);
  // the name, or one made from the reference and the type
  if (name && name[0]) {
    s.name = hsu_strdup((const char *)name);
  } else {
    char made[300];
    snprintf(made, sizeof made, "%s_%s", reference, typeName);
    s.name = hsu_strdup(made);
    if (s.name) {
      hsm_urdfWarn(u, s.line, "a <sensor> without a name: named '%s'", s.name);
    }
  }
  xmlFree(name);
  s.reference = hsu_strdup(reference);
  if (!s.name || !s.reference) {
    hsu_free(s.name);
    hsu_free(s.reference);
    return hsm_urdfNomem(u);
  }
  size_t k = 0, ntype = sizeof kSensorTypes / sizeof kSensorTypes[0];
  while (k < ntype && strcmp(typeName, kSensorTypes[k].name) != 0) {
    k++;
  }
  if (k == ntype) {
    hsm_urdfWarn(u, s.line, "sensor '%s': type '%.40s' is not supported (camera, depth, ray, "
                 "gpu_ray, imu and force_torque are): ignored", s.name, typeName);
    s.usable = 0;
  } else {
    s.type = kSensorTypes[k].type;
    childPose(u, n, s.T, &s);
    childNumber(u, n, "update_rate", &s.updateRate, &s);
    if (s.updateRate < 0) {
      hsm_urdfWarn(u, lineOf(child(n, "update_rate")), "sensor '%s': update_rate %g is "
                   "negative: 0 (every step) is used", s.name, s.updateRate);
      s.updateRate = 0;
    }
    if (!s.usable) {
      // already skipped: nothing more to say about it
    } else if (s.type == hsURDF_CAMERA || s.type == hsURDF_DEPTH) {
      readCamera(u, n, &s);
    } else if (s.type == hsURDF_RAY) {
      readRay(u, n, &s);
    } else if (s.type == hsURDF_IMU) {
      readImu(u, n, &s);
    } else {
      readForceTorque(u, n, &s);
    }
    // specValues are floats on the wire
    double big = fmax(fmax(fabs(s.farClip), fabs(s.rangeMax)), fmax(fabs(s.updateRate),
                      fmax(fabs(s.minAngle), fabs(s.maxAngle))));
    if (s.usable && !(big <= FLT_MAX)) {
      hsm_urdfWarn(u, s.line, "sensor '%s': a value of %g is beyond the range of float (3.4e38), "
                   "in which sensor specs are served: the sensor is skipped", s.name, big);
      s.usable = 0;
    }
  }
  if (!s.usable) {
    hsu_free(s.name);
    hsu_free(s.reference);
    return 0;
  }
  if (!hsu_vecPush(&u->doc.sensors, sizeof s, &s)) {
    hsu_free(s.name);
    hsu_free(s.reference);
    return hsm_urdfNomem(u);
  }
  return 0;
}

// 1 if name is a link or a joint of the document
static int isLinkOrJoint(hsmUrdfLoad *u, const char *name) {
  for (size_t i = 0; i < u->doc.links.n; i++) {
    if (strcmp(LINKS(u)[i].name, name) == 0) {
      return 1;
    }
  }
  for (size_t i = 0; i < u->doc.joints.n; i++) {
    if (strcmp(JOINTS(u)[i].name, name) == 0) {
      return 1;
    }
  }
  return 0;
}

// a <gazebo> element: its sensors, if it names a link or joint
static int readGazebo(hsmUrdfLoad *u, const xmlNode *n) {
  xmlChar *ref = attr(n, "reference");
  int nsensor = 0;
  for (const xmlNode *c = n->children; c; c = c->next) {
    nsensor += isElem(c, "sensor");
  }
  int rc = 0;
  if (!ref || !ref[0]) {
    // robot-level settings and plugins mean nothing here; a sensor has no link to sit on
    if (nsensor) {
      hsm_urdfWarn(u, lineOf(n), "a <gazebo> block without reference holds %d <sensor>%s: "
                   "ignored (a sensor needs reference=\"link\")", nsensor, nsensor > 1 ? "s" : "");
    }
  } else if (!isLinkOrJoint(u, (const char *)ref)) {
    hsm_urdfWarn(u, lineOf(n), "<gazebo reference=\"%.80s\">: no link or joint has that name: "
                 "ignored%s", (const char *)ref, nsensor ? " with its sensors" : "");
  } else {
    for (const xmlNode *c = n->children; c && !rc; c = c->next) {
      if (isElem(c, "sensor")) {
        rc = readSensor(u, c, (const char *)ref);
      }
    }
  }
  xmlFree(ref);
  return rc;
}

//---------------------------------- the robot -------------------------------------------------

int hsm_urdfRead(hsmUrdfLoad *u) {
  xmlDocPtr doc = parseXml(u);
  if (!doc) {
    return u->err ? u->err->code : hsE_SYNTAX;
  }
  int rc = 0;
  const xmlNode *robot = xmlDocGetRootElement(doc);
  if (!robot) {
    rc = hsm_urdfError(u, hsE_MODEL, 1, "the file has no root element");
  } else if (!isElem(robot, "robot")) {
    rc = hsm_urdfError(u, hsE_MODEL, lineOf(robot), "the root element is <%s>, not <robot>",
                       (const char *)robot->name);
  } else {
    u->doc.line = lineOf(robot);
    rc = requiredName(u, robot, "name", "<robot>", &u->doc.name);
  }
  // robot-level materials first, then the named definitions inside visuals, then links and
  // joints in file order
  for (const xmlNode *c = robot ? robot->children : NULL; c && !rc; c = c->next) {
    if (isElem(c, "material")) {
      rc = robotMaterial(u, c);
    }
  }
  for (const xmlNode *c = robot ? robot->children : NULL; c && !rc; c = c->next) {
    for (const xmlNode *v = isElem(c, "link") ? c->children : NULL; v && !rc; v = v->next) {
      const xmlNode *mat = isElem(v, "visual") ? child(v, "material") : NULL;
      if (mat) {
        rc = inlineDefinition(u, mat);
      }
    }
  }
  for (const xmlNode *c = robot ? robot->children : NULL; c && !rc; c = c->next) {
    if (isElem(c, "link")) {
      rc = readLink(u, c);
    } else if (isElem(c, "joint")) {
      rc = readJoint(u, c);
    }
  }
  if (!rc && u->doc.links.n == 0) {
    rc = hsm_urdfError(u, hsE_MODEL, u->doc.line, "robot '%s' has no <link>", u->doc.name);
  }
  // Gazebo's sensor blocks, once every link and joint name is known
  for (const xmlNode *c = robot ? robot->children : NULL; c && !rc; c = c->next) {
    if (isElem(c, "gazebo")) {
      rc = readGazebo(u, c);
    }
  }
  xmlFreeDoc(doc);
  return rc ? (u->err && u->err->code ? u->err->code : rc) : 0;
}

void hsm_urdfFreeDoc(hsmUrdfDoc *doc) {
  hsu_free(doc->name);
  hsmUrdfLink *links = doc->links.data;
  for (size_t i = 0; i < doc->links.n; i++) {
    hsuVec *lists[2] = {&links[i].visuals, &links[i].collisions};
    for (int k = 0; k < 2; k++) {
      for (size_t g = 0; g < lists[k]->n; g++) {
        hsu_free(((hsmUrdfGeom *)lists[k]->data)[g].filename);
      }
      hsu_vecFree(lists[k]);
    }
    hsu_free(links[i].name);
  }
  hsu_vecFree(&doc->links);
  hsmUrdfJoint *joints = doc->joints.data;
  for (size_t i = 0; i < doc->joints.n; i++) {
    hsu_free(joints[i].name);
    hsu_free(joints[i].parentName);
    hsu_free(joints[i].childName);
    hsu_free(joints[i].mimicJoint);
  }
  hsu_vecFree(&doc->joints);
  hsmUrdfMaterial *mats = doc->materials.data;
  for (size_t i = 0; i < doc->materials.n; i++) {
    hsu_free(mats[i].name);
    hsu_free(mats[i].texture);
  }
  hsu_vecFree(&doc->materials);
  hsmUrdfSensor *sensors = doc->sensors.data;
  for (size_t i = 0; i < doc->sensors.n; i++) {
    hsu_free(sensors[i].name);
    hsu_free(sensors[i].reference);
  }
  hsu_vecFree(&doc->sensors);
  memset(doc, 0, sizeof *doc);
}
