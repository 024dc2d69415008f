package trace

import (
	"encoding/binary"
	"testing"

	"github.com/echo-uma/echo/internal/elftest"
)

func TestFindGNUBuildID(t *testing.T) {
	id := []byte{1, 2, 3, 4, 5}
	tests := []struct {
		name  string
		notes []byte
		align uint64
		want  string
	}{
		{"alone", elftest.Note("GNU", 3, id, 4), 4, "0102030405"},
		{"after another note", append(elftest.Note("GNU", 1, make([]byte, 16), 4), elftest.Note("GNU", 3, id, 4)...), 4, "0102030405"},
		{"8-byte aligned", append(elftest.Note("GNU", 5, make([]byte, 12), 8), elftest.Note("GNU", 3, id, 8)...), 8, "0102030405"},
		{"other owner", elftest.Note("Go", 3, id, 4), 4, ""},
		{"other type", elftest.Note("GNU", 4, id, 4), 4, ""},
		{"truncated", elftest.Note("GNU", 3, id, 4)[:18], 4, ""},
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
