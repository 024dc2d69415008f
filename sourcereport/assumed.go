package sourcereport

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/echo-uma/echo/source/parse"
	"github.com/echo-uma/echo/source/rewrite"
)

// PrintAssumed prints what a file's proofs assumed and what was ignored on the way, one line
// each: a proof holds for the build whose flags it parsed with, and a reader must see which
// (a database's -DQUIET once hid the write that made a pair unsafe).
func PrintAssumed(w io.Writer, path string, bf parse.BuildFlags) {
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

// PathList is paths quoted where they need it, comma-separated.
func PathList(paths []string) string {
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
