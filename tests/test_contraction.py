"""The contraction core (engine.contraction) and method near_far_core on it."""

import dataclasses
import threading

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import engine
from engine import UNREACHABLE, contraction, from_arcs, sssp
from engine.backends import gpu as _gpu
from engine.graphs.io import cache_written as written
from engine.methods import METHODS, RunSpec
from engine.search import from_scipy

from .graphs import (
    RANDOM_GRAPH,
    both_ways,
    grid_graph,
    path_graph,
    property_settings,
    random_graph,
)


def _swept(c, graph, source):
    """SciPy's distances on the search graph of ``c``, then the sweep."""
    from scipy.sparse.csgraph import dijkstra

    dist = from_scipy(dijkstra(c.graph.scipy_matrix(), directed=True, indices=source))
    contraction.sweep(c, dist)
    return dist


def _reference(graph, source):
    return sssp(graph, source, method="dijkstra").distances


@property_settings(80)
@given(n=st.integers(1, 60), **RANDOM_GRAPH, max_degree=st.integers(1, 10))
def test_search_graph_and_sweep_give_every_distance(seed, n, density, max_weight, max_degree):
    rng = np.random.default_rng(seed)
    g = random_graph(rng, n, int(density * n), max_weight)
    c = contraction.contract(g, max_degree=max_degree)
    assert c.order.size + c.n_core == n and (c.round_of[c.order] >= 0).all()
    for source in rng.integers(0, n, size=3):
        assert np.array_equal(_swept(c, g, int(source)), _reference(g, int(source)))


@property_settings(40)
@given(n=st.integers(1, 60), **RANDOM_GRAPH, max_degree=st.integers(1, 60))
def test_one_sweep_gives_many_trees_a_column_each(seed, n, density, max_weight, max_degree):
    """`sweep` of an ``n × k`` array gives each column the tree that sweeping it alone gives
    (PHAST's many trees a pass), unreachable parts and zero weights included."""
    from scipy.sparse.csgraph import dijkstra

    rng = np.random.default_rng(seed)
    g = random_graph(rng, n, int(density * n), max_weight)
    c = contraction.contract(g, max_degree=max_degree, min_round_share=0.0, max_rounds=n + 1)
    sources = rng.integers(0, n, size=5)
    up = from_scipy(dijkstra(c.graph.scipy_matrix(), directed=True, indices=sources))
    many = np.ascontiguousarray(up.T)
    contraction.sweep(c, many)
    for j, source in enumerate(sources):
        assert np.array_equal(many[:, j], _reference(g, int(source)))


@property_settings(60)
@given(n=st.integers(1, 60), **RANDOM_GRAPH)
def test_with_no_limits_nothing_is_left_a_whole_hierarchy(seed, n, density, max_weight):
    """No degree limit, no share, rounds enough: every node is contracted (a contraction
    hierarchy, PHAST's; decisions/0090), and the search up and the sweep down are exact."""
    rng = np.random.default_rng(seed)
    g = random_graph(rng, n, int(density * n), max_weight)
    c = contraction.contract(g, max_degree=n, min_round_share=0.0, max_rounds=n + 1)
    assert c.n_core == 0 and c.order.size == n and c.n_rounds <= n
    core_arcs = c.graph.n_arcs - int(np.isin(c.graph.sources, c.order).sum())
    assert core_arcs == 0  # every arc searched climbs out of a contracted node
    for source in rng.integers(0, n, size=3):
        assert np.array_equal(_swept(c, g, int(source)), _reference(g, int(source)))
    few = contraction.contract(g, max_degree=n, min_round_share=0.0, max_rounds=1)
    assert few.n_rounds <= 1


