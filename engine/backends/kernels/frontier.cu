// Frontier search kernels: Near-Far, Delta-stepping and Bellman-Ford (workfront sweep).
//
// One launch runs up to `batch` iterations with no host round-trip: every iteration is an
// ADVANCE (relax the arcs of the near frontier with atomicMin) and a FILTER (improved nodes
// below the threshold `hi` form the next frontier; the others are appended to the far pile).
// When the frontier empties the phase ends on the device: Delta-stepping relaxes the heavy
// arcs of the finished bucket, the band is settled, and the far pile is compacted (stale
// entries and duplicates dropped with the mark bitmask) into the next frontier and a new
// pile. The host reads the control block once per batch.
//
// The same search runs at two scopes:
// - GRID (frontier_grid): a cooperative launch over the whole GPU, synchronised by
//   grid.sync(); frontiers live in global memory. For large frontiers.
// - CLUSTER (frontier_cluster, Hopper and later): one thread-block cluster, synchronised by
//   the hardware cluster barrier. Each block keeps its part of the frontier in shared memory,
//   where the other blocks read it (distributed shared memory), and stages its far-pile
//   appends there too. The part sizes go to every block by asynchronous stores counted on
//   an mbarrier, so the barrier's release fence covers shared memory only (cluster_barrier).
//   Road-graph frontiers are small, so the cheaper barrier and on-chip queues decide the
//   time per iteration. Entries beyond a block's capacity spill to the global frontier.
// Both leave the frontier in global memory at the end of a batch, and a batch ends early when
// the frontier size leaves the scope's range, so the host switches scope between batches.
//
// D is the distance type (unsigned int or unsigned long long); its maximum is "unreached".

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

typedef unsigned long long u64;

// Control block slots (u64 each).
enum {
    C_CNT0 = 0,     // C_CNT0 + k % 3: entries in global memory of the frontier made by
    C_CNT1,         // iteration k (rotating, so that the slot being reset is one that no
                    // thread still reads); all of them at the end of a batch
    C_CNT2,
    C_PILE0,        // appends to far pile 0 (may exceed capacity: overflow)
    C_PILE1,        // appends to far pile 1
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
    C_QUEUED,       // near entries taken from the rings (asynchronous Near-Far)
    C_DELTA,        // the current band's Delta (an adaptive Delta changes it at phase ends)
    C_ENTRIES,      // near entries relaxed in the current phase, between batches (a frame
                    // row's last_entries; the asynchronous kernel, never recorded, counts none)
    C_AGAIN,        // re-improvements: improving relaxations of a node already near
    C_AGAIN_MARK,   // C_AGAIN at the last phase end (the last phase's waste is the difference)
    C_LENTRIES,     // near entries relaxed in the last finished phase
    C_LWASTE,       // re-improvements in the last finished phase (the Delta rule's input)
    C_SCURSOR,      // bucketing: the store's first segment not taken yet
    C_SBASE,        // bucketing: the bucket (distance / Delta) of the store's segment 0
    C_SORTS,        // bucketing: sorts of the far nodes into the store
    C_LOGPOS,       // recording: relax-log slots used (one per near entry relaxed; -1 where
                    // the entry had no arc, dropped when the log is read)
    C_REDGES,       // recording: where the next batch's frame rows go on from (finish_batch):
    C_RIMPROVED,    // the running totals of T_EDGES, T_IMPROVED and T_LOGGED after the last
    C_RLOGGED,      // row finished, the far pile's size and the phase there (search_init
    C_RPILE,        // sets C_RPHASE to 1)
    C_RPHASE,
    C_RFROM,        // recording: the iterations done when the last batch started
    C_HELD,         // asynchronous Near-Far: near entries held back for a later sub-band
    C_SLOTS = 40
};

// Frame table columns; must match engine/recording.py FRAME_FIELDS.
enum { F_ITER = 0, F_PHASE, F_LO, F_HI, F_FRONTIER, F_PILE, F_EDGES, F_IMPROVED,
       F_REACHED, F_NEARED, F_SETTLED, F_RELAXED, F_DELTA, F_LENTRIES, F_LWASTE, F_FIELDS };

// Recording: what an iteration adds to the counters, after its row's own numbers (the host
// makes the running totals of engine/recording.py's columns from them and from the node
// stamps, engine/_gpu_rows.py). Each block counts its iterations in its shared memory, TALLY
// of them at a time, and adds those counts to their rows every TALLY iterations and at the
// end of the batch (adding them once per iteration, every block to the same row, cost a
// recorded Near-Far on PACE NE 0.4 ms, bench/NOTES.md).
enum { T_EDGES = 0, T_IMPROVED, T_KEPT, T_LOGGED, T_FIELDS };
// A near stamp not set yet (the host reads it as -1).
#define NEVER 0x7fffffff
enum { ROW_FIELDS = F_FIELDS + T_FIELDS };
#define TALLY 256

#define BUCKET_BINS 256
// What a search records (search_batch's REC): nothing; its stamps, frame rows and relax log;
// those and the sizes of the buckets ahead (Delta-stepping, bucketing). engine/_gpu.py REC_*.
#define REC_NONE 0
#define REC_FRAMES 1
#define REC_BUCKETS 2
// Bucketing's store: segments of width Delta from its smallest bucket on; the last one
// (SEGMENTS) holds every bucket beyond. engine/methods.py SEGMENTS.
#define SEGMENTS 256

// Cluster scope: blocks per cluster (a non-portable size, allowed by the launcher) and the
// shared-memory capacities of each block (the launcher may pass smaller ones, for tests).
#define CLUSTER 16
#define CLUSTER_THREADS 512
// Most threads of an asynchronous Near-Far block (one per multiprocessor): the host launches
// 512, or 1,024 for wide bands (engine/_gpu.py ASYNC_*).
#define ASYNC_THREADS 1024
#define QCAP 6144
#define FCAP 8192
#define SPILLED 0x80000000u
// Clusters exist from compute capability 9.0; below it only the grid scope is compiled.
#define CLUSTERS (__CUDA_ARCH__ >= 900)

// An arc as the kernels read it, in one 16-byte load: its head, its weight, and the head's
// (light) arc range, so that the relaxation that improves the head has everything the head's
// frontier entry needs.
struct __align__(16) Arc {
    int head;
    unsigned weight;
    int start;
    int end;
};

// A frontier entry: a node and its (light) arc range, so that the advance reads the node's
// distance and its arcs at the same time.
struct Entry {
    int v;
    int start;
    int end;
};

// An entry on an asynchronous ring (one 16-byte store): also the node whose relaxation made
// it, -1 for a compaction's. The arc back to that parent is never relaxed (relax_entry).
struct __align__(16) RingEntry {
    Entry e;
    int parent;
};

// Dynamic shared memory of a block at cluster scope.
struct ClusterShared {
    u64 sizes_in[2];           // mbarriers that count the part sizes arriving in pub, one
                               // per parity of the exchange round
    Entry q[2][QCAP];          // this block's part of the frontier, by parity of iteration
    int far[FCAP];             // far-pile appends staged here, flushed in bulk
    unsigned pub[2][CLUSTER];  // each block's part size, sent to every block (SPILLED:
                               // some entries went to the global frontier)
    unsigned qn[2];            // appends to q (may exceed the capacity)
    unsigned fn;               // appends to far (may exceed the capacity)
};

// Dynamic shared memory of a block of the asynchronous Near-Far (search_async). Tickets
// count up for the whole launch; ticket t lives in slot t % capacity (a power of two).
#define RCAP 8192
struct AsyncShared {
    RingEntry ring[RCAP];  // near entries waiting to be relaxed
    unsigned seq[RCAP];    // 2t: the slot is free for ticket t; 2t + 1: it holds ticket t
    int far[FCAP];         // far-pile appends staged here, flushed at each phase end
    unsigned head;         // tickets taken by the block's warps
    unsigned tail;         // tickets reserved by producers
    unsigned done;         // tickets whose entry has been relaxed
    unsigned fn;           // appends to far (may exceed the capacity)
    u64 sub_hi;            // the ring takes near entries below it; the rest are held back
    u64 held_min;          // the least distance an entry of the current held list was held at
    unsigned held_n;       // entries held back in this block's current held list
    unsigned held_par;     // which of the blocks' two held lists is current (the same in all)
};

