"""Launcher of the CUDA frontier kernels (engine/kernels/frontier.cu) through CuPy.

The graph is uploaded once and kept on the device for as long as the `CSRGraph` lives.
Each launch runs up to ``batch_size`` iterations; the host then reads the control block (one
synchronisation per batch) and, when recording, the frame rows of that batch, finished on
the GPU but for their node counts, which it adds once it takes the node stamps (at the end,
or after each batch of a stream). The search's end (the int64 distances, a recording's
stamps) is written by a kernel straight into the host's page-locked memory, queued behind
each long batch on the chance that it finished the search.

A batch runs at one of two scopes. Small frontiers, the usual case on road graphs, run on
one thread-block cluster (Hopper and later: a hardware barrier, frontiers in distributed
shared memory); large ones run on the whole GPU (a cooperative launch with ``grid.sync()``).
A batch ends early when its frontier leaves the scope's range, and the next batch runs at
the other scope.

``near_far_async`` (Hopper and later, not recorded) runs first as one cooperative launch of
``frontier_async``: phases without a barrier per iteration, on work rings in the shared
memory of one block per multiprocessor, wide bands in sub-bands whose later nodes wait in
the blocks' held lists, dealt over the blocks at each sub-band's start. It finishes the
search, or hands over to the batches above when a ring and its held list fill.
"""

from __future__ import annotations

import functools
import time
import weakref
from collections.abc import Callable

import numpy as np

from engine._errors import GPUMemoryError
from engine.backends import device as _backend
from engine.backends.gpu_rows import ROW_FIELDS, count_rows
from engine.contraction import Contraction
from engine.graphs.csr import UNREACHABLE, CSRGraph
from engine.methods import SEGMENTS, Counters, RunSpec
from engine.recording import BUCKET_BINS, FRAME_FIELDS, frame_threshold

KERNEL_FILE = "frontier.cu"
_TYPES = {np.dtype(np.uint32): "unsigned int", np.dtype(np.uint64): "unsigned long long"}
_PROBES = {"grid": "sync_probe", "cluster": "cluster_sync_probe"}
BLOCK = 256
#: Threads that sum one column of bucket rows (SUM_RUNS in the kernel, finish_batch).
SUM_RUNS = 32
#: What a search kernel records (REC_* in the kernel): nothing; the node stamps, frame rows
#: and relax log; those and the sizes of the buckets ahead (Δ-stepping and bucketing).
REC_NONE, REC_FRAMES, REC_BUCKETS = 0, 1, 2
#: Batches of at least this many iterations queue the search's end behind them (kernel
#: ``finish_search``, which does nothing until the control block says the search finished,
#: then writes the distances and a recording's stamps straight into the host's memory), so
#: that its host steps run while the batch does. A batch this long outlasts the launch; a
#: shorter one would wait for it.
END_AHEAD_BATCH = 16
#: Cluster scope: blocks, threads per block and shared-memory capacities per block (entries
#: of the frontier, far appends staged); CLUSTER, CLUSTER_THREADS, QCAP and FCAP in the
#: kernel. 512 threads beat 1024 by 13 % on PACE NE: every warp pays each iteration's
#: bookkeeping and barriers, and 16 warps per SM are enough for road frontiers.
CLUSTER, CLUSTER_BLOCK, QUEUE_CAPACITY, STAGE_CAPACITY = 16, 512, 6144, 8192
#: Dynamic shared memory of a cluster block (``ClusterShared`` in the kernel).
CLUSTER_SHARED_BYTES = 16 + 2 * QUEUE_CAPACITY * 12 + 4 * STAGE_CAPACITY + 4 * 2 * CLUSTER + 12
#: Asynchronous Near-Far: entries of each block's ring (RCAP in the kernel) and the dynamic
#: shared memory of a block (``AsyncShared``: ring of 16-byte entries, tickets, far stage,
#: counters).
RING_CAPACITY = 8192
#: Threads of an asynchronous block: at most ASYNC_THREADS (the kernel's launch bounds);
#: ASYNC_WIDE_BLOCK from bands of ASYNC_WIDE × Davidson's Δ on. Twice the warps drain a wide
#: band's ring sooner (PACE NE at 8 × 11.9 → 7.8 ms) but cost a narrow one's chains (+0.8 ms
#: at 1 ×); they cross at 3–4 × on every PACE graph (bench/NOTES.md).
ASYNC_BLOCK, ASYNC_WIDE_BLOCK, ASYNC_WIDE = 512, 1024, 4
ASYNC_SHARED_BYTES = 20 * RING_CAPACITY + 4 * STAGE_CAPACITY + 48
#: A band wider than ASYNC_SUB × Davidson's Δ is taken in sub-bands of ASYNC_SUB_WIDTH × it,
#: in step across the blocks: an improved node beyond the sub-band's end waits in its block's
#: held list (global memory, two of HELD_CAPACITY entries a block) until every ring drains,
#: and so does an entry that finds its ring full; each sub-band's entries are dealt over the
#: blocks. On its rings a wide band relaxed each node once for every improvement, in the order
#: they came (PACE NE at 16 × 15.5 ms against 9.4 for near_far), and sub-bands each block
#: took on its own waited on the busiest block (bench/NOTES.md).
ASYNC_SUB, ASYNC_SUB_WIDTH, HELD_CAPACITY = 4, 4, 8192
#: The most asynchronous blocks (ASYNC_MAX_BLOCKS in the kernel), one a multiprocessor.
ASYNC_MAX_BLOCKS = 1024
#: A cluster batch ends once the frontier exceeds CLUSTER_MAX entries; a grid batch ends once
#: it falls below GRID_MIN (bench/NOTES.md has the measurements behind both).
CLUSTER_MAX, GRID_MIN = 8192, 2048
SCOPES = ("grid", "cluster")
C_CNT0, C_PILE0, C_PILE1, C_PPAR, C_FPAR, C_BAND, C_BSTART = 0, 3, 4, 5, 6, 7, 8
C_ITER, C_PHASE, C_LO, C_HI, C_DONE, C_EDGES, C_IMPROVED = 9, 10, 11, 12, 13, 14, 15
C_COMPACT, C_DUPS, C_STALE, C_REBUILDS, C_PMIN, C_QUEUED, C_DELTA = 16, 17, 18, 19, 20, 21, 22
C_SORTS, C_LOGPOS, C_REDGES, C_RIMPROVED, C_RPHASE, C_RFROM, C_HELD = 30, 31, 32, 33, 36, 37, 38
C_SLOTS = 40

