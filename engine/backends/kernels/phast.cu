// PHAST's many trees (Delling et al., IPDPS 2011; engine/backends/gpu_phast.py): on a
// contraction hierarchy (engine/contraction, its dense top left as a core), each tree is a
// search up the hierarchy from its source to the core, the core's distances (`phast_core`,
// from the core's table of every pair; or, for a core too large for one, relaxed until
// nothing changes, as Bellman-Ford), then a sweep down it, the top level first, giving each
// node the least d(a) + w over its arcs down. Nodes are numbered by rank: the core first,
// then each level of the sweep, so that a level's nodes and their arcs lie side by side.
//
// A group of 32 trees has a row of 32 distances a node (a warp's lanes are its trees); the
// groups' tables are interleaved: node u's rows of every group side by side. A launch of
// `phast_many` makes each group's search up in one cluster of C blocks (one block on GPUs
// without clusters), its levels at the cluster's barrier; then one cooperative launch of
// `phast_sweep` sweeps every group at once, the grid's barrier between levels (decision
// 0109: 19-37 % more trees a second than each cluster sweeping its own table).
//
// The search up visits only what the group's sources reach: level by level from the bottom,
// each node reached pushes its row along its arcs up (an atomic minimum a lane) and lists
// each head it reaches first under the head's level. The sweep reads every level: a warp
// takes a *chunk* of a level's arcs at a time (whole nodes, at most 32 arcs but for a node
// of more; the launcher makes them) for P groups at once, one coalesced read of their
// tails, heads and weights, then the tails' rows gathered G at a time (the P groups' rows of
// a node side by side: a lane loads its P trees' distances, 16 bytes, in one load), so that
// a warp waits on a few round trips a chunk rather than three a node (decision 0115: four
// groups a warp made NE's sweep 2.2 x faster than one).
// Each node below the core has an arc from itself of weight 0 first: its own row comes in
// with the others where its search up filled it. Only the core's rows, and those the
// searches up reach, are filled before the sweep (`Reads`).

#include <cooperative_groups.h>
#include "common.cuh"
#include "contract.cuh"
namespace cg = cooperative_groups;

// Gathers in flight a warp.
#define PHAST_GATHER 8

struct BlockSync {
    static __device__ __forceinline__ void sync() { __syncthreads(); }
    static __device__ __forceinline__ unsigned rank() { return 0; }
    static __device__ __forceinline__ unsigned size() { return 1; }
    static __device__ __forceinline__ unsigned group() { return blockIdx.x; }
};

#if CLUSTERS
template <int C>
struct ClusterSync {
    static __device__ __forceinline__ void sync() { cg::this_cluster().sync(); }
    static __device__ __forceinline__ unsigned rank() { return cg::this_cluster().block_rank(); }
    static __device__ __forceinline__ unsigned size() { return C; }
    static __device__ __forceinline__ unsigned group() { return blockIdx.x / C; }
};
#endif

