package procfs

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// Cgroup is the control group process pid is in: what a container runtime names a container
// by, and what cAdvisor's `id` label says.
func Cgroup(pid int) (string, error) {
	b, err := os.ReadFile(Dir(pid) + "/cgroup")
	if err != nil {
		return "", fmt.Errorf("reading the cgroup of process %d: %w", pid, err)
	}
	return ParseCgroup(b)
}

// ParseCgroup reads the path out of a cgroup file, whose lines are "ID:CONTROLLERS:PATH".
// Under cgroup v2 the one line is "0::PATH". On a hybrid host, where v1 hierarchies sit
// beside the unified one, a container runtime may have placed the process in the v1
// hierarchies only, leaving "0::/": the first v1 path other than the root is taken then.
// The path may hold ':', so each line is split at its first two.
func ParseCgroup(b []byte) (string, error) {
	unified, v1 := "", ""
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte{'\n'}) {
		parts := bytes.SplitN(line, []byte{':'}, 3)
		if len(parts) != 3 || !bytes.HasPrefix(parts[2], []byte{'/'}) {
			return "", fmt.Errorf("parsing cgroup line %q: %w: want ID:CONTROLLERS:/PATH", line, ErrFormat)
		}
		path := string(parts[2])
		switch {
		case string(parts[0]) == "0" && len(parts[1]) == 0:
			unified = path
		case v1 == "" && path != "/":
			v1 = path
		}
	}
	switch {
	case unified != "" && unified != "/":
		return unified, nil
	case v1 != "":
		return v1, nil
	}
	return "/", nil
}

// podUID finds a Kubernetes pod's UID in a cgroup path. The kubelet names each pod's cgroup
// "pod" + UID under "kubepods": /kubepods/burstable/pod<uid>/<container> with the cgroupfs
// driver, .../kubepods-burstable-pod<uid with '_' for '-'>.slice/... with the systemd one.
var podUID = regexp.MustCompile(`(?:^|[/-])pod([0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12})(?:\.slice)?(?:/|$)`)

// PodUID is the UID of the Kubernetes pod whose cgroup path is path, "" when the path is not
// a pod's. The pod's name and namespace are not in the path, nor anywhere else on the node
// without asking the API server or the kubelet.
func PodUID(path string) string {
	if !strings.Contains(path, "kubepods") {
		return ""
	}
	m := podUID.FindStringSubmatch(path)
	if m == nil {
		return ""
	}
	return strings.ReplaceAll(m[1], "_", "-")
}
