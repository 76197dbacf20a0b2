"""Page plumbing shared by the views: a clock, and running a change where it may touch the
page's models."""

from __future__ import annotations

import asyncio
import functools
import gc
import logging
from collections.abc import Callable
from pathlib import Path

import panel as pn
from bokeh.models import CustomJS
from tornado.iostream import StreamClosedError
from tornado.websocket import WebSocketClosedError


def served():
    """The session's document when served by a Bokeh server, else None."""
    doc = pn.state.curdoc
    return doc if doc is not None and doc.session_context is not None else None


def no_delay() -> None:
    """Send this page's messages as soon as they are written: Nagle's algorithm off on the
    session's websockets.

    Tornado leaves it on, and neither Bokeh nor Panel turns it off, so a frame's small
    messages waited for the browser to acknowledge the last ones (a delayed ACK: up to
    40 ms on Linux) and reached the page in pairs, painted as one (decisions/0038, issue
    19). The connections are Bokeh's private attributes, as Panel reads them too.
    """
    doc = served()
    session = getattr(doc and doc.session_context, "_session", None)
    for conn in getattr(session, "_subscribed_connections", ()):
        socket = getattr(conn, "_socket", None)
        if hasattr(socket, "set_nodelay"):
            socket.set_nodelay(True)


def quiet_closed_pages() -> None:
    """Leave out of the server's log the writes to pages that have just closed, and the
    last messages of a page whose session Bokeh had already let go (`_LostSession`).

    A page closed while it played left a message half sent: Tornado's write to the closed
    socket ends in `WebSocketClosedError`, in a task nobody awaits any more, and asyncio
    logged it as "Task exception was never retrieved" with two tracebacks. Nothing is lost
    (the page is gone) and nothing is to be done, so this event loop's exception handler
    drops those; every other exception goes to the handler before it. Once per loop.
    """
    for name in _LostSession.LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, _LostSession) for f in logger.filters):
            logger.addFilter(_LostSession())
    loop = asyncio.get_event_loop()
    if getattr(loop, "_frontier_quiet", False):
        return
    previous = loop.get_exception_handler()

    def handle(loop, context) -> None:
        if isinstance(context.get("exception"), (WebSocketClosedError, StreamClosedError)):
            return
        if previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handle)
    loop._frontier_quiet = True


class _LostSession(logging.Filter):
    """Drops the log records of one race in Bokeh's server: its keep-alive ping finds a
    page's socket closed and lets the session go (``BokehTornado.client_lost``) before the
    socket's handler has run its last message and its close; both then find no session
    (an ``AssertionError`` in ``ServerConnection.session``), and were logged with their
    tracebacks ("error handling message", "Uncaught exception GET /app/ws"). Seen once, in
    a hostile link's page that closed as its notification showed. The page is gone and
    nothing is lost; every other record passes."""

    LOGGERS = ("bokeh.server.protocol_handler", "tornado.application")

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if not isinstance(exc, AssertionError) or exc.__traceback__ is None:
            return True
        tb = exc.__traceback__
        while tb.tb_next is not None:
            tb = tb.tb_next
        code = tb.tb_frame.f_code
        where = Path(code.co_filename)
        return not (code.co_name == "session" and where.parts[-3:] == _SESSION_FILE)


_SESSION_FILE = ("bokeh", "server", "connection.py")


#: Page scripts for the 1M-node city's frame rate (decisions/0040, issue 19): map frames
#: decoded on a worker, painting with fewer reads of the computed style (both spare the
#: renderer's main thread), and at most one played frame applied per rendering, so that none
#: goes unpainted. Each adjusts BokehJS's code where it finds it, else does nothing.
PAGE_SCRIPTS = ("bitmaps.js", "visuals.js", "pacing.js")


def page_scripts() -> None:
    """Install `PAGE_SCRIPTS` in this page, each when its document is ready."""
    doc = served()
    if doc is not None:
        for code in _script_sources():
            doc.js_on_event("document_ready", CustomJS(code=code))


@functools.cache
def _script_sources() -> tuple[str, ...]:
    """`PAGE_SCRIPTS`' sources, read once per server rather than at every page's start."""
    return tuple(Path(__file__).with_name(n).read_text(encoding="utf-8") for n in PAGE_SCRIPTS)


