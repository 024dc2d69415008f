package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"testing"
)

func summarize(t *testing.T, records ...any) (*Stats, error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(build(t, testHeader(), records...).data))
	if err != nil {
		t.Fatal(err)
	}
	return Summarize(r)
}

func alloc(typ EventType, pid uint32, addr, size uint64) *Event {
	return &Event{Type: typ, PID: pid, TID: pid, Addr: addr, Bytes: size, EnterNS: 1, ExitNS: 2}
}

func TestSummarizeDirections(t *testing.T) {
	const (
		dev     = 0x7000_0000
		managed = 0x7100_0000
		drv     = 0x7200_0000
		pinned  = 0x7300_0000
		host    = 0x1000_0000
	)
	allocs := []any{
		alloc(EventCUDAMalloc, 4242, dev, 1<<20),
		alloc(EventCUDAMallocManaged, 4242, managed, 1<<20),
		alloc(EventCUMemAlloc, 4242, drv, 1<<20),
		alloc(EventCUDAMallocHost, 4242, pinned, 1<<20),
	}
	failed := alloc(EventCUDAMalloc, 4242, host, 1<<20)
	failed.Ret = 2 // cudaErrorMemoryAllocation: nothing was allocated

	tests := []struct {
		name   string
		events []any
		want   PerDirection // bytes
	}{
		{"explicit kinds", []any{
			copyEvent(EventCUDAMemcpy, KindHostToDevice, dev, host, 1, 0, 1),
			copyEvent(EventCUDAMemcpyAsync, KindDeviceToHost, host, dev, 2, 0, 1),
			copyEvent(EventCUDAMemcpy2D, KindDeviceToDevice, dev, dev, 4, 0, 1),
			copyEvent(EventCUDAMemcpy2DAsync, KindHostToHost, host, host, 8, 0, 1),
		}, PerDirection{H2D: 1, D2H: 2, D2D: 4, H2H: 8}},
		{"driver copies by name", []any{
			copyEvent(EventCUMemcpyHtoD, 0, dev, host, 1, 0, 1),
			copyEvent(EventCUMemcpyHtoDAsync, 0, dev, host, 16, 0, 1),
			copyEvent(EventCUMemcpyDtoH, 0, host, dev, 2, 0, 1),
			copyEvent(EventCUMemcpyDtoHAsync, 0, host, dev, 32, 0, 1),
			copyEvent(EventCUMemcpyDtoD, 0, dev, dev, 4, 0, 1),
			copyEvent(EventCUMemcpyDtoDAsync, 0, dev, dev, 64, 0, 1),
		}, PerDirection{H2D: 17, D2H: 34, D2D: 68}},
		{"default resolved through allocations", append(allocs,
			copyEvent(EventCUDAMemcpy, KindDefault, dev+100, host, 1, 0, 1),           // into cudaMalloc: h2d
			copyEvent(EventCUDAMemcpy, KindDefault, host, managed+(1<<20)-1, 2, 0, 1), // from managed: d2h
			copyEvent(EventCUDAMemcpy, KindDefault, drv, dev, 4, 0, 1),                // driver alloc to cudaMalloc: d2d
			copyEvent(EventCUDAMemcpy, KindDefault, pinned, host, 8, 0, 1),            // pinned is host: h2h
			copyEvent(EventCUDAMemcpy, KindDefault, dev+(1<<20), host, 16, 0, 1),      // one past the end: h2h
		), PerDirection{H2D: 1, D2H: 2, D2D: 4, H2H: 24}},
		{"default after free", []any{
			alloc(EventCUDAMalloc, 4242, dev, 1<<20),
			alloc(EventCUDAFree, 4242, dev, 0),
			copyEvent(EventCUDAMemcpy, KindDefault, dev, host, 1, 0, 1),
			alloc(EventCUMemAlloc, 4242, drv, 1<<20),
			alloc(EventCUMemFree, 4242, drv, 0),
			copyEvent(EventCUDAMemcpy, KindDefault, host, drv, 2, 0, 1),
		}, PerDirection{H2H: 3}},
		{"default: another process's device memory", []any{
			alloc(EventCUDAMalloc, 7, dev, 1<<20),
			copyEvent(EventCUDAMemcpy, KindDefault, dev, host, 1, 0, 1),
		}, PerDirection{H2H: 1}},
		{"default: failed allocation", []any{
			failed,
			copyEvent(EventCUDAMemcpy, KindDefault, host, host+8, 1, 0, 1),
		}, PerDirection{H2H: 1}},
		{"reallocation over a lost free", []any{
			alloc(EventCUDAMalloc, 4242, dev, 1<<20),
			alloc(EventCUDAMalloc, 4242, dev+4096, 4096), // the first free was lost
			copyEvent(EventCUDAMemcpy, KindDefault, dev+4096, host, 1, 0, 1),
			copyEvent(EventCUDAMemcpy, KindDefault, dev, host, 2, 0, 1),
		}, PerDirection{H2D: 1, H2H: 2}},
		{"failed copy moves nothing", []any{
			&Event{Type: EventCUDAMemcpy, Ret: 1, Kind: KindHostToDevice, Bytes: 99},
		}, PerDirection{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := summarize(t, append(tt.events, Footer{Complete: true})...)
			if err != nil {
				t.Fatal(err)
			}
			if st.Bytes != tt.want {
				t.Errorf("bytes %+v, want %+v", st.Bytes, tt.want)
			}
		})
	}
}