// Asynchronous Near-Far: the most blocks of a launch (one a multiprocessor).
#define ASYNC_MAX_BLOCKS 1024

template <typename D>
struct Search {
    const long long* indptr;
    const long long* light_end;  // == indptr + 1 when every arc is light
    const Arc* arcs;
    D* dist;
    Entry* front[2];
    int* pile[2];
    long long pile_cap;
    int* band;
    int* mark;
    int* store;        // bucketing: far nodes sorted by bucket, or null for the other methods
    long long* seg;    // bucketing: SEGMENTS + 2 segment offsets, then SEGMENTS + 1 counters
    int* reached_at;   // recording stamps, or null
    int* near_at;      // band membership (and recording stamp), or null
    int* relax_log;    // recording: the node of each near entry relaxed, or null
    long long log_cap; // capacity of relax_log
    u64* ctl;
    long long* frames;    // batch x ROW_FIELDS, or null
    long long* buckets;   // batch x BUCKET_BINS, or null
    long long n;
    D delta_low, delta_high;  // the Delta rule's bounds (equal: a fixed Delta)
    long long phase_cost;     // the rule's cost of a phase end, in near entries
    long long target;     // -1 for none
    int light_heavy;
    int lanes_log2;       // each frontier node's arcs are shared by 2^lanes_log2 threads
    ClusterShared* sh;    // cluster scope only
    AsyncShared* ring;    // asynchronous Near-Far only
    unsigned rank;        // block rank in the cluster
    unsigned qcap, fcap;  // shared-memory capacities in use
    RingEntry* held = nullptr;  // asynchronous: two held lists of held_cap entries a block,
                                // then the blocks' board (held_board)
    long long held_cap = 0;
    D sub_width = 0;            // asynchronous: a sub-band's width (0: the whole band)
};

// Where an iteration's appends go: the next frontier (shared-memory queue of parity np at
// cluster scope, then the global list) and the current far pile.
struct Out {
    int np;
    u64* next_count;
    Entry* next;
    u64* pile_count;
    int* pile;
};

__device__ __forceinline__ u64 vload(const u64* p) { return *(volatile const u64*)p; }

// *p read by one thread of the block and shared with the others. Calls are separated by a
// barrier of the scope, so no thread still reads the previous value.
__device__ __forceinline__ long long block_load(const u64* p) {
    __shared__ long long value;
    if (threadIdx.x == 0) value = (long long)vload(p);
    __syncthreads();
    return value;
}

// Size of block r's shared-memory part of frontier p, as published (without SPILLED).
__device__ __forceinline__ long long part_size(const ClusterShared* sh, int p, unsigned r) {
    return sh->pub[p][r] & ~SPILLED;
}

template <typename D>
__device__ __forceinline__ D inf_of() { return (D)~(D)0; }

// A threshold as the int64 frame table stores it: one at or beyond 2^63 - 1 (Bellman-Ford's
// infinity in 64 bits, a Delta of 2^63 or more) is stored as 2^63 - 1, "unreachable", as the
// NumPy twin does (recording.frame_threshold).
template <typename D>
__device__ __forceinline__ long long frame_threshold(D x) {
    constexpr unsigned long long top = 0x7fffffffffffffffull;
    return (unsigned long long)x > top ? (long long)top : (long long)x;
}

#if CLUSTERS
__device__ __forceinline__ unsigned shared_address(const void* p) {
    return (unsigned)__cvta_generic_to_shared(p);
}

// The address of `*p` in block `rank`'s shared memory (the same offset).
__device__ __forceinline__ unsigned remote_address(const void* p, unsigned rank) {
    unsigned to;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(to) : "r"(shared_address(p)),
                 "r"(rank));
    return to;
}

// An mbarrier that completes a phase on one arrival and the bytes it was told to expect.
__device__ __forceinline__ void init_bar(u64* bar) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(bar)) : "memory");
}

// Store `value` at `*p` in block `rank`'s shared memory, counted by that block's mbarrier
// `bar` once the bytes have landed: the sender needs no fence.
__device__ __forceinline__ void send(unsigned* p, unsigned value, u64* bar, unsigned rank) {
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, [%2];"
                 :: "r"(remote_address(p, rank)), "r"(value), "r"(remote_address(bar, rank))
                 : "memory");
}

// This round's expected bytes on the mbarrier `bar` (one arrival per phase).
__device__ __forceinline__ void expect_bytes(u64* bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 :: "r"(shared_address(bar)), "r"(bytes) : "memory");
}

// Wait until phase `parity` of the mbarrier `bar` has completed.
__device__ __forceinline__ void wait_phase(u64* bar, unsigned parity) {
    asm volatile(
        "{\n\t.reg .pred done;\n\t"
        "WAIT:\n\t"
        "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%0], %1;\n\t"
        "@!done bra WAIT;\n\t}"
        :: "r"(shared_address(bar)), "r"(parity) : "memory");
}

// The barrier that ends an exchange at cluster scope. The other blocks read this block's
// shared-memory appends after it, so its release fence covers this block's shared memory
// only (MEMBAR.CTA) instead of cg's GPU-scope fence (MEMBAR.GPU). The part sizes travel by
// `send`; the global writes of an iteration (spills, far-pile flushes, count resets) are
// fenced where they are made, and each improved distance was performed at L2 by the
// atomicMin whose result decided its append.
__device__ __forceinline__ void cluster_barrier() {
#if __CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 8)
    asm volatile("fence.release.sync_restrict::shared::cta.cluster;" ::: "memory");
#else
    asm volatile("fence.acq_rel.cluster;" ::: "memory");  // no restricted fence before PTX 8.6
#endif
    asm volatile(
        "barrier.cluster.arrive.relaxed.aligned;\n\t"
        "barrier.cluster.wait.aligned;" ::: "memory");
}
#endif

template <bool CL>
__device__ __forceinline__ void scope_sync() {
#if CLUSTERS
    if constexpr (CL) {
        cg::this_cluster().sync();
        return;
    }
#endif
    cg::this_grid().sync();
}

__device__ __forceinline__ void warp_add(u64* slot, u64 value) {
    // One atomic per warp with work instead of one per thread.
    unsigned active = __activemask();
    unsigned lo = (unsigned)value;
    unsigned sum = __reduce_add_sync(active, lo);
    if (((threadIdx.x & 31) == (unsigned)(__ffs(active) - 1)) && sum) atomicAdd(slot, (u64)sum);
}

// A thread's improving relaxations: all of them, and those of a node that was near already
// (re-improvements: the adaptive Delta rule's waste); when recording, also the far nodes a
// phase end's compaction kept (they begin the next pile) and relax-log entries.
struct Gains {
    unsigned all = 0, again = 0, kept = 0, logged = 0;
    // Recording Delta-stepping and bucketing: the block's moves between the buckets ahead in
    // this iteration (shared memory; null otherwise), and the Delta and first bucket of the
    // band they are counted from (move_bins).
    int* bins = nullptr;
    unsigned long long bin_delta = 1, bin_lo = 0;
};

// Move this thread's arc counters into the control block (once per batch; a recorded batch
// tallies them per iteration instead).
__device__ __forceinline__ void add_counters(u64* ctl, unsigned& edges, Gains& improved) {
    warp_add(&ctl[C_EDGES], edges);
    warp_add(&ctl[C_IMPROVED], improved.all);
    edges = improved.all = 0;
}

// Move this thread's re-improvements into the control block: at kernel ends, and at phase
// ends where the Delta rule or a frame row reads them. Not per iteration, nor per phase of a
// fixed, unrecorded Delta: every warp's atomic on one address at each phase end cost
// Near-Far 6 % on PACE NE (bench/NOTES.md).
__device__ __forceinline__ void add_again(u64* ctl, Gains& improved) {
    warp_add(&ctl[C_AGAIN], improved.again);
    improved.again = 0;
}

