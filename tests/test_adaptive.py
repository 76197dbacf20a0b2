"""The adaptive Δ: the rule itself, exact answers on every backend, and recordings whose Δ
column follows the rule from the inputs they recorded."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import engine
from engine import adaptive, sssp
from engine.adaptive import AdaptiveDelta

from .graphs import (
    RANDOM_GRAPH,
    check_tree,
    grid_graph,
    heap_dijkstra,
    property_settings,
    random_graph,
)

ADAPTIVE = ["near_far", "delta_stepping", "bucketing", "near_far_async"]


def test_the_rule_scales_delta_by_the_root_of_phase_cost_over_waste_within_bounds():
    rule = AdaptiveDelta(10, 1000, 40, phase_cost=400)
    assert rule.next(40, waste=100) == 80  # sqrt(400 / 100) = 2
    assert rule.next(40, waste=400) == 40  # waste equal to the phase cost: right
    assert rule.next(40, waste=1600) == 20  # sqrt(1/4)
    assert rule.next(40, waste=900) == 26  # 40 · 170/256 (2/3)
    assert rule.next(40, waste=10**6) == 20  # at most halved
    assert rule.next(40, waste=0) == 80  # no waste: at most doubled
    assert rule.next(10, waste=10**6) == 10  # never below low
    assert rule.next(900, waste=1) == 1000  # never above high
    assert rule.next(2**60, waste=1) == 1000  # no overflow on a huge Δ
    fixed = AdaptiveDelta(40, 40, 40)
    assert {fixed.next(40, w) for w in (0, 7, 10**7)} == {40}


def test_the_phase_cost_comes_from_the_method_unless_given():
    rule = adaptive.parse("adaptive", 1000, 10**9)
    assert rule.phase_cost is None
    assert rule.for_method(False).phase_cost == adaptive.PHASE_COST_SYNC
    assert rule.for_method(True).phase_cost == adaptive.PHASE_COST_ASYNC
    own = AdaptiveDelta(1, 9, 3, phase_cost=5)
    assert own.for_method(True) == own
    g = grid_graph(5, 5, seed=1)
    assert sssp(g, 0, method="near_far_async", delta="adaptive").adaptive.phase_cost == 8192


def test_each_method_starts_and_bounds_only_the_default_rule():
    rule = adaptive.parse("adaptive", 1000, 10**9).for_method(True)
    assert (rule.low, rule.start, rule.high) == (2000, 2000, 3000) and not rule.default_bounds
    assert rule.for_method(True) == rule  # a replay's rule is not narrowed again
    clamped = adaptive.parse("adaptive", 1000, 2500).for_method(True)
    assert (clamped.low, clamped.start, clamped.high) == (2000, 2000, 2500)
    given = adaptive.parse("adaptive:5-50000", 1000, 10**9).for_method(True)
    assert (given.low, given.start, given.high) == (5, 1000, 50000)
    sync = adaptive.parse("adaptive", 1000, 10**9).for_method(False)
    assert (sync.low, sync.start, sync.high) == (1000 // adaptive.SPAN, 4000, 1000 * adaptive.SPAN)
    g = grid_graph(30, 30, seed=4)
    r = sssp(g, 0, method="near_far_async", delta="adaptive")
    assert (r.adaptive.low, r.adaptive.high) == (2 * g.auto_delta(), 3 * g.auto_delta())
    assert r.delta == 2 * g.auto_delta()
    r = sssp(g, 0, method="near_far", delta="adaptive")
    assert r.delta == 4 * g.auto_delta() and r.adaptive.high == adaptive.SPAN * g.auto_delta()
    assert adaptive.parse("adaptive", 1000, 2500).for_method(False).start == 2500  # clamped
    assert adaptive.parse("adaptive:5-50000", 1000, 10**9).for_method(False).start == 1000


def test_parse_gives_bounds_around_davidsons_delta():
    rule = adaptive.parse("adaptive", 1000, 10**9)
    assert (rule.low, rule.start, rule.high) == (1000 // adaptive.SPAN, 1000, 1000 * adaptive.SPAN)
    rule = adaptive.parse("adaptive:5-50", 1000, 10**9)
    assert (rule.low, rule.start, rule.high) == (5, 50, 50)  # the start is clamped too
    assert adaptive.parse("adaptive:5-10000", 1000, 300).high == 300  # as an integer Δ is
    assert adaptive.parse(rule.spec(), 1000, 10**9) == rule


def _recorded_deltas_follow_the_rule(r) -> None:
    """Each phase change's Δ is the rule's answer to the waste the frame recorded, and the
    phase's entries less its re-improvements are the nodes settled at that phase end (each
    had exactly one entry that was not a re-improvement)."""
    rec, rule = r.recording, r.adaptive
    delta, phase = rec.column("delta"), rec.column("phase")
    entries, waste = rec.column("last_entries"), rec.column("last_waste")
    assert delta[0] == rule.start
    for k in np.flatnonzero(np.diff(phase)) + 1:
        assert delta[k] == rule.next(int(delta[k - 1]), int(waste[k]))
        assert entries[k] - waste[k] == np.count_nonzero(rec.settled_at == k)
    changes = np.flatnonzero(np.diff(delta)) + 1
    assert set(changes) <= set(np.flatnonzero(np.diff(phase)) + 1)  # only at phase ends


@property_settings(40)
@given(
    n=st.integers(1, 60),
    **RANDOM_GRAPH,
    bounds=st.sampled_from([(1, 1), (1, 8), (3, 400), (50, 10**6)]),
    phase_cost=st.sampled_from([1, 4, 64, 10**6]),
    batch=st.sampled_from([1, 3, 64]),
)
def test_random_graphs_match_dijkstra(
    backend, seed, n, density, max_weight, bounds, phase_cost, batch
):
    rng = np.random.default_rng(seed)
    g = random_graph(rng, n, int(density * n), max_weight)
    source = int(rng.integers(0, n))
    ref = heap_dijkstra(g, source)
    low, high = bounds[0], min(bounds[1], g.max_delta())
    low = min(low, high)
    rule = AdaptiveDelta(low, high, int(rng.integers(low, high + 1)), phase_cost)
    for method in ADAPTIVE:
        record = method != "near_far_async"
        r = sssp(g, source, method=method, backend=backend, delta=rule, batch_size=batch,
                 record=record)  # fmt: skip
        assert np.array_equal(r.distances, ref), (method, rule, batch)
        check_tree(r)
        if record:
            _recorded_deltas_follow_the_rule(r)


@pytest.mark.parametrize("method", ["near_far", "delta_stepping", "bucketing"])
def test_delta_moves_on_a_city_and_answers_stay_exact(backend, method):
    g = engine.load_graph("helsinki")
    rule = AdaptiveDelta(8, 4096, 64, phase_cost=50)
    r = sssp(g, 0, method=method, backend=backend, delta=rule, batch_size=5, record=True)
    assert np.array_equal(r.distances, sssp(g, 0, method="dijkstra").distances)
    deltas = set(r.recording.column("delta").tolist())
    assert len(deltas) >= 3  # it doubled and halved on the way
    _recorded_deltas_follow_the_rule(r)
    assert r.summary()["delta_rule"] == "adaptive:8-4096" and r.delta == 64


def test_a_fixed_delta_keeps_its_column_and_reads_the_rules_inputs(backend):
    g = grid_graph(20, 20, seed=2)
    r = sssp(g, 0, backend=backend, delta=30, record=True)
    assert set(r.recording.column("delta").tolist()) == {30}
    assert r.adaptive is None and r.summary()["delta_rule"] is None
    last = r.recording.snapshot(len(r.recording) - 1)
    assert last.delta == 30 and last.last_entries > 0


def test_async_on_a_grid_matches(backend):
    g = grid_graph(60, 60, seed=6)
    ref = sssp(g, 5, method="dijkstra").distances
    for rule in ("adaptive", "adaptive:1-2", AdaptiveDelta(1, 5000, 1, phase_cost=10**6)):
        r = sssp(g, 5, method="near_far_async", backend=backend, delta=rule)
        assert np.array_equal(r.distances, ref), rule


@pytest.mark.parametrize(
    ("method", "delta", "match"),
    [
        ("bellman_ford", "adaptive", "bellman_ford has no buckets to adapt"),
        ("dijkstra", "adaptive", "dijkstra has no buckets to adapt"),
        ("near_far", "adaptive:10-5", "1 ≤ low ≤ high"),
        ("near_far", "adaptive:0-5", "1 ≤ low ≤ high"),
        ("near_far", "adaptive:x-5", "two integers LOW-HIGH"),
        ("near_far", "adaptive:5", "two integers LOW-HIGH"),
        ("near_far", AdaptiveDelta(5, 10, 20), "start 20 is outside"),
        ("near_far", AdaptiveDelta(5, 10, 5, phase_cost=0), "phase_cost must be between"),
        ("near_far", AdaptiveDelta(5, 10**12, 5), "above this graph's widest"),
    ],
)
def test_bad_rules_are_one_line(method, delta, match):
    g = grid_graph(4, 4)
    with pytest.raises(engine.ParameterError, match=match):
        sssp(g, 0, method=method, delta=delta)
