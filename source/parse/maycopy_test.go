package parse

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// MayCopy: a unit may copy where cudaMemcpy, or a ## that could paste it, is written in it, in
// a tree file it reaches through its includes (beside the includer, through -I, by name), in a
// file -include puts ahead of it, or in a define of its command; and where a file it reaches
// cannot be read. A unit that writes none and reaches none may not, and neither do headers
// outside the tree count (the survey does not read them).
func TestMayCopy(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	const upload = "#define UPLOAD(d, h, n) cudaMemcpy(d, h, n, cudaMemcpyHostToDevice)\n"
	files := map[string]string{
		"plain.cu":             "#include \"kernel.cuh\"\n#include <vector>\nint main(void) { return 0; }\n",
		"kernel.cuh":           "__global__ void k(float *p) { p[0] = 1; }\n",
		"direct.cu":            "void f(float *d, float *h) { cudaMemcpyAsync(d, h, 4, cudaMemcpyHostToDevice, 0); }\n",
		"macro.cu":             "#include \"helpers.h\"\nvoid f(float *d, float *h) { UPLOAD(d, h, 4); }\n",
		"common/helpers.h":     "#include \"deep/upload.h\"\n",
		"common/deep/upload.h": upload,
		"pasted.cu":            "#define CALL(x, k) cuda##x(d, h, 4, cuda##k)\nvoid f(float *d, float *h) { CALL(Memcpy, MemcpyHostToDevice); }\n",
		"defined.cu":           "void f(float *d, float *h) { COPY(d, h, 4); }\n",
		"first.cu":             "void f(float *d, float *h) { UPLOAD(d, h, 4); }\n",
		"pre.h":                upload,
		// By name alone the tree's nearer uploads.h, which does not copy, would be taken.
		"near/viadir.cu":   "#include <uploads.h>\nvoid f(float *d, float *h) { UPLOAD(d, h, 4); }\n",
		"near/x/uploads.h": "int nothing;\n",
		"inc/uploads.h":    upload,
		"outside.cu":       "#include <lib_upload.h>\nvoid f(float *d, float *h) { UPLOAD(d, h, 4); }\n",
		"big.cu":           "#include \"big.h\"\nint main(void) { return 0; }\n",
		"big.h":            "/*" + strings.Repeat("x", 4<<10) + "*/\n",
	}
	writeTree(t, root, files)
	if err := os.WriteFile(filepath.Join(outside, "lib_upload.h"), []byte(upload), 0o644); err != nil {
		t.Fatal(err)
	}
	var units []string
	for name := range files {
		if strings.HasSuffix(name, ".cu") {
			units = append(units, filepath.Join(root, name))
		}
	}
	// big.h is past the size limit, so it cannot be read: it may copy.
	idx := IndexTree(root, units, Limits{FileSize: 1 << 10})
	for _, c := range []struct {
		unit string
		args []string
		want bool
	}{
		{"plain.cu", nil, false},
		{"direct.cu", nil, true},
		{"macro.cu", nil, true},
		{"pasted.cu", nil, true},
		{"defined.cu", nil, false},
		{"defined.cu", []string{"-DCOPY(d,h,n)=cudaMemcpy(d,h,n,cudaMemcpyHostToDevice)"}, true},
		{"first.cu", nil, false},
		{"first.cu", []string{"-include", filepath.Join(root, "pre.h")}, true},
		{"near/viadir.cu", []string{"-I" + filepath.Join(root, "inc")}, true},
		{"outside.cu", []string{"-I" + outside}, false},
		{"big.cu", nil, true},
	} {
		cmd := Command{File: filepath.Join(root, c.unit), Args: c.args}
		if got := idx.MayCopy(cmd); got != c.want {
			t.Errorf("MayCopy(%s %v) = %v, want %v", c.unit, c.args, got, c.want)
		}
	}
}
