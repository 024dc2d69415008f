package planner

import (
	"slices"
	"sync"
	"time"

	"github.com/echo-uma/echo/plan"
	"golang.org/x/sys/unix"
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

// hostFirstTouch is this host's rates of faulting in fresh memory, in bytes per ms, measured
// once per process: the median of a few fresh 16 MiB mappings written a byte per page and
// unmapped again, as malloc maps and a program first writes a large allocation; once as they
// come (4 KiB pages unless the kernel's setting is "always"), once asking for transparent
// huge pages as numpy does for its large arrays.
var hostFirstTouch = sync.OnceValue(func() plan.FirstTouch {
	return plan.FirstTouch{BytesPerMS: firstTouchRate(false), HugeBytesPerMS: firstTouchRate(true)}
})

func firstTouchRate(huge bool) float64 {
	const size, runs = 16 << 20, 5
	page := unix.Getpagesize()
	ms := make([]float64, 0, runs)
	for range runs {
		start := time.Now()
		b, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
		if err != nil {
			return 0
		}
		if huge {
			unix.Madvise(b, unix.MADV_HUGEPAGE) // refused where the kernel has no THP: then as it comes
		}
		for i := 0; i < size; i += page {
			b[i] = 1
		}
		unix.Munmap(b)
		ms = append(ms, float64(time.Since(start).Nanoseconds())/1e6)
	}
	slices.Sort(ms)
	if ms[runs/2] <= 0 {
		return 0
	}
	return size / ms[runs/2]
}
