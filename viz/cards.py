"""The stats card of each run, the legend and the plain-words notes."""

from __future__ import annotations

import html

import panel as pn
from panel.viewable import Viewer

from . import state, style
from ._page import from_page
from .runs import Run
from .runview import RunView
from .state import METHOD_LABELS, Session


def _legend(items) -> str:
    return "".join(
        f'<span style="display:inline-block;width:11px;height:11px;border-radius:6px;'
        f'background:{color};margin:0 4px 0 10px;vertical-align:middle"></span>{label}'
        for color, label in items
    )


#: The legend's type in presentation mode (the caption's is `style.PRESENT_PX`).
LEGEND_PRESENT_PX = 20

#: The map's legend for each layer.
LEGENDS = {
    "states": _legend(
        (
            (style.ROAD, "unreached (the roads alone)"),
            (style.FAR, "far"),
            (style.NEAR, "near"),
            (style.SETTLED, "settled"),
            (style.SOURCE, "source"),
            (style.TARGET, "target"),
        )
    ),
    "work": _legend(
        (
            (style.WORK_COLORS[1], "arcs relaxed once (Dijkstra's work)"),
            (style.WORK_COLORS[2], "twice"),
            (style.WORK_COLORS[3], "3 times"),
            (style.WORK_COLORS[4], "4 or more: wasted work"),
        )
    ),
}


class Legend(Viewer):
    """What the map colours (node states, or the relax work of each node: wasted work) and
    what its colours mean."""

    def __init__(self, session: Session, **params):
        super().__init__(**params)
        self.session = session
        self.layer = pn.widgets.RadioButtonGroup(
            options={"Node states": "states", "Wasted work": "work"},
            value=session.layer,
            color="light",
            css_classes=["frontier-layer"],
            width=220,
        )
        self.layer.param.watch(from_page(lambda e: setattr(session, "layer", e.new)), "value")
        self.text = pn.pane.HTML(LEGENDS[session.layer], css_classes=["frontier-legend"])
        session.param.watch(self._sync, ["layer", "present"])
        self._sync()

    def _sync(self, *_events) -> None:
        """The layer's legend, in large type on a projector (presentation mode)."""
        self.layer.value = self.session.layer
        self.text.object = LEGENDS[self.session.layer]
        self.text.styles = {"font-size": f"{LEGEND_PRESENT_PX}px"} if self.session.present else {}

    def switch(self) -> pn.viewable.Viewable:
        """The layer switch, for the settings drawer."""
        return self.layer

    def __panel__(self):
        return self.text


NOTES = """
Frontier shows a **shortest-path search** spreading through a city from the **source** (blue
dot) to every node, or until the **target** (vermillion square) is final. Each frame is one
iteration: every *near* node relaxes its arcs (tries to shorten its neighbours' distances).
The caption under the player says in words what the last iteration did.

**Settled** nodes (grey) have their final distance. **Near** nodes (orange) have a
tentative distance below the threshold phase·Δ: they are relaxed again and again until no
distance improves. **Far** nodes (sky blue) were reached with a distance beyond the threshold:
they wait in the far pile. When near empties, the threshold moves up by Δ, the far pile is
compacted and its nodes under the new threshold become near. The blue band is where the
threshold lies as the crow flies.

**Δ** trades parallelism against wasted work: a large Δ puts more nodes in each near set
(more work per iteration, fewer iterations) but relaxes nodes whose distances later improve;
a small Δ approaches Dijkstra. **Batch size** is how many iterations the GPU runs before the
host checks whether near is empty: it changes speed (host syncs), never the answer or the
frames. **Δ-stepping** uses buckets of width Δ and relaxes heavy arcs once per bucket;
**Bucketing** keeps the far nodes sorted into buckets of width Δ, so each phase takes the next
bucket instead of compacting the whole far pile; **Bellman-Ford** has no threshold at all.

**Near-Far, asynchronous** relaxes each near node as soon as it is reached, from work rings
in every GPU block, with no barrier between iterations: it has no iterations to show, so each
frame is a phase's end (the next band near, the far pile beyond it). **Near-Far on the
contraction core** first contracts the nodes of few neighbours into shortcuts, searches the
*core* left, then sweeps the contracted nodes, last contracted first: its last frames are the
sweep's steps, each giving one round's nodes their distance with no queue and no threshold.

**Wasted work** colours each node by how many times its arcs have been relaxed so far:
once is what Dijkstra does; every further time (yellow, orange, red) is work a wide Δ
wastes, because the node's distance was not final yet.

**Keys**: space plays and pauses, ← and → step one frame, Home goes to the first frame, Esc
leaves presentation mode (the **Present** button beside the player: map, player and caption,
large, in a loop).
**Explore** (below the charts) sweeps Δ and the batch size for this query; **Settings**
opens the graph, search B, speed, lessons, questions and **Take away** (exports of the run);
the page's link reopens this view.
"""


def _row(label: str, value: str) -> str:
    return f"<tr><td style='padding-right:12px;color:#555'>{label}</td><td>{value}</td></tr>"


def _ratio(speed: float) -> str:
    return f"{speed:.1f}× faster" if speed >= 1 else f"{1 / speed:.1f}× slower"


