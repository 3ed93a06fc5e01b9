#ifndef LLMSTER_CLIBXML2_SHIM_H
#define LLMSTER_CLIBXML2_SHIM_H
/* Debian's libxml2 is built with ICU, so its encoding.h includes the system's ICU headers, which clash with the
   copy Foundation carries. llmster only parses HTML from memory and walks the tree; it never touches an encoding
   handler's fields (the only declarations that depend on ICU), so the headers are read without it. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/HTMLparser.h>
#include <libxml/tree.h>
#endif
