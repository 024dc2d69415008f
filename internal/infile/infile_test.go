package infile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A regular file reads as with os; a FIFO, a device or a directory is refused at once.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	file, fifo := filepath.Join(dir, "plan"), filepath.Join(dir, "fifo")
	os.WriteFile(file, []byte("the plan"), 0o644)
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(file); err != nil || string(data) != "the plan" {
		t.Errorf("ReadFile of a regular file: %q, %v", data, err)
	}
	for _, path := range []string{fifo, "/dev/null", dir} {
		if f, err := Open(path); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Open(%s): %v, want ErrNotRegular", path, err)
			if f != nil {
				f.Close()
			}
		}
	}
	if _, err := Open(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open of a missing file: %v", err)
	}
}