// Recording: move this thread's counts into its block's count of the batch's iteration `b`
// (`counts`, TALLY iterations in shared memory), with an atomic per nonzero count. Summing a
// warp's counts first (__reduce_add_sync or shuffles) made every warp wait for its slowest
// lane: 1.6 ms of a recorded Near-Far on PACE NE (bench/NOTES.md).
__device__ __forceinline__ void tally(unsigned (*counts)[T_FIELDS], int b, unsigned& edges,
                                      Gains& g) {
    const unsigned mine[T_FIELDS] = {edges, g.all, g.kept, g.logged};
#pragma unroll
    for (int t = 0; t < T_FIELDS; ++t)
        if (mine[t]) atomicAdd(&counts[b % TALLY][t], mine[t]);
    edges = g.all = g.kept = g.logged = 0;
}

// Recording: add the block's counts of the batch's iterations [from, to) (at most TALLY) to
// their frame rows and zero them for the iterations TALLY later. Every thread of the block,
// once no warp counts into them any more (after a barrier).
__device__ __forceinline__ void add_tally(unsigned (*counts)[T_FIELDS], int from, int to,
                                          long long* frames) {
    for (int k = threadIdx.x; k < (to - from) * T_FIELDS; k += blockDim.x) {
        const int b = from + k / T_FIELDS, t = k % T_FIELDS;
        unsigned& count = counts[b % TALLY][t];
        if (count) atomicAdd((u64*)&frames[(long long)b * ROW_FIELDS + F_FIELDS + t], (u64)count);
        count = 0;
    }
}

// Recording Delta-stepping and bucketing: add a block's moves between buckets (`moves`, an
// iteration's) to the iteration's bucket row and to the sizes now (`now`), or drop them
// where `row` is null (a phase end counted the sizes whole), and zero them. Every thread of
// the block, after a barrier.
__device__ __forceinline__ void add_bins(int* moves, long long* row, long long* now) {
    for (int k = threadIdx.x; k < BUCKET_BINS; k += blockDim.x) {
        const int m = moves[k];
        if (m == 0) continue;
        if (row) {
            atomicAdd((u64*)&row[k], (u64)(long long)m);
            atomicAdd((u64*)&now[k], (u64)(long long)m);
        }
        moves[k] = 0;
    }
}

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
// barrier after every recorded iteration (bench/NOTES.md).
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
        // every append (measured, bench/NOTES.md). Duplicates read the same dist[v] and
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

#define KERNEL_PARAMS                                                                        \
    const long long *indptr, const long long *light_end, const Arc *arcs, D *dist,           \
        Entry *front0, Entry *front1, int *pile0, int *pile1, long long pile_cap, int *band, \
        int *mark, int *store, long long *seg, int *reached_at, int *near_at,                \
        int *relax_log, long long log_cap, u64 *ctl,                                         \
        long long *frames, long long *buckets, int *ends, long long n, D delta_low,          \
        D delta_high, long long phase_cost, long long target,                                \
        int light_heavy, int lanes_log2, int batch, long long leave_below,                   \
        long long leave_above, int qcap, int fcap
#define KERNEL_ARGS                                                                          \
    indptr, light_end, arcs, dist, front0, front1, pile0, pile1, pile_cap, band, mark,       \
        store, seg, reached_at, near_at, relax_log, log_cap, ctl, frames,                    \
        buckets, ends, n, delta_low, delta_high, phase_cost, target,                         \
        light_heavy, lanes_log2, batch, leave_below, leave_above, qcap, fcap

