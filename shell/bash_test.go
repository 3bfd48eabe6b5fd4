package shell_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/shell"
)

// agentDocs are the files of the differential test: names with spaces
// and non-ASCII letters, CRLF lines, an empty file, a file without a
// final newline, a hidden file.
func agentDocs() fstest.MapFS {
	files := map[string]string{
		"README.md":                   "# Docs\nwelcome to the docs\n",
		"empty.md":                    "",
		"notrail.md":                  "last line without newline",
		".hidden.md":                  "hidden\n",
		"guides/quickstart.md":        "# Quickstart\nCreate a webhook.\nThen test the webhook with a token.\nDone.\n",
		"guides/with space.md":        "spaced out\n",
		"guides/auth/api-keys.md":     "# API keys\nA key is a token.\n",
		"guides/auth/oauth.mdx":       "# OAuth\nExchange the code for a token.\nwebsite: example.com\n",
		"i18n/café.md":                "Straße ünïcödé\nnaïve café\n",
		"win/crlf.txt":                "line one\r\nline two\r\n",
		"reference/api/v1.md":         "GET /v1/items\nPOST /v1/items\n",
		"reference/api/v2.md":         "GET /v2/items\n",
		"reference/Makefile":          "all:\n\ttrue\n",
		"reference/api/deep/nest.txt": "deep\n",
		"data/a.json":                 "{\"items\":[{\"id\":1,\"name\":\"alpha\"},{\"id\":2,\"name\":\"beta\"},{\"id\":3,\"name\":\"bravo\"}],\"name\":\"list\"}\n",
		"data/b.json":                 "{\n  \"a\": 1.5,\n  \"b\": [true, null, \"x\"],\n  \"c\": {\"d\": -2}\n}\n",
		"data/bad.json":               "{\"a\": 1,\n",
		"data/pats.txt":               "token\nweb(hook\n[a\n",
	}
	m := fstest.MapFS{}
	for name, content := range files {
		m[name] = &fstest.MapFile{Data: []byte(content), Mode: 0o444}
	}
	return m
}

