package view

import (
	"regexp"
	"strings"
	"testing"

	"github.com/echo-uma/echo/live"
	"github.com/echo-uma/echo/symbols"
)

// The detail pane names a copy site's code after its module+offset where the sampler found
// it (a C++ function demangled), and shows module+offset alone where it did not.
func TestDetailNamesSites(t *testing.T) {
	r := live.Row{PID: 7, Comm: "stream", Detail: live.Detail{TopSites: []live.Site{
		{Site: "stream+0x1746", API: "cudaMemcpy", Direction: "h2d", BytesPerCopy: 4096,
			Symbol: symbols.Symbol{Function: "main", File: "/src/stream.cu", Line: 60}},
		{Site: "libfoo.so+0x1234", API: "cudaMemcpy", Direction: "d2h", BytesPerCopy: 4096},
		{Site: "loader+0x88", API: "cudaMemcpyAsync", Direction: "h2d", BytesPerCopy: 4096,
			Symbol: symbols.Symbol{Function: "_ZN2ns6Loader4copyEPfm", File: "/src/load.cu", Line: 12}},
	}}}
	lines, _ := detailLines(r, 120)
	pane := strings.Join(lines, "\n")
	for _, want := range []string{`stream\+0x1746 main \(stream\.cu:60\) +cudaMemcpy +h2d`, `libfoo\.so\+0x1234 +cudaMemcpy +d2h`,
		`loader\+0x88 ns::Loader::copy\(float\*, unsigned long\) \(load\.cu:12\) +cudaMemcpyAsync`} {
		if !regexp.MustCompile(want).MatchString(pane) {
			t.Errorf("the pane has no %s:\n%s", want, pane)
		}
	}
}
