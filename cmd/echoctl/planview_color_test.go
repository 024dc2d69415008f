package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/echo-uma/echo/planview"
)

// The plan view is styled and the writer decides what shows: where colour is asked for
// (CLICOLOR_FORCE, as a terminal would have it), the verdicts are coloured; the text is the
// same as the plain one once the styles are taken off. (TestRenderPlan holds the plain case.)
func TestRenderPlanColoursOnRequest(t *testing.T) {
	render := func() string {
		var buf bytes.Buffer
		if err := planview.Render(&buf, streamPlan(), "app.plan", func(string) bool { return true }); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	t.Setenv("NO_COLOR", "")
	t.Setenv("CLICOLOR_FORCE", "")
	plain := render()
	t.Setenv("CLICOLOR_FORCE", "1")
	t.Setenv("TERM", "xterm-256color")
	coloured := render()
	if !strings.Contains(coloured, "\x1b[") {
		t.Fatalf("no escape sequences with CLICOLOR_FORCE=1:\n%s", coloured)
	}
	if got := ansi.Strip(coloured); got != plain {
		t.Errorf("coloured text, unstyled, differs from the plain text:\n%s\nwant:\n%s", got, plain)
	}
}