// The P distances of D at p (a lane's trees of P groups swept at once: P * sizeof(D) bytes,
// aligned so), read past L1 as one load of up to 16 bytes (two of 16 for 32), as 32-bit
// words, or written so.
template <typename D, int P>
__device__ __forceinline__ void lanes_load(const D* p, D (&v)[P]) {
    constexpr int B = sizeof(D) * P;
    static_assert(B == 4 || B == 8 || B % 16 == 0, "lanes_load: 4, 8 or 16k bytes");
    if constexpr (B == 4) {
        v[0] = __ldcg(p);
    } else {
        unsigned w[B / 4];
        if constexpr (B == 8) {
            const uint2 x = __ldcg(reinterpret_cast<const uint2*>(p));
            w[0] = x.x, w[1] = x.y;
        } else {
#pragma unroll
            for (int i = 0; i < B / 16; ++i) {
                const uint4 x = __ldcg(reinterpret_cast<const uint4*>(p) + i);
                w[4 * i] = x.x, w[4 * i + 1] = x.y, w[4 * i + 2] = x.z, w[4 * i + 3] = x.w;
            }
        }
#pragma unroll
        for (int i = 0; i < P; ++i) {
            if constexpr (sizeof(D) == 4) v[i] = w[i];
            else v[i] = (D)w[2 * i] | (D)w[2 * i + 1] << 32;
        }
    }
}
template <typename D, int P>
__device__ __forceinline__ void lanes_store(D* p, const D (&v)[P]) {
    constexpr int B = sizeof(D) * P;
    if constexpr (B == 4) {
        __stcg(p, v[0]);
    } else {
        unsigned w[B / 4];
#pragma unroll
        for (int i = 0; i < P; ++i) {
            if constexpr (sizeof(D) == 4) {
                w[i] = v[i];
            } else {
                w[2 * i] = (unsigned)v[i];
                w[2 * i + 1] = (unsigned)(v[i] >> 32);
            }
        }
        if constexpr (B == 8) {
            __stcg(reinterpret_cast<uint2*>(p), make_uint2(w[0], w[1]));
        } else {
#pragma unroll
            for (int i = 0; i < B / 16; ++i)
                __stcg(reinterpret_cast<uint4*>(p) + i,
                       make_uint4(w[4 * i], w[4 * i + 1], w[4 * i + 2], w[4 * i + 3]));
        }
    }
}

// Which rows a chunk reads (`phast_chunk`), for each of a task's P groups (bit i: group i).
// In the sweep, with the groups' `marks` (a word a node and group, node h's of the task's
// groups side by side at h * mark_step; nonzero where the group's search up reached it;
// null: every row was filled), a head's own row only where marked, the rows the search up
// never reached having never been filled (a word read in place of a 128-byte row, and no
// fill, for most nodes). In the core's round `round`, with the groups' `stamps` (a word a
// core node, the last round its row fell, zero at first; `k` words a group), only the rows
// of core nodes (ranks below `k`: the searches up pushed from every node below that they
// reached, and the others' rows are not filled yet), and from the second round on only a
// head's own row and the tails' whose rows fell in the round before or this one: the others'
// were taken already (a round of the 16M-node city's core reads 45.6M arcs, most of them to
// rows that did not change).
struct Reads {
    const int* marks;
    long long mark_step;
    int* stamps;
    int round;
    long long k;
    template <int P>
    __device__ __forceinline__ unsigned of(int t, int h) const {
        constexpr unsigned EVERY = (1u << P) - 1;
        unsigned bits = 0;
        if (t == h) {
            if (marks == nullptr) return EVERY;
#pragma unroll
            for (int i = 0; i < P; ++i)
                bits |= (unsigned)(__ldg(&marks[(long long)h * mark_step + i]) != 0) << i;
            return bits;
        }
        if (stamps == nullptr) return EVERY;
        if (t >= k) return 0;
        if (round == 1) return EVERY;
#pragma unroll
        for (int i = 0; i < P; ++i)
            bits |= (unsigned)(__ldcg(&stamps[i * k + t]) >= round - 1) << i;
        return bits;
    }
};

// Head h's distances `best` (a lane's P, at `at` in its row) where one fell below `was` (or
// where its row was not filled), the head stamped then, in the core's rounds, for each group
// in which one fell; true where one fell.
template <typename D, int P>
__device__ __forceinline__ bool phast_put(D* table, long long row, long long at, int h,
                                          const D (&best)[P], const D (&was)[P], bool unfilled,
                                          Reads reads, int lane) {
    constexpr int L = 32 / P;  // lanes a group
    bool lower = false;
#pragma unroll
    for (int i = 0; i < P; ++i) lower |= best[i] < was[i];
    if (lower || unfilled) lanes_store<D, P>(&table[(long long)h * row + at], best);
    if (reads.stamps != nullptr) {
        const unsigned fell = __ballot_sync(0xffffffffu, lower);
        if (lane % L == 0 && fell >> lane & (0xffffffffu >> (32 - L)))
            __stcg(&reads.stamps[lane / L * reads.k + h], reads.round);
    }
    return lower;
}

