// Package embedshim carries the preload library inside echoctl, so that one copied binary
// does everything, and puts it where a program can preload it: a content-addressed file in
// a cache directory only its owner can write (cache.go). It carries the source path's
// libechoclangout for clang the same way.
package embedshim

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"runtime"
)

//go:embed lib
var lib embed.FS

// Shim is the embedded preload library for this architecture and its SHA-256, or nil and ""
// when echoctl was built without one (go build or go install rather than make).
func Shim() ([]byte, string) { return embedded("libechoshim") }

// embedded is lib/NAME-GOARCH.so and its SHA-256, or nil and "".
func embedded(name string) ([]byte, string) {
	b, err := lib.ReadFile("lib/" + name + "-" + runtime.GOARCH + ".so")
	if err != nil {
		return nil, ""
	}
	sum := sha256.Sum256(b)
	return b, hex.EncodeToString(sum[:])
}
