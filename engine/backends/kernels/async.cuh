// The asynchronous Near-Far (search_async): each block drains its ring of near entries with
// no barrier per iteration; wide bands in sub-bands, with held lists.
#pragma once

// Asynchronous Near-Far: relax the entries of this block's ring until it is drained, with
// no barrier. A warp takes up to 32 >> lanes_log2 tickets at a time with one atomicAdd on the
// head and its lanes share each entry's arcs as in the advance; improved nodes below hi go
// back on the same ring. Warps racing for the last entries may take tickets beyond the tail:
// a group holds its ticket until the entry is stored while the warp relaxes the others
// (taking entries by a compare-and-swap loop on the head, retried after every lost race, was
// 28 % of a warp's time; decisions/0055). Only the block's own warps push to its ring, so
// once every reserved ticket is relaxed (done == tail) nothing can refill it: the block is
// done with the phase, tickets still held are dropped, and the next phase takes from the
// tail on (ring_reset).
// `it` is the phase, the stamp of a node reached for the first time when recording.
template <typename D>
__device__ void drain(const Search<D>& s, D hi, int it, const Out& o, unsigned& edges,
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
            relax_entry<D, true, true>(s, e.e, (int)sub, hi, it, o, edges, improved, -1,
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
// without dealing was slower still (decisions/0069). A ring too small for a block's ticket
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
// NE at 4x the auto Delta 9.9 against 7.5 ms, decisions/0050.) A band wider than
// `sub_width` is taken in sub-bands of that width, in step across the blocks: a node beyond
// the sub-band's end waits in its block's held list until every ring drains; a grid barrier
// then starts the next sub-band, whose entries are dealt over the blocks (deal_held). The
// last sub-band's barrier is the phase end's. The search starts from the global frontier
// that the host (or a synchronous batch) left. An entry that finds its ring full waits in
// the held list too; when that is full, it goes to the global list, and the kernel then
// stops at the phase end and leaves the synchronous kernel's state (the list, which repeats
// entries already relaxed, the pile and the band), from which the host goes on in batches.
// Recorded (`frames` not null: a row of P_FIELDS per phase, engine/recording.py), each node
// first reached is stamped with its phase in `reached_at`, and each phase's end writes its
// row: the warps add their counts to the control block then, not only at the kernel's end.
template <typename D>
__device__ void search_async(ASYNC_PARAMS) {
    extern __shared__ unsigned char dynamic_shared[];
    AsyncShared* r = reinterpret_cast<AsyncShared*>(dynamic_shared);
    Search<D> s{indptr, light_end, arcs, dist, {front0, front1}, {pile0, pile1}, pile_cap,
                band, mark, nullptr, nullptr, reached_at, nullptr, nullptr, 0, ctl,
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
    long long* rows = frames;  // recorded: the phases' rows
    u64 queued_mark = 0, again_rows = 0;  // (thread 0) C_QUEUED and C_AGAIN at the last row
    unsigned step = 0;  // grid barriers that ended a sub-band
    for (int phase = 1;; ++phase) {
        long long listed_now;
        while (true) {  // the band's sub-bands
            drain(s, hi, phase, o, edges, improved, taken);
            ring_reset(r);
            publish_held(s, step);
            if (adapts) add_again(ctl, improved);  // the rule reads C_AGAIN after the barrier
            flush_far(s, o, r->far, &r->fn, 1);
            grid.sync();
            // Every thread reads both at once (no block writes them before the next grid
            // barrier): the least read first, then the count, cost PACE NE at 1/4 x Davidson's
            // Delta 2 % (decisions/0069).
            const D least = (D)vload(&held_board(s).least[step % 3]);
            listed_now = (long long)vload(o.next_count);
            if (!deal_held(s, o, hi, step++, least)) break;
        }
        if (listed_now > listed) break;  // a ring was full: hand over
        const long long again = (long long)vload(&ctl[C_AGAIN]);
        if (rows) {  // the phase's counts, for its row
            add_counters(ctl, edges, improved);
            add_again(ctl, improved);
            if ((threadIdx.x & 31) == 0 && taken) atomicAdd(&ctl[C_QUEUED], (u64)taken);
            taken = 0;
        }
        const Pile pile = far_pile(s, ppar);
        far_min(s, pile, hi, tid, nthreads);
        grid.sync();
        const D next = next_delta(s, delta, again - again_mark);
        D new_lo, new_hi;
        done = next_band(s, hi, next, far_smallest(s), new_lo, new_hi);
        again_mark = again;
        if (rows && tid == 0) {
            long long* row = rows + (long long)(phase - 1) * P_FIELDS;
            const u64 queued = vload(&ctl[C_QUEUED]), wasted = vload(&ctl[C_AGAIN]);
            row[P_LO] = (long long)lo;
            row[P_HI] = (long long)hi;
            row[P_DELTA] = (long long)delta;
            row[P_ENTRIES] = (long long)(queued - queued_mark);
            // the pile left: none at the end, else written after the compaction below
            row[P_FAR_PILE] = done == 2 ? (long long)vload(&ctl[C_PILE0 + ppar]) : 0;
            row[P_EDGES] = (long long)vload(&ctl[C_EDGES]);
            row[P_IMPROVING] = (long long)vload(&ctl[C_IMPROVED]);
            row[P_WASTE] = (long long)(wasted - again_rows);
            queued_mark = queued;
            again_rows = wasted;
        }
        if (done) break;
        if (threadIdx.x == 0) r->sub_hi = (u64)sub_band_end(new_lo, new_hi, sub_width);
        __syncthreads();
        // Marks of the synchronous kernel's compactions are positive: these never match.
        compact<D, true, true>(s, o, pile, ppar, hi, new_hi, -phase, it, dealt, nthreads,
                               improved);
        grid.sync();  // every block has read C_PMIN and the pile's count
        if (tid == 0) {
            if (rows) rows[(long long)(phase - 1) * P_FIELDS + P_FAR_PILE] =
                (long long)ctl[C_PILE0 + (ppar ^ 1)];
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
