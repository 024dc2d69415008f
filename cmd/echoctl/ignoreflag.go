package main

import (
	"regexp"

	"github.com/spf13/pflag"
)

// ignoreFlag is --ignore of calibrate and optimize: output lines that match it (timings)
// are left out of the output comparison. The expression is compiled as the flag is parsed,
// so a bad one fails before anything runs.
type ignoreFlag struct{ re *regexp.Regexp }

func (f *ignoreFlag) String() string {
	if f.re == nil {
		return ""
	}
	return f.re.String()
}

func (f *ignoreFlag) Set(s string) error {
	re, err := regexp.Compile(s)
	if err == nil {
		f.re = re
	}
	return err
}

func (f *ignoreFlag) Type() string { return "regexp" }

// addIgnoreFlag declares --ignore on fs.
func addIgnoreFlag(fs *pflag.FlagSet, f *ignoreFlag) {
	fs.Var(f, "ignore", "regular expression: output lines matching it are not compared")
}
