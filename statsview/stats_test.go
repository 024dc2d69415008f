package statsview

import (
	"strings"
	"testing"

	"github.com/echo-uma/echo/trace"
)

// TestFailedLines: one line per API whose calls failed, its errors counted, in order.
func TestFailedLines(t *testing.T) {
	st := &trace.Stats{Calls: map[string]uint64{"cudaMemcpy": 80, "cudaMalloc": 2},
		Failed: map[string]trace.Failed{
			"cudaMemcpy": {Calls: 79, Errors: map[string]uint64{"cudaErrorInvalidValue": 79}},
			"cudaMalloc": {Calls: 1, Errors: map[string]uint64{"cudaErrorMemoryAllocation": 1}},
		}}
	got := strings.Join(failedLines(st), "\n")
	want := "cudaMalloc: 1 of 2 calls failed (cudaErrorMemoryAllocation ×1)\ncudaMemcpy: 79 of 80 calls failed (cudaErrorInvalidValue ×79)"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
