package gnu

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"
)

// TestSumCheckLines: checksum lines that are not one are counted as
// improperly formatted, whatever their shape, and never stop the check
// (the shell's differential battery compares the rest with coreutils).
func TestSumCheckLines(t *testing.T) {
	const empty = "d41d8cd98f00b204e9800998ecf8427e"
	for _, tc := range []struct {
		name, list  string
		status      int
		out, errOut string
	}{
		{"blanks", "   \t\n" + empty + "  empty.md\n", 0, "empty.md: OK\n", "md5sum: 'standard input': 1: improperly formatted MD5 checksum line\nmd5sum: WARNING: 1 line is improperly formatted\n"},
		{"lone backslash", "\\\n" + empty + "  empty.md\n", 0, "empty.md: OK\n", "md5sum: 'standard input': 1: improperly formatted MD5 checksum line\nmd5sum: WARNING: 1 line is improperly formatted\n"},
		{"tag without name", "\\MD5 (\nMD5 (x\nMD5 (x) =\n", 1, "", "md5sum: 'standard input': 1: improperly formatted MD5 checksum line\nmd5sum: 'standard input': 2: improperly formatted MD5 checksum line\nmd5sum: 'standard input': 3: improperly formatted MD5 checksum line\nmd5sum: 'standard input': no properly formatted checksum lines found\n"},
		{"bad escape", "\\" + empty + "  a\\qb\n", 1, "", "md5sum: 'standard input': 1: improperly formatted MD5 checksum line\nmd5sum: 'standard input': no properly formatted checksum lines found\n"},
		{"escaped name", "\\" + empty + "  no\\\\pe\n", 1, "no\\pe: FAILED open or read\n", "md5sum: 'no\\pe': No such file or directory\nmd5sum: WARNING: 1 listed file could not be read\n"},
		{"newline in name", "\\" + empty + "  a\\nb\\\\c\n", 1, "\\a\\nb\\\\c: FAILED open or read\n", "md5sum: 'a'$'\\n''b\\c': No such file or directory\nmd5sum: WARNING: 1 listed file could not be read\n"},
		{"short digest", empty[:31] + "  empty.md\n", 1, "", "md5sum: 'standard input': 1: improperly formatted MD5 checksum line\nmd5sum: 'standard input': no properly formatted checksum lines found\n"},
		{"not hex", strings.Repeat("g", 32) + "  empty.md\n", 1, "", "md5sum: 'standard input': 1: improperly formatted MD5 checksum line\nmd5sum: 'standard input': no properly formatted checksum lines found\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb strings.Builder
			env := &Env{FS: fstest.MapFS{"empty.md": {Mode: 0o444}}, Stdin: strings.NewReader(tc.list), Stdout: &out, Stderr: &errb}
			status := Md5sum(context.Background(), env, []string{"-cw", "-"})
			if status != tc.status || out.String() != tc.out || errb.String() != tc.errOut {
				t.Errorf("md5sum -cw of %q: status %d, out %q, err %q; want %d, %q, %q", tc.list, status, out.String(), errb.String(), tc.status, tc.out, tc.errOut)
			}
		})
	}
}
