/* Requests and their keys, from keys.def. */
#ifndef TA_UI_TUI_KEYMAP_H
#define TA_UI_TUI_KEYMAP_H

#include <stdbool.h>
#include <stddef.h>

enum { TA_KEY_WRITES = 1, TA_KEY_PROFILES = 2 };

typedef enum ta_req {
	TA_REQ_NONE,
#define REQ(name, k1, k2, label, help, flags) TA_REQ_##name,
#include "ui/tui/keys.def"
#undef REQ
	TA_REQ__COUNT
} ta_req;

typedef struct ta_keydef {
	ta_req req;
	int key1, key2;           /* curses key codes or characters; 0 none */
	const char *label;        /* footer label, or NULL */
	const char *help;
	unsigned flags;
} ta_keydef;

/* The request bound to key (a character or KEY_* code), or TA_REQ_NONE. */
ta_req ta_keymap_lookup(int key);
/* The table, in keys.def order. */
const ta_keydef *ta_keymap(size_t *count);
/* A key's name for the help: "j", "Down", "Tab", "Esc", "Ctrl-L". Static
 * string or one in buf[16]. */
const char *ta_key_name(int key, char buf[16]);
/* The help as plain text lines ("  j, Down     move to ..."); caller frees. */
char *ta_keymap_help_text(void);

#endif
