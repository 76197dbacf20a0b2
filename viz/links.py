"""Shareable links: the dashboard's state in the page's query string.

`query_of` writes what is on show (graph and how it was loaded, source and target ids, both
searches' settings, the comparison, the frame) as text; `apply_query` reads it back. A link
with a bad or stale value (an unknown method, a node that is not in the graph, a file outside
the allowed folders) gets one notification and the defaults.
"""

from __future__ import annotations

import dataclasses
from functools import partial
from urllib.parse import parse_qsl, urlencode

import panel as pn
import panel.io.location

import engine
from engine._text import ascii_int

from ._page import soon
from .files import DashboardError, checked_path
from .loading import Loader
from .state import (
    DIMACS_WEIGHTS,
    METHOD_LABELS,
    NETWORKS,
    WEIGHTS,
    GraphChoice,
    RunConfig,
    Session,
)

#: The settings of search A under their own names and of search B with ``b_`` before them.
CONFIG_KEYS = ("method", "delta", "batch", "backend")


def tolerate_any_query() -> None:
    """Let Panel read every query string, whatever its values.

    Panel's ``parse_query`` turns each value that ``str.isdigit`` accepts into an ``int``,
    and ``int`` refuses ``²``: any link with such a value (even ``?foo=²``) failed in
    Panel's own code as the page was made, dropping the whole link with a traceback in the
    log. The values this app reads come from ``pn.state.session_args`` and are checked
    here (`_number`); Panel's parsed copy is kept as text where it cannot parse it.
    """
    parse = panel.io.location.parse_query
    if getattr(parse, "tolerant", False):
        return

    def parse_query(query: str) -> dict:
        try:
            return parse(query)
        except ValueError:
            return dict(parse_qsl(query[1:]))

    parse_query.tolerant = True
    panel.io.location.parse_query = parse_query


def query_of(session: Session) -> dict[str, str]:
    """The session's state as query-string values."""
    choice, graph = session.loaded.choice, session.loaded.graph
    options = {k: v for k, v in dataclasses.asdict(choice).items() if v != ""}  # no coords
    q = {"graph": options.pop("spec")} | options
    q["source"] = str(graph.node_ids[session.source])
    if session.target is not None:
        q["target"] = str(graph.node_ids[session.target])
    configs = session.configs if session.compare else session.configs[:1]
    for prefix, c in zip(("", "b_"), configs, strict=False):
        q |= {
            f"{prefix}method": c.method,
            f"{prefix}delta": str(c.settings().delta),
            f"{prefix}batch": str(c.batch_size),
            f"{prefix}backend": c.backend,
        }
    if session.compare:
        q["compare"] = "1"
    if session.present:
        q["present"] = "1"
    if session.layer != "states":
        q["layer"] = session.layer
    q["frame"] = str(session.frame)
    return q


def _one(args: dict, key: str, default: str | None = None) -> str | None:
    value = args.get(key, default)
    if isinstance(value, list):  # Panel's session_args: a list of bytes per key
        value = value[-1]
    return value.decode() if isinstance(value, bytes) else value


def _pick(args: dict, key: str, choices, default: str) -> str:
    value = _one(args, key, default)
    if value not in choices:
        msg = f"link: {key}={value!r} is not one of {', '.join(map(str, choices))}"
        raise DashboardError(msg)
    return value


def _number(args: dict, key: str, default: int, least: int = 1) -> int:
    value = _one(args, key)
    if value is None:
        return default
    number = ascii_int(value)
    if number is None or number < least:
        msg = f"link: {key}={value!r} must be an integer ≥ {least}"
        raise DashboardError(msg)
    return number


def _config(args: dict, prefix: str, config) -> dict:
    delta = _one(args, f"{prefix}delta", "auto")
    if delta not in ("auto", "adaptive"):
        if ascii_int(delta) is None:
            msg = f"link: {prefix}delta={delta!r} must be an integer ≥ 1, 'auto' or 'adaptive'"
            raise DashboardError(msg)
        delta = _number(args, f"{prefix}delta", config.delta)
    return dict(
        method=_pick(args, f"{prefix}method", list(METHOD_LABELS), config.method),
        batch_size=_number(args, f"{prefix}batch", config.batch_size),
        backend=_pick(args, f"{prefix}backend", list(engine.methods.BACKENDS), config.backend),
        **RunConfig.delta_values(delta),
    )


