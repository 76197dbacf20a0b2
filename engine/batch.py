"""Many queries at once: distance matrices from many sources (`many_to_many`).

Sources are processed in chunks whose rows fit a memory bound, and each chunk is handed to
``on_chunk`` as it finishes, so a matrix larger than memory can be streamed to disk. The
distances equal SciPy's Dijkstra (``int64``, `UNREACHABLE` where a source cannot reach).

Backends: ``dijkstra`` runs SciPy's ``dijkstra(indices=chunk)`` (split over a process pool
when ``workers`` > 1). On the GPU, Near-Far runs
a whole chunk in one launch (`engine._gpu_many`: one thread block per search, each taking
the next source from a device-side queue); other methods run one search per source, on the
CPU (the NumPy twin, over a process pool when ``workers`` > 1) or on the GPU. Repeated
sources are searched once and their rows copied.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from . import _backend, _validate
from ._errors import ParameterError
from .graph import CSRGraph
from .search import DEFAULT_BATCH, _resolve_backend, from_scipy, sssp

#: Memory the matrix of one chunk may take when the caller gives no bound.
DEFAULT_CHUNK_BYTES = 512 * 2**20


@dataclasses.dataclass(frozen=True)
class DistanceMatrix:
    """Distances from ``sources`` (rows) to ``targets`` (columns; every node when None).

    Attributes
    ----------
    sources, targets : numpy.ndarray
        CSR indices (``targets`` is ``arange(n)`` for all nodes).
    dist : numpy.ndarray
        ``int64`` (sources × targets), `UNREACHABLE` where unreachable; empty (0 rows)
        when the chunks went to ``on_chunk`` only.
    edges_relaxed, iterations : numpy.ndarray
        Per source (SciPy's Dijkstra: its arcs relaxed, no iterations).
    method, backend : str
    elapsed_s : float
        Wall time of the whole matrix, chunks and copies included.
    chunks : int
    """

    sources: np.ndarray
    targets: np.ndarray
    dist: np.ndarray
    edges_relaxed: np.ndarray
    iterations: np.ndarray
    method: str
    backend: str
    elapsed_s: float
    chunks: int

    @property
    def trees_per_s(self) -> float:
        return len(self.sources) / self.elapsed_s if self.elapsed_s else float("inf")


def chunk_rows(n_columns: int, memory_bytes: int | None) -> int:
    """How many rows of ``n_columns`` ``int64`` distances fit ``memory_bytes``."""
    bound = DEFAULT_CHUNK_BYTES if memory_bytes is None else int(memory_bytes)
    rows = bound // (8 * max(n_columns, 1))
    if rows < 1:
        msg = (
            f"one row of {n_columns:,} distances needs {8 * n_columns:,} bytes, more than the "
            f"memory bound of {bound:,}; give fewer targets or a larger bound"
        )
        raise ParameterError(msg)
    return rows


def many_to_many(
    graph: CSRGraph,
    sources,
    targets=None,
    *,
    method: str = "near_far",
    backend: str = "auto",
    delta: int | str = "auto",
    batch_size: int = DEFAULT_BATCH,
    memory_bytes: int | None = None,
    workers: int = 1,
    on_chunk: Callable[[np.ndarray, np.ndarray], None] | None = None,
    keep: bool = True,
    keep_on_gpu: bool = False,
) -> DistanceMatrix:
    """Distances from every source to every target (all nodes when ``targets`` is None).

    Parameters
    ----------
    graph : CSRGraph
    sources, targets : sequence of int
        CSR indices; sources may repeat (each is searched once).
    method, backend, delta, batch_size
        As in `sssp`; ``method="dijkstra"`` runs SciPy's Dijkstra on whole chunks.
    memory_bytes : int, optional
        Bound on one chunk's matrix (default `DEFAULT_CHUNK_BYTES`).
    workers : int
        Processes for the CPU searches (1: in this process).
    on_chunk : callable, optional
        Called with (rows, distances) of each chunk as it finishes.
    keep : bool
        Keep the whole matrix in the result (False: only ``on_chunk`` sees it).
    keep_on_gpu : bool
        With the batched GPU kernel, leave the distances on the device (CuPy arrays, for
        the caller to reduce or sample) instead of copying them to the host.
    """
    spec = _validate.method(method)
    resolved = _resolve_backend(backend, spec, graph)
    batched = resolved == "gpu" and spec.name in ("near_far", "near_far_async")
    if keep_on_gpu and not batched:
        msg = "keep_on_gpu needs the GPU backend and near_far (the batched kernel)"
        raise ParameterError(msg)
    rows_of = _validate.nodes(sources, graph, "sources")
    if targets is None:
        columns = np.arange(graph.n_nodes)
    else:
        columns = _validate.nodes(targets, graph, "targets")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        msg = f"workers must be an integer ≥ 1, got {workers!r}"
        raise ParameterError(msg)
    unique, first = np.unique(rows_of, return_inverse=True)
    per_chunk = chunk_rows(columns.size, memory_bytes)
    start = time.perf_counter()
    shape = (len(rows_of), columns.size)
    if keep_on_gpu:
        out = _backend.cupy().empty(shape, dtype=np.int64)
    elif keep and batched:  # page-locked: the chunks come from the GPU straight into it
        out = _backend.pinned_empty(shape[0] * shape[1], np.int64).reshape(shape)
    else:
        out = np.empty(shape, dtype=np.int64) if keep else None
    in_order = bool(np.all(np.diff(rows_of) > 0))  # sorted, unique: chunk rows are contiguous
    step = _validate.delta(delta, graph) if batched else None
    edges = np.zeros(len(unique), dtype=np.int64)
    iterations = np.zeros(len(unique), dtype=np.int64)
    used_backend = resolved
    chunks = 0
    pool = None
    if workers > 1 and not batched:
        pool = ProcessPoolExecutor(workers, initializer=_worker_start, initargs=(graph, columns))
    try:
        for lo in range(0, len(unique), per_chunk):
            block = unique[lo : lo + per_chunk]
            options = dict(method=spec.name, backend=backend, delta=delta, batch_size=batch_size)
            direct = False  # the chunk was copied into its rows of out already
            if spec.name == "dijkstra":
                dist, e = _scipy_chunk(graph, block, columns, pool, workers)
            elif batched:
                from . import _gpu_many

                direct = out is not None and in_order and not keep_on_gpu
                dist, e, it = _gpu_many.rows(
                    graph, block, None if targets is None else columns, delta=step,
                    keep_on_gpu=keep_on_gpu,
                    host_out=out[lo : lo + len(block)] if direct else None,
                )  # fmt: skip
                iterations[lo : lo + len(block)] = it
                used_backend = "gpu"
            else:
                dist, e, it, used_backend = _search_rows(graph, block, columns, options, pool)
                iterations[lo : lo + len(block)] = it
            edges[lo : lo + len(block)] = e
            chunks += 1
            rows = np.flatnonzero((first >= lo) & (first < lo + len(block)))
            pick, place = first[rows] - lo, rows
            if keep_on_gpu:  # the chunk is on the device: so are its indices
                xp = _backend.cupy()
                pick, place = xp.asarray(pick), xp.asarray(rows)
            chunk = dist if direct else dist[pick]
            if out is not None and not direct:
                out[place] = chunk
            if on_chunk is not None:
                on_chunk(rows, chunk)
    finally:
        if pool is not None:
            pool.shutdown()
    return DistanceMatrix(
        sources=rows_of,
        targets=columns,
        dist=out if out is not None else np.zeros((0, columns.size), dtype=np.int64),
        edges_relaxed=edges[first],
        iterations=iterations[first],
        method=spec.name,
        backend=used_backend,
        elapsed_s=time.perf_counter() - start,
        chunks=chunks,
    )


def _scipy_rows(graph: CSRGraph, block: np.ndarray, columns: np.ndarray):
    """SciPy's Dijkstra from the sources ``block``: distances to ``columns``, and the arcs
    it relaxes from each (every reached node's arcs, once)."""
    from scipy.sparse.csgraph import dijkstra

    raw = np.atleast_2d(dijkstra(graph.scipy_matrix(), directed=True, indices=block))
    edges = np.isfinite(raw) @ np.diff(graph.indptr)
    return from_scipy(raw)[:, columns], edges.astype(np.int64)


def _scipy_chunk(graph, block, columns, pool, workers: int):
    """`_scipy_rows` of a chunk, split over the pool's ``workers`` when there is one."""
    if pool is None:
        return _scipy_rows(graph, block, columns)
    parts = [part for part in np.array_split(block, workers) if part.size]
    results = list(pool.map(_scipy_part, parts))
    return np.concatenate([r[0] for r in results]), np.concatenate([r[1] for r in results])


def _scipy_part(part: np.ndarray):
    return _scipy_rows(_WORK["graph"], part, _WORK["columns"])


#: The graph and the target columns of a worker process, set once by `_worker_start`.
_WORK: dict = {}


def _worker_start(graph: CSRGraph, columns: np.ndarray) -> None:
    _WORK.update(graph=graph, columns=columns)


def _one(source: int, options: dict, graph=None, columns=None):
    graph = _WORK["graph"] if graph is None else graph
    columns = _WORK["columns"] if columns is None else columns
    r = sssp(graph, int(source), **options)
    return r.distances[columns], r.counters.edges_relaxed, r.counters.iterations, r.backend


def _search_rows(graph, block, columns, options, pool):
    if pool is None:
        results = [_one(s, options, graph, columns) for s in block]
    else:  # the graph and the columns went to each worker once, at its start
        results = list(pool.map(_one, block, [options] * len(block)))
    dist = np.stack([r[0] for r in results])
    edges = np.array([r[1] for r in results], dtype=np.int64)
    iterations = np.array([r[2] for r in results], dtype=np.int64)
    return dist, edges, iterations, results[0][3]


def default_workers() -> int:
    """The cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
