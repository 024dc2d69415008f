package procfs

import (
	"reflect"
	"testing"
)

func TestParseCmdline(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"a.out\x00--n\x003\x00", []string{"a.out", "--n", "3"}},
		{"/opt/my cuda/app\x00a b\x00", []string{"/opt/my cuda/app", "a b"}},
		{"prog\x00\x00last\x00", []string{"prog", "", "last"}},
		{"", []string{}},
		{"noterminator", []string{"noterminator"}},
	}
	for _, c := range cases {
		if got := ParseCmdline([]byte(c.in)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseCmdline(%q) = %q; want %q", c.in, got, c.want)
		}
	}
}

func TestParseState(t *testing.T) {
	cases := []struct {
		in   string
		want byte
		err  bool
	}{
		{"42 (cat) S 1 42 42 0 -1", 'S', false},
		{"42 (my prog) R 1", 'R', false},
		{"42 (a) Z (b)) Z 1", 'Z', false},
		{"42 (x) ) T 1", 'T', false},
		{"42 (cut", 0, true},
		{"42 (cut)", 0, true},
	}
	for _, c := range cases {
		got, err := ParseState([]byte(c.in))
		if got != c.want || (err != nil) != c.err {
			t.Errorf("ParseState(%q) = %c, %v; want %c, error %v", c.in, got, err, c.want, c.err)
		}
	}
}
