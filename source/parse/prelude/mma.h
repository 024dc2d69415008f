/*
 * Echo's stand-in for CUDA's mma.h: nvcuda::wmma's fragments and the load, store, fill and
 * multiply-accumulate calls on them, declared only.
 */
#ifndef __CUDA_MMA_H__
#define __CUDA_MMA_H__

#include "cuda_fp16.h"

namespace nvcuda {
namespace wmma {
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };
namespace precision {
struct tf32 {};
} // namespace precision
template <class Use, int m, int n, int k, class T, class Layout = void> class fragment {
public:
	enum { num_elements = 8 };
	T x[8];
};
template <class Use, int m, int n, int k, class T, class Layout, class P>
__device__ void load_matrix_sync(fragment<Use, m, n, k, T, Layout> &a, const P *p, unsigned ldm);
template <class Use, int m, int n, int k, class T, class P>
__device__ void load_matrix_sync(fragment<Use, m, n, k, T> &a, const P *p, unsigned ldm, layout_t layout);
template <class Use, int m, int n, int k, class T, class P>
__device__ void store_matrix_sync(P *p, const fragment<Use, m, n, k, T> &a, unsigned ldm, layout_t layout);
template <class Use, int m, int n, int k, class T, class Layout, class V>
__device__ void fill_fragment(fragment<Use, m, n, k, T, Layout> &a, const V &v);
template <class D, class A, class B, class C> __device__ void mma_sync(D &d, const A &a, const B &b, const C &c);
template <class T> __device__ T __float_to_tf32(T in);
} // namespace wmma
} // namespace nvcuda

#endif
