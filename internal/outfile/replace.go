package outfile

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/echo-uma/echo/internal/scratch"
)

// Replace makes path a regular file holding data, with permissions perm: written beside it,
// synced, then renamed over it, so that a reader sees the old file or the new one whole, and
// whatever path was (a link, a FIFO, a file being read) is replaced, never written through.
// It is for the files Echo owns (its caches, the plan directory, where a link planted by
// another user must not redirect the write); a user's files are written with Create or Edit,
// which write through links. Errors are the system's: the caller says what it was writing.
func Replace(path string, data []byte, perm fs.FileMode) error {
	// .NAME.PID-RANDOM.tmp, locked while this process writes it: one that a SIGKILL left
	// behind goes at the next write of NAME.
	tmp, err := scratch.File(filepath.Dir(path), "."+filepath.Base(path)+".", ".tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // gone already once renamed
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm) // scratch.File makes 0600
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	return err
}
