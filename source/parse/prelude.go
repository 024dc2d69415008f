package parse

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// preludeFiles are the headers the source path parses CUDA with when no CUDA installation is
// given (see each header's own comment for what it stands in for):
//   - echo_cuda_prelude.h, force-included into every .cu file (through echo_cuda_pch.h,
//     precompiled): what nvcc and clang's CUDA wrapper give a .cu file before its first line;
//   - echo_cxx_std.h, the C++ library's common headers, precompiled into every C++ and CUDA
//     file's parse for speed;
//   - the stand-ins for the CUDA toolkit's public headers (cuda_runtime.h, cuda.h,
//     driver_types.h, cuda_fp16.h, cooperative_groups.h, …), on the include path (-isystem) of
//     every C, C++ and CUDA file, so `#include <cuda_runtime.h>` in a .cpp file resolves too;
//   - fallback/: the CUDA samples' helper headers (helper_cuda.h, helper_functions.h, …),
//     put on the path (-idirafter) only when a file includes one that neither its include
//     directories nor its tree have, so a tree's own copy wins and a tree without one still
//     parses.
//
//go:embed prelude
var preludeFiles embed.FS

const fallbackDir = "fallback"

// pchHeader is what a file is parsed with before its first line, precompiled (session.pch):
// for CUDA the prelude and the C++ library's common headers, for C++ the library's headers
// alone (echo_cxx_std.h says why they are there), for C nothing.
func pchHeader(lang Lang) string {
	switch lang {
	case LangCUDA:
		return "echo_cuda_pch.h"
	case LangCXX:
		return "echo_cxx_std.h"
	}
	return ""
}

// writePrelude writes the prelude's headers under dir (clang's -include and -isystem take
// paths, not bytes) and returns the directory that holds them.
func writePrelude(dir string) (string, error) {
	out := filepath.Join(dir, "prelude")
	err := fs.WalkDir(preludeFiles, "prelude", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := preludeFiles.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		return "", fmt.Errorf("writing the CUDA prelude: %w", err)
	}
	return out, nil
}
