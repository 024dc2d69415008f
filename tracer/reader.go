package tracer

import (
	"encoding/binary"
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

// idleWait is how long a read waits for an event before the loop gets a chance to flush.
const idleWait = 200 * time.Millisecond

// eventReader reads events off the ring buffer into one reused record. Events stay in their
// binary form (struct echo_event, which trace.Event mirrors and the trace file stores): the
// loop only looks at the type and pid, so nothing is decoded on the hot path.
type eventReader struct {
	rd  *ringbuf.Reader
	rec ringbuf.Record
}

// rawEvent is one struct echo_event as the ring buffer delivered it.
type rawEvent []byte

func (e rawEvent) typ() trace.EventType { return trace.EventType(binary.LittleEndian.Uint32(e[0:])) }
func (e rawEvent) pid() int             { return int(binary.LittleEndian.Uint32(e[4:])) }

func (t *Tracer) newEventReader() (*eventReader, error) {
	rd, err := ringbuf.NewReader(t.maps.Events)
	if err != nil {
		return nil, fmt.Errorf("opening the ring buffer: %w", err)
	}
	return &eventReader{rd: rd}, nil
}

// next returns the next event, valid until the following call. It gives errIdle after
// idleWait without an event and errDrained once flush() has emptied the buffer.
func (r *eventReader) next() (rawEvent, error) {
	if err := r.rd.ReadInto(&r.rec); err != nil {
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			r.rd.SetDeadline(time.Now().Add(idleWait))
			return nil, errIdle
		case errors.Is(err, ringbuf.ErrFlushed), errors.Is(err, ringbuf.ErrClosed):
			return nil, errDrained
		}
		return nil, fmt.Errorf("reading the ring buffer: %w", err)
	}
	if len(r.rec.RawSample) != trace.EventSize {
		return nil, fmt.Errorf("ring buffer record of %d bytes, want %d", len(r.rec.RawSample), trace.EventSize)
	}
	return r.rec.RawSample, nil
}

// start arms the first idle deadline.
func (r *eventReader) start() { r.rd.SetDeadline(time.Now().Add(idleWait)) }

// flush makes next return what is left in the buffer, then errDrained.
func (r *eventReader) flush() error { return r.rd.Flush() }

func (r *eventReader) close() error { return r.rd.Close() }
