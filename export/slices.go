package export

import (
	"path/filepath"
	"strconv"

	"github.com/echo-uma/echo/internal/units"
	"github.com/echo-uma/echo/trace"
)

// event writes one event as a complete slice ("ph":"X") on its thread's track, named by its
// API, and for an allocation or a free an instant at its return as well.
func (p *perfetto) event(e *trace.Event) {
	tr := p.track(e.PID, e.TID)
	start, dur, timed := p.times(e, tr)
	end := start + dur
	tr.last = max(tr.last, end)
	tr.proc.last = max(tr.proc.last, end)
	p.last = max(p.last, end)
	p.sum.Events++

	site, resolved := p.mods.Resolve(int(e.PID), e.Caller)
	if !resolved {
		site = trace.Site{Offset: e.Caller} // as the planner names an unresolved site
	}
	var mark *pairMark
	if e.Type.IsCopy() {
		if mark = p.pairs.lookup(site, e.Type, e.Bytes); mark != nil {
			p.sum.Highlighted++
		}
	}

	b := p.begin()
	b = append(b, `{"ph":"X","name":"`...)
	b = append(b, e.Type.String()...) // API names need no escaping
	switch {
	case e.Type.IsCopy():
		b = append(b, ' ')
		b = append(b, trace.Direction(e.Kind)...)
		b = append(b, ' ')
		b = units.AppendBytes(b, e.Bytes)
		if mark != nil {
			b = appendEscaped(b, mark.label)
		}
	case isLaunch(e.Type):
		b = append(b, " 0x"...)
		b = strconv.AppendUint(b, e.Addr, 16)
	}
	b = append(b, `","cat":"`...)
	b = append(b, category(e.Type)...)
	b = append(b, `","ts":`...)
	b = appendMicros(b, start)
	b = append(b, `,"dur":`...)
	b = appendMicros(b, dur)
	b = appendThread(b, e)
	if mark != nil {
		b = append(b, `,"cname":"`...)
		b = append(b, mark.cname...)
		b = append(b, '"')
	}
	b = append(b, `,"args":{"site":`...)
	b = appendSite(b, site)
	if name := p.names.call(e.PID, e.Caller, site); name != "" {
		b = append(b, `,"site_symbol":`...)
		b = appendString(b, name)
	}
	if e.Ret != 0 {
		b = append(b, `,"ret":`...)
		b = strconv.AppendInt(b, int64(e.Ret), 10)
	}
	b = p.appendArgs(b, e)
	if mark != nil {
		b = append(b, `,"pair":`...)
		b = appendString(b, mark.ids)
		b = append(b, `,"pair_status":`...)
		b = appendString(b, mark.status)
	}
	if !timed {
		b = append(b, `,"timestamps":"invalid: shown at the return, or after the previous call","enter_ns":`...)
		b = strconv.AppendUint(b, e.EnterNS, 10)
		b = append(b, `,"exit_ns":`...)
		b = strconv.AppendUint(b, e.ExitNS, 10)
	}
	p.end(append(b, "}}"...))

	switch {
	case (e.Type.IsHostAlloc() || e.Type.IsDeviceAlloc()) && e.Addr != 0:
		p.instant(e, end, true)
	case e.Type.IsFree() && e.Addr != 0:
		p.instant(e, end, false)
	}
}

// times places an event on the timeline relative to the origin: entry and duration, or, for
// an event whose clock readings are missing or out of order, zero duration at its return,
// or at the end of the thread's previous call when it has no return time either. timed is
// false for those.
func (p *perfetto) times(e *trace.Event, tr *track) (start, dur int64, timed bool) {
	valid := e.EnterNS != 0 && e.ExitNS >= e.EnterNS
	if !p.hasOrigin {
		switch {
		case valid:
			p.origin, p.hasOrigin = e.EnterNS, true
		case e.ExitNS != 0:
			p.origin, p.hasOrigin = e.ExitNS, true
		}
	}
	switch {
	case valid:
		return int64(e.EnterNS - p.origin), int64(e.ExitNS - e.EnterNS), true
	case e.ExitNS != 0:
		return int64(e.ExitNS - p.origin), 0, false
	}
	return tr.last, 0, false
}

