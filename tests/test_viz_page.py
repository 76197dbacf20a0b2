"""Page plumbing (`viz._page`): the session's websockets send without Nagle's delay; a
served page's objects are left out of the garbage collector's full collections while it is
open."""

import gc
import weakref
from types import SimpleNamespace

from viz import _page


def test_no_delay_switches_nagle_off_on_every_connection_of_the_session(monkeypatch):
    class Socket:
        nodelay = None

        def set_nodelay(self, value):
            self.nodelay = value

    sockets = [Socket(), Socket()]
    session = SimpleNamespace(_subscribed_connections=[SimpleNamespace(_socket=s) for s in sockets])
    doc = SimpleNamespace(session_context=SimpleNamespace(_session=session))
    monkeypatch.setattr(_page, "served", lambda: doc)
    _page.no_delay()
    assert [s.nodelay for s in sockets] == [True, True]


def test_no_delay_outside_a_server_does_nothing(monkeypatch):
    monkeypatch.setattr(_page, "served", lambda: None)
    _page.no_delay()  # no session, no connections: nothing to change, nothing raised


class _Cycle:
    """An object in a reference cycle: only the garbage collector frees it."""

    def __init__(self):
        self.me = self


def test_a_served_page_freezes_its_objects_until_it_closes(monkeypatch):
    closed = []
    monkeypatch.setattr(_page, "served", lambda: object())
    monkeypatch.setattr(_page.pn.state, "on_session_destroyed", closed.append)
    page_object = _Cycle()
    gone = weakref.ref(page_object)
    try:
        _page.freeze_while_open()
        assert gc.get_freeze_count() > 0 and len(closed) == 1
        del page_object  # the page lets go of it while open: frozen, it stays
        gc.collect()
        assert gone() is not None
        closed[0](None)  # the page closes: what it left is collected, the rest frozen again
        assert gone() is None and gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_freezing_outside_a_server_does_nothing(monkeypatch):
    monkeypatch.setattr(_page, "served", lambda: None)
    _page.freeze_while_open()
    assert gc.get_freeze_count() == 0


def test_hidden_parts_are_made_when_first_shown_and_kept():
    """`fill_when`: the settings drawer and search B are made as they first open (the page
    alone reached its first picture 0.9 s sooner, CPU here), once, and kept when hidden."""
    import panel as pn
    import param

    class Owner(param.Parameterized):
        open = param.Boolean(default=False)

    owner, made = Owner(), []

    def make():
        made.append(1)
        return pn.pane.Markdown("drawer")

    box = _page.fill_when(pn.Column(), make, owner, "open")
    assert box.objects == [] and made == []
    owner.open = True
    assert len(box.objects) == 1 and made == [1]
    owner.open = False
    owner.open = True
    assert len(box.objects) == 1 and made == [1]  # made once, kept
    shown = _page.fill_when(pn.Card(collapsed=False), make, Owner(open=True), "open")
    assert len(shown.objects) == 1 and made == [1, 1]  # shown from the start: made at once


def test_the_charts_are_made_once_a_served_page_has_opened_its_link(monkeypatch):
    """`fill_later`: search A's charts come after the page's first picture when served
    (the page alone reached it in 2.55-2.74 s against 2.99-3.94, CPU here), once its link is
    open (the graph it names, not the embedded city first), at once when not served."""
    import panel as pn

    monkeypatch.setattr(_page, "served", lambda: object())
    box = pn.Column()
    fill = _page.fill_later(box, lambda: pn.pane.Markdown("charts"))
    assert box.objects == []
    fill()
    fill()
    assert len(box.objects) == 1  # once
    monkeypatch.setattr(_page, "served", lambda: None)
    box = pn.Column()
    _page.fill_later(box, lambda: pn.pane.Markdown("x"))
    assert len(box.objects) == 1


def test_explore_is_a_click_away_and_made_as_it_first_opens():
    """The Explore card opens collapsed and empty (its form and figures cost the page alone
    0.9 s of its first picture, CPU here); opened, it holds Explore."""
    import panel as pn

    from viz.app import create_app

    page = create_app()
    cards = [c for c in page.select(pn.Card) if "frontier-explore" in c.css_classes]
    assert len(cards) == 1 and cards[0].collapsed and cards[0].objects == []
    cards[0].collapsed = False
    made = cards[0].select()
    assert len(cards[0].objects) == 1 and any("frontier-sweep" in o.css_classes for o in made)


def test_writes_to_closed_pages_are_left_out_of_the_log(caplog):
    """A page closed while it played logged Tornado's WebSocketClosedError with two
    tracebacks ("Task exception was never retrieved"); other exceptions are still logged."""
    import asyncio

    from tornado.iostream import StreamClosedError
    from tornado.websocket import WebSocketClosedError

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        _page.quiet_closed_pages()
        _page.quiet_closed_pages()  # once per loop
        with caplog.at_level("ERROR", logger="asyncio"):
            for exc in (WebSocketClosedError(), StreamClosedError()):
                loop.call_exception_handler({"message": "never retrieved", "exception": exc})
            assert caplog.records == []
            loop.call_exception_handler({"message": "a real one", "exception": ValueError()})
        assert [r.getMessage() for r in caplog.records] == ["a real one"]
    finally:
        asyncio.set_event_loop(None)
        loop.close()


def test_a_page_whose_session_bokeh_let_go_logs_nothing(caplog):
    """Bokeh's keep-alive ping let a closed page's session go before the page's last
    message and close were handled: both logged an AssertionError from
    ``ServerConnection.session``. Those records are dropped; any other is kept."""
    import asyncio
    import logging

    from bokeh.server.connection import ServerConnection

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        _page.quiet_closed_pages()
    finally:
        asyncio.set_event_loop(None)
        loop.close()
    connection = ServerConnection.__new__(ServerConnection)
    connection._session = None  # as BokehTornado.client_lost leaves it
    for name in ("bokeh.server.protocol_handler", "tornado.application"):
        logger = logging.getLogger(name)
        with caplog.at_level("ERROR", logger=name):
            try:
                connection.session  # noqa: B018
            except AssertionError:
                logger.error("error handling message", exc_info=True)
            try:
                raise AssertionError("another one")
            except AssertionError:
                logger.error("a real one", exc_info=True)
    assert [r.getMessage() for r in caplog.records] == ["a real one", "a real one"]
