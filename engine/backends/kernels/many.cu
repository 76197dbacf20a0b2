// Many independent searches in one launch (engine/backends/gpu_many.py): each thread block runs
// Near-Far from one source at a time and takes the next source from a device-side queue
// when it finishes, so the whole GPU stays busy until the last search.
//
// A block's search: the near frontier is relaxed to convergence, one __syncthreads per
// iteration; improved nodes under the threshold join the next frontier (once per
// iteration, by a stamp), the others the far pile (once per phase, by a stamp). When the
// frontier empties, the threshold moves to the band of the nearest far node and the pile
// is compacted into the next frontier and the next pile. Every stamp only grows, so the
// marks are set once per launch, not once per search.
//
// Without targets, a search runs in its source's row of the output matrix. With targets,
// it runs in the block's own row and stops once every target is final (below the band just
// finished); then the targets' entries are copied into the source's row of the output.
//
// A row holds words of a store: `Plain<D>` keeps the distance; `Linked` (32-bit distances)
// keeps the distance and the node it came from in one 64-bit word, replaced only by a
// strictly shorter distance, so that a parent was final before its child and the parents
// form a tree even across zero-weight arcs.

#include "common.cuh"

// Threads sharing one frontier node's arcs when the frontier is small (at most).
#define MAX_LANES 4

template <typename D>
struct Plain {
    typedef D Word;
    typedef D Dist;
    static __device__ __forceinline__ D dist(Word w) { return w; }
    static __device__ __forceinline__ Word at_source() { return 0; }
    static __device__ __forceinline__ long long parent(Word) { return -1; }
    // Lower row[v] to nd (offered by u); true when it became strictly shorter. (A read
    // before the atomic, to spare it where the arc cannot improve, was 5 % slower on NY.)
    static __device__ __forceinline__ bool lower(Word* row, int v, D nd, int) {
        return nd < atomicMin(&row[v], nd);
    }
};

struct Linked {
    typedef u64 Word;
    typedef unsigned Dist;
    static __device__ __forceinline__ unsigned dist(Word w) { return (unsigned)(w >> 32); }
    static __device__ __forceinline__ Word at_source() { return 0xffffffffull; }
    static __device__ __forceinline__ long long parent(Word w) {
        return (unsigned)w == 0xffffffffu ? -1 : (long long)(unsigned)w;
    }
    static __device__ __forceinline__ bool lower(Word* row, int v, unsigned nd, int u) {
        const Word offer = ((Word)nd << 32) | (unsigned)u;
        Word old = __ldcg(&row[v]);
        while (nd < dist(old)) {
            const Word seen = atomicCAS(&row[v], old, offer);
            if (seen == old) return true;
            old = seen;
        }
        return false;
    }
};

// The threshold above `least` (the nearest far distance): the end of its band of width delta,
// without wrapping past the largest distance.
template <typename D>
__device__ __forceinline__ D band_end(D least, D delta) {
    const D band = least / delta;
    const D top = inf_of<D>() / delta;
    return band >= top ? inf_of<D>() : (band + 1) * delta;
}

