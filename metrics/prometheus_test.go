package metrics_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/echo-uma/echo/internal/procfs"
	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/trace"
)

// A real Prometheus server scrapes `echoctl attach --metrics` beside two stream workloads:
// it finds each one's series with its PID, command name, build-id and control group, its
// bytes going up, and the node's own series; a workload killed leaves echoctl's /metrics
// and Prometheus's current answer.
func TestPrometheusScrapesAttach(t *testing.T) {
	testenv.RequireRoot(t)
	prom := testenv.Tool(t, "prometheus", "server to scrape echoctl")
	big, small := testenv.LongStream(t, "256K"), testenv.LongStream(t, "64K")
	pids := []int{big.Process.Pid, small.Process.Pid}
	target := startAttachMetrics(t, pids)
	api := startPrometheus(t, prom, target)

	wantID := fileBuildID(t, testenv.Built(t, "workloads/stream"))
	first := map[int]float64{}
	for _, pid := range pids {
		q := fmt.Sprintf(`echo_copy_bytes_total{job="echo",pid="%d",direction="h2d"}`, pid)
		s := waitSeries(t, api, q, func(s series) bool { return s.value > 0 })
		cgroup, err := procfs.Cgroup(pid)
		if err != nil {
			t.Fatal(err)
		}
		if s.labels["comm"] != "stream" || s.labels["build_id"] != wantID || s.labels["container"] != cgroup {
			t.Errorf("process %d's labels %v: want comm stream, build_id %s, container %s", pid, s.labels, wantID, cgroup)
		}
		first[pid] = s.value
	}
	for _, pid := range pids {
		q := fmt.Sprintf(`echo_copy_bytes_total{job="echo",pid="%d",direction="d2h"}`, pid)
		waitSeries(t, api, q, func(s series) bool { return s.value > 0 })
		q = fmt.Sprintf(`echo_copy_bytes_total{job="echo",pid="%d",direction="h2d"}`, pid)
		waitSeries(t, api, q, func(s series) bool { return s.value > first[pid] })
		for _, name := range []string{"echo_kernel_launches_total", "echo_copy_share_ratio", "echo_candidate_pairs"} {
			waitSeries(t, api, fmt.Sprintf(`%s{job="echo",pid="%d"}`, name, pid), func(s series) bool { return s.value > 0 })
		}
	}
	waitSeries(t, api, `process_resident_memory_bytes{job="echo"}`, func(s series) bool { return s.value > 1<<20 })
	waitSeries(t, api, `echo_watched_processes{job="echo"}`, func(s series) bool { return s.value == 2 })

	// The killed workload's series leave echoctl's page at its next sample, and so
	// Prometheus's current answer (a series gone from a scrape is marked stale).
	small.Process.Kill()
	small.Wait()
	gone := fmt.Sprintf(`pid="%d"`, small.Process.Pid)
	kept := fmt.Sprintf(`pid="%d"`, big.Process.Pid)
	deadline := time.Now().Add(30 * time.Second)
	for page := scrape(t, target); strings.Contains(page, gone); page = scrape(t, target) {
		if time.Now().After(deadline) {
			t.Fatalf("the killed workload's series are still on /metrics after 30s:\n%s", page)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if page := scrape(t, target); !strings.Contains(page, kept) {
		t.Errorf("the running workload's series left /metrics too:\n%s", page)
	}
	q := fmt.Sprintf(`echo_copy_bytes_total{job="echo",pid="%d"}`, small.Process.Pid)
	for deadline := time.Now().Add(30 * time.Second); len(query(t, api, q)) > 0; time.Sleep(500 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("Prometheus still answers %s 30s after the workload was killed", q)
		}
	}
	waitSeries(t, api, `echo_watched_processes{job="echo"}`, func(s series) bool { return s.value == 1 })
}

// startAttachMetrics runs `echoctl attach --metrics` on a free loopback port for pids and
// returns the host:port it serves once it says it does. The test's cleanup interrupts it
// and checks that it exits 0.
func startAttachMetrics(t *testing.T, pids []int) string {
	t.Helper()
	var list []string
	for _, pid := range pids {
		list = append(list, strconv.Itoa(pid))
	}
	cmd := exec.Command(testenv.Built(t, "bin/echoctl"), "attach", "--launches", "--metrics", "127.0.0.1:0",
		"--interval", "500ms", "-p", strings.Join(list, ","))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	done := make(chan error, 1)
	r := bufio.NewReader(stderr)
	line, err := r.ReadString('\n')
	go func() {
		io.Copy(&log, r)
		done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT)
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("echoctl attach --metrics on SIGINT: %v: %s", err, log.String())
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Errorf("echoctl attach --metrics still runs 30s after SIGINT")
		}
	})
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "serving metrics on http://")
	if err != nil || !ok {
		t.Fatalf("echoctl attach --metrics said %q (%v), want where it serves", line, err)
	}
	return strings.TrimSuffix(addr, "/metrics")
}

