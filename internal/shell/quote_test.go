package shell

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
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
