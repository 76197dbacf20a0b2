"""The dashboard's pictures in docs/, taken again from the served app (issue 52).

Serves `viz/app.py` on loopback, opens each view by its link in Debian's headless Chromium
(as the browser tests do) and saves a PNG of the page or of one part of it:

- ``dashboard.png``: the main view at 1400×900, Helsinki at frame 79;
- ``presentation.png``: presentation mode at 1920×1080, paused at frame 60;
- ``compare.png``: Near-Far (A) against Δ-stepping (B) at the median arc's Δ, frame 60;
- ``lesson.png``: the first step of "Near-Far against Δ-stepping";
- ``explore.png``: Explore after a 4 Δ × 3 batch sweep of three searches a cell;
- ``porto-alegre-after.png``: the shared Porto Alegre drive graph at frame 108 (skipped when
  the shared data is not beside the project).

``docs/porto-alegre-before.png`` is the page before issue 52 and is not taken again.

    python bench/screenshots.py [--out docs] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.graphs import shared_path  # noqa: E402
from tests.test_viz_browser import CHROMIUM_ARGS, open_explore, serve_app  # noqa: E402

PORTO_ALEGRE = shared_path("osm", "porto_alegre.osm.pbf")
#: name: (viewport, link, what to wait for, what to capture: None for the viewport).
VIEWS = {
    "dashboard": ((1400, 900), {"frame": 79}, None),
    "presentation": ((1920, 1080), {"present": 1, "frame": 60}, None),
    "compare": (
        (1400, 900),
        {"compare": 1, "method": "near_far", "b_method": "delta_stepping", "frame": 60},
        None,
    ),
    "lesson": ((1400, 900), {"lesson": "near-far-vs-delta-stepping"}, ".frontier-lesson-text"),
    "explore": ((1400, 900), {"frame": 40}, ".frontier-explore"),
    "porto-alegre-after": (
        (1400, 900),
        {"graph": str(PORTO_ALEGRE), "network": "drive", "frame": 108},
        None,
    ),
}


def wait_for(predicate, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            msg = "timed out waiting for the page"
            raise TimeoutError(msg)
        time.sleep(0.2)


def sweep(page) -> None:
    """Open Explore, run a sweep there (three searches a cell, the default) and wait for its
    end."""
    box = open_explore(page)
    for k, value in enumerate(("x0.25,x0.5,auto,x2", "1,8,64")):
        box.locator("input").nth(k).fill(value)
        box.locator("input").nth(k).press("Enter")
    page.locator(".frontier-sweep button").first.click()
    done = page.locator(".frontier-explore-status", has_text="finished").first
    done.wait_for(timeout=300_000)


def take(browser, url: str, name: str, out: Path) -> Path:
    (width, height), link, part = VIEWS[name]
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        if name == "compare":  # both at the median arc's Δ, as the lesson compares them
            import engine
            from viz.lessons import median_arc

            delta = median_arc(engine.load_graph("helsinki"))
            link = {**link, "delta": delta, "b_delta": delta}
        page = context.new_page()
        page.goto(f"{url}?{urlencode(link)}")
        page.locator(".frontier-map canvas").first.wait_for(timeout=120_000)
        if name == "explore":
            sweep(page)
        if part is not None:
            page.locator(part).first.wait_for(timeout=60_000)
        time.sleep(2.0)  # the map's image and the charts drawn
        path = out / f"{name}.png"
        if part is None or name == "lesson":
            page.screenshot(path=path)
        else:
            page.locator(part).first.screenshot(path=path)
        return path
    finally:
        context.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    parser.add_argument("--only", nargs="+", choices=list(VIEWS), default=list(VIEWS))
    args = parser.parse_args(argv)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("Debian's chromium is needed (apt-get install chromium)", file=sys.stderr)
        return 2
    names = [n for n in args.only if n != "porto-alegre-after" or PORTO_ALEGRE.is_file()]
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        folders = os.pathsep.join([str(ROOT), str(PORTO_ALEGRE.parent)])
        env = {"FRONTIER_CACHE_DIR": tmp, "FRONTIER_DATA_DIRS": folders}
        server, url = serve_app(env, Path(tmp) / "serve.log")
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
                for k, name in enumerate(names, 1):
                    print(f"[{k}/{len(names)}] {name} ...", flush=True)
                    print(f"  wrote {take(browser, url, name, args.out)}", flush=True)
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
