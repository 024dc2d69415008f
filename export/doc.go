// Package export owns turning Echo traces into other tools' formats. Its one format today is
// the Chrome trace-event JSON that ui.perfetto.dev and chrome://tracing open: a timeline
// with a track per traced thread, a slice per API call, and the copies of a plan's pairs
// picked out. It streams: a trace of any length is converted in constant memory, record by
// record, and a damaged trace is converted as far as it is readable into a file that still
// parses (README.md says how to open one and what it shows).
package export
