// model_xml.h - private to model/: the XML parse that the URDF and MJCF readers share.
//
// A file's text is parsed by a private libxml2 parser context: no network (XML_PARSE_NONET), no
// entity substitution, no DTD loading, external entities refused, and every libxml2 diagnostic
// captured by a structured error handler on that context, so nothing is printed and the first
// error, with its line and column, becomes an hsError at file:line:column. Only .c files of
// model/ that already use libxml2 include this header.

#ifndef HRPSIM_MODEL_MODEL_XML_H_
#define HRPSIM_MODEL_MODEL_XML_H_

#include <stddef.h>

#include <libxml/tree.h>

#include "util.h"

// parse len bytes of text read from path (named in errors and kept as the document's URL);
// strict: also refuse a document libxml2 parsed past a reported error (it recovers from some,
// such as an undefined namespace prefix), else only one it could not parse. A text longer than
// libxml2 takes (INT_MAX bytes) is refused too. The document (free with xmlFreeDoc), or NULL
// with err filled (hsE_SYNTAX "not well-formed XML: <libxml2's message>", hsE_IO, hsE_NOMEM).
xmlDocPtr hsm_parseXml(const char *path, const char *text, size_t len, int strict,
                       hsError *err);

// the numbers of text (separated by white space) into out, at most max of them: how many, or -1
// when a word is not a number, is not finite (a value beyond double, such as 1e999, reads as
// inf) or there are more than max
int hsm_parseNumbers(const char *text, double *out, int max);

// the line of node n's start tag as libxml2 records it (XML_PARSE_BIG_LINES), 0 when unknown
// or beyond int
int hsm_xmlLine(const xmlNode *n);

#endif  // HRPSIM_MODEL_MODEL_XML_H_
