"""Frame rate of the dashboard's player in a real browser, and whether frames queue up.

Serves ``viz/app.py``, loads a synthetic 21k-node street grid (or ``--graph FILE``) through
the page's File path control, plays at each asked rate for a few seconds and counts the
distinct iteration readouts Chromium paints (sampled every animation frame). Then it pauses
and counts frames that still arrive: a backlog would show there.

    python bench/dashboard_fps.py [--graph ../shared/data/osm/porto_alegre.osm.pbf]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.graphs import write_osm_grid  # noqa: E402
from tests.test_viz_browser import (  # noqa: E402
    CHROMIUM_ARGS,
    close_settings,
    open_settings,
    serve_app,
    set_speed,
)

#: Records each new iteration readout the page paints (``window._seen``: time, text), at
#: every animation frame. The readout sits in a shadow root; the root is found once and
#: searched alone after that (walking the whole page each frame took ≈ 2 % of the renderer's
#: main thread, the city's limit on the H100 machine; decisions/0054, issue 19).
SAMPLER = """() => {
    window._seen = [];
    function find(root) {
        if (root.querySelector(".frontier-iteration")) return root;
        for (const e of root.querySelectorAll("*"))
            if (e.shadowRoot) { const r = find(e.shadowRoot); if (r) return r; }
        return null;
    }
    let last = null, where = null;
    function sample(t) {
        let node = where && where.querySelector(".frontier-iteration");
        if (!node) {
            where = find(document);
            node = where && where.querySelector(".frontier-iteration");
        }
        const text = node ? node.textContent : null;
        if (text !== last) { window._seen.push([t, text]); last = text; }
        window._raf = requestAnimationFrame(sample);
    }
    window._raf = requestAnimationFrame(sample);
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", type=Path, help="graph file (default: a 145×145 grid)")
    parser.add_argument("--fps", type=int, nargs="+", default=[20, 30, 60])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--delta", type=int, default=4000, help="Δ, for enough frames")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        graph = args.graph.resolve() if args.graph else write_osm_grid(data / "grid.osm", 145, 145)
        env = {
            "FRONTIER_CACHE_DIR": str(data / "cache"),
            "FRONTIER_DATA_DIRS": os.pathsep.join([str(data), str(graph.parent)]),
        }
        server, url = serve_app(env, data / "serve.log")
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(
                    executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS
                )
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.goto(url)
                page.locator(".frontier-map canvas").first.wait_for(timeout=60_000)
                page.locator(".frontier-play button").first.click()  # stop the autoplay
                open_settings(page)
                page.locator("select").first.select_option(label="File path")
                page.get_by_placeholder("data/city.osm.pbf").fill(str(graph))
                page.get_by_placeholder("data/city.osm.pbf").press("Enter")
                page.locator("button", has_text="Load graph").click()
                page.locator(".frontier-stats", has_text=graph.name).wait_for(timeout=120_000)
                delta = page.locator(".frontier-delta input").first
                delta.fill(str(args.delta))
                delta.press("Enter")
                page.locator(".frontier-stats", has_text=f"Δ {args.delta:,}").wait_for()
                frames = int(
                    page.locator(".frontier-stats")
                    .first.inner_text()
                    .split("Iterations")[1]
                    .split()[0]
                    .replace(",", "")
                )
                close_settings(page)  # the map as wide as a user sees it
                results = []
                for fps in args.fps:
                    set_speed(page, fps)
                    page.locator("button", has_text="First").click()
                    time.sleep(0.5)
                    page.evaluate(SAMPLER)
                    page.locator(".frontier-play button").first.click()
                    time.sleep(args.seconds)
                    page.locator(".frontier-play button").first.click()
                    paused_at = page.evaluate("() => performance.now()")
                    time.sleep(1.5)
                    seen = page.evaluate(
                        "() => { cancelAnimationFrame(window._raf); return window._seen; }"
                    )
                    played = [(t, int(v)) for t, v in seen[1:] if v is not None]
                    during = [v for t, v in played if t <= paused_at + 100]
                    late = [v for t, v in played if t > paused_at + 100]
                    span = (played[-1][0] - played[0][0]) / 1000 if len(played) > 1 else 0
                    results.append(
                        {
                            "fps_asked": fps,
                            "distinct_frames_painted": len(during),
                            "painted_fps": round(len(during) / span, 1) if span else 0,
                            "frames_arriving_after_pause": len(late),
                            "last_frame": during[-1] if during else None,
                        }
                    )
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=10)
    report = {
        "graph": str(graph.name),
        "frames_in_run": frames,
        "delta": args.delta,
        "seconds": args.seconds,
        "results": results,
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
