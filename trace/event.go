package trace

import (
	"encoding/binary"
	"fmt"
	"unsafe"
)

// littleEndian: the machine's own byte order is the file's, so an event is decoded by
// copying its bytes over the struct whole; elsewhere binary.Decode does it by reflection.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// bytesOf is the memory of e as bytes: its layout is the C struct's (pinned by a test).
func (e *Event) bytesOf() []byte { return unsafe.Slice((*byte)(unsafe.Pointer(e)), EventSize) }

// EventSize is the size in bytes of struct echo_event, and so of an event record.
const EventSize = 112

// Event is one traced API call, written at its return: struct echo_event of bpf/events.h
// field for field, in the same order and with the same explicit padding, so that one
// binary.Decode turns a ring-buffer sample or an event record into it. Which fields a type
// uses is documented beside the C struct; a test pins this layout to the header.
type Event struct {
	Type    EventType // what was called
	PID     uint32    // process (tgid)
	TID     uint32    // thread
	Ret     int32     // return code: cudaError_t, CUresult, the host call's int result, 0
	EnterNS uint64    // CLOCK_MONOTONIC at entry
	ExitNS  uint64    // CLOCK_MONOTONIC at return
	Caller  uint64    // return address of the call: its site
	Addr    uint64
	Src     uint64
	Bytes   uint64
	Stream  uint64
	Kind    uint32
	Pad0    uint32
	Arg     [4]uint64
}

// UnmarshalBinary decodes one little-endian struct echo_event, as the ring buffer and an
// event record hold it.
func (e *Event) UnmarshalBinary(data []byte) error {
	if len(data) != EventSize {
		return fmt.Errorf("decoding event: %d bytes, want %d", len(data), EventSize)
	}
	if littleEndian {
		copy(e.bytesOf(), data)
		return nil
	}
	if _, err := binary.Decode(data, binary.LittleEndian, e); err != nil {
		return fmt.Errorf("decoding event: %w", err)
	}
	return nil
}

// encode writes e into buf, which holds EventSize bytes.
func (e *Event) encode(buf []byte) error {
	if littleEndian && len(buf) >= EventSize {
		copy(buf, e.bytesOf())
		return nil
	}
	if _, err := binary.Encode(buf, binary.LittleEndian, e); err != nil {
		return fmt.Errorf("encoding event: %w", err)
	}
	return nil
}

// Duration is the time spent inside the call, in nanoseconds; 0 when the clock readings are
// out of order.
func (e *Event) Duration() uint64 {
	if e.ExitNS < e.EnterNS {
		return 0
	}
	return e.ExitNS - e.EnterNS
}
