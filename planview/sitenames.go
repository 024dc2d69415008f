package planview

import (
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/symbols"
	"github.com/echo-uma/echo/trace"
)

// CopySiteLabel is a copy site of stats as a person reads it: "stream+0x1746 main (stream.cu:60)".
func CopySiteLabel(s trace.SiteStats) string {
	return symbols.Label(s.Site, symbols.Symbol{Function: s.Function, File: s.File, Line: s.Line})
}

// maxFunctionWidth cuts a long function name (a C++ one, demangled, with its parameters) in
// the plan view, where the table must keep to the view's width; stats --json has it whole.
const maxFunctionWidth = 32

// planSiteLabel is a plan's site as a person reads it, named by its module where it can be,
// on a second line so that the table keeps to the view's width: the plan itself keeps
// module+offset, its identity.
func planSiteLabel(names *symbols.Resolver, s plan.Site) string {
	sym, ok := names.Return(symbols.Module{Path: s.Module, BuildID: s.BuildID, Size: s.ModuleSize}, s.Offset)
	if !ok {
		return s.Name()
	}
	if fn := []rune(sym.Name()); len(fn) > maxFunctionWidth {
		sym.Function = string(fn[:maxFunctionWidth-1]) + "…" // demangled already: Name keeps it
	}
	return s.Name() + "\n" + sym.String()
}
