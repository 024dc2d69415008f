package rewrite

import (
	"fmt"
	"strings"

	"github.com/echo-uma/echo/source/parse"
)

// UnifiedDiff is a `git apply`-able diff from before to after of the file at path (a/ and b/
// prefixes, as git writes them), with three lines of context; "" when they are the same.
// The rewrite's edits are few and local, so a line-by-line longest common subsequence is cheap.
func UnifiedDiff(path string, before, after []byte) string {
	if string(before) == string(after) {
		return ""
	}
	a, b := splitLines(string(before)), splitLines(string(after))
	ops := diffLines(a, b)
	const ctx = 3
	var out strings.Builder
	path = strings.TrimPrefix(path, "/") // an absolute path: no a//
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", parse.QuotePath("a/"+path), parse.QuotePath("b/"+path))
	// Group the ops into hunks: changes closer than 2*ctx lines share one.
	i := 0
	for i < len(ops) {
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i == len(ops) {
			break
		}
		start := i - ctx
		if start < 0 {
			start = 0
		}
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j + 1
				continue
			}
			if j-end >= 2*ctx {
				break
			}
		}
		stop := end + ctx
		if stop > len(ops) {
			stop = len(ops)
		}
		var aStart, bStart, aN, bN int
		aStart, bStart = ops[start].a+1, ops[start].b+1
		var body strings.Builder
		for _, op := range ops[start:stop] {
			line := ""
			switch op.kind {
			case ' ':
				line, aN, bN = a[op.a], aN+1, bN+1
			case '-':
				line, aN = a[op.a], aN+1
			case '+':
				line, bN = b[op.b], bN+1
			}
			body.WriteByte(op.kind)
			body.WriteString(line)
			if !strings.HasSuffix(line, "\n") {
				body.WriteString("\n\\ No newline at end of file\n")
			}
		}
		if aN == 0 {
			aStart--
		}
		if bN == 0 {
			bStart--
		}
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n%s", aStart, aN, bStart, bN, body.String())
		i = stop
	}
	return out.String()
}

// splitLines splits s after each newline; the last line may lack one.
func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// diffOp is one line of a diff: kept (' '), removed ('-') or added ('+'), with its index in
// the old (a) and new (b) lines; for an added line, a is where the old file is.
type diffOp struct {
	kind byte
	a, b int
}

// diffLines trims the common head and tail, then aligns the middle by longest common
// subsequence.
func diffLines(a, b []string) []diffOp {
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	ma, mb := a[head:len(a)-tail], b[head:len(b)-tail]
	lcs := make([][]int, len(ma)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(mb)+1)
	}
	for i := len(ma) - 1; i >= 0; i-- {
		for j := len(mb) - 1; j >= 0; j-- {
			if ma[i] == mb[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []diffOp
	for i := 0; i < head; i++ {
		ops = append(ops, diffOp{' ', i, i})
	}
	i, j := 0, 0
	for i < len(ma) || j < len(mb) {
		switch {
		case i < len(ma) && j < len(mb) && ma[i] == mb[j]:
			ops = append(ops, diffOp{' ', head + i, head + j})
			i, j = i+1, j+1
		case i < len(ma) && (j == len(mb) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, diffOp{'-', head + i, head + j})
			i++
		default:
			ops = append(ops, diffOp{'+', head + i, head + j})
			j++
		}
	}
	for k := 0; k < tail; k++ {
		ops = append(ops, diffOp{' ', len(a) - tail + k, len(b) - tail + k})
	}
	return ops
}
