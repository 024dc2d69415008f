package packaging

import (
	"fmt"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/linter"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	corev1 "k8s.io/api/core/v1"
)

const containerFile = "Containerfile"

// image is what the Containerfile's last stage says about the container it makes.
type image struct {
	entrypoint, cmd []string
	execForm        bool     // ENTRYPOINT in JSON form: echoctl is PID 1 and gets SIGTERM
	copied          []string // destinations of COPY --from=<an earlier stage>
	exposed         []string
}

// parseContainerfile reads the Containerfile with BuildKit's own parser and instruction
// parser (what `docker build` runs first), treating its lint warnings as errors.
func parseContainerfile(data string) (image, error) {
	res, err := parser.Parse(strings.NewReader(data))
	if err != nil {
		return image{}, fmt.Errorf("parsing %s: %w", containerFile, err)
	}
	var warnings []string
	for _, w := range res.Warnings {
		warnings = append(warnings, w.Short)
	}
	lint := linter.New(&linter.Config{Warn: func(rule, _, _, msg string, _ []parser.Range) {
		warnings = append(warnings, rule+": "+msg)
	}})
	stages, _, err := instructions.Parse(res.AST, lint)
	if err != nil {
		return image{}, fmt.Errorf("reading %s's instructions: %w", containerFile, err)
	}
	if len(warnings) > 0 {
		return image{}, fmt.Errorf("%s: %s", containerFile, strings.Join(warnings, "; "))
	}
	if len(stages) < 2 {
		return image{}, fmt.Errorf("%s: want a build stage and a runtime stage, have %d stages", containerFile, len(stages))
	}
	var img image
	for _, c := range stages[len(stages)-1].Commands {
		switch c := c.(type) {
		case *instructions.EntrypointCommand:
			img.entrypoint, img.execForm = c.CmdLine, !c.PrependShell
		case *instructions.CmdCommand:
			img.cmd = c.CmdLine
		case *instructions.CopyCommand:
			if c.From != "" {
				img.copied = append(img.copied, c.DestPath)
			}
		case *instructions.ExposeCommand:
			img.exposed = append(img.exposed, c.Ports...)
		}
	}
	return img, nil
}

// argv is what a container of this image runs under a Kubernetes container spec: command
// replaces the image's ENTRYPOINT (and drops its CMD), args replaces its CMD.
func (img image) argv(c corev1.Container) []string {
	switch {
	case len(c.Command) > 0:
		return slices.Concat(c.Command, c.Args)
	case len(c.Args) > 0:
		return slices.Concat(img.entrypoint, c.Args)
	}
	return slices.Concat(img.entrypoint, img.cmd)
}

// attachMetricsPort checks argv is `echoctl attach --metrics ADDR` and returns ADDR's port.
func attachMetricsPort(argv []string) (int, error) {
	if len(argv) < 2 || path.Base(argv[0]) != "echoctl" || argv[1] != "attach" {
		return 0, fmt.Errorf("runs %q, not echoctl attach", argv)
	}
	for i, a := range argv {
		addr, ok := strings.CutPrefix(a, "--metrics=")
		if !ok && a == "--metrics" && i+1 < len(argv) {
			addr, ok = argv[i+1], true
		}
		if ok {
			_, port, _ := strings.Cut(addr, ":")
			return strconv.Atoi(port)
		}
	}
	return 0, fmt.Errorf("runs %q, without --metrics", argv)
}

// problems lists what keeps this image from serving the DaemonSet's container c: the
// command it would run, the binary behind it, the port.
func (img image) problems(c corev1.Container) []string {
	var out []string
	if !img.execForm {
		out = append(out, "ENTRYPOINT is in shell form: /bin/sh would be PID 1 and keep SIGTERM from echoctl")
	}
	if len(img.entrypoint) == 0 || !slices.Contains(img.copied, img.entrypoint[0]) {
		out = append(out, fmt.Sprintf("ENTRYPOINT %q is not the file copied from the build stage (%q)", img.entrypoint, img.copied))
	}
	if !slices.Contains(img.exposed, strconv.Itoa(metricsPort)) {
		out = append(out, fmt.Sprintf("EXPOSE %q lacks %d", img.exposed, metricsPort))
	}
	for _, run := range []struct {
		name string
		c    corev1.Container
	}{{"the image alone", corev1.Container{}}, {"the DaemonSet's container", c}} {
		port, err := attachMetricsPort(img.argv(run.c))
		if err != nil {
			out = append(out, fmt.Sprintf("%s: %v", run.name, err))
		} else if port != metricsPort {
			out = append(out, fmt.Sprintf("%s serves metrics on port %d, the manifest names %d", run.name, port, metricsPort))
		}
	}
	return out
}

func readContainerfile(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(containerFile)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func daemonSetContainer(t *testing.T) corev1.Container {
	t.Helper()
	m, err := decodeManifest(readManifest(t))
	if err != nil {
		t.Fatal(err)
	}
	return m.daemonSet.Spec.Template.Spec.Containers[0]
}

// The image runs `echoctl attach --metrics :9464` by default and under the DaemonSet, on the
// port the manifest names, with echoctl as PID 1 and the binary the build stage made.
func TestImageRunsWhatTheDaemonSetExpects(t *testing.T) {
	img, err := parseContainerfile(readContainerfile(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range img.problems(daemonSetContainer(t)) {
		t.Error(p)
	}
}

// Each case breaks the Containerfile, or what it runs, one way the test above must catch.
func TestContainerfileBroken(t *testing.T) {
	good, c := readContainerfile(t), daemonSetContainer(t)
	for _, tc := range []struct{ name, old, new, want string }{
		{"unknown instruction", "WORKDIR /src", "WORKDR /src", "unknown instruction"},
		{"unterminated heredoc", "RUN go mod download", "RUN <<EOF\ngo mod download", "unterminated heredoc"},
		{"broken JSON form", `ENTRYPOINT ["/usr/bin/echoctl"]`, `ENTRYPOINT ["/usr/bin/echoctl"`, "shell form"},
		{"other subcommand", `CMD ["attach", "--metrics", ":9464"]`, `CMD ["trace", "--metrics", ":9464"]`, "the image alone: runs"},
		{"no metrics", `CMD ["attach", "--metrics", ":9464"]`, `CMD ["attach"]`, "without --metrics"},
		{"other port", `CMD ["attach", "--metrics", ":9464"]`, `CMD ["attach", "--metrics", ":9090"]`, "port 9090"},
		{"copy elsewhere", "/src/build/bin/echoctl /usr/bin/echoctl", "/src/build/bin/echoctl /usr/local/bin/echoctl", "not the file copied"},
		{"not exposed", "EXPOSE 9464", "EXPOSE 8080", "EXPOSE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if n := strings.Count(good, tc.old); n != 1 {
				t.Fatalf("%q occurs %d times in %s, want once", tc.old, n, containerFile)
			}
			img, err := parseContainerfile(strings.Replace(good, tc.old, tc.new, 1))
			problems := []string{fmt.Sprint(err)}
			if err == nil {
				problems = img.problems(c)
			}
			if got := strings.Join(problems, "\n"); !strings.Contains(got, tc.want) {
				t.Fatalf("problems: %q, want one naming %q", got, tc.want)
			}
		})
	}
}
