package pipeline

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/echo-uma/echo/internal/embedshim"
	"github.com/echo-uma/echo/internal/infile"
	"github.com/echo-uma/echo/internal/outfile"
	"github.com/echo-uma/echo/plan"
)

// Kept is a plan file's deployment as `echoctl run` derives it (ReadFile, Deploy, Compact),
// kept in Echo's cache by the SHA-256 of the plan's bytes and of this echoctl, so that a
// program started again and again on one plan does not wait each time for echoctl to read
// and check a plan of megabytes: a streamcluster-style program's 1.6 MB plan made its runs
// 140 ms slower on the H200 (bench/runcost_gpu.sh), more than its plan saved. An edited plan
// or another echoctl has another key and derives afresh; nothing is kept for a plan that
// fails to read. The executable is still checked against Executable at every run.
type Kept struct {
	Executable plan.Module   `json:"executable"`         // the plan's: the program must still be it
	Launcher   *plan.Module  `json:"launcher,omitempty"` // or the command that starts it (Context.Launcher)
	Strategy   plan.Strategy `json:"strategy"`
	Pairs      int           `json:"pairs"`
	Compact    string        `json:"compact"`   // the shim's plan; "" when Untouched
	Untouched  string        `json:"untouched"` // why the plan deploys nothing
}

// DeploymentKey is the cache key of a plan file's bytes (plan.ReadFileBytes): their
// SHA-256 and this echoctl's executable's (its path, size and modification time: another
// build may derive another deployment from the same plan).
func DeploymentKey(plan []byte) string {
	h := sha256.New()
	h.Write(plan)
	if self, err := os.Executable(); err == nil {
		if st, err := os.Stat(self); err == nil {
			fmt.Fprintf(h, "\x00%s\x00%d\x00%d", self, st.Size(), st.ModTime().UnixNano())
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// LoadKept is the deployment kept under key, if there is one this user wrote and nobody else
// could have (whoever writes a deployment chooses what the program runs with).
func LoadKept(key string) (Kept, bool) {
	dir, err := embedshim.CacheSubdir(keptSubdir)
	if err != nil {
		return Kept{}, false
	}
	path := filepath.Join(dir, key+".json")
	if embedshim.PrivateFile(path) != nil {
		return Kept{}, false
	}
	b, err := infile.ReadFile(path)
	if err != nil {
		return Kept{}, false
	}
	var k Kept
	if json.Unmarshal(b, &k) != nil || (k.Compact == "") == (k.Untouched == "") {
		return Kept{}, false // cut short, or written by something else: derive afresh
	}
	return k, true
}

// Keep stores k under key, whole or not at all (a concurrent run reads the old file or the
// new one). A cache that cannot be written is no error: the next run derives again.
func Keep(key string, k Kept) error {
	dir, err := embedshim.CacheSubdir(keptSubdir)
	if err != nil {
		return err
	}
	b, err := json.Marshal(k)
	if err != nil {
		return err
	}
	if err := outfile.Replace(filepath.Join(dir, key+".json"), b, 0o600); err != nil {
		return err
	}
	prune(dir, maxKept)
	return nil
}

// maxKept is how many deployments the cache keeps: every calibration writes a new plan, so
// the keys of old ones would otherwise pile up.
const maxKept = 64

// prune removes the least recently written deployments beyond keep.
func prune(dir string, keep int) {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) <= keep {
		return
	}
	type kept struct {
		name string
		mod  int64
	}
	var files []kept
	for _, e := range entries {
		if info, err := e.Info(); err == nil && e.Type().IsRegular() && filepath.Ext(e.Name()) == ".json" {
			files = append(files, kept{e.Name(), info.ModTime().UnixNano()})
		}
	}
	slices.SortFunc(files, func(a, b kept) int { return cmp.Compare(b.mod, a.mod) })
	for _, f := range files[min(keep, len(files)):] {
		os.Remove(filepath.Join(dir, f.name))
	}
}

// keptSubdir is where in Echo's cache the deployments are kept.
const keptSubdir = "deployments"
