// vrml_lex.c - the VRML97 tokenizer: identifiers, numbers, strings and punctuation with
// their line and column.
//
// The lexer works on a whole file held in memory (NUL-terminated) and never allocates. It
// checks the "#VRML V2.0" header (a file without any header is read on and flagged, as OpenHRP
// reads it; another version is refused), then hands out one token per call: whitespace (space,
// tab, CR, LF, comma) and '#' comments are skipped; lines are counted on LF, CR LF and lone
// CR; columns count characters, so UTF-8 continuation bytes seen on the current line (in
// strings and identifiers) are subtracted. Numbers are converted on the spot: a decimal with at
// most 19 significant digits whose value is below 2^53 and whose decimal exponent is within
// +-22 is computed exactly with one rounding (m * 10^e), which is the common case; anything
// else goes through strtod (which reads '.' as the decimal point in the C locale, the locale of
// a process that never calls setlocale). Strings are only delimited here; hsv_lexDecodeString
// undoes the \" and \\ escapes when the parser stores them.

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "vrml_private.h"

// exact powers of ten for the fast number path
static const double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static const char kHeader[] = "#VRML V2.0";

// 1 if c may appear in an identifier after its first character (VRML97 IdRestChars)
static int isIdRest(unsigned char c) {
  if (c <= 0x20 || c == 0x7f) {
    return 0;
  }
  switch (c) {
    case '"':
    case '#':
    case '\'':
    case ',':
    case '.':
    case '[':
    case '\\':
    case ']':
    case '{':
    case '}':
      return 0;
    default:
      return 1;
  }
}

// 1 if c may start an identifier (VRML97 IdFirstChar: no digit, '+' or '-' either)
static int isIdFirst(unsigned char c) {
  return isIdRest(c) && !(c >= '0' && c <= '9') && c != '+' && c != '-';
}

// 1 if c may follow a number directly
static int endsNumber(unsigned char c) {
  switch (c) {
    case 0:
    case ' ':
    case '\t':
    case '\r':
    case '\n':
    case ',':
    case '[':
    case ']':
    case '{':
    case '}':
    case '#':
    case '"':
      return 1;
    default:
      return 0;
  }
}

static int isDigit(unsigned char c) {
  return c >= '0' && c <= '9';
}

// record an error at line/column of the lexer's file
static int lexError(hsvLexer *lex, int line, int column, const char *what) {
  return HS_ERR_AT(lex->err, hsE_SYNTAX, lex->file, line, column, "%s", what);
}

int hsv_lexInit(hsvLexer *lex, const char *text, size_t len, const char *file, hsError *err) {
  memset(lex, 0, sizeof *lex);
  lex->text = text;
  lex->end = text + len;
  lex->p = text;
  lex->lineStart = text;
  lex->line = 1;
  lex->file = file;
  lex->err = err;
  const char *p = text;
  // a UTF-8 byte order mark is tolerated
  if (len >= 3 && (unsigned char)p[0] == 0xef && (unsigned char)p[1] == 0xbb &&
      (unsigned char)p[2] == 0xbf) {
    p += 3;
  }
  // "#VRML V2.0" and any encoding word after it (OpenHRP checks only the version)
  size_t hn = sizeof kHeader - 1;
  size_t rest = (size_t)(lex->end - p);
  int ok = rest >= hn && memcmp(p, kHeader, hn) == 0 &&
           (rest == hn || p[hn] == ' ' || p[hn] == '\t' || p[hn] == '\n' || p[hn] == '\r');
  if (!ok) {
    // name what was found when it looks like a header of another version
    if (rest >= 6 && memcmp(p, "#VRML ", 6) == 0) {
      size_t n = 0;
      while (p + n < lex->end && p[n] != '\n' && p[n] != '\r' && n < 40) {
        n++;
      }
      return HS_ERR_AT(err, hsE_SYNTAX, file, 1, 1,
                       "unsupported VRML header '%.*s' (need '%s')", (int)n, p, kHeader);
    }
    // no header at all: read on (OpenHRP does); the parser warns
    lex->noHeader = 1;
    lex->p = p;
    return 0;
  }
  // the rest of the header line is a comment
  while (*p && *p != '\n' && *p != '\r') {
    p++;
  }
  lex->p = p;
  return 0;
}

