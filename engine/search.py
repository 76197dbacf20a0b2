"""The one public search entry, `sssp`, and its result."""

from __future__ import annotations

import dataclasses
import functools
import queue
import threading
import time
from collections.abc import Callable, Iterator

import numpy as np

from engine import _validate, contraction
from engine._errors import ParameterError
from engine.adaptive import AdaptiveDelta
from engine.backends import device as _backend
from engine.backends import gpu_contract
from engine.graphs.csr import UNREACHABLE, CSRGraph
from engine.methods import Counters, Method, RunSpec
from engine.recording import Recording, Snapshot

#: Relax iterations queued on the GPU between two host checks, unless told otherwise.
DEFAULT_BATCH = 64


@dataclasses.dataclass(frozen=True)
class SSSPResult:
    """The answer and the account of one search.

    Attributes
    ----------
    distances : numpy.ndarray
        ``int64`` distance of every node in the graph's integer weight units; `UNREACHABLE`
        where the source cannot reach. With a ``target``, only distances below
        ``settled_below`` are final (the others are upper bounds).
    method, backend, device : str
        What ran, where.
    delta : int or None
        The Δ used, the first phase's with an adaptive Δ (None for Bellman-Ford and Dijkstra).
    batch_size : int
    source, target : int, int or None
        CSR indices.
    counters : Counters
    elapsed_s : float
        Wall time from the call to distances on the host, excluding graph upload.
    setup_s : float
        Graph upload and kernel compilation (0 when cached).
    settled_below : int
        Every node with a distance below this is final.
    recording : Recording or None
        The per-iteration frames when ``record`` was asked for.
    adaptive : AdaptiveDelta or None
        The rule that chose Δ at each phase end, when Δ was adaptive.
    """

    graph: CSRGraph = dataclasses.field(repr=False)
    distances: np.ndarray = dataclasses.field(repr=False)
    method: str
    backend: str
    device: str
    delta: int | None
    batch_size: int
    source: int
    target: int | None
    counters: Counters
    elapsed_s: float
    setup_s: float
    settled_below: int
    recording: Recording | None = dataclasses.field(default=None, repr=False)
    adaptive: AdaptiveDelta | None = None

    @property
    def delta_text(self) -> str:
        """Δ for people: ``∞``, ``1,500`` or ``adaptive 23–95,744``."""
        if self.adaptive is not None:
            return self.adaptive.describe()
        return "∞" if self.delta is None else f"{self.delta:,}"

    @functools.cached_property
    def predecessors(self) -> np.ndarray:
        """``int64`` parent of each node in a shortest-path tree; -1 for the source and for
        unreachable (or, with a target, not yet final) nodes."""
        return shortest_path_tree(self.graph, self.distances, self.source, self.settled_below)

    def path_to(self, node: int) -> list[int]:
        """CSR indices of a shortest path from the source to ``node`` (empty if unreachable)."""
        node = _validate.node(node, self.graph, "node")
        if node != self.source and self.predecessors[node] < 0:
            return []
        path = [node]
        while path[-1] != self.source:
            path.append(int(self.predecessors[path[-1]]))
        return path[::-1]

    def summary(self) -> dict:
        """The run in a JSON-ready dict."""
        out = {
            "graph": self.graph.name,
            "method": self.method,
            "backend": self.backend,
            "device": self.device,
            "delta": self.delta,
            "delta_rule": None if self.adaptive is None else self.adaptive.spec(),
            "batch_size": self.batch_size,
            "source_id": int(self.graph.node_ids[self.source]),
            "target_id": None if self.target is None else int(self.graph.node_ids[self.target]),
            "elapsed_s": self.elapsed_s,
            "setup_s": self.setup_s,
            "reached": int(np.count_nonzero(self.distances != UNREACHABLE)),
            "weight": self.graph.weight_kind,
            "weight_unit": self.graph.weight_unit,
        } | self.counters.as_dict()
        if self.target is not None:
            d = int(self.distances[self.target])
            out["target_distance"] = None if d == UNREACHABLE else d
        return out


def shortest_path_tree(
    graph: CSRGraph, distances: np.ndarray, source: int, settled_below: int = UNREACHABLE
) -> np.ndarray:
    """A shortest-path tree from final distances, valid with zero-weight arcs too.

    A node's parent is a tail of a *tight* arc (``d[u] + w = d[v]``). Arcs of positive weight
    cannot close a cycle; zero-weight ties are resolved breadth-first from nodes that already
    have a parent, so the result is always a tree.
    """
    n = graph.n_nodes
    pred = np.full(n, -1, dtype=np.int64)
    final = distances < min(settled_below, UNREACHABLE)
    tails, heads, w = graph.sources, graph.indices, graph.weights
    usable = final[tails] & final[heads] & (heads != source)
    tails, heads, w = tails[usable], heads[usable], w[usable].astype(np.int64)
    tight = distances[tails] + w == distances[heads]
    tails, heads, w = tails[tight], heads[tight], w[tight]
    strict = w > 0
    pred[heads[strict]] = tails[strict]
    zt, zh = tails[~strict], heads[~strict]
    anchored = pred >= 0
    anchored[source] = True
    while zt.size:
        step = anchored[zt] & ~anchored[zh]
        if not step.any():
            break
        pred[zh[step]] = zt[step]
        anchored[zh[step]] = True
        keep = ~anchored[zh]
        zt, zh = zt[keep], zh[keep]
    return pred


