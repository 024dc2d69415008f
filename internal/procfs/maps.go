package procfs

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Mapping is one line of /proc/PID/maps.
type Mapping struct {
	Start, End uint64
	Perms      string // "r-xp": read, write, execute, private or shared
	Offset     uint64 // in the mapped file
	Dev        string // "major:minor" of the file's device, in hex
	Inode      uint64 // 0 for anonymous memory
	// Path is the file's path as the process sees it, which may hold spaces; or a special
	// name ("[heap]", "[vdso]", "[anon:name]"); empty for anonymous memory.
	Path    string
	Deleted bool // the file was unlinked after it was mapped: Path no longer names it
}

// Exec tells whether code runs from the mapping.
func (m Mapping) Exec() bool { return strings.Contains(m.Perms, "x") }

// File tells whether the mapping is backed by a file that had a path.
func (m Mapping) File() bool { return m.Inode != 0 && strings.HasPrefix(m.Path, "/") }

// Maps reads the mappings of process pid.
func Maps(pid int) ([]Mapping, error) {
	f, err := os.Open(Dir(pid) + "/maps")
	if err != nil {
		return nil, fmt.Errorf("opening the memory map of process %d: %w", pid, err)
	}
	defer f.Close()
	maps, err := ParseMaps(f)
	if err != nil {
		return nil, fmt.Errorf("reading the memory map of process %d: %w", pid, err)
	}
	return maps, nil
}

// ParseMaps parses the text of a maps file. A line it cannot read is skipped rather than
// failing the rest: one odd mapping must not hide the libraries after it.
func ParseMaps(r io.Reader) ([]Mapping, error) {
	var maps []Mapping
	sc := bufio.NewScanner(r)
	// A path may be up to PATH_MAX (4096) bytes, escaped up to four times that.
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if m, err := ParseMapsLine(sc.Text()); err == nil {
			maps = append(maps, m)
		}
	}
	return maps, sc.Err()
}

// deletedSuffix is what d_path appends to the path of a file unlinked since it was opened.
const deletedSuffix = " (deleted)"

// ParseMapsLine parses "start-end perms offset dev inode   path". The kernel prints five
// fields, then pads with spaces to a column and prints the path to the end of the line, so
// the path is everything after the whitespace that follows the inode: it may hold spaces
// (also several in a row, or at its end), and newlines in it come escaped as \012.
func ParseMapsLine(line string) (Mapping, error) {
	var m Mapping
	rest := line
	var f [5]string
	for i := range f {
		rest = strings.TrimLeft(rest, " \t")
		end := strings.IndexAny(rest, " \t")
		if end < 0 {
			end = len(rest)
		}
		f[i], rest = rest[:end], rest[end:]
		if f[i] == "" {
			return Mapping{}, fmt.Errorf("parsing maps line %q: %w: %d fields before the path, want 5", line, ErrFormat, i)
		}
	}
	lo, hi, ok := strings.Cut(f[0], "-")
	if !ok {
		return Mapping{}, fmt.Errorf("parsing maps line %q: %w: address range %q has no '-'", line, ErrFormat, f[0])
	}
	var err [4]error
	m.Start, err[0] = strconv.ParseUint(lo, 16, 64)
	m.End, err[1] = strconv.ParseUint(hi, 16, 64)
	m.Offset, err[2] = strconv.ParseUint(f[2], 16, 64)
	m.Inode, err[3] = strconv.ParseUint(f[4], 10, 64)
	for _, e := range err {
		if e != nil {
			return Mapping{}, fmt.Errorf("parsing maps line %q: %w: %w", line, ErrFormat, e)
		}
	}
	if !strings.Contains(f[3], ":") {
		return Mapping{}, fmt.Errorf("parsing maps line %q: %w: device %q has no ':'", line, ErrFormat, f[3])
	}
	m.Perms, m.Dev = f[1], f[3]
	m.Path = strings.TrimLeft(rest, " \t")
	if m.Inode != 0 && strings.HasSuffix(m.Path, deletedSuffix) {
		m.Path, m.Deleted = strings.TrimSuffix(m.Path, deletedSuffix), true
	}
	// seq_file_path escapes only '\n', as octal; a backslash itself is not escaped.
	m.Path = strings.ReplaceAll(m.Path, `\012`, "\n")
	return m, nil
}
