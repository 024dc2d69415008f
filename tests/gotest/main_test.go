package main

import (
	"slices"
	"testing"
	"time"
)

// A fresh clone (no durations) runs every package whole; a package that took long last time
// is not split without its tests' durations; the jobs run longest first.
func TestPlanOrdersLongestFirst(t *testing.T) {
	last := times{
		Packages: map[string]float64{"m/a": 10, "m/b": 80, "m/c": 1},
		Tests:    map[string]map[string]float64{},
	}
	jobs, err := plan([]string{"m/a", "m/b", "m/c", "m/new"}, last, 90*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, j := range jobs {
		if j.tests != nil || j.shard != "" {
			t.Errorf("%s is sharded: want every package whole", j.name())
		}
		order = append(order, j.pkg)
	}
	if want := []string{"m/new", "m/b", "m/a", "m/c"}; !slices.Equal(order, want) {
		t.Errorf("order %v, want %v (a package never timed first, then the longest)", order, want)
	}
}

func TestClock(t *testing.T) {
	if got := clock(125 * time.Second); got != "2m05s" {
		t.Errorf("clock(125s) = %q", got)
	}
}

func TestLastLines(t *testing.T) {
	if got := lastLines("a\nb\nc\n", 2); got != "... (1 lines before)\nb\nc" {
		t.Errorf("lastLines = %q", got)
	}
}
