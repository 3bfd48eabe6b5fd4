package webdavfs_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDavfs2 mounts the server read-only with davfs2 (Debian's davfs2
// package; optional: it needs root, /dev/fuse and mount privileges, so it
// is skipped, even under CI, when any of them is missing) and compares the
// mounted tree with the visible source files.
func TestDavfs2(t *testing.T) {
	mountDavfs, err := exec.LookPath("mount.davfs")
	if err != nil {
		t.Skip("davfs2 is not installed (optional: apt-get install davfs2)")
	}
	if os.Geteuid() != 0 {
		t.Skip("davfs2 mount needs root")
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skip("no /dev/fuse")
	}
	e := clientEnv(t)
	before := snapshot(t, e.store)
	dir := t.TempDir()
	conf := filepath.Join(dir, "davfs2.conf")
	mnt := filepath.Join(dir, "mnt")
	cache := filepath.Join(dir, "cache")
	for _, d := range []string{mnt, cache} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// mount.davfs drops root for the davfs2 user, which needs the cache.
	for _, d := range []string{filepath.Dir(dir), dir, cache} {
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	cfg := "use_locks 0\nask_auth 0\ncache_dir " + cache + "\nif_match_bug 1\n"
	if err := os.WriteFile(conf, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(mountDavfs, "-o", "ro,conf="+conf, e.srv.URL+"/", mnt).CombinedOutput()
	if err != nil {
		t.Skipf("davfs2 mount not possible here: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("umount: %v\n%s", err, out)
		}
	})
	got := readTree(t, mnt)
	delete(got, "lost+found")
	want := visible(e.files, false)
	if !mapsEqual(got, want) {
		var names []string
		for k := range got {
			names = append(names, k)
		}
		t.Errorf("davfs2 mount has %d files %q, want the %d visible source files", len(got), names, len(want))
	}
	// Writes through the mount fail.
	if err := os.WriteFile(filepath.Join(mnt, "new.md"), []byte("x"), 0o644); err == nil {
		t.Error("write through the read-only mount succeeded")
	}
	if err := os.Remove(filepath.Join(mnt, "index.md")); err == nil {
		t.Error("remove through the read-only mount succeeded")
	}
	if after := snapshot(t, e.store); after != before {
		t.Error("davfs2 changed the store")
	}
	if strings.Contains(strings.Join(keys(got), " "), "internal/") {
		t.Error("the anonymous mount shows internal/")
	}
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
