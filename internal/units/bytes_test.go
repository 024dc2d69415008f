package units

import "testing"

func TestBytes(t *testing.T) {
	cases := []struct {
		n    uint64
		want string
	}{
		{0, "0 B"}, {1, "1 B"}, {1023, "1023 B"}, {1024, "1.0 KiB"}, {1536, "1.5 KiB"},
		{6349, "6.2 KiB"}, {4 << 20, "4.0 MiB"}, {99 << 20, "99.0 MiB"},
		{100<<20 - 1, "100 MiB"}, // 99.99…: one decimal would read 100.0, five digits
		{512 << 10, "512 KiB"}, {1000 << 20, "1000 MiB"},
		{1<<20 - 1, "1.0 MiB"}, // 1023.999 KiB would round to 1024 KiB
		{3 << 29, "1.5 GiB"}, {1 << 40, "1.0 TiB"}, {^uint64(0), "16.0 EiB"},
	}
	for _, c := range cases {
		if got := Bytes(c.n); got != c.want {
			t.Errorf("Bytes(%d) = %q, want %q", c.n, got, c.want)
		}
		if got := string(AppendBytes([]byte("x "), c.n)); got != "x "+c.want {
			t.Errorf("AppendBytes(x, %d) = %q, want %q", c.n, got, "x "+c.want)
		}
	}
}

func TestRate(t *testing.T) {
	cases := []struct {
		v    float64
		want string
	}{
		{0, "0 B/s"}, {512, "512 B/s"}, {1023.4, "1023 B/s"}, {1023.6, "1.0 KiB/s"},
		{12.34 * (1 << 20), "12.3 MiB/s"}, {1023 * (1 << 30), "1023 GiB/s"}, {-2048, "-2.0 KiB/s"},
	}
	for _, c := range cases {
		got := Rate(c.v)
		if got != c.want {
			t.Errorf("Rate(%v) = %q, want %q", c.v, got, c.want)
		}
		if len(got) > 10 && c.v >= 0 {
			t.Errorf("Rate(%v) = %q: wider than the 10 columns a table gives it", c.v, got)
		}
	}
}

func TestAppendBytesDoesNotAllocate(t *testing.T) {
	buf := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() { buf = AppendBytes(buf[:0], 3<<29) }); n != 0 {
		t.Errorf("AppendBytes allocates %v times per call", n)
	}
}
