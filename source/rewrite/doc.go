// Package rewrite turns proofs into edits of a file (Rewrite, rewrite.go): buffers merged or
// pinned (pinned.go) as the chosen strategy says, the kernels' one-pass accesses checked
// (access.go), every added buffer freed once on every path (lifetime.go); RewriteFile runs
// parse, proofs and rewrite for one file (rewritefile.go), UnifiedDiff prints the patch
// (diff.go) and WriteFiles writes the results through outfile.Edit (safewrite.go). parse's
// doc.go describes the whole path.
package rewrite
