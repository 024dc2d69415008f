package plandir

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/echo-uma/echo/internal/outfile"
)

// maxPlan bounds a plan read from the directory, as plan.Read does.
const maxPlan = 64 << 20

// Trusted refuses a plan directory the shim refuses: one that belongs to another user than
// root or this one, or that others may write into (unless sticky, where nobody may replace
// a file he does not own), since whoever can put a plan there chooses what a program runs.
func Trusted(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("reading the plan directory: %w", err)
	}
	if why := untrusted(st); why != "" {
		return fmt.Errorf("the plan directory %s is not to be trusted: %s; another user could put a plan there "+
			"(chmod go-w it, or keep it root's)", dir, why)
	}
	return nil
}

// untrusted says why a file or directory of this owner and mode may not name what programs
// run, or "".
func untrusted(fi os.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !ok:
		return "its owner cannot be told"
	case st.Uid != 0 && int(st.Uid) != os.Geteuid():
		return fmt.Sprintf("it belongs to uid %d, neither root nor this user", st.Uid)
	case fi.Mode().Perm()&0o022 != 0 && !(fi.IsDir() && fi.Mode()&os.ModeSticky != 0):
		return fmt.Sprintf("it is writable by others (%v)", fi.Mode().Perm())
	}
	return ""
}

// readTrusted reads a file of the directory as the shim does: not through a symbolic link,
// without waiting for a FIFO's writer (os.ReadFile would block there, and a signal then
// could not end echoctl), and only a regular file root or this user owns that others cannot
// write.
func readTrusted(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, errors.New("a symbolic link, which the shim does not follow in a plan directory: put the file itself there")
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%v), which the shim skips: remove it", st.Mode().Type())
	}
	if why := untrusted(st); why != "" {
		return nil, fmt.Errorf("the shim skips it: %s; echoctl plans add writes it as it should be", why)
	}
	return io.ReadAll(io.LimitReader(f, maxPlan))
}

// replace makes path a regular file holding data, readable by the fleet's programs (which run
// as other users): whatever path was (a link, a FIFO, a file being read) is replaced, never
// written through.
func replace(path string, data []byte) error { return outfile.Replace(path, data, 0o644) }