func TestSummarizeTimes(t *testing.T) {
	pc := func(e *Event, tid uint32, caller uint64) *Event { e.TID, e.Caller = tid, caller; return e }
	exe, lib := testExe.Start, testLib.Start
	st, err := summarize(t,
		&Event{Type: EventCUDAMalloc, PID: 4242, TID: 1, EnterNS: 1000, ExitNS: 1100},
		pc(copyEvent(EventCUDAMemcpy, KindHostToDevice, 0, 0, 100, 1100, 1300), 1, exe+0x10), // 200
		pc(copyEvent(EventCUDAMemcpy, KindHostToDevice, 0, 0, 100, 1200, 1400), 2, exe+0x10), // 200, overlaps by 100
		pc(copyEvent(EventCUDAMemcpy, KindHostToDevice, 0, 0, 100, 1500, 1600), 1, exe+0x10), // 100
		testLate,
		pc(copyEvent(EventCUDAMemcpyAsync, KindDeviceToHost, 0, 0, 7, 1600, 1650), 3, testLate.Start+0x20), // 50, touches the last
		pc(copyEvent(EventCUMemcpyDtoH, 0, 0, 0, 1, 1700, 1701), 3, lib+0x30),                              // 1
		pc(copyEvent(EventCUDAMemcpy, KindDeviceToHost, 0, 0, 3, 1800, 1801), 3, 0x1234),                   // 1, no module
		&Event{Type: EventCUDADeviceSynchronize, PID: 99, TID: 99, EnterNS: 1801, ExitNS: 2000},
		Footer{Lost: []uint64{0, 5, 0, 2}, Complete: true})
	if err != nil {
		t.Fatal(err)
	}
	want := Stats{
		Events:     8,
		Calls:      map[string]uint64{"cudaMalloc": 1, "cudaMemcpy": 4, "cudaMemcpyAsync": 1, "cuMemcpyDtoH_v2": 1, "cudaDeviceSynchronize": 1},
		Failed:     map[string]Failed{},
		Copies:     PerDirection{H2D: 3, D2H: 3},
		Bytes:      PerDirection{H2D: 300, D2H: 11},
		CopyNS:     PerDirection{H2D: 500, D2H: 52},
		Lost:       7,
		LostPerCPU: []uint64{0, 5, 0, 2},
		Threads:    4,
		Processes:  2,
		WallNS:     1000,
		CopyShare:  (300 + 150 + 2) / 1000.0, // union: 1100-1400, 1500-1650, 1700-1701, 1800-1801
		TopSites: []SiteStats{
			{Site: "stream+0x10", Module: testExe.Path, BuildID: testExe.BuildID, Offset: 0x10, API: "cudaMemcpy", Direction: "h2d", Count: 3, Bytes: 300, NS: 500},
			{Site: "plugin.so+0x20", Module: testLate.Path, Offset: 0x20, API: "cudaMemcpyAsync", Direction: "d2h", Count: 1, Bytes: 7, NS: 50, ModuleSize: testLate.Size},
			{Site: "0x1234", Offset: 0x1234, API: "cudaMemcpy", Direction: "d2h", Count: 1, Bytes: 3, NS: 1},
			{Site: "libcudart.so.12+0x30", Module: testLib.Path, BuildID: testLib.BuildID, Offset: 0x30, API: "cuMemcpyDtoH_v2", Direction: "d2h", Count: 1, Bytes: 1, NS: 1},
		},
		Complete: true,
	}
	if !reflect.DeepEqual(*st, want) {
		gotJ, _ := json.MarshalIndent(st, "", " ")
		wantJ, _ := json.MarshalIndent(want, "", " ")
		t.Errorf("stats:\n%s\nwant\n%s", gotJ, wantJ)
	}
}

