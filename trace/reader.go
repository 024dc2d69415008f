package trace

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Record is one record of a trace: exactly one of Event and Module is set.
type Record struct {
	// Event is an event record. It points into the Reader and is overwritten by the next
	// call to Next: copy it to keep it.
	Event *Event
	// Module is a module mapped after the trace began (dlopen).
	Module *Module
}

// Reader streams a trace file record by record, checking everything: a damaged or
// truncated file yields every record before the damage, then a *CorruptError saying where
// and why. It never panics, whatever the input.
type Reader struct {
	br        *bufio.Reader
	off       int64 // bytes consumed from br
	header    Header
	footer    Footer
	hasFooter bool
	events    uint64 // event records returned
	ev        Event  // what Record.Event points to
	buf       [EventSize]byte
	err       error // returned by every Next once set: io.EOF after the footer, or the failure
}

// NewReader reads and checks the header of a trace. It returns ErrNotTrace for a file that
// is not a trace, a *VersionError for a newer format and a *CorruptError for a damaged
// header.
func NewReader(r io.Reader) (*Reader, error) {
	tr := &Reader{br: bufio.NewReaderSize(r, 64<<10)}
	magic := tr.buf[:len(Magic)]
	n, err := tr.readFull(magic)
	switch {
	case err == nil && string(magic) != Magic, err != nil && n > 0 && !bytes.HasPrefix([]byte(Magic), magic[:n]):
		return nil, ErrNotTrace
	case n == 0 && errors.Is(err, io.EOF):
		return nil, &CorruptError{Offset: 0, Reason: "empty file: the trace was cut short before its header"}
	case err != nil:
		return nil, tr.readError(0, err, "truncated header: %d of %d magic bytes", n, len(Magic))
	}

	prefix := tr.buf[:8]
	if n, err := tr.readFull(prefix); err != nil {
		return nil, tr.readError(int64(len(Magic)), err, "truncated header: %d of 8 bytes of version and length", n)
	}
	version := binary.LittleEndian.Uint32(prefix[:4])
	switch {
	case version > Version:
		return nil, &VersionError{Version: version}
	case version == 0:
		return nil, &CorruptError{Offset: int64(len(Magic)), Reason: "format version 0"}
	}
	size := binary.LittleEndian.Uint32(prefix[4:])
	if size > maxHeaderLen {
		return nil, &CorruptError{Offset: int64(len(Magic)) + 4,
			Reason: fmt.Sprintf("header metadata length %d exceeds the %d MiB limit", size, maxHeaderLen>>20)}
	}
	metaOff := tr.off
	meta, err := tr.readBlock(size)
	if err != nil {
		return nil, tr.readError(metaOff, err, "truncated header: %d of %d metadata bytes", len(meta), size)
	}
	if err := json.Unmarshal(meta, &tr.header); err != nil {
		return nil, &CorruptError{Offset: metaOff, Reason: fmt.Sprintf("header metadata: %v", err)}
	}
	tr.header.Command = WithRawArgs(tr.header.Command, tr.header.CommandBytes)
	tr.header.CommandBytes = nil
	if tr.header.EventSize != EventSize {
		return nil, &CorruptError{Offset: metaOff, Reason: fmt.Sprintf(
			"header says events are %d bytes; format version %d has %d", tr.header.EventSize, Version, EventSize)}
	}
	for _, m := range tr.header.Modules {
		if err := checkModule(m); err != nil {
			return nil, &CorruptError{Offset: metaOff, Reason: "header: " + err.Error()}
		}
	}
	return tr, nil
}

// Header is the trace's header.
func (r *Reader) Header() Header { return r.header }

// Footer is the trace's footer, and whether it has been read and found consistent: after
// Next returned io.EOF.
func (r *Reader) Footer() (Footer, bool) { return r.footer, r.hasFooter }

// Next returns the next record. After the footer it returns io.EOF; on a damaged or cut
// short file, a *CorruptError; on a failure of the underlying reader, that error wrapped.
// Once it has returned an error it returns the same error again.
func (r *Reader) Next() (Record, error) {
	if r.err != nil {
		return Record{}, r.err
	}
	rec, err := r.next()
	if err != nil {
		r.err = err
	}
	return rec, err
}