// bashLines are agent-style command lines. They use relative paths only
// (real bash runs at the root of a directory that is not "/"), and sort
// the output of the commands whose order is the directory's for GNU (find,
// grep -r).
var bashLines = []string{
	"ls",
	"ls -a",
	"ls guides",
	"ls -1 guides/auth",
	"ls -R reference",
	"ls -d */",
	"ls nope; echo $?",
	"ls -d \"guides/with space.md\"",
	"echo *",
	"echo */*.md",
	"echo nomatch*.xyz",
	"echo guides/**/*.md",
	"cat README.md",
	"cat -n guides/quickstart.md",
	"cat notrail.md; echo",
	"cat empty.md | wc -c",
	"cat win/crlf.txt | wc -l",
	"grep two win/crlf.txt | cat -A",
	"cat \"guides/with space.md\"",
	"cat README.md nope 2>/dev/null; echo $?",
	"cat nope 2>&1 | head -1",
	"cat < README.md",
	"grep -n webhook guides/quickstart.md",
	"grep -rn webhook . | sort",
	"grep -rl token . | sort",
	"grep -c line win/crlf.txt",
	"grep -i STRASSE i18n/café.md; echo $?",
	"grep -i straße i18n/café.md",
	"grep -q nothing README.md; echo $?",
	"grep -r zzz .; echo $?",
	"egrep -n 'web(hook|site)' guides/quickstart.md guides/auth/oauth.mdx",
	"fgrep -c '.' README.md",
	`grep -oP '(?<=\s)\w+(?=\s)' guides/quickstart.md | head -3`,
	`grep -cP '\r$' win/crlf.txt`,
	`grep -roP 'token\K\w*' . | sort | head -5`,
	`echo 'version: 1.2.3' | grep -oP 'version: \K\S+'`,
	`grep -P '(' README.md 2>&1; echo $?`,
	`grep -iP 'STRA(?=SSE)' i18n/café.md`,
	`grep -P -e a -e b README.md 2>&1; echo $?`,
	"grep -c welcome <<< 'welcome here'",
	"find . -name '*.md' | sort",
	"find . -type d | sort",
	"find guides -maxdepth 1 | sort",
	"find nope; echo $?",
	"find . -name '*.txt' | sort | xargs cat",
	"find . -name '*.md' | sort | xargs wc -l",
	"head -2 guides/quickstart.md",
	"tail -1 guides/quickstart.md",
	"tail -n +2 guides/quickstart.md",
	"head -c 8 i18n/café.md; echo",
	"wc -l guides/quickstart.md README.md",
	"wc -w < README.md",
	"cat guides/*.md | wc -l",
	"ls guides | sort -r",
	"printf 'b\\na\\nb\\n' | sort | uniq -c",
	"cat README.md README.md | sort -u",
	"cut -d' ' -f1 README.md",
	"cat win/crlf.txt | cut -c1-4 | cat -A",
	"cd guides && ls && cd auth && ls",
	"cd nope; echo $?",
	"cd guides/quickstart.md",
	"cd guides; cd ..; ls",
	"for f in guides/*.md; do echo \"== $f\"; head -1 \"$f\"; done",
	"i=0; while [ $i -lt 3 ]; do echo $i; i=$((i+1)); done",
	"if [ -f README.md ]; then echo file; fi; [ -d guides ] && echo dir",
	"test -e nope || echo missing",
	"x=$(head -1 README.md); echo \"[$x]\"",
	"echo `ls guides | wc -l`",
	"echo hi > out.txt; echo $?",
	"echo hi >> README.md",
	"echo x > nodir/x",
	"nosuchcmd --flag",
	"ls guides | xargs -n1 echo item",
	"ls reference/api | xargs -I{} echo 'v={}'",
	"echo 'single' \"double $((1+1))\"",
	"printf '%s\\n' guides/* | wc -l",
	"case README.md in *.md) echo md;; *) echo other;; esac",
	"true && false || echo fallback",
	"false; echo $?",
	"ls i18n",
	"tree guides",
	"tree -L 1 .",
	"ls .hidden.md && cat .hidden.md",
	"grep -l GET reference/api/*.md",
	"grep -h items reference/api/v1.md reference/api/v2.md | sort | uniq | wc -l",
	"grep -rn --include='*.mdx' token .",
	"ls -S reference/api/*.md",
	"rm README.md; echo $?",
	"rm -rf guides 2>&1 | sort; ls guides | wc -l",
	"mkdir newdir",
	"touch README.md new.md",
	"ls | tee list.txt | wc -l",
	"echo hi | tee /dev/null",
	"cp README.md copy.md",
	"mv notrail.md x.md",
	"sort -t/ -k2 <<< $'a/2\nb/1'",
	"printf '1\n1\n2\n' | uniq -d",
	"cut -f2 -d: reference/Makefile",
	"grep -o 'v[0-9]' reference/api/*.md | sort | uniq -c",
	"ls -R | grep -c md",
	"find . -name '*.md' -newer nope 2>&1 | head -1",
	"cat guides/auth/*.md* | grep -c token",
	"ls -r guides/auth; ls -t README.md empty.md | wc -l",
	`ls -A`,
	`ls -1a guides`,
	`ls -d guides reference`,
	`ls "guides/with space.md" guides/quickstart.md`,
	`ls README.md nope 2>&1 | sort`,
	`{ ls; ls nope; } 2>&1 | tail -2`,
	`cat -n win/crlf.txt`,
	`cat guides; echo $?`,
	`cat -e README.md`,
	`head -n 1 README.md guides/quickstart.md`,
	`head -n -1 guides/quickstart.md`,
	`tail -n 1 README.md guides/quickstart.md`,
	`tail -c 6 guides/quickstart.md`,
	`wc -m i18n/café.md`,
	`wc README.md`,
	`wc -l * 2>&1`,
	`sort -rn <<< $'10\n9\n100'`,
	`sort -f <<< $'b\nA\na\nB'`,
	`sort -t: -k2 -n <<< $'x:3\ny:1\nz:2'`,
	`printf 'a\nb\nb\nc\n' | uniq -u`,
	`cut -c1-3 i18n/café.md`,
	`echo "a,b,c" | cut -d, -f2-`,
	`echo café | tr a-z A-Z`,
	`echo 'a  b   c' | tr -s ' '`,
	`tr -cd '[:alnum:]\n' < README.md`,
	`grep -w token guides/auth/api-keys.md`,
	`grep -v '^#' guides/quickstart.md`,
	`grep -e GET -e POST reference/api/v1.md`,
	`grep -x Done. guides/quickstart.md`,
	`grep -C1 test guides/quickstart.md`,
	`grep -ri OAUTH . | sort`,
	`grep -rL token . | sort`,
	`grep -c 'one$' win/crlf.txt`,
	`grep webhook nope.md; echo $?`,
	`grep -l . * 2>&1 | sort`,
	`grep -rn token . 2>/dev/null | cut -d: -f1 | sort | uniq -c | sort -rn`,
	`cd guides && grep -n token *.md`,
	`find . -iname 'readme*'`,
	`find . -name '*.md' -not -path './guides/*' | sort`,
	`find . \( -name '*.md' -o -name '*.mdx' \) -path '*auth*' | sort`,
	`find . -empty | sort`,
	`find . -name 'v*.md' -print0 | sort -z | xargs -0 cat`,
	`wc -l $(find guides -name '*.md' -type f | sort)`,
	`tree -d .`,
	`tree -a -L 1 guides`,
	`stat -c '%n %s' README.md empty.md`,
	`stat nope; echo $?`,
	`basename guides/auth/oauth.mdx .mdx; dirname guides/auth/oauth.mdx`,
	`nl guides/quickstart.md`,
	`tac guides/quickstart.md`,
	`seq -s, 5`,
	`seq 1000000 | head -1`,
	`sed -n '/Create/,/Then/p' guides/quickstart.md`,
	`sed 's/webhook/hook/g' guides/quickstart.md`,
	`sed -E 's/(GET|POST) /\1:/' reference/api/v1.md`,
	`sed 2q guides/quickstart.md`,
	`sed '/^#/d' guides/auth/*.md`,
	`ls -1 guides | sed 's/\.md$//'`,
	`rg -n webhook guides/quickstart.md`,
	`rg -i straße i18n`,
	`rg -l token | sort`,
	`rg -c token guides | sort`,
	`rg -F '.' README.md`,
	`rg -w key guides`,
	`rg -g '*.mdx' token`,
	`rg -t md -l GET | sort`,
	`rg --hidden -l hidden`,
	`rg nothing; echo $?`,
	`rmdir guides; echo $?`,
	`ln -s README.md link.md; echo $?`,
	`chmod 600 README.md; echo $?`,
	`mkdir -p guides/new; echo $?`,
	`mv README.md guides/; echo $?`,
	`printf 'a\0b\0' | xargs -0 -n1 echo`,
	`echo a b c d e | xargs -s 10 echo`,
	`echo a b c d e | xargs -s 5 echo; echo $?`,
	`echo a b c d e | xargs -x -n 3 -s 10 echo; echo $?`,
	`echo a b c | xargs -I{} -s 12 echo {} x; echo $?`,
	`printf 'a\nb\n' | xargs -P 2 -n1 echo | sort`, // GNU xargs -P runs both at once: sorted, as the order varies
	"cat <<EOF\nhello $((1+2))\nEOF",
	`ls guides | while read -r f; do echo "<$f>"; done`,
	`for d in */; do echo "$d $(ls "$d" | wc -l)"; done`,
	`[[ README.md == *.md ]] && echo match`,
	`mapfile -t lines < guides/quickstart.md; echo ${#lines[@]} "${lines[1]}"`,
	`exit 3`,
	`set -o pipefail; ls nope | cat; echo $?`,
	`while true; do echo y; done | head -1`,
	`set -o pipefail; while true; do echo y; done | head -1; echo $?`,
	`for i in $(seq 1000); do echo $i; done | head -2`,
	`echo a; exec echo b; echo c`,
	`exec nosuch; echo after`,
	`exec -x; echo after`,
	`exec guides`,
	`find . -name '*.md' -exec grep -l token {} \; | sort`,
	`find . -name '*.md' -exec wc -l {} + | sort`,
	`find . -name '*.md' -exec nosuch {} \; ; echo $?`,
	`find guides -name '*.md' -exec false {} \; -print; echo $?`,
	`find guides -name '*.md' -exec false {} + ; echo $?`,
	`find . -name '*.md' -exec echo {} x + ; echo $?`,
	`find guides -name '*.md' -execdir echo {} \; | sort`,
	`find reference -name '*.md' -execdir pwd \; | sed 's|.*/ro||'`,
	`find guides -printf '%p|%f|%h|%P|%d|%y|%m|%M\n' | sort`,
	`find reference/ -maxdepth 1 -printf '%p %h %P\n' | sort`,
	`find guides -type f -printf '%-16f|%5s|\n' | sort`,
	`find guides -printf '%z\n' | head -2`,
	`find guides -name quickstart.md -printf '%.5f\c after\n'; echo`,
	`find . -name notrail.md -delete; echo $?`,
	`find . -type f -name '*.md' -exec grep -H -c token {} + | sort`,
	`ls -l README.md | cut -d' ' -f1`,
	`stat -c '%A %a %n' README.md guides`,
	`bash -c 'echo hi; ls guides | wc -l'`,
	`sh -c 'echo "$0 $1 $#"' name a b`,
	`find guides -type f -exec sh -c 'echo "== $1"; head -1 "$1"' _ {} \; | sort`,
	`find . -name '*.md' | sort | xargs -I{} sh -c 'echo {}; wc -l < "{}"'`,
	`ls guides | xargs -n1 bash -c 'echo "<$0>"'`,
	`bash -c 'nosuch'; echo $?`,
	`x=out; bash -c 'echo "[$x]"'; export x; bash -c 'echo "[$x]"'`,
	`bash -e -c 'false; echo no'; echo $?`,
	`echo 'echo $1' | bash -s x`,
	`bash nope.sh; echo $?`,
	`bash -z; echo $?`,
	`bash -c 'while true; do echo y; done' | head -1`,
	`printf '%05.1f|%.2f|%e|%g\n' 3.14159 2.5 1234.5 0.0001`,
	`printf '%x %X %o %#x %u\n' 255 3054 8 255 -1`,
	`printf '%5.2f|%-8.3f|%+d|% d|%-5d|\n' 3.14159 2 3 4 7`,
	`printf '%d\n' abc 3.5 "'A" 0x1f 010; echo $?`,
	`printf '%q\n' 'a b' "it's" '' 'tab	x'`,
	`printf '%.3s|%10s|%*d|\n' abcdef right 6 42`,
	`printf '%b|\n' 'a\tb' 'x\cy' 'z'`,
	`printf '%%|%5%|\n'; echo $?`,
	`printf -v y '%s-%03d' a 5; echo "$y"`,
	`printf '%(%F)T\n' 86400`,
	`printf '%s\n' a b c | xargs printf '<%s>\n'`,
	`printf '%d files\n' "$(ls | wc -l)"`,
	`yes | head -2`,
	`set -o pipefail; yes a b | head -n 3; echo $?`,
	`yes | sed 3q`,
	`yes -n | head -1; echo $?`,
	`seq 5 | sed -n '$p'`,
	`sed -s -n '$p' guides/quickstart.md README.md`,
	`sed -n '1p' guides nope README.md; echo $?`,
	`find . -regex '.*v[0-9]\.md' | sort`,
	`find . -regex '\./guides/.*\.\(md\|mdx\)' | sort`,
	`find . -iregex '.*READ.*' | sort`,
	`find . -regextype posix-extended -regex '.*/v(1|2)\.md' | sort`,
	`find . -regextype nope -regex x`,
	// names in diagnostics are quoted as coreutils' quotef does
	`cat 'no pe' 'a:b' '#x' x~ '{' 'a=b' é; echo $?`,
	`wc 'no pe'; sort 'no pe'; uniq 'no pe'; nl 'no pe'; echo $?`,
	`fold 'no pe'; expand 'no pe'; paste 'no pe'; cut -c1 'no pe'; echo $?`,
	`comm 'no pe' README.md; realpath -e 'no pe'; tee 'no pe' </dev/null; echo $?`,
	// checksums
	`md5sum README.md 'guides/with space.md' i18n/café.md empty.md`,
	`sha256sum README.md guides nope notrail.md; echo $?`,
	`sha1sum --tag README.md; sha224sum -b README.md; sha384sum --tag win/crlf.txt`,
	`sha512sum guides/*.md | cut -c1-20,129-`,
	`b2sum README.md; b2sum -l 128 --tag README.md; b2sum -l 7 README.md; echo $?`,
	`echo hello | md5sum; echo hello | sha256sum - -`,
	`find . -name '*.md' | sort | xargs md5sum | sort | uniq -w32 -d`,
	`md5sum README.md notrail.md | md5sum -c; echo $?`,
	`sha256sum --tag README.md | sha256sum -c --quiet; echo $?`,
	`b2sum -l 256 --tag README.md | b2sum -c; b2sum -l 256 README.md | b2sum -c; echo $?`,
	`printf '00000000000000000000000000000000  README.md\nbad line\nd41d8cd98f00b204e9800998ecf8427e  empty.md\n' | md5sum -c; echo $?`,
	`printf 'D41D8CD98F00B204E9800998ECF8427E  empty.md\n# a comment\n\nd41d8cd98f00b204e9800998ecf8427e *empty.md\n' | md5sum -cw --strict; echo $?`,
	`printf 'd41d8cd98f00b204e9800998ecf8427e  nope\nd41d8cd98f00b204e9800998ecf8427e  guides\n' | md5sum -c; echo $?`,
	`printf 'd41d8cd98f00b204e9800998ecf8427e  nope\n' | md5sum -c --ignore-missing; echo $?`,
	`printf 'd41d8cd98f00b204e9800998ecf8427e  nope\nd41d8cd98f00b204e9800998ecf8427e  empty.md\n' | md5sum -c --ignore-missing --status; echo $?`,
	`printf 'd41d8cd98f00b204e9800998ecf8427e empty.md\n' | md5sum -c; printf 'junk\n' | md5sum -c; echo $?`,
	`printf 'MD5 (empty.md) = d41d8cd98f00b204e9800998ecf8427e\nMD5(guides/with space.md)=0\n' | md5sum -cw; echo $?`,
	`md5sum --quiet README.md; md5sum -c --tag x; md5sum --tag -t README.md; echo $?`,
	`md5sum -cz x; md5sum -c -b x; sha1sum --status README.md; echo $?`,
	`md5sum -z README.md empty.md | tr '\0' '|'; echo`,
	`md5sum -c nope; md5sum -x; echo $?`,
	// paste, comm, rev, fold, expand
	`paste reference/api/v1.md reference/api/v2.md`,
	`paste -d, reference/api/v1.md reference/api/v2.md nope; echo $?`,
	`paste -s guides/quickstart.md`,
	`paste -sd: README.md guides/auth/api-keys.md`,
	`ls guides | paste -sd, -`,
	`printf 'a\nb\nc\nd\n' | paste - -`,
	`paste -d '' README.md notrail.md`,
	`paste -d '\t|' README.md README.md README.md`,
	`paste guides nope; echo $?`,
	`paste README.md guides; echo $?`,
	`paste -x; echo $?`,
	`comm -12 reference/api/v1.md reference/api/v2.md; echo $?`,
	`comm -3 README.md guides/quickstart.md`,
	`comm README.md; echo $?`,
	`comm README.md nope; echo $?`,
	`comm --total README.md guides/quickstart.md`,
	`comm --output-delimiter=' | ' README.md guides/quickstart.md`,
	`comm guides/quickstart.md README.md; echo $?`,
	`comm -23 guides/quickstart.md README.md`,
	`rev README.md i18n/café.md`,
	`rev nope README.md; echo $?`,
	`rev notrail.md; echo`,
	`echo hello | rev`,
	`rev guides; echo $?`,
	`fold -w 10 guides/quickstart.md`,
	`fold -sw 10 guides/quickstart.md`,
	`fold -w 4 i18n/café.md`,
	`fold -b -w 5 win/crlf.txt | cat -A`,
	`fold -w 0 README.md; echo $?`,
	`fold -w x README.md; echo $?`,
	`fold -5 README.md`,
	`fold nope; echo $?`,
	`printf 'a\tb\tc\n' | fold -w 10`,
	`printf 'a\tb\n\tc d\n' | expand | cat -A`,
	`printf 'a\tb\n\tc\td\n' | expand -i -t 4 | cat -A`,
	`printf 'a\tb\tc\td\n' | expand -t 3,6 | cat -A`,
	`printf 'a\tb\n' | expand -2 | cat -A`,
	`expand -t 0 README.md; echo $?`,
	`expand -t 4,2 README.md; echo $?`,
	`expand nope README.md; echo $?`,
	`expand reference/Makefile | cat -A`,
	`printf 'a\nb\nd\n' | comm - reference/api/v1.md; echo $?`, // jq: Debian's is jq 1.6; keys of these files are in order, as gojq prints them sorted
	`jq . data/a.json`,
	`jq -c . data/a.json`,
	`jq -r '.name' data/a.json`,
	`jq '.items[] | .id' data/a.json`,
	`jq -r '.items[].name' data/a.json`,
	`jq '.items | length' data/a.json`,
	`jq -c '.items | map(select(.id > 1))' data/a.json`,
	`jq -c '[.items[] | {id}]' data/a.json`,
	`jq 'keys' data/a.json`,
	`jq -c 'to_entries' data/b.json`,
	`jq -n '[1e17, 1e18, 1.5, 0.1, 1e-5, 3.0, 123456789012345678, 0.30000000000000004]' -c`,
	`jq -n '"a/b<>&\u007f\u001f é \t"'`,
	`jq -n '"é"' -a`,
	`jq . nope; echo $?`,
	`jq . data/bad.json; echo $?`,
	`jq -n '1 | .a' 2>/dev/null; echo $?`,
	`jq 'bad syntax(' 2>/dev/null; echo $?`,
	`cat data/a.json | jq .name`,
	`jq -e .missing data/a.json; echo $?`,
	`jq -n 'empty' -e; echo $?`,
	`jq --arg x hi -n '$x'`,
	`jq --argjson x '{"a":1}' -n '$x.a'`,
	`jq -s 'length' data/a.json data/b.json`,
	`jq -r '.items[] | "\(.id)\t\(.name)"' data/a.json`,
	`jq -r '.items[] | [.id, .name] | @csv' data/a.json`,
	`jq -r '.items[] | [.id, .name] | @tsv' data/a.json`,
	`jq --tab . data/b.json`,
	`jq --indent 4 . data/b.json`,
	`jq -R . README.md`,
	`jq -Rs . README.md`,
	`jq -j '.name' data/a.json; echo`,
	`jq 'input_filename' data/b.json`,
	`jq -n '[inputs | .name] ' data/a.json data/b.json -c`,
	`jq '.. | numbers' data/b.json`,
	`jq -n '[limit(3; range(10))]' -c`,
	`jq 'paths' -c data/b.json`,
	`jq -r '.items[] | select(.name | test("^b")) | .id' data/a.json`,
	`jq . data; echo $?`,
	`echo '{"a":1} {"a":2}' | jq .a`,
	`echo '[3,1,2]' | jq -c 'sort, add, min, max, unique'`,
	`echo '"x"' | jq -r 'ascii_upcase, length, (. * 3)'`,
	`jq -n '$ENV | type'`,
	`jq -n 'env | type'`,
	`jq -n '{"a":null,"b":[],"c":{}}'`, // diff: unified headers hold the copies' times, so tail skips them
	`diff reference/api/v1.md reference/api/v2.md; echo $?`,
	`diff -u reference/api/v1.md reference/api/v2.md | tail -n +3`,
	`diff README.md README.md; echo $?`,
	`diff -s README.md README.md`,
	`diff -q README.md guides/quickstart.md; echo $?`,
	`diff README.md nope; echo $?`,
	`diff notrail.md README.md`,
	`diff -u notrail.md empty.md | tail -n +3`,
	`diff empty.md README.md`,
	`diff guides/quickstart.md guides/auth/oauth.mdx`,
	`diff -u guides/quickstart.md guides/auth/oauth.mdx | tail -n +3`,
	`diff -U1 guides/quickstart.md guides/auth/api-keys.md | tail -n +3`,
	`diff -U0 guides/quickstart.md guides/auth/api-keys.md | tail -n +3`,
	`diff reference/api reference/api/v1.md; echo $?`,
	`diff guides guides/auth`,
	`diff README.md; echo $?`,
	`diff a b c; echo $?`,
	`printf 'a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n' | diff - guides/quickstart.md`,
	`seq 1 12 | diff -u - README.md | tail -n +3`,
	`diff -w win/crlf.txt win/crlf.txt; echo $?`,
	`printf 'line  one\nline two\n' | diff -b - win/crlf.txt; echo $?`,
	`printf 'LINE one\r\nline two\r\n' | diff -i - win/crlf.txt; echo $?`,
	`diff -q guides reference`,
	`diff --label A --label B -u README.md notrail.md`,
	`diff i18n/café.md win/crlf.txt | cat -A`,
	// realpath, readlink, which: bash's paths start at the mount, which sed cuts off
	`realpath README.md guides/../guides/auth | sed 's|.*/ro/|/|'`,
	`realpath nope | sed 's|.*/ro/|/|'`,
	`realpath nope/x; echo $?`,
	`realpath -e nope; echo $?`,
	`realpath -m nope/x/../y | sed 's|.*/ro/|/|'`,
	`realpath README.md/x; echo $?`,
	`realpath --relative-to=guides/auth README.md guides/quickstart.md`,
	`realpath --relative-to=. guides/../README.md reference/api`,
	`realpath; echo $?`,
	`realpath -q nope nope/x | sed 's|.*/ro/|/|'`,
	`cd guides && realpath --relative-to=.. auth`,
	`readlink README.md; echo $?`,
	`readlink -f guides/../README.md | sed 's|.*/ro/|/|'`,
	`readlink -f nope/x; echo $?`,
	`readlink -e nope; echo $?`,
	`readlink -v README.md; echo $?`,
	`readlink; echo $?`,
	`readlink -m a/../b | sed 's|.*/ro/|/|'`,
	`which nosuch; echo $?`,
	`which -x; echo $?`,
	`which; echo $?`,
	// grep -T, and the patterns of -f files that do not compile
	`grep -f data/pats.txt guides/quickstart.md; echo $?`,
	`grep -E -f data/pats.txt guides/quickstart.md; echo $?`,
	`grep -e ok -E -f data/pats.txt README.md; echo $?`,
	`grep -E -e 'a(' README.md; echo $?`,
	`grep -F -f data/pats.txt -r . | sort`,
	`grep -T token guides/quickstart.md`,
	`grep -Tn token guides/quickstart.md guides/auth/api-keys.md | cat -A`,
	`grep -THc token guides/quickstart.md | cat -A`,
	`grep -Tb webhook guides/quickstart.md | cat -A`,
	`grep -Tn -A1 Create guides/quickstart.md | cat -A`,
	`grep -rT key guides | sort | cat -A`,
	// ls -m -Q -X
	`ls -m`,
	`ls -m guides reference`,
	`ls -Q guides`,
	`ls -mQ`,
	`ls -X reference`,
	`ls -XA`,
	`ls -Xr guides/auth`,
	`ls -QR reference`,
	`ls -lm guides`,
	`ls -ml guides | cut -d' ' -f1`,
	`ls -mF`,
	`ls -Q1 i18n "guides/with space.md"`,
	`ls -m nope; echo $?`,
	`ls -dm */`,
	// du: apparent sizes of files only; GNU's directories and blocks are the disk's
	`du -b README.md guides/quickstart.md`,
	`du --apparent-size README.md empty.md notrail.md`,
	`du -cb README.md notrail.md`,
	`du -ab README.md`,
	`du -h --apparent-size README.md`,
	`du nope; echo $?`,
	`du -b README.md nope; echo $?`,
	`du -sa .; echo $?`,
	`du -d x .; echo $?`,
	`du -h README.md guides | sort -k2 | cut -f2`,
	// file 5.44
	`file README.md empty.md notrail.md`,
	`file -b i18n/café.md win/crlf.txt reference/Makefile guides`,
	`file -b data/a.json data/b.json data/bad.json`,
	`file nope; echo $?`,
	`file -b --mime-type README.md data/a.json guides empty.md reference/Makefile`,
	`file -i README.md i18n/café.md`,
	`file -b - < README.md`,
	`file; echo $?`,
	`find . -type f | sort | xargs file -b | sort | uniq -c`,
}

