package planner

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/elftest"
	"github.com/echo-uma/echo/plan"
)

// writeELF writes a minimal 64-bit little-endian executable whose only segment is a PT_NOTE
// holding notes; debug/elf reads it as it reads a linked program.
func writeELF(t *testing.T, notes []byte) string {
	t.Helper()
	const ehsize, phentsize = 64, 56
	var b bytes.Buffer
	le := binary.LittleEndian
	b.Write([]byte{0x7f, 'E', 'L', 'F', 2 /* 64-bit */, 1 /* LE */, 1 /* version */, 0})
	b.Write(make([]byte, 8))
	binary.Write(&b, le, uint16(2))  // ET_EXEC
	binary.Write(&b, le, uint16(62)) // EM_X86_64
	binary.Write(&b, le, uint32(1))  // version
	binary.Write(&b, le, uint64(0))  // entry
	binary.Write(&b, le, uint64(ehsize))
	binary.Write(&b, le, uint64(0)) // no section headers
	binary.Write(&b, le, uint32(0)) // flags
	for _, v := range []uint16{ehsize, phentsize, 1, 64, 0, 0} {
		binary.Write(&b, le, v)
	}
	off := uint64(ehsize + phentsize)
	binary.Write(&b, le, uint32(4)) // PT_NOTE
	binary.Write(&b, le, uint32(4)) // PF_R
	for _, v := range []uint64{off, 0, 0, uint64(len(notes)), uint64(len(notes)), 4} {
		binary.Write(&b, le, v)
	}
	b.Write(notes)
	path := filepath.Join(t.TempDir(), "prog")
	if err := os.WriteFile(path, b.Bytes(), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCheckExecutable(t *testing.T) {
	id := []byte{0xab, 0x12, 0xcd, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x11, 0x22}
	other := append([]byte{0x99}, id[1:]...)
	abiTag := elftest.Note("GNU", 1, make([]byte, 16), 4) // NT_GNU_ABI_TAG, before the build-id
	withID := writeELF(t, append(abiTag, elftest.Note("GNU", 3, id, 4)...))
	withOther := writeELF(t, elftest.Note("GNU", 3, other, 4))
	withoutID := writeELF(t, abiTag)
	st, err := os.Stat(withoutID)
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "run.sh")
	os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755)

	tests := []struct {
		name string
		exe  plan.Module
		path string
		want string // "" for a match, or the error (a prefix of it, ending in …)
	}{
		{"same build-id", plan.Module{Path: "/opt/app/prog", BuildID: "ab12cd3456789abcdef01122", Size: 1}, withID, ""},
		{"same size, no build-id", plan.Module{Path: "/opt/app/prog", Size: st.Size()}, withoutID, ""},
		{"other build-id", plan.Module{Path: "/opt/app/prog", BuildID: "ab12cd3456789abcdef01122"}, withOther,
			"plan is for /opt/app/prog (build-id ab12cd345678…), not " + withOther + " (build-id 9912cd345678…)"},
		{"build-id gone", plan.Module{Path: "/a", BuildID: "ab12"}, withoutID,
			"plan is for /a (build-id ab12), not " + withoutID + " (no build-id, " + strconv.FormatInt(st.Size(), 10) + " bytes)"},
		{"build-id appeared", plan.Module{Path: "/a", Size: st.Size()}, withID,
			"plan is for /a (no build-id, " + strconv.FormatInt(st.Size(), 10) + " bytes), not " + withID + " (build-id ab12cd345678…)"},
		{"other size", plan.Module{Path: "/a", Size: 5}, withoutID,
			"plan is for /a (no build-id, 5 bytes), not " + withoutID + " (no build-id, " + strconv.FormatInt(st.Size(), 10) + " bytes)"},
		{"plan names no executable", plan.Module{}, withID, "the plan does not identify its executable"},
		{"missing file", plan.Module{Path: "/a", BuildID: "ab"}, "/nonexistent/prog", "checking /nonexistent/prog against the plan: stat"},
		{"not ELF", plan.Module{Path: "/a", BuildID: "ab"}, script, "checking " + script + " against the plan: not an ELF executable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckExecutable(tt.exe, tt.path)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("CheckExecutable: %v", err)
			case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
				t.Errorf("CheckExecutable: %v\nwant %q", err, tt.want)
			}
		})
	}
}
