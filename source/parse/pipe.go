package parse

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// clang writes its dump to the pipe 4 KiB at a time (LLVM buffers a pipe by its st_blksize),
// and the reader, faster than clang, was woken for each write: about 4,000 reads, each a
// trip through the poller, for a 16 MB dump, a sixth of echoctl's own CPU time in a survey
// (issue 40). A gathering reader waits a moment after a short read, so that clang's writes
// gather in a pipe made big enough to hold them meanwhile.

// pipeSize is what the dump's pipe is grown to: about 4 ms of clang's writing, four times
// what the reader waits.
const pipeSize = 1 << 20

// gatherWait is how long the reader lets the pipe fill after a short read.
const gatherWait = time.Millisecond

// dumpPipe is a pipe for clang's dump, pipeSize bytes where the system lets it, whose read end
// blocks: the reader waits in read(2) and sleeps in nanosleep(2), not in Go's poller and
// timers, whose wake-ups (epoll_wait, the scheduler looking for work) were a fifth of
// echoctl's own CPU time on a file with a 2.7 GB dump (issue 40).
func dumpPipe() (r, w *os.File, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil, nil, fmt.Errorf("making clang's output pipe: %w", err)
	}
	unix.FcntlInt(uintptr(p[0]), unix.F_SETPIPE_SZ, pipeSize)
	return os.NewFile(uintptr(p[0]), "clang-dump"), os.NewFile(uintptr(p[1]), "clang-dump"), nil
}

// gatheringReader reads a pipe, waiting gatherWait before a read that follows a short one.
type gatheringReader struct {
	r     io.Reader
	short bool // the last read gave less than half of what was asked
}

func (g *gatheringReader) Read(p []byte) (int, error) {
	if g.short {
		ts := unix.NsecToTimespec(gatherWait.Nanoseconds())
		unix.Nanosleep(&ts, nil)
	}
	n, err := g.r.Read(p)
	g.short = n < len(p)/2
	return n, err
}
