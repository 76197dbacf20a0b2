// Queues: appends to lists in global or shared memory, the asynchronous rings and held
// lists, the near frontier and far pile appends, the cluster's exchange of part sizes, and
// reading a frontier entry.
#pragma once

// Append v to list at a slot taken from *count (global or shared): one atomic for all the
// threads of a warp that append at the same time. Slots at or beyond `cap` are not stored
// and the call returns false; the global far pile is then rebuilt by a scan, the
// shared-memory lists spill to global memory, and the other lists never overflow.
template <typename C, typename T>
__device__ __forceinline__ bool append(C* count, T* list, T v, C cap = ~(C)0 >> 1) {
    cg::coalesced_group g = cg::coalesced_threads();
    C base = 0;
    if (g.thread_rank() == 0) base = atomicAdd(count, (C)g.size());
    base = g.shfl(base, 0) + g.thread_rank();
    if (base >= cap) return false;
    list[base] = v;
    return true;
}

__device__ __forceinline__ unsigned vload32(const unsigned* p) {
    return *(volatile const unsigned*)p;
}

// Asynchronous Near-Far: put e on this block's ring; false (for the whole coalesced group)
// when the ring could fill. The check leaves room for one ticket per thread of the block, the
// most that groups racing past it can reserve, so tail - done never exceeds cap. Entries are
// relaxed out of ticket order, so a producer still waits until the entry of ticket t - cap
// has been read; that ticket is taken already (done > t - cap), so the wait is short.
__device__ __forceinline__ bool ring_push(AsyncShared* r, RingEntry e, unsigned cap) {
    cg::coalesced_group g = cg::coalesced_threads();
    unsigned first = 0;
    if (g.thread_rank() == 0 &&
        vload32(&r->tail) + g.size() + blockDim.x - vload32(&r->done) <= cap)
        first = atomicAdd(&r->tail, g.size()) + 1;
    first = g.shfl(first, 0);
    if (first == 0) return false;
    const unsigned ticket = first - 1 + g.thread_rank(), slot = ticket & (cap - 1);
    while (vload32(&r->seq[slot]) != 2 * ticket) {
    }
    r->ring[slot] = e;
    __threadfence_block();  // the entry before its ticket
    *(volatile unsigned*)&r->seq[slot] = 2 * ticket + 1;
    return true;
}

// Asynchronous Near-Far: block b's held list of parity `par` (two a block, in global
// memory).
template <typename D>
__device__ __forceinline__ RingEntry* held_list(const Search<D>& s, unsigned b, unsigned par) {
    return s.held + (2 * (long long)b + par) * s.held_cap;
}

// Asynchronous Near-Far: what the blocks tell each other at a sub-band's end, after the held
// lists in global memory. Step k of a launch (a grid barrier each) reduces the least held
// distance into least[k % 3] (three slots: one is reset while the others are in use) and
// publishes each block's held count in counts[k % 2][block].
struct HeldBoard {
    u64* least;
    unsigned* counts;
};

template <typename D>
__device__ __forceinline__ HeldBoard held_board(const Search<D>& s) {
    u64* least = reinterpret_cast<u64*>(s.held + 2 * (long long)gridDim.x * s.held_cap);
    return HeldBoard{least, reinterpret_cast<unsigned*>(least + 4)};
}

// Asynchronous Near-Far: hold e, of distance d, back in this block's current held list
// (false when full).
template <typename D>
__device__ __forceinline__ bool hold(const Search<D>& s, const RingEntry& e, D d) {
    AsyncShared* r = s.ring;
    if (!append(&r->held_n, held_list(s, blockIdx.x, r->held_par), e, (unsigned)s.held_cap))
        return false;
    atomicMin(&r->held_min, (u64)d);
    return true;
}

// The next frontier gets e: in the block's shared-memory part (CL), on its ring (ASYNC, with
// the node whose relaxation made it, when its distance d is below the sub-band's end
// and the ring has room; else held back), or in the global list when those are full.
template <typename D, bool CL, bool ASYNC = false>
__device__ __forceinline__ void push_near(const Search<D>& s, const Out& o, Entry e,
                                          int parent = -1, D d = 0) {
    if constexpr (ASYNC) {
        const RingEntry entry{e, parent};
        if (d < (D)s.ring->sub_hi && ring_push(s.ring, entry, s.qcap)) return;
        if (hold(s, entry, d)) return;
    } else if constexpr (CL) {
        if (append(&s.sh->qn[o.np], s.sh->q[o.np], e, s.qcap)) return;
    }
    append(o.next_count, o.next, e);
    if constexpr (CL || ASYNC) __threadfence();  // read after the next cluster barrier
}

