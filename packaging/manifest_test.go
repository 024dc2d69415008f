package packaging

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/util/validation"
	kyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/echo-uma/echo/tracer"
)

const manifestFile = "daemonset.yaml"

// manifest is daemonset.yaml decoded: one object of each kind it must hold.
type manifest struct {
	namespace      *corev1.Namespace
	serviceAccount *corev1.ServiceAccount
	daemonSet      *appsv1.DaemonSet
	service        *corev1.Service
}

// decodeManifest decodes every document of a multi-document YAML file the way the API
// server does with strict field validation (kubectl apply --validate=strict): into the
// API's Go types through apimachinery's serializer, where an unknown field, a field spelt
// in another case, a duplicate field or a wrong type is an error, and so is a kind this
// file should not hold.
func decodeManifest(data []byte) (manifest, error) {
	scheme := runtime.NewScheme()
	if err := errors.Join(corev1.AddToScheme(scheme), appsv1.AddToScheme(scheme)); err != nil {
		return manifest{}, fmt.Errorf("registering the API types: %w", err)
	}
	codec := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme,
		kjson.SerializerOptions{Yaml: true, Strict: true})
	var m manifest
	r := kyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for i := 1; ; i++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return m, fmt.Errorf("reading document %d: %w", i, err)
		}
		if isEmptyDocument(doc) {
			continue
		}
		obj, gvk, err := codec.Decode(doc, nil, nil)
		if err != nil {
			return m, fmt.Errorf("decoding document %d: %w", i, err)
		}
		var dup bool
		switch o := obj.(type) {
		case *corev1.Namespace:
			dup, m.namespace = m.namespace != nil, o
		case *corev1.ServiceAccount:
			dup, m.serviceAccount = m.serviceAccount != nil, o
		case *appsv1.DaemonSet:
			dup, m.daemonSet = m.daemonSet != nil, o
		case *corev1.Service:
			dup, m.service = m.service != nil, o
		default:
			return m, fmt.Errorf("document %d: a %s has no place in %s", i, gvk.Kind, manifestFile)
		}
		if dup {
			return m, fmt.Errorf("document %d: a second %s", i, gvk.Kind)
		}
	}
	if m.namespace == nil || m.serviceAccount == nil || m.daemonSet == nil || m.service == nil {
		return m, errors.New("want a Namespace, a ServiceAccount, a DaemonSet and a Service")
	}
	return m, nil
}

// isEmptyDocument tells a document of comments alone (the file's header) from an object.
func isEmptyDocument(doc []byte) bool {
	for line := range strings.Lines(string(doc)) {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
			return false
		}
	}
	return true
}

// metricsPort is the port attach's --metrics serves on, named as the probes, the
// annotations and the Service refer to it.
const (
	metricsPortName = "metrics"
	metricsPort     = 9464
)

// capabilityNames maps Kubernetes' capability names (no CAP_ prefix) to the tracer's.
var capabilityNames = map[corev1.Capability]tracer.Capability{
	"BPF": tracer.CapBPF, "PERFMON": tracer.CapPerfmon, "SYS_ADMIN": tracer.CapSysAdmin,
	"SYS_PTRACE": tracer.CapSysPtrace, "DAC_READ_SEARCH": tracer.CapDACReadSearch,
}

