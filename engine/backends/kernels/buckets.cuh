// Bucketing: the store of far nodes sorted into segments of width Delta, and the counts of
// the buckets ahead that a recording keeps.
#pragma once

// Bucketing: the store's first non-empty segment from `cursor` on, before the last one;
// SEGMENTS when there is none. The offsets never decrease, so it is the one before the first
// offset above the cursor's: each warp reads 32 offsets per round and votes (a thread's
// walk, one dependent read per segment, cost 150 us when the store had run out).
__device__ __forceinline__ int next_segment(const long long* seg, int cursor) {
    const long long first = __ldcg(&seg[cursor]);
    const int lane = (int)(threadIdx.x & 31);
    for (int j0 = cursor + 1; j0 <= SEGMENTS; j0 += 32) {
        const int j = j0 + lane;
        const bool up = j <= SEGMENTS && __ldcg(&seg[j]) > first;
        const unsigned above = __ballot_sync(0xffffffffu, up);
        if (above) return j0 + __ffs(above) - 2;
    }
    return SEGMENTS;
}

// Bucketing: the store's segments [k, end), by default all from k on, as a pile the
// phase-end passes read.
template <typename D>
__device__ __forceinline__ Pile store_from(const Search<D>& s, int k, int end = SEGMENTS + 1) {
    const long long first = __ldcg(&s.seg[k]);
    return Pile{s.store + first, false, __ldcg(&s.seg[end]) - first};
}

// Add 1 to counts[key] for each calling thread and return the thread's old value plus its
// rank among the threads of its warp with the same key: one atomic per key and warp, since
// most far nodes of a road graph fall in the first few buckets and per-thread atomics on
// those few addresses queue up.
__device__ __forceinline__ long long add_by_key(long long* counts, unsigned key) {
    const unsigned lane = threadIdx.x & 31;
    const unsigned same = __match_any_sync(__activemask(), key);
    const unsigned leader = __ffs(same) - 1;
    u64 base = 0;
    if (lane == leader) base = atomicAdd((u64*)&counts[key], (u64)__popc(same));
    base = __shfl_sync(same, base, leader);
    return (long long)base + __popc(same & ((1u << lane) - 1));
}

// Bucketing: the store segment of distance d, for a store whose segment 0 is bucket base.
template <typename D>
__device__ __forceinline__ unsigned segment_of(D d, D delta, D base) {
    return (unsigned)min((u64)(d / delta - base), (u64)SEGMENTS);
}

// Bucketing: sort the live far nodes (the store's from segment `cursor` on and the pile's,
// one copy each, duplicates marked `epoch`) by bucket into the store, segment k holding
// bucket base + k and the last one every bucket beyond: a counting sort in three passes and
// three barriers. The live nodes are gathered in the other pile (empty between phase ends),
// whose count is reset at the end; the counters that make the histogram are zeroed for the
// next sort.
template <typename D, bool CL>
__device__ void bucket_sort(const Search<D>& s, const Pile& pile, int cursor, int ppar, D hi,
                            D delta, D base, int epoch, long long tid, long long nthreads) {
    long long* counts = s.seg + SEGMENTS + 2;
    int* live = s.pile[ppar ^ 1];
    u64* live_count = &s.ctl[C_PILE0 + (ppar ^ 1)];
    unsigned stale = 0, dups = 0;
    const Pile parts[2] = {store_from(s, cursor), pile};
    for (const Pile& part : parts)
        for (long long k = tid; k < part.m; k += nthreads) {
            const int v = far_candidate(part.list, part.scan, k);
            const D d = __ldcg(&s.dist[v]);
            if (d < hi || d == inf_of<D>()) { stale += !part.scan; continue; }
            if (atomicExch(&s.mark[v], epoch) == epoch) { ++dups; continue; }
            append(live_count, live, v);
            add_by_key(counts, segment_of(d, delta, base));
        }
    warp_add(&s.ctl[C_STALE], stale);
    warp_add(&s.ctl[C_DUPS], dups);
    scope_sync<CL>();
    const long long m = (long long)vload(live_count);
    if (tid < 32) {  // segment offsets by one warp; the counters become write positions
        constexpr int PER = (SEGMENTS + 32) / 32;  // segments 0..SEGMENTS, PER per lane
        long long c[PER], sum = 0;
#pragma unroll
        for (int i = 0; i < PER; ++i) {
            const int k = (int)tid * PER + i;
            c[i] = k <= SEGMENTS ? __ldcg(&counts[k]) : 0;
            sum += c[i];
        }
        long long at = sum;  // inclusive prefix sum over the lanes
        for (int d = 1; d < 32; d <<= 1) {
            const long long left = __shfl_up_sync(0xffffffffu, at, d);
            if (tid >= d) at += left;
        }
        if (tid == 31) s.seg[SEGMENTS + 1] = at;
        at -= sum;
#pragma unroll
        for (int i = 0; i < PER; ++i) {
            const int k = (int)tid * PER + i;
            if (k > SEGMENTS) break;
            s.seg[k] = at;
            counts[k] = at;
            at += c[i];
        }
        __threadfence();
    }
    scope_sync<CL>();
    for (long long k = tid; k < m; k += nthreads) {
        const int v = __ldcg(&live[k]);
        const D d = __ldcg(&s.dist[v]);
        s.store[add_by_key(counts, segment_of(d, delta, base))] = v;
    }
    __threadfence();
    scope_sync<CL>();
    for (long long k = tid; k <= SEGMENTS; k += nthreads) counts[k] = 0;
    if (tid == 0) {
        *live_count = 0;
        s.ctl[C_SORTS] += 1;
    }
}

// Recording, at a phase end: add the far nodes of `pile` (one copy each, marked `epoch`) to
// the sizes of the buckets ahead of the band [lo, hi), the last bin counting every bucket
// beyond. The iterations until the next phase end add their moves (move_bins).
template <typename D>
__device__ void count_buckets(const Search<D>& s, long long* bins, const Pile& pile, D lo, D hi,
                              D delta, int epoch, long long tid, long long nthreads) {
    const long long first = (long long)(lo / delta);
    for (long long k = tid; k < pile.m; k += nthreads) {
        const int v = far_candidate(pile.list, pile.scan, k);
        const D d = __ldcg(&s.dist[v]);
        if (d < hi || d == inf_of<D>()) continue;
        if (atomicExch(&s.mark[v], epoch) == epoch) continue;
        atomicAdd((u64*)&bins[bucket_ahead(d, first, delta)], 1ull);
    }
}