// instant writes an allocation ("alloc 4.0 MiB") or a free ("free 0x7f00…") as a
// thread-scoped instant at the call's return, so that memory shows up as marks on the
// thread without opening each slice.
func (p *perfetto) instant(e *trace.Event, at int64, alloc bool) {
	p.sum.Instants++
	b := p.begin()
	b = append(b, `{"ph":"i","s":"t","name":"`...)
	switch {
	case e.Type == trace.EventCUDAHostRegister:
		b = append(b, "register "...)
	case e.Type == trace.EventCUDAHostUnregister:
		b = append(b, "unregister 0x"...)
	case alloc:
		b = append(b, "alloc "...)
	default:
		b = append(b, "free 0x"...)
	}
	if alloc {
		b = units.AppendBytes(b, e.Bytes)
		b = append(b, `","cat":"alloc","ts":`...)
	} else {
		b = strconv.AppendUint(b, e.Addr, 16)
		b = append(b, `","cat":"free","ts":`...)
	}
	b = appendMicros(b, at)
	b = appendThread(b, e)
	b = append(b, `,"args":{"ptr":`...)
	b = appendHex(b, e.Addr)
	if alloc {
		b = append(b, `,"size":`...)
		b = strconv.AppendUint(b, e.Bytes, 10)
		if e.Type == trace.EventRealloc {
			b = append(b, `,"old":`...)
			b = appendHex(b, e.Src)
		}
	}
	b = append(b, `,"api":"`...)
	b = append(b, e.Type.String()...)
	p.end(append(b, `"}}`...))
}

// appendArgs appends the arguments of a call, by what kind of call it is (FORMAT.md, the
// per-type fields).
func (p *perfetto) appendArgs(b []byte, e *trace.Event) []byte {
	switch t := e.Type; {
	case t.IsCopy():
		b = append(b, `,"dst":`...)
		b = appendHex(b, e.Addr)
		b = append(b, `,"src":`...)
		b = appendHex(b, e.Src)
		b = append(b, `,"bytes":`...)
		b = strconv.AppendUint(b, e.Bytes, 10)
		b = append(b, `,"kind":"`...)
		b = append(b, trace.Direction(e.Kind)...)
		b = append(b, `","stream":`...)
		b = appendHex(b, e.Stream)
		if t == trace.EventCUDAMemcpy2D || t == trace.EventCUDAMemcpy2DAsync {
			for i, k := range [4]string{`,"dpitch":`, `,"spitch":`, `,"width":`, `,"height":`} {
				b = append(b, k...)
				b = strconv.AppendUint(b, e.Arg[i], 10)
			}
		}
	case t == trace.EventCUDAMemset || t == trace.EventCUDAMemsetAsync:
		b = append(b, `,"dst":`...)
		b = appendHex(b, e.Addr)
		b = append(b, `,"bytes":`...)
		b = strconv.AppendUint(b, e.Bytes, 10)
		b = append(b, `,"value":`...)
		b = strconv.AppendUint(b, uint64(e.Kind), 10)
		b = append(b, `,"stream":`...)
		b = appendHex(b, e.Stream)
	case t.IsHostAlloc() || t.IsDeviceAlloc():
		b = append(b, `,"ptr":`...)
		b = appendHex(b, e.Addr)
		b = append(b, `,"size":`...)
		b = strconv.AppendUint(b, e.Bytes, 10)
		if e.Kind != 0 {
			b = append(b, `,"flags":`...)
			b = strconv.AppendUint(b, uint64(e.Kind), 10)
		}
		if t == trace.EventRealloc {
			b = append(b, `,"old":`...)
			b = appendHex(b, e.Src)
		}
	case t.IsFree():
		b = append(b, `,"ptr":`...)
		b = appendHex(b, e.Addr)
	case isLaunch(t):
		b = append(b, `,"function":`...)
		b = appendHex(b, e.Addr)
		if site, ok := p.mods.Resolve(int(e.PID), e.Addr); ok {
			b = append(b, `,"function_site":`...)
			b = appendSite(b, site)
			if name := p.names.function(e.PID, e.Addr, site); name != "" {
				b = append(b, `,"function_symbol":`...)
				b = appendString(b, name)
			}
		}
		b = append(b, `,"stream":`...)
		b = appendHex(b, e.Stream)
		b = append(b, `,"grid":"`...)
		b = appendDim3(b, e.Arg[0], e.Arg[1])
		b = append(b, `","block":"`...)
		b = appendDim3(b, e.Arg[2], e.Arg[3])
		b = append(b, '"')
	case t == trace.EventCUDAStreamCreate, t == trace.EventCUDAStreamDestroy,
		t == trace.EventCUDAStreamSynchronize, t == trace.EventCUStreamSynchronize:
		b = append(b, `,"stream":`...)
		b = appendHex(b, e.Addr)
	case t == trace.EventCUDAEventRecord, t == trace.EventCUDAStreamWaitEvent:
		b = append(b, `,"event":`...)
		b = appendHex(b, e.Addr)
		b = append(b, `,"stream":`...)
		b = appendHex(b, e.Stream)
	case t == trace.EventCUDAEventSynchronize:
		b = append(b, `,"event":`...)
		b = appendHex(b, e.Addr)
	}
	return b
}

