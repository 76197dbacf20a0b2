"""Many queries at once: distance matrices from many sources (`many_to_many`).

Sources are processed in chunks whose rows fit a memory bound, and each chunk is handed to
``on_chunk`` as it finishes, so a matrix larger than memory can be streamed to disk. The
distances equal SciPy's Dijkstra (``int64``, `UNREACHABLE` where a source cannot reach).

Backends: ``dijkstra`` runs SciPy's ``dijkstra(indices=chunk)`` (split over a process pool
when ``workers`` > 1). On the GPU, Near-Far runs
a whole chunk in one launch (`engine.backends.gpu_many`: one thread block per search, each taking
the next source from a device-side queue), and so does PHAST (`engine.backends.gpu_phast`: the
trees of a group of sources a cluster of blocks, level by level of the graph's contraction
hierarchy); other methods run one search per source, on the
CPU (the NumPy twin, over a process pool when ``workers`` > 1) or on the GPU. Repeated
sources are searched once and their rows copied.

With targets, the batched GPU searches stop once every target of theirs is final. With
``predecessors``, each source's whole shortest-path tree comes back as well: from the
batched kernel's packed words (distance and parent replaced together, 32-bit distances),
elsewhere from the distances (`engine.search.shortest_path_tree`).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np

from engine import _validate
from engine._errors import GPUMemoryError, ParameterError
from engine.backends import device as _backend
from engine.graphs.csr import CSRGraph
from engine.methods import names
from engine.search import DEFAULT_BATCH, _resolve_backend, from_scipy, shortest_path_tree, sssp

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
        Per source (SciPy's Dijkstra: its arcs relaxed, no iterations). A search that stops
        at its targets counts only the arcs it relaxed.
    method, backend : str
    elapsed_s : float
        Wall time of the whole matrix, chunks and copies included.
    chunks : int
    predecessors : numpy.ndarray or None
        With ``predecessors=True``: ``int64`` (sources × all nodes), each node's parent in
        its source's shortest-path tree, -1 at the source and where unreachable.
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
    predecessors: np.ndarray | None = None

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


def plan(graph: CSRGraph, method: str, backend: str) -> tuple[str, bool]:
    """The backend `many_to_many` resolves for ``method``, and whether its chunks run in one
    launch of the batched GPU kernel each."""
    spec = _validate.method(method)
    resolved = _resolve_backend(backend, spec, graph)
    return resolved, resolved == "gpu" and spec.batched


def matrix_nodes(graph: CSRGraph, sources, targets) -> tuple[np.ndarray, np.ndarray]:
    """The CSR indices of a matrix's rows (``sources``) and columns (``targets``; every node
    when None), checked."""
    rows = _validate.nodes(sources, graph, "sources")
    if targets is None:
        return rows, np.arange(graph.n_nodes)
    return rows, _validate.nodes(targets, graph, "targets")


def chunk_places(first: np.ndarray, lo: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """For a chunk of the distinct sources ``lo`` to ``lo + count``: the matrix rows it fills
    (``first`` maps each row to its distinct source) and, for each, its row in the chunk."""
    rows = np.flatnonzero((first >= lo) & (first < lo + count))
    return rows, first[rows] - lo


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
    predecessors: bool = False,
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
        Bound on one chunk's matrix on the host (default: `DEFAULT_CHUNK_BYTES`, and none
        for the batched GPU kernel, whose chunks are sized to the GPU's free memory).
    workers : int
        Processes for the CPU searches (1: in this process), at most one a core this
        process may use and one a distinct source: more are not started.
    on_chunk : callable, optional
        Called with (rows, distances) of each chunk as it finishes.
    keep : bool
        Keep the whole matrix in the result (False: only ``on_chunk`` sees it).
    keep_on_gpu : bool
        With the batched GPU kernel, leave the distances on the device (CuPy arrays, for
        the caller to reduce or sample) instead of copying them to the host.
    predecessors : bool
        Also return each source's shortest-path tree (``predecessors``); the memory bound
        then counts a whole row of parents per source.
    """
    graph = _validate.graph(graph)
    spec = _validate.method(method)
    resolved, batched = plan(graph, method, backend)
    if keep_on_gpu and not batched:
        msg = "keep_on_gpu needs the GPU backend and a method of a batched kernel: " + ", ".join(
            names(batched=True)
        )
        raise ParameterError(msg)
    if predecessors and not keep:
        msg = "predecessors are kept with the matrix: keep=False would drop them"
        raise ParameterError(msg)
    rows_of, columns = matrix_nodes(graph, sources, targets)
    workers = _validate.count(workers, "workers")
    unique, first = np.unique(rows_of, return_inverse=True)
    workers = min(workers, default_workers(), len(unique))  # a process a core, a tree each
    width = columns.size + (graph.n_nodes if predecessors else 0)
    if batched:
        kernel = _batched_kernel(spec.name)
        store = kernel.store_of(graph, predecessors)
        if store is None and keep_on_gpu:
            msg = (
                "keep_on_gpu with predecessors needs near_far's kernel and distances below "
                "2^32 (use the host)"
            )
            raise ParameterError(msg)
        whole_rows = targets is None or predecessors  # a tree needs every node's parent
        on_device = kernel.row_bytes(graph, None if whole_rows else columns.size,
                                     store or kernel.store_of(graph, False))  # fmt: skip
        per_chunk = _backend.free_gpu_memory() // 2 // on_device
        if per_chunk < 1:
            msg = (
                f"one source's results need {on_device:,} bytes on the GPU, more than half "
                "its free memory; give fewer targets or use backend='cpu'"
            )
            raise GPUMemoryError(msg)
        if memory_bytes is not None:
            per_chunk = min(per_chunk, chunk_rows(width, memory_bytes))
    else:
        per_chunk = chunk_rows(width, memory_bytes)
    if keep and not keep_on_gpu:  # the matrix (and its trees) on the host
        advice = "give fewer sources or targets (or keep=False and on_chunk: a chunk at a time)"
        _validate.matrices_fit(len(rows_of), width, advice=advice)
    start = time.perf_counter()
    shape = (len(rows_of), columns.size)
    ready = None  # waits for the host matrix's pages to be touched
    if keep_on_gpu:
        out = _backend.cupy().empty(shape, dtype=np.int64)
    elif keep and batched:
        out, ready = _prefaulted(shape)
    else:
        out = np.empty(shape, dtype=np.int64) if keep else None
    trees = None
    if predecessors:
        trees = (_backend.cupy() if keep_on_gpu else np).empty(
            (len(rows_of), graph.n_nodes), dtype=np.int64
        )
    in_order = bool(np.all(np.diff(rows_of) > 0))  # sorted, unique: chunk rows are contiguous
    step = _validate.delta(delta, graph) if batched else None
    edges = np.zeros(len(unique), dtype=np.int64)
    iterations = np.zeros(len(unique), dtype=np.int64)
    used_backend = "gpu" if batched else resolved
    options = dict(method=spec.name, backend=backend, delta=delta, batch_size=batch_size)
    chunks = 0
    pool = None
    if workers > 1 and not batched:
        pool = ProcessPoolExecutor(workers, initializer=_worker_start, initargs=(graph, columns))
    try:
        for lo in range(0, len(unique), per_chunk):
            block = unique[lo : lo + per_chunk]
            direct = False  # the chunk was copied into its rows of out already
            if spec.name == "dijkstra":
                dist, tree, e = _scipy_chunk(graph, block, columns, predecessors, pool, workers)
            elif batched:
                direct = out is not None and in_order and store is not None
                dist, tree, e, it = _gpu_chunk(
                    graph, block, None if targets is None else columns, step, store,
                    keep_on_gpu, out[lo : lo + len(block)] if direct else None, ready,
                    spec.name,
                )  # fmt: skip
            else:
                dist, tree, e, it, used_backend = _search_rows(
                    graph, block, columns, options, predecessors, pool
                )
            if spec.name != "dijkstra":
                iterations[lo : lo + len(block)] = it
            edges[lo : lo + len(block)] = e
            chunks += 1
            rows, pick = chunk_places(first, lo, len(block))
            place = rows
            if keep_on_gpu:  # the chunk is on the device: so are its indices
                xp = _backend.cupy()
                pick, place = xp.asarray(pick), xp.asarray(rows)
            chunk = dist if direct else dist[pick]
            if out is not None and not direct:
                out[place] = chunk
            if trees is not None:
                trees[place] = tree[pick]
            if on_chunk is not None:
                on_chunk(rows, chunk)
    finally:
        if pool is not None:
            pool.shutdown()
        if ready is not None:
            ready()
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
        predecessors=trees,
    )


