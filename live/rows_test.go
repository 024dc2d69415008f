package live

import (
	"strings"
	"testing"

	"github.com/echo-uma/echo/trace"
)

// A traced command line is the program's to choose: its escape sequences reach the view,
// attach's table and the JSON quoted, never raw, and its bytes that are not UTF-8 come out
// as escapes a shell reads back.
func TestRowQuotesCommandLine(t *testing.T) {
	p := &process{pid: 7, command: []string{"/opt/\x1b]0;owned\a/ap\x1b[2Jp\xff", "--label", "\x1b[31mred", "two words"}}
	r := p.row(&trace.Stats{}, 0, 0, nil)
	for _, s := range []string{r.Comm, r.Command} {
		if strings.ContainsFunc(s, func(c rune) bool { return c < 0x20 || c == 0x7f || c == 0xfffd }) {
			t.Errorf("row carries control or invalid bytes: %q", s)
		}
	}
	if r.Comm != `$'ap\x1b[2Jp\xff'` || r.Command != `$'/opt/\x1b]0;owned\x07/ap\x1b[2Jp\xff' --label $'\x1b[31mred' 'two words'` {
		t.Errorf("comm %s, command %s", r.Comm, r.Command)
	}
}
