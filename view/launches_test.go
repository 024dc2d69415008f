package view

import (
	"strings"
	"testing"
)

// A process attached without --launches shows "not traced" in the launches column, not a
// rate of 0, which would say its launches were probed and none came.
func TestLaunchesNotTraced(t *testing.T) {
	rows := fixture()[:2]
	rows[1].NoLaunches, rows[1].LaunchesPerS = true, 0
	frame := feed(t, New(nil, 0, "echoctl attach"), size(200, 20), RowsMsg(rows)).plain()
	var stream, pipeline string
	for _, line := range strings.Split(frame, "\n") {
		switch {
		case strings.Contains(line, " stream "):
			stream = line
		case strings.Contains(line, " pipeline "):
			pipeline = line
		}
	}
	if !strings.Contains(stream, "  not traced  ") {
		t.Errorf("stream's row %q: want its launches column to say not traced", stream)
	}
	if strings.Contains(pipeline, "not traced") || !strings.Contains(pipeline, "21.5k") {
		t.Errorf("pipeline's row %q: want its launch rate (21.5k)", pipeline)
	}
}