#: ``backend="auto"`` runs graphs smaller than this on the CPU: there the NumPy twin beats
#: the GPU's fixed cost per search (decisions/0004 has the measured crossover).
AUTO_GPU_MIN_NODES = 1_000


def _resolve_backend(name: str, method: Method, graph: CSRGraph) -> str:
    name = _validate.backend(name)
    if not method.iterative:
        if name == "gpu":
            msg = "dijkstra is SciPy's, on the CPU; use --backend cpu or auto with it"
            raise ParameterError(msg)
        return "cpu"
    if name == "auto":
        big = graph.n_nodes >= AUTO_GPU_MIN_NODES
        return "gpu" if big and _backend.gpu_available() else "cpu"
    if name == "gpu":
        _backend.cupy()  # raises with the reason when there is no usable GPU
    return name


def from_scipy(d: np.ndarray) -> np.ndarray:
    """SciPy's float distances as ``int64``, `UNREACHABLE` where infinite."""
    reached = np.isfinite(d)
    dist = np.full(d.shape, UNREACHABLE, dtype=np.int64)
    dist[reached] = d[reached].astype(np.int64)
    return dist


def dijkstra_counters(graph: CSRGraph, distances: np.ndarray, target: int | None = None):
    """What Dijkstra's search from the source of the exact ``distances`` does: it settles
    every node reached or, with a ``target`` it reaches, every node no farther than the
    target, and relaxes their arcs once each (`Counters`: ``iterations`` the nodes settled,
    ``edges_relaxed`` their arcs). The same counts whichever exact search gave the
    distances, so a search's own result gives SciPy's without running it."""
    reached = distances != UNREACHABLE
    settled = reached
    if target is not None and reached[target]:
        settled = reached & (distances <= distances[target])
    deg = np.diff(graph.indptr)
    return Counters(iterations=int(settled.sum()), edges_relaxed=int(deg[settled].sum()))


def _dijkstra(spec: RunSpec) -> tuple[np.ndarray, Counters, int]:
    from scipy.sparse.csgraph import dijkstra

    graph = spec.graph
    dist = from_scipy(dijkstra(graph.scipy_matrix(), directed=True, indices=spec.source))
    return dist, dijkstra_counters(graph, dist, spec.target), UNREACHABLE


