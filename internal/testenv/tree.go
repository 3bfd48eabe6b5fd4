package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteTree writes files (slash-separated path: content) under a new
// temporary directory, removed when t ends, and returns it.
func WriteTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for slug, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(slug))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
