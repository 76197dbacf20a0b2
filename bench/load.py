"""Many dashboard sessions on one server: memory, CPU per frame, and a fresh page's load.

Serves ``viz/app.py`` on loopback, pinned to one core (``--server-cpus``); the clients run
on the other cores, so their work is counted apart from the server's. ``--sessions``
sessions play the embedded Helsinki search (it starts on load, and loops): ``--browsers``
of them are pages in headless Chromium, which pause, step, change speed and play again
first; the others are bokeh.client sessions that announce their document ready, as a page
does, take every frame the server sends, and change their speed during the measurement.
While they play, the script reads the server's resident memory and CPU time from /proc,
and times fresh sessions: the server's part (``bokeh.client.pull_session``: the HTTP
request, the session's searches and views, the whole document over the websocket) again and
again, and once a whole page in the browser (until the iteration readout is painted).

    python bench/load.py [--sessions 20] [--browsers 3] [--seconds 20] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import viz.client  # noqa: E402, F401  (the page's models, for bokeh.client sessions)
from engine.graphs.io import write_json  # noqa: E402
from tests.test_viz_browser import CHROMIUM_ARGS, serve_app, set_speed  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def proc_stats(pid: int) -> tuple[float, int]:
    """CPU seconds (user + system) and resident bytes of process ``pid``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / TICKS
    rss = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
    return cpu, rss


def _panel_models() -> None:
    """Import every Bokeh model Panel defines, and the page's own components (each defines
    its data model, named as in the server), so that the client can read the document."""
    import importlib
    import pkgutil

    import panel.models

    import viz.access
    import viz.controls  # noqa: F401

    for module in pkgutil.iter_modules(panel.models.__path__):
        try:
            importlib.import_module(f"panel.models.{module.name}")
        except ImportError:
            continue  # models of optional packages the app does not use


def server_load_s(url: str) -> float:
    """Seconds for the server to create a session and send its whole document (in a thread
    of its own: bokeh.client runs an event loop, Playwright's already runs in this one)."""
    from concurrent.futures import ThreadPoolExecutor

    from bokeh.client import pull_session

    _panel_models()

    def pull() -> float:
        start = time.perf_counter()
        with pull_session(url=url):
            return time.perf_counter() - start

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(pull).result()


def page_load_s(browser, url: str) -> float:
    """Seconds until a fresh page shows its iteration readout."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    start = time.perf_counter()
    page.goto(url)
    page.locator(".frontier-iteration").first.wait_for(timeout=120_000)
    elapsed = time.perf_counter() - start
    context.close()
    return elapsed


class Players:
    """Sessions opened with bokeh.client that play as a page does: each announces its
    document ready (which starts the playback), then receives every frame the server sends,
    on an event loop of its own thread."""

    def __init__(self, url: str, count: int):
        from bokeh.client import pull_session
        from bokeh.document.events import MessageSentEvent
        from bokeh.events import DocumentReady
        from tornado.ioloop import IOLoop

        _panel_models()
        self.sessions = []
        ready = threading.Event()

        def run() -> None:
            self.loop = IOLoop()
            for _ in range(count):
                session = pull_session(url=url, io_loop=self.loop)
                doc = session.document
                doc.callbacks.trigger_on_change(
                    MessageSentEvent(doc, "bokeh_event", DocumentReady())
                )
                self.sessions.append(session)
            ready.set()
            self.loop.start()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        ready.wait()

    def set_speed(self, label: str) -> None:
        """Every client session changes its player's speed, as a person would."""
        from bokeh.models import Select

        def change() -> None:
            for session in self.sessions:
                for model in session.document.select({"type": Select}):
                    if label in model.options:
                        model.value = label

        self.loop.add_callback(change)

    def close(self) -> None:
        self.loop.add_callback(self.loop.stop)
        self.thread.join(timeout=10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20, help="playing sessions in all")
    parser.add_argument("--browsers", type=int, default=3, help="of which real pages")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured window")
    parser.add_argument("--server-cpus", default="0", help="cores of the server, e.g. 0")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    server_cpus = {int(c) for c in args.server_cpus.split(",")}
    others = set(os.sched_getaffinity(0)) - server_cpus or server_cpus
    os.sched_setaffinity(0, others)  # this script and the browsers it starts
    report: dict = {"sessions": args.sessions, "browsers": args.browsers,
                    "server_cpus": sorted(server_cpus), "client_cpus": sorted(others),
                    "seconds": args.seconds}  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        server, url = serve_app(
            {"FRONTIER_CACHE_DIR": str(Path(tmp) / "cache")}, Path(tmp) / "serve.log",
            cpus=server_cpus,
        )  # fmt: skip
        try:
            report["idle_rss_mb"] = round(proc_stats(server.pid)[1] / 2**20, 1)
            report["fresh_idle_server_s"] = round(server_load_s(url), 2)
            with sync_playwright() as p:
                browser = p.chromium.launch(
                    executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS
                )
                report["fresh_idle_page_s"] = round(page_load_s(browser, url), 2)
                pages = []
                for k in range(args.browsers):
                    context = browser.new_context(viewport={"width": 900, "height": 700})
                    page = context.new_page()
                    page.goto(url)
                    page.locator(".frontier-iteration").first.wait_for(timeout=300_000)
                    pages.append(page)
                    print(f"page {k + 1}/{args.browsers} playing", file=sys.stderr)
                for k, page in enumerate(pages):  # pause, step, change speed, play again
                    click = {"no_wait_after": True, "timeout": 60_000}
                    page.locator(".frontier-play button").first.click(**click)
                    page.locator("button", has_text="Step").first.click(**click)
                    set_speed(page, (10, 30, 20)[k % 3], **click)
                    page.locator(".frontier-play button").first.click(**click)
                players = Players(url, args.sessions - args.browsers)
                print(f"{len(players.sessions)} client sessions playing", file=sys.stderr)
                time.sleep(3.0)
                cpu0, _ = proc_stats(server.pid)
                start = time.perf_counter()
                fresh_server, rss = [], []
                k = 0
                while time.perf_counter() - start < args.seconds:
                    players.set_speed(("10 fps", "30 fps", "20 fps")[k % 3])
                    fresh_server.append(server_load_s(url))
                    rss.append(proc_stats(server.pid)[1])
                    k += 1
                    print(f"fresh session {k}: server {fresh_server[-1]:.2f} s", file=sys.stderr)
                wall = time.perf_counter() - start
                cpu1, rss_end = proc_stats(server.pid)
                fresh_page = page_load_s(browser, url)
                players.close()
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=20)
    nominal_frames = args.sessions * 20 * wall  # 20 frames/s, the default speed
    peak = max([*rss, rss_end]) / 2**20
    report |= {
        "server_cpu_share": round((cpu1 - cpu0) / wall, 3),
        "server_cpu_ms_per_frame": round((cpu1 - cpu0) / nominal_frames * 1e3, 3),
        "rss_mb_peak": round(peak, 1),
        "rss_mb_per_session": round((peak - report["idle_rss_mb"]) / (args.sessions + k), 2),
        "fresh_server_s_median": round(statistics.median(fresh_server), 2),
        "fresh_server_s_max": round(max(fresh_server), 2),
        "fresh_server_samples": len(fresh_server),
        "fresh_page_s": round(fresh_page, 2),
    }
    print(json.dumps(report, indent=2))
    if args.out:
        write_json(args.out, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