// appendThread appends an event's pid and tid.
func appendThread(b []byte, e *trace.Event) []byte {
	b = append(b, `,"pid":`...)
	b = strconv.AppendUint(b, uint64(e.PID), 10)
	b = append(b, `,"tid":`...)
	return strconv.AppendUint(b, uint64(e.TID), 10)
}

// appendSite appends a call site as a user reads it, "stream+0x1746", or the raw address
// when no module maps it (trace.Site.String, without its allocations).
func appendSite(b []byte, s trace.Site) []byte {
	b = append(b, '"')
	if s.Module != "" {
		b = appendEscaped(b, filepath.Base(s.Module))
		b = append(b, '+')
	}
	b = append(b, '0', 'x')
	b = strconv.AppendUint(b, s.Offset, 16)
	return append(b, '"')
}

// appendDim3 appends a launch dimension packed as the tracer records it (x | y<<32, z) as
// "XxYxZ".
func appendDim3(b []byte, xy, z uint64) []byte {
	b = strconv.AppendUint(b, xy&0xffffffff, 10)
	b = append(b, 'x')
	b = strconv.AppendUint(b, xy>>32, 10)
	b = append(b, 'x')
	return strconv.AppendUint(b, z, 10)
}

func isLaunch(t trace.EventType) bool {
	return t == trace.EventCUDALaunchKernel || t == trace.EventCULaunchKernel
}

// category is the slice's "cat": what kind of call it is, for the viewers' filters.
func category(t trace.EventType) string {
	switch {
	case t.IsCopy():
		return "copy"
	case t == trace.EventCUDAMemset || t == trace.EventCUDAMemsetAsync:
		return "memset"
	case t.IsHostAlloc() || t.IsDeviceAlloc():
		return "alloc"
	case t.IsFree():
		return "free"
	case isLaunch(t):
		return "launch"
	}
	switch t {
	case trace.EventCUDAStreamCreate, trace.EventCUDAStreamDestroy:
		return "stream"
	case trace.EventCUDAStreamSynchronize, trace.EventCUDADeviceSynchronize, trace.EventCUDAEventSynchronize,
		trace.EventCUStreamSynchronize, trace.EventCUCtxSynchronize:
		return "sync"
	case trace.EventCUDAEventRecord, trace.EventCUDAStreamWaitEvent:
		return "event"
	case trace.EventDlopen:
		return "loader"
	}
	return "other"
}
