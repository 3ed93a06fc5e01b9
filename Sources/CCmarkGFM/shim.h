#ifndef LLMSTER_CCMARKGFM_SHIM_H
#define LLMSTER_CCMARKGFM_SHIM_H
#include <cmark-gfm.h>
#include <cmark-gfm-extension_api.h>
#include <cmark-gfm-core-extensions.h>

/* The extension node types are exported by libcmark-gfm-extensions but not declared in Debian's headers,
   and Swift 6 refuses to read mutable C globals: declare them here and read them through functions. */
extern cmark_node_type CMARK_NODE_TABLE;
extern cmark_node_type CMARK_NODE_TABLE_ROW;
extern cmark_node_type CMARK_NODE_TABLE_CELL;
extern cmark_node_type CMARK_NODE_STRIKETHROUGH;

static inline cmark_node_type llmster_node_table(void) { return CMARK_NODE_TABLE; }
static inline cmark_node_type llmster_node_table_row(void) { return CMARK_NODE_TABLE_ROW; }
static inline cmark_node_type llmster_node_table_cell(void) { return CMARK_NODE_TABLE_CELL; }
static inline cmark_node_type llmster_node_strikethrough(void) { return CMARK_NODE_STRIKETHROUGH; }
#endif
