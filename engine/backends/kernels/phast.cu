// PHAST's many trees (Delling et al., IPDPS 2011; engine/backends/gpu_phast.py): on a whole
// contraction hierarchy (engine/contraction.py, every node contracted), each tree is the
// least, over the levels from the bottom up, of the arcs up into each node (the search up
// from the source, as a pass over every level: a node's arcs up come from lower levels
// only), then, from the top down, of the arcs down into it (the sweep). Nodes are numbered
// by rank: the top level first (a core left by the contraction, if any: relaxed until
// nothing changes, as Bellman-Ford), then each level of the sweep, so that a level's nodes
// and their arcs lie side by side.
//
// A group of PHAST_GROUP trees has its own table, a row of PHAST_GROUP distances a node (one
// 32-byte sector of 32-bit distances): each arc read serves the whole group, and each
// distance gathered from a level above is one sector. A group is one cluster of blocks
// (PHAST_CLUSTER on GPUs with clusters, else one block): the levels follow each other at
// the cluster's barrier, never the grid's, so that groups never wait for each other.

#include <cooperative_groups.h>
#include "common.cuh"
#include "contract.cuh"
namespace cg = cooperative_groups;

// The arcs of a node read together: their gathers are in flight at once.
#define PHAST_UNROLL 4

struct BlockSync {
    static __device__ __forceinline__ void sync() { __syncthreads(); }
    static __device__ __forceinline__ unsigned rank() { return 0; }
    static __device__ __forceinline__ unsigned size() { return 1; }
    static __device__ __forceinline__ unsigned group() { return blockIdx.x; }
};

#if CLUSTERS
struct ClusterSync {
    static __device__ __forceinline__ void sync() { cg::this_cluster().sync(); }
    static __device__ __forceinline__ unsigned rank() { return cg::this_cluster().block_rank(); }
    static __device__ __forceinline__ unsigned size() { return PHAST_CLUSTER; }
    static __device__ __forceinline__ unsigned group() { return blockIdx.x / PHAST_CLUSTER; }
};
#endif

// Lower each row of ranks [lo, hi) of `table` to the least d(u) + w over its arcs
// `ptr`/`tails`/`weights` (tails as ranks); true where a row's distance fell.
template <typename D>
__device__ __forceinline__ bool phast_level(D* table, long long lo, long long hi,
                                            const long long* __restrict__ ptr,
                                            const int* __restrict__ tails,
                                            const unsigned* __restrict__ weights,
                                            long long slot, long long slots, int lane) {
    const D INF = inf_of<D>();
    bool fell = false;
    for (long long v = lo + slot; v < hi; v += slots) {
        D* at = table + v * PHAST_GROUP + lane;
        const D was = __ldcg(at);
        D best = was;
        const long long a = __ldg(&ptr[v]), b = __ldg(&ptr[v + 1]);
        for (long long k = a; k < b; k += PHAST_UNROLL) {
            D d[PHAST_UNROLL];
            unsigned w[PHAST_UNROLL];
#pragma unroll
            for (int j = 0; j < PHAST_UNROLL; ++j) {
                d[j] = INF;
                if (k + j < b) {
                    w[j] = __ldg(&weights[k + j]);
                    d[j] = __ldcg(&table[(long long)__ldg(&tails[k + j]) * PHAST_GROUP + lane]);
                }
            }
#pragma unroll
            for (int j = 0; j < PHAST_UNROLL; ++j)
                if (d[j] != INF) best = min(best, (D)(d[j] + (D)w[j]));
        }
        if (best < was) {
            __stcg(at, best);
            fell = true;
        }
    }
    return fell;
}