// Up to `batch` iterations, ending early once the frontier size is below `leave_below` or
// above `leave_above`. Every thread keeps the iteration state (iteration, buffers,
// thresholds) in registers and derives it identically, so a normal iteration is an advance
// and one barrier; a phase end adds the barriers of its passes. The control block is written
// back once, at the end of the batch. REC: what the search records (REC_*); the paths of
// what it does not record are compiled out, which shortens every iteration's instruction
// path.
template <typename D, bool CL, int REC, bool BK>
__device__ void search_batch(KERNEL_PARAMS) {
    extern __shared__ unsigned char dynamic_shared[];
    constexpr bool recording = REC != REC_NONE;
    constexpr bool binned = REC == REC_BUCKETS;
    Search<D> s{indptr, light_end, arcs, dist, {front0, front1}, {pile0, pile1}, pile_cap,
                band, mark, BK ? store : nullptr, BK ? seg : nullptr,
                recording ? reached_at : nullptr, near_at,
                recording ? relax_log : nullptr, log_cap,
                ctl, recording ? frames : nullptr, binned ? buckets : nullptr,
                n, delta_low, delta_high, phase_cost, target, light_heavy, lanes_log2,
                reinterpret_cast<ClusterShared*>(dynamic_shared), nullptr, 0,
                (unsigned)min(qcap, QCAP), (unsigned)min(fcap, FCAP)};
    // At cluster scope the grid is one cluster, so grid ranks are cluster ranks.
    cg::grid_group grid = cg::this_grid();
    const long long tid = grid.thread_rank();
    const long long nthreads = grid.size();
    s.rank = blockIdx.x;
    const D INF = inf_of<D>();

    if (vload(&ctl[C_DONE])) return;
    int it = (int)vload(&ctl[C_ITER]);
    const int first_it = it;
    int fpar = (int)vload(&ctl[C_FPAR]);
    int ppar = (int)vload(&ctl[C_PPAR]);
    D lo = (D)vload(&ctl[C_LO]);
    D hi = (D)vload(&ctl[C_HI]);
    D delta = (D)vload(&ctl[C_DELTA]);
    long long entries = (long long)vload(&ctl[C_ENTRIES]);  // of this phase
    long long again_mark = (long long)vload(&ctl[C_AGAIN_MARK]);
    const bool adapts = s.delta_low != s.delta_high;
    int cursor = (int)vload(&ctl[C_SCURSOR]);  // bucketing's store
    D base = (D)vload(&ctl[C_SBASE]);
    // The frontier starts in global memory, whichever scope made it.
    long long global = (long long)vload(&ctl[C_CNT0 + it % 3]);
    long long count = global;
    if constexpr (CL) {
        for (unsigned k = threadIdx.x; k < 2 * CLUSTER; k += blockDim.x)
            (&s.sh->pub[0][0])[k] = 0;
        if (threadIdx.x == 0) {
            s.sh->qn[0] = s.sh->qn[1] = s.sh->fn = 0;
#if CLUSTERS
            init_bar(&s.sh->sizes_in[0]);
            init_bar(&s.sh->sizes_in[1]);
            asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
        }
        scope_sync<CL>();  // before any block sends to this one
    }
    int done = 0;
    unsigned edges = 0;  // this thread's, moved by add_counters (or tally)
    Gains improved;
    Rounds rounds;
    // Recording: the block's counts of the last TALLY iterations, the batch's last iteration,
    // and the relax-log slots used (this iteration's entries take the next ones).
    __shared__ unsigned counts[recording ? TALLY : 1][T_FIELDS];
    // Delta-stepping and bucketing: the moves between buckets of the last two iterations
    // (add_bins), and whether the last iteration ended a phase (which counts the sizes
    // whole). Each bucket row is the change of the sizes in its iteration; the two rows
    // after the batch's hold the sizes now and a phase end's count.
    __shared__ int bins[binned ? 2 : 1][binned ? BUCKET_BINS : 1];
    bool ended = false;
    long long* const sizes_now = binned ? s.buckets + (long long)batch * BUCKET_BINS : nullptr;
    long long* const counted = binned ? sizes_now + BUCKET_BINS : nullptr;
    int last = 0;
    long long log_pos = 0;
    // Thread 0's copies of what it writes to the control block and a row reads, so that
    // writing a row costs no load.
    long long phase = 0, last_entries = 0, last_waste = 0;
    if (tid == 0) phase = (long long)vload(&ctl[C_PHASE]);
    if (recording) {
        for (int k = threadIdx.x; k < TALLY * T_FIELDS; k += blockDim.x) (&counts[0][0])[k] = 0;
        if (binned)
            for (int k = threadIdx.x; k < 2 * BUCKET_BINS; k += blockDim.x) (&bins[0][0])[k] = 0;
        __syncthreads();
        log_pos = (long long)vload(&ctl[C_LOGPOS]);
        if (tid == 0) {
            last_entries = (long long)vload(&ctl[C_LENTRIES]);
            last_waste = (long long)vload(&ctl[C_LWASTE]);
        }
    }

    for (int b = 0; b < batch && !done; ++b) {
        ++it;
        if (recording && b > 0 && b % TALLY == 0) {  // no warp counts into them yet
            add_tally(counts, b - TALLY, b, s.frames);
            __syncthreads();
        }
        if constexpr (binned) {
            // The last iteration's moves (its barrier is behind us) go to its row; this
            // iteration's go to the other half, counted from this band.
            if (b > 0)
                add_bins(bins[(b - 1) & 1],
                         ended ? nullptr : s.buckets + (long long)(b - 1) * BUCKET_BINS,
                         sizes_now);
            improved.bins = bins[b & 1];
            improved.bin_delta = delta;
            improved.bin_lo = lo / delta;
        }
        ended = false;
        const long long relaxed = count;
        entries += relaxed;
        Out o{fpar ^ 1, &ctl[C_CNT0 + it % 3], s.front[fpar ^ 1], &ctl[C_PILE0 + ppar],
              s.pile[ppar]};
        // +1: compaction dedup; +2: bucket histogram dedup; +3: bucketing's sort dedup
        const int epoch = 4 * it;
        // Slot (it + 1) % 3 was last read as a frontier size by iteration it - 2, before the
        // barrier that ended iteration it - 1; zero it for iteration it + 1's appends. At
        // cluster scope it is nonzero only after a spill.
        const int next_slot = (it + 1) % 3;
        if (!CL || (rounds.dirty >> next_slot & 1)) {
            if (tid == 0) {
                ctl[C_CNT0 + next_slot] = 0;
                if (CL) __threadfence();  // read after the next cluster_barrier
            }
            rounds.dirty &= ~(1u << next_slot);
        }
        // Far appends are staged until half the stage is full.
        const unsigned min_fill = s.fcap / 2;

        advance<D, CL>(s, fpar, s.front[fpar], count, hi, it, o, tid, nthreads, edges,
                       improved, log_pos);
        log_pos += relaxed;
        if (recording) tally(counts, b, edges, improved);
        count = exchange<D, CL>(s, o, fpar, global, min_fill, rounds);

        long long band_lo = 0, band_hi = 0;
        if (count == 0) {  // near is empty: the phase ends
            ended = true;
            band_lo = (long long)vload(&ctl[C_BSTART]);
            band_hi = (long long)vload(&ctl[C_BAND]);
            if (s.light_heavy)
                advance_heavy<D, CL>(s, s.band + band_lo, band_hi - band_lo, hi, it, o, tid,
                                     nthreads, edges, improved);
            if (recording || adapts) add_again(ctl, improved);  // read after the barrier
            if constexpr (CL) flush_far(s, o, s.sh->far, &s.sh->fn, 1);
            if (s.light_heavy || CL || BK) scope_sync<CL>();
            Pile pile = far_pile(s, ppar);
            // Bucketing reads the next Delta before the pass (it sorts when Delta changes);
            // its C_AGAIN is complete after the barrier above.
            D next = BK ? next_delta(s, delta, (long long)vload(&ctl[C_AGAIN]) - again_mark)
                        : delta;
            int segment = SEGMENTS;
            bool sort = false;
            if constexpr (BK) {  // engine/_cpu.py next_bucket says when the store is sorted
                segment = next_segment(s.seg, cursor);
                const long long left = __ldcg(&s.seg[SEGMENTS + 1]) - __ldcg(&s.seg[segment]);
                sort = segment == SEGMENTS || pile.m > left || next != delta;
                if (sort) far_min(s, store_from(s, cursor), hi, tid, nthreads);
            }
            far_min(s, pile, hi, tid, nthreads);
            scope_sync<CL>();
            const long long again = (long long)vload(&ctl[C_AGAIN]);
            if (tid == 0) {
                last_entries = entries;
                last_waste = again - again_mark;
                ctl[C_LENTRIES] = (u64)last_entries;
                ctl[C_LWASTE] = (u64)last_waste;
            }
            if constexpr (!BK) next = next_delta(s, delta, again - again_mark);
            entries = 0;
            again_mark = again;
            D pmin = far_smallest(s);
            if (BK && sort && pmin != INF && !target_settled(s, hi)) {
                base = pmin / next;
                bucket_sort<D, CL>(s, pile, cursor, ppar, hi, next, base, epoch + 3, tid,
                                   nthreads);
                pile.m = 0;
                segment = cursor = 0;
            }
            // The store's next segment holds the smallest far distance but for the pile's.
            const bool stored = BK && segment < SEGMENTS && !(sort && pmin == INF);
            const D stored_lo = (D)(base + segment) * next;  // that segment's first distance
            if (stored && stored_lo < pmin) pmin = stored_lo;
            D new_lo, new_hi;
            done = next_band(s, hi, next, pmin, new_lo, new_hi);
            if (!done) {
                delta = next;
                // Recorded Delta-stepping counts the pile it keeps (see below).
                compact<D, CL>(s, o, pile, ppar, hi, new_hi, epoch + 1, it, tid, nthreads,
                               improved, binned && !BK ? counted : nullptr,
                               (long long)(new_lo / next), next);
                if (stored && stored_lo < new_hi) {  // it is this band's
                    compact<D, CL>(s, o, store_from(s, segment, segment + 1), ppar, hi,
                                   new_hi, epoch + 1, it, tid, nthreads, improved);
                    cursor = segment + 1;
                }
                if (recording) tally(counts, b, edges, improved);
                count = exchange<D, CL>(s, o, fpar, global, min_fill, rounds);
                // Only thread 0 writes these, and nothing reads them before the next phase
                // end, which is at least one barrier away.
                if (tid == 0) {
                    ctl[C_PILE0 + ppar] = 0;
                    ctl[C_PMIN] = (u64)INF;
                    ctl[C_PHASE] = (u64)++phase;
                    ctl[C_COMPACT] += 1;
                }
                ppar ^= 1;
                lo = new_lo;
                hi = new_hi;
            }
            if (tid == 0) {
                if (pile.scan) ctl[C_REBUILDS] += 1;
                ctl[C_BSTART] = band_hi;
                // Recording: the iteration that ended each phase, for the settled stamps
                // (stamp_node); the phase counter went up unless this end was the last.
                if (recording) ends[done ? phase - 1 : phase - 2] = it;
            }
        }
        fpar ^= 1;

        if (recording) {
            // The row's own numbers; the blocks add the counts after them (add_tally).
            long long* row = s.frames + (long long)b * ROW_FIELDS;
            last = b;
            if (tid == 0) {
                row[F_ITER] = it;
                row[F_PHASE] = phase;
                row[F_LO] = frame_threshold(done ? hi : lo);
                row[F_HI] = frame_threshold(hi);
                row[F_FRONTIER] = relaxed;
                row[F_PILE] = BK && done != 1 ? store_from(s, cursor).m : 0;  // + the pile's
                row[F_DELTA] = frame_threshold(delta);
                row[F_LENTRIES] = last_entries;
                row[F_LWASTE] = last_waste;
            }
            if (binned && ended) {
                // Delta-stepping and bucketing: a phase end counts the size of each bucket
                // ahead (the band's, bin 0, is added by the host; none is left once nothing
                // is); the iterations after it add their moves. Delta-stepping's compaction
                // counted the pile it kept, and the exchange's barrier is behind it. Else the
                // pile and bucketing's store are read whole, so the next iteration's appends
                // wait for a barrier. A settled target ends the search with the band at hi
                // (as F_LO), its pile not compacted.
                if (done == 2 || (BK && done == 0)) {
                    const D from = done ? hi : lo;
                    count_buckets(s, counted, far_pile(s, ppar), from, hi, delta, epoch + 2,
                                  tid, nthreads);
                    if constexpr (BK)
                        count_buckets(s, counted, store_from(s, cursor), from, hi, delta,
                                      epoch + 2, tid, nthreads);
                    scope_sync<CL>();
                }
                if (tid < BUCKET_BINS) {  // the next phase end is barriers away
                    const long long whole = __ldcg(&counted[tid]);
                    s.buckets[(long long)b * BUCKET_BINS + tid] = whole - __ldcg(&sizes_now[tid]);
                    sizes_now[tid] = whole;
                    counted[tid] = 0;
                }
            }
            // The relax log must hold the next frontier: if not, end the batch here (every
            // thread knows both numbers) and the host makes room.
            if (s.relax_log && log_pos + count > s.log_cap) break;
        }
        if (count < leave_below || count > leave_above) break;
    }

    if (recording) {
        tally(counts, last, edges, improved);  // a finishing phase end's passes
        __syncthreads();
        add_tally(counts, last / TALLY * TALLY, last + 1, s.frames);
        if (binned)
            add_bins(bins[last & 1], ended ? nullptr : s.buckets + (long long)last * BUCKET_BINS,
                     sizes_now);
        if (tid == 0) ctl[C_LOGPOS] = (u64)log_pos;
    } else {
        add_counters(ctl, edges, improved);
    }
    add_again(ctl, improved);
    if constexpr (CL)
        if (!done) {
            Out o{fpar, &ctl[C_CNT0 + it % 3], s.front[fpar], &ctl[C_PILE0 + ppar],
                  s.pile[ppar]};
            spill_all(s, o, global);
        }
    if (tid == 0) {
        ctl[C_ITER] = it;
        if (recording) ctl[C_RFROM] = (u64)first_it;  // the batch's rows: it - first_it
        ctl[C_FPAR] = fpar;
        ctl[C_PPAR] = ppar;
        ctl[C_LO] = done ? hi : lo;
        ctl[C_HI] = hi;
        ctl[C_DELTA] = delta;
        ctl[C_SCURSOR] = (u64)cursor;
        ctl[C_SBASE] = (u64)base;
        ctl[C_ENTRIES] = (u64)entries;
        ctl[C_AGAIN_MARK] = (u64)again_mark;
        ctl[C_DONE] = done;
        if (done == 1) ctl[C_PILE0 + ppar] = 0;
    }
}

