package packaging

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	kyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// The packages run packaging/postrm after removal: nfpm.yaml names it.
func TestPackagesHavePostrm(t *testing.T) {
	f, err := os.Open("nfpm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var config struct {
		Scripts struct {
			PostRemove string `json:"postremove"`
		} `json:"scripts"`
	}
	if err := kyaml.NewYAMLOrJSONDecoder(f, 4096).Decode(&config); err != nil {
		t.Fatalf("nfpm.yaml: %v", err)
	}
	if config.Scripts.PostRemove != "packaging/postrm" {
		t.Fatalf("nfpm.yaml's scripts.postremove is %q, want packaging/postrm (make package runs nfpm from the root)", config.Scripts.PostRemove)
	}
	if fi, err := os.Stat("postrm"); err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Fatalf("postrm: %v, %v; want an executable script", fi, err)
	}
}

// What postrm removes, by dpkg's action and rpm's count: the cache echoctl makes as root
// (the extracted library, the derived deployments) on remove and erase, the directory itself
// on purge, nothing on upgrade; never a user's files, their plans or their own cache.
func TestPostrmRemovesWhatEchoctlLeaves(t *testing.T) {
	for _, c := range []struct {
		arg       string
		cacheGone bool // the derived files
		dirGone   bool // /var/cache/echo itself, with a file echoctl did not make
	}{
		{"remove", true, false},
		{"0", true, false}, // rpm -e
		{"purge", true, true},
		{"upgrade", false, false},
		{"1", false, false}, // rpm -U
		{"failed-upgrade", false, false},
	} {
		t.Run(c.arg, func(t *testing.T) {
			root := t.TempDir()
			cache := filepath.Join(root, "var/cache/echo")
			derived := []string{"shim-0123456789abcdef/libechoshim.so", "deployments/4f2a.json"}
			users := []string{"root/.cache/echo/shim-0123456789abcdef/libechoshim.so", "srv/echo/plans/app.plan", "home/u/app.plan"}
			for _, p := range append(append([]string{}, derived...), "other") {
				write(t, filepath.Join(cache, p))
			}
			for _, p := range users {
				write(t, filepath.Join(root, p))
			}
			cmd := exec.Command("sh", "postrm", c.arg)
			cmd.Env = append(os.Environ(), "DPKG_ROOT="+root)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("postrm %s: %v\n%s", c.arg, err, out)
			}
			for _, p := range derived {
				if _, err := os.Stat(filepath.Join(cache, p)); (err == nil) == c.cacheGone {
					t.Errorf("postrm %s: /var/cache/echo/%s: %v; want it gone: %v", c.arg, p, err, c.cacheGone)
				}
			}
			if _, err := os.Stat(cache); (err == nil) == c.dirGone {
				t.Errorf("postrm %s: /var/cache/echo holding another file: %v; want it gone: %v", c.arg, err, c.dirGone)
			}
			for _, p := range users {
				if _, err := os.Stat(filepath.Join(root, p)); err != nil {
					t.Errorf("postrm %s removed a user's %s", c.arg, p)
				}
			}
		})
	}
	// Once only what echoctl made is left, remove leaves no empty directory behind.
	root := t.TempDir()
	write(t, filepath.Join(root, "var/cache/echo/shim-0123456789abcdef/libechoshim.so"))
	cmd := exec.Command("sh", "postrm", "remove")
	cmd.Env = append(os.Environ(), "DPKG_ROOT="+root)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("postrm remove: %v\n%s", err, out)
	}
	if entries, _ := os.ReadDir(filepath.Join(root, "var/cache")); slices.ContainsFunc(entries, func(e os.DirEntry) bool { return e.Name() == "echo" }) {
		t.Errorf("postrm remove left an empty /var/cache/echo")
	}
}

func write(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}
