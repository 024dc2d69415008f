package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// readReports reads the shim's reports, one JSON document per process of the program that
// reached exit (shim/report.c appends each in one write), and adds them up into one: the
// program's. A program that forks and uses CUDA in the child merges there, not in the parent
// that reports last. started is the pid echoctl started, whose report leads.
func readReports(data []byte, started int) (Report, []Report, error) {
	var procs []Report
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var r Report
		err := dec.Decode(&r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Report{}, nil, fmt.Errorf("reading the shim's report: %w", err)
		}
		procs = append(procs, r)
	}
	if len(procs) == 0 {
		return Report{}, nil, errors.New("reading the shim's report: it is empty")
	}
	return combine(procs, started), procs, nil
}

// combine is what the processes did together. The started process's report leads (its
// reason, its wall time); the counts add up, since each process counts from its own start
// or fork; a pair was served or refused if it was in any process; the device is the one a
// process that used CUDA saw; the iterations (and their energy) are those of the process
// that ran the most.
func combine(procs []Report, started int) Report {
	lead := 0
	for i, r := range procs {
		if r.PID == started {
			lead = i
		}
	}
	out := procs[lead]
	out.Pairs = append([]PairReport(nil), out.Pairs...)
	for i, r := range procs {
		if i == lead {
			continue
		}
		if r.Active && (!out.Active || out.GPU == "") {
			out.GPU, out.CC, out.Driver, out.Runtime = r.GPU, r.CC, r.Driver, r.Runtime
			out.Pageable, out.ConcurrentManaged, out.ConcurrentKernels = r.Pageable, r.ConcurrentManaged, r.ConcurrentKernels
		}
		out.Active = out.Active || r.Active
		out.Said = out.Said || r.Said
		out.CopiesElided += r.CopiesElided
		out.Fallbacks += r.Fallbacks
		out.Freed += r.Freed
		out.SetupNS += r.SetupNS
		out.Waits.Event += r.Waits.Event
		out.Waits.Fallback += r.Waits.Fallback
		out.Pinned.Buffers += r.Pinned.Buffers
		out.Pinned.Bytes += r.Pinned.Bytes
		out.Pinned.Reused += r.Pinned.Reused
		out.Pinned.Fallbacks += r.Pinned.Fallbacks
		out.Pinned.Syncs += r.Pinned.Syncs
		if len(r.IterationNS) > len(out.IterationNS) {
			out.IterationNS, out.UntimedNS, out.DrainedNS, out.DrainedChainNS = r.IterationNS, r.UntimedNS, r.DrainedNS, r.DrainedChainNS
			if r.IterationEnergyMJ > 0 {
				out.IterationEnergyMJ = r.IterationEnergyMJ
			}
		}
		if out.EnergySource == "" && r.EnergySource != "" {
			// The counters are the device's or the board's, not a process's: one reading is the run's.
			out.EnergySource, out.EnergyMJ = r.EnergySource, r.EnergyMJ
		}
		for _, p := range r.Pairs {
			out.Pairs = addPair(out.Pairs, p)
		}
	}
	if out.Active {
		out.Reason = "" // a process ran with the plan: "untouched" was another process's story
	}
	if len(procs) > 1 && len(out.Pairs) > 0 {
		out.Served = 0
		for _, p := range out.Pairs {
			if p.Served {
				out.Served++
			}
		}
	}
	return out
}

// addPair adds one process's account of a pair to the others'.
func addPair(pairs []PairReport, p PairReport) []PairReport {
	for i := range pairs {
		q := &pairs[i]
		if q.ID != p.ID {
			continue
		}
		q.Seen = q.Seen || p.Seen
		q.Copies += p.Copies
		q.Elided += p.Elided
		q.Pinned += p.Pinned
		q.Fallbacks += p.Fallbacks
		q.FallbackCopies += p.FallbackCopies
		if p.Served && !q.Served {
			q.Served, q.Note = true, p.Note
		}
		if q.Note == "" && p.Fallbacks > 0 { // why its allocations fell back, in that process
			q.Note = p.Note
		}
		if p.Refused && !q.Refused {
			q.Refused, q.Reason = true, p.Reason
			q.AtModule, q.AtOffset, q.AtNS, q.AtCopy = p.AtModule, p.AtOffset, p.AtNS, p.AtCopy
		}
		if len(q.Resolved) == 0 || !q.Resolved[0].Found && len(p.Resolved) > 0 && p.Resolved[0].Found {
			q.Resolved = p.Resolved
		}
		if q.Staging == nil || q.Staging.Copies == 0 && p.Staging != nil {
			q.Staging = p.Staging
		}
		return pairs
	}
	return append(pairs, p)
}
