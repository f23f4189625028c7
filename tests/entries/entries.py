"""The entry files, tests/entries/ID.md: read them, turn their cases into
files, and write their expected blocks back (README.md there gives the
format). Shared by run.py and extract.py; python3 stdlib only."""
import os
import re

FENCE = re.compile(r"^(`{3,})(.*)$")
ATTR = re.compile(r'([A-Za-z][\w-]*)(?:="([^"]*)")?')


class Block:
    """A fenced block: its language, attributes, body (each line ending in
    a newline) and where its fence lines are in the file (0-based)."""

    def __init__(self, fence, info, start):
        self.fence = fence
        words = info.strip().split(None, 1)
        self.lang = words[0] if words else ""
        self.attrs = {m.group(1): (m.group(2) if m.group(2) is not None else True)
                      for m in ATTR.finditer(words[1] if len(words) > 1 else "")}
        self.info = info
        self.start = start
        self.end = None
        self.lines = []

    @property
    def body(self):
        return "".join(self.lines)


class Case:
    """A `## heading` and the blocks under it: the source (py), what --check
    prints (console) and, for a case with an edit, what --diff prints
    (diff)."""

    def __init__(self, md, heading, line):
        self.md = md
        self.heading = heading
        self.line = line
        self.blocks = []

    def block(self, lang):
        got = [b for b in self.blocks if b.lang == lang]
        if len(got) > 1:
            raise ValueError("%s:%d: more than one %s block in a case" % (self.md.path, self.line + 1, lang))
        return got[0] if got else None

    @property
    def source(self):
        return self.block("py")

    @property
    def title(self):
        return self.source.attrs.get("title")

    @property
    def console(self):
        return self.block("console")

    @property
    def diff(self):
        return self.block("diff")

    @property
    def where(self):
        return "%s:%d" % (os.path.basename(self.md.path), self.line + 1)


