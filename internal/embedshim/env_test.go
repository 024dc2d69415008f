package embedshim

import (
	"reflect"
	"slices"
	"testing"
)

// The library goes ahead of what the environment already preloads, in one LD_PRELOAD.
func TestPreloaded(t *testing.T) {
	env := []string{"HOME=/root", "LD_PRELOAD=/opt/a.so", "PATH=/bin"}
	if got := Preloaded(env, ""); !reflect.DeepEqual(got, env) {
		t.Errorf("no library: %v, want the environment as it is", got)
	}
	want := []string{"HOME=/root", "PATH=/bin", "LD_PRELOAD=/x/libechoclangout.so /opt/a.so"}
	if got := Preloaded(env, "/x/libechoclangout.so"); !reflect.DeepEqual(got, want) {
		t.Errorf("with the user's own: %v, want %v", got, want)
	}
	got := Preloaded([]string{"PATH=/bin", "LD_PRELOAD="}, "/x/l.so")
	if !reflect.DeepEqual(got, []string{"PATH=/bin", "LD_PRELOAD=/x/l.so"}) {
		t.Errorf("over an empty LD_PRELOAD: %v", got)
	}
	if !slices.Equal(env, []string{"HOME=/root", "LD_PRELOAD=/opt/a.so", "PATH=/bin"}) {
		t.Errorf("the caller's environment was changed: %v", env)
	}
}

// Alone, the library replaces what the environment preloads.
func TestPreloadedAlone(t *testing.T) {
	env := []string{"HOME=/root", "LD_PRELOAD=/opt/a.so", "PATH=/bin"}
	want := []string{"HOME=/root", "PATH=/bin", "LD_PRELOAD=/x/l.so"}
	if got := PreloadedAlone(env, "/x/l.so"); !reflect.DeepEqual(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
	if !slices.Equal(env, []string{"HOME=/root", "LD_PRELOAD=/opt/a.so", "PATH=/bin"}) {
		t.Errorf("the caller's environment was changed: %v", env)
	}
}
