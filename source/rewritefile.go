package source

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// RewriteOptions say how `echoctl rewrite` parses and merges.
type RewriteOptions struct {
	Options
	// Target is the device and the strategy asked for (Rewrite).
	Target Target
	// CompileCommands is a compile_commands.json; "" looks for one in the file's directory
	// and its parents, as clang tools do.
	CompileCommands string
	// Args are clang flags from the command line (after --), added to the database's.
	Args []string
	// Profile, where given (rewrite --trace), is a run's copy time by source line: a pair
	// proved safe whose copies that run never made is left as written, and every pair says
	// what its copies cost (Change.Measured).
	Profile *Profile
}

// FileRewrite is one file's rewrite: its source before and after, and each pair's outcome.
type FileRewrite struct {
	Path          string // as given
	Before, After []byte
	Changes       []Change
	CompileDB     string // the compile_commands.json the flags came from; "" for none
}

// RewriteFile parses, proves and rewrites one file; it writes nothing. A file clang cannot
// parse is an error (its first error line), as is a file the database does not name when a
// database was given explicitly.
func RewriteFile(ctx context.Context, path string, o RewriteOptions) (*FileRewrite, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("rewriting %s: %w", path, err)
	}
	fr := &FileRewrite{Path: path, Before: src}
	tu, db, err := parseFile(ctx, path, o)
	if err != nil {
		return nil, err
	}
	fr.CompileDB = db
	proofs := Prove(tu)
	if o.Profile == nil {
		fr.After, fr.Changes = Rewrite(tu, src, proofs, nil, o.Target)
		return fr, nil
	}
	measured := o.Profile.Measure(proofs)
	var exercised []Proof
	var exercisedM []*Measured
	var idle []Change
	for i, p := range proofs {
		if measured[i].Count == 0 {
			idle = append(idle, Change{Proof: p, Measured: &measured[i], Reason: "left as written: " +
				"the traced run never made its copies (lines " + copyLineList(p.Pair) + ")"})
			continue
		}
		exercised, exercisedM = append(exercised, p), append(exercisedM, &measured[i])
	}
	fr.After, fr.Changes = Rewrite(tu, src, exercised, exercisedM, o.Target)
	fr.Changes = append(fr.Changes, idle...)
	// Most copy time first: what the run would gain most from.
	slices.SortStableFunc(fr.Changes, func(a, b Change) int { return cmp.Compare(b.Measured.NS, a.Measured.NS) })
	return fr, nil
}

// copyLineList is the lines of a pair's linking copies, "41, 44".
func copyLineList(p Pair) string {
	var lines []string
	for _, c := range p.Copies {
		lines = append(lines, strconv.Itoa(c.At.Line))
	}
	return strings.Join(lines, ", ")
}

// FindCompileDB is the compile_commands.json in the file's directory or the nearest parent
// that has one; "" when none has.
func FindCompileDB(file string) string {
	dir, err := filepath.Abs(filepath.Dir(file))
	if err != nil {
		return ""
	}
	for {
		p := filepath.Join(dir, "compile_commands.json")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// FindRuntimeHeaders is a directory with the emulator's cuda_runtime.h, for parsing CUDA
// without a CUDA installation: beside the executable's build tree (build/bin/echoctl →
// testdata/emulator/include) or under the current directory; "" when there is none.
func FindRuntimeHeaders(exe string) string {
	var dirs []string
	if exe != "" {
		// build/echoctl, build/bin/echoctl, and the cross build's build/arm64/bin/echoctl
		for _, up := range []string{"..", "../..", "../../.."} {
			dirs = append(dirs, filepath.Join(filepath.Dir(exe), up, "testdata", "emulator", "include"))
		}
	}
	dirs = append(dirs, filepath.Join("testdata", "emulator", "include"))
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "cuda_runtime.h")); err == nil {
			if a, err := filepath.Abs(d); err == nil {
				return a
			}
		}
	}
	return ""
}

// WriteAtomic replaces path's contents: a temporary file beside it, then a rename, so a
// reader never sees half a file; the file keeps its mode.
func WriteAtomic(path string, b []byte) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".echo-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	_, werr := f.Write(b)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp, st.Mode().Perm())
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, werr)
	}
	return nil
}

// ProveFile parses path and proves each of its candidate pairs (echoctl plan --source).
func ProveFile(ctx context.Context, path string, o RewriteOptions) ([]Proof, error) {
	tu, _, err := parseFile(ctx, path, o)
	if err != nil {
		return nil, err
	}
	return Prove(tu), nil
}

// parseFile parses path with the flags of its compile_commands.json entry (o's, or the one
// found beside it) and o's, and says which database gave them ("" for none).
func parseFile(ctx context.Context, path string, o RewriteOptions) (*TU, string, error) {
	cmd := Command{File: path}
	found := ""
	db := o.CompileCommands
	if db == "" {
		db = FindCompileDB(path)
	}
	if db != "" {
		d, err := LoadCompileDB(db)
		if err != nil {
			return nil, "", err
		}
		c, ok := d.Lookup(path)
		switch {
		case ok:
			cmd, found = c, db
		case o.CompileCommands != "":
			return nil, "", fmt.Errorf("parsing %s: %s has no entry for it: regenerate it or leave out --compile-commands", path, db)
		}
	}
	cmd.Args = append(append([]string(nil), cmd.Args...), o.Args...)
	tu, err := Parse(ctx, cmd, o.Options)
	return tu, found, err
}
