"""A recorded GPU search's frame rows, finished on the host.

The kernels write each iteration's row without waiting for the other blocks: the row's own
numbers (iteration, phase, thresholds, frontier, Δ, …), then what the iteration added to the
counters, which each block keeps in shared memory and adds every TALLY iterations and at the
end of the batch (``add_tally`` in engine/kernels/frontier.cu). A barrier per iteration to
read running totals cost a recorded Near-Far on PACE NE more than the search itself
(bench/NOTES.md). Here those additions become the running totals of
`engine.recording.FRAME_FIELDS`; the node counts come from the node stamps, and the far
pile's size from the improving relaxations that made no frontier entry. Δ-stepping's and
bucketing's bucket rows are changes of the sizes: at a phase end from a count of the pile,
between phase ends from the moves of improved nodes from bucket to bucket (``move_bins``).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from . import _backend
from .recording import FRAME_FIELDS

#: What an iteration adds, after its row's own numbers (T_* in the kernel).
TALLY_FIELDS = ("edges", "improving", "kept", "logged")
ROW_FIELDS = len(FRAME_FIELDS) + len(TALLY_FIELDS)
_F = {name: k for k, name in enumerate(FRAME_FIELDS)}
_T = {name: len(FRAME_FIELDS) + k for k, name in enumerate(TALLY_FIELDS)}


@dataclasses.dataclass
class RowCarry:
    """What the next batch's rows go on from: the counters after the last row, the far
    pile's size (appends staged on the device included) and the last row's phase."""

    edges: int = 0
    improving: int = 0
    logged: int = 0
    pile: int = 0
    phase: int = 1
    bins: object = None  # the bucket sizes ahead after the last row (NumPy or CuPy)


def finish_rows(
    raw: np.ndarray,
    carry: RowCarry,
    *,
    done: int,
    next_frontier: int,
    counts: np.ndarray,
    pile_cap: int,
    buckets: np.ndarray | None = None,
) -> np.ndarray:
    """The frame rows of one or more batches in a row from the kernel's ``raw`` rows
    (``ROW_FIELDS`` columns).

    Parameters
    ----------
    raw : numpy.ndarray
        ``int64``, one row per iteration of the batches.
    carry : RowCarry
        Where the batches start; updated to where they end.
    done : int
        The control block's done flag after them (0 running, 1 nothing left, 2 target
        settled): when nonzero, their last iteration ended the search's last phase.
    next_frontier : int
        The frontier they left (the next iteration's ``frontier``).
    counts : numpy.ndarray
        ``(3, iterations + 1)``: the nodes reached, that have been near and settled by each
        iteration, counted from the node stamps.
    pile_cap : int
        The far pile's capacity (a row shows at most that many entries, as it holds).
    buckets : numpy.ndarray or cupy.ndarray, optional
        Δ-stepping and bucketing: the batches' bucket rows, each the change of the sizes of
        the buckets ahead in its iteration, replaced here by the sizes (the band's, bin 0,
        added). On the GPU they are added up there: a million numbers on the host took
        longer than the search (PACE NE).

    Returns
    -------
    numpy.ndarray
        ``int64`` rows with the columns of `engine.recording.FRAME_FIELDS`.
    """
    rows = raw[:, : len(FRAME_FIELDS)].copy()
    if len(rows) == 0:
        return rows
    index = np.arange(len(rows))

    def running(name: str, start: int) -> np.ndarray:
        return start + np.cumsum(raw[:, _T[name]])

    # Each improving relaxation appends its node to the next frontier or to the far pile.
    # After a phase end that goes on (it raises the phase counter; the search's last phase
    # end does not), the pile is what its compaction kept.
    far = raw[:, _T["improving"]] - np.append(rows[1:, _F["frontier"]], next_frontier)
    restart = np.diff(rows[:, _F["phase"]], prepend=carry.phase) > 0
    added = np.cumsum(np.where(restart, 0, far))
    last = np.maximum.accumulate(np.where(restart, index, -1))
    kept = raw[:, _T["kept"]] - added
    pile = np.where(last >= 0, kept[np.maximum(last, 0)], carry.pile) + added
    reached, neared, settled = counts[:, rows[:, _F["iteration"]]]
    columns = {
        "edges_relaxed": running("edges", carry.edges),
        "improving": running("improving", carry.improving),
        "reached": reached,
        "neared": neared,
        "settled": settled,
        "relaxed_entries": running("logged", carry.logged),
    }
    for name, values in columns.items():
        rows[:, _F[name]] = values
    band = neared - settled
    rows[:, _F["far_pile"]] += np.minimum(pile, pile_cap)  # after bucketing's store
    if done == 1:  # nothing is far or near any more
        rows[-1, _F["far_pile"]] = 0
        band[-1] = 0
    if buckets is not None:
        xp = _backend.array_module(buckets)
        buckets[:] = xp.cumsum(buckets, axis=0)
        if carry.bins is not None:
            buckets += carry.bins
        carry.bins = buckets[-1].copy()
        buckets[:, 0] += xp.asarray(band)
    carry.edges, carry.improving = int(columns["edges_relaxed"][-1]), int(columns["improving"][-1])
    carry.logged, carry.pile = int(columns["relaxed_entries"][-1]), int(pile[-1])
    carry.phase = int(rows[-1, _F["phase"]])
    return rows
