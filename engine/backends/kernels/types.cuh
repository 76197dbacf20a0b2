// The kernels' types: an arc, frontier and ring entries, the blocks' shared memory at
// cluster scope and in the asynchronous kernel, a search's arguments (Search) and where an
// iteration's appends go (Out); the kernel-side constants.
#pragma once

// Kernel-side constants the host never sees.
// Recording: each block counts its iterations' tallies (T_* in contract.cuh) in its shared
// memory, TALLY of them at a time, and adds those counts to their rows every TALLY
// iterations and at the end of the batch (adding them once per iteration, every block to
// the same row, cost a recorded Near-Far on PACE NE 0.4 ms, decisions/0042).
#define TALLY 256
// A near stamp not set yet (the host reads it as -1).
#define NEVER 0x7fffffff
// A recording by phase of at most this many frames counts its stamps in each block's shared
// memory (kernel phase_stamps), a longer one by global atomics.
#define PHASE_BINS 2048
// A block's published part size with this bit: some of its entries went to the global
// frontier.
#define SPILLED 0x80000000u

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
// count up for the whole launch; ticket t lives in slot t % capacity (RCAP, a power of two).
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

// The host allocates for these by the sizes in contract.cuh (engine/backends/contract.py):
// a structure that changes stops the compilation here instead of corrupting memory.
static_assert(sizeof(Arc) == ARC_BYTES, "Arc: update ARC_BYTES in contract.py");
static_assert(sizeof(Entry) == ENTRY_BYTES, "Entry: update ENTRY in contract.py");
static_assert(sizeof(RingEntry) == RING_ENTRY_BYTES, "RingEntry: update contract.py");
static_assert(sizeof(ClusterShared) == CLUSTER_SHARED_BYTES,
              "ClusterShared: update CLUSTER_SHARED_BYTES in contract.py");
static_assert(sizeof(AsyncShared) == ASYNC_SHARED_BYTES,
              "AsyncShared: update ASYNC_SHARED_BYTES in contract.py");
static_assert((RCAP & (RCAP - 1)) == 0, "a ring's capacity is a power of two");
