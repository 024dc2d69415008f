package trace

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"
)

var (
	testStart = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	testExe   = Module{Path: "/opt/app/stream", BuildID: "0123abcd", Start: 0x400000, End: 0x500000, Base: 0x400000, Size: 123456}
	testLib   = Module{Path: "/usr/lib/libcudart.so.12", BuildID: "feed", Start: 0x7f000000, End: 0x7f100000, Base: 0x7f000000, Size: 654321}
	testLate  = Module{Path: "/opt/app/plugin.so", Start: 0x7e000000, End: 0x7e010000, Base: 0x7e000000, Size: 4096}
)

func testHeader() Header {
	return Header{
		Host: "gpu01", Kernel: "6.8.0-45-generic", Start: testStart, StartMonoNS: 1_000_000_000,
		Command: []string{"./stream", "--size", "4M"}, PID: 4242, Tracer: "echoctl test",
		Modules: []Module{testExe, testLib},
	}
}

// traceFile is a trace built in memory, with the offset at which each record starts.
type traceFile struct {
	data    []byte
	offsets []int64 // of each record passed to build, then the end
}

// build writes a trace of records: *Event, Module, and a Footer that closes it. Without a
// Footer the trace ends as a writer killed after its last flush leaves it.
func build(t testing.TB, h Header, records ...any) traceFile {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, h)
	if err != nil {
		t.Fatalf("NewWriter: %v", err)
	}
	var tf traceFile
	for _, rec := range records {
		w.Flush()
		tf.offsets = append(tf.offsets, int64(buf.Len()))
		switch rec := rec.(type) {
		case *Event:
			err = w.WriteEvent(rec)
		case Module:
			err = w.WriteModule(rec)
		case Footer:
			err = w.Close(rec)
		default:
			t.Fatalf("build: cannot write a %T", rec)
		}
		if err != nil {
			t.Fatalf("writing %+v: %v", rec, err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	tf.offsets = append(tf.offsets, int64(buf.Len()))
	tf.data = buf.Bytes()
	return tf
}

// contents is everything a Reader returned.
type contents struct {
	header    Header
	events    []Event
	modules   []Module
	footer    Footer
	hasFooter bool
}

// readAll reads a whole trace; the error is the one that ended it, nil after a valid footer.
func readAll(data []byte) (contents, error) {
	var c contents
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		return c, err
	}
	c.header = r.Header()
	for {
		rec, err := r.Next()
		switch {
		case errors.Is(err, io.EOF):
			c.footer, c.hasFooter = r.Footer()
			return c, nil
		case err != nil:
			c.footer, c.hasFooter = r.Footer()
			return c, err
		case rec.Event != nil:
			c.events = append(c.events, *rec.Event)
		case rec.Module != nil:
			c.modules = append(c.modules, *rec.Module)
		}
	}
}

func copyEvent(t EventType, kind uint32, dst, src, bytes, enter, exit uint64) *Event {
	return &Event{Type: t, PID: 4242, TID: 4242, Kind: kind, Addr: dst, Src: src, Bytes: bytes,
		EnterNS: enter, ExitNS: exit, Caller: testExe.Start + 0x1234}
}

func newTestReader(data []byte) (*Reader, error) { return NewReader(bytes.NewReader(data)) }