// TestBashDifferential runs each line in real bash 5.2 with GNU tools, at
// the root of a read-only bind mount of a copy of the files, and in the
// shell over the same files: stdout, stderr and the exit status are the
// same, except that bash -c's diagnostics say "bash: line N: " where the
// shell says "bash: ".
func TestBashDifferential(t *testing.T) {
	testenv.Battery(t)
	if len(bashLines) < 150 {
		t.Fatalf("only %d lines", len(bashLines))
	}
	compareWithBash(t, bashLines)
}

// compareWithBash runs lines in bash and in the shell and reports every
// line whose stdout, stderr or exit status differ.
func compareWithBash(t *testing.T, lines []string) {
	t.Helper()
	compareWithBashFS(t, agentDocs(), lines)
}

// compareWithBashFS is compareWithBash over the files of fsys.
func compareWithBashFS(t *testing.T, fsys fstest.MapFS, lines []string) {
	t.Helper()
	want := runBash(t, fsys, lines)
	sess := shell.New(fsys)
	for i, line := range lines {
		if err := sess.Chdir("/"); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		st, err := sess.Run(context.Background(), line, &out, &errb)
		if err != nil {
			t.Errorf("%s: %v", line, err)
		}
		got := result{out.String(), errb.String(), st}
		if got != want[i] {
			t.Errorf("%s\n shell: out %q err %q status %d\n  bash: out %q err %q status %d", line, got.out, got.err, got.status, want[i].out, want[i].err, want[i].status)
		}
	}
}

