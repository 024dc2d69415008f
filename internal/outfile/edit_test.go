package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// An edit made after the caller read the file is never overwritten: Edit compares just
// before the rename, leaves the file and no temporary file. Before (source.WriteAtomic) the
// rename went ahead, and an edit appended a moment into a rewrite was lost.
func TestEditKeepsAnEditMadeMeanwhile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "app.cu")
	os.WriteFile(path, []byte("read\nedited meanwhile\n"), 0o644)
	err := Edit(path, []byte("rewritten\n"), []byte("read\n"), "")
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("Edit over a changed file: %v, want ErrChanged", err)
	}
	if got := contents(t, path); got != "read\nedited meanwhile\n" {
		t.Errorf("the file holds %q: the user's edit was lost", got)
	}
	leftovers(t, dir, "app.cu")
	if err := Edit(path, []byte("rewritten\n"), []byte("read\nedited meanwhile\n"), ""); err != nil {
		t.Fatal(err)
	}
	if got := contents(t, path); got != "rewritten\n" {
		t.Errorf("unchanged file not written: %q", got)
	}
	leftovers(t, dir, "app.cu")
}

// A link is written through to its target when that lies in the allowed tree, which stays a
// link; one that leads out of the tree is refused. Before, the link was replaced by a plain
// file without a word.
func TestEditThroughLinks(t *testing.T) {
	tree, outside := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(tree, "common"), 0o755)
	in := filepath.Join(tree, "common", "k.cu")
	out := filepath.Join(outside, "k.cu")
	for _, p := range []string{in, out} {
		os.WriteFile(p, []byte("old\n"), 0o644)
	}
	os.MkdirAll(filepath.Join(tree, "src"), 0o755)
	inLink, outLink := filepath.Join(tree, "src", "in.cu"), filepath.Join(tree, "src", "out.cu")
	os.Symlink("../common/k.cu", inLink)
	os.Symlink(out, outLink)
	if err := Edit(inLink, []byte("new\n"), []byte("old\n"), tree); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(inLink); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", st.Mode(), err)
	}
	if got := contents(t, in); got != "new\n" {
		t.Errorf("the link's target holds %q", got)
	}
	if err := Edit(outLink, []byte("new\n"), []byte("old\n"), tree); !errors.Is(err, ErrOutside) {
		t.Errorf("a link out of the tree: %v, want ErrOutside", err)
	}
	if got := contents(t, out); got != "old\n" {
		t.Errorf("the file outside the tree holds %q", got)
	}
	leftovers(t, filepath.Join(tree, "common"), "k.cu")
}

// A file with other hard links is left as it was (the rename would split the names).
func TestEditRefusesHardLinks(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.cu"), filepath.Join(dir, "b.cu")
	os.WriteFile(a, []byte("old\n"), 0o644)
	if err := os.Link(a, b); err != nil {
		t.Skip("no hard links here:", err)
	}
	if err := Edit(a, []byte("new\n"), []byte("old\n"), ""); !errors.Is(err, ErrHardLinks) {
		t.Errorf("Edit of a file with two names: %v, want ErrHardLinks", err)
	}
	if contents(t, a) != "old\n" || contents(t, b) != "old\n" {
		t.Error("a file with hard links was written")
	}
	leftovers(t, dir, "a.cu", "b.cu")
}

// As root, the new file gets the old one's owner, group and mode: another user's file is not
// handed to root (before, the temporary file's owner was kept).
func TestEditKeepsOwnerAndMode(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root can make a file another user's")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "app.cu")
	os.WriteFile(path, []byte("old\n"), 0o600)
	if err := os.Chown(path, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o640)
	if err := Edit(path, []byte("new\n"), []byte("old\n"), ""); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	sys := st.Sys().(*syscall.Stat_t)
	if sys.Uid != 65534 || sys.Gid != 65534 || st.Mode().Perm() != 0o640 {
		t.Errorf("after Edit: owner %d:%d mode %v, want 65534:65534 -rw-r-----", sys.Uid, sys.Gid, st.Mode().Perm())
	}
}

// What is not a regular file is refused, without opening it (a FIFO would block).
func TestEditRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "f.cu")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Edit(fifo, []byte("x"), nil, ""); err == nil {
		t.Error("Edit of a FIFO succeeded")
	}
	leftovers(t, dir, "f.cu")
}
