"""GPU memory of the searches: each graph's arrays and each contraction's sweep, climb,
core table and steps uploaded once and kept on the device for as long as the graph or the
contraction lives, and a search's needs checked against the memory free. The launchers
(`engine.backends.gpu`, `gpu_many`) take them from here.
"""

from __future__ import annotations

import weakref

import numpy as np

from engine import contraction
from engine._errors import GPUMemoryError
from engine.backends import device as _backend
from engine.backends.contract import ARC_BYTES, ENTRY
from engine.backends.gpu_kernels import launch_elementwise
from engine.contraction import Contraction
from engine.graphs.csr import CSRGraph

uploads: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_sweeps: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_climbs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_tables: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_steps: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

#: A core of at most this many nodes takes a table of every pair (`core_table`: 256 MB at 32
#: bits, made once by Floyd and Warshall: PACE NE's 4,082 nodes in 0.2 s on an H200, this
#: many about eight times that), from which method phast's one tree (kernel ``phast_tree``)
#: and many trees (kernel ``phast_core``) take the core's distances; a larger core is
#: searched (the 16M-node city's 340,331).
CORE_TABLE_NODES = 8192


class DeviceGraph:
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
    # NumPy's percentile (linear) from the degrees' counts: its partition of a 16M-node
    # city's degrees took 0.28 s of a first search (decision 0110).
    at = 0.99 * (degree.size - 1)
    below = np.cumsum(np.bincount(degree))
    lo, hi = np.searchsorted(below, [np.floor(at), np.ceil(at)], side="right")
    p99 = max(int(lo + (hi - lo) * (at - np.floor(at))), 1)
    return min(int(np.ceil(np.log2(p99))), 5)


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


def device_graph(graph: CSRGraph, required: int) -> DeviceGraph:
    """The graph on the device, uploaded once (``required`` bytes must be free then)."""
    if graph not in uploads:
        check_fits(required, _backend.free_gpu_memory())
        uploads[graph] = DeviceGraph(graph)
    return uploads[graph]


def device_sweep(c: Contraction) -> tuple:
    """Kernel ``sweep_down``'s arguments for the contraction ``c``, made on the device
    once (`contraction.ranked_down`, `gpu_phast.chunks` with CuPy): its levels' chunks of
    arcs down, heads and tails as nodes."""
    if c not in _sweeps:
        from engine.backends.gpu_phast import chunks

        cp = _backend.cupy()
        nodes, starts, ptr, tails, weights = contraction.ranked_down(c, xp=cp)
        levels, firsts, heads, tails, weights = chunks(
            ptr, tails, weights, starts, names=nodes.astype(np.int32), xp=cp
        )
        _sweeps[c] = (levels, np.int32(starts.size - 1), firsts, heads, tails, weights)
    return _sweeps[c]


def device_climb(c: Contraction) -> tuple:
    """Kernel ``phast_tree``'s climb, core and last level arguments for ``c`` (uploaded
    once): each node's level (``int32``; 0 the core), the levels' rank ranges (``int64``),
    each node's rank (a core node's is its row of the table), the node of each core rank,
    and the last level the kernel sweeps as it writes the distances out: its first rank
    (n where the hierarchy has no level below its top) and each of its ranks' first arc in
    `device_sweep`'s chunks, and one more (``int64``; None where no level is)."""
    if c not in _climbs:
        from engine.backends.gpu_phast import arc_starts

        cp = _backend.cupy()
        lv = contraction.levels(c)
        bottom, at = lv.rank.size, None
        if lv.n_levels > 1:
            bottom = int(lv.starts[-2])
            at = cp.asarray(arc_starts(lv.down_ptr)[bottom:])
        _climbs[c] = (
            cp.asarray(lv.level[lv.rank]),
            cp.asarray(lv.starts),
            cp.asarray(lv.rank.astype(np.int32)),
            cp.asarray(lv.nodes[: c.n_core].astype(np.int32)),
            np.int64(bottom),
            at,
        )
    return _climbs[c]


def core_table(c: Contraction, dtype: np.dtype):
    """The distances between ``c``'s core nodes through the core (a row a core rank, of
    ``dtype``, its maximum where none), made once on the GPU by Floyd and Warshall (kernel
    ``core_table_step``) from the core's arcs: the arcs into its ranks from its ranks
    (`contraction.Levels`; a core node's arcs stay in the core); None without a core."""
    key = np.dtype(dtype)
    tables = _tables.setdefault(c, {})
    if key not in tables:
        tables[key] = None
        k = c.n_core
        if k:
            cp = _backend.cupy()
            lv = contraction.levels(c)
            heads = np.repeat(np.arange(k), np.diff(lv.up_ptr[: k + 1]))
            tails, weights = lv.up_tails[: heads.size], lv.up_weights[: heads.size]
            inside = tails < k  # the others climb into the core
            table = np.full((k, k), np.iinfo(key).max, dtype=key)
            np.minimum.at(table, (tails[inside], heads[inside]), weights[inside].astype(key))
            np.fill_diagonal(table, 0)
            table = cp.asarray(table)
            for through in range(k):
                launch_elementwise(
                    "core_table_step", key, k * k, (table, np.int64(k), np.int64(through))
                )
            tables[key] = table
    return tables[key]


def device_steps(c: Contraction):
    """Each node's sweep step on the device (`engine.contraction.sweep_steps`), made once."""
    if c not in _steps:
        _steps[c] = _backend.cupy().asarray(contraction.sweep_steps(c))
    return _steps[c]