// scan the number at lex->p into tok; the lexer position advances past it
static int scanNumber(hsvLexer *lex, hsvToken *tok) {
  const char *s = lex->p, *q = s;
  int neg = 0;
  if (*q == '+' || *q == '-') {
    neg = *q == '-';
    q++;
  }
  if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) {
    // hexadecimal integer
    q += 2;
    uint64_t v = 0;
    int nd = 0;
    for (;; q++) {
      unsigned char c = (unsigned char)*q;
      int d;
      if (isDigit(c)) {
        d = c - '0';
      } else if (c >= 'a' && c <= 'f') {
        d = c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        d = c - 'A' + 10;
      } else {
        break;
      }
      if (v >> 56) {
        return lexError(lex, tok->line, tok->column, "hexadecimal number too large");
      }
      v = v * 16 + (uint64_t)d;
      nd++;
    }
    if (nd == 0 || !endsNumber((unsigned char)*q)) {
      return lexError(lex, tok->line, tok->column, "malformed number");
    }
    tok->kind = hsvTOK_INT;
    tok->num = neg ? -(double)v : (double)v;
    tok->len = (size_t)(q - s);
    lex->p = q;
    return 0;
  }
  // decimal: mantissa digits, fraction, exponent
  uint64_t m = 0;
  int nd = 0, exp10 = 0, truncated = 0, digits = 0, isInt = 1;
  while (isDigit((unsigned char)*q)) {
    int d = *q++ - '0';
    digits++;
    if (nd < 19) {
      m = m * 10 + (uint64_t)d;
      nd += m != 0;
    } else {
      exp10++;
      truncated |= d != 0;
    }
  }
  if (*q == '.') {
    isInt = 0;
    q++;
    while (isDigit((unsigned char)*q)) {
      int d = *q++ - '0';
      digits++;
      if (nd < 19) {
        m = m * 10 + (uint64_t)d;
        nd += m != 0;
        exp10--;
      } else {
        truncated |= d != 0;
      }
    }
  }
  if (digits == 0) {
    return lexError(lex, tok->line, tok->column, "malformed number");
  }
  if (*q == 'e' || *q == 'E') {
    isInt = 0;
    q++;
    int eneg = 0, e = 0, ed = 0;
    if (*q == '+' || *q == '-') {
      eneg = *q == '-';
      q++;
    }
    while (isDigit((unsigned char)*q)) {
      if (e < 100000) {
        e = e * 10 + (*q - '0');
      }
      q++;
      ed++;
    }
    if (ed == 0) {
      return lexError(lex, tok->line, tok->column, "malformed number");
    }
    exp10 += eneg ? -e : e;
  }
  if (!endsNumber((unsigned char)*q)) {
    return lexError(lex, tok->line, tok->column, "malformed number");
  }
  double v;
  if (m == 0) {
    v = 0.0;
  } else if (!truncated && m <= (UINT64_C(1) << 53) && exp10 >= -22 && exp10 <= 22) {
    // exact operands, one rounding: correctly rounded
    v = exp10 >= 0 ? (double)m * kPow10[exp10] : (double)m / kPow10[-exp10];
  } else {
    // rare: many digits or a large exponent; the text ends at a delimiter strtod stops at
    v = fabs(strtod(s, NULL));
    if (!isfinite(v)) {
      return lexError(lex, tok->line, tok->column, "number out of range");
    }
  }
  tok->kind = isInt ? hsvTOK_INT : hsvTOK_FLOAT;
  tok->num = neg ? -v : v;
  tok->len = (size_t)(q - s);
  lex->p = q;
  return 0;
}

// scan the string at lex->p (the opening quote) into tok
static int scanString(hsvLexer *lex, hsvToken *tok) {
  const char *q = lex->p + 1;
  for (;;) {
    unsigned char c = (unsigned char)*q;
    if (c == '"') {
      q++;
      break;
    }
    if (c == 0 && q >= lex->end) {
      return lexError(lex, tok->line, tok->column, "unterminated string");
    }
    if (c == '\\' && (q[1] == '"' || q[1] == '\\')) {
      q += 2;
      continue;
    }
    q++;
    if (c == '\n' || (c == '\r' && *q != '\n')) {
      lex->line++;
      lex->lineStart = q;
      lex->lineExtra = 0;
    } else if ((c & 0xc0) == 0x80) {
      lex->lineExtra++;
    }
  }
  tok->kind = hsvTOK_STRING;
  tok->len = (size_t)(q - lex->p);
  lex->p = q;
  return 0;
}

// a sign followed by nan, inf or infinity (any case), as C libraries print them ("-nan"): a
// FLOAT token of that value; any other signed word is a malformed number
static int scanSignedWord(hsvLexer *lex, hsvToken *tok) {
  static const char *const words[] = {"nan", "inf", "infinity"};
  const char *q = lex->p + 1;
  size_t n = 0;
  while (isalpha((unsigned char)q[n])) {
    n++;
  }
  for (int w = 0; w < 3; w++) {
    if (n == strlen(words[w]) && strncasecmp(q, words[w], n) == 0 &&
        endsNumber((unsigned char)q[n])) {
      tok->kind = hsvTOK_FLOAT;
      tok->num = w == 0 ? NAN : (lex->p[0] == '-' ? -INFINITY : INFINITY);
      tok->len = n + 1;
      lex->p = q + n;
      return 0;
    }
  }
  return lexError(lex, tok->line, tok->column, "malformed number");
}

