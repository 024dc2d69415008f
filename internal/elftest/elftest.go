// Package elftest builds the pieces of ELF files that tests of the ELF readers feed them.
package elftest

import "encoding/binary"

// Note is one little-endian ELF note: namesz, descsz, type, then name and desc, each padded
// to align.
func Note(name string, typ uint32, desc []byte, align int) []byte {
	pad := func(b []byte) []byte {
		for len(b)%align != 0 {
			b = append(b, 0)
		}
		return b
	}
	var b []byte
	b = binary.LittleEndian.AppendUint32(b, uint32(len(name)+1))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(desc)))
	b = binary.LittleEndian.AppendUint32(b, typ)
	b = append(b, pad(append([]byte(name), 0))...)
	return append(b, pad(append([]byte(nil), desc...))...)
}
