// vrml_parse.c - the VRML97 parser: node statements, field values, DEF/USE, PROTO with IS,
// Inline, ROUTE skipping, and the getters of vrml.h.
//
// A recursive-descent parser reads one token ahead from the lexer (vrml_lex.c) and builds
// hsvNode trees in the scene's arena. Each node gets a copy of its type's field list with the
// defaults (vrml_nodes.c, or the PROTO interface); written fields replace the value and
// set `given`. Values are collected on scratch stacks owned by the parser (numbers, strings,
// nodes; nested nodes push above their parent's entries and pop back) and copied to the arena
// once complete, so a large coordinate array costs one copy and no per-number allocation.
//
// DEF names live in a hash table per scope: one per file, one per PROTO body, one for a PROTO's
// interface defaults. A name is bound when its node is complete, and a later DEF rebinds it.
// PROTO names are looked up through the enclosing scopes, innermost first, before the
// built-in node types.
//
// PROTO: everything inside a PROTO declaration is a template. Template nodes remember which of
// their fields are `IS` an interface field (isMap), and PROTO instances among them are not
// expanded. An instance outside any declaration is expanded when its closing brace is read:
// node-valued defaults it did not set are deep-copied for it, then the body is deep-copied with
// every IS field taking the instance's value. A deep copy stamps each template node with the
// copy's epoch and remembers its copy, so a node USEd twice in a template is copied once and
// stays shared in the copy; instances met during the copy are expanded the same way, each with
// its own epoch. Values substituted through IS are used as they are, never copied again.
//
// Inline: when an Inline node is complete (outside templates, or when an instance's body is
// copied) its url entries are tried in order relative to the directory of the file the node
// was written in; the first readable file is parsed in a fresh file scope and its top-level
// nodes hang off the Inline. The chain of files being read detects cycles; files already
// parsed are reused, together with the depth of Inlines below them for the depth limit.

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vrml_private.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

// deepest nesting of nodes (and node copies) before the parser gives up
#define MAX_NESTING 1000

//---------------------------------- parser state ----------------------------------------------

// one DEF binding
typedef struct DefEntry {
  const char *name;  // NULL for an empty slot
  size_t len;
  hsvNode *node;
} DefEntry;

// a naming scope: a file, a PROTO body, or a PROTO interface's default values
typedef struct Scope {
  struct Scope *parent;  // the enclosing scope, searched for PROTO names only
  DefEntry *defs;        // open addressing, capDef a power of two (arena)
  size_t ndef, capDef;
  hsvProto *protos;  // declared here, most recent first
} Scope;

// a file already read through an Inline, kept for reuse
typedef struct InlineFile {
  const char *path;
  hsvNode **roots;
  int nroot;
  int height;  // Inline levels below the file
  struct InlineFile *next;
} InlineFile;

typedef struct Parser {
  hsvArena *arena;
  hsvOptions opt;
  hsError *err;  // the parse's own error record (never NULL)
  // the file being read
  hsvLexer lex;
  hsvToken tok;      // the current token
  const char *file;  // absolute path (arena)
  Scope *scope;
  const hsvProto *proto;  // the PROTO whose body is being read (IS context), or NULL
  int tmpl;               // > 0 inside a PROTO declaration
  int nesting;
  // scratch stacks (hsu_malloc), emptied back to a base by whoever pushed
  double *nums;
  size_t nnum, capNum;
  hsvNode **nodes;
  size_t nnode, capNode;
  char **strs;
  size_t nstr, capStr;
  int *isPairs;  // (field index, interface index) pairs of the nodes being read
  size_t nis, capIs;
  hsvField *decls;  // Script declarations and PROTO interfaces being read
  size_t ndecl, capDecl;
  // Inline
  const char **chain;  // files being read, outermost first
  size_t nchain, capChain;
  int deepest;  // deepest Inline level reached so far
  InlineFile *inlined;
  unsigned epoch;  // last deep-copy epoch handed out
  long made;       // nodes made so far (limited by opt.maxNodes)
  int badLine, badColumn;  // the first out-of-range number of the value being read
  // warnings (hsu_malloc; messages in the arena)
  hsvWarning *warns;
  size_t nwarn, capWarn;
} Parser;

// deep-copy context: the epoch, and the instance fields IS refers to (NULL outside bodies)
typedef struct CopyCtx {
  unsigned epoch;
  const hsvField *inst;
} CopyCtx;

static const char *const kAccessNames[] = {"field", "exposedField", "eventIn", "eventOut"};

static int parseNodeStatement(Parser *p, hsvNode **out);
static int parseStatements(Parser *p, int untilBrace);
static int copyNode(Parser *p, hsvNode *n, const CopyCtx *ctx, hsvNode **out);
static int loadInline(Parser *p, hsvNode *node);

//---------------------------------- errors and scratch ----------------------------------------