// problems lists what would keep the tracer from working on a node, or the pods from being
// admitted, or Prometheus from finding them: what strict decoding cannot see.
func (m manifest) problems() []string {
	var out []string
	fail := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	ds := m.daemonSet
	ns := m.namespace.Name
	for _, meta := range []metav1.ObjectMeta{m.serviceAccount.ObjectMeta, ds.ObjectMeta, m.service.ObjectMeta} {
		if meta.Namespace != ns {
			fail("%s is in namespace %q, not %q", meta.Name, meta.Namespace, ns)
		}
	}
	pod := ds.Spec.Template
	sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
	if err != nil || sel.Empty() || !sel.Matches(labels.Set(pod.Labels)) {
		fail("the DaemonSet's selector does not select its own pods (the API server refuses it)")
	}
	if !labels.SelectorFromSet(m.service.Spec.Selector).Matches(labels.Set(pod.Labels)) || len(m.service.Spec.Selector) == 0 {
		fail("the Service's selector does not select the DaemonSet's pods")
	}
	if !pod.Spec.HostPID {
		fail("hostPID is off: attach would see only its own pod's processes")
	}
	if pod.Spec.ServiceAccountName != m.serviceAccount.Name {
		fail("the pods run as service account %q, not %q", pod.Spec.ServiceAccountName, m.serviceAccount.Name)
	}
	if len(pod.Spec.Containers) != 1 {
		fail("want one container, have %d", len(pod.Spec.Containers))
		return out
	}
	c := pod.Spec.Containers[0]
	port := slices.IndexFunc(c.Ports, func(p corev1.ContainerPort) bool { return p.Name == metricsPortName })
	if port < 0 || c.Ports[port].ContainerPort != metricsPort || c.Ports[port].Protocol != corev1.ProtocolTCP {
		fail("no TCP port %d named %q", metricsPort, metricsPortName)
	}
	for _, p := range c.Ports {
		if errs := validation.IsValidPortName(p.Name); p.Name != "" && len(errs) > 0 {
			fail("port name %q: %s", p.Name, strings.Join(errs, "; "))
		}
	}
	for name, probe := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe} {
		if probe == nil || probe.HTTPGet == nil || probe.HTTPGet.Path != "/metrics" || probe.HTTPGet.Port.String() != metricsPortName {
			fail("the %s probe does not GET /metrics on port %q", name, metricsPortName)
		}
	}
	a := pod.Annotations
	if a["prometheus.io/scrape"] != "true" || a["prometheus.io/port"] != fmt.Sprint(metricsPort) || a["prometheus.io/path"] != "/metrics" {
		fail("the prometheus.io annotations do not point at :%d/metrics", metricsPort)
	}
	if svc := m.service.Spec; svc.ClusterIP != corev1.ClusterIPNone || len(svc.Ports) != 1 ||
		svc.Ports[0].TargetPort.String() != metricsPortName {
		fail("the Service is not headless on the port named %q", metricsPortName)
	}
	lim, req := c.Resources.Limits, c.Resources.Requests
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		l, hasLimit := lim[r]
		q, hasRequest := req[r]
		switch {
		case !hasLimit || !hasRequest:
			fail("no %s request and limit", r)
		case q.Cmp(l) > 0:
			fail("the %s request %s is above its limit %s", r, q.String(), l.String())
		}
	}
	if mem := lim[corev1.ResourceMemory]; mem.Cmp(resource.MustParse("64Mi")) < 0 {
		fail("a memory limit of %s cannot hold the 16 MiB ring buffer and the tracer", mem.String())
	}
	if pod.Spec.NodeSelector["nvidia.com/gpu.present"] != "true" {
		fail("no nodeSelector for nvidia.com/gpu.present")
	}
	if !slices.ContainsFunc(pod.Spec.Tolerations, func(t corev1.Toleration) bool {
		return t.Key == "nvidia.com/gpu" && t.Operator == corev1.TolerationOpExists
	}) {
		fail("no toleration of the nvidia.com/gpu taint")
	}
	out = append(out, securityProblems(c.SecurityContext)...)
	return out
}

// securityProblems checks the container's privileges against the tracer's own account of
// what tracing needs (tracer.Privileges), for every kernel the tracer supports.
func securityProblems(sc *corev1.SecurityContext) []string {
	if sc == nil {
		return []string{"no securityContext: the tracer holds none of the capabilities it needs"}
	}
	if sc.Privileged != nil && *sc.Privileged {
		return nil // every capability, no seccomp or AppArmor confinement
	}
	var out []string
	var caps []tracer.Capability
	var added []corev1.Capability
	if sc.Capabilities != nil {
		added = sc.Capabilities.Add
	}
	for _, name := range added {
		if c, ok := capabilityNames[name]; ok {
			caps = append(caps, c)
		}
	}
	p := tracer.PrivilegesOf(true, caps...)
	if missing := p.CanTrace(); len(missing) > 0 {
		out = append(out, fmt.Sprintf("cannot load the tracer: lacks %v", missing))
	}
	for _, need := range []struct {
		c   tracer.Capability
		why string
	}{
		{tracer.CapSysAdmin, "perf-event uprobes, on kernels without uprobe_multi (before 6.6)"},
		{tracer.CapSysPtrace, "/proc/PID/root of processes in other containers"},
	} {
		if !p.Has(need.c) {
			out = append(out, fmt.Sprintf("lacks %v, which %s need", need.c, need.why))
		}
	}
	// The API server refuses no_new_privs beside CAP_SYS_ADMIN.
	if sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation && p.Has(tracer.CapSysAdmin) {
		out = append(out, "allowPrivilegeEscalation: false with SYS_ADMIN (the API server refuses it)")
	}
	if sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeUnconfined {
		out = append(out, "seccomp is not Unconfined: a runtime's default profile may refuse bpf()")
	}
	if sc.AppArmorProfile == nil || sc.AppArmorProfile.Type != corev1.AppArmorProfileTypeUnconfined {
		out = append(out, "AppArmor is not Unconfined: the default profile refuses other containers' /proc/PID/root")
	}
	return out
}

