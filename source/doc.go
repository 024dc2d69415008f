// Package source is the front end of Echo's source path (DESIGN.md, "The source path"; the
// paper's §3.2): it runs clang on a C, C++ or CUDA file and reads clang's JSON AST into a
// compact tree of Nodes that keeps what a proof about buffers needs — each declaration's id
// (the identity of every pointer variable), names, types, callee names, operators and the
// byte ranges of the source (for a rewrite by byte ranges).
//
// It owns: the clang command line (the language by extension, flags from the command line or
// from a compile_commands.json, CUDA host-only mode with a shipped prelude and the emulator's
// runtime headers when there is no CUDA installation, --cuda-path when there is one), the
// streaming reader of the dump, and ParseError, the value a file clang cannot parse yields,
// carrying clang's first error line so the analysis can mark that file's pairs undecidable.
//
// What comes next is not here yet: candidate pairs over these nodes, a control-flow graph per
// function, the four proofs (S1 values, S2 ordering, S3 pointer observability, S4 lifetime),
// the byte-range rewrite (`echoctl rewrite`) and the tree survey (`echoctl scan`).
package source