#if CLUSTERS
// Asynchronous Near-Far: relax the entries of this block's ring until it is drained, with
// no barrier. A warp takes up to 32 >> lanes_log2 tickets at a time with one atomicAdd on the
// head and its lanes share each entry's arcs as in the advance; improved nodes below hi go
// back on the same ring. Warps racing for the last entries may take tickets beyond the tail:
// a group holds its ticket until the entry is stored while the warp relaxes the others
// (taking entries by a compare-and-swap loop on the head, retried after every lost race, was
// 28 % of a warp's time; bench/NOTES.md). Only the block's own warps push to its ring, so
// once every reserved ticket is relaxed (done == tail) nothing can refill it: the block is
// done with the phase, tickets still held are dropped, and the next phase takes from the
// tail on (ring_reset).
template <typename D>
__device__ void drain(const Search<D>& s, D hi, const Out& o, unsigned& edges,
                      Gains& improved, unsigned& taken) {
    AsyncShared* r = s.ring;
    const unsigned lane = threadIdx.x & 31, lanes = 1u << s.lanes_log2, groups = 32u / lanes;
    const unsigned group = lane / lanes, sub = lane % lanes, leader = group * lanes;
    const unsigned group_mask = ((2u << (lanes - 1)) - 1) << leader;
    bool holding = false;  // the lane's group holds `ticket` (the same in all its lanes)
    unsigned ticket = 0;
    while (true) {
        if (!__any_sync(0xffffffffu, holding)) {
            unsigned first = 0, k = 0;
            if (lane == 0) {
                const unsigned waiting = vload32(&r->tail) - vload32(&r->head);
                if ((int)waiting > 0) {
                    k = min(waiting, groups);
                    first = atomicAdd(&r->head, k);
                }
            }
            k = __shfl_sync(0xffffffffu, k, 0);
            first = __shfl_sync(0xffffffffu, first, 0);
            holding = group < k;
            ticket = first + group;
        }
        const unsigned slot = ticket & (s.qcap - 1);
        unsigned ready = 0;
        if (holding && sub == 0) ready = vload32(&r->seq[slot]) == 2 * ticket + 1;
        ready = __shfl_sync(0xffffffffu, ready, leader);
        const unsigned relaxed = __popc(__ballot_sync(0xffffffffu, ready)) / lanes;
        if (ready) {
            __threadfence_block();  // the entry after its ticket
            const RingEntry e = r->ring[slot];
            __syncwarp(group_mask);  // every lane of the group has read e
            if (sub == 0) {
                __threadfence_block();  // read before the slot is given back
                *(volatile unsigned*)&r->seq[slot] = 2 * (ticket + s.qcap);
            }
            holding = false;
            relax_entry<D, true, true>(s, e.e, (int)sub, hi, 0, o, edges, improved, -1,
                                       e.parent);
        }
        __syncwarp();
        if (relaxed) {
            __threadfence_block();  // this warp's pushes before its entries count as done
            if (lane == 0) {
                atomicAdd(&r->done, relaxed);
                taken += relaxed;
            }
            continue;
        }
        unsigned idle = 0;
        if (lane == 0) {
            const unsigned finished = vload32(&r->done);
            __threadfence_block();  // done before tail: a push counts before its parent
            idle = finished == vload32(&r->tail);
        }
        if (__shfl_sync(0xffffffffu, idle, 0)) return;
    }
}

// Asynchronous Near-Far, after every warp of the block has left drain: tickets taken beyond
// the tail were never stored, and their slots still wait for those tickets, so the next
// phase takes from the tail on.
__device__ __forceinline__ void ring_reset(AsyncShared* r) {
    __syncthreads();
    if (threadIdx.x == 0) r->head = r->tail;
}

// The end of a sub-band that starts at lo in the band [lo, hi): lo + width, or hi.
template <typename D>
__device__ __forceinline__ D sub_band_end(D lo, D hi, D width) {
    return width == 0 || hi - lo <= width ? hi : (D)(lo + width);
}

// Asynchronous Near-Far, after drain and ring_reset, before the grid barrier that ends step
// `step`: publish this block's held count and reduce its least held distance.
template <typename D>
__device__ void publish_held(const Search<D>& s, unsigned step) {
    AsyncShared* r = s.ring;
    const HeldBoard board = held_board(s);
    __syncthreads();  // every warp left drain: the held count is final
    if (threadIdx.x == 0) {
        const unsigned count = min(r->held_n, (unsigned)s.held_cap);
        board.counts[(step & 1) * gridDim.x + blockIdx.x] = count;
        if (count) {
            atomicMin(&board.least[step % 3], r->held_min);
            atomicAdd(&s.ctl[C_HELD], (u64)count);
        }
    }
}

