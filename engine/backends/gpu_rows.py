"""A recorded GPU search's frame rows: the node counts, added on the host.

The kernels write each iteration's row without waiting for the other blocks: the row's own
numbers (iteration, phase, thresholds, frontier, Δ, …), then what the iteration added to the
counters, which each block keeps in shared memory and adds every TALLY iterations and at the
end of the batch (``add_tally`` in engine/kernels/frontier.cu). A barrier per iteration to
read running totals cost a recorded Near-Far on PACE NE more than the search itself
(bench/NOTES.md). After each batch the kernel ``finish_batch`` makes those additions the
running totals of `engine.recording.FRAME_FIELDS`, and the far pile's size from the
improving relaxations that made no frontier entry; the node counts come from the node
stamps, here. Δ-stepping's and bucketing's bucket rows are changes of the sizes: at a phase
end from a count of the pile, between phase ends from the moves of improved nodes from
bucket to bucket (``move_bins``); the GPU adds them up (kernel ``finish_batch``) and the band's
bucket is added here.
"""

from __future__ import annotations

import numpy as np

from engine.recording import FRAME_FIELDS

#: What an iteration adds, after its row's own numbers (T_* in the kernel).
TALLY_FIELDS = ("edges", "improving", "kept", "logged")
ROW_FIELDS = len(FRAME_FIELDS) + len(TALLY_FIELDS)
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
        (bench/NOTES.md).
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
