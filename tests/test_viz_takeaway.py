"""Downloads of the run on show, and replays reopened by the dashboard."""

import numpy as np
from PIL import Image

import engine
from engine.media import export
from engine.media.render import MapPainter
from viz.state import GraphChoice, Session
from viz.takeaway import DOWNLOADS, TakeawayView


def test_each_download_is_the_run_on_show(session, tmp_path):
    view = TakeawayView(session)
    run = session.runs[0]
    session.seek(11)
    for suffix, _label in DOWNLOADS:
        button = view.buttons[suffix]
        assert not button.disabled and button.filename.endswith(suffix)
        (tmp_path / button.filename).write_bytes(view.file(suffix).getvalue())
    with Image.open(tmp_path / view.buttons[".gif"].filename) as gif:
        assert gif.n_frames == run.n_frames
    assert view.buttons[".png"].filename.endswith("-f11.png")
    rows = (tmp_path / view.buttons[".csv"].filename).read_text().splitlines()
    assert len(rows) == run.n_frames + 1 and rows[0].startswith(",".join(export.TABLE[:3]))


def test_a_long_run_is_animated_by_frames_spread_evenly(session, tmp_path, monkeypatch):
    """A GIF of a run longer than MAX_ANIMATION_FRAMES keeps that many frames, the first and
    the last among them, and the page says so (a 16M-node city's run has thousands)."""
    from viz import takeaway

    monkeypatch.setattr(takeaway, "MAX_ANIMATION_FRAMES", 4)
    view, run = TakeawayView(session), session.runs[0]
    assert run.n_frames > 4
    out = tmp_path / "run.gif"
    out.write_bytes(view.file(".gif").getvalue())
    painter = MapPainter(run.result.graph)
    with Image.open(out) as gif:
        assert gif.n_frames == 4
        gif.seek(3)
        last = painter.frame(run.result, run.n_frames - 1).convert("RGB")
        np.testing.assert_array_equal(np.asarray(gif.convert("RGB")), np.asarray(last))
    assert f"shows 4 of the run's {run.n_frames:,} frames" in session.notice


def test_a_download_is_made_off_the_event_loop(session, monkeypatch):
    """The buttons' callback makes the file on a worker thread: the server's event loop
    (every page's frames) goes on meanwhile; a failure is said on the page, one line."""
    import asyncio
    import time

    view = TakeawayView(session)
    real = export.export

    def slow(*args, **kwargs):
        time.sleep(0.6)  # a big city's GIF takes seconds
        return real(*args, **kwargs)

    monkeypatch.setattr(export, "export", slow)

    async def go():
        ticks = []

        async def clock():
            while True:
                ticks.append(time.monotonic())
                await asyncio.sleep(0.05)

        ticking = asyncio.ensure_future(clock())
        made = await view.download(".csv")
        ticking.cancel()
        return made, ticks

    made, ticks = asyncio.run(go())
    assert made.getvalue() == view.file(".csv").getvalue()
    assert len(ticks) >= 8  # the loop ran while the file was made
    monkeypatch.setattr(export, "export", lambda *a, **k: (_ for _ in ()).throw(
        engine.ParameterError("--fps must be 1–60, got 0")))  # fmt: skip
    assert asyncio.run(view.download(".gif")) is None
    assert session.error == "--fps must be 1–60, got 0"


def test_side_b_and_runs_without_frames(session):
    view = TakeawayView(session)
    session.compare = True
    view.side.value = 1
    assert "d131072-b512" in view.buttons[".gif"].filename
    session.configs[1].method = "dijkstra"
    assert all(b.disabled for b in view.buttons.values())  # SciPy records no frames


def test_a_replay_reopens_without_searching(session, tmp_path, monkeypatch):
    monkeypatch.setenv("FRONTIER_DATA_DIRS", str(tmp_path))
    session.configs[0].param.update(method="delta_stepping", batch_size=8)
    view = TakeawayView(session)
    path = tmp_path / "run.frontier.npz"
    path.write_bytes(view.file(".frontier.npz").getvalue())
    search = engine.sssp

    def no_search(*args, **kwargs):  # SciPy's reference for the stats card may run
        assert kwargs.get("method") == "dijkstra", "a replay must not search again"
        return search(*args, **kwargs)

    other = Session()
    assert other.load_graph(GraphChoice())
    monkeypatch.setattr(engine, "sssp", no_search)
    other.load_path(str(path))
    assert other.error == "", other.error
    a, b = session.runs[0], other.runs[0]
    np.testing.assert_array_equal(a.result.recording.frames, b.result.recording.frames)
    assert (other.source, other.target) == (session.source, session.target)
    assert other.configs[0].method == "delta_stepping" and other.configs[0].batch_size == 8
    assert b.route.tolist() == a.route.tolist()


def test_a_bad_replay_is_a_notification(session, tmp_path, monkeypatch):
    monkeypatch.setenv("FRONTIER_DATA_DIRS", str(tmp_path))
    bad = tmp_path / "bad.frontier.npz"
    bad.write_bytes(b"junk")
    runs = session.runs
    assert not session.load_path(str(bad))
    assert "not a readable Frontier replay" in session.error and session.runs == runs
