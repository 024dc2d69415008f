package tracer

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/cilium/ebpf/ringbuf"

	"github.com/echo-uma/echo/trace"
)

// errIdle means no event arrived before the read deadline; errDrained that the ring buffer
// was flushed and every event in it has been read.
var (
	errIdle    = errors.New("no event before the deadline")
	errDrained = errors.New("ring buffer drained")
)

// eventReader reads events off the ring buffer into one reused record and event.
type eventReader struct {
	rd  *ringbuf.Reader
	rec ringbuf.Record
	ev  trace.Event
}

func (t *Tracer) newEventReader() (*eventReader, error) {
	rd, err := ringbuf.NewReader(t.coll.Maps["events"])
	if err != nil {
		return nil, fmt.Errorf("opening the ring buffer: %w", err)
	}
	return &eventReader{rd: rd}, nil
}

// next returns the next event, valid until the following call. It gives errIdle when idle
// past the deadline and errDrained once flush() has emptied the buffer.
func (r *eventReader) next(deadline time.Time) (*trace.Event, error) {
	r.rd.SetDeadline(deadline)
	if err := r.rd.ReadInto(&r.rec); err != nil {
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			return nil, errIdle
		case errors.Is(err, ringbuf.ErrFlushed), errors.Is(err, ringbuf.ErrClosed):
			return nil, errDrained
		}
		return nil, fmt.Errorf("reading the ring buffer: %w", err)
	}
	// The record is a struct echo_event, which trace.Event mirrors (its layout test holds
	// both to bpf/events.h).
	if err := r.ev.UnmarshalBinary(r.rec.RawSample); err != nil {
		return nil, fmt.Errorf("decoding a ring buffer record: %w", err)
	}
	return &r.ev, nil
}

// flush makes next return what is left in the buffer, then errDrained.
func (r *eventReader) flush() error { return r.rd.Flush() }

func (r *eventReader) close() error { return r.rd.Close() }
