package main

import (
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
)

// A probe is one attachment on the target function.
type probe struct {
	ret   bool // a return probe (uretprobe) rather than an entry probe
	multi bool // through a uprobe_multi link rather than a perf-event uprobe
	work  bool // the Echo-like program rather than the empty one
}

// A mode is one way of running the target: the probes attached while it runs.
type mode struct {
	name   string
	probes []probe
}

var (
	entry     = probe{}
	ret       = probe{ret: true}
	workEntry = probe{work: true}
)

// modes lists what is measured, "none" first: every other row is compared with it. A
// traced runtime call pays two entry and two return traps (its own and the driver call's
// it makes), so entry and return are measured alone and together.
func modes(multi bool) []mode {
	ms := []mode{
		{"none", nil},
		{"entry", []probe{entry}},
		{"return", []probe{ret}},
		{"entry+return", []probe{entry, ret}},
		{"entry, Echo-like work", []probe{workEntry}},
	}
	if !multi {
		return ms
	}
	m := func(p probe) probe { p.multi = true; return p }
	return append(ms,
		mode{"multi entry", []probe{m(entry)}},
		mode{"multi return", []probe{m(ret)}},
		mode{"multi entry+return", []probe{m(entry), m(ret)}},
		mode{"multi entry, Echo-like work", []probe{m(workEntry)}},
	)
}

// attach attaches a mode's probes to sym in ex; the caller closes the links.
func attach(ex *link.Executable, sym string, m mode, p *progs) ([]link.Link, error) {
	var links []link.Link
	for _, pr := range m.probes {
		l, err := attachOne(ex, sym, pr, p)
		if err != nil {
			closeAll(links)
			return nil, fmt.Errorf("attaching %s to %s: %w", m.name, sym, err)
		}
		links = append(links, l)
	}
	return links, nil
}

func attachOne(ex *link.Executable, sym string, pr probe, p *progs) (link.Link, error) {
	prog := pick(pr, p)
	switch {
	case pr.multi && pr.ret:
		return ex.UretprobeMulti([]string{sym}, prog, nil)
	case pr.multi:
		return ex.UprobeMulti([]string{sym}, prog, nil)
	case pr.ret:
		return ex.Uretprobe(sym, prog, nil)
	default:
		return ex.Uprobe(sym, prog, nil)
	}
}

func pick(pr probe, p *progs) *ebpf.Program {
	switch {
	case pr.multi && pr.work:
		return p.workMulti
	case pr.multi:
		return p.emptyMulti
	case pr.work:
		return p.work
	default:
		return p.empty
	}
}

func closeAll(links []link.Link) {
	for _, l := range links {
		l.Close()
	}
}
