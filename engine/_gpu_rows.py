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
between phase ends from the moves of improved nodes from bucket to bucket (``move_bins``);
the GPU adds them up (kernel ``sum_bins``) and the band's bucket is added here.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .recording import FRAME_FIELDS

#: What an iteration adds, after its row's own numbers (T_* in the kernel).
TALLY_FIELDS = ("edges", "improving", "kept", "logged")
ROW_FIELDS = len(FRAME_FIELDS) + len(TALLY_FIELDS)
_F = {name: k for k, name in enumerate(FRAME_FIELDS)}
_T = {name: k for k, name in enumerate(TALLY_FIELDS)}


@dataclasses.dataclass
class RowCarry:
    """What the next batch's rows go on from: the counters after the last row, the far
    pile's size (appends staged on the device included) and the last row's phase."""

    edges: int = 0
    improving: int = 0
    logged: int = 0
    pile: int = 0
    phase: int = 1


def finish_rows(
    raw: np.ndarray,
    carry: RowCarry,
    *,
    done: int,
    next_frontier: int,
    counts: np.ndarray,
    pile_cap: int,
    buckets: list[np.ndarray] | None = None,
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
    buckets : list of numpy.ndarray, optional
        Δ-stepping and bucketing: each batch's rows, one per iteration, of the sizes of the
        buckets ahead of the band; the band's size (in bin 0) is added here, in place. Kept
        apart, in the page-locked memory they were copied into: joined in fresh memory they
        cost a recorded Δ-stepping search on Porto Alegre ≈ 0.1–0.2 ms more
        (bench/NOTES.md).

    Returns
    -------
    numpy.ndarray
        ``int64`` rows with the columns of `engine.recording.FRAME_FIELDS`.
    """
    rows = raw[:, : len(FRAME_FIELDS)].copy()
    if len(rows) == 0:
        return rows
    # The running totals of what each iteration added.
    tally = raw[:, len(FRAME_FIELDS) :]
    totals = np.cumsum(tally, axis=0)
    starts = {"edges": carry.edges, "improving": carry.improving, "logged": carry.logged}
    totals += [starts.get(name, 0) for name in TALLY_FIELDS]
    # Each improving relaxation appends its node to the next frontier or to the far pile.
    # After a phase end that goes on (it raises the phase counter; the search's last phase
    # end does not), the pile is what its compaction kept.
    next_frontiers = np.empty(len(rows), dtype=np.int64)
    next_frontiers[:-1] = rows[1:, _F["frontier"]]
    next_frontiers[-1] = next_frontier
    far = tally[:, _T["improving"]] - next_frontiers
    phase = rows[:, _F["phase"]]
    restart = np.empty(len(rows), dtype=bool)
    restart[0] = phase[0] > carry.phase
    np.greater(phase[1:], phase[:-1], out=restart[1:])
    added = np.cumsum(np.where(restart, 0, far))
    last = np.maximum.accumulate(np.where(restart, np.arange(len(rows)), -1))
    kept = tally[:, _T["kept"]] - added
    pile = np.where(last >= 0, kept[last], carry.pile) + added  # -1: no restart yet
    reached, neared, settled = counts[:, rows[:, _F["iteration"]]]
    for name, values in (
        ("edges_relaxed", totals[:, _T["edges"]]),
        ("improving", totals[:, _T["improving"]]),
        ("reached", reached),
        ("neared", neared),
        ("settled", settled),
        ("relaxed_entries", totals[:, _T["logged"]]),
    ):
        rows[:, _F[name]] = values
    band = neared - settled
    rows[:, _F["far_pile"]] += np.minimum(pile, pile_cap)  # after bucketing's store
    if done == 1:  # nothing is far or near any more
        rows[-1, _F["far_pile"]] = 0
        band[-1] = 0
    start = 0
    for part in buckets or ():
        part[:, 0] += band[start : start + len(part)]
        start += len(part)
    carry.edges, carry.improving = int(totals[-1, _T["edges"]]), int(totals[-1, _T["improving"]])
    carry.logged = int(totals[-1, _T["logged"]])
    carry.pile, carry.phase = int(pile[-1]), int(phase[-1])
    return rows
