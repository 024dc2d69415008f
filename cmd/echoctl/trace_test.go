package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A --ring-size the kernel would not make is refused by name before anything is traced,
// never cut to fit a narrower field: 8G once became the default 16M without a word.
func TestTraceRingSizeRefused(t *testing.T) {
	for _, size := range []string{"8G", "4G", "16G", "3K", "6M", "0", "1"} {
		out := filepath.Join(t.TempDir(), "trace.bin")
		// -p with a short --duration: where the size were taken, the trace would end at once.
		got, err := execute(t, "trace", "-o", out, "--ring-size", size, "-p", strconv.Itoa(os.Getpid()), "--duration", "10ms")
		if err == nil || !strings.Contains(err.Error(), "--ring-size: "+size+" is not a ring buffer size") ||
			!strings.Contains(err.Error(), "to 2G") {
			t.Errorf("--ring-size %s: error %v, want it refused naming the size and the largest\n%s", size, err, got)
		}
	}
}
