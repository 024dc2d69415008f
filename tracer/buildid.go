package tracer

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"io"
)

// buildID returns the hex GNU build-id of an ELF file, or "" when it has none. Sites are
// keyed by it, so they match across runs and rebuilt paths.
func buildID(path string) string {
	f, err := elf.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type != elf.PT_NOTE {
			continue
		}
		notes, err := io.ReadAll(io.LimitReader(p.Open(), 1<<16))
		if err != nil {
			continue
		}
		if id := findBuildID(notes, f.ByteOrder); id != "" {
			return id
		}
	}
	return ""
}

// findBuildID walks ELF notes (namesz, descsz, type, name, desc; 4-byte aligned) for the
// GNU build-id note (type 3).
func findBuildID(notes []byte, order binary.ByteOrder) string {
	const ntGNUBuildID = 3
	align := func(n uint32) uint32 { return (n + 3) &^ 3 }
	for len(notes) >= 12 {
		namesz, descsz, typ := order.Uint32(notes), order.Uint32(notes[4:]), order.Uint32(notes[8:])
		body := notes[12:]
		nameEnd, descEnd := align(namesz), align(namesz)+align(descsz)
		if uint64(descEnd) > uint64(len(body)) {
			return ""
		}
		name := bytes.TrimRight(body[:namesz], "\x00")
		if typ == ntGNUBuildID && string(name) == "GNU" {
			return hex.EncodeToString(body[nameEnd : nameEnd+descsz])
		}
		notes = body[descEnd:]
	}
	return ""
}
