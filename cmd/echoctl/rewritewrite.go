package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/echo-uma/echo/source/parse"
	"github.com/echo-uma/echo/source/rewrite"
)

// printAssumed prints what a file's proofs assumed and what was ignored on the way, one line
// each: a proof holds for the build whose flags it parsed with, and a reader must see which
// (a database's -DQUIET once hid the write that made a pair unsafe).
func printAssumed(w io.Writer, path string, bf parse.BuildFlags) {
	name := parse.QuotePath(path)
	for _, n := range bf.Notices {
		fmt.Fprintf(w, "%s: %s\n", name, n)
	}
	fmt.Fprintf(w, "%s: %s\n", name, assumedWords(bf))
}

// assumedWords says the flags a file was parsed with: its defines and language standard, how
// many include directories, and where they came from.
func assumedWords(bf parse.BuildFlags) string {
	defines := bf.Defines()
	dirs := 0
	for _, f := range bf.Flags {
		if strings.HasPrefix(f, "-I") || f == "-isystem" || f == "-iquote" || f == "-idirafter" {
			dirs++
		}
	}
	what := "no defines"
	if len(defines) > 0 {
		what = strings.Join(defines, " ")
	}
	if dirs > 0 {
		what += fmt.Sprintf(" and %d include directories", dirs)
	}
	from := "no compile command names it"
	if bf.CompileDB != "" {
		from = "flags from " + parse.QuotePath(bf.CompileDB)
	}
	return fmt.Sprintf("proved for a build with %s (%s)", what, from)
}

// writtenError prints what -w did and is the command's error: nil when every file with a
// merge was written, the interruption (exit 130, 143, 129) saying what was written when a
// signal came, else one error naming the files left as they were.
func writtenError(ctx context.Context, w io.Writer, res *rewrite.Written) error {
	if res == nil {
		return nil
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(w, "%s: left as it was: %v\n", parse.QuotePath(s.Path), s.Why)
	}
	if res.OK() && len(res.Written) > 0 {
		fmt.Fprintf(w, "wrote %s\n", pathList(res.Written))
	}
	summary := "wrote " + pathList(res.Written)
	if len(res.Written) == 0 {
		summary = "nothing was written"
	}
	if len(res.NotWritten) > 0 {
		summary += "; not written: " + pathList(res.NotWritten)
	}
	if len(res.Skipped) > 0 {
		var left []string
		for _, s := range res.Skipped {
			left = append(left, s.Path)
		}
		summary += "; left as they were: " + pathList(left)
	}
	if intr, ok := interruption(ctx, summary); ok {
		return intr
	}
	switch {
	case res.Err != nil:
		return fmt.Errorf("%w (%s)", res.Err, summary)
	case len(res.Skipped) > 0:
		return fmt.Errorf("%d of %d files with merges left as they were (%s)", len(res.Skipped),
			len(res.Skipped)+len(res.Written), summary)
	}
	return nil
}

// pathList is paths quoted where they need it, comma-separated.
func pathList(paths []string) string {
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = parse.QuotePath(p)
	}
	return strings.Join(q, ", ")
}

// writtenWord is what -w did with one file, for the JSON: "" without -w.
func writtenWord(w *rewrite.Written, path string) string {
	if w == nil {
		return ""
	}
	for _, p := range w.Written {
		if p == path {
			return "written"
		}
	}
	for _, p := range w.Unchanged {
		if p == path {
			return "unchanged"
		}
	}
	for _, s := range w.Skipped {
		if s.Path == path {
			return "left: " + s.Why.Error()
		}
	}
	return "not written"
}

// pathBytes is a name's bytes for the JSON where it is not UTF-8 (JSON strings are, and
// encoding/json writes U+FFFD for the rest); nil otherwise.
func pathBytes(name string) []byte {
	if utf8.ValidString(name) {
		return nil
	}
	return []byte(name)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
