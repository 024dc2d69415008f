package export

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/echo-uma/echo/trace"
)

// perfetto writes the Chrome trace-event JSON, object form:
//
//	{"displayTimeUnit":"ns","traceEvents":[
//	{…one event a line…},
//	…
//	],
//	"metadata":{…the trace, the plan, how the export ended…}}
//
// The object form rather than a bare array because the metadata (lost events, the reader's
// error, the plan's pairs) is known only at the end; both viewers read it, and Perfetto
// shows "metadata" in its trace info page. Every event is built in one reused buffer and
// written as it is read; the state kept is per process and per thread, never per event.
type perfetto struct {
	bw    *bufio.Writer
	buf   []byte
	err   error // the first write failure; nothing more is written after it
	first bool  // no event written yet: the next needs no comma

	header trace.Header
	mods   *trace.Modules
	names  *names // sites and kernels named for people, beside module+offset
	pairs  pairIndex
	opts   Options

	// origin is the time every ts is relative to: the header's start_mono_ns, the
	// CLOCK_MONOTONIC reading when tracing began. A trace without one (made by hand, or by
	// a tracer that could not read the clock) starts at the first event's entry instead:
	// the first event to return, whose entry may follow another thread's, so a few slices
	// can start at a small negative ts, which both viewers show. Taking the earliest entry
	// would mean reading the trace twice or holding it.
	origin    uint64
	hasOrigin bool
	last      int64 // latest end of any event, relative to origin

	procs  map[uint32]*process
	tracks map[uint64]*track
	sum    Summary
}

type process struct {
	last int64 // latest end of an event of the process: where its module records go
}

type track struct {
	proc *process
	last int64 // latest end of an event on the thread: where an event without times goes
}

func writePerfetto(w io.Writer, r *trace.Reader, opts Options) (Summary, error) {
	h := r.Header()
	p := &perfetto{
		bw:     bufio.NewWriterSize(w, 256<<10),
		buf:    make([]byte, 0, 1024),
		first:  true,
		header: h,
		mods:   trace.NewModules(h.Modules),
		names:  newNames(),
		opts:   opts,
		procs:  map[uint32]*process{},
		tracks: map[uint64]*track{},
	}
	if opts.Plan != nil {
		p.pairs = newPairIndex(opts.Plan)
	}
	if h.StartMonoNS != 0 {
		p.origin, p.hasOrigin = h.StartMonoNS, true
	}
	p.bw.WriteString(`{"displayTimeUnit":"ns","traceEvents":[`)
	if h.PID > 0 {
		p.process(uint32(h.PID))
		p.planLabels(uint32(h.PID))
	}

	var readErr error
	for p.err == nil {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			readErr = &ReadError{Err: err}
			break
		}
		if rec.Event != nil {
			p.event(rec.Event)
		} else {
			p.module(*rec.Module)
		}
	}
	p.finish(r, readErr)
	if p.err == nil {
		p.err = p.bw.Flush()
	}
	if p.err != nil {
		return p.sum, fmt.Errorf("writing trace-event JSON: %w", p.err)
	}
	return p.sum, readErr
}

// begin starts an event in the reused buffer, after the comma that separates it from the
// previous one.
func (p *perfetto) begin() []byte {
	b := p.buf[:0]
	if !p.first {
		b = append(b, ',')
	}
	p.first = false
	return append(b, '\n')
}

// end writes the event built in b.
func (p *perfetto) end(b []byte) {
	p.buf = b // keep what it grew to
	if p.err != nil {
		return
	}
	_, p.err = p.bw.Write(b)
}

// process returns the state of a process, naming its track group the first time.
func (p *perfetto) process(pid uint32) *process {
	if pr := p.procs[pid]; pr != nil {
		return pr
	}
	pr := &process{last: p.last}
	p.procs[pid] = pr
	p.sum.Processes++
	b := p.begin()
	b = append(b, `{"ph":"M","name":"process_name","pid":`...)
	b = strconv.AppendUint(b, uint64(pid), 10)
	b = append(b, `,"args":{"name":`...)
	b = appendString(b, p.processName(pid))
	p.end(append(b, "}}"...))
	return pr
}

// processName is the root process's command line; other processes are children the tracer
// followed, whose command lines the trace does not hold.
func (p *perfetto) processName(pid uint32) string {
	cmd := strings.Join(p.header.Command, " ")
	switch {
	case cmd == "":
		return "traced process"
	case int(pid) == p.header.PID || p.header.PID <= 0:
		return cmd
	}
	return "child of " + filepath.Base(p.header.Command[0])
}

