// Package shell writes command lines and values as a POSIX shell reads them back: what
// echoctl prints for a person to paste (the optimize hint, --print-env's exports, a
// traced command).
package shell

import "strings"

// Quote returns s as one shell word: bare when it holds only characters no shell treats
// specially, single-quoted otherwise.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Join quotes each argument and joins them with spaces.
func Join(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = Quote(a)
	}
	return strings.Join(quoted, " ")
}
