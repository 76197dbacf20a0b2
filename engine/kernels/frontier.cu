// Frontier search kernel: Near-Far, Delta-stepping and Bellman-Ford (workfront sweep).
//
// One cooperative launch runs up to `batch` iterations with no host round-trip: every
// iteration is an ADVANCE (relax the arcs of the near frontier with atomicMin) and a
// FILTER (improved nodes below the threshold `hi` form the next frontier, deduplicated with
// epoch marks; the others are appended to the far pile). When the frontier empties the
// phase ends on the device: Delta-stepping relaxes the heavy arcs of the finished bucket,
// the band is settled, and the far pile is compacted (stale entries and duplicates dropped
// with the mark bitmask) into the next frontier and a new pile. The host reads the control
// block once per batch.
//
// D is the distance type (unsigned int or unsigned long long); its maximum is "unreached".

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

typedef unsigned long long u64;

// Control block slots (u64 each).
enum {
    C_CNT0 = 0,     // C_CNT0 + k % 3: size of the frontier made by iteration k (rotating, so
    C_CNT1,         // that the slot being reset is one that no thread still reads)
    C_CNT2,
    C_PILE,         // appends to the current far pile (may exceed capacity: overflow)
    C_NEWPILE,      // appends to the other far pile during compaction
    C_PPAR,         // which pile buffer is current
    C_FPAR,         // which frontier buffer is current
    C_BAND,         // appends to the band list (nodes that have been near, in order)
    C_BSTART,       // start of the current phase's band in the band list
    C_ITER,         // iterations done
    C_PHASE,        // phases begun
    C_LO,           // settled below
    C_HI,           // threshold
    C_DONE,         // 0 running, 1 finished, 2 target settled
    C_EDGES,        // arcs relaxed
    C_IMPROVED,     // improving relaxations
    C_COMPACT,      // far-pile compactions
    C_DUPS,         // duplicates dropped by compaction
    C_STALE,        // settled (stale) entries dropped by compaction
    C_REBUILDS,     // far piles rebuilt by a scan after an overflow
    C_PMIN,         // smallest far distance (reduction)
    C_REACHED,      // recording: nodes reached
    C_NEARED,       // recording: nodes that have been near
    C_SETTLED,      // recording: nodes settled
    C_SLOTS = 32
};

// Frame table columns; must match engine/recording.py FRAME_FIELDS.
enum { F_ITER = 0, F_PHASE, F_LO, F_HI, F_FRONTIER, F_PILE, F_EDGES, F_IMPROVED,
       F_REACHED, F_NEARED, F_SETTLED, F_FIELDS };

#define BUCKET_BINS 256

template <typename D>
struct Search {
    const long long* indptr;
    const long long* light_end;  // == indptr + 1 when every arc is light
    const int* indices;
    const unsigned int* weights;
    D* dist;
    int* front[2];
    int* pile[2];
    long long pile_cap;
    int* band;
    int* mark;
    int* reached_at;   // recording stamps, or null
    int* near_at;      // band membership (and recording stamp), or null
    int* settled_at;   // recording stamp, or null
    u64* ctl;
    long long* frames;    // batch x F_FIELDS, or null
    long long* buckets;   // batch x BUCKET_BINS, or null
    long long n;
    D delta;
    long long target;     // -1 for none
    int light_heavy;
};

__device__ __forceinline__ u64 vload(const u64* p) { return *(volatile const u64*)p; }

template <typename D>
__device__ __forceinline__ D inf_of() { return (D)~(D)0; }

__device__ __forceinline__ void warp_add(u64* slot, u64 value) {
    // One atomic per warp with work instead of one per thread.
    unsigned active = __activemask();
    unsigned lo = (unsigned)value;
    unsigned sum = __reduce_add_sync(active, lo);
    if (((threadIdx.x & 31) == (unsigned)(__ffs(active) - 1)) && sum) atomicAdd(slot, (u64)sum);
}

// Relax one arc; route an improved head to the next frontier or to the far pile.
template <typename D>
__device__ __forceinline__ void relax(const Search<D>& s, int v, D nd, D hi, int it,
                                      int epoch, u64* next_count, int* next, int* pile,
                                      unsigned& improved) {
    if (nd >= __ldcg(&s.dist[v])) return;
    D old = atomicMin(&s.dist[v], nd);
    if (nd >= old) return;
    ++improved;
    if (s.reached_at && old == inf_of<D>()) {
        s.reached_at[v] = it;
        atomicAdd(&s.ctl[C_REACHED], 1ull);
    }
    if (nd < hi) {
        if (atomicExch(&s.mark[v], epoch) != epoch) {
            next[atomicAdd(next_count, 1ull)] = v;
        }
        if (s.near_at && atomicCAS(&s.near_at[v], -1, it) == -1) {
            u64 pos = atomicAdd(&s.ctl[C_BAND], 1ull);
            s.band[pos] = v;
            if (s.settled_at) atomicAdd(&s.ctl[C_NEARED], 1ull);
        }
    } else {
        u64 pos = atomicAdd(&s.ctl[C_PILE], 1ull);
        if ((long long)pos < s.pile_cap) pile[pos] = v;  // beyond: rebuilt by a scan
    }
}

