package source

import (
	"context"
	"path/filepath"
	"testing"
)

func proveFile(t *testing.T, name string) []Proof {
	t.Helper()
	needClang(t)
	f, _ := filepath.Abs(filepath.Join("../testdata/workloads", name))
	tu, err := Parse(context.Background(), Command{File: f}, Options{RuntimeHeaders: emulatorHeaders(t)})
	if err != nil {
		t.Fatal(err)
	}
	ps := Prove(tu)
	for _, p := range ps {
		t.Logf("%s %s/%s copies=%+v", p.Function, p.Host, p.Device, len(p.Copies))
		for _, v := range p.Verdicts {
			t.Logf("  %s %s line %d: %s", v.Cond, v.Status, v.At.Line, v.Reason)
		}
	}
	return ps
}

func TestProveDebug(t *testing.T) {
	for _, f := range []string{"stream.cu", "unsafe_live_value.cu", "unsafe_ptr_identity.cu", "unsafe_lifetime.cu", "unsafe_sync_wait.cu"} {
		t.Run(f, func(t *testing.T) { proveFile(t, f) })
	}
}
