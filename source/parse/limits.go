package parse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/echo-uma/echo/internal/embedshim"
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
	// Output is how much of clang's JSON dump of one file is read.
	Output int64
	// Nodes is how many AST nodes of the file and its own headers the reader keeps: what
	// bounds the reader's memory when a small file includes a huge header of its own.
	Nodes int
}

// The defaults: FileSize is twice the largest translation unit in Rodinia, cuda-samples and
// HeCBench (sobol_primitives, 1 MB of generated table); a clang run on such a file takes
// seconds and a few hundred MB; the dump of a file with thrust's headers is a few hundred MB.
// Output is not lower because HeCBench's largest dumps of files that are read whole are
// 2.7 GB (sw4ck's curvilinear4sg.cu) and 3.1 GB (bm3d's main.cu, with CImg.h), most of it
// clang's indentation; gerbil's Application.cpp and s3d's S3D.cu go past it (issue 40).
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
	dumps   int // how many files' dumps the process writes
	limits  Limits
	preload string          // Options.Preload
	ctx     context.Context // the caller's: its end is an interrupt, not a limit
	timed   context.Context // ends at the time limit too
	cancel  context.CancelFunc
	dump    *cappedReader
	out     *os.File // the dump's pipe, closed by exceeded
	started time.Time
}

// newClangRun starts the time limit of one clang run on file, or on a batch of dumps files
// that begins with file.
func newClangRun(ctx context.Context, file string, dumps int, o Options) *clangRun {
	timed, cancel := context.WithTimeout(ctx, o.Limits.time())
	return &clangRun{file: file, dumps: dumps, limits: o.Limits, preload: o.Preload, ctx: ctx, timed: timed, cancel: cancel}
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
	cmd.Env = embedshim.Preloaded(os.Environ(), r.preload)
	cmd.Stderr = stderr
	out, w, err := dumpPipe()
	if err == nil {
		cmd.Stdout = w
		if err = cmd.Start(); err != nil {
			out.Close()
			err = fmt.Errorf("starting clang: %w", err)
		}
		w.Close()
	}
	if err != nil {
		r.cancel()
		return nil, nil, err
	}
	r.out = out
	return cmd, r.start(cmd, &gatheringReader{r: out}), nil
}

// start bounds the started clang's address space and wraps its output in the output limit
// of all its files together, what is read after the last one included. The reader holds each
// file's dump to the limit (readTU): the output's is only what bounds reading what comes after
// the last dump. The limit is set on the running process (prlimit(2)), a moment after exec:
// clang has not yet read its input then, and Go cannot set a child's limits before exec.
func (r *clangRun) start(cmd *exec.Cmd, dump io.Reader) io.Reader {
	r.started = time.Now()
	lim := unix.Rlimit{Cur: r.limits.memory(), Max: r.limits.memory()}
	_ = unix.Prlimit(cmd.Process.Pid, unix.RLIMIT_AS, &lim, nil)
	left := int64(math.MaxInt64)
	if per := r.limits.output() + dumpSlack; per > 0 && per <= left/int64(max(r.dumps, 1)) {
		left = per * int64(max(r.dumps, 1))
	}
	r.dump = &cappedReader{r: dump, left: left, kill: func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}}
	return r.dump
}

// dumpSlack is what clang writes after a dump (its newline), allowed for each file, so that a
// dump just within the limit is not cut by the output's.
const dumpSlack = 4 << 10

// exceeded is the LimitError of a run that went past a limit, nil for one that did not.
// Called after Wait, with clang's standard error.
func (r *clangRun) exceeded(waitErr, readErr error, stderr []byte) error {
	defer r.cancel()
	if r.out != nil {
		r.out.Close()
	}
	switch {
	case r.ctx.Err() != nil:
		return nil // interrupted: the caller's to say
	case r.fileOver(r.file, readErr) != nil:
		return r.fileOver(r.file, readErr)
	case r.dump != nil && r.dump.over:
		return r.outputOver(r.file)
	case errors.Is(r.timed.Err(), context.DeadlineExceeded):
		return &LimitError{File: r.file, Why: fmt.Sprintf("clang ran past %s (an #include of a FIFO or a device?): give --file-timeout more",
			r.limits.time())}
	case waitErr != nil && outOfMemory(stderr):
		return &LimitError{File: r.file, Why: fmt.Sprintf("clang ran out of its %s of memory",
			units.Bytes(r.limits.memory()))}
	}
	return nil
}

// fileOver is the LimitError of file, whose dump the reader stopped reading with readErr, when
// that dump went past the limit of its own (nodes or output); nil for another error.
func (r *clangRun) fileOver(file string, readErr error) *LimitError {
	switch {
	case errors.Is(readErr, errNodeLimit):
		return &LimitError{File: file, Why: fmt.Sprintf("more than %d AST nodes in the file and its own headers (generated code?): skipped to bound memory",
			r.limits.nodes())}
	case errors.Is(readErr, errOutputLimit):
		return r.outputOver(file)
	}
	return nil
}

func (r *clangRun) outputOver(file string) *LimitError {
	return &LimitError{File: file, Why: fmt.Sprintf("clang's AST of it is larger than %s (generated code?): skipped to bound time and memory",
		units.Bytes(uint64(r.limits.output())))}
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

// stopIfOver kills clang when the reader gave up past a file's limit: what is left of the dump
// is drained, and clang would write all of it.
func (r *clangRun) stopIfOver(readErr error) {
	if r.fileOver(r.file, readErr) != nil {
		r.dump.kill()
	}
}

// cappedReader reads at most left bytes; past them it kills clang (so it stops writing) and
// fails. A read that reaches past them still gives the bytes before: the file being read
// then may be whole within them, and a batch's reader reads ahead of the file it is in (its
// next dumps already in the pipe), so failing that read would blame a file that is not over.
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
		if n = int(c.left); n == 0 {
			return 0, errOutputLimit
		}
		err = nil
	}
	c.left -= int64(n)
	return n, err
}
