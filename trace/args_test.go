package trace

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// A command line that is not UTF-8 reads back byte for byte; one that is stays plain JSON,
// with no second copy.
func TestHeaderKeepsCommandBytes(t *testing.T) {
	for _, command := range [][]string{{"./app\xff", "--in", "da\xfe\xc3ta"}, {"./stream", "ünï"}} {
		h := testHeader()
		h.Command = command
		var buf bytes.Buffer
		w, err := NewWriter(&buf, h)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(Footer{Complete: true}); err != nil {
			t.Fatal(err)
		}
		r, err := NewReader(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Header().Command; !slices.Equal(got, command) || r.Header().CommandBytes != nil {
			t.Errorf("command %q read back as %q (bytes %q)", command, got, r.Header().CommandBytes)
		}
		if copied := strings.Contains(buf.String(), `"command_bytes"`); copied != (RawArgs(command) != nil) {
			t.Errorf("command %q: command_bytes written %v", command, copied)
		}
	}
	if raw, _ := json.Marshal(RawArgs([]string{"a"})); string(raw) != "null" {
		t.Errorf("RawArgs of UTF-8 = %s, want nothing", raw)
	}
}
