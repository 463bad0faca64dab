#ifndef SEARCHLIGHT_CLIBXML2_SHIM_H
#define SEARCHLIGHT_CLIBXML2_SHIM_H
// libxml2's HTML parser, for the HTML importer. The headers live in <prefix>/include/libxml2;
// Package.swift finds them through pkg-config (libxml-2.0).
#include <libxml/xmlversion.h>
// Debian builds libxml2 with ICU, and <libxml/encoding.h> then includes the system's
// <unicode/ucnv.h>, whose enums clash with the ICU copy inside Foundation (_FoundationICU).
// Without this macro only the private ICU fields of xmlCharEncodingHandler disappear from the
// declarations; Searchlight never reads that structure, and every type it uses (documents,
// nodes, attributes) keeps its layout.
#undef LIBXML_ICU_ENABLED
#include <libxml/HTMLparser.h>
#include <libxml/HTMLtree.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

// libxml2 reports some problems (encoding conversion failures) through its generic error
// handler, which prints to standard error, whatever the parse options say. The handler is
// variadic, which Swift cannot write, and per thread, so the importer silences it on the
// thread of each parse. https://gnome.pages.gitlab.gnome.org/libxml2/devhelp/libxml2-xmlerror.html
static void searchlight_xml_ignore(void *context, const char *message, ...) {
  (void)context;
  (void)message;
}

static inline void searchlight_xml_silence_errors(void) {
  xmlSetGenericErrorFunc(NULL, searchlight_xml_ignore);
  xmlSetStructuredErrorFunc(NULL, NULL);
}

#endif