// Asynchronous Near-Far, after the grid barrier of step `step`, given the least held distance
// that the blocks reduced: false (for every thread of every block) when no block holds an
// entry back (`least` is infinite), and the band is done. Else the next sub-band ends at the
// least held distance + the width (the band's end at most), and the blocks deal all held
// entries among themselves (entry t of the lists laid end to end goes to block t % blocks):
// those below that end go onto the block's drained ring, as many as it surely takes, and the
// rest to its other held list. Dealing balances the blocks: each keeping its own held
// entries, a band of 16 x Davidson's Delta waited on the busiest, and the in-step version
// without dealing was slower still (bench/NOTES.md). A ring too small for a block's ticket
// reserve (tests) sends them to the global list instead, and the search hands over at the
// phase end.
template <typename D>
__device__ bool deal_held(const Search<D>& s, const Out& o, D hi, unsigned step, D least) {
    AsyncShared* r = s.ring;
    const HeldBoard board = held_board(s);
    __shared__ unsigned first[ASYNC_MAX_BLOCKS + 1];  // where each block's list starts
    __shared__ unsigned taken;
    // Read after the barrier before last; written after the next one.
    if (blockIdx.x == 0 && threadIdx.x == 0) board.least[(step + 2) % 3] = (u64)inf_of<D>();
    if (least == inf_of<D>()) return false;
    const unsigned blocks = gridDim.x, par = r->held_par;
    const unsigned* counts = board.counts + (step & 1) * blocks;
    if (threadIdx.x < 32) {  // an inclusive scan of the counts, 32 at a time
        unsigned carry = 0;
        for (unsigned base = 0; base < blocks; base += 32) {
            const unsigned k = base + threadIdx.x;
            unsigned x = k < blocks ? __ldcg(&counts[k]) : 0;
            for (unsigned d = 1; d < 32; d *= 2) {
                const unsigned y = __shfl_up_sync(0xffffffffu, x, d);
                if (threadIdx.x >= d) x += y;
            }
            if (k < blocks) first[k + 1] = carry + x;
            carry += __shfl_sync(0xffffffffu, x, 31);
        }
    }
    const D end = sub_band_end(least, hi, s.sub_width);
    __syncthreads();  // every thread has read the parity before it changes
    if (threadIdx.x == 0) {
        first[0] = 0;
        taken = 0;
        r->sub_hi = (u64)end;
        r->held_min = (u64)inf_of<D>();
        r->held_n = 0;
        r->held_par = par ^ 1;
    }
    __syncthreads();
    const unsigned total = first[blocks];
    const int quota = (int)s.qcap - (int)blockDim.x;
    for (unsigned t = blockIdx.x + blocks * threadIdx.x; t < total; t += blocks * blockDim.x) {
        unsigned lo = 0, span = blocks;  // the list holding t: first[lo] <= t < first[lo + 1]
        while (span > 1) {
            const unsigned half = span / 2;
            if (first[lo + half] <= t) lo += half;
            span -= half;
        }
        // Another block wrote it: read past this multiprocessor's L1.
        const RingEntry* at = held_list(s, lo, par) + (t - first[lo]);
        const int4 raw = __ldcg(reinterpret_cast<const int4*>(at));
        const RingEntry e{Entry{raw.x, raw.y, raw.z}, raw.w};
        const D d = __ldcg(&s.dist[e.e.v]);
        if (d < end && quota > 0 && (int)atomicAdd(&taken, 1u) < quota) {
            ring_push(r, e, s.qcap);  // room for it: the ring was drained
        } else if (quota <= 0 || !hold(s, e, d)) {
            append(o.next_count, o.next, e.e);
            __threadfence();  // read after the next grid barrier
        }
    }
    __syncthreads();
    return true;
}

// Near-Far with asynchronous phases, on the whole GPU: one block per multiprocessor, each
// with its ring (no recording, every arc light). Each phase drains the blocks' rings
// (drain); a grid barrier then ends it with the far-pile passes of the synchronous kernel,
// whose near nodes are dealt over the blocks' rings. (On one cluster of 16 blocks, with its
// cheaper barrier, bands wider than the auto Delta were bound by 16 multiprocessors' work:
// NE at 4x the auto Delta 9.9 against 7.5 ms, bench/NOTES.md.) A band wider than
// `sub_width` is taken in sub-bands of that width, in step across the blocks: a node beyond
// the sub-band's end waits in its block's held list until every ring drains; a grid barrier
// then starts the next sub-band, whose entries are dealt over the blocks (deal_held). The
// last sub-band's barrier is the phase end's. The search starts from the global frontier
// that the host (or a synchronous batch) left. An entry that finds its ring full waits in
// the held list too; when that is full, it goes to the global list, and the kernel then
// stops at the phase end and leaves the synchronous kernel's state (the list, which repeats
// entries already relaxed, the pile and the band), from which the host goes on in batches.
template <typename D>
__device__ void search_async(KERNEL_PARAMS, RingEntry* held, long long held_cap, D sub_width) {
    extern __shared__ unsigned char dynamic_shared[];
    AsyncShared* r = reinterpret_cast<AsyncShared*>(dynamic_shared);
    Search<D> s{indptr, light_end, arcs, dist, {front0, front1}, {pile0, pile1}, pile_cap,
                band, mark, nullptr, nullptr, nullptr, nullptr, nullptr, 0, ctl,
                nullptr, nullptr,
                n, delta_low, delta_high, phase_cost, target, 0, lanes_log2,
                nullptr, r, blockIdx.x,
                (unsigned)min(qcap, RCAP), (unsigned)min(fcap, FCAP),
                held, held_cap, sub_width};
    cg::grid_group grid = cg::this_grid();
    const long long tid = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    // Consecutive items go to different blocks, so that every block gets a share.
    const long long dealt = threadIdx.x * (long long)gridDim.x + blockIdx.x;

    if (vload(&ctl[C_DONE])) return;
    const int it = (int)vload(&ctl[C_ITER]);
    const int fpar = (int)vload(&ctl[C_FPAR]);
    int ppar = (int)vload(&ctl[C_PPAR]);
    D lo = (D)vload(&ctl[C_LO]);
    D hi = (D)vload(&ctl[C_HI]);
    D delta = (D)vload(&ctl[C_DELTA]);
    Out o{0, &ctl[C_CNT0 + it % 3], s.front[fpar], &ctl[C_PILE0 + ppar], s.pile[ppar]};
    const long long listed = (long long)vload(o.next_count);
    if (threadIdx.x == 0) {
        r->head = r->tail = r->done = r->fn = 0;
        r->held_n = r->held_par = 0;
        r->held_min = (u64)inf_of<D>();
        r->sub_hi = (u64)sub_band_end(lo, hi, sub_width);
        if (blockIdx.x == 0)
            for (int k = 0; k < 3; ++k) held_board(s).least[k] = (u64)inf_of<D>();
    }
    for (unsigned k = threadIdx.x; k < s.qcap; k += blockDim.x) r->seq[k] = 2 * k;
    // Every thread has read `listed` before any entry that finds its ring full is appended
    // to the same list: a block that read it later would deal those entries again, and
    // decide differently whether to hand over (a hang at the first grid barrier).
    grid.sync();
    for (long long k = dealt; k < listed; k += nthreads) {
        const Entry e = load_entry(&o.next[k]);
        push_near<D, true, true>(s, o, e, -1, __ldcg(&s.dist[e.v]));
    }
    __syncthreads();

    int done = 0;
    unsigned edges = 0, taken = 0;
    Gains improved;
    long long again_mark = (long long)vload(&ctl[C_AGAIN_MARK]);
    const bool adapts = s.delta_low != s.delta_high;
    unsigned step = 0;  // grid barriers that ended a sub-band
    for (int phase = 1;; ++phase) {
        long long listed_now;
        while (true) {  // the band's sub-bands
            drain(s, hi, o, edges, improved, taken);
            ring_reset(r);
            publish_held(s, step);
            if (adapts) add_again(ctl, improved);  // the rule reads C_AGAIN after the barrier
            flush_far(s, o, r->far, &r->fn, 1);
            grid.sync();
            // Every thread reads both at once (no block writes them before the next grid
            // barrier): the least read first, then the count, cost PACE NE at 1/4 x Davidson's
            // Delta 2 % (bench/NOTES.md).
            const D least = (D)vload(&held_board(s).least[step % 3]);
            listed_now = (long long)vload(o.next_count);
            if (!deal_held(s, o, hi, step++, least)) break;
        }
        if (listed_now > listed) break;  // a ring was full: hand over
        const long long again = (long long)vload(&ctl[C_AGAIN]);
        const Pile pile = far_pile(s, ppar);
        far_min(s, pile, hi, tid, nthreads);
        grid.sync();
        const D next = next_delta(s, delta, again - again_mark);
        D new_lo, new_hi;
        done = next_band(s, hi, next, far_smallest(s), new_lo, new_hi);
        again_mark = again;
        if (done) break;
        if (threadIdx.x == 0) r->sub_hi = (u64)sub_band_end(new_lo, new_hi, sub_width);
        __syncthreads();
        // Marks of the synchronous kernel's compactions are positive: these never match.
        compact<D, true, true>(s, o, pile, ppar, hi, new_hi, -phase, it, dealt, nthreads,
                               improved);
        grid.sync();  // every block has read C_PMIN and the pile's count
        if (tid == 0) {
            ctl[C_PILE0 + ppar] = 0;
            ctl[C_PMIN] = (u64)inf_of<D>();
            ctl[C_PHASE] += 1;
            ctl[C_COMPACT] += 1;
            if (pile.scan) ctl[C_REBUILDS] += 1;
        }
        ppar ^= 1;
        o.pile_count = &ctl[C_PILE0 + ppar];
        o.pile = s.pile[ppar];
        lo = new_lo;
        hi = new_hi;
        delta = next;
    }
    add_counters(ctl, edges, improved);
    add_again(ctl, improved);
    if ((threadIdx.x & 31) == 0 && taken) atomicAdd(&ctl[C_QUEUED], (u64)taken);
    if (tid == 0) {
        ctl[C_PPAR] = ppar;
        ctl[C_LO] = done ? hi : lo;
        ctl[C_HI] = hi;
        ctl[C_DELTA] = delta;
        ctl[C_AGAIN_MARK] = (u64)again_mark;
        ctl[C_DONE] = done;
        if (done == 1) ctl[C_PILE0 + ppar] = 0;
    }
}
#endif