_uploads: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_sweeps: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class _DeviceGraph:
    def __init__(self, graph: CSRGraph):
        cp = _backend.cupy()
        self.indptr = cp.asarray(graph.indptr)
        self.indices = cp.asarray(graph.indices)
        self.weights = cp.asarray(graph.weights)
        self.light: dict[int, object] = {}
        self.arc_tables: dict[int | None, object] = {}
        self.lanes_log2 = lanes_log2(graph)

    def light_end(self, graph: CSRGraph, delta: int | None):
        if delta is None:
            return self.indptr[1:]
        if delta not in self.light:
            self.light[delta] = _backend.cupy().asarray(graph.light_end(delta))
        return self.light[delta]

    def arcs(self, graph: CSRGraph, delta: int | None):
        """The kernels' arc table (``Arc``): head, weight and the head's arc range (light
        arcs only when ``delta`` splits them), built on the device once per ``delta``."""
        if delta not in self.arc_tables:
            cp = _backend.cupy()
            end = self.light_end(graph, delta)
            table = cp.empty((graph.n_arcs, 4), dtype=np.int32)
            table[:, 0] = self.indices
            table[:, 1] = self.weights.view(np.int32)
            table[:, 2] = self.indptr[self.indices].astype(np.int32)
            table[:, 3] = end[self.indices].astype(np.int32)
            self.arc_tables[delta] = table
        return self.arc_tables[delta]


def lanes_log2(graph: CSRGraph) -> int:
    """log2 of the threads that share a frontier node's arcs: the power of two covering the
    99th percentile of out-degrees (2–8 on road graphs), at most a warp."""
    degree = np.diff(graph.indptr)
    if degree.size == 0:
        return 0
    p99 = max(int(np.percentile(degree, 99)), 1)
    return min(int(np.ceil(np.log2(p99))), 5)


#: Bytes of an arc in the kernels' arc table (``Arc``: head, weight, head's arc range).
ARC_BYTES = 16

#: Layout of a frontier entry (``Entry`` in the kernel): node and arc range.
ENTRY = np.dtype([("v", np.int32), ("start", np.int32), ("end", np.int32)], align=True)


def required_bytes(graph: CSRGraph, dtype: np.dtype, *, recording: bool) -> int:
    """Device memory one search needs: graph, distances, queues, marks, bucketing's store,
    stamps and phase ends (three ``int32`` arrays while recording: the stamps the host takes
    are written straight into its memory)."""
    n, m = graph.n_nodes, graph.n_arcs
    graph_bytes = 8 * (n + 1) * 2 + 4 * m * 2 + ARC_BYTES * m
    fronts = 2 * max(n, m) * ENTRY.itemsize
    work = dtype.itemsize * n + 8 * n + fronts + 4 * (2 * (n + m) + 3 * n)
    return graph_bytes + work + (12 * n if recording else 0)


