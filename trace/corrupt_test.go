package trace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReaderCorrupt(t *testing.T) {
	e1 := &Event{Type: EventCUDAMalloc, PID: 1, TID: 1, Addr: 0x1000, Bytes: 64}
	e2 := &Event{Type: EventCUDAMemcpy, PID: 1, TID: 1, Addr: 0x1000, Src: 0x9000, Bytes: 64, Kind: KindHostToDevice}
	good := build(t, testHeader(), e1, testLate, e2, Footer{Complete: true})
	hdrEnd, modOff, e2Off, footOff, end := good.offsets[0], good.offsets[1], good.offsets[2], good.offsets[3], good.offsets[4]

	// edits return a damaged copy of the good trace
	cut := func(n int64) func([]byte) []byte { return func(b []byte) []byte { return b[:n] } }
	put32 := func(off int64, v uint32) func([]byte) []byte {
		return func(b []byte) []byte { binary.LittleEndian.PutUint32(b[off:], v); return b }
	}
	// withFooter replaces the footer by one with this payload
	withFooter := func(payload string) func([]byte) []byte {
		return func(b []byte) []byte {
			b = binary.LittleEndian.AppendUint32(b[:footOff], recordFooter)
			b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
			return append(b, payload...)
		}
	}
	// withHeader replaces the header metadata
	withHeader := func(meta string) func([]byte) []byte {
		return func(b []byte) []byte {
			h := append([]byte(Magic), 1, 0, 0, 0)
			h = binary.LittleEndian.AppendUint32(h, uint32(len(meta)))
			return append(append(h, meta...), b[hdrEnd:]...)
		}
	}
	hdrMeta := string(good.data[len(Magic)+8 : hdrEnd])

	tests := []struct {
		name    string
		edit    func([]byte) []byte
		events  int   // records returned before the error
		modules int   //
		offset  int64 // of the *CorruptError; -1: another error
		want    string
	}{
		{"bad magic", func(b []byte) []byte { b[0] = 'X'; return b }, 0, 0, -1, "not an Echo trace (bad magic)"},
		{"text file", func([]byte) []byte { return []byte("hello, world\n") }, 0, 0, -1, "not an Echo trace (bad magic)"},
		{"short non-trace", func([]byte) []byte { return []byte("PK") }, 0, 0, -1, "not an Echo trace (bad magic)"},
		{"empty file", cut(0), 0, 0, 0, "empty file"},
		{"truncated magic", cut(5), 0, 0, 0, "truncated header: 5 of 8 magic bytes"},
		{"newer version", put32(8, 7), 0, 0, -1, "trace format version 7 is newer than this echoctl understands (1)"},
		{"version 0", put32(8, 0), 0, 0, 8, "format version 0"},
		{"truncated version", cut(10), 0, 0, 8, "truncated header"},
		{"header length too large", put32(12, 1<<30), 0, 0, 12, "header metadata length 1073741824 exceeds the 16 MiB limit"},
		{"truncated header metadata", cut(hdrEnd - 3), 0, 0, 16, "truncated header"},
		{"header metadata not JSON", withHeader("{nope"), 0, 0, 16, "header metadata"},
		{"header event size", withHeader(strings.Replace(hdrMeta, `"event_size":112`, `"event_size":120`, 1)), 0, 0, 16, "header says events are 120 bytes"},
		{"header empty module", withHeader(strings.Replace(hdrMeta, `"end":5242880`, `"end":1`, 1)), 0, 0, 16, "empty range"},
		{"missing footer right after header", cut(hdrEnd), 0, 0, hdrEnd, "no footer: the trace was cut short"},
		{"truncated first event", cut(hdrEnd + 50), 0, 0, hdrEnd, "truncated event: 50 of 112 bytes"},
		{"truncated record type", cut(e2Off + 2), 1, 1, e2Off, "truncated record: 2 of 4 type bytes"},
		{"truncated second event", cut(e2Off + 111), 1, 1, e2Off, "truncated event: 111 of 112 bytes"},
		{"unknown event type", put32(e2Off, 9), 1, 1, e2Off, "unknown event type 9"},
		{"unknown record type", put32(e2Off, 0x12345678), 1, 1, e2Off, "unknown record type 0x12345678"},
		{"oversized module length", put32(modOff+4, 2<<20), 1, 0, modOff, "module record length 2097152 exceeds the 1 MiB limit"},
		{"truncated module", cut(modOff + 20), 1, 0, modOff, "truncated module record: 12 of"},
		{"truncated module length", cut(modOff + 6), 1, 0, modOff, "truncated module record: 2 of 4 length bytes"},
		{"module not JSON", func(b []byte) []byte { b[modOff+8] = '['; return b }, 1, 0, modOff, "module record"},
		{"missing footer", cut(footOff), 2, 1, footOff, "no footer: the trace was cut short"},
		{"truncated footer", cut(end - 1), 2, 1, footOff, "truncated footer record"},
		{"footer count mismatch", withFooter(`{"events":5,"complete":true}`), 2, 1, footOff, "footer counts 5 events but the trace holds 2"},
		{"footer not JSON", withFooter(`{"events":`), 2, 1, footOff, "footer record"},
		{"oversized footer length", put32(footOff+4, 0xFFFFFFFF), 2, 1, footOff, "exceeds the 1 MiB limit"},
		{"data after the footer", func(b []byte) []byte { return append(b, 0) }, 2, 1, end, "data after the footer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := tt.edit(append([]byte(nil), good.data...))
			got, err := readAll(data)
			if err == nil {
				t.Fatalf("no error; want %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want one containing %q", err, tt.want)
			}
			var ce *CorruptError
			switch {
			case tt.offset >= 0 && !errors.As(err, &ce):
				t.Errorf("error %T %v, want a *CorruptError", err, err)
			case tt.offset >= 0 && ce.Offset != tt.offset:
				t.Errorf("corrupt at byte %d, want %d", ce.Offset, tt.offset)
			case tt.offset >= 0 && err.Error() != fmt.Sprintf("trace corrupt at byte %d: %s", ce.Offset, ce.Reason):
				t.Errorf("Error() = %q", err)
			case tt.offset < 0 && ce != nil:
				t.Errorf("error %v is a *CorruptError", err)
			}
			if len(got.events) != tt.events || len(got.modules) != tt.modules {
				t.Errorf("returned %d events and %d modules before the error, want %d and %d",
					len(got.events), len(got.modules), tt.events, tt.modules)
			}
			if got.hasFooter {
				t.Error("Footer() reports a footer on a corrupt trace")
			}
		})
	}
}

