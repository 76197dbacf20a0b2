"""The dashboard on metro-scale graphs (issue 19): load, frames, memory, and frame rate.

Graphs: ``city``, a seeded 1,000,000-node synthetic city written as ``.gr`` + ``.co``
(`engine.graphs.synthetic`, seed 19); ``city16m`` and the like, the same at 16M nodes (the
dashboard takes 24M where a GPU draws the map, 4M elsewhere); ``citypbf`` (and the like),
the same streets written as an OSM PBF of road ways (`synthetic.write_city_pbf`, read with
osmnx's rules, network ``all``); for ``server`` only, a graph spec ``city:NODES[:SEED]``,
the synthetic city `engine.load_graph` lays out with no file (cold: laid out; cached: read
from the cache folder; the dashboard opens it by link, ``?graph=city:16000000``); and PACE
graphs by name, such as ``NE`` (1.5M nodes, no coordinates, ``random:1`` weights). A city
already written to ``$FRONTIER_CITY_DIR`` (as ``city16m.gr`` + ``.co``, or
``city1m.osm.pbf``) is read from there.

``server`` (no browser; runs on a GPU machine too) measures in one process, per graph:
- load to first picture, cold (empty cache: parse, CSR, cache, map, the searches of a new
  session, the first image), from the CSR cache (the same in a new process, the cache kept)
  and warm (a second session: the cache and the shared graph);
- reaching a frame: ``Session.seek`` to 40 seeded frames with every per-frame view built
  (map, readouts, charts, caption), median and largest;
- the map's frame at 1,600 × 1,000 pixels (the nodes over the roads, the image sent);
- resident memory: the process before loading, with the graph loaded, and with 1 and 4
  sessions on it (the graph is shared read-only; each session holds its own runs).

``browser`` (needs Debian's chromium) serves the app, opens the graph by ``?graph=`` in
headless Chromium, and reports the page's load to first picture (cold: nothing cached; on
the page's own clock, to the frame that shows the graph's stats and the map's image) and
the load stages the page showed meanwhile, how long the server then stays busy (the
session's SciPy references, the cache), the frames per second the page paints while playing
at 30 fps once it is not, the server's CPU time per second meanwhile, and its resident
memory; then how long a step, a scrub to the last frame and a GIF of the run take to come;
and, as a baseline, how long the page takes to its first picture on its embedded city (no
link) in that server.
A second server then opens each graph again with its CSR in the cache (a new process: the
graph is not in memory), and a page cancels a load of each (``unit`` weights, not cached):
how long until the page says so, and whether the server stops working.

    python bench/metro.py server [--graphs city NE] [--out FILE.json]
    python bench/metro.py browser [--graphs city NE] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

CITY_NODES, CITY_SEED = 1_000_000, 19
#: A city's name: ``city`` (`CITY_NODES`) or ``city<millions>m``, and ``pbf`` after it for
#: the same streets as an OSM PBF.
CITY = re.compile(r"city(?:(\d+)m)?(pbf)?")
#: How many map frames the page has decoded and shown (counted by viz/bitmaps.js).
BITMAPS = "() => window.frontier_bitmaps ?? 0"
PACE = ROOT.parent / "shared" / "data" / "pace16" / "NE.gr.xz"


def rss_mb() -> float:
    """This process's resident memory now, in MB."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


def graph_file(name: str, folder: Path) -> tuple[Path, str]:
    """The file of graph ``name`` (a city is written into ``folder`` unless
    ``$FRONTIER_CITY_DIR`` has it) and its weights."""
    if name.startswith("city:"):  # no file: engine.load_graph lays it out
        return Path(name), "file"
    city = CITY.fullmatch(name)
    if city:
        from engine.graphs import synthetic

        nodes = int(city.group(1)) * 1_000_000 if city.group(1) else CITY_NODES
        stem = f"city{nodes // 1_000_000}m"
        ready = Path(os.environ.get("FRONTIER_CITY_DIR", folder)) / stem
        if city.group(2):
            pbf = ready.with_suffix(".osm.pbf")
            if not pbf.exists():
                pbf = synthetic.write_city_pbf(folder / pbf.name, nodes, seed=CITY_SEED)
            return pbf, "file"
        if ready.with_suffix(".gr").exists() and ready.with_suffix(".co").exists():
            return ready.with_suffix(".gr"), "file"
        gr, _ = synthetic.write_city(folder / stem, nodes, seed=CITY_SEED)
        return gr, "file"
    path = Path(os.environ.get("FRONTIER_PACE_DIR", PACE.parent)) / f"{name}.gr.xz"
    return path, "random:1"


