"""Adaptive Δ: the band width chosen anew at every phase end, from what the last phase did.

The rule is our own controller, after ADDS's idea of steering Δ by the work in flight
(Wang, Fussell and Lin, PPoPP'21), with a cost model instead of ADDS's fixed work targets.
At the end of a phase the search knows

- ``entries``: the near entries it relaxed (its near set's size, duplicates included);
- ``waste``: its re-improvements, relaxations that lowered the distance of a node that was
  near already. Each put the node in the near set once more, and its earlier entry was
  relaxed before its distance was final: the work a narrower band would have saved. It is
  counted where each relaxation happens, at no extra memory traffic (a list of the band's
  nodes, which ``entries − band`` would need, cost Near-Far 20 % on PACE NE).

A phase costs a fixed ``P`` (its end: barriers, a pass over the far pile, a compaction;
`phase_cost`, in near entries) plus one unit per entry. Per settled node that is
``(P + band + waste) / band``, ``band`` being the nodes it settles (its entries less its
re-improvements). Locally the band grows in proportion to Δ and the waste per band node
too (a wider band relaxes more nodes before their distance is final), so ``band = βΔ``
and ``waste = kβΔ²``, and the cost per node ``P/(βΔ) + 1 + kΔ`` is least at
``Δ* = sqrt(P / (βk)) = Δ · sqrt(P / waste)``: the band is right when it wastes as much as
a phase end costs. The next Δ is therefore

    Δ · sqrt(P / max(waste, 1)),  the factor held within [1/2, 2],  Δ within [low, high]

in integer arithmetic (the factor in 256ths, from an integer square root), the same in the
kernels (``next_delta`` in engine/backends/kernels/filter.cuh) and in the NumPy twin. A starving
phase (little waste: the source's first bands, a thin part of the map) doubles Δ; a
wasteful one halves it. ``P`` was measured (decisions/0035, issue 14): a phase end of the
synchronous kernels costs about as much as 32k near entries (a fit of time to iterations,
arcs and phases over six graphs' fixed-Δ searches on an H200, and the best of a scan of
8k–64k there), of the asynchronous one 2k on one cluster (the best of 1k–8k).

The asynchronous kernel on the whole GPU is different: 132 multiprocessors absorb the
re-improvements, and its time is set by each band's longest chain of improvements, which
the waste does not measure. Left to the default bounds the rule narrowed its bands below
Davidson's Δ (more phases than the fixed heuristic) or, with a larger ``P``, let starving
phases double Δ far past its best, 8–30 % above the best fixed Δ on the PACE graphs, whose
best is 2 × Davidson's there. Narrowing below that never paid in the scans (it adds
phases), so ``near_far_async``'s default rule only widens a starving band from 2 × to at
most 3 × Davidson's Δ, with ``P`` = 8k: 0–6 % above the best fixed Δ of ¼ … 8 × on the
five PACE graphs and 5 % below it on Porto Alegre (an H100). The range was chosen on those
graphs (decisions/0051); bounds given explicitly (``adaptive:LOW-HIGH``) are kept.

The synchronous methods keep the wide default bounds but start at 4 × Davidson's Δ, where
their best fixed Δ lies on every graph measured (4 × or 8 × on an H200). From Davidson's own
Δ a small city's search was over before the rule had widened its band: Porto Alegre (7,711
nodes) ran 5 phases where the best fixed Δ runs 2, 10–13 % above its time. On the large
graphs the start hardly matters; the rule reaches its width within a few phases.
Each frame of a recording keeps the Δ it ran with, and the last phase's near entries and
re-improvements (`last_entries`, `last_waste`): the waste chose that Δ.

Near-Far, asynchronous Near-Far and Δ-stepping take it. Δ-stepping's light arcs are those of
weight ≤ ``high``: every band is at most ``high`` wide, so a heavy arc always lands beyond
the band it leaves, which is what lets the heavy arcs wait for the band's end.
"""

from __future__ import annotations

import dataclasses
import math

from engine._errors import ParameterError
from engine._text import ascii_int

#: A phase end's cost in near entries, of the synchronous kernels (near_far, delta_stepping)
#: and of the asynchronous one (near_far_async); decisions/0035, issue 14, has the fit.
PHASE_COST_SYNC = 32768
PHASE_COST_ASYNC = 8192
#: Default bounds: Davidson's Δ divided or multiplied by this.
SPAN = 64
#: near_far_async's default bounds and start, as multiples of Davidson's Δ (see the module).
ASYNC_LOW, ASYNC_HIGH, ASYNC_START = 2, 3, 2
#: The synchronous methods' default start, a multiple of Davidson's Δ (see the module).
SYNC_START = 4
#: The step factor in 256ths: at most doubled, at least halved, per phase.
_STEP_MIN, _STEP_MAX = 128, 512