// Relax arcs [first(u), last(u)) of every node in list[0:count).
template <typename D, bool HEAVY>
__device__ void advance(const Search<D>& s, const int* list, long long count, D hi, int it,
                        int epoch, u64* next_count, int* next, int* pile, long long tid,
                        long long nthreads) {
    unsigned edges = 0, improved = 0;
    for (long long i = tid; i < count; i += nthreads) {
        int u = __ldcg(&list[i]);
        D du = __ldcg(&s.dist[u]);
        long long a = HEAVY ? s.light_end[u] : s.indptr[u];
        long long b = HEAVY ? s.indptr[u + 1] : s.light_end[u];
        edges += (unsigned)(b - a);
        for (long long k = a; k < b; ++k)
            relax(s, s.indices[k], (D)(du + (D)s.weights[k]), hi, it, epoch, next_count, next,
                  pile, improved);
    }
    warp_add(&s.ctl[C_EDGES], edges);
    warp_add(&s.ctl[C_IMPROVED], improved);
}

// A far candidate: pile entry k, or node k itself when the pile overflowed (scan).
__device__ __forceinline__ int far_candidate(const int* pile, bool scan, long long k) {
    return scan ? (int)k : __ldcg(&pile[k]);
}

template <typename D>
__global__ void __launch_bounds__(256) frontier_batch(
    const long long* indptr, const long long* light_end, const int* indices,
    const unsigned int* weights, D* dist, int* front0, int* front1, int* pile0, int* pile1,
    long long pile_cap, int* band, int* mark, int* reached_at, int* near_at, int* settled_at,
    u64* ctl_, long long* frames, long long* buckets, long long n, D delta, long long target,
    int light_heavy, int batch) {
    Search<D> s{indptr, light_end, indices, weights, dist, {front0, front1}, {pile0, pile1},
                pile_cap, band, mark, reached_at, near_at, settled_at, ctl_, frames, buckets,
                n, delta, target, light_heavy};
    cg::grid_group grid = cg::this_grid();
    const long long tid = grid.thread_rank();
    const long long nthreads = grid.size();
    const D INF = inf_of<D>();
    u64* ctl = s.ctl;

    for (int b = 0; b < batch; ++b) {
        if (vload(&ctl[C_DONE])) break;
        const int it = (int)vload(&ctl[C_ITER]) + 1;
        const int fpar = (int)vload(&ctl[C_FPAR]);
        const int ppar = (int)vload(&ctl[C_PPAR]);
        const long long count = (long long)vload(&ctl[C_CNT0 + (it - 1) % 3]);
        u64* next_count = &ctl[C_CNT0 + it % 3];
        const D lo = (D)vload(&ctl[C_LO]);
        const D hi = (D)vload(&ctl[C_HI]);
        int* cur = s.front[fpar];
        int* next = s.front[fpar ^ 1];
        int* pile = s.pile[ppar];
        const int epoch = 3 * it;  // frontier dedup; +1 compaction; +2 bucket histogram

        advance<D, false>(s, cur, count, hi, it, epoch, next_count, next, pile, tid, nthreads);
        grid.sync();

        const bool phase_end = vload(next_count) == 0;
        long long band_lo = 0, band_hi = 0;
        bool target_done = false, finished = false;
        D new_lo = lo, new_hi = hi;
        if (phase_end) {
            band_lo = (long long)vload(&ctl[C_BSTART]);
            band_hi = (long long)vload(&ctl[C_BAND]);
            if (s.light_heavy) {
                advance<D, true>(s, s.band + band_lo, band_hi - band_lo, hi, it, epoch,
                                 next_count, next, pile, tid, nthreads);
                grid.sync();
            }
            if (s.settled_at)
                for (long long i = band_lo + tid; i < band_hi; i += nthreads)
                    s.settled_at[__ldcg(&s.band[i])] = it;
            const long long pcount = (long long)vload(&ctl[C_PILE]);
            const bool scan = pcount > s.pile_cap;
            const long long m = scan ? s.n : pcount;
            D local = INF;
            for (long long k = tid; k < m; k += nthreads) {
                D d = __ldcg(&s.dist[far_candidate(pile, scan, k)]);
                if (d >= hi && d < local) local = d;
            }
            local = cg::reduce(cg::tiled_partition<32>(cg::this_thread_block()), local,
                               cg::less<D>());
            if ((threadIdx.x & 31) == 0 && local != INF) atomicMin((D*)&ctl[C_PMIN], local);
            grid.sync();
            const D pmin = *(volatile D*)&ctl[C_PMIN];
            target_done = s.target >= 0 && __ldcg(&s.dist[s.target]) < hi;
            finished = target_done || pmin == INF;
            if (!finished) {
                new_lo = (pmin / s.delta) * s.delta;
                new_hi = (new_lo > INF - s.delta) ? INF : (D)(new_lo + s.delta);
                int* other = s.pile[ppar ^ 1];
                unsigned stale = 0, dups = 0;
                for (long long k = tid; k < m; k += nthreads) {
                    int v = far_candidate(pile, scan, k);
                    D d = __ldcg(&s.dist[v]);
                    if (d < hi || d == INF) { stale += !scan; continue; }
                    if (atomicExch(&s.mark[v], epoch + 1) == epoch + 1) { ++dups; continue; }
                    if (d < new_hi) {
                        next[atomicAdd(next_count, 1ull)] = v;
                        if (s.near_at && atomicCAS(&s.near_at[v], -1, it) == -1) {
                            s.band[atomicAdd(&ctl[C_BAND], 1ull)] = v;
                            if (s.settled_at) atomicAdd(&ctl[C_NEARED], 1ull);
                        }
                    } else {
                        other[atomicAdd(&ctl[C_NEWPILE], 1ull)] = v;
                    }
                }
                warp_add(&ctl[C_STALE], stale);
                warp_add(&ctl[C_DUPS], dups);
            }
            grid.sync();
        }

        if (tid == 0) {
            ctl[C_ITER] = it;
            if (phase_end) {
                if (s.settled_at) ctl[C_SETTLED] += band_hi - band_lo;
                ctl[C_BSTART] = band_hi;
                if (vload(&ctl[C_PILE]) > (u64)s.pile_cap) ctl[C_REBUILDS] += 1;
                if (finished) {
                    ctl[C_DONE] = target_done ? 2 : 1;
                    ctl[C_LO] = hi;
                    if (!target_done) ctl[C_PILE] = 0;
                } else {
                    ctl[C_LO] = new_lo;
                    ctl[C_HI] = new_hi;
                    ctl[C_PHASE] += 1;
                    ctl[C_COMPACT] += 1;
                    ctl[C_PILE] = ctl[C_NEWPILE];
                    ctl[C_NEWPILE] = 0;
                    ctl[C_PPAR] = ppar ^ 1;
                }
                ctl[C_PMIN] = (u64)INF;
            }
            ctl[C_CNT0 + (it + 1) % 3] = 0;
            ctl[C_FPAR] = fpar ^ 1;
            if (s.frames) {
                long long* f = s.frames + (long long)b * F_FIELDS;
                f[F_ITER] = it;
                f[F_PHASE] = (long long)ctl[C_PHASE];
                f[F_LO] = (long long)ctl[C_LO];
                f[F_HI] = (long long)ctl[C_HI];
                f[F_FRONTIER] = count;
                f[F_PILE] = (long long)min(ctl[C_PILE], (u64)s.pile_cap);
                f[F_EDGES] = (long long)ctl[C_EDGES];
                f[F_IMPROVED] = (long long)ctl[C_IMPROVED];
                f[F_REACHED] = (long long)ctl[C_REACHED];
                f[F_NEARED] = (long long)ctl[C_NEARED];
                f[F_SETTLED] = (long long)ctl[C_SETTLED];
            }
        }
        grid.sync();

        if (s.buckets) {
            // Delta-stepping recording: size of each bucket ahead, from the band and the pile.
            long long* bins = s.buckets + (long long)b * BUCKET_BINS;
            const D flo = (D)vload(&ctl[C_LO]);
            const D fhi = (D)vload(&ctl[C_HI]);
            const long long pcount = (long long)vload(&ctl[C_PILE]);
            const bool scan = pcount > s.pile_cap;
            const long long m = scan ? s.n : pcount;
            int* fpile = s.pile[(int)vload(&ctl[C_PPAR])];
            if (tid == 0)
                atomicAdd((u64*)&bins[0], vload(&ctl[C_NEARED]) - vload(&ctl[C_SETTLED]));
            for (long long k = tid; k < m; k += nthreads) {
                int v = far_candidate(fpile, scan, k);
                D d = __ldcg(&s.dist[v]);
                if (d < fhi || d == INF) continue;
                if (atomicExch(&s.mark[v], epoch + 2) == epoch + 2) continue;
                long long off = (long long)(d / s.delta) - (long long)(flo / s.delta);
                if (off > BUCKET_BINS - 1) off = BUCKET_BINS - 1;
                atomicAdd((u64*)&bins[off], 1ull);
            }
            grid.sync();
        }
    }
}