@property_settings(60)
@given(n=st.integers(1, 60), **RANDOM_GRAPH)
def test_phasts_trees_equal_scipy_on_every_kind_of_contraction(seed, n, density, max_weight):
    """`contraction.trees`, the NumPy twin of kernels/phast.cu: laid out by rank, every arc
    up comes from a lower level (or from the core into the core: a core node's arcs stay in
    the core, so kernel phast_tree's table of the core holds every path through it), every
    arc down from a higher one, and each column is SciPy's tree, on each kind of contraction
    (a core's arcs relaxed until nothing changes)."""
    rng = np.random.default_rng(seed)
    g = random_graph(rng, n, int(density * n), max_weight)
    sources = rng.integers(0, n, size=5)
    for c in (contraction.contract(g, **limits) for limits in contraction.KINDS.values()):
        lv = contraction.levels(c)
        level = np.repeat(np.arange(lv.n_levels), np.diff(lv.starts))
        tail, head = level[lv.up_tails], np.repeat(level, np.diff(lv.up_ptr))
        assert ((tail > head) | ((tail == 0) & (head == 0))).all()
        assert lv.starts[1] == c.n_core and lv.n_levels == c.n_rounds + 1
        assert (level[lv.down_tails] < np.repeat(level, np.diff(lv.down_ptr))).all()
        nodes, starts, ptr, tails, weights = contraction.ranked_down(c)  # tails as nodes
        assert np.array_equal(nodes, lv.nodes) and np.array_equal(starts, lv.starts)
        assert np.array_equal(ptr, lv.down_ptr) and np.array_equal(lv.rank[tails], lv.down_tails)
        assert np.array_equal(weights, lv.down_weights)
        many = contraction.trees(c, sources)
        for j, source in enumerate(sources):
            assert np.array_equal(many[:, j], _reference(g, int(source)))
        targets = rng.integers(0, n, size=3)  # RPHAST: the sweep restricted to their needs
        np.testing.assert_array_equal(contraction.trees(c, sources, targets), many[targets])


@property_settings(60)
@given(n=st.integers(2, 40), seed=st.integers(0, 2**32 - 1), density=st.floats(0.5, 4.0))
def test_the_distance_type_holds_the_sweep_too(n, seed, density):
    # Weights near 2^31 and 2^32: every sum the search graph's arcs and the sweep's arcs
    # down form from a final distance stays within the bound that picks the distance type
    # (the GPU sweeps in that type; a bound of the search graph's arcs alone let distances
    # past 2^32 wrap there).
    rng = np.random.default_rng(seed)
    m = int(density * n)
    weights = 2**32 - 1 - rng.integers(0, 2**31, size=m)
    g = from_arcs(n, rng.integers(0, n, m), rng.integers(0, n, m), weights)
    c = contraction.contract(g)
    bound = c.graph.candidate_bound()
    assert bound < np.iinfo(c.graph.distance_dtype()).max
    for source in range(min(n, 4)):
        d = _reference(g, source)
        for tails, weights in ((c.graph.sources, c.graph.weights), (c.down_tails, c.down_weights)):
            reached = d[tails] != UNREACHABLE
            sums = d[tails][reached].astype(object) + weights[reached].astype(object)
            assert all(v <= bound for v in sums)


def test_a_contraction_out_of_memory_is_one_line(monkeypatch):
    """A hierarchy's dense top can outgrow the memory (a synthetic city of 16M nodes's whole
    hierarchy did on an H200: decisions/0091): one line, not a traceback."""

    def too_big(*_args, **_kwargs):
        raise MemoryError("std::bad_alloc")

    monkeypatch.setattr(contraction.cache, "contract", too_big)
    g = grid_graph(6, 6, seed=1)
    with pytest.raises(engine.GraphTooLargeError, match=r"^making .* contraction whole ran out"):
        contraction.of(g, "whole")
    assert g not in contraction.cache._made["whole"]


def test_a_path_contracts_to_a_small_core_in_few_rounds():
    g = path_graph(1000, 7)
    c = contraction.contract(g)
    # Each round takes the nodes that precede both neighbours in a shuffle, a third of them
    # on average: about log_{3/2} 1000 = 17 rounds contract the whole path.
    assert c.n_core <= 2 and 12 <= c.n_rounds <= 25
    # A node of the path has at most its two neighbours when it goes, and one of them is
    # left at the end.
    arcs_down = np.diff(c.down_indptr)
    assert arcs_down.max() == 2 and (arcs_down == 0).sum() == 1 - c.n_core
    for source in (0, 500, 999):
        assert np.array_equal(_swept(c, g, source), np.abs(np.arange(1000) - source) * 7)


def test_rounds_remove_independent_nodes_and_sweep_last_round_first():
    g = grid_graph(20, 30, seed=5)
    c = contraction.contract(g, max_degree=3)
    rounds = c.round_of[c.order]
    assert (np.diff(rounds) <= 0).all()
    assert np.array_equal(np.diff(c.round_starts), np.bincount(rounds)[::-1])
    # No arc joins two nodes of the same round.
    tails, heads = g.sources, g.indices
    same = (c.round_of[tails] == c.round_of[heads]) & (c.round_of[tails] >= 0)
    assert not same.any()


