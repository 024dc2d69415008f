package embedshim

import (
	"slices"
	"strings"
)

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

// PreloadedAlone is env with lib as its one preload: whatever env preloads is left out. env is
// not changed.
func PreloadedAlone(env []string, lib string) []string {
	return Preloaded(slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "LD_PRELOAD=") }), lib)
}
