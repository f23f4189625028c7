#!/usr/bin/env python3
"""Writes data/checklist.html, the checklist's one page per entry that a
SARIF viewer opens from a rule's helpUri (file://.../checklist.html#P1),
from data/checklist.json, the catalog the program reads: what --explain
prints, with an anchor per id. Installed beside the catalog.

Usage: data/gen-checklist-html.py [--check] [SRCDIR]
  rewrites SRCDIR/data/checklist.html (SRCDIR: this file's parent's parent);
  with --check, changes nothing and exits 1, printing a diff, when the page
  differs from what it would write (the test of tests/docs).
"""
import difflib
import html
import json
import os
import sys

SECTIONS = {
    "triggers": "Triggers (decide the walk order)",
    "layout": "\u00a71 Layout flags \u2192 structure",
    "priorities": "\u00a72 Post-TMA priority list",
    "patterns": "\u00a73 Fast vs slow patterns",
    "attention": "\u00a74 Attention / FMHA checklist",
    "deeper": "D: deeper entries",
}

FIELDS = [
    ("means", "What it means"),
    ("applies_when", "When it applies"),
    ("satisfied_when", "When it is satisfied"),
    ("impact", "Typical impact"),
    ("edit_summary", "The edit"),
]


def para(text):
    return "".join(f"<p>{html.escape(p.strip())}</p>\n" for p in text.split("\n\n") if p.strip())


def page(entries):
    out = ["<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
           "<title>tileadvise checklist</title>\n",
           "<style>body{max-width:52em;margin:2em auto;font-family:sans-serif;line-height:1.45}"
           "pre{background:#f4f4f4;padding:.6em;overflow-x:auto}h2{border-top:1px solid #ccc;padding-top:.6em}"
           "</style>\n</head>\n<body>\n",
           "<h1>The checklist tileadvise walks</h1>\n",
           "<p>Generated from data/checklist.json by data/gen-checklist-html.py; "
           "<code>tileadvise --explain ID</code> prints the same text.</p>\n"]
    section = None
    for e in entries:
        if e.get("section") != section:
            section = e.get("section")
            out.append(f"<h1>{html.escape(SECTIONS.get(section, section or ''))}</h1>\n")
        eid = html.escape(e["id"])
        out.append(f"<h2 id=\"{eid}\">{eid} {html.escape(e.get('title', ''))}</h2>\n")
        if e.get("summary"):
            out.append(para(e["summary"]))
        edit = e.get("edit", "")
        if edit:
            out.append(f"<p><em>Edit: {html.escape(edit)}</em></p>\n")
        for key, head in FIELDS:
            if e.get(key):
                out.append(f"<h3>{head}</h3>\n{para(e[key])}")
        for key, head in (("example_slow", "Slow"), ("example_fast", "Fast")):
            if e.get(key):
                out.append(f"<h3>{head}</h3>\n<pre>{html.escape(e[key])}</pre>\n")
    out.append("</body>\n</html>\n")
    return "".join(out)


def main(argv):
    check = "--check" in argv
    rest = [a for a in argv[1:] if a != "--check"]
    src = rest[0] if rest else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(src, "data", "checklist.json"), encoding="utf-8") as f:
        entries = json.load(f)["entries"]
    text = page(entries)
    path = os.path.join(src, "data", "checklist.html")
    old = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
    if check:
        if old != text:
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True),
                                                       path, "generated"))
            return 1
        return 0
    if old != text:
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(path + ".tmp", path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