func TestReaderSentinels(t *testing.T) {
	if _, err := readAll([]byte("definitely not")); !errors.Is(err, ErrNotTrace) {
		t.Errorf("not a trace: %v, want ErrNotTrace", err)
	}
	data := build(t, Header{}, Footer{}).data
	binary.LittleEndian.PutUint32(data[8:], 2)
	var ve *VersionError
	if _, err := readAll(data); !errors.As(err, &ve) || ve.Version != 2 {
		t.Errorf("newer version: %v, want a *VersionError for 2", err)
	}
}

func TestReaderErrorIsSticky(t *testing.T) {
	tf := build(t, Header{}, &Event{Type: EventMalloc})
	r, err := newTestReader(tf.data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	_, first := r.Next()
	_, second := r.Next()
	if first == nil || first != second {
		t.Errorf("errors %v then %v, want the same one twice", first, second)
	}
}

func TestReaderIOError(t *testing.T) {
	tf := build(t, Header{}, &Event{Type: EventMalloc}, &Event{Type: EventFree}, Footer{})
	eio := errors.New("input/output error")
	r, err := NewReader(io.MultiReader(bytes.NewReader(tf.data[:tf.offsets[1]+10]), iotest.ErrReader(eio)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != nil {
		t.Fatalf("first event: %v", err)
	}
	_, err = r.Next()
	var ce *CorruptError
	if !errors.Is(err, eio) || errors.As(err, &ce) || !strings.Contains(err.Error(), fmt.Sprintf("at byte %d", tf.offsets[1])) {
		t.Errorf("error %v, want the I/O error wrapped with its offset, not a *CorruptError", err)
	}
}
