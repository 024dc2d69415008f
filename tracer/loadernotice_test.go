package tracer

import (
	"bytes"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/echo-uma/echo/internal/testenv"
)

// In launch mode the loader's notice stops the process until the tracer has read its
// libraries and sends SIGCONT. A notice the full ring buffer has no room for never reaches
// the tracer, so the process must not stop for it: stopped, it would wait forever, and a
// launched trace with it. Here nothing reads the one-page ring; the test answers every stop
// as the tracer would, and counts them: a few dozen notices fit in the ring, and the 300
// opens and closes make 1200.
func TestLostLoaderNoticeDoesNotStop(t *testing.T) {
	testenv.RequireRoot(t)
	const opens = 300
	tr, err := New(Config{StopForMaps: true, RingBytes: uint32(os.Getpagesize())}, slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()

	exe := testenv.Built(t, "tests/dlopen_loop")
	cmd := exec.Command(exe, testenv.Built(t, "tests/libsites.so"), strconv.Itoa(opens))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, stdout := testenv.StartPiped(t, cmd)
	defer cmd.Process.Kill()
	if line, err := stdout.ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("dlopen_loop said %q, %v", line, err)
	}
	pid := cmd.Process.Pid
	if err := tr.AddTarget(pid); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Probe(interpreter(exe), kindLoader, pid); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	if _, err := stdin.Write([]byte("go\n")); err != nil {
		t.Fatal(err)
	}

	stops := 0
	deadline := time.After(2 * time.Minute)
	for done := false; !done; {
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("dlopen_loop: %v: %s", err, stderr.String())
			}
			done = true
		case <-deadline:
			t.Fatalf("dlopen_loop still running after 2 minutes, %d stops answered", stops)
		case <-time.After(100 * time.Microsecond):
			if stopped(pid) {
				stops++
				_ = unix.Kill(pid, unix.SIGCONT)
			}
		}
	}
	lost, err := tr.Lost()
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, l := range lost {
		n += l
	}
	t.Logf("%d stops answered, %d notices lost", stops, n)
	if n == 0 {
		t.Fatal("no notice lost: the ring never filled, so this shows nothing")
	}
	if stops >= opens {
		t.Errorf("the process stopped %d times for %d opens and closes with the ring full; want only for the notices in the ring", stops, opens)
	}
}

// stopped reports whether process pid is stopped by a signal (state T in /proc/PID/stat).
func stopped(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false // exited since
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] == "T"
}
