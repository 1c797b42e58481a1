// test_vrml_lex.c - the VRML97 tokenizer: header check, token kinds with line and column, exact
// number conversion, string escapes, and lexical errors with their position.

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VRML_TEST_PATH "t.wrl"

#include "test_support.h"
#include "vrml_checks.h"
#include "vrml_private.h"

// lex all tokens of text (after the header) into toks; returns the count or -1 on error
static int lexAll(const char *text, hsvToken *toks, int max, hsError *err) {
  hsvLexer lex;
  if (hsv_lexInit(&lex, text, strlen(text), VRML_TEST_PATH, err) != 0) {
    return -1;
  }
  for (int n = 0; n < max; n++) {
    if (hsv_lexNext(&lex, &toks[n]) != 0) {
      return -1;
    }
    if (toks[n].kind == hsvTOK_EOF) {
      return n;
    }
  }
  return max;
}

// the error of lexing text to its end
static hsError lexError(const char *text) {
  hsError err = {0};
  hsvToken toks[64];
  CU_ASSERT_EQUAL(lexAll(text, toks, 64, &err), -1);
  return err;
}

// check a token's kind, text, line and column, printing what came on a mismatch
static void checkTok(const hsvToken *t, hstVrmlToken kind, const char *text, int line, int col) {
  CU_ASSERT_EQUAL(t->kind, kind);
  CU_ASSERT_EQUAL(t->len, strlen(text));
  CU_ASSERT_EQUAL(strncmp(t->start, text, t->len), 0);
  CU_ASSERT_EQUAL(t->line, line);
  CU_ASSERT_EQUAL(t->column, col);
  if (t->kind != kind || t->line != line || t->column != col) {
    fprintf(stderr, "\n  token '%.*s' kind %d at %d:%d, expected '%s' kind %d at %d:%d\n",
            (int)t->len, t->start, t->kind, t->line, t->column, text, kind, line, col);
  }
}

