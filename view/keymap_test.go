package view

import (
	"strings"
	"testing"
)

// The footer names the keys the list answers, from the same bindings: every key it shows
// does what it says, and a narrow terminal drops whole entries, not halves of them.
func TestFooterFromKeyMap(t *testing.T) {
	m := feed(t, New(nil, 0, "t"), size(80, 24), RowsMsg(fixture()))
	lines := strings.Split(m.plain(), "\n")
	if got, want := lines[len(lines)-1], "q quit  ↑↓ select  s sort  r reverse  / filter  enter detail  ? help"; got != want {
		t.Errorf("footer %q, want %q", got, want)
	}
	for _, b := range m.keys.ShortHelp() {
		if len(b.Keys()) == 0 || b.Help().Key == "" {
			t.Errorf("footer entry %+v has no key or no help", b.Help())
		}
	}

	m = feed(t, m, size(40, 24))
	lines = strings.Split(m.plain(), "\n")
	footer := lines[len(lines)-1]
	if !strings.HasPrefix(footer, "q quit  ↑↓ select") || !strings.HasSuffix(footer, "…") || strings.Contains(footer, "help") {
		t.Errorf("40 columns: footer %q; want the first entries whole, then …", footer)
	}
	for _, entry := range strings.Split(strings.TrimSuffix(footer, "…"), "  ") {
		if entry = strings.TrimSpace(entry); entry != "" && !strings.Contains(entry, " ") {
			t.Errorf("40 columns: entry %q cut in half in %q", entry, footer)
		}
	}
}