// Chunk c (`chunks`: each chunk's first arc, and one more) of P groups' tables side by side
// from `table` (a row of P * PHAST_TREES distances a node, `row` apart: lane i takes the P
// trees from i * P, of group i * P / 32 of the P): each head's row becomes the least
// d(tail) + w over its arcs, its own row (the arc from itself) among them, the rows `reads`
// takes (a head whose own row is not read is written whatever it holds); true where a
// distance fell (and the head stamped, in the core's rounds). G gathers are in flight a lane.
template <typename D, int P, int G>
__device__ __forceinline__ bool phast_chunk(D* table, long long row, long long c,
                                            const long long* __restrict__ chunks,
                                            const int* __restrict__ heads,
                                            const int* __restrict__ tails,
                                            const unsigned* __restrict__ weights, Reads reads,
                                            int lane) {
    const D INF = inf_of<D>();
    const unsigned ALL = 0xffffffffu;
    const int part = lane * P / 32;            // the lane's group of the P
    const long long at = (long long)lane * P;  // its first tree in a row
    bool fell = false;
    const long long a0 = __ldg(&chunks[c]), a1 = __ldg(&chunks[c + 1]);
    int head = -1;
    D best[P], was[P];
#pragma unroll
    for (int i = 0; i < P; ++i) best[i] = was[i] = INF;
    bool unfilled = false;
    for (long long s = a0; s < a1; s += 32) {
        const int len = (int)min(32LL, a1 - s);
        int t = 0, h = -1;
        unsigned w = 0, read = 0;  // read: the groups that read its tail's row
        if (lane < len) {
            t = __ldg(&tails[s + lane]);
            h = __ldg(&heads[s + lane]);
            w = __ldg(&weights[s + lane]);
            read = reads.of<P>(t, h);
        }
        for (int j0 = 0; j0 < len; j0 += G) {
            // The gathers first, then the arcs' heads and weights as their distances come.
            D d[G][P];
            unsigned taken = 0;  // bit j: the lane's group reads arc j0 + j's tail
#pragma unroll
            for (int j = 0; j < G; ++j) {
                const int from = (j0 + j) & 31;
                const int tj = __shfl_sync(ALL, t, from);
                if (__shfl_sync(ALL, read, from) >> part & 1) {
                    taken |= 1u << j;
                    lanes_load<D, P>(&table[(long long)tj * row + at], d[j]);
                } else {
#pragma unroll
                    for (int i = 0; i < P; ++i) d[j][i] = INF;
                }
            }
#pragma unroll
            for (int j = 0; j < G; ++j) {
                if (j0 + j >= len) break;
                const int hj = __shfl_sync(ALL, h, j0 + j);
                const unsigned wj = __shfl_sync(ALL, w, j0 + j);
                if (hj != head) {  // a node's first arc: from itself, weight 0
                    fell |= phast_put<D, P>(table, row, at, head, best, was, unfilled, reads,
                                            lane);
                    head = hj;
#pragma unroll
                    for (int i = 0; i < P; ++i) best[i] = was[i] = d[j][i];
                    unfilled = !(taken >> j & 1);
                    continue;
                }
#pragma unroll
                for (int i = 0; i < P; ++i)
                    if (d[j][i] != INF) best[i] = min(best[i], (D)(d[j][i] + (D)wj));
            }
        }
    }
    if (head >= 0) fell |= phast_put<D, P>(table, row, at, head, best, was, unfilled, reads, lane);
    return fell;
}

// The chunks c0..c1 of every group (`groups` tables, `group_step` apart), shared by the
// grid's warps: a task a (chunk, P groups side by side), the tasks of a chunk side by side,
// so that the rows of a tail read at once lie in one run of memory (P divides `groups`).
// `marks` (interleaved, a node's side by side) or `stamps` (`k` words a group), or neither:
// `Reads`. True where a distance fell.
template <typename D, int P, int G>
__device__ __forceinline__ bool phast_chunks(D* tables, long long groups, long long group_step,
                                             long long row, long long c0, long long c1,
                                             const long long* chunks, const int* heads,
                                             const int* tails, const unsigned* weights,
                                             const int* marks, int* stamps, long long k,
                                             int round, long long warp, long long warps,
                                             int lane) {
    bool fell = false;
    const long long sets = groups / P;
    for (long long t = warp; t < (c1 - c0) * sets; t += warps) {
        const long long g = t % sets * P;
        const Reads reads{marks ? marks + g : nullptr, groups, stamps ? stamps + g * k : nullptr,
                          round, k};
        fell |= phast_chunk<D, P, G>(tables + g * group_step, row, c0 + t / sets, chunks, heads,
                                     tails, weights, reads, lane);
    }
    return fell;
}

