package planner

import (
	"slices"
	"sync"
	"time"
)

// hostCopyRate is this host's memcpy rate in bytes per ms, measured once per process: what
// the staging pass of a pageable copy costs on unified memory (Machine.StageBytesPerMS),
// where the pass is a host memcpy into the runtime's bounce buffer. The median of a few
// copies of 8 MiB (larger than the caches, as the copies worth planning are), not the
// fastest: the program's copies run on the same, possibly busy, machine.
var hostCopyRate = sync.OnceValue(func() float64 {
	const size, runs = 8 << 20, 7
	src, dst := make([]byte, size), make([]byte, size)
	for i := range src {
		src[i] = byte(i)
	}
	copy(dst, src) // first touch of dst's pages is not what a bounce buffer pays
	ms := make([]float64, runs)
	for i := range ms {
		start := time.Now()
		copy(dst, src)
		ms[i] = float64(time.Since(start).Nanoseconds()) / 1e6
	}
	slices.Sort(ms)
	if ms[runs/2] <= 0 {
		return 0
	}
	return size / ms[runs/2]
})
