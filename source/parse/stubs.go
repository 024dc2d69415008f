package parse

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// A stubDir holds empty headers standing in for the ones a file includes and no include
// directory has: a third-party library's (TensorRT, OpenCV, cuDNN, thrust, MPI) or a
// generated one. clang stops a file at the first include it cannot find; with an empty
// stand-in it goes on, and what used the missing header's names is an error in the functions
// that use them (their pairs undecidable, broken.go) while the rest of the file is analysed.
// The directory is searched last (-idirafter), so it never hides a header that exists; it is
// the one parse's own (a batch's files share one, batchstubs.go), so whether a header exists
// (__has_include) never depends on which other file was parsed first.
type stubDir struct {
	dir   string // "" until the first stand-in is written
	names []string
	// written is how many of names have their stand-in in dir: a file's stand-ins are
	// written when a parse runs with them (path), not when they are found. A file of a batch
	// runs with the batch's (batchstubs.go), and writing its own was a sixth of echoctl's
	// CPU time on cuda-samples, in mkdir (issue 40).
	written int
	// probed: the file or one of its own headers asks whether a header exists
	// (__has_include), so its parse is given no stand-in but its own (batchstubs.go).
	probed bool
}

// stubDepth is how deep inside its directory the stand-ins are searched for: "../x.h" resolves
// against the search directory, and every ../ must stay inside.
var stubDepth = []string{"a", "b", "c", "d", "e", "f", "g", "h"}

// add notes a stand-in for name (as the include spelled it); false when it cannot stand in
// for it: an absolute path, one already noted (the stand-in did not help), or one with more
// ../ than the stand-ins are deep.
func (s *stubDir) add(name string) bool {
	if name == "" || filepath.IsAbs(name) {
		return false
	}
	for _, n := range s.names {
		if n == name {
			return false
		}
	}
	root := string(filepath.Separator) + "stubs"
	p := filepath.Join(append(append([]string{root}, stubDepth...), filepath.FromSlash(name))...)
	if !strings.HasPrefix(p, root+string(filepath.Separator)) {
		return false
	}
	s.names = append(s.names, name)
	return true
}

// path is the directory to search for the stand-ins, made under parent and written the first
// time it is asked for; "" for none.
func (s *stubDir) path(parent string) (string, error) {
	if s.written == len(s.names) {
		return s.dir, nil
	}
	if s.dir == "" {
		d, err := os.MkdirTemp(parent, "stubs-")
		if err != nil {
			return "", fmt.Errorf("standing in for the missing header %s: %w", s.names[0], err)
		}
		s.dir = filepath.Join(append([]string{d}, stubDepth...)...)
		if err := os.MkdirAll(s.dir, 0o755); err != nil {
			return "", fmt.Errorf("standing in for the missing header %s: %w", s.names[0], err)
		}
	}
	for ; s.written < len(s.names); s.written++ {
		name := s.names[s.written]
		p := filepath.Join(s.dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", fmt.Errorf("standing in for the missing header %s: %w", name, err)
		}
		if err := os.WriteFile(p, []byte("/* Echo: an empty stand-in for a header no include directory has. */\n"), 0o644); err != nil {
			return "", fmt.Errorf("standing in for the missing header %s: %w", name, err)
		}
	}
	return s.dir, nil
}

func (s *stubDir) remove() {
	if s.dir != "" {
		os.RemoveAll(s.root())
	}
}

// root is the directory path made, above the search directory.
func (s *stubDir) root() string {
	d := s.dir
	for range stubDepth {
		d = filepath.Dir(d)
	}
	return d
}

// systemDirs are clang's own include directories for C++ (a superset of C's: the C++
// library's, clang's resource directory, the system's), asked of clang once per session.
func (s *Session) systemDirs() []string {
	s.sysOnce.Do(func() {
		out, _ := exec.Command(s.driver, "-x", "c++", "-E", "-v", os.DevNull).CombinedOutput()
		in := false
		for _, l := range strings.Split(string(out), "\n") {
			switch {
			case strings.HasPrefix(l, "#include <...> search starts here"):
				in = true
			case strings.HasPrefix(l, "End of search list"):
				in = false
			case in && strings.HasPrefix(l, " "):
				s.sysDirs = append(s.sysDirs, filepath.Clean(strings.TrimSpace(l)))
			}
		}
	})
	return s.sysDirs
}