#define PHAST_PARAMS                                                                         \
    long long n, int levels, const long long *starts, const int *level_of,                 \
        const long long *out_ptr, const int *out_heads, const unsigned *out_weights,         \
        const long long *sources, long long n_sources, D *tables, int *marks, int *lists,    \
        unsigned *counts, long long group_step, long long row
#define PHAST_ARGS                                                                           \
    n, levels, starts, level_of, out_ptr, out_heads, out_weights, sources, n_sources, tables, \
        marks, lists, counts, group_step, row

// The rows of the nodes `v` of the lanes where `first` (each lane's own, or none) made
// infinite, a row at a time: the table is filled only where the search up reaches.
template <typename D>
__device__ __forceinline__ void phast_fill(D* table, long long row, int v, bool first,
                                           int lane) {
    for (unsigned won = __ballot_sync(0xffffffffu, first); won; won &= won - 1) {
        const int vj = __shfl_sync(0xffffffffu, v, __ffs(won) - 1);
        __stcg(&table[(long long)vj * row + lane], inf_of<D>());
    }
}

// Marks node v reached (`marks`, a word a node `mark_step` apart) and lists it under its
// level (`level_of`: at lists + starts[level], `counts[level]` so far) where it was not;
// true then.
__device__ __forceinline__ bool phast_reach(int v, int* marks, long long mark_step,
                                            const int* __restrict__ level_of,
                                            const long long* __restrict__ starts, int* lists,
                                            unsigned* counts) {
    if (atomicExch(&marks[(long long)v * mark_step], 1) != 0) return false;
    const int l = __ldg(&level_of[v]);
    lists[__ldg(&starts[l]) + atomicAdd(&counts[l], 1u)] = v;
    return true;
}

// Node u of the search up, along its arcs up (`out_*`, by tail): where `push`, it pushes its
// row (an atomic minimum a lane); else each head it reaches first is marked and listed
// (`phast_reach`) and its row made infinite, before any push reaches it (the launcher fills
// no rows but the core's).
template <typename D>
__device__ __forceinline__ void phast_up(bool push, int u, D* table, long long row,
                                         const long long* __restrict__ out_ptr,
                                         const int* __restrict__ out_heads,
                                         const unsigned* __restrict__ out_weights,
                                         const int* __restrict__ level_of,
                                         const long long* __restrict__ starts, int* marks,
                                         long long mark_step, int* lists, unsigned* counts,
                                         int lane) {
    const D INF = inf_of<D>();
    const unsigned ALL = 0xffffffffu;
    const D d = push ? __ldcg(&table[(long long)u * row + lane]) : INF;
    const long long a = __ldg(&out_ptr[u]), b = __ldg(&out_ptr[u + 1]);
    for (long long s = a; s < b; s += 32) {
        const int len = (int)min(32LL, b - s);
        int v = 0;
        unsigned w = 0;
        if (lane < len) {
            v = __ldg(&out_heads[s + lane]);
            if (push) w = __ldg(&out_weights[s + lane]);
        }
        if (!push) {
            const bool first =
                lane < len && phast_reach(v, marks, mark_step, level_of, starts, lists, counts);
            phast_fill(table, row, v, first, lane);
            continue;
        }
        for (int j = 0; j < len; ++j) {
            const int vj = __shfl_sync(ALL, v, j);
            const unsigned wj = __shfl_sync(ALL, w, j);
            if (d != INF) atomicMin(&table[(long long)vj * row + lane], (D)(d + (D)wj));
        }
    }
}

