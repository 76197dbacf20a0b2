// A search's start and end: search_init, the frame rows of a batch (finish_batch), the
// distances and stamps into the host's memory (finish_search) and the contraction's sweep
// (sweep_down).
#pragma once

// A search's starting state in one launch: every node unreached and unmarked but the source,
// which is the first frontier entry (and, when the band is listed, its first node; the
// stamp arrays that exist start at -1); and the control block, band [0, hi) of width
// `delta` in phase 1 (its copy from the host cost every search tens of us of a GPU
// machine's host: decisions/0061).
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
// counts (the host adds those from the stamps, engine/backends/gpu_rows.py): the running totals of
// the tallies, and the far pile's size. Each improving relaxation appends its node to the
// next frontier or to the far pile; after a phase end that goes on (it raises the phase
// counter; the search's last end does not) the pile is what the compaction kept. So
// pile[i] = kept[i] after such an end, else pile[i - 1] + improved[i] - frontier[i + 1]: a
// scan of the maps p -> a * p + b. One warp, 32 rows at a time; the rows go on from the
// control block's C_R* slots, and their tallies are zeroed for the next batch. (On a city's
// few hundred rows, NumPy's steps for this took a GPU machine's host 0.12 ms, most of what
// a recorded Delta-stepping search cost it more: decisions/0059.)
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
            g = add[T_IMPROVING];
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
            row[F_EDGES_RELAXED] = edges + e;
            row[F_IMPROVING] = improved + g;
            row[F_RELAXED_ENTRIES] = logged + l;
            row[F_FAR_PILE] += min(here, pile_cap);  // after bucketing's store
            if (i == rows - 1 && finished) row[F_FAR_PILE] = 0;
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
// decisions/0062).
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

// A recording by phase (engine/recording.py phase_stamps, its NumPy twin), once the search
// and the sweep are done: a node's settled stamp is its phase, the first whose threshold
// (`rows`, P_FIELDS a phase) is above its distance; it is near from the end of the phase
// before, once reached (`reached_at`: the phase that first reached it). A contracted node
// (`sweep_step` not null, the step of the sweep that gives it its distance; not the source)
// is reached in the phase that reached it on a climb, else at frame phases + 1 + its step;
// where its distance is final (`done`, or below the last threshold), it is near at that
// frame and settled at the next. The stamps go to
// `stamps` (three rows), and `counts` (three rows of `width` frames) counts the nodes that
// carry each frame in each: in each block's shared memory first when there are at most
// PHASE_BINS frames. (Written straight into the host's memory, and counted by global
// atomics, the stamps of PACE NE took 0.69 ms, a third of a near_far_core search.)
template <typename D>
__global__ void phase_stamps(const D* dist, long long n, long long source, const int* reached_at,
                             const long long* rows, int phases, int done, const int* sweep_step,
                             int* stamps, long long* counts, int width) {
    __shared__ unsigned bins[3][PHASE_BINS];
    const bool in_block = width <= PHASE_BINS;
    if (in_block)
        for (int k = threadIdx.x; k < 3 * PHASE_BINS; k += blockDim.x)
            bins[k / PHASE_BINS][k % PHASE_BINS] = 0;
    __syncthreads();
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += stride) {
        const D d = dist[i];
        int out[3] = {-1, -1, -1};
        const int step = sweep_step && i != source ? sweep_step[i] : -1;
        if (d != inf_of<D>() && step >= 0) {
            const int at = phases + 1 + step;
            const bool final = done || d < (D)rows[(long long)(phases - 1) * P_FIELDS + P_HI];
            out[0] = reached_at[i] >= 0 ? reached_at[i] : at;  // reached by the climb
            out[1] = final ? at : -1;
            out[2] = final ? at + 1 : -1;
        } else if (d != inf_of<D>()) {
            int first = 0, last = phases;  // the first phase whose threshold is above d
            while (first < last) {
                const int mid = (first + last) / 2;
                if ((D)rows[(long long)mid * P_FIELDS + P_HI] > d) last = mid;
                else first = mid + 1;
            }
            const int band = first + 1;
            out[0] = reached_at[i];
            if (band <= phases) {
                out[0] = min(out[0], band);
                out[1] = max(out[0], band - 1);
                out[2] = band;
            }
        }
#pragma unroll
        for (int k = 0; k < 3; ++k) {
            stamps[k * n + i] = out[k];
            if (out[k] < 0) continue;
            if (in_block) atomicAdd(&bins[k][out[k]], 1u);
            else add_by_key(counts + (long long)k * width, (unsigned)out[k]);
        }
    }
    if (!in_block) return;
    __syncthreads();
    for (int k = threadIdx.x; k < 3 * width; k += blockDim.x) {
        const unsigned count = bins[k / width][k % width];
        if (count) atomicAdd((u64*)&counts[k], (u64)count);
    }
}