func TestSummarizeIncomplete(t *testing.T) {
	tests := []struct {
		name     string
		records  []any
		corrupt  bool
		complete bool
		events   uint64
	}{
		{"clean", []any{&Event{Type: EventMalloc}, Footer{Complete: true}}, false, true, 1},
		{"tracer stopped on an error", []any{&Event{Type: EventMalloc}, Footer{}}, false, false, 1},
		{"cut short", []any{&Event{Type: EventMalloc}, &Event{Type: EventFree}}, true, false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := summarize(t, tt.records...)
			var ce *CorruptError
			if tt.corrupt != errors.As(err, &ce) || (!tt.corrupt && err != nil) {
				t.Errorf("error %v, want corrupt %v", err, tt.corrupt)
			}
			if st == nil || st.Complete != tt.complete || st.Events != tt.events || st.Calls["malloc"] != 1 {
				t.Errorf("stats %+v, want complete %v with %d events", st, tt.complete, tt.events)
			}
		})
	}
}

func TestStatsJSON(t *testing.T) {
	st, err := summarize(t, copyEvent(EventCUDAMemcpy, KindHostToDevice, 1, 2, 3, 4, 5), Footer{Lost: []uint64{1}})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"calls", "bytes", "copy_ns", "lost", "lost_per_cpu", "threads",
		"processes", "wall_ns", "copy_share", "top_sites", "complete"} {
		if _, ok := got[key]; !ok {
			t.Errorf("JSON lacks %q: %s", key, data)
		}
	}
	if b := got["bytes"].(map[string]any); len(b) != 4 || b["h2d"] != 3.0 {
		t.Errorf("bytes = %v", b)
	}
	if c := got["calls"].(map[string]any); c["cudaMemcpy"] != 1.0 {
		t.Errorf("calls = %v", c)
	}
}