def check_fits(required: int, free: int) -> None:
    """Raise `GPUMemoryError` when ``required`` bytes exceed ``free`` (with a margin)."""
    if required > 0.9 * free:
        msg = (
            f"the graph needs about {required / 2**30:.2f} GiB of GPU memory but only "
            f"{free / 2**30:.2f} GiB is free; use --backend cpu or a smaller graph"
        )
        raise GPUMemoryError(msg)


def device_graph(graph: CSRGraph, required: int) -> _DeviceGraph:
    """The graph on the device, uploaded once (``required`` bytes must be free then)."""
    if graph not in _uploads:
        check_fits(required, _backend.free_gpu_memory())
        _uploads[graph] = _DeviceGraph(graph)
    return _uploads[graph]


def prepare(graph: CSRGraph, spec: RunSpec) -> float:
    """Upload the graph and compile the kernel if not done yet; return the seconds spent."""
    start = time.perf_counter()
    if graph.n_arcs >= 2**31:
        msg = f"{graph.name} has {graph.n_arcs:,} arcs; the GPU kernels take fewer than 2^31"
        raise GPUMemoryError(msg)
    required = required_bytes(graph, spec.dtype, recording=spec.recording is not None)
    if spec.method.asynchronous:
        required += _held_bytes(_async_blocks(), HELD_CAPACITY)
    if spec.contraction is not None:
        required += spec.contraction.n_down * 8 + spec.contraction.order.size * 12
    device_graph(graph, required)
    _uploads[graph].arcs(graph, spec.split if spec.light_heavy else None)
    if spec.contraction is not None:
        _device_sweep(spec.contraction)
    _module()
    _backend.cupy().cuda.Device().synchronize()
    return time.perf_counter() - start


def _device_sweep(c: Contraction) -> tuple:
    """Kernel ``sweep_down``'s arguments for the contraction ``c`` (uploaded once)."""
    if c not in _sweeps:
        cp = _backend.cupy()
        _sweeps[c] = (
            cp.asarray(c.order),
            cp.asarray(c.round_starts),
            np.int32(c.n_rounds),
            cp.asarray(c.down_indptr),
            cp.asarray(c.down_tails),
            cp.asarray(c.down_weights),
        )
    return _sweeps[c]


def clusters_available() -> bool:
    """Whether the GPU runs thread-block clusters (compute capability 9.0 and later)."""
    return _backend.compute_capability() >= 90


def _available() -> tuple[str, ...]:
    return SCOPES if clusters_available() else ("grid",)


def small_frontier_scope() -> str:
    """The scope that runs small frontiers here (the floor of an iteration is its barrier)."""
    return "cluster" if clusters_available() else "grid"


@functools.cache
def _name_of(kernel: str, dtype: np.dtype, *more: str) -> str:
    return f"{kernel}<{', '.join((_TYPES[np.dtype(dtype)], *more))}>"


def _name(scope: str, dtype: np.dtype, records: int = REC_NONE, bucketed: bool = False) -> str:
    """The search kernel of ``scope`` (or ``async``) that records ``records`` (``REC_*``);
    bucketing's paths exist only when ``bucketed``."""
    if scope == "async":
        return _name_of("frontier_async", dtype)
    return _name_of(f"frontier_{scope}", dtype, str(records), "true" if bucketed else "false")


def _records(spec: RunSpec, recording: bool) -> int:
    """What a search of ``spec`` records (``REC_*``)."""
    if not recording:
        return REC_NONE
    return REC_BUCKETS if spec.has_buckets else REC_FRAMES


#: Grid-stride kernels around a search: its starting state, its end (the int64 distances
#: and a recording's stamps) and, on a contraction's core, the sweep before that end.
ELEMENTWISE = ("search_init", "finish_search", "sweep_down")


@functools.cache
def _module():
    """The compiled kernels, looked up once: reading and hashing the source and naming every
    kernel on each search cost it tens of µs of a GPU machine's host (bench/NOTES.md)."""
    scopes = _available()
    # Bucketing's recordings always have bucket sizes.
    flags = [(REC_NONE, False), (REC_NONE, True), (REC_FRAMES, False)]
    flags += [(REC_BUCKETS, False), (REC_BUCKETS, True)]
    names = [_name(scope, t, *f) for scope in scopes for t in _TYPES for f in flags]
    if "cluster" in scopes:
        names += [_name("async", t) for t in _TYPES]
    names += [_name_of(k, t) for k in ELEMENTWISE for t in _TYPES]
    names += ["finish_batch"]
    return _backend.kernel_module(KERNEL_FILE, (*names, *(_PROBES[s] for s in scopes)))


