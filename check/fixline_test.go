package check_test

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/echo-uma/echo/check"
	"github.com/echo-uma/echo/internal/testenv"
)

// As a user without capabilities, check's table ends with one setcap line, not one per item
// (each would replace the one before): run as written, it leaves every item it named ok, and
// a line check prints then (for what needs more) keeps what the first one granted.
func TestCheckOneSetcapLine(t *testing.T) {
	u := testenv.NewUnprivileged(t)
	if _, err := exec.LookPath("setcap"); err != nil {
		t.Skip("needs setcap (Debian: libcap2-bin)")
	}
	env := []string{"LD_LIBRARY_PATH=" + filepath.Join(u.Dir, "lib")}
	res := u.Run(t, nil, env, u.Echoctl, "check")
	lines := regexp.MustCompile(`(?m)^  ([^:]+): .*sudo (setcap \S+ \S+)$`).FindAllStringSubmatch(res.Stdout, -1)
	if len(lines) != 1 {
		t.Fatalf("%d setcap lines in %q: want one", len(lines), res.Stdout)
	}
	named := strings.Split(lines[0][1], ", ")
	if len(named) < 2 {
		t.Errorf("the setcap line fixes %q: want every item that wants a capability (capabilities, other users)", named)
	}
	fix := strings.Fields(lines[0][2])
	if b, err := exec.Command(fix[0], fix[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s", lines[0][2], err, b)
	}
	granted := strings.TrimSuffix(fix[1], "+ep")
	rep, items := decode(t, u.Run(t, nil, env, u.Echoctl, "check", "--json"))
	if rep.Fix != "" && !strings.Contains(rep.Fix, "setcap "+granted+",") {
		t.Errorf("after %s, check's fix %q drops what it granted", lines[0][2], rep.Fix)
	}
	for _, name := range named {
		if it := items[name]; it.Status != check.StatusOK {
			t.Errorf("after %s: %s %+v, want ok", lines[0][2], name, it)
		}
	}
	if !rep.OK {
		t.Errorf("after %s: items %+v, want tracing and deploying possible", lines[0][2], rep.Items)
	}
}
