package source

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A stubDir holds empty headers standing in for the ones a file includes and no include
// directory has: a third-party library's (TensorRT, OpenCV, cuDNN, thrust, MPI) or a
// generated one. clang stops a file at the first include it cannot find; with an empty
// stand-in it goes on, and what used the missing header's names is an error in the functions
// that use them (their pairs undecidable, broken.go) while the rest of the file is analysed.
// The directory is searched last (-idirafter), so it never hides a header that exists; it is
// the one parse's own, so whether a header exists (__has_include) never depends on which
// other file was parsed first.
type stubDir struct {
	dir   string // "" until the first stub
	names []string
}

// add writes an empty header for name (as the include spelled it); false when it cannot
// stand in for it: an absolute path, or one already stubbed (the stub did not help).
func (s *stubDir) add(parent, name string) (bool, error) {
	if name == "" || filepath.IsAbs(name) {
		return false, nil
	}
	for _, n := range s.names {
		if n == name {
			return false, nil
		}
	}
	if s.dir == "" {
		d, err := os.MkdirTemp(parent, "stubs-")
		if err != nil {
			return false, fmt.Errorf("standing in for the missing header %s: %w", name, err)
		}
		// "../x.h" resolves against the search directory: search a directory deep enough
		// inside the stub directory that every ../ stays in it.
		s.dir = filepath.Join(d, "a", "b", "c", "d", "e", "f", "g", "h")
		if err := os.MkdirAll(s.dir, 0o755); err != nil {
			return false, fmt.Errorf("standing in for the missing header %s: %w", name, err)
		}
	}
	p := filepath.Join(s.dir, filepath.FromSlash(name))
	if !strings.HasPrefix(p, s.root()+string(filepath.Separator)) {
		return false, nil // more ../ than the stub directory is deep
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return false, fmt.Errorf("standing in for the missing header %s: %w", name, err)
	}
	if err := os.WriteFile(p, []byte("/* Echo: an empty stand-in for a header no include directory has. */\n"), 0o644); err != nil {
		return false, fmt.Errorf("standing in for the missing header %s: %w", name, err)
	}
	s.names = append(s.names, name)
	return true, nil
}

func (s *stubDir) remove() {
	if s.dir != "" {
		os.RemoveAll(s.root())
	}
}

// root is the directory add made, above the search directory.
func (s *stubDir) root() string {
	d := s.dir
	for i := 0; i < 8; i++ {
		d = filepath.Dir(d)
	}
	return d
}
