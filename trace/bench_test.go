package trace

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// benchTrace is a trace of n events shaped like a copy→kernel→copy loop.
func benchTrace(b *testing.B, n int) []byte {
	b.Helper()
	var buf bytes.Buffer
	buf.Grow(n*EventSize + 4096)
	w, err := NewWriter(&buf, testHeader())
	if err != nil {
		b.Fatal(err)
	}
	kinds := []EventType{EventCUDAMemcpy, EventCUDALaunchKernel, EventCUDAMemcpy, EventCUDAStreamSynchronize}
	for i := range n {
		e := copyEvent(kinds[i%len(kinds)], uint32(i%3), 0x7000_0000, 0x1000, 4<<20, uint64(i)*100, uint64(i)*100+60)
		if err := w.WriteEvent(e); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(Footer{Complete: true}); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

func reportEventRate(b *testing.B, events int) {
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.SetBytes(int64(events) * EventSize)
}

// benchReader reads the trace in data.
func benchReader(b *testing.B, data []byte) *Reader {
	b.Helper()
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	return r
}

func BenchmarkReader(b *testing.B) {
	const n = 1_000_000
	data := benchTrace(b, n)
	for b.Loop() {
		r := benchReader(b, data)
		for {
			if _, err := r.Next(); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
	reportEventRate(b, n)
}

func BenchmarkWriter(b *testing.B) {
	const n = 1_000_000
	e := copyEvent(EventCUDAMemcpy, KindHostToDevice, 0x7000_0000, 0x1000, 4<<20, 100, 160)
	for b.Loop() {
		w, err := NewWriter(io.Discard, testHeader())
		if err != nil {
			b.Fatal(err)
		}
		for range n {
			if err := w.WriteEvent(e); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(Footer{}); err != nil {
			b.Fatal(err)
		}
	}
	reportEventRate(b, n)
}

func BenchmarkSummarize(b *testing.B) {
	const n = 1_000_000
	data := benchTrace(b, n)
	for b.Loop() {
		r := benchReader(b, data)
		if _, err := Summarize(r); err != nil {
			b.Fatal(err)
		}
	}
	reportEventRate(b, n)
}