// A search's starting state in one launch: every node unreached and unmarked but the source,
// which is the first frontier entry (and, when the band is listed, its first node; the
// stamp arrays that exist start at -1); and the control block, band [0, hi) of width
// `delta` in phase 1 (its copy from the host cost every search tens of us of a GPU
// machine's host: bench/NOTES.md).
template <typename D>
__global__ void search_init(D* dist, int* mark, long long n, long long source, Entry* front,
                            const long long* indptr, const long long* light_end, int* band,
                            int* near_at, int* reached_at, u64* ctl, D hi, D delta) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += stride) {
        const bool src = i == source;
        dist[i] = src ? (D)0 : inf_of<D>();
        mark[i] = 0;
        if (near_at) near_at[i] = src ? 0 : NEVER;
        if (reached_at) reached_at[i] = src ? 0 : -1;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        front[0] = Entry{(int)source, (int)indptr[source], (int)light_end[source]};
        if (band) band[0] = (int)source;
        for (int k = 0; k < C_SLOTS; ++k) ctl[k] = 0;
        ctl[C_CNT0] = 1;  // the source's entry
        ctl[C_PHASE] = 1;
        ctl[C_HI] = hi;
        ctl[C_DELTA] = delta;
        ctl[C_PMIN] = inf_of<D>();
        if (band) ctl[C_BAND] = 1;
        if (reached_at) ctl[C_RPHASE] = 1;  // recording: the rows start in phase 1
    }
}

// Recording, Delta-stepping and bucketing: a batch's bucket rows, each the change of the
// sizes of the buckets ahead in its iteration, become the sizes in `out`: running sums down
// the `rows` rows of a rows x BUCKET_BINS table from `sizes` (the sizes before the first
// row), which then get the sizes after the last row. The table's rows are zeroed for the
// next batch's changes.
// A block of 32 x SUM_RUNS threads sums the 32 columns from `col0`: each column has SUM_RUNS
// threads that sum one run of rows, the runs' sums are added up in shared memory, and each
// run is summed again from its start (one thread per column would wait on a column's loads
// one after another: 3,654 rows on PACE NE).
#define SUM_RUNS 32
__device__ void sum_bins(long long* table, long long rows, long long* sizes, long long* out,
                         int col0) {
    __shared__ long long runs[SUM_RUNS][32];
    const int col = col0 + threadIdx.x;
    const long long len = (rows + SUM_RUNS - 1) / SUM_RUNS;
    const long long first = threadIdx.y * len, end = min(first + len, rows);
    long long sum = sizes[col];  // read before the last run's thread writes it
    long long own = 0;
    for (long long r = first; r < end; ++r) own += table[r * BUCKET_BINS + col];
    runs[threadIdx.y][threadIdx.x] = own;
    __syncthreads();
    for (int k = 0; k < (int)threadIdx.y; ++k) sum += runs[k][threadIdx.x];
    for (long long r = first; r < end; ++r) {
        sum += table[r * BUCKET_BINS + col];
        table[r * BUCKET_BINS + col] = 0;
        out[r * BUCKET_BINS + col] = sum;
    }
    if (threadIdx.y == SUM_RUNS - 1) sizes[col] = sum;  // every run before it added
}

// Recording: finish the `rows` frame rows of the batch that just ran, all but the node
// counts (the host adds those from the stamps, engine/_gpu_rows.py): the running totals of
// the tallies, and the far pile's size. Each improving relaxation appends its node to the
// next frontier or to the far pile; after a phase end that goes on (it raises the phase
// counter; the search's last end does not) the pile is what the compaction kept. So
// pile[i] = kept[i] after such an end, else pile[i - 1] + improved[i] - frontier[i + 1]: a
// scan of the maps p -> a * p + b. One warp, 32 rows at a time; the rows go on from the
// control block's C_R* slots, and their tallies are zeroed for the next batch. (On a city's
// few hundred rows, NumPy's steps for this took a GPU machine's host 0.12 ms, most of what
// a recorded Delta-stepping search cost it more: bench/NOTES.md.)
__device__ void finish_rows(long long* frames, u64* ctl, long long pile_cap, long long rows) {
    const unsigned all = 0xffffffffu;
    const int lane = threadIdx.x;
    const long long iter = (long long)ctl[C_ITER];
    const long long next_frontier = (long long)ctl[C_CNT0 + iter % 3];
    const bool finished = ctl[C_DONE] == 1;  // nothing is far any more after the last row
    long long edges = (long long)ctl[C_REDGES], improved = (long long)ctl[C_RIMPROVED];
    long long logged = (long long)ctl[C_RLOGGED], pile = (long long)ctl[C_RPILE];
    long long phase = (long long)ctl[C_RPHASE];
    for (long long first = 0; first < rows; first += 32) {
        const long long i = first + lane;
        const bool valid = i < rows;
        long long* row = frames + i * ROW_FIELDS;
        long long* add = row + F_FIELDS;
        long long e = 0, g = 0, l = 0, a = 1, b = 0, kept = 0, ph = phase;
        if (valid) {
            e = add[T_EDGES];
            g = add[T_IMPROVED];
            l = add[T_LOGGED];
            kept = add[T_KEPT];
            ph = row[F_PHASE];
            for (int t = 0; t < T_FIELDS; ++t) add[t] = 0;  // for the next batch's counts
        }
        long long before = __shfl_up_sync(all, ph, 1);
        if (lane == 0) before = phase;
        if (valid) {
            if (ph > before) {  // a phase end that went on: the pile is what it kept
                a = 0;
                b = kept;
            } else {
                b = g - (i + 1 < rows ? row[ROW_FIELDS + F_FRONTIER] : next_frontier);
            }
        }
        for (int d = 1; d < 32; d *= 2) {  // inclusive scans: sums, and maps composed
            const long long e_up = __shfl_up_sync(all, e, d), g_up = __shfl_up_sync(all, g, d);
            const long long l_up = __shfl_up_sync(all, l, d), a_up = __shfl_up_sync(all, a, d);
            const long long b_up = __shfl_up_sync(all, b, d);
            if (lane >= d) {
                e += e_up;
                g += g_up;
                l += l_up;
                b += a * b_up;  // (a_up, b_up) first, then (a, b)
                a *= a_up;
            }
        }
        const long long here = a * pile + b;
        if (valid) {
            row[F_EDGES] = edges + e;
            row[F_IMPROVED] = improved + g;
            row[F_RELAXED] = logged + l;
            row[F_PILE] += min(here, pile_cap);  // after bucketing's store
            if (i == rows - 1 && finished) row[F_PILE] = 0;
        }
        const int last = (int)min(31LL, rows - 1 - first);
        edges += __shfl_sync(all, e, 31);
        improved += __shfl_sync(all, g, 31);
        logged += __shfl_sync(all, l, 31);
        pile = __shfl_sync(all, here, 31);
        phase = __shfl_sync(all, ph, last);
    }
    if (lane == 0) {
        ctl[C_REDGES] = (u64)edges;
        ctl[C_RIMPROVED] = (u64)improved;
        ctl[C_RLOGGED] = (u64)logged;
        ctl[C_RPILE] = (u64)pile;
        ctl[C_RPHASE] = (u64)phase;
    }
}

