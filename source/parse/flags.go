package parse

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Lang is the language clang parses a file as.
type Lang int

const (
	LangC Lang = iota
	LangCXX
	LangCUDA
)

// LangOf picks the language by the file's extension, as compilers do.
func LangOf(file string) (Lang, error) {
	switch filepath.Ext(file) {
	case ".cu", ".cuh":
		return LangCUDA, nil
	case ".c":
		return LangC, nil
	case ".cpp", ".cc", ".cxx", ".C", ".c++", ".cp":
		return LangCXX, nil
	}
	return 0, fmt.Errorf("parsing %s: not a C, C++ or CUDA source (.c, .cpp, .cc, .cxx, .cu)", file)
}

// Options say how to run clang; the zero value runs "clang" from PATH with no CUDA installation
// and no runtime headers.
type Options struct {
	// Clang is the clang driver to run; "" is "clang" from PATH.
	Clang string
	// CUDAPath is a CUDA installation (clang's --cuda-path): its headers replace the prelude
	// and the runtime headers.
	CUDAPath string
	// RuntimeHeaders is a directory of CUDA runtime headers searched after the prelude's own
	// stand-ins (prelude/), for the headers they do not stand in for: the emulator's
	// testdata/emulator/include, whose cuda_emulator.h its test programs include. Optional.
	RuntimeHeaders string
	// Limits bound each file's size and clang's time, memory and output; zero fields are
	// the defaults.
	Limits Limits
	// Preload is a library preloaded into the clang runs that dump an AST: libechoclangout,
	// which has clang write the dump to its pipe in 1 MiB blocks rather than the pipe's 4 KiB
	// (clangout/clangout.c); "" for none. It changes how many bytes a write(2) carries, never
	// which. A library clang does not load quietly (another machine's) is not used.
	Preload string
}

// Command is one file to parse with the flags its build uses.
type Command struct {
	Dir  string   // the directory relative paths are relative to; "" is the current one
	File string   // the source file
	Args []string // the build's own flags: only the preprocessor and language ones are used
	// Own are more directories whose files are the project's own (kept in full detail): those
	// of source files the file includes from elsewhere in the tree.
	Own []string
	// Guess: the flags are not the build's (no compile command names the file), so a header
	// the tree holds elsewhere may be looked for there (session.findHeader).
	Guess bool
}

// parseEnv is what a parse adds to a file's own flags.
type parseEnv struct {
	// prelude is the directory the prelude is written to (writePrelude); "" with a CUDA
	// installation, whose headers take its place.
	prelude string
	// pch is echo_cuda_prelude.h precompiled for these flags; "" includes the header itself.
	pch string
	// stubs is a directory of empty headers standing in for the ones the file includes and no
	// directory has (stubs.go); "" for none.
	stubs string
	// building: these flags build the precompiled prelude, whose input is the prelude.
	building bool
	// fallback puts the prelude's fallback/ headers (the CUDA samples' helpers) on the path,
	// last: a parse adds it only once a header it names is missing from the file's own
	// directories and its tree, so a tree's own copy always wins.
	fallback bool
}

// clangArgs is the whole clang command line after the driver's name: a syntax-only parse
// that dumps the AST as JSON.
func clangArgs(c Command, lang Lang, o Options, env parseEnv) []string {
	args := []string{"-fsyntax-only", "-Xclang", "-ast-dump=json"}
	args = append(args, parseFlags(c, lang, o, env)...)
	return append(args, abs(c.File, c.Dir))
}

