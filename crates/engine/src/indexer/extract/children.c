// The visible children of a tree-sitter node with the field each fills, read in one
// loop from tree-sitter's own subtree layout.
//
// Why: stepping a public `TSTreeCursor` costs some 330 instructions a step (it rebuilds
// a child iterator and looks up alias sequences at every step), `ts_node_child_by_field_id`
// some 400 a call, and the extractor takes every step of every tree. This routine does
// what a cursor's `goto_first_child`/`goto_next_sibling` and `current_field_id` do
// together, for all children at once: the same nodes (hidden nodes flattened, aliases
// applied), the same field ids, at a fraction of the cost.
//
// It reads private headers of the tree-sitter release Cargo.lock pins (the build script
// takes them from that crate's sources, so a layout change fails the build instead of
// misreading memory); `children.rs` tests it against the public cursor on every node.

#include "tree_sitter/api.h"
#include "language.h"
#include "length.h"
#include "subtree.h"
#include "tree.h"

typedef struct {
  const TSTree *tree;
  const TSLanguage *language;
  TSNode *nodes;
  uint16_t *fields;
  uint32_t cap;
  uint32_t count;
} Sink;

// `inherited`: the field of the hidden node whose children these are, which its
// visible descendants fill unless their own production names another (as
// `ts_tree_cursor_current_field_id` walks up through hidden ancestors).
static void collect(Sink *sink, Subtree parent, Length position, TSFieldId inherited) {
  uint32_t count = ts_subtree_child_count(parent);
  const Subtree *kids = ts_subtree_children(parent);
  uint16_t production = parent.ptr->production_id;
  const TSSymbol *aliases = ts_language_alias_sequence(sink->language, production);
  const TSFieldMapEntry *map = NULL, *map_end = NULL;
  ts_language_field_map(sink->language, production, &map, &map_end);
  uint32_t structural = 0;
  for (uint32_t i = 0; i < count; i++) {
    const Subtree *child = &kids[i];
    TSSymbol alias = 0;
    TSFieldId field = 0;
    if (!ts_subtree_extra(*child)) {
      if (aliases) alias = aliases[structural];
      for (const TSFieldMapEntry *m = map; m < map_end; m++) {
        if (!m->inherited && m->child_index == structural) {
          field = m->field_id;
          break;
        }
      }
      if (!field) field = inherited;
      structural++;
    }
    // A node's position is where its first child starts (padding included in it).
    if (i > 0) position = length_add(position, ts_subtree_padding(*child));
    if (ts_subtree_visible(*child) || alias) {
      if (sink->count < sink->cap) {
        sink->nodes[sink->count] = (TSNode){
          {position.bytes, position.extent.row, position.extent.column, alias},
          child,
          sink->tree,
        };
        sink->fields[sink->count] = field;
      }
      sink->count++;
    } else if (ts_subtree_child_count(*child) > 0) {
      collect(sink, *child, position, field);
    }
    position = length_add(position, ts_subtree_size(*child));
  }
}

// Writes up to `cap` children of `node` to `nodes` and their field ids (0: none) to
// `fields`; returns how many there are (more than `cap`: call again with room).
// `declared` gets bit `id` set for each field id below 64 that `node`'s production
// declares: `ts_node_child_by_field_id` finds only those, where a cursor also names the
// fields of hidden nodes under an error node.
uint32_t blast_children(
  const TSNode *node,
  TSNode *nodes,
  uint16_t *fields,
  uint32_t cap,
  uint64_t *declared
) {
  Subtree subtree = *(const Subtree *)node->id;
  *declared = 0;
  if (ts_subtree_child_count(subtree) == 0) return 0;
  const TSLanguage *language = node->tree->language;
  const TSFieldMapEntry *map = NULL, *map_end = NULL;
  ts_language_field_map(language, subtree.ptr->production_id, &map, &map_end);
  for (const TSFieldMapEntry *m = map; m < map_end; m++) {
    if (m->field_id < 64) *declared |= (uint64_t)1 << m->field_id;
  }
  Sink sink = {node->tree, language, nodes, fields, cap, 0};
  Length start = {node->context[0], {node->context[1], node->context[2]}};
  collect(&sink, subtree, start, 0);
  return sink.count;
}

// What the walk asks of every node it visits, in one call instead of four or five
// (`ts_node_child_count`, `ts_node_symbol`, `ts_node_is_missing`, `ts_node_end_byte`),
// each of which reads the subtree again.
typedef struct {
  uint32_t start_byte;
  uint32_t end_byte;
  uint16_t symbol; // as `ts_node_symbol` gives it: aliases applied, public
  uint16_t flags;
} BlastInfo;

enum { BLAST_LEAF = 1, BLAST_MISSING = 2 };

BlastInfo blast_info(const TSNode *node) {
  Subtree subtree = *(const Subtree *)node->id;
  TSSymbol symbol = node->context[3]; // the alias, if any
  if (!symbol) symbol = ts_subtree_symbol(subtree);
  if (symbol != ts_builtin_sym_error) symbol = node->tree->language->public_symbol_map[symbol];
  uint16_t flags = 0;
  // `ts_node_child_count`: visible children, none for an inline subtree.
  if (ts_subtree_child_count(subtree) == 0 || subtree.ptr->visible_child_count == 0) {
    flags |= BLAST_LEAF;
  }
  if (ts_subtree_missing(subtree)) flags |= BLAST_MISSING;
  uint32_t start = node->context[0];
  return (BlastInfo){start, start + ts_subtree_size(subtree).bytes, symbol, flags};
}
