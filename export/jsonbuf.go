package export

import (
	"strconv"
	"unicode/utf8"
)

// The appenders below build each JSON event in a reused buffer. encoding/json would allocate
// for every event, and a trace holds millions; the few strings that come from outside
// (paths, the command line, plan text) go through appendString, the rest is ASCII we chose.

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string: quoted, with quotes, backslashes and control
// characters escaped and invalid UTF-8 replaced, so any path or command line stays valid JSON.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendEscaped(b, s)
	return append(b, '"')
}

// appendEscaped appends the inside of a JSON string holding s.
func appendEscaped(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\t':
			b = append(b, '\\', 't')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	return append(b, s[start:]...)
}

// appendMicros appends a time in nanoseconds as microseconds, the unit of the trace-event
// format, keeping every nanosecond: 1500 is 1.5, 2000 is 2, -7 is -0.007.
func appendMicros(b []byte, ns int64) []byte {
	u := uint64(ns)
	if ns < 0 {
		b = append(b, '-')
		u = -u
	}
	b = strconv.AppendUint(b, u/1000, 10)
	frac := u % 1000
	if frac == 0 {
		return b
	}
	digits := [3]byte{byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
	n := 3
	for digits[n-1] == '0' {
		n--
	}
	b = append(b, '.')
	return append(b, digits[:n]...)
}

// appendHex appends an address or handle as a quoted hex string, "0x7f001000": JSON numbers
// are doubles to the viewers, and hex is how addresses are read.
func appendHex(b []byte, v uint64) []byte {
	b = append(b, '"', '0', 'x')
	b = strconv.AppendUint(b, v, 16)
	return append(b, '"')
}
