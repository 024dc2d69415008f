// Package embedshim carries the preload library inside echoctl, so that one copied binary
// does everything, and puts it where a program can preload it: a content-addressed file in
// a cache directory only its owner can write (cache.go).
package embedshim

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"runtime"
)

//go:embed lib
var lib embed.FS

// name is the embedded file for this architecture.
var name = "lib/libechoshim-" + runtime.GOARCH + ".so"

// Shim is the embedded library for this architecture and its SHA-256, or nil and "" when
// echoctl was built without one (go build or go install rather than make).
func Shim() ([]byte, string) {
	b, err := lib.ReadFile(name)
	if err != nil {
		return nil, ""
	}
	sum := sha256.Sum256(b)
	return b, hex.EncodeToString(sum[:])
}
