"""Seeded random search campaigns, every answer checked against SciPy's Dijkstra.

A *case* is one graph, drawn from a shape (random, grid, star, chain, several components)
and a weight family (small, mostly zero, wide, near `MAX_WEIGHT`, at the edge of 32-bit
distances), with self loops, parallel arcs, zero weights and weights at `MAX_WEIGHT`
sprinkled in, and a source (sometimes a target). Each case is searched by every iterative
method, each at its own drawn Δ (1 to 2^40, or ``"auto"``) and batch size (1 to 1024), some
of them recorded. A *search* is one of those runs; campaigns count searches.

The searches run in a worker process under a watchdog: a search that outlasts its timeout
is counted as a hang and its worker replaced, so the campaign goes on. Case ``k`` of seed
``s`` is drawn from ``numpy.random.default_rng([s, k])`` alone, so ``draw_case(s, k)``
rebuilds any reported failure without the cases before it.

*File campaigns* (`file_campaign`) mutate the bytes of valid graph files (DIMACS, PACE, OSM
XML, osmnx GraphML, OSM PBF, some of them compressed) and load each: every one must load or
be refused with a one-line `FrontierError` within the timeout, and a graph that loads is
searched and checked against SciPy.

The cases are drawn by `engine.testing.cases`; this module runs and checks them.
``python bench/fuzz.py`` runs a campaign from the shell; the tests run small ones.
"""

from __future__ import annotations

import dataclasses
import gzip
import multiprocessing
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from engine import contraction
from engine import methods as _methods
from engine.graphs.csr import UNREACHABLE, CSRGraph, from_arcs
from engine.recording import frame_count
from engine.testing.cases import METHODS, Case, Run, draw_case, mutate, seed_files


def check(graph: CSRGraph, reference: np.ndarray, case: Case, run: Run, backend: str) -> str:
    """Run one search and compare it with ``reference``; return "" or what is wrong."""
    from engine.search import sssp

    r = sssp(
        graph,
        case.source,
        method=run.method,
        backend=backend,
        delta=run.delta,
        batch_size=run.batch,
        target=case.target,
        record=run.record,
    )
    d = r.distances
    # near_far_core's Δ is its search graph's, whose distance type may be wider
    kind = _methods.METHODS[run.method].contraction
    searched = contraction.of(graph, kind).graph if kind else graph
    if r.delta is not None and not 1 <= r.delta <= searched.max_delta():
        return f"Δ {r.delta} outside 1..{searched.max_delta()}"
    below = min(r.settled_below, UNREACHABLE)
    if case.target is not None and reference[case.target] != UNREACHABLE:
        if not d[case.target] < below:
            return "the target is not final when the search stops"
    # Final distances (below settled_below, by the search's account or by SciPy's) must be
    # SciPy's; the others are upper bounds.
    final = (d < below) | (reference < below)
    wrong = np.flatnonzero(final & (d != reference) | (d < reference))
    if wrong.size:
        v = int(wrong[0])
        return f"{wrong.size} wrong distances, e.g. node {v}: {int(d[v])} (SciPy {reference[v]})"
    return _check_recording(r) if r.recording is not None else ""


def _check_recording(r) -> str:
    rec = r.recording
    if rec.by_phase:  # a frame a phase, and on a core a frame a sweep step and one more
        kind = _methods.METHODS[r.method].contraction
        c = contraction.of(r.graph, kind) if kind else None
        frames = frame_count(r.counters.phases, None if c is None else c.n_rounds)
        if len(rec) != frames:
            return f"{len(rec)} frames for {r.counters.phases} phases (expected {frames})"
    elif len(rec) != r.counters.iterations + 1:
        return f"{len(rec)} frames for {r.counters.iterations} iterations"
    lo, hi = rec.column("lo"), rec.column("hi")
    if (lo < 0).any() or (hi < lo).any() or (np.diff(hi) < 0).any():
        return "recorded thresholds are negative, crossed or falling"
    if r.target is None:
        reached = int(np.count_nonzero(r.distances != UNREACHABLE))
        if rec.snapshot(len(rec) - 1).settled != reached:
            return "the last frame does not settle every reached node"
    return ""


def _scipy(graph: CSRGraph, source: int) -> np.ndarray:
    from scipy.sparse.csgraph import dijkstra

    from engine.search import from_scipy

    # float64 sums are exact here: the drawn distances stay below 2^53.
    return from_scipy(dijkstra(graph.scipy_matrix(), directed=True, indices=source))