// runBash runs every line in one bash 5.2 process, each in a subshell of
// its own (as bash -c would run it: its own variables, options and
// working directory, standard input empty) at the root of a read-only
// bind mount of a copy of fsys, and returns what each printed and its
// exit status. One process for all lines keeps the test fast: a subshell
// is a fork, a new bash an exec.
func runBash(t *testing.T, fsys fstest.MapFS, lines []string) []result {
	t.Helper()
	ci := os.Getenv("CI") == "true"
	bash := "/bin/bash"
	ver, err := exec.Command(bash, "-c", "echo $BASH_VERSION").Output()
	if err != nil || !strings.HasPrefix(string(ver), "5.2") {
		if ci {
			t.Fatalf("bash 5.2 is needed: %q, %v", ver, err)
		}
		t.Skipf("bash 5.2 is needed: %q, %v", ver, err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	for name, f := range fsys {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The copy has the modes of fsys: files as given, directories 0555
	// (as fstest.MapFS makes them), made writable again for the cleanup.
	var dirs []string
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			dirs = append(dirs, p)
			return nil
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, src+string(filepath.Separator)))
		return os.Chmod(p, fsys[rel].Mode.Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if err := os.Chmod(d, 0o555); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, d := range dirs {
			os.Chmod(d, 0o755)
		}
	})
	root := readOnlyMount(t, src, filepath.Join(dir, "ro"), ci)
	res := filepath.Join(dir, "results")
	if err := os.Mkdir(res, 0o755); err != nil {
		t.Fatal(err)
	}
	// Each line is a quoted word that eval parses in its subshell, so that
	// no line can change how the others parse.
	var script strings.Builder
	fmt.Fprintf(&script, "cd %s || exit 99\nlines=(\n", shellQuote(root))
	for _, line := range lines {
		fmt.Fprintf(&script, "%s\n", shellQuote(line))
	}
	fmt.Fprintf(&script, ")\nfor i in \"${!lines[@]}\"; do\n"+
		"  cd %[1]s || exit 99\n"+
		"  ( eval \"${lines[i]}\" ) >%[2]s/$i.out 2>%[2]s/$i.err </dev/null\n"+
		"  echo $? >%[2]s/$i.status\n"+
		"done\n", shellQuote(root), shellQuote(res))
	cmd := exec.Command(bash, "-c", script.String())
	cmd.Args[0] = "bash"
	cmd.Env = []string{"PATH=" + awkShim(t, dir, lines, ci) + "/usr/bin:/bin", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "HOME=/nonexistent", "TZ=UTC"}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	lineN := regexp.MustCompile(`(?m)^bash: line \d+: `)
	read := func(i int, ext string) string {
		b, err := os.ReadFile(filepath.Join(res, fmt.Sprintf("%d.%s", i, ext)))
		if err != nil {
			t.Fatalf("line %q: %v", lines[i], err)
		}
		return string(b)
	}
	results := make([]result, len(lines))
	for i := range lines {
		st, err := strconv.Atoi(strings.TrimSpace(read(i, "status")))
		if err != nil {
			t.Fatalf("line %q: status: %v", lines[i], err)
		}
		results[i] = result{read(i, "out"), lineN.ReplaceAllString(read(i, "err"), "bash: "), st}
	}
	return results
}

