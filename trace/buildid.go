package trace

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"io"
)

// BuildID returns the hex GNU build-id of an ELF file, or "" when it has none: the identity
// of a module in a trace, a plan and the shim (shim/site.c reads the same note from the
// loaded image). It reads the note segments, which every linked file has; sections are only
// a fallback for objects without program headers.
func BuildID(f *elf.File) (string, error) {
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

// FileBuildID is BuildID of the ELF file at path.
func FileBuildID(path string) (string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return BuildID(f)
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
