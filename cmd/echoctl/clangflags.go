package main

import (
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/echo-uma/echo/internal/embedshim"
	"github.com/echo-uma/echo/source/parse"
	"github.com/echo-uma/echo/source/rewrite"
)

// clangFlags are how the source path's commands (scan, rewrite) parse: where compile flags
// and the CUDA headers come from.
type clangFlags struct {
	compileCommands string
	cudaPath        string
	runtimeHeaders  string
	maxFileSize     byteSize
	fileTimeout     time.Duration
}

// add declares the flags on f; where names the compile_commands.json looked for by default.
func (c *clangFlags) add(f *pflag.FlagSet, where string) {
	f.StringVar(&c.compileCommands, "compile-commands", "", "compile_commands.json to take flags from (default: "+where+")")
	f.StringVar(&c.cudaPath, "cuda-path", "", "a CUDA installation to parse with (default: a prelude and the emulator's headers)")
	f.StringVar(&c.runtimeHeaders, "runtime-headers", "", "directory with cuda_runtime.h when there is no --cuda-path (default: the emulator's, beside echoctl)")
	c.maxFileSize = parse.DefaultFileSize
	f.Var(&c.maxFileSize, "max-file-size", "skip a source file larger than this (like 512K or 8M)")
	f.DurationVar(&c.fileTimeout, "file-timeout", parse.DefaultTime, "skip a file clang takes longer than this to parse")
}

// options are the parse options the flags say, the emulator's headers beside echoctl where
// neither a CUDA installation nor headers were given, and the libechoclangout echoctl carries
// preloaded into clang (without one, clang runs as it is: the same findings, more slowly).
func (c *clangFlags) options() parse.Options {
	o := parse.Options{CUDAPath: c.cudaPath, RuntimeHeaders: c.runtimeHeaders,
		Limits: parse.Limits{FileSize: int64(c.maxFileSize), Time: c.fileTimeout}}
	if o.CUDAPath == "" && o.RuntimeHeaders == "" {
		exe, _ := os.Executable()
		o.RuntimeHeaders = rewrite.FindRuntimeHeaders(exe)
	}
	o.Preload, _ = embedshim.ExtractClangOut()
	return o
}
