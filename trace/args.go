package trace

import "unicode/utf8"

// RawArgs is args byte for byte when one of them is not UTF-8, and nil when all are. JSON
// carries only UTF-8 text: encoding/json writes each stray byte as U+FFFD, and a command
// line read back so names a file that does not exist. Files that store a command line keep
// this beside it (base64, as JSON writes []byte) and readers take it back with WithRawArgs.
func RawArgs(args []string) [][]byte {
	for _, a := range args {
		if !utf8.ValidString(a) {
			raw := make([][]byte, len(args))
			for i, a := range args {
				raw[i] = []byte(a)
			}
			return raw
		}
	}
	return nil
}

// WithRawArgs is args as RawArgs recorded them in raw, or args itself when raw is not
// such a record of them (absent, or of another length: a hand edit).
func WithRawArgs(args []string, raw [][]byte) []string {
	if len(raw) == 0 || len(raw) != len(args) {
		return args
	}
	out := make([]string, len(raw))
	for i, b := range raw {
		out[i] = string(b)
	}
	return out
}