def sssp(
    graph: CSRGraph,
    source: int,
    *,
    method: str = "near_far",
    backend: str = "auto",
    delta: int | str = "auto",
    batch_size: int = DEFAULT_BATCH,
    target: int | None = None,
    record: bool | Callable[[Snapshot], None] = False,
) -> SSSPResult:
    """Single-source shortest paths on ``graph`` from ``source``.

    Parameters
    ----------
    graph : CSRGraph
    source : int
        CSR index of the source (``graph.index_of(node_id)`` maps ids).
    method : str
        A key of `engine.METHODS`: ``near_far``, ``near_far_async`` (the GPU relaxes the
        near set without a barrier per iteration; recorded by phase), ``near_far_core``
        (``near_far_async`` on the graph's contraction core, then a sweep over the
        contracted nodes, `engine.contraction`; the core is made once per graph, and kept in
        the cache folder for large graphs, `engine.contraction.of`; Δ and its heuristic
        are the core's; recorded by phase, then by sweep step), ``delta_stepping``,
        ``bucketing`` (far nodes sorted into buckets of width Δ), ``bellman_ford`` or
        ``dijkstra``.
    backend : str
        ``cpu`` (NumPy), ``gpu`` (CUDA kernels through CuPy) or ``auto`` (the GPU when one is
        usable and the graph has at least `AUTO_GPU_MIN_NODES` nodes).
    delta : int, "auto", "adaptive", "adaptive:LOW-HIGH" or AdaptiveDelta
        Bucket width Δ ≥ 1; Davidson et al.'s heuristic (`CSRGraph.auto_delta`); or a Δ
        chosen anew at every phase end from what the last phase did, starting at the
        heuristic (`engine.adaptive`; every method with buckets; bucketing sorts its far
        nodes again whenever Δ changes).
    batch_size : int
        Relax iterations run before the host checks for convergence; it changes speed only.
    target : int, optional
        Stop once this node's distance is final (``near_far_core``: once the core search
        settles it; a contracted node is final only after the whole search and sweep).
    record : bool or callable
        Keep a `Recording` of every iteration (of every phase for the asynchronous methods,
        `engine.recording`); a callable also receives each `Snapshot` while the search runs
        (at its end, for a recording by phase).

    Returns
    -------
    SSSPResult
    """
    graph = _validate.graph(graph)
    m = _validate.method(method)
    source = _validate.node(source, graph, "source")
    if target is not None:
        target = _validate.node(target, graph, "target")
    rule = _validate.adaptive(delta, graph, m)
    d = rule.start if rule is not None else _validate.delta(delta, graph) if m.uses_delta else None
    batch = _validate.batch_size(batch_size)
    if not (isinstance(record, bool) or callable(record)):
        msg = f"record must be True, False or a callable, got {record!r}"
        raise ParameterError(msg)
    searched, core, search_target, setup_s = graph, None, target, 0.0
    if m.contracted:
        start = time.perf_counter()
        core = contraction.of(graph, m.contraction, xp=gpu_contract.contraction_module)
        setup_s = time.perf_counter() - start
        # Δ and its rule in the search graph's terms (its own heuristic, bounds and type)
        searched = core.graph
        rule = _validate.adaptive(delta, searched, m)
        if rule is not None:
            d = rule.start
        elif m.uses_delta:
            d = _validate.delta(delta, searched)
        if target is not None and core.round_of[target] >= 0:
            search_target = None  # a contracted node is final only after the whole sweep
    name = _resolve_backend(backend, m, graph)
    dtype = searched.distance_dtype()
    inf = int(np.iinfo(dtype).max)
    recording = None
    if record and m.iterative:
        n = graph.n_nodes
        stamps = _backend.pinned_empty(3 * n, np.int32).reshape(3, n) if name == "gpu" else None
        recording = Recording(n, delta=d or inf, with_buckets=m.has_buckets, stamps=stamps)
    spec = RunSpec(
        searched, source, m, d or inf, batch, search_target, dtype, recording, rule, core
    )

    on_batch = None
    if callable(record) and recording is not None:
        sent = [0]

        def on_batch() -> None:
            for k in range(sent[0], len(recording)):
                record(recording.snapshot(k))
            sent[0] = len(recording)

    if not m.iterative:
        start = time.perf_counter()
        dist, counters, settled_below = _dijkstra(spec)
        elapsed = time.perf_counter() - start
    elif name == "gpu":
        from engine.backends import gpu as _gpu

        setup_s += _gpu.prepare(searched, spec)
        start = time.perf_counter()
        dist, counters, settled_below = _gpu.run(spec, on_batch)
        elapsed = time.perf_counter() - start
    else:
        from engine.backends import cpu as _cpu

        start = time.perf_counter()
        dist, counters, settled_below = _cpu.run(spec, on_batch)
        elapsed = time.perf_counter() - start
    if core is not None:
        counters.edges_relaxed += core.n_down
    if settled_below >= inf:
        settled_below = UNREACHABLE
    return SSSPResult(
        graph=graph,
        distances=dist,
        method=m.name,
        backend=name,
        device=_backend.device_name(name),
        delta=d,
        batch_size=batch,
        source=source,
        target=target,
        counters=counters,
        elapsed_s=elapsed,
        setup_s=setup_s,
        settled_below=settled_below,
        recording=recording,
        adaptive=rule,
    )


class SearchStream:
    """Iterate over the snapshots of a search while it runs; ``result`` holds the answer
    once the iteration is over. Made by `stream`."""

    def __init__(self, graph: CSRGraph, source: int, **options):
        self._queue: queue.Queue = queue.Queue(maxsize=4096)
        self.result: SSSPResult | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(
            target=self._work, args=(graph, source, options), daemon=True
        )
        self._thread.start()

    def _work(self, graph, source, options) -> None:
        try:
            self.result = sssp(graph, source, record=self._queue.put, **options)
        except BaseException as exc:  # handed to the consumer, re-raised there
            self._error = exc
        finally:
            self._queue.put(None)

    def __iter__(self) -> Iterator[Snapshot]:
        while (item := self._queue.get()) is not None:
            yield item
        self._thread.join()
        if self._error is not None:
            raise self._error


def stream(graph: CSRGraph, source: int, **options) -> SearchStream:
    """Run `sssp` with recording in the background and yield each `Snapshot` as it comes.

    Takes the options of `sssp` except ``record``. After the loop, ``.result`` is the
    `SSSPResult`.
    """
    return SearchStream(graph, source, **options)
