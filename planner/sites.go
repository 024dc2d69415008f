package planner

import (
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/trace"
)

type ordinalKey struct {
	pid    uint32
	module string
	offset uint64
	call   trace.EventType
	bytes  uint64
}

// sites resolves call sites and numbers the calls made at each, noting the sites that more
// than one thread allocates from: there the numbering depends on how the threads interleave.
type sites struct {
	modules  *trace.Modules
	ordinals map[ordinalKey]int
	threads  map[ordinalKey]uint32 // the thread that allocated there, or 0 once several have
}

func newSites(h trace.Header) *sites {
	return &sites{modules: trace.NewModules(h.Modules), ordinals: map[ordinalKey]int{}, threads: map[ordinalKey]uint32{}}
}

// shared reports whether several threads allocated at the (numbered) site s of process pid.
func (s *sites) shared(pid uint32, site plan.Site, call trace.EventType) bool {
	tid, ok := s.threads[ordinalKey{pid, site.Module, site.Offset, call, site.Bytes}]
	return ok && tid == 0
}

// of is the site of an event. Allocation sites are numbered (ordinal); a copy site is the
// same site every time round the loop, so its ordinal stays 0.
func (s *sites) of(e *trace.Event, bytes uint64, numbered bool) plan.Site {
	site := plan.Site{Call: e.Type.String(), Bytes: bytes}
	if ts, ok := s.modules.Resolve(int(e.PID), e.Caller); ok {
		site.Module, site.BuildID, site.Offset = ts.Module, ts.BuildID, ts.Offset
		if ts.BuildID == "" {
			site.ModuleSize = ts.ModuleSize
		}
	} else {
		site.Offset = e.Caller
	}
	if numbered {
		k := ordinalKey{e.PID, site.Module, site.Offset, e.Type, bytes}
		site.Ordinal = s.ordinals[k]
		s.ordinals[k]++
		if tid, seen := s.threads[k]; !seen {
			s.threads[k] = e.TID
		} else if tid != e.TID {
			s.threads[k] = 0
		}
	}
	return site
}