@functools.cache
def _kernel(scope: str, dtype: np.dtype, records: int = REC_NONE, bucketed: bool = False):
    """The search kernel of ``scope``, with its launch attributes set (once)."""
    kernel = _function(_name(scope, dtype, records, bucketed))
    if scope == "cluster":
        _backend.allow_large_clusters(kernel)
    if scope in ("cluster", "async"):
        kernel.max_dynamic_shared_size_bytes = (
            CLUSTER_SHARED_BYTES if scope == "cluster" else ASYNC_SHARED_BYTES
        )
    return kernel


def sync_us(scope: str = "grid", *, blocks: int | None = None, rounds: int = 20_000) -> float:
    """Measured cost in µs of one barrier of ``scope``: ``grid.sync()`` at the search's grid
    size (or ``blocks``), or the cluster barrier of the cluster scope."""
    cp = _backend.cupy()
    kernel = _module().get_function(_PROBES[scope])
    if scope == "cluster":
        _backend.allow_large_clusters(kernel)
        grid, block = CLUSTER, CLUSTER_BLOCK
    else:
        grid, block = blocks or _grid(_kernel("grid", np.dtype(np.uint32))), BLOCK
    kernel((grid,), (block,), (np.int32(100),))  # warm up
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    kernel((grid,), (block,), (np.int32(rounds),))
    stop.record()
    stop.synchronize()
    return cp.cuda.get_elapsed_time(start, stop) * 1e3 / rounds


def _grid(kernel) -> int:
    return _backend.multiprocessor_count() * min(2, _backend.resident_blocks(kernel, BLOCK))


