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
	buf    [EventSize]byte
	events uint64
	closed bool
}

// errClosed is returned by every write after Close.
var errClosed = errors.New("trace writer is closed")

// NewWriter writes the header of a trace to w and returns a Writer for its records. It sets
// h.EventSize itself.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	h.EventSize = EventSize
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
	tw := &Writer{bw: bufio.NewWriterSize(w, 64<<10)}
	tw.bw.WriteString(Magic)
	var prefix [8]byte
	binary.LittleEndian.PutUint32(prefix[:4], Version)
	binary.LittleEndian.PutUint32(prefix[4:], uint32(len(meta)))
	tw.bw.Write(prefix[:])
	if _, err := tw.bw.Write(meta); err != nil {
		return nil, fmt.Errorf("writing trace header: %w", err)
	}
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
	return err
}
