package scan

import (
	"reflect"
	"strings"
	"testing"
)

// TestChunks: a key's run goes whole into one chunk where it fits, is split only when longer
// than a chunk, and no chunk is longer than size.
func TestChunks(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys string // one letter a unit, sorted
		size int
		want [][2]int
	}{
		{"none", "", 4, nil},
		{"one run", "aaa", 4, [][2]int{{0, 3}}},
		{"runs that fit together", "aabb", 4, [][2]int{{0, 4}}},
		{"a run that would straddle the cut", "aaabbb", 4, [][2]int{{0, 3}, {3, 6}}},
		{"a run longer than a chunk", "abbbbbbc", 4, [][2]int{{0, 1}, {1, 5}, {5, 8}}},
		{"small runs after a cut", "aaaabcd", 4, [][2]int{{0, 4}, {4, 7}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var keys []string
			if tc.keys != "" {
				keys = strings.Split(tc.keys, "")
			}
			if got := chunks(keys, tc.size); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("chunks(%q, %d) = %v, want %v", tc.keys, tc.size, got, tc.want)
			}
		})
	}
}

// TestLargestFirst: chunks go out by their units' bytes, the largest first, and chunks of
// equal bytes in their own order.
func TestLargestFirst(t *testing.T) {
	sizes := []int64{10, 10, 500, 5, 5, 300, 20, 20, 20}
	cs := [][2]int{{0, 2}, {2, 3}, {3, 5}, {5, 6}, {6, 9}}
	largestFirst(cs, sizes)
	want := [][2]int{{2, 3}, {5, 6}, {6, 9}, {0, 2}, {3, 5}}
	if !reflect.DeepEqual(cs, want) {
		t.Errorf("largestFirst gave %v, want %v", cs, want)
	}
}