def _batched_kernel(method: str):
    """The launcher of ``method``'s batched GPU kernel: PHAST's, or Near-Far's (the same
    calls)."""
    if method == "phast":
        from engine.backends import gpu_phast

        return gpu_phast
    from engine.backends import gpu_many

    return gpu_many


def _gpu_chunk(graph, block, columns, step, store, keep_on_gpu, into, ready, method):
    """One chunk on ``method``'s batched kernel: (distances, trees or None, edges,
    iterations), kept on the device or copied to the host, into ``into`` (the chunk's rows of
    the result, on the device or on the host) when given; ``ready()`` waits until the host
    matrix may be written. ``store`` is the kernel's ``store_of``'s: None (trees asked for,
    64-bit distances or PHAST) takes the trees from whole rows of distances, on the host."""
    from engine.backends import gpu_many

    kernel = _batched_kernel(method)
    linked = store == gpu_many.LINKED
    from_rows = store is None
    dist, tree, stats = kernel.rows(
        graph, block, None if from_rows else columns, delta=step, parents=linked,
        into=into if keep_on_gpu else None,
    )  # fmt: skip
    if ready is not None:  # the host matrix is written from here on (here or by the caller)
        ready()
    if from_rows:
        whole = dist.get()
        dist, tree = whole if columns is None else whole[:, columns], _trees(graph, block, whole)
    elif not keep_on_gpu:
        dist = dist.get(out=into)
        tree = None if tree is None else tree.get()
    stats = stats.get()
    return dist, tree, stats[:, 0], stats[:, 1]