// Recording: everything after a batch that the host would otherwise wait on, in one launch
// queued behind the batch (so one copy brings the control block, the rows and the sizes
// back): block 0's first warp finishes the frame rows (finish_rows); with bucket rows
// (`table` not null), blocks 1 to BUCKET_BINS / 32 turn them into sizes (sum_bins). The
// batch's rows are those of the iterations since C_RFROM, both written by the search kernel.
// Launched as 1 (+ BUCKET_BINS / 32) blocks of 32 x SUM_RUNS threads.
extern "C" __global__ void finish_batch(long long* frames, u64* ctl, long long pile_cap,
                                        long long* table, long long* sizes, long long* out) {
    const long long rows = (long long)ctl[C_ITER] - (long long)ctl[C_RFROM];
    if (blockIdx.x > 0)
        sum_bins(table, rows, sizes, out, (blockIdx.x - 1) * 32);
    else if (threadIdx.y == 0)
        finish_rows(frames, ctl, pile_cap, rows);
}

// A recorded node's stamps, when the host takes them: its settled stamp is the first phase
// end after its near stamp (`ends`, ascending: the iterations that ended a phase, as the
// search wrote them). A phase end settles the band; the nodes its compaction brings in are
// stamped with it and settle at the next one. -1 for a node never near, or whose phase has
// not ended yet. The reached, near (-1 for never: the search may go on from `near_at`) and
// settled stamps go to the three rows of `stamps`; `counts` (three rows of `width`) counts
// the nodes that carry each iteration in each.
__device__ __forceinline__ void stamp_node(long long i, long long n, const int* reached_at,
                                           const int* near_at, const int* ends, int n_ends,
                                           int* stamps, long long* counts, int width) {
    const int near = near_at[i] == NEVER ? -1 : near_at[i];
    int first = 0, last = n_ends;  // the first end after `near` is in [first, last]
    while (first < last) {
        const int mid = (first + last) / 2;
        if (ends[mid] > near) last = mid;
        else first = mid + 1;
    }
    const int settled = near < 0 || first == n_ends ? -1 : ends[first];
    const int out[3] = {reached_at[i], near, settled};
#pragma unroll
    for (int k = 0; k < 3; ++k) {
        stamps[k * n + i] = out[k];
        if (out[k] >= 0) add_by_key(counts + (long long)k * width, (unsigned)out[k]);
    }
}

// A search's end, in one launch, written straight into the host's page-locked memory (no copy
// to queue): the distances as int64 into `out` (unless null), `unreachable` where no path
// reached the node; and when recording (`stamps` not null), the node stamps (stamp_node),
// the relax log's used slots into `slots`, and the stamps' counts by iteration into
// `taken`, three rows of the iterations done plus one, by the last block to finish
// (`counts`, zeroed by the host, has a slot after its three rows for the blocks that
// finished). With `if_done` it does nothing until the control block says the search
// finished: the host queues it behind each long batch, so that its steps after the last
// batch's wait are gone (a launch, a copy or a wait costs a GPU machine's host 5-20 us each:
// bench/NOTES.md).
template <typename D>
__global__ void finish_search(const D* dist, long long n, long long unreachable, long long* out,
                              const u64* ctl, int if_done, const int* reached_at,
                              const int* near_at, const int* ends, int* stamps,
                              long long* counts, int width, const int* relax_log, int* slots,
                              long long* taken) {
    if (if_done && !ctl[C_DONE]) return;
    // The phases ended so far; the last end does not raise the phase counter.
    const int n_ends = (int)ctl[C_PHASE] - 1 + (ctl[C_DONE] != 0);
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long first = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    for (long long i = first; i < n; i += stride) {
        if (out) out[i] = dist[i] == inf_of<D>() ? unreachable : (long long)dist[i];
        if (stamps) stamp_node(i, n, reached_at, near_at, ends, n_ends, stamps, counts, width);
    }
    if (!stamps) return;
    const long long used = (long long)ctl[C_LOGPOS];
    for (long long i = first; i < used; i += stride) slots[i] = relax_log[i];
    __shared__ bool last;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0)
        last = atomicAdd((u64*)(counts + 3LL * width), 1ull) == gridDim.x - 1ull;
    __syncthreads();
    if (!last) return;
    __threadfence();
    const long long w = (long long)ctl[C_ITER] + 1;
    for (long long i = threadIdx.x; i < 3 * w; i += blockDim.x)
        taken[i] = __ldcg(counts + i / w * width + i % w);
}

// Method near_far_core (engine/contraction.py): after the search of a contraction's search
// graph, each contracted node takes the least d(a) + w over its arcs down, in the order of
// `order` (last round contracted first), rounds `round_starts[r]..[r+1]` apart by a grid
// barrier. Queued like finish_search: with `if_done`, nothing until the control block says
// the search finished. A sum never wraps: CoreGraph.candidate_bound picks D for it.
template <typename D>
__global__ void sweep_down(D* dist, const int* order, const long long* round_starts,
                           int rounds, const long long* down_ptr, const int* down_tails,
                           const unsigned* down_weights, const u64* ctl, int if_done) {
    if (if_done && !vload(&ctl[C_DONE])) return;
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long first = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    for (int r = 0; r < rounds; ++r) {
        if (r) cg::this_grid().sync();
        for (long long i = round_starts[r] + first; i < round_starts[r + 1]; i += stride) {
            D best = inf_of<D>();
            for (long long k = down_ptr[i]; k < down_ptr[i + 1]; ++k) {
                const D d = __ldcg(&dist[down_tails[k]]);  // written in an earlier round
                if (d != inf_of<D>()) best = min(best, (D)(d + (D)down_weights[k]));
            }
            const int x = order[i];
            if (best < dist[x]) dist[x] = best;
        }
    }
}

// REC: what is recorded (REC_*); BK: bucketing (its store and sorts are compiled only into
// its kernels: in the others' they cost Near-Far 20 % on PACE NE, bench/NOTES.md).
template <typename D, int REC, bool BK>
__global__ void __launch_bounds__(256) frontier_grid(KERNEL_PARAMS) {
    search_batch<D, false, REC, BK>(KERNEL_ARGS);
}

#if CLUSTERS
template <typename D, int REC, bool BK>
__global__ void __launch_bounds__(CLUSTER_THREADS) __cluster_dims__(CLUSTER, 1, 1)
    frontier_cluster(KERNEL_PARAMS) {
    search_batch<D, true, REC, BK>(KERNEL_ARGS);
}

template <typename D>
__global__ void __launch_bounds__(ASYNC_THREADS)
    frontier_async(KERNEL_PARAMS, RingEntry* held, long long held_cap, D sub_width) {
    search_async<D>(KERNEL_ARGS, held, held_cap, sub_width);
}

extern "C" __global__ void __cluster_dims__(CLUSTER, 1, 1) cluster_sync_probe(int rounds) {
    cg::cluster_group cluster = cg::this_cluster();
    for (int r = 0; r < rounds; ++r) cluster.sync();
}
#endif

// The cost of grid-wide synchronisation alone: `rounds` grid.sync() calls (the floor of any
// iteration of frontier_grid).
extern "C" __global__ void sync_probe(int rounds) {
    cg::grid_group grid = cg::this_grid();
    for (int r = 0; r < rounds; ++r) grid.sync();
}
