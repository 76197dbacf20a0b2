// The counters: a thread's improving relaxations (Gains), the control block's counters and
// the recording's tallies and bucket moves.
#pragma once

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
// Near-Far 6 % on PACE NE (decisions/0022).
__device__ __forceinline__ void add_again(u64* ctl, Gains& improved) {
    warp_add(&ctl[C_AGAIN], improved.again);
    improved.again = 0;
}

// Recording: move this thread's counts into its block's count of the batch's iteration `b`
// (`counts`, TALLY iterations in shared memory), with an atomic per nonzero count. Summing a
// warp's counts first (__reduce_add_sync or shuffles) made every warp wait for its slowest
// lane: 1.6 ms of a recorded Near-Far on PACE NE (decisions/0042).
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
