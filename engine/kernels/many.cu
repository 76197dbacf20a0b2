// Many independent searches in one launch (engine/_gpu_many.py): each thread block runs
// Near-Far from one source at a time and takes the next source from a device-side queue
// when it finishes, so the whole GPU stays busy until the last search.
//
// A block's search: the near frontier is relaxed to convergence, one __syncthreads per
// iteration; improved nodes under the threshold join the next frontier (once per
// iteration, by a stamp), the others the far pile (once per phase, by a stamp). When the
// frontier empties, the threshold moves to the band of the nearest far node and the pile
// is compacted into the next frontier and the next pile. Distances go straight into the
// source's row of the output matrix; every stamp only grows, so the marks are set once per
// launch, not once per search.

typedef unsigned long long u64;

template <typename D>
__device__ __forceinline__ D inf_of() { return (D)~(D)0; }

// The threshold above `least` (the nearest far distance): the end of its band of width delta,
// without wrapping past the largest distance.
template <typename D>
__device__ __forceinline__ D band_end(D least, D delta) {
    const D band = least / delta;
    const D top = inf_of<D>() / delta;
    return band >= top ? inf_of<D>() : (band + 1) * delta;
}

template <typename D>
__global__ void __launch_bounds__(512) many_near_far(
    const long long* __restrict__ indptr, const int* __restrict__ heads,
    const unsigned* __restrict__ weights, long long n, const long long* __restrict__ sources,
    long long n_sources, u64* queue, D* out, int* work, int* marks, D delta,
    long long* counters) {
    __shared__ long long q_sh;
    __shared__ unsigned count_sh[3];  // appends to the next frontier, rotating by iteration
    __shared__ unsigned pile_sh;      // appends to the next pile
    __shared__ u64 least_sh;          // the nearest far distance (phase end)
    __shared__ unsigned long long edges_sh;
    const D INF = inf_of<D>();
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
        D* dist = out + q * n;
        for (long long i = tid; i < n; i += nthreads) dist[i] = INF;
        __syncthreads();
        const int source = (int)sources[q];
        if (tid == 0) {
            dist[source] = 0;
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
                for (long long i = tid; i < fcount; i += nthreads) {
                    const int u = __ldcg(&front[fp][i]);
                    const D du = __ldcg(&dist[u]);
                    const long long a = __ldg(&indptr[u]), b = __ldg(&indptr[u + 1]);
                    edges += (unsigned long long)(b - a);
                    for (long long k = a; k < b; ++k) {
                        const int v = __ldg(&heads[k]);
                        const D nd = du + (D)__ldg(&weights[k]);
                        const D old = atomicMin(&dist[v], nd);
                        if (nd >= old) continue;
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
            // Phase end: the nearest far node sets the next band; the pile is compacted.
            pcount += pile_sh;
            __syncthreads();  // everyone has read pile_sh before it is reset
            if (tid == 0) {
                least_sh = (u64)INF;
                pile_sh = 0;
            }
            __syncthreads();
            D least = INF;
            for (long long i = tid; i < pcount; i += nthreads) {
                const D d = __ldcg(&dist[__ldcg(&pile[pp][i])]);
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
                const D d = __ldcg(&dist[v]);
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
        atomicAdd(&edges_sh, edges);
        __syncthreads();
        if (tid == 0) {
            counters[2 * q] = (long long)edges_sh;
            counters[2 * q + 1] = iterations;
        }
        __syncthreads();  // q_sh and the counters are reset only after every thread is here
    }
}

// The distances of a finished chunk as int64, UNREACHABLE (2^63 - 1) where unreached.
template <typename D>
__global__ void many_widen(const D* dist, long long size, long long unreachable,
                           long long* out) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < size;
         i += (long long)gridDim.x * blockDim.x)
        out[i] = dist[i] == inf_of<D>() ? unreachable : (long long)dist[i];
}
