// Package scan surveys a source tree (Scan, survey.go): it walks the tree within its bounds
// (walk.go), parses and proves every translation unit in parallel, and reports per file and
// in total (filereport.go). parse's doc.go describes the whole path.
package scan