int hsv_lexNext(hsvLexer *lex, hsvToken *tok) {
  const char *p = lex->p;
  // skip whitespace and comments
  for (;;) {
    unsigned char c = (unsigned char)*p;
    if (c == ' ' || c == ',' || c == '\t') {
      p++;
    } else if (c == '\n' || c == '\r') {
      p += (c == '\r' && p[1] == '\n') ? 2 : 1;
      lex->line++;
      lex->lineStart = p;
      lex->lineExtra = 0;
    } else if (c == '#') {
      while (*p && *p != '\n' && *p != '\r') {
        p++;
      }
    } else {
      break;
    }
  }
  lex->p = p;
  tok->start = p;
  tok->len = 1;
  tok->line = lex->line;
  tok->column = (int)(p - lex->lineStart) - lex->lineExtra + 1;
  tok->num = 0;
  unsigned char c = (unsigned char)*p;
  switch (c) {
    case 0:
      if (p >= lex->end) {
        tok->kind = hsvTOK_EOF;
        tok->len = 0;
        return 0;
      }
      return lexError(lex, tok->line, tok->column, "unexpected NUL character");
    case '[':
      tok->kind = hsvTOK_LBRACKET;
      lex->p++;
      return 0;
    case ']':
      tok->kind = hsvTOK_RBRACKET;
      lex->p++;
      return 0;
    case '{':
      tok->kind = hsvTOK_LBRACE;
      lex->p++;
      return 0;
    case '}':
      tok->kind = hsvTOK_RBRACE;
      lex->p++;
      return 0;
    case '"':
      return scanString(lex, tok);
    case '.':
      if (isDigit((unsigned char)p[1])) {
        return scanNumber(lex, tok);
      }
      tok->kind = hsvTOK_PERIOD;
      lex->p++;
      return 0;
    case '+':
    case '-':
      if (isDigit((unsigned char)p[1]) || (p[1] == '.' && isDigit((unsigned char)p[2]))) {
        return scanNumber(lex, tok);
      }
      return scanSignedWord(lex, tok);
    default:
      break;
  }
  if (isDigit(c)) {
    return scanNumber(lex, tok);
  }
  if (!isIdFirst(c)) {
    char what[64];
    if (isprint(c)) {
      snprintf(what, sizeof what, "unexpected character '%c'", c);
    } else {
      snprintf(what, sizeof what, "unexpected character 0x%02x", c);
    }
    return lexError(lex, tok->line, tok->column, what);
  }
  // identifier; continuation bytes of UTF-8 characters do not count as columns
  const char *q = p;
  int extra = 0;
  while (isIdRest((unsigned char)*q)) {
    extra += ((unsigned char)*q & 0xc0) == 0x80;
    q++;
  }
  lex->lineExtra += extra;
  tok->kind = hsvTOK_ID;
  tok->len = (size_t)(q - p);
  lex->p = q;
  return 0;
}

size_t hsv_lexDecodeString(const hsvToken *tok, char *out) {
  const char *q = tok->start + 1, *end = tok->start + tok->len - 1;
  size_t n = 0;
  while (q < end) {
    if (q[0] == '\\' && q + 1 < end && (q[1] == '"' || q[1] == '\\')) {
      q++;
    }
    out[n++] = *q++;
  }
  out[n] = 0;
  return n;
}

int hsv_tokIs(const hsvToken *tok, const char *word) {
  size_t n = strlen(word);
  return tok->kind == hsvTOK_ID && tok->len == n && memcmp(tok->start, word, n) == 0;
}

const char *hsv_tokDescribe(const hsvToken *tok, char *buf, size_t size) {
  int n = tok->len > 40 ? 40 : (int)tok->len;
  switch (tok->kind) {
    case hsvTOK_EOF:
      snprintf(buf, size, "end of file");
      break;
    case hsvTOK_ID:
      snprintf(buf, size, "'%.*s'", n, tok->start);
      break;
    case hsvTOK_INT:
    case hsvTOK_FLOAT:
      snprintf(buf, size, "number %.*s", n, tok->start);
      break;
    case hsvTOK_STRING:
      snprintf(buf, size, "string %.*s%s", n, tok->start, (int)tok->len > n ? "...\"" : "");
      break;
    default:
      snprintf(buf, size, "'%c'", tok->start[0]);
      break;
  }
  return buf;
}
