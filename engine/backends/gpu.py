"""Launcher of the CUDA frontier kernels (engine/backends/kernels/frontier.cu) through CuPy.

The graph is uploaded once and kept on the device for as long as the `CSRGraph` lives.
Each launch runs up to ``batch_size`` iterations; the host then reads the control block (one
synchronisation per batch) and, when recording, the frame rows of that batch, finished on
the GPU but for their node counts, which it adds once it takes the node stamps (at the end,
or after each batch of a stream). The search's end (the int64 distances, a recording's
stamps) is written by a kernel straight into the host's page-locked memory, queued behind
each long batch on the chance that it finished the search.

Each graph and contraction is on the device once (`engine.backends.gpu_memory`).

A batch runs at one of two scopes. Small frontiers, the usual case on road graphs, run on
one thread-block cluster (Hopper and later: a hardware barrier, frontiers in distributed
shared memory); large ones run on the whole GPU (a cooperative launch with ``grid.sync()``).
A batch ends early when its frontier leaves the scope's range, and the next batch runs at
the other scope.

``near_far_async`` (Hopper and later) runs first as one cooperative launch of
``frontier_async``: phases without a barrier per iteration, on work rings in the shared
memory of one block per multiprocessor, wide bands in sub-bands whose later nodes wait in
the blocks' held lists, dealt over the blocks at each sub-band's start. It finishes the
search, or hands over to the batches above when a ring and its held list fill. Recorded, it
is recorded by phase (`engine.backends.gpu_rows.record_phases`); a recorded search that
would hand over, or a GPU without clusters, runs the synchronous twin recorded by iteration
instead, from which the recording by phase is made as on the CPU.

``phast``'s one tree, not recorded, on a hierarchy whose core takes a table of every pair
(`gpu_memory.CORE_TABLE_NODES`), is one cooperative launch of ``phast_tree``
(`phast_tree`): the climb from the source level by level in one block, the core from the
table, the sweep down, the distances into the host's memory, the last level swept as they
are written. Otherwise it searches like ``near_far_async``, one band, and sweeps
(``sweep_down``) as ``near_far_core`` does.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

import numpy as np

from engine._errors import GPUMemoryError
from engine.backends import device as _backend
from engine.backends import gpu_kernels, gpu_memory
from engine.backends.contract import (
    ASYNC_BLOCK,
    ASYNC_MAX_BLOCKS,
    ASYNC_PARAMS,
    ASYNC_SHARED_BYTES,
    ASYNC_WIDE_BLOCK,
    CLIMB_LEVELS,
    CLUSTER,
    CLUSTER_BLOCK,
    CLUSTER_SHARED_BYTES,
    CONTROL_SLOTS,
    ENTRY,
    QUEUE_CAPACITY,
    RING_CAPACITY,
    SEARCH_PARAMS,
    STAGE_CAPACITY,
    Control,
    kernel_args,
)
from engine.backends.cpu import record_by_phase
from engine.backends.gpu_kernels import (
    BLOCK,
    SCOPES,
    available_scopes,
    clusters_available,
    finish_search,
    grid_size,
    launch_elementwise,
    records_of,
    search_kernel,
)
from engine.backends.gpu_rows import (
    Recorder,
    RecordingBlock,
    initial_buckets,
    initial_row,
    record_phases,
)
from engine.graphs.csr import UNREACHABLE, CSRGraph
from engine.methods import METHODS, SEGMENTS, Counters, RunSpec
from engine.recording import PHASE_FIELDS, Recording

#: Batches of at least this many iterations queue the search's end behind them (kernel
#: ``finish_search``, which does nothing until the control block says the search finished,
#: then writes the distances and a recording's stamps straight into the host's memory), so
#: that its host steps run while the batch does. A batch this long outlasts the launch; a
#: shorter one would wait for it.
END_AHEAD_BATCH = 16
#: Asynchronous blocks of ASYNC_WIDE_BLOCK threads (`engine.backends.contract`) run bands
#: from ASYNC_WIDE × Davidson's Δ on, of ASYNC_BLOCK below. Twice the warps drain a wide
#: band's ring sooner (PACE NE at 8 × 11.9 → 7.8 ms) but cost a narrow one's chains (+0.8 ms
#: at 1 ×); they cross at 3–4 × on every PACE graph (decisions/0063).
ASYNC_WIDE = 4
#: A band wider than ASYNC_SUB × Davidson's Δ is taken in sub-bands of ASYNC_SUB_WIDTH × it,
#: in step across the blocks: an improved node beyond the sub-band's end waits in its block's
#: held list (global memory, two of HELD_CAPACITY entries a block) until every ring drains,
#: and so does an entry that finds its ring full; each sub-band's entries are dealt over the
#: blocks. On its rings a wide band relaxed each node once for every improvement, in the order
#: they came (PACE NE at 16 × 15.5 ms against 9.4 for near_far), and sub-bands each block
#: took on its own waited on the busiest block (decisions/0066).
ASYNC_SUB, ASYNC_SUB_WIDTH, HELD_CAPACITY = 4, 4, 8192
#: A cluster batch ends once the frontier exceeds CLUSTER_MAX entries; a grid batch ends once
#: it falls below GRID_MIN (decisions/0006 has the measurements behind both).
CLUSTER_MAX, GRID_MIN = 8192, 2048


def prepare(graph: CSRGraph, spec: RunSpec) -> float:
    """Upload the graph and compile the kernel if not done yet; return the seconds spent."""
    start = time.perf_counter()
    if graph.n_arcs >= 2**31:
        msg = f"{graph.name} has {graph.n_arcs:,} arcs; the GPU kernels take fewer than 2^31"
        raise GPUMemoryError(msg)
    required = gpu_memory.required_bytes(graph, spec.dtype, recording=spec.recording is not None)
    if spec.method.asynchronous:
        required += _held_bytes(_async_blocks(), HELD_CAPACITY)
        if spec.recording is not None:  # a row a phase, each node's sweep step
            required += 8 * len(PHASE_FIELDS) * (graph.n_nodes + 1) + 4 * graph.n_nodes
    if spec.contraction is not None:  # the sweep's arcs (and each node's own) and chunks
        required += (spec.contraction.n_down + spec.contraction.order.size) * 20
    if tree_by_table(spec):  # the climb's levels and lists, and the core's table
        required += 12 * graph.n_nodes + spec.contraction.n_core**2 * spec.dtype.itemsize
    gpu_memory.device_graph(graph, required)
    gpu_memory.uploads[graph].arcs(graph, spec.split if spec.light_heavy else None)
    if spec.contraction is not None:
        gpu_memory.device_sweep(spec.contraction)
    if tree_by_table(spec):
        gpu_memory.device_climb(spec.contraction)
        gpu_memory.core_table(spec.contraction, spec.dtype)
    gpu_kernels.module()  # compiled before the search is timed
    _backend.cupy().cuda.Device().synchronize()
    return time.perf_counter() - start


def tree_by_table(spec: RunSpec) -> bool:
    """Whether kernel ``phast_tree`` makes the tree of ``spec``: method phast's one tree,
    not recorded, on a hierarchy whose core takes a table (`gpu_memory.CORE_TABLE_NODES`)
    and whose levels, the core's with them, the climb keeps in shared memory
    (`CLIMB_LEVELS`)."""
    c = spec.contraction
    return (
        spec.method.contraction == "hierarchy"
        and spec.recording is None
        and c.n_core <= gpu_memory.CORE_TABLE_NODES
        and c.n_rounds + 1 <= CLIMB_LEVELS
    )


def phast_tree(spec: RunSpec):
    """Method phast's one tree in one launch of kernel ``phast_tree`` (`tree_by_table`);
    the same return as `run`."""
    cp = _backend.cupy()
    graph, c, dtype = spec.graph, spec.contraction, spec.dtype
    n = graph.n_nodes
    dev = gpu_memory.uploads[graph]
    levels, n_levels, firsts, heads, tails, weights = gpu_memory.device_sweep(c)
    level_of, starts, rank, core_nodes, bottom, bottom_at = gpu_memory.device_climb(c)
    table = gpu_memory.core_table(c, dtype)
    dist = cp.empty(n, dtype=dtype)
    lists = cp.empty(n, dtype=np.int32)
    counts = cp.empty(4, dtype=np.uint32)  # the core's entries; the climb's arcs (8 bytes)
    out = _backend.pinned_empty(n, np.int64)
    tally = _backend.pinned_empty(2, np.uint64)
    args = (
        dist, np.int64(n), np.int64(spec.source), level_of, starts, lists, counts,
        dev.indptr, dev.indices, dev.weights, rank, core_nodes, np.int32(c.n_core),
        0 if table is None else table, levels, n_levels, firsts, heads, tails, weights, bottom,
        0 if bottom_at is None else bottom_at, _backend.host_pointer(out), np.int64(UNREACHABLE),
        _backend.host_pointer(tally),
    )  # fmt: skip
    launch_elementwise("phast_tree", dtype, n, args)
    cp.cuda.get_current_stream().synchronize()
    counters = Counters(
        phases=1,
        host_syncs=1,
        # the climb's arcs, and the table's entries read for each core node reached
        edges_relaxed=int(tally[0]) + int(tally[1]) * c.n_core,
    )
    return out, counters, int(np.iinfo(dtype).max)


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
    if tree_by_table(spec):
        return phast_tree(spec)
    cp = _backend.cupy()
    graph, dtype, rec = spec.graph, spec.dtype, spec.recording
    synchronous = dict(pile_capacity=pile_capacity, blocks=blocks, scope=scope,
                       queue_capacity=queue_capacity, stage_capacity=stage_capacity)  # fmt: skip
    asynchronous = spec.method.asynchronous and clusters_available()
    by_phase = rec is not None and spec.method.recorded_by_phase
    if by_phase and not asynchronous:
        return _twin_by_phase(spec, on_batch, synchronous)
    dev = gpu_memory.uploads[graph]
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
    by_iteration = rec is not None and not by_phase
    near_at = cp.empty(n, dtype=np.int32) if spec.light_heavy or by_iteration else None
    reached_at = cp.empty(n, dtype=np.int32) if rec is not None else None
    # The relax log grows between batches; a batch ends early rather than overflow it. Each
    # near entry relaxed takes the next slot (-1 for an entry without arcs, dropped
    # when the recording's log is first read).
    relax_log = cp.empty(max(4 * n, 1024), dtype=np.int32) if by_iteration else None
    # The iteration that ended each phase (a phase settles at least one node: n + 1 at most).
    ends = cp.empty(n + 2, dtype=np.int32) if by_iteration else None
    # Recorded by phase: a row a phase (n at most).
    phase_rows = cp.empty((n + 1) * len(PHASE_FIELDS), dtype=np.int64) if by_phase else None
    recorder = block = None
    if by_iteration:
        block = RecordingBlock(spec)
        recorder = Recorder(rec, reached_at, near_at, ends)
        rec.append(initial_row(spec), initial_buckets() if spec.has_buckets else None)
    ctl_dev = cp.empty(CONTROL_SLOTS, dtype=np.uint64) if block is None else block.ctl
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
            sweep = (*gpu_memory.device_sweep(spec.contraction), ctl_dev, np.int32(if_done))
            arcs = spec.contraction.n_down + spec.contraction.order.size  # with their own
            launch_elementwise("sweep_down", dtype, arcs, (dist, *sweep))
        finish_search(dist, dtype, 0 if streamed else out_at, ctl_dev, if_done, stamps)

    scalar = dtype.type
    launch_elementwise(
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

    values = dict(
        indptr=dev.indptr, light_end=light_end, arcs=dev.arcs(graph, split), dist=dist,
        front0=fronts[0], front1=fronts[1], pile0=piles[0], pile1=piles[1], pile_cap=cap,
        band=band, mark=mark, store=store, seg=seg, reached_at=reached_at, near_at=near_at,
        relax_log=relax_log, log_cap=0 if relax_log is None else relax_log.size, ctl=ctl_dev,
        frames=phase_rows if block is None else block.frames,
        buckets=None if block is None else block.changes, ends=ends, n=n,
        delta_low=rule.low, delta_high=rule.high, phase_cost=rule.phase_cost or 1,
        target=-1 if spec.target is None else spec.target, light_heavy=spec.light_heavy,
        lanes_log2=dev.lanes_log2, batch=spec.batch_size,
    )  # fmt: skip
    made: dict[str, tuple] = {}  # each scope's arguments, made once (again if the log grows)

    def args_of(kind: str, **more) -> tuple:
        if kind not in made:
            params = ASYNC_PARAMS if kind == "async" else SEARCH_PARAMS
            made[kind] = kernel_args(params, {**values, **more}, dtype)
        return made[kind]

    scopes = _scopes(scope)
    switching = len(scopes) == 2
    records = records_of(spec, by_iteration)
    grid = blocks or grid_size(search_kernel("grid", dtype, records, spec.method.bucketed))
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
    while state is None or not state[Control.DONE]:
        # (read before the batch's copy, which may land in the same page-locked block)
        done_before = 0 if state is None else int(state[Control.ITER])
        if relax_log is not None:
            used = 0 if state is None else int(state[Control.LOGPOS])
            if used + size > relax_log.size:  # room for the next frontier, and then some
                grown = cp.empty(max(2 * relax_log.size, used + size + n), dtype=np.int32)
                grown[:used] = relax_log[:used]
                relax_log = grown
                values.update(relax_log=relax_log, log_cap=relax_log.size)
                made.clear()
        if asynchronous and state is None:
            blocks_async = _async_blocks()
            held = cp.empty(_held_bytes(blocks_async, held_capacity), dtype=np.uint8)
            width = min(_sub_band(spec, async_sub) * graph.auto_delta(), inf)
            args = args_of("async", leave_below=-1, leave_above=2**62, qcap=ring_capacity,
                           fcap=stage_capacity, held=held, held_cap=held_capacity,
                           sub_width=width)  # fmt: skip
            search_kernel("async", dtype)(
                (blocks_async,),
                (async_threads or _async_threads(spec),),
                args,
                shared_mem=ASYNC_SHARED_BYTES,
            )
            ended = True  # it mostly finishes the search (after a full ring, batches go on)
        else:
            if switching:
                current = _next_scope(current, size)
            n_blocks, threads, shared, below, above = launch[current]
            args = args_of(current, leave_below=below, leave_above=above, qcap=queue_capacity,
                           fcap=stage_capacity)  # fmt: skip
            search_kernel(current, dtype, records, spec.method.bucketed)(
                (n_blocks,), (threads,), args, shared_mem=shared
            )
            ended = ahead
        if out is None:
            out = _backend.pinned_empty(n, np.int64)
            out_at = _backend.host_pointer(out)
            if block is None:
                ctl_host = _backend.pinned_empty(CONTROL_SLOTS, np.uint64)
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
            if by_phase and not state[Control.DONE]:  # it would hand over
                return _twin_by_phase(spec, on_batch, synchronous)
        else:
            state, rows, bins = block.take(host)
            recorder.batches.append((rows, bins))
            if on_batch is not None:  # a stream sees each batch's node states
                end(False, int(state[Control.ITER]) + 1, streamed=True)
                stream.synchronize()
                recorder.take(state)
                on_batch()
        host_syncs += 1
        size = _frontier_size(state)
    if not ended:
        end(False, int(state[Control.ITER]) + 1)
    stream.synchronize()
    if recorder_ends:
        # Once, at the end: a copy per batch cost 1.2 MB a batch on 100k nodes, which made
        # recorded searches at batch 1 of long chains run for minutes.
        recorder.take(state)
    if by_phase:
        c = spec.contraction
        record_phases(spec, state, dist, reached_at, phase_rows, c and gpu_memory.device_steps(c))
        if on_batch is not None:
            on_batch()
    counters = Counters(
        iterations=int(state[Control.ITER]),
        phases=int(state[Control.PHASE]),
        host_syncs=host_syncs,
        # a recorded search counts in its frame rows (kernel finish_batch)
        edges_relaxed=int(state[Control.REDGES if recorder else Control.EDGES]),
        improving_relaxations=int(state[Control.RIMPROVED if recorder else Control.IMPROVED]),
        far_compactions=int(state[Control.COMPACT]),
        duplicates_dropped=int(state[Control.DUPS]),
        stale_dropped=int(state[Control.STALE]),
        pile_rebuilds=int(state[Control.REBUILDS]),
        queue_items=int(state[Control.QUEUED]),
        held_back=int(state[Control.HELD]),
        bucket_sorts=int(state[Control.SORTS]),
    )
    settled_below = int(state[Control.LO]) if state[Control.DONE] == 2 else inf
    return out, counters, settled_below


def _twin_by_phase(spec: RunSpec, on_batch, options: dict):
    """Record an asynchronous search by phase from its synchronous twin recorded by
    iteration (as the CPU does): on a GPU without clusters, and where the asynchronous
    kernel would hand over to batches (a ring and its held list full), whose iterations a
    recording by phase cannot show."""
    rec = spec.recording
    stamps = _backend.pinned_empty(3 * rec.n_nodes, np.int32).reshape(3, rec.n_nodes)
    iterations = Recording(rec.n_nodes, delta=rec.delta, with_buckets=False, stamps=stamps)
    twin = dataclasses.replace(spec, method=METHODS["near_far"], recording=iterations)
    dist, counters, settled_below = run(twin, None, **options)
    inf = int(np.iinfo(spec.dtype).max)
    record_by_phase(rec, spec, iterations, dist, done=settled_below >= inf)
    if on_batch is not None:
        on_batch()
    return dist, counters, settled_below


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
    return int(state[Control.CNT0 + int(state[Control.ITER]) % 3])


def _arg(array):
    """A kernel argument for an optional array: a null pointer when it is absent."""
    return 0 if array is None else array


def _scopes(scope: str | None) -> tuple[str, ...]:
    if scope is None:
        return available_scopes()
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
