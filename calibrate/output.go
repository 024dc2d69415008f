package calibrate

import (
	"bytes"
	"fmt"
	"regexp"
)

// The output comparison. A merged program must print and return what the program as written
// does; but a program may print what differs from run to run by nature, a timing above all,
// and a user who did not mark it with --ignore must not lose a validated pair to it. So the
// baseline's own runs are compared first: a line that differs between them only in its
// numbers ("iter_ms=0.4276", then "iter_ms=0.4301") is noise, and is compared in every
// variant only for its words (numbers aside), and said so. A line that differs in more than
// its numbers, or a run that printed other lines, leaves nothing to compare against.

// runOutput is what one run printed on stdout and its exit status.
type runOutput struct {
	stdout []byte
	code   int
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

// noiseOf compares the runs as written with the first of them.
func noiseOf(runs []runOutput, ignore *regexp.Regexp) noise {
	n := noise{shapes: map[int][]byte{}}
	if len(runs) == 0 {
		return n
	}
	first := lines(runs[0].stdout, ignore)
	for _, run := range runs[1:] {
		if d := diff(runs[0].stdout, runs[0].code, run.stdout, run.code, ignore, nil); d == "" {
			continue
		}
		other := lines(run.stdout, ignore)
		switch {
		case run.code != runs[0].code:
			n.problem = fmt.Sprintf("exited with status %d in one run and %d in another", runs[0].code, run.code)
			return n
		case len(other) != len(first):
			n.problem = fmt.Sprintf("printed %d lines in one run and %d in another", len(first), len(other))
			return n
		}
		for i := range first {
			if bytes.Equal(first[i], other[i]) {
				continue
			}
			if s := shape(first[i]); !bytes.Equal(s, shape(other[i])) {
				n.problem = fmt.Sprintf("printed %q where another run printed %q", other[i], first[i])
				return n
			} else if n.shapes[i] == nil {
				n.shapes[i] = s
				n.said = append(n.said, fmt.Sprintf("%q (then %q)", first[i], other[i]))
			}
		}
	}
	return n
}

// diff describes the first difference between two runs' outputs and statuses, or "": lines
// matching ignore are left out, and a line at a position noise varies in is compared by its
// shape alone.
func diff(a []byte, codeA int, b []byte, codeB int, ignore *regexp.Regexp, varying map[int][]byte) string {
	if codeA != codeB {
		return fmt.Sprintf("exit status %d instead of %d", codeB, codeA)
	}
	la, lb := lines(a, ignore), lines(b, ignore)
	for i := 0; i < max(len(la), len(lb)); i++ {
		switch {
		case i >= len(la):
			return fmt.Sprintf("printed an extra line %q", lb[i])
		case i >= len(lb):
			return fmt.Sprintf("did not print %q", la[i])
		case bytes.Equal(la[i], lb[i]):
		case varying[i] != nil && bytes.Equal(varying[i], shape(lb[i])):
		case bytes.Equal(shape(la[i]), shape(lb[i])):
			return fmt.Sprintf("printed %q where the baseline printed %q (numbers alone differ: if they are a timing, "+
				"calibrate again with --ignore for that line)", lb[i], la[i])
		default:
			return fmt.Sprintf("printed %q where the baseline printed %q", lb[i], la[i])
		}
	}
	return ""
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
func (r *Result) compareOutputs(ignore *regexp.Regexp) {
	n := noiseOf(r.Baseline.outputs, ignore)
	r.Varying, r.Baseline.OutputDiff = n.said, n.problem
	if len(r.Baseline.outputs) == 0 {
		return
	}
	base := r.Baseline.outputs[0]
	for i := range r.Variants {
		v := &r.Variants[i]
		v.OutputDiff = ""
		for _, run := range v.outputs {
			if v.OutputDiff = diff(base.stdout, base.code, run.stdout, run.code, ignore, n.shapes); v.OutputDiff != "" {
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
