package shell_test

import (
	"testing"
	"testing/fstest"
)

// awkDocs are agentDocs and the data files of the awk lines: numbers,
// tabs, CSV, blank lines, a passwd-like file, ranges, a program file.
func awkDocs() fstest.MapFS {
	m := agentDocs()
	files := map[string]string{
		"t/nums.txt":  "10 apple 3.5\n2 banana 10\n33 cherry -1\n2 banana 7\n  007  x   0x1A\n",
		"t/tabs.tsv":  "name\tage\tcity\nann\t31\tParis\nbob\t27\tRome\nzoé\t5\tSão Paulo\n",
		"t/blank.txt": "\n\npara one\nline two\n\n\n\npara two\n\nlast one\nlast two\n\n",
		"t/users.csv": "id,name,score\n1,Ann,90\n2,Bob,85\n3,Cé,77\n4,Dee,85\n",
		"t/passwd":    "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/usr/sbin:/usr/sbin/nologin\nbin:x:2:2:bin:/bin:/usr/sbin/nologin\n",
		"t/log.txt":   "start\nv1.2.3 release\nerror: bad thing\nend\nnoise\nstart\nmiddle v10.0\nend\nafter\n",
		"t/prog.awk":  "# counts lines\n{ n++ }\nEND { print n, \"lines\" }\n",
		"t/long.txt":  "short\n" + "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890\nmid\n",
		"t/bad.awk":   "BEGIN {\n  x = 1\n  y = )\n}\n",
		"t/dups.txt":  "b\na\nb\nc\na\nb\n",
	}
	for name, content := range files {
		m[name] = &fstest.MapFile{Data: []byte(content), Mode: 0o444}
	}
	return m
}

// awkLines are the awk command lines that test the shell's part, run by
// GNU awk 5.2 in bash and by the shell: globs and cd before awk, other
// commands piping into awk, and gnu's command line around package awk
// (usage errors, program files that are missing or hold a syntax error).
// The battery of awk itself, run with package awk against gawk, is
// awk/testdata/gawk.txt.
var awkLines = []string{
	// the shell's words and working directory
	`cd t && awk -F, 'NR==1 {print NF}' users.csv`,
	`awk 'FNR == 1 { print FILENAME }' t/*.txt`,
	`awk '{ x = $1 } END { print x }' reference/api/*.md`,
	// other commands piping into awk
	`wc -l < guides/quickstart.md | awk '{ print $1 * 2 }'`,
	`ls guides | awk '{ print toupper(substr($0, 1, 1)) substr($0, 2) }'`,
	`grep -rn token . | sort | awk -F: '{ print $1 }' | uniq -c`,
	`find . -name '*.md' | sort | awk -F/ '{ print $NF }' | head -4`,
	// gnu's command line: program files and usage errors
	`awk -f t/bad.awk; echo $?`,
	`awk -f nope.awk; echo $?`,
	`awk 2>/dev/null; echo $?`,
	`awk -F 2>&1 | head -1; awk -F 2>/dev/null; echo $?`,
	`awk -f 2>&1 | head -3`,
	`awk -v x 'BEGIN { }' 2>&1 | head -1; echo $?`,
}

// TestAwkDifferential runs the awk lines in bash with GNU awk and in the
// shell: stdout, stderr and exit status are the same.
func TestAwkDifferential(t *testing.T) {
	t.Logf("%d lines", len(awkLines))
	compareWithBashFS(t, awkDocs(), awkLines)
}
