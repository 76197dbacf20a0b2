"""Where the 1M city's unpainted frames are lost: on the server (the player's clock skips a
frame) or in the page (two frames applied before one rendering).

Runs a copy of the tree at ROOT with `instrument.diff` applied: the server prints a line a
tick, the page records when it applied each frame. Plays the city at 30 frames/s for 8 s
(as `bench/metro.py browser` does) and prints the frames painted (by the readouts'
iteration number), the frames applied, and the server's advances by 1, 2, … frames.

    ROOT=/tmp/copy python frames_split.py
"""

import collections
import itertools
import os
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(os.environ["ROOT"])
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from dashboard_fps import SAMPLER  # noqa: E402
from metro import graph_file, settle  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from tests.test_viz_browser import CHROMIUM, CHROMIUM_ARGS, serve_app  # noqa: E402

SECONDS = 8.0
folder = Path("/tmp/frames-split")
folder.mkdir(exist_ok=True)
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
        page.locator(".frontier-iteration").first.wait_for()
        settle(proc.pid)
        page.locator("select", has_text="fps").first.select_option(label="30 fps")
        page.evaluate(SAMPLER)
        time.sleep(SECONDS)
        seen = page.evaluate("() => window._seen")
        applied = page.evaluate("() => window.frontier_applied ?? []")
        browser.close()
finally:
    proc.terminate()
    proc.wait(timeout=10)

t0, t1 = seen[0][0], seen[-1][0]
applied = [t for t in applied if t0 <= t <= t1]
steps = [int(v.replace(",", "")) for _, v in seen[1:]]
print(f"painted {len(seen) - 1} frames in {(t1 - t0) / 1e3:.2f} s, applied {len(applied)}")
jumps = collections.Counter(b - a for a, b in itertools.pairwise(steps))
print("painted iteration steps", dict(jumps))
ticks = [line.split()[1:] for line in (folder / "serve.log").open() if line.startswith("TICK")]
ticks = [(float(t), int(ready), int(a), int(b)) for t, _, ready, a, b, _ in ticks]
ticks = [r for r in ticks if r[0] > ticks[-1][0] - (t1 - t0) / 1e3]
advances = collections.Counter(b - a for _, _, a, b in ticks if b != a)
print("server advances", dict(advances), "ticks not ready", sum(not r[1] for r in ticks))
