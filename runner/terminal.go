package runner

import (
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// terminal is the controlling terminal of an `echoctl run` in its foreground: the program
// gets a process group of its own and the terminal's foreground with it, as a shell gives a
// job. The terminal's keys (Ctrl-C, Ctrl-\, Ctrl-Z) then reach the program alone, so every
// signal echoctl receives was sent to echoctl (kill, a service manager) and is passed on:
// none is dropped as "the terminal sent it to the program already", and none arrives twice.
type terminal struct {
	f    *os.File
	self int // echoctl's process group
}

// foregroundTerminal is the controlling terminal when echoctl's process group is in its
// foreground; nil otherwise (no terminal, or a background job, whose program stays in
// echoctl's group as before).
func foregroundTerminal() *terminal {
	f, err := os.OpenFile("/dev/tty", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return nil
	}
	self := unix.Getpgrp()
	if fg, err := unix.IoctlGetInt(int(f.Fd()), unix.TIOCGPGRP); err != nil || fg != self {
		f.Close()
		return nil
	}
	return &terminal{f: f, self: self}
}

// hand gives the terminal's foreground to the program's group (cmd's SysProcAttr), which
// the child does before it execs.
func (t *terminal) hand(attr *syscall.SysProcAttr) {
	attr.Setpgid, attr.Pgid = true, 0
	attr.Foreground, attr.Ctty = true, int(t.f.Fd())
}

// foreground is the terminal's foreground process group.
func (t *terminal) foreground() int {
	fg, _ := unix.IoctlGetInt(int(t.f.Fd()), unix.TIOCGPGRP)
	return fg
}

// give makes pgrp the terminal's foreground group. echoctl may be in a background group by
// then, where the kernel would stop it with SIGTTOU for asking.
func (t *terminal) give(pgrp int) {
	signal.Ignore(syscall.SIGTTOU)
	defer signal.Reset(syscall.SIGTTOU)
	_ = unix.IoctlSetPointerInt(int(t.f.Fd()), unix.TIOCSPGRP, pgrp)
}

// stopped follows a program that Ctrl-Z stopped, as a shell expects of a job: echoctl takes
// the terminal back and stops its own group (the job the shell knows), and once continued
// (fg, bg), continues the program, with the terminal again if the job got it back (fg).
func (t *terminal) stopped(pid int) {
	if t.foreground() == pid {
		t.give(t.self)
	}
	_ = unix.Kill(-t.self, unix.SIGTSTP) // echoctl stops here until the shell continues it
	if t.foreground() == t.self {
		t.give(pid)
	}
	_ = unix.Kill(-pid, unix.SIGCONT)
}

// done takes the terminal back once the program has ended, unless it is no longer the
// program's (a shell that put the job in the background took it).
func (t *terminal) done(pid int) {
	if t.foreground() == pid {
		t.give(t.self)
	}
	t.f.Close()
}

// childStopped tells, without waiting, whether the child pid has stopped (and takes that
// news, so it is told once per stop).
func childStopped(pid int) bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_PID, pid, &info, unix.WSTOPPED|unix.WNOHANG, nil)
	return err == nil && info.Signo == int32(unix.SIGCHLD)
}
