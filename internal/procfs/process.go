package procfs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
)

// ErrFormat is wrapped by the errors of a file that was read but whose text the parser did
// not expect: not a sign that the process is gone.
var ErrFormat = errors.New("unexpected format")

// Cmdline is the command line of process pid. A kernel thread or a zombie has none: an
// empty slice.
func Cmdline(pid int) ([]string, error) {
	b, err := os.ReadFile(Dir(pid) + "/cmdline")
	if err != nil {
		return nil, fmt.Errorf("reading the command line of process %d: %w", pid, err)
	}
	return ParseCmdline(b), nil
}

// ParseCmdline splits the NUL-separated arguments of a cmdline file; empty arguments in
// the middle are kept, as the program received them.
func ParseCmdline(b []byte) []string {
	b = bytes.TrimSuffix(b, []byte{0})
	if len(b) == 0 {
		return []string{}
	}
	return strings.Split(string(b), "\x00")
}

// Exe is the path of process pid's executable, and whether that file was unlinked or
// replaced since the process started it (the link then names a path that is not it).
func Exe(pid int) (path string, deleted bool, err error) {
	link, err := os.Readlink(ExePath(pid))
	if err != nil {
		return "", false, fmt.Errorf("reading the executable of process %d: %w", pid, err)
	}
	if strings.HasSuffix(link, deletedSuffix) {
		return strings.TrimSuffix(link, deletedSuffix), true, nil
	}
	return link, false, nil
}

// Cwd is process pid's working directory.
func Cwd(pid int) (string, error) {
	dir, err := os.Readlink(Dir(pid) + "/cwd")
	if err != nil {
		return "", fmt.Errorf("reading the working directory of process %d: %w", pid, err)
	}
	return dir, nil
}

// State is the one-letter state of process pid from /proc/PID/stat: R, S, D, Z (zombie),
// X (dead), T, t, I...
func State(pid int) (byte, error) {
	b, err := os.ReadFile(Dir(pid) + "/stat")
	if err != nil {
		return 0, fmt.Errorf("reading the state of process %d: %w", pid, err)
	}
	return ParseState(b)
}

// ParseState reads the state from the text of a stat file, "pid (comm) S ...". The command
// name may hold spaces and parentheses, so the state is looked for after the last ')'.
func ParseState(stat []byte) (byte, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) || stat[i+1] != ' ' {
		return 0, fmt.Errorf("parsing stat %q: %w: no state after the command name", stat, ErrFormat)
	}
	return stat[i+2], nil
}
