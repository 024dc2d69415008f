package tracer

import (
	"reflect"
	"testing"

	"github.com/echo-uma/echo/trace"
)

// The ring buffer carries struct echo_event as bpf2go generated it from bpf/events.h; the
// trace file stores trace.Event. Same fields, same offsets, or decoding silently shifts.
func TestEventLayoutMatchesBPF(t *testing.T) {
	bpf, file := reflect.TypeOf(echoEchoEvent{}), reflect.TypeOf(trace.Event{})
	if bpf.Size() != file.Size() || file.Size() != trace.EventSize {
		t.Fatalf("sizes: BPF %d, trace.Event %d, trace.EventSize %d", bpf.Size(), file.Size(), trace.EventSize)
	}
	var fields []reflect.StructField
	for i := 0; i < bpf.NumField(); i++ {
		if f := bpf.Field(i); f.Name != "_" {
			fields = append(fields, f)
		}
	}
	if len(fields) != file.NumField() {
		t.Fatalf("BPF event has %d fields, trace.Event %d", len(fields), file.NumField())
	}
	for i, b := range fields {
		f := file.Field(i)
		if b.Offset != f.Offset || b.Type.Size() != f.Type.Size() {
			t.Errorf("field %d: BPF %s at %d (%d bytes), trace.Event %s at %d (%d bytes)",
				i, b.Name, b.Offset, b.Type.Size(), f.Name, f.Offset, f.Type.Size())
		}
	}
}
