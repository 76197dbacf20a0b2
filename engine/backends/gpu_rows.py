"""A recorded GPU search: its device memory (`RecordingBlock`), its batches on their way into
the `Recording` (`Recorder`) and its frame rows' node counts, added on the host.

The kernels write each iteration's row without waiting for the other blocks: the row's own
numbers (iteration, phase, thresholds, frontier, Δ, …), then what the iteration added to the
counters, which each block keeps in shared memory and adds every TALLY iterations and at the
end of the batch (``add_tally`` in engine/backends/kernels/counters.cuh). A barrier per
iteration to read running totals cost a recorded Near-Far on PACE NE more than the search itself
(decisions/0041). After each batch the kernel ``finish_batch`` makes those additions the
running totals of `engine.recording.FRAME_FIELDS`, and the far pile's size from the
improving relaxations that made no frontier entry; the node counts come from the node
stamps, here. Δ-stepping's and bucketing's bucket rows are changes of the sizes: at a phase
end from a count of the pile, between phase ends from the moves of improved nodes from
bucket to bucket (``move_bins``); the GPU adds them up (kernel ``finish_batch``) and the band's
bucket is added here.

The asynchronous methods are recorded by phase (`record_phases`): kernel ``frontier_async``
writes a row per phase and stamps the nodes it reaches with their phase; kernel
``phase_stamps`` makes the rest of the stamps from the distances once the search (and the
sweep) is done.
"""

from __future__ import annotations

import numpy as np

from engine import contraction
from engine.backends import device as _backend
from engine.backends.contract import CONTROL_SLOTS, ROW_FIELDS, Control
from engine.backends.gpu_kernels import finish_batch, launch_elementwise
from engine.graphs.csr import UNREACHABLE
from engine.methods import RunSpec
from engine.recording import (
    BUCKET_BINS,
    FRAME_FIELDS,
    PHASE_FIELDS,
    fill_by_phase,
    frame_count,
    frame_threshold,
)

_F = {name: k for k, name in enumerate(FRAME_FIELDS)}
#: The node counts (from the stamps): columns that follow each other.
_COUNTED = slice(_F["reached"], _F["settled"] + 1)


def count_rows(
    rows: np.ndarray,
    counts: np.ndarray,
    *,
    done: int,
    buckets: list[np.ndarray] | None = None,
) -> None:
    """Add the node counts to frame rows that kernel ``finish_batch`` finished, in place.

    Parameters
    ----------
    rows : numpy.ndarray
        ``int64`` rows of consecutive iterations with the columns of
        `engine.recording.FRAME_FIELDS`.
    counts : numpy.ndarray
        ``(3, iterations + 1)``: the nodes reached, that have been near and settled by each
        iteration, counted from the node stamps.
    done : int
        The control block's done flag after the rows (0 running, 1 nothing left, 2 target
        settled): when 1, their last iteration left no band.
    buckets : list of numpy.ndarray, optional
        Δ-stepping and bucketing: each batch's rows, one per iteration, of the sizes of the
        buckets ahead of the band; the band's size (in bin 0) is added here, in place. Kept
        apart, in the page-locked memory they were copied into: joined in fresh memory they
        cost a recorded Δ-stepping search on Porto Alegre ≈ 0.1–0.2 ms more
        (decisions/0049).
    """
    if len(rows) == 0:
        return
    first = int(rows[0, _F["iteration"]])  # rows are consecutive iterations
    counted = counts[:, first : first + len(rows)]
    rows[:, _COUNTED] = counted.T
    if not buckets:
        return
    band = counted[1] - counted[2]  # near, not yet settled
    if done == 1:
        band[-1] = 0
    start = 0
    for part in buckets:
        part[:, 0] += band[start : start + len(part)]
        start += len(part)


