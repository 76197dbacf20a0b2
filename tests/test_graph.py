"""CSRGraph and from_arcs: what they accept and what they refuse (issue 12)."""

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import engine
from engine import from_arcs
from engine.graphs.csr import unique

from .graphs import property_settings


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        ((3, [0, 1], [1, -1], [1, 2]), engine.NodeNotFoundError, "arc 1 has head -1"),
        ((3, [0, 1], [1, 7], [1, 2]), engine.NodeNotFoundError, "arc 1 has head 7"),
        ((3, [0, 5], [1, 2], [1, 2]), engine.NodeNotFoundError, "arc 1 has tail 5"),
        ((3, [0], [1, 2], [1, 2]), engine.ParameterError, "one entry per arc"),
        ((2.5, [0], [1], [1]), engine.ParameterError, "n_nodes must be an integer"),
        ((-1, [], [], []), engine.ParameterError, "between 0 and"),
        ((2**31, [], [], []), engine.ParameterError, "between 0 and"),
        ((3, [0.5], [1], [1]), engine.ParameterError, "tails must be integer"),
        ((3, [[0]], [[1]], [[1]]), engine.ParameterError, "flat list"),
        ((3, [0], [1], ["x"]), engine.ParameterError, "weights must be numbers"),
        ((3, [0], [1], [2**70]), engine.WeightOverflowError, "exceeds the largest"),
        ((3, [0], [1], [-2]), engine.NegativeWeightError, "negative weight"),
        ((3, [0], [1], [float("nan")]), engine.NegativeWeightError, "NaN"),
    ],
)
def test_from_arcs_refuses_bad_input(args, error, match):
    with pytest.raises(error, match=match):
        from_arcs(*args)


def test_coordinates_and_ids_need_one_entry_per_node():
    with pytest.raises(engine.ParameterError, match="lon needs one entry per node"):
        from_arcs(2, [0], [1], [1], lon=[1.0], lat=[1.0, 2.0])
    with pytest.raises(engine.ParameterError, match="node_ids needs one entry"):
        from_arcs(2, [0], [1], [1], node_ids=[7])


def test_a_hand_made_csr_is_checked():
    g = from_arcs(3, [0, 1], [1, 2], [1, 2])
    with pytest.raises(engine.GraphFormatError, match="not a valid CSR graph"):
        engine.CSRGraph(g.indptr, np.array([1, 9], np.int32), g.weights, g.node_ids)
    with pytest.raises(engine.GraphFormatError, match="not a valid CSR graph"):
        engine.CSRGraph(np.array([0, 2, 1, 2]), g.indices, g.weights, g.node_ids)


def test_the_arc_that_crashed_scipy_is_refused_in_a_subprocess():
    """`from_arcs(3, [0, 1], [1, -1], ...)` then SciPy's Dijkstra segfaulted the process."""
    code = (
        "import engine\n"
        "try:\n"
        "    g = engine.from_arcs(3, [0, 1], [1, -1], [1, 2])\n"
        "    engine.sssp(g, 0, method='dijkstra')\n"
        "except engine.FrontierError as exc:\n"
        "    print(type(exc).__name__)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "NodeNotFoundError", done.stderr


@pytest.mark.parametrize("given", [float("inf"), float("nan"), 1.7, 1.0, True, "abc", None])
def test_index_of_takes_integer_ids_only(given):
    g = from_arcs(3, [0, 1], [1, 2], [1, 2])
    with pytest.raises(engine.NodeNotFoundError, match="not an integer"):
        g.index_of(given)


def test_index_of_integers_and_digit_strings():
    g = from_arcs(3, [0, 1], [1, 2], [1, 2], node_ids=[10, -4, 30])
    assert g.index_of(10) == 0 and g.index_of(np.int64(30)) == 2
    assert g.index_of("30") == 2 and g.index_of(" -4 ") == 1


@property_settings(100)
@given(
    n=st.integers(1, 40),
    m=st.integers(0, 160),
    max_weight=st.sampled_from([0, 2, 1000, engine.graphs.csr.MAX_WEIGHT]),
    seed=st.integers(0, 2**32 - 1),
)
def test_from_arcs_keeps_the_lightest_arc_of_each_pair_rows_by_weight(n, m, max_weight, seed):
    rng = np.random.default_rng(seed)
    tails, heads = rng.integers(0, n, m), rng.integers(0, n, m)
    weights = rng.integers(0, max_weight, m, endpoint=True)
    lightest = {}
    for t, h, w in zip(tails.tolist(), heads.tolist(), weights.tolist(), strict=True):
        lightest[t, h] = min(w, lightest.get((t, h), w))
    g = from_arcs(n, tails, heads, weights)
    for u in range(n):
        row = sorted((w, h) for (t, h), w in lightest.items() if t == u)
        arcs = slice(g.indptr[u], g.indptr[u + 1])
        assert list(zip(g.weights[arcs].tolist(), g.indices[arcs].tolist(), strict=True)) == row


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.uint64])
@pytest.mark.parametrize("size", [0, 1, 2, 7, 1000])
def test_unique_is_numpys_in_one_sort(dtype, size):
    values = np.random.default_rng(size).integers(0, 50, size).astype(dtype)
    got = unique(values)
    assert got.dtype == values.dtype
    np.testing.assert_array_equal(got, np.unique(values))


def test_unique_keeps_the_input():
    values = np.array([3, 1, 3, 2])
    unique(values)
    np.testing.assert_array_equal(values, [3, 1, 3, 2])