def _two_ways(via_x, via_y, *, y_stays):
    """Nodes a = 0 and b = 1 joined through x = 2 and through y = 3 (both ways, each arc of
    the given weight), and arcs of 100 among a, b, p = 4, q = 5, and (if ``y_stays``) y, but
    none between a and b. With ``max_degree=2``, x goes in the first round (and y too,
    unless it stays), and the others, of three neighbours or more, are the core."""
    edges = [(0, 2, via_x), (2, 1, via_x), (0, 3, via_y), (3, 1, via_y)]
    edges += [(u, v, 100) for u, v in ((0, 4), (0, 5), (1, 4), (1, 5), (4, 5))]
    if y_stays:
        edges += [(3, 4, 100), (3, 5, 100)]
    return both_ways(6, edges)


def _arc_weight(graph, tail, head):
    row = slice(graph.indptr[tail], graph.indptr[tail + 1])
    found = graph.weights[row][graph.indices[row] == head]
    return int(found.min()) if found.size else None


@pytest.mark.parametrize(("via_x", "via_y", "shortcut"), [(5, 3, None), (3, 3, None), (3, 4, 6)])
def test_a_shortcut_with_a_witness_is_left_out(via_x, via_y, shortcut):
    # x's shortcut a -> b weighs 2 * via_x; the path a -> y -> b of at most that weight
    # (y stays) witnesses it, and it is left out; a heavier path does not.
    g = _two_ways(via_x, via_y, y_stays=True)
    c = contraction.contract(g, max_degree=2)
    assert c.round_of.tolist() == [-1, -1, 0, -1, -1, -1]
    assert _arc_weight(c.graph, 0, 1) == shortcut and _arc_weight(c.graph, 1, 0) == shortcut
    for source in range(g.n_nodes):
        assert np.array_equal(_swept(c, g, source), _reference(g, source))