def stats_html(run: Run) -> str:
    """The finished run's numbers as an HTML table."""
    r, ref = run.result, run.reference
    c = r.counters
    kind = r.graph.weight_kind
    delta = "—" if r.delta is None else f"{r.delta:,} ({style.weight_text(r.delta, kind)})"
    if r.adaptive is not None:
        delta = f"{r.adaptive.describe()}, from {delta}"
    g = r.graph
    rows = [
        _row("Graph", f"{html.escape(g.name)} · {g.n_nodes:,} nodes · {g.n_arcs:,} arcs"),
        _row("Search", f"{METHOD_LABELS[r.method]} · Δ {delta} · batch {r.batch_size}"),
        _row("Ran on", html.escape(r.device)),
        _row("Iterations", f"{c.iterations:,} in {style.counted(c.phases, 'phase')}"),
        _row("Host syncs", f"{c.host_syncs:,}"),
    ]
    if ref.edges_relaxed is None:  # a search of a large graph stopped at its target
        rows.append(_row("Arcs relaxed", f"{c.edges_relaxed:,}"))
    else:
        efficiency = ref.edges_relaxed / max(c.edges_relaxed, 1)
        rows += [
            _row("Arcs relaxed", f"{c.edges_relaxed:,} (Dijkstra: {ref.edges_relaxed:,})"),
            _row("Relative efficiency", f"{efficiency:.0%} of the work is what Dijkstra does"),
        ]
    if ref.elapsed_s is None:
        scipy = (
            f"SciPy's Dijkstra is not timed on graphs of over {state.REFERENCE_MAX_NODES:,} nodes "
            "(it would hold the server for seconds): frontier bench times it"
        )
    else:
        speed = ref.elapsed_s / r.elapsed_s if r.elapsed_s > 0 else float("inf")
        scipy = f"vs SciPy Dijkstra {style.ms(ref.elapsed_s)} ({_ratio(speed)})"
    rows.append(_row("Search time", f"{style.ms(r.elapsed_s)} with recording, {scipy}"))
    if g.notes:  # what the load cut or left out of the file
        rows.insert(1, _row("Loaded", html.escape("; ".join(g.notes))))
    if run.route.size:
        cost = ", ".join(style.weight_text(v, k) for k, v in run.route_cost.items())
        rows.append(_row("Route", f"{cost} · {run.route.size - 1} arcs"))
    elif r.target is None:
        rows.append(_row("Route", "no target: full single-source search"))
    return f"<table class='frontier-stats' style='font-size:13px'>{''.join(rows)}</table>"


class StatsCard(RunView):
    """Numbers of one finished run, shown as soon as the search ends."""

    def __init__(self, session: Session, slot: int = 0, **params):
        super().__init__(session, slot, **params)
        self._layout = pn.pane.HTML("", sizing_mode="stretch_width")
        self._follow(frames=False)

    def _on_runs(self, *_events) -> None:
        if self._run is not None:
            self._layout.object = stats_html(self._run)


def _search_words(run: Run) -> str:
    r = run.result
    delta = "" if r.delta is None else f" · Δ {style.weight_text(r.delta, r.graph.weight_kind)}"
    if r.adaptive is not None:
        delta = " · adaptive Δ"
    return f"{METHOD_LABELS[r.method]}{delta} · batch {r.batch_size}"


def _times(b: float, a: float) -> str:
    return f"{b / a:.2f}×" if a > 0 else "—"


def differences_html(a: Run, b: Run) -> str:
    """B against A in one line: iterations, phases, arcs relaxed, search time."""
    ca, cb = a.result.counters, b.result.counters
    parts = [
        f"iterations {cb.iterations:,} vs {ca.iterations:,}",
        f"phases {cb.phases:,} vs {ca.phases:,}",
        f"arcs relaxed {_times(cb.edges_relaxed, ca.edges_relaxed)}",
        f"search time {_times(b.result.elapsed_s, a.result.elapsed_s)}",
    ]
    return f"<div class='frontier-differences'><b>B against A:</b> {' · '.join(parts)}</div>"


class RunTitle(RunView):
    """ "A" or "B" over a run's map while two are compared, with what that search is."""

    def __init__(self, session: Session, slot: int = 0, **params):
        super().__init__(session, slot, **params)
        self._layout = pn.pane.HTML("", margin=(0, 10), sizing_mode="stretch_width",
                                    visible=session.param.compare)  # fmt: skip
        self._follow(frames=False)

    def _on_runs(self, *_events) -> None:
        if self._run is not None:
            letter = "AB"[self.slot]
            self._layout.object = (
                f"<div class='frontier-run-title' style='font-size:15px'><b>{letter}</b> · "
                f"{html.escape(_search_words(self._run))}</div>"
            )


class Differences(RunView):
    """What B did against A, in one line, while two runs are compared."""

    def __init__(self, session: Session, **params):
        super().__init__(session, 0, **params)
        self._layout = pn.pane.HTML("", margin=(0, 10), sizing_mode="stretch_width",
                                    visible=session.param.compare)  # fmt: skip
        self._follow(frames=False)

    def _on_runs(self, *_events) -> None:
        runs = self.session.runs
        if len(runs) == 2:
            self._layout.object = differences_html(*runs)
