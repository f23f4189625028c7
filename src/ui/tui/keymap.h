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

/* The mouse, where the terminal reports it (help overlay and man page;
 * tests/tui/keys.sh checks the man page against these lines). */
#define TA_MOUSE_CLICK_HELP "pick a kernel or a step in the left pane"
#define TA_MOUSE_WHEEL_HELP "move between steps over the walk; scroll the step page or an overlay"

/* The request bound to key (a character or KEY_* code), or TA_REQ_NONE. */
ta_req ta_keymap_lookup(int key);
/* The table, in keys.def order. */
const ta_keydef *ta_keymap(size_t *count);
/* A key's name for the help: "j", "Down", "Shift-Tab", "Esc", "Ctrl-L". Static
 * string or one in buf[16]. */
const char *ta_key_name(int key, char buf[16]);
/* The help as plain text lines ("  j, Down     move to ..."); caller frees. */
char *ta_keymap_help_text(void);

#endif