def _warm_up(backend: str) -> None:
    """Compile the kernels before the watchdog starts counting (the first GPU search of a
    process compiles them, which takes far longer than any search)."""
    from engine.search import sssp

    g = from_arcs(3, [0, 1], [1, 2], [1, 2])
    for method in METHODS:
        sssp(g, 0, method=method, backend=backend)
        if _methods.METHODS[method].recordable:
            sssp(g, 0, method=method, backend=backend, record=True)


def _worker(conn, backend: str) -> None:
    _warm_up(backend)
    conn.send("ready")
    while (case := conn.recv()) is not None:
        if isinstance(case, Path):
            conn.send(_check_file(case, backend))
            continue
        graph = case.graph()
        reference = _scipy(graph, case.source)
        for run in case.runs:
            try:
                outcome = check(graph, reference, case, run, backend)
            except Exception as exc:  # every exception is a finding, reported by the parent
                outcome = f"error: {type(exc).__name__}: {exc}"
            conn.send(outcome)


@dataclasses.dataclass
class Report:
    """Counts of a campaign and its failures (each with a reproducer)."""

    seed: int
    backend: str
    max_nodes: int
    timeout_s: float
    device: str = ""
    kind: str = "searches"  # or "files": loads of mutated files
    cases: int = 0
    searches: int = 0
    wrong: int = 0
    errors: int = 0
    hangs: int = 0
    elapsed_s: float = 0.0
    counts: dict[str, int] = dataclasses.field(default_factory=dict)
    failures: list[dict] = dataclasses.field(default_factory=list)

    def add_failure(self, outcome: str, **details) -> None:
        """Count ``outcome`` (a hang, an error, or else a wrong answer) and keep it."""
        kind = "wrong"
        if outcome.startswith(("hang", "error")):
            kind = "hangs" if outcome.startswith("hang") else "errors"
        setattr(self, kind, getattr(self, kind) + 1)
        self.failures.append({"kind": kind, **details, "outcome": outcome})

    @property
    def clean(self) -> bool:
        return self.wrong == self.errors == self.hangs == 0

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)

    def line(self) -> str:
        what = (
            f"{self.cases} mutated files"
            if self.kind == "files"
            else f"{self.searches} searches on {self.cases} graphs"
        )
        return (
            f"{what} ({self.backend}, seed {self.seed}): {self.wrong} wrong, "
            f"{self.errors} errors, {self.hangs} hangs"
        )


class _Watched:
    """A worker process and its pipe; replaced after a hang or a crash."""

    def __init__(self, backend: str, start_timeout: float = 600.0):
        ctx = multiprocessing.get_context("spawn")  # no CUDA state is inherited
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, backend), daemon=True)
        self.proc.start()
        child.close()
        try:
            if self.conn.poll(start_timeout) and self.conn.recv() == "ready":
                return
        except EOFError:
            pass
        self.stop()
        msg = f"the {backend} worker did not start within {start_timeout:.0f} s"
        raise RuntimeError(msg)

    def lost(self, outcome: str) -> bool:
        """Whether ``outcome`` left the worker hung or dead; if so it is stopped and a new
        one is needed."""
        if outcome.startswith(("hang", "error: worker")):
            self.stop()
            return True
        return False

    def stop(self) -> None:
        self.proc.kill()
        self.proc.join()
        self.conn.close()


def campaign(
    searches: int,
    *,
    seed: int = 0,
    backend: str = "cpu",
    max_nodes: int = 200,
    timeout_s: float = 20.0,
    start_timeout_s: float = 600.0,
    max_seconds: float | None = None,
    progress: Callable[[Report], None] | None = None,
) -> Report:
    """Run at least ``searches`` searches of seeded cases on ``backend``; return the counts.

    Each search has ``timeout_s`` seconds before it counts as a hang. With ``max_seconds``
    no new case starts after that long (the report says how many searches ran).
    """
    from engine.backends.device import device_name

    report = Report(seed, backend, max_nodes, timeout_s, device=device_name(backend))
    start = time.perf_counter()
    worker = _Watched(backend, start_timeout_s)
    try:
        while report.searches < searches:
            if max_seconds is not None and time.perf_counter() - start > max_seconds:
                break
            case = draw_case(seed, report.cases, max_nodes=max_nodes)
            report.cases += 1
            worker.conn.send(case)
            for run in case.runs:
                outcome = _await(worker, timeout_s)
                report.searches += 1
                report.counts[run.method] = report.counts.get(run.method, 0) + 1
                if outcome:
                    _fail(report, case, run, outcome)
                if worker.lost(outcome):
                    worker = _Watched(backend, start_timeout_s)
                    break  # the case's other searches are not run
            if progress is not None:
                progress(report)
    finally:
        worker.stop()
    report.elapsed_s = round(time.perf_counter() - start, 3)
    return report


