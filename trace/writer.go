package trace

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Writer streams a trace file: the header at once, then records as they come, then the
// footer at Close. Its memory use is constant; what has been flushed is a readable trace
// even if the process dies before Close (the reader reports it as cut short). A Writer is
// not safe for concurrent use: Flush from the goroutine that writes.
type Writer struct {
	bw     *bufio.Writer
	out    *countingWriter
	buf    [EventSize]byte
	events uint64
	closed bool
	pos    int64              // bytes handed to bw: where the next record starts
	start  boundary           // the end of the header
	marks  [markRing]boundary // the latest record boundaries, for TruncateClose
	nmarks int
}

// boundary is a place the file can be cut without splitting a record: its offset and the
// events before it.
type boundary struct {
	pos    int64
	events uint64
}

// markRing is how many recent record boundaries a Writer remembers: many times footerRoom
// worth of event records.
const markRing = 8192

// footerRoom is what TruncateClose frees for the footer on a full disk: a footer's JSON is
// a few hundred bytes plus one counter per CPU.
const footerRoom = 64 << 10

// countingWriter counts the bytes the file took, even from a write that failed part way.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// errClosed is returned by every write after Close.
var errClosed = errors.New("trace writer is closed")

// NewWriter writes the header of a trace to w and returns a Writer for its records. It sets
// h.EventSize itself.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	h.EventSize = EventSize
	h.CommandBytes = RawArgs(h.Command)
	for _, m := range h.Modules {
		if err := checkModule(m); err != nil {
			return nil, fmt.Errorf("writing trace header: %w", err)
		}
	}
	meta, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("encoding trace header: %w", err)
	}
	if len(meta) > maxHeaderLen {
		return nil, fmt.Errorf("writing trace header: %d bytes of metadata, the limit is %d", len(meta), maxHeaderLen)
	}
	cw := &countingWriter{w: w}
	tw := &Writer{bw: bufio.NewWriterSize(cw, 64<<10), out: cw}
	tw.bw.WriteString(Magic)
	var prefix [8]byte
	binary.LittleEndian.PutUint32(prefix[:4], Version)
	binary.LittleEndian.PutUint32(prefix[4:], uint32(len(meta)))
	tw.bw.Write(prefix[:])
	if _, err := tw.bw.Write(meta); err != nil {
		return nil, fmt.Errorf("writing trace header: %w", err)
	}
	tw.pos = int64(len(Magic) + len(prefix) + len(meta))
	tw.start = boundary{tw.pos, 0}
	return tw, nil
}

// WriteEvent appends an event record. It refuses a type bpf/events.h does not define, so
// that the file stays readable.
func (w *Writer) WriteEvent(e *Event) error {
	if w.closed {
		return errClosed
	}
	if !e.Type.Known() {
		return fmt.Errorf("writing event: unknown event type %d", uint32(e.Type))
	}
	if err := e.encode(w.buf[:]); err != nil {
		return err
	}
	if _, err := w.bw.Write(w.buf[:]); err != nil {
		return fmt.Errorf("writing event: %w", err)
	}
	w.events++
	w.pos += EventSize
	w.mark()
	return nil
}

// WriteRawEvent appends an event record already in its binary form (a struct echo_event
// straight off the ring buffer), without decoding it: the tracer's hot path.
func (w *Writer) WriteRawEvent(b []byte) error {
	if w.closed {
		return errClosed
	}
	if len(b) != EventSize {
		return fmt.Errorf("writing event: %d bytes, want %d", len(b), EventSize)
	}
	if t := EventType(binary.LittleEndian.Uint32(b)); !t.Known() {
		return fmt.Errorf("writing event: unknown event type %d", uint32(t))
	}
	if _, err := w.bw.Write(b); err != nil {
		return fmt.Errorf("writing event: %w", err)
	}
	w.events++
	w.pos += EventSize
	w.mark()
	return nil
}

// WriteModule appends a module record: a library mapped after the trace began (dlopen).
func (w *Writer) WriteModule(m Module) error {
	if w.closed {
		return errClosed
	}
	if err := checkModule(m); err != nil {
		return fmt.Errorf("writing module record: %w", err)
	}
	if err := w.writePayload(recordModule, m); err != nil {
		return fmt.Errorf("writing module record: %w", err)
	}
	w.mark()
	return nil
}

// Flush writes buffered records to the underlying writer, so that a trace cut short later
// still holds them.
func (w *Writer) Flush() error {
	if err := w.bw.Flush(); err != nil {
		return fmt.Errorf("flushing trace: %w", err)
	}
	return nil
}

// Close writes the footer and flushes. f.Events is set to the number of events written.
// It does not close the underlying writer.
func (w *Writer) Close(f Footer) error {
	if w.closed {
		return errClosed
	}
	w.closed = true
	f.Events = w.events
	if err := w.writePayload(recordFooter, f); err != nil {
		return fmt.Errorf("writing trace footer: %w", err)
	}
	return w.Flush()
}

// Events is the number of events written so far.
func (w *Writer) Events() uint64 { return w.events }

// writePayload writes a tag, a length and v as JSON.
func (w *Writer) writePayload(tag uint32, v any) error {
	payload, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if len(payload) > maxPayloadLen {
		return fmt.Errorf("%d bytes, the limit is %d", len(payload), maxPayloadLen)
	}
	var prefix [8]byte
	binary.LittleEndian.PutUint32(prefix[:4], tag)
	binary.LittleEndian.PutUint32(prefix[4:], uint32(len(payload)))
	w.bw.Write(prefix[:])
	_, err = w.bw.Write(payload)
	w.pos += int64(len(prefix) + len(payload))
	return err
}

// mark remembers that a record ends at w.pos.
func (w *Writer) mark() {
	w.marks[w.nmarks%markRing] = boundary{w.pos, w.events}
	w.nmarks++
}

// Truncater is a file a trace can be cut back in: an *os.File.
type Truncater interface {
	Truncate(size int64) error
	Seek(offset int64, whence int) (int64, error)
}

// TruncateClose ends a trace whose writes failed (the disk filled): it cuts the file back
// to the last whole record that leaves room for the footer, and writes a footer that says
// why (f.Truncated) and how many events the file holds. If even that footer does not fit,
// the file still ends at a record boundary, which the reader takes as a trace cut short.
func (w *Writer) TruncateClose(file Truncater, f Footer) error {
	if w.closed {
		return errClosed
	}
	w.closed = true
	cut, found := w.start, false
	for i := max(0, w.nmarks-markRing); i < w.nmarks; i++ {
		if m := w.marks[i%markRing]; m.pos <= w.out.n-footerRoom {
			cut, found = m, true
		}
	}
	if !found && w.nmarks > markRing {
		// The boundary wanted is older than the ring remembers: take the oldest it does,
		// and if the footer does not fit there, end without one.
		cut = w.marks[w.nmarks%markRing]
	}
	if err := file.Truncate(cut.pos); err != nil {
		return fmt.Errorf("cutting the trace back to %d bytes: %w", cut.pos, err)
	}
	if _, err := file.Seek(cut.pos, io.SeekStart); err != nil {
		return fmt.Errorf("cutting the trace back to %d bytes: %w", cut.pos, err)
	}
	w.out.n, w.pos, w.events = cut.pos, cut.pos, cut.events
	w.bw.Reset(w.out)
	f.Events, f.Complete = w.events, false
	if err := w.writePayload(recordFooter, f); err == nil {
		if err = w.bw.Flush(); err == nil {
			return nil
		}
	}
	file.Truncate(cut.pos)
	return fmt.Errorf("no room for the trace's footer: the trace ends after %d events without one", w.events)
}