// Methods near_far_core and phast (engine/contraction.py): after the search of a
// contraction's search graph, each contracted node takes the least d(a) + w over its arcs
// down, level by level (the last round contracted first), a grid barrier apart. A level's
// arcs are cut into chunks (engine/backends/gpu_phast.py chunks: whole nodes, at most 32
// arcs but for a node of more, each node's first arc from itself of weight 0): a warp reads
// a chunk's arcs a lane an arc, gathers their tails' distances at once, and takes each
// node's least by a segmented minimum across its lanes (a node's arcs are side by side).
// Level l is the chunks levels[l]..levels[l + 1] (level 0, a core, has none).
//
// A warp's chunks, level after level, never change: it reads them ahead, the arcs of its
// next chunk and the bounds of the one after (`SweepAhead`), also across a barrier, so that
// a chunk costs one round trip once its level begins (its tails' distances), not four
// (level, bounds, arcs, distances). Queued like finish_search: with `if_done`, nothing
// until the control block says the search finished. A sum never wraps:
// CoreGraph.candidate_bound picks D for it.
struct SweepAhead {
    const long long* levels;
    int n_levels;
    long long warp, warps;

    // The warp's chunk after chunk c of level l (l == n_levels: none left).
    __device__ __forceinline__ void next(int& l, long long& c) const {
        c += warps;
        while (l < n_levels && c >= __ldg(&levels[l + 1])) {
            if (++l < n_levels) c = __ldg(&levels[l]) + warp;
        }
    }
};

// Chunk a0..a1's least d(tail) + w into each head; its first 32 arcs' heads (-1 past its
// end), tails' distances and weights `h`, `d`, `w` already read.
template <typename D>
__device__ __forceinline__ void sweep_chunk(D* dist, long long a0, long long a1, int h, D d,
                                            unsigned w, const int* heads, const int* tails,
                                            const unsigned* weights, int lane) {
    const unsigned ALL = 0xffffffffu;
    int carry_head = -1;  // a node whose arcs go on past these 32
    D carry = inf_of<D>();
    for (long long s = a0; s < a1; s += 32) {
        const int len = (int)min(32LL, a1 - s);
        if (s != a0) {  // a node of more than 32 arcs
            h = -1;
            if (lane < len) {
                h = __ldg(&heads[s + lane]);
                d = __ldcg(&dist[__ldg(&tails[s + lane])]);
                w = __ldg(&weights[s + lane]);
            }
        }
        D v = inf_of<D>();
        if (lane < len && d != inf_of<D>()) v = (D)(d + (D)w);
        if (carry_head >= 0 && __shfl_sync(ALL, h, 0) != carry_head) {
            if (lane == 0) dist[carry_head] = carry;  // it ended with the last 32
        } else if (h == carry_head) {
            v = min(v, carry);
        }
        // The least of each run of equal heads, into the run's first lane.
#pragma unroll
        for (int off = 1; off < 32; off *= 2) {
            const D other = __shfl_down_sync(ALL, v, off);
            const int other_head = __shfl_down_sync(ALL, h, off);
            if (lane + off < len && other_head == h) v = min(v, other);
        }
        const int before = __shfl_up_sync(ALL, h, 1);
        const bool first = lane < len && (lane == 0 || before != h);
        const int last_head = __shfl_sync(ALL, h, len - 1);
        const bool goes_on = s + 32 < a1 && h == last_head;
        if (first && !goes_on) dist[h] = v;
        carry_head = -1;
        if (s + 32 < a1) {  // the last run's least, for the next 32 arcs
            const int leader = __ffs(__ballot_sync(ALL, first && h == last_head)) - 1;
            carry = __shfl_sync(ALL, v, leader);
            carry_head = last_head;
        }
    }
}

