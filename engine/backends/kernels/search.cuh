// The synchronous search: up to `batch` iterations of advance and filter at grid or cluster
// scope (search_batch).
#pragma once

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
            if constexpr (BK) {  // engine/backends/cpu.py next_bucket says when the store is sorted
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
                row[F_ITERATION] = it;
                row[F_PHASE] = phase;
                row[F_LO] = frame_threshold(done ? hi : lo);
                row[F_HI] = frame_threshold(hi);
                row[F_FRONTIER] = relaxed;
                row[F_FAR_PILE] = BK && done != 1 ? store_from(s, cursor).m : 0;  // + the pile's
                row[F_DELTA] = frame_threshold(delta);
                row[F_LAST_ENTRIES] = last_entries;
                row[F_LAST_WASTE] = last_waste;
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
