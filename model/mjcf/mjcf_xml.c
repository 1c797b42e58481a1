// mjcf_xml.c - read an MJCF file with libxml2 into the plain element tree of mjcf_private.h,
// and read attributes from it.
//
// Each file is read into memory (hsu_readFile: a regular file within the size limit) and
// parsed by model_xml.c's private libxml2 parser context (no network, no entities, no DTD; the
// first error becomes ours with its line and column; any error refuses the file, even one
// libxml2 recovers from). The document becomes hsmXmlElem records (name, file,
// line, attributes, child elements). An <include file="..."/> is replaced by the children of
// the included file's top element (MuJoCo's rule), the file found relative to the including
// file, then to the model file's directory; includes nest at most maxInlineDepth deep, and the
// whole tree holds at most maxSceneNodes elements.
//
// Attributes. An element's value is its own attribute, else that of the <default> class that
// applies to it (its class attribute, else the childclass of the nearest enclosing body or
// frame, else "main"), else of that class's ancestors: a nested class inherits every attribute
// of its parent, as in MuJoCo (the actuator elements of a class, <general>, <motor>,
// <position> ..., set one actuator default: the last one that writes an attribute gives it).
// Numbers must be finite and as many as the attribute takes; errors name file:line:column,
// the column being where the attribute is written in the start tag (libxml2 keeps no location
// per attribute, so it is found in the file's text).

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "../model_xml.h"
#include "mjcf_private.h"

#define FILES(u) ((hsmMjcfFile *)(u)->files.data)
#define CLASSES(u) ((hsmMjcfClass *)(u)->classes.data)

//---------------------------------- reporting -------------------------------------------------

// the column (1-based) of ` name=` on the element's line in its file's text, or 0
static int attrColumn(const hsmMjcfLoad *u, const hsmXmlElem *e, const char *name) {
  if (!name || e->file < 0 || (size_t)e->file >= u->files.n) {
    return 0;
  }
  const hsmMjcfFile *f = &FILES(u)[e->file];
  const char *s = f->text, *end = f->text + f->len;
  for (int line = 1; line < e->line && s < end; s++) {
    line += *s == '\n';
  }
  // the start tag may span lines ending at e->line: look on this line and a few before
  size_t n = strlen(name);
  for (const char *p = s; p < end && *p != '\n'; p++) {
    if ((p == f->text || isspace((unsigned char)p[-1])) && (size_t)(end - p) > n &&
        strncmp(p, name, n) == 0 && (p[n] == '=' || isspace((unsigned char)p[n]))) {
      return (int)(p - s) + 1;
    }
  }
  return 0;
}

int hsm_mjcfError(hsmMjcfLoad *u, int code, const hsmXmlElem *e, const char *attr,
                  const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const char *file = e && (size_t)e->file < u->files.n ? FILES(u)[e->file].path : u->file;
  return HS_ERR_AT(u->err, code, file, e ? e->line : 0, e ? attrColumn(u, e, attr) : 0, "%s",
                   msg);
}

int hsm_mjcfNomem(hsmMjcfLoad *u) {
  return HS_ERR(u->err, hsE_NOMEM, "out of memory");
}

void hsm_mjcfWarn(hsmMjcfLoad *u, const hsmXmlElem *e, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const char *file = e && (size_t)e->file < u->files.n ? FILES(u)[e->file].path : u->file;
  int line = e ? e->line : 0;
  hsu_log(hsLOG_WARNING, "%s:%d: %s", file, line, msg);
  if (u->warnings && u->nwarnings < u->maxWarnings) {
    hsmWarning *out = &u->warnings[u->nwarnings];
    snprintf(out->message, sizeof out->message, "%s", msg);
    snprintf(out->file, sizeof out->file, "%s", file);
    out->line = line;
  }
  u->nwarnings++;
  hsm_addWarningInfo(u->b, file, line, msg);
}

//---------------------------------- parsing ---------------------------------------------------