def run(
    spec: RunSpec,
    on_batch: Callable[[], None] | None = None,
    *,
    pile_capacity: int | None = None,
    blocks: int | None = None,
    scope: str | None = None,
    queue_capacity: int = QUEUE_CAPACITY,
    stage_capacity: int = STAGE_CAPACITY,
    ring_capacity: int = RING_CAPACITY,
    async_threads: int | None = None,
    held_capacity: int = HELD_CAPACITY,
    async_sub: int | None = None,
):
    """Run one search on the GPU; return (int64 distances, counters, settled_below).

    ``pile_capacity``, ``blocks`` (the grid scope's grid size), ``scope`` (one scope for
    every batch instead of switching by frontier size), the cluster scope's
    ``queue_capacity`` and ``stage_capacity``, the asynchronous rings' ``ring_capacity`` and
    its blocks' ``async_threads``, held lists' ``held_capacity`` and sub-bands' width
    ``async_sub`` (× Davidson's Δ; 0: whole bands; `_sub_band` by default) override the
    defaults, for tests and measurements."""
    if ring_capacity & (ring_capacity - 1):
        msg = f"ring_capacity must be a power of two, got {ring_capacity}"
        raise ValueError(msg)
    cp = _backend.cupy()
    graph, dtype, rec = spec.graph, spec.dtype, spec.recording
    dev = _uploads[graph]
    n = graph.n_nodes
    inf = int(np.iinfo(dtype).max)
    rule = spec.rule
    cap = int(pile_capacity if pile_capacity is not None else n + graph.n_arcs)

    split = spec.split if spec.light_heavy else None
    light_end = dev.light_end(graph, split)
    dist = cp.empty(n, dtype=dtype)
    fronts = [cp.empty(max(n, graph.n_arcs) * ENTRY.itemsize, dtype=np.uint8) for _ in range(2)]
    piles = [cp.empty(max(cap, n), dtype=np.int32) for _ in range(2)]
    mark = cp.empty(n, dtype=np.int32)
    # Bucketing's store of far nodes sorted by bucket, its segment offsets and counters.
    store = cp.empty(n, dtype=np.int32) if spec.method.bucketed else None
    seg = cp.zeros(2 * SEGMENTS + 3, dtype=np.int64) if spec.method.bucketed else None
    # Δ-stepping lists the band (its heavy pass relaxes it); a recording stamps it.
    band = cp.empty(n, dtype=np.int32) if spec.light_heavy else None
    near_at = cp.empty(n, dtype=np.int32) if spec.light_heavy or rec is not None else None
    reached_at = cp.empty(n, dtype=np.int32) if rec is not None else None
    # The relax log grows between batches; a batch ends early rather than overflow it. Each
    # near entry relaxed takes the next slot (-1 for an entry without arcs, dropped
    # when the recording's log is first read).
    relax_log = cp.empty(max(4 * n, 1024), dtype=np.int32) if rec is not None else None
    # The iteration that ended each phase (a phase settles at least one node: n + 1 at most).
    ends = cp.empty(n + 2, dtype=np.int32) if rec is not None else None
    recorder = block = None
    if rec is not None:
        block = _RecordingBlock(spec)
        recorder = _Recorder(rec, reached_at, near_at, ends)
        rec.append(_initial_row(spec), _initial_buckets() if spec.has_buckets else None)
    ctl_dev = cp.empty(C_SLOTS, dtype=np.uint64) if block is None else block.ctl
    # Page-locked memory for the distances (kernel finish_search) and the control block,
    # made while the first launch runs: made before it, it delayed every search.
    out = out_at = ctl_host = None
    stream = cp.cuda.get_current_stream()
    copied = cp.cuda.Event(disable_timing=True)
    # A stream records each batch itself; otherwise the recording is taken at the end.
    recorder_ends = recorder is not None and on_batch is None

    def end(if_done: bool, width: int, *, streamed: bool = False) -> None:
        """Queue the search's end: the distances (not after a stream's batch) and, when the
        recording is taken there, its stamps (``width``: at least the iterations done then,
        plus one)."""
        taking = recorder_ends or streamed
        stamps = recorder.end(relax_log, width, if_done=if_done) if taking else None
        if spec.contraction is not None:
            sweep = (*_device_sweep(spec.contraction), ctl_dev, np.int32(if_done))
            _launch_elementwise("sweep_down", dtype, spec.contraction.order.size, (dist, *sweep))
        _finish_search(dist, dtype, 0 if streamed else out_at, ctl_dev, if_done, stamps)

    scalar = dtype.type
    _launch_elementwise(
        "search_init",
        dtype,
        n,
        (
            dist,
            mark,
            np.int64(n),
            np.int64(spec.source),
            fronts[0],
            dev.indptr,
            light_end,
            _arg(band),
            _arg(near_at),
            _arg(reached_at),
            ctl_dev,
            scalar(spec.initial_hi(inf)),
            scalar(spec.delta),
        ),
    )

    args = [
        dev.indptr,
        light_end,
        dev.arcs(graph, split),
        dist,
        fronts[0],
        fronts[1],
        piles[0],
        piles[1],
        np.int64(cap),
        _arg(band),
        mark,
        _arg(store),
        _arg(seg),
        _arg(reached_at),
        _arg(near_at),
        _arg(relax_log),
        np.int64(0 if relax_log is None else relax_log.size),
        ctl_dev,
        _arg(None if block is None else block.frames),
        _arg(None if block is None else block.changes),
        _arg(ends),
        np.int64(n),
        scalar(rule.low),
        scalar(rule.high),
        np.int64(rule.phase_cost or 1),
        np.int64(-1 if spec.target is None else spec.target),
        np.int32(spec.light_heavy),
        np.int32(dev.lanes_log2),
        np.int32(spec.batch_size),
    ]
    log_at = next(k for k, a in enumerate(args) if a is ctl_dev) - 2  # the relax log's place
    sizes = (np.int32(queue_capacity), np.int32(stage_capacity))
    scopes = _scopes(scope)
    switching = len(scopes) == 2
    records = _records(spec, rec is not None)
    grid = blocks or _grid(_kernel("grid", dtype, records, spec.method.bucketed))
    # (grid, block, dynamic shared memory, leave below, leave above) of each scope's batches.
    launch = {
        "grid": (grid, BLOCK, 0, GRID_MIN if switching else -1, 2**62),
        "cluster": (
            CLUSTER,
            CLUSTER_BLOCK,
            CLUSTER_SHARED_BYTES,
            -1,
            CLUSTER_MAX if switching else 2**62,
        ),
    }
    host_syncs = 0
    size = 1
    current = scopes[0]
    state = None
    ahead = spec.batch_size >= END_AHEAD_BATCH
    ended = False  # whether the end was queued behind the last launch
    asynchronous = spec.method.asynchronous and rec is None and clusters_available()
    while state is None or not state[C_DONE]:
        # (read before the batch's copy, which may land in the same page-locked block)
        done_before = 0 if state is None else int(state[C_ITER])
        if relax_log is not None:
            used = 0 if state is None else int(state[C_LOGPOS])
            if used + size > relax_log.size:  # room for the next frontier, and then some
                grown = cp.empty(max(2 * relax_log.size, used + size + n), dtype=np.int32)
                grown[:used] = relax_log[:used]
                relax_log = grown
                args[log_at : log_at + 2] = [relax_log, np.int64(relax_log.size)]
        if asynchronous and state is None:
            blocks_async = _async_blocks()
            held = cp.empty(_held_bytes(blocks_async, held_capacity), dtype=np.uint8)
            width = scalar(min(_sub_band(spec, async_sub) * graph.auto_delta(), inf))
            ring = (np.int32(ring_capacity), sizes[1], held, np.int64(held_capacity), width)
            _kernel("async", dtype)(
                (blocks_async,),
                (async_threads or _async_threads(spec),),
                (*args, np.int64(-1), np.int64(2**62), *ring),
                shared_mem=ASYNC_SHARED_BYTES,
            )
            ended = True  # it mostly finishes the search (after a full ring, batches go on)
        else:
            if switching:
                current = _next_scope(current, size)
            n_blocks, threads, shared, below, above = launch[current]
            _kernel(current, dtype, records, spec.method.bucketed)(
                (n_blocks,),
                (threads,),
                (*args, np.int64(below), np.int64(above), *sizes),
                shared_mem=shared,
            )
            ended = ahead
        if out is None:
            out = _backend.pinned_empty(n, np.int64)
            out_at = _backend.host_pointer(out)
            if block is None:
                ctl_host = _backend.pinned_empty(C_SLOTS, np.uint64)
        # The launch's control block (and, recorded, its rows and bucket sizes) come back
        # with its one host synchronisation: a wait for the copy only, so that the end
        # queued behind it runs on the GPU while the host goes on.
        host = block.queue(cap) if block is not None else ctl_dev.get(out=ctl_host, blocking=False)
        copied.record()
        if ended:
            end(True, done_before + spec.batch_size + 1)
        copied.synchronize()
        if block is None:
            state = host
        else:
            state, rows, bins = block.take(host)
            recorder.batches.append((rows, bins))
            if on_batch is not None:  # a stream sees each batch's node states
                end(False, int(state[C_ITER]) + 1, streamed=True)
                stream.synchronize()
                recorder.take(state)
                on_batch()
        host_syncs += 1
        size = _frontier_size(state)
    if not ended:
        end(False, int(state[C_ITER]) + 1)
    stream.synchronize()
    if recorder_ends:
        # Once, at the end: a copy per batch cost 1.2 MB a batch on 100k nodes, which made
        # recorded searches at batch 1 of long chains run for minutes.
        recorder.take(state)
    counters = Counters(
        iterations=int(state[C_ITER]),
        phases=int(state[C_PHASE]),
        host_syncs=host_syncs,
        # a recorded search counts in its frame rows (kernel finish_batch)
        edges_relaxed=int(state[C_REDGES if recorder else C_EDGES]),
        improving_relaxations=int(state[C_RIMPROVED if recorder else C_IMPROVED]),
        far_compactions=int(state[C_COMPACT]),
        duplicates_dropped=int(state[C_DUPS]),
        stale_dropped=int(state[C_STALE]),
        pile_rebuilds=int(state[C_REBUILDS]),
        queue_items=int(state[C_QUEUED]),
        held_back=int(state[C_HELD]),
        bucket_sorts=int(state[C_SORTS]),
    )
    settled_below = int(state[C_LO]) if state[C_DONE] == 2 else inf
    return out, counters, settled_below


