package main

import "testing"

// The flag reads and shows sizes through internal/units (tested there); this holds the
// wiring: what Set takes, String gives back in the same form.
func TestByteSize(t *testing.T) {
	var b byteSize
	if err := b.Set("16MiB"); err != nil || uint64(b) != 16<<20 || b.String() != "16M" {
		t.Errorf("Set(16MiB) = %d (%s), %v; want 16M", b, b.String(), err)
	}
	if err := b.Set("12.5M"); err == nil {
		t.Errorf("Set(12.5M) accepted %d", b)
	}
}
