package tracer

import (
	"os"
	"testing"
)

func TestCheckRingSize(t *testing.T) {
	page := uint64(os.Getpagesize())
	for n, ok := range map[uint64]bool{
		page: true, 16 << 20: true, MaxRingBytes: true,
		0: false, page / 2: false, page + 1: false, 3 * page: false,
		MaxRingBytes * 2: false, 8 << 30: false, 1<<63 + 1<<31: false,
	} {
		if err := CheckRingSize(n); (err == nil) != ok {
			t.Errorf("CheckRingSize(%d) = %v, want ok %v", n, err, ok)
		}
	}
}
