package planview

import (
	"fmt"
	"io"
	"strings"

	"github.com/echo-uma/echo/internal/units"
	"github.com/echo-uma/echo/pipeline"
	"github.com/echo-uma/echo/plan"
)

// DryRun says on out what run would do, and on stderr where this command differs from the
// traced one: a plan names allocation sites and sizes, so other arguments may well match
// nothing.
func DryRun(out, stderr io.Writer, p *plan.Plan, d pipeline.Deployment, argv []string) error {
	if d.Untouched != "" {
		fmt.Fprintf(out, "would run %s as written: %s\n", p.Context.Executable.Path, d.Untouched)
		return nil
	}
	if d.Strategy == plan.StrategyPinned {
		printPinned(out, p, d.Pairs)
	} else {
		fmt.Fprintf(out, "would merge %d pairs of %s with the %s strategy:\n", len(d.Pairs), p.Context.Executable.Path, d.Strategy)
		for _, pair := range d.Pairs {
			fmt.Fprintf(out, "  %s %-6s %s: host %s at %s (#%d), device %s at %s (#%d)\n", pair.ID, pair.Direction,
				units.Bytes(pair.Bytes), pair.Host.Site.Call, pair.Host.Site.Name(), pair.Host.Site.Ordinal,
				pair.Device.Site.Call, pair.Device.Site.Name(), pair.Device.Site.Ordinal)
			for _, c := range pair.Copies {
				fmt.Fprintf(out, "      elides %s %s at %s, keeping %s\n", c.Site.Call, c.Direction, c.Site.Name(), RepairWords[c.Repair])
			}
		}
	}
	if differs := pipeline.ArgsDiffer(p.Trace.Command, argv); differs != "" {
		fmt.Fprintf(stderr, "echoctl: %s\n", differs)
	}
	return nil
}

// printPinned says what the pinned strategy would do: serve every host allocation of the
// planned size at each planned site (whatever its ordinal) from page-locked memory, for the
// pairs whose host buffers come from there.
func printPinned(out io.Writer, p *plan.Plan, pairs []plan.Pair) {
	var order []plan.Site
	ids := map[plan.Site][]string{}
	for _, pair := range pairs {
		k := pair.Host.Site.AnyOrdinal()
		if ids[k] == nil {
			order = append(order, k)
		}
		ids[k] = append(ids[k], pair.ID)
	}
	sites := "sites"
	if len(order) == 1 {
		sites = "site"
	}
	fmt.Fprintf(out, "would pin the host allocations at %d %s of %s (pinned strategy; the copies stay, from page-locked memory):\n",
		len(order), sites, p.Context.Executable.Path)
	for _, k := range order {
		fmt.Fprintf(out, "  %s of %s at %s, for %s\n", k.Call, units.Bytes(k.Bytes), k.Name(), strings.Join(ids[k], " "))
	}
}

// DryRunDoc is `run --dry-run --json`: what run would do, pair by pair.
type DryRunDoc struct {
	Schema     string        `json:"schema"`
	Executable string        `json:"executable"`
	Action     string        `json:"action"` // "merge", "pin" or "run as written"
	Strategy   plan.Strategy `json:"strategy,omitempty"`
	Untouched  string        `json:"untouched,omitempty"` // why the program would run as written
	Pairs      []dryRunPair  `json:"pairs"`
	ArgsDiffer string        `json:"args_differ,omitempty"` // how the arguments differ from the traced run's
}

type dryRunPair struct {
	ID        string             `json:"id"`
	Direction plan.PairDirection `json:"direction"`
	Bytes     uint64             `json:"bytes"` // the buffer's size
	Host      dryRunSite         `json:"host"`
	Device    dryRunSite         `json:"device"`
	Copies    []dryRunCopy       `json:"copies"` // elided by a merge; kept, from page-locked memory, by pin
}

type dryRunSite struct {
	Call    string `json:"call"`
	Site    string `json:"site"` // module+offset
	Ordinal int    `json:"ordinal"`
}

type dryRunCopy struct {
	Call      string             `json:"call"`
	Direction plan.CopyDirection `json:"direction"`
	Site      string             `json:"site"`
	Keeps     plan.Repair        `json:"keeps,omitempty"` // the ordering a merge keeps (the plan's repair)
}

// DryRunDocOf is the document of schema for what run would do with d.
func DryRunDocOf(schema string, p *plan.Plan, d pipeline.Deployment, argv []string) DryRunDoc {
	doc := DryRunDoc{Schema: schema, Executable: p.Context.Executable.Path, Strategy: d.Strategy,
		Untouched: d.Untouched, Pairs: []dryRunPair{}, ArgsDiffer: pipeline.ArgsDiffer(p.Trace.Command, argv)}
	switch {
	case d.Untouched != "":
		doc.Action = "run as written"
		return doc
	case d.Strategy == plan.StrategyPinned:
		doc.Action = "pin"
	default:
		doc.Action = "merge"
	}
	site := func(s plan.Site) dryRunSite { return dryRunSite{Call: s.Call, Site: s.Name(), Ordinal: s.Ordinal} }
	for _, pair := range d.Pairs {
		dp := dryRunPair{ID: pair.ID, Direction: pair.Direction, Bytes: pair.Bytes,
			Host: site(pair.Host.Site), Device: site(pair.Device.Site)}
		for _, c := range pair.Copies {
			var keeps plan.Repair
			if doc.Action == "merge" {
				keeps = c.Repair
			}
			dp.Copies = append(dp.Copies, dryRunCopy{Call: c.Site.Call, Direction: c.Direction, Site: c.Site.Name(), Keeps: keeps})
		}
		doc.Pairs = append(doc.Pairs, dp)
	}
	return doc
}

// RepairWords say what an elided copy keeps of its ordering (planner.Copy.Repair).
var RepairWords = map[plan.Repair]string{
	plan.RepairNone:       "nothing: stream order covers it",
	plan.RepairEventWait:  "its wait, as an event on its stream",
	plan.RepairStreamSync: "its wait, as a synchronize of its stream",
	plan.RepairDeviceSync: "its wait, as a device synchronize",
	"":                    "what the plan does not say",
}