// record an error of code at line/column of the current file; returns code
static int errAt(Parser *p, int code, int line, int column, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int errAt(Parser *p, int code, int line, int column, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return HS_ERR_AT(p->err, code, p->file, line, column, "%s", msg);
}

// record an error at a node's own location
static int errNode(Parser *p, int code, const hsvNode *node, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int errNode(Parser *p, int code, const hsvNode *node, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return HS_ERR_AT(p->err, code, node->file, node->line, node->column, "%s", msg);
}

// record a warning at file:line:column (dropped when out of memory: it is only a warning)
static void warnAt(Parser *p, const char *file, int line, int column, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void warnAt(Parser *p, const char *file, int line, int column, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (p->nwarn == p->capWarn) {
    size_t cap = p->capWarn ? 2 * p->capWarn : 8;
    hsvWarning *d = hsu_realloc(p->warns, cap * sizeof *d);
    if (!d) {
      return;
    }
    p->warns = d;
    p->capWarn = cap;
  }
  const char *m = hsv_arenaStrndup(p->arena, msg, strlen(msg));
  if (m) {
    p->warns[p->nwarn++] = (hsvWarning){file, line, column, m};
  }
}

static int errNoMem(Parser *p) {
  return errAt(p, hsE_NOMEM, p->tok.line, p->tok.column, "out of memory");
}

// a syntax error at the current token: "expected <what>, got <token>"
static int errExpected(Parser *p, const char *what) {
  char got[80];
  return errAt(p, hsE_SYNTAX, p->tok.line, p->tok.column, "expected %s, got %s", what,
               hsv_tokDescribe(&p->tok, got, sizeof got));
}

// a value that does not fit its field, at the current token
static int errValue(Parser *p, const char *fname, const char *owner, hstVrmlType type) {
  char got[80];
  return errAt(p, hsE_SYNTAX, p->tok.line, p->tok.column, "field '%s' of %s expects %s, got %s",
               fname, owner, hsv_typeName(type), hsv_tokDescribe(&p->tok, got, sizeof got));
}

static int next(Parser *p) {
  return hsv_lexNext(&p->lex, &p->tok);
}

static void *arenaAlloc(Parser *p, size_t size) {
  void *m = hsv_arenaAlloc(p->arena, size);
  if (!m) {
    errNoMem(p);
  }
  return m;
}

static void *arenaCalloc(Parser *p, size_t size) {
  void *m = hsv_arenaCalloc(p->arena, size);
  if (!m) {
    errNoMem(p);
  }
  return m;
}

static char *arenaStr(Parser *p, const char *s, size_t n) {
  char *m = hsv_arenaStrndup(p->arena, s, n);
  if (!m) {
    errNoMem(p);
  }
  return m;
}

// a grown copy of a scratch array (old contents kept), or NULL with the error recorded
static void *grow(Parser *p, void *data, size_t *cap, size_t elem) {
  size_t ncap = *cap ? *cap * 2 : 64;
  void *d = hsu_realloc(data, ncap * elem);
  if (!d) {
    errNoMem(p);
    return NULL;
  }
  *cap = ncap;
  return d;
}

static int pushNode(Parser *p, hsvNode *node) {
  if (p->nnode == p->capNode) {
    hsvNode **d = grow(p, p->nodes, &p->capNode, sizeof *d);
    if (!d) {
      return hsE_NOMEM;
    }
    p->nodes = d;
  }
  p->nodes[p->nnode++] = node;
  return 0;
}

static int pushStr(Parser *p, char *s) {
  if (p->nstr == p->capStr) {
    char **d = grow(p, p->strs, &p->capStr, sizeof *d);
    if (!d) {
      return hsE_NOMEM;
    }
    p->strs = d;
  }
  p->strs[p->nstr++] = s;
  return 0;
}

static int pushIs(Parser *p, int field, int iface) {
  if (p->nis + 2 > p->capIs) {
    int *d = grow(p, p->isPairs, &p->capIs, sizeof *d);
    if (!d) {
      return hsE_NOMEM;
    }
    p->isPairs = d;
  }
  p->isPairs[p->nis++] = field;
  p->isPairs[p->nis++] = iface;
  return 0;
}

static int pushDecl(Parser *p, const hsvField *f) {
  if (p->ndecl == p->capDecl) {
    hsvField *d = grow(p, p->decls, &p->capDecl, sizeof *d);
    if (!d) {
      return hsE_NOMEM;
    }
    p->decls = d;
  }
  p->decls[p->ndecl++] = *f;
  return 0;
}

// move the nodes above base on the node stack into an arena array
static int popNodes(Parser *p, size_t base, hsvNode ***out, int *n) {
  size_t count = p->nnode - base;
  *out = NULL;
  *n = (int)count;
  if (count) {
    *out = arenaAlloc(p, count * sizeof **out);
    if (!*out) {
      return hsE_NOMEM;
    }
    memcpy(*out, p->nodes + base, count * sizeof **out);
  }
  p->nnode = base;
  return 0;
}

//---------------------------------- scopes ----------------------------------------------------

static uint64_t hashName(const char *s, size_t n) {
  uint64_t h = 1469598103934665603u;
  for (size_t i = 0; i < n; i++) {
    h = (h ^ (unsigned char)s[i]) * 1099511628211u;
  }
  return h;
}

// the slot of name in a table (the matching entry or the empty slot where it would go)
static DefEntry *defSlot(DefEntry *defs, size_t cap, const char *name, size_t n) {
  size_t i = (size_t)hashName(name, n) & (cap - 1);
  while (defs[i].name && !(defs[i].len == n && memcmp(defs[i].name, name, n) == 0)) {
    i = (i + 1) & (cap - 1);
  }
  return &defs[i];
}

// bind name to node in scope s, replacing an earlier binding
static int defBind(Parser *p, Scope *s, const char *name, hsvNode *node) {
  size_t n = strlen(name);
  if (2 * (s->ndef + 1) > s->capDef) {
    size_t cap = s->capDef ? 2 * s->capDef : 16;
    DefEntry *defs = arenaCalloc(p, cap * sizeof *defs);
    if (!defs) {
      return hsE_NOMEM;
    }
    for (size_t i = 0; i < s->capDef; i++) {
      if (s->defs[i].name) {
        *defSlot(defs, cap, s->defs[i].name, s->defs[i].len) = s->defs[i];
      }
    }
    s->defs = defs;
    s->capDef = cap;
  }
  DefEntry *e = defSlot(s->defs, s->capDef, name, n);
  if (!e->name) {
    s->ndef++;
  }
  e->name = name;
  e->len = n;
  e->node = node;
  return 0;
}

static hsvNode *defFind(const Scope *s, const char *name, size_t n) {
  if (!s->capDef) {
    return NULL;
  }
  DefEntry *e = defSlot(s->defs, s->capDef, name, n);
  return e->name ? e->node : NULL;
}

// the PROTO called name visible from the current scope, or NULL
static const hsvProto *findProto(const Parser *p, const char *name, size_t n) {
  for (const Scope *s = p->scope; s; s = s->parent) {
    for (const hsvProto *pr = s->protos; pr; pr = pr->next) {
      if (strlen(pr->name) == n && memcmp(pr->name, name, n) == 0) {
        return pr;
      }
    }
  }
  return NULL;
}

//---------------------------------- field values ----------------------------------------------

static int isNumber(const hsvToken *t) {
  return t->kind == hsvTOK_INT || t->kind == hsvTOK_FLOAT;
}

// 1 if the token is a number acceptable for an element of type elem
static int numberFits(const hsvToken *t, hstVrmlType elem) {
  if (elem == hsvSFINT32) {
    return t->kind == hsvTOK_INT && t->num >= -2147483648.0 && t->num <= 4294967295.0;
  }
  return isNumber(t);
}

// a token spelling nan or inf (any case, "infinity" too), as exporters write them where a
// number belongs, becomes a FLOAT token of that value
static void nonFiniteWord(hsvToken *t) {
  static const char *const words[] = {"nan", "inf", "infinity"};
  if (t->kind != hsvTOK_ID || t->len > 8) {
    return;
  }
  for (int w = 0; w < 3; w++) {
    if (t->len == strlen(words[w]) && strncasecmp(t->start, words[w], t->len) == 0) {
      t->kind = hsvTOK_FLOAT;
      t->num = w == 0 ? NAN : INFINITY;
    }
  }
}

// remember where the first number out of a float's range (or not finite) was read
static void noteRange(Parser *p, const hsvToken *t) {
  if (!p->badLine && !(fabs(t->num) <= FLT_MAX)) {
    p->badLine = t->line;
    p->badColumn = t->column;
  }
}

// push one number on the scratch stack
static int pushNum(Parser *p, double v) {
  if (p->nnum == p->capNum) {
    double *d = grow(p, p->nums, &p->capNum, sizeof *d);
    if (!d) {
      return hsE_NOMEM;
    }
    p->nums = d;
  }
  p->nums[p->nnum++] = v;
  return 0;
}

// move the numbers above base into v
static int popNums(Parser *p, size_t base, hsvValue *v) {
  size_t count = p->nnum - base;
  v->nnum = (int)count;
  if (count) {
    v->num = arenaAlloc(p, count * sizeof *v->num);
    if (!v->num) {
      return hsE_NOMEM;
    }
    memcpy(v->num, p->nums + base, count * sizeof *v->num);
  }
  p->nnum = base;
  return 0;
}

// read count numbers of element type elem (no brackets)
static int readNumbers(Parser *p, hstVrmlType elem, int count, const char *fname,
                       const char *owner, hstVrmlType type) {
  for (int i = 0; i < count; i++) {
    nonFiniteWord(&p->tok);
    if (!numberFits(&p->tok, elem)) {
      return errValue(p, fname, owner, type);
    }
    noteRange(p, &p->tok);
    int rc = pushNum(p, p->tok.num);
    if (!rc) {
      rc = next(p);
    }
    if (rc) {
      return rc;
    }
  }
  return 0;
}

// read an SFImage: width height components, then width * height pixels
static int readImage(Parser *p, const char *fname, const char *owner, hstVrmlType type) {
  double dims[3];
  for (int i = 0; i < 3; i++) {
    if (p->tok.kind != hsvTOK_INT || p->tok.num < 0 || (i == 2 && p->tok.num > 4) ||
        p->tok.num > 1e6) {
      return errValue(p, fname, owner, type);
    }
    dims[i] = p->tok.num;
    int rc = pushNum(p, dims[i]);
    if (!rc) {
      rc = next(p);
    }
    if (rc) {
      return rc;
    }
  }
  double pixels = dims[0] * dims[1];
  if (pixels > (double)(1 << 28)) {
    return errValue(p, fname, owner, type);
  }
  return readNumbers(p, hsvSFINT32, (int)pixels, fname, owner, type);
}

// read one string element into the string stack
static int readString(Parser *p, const char *fname, const char *owner, hstVrmlType type) {
  if (p->tok.kind != hsvTOK_STRING) {
    return errValue(p, fname, owner, type);
  }
  char *s = arenaAlloc(p, p->tok.len);
  if (!s) {
    return hsE_NOMEM;
  }
  hsv_lexDecodeString(&p->tok, s);
  int rc = pushStr(p, s);
  return rc ? rc : next(p);
}

// read one node element (no NULL) onto the node stack
static int readNodeElem(Parser *p, const char *fname, const char *owner, hstVrmlType type) {
  if (p->tok.kind != hsvTOK_ID || hsv_tokIs(&p->tok, "NULL")) {
    return errValue(p, fname, owner, type);
  }
  hsvNode *node;
  int rc = parseNodeStatement(p, &node);
  return rc ? rc : pushNode(p, node);
}

// read one element of an MF (or SF) type, leaving it on the matching scratch stack
static int readElem(Parser *p, hstVrmlType elem, const char *fname, const char *owner,
                    hstVrmlType type) {
  switch (elem) {
    case hsvSFSTRING:
      return readString(p, fname, owner, type);
    case hsvSFNODE:
      return readNodeElem(p, fname, owner, type);
    default:
      return readNumbers(p, elem, hsv_typeWidth(elem), fname, owner, type);
  }
}

// parse a value of type for field fname of owner (for messages) into v
static int parseValue(Parser *p, hstVrmlType type, const char *fname, const char *owner,
                      hsvValue *v) {
  memset(v, 0, sizeof *v);
  v->type = type;
  v->line = p->tok.line;
  v->column = p->tok.column;
  size_t numBase = p->nnum, strBase = p->nstr, nodeBase = p->nnode;
  int rc = 0;
  p->badLine = p->badColumn = 0;
  hstVrmlType elem = hsv_elemType(type);
  int width = hsv_typeWidth(elem);
  if (type == hsvSFBOOL) {
    int t = hsv_tokIs(&p->tok, "TRUE");
    if (!t && !hsv_tokIs(&p->tok, "FALSE")) {
      return errValue(p, fname, owner, type);
    }
    rc = pushNum(p, t);
    if (!rc) {
      rc = next(p);
    }
    v->n = 1;
  } else if (type == hsvSFIMAGE) {
    rc = readImage(p, fname, owner, type);
    v->n = 1;
  } else if (type == hsvSFNODE && hsv_tokIs(&p->tok, "NULL")) {
    rc = next(p);
  } else if (!hsv_isMF(type) || p->tok.kind != hsvTOK_LBRACKET) {
    // a single value (MF types accept one element without brackets)
    rc = readElem(p, elem, fname, owner, type);
  } else if (width > 0) {
    // a bracketed list of numbers: the hot loop of big geometry files
    if ((rc = next(p)) != 0) {
      return rc;
    }
    for (;;) {
      nonFiniteWord(&p->tok);
      if (numberFits(&p->tok, elem)) {
        noteRange(p, &p->tok);
        if ((rc = pushNum(p, p->tok.num)) != 0 || (rc = next(p)) != 0) {
          return rc;
        }
      } else if (p->tok.kind == hsvTOK_RBRACKET) {
        break;
      } else {
        return errValue(p, fname, owner, type);
      }
    }
    if ((p->nnum - numBase) % (size_t)width != 0) {
      return errValue(p, fname, owner, type);
    }
    rc = next(p);
  } else {
    // a bracketed list of strings or nodes
    if ((rc = next(p)) != 0) {
      return rc;
    }
    while (p->tok.kind != hsvTOK_RBRACKET) {
      if ((rc = readElem(p, elem, fname, owner, type)) != 0) {
        return rc;
      }
    }
    rc = next(p);
  }
  if (rc) {
    return rc;
  }
  // move the collected elements to the arena
  if (elem == hsvSFSTRING) {
    size_t count = p->nstr - strBase;
    v->n = (int)count;
    if (count) {
      v->str = arenaAlloc(p, count * sizeof *v->str);
      if (!v->str) {
        return hsE_NOMEM;
      }
      memcpy(v->str, p->strs + strBase, count * sizeof *v->str);
    }
    p->nstr = strBase;
  } else if (elem == hsvSFNODE) {
    rc = popNodes(p, nodeBase, &v->node, &v->n);
  } else {
    rc = popNums(p, numBase, v);
    if (type != hsvSFBOOL && type != hsvSFIMAGE) {
      v->n = v->nnum / width;
    }
    v->badLine = p->badLine;
    v->badColumn = p->badColumn;
  }
  return rc;
}

//---------------------------------- nodes -----------------------------------------------------

// a new zeroed node, or NULL with the error recorded (out of memory, or past opt.maxNodes)
static hsvNode *newNode(Parser *p, const char *file, int line, int column) {
  if (++p->made > p->opt.maxNodes) {
    HS_ERR_AT(p->err, hsE_MODEL, file, line, column,
              "the scene expands to more than %ld nodes (PROTO instances and their copies "
              "included); raise the maxNodes option if the model is really this large",
              p->opt.maxNodes);
    return NULL;
  }
  hsvNodeX *x = arenaCalloc(p, sizeof *x);
  return x ? &x->pub : NULL;
}

// index of the field called name (n bytes) among the first nfield fields, or -1
static int fieldIndex(const hsvField *fields, int nfield, const char *name, size_t n) {
  for (int i = 0; i < nfield; i++) {
    if (fields[i].name[0] == name[0] && strncmp(fields[i].name, name, n) == 0 &&
        fields[i].name[n] == 0) {
      return i;
    }
  }
  return -1;
}

// 1 if a node field of access inner may be IS an interface field of access outer
static int accessFits(hstVrmlAccess inner, hstVrmlAccess outer) {
  switch (inner) {
    case hsvEXPOSED:
      return 1;
    case hsvFIELD:
      return outer == hsvFIELD || outer == hsvEXPOSED;
    case hsvEVENTIN:
      return outer == hsvEVENTIN || outer == hsvEXPOSED;
    default:
      return outer == hsvEVENTOUT || outer == hsvEXPOSED;
  }
}

// read "IS name" (current token IS) for a field of owner; returns the interface index in *iface
static int parseIs(Parser *p, const char *owner, const char *fname, hstVrmlType type,
                   hstVrmlAccess access, int *iface) {
  if (!p->proto) {
    return errAt(p, hsE_SYNTAX, p->tok.line, p->tok.column, "IS outside a PROTO body");
  }
  int rc = next(p);
  if (rc) {
    return rc;
  }
  if (p->tok.kind != hsvTOK_ID) {
    return errExpected(p, "an interface field name after IS");
  }
  const hsvProto *pr = p->proto;
  int k = fieldIndex(pr->fields, pr->nfield, p->tok.start, p->tok.len);
  if (k < 0) {
    return errAt(p, hsE_SYNTAX, p->tok.line, p->tok.column, "PROTO %s has no field '%.*s'",
                 pr->name, (int)p->tok.len, p->tok.start);
  }
  const hsvField *f = &pr->fields[k];
  if (f->value.type != type) {
    return errAt(p, hsE_SYNTAX, p->tok.line, p->tok.column,
                 "IS type mismatch: field '%s' of %s is %s but '%s' of PROTO %s is %s", fname,
                 owner, hsv_typeName(type), f->name, pr->name, hsv_typeName(f->value.type));
  }
  if (!accessFits(access, f->access)) {
    return errAt(p, hsE_SYNTAX, p->tok.line, p->tok.column,
                 "%s '%s' of %s cannot be IS %s '%s' of PROTO %s", kAccessNames[access], fname,
                 owner, kAccessNames[f->access], f->name, pr->name);
  }
  *iface = k;
  return next(p);
}

// 1 if name is set_<exposedField> or <exposedField>_changed of the node's fields; gives the
// event's type and access
static int eventAlias(const hsvField *fields, int nfield, const hsvToken *t, hstVrmlType *type,
                      hstVrmlAccess *access) {
  const char *s = t->start;
  size_t n = t->len;
  int k = -1;
  if (n > 4 && memcmp(s, "set_", 4) == 0) {
    k = fieldIndex(fields, nfield, s + 4, n - 4);
    *access = hsvEVENTIN;
  } else if (n > 8 && memcmp(s + n - 8, "_changed", 8) == 0) {
    k = fieldIndex(fields, nfield, s, n - 8);
    *access = hsvEVENTOUT;
  }
  if (k < 0 || fields[k].access != hsvEXPOSED) {
    return 0;
  }
  *type = fields[k].value.type;
  return 1;
}

// read an interface declaration: <access> <type> <name> [value | IS name]; the current token
// is the access keyword. allowIs: Script members may be IS; PROTO interfaces may not.
static int parseDecl(Parser *p, const char *owner, const hsvField *others, int nothers,
                     size_t declBase, int allowIs, hsvField *out, int *iface) {
  static const char *const words[] = {"field", "exposedField", "eventIn", "eventOut"};
  int access = -1;
  for (int i = 0; i < 4; i++) {
    if (hsv_tokIs(&p->tok, words[i])) {
      access = i;
    }
  }
  if (access < 0) {
    return errExpected(p, "field, exposedField, eventIn or eventOut");
  }
  int rc = next(p);
  if (rc) {
    return rc;
  }
  int type = p->tok.kind == hsvTOK_ID ? hsv_typeByName(p->tok.start, p->tok.len) : -1;
  if (type < 0) {
    return errExpected(p, "a field type");
  }
  if ((rc = next(p)) != 0) {
    return rc;
  }
  if (p->tok.kind != hsvTOK_ID) {
    return errExpected(p, "a field name");
  }
  const hsvToken nameTok = p->tok;
  if (fieldIndex(others, nothers, nameTok.start, nameTok.len) >= 0 ||
      (p->decls && fieldIndex(p->decls + declBase, (int)(p->ndecl - declBase), nameTok.start,
                              nameTok.len) >= 0)) {
    return errAt(p, hsE_SYNTAX, nameTok.line, nameTok.column, "duplicate field '%.*s' in %s",
                 (int)nameTok.len, nameTok.start, owner);
  }
  memset(out, 0, sizeof *out);
  out->access = (hstVrmlAccess)access;
  out->name = arenaStr(p, nameTok.start, nameTok.len);
  if (!out->name || (rc = next(p)) != 0) {
    return out->name ? rc : hsE_NOMEM;
  }
  out->value.type = (hstVrmlType)type;
  out->value.line = nameTok.line;
  out->value.column = nameTok.column;
  *iface = -1;
  if (allowIs && hsv_tokIs(&p->tok, "IS")) {
    return parseIs(p, owner, out->name, (hstVrmlType)type, (hstVrmlAccess)access, iface);
  }
  if (access == hsvFIELD || access == hsvEXPOSED) {
    rc = parseValue(p, (hstVrmlType)type, out->name, owner, &out->value);
    out->given = allowIs;  // a Script member's value is written; an interface's is a default
  }
  return rc;
}

// skip "ROUTE a.b TO c.d" (current token ROUTE)
static int skipRoute(Parser *p) {
  static const char *const what[] = {"a node name", "'.'", "an event name", "TO",
                                     "a node name", "'.'", "an event name"};
  static const hstVrmlToken kinds[] = {hsvTOK_ID, hsvTOK_PERIOD, hsvTOK_ID, hsvTOK_ID,
                                       hsvTOK_ID, hsvTOK_PERIOD, hsvTOK_ID};
  for (int i = 0; i < 7; i++) {
    int rc = next(p);
    if (rc) {
      return rc;
    }
    if (p->tok.kind != kinds[i] || (i == 3 && !hsv_tokIs(&p->tok, "TO"))) {
      char buf[64];
      snprintf(buf, sizeof buf, "%s in ROUTE", what[i]);
      return errExpected(p, buf);
    }
  }
  return next(p);
}

static int parseProto(Parser *p);

// skip "EXTERNPROTO name [ interface ] url" (current token EXTERNPROTO) with a warning, as
// OpenHRP skips it; an instance of it is then an unknown node type
static int skipExternProto(Parser *p) {
  const hsvToken kw = p->tok;
  int rc = next(p);
  if (rc) {
    return rc;
  }
  if (p->tok.kind != hsvTOK_ID) {
    return errExpected(p, "an EXTERNPROTO name");
  }
  const hsvToken name = p->tok;
  if ((rc = next(p)) != 0) {
    return rc;
  }
  if (p->tok.kind != hsvTOK_LBRACKET) {
    return errExpected(p, "'[' after the EXTERNPROTO name");
  }
  // the interface: access type name, no values
  while ((rc = next(p)) == 0 && p->tok.kind == hsvTOK_ID) {
  }
  if (rc) {
    return rc;
  }
  if (p->tok.kind != hsvTOK_RBRACKET) {
    return errExpected(p, "an interface declaration or ']' in EXTERNPROTO");
  }
  if ((rc = next(p)) != 0) {
    return rc;
  }
  // the url: a string or a bracketed list of them
  if (p->tok.kind == hsvTOK_LBRACKET) {
    while ((rc = next(p)) == 0 && p->tok.kind == hsvTOK_STRING) {
    }
    if (rc) {
      return rc;
    }
    if (p->tok.kind != hsvTOK_RBRACKET) {
      return errExpected(p, "a url string or ']' in EXTERNPROTO");
    }
  } else if (p->tok.kind != hsvTOK_STRING) {
    return errExpected(p, "the url of the EXTERNPROTO");
  }
  warnAt(p, p->file, kw.line, kw.column,
         "EXTERNPROTO %.*s skipped (external PROTOs are not supported; OpenHRP skips them too): "
         "an instance of it is an unknown node type", (int)name.len, name.start);
  return next(p);
}

// expand a complete PROTO instance: copy the node-valued defaults it did not set, then the body
static int finishInstance(Parser *p, hsvNode *node) {
  const hsvProto *pr = node->proto;
  CopyCtx defaults = {++p->epoch, NULL};
  for (int i = 0; i < node->nfield; i++) {
    hsvValue *v = &node->fields[i].value;
    if (!node->fields[i].given && v->n > 0 && (v->type == hsvSFNODE || v->type == hsvMFNODE)) {
      hsvNode **copies = arenaAlloc(p, (size_t)v->n * sizeof *copies);
      if (!copies) {
        return hsE_NOMEM;
      }
      for (int j = 0; j < v->n; j++) {
        int rc = copyNode(p, v->node[j], &defaults, &copies[j]);
        if (rc) {
          return rc;
        }
      }
      v->node = copies;
    }
  }
  CopyCtx body = {++p->epoch, node->fields};
  node->body = arenaAlloc(p, (size_t)pr->nbody * sizeof *node->body);
  if (!node->body) {
    return hsE_NOMEM;
  }
  for (int i = 0; i < pr->nbody; i++) {
    int rc = copyNode(p, pr->body[i], &body, &node->body[i]);
    if (rc) {
      return rc;
    }
  }
  node->nbody = pr->nbody;
  return 0;
}

static int isInlineNode(const hsvNode *node) {
  return !node->proto && strcmp(node->typeName, "Inline") == 0;
}

// deep-copy template node n (see the file comment); *out receives the copy
static int copyNode(Parser *p, hsvNode *n, const CopyCtx *ctx, hsvNode **out) {
  hsvNodeX *x = (hsvNodeX *)n;
  if (x->epoch == ctx->epoch) {
    *out = x->copy;
    return 0;
  }
  if (++p->nesting > MAX_NESTING) {
    return errNode(p, hsE_SYNTAX, n, "nodes nested too deeply");
  }
  hsvNode *c = newNode(p, n->file, n->line, n->column);
  if (!c) {
    return p->err->code ? p->err->code : hsE_NOMEM;
  }
  *c = *n;
  c->nbody = 0;
  c->body = NULL;
  x->epoch = ctx->epoch;
  x->copy = c;
  if (n->nfield) {
    c->fields = arenaAlloc(p, (size_t)n->nfield * sizeof *c->fields);
    if (!c->fields) {
      return hsE_NOMEM;
    }
    memcpy(c->fields, n->fields, (size_t)n->nfield * sizeof *c->fields);
  }
  for (int i = 0; i < c->nfield; i++) {
    hsvField *f = &c->fields[i];
    int k = x->isMap ? x->isMap[i] : -1;
    if (k >= 0) {
      // IS: the instance's value, used as it is
      const hsvField *src = &ctx->inst[k];
      if (src->access == hsvFIELD || src->access == hsvEXPOSED) {
        f->value = src->value;
        f->given = 1;
      }
      continue;
    }
    // node values are copied; an instance's unset ones are redone from its PROTO's defaults
    hsvValue *v = &f->value;
    if (v->n > 0 && (v->type == hsvSFNODE || v->type == hsvMFNODE) && (!n->proto || f->given)) {
      hsvNode **copies = arenaAlloc(p, (size_t)v->n * sizeof *copies);
      if (!copies) {
        return hsE_NOMEM;
      }
      for (int j = 0; j < v->n; j++) {
        int rc = copyNode(p, v->node[j], ctx, &copies[j]);
        if (rc) {
          return rc;
        }
      }
      v->node = copies;
    }
  }
  int rc = 0;
  if (c->proto) {
    rc = finishInstance(p, c);
  } else if (p->opt.loadInlines && isInlineNode(c)) {
    rc = loadInline(p, c);
  }
  p->nesting--;
  *out = c;
  return rc;
}

// finish a node whose closing brace is current: append Script members, build the IS map,
// expand a PROTO instance, load an Inline
static int completeNode(Parser *p, hsvNode *node, size_t isBase, size_t declBase) {
  // Script members follow the standard fields
  size_t nextra = p->ndecl - declBase;
  if (nextra) {
    hsvField *fields = arenaAlloc(p, ((size_t)node->nfield + nextra) * sizeof *fields);
    if (!fields) {
      return hsE_NOMEM;
    }
    memcpy(fields, node->fields, (size_t)node->nfield * sizeof *fields);
    memcpy(fields + node->nfield, p->decls + declBase, nextra * sizeof *fields);
    node->fields = fields;
    node->nfield += (int)nextra;
    p->ndecl = declBase;
  }
  if (p->nis > isBase) {
    hsvNodeX *x = (hsvNodeX *)node;
    x->isMap = arenaAlloc(p, (size_t)node->nfield * sizeof *x->isMap);
    if (!x->isMap) {
      return hsE_NOMEM;
    }
    for (int i = 0; i < node->nfield; i++) {
      x->isMap[i] = -1;
    }
    for (size_t i = isBase; i < p->nis; i += 2) {
      x->isMap[p->isPairs[i]] = p->isPairs[i + 1];
    }
    p->nis = isBase;
  }
  if (p->tmpl) {
    return 0;
  }
  if (node->proto) {
    return finishInstance(p, node);
  }
  if (p->opt.loadInlines && isInlineNode(node)) {
    return loadInline(p, node);
  }
  return 0;
}

// read one field assignment or IS in a node body (current token: the field name)
static int parseFieldStatement(Parser *p, hsvNode *node, int nstd) {
  const hsvToken ft = p->tok;
  int idx = fieldIndex(node->fields, nstd, ft.start, ft.len);
  int rc = next(p);
  if (rc) {
    return rc;
  }
  if (idx < 0) {
    // set_x / x_changed of an exposedField may be IS an interface event
    hstVrmlType type;
    hstVrmlAccess access;
    if (p->proto && hsv_tokIs(&p->tok, "IS") &&
        eventAlias(node->fields, nstd, &ft, &type, &access)) {
      char name[128];
      snprintf(name, sizeof name, "%.*s", (int)ft.len, ft.start);
      int iface;
      return parseIs(p, node->typeName, name, type, access, &iface);
    }
    return errAt(p, hsE_SYNTAX, ft.line, ft.column, "unknown field '%.*s' in %s", (int)ft.len,
                 ft.start, node->typeName);
  }
  hsvField *f = &node->fields[idx];
  if (hsv_tokIs(&p->tok, "IS")) {
    int iface;
    rc = parseIs(p, node->typeName, f->name, f->value.type, f->access, &iface);
    return rc ? rc : pushIs(p, idx, iface);
  }
  if (f->access == hsvEVENTIN || f->access == hsvEVENTOUT) {
    return errAt(p, hsE_SYNTAX, ft.line, ft.column,
                 "%s '%s' of %s cannot be given a value (only IS in a PROTO body)",
                 kAccessNames[f->access], f->name, node->typeName);
  }
  hsvValue v;
  rc = parseValue(p, f->value.type, f->name, node->typeName, &v);
  if (rc) {
    return rc;
  }
  f->value = v;
  f->given = 1;
  return 0;
}

// 1 if the name is a PROTO in scope or a built-in node type
static int isNodeType(const Parser *p, const char *name, size_t n) {
  return findProto(p, name, n) || hsv_findBuiltin(name, n);
}

// read a node to its closing brace. The type name is the current token when type is NULL;
// otherwise it is *type, already read, and the current token should be the node's '{' (the
// DEF name read as the type)
static int parseNode(Parser *p, const hsvToken *type, const char *defName, int line, int column,
                     hsvNode **out) {
  const hsvToken t = type ? *type : p->tok;
  const hsvProto *proto = findProto(p, t.start, t.len);
  const hsvNodeDecl *decl = proto ? NULL : hsv_findBuiltin(t.start, t.len);
  if (!proto && !decl) {
    return errAt(p, hsE_SYNTAX, t.line, t.column, "unknown node type '%.*s'", (int)t.len,
                 t.start);
  }
  if (++p->nesting > MAX_NESTING) {
    return errAt(p, hsE_SYNTAX, t.line, t.column, "nodes nested too deeply");
  }
  int rc = type ? 0 : next(p);
  if (rc) {
    return rc;
  }
  if (p->tok.kind != hsvTOK_LBRACE) {
    char what[96];
    snprintf(what, sizeof what, "'{' after %.*s", (int)t.len, t.start);
    return errExpected(p, what);
  }
  hsvNode *node = newNode(p, p->file, line, column);
  if (!node) {
    return p->err->code ? p->err->code : hsE_NOMEM;
  }
  node->typeName = proto ? proto->name : decl->name;
  node->defName = defName;
  node->proto = proto;
  node->file = p->file;
  node->line = line;
  node->column = column;
  node->nfield = proto ? proto->nfield : decl->nfield;
  if (node->nfield) {
    node->fields = arenaAlloc(p, (size_t)node->nfield * sizeof *node->fields);
    if (!node->fields) {
      return hsE_NOMEM;
    }
  }
  if (proto) {
    if (node->nfield) {
      memcpy(node->fields, proto->fields, (size_t)node->nfield * sizeof *node->fields);
    }
  } else {
    // built-in defaults are shared with the static table (read-only)
    for (int i = 0; i < decl->nfield; i++) {
      const hsvFieldDecl *d = &decl->fields[i];
      hsvField *f = &node->fields[i];
      memset(f, 0, sizeof *f);
      f->name = d->name;
      f->access = d->access;
      f->value.type = d->type;
      f->value.line = line;
      f->value.column = column;
      f->value.n = d->n;
      f->value.num = (double *)d->num;
      f->value.nnum = d->type == hsvSFIMAGE ? 3 : d->n * hsv_typeWidth(d->type);
      f->value.str = (char **)d->str;
    }
  }
  int isScript = decl && strcmp(decl->name, "Script") == 0;
  size_t isBase = p->nis, declBase = p->ndecl;
  if ((rc = next(p)) != 0) {
    return rc;
  }
  // field statements, plus ROUTE and PROTO, plus member declarations in a Script
  while (p->tok.kind != hsvTOK_RBRACE) {
    if (p->tok.kind != hsvTOK_ID) {
      char what[96];
      snprintf(what, sizeof what, "a field name or '}' in %s", node->typeName);
      return errExpected(p, what);
    }
    if (hsv_tokIs(&p->tok, "ROUTE")) {
      rc = skipRoute(p);
    } else if (hsv_tokIs(&p->tok, "PROTO")) {
      rc = parseProto(p);
    } else if (hsv_tokIs(&p->tok, "EXTERNPROTO")) {
      rc = skipExternProto(p);
    } else if (isScript && (hsv_tokIs(&p->tok, "field") || hsv_tokIs(&p->tok, "eventIn") ||
                            hsv_tokIs(&p->tok, "eventOut") ||
                            hsv_tokIs(&p->tok, "exposedField"))) {
      hsvField f;
      int iface;
      rc = parseDecl(p, "Script", node->fields, decl->nfield, declBase, 1, &f, &iface);
      if (!rc && iface >= 0) {
        rc = pushIs(p, decl->nfield + (int)(p->ndecl - declBase), iface);
      }
      if (!rc) {
        rc = pushDecl(p, &f);
      }
    } else {
      rc = parseFieldStatement(p, node, node->nfield);
    }
    if (rc) {
      return rc;
    }
  }
  p->nesting--;
  if ((rc = completeNode(p, node, isBase, declBase)) != 0) {
    return rc;
  }
  *out = node;
  return next(p);
}

static int parseNodeStatement(Parser *p, hsvNode **out) {
  const hsvToken t = p->tok;
  int rc;
  if (hsv_tokIs(&t, "DEF")) {
    if ((rc = next(p)) != 0) {
      return rc;
    }
    if (p->tok.kind != hsvTOK_ID) {
      return errExpected(p, "a name after DEF");
    }
    const hsvToken nameTok = p->tok;
    char *name = arenaStr(p, p->tok.start, p->tok.len);
    if (!name) {
      return hsE_NOMEM;
    }
    if ((rc = next(p)) != 0) {
      return rc;
    }
    const hsvToken *type = NULL;
    if (p->tok.kind == hsvTOK_LBRACE && isNodeType(p, nameTok.start, nameTok.len)) {
      // "DEF Transform { ... }": no node type, and the name is one. Choreonoid's reader then
      // takes the name as the type (a built-in node or a PROTO in scope); so do we, saying so
      type = &nameTok;
      warnAt(p, p->file, t.line, t.column,
             "DEF %s has no node type; read as a %s node named %s (as Choreonoid does)", name,
             name, name);
    } else if (p->tok.kind != hsvTOK_ID) {
      char what[160];
      snprintf(what, sizeof what, "a node type after DEF %s", name);
      return errExpected(p, what);
    }
    if ((rc = parseNode(p, type, name, t.line, t.column, out)) != 0) {
      return rc;
    }
    return defBind(p, p->scope, name, *out);
  }
  if (hsv_tokIs(&t, "USE")) {
    if ((rc = next(p)) != 0) {
      return rc;
    }
    if (p->tok.kind != hsvTOK_ID) {
      return errExpected(p, "a name after USE");
    }
    *out = defFind(p->scope, p->tok.start, p->tok.len);
    if (!*out) {
      return errAt(p, hsE_SYNTAX, p->tok.line, p->tok.column, "USE of undefined name '%.*s'",
                   (int)p->tok.len, p->tok.start);
    }
    return next(p);
  }
  if (t.kind != hsvTOK_ID) {
    return errExpected(p, "a node");
  }
  return parseNode(p, NULL, NULL, t.line, t.column, out);
}

// read "PROTO name [ interface ] { body }" (current token PROTO) into the current scope
static int parseProto(Parser *p) {
  const hsvToken kw = p->tok;
  int rc = next(p);
  if (rc) {
    return rc;
  }
  if (p->tok.kind != hsvTOK_ID) {
    return errExpected(p, "a PROTO name");
  }
  hsvProto *pr = arenaCalloc(p, sizeof *pr);
  if (!pr || !(pr->name = arenaStr(p, p->tok.start, p->tok.len))) {
    return hsE_NOMEM;
  }
  pr->file = p->file;
  pr->line = kw.line;
  pr->column = kw.column;
  char owner[160];
  snprintf(owner, sizeof owner, "PROTO %s", pr->name);
  if ((rc = next(p)) != 0) {
    return rc;
  }
  if (p->tok.kind != hsvTOK_LBRACKET) {
    return errExpected(p, "'[' after the PROTO name");
  }
  if ((rc = next(p)) != 0) {
    return rc;
  }
  // the interface; node-valued defaults are templates in a scope of their own
  Scope *outer = p->scope;
  const hsvProto *outerProto = p->proto;
  Scope ifaceScope = {.parent = outer};
  p->scope = &ifaceScope;
  p->proto = NULL;
  p->tmpl++;
  size_t declBase = p->ndecl;
  while (p->tok.kind != hsvTOK_RBRACKET) {
    hsvField f;
    int iface;
    if ((rc = parseDecl(p, owner, NULL, 0, declBase, 0, &f, &iface)) != 0 ||
        (rc = pushDecl(p, &f)) != 0) {
      return rc;
    }
  }
  pr->nfield = (int)(p->ndecl - declBase);
  if (pr->nfield) {
    pr->fields = arenaAlloc(p, (size_t)pr->nfield * sizeof *pr->fields);
    if (!pr->fields) {
      return hsE_NOMEM;
    }
    memcpy(pr->fields, p->decls + declBase, (size_t)pr->nfield * sizeof *pr->fields);
  }
  p->ndecl = declBase;
  if ((rc = next(p)) != 0) {
    return rc;
  }
  if (p->tok.kind != hsvTOK_LBRACE) {
    return errExpected(p, "'{' to open the PROTO body");
  }
  if ((rc = next(p)) != 0) {
    return rc;
  }
  // the body, in its own scope, with IS referring to this PROTO
  Scope bodyScope = {.parent = outer};
  p->scope = &bodyScope;
  p->proto = pr;
  size_t nodeBase = p->nnode;
  if ((rc = parseStatements(p, 1)) != 0) {
    return rc;
  }
  // an empty body declares an interface only (OpenHRP's ExtraJoint): its instances are
  // nodes of their own type with no body
  if ((rc = popNodes(p, nodeBase, &pr->body, &pr->nbody)) != 0) {
    return rc;
  }
  p->scope = outer;
  p->proto = outerProto;
  p->tmpl--;
  // declared once complete, so a PROTO cannot instantiate itself
  pr->next = outer->protos;
  outer->protos = pr;
  return next(p);
}

// read statements up to the end of file, or up to a closing brace (not consumed); node
// statements are pushed on the node stack
static int parseStatements(Parser *p, int untilBrace) {
  for (;;) {
    int rc;
    if (p->tok.kind == hsvTOK_EOF) {
      return untilBrace ? errExpected(p, "'}'") : 0;
    }
    if (p->tok.kind == hsvTOK_RBRACE && untilBrace) {
      return 0;
    }
    if (p->tok.kind != hsvTOK_ID) {
      return errExpected(p, "a node, PROTO or ROUTE");
    }
    if (hsv_tokIs(&p->tok, "PROTO")) {
      rc = parseProto(p);
    } else if (hsv_tokIs(&p->tok, "EXTERNPROTO")) {
      rc = skipExternProto(p);
    } else if (hsv_tokIs(&p->tok, "ROUTE")) {
      rc = skipRoute(p);
    } else {
      hsvNode *node;
      rc = parseNodeStatement(p, &node);
      if (!rc) {
        rc = pushNode(p, node);
      }
    }
    if (rc) {
      return rc;
    }
  }
}

//---------------------------------- files and Inline ------------------------------------------

// read a whole file into a NUL-terminated hsu_malloc buffer; 0, hsE_NOMEM, or hsE_IO with
// *sysErr set (a regular file only, within the default size limit: see hsu_readFileErrno)
static int readFile(const char *path, char **text, size_t *len, int *sysErr) {
  return hsu_readFileErrno(path, 0, text, len, sysErr);
}

// path resolved against the directory of base (if relative) into out
static int joinPath(const char *base, const char *path, char *out, size_t size) {
  if (path[0] == '/') {
    return snprintf(out, size, "%s", path) >= (int)size ? -1 : 0;
  }
  const char *slash = strrchr(base, '/');
  int dirLen = slash ? (int)(slash - base) : 1;
  const char *dir = slash ? base : ".";
  if (slash == base) {
    dirLen = 0;  // a file in the root directory
  }
  return snprintf(out, size, "%.*s/%s", dirLen, dir, path) >= (int)size ? -1 : 0;
}

static const char *baseName(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

// read the statements of the file at path (absolute, arena string) from text into roots
static int parseFileText(Parser *p, const char *path, const char *text, size_t len,
                         hsvNode ***roots, int *nroot) {
  Scope fileScope = {0};
  p->file = path;
  p->scope = &fileScope;
  p->proto = NULL;
  p->tmpl = 0;
  int rc = hsv_lexInit(&p->lex, text, len, path, p->err);
  if (!rc && p->lex.noHeader) {
    warnAt(p, path, 1, 1, "no '#VRML V2.0 utf8' header; read as VRML97");
  }
  if (!rc) {
    rc = next(p);
  }
  size_t base = p->nnode;
  if (!rc) {
    rc = parseStatements(p, 0);
  }
  if (!rc) {
    rc = popNodes(p, base, roots, nroot);
  }
  p->scope = NULL;  // fileScope ends here
  return rc;
}

// push a file on the chain of files being read
static int pushChain(Parser *p, const char *path) {
  if (p->nchain == p->capChain) {
    const char **d = grow(p, (void *)p->chain, &p->capChain, sizeof *d);
    if (!d) {
      return hsE_NOMEM;
    }
    p->chain = d;
  }
  p->chain[p->nchain++] = path;
  return 0;
}

// parse the file at abs for an Inline node, or reuse it. When the file cannot be read,
// returns 0 with *loaded = 0 and *sysErr set, so the caller can try the next url.
static int inlineFile(Parser *p, hsvNode *node, const char *abs, int *loaded, int *sysErr) {
  int depth = (int)p->nchain;  // Inline level of the new file
  *loaded = 0;
  // a file read before is reused
  for (const InlineFile *f = p->inlined; f; f = f->next) {
    if (strcmp(f->path, abs) == 0) {
      if (depth + f->height > p->opt.maxInlineDepth) {
        return errNode(p, hsE_MODEL, node, "Inline nesting deeper than %d levels",
                       p->opt.maxInlineDepth);
      }
      if (depth + f->height > p->deepest) {
        p->deepest = depth + f->height;
      }
      node->inlined = f->roots;
      node->ninlined = f->nroot;
      node->inlineUrl = f->path;
      *loaded = 1;
      return 0;
    }
  }
  if (depth > p->opt.maxInlineDepth) {
    return errNode(p, hsE_MODEL, node, "Inline nesting deeper than %d levels",
                   p->opt.maxInlineDepth);
  }
  char *text;
  size_t len;
  int rc = readFile(abs, &text, &len, sysErr);
  if (rc == hsE_NOMEM) {
    return errNode(p, hsE_NOMEM, node, "out of memory");
  }
  if (rc) {
    return 0;  // unreadable
  }
  InlineFile *entry = arenaCalloc(p, sizeof *entry);
  const char *path = entry ? arenaStr(p, abs, strlen(abs)) : NULL;
  if (!path || (rc = pushChain(p, path)) != 0) {
    hsu_free(text);
    return hsE_NOMEM;
  }
  // read it with the parser's per-file state saved
  hsvLexer lex = p->lex;
  hsvToken tok = p->tok;
  const char *file = p->file;
  Scope *scope = p->scope;
  const hsvProto *proto = p->proto;
  int tmpl = p->tmpl, deepest = p->deepest;
  p->deepest = depth;
  rc = parseFileText(p, path, text, len, &entry->roots, &entry->nroot);
  hsu_free(text);
  p->nchain--;
  entry->height = p->deepest - depth;
  if (p->deepest < deepest) {
    p->deepest = deepest;
  }
  p->lex = lex;
  p->tok = tok;
  p->file = file;
  p->scope = scope;
  p->proto = proto;
  p->tmpl = tmpl;
  if (rc) {
    return rc;
  }
  entry->path = path;
  entry->next = p->inlined;
  p->inlined = entry;
  node->inlined = entry->roots;
  node->ninlined = entry->nroot;
  node->inlineUrl = path;
  *loaded = 1;
  return 0;
}

// load an Inline node's file: the first of its urls that can be read
static int loadInline(Parser *p, hsvNode *node) {
  const hsvValue *url = hsv_value(node, "url", hsvMFSTRING);
  if (!url || url->n == 0) {
    return 0;
  }
  struct {
    char local[PATH_MAX], path[PATH_MAX], abs[PATH_MAX], tried[512];
  } *buf = hsu_malloc(sizeof *buf);
  if (!buf) {
    return errNode(p, hsE_NOMEM, node, "out of memory");
  }
  char *local = buf->local, *path = buf->path, *abs = buf->abs, *tried = buf->tried;
  tried[0] = 0;
  int rc = 0, loaded = 0;
  for (int i = 0; i < url->n && !loaded && !rc; i++) {
    const char *why = NULL;
    int sysErr = 0;
    if (hsu_urlToPath(url->str[i], local, PATH_MAX) != 0 ||
        joinPath(node->file, local, path, PATH_MAX) != 0) {
      why = "unsupported URL";
      snprintf(path, PATH_MAX, "%s", url->str[i]);
    } else if (!realpath(path, abs)) {
      sysErr = errno;
    } else {
      // a file already being read means a cycle
      for (size_t j = 0; j < p->nchain && !rc; j++) {
        if (strcmp(p->chain[j], abs) == 0) {
          char msg[400] = "";
          size_t n = 0;
          for (size_t k = j; k < p->nchain && n < sizeof msg; k++) {
            n += (size_t)snprintf(msg + n, sizeof msg - n, "%s -> ", baseName(p->chain[k]));
          }
          rc = errNode(p, hsE_MODEL, node, "Inline cycle: %s%s", msg, baseName(abs));
        }
      }
      if (!rc) {
        rc = inlineFile(p, node, abs, &loaded, &sysErr);
      }
    }
    if (!rc && !loaded) {
      // a long list is cut at the buffer's end: the first paths tried are the useful ones
      size_t n = strlen(tried);
      char problem[200];
      if (!why) {
        why = hsu_fileProblem(path, 0, sysErr, problem, sizeof problem);
      }
      if (snprintf(tried + n, sizeof buf->tried - n, "%s'%s' (%s)", n ? ", " : "", path, why) <
          0) {
        tried[n] = 0;
      }
    }
  }
  if (!rc && !loaded) {
    rc = errNode(p, hsE_IO, node, "cannot load Inline: tried %s", tried);
  }
  hsu_free(buf);
  return rc;
}

//---------------------------------- public entry points ---------------------------------------

void hsv_defaultOptions(hsvOptions *opt) {
  opt->loadInlines = 1;
  opt->maxInlineDepth = 32;
  opt->maxNodes = 2000000;
}

// parse text as the file at abs and build the scene; copies the error to err on failure
static hsvScene *parseTop(const char *text, size_t len, const char *abs, const hsvOptions *opt,
                          hsError *err) {
  hsError local;
  hsu_clearError(&local);
  Parser p;
  memset(&p, 0, sizeof p);
  p.err = &local;
  if (opt) {
    p.opt = *opt;
  } else {
    hsv_defaultOptions(&p.opt);
  }
  p.file = abs;
  p.arena = hsv_arenaMake();
  hsvScene *scene = NULL;
  const char *file = NULL;
  int rc = hsE_NOMEM;
  if (p.arena && (scene = hsv_arenaCalloc(p.arena, sizeof *scene)) != NULL &&
      (file = hsv_arenaStrndup(p.arena, abs, strlen(abs))) != NULL) {
    rc = pushChain(&p, file);
    if (!rc) {
      rc = parseFileText(&p, file, text, len, &scene->roots, &scene->nroot);
    }
  }
  if (rc && !local.code) {
    HS_ERR_AT(&local, hsE_NOMEM, abs, 0, 0, "out of memory");
  }
  if (!rc && p.nwarn) {
    hsvWarning *w = hsv_arenaAlloc(p.arena, p.nwarn * sizeof *w);
    if (w) {
      memcpy(w, p.warns, p.nwarn * sizeof *w);
      scene->warnings = w;
      scene->nwarning = (int)p.nwarn;
    }
  }
  hsu_free(p.warns);
  hsu_free(p.nums);
  hsu_free(p.nodes);
  hsu_free(p.strs);
  hsu_free(p.isPairs);
  hsu_free(p.decls);
  hsu_free((void *)p.chain);
  if (rc) {
    hsv_arenaFree(p.arena);
    if (err && !err->code) {
      *err = local;
    }
    return NULL;
  }
  scene->file = file;
  scene->nnode = p.made;
  scene->arena = p.arena;
  return scene;
}

// a local path from a plain path or file:// URL, made absolute (resolved if it exists) into
// abs (PATH_MAX bytes, work another PATH_MAX); returns 0 if the file exists, else the errno of
// the failed resolution (abs is then the path joined to the working directory)
static int absolutePath(const char *path, char *abs, char *work) {
  if (hsu_urlToPath(path, work, PATH_MAX) != 0) {
    snprintf(work, PATH_MAX, "%s", path);
  }
  if (realpath(work, abs)) {
    return 0;
  }
  int sysErr = errno ? errno : ENOENT;
  size_t n = 0;
  if (work[0] != '/' && getcwd(abs, PATH_MAX)) {
    n = strlen(abs);
  }
  snprintf(abs + n, PATH_MAX - n, "%s%s", n ? "/" : "", work);
  return sysErr;
}

hsvScene *hsv_parseFile(const char *path, const hsvOptions *opt, hsError *err) {
  if (!path) {
    HS_ERR(err, hsE_INVALID, "no VRML file given");
    return NULL;
  }
  char *abs = hsu_malloc(2 * PATH_MAX);
  if (!abs) {
    HS_ERR_AT(err, hsE_NOMEM, path, 0, 0, "out of memory");
    return NULL;
  }
  hsvScene *scene = NULL;
  char *text = NULL;
  size_t len = 0;
  int sysErr = absolutePath(path, abs, abs + PATH_MAX);
  int rc = sysErr ? hsE_IO : readFile(abs, &text, &len, &sysErr);
  if (rc == hsE_NOMEM) {
    HS_ERR_AT(err, hsE_NOMEM, abs, 0, 0, "out of memory");
  } else if (rc) {
    char why[200];
    hsu_fileProblem(abs, 0, sysErr, why, sizeof why);
    HS_ERR_AT(err, hsE_IO, path, 0, 0, "cannot read '%s': %s", path, why);
  } else {
    scene = parseTop(text, len, abs, opt, err);
  }
  hsu_free(text);
  hsu_free(abs);
  return scene;
}

hsvScene *hsv_parseString(const char *text, const char *virtualPath, const hsvOptions *opt,
                          hsError *err) {
  if (!text) {
    HS_ERR(err, hsE_INVALID, "no VRML text given");
    return NULL;
  }
  if (!virtualPath) {
    return parseTop(text, strlen(text), "<string>", opt, err);
  }
  char *abs = hsu_malloc(2 * PATH_MAX);
  if (!abs) {
    HS_ERR_AT(err, hsE_NOMEM, virtualPath, 0, 0, "out of memory");
    return NULL;
  }
  absolutePath(virtualPath, abs, abs + PATH_MAX);
  hsvScene *scene = parseTop(text, strlen(text), abs, opt, err);
  hsu_free(abs);
  return scene;
}

void hsv_freeScene(hsvScene *scene) {
  if (scene) {
    hsv_arenaFree(scene->arena);
  }
}

//---------------------------------- getters ---------------------------------------------------

const hsvField *hsv_field(const hsvNode *node, const char *name) {
  if (!node || !name) {
    return NULL;
  }
  for (int i = 0; i < node->nfield; i++) {
    // the first character decides most comparisons without a call
    if (node->fields[i].name[0] == name[0] && strcmp(node->fields[i].name, name) == 0) {
      return &node->fields[i];
    }
  }
  return NULL;
}

const hsvValue *hsv_value(const hsvNode *node, const char *name, hstVrmlType type) {
  const hsvField *f = hsv_field(node, name);
  return f && f->value.type == type ? &f->value : NULL;
}

const hsvNode *hsv_resolve(const hsvNode *node, const char *const *keep) {
  while (node && node->proto && node->nbody > 0) {
    for (const char *const *k = keep; k && *k; k++) {
      if (strcmp(*k, node->typeName) == 0) {
        return node;
      }
    }
    node = node->body[0];
  }
  return node;
}

// the first number of a field of one of two types, or NULL
static const double *firstNumbers(const hsvNode *node, const char *name, hstVrmlType a,
                                  hstVrmlType b, int count) {
  const hsvField *f = hsv_field(node, name);
  if (!f || (f->value.type != a && f->value.type != b) || f->value.nnum < count) {
    return NULL;
  }
  return f->value.num;
}

int hsv_getBool(const hsvNode *node, const char *name, int *out) {
  const double *v = firstNumbers(node, name, hsvSFBOOL, hsvSFBOOL, 1);
  if (v) {
    *out = v[0] != 0;
  }
  return v != NULL;
}

int hsv_getInt(const hsvNode *node, const char *name, int *out) {
  const double *v = firstNumbers(node, name, hsvSFINT32, hsvSFINT32, 1);
  if (v) {
    // hexadecimal values above INT32_MAX wrap like the 32-bit pattern they spell
    *out = (int)(int32_t)(uint32_t)(int64_t)v[0];
  }
  return v != NULL;
}

int hsv_getDouble(const hsvNode *node, const char *name, double *out) {
  const double *v = firstNumbers(node, name, hsvSFFLOAT, hsvSFTIME, 1);
  if (v) {
    *out = v[0];
  }
  return v != NULL;
}

int hsv_getVec3(const hsvNode *node, const char *name, double out[3]) {
  const double *v = firstNumbers(node, name, hsvSFVEC3F, hsvSFCOLOR, 3);
  if (v) {
    memcpy(out, v, 3 * sizeof *out);
  }
  return v != NULL;
}

int hsv_getRotation(const hsvNode *node, const char *name, double out[4]) {
  const double *v = firstNumbers(node, name, hsvSFROTATION, hsvSFROTATION, 4);
  if (v) {
    memcpy(out, v, 4 * sizeof *out);
  }
  return v != NULL;
}

const char *hsv_getString(const hsvNode *node, const char *name) {
  const hsvValue *v = hsv_value(node, name, hsvSFSTRING);
  return v && v->n > 0 ? v->str[0] : NULL;
}