// The searches up from the sources `sources` (ranks; 32 a group, the last group maybe short)
// into `tables` (group g's row of node u at tables + g * group_step + u * row). Level l
// is ranks starts[l]..starts[l + 1] (level 0 the core, maybe empty; `levels` of them;
// `level_of` each rank's). A group's `marks` are interleaved (node u's word of group g at
// marks[u * groups + g], zero), its `lists` and `counts` are n and `levels` words a group
// (zero). Only the rows a search reaches are filled (infinite, then pushed into), each
// before any push reaches it (filling every row took 1.5 of NE's 22 ms a 1,000 trees, and
// the sweep read each node's own row): a phase, between barriers, pushes from level l's nodes
// and marks the heads of level l - 1's. Level l - 1's list is whole by then (its nodes are
// reached from levels l and below, marked in earlier phases), and every head that level l
// pushes into was marked, and filled, in the phase before. The launcher fills the core's
// rows: kernel `phast_core` reads them all, from its table of every pair, or `phast_sweep`
// relaxes the core's arcs until nothing changes.
template <typename D, typename S>
__device__ void phast_trees(PHAST_PARAMS) {
    const unsigned group = S::group();
    const int lane = threadIdx.x % 32;
    const long long warp = ((long long)S::rank() * blockDim.x + threadIdx.x) / 32;
    const long long warps = (long long)S::size() * blockDim.x / 32;
    const long long groups = (n_sources + PHAST_TREES - 1) / PHAST_TREES;
    D* table = tables + (long long)group * group_step;
    int* my_marks = marks + group;
    int* my_lists = lists + (long long)group * n;
    unsigned* my_counts = counts + (long long)group * levels;
    const long long tree = (long long)group * PHAST_TREES + lane;
    if (warp == 0) {
        const int u = tree < n_sources ? (int)sources[tree] : 0;
        const bool first = tree < n_sources &&
                           phast_reach(u, my_marks, groups, level_of, starts, my_lists, my_counts);
        phast_fill(table, row, u, first, lane);
        __syncwarp();
        if (tree < n_sources) table[(long long)u * row + lane] = 0;
    }
    S::sync();
    // Up: the bottom level first; a node's arcs up lead to higher levels (to the core, level
    // 0, at the last, whose nodes push nowhere).
    for (int l = levels; l >= 1; --l) {
        // The same for every block: the counts were read after a barrier, and a phase
        // lists nodes only in levels above l - 1.
        const long long pushes = l < levels ? __ldcg(&my_counts[l]) : 0;
        const long long marking = l > 1 ? __ldcg(&my_counts[l - 1]) : 0;
        if (pushes + marking == 0) continue;
        for (long long i = warp; i < pushes + marking; i += warps) {
            const bool push = i < pushes;
            const int u = __ldcg(&my_lists[push ? starts[l] + i : starts[l - 1] + i - pushes]);
            phast_up(push, u, table, row, out_ptr, out_heads, out_weights, level_of, starts,
                     my_marks, groups, my_lists, my_counts, lane);
        }
        S::sync();
    }
}

// A group of trees a block.
template <typename D>
__global__ void __launch_bounds__(PHAST_THREADS) phast_many(PHAST_PARAMS) {
    phast_trees<D, BlockSync>(PHAST_ARGS);
}

#if CLUSTERS
// A group of trees a cluster of C blocks.
template <typename D, int C>
__global__ void __launch_bounds__(PHAST_THREADS) __cluster_dims__(C, 1, 1)
    phast_many_cluster(PHAST_PARAMS) {
    phast_trees<D, ClusterSync<C>>(PHAST_ARGS);
}
#endif

