"""The Explore view: Δ × batch sweeps and Dijkstra-rank studies of the session's query.

`Explorer` is the state. It runs one study at a time on a background thread (`viz.study`),
so the page stays responsive and the study can be cancelled; the rows it finishes are collected by
`Explorer.poll` (the view's clock calls it) and nothing of the page is touched from the
thread. A clicked cell becomes the session's search A (or B). `ExploreView` only draws it:
the heatmap filling in cell by cell, the rank plot, the progress, and the downloads.
"""

from __future__ import annotations

import html
import io
import json
import time
from collections.abc import Callable

import numpy as np
import panel as pn
import param
from bokeh.events import Tap
from bokeh.models import ColorBar, ColumnDataSource, FactorRange, LogColorMapper, Span
from bokeh.palettes import Category10_10, Viridis256
from bokeh.plotting import figure
from panel.viewable import Viewer

import engine
from engine import FrontierError, ParameterError
from engine.adaptive import AdaptiveDelta
from engine.studies import experiments, plots

from ._page import every, from_page, held
from .charts import TextPane
from .controls import two_way
from .runs import Settings
from .state import METHOD_LABELS, RunConfig, Session
from .study import Study
from .style import counted, file_stem

#: Methods with a Δ to explore (the dashboard's own, so that a cell can be animated).
METHODS = {label: m for m, label in METHOD_LABELS.items() if engine.METHODS[m].uses_delta}
#: What the heatmap and the rank plot show: label, better when higher, cell text.
METRICS = {
    "speedup": ("speed-up over Dijkstra (×)", True, "{:.2f}×"),
    "time_ms": ("median time (ms)", False, "{:.3g} ms"),
    "efficiency": ("relative efficiency (Dijkstra's arcs ÷ ours)", True, "{:.2f}"),
}
#: The metrics that rank cells by speed: only over these is the fastest cell outlined.
SPEED_METRICS = ("speedup", "time_ms")
PENDING = "#eeeeee"
REPEATS = (1, 3, 5, 9)
NO_RANK = -1  # the rank menu's entry for a target that has no rank 2^r (or none)


