"""The dashboard's state: which graph, which searches, which frame. Nothing is drawn here
(the map's geometry is `viz.geometry`'s; which files may be opened, `viz.files`'; what one
finished search shows, `viz.runs`').

A `Session` is made per browser session. It holds the loaded graph, the source and target,
one or two `RunConfig` (the second for the side-by-side comparison), the finished `Run` of
each, and the current frame of the player. Every change is computed first and committed only
when it succeeded; a failure leaves the previous graph and runs in place and sets ``error``
(the views turn it into a notification).
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import itertools
import logging
import threading
import time

import numpy as np
import panel as pn
import param

import engine
from engine import UNREACHABLE, FrontierError, ParameterError
from engine.media import replay

from .files import MAX_TEXT_MB, DashboardError, checked_path, save_upload
from .geometry import Geometry
from .runs import Reference, Run, Settings

log = logging.getLogger(__name__)

#: The default search of the embedded city: across central Helsinki.
HELSINKI_SOURCE, HELSINKI_TARGET = 25291537, 6388100055
#: Graphs with more nodes are refused by the dashboard (the CLI takes them). Maps above
#: `viz.raster.RASTER_ABOVE` nodes are drawn as server-side images, a frame's nodes by NumPy
#: (`MAX_NODES`) or, where a GPU is, by a CUDA kernel (`MAX_NODES_GPU`: the USA's road graph
#: has 24M nodes; decisions/0088). See `max_nodes`.
MAX_NODES, MAX_NODES_GPU = 4_000_000, 24_000_000
#: Finished runs kept per session, keyed by their parameters, and the most nodes their
#: recordings may cover together (the two on show are always kept).
RUN_CACHE_SIZE, RUN_CACHE_NODES = 16, 8_000_000
#: SciPy's Dijkstra is timed up to three times (its median shown) until the runs add up to
#: this long: a run of a big graph's is long enough to time once, and its two more runs cost
#: a 1M-node city's first picture 0.48 s (decisions/0087).
REFERENCE_RUNS, REFERENCE_ENOUGH_S = 3, 0.2
#: SciPy's Dijkstra is timed beside the searches of graphs of at most this many nodes. It
#: holds Python's lock while it runs, 5 s on a 16M-node city (CPU here), which stopped the
#: server and held back the first picture; on a larger graph its counts come from the
#: search's own exact distances (`engine.search.dijkstra_counters`), and `frontier bench`
#: times it.
REFERENCE_MAX_NODES = 2_000_000
NETWORKS = tuple(engine.graphs.osm.NETWORKS)
WEIGHTS = engine.graphs.osm.WEIGHTS
DIMACS_WEIGHTS = ("file", "unit", "random:1")
#: The methods the dashboard shows: those it can record, and SciPy's Dijkstra to compare.
METHOD_LABELS = {
    m: engine.METHODS[m].title
    for m in engine.methods.names(recordable=True) + engine.methods.names(iterative=False)
}
FPS_CHOICES = (5, 8, 10, 20, 30, 60)
#: Presentation mode's speed: a class can follow each iteration (the player can change it).
PRESENT_FPS = 8
#: A loop holds its last frame (the route drawn) this long before it starts again.
LOOP_HOLD_S = 2.0


@dataclasses.dataclass(frozen=True)
class GraphChoice:
    """What to load: `engine.load_graph`'s spec and options."""

    spec: str = "helsinki"
    network: str = "all"
    weight: str = "length"
    weights: str = "file"  # DIMACS/PACE only
    coords: str = ""  # DIMACS/PACE only: a .co file's path; "": the one beside the graph, if any

    @property
    def is_replay(self) -> bool:
        """Whether the spec is a replay file (its graph and its recorded search)."""
        return self.spec.lower().endswith(replay.SUFFIX)

    def load(self) -> engine.CSRGraph:
        """Load the graph; DIMACS/PACE files over `max_nodes` (by their declared size) or
        over `max_text_bytes` of text are refused before anything is allocated."""
        weights = None if self.weights == "file" else self.weights
        return engine.load_graph(
            self.spec,
            network=self.network,
            weight=self.weight,
            weights=weights,
            coordinates=self.coords or "auto",
            max_nodes=max_nodes(),
            max_bytes=max_text_bytes(),
            progress=_say,
        )


