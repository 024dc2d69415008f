package main

import "github.com/echo-uma/echo/internal/units"

// byteSize is a flag value in bytes that accepts K, M and G suffixes (powers of 1024); its
// default shows in --help in the same form (64K), so it can be typed back.
type byteSize uint64

func (b *byteSize) String() string { return units.Size(uint64(*b)) }
func (b *byteSize) Type() string   { return "bytes" }

func (b *byteSize) Set(s string) error {
	n, err := units.ParseSize(s)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}