// track returns the state of a thread's track, naming it the first time.
func (p *perfetto) track(pid, tid uint32) *track {
	key := uint64(pid)<<32 | uint64(tid)
	if t := p.tracks[key]; t != nil {
		return t
	}
	pr := p.process(pid)
	t := &track{proc: pr, last: pr.last}
	p.tracks[key] = t
	p.sum.Threads++
	b := p.begin()
	b = append(b, `{"ph":"M","name":"thread_name","pid":`...)
	b = strconv.AppendUint(b, uint64(pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendUint(b, uint64(tid), 10)
	b = append(b, `,"args":{"name":"`...)
	if tid == pid {
		b = append(b, "main"...)
	} else {
		b = append(b, "thread "...)
		b = strconv.AppendUint(b, uint64(tid), 10)
	}
	p.end(append(b, `"}}`...))
	return t
}

// planLabels labels the root process with the plan's pairs, where chrome://tracing shows
// them beside the process name.
func (p *perfetto) planLabels(pid uint32) {
	if p.opts.Plan == nil || len(p.opts.Plan.Pairs) == 0 {
		return
	}
	labels := make([]string, len(p.opts.Plan.Pairs))
	for i, pair := range p.opts.Plan.Pairs {
		labels[i] = pair.ID + " " + string(pair.Status)
	}
	b := p.begin()
	b = append(b, `{"ph":"M","name":"process_labels","pid":`...)
	b = strconv.AppendUint(b, uint64(pid), 10)
	b = append(b, `,"args":{"labels":`...)
	b = appendString(b, "plan: "+strings.Join(labels, ", "))
	p.end(append(b, "}}"...))
}

// module writes a module record as an instant on its process, at the latest event of that
// process (module records carry no time; they follow the dlopen that mapped them), and
// enters it in the table that resolves later call sites. A module without a process serves
// every process; it is shown on the root process.
func (p *perfetto) module(m trace.Module) {
	p.mods.Add(m)
	p.names.remapped()
	p.sum.Modules++
	pid := uint32(m.PID)
	if m.PID == 0 && p.header.PID > 0 {
		pid = uint32(p.header.PID)
	}
	pr := p.process(pid)
	p.sum.Instants++
	b := p.begin()
	b = append(b, `{"ph":"i","s":"p","name":`...)
	b = appendString(b, "module "+filepath.Base(m.Path))
	b = append(b, `,"cat":"module","ts":`...)
	b = appendMicros(b, pr.last)
	b = append(b, `,"pid":`...)
	b = strconv.AppendUint(b, uint64(pid), 10)
	b = append(b, `,"args":{"path":`...)
	b = appendString(b, m.Path)
	if m.BuildID != "" {
		b = append(b, `,"build_id":`...)
		b = appendString(b, m.BuildID)
	}
	b = append(b, `,"start":`...)
	b = appendHex(b, m.Start)
	b = append(b, `,"end":`...)
	b = appendHex(b, m.End)
	b = append(b, `,"base":`...)
	b = appendHex(b, m.Base)
	b = append(b, `,"size":`...)
	b = strconv.AppendInt(b, m.Size, 10)
	p.end(append(b, "}}"...))
}

// finish closes the event array, so the document parses whatever stopped the reading, and
// writes the metadata: what was traced, how the export ended, and the plan's pairs.
func (p *perfetto) finish(r *trace.Reader, readErr error) {
	h := p.header
	footer, complete := r.Footer()
	b := append(p.buf[:0], "\n],\n\"metadata\":{\"echo_command\":"...)
	b = appendString(b, strings.Join(h.Command, " "))
	b = append(b, `,"echo_pid":`...)
	b = strconv.AppendInt(b, int64(h.PID), 10)
	b = append(b, `,"echo_host":`...)
	b = appendString(b, h.Host)
	b = append(b, `,"echo_start":`...)
	b = appendString(b, h.Start.Format(time.RFC3339Nano))
	b = append(b, `,"echo_origin_mono_ns":`...)
	b = strconv.AppendUint(b, p.origin, 10)
	b = append(b, `,"echo_attached":`...)
	b = strconv.AppendBool(b, h.Attached)
	b = append(b, `,"echo_tracer":`...)
	b = appendString(b, h.Tracer)
	b = append(b, `,"echo_events":`...)
	b = strconv.AppendUint(b, p.sum.Events, 10)
	b = append(b, `,"echo_complete":`...)
	b = strconv.AppendBool(b, complete && footer.Complete)
	if complete {
		b = append(b, `,"echo_lost_events":`...)
		b = strconv.AppendUint(b, footer.TotalLost(), 10)
	}
	if readErr != nil {
		b = append(b, `,"echo_error":`...)
		b = appendString(b, readErr.Error())
	}
	if plan := p.opts.Plan; plan != nil {
		b = append(b, `,"echo_plan":`...)
		b = appendString(b, p.opts.PlanPath)
		b = append(b, `,"echo_plan_pairs":`...)
		b = strconv.AppendInt(b, int64(len(plan.Pairs)), 10)
		b = append(b, `,"echo_plan_highlighted_copies":`...)
		b = strconv.AppendUint(b, p.sum.Highlighted, 10)
		for _, pair := range plan.Pairs {
			b = append(b, `,"echo_pair_`...)
			b = appendEscaped(b, pair.ID)
			b = append(b, `":`...)
			b = appendString(b, pairSummary(pair))
		}
	}
	p.end(append(b, "}}\n"...))
}