func TestBusyTime(t *testing.T) {
	tests := []struct {
		name  string
		spans [][2]uint64
		want  uint64
	}{
		{"none", nil, 0},
		{"disjoint", [][2]uint64{{0, 10}, {20, 30}}, 20},
		{"overlapping", [][2]uint64{{0, 10}, {5, 15}}, 15},
		{"out of order", [][2]uint64{{20, 30}, {0, 10}, {5, 25}}, 30},
		{"nested", [][2]uint64{{0, 100}, {10, 20}, {30, 40}}, 100},
		{"touching", [][2]uint64{{0, 10}, {10, 20}}, 20},
		{"spanning several", [][2]uint64{{0, 1}, {2, 3}, {4, 5}, {0, 10}}, 10},
		{"empty and reversed", [][2]uint64{{5, 5}, {9, 3}}, 0},
	}
	for _, tt := range tests {
		var b busyTime
		for _, s := range tt.spans {
			b.add(s[0], s[1])
		}
		if got := b.sum(); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestBusyTimeFolds(t *testing.T) {
	var b busyTime
	const n = 3 * maxBusySpans
	for i := range uint64(n) {
		b.add(10*i, 10*i+4)
		b.add(10*i+2, 10*i+6) // a second thread overlapping
	}
	if len(b.spans) >= maxBusySpans {
		t.Errorf("%d spans kept, want fewer than %d", len(b.spans), maxBusySpans)
	}
	if got := b.sum(); got != 6*n {
		t.Errorf("sum %d, want %d", got, 6*n)
	}
}

// Each interval counts only its own records, but a cudaMemcpyDefault in a later interval
// still finds the device allocation made in an earlier one.
func TestSummarizerIntervals(t *testing.T) {
	const dev, host = 0x7000_0000, 0x1000_0000
	z := NewSummarizer(testHeader(), nil)
	z.Add(Record{Event: alloc(EventCUDAMalloc, 4242, dev, 1<<20)})
	z.Add(Record{Event: copyEvent(EventCUDAMemcpy, KindHostToDevice, dev, host, 1, 0, 1)})
	first := z.Interval()
	z.Add(Record{Event: copyEvent(EventCUDAMemcpy, KindDefault, host, dev, 2, 0, 1)})
	z.Add(Record{Event: copyEvent(EventCUDAMemcpy, KindDefault, dev, host, 4, 0, 1)})
	second := z.Interval()
	third := z.Interval()
	if first.Events != 2 || first.Bytes != (PerDirection{H2D: 1}) {
		t.Errorf("first interval: %d events, bytes %+v; want 2 events, 1 byte h2d", first.Events, first.Bytes)
	}
	if second.Events != 2 || second.Bytes != (PerDirection{H2D: 4, D2H: 2}) {
		t.Errorf("second interval: %d events, bytes %+v; want the default copies resolved through the earlier "+
			"allocation", second.Events, second.Bytes)
	}
	if third.Events != 0 || third.Bytes != (PerDirection{}) || len(third.TopSites) != 0 {
		t.Errorf("an interval without records: %+v", third)
	}
}

// Failed CUDA calls are counted per API and error: a trace whose copies fail says so.
func TestSummarizeFailedCalls(t *testing.T) {
	failed := func(e *Event, ret int32) *Event { e.Ret = ret; return e }
	var events []any
	for i := range 80 {
		e := copyEvent(EventCUDAMemcpy, KindHostToDevice, 0, 0, 2<<20, uint64(1000+10*i), uint64(1005+10*i))
		if i > 0 {
			e = failed(e, 1)
		}
		events = append(events, e)
	}
	events = append(events, failed(copyEvent(EventCUMemcpyHtoD, 0, 0, 0, 8, 2000, 2001), 1),
		failed(&Event{Type: EventMalloc, PID: 4242, TID: 1, EnterNS: 2100, ExitNS: 2101}, 1)) // not a CUDA call
	st, err := summarize(t, append(events, Footer{Complete: true})...)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Failed{
		"cudaMemcpy":      {Calls: 79, Errors: map[string]uint64{"cudaErrorInvalidValue": 79}},
		"cuMemcpyHtoD_v2": {Calls: 1, Errors: map[string]uint64{"CUDA_ERROR_INVALID_VALUE": 1}},
	}
	if !reflect.DeepEqual(st.Failed, want) || st.Copies.H2D != 1 {
		t.Errorf("failed %+v, %d h2d copies; want %+v and the one copy that worked", st.Failed, st.Copies.H2D, want)
	}
}

// A lost-event count that does not fit in 64 bits (a damaged footer, or a counter near its
// end) stops at the largest count instead of wrapping to a few events.
func TestSumLostDoesNotWrap(t *testing.T) {
	tests := []struct {
		perCPU []uint64
		want   uint64
	}{
		{nil, 0},
		{[]uint64{0, 5, 0, 2}, 7},
		{[]uint64{math.MaxUint64 - 5, 5}, math.MaxUint64},
		{[]uint64{math.MaxUint64, 5}, math.MaxUint64},
		{[]uint64{5, math.MaxUint64, 1}, math.MaxUint64},
		{[]uint64{math.MaxUint64 / 2, math.MaxUint64/2 + 2}, math.MaxUint64},
	}
	for _, tt := range tests {
		if got := (Footer{Lost: tt.perCPU}).TotalLost(); got != tt.want {
			t.Errorf("TotalLost of %v = %d, want %d", tt.perCPU, got, tt.want)
		}
	}
}
