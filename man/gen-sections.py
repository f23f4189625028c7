#!/usr/bin/env python3
"""Writes the man page's generated parts from the tables the program is
built from, as tig writes its manual from its own tables:

- the key list of ADVISOR KEYS from src/ui/tui/keys.def (every request,
  its keys and help text, in the table's order);
- the CHECKLIST section from src/checklist/entries.def (the ids, their
  sections and order) and data/checklist.json (the titles).

Each part sits between two comment lines in man/tileadvise.1,
`.\\" {{{ generated: NAME ...` and `.\\" }}}`; the prose around them is
written by hand. The OPTIONS section stays prose: its coverage of
src/options.def is what tests/docs/docs.sh checks.

Usage: man/gen-sections.py [--check] [SRCDIR]
  rewrites SRCDIR/man/tileadvise.1 in place (SRCDIR: this file's parent's
  parent); with --check, changes nothing and exits 1, printing a diff, when
  the page differs from what it would write (the test of tests/docs).
"""
import difflib
import json
import os
import re
import sys

# How the man page names the keys keys.def writes as curses constants.
KEY_NAMES = {
    "KEY_DOWN": "Down", "KEY_UP": "Up", "KEY_LEFT": "Left", "KEY_RIGHT": "Right",
    "KEY_NPAGE": "PgDn", "KEY_PPAGE": "PgUp", "KEY_HOME": "Home", "KEY_END": "End",
    "KEY_BTAB": "Shift-Tab", "KEY_F(1)": "F1", "27": "Esc", "12": "Ctrl-L",
    "'\\t'": "Tab", "'\\r'": "Enter", "' '": "Space",
}

# The CHECKLIST section's headings, by entries.def's SECTION.
HEADINGS = [
    ("TRIGGERS", "Triggers (decide the walk order)"),
    ("LAYOUT", "\\(sc1 Layout flags \\(-> structure"),
    ("PRIORITIES", "\\(sc2 Post\\-TMA priority list"),
    ("PATTERNS", "\\(sc3 Fast vs slow patterns"),
    ("ATTENTION", "\\(sc4 Attention / FMHA checklist"),
    ("DEEPER", "Deeper entries"),
]


def roff(text):
    """Plain text as a roff line: hyphens escaped, non-ASCII as \\[uXXXX]."""
    out = []
    for ch in text.replace("\\", "\\e").replace("-", "\\-"):
        out.append(ch if ord(ch) < 128 else "\\[u%04X]" % ord(ch))
    line = "".join(out)
    return "\\&" + line if line[:1] in (".", "'") else line


def c_string(s):
    """The text of a C string literal's body (the escapes keys.def uses)."""
    return s.replace('\\"', '"').replace("\\\\", "\\")


def key_name(tok):
    tok = tok.strip()
    if tok in KEY_NAMES:
        return KEY_NAMES[tok]
    m = re.fullmatch(r"'(.)'", tok)
    if m:
        return m.group(1)
    raise SystemExit("gen-sections: keys.def: no name for the key %s" % tok)


def keys_part(src):
    rows = []
    pat = re.compile(r'^REQ\(\s*(\w+),\s*(.+?),\s*(.+?),\s*(NULL|"(?:[^"\\]|\\.)*"),\s*"((?:[^"\\]|\\.)*)",')
    with open(os.path.join(src, "src/ui/tui/keys.def"), encoding="utf-8") as f:
        for line in f:
            m = pat.match(line)
            if not m:
                continue
            keys = [key_name(m.group(2))]
            if m.group(3).strip() != "0":
                keys.append(key_name(m.group(3)))
            rows += [".TP", '.B "%s"' % roff(", ".join(keys)), roff(c_string(m.group(5)))]
    if not rows:
        raise SystemExit("gen-sections: no REQ row in keys.def")
    return rows


def checklist_part(src):
    order = []
    with open(os.path.join(src, "src/checklist/entries.def"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^ENTRY\(\s*(\w+),\s*\w+,\s*(\w+),", line)
            if m:
                order.append((m.group(1), m.group(2)))
    with open(os.path.join(src, "data/checklist.json"), encoding="utf-8") as f:
        titles = {e["id"]: e["title"] for e in json.load(f)["entries"]}
    rows = []
    for section, heading in HEADINGS:
        ids = [i for i, s in order if s == section]
        if not ids:
            continue
        rows.append(".SS " + heading)
        for i in ids:
            if i not in titles:
                raise SystemExit("gen-sections: %s is in entries.def but not in data/checklist.json" % i)
            rows += [".TP 6", ".B " + i, roff(titles[i])]
    unknown = {s for _, s in order} - {s for s, _ in HEADINGS}
    if unknown:
        raise SystemExit("gen-sections: no heading for the sections %s" % ", ".join(sorted(unknown)))
    return rows


def regenerate(text, name, rows):
    begin = re.compile(r'^\.\\" \{\{\{ generated: %s\b.*$' % name, re.M)
    m = begin.search(text)
    end = text.find('\n.\\" }}}', m.end()) if m else -1
    if not m or end < 0:
        raise SystemExit("gen-sections: man/tileadvise.1 has no generated part %s" % name)
    return text[:m.end()] + "\n" + "\n".join(rows) + text[end:]


def main(argv):
    check = "--check" in argv
    rest = [a for a in argv if a != "--check"]
    src = rest[0] if rest else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    page = os.path.join(src, "man/tileadvise.1")
    with open(page, encoding="utf-8") as f:
        old = f.read()
    new = regenerate(old, "keys", keys_part(src))
    new = regenerate(new, "checklist", checklist_part(src))
    if check:
        if new == old:
            return 0
        sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                                   "man/tileadvise.1", "generated"))
        return 1
    if new != old:
        tmp = page + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(new)
        os.replace(tmp, page)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