def freeze_while_open() -> None:
    """Leave the objects alive now out of the garbage collector's full collections, until
    this page closes (a served page; elsewhere nothing is done).

    With a page of the 1M-node city open the server holds ≈ 440,000 Python objects
    (modules', and the page's Panel and Bokeh models, parameters, watchers), and Python's
    full collection, which each frame's short-lived cycles start every one to three seconds
    while a search plays, walked them all: 150–340 ms with the server's loop stopped, up to
    eight frames skipped at once (decisions/0053, issue 19). They live as long as their page,
    so a page that has opened freezes them (after one full collection, before it plays), and
    a page that closes thaws everything, collects what it left and freezes the rest again.
    """
    if served() is not None:
        _freeze()
        pn.state.on_session_destroyed(_refreeze)


def _freeze() -> None:
    gc.collect()
    gc.freeze()


def _refreeze(_context) -> None:
    gc.unfreeze()
    _freeze()


def every(period_ms: int, callback) -> Callable[[], None]:
    """Call ``callback`` every ``period_ms``; return the function that stops it.

    In a served session the clock is Bokeh's own periodic callback on the session's
    document: Panel's wrapper counted every call in its busy indicator, which cost more
    server time than the frame itself (decisions/0013, load). Outside a server (tests, the
    notebook) Panel's wrapper is the clock.
    """
    doc = served()
    if doc is not None:
        handle = doc.add_periodic_callback(callback, period_ms)

        def stop() -> None:
            if doc.session_context is not None:  # a closed page's document dropped it
                doc.remove_periodic_callback(handle)

        return stop
    clock = pn.state.add_periodic_callback(callback, period=period_ms)
    return clock.stop


def soon(action: Callable[[], object]) -> None:
    """Run ``action`` where it may change the page's models: on the document's next tick
    (which holds its lock) in a served page, at once elsewhere."""
    doc = served()
    if doc is not None:
        doc.add_next_tick_callback(action)
    else:
        action()


def from_page(watcher: Callable[..., object]):
    """A watcher of a widget the browser changes, run with the document held.

    Panel applies a change that comes from the browser outside Bokeh's document lock; a view
    that then changed one of the page's own Bokeh models (the player's frame slider, a
    chart's source) raised "_pending_writes should be non-None" in the server, and the views
    after it kept showing the old run (a key pressed on the Δ slider's handle). Panel's hold
    sends those changes itself, as `held` does for clicks.
    """

    @functools.wraps(watcher)
    def run(*args, **kwargs):
        with pn.io.hold():
            return watcher(*args, **kwargs)

    return run


def held(action: Callable[[], object]):
    """An ``on_click`` handler running ``action`` with the document held.

    The changes every view makes reach the browser together (the counters never show a
    frame the chart's cursor has not reached). It also makes a click safe right after a
    typed value: Panel then runs the click outside Bokeh's document lock, where a change to
    a Bokeh model of the page's own (a figure's range, a source) raised in the server and
    the click was lost; Panel's hold sends those changes itself (`from_page`).
    """
    return from_page(lambda *_event: action())


def fill_later(box, make: Callable[[], object]) -> Callable[[], None]:
    """A function that puts ``make()`` in ``box`` at its first call, called at once where the
    page is not served. A served page calls it once its link is open (`viz.app`): a part
    below the first picture (the charts) is then made, sent and drawn after that picture,
    and for the graph the link names, not first for the embedded city."""

    def fill() -> None:
        if not box.objects:
            box.objects = [make()]

    if served() is None:
        fill()
    return fill


def fill_when(box, make: Callable[[], object], owner, name: str, value: object = True):
    """Put ``make()`` in ``box`` (a Panel layout) the first time ``owner.<name>`` is
    ``value``, built then and kept; return ``box``. The parts of the page that are hidden
    as it opens (the settings drawer, search B) then cost its first picture nothing:
    Panel builds none of their models, the browser none of their views."""

    def fill(*_events) -> None:
        if getattr(owner, name) == value and not box.objects:
            box.objects = [make()]

    owner.param.watch(fill, name)
    fill()
    return box
