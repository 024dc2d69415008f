package parse

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// A read that reaches past the cap gives the bytes before it, then the reader fails: what
// lies within the cap is the dump's (a batch reads ahead of the file it is in), and clang is
// stopped once.
func TestCappedReaderKeepsWhatIsWithin(t *testing.T) {
	kills := 0
	c := &cappedReader{r: bytes.NewReader([]byte("0123456789")), left: 6, kill: func() { kills++ }}
	buf := make([]byte, 64)
	n, err := c.Read(buf)
	if n != 6 || err != nil || string(buf[:n]) != "012345" {
		t.Fatalf("first read: %d bytes %q, %v; want the 6 within the cap", n, buf[:n], err)
	}
	if n, err := c.Read(buf); n != 0 || !errors.Is(err, errOutputLimit) {
		t.Errorf("read after the cap: %d bytes, %v; want errOutputLimit", n, err)
	}
	if !c.over || kills != 1 {
		t.Errorf("over %v, clang killed %d times; want over, once", c.over, kills)
	}
}

// A stream no longer than the cap reads whole.
func TestCappedReaderWithin(t *testing.T) {
	c := &cappedReader{r: bytes.NewReader([]byte("012345")), left: 6, kill: func() { t.Error("killed within the cap") }}
	b, err := io.ReadAll(c)
	if string(b) != "012345" || err != nil || c.over {
		t.Errorf("read %q, %v, over %v; want the whole stream", b, err, c.over)
	}
}
