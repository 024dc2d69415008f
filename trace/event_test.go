package trace

import (
	"bufio"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// cField is one member of struct echo_event as bpf/events.h declares it.
type cField struct {
	name   string
	size   uintptr // of one element
	count  uintptr // array length, 1 for a scalar
	offset uintptr // with C's natural alignment
}

// parseEventsH reads the enum values and the struct layout from bpf/events.h, so that a
// change to the header that the Go side does not follow fails these tests.
func parseEventsH(t *testing.T) (enum map[string]uint32, fields []cField, size uintptr) {
	t.Helper()
	f, err := os.Open("../bpf/events.h")
	if err != nil {
		t.Fatalf("opening the event header: %v", err)
	}
	defer f.Close()
	enumRe := regexp.MustCompile(`^\s*(ECHO_\w+)\s*=\s*(\d+),`)
	fieldRe := regexp.MustCompile(`^\s*__(u32|s32|u64)\s+(\w+)(?:\[(\d+)\])?;`)
	enum = map[string]uint32{}
	inStruct := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "struct echo_event {"):
			inStruct = true
		case inStruct && strings.HasPrefix(line, "};"):
			inStruct = false
		case inStruct:
			m := fieldRe.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			fl := cField{name: m[2], size: 4, count: 1}
			if m[1] == "u64" {
				fl.size = 8
			}
			if m[3] != "" {
				n, _ := strconv.Atoi(m[3])
				fl.count = uintptr(n)
			}
			size = (size + fl.size - 1) / fl.size * fl.size
			fl.offset = size
			size += fl.size * fl.count
			fields = append(fields, fl)
		default:
			if m := enumRe.FindStringSubmatch(line); m != nil {
				v, _ := strconv.Atoi(m[2])
				enum[m[1]] = uint32(v)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading the event header: %v", err)
	}
	if len(enum) == 0 || len(fields) == 0 {
		t.Fatalf("found %d enum values and %d struct fields in bpf/events.h: has its format changed?", len(enum), len(fields))
	}
	return enum, fields, size
}

func TestEventLayoutMatchesC(t *testing.T) {
	_, cFields, cSize := parseEventsH(t)
	if cSize != EventSize || unsafe.Sizeof(Event{}) != EventSize {
		t.Fatalf("size: C %d, Go %d, EventSize %d", cSize, unsafe.Sizeof(Event{}), EventSize)
	}
	var e Event
	goOffsets := []uintptr{
		unsafe.Offsetof(e.Type), unsafe.Offsetof(e.PID), unsafe.Offsetof(e.TID), unsafe.Offsetof(e.Ret),
		unsafe.Offsetof(e.EnterNS), unsafe.Offsetof(e.ExitNS), unsafe.Offsetof(e.Caller),
		unsafe.Offsetof(e.Addr), unsafe.Offsetof(e.Src), unsafe.Offsetof(e.Bytes),
		unsafe.Offsetof(e.Stream), unsafe.Offsetof(e.Kind), unsafe.Offsetof(e.Pad0), unsafe.Offsetof(e.Arg),
	}
	typ := reflect.TypeFor[Event]()
	if len(cFields) != typ.NumField() || len(goOffsets) != typ.NumField() {
		t.Fatalf("C has %d fields, Go %d, this test checks %d", len(cFields), typ.NumField(), len(goOffsets))
	}
	for i, c := range cFields {
		g := typ.Field(i)
		cName := strings.ReplaceAll(strings.TrimPrefix(c.name, "_"), "_", "")
		if !strings.EqualFold(cName, g.Name) {
			t.Errorf("field %d: C %s, Go %s", i, c.name, g.Name)
		}
		if c.offset != goOffsets[i] || c.offset != g.Offset {
			t.Errorf("%s: C offset %d, Go %d", g.Name, c.offset, goOffsets[i])
		}
		if c.size*c.count != g.Type.Size() {
			t.Errorf("%s: C size %d, Go %d", g.Name, c.size*c.count, g.Type.Size())
		}
	}
}

func TestEventTypesMatchC(t *testing.T) {
	enum, _, _ := parseEventsH(t)
	values := map[uint32]string{}
	for name, v := range enum {
		values[v] = name
		if et := EventType(v); !et.Known() {
			t.Errorf("%s = %d has no Go EventType", name, v)
		}
		if v >= maxEventTag {
			t.Errorf("%s = %d: event types must stay below %#x, the record tags' range", name, v, maxEventTag)
		}
	}
	for v := range uint32(len(eventNames)) {
		if EventType(v).Known() && values[v] == "" {
			t.Errorf("EventType %d (%s) is not in bpf/events.h", v, EventType(v))
		}
	}
}