def _await(worker: _Watched, timeout_s: float) -> str:
    if not worker.conn.poll(timeout_s):
        return f"hang: no answer within {timeout_s:g} s"
    try:
        return worker.conn.recv()
    except EOFError:
        return f"error: worker died (exit code {worker.proc.exitcode})"


def _fail(report: Report, case: Case, run: Run, outcome: str) -> None:
    report.add_failure(
        outcome,
        case=case.index,
        shape=case.shape,
        family=case.family,
        nodes=case.n_nodes,
        method=run.method,
        delta=run.delta,
        batch=run.batch,
        record=run.record,
        reproduce=case.reproducer(run, report.backend, report.max_nodes),
    )


# -- file campaigns ---------------------------------------------------------------------------

#: Limits of a mutated file's load: no mutation may make a small file take more.
FILE_MAX_NODES, FILE_MAX_BYTES = 1_000_000, 64 * 2**20


def _check_file(path: Path, backend: str) -> str:
    """Load a mutated file: "" when it loads (and its search is right) or is refused with a
    one-line `FrontierError`, else what went wrong."""
    from engine._errors import FrontierError
    from engine.graphs.io import load_graph
    from engine.search import sssp

    try:
        graph = load_graph(path, cache=False, max_nodes=FILE_MAX_NODES, max_bytes=FILE_MAX_BYTES)
    except FrontierError as exc:
        text = str(exc)
        return f"error: a message of several lines: {text!r}" if "\n" in text.strip() else ""
    except Exception as exc:
        return f"error: {type(exc).__name__}: {exc}"
    if graph.n_nodes == 0:
        return ""
    reference = _scipy(graph, 0)
    d = sssp(graph, 0, backend=backend).distances
    if not np.array_equal(d, reference):
        return f"{int(np.count_nonzero(d != reference))} wrong distances"
    return "loaded"


def file_campaign(
    files: int,
    *,
    seed: int = 0,
    timeout_s: float = 10.0,
    progress: Callable[[Report], None] | None = None,
) -> Report:
    """Load ``files`` mutations of valid graph files; count wrong answers, raw exceptions
    (errors) and loads over ``timeout_s`` (hangs). ``counts`` says how many of each format
    loaded and how many were refused."""
    from engine.backends.device import device_name

    report = Report(seed, "cpu", 0, timeout_s, device=device_name("cpu"), kind="files")
    start = time.perf_counter()
    rng = np.random.default_rng([seed, 12])
    with tempfile.TemporaryDirectory() as folder:
        seeds = [(p, p.read_bytes()) for p in seed_files(Path(folder))]
        worker = _Watched("cpu")
        try:
            while report.cases < files:
                origin, data = seeds[int(rng.integers(0, len(seeds)))]
                mutated = mutate(rng, data)
                name = origin.name
                if rng.random() < 0.15:
                    mutated, name = gzip.compress(mutated), name + ".gz"
                if rng.random() < 0.15:
                    name = f"upload-{report.cases}.dat"  # read by content, not by name
                path = Path(folder) / "case" / name
                path.parent.mkdir(exist_ok=True)
                path.write_bytes(mutated)
                worker.conn.send(path)
                outcome = _await(worker, timeout_s)
                report.cases += 1
                report.searches += 1
                key = f"{origin.name}:{'loaded' if outcome == 'loaded' else 'refused'}"
                report.counts[key] = report.counts.get(key, 0) + 1
                if outcome not in ("", "loaded"):
                    report.add_failure(
                        outcome,
                        case=report.cases - 1,
                        seed_file=origin.name,
                        name=name,
                        bytes_hex=mutated[:4096].hex(),
                    )
                    if worker.lost(outcome):
                        worker = _Watched("cpu")
                if progress is not None:
                    progress(report)
        finally:
            worker.stop()
    report.elapsed_s = round(time.perf_counter() - start, 3)
    return report