// read and parse file index fi of u->files (model_xml.h; strict: a document libxml2 recovered
// from is refused); NULL with u->err filled
static xmlDocPtr parseFile(hsmMjcfLoad *u, int fi) {
  hsmMjcfFile *f = &FILES(u)[fi];
  if (hsu_readFile(f->path, u->opt.limits.maxFileBytes, &f->text, &f->len, u->err)) {
    return NULL;
  }
  return hsm_parseXml(f->path, f->text, f->len, 1, u->err);
}

//---------------------------------- the tree --------------------------------------------------

static void freeElem(hsmXmlElem *e) {
  if (!e) {
    return;
  }
  for (int i = 0; i < e->nkid; i++) {
    freeElem(e->kids[i]);
  }
  for (int i = 0; i < e->nattr; i++) {
    hsu_free(e->attrs[i].name);
    hsu_free(e->attrs[i].value);
  }
  hsu_free(e->kids);
  hsu_free(e->attrs);
  hsu_free(e->name);
  hsu_free(e);
}

void hsm_mjcfFreeTree(hsmMjcfLoad *u) {
  freeElem(u->root);
  u->root = NULL;
  for (size_t i = 0; i < u->files.n; i++) {
    hsu_free(FILES(u)[i].path);
    hsu_free(FILES(u)[i].text);
  }
  hsu_vecFree(&u->files);
}

// conversion state
typedef struct Walk {
  long elements;  // made so far
  int includes;   // includes open
} Walk;

static int convertKids(hsmMjcfLoad *u, Walk *w, const xmlNode *n, int fi, int depth,
                       hsmXmlElem *out);

// append a child to parent; 0 or hsE_NOMEM
static int addKid(hsmMjcfLoad *u, hsmXmlElem *parent, hsmXmlElem *kid) {
  hsmXmlElem **k = hsu_realloc(parent->kids, (size_t)(parent->nkid + 1) * sizeof *k);
  if (!k) {
    freeElem(kid);
    return hsm_mjcfNomem(u);
  }
  parent->kids = k;
  k[parent->nkid++] = kid;
  return 0;
}

// one element (not an include) with its attributes and children
static hsmXmlElem *convert(hsmMjcfLoad *u, Walk *w, const xmlNode *n, int fi, int depth) {
  if (++w->elements > u->opt.maxSceneNodes) {
    HS_ERR_AT(u->err, hsE_MODEL, FILES(u)[fi].path, hsm_xmlLine(n), 0,
              "the model has more than %ld elements (maxSceneNodes)", u->opt.maxSceneNodes);
    return NULL;
  }
  if (depth > u->opt.maxNesting) {
    HS_ERR_AT(u->err, hsE_MODEL, FILES(u)[fi].path, hsm_xmlLine(n), 0,
              "elements nest more than %d deep (maxNesting)", u->opt.maxNesting);
    return NULL;
  }
  hsmXmlElem *e = hsu_calloc(1, sizeof *e);
  if (!e) {
    return hsm_mjcfNomem(u), NULL;
  }
  e->file = fi;
  e->line = hsm_xmlLine(n);
  e->name = hsu_strdup((const char *)n->name);
  int nattr = 0;
  for (const xmlAttr *a = n->properties; a; a = a->next) {
    nattr++;
  }
  e->attrs = hsu_calloc((size_t)(nattr ? nattr : 1), sizeof *e->attrs);
  if (!e->name || !e->attrs) {
    freeElem(e);
    return hsm_mjcfNomem(u), NULL;
  }
  for (const xmlAttr *a = n->properties; a; a = a->next) {
    xmlChar *v = xmlNodeListGetString(n->doc, a->children, 1);
    hsmXmlAttr *at = &e->attrs[e->nattr++];
    at->name = hsu_strdup((const char *)a->name);
    at->value = hsu_strdup(v ? (const char *)v : "");
    xmlFree(v);
    if (!at->name || !at->value) {
      freeElem(e);
      return hsm_mjcfNomem(u), NULL;
    }
  }
  if (convertKids(u, w, n, fi, depth + 1, e)) {
    freeElem(e);
    return NULL;
  }
  return e;
}