// startPrometheus runs a Prometheus server on a free loopback port, scraping target every
// second into a temporary store, and returns its address once it is ready.
func startPrometheus(t *testing.T, bin, target string) string {
	t.Helper()
	dir := t.TempDir()
	config := filepath.Join(dir, "prometheus.yml")
	err := os.WriteFile(config, []byte(fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: echo
    static_configs:
      - targets: ['%s']
`, target)), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	addr := freePort(t)
	log, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	cmd := exec.Command(bin, "--config.file="+config, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = log, log
	testenv.Start(t, cmd)
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return addr
			}
		}
		if time.Now().After(deadline) {
			said, _ := os.ReadFile(log.Name())
			t.Fatalf("prometheus is not ready after 60s: %s", said)
		}
	}
}

// freePort is a loopback address no one listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// series is one element of an instant query's answer.
type series struct {
	labels map[string]string
	value  float64
}

// query asks Prometheus at api for the instant vector of a PromQL expression.
func query(t *testing.T, api, expr string) []series {
	t.Helper()
	resp, err := http.Get("http://" + api + "/api/v1/query?query=" + url.QueryEscape(expr))
	if err != nil {
		t.Fatalf("querying prometheus: %v", err)
	}
	defer resp.Body.Close()
	var doc struct {
		Status string
		Error  string
		Data   struct {
			Result []struct {
				Metric map[string]string
				Value  [2]any // [time, "value"]
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || doc.Status != "success" {
		t.Fatalf("query %s: status %q, %v: %s", expr, doc.Status, err, doc.Error)
	}
	var out []series
	for _, r := range doc.Data.Result {
		text, _ := r.Value[1].(string)
		v, err := strconv.ParseFloat(text, 64)
		if err != nil {
			t.Fatalf("query %s: value %v: %v", expr, r.Value, err)
		}
		out = append(out, series{labels: r.Metric, value: v})
	}
	return out
}

// waitSeries waits up to a minute for expr to give one series for which ok holds, and
// returns it.
func waitSeries(t *testing.T, api, expr string, ok func(series) bool) series {
	t.Helper()
	var last []series
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		last = query(t, api, expr)
		if len(last) == 1 && ok(last[0]) {
			return last[0]
		}
	}
	t.Fatalf("query %s: %+v after a minute", expr, last)
	return series{}
}

// scrape reads echoctl's /metrics page as Prometheus would.
func scrape(t *testing.T, target string) string {
	t.Helper()
	resp, err := http.Get("http://" + target + "/metrics")
	if err != nil {
		t.Fatalf("scraping echoctl: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fileBuildID is the build-id of the ELF file at path.
func fileBuildID(t *testing.T, path string) string {
	t.Helper()
	id, err := trace.FileBuildID(path)
	if err != nil || id == "" {
		t.Fatalf("build-id of %s: %q, %v", path, id, err)
	}
	return id
}
