package source

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
)

// cudaPrelude is force-included into .cu files when no CUDA installation is given: see the
// header's own comment for what it stands in for.
//
//go:embed cuda_prelude.h
var cudaPrelude []byte

// writePrelude puts the prelude in a fresh directory for one clang run (clang's -include
// takes a path, not bytes) and returns its path and the function that removes it.
func writePrelude() (string, func(), error) {
	dir, err := os.MkdirTemp("", "echo-source-")
	if err != nil {
		return "", nil, fmt.Errorf("writing the CUDA prelude: %w", err)
	}
	path := filepath.Join(dir, "echo_cuda_prelude.h")
	if err := os.WriteFile(path, cudaPrelude, 0o644); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("writing the CUDA prelude: %w", err)
	}
	return path, func() { os.RemoveAll(dir) }, nil
}
