package rewrite

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/echo-uma/echo/source/parse"
	"github.com/echo-uma/echo/source/rules"
)

// RewriteOptions say how `echoctl rewrite` parses and merges.
type RewriteOptions struct {
	parse.Options
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
	Profile *rules.Profile
}

// FileRewrite is one file's rewrite: its source before and after, and each pair's outcome.
type FileRewrite struct {
	Path          string // as given
	Before, After []byte
	Changes       []Change
	// BuildFlags are the flags the proofs assumed and where they came from.
	parse.BuildFlags
	// Errors is how many errors clang recovered from in the file's parse, the first of them
	// in FirstError: a pair in a function they touch is left as written (undecidable).
	Errors     int
	FirstError string
}

// RewriteFile parses, proves and rewrites one file; it writes nothing. A file clang cannot
// parse is an error (its first error line), as is a file the database does not name when a
// database was given explicitly, and a file whose parse had errors and yielded no pair at all
// (nothing was analysed: most likely not CUDA that builds).
func RewriteFile(ctx context.Context, path string, o RewriteOptions) (*FileRewrite, error) {
	fr, tu, err := rewriteParsed(ctx, path, o)
	if err != nil || len(tu.Errors) == 0 {
		return fr, err
	}
	fr.Errors, fr.FirstError = len(tu.Errors), tu.Errors[0].String()
	if len(fr.Changes) == 0 {
		return fr, fmt.Errorf("rewriting %s: clang found %d errors in it and no host/device pair to analyse; the first: %s",
			path, fr.Errors, fr.FirstError)
	}
	return fr, nil
}

func rewriteParsed(ctx context.Context, path string, o RewriteOptions) (*FileRewrite, *parse.TU, error) {
	src, err := parse.ReadSource(path, o.Limits)
	if err != nil {
		return nil, nil, err
	}
	fr := &FileRewrite{Path: path, Before: src}
	tu, bf, err := parseFile(ctx, path, o)
	fr.BuildFlags = bf
	if err != nil {
		return fr, nil, err
	}
	// The edits are byte ranges of what clang read: it must be what src holds.
	if now, err := parse.ReadSource(path, o.Limits); err != nil || !bytes.Equal(now, src) {
		return fr, nil, fmt.Errorf("rewriting %s: it changed while echoctl read it: run again once it is saved", path)
	}
	proofs := rules.Prove(tu)
	if o.Profile == nil {
		fr.After, fr.Changes = Rewrite(tu, src, proofs, nil, o.Target)
		return fr, tu, nil
	}
	measured := o.Profile.Measure(proofs)
	var exercised []rules.Proof
	var exercisedM []*rules.Measured
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
	return fr, tu, nil
}

// copyLineList is the lines of a pair's linking copies, "41, 44".
func copyLineList(p rules.Pair) string {
	var lines []string
	for _, c := range p.Copies {
		lines = append(lines, strconv.Itoa(c.At.Line))
	}
	return strings.Join(lines, ", ")
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

// ProveFile parses path and proves each of its candidate pairs (echoctl plan --source), and
// says which flags the proofs assumed.
func ProveFile(ctx context.Context, path string, o RewriteOptions) ([]rules.Proof, parse.BuildFlags, error) {
	tu, bf, err := parseFile(ctx, path, o)
	if err != nil {
		return nil, bf, err
	}
	return rules.Prove(tu), bf, nil
}

// parseFile parses path with the flags of its compile_commands.json entry (o's, or the one
// found beside it where the trust rules take it, trust.go) and o's, and says what the proofs
// assume.
func parseFile(ctx context.Context, path string, o RewriteOptions) (*parse.TU, parse.BuildFlags, error) {
	project := parse.ProjectRoot(path)
	db, named := o.CompileCommands, o.CompileCommands != ""
	var notices []string
	if !named {
		if db = parse.FindCompileDB(path); db != "" {
			if why := parse.UntrustedDB(db, project); why != "" {
				notices, db = append(notices, parse.IgnoredDB(db, why)), ""
			}
		}
	}
	entry, found := parse.Command{File: path}, false
	if db != "" {
		d, err := parse.LoadCompileDB(db)
		c, ok := parse.Command{}, false
		if d != nil {
			c, ok = d.Lookup(path)
		}
		switch {
		case err != nil && named:
			return nil, parse.BuildFlags{Notices: notices}, err
		case err != nil:
			notices, db = append(notices, parse.IgnoredDB(db, err.Error())), ""
		case ok:
			entry, found = c, true
		case named:
			return nil, parse.BuildFlags{Notices: notices}, fmt.Errorf("parsing %s: %s has no entry for it: regenerate it or leave out --compile-commands", path, db)
		}
	}
	cmd, bf := parse.Assume(entry, found, db, named, []string{project}, o.Args)
	bf.Notices = append(notices, bf.Notices...)
	tu, err := parse.Parse(ctx, cmd, o.Options)
	return tu, bf, err
}
