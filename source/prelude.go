package source

import (
	"embed"
	"fmt"
	"os"
	"path/filepath"

	"github.com/echo-uma/echo/internal/scratch"
)

// preludeFiles are force-included (echo_cuda_prelude.h) into .cu files when no CUDA
// installation is given, and put on the include path after every other directory (the
// stand-ins for cuda_fp16.h, vector_types.h and the like, which a program includes by name
// and a real installation or the user's own -I would give first): see each header's own
// comment for what it stands in for.
//
//go:embed prelude/*.h
var preludeFiles embed.FS

const preludeName = "echo_cuda_prelude.h"

// writePrelude puts the prelude's headers in a fresh directory for one clang run (clang's
// -include takes a path, not bytes) and returns the prelude's path and the function that
// removes the directory.
func writePrelude() (string, func(), error) {
	dir, remove, err := scratch.Dir("echo-source-") // one a SIGKILL left goes at the next run
	if err != nil {
		return "", nil, fmt.Errorf("writing the CUDA prelude: %w", err)
	}
	files, err := preludeFiles.ReadDir("prelude")
	if err != nil {
		remove()
		return "", nil, fmt.Errorf("writing the CUDA prelude: %w", err)
	}
	for _, f := range files {
		b, err := preludeFiles.ReadFile("prelude/" + f.Name())
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, f.Name()), b, 0o644)
		}
		if err != nil {
			os.RemoveAll(dir)
			return "", nil, fmt.Errorf("writing the CUDA prelude: %w", err)
		}
	}
	return filepath.Join(dir, preludeName), remove, nil
}
