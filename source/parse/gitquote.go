package parse

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// QuotePath writes a file name for a line of text the way git writes one in a diff header
// (quote.c, quote_c_style): as it is, unless it holds a control character, a double quote, a
// backslash, DEL or bytes that are not UTF-8; then in double quotes with C escapes (\t, \n,
// \", \\) and three-digit octal for the other bytes. `git apply` and patch(1) read both forms,
// and a table or a message printed this way cannot be broken into lines or garbled by a
// hostile name. Unlike git's default (core.quotePath), valid UTF-8 is kept: a reader wants
// "café.cu", not "caf\303\251.cu".
func QuotePath(name string) string {
	if !needsQuote(name) {
		return name
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(name); {
		r, size := utf8.DecodeRuneInString(name[i:])
		c := name[i]
		switch {
		case r == utf8.RuneError && size <= 1, c < 0x20, c == 0x7f:
			if e, ok := cEscapes[c]; ok {
				b.WriteString(e)
			} else {
				b.WriteByte('\\')
				s := strconv.FormatUint(uint64(c), 8)
				b.WriteString(strings.Repeat("0", 3-len(s)) + s)
			}
			i++
			continue
		case c == '"' || c == '\\':
			b.WriteByte('\\')
		}
		b.WriteString(name[i : i+size])
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

// cEscapes are the control characters git writes as C escapes; it writes the others in octal.
var cEscapes = map[byte]string{'\a': `\a`, '\b': `\b`, '\t': `\t`, '\n': `\n`, '\v': `\v`, '\f': `\f`, '\r': `\r`}

func needsQuote(name string) bool {
	if !utf8.ValidString(name) {
		return true
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < 0x20 || c == 0x7f || c == '"' || c == '\\' {
			return true
		}
	}
	return false
}
