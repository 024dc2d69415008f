// Package shell writes command lines and values as a POSIX shell reads them back: what
// echoctl prints for a person to paste (the optimize hint, --print-env's exports, a
// traced command).
package shell

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Quote returns s as one shell word: bare when it holds only characters no shell treats
// specially, single-quoted otherwise, and $'…' with backslash escapes when it holds a
// control character or bytes that are not UTF-8. A traced program's arguments are whatever
// it was given: printed raw, an escape sequence would drive the reader's terminal, and a
// byte the terminal shows as U+FFFD would be pasted back as another file's name. $'…' is
// read back byte for byte by bash, zsh, ksh, busybox sh and POSIX.1-2024 shells.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	if !needsEscapes(s) {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case control(r):
			for _, c := range []byte(s[i : i+n]) { // a C1 control is two bytes in UTF-8
				fmt.Fprintf(&b, `\x%02x`, c)
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	b.WriteByte('\'')
	return b.String()
}

// needsEscapes says whether s cannot be shown inside single quotes as it is: it holds a
// control character a terminal would act on, or bytes that are not UTF-8.
func needsEscapes(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	return strings.IndexFunc(s, func(r rune) bool { return control(r) && r != '\t' }) >= 0
}

// control is a C0 or C1 control character or DEL: what terminals interpret (ESC, CSI, BEL…).
func control(r rune) bool { return r < 0x20 || r >= 0x7f && r <= 0x9f }

// Join quotes each argument and joins them with spaces.
func Join(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = Quote(a)
	}
	return strings.Join(quoted, " ")
}
