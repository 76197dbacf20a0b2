"""One finished search as the views draw it (`Run`): its settings, the result and its frames,
SciPy's reference, the route, and what each frame shows (states, wasted work, readouts,
chart columns, bucket sizes). Imports nothing of the dashboard."""

from __future__ import annotations

import dataclasses

import numpy as np

import engine
from engine import UNREACHABLE
from engine.recording import FRAME_FIELDS


@dataclasses.dataclass(frozen=True)
class Settings:
    """One search configuration, as a hashable key."""

    method: str
    delta: int | str
    batch_size: int
    backend: str


@dataclasses.dataclass(frozen=True, eq=False)
class Reference:
    """SciPy's Dijkstra on the same query: its time (None: not timed, a graph larger than
    `viz.state.REFERENCE_MAX_NODES`), the arcs it relaxes (None: not known, a search of such
    a graph stopped at its target) and the target's distance."""

    elapsed_s: float | None
    edges_relaxed: int | None
    target_distance: int | None


@dataclasses.dataclass(frozen=True, eq=False)
class Run:
    """A finished search with what the views draw from it."""

    settings: Settings
    result: engine.SSSPResult
    reference: Reference
    route: np.ndarray  # CSR indices source → target, empty without a target
    route_cost: dict[str, int]  # the route's weight by kind ("length": cm, ...)

    @property
    def n_frames(self) -> int:
        rec = self.result.recording
        return 1 if rec is None else len(rec)

    def clamp(self, frame: int) -> int:
        """``frame`` moved into the recording's range."""
        return min(max(frame, 0), self.n_frames - 1)

    @property
    def by_phase(self) -> bool:
        """Whether a frame is a phase's end (the asynchronous methods), not an iteration."""
        rec = self.result.recording
        return rec is not None and rec.by_phase

    @property
    def step_noun(self) -> str:
        """What one frame is, in words: "iteration" or "phase end"."""
        return "phase end" if self.by_phase else "iteration"

    def sweeping(self, frame: int) -> bool:
        """Whether ``frame`` is a step of the sweep over the contracted nodes (after
        `near_far_core`'s search), where no threshold applies."""
        rec = self.result.recording
        start = None if rec is None else rec.sweep_from
        return start is not None and self.clamp(frame) >= start

    def states(self, frame: int) -> np.ndarray:
        """Each node's state code at ``frame`` (the final states for Dijkstra)."""
        rec = self.result.recording
        if rec is not None:
            return rec.states(self.clamp(frame))
        final = self.result.distances < min(self.result.settled_below, UNREACHABLE)
        if self.result.target is not None:
            final &= self.result.distances <= self.result.distances[self.result.target]
        return np.where(final, engine.recording.SETTLED, engine.recording.UNREACHED).astype(
            np.uint8
        )

    def work(self, frame: int) -> np.ndarray:
        """How many times each node's arcs were relaxed up to ``frame``, 4 for 4 or more
        (``uint8``; zeros for Dijkstra, which records nothing)."""
        rec = self.result.recording
        if rec is None:
            return np.zeros(self.result.graph.n_nodes, dtype=np.uint8)
        return np.minimum(rec.relax_counts(self.clamp(frame)), 4).astype(np.uint8)

    def readout(self, frame: int) -> dict[str, int]:
        """Counts shown for ``frame``: iteration, phase, near, far, settled, lo, hi, Δ."""
        rec = self.result.recording
        if rec is None:
            c = self.result.counters
            settled = int(np.count_nonzero(self.states(frame)))
            return dict(iteration=c.iterations, phase=0, near=0, far=0, settled=settled, lo=0, hi=0,
                        delta=self.result.delta or 0)  # fmt: skip
        s = rec.snapshot(self.clamp(frame))
        if rec.by_phase:  # the phases ended (a sweep's frames end none)
            searched = len(rec) - 1 if rec.sweep_from is None else rec.sweep_from - 1
            iteration = min(s.iteration, searched)
        else:
            iteration = s.iteration
        return dict(
            iteration=iteration,
            phase=s.phase,
            near=s.near,
            far=s.far,
            settled=s.settled,
            lo=s.settled_below,
            hi=s.threshold,
            delta=s.delta,
        )

    def route_visible(self, frame: int) -> bool:
        """Whether the target is settled by ``frame`` (the route is drawn from then on)."""
        if not self.route.size:
            return False
        rec = self.result.recording
        if rec is None:
            return True
        at = int(rec.settled_at[self.route[-1]])
        return 0 <= at <= self.clamp(frame)

    def chart_columns(self) -> dict[str, np.ndarray]:
        """Per-frame series for the charts: frame, near, far, settled, edges relaxed, Δ."""
        rec = self.result.recording
        if rec is None:
            c = self.result.counters
            settled = int(np.count_nonzero(self.states(0)))
            one = lambda v: np.array([v], dtype=np.int64)  # noqa: E731
            return dict(
                frame=one(0),
                near=one(0),
                far=one(0),
                settled=one(settled),
                edges=one(c.edges_relaxed),
                delta=one(self.result.delta or 0),
            )
        f = rec.frames
        col = {name: f[:, k] for k, name in enumerate(FRAME_FIELDS)}
        return dict(
            frame=np.arange(len(f)),
            near=col["neared"] - col["settled"],
            far=col["reached"] - col["neared"],
            settled=col["settled"],
            edges=col["edges_relaxed"],
            delta=col["delta"],
        )

    def phase_starts(self) -> np.ndarray:
        """Frames where a new phase (bucket) begins."""
        rec = self.result.recording
        if rec is None:
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(np.diff(rec.column("phase")) > 0) + 1

    def buckets(self, frame: int) -> np.ndarray | None:
        """The bucket sizes (Δ-stepping, bucketing) at ``frame`` (current bucket first, tail
        last)."""
        rec = self.result.recording
        if rec is None or rec.buckets is None:
            return None
        return rec.buckets[self.clamp(frame)]
