// ADVANCE: relax the arcs of the near frontier (light arcs; Delta-stepping's heavy pass), the
// near band's bookkeeping and the bucket moves of a relaxation.
#pragma once

// A node entered the near band: list it once where the band is listed (Delta-stepping's
// heavy pass relaxes the band's heavy arcs), else stamp it with the first iteration (an
// atomic that no thread waits for; the host counts the stamps).
template <typename D>
__device__ __forceinline__ void enter_band(const Search<D>& s, int v, int it) {
    if (!s.near_at) return;
    if (!s.band)
        atomicMin(&s.near_at[v], it);
    else if (atomicCAS(&s.near_at[v], NEVER, it) == NEVER)
        append(&s.ctl[C_BAND], s.band, v);
}

// Recording Delta-stepping and bucketing: the bucket ahead of a band whose first bucket is
// `first` (its lo / delta) of a distance at or beyond the band's end, the last bin counting
// every bucket beyond. Phase ends count the buckets with it (compact, count_buckets), and
// the moves between phase ends follow it (move_bins).
template <typename D>
__device__ __forceinline__ int bucket_ahead(D d, long long first, D delta) {
    return (int)min((long long)(d / delta) - first, (long long)BUCKET_BINS - 1);
}

// Recording Delta-stepping and bucketing: a node improved from `old` to `nd` leaves the
// bucket of `old` and joins that of `nd` (the buckets ahead hold every reached node at or
// beyond hi). Atomics return each improvement's exact old distance, so a node's moves in an
// iteration add up to one move whatever their order. Counting the whole pile instead put a
// barrier after every recorded iteration (decisions/0043).
template <typename D>
__device__ __forceinline__ void move_bins(const Gains& g, D old, D nd, D hi) {
    const bool was = old >= hi && old != inf_of<D>(), is = nd >= hi;
    const long long first = (long long)g.bin_lo;
    const D delta = (D)g.bin_delta;
    const int from = was ? bucket_ahead(old, first, delta) : -1;
    const int to = is ? bucket_ahead(nd, first, delta) : -1;
    if (from == to) return;  // most improvements stay in their bucket
    if (was) atomicSub(&g.bins[from], 1);
    if (is) atomicAdd(&g.bins[to], 1);
}

// Relax arc k of node u at distance du; route an improved head to the next frontier or to
// the far pile. On an asynchronous ring the arc back to the entry's parent is skipped
// (false): relax_entry says why it cannot improve.
template <typename D, bool CL, bool ASYNC = false>
__device__ __forceinline__ bool relax(const Search<D>& s, long long k, D du, D hi, int it,
                                      const Out& o, Gains& improved, int u = -1,
                                      int parent = -1) {
    const int4 a = __ldg(reinterpret_cast<const int4*>(&s.arcs[k]));  // head, weight, range
    const int v = a.x;
    if (ASYNC && v == parent) return false;
    // Never wraps: graph.distance_dtype picks D from the largest d(u) + w a search can form.
    const D nd = (D)(du + (D)(unsigned)a.y);
    D old = atomicMin(&s.dist[v], nd);
    if (nd >= old) return true;
    ++improved.all;
    if (old < hi) ++improved.again;
    if (s.reached_at && old == inf_of<D>()) s.reached_at[v] = it;
    if (improved.bins) move_bins(improved, old, nd, hi);
    if (nd < hi) {
        // No dedup mark here: a second improvement of v in the same iteration is rare on
        // road graphs and its duplicate entry costs less than one more dependent atomic for
        // every append (measured, decisions/0004). Duplicates read the same dist[v] and
        // their second pass improves nothing. Each entry is one improving relaxation, so
        // a frontier never exceeds the arc count.
        prefetch_arcs(s, a.z, a.w);
        push_near<D, CL, ASYNC>(s, o, Entry{v, a.z, a.w}, u, nd);
        enter_band(s, v, it);
    } else {
        push_far<D, CL, ASYNC>(s, o, v);
    }
    return true;
}

// Relax the arcs of entry e that fall to `lane` of the 2^lanes_log2 threads sharing it. When
// recording, `logged_at` is the entry's relax-log slot: its node, or -1 when it has no arc.
// The arc back to `parent`, the node whose relaxation made the entry (asynchronous rings
// only), is not relaxed: while e's node keeps the distance that relaxation gave it, going
// back costs at least the parent's distance then, never below the parent's now (no weight
// is negative); the entry of the node's last improvement sees its final distance, and skips
// only an arc that is useless for that reason.
template <typename D, bool CL, bool ASYNC = false>
__device__ __forceinline__ void relax_entry(const Search<D>& s, const Entry& e, int lane, D hi,
                                            int it, const Out& o, unsigned& edges,
                                            Gains& improved, long long logged_at = -1,
                                            int parent = -1) {
    if (lane == 0) {
        edges += (unsigned)max(e.end - e.start, 0);
        // The host keeps room for a whole frontier (search_batch).
        if (s.relax_log && logged_at >= 0 && logged_at < s.log_cap) {
            s.relax_log[logged_at] = e.start < e.end ? e.v : -1;
            improved.logged += e.start < e.end;
        }
    }
    if (e.start + lane >= e.end) return;
    const D du = __ldcg(&s.dist[e.v]);
    for (int k = e.start + lane; k < e.end; k += 1 << s.lanes_log2)
        edges -= !relax<D, CL, ASYNC>(s, k, du, hi, it, o, improved, e.v, parent);
}

// Relax the arcs of the `count` entries of frontier p: 2^lanes_log2 threads share each
// entry's arcs, so a thread follows one chain of memory accesses, not one per arc. Entry i
// takes relax-log slot log_base + i when recording: no atomic, and in iteration order.
template <typename D, bool CL>
__device__ void advance(const Search<D>& s, int p, const Entry* list, long long count, D hi,
                        int it, const Out& o, long long tid, long long nthreads,
                        unsigned& edges, Gains& improved, long long log_base) {
    const int lane = (int)(tid & ((1 << s.lanes_log2) - 1));
    for (long long i = tid >> s.lanes_log2; i < count; i += nthreads >> s.lanes_log2)
        relax_entry<D, CL>(s, entry_at<D, CL>(s, p, list, i), lane, hi, it, o, edges, improved,
                           log_base + i);
}

// Delta-stepping's heavy pass: relax the heavy arcs of the nodes band[0:count).
template <typename D, bool CL>
__device__ void advance_heavy(const Search<D>& s, const int* band, long long count, D hi,
                              int it, const Out& o, long long tid, long long nthreads,
                              unsigned& edges, Gains& improved) {
    for (long long i = tid; i < count; i += nthreads) {
        const int u = __ldcg(&band[i]);
        const long long a = s.light_end[u], b = s.indptr[u + 1];
        const D du = __ldcg(&s.dist[u]);
        edges += (unsigned)(b - a);
        for (long long k = a; k < b; ++k)
            relax<D, CL>(s, k, du, hi, it, o, improved);
    }
}