class Entry:
    """One ID.md: its lines (kept, to write blocks back in place) and cases."""

    def __init__(self, path):
        self.path = path
        self.id = os.path.basename(path)[:-3]
        with open(path, encoding="utf-8", newline="") as f:
            self.lines = f.read().splitlines(keepends=True)
        self.cases = []
        case = None
        block = None
        for i, line in enumerate(self.lines):
            if block is not None:
                if line.rstrip("\n") == block.fence:
                    block.end = i
                    block = None
                else:
                    block.lines.append(line)
                continue
            m = FENCE.match(line.rstrip("\n"))
            if m:
                block = Block(m.group(1), m.group(2), i)
                if case is None:
                    raise ValueError("%s:%d: a block before the first case's heading" % (path, i + 1))
                case.blocks.append(block)
            elif line.startswith("## "):
                case = Case(self, line[3:].strip(), i)
                self.cases.append(case)
        if block is not None:
            raise ValueError("%s:%d: block not closed" % (path, block.start + 1))
        for c in self.cases:
            if c.source is None or not c.title:
                raise ValueError("%s: a case with no ```py title=\"...\" block" % c.where)

    def write(self):
        """Writes the file back with each block's body as it is now."""
        out = []
        i = 0
        blocks = sorted((b for c in self.cases for b in c.blocks), key=lambda b: b.start)
        for b in blocks:
            out += self.lines[i:b.start]
            fence = fence_for(b.body, b.fence)
            out.append(fence + b.info + "\n")
            out += b.lines
            out.append(fence + "\n")
            i = b.end + 1
        out += self.lines[i:]
        text = "".join(out)
        with open(self.path, encoding="utf-8", newline="") as f:
            if f.read() == text:
                return False
        with open(self.path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        return True


def fence_for(body, fence="```"):
    """A fence no line of body can close."""
    longest = max([len(m.group(0)) for m in re.finditer(r"^`{3,}", body, re.M)] or [0])
    return fence if len(fence) > longest else "`" * (longest + 1)


def set_body(block, text):
    if text and not text.endswith("\n"):
        text += "\n"
    block.lines = text.splitlines(keepends=True)


# ---- a source block and the file's bytes --------------------------------------
# The block holds the text with LF line ends and a final newline; attributes
# say what the file has beside: `crlf` (every line ends in CR LF), `bom` (a
# UTF-8 byte order mark) and `noeol` (no newline after the last line).

def text_of(block):
    """The file's text, LF line ends, BOM left out (what diffs apply to)."""
    body = block.body
    if block.attrs.get("noeol"):
        body = body[:-1]
    return body


def encode(text, attrs):
    """The file's bytes from its LF text and the source block's attributes."""
    if attrs.get("crlf"):
        text = text.replace("\n", "\r\n")
    if attrs.get("bom"):
        text = "\ufeff" + text
    return text.encode("utf-8")


def file_bytes(block):
    return encode(text_of(block), block.attrs)


def decode(data):
    """(block body, attributes) that file_bytes turns back into data."""
    text = data.decode("utf-8")
    attrs = {}
    if text.startswith("\ufeff"):
        attrs["bom"] = True
        text = text[1:]
    if "\r" in text:
        if text.count("\r") != text.count("\r\n") or text.count("\n") != text.count("\r\n"):
            raise ValueError("mixed line ends")
        attrs["crlf"] = True
        text = text.replace("\r\n", "\n")
    if not text.endswith("\n"):
        attrs["noeol"] = True
        text += "\n"
    return text, attrs


# ---- unified diffs ------------------------------------------------------------

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def apply_diff(text, diff):
    """text with the unified diff applied (LF text; '\\ No newline at end of
    file' honoured). Raises ValueError when a line does not match."""
    old = text.splitlines(keepends=True)
    new = []
    pos = 0
    lines = diff.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    i = 0
    while i < len(lines) and not lines[i].startswith("@@"):
        i += 1
    while i < len(lines):
        m = HUNK.match(lines[i])
        if not m:
            raise ValueError("diff: expected a hunk at %r" % lines[i])
        start = int(m.group(1)) - (0 if m.group(2) == "0" else 1)
        if start < pos:
            raise ValueError("diff: hunks overlap")
        new += old[pos:start]
        pos = start
        i += 1
        while i < len(lines) and not lines[i].startswith("@@"):
            tag, rest = lines[i][:1], lines[i][1:]
            eol = "" if i + 1 < len(lines) and lines[i + 1].startswith("\\ ") else "\n"
            if tag in (" ", "-"):
                if pos >= len(old) or old[pos] != rest + eol:
                    raise ValueError("diff: line %d is %r, the diff says %r" %
                                     (pos + 1, old[pos] if pos < len(old) else None, rest + eol))
                pos += 1
            if tag in (" ", "+"):
                new.append(rest + eol)
            elif tag not in ("-", "\\"):
                raise ValueError("diff: bad line %r" % lines[i])
            i += 1
    new += old[pos:]
    return "".join(new)


# ---- the cases as files -------------------------------------------------------

def entries(folder, ids=None):
    """The entry files of folder (ID.md; README.md is not one), or those of ids."""
    names = sorted(n[:-3] for n in os.listdir(folder) if n.endswith(".md") and n != "README.md")
    if ids:
        missing = [i for i in ids if i not in names]
        if missing:
            raise ValueError("no entry file for %s in %s" % (", ".join(missing), folder))
        names = [n for n in names if n in ids]
    return [Entry(os.path.join(folder, n + ".md")) for n in names]


def edit_name(case):
    """NAME of a case with an edit: its title without .py."""
    return case.title[:-3] if case.title.endswith(".py") else case.title


def extract(folder, out):
    """Writes every case of folder's entry files under out: a case with no
    edit as rules/TITLE, a case with an edit as edits/NAME.before.py and
    edits/NAME.after.py (the diff applied), listed in edits/cases as
    `ID NAME [guided|profile]`. Returns how many files it wrote."""
    seen = {}
    index = []
    n = 0
    for e in entries(folder):
        for c in e.cases:
            d = c.diff
            if d is None:
                rel = os.path.join("rules", c.title)
                data = [(rel, file_bytes(c.source))]
            else:
                name = edit_name(c)
                rel = os.path.join("edits", name)
                after = encode(apply_diff(text_of(c.source), d.body), c.source.attrs)
                data = [(rel + ".before.py", file_bytes(c.source)), (rel + ".after.py", after)]
                kind = "guided" if d.attrs.get("guided") else "profile" if d.attrs.get("profile") else ""
                index.append(("%s %s %s" % (d.attrs["edit"], name, kind)).rstrip())
            if rel in seen:
                raise ValueError("%s: %s is also %s's" % (c.where, rel, seen[rel]))
            seen[rel] = c.where
            for path, b in data:
                full = os.path.join(out, path)
                os.makedirs(os.path.dirname(full), exist_ok=True)
                with open(full, "wb") as f:
                    f.write(b)
                n += 1
    os.makedirs(os.path.join(out, "edits"), exist_ok=True)
    with open(os.path.join(out, "edits", "cases"), "w") as f:
        f.write("# written by tests/entries/extract.py from tests/entries/*.md: ID NAME [guided|profile]\n")
        f.write("".join(l + "\n" for l in index))
    return n
