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
// the walk's order is kept; the report's order is the walk's whatever the parse's. It gives
// the units' keys in their new order.
func (r *scanRun) orderByBatch(ctx context.Context, jobs int) []string {
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
	sortedKeys := make([]string, len(units))
	for k, o := range order {
		sorted[k], sortedKeys[k] = units[o], keys[o]
	}
	r.plan.units = sorted
	return sortedKeys
}

// unitBytes is what the parse of each of the plan's units, in their order, reads of the tree
// (parse.TreeIndex.SourceBytes): the chunks' cost, for largestFirst.
func (r *scanRun) unitBytes() []int64 {
	sizes := make([]int64, len(r.plan.units))
	for k, u := range r.plan.units {
		sizes[k] = r.plan.idx.SourceBytes(r.files[u])
	}
	return sizes
}

// largestFirst orders chunks by what their units' parses read of the tree, the largest first,
// so that the chunks the workers take last are the short ones and the workers end close
// together (longest processing time first). Taken in key order, one worker's last chunk, 26
// CUDA files, took 9 s while the other had nothing left (cuda-samples, 2 workers; issue 40).
// Bytes are a rough cost (SourceBytes says how rough). Chunks of equal bytes keep their order.
func largestFirst(cs [][2]int, sizes []int64) {
	bytes := func(c [2]int) int64 {
		var n int64
		for _, s := range sizes[c[0]:c[1]] {
			n += s
		}
		return n
	}
	sort.SliceStable(cs, func(a, b int) bool { return bytes(cs[a]) > bytes(cs[b]) })
}

// chunks cuts units sorted by their keys into the runs a worker hands clang's parse at once:
// at most size each, and cut where the key changes rather than inside a key's run when the
// next run would not fit, so that a key's files are split among as few clang processes as
// can be (each one more pays clang's start and the prelude's load). Each chunk is [start, end).
func chunks(keys []string, size int) [][2]int {
	var out [][2]int
	start := 0
	for i := 1; i <= len(keys); i++ {
		if i == len(keys) || i-start == size || keys[i] != keys[i-1] && i-start+runOf(keys, i) > size {
			out = append(out, [2]int{start, i})
			start = i
		}
	}
	return out
}

// runOf is how many of keys from i on are keys[i].
func runOf(keys []string, i int) int {
	n := 1
	for i+n < len(keys) && keys[i+n] == keys[i] {
		n++
	}
	return n
}