class Explorer(param.Parameterized):
    """The Explore view's state: the grid to study, the study on show, the chosen rank."""

    method = param.Selector(default="near_far", objects=list(METHODS.values()))
    deltas = param.String(default="x0.25,x0.5,auto,x2,x4", doc="Δ values, as in the CLI")
    batches = param.String(default="1,8,64", doc="batch sizes, as in the CLI")
    repeat = param.Selector(default=3, objects=list(REPEATS), doc="searches per cell (median)")
    metric = param.Selector(default="speedup", objects=list(METRICS))
    study = param.ClassSelector(class_=Study, allow_None=True, doc="The study on show")
    rows = param.List(default=[], doc="Its finished rows")
    running = param.Boolean(default=False)
    status = param.String(default="")
    rank = param.Integer(
        default=None, allow_None=True, doc="r when the target has rank 2^r (once `follow`ed)"
    )

    def __init__(self, session: Session, **params):
        super().__init__(**params)
        self.session = session
        self._targets: tuple[tuple, dict[int, int]] | None = None
        self._following = False
        session.param.watch(self._query_changed, ["loaded", "source", "target"])

    def follow(self) -> None:
        """Keep `rank` up to date from now on (the view calls this as Explore first opens).
        Finding it takes a Dijkstra search from the source: until then, none is made, so a
        new graph or query does not wait for it (0.36 s of a 1M-node city's first picture
        on a 2-core server)."""
        if not self._following:
            self._following = True
            self._find_rank()

    # ---------------------------------------------------------------------- studies
    def start(self, kind: str) -> bool:
        """Start a ``"sweep"`` or a ``"ranks"`` study of the session's query on a
        background thread (a running one is cancelled); False, with the session's error
        set and the study on show kept, when the lists are bad."""
        s = self.session
        loaded, config = s.loaded, s.configs[0]
        graph = loaded.graph
        try:
            deltas = experiments.parse_deltas(self.deltas, graph, name="Δ list")
            batches = experiments.parse_batches(self.batches, name="Batch list")
            if kind == "sweep":
                self.follow()
                queries = [(s.source, s.target, self.rank)]
            else:
                batches = batches[:1]
                queries = [(s.source, t, r) for r, t in self.rank_targets().items()]
                if not queries:
                    msg = "the source reaches no other node: there are no ranks; pick another"
                    raise ParameterError(msg)
        except FrontierError as exc:
            return s.fail(exc)
        ids = graph.node_ids
        meta = experiments.metadata(
            graph, study=kind, network=loaded.choice.network, source=int(ids[s.source]),
            target=None if s.target is None or kind == "ranks" else int(ids[s.target]),
            target_rank=self.rank if kind == "sweep" else None, backend=config.backend,
            methods=[self.method], deltas=experiments.delta_values(deltas),
            delta_specs=[spec for spec, _ in deltas], batches=batches, repeat=self.repeat,
            started=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        )  # fmt: skip
        study = Study(
            kind, loaded, queries, meta, method=self.method, deltas=deltas, batches=batches,
            repeat=self.repeat, backend=config.backend,
        )  # fmt: skip
        self.cancel()
        study.start()
        self.param.update(study=study, rows=[], running=True, status=study.status())
        return True

    def cancel(self) -> None:
        """Stop the running study after its current search; its rows stay on show."""
        if self.study is not None and self.running:
            self.study.cancel()

    def poll(self) -> None:
        """Collect what the study finished since the last call (the view's clock calls
        this while it runs)."""
        study = self.study
        if study is None or not self.running:
            return
        if study.drain():
            self.rows = list(study.rows)
        self.status = study.status()
        if study.outcome != "running":
            self.running = False
            if study.error is not None:
                self.session.fail(study.error)

    def wait(self, timeout: float = 120.0) -> None:
        """Block until the study ends, then collect it (for scripts and tests)."""
        if self.study is not None:
            self.study.wait(timeout)
            self.poll()

    def _query_changed(self, *_events) -> None:
        s, study = self.session, self.study
        if s.loaded is None:
            return
        if study is not None and not study.of_query(s.loaded, s.source, s.target):
            study.cancel()
            status = "The query changed: run the study again for the new one."
            self.param.update(study=None, rows=[], running=False, status=status)
        if self._following:
            self._find_rank()

    def _find_rank(self) -> None:
        target = self.session.target
        targets = self.rank_targets() if target is not None else {}
        self.rank = next((r for r, t in targets.items() if t == target), None)

    # ----------------------------------------------------------------- the grid's cells
    def cells(self) -> dict[tuple, dict[str, float]]:
        """Median metrics of the finished rows: per (Δ spec, batch) for a sweep, per
        (Δ spec, rank) for a rank study."""
        column = "batch" if self.study is None or self.study.kind == "sweep" else "rank"
        return plots.cell_medians(self.rows, key=lambda row: (row["delta_spec"], int(row[column])))

    def load_cell(self, delta_spec: str, batch: int, *, side: int = 0) -> bool:
        """Load the sweep's cell into search A (``side`` 0) or B (1, turning the comparison
        on): the same method, Δ, batch and backend, recorded for the player."""
        study, s = self.study, self.session
        if study is None or study.kind != "sweep":
            return s.fail(ParameterError("run a sweep first, then click one of its cells"))
        delta = dict(study.deltas)[delta_spec]
        if delta_spec in ("auto", "adaptive"):
            delta = delta_spec
        elif isinstance(delta, AdaptiveDelta):
            msg = (
                f"the player's adaptive Δ keeps its default bounds; {delta_spec} opens only "
                "from the CLI (frontier animate --delta)"
            )
            return s.fail(ParameterError(msg))
        wanted = Settings(study.method, delta, batch, study.backend)
        values = RunConfig.delta_values(delta)
        # B runs only once the comparison is on
        s.configs[side].param.update(
            method=wanted.method, batch_size=batch, backend=wanted.backend, **values
        )
        if side == 1 and not s.compare:
            s.compare = True
        return len(s.runs) > side and s.runs[side].settings == wanted

    # ------------------------------------------------------------------------ ranks
    def rank_targets(self) -> dict[int, int]:
        """The CSR index of the node at Dijkstra rank 2^r from the session's source, for
        every r it reaches (computed once per graph and source)."""
        s = self.session
        key = (s.loaded.choice, s.source)
        if self._targets is None or self._targets[0] != key:
            reference = experiments.dijkstra_reference(s.loaded.graph, s.source)
            self._targets = (key, experiments.rank_targets(reference))
        return self._targets[1]

    def set_rank(self, r: int) -> bool:
        """Make the node at Dijkstra rank 2^``r`` the session's target."""
        self.follow()
        targets = self.rank_targets()
        if r not in targets:
            last = max(targets, default=None)
            reach = "no other node" if last is None else f"ranks up to 2^{last}"
            msg = f"rank 2^{r} is beyond this graph: the source reaches {reach}; pick a smaller one"
            return self.session.fail(ParameterError(msg))
        return self.session.set_query(target=targets[r])

    # --------------------------------------------------------------------- downloads
    def filename(self, suffix: str) -> str:
        kind = self.study.kind if self.study else "sweep"
        return f"frontier-{kind}-{file_stem(self.session.loaded.graph.name)}.{suffix}"

    def csv_file(self) -> io.StringIO:
        return io.StringIO(experiments.csv_text(self.rows))

    def json_file(self) -> io.StringIO:
        meta = self.study.meta if self.study else {}
        return io.StringIO(json.dumps(meta, indent=2))

    def png_file(self) -> io.BytesIO:
        out = io.BytesIO()
        if self.study is None or not self.rows:
            return out
        draw = plots.sweep_png if self.study.kind == "sweep" else plots.ranks_png
        draw(self.rows, self.study.meta, out)
        out.seek(0)
        return out


