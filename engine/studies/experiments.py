"""Experiments: Δ × batch sweeps and Dijkstra-rank studies, one CSV row per search.

A *sweep* runs every method × Δ × batch cell from the same seeded sources (and, with a
target rank, to the same targets), each against SciPy's Dijkstra for the same query on the
same host in the same run. A *rank study* (Sanders & Schultes) picks, for each source, the
targets at Dijkstra rank 2^r: the source has rank 0 and the node at rank k is the k-th that
Dijkstra settles after it, ties broken by CSR index. Its searches stop once the target
settles.

Rows are handed to a callback as they finish, so a caller can write them at once and a
later run can resume without redoing them (`cell_key`). Sources and targets are node ids,
as in the CLI.
"""

from __future__ import annotations

import csv
import dataclasses
import fcntl
import functools
import json
import os
import re
import time
from collections.abc import Callable, Iterable
from io import StringIO
from pathlib import Path

import numpy as np

from engine import _validate, adaptive, contraction
from engine._errors import ParameterError
from engine._text import ascii_int
from engine.adaptive import AdaptiveDelta
from engine.graphs.csr import UNREACHABLE, CSRGraph
from engine.graphs.io import write_atomic, write_json
from engine.search import from_scipy, sssp

#: Columns of a sweep's or a rank study's CSV, in order.
COLUMNS = (
    "method",
    "delta_spec",
    "delta",
    "batch",
    "repeat",
    "source",
    "target",
    "rank",
    "time_ms",
    "iterations",
    "phases",
    "host_syncs",
    "edges_relaxed",
    "dijkstra_edges",
    "dijkstra_ms",
    "exact",
)
#: The columns that name a cell's search; a resumed run skips rows it already has.
KEY = ("method", "delta_spec", "batch", "repeat", "source", "target")
_MULTIPLE = re.compile(r"^x([0-9]+(?:\.[0-9]+)?)$")


def parse_deltas(
    text: str, graph: CSRGraph, *, name: str = "--deltas"
) -> list[tuple[str, int | AdaptiveDelta]]:
    """``"50,500,auto,x4,x0.5,adaptive"`` as (spec, Δ) pairs: integers ≥ 1, ``auto``
    (Davidson's heuristic) and multiples of it (``xK``), each clamped as `sssp` clamps Δ,
    and ``adaptive`` or ``adaptive:LOW-HIGH`` (a Δ chosen per phase, `engine.adaptive`).
    ``name`` is what the messages call the list."""
    items = [t.strip() for t in str(text).split(",") if t.strip()]
    if not items:
        msg = f"{name} needs a comma-separated list (like 50,500,auto,x4), got {text!r}"
        raise ParameterError(msg)
    out = []
    for item in items:
        if adaptive.is_adaptive(item):
            try:
                out.append((item, adaptive.parse(item, graph.auto_delta(), graph.max_delta())))
            except ParameterError as exc:
                msg = f"{name}: {exc}"
                raise ParameterError(msg) from None
            continue
        if item == "auto":
            value = graph.auto_delta()
        elif m := _MULTIPLE.match(item):
            factor = float(m.group(1))  # x0 is Δ = 0, refused below; a small one rounds up to 1
            value = max(1, round(factor * graph.auto_delta())) if factor > 0 else 0
        elif (value := ascii_int(item)) is not None:
            pass
        else:
            msg = f"{name}: {item!r} is not an integer, 'auto', a multiple like x4 or 'adaptive'"
            raise ParameterError(msg)
        if value < 1:
            msg = f"{name}: Δ must be ≥ 1, got {item!r}"
            raise ParameterError(msg)
        out.append((item, _validate.delta(value, graph)))
    return out


def delta_values(deltas: list[tuple[str, int | AdaptiveDelta]]) -> list[int | str]:
    """The Δ of each (spec, Δ) pair as a study's JSON keeps it: an integer, or the adaptive
    rule's ``adaptive:LOW-HIGH``."""
    return [d.spec() if isinstance(d, AdaptiveDelta) else d for _, d in deltas]


def parse_batches(text: str, *, name: str = "--batches") -> list[int]:
    """``"1,8,64"`` as batch sizes, each an integer ≥ 1."""
    items = [t.strip() for t in str(text).split(",") if t.strip()]
    batches = [ascii_int(t) for t in items]
    if not batches or not all(b is not None and b >= 1 for b in batches):
        msg = f"{name} needs comma-separated integers ≥ 1 (like 1,8,64), got {text!r}"
        raise ParameterError(msg)
    return batches