// the directory part of path (a new string)
static char *dirOf(const char *path) {
  const char *slash = strrchr(path, '/');
  size_t n = slash ? (size_t)(slash - path) : 0;
  char *d = hsu_malloc(n + 2);
  if (d) {
    if (n) {
      memcpy(d, path, n);
      d[n] = 0;
    } else {
      strcpy(d, slash ? "/" : ".");
    }
  }
  return d;
}

// the file an <include> names: relative to the including file, else to the model's directory
static int includePath(hsmMjcfLoad *u, const hsmXmlElem *inc, int fi, const char *name,
                       char *out, size_t size) {
  char cand[2][PATH_MAX];
  char *d = dirOf(FILES(u)[fi].path);
  if (!d) {
    return hsm_mjcfNomem(u);
  }
  int n = 0;
  if (name[0] == '/') {
    snprintf(cand[n++], PATH_MAX, "%s", name);
  } else {
    snprintf(cand[n++], PATH_MAX, "%s/%s", d, name);
    snprintf(cand[n++], PATH_MAX, "%s/%s", u->dir, name);
  }
  hsu_free(d);
  for (int i = 0; i < n; i++) {
    if (realpath(cand[i], out) && strlen(out) < size) {
      return 0;
    }
  }
  return hsm_mjcfError(u, hsE_IO, inc, "file", "<include> file '%s' not found (tried %s)", name,
                       cand[0]);
}

// the children of the top element of an included file, appended to out
static int include(hsmMjcfLoad *u, Walk *w, const xmlNode *n, int fi, int depth,
                   hsmXmlElem *out) {
  hsmXmlElem tmp = {0};
  tmp.file = fi;
  tmp.line = hsm_xmlLine(n);
  xmlChar *name = xmlGetNoNsProp(n, (const xmlChar *)"file");
  if (!name || !name[0]) {
    xmlFree(name);
    return hsm_mjcfError(u, hsE_MODEL, &tmp, NULL, "<include> needs a 'file' attribute");
  }
  char path[PATH_MAX];
  int rc = includePath(u, &tmp, fi, (const char *)name, path, sizeof path);
  xmlFree(name);
  if (rc) {
    return rc;
  }
  if (w->includes >= u->opt.maxInlineDepth) {
    return hsm_mjcfError(u, hsE_MODEL, &tmp, "file", "<include> nests more than %d deep "
                         "(an include cycle?)", u->opt.maxInlineDepth);
  }
  hsmMjcfFile f = {hsu_strdup(path), NULL, 0};
  if (!f.path || !hsu_vecPush(&u->files, sizeof f, &f)) {
    hsu_free(f.path);
    return hsm_mjcfNomem(u);
  }
  int index = (int)u->files.n - 1;
  xmlDocPtr doc = parseFile(u, index);
  if (!doc) {
    return -1;
  }
  const xmlNode *top = xmlDocGetRootElement(doc);
  w->includes++;
  rc = top ? convertKids(u, w, top, index, depth + 1, out) : 0;
  w->includes--;
  xmlFreeDoc(doc);
  return rc;
}

static int convertKids(hsmMjcfLoad *u, Walk *w, const xmlNode *n, int fi, int depth,
                       hsmXmlElem *out) {
  for (const xmlNode *c = n->children; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE) {
      continue;
    }
    if (strcmp((const char *)c->name, "include") == 0) {
      if (include(u, w, c, fi, depth, out)) {
        return -1;
      }
      continue;
    }
    hsmXmlElem *k = convert(u, w, c, fi, depth);
    if (!k || addKid(u, out, k)) {
      return -1;
    }
  }
  return 0;
}

