"""The algorithm registry and the plain records shared by the backends."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np

from engine.adaptive import AdaptiveDelta
from engine.graphs.csr import CSRGraph
from engine.recording import Recording

if TYPE_CHECKING:  # the contraction imports the loaders, which check input with the registry
    from engine.contraction import Contraction


@dataclasses.dataclass(frozen=True)
class Method:
    """A search method.

    Attributes
    ----------
    name : str
        Registry key.
    title : str
        Name for people.
    uses_delta : bool
        Whether the method has buckets of width Δ (else Δ is ∞: one phase).
    light_heavy : bool
        Δ-stepping's filter: the inner loop relaxes light arcs (weight ≤ Δ) only, the heavy
        arcs of a bucket are relaxed once when it is finished.
    iterative : bool
        False for the SciPy reference, which has no iterations or snapshots.
    asynchronous : bool
        On the GPU the near set is relaxed without a barrier per iteration, so the search has
        no iterations to batch, and is recorded by phase (the CPU runs the synchronous twin).
    contraction : str
        The kind of the graph's contraction the search runs on, a sweep finishing it
        (`engine.contraction.KINDS`): ``core`` or ``hierarchy``; empty for the graph itself.
    bucketed : bool
        Davidson et al.'s bucketing: the far nodes are kept sorted by bucket (distance ÷ Δ)
        in `SEGMENTS` segments, each phase takes the next one (see `engine.backends.cpu`).
    batched : bool
        `many_to_many` runs it for many sources in one launch of a batched GPU kernel
        (Near-Far's, `engine.backends.gpu_many`; PHAST's, `engine.backends.gpu_phast`).
    summary : str
        One line for `frontier --help` and the dashboard.

    `names` answers "which methods can X" (``names(recordable=True)``, ...).
    """

    name: str
    title: str
    uses_delta: bool
    light_heavy: bool
    iterative: bool
    summary: str
    asynchronous: bool = False
    bucketed: bool = False
    contraction: str = ""
    batched: bool = False

    @property
    def contracted(self) -> bool:
        """Whether it searches a contraction of the graph, then sweeps (`contraction`)."""
        return bool(self.contraction)

    @property
    def recordable(self) -> bool:
        """Whether a search can be recorded and drawn frame by frame: by iteration, or by
        phase for the asynchronous methods (`recorded_by_phase`). SciPy's Dijkstra takes
        ``record=True`` and records nothing."""
        return self.iterative

    @property
    def recorded_by_phase(self) -> bool:
        """Whether its frames are phase ends rather than iterations (`engine.recording`)."""
        return self.asynchronous

    @property
    def has_buckets(self) -> bool:
        """Whether its recordings keep the sizes of the buckets ahead (Δ-stepping's and
        bucketing's)."""
        return self.light_heavy or self.bucketed


#: Bucketing's sorted store: segments of width Δ from the smallest far bucket on, the last
#: one holding every bucket further ahead (re-sorted when the search reaches it).
SEGMENTS = 256


METHODS: dict[str, Method] = {
    m.name: m
    for m in (
        Method(
            "near_far",
            "Near-Far",
            uses_delta=True,
            light_heavy=False,
            iterative=True,
            summary="Davidson et al.: relax the near set to convergence, park the rest on a "
            "far pile, compact it when near empties",
            batched=True,
        ),
        Method(
            "near_far_async",
            "Near-Far, asynchronous",
            uses_delta=True,
            light_heavy=False,
            iterative=True,
            summary="Near-Far whose near set is relaxed from work rings in each GPU block, "
            "with no barrier per iteration (ADDS-style); recorded phase by phase",
            asynchronous=True,
            batched=True,
        ),
        Method(
            "near_far_core",
            "Near-Far on the contraction core",
            uses_delta=True,
            light_heavy=False,
            iterative=True,
            summary="asynchronous Near-Far on a core left by contracting nodes of few "
            "neighbours (shortcuts, where no witness path is as short, keep its distances), "
            "then one sweep down over the contracted nodes; recorded phase by phase, then "
            "step by step of the sweep",
            asynchronous=True,
            contraction="core",
        ),
        Method(
            "phast",
            "PHAST",
            uses_delta=False,
            light_heavy=False,
            iterative=True,
            summary="Delling et al.: nodes contracted into a hierarchy of levels (its dense top "
            "kept as a small core); a search up the hierarchy from the source, in one band, "
            "then one sweep down it, level by level (on the GPU, many trees a pass); recorded "
            "phase by phase, then level by level of the sweep",
            asynchronous=True,
            contraction="hierarchy",
            batched=True,
        ),
        Method(
            "delta_stepping",
            "Δ-stepping",
            uses_delta=True,
            light_heavy=True,
            iterative=True,
            summary="Meyer & Sanders: buckets of width Δ, light arcs relaxed to convergence, "
            "heavy arcs once per bucket",
        ),
        Method(
            "bucketing",
            "Bucketing",
            uses_delta=True,
            light_heavy=False,
            iterative=True,
            summary="Davidson et al.: far nodes sorted into buckets of width Δ, each phase "
            "takes the next bucket instead of scanning one far pile",
            bucketed=True,
        ),
        Method(
            "bellman_ford",
            "Bellman-Ford",
            uses_delta=False,
            light_heavy=False,
            iterative=True,
            summary="workfront sweep: relax every improved node until nothing improves",
        ),
        Method(
            "dijkstra",
            "Dijkstra (SciPy)",
            uses_delta=False,
            light_heavy=False,
            iterative=False,
            summary="SciPy's Dijkstra on the same weights: the reference",
        ),
    )
}


def names(**wanted: bool) -> tuple[str, ...]:
    """The names of the methods whose fields or properties have the values given, in the
    registry's order: ``names(recordable=True)``, ``names(batched=True)``,
    ``names(iterative=True, uses_delta=False)``."""
    return tuple(
        m.name for m in METHODS.values() if all(getattr(m, k) == v for k, v in wanted.items())
    )


BACKENDS = ("auto", "cpu", "gpu")


@dataclasses.dataclass
class Counters:
    """What a search did.

    ``host_syncs`` counts the times the host read the device's state to decide whether to go
    on (once per batch); the CPU backend counts the checks the GPU would need.
    ``queue_items`` counts the near entries that ``near_far_async`` took from its rings
    (its ``iterations`` are those of synchronous batches after a handover, usually none);
    on the GPU its ``edges_relaxed`` leave out the arc from each ring entry's node back to
    the node whose relaxation made the entry, which that kernel skips.
    ``bucket_sorts`` counts bucketing's sorts of its far nodes into buckets.
    ``held_back`` counts the near entries that ``near_far_async`` held back for a later
    sub-band of a wide band or because its ring was full (each time one waits).
    """

    iterations: int = 0
    phases: int = 0
    host_syncs: int = 0
    edges_relaxed: int = 0
    improving_relaxations: int = 0
    far_compactions: int = 0
    duplicates_dropped: int = 0
    stale_dropped: int = 0
    pile_rebuilds: int = 0
    queue_items: int = 0
    bucket_sorts: int = 0
    held_back: int = 0

    def as_dict(self) -> dict[str, int]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class RunSpec:
    """A validated search request, as the backends receive it. ``delta`` is the first
    phase's Δ; ``adaptive`` the rule that chooses the next ones (None: Δ is fixed)."""

    graph: CSRGraph
    source: int
    method: Method
    delta: int
    batch_size: int
    target: int | None
    dtype: np.dtype
    recording: Recording | None
    adaptive: AdaptiveDelta | None = None
    #: near_far_core: the contraction whose search graph is ``graph`` (the sweep's arcs)
    contraction: Contraction | None = None

    @property
    def light_heavy(self) -> bool:
        return self.method.light_heavy

    @property
    def rule(self) -> AdaptiveDelta:
        """The Δ rule: the adaptive one, or bounds that keep Δ where it is."""
        if self.adaptive is not None:
            return self.adaptive
        return AdaptiveDelta(self.delta, self.delta, self.delta)

    @property
    def has_buckets(self) -> bool:
        return self.method.has_buckets

    @property
    def split(self) -> int:
        """Δ-stepping's light arcs weigh at most this: Δ, or the widest Δ the rule allows."""
        return self.rule.high

    def initial_hi(self, inf: int) -> int:
        """The first threshold: Δ, or ∞ (the sentinel) for a method without buckets."""
        return min(self.delta, inf) if self.method.uses_delta else inf
