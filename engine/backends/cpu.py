"""The NumPy twin of the GPU kernels: the same iterations, filters and counters.

Each iteration is an *advance* (relax the arcs of every node in the near frontier) and a
*filter* (improved nodes below the threshold form the next frontier, the others go on the
far pile). When the frontier empties the phase ends: Δ-stepping relaxes the heavy arcs of
the bucket it just finished, the nodes of the band are settled, the Δ rule picks the next
Δ (`engine.adaptive`; a fixed Δ stays), and the far pile is compacted (settled entries and
duplicates dropped with a bitmask) into the next frontier, whose threshold is the first
multiple of Δ above the smallest far distance.

Bucketing (Davidson et al.'s third method) keeps the far nodes sorted by bucket (distance ÷
Δ) in a store of `SEGMENTS` segments, so a phase end takes the next segment and scans only
the pile of far appends made since the last sort (`_CpuSearch.next_bucket` says when the
store is sorted again; the GPU sorts by counting, in three passes). Our formulation: the
paper sorts with a radix sort and does not say when; the rule here bounds how often each far
entry is scanned between sorts.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from engine import contraction
from engine.graphs.csr import UNREACHABLE, unique
from engine.methods import SEGMENTS, Counters, RunSpec
from engine.recording import (
    BUCKET_BINS,
    FRAME_FIELDS,
    PHASE_FIELDS,
    Recording,
    fill_by_phase,
    frame_count,
    frame_threshold,
    phase_stamps,
    phases_of,
    stamp_counts,
)

_EMPTY = np.zeros(0, dtype=np.int64)


class _Store:
    """Bucketing's far nodes sorted by bucket: segment ``k`` holds bucket ``base + k``, the
    last (`SEGMENTS`) every bucket beyond; the segments before ``cursor`` are taken."""

    def __init__(self):
        self.clear()

    def clear(self) -> None:
        self.nodes = _EMPTY
        self.seg = np.zeros(SEGMENTS + 2, dtype=np.int64)
        self.base = self.cursor = 0

    def next_segment(self) -> int:
        """The first non-empty segment from the cursor on, before the last; else `SEGMENTS`."""
        full = np.flatnonzero(np.diff(self.seg[self.cursor : SEGMENTS + 1]))
        return self.cursor + int(full[0]) if full.size else SEGMENTS

    def left(self, k: int | None = None) -> int:
        """Entries from segment ``k`` (the cursor's) on."""
        return int(self.seg[-1] - self.seg[self.cursor if k is None else k])

    def rest(self) -> np.ndarray:
        return self.nodes[self.seg[self.cursor] :]

    def take(self, k: int) -> np.ndarray:
        """Segment ``k``'s entries; the cursor moves past it."""
        self.cursor = k + 1
        return self.nodes[self.seg[k] : self.seg[k + 1]]

    def sort(self, nodes: np.ndarray, dist: np.ndarray, delta: int) -> None:
        """Sort ``nodes`` (live, one copy each) by bucket ``dist // delta`` (a counting sort
        on the GPU; the order inside a segment does not matter)."""
        bucket = dist[nodes] // dist.dtype.type(delta)
        self.base = int(bucket.min())
        offset = np.minimum(bucket - dist.dtype.type(self.base), SEGMENTS).astype(np.int64)
        self.nodes = nodes[np.argsort(offset, kind="stable")]
        self.seg[1:] = np.cumsum(np.bincount(offset, minlength=SEGMENTS + 1))
        self.cursor = 0


class _CpuSearch:
    def __init__(self, spec: RunSpec):
        g = spec.graph
        self.spec = spec
        self.indptr = g.indptr
        self.indices = g.indices
        self.weights = g.weights
        self.ends = g.light_end(spec.split) if spec.light_heavy else g.indptr[1:]
        self.inf = np.iinfo(spec.dtype).max
        self.dist = np.full(g.n_nodes, self.inf, dtype=spec.dtype)
        self.c = Counters()
        self.rec = spec.recording
        self.rule = spec.rule
        self.delta = spec.delta  # this phase's
        self.entries = self.again = 0  # near entries and re-improvements of this phase
        self.last_entries = self.last_waste = 0  # the last phase's (the rule reads waste)
        self.track_band = spec.light_heavy or self.rec is not None
        self.in_band = np.zeros(g.n_nodes, dtype=bool) if self.track_band else None
        self.band: list[np.ndarray] = []
        self.pile: list[np.ndarray] = []
        self.store = _Store() if spec.method.bucketed else None
        self.reached = self.neared = self.settled = 0
        self.settled_below = int(self.inf)

    # -- advance -------------------------------------------------------------------------
    def relax(self, nodes: np.ndarray, starts: np.ndarray, stops: np.ndarray, hi=None):
        """Relax arcs ``starts[i]:stops[i]`` of ``nodes[i]``; return the improved nodes.
        With ``hi``, count the improved nodes that were near already (the Δ rule's waste)."""
        deg = stops - starts
        total = int(deg.sum())
        self.c.edges_relaxed += total
        if total == 0:
            return _EMPTY
        first = np.repeat(starts - np.cumsum(deg) + deg, deg)
        arcs = first + np.arange(total)
        heads = self.indices[arcs]
        # Never wraps: graph.distance_dtype picks the type from the largest d(u) + w.
        cand = np.repeat(self.dist[nodes], deg) + self.weights[arcs]
        better = cand < self.dist[heads]
        heads, cand = heads[better], cand[better]
        self.c.improving_relaxations += int(heads.size)
        if heads.size == 0:
            return _EMPTY
        improved = unique(heads)
        if hi is not None:
            self.again += int(np.count_nonzero(self.dist[improved] < hi))
        if self.rec is not None:
            fresh = improved[self.dist[improved] == self.inf]
            self.rec.reached_at[fresh] = self.c.iterations
            self.reached += int(fresh.size)
        np.minimum.at(self.dist, heads, cand)
        return improved

    def enter_near(self, nodes: np.ndarray) -> None:
        """Record nodes that became near for the first time (the band of this phase)."""
        if not self.track_band or nodes.size == 0:
            return
        new = nodes[~self.in_band[nodes]]
        self.in_band[new] = True
        self.band.append(new)
        if self.rec is not None:
            self.rec.near_at[new] = self.c.iterations
            self.neared += int(new.size)

    # -- filter --------------------------------------------------------------------------
    def split(self, improved: np.ndarray, hi) -> np.ndarray:
        near = self.dist[improved] < hi
        self.enter_near(improved[near])
        if not near.all():
            self.pile.append(improved[~near])
        return improved[near]

    def pile_nodes(self) -> np.ndarray:
        """The far entries: the pile's, and bucketing's store's not taken yet."""
        parts = self.pile if self.store is None else [*self.pile, self.store.rest()]
        return np.concatenate(parts) if parts else _EMPTY

    def end_phase(self, lo, hi, target: int | None) -> tuple[np.ndarray, object, object, bool]:
        """Settle the band and compact the far pile; return (frontier, lo, hi, done)."""
        spec, c = self.spec, self.c
        band = np.concatenate(self.band) if self.band else _EMPTY
        if spec.light_heavy and band.size:
            heavy = self.relax(band, self.ends[band], self.indptr[band + 1])
            self.split(heavy, hi)  # heavy arcs are longer than Δ: all land beyond hi
        if self.rec is not None:
            self.rec.settled_at[band] = c.iterations
            self.settled += int(band.size)
        self.band = []
        self.last_entries, self.last_waste = self.entries, self.again
        self.entries = self.again = 0
        if target is not None and self.dist[target] < hi:
            self.settled_below = int(hi)
            return _EMPTY, hi, hi, True
        if self.store is not None:
            return self.next_bucket(hi)
        # Compaction: one copy of each node (the GPU finds first copies with a bitmask).
        pile = self.live_unique(self.pile_nodes(), hi)
        self.pile = []
        if pile.size == 0:
            return _EMPTY, hi, hi, True
        # The band of width Δ holding the smallest far distance; below hi all is settled
        # already (an adaptive Δ may have grown past the last band's alignment).
        self.delta = self.rule.next(self.delta, self.last_waste)
        frontier, lo, hi = self.begin_band(pile, int(self.dist[pile].min()) // self.delta, hi)
        return frontier, lo, hi, False

    def begin_band(self, far: np.ndarray, bucket: int, hi) -> tuple[np.ndarray, int, int]:
        """Start the band of bucket ``bucket``: its nodes among ``far`` (live, one copy each)
        form the frontier, the others go back on the pile."""
        self.c.far_compactions += 1
        self.c.phases += 1
        aligned = bucket * self.delta
        new_lo = max(aligned, int(hi))
        new_hi = min(aligned + self.delta, int(self.inf))
        near = self.dist[far] < new_hi
        frontier = far[near]
        if not near.all():
            self.pile.append(far[~near])
        self.enter_near(frontier)
        return frontier, new_lo, new_hi

    def live_unique(self, entries: np.ndarray, hi) -> np.ndarray:
        """One copy of each entry not settled yet, counting the dropped ones."""
        live = entries[self.dist[entries] >= hi]
        kept = unique(live)
        self.c.stale_dropped += int(entries.size - live.size)
        self.c.duplicates_dropped += int(live.size - kept.size)
        return kept

    def next_bucket(self, hi) -> tuple[np.ndarray, object, object, bool]:
        """Bucketing's phase end: the next band is the store's next segment and the pile's
        entries of the same bucket.

        The pile holds the far appends since the last sort; it is sorted into the store (its
        live entries, one copy each, by bucket distance ÷ Δ) when the store has no segment
        left but the last, when the pile outgrows what is left of the store (so each entry is
        scanned a bounded number of times between sorts), or when Δ changes."""
        st = self.store
        pile = np.concatenate(self.pile) if self.pile else _EMPTY
        self.pile = []
        delta = self.rule.next(self.delta, self.last_waste)
        k = st.next_segment()
        if k == SEGMENTS or pile.size > st.left(k) or delta != self.delta:
            live = self.live_unique(np.concatenate([st.rest(), pile]), hi)
            if live.size == 0:
                st.clear()
                return _EMPTY, hi, hi, True
            self.delta = delta
            st.sort(live, self.dist, delta)
            self.c.bucket_sorts += 1
            pile, k = _EMPTY, 0
        # Here segment k exists (it is one before the last, or the sort made it).
        pile = self.live_unique(pile, hi)
        ahead = st.base + k
        if pile.size:
            ahead = min(ahead, int(self.dist[pile].min()) // self.delta)
        if st.base + k == ahead:
            pile = self.live_unique(np.concatenate([pile, st.take(k)]), hi)
        frontier, lo, hi = self.begin_band(pile, ahead, hi)
        return frontier, lo, hi, False

    # -- recording -----------------------------------------------------------------------
    def frame_row(self, lo, hi, frontier_size: int) -> list[int]:
        c = self.c
        pile = sum(p.size for p in self.pile) + (0 if self.store is None else self.store.left())
        values = {
            "iteration": c.iterations,
            "phase": c.phases,
            "lo": frame_threshold(lo),
            "hi": frame_threshold(hi),
            "frontier": frontier_size,
            "far_pile": pile,
            "edges_relaxed": c.edges_relaxed,
            "improving": c.improving_relaxations,
            "reached": self.reached,
            "neared": self.neared,
            "settled": self.settled,
            "relaxed_entries": self.logged,
            "delta": frame_threshold(self.delta),
            "last_entries": self.last_entries,
            "last_waste": self.last_waste,
        }
        return [values[k] for k in FRAME_FIELDS]

    def bucket_row(self, lo, hi) -> np.ndarray:
        bins = np.zeros(BUCKET_BINS, dtype=np.int64)
        bins[0] = self.neared - self.settled
        pile = unique(self.pile_nodes())
        far = self.dist[pile]
        far = far[far >= hi].astype(np.int64)
        if far.size:
            # Every distance is below 2^63 - 1, so a wider Δ puts them all in bucket 0 alike.
            delta = min(self.delta, UNREACHABLE)
            offset = np.minimum(far // delta - int(lo) // delta, BUCKET_BINS - 1)
            bins += np.bincount(offset, minlength=BUCKET_BINS)
        return bins

    # -- driver --------------------------------------------------------------------------
    def run(self, on_batch: Callable[[], None] | None) -> tuple[np.ndarray, Counters, int]:
        spec, c, rec = self.spec, self.c, self.rec
        s = spec.source
        self.dist[s] = 0
        lo, hi = 0, spec.initial_hi(self.inf)
        frontier = np.array([s], dtype=np.int64)
        c.phases = 1
        if rec is not None:
            rec.reached_at[s] = 0
            self.reached = 1
        self.enter_near(frontier)
        rows, buckets, log = [], [], []
        self.logged = 0

        def emit(frontier_size: int) -> None:
            if rec is not None:
                rows.append(self.frame_row(lo, hi, frontier_size))
                if spec.has_buckets:
                    buckets.append(self.bucket_row(lo, hi))

        def flush() -> None:
            if rec is not None and rows:
                rec.append(np.array(rows), np.array(buckets) if spec.has_buckets else None)
                rec.relax_log = np.concatenate([rec.relax_log, *log])
                rows.clear()
                buckets.clear()
                log.clear()
                if on_batch is not None:
                    on_batch()

        emit(0)
        done = False
        while not done:
            for _ in range(spec.batch_size):
                c.iterations += 1
                size = frontier.size
                self.entries += size
                if rec is not None:  # the relax log: entries that have arcs to relax
                    entries = frontier[self.ends[frontier] > self.indptr[frontier]]
                    log.append(entries.astype(np.int32))
                    self.logged += int(entries.size)
                improved = self.relax(frontier, self.indptr[frontier], self.ends[frontier], hi)
                frontier = self.split(improved, hi)
                if frontier.size == 0:
                    frontier, lo, hi, done = self.end_phase(lo, hi, spec.target)
                emit(size)
                if done:
                    break
            c.host_syncs += 1
            flush()
        return self.dist, c, self.settled_below


def run(spec: RunSpec, on_batch: Callable[[], None] | None = None):
    """Run one search on the CPU; return (distances, counters, settled_below), the distances
    ``int64`` with `UNREACHABLE` where unreached. On a contraction's core the sweep then gives
    the contracted nodes theirs, as the GPU's kernel ``sweep_down`` does before its search
    ends (`engine.contraction.sweep`).

    The asynchronous methods run their synchronous twin; recorded, they are recorded by
    phase (`engine.recording`), from the twin's iterations (`record_by_phase`)."""
    rec = spec.recording
    by_phase = rec is not None and spec.method.recorded_by_phase
    if by_phase:
        iterations = Recording(rec.n_nodes, delta=rec.delta, with_buckets=False)
        spec = dataclasses.replace(spec, recording=iterations)
    raw, counters, settled_below = _CpuSearch(spec).run(None if by_phase else on_batch)
    inf = np.iinfo(raw.dtype).max
    dist = raw.astype(np.int64)
    dist[raw == inf] = UNREACHABLE
    if spec.contraction is not None:
        contraction.sweep(spec.contraction, dist)
    if by_phase:
        record_by_phase(rec, spec, iterations, dist, done=settled_below == inf)
        if on_batch is not None:
            on_batch()
    return dist, counters, settled_below


def record_by_phase(
    rec: Recording, spec: RunSpec, iterations: Recording, dist: np.ndarray, *, done: bool
) -> None:
    """Fill ``rec`` by phase from ``iterations``, the same search recorded by iteration, and
    its distances ``dist`` (after the sweep, on a contraction's core)."""
    phases, reached_phase = phases_of(iterations)
    c = spec.contraction
    steps = None if c is None else contraction.sweep_steps(c)
    stamps = phase_stamps(
        dist,
        reached_phase,
        phases[:, PHASE_FIELDS.index("hi")],
        done=done,
        source=spec.source,
        sweep_step=steps,
    )
    rec.stamps[...] = stamps
    frames = frame_count(len(phases), None if c is None else c.n_rounds)
    sweep = None if c is None else contraction.sweep_sizes(c)
    fill_by_phase(rec, phases, stamp_counts(stamps, frames), sweep=sweep)