int hsm_mjcfRead(hsmMjcfLoad *u) {
  hsmMjcfFile f = {hsu_strdup(u->file), NULL, 0};
  if (!f.path || !hsu_vecPush(&u->files, sizeof f, &f)) {
    hsu_free(f.path);
    return hsm_mjcfNomem(u);
  }
  xmlDocPtr doc = parseFile(u, 0);
  if (!doc) {
    return -1;
  }
  const xmlNode *top = xmlDocGetRootElement(doc);
  int rc = 0;
  if (!top || strcmp((const char *)top->name, "mujoco") != 0) {
    rc = HS_ERR_AT(u->err, hsE_MODEL, u->file, hsm_xmlLine(top), 0,
                   "not an MJCF model: the top element is <%s>, not <mujoco>",
                   top ? (const char *)top->name : "");
  } else {
    Walk w = {0};
    u->root = convert(u, &w, top, 0, 0);
    rc = u->root ? 0 : -1;
  }
  xmlFreeDoc(doc);
  return rc;
}

//---------------------------------- attributes ------------------------------------------------

const char *hsm_mjcfOwn(const hsmXmlElem *e, const char *name) {
  for (int i = 0; e && i < e->nattr; i++) {
    if (strcmp(e->attrs[i].name, name) == 0) {
      return e->attrs[i].value;
    }
  }
  return NULL;
}

// the child element of the class's <default> called kind, or NULL
static const hsmXmlElem *classKind(const hsmMjcfClass *c, const char *kind) {
  for (int i = 0; i < c->elem->nkid; i++) {
    if (strcmp(c->elem->kids[i]->name, kind) == 0) {
      return c->elem->kids[i];
    }
  }
  return NULL;
}

// 1 for MuJoCo's actuator elements: in a <default> they all set the class's one actuator
static int isActuator(const char *kind) {
  static const char *const kinds[] = {"general", "motor", "position", "velocity",
                                      "intvelocity", "damper", "cylinder", "muscle",
                                      "adhesion", "dcmotor", NULL};
  for (int i = 0; kinds[i]; i++) {
    if (strcmp(kind, kinds[i]) == 0) {
      return 1;
    }
  }
  return 0;
}

// the default element of class c that gives attribute name to an element of kind, or NULL:
// its child called kind, or for an actuator the last actuator child that writes name
static const hsmXmlElem *classValue(const hsmMjcfClass *c, const char *kind, const char *name) {
  if (!isActuator(kind)) {
    const hsmXmlElem *d = classKind(c, kind);
    return d && hsm_mjcfOwn(d, name) ? d : NULL;
  }
  for (int i = c->elem->nkid - 1; i >= 0; i--) {
    const hsmXmlElem *d = c->elem->kids[i];
    if (isActuator(d->name) && hsm_mjcfOwn(d, name)) {
      return d;
    }
  }
  return NULL;
}

const char *hsm_mjcfAttr(hsmMjcfLoad *u, const hsmXmlElem *e, int cls, const char *name,
                         const hsmXmlElem **from) {
  const char *v = hsm_mjcfOwn(e, name);
  if (v) {
    if (from) {
      *from = e;
    }
    return v;
  }
  for (int c = cls; c >= 0 && (size_t)c < u->classes.n; c = CLASSES(u)[c].parent) {
    const hsmXmlElem *d = classValue(&CLASSES(u)[c], e->name, name);
    if (d && (v = hsm_mjcfOwn(d, name)) != NULL) {
      if (from) {
        *from = d;
      }
      return v;
    }
  }
  return NULL;
}

int hsm_mjcfNumbers(hsmMjcfLoad *u, const hsmXmlElem *e, int cls, const char *name, int max,
                    double *out, int *count) {
  const hsmXmlElem *at = e;
  const char *v = hsm_mjcfAttr(u, e, cls, name, &at);
  *count = 0;
  if (!v) {
    return 0;
  }
  double tmp[16];
  int k = hsm_parseNumbers(v, tmp, max < 16 ? max : 16);
  if (k < 0) {
    return hsm_mjcfError(u, hsE_MODEL, at, name, "<%s> %s=\"%.80s\": expected %s%d finite "
                         "number%s", at->name, name, v, max > 1 ? "at most " : "", max,
                         max > 1 ? "s" : "");
  }
  memcpy(out, tmp, (size_t)k * sizeof(double));
  *count = k;
  return 0;
}

