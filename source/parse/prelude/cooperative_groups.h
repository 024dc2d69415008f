/*
 * Echo's stand-in for CUDA's cooperative_groups.h: the group types kernels declare and the
 * calls they make on them (sync, thread_rank, size, shuffles, ballots), and the functions that
 * make them (this_thread_block, this_grid, tiled_partition, coalesced_threads). Declarations
 * only, device side: only the parse matters.
 */
#ifndef _COOPERATIVE_GROUPS_H_
#define _COOPERATIVE_GROUPS_H_

#include "cuda_runtime.h"

namespace cooperative_groups {
#define ECHO_CG_GROUP_MEMBERS                                                   \
	__device__ void sync() const;                                           \
	__device__ unsigned long long size() const;                             \
	__device__ unsigned long long num_threads() const;                      \
	__device__ unsigned long long thread_rank() const;                      \
	__device__ bool is_valid() const;                                       \
	__device__ unsigned int meta_group_rank() const;                        \
	__device__ unsigned int meta_group_size() const;                        \
	template <class T> __device__ T shfl(T var, int srcRank) const;         \
	template <class T> __device__ T shfl_down(T var, unsigned delta) const; \
	template <class T> __device__ T shfl_up(T var, unsigned delta) const;   \
	template <class T> __device__ T shfl_xor(T var, unsigned mask) const;   \
	__device__ unsigned int ballot(int pred) const;                         \
	__device__ int any(int pred) const;                                     \
	__device__ int all(int pred) const;                                     \
	template <class T> __device__ unsigned int match_any(T val) const;

class thread_group {
public:
	ECHO_CG_GROUP_MEMBERS
};
class thread_block : public thread_group {
public:
	ECHO_CG_GROUP_MEMBERS
	__device__ dim3 group_index() const;
	__device__ dim3 thread_index() const;
	__device__ dim3 group_dim() const;
	__device__ dim3 dim_threads() const;
};
class grid_group : public thread_group {
public:
	ECHO_CG_GROUP_MEMBERS
	__device__ dim3 group_dim() const;
	__device__ dim3 dim_blocks() const;
	__device__ dim3 block_index() const;
	__device__ unsigned long long block_rank() const;
	__device__ unsigned long long num_blocks() const;
};
class multi_grid_group : public thread_group {
public:
	ECHO_CG_GROUP_MEMBERS
};
class coalesced_group : public thread_group {
public:
	ECHO_CG_GROUP_MEMBERS
};
/* A tile of a known parent converts to the parent-less one, as CUDA's does. */
template <unsigned int Size, class Parent = void> class thread_block_tile;
template <unsigned int Size> class thread_block_tile<Size, void> : public thread_group {
public:
	ECHO_CG_GROUP_MEMBERS
	static constexpr unsigned int num_threads_static = Size;
};
template <unsigned int Size, class Parent> class thread_block_tile : public thread_block_tile<Size, void> {};
#undef ECHO_CG_GROUP_MEMBERS

__device__ thread_block this_thread_block();
__device__ grid_group this_grid();
__device__ multi_grid_group this_multi_grid();
__device__ coalesced_group coalesced_threads();
__device__ thread_group tiled_partition(const thread_group &parent, unsigned int tilesz);
template <unsigned int Size, class Parent> __device__ thread_block_tile<Size, Parent> tiled_partition(const Parent &g);
template <class G> __device__ void sync(const G &g);
template <class G> __device__ unsigned long long thread_rank(const G &g);
template <class G> __device__ unsigned long long group_size(const G &g);

/* The binary operations reduce and the scans take. */
#define ECHO_CG_OP(name)                                   \
	template <class T> struct name {                   \
		__device__ T operator()(T a, T b) const; \
	};
ECHO_CG_OP(plus)
ECHO_CG_OP(less)
ECHO_CG_OP(greater)
ECHO_CG_OP(bit_and)
ECHO_CG_OP(bit_or)
ECHO_CG_OP(bit_xor)
#undef ECHO_CG_OP
template <class G, class T, class Op> __device__ T reduce(const G &group, T val, Op op);
template <class G, class T, class Op> __device__ T inclusive_scan(const G &group, T val, Op op);
template <class G, class T, class Op> __device__ T exclusive_scan(const G &group, T val, Op op);
template <class G, class T> __device__ T inclusive_scan(const G &group, T val);
template <class G, class T> __device__ T exclusive_scan(const G &group, T val);
template <class G, class T> __device__ void memcpy_async(const G &group, T *dst, const T *src, size_t count);
template <class G, class D, class S, class L> __device__ void memcpy_async(const G &group, D *dst, const S *src, const L &layout);
template <class G> __device__ void wait(const G &group);
template <unsigned int N, class G> __device__ void wait_prior(const G &group);
namespace details {}
} // namespace cooperative_groups

#endif
