package texttable

import "time"

// FormatDuration is d rounded to three significant digits of its largest unit: 1.23s, 45.6ms.
func FormatDuration(d time.Duration) string {
	for _, unit := range []time.Duration{time.Hour, time.Minute, time.Second, time.Millisecond, time.Microsecond} {
		if d >= unit {
			return d.Round(unit / 100).String()
		}
	}
	return d.String()
}

// Plural is one or many as n says.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
