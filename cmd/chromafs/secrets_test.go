package main

import (
	"strings"
	"testing"
)

// TestHelpHidesSecrets: secrets that come from the environment (the Chroma
// API key, passwords in the Chroma and Redis URLs) never appear in any
// command's --help, which shows each flag's default.
func TestHelpHidesSecrets(t *testing.T) {
	t.Setenv("CHROMA_API_KEY", "ck-secret-key-1")
	t.Setenv("CHROMA_URL", "https://admin:chroma-pass-2@chroma.example:8000")
	t.Setenv("CHROMAFS_REDIS_URL", "redis://:redis-pass-3@cache.example:6379/0")
	for _, args := range [][]string{{"--help"}, {"ls", "--help"}, {"grep", "--help"}, {"serve", "--help"}, {"ingest", "--help"}} {
		out, errOut, code := cli(t, args...)
		if code != 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
		for _, secret := range []string{"ck-secret-key-1", "chroma-pass-2", "redis-pass-3"} {
			if strings.Contains(out+errOut, secret) {
				t.Errorf("%v: the help shows the secret %q", args, secret)
			}
		}
	}
	out, _, _ := cli(t, "--help")
	for _, want := range []string{"chroma.example:8000", "(set)"} {
		if !strings.Contains(out, want) {
			t.Errorf("--help does not show %q (the default without its secret):\n%s", want, out)
		}
	}
}