def max_nodes() -> int:
    """The most nodes a graph the dashboard opens here may have: `MAX_NODES_GPU` where a GPU
    draws the map's nodes, else `MAX_NODES`."""
    return MAX_NODES_GPU if engine.gpu_available() else MAX_NODES


def max_text_bytes() -> int:
    """The most text a graph file may hold once decompressed: `MAX_TEXT_MB` for
    `MAX_NODES` nodes, in proportion for `max_nodes` (a 16M-node city's ``.gr`` is 1.24 GB)."""
    return MAX_TEXT_MB * 2**20 * max_nodes() // MAX_NODES


_reporter = threading.local()


@contextlib.contextmanager
def reporting(progress):
    """While in this block, this thread's `load` calls ``progress(stage)`` as each stage of a
    load begins (an exception it raises stops the load; nothing is cached)."""
    _reporter.say = progress
    try:
        yield
    finally:
        _reporter.say = None


def _say(stage: str) -> None:
    say = getattr(_reporter, "say", None)
    if say is not None:
        say(stage)


@dataclasses.dataclass(frozen=True, eq=False)
class LoadedGraph:
    choice: GraphChoice
    graph: engine.CSRGraph
    geometry: Geometry | None  # None without coordinates
    recorded: engine.SSSPResult | None = None  # a replay's search, on this graph


@pn.cache(max_items=8, hash_funcs={GraphChoice: lambda c: repr(c).encode()})
def load(choice: GraphChoice) -> LoadedGraph:
    """Load a graph (a replay: its graph and its search) once per server; sessions share
    it read-only."""
    recorded = None
    if choice.is_replay:
        recorded = replay.load(choice.spec)[0]
        graph = recorded.graph
        if graph.n_nodes > max_nodes():
            msg = (
                f"{graph.name} has {graph.n_nodes:,} nodes; the dashboard takes at most "
                f"{max_nodes():,} here: use frontier animate for this replay"
            )
            raise DashboardError(msg)
    else:
        graph = choice.load()
    if graph.n_nodes == 0:
        msg = f"{graph.name} has no nodes; pick another graph"
        raise DashboardError(msg)
    geometry = None
    if graph.lon is not None:
        _say("preparing the map")
        geometry = Geometry(graph)
    return LoadedGraph(choice, graph, geometry, recorded)


def path_weight(graph: engine.CSRGraph, path: np.ndarray) -> int:
    """Total weight of a node path (the lightest arc between each consecutive pair)."""
    total = 0
    for u, v in itertools.pairwise(path):
        lo, hi = graph.indptr[u], graph.indptr[u + 1]
        at = np.flatnonzero(graph.indices[lo:hi] == v)
        if not at.size:
            msg = f"no arc {graph.node_ids[u]} → {graph.node_ids[v]} in {graph.name}"
            raise DashboardError(msg)
        total += int(graph.weights[lo + at[0]])  # rows are sorted by weight
    return total


def route_cost(loaded: LoadedGraph, route: np.ndarray) -> dict[str, int]:
    """A route's weight, and for OSM graphs also its weight in the other OSM unit (its length
    on a travel-time graph and the other way round), keyed by weight kind."""
    graph = loaded.graph
    if route.size < 2:
        return {}
    out = {graph.weight_kind: path_weight(graph, route)}
    if graph.weight_kind in WEIGHTS and not loaded.choice.is_replay:
        other = next(w for w in WEIGHTS if w != graph.weight_kind)
        twin = load(dataclasses.replace(loaded.choice, weight=other)).graph
        ids = graph.node_ids[route]
        out[other] = path_weight(twin, np.array([twin.index_of(i) for i in ids]))
    return out