@dataclasses.dataclass(frozen=True)
class AdaptiveDelta:
    """A Δ chosen per phase within ``[low, high]``, starting at ``start`` (see the module).

    Attributes
    ----------
    low, high : int
        Bounds of Δ, ``1 ≤ low ≤ high``.
    start : int
        The first phase's Δ, within the bounds.
    phase_cost : int or None
        A phase end's cost in near entries (``P``); None: the method's (`PHASE_COST_SYNC`
        or `PHASE_COST_ASYNC`), filled in by `sssp`.
    default_bounds : bool
        The bounds are `parse`'s defaults around Davidson's Δ (``start``), from which each
        method takes its own start, and ``near_far_async`` its bounds (`for_method`).
    """

    low: int
    high: int
    start: int
    phase_cost: int | None = None
    default_bounds: bool = False

    def for_method(self, asynchronous: bool) -> AdaptiveDelta:
        """This rule as the method runs it: its phase cost where it has none and, where its
        bounds are the defaults, the method's start (and the asynchronous method's bounds)."""
        changes = {"default_bounds": False}
        if self.default_bounds:
            auto = self.start
            if asynchronous:
                high = min(ASYNC_HIGH * auto, self.high)
                changes.update(
                    low=min(ASYNC_LOW * auto, high), high=high, start=min(ASYNC_START * auto, high)
                )
            else:
                changes["start"] = min(SYNC_START * auto, self.high)
        if self.phase_cost is None:
            changes["phase_cost"] = PHASE_COST_ASYNC if asynchronous else PHASE_COST_SYNC
        return dataclasses.replace(self, **changes)

    def next(self, delta: int, waste: int) -> int:
        """The Δ of the next phase after one of width ``delta`` that re-improved ``waste``
        near nodes."""
        waste = max(waste, 1)
        ratio = min((self.phase_cost or 1) * 65536 // waste, _STEP_MAX * _STEP_MAX)
        step = max(math.isqrt(ratio), _STEP_MIN)
        grown = delta * step // 256 if delta < 1 << 54 else delta // 256 * step
        return min(max(grown, self.low), self.high)

    def describe(self) -> str:
        """``adaptive LOW–HIGH`` for tables and captions."""
        return f"adaptive {self.low:,}–{self.high:,}"

    def spec(self) -> str:
        """The text that names this rule (``adaptive:LOW-HIGH``), as `parse` reads it."""
        return f"adaptive:{self.low}-{self.high}"


def is_adaptive(value) -> bool:
    """Whether a Δ option names the adaptive rule (``"adaptive"``, ``"adaptive:LOW-HIGH"``
    or an `AdaptiveDelta`)."""
    if isinstance(value, AdaptiveDelta):
        return True
    return isinstance(value, str) and value.split(":", 1)[0] == "adaptive"


def parse(value, auto: int, max_delta: int) -> AdaptiveDelta:
    """The rule a Δ option names, its bounds checked: ``"adaptive"`` spans Davidson's Δ
    (``auto``) divided and multiplied by `SPAN`; ``"adaptive:LOW-HIGH"`` gives the bounds;
    an `AdaptiveDelta` is checked as it is. ``high`` is clamped to ``max_delta``."""
    if isinstance(value, AdaptiveDelta):
        rule = value
    else:
        _, _, bounds = value.partition(":")
        if bounds:
            low, sep, high = bounds.partition("-")
            low, high = ascii_int(low), ascii_int(high)
            if not sep or low is None or high is None:
                msg = (
                    f"adaptive Δ bounds must be two integers LOW-HIGH "
                    f"(e.g. adaptive:64-65536), got {bounds!r}"
                )
                raise ParameterError(msg)
        else:
            low, high = max(1, auto // SPAN), auto * SPAN
        high = min(high, max_delta)
        rule = AdaptiveDelta(low, high, min(max(auto, low), high), default_bounds=not bounds)
    _check(rule, max_delta)
    return rule


def _check(rule: AdaptiveDelta, max_delta: int) -> None:
    if not 1 <= rule.low <= rule.high:
        msg = f"adaptive Δ bounds must satisfy 1 ≤ low ≤ high, got {rule.low}–{rule.high}"
        raise ParameterError(msg)
    if rule.high > max_delta:
        msg = f"adaptive Δ high bound {rule.high:,} is above this graph's widest Δ {max_delta:,}"
        raise ParameterError(msg)
    if not rule.low <= rule.start <= rule.high:
        msg = f"adaptive Δ start {rule.start:,} is outside its bounds {rule.low:,}–{rule.high:,}"
        raise ParameterError(msg)
    if rule.phase_cost is not None and not 1 <= rule.phase_cost < 1 << 31:
        msg = f"adaptive Δ phase_cost must be between 1 and 2^31 entries, got {rule.phase_cost}"
        raise ParameterError(msg)
