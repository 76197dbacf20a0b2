"""Sweeps and distance matrices on a Dask cluster: every GPU of a host, or many hosts.

A sweep is split by query (one task runs every method × Δ × batch cell of one source, and
its SciPy reference, as `experiments.run_cells` does), a matrix by chunks of sources (one
task runs `batch.many_to_many` on its chunk). Tasks never carry the graph: they name it by
how to load it (`GraphRef`), and a worker loads each graph once and keeps it, so its GPU
upload is made once per GPU too. Results stream back as tasks finish. Dask runs a task
again elsewhere when its worker dies, so a killed worker costs time, not rows.

Clusters (`connect`): ``"local"`` starts processes on this machine (one thread each),
``"local-gpu"`` one worker per GPU of this machine (dask-cuda's ``LocalCUDACluster`` when it
is installed, else workers each seeing one GPU through ``CUDA_VISIBLE_DEVICES``), and
``"tcp://HOST:PORT"`` joins a running scheduler (``dask scheduler``; workers started with
``dask worker`` or ``dask cuda worker``). Dask is imported only here, and only when used.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from engine._errors import FrontierError, ParameterError
from engine.graphs.csr import CSRGraph

#: How long a scheduler address may take to answer.
CONNECT_TIMEOUT_S = 5
#: Local clusters start at most this many CPU workers unless told how many.
MAX_LOCAL_WORKERS = 4


class ClusterError(FrontierError):
    """A Dask scheduler cannot be reached, or its workers cannot load the graph."""


@dataclasses.dataclass(frozen=True)
class GraphRef:
    """How a worker loads the graph: `engine.graphs.io.load_graph`'s arguments (a file path, the
    same on every worker, or ``"helsinki"``)."""

    spec: str
    network: str = "drive"
    weight: str = "length"
    weights: str | None = None
    coordinates: str | None = "auto"

    @classmethod
    def of(cls, spec: str, **options) -> GraphRef:
        """A reference whose relative path is made absolute here (the workers' folder may
        be another)."""
        path = Path(spec).expanduser()
        if path.exists():
            spec = str(path.resolve())
        return cls(str(spec), **options)

    def load(self) -> CSRGraph:
        from engine.graphs import io

        return io.load_graph(
            self.spec,
            network=self.network,
            weight=self.weight,
            weights=self.weights,
            coordinates=self.coordinates,
        )


_LOADED: dict[GraphRef, CSRGraph] = {}  # in each worker: the graphs it has loaded


def _graph(ref: GraphRef) -> CSRGraph:
    graph = _LOADED.get(ref)
    if graph is None:
        graph = _LOADED[ref] = ref.load()
    return graph


def _describe(ref: GraphRef) -> tuple[int, int]:
    graph = _graph(ref)
    return graph.n_nodes, graph.n_arcs


# -- clusters ----------------------------------------------------------------------------------


@contextlib.contextmanager
def connect(cluster: str, *, workers: int | None = None):
    """A ``distributed.Client`` of ``cluster`` (``local``, ``local-gpu`` or a scheduler's
    ``tcp://HOST:PORT``), closed on leaving, with the cluster when it was started here;
    ``workers`` sizes a local cluster: at most one CPU worker a core (one a GPU for
    ``local-gpu``).

    Raises
    ------
    ClusterError
        The scheduler does not answer within `CONNECT_TIMEOUT_S`.
    ParameterError
        An unknown cluster, or ``local-gpu`` where there is no GPU.
    """
    distributed = _dask()
    quiet = {"silence_logs": 40, "dashboard_address": ":0"}  # errors only; any free port
    if cluster == "local":
        cores = os.cpu_count() or 1
        count = min(workers, cores) if workers else min(MAX_LOCAL_WORKERS, cores)
        started = distributed.LocalCluster(
            n_workers=count, threads_per_worker=1, processes=True, **quiet
        )
    elif cluster == "local-gpu":
        started = _gpu_cluster(distributed, workers, quiet)
    elif "://" in cluster:
        started = None
    else:
        msg = f"--cluster {cluster!r}: give local, local-gpu or a scheduler's tcp://HOST:PORT"
        raise ParameterError(msg)
    try:
        try:
            client = distributed.Client(started or cluster, timeout=CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError):
            msg = (
                f"no Dask scheduler answers at {cluster} (waited {CONNECT_TIMEOUT_S} s); start "
                "one with `dask scheduler` there, or check the address"
            )
            raise ClusterError(msg) from None
        with client:
            yield client
    finally:
        if started is not None:
            started.close()


def _gpu_cluster(distributed, workers: int | None, quiet: dict):
    from engine.backends import device as _backend

    count = _backend.gpu_count()
    if count == 0:
        msg = "--cluster local-gpu needs a CUDA GPU here; use --cluster local on the CPU"
        raise ParameterError(msg)
    count = min(workers or count, count)
    try:
        from dask_cuda import LocalCUDACluster
    except ImportError:  # the same layout by hand: one process per GPU, seeing only it
        specs = {
            k: {
                "cls": distributed.Nanny,
                "options": {"nthreads": 1, "env": {"CUDA_VISIBLE_DEVICES": str(k)}},
            }
            for k in range(count)
        }
        scheduler = {
            "cls": distributed.Scheduler,
            "options": {"dashboard_address": quiet["dashboard_address"]},
        }
        return distributed.SpecCluster(
            workers=specs, scheduler=scheduler, silence_logs=quiet["silence_logs"]
        )
    return LocalCUDACluster(CUDA_VISIBLE_DEVICES=list(range(count)), **quiet)


def _dask():
    try:
        import distributed
    except ImportError:
        msg = "--cluster needs Dask: pip install 'frontier[dask]'"
        raise ParameterError(msg) from None
    return distributed


def prepare(client, ref: GraphRef, graph: CSRGraph) -> list[str]:
    """Load ``ref`` on every worker now (each keeps it); return the workers' addresses.

    Raises
    ------
    ClusterError
        No worker, a worker that cannot load the graph, or one whose graph differs.
    """
    results = client.run(_describe, ref, on_error="return")
    if not results:
        msg = "the Dask cluster has no workers; start some with `dask worker SCHEDULER`"
        raise ClusterError(msg)
    for address, result in sorted(results.items()):
        if isinstance(result, BaseException):
            why = str(result).splitlines()[0] if str(result) else type(result).__name__
            msg = (
                f"worker {address} cannot load the graph: {why} (every worker needs the "
                "file at the same path)"
            )
            raise ClusterError(msg)
        if tuple(result) != (graph.n_nodes, graph.n_arcs):
            msg = (
                f"worker {address} loaded another graph from {ref.spec} ({result[0]:,} nodes, "
                f"{result[1]:,} arcs; here {graph.n_nodes:,} and {graph.n_arcs:,})"
            )
            raise ClusterError(msg)
    return sorted(results)


def describe_workers(client) -> list[dict]:
    """Each worker's address and device (for a study's metadata)."""
    return [
        {"worker": address, "device": device}
        for address, device in sorted(client.run(_device_here).items())
    ]


def _device_here() -> str:
    from engine.backends import device as _backend

    return _backend.device_name("gpu" if _backend.gpu_available() else "cpu")


# -- sweeps ------------------------------------------------------------------------------------


def run_cells(
    client,
    ref: GraphRef,
    graph: CSRGraph,
    queries: Sequence[tuple[int, int | None, int | None]],
    *,
    done: set[tuple] = frozenset(),
    on_row: Callable[[dict], None],
    **cells,
) -> int:
    """`experiments.run_cells` on the cluster: one task per query, each row handed to
    ``on_row`` as its task finishes (so in the order tasks finish; `order_rows` restores
    the single-process order). ``cells`` are its methods, deltas, batches, backend and
    repeat; rows in ``done`` are skipped. Returns how many searches ran."""
    from engine.studies.experiments import KEY, query_ids

    distributed = _dask()
    at = KEY.index("source")  # then "target"
    futures = []
    for k, query in enumerate(queries):
        labels = tuple(str(v) for v in query_ids(graph.node_ids, query[0], query[1]))
        skip = {key for key in done if key[at : at + 2] == labels}
        futures.append(client.submit(_query_rows, ref, query, cells, skip, key=_key("q", k)))
    ran = 0
    for future in distributed.as_completed(futures):
        for row in future.result():
            on_row(row)
            ran += 1
        future.release()
    return ran


def _query_rows(ref: GraphRef, query, cells: dict, done: set[tuple]) -> list[dict]:
    from engine.studies import experiments

    rows: list[dict] = []
    experiments.run_cells(_graph(ref), [query], done=done, on_row=rows.append, **cells)
    return rows


def order_rows(rows: list[dict], queries, node_ids: np.ndarray) -> list[dict]:
    """Rows in the order one process writes them: by query, and within a query as its task
    made them (a stable sort)."""
    from engine.studies.experiments import query_ids

    place = {
        tuple(str(v) for v in query_ids(node_ids, s, t)): k for k, (s, t, _r) in enumerate(queries)
    }
    return sorted(rows, key=lambda row: place[(str(row["source"]), str(row["target"]))])


# -- distance matrices -------------------------------------------------------------------------


def many_to_many(
    client,
    ref: GraphRef,
    graph: CSRGraph,
    sources,
    targets=None,
    *,
    rows_per_task: int | None = None,
    on_chunk: Callable[[np.ndarray, object], None] | None = None,
    reduce: Callable[[np.ndarray, object], object] | None = None,
    **options,
):
    """`batch.many_to_many` on the cluster: chunks of distinct sources as tasks.

    Parameters
    ----------
    client, ref, graph
        The cluster's client, how its workers load the graph, and the graph here (for the
        node checks).
    sources, targets
        As in `batch.many_to_many`.
    rows_per_task : int, optional
        Sources per task (default: four tasks per worker, at most 256 sources each; for
        ``phast``, `engine.backends.gpu_phast.FILL`, which its kernel needs to fill a GPU).
    on_chunk : callable, optional
        Called with (rows, distances) of each task as it finishes; with ``reduce``, with
        (rows, what ``reduce`` returned).
    reduce : callable, optional
        Run on the worker on (rows, distances) of its chunk, so that only what it returns
        travels (a matrix too large to bring back; the distances may be a CuPy array when
        the worker's batched kernel left them on its GPU). The result then keeps no matrix,
        and no trees are made.
    **options
        ``method``, ``backend``, ``delta``, ``batch_size``, ``memory_bytes``, ``predecessors``
        of `batch.many_to_many`.

    Returns
    -------
    batch.DistanceMatrix
        Equal to the single-process one; ``elapsed_s`` is the whole wall time and
        ``chunks`` the number of tasks.
    """
    from engine.studies.batch import DistanceMatrix, chunk_places, matrix_nodes

    distributed = _dask()
    rows_of, columns = matrix_nodes(graph, sources, targets)
    if reduce is not None:  # the trees would be dropped with the matrix: make none
        options = {**options, "predecessors": False}
    unique, first = np.unique(rows_of, return_inverse=True)
    if rows_per_task is None and options.get("method") == "phast":
        from engine.backends.gpu_phast import FILL

        rows_per_task = FILL  # its kernel fills a GPU with many sources only
    if rows_per_task is None:
        workers = max(len(client.scheduler_info()["workers"]), 1)
        rows_per_task = max(1, min(256, math.ceil(len(unique) / (4 * workers))))
    start = time.perf_counter()
    futures = {}
    for k, lo in enumerate(range(0, len(unique), rows_per_task)):
        block = unique[lo : lo + rows_per_task]
        future = client.submit(
            _matrix_chunk, ref, block, None if targets is None else columns, options, reduce,
            key=_key("m", k),
        )  # fmt: skip
        futures[future] = lo
    keep = reduce is None
    out = np.empty((len(rows_of), columns.size), dtype=np.int64) if keep else None
    trees = None
    if options.get("predecessors", False):
        trees = np.empty((len(rows_of), graph.n_nodes), dtype=np.int64)
    edges = np.zeros(len(unique), dtype=np.int64)
    iterations = np.zeros(len(unique), dtype=np.int64)
    method = backend = ""
    for future in distributed.as_completed(futures):
        lo = futures[future]
        part, method, backend = future.result()
        future.release()
        count = len(part.edges)
        edges[lo : lo + count], iterations[lo : lo + count] = part.edges, part.iterations
        rows, pick = chunk_places(first, lo, count)
        if keep:
            out[rows] = part.value[pick]
            if trees is not None:
                trees[rows] = part.trees[pick]
        if on_chunk is not None:
            on_chunk(rows, part.value[pick] if keep else part.value)
    return DistanceMatrix(
        sources=rows_of,
        targets=columns,
        dist=out if keep else np.zeros((0, columns.size), dtype=np.int64),
        edges_relaxed=edges[first],
        iterations=iterations[first],
        method=method,
        backend=backend,
        elapsed_s=time.perf_counter() - start,
        chunks=len(futures),
        predecessors=trees,
    )


@dataclasses.dataclass(frozen=True)
class _Part:
    value: object  # the chunk's distances (rows of distinct sources), or what reduce made
    trees: np.ndarray | None
    edges: np.ndarray
    iterations: np.ndarray


def _matrix_chunk(ref: GraphRef, block, columns, options: dict, reduce):
    from engine.studies import batch

    graph = _graph(ref)
    method, backend = options.get("method", "near_far"), options.get("backend", "auto")
    on_gpu = reduce is not None and batch.plan(graph, method, backend)[1]
    m = batch.many_to_many(graph, block, columns, keep_on_gpu=on_gpu, **options)
    value = m.dist if reduce is None else reduce(block, m.dist)
    return _Part(value, m.predecessors, m.edges_relaxed, m.iterations), m.method, m.backend


def row_checksums(rows: np.ndarray, dist) -> np.ndarray:
    """A ``reduce`` for `many_to_many`: each row's distances folded into one ``uint64``
    (position-weighted, so a moved or changed distance shows), computed where the rows are
    (NumPy or CuPy) and returned to the host with the rows' sources."""
    from engine.backends import device as _backend

    xp = _backend.array_module(dist)
    weights = xp.arange(1, dist.shape[1] + 1, dtype=xp.uint64) * xp.uint64(0x9E3779B97F4A7C15)
    sums = (dist.astype(xp.uint64) * weights[None, :]).sum(axis=1, dtype=xp.uint64)
    return np.stack([np.asarray(rows, dtype=np.uint64), _host(sums)], axis=1)


def _host(array) -> np.ndarray:
    return array if isinstance(array, np.ndarray) else array.get()


def _key(kind: str, k: int) -> str:
    """A task key unique to this call (a second run's tasks are new tasks)."""
    return f"frontier-{kind}-{k}-{time.monotonic_ns()}"
