#!/usr/bin/env python3
"""Generates kernel files for the rules benchmark from the bundled examples
and the rule cases of tests/entries/*.md: `gen_kernels.py SRCDIR big OUT.py LINES` writes one file of
about LINES lines (names made unique per copy); `gen_kernels.py SRCDIR dir
OUTDIR COUNT` writes COUNT files, one kernel file each. Mode `parts` is `big`
without the sources that make `--check` analyse a file whole (a kernel under
a decorator that is not Triton's: analyze/split.h)."""
import glob
import os
import re
import sys


def sources(srcdir):
    files = sorted(glob.glob(os.path.join(srcdir, "examples", "*", "*.py")))
    texts = [open(f, encoding="utf-8").read() for f in files]
    # the cases with no edit, each a file at the top of its folder
    sys.dont_write_bytecode = True
    sys.path.insert(0, os.path.join(srcdir, "tests", "entries"))
    import entries
    texts += [t for _, t in sorted((c.title, entries.text_of(c.source))
                                   for e in entries.entries(os.path.join(srcdir, "tests", "entries"))
                                   for c in e.cases if c.diff is None and "/" not in c.title)]
    out = []
    for text in texts:
        names = re.findall(r"^def (\w+)", text, re.M)
        out.append((text, names))
    return out


def renamed(text, names, i):
    for n in names:
        text = re.sub(r"\b%s\b" % re.escape(n), "%s_%d" % (n, i), text)
    return text


def main():
    srcdir, mode, out, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    srcs = sources(srcdir)
    if mode == "parts":
        srcs = [(t, n) for t, n in srcs if not re.search(r"^@(?!triton\.)\w", t, re.M)]
        mode = "big"
    if mode == "big":
        parts, lines, i = [], 0, 0
        while lines < count:
            text, names = srcs[i % len(srcs)]
            chunk = renamed(text, names, i)
            parts.append(chunk)
            lines += chunk.count("\n")
            i += 1
        open(out, "w", encoding="utf-8").write("\n".join(parts))
    else:
        os.makedirs(out, exist_ok=True)
        for i in range(count):
            text, names = srcs[i % len(srcs)]
            open(os.path.join(out, "k%03d.py" % i), "w", encoding="utf-8").write(renamed(text, names, i))


main()