func TestEventTypeString(t *testing.T) {
	tests := []struct {
		t    EventType
		want string
	}{
		{EventMalloc, "malloc"},
		{EventNewArray, "operator new[]"},
		{EventDeleteArray, "operator delete[]"},
		{EventCUDAMemcpy, "cudaMemcpy"},
		{EventCUDAMemcpy2DAsync, "cudaMemcpy2DAsync"},
		{EventCUDAStreamWaitEvent, "cudaStreamWaitEvent"},
		{EventCUMemAlloc, "cuMemAlloc_v2"},
		{EventCUMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2"},
		{EventCUCtxSynchronize, "cuCtxSynchronize"},
		{EventDlopen, "dlopen"},
		{0, "event(0)"},
		{9, "event(9)"},
		{97, "event(97)"},
		{0xFFFFFFFF, "event(4294967295)"},
	}
	for _, tt := range tests {
		if got := tt.t.String(); got != tt.want {
			t.Errorf("EventType(%d).String() = %q, want %q", uint32(tt.t), got, tt.want)
		}
	}
}

func TestEventTypePredicates(t *testing.T) {
	// the types each predicate holds for; every other known type must be false
	tests := []struct {
		name string
		pred func(EventType) bool
		want []EventType
	}{
		{"IsCopy", EventType.IsCopy, []EventType{EventCUDAMemcpy, EventCUDAMemcpyAsync,
			EventCUDAMemcpy2D, EventCUDAMemcpy2DAsync, EventCUMemcpyHtoD, EventCUMemcpyDtoH,
			EventCUMemcpyDtoD, EventCUMemcpyHtoDAsync, EventCUMemcpyDtoHAsync, EventCUMemcpyDtoDAsync}},
		{"IsHostAlloc", EventType.IsHostAlloc, []EventType{EventMalloc, EventCalloc, EventRealloc,
			EventPosixMemalign, EventAlignedAlloc, EventNewArray}},
		{"IsDeviceAlloc", EventType.IsDeviceAlloc, []EventType{EventCUDAMalloc, EventCUDAMallocHost,
			EventCUDAHostAlloc, EventCUDAMallocManaged, EventCUDAHostRegister, EventCUMemAlloc,
			EventCUMemAllocHost, EventCUMemHostAlloc, EventCUMemAllocManaged}},
		{"IsDeviceMemory", EventType.IsDeviceMemory, []EventType{EventCUDAMalloc,
			EventCUDAMallocManaged, EventCUMemAlloc, EventCUMemAllocManaged}},
		{"IsFree", EventType.IsFree, []EventType{EventFree, EventDeleteArray, EventCUDAFree,
			EventCUDAFreeHost, EventCUDAHostUnregister, EventCUMemFree, EventCUMemFreeHost}},
	}
	for _, tt := range tests {
		for v := range EventType(maxEventTag) {
			if !v.Known() {
				continue
			}
			want := false
			for _, w := range tt.want {
				want = want || w == v
			}
			if got := tt.pred(v); got != want {
				t.Errorf("%s(%s) = %v, want %v", tt.name, v, got, want)
			}
		}
	}
}

func TestDirection(t *testing.T) {
	for kind, want := range []string{"h2h", "h2d", "d2h", "d2d", "default", "kind(5)"} {
		if got := Direction(uint32(kind)); got != want {
			t.Errorf("Direction(%d) = %q, want %q", kind, got, want)
		}
	}
}

func TestEventUnmarshalBinary(t *testing.T) {
	want := Event{Type: EventCUDAMemcpy, PID: 1, TID: 2, Ret: -3, EnterNS: 4, ExitNS: 5,
		Caller: 6, Addr: 7, Src: 8, Bytes: 9, Stream: 10, Kind: 11, Pad0: 12, Arg: [4]uint64{13, 14, 15, 16}}
	var buf [EventSize]byte
	if err := want.encode(buf[:]); err != nil {
		t.Fatal(err)
	}
	// little-endian, in C field order: spot-check the first bytes of a few fields
	for off, b := range map[int]byte{0: 32, 4: 1, 12: 0xFD, 16: 4, 72: 11, 80: 13, 104: 16} {
		if buf[off] != b {
			t.Errorf("byte %d = %d, want %d", off, buf[off], b)
		}
	}
	var got Event
	if err := got.UnmarshalBinary(buf[:]); err != nil || got != want {
		t.Errorf("UnmarshalBinary: %+v, %v; want %+v", got, err, want)
	}
	if err := got.UnmarshalBinary(buf[:EventSize-1]); err == nil {
		t.Error("UnmarshalBinary of 111 bytes: no error")
	}
}
