package trace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
)

// FuzzReader feeds the reader arbitrary bytes: it must never panic, never loop, and end
// every trace with io.EOF after a consistent footer or with an error saying what was wrong.
func FuzzReader(f *testing.F) {
	good := build(f, testHeader(),
		copyEvent(EventCUDAMalloc, 0, 0x7000_0000, 0, 4096, 10, 20),
		copyEvent(EventCUDAMemcpy, KindDefault, 0x7000_0000, 0x1000, 4096, 30, 40),
		testLate,
		copyEvent(EventCUDAMemcpy, KindDeviceToHost, 0x1000, 0x7000_0000, 4096, 50, 70),
		&Event{Type: EventCUDALaunchKernel, PID: 1, TID: 2},
		Footer{Lost: []uint64{1, 2}, Complete: true})
	f.Add(good.data)
	for _, off := range good.offsets {
		f.Add(good.data[:off])   // cut at a record boundary
		f.Add(good.data[:off/2]) // and inside one
	}
	for _, off := range good.offsets[:len(good.offsets)-1] {
		for _, v := range []uint32{0, 9, 0xFF, recordModule, recordFooter, 0xFFFFFFFF} {
			b := bytes.Clone(good.data)
			binary.LittleEndian.PutUint32(b[off:], v)
			f.Add(b)
		}
	}
	f.Add([]byte{})
	f.Add([]byte(Magic))

	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			var ce *CorruptError
			var ve *VersionError
			if !errors.Is(err, ErrNotTrace) && !errors.As(err, &ce) && !errors.As(err, &ve) {
				t.Fatalf("NewReader: unexpected error %T %v", err, err)
			}
			return
		}
		var events uint64
		// every record consumes at least 4 bytes, so this many calls must reach the end
		for range len(data)/4 + 2 {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				f, ok := r.Footer()
				if !ok || f.Events != events {
					t.Fatalf("io.EOF with footer %+v, %v after %d events", f, ok, events)
				}
				return
			}
			if err != nil {
				var ce *CorruptError
				if !errors.As(err, &ce) || ce.Offset < 0 || ce.Offset > int64(len(data)) {
					t.Fatalf("Next: %T %v, want a *CorruptError inside the input", err, err)
				}
				if _, again := r.Next(); again != err {
					t.Fatalf("error not sticky: %v then %v", err, again)
				}
				return
			}
			if (rec.Event == nil) == (rec.Module == nil) {
				t.Fatalf("record with %v event and %v module", rec.Event != nil, rec.Module != nil)
			}
			if rec.Event != nil {
				events++
				if !rec.Event.Type.Known() {
					t.Fatalf("returned an event of unknown type %d", rec.Event.Type)
				}
			}
		}
		t.Fatalf("Next did not end after %d calls on %d bytes", len(data)/4+2, len(data))
	})
}

// FuzzSummarize checks that statistics never panic on whatever the reader lets through.
func FuzzSummarize(f *testing.F) {
	f.Add(build(f, testHeader(),
		copyEvent(EventCUDAMallocManaged, 0, 0x7000_0000, 0, 4096, 10, 20),
		copyEvent(EventCUDAMemcpyAsync, KindDefault, 0x7000_0000, 0x1000, 4096, 30, 40),
		copyEvent(EventCUMemcpyDtoD, 0, 0x7000_0000, 0x7000_0000, 4096, 40, 30),
		Footer{Lost: []uint64{1}}).data)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		st, _ := Summarize(r)
		if st == nil || st.CopyShare < 0 || st.CopyShare > 1 {
			t.Fatalf("Summarize: %+v", st)
		}
	})
}
