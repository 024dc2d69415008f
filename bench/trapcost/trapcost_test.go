package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cilium/ebpf/features"

	"github.com/echo-uma/echo/internal/testenv"
)

// The plumbing end to end: target built with cc, every mode attached, run and printed.
// The numbers are not checked; they are what the benchmark is for.
func TestRun(t *testing.T) {
	testenv.RequireRoot(t)
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no cc to build the target")
	}
	target := filepath.Join(t.TempDir(), "target")
	if out, err := exec.Command(cc, "-O2", "target.c", "-o", target).CombinedOutput(); err != nil {
		t.Fatalf("building the target: %v\n%s", err, out)
	}
	var out bytes.Buffer
	if err := run(context.Background(), options{rounds: 1, calls: 100, target: target, sym: "trap_plain"}, &out); err != nil {
		t.Fatal(err)
	}
	for _, m := range modes(features.HaveBPFLinkUprobeMulti() == nil) {
		if !strings.Contains(out.String(), "\n"+m.name+" ") {
			t.Errorf("no row for %q in:\n%s", m.name, out.String())
		}
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}