template <typename S>
__global__ void __launch_bounds__(512) many_near_far(
    const long long* __restrict__ indptr, const int* __restrict__ heads,
    const unsigned* __restrict__ weights, long long n, const long long* __restrict__ sources,
    long long n_sources, const long long* __restrict__ targets, long long n_targets,
    u64* queue, typename S::Word* out, typename S::Word* own, int* work, int* marks,
    typename S::Dist delta, long long* counters) {
    typedef typename S::Word W;
    typedef typename S::Dist D;
    __shared__ long long q_sh;
    __shared__ unsigned count_sh[3];  // appends to the next frontier, rotating by iteration
    __shared__ unsigned pile_sh;      // appends to the next pile
    __shared__ u64 least_sh;          // the nearest far distance (phase end)
    __shared__ unsigned long long edges_sh;
    const D INF = inf_of<D>();
    const W UNSET = inf_of<W>();
    const int tid = threadIdx.x, nthreads = blockDim.x;
    int* front[2] = {work + blockIdx.x * 4 * n, work + blockIdx.x * 4 * n + n};
    int* pile[2] = {work + blockIdx.x * 4 * n + 2 * n, work + blockIdx.x * 4 * n + 3 * n};
    int* fmark = marks + blockIdx.x * 2 * n;  // iteration stamp: in the next frontier
    int* pmark = fmark + n;                   // phase stamp: in the current pile
    int it = 0, phase = 0;                    // stamps, growing over every search of the block

    for (;;) {
        if (tid == 0) {
            q_sh = (long long)atomicAdd(queue, 1ull);
            count_sh[0] = count_sh[1] = count_sh[2] = 0;
            pile_sh = 0;
            edges_sh = 0;
        }
        __syncthreads();
        const long long q = q_sh;
        if (q >= n_sources) return;
        W* row = targets ? own + blockIdx.x * n : out + q * n;
        for (long long i = tid; i < n; i += nthreads) row[i] = UNSET;
        __syncthreads();
        const int source = (int)sources[q];
        if (tid == 0) {
            row[source] = S::at_source();
            front[0][0] = source;
        }
        long long fcount = 1, pcount = 0;
        int fp = 0, pp = 0;
        D hi = delta;
        unsigned long long edges = 0;
        long long iterations = 0;
        ++phase;
        __syncthreads();

        for (;;) {
            while (fcount > 0) {  // one iteration: advance the frontier, filter the improved
                ++it;
                ++iterations;
                const int slot = it % 3;
                if (tid == 0) count_sh[(it + 1) % 3] = 0;  // read two iterations ago
                // A small frontier gives each node several lanes, so that a thread's chain
                // of dependent loads and atomics is one arc long rather than a degree.
                int lanes = 1;
                while (lanes < MAX_LANES && fcount * lanes * 2 <= nthreads) lanes *= 2;
                const int lane = tid % lanes;
                for (long long i = tid / lanes; i < fcount; i += nthreads / lanes) {
                    const int u = __ldcg(&front[fp][i]);
                    const D du = S::dist(__ldcg(&row[u]));
                    const long long a = __ldg(&indptr[u]), b = __ldg(&indptr[u + 1]);
                    if (lane == 0) edges += (unsigned long long)(b - a);
                    for (long long k = a + lane; k < b; k += lanes) {
                        const int v = __ldg(&heads[k]);
                        const D nd = du + (D)__ldg(&weights[k]);
                        if (!S::lower(row, v, nd, u)) continue;
                        if (nd < hi) {
                            if (atomicExch(&fmark[v], it) != it)
                                front[fp ^ 1][atomicAdd(&count_sh[slot], 1u)] = v;
                        } else if (atomicExch(&pmark[v], phase) != phase) {
                            pile[pp][pcount + atomicAdd(&pile_sh, 1u)] = v;
                        }
                    }
                }
                __syncthreads();
                fcount = count_sh[slot];
                fp ^= 1;
            }
            // Phase end: every node below hi is final. Stop if every target is; else the
            // nearest far node sets the next band and the pile is compacted.
            if (targets) {
                bool open = false;
                for (long long j = tid; j < n_targets && !open; j += nthreads)
                    open = S::dist(__ldcg(&row[targets[j]])) >= hi;
                if (!__syncthreads_or(open)) break;
            }
            pcount += pile_sh;
            __syncthreads();  // everyone has read pile_sh before it is reset
            if (tid == 0) {
                least_sh = (u64)INF;
                pile_sh = 0;
            }
            __syncthreads();
            D least = INF;
            for (long long i = tid; i < pcount; i += nthreads) {
                const D d = S::dist(__ldcg(&row[__ldcg(&pile[pp][i])]));
                if (d >= hi && d < least) least = d;
            }
            atomicMin(&least_sh, (u64)least);
            __syncthreads();
            if ((D)least_sh == INF) break;  // nothing left: the search is done
            const D lo = hi;
            hi = band_end<D>((D)least_sh, delta);
            ++it;
            ++phase;
            const int slot = it % 3;
            if (tid == 0) count_sh[(it + 1) % 3] = 0;
            for (long long i = tid; i < pcount; i += nthreads) {
                const int v = __ldcg(&pile[pp][i]);
                const D d = S::dist(__ldcg(&row[v]));
                if (d < lo) continue;  // settled in an earlier band
                if (d < hi) {
                    if (atomicExch(&fmark[v], it) != it)
                        front[fp][atomicAdd(&count_sh[slot], 1u)] = v;
                } else if (atomicExch(&pmark[v], phase) != phase) {
                    pile[pp ^ 1][atomicAdd(&pile_sh, 1u)] = v;
                }
            }
            __syncthreads();
            fcount = count_sh[slot];
            pcount = pile_sh;
            pp ^= 1;
            __syncthreads();  // everyone has read pile_sh before it is reset
            if (tid == 0) pile_sh = 0;
            __syncthreads();
        }
        if (targets)
            for (long long j = tid; j < n_targets; j += nthreads)
                out[q * n_targets + j] = __ldcg(&row[targets[j]]);
        atomicAdd(&edges_sh, edges);
        __syncthreads();
        if (tid == 0) {
            counters[2 * q] = (long long)edges_sh;
            counters[2 * q + 1] = iterations;
        }
        __syncthreads();  // q_sh, the counters and the own row are reset only after this
    }
}

// A finished chunk's words as int64 distances (UNREACHABLE, 2^63 - 1, where unreached) and,
// when `parents` is given, the node each came from (-1 at the sources and where unreached).
template <typename S>
__global__ void many_widen(const typename S::Word* words, long long size, long long unreachable,
                           long long* dist, long long* parents) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < size;
         i += (long long)gridDim.x * blockDim.x) {
        const typename S::Dist d = S::dist(words[i]);
        dist[i] = d == inf_of<typename S::Dist>() ? unreachable : (long long)d;
        if (parents) parents[i] = S::parent(words[i]);
    }
}
