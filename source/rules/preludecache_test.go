package rules

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/echo-uma/echo/source/internal/sourcetest"
	"github.com/echo-uma/echo/source/parse"
)

// The prelude and its precompiled form are kept in the user's cache between runs: a second
// parse loads what the first wrote, and a cached precompiled header clang refuses (here,
// garbage) is dropped, the file parsed all the same, and a good one written in its place.
func TestPreludeCacheBetweenRuns(t *testing.T) {
	sourcetest.NeedClang(t)
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	file := filepath.Join("..", "..", "testdata", "source", "corpus", "const_cast_c.cu")
	o := parse.Options{RuntimeHeaders: sourcetest.EmulatorHeaders(t)}
	parse := func() int {
		t.Helper()
		tu, err := parse.Parse(context.Background(), parse.Command{File: file}, o)
		if err != nil {
			t.Fatal(err)
		}
		return len(Prove(tu))
	}
	pairs := parse()
	pchs, _ := filepath.Glob(filepath.Join(cache, "echo", "source", "*", "prelude-*.pch"))
	if len(pchs) != 1 || pairs == 0 {
		t.Fatalf("after one parse: precompiled preludes %v, %d pairs; want one, and pairs", pchs, pairs)
	}
	info, _ := os.Stat(pchs[0])
	if parse() != pairs {
		t.Fatal("the second parse, with the cached prelude, proves other pairs")
	}
	if again, _ := os.Stat(pchs[0]); !again.ModTime().Equal(info.ModTime()) {
		t.Error("the second parse precompiled the prelude again")
	}
	if err := os.WriteFile(pchs[0], []byte("not a precompiled header"), 0o644); err != nil {
		t.Fatal(err)
	}
	if parse() != pairs {
		t.Fatal("with a broken cached header, the parse proves other pairs")
	}
	if parse() != pairs {
		t.Fatal("after a broken cached header was dropped, the parse proves other pairs")
	}
	if b, err := os.ReadFile(pchs[0]); err != nil || string(b) == "not a precompiled header" {
		t.Errorf("the broken cached header was not replaced (%v)", err)
	}
}

// A cache directory others may write is not used: a precompiled header is code clang loads.
func TestPreludeCacheOnlyPrivate(t *testing.T) {
	sourcetest.NeedClang(t)
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	if err := os.MkdirAll(filepath.Join(cache, "echo", "source"), 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(cache, "echo", "source"), 0o777)
	if dir := parse.PreludeCache("clang"); dir != "" {
		t.Errorf("a world-writable cache was used: %s", dir)
	}
	os.Chmod(filepath.Join(cache, "echo", "source"), 0o700)
	if dir := parse.PreludeCache("clang"); dir == "" {
		t.Error("a private cache was not used")
	}
}
