package trace

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestRoundTrip(t *testing.T) {
	events := []*Event{
		{Type: EventCUDAMalloc, PID: 4242, TID: 4243, EnterNS: 10, ExitNS: 20, Caller: 0x401000, Addr: 0x7000_0000, Bytes: 4 << 20},
		{Type: EventCUDAMemcpy2DAsync, PID: 4242, TID: 4243, Ret: 11, EnterNS: 30, ExitNS: 45, Caller: 0x401100,
			Addr: 0x7000_0000, Src: 0x1000, Bytes: 64, Stream: 0xabc, Kind: KindHostToDevice, Arg: [4]uint64{32, 16, 8, 8}},
		{Type: EventCUDALaunchKernel, PID: 4242, TID: 4244, EnterNS: 50, ExitNS: 52, Addr: 0x402000,
			Arg: [4]uint64{1 | 2<<32, 3, 256 | 1<<32, 1}},
		{Type: EventCUMemcpyDtoH, PID: 4300, TID: 4301, Ret: -1, EnterNS: 60, ExitNS: 99, Bytes: ^uint64(0)},
	}
	footer := Footer{End: testStart.Add(2 * time.Second), EndMonoNS: 3_000_000_000, Events: 999,
		Lost: []uint64{0, 3, 0, 1}, Complete: true}
	tf := build(t, testHeader(), events[0], testLate, events[1], events[2], events[3], footer)

	got, err := readAll(tf.data)
	if err != nil {
		t.Fatalf("reading: %v", err)
	}
	wantHeader := testHeader()
	wantHeader.EventSize = EventSize
	if !reflect.DeepEqual(got.header, wantHeader) {
		t.Errorf("header:\n got %+v\nwant %+v", got.header, wantHeader)
	}
	if len(got.events) != len(events) {
		t.Fatalf("read %d events, wrote %d", len(got.events), len(events))
	}
	for i, e := range events {
		if got.events[i] != *e {
			t.Errorf("event %d:\n got %+v\nwant %+v", i, got.events[i], *e)
		}
	}
	if !reflect.DeepEqual(got.modules, []Module{testLate}) {
		t.Errorf("modules: %+v", got.modules)
	}
	footer.Events = uint64(len(events)) // the writer counts
	if !got.hasFooter || !reflect.DeepEqual(got.footer, footer) {
		t.Errorf("footer: %+v, %v; want %+v", got.footer, got.hasFooter, footer)
	}
	if n := tf.offsets[1] - tf.offsets[0]; n != EventSize {
		t.Errorf("an event record is %d bytes, want %d", n, EventSize)
	}
	if !bytes.HasPrefix(tf.data, []byte("ECHOTRC\x00\x01\x00\x00\x00")) {
		t.Errorf("file starts % x, want the magic and version 1", tf.data[:12])
	}
}

func TestRoundTripEmpty(t *testing.T) {
	tf := build(t, Header{}, Footer{})
	got, err := readAll(tf.data)
	if err != nil || !got.hasFooter || len(got.events) != 0 || got.footer.Complete {
		t.Errorf("empty trace: %+v, %v", got, err)
	}
}

func TestRecordEventReused(t *testing.T) {
	tf := build(t, Header{}, &Event{Type: EventMalloc, Bytes: 1}, &Event{Type: EventFree, Addr: 2}, Footer{})
	r, err := NewReader(bytes.NewReader(tf.data))
	if err != nil {
		t.Fatal(err)
	}
	first, _ := r.Next()
	second, _ := r.Next()
	if first.Event != second.Event || second.Event.Type != EventFree {
		t.Errorf("Next should reuse one Event: %p %p %+v", first.Event, second.Event, second.Event)
	}
}

func TestWriterRefuses(t *testing.T) {
	tests := []struct {
		name  string
		write func(w *Writer) error
		want  string
	}{
		{"unknown event type", func(w *Writer) error { return w.WriteEvent(&Event{Type: 9}) }, "unknown event type 9"},
		{"event type past the tags", func(w *Writer) error { return w.WriteEvent(&Event{Type: EventType(recordModule)}) }, "unknown event type"},
		{"empty module", func(w *Writer) error { return w.WriteModule(Module{Path: "x", Start: 5, End: 5}) }, "empty range"},
		{"after close", func(w *Writer) error {
			w.Close(Footer{})
			return w.WriteEvent(&Event{Type: EventMalloc})
		}, "closed"},
		{"close twice", func(w *Writer) error {
			w.Close(Footer{})
			return w.Close(Footer{})
		}, "closed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := NewWriter(&bytes.Buffer{}, Header{})
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.write(w); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
	if _, err := NewWriter(&bytes.Buffer{}, Header{Modules: []Module{{Start: 2, End: 1}}}); err == nil {
		t.Error("NewWriter accepted a module with an empty range")
	}
}

// failAfter fails every write after n bytes.
type failAfter struct{ n int }

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return f.n, errors.New("disk full")
	}
	f.n -= len(p)
	return len(p), nil
}

func TestWriterReportsWriteErrors(t *testing.T) {
	w, err := NewWriter(&failAfter{n: 100}, Header{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Flush: %v, want disk full", err)
	}
	if err := w.Close(Footer{}); err == nil {
		t.Error("Close after a failed flush: no error")
	}
}

// A raw record written as bytes reads back as the event it encodes; a bad one is refused.
func TestWriteRawEvent(t *testing.T) {
	want := Event{Type: EventCUDAMemcpy, PID: 7, TID: 8, EnterNS: 10, ExitNS: 20, Addr: 0x1000, Src: 0x2000, Bytes: 4096, Kind: 1}
	raw := make([]byte, EventSize)
	if err := want.encode(raw); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRawEvent(raw); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRawEvent(raw[:EventSize-1]); err == nil {
		t.Error("a short record was accepted")
	}
	bad := append([]byte(nil), raw...)
	bad[0] = 0xee
	if err := w.WriteRawEvent(bad); err == nil {
		t.Error("an unknown event type was accepted")
	}
	if err := w.Close(Footer{Complete: true}); err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := r.Next()
	if err != nil || rec.Event == nil || *rec.Event != want {
		t.Fatalf("read back %+v, %v; want %+v", rec.Event, err, want)
	}
}
