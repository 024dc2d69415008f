package live

import (
	"testing"

	"github.com/echo-uma/echo/trace"
)

// Totals add up every interval, while a row's rates stay the interval's own.
func TestTotalsAddIntervals(t *testing.T) {
	intervals := []*trace.Stats{
		{Copies: trace.PerDirection{H2D: 2, D2H: 1}, Bytes: trace.PerDirection{H2D: 200, D2H: 100}, CopyNS: trace.PerDirection{H2D: 20},
			Calls: map[string]uint64{"cudaLaunchKernel": 3, "cudaMemcpy": 3}},
		{Copies: trace.PerDirection{D2D: 1, H2H: 4}, Bytes: trace.PerDirection{D2D: 10, H2H: 40}, CopyNS: trace.PerDirection{D2H: 5},
			Calls: map[string]uint64{"cuLaunchKernel": 2}},
		{Calls: map[string]uint64{}}, // an idle interval
	}
	p := &process{plan: planResult{speedup: 1}}
	var rows []Row
	for _, st := range intervals {
		p.totals.add(st)
		rows = append(rows, p.row(st, 1, 0, nil))
	}
	want := Totals{Copies: trace.PerDirection{H2D: 2, D2H: 1, D2D: 1, H2H: 4}, Bytes: trace.PerDirection{H2D: 200, D2H: 100, D2D: 10, H2H: 40},
		CopyNS: trace.PerDirection{H2D: 20, D2H: 5}, Launches: 5}
	if rows[2].Totals != want {
		t.Errorf("totals after three intervals %+v, want %+v", rows[2].Totals, want)
	}
	if rows[0].LaunchesPerS != 3 || rows[1].LaunchesPerS != 2 || rows[2].LaunchesPerS != 0 || rows[1].H2DBytesPerS != 0 {
		t.Errorf("rates %v, %v, %v launches/s, %v h2d bytes/s in the second: want each interval's own",
			rows[0].LaunchesPerS, rows[1].LaunchesPerS, rows[2].LaunchesPerS, rows[1].H2DBytesPerS)
	}
}
