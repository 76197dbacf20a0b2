"""A node order by nested dissection on the coordinates, for contraction (issue 68).

Customizable contraction hierarchies (Dibbelt, Strasser and Wagner, 2014) contract a road
graph in a nested-dissection order: cut the graph into two halves by a small separator,
order each half recursively, and put the separator's nodes last. The fill of such an order
is bounded by the separators' sizes, where an order of local choices (fewest neighbours)
can leave a dense top on a graph with no small separator near every node, as a grid
(decision 0102: the 16M-node city's whole hierarchy outgrew an H200).

`separator_depths` cuts each cell of nodes at the median of its longer side (longitude
scaled by the cosine of the latitude, and latitude): the nodes of the lower half with an
arc into the upper half are its separator, at the cell's depth of the recursion; a cell of
at most ``leaf`` nodes is not cut. `contract` then takes, each round, the nodes deepest in
the recursion first (a cell's inside before its separator), and among nodes of one depth
the fewest neighbours, as before, so that the rounds stay parallel.
"""

from __future__ import annotations

import numpy as np

#: Cells of at most this many nodes are not cut further.
LEAF = 64


def separator_depths(
    lon: np.ndarray, lat: np.ndarray, tails: np.ndarray, heads: np.ndarray, *, leaf: int = LEAF
) -> np.ndarray:
    """Each node's depth of dissection (``int32``): the depth of the cut whose separator
    holds it (0 for the first), or one more than the deepest cut for the nodes inside
    the cells left (contracted first).

    Each depth is a few passes over the nodes and arcs still inside cells (a sort of the
    nodes by cell and coordinate, the cells' medians, the arcs that cross them)."""
    n = lon.size
    x = np.asarray(lon, dtype=np.float64) * np.cos(np.deg2rad(np.asarray(lat, dtype=np.float64)))
    y = np.asarray(lat, dtype=np.float64)
    depth = np.full(n, -1, dtype=np.int32)
    cell = np.zeros(n, dtype=np.int64)
    active = np.arange(n)
    a_tails, a_heads = np.asarray(tails, np.int64), np.asarray(heads, np.int64)
    d = 0
    while active.size:
        c = cell[active]
        order = np.lexsort((active, c))
        nodes, c = active[order], c[order]
        starts = np.flatnonzero(np.r_[True, c[1:] != c[:-1]])
        sizes = np.diff(np.r_[starts, nodes.size])
        small = sizes <= leaf
        if small.all():
            depth[nodes] = d
            break
        # Each cell's longer side, then its nodes sorted along it.
        wide = (np.maximum.reduceat(x[nodes], starts) - np.minimum.reduceat(x[nodes], starts)) >= (
            np.maximum.reduceat(y[nodes], starts) - np.minimum.reduceat(y[nodes], starts)
        )
        owner = np.repeat(np.arange(starts.size), sizes)
        key = np.where(wide[owner], x[nodes], y[nodes])
        order = np.lexsort((nodes, key, owner))
        nodes, owner = nodes[order], owner[order]
        place = np.arange(nodes.size) - starts[owner]
        upper = place >= sizes[owner] // 2  # the cell's upper half
        done = small[owner]
        side = np.zeros(n, dtype=np.int8)
        side[nodes] = np.where(upper, 2, 1)
        cell[nodes] = 2 * cell[nodes] + upper
        # The separator: lower-half nodes of a cut cell with an arc into its upper half.
        keep = (side[a_tails] > 0) & (side[a_heads] > 0)
        a_tails, a_heads = a_tails[keep], a_heads[keep]
        cut = cell[a_tails] // 2 == cell[a_heads] // 2
        lower_u = cut & (side[a_tails] == 1) & (side[a_heads] == 2)
        lower_v = cut & (side[a_tails] == 2) & (side[a_heads] == 1)
        separator = np.zeros(n, dtype=bool)
        separator[a_tails[lower_u]] = True
        separator[a_heads[lower_v]] = True
        in_small = np.zeros(n, dtype=bool)
        in_small[nodes[done]] = True
        separator &= ~in_small
        depth[separator] = d
        leaving = separator | in_small
        active = nodes[~leaving[nodes]]
        gone = leaving[a_tails] | leaving[a_heads]
        a_tails, a_heads = a_tails[~gone], a_heads[~gone]
        d += 1
    depth[depth < 0] = d + 1
    return depth
