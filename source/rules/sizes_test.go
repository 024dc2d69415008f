package rules

import (
	"path/filepath"
	"testing"

	"github.com/echo-uma/echo/source/internal/sourcetest"
)

// proveSource parses src, written to a file of the given name, and proves its pairs.
func proveSource(t *testing.T, name, src string) []Proof {
	t.Helper()
	sourcetest.NeedClang(t)
	return Prove(sourcetest.ParseSource(t, filepath.Join(t.TempDir(), name), src))
}

// checkFullCopies checks that the proofs are of the functions want names, one each, and that
// a function's copies are all of the whole buffer where want says so, and not all where not.
func checkFullCopies(t *testing.T, ps []Proof, want map[string]bool) {
	t.Helper()
	seen := map[string]bool{}
	for _, p := range ps {
		full := len(p.Copies) > 0
		for _, c := range p.Copies {
			full = full && c.Full
		}
		if w, ok := want[p.Function]; !ok || full != w || seen[p.Function] {
			t.Errorf("%s: full-buffer copies = %v, want %v (%+v)", p.Function, full, w, p.Verdicts[0])
		}
		seen[p.Function] = true
	}
	for f := range want {
		if !seen[f] {
			t.Errorf("%s: no pair found", f)
		}
	}
}

// Sizes written with sizeof, in either order, through a typedef or as calloc's two arguments
// are the allocation's; a different type of the same size, a signed product regrouped, a
// product that wraps in 32 bits on one side only, a variable-length array and a type declared
// in two scopes under one name are not provably so.
func TestFullBufferSizes(t *testing.T) {
	src := `#include <cuda_runtime.h>
#include <stdlib.h>
typedef float real;
__global__ void k(void *p) {}
#define PAIR(h, d, halloc, dsize, csize)                      \
	cudaMalloc((void **)&d, dsize);                         \
	cudaMemcpy(d, h, csize, cudaMemcpyHostToDevice);       \
	k<<<1, 1>>>(d);                                         \
	cudaMemcpy(h, d, csize, cudaMemcpyDeviceToHost);       \
	cudaFree(d);                                            \
	free(h);
void inline_sizeof(int n) {
	float *h = (float *)malloc(n * sizeof(float)), *d;
	PAIR(h, d, 0, n * sizeof(float), n * sizeof(float))
}
void reordered(int size) {
	int *h = (int *)malloc(sizeof(int) * size), *d;
	PAIR(h, d, 0, size * sizeof(int), sizeof(int) * size)
}
void unsigned_regrouped(size_t a, size_t b) {
	float *h = (float *)malloc(a * b * sizeof(float)), *d;
	PAIR(h, d, 0, sizeof(float) * (b * a), b * (sizeof(float) * a))
}
void with_calloc(int n) {
	float *h = (float *)calloc(n, sizeof(float)), *d;
	PAIR(h, d, 0, n * sizeof(float), sizeof(float) * n)
}
void through_typedef(int n) {
	real *h = (real *)malloc(n * sizeof(real)), *d;
	PAIR(h, d, 0, n * sizeof(const float), n * sizeof *h)
}
void other_type(int n) {
	float *h = (float *)malloc(n * sizeof(int)), *d;
	PAIR(h, d, 0, n * sizeof(float), n * sizeof(float))
}
void signed_regrouped(int a, int b) {
	float *h = (float *)malloc(a * b * sizeof(float)), *d;
	PAIR(h, d, 0, a * b * sizeof(float), a * (b * sizeof(float)))
}
void wraps_in_32_bits(unsigned n) {
	float *h = (float *)malloc(n * 4u), *d;
	PAIR(h, d, 0, n * 4u, (size_t)n * 4)
}
void vla(int n) {
	float row[n];
	float *h = (float *)malloc(n * sizeof row), *d;
	PAIR(h, d, 0, n * sizeof row, n * sizeof row)
}
void shadowed(int n) {
	struct S { float x; };
	float *h = (float *)malloc(n * sizeof(struct S)), *d;
	{
		struct S { double x; };
		PAIR(h, d, 0, n * sizeof(struct S), n * sizeof(struct S))
	}
}
`
	want := map[string]bool{"inline_sizeof": true, "reordered": true, "unsigned_regrouped": true,
		"with_calloc": true, "through_typedef": true, "other_type": false, "signed_regrouped": false,
		"vla": false, "shadowed": false, "wraps_in_32_bits": false}
	checkFullCopies(t, proveSource(t, "sizes.cu", src), want)
}

