package outfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Replace never writes through what stands at the path: a link to another file is replaced by
// a regular file, and the file it named is left as it was.
func TestReplaceLinkNotFollowed(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other")
	if err := os.WriteFile(other, []byte("theirs"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "plan.json")
	if err := os.Symlink(other, path); err != nil {
		t.Fatal(err)
	}
	if err := Replace(path, []byte("ours"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != 0o644 {
		t.Fatalf("after Replace: %v, %v; want a regular file of mode 0644", st.Mode(), err)
	}
	if b, _ := os.ReadFile(path); string(b) != "ours" {
		t.Errorf("path holds %q, want %q", b, "ours")
	}
	if b, _ := os.ReadFile(other); string(b) != "theirs" {
		t.Errorf("the link's target holds %q: it was written through", b)
	}
	leftovers(t, dir, "other", "plan.json")
}

// A FIFO at the path is replaced, not opened (which would block until a reader came).
func TestReplaceFIFO(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "kept.json")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	if err := Replace(path, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != 0o600 {
		t.Fatalf("after Replace: %v, %v; want a regular file of mode 0600", st.Mode(), err)
	}
	leftovers(t, dir, "kept.json")
}

// A directory that cannot be written leaves no file and says why.
func TestReplaceFails(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into a read-only directory")
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o700)
	if err := Replace(filepath.Join(dir, "f"), []byte("x"), 0o644); err == nil {
		t.Fatal("Replace into a read-only directory succeeded")
	}
	leftovers(t, dir)
}
