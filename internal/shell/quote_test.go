package shell

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// What Join writes, sh reads back as the same arguments.
func TestJoinRoundTrips(t *testing.T) {
	args := []string{"/opt/my app/bin", "--size", "64M", "", "it's", `a"b\c`, "$HOME", "*", "x;y", "tab\there", "ünï"}
	out, err := exec.Command("sh", "-c", `for a in `+Join(args)+`; do printf '%s\0' "$a"; done`).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if !slices.Equal(got, args) {
		t.Errorf("sh read %q back as %q", Join(args), got)
	}
	if Quote("--iters") != "--iters" || Quote("a b") != "'a b'" {
		t.Errorf("Quote: %s, %s: want plain words bare", Quote("--iters"), Quote("a b"))
	}
}

// An argument with a terminal's control characters or bytes that are not UTF-8 comes out as
// printable text, which bash reads back as the same bytes: the escape sequence does not reach
// the terminal, and the suggested command names the real file.
func TestQuoteEscapesControlsAndBytes(t *testing.T) {
	args := []string{"\x1b[31mred\x1b[0m", "app\xff\xfe.bin", "bell\a", "line\nbreak", "c1\u009b2J", "del\x7f",
		`it's \ back`, "tab\there\x01", "ünï\xc3"}
	joined := Join(args)
	for i := 0; i < len(joined); i++ {
		if c := joined[i]; c < 0x20 || c == 0x7f {
			t.Fatalf("Join wrote control byte %#x: %q", c, joined)
		}
	}
	if !utf8.ValidString(joined) || strings.Contains(joined, "\u009b") {
		t.Fatalf("Join wrote bytes a terminal would misread: %q", joined)
	}
	out, err := exec.Command("bash", "-c", `for a in `+joined+`; do printf '%s\0' "$a"; done`).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if !slices.Equal(got, args) {
		t.Errorf("bash read %s back as %q, want %q", joined, got, args)
	}
	if got := Quote("\x1b[2J"); got != `$'\x1b[2J'` {
		t.Errorf("Quote(ESC [2J) = %s", got)
	}
}
