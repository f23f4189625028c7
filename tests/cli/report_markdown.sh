#!/bin/sh
# --report --format=markdown of a kernel file whose code holds <, &,
# backticks, * and | (and a file name with them): every piece of code shows
# as written, in a code span, and nothing becomes HTML, emphasis or a broken
# span. Rendered with cmark-gfm (GitHub's CommonMark) when it is installed.
# Env: TILEADVISE (the binary), TA_SRCDIR (the source tree), PYTHON3.
set -u
: "${TA_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${TILEADVISE:=./src/tileadvise}"
. "$TA_SRCDIR/tests/lib/tap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ta-md-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
plan 7
name='a_<img src=x onerror=alert(1)>*b*.py'
cp "$TA_SRCDIR/tests/fixtures/report/md_injection.py" "$tmp/$name"
cd "$tmp" || exit 99
"$TILEADVISE" --report --format=markdown "$name" >out.md 2>err
rc=$?
result $rc "--report --format=markdown exits 0" "rc=$rc" "$(cat err)"
# Without a renderer: the raw markdown holds each fragment in a code span
# whose fence is longer than the backtick runs inside it.
grep -qF '``TAG: constexpr = "<b>&amp;`x`</b>"``' out.md
result $? "a default value with a backtick gets a longer fence" "$(grep parameters out.md)"
grep -qF '```TAG="a|b`c``d"```' out.md
result $? "a keyword holding a double backtick gets a fence of three" "$(grep 'line 1[0-9] in' out.md)"
grep -qF '## a\_&lt;img src=x onerror=alert(1)&gt;\*b\*.py: 1 kernel' out.md
result $? "the file name is escaped text" "$(head -1 out.md)"
if ! command -v cmark-gfm >/dev/null 2>&1; then
	skip_rest "cmark-gfm is not installed"
	finish
fi
cmark-gfm --unsafe out.md >out.html
# Only the report's own elements; code spans' texts, unescaped.
"$PYTHON3" - out.html >tags 3>codes <<'PY'
import html.parser, os, sys
codes = os.fdopen(3, "w")
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.in_code = False
        self.text = ""
    def handle_starttag(self, tag, attrs):
        print(tag)
        if tag == "code":
            self.in_code, self.text = True, ""
    def handle_endtag(self, tag):
        if tag == "code":
            self.in_code = False
            codes.write(self.text + "\n")
    def handle_data(self, data):
        if self.in_code:
            self.text += data
    def handle_comment(self, data):
        print("comment")
P().feed(open(sys.argv[1], encoding="utf-8").read())
PY
bad=$(sort -u tags | grep -vxE 'h2|h3|ul|li|code' | tr '\n' ' ')
result $([ -z "$bad" ] && echo 0 || echo 1) "the rendered report holds only headings, lists and code" "other elements: $bad"
missing=
for want in 'TAG: constexpr = "<b>&amp;`x`</b>"' \
	'EVEN = lambda a: a["n"] % 64 == 0 and a["tag"] < "<img src=x onerror=alert(1)>"' \
	'triton.cdiv(n, 64) * 2 if n < 2 else n' 'TAG="a|b`c``d"' '<module>' \
	'TAG="<script>alert(1)</script>"'; do
	grep -qxF -- "$want" codes || missing="$missing [$want]"
done
result $([ -z "$missing" ] && echo 0 || echo 1) "each piece of code renders exactly as written" \
	"missing:$missing" "$(cat codes)"
grep -q '<h2>a_&lt;img src=x onerror=alert(1)&gt;\*b\*.py: 1 kernel' out.html
result $? "the file name renders as written" "$(head -1 out.html)"
finish