// The trees of the sources `sources` (ranks; a group of PHAST_GROUP a cluster, the last one
// maybe short) into `tables` (a table of n rows of PHAST_GROUP a group). `starts`: the
// levels' first ranks (level 0, ranks [0, core), the core, maybe empty; `levels` + 1 of
// them). `up_*`: the arcs up into each rank, grouped by head; `down_*`: the arcs down into
// each rank (none into the core). `changed`: a word a group, for the core's rounds.
template <typename D, typename S>
__device__ void phast_trees(long long n, int levels, const long long* __restrict__ starts,
                            const long long* __restrict__ up_ptr, const int* __restrict__ up_tails,
                            const unsigned* __restrict__ up_weights,
                            const long long* __restrict__ down_ptr,
                            const int* __restrict__ down_tails,
                            const unsigned* __restrict__ down_weights,
                            const long long* __restrict__ sources, long long n_sources, D* tables,
                            int* changed) {
    const unsigned group = S::group();
    const int lane = threadIdx.x % PHAST_GROUP;
    const long long slot = ((long long)S::rank() * blockDim.x + threadIdx.x) / PHAST_GROUP;
    const long long slots = (long long)S::size() * blockDim.x / PHAST_GROUP;
    D* table = tables + (long long)group * n * PHAST_GROUP;
    const D INF = inf_of<D>();
    for (long long i = slot * PHAST_GROUP + lane; i < n * PHAST_GROUP; i += slots * PHAST_GROUP)
        table[i] = INF;
    S::sync();
    const long long tree = (long long)group * PHAST_GROUP + lane;
    if (slot == 0 && tree < n_sources) table[sources[tree] * PHAST_GROUP + lane] = 0;
    S::sync();
    // Up: the bottom level first; each node's arcs up come from lower levels.
    for (int l = levels - 1; l >= 1; --l) {
        phast_level(table, starts[l], starts[l + 1], up_ptr, up_tails, up_weights, slot, slots,
                    lane);
        S::sync();
    }
    // The core, if any: its arcs among themselves, until no distance falls.
    for (int round = 1; starts[1] > 0; ++round) {
        if (phast_level(table, 0, starts[1], up_ptr, up_tails, up_weights, slot, slots, lane))
            atomicMax(&changed[group], round);
        __threadfence();
        S::sync();
        const bool again = __ldcg(&changed[group]) == round;
        S::sync();  // every block has read the word before the next round writes it
        if (!again) break;
    }
    // Down: the top level first; each node's arcs down come from higher levels.
    for (int l = 1; l < levels; ++l) {
        phast_level(table, starts[l], starts[l + 1], down_ptr, down_tails, down_weights, slot,
                    slots, lane);
        S::sync();
    }
}

#define PHAST_PARAMS                                                                            \
    long long n, int levels, const long long *starts, const long long *up_ptr,                 \
        const int *up_tails, const unsigned *up_weights, const long long *down_ptr,             \
        const int *down_tails, const unsigned *down_weights, const long long *sources,          \
        long long n_sources, D *tables, int *changed
#define PHAST_ARGS                                                                              \
    n, levels, starts, up_ptr, up_tails, up_weights, down_ptr, down_tails, down_weights,        \
        sources, n_sources, tables, changed

// A group of trees a block.
template <typename D>
__global__ void __launch_bounds__(PHAST_THREADS) phast_many(PHAST_PARAMS) {
    phast_trees<D, BlockSync>(PHAST_ARGS);
}

#if CLUSTERS
// A group of trees a cluster of PHAST_CLUSTER blocks.
template <typename D>
__global__ void __launch_bounds__(PHAST_THREADS) __cluster_dims__(PHAST_CLUSTER, 1, 1)
    phast_many_cluster(PHAST_PARAMS) {
    phast_trees<D, ClusterSync>(PHAST_ARGS);
}
#endif

// The trees' distances to the nodes `columns` (`width` of them; every node, by rank `rank`,
// when null) as the matrix `out` (sources x width, int64, `unreachable` where unreached): a
// thread a (column, group) reads the group's row of the column's node and writes one entry
// of each of its trees' rows.
template <typename D>
__global__ void phast_widen(const D* tables, long long n, long long n_sources,
                            const long long* rank, const long long* columns, long long width,
                            long long unreachable, long long* out) {
    const long long groups = (n_sources + PHAST_GROUP - 1) / PHAST_GROUP;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < groups * width;
         i += stride) {
        const long long g = i / width, j = i % width;
        const long long r = rank[columns ? columns[j] : j];
        const D* row = tables + (g * n + r) * PHAST_GROUP;
#pragma unroll
        for (int lane = 0; lane < PHAST_GROUP; ++lane) {
            const long long tree = g * PHAST_GROUP + lane;
            if (tree >= n_sources) break;
            const D d = row[lane];
            out[tree * width + j] = d == inf_of<D>() ? unreachable : (long long)d;
        }
    }
}
