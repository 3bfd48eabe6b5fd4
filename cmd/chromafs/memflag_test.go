package main

import "testing"

// TestParseByteSize checks the units of --max-memory and its refusals.
func TestParseByteSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1024", 1024, true},
		{"512MiB", 512 << 20, true},
		{"512M", 512 << 20, true},
		{"2g", 2 << 30, true},
		{"1.5GB", 3 << 29, true},
		{"64KiB", 64 << 10, true},
		{"", 0, false},
		{"-1G", 0, false},
		{"lots", 0, false},
		{"1P", 0, false},
	} {
		got, err := parseByteSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
	}
	if m := machineMemory(); m <= 0 {
		t.Errorf("machineMemory() = %d on Linux", m)
	}
}