template <typename D>
__device__ void sweep_levels(D* dist, const long long* levels, int n_levels,
                             const long long* firsts, const int* heads, const int* tails,
                             const unsigned* weights) {
    const int lane = threadIdx.x % 32;
    const long long warp = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / 32;
    const SweepAhead ahead{levels, n_levels, warp, (long long)gridDim.x * blockDim.x / 32};
    // The chunk to sweep next (level la, its bounds a0..a1 and first 32 arcs read) and the
    // one after it (level lb, its bounds read).
    int la = 1, lb;
    long long ca = -ahead.warps, cb, a0 = 0, a1 = 0, b0 = 0, b1 = 0;
    if (n_levels > 1) ca += __ldg(&levels[1]) + warp;
    ahead.next(la, ca);
    if (la < n_levels) a0 = __ldg(&firsts[ca]), a1 = __ldg(&firsts[ca + 1]);
    lb = la, cb = ca;
    if (lb < n_levels) ahead.next(lb, cb);
    if (lb < n_levels) b0 = __ldg(&firsts[cb]), b1 = __ldg(&firsts[cb + 1]);
    int h = -1, t = 0;
    unsigned w = 0;
    if (la < n_levels && lane < a1 - a0) {
        h = __ldg(&heads[a0 + lane]), t = __ldg(&tails[a0 + lane]), w = __ldg(&weights[a0 + lane]);
    }
    for (int l = 1; l < n_levels; ++l) {
        if (l > 1) cg::this_grid().sync();
        while (la == l) {
            const long long s0 = a0, s1 = a1;
            const int h0 = h;
            const unsigned w0 = w;
            const D d0 = h0 >= 0 ? __ldcg(&dist[t]) : inf_of<D>();  // an earlier level's
            // Ahead, while that distance comes: the next chunk's arcs, the bounds after it.
            la = lb, a0 = b0, a1 = b1;
            h = -1;
            if (la < n_levels && lane < a1 - a0) {
                h = __ldg(&heads[a0 + lane]), t = __ldg(&tails[a0 + lane]);
                w = __ldg(&weights[a0 + lane]);
            }
            if (lb < n_levels) ahead.next(lb, cb);
            if (lb < n_levels) b0 = __ldg(&firsts[cb]), b1 = __ldg(&firsts[cb + 1]);
            sweep_chunk(dist, s0, s1, h0, d0, w0, heads, tails, weights, lane);
        }
    }
}

template <typename D>
__global__ void sweep_down(D* dist, const long long* levels, int n_levels,
                           const long long* firsts, const int* heads, const int* tails,
                           const unsigned* weights, const u64* ctl, int if_done) {
    if (if_done && !vload(&ctl[C_DONE])) return;
    sweep_levels(dist, levels, n_levels, firsts, heads, tails, weights);
}

// Method phast's one tree (engine/backends/gpu.py, phast_tree), on a hierarchy whose core
// has a distance table (`core_table`): the climb from the source, level by level up, in
// block 0 (a climb reaches a few nodes a level: PACE NY's 100-230 in all); the core's
// distances from the core nodes the climb reached and the table; the sweep down
// (sweep_levels) but for its last level, which the distances' writing into the host's memory
// sweeps as it goes (those nodes' tails are all above: their rows are final). Node `v` is in
// level level_of[v] (0: the core; 1: the top), whose ranks starts[l]..starts[l + 1] bound its
// list of nodes reached. The climb keeps the levels' counts and starts in block 0's shared
// memory (at most CLIMB_LEVELS levels: the launcher's condition): a level then waits on
// three loads of the device's memory (a node, its arcs, their heads' levels) and its
// atomics, not five.

