package rules

import (
	"testing"

	"github.com/echo-uma/echo/source/parse"
)

// A joined state's location must not depend on the order paths are joined in (Go's map
// order): the earlier of the two in the source, whichever path brought it.
func TestKeepLocOrderFree(t *testing.T) {
	early := parse.Loc{File: "main.cu", Line: 262, Col: 5}
	late := parse.Loc{File: "main.cu", Line: 270, Col: 5}
	sameLine := parse.Loc{File: "main.cu", Line: 262, Col: 9}
	for _, tc := range []struct {
		a, b, want parse.Loc
	}{
		{early, late, early},
		{late, early, early},
		{sameLine, early, early},
		{parse.Loc{}, late, late},
		{late, parse.Loc{}, late},
	} {
		if got := keepLoc(tc.a, tc.b); got != tc.want {
			t.Errorf("keepLoc(line %d:%d, line %d:%d) = line %d:%d, want %d:%d",
				tc.a.Line, tc.a.Col, tc.b.Line, tc.b.Col, got.Line, got.Col, tc.want.Line, tc.want.Col)
		}
	}
}
