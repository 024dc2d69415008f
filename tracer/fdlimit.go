package tracer

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// outOfFDs turns a load that failed for want of file descriptors into one line that says
// so, and returns nil for any other failure. Every map, program and BTF blob the loader
// makes is a file descriptor. When they run out, cilium/ebpf wraps the EMFILE in a
// VerifierError carrying the kernel's BTF log, which reads as a verifier refusal, or, when
// a feature probe was the call that failed, reports the feature as missing from the kernel
// ("read- and write-only maps not supported"): either way a person goes after the wrong
// problem. need is about how many descriptors the load takes; a load that failed with fewer
// than that free failed for want of them, whatever the error says.
func outOfFDs(err error, need int) error {
	if errors.Is(err, unix.ENFILE) {
		return errors.New("the system is out of file descriptors (ENFILE): close programs that hold many, " +
			"or raise fs.file-max, and run again")
	}
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) != nil {
		lim.Cur = 0
	}
	if !errors.Is(err, unix.EMFILE) && fdsFree(lim.Cur) >= need {
		return nil
	}
	if lim.Cur == 0 {
		return errors.New("echoctl is out of file descriptors: raise its limit (ulimit -n) and run again")
	}
	return fmt.Errorf("echoctl is out of file descriptors (ulimit -n %d, and loading the tracer alone takes "+
		"about %d): raise the limit with ulimit -n and run again", lim.Cur, need)
}

// fdsFree is how many more file descriptors this process may open under limit; 0 when the
// open ones cannot even be listed, which is itself for want of one.
func fdsFree(limit uint64) int {
	open, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		if errors.Is(err, unix.EMFILE) {
			return 0
		}
		return int(^uint(0) >> 1) // cannot tell: do not claim a shortage
	}
	if uint64(len(open)) >= limit {
		return 0
	}
	return int(limit - uint64(len(open)))
}