// parseFlags are the flags a parse and the precompiled prelude it loads share: the
// language, where the headers are, the build's own flags. Every error is reported, however
// many (-ferror-limit=0: past clang's default 20 it stops and the AST ends there), by an
// absolute path (broken.go matches them to functions).
func parseFlags(c Command, lang Lang, o Options, env parseEnv) []string {
	args := []string{"-fno-color-diagnostics", "-fno-caret-diagnostics", "-fdiagnostics-absolute-paths",
		"-Wno-everything", "-ferror-limit=0"}
	switch lang {
	case LangC:
		args = append(args, "-x", "c")
	case LangCXX:
		args = append(args, "-x", "c++")
	case LangCUDA:
		args = append(args, "-x", "cuda", "--cuda-host-only")
		if o.CUDAPath != "" {
			args = append(args, "--cuda-path="+o.CUDAPath)
		} else {
			args = append(args, "-nocudainc")
		}
	}
	if env.prelude != "" {
		args = append(args, "-isystem", env.prelude)
	} else if o.CUDAPath != "" && lang != LangCUDA {
		args = append(args, "-isystem", filepath.Join(o.CUDAPath, "include"))
	}
	if o.CUDAPath == "" && o.RuntimeHeaders != "" {
		// After the prelude's stand-ins: only what they lack (the emulator's cuda_emulator.h).
		args = append(args, "-idirafter", o.RuntimeHeaders)
	}
	if h := pchHeader(lang); h != "" && env.prelude != "" && !env.building {
		if env.pch != "" {
			args = append(args, "-include-pch", env.pch)
		} else {
			args = append(args, "-include", filepath.Join(env.prelude, h))
		}
	}
	args = append(args, CompileFlags(c.Args, c.Dir)...)
	if env.fallback && env.prelude != "" {
		args = append(args, "-idirafter", filepath.Join(env.prelude, fallbackDir))
	}
	if env.stubs != "" {
		args = append(args, "-idirafter", env.stubs)
	}
	return args
}

// Flags a build passes that matter to the parse: where headers are, macros, the language
// standard, forced includes. Everything else (optimization, code generation, warnings, -o,
// nvcc's -arch and -gencode, dependency files) is dropped, so an nvcc or gcc line works with
// clang. The ones with a path argument are made absolute so the dump names every file by an
// absolute path.
var (
	pathFlags  = map[string]bool{"-I": true, "-isystem": true, "-iquote": true, "-idirafter": true, "-include": true, "-imacros": true}
	valueFlags = map[string]bool{"-D": true, "-U": true}
	// nvcc's long spellings of the same flags.
	nvccFlags = map[string]string{"--include-path": "-I", "--system-include": "-isystem",
		"--define-macro": "-D", "--undefine-macro": "-U", "--pre-include": "-include"}
)

func CompileFlags(in []string, dir string) []string {
	var out []string
	for i := 0; i < len(in); i++ {
		a := in[i]
		if name, val, hasVal := strings.Cut(a, "="); nvccFlags[name] != "" {
			if !hasVal && i+1 < len(in) {
				i++
				val = in[i]
			}
			out = appendFlag(out, nvccFlags[name], val, dir)
			continue
		}
		switch {
		case pathFlags[a] || valueFlags[a]: // the value is the next argument
			if i+1 < len(in) {
				i++
				out = appendFlag(out, a, in[i], dir)
			}
		case len(a) > 2 && (strings.HasPrefix(a, "-I") || strings.HasPrefix(a, "-D") || strings.HasPrefix(a, "-U")):
			out = appendFlag(out, a[:2], a[2:], dir)
		case strings.HasPrefix(a, "-std=") || strings.HasPrefix(a, "--std="):
			out = append(out, "-std="+a[strings.Index(a, "=")+1:])
		case a == "-nostdinc" || a == "-nostdinc++" || a == "-pthread":
			out = append(out, a)
		}
	}
	return out
}

func appendFlag(out []string, flag, val, dir string) []string {
	if pathFlags[flag] {
		val = abs(val, dir)
	}
	if flag == "-I" || flag == "-D" || flag == "-U" {
		return append(out, flag+val)
	}
	return append(out, flag, val)
}

func abs(p, dir string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	if dir == "" {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	return filepath.Join(dir, p)
}
