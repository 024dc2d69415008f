package testenv

import (
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// DeepDir makes a chain of directories under dir deeper than PATH_MAX, through openat(2) (a
// path that long cannot be named), and returns the whole chain, relative to dir; the chain is
// removed when the test ends.
func DeepDir(t testing.TB, dir string) string {
	t.Helper()
	name := strings.Repeat("d", 250)
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	rel := ""
	for range 20 {
		if err := syscall.Mkdirat(fd, name, 0o755); err != nil {
			t.Fatal(err)
		}
		next, err := syscall.Openat(fd, name, syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
		syscall.Close(fd)
		if err != nil {
			t.Fatal(err)
		}
		fd, rel = next, filepath.Join(rel, name)
	}
	syscall.Close(fd)
	t.Cleanup(func() { exec.Command("rm", "-rf", filepath.Join(dir, name)).Run() })
	return rel
}
