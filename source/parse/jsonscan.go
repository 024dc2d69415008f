package parse

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner is a JSON tokenizer over a stream, written for clang's dumps: tens of megabytes of
// mostly skipped text, where encoding/json's Decoder.Token (an allocation per token) spends
// most of a second. It reads the stream into a buffer of its own and walks it byte by byte (a
// bufio.Reader's calls per byte were most of the reader's time: clang's indentation is most
// of the bytes, three quarters of HeCBench's largest dumps), skips an indentation eight bytes
// at a time, returns strings where they lie in its buffer (a copy only for one with an escape
// or cut by the buffer's end), and skips values without building them. Every error carries
// the byte offset.
type scanner struct {
	r    io.Reader
	data []byte // what was read; data[pos:] is not consumed yet
	pos  int
	base int64  // the offset of data[0] in the stream
	err  error  // the error the reader gave, once data is consumed
	buf  []byte // where a string that needs copying is read to
	// end is the stream offset past which the dump being read is over its limit (limitNext);
	// 0: no limit.
	end int64
}

// maxDepth bounds nesting so hostile input cannot grow the stack without limit; clang's
// deepest dumps (long chains of operators) stay far below it.
const maxDepth = 10000

func newScanner(r io.Reader) *scanner {
	return &scanner{r: r, data: make([]byte, 0, 1<<18)}
}

func (s *scanner) errorf(format string, args ...any) error {
	return fmt.Errorf("reading clang's AST at byte %d: %s", s.base+int64(s.pos), fmt.Sprintf(format, args...))
}

// limitNext bounds the dump that starts at the next byte to max bytes (0: no bound): one
// dump's, not the stream's, so that each file of a batch has the limit it has alone.
func (s *scanner) limitNext(max int64) {
	s.end = 0
	if max > 0 {
		s.end = s.base + int64(s.pos) + max
	}
}

// pastLimit is errOutputLimit once more of the dump than limitNext's bound was consumed.
func (s *scanner) pastLimit() error {
	if s.end > 0 && s.base+int64(s.pos) > s.end {
		return errOutputLimit
	}
	return nil
}

// fill reads more of the stream once data is consumed; the error is the reader's, when it
// has nothing more, or errOutputLimit once the dump consumed is past its bound.
func (s *scanner) fill() error {
	for s.pos >= len(s.data) {
		if err := s.pastLimit(); err != nil {
			return err
		}
		if s.err != nil {
			return s.err
		}
		s.base += int64(len(s.data))
		n, err := s.r.Read(s.data[:cap(s.data)])
		s.data, s.pos, s.err = s.data[:n], 0, err
	}
	return nil
}

// readError is the error of a read past what the stream gave.
func (s *scanner) readError(err error) error {
	if err == io.EOF {
		return s.errorf("unexpected end of input")
	}
	return fmt.Errorf("reading clang's AST: %w", err)
}

func (s *scanner) readByte() (byte, error) {
	if err := s.fill(); err != nil {
		return 0, s.readError(err)
	}
	c := s.data[s.pos]
	s.pos++
	return c, nil
}

// peek returns the next byte that is not white space, without consuming it. clang indents
// its dump, so white space is most of the bytes.
func (s *scanner) peek() (byte, error) {
	for {
		for s.pos < len(s.data) {
			switch c := s.data[s.pos]; c {
			case ' ', '\n', '\t', '\r':
				s.pos++
				// An indentation: eight bytes at a time, up to the first that is not a space.
				for s.pos+8 <= len(s.data) {
					x := binary.LittleEndian.Uint64(s.data[s.pos:]) ^ eightSpaces
					if x != 0 {
						s.pos += bits.TrailingZeros64(x) / 8
						break
					}
					s.pos += 8
				}
			default:
				return c, nil
			}
		}
		if err := s.fill(); err != nil {
			return 0, s.readError(err)
		}
	}
}