class RunConfig(param.Parameterized):
    """The controls of one search; the `Session` re-runs when they change."""

    method = param.Selector(default="near_far", objects=list(METHOD_LABELS))
    auto_delta = param.Boolean(default=True, doc="Use Davidson's heuristic Δ = c·w̄/d̄")
    delta = param.Integer(default=4096, doc="Δ when auto_delta is off")
    adaptive_delta = param.Boolean(
        default=False, doc="Δ chosen anew at each phase end (engine.adaptive); wins over the rest"
    )
    batch_size = param.Integer(default=engine.search.DEFAULT_BATCH)
    backend = param.Selector(default="auto", objects=list(engine.methods.BACKENDS))

    def __init__(self, **params):
        super().__init__(**params)
        self._good = self.param.values()

    @staticmethod
    def delta_values(delta: int | str) -> dict:
        """The values that make `settings` say Δ ``delta``: an integer, ``"auto"`` or
        ``"adaptive"`` (which keeps auto on beneath it)."""
        if delta in ("auto", "adaptive"):
            return {"auto_delta": True, "adaptive_delta": delta == "adaptive"}
        return {"auto_delta": False, "adaptive_delta": False, "delta": delta}

    def settings(self) -> Settings:
        delta = "auto" if self.auto_delta else self.delta
        if self.adaptive_delta and engine.METHODS[self.method].uses_delta:
            delta = "adaptive"
        return Settings(self.method, delta, self.batch_size, self.backend)

    def remember(self) -> None:
        """Mark the current values as good (they ran)."""
        self._good = self.param.values()

    def revert(self) -> None:
        """Go back to the values of the last good run."""
        self.param.update(**{k: v for k, v in self._good.items() if k != "name"})