def _node(graph: engine.CSRGraph, args: dict, key: str) -> int | None:
    value = _one(args, key)
    if value is None:
        return None
    try:
        return graph.index_of(value)
    except engine.FrontierError:
        msg = f"link: {key}={value!r} is not a node of {graph.name}"
        raise DashboardError(msg) from None


def lesson_of(args: dict) -> str | None:
    """The lesson a link opens (``lesson=NAME``, `viz.lessons`), if it names one."""
    return _one(args, "lesson")


def choice_of(args: dict) -> GraphChoice:
    """The graph a link names (its file, and a coordinates file, must lie under the allowed
    folders; ``helsinki``, ``place:NAME`` and ``city:NODES[:SEED]``, a synthetic city, are no
    files)."""
    spec = _one(args, "graph", "helsinki")
    if spec != "helsinki" and not spec.startswith(("place:", "city:")):
        spec = checked_path(spec)
    coords = _one(args, "coords", "")
    return GraphChoice(
        spec,
        network=_pick(args, "network", NETWORKS, "all"),
        weight=_pick(args, "weight", WEIGHTS, "length"),
        weights=_pick(args, "weights", DIMACS_WEIGHTS, "file"),
        coords=checked_path(coords) if coords else "",
    )


def linked_graph(args: dict) -> GraphChoice | None:
    """The graph a page's link names, or None (no link, or one whose graph is bad: the page's
    own load of it says what is wrong)."""
    if not args:
        return None
    try:
        return choice_of(args)
    except DashboardError:
        return None


async def open_link(session: Session, loader: Loader, args: dict) -> None:
    """`apply_query` for a page opened by a link: a graph not loaded yet is loaded first on
    ``loader``'s worker thread (its progress shown, and cancellable). Every change is made on
    the page's next tick: a page's onload coroutine holds no lock on its document."""
    try:
        choice = choice_of(args) if args else session.loaded.choice
    except DashboardError as exc:
        soon(partial(session.fail, exc))
        return
    if choice == session.loaded.choice:
        soon(partial(apply_query, session, args))
    else:
        await loader.load(choice, partial(apply_query, session, args))


def searched_early(args: dict) -> Session | None:
    """The link ``args`` opened on a new session of its own (None if it fails): run on the
    link's prefetch thread (`viz.loading.prefetch`) while the page is made, it makes the
    searches the page's `apply_query` then finds made (`Session.adopt`). Nothing is drawn
    and no page is touched. On a 2-core server these were 0.65 s of a 1M-node city's first
    picture, after the page was up (decision 0099)."""
    session = Session()
    if session.load_graph(choice_of(args)) and apply_query(session, args):
        return session
    return None


def apply_query(session: Session, args: dict) -> bool:
    """Show what the query-string values ``args`` say; False (with the session's error set
    and its state kept) when one of them is bad or stale."""
    if not args:
        return True
    try:
        choice = choice_of(args)
        configs = [_config(args, "", session.configs[0]), _config(args, "b_", session.configs[1])]
        compare = _pick(args, "compare", ("0", "1"), "0") == "1"
        layer = _pick(args, "layer", ("states", "work"), "states")
        frame = _number(args, "frame", 0, least=0)
        present = _pick(args, "present", ("0", "1"), "0") == "1"
    except DashboardError as exc:
        return session.fail(exc)
    if choice != session.loaded.choice and not session.load_graph(choice):
        return False
    session.layer = layer
    graph = session.loaded.graph
    try:
        source = _node(graph, args, "source")
        target = _node(graph, args, "target")
    except DashboardError as exc:
        return session.fail(exc)
    if source is None and "target" not in args:  # a link naming no node keeps the query
        target = session.target
    done = session.configure(
        configs=configs,
        compare=compare,
        source=session.source if source is None else source,
        target=target,
        frame=frame,
    )
    if done and present != session.present:
        session.presenting(present)
    return done


class LinkKeeper:
    """Keeps the page's URL equal to `query_of` the session: after each new run, and at
    every frame while paused (not during playback: one URL change per frame would cost)."""

    def __init__(self, session: Session, location=None):
        self.session = session
        self.location = location if location is not None else pn.state.location
        session.param.watch(self.update, ["runs", "compare", "playing"])
        session.param.watch(self._on_frame, "frame")

    def _on_frame(self, *_events) -> None:
        if not self.session.playing:
            self.update()

    def update(self, *_events) -> None:
        if self.location is None:
            return
        search = "?" + urlencode(query_of(self.session))
        if self.location.search != search:
            self.location.search = search
