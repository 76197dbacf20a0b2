"""Page plumbing (`viz._page`): the session's websockets send without Nagle's delay."""

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
