package plandir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nobody owns the files a test gives to another user; only root can give them.
const nobody = 65534

func requireChown(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file to another user (CI runs as root; try sudo)")
	}
}

// A directory is trusted when only root or this user can put a file there: its owner is one
// of them and others cannot write into it, unless it is sticky (others then cannot replace a
// file they do not own).
func TestTrusted(t *testing.T) {
	cases := []struct {
		name    string
		mode    os.FileMode
		owner   int // -1: this user
		problem string
	}{
		{"private", 0o700, -1, ""},
		{"readable", 0o755, -1, ""},
		{"group-writable", 0o775, -1, "writable by others"},
		{"world-writable", 0o757, -1, "writable by others"},
		{"sticky world-writable", 0o777 | os.ModeSticky, -1, ""},
		{"another user's", 0o755, nobody, "belongs to uid 65534"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "plans")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, c.mode); err != nil { // Mkdir's mode passes through the umask
				t.Fatal(err)
			}
			if c.owner >= 0 {
				requireChown(t)
				if err := os.Chown(dir, c.owner, c.owner); err != nil {
					t.Fatal(err)
				}
			}
			err := Trusted(dir)
			switch {
			case c.problem == "" && err != nil:
				t.Errorf("Trusted(%v): %v; want it trusted", c.mode, err)
			case c.problem != "" && (err == nil || !strings.Contains(err.Error(), c.problem)):
				t.Errorf("Trusted(%v): %v; want a refusal saying %q", c.mode, err, c.problem)
			}
			if _, rerr := Read(dir); (rerr == nil) != (c.problem == "") {
				t.Errorf("Read: %v; want the verdict Trusted gave (%v)", rerr, err)
			}
		})
	}
}

// Add makes a missing directory, so it must tell "missing" from "untrusted".
func TestTrustedMissing(t *testing.T) {
	err := Trusted(filepath.Join(t.TempDir(), "none"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Trusted of a missing directory: %v; want fs.ErrNotExist", err)
	}
}