const eightSpaces = 0x2020202020202020

// expect consumes the next non-space byte, which must be c.
func (s *scanner) expect(c byte) error {
	got, err := s.peek()
	if err != nil {
		return err
	}
	s.pos++
	if got != c {
		return s.errorf("expected %q, found %q", c, got)
	}
	return nil
}

// more reports whether an object or array goes on after an element: it consumes a ',' and
// returns true, or consumes the closing byte and returns false.
func (s *scanner) more(end byte) (bool, error) {
	c, err := s.peek()
	if err != nil {
		return false, err
	}
	s.pos++
	switch c {
	case ',':
		return true, nil
	case end:
		return false, nil
	}
	return false, s.errorf("expected ',' or %q, found %q", end, c)
}

// empty consumes the closing byte of an object or array that has no elements, if it is next.
func (s *scanner) empty(end byte) (bool, error) {
	c, err := s.peek()
	if err != nil {
		return false, err
	}
	if c == end {
		s.pos++
		return true, nil
	}
	return false, nil
}

// str reads a string, decoding escapes; the bytes are valid until the next read. Most of a
// dump's strings have no escape and end in the buffered data: they are given where they lie,
// the others copied into s.buf.
func (s *scanner) str() ([]byte, error) {
	if err := s.expect('"'); err != nil {
		return nil, err
	}
	if b, ok := s.plainString(); ok {
		return b, nil
	}
	s.buf = s.buf[:0]
	if err := s.rawString(); err != nil {
		return nil, err
	}
	if bytes.IndexByte(s.buf, '\\') < 0 {
		return s.buf, nil
	}
	return s.unescape()
}

// plainString consumes the rest of a string whose opening quote was read and gives it where it
// lies, when it ends in the buffered data and has no escape; else it consumes nothing.
func (s *scanner) plainString() ([]byte, bool) {
	rest := s.data[s.pos:]
	i := bytes.IndexByte(rest, '"')
	if i < 0 || bytes.IndexByte(rest[:i], '\\') >= 0 {
		return nil, false
	}
	s.pos += i + 1
	return rest[:i:i], true
}

// key reads an object's key and the ':' after it; the bytes are valid until the next read.
// clang writes the colon right after the key, so the key is rarely copied to be kept across
// a read.
func (s *scanner) key() ([]byte, error) {
	b, err := s.str()
	if err != nil {
		return nil, err
	}
	if s.pos < len(s.data) && s.data[s.pos] == ':' {
		s.pos++
		return b, nil
	}
	s.buf = append(s.buf[:0], b...) // b may lie in data, which reading on to the ':' replaces
	if err := s.expect(':'); err != nil {
		return nil, err
	}
	return s.buf, nil
}

// rawString reads up to the closing quote, leaving the string as written (escapes and all,
// without the quotes) in s.buf.
func (s *scanner) rawString() error {
	for {
		if err := s.fill(); err != nil {
			return s.readError(err)
		}
		rest := s.data[s.pos:]
		i := bytes.IndexByte(rest, '"')
		if i < 0 {
			s.buf = append(s.buf, rest...)
			s.pos = len(s.data)
			continue
		}
		s.buf = append(s.buf, rest[:i+1]...)
		s.pos += i + 1
		// The quote ends the string unless an odd number of backslashes escapes it.
		n := 0
		for i := len(s.buf) - 2; i >= 0 && s.buf[i] == '\\'; i-- {
			n++
		}
		if n%2 == 0 {
			s.buf = s.buf[:len(s.buf)-1]
			return nil
		}
	}
}

