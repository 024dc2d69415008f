// Package trace owns Echo's trace file: the Event every uprobe records (the Go twin of
// struct echo_event in bpf/events.h), the versioned binary format that stores events with a
// header and footer (FORMAT.md describes every byte), its streaming Writer and Reader, the
// mapping of return addresses to module+offset sites, and the statistics `echoctl stats`
// prints. It has no BPF dependency: the planner and every offline command read traces
// through it on machines that cannot load a BPF program.
package trace