def _views(session):
    from viz.charts import ChartsView, Readouts
    from viz.citymap import MapView
    from viz.narration import Caption

    return [MapView(session), Readouts(session), ChartsView(session), Caption(session)]


def where() -> dict:
    """The machine a figure comes from: the search backend's device and the host's cores."""
    import engine
    from engine.backends.device import device_name

    backend = "gpu" if engine.gpu_available() else "cpu"
    return {"device": device_name(backend), "backend": backend, "cpus": os.cpu_count()}


def server(names: list[str], folder: Path) -> dict:
    """`server_one` for each graph, each in a fresh process (memory figures start clean),
    then again in another (its CSR read from the cache the first wrote)."""
    import multiprocessing

    out = where()
    with multiprocessing.get_context("spawn").Pool(1, maxtasksperchild=1) as pool:
        for name in names:
            out[name] = pool.apply(server_one, (name, folder))
            # again in a new process: the CSR (and the core) now come from the cache
            out[f"{name}, CSR cached"] = pool.apply(server_one, (name, folder))
    return out


def server_one(name: str, folder: Path) -> dict:
    import numpy as np

    from viz import raster, state

    os.environ["FRONTIER_CACHE_DIR"] = str(folder / "cache")
    os.environ["FRONTIER_OFFLINE"] = "1"
    base = rss_mb()
    path, weights = graph_file(name, folder)
    os.environ["FRONTIER_DATA_DIRS"] = str(path.parent)
    choice = state.GraphChoice(str(path), weights=weights)
    row = {"file": path.name, "weights": weights}
    print(f"{name}: cold load", file=sys.stderr, flush=True)
    marks = []
    start = time.perf_counter()
    with state.reporting(lambda what: marks.append((what, time.perf_counter()))):
        loaded = state.load(choice)
    row["load_s"] = time.perf_counter() - start
    ends = [t for _, t in marks[1:]] + [time.perf_counter()]
    row["stages_s"] = {what: end - t for (what, t), end in zip(marks, ends, strict=True)}
    session = state.Session()
    t = time.perf_counter()
    assert session.load_graph(choice), session.error
    row["searches_s"] = time.perf_counter() - t
    t = time.perf_counter()
    kept = [_views(session)]  # the views a page holds
    row["first_picture_view_s"] = time.perf_counter() - t
    row["cold_to_first_picture_s"] = time.perf_counter() - start
    row["nodes"], row["arcs"] = loaded.graph.n_nodes, loaded.graph.n_arcs
    row["has_coordinates"] = loaded.geometry is not None
    row["rss_graph_and_1_session_mb"] = rss_mb() - base
    run = session.runs[0]
    row["frames"], row["method"] = run.n_frames, run.settings.method
    row["search_ms"] = run.result.elapsed_s * 1000
    print(f"{name}: frames", file=sys.stderr, flush=True)
    rng = np.random.default_rng(0)
    times = []
    for frame in rng.integers(0, run.n_frames, 40):
        t = time.perf_counter()
        session.seek(int(frame))
        times.append(time.perf_counter() - t)
    row["reach_frame_ms"] = {
        "median": 1000 * statistics.median(times),
        "max": 1000 * max(times),
    }
    geo = loaded.geometry
    if geo is not None:
        r = geo.rasterizer()
        (x0, x1), (y0, y1) = geo.bounds()
        t = time.perf_counter()
        r.set_viewport(raster.Viewport(x0, x1, y0, y1, 1600, 1000))
        row["roads_1600x1000_ms"] = 1000 * (time.perf_counter() - t)
        frame_times = []
        for frame in rng.integers(0, run.n_frames, 40):
            t = time.perf_counter()
            r.states_image(run.result.recording, run.clamp(int(frame)))  # as the page draws
            frame_times.append(time.perf_counter() - t)
        row["map_frame_1600x1000_ms"] = 1000 * statistics.median(frame_times)
    print(f"{name}: warm load and more sessions", file=sys.stderr, flush=True)
    t = time.perf_counter()
    more = [state.Session() for _ in range(3)]
    assert more[0].load_graph(choice), more[0].error
    kept.append(_views(more[0]))
    row["warm_to_first_picture_s"] = time.perf_counter() - t
    for s in more[1:]:
        assert s.load_graph(choice), s.error
        kept.append(_views(s))
    row["rss_graph_and_4_sessions_mb"] = rss_mb() - base
    row["rss_before_mb"] = base
    row["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3
    print(row, file=sys.stderr, flush=True)
    return row


def settle(pid: int, *, below: float = 0.6, longest: float = 60.0) -> float:
    """Wait until server ``pid`` uses less than ``below`` of a core over a second; return the
    wait. A new session's SciPy references and caching take a core for seconds after its
    first picture, while the page's own playback (it starts playing) takes less than half."""
    from load import proc_stats

    start = time.perf_counter()
    cpu = proc_stats(pid)[0]
    while time.perf_counter() - start < longest:
        time.sleep(1.0)
        now = proc_stats(pid)[0]
        if now - cpu < below:
            break
        cpu = now
    return time.perf_counter() - start


def browser(names: list[str], folder: Path, seconds: float = 8.0) -> dict:
    from dashboard_fps import SAMPLER
    from load import proc_stats
    from playwright.sync_api import sync_playwright

    from tests.test_viz_browser import CHROMIUM, CHROMIUM_ARGS, serve_app, set_speed

    out = where()
    files = {name: graph_file(name, folder) for name in names}
    dirs = os.pathsep.join(sorted({str(p.parent) for p, _ in files.values()}))
    env = {"FRONTIER_CACHE_DIR": str(folder / "cache"), "FRONTIER_DATA_DIRS": dirs}
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        proc, url = serve_app(env, folder / "serve.log")
        try:
            for name, (path, weights) in files.items():
                print(f"{name}: page, cold", file=sys.stderr, flush=True)
                page = b.new_context(viewport={"width": 1600, "height": 1000}).new_page()
                row = _first_picture(page, url, {"graph": str(path), "weights": weights})
                row["settle_s"] = settle(proc.pid)
                set_speed(page, 30)
                page.evaluate(SAMPLER)
                shown = page.evaluate(BITMAPS)
                cpu = proc_stats(proc.pid)[0]
                time.sleep(seconds)
                row["server_cpu_share"] = (proc_stats(proc.pid)[0] - cpu) / seconds
                seen = page.evaluate("() => window._seen")
                span = (seen[-1][0] - seen[0][0]) / 1000 if len(seen) > 1 else 0
                row["painted_fps_at_30"] = (len(seen) - 1) / span if span else 0.0
                row["map_frames_shown_per_s"] = (page.evaluate(BITMAPS) - shown) / seconds
                row["server_rss_mb"] = proc_stats(proc.pid)[1] / 1e6
                print(row, file=sys.stderr, flush=True)
                row.update(_step_scrub_and_gif(page, folder))
                out[name] = row
                print(row, file=sys.stderr, flush=True)
                page.context.close()
            # The page alone: the embedded city, no link, in the same (warm) server.
            page = b.new_context(viewport={"width": 1600, "height": 1000}).new_page()
            alone = _first_picture(page, url, longest=120)
            out["page_alone_to_first_picture_s"] = alone["page_to_first_picture_s"]
            page.context.close()
        finally:
            proc.terminate()
            proc.wait(timeout=30)
        proc, url = serve_app(env, folder / "serve-cached.log")  # a new process, the cache kept
        try:
            for name, (path, weights) in files.items():
                print(f"{name}: page, CSR cached; cancel", file=sys.stderr, flush=True)
                page = b.new_context(viewport={"width": 1600, "height": 1000}).new_page()
                cached = _first_picture(page, url, {"graph": str(path), "weights": weights})
                out[name]["page_to_first_picture_cached_s"] = cached["page_to_first_picture_s"]
                out[name]["cancel"] = _cancel(page, url, path, proc.pid)
                print(out[name]["cancel"], file=sys.stderr, flush=True)
                page.context.close()
        finally:
            proc.terminate()
            proc.wait(timeout=30)
        b.close()
    return out


#: Run in the page before its own scripts: at each animation frame (just before the browser
#: paints), whether the first picture is on show: the stats naming the graph (``NAME``; ""
#: for any) with its iteration, and the map's image ready to draw (an image glyph's view: the
#: roads of a map drawn with glyphs, the first frame of a rasterised one). The page's clock
#: then, seconds from the navigation's start, goes to ``window.frontier_first_picture``.
FIRST_PICTURE = """(() => {
  const text = (root) => {
    let out = root.textContent || "";
    for (const el of root.querySelectorAll("*")) if (el.shadowRoot) out += text(el.shadowRoot);
    return out;
  };
  const found = (root, selector, name) => {
    for (const el of root.querySelectorAll(selector))
      if (!name || text(el).includes(name) || (el.shadowRoot && text(el.shadowRoot).includes(name)))
        return true;
    for (const el of root.querySelectorAll("*"))
      if (el.shadowRoot && found(el.shadowRoot, selector, name)) return true;
    return false;
  };
  const ready = (images) => (images ?? []).some((i) => i != null);
  const drawn = () => window.Bokeh?.index?.query_one?.((v) =>
    (v.model?.type === "ImageURL" && ready(v.image))
    || (v.model?.type === "ImageRGBA" && ready(v.image_data))) != null;
  const look = () => {
    if (found(document, ".frontier-stats", NAME) && found(document, ".frontier-iteration", "")
        && drawn()) {
      window.frontier_first_picture = performance.now() / 1000;
    } else {
      requestAnimationFrame(look);
    }
  };
  requestAnimationFrame(look);
})();"""


def _first_picture(page, url: str, query: dict | None = None, *, longest: float = 900.0) -> dict:
    """Open ``url`` (with ``query``: a graph by link) and wait for its first picture; the
    seconds from the navigation's start to the frame that shows it, on the page's own clock
    (`FIRST_PICTURE`), and the load's stages the page showed meanwhile (sampled every 0.2 s).

    The page's clock rather than the time this script's locator sees the stats: Playwright
    looks for an element at growing intervals (up to half a second), and it waits for the
    page's long tasks, so it saw the first picture 0.3-1.0 s after the page drew it
    (decision 0097)."""
    import json
    from urllib.parse import urlencode

    name = Path(query["graph"]).name if query else ""
    page.add_init_script(FIRST_PICTURE.replace("NAME", json.dumps(name)))
    start = time.perf_counter()
    page.goto(url + ("?" + urlencode(query) if query else ""))
    stages = []
    while (seen := page.evaluate("() => window.frontier_first_picture ?? null")) is None:
        if time.perf_counter() - start > longest:
            msg = f"{name or 'the page'} showed no picture in {longest:.0f} s; stages: {stages}"
            raise TimeoutError(msg)
        stage = _stage_shown(page)
        if stage and stage not in stages:
            stages.append(stage)
        time.sleep(0.2)
    return {"page_to_first_picture_s": seen, "stages_shown": stages}


def _stage_shown(page) -> str:
    """The load stage the page shows ("" when it shows none)."""
    shown = page.locator(".frontier-loading-text").first
    try:
        text = shown.inner_text(timeout=1000) if shown.is_visible() else ""
    except Exception:  # redrawn while read: the next sample reads it
        text = ""
    found = re.search(r":\s*(.+?)\s*\(\d+ s\)", text)
    return found.group(1) if found else ""


def _step_scrub_and_gif(page, folder: Path) -> dict:
    """Pause, then the seconds a step, a scrub to the last frame (the Frame slider dragged
    to its end) and a GIF of the run (the settings drawer's export) take to come."""
    from tests.test_viz_browser import (
        number,
        open_settings,
        play_button,
        scrub_to_end,
        stats,
        wait_for,
    )

    row = {}
    if "Pause" in play_button(page).inner_text():
        play_button(page).click()
    wait_for(lambda: "Play" in play_button(page).inner_text(), 60)
    page.locator("button", has_text="First").first.click()
    wait_for(lambda: number(page, "frontier-iteration") == 0, 60)
    shown = page.evaluate(BITMAPS)
    t = time.perf_counter()
    page.locator("button", has_text="Step").first.click()
    wait_for(lambda: number(page, "frontier-iteration") == 1 and page.evaluate(BITMAPS) > shown, 60)
    row["step_s"] = time.perf_counter() - t
    last = int(re.search(r"(?:Iterations|Phases ended)\s+([\d,]+)", stats(page)).group(1)
               .replace(",", ""))  # fmt: skip
    shown = page.evaluate(BITMAPS)
    t = time.perf_counter()
    scrub_to_end(page)
    wait_for(lambda: number(page, "frontier-iteration") == last
             and page.evaluate(BITMAPS) > shown, 120)  # fmt: skip
    row["scrub_to_last_s"] = time.perf_counter() - t
    open_settings(page)
    t = time.perf_counter()
    with page.expect_download(timeout=600_000) as download:
        page.locator(".frontier-export-gif button").first.click()
    gif = folder / download.value.suggested_filename
    download.value.save_as(gif)
    row["gif_s"] = time.perf_counter() - t
    row["gif_bytes"] = gif.stat().st_size
    if not gif.read_bytes().startswith(b"GIF89a"):
        msg = f"{gif.name} is not a GIF"
        raise RuntimeError(msg)
    return row


def _cancel(page, url: str, path: Path, pid: int) -> dict:
    """Open ``path`` with ``unit`` weights, or an OSM file by travel time (not cached: it
    is read and parsed again), press
    Cancel once the page shows the load, and wait for the page to say so; then whether the
    server went back to rest (its loads stopped) within a minute. A graph that loads before
    the page shows its progress (`viz.loading.SHOW_AFTER_S`) has no Cancel to press."""
    from urllib.parse import urlencode

    from tests.test_viz_browser import wait_for

    start = time.perf_counter()
    uncached = {"weight": "travel_time"} if path.suffix == ".pbf" else {"weights": "unit"}
    page.goto(url + "?" + urlencode({"graph": str(path), **uncached}))
    loaded = page.locator(".frontier-stats", has_text=path.name)
    wait_for(lambda: bool(_stage_shown(page)) or loaded.count() > 0, 300)
    stage = _stage_shown(page)
    if not stage:
        return {"loaded_before_its_progress_showed_s": time.perf_counter() - start}
    t = time.perf_counter()
    page.locator(".frontier-loading button", has_text="Cancel").first.click()
    said = page.locator(".notyf__toast", has_text="was cancelled")
    wait_for(lambda: said.count() > 0 or loaded.count() > 0, 60)
    if not said.count():
        return {"finished_as_cancel_was_pressed_at_stage": stage}
    said = time.perf_counter() - t
    return {
        "shown_after_s": t - start,
        "stage_when_cancelled": stage,
        "page_says_cancelled_s": said,
        "server_at_rest_after_s": settle(pid, below=0.3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=["server", "browser"])
    parser.add_argument("--graphs", nargs="+", default=["city", "NE"])
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.part == "browser" and any(g.startswith("city:") for g in args.graphs):
        parser.error("the browser part opens graph files: name a city as city16m, not city:N")
    from engine.graphs.io import write_json

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        os.environ["FRONTIER_CACHE_DIR"] = str(folder / "cache")
        os.environ["FRONTIER_OFFLINE"] = "1"
        run = server if args.part == "server" else browser
        result = {"part": args.part, "graphs": args.graphs, **run(args.graphs, folder)}
    result["synthetic_city"] = dict(
        nodes=CITY_NODES, seed=CITY_SEED, made_by="engine.graphs.synthetic"
    )
    if args.out:
        write_json(args.out, result)
    print(result)


if __name__ == "__main__":
    main()
