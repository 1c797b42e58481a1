// vrml_private.h - internals shared by the files of the VRML97 reader (see vrml.h).
//
// The reader is split in three: vrml_lex.c turns text into tokens with line and column,
// vrml_nodes.c holds the arena and the table of the 54 VRML97 built-in node types with
// their fields and defaults, and vrml_parse.c builds the scene graph (DEF/USE, PROTO with
// IS, Inline, ROUTE) and implements the getters. Nothing here is visible outside model/.

#ifndef HRPSIM_MODEL_VRML_PRIVATE_H_
#define HRPSIM_MODEL_VRML_PRIVATE_H_

#include <stddef.h>

#include "vrml.h"

#ifdef __cplusplus
extern "C" {
#endif

//---------------------------------- arena -----------------------------------------------------

// a bump allocator: many small blocks out of large chunks, all released at once
typedef struct hsvArena hsvArena;

// an empty arena, or NULL when out of memory
hsvArena *hsv_arenaMake(void);

// release every block of the arena and the arena itself; NULL is a no-op
void hsv_arenaFree(hsvArena *arena);

// size bytes aligned for any type, uninitialised; NULL when out of memory
void *hsv_arenaAlloc(hsvArena *arena, size_t size);

// like hsv_arenaAlloc but zero-filled
void *hsv_arenaCalloc(hsvArena *arena, size_t size);

// a NUL-terminated copy of the n bytes at s; NULL when out of memory
char *hsv_arenaStrndup(hsvArena *arena, const char *s, size_t n);

//---------------------------------- types -----------------------------------------------------

// 1 for the MF types
int hsv_isMF(hstVrmlType type);

// the single-valued type of an MF type (MFVec3f -> SFVec3f); SF types map to themselves
hstVrmlType hsv_elemType(hstVrmlType type);

// the type called name (n bytes), or -1 if there is none
int hsv_typeByName(const char *name, size_t n);

//---------------------------------- tokens ----------------------------------------------------

typedef enum hstVrmlToken {
  hsvTOK_EOF = 0,
  hsvTOK_ID,        // an identifier or keyword (DEF, TRUE, field, ...)
  hsvTOK_INT,       // an integer: decimal or 0x hex, optional sign
  hsvTOK_FLOAT,     // a number with a point or an exponent
  hsvTOK_STRING,    // "..." (start/len include the quotes; decode with hsv_lexDecodeString)
  hsvTOK_LBRACKET,  // [
  hsvTOK_RBRACKET,  // ]
  hsvTOK_LBRACE,    // {
  hsvTOK_RBRACE,    // }
  hsvTOK_PERIOD     // . (in ROUTE a.b)
} hstVrmlToken;

// one token; start points into the lexer's text
typedef struct hsvToken {
  hstVrmlToken kind;
  const char *start;  // first byte
  size_t len;         // bytes
  int line, column;   // 1-based position of the first byte (columns count characters)
  double num;         // the value of INT and FLOAT tokens
} hsvToken;

// a lexer over one file held in memory; text must be NUL-terminated at end
typedef struct hsvLexer {
  const char *text, *end;  // the whole file, end points at its terminating NUL
  const char *p;           // next byte to read
  const char *lineStart;   // first byte of the current line
  int line;                // current line, 1-based
  int lineExtra;           // UTF-8 continuation bytes between lineStart and p
  const char *file;        // for messages
  hsError *err;            // where errors go (not NULL)
  int noHeader;            // 1: the file has no "#VRML V2.0" header (read anyway)
} hsvLexer;

// start lexing text (len bytes, NUL-terminated) from file; checks the "#VRML V2.0" header and
// leaves the lexer after it. A file with no header at all is accepted with lex->noHeader set;
// a header of another version is refused. Returns 0, or a negative code with err filled.
int hsv_lexInit(hsvLexer *lex, const char *text, size_t len, const char *file, hsError *err);

// read the next token into tok; returns 0, or a negative code with err filled at the bad text
int hsv_lexNext(hsvLexer *lex, hsvToken *tok);

// decode a STRING token's escapes (\" and \\) into out, which needs tok->len bytes; returns the
// decoded length (out is NUL-terminated)
size_t hsv_lexDecodeString(const hsvToken *tok, char *out);

// 1 if the token is the identifier word
int hsv_tokIs(const hsvToken *tok, const char *word);

// a short description of a token for messages ("'Transform'", "number 1.5", "end of file")
const char *hsv_tokDescribe(const hsvToken *tok, char *buf, size_t size);

//---------------------------------- built-in node types ---------------------------------------

// one field of a built-in node type with its VRML97 default
typedef struct hsvFieldDecl {
  const char *name;
  hstVrmlAccess access;
  hstVrmlType type;
  int n;                     // elements in the default (0 for [] and NULL, and for events)
  const double *num;         // numeric defaults: n * width numbers (SFImage: 3)
  const char *const *str;    // string defaults: n strings
} hsvFieldDecl;

// one built-in node type
typedef struct hsvNodeDecl {
  const char *name;
  const hsvFieldDecl *fields;
  int nfield;
} hsvNodeDecl;

// number of built-in node types (54)
int hsv_builtinCount(void);

// the i-th built-in node type, in alphabetical order
const hsvNodeDecl *hsv_builtin(int i);

// the built-in node type called name (n bytes), or NULL
const hsvNodeDecl *hsv_findBuiltin(const char *name, size_t n);

//---------------------------------- scene internals -------------------------------------------

// every node is allocated as an hsvNodeX; the public part comes first so the pointers convert
typedef struct hsvNodeX {
  hsvNode pub;
  int *isMap;       // PROTO body templates: per field, the interface field it IS, or -1; or NULL
  unsigned epoch;   // deep copy bookkeeping: copy is valid while epoch matches the copy's
  hsvNode *copy;
} hsvNodeX;

// a PROTO declaration
typedef struct hsvProto {
  const char *name;
  int nfield;
  hsvField *fields;   // the interface, in declaration order, with defaults (events: empty)
  int nbody;
  hsvNode **body;     // the body as written: templates with IS maps, instances not expanded
  const char *file;
  int line, column;   // where the PROTO keyword was written
  struct hsvProto *next;  // the previous PROTO of the same scope
} hsvProto;

#ifdef __cplusplus
}
#endif
#endif  // HRPSIM_MODEL_VRML_PRIVATE_H_