def _colours(values: list[float], higher_is_better: bool) -> tuple[list[str], float, float]:
    """Viridis colours on a log scale, the better end bright (a value that is not a
    positive number is grey), and the least and the most value coloured (the colour bar's
    ends; both 1 when none is)."""
    v = np.asarray(values, dtype=float)
    ok = np.isfinite(v) & (v > 0)
    logs = np.log10(np.where(ok, v, 1.0))
    lo, hi = (float(logs[ok].min()), float(logs[ok].max())) if ok.any() else (0.0, 0.0)
    t = (logs - lo) / (hi - lo) if hi > lo else np.ones_like(logs)
    t = t if higher_is_better else 1 - t
    colours = [
        Viridis256[round(x * 255)] if good else PENDING for x, good in zip(t, ok, strict=True)
    ]
    return colours, 10**lo, 10**hi


def _done(study: Study, cells: dict) -> list[tuple]:
    """The sweep's finished cells, in grid order."""
    return [(spec, b) for spec, _ in study.deltas for b in study.batches if (spec, b) in cells]


def fastest_cell(study: Study, cells: dict) -> tuple | None:
    """The finished cell of the sweep with the least median time (None before any)."""
    done = _done(study, cells)
    return min(done, key=lambda k: cells[k]["time_ms"]) if done else None


def fastest_words(study: Study, cells: dict, label: Callable) -> str:
    """The fastest cell by median time, its range, and how many other cells' ranges overlap
    it (those the study has not told apart from it)."""
    best = fastest_cell(study, cells)
    if best is None:
        return ""
    c = cells[best]
    done = _done(study, cells)
    ties = sum(1 for k in done if k != best and cells[k]["time_ms_lo"] <= c["time_ms_hi"])
    where = f"Δ {label(best[0], dict(study.deltas)[best[0]])}, batch {best[1]}"
    text = f"<b>Fastest:</b> {where}, {plots.spread_text(c, 'time_ms', '{:.3g} ms')}"
    text = text.replace("\n", " (") + ")" if "\n" in text else text
    if ties:
        text += (
            f"; {counted(ties, 'other cell')} overlap{'s' if ties == 1 else ''} its range: "
            "more searches per cell would tell them apart."
        )
    elif c["n"] > 1:
        text += "; no other cell's range overlaps it."
    return f"<small>{text}</small>"