def seeded_sources(graph: CSRGraph, count: int, seed: int) -> np.ndarray:
    """``count`` distinct CSR indices (all nodes when fewer) drawn with ``seed``: the
    sources of `frontier bench` and of every cell of a study."""
    if graph.n_nodes == 0:
        msg = f"graph {graph.name!r} has no nodes; there is nothing to search from"
        raise ParameterError(msg)
    for what, value, least in (("sources", count, 1), ("seed", seed, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            msg = f"{what} must be an integer ≥ {least}, got {value!r}"
            raise ParameterError(msg)
    rng = np.random.default_rng(seed)
    return rng.choice(graph.n_nodes, size=min(count, graph.n_nodes), replace=False)


@dataclasses.dataclass(frozen=True)
class Reference:
    """SciPy's Dijkstra from one source: distances, time, and the settle order (sorted
    only when asked: a full sweep needs just the reached set)."""

    source: int
    distances: np.ndarray
    ms: float

    @functools.cached_property
    def order(self) -> np.ndarray:
        """Reached nodes in settle order: the source first, then by distance, ties by CSR
        index."""
        dist = self.distances
        reached = np.flatnonzero((dist != UNREACHABLE) & (np.arange(dist.size) != self.source))
        return np.r_[self.source, reached[np.lexsort((reached, dist[reached]))]]

    def rank_of(self, node: int) -> int:
        return int(np.flatnonzero(self.order == node)[0])

    def edges_until(self, graph: CSRGraph, rank: int | None) -> int:
        """Arcs Dijkstra relaxes until the node of ``rank`` settles (all, without one)."""
        degree = np.diff(graph.indptr)
        if rank is None:
            return int(degree[self.distances != UNREACHABLE].sum())
        return int(degree[self.order[: rank + 1]].sum())


def dijkstra_reference(graph: CSRGraph, source: int, *, limit: float = np.inf) -> Reference:
    """SciPy's Dijkstra from ``source`` (up to distance ``limit``), timed."""
    from scipy.sparse.csgraph import dijkstra

    matrix = graph.scipy_matrix()
    start = time.perf_counter()
    raw = dijkstra(matrix, directed=True, indices=source, limit=limit)
    ms = (time.perf_counter() - start) * 1e3
    return Reference(int(source), from_scipy(raw), ms)


def rank_targets(reference: Reference) -> dict[int, int]:
    """The CSR index of the node at Dijkstra rank 2^r, for every r the source reaches."""
    ranks = max(reference.order.size - 1, 0).bit_length()  # every r with 2^r < reached
    return {r: int(reference.order[2**r]) for r in range(ranks)}


def study_queries(
    graph: CSRGraph, sources: np.ndarray, kind: str, target_rank: int | None = None
) -> list[tuple[int, int | None, int | None]]:
    """(source, target, rank) of each query: full searches (``sweep``), the target at rank
    2^``target_rank`` (``sweep`` with a rank), or every rank 2^r (``ranks``)."""
    queries = []
    for source in (int(s) for s in sources):
        if kind == "sweep" and target_rank is None:
            queries.append((source, None, None))
            continue
        targets = rank_targets(dijkstra_reference(graph, source))
        if kind == "ranks":
            queries += [(source, t, r) for r, t in targets.items()]
        elif target_rank in targets:
            queries.append((source, targets[target_rank], target_rank))
        else:
            reached = len(targets) and 2 ** max(targets)
            msg = (
                f"--target-rank {target_rank} is beyond the graph: source "
                f"{graph.node_ids[source]} reaches ranks up to 2^{max(targets, default=0)} "
                f"({reached:,}); give a smaller rank"
            )
            raise ParameterError(msg)
    if not queries:  # ranks of sources that reach no other node
        ids = ", ".join(str(graph.node_ids[int(s)]) for s in sources[:5])
        who = f"source {ids} reaches" if len(sources) == 1 else f"sources {ids} reach"
        msg = (
            f"no ranks to study: {who} no other node; "
            "choose other sources (--seed) or a connected graph"
        )
        raise ParameterError(msg)
    return queries


def searches_per_query(
    methods: list[str], deltas: list[tuple[str, int]], batches: list[int], repeat: int = 1
) -> int:
    """How many searches `run_cells` runs for each query (for progress bars)."""
    return sum(
        (len(deltas) if _validate.method(m).uses_delta else 1) * len(batches) * repeat
        for m in methods
    )


def cell_key(row: dict) -> tuple:
    """The identity of a row's search (`KEY`), as text, for resuming."""
    return tuple(str(row[k]) for k in KEY)


def query_ids(node_ids: np.ndarray, source: int, target: int | None) -> tuple[int, int | str]:
    """A query's ``source`` and ``target`` columns: the nodes' own ids (no target: ``""``)."""
    return int(node_ids[source]), "" if target is None else int(node_ids[target])


def run_cells(
    graph: CSRGraph,
    queries: Iterable[tuple[int, int | None, int | None]],
    *,
    methods: list[str],
    deltas: list[tuple[str, int]],
    batches: list[int],
    backend: str = "auto",
    repeat: int = 1,
    done: set[tuple] = frozenset(),
    on_row: Callable[[dict], None],
    on_query: Callable[[], None] | None = None,
    stop: Callable[[], bool] | None = None,
) -> int:
    """Run every method × Δ × batch × repeat cell for each (source, target, rank) query;
    hand each row to ``on_row``; return how many searches ran (rows in ``done`` are
    skipped). Methods without Δ run once per batch (Δ ``-``). ``stop`` is asked before
    each search; when it says True, the study ends there."""
    ran = 0
    full, full_source = None, None
    cells_of = {m: _cells(graph, m, deltas) for m in methods}
    for source, target, rank in queries:
        if source != full_source:  # queries come grouped by source
            full, full_source = dijkstra_reference(graph, source), source
        reference = full
        if target is not None:  # Dijkstra stopped at the target's distance, timed alone
            reference = dijkstra_reference(graph, source, limit=float(full.distances[target]))
        dijkstra_edges = full.edges_until(graph, None if target is None else full.rank_of(target))
        source_id, target_id = query_ids(graph.node_ids, source, target)
        for method in methods:
            for (delta_spec, delta), batch, k in _product(cells_of[method], batches, range(repeat)):
                row = {
                    "method": method,
                    "delta_spec": delta_spec,
                    "batch": batch,
                    "repeat": k,
                    "source": source_id,
                    "target": target_id,
                }
                if cell_key(row) in done:
                    continue
                if stop is not None and stop():
                    return ran
                r = sssp(
                    graph,
                    source,
                    method=method,
                    backend=backend,
                    delta=delta if delta is not None else "auto",
                    batch_size=batch,
                    target=target,
                )
                c = r.counters
                row |= {
                    "delta": "" if r.delta is None else r.delta,
                    "rank": "" if rank is None else rank,
                    "time_ms": round(r.elapsed_s * 1e3, 4),
                    "iterations": c.iterations,
                    "phases": c.phases,
                    "host_syncs": c.host_syncs,
                    "edges_relaxed": c.edges_relaxed,
                    "dijkstra_edges": dijkstra_edges,
                    "dijkstra_ms": round(reference.ms, 4),
                    "exact": _exact(r, full.distances, target),
                }
                on_row({name: row[name] for name in COLUMNS})
                ran += 1
        if on_query is not None:
            on_query()
    return ran


def _cells(graph: CSRGraph, method: str, deltas: list[tuple[str, int]]) -> list[tuple]:
    """The (spec, Δ) cells of ``method``: one ``-`` cell without Δ; for a method that
    searches the contraction core, ``auto``, ``xK`` and ``adaptive`` of the core's heuristic
    (as `sssp` reads them), not the graph's."""
    spec = _validate.method(method)
    if not spec.uses_delta:
        return [("-", None)]
    if spec.contracted:
        core = contraction.of(graph, spec.contraction).graph
        return parse_deltas(",".join(text for text, _ in deltas), core)
    return deltas


def _product(cells, batches, repeats):
    for cell in cells:
        for batch in batches:
            for k in repeats:
                yield cell, batch, k


def _exact(result, reference: np.ndarray, target: int | None) -> bool:
    d = result.distances
    if target is None:
        return bool(np.array_equal(d, reference))
    final = d < min(result.settled_below, UNREACHABLE)
    return bool(final[target] and np.array_equal(d[final], reference[final]))


# -- studies on disk ---------------------------------------------------------------------------


def metadata(graph: CSRGraph, **settings) -> dict:
    """What reproduces a study: the graph, its weights, the settings, where it ran."""
    import platform
    import subprocess

    import scipy

    from engine.backends import device as _backend

    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(__file__).parent,
            capture_output=True,
            text=True,
            timeout=5,
        ).stdout.strip()
    except OSError:
        commit = ""
    backend = settings.get("backend", "auto")
    gpu = backend != "cpu" and _backend.gpu_available()
    return {
        "graph": graph.name,
        "nodes": graph.n_nodes,
        "arcs": graph.n_arcs,
        "weights": graph.weight_kind,
        "weight_unit": graph.weight_unit,
        **settings,
        "device": _backend.device_name("gpu" if gpu else "cpu"),
        "host": platform.node(),
        "versions": {"numpy": np.__version__, "scipy": scipy.__version__},
        "git_commit": commit or None,
    }


#: Settings a resumed study must share with the one it continues.
SAME_FOR_RESUME = ("graph", "nodes", "arcs", "weights", "seed", "sources", "target_rank")


class StudyFiles:
    """``DIR/NAME.csv`` (rows appended as they come, so an interrupted study resumes from
    it), ``DIR/NAME.json`` and ``DIR/NAME.png`` (written whole at the end).

    One study writes into a folder at a time: ``DIR/.NAME.lock`` is locked (``flock``)
    while this object is open, and a second writer is refused (two at once wrote every
    cell twice). The lock goes with `close` or with the process.
    """

    def __init__(self, folder: Path, name: str, meta: dict, *, resume: bool):
        self.folder, self.name = Path(folder), name
        self.csv = self.folder / f"{name}.csv"
        self.json = self.folder / f"{name}.json"
        self.png = self.folder / f"{name}.png"
        if self.folder.exists() and not self.folder.is_dir():
            msg = f"--out {folder} is a file; give a folder"
            raise ParameterError(msg)
        if not self.folder.parent.is_dir():
            msg = f"cannot write {folder}: folder {str(self.folder.parent)!r} does not exist"
            raise ParameterError(msg)
        self.folder.mkdir(exist_ok=True)
        if not os.access(self.folder, os.W_OK):
            msg = f"cannot write into {folder}: the folder is not writable"
            raise ParameterError(msg)
        self._lock = (self.folder / f".{name}.lock").open("a")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.close()
            msg = (
                f"another {name} is writing into {folder} now; wait for it to end, or "
                "give another --out"
            )
            raise ParameterError(msg) from None
        self.rows: list[dict] = []
        self.meta = meta
        try:
            if self.csv.is_file():
                if not resume:
                    msg = f"{self.csv} exists; add --resume to go on with it, or use another --out"
                    raise ParameterError(msg)
                self._check_same(meta)
                self._drop_cut_line()
                self.rows = read_rows(self.csv)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Let another study write into the folder."""
        self._lock.close()

    def _check_same(self, meta: dict) -> None:
        try:
            before = json.loads(self.json.read_text())
        except (OSError, ValueError):
            msg = f"cannot resume: {self.json} is missing or unreadable; use another --out"
            raise ParameterError(msg) from None
        for key in SAME_FOR_RESUME:
            if before.get(key) != meta.get(key):
                msg = (
                    f"cannot resume: {self.csv} is of another study ({key} "
                    f"{before.get(key)!r}, not {meta.get(key)!r}); use another --out"
                )
                raise ParameterError(msg)

    def _drop_cut_line(self) -> None:
        """Remove a last line that a kill cut short, so appended rows start on their own."""
        data = self.csv.read_bytes()
        if data and not data.endswith(b"\n"):
            whole = data[: data.rfind(b"\n") + 1]
            write_atomic(self.csv, lambda f: f.write(whole))

    @property
    def done(self) -> set[tuple]:
        return {cell_key(row) for row in self.rows}

    def start(self) -> None:
        """Write the metadata now, so an interrupted study can be resumed."""
        self._write_json()

    def append(self, row: dict) -> None:
        new = not self.csv.is_file()
        with self.csv.open("a", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=COLUMNS)
            if new:
                writer.writeheader()
            writer.writerow(row)
        self.rows.append({k: str(v) for k, v in row.items()})

    def rewrite(self, rows: list[dict]) -> None:
        """Replace the CSV by ``rows`` (the same rows in another order), whole or not at all."""
        text = csv_text(rows, line_end="\r\n")  # as csv's writer appends them
        write_atomic(self.csv, lambda f: f.write(text.encode()))
        self.rows = rows

    def finish(self, draw: Callable[[list[dict], dict, Path], None]) -> None:
        self.meta["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        self._write_json()
        write_atomic(self.png, lambda f: draw(self.rows, self.meta, f))

    def _write_json(self) -> None:
        write_json(self.json, self.meta)


def csv_text(rows: list[dict], *, line_end: str = "\n") -> str:
    """Rows as a study's CSV (header and all), for a download (or, with the ``"\r\n"`` of
    the files a study appends to, for such a file)."""
    out = StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator=line_end)
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def read_rows(path: Path) -> list[dict]:
    """The complete rows of a study's CSV (a last line cut by a kill is dropped)."""
    with Path(path).open(newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames is None or tuple(reader.fieldnames) != COLUMNS:
            msg = f"cannot resume: {path} does not have a study's columns; use another --out"
            raise ParameterError(msg)
        return [row for row in reader if None not in row.values() and row["exact"] != ""]
