package parse

import (
	"fmt"

	"github.com/echo-uma/echo/internal/infile"
	"github.com/echo-uma/echo/internal/units"
)

// Sources, the headers a command line names and compile databases are read only when they are
// regular files: a FIFO, a device (/dev/zero) or a link to one would block clang or echoctl in
// open(2) or read(2) where no signal echoctl handles reaches it, or never end. infile opens
// without blocking and checks what it opened.

// checkSource fails for a file that is not a regular file or is larger than the limit, before
// clang is started on it.
func checkSource(path string, l Limits) error {
	f, err := infile.Open(path)
	if err != nil {
		return fmt.Errorf("parsing %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("parsing %s: %w", path, err)
	}
	if st.Size() > l.fileSize() {
		return tooLarge(path, st.Size(), l.fileSize())
	}
	return nil
}

// readSource reads a regular file of at most the limit's size.
func ReadSource(path string, l Limits) ([]byte, error) {
	f, err := infile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	b, err := infile.ReadAll(f, l.fileSize()+1)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if int64(len(b)) > l.fileSize() {
		st, _ := f.Stat()
		return nil, tooLarge(path, max(st.Size(), int64(len(b))), l.fileSize())
	}
	return b, nil
}

// readRegular reads a regular file of at most limit bytes (a compile database), failing past it.
func readRegular(path string, limit int64) ([]byte, error) {
	f, err := infile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := infile.ReadAll(f, limit+1)
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("larger than %s: not a compile database echoctl reads", units.Bytes(uint64(limit)))
	}
	return b, nil
}