// The sweep down of every group at once (the groups' tables interleaved: node u's row of
// group g at tables + (u * groups + g) * PHAST_TREES, `row` = groups * PHAST_TREES), after
// `phast_many` has made their searches up: the arcs down into level l are the chunks
// down_levels[l]..[l + 1] of `down_*`, shared by the grid (`phast_chunks`), the grid's
// barrier between levels (a cooperative launch). `marks`: the searches' marks, where only
// the rows they reached were filled (every node below the core then has a chunk, its own
// arc at least), else null. Where `core_rounds`, the core (level 0, too large for a table,
// its rows filled) first: its arcs in (the chunks up_levels[0]..[1] of `up_*`) relaxed the
// same way, round after round until no distance falls (`changed`: a word, zero, the last
// round in which one fell), each round reading the tails whose rows fell since the round
// before (`stamps`: `k` words a group, zero; `Reads`). Two blocks a multiprocessor (64
// registers a thread): a sweep waits on its gathers, so it wants warps more than registers.
template <typename D, int P, int G>
__global__ void __launch_bounds__(PHAST_THREADS, 2)
    phast_sweep(int levels, const long long* down_levels, const long long* down_chunks,
                const int* down_heads, const int* down_tails, const unsigned* down_weights,
                D* tables, long long groups, long long group_step, long long row,
                int core_rounds, const long long* up_levels, const long long* up_chunks,
                const int* up_heads, const int* up_tails, const unsigned* up_weights,
                int* changed, const int* marks, int* stamps, long long k) {
    const int lane = threadIdx.x % 32;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const long long warps = (long long)gridDim.x * blockDim.x / 32;
    for (int round = 1; core_rounds; ++round) {
        const bool fell =
            phast_chunks<D, P, G>(tables, groups, group_step, row, up_levels[0], up_levels[1],
                                  up_chunks, up_heads, up_tails, up_weights, nullptr, stamps, k,
                                  round, warp, warps, lane);
        if (__any_sync(0xffffffffu, fell) && lane == 0) atomicMax(changed, round);
        cg::this_grid().sync();
        // A warp a round ahead has seen this round's word, so a later round's is as good.
        if (__ldcg(changed) < round) break;
    }
    for (int l = 1; l < levels; ++l) {
        phast_chunks<D, P, G>(tables, groups, group_step, row, down_levels[l],
                              down_levels[l + 1], down_chunks, down_heads, down_tails,
                              down_weights, marks, nullptr, 0, 0, warp, warps, lane);
        cg::this_grid().sync();
    }
}

// a + b or c, the least (Hopper's DPX instruction for 32 bits).
__device__ __forceinline__ unsigned add_min(unsigned a, unsigned b, unsigned c) {
#if __CUDA_ARCH__ >= 900
    return __viaddmin_u32(a, b, c);
#else
    return min(a + b, c);
#endif
}
__device__ __forceinline__ u64 add_min(u64 a, u64 b, u64 c) { return min(a + b, c); }

