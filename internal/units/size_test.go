package units

import "testing"

func TestParseSize(t *testing.T) {
	good := map[string]uint64{"65536": 65536, "64K": 64 << 10, "64k": 64 << 10, "16M": 16 << 20,
		"16MiB": 16 << 20, "2G": 2 << 30, " 8 KiB ": 8 << 10, "0": 0}
	for in, want := range good {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "K", "-1", "1T", "12.5M", "99999999999999999999", "18446744073709551615K"} {
		if got, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted %d", in, got)
		}
	}
}

// Size writes what ParseSize reads back, exactly.
func TestSizeRoundTrips(t *testing.T) {
	for n, want := range map[uint64]string{64 << 10: "64K", 16 << 20: "16M", 1 << 30: "1G", 1536: "1536", 0: "0", 3 << 30: "3G"} {
		got := Size(n)
		if got != want {
			t.Errorf("Size(%d) = %s, want %s", n, got, want)
		}
		if back, err := ParseSize(got); err != nil || back != n {
			t.Errorf("ParseSize(Size(%d)) = %d, %v", n, back, err)
		}
	}
}
