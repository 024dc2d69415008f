package tracer_test

import (
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/trace"
)

// These tests drive the real CLI (build/bin/echoctl) with real uprobes on the emulator's
// runtime and real workloads, then read the trace back and hold it to what the workload did.

// traced is a trace file read back whole.
type traced struct {
	header  trace.Header
	footer  trace.Footer
	events  []trace.Event
	modules *trace.Modules
}

func readTrace(t *testing.T, path string) traced {
	t.Helper()
	r := testenv.OpenTrace(t, path)
	tr := traced{header: r.Header(), modules: trace.NewModules(r.Header().Modules)}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("reading %s: %v", path, err)
		}
		if rec.Event != nil {
			tr.events = append(tr.events, *rec.Event)
		} else {
			tr.modules.Add(*rec.Module)
		}
	}
	footer, ok := r.Footer()
	if !ok || !footer.Complete {
		t.Fatalf("%s: footer %+v present=%v, want a complete trace", path, footer, ok)
	}
	if footer.TotalLost() != 0 {
		t.Errorf("%s: %d events lost", path, footer.TotalLost())
	}
	tr.footer = footer
	return tr
}

func (tr traced) of(typ trace.EventType) []trace.Event {
	var out []trace.Event
	for _, e := range tr.events {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

func (tr traced) count(typ trace.EventType) int { return len(tr.of(typ)) }

// copies returns the copy events of a kind (cudaMemcpyKind) and size.
func (tr traced) copies(typ trace.EventType, kind uint32, bytes uint64) []trace.Event {
	var out []trace.Event
	for _, e := range tr.of(typ) {
		if e.Kind == kind && e.Bytes == bytes {
			out = append(out, e)
		}
	}
	return out
}

// allocated returns the addresses returned by allocation events of a type and size.
func (tr traced) allocated(typ trace.EventType, bytes uint64) map[uint64]bool {
	out := map[uint64]bool{}
	for _, e := range tr.of(typ) {
		if e.Bytes == bytes && e.Ret == 0 && e.Addr != 0 {
			out[e.Addr] = true
		}
	}
	return out
}

// siteIn checks that an event's call site resolves into the named module (base name).
func (tr traced) siteIn(t *testing.T, e trace.Event, module string) {
	t.Helper()
	site, ok := tr.modules.Resolve(int(e.PID), e.Caller)
	if !ok || filepath.Base(site.Module) != module {
		t.Errorf("%v called from %#x resolves to %v (ok=%v), want a site in %s", e.Type, e.Caller, site, ok, module)
	}
	if ok && site.BuildID == "" {
		t.Errorf("%v: module %s has no build-id", e.Type, site.Module)
	}
}
