"""Where headless Chromium's time goes while the 1M-node synthetic city plays at 30 fps.

Serves the dashboard, opens the city by link (``bench/metro.py``'s graph, written first),
plays at 30 frames/s and records a 5-second Chrome trace; prints milliseconds per second of
each thread's events, largest first, and the painted frame rate.

    python bench/measured/2026-11-24-png-encoder/chromium_trace.py
"""

from __future__ import annotations

import collections
import os
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[3]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from dashboard_fps import SAMPLER  # noqa: E402
from metro import graph_file  # noqa: E402

from tests.test_viz_browser import CHROMIUM, CHROMIUM_ARGS, serve_app  # noqa: E402

SECONDS = 5.0


def trace(page) -> list[dict]:
    cdp = page.context.new_cdp_session(page)
    events, done = [], []
    cdp.on("Tracing.dataCollected", lambda e: events.extend(e["value"]))
    cdp.on("Tracing.tracingComplete", lambda e: done.append(1))
    categories = "devtools.timeline,disabled-by-default-devtools.timeline,v8"
    cdp.send("Tracing.start", {"categories": categories, "transferMode": "ReportEvents"})
    time.sleep(SECONDS)
    cdp.send("Tracing.end")
    while not done:
        page.wait_for_timeout(100)
    return events


def main() -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path, weights = graph_file("city", folder)
        env = {"FRONTIER_CACHE_DIR": str(folder / "cache"), "FRONTIER_DATA_DIRS": str(folder)}
        os.environ["FRONTIER_OFFLINE"] = "1"
        proc, url = serve_app(env, folder / "serve.log")
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_context(viewport={"width": 1600, "height": 1000}).new_page()
                page.goto(url + "?" + urlencode({"graph": str(path), "weights": weights}))
                page.locator(".frontier-stats", has_text=path.name).first.wait_for(timeout=600_000)
                page.locator("select", has_text="fps").first.select_option(label="30 fps")
                page.evaluate(SAMPLER)
                events = trace(page)
                seen = page.evaluate("() => window._seen")
                browser.close()
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    print(
        f"painted frames/s at 30 asked: {(len(seen) - 1) / ((seen[-1][0] - seen[0][0]) / 1e3):.1f}"
    )
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["name"] == "thread_name"}
    busy = collections.Counter()
    for e in events:
        if e.get("ph") == "X" and "dur" in e:
            busy[names.get((e["pid"], e["tid"]), "?"), e["name"]] += e["dur"] / 1e3 / SECONDS
    print("ms/s  thread  event (nested events are counted in their parents too)")
    for (thread, name), ms in busy.most_common(20):
        print(f"{ms:6.1f}  {thread}  {name}")


if __name__ == "__main__":
    main()
