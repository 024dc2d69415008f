package readme

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
)

// aptInstall finds the packages of every `apt-get install` command in text (continued over
// backslashed lines), options left out.
func aptInstall(text string) map[string]bool {
	pkgs := map[string]bool{}
	joined := strings.ReplaceAll(text, "\\\n", " ")
	for _, m := range regexp.MustCompile(`apt-get install([^\n]*)`).FindAllStringSubmatch(joined, -1) {
		for _, f := range strings.Fields(m[1]) {
			if f = strings.Trim(f, "`"); f != "" && !strings.HasPrefix(f, "-") {
				pkgs[f] = true
			}
		}
	}
	return pkgs
}

// The README's set-up section names every Debian package CI installs before `make test`, so
// a fresh machine set up from it runs the whole suite, not one skipped in part.
func TestReadmeInstallsWhatCIInstalls(t *testing.T) {
	ci, setup := ciAndSetup(t)
	want, have := aptInstall(ci), aptInstall(setup)
	if len(want) < 10 {
		t.Fatalf("found %d packages in .ci/run's apt-get install: want its whole list", len(want))
	}
	for p := range want {
		if !have[p] {
			t.Errorf("README's set-up section does not install %s, which .ci/run installs", p)
		}
	}
}

// The README's set-up section names the make target CI runs, as CI's: what a newcomer reads
// as "what CI runs" is what .ci/run runs.
func TestReadmeNamesCIsTestCommand(t *testing.T) {
	ci, setup := ciAndSetup(t)
	targets := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s*(?:sudo )?make (test[a-z0-9-]*)\s*$`).FindAllStringSubmatch(ci, -1) {
		targets[m[1]] = true
	}
	if len(targets) != 1 {
		t.Fatalf(".ci/run runs the make targets %v: want one test target", targets)
	}
	for target := range targets {
		line := regexp.MustCompile(`(?m)^sudo make ` + regexp.QuoteMeta(target) + `\s+#.*\bCI\b.*$`)
		if !line.MatchString(setup) {
			t.Errorf("README's set-up section has no `sudo make %s  # ... CI ...` line: .ci/run runs make %s", target, target)
		}
	}
}

// ciAndSetup is CI's script (.ci/run) and the README's set-up section.
func ciAndSetup(t *testing.T) (ci, setup string) {
	root := testenv.Root(t)
	c, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	setup, _, _ = strings.Cut(string(readme), "\n## Check a machine")
	return string(c), setup[strings.Index(setup, "## Set up"):]
}
