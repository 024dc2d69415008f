package embedshim

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func library(t *testing.T, content string) ([]byte, string) {
	t.Helper()
	sum := sha256.Sum256([]byte(content))
	return []byte(content), hex.EncodeToString(sum[:])
}

// extract writes the shim b, whose SHA-256 is sum, under base as Extract does.
func extract(base string, b []byte, sum string) (string, error) {
	return extractAs(base, "shim", "libechoshim.so", b, sum)
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// The library lands once under a name its content decides, and is used as it is after that.
func TestExtractOnce(t *testing.T) {
	base := filepath.Join(t.TempDir(), "cache")
	b, sum := library(t, "a preload library")
	path, err := extract(base, b, sum)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != string(b) || !strings.Contains(path, "shim-"+sum[:16]) {
		t.Fatalf("%s holds %q; want the library under its hash", path, got)
	}
	first := inode(t, path)
	again, err := extract(base, b, sum)
	if err != nil || again != path || inode(t, again) != first {
		t.Errorf("second extract: %s, %v, inode %d; want the same file, untouched (inode %d)", again, err, inode(t, again), first)
	}
	other, otherSum := library(t, "another build's library")
	if p, err := extract(base, other, otherSum); err != nil || p == path {
		t.Errorf("another build's library: %s, %v; want a path of its own", p, err)
	}
}

// A file changed since it was written is replaced before anything preloads it.
func TestExtractReplacesChangedFile(t *testing.T) {
	base := filepath.Join(t.TempDir(), "cache")
	b, sum := library(t, "a preload library")
	path, err := extract(base, b, sum)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("swapped"), 0o644); err != nil {
		t.Fatal(err)
	}
	if path, err = extract(base, b, sum); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != string(b) {
		t.Errorf("after a swap the cache holds %q, want the library again", got)
	}
}

// A cache another user could write into is refused: they could swap the library.
func TestExtractRefusesSharedCache(t *testing.T) {
	b, sum := library(t, "a preload library")
	base := filepath.Join(t.TempDir(), "cache")
	if err := os.Mkdir(base, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(base, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := extract(base, b, sum); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("world-writable cache: %v; want a refusal saying so", err)
	}
	if os.Geteuid() != 0 {
		return // only root can hand a directory to another user
	}
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(base, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := extract(base, b, sum); err == nil || !strings.Contains(err.Error(), "belongs to another user") {
		t.Errorf("another user's cache: %v; want a refusal saying so", err)
	}
}

// A user without ~/.cache (a new account, nobody's HOME) gets one, private to them.
func TestExtractMakesTheCacheHome(t *testing.T) {
	home := t.TempDir()
	base := filepath.Join(home, ".cache", "echo")
	b, sum := library(t, "a preload library")
	if _, err := extract(base, b, sum); err != nil {
		t.Fatalf("no ~/.cache yet: %v", err)
	}
	fi, err := os.Stat(filepath.Join(home, ".cache"))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("~/.cache: %v, %v; want it made, 0700", fi.Mode(), err)
	}
}
