package runner

import (
	"errors"
	"strings"
	"sync"
)

// Tail keeps the last bytes written to it: a program's stderr, kept to explain its failure
// without holding all of it.
type Tail struct {
	mu   sync.Mutex
	max  int
	data []byte
	cut  bool // bytes were dropped: the first line kept may be a part of one
}

// NewTail keeps up to max bytes.
func NewTail(max int) *Tail { return &Tail{max: max} }

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.data = append(t.data, p...)
	if over := len(t.data) - t.max; over > 0 {
		t.data = append(t.data[:0], t.data[over:]...)
		t.cut = true
	}
	return len(p), nil
}

// Explain is msg followed by the last lines the program wrote, the error that says why a
// step stopped when the program failed.
func (t *Tail) Explain(msg string) error {
	if lines := t.Lines(10); lines != "" {
		msg += "; the end of its stderr:\n" + lines
	}
	return errors.New(msg)
}

// Lines is the last n complete lines kept, indented for a message; "" when there are none.
func (t *Tail) Lines(n int) string {
	t.mu.Lock()
	text, cut := strings.TrimRight(string(t.data), "\n"), t.cut
	t.mu.Unlock()
	lines := strings.Split(text, "\n")
	if cut && len(lines) > 1 {
		lines = lines[1:]
	}
	if text == "" {
		return ""
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "    " + strings.Join(lines, "\n    ")
}