def _prefaulted(shape: tuple[int, int]):
    """A new ``int64`` host matrix whose pages a few threads are touching meanwhile, and the
    call that waits for them: the first touch of fresh memory (its page faults) ran at
    3.6 GB/s in one thread on the H200's host, and a copy from the GPU into touched memory
    at 15 GB/s; in parallel, and while the GPU searches, the faults cost little."""
    array = np.empty(shape, dtype=np.int64)
    flat = array.reshape(-1)
    bounds = np.linspace(0, flat.size, min(8, default_workers()) + 1).astype(np.int64)
    pool = ThreadPoolExecutor(len(bounds) - 1)

    def zero(a: int, b: int) -> None:
        flat[a:b] = 0

    for a, b in itertools.pairwise(bounds):
        pool.submit(zero, a, b)
    return array, functools.partial(pool.shutdown, wait=True)


def _trees(graph: CSRGraph, block: np.ndarray, whole: np.ndarray) -> np.ndarray:
    """Shortest-path trees (parents) of the sources ``block`` from their whole rows."""
    pairs = zip(block, whole, strict=True)
    return np.stack([shortest_path_tree(graph, row, int(s)) for s, row in pairs])


def _scipy_rows(graph: CSRGraph, block: np.ndarray, columns: np.ndarray, predecessors: bool):
    """SciPy's Dijkstra from the sources ``block``: distances to ``columns``, the trees when
    asked (else None), and the arcs it relaxes from each (every reached node's arcs, once)."""
    from scipy.sparse.csgraph import dijkstra

    raw = np.atleast_2d(dijkstra(graph.scipy_matrix(), directed=True, indices=block))
    edges = (np.isfinite(raw) @ np.diff(graph.indptr)).astype(np.int64)
    whole = from_scipy(raw)
    return whole[:, columns], _trees(graph, block, whole) if predecessors else None, edges


def _scipy_chunk(graph, block, columns, predecessors: bool, pool, workers: int):
    """`_scipy_rows` of a chunk, split over the pool's ``workers`` when there is one."""
    if pool is None:
        return _scipy_rows(graph, block, columns, predecessors)
    parts = [part for part in np.array_split(block, workers) if part.size]
    results = list(pool.map(_scipy_part, parts, [predecessors] * len(parts)))
    trees = np.concatenate([r[1] for r in results]) if predecessors else None
    return np.concatenate([r[0] for r in results]), trees, np.concatenate([r[2] for r in results])


def _scipy_part(part: np.ndarray, predecessors: bool):
    return _scipy_rows(_WORK["graph"], part, _WORK["columns"], predecessors)


#: The graph and the target columns of a worker process, set once by `_worker_start`.
_WORK: dict = {}


def _worker_start(graph: CSRGraph, columns: np.ndarray) -> None:
    _WORK.update(graph=graph, columns=columns)


def _one(source: int, options: dict, predecessors: bool, graph=None, columns=None):
    graph = _WORK["graph"] if graph is None else graph
    columns = _WORK["columns"] if columns is None else columns
    r = sssp(graph, int(source), **options)
    tree = r.predecessors if predecessors else None
    return r.distances[columns], tree, r.counters.edges_relaxed, r.counters.iterations, r.backend


def _search_rows(graph, block, columns, options, predecessors: bool, pool):
    if pool is None:
        results = [_one(s, options, predecessors, graph, columns) for s in block]
    else:  # the graph and the columns went to each worker once, at its start
        results = list(pool.map(_one, block, [options] * len(block), [predecessors] * len(block)))
    dist = np.stack([r[0] for r in results])
    trees = np.stack([r[1] for r in results]) if predecessors else None
    edges = np.array([r[2] for r in results], dtype=np.int64)
    iterations = np.array([r[3] for r in results], dtype=np.int64)
    return dist, trees, edges, iterations, results[0][4]


def default_workers() -> int:
    """The cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
