package trace

import (
	"errors"
	"fmt"
)

// ErrNotTrace is returned by NewReader for a file that does not start with Magic.
var ErrNotTrace = errors.New("not an Echo trace (bad magic)")

// CorruptError says where and why a trace stopped being readable: cut short (the tracer was
// killed, the disk filled) or damaged. Every record before Offset was returned.
type CorruptError struct {
	Offset int64  // byte offset of the record or field that could not be read
	Reason string // what was wrong there
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("trace corrupt at byte %d: %s", e.Offset, e.Reason)
}

// VersionError is returned by NewReader for a trace written in a newer format.
type VersionError struct {
	Version uint32 // the file's format version
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("trace format version %d is newer than this echoctl understands (%d)",
		e.Version, Version)
}
