// model_xml.c - the XML parse of the URDF and MJCF readers (see model_xml.h): one private
// libxml2 parser context per parse, its structured error handler keeping the first error.

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlversion.h>

#include "model_xml.h"

static pthread_once_t g_xmlOnce = PTHREAD_ONCE_INIT;

static void initXml(void) {
  xmlInitParser();
}

// the first error libxml2 reports while parsing
typedef struct XmlCapture {
  int have, line, column;
  char message[400];
} XmlCapture;

// structured error handler of our parser context (data is the context); libxml2 2.12 made the
// error const
#if LIBXML_VERSION >= 21200
static void captureXmlError(void *data, const xmlError *e) {
#else
static void captureXmlError(void *data, xmlErrorPtr e) {
#endif
  xmlParserCtxtPtr ctxt = data;
  XmlCapture *cap = ctxt ? ctxt->_private : NULL;
  if (!cap || !e || cap->have || e->level < XML_ERR_ERROR) {
    return;
  }
  cap->have = 1;
  cap->line = e->line;
  cap->column = e->int2;
  snprintf(cap->message, sizeof cap->message, "%s", e->message ? e->message : "XML error");
  // libxml2 messages end with a newline
  for (size_t n = strlen(cap->message); n > 0 && isspace((unsigned char)cap->message[n - 1]);) {
    cap->message[--n] = 0;
  }
}

// external entities are never loaded
static xmlParserInputPtr refuseEntity(void *ctx, const xmlChar *publicId,
                                      const xmlChar *systemId) {
  (void)ctx, (void)publicId, (void)systemId;
  return NULL;
}

xmlDocPtr hsm_parseXml(const char *path, const char *text, size_t len, int strict,
                       hsError *err) {
  if (len > (size_t)INT_MAX) {
    HS_ERR_AT(err, hsE_IO, path, 0, 0, "cannot read '%s': %zu bytes is more than the XML parser "
              "takes", path, len);
    return NULL;
  }
  pthread_once(&g_xmlOnce, initXml);
  xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
  if (!ctxt || !ctxt->sax) {
    xmlFreeParserCtxt(ctxt);
    HS_ERR_AT(err, hsE_NOMEM, path, 0, 0, "out of memory");
    return NULL;
  }
  XmlCapture cap;
  memset(&cap, 0, sizeof cap);
  ctxt->_private = &cap;
  ctxt->sax->serror = captureXmlError;
  ctxt->sax->resolveEntity = refuseEntity;
  xmlDocPtr doc = xmlCtxtReadMemory(ctxt, text, (int)len, path, NULL,
                                    XML_PARSE_NONET | XML_PARSE_BIG_LINES);
  if (!doc || (strict && cap.have)) {
    HS_ERR_AT(err, hsE_SYNTAX, path, cap.have ? cap.line : 0, cap.have ? cap.column : 0,
              "not well-formed XML%s%s", cap.have ? ": " : "", cap.have ? cap.message : "");
    xmlFreeDoc(doc);
    doc = NULL;
  }
  xmlFreeParserCtxt(ctxt);
  return doc;
}

int hsm_parseNumbers(const char *text, double *out, int max) {
  int k = 0;
  for (const char *s = text;;) {
    while (isspace((unsigned char)*s)) {
      s++;
    }
    if (!*s) {
      return k;
    }
    char *end;
    double x = strtod(s, &end);
    if (end == s || !isfinite(x) || (*end && !isspace((unsigned char)*end)) || k == max) {
      return -1;
    }
    out[k++] = x;
    s = end;
  }
}

int hsm_xmlLine(const xmlNode *n) {
  long line = n ? xmlGetLineNo((xmlNodePtr)n) : 0;
  return line > 0 && line < INT_MAX ? (int)line : 0;
}
