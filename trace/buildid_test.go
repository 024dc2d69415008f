package trace

import (
	"encoding/binary"
	"testing"
)

// note is one ELF note: namesz, descsz, type, then name and desc, each padded to align.
func note(name string, typ uint32, desc []byte, align int) []byte {
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

func TestFindGNUBuildID(t *testing.T) {
	id := []byte{1, 2, 3, 4, 5}
	tests := []struct {
		name  string
		notes []byte
		align uint64
		want  string
	}{
		{"alone", note("GNU", 3, id, 4), 4, "0102030405"},
		{"after another note", append(note("GNU", 1, make([]byte, 16), 4), note("GNU", 3, id, 4)...), 4, "0102030405"},
		{"8-byte aligned", append(note("GNU", 5, make([]byte, 12), 8), note("GNU", 3, id, 8)...), 8, "0102030405"},
		{"other owner", note("Go", 3, id, 4), 4, ""},
		{"other type", note("GNU", 4, id, 4), 4, ""},
		{"truncated", note("GNU", 3, id, 4)[:18], 4, ""},
		{"huge descsz", append(binary.LittleEndian.AppendUint32([]byte{4, 0, 0, 0}, 0xffffffff), 3, 0, 0, 0, 'G', 'N', 'U', 0), 4, ""},
		{"empty", nil, 4, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := findGNUBuildID(tt.notes, binary.LittleEndian, tt.align); got != tt.want {
				t.Errorf("findGNUBuildID = %q, want %q", got, tt.want)
			}
		})
	}
}