template <typename D>
__device__ void phast_climb(D* dist, long long source, const int* level_of,
                            const long long* starts, int* lists, unsigned* counts, int n_levels,
                            const long long* indptr, const int* indices,
                            const unsigned* weights, unsigned long long* relaxed) {
    __shared__ unsigned count_of[CLIMB_LEVELS];
    __shared__ long long start_of[CLIMB_LEVELS];
    for (int l = threadIdx.x; l < n_levels; l += blockDim.x) {
        count_of[l] = 0;
        start_of[l] = starts[l];
    }
    const int top = level_of[source];
    __syncthreads();
    if (threadIdx.x == 0) {
        dist[source] = 0;
        lists[start_of[top]] = (int)source;
        count_of[top] = 1;
    }
    __syncthreads();
    unsigned long long arcs = 0;
    for (int l = top; l >= 1; --l) {  // each arc up ends in a level above (lower l) or the core
        const unsigned count = count_of[l];
        if (count) {
            // A group of lanes a node (its arcs side by side): the warp's 32 for a few nodes.
            const unsigned wide = count >= blockDim.x ? 1u : blockDim.x / count;
            const unsigned per = min(32u, 1u << (31 - __clz(wide)));
            const unsigned group = threadIdx.x / per, groups = blockDim.x / per;
            const long long start = start_of[l];
            for (unsigned k = group; k < count; k += groups) {
                const int u = __ldcg(&lists[start + k]);
                const D du = __ldcg(&dist[u]);  // final: every arc into u is from below
                const long long a1 = indptr[u + 1];
                for (long long a = indptr[u] + threadIdx.x % per; a < a1; a += per) {
                    const int h = indices[a];
                    const int lh = level_of[h];
                    if (atomicMin(&dist[h], (D)(du + (D)weights[a])) == inf_of<D>()) {
                        lists[start_of[lh] + atomicAdd(&count_of[lh], 1u)] = h;  // reached first
                    }
                    ++arcs;
                }
            }
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) counts[0] = count_of[0];  // the core's entries, for the grid
    if (arcs) atomicAdd(relaxed, arcs);
}

// `bottom` is the last level's first rank (n: none swept at the end) and bottom_at[r - bottom]
// rank r's first arc in the sweep's chunks (its own, then its arcs down).
template <typename D>
__global__ void phast_tree(D* dist, long long n, long long source, const int* level_of,
                           const long long* starts, int* lists, unsigned* counts,
                           const long long* indptr, const int* indices, const unsigned* weights,
                           const int* core_rank, const int* core_nodes, int n_core,
                           const D* table, const long long* levels, int n_levels,
                           const long long* firsts, const int* heads, const int* tails,
                           const unsigned* down_weights, long long bottom,
                           const long long* bottom_at, long long* out, long long unreachable,
                           unsigned long long* tally) {
    cg::grid_group grid = cg::this_grid();
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long first = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    // counts: the core nodes the climb reached, then (8-byte aligned) its arcs relaxed.
    unsigned long long* relaxed = (unsigned long long*)&counts[2];
    for (long long i = first; i < n; i += stride) dist[i] = inf_of<D>();
    if (first < 4) counts[first] = 0;
    grid.sync();
    if (blockIdx.x == 0) {
        phast_climb(dist, source, level_of, starts, lists, counts, n_levels, indptr, indices,
                    weights, relaxed);
    }
    grid.sync();
    // The core: each core node's least d(e) + table[e][v] over the core nodes e the climb
    // reached (a core node's arcs stay in the core), a slice of them a thread. A d(e) that
    // another thread lowers meanwhile is still a path's length: the least is the same.
    const unsigned entries = n_core ? __ldcg(&counts[0]) : 0;
    const long long slices = max(1LL, stride / max(n_core, 1));
    for (long long t = first; t < n_core * slices; t += stride) {
        const int v = (int)(t % n_core);
        D best = inf_of<D>();
        for (long long k = t / n_core; k < entries; k += slices) {
            const int e = __ldcg(&lists[k]);  // level 0's list (starts[0] is 0)
            const D de = __ldcg(&dist[e]);
            const D w = table[(long long)core_rank[e] * n_core + v];
            if (w != inf_of<D>()) best = min(best, (D)(de + w));
        }
        if (best != inf_of<D>()) atomicMin(&dist[core_nodes[v]], best);
    }
    grid.sync();
    sweep_levels(dist, levels, n_levels - (bottom < n), firsts, heads, tails, down_weights);
    grid.sync();
    for (long long i = first; i < n; i += stride) {
        D v = __ldcg(&dist[i]);
        const long long r = bottom < n ? core_rank[i] - bottom : -1;
        if (r >= 0) {  // the last level's node: its least d(tail) + w, its own arc's first
            const long long a1 = __ldg(&bottom_at[r + 1]);
            for (long long a = __ldg(&bottom_at[r]); a < a1; ++a) {
                const D d = __ldcg(&dist[__ldg(&tails[a])]);
                if (d != inf_of<D>()) v = min(v, (D)(d + (D)__ldg(&down_weights[a])));
            }
        }
        out[i] = v == inf_of<D>() ? unreachable : (long long)v;
    }
    if (first == 0) {
        tally[0] = __ldcg(relaxed);
        tally[1] = entries;
    }
}

// Kernel core_table_step: step k of Floyd and Warshall over a core's n_core × n_core table,
// a row a block: each entry the least of itself and its path through core node k (a sum that
// wraps is none). Row k and column k stay as they are (the table's diagonal is 0).
template <typename D>
__global__ void core_table_step(D* table, long long n_core, long long k) {
    const D* through = table + k * n_core;
    for (long long r = blockIdx.x; r < n_core; r += gridDim.x) {
        D* row = table + r * n_core;
        const D a = row[k];
        if (a == inf_of<D>()) continue;
        for (long long c = threadIdx.x; c < n_core; c += blockDim.x) {
            const D b = through[c], sum = (D)(a + b);
            if (b != inf_of<D>() && sum >= a && sum < row[c]) row[c] = sum;
        }
    }
}