static void testHeader(void) {
  hsvLexer lex;
  hsvToken tok;
  hsError err = {0};
  // accepted: trailing comment, CR LF, a byte order mark, nothing after the header
  const char *good[] = {"#VRML V2.0 utf8 made by hand\nGroup {}", "#VRML V2.0 utf8\r\nGroup {}",
                        "\xef\xbb\xbf#VRML V2.0 utf8\nGroup {}", "#VRML V2.0 utf8"};
  for (int i = 0; i < 4; i++) {
    CU_ASSERT_EQUAL(hsv_lexInit(&lex, good[i], strlen(good[i]), VRML_TEST_PATH, &err), 0);
    CU_ASSERT_EQUAL(hsv_lexNext(&lex, &tok), 0);
    CU_ASSERT_EQUAL(tok.kind, i == 3 ? hsvTOK_EOF : hsvTOK_ID);
    CU_ASSERT_EQUAL(tok.line, i == 3 ? 1 : 2);
  }
  CU_ASSERT_EQUAL(err.code, 0);
  // refused, always at line 1 column 1 of the named file: another version, or another text
  // where the header belongs
  const char *bad[] = {"#VRML V1.0 ascii\nSeparator {}", "#VRML V2.0utf8\n", "#X3D V3.0 utf8\n"};
  for (int i = 0; i < 3; i++) {
    hsu_clearError(&err);
    int rc = hsv_lexInit(&lex, bad[i], strlen(bad[i]), "dir/m.wrl", &err);
    if (i < 2) {
      CU_ASSERT_EQUAL(rc, hsE_SYNTAX);
      CU_ASSERT_STRING_EQUAL(err.file, "dir/m.wrl");
      CU_ASSERT_EQUAL(err.line, 1);
      CU_ASSERT_EQUAL(err.column, 1);
    } else {
      // no header: lexed on (the '#' line is a comment), flagged
      CU_ASSERT_EQUAL(rc, 0);
      CU_ASSERT_EQUAL(lex.noHeader, 1);
    }
  }
  hsu_clearError(&err);
  hsv_lexInit(&lex, bad[0], strlen(bad[0]), "m.wrl", &err);
  CU_ASSERT_STRING_EQUAL(err.message,
                         "unsupported VRML header '#VRML V1.0 ascii' (need '#VRML V2.0')");
  // another encoding word after V2.0 is read (OpenHRP checks the version only)
  hsu_clearError(&err);
  CU_ASSERT_EQUAL(hsv_lexInit(&lex, "#VRML V2.0 ascii\nX", 18, "m.wrl", &err), 0);
  CU_ASSERT_EQUAL(lex.noHeader, 0);
  // no header at all (OpenHRP's part files): read as VRML97, one warning at line 1
  const char *none[] = {"Group {}", "", "# VRML V2.0 utf8\nGroup {}\n"};
  for (int i = 0; i < 3; i++) {
    hsu_clearError(&err);
    hsvScene *scene = hsv_parseString(none[i], "/models/part.wrl", NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
    CU_ASSERT_EQUAL(scene->nroot, i == 1 ? 0 : 1);
    CU_ASSERT_EQUAL_FATAL(scene->nwarning, 1);
    CU_ASSERT_STRING_EQUAL(scene->warnings[0].file, "/models/part.wrl");
    CU_ASSERT_EQUAL(scene->warnings[0].line, 1);
    CU_ASSERT_STRING_EQUAL(scene->warnings[0].message,
                           "no '#VRML V2.0 utf8' header; read as VRML97");
    hsv_freeScene(scene);
  }
  // a file with its header has no warning
  hsvScene *scene = hsv_parseString("#VRML V2.0 utf8\nGroup {}\n", "/m.wrl", NULL, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  CU_ASSERT_EQUAL(scene->nwarning, 0);
  hsv_freeScene(scene);
}

static void testTokens(void) {
  const char *text =
      "#VRML V2.0 utf8\n"
      "DEF a-b_1:x Transform { # a comment, with \"quotes\"\n"
      "  translation 1,2 , -3.5e2 [ ] \"s\\\"q\\\\x\" .5 +7 0x1F\n"
      "}\n"
      "ROUTE a.b TO c.d\n"
      "\tTRUE\n";
  hsvToken t[32];
  hsError err = {0};
  int n = lexAll(text, t, 32, &err);
  CU_ASSERT_EQUAL_FATAL(n, 24);
  checkTok(&t[0], hsvTOK_ID, "DEF", 2, 1);
  checkTok(&t[1], hsvTOK_ID, "a-b_1:x", 2, 5);
  checkTok(&t[2], hsvTOK_ID, "Transform", 2, 13);
  checkTok(&t[3], hsvTOK_LBRACE, "{", 2, 23);
  checkTok(&t[4], hsvTOK_ID, "translation", 3, 3);
  checkTok(&t[5], hsvTOK_INT, "1", 3, 15);
  checkTok(&t[6], hsvTOK_INT, "2", 3, 17);
  checkTok(&t[7], hsvTOK_FLOAT, "-3.5e2", 3, 21);
  checkTok(&t[8], hsvTOK_LBRACKET, "[", 3, 28);
  checkTok(&t[9], hsvTOK_RBRACKET, "]", 3, 30);
  checkTok(&t[10], hsvTOK_STRING, "\"s\\\"q\\\\x\"", 3, 32);
  checkTok(&t[11], hsvTOK_FLOAT, ".5", 3, 42);
  checkTok(&t[12], hsvTOK_INT, "+7", 3, 45);
  checkTok(&t[13], hsvTOK_INT, "0x1F", 3, 48);
  checkTok(&t[14], hsvTOK_RBRACE, "}", 4, 1);
  checkTok(&t[15], hsvTOK_ID, "ROUTE", 5, 1);
  checkTok(&t[16], hsvTOK_ID, "a", 5, 7);
  checkTok(&t[17], hsvTOK_PERIOD, ".", 5, 8);
  checkTok(&t[18], hsvTOK_ID, "b", 5, 9);
  checkTok(&t[19], hsvTOK_ID, "TO", 5, 11);
  checkTok(&t[20], hsvTOK_ID, "c", 5, 14);
  checkTok(&t[23], hsvTOK_ID, "TRUE", 6, 2);
  CU_ASSERT_EQUAL(t[5].num, 1);
  CU_ASSERT_EQUAL(t[7].num, -350);
  CU_ASSERT_EQUAL(t[11].num, 0.5);
  CU_ASSERT_EQUAL(t[12].num, 7);
  CU_ASSERT_EQUAL(t[13].num, 31);
  CU_ASSERT_TRUE(hsv_tokIs(&t[0], "DEF"));
  CU_ASSERT_FALSE(hsv_tokIs(&t[0], "DE"));
  CU_ASSERT_FALSE(hsv_tokIs(&t[5], "1"));
  // string escapes: \" and \\ only
  char out[32];
  CU_ASSERT_EQUAL(hsv_lexDecodeString(&t[10], out), 5);
  CU_ASSERT_STRING_EQUAL(out, "s\"q\\x");
}

static void testLineEndingsAndUtf8(void) {
  // CR LF and lone CR both end lines; columns count characters, not bytes
  const char *text =
      "#VRML V2.0 utf8\r\n"
      "DEF \xe9\x96\xa2\xe7\xaf\x80 Group\r"
      "\"\xe6\x97\xa5\xe6\x9c\xac\" X\n"
      "\"multi\n"
      "line \xc3\xa9\" Y # \xe2\x82\xac comment\n"
      "Z";
  hsvToken t[16];
  hsError err = {0};
  int n = lexAll(text, t, 16, &err);
  CU_ASSERT_EQUAL_FATAL(n, 8);
  checkTok(&t[0], hsvTOK_ID, "DEF", 2, 1);
  checkTok(&t[1], hsvTOK_ID, "\xe9\x96\xa2\xe7\xaf\x80", 2, 5);
  checkTok(&t[2], hsvTOK_ID, "Group", 2, 8);
  checkTok(&t[3], hsvTOK_STRING, "\"\xe6\x97\xa5\xe6\x9c\xac\"", 3, 1);
  checkTok(&t[4], hsvTOK_ID, "X", 3, 6);
  CU_ASSERT_EQUAL(t[5].line, 4);
  checkTok(&t[6], hsvTOK_ID, "Y", 5, 9);
  checkTok(&t[7], hsvTOK_ID, "Z", 6, 1);
  char out[32];
  hsv_lexDecodeString(&t[5], out);
  CU_ASSERT_STRING_EQUAL(out, "multi\nline \xc3\xa9");
  // unknown escapes keep their backslash
  hsvToken s = {hsvTOK_STRING, "\"a\\nb\"", 6, 1, 1, 0};
  hsv_lexDecodeString(&s, out);
  CU_ASSERT_STRING_EQUAL(out, "a\\nb");
}

// lex one number written after a header
static double lexNumber(const char *num, hstVrmlToken *kind) {
  char text[128];
  snprintf(text, sizeof text, "#VRML V2.0 utf8\n%s", num);
  hsvToken t[4];
  hsError err = {0};
  int n = lexAll(text, t, 4, &err);
  CU_ASSERT_EQUAL(n, 1);
  if (n != 1) {
    fprintf(stderr, "\n  could not lex '%s': %s\n", num, err.message);
    return NAN;
  }
  *kind = t[0].kind;
  return t[0].num;
}

static void testNumbers(void) {
  static const struct {
    const char *text;
    double value;
    hstVrmlToken kind;
  } cases[] = {
      {"0", 0, hsvTOK_INT},          {"-0", 0, hsvTOK_INT},
      {"12", 12, hsvTOK_INT},        {"+12", 12, hsvTOK_INT},
      {"-2147483648", -2147483648.0, hsvTOK_INT},
      {"1.5", 1.5, hsvTOK_FLOAT},    {"-1.5e-3", -1.5e-3, hsvTOK_FLOAT},
      {".5", 0.5, hsvTOK_FLOAT},     {"-.25", -0.25, hsvTOK_FLOAT},
      {"1.", 1, hsvTOK_FLOAT},       {"1e3", 1000, hsvTOK_FLOAT},
      {"1E+3", 1000, hsvTOK_FLOAT},  {"0x1f", 31, hsvTOK_INT},
      {"0XFF", 255, hsvTOK_INT},     {"-0x10", -16, hsvTOK_INT},
      {"0xFFFFFFFF", 4294967295.0, hsvTOK_INT},
      {"0.1", 0.1, hsvTOK_FLOAT},
      {"3.14159265358979323846", 3.14159265358979323846, hsvTOK_FLOAT},
      {"1e-300", 1e-300, hsvTOK_FLOAT},
      {"2.2250738585072014e-308", 2.2250738585072014e-308, hsvTOK_FLOAT},
      {"123456789012345678901234567890", 123456789012345678901234567890.0, hsvTOK_INT},
      {"0.000000000000000000000000000001", 1e-30, hsvTOK_FLOAT},
      {"9007199254740993", 9007199254740993.0, hsvTOK_INT},
      {"1.7976931348623157e308", 1.7976931348623157e308, hsvTOK_FLOAT},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    hstVrmlToken kind = hsvTOK_EOF;
    double v = lexNumber(cases[i].text, &kind);
    CU_ASSERT_EQUAL(v, cases[i].value);
    CU_ASSERT_EQUAL(kind, cases[i].kind);
    if (v != cases[i].value) {
      fprintf(stderr, "\n  '%s' gave %.17g\n", cases[i].text, v);
    }
  }
  // many random numbers in the forms exporters write: bit-exact against strtod
  char *text = malloc(4 << 20);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  double *want = malloc(60000 * sizeof *want);
  size_t len = (size_t)sprintf(text, "#VRML V2.0 utf8\n");
  srand(7);
  for (int i = 0; i < 60000; i++) {
    double x = (rand() / (double)RAND_MAX - 0.5) * pow(10, rand() % 40 - 20);
    char buf[64];
    int form = i % 4;
    if (form == 0) {
      snprintf(buf, sizeof buf, "%.17g", x);
    } else if (form == 1) {
      snprintf(buf, sizeof buf, "%.6f", x);
    } else if (form == 2) {
      snprintf(buf, sizeof buf, "%g", x);
    } else {
      snprintf(buf, sizeof buf, "%.9e", x);
    }
    want[i] = strtod(buf, NULL);
    len += (size_t)sprintf(text + len, "%s%s", buf, i % 3 ? " " : ",\n");
  }
  hsvLexer lex;
  hsError err = {0};
  CU_ASSERT_EQUAL_FATAL(hsv_lexInit(&lex, text, len, "n.wrl", &err), 0);
  int bad = 0;
  for (int i = 0; i < 60000; i++) {
    hsvToken t;
    CU_ASSERT_EQUAL_FATAL(hsv_lexNext(&lex, &t), 0);
    if (memcmp(&t.num, &want[i], sizeof t.num) != 0 && !(t.num == 0 && want[i] == 0)) {
      if (bad++ < 5) {
        fprintf(stderr, "\n  '%.*s' gave %.17g, strtod %.17g\n", (int)t.len, t.start, t.num,
                want[i]);
      }
    }
  }
  CU_ASSERT_EQUAL(bad, 0);
  free(want);
  free(text);
}

static void testLexErrors(void) {
  static const struct {
    const char *text;
    int line, column;
    const char *message;
  } cases[] = {
      {"#VRML V2.0 utf8\nGroup { 1.5.3 }", 2, 9, "malformed number"},
      {"#VRML V2.0 utf8\n\n  12abc", 3, 3, "malformed number"},
      {"#VRML V2.0 utf8\nX 1e", 2, 3, "malformed number"},
      {"#VRML V2.0 utf8\nX 0x", 2, 3, "malformed number"},
      {"#VRML V2.0 utf8\nX - 1", 2, 3, "malformed number"},
      {"#VRML V2.0 utf8\nX +a", 2, 3, "malformed number"},
      {"#VRML V2.0 utf8\nX 1e999", 2, 3, "number out of range"},
      {"#VRML V2.0 utf8\nX 0x1234567890ABCDEF0", 2, 3, "hexadecimal number too large"},
      {"#VRML V2.0 utf8\n  url \"abc\n\ndef", 2, 7, "unterminated string"},
      {"#VRML V2.0 utf8\nX 'a'", 2, 3, "unexpected character '''"},
      {"#VRML V2.0 utf8\nX \\", 2, 3, "unexpected character '\\'"},
      {"#VRML V2.0 utf8\nX \x01", 2, 3, "unexpected character 0x01"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    hsError err = lexError(cases[i].text);
    checkError(&err, hsE_SYNTAX, cases[i].line, cases[i].column, cases[i].message);
  }
  // a NUL byte inside the text is an error, the terminating one is the end
  const char text[] = "#VRML V2.0 utf8\nA \0 B";
  hsvLexer lex;
  hsvToken t;
  hsError err = {0};
  CU_ASSERT_EQUAL(hsv_lexInit(&lex, text, sizeof text - 1, VRML_TEST_PATH, &err), 0);
  CU_ASSERT_EQUAL(hsv_lexNext(&lex, &t), 0);
  CU_ASSERT_EQUAL(hsv_lexNext(&lex, &t), hsE_SYNTAX);
  CU_ASSERT_STRING_EQUAL(err.message, "unexpected NUL character");
  CU_ASSERT_EQUAL(err.column, 3);
}

static void testDescribe(void) {
  char buf[80];
  hsvToken t = {hsvTOK_ID, "Transform {", 9, 1, 1, 0};
  CU_ASSERT_STRING_EQUAL(hsv_tokDescribe(&t, buf, sizeof buf), "'Transform'");
  t = (hsvToken){hsvTOK_FLOAT, "1.5 ", 3, 1, 1, 1.5};
  CU_ASSERT_STRING_EQUAL(hsv_tokDescribe(&t, buf, sizeof buf), "number 1.5");
  t = (hsvToken){hsvTOK_STRING, "\"ab\"", 4, 1, 1, 0};
  CU_ASSERT_STRING_EQUAL(hsv_tokDescribe(&t, buf, sizeof buf), "string \"ab\"");
  t = (hsvToken){hsvTOK_EOF, "", 0, 1, 1, 0};
  CU_ASSERT_STRING_EQUAL(hsv_tokDescribe(&t, buf, sizeof buf), "end of file");
  t = (hsvToken){hsvTOK_RBRACKET, "]", 1, 1, 1, 0};
  CU_ASSERT_STRING_EQUAL(hsv_tokDescribe(&t, buf, sizeof buf), "']'");
}

void register_vrml_lex(void) {
  CU_pSuite s = hst_addSuite("vrml_lex");
  CU_add_test(s, "header", testHeader);
  CU_add_test(s, "token kinds, lines and columns", testTokens);
  CU_add_test(s, "line endings and UTF-8 columns", testLineEndingsAndUtf8);
  CU_add_test(s, "numbers are exact", testNumbers);
  CU_add_test(s, "lexical errors", testLexErrors);
  CU_add_test(s, "token descriptions", testDescribe);
}
