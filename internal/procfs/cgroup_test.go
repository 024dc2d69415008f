package procfs

import (
	"os"
	"testing"
)

func TestParseCgroup(t *testing.T) {
	cases := []struct {
		name, in, want string
		err            bool
	}{
		{"v2", "0::/system.slice/docker-0123abcd.scope\n", "/system.slice/docker-0123abcd.scope", false},
		{"v2 root", "0::/\n", "/", false},
		{"colon in path", "0::/a:b/c\n", "/a:b/c", false},
		{"hybrid, placed in v1 only", "12:cpu,cpuacct:/kubepods/besteffort/pod1\n4:memory:/kubepods/besteffort/pod1\n0::/\n",
			"/kubepods/besteffort/pod1", false},
		{"hybrid, placed in both", "4:memory:/v1path\n0::/v2path\n", "/v2path", false},
		{"v1 only", "1:name=systemd:/\n4:memory:/docker/abc\n", "/docker/abc", false},
		{"v1 all root", "1:name=systemd:/\n4:memory:/\n", "/", false},
		{"empty", "", "", true},
		{"not a cgroup file", "hello\n", "", true},
		{"relative path", "0::relative\n", "", true},
	}
	for _, c := range cases {
		got, err := ParseCgroup([]byte(c.in))
		if got != c.want || (err != nil) != c.err {
			t.Errorf("%s: ParseCgroup(%q) = %q, %v; want %q, error %v", c.name, c.in, got, err, c.want, c.err)
		}
	}
}

// The paths are the kubelet's, with each cgroup driver, and paths that look alike but are
// not a pod's.
func TestPodUID(t *testing.T) {
	const uid = "8f1a1d3e-0c4b-4c1e-9d7a-2b3c4d5e6f70"
	cases := []struct{ path, want string }{
		{"/kubepods/burstable/pod" + uid + "/0123456789abcdef", uid},
		{"/kubepods/pod" + uid + "/abc", uid}, // guaranteed QoS: no class level
		{"/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod8f1a1d3e_0c4b_4c1e_9d7a_2b3c4d5e6f70.slice/cri-containerd-0123.scope", uid},
		{"/kubepods.slice/kubepods-pod8f1a1d3e_0c4b_4c1e_9d7a_2b3c4d5e6f70.slice", uid},
		{"/system.slice/docker-0123.scope", ""},
		{"/user.slice/pod" + uid, ""},                  // not under kubepods
		{"/kubepods/burstable/podnotauid/abc", ""},     // no UID
		{"/kubepods/burstable/mypod" + uid + "/x", ""}, // "pod" inside another name
		{"/", ""},
	}
	for _, c := range cases {
		if got := PodUID(c.path); got != c.want {
			t.Errorf("PodUID(%q) = %q; want %q", c.path, got, c.want)
		}
	}
}

// This process's own cgroup file parses, whatever hierarchy the machine has.
func TestCgroupSelf(t *testing.T) {
	path, err := Cgroup(os.Getpid())
	if err != nil || path == "" || path[0] != '/' {
		t.Errorf("Cgroup(self) = %q, %v; want an absolute path", path, err)
	}
}
