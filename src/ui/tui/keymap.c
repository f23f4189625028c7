/* The key table (keys.def) and what is derived from it. */
#include "config.h"
#include "ui/tui/keymap.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "util/buf.h"

static const ta_keydef table[] = {
#define REQ(name, k1, k2, label, help, flags) { TA_REQ_##name, k1, k2, label, help, flags },
#include "ui/tui/keys.def"
#undef REQ
};

const ta_keydef *ta_keymap(size_t *count)
{
	*count = sizeof table / sizeof *table;
	return table;
}

ta_req ta_keymap_lookup(int key)
{
	if (key == '\n' || key == KEY_ENTER)
		key = '\r';
	for (size_t i = 0; i < sizeof table / sizeof *table; i++)
		if (key && (table[i].key1 == key || table[i].key2 == key))
			return table[i].req;
	return TA_REQ_NONE;
}

const char *ta_key_name(int key, char buf[16])
{
	switch (key) {
	case KEY_DOWN: return "Down";
	case KEY_UP: return "Up";
	case KEY_RIGHT: return "Right";
	case KEY_LEFT: return "Left";
	case KEY_NPAGE: return "PgDn";
	case KEY_PPAGE: return "PgUp";
	case KEY_HOME: return "Home";
	case KEY_END: return "End";
	case KEY_BTAB: return "Shift-Tab";
	case '\t': return "Tab";
	case '\r': return "Enter";
	case ' ': return "Space";
	case 27: return "Esc";
	default: break;
	}
	if (key == KEY_F(1))
		return "F1";
	if (key > 0 && key < 32)
		snprintf(buf, 16, "Ctrl-%c", key + '@');
	else
		snprintf(buf, 16, "%c", key);
	return buf;
}

char *ta_keymap_help_text(void)
{
	ta_buf b = TA_BUF_INIT;
	for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
		char b1[16], b2[16], keys[40];
		if (table[i].key2)
			snprintf(keys, sizeof keys, "%s, %s", ta_key_name(table[i].key1, b1),
				 ta_key_name(table[i].key2, b2));
		else
			snprintf(keys, sizeof keys, "%s", ta_key_name(table[i].key1, b1));
		ta_buf_printf(&b, "  %-14s %s%s\n", keys, table[i].help,
			      table[i].flags & TA_KEY_WRITES ? " *" : "");
	}
	ta_buf_printf(&b, "\n  * not in a replayed session (--replay is read-only)\n\n"
		      "  Mouse, where the terminal reports it:\n  %-14s %s\n  %-14s %s\n",
		      "click", TA_MOUSE_CLICK_HELP, "wheel", TA_MOUSE_WHEEL_HELP);
	return ta_buf_steal(&b);
}
