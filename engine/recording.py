"""Per-iteration snapshots of a search, stored compactly.

A node's state only moves forward: *unreached* → *far* → *near* → *settled* (distances only
fall and the thresholds only rise). So a whole run is stored as three ``int32`` stamps per
node (the iteration at which it was first reached, first near, settled; -1 for never) plus
one small row of numbers per iteration. The state of every node at any frame is then
``(reached ≤ f) + (near ≤ f) + (settled ≤ f)``: 12 bytes a node however many frames there
are, so 10k frames of a 100k-node city take 1.2 MB plus 10k frame rows.

Frame 0 is the state before the first iteration (the source near); frame ``i`` is the state
after iteration ``i``'s advance and filter, including the phase change that iteration ended
with. In the last frame every reachable node is settled (a point-to-point query stops
earlier, once its target is settled).

The asynchronous methods have no iterations: their near set is relaxed without a barrier
between one relaxation and the next. They are recorded *by phase* (`by_phase`): frame ``k``
is the state at the end of phase ``k``. Every node below the phase's threshold is settled
then; the near set shown is the next band, the reached nodes whose distance falls in it; the
far pile the other reached nodes. ``near_far_core`` adds the sweep: after the search of its
core, a frame per sweep step, in which the nodes it contracted in that round become near
(their distance found), settled in the next frame. The node stamps then follow from the
distances, the phases' thresholds and the phase in which each node was first reached
(`phase_stamps`), on the GPU as on the CPU.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import numpy as np

from engine.graphs.csr import UNREACHABLE

UNREACHED, FAR, NEAR, SETTLED = 0, 1, 2, 3

#: Names of the node states, indexed by state code.
STATE_NAMES = ("unreached", "far", "near", "settled")

#: Bucket sizes are kept for the current bucket and the next ``BUCKET_BINS - 2``; the last
#: bin counts every node in a bucket further ahead.
BUCKET_BINS = 256

#: Columns of the frame table, in order.
FRAME_FIELDS = (
    "iteration",  # iteration number (0 = initial state)
    "phase",  # phase (bucket) counter, from 1
    "lo",  # nodes with distance < lo are settled
    "hi",  # the threshold phase·Δ: nodes with lo ≤ distance < hi are near
    "frontier",  # nodes relaxed in this iteration
    "far_pile",  # far-pile entries after this iteration (duplicates included)
    "edges_relaxed",  # arcs relaxed so far
    "improving",  # relaxations that lowered a distance, so far
    "reached",  # nodes reached so far
    "neared",  # nodes that have been near so far
    "settled",  # nodes settled so far
    "relaxed_entries",  # near entries whose arcs were relaxed, so far (the relax log's length)
    "delta",  # the Δ of the current band (it changes at phase ends with an adaptive Δ)
    "last_entries",  # near entries relaxed in the last finished phase
    "last_waste",  # its re-improvements of near nodes (the adaptive Δ rule's input)
)
_F = {name: k for k, name in enumerate(FRAME_FIELDS)}

#: What a recording by phase keeps of each phase, in order: the band it worked (``lo``,
#: ``hi``, ``delta``), the near entries it relaxed, the far-pile entries left after its end
#: (duplicates included), the arcs relaxed and improving relaxations so far, and its
#: re-improvements of near nodes.
PHASE_FIELDS = ("lo", "hi", "delta", "entries", "far_pile", "edges", "improving", "waste")
_P = {name: k for k, name in enumerate(PHASE_FIELDS)}


def frame_threshold(value: int) -> int:
    """A threshold (``lo``, ``hi``) as the ``int64`` frame table stores it: a threshold at
    or beyond every distance (Bellman-Ford's ∞, a Δ of 2^63 or more) is `UNREACHABLE`."""
    return min(int(value), UNREACHABLE)


@dataclasses.dataclass(frozen=True)
class Snapshot:
    """What a search looked like after one iteration.

    Attributes
    ----------
    iteration, phase : int
        Iteration (0 = before the first) and phase counters.
    threshold : int
        The current threshold phase·Δ (``hi``); ``settled_below`` is ``lo``.
    near, far, settled, unreached : int
        Number of nodes in each state.
    frontier : int
        Nodes relaxed in this iteration (the near work queue).
    far_pile : int
        Entries in the far pile, duplicates included.
    edges_relaxed : int
        Arcs relaxed so far.
    delta : int
        The Δ of the current band (`UNREACHABLE` for a method without buckets).
    last_entries, last_waste : int
        What the last finished phase did (0 in the first phase): the near entries it
        relaxed, and its re-improvements of nodes that were near already, from which an
        adaptive Δ chose ``delta`` (`engine.adaptive`).
    buckets : dict[int, int] or None
        Δ-stepping and bucketing only: size of every non-empty bucket, keyed by bucket index
        (distance // Δ, with this frame's Δ); the key ``-1`` counts the nodes more than
        ``BUCKET_BINS - 2`` buckets ahead.
    """

    recording: Recording = dataclasses.field(repr=False, compare=False)
    frame: int
    iteration: int
    phase: int
    settled_below: int
    threshold: int
    near: int
    far: int
    settled: int
    unreached: int
    frontier: int
    far_pile: int
    edges_relaxed: int
    delta: int
    last_entries: int
    last_waste: int
    buckets: dict[int, int] | None

    def states(self) -> np.ndarray:
        """Each node's state at this frame as ``uint8`` codes (see `STATE_NAMES`)."""
        return self.recording.states(self.frame)


def _stamp(row: int, doc: str) -> property:
    """A row of `Recording.stamps` as an attribute (assigning to it fills the row)."""

    def get(self) -> np.ndarray:
        return self.stamps[row]

    def put(self, value: np.ndarray) -> None:
        self.stamps[row] = value

    return property(get, put, doc=doc)


class Recording:
    """The frames of one search, filled while it runs.

    Attributes
    ----------
    n_nodes : int
    reached_at, near_at, settled_at : numpy.ndarray
        ``int32`` stamps per node, -1 where the event has not happened.
    frames : numpy.ndarray
        ``int64`` table, one row per frame, columns `FRAME_FIELDS`.
    buckets : numpy.ndarray or None
        Δ-stepping and bucketing only: ``int64`` bucket counts per frame, `BUCKET_BINS`
        columns: bin 0 is the current bucket, bin ``k`` the ``k``-th after it, the last bin
        the rest.
    delta : int
        The Δ of the run's first phase (the ``delta`` column has each frame's).

    The stamps start as -1, or as the ``(3, n_nodes)`` ``int32`` block (or three arrays)
    given as ``stamps``, which its maker fills in whole: the GPU copies its stamps into one
    page-locked block with one copy (filling 1.5M-node arrays with -1 first cost a recorded
    search on PACE NE milliseconds).
    """

    def __init__(
        self,
        n_nodes: int,
        *,
        delta: int,
        with_buckets: bool,
        stamps: np.ndarray | tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    ):
        self.n_nodes = n_nodes
        self.delta = delta
        #: ``(3, n_nodes)``: the rows are `reached_at`, `near_at` and `settled_at`.
        self.stamps = (
            np.full((3, n_nodes), -1, dtype=np.int32) if stamps is None else np.asarray(stamps)
        )
        self._frames: list[np.ndarray] = []
        self._buckets: list[np.ndarray] | None = [] if with_buckets else None
        self._cache: tuple[np.ndarray, np.ndarray | None] | None = None
        self._log = np.zeros(0, dtype=np.int32)
        self._slots: np.ndarray | None = None
        #: whether a frame is a phase's end rather than an iteration (`fill_by_phase`)
        self.by_phase = False
        #: the first frame of ``near_far_core``'s sweep (None: no sweep)
        self.sweep_from: int | None = None

    reached_at = _stamp(0, "The frame at which each node was reached (-1: never).")
    near_at = _stamp(1, "The frame at which each node became near (-1: never).")
    settled_at = _stamp(2, "The frame at which each node was settled (-1: never).")

    @property
    def relax_log(self) -> np.ndarray:
        """The node of every near entry whose arcs were relaxed, in iteration order (entries
        with no arc to relax left out): a node's count up to a frame is its relax work."""
        if self._slots is not None:
            self._log, self._slots = self._slots[self._slots >= 0], None
        return self._log

    @relax_log.setter
    def relax_log(self, log: np.ndarray) -> None:
        self._log, self._slots = log, None

    def take_relax_slots(self, slots: np.ndarray) -> None:
        """Take the relax log as the GPU writes it: a slot per near entry relaxed, -1 where
        the entry had no arc. The entries without arcs are dropped when the log is first read
        (on the device, that cost every recorded search a scan and a wait)."""
        self._slots = slots

    def append(
        self, rows: np.ndarray, buckets: np.ndarray | list[np.ndarray] | None = None
    ) -> None:
        """Add frame rows (and their bucket bins) produced by a batch of iterations; the
        bins may come as several blocks whose rows follow each other (the GPU's batches, kept
        where they were copied)."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1, len(FRAME_FIELDS))
        self._frames.append(rows)
        if self._buckets is not None:
            blocks = buckets if isinstance(buckets, list) else [buckets]
            self._buckets += [
                np.asarray(b, dtype=np.int64).reshape(-1, BUCKET_BINS) for b in blocks
            ]
        self._cache = None

    @property
    def frames(self) -> np.ndarray:
        self._consolidate()
        return self._cache[0]

    @property
    def buckets(self) -> np.ndarray | None:
        self._consolidate()
        return self._cache[1]

    def _consolidate(self) -> None:
        if self._cache is None:
            frames = (
                np.concatenate(self._frames)
                if self._frames
                else np.zeros((0, len(FRAME_FIELDS)), np.int64)
            )
            buckets = None
            if self._buckets is not None:
                buckets = (
                    np.concatenate(self._buckets)
                    if self._buckets
                    else np.zeros((0, BUCKET_BINS), np.int64)
                )
            self._cache = (frames, buckets)

    def __len__(self) -> int:
        return sum(len(f) for f in self._frames)

    def column(self, name: str) -> np.ndarray:
        """One column of the frame table, by name (see `FRAME_FIELDS`)."""
        return self.frames[:, _F[name]]

    def states(self, frame: int) -> np.ndarray:
        """Each node's state at ``frame`` as ``uint8`` codes (see `STATE_NAMES`)."""
        f = np.uint32(frame)  # read as unsigned, a stamp of -1 (not yet) is above every frame
        out = (self.reached_at.view(np.uint32) <= f).view(np.uint8)
        out += self.near_at.view(np.uint32) <= f
        out += self.settled_at.view(np.uint32) <= f
        return out

    def snapshot(self, frame: int) -> Snapshot:
        """The `Snapshot` of one frame."""
        row = self.frames[frame]
        reached, neared, settled = (int(row[_F[k]]) for k in ("reached", "neared", "settled"))
        buckets = None
        if self.buckets is not None:
            bins = self.buckets[frame]
            first = int(row[_F["lo"]]) // int(row[_F["delta"]])
            buckets = {first + k: int(c) for k, c in enumerate(bins[:-1]) if c}
            if bins[-1]:
                buckets[-1] = int(bins[-1])
        return Snapshot(
            recording=self,
            frame=frame,
            iteration=int(row[_F["iteration"]]),
            phase=int(row[_F["phase"]]),
            settled_below=int(row[_F["lo"]]),
            threshold=int(row[_F["hi"]]),
            near=neared - settled,
            far=reached - neared,
            settled=settled,
            unreached=self.n_nodes - reached,
            frontier=int(row[_F["frontier"]]),
            far_pile=int(row[_F["far_pile"]]),
            edges_relaxed=int(row[_F["edges_relaxed"]]),
            delta=int(row[_F["delta"]]),
            last_entries=int(row[_F["last_entries"]]),
            last_waste=int(row[_F["last_waste"]]),
            buckets=buckets,
        )

    def __iter__(self) -> Iterator[Snapshot]:
        for k in range(len(self)):
            yield self.snapshot(k)

    def relax_counts(self, frame: int) -> np.ndarray:
        """How many times each node's arcs were relaxed up to ``frame`` (``int32``): 1 is
        the work Dijkstra does for a reachable node, every further time is wasted work (the
        node's distance was not yet final)."""
        done = int(self.frames[frame, _F["relaxed_entries"]])
        return np.bincount(self.relax_log[:done], minlength=self.n_nodes).astype(np.int32)

    def bucket_matrix(self, limit: int = 512) -> np.ndarray | None:
        """Δ-stepping's bucket sizes by bucket index (distance // Δ, with each frame's Δ) per
        frame, as an ``(frames, buckets)`` array over the buckets ever occupied (at most
        ``limit``); the last bin (the rest, further ahead) is left out. None for other
        methods."""
        if self.buckets is None:
            return None
        bins = self.buckets[:, :-1]
        first = np.minimum(self.column("lo"), UNREACHABLE - BUCKET_BINS) // self.column("delta")
        index = first[:, None] + np.arange(bins.shape[1])[None, :]
        used = bins > 0
        width = int(min(index[used].max() + 1, limit)) if used.any() else 0
        keep = used & (index < width)
        rows = np.broadcast_to(np.arange(len(bins))[:, None], bins.shape)
        out = np.zeros((len(bins), width), dtype=np.int64)
        np.add.at(out, (rows[keep], index[keep]), bins[keep])
        return out

    def nbytes(self) -> int:
        """Memory held by the recording, in bytes."""
        total = self.reached_at.nbytes + self.near_at.nbytes + self.settled_at.nbytes
        total += self.relax_log.nbytes
        total += self.frames.nbytes
        if self.buckets is not None:
            total += self.buckets.nbytes
        return int(total)


def phase_stamps(
    dist: np.ndarray,
    reached_phase: np.ndarray,
    his: np.ndarray,
    *,
    done: bool,
    source: int,
    sweep_step: np.ndarray | None = None,
) -> np.ndarray:
    """The ``(3, n)`` ``int32`` stamps of a recording by phase (the NumPy twin of kernel
    ``phase_stamps``).

    Parameters
    ----------
    dist : numpy.ndarray
        The search's ``int64`` distances, `UNREACHABLE` where unreached.
    reached_phase : numpy.ndarray
        The phase (from 1) in which each node was first reached, 0 for the source, -1 never.
    his : numpy.ndarray
        Each phase's threshold, ascending: phase ``k`` settles the nodes below ``his[k-1]``.
    done : bool
        Whether the search ran to its end (else it stopped once its target settled).
    source : int
    sweep_step : numpy.ndarray, optional
        ``near_far_core``: the step of its sweep that gives each contracted node its
        distance (-1 for a core node).

    The frame of a node's settling is its phase; it is near from the end of the phase
    before (the next band), once reached. A contracted node (not the source) is reached
    in the phase that reached it on the search's climb (its distance an upper bound until
    the sweep), else at the frame of its sweep step; where its distance is final (the search
    ran to its end, or stopped above that distance) it is near at that frame and settled at
    the next.
    """
    phases = his.size
    reached = dist != UNREACHABLE
    band = np.searchsorted(his, dist, side="right") + 1
    settled = reached & (band <= phases)
    stamps = np.full((3, dist.size), -1, dtype=np.int32)
    stamps[2] = np.where(settled, band, -1)
    stamps[0] = np.where(settled, np.minimum(reached_phase, band), reached_phase)
    stamps[1] = np.where(settled, np.maximum(stamps[0], band - 1), -1)
    if sweep_step is not None:
        swept = (sweep_step >= 0) & reached
        swept[source] = False
        at = phases + 1 + sweep_step[swept]
        final = done | (dist[swept] < his[-1])
        climbed = reached_phase[swept]
        stamps[0, swept] = np.where(climbed >= 0, climbed, at)
        stamps[1, swept] = np.where(final, at, -1)
        stamps[2, swept] = np.where(final, at + 1, -1)
    return stamps


def stamp_counts(stamps: np.ndarray, frames: int) -> np.ndarray:
    """``(3, frames)``: how many nodes carry each frame in each row of ``stamps``."""
    return np.stack([np.bincount(row[row >= 0], minlength=frames) for row in stamps])


def frame_count(phases: int, sweep_steps: int | None) -> int:
    """Frames of a recording by phase: the start, each phase's end, and with a sweep one
    per step and its end."""
    return phases + 1 + (0 if sweep_steps is None else sweep_steps + 1)


def fill_by_phase(
    rec: Recording,
    phases: np.ndarray,
    counts: np.ndarray,
    *,
    sweep: tuple[np.ndarray, np.ndarray] | None = None,
) -> None:
    """Give ``rec``, whose stamps are set, one frame per phase end (and sweep step).

    Parameters
    ----------
    rec : Recording
    phases : numpy.ndarray
        ``(phases, len(PHASE_FIELDS))`` ``int64``: what each phase did.
    counts : numpy.ndarray
        ``(3, frames)``: the nodes whose reached, near and settled stamp is each frame
        (`stamp_counts`).
    sweep : tuple of numpy.ndarray, optional
        ``near_far_core``: the nodes and the arcs down of each sweep step.
    """
    n_phases = len(phases)
    frames = frame_count(n_phases, None if sweep is None else len(sweep[0]))
    rows = np.zeros((frames, len(FRAME_FIELDS)), dtype=np.int64)
    col = lambda name: rows[:, _F[name]]  # noqa: E731
    col("iteration")[:] = np.arange(frames)
    col("phase")[:] = np.minimum(np.arange(frames) + 1, n_phases)
    last = phases[-1]
    for name in ("lo", "hi", "delta"):
        col(name)[:n_phases] = phases[:, _P[name]]
    col("lo")[n_phases:] = col("hi")[n_phases:] = last[_P["hi"]]
    col("delta")[n_phases:] = last[_P["delta"]]
    ended = slice(1, n_phases + 1)
    for frame_name, phase_name in (
        ("frontier", "entries"), ("far_pile", "far_pile"), ("edges_relaxed", "edges"),
        ("improving", "improving"), ("last_entries", "entries"), ("last_waste", "waste"),
    ):  # fmt: skip
        col(frame_name)[ended] = phases[:, _P[phase_name]]
    for name in ("improving", "last_entries", "last_waste"):
        col(name)[n_phases + 1 :] = col(name)[n_phases]
    if sweep is not None:
        nodes, arcs = sweep
        swept = slice(n_phases + 1, frames)
        col("frontier")[n_phases + 1 : frames - 1] = nodes
        col("edges_relaxed")[swept] = last[_P["edges"]] + np.cumsum(np.append(arcs, 0))
        rec.sweep_from = n_phases + 1
    rows[:, _F["reached"] : _F["settled"] + 1] = np.cumsum(counts[:, :frames], axis=1).T
    rec.append(rows)
    rec.by_phase = True


def phases_of(rec: Recording) -> tuple[np.ndarray, np.ndarray]:
    """A recording by iteration as a recording by phase would have it: what each phase did
    (`PHASE_FIELDS`) and the phase in which each node was first reached (0 for the source,
    -1 for never). The CPU records the asynchronous methods so, from their synchronous
    twin."""
    frames = rec.frames
    phase = frames[:, _F["phase"]]
    last = len(frames) - 1
    # the frames of phase changes, and the last (the search's end changes no phase)
    ends = np.append(np.flatnonzero(np.diff(phase)) + 1, last)
    begins = np.append(0, ends[:-1])  # the frame whose row holds each band
    table = np.zeros((ends.size, len(PHASE_FIELDS)), dtype=np.int64)
    for name in ("lo", "hi", "delta"):
        table[:, _P[name]] = frames[begins, _F[name]]
    done_entries = np.cumsum(frames[:, _F["frontier"]])[ends]
    table[:, _P["entries"]] = np.diff(np.append(0, done_entries))
    for phase_name, frame_name in (
        ("far_pile", "far_pile"), ("edges", "edges_relaxed"), ("improving", "improving"),
        ("waste", "last_waste"),
    ):  # fmt: skip
        table[:, _P[phase_name]] = frames[ends, _F[frame_name]]
    at = rec.reached_at
    reached_phase = np.where(at > 0, phase[np.maximum(at, 1) - 1], at).astype(np.int32)
    return table, reached_phase
