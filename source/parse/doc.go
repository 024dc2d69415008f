// Package parse is the front end of Echo's source path (DESIGN.md, "The source path"; the
// paper's §3.2): it runs clang on a C, C++ or CUDA file and reads clang's JSON AST into a
// compact tree of Nodes that keeps what a proof about buffers needs — each declaration's id
// (the identity of every pointer variable), names, types, callee names, operators and the
// byte ranges of the source (for a rewrite by byte ranges).
//
// The source path lives in five rooms, each importing only those before it: parse (this
// package: clang, the prelude and its cache, compile databases, flags and the trust in them,
// reading files and clang's dump with limits), facts (what the AST says: the control-flow
// graph, effects and call summaries, kernels' accesses, sizes), rules (the S1–S4 proofs and
// their verdicts, the strategy chosen), rewrite (the rewrite, its diff and the writing of the
// files) and scan (the survey of a tree: the walk and the per-file report). What follows is
// the whole path; a file named is in the room that owns it.
//
// It owns: the clang command line (the language by extension, flags from the command line or
// from a compile_commands.json, CUDA host-only mode with a shipped prelude and the emulator's
// runtime headers when there is no CUDA installation — prelude/, which also declares what
// nvcc's headers give C++ code and the emulator's lack — --cuda-path when there is one), the
// streaming reader of the dump, and ParseError, the value a file clang cannot parse yields,
// carrying clang's first error line so the analysis can mark that file's pairs undecidable.
//
// What is proved, and how (Prove; candidates.go, cfg.go, effects.go, calls.go, kernels.go,
// freewrap.go, proofs.go, verdicts.go). In each function with a body in the main file (in a
// namespace or a class too, and each instantiation of a function template), a candidate pair is
// two local pointer variables (by declaration id) that some path gives a host allocation
// (malloc, calloc, aligned_alloc, new[] of bytes, cudaMallocHost, cudaHostAlloc, or a function
// in the translation unit that returns one of those, as the corpus's host_alloc) and a device
// allocation (cudaMalloc, cudaMallocAsync), linked by a cudaMemcpy(Async) between the two. A
// copy between a host and a device buffer that is no such pair — a side in a struct field, a
// global, a parameter no caller here passes, a container, a pointer whose allocation is not
// known, a copy made inside a helper, a template nothing instantiates — is a pair all the same,
// declined as undecidable with the construct named (Verdict.Construct, Proof.Construct), so a
// survey can count "undecidable by construct". A control-flow graph of the body's structured
// statements (goto, switch, setjmp and exceptions make every pair of the function undecidable;
// a macro's do { } while (0) runs once) carries a forward dataflow per pair to a fixpoint.
// Paths are kept apart by the branch conditions they took while the variables those
// conditions read are unchanged, so `if (o.manual) … if (!o.manual)` is two paths, and on a
// path where a side holds a buffer that is not the pair's allocation its accesses are not the
// pair's. Calls into functions with a body are followed through a per-parameter summary (what
// the callee reads, writes, frees, launches, copies or lets escape, whether it launches GPU work
// and waits for it before it returns), the callee named by its declaration (an overload or an
// instantiation is the one the call names); a launch is `<<<…>>>` or cudaLaunchKernel
// (directly or through such a helper) with an array of &variables. What a launch may write is
// read from the kernel's body and everything it calls, never from a parameter's type (const can
// be cast away, kernels.go): a parameter is only read where no write, cast write, atomic,
// inline assembly or call without a body reaches memory through it; a kernel whose body is not
// in the translation unit may write every argument.
//   - A copy links the pair only where each side may hold only its allocations, all of the
//     copy's size: the same canonical expression (sizes.go: variables by id, sizeof by type,
//     unsigned products in any order, calloc's two arguments as their product, a variable
//     named once read through its initializer, stable.go), with no variable it reads changed
//     since the allocation or reachable through a kept pointer; otherwise undecidable.
//   - S1 is refused at a host write that reaches a kernel using the device side with no H2D
//     copy between, a host access while that kernel may still run, a host use before the D2H
//     copy after a kernel that may write the device side (the reason names the kernel's write
//     and its line), and a copy that would overwrite the other side's newer value. memcmp,
//     memcpy, fwrite and the like are host reads and writes like any other.
//   - S2: a synchronous linking copy reached while a launch may be in flight is "keep wait"
//     (the rewrite keeps a synchronize at its line); otherwise its wait is provably a no-op.
//     Asynchronous copies' stream ordering is not followed yet: undecidable.
//   - S3 is refused where a side is compared (other than with null), converted to an integer or
//     printed, and undecidable where it is stored, returned, has its address taken (other than
//     for an allocation or a launch's argument array) or reaches a function without a body.
//   - S4 records where the shared buffer can be freed: the second of the pair's frees, after a
//     synchronize where a kernel may still use it there. A host side freed before a kernel
//     uses the device side (the input freed right after its copy) holds: the rewrite removes
//     that free, and S4's reason says so. It is undecidable where a free is made inside a
//     helper that does more than free (freewrap.go: the rewrite replaces a helper's call
//     whole), and refused where one side gets a new allocation while the other keeps the
//     buffer it was paired with (a merged buffer is one allocation of each).
//
// Not yet: std::vector data, struct fields and globals (declined by name), copies inside
// helpers (declined by name), cuMemcpy*, multi-stream ordering, the copy-size threshold.
//
// The rewrite (Rewrite, rewrite.go; `echoctl rewrite`) serves each pair with a strategy chosen
// for the device it targets (Choose, strategy.go): merged into one buffer where S1–S4 hold
// (mapped, managed), or pinned (pinned.go: the copies kept, the host side page-locked, which
// needs only the host side's lifetime), by whether the kernels touch each byte once per copy
// (access.go) and, with a trace, the measured copies. Every buffer it adds is freed once on
// every path that freed the original (lifetime.go, over pathflow.go's paths). Edits are byte
// ranges of the spelling locations, with a comment naming the pair on every edit; UnifiedDiff
// (diff.go) prints it as a patch. It handles one allocation site per side and sites written in
// the file itself (a macro's argument, not its body); other pairs are left as written with the
// reason.
//
// The survey (Scan, survey.go; `echoctl scan`) runs the same parse and proofs over every
// translation unit of a source tree, in parallel, with each file's flags from a compile
// database or defaults, and counts files with the pattern, pairs proven and declined (by the
// declining condition) and files clang cannot parse.
//
// A tree from anywhere and a user's own files are handled with care (issue 46): only regular
// files are read as sources and compile databases (regular.go); clang runs under a time,
// memory and output limit in a process group of its own, and the reader keeps a bounded number
// of nodes (limits.go); a compile database from outside the project is taken only on trust
// rules, and its flags that read outside it are dropped, every result saying which flags its
// proofs assumed (trust.go); the walk follows links within the tree, names what it cannot walk
// and goes on (walk.go); a path that is not UTF-8 is parsed through stand-in names
// (oddname.go) and printed with git's quoting (gitquote.go); and rewrite -w writes through
// outfile.Edit, never over an edit made meanwhile (safewrite.go).
package parse
