package parse

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/echo-uma/echo/internal/infile"
)

// Which compile database a file's flags come from, and which of its flags are taken. A proof
// holds for the build whose flags it parsed with, so a database must be the project's: one that
// another user left in a parent directory once defined QUIET, hid the file's early host write
// behind `#ifndef QUIET`, and had an unsafe pair "merged"; and a tree's own database is as
// foreign as its code, which must not make clang read files the code does not name itself.
//
// The rules:
//   - A database named with --compile-commands is taken as the user's build: all of its
//     preprocessor and language flags are kept.
//   - A database found by looking (the file's directory and its parents; a scanned tree, its
//     build/ and its parents) is taken when it lies in the project (the scanned tree, or the
//     nearest directory above the file holding .git, else the file's directory), or when it is
//     owned by the invoking user or root and writable by no one else; otherwise it is ignored,
//     saying so in one line. One that is not a regular file or cannot be read as a database
//     is ignored the same way: a tree's broken database does not stop its scan.
//   - From a found database, a flag that makes clang read a file or directory outside the
//     project, the database's directory and the system's (/usr, /opt) is dropped, saying so:
//     -include, -imacros, -I, -isystem, -iquote, -idirafter and nvcc's spellings of them.
//   - Flags that load code or read more flags (@file, -Xclang, -fplugin=, -load, --config,
//     -B, --sysroot, …) are never passed from any database; buildFlags keeps only the
//     preprocessor and language flags to begin with, and these are named when dropped.
//
// Every file's result carries the flags its proofs assumed (BuildFlags.Flags).

// BuildFlags are the flags a file was parsed with: what its proofs hold for.
type BuildFlags struct {
	// CompileDB is the compile_commands.json the flags came from; "" for none.
	CompileDB string
	// Flags are the build's flags that reached clang (the database's, as kept, then the
	// command line's): the proofs hold for a build with these defines and include paths.
	Flags []string
	// Notices say what was ignored or dropped: a database outside the project, a flag that
	// reads outside it. One line each.
	Notices []string
}

// Defines are the flags that change what the preprocessor makes of the file: -D, -U, forced
// includes and the language standard (include directories are left out).
func (b BuildFlags) Defines() []string {
	var out []string
	for i := 0; i < len(b.Flags); i++ {
		f := b.Flags[i]
		switch {
		case strings.HasPrefix(f, "-D"), strings.HasPrefix(f, "-U"), strings.HasPrefix(f, "-std="):
			out = append(out, f)
		case (f == "-include" || f == "-imacros") && i+1 < len(b.Flags):
			out = append(out, f+" "+b.Flags[i+1])
			i++
		}
	}
	return out
}

// ProjectRoot is the project a file belongs to for the trust rules: the nearest directory
// above it that holds .git, else the file's own directory.
func ProjectRoot(file string) string {
	dir, err := filepath.Abs(filepath.Dir(file))
	if err != nil {
		return filepath.Dir(file)
	}
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return dir
		}
		d = up
	}
}

// untrustedDB says why a database found by looking is not taken; "" when it is.
func UntrustedDB(db, project string) string {
	st, err := os.Stat(db)
	if err != nil {
		return err.Error()
	}
	if !st.Mode().IsRegular() {
		return fmt.Sprintf("it is not a regular file (a %s)", infile.Kind(st.Mode()))
	}
	if Within(db, project) {
		return ""
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return "its owner is unknown"
	}
	uid := uint32(os.Getuid())
	switch {
	case sys.Uid != uid && sys.Uid != 0:
		return fmt.Sprintf("it is outside %s and belongs to user %d", project, sys.Uid)
	case st.Mode().Perm()&0o022 != 0:
		return fmt.Sprintf("it is outside %s and others may write it (mode %04o)", project, st.Mode().Perm())
	}
	return ""
}

// ignoredDB is the notice of a database not taken.
func IgnoredDB(db, why string) string {
	return fmt.Sprintf("ignoring %s: %s; name it with --compile-commands to use it", db, why)
}

