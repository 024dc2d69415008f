package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/echo-uma/echo/plan"
)

// A kept deployment is found again under the same plan bytes and under no other; one that is
// cut short, or that another user could have written, is not used.
func TestKeptDeployment(t *testing.T) {
	t.Setenv("ECHO_CACHE_DIR", filepath.Join(t.TempDir(), "cache"))
	key := DeploymentKey([]byte(`{"version": 6}`))
	if _, ok := LoadKept(key); ok {
		t.Fatal("a deployment found in an empty cache")
	}
	want := Kept{Executable: plan.Module{Path: "/opt/app", BuildID: "ab12"}, Strategy: plan.StrategyPinned, Pairs: 2,
		Compact: "echo-plan 1\nend\n"}
	if err := Keep(key, want); err != nil {
		t.Fatal(err)
	}
	if got, ok := LoadKept(key); !ok || got != want {
		t.Errorf("kept %+v, found %+v (%v)", want, got, ok)
	}
	if DeploymentKey([]byte(`{"version": 6} `)) == key {
		t.Error("an edited plan has the same key")
	}
	path := filepath.Join(os.Getenv("ECHO_CACHE_DIR"), "deployments", key+".json")
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, ok := LoadKept(key); ok {
		t.Error("a deployment others may write was used")
	}
	for name, text := range map[string]string{"cut short": `{"executable":{"path":"/opt/app"},"strate`,
		"neither compact nor untouched": `{"executable":{"path":"/opt/app"},"pairs":1}`} {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, ok := LoadKept(key); ok {
			t.Errorf("%s: the kept deployment was used", name)
		}
	}
}

// The cache keeps the newest deployments and removes the oldest beyond its bound.
func TestKeptDeploymentsPruned(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	for i := range 5 {
		path := filepath.Join(dir, fmt.Sprintf("k%d.json", i))
		if err := os.WriteFile(path, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
		at := now.Add(time.Duration(i) * time.Minute) // k4 the newest
		if err := os.Chtimes(path, at, at); err != nil {
			t.Fatal(err)
		}
	}
	prune(dir, 3)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"k2.json", "k3.json", "k4.json"}) {
		t.Errorf("kept %v, want the three newest", names)
	}
}
