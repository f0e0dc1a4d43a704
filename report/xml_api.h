/* xml_api.h — libxml2's tree functions, loaded on first use (common/dl.h).
 *
 * The chart builder (svg.c) calls rep_xml_api(err) before building a chart
 * and then the library through rep_xml_table (.xmlNewDoc() ...); the types
 * are the library's own headers'. */
#ifndef KR_REPORT_XML_API_H
#define KR_REPORT_XML_API_H

#include <libxml/tree.h>

#include "common/err.h"

#define REP_XML_FUNCTIONS(X) \
    X(xmlAddChild) X(xmlBufferContent) X(xmlBufferCreate) X(xmlBufferFree) X(xmlBufferLength) \
    X(xmlDocSetRootElement) X(xmlFreeDoc) X(xmlFreeNode) X(xmlNewChild) X(xmlNewDoc) X(xmlNewNode) \
    X(xmlInitParser) X(xmlNewNs) X(xmlNewProp) X(xmlNewText) X(xmlNodeDump) X(xmlSetNs)

typedef struct rep_xml_fns {
#define REP_XML_FIELD(f) __typeof__(f) *f;
    REP_XML_FUNCTIONS(REP_XML_FIELD)
#undef REP_XML_FIELD
} rep_xml_fns;

/* Loads the library once (thread-safe): 0, after which rep_xml_table is
 * filled, or KR_INTERNAL with err filled when it cannot be loaded. */
int rep_xml_api(kr_err *err);
extern rep_xml_fns rep_xml_table;

#endif
