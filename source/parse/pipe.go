package parse

import (
	"io"
	"syscall"
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

// growPipe makes the pipe f reads from hold pipeSize bytes, where the system lets it.
func growPipe(f io.Reader) {
	sc, ok := f.(syscall.Conn)
	if !ok {
		return
	}
	if rc, err := sc.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) { unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeSize) })
	}
}

// gatheringReader reads a pipe, waiting gatherWait before a read that follows a short one.
type gatheringReader struct {
	r     io.Reader
	short bool // the last read gave less than half of what was asked
}

func (g *gatheringReader) Read(p []byte) (int, error) {
	if g.short {
		time.Sleep(gatherWait)
	}
	n, err := g.r.Read(p)
	g.short = n < len(p)/2
	return n, err
}