func readManifest(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(manifestFile)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// mutate replaces old, which must occur exactly once, so that a case cannot pass by
// changing nothing.
func mutate(t *testing.T, data []byte, old, new string) []byte {
	t.Helper()
	if n := bytes.Count(data, []byte(old)); n != 1 {
		t.Fatalf("%q occurs %d times in %s, want once", old, n, manifestFile)
	}
	return bytes.Replace(data, []byte(old), []byte(new), 1)
}

func TestManifest(t *testing.T) {
	m, err := decodeManifest(readManifest(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.problems() {
		t.Error(p)
	}
}

// Each case breaks the manifest one way that strict decoding must catch.
func TestManifestStrictDecoding(t *testing.T) {
	data := readManifest(t)
	for _, tc := range []struct{ name, old, new, want string }{
		{"field in another case", "hostPID: true", "hostPid: true", `unknown field "spec.template.spec.hostPid"`},
		{"misspelt field", "imagePullPolicy:", "imagePullPolcy:", `unknown field "spec.template.spec.containers[0].imagePullPolcy"`},
		{"wrong type", "containerPort: 9464", `containerPort: "9464"`, "containerPort"},
		{"duplicate field", "hostPID: true", "hostPID: true\n      hostPID: false", `"hostPID" already set`},
		{"unknown kind", "kind: DaemonSet", "kind: Daemonset", "Daemonset"},
		{"kind of another group", "apiVersion: apps/v1", "apiVersion: v1", "DaemonSet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeManifest(mutate(t, data, tc.old, tc.new))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("decoding: %v, want an error naming %s", err, tc.want)
			}
		})
	}
}

// Each case decodes but breaks what the tracer, the API server or Prometheus needs.
func TestManifestProblems(t *testing.T) {
	data := readManifest(t)
	for _, tc := range []struct{ name, old, new, want string }{
		{"no hostPID", "hostPID: true", "hostPID: false", "hostPID is off"},
		{"ptrace alone", `add: ["BPF", "PERFMON", "SYS_ADMIN", "SYS_PTRACE", "SYS_RESOURCE"]`, `add: ["SYS_PTRACE"]`, "cannot load the tracer"},
		{"no SYS_PTRACE", `"SYS_PTRACE", `, "", "CAP_SYS_PTRACE"},
		{"no SYS_ADMIN", `"SYS_ADMIN", `, "", "CAP_SYS_ADMIN"},
		{"no_new_privs beside SYS_ADMIN", "privileged: false\n", "privileged: false\n            allowPrivilegeEscalation: false\n", "allowPrivilegeEscalation"},
		{"seccomp confined", "seccompProfile:\n              type: Unconfined", "seccompProfile:\n              type: RuntimeDefault", "seccomp"},
		{"other port", "containerPort: 9464", "containerPort: 9465", "no TCP port 9464"},
		{"probe elsewhere", "livenessProbe:\n            httpGet:\n              path: /metrics", "livenessProbe:\n            httpGet:\n              path: /healthz", "liveness probe"},
		{"no memory limit", "memory: 512Mi\n", "\n", "no memory request and limit"},
		{"request above limit", "cpu: 100m", "cpu: 2", "cpu request 2 is above"},
		{"selector misses the pods", "      app.kubernetes.io/name: echoctl\n  updateStrategy", "      app.kubernetes.io/name: other\n  updateStrategy", "selector does not select its own pods"},
		{"scrape port", `prometheus.io/port: "9464"`, `prometheus.io/port: "9090"`, "prometheus.io"},
		{"no GPU toleration", "- key: nvidia.com/gpu\n", "- key: example.com/gpu\n", "toleration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := decodeManifest(mutate(t, data, tc.old, tc.new))
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(m.problems(), "\n")
			if got == "" || !strings.Contains(got, tc.want) {
				t.Fatalf("problems:\n%s\nwant one naming %q", got, tc.want)
			}
		})
	}
}
