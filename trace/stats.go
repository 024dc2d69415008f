package trace

import (
	"cmp"
	"errors"
	"io"
	"slices"
)

// Stats summarizes a trace: what `echoctl stats` prints, and its JSON.
type Stats struct {
	Events     uint64            `json:"events"`       // event records read
	Calls      map[string]uint64 `json:"calls"`        // by API name
	Failed     map[string]Failed `json:"failed"`       // CUDA calls that returned an error, by API name
	Copies     PerDirection      `json:"copies"`       // successful copy calls
	Bytes      PerDirection      `json:"bytes"`        // moved by successful copies
	CopyNS     PerDirection      `json:"copy_ns"`      // inside successful copy calls, entry to return
	Lost       uint64            `json:"lost"`         // events the ring buffer had no room for, from the footer: 0 without one
	LostPerCPU []uint64          `json:"lost_per_cpu"` // the same, per CPU
	Threads    int               `json:"threads"`
	Processes  int               `json:"processes"`
	WallNS     uint64            `json:"wall_ns"`    // first entry to last return
	CopyShare  float64           `json:"copy_share"` // share of WallNS with a thread inside a copy call
	// MovingShare is the share of WallNS with a copy moving data: CopyShare less the time
	// synchronous copies spent waiting for earlier GPU work, as a TransferEstimator (the
	// planner's) tells it. Absent when no estimator was given.
	MovingShare *float64    `json:"moving_share,omitempty"`
	TopSites    []SiteStats `json:"top_sites"`           // copy sites, most time first
	Complete    bool        `json:"complete"`            // the footer was read and the tracer stopped cleanly
	Truncated   string      `json:"truncated,omitempty"` // why recording stopped early (the disk filled)
	// NoLaunches: kernel launches were not probed (the header's no_launches), so Calls
	// counts none whatever the program launched.
	NoLaunches bool `json:"no_launches,omitempty"`
}

// Failed is how often one CUDA API returned an error, and which errors.
type Failed struct {
	Calls  uint64            `json:"calls"`
	Errors map[string]uint64 `json:"errors"` // by error name (ErrorName)
}

// PerDirection is a quantity per copy direction. cudaMemcpyDefault copies are counted under
// the direction the runtime inferred from their pointers.
type PerDirection struct {
	H2D uint64 `json:"h2d"`
	D2H uint64 `json:"d2h"`
	D2D uint64 `json:"d2d"`
	H2H uint64 `json:"h2h"`
}

// Get returns the value for a cudaMemcpyKind other than the default.
func (p *PerDirection) Get(kind uint32) uint64 {
	if v := p.at(kind); v != nil {
		return *v
	}
	return 0
}

// Plus is p and q added direction by direction.
func (p PerDirection) Plus(q PerDirection) PerDirection {
	return PerDirection{H2D: p.H2D + q.H2D, D2H: p.D2H + q.D2H, D2D: p.D2D + q.D2D, H2H: p.H2H + q.H2H}
}

func (p *PerDirection) at(kind uint32) *uint64 {
	switch kind {
	case KindHostToHost:
		return &p.H2H
	case KindHostToDevice:
		return &p.H2D
	case KindDeviceToHost:
		return &p.D2H
	case KindDeviceToDevice:
		return &p.D2D
	}
	return nil
}