@pytest.mark.parametrize("on", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_no_witness_is_looked_for_from_a_tail_of_many_arcs(on, monkeypatch):
    # a and b keep three arcs out (to y, p, q; x goes): with a fan-out limit of 2 no witness
    # is looked for from either, and x's shortcuts are kept although y's path is shorter.
    from engine.backends import device

    monkeypatch.setattr(contraction.build, "WITNESS_FANOUT", 2)
    g = _two_ways(5, 3, y_stays=True)
    c = contraction.contract(g, max_degree=2, xp=device.cupy() if on == "gpu" else np)
    assert _arc_weight(c.graph, 0, 1) == 10 and _arc_weight(c.graph, 1, 0) == 10
    for source in range(g.n_nodes):
        assert np.array_equal(_swept(c, g, source), _reference(g, source))


def test_a_modules_own_witness_search_is_used_for_its_arrays(monkeypatch):
    """`use_witness_kernel`: a module's own witness search (the GPU's kernel, for CuPy) runs
    in place of the array passes for that module's arrays. Here, for NumPy, kernel
    ``witness_search`` written out in Python (a shortcut at a time: the tail's arcs of at
    most its weight, each neighbour's arcs searched for the head) makes the same contraction,
    and one that finds no witness keeps every shortcut, its distances still exact."""
    g = random_graph(np.random.default_rng(8), 600, 2_000, max_weight=30)
    passes = contraction.contract(g)
    calls = []

    def kernel(s_tails, s_heads, s_weights, starts, heads, weights, fanout):
        calls.append(s_tails.size)
        found = np.zeros(s_tails.size, dtype=bool)
        for i, (a, b, w) in enumerate(zip(s_tails, s_heads, s_weights, strict=True)):
            if starts[a + 1] - starts[a] > fanout:
                continue
            for e in range(starts[a], starts[a + 1]):
                y0, y1 = starts[heads[e]], starts[heads[e] + 1]
                at = y0 + np.searchsorted(heads[y0:y1], b)
                if weights[e] <= w and at < y1 and heads[at] == b:
                    found[i] |= weights[e] + weights[at] <= w
        return found

    monkeypatch.setattr(contraction.build, "_witness_kernels", {})
    contraction.use_witness_kernel("numpy", kernel)
    mine = contraction.contract(g)
    assert sum(calls) > 0
    assert np.array_equal(mine.order, passes.order)
    assert np.array_equal(mine.graph.indices, passes.graph.indices)
    contraction.use_witness_kernel("numpy", lambda s, *rest: np.zeros(s.size, dtype=bool))
    none = contraction.contract(g)
    assert none.graph.n_arcs + none.n_down > passes.graph.n_arcs + passes.n_down
    for source in (0, 299):
        assert np.array_equal(_swept(none, g, source), _reference(g, source))


def test_nodes_removed_in_one_round_do_not_witness_each_other():
    # x and y go in the same round: each is the other's only other way from a to b, so
    # both shortcuts are made and the lighter is kept.
    g = _two_ways(3, 4, y_stays=False)
    c = contraction.contract(g, max_degree=2)
    assert c.round_of.tolist() == [-1, -1, 0, 0, -1, -1]
    assert _arc_weight(c.graph, 0, 1) == 6 and _arc_weight(c.graph, 1, 0) == 6
    for source in range(g.n_nodes):
        assert np.array_equal(_swept(c, g, source), _reference(g, source))


def test_shortcuts_too_heavy_for_a_weight_keep_their_node():
    # 0 - 1 - 2 with arcs of 3e9, and five leaves on 0 and on 2 (which keeps them out of the
    # first round). Node 1 would go first, but its shortcut 0 -> 2 would weigh 6e9: it waits
    # until the ends are gone. Distances need uint64.
    w = 3_000_000_000
    edges = [(0, 1, w), (1, 2, w)]
    edges += [
        (hub, leaf, 1) for hub, leaves in ((0, range(3, 8)), (2, range(8, 13))) for leaf in leaves
    ]
    g = both_ways(13, edges)
    c = contraction.contract(g)
    assert c.round_of[1] != 0 and (c.round_of[3:] == 0).all()
    r = sssp(g, 0, method="near_far_core", backend="cpu")
    assert r.distances[:3].tolist() == [0, w, 2 * w]
    assert np.array_equal(r.distances, _reference(g, 0))


def test_core_graph_bounds_and_heuristic():
    g = grid_graph(40, 40, seed=2)
    c = contraction.of(g)
    h = c.graph
    assert contraction.of(g) is c  # made once
    assert h.candidate_bound() <= h.layered_bound
    # The heuristic counts the core's arcs only.
    core = c.round_of < 0
    core_arcs = core[h.sources]
    w, d = h.weights[core_arcs].mean(), core_arcs.sum() / core.sum()
    assert h.auto_delta() == round(engine.graphs.csr.AUTO_DELTA_C * w / d)


@pytest.mark.parametrize(
    ("method", "delta"),
    [("near_far_core", d) for d in (1, 40, "auto", "adaptive", 10**6)] + [("phast", "auto")],
)
def test_near_far_core_and_phast_match_dijkstra(backend, delta, method):
    g = grid_graph(50, 60, seed=8)
    for source in (0, 1234, 2999):
        r = sssp(g, source, method=method, backend=backend, delta=delta)
        assert np.array_equal(r.distances, _reference(g, source))
        assert r.graph is g


def test_of_asks_for_its_array_module_only_when_it_makes_the_contraction():
    g = grid_graph(8, 8, seed=2)
    asked = []

    def xp(graph):
        asked.append(graph)
        return np

    c = contraction.of(g, "hierarchy", xp=xp)
    assert contraction.of(g, "hierarchy", xp=xp) is c and asked == [g]


def test_near_far_core_counts_the_sweep(backend):
    g = grid_graph(30, 30, seed=1)
    c = contraction.of(g)
    r = sssp(g, 0, method="near_far_core", backend=backend)
    assert r.counters.edges_relaxed > c.n_down
    if backend == "cpu":  # the synchronous twin on the search graph, then the sweep
        searched = sssp(c.graph, 0, method="near_far", backend="cpu", delta=r.delta)
        assert r.counters.edges_relaxed == searched.counters.edges_relaxed + c.n_down


def test_near_far_core_target(backend):
    g = grid_graph(30, 30, seed=4)
    c = contraction.of(g)
    full = _reference(g, 0)
    core_node = int(np.flatnonzero(c.round_of < 0)[-1])
    contracted = int(c.order[0])
    for target, method in ((core_node, "near_far_core"), (contracted, "near_far_core"),
                           (contracted, "phast")):  # fmt: skip
        r = sssp(g, 0, method=method, backend=backend, delta=50, target=target)
        assert r.target == target and r.distances[target] == full[target]
        final = full < r.settled_below
        assert np.array_equal(r.distances[final], full[final])
    # A contracted target is searched to the end (its distance comes from the sweep).
    assert r.settled_below == UNREACHABLE


def test_a_graph_too_large_to_contract_here_is_refused(monkeypatch):
    g = grid_graph(10, 10, seed=1)
    need = engine.graphs._validate.CONTRACT_BYTES_PER_ARC * g.n_arcs
    monkeypatch.setattr(engine.graphs._validate, "available_memory", lambda: need - 1)
    with pytest.raises(engine.GraphTooLargeError, match=r"^contracting .* near_far_async instead$"):
        sssp(g, 0, method="near_far_core", backend="cpu")
    monkeypatch.setattr(engine.graphs._validate, "available_memory", lambda: need)
    assert np.array_equal(sssp(g, 0, method="near_far_core").distances, _reference(g, 0))


@pytest.mark.gpu
@pytest.mark.parametrize(("capacity", "batch"), [(1, 16), (1, 4), (8192, 64)])
def test_gpu_sweep_follows_the_search_however_it_ends(capacity, batch):
    # A ring of one slot hands the search over to batches: the sweep queued behind each
    # long batch waits for the one that finishes, and behind short ones runs once at the end
    # (rings of 8,192 slots mostly finish in the asynchronous launch).
    g = random_graph(np.random.default_rng(5), 30_000, 90_000, max_weight=100)
    c = contraction.of(g)
    h = c.graph
    spec = RunSpec(
        h,
        0,
        METHODS["near_far_core"],
        h.auto_delta(),
        batch,
        None,
        h.distance_dtype(),
        None,
        contraction=c,
    )
    _gpu.prepare(h, spec)
    dist, counters, _ = _gpu.run(spec, ring_capacity=capacity, stage_capacity=capacity)
    assert np.array_equal(dist, _reference(g, 0))
    if capacity == 1:
        assert counters.iterations > 0


# -- the contraction kept in the cache folder ---------------------------------------------


@pytest.fixture
def kept(tmp_path, monkeypatch):
    """Contractions of graphs of 100 nodes or more kept in a folder of their own."""
    monkeypatch.setenv("FRONTIER_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(contraction.cache, "DISK_MIN_NODES", 100)
    return tmp_path


def test_a_contraction_is_written_behind_its_first_search(kept, monkeypatch):
    """The first search does not wait for the file: it is written on a thread, which
    `cache_written` (and the process's end) waits for."""
    go, save = threading.Event(), contraction.cache._save

    def slow_save(c, f, key):
        assert go.wait(30)
        save(c, f, key)

    monkeypatch.setattr(contraction.cache, "_save", slow_save)
    g = grid_graph(20, 20, seed=4)
    assert not contraction.of(g).from_cache  # returned while its file waits
    assert not list(kept.glob("core-*.npz"))
    go.set()
    written()
    assert contraction.of(_same_graph(g)).from_cache


def test_a_file_that_fails_behind_only_costs_speed(kept, monkeypatch, capfd):
    """A write that fails on its thread says nothing (no traceback) and leaves no file."""

    def broken(c, f, key):
        msg = "disk gone"
        raise RuntimeError(msg)

    monkeypatch.setattr(contraction.cache, "_save", broken)
    g = grid_graph(20, 20, seed=6)
    assert not contraction.of(g).from_cache
    written()
    assert not list(kept.glob("*core-*")) and capfd.readouterr().err == ""
    assert not contraction.of(_same_graph(g)).from_cache  # made again, not read


def _same_graph(g):
    """An equal graph that is another object (so not the one contracted in memory)."""
    return dataclasses.replace(g)


def _assert_same(a, b):
    for name in contraction.cache._ARRAYS:
        assert np.array_equal(getattr(a, name), getattr(b, name))
    for name in ("indptr", "indices", "weights", "layered_bound", "core_nodes", "core_weight"):
        assert np.array_equal(getattr(a.graph, name), getattr(b.graph, name))


def test_a_contraction_kept_is_read_by_the_next_process(kept):
    older = kept / "core-000000000000-0123456789abcdef01234567.npz"  # another version's
    older.write_bytes(b"")
    mine = kept / "core-results.npz"  # a file of the user's: not the cache's
    mine.write_bytes(b"")
    g = grid_graph(20, 20, seed=3)
    made = contraction.of(g)
    assert not made.from_cache and not older.exists() and mine.exists()
    mine.unlink()
    written()
    (kept_file,) = kept.glob("core-*.npz")
    assert engine.graphs.io.CACHE_FILE.fullmatch(kept_file.name)  # pruned like the graphs
    rounds = []
    copy = _same_graph(g)
    read = contraction.of(copy, on_round=lambda r, left: rounds.append(r))
    assert read.from_cache and rounds == []
    _assert_same(made, read)
    assert read.graph.name == made.graph.name and read.graph.node_ids is g.node_ids
    r = sssp(copy, 7, method="near_far_core", backend="cpu")
    assert np.array_equal(r.distances, _reference(g, 7))


def test_other_weights_and_small_graphs_are_not_read_from_another_file(kept):
    g = grid_graph(20, 20, seed=3)
    contraction.of(g)
    heavier = dataclasses.replace(g, weights=g.weights * 3)  # same order within each row
    c = contraction.of(heavier)
    written()
    assert not c.from_cache and len(list(kept.glob("core-*.npz"))) == 2
    assert np.array_equal(
        sssp(heavier, 0, method="near_far_core").distances, _reference(heavier, 0)
    )
    contraction.of(grid_graph(9, 11, seed=3))  # 99 nodes
    contraction.of(grid_graph(20, 21, seed=3), cache=False)
    written()
    assert len(list(kept.glob("core-*.npz"))) == 2


def test_a_damaged_or_foreign_file_is_made_again(kept):
    g = grid_graph(20, 20, seed=5)
    made = contraction.of(g)
    written()
    (path,) = kept.glob("core-*.npz")
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF  # a zip member's CRC no longer holds
    path.write_bytes(bytes(raw))
    again = contraction.of(_same_graph(g))
    assert not again.from_cache
    _assert_same(made, again)
    written()
    # A contraction of another graph under this graph's name does not fit it.
    other = contraction.contract(grid_graph(10, 12, seed=5))
    with path.open("wb") as f:
        contraction.cache._save(other, f, path.name)
    third = contraction.of(_same_graph(g))
    assert not third.from_cache
    _assert_same(made, third)
    written()
    assert contraction.of(_same_graph(g)).from_cache


def test_a_cache_folder_that_cannot_be_written_only_costs_speed(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("not a folder")
    monkeypatch.setenv("FRONTIER_CACHE_DIR", str(tmp_path / "file" / "cache"))
    monkeypatch.setattr(contraction.cache, "DISK_MIN_NODES", 100)
    g = grid_graph(20, 20, seed=3)
    assert np.array_equal(sssp(g, 0, method="near_far_core").distances, _reference(g, 0))


@pytest.mark.gpu
def test_the_gpu_makes_the_same_contraction():
    """Issue 54: CuPy's rounds (stable sorts, binary searches, a repeat by binary search,
    witnesses by kernel ``witness_search``) make the contraction NumPy's make, array for
    array: a core and a whole hierarchy, whose dense top has tails of over
    `WITNESS_FANOUT` arcs."""
    from engine.backends import device

    cp = device.cupy()
    rng = np.random.default_rng(54)
    graphs = [
        grid_graph(30, 30, seed=2),
        random_graph(rng, 4_000, 12_000, max_weight=0),
        random_graph(rng, 4_000, 16_000, max_weight=100),
        path_graph(50, 3),
        engine.from_arcs(1, [], [], []),
    ]
    hierarchy = contraction.KINDS["whole"]
    for g, kind in [*((g, {}) for g in graphs), (graphs[2], hierarchy)]:
        on_cpu, on_gpu = contraction.contract(g, **kind), contraction.contract(g, xp=cp, **kind)
        for name in ("round_of", "order", "round_starts", "down_indptr", "down_tails",
                     "down_weights"):  # fmt: skip
            assert np.array_equal(getattr(on_cpu, name), getattr(on_gpu, name)), (g.name, name)
        for name in ("indptr", "indices", "weights"):
            assert np.array_equal(getattr(on_cpu.graph, name), getattr(on_gpu.graph, name))
        assert on_cpu.graph.layered_bound == on_gpu.graph.layered_bound