int hsm_mjcfExact(hsmMjcfLoad *u, const hsmXmlElem *e, int cls, const char *name, int n,
                  double *out, int *given) {
  double tmp[16];
  int k = 0;
  if (given) {
    *given = 0;
  }
  if (hsm_mjcfNumbers(u, e, cls, name, n, tmp, &k)) {
    return -1;
  }
  if (k == 0 && !hsm_mjcfAttr(u, e, cls, name, NULL)) {
    return 0;
  }
  if (k != n) {
    const hsmXmlElem *at = e;
    const char *v = hsm_mjcfAttr(u, e, cls, name, &at);
    return hsm_mjcfError(u, hsE_MODEL, at, name, "<%s> %s=\"%.80s\": expected %d finite "
                         "number%s", at->name, name, v ? v : "", n, n > 1 ? "s" : "");
  }
  memcpy(out, tmp, (size_t)n * sizeof(double));
  if (given) {
    *given = 1;
  }
  return 0;
}

int hsm_mjcfKeyword(hsmMjcfLoad *u, const hsmXmlElem *e, int cls, const char *name,
                    const char *const *words, int *out) {
  const hsmXmlElem *at = e;
  const char *v = hsm_mjcfAttr(u, e, cls, name, &at);
  if (!v) {
    return 0;
  }
  char list[300] = "";
  for (int i = 0; words[i]; i++) {
    if (strcmp(v, words[i]) == 0) {
      *out = i;
      return 0;
    }
    size_t n = strlen(list);
    snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", words[i]);
  }
  return hsm_mjcfError(u, hsE_MODEL, at, name, "<%s> %s=\"%.80s\": expected one of %s",
                       at->name, name, v, list);
}

int hsm_mjcfClassOf(hsmMjcfLoad *u, const hsmXmlElem *e, int inherited, int *cls) {
  const char *name = hsm_mjcfOwn(e, "class");
  *cls = inherited;
  if (!name) {
    return 0;
  }
  for (size_t i = 0; i < u->classes.n; i++) {
    if (strcmp(CLASSES(u)[i].name, name) == 0) {
      *cls = (int)i;
      return 0;
    }
  }
  return hsm_mjcfError(u, hsE_MODEL, e, "class", "<%s> class '%s' is not a <default> class",
                       e->name, name);
}

//---------------------------------- frames ----------------------------------------------------

double hsm_mjcfAngle(const hsmMjcfLoad *u, double a) {
  return u->radian ? a : a * HS_PI / 180.0;
}

// R = rotation of angle a about unit axis n
static void axisRot(double R[9], const double n[3], double a) {
  double aa[4] = {n[0], n[1], n[2], a};
  hsu_axisAngleToMat(R, aa);
}

void hsm_mjcfZToVec(double R[9], const double v[3]) {
  double z[3] = {0, 0, 1}, axis[3];
  hsu_cross(axis, z, v);
  double s = hsu_norm(axis);
  if (s < 1e-10) {
    axis[0] = 1, axis[1] = axis[2] = 0;
  } else {
    for (int k = 0; k < 3; k++) {
      axis[k] /= s;
    }
  }
  axisRot(R, axis, atan2(s, v[2]));
}

// normalise v in place; 0 when it is (near) zero
static int unit(double v[3]) {
  double n = hsu_norm(v);
  if (!(n > 1e-12)) {
    return 0;
  }
  for (int k = 0; k < 3; k++) {
    v[k] /= n;
  }
  return 1;
}

// the orientation attributes MuJoCo accepts, in one place
static const char *const kOrient[] = {"quat", "axisangle", "euler", "xyaxes", "zaxis"};