// unescape decodes the escapes in s.buf.
func (s *scanner) unescape() ([]byte, error) {
	raw := append([]byte(nil), s.buf...)
	s.buf = s.buf[:0]
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			s.buf = append(s.buf, c)
			continue
		}
		if i+1 >= len(raw) {
			return nil, s.errorf("bad escape at the end of a string")
		}
		i++
		switch raw[i] {
		case '"', '\\', '/':
			s.buf = append(s.buf, raw[i])
		case 'b':
			s.buf = append(s.buf, '\b')
		case 'f':
			s.buf = append(s.buf, '\f')
		case 'n':
			s.buf = append(s.buf, '\n')
		case 'r':
			s.buf = append(s.buf, '\r')
		case 't':
			s.buf = append(s.buf, '\t')
		case 'u':
			r, ok := hex4(raw[i+1:])
			if !ok {
				return nil, s.errorf("bad \\u escape")
			}
			i += 4
			if utf16.IsSurrogate(r) {
				// A surrogate pair is two escapes; a lone half decodes to U+FFFD.
				if i+2 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
					if r2, ok := hex4(raw[i+3:]); ok {
						r = utf16.DecodeRune(r, r2)
						i += 6
					}
				}
				if utf16.IsSurrogate(r) {
					r = utf8.RuneError
				}
			}
			s.buf = utf8.AppendRune(s.buf, r)
		default:
			return nil, s.errorf("bad escape \\%c", raw[i])
		}
	}
	return s.buf, nil
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// skipString consumes a string without keeping it.
func (s *scanner) skipString() error {
	if err := s.expect('"'); err != nil {
		return err
	}
	if _, ok := s.plainString(); ok {
		return nil
	}
	s.buf = s.buf[:0]
	return s.rawString()
}

// literal reads a number, true, false or null as its text.
func (s *scanner) literal() ([]byte, error) {
	if _, err := s.peek(); err != nil {
		return nil, err
	}
	s.buf = s.buf[:0]
	for {
		if err := s.fill(); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading clang's AST: %w", err)
		}
		c := s.data[s.pos]
		if !isLiteral(c) {
			break
		}
		s.pos++
		s.buf = append(s.buf, c)
	}
	if len(s.buf) == 0 {
		c, _ := s.peek()
		return nil, s.errorf("unexpected %q", c)
	}
	return s.buf, nil
}

func isLiteral(c byte) bool {
	return c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// integer reads a number that must be a whole number. clang's are short and unsigned: read
// where they lie when they end in the buffered data.
func (s *scanner) integer() (int, error) {
	if _, err := s.peek(); err != nil {
		return 0, err
	}
	v, i := 0, s.pos
	for ; i < len(s.data) && i-s.pos < 18 && s.data[i] >= '0' && s.data[i] <= '9'; i++ {
		v = v*10 + int(s.data[i]-'0')
	}
	if i > s.pos && i < len(s.data) && !isLiteral(s.data[i]) {
		s.pos = i
		return v, nil
	}
	b, err := s.literal()
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(string(b))
	if err != nil {
		return 0, s.errorf("expected an integer, found %q", b)
	}
	return n, nil
}

// nested fails for a value depth levels down once that is deeper than maxDepth.
func (s *scanner) nested(depth int) error {
	if depth > maxDepth {
		return s.errorf("nested deeper than %d", maxDepth)
	}
	return nil
}

// peekValue is peek at the start of a value depth levels down, failing past maxDepth.
func (s *scanner) peekValue(depth int) (byte, error) {
	if err := s.nested(depth); err != nil {
		return 0, err
	}
	return s.peek()
}

// skip consumes any value.
func (s *scanner) skip(depth int) error {
	c, err := s.peekValue(depth)
	if err != nil {
		return err
	}
	switch c {
	case '"':
		return s.skipString()
	case '{', '[':
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		s.readByte()
		if done, err := s.empty(end); done || err != nil {
			return err
		}
		for {
			if c == '{' {
				if err := s.skipString(); err != nil {
					return err
				}
				if err := s.expect(':'); err != nil {
					return err
				}
			}
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			more, err := s.more(end)
			if err != nil || !more {
				return err
			}
		}
	}
	_, err = s.literal()
	return err
}
