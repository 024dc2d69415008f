package tracer

import (
	"fmt"
	"os"

	"github.com/echo-uma/echo/internal/units"
)

// MaxRingBytes is the largest ring buffer the kernel makes: a BPF ring buffer's size is
// its map's max_entries, a 32-bit number that must be a power of two.
const MaxRingBytes = 1 << 31

// CheckRingSize says why n bytes cannot be the ring buffer's size, nil when it can: the
// kernel wants a power of two that is a whole number of pages (ringbuf_map_alloc), and
// anything it would refuse or a narrower field would cut must be refused here, by name.
func CheckRingSize(n uint64) error {
	page := uint64(os.Getpagesize())
	if n < page || n&(n-1) != 0 || n > MaxRingBytes {
		return fmt.Errorf("%s is not a ring buffer size the kernel makes: give a power of two from %s (a page) to %s",
			units.Size(n), units.Size(page), units.Size(MaxRingBytes))
	}
	return nil
}
