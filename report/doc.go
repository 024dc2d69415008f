// Package report renders a plan, with the trace it was made from and its calibration record,
// as one self-contained HTML page for a person: one iteration of the program's loop before
// and after the plan, the copy share of each call site, the pairs and rejections with their
// reasons, and the calibration rounds per strategy. Everything is drawn here, in Go, as
// inline SVG; the page loads nothing (its Content-Security-Policy forbids it), so it opens
// the same from a mail attachment, a CI artifact or a machine without network.
package report
