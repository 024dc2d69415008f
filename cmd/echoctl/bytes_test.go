package main

import "testing"

func TestByteSize(t *testing.T) {
	good := map[string]uint64{"65536": 65536, "64K": 64 << 10, "64k": 64 << 10, "16M": 16 << 20,
		"16MiB": 16 << 20, "2G": 2 << 30, "0": 0}
	for in, want := range good {
		var b byteSize
		if err := b.Set(in); err != nil || uint64(b) != want {
			t.Errorf("Set(%q) = %d, %v; want %d", in, b, err, want)
		}
	}
	for _, in := range []string{"", "K", "-1", "1T", "12.5M", "99999999999999999999", "18446744073709551615K"} {
		var b byteSize
		if err := b.Set(in); err == nil {
			t.Errorf("Set(%q) accepted %d", in, b)
		}
	}
	for n, want := range map[uint64]string{64 << 10: "64K", 16 << 20: "16M", 1 << 30: "1G", 1536: "1536"} {
		if got := formatBytes(n); got != want {
			t.Errorf("formatBytes(%d) = %s, want %s", n, got, want)
		}
	}
}
