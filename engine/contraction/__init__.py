"""A road graph's contraction core: fewer hops for the search, a sweep for the rest.

Road graphs are mostly nodes of degree two to four, and a search's time on the GPU is its
longest chain of improvements, one hop at a time (decisions/0001: PACE NE's shortest-path
trees are ≈ 1,800 arcs deep). Contracting low-degree nodes, as contraction hierarchies do
(Geisberger et al., WEA 2008) but stopping at a *core* of the nodes left, shortens those
chains; PHAST (Delling et al., IPDPS 2011) then finishes a whole tree by one sweep over the
contracted nodes, in the reverse order of their contraction.

`contract` removes, round after round, an independent set of nodes of at most
``max_degree`` neighbours. For each removed node ``x`` and each pair of arcs ``a → x → b``
it adds the shortcut ``a → b`` of their summed weight, unless a *witness* ``a → y → b``
through a node ``y`` that the round keeps weighs no more (a witness search of two hops), so
every shortest path between the nodes left keeps its length. Witnesses leave out a third of
the shortcuts on road graphs, which keeps the nodes left of few neighbours, so that more of
them go: on PACE NE with seeded weights, nodes of at most 8 neighbours leave a core of 2.6 % of
the nodes, with a third of the arcs of the core that nodes of at most 4 left without
witnesses (decisions/0070). It keeps:

* the *search graph*: the core's arcs (the original arcs between core nodes and the
  shortcuts), and, out of each contracted node, its arcs *up* to the neighbours it had when
  it was removed (contracted later, or core);
* the arcs *down* into each contracted node from those neighbours, by round.

A search from ``s`` on the search graph climbs from ``s`` to the core and settles every core
node exactly (every shortest path is a climb then a core path, as in a contraction
hierarchy's query); `sweep` then gives each contracted node, last round first, the least
``d(a) + w(a → x)`` over its arcs down. Method ``near_far_core`` runs Near-Far this way.

With no degree limit the rounds go on to a *hierarchy* (`KINDS`, `of`): PHAST's (method
``phast``, one tree and many), whose dense top is kept as a small core, or *whole*, every
node contracted (measured beside it by ``bench/hierarchy.py``; decision 0111). `levels` lays
a contraction out by level for those, and `trees` is the NumPy twin of the GPU's many-trees
kernel (decisions/0090, 0091).

Every round is array passes over all the arcs (sorts, binary searches, counts), written for
an array module: NumPy on one CPU core, or CuPy on the GPU (``xp``), with the same result;
a module may bring its own witness search (`use_witness_kernel`: the GPU's kernel, which
made a 16M-node city's hierarchy 2.1 × faster, decisions/0115).

The package, in the core layer (it may import `engine._errors` and `engine.graphs`):
`build` contracts (the rounds, the node order, the search graph and the arcs down),
`cache` keeps each graph's contractions (`of`: in memory, and in the cache folder), and
`sweeps` finishes trees from a contraction (`sweep`, PHAST's `levels` and `trees`, RPHAST's
`swept_for`).
"""

from engine.contraction.build import (
    MAX_DEGREE,
    MAX_ROUNDS,
    MIN_ROUND_SHARE,
    WITNESS_FANOUT,
    Contraction,
    CoreGraph,
    contract,
    use_witness_kernel,
)
from engine.contraction.cache import DISK_MIN_NODES, KINDS, of
from engine.contraction.sweeps import (
    Levels,
    levels,
    ranked_down,
    restricted,
    sweep,
    sweep_sizes,
    sweep_steps,
    swept_for,
    trees,
)

__all__ = [
    "DISK_MIN_NODES",
    "KINDS",
    "MAX_DEGREE",
    "MAX_ROUNDS",
    "MIN_ROUND_SHARE",
    "WITNESS_FANOUT",
    "Contraction",
    "CoreGraph",
    "Levels",
    "contract",
    "levels",
    "of",
    "ranked_down",
    "restricted",
    "sweep",
    "sweep_sizes",
    "sweep_steps",
    "swept_for",
    "trees",
    "use_witness_kernel",
]