// the rotation given by attribute kOrient[which] of element at (class cls)
static int orientation(hsmMjcfLoad *u, const hsmXmlElem *at, int cls, int which, double R[9]) {
  double v[6];
  static const int counts[] = {4, 4, 3, 6, 3};
  if (hsm_mjcfExact(u, at, cls, kOrient[which], counts[which], v, NULL)) {
    return -1;
  }
  const char *name = kOrient[which];
  if (which == 0) {
    double q = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
    if (!(q > 1e-12)) {
      return hsm_mjcfError(u, hsE_MODEL, at, name, "<%s> quat is zero", at->name);
    }
    double w = v[0] / q, x = v[1] / q, y = v[2] / q, z = v[3] / q;
    R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - w * z), R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z), R[4] = 1 - 2 * (x * x + z * z), R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y), R[7] = 2 * (y * z + w * x), R[8] = 1 - 2 * (x * x + y * y);
  } else if (which == 1) {
    if (!unit(v)) {
      return hsm_mjcfError(u, hsE_MODEL, at, name, "<%s> axisangle has a zero axis", at->name);
    }
    axisRot(R, v, hsm_mjcfAngle(u, v[3]));
  } else if (which == 2) {
    // each letter turns about an axis of the frame turned so far (lower case: intrinsic, the
    // rotation multiplies on the right) or of the fixed frame (upper case: on the left)
    hsu_setIdentity(R);
    for (int i = 0; i < 3; i++) {
      char c = u->eulerseq[i];
      double axis[3] = {0, 0, 0}, Ri[9], out[9];
      axis[tolower((unsigned char)c) - 'x'] = 1;
      axisRot(Ri, axis, hsm_mjcfAngle(u, v[i]));
      if (islower((unsigned char)c)) {
        hsu_mulMat(out, R, Ri);
      } else {
        hsu_mulMat(out, Ri, R);
      }
      memcpy(R, out, sizeof out);
    }
  } else if (which == 3) {
    double *x = v, *y = v + 3, z[3];
    if (!unit(x)) {
      return hsm_mjcfError(u, hsE_MODEL, at, name, "<%s> xyaxes has a zero x axis", at->name);
    }
    double d = hsu_dot(x, y);
    for (int k = 0; k < 3; k++) {
      y[k] -= d * x[k];
    }
    if (!unit(y)) {
      return hsm_mjcfError(u, hsE_MODEL, at, name, "<%s> xyaxes: y is parallel to x", at->name);
    }
    hsu_cross(z, x, y);
    for (int k = 0; k < 3; k++) {
      R[3 * k] = x[k], R[3 * k + 1] = y[k], R[3 * k + 2] = z[k];
    }
  } else {
    if (!unit(v)) {
      return hsm_mjcfError(u, hsE_MODEL, at, name, "<%s> zaxis is zero", at->name);
    }
    hsm_mjcfZToVec(R, v);
  }
  return 0;
}

int hsm_mjcfFrame(hsmMjcfLoad *u, const hsmXmlElem *e, int cls, double T[12]) {
  double p[3] = {0, 0, 0}, R[9];
  hsu_setIdentity(R);
  if (hsm_mjcfExact(u, e, cls, "pos", 3, p, NULL)) {
    return -1;
  }
  // the element's own orientation, else its class's; never two
  for (int pass = 0; pass < 2; pass++) {
    int found = -1;
    for (int i = 0; i < 5; i++) {
      int has = pass == 0 ? hsm_mjcfOwn(e, kOrient[i]) != NULL
                          : hsm_mjcfAttr(u, e, cls, kOrient[i], NULL) != NULL;
      if (has && found >= 0) {
        return hsm_mjcfError(u, hsE_MODEL, e, kOrient[i], "<%s> has both %s and %s: give one "
                             "orientation", e->name, kOrient[found], kOrient[i]);
      }
      found = has ? i : found;
    }
    if (found >= 0) {
      if (orientation(u, e, pass == 0 ? -1 : cls, found, R)) {
        return -1;
      }
      break;
    }
  }
  hsu_makeTransform(T, R, p);
  return 0;
}
