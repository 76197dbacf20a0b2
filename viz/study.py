"""One Explore study of one query, run on a background thread (`Study`): the sweep or the
rank study's grid, the rows finished so far, the time left, and the words that report it.
Nothing of the page is touched here: `viz.explore.Explorer` collects the rows (`drain`).
"""

from __future__ import annotations

import queue
import threading
import time

import engine
from engine.studies import experiments

from .state import LoadedGraph

#: Said beside a study timed on the CPU.
CPU_NOTICE = "timed on the CPU (the NumPy twin): CPU times do not tell which Δ suits a GPU"


class Study:
    """One study of one query: its grid, the rows finished so far, and its thread.

    ``kind`` is ``"sweep"`` (every Δ × batch cell of the query) or ``"ranks"`` (each Δ at
    the first batch size, to the targets at every Dijkstra rank 2^r of the source).
    """

    def __init__(self, kind: str, loaded: LoadedGraph, queries: list, meta: dict, **grid):
        self.kind, self.loaded, self.queries, self.meta = kind, loaded, queries, meta
        self.method: str = grid["method"]
        self.deltas: list[tuple[str, int]] = grid["deltas"]
        self.batches: list[int] = grid["batches"]
        self.repeat: int = grid["repeat"]
        self.backend: str = grid["backend"]
        self.source, self.target = queries[0][0], (queries[0][1] if kind == "sweep" else None)
        per_query = experiments.searches_per_query(
            [self.method], self.deltas, self.batches, self.repeat
        )
        self.total = len(queries) * per_query
        self.rows: list[dict] = []
        self.outcome = "running"  # then "finished", "cancelled" or "failed"
        self.error: BaseException | None = None
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._stop = threading.Event()
        self._started = time.monotonic()
        self._first_at: float | None = None  # when the first search ended (it warms up)
        self._elapsed = 0.0
        self._thread = threading.Thread(target=self._work, name=f"frontier-{kind}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _work(self) -> None:
        try:
            experiments.run_cells(
                self.loaded.graph,
                self.queries,
                methods=[self.method],
                deltas=self.deltas,
                batches=self.batches,
                backend=self.backend,
                repeat=self.repeat,
                on_row=self._queue.put,
                stop=self._stop.is_set,
            )
        except Exception as exc:  # reported by the session, on the page's side
            self.error = exc
        self._queue.put(None)  # the end

    def drain(self) -> bool:
        """Take the rows finished since the last call; True when anything changed."""
        changed = False
        while True:
            try:
                row = self._queue.get_nowait()
            except queue.Empty:
                return changed
            changed = True
            if row is not None:
                self.rows.append({k: str(v) for k, v in row.items()})
                if self._first_at is None:
                    self._first_at = time.monotonic()
                continue
            self._elapsed = time.monotonic() - self._started
            if self.error is not None:
                self.outcome = "failed"
            else:
                self.outcome = "finished" if len(self.rows) == self.total else "cancelled"
            self.meta |= {
                "outcome": self.outcome,
                "searches": len(self.rows),
                "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            }

    def cancel(self) -> None:
        self._stop.set()

    def wait(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    def of_query(self, loaded: LoadedGraph, source: int, target: int | None) -> bool:
        """Whether the study is of this graph and query (a rank study: of this source)."""
        same = loaded is self.loaded and source == self.source
        return same and (self.kind == "ranks" or target == self.target)

    def status(self) -> str:
        """One line: what runs, how far it is, what came out."""
        what = "Sweep" if self.kind == "sweep" else "Rank study"
        done = len(self.rows)
        if self.outcome == "running":  # the time left from the searches after the first,
            eta = ""  # which compiles and warms up (it made a 12 s sweep say "51 s left")
            if done >= 2:
                rate = (time.monotonic() - self._first_at) / (done - 1)
                eta = f", about {rate * (self.total - done):.0f} s left"
            return f"{what}: {done} of {self.total} searches{eta}"
        if self.outcome == "failed":
            return f"{what} failed after {done} of {self.total} searches"
        inexact = sum(row["exact"] != "True" for row in self.rows)
        checked = f"{inexact} differ from SciPy's Dijkstra" if inexact else "every distance exact"
        ended = "finished" if self.outcome == "finished" else "cancelled"
        took = f"{done} of {self.total} searches in {self._elapsed:.1f} s"
        on_cpu = self.backend == "cpu" or not engine.gpu_available()
        return f"{what} {ended}: {took}, {checked}" + (f"; {CPU_NOTICE}" if on_cpu else "")
