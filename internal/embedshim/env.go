package embedshim

import "strings"

// Preloaded is env with lib preloaded ahead of whatever env already preloads (LD_PRELOAD
// takes a list), in one LD_PRELOAD; env as it is for no lib. env is not changed.
func Preloaded(env []string, lib string) []string {
	if lib == "" {
		return env
	}
	out := make([]string, 0, len(env)+1)
	value := lib
	for _, kv := range env {
		if rest, ok := strings.CutPrefix(kv, "LD_PRELOAD="); ok {
			if rest != "" {
				value = lib + " " + rest
			}
			continue
		}
		out = append(out, kv)
	}
	return append(out, "LD_PRELOAD="+value)
}
