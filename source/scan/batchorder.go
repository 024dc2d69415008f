package scan

import (
	"context"
	"sort"
	"sync"
)

// orderByBatch puts the plan's translation units that clang can parse in one process next to
// each other (parse.Session.BatchKey), so that a worker's chunk holds the tree's files of one
// command line, not only a directory's: a tree's samples mostly share one, and each process
// saved is clang's start and the prelude's load, about 0.15 s of CPU (issue 40). Within a key
// the walk's order is kept; the report's order is the walk's whatever the parse's.
func (r *scanRun) orderByBatch(ctx context.Context, jobs int) {
	units := r.plan.units
	keys := make([]string, len(units))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(jobs, max(len(units), 1)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				_, cmd, _ := fileCommand(r.plan, r.files[units[k]], r.db, r.s.CompileDB, r.named, r.o)
				keys[k] = r.sess.BatchKey(ctx, cmd)
			}
		}()
	}
	for k := range units {
		if ctx.Err() != nil {
			break
		}
		next <- k
	}
	close(next)
	wg.Wait()
	order := make([]int, len(units))
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(a, b int) bool { return keys[order[a]] < keys[order[b]] })
	sorted := make([]int, len(units))
	for k, o := range order {
		sorted[k] = units[o]
	}
	r.plan.units = sorted
}