template <typename D, bool CL, bool ASYNC = false>
__device__ __forceinline__ void push_far(const Search<D>& s, const Out& o, int v) {
    if constexpr (ASYNC) {
        if (append(&s.ring->fn, s.ring->far, v, s.fcap)) return;
    } else if constexpr (CL) {
        if (append(&s.sh->fn, s.sh->far, v, s.fcap)) return;
    }
    append(o.pile_count, o.pile, v, (u64)s.pile_cap);
    if constexpr (CL || ASYNC) __threadfence();  // read after the next cluster barrier
}

// Move a block's staged far appends (`far`, `*fn` of them) to the global pile once at least
// `min_fill` are staged. Every thread of the block calls it.
template <typename D>
__device__ void flush_far(const Search<D>& s, const Out& o, int* far, unsigned* fn,
                          unsigned min_fill) {
    __shared__ u64 base;
    __syncthreads();
    const unsigned staged = min(*fn, s.fcap);
    if (staged == 0 || staged < min_fill) return;
    if (threadIdx.x == 0) base = atomicAdd(o.pile_count, (u64)staged);
    __syncthreads();
    for (unsigned k = threadIdx.x; k < staged; k += blockDim.x)
        if ((long long)(base + k) < s.pile_cap) o.pile[base + k] = far[k];
    __threadfence();  // read after the next cluster barrier
    __syncthreads();
    if (threadIdx.x == 0) *fn = 0;
}

// What every thread knows of the cluster scope's exchanges (each derives it identically).
struct Rounds {
    unsigned made = 0;   // exchanges made: the phases of the size mbarriers
    unsigned dirty = 7;  // bit k: the global frontier count C_CNT0 + k may be nonzero
};

// End an iteration (p: parity of the frontier just relaxed): make the next frontier visible
// to the whole scope and return its size; `global` is set to how many of its entries are in
// global memory. At cluster scope the block's staged far appends are flushed first once
// `min_fill` are staged.
template <typename D, bool CL>
__device__ long long exchange(const Search<D>& s, const Out& o, int p, long long& global,
                              unsigned min_fill, Rounds& rounds) {
#if CLUSTERS
    if constexpr (CL) {
        // flush_far begins with the block barrier that ends the appends
        flush_far(s, o, s.sh->far, &s.sh->fn, min_fill);
        const unsigned round = rounds.made++;
        u64* bar = &s.sh->sizes_in[round & 1];
        if (threadIdx.x == 0) expect_bytes(bar, 4 * CLUSTER);
        if (threadIdx.x < CLUSTER) {
            const unsigned made = s.sh->qn[o.np];
            const unsigned part = made > s.qcap ? (s.qcap | SPILLED) : made;
            send(&s.sh->pub[o.np][s.rank], part, bar, threadIdx.x);
        }
        if (threadIdx.x == 0) s.sh->qn[p] = 0;  // frontier p's parts went out an iteration ago
        cluster_barrier();
        wait_phase(bar, (round >> 1) & 1);
        long long local = 0;
        unsigned spilled = 0;
#pragma unroll
        for (unsigned r = 0; r < CLUSTER; ++r) {
            local += part_size(s.sh, o.np, r);
            spilled |= s.sh->pub[o.np][r] & SPILLED;
        }
        global = spilled ? block_load(o.next_count) : 0;
        rounds.dirty |= (global != 0) << (o.next_count - &s.ctl[C_CNT0]);  // spills count there
        return local + global;
    }
#endif
    // One reader per block: 2,000 warps reading one word queue up at its L2 slice.
    cg::this_grid().sync();
    global = block_load(o.next_count);
    return global;
}

// An entry of a global frontier list, read at L2 (another block may have written it).
__device__ __forceinline__ Entry load_entry(const Entry* e) {
    return Entry{__ldcg(&e->v), __ldcg(&e->start), __ldcg(&e->end)};
}

// Entry i of the frontier of parity p: the blocks' shared-memory parts in rank order, then
// the global list `list`.
template <typename D, bool CL>
__device__ __forceinline__ Entry entry_at(const Search<D>& s, int p, const Entry* list,
                                          long long i) {
#if CLUSTERS
    if constexpr (CL) {
#pragma unroll
        for (unsigned r = 0; r < CLUSTER; ++r) {
            const long long part = part_size(s.sh, p, r);
            if (i < part) {
                const Entry* e = &s.sh->q[p][i];
                return r == s.rank ? *e : *cg::this_cluster().map_shared_rank(e, r);
            }
            i -= part;
        }
    }
#endif
    return load_entry(&list[i]);
}

// Start moving the arcs of a frontier entry into L2 now, so that the advance that relaxes
// them in the next iteration does not wait on DRAM for them.
template <typename D>
__device__ __forceinline__ void prefetch_arcs(const Search<D>& s, int start, int end) {
    if (start < end) {
        asm volatile("prefetch.global.L2 [%0];" ::"l"(&s.arcs[start]));
        asm volatile("prefetch.global.L2 [%0];" ::"l"(&s.arcs[end - 1]));
    }
}
