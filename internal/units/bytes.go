// Package units owns how Echo writes and reads amounts of bytes: one rule for every table,
// report, export and message ("4.0 MiB", "512 KiB"), and the compact form of size flags
// ("64K"). Before it there were five formatters, each with its own rounding.
package units

import (
	"math"
	"strconv"
)

// binary are the units of 1024: a copy's size is a buffer's, and buffers come in powers of two.
var binary = [...]string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}

// Bytes writes a byte count for a person: "0 B", "1023 B", "4.0 MiB", "512 KiB", "16.0 EiB".
func Bytes(n uint64) string { return string(AppendBytes(nil, n)) }

// Rate writes a byte rate: "0 B/s", "12.3 MiB/s", "1023 GiB/s" (ten characters at most, so a
// table column holds every rate).
func Rate(bytesPerS float64) string { return string(appendAmount(nil, bytesPerS)) + "/s" }

// AppendBytes appends Bytes(n) to b without allocating: the Perfetto export names every copy.
func AppendBytes(b []byte, n uint64) []byte { return appendAmount(b, float64(n)) }

// appendAmount keeps one decimal below 100 of a unit and none above, so that a number never
// takes more than four digits; a value that would round to 1024 of a unit is written in the
// next one ("1.0 MiB", not "1024 KiB"). Whole bytes have no decimal.
func appendAmount(b []byte, v float64) []byte {
	i := 0
	for math.Abs(v) >= 1023.5 && i < len(binary)-1 {
		v /= 1024
		i++
	}
	prec := 1
	if i == 0 || math.Abs(v) >= 99.95 {
		prec = 0
	}
	b = strconv.AppendFloat(b, v, 'f', prec, 64)
	b = append(b, ' ')
	return append(b, binary[i]...)
}
