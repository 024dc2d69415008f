package export

import (
	"encoding/json"
	"testing"
)

func TestAppendString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", `"plain"`},
		{`/opt/my "app"/a\b`, `"/opt/my \"app\"/a\\b"`},
		{"tab\tnew\nline\rbell\x07", `"tab\tnew\nline\rbell\u0007"`},
		{"µs → ü", `"µs → ü"`},
		{"bad \xff utf8", `"bad \ufffd utf8"`},
		{"", `""`},
	}
	for _, tt := range tests {
		got := string(appendString(nil, tt.in))
		if got != tt.want {
			t.Errorf("appendString(%q) = %s, want %s", tt.in, got, tt.want)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Errorf("appendString(%q) = %s: not JSON: %v", tt.in, got, err)
		}
	}
}

func TestAppendMicros(t *testing.T) {
	tests := []struct {
		ns   int64
		want string
	}{
		{0, "0"}, {1, "0.001"}, {10, "0.01"}, {1500, "1.5"}, {2000, "2"}, {1_234_567, "1234.567"},
		{-7, "-0.007"}, {-2000, "-2"}, {1 << 62, "4611686018427387.904"},
	}
	for _, tt := range tests {
		if got := string(appendMicros(nil, tt.ns)); got != tt.want {
			t.Errorf("appendMicros(%d) = %s, want %s", tt.ns, got, tt.want)
		}
	}
}