def _holder(fig, css_class: str) -> pn.Column:
    """A Bokeh figure in a column that carries its CSS class and visibility (a Bokeh pane
    given its figure at once applies neither to it)."""
    return pn.Column(pn.pane.Bokeh(fig, sizing_mode="stretch_width"), css_classes=[css_class],
                     sizing_mode="stretch_width")  # fmt: skip


def _ink(colour: str) -> str:
    return plots.ink(*(int(colour[k : k + 2], 16) / 255 for k in (1, 3, 5)))


class ExploreView(Viewer):
    """Controls, progress, heatmap (a sweep) or rank plot (a rank study), downloads."""

    def __init__(self, explorer: Explorer, **params):
        super().__init__(**params)
        self.explorer = e = explorer
        e.follow()
        self.method = pn.widgets.Select(label="Algorithm", options=METHODS, value=e.method)
        self.deltas = pn.widgets.TextInput(
            label="Δ list (integers, auto, x4, adaptive ...)", value=e.deltas
        )
        self.batches = pn.widgets.TextInput(label="Batch list", value=e.batches)
        self.repeat = pn.widgets.Select(
            label="Searches per cell", options=list(REPEATS), value=e.repeat
        )
        for widget, name in ((self.method, "method"), (self.deltas, "deltas"),
                             (self.batches, "batches"), (self.repeat, "repeat")):  # fmt: skip
            two_way(widget, e, name)
        self.sweep = pn.widgets.Button(
            label="Sweep", color="primary", css_classes=["frontier-sweep"]
        )
        self.ranks = pn.widgets.Button(label="Rank study", css_classes=["frontier-ranks"])
        self.cancel = pn.widgets.Button(label="Cancel", disabled=True)
        self.sweep.on_click(held(lambda: e.start("sweep")))
        self.ranks.on_click(held(lambda: e.start("ranks")))
        self.cancel.on_click(held(e.cancel))
        self.rank = pn.widgets.Select(label="Target at Dijkstra rank", width=180)
        self.rank.param.watch(from_page(self._chose_rank), "value")
        self.metric = pn.widgets.Select(  # a menu, not buttons: it fits a phone
            label="Cells show", options={METRICS[k][0]: k for k in METRICS}, value=e.metric,
            width=300, sizing_mode=None,
        )  # fmt: skip
        two_way(self.metric, e, "metric")
        self.progress = pn.indicators.Progress(value=0, max=1, visible=False, height=12)
        self.status = TextPane("")
        self.verdict = TextPane("", css_classes=["frontier-verdict"])
        self.downloads = [
            pn.widgets.FileDownload(
                callback=cb,
                filename=e.filename(ext),
                label=f"Download {ext.upper()}",
                color="light",
                width=160,
                sizing_mode=None,
                css_classes=[f"frontier-download-{ext}"],
            )
            for ext, cb in (("csv", e.csv_file), ("json", e.json_file), ("png", e.png_file))
        ]
        self._heatmap()
        self._rankplot()
        self._clock = None
        e.param.watch(self._on_study, "study")
        e.param.watch(self._on_rows, ["rows", "metric"])
        e.param.watch(self._on_running, ["running", "status"])
        e.param.watch(self._on_rank, "rank")
        e.session.param.watch(self._on_rank, ["loaded", "source"])
        if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
            pn.state.on_session_destroyed(lambda _context: e.cancel())
        self._on_study()
        self._on_running()
        self._on_rank()

    # ------------------------------------------------------------------------ figures
    def _heatmap(self) -> None:
        fig = figure(
            x_range=FactorRange(), y_range=FactorRange(), height=330, tools="",
            toolbar_location=None, sizing_mode="stretch_width",
            x_axis_label="batch size (iterations per host check)", y_axis_label="Δ",
        )  # fmt: skip
        self._cells = ColumnDataSource(dict(batch=[], delta=[], fill=[], text=[], ink=[]))
        fig.rect("batch", "delta", 1, 1, source=self._cells, fill_color="fill", line_color="white")
        fig.text("batch", "delta", text="text", text_color="ink", source=self._cells,
                 text_align="center", text_baseline="middle", text_font_size="12px")  # fmt: skip
        self._best = ColumnDataSource(dict(batch=[], delta=[]))
        fig.rect("batch", "delta", 0.96, 0.96, source=self._best, fill_color=None,
                 line_color="#d62728", line_width=3)  # fmt: skip
        fig.grid.visible = False
        # The cells' colours are computed here (their text's ink follows them); the bar
        # shows the same log scale, the better end bright.
        self._scale = LogColorMapper(palette=Viridis256, low=1, high=10)
        self._bar = ColorBar(color_mapper=self._scale, orientation="horizontal", height=10,
                             title_text_font_size="11px", major_label_text_font_size="11px",
                             title_standoff=4, padding=4)  # fmt: skip
        fig.add_layout(self._bar, "below")
        fig.on_event(Tap, self._on_tap)
        self._heat_fig = fig
        self._heat = _holder(fig, "frontier-heatmap")

    def _rankplot(self) -> None:
        fig = figure(
            height=330, y_axis_type="log", tools="", toolbar_location=None,
            sizing_mode="stretch_width", x_axis_label="Dijkstra rank r (target settled 2^r-th)",
        )  # fmt: skip
        self._lines = ColumnDataSource(dict(xs=[], ys=[], colour=[], name=[]))
        fig.multi_line("xs", "ys", line_color="colour", line_width=2, legend_field="name",
                       source=self._lines)  # fmt: skip
        fig.add_layout(fig.legend[0], "right")
        self._span = Span(dimension="height", location=0, line_dash="dashed", visible=False)
        fig.add_layout(self._span)
        self._ranks_fig = fig
        self._ranks = _holder(fig, "frontier-rankplot")

    # ------------------------------------------------------------------------ updates
    def _on_study(self, *_events) -> None:
        study = self.explorer.study
        sweep = study is None or study.kind == "sweep"
        self._heat.visible, self._ranks.visible = sweep, not sweep
        if study is not None and sweep:
            fig = self._heat_fig
            fig.x_range.factors = [str(b) for b in study.batches]
            fig.y_range.factors = [self._delta_label(spec, d) for spec, d in study.deltas]
        for widget, ext in zip(self.downloads, ("csv", "json", "png"), strict=True):
            widget.filename = self.explorer.filename(ext)
        self._on_rows()

    @staticmethod
    def _delta_label(spec: str, delta: int | AdaptiveDelta) -> str:
        if isinstance(delta, AdaptiveDelta):
            return delta.describe()
        return f"{delta:,}" if spec.isdigit() else f"{spec} = {delta:,}"

    def _on_rows(self, *_events) -> None:
        e, study = self.explorer, self.explorer.study
        for widget in self.downloads:
            widget.disabled = not e.rows
        label, higher, fmt = METRICS[e.metric]
        cells = e.cells()
        if study is None:
            self._cells.data = dict(batch=[], delta=[], fill=[], text=[], ink=[])
            self._best.data = dict(batch=[], delta=[])
        elif study.kind == "sweep":
            self._draw_sweep(study, cells, higher, fmt)
        else:
            self._draw_ranks(study, cells, label)

    def _draw_sweep(self, study: Study, cells: dict, higher: bool, fmt: str) -> None:
        metric = self.explorer.metric
        grid = [(spec, d, b) for spec, d in study.deltas for b in study.batches]
        keys = [(spec, b) for spec, _, b in grid]
        done = _done(study, cells)
        shades, low, high = _colours([cells[k][metric] for k in done], higher)
        colours = dict(zip(done, shades, strict=True))
        fill = [colours.get(k, PENDING) for k in keys]
        self._cells.data = dict(
            batch=[str(b) for *_, b in grid],
            delta=[self._delta_label(spec, d) for spec, d, _ in grid],
            fill=fill,
            text=[plots.spread_text(cells[k], metric, fmt) if k in cells else "…" for k in keys],
            ink=[_ink(c) for c in fill],
        )
        self._scale.update(low=low, high=max(high, low * 1.001),
                           palette=Viridis256 if higher else Viridis256[::-1])  # fmt: skip
        self._bar.title = METRICS[metric][0]
        best = fastest_cell(study, cells)
        if best is not None and metric in SPEED_METRICS:
            spec, b = best
            delta = dict(study.deltas)[spec]
            self._best.data = dict(batch=[str(b)], delta=[self._delta_label(spec, delta)])
        else:
            self._best.data = dict(batch=[], delta=[])
        self.verdict.object = fastest_words(study, cells, self._delta_label)

    def _draw_ranks(self, study: Study, cells: dict, label: str) -> None:
        metric = self.explorer.metric
        lines = dict(xs=[], ys=[], colour=[], name=[])
        for k, (spec, delta) in enumerate(study.deltas):
            ranks = sorted(r for s, r in cells if s == spec)
            lines["xs"].append(ranks)
            lines["ys"].append([cells[(spec, r)][metric] for r in ranks])
            lines["colour"].append(Category10_10[k % 10])
            lines["name"].append(f"Δ {self._delta_label(spec, delta)}")
        self._lines.data = lines
        fig = self._ranks_fig
        fig.yaxis.axis_label = label
        fig.title.text = (
            f"{METHOD_LABELS[study.method]}, batch {study.batches[0]}: "
            f"{study.meta['source']} to each rank's target"
        )

    def _on_running(self, *_events) -> None:
        e = self.explorer
        running = e.running
        self.cancel.disabled = not running
        self.progress.visible = running
        if e.study is not None:
            self.progress.param.update(max=max(e.study.total, 1), value=len(e.rows))
        self.status.object = f'<span class="frontier-explore-status">{html.escape(e.status)}</span>'
        if running and self._clock is None:
            self._clock = every(200, e.poll)
        elif not running and self._clock is not None:
            self._clock()
            self._clock = None

    def _on_rank(self, *_events) -> None:
        e = self.explorer
        targets = e.rank_targets()
        options = {"none (choose one)": NO_RANK} | {f"2^{r} = {2**r:,}": r for r in targets}
        self.rank.param.update(options=options, value=NO_RANK if e.rank is None else e.rank)
        self._span.location = e.rank if e.rank is not None else 0
        self._span.visible = e.rank is not None

    def _chose_rank(self, event) -> None:
        if event.new != NO_RANK and event.new != self.explorer.rank:
            if not self.explorer.set_rank(event.new):
                self._on_rank()

    def _on_tap(self, event) -> None:
        study = self.explorer.study
        if study is None or study.kind != "sweep" or event.x is None or event.y is None:
            return
        j, i = int(event.x), int(event.y)
        if 0 <= i < len(study.deltas) and 0 <= j < len(study.batches):
            side = 1 if event.modifiers and event.modifiers.get("shift") else 0
            self.explorer.load_cell(study.deltas[i][0], study.batches[j], side=side)

    def __panel__(self):
        help_ = pn.pane.HTML(
            "<small>Every search is checked against SciPy's Dijkstra. Cells show the median "
            "of their searches and, under it, their range (least–most); the red outline marks "
            "the fastest median while they show speed. "
            "Click a cell to animate it as search A; shift-click to put it beside as search "
            "B.</small>"
        )
        return pn.FlexBox(  # the results wrap below the settings on a phone
            pn.Column(
                self.method, self.deltas, self.batches, self.repeat,
                pn.Row(self.sweep, self.ranks, self.cancel), self.rank, width=330,
                sizing_mode=None,
            ),
            pn.Column(
                self.metric, self.progress, self.status, self._heat, self.verdict, self._ranks,
                help_,
                pn.FlexBox(*self.downloads, flex_wrap="wrap"), sizing_mode="stretch_width",
                styles={"flex": "1 1 340px"},
            ),
            flex_wrap="wrap",
            sizing_mode="stretch_width",
        )  # fmt: skip
