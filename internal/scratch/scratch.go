// Package scratch makes echoctl's temporary directories and files so that none outlives the
// process that made it for long: its name carries the maker's pid, the maker holds a lock on
// it (flock) while it lives, and whoever makes another of the same kind first removes those
// whose maker is gone. A command removes its own on its way out, SIGINT, SIGTERM and SIGHUP
// included; a SIGKILL, a crash or a power cut leaves them behind, and the next echoctl that
// makes one cleans them up.
package scratch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// staleAge is how old a file or directory of ours must be to be taken for stale while the pid
// its name carries is alive, or when its name carries none (an older echoctl's): a maker holds
// its lock from a moment after the file is made, so only a young one is between the two, and
// a live pid this old is another process that reused the number.
const staleAge = time.Hour

// Dir makes a directory in the system's temporary directory, as os.MkdirTemp("", prefix+"*")
// does, named prefix+PID-RANDOM, after removing the stale ones of that prefix (Clean).
// remove removes it (and gives up its lock); call it on every way out.
func Dir(prefix string) (dir string, remove func(), err error) {
	parent := os.TempDir()
	cleanOnce(parent, prefix, "")
	for range 3 {
		dir, err := os.MkdirTemp(parent, prefix+strconv.Itoa(os.Getpid())+"-*")
		if err != nil {
			return "", nil, err
		}
		lock, err := lockPath(dir)
		if err != nil {
			os.RemoveAll(dir)
			if errors.Is(err, errGone) {
				continue // another echoctl took it for stale in the moment before the lock
			}
			return "", nil, err
		}
		return dir, func() {
			os.RemoveAll(dir)
			lock.Close()
		}, nil
	}
	return "", nil, fmt.Errorf("making a temporary directory in %s: it was removed as it was made, three times", parent)
}

// File makes a file in dir named prefix+PID-RANDOM+suffix, as os.CreateTemp does (mode 0600),
// after removing the stale ones of that prefix and suffix; the open file holds the lock, so
// closing it (after a rename, or with a remove) gives the name up.
func File(dir, prefix, suffix string) (*os.File, error) {
	cleanOnce(dir, prefix, suffix)
	for range 3 {
		f, err := os.CreateTemp(dir, prefix+strconv.Itoa(os.Getpid())+"-*"+suffix)
		if err != nil {
			return nil, err
		}
		err = lockFile(f, f.Name())
		if err == nil {
			return f, nil
		}
		f.Close()
		os.Remove(f.Name())
		if !errors.Is(err, errGone) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("making a temporary file in %s: it was removed as it was made, three times", dir)
}

var (
	cleanedMu sync.Mutex
	cleaned   = map[[3]string]bool{}
)

// cleanOnce cleans dir of stale prefix…suffix entries once per process: a calibration makes
// a directory per run, and the first run's look finds every one a dead echoctl left.
func cleanOnce(dir, prefix, suffix string) {
	key := [3]string{dir, prefix, suffix}
	cleanedMu.Lock()
	done := cleaned[key]
	cleaned[key] = true
	cleanedMu.Unlock()
	if !done {
		Clean(dir, prefix, suffix)
	}
}

// Clean removes the entries of dir named prefix…suffix that this user owns and whose maker is
// gone: nobody holds their lock, and the pid their name carries is no process, or they are
// older than staleAge. It returns the paths removed; what it cannot read or remove it leaves.
func Clean(dir, prefix, suffix string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, suffix) || len(name) < len(prefix)+len(suffix) {
			continue
		}
		path := filepath.Join(dir, name)
		if stale(path, strings.TrimSuffix(strings.TrimPrefix(name, prefix), suffix)) {
			if os.RemoveAll(path) == nil {
				removed = append(removed, path)
			}
		}
	}
	return removed
}

// stale tells whether path, whose name's middle part is middle (PID-RANDOM), is a leftover:
// held by nobody, of this user, not a symbolic link, and its maker gone. The lock is kept
// until the check is done, so that a maker cannot take it meanwhile (it then fails to, and
// makes another).
func stale(path, middle string) bool {
	st, err := os.Lstat(path)
	if err != nil || st.Mode()&fs.ModeSymlink != 0 || !(st.IsDir() || st.Mode().IsRegular()) {
		return false
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); !ok || int(sys.Uid) != os.Geteuid() {
		return false
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false // its maker lives
	}
	if pid, ok := pidOf(middle); ok && pid != os.Getpid() && syscall.Kill(pid, 0) == syscall.ESRCH {
		return true
	}
	return time.Since(st.ModTime()) > staleAge
}

// pidOf is the pid a name's middle part (PID-RANDOM) carries.
func pidOf(middle string) (int, bool) {
	digits, _, ok := strings.Cut(middle, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	return pid, err == nil && pid > 0
}

// errGone: the file was removed between its making and its lock.
var errGone = errors.New("removed before it was locked")

// lockPath opens and locks the directory at path, for as long as the returned file is open.
func lockPath(path string) (*os.File, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errGone
	}
	if err != nil {
		return nil, err
	}
	if err := lockFile(f, path); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// lockFile takes f's lock and checks that path still names f: a cleaner that took the file
// for stale in the moment before the lock removed it.
func lockFile(f *os.File, path string) error {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return errGone // a cleaner holds it while it removes it
	}
	held, err := f.Stat()
	if err != nil {
		return err
	}
	now, err := os.Lstat(path)
	if err != nil || !os.SameFile(held, now) {
		return errGone
	}
	return nil
}
