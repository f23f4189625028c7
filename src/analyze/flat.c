#include "config.h"
#include "analyze/flat.h"
#include "analyze/syntax.h"
#include "analyze/ts_layout.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>
#include <tree_sitter/parser.h>

/* The live copies, for ta_flat_of: a tree is copied once per analysis and
 * a run holds few trees at a time. The analysis runs on one thread. */
static ta_flat *live;

static size_t slot_of(const void *id, uint32_t mask)
{
	return (size_t)((((uintptr_t)id >> 3) * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

/* Every node a cursor stops at has a slot of its own in its parent's
 * children (tree-sitter's id), so the id and the start find it. */
static void index_nodes(ta_flat *f)
{
	uint32_t cap = 16;
	while (cap < 2 * f->count)
		cap *= 2;
	f->mask = cap - 1;
	f->slots = ta_xcalloc(cap, sizeof *f->slots);
	for (uint32_t i = 0; i < f->count; i++) {
		size_t s = slot_of(f->nodes[i].id, f->mask);
		while (f->slots[s])
			s = (s + 1) & f->mask;
		f->slots[s] = i + 1;
	}
}

static void add_node(ta_flat *f, size_t *cap, TSNode n, uint32_t parent, TSTreeCursor *c)
{
	if (f->count == *cap)
		ta_grow((void **)&f->nodes, cap, (size_t)f->count + 1, sizeof *f->nodes);
	ta_flat_node *e = &f->nodes[f->count++];
	memcpy(e->context, n.context, sizeof e->context);
	e->id = n.id;
	e->parent = parent;
	e->end = TA_FLAT_NONE;
	e->named = ts_node_is_named(n);
	e->symbol = ts_node_symbol(n);
	e->field = c ? ts_tree_cursor_current_field_id(c) : 0;
}

/* Marks the nodes from at up to (not including) the ancestor stop as ended
 * before node index end: each node is closed once. */
static uint32_t close_up(ta_flat *f, uint32_t at, uint32_t stop, uint32_t end)
{
	while (at != stop) {
		f->nodes[at].end = end;
		at = f->nodes[at].parent;
	}
	return at;
}

/* The copy by tree-sitter's cursor: the public API's one walk. */
static void copy_by_cursor(ta_flat *f, size_t *cap, TSNode root)
{
	add_node(f, cap, root, TA_FLAT_NONE, NULL);
	uint32_t cur = 0;
	TSTreeCursor c = ts_tree_cursor_new(root);
	for (;;) {
		uint32_t parent;
		/* A leaf is known from its child count, cheaper than the
		 * cursor's failing to go down (most nodes are leaves). */
		if (ts_node_child_count(ta_flat_node_at(f, cur)) && ts_tree_cursor_goto_first_child(&c)) {
			parent = cur;
		} else {
			uint32_t up = cur;
			bool more = true;
			while (!ts_tree_cursor_goto_next_sibling(&c)) {
				if (!ts_tree_cursor_goto_parent(&c)) {
					more = false;
					break;
				}
				up = f->nodes[up].parent;
			}
			if (!more)
				break;
			parent = f->nodes[up].parent;
			close_up(f, cur, parent, f->count);
		}
		add_node(f, cap, ts_tree_cursor_current_node(&c), parent, &c);
		cur = f->count - 1;
	}
	close_up(f, cur, TA_FLAT_NONE, f->count);
	ts_tree_cursor_delete(&c);
}

/* A node whose children the layout walk is reading. Hidden nodes (Python's
 * grammar has many: _simple_statements, _expressions...) are read through,
 * their children hanging from the nearest visible node above. */
struct frame {
	const ta_ts_subtree *children;
	uint32_t count, next;      /* children, and the next one to read */
	uint32_t structural;       /* its index among the non-extra children */
	ta_ts_length at;           /* where the next child starts */
	const TSSymbol *aliases;   /* the production's, NULL for none */
	const TSFieldMapEntry *fields, *fields_end;
	uint32_t parent;           /* the visible node the children hang from */
	TSFieldId inherited;       /* a hidden node's field, for its children */
	bool visible;
};

static struct frame frame_of(const TSLanguage *lang, ta_ts_subtree s, ta_ts_length at,
			     uint32_t parent, TSFieldId inherited, bool visible)
{
	struct frame fr = { .count = s.ptr->child_count, .at = at, .parent = parent,
			    .inherited = inherited, .visible = visible };
	fr.children = ta_ts_children(s);
	uint16_t prod = s.ptr->production_id;
	if (prod)
		fr.aliases = &lang->alias_sequences[(size_t)prod * lang->max_alias_sequence_length];
	if (lang->field_count) {
		TSFieldMapSlice slice = lang->field_map_slices[prod];
		fr.fields = &lang->field_map_entries[slice.index];
		fr.fields_end = fr.fields + slice.length;
	}
	return fr;
}

/* The field a child at structural index i hangs from in its own parent's
 * production (inherited entries name a grandchild's field). */
static TSFieldId own_field(const struct frame *fr, uint32_t i)
{
	for (const TSFieldMapEntry *m = fr->fields; m < fr->fields_end; m++)
		if (!m->inherited && m->child_index == i)
			return m->field_id;
	return 0;
}

/* The copy read from the tree's own arrays: the same nodes, positions,
 * aliases and fields as copy_by_cursor, in the same order. A node's field
 * is the first found going up from it through hidden ancestors, stopping
 * at an extra node or the visible parent, as ts_tree_cursor_current_field_id
 * finds it. */
static void copy_by_layout(ta_flat *f, size_t *cap, TSNode root)
{
	add_node(f, cap, root, TA_FLAT_NONE, NULL);
	ta_ts_subtree top = *(const ta_ts_subtree *)root.id;
	if (!ta_ts_child_count(top)) {
		f->nodes[0].end = 1;
		return;
	}
	const TSLanguage *lang = ts_tree_language(root.tree);
	size_t depth = 0, room = 64;
	struct frame *st = ta_xmalloc(room * sizeof *st);
	ta_ts_length at = { root.context[0], { root.context[1], root.context[2] } };
	st[depth++] = frame_of(lang, top, at, 0, 0, true);
	while (depth) {
		struct frame *fr = &st[depth - 1];
		if (fr->next == fr->count) {
			if (fr->visible)
				f->nodes[fr->parent].end = f->count;
			depth--;
			continue;
		}
		ta_ts_subtree s = fr->children[fr->next];
		ta_ts_length pos = fr->at;
		bool visible = ta_ts_visible(s), extra = ta_ts_extra(s);
		uint32_t index = fr->structural;
		TSSymbol alias = 0;
		if (!extra && fr->aliases) {
			alias = fr->aliases[index];
			visible |= alias != 0;
			fr->structural++;
		}
		fr->at = ta_ts_add(pos, ta_ts_size(s));
		if (++fr->next < fr->count)
			fr->at = ta_ts_add(fr->at, ta_ts_padding(fr->children[fr->next]));
		if (!visible && !ta_ts_visible_child_count(s))
			continue;
		TSFieldId field = 0;
		if (!extra) {
			field = own_field(fr, index);
			if (!field)
				field = fr->inherited;
		}
		uint32_t parent = fr->parent;
		if (visible) {
			if (f->count == *cap)
				ta_grow((void **)&f->nodes, cap, (size_t)f->count + 1, sizeof *f->nodes);
			TSNode n = { { pos.bytes, pos.extent.row, pos.extent.column, alias },
				     &fr->children[fr->next - 1], root.tree };
			ta_flat_node *e = &f->nodes[f->count++];
			memcpy(e->context, n.context, sizeof e->context);
			e->id = n.id;
			e->parent = parent;
			e->end = f->count;
			/* ts_node_is_named's and ts_node_symbol's answers (an
			 * alias's metadata, else the subtree's flag; the public
			 * symbol of the alias or the subtree's) without their
			 * calls; the error symbols are left to them */
			TSSymbol own = alias ? alias : s.data.is_inline ? s.data.symbol : s.ptr->symbol;
			if (own < lang->symbol_count + lang->alias_count) {
				e->named = alias ? lang->symbol_metadata[alias].named
						 : s.data.is_inline ? s.data.named : s.ptr->named;
				e->symbol = lang->public_symbol_map[own];
			} else {
				e->named = ts_node_is_named(n);
				e->symbol = ts_node_symbol(n);
			}
			e->field = field;
			if (!ta_ts_child_count(s))
				continue;
			parent = f->count - 1;
			field = 0;
		}
		if (depth == room)
			ta_grow((void **)&st, &room, depth + 1, sizeof *st);
		st[depth++] = frame_of(lang, s, pos, parent, field, visible);
	}
	free(st);
}

static const char *layout_type(TSNode n);

static bool same_copy(const ta_flat *a, const ta_flat *b)
{
	if (a->count != b->count)
		return false;
	for (uint32_t i = 0; i < a->count; i++) {
		const ta_flat_node *x = &a->nodes[i], *y = &b->nodes[i];
		TSNode n = ta_flat_node_at(b, i);
		const char *t = layout_type(n);
		if (t && t != ts_node_type(n))
			return false;
		if (memcmp(x->context, y->context, sizeof x->context) || x->id != y->id ||
		    x->parent != y->parent || x->end != y->end || x->symbol != y->symbol ||
		    x->field != y->field || x->named != y->named)
			return false;
	}
	return true;
}

/* Whether the layout walk may be used: unknown until the first copy of the
 * process, which is made both ways and compared node by node. */
static enum { LAYOUT_UNTRIED, LAYOUT_SAME, LAYOUT_DIFFERS } layout;

static ta_flat *new_copy(TSNode root, size_t *cap)
{
	ta_flat *f = ta_xcalloc(1, sizeof *f);
	f->tree = root.tree;
	/* Python's trees hold about one visible node per 3.6 bytes (172,224
	 * for the 615,381 bytes of tests/bench/astgrep.sh's files): room for
	 * one per 3 bytes spares most files the copies of growing */
	*cap = ts_node_end_byte(root) / 3 + 16;
	f->nodes = ta_xmalloc(*cap * sizeof *f->nodes);
	return f;
}

/* ts_node_named_descendant_for_byte_range read from the layout: the same
 * descent through every child (hidden ones too), the first whose end
 * reaches past start and to end taken while it starts at or before start,
 * the last named node on the way kept. About 5,600 instructions a call
 * through the node API from a module's root, a tenth of that here. */
static TSNode layout_named_descendant(TSNode self, uint32_t start, uint32_t end)
{
	const TSLanguage *lang = ts_tree_language(self.tree);
	TSNode node = self, last = self;
	for (;;) {
		ta_ts_subtree s = *(const ta_ts_subtree *)node.id;
		uint32_t count = ta_ts_child_count(s);
		if (!count)
			break;
		uint16_t prod = s.ptr->production_id;
		const TSSymbol *aliases = prod ? &lang->alias_sequences[(size_t)prod * lang->max_alias_sequence_length] : NULL;
		const ta_ts_subtree *kids = ta_ts_children(s);
		ta_ts_length pos = { node.context[0], { node.context[1], node.context[2] } };
		uint32_t structural = 0;
		bool down = false;
		for (uint32_t i = 0; i < count; i++) {
			ta_ts_subtree c = kids[i];
			TSSymbol alias = 0;
			if (!ta_ts_extra(c)) {
				if (aliases)
					alias = aliases[structural];
				structural++;
			}
			if (i > 0)
				pos = ta_ts_add(pos, ta_ts_padding(c));
			uint32_t child_start = pos.bytes;
			TSNode child = { { pos.bytes, pos.extent.row, pos.extent.column, alias }, &kids[i], node.tree };
			pos = ta_ts_add(pos, ta_ts_size(c));
			if (pos.bytes < end || pos.bytes <= start)
				continue;
			if (start < child_start)
				break;
			node = child;
			bool named = alias ? lang->symbol_metadata[alias].named
					   : ta_ts_visible(c) && (c.data.is_inline ? c.data.named : c.ptr->named);
			if (named)
				last = child;
			down = true;
			break;
		}
		if (!down)
			break;
	}
	return last;
}

bool ta_flat_layout_known(void)
{
	return layout == LAYOUT_SAME;
}

/* The grammar's name of n's own symbol (its alias, else its subtree's),
 * as ts_node_type answers; NULL for the error symbols, named apart. */
static const char *layout_type(TSNode n)
{
	TSSymbol sym = (TSSymbol)n.context[3];
	if (!sym) {
		ta_ts_subtree s = *(const ta_ts_subtree *)n.id;
		sym = s.data.is_inline ? s.data.symbol : s.ptr->symbol;
	}
	const TSLanguage *lang = ts_tree_language(n.tree);
	return sym < lang->symbol_count + lang->alias_count ? lang->symbol_names[sym] : NULL;
}

const char *ta_flat_type(TSNode n)
{
	const char *t = layout == LAYOUT_SAME ? layout_type(n) : NULL;
	return t ? t : ts_node_type(n);
}

/* ts_tree_cursor_goto_first_child_for_byte from n, read from the layout:
 * n's children in the cursor's order, the first ending at or after goal taken
 * when visible (or aliased), entered when hidden with visible nodes under
 * it; false when a child so entered holds none that ends there, where
 * the cursor gives up too. */
bool ta_flat_child_for_byte(TSNode n, uint32_t goal, TSNode *out)
{
	const TSLanguage *lang = ts_tree_language(n.tree);
	ta_ts_subtree s = *(const ta_ts_subtree *)n.id;
	ta_ts_length pos = { n.context[0], { n.context[1], n.context[2] } };
	for (;;) {
		uint32_t count = ta_ts_child_count(s);
		if (!count)
			return false;
		uint16_t prod = s.ptr->production_id;
		const TSSymbol *aliases = prod ? &lang->alias_sequences[(size_t)prod * lang->max_alias_sequence_length] : NULL;
		const ta_ts_subtree *kids = ta_ts_children(s);
		uint32_t structural = 0;
		bool down = false;
		for (uint32_t i = 0; i < count && !down; i++) {
			ta_ts_subtree c = kids[i];
			bool visible = ta_ts_visible(c);
			TSSymbol alias = 0;
			if (!ta_ts_extra(c) && aliases) {
				alias = aliases[structural++];
				visible |= alias != 0;
			}
			ta_ts_length at = pos;
			pos = ta_ts_add(pos, ta_ts_size(c));
			if (pos.bytes >= goal) {
				if (visible) {
					*out = (TSNode){ { at.bytes, at.extent.row, at.extent.column, alias }, &kids[i], n.tree };
					return true;
				}
				if (ta_ts_visible_child_count(c)) {
					s = c;
					pos = at;
					down = true;
					continue;
				}
			}
			if (i + 1 < count)
				pos = ta_ts_add(pos, ta_ts_padding(kids[i + 1]));
		}
		if (!down)
			return false;
	}
}

TSNode ta_flat_named_descendant(TSNode n, uint32_t start, uint32_t end)
{
	if (layout == LAYOUT_SAME && n.id)
		return layout_named_descendant(n, start, end);
	return ts_node_named_descendant_for_byte_range(n, start, end);
}

ta_flat *ta_flat_build_by(TSNode root, bool by_layout)
{
	size_t cap;
	ta_flat *f = new_copy(root, &cap);
	if (by_layout)
		copy_by_layout(f, &cap, root);
	else
		copy_by_cursor(f, &cap, root);
	index_nodes(f);
	f->next_live = live;
	live = f;
	return f;
}

ta_flat *ta_flat_build(TSNode root)
{
	if (layout == LAYOUT_UNTRIED) {
		size_t cap;
		ta_flat *check = new_copy(root, &cap);
		copy_by_layout(check, &cap, root);
		ta_flat *f = ta_flat_build_by(root, false);
		layout = same_copy(check, f) ? LAYOUT_SAME : LAYOUT_DIFFERS;
		free(check->nodes);
		free(check);
		return f;
	}
	return ta_flat_build_by(root, layout == LAYOUT_SAME);
}

void ta_flat_free(ta_flat *f)
{
	if (!f)
		return;
	for (ta_flat **p = &live; *p; p = &(*p)->next_live)
		if (*p == f) {
			*p = f->next_live;
			break;
		}
	free(f->nodes);
	free(f->slots);
	free(f->kids_slots);
	free(f->kids_pool);
	free(f);
}

const ta_flat *ta_flat_of(TSNode n)
{
	if (!n.tree)
		return NULL;
	for (ta_flat *f = live; f; f = f->next_live)
		if (f->tree == n.tree)
			return f;
	return NULL;
}

uint32_t ta_flat_index(const ta_flat *f, TSNode n)
{
	for (size_t s = slot_of(n.id, f->mask); f->slots[s]; s = (s + 1) & f->mask) {
		const ta_flat_node *e = &f->nodes[f->slots[s] - 1];
		if (e->id == n.id && e->context[0] == n.context[0] && e->context[3] == n.context[3])
			return f->slots[s] - 1;
	}
	return TA_FLAT_NONE;
}

uint32_t ta_flat_child_after(const ta_flat *f, uint32_t at, uint32_t goal)
{
	/* The subtree is in document order, so starts never decrease: the
	 * last node starting at or before goal lies in the child holding goal
	 * (or in the last child before it). */
	uint32_t lo = at + 1, hi = f->nodes[at].end;
	if (lo >= hi)
		return TA_FLAT_NONE;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (f->nodes[mid].context[0] <= goal)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint32_t c = lo > at + 1 ? lo - 1 : at + 1;
	while (c != TA_FLAT_NONE && f->nodes[c].parent != at)
		c = f->nodes[c].parent;
	while (c != TA_FLAT_NONE && ts_node_end_byte(ta_flat_node_at(f, c)) <= goal) {
		uint32_t next = f->nodes[c].end;
		c = next < f->count && f->nodes[next].parent == at ? next : TA_FLAT_NONE;
	}
	return c;
}

uint32_t ta_flat_field_child(const ta_flat *f, uint32_t at, TSFieldId field)
{
	for (uint32_t c = at + 1; c < f->nodes[at].end; c = f->nodes[c].end)
		if (f->nodes[c].field == field)
			return c;
	return TA_FLAT_NONE;
}

struct ta_flat_kids {
	uint32_t at;           /* node index + 1; 0 empty */
	uint32_t count;
	size_t first;          /* into kids_pool */
};

/* Named children asked for by position this far in are found by scanning
 * the siblings before them; from there on by the node's list. */
#define KIDS_SCAN 8

static uint32_t kid_slot(uint32_t at, uint32_t mask)
{
	return (uint32_t)((at * 0x9E3779B1u) >> 7) & mask;
}

/* Where node at's list of named children is (made now when it was not). */
static const struct ta_flat_kids *kids_of(ta_flat *f, uint32_t at)
{
	if (f->kids_slots) {
		for (uint32_t s = kid_slot(at, f->kids_mask); f->kids_slots[s].at; s = (s + 1) & f->kids_mask)
			if (f->kids_slots[s].at == at + 1)
				return &f->kids_slots[s];
	}
	if (2 * (f->kids_used + 1) > f->kids_mask) {
		uint32_t cap = f->kids_mask ? 2 * (f->kids_mask + 1) : 64;
		struct ta_flat_kids *old = f->kids_slots;
		uint32_t old_cap = f->kids_mask ? f->kids_mask + 1 : 0;
		f->kids_slots = ta_xcalloc(cap, sizeof *f->kids_slots);
		f->kids_mask = cap - 1;
		for (uint32_t k = 0; k < old_cap; k++) {
			if (!old[k].at)
				continue;
			uint32_t s = kid_slot(old[k].at - 1, f->kids_mask);
			while (f->kids_slots[s].at)
				s = (s + 1) & f->kids_mask;
			f->kids_slots[s] = old[k];
		}
		free(old);
	}
	uint32_t s = kid_slot(at, f->kids_mask);
	while (f->kids_slots[s].at)
		s = (s + 1) & f->kids_mask;
	struct ta_flat_kids *k = &f->kids_slots[s];
	*k = (struct ta_flat_kids){ .at = at + 1, .first = f->kids_len };
	for (uint32_t c = at + 1; c < f->nodes[at].end; c = f->nodes[c].end) {
		if (!f->nodes[c].named)
			continue;
		if (f->kids_len == f->kids_cap)
			ta_grow((void **)&f->kids_pool, &f->kids_cap, f->kids_len + 1, sizeof *f->kids_pool);
		f->kids_pool[f->kids_len++] = c;
		k->count++;
	}
	f->kids_used++;
	return k;
}

uint32_t ta_flat_named_child(const ta_flat *f, uint32_t at, uint32_t i)
{
	if (i >= KIDS_SCAN) {
		/* The list is a cache of what the copy already says: making it
		 * changes no answer (the copy is one thread's). */
		const struct ta_flat_kids *k = kids_of((ta_flat *)f, at);
		return i < k->count ? f->kids_pool[k->first + i] : TA_FLAT_NONE;
	}
	for (uint32_t c = at + 1; c < f->nodes[at].end; c = f->nodes[c].end)
		if (f->nodes[c].named && i-- == 0)
			return c;
	return TA_FLAT_NONE;
}

void ta_walk_start(ta_walk *w, TSNode n)
{
	const ta_flat *f = ta_flat_of(n);
	uint32_t at = f ? ta_flat_index(f, n) : TA_FLAT_NONE;
	if (at != TA_FLAT_NONE) {
		*w = (ta_walk){ .flat = f, .at = at, .start = at, .end = f->nodes[at].end };
	} else {
		*w = (ta_walk){ .flat = NULL };
		w->cursor = ts_tree_cursor_new(n);
	}
}

void ta_walk_finish(ta_walk *w)
{
	if (!w->flat)
		ts_tree_cursor_delete(&w->cursor);
}

/* tree-sitter 0.20's cursor made on a node forgets the alias the node was
 * reached by (its first node has the grammar's own kind), and the walks the
 * flat one replaced saw that: so does the flat walk's first node. */
static TSNode walk_first(const ta_walk *w)
{
	TSNode n = ta_flat_node_at(w->flat, w->start);
	n.context[3] = 0;
	return n;
}

TSNode ta_walk_node(const ta_walk *w)
{
	if (!w->flat)
		return ts_tree_cursor_current_node(&w->cursor);
	return w->at == w->start ? walk_first(w) : ta_flat_node_at(w->flat, w->at);
}

TSSymbol ta_walk_named_symbol(const ta_walk *w)
{
	if (w->flat && w->at != w->start) {
		const ta_flat_node *e = &w->flat->nodes[w->at];
		return e->named ? e->symbol : 0;
	}
	TSNode n = ta_walk_node(w);
	return ts_node_is_named(n) ? ts_node_symbol(n) : 0;
}

TSFieldId ta_walk_field(const ta_walk *w)
{
	if (!w->flat)
		return ts_tree_cursor_current_field_id(&w->cursor);
	/* a cursor knows no field above the node it was made on */
	return w->at == w->start ? 0 : w->flat->nodes[w->at].field;
}

bool ta_walk_next(ta_walk *w, bool descend)
{
	if (!w->flat)
		return ta_cursor_next(&w->cursor, descend);
	uint32_t next = descend ? w->at + 1 : w->flat->nodes[w->at].end;
	if (next >= w->end)
		return false;
	w->at = next;
	return true;
}
