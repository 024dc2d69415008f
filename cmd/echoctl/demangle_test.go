package main

import (
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/planview"
	"github.com/echo-uma/echo/trace"
)

// A C++ program's sites read as its source does in the views: helper_alloc allocates every
// host buffer through a static C++ helper, mangled _ZL12alloc_or_diem in the module. The
// Perfetto export names the allocations' caller demangled, and so does stats' site label.
func TestViewsDemangleCxxNames(t *testing.T) {
	_, path := testenv.TraceOK(t, "--host-allocs", "--", testenv.Built(t, "workloads/helper_alloc"),
		"--size", "64K", "--iters", "3", "--warmup", "0")
	export := echoctl(t, "export", path, "-o", "-")
	if !strings.Contains(export, "alloc_or_die(unsigned long)") || strings.Contains(export, "_ZL12alloc_or_die") {
		t.Errorf("the export does not name the allocations' caller alloc_or_die(unsigned long), demangled")
	}
	label := planview.CopySiteLabel(trace.SiteStats{Site: "helper_alloc+0x1a2b", Function: "_ZL12alloc_or_diem", File: "/src/helper_alloc.cu", Line: 44})
	if label != "helper_alloc+0x1a2b alloc_or_die(unsigned long) (helper_alloc.cu:44)" {
		t.Errorf("stats' site label %q: want the function demangled", label)
	}
}
