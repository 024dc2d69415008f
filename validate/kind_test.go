package validate

import (
	"testing"

	"github.com/echo-uma/echo/plan"
)

// TestKindOf: a resolved side's kind follows the planner's one rule (planner.KindOf), the
// driver's pinned allocations too, and a device side is device memory unless managed.
func TestKindOf(t *testing.T) {
	for _, c := range []struct {
		call, side string
		want       plan.MemKind
	}{
		{"malloc", "host", "pageable"},
		{"operator new[]", "host", "pageable"},
		{"cudaMallocHost", "host", "pinned"},
		{"cudaHostAlloc", "host", "pinned"},
		{"cuMemAllocHost_v2", "host", "pinned"},
		{"cudaMallocManaged", "host", "managed"},
		{"cudaMalloc", "device", "device"},
		{"cudaMallocManaged", "device", "managed"},
	} {
		if got := kindOf(c.call, c.side); got != c.want {
			t.Errorf("kindOf(%q, %s) = %q, want %q", c.call, c.side, got, c.want)
		}
	}
}