class _RecordingBlock:
    """A recorded search's device memory for what each batch adds to its `Recording`, laid
    out so that one copy a batch brings back the control block, the batch's frame rows and
    its bucket sizes, all finished by one launch of kernel ``finish_batch`` behind the batch:

    ``ctl | frame rows | sizes by iteration`` (copied) ``| the search kernel's bucket rows
    (a batch's changes, the sizes now, a phase end's count) | the sizes after the last
    batch``, a row per iteration of a batch. The kernels zero what the next batch adds to.
    Before, the host waited for the control block and then launched and copied the sizes:
    each step costs a GPU machine's host 5-10 µs (bench/NOTES.md)."""

    def __init__(self, spec: RunSpec):
        cp = _backend.cupy()
        batch = self.batch = spec.batch_size
        self.bins = BUCKET_BINS if spec.has_buckets else 0
        #: where the frame rows and the sizes by iteration start, and the part copied
        self.rows_at, self.sizes_at = C_SLOTS, C_SLOTS + batch * ROW_FIELDS
        self.copied = self.sizes_at + batch * self.bins
        self.memory = cp.zeros(self.copied + (batch + 3) * self.bins, dtype=np.int64)
        self.ctl = self.memory[:C_SLOTS].view(np.uint64)  # kernel search_init fills it
        self.frames = self._rows(self.memory, self.rows_at, ROW_FIELDS)
        #: Δ-stepping and bucketing: the search kernel's bucket rows, and the (changes,
        #: sizes after the last batch, sizes by iteration) of kernel finish_batch
        self.changes = self.sums = None
        if self.bins:
            ahead = self.memory[self.copied :].reshape(-1, BUCKET_BINS)
            self.changes = ahead[: batch + 2]
            by_iteration = self._rows(self.memory, self.sizes_at, self.bins)
            self.sums = (self.changes, ahead[batch + 2], by_iteration)

    def _rows(self, memory, start: int, width: int):
        """``batch`` rows of ``width`` columns from ``start`` of ``memory`` (the block on the
        device, or its copied part on the host)."""
        return memory[start : start + self.batch * width].reshape(self.batch, width)

    def queue(self, pile_cap: int) -> np.ndarray:
        """Queue the finish of the batch that was just launched and the copy of its control
        block, frame rows and bucket sizes into fresh page-locked memory; return that
        memory (`take` reads it once the stream got there)."""
        finish_batch(self.frames, self.ctl, pile_cap, self.sums)
        return self.memory[: self.copied].get(
            out=_backend.pinned_empty(self.copied, np.int64), blocking=False
        )

    def take(self, host: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """The batch's control block, frame rows and bucket sizes (or None) in ``host``."""
        state = host[:C_SLOTS].view(np.uint64)
        k = int(state[C_ITER] - state[C_RFROM])
        bins = self._rows(host, self.sizes_at, self.bins)[:k] if self.bins else None
        return state, self._rows(host, self.rows_at, ROW_FIELDS)[:k], bins


class _Recorder:
    """A recorded search's batches on their way into its `Recording`: each batch's frame
    rows wait here until the node stamps are copied (at the end, or after each batch of a
    stream), since the rows' node counts come from the stamps. On a small city (Porto
    Alegre, a millisecond a search) the host's steps were a third of what recording cost
    (bench/NOTES.md)."""

    def __init__(self, rec, reached_at, near_at, ends):
        self.rec, self.reached_at, self.near_at, self.ends = rec, reached_at, near_at, ends
        #: (frame rows, bucket sizes or None) of each batch not recorded yet, on the host
        self.batches: list[tuple[np.ndarray, np.ndarray | None]] = []
        #: the stamps' counts by iteration (device, rows of `width`) and where they are
        #: taken (page-locked), and the relax log's used slots (page-locked)
        self.counts = self.taken = self.slots = None
        self.width = 0
        #: where kernels write the recording's stamps (`search.sssp` made them page-locked)
        self.stamps_at = _backend.host_pointer(rec.stamps)

    def end(self, relax_log, width: int, *, if_done: bool) -> tuple:
        """Kernel ``finish_search``'s arguments that take the stamps into the recording's
        page-locked memory, and the relax log's slots and the stamps' counts into this
        recorder's (``width``: at least the iterations done then, plus one)."""
        if not if_done or self.counts is None or self.counts.shape[0] < 3 * width + 1:
            # Queued behind every long batch the kernel counts once, so the counts grow by
            # doubling; a stream counts after every batch. (The slot after the three rows
            # counts the kernel's blocks that finished.)
            if if_done and self.counts is not None:
                width = max(width, 2 * self.width)
            self.width = width
            self.counts = _backend.cupy().zeros(3 * width + 1, dtype=np.int64)
            self.taken = _backend.pinned_empty(3 * width, np.int64)
            self.taken_at = _backend.host_pointer(self.taken)
        if not if_done or self.slots is None or self.slots.size < relax_log.size:
            # (a stream's recording keeps each batch's slots)
            self.slots = _backend.pinned_empty(relax_log.size, np.int32)
            self.slots_at = _backend.host_pointer(self.slots)
        return (
            *(self.reached_at, self.near_at, self.ends, self.stamps_at),
            *(self.counts, np.int32(self.width), relax_log, self.slots_at, self.taken_at),
        )

    def take(self, state: np.ndarray) -> None:
        """Add the stamps that kernel ``finish_search`` wrote (the stream has got there) to
        the recording, and their counts to the waiting rows."""
        rec = self.rec
        width = int(state[C_ITER]) + 1
        counts = self.taken[: 3 * width].reshape(3, width)
        np.cumsum(counts, axis=1, out=counts)  # the nodes reached, near and settled by each
        # The waiting batches' rows (copied with the batches' synchronisations) as one
        # table, in fresh memory.
        batches, self.batches = self.batches, []
        rows = np.concatenate([r[:, : len(FRAME_FIELDS)] for r, _ in batches])
        bins = None if batches[0][1] is None else [b for _, b in batches]
        count_rows(rows, counts, done=int(state[C_DONE]), buckets=bins)
        rec.append(rows, bins)
        rec.take_relax_slots(self.slots[: int(state[C_LOGPOS])])


#: Kernel ``finish_search``'s arguments of a search not recorded (or recorded by a stream).
_NO_STAMPS = (0, 0, 0, 0, 0, np.int32(0), 0, 0, 0)


def _finish_search(dist, dtype: np.dtype, out_at, ctl, if_done: bool, stamps=None) -> None:
    """Queue kernel ``finish_search``: the distances as ``int64`` (`UNREACHABLE` where
    unreached) into the page-locked memory at ``out_at`` (0: not taken), and ``stamps``, a
    recording's arguments (`_Recorder.end`); with ``if_done``, only once the control block
    ``ctl`` says the search finished."""
    n = dist.size
    args = (dist, np.int64(n), np.int64(UNREACHABLE), out_at, ctl, np.int32(if_done))
    _launch_elementwise("finish_search", dtype, n, (*args, *(stamps or _NO_STAMPS)))


def _async_threads(spec: RunSpec) -> int:
    """Threads of each asynchronous block for the search of ``spec``."""
    wide = spec.delta >= ASYNC_WIDE * spec.graph.auto_delta()
    return ASYNC_WIDE_BLOCK if wide else ASYNC_BLOCK


def _async_blocks() -> int:
    """Blocks of the asynchronous launch: one a multiprocessor, each with its ring."""
    return min(_backend.multiprocessor_count(), ASYNC_MAX_BLOCKS)


def _held_bytes(blocks: int, capacity: int) -> int:
    """Bytes of the asynchronous blocks' held lists (two of ``capacity`` 16-byte entries a
    block) and of their board (three least distances, a spare, two counts a block)."""
    return blocks * 2 * capacity * 16 + 32 + 8 * blocks


def _sub_band(spec: RunSpec, given: int | None) -> int:
    """The asynchronous blocks' sub-band width, a multiple of Davidson's Δ: ``given``, else
    ASYNC_SUB_WIDTH where a band may be wider than ASYNC_SUB × Davidson's Δ, else 0 (whole
    bands)."""
    if given is not None:
        return given
    return ASYNC_SUB_WIDTH if spec.rule.high > ASYNC_SUB * spec.graph.auto_delta() else 0


def _frontier_size(state: np.ndarray) -> int:
    """Entries of the frontier a launch left in global memory, from its control block."""
    return int(state[C_CNT0 + int(state[C_ITER]) % 3])


def _arg(array):
    """A kernel argument for an optional array: a null pointer when it is absent."""
    return 0 if array is None else array


def _launch_elementwise(kernel: str, dtype: np.dtype, n: int, args: tuple) -> None:
    """Launch the grid-stride kernel ``kernel<D>`` over ``n`` nodes."""
    _launch_over(_name_of(kernel, dtype), n, args)


def finish_batch(frames, ctl, pile_cap: int, sums=None) -> None:
    """Finish the frame rows (CuPy, ``ROW_FIELDS`` columns) of the batch that just ran, all
    but their node counts, from where the control block ``ctl`` says the last batch's ended;
    ``pile_cap`` is the far pile's capacity (a row shows at most that many entries, as it
    holds). ``sums`` is Δ-stepping's and bucketing's ``(table, sizes, out)`` (CuPy,
    ``BUCKET_BINS`` columns): the rows of ``table``, changes of the bucket sizes, become the
    sizes from ``sizes`` in the rows of ``out`` and are zeroed; ``sizes`` then gets the last
    row's. The batch's rows are the iterations since ``ctl[C_RFROM]`` (kernel
    ``finish_batch``)."""
    table, sizes, out = sums or (0, 0, 0)
    grid = 1 + (BUCKET_BINS // 32 if sums else 0)
    args = (frames, ctl, np.int64(pile_cap), table, sizes, out)
    _function("finish_batch")((grid,), (32, SUM_RUNS), args)


def _launch_over(name: str, n: int, args: tuple) -> None:
    """Launch the grid-stride kernel ``name`` over ``n`` nodes."""
    blocks = max(1, min(-(-n // BLOCK), 4 * _backend.multiprocessor_count()))
    _function(name)((blocks,), (BLOCK,), args)


@functools.cache
def _function(name: str):
    """A kernel of the module by name expression, looked up once."""
    return _module().get_function(name)


def _scopes(scope: str | None) -> tuple[str, ...]:
    if scope is None:
        return _available()
    if scope not in SCOPES:
        msg = f"unknown scope {scope!r}; known: {', '.join(SCOPES)}"
        raise ValueError(msg)
    if scope == "cluster" and not clusters_available():
        msg = "the cluster scope needs a GPU of compute capability 9.0 or later"
        raise ValueError(msg)
    return (scope,)


def _next_scope(current: str, size: int) -> str:
    """The scope of the next batch, given the frontier size the last one ended with."""
    if current == "cluster":
        return "grid" if size > CLUSTER_MAX else "cluster"
    return "cluster" if size < GRID_MIN else "grid"


def _initial_row(spec: RunSpec) -> np.ndarray:
    inf = int(np.iinfo(spec.dtype).max)
    values = dict.fromkeys(FRAME_FIELDS, 0)
    values |= {"phase": 1, "hi": frame_threshold(spec.initial_hi(inf)), "reached": 1, "neared": 1}
    values["delta"] = frame_threshold(spec.delta)
    return np.array([[values[k] for k in FRAME_FIELDS]], dtype=np.int64)


def _initial_buckets() -> np.ndarray:
    bins = np.zeros((1, BUCKET_BINS), dtype=np.int64)
    bins[0, 0] = 1
    return bins
