package calibrate

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
)

// The output comparison. A merged program must print and return what the program as written
// does; but a program may print what differs from run to run by nature, a timing above all,
// and a user who did not mark it with --ignore must not lose a validated pair to it. So the
// baseline's own runs are compared first: a line that differs between them only in its
// numbers ("iter_ms=0.4276", then "iter_ms=0.4301") is noise, and is compared in every
// variant only for its words (numbers aside), and said so. A line that differs in more than
// its numbers, or a run that printed other lines, leaves nothing to compare against.
//
// Every run is compared with the reference, the baseline's first run, whose output alone is
// kept whole; of the others only the lines that differ from it are, so that a program that
// prints megabytes does not keep them for every round of every variant.

// reference is the baseline's first run: its lines (after --ignore) and its exit status.
type reference struct {
	lines  [][]byte
	code   int
	ignore *regexp.Regexp
	set    bool
}

// runOutput is what one run printed, told against the reference: its exit status, how many
// lines it printed (after --ignore), and those that differ from the reference's at their
// position, the first one past the reference's end included.
type runOutput struct {
	code    int
	n       int
	differs map[int][]byte
}

// take makes stdout and code the reference if there is none yet, and tells them against it.
func (ref *reference) take(stdout []byte, code int) runOutput {
	ls := lines(stdout, ref.ignore)
	if !ref.set {
		ref.lines, ref.code, ref.set = cloneLines(ls), code, true
	}
	out := runOutput{code: code, n: len(ls), differs: map[int][]byte{}}
	for i, l := range ls {
		if i >= len(ref.lines) {
			out.differs[i] = bytes.Clone(l)
			break
		}
		if !bytes.Equal(l, ref.lines[i]) {
			out.differs[i] = bytes.Clone(l)
		}
	}
	return out
}

func cloneLines(ls [][]byte) [][]byte {
	out := make([][]byte, len(ls))
	for i, l := range ls {
		out[i] = bytes.Clone(l)
	}
	return out
}

// noise is what the runs as written showed of themselves: the lines (their positions, after
// --ignore) that vary between runs only in their numbers, each with its shape (numbers
// blanked); what that was, in words, to say; and, where the runs differ in more than
// numbers, why nothing can be compared.
type noise struct {
	shapes  map[int][]byte
	said    []string
	problem string
}

// numbers are what a timing line varies in: decimal numbers, with a fraction and an exponent.
var numbers = regexp.MustCompile(`[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?`)

func shape(line []byte) []byte { return numbers.ReplaceAll(line, []byte("#")) }

// noiseOf compares the runs as written (told against ref, their first) with the first.
func (ref *reference) noiseOf(runs []runOutput) noise {
	n := noise{shapes: map[int][]byte{}}
	for _, run := range runs {
		switch {
		case run.code != ref.code:
			n.problem = fmt.Sprintf("exited with status %d in one run and %d in another", ref.code, run.code)
			return n
		case run.n != len(ref.lines):
			n.problem = fmt.Sprintf("printed %d lines in one run and %d in another", len(ref.lines), run.n)
			return n
		}
		for _, i := range sortedKeys(run.differs) {
			first, other := ref.lines[i], run.differs[i]
			if s := shape(first); !bytes.Equal(s, shape(other)) {
				n.problem = fmt.Sprintf("printed %q where another run printed %q", other, first)
				return n
			} else if n.shapes[i] == nil {
				n.shapes[i] = s
				n.said = append(n.said, fmt.Sprintf("%q (then %q)", first, other))
			}
		}
	}
	return n
}

// diff describes the first difference of run from the reference, or "": a line at a position
// noise varies in is compared by its shape alone.
func (ref *reference) diff(run runOutput, varying map[int][]byte) string {
	if run.code != ref.code {
		return fmt.Sprintf("exit status %d instead of %d", run.code, ref.code)
	}
	count := ""
	if run.n != len(ref.lines) {
		count = fmt.Sprintf(" (%d lines where it printed %d)", run.n, len(ref.lines))
	}
	for _, i := range sortedKeys(run.differs) {
		if i >= len(ref.lines) {
			break // past the reference's end: said below
		}
		want, got := ref.lines[i], run.differs[i]
		switch {
		case varying[i] != nil && bytes.Equal(varying[i], shape(got)):
		case count == "" && bytes.Equal(shape(want), shape(got)):
			return fmt.Sprintf("printed %q where the baseline printed %q (numbers alone differ: if they are a timing, "+
				"calibrate again with --ignore for that line)", got, want)
		default:
			return fmt.Sprintf("printed %q where the baseline printed %q%s", got, want, count)
		}
	}
	switch {
	case run.n > len(ref.lines):
		return fmt.Sprintf("printed an extra line %q", run.differs[len(ref.lines)])
	case run.n < len(ref.lines):
		return fmt.Sprintf("did not print %q", ref.lines[run.n])
	}
	return ""
}

func sortedKeys(m map[int][]byte) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func lines(out []byte, ignore *regexp.Regexp) [][]byte {
	var keep [][]byte
	for _, l := range bytes.Split(out, []byte("\n")) {
		if ignore == nil || !ignore.Match(l) {
			keep = append(keep, l)
		}
	}
	return keep
}

// compareOutputs sets what the outputs so far show: the baseline's noise (Result.Varying, and
// Baseline.OutputDiff where its runs differ in more than numbers), and each variant's first
// difference from the baseline over all its runs.
func (r *Result) compareOutputs(ref *reference) {
	n := ref.noiseOf(r.Baseline.outputs)
	r.Varying, r.Baseline.OutputDiff = n.said, n.problem
	for i := range r.Variants {
		v := &r.Variants[i]
		v.OutputDiff = ""
		for _, run := range v.outputs {
			if v.OutputDiff = ref.diff(run, n.shapes); v.OutputDiff != "" {
				break
			}
		}
	}
}

// outputsDiffer reports whether a variant's output differs from the baseline's.
func (r *Result) outputsDiffer() bool {
	for _, v := range r.Variants {
		if v.OutputDiff != "" {
			return true
		}
	}
	return false
}