func (r *Reader) next() (Record, error) {
	start := r.off
	n, err := r.readFull(r.buf[:4])
	switch {
	case n == 0 && errors.Is(err, io.EOF):
		return Record{}, &CorruptError{Offset: start, Reason: "no footer: the trace was cut short"}
	case err != nil:
		return Record{}, r.readError(start, err, "truncated record: %d of 4 type bytes", n)
	}
	tag := binary.LittleEndian.Uint32(r.buf[:4])
	switch {
	case tag < maxEventTag:
		return r.event(start, EventType(tag))
	case tag == recordModule:
		return r.module(start)
	case tag == recordFooter:
		return Record{}, r.readFooter(start)
	}
	return Record{}, &CorruptError{Offset: start, Reason: fmt.Sprintf("unknown record type %#08x", tag)}
}

func (r *Reader) event(start int64, t EventType) (Record, error) {
	if !t.Known() {
		return Record{}, &CorruptError{Offset: start, Reason: fmt.Sprintf("unknown event type %d", uint32(t))}
	}
	if n, err := r.readFull(r.buf[4:]); err != nil {
		return Record{}, r.readError(start, err, "truncated event: %d of %d bytes", 4+n, EventSize)
	}
	if err := r.ev.UnmarshalBinary(r.buf[:]); err != nil {
		return Record{}, &CorruptError{Offset: start, Reason: err.Error()}
	}
	r.events++
	return Record{Event: &r.ev}, nil
}

func (r *Reader) module(start int64) (Record, error) {
	m := &Module{}
	if err := r.payload(start, "module", m); err != nil {
		return Record{}, err
	}
	if err := checkModule(*m); err != nil {
		return Record{}, &CorruptError{Offset: start, Reason: err.Error()}
	}
	return Record{Module: m}, nil
}

// readFooter reads the footer and checks that it counts the events read and ends the file.
func (r *Reader) readFooter(start int64) error {
	var f Footer
	if err := r.payload(start, "footer", &f); err != nil {
		return err
	}
	if f.Events != r.events {
		return &CorruptError{Offset: start, Reason: fmt.Sprintf(
			"footer counts %d events but the trace holds %d", f.Events, r.events)}
	}
	switch _, err := r.br.ReadByte(); {
	case err == nil:
		return &CorruptError{Offset: r.off, Reason: "data after the footer"}
	case !errors.Is(err, io.EOF):
		return fmt.Errorf("reading trace at byte %d: %w", r.off, err)
	}
	r.footer, r.hasFooter = f, true
	return io.EOF
}

// payload reads the length and JSON payload of a module or footer record into v.
func (r *Reader) payload(start int64, what string, v any) error {
	n, err := r.readFull(r.buf[:4])
	if err != nil {
		return r.readError(start, err, "truncated %s record: %d of 4 length bytes", what, n)
	}
	size := binary.LittleEndian.Uint32(r.buf[:4])
	if size > maxPayloadLen {
		return &CorruptError{Offset: start, Reason: fmt.Sprintf(
			"%s record length %d exceeds the %d MiB limit", what, size, maxPayloadLen>>20)}
	}
	data, err := r.readBlock(size)
	if err != nil {
		return r.readError(start, err, "truncated %s record: %d of %d payload bytes", what, len(data), size)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return &CorruptError{Offset: start, Reason: fmt.Sprintf("%s record: %v", what, err)}
	}
	return nil
}

// readFull fills p, counting what it consumed.
func (r *Reader) readFull(p []byte) (int, error) {
	n, err := io.ReadFull(r.br, p)
	r.off += int64(n)
	return n, err
}

// readBlock reads size bytes. It grows its buffer with the data that actually arrives, so a
// corrupt length in a short file costs no more memory than the file.
func (r *Reader) readBlock(size uint32) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r.br, int64(size)))
	r.off += int64(len(data))
	if err == nil && len(data) < int(size) {
		err = io.ErrUnexpectedEOF
	}
	return data, err
}

// readError turns the end of the input into a *CorruptError at off, and wraps any other
// failure of the underlying reader.
func (r *Reader) readError(off int64, err error, format string, args ...any) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &CorruptError{Offset: off, Reason: fmt.Sprintf(format, args...)}
	}
	return fmt.Errorf("reading trace at byte %d: %w", off, err)
}