class RecordingBlock:
    """A recorded search's device memory for what each batch adds to its `Recording`, laid
    out so that one copy a batch brings back the control block, the batch's frame rows and
    its bucket sizes, all finished by one launch of kernel ``finish_batch`` behind the batch:

    ``ctl | frame rows | sizes by iteration`` (copied) ``| the search kernel's bucket rows
    (a batch's changes, the sizes now, a phase end's count) | the sizes after the last
    batch``, a row per iteration of a batch. The kernels zero what the next batch adds to.
    Before, the host waited for the control block and then launched and copied the sizes:
    each step costs a GPU machine's host 5-10 µs (decisions/0060)."""

    def __init__(self, spec: RunSpec):
        cp = _backend.cupy()
        batch = self.batch = spec.batch_size
        self.bins = BUCKET_BINS if spec.has_buckets else 0
        #: where the frame rows and the sizes by iteration start, and the part copied
        self.rows_at, self.sizes_at = CONTROL_SLOTS, CONTROL_SLOTS + batch * ROW_FIELDS
        self.copied = self.sizes_at + batch * self.bins
        self.memory = cp.zeros(self.copied + (batch + 3) * self.bins, dtype=np.int64)
        self.ctl = self.memory[:CONTROL_SLOTS].view(np.uint64)  # kernel search_init fills it
        self.frames = self._rows(self.memory, self.rows_at, ROW_FIELDS)
        #: Δ-stepping and bucketing: the search kernel's bucket rows, and the (changes,
        #: sizes after the last batch, sizes by iteration) of kernel finish_batch
        self.changes = self.sums = None
        if self.bins:
            ahead = self.memory[self.copied :].reshape(-1, BUCKET_BINS)
            self.changes = ahead[: batch + 2]
            by_iteration = self._rows(self.memory, self.sizes_at, self.bins)
            self.sums = (self.changes, ahead[batch + 2], by_iteration)

    def _rows(self, memory, start: int, width: int):
        """``batch`` rows of ``width`` columns from ``start`` of ``memory`` (the block on the
        device, or its copied part on the host)."""
        return memory[start : start + self.batch * width].reshape(self.batch, width)

    def queue(self, pile_cap: int) -> np.ndarray:
        """Queue the finish of the batch that was just launched and the copy of its control
        block, frame rows and bucket sizes into fresh page-locked memory; return that
        memory (`take` reads it once the stream got there)."""
        finish_batch(self.frames, self.ctl, pile_cap, self.sums)
        return self.memory[: self.copied].get(
            out=_backend.pinned_empty(self.copied, np.int64), blocking=False
        )

    def take(self, host: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """The batch's control block, frame rows and bucket sizes (or None) in ``host``."""
        state = host[:CONTROL_SLOTS].view(np.uint64)
        k = int(state[Control.ITER] - state[Control.RFROM])
        bins = self._rows(host, self.sizes_at, self.bins)[:k] if self.bins else None
        return state, self._rows(host, self.rows_at, ROW_FIELDS)[:k], bins


class Recorder:
    """A recorded search's batches on their way into its `Recording`: each batch's frame
    rows wait here until the node stamps are copied (at the end, or after each batch of a
    stream), since the rows' node counts come from the stamps. On a small city (Porto
    Alegre, a millisecond a search) the host's steps were a third of what recording cost
    (decisions/0049)."""

    def __init__(self, rec, reached_at, near_at, ends):
        self.rec, self.reached_at, self.near_at, self.ends = rec, reached_at, near_at, ends
        #: (frame rows, bucket sizes or None) of each batch not recorded yet, on the host
        self.batches: list[tuple[np.ndarray, np.ndarray | None]] = []
        #: the stamps' counts by iteration (device, rows of `width`) and where they are
        #: taken (page-locked), and the relax log's used slots (page-locked)
        self.counts = self.taken = self.slots = None
        self.width = 0
        #: where kernels write the recording's stamps (`search.sssp` made them page-locked)
        self.stamps_at = _backend.host_pointer(rec.stamps)

    def end(self, relax_log, width: int, *, if_done: bool) -> tuple:
        """Kernel ``finish_search``'s arguments that take the stamps into the recording's
        page-locked memory, and the relax log's slots and the stamps' counts into this
        recorder's (``width``: at least the iterations done then, plus one)."""
        if not if_done or self.counts is None or self.counts.shape[0] < 3 * width + 1:
            # Queued behind every long batch the kernel counts once, so the counts grow by
            # doubling; a stream counts after every batch. (The slot after the three rows
            # counts the kernel's blocks that finished.)
            if if_done and self.counts is not None:
                width = max(width, 2 * self.width)
            self.width = width
            self.counts = _backend.cupy().zeros(3 * width + 1, dtype=np.int64)
            self.taken = _backend.pinned_empty(3 * width, np.int64)
            self.taken_at = _backend.host_pointer(self.taken)
        if not if_done or self.slots is None or self.slots.size < relax_log.size:
            # (a stream's recording keeps each batch's slots)
            self.slots = _backend.pinned_empty(relax_log.size, np.int32)
            self.slots_at = _backend.host_pointer(self.slots)
        return (
            *(self.reached_at, self.near_at, self.ends, self.stamps_at),
            *(self.counts, np.int32(self.width), relax_log, self.slots_at, self.taken_at),
        )

    def take(self, state: np.ndarray) -> None:
        """Add the stamps that kernel ``finish_search`` wrote (the stream has got there) to
        the recording, and their counts to the waiting rows."""
        rec = self.rec
        width = int(state[Control.ITER]) + 1
        counts = self.taken[: 3 * width].reshape(3, width)
        np.cumsum(counts, axis=1, out=counts)  # the nodes reached, near and settled by each
        # The waiting batches' rows (copied with the batches' synchronisations) as one
        # table, in fresh memory.
        batches, self.batches = self.batches, []
        rows = np.concatenate([r[:, : len(FRAME_FIELDS)] for r, _ in batches])
        bins = None if batches[0][1] is None else [b for _, b in batches]
        count_rows(rows, counts, done=int(state[Control.DONE]), buckets=bins)
        rec.append(rows, bins)
        rec.take_relax_slots(self.slots[: int(state[Control.LOGPOS])])


def initial_row(spec: RunSpec) -> np.ndarray:
    inf = int(np.iinfo(spec.dtype).max)
    values = dict.fromkeys(FRAME_FIELDS, 0)
    values |= {"phase": 1, "hi": frame_threshold(spec.initial_hi(inf)), "reached": 1, "neared": 1}
    values["delta"] = frame_threshold(spec.delta)
    return np.array([[values[k] for k in FRAME_FIELDS]], dtype=np.int64)


def initial_buckets() -> np.ndarray:
    bins = np.zeros((1, BUCKET_BINS), dtype=np.int64)
    bins[0, 0] = 1
    return bins


def record_phases(spec: RunSpec, state: np.ndarray, dist, reached_at, rows, steps) -> None:
    """Fill the recording by phase of the asynchronous search that just finished: kernel
    ``phase_stamps`` makes its stamps and counts them, and the stamps are copied into the
    recording's page-locked memory (a copy, not the kernel's writes there: 0.45 against
    0.74 ms on PACE NE, H200); the rows kernel ``frontier_async`` wrote (``rows``,
    `PHASE_FIELDS` a phase) and those counts make the frames
    (`engine.recording.fill_by_phase`). ``steps``: each node's sweep step on a
    contraction's core (`engine.contraction.sweep_steps`), else None."""
    cp = _backend.cupy()
    rec, c, n = spec.recording, spec.contraction, spec.graph.n_nodes
    phases = int(state[Control.PHASE])
    frames = frame_count(phases, None if c is None else c.n_rounds)
    counts = cp.zeros(3 * frames, dtype=np.int64)
    stamps = cp.empty((3, n), dtype=np.int32)
    args = (
        dist, np.int64(n), np.int64(spec.source), reached_at, rows, np.int32(phases),
        np.int32(state[Control.DONE] == 1), 0 if steps is None else steps, stamps, counts,
        np.int32(frames),
    )  # fmt: skip
    launch_elementwise("phase_stamps", spec.dtype, n, args)
    stamps.get(out=rec.stamps, blocking=False)
    table = rows[: phases * len(PHASE_FIELDS)].reshape(phases, len(PHASE_FIELDS)).get()
    # thresholds as the frame table keeps them (a 64-bit ∞ reads as -1 here)
    bands = table[:, :3].view(np.uint64)
    table[:, :3] = np.minimum(bands, np.uint64(UNREACHABLE)).astype(np.int64)
    sweep = None if c is None else contraction.sweep_sizes(c)
    fill_by_phase(rec, table, counts.get().reshape(3, frames), sweep=sweep)
