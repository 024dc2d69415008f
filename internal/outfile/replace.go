package outfile

import (
	"io/fs"
	"path/filepath"

	"github.com/echo-uma/echo/internal/scratch"
)

// Replace makes path a regular file holding data, with permissions perm: written beside it,
// synced, then renamed over it, so that a reader sees the old file or the new one whole, and
// whatever path was (a link, a FIFO, a file being read) is replaced, never written through.
// It is for the files Echo owns (its caches, the plan directory, where a link planted by
// another user must not redirect the write); a user's files are written with Create or Edit,
// which write through links.
func Replace(path string, data []byte, perm fs.FileMode) error {
	// .NAME.PID-RANDOM.tmp, locked while this process writes it: one that a SIGKILL left
	// behind goes at the next write of NAME.
	tmp, err := scratch.File(filepath.Dir(path), "."+filepath.Base(path)+".", ".tmp")
	if err != nil {
		return failed(path, err)
	}
	// The File of Create and Edit, with path itself as the target: Commit syncs, sets perm and
	// renames over whatever path is.
	o := &File{w: tmp, f: tmp, path: path, tmp: tmp.Name(), mode: perm}
	if _, err := o.Write(data); err != nil {
		o.Abort()
		return failed(path, err)
	}
	return o.Commit()
}