// preresolve does before the first parse what the parse would find out one fatal error at a
// time: for each header the file or one of its own headers includes that no include directory
// has, the tree's directory for it (a file without a compile command), the prelude's
// fallback, or an empty stand-in. A file whose header includes a dozen headers of a missing
// library (thrust, a windowing system) then parses once, not a dozen times; what the text
// does not show (an include through a macro) the rounds still find.
func (s *Session) preresolve(c *Command, env *parseEnv, stubs *stubDir, found *[]string) error {
	quoteDirs, userDirs := includeDirs(CompileFlags(c.Args, c.Dir))
	sysDirs := s.headerDirs(env)
	seen := map[string]bool{c.File: true}
	queue := []string{c.File}
	for depth := 0; depth < 4 && len(queue) > 0; depth++ {
		var next []string
		for _, file := range queue {
			fi := s.includes.of(file, s.o.Limits)
			stubs.probed = stubs.probed || fi.probes
			for _, inc := range fi.incs {
				if inc.name == "" || filepath.IsAbs(inc.name) {
					continue
				}
				var own []string
				if inc.quoted {
					own = append([]string{filepath.Dir(file)}, quoteDirs...)
				}
				own = append(append(own, userDirs...), *found...)
				if p := lookupHeader(own, inc.name); p != "" {
					if p = filepath.Clean(p); !seen[p] {
						seen[p] = true
						next = append(next, p)
					}
					continue
				}
				if lookupHeader(sysDirs, inc.name) != "" {
					continue
				}
				if dir := s.found(*c, inc.name, *found); dir != "" {
					*found = append(*found, dir)
					c.Args = append(c.Args, "-I"+dir)
					if p := filepath.Clean(filepath.Join(dir, filepath.FromSlash(inc.name))); !seen[p] {
						seen[p] = true
						next = append(next, p)
					}
					continue
				}
				if env.prelude != "" && lookupHeader([]string{filepath.Join(env.prelude, fallbackDir)}, inc.name) != "" {
					env.fallback = true
					continue
				}
				stubs.add(inc.name)
			}
		}
		queue = next
	}
	return nil
}

// includeDirs are the directories flags add to the quoted includes' search (-iquote) and to
// every include's (-I, -isystem, -idirafter).
func includeDirs(flags []string) (quoteDirs, userDirs []string) {
	for i := 0; i < len(flags); i++ {
		f := flags[i]
		switch {
		case strings.HasPrefix(f, "-I"):
			userDirs = append(userDirs, f[2:])
		case (f == "-iquote" || f == "-isystem" || f == "-idirafter") && i+1 < len(flags):
			if f == "-iquote" {
				quoteDirs = append(quoteDirs, flags[i+1])
			} else {
				userDirs = append(userDirs, flags[i+1])
			}
			i++
		}
	}
	return quoteDirs, userDirs
}

// headerDirs are the directories of the system's headers: the prelude's, the runtime's, the CUDA
// installation's and the compiler's.
func (s *Session) headerDirs(env *parseEnv) []string {
	var sysDirs []string
	if env.prelude != "" {
		sysDirs = append(sysDirs, env.prelude)
	}
	if s.o.RuntimeHeaders != "" {
		sysDirs = append(sysDirs, s.o.RuntimeHeaders)
	}
	if s.o.CUDAPath != "" {
		sysDirs = append(sysDirs, filepath.Join(s.o.CUDAPath, "include"))
	}
	sysDirs = append(sysDirs, s.systemDirs()...)
	return sysDirs
}

// lookupHeader is the regular file name names in the first of dirs that has one; "" for none.
func lookupHeader(dirs []string, name string) string {
	for _, d := range dirs {
		p := filepath.Join(d, filepath.FromSlash(name))
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}
