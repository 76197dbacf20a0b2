"""engine.studies.plots: the cells' medians and spreads that the Explore view and the PNGs show."""

import io

import pytest

from engine.studies import plots


def row(time_ms, *, delta="auto", batch=8, dijkstra_ms=2.0, edges=120, dijkstra_edges=100):
    return dict(method="near_far", delta_spec=delta, batch=str(batch), time_ms=str(time_ms),
                dijkstra_ms=str(dijkstra_ms), edges_relaxed=str(edges),
                dijkstra_edges=str(dijkstra_edges), delta="50")  # fmt: skip


def test_a_cell_has_its_median_and_the_range_of_its_searches():
    """Issue 52: the same cell gave 0.56× and 0.11× in two sweeps, with nothing on screen
    saying how far apart its searches were."""
    cells = plots.cell_medians([row(1.0), row(4.0), row(2.0, dijkstra_ms=1.0)])
    (cell,) = cells.values()
    assert cell["n"] == 3 and cell["time_ms"] == 2.0
    assert (cell["time_ms_lo"], cell["time_ms_hi"]) == (1.0, 4.0)
    assert (cell["speedup_lo"], cell["speedup_hi"]) == (0.5, 2.0)  # each search's own ratio
    assert cell["speedup"] == 1.0  # the medians' ratio: 2 ms over 2 ms
    assert cell["efficiency_lo"] == cell["efficiency_hi"] == pytest.approx(100 / 120)


def test_the_spread_is_written_under_the_median_only_where_there_is_one():
    (one,) = plots.cell_medians([row(1.0)]).values()
    (same,) = plots.cell_medians([row(1.0), row(1.0)]).values()
    (apart,) = plots.cell_medians([row(1.0), row(3.0), row(2.0)]).values()
    assert plots.spread_text(one, "time_ms", "{:.3g} ms") == "1 ms"
    assert plots.spread_text(same, "time_ms", "{:.3g} ms") == "1 ms"
    assert plots.spread_text(apart, "time_ms", "{:.3g} ms") == "2 ms\n1 ms–3 ms"
    assert plots.spread_text(apart, "speedup", "{:.2f}×") == "1.00×\n0.67×–2.00×"


def test_the_sweep_png_draws_cells_of_several_searches():
    rows = [row(t, delta=d, batch=b) for d in ("x0.5", "auto") for b in (1, 8) for t in (1, 2)]
    out = io.BytesIO()
    meta = dict(graph="toy", nodes=4, weights="given", source=0, target=1, device="CPU")
    plots.sweep_png(rows, meta, out)
    assert out.getvalue()[:8] == b"\x89PNG\r\n\x1a\n"
