package planner

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// CheckExecutable fails unless the ELF file at path is the program the plan was made for:
// the same GNU build-id, or, when the plan's executable had none, a file without one of the
// same size. The path may differ (a copied or moved binary is the same program); the
// contents may not, since every site in the plan is an offset into them.
func (p *Plan) CheckExecutable(path string) error {
	want := p.Context.Executable
	if want.BuildID == "" && want.Size <= 0 {
		return errors.New("the plan does not identify its executable (no build-id or size): make a new plan with echoctl plan")
	}
	got, err := describeFile(path)
	if err != nil {
		return fmt.Errorf("checking %s against the plan: %w", path, err)
	}
	switch {
	case want.BuildID != "" && strings.EqualFold(got.BuildID, want.BuildID):
		return nil
	case want.BuildID == "" && got.BuildID == "" && got.Size == want.Size:
		return nil
	}
	wantID, gotID := abbreviate(want.BuildID, got.BuildID)
	return fmt.Errorf("plan is for %s (%s), not %s (%s)", want.Path, identity(wantID, want.Size),
		path, identity(gotID, got.Size))
}

// describeFile is the Module an ELF file would be in a plan.
func describeFile(path string) (Module, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Module{}, err
	}
	f, err := elf.Open(path)
	if err != nil {
		return Module{}, fmt.Errorf("not an ELF executable: %w", err)
	}
	defer f.Close()
	id, err := gnuBuildID(f)
	if err != nil {
		return Module{}, fmt.Errorf("reading its build-id: %w", err)
	}
	return Module{Path: path, BuildID: id, Size: st.Size()}, nil
}

// gnuBuildID returns the hex GNU build-id of an ELF file, or "" when it has none. It reads
// the note segments, which every linked file has; sections are only a fallback for objects
// without program headers. (The tracer has its own copy; planner stays free of its BPF
// dependencies.)
func gnuBuildID(f *elf.File) (string, error) {
	var blobs []io.ReadSeeker
	var aligns []uint64
	for _, p := range f.Progs {
		if p.Type == elf.PT_NOTE {
			blobs, aligns = append(blobs, p.Open()), append(aligns, p.Align)
		}
	}
	if len(f.Progs) == 0 {
		for _, s := range f.Sections {
			if s.Type == elf.SHT_NOTE {
				blobs, aligns = append(blobs, s.Open()), append(aligns, s.Addralign)
			}
		}
	}
	for i, blob := range blobs {
		notes, err := io.ReadAll(io.LimitReader(blob, 1<<20))
		if err != nil {
			return "", err
		}
		if id := findGNUBuildID(notes, f.ByteOrder, aligns[i]); id != "" {
			return id, nil
		}
	}
	return "", nil
}

// findGNUBuildID walks ELF notes (namesz, descsz, type, name, desc; each padded to the
// segment's alignment, 4 or 8) for the GNU build-id note, type NT_GNU_BUILD_ID (3).
func findGNUBuildID(notes []byte, order binary.ByteOrder, align uint64) string {
	const ntGNUBuildID = 3
	if align != 8 {
		align = 4
	}
	pad := func(n uint64) uint64 { return (n + align - 1) &^ (align - 1) }
	for len(notes) >= 12 {
		namesz, descsz := uint64(order.Uint32(notes)), uint64(order.Uint32(notes[4:]))
		typ := order.Uint32(notes[8:])
		body := notes[12:]
		descStart := pad(namesz)
		end := descStart + pad(descsz)
		if descStart+descsz > uint64(len(body)) {
			return "" // truncated: no note past here can be trusted
		}
		name := bytes.TrimRight(body[:namesz], "\x00")
		if typ == ntGNUBuildID && string(name) == "GNU" && descsz > 0 {
			return hex.EncodeToString(body[descStart : descStart+descsz])
		}
		if end >= uint64(len(body)) {
			return ""
		}
		notes = body[end:]
	}
	return ""
}

// abbreviate shortens two build-ids for a message, keeping enough to tell them apart.
func abbreviate(a, b string) (string, string) {
	const keep = 12
	if len(a) > keep && len(b) > keep && a[:keep] == b[:keep] {
		return a, b
	}
	short := func(s string) string {
		if len(s) > keep {
			return s[:keep] + "…"
		}
		return s
	}
	return short(a), short(b)
}

func identity(buildID string, size int64) string {
	if buildID != "" {
		return "build-id " + buildID
	}
	return fmt.Sprintf("no build-id, %d bytes", size)
}