// awkShim makes, when a line runs awk, a directory where "awk" is GNU
// awk (Debian's default awk is mawk) and returns it with a colon, for
// the front of PATH; without gawk it skips the test, or fails it under
// CI.
func awkShim(t *testing.T, dir string, lines []string, ci bool) string {
	t.Helper()
	if !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, "awk") }) {
		return ""
	}
	gawk, err := exec.LookPath("gawk")
	if err != nil {
		if ci {
			t.Fatalf("gawk is needed as the oracle of awk: %v", err)
		}
		t.Skipf("gawk is needed as the oracle of awk: %v", err)
	}
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(gawk, filepath.Join(bin, "awk")); err != nil {
		t.Fatal(err)
	}
	return bin + ":"
}

// shellQuote quotes s for bash.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// readOnlyMount bind-mounts src read-only at dst and returns dst; without
// the privilege to mount (and not under CI), it returns src itself.
func readOnlyMount(t *testing.T, src, dst string, ci bool) string {
	t.Helper()
	if err := os.Mkdir(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("mount", "--bind", src, dst).CombinedOutput()
	if err == nil {
		t.Cleanup(func() {
			if out, err := exec.Command("umount", dst).CombinedOutput(); err != nil {
				t.Errorf("umount %s: %v %s", dst, err, out)
			}
		})
		out, err = exec.Command("mount", "-o", "remount,bind,ro", dst).CombinedOutput()
	}
	if err != nil {
		if ci {
			t.Fatalf("read-only bind mount: %v %s", err, out)
		}
		t.Logf("no read-only bind mount (%v %s); comparing on a plain directory", err, bytes.TrimSpace(out))
		return src
	}
	return dst
}
