package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/echo-uma/echo/internal/texttable"
	"github.com/echo-uma/echo/source"
)

// assumedTable lists the defines each file's proofs assumed, grouped: a proof holds for the
// build whose flags it parsed with (trust.go). Empty when no file has a pair.
func assumedTable(assumed map[string][]string) string {
	if len(assumed) == 0 {
		return ""
	}
	t := texttable.Columns{Headers: []string{"PROVED WITH DEFINES", "FILES"}, Rule: true}
	keys := make([]string, 0, len(assumed))
	for k := range assumed {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Rows = append(t.Rows, []string{k, strings.Join(assumed[k], ", ")})
	}
	return "\n" + t.Render()
}

// unwalkedTable lists what the walk could not go into; empty when it went everywhere.
func unwalkedTable(u []source.Unwalked) string {
	if len(u) == 0 {
		return ""
	}
	t := texttable.Columns{Headers: []string{"NOT WALKED", "WHY"}, Rule: true}
	for _, w := range u {
		t.Rows = append(t.Rows, []string{elide(source.QuotePath(w.Path)), oneLine(w.Why)})
	}
	return "\n" + t.Render()
}

// oneLine is a message from clang or the system as one printable line: a hostile file name in
// it cannot break the table.
func oneLine(s string) string {
	q := source.QuotePath(s)
	if q != s {
		return q[1 : len(q)-1] // escaped, without the quotes
	}
	return s
}

// elide shortens a path too long for a table's column (one past PATH_MAX, say) to its two
// ends and its length; the JSON has it whole.
func elide(path string) string {
	const keep = 40
	if len(path) <= 3*keep {
		return path
	}
	return fmt.Sprintf("%s…%s (%d bytes)", path[:keep], path[len(path)-keep:], len(path))
}