// The core's distances of every tree from the core's table of every pair (`table`, k × k:
// table[e * k + v] the distance from core rank e to v, `gpu_memory.core_table`), after the
// searches up: core rank e's row of the tables, x[e] (the first k rows, `width` trees a row),
// holds the least path up from each source to it from below (0 at a source of the core), so
// core rank v's distance is the least over e of x[e] + table[e][v]: a product in the (min, +)
// semiring, written to `y` (k × width). A block takes a tile of CORE_TILE ranks by CORE_TILE
// trees, CORE_STEP ranks e at a time through shared memory, 4 × 4 of them a thread; a step
// whose trees are all unreached (most are, where the core is entered at few nodes) is skipped.
// Sums are taken in A, each term clamped to A's half (the launcher picks A so that every
// distance of the graph lies below it): a sum that reaches the half is none.
template <typename A>
__device__ __forceinline__ constexpr A half_of() {
    return (A)~(A)0 >> 1;
}
template <typename D, typename A>
__device__ __forceinline__ A clamped(D d) {
    return d == inf_of<D>() ? half_of<A>() : min((A)d, half_of<A>());
}
template <typename D, typename A>
__global__ void __launch_bounds__(CORE_THREADS)
    phast_core(const D* __restrict__ table, const D* __restrict__ x, D* __restrict__ y,
               long long k, long long width) {
    constexpr int SIDE = CORE_TILE / 4;  // threads a side of the tile, 4 sums each way
    static_assert(CORE_THREADS == SIDE * SIDE, "phast_core: a thread for 4 x 4 of a tile");
    constexpr A HALF = half_of<A>();
    __shared__ A ts[CORE_STEP][CORE_TILE];
    __shared__ A xs[CORE_STEP][CORE_TILE];
    const int tx = threadIdx.x % SIDE, ty = threadIdx.x / SIDE;
    const long long v0 = (long long)blockIdx.y * CORE_TILE;
    const long long j0 = (long long)blockIdx.x * CORE_TILE;
    A acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = HALF;
    for (long long e0 = 0; e0 < k; e0 += CORE_STEP) {
        int any = 0;
        for (int i = threadIdx.x; i < CORE_STEP * CORE_TILE; i += blockDim.x) {
            const int e = i / CORE_TILE, j = i % CORE_TILE;
            A b = HALF;
            if (e0 + e < k && j0 + j < width) b = clamped<D, A>(x[(e0 + e) * width + j0 + j]);
            xs[e][j] = b;
            any |= b < HALF;
        }
        if (!__syncthreads_or(any)) continue;
        for (int i = threadIdx.x; i < CORE_STEP * CORE_TILE; i += blockDim.x) {
            const int e = i / CORE_TILE, v = i % CORE_TILE;
            const bool in = e0 + e < k && v0 + v < k;
            ts[e][v] = in ? clamped<D, A>(table[(e0 + e) * k + v0 + v]) : HALF;
        }
        __syncthreads();
#pragma unroll 8
        for (int e = 0; e < CORE_STEP; ++e) {
            A a[4], b[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                a[i] = ts[e][ty + SIDE * i];
                b[i] = xs[e][tx + SIDE * i];
            }
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] = add_min(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const long long v = v0 + ty + SIDE * i, t = j0 + tx + SIDE * j;
            if (v < k && t < width)
                y[v * width + t] = acc[i][j] >= HALF ? inf_of<D>() : (D)acc[i][j];
        }
}

// The trees' distances to the nodes `columns` (`width` of them; every node, by rank `rank`,
// when null) as the matrix `out` (sources x width, int64, `unreachable` where unreached). A
// block (PHAST_WIDEN threads) takes a tile of PHAST_TILE columns of a group: their ranks
// first, then each warp reads its columns' rows (32 trees a row) at once into shared memory
// (a rank and a row at a time, one after the other, it ran at 57 % of the copy bandwidth),
// then the block writes each tree's PHAST_TILE entries side by side (a write of 32 entries
// a row, one a tree, ran at a sixth of the memory's speed), streaming past the cache.
// Neighbouring blocks take the groups of one tile, so that the rows of a column read at once
// lie side by side (the tables interleaved).
//
// The sweep's last level (ranks from `bottom` on; none where `bottom` is n) is swept here,
// not by `phast_sweep`: no node reads those rows, so a column of it takes the least of its
// own row (where its search up `marks` it, else none) and d(tail) + w over its arcs down
// (rank r's arcs in the sweep's arrays `tails` and `weights` are r + down_ptr[r] + 1 up to
// r + 1 + down_ptr[r + 1], after its own arc), straight into the tile: the rows of 40 % of
// PACE NE's nodes, say, neither written nor read again.
template <typename D>
__global__ void __launch_bounds__(PHAST_WIDEN)
    phast_widen(const D* tables, long long group_step, long long row, long long n_sources,
                const long long* rank, const long long* columns, long long width,
                long long unreachable, long long* out, long long bottom,
                const long long* __restrict__ down_ptr, const int* __restrict__ tails,
                const unsigned* __restrict__ weights, const int* __restrict__ marks) {
    constexpr int WARPS = PHAST_WIDEN / 32, EACH = PHAST_TILE / WARPS;
    static_assert(EACH <= 32, "phast_widen: a lane a column of a warp's");
    const D INF = inf_of<D>();
    const unsigned ALL = 0xffffffffu;
    __shared__ D tile[PHAST_TREES][PHAST_TILE + 1];
    __shared__ long long ranks[PHAST_TILE];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const long long groups = (n_sources + PHAST_TREES - 1) / PHAST_TREES;
    const long long tiles = (width + PHAST_TILE - 1) / PHAST_TILE;
    for (long long t = blockIdx.x; t < groups * tiles; t += gridDim.x) {
        const long long g = t % groups, j0 = t / groups * PHAST_TILE;
        const D* table = tables + g * group_step;
        for (int c = threadIdx.x; c < PHAST_TILE; c += PHAST_WIDEN) {
            const long long j = j0 + c;
            ranks[c] = j < width ? __ldg(&rank[columns ? __ldg(&columns[j]) : j]) : -1;
        }
        __syncthreads();
        // Lane i < EACH: column warp + i * WARPS, its rank, and its arcs down where swept here.
        long long r = -1, a0 = 0;
        int arcs = 0;
        bool own = true;
        if (lane < EACH) {
            r = ranks[warp + lane * WARPS];
            if (r >= bottom) {
                a0 = r + __ldg(&down_ptr[r]) + 1;
                arcs = (int)(r + 1 + __ldg(&down_ptr[r + 1]) - a0);
                own = __ldg(&marks[r * groups + g]) != 0;
            }
        }
        const unsigned owned = __ballot_sync(ALL, r >= 0 && own);
        D d[EACH];
#pragma unroll
        for (int i = 0; i < EACH; ++i) {
            const long long ri = __shfl_sync(ALL, r, i);
            d[i] = owned >> i & 1 ? __ldcg(&table[ri * row + lane]) : INF;
        }
#pragma unroll
        for (int i = 0; i < EACH; ++i) tile[lane][warp + i * WARPS] = d[i];
        // The arcs down of the warp's columns of the last level, a lane an arc, 32 at a time:
        // `before` arcs in the columns before lane i's.
        int before = arcs;
#pragma unroll
        for (int o = 1; o < 32; o *= 2) {
            const int x = __shfl_up_sync(ALL, before, o);
            if (lane >= o) before += x;
        }
        const int total = __shfl_sync(ALL, before, 31);
        before -= arcs;
        for (int q0 = 0; q0 < total; q0 += 32) {
            const int q = q0 + lane;
            int column = 0;  // the last lane whose arcs begin at or before q
#pragma unroll
            for (int i = 1; i < EACH; ++i)
                if (__shfl_sync(ALL, before, i) <= q) column = i;
            const long long from = __shfl_sync(ALL, a0, column) + q - __shfl_sync(ALL, before, column);
            int tail = 0;
            unsigned w = 0;
            if (q < total) tail = __ldg(&tails[from]), w = __ldg(&weights[from]);
            const int len = min(32, total - q0);
            for (int j0 = 0; j0 < len; j0 += PHAST_GATHER) {
                D dj[PHAST_GATHER];
                unsigned wj[PHAST_GATHER];
                int cj[PHAST_GATHER];
#pragma unroll
                for (int j = 0; j < PHAST_GATHER; ++j) {
                    const int at = (j0 + j) & 31;
                    const int tj = __shfl_sync(ALL, tail, at);
                    wj[j] = __shfl_sync(ALL, w, at);
                    cj[j] = __shfl_sync(ALL, column, at);
                    dj[j] = j0 + j < len ? __ldcg(&table[(long long)tj * row + lane]) : INF;
                }
#pragma unroll
                for (int j = 0; j < PHAST_GATHER; ++j) {
                    D& cell = tile[lane][warp + cj[j] * WARPS];
                    if (dj[j] != INF) cell = min(cell, (D)(dj[j] + (D)wj[j]));
                }
            }
        }
        __syncthreads();
        for (int i = threadIdx.x; i < PHAST_TREES * PHAST_TILE; i += PHAST_WIDEN) {
            const int k = i / PHAST_TILE, c = i % PHAST_TILE;
            const long long tree = g * PHAST_TREES + k;
            if (tree < n_sources && j0 + c < width) {
                const D v = tile[k][c];
                __stcs(&out[tree * width + j0 + c], v == inf_of<D>() ? unreachable : (long long)v);
            }
        }
        __syncthreads();
    }
}