class Session(param.Parameterized):
    """One browser session's graph, query, runs and player position."""

    loaded = param.ClassSelector(class_=LoadedGraph, doc="The graph on show")
    source = param.Integer(default=0)
    target = param.Integer(default=None, allow_None=True)
    click_sets = param.Selector(
        default="source", objects=["source", "target"], doc="What a plain click on the map sets"
    )
    compare = param.Boolean(default=False, doc="Run a second configuration side by side")
    layer = param.Selector(
        default="states",
        objects=["states", "work"],
        doc="What the map colours: node states, or how often each node's arcs were relaxed",
    )
    runs = param.List(default=[], item_type=Run, doc="Finished runs: one, or two to compare")
    frame = param.Integer(default=0, doc="Player position; one frame = one iteration")
    playing = param.Boolean(default=False)
    fps = param.Selector(default=20, objects=list(FPS_CHOICES))
    loop = param.Boolean(default=True)
    present = param.Boolean(
        default=False, doc="Presentation mode: the map, the player and the caption, large"
    )
    error = param.String(default="", doc="The last refused request, in one line")
    marked = param.List(default=[], doc="Nodes a question marks on the map: A, B, C")
    notice = param.String(default="", doc="The last thing to tell the user, not an error")

    def __init__(self, *, a: RunConfig | None = None, b: RunConfig | None = None, **params):
        super().__init__(**params)
        #: The two configurations; the second runs only while ``compare`` is on. Its default
        #: contrasts the first: a wide fixed Δ with long batches.
        self.configs = (
            a or RunConfig(name="A"),
            b or RunConfig(name="B", auto_delta=False, delta=2**17, batch_size=512),
        )
        self._runs: collections.OrderedDict = collections.OrderedDict()
        self._refs: dict = {}
        self._clock: tuple[float, int] | None = None
        self._fps_before = self.fps  # the speed presentation mode took over, given back after
        self.param.watch(self._restart_clock, "fps")
        self._applying = False
        for config in self.configs:
            config.param.watch(self._config_changed, list(RunConfig.param)[1:])
        self.param.watch(self._compare_changed, "compare")

    # ----------------------------------------------------------------- graph and query
    def load_graph(self, choice: GraphChoice) -> bool:
        """Load ``choice`` and run the current configurations on it; False if refused."""
        try:
            loaded = load(choice)
            if choice.is_replay:
                return self._open_replay(loaded)
            graph = loaded.graph
            source = target = None
            if choice.spec == "helsinki":
                try:
                    source = graph.index_of(HELSINKI_SOURCE)
                    target = graph.index_of(HELSINKI_TARGET)
                except engine.NodeNotFoundError:  # a network without the default's streets
                    source = target = None
            if source is None:
                geo = loaded.geometry
                source, target = (geo.centre_node() if geo else 0), None
            runs = self._compute(loaded, source, target)
        except Exception as exc:  # every failure becomes a notification
            return self.fail(exc)
        self._commit(loaded=loaded, source=source, target=target, runs=runs)
        return True

    def _open_replay(self, loaded: LoadedGraph) -> bool:
        """Show a replay's recorded search as search A, without searching again."""
        result = loaded.recorded
        if result.method not in METHOD_LABELS:
            msg = f"this replay is of {result.method}, which the dashboard does not animate"
            raise DashboardError(msg)
        config = self.configs[0]
        delta = result.delta if result.delta is not None else config.delta
        adaptive = result.adaptive is not None
        values = dict(method=result.method, auto_delta=adaptive, delta=delta,
                      adaptive_delta=adaptive, batch_size=result.batch_size,
                      backend="auto")  # fmt: skip
        source, target = result.source, result.target
        route = np.zeros(0, dtype=np.int64)
        if target is not None:
            route = np.asarray(result.path_to(target), dtype=np.int64)
        settings = Settings(
            result.method, "adaptive" if adaptive else delta, result.batch_size, "auto"
        )
        reference = self._reference(loaded, source, target, result)
        run = Run(settings, result, reference, route, route_cost(loaded, route))
        self._runs[(loaded.choice, source, target, settings)] = run
        self._applying = True  # the controls follow the replay; nothing runs yet
        try:
            config.param.update(**values)
        finally:
            self._applying = False
        try:
            runs = self._compute(loaded, source, target)
        except Exception:
            config.revert()
            raise
        self._commit(loaded=loaded, source=source, target=target, runs=runs)
        return True

    def load_path(self, text: str, **options) -> bool:
        """Load a typed file path (checked against `allowed_roots`)."""
        try:
            spec = checked_path(text)
        except DashboardError as exc:
            return self.fail(exc)
        return self.load_graph(GraphChoice(spec, **options))

    def load_upload(self, filename: str, data: bytes, **options) -> bool:
        try:
            spec = save_upload(filename, data)
        except (DashboardError, OSError) as exc:
            return self.fail(exc)
        return self.load_graph(GraphChoice(spec, **options))

    def set_query(self, source: int | None = None, target: int | str | None = "keep") -> bool:
        """Change the source and/or the target (``None`` clears it) and re-run."""
        source = self.source if source is None else source
        target = self.target if target == "keep" else target
        try:
            runs = self._compute(self.loaded, source, target)
        except Exception as exc:
            return self.fail(exc)
        self._commit(source=source, target=target, runs=runs)
        return True

    def pick(self, x: float, y: float, *, role: str = "source") -> bool:
        """Set the node nearest to map point (x, y) as the source or the target."""
        geo = self.loaded.geometry
        if geo is None:
            return self.fail(DashboardError("this graph has no coordinates to click on"))
        node = geo.nearest(x, y)
        if role == "target":
            return self.set_query(target=node)
        return self.set_query(source=node)

    # ---------------------------------------------------------------------- searches
    def adopt(self, other: Session) -> None:
        """Take ``other``'s finished searches and SciPy references as this session's own:
        showing them searches nothing. ``other`` opened this page's link on the prefetch
        thread while the page was made (`viz.links.searched_early`), and is dropped after:
        no two sessions share a run."""
        for key, run in other._runs.items():
            self._runs.setdefault(key, run)
        for key, ref in other._refs.items():
            self._refs.setdefault(key, ref)

    def _config_changed(self, *events) -> None:
        config = events[0].obj
        index = self.configs.index(config)
        if self._applying or index >= len(self.runs):
            return
        if config.settings() == self.runs[index].settings:
            return
        try:
            runs = self._compute(self.loaded, self.source, self.target)
        except Exception as exc:
            config.revert()
            self.fail(exc)
            return
        self._commit(runs=runs)

    def configure(
        self, *, configs: list[dict], compare: bool, source: int, target: int | None, frame: int
    ) -> bool:
        """Set both configurations, the comparison, the query and the frame at once (one
        round of searches); on failure everything stays as it was."""
        before = self.compare
        self._applying = True
        try:
            for config, values in zip(self.configs, configs, strict=False):
                config.param.update(**values)
            self.compare = compare
        finally:
            self._applying = False
        try:
            runs = self._compute(self.loaded, source, target)
        except Exception as exc:
            self._applying = True
            try:
                for config in self.configs:
                    config.revert()
                self.compare = before
            finally:
                self._applying = False
            return self.fail(exc)
        self._commit(source=source, target=target, runs=runs, frame=frame)
        return True

    def _compare_changed(self, _event) -> None:
        if self._applying:
            return
        try:
            runs = self._compute(self.loaded, self.source, self.target)
        except Exception as exc:
            self.param.update(compare=not self.compare)
            self.fail(exc)
            return
        self._commit(runs=runs, frame=self.frame)

    def _compute(self, loaded: LoadedGraph, source: int, target: int | None) -> list[Run]:
        configs = self.configs if self.compare else self.configs[:1]
        return [self._run(loaded, source, target, c.settings()) for c in configs]

    def _run(self, loaded: LoadedGraph, source: int, target: int | None, s: Settings) -> Run:
        key = (loaded.choice, source, target, s)
        if key in self._runs:
            self._runs.move_to_end(key)
            return self._runs[key]
        graph = loaded.graph
        result = engine.sssp(
            graph,
            source,
            method=s.method,
            backend=s.backend,
            delta=s.delta,
            batch_size=s.batch_size,
            target=target,
            record=True,
        )
        ref = self._reference(loaded, source, target, result)
        route = np.zeros(0, dtype=np.int64)
        if target is not None:
            route = np.asarray(result.path_to(target), dtype=np.int64)
        run = Run(s, result, ref, route, route_cost(loaded, route))
        self._runs[key] = run
        while len(self._runs) > 2 and (
            len(self._runs) > RUN_CACHE_SIZE
            or sum(r.result.graph.n_nodes for r in self._runs.values()) > RUN_CACHE_NODES
        ):
            self._runs.popitem(last=False)
        return run

    def _reference(
        self, loaded: LoadedGraph, source: int, target: int | None, result: engine.SSSPResult
    ) -> Reference:
        """SciPy's Dijkstra on the query of ``result`` (an exact search of it): timed where
        the graph has at most `REFERENCE_MAX_NODES` nodes, else counted from ``result``
        (where it is final: a search stopped at its target leaves the nodes beyond as upper
        bounds). An unreachable target is refused."""
        key = (loaded.choice, source, target)
        if key in self._refs:
            return self._refs[key]
        graph, dist = loaded.graph, result.distances
        if target is not None and dist[target] == UNREACHABLE:
            node_id = graph.node_ids[target]
            msg = f"node {node_id} cannot be reached from the source; pick another target"
            raise ParameterError(msg)
        to_target = None if target is None else int(dist[target])
        if graph.n_nodes > REFERENCE_MAX_NODES:
            relaxed = None
            if target is None or to_target < result.settled_below:  # the counts are final
                relaxed = engine.search.dijkstra_counters(graph, dist, target).edges_relaxed
            self._refs[key] = Reference(None, relaxed, to_target)
            return self._refs[key]
        runs = [engine.sssp(graph, source, method="dijkstra", target=target)]
        while len(runs) < REFERENCE_RUNS and sum(r.elapsed_s for r in runs) < REFERENCE_ENOUGH_S:
            runs.append(engine.sssp(graph, source, method="dijkstra", target=target))
        r = sorted(runs, key=lambda run: run.elapsed_s)[len(runs) // 2]  # the median time
        self._refs[key] = Reference(r.elapsed_s, r.counters.edges_relaxed, to_target)
        return self._refs[key]

    # ------------------------------------------------------------------------- player
    @property
    def n_frames(self) -> int:
        return max((r.n_frames for r in self.runs), default=1)

    def play(self, now: float | None = None) -> None:
        if self.frame >= self.n_frames - 1:
            self.frame = 0
        self._clock = (time.monotonic() if now is None else now, self.frame)
        self.playing = True

    def pause(self) -> None:
        self.playing = False
        self._clock = None

    def presenting(self, on: bool) -> None:
        """Enter presentation mode (it plays, in a loop) or leave it (playback goes on)."""
        if on and not self.present:
            self._fps_before = self.fps
            self.fps = PRESENT_FPS
        elif not on and self.present:
            self.fps = self._fps_before
        self.present = on
        if on:
            self.loop = True
            if not self.playing:
                self.play()

    def _restart_clock(self, _event=None) -> None:
        """A new speed counts from the frame on show (else the clock would jump)."""
        if self.playing:
            self._clock = (time.monotonic(), self.frame)

    def seek(self, frame: int) -> None:
        """Jump to ``frame`` (clamped); playback goes on from there."""
        self.frame = min(max(int(frame), 0), self.n_frames - 1)
        if self.playing:
            self._clock = (time.monotonic(), self.frame)

    def step(self, by: int) -> None:
        self.pause()
        self.seek(self.frame + by)

    def tick(self, now: float | None = None) -> None:
        """Advance to the frame the wall clock says. A late tick skips frames rather than
        queueing them, so playback never falls behind; but it never skips the last frame: a
        loop shows it, held `LOOP_HOLD_S`, before it starts again (a route drawn from the
        last frame only showed for one frame, or for none after a late tick)."""
        if not self.playing or self._clock is None:
            return
        now = time.monotonic() if now is None else now
        start, first = self._clock
        frame = first + int((now - start) * self.fps)
        last = self.n_frames - 1
        if frame > last:
            if not self.loop or last == 0:
                frame = last
                self.pause()
            elif first != last:  # the end, however late this tick: its hold starts now
                self._clock = (now, last)
                frame = last
            elif now - start >= LOOP_HOLD_S:
                self._clock = (now, 0)
                frame = 0
            else:
                frame = last
        if frame != self.frame:
            self.frame = frame

    # ---------------------------------------------------------------------- plumbing
    def _commit(self, **values) -> None:
        values.setdefault("frame", 0)
        values["frame"] = min(values["frame"], max(r.n_frames for r in values["runs"]) - 1)
        self.param.update(**values)
        for config in self.configs[: len(self.runs)]:
            config.remember()
        if self.playing:
            self._clock = (time.monotonic(), self.frame)

    def tell(self, msg: str) -> None:
        """Say ``msg`` to the user (the views show it as a notification, not an error)."""
        if self.notice == msg:
            self.param.trigger("notice")
        else:
            self.notice = msg

    def fail(self, exc: BaseException) -> bool:
        """Report a refused request (the views show it); the state is left as it was."""
        if isinstance(exc, FrontierError):
            msg = str(exc)
        else:
            log.exception("unexpected error in the dashboard")
            msg = f"unexpected error ({type(exc).__name__}: {exc}); the previous state is kept"
        if self.error == msg:  # the same refusal again: watchers hear of it once more
            self.param.trigger("error")
        else:
            self.error = msg
        return False