// SiteStats are the copies made from one call site, in one direction.
type SiteStats struct {
	Site      string `json:"site"` // Site.String()
	Module    string `json:"module"`
	BuildID   string `json:"build_id,omitempty"`
	Offset    uint64 `json:"offset"`
	API       string `json:"api"`
	Direction string `json:"direction"`
	Count     uint64 `json:"count"`
	Bytes     uint64 `json:"bytes"`
	NS        uint64 `json:"ns"`
	// MovingNS is the part of NS the copies spent moving data, as MovingShare counts it;
	// absent without an estimator.
	MovingNS *uint64 `json:"moving_ns,omitempty"`
	// ModuleSize names the module's file with Module when it has no build-id; it is for
	// naming the site (package symbols) and not written.
	ModuleSize int64 `json:"-"`
	// Function, File and Line are what the module says the site's code is: filled by
	// whoever shows the site to a person (echoctl stats), never by Summarize.
	Function string `json:"function,omitempty"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
}

// Summarize streams through a trace and summarizes it. On a damaged or cut short trace it
// returns the statistics of what was readable together with the reader's error.
func Summarize(r *Reader) (*Stats, error) { return SummarizeEstimating(r, nil) }

// A TransferEstimator tells how much of a copy call moved data, the rest having waited for
// earlier GPU work. It sees every event in order (dir is Direction of the copy's kind, ""
// for other calls) and returns a copy's moving time in nanoseconds. The planner has one;
// this package cannot import it.
type TransferEstimator interface {
	Observe(e *Event, dir string) uint64
}

// SummarizeEstimating is Summarize with MovingShare from est (none when est is nil).
func SummarizeEstimating(r *Reader, est TransferEstimator) (*Stats, error) {
	s := newSummary(r.Header())
	s.est = est
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return s.finish(r), err
		}
		s.add(rec)
	}
	return s.finish(r), nil
}

// Summarizer summarizes records as they come, for callers that read them one by one (the
// live view) rather than through Summarize, in intervals.
type Summarizer struct{ s *summary }

// NewSummarizer starts a summary of a trace with header h; est, when not nil, gives
// MovingShare.
func NewSummarizer(h Header, est TransferEstimator) *Summarizer {
	s := newSummary(h)
	s.est = est
	return &Summarizer{s: s}
}

// Add counts one record.
func (z *Summarizer) Add(rec Record) { z.s.add(rec) }

// Interval returns the statistics of the records added since the last call (without the
// footer's figures) and starts the next interval. What later records need from earlier
// ones, the modules and the device allocations, is kept.
func (z *Summarizer) Interval() *Stats {
	st := z.s.result(Footer{}, false)
	next := newSummary(Header{NoLaunches: z.s.stats.NoLaunches})
	next.modules, next.device, next.est = z.s.modules, z.s.device, z.s.est
	z.s = next
	return st
}

// summary is Summarize's running state; its memory grows with threads, live device
// allocations and call sites, not with events.
type summary struct {
	stats       Stats
	calls       [maxEventTag]uint64
	failed      map[failure]uint64
	modules     *Modules
	device      deviceMemory
	threads     map[uint32]struct{}
	processes   map[uint32]struct{}
	sites       map[siteKey]*SiteStats
	first, last uint64
	busy        busyTime
	est         TransferEstimator // nil: no MovingShare
	moving      busyTime          // the part of busy that est says moved data
}

type failure struct {
	api  EventType
	code int32
}

type siteKey struct {
	site Site
	api  EventType
	kind uint32
}

func newSummary(h Header) *summary {
	return &summary{
		stats:     Stats{NoLaunches: h.NoLaunches},
		modules:   NewModules(h.Modules),
		device:    deviceMemory{},
		threads:   map[uint32]struct{}{},
		processes: map[uint32]struct{}{},
		sites:     map[siteKey]*SiteStats{},
		failed:    map[failure]uint64{},
	}
}

func (s *summary) add(rec Record) {
	switch {
	case rec.Event != nil:
		s.event(rec.Event)
	case rec.Module != nil:
		s.modules.Add(*rec.Module)
	}
}

func (s *summary) event(e *Event) {
	s.stats.Events++
	if uint32(e.Type) < maxEventTag { // always, from a Reader
		s.calls[e.Type]++
	}
	if e.Failed() {
		s.failed[failure{e.Type, e.Ret}]++
	}
	s.threads[e.TID] = struct{}{}
	s.processes[e.PID] = struct{}{}
	enter := e.EnterNS
	if enter == 0 || enter > e.ExitNS { // an event stamped only at return
		enter = e.ExitNS
	}
	if s.stats.Events == 1 || enter < s.first {
		s.first = enter
	}
	s.last = max(s.last, e.ExitNS)

	switch {
	case e.Type.IsDeviceMemory() && e.Ret == 0 && e.Addr != 0:
		s.device.alloc(e.PID, e.Addr, e.Bytes)
	case e.Type == EventCUDAFree || e.Type == EventCUMemFree:
		s.device.free(e.PID, e.Addr)
	case e.Type.IsCopy() && e.Ret == 0:
		s.copy(e)
		return
	}
	if s.est != nil {
		s.est.Observe(e, "")
	}
}

// copy counts a successful copy; a failed one moved nothing.
func (s *summary) copy(e *Event) {
	kind := s.direction(e)
	ns := e.Duration()
	*s.stats.Copies.at(kind)++
	*s.stats.Bytes.at(kind) += e.Bytes
	*s.stats.CopyNS.at(kind) += ns
	s.busy.add(e.EnterNS, e.ExitNS)
	var moving uint64
	if s.est != nil {
		// A copy that waited did so first, and moved its data at the end of the call.
		moving = min(s.est.Observe(e, Direction(kind)), ns)
		s.moving.add(e.ExitNS-moving, e.ExitNS)
	}

	site, ok := s.modules.Resolve(int(e.PID), e.Caller)
	if !ok {
		site = Site{Offset: e.Caller}
	}
	key := siteKey{site: site, api: e.Type, kind: kind}
	st := s.sites[key]
	if st == nil {
		st = &SiteStats{Site: site.String(), Module: site.Module, BuildID: site.BuildID,
			Offset: site.Offset, API: e.Type.String(), Direction: Direction(kind)}
		if site.BuildID == "" {
			st.ModuleSize = site.ModuleSize
		}
		if s.est != nil {
			st.MovingNS = new(uint64)
		}
		s.sites[key] = st
	}
	st.Count++
	st.Bytes += e.Bytes
	st.NS += ns
	if st.MovingNS != nil {
		*st.MovingNS += moving
	}
}

// direction is the cudaMemcpyKind a copy moved data in: the driver's from its name, the
// runtime's from its kind, and for cudaMemcpyDefault from whether each pointer lies in
// device memory allocated earlier in the trace.
func (s *summary) direction(e *Event) uint32 {
	switch e.Type {
	case EventCUMemcpyHtoD, EventCUMemcpyHtoDAsync:
		return KindHostToDevice
	case EventCUMemcpyDtoH, EventCUMemcpyDtoHAsync:
		return KindDeviceToHost
	case EventCUMemcpyDtoD, EventCUMemcpyDtoDAsync:
		return KindDeviceToDevice
	}
	if e.Kind < KindDefault {
		return e.Kind
	}
	kind := KindHostToHost
	if s.device.contains(e.PID, e.Src) {
		kind |= KindDeviceToHost // the kinds are bit flags: 1 to device, 2 from device
	}
	if s.device.contains(e.PID, e.Addr) {
		kind |= KindHostToDevice
	}
	return kind
}

func (s *summary) finish(r *Reader) *Stats {
	f, ok := r.Footer()
	return s.result(f, ok)
}

func (s *summary) result(f Footer, hasFooter bool) *Stats {
	st := s.stats
	st.Failed = map[string]Failed{}
	for fc, n := range s.failed {
		api := fc.api.String()
		agg := st.Failed[api]
		if agg.Errors == nil {
			agg.Errors = map[string]uint64{}
		}
		agg.Calls += n
		agg.Errors[ErrorName(fc.api, fc.code)] += n
		st.Failed[api] = agg
	}
	st.Calls = map[string]uint64{}
	for t, n := range s.calls {
		if n > 0 {
			st.Calls[EventType(t).String()] = n
		}
	}
	st.Threads, st.Processes = len(s.threads), len(s.processes)
	if st.Events > 0 {
		st.WallNS = s.last - s.first
	}
	if st.WallNS > 0 {
		st.CopyShare = min(1, float64(s.busy.sum())/float64(st.WallNS))
	}
	if s.est != nil {
		moving := 0.0
		if st.WallNS > 0 {
			moving = min(1, float64(s.moving.sum())/float64(st.WallNS))
		}
		st.MovingShare = &moving
	}
	st.LostPerCPU = []uint64{}
	if hasFooter {
		st.Lost = f.TotalLost()
		st.LostPerCPU = append(st.LostPerCPU, f.Lost...)
		st.Complete, st.Truncated = f.Complete, f.Truncated
	}
	st.TopSites = make([]SiteStats, 0, len(s.sites))
	for _, site := range s.sites {
		cp := *site
		if site.MovingNS != nil {
			cp.MovingNS = new(*site.MovingNS) // the running count is not the result's
		}
		st.TopSites = append(st.TopSites, cp)
	}
	slices.SortFunc(st.TopSites, func(a, b SiteStats) int {
		return cmp.Or(cmp.Compare(b.NS, a.NS), cmp.Compare(b.Count, a.Count),
			cmp.Compare(a.Site, b.Site), cmp.Compare(a.API, b.API), cmp.Compare(a.Direction, b.Direction))
	})
	return &st
}