// Within reports whether path is dir or below it, both with their links resolved where they
// exist.
func Within(path, dir string) bool {
	return below(resolved(path), resolved(dir))
}

// below reports whether path is dir or below it, by their names alone.
func below(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// resolved is path absolute and with its links resolved, as far as it exists.
func resolved(path string) string {
	a, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	if r, err := filepath.EvalSymlinks(a); err == nil {
		return r
	}
	// Resolve the part that exists: a flag may name a directory not yet made.
	dir, base := filepath.Split(a)
	if dir == a || dir == "" {
		return a
	}
	return filepath.Join(resolved(filepath.Clean(dir)), base)
}

// systemDirs are where a build's headers legitimately sit outside the project.
var systemDirs = []string{"/usr", "/opt"}

// vetFlags keeps the flags of a found database that read inside the allowed directories, and
// says which it dropped. flags are buildFlags' output (paths absolute).
func vetFlags(flags []string, allowed []string) (kept, dropped []string) {
	ok := func(path string) bool {
		for _, d := range append(allowed, systemDirs...) {
			if d != "" && Within(path, d) {
				return true
			}
		}
		return false
	}
	for i := 0; i < len(flags); i++ {
		f := flags[i]
		var path string
		switch {
		case pathFlags[f] && i+1 < len(flags):
			path = flags[i+1]
			if !ok(path) {
				dropped = append(dropped, f+" "+path)
				i++
				continue
			}
			kept = append(kept, f, path)
			i++
			continue
		case strings.HasPrefix(f, "-I"):
			path = f[2:]
		}
		if path != "" && !ok(path) {
			dropped = append(dropped, f)
			continue
		}
		kept = append(kept, f)
	}
	return kept, dropped
}

// loadingFlag reports whether a build flag loads code or reads more flags or files of its
// own: buildFlags never passes these, and they are named when a database has them.
func loadingFlag(a string) bool {
	if strings.HasPrefix(a, "@") {
		return true
	}
	for _, p := range []string{"-Xclang", "-Xpreprocessor", "-fplugin", "-fpass-plugin", "-load", "--config",
		"-B", "--gcc-toolchain", "--sysroot", "-isysroot", "-fmodule-file", "-fmodule-map-file", "-include-pch",
		"-specs", "--specs"} {
		if a == p || strings.HasPrefix(a, p+"=") || strings.HasPrefix(a, p) && len(p) == 2 {
			return true
		}
	}
	return false
}

// assume makes the command a file is parsed with from its database entry (or none), the
// database's trust and the command line's flags, and says what the proofs assume.
func Assume(entry Command, found bool, db string, named bool, allowed []string, extra []string) (Command, BuildFlags) {
	bf := BuildFlags{}
	cmd := Command{File: entry.File, Dir: entry.Dir}
	if found {
		bf.CompileDB = db
		for _, a := range entry.Args {
			if loadingFlag(a) {
				bf.Notices = AppendOnce(bf.Notices, fmt.Sprintf("dropped %s from %s: echoctl passes no flag that loads code or reads more flags", a, db))
			}
		}
		flags := CompileFlags(entry.Args, entry.Dir)
		if !named {
			var dropped []string
			flags, dropped = vetFlags(flags, append([]string{filepath.Dir(db)}, allowed...))
			for _, d := range dropped {
				bf.Notices = AppendOnce(bf.Notices, fmt.Sprintf("dropped %s from %s: it reads outside the project; name the database with --compile-commands to take it", d, db))
			}
		}
		cmd.Args = flags
	}
	cmd.Args = append(cmd.Args, extra...)
	bf.Flags = CompileFlags(cmd.Args, cmd.Dir)
	return cmd, bf
}

// appendOnce appends s to list unless it is there already.
func AppendOnce(list []string, s string) []string {
	for _, l := range list {
		if l == s {
			return list
		}
	}
	return append(list, s)
}