// A size expression is the allocation's only while the variables it reads keep the values
// they had at the allocation: assigned in between, or reachable through a pointer kept to
// them, the copy's size is not provably the buffer's.
func TestFullBufferSizeChanges(t *testing.T) {
	src := `#include <cuda_runtime.h>
#include <stdlib.h>
__global__ void k(const float *p) {}
#define PAIR(h, d, n)                                        \
	cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);           \
	k<<<1, 1>>>(d);                                        \
	cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost);
void unchanged(size_t n) {
	float *h = (float *)malloc(n), *d;
	cudaMalloc((void **)&d, n);
	PAIR(h, d, n)
	cudaFree(d);
	free(h);
}
void assigned(size_t n, int argc) {
	float *h = (float *)malloc(n), *d;
	cudaMalloc((void **)&d, n);
	n = argc * 128;
	PAIR(h, d, n)
	cudaFree(d);
	free(h);
}
void through_pointer(size_t n, int argc) {
	size_t *alias = &n;
	float *h = (float *)malloc(n), *d;
	cudaMalloc((void **)&d, n);
	*alias = argc * 128;
	PAIR(h, d, n)
	cudaFree(d);
	free(h);
}
`
	want := map[string]bool{"unchanged": true, "assigned": false, "through_pointer": false}
	checkFullCopies(t, proveSource(t, "changes.cu", src), want)
}

// A size named once (`int size = rows * cols`) is the same size written out, when it and the
// variables it reads hold one value for the call; not when one of them may change, is
// declared in a loop or converts the value.
func TestFullBufferNamedSizes(t *testing.T) {
	src := `#include <cuda_runtime.h>
#include <stdlib.h>
__global__ void k(const float *p) {}
#define PAIR(h, d, n)                                        \
	cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);           \
	k<<<1, 1>>>(d);                                        \
	cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost);           \
	cudaFree(d);                                           \
	free(h);
int rows_of(int argc) { return argc * 64; }
void named(int argc) {
	int rows = rows_of(argc) + 1, cols = rows;
	float *h = (float *)malloc(rows * cols * sizeof(float)), *d;
	int size = cols * rows;
	size_t bytes = sizeof(float) * size;
	cudaMalloc((void **)&d, bytes);
	PAIR(h, d, sizeof(float) * size)
}
void bump(int *x) { *x += 1; }
void changed(int argc) {
	int rows = rows_of(argc) + 1;
	float *h = (float *)malloc(rows * sizeof(float)), *d;
	int size = rows;
	bump(&rows);
	cudaMalloc((void **)&d, size * sizeof(float));
	PAIR(h, d, size * sizeof(float))
}
void reassigned(int argc) {
	int rows = rows_of(argc) + 1;
	int size = rows;
	float *h = (float *)malloc(rows * sizeof(float)), *d;
	size = size + 1;
	cudaMalloc((void **)&d, size * sizeof(float));
	PAIR(h, d, size * sizeof(float))
}
void converted(long long n) {
	float *h = (float *)malloc(n * sizeof(float)), *d;
	int size = n;
	cudaMalloc((void **)&d, size * sizeof(float));
	PAIR(h, d, size * sizeof(float))
}
`
	want := map[string]bool{"named": true, "changed": false, "reassigned": false, "converted": false}
	checkFullCopies(t, proveSource(t, "named.cu", src), want)
}
