// FILTER at a phase end: the far pile (its least distance, the next band and Delta), and
// its compaction into the next frontier and the next pile.
#pragma once

// A far candidate: pile entry k, or node k itself when the pile overflowed (scan).
__device__ __forceinline__ int far_candidate(const int* pile, bool scan, long long k) {
    return scan ? (int)k : __ldcg(&pile[k]);
}

// Cluster scope, end of a batch: staged far appends go to the global pile, and the blocks'
// parts of frontier o.np to its global list o.next after its `global` entries, where the
// next batch (at either scope) reads them; *o.next_count becomes the frontier's size.
template <typename D>
__device__ void spill_all(const Search<D>& s, const Out& o, long long global) {
    flush_far(s, o, s.sh->far, &s.sh->fn, 0);
    long long at = global, total = global;
    for (unsigned r = 0; r < CLUSTER; ++r) {
        if (r < s.rank) at += part_size(s.sh, o.np, r);
        total += part_size(s.sh, o.np, r);
    }
    const long long part = part_size(s.sh, o.np, s.rank);
    for (long long k = threadIdx.x; k < part; k += blockDim.x) o.next[at + k] = s.sh->q[o.np][k];
    if (s.rank == 0 && threadIdx.x == 0) *o.next_count = (u64)total;
}

// The far pile of parity ppar as a phase end reads it: its entries, or every node once it
// overflowed (scan).
struct Pile {
    const int* list;
    bool scan;
    long long m;
};

template <typename D>
__device__ __forceinline__ Pile far_pile(const Search<D>& s, int ppar) {
    const long long count = (long long)vload(&s.ctl[C_PILE0 + ppar]);
    const bool scan = count > s.pile_cap;
    return Pile{s.pile[ppar], scan, scan ? s.n : count};
}

// Phase end, first pass: the smallest far distance at or above hi, reduced into
// ctl[C_PMIN], which next_band reads after the scope's next barrier.
template <typename D>
__device__ void far_min(const Search<D>& s, const Pile& pile, D hi, long long tid,
                        long long nthreads) {
    D local = inf_of<D>();
    for (long long k = tid; k < pile.m; k += nthreads) {
        const D d = __ldcg(&s.dist[far_candidate(pile.list, pile.scan, k)]);
        if (d >= hi && d < local) local = d;
    }
    local = cg::reduce(cg::tiled_partition<32>(cg::this_thread_block()), local, cg::less<D>());
    if ((threadIdx.x & 31) == 0 && local != inf_of<D>()) atomicMin((D*)&s.ctl[C_PMIN], local);
}

// The Delta rule (engine/adaptive.py says why): the next phase's Delta after one of width
// `delta` that re-improved `waste` near nodes, Delta times sqrt(phase_cost / waste) with
// the factor in [1/2, 2] (in 256ths), within the bounds. Equal bounds keep a fixed Delta.
// Every thread computes it from the same inputs, in the same integer arithmetic as
// AdaptiveDelta.next.
template <typename D>
__device__ __forceinline__ D next_delta(const Search<D>& s, D delta, long long waste) {
    if (waste < 1) waste = 1;
    long long ratio = s.phase_cost * 65536 / waste;
    if (ratio > 512 * 512) ratio = 512 * 512;
    unsigned long long step = 0;  // floor(sqrt(ratio)), at most 512
    for (unsigned long long bit = 512; bit; bit >>= 1)
        if ((step + bit) * (step + bit) <= (unsigned long long)ratio) step += bit;
    if (step < 128) step = 128;
    const unsigned long long d = (unsigned long long)delta;
    unsigned long long grown = d < (1ull << 54) ? d * step / 256 : d / 256 * step;
    if (grown < (unsigned long long)s.delta_low) grown = (unsigned long long)s.delta_low;
    if (grown > (unsigned long long)s.delta_high) grown = (unsigned long long)s.delta_high;
    return (D)grown;
}

// The smallest far distance, reduced by far_min into ctl[C_PMIN] (after a barrier).
template <typename D>
__device__ __forceinline__ D far_smallest(const Search<D>& s) {
    return *(volatile D*)&s.ctl[C_PMIN];
}

// Whether the target (if any) is settled: its distance is below hi.
template <typename D>
__device__ __forceinline__ bool target_settled(const Search<D>& s, D hi) {
    return s.target >= 0 && __ldcg(&s.dist[s.target]) < hi;
}

// 1 when nothing is far (`pmin`, the smallest far distance, is infinite), 2 when the target
// is settled, else 0 and the next band [new_lo, new_hi): the Delta-aligned one holding pmin,
// from hi on (below hi all is settled; an adaptive Delta may have grown past the last
// band's alignment).
template <typename D>
__device__ __forceinline__ int next_band(const Search<D>& s, D hi, D delta, D pmin, D& new_lo,
                                         D& new_hi) {
    const D INF = inf_of<D>();
    if (target_settled(s, hi)) return 2;
    if (pmin == INF) return 1;
    const D aligned = (pmin / delta) * delta;
    new_lo = aligned > hi ? aligned : hi;
    new_hi = (aligned > INF - delta) ? INF : (D)(aligned + delta);
    return 0;
}

// Phase end, second pass: the far pile's nodes of the new band go to the next frontier, the
// others to the other pile; settled entries and duplicates (marked `epoch`) are dropped.
// Thread k0 of nthreads takes candidates k0, k0 + nthreads, ...
// A recorded Delta-stepping search counts the nodes kept into `bins` by their bucket ahead
// of the new band, whose first bucket is `first`: they are the pile of its next phase, whole.
template <typename D, bool CL, bool ASYNC = false>
__device__ void compact(const Search<D>& s, const Out& o, const Pile& pile, int ppar, D hi,
                        D new_hi, int epoch, int it, long long k0, long long nthreads,
                        Gains& g, long long* bins = nullptr, long long first = 0,
                        D delta = 1) {
    int* other = s.pile[ppar ^ 1];
    u64* other_count = &s.ctl[C_PILE0 + (ppar ^ 1)];
    unsigned stale = 0, dups = 0;
    for (long long k = k0; k < pile.m; k += nthreads) {
        const int v = far_candidate(pile.list, pile.scan, k);
        const D d = __ldcg(&s.dist[v]);
        if (d < hi || d == inf_of<D>()) { stale += !pile.scan; continue; }
        if (atomicExch(&s.mark[v], epoch) == epoch) { ++dups; continue; }
        if (d < new_hi) {
            const int start = (int)s.indptr[v], end = (int)s.light_end[v];
            prefetch_arcs(s, start, end);
            push_near<D, CL, ASYNC>(s, o, Entry{v, start, end}, -1, d);
            enter_band(s, v, it);
        } else {
            append(other_count, other, v);
            if (s.frames) ++g.kept;
            if (bins) atomicAdd((u64*)&bins[bucket_ahead(d, first, delta)], 1ull);
        }
    }
    warp_add(&s.ctl[C_STALE], stale);
    warp_add(&s.ctl[C_DUPS], dups);
}
