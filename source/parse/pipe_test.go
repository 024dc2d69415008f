package parse

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// The dump's pipe is read in read(2) itself, not through Go's poller (dumpPipe says why): its
// read end blocks, neither end leaks into another process clang's parent starts, and it holds
// pipeSize where the system lets a pipe be that large.
func TestDumpPipeBlocks(t *testing.T) {
	r, w, err := dumpPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	// fcntl through Control: File.Fd would make the descriptor blocking itself.
	fcntl := func(f *os.File, cmd int) int {
		rc, err := f.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		v := -1
		rc.Control(func(fd uintptr) { v, _ = unix.FcntlInt(fd, cmd, 0) })
		return v
	}
	if fl := fcntl(r, unix.F_GETFL); fl < 0 || fl&unix.O_NONBLOCK != 0 {
		t.Errorf("the read end's flags are %#x: non-blocking, the reader would wait in the poller", fl)
	}
	for _, f := range []*os.File{r, w} {
		if fl := fcntl(f, unix.F_GETFD); fl < 0 || fl&unix.FD_CLOEXEC == 0 {
			t.Errorf("%s is inherited by the processes this one starts", f.Name())
		}
	}
	if size := fcntl(r, unix.F_GETPIPE_SZ); size < pipeSize && size < 64<<10 {
		t.Errorf("the pipe holds %d bytes, want %d", size, pipeSize)
	}
	if _, err := w.Write([]byte("dump")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	b := make([]byte, 16)
	n, _ := (&gatheringReader{r: r}).Read(b)
	if string(b[:n]) != "dump" {
		t.Errorf("read %q, want the dump", b[:n])
	}
}
