package parse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/echo-uma/echo/internal/units"
)

// Limits bound what one file may cost, so that a tree from anywhere cannot hang a scan or fill
// the machine's memory: a generated 50 MB file once took 1.8 GB and 1:42, a FIFO the source
// includes blocks clang in open(2) forever, and a compile database linked to /dev/zero is
// endless. A file past a limit is skipped, saying which (LimitError), and the scan goes on.
// The zero value of each field is its default.
type Limits struct {
	// FileSize is the largest source file read (and parsed): clang's dump of a generated table
	// is about 450 times the file, the reader keeps about 250 bytes per byte of code.
	FileSize int64
	// Time is how long clang may run on one file; past it clang and everything it started are
	// killed. It is the only guard against an #include of a FIFO, which clang opens blocking.
	Time time.Duration
	// Memory is clang's address space (RLIMIT_AS).
	Memory uint64
	// Output is how much of clang's JSON dump is read.
	Output int64
	// Nodes is how many AST nodes of the file and its own headers the reader keeps: what
	// bounds the reader's memory when a small file includes a huge header of its own.
	Nodes int
}

// The defaults: FileSize is twice the largest translation unit in Rodinia, cuda-samples and
// HeCBench (sobol_primitives, 1 MB of generated table); a clang run on such a file takes
// seconds and a few hundred MB; the dump of a file with thrust's headers is a few hundred MB.
const (
	DefaultFileSize = 2 << 20
	DefaultTime     = 2 * time.Minute
	DefaultMemory   = 4 << 30
	DefaultOutput   = 4 << 30
	DefaultNodes    = 2_000_000 // about 800 MB of kept nodes (about 400 bytes each, measured)
)

func (l Limits) fileSize() int64 { return cmpDefault(l.FileSize, DefaultFileSize) }
func (l Limits) time() time.Duration {
	return cmpDefault(l.Time, DefaultTime)
}
func (l Limits) memory() uint64 { return cmpDefault(l.Memory, DefaultMemory) }
func (l Limits) output() int64  { return cmpDefault(l.Output, DefaultOutput) }
func (l Limits) nodes() int     { return cmpDefault(l.Nodes, DefaultNodes) }

func cmpDefault[T int | int64 | uint64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// LimitError is a file skipped for going past a limit: Why says which, in words a table can
// print after "skipped: ".
type LimitError struct {
	File string
	Why  string
}

func (e *LimitError) Error() string { return fmt.Sprintf("skipped %s: %s", e.File, e.Why) }

func tooLarge(file string, size, limit int64) *LimitError {
	return &LimitError{File: file, Why: fmt.Sprintf("larger than %s (%s): give --max-file-size to parse it",
		units.Bytes(uint64(limit)), units.Bytes(uint64(size)))}
}

// clangRun is one clang process under the limits: started in a process group of its own so
// that the time limit and an interrupt end everything it started, with its address space
// bounded and its dump read only up to the output limit.
type clangRun struct {
	file    string
	limits  Limits
	ctx     context.Context // the caller's: its end is an interrupt, not a limit
	timed   context.Context // ends at the time limit too
	cancel  context.CancelFunc
	dump    *cappedReader
	started time.Time
}

// newClangRun starts the time limit of one clang run on file.
func newClangRun(ctx context.Context, file string, l Limits) *clangRun {
	timed, cancel := context.WithTimeout(ctx, l.time())
	return &clangRun{file: file, limits: l, ctx: ctx, timed: timed, cancel: cancel}
}

// prepare puts cmd, made with exec.CommandContext(r.timed, …), in a process group of its own
// whose every process the context's end kills: clang's driver may start cc1 as a child, and
// killing the driver alone would leave it blocked on a FIFO.
func (r *clangRun) prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
}

// startClang runs path with args in dir under the limits, its standard error to stderr, and
// gives its dump as start wraps it. Where clang cannot be started the run's timer is let go
// and the error says which step failed.
func (r *clangRun) startClang(path string, args []string, dir string, stderr io.Writer) (*exec.Cmd, io.Reader, error) {
	cmd := exec.CommandContext(r.timed, path, args...)
	r.prepare(cmd)
	cmd.Dir = dir
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err == nil {
		if err = cmd.Start(); err != nil {
			err = fmt.Errorf("starting clang: %w", err)
		}
	}
	if err != nil {
		r.cancel()
		return nil, nil, err
	}
	growPipe(out)
	return cmd, r.start(cmd, &gatheringReader{r: out}), nil
}

// start bounds the started clang's address space and wraps its dump in the output limit. The
// limit is set on the running process (prlimit(2)), a moment after exec: clang has not yet
// read its input then, and Go cannot set a child's limits before exec.
func (r *clangRun) start(cmd *exec.Cmd, dump io.Reader) io.Reader {
	r.started = time.Now()
	lim := unix.Rlimit{Cur: r.limits.memory(), Max: r.limits.memory()}
	_ = unix.Prlimit(cmd.Process.Pid, unix.RLIMIT_AS, &lim, nil)
	r.dump = &cappedReader{r: dump, left: r.limits.output(), kill: func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}}
	return r.dump
}

// exceeded is the LimitError of a run that went past a limit, nil for one that did not.
// Called after Wait, with clang's standard error.
func (r *clangRun) exceeded(waitErr, readErr error, stderr []byte) error {
	defer r.cancel()
	switch {
	case r.ctx.Err() != nil:
		return nil // interrupted: the caller's to say
	case errors.Is(readErr, errNodeLimit):
		return &LimitError{File: r.file, Why: fmt.Sprintf("more than %d AST nodes in the file and its own headers (generated code?): skipped to bound memory",
			r.limits.nodes())}
	case r.dump != nil && r.dump.over:
		return &LimitError{File: r.file, Why: fmt.Sprintf("clang's AST of it is larger than %s (generated code?): skipped to bound time and memory",
			units.Bytes(uint64(r.limits.output())))}
	case errors.Is(r.timed.Err(), context.DeadlineExceeded):
		return &LimitError{File: r.file, Why: fmt.Sprintf("clang ran past %s (an #include of a FIFO or a device?): give --file-timeout more",
			r.limits.time())}
	case waitErr != nil && outOfMemory(stderr):
		return &LimitError{File: r.file, Why: fmt.Sprintf("clang ran out of its %s of memory",
			units.Bytes(r.limits.memory()))}
	}
	return nil
}

// outOfMemory tells clang's death by a failed allocation from its standard error: LLVM's
// "out of memory" report, libstdc++'s bad_alloc, or the loader's failure to map clang's own
// libraries under a limit below them.
func outOfMemory(stderr []byte) bool {
	s := string(stderr)
	return strings.Contains(s, "out of memory") || strings.Contains(s, "bad_alloc") ||
		strings.Contains(s, "Allocation failed") || strings.Contains(s, "failed to map segment") ||
		strings.Contains(s, "Cannot allocate memory")
}

// stopIfOver kills clang when the reader gave up past its node limit: what is left of the dump
// is drained, and clang would write all of it.
func (r *clangRun) stopIfOver(readErr error) {
	if errors.Is(readErr, errNodeLimit) {
		r.dump.kill()
	}
}

// cappedReader reads at most left bytes; past them it kills clang (so it stops writing) and
// fails.
type cappedReader struct {
	r    io.Reader
	left int64
	over bool
	kill func()
}

var errOutputLimit = errors.New("past the output limit")

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.over {
		return 0, errOutputLimit
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	if int64(n) > c.left {
		c.over = true
		c.kill()
		return 0, errOutputLimit
	}
	c.left -= int64(n)
	return n, err
}
