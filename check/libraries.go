package check

import (
	"bufio"
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	"github.com/echo-uma/echo/tracer"
)

// Library is a CUDA runtime or driver library found on the machine.
type Library struct {
	Path  string `json:"path"`
	Kind  string `json:"kind"`  // "runtime" or "driver"
	Found string `json:"found"` // where the search found it first
}

// Where a library can be found, in the order they are searched.
const (
	fromLibraryPath = "LD_LIBRARY_PATH"
	fromCache       = "ld.so cache"
	fromToolkit     = "CUDA toolkit"
	fromSystem      = "system library directory"
	fromWheel       = "pip wheel"
)

// FindLibraries searches for CUDA runtime and driver libraries the way a program would come
// by them: LD_LIBRARY_PATH, the loader's cache, the toolkit's directories, the system's
// library directories, and NVIDIA's pip wheels. A file reached under several names is listed
// once, by its soname-like name (libcudart.so.12 rather than libcudart.so); libraries built
// for another architecture are left out, as the loader would skip them.
func FindLibraries(libraryPath string) []Library {
	var found []Library
	where := map[string]int{} // real path -> index in found
	add := func(path, source string) {
		base := filepath.Base(path)
		kind := ""
		switch {
		case !strings.Contains(base, ".so"):
			return // a static archive: nothing a loader finds
		case tracer.IsCUDARuntime(path):
			kind = "runtime"
		case tracer.IsCUDADriver(path):
			kind = "driver"
		default:
			return
		}
		real, err := filepath.EvalSymlinks(path)
		if err != nil || !nativeELF(real) {
			return
		}
		if i, ok := where[real]; ok {
			if !sonameLike(found[i].Path) && sonameLike(path) {
				found[i].Path = path
			}
			return
		}
		where[real] = len(found)
		found = append(found, Library{Path: path, Kind: kind, Found: source})
	}
	for _, dir := range filepath.SplitList(libraryPath) {
		if dir != "" {
			addDir(dir, fromLibraryPath, add)
		}
	}
	for _, path := range loaderCache() {
		add(path, fromCache)
	}
	for _, pattern := range []string{"/usr/local/cuda*/lib64", "/usr/local/cuda*/targets/*/lib", "/opt/cuda/lib64"} {
		addGlob(pattern, fromToolkit, add)
	}
	for _, dir := range []string{"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
		"/usr/lib/aarch64-linux-gnu/nvidia", "/usr/lib/aarch64-linux-gnu/tegra", "/usr/lib64", "/usr/lib",
		"/usr/lib/wsl/lib"} {
		addDir(dir, fromSystem, add)
	}
	for _, sp := range sitePackages() {
		addGlob(filepath.Join(sp, "nvidia", "*", "lib"), fromWheel, add)
	}
	return found
}

func addDir(dir, source string, add func(path, source string)) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "libcuda") {
			add(filepath.Join(dir, e.Name()), source)
		}
	}
}

func addGlob(pattern, source string, add func(path, source string)) {
	dirs, _ := filepath.Glob(pattern)
	for _, dir := range dirs {
		addDir(dir, source, add)
	}
}

// loaderCache lists the CUDA libraries in the dynamic loader's cache (ldconfig -p):
// "\tlibcudart.so.12 (libc6,x86-64) => /usr/local/cuda/lib64/libcudart.so.12".
func loaderCache() []string {
	ldconfig, err := exec.LookPath("ldconfig")
	if err != nil {
		ldconfig = "/sbin/ldconfig"
	}
	out, err := exec.Command(ldconfig, "-p").Output()
	if err != nil {
		return nil
	}
	var paths []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		name, path, ok := strings.Cut(strings.TrimSpace(sc.Text()), " => ")
		if ok && strings.HasPrefix(name, "libcuda") {
			paths = append(paths, path)
		}
	}
	return paths
}

// sitePackages are the Python package directories NVIDIA's wheels install into
// (nvidia/cuda_runtime/lib/libcudart.so.12 and kin): the system's, the user's, and an
// active virtual or conda environment's.
func sitePackages() []string {
	patterns := []string{"/usr/lib/python3*/*-packages", "/usr/local/lib/python3*/*-packages"}
	if home, err := os.UserHomeDir(); err == nil {
		patterns = append(patterns, filepath.Join(home, ".local/lib/python3*/site-packages"))
	}
	for _, env := range []string{"VIRTUAL_ENV", "CONDA_PREFIX"} {
		if dir := os.Getenv(env); dir != "" {
			patterns = append(patterns, filepath.Join(dir, "lib/python3*/site-packages"))
		}
	}
	var dirs []string
	for _, p := range patterns {
		m, _ := filepath.Glob(p)
		dirs = append(dirs, m...)
	}
	return dirs
}

var soname = regexp.MustCompile(`\.so\.[0-9]+$`)

// sonameLike: libcudart.so.12, the name programs are linked against.
func sonameLike(path string) bool { return soname.MatchString(path) }

// nativeELF reports whether the file is a shared object this machine's programs can load.
func nativeELF(path string) bool {
	f, err := elf.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[runtime.GOARCH]
	return want == 0 || f.Machine == want
}

// libraryItems report the runtime and driver libraries found. Neither is required: programs
// often bring their own runtime (an rpath, a wheel), and the emulator stands in for a driver.
func libraryItems(libs []Library) []Item {
	list := func(kind string) string {
		var s []string
		for _, l := range libs {
			if l.Kind == kind {
				s = append(s, l.Path+" ("+l.Found+")")
			}
		}
		return strings.Join(s, "; ")
	}
	searched := "LD_LIBRARY_PATH, the ld.so cache, /usr/local/cuda*, the system library directories and pip wheels"
	rt := Item{Name: "CUDA runtime", Status: StatusOK, Detail: list("runtime")}
	if rt.Detail == "" {
		rt = Item{Name: "CUDA runtime", Status: StatusWarn, Disables: "the GPU check below",
			Detail: "no libcudart in " + searched + "; programs that bring their own (rpath, wheels) still trace and run"}
	}
	drv := Item{Name: "CUDA driver", Status: StatusOK, Detail: list("driver")}
	if drv.Detail == "" {
		drv = Item{Name: "CUDA driver", Status: StatusWarn, Disables: "CUDA programs on a real GPU (the runtime loads libcuda.so.1)",
			Detail: "no libcuda.so in " + searched}
	}
	return []Item{rt, drv}
}
