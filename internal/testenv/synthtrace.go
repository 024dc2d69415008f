package testenv

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/echo-uma/echo/trace"
)

// WriteTrace writes a trace file of events at path; a nil footer leaves it cut short.
func WriteTrace(t testing.TB, path string, h trace.Header, footer *trace.Footer, events ...trace.Event) {
	t.Helper()
	var buf bytes.Buffer
	w, err := trace.NewWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	for i := range events {
		if err := w.WriteEvent(&events[i]); err != nil {
			t.Fatal(err)
		}
	}
	if footer != nil {
		err = w.Close(*footer)
	} else {
		err = w.Flush()
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Calls is a synthetic trace written by hand: one thread of the header's process making its
// calls one after another from the header's start, each 10 µs after the last one returned,
// from callers given as offsets into the module loaded at Base.
type Calls struct {
	Header trace.Header
	Base   uint64
	Events []trace.Event
	now    uint64
}

// NewCalls starts a synthetic trace of the process h describes.
func NewCalls(h trace.Header, base uint64) *Calls {
	return &Calls{Header: h, Base: base, now: h.StartMonoNS}
}

// Call records a call of typ from Base+caller that lasted ns.
func (c *Calls) Call(typ trace.EventType, caller, ns uint64, e trace.Event) {
	pid := uint32(c.Header.PID)
	e.Type, e.PID, e.TID, e.Caller, e.EnterNS, e.ExitNS = typ, pid, pid, c.Base+caller, c.now, c.now+ns
	c.Events = append(c.Events, e)
	c.now += ns + 10_000
}

// Idle lets ns pass without a call (the program's own work).
func (c *Calls) Idle(ns uint64) { c.now += ns }

// Write writes the trace at path, complete, ending a second after it started.
func (c *Calls) Write(t testing.TB, path string) {
	t.Helper()
	footer := trace.Footer{End: c.Header.Start.Add(time.Second), EndMonoNS: c.now, Complete: true}
	WriteTrace(t, path, c.Header, &footer, c.Events...)
}
