"""The dashboard in a real browser: `panel serve viz/app.py` driven by headless Chromium.

Uses Debian's ``chromium`` (``.ci/run`` installs it) through Playwright's
``executable_path``; Playwright's own browsers are never downloaded.
"""

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

import pytest

import engine

from .graphs import shared_path

pytestmark = pytest.mark.ui
sync_api = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
#: Flags for a headless Chromium on a machine with no network (see the env notes).
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_app(
    env: dict, log: Path, *, cpus: set[int] | None = None
) -> tuple[subprocess.Popen, str]:
    """Start `panel serve viz/app.py` on a free loopback port (on the cores ``cpus`` only,
    when given); return it and the app's URL once it answers."""
    port = _free_port()
    pin = (lambda: os.sched_setaffinity(0, cpus)) if cpus else None
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "panel", "serve", "viz/app.py", "--port", str(port),
             "--address", "127.0.0.1"],
            cwd=ROOT, env=dict(os.environ, FRONTIER_OFFLINE="1", **env), stdout=out,
            stderr=subprocess.STDOUT, preexec_fn=pin,
        )  # fmt: skip
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2)
            return proc, f"http://127.0.0.1:{port}/app"
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                msg = f"panel serve did not start:\n{log.read_text()}"
                raise RuntimeError(msg) from None
            time.sleep(0.3)


@pytest.fixture(scope="module")
def links_dir(tmp_path_factory):
    """A folder the served app may open files from by link."""
    return tmp_path_factory.mktemp("links")


@pytest.fixture(scope="module")
def server(tmp_path_factory, links_dir):
    """The app served on loopback, as the README's command does."""
    log = tmp_path_factory.mktemp("app-log") / "serve.log"
    cache = tmp_path_factory.mktemp("app-cache")
    # typed paths and links may go here
    folders = os.pathsep.join([str(ROOT), str(shared_path("osm")), str(links_dir)])
    proc, url = serve_app({"FRONTIER_CACHE_DIR": str(cache), "FRONTIER_DATA_DIRS": folders}, log)
    yield url
    proc.terminate()
    proc.wait(timeout=10)
    # Nothing may fail, page closes included (Tornado's writes to sockets of pages that had
    # just closed were logged with their tracebacks): no traceback, no failed callback, and
    # no warning of Bokeh's model checks (13 lines a page, W-1005, until they were silenced).
    text = log.read_text()
    failures = text.split("Traceback")[1:]
    failures += [line for line in text.splitlines() if "failed with following error" in line]
    failures += [line for line in text.splitlines() if re.search(r" [WE]-\d{4} ", line)]
    assert not failures, failures


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


_OPEN: list = []  # the pages a test opened, closed after it (each playing page costs)


@pytest.fixture(autouse=True)
def _close_pages():
    yield
    while _OPEN:
        _OPEN.pop().close()


def open_app(browser, url):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    _OPEN.append(context)
    page = context.new_page()
    page.goto(url)
    page.locator(".frontier-map canvas").first.wait_for(timeout=60_000)
    return page


def open_explore(page):
    """Open the Explore card (made as it first opens) and return it."""
    explore = page.locator(".frontier-explore")
    explore.get_by_text("Explore: Δ × batch sweeps").first.click()
    explore.locator("input").first.wait_for(timeout=30_000)
    return explore


def number(page, css: str) -> int:
    # The text in the DOM, not its rendering: `inner_text` leaves out text under
    # `visibility: hidden`, which Bokeh sets on a view it is laying out; a loaded CI machine
    # once read "" here, most likely in such a moment.
    return int(page.locator(f".{css}").first.text_content().replace(",", ""))


def cursor(page) -> float:
    """Where the near/far chart's frame cursor is, read from the Bokeh document."""
    return page.evaluate(
        """() => {
            for (const doc of Bokeh.documents)
                for (const m of doc.all_models)
                    if (m.type == "Span" && m.dimension == "height") return m.location;
            return null;
        }"""
    )


def marks_per_map(page) -> list[int]:
    """How many marks (source, target) each map in the browser draws."""
    return page.evaluate(
        """() => {
            const out = [];
            for (const doc of Bokeh.documents)
                for (const m of doc.all_models)
                    if (m.type == "ColumnDataSource" && m.data.marker) out.push(m.data.x.length);
            return out;
        }"""
    )


def stats(page) -> str:
    return page.locator(".frontier-stats").first.inner_text()


def wait_for(predicate, timeout=15.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.1)


def box_of(locator) -> dict:
    """``locator``'s bounding box, once it has one: Bokeh draws a button anew when its label
    changes (Play, Pause), and a box asked for in between is None."""
    boxes = []
    wait_for(lambda: boxes.append(locator.bounding_box()) or boxes[-1] is not None)
    return boxes[-1]


def open_settings(page) -> None:
    """Open the settings drawer (the graph, search B, playback, teaching, take-away)."""
    drawer = page.locator(".frontier-settings").first
    if not drawer.is_visible():
        page.locator(".frontier-settings-toggle button").first.click()
    wait_for(drawer.is_visible)


def close_settings(page) -> None:
    drawer = page.locator(".frontier-settings").first
    if drawer.is_visible():
        page.locator(".frontier-settings-toggle button").first.click()
    wait_for(lambda: not drawer.is_visible())


def set_speed(page, fps: int, **options) -> None:
    """Choose the playback speed in the settings drawer, leaving the drawer as it was (the
    map is narrower while it is open)."""
    was_open = page.locator(".frontier-settings").first.is_visible()
    open_settings(page)
    page.locator(".frontier-fps select").first.select_option(label=f"{fps} fps", **options)
    if not was_open:
        close_settings(page)


def play_button(page):
    return page.locator(".frontier-play button").first


def scrub_to_end(page) -> None:
    """Drag the player's Frame slider past its end, as a person scrubs to the last frame."""
    slider = page.locator(".bk-Slider", has_text="Frame").first
    track = slider.locator(".noUi-target").first.bounding_box()
    box = slider.locator(".noUi-handle").first.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(track["x"] + track["width"] + 50, box["y"] + box["height"] / 2, steps=5)
    page.mouse.up()


def test_plays_pauses_and_reruns_on_a_new_delta(server, browser, tmp_path):
    page = open_app(browser, server)
    wait_for(lambda: number(page, "frontier-iteration") > 3)  # it starts moving by itself
    assert "Pause" in play_button(page).inner_text()
    play_button(page).click()
    wait_for(lambda: "Play" in play_button(page).inner_text())
    time.sleep(0.3)
    paused = number(page, "frontier-iteration")
    time.sleep(0.6)
    assert number(page, "frontier-iteration") == paused  # no queued frames arrive later
    page.locator("button", has_text="First").first.click()
    wait_for(lambda: number(page, "frontier-iteration") == 0)
    assert cursor(page) == 0
    play_button(page).click()
    wait_for(lambda: number(page, "frontier-iteration") >= 15)
    assert cursor(page) > 0
    wait_for(lambda: number(page, "frontier-near-count") > 0)
    before = stats(page)
    iterations = re.search(r"Iterations\s+([\d,]+)", before).group(1)
    delta = page.locator(".frontier-delta input").first
    delta.fill("1500")
    delta.press("Enter")
    wait_for(lambda: "Δ 1,500" in stats(page))
    after = stats(page)
    assert re.search(r"Iterations\s+([\d,]+)", after).group(1) != iterations
    page.screenshot(path=tmp_path / "dashboard.png", full_page=True)
    assert (tmp_path / "dashboard.png").stat().st_size > 10_000


def test_painting_a_frame_reads_no_computed_style(server, browser):
    """Issue 19: BokehJS no longer reads the computed style at every paint while the search
    plays (viz/visuals.js): neither a dozen CSS overrides for each chart axis, nor each
    chart's font size."""
    page = open_app(browser, server)
    start = number(page, "frontier-iteration")
    wait_for(lambda: number(page, "frontier-iteration") != start)  # playing
    time.sleep(2)  # the page's first layouts, which read the style of each box, are over
    page.evaluate(
        """() => {
            const original = window.getComputedStyle;
            window.frontier_style_reads = 0;
            window.getComputedStyle = (...args) => {
                window.frontier_style_reads++;
                return original(...args);
            };
            setTimeout(() => { window.getComputedStyle = original; }, 1000);
        }"""
    )
    shown, deadline = {number(page, "frontier-iteration")}, time.monotonic() + 1.0
    while time.monotonic() < deadline:  # the frames painted meanwhile (it plays in a loop)
        shown.add(number(page, "frontier-iteration"))
        time.sleep(0.05)
    time.sleep(0.1)
    calls = page.evaluate("() => window.frontier_style_reads")
    assert len(shown) > 3  # frames were painted meanwhile
    # ≈ 2,600 in a second here with neither of viz/visuals.js's changes, 80 with the
    # first (CSS overrides), 2 with both (the charts' font size read once a second)
    assert calls < 20, calls


def test_two_frames_arriving_together_are_each_painted(server, browser):
    """Issue 19: a frame's changes that reach the page before it has rendered the last
    frame's wait for that rendering (viz/pacing.js), so that no frame goes unpainted."""
    page = open_app(browser, server)
    wait_for(lambda: number(page, "frontier-iteration") > 0)
    play_button(page).click()  # paused: the server sends no frame of its own meanwhile
    wait_for(lambda: "Play" in play_button(page).inner_text())
    time.sleep(0.3)
    moved = page.evaluate(
        """async () => {
            const doc = Bokeh.documents[0];
            const pacer = [...doc.all_models].find((m) => m.properties?.sent != null);
            const frame = (n) => ({
                events: [{kind: "ModelChanged", model: {id: pacer.id}, attr: "sent", new: n}],
            });
            const start = pacer.sent;
            doc.apply_json_patch(frame(start + 1));
            doc.apply_json_patch(frame(start + 2)); // in the same task: no rendering between
            const at_once = pacer.sent - start;
            await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
            return [at_once, pacer.sent - start];
        }"""
    )
    assert moved == [1, 2]


def test_bad_delta_is_a_notification_and_the_run_stays(server, browser):
    page = open_app(browser, server)
    before = stats(page)
    delta = page.locator(".frontier-delta input").first
    delta.fill("0")
    delta.press("Enter")
    toast = page.locator(".notyf__toast", has_text="delta must be ≥ 1")
    toast.first.wait_for(timeout=10_000)
    assert stats(page) == before
    assert "Traceback" not in page.content()


#: Markup that runs script where it is drawn as HTML, and the same in bold.
SCRIPT = '<img src=x onerror="window.ran=1">'


@pytest.mark.parametrize(
    "query",
    [{"method": SCRIPT}, {"b_method": SCRIPT, "compare": "1"}, {"lesson": SCRIPT},
     {"graph": SCRIPT + ".gr"}, {"graph": "place:" + SCRIPT}, {"source": "<b>bold</b>"}],
    ids=["method", "b_method", "lesson", "graph", "place", "source"],
)  # fmt: skip
def test_a_hostile_link_shows_its_text_and_runs_no_script(server, browser, query):
    """Issue 50: what a link carries reaches the page as text, never as markup."""
    page = open_app(browser, f"{server}?{urlencode(query)}")
    shown = next(iter(query.values())).removeprefix("place:")
    toast = page.locator(".notyf__message", has_text=shown)
    toast.first.wait_for(timeout=15_000)
    assert page.evaluate("() => window.ran") is None
    assert page.locator('img[src="x"], .notyf__message b').count() == 0


def test_a_scripted_client_pulls_the_page(server):
    """Issue 50: `bokeh.client.pull_session` resolves the page's own models once
    `viz.client` is imported (bench/load.py's clients do so)."""
    script = (
        "import viz.client\nfrom bokeh.client import pull_session\n"
        f"with pull_session(url={server!r}) as s:\n    print(len(s.document.roots), 'roots')"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "roots" in done.stdout


def route(page) -> str:
    return re.search(r"Route\s+(.*)", stats(page)).group(1)


def test_two_sessions_each_with_their_own_source(server, browser):
    one, two = open_app(browser, server), open_app(browser, server)
    wait_for(lambda: "Route" in stats(one) and "Route" in stats(two))
    default = route(one)
    assert route(two) == default
    canvas = one.locator(".frontier-map .bk-events").first
    box = canvas.bounding_box()
    canvas.click(position={"x": box["width"] * 0.5, "y": box["height"] * 0.3})
    wait_for(lambda: route(one) != default)
    moved = route(one)
    one.wait_for_timeout(600)  # a click soon after another is BokehJS's double tap, no tap
    canvas.click(position={"x": box["width"] * 0.5, "y": box["height"] * 0.7}, modifiers=["Shift"])
    wait_for(lambda: route(one) != moved)
    assert route(two) == default  # the other session keeps its own query


def test_side_by_side_runs_in_lockstep(server, browser):
    page = open_app(browser, server)
    page.locator(".frontier-compare .bk-body").first.click()
    page.locator(".frontier-map canvas").nth(1).wait_for(timeout=30_000)
    wait_for(lambda: page.locator(".frontier-stats").count() == 2)
    texts = [page.locator(".frontier-stats").nth(k).inner_text() for k in (0, 1)]
    assert "Δ 131,072" in texts[1] and "batch 512" in texts[1]
    assert route(page) == re.search(r"Route\s+(.*)", texts[1]).group(1)  # same answer
    play_button(page).click()  # pause the autoplay, then step both together
    page.locator("button", has_text="First").first.click()
    for _ in range(3):
        page.locator("button", has_text="Step").first.click()
    iterations = page.locator(".frontier-iteration")
    wait_for(lambda: [iterations.nth(k).inner_text() for k in (0, 1)] == ["3", "3"])


def heatmap_texts(page) -> list[str]:
    """The heatmap's cell texts, read from the Bokeh document ("…" while pending)."""
    return page.evaluate(
        """() => {
            for (const doc of Bokeh.documents)
                for (const m of doc.all_models)
                    if (m.type == "ColumnDataSource" && "ink" in m.data)
                        return Array.from(m.data.text);
            return null;
        }"""
    )


def test_explore_sweep_fills_a_click_loads_it_and_downloads_work(server, browser, tmp_path):
    page = open_app(browser, server)
    explore = open_explore(page)
    explore.locator("input").nth(0).fill("x0.5,auto,x2")  # the Δ list
    explore.locator("input").nth(0).press("Enter")
    page.locator(".frontier-sweep button").first.click()
    status = page.locator(".frontier-explore-status", has_text="finished")
    status.first.wait_for(timeout=30_000)
    texts = heatmap_texts(page)
    assert len(texts) == 9 and "…" not in texts and all(t.endswith("×") for t in texts)
    assert "every distance exact" in status.first.text_content()
    canvas = page.locator(".frontier-heatmap .bk-events").first
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    canvas.click(position={"x": box["width"] * 0.9, "y": box["height"] * 0.1})  # x2, 64
    auto = engine.load_graph("helsinki").auto_delta()
    wait_for(lambda: f"Δ {2 * auto:,}" in stats(page) and "batch 64" in stats(page))
    page.wait_for_timeout(600)  # a click soon after another is BokehJS's double tap, no tap
    canvas.click(position={"x": box["width"] * 0.4, "y": box["height"] * 0.75},
                 modifiers=["Shift"])  # fmt: skip
    wait_for(lambda: page.locator(".frontier-stats").count() == 2)
    b = page.locator(".frontier-stats").nth(1)
    wait_for(lambda: re.search(rf"Δ {round(0.5 * auto):,} .* batch 1\b", b.inner_text()))
    for ext in ("csv", "json", "png"):
        with page.expect_download() as download:
            page.locator(f".frontier-download-{ext} button").first.click()
        path = tmp_path / download.value.suggested_filename
        download.value.save_as(path)
        assert path.name == f"frontier-sweep-helsinki-all.{ext}"
        data = path.read_bytes()
        assert data.startswith({"csv": b"method,", "json": b"{", "png": b"\x89PNG"}[ext])
    assert len(path.with_suffix(".csv").read_text().splitlines()) == 1 + 9 * 3


def test_a_click_at_once_after_typing_is_not_lost(server, browser):
    # The typed value and the click reach the server together, so Panel runs the click
    # outside Bokeh's document lock: the sweep's figure changes used to raise there (the
    # server fixture fails on the logged traceback) and the sweep never started.
    page = open_app(browser, server)
    explore = open_explore(page)
    for rows in (2, 3):
        deltas = ",".join(["auto", "x2", "x4"][:rows])
        page.evaluate(
            "([box, button, value]) => { box.value = value;"
            " box.dispatchEvent(new Event('change')); button.click(); }",
            [explore.locator("input").nth(0).element_handle(),
             page.locator(".frontier-sweep button").first.element_handle(), deltas],
        )  # fmt: skip
        wait_for(lambda rows=rows: len(heatmap_texts(page) or []) == 3 * rows)
        status = page.locator(".frontier-explore-status", has_text="finished")
        status.first.wait_for(timeout=30_000)


def test_a_copied_link_opens_the_same_view(server, browser, tmp_path):
    page = open_app(browser, server)
    delta = page.locator(".frontier-delta input").first
    delta.fill("9000")
    delta.press("Enter")
    wait_for(lambda: "Δ 9,000" in stats(page))
    play_button(page).click()
    wait_for(lambda: "Play" in play_button(page).inner_text())
    page.locator("button", has_text="First").first.click()
    for _ in range(4):
        page.locator("button", has_text="Step").first.click()
    wait_for(lambda: number(page, "frontier-iteration") == 4)
    wait_for(lambda: "frame=4" in page.url and "delta=9000" in page.url)
    fresh = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    fresh.goto(page.url)
    fresh.locator(".frontier-map canvas").first.wait_for(timeout=60_000)
    wait_for(lambda: "Δ 9,000" in stats(fresh))
    wait_for(lambda: number(fresh, "frontier-iteration") == 4)
    assert route(fresh) == route(page) and "Play" in play_button(fresh).inner_text()
    bad = browser.new_context().new_page()
    bad.goto(server + "?method=warp&frame=2")
    bad.locator(".notyf__toast", has_text="link: method='warp'").first.wait_for(timeout=30_000)
    open_settings(fresh)
    with fresh.expect_download() as download:
        fresh.locator(".frontier-export-gif button").first.click()
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    assert path.name == "frontier-helsinki-all-near_far-d9000-b64.gif"
    assert path.read_bytes().startswith(b"GIF89a")


def test_keyboard_steps_and_the_caption_follows(server, browser):
    page = open_app(browser, server)
    wait_for(lambda: number(page, "frontier-iteration") > 2)
    page.locator("body").click(position={"x": 700, "y": 5})  # the page, not a control
    page.keyboard.press(" ")
    wait_for(lambda: "Play" in play_button(page).inner_text())
    page.keyboard.press("Home")
    wait_for(lambda: number(page, "frontier-iteration") == 0)
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    wait_for(lambda: number(page, "frontier-iteration") == 2)
    caption = page.locator(".frontier-caption").first
    wait_for(lambda: caption.inner_text().startswith("Iteration 2:"))
    live = page.locator(".frontier-live[aria-live=polite]").first  # read to screen readers
    wait_for(lambda: (live.text_content() or "").startswith("Iteration 2:"))
    open_settings(page)
    page.locator(".frontier-describe button").first.click()
    described = page.locator(".frontier-description[role=status]").first
    wait_for(lambda: described.is_visible() and "Frame 2 of" in described.inner_text())
    delta = page.locator(".frontier-delta input").first
    auto = engine.load_graph("helsinki").auto_delta()
    assert delta.input_value().replace(",", "") == str(auto)  # the auto Δ that ran
    help_ = page.locator(".frontier-help").first
    help_.locator("button").first.click()
    page.locator(".frontier-help", has_text="space plays and pauses").first.wait_for()


def map_fill_field(page) -> str:
    """The field the map's node glyph is coloured by, read from the Bokeh document."""
    return page.evaluate(
        """() => {
            for (const doc of Bokeh.documents)
                for (const m of doc.all_models)
                    if (m.type == "Scatter" && m.fill_color &&
                        ["state", "work"].includes(m.fill_color.field))
                        return m.fill_color.field;
            return null;
        }"""
    )


def test_the_wasted_work_layer_toggles(server, browser):
    page = open_app(browser, server)
    assert map_fill_field(page) == "state"
    open_settings(page)
    page.locator(".frontier-layer button", has_text="Wasted work").first.click()
    wait_for(lambda: map_fill_field(page) == "work")
    page.locator(".frontier-legend", has_text="wasted work").first.wait_for()
    page.locator(".frontier-layer button", has_text="Node states").first.click()
    wait_for(lambda: map_fill_field(page) == "state")


def test_a_slow_load_spins_and_the_page_stays_live(server, browser):
    city = shared_path("osm", "porto_alegre.osm.pbf")
    if not city.is_file():
        pytest.skip("the shared data is not beside the project")
    page = open_app(browser, server)
    open_settings(page)
    page.locator(".frontier-settings select").first.select_option(label="File path")
    page.locator("input[placeholder='data/city.osm.pbf']").first.fill(str(city))
    page.locator("button", has_text="Load graph").first.click()
    page.locator(".pn-loading").first.wait_for(timeout=10_000)  # the Load button spins
    before = number(page, "frontier-iteration")
    wait_for(lambda: number(page, "frontier-iteration") != before, 10)  # and still plays
    wait_for(lambda: "porto_alegre" in stats(page), 120)


def map_image(page) -> dict | None:
    """The rasterised map's current image, read from the Bokeh document (a PNG ``data:`` URL)
    and decoded: its size, and how many pixels show a node (values above the road's)."""
    import base64
    import io

    import numpy as np
    from PIL import Image

    url = page.evaluate(
        """() => {
            for (const doc of Bokeh.documents)
                for (const m of doc.all_models)
                    if (m.type == "ColumnDataSource" && m.data.url && m.data.w
                            && m.data.url.length) return m.data.url[0];
            return null;
        }"""
    )
    if url is None:
        return None
    values = np.array(Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))))
    return {"shape": values.shape, "nodes": int((values > 1).sum()), "dtype": str(values.dtype)}


def test_a_200k_city_opens_by_link_plays_and_scrubs(server, browser, links_dir):
    """Issue 19: a 200,000-node synthetic city with coordinates, opened by ?graph=, is drawn
    as server-side images: the map is drawn, play advances, scrub to the last frame and
    back."""
    from engine.graphs import synthetic

    gr, _ = synthetic.write_city(links_dir / "city200k", 200_000, seed=19)
    page = open_app(browser, server + "?" + urlencode({"graph": str(gr)}))
    wait_for(lambda: "city200k" in stats(page), 120)
    wait_for(lambda: (map_image(page) or {}).get("nodes", 0) > 0, 30)
    image = map_image(page)
    assert image["dtype"] == "uint8" and max(image["shape"]) <= 1600
    start = number(page, "frontier-iteration")
    wait_for(lambda: number(page, "frontier-iteration") > start)  # playing
    # the frames are decoded off the page's main thread (viz/bitmaps.js), then drawn
    shown = page.evaluate("() => window.frontier_bitmaps ?? 0")
    wait_for(lambda: page.evaluate("() => window.frontier_bitmaps ?? 0") > shown)
    play_button(page).click()
    wait_for(lambda: "Play" in play_button(page).inner_text())
    iterations = int(re.search(r"Iterations\s+([\d,]+)", stats(page)).group(1).replace(",", ""))
    scrub_to_end(page)
    wait_for(lambda: number(page, "frontier-iteration") == iterations, 30)
    last = map_image(page)["nodes"]
    page.locator("button", has_text="First").first.click()
    wait_for(lambda: number(page, "frontier-iteration") == 0)
    wait_for(lambda: map_image(page)["nodes"] < last / 10)
    assert "Traceback" not in page.content()


def caption_font_px(page) -> float:
    """The caption's font size. It is drawn anew at every frame while playing, so it is found
    and read in one script (a located element may be gone by the time it is read)."""
    return page.evaluate(
        """() => {
            const find = (root) => {
                const hit = root.querySelector(".frontier-caption");
                if (hit) return hit;
                for (const el of root.querySelectorAll("*"))
                    if (el.shadowRoot) { const h = find(el.shadowRoot); if (h) return h; }
                return null;
            };
            const e = find(document);
            return e ? parseFloat(getComputedStyle(e).fontSize) : 0;
        }"""
    )


def test_presentation_mode_by_link_and_button_and_esc_leaves(server, browser):
    """Issue 20: ``?present=1`` keeps the map, the player and the caption, in large type,
    playing; Esc brings the settings back, and the button enters the mode again."""
    page = open_app(browser, server + "?present=1")
    settings = page.locator(".frontier-compare").first  # the search bar
    wait_for(lambda: not settings.is_visible())
    assert not page.locator(".frontier-explore").first.is_visible()
    assert not page.locator(".frontier-stats").first.is_visible()
    caption = page.locator(".frontier-caption").first
    wait_for(lambda: caption.is_visible() and caption.inner_text() != "")
    assert caption_font_px(page) >= 20
    wait_for(lambda: "Pause" in play_button(page).inner_text())  # it plays
    legend = page.locator(".frontier-legend").first  # issue 52: the colours are explained
    page.locator(".frontier-legend", has_text="settled").first.wait_for()
    assert legend.is_visible()
    page.locator("body").click(position={"x": 700, "y": 5})
    page.keyboard.press("Escape")
    wait_for(lambda: settings.is_visible())
    assert "Pause" in play_button(page).inner_text()  # leaving does not stop the show
    open_settings(page)  # the drawer is made as it first opens
    close_settings(page)
    page.locator(".frontier-present-button button").first.click()
    wait_for(lambda: not settings.is_visible())
    fps = page.locator(".frontier-fps select").first  # in the hidden drawer
    wait_for(lambda: fps.input_value() == "8 fps")  # a class can follow each iteration


@pytest.mark.parametrize("name", ["delta-small", "delta-large", "near-far-vs-delta-stepping",
                                  "batch-size"])  # fmt: skip
def test_a_lesson_opens_by_link_and_steps(server, browser, name):
    """Issue 20: ``?lesson=NAME`` opens each lesson paused at its first step; Next steps to
    its last, whose words are the runs' own."""
    from viz.lessons import LESSONS

    steps = LESSONS[name].steps
    page = open_app(browser, server + f"?lesson={name}")
    text = page.locator(".frontier-lesson-text").first
    wait_for(lambda: text.is_visible() and f"Step 1 of {len(steps)}." in text.inner_text())
    assert "Play" in play_button(page).inner_text()  # a lesson waits for the teacher
    # Each map shows the source and the target: B's, made as the lesson opened, showed
    # nothing (its first drawing reached the browser before the figure did).
    maps = 2 if steps[0].b is not None else 1
    wait_for(lambda: marks_per_map(page) == [2] * maps)
    for k in range(2, len(steps) + 1):
        page.locator(".frontier-lesson button", has_text="Next").first.click()
        wait_for(lambda k=k: f"Step {k} of {len(steps)}." in text.inner_text(), 60)
    if name == "batch-size":
        assert "Host checks: A" in text.inner_text()
    if steps[-1].b is not None:
        wait_for(lambda: page.locator(".frontier-stats").count() == 2)  # A and B side by side


def focus_ring(page) -> str:
    """The outline of the element that has the keyboard focus (style, width)."""
    return page.evaluate(
        """() => {
            let a = document.activeElement;
            while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
            const s = getComputedStyle(a);
            return s.outlineStyle + " " + s.outlineWidth;
        }"""
    )


def focused_text(page) -> str:
    """The text of the element that has the keyboard focus, through shadow roots."""
    return page.evaluate(
        """() => {
            let a = document.activeElement;
            while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
            return a ? (a.innerText || a.value || "") : "";
        }"""
    )


def test_a_keyboard_only_walk_tab_to_play_space_plays_arrows_step(server, browser):
    """Issue 20: no mouse. Tab reaches Play, space pauses and plays, arrows step; the focus
    is ringed where it is, and stays on Play when Bokeh redraws it as Pause."""
    page = open_app(browser, server)
    wait_for(lambda: "Pause" in play_button(page).inner_text())  # the page opens playing
    for _ in range(80):
        page.keyboard.press("Tab")
        if focused_text(page).strip() in ("Play", "Pause"):
            break
    else:
        raise AssertionError("Tab never reached the Play button")
    wait_for(lambda: focus_ring(page) == "solid 3px")
    page.keyboard.press(" ")
    wait_for(lambda: "Play" in play_button(page).inner_text())
    wait_for(lambda: focused_text(page).strip() == "Play")  # the redrawn button has it
    page.keyboard.press("Home")
    wait_for(lambda: number(page, "frontier-iteration") == 0)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    wait_for(lambda: number(page, "frontier-iteration") == 2)
    page.keyboard.press(" ")
    wait_for(lambda: "Pause" in play_button(page).inner_text())
    wait_for(lambda: focused_text(page).strip() == "Pause")  # given back to the redrawn button
    page.keyboard.press("Tab")
    assert focused_text(page).strip() == "Step"  # the walk goes on from Play


def _hand_made_city(folder: Path) -> Path:
    """A 6 × 6 street grid written by hand as DIMACS ``.gr`` and ``.co`` (100 m blocks near
    Helsinki, weights in metres with one slow street)."""
    side = 6
    arcs = []
    for r in range(side):
        for c in range(side):
            v = r * side + c + 1
            for u, ok in ((v + 1, c + 1 < side), (v + side, r + 1 < side)):
                if ok:
                    w = 100 + 37 * ((v * 7 + u) % 5) + (900 if v == 8 else 0)
                    arcs += [f"a {v} {u} {w}", f"a {u} {v} {w}"]
    gr = folder / "quizgrid.gr"
    gr.write_text(f"p sp {side * side} {len(arcs)}\n" + "\n".join(arcs) + "\n")
    points = [
        f"v {r * side + c + 1} {24_940_000 + 1_800 * c} {60_170_000 + 900 * r}"
        for r in range(side)
        for c in range(side)
    ]
    (folder / "quizgrid.co").write_text(f"p aux sp co {side * side}\n" + "\n".join(points) + "\n")
    return gr


def test_a_predict_question_answered_right_then_wrong(server, browser, links_dir):
    """Issue 20: on a hand-made graph, paused at a frame, Predict asks a question; the right
    option scores, a wrong one is explained, and the score counts both."""
    from viz.quiz import Quiz
    from viz.state import GraphChoice, Session

    gr = _hand_made_city(links_dir)
    expected = Session()  # the same search here: its questions are the page's
    assert expected.load_graph(GraphChoice(str(gr))) and expected.set_query(source=0)
    expected.seek(3)
    quiz = Quiz(expected)
    page = open_app(browser, server + "?" + urlencode({"graph": str(gr), "source": 1, "frame": 3}))
    wait_for(lambda: "quizgrid" in stats(page), 60)
    wait_for(lambda: number(page, "frontier-iteration") == 3)
    open_settings(page)
    box = page.locator(".frontier-quiz").first
    text = page.locator(".frontier-quiz .frontier-score").first
    for k, right in enumerate((True, False)):
        assert quiz.new()
        q = quiz.question
        box.get_by_role("button", name="Predict the next step").click()
        wait_for(lambda q=q: q.text in page.locator(".frontier-question").first.inner_text())
        choice = q.answer if right else (q.answer + 1) % len(q.options)
        box.get_by_role("button", name=q.options[choice], exact=True).click()
        box.get_by_role("button", name="Check", exact=True).click()
        verdict = "Right!" if right else "Not quite."
        wait_for(lambda v=verdict: v in page.locator(".frontier-answer").first.inner_text())
        wait_for(lambda score=f"Score: 1 of {k + 1}": score in text.inner_text())
        quiz.check(choice)
    assert "Traceback" not in page.content()


def serious_violations(page) -> list[str]:
    """axe-core's critical and serious violations on the page, one line each."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page).response["violations"]
    return [f"{v['id']}: {v['help']}" for v in found if v["impact"] in ("critical", "serious")]


@pytest.mark.parametrize("view", ["", "?present=1", "?lesson=batch-size"])
def test_axe_finds_nothing_critical_or_serious(server, browser, view):
    """Issue 20: the main page, presentation mode and a lesson pass axe-core with no
    critical or serious violation (controls are named once the page has drawn them)."""
    page = open_app(browser, server + view)
    left = serious_violations(page)
    deadline = time.monotonic() + 20
    while left and time.monotonic() < deadline:
        time.sleep(1)
        left = serious_violations(page)
    assert not left, left


def test_a_phone_has_no_sideways_scroll_and_a_tap_sets_the_source(server, browser):
    """Issue 20: at 390 × 844 on a touch screen the page is as wide as the phone, the map and
    the player fit, and tapping the map moves the source."""
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    _OPEN.append(context)
    page = context.new_page()
    page.goto(server)
    page.locator(".frontier-map canvas").first.wait_for(timeout=60_000)
    wait_for(lambda: "Route" in stats(page))
    wide = "() => document.documentElement.scrollWidth"
    wait_for(lambda: page.evaluate(wide) <= 390)
    for css in (".frontier-map", ".frontier-play button", ".frontier-present-button button"):
        box = box_of(page.locator(css).first)
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, (css, box)
    default = route(page)
    events = page.locator(".frontier-map .bk-events").first
    events.scroll_into_view_if_needed()
    box = events.bounding_box()
    events.tap(position={"x": box["width"] * 0.5, "y": box["height"] * 0.3})
    wait_for(lambda: route(page) != default)
    assert page.evaluate(wide) <= 390


def test_keys_on_the_sliders_and_typed_values_rerun_every_view(server, browser):
    """Issue 52: a key on the Δ slider's handle logged "_pending_writes should be non-None"
    and left the stats card on the old run; the server fixture fails on any such error."""
    page = open_app(browser, server)
    play_button(page).click()  # paused: a change must re-run all the same
    wait_for(lambda: "Play" in play_button(page).inner_text())
    box = page.locator(".frontier-delta input").first

    def delta_shown() -> str:
        return box.input_value().replace(",", "")

    for _ in range(2):
        before = delta_shown()
        page.locator(".frontier-delta-slider [role=slider]").first.press("ArrowRight")
        wait_for(lambda b=before: delta_shown() != b)
        wait_for(lambda: f"Δ {int(delta_shown()):,} " in stats(page))
    page.locator(".frontier-batch-slider [role=slider]").first.press("ArrowLeft")
    wait_for(lambda: "batch 32" in stats(page))
    box.fill("7777")
    box.press("Enter")
    wait_for(lambda: "Δ 7,777 " in stats(page) and "batch 32" in stats(page))
    page.locator(".frontier-batch-slider [role=slider]").first.press("ArrowRight")
    wait_for(lambda: "Δ 7,777 " in stats(page) and "batch 64" in stats(page))


#: The page's interactive controls on screen, and the share of the screen the map takes.
ON_SCREEN = """() => {
  const vw = innerWidth, vh = innerHeight, controls = [];
  let map = null;
  function shown(el) {
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2 || r.bottom <= 0 || r.top >= vh || r.right <= 0
        || r.left >= vw) return false;
    for (let n = el; n; n = n.parentElement || n.getRootNode().host) {
      const cs = getComputedStyle(n);
      if (cs.visibility === "hidden" || cs.display === "none" || +cs.opacity === 0)
        return false;
    }
    return true;
  }
  function walk(root) {
    const wanted = "button, select, input, textarea, [role=slider], .bk-switch";
    for (const el of root.querySelectorAll(wanted))
      if (el.type !== "hidden" && !el.classList.contains("bk-spin-btn") && shown(el))
        controls.push(el.textContent.trim() || el.value || el.tagName);
    for (const el of root.querySelectorAll(".frontier-map")) map = map || el;
    for (const el of root.querySelectorAll("*")) if (el.shadowRoot) walk(el.shadowRoot);
  }
  walk(document);
  const r = map.getBoundingClientRect();
  const w = Math.min(r.right, vw) - Math.max(r.left, 0);
  const h = Math.min(r.bottom, vh) - Math.max(r.top, 0);
  return {controls, map: Math.max(w, 0) * Math.max(h, 0) / (vw * vh)};
}"""

#: How much of the map's box the city fills, in width and in height (the roads' image
#: against the plot's ranges), and how many points the route on show has.
CITY_IN_BOX = """() => {
  for (const doc of Bokeh.documents)
    for (const m of doc.all_models)
      if (m.type === "Figure" && m.renderers.some(r => r.glyph && r.glyph.type === "ImageURL")) {
        const g = m.renderers.find(r => r.glyph.type === "ImageURL").glyph;
        const v = (p) => (typeof p === "object" ? p.value : p);
        const route = m.renderers.find(r => r.glyph && r.glyph.type === "Line");
        return {w: v(g.w) / (m.x_range.end - m.x_range.start),
                h: v(g.h) / (m.y_range.end - m.y_range.start),
                route: route.visible ? route.data_source.data.x.length : 0};
      }
  return null;
}"""


def test_the_map_is_the_picture(server, browser):
    """Issue 52: at 1400×900 the map covers at least half the screen with at most 12
    controls on it, the city fitted to the map's box; presentation mode at 1920×1080: the map
    at least 70 %, the legend on screen, the route of the default query drawn."""
    page = open_app(browser, server)
    wait_for(lambda: page.evaluate(CITY_IN_BOX) is not None)
    page.wait_for_timeout(1500)  # the layout settles
    seen = page.evaluate(ON_SCREEN)
    assert seen["map"] >= 0.5 and len(seen["controls"]) <= 12, seen
    city = page.evaluate(CITY_IN_BOX)
    assert max(city["w"], city["h"]) >= 0.85, city
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    _OPEN.append(context)
    shown = context.new_page()
    shown.goto(server + "?present=1&frame=100000")  # plays from the start: the route is drawn
    shown.locator(".frontier-map canvas").first.wait_for(timeout=60_000)
    leave = shown.locator(".frontier-present-button button", has_text="Leave")
    leave.first.wait_for(timeout=30_000)  # the link applied: presentation mode
    wait_for(lambda: (shown.evaluate(CITY_IN_BOX) or {}).get("route", 0) > 1, 30)
    shown.wait_for_timeout(1500)
    seen = shown.evaluate(ON_SCREEN)
    assert seen["map"] >= 0.7, seen
    shown.locator(".frontier-legend", has_text="settled").first.wait_for()


def test_a_link_to_a_frame_of_another_graph_draws_its_states(server, browser, links_dir):
    """Issue 52: a link to a frame of a graph not on show opened paused with the map's
    nodes, source and target undrawn (the new figure went out before its data)."""
    gr = _hand_made_city(links_dir)
    page = open_app(browser, server + "?" + urlencode({"graph": str(gr), "source": 1,
                                                       "target": 36, "frame": 3}))  # fmt: skip
    wait_for(lambda: "quizgrid" in stats(page), 60)
    drawn = """() => {
      const col = (m, k) => (m.data instanceof Map ? m.data.get(k) : m.data[k]);
      for (const doc of Bokeh.documents) {
        const sources = [...doc.all_models].filter(m => m.type === "ColumnDataSource");
        const nodes = sources.find(m => col(m, "state") && col(m, "state").length === 36);
        const marks = sources.find(m => col(m, "marker"));
        if (nodes && marks)
          return [Array.from(col(nodes, "state")).filter(s => s > 0).length,
                  col(marks, "x").length];
      }
      return [0, 0];
    }"""
    wait_for(lambda: page.evaluate(drawn)[0] > 1 and page.evaluate(drawn)[1] == 2)  # source, target


def test_a_link_to_another_graph_applies_every_change(server, browser, links_dir):
    """A page opened by link to another graph applies every change the server sends: the
    new map's question marks were set just after the map went out, and the page could not
    apply them ("reference ... isn't known" in its console)."""
    gr = _hand_made_city(links_dir)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    _OPEN.append(context)
    page = context.new_page()
    failed = []
    page.on("console", lambda m: failed.append(m.text) if "could not be applied" in m.text else 0)
    page.goto(server + "?" + urlencode({"graph": str(gr), "frame": 3}))
    wait_for(lambda: "quizgrid" in stats(page), 60)
    page.wait_for_timeout(1500)
    assert failed == []


def test_b_s_map_opened_by_a_link_shows_its_own_frame(server, browser):
    """Issue 52: B's map, built as a link turned the comparison on, showed the route before
    B's target settled and no threshold ring (changes made in the tick that sent it)."""
    page = open_app(browser, server + "?compare=1&b_method=delta_stepping&b_delta=4000&frame=30")
    maps = """() => {
      const col = (m, k) => (m.data instanceof Map ? m.data.get(k) : m.data[k]);
      const out = [];
      for (const m of Bokeh.documents[0].all_models)
        if (m.type === "Figure" && m.renderers.some(r => r.glyph && r.glyph.type === "Annulus")) {
          const route = m.renderers.find(r => r.glyph && r.glyph.type === "Line");
          const ring = m.renderers.find(r => r.glyph && r.glyph.type === "Annulus");
          out.push([route.visible, col(ring.data_source, "outer")[0]]);
        }
      return out;
    }"""
    wait_for(lambda: len(page.evaluate(maps)) == 2)
    wait_for(lambda: all(not route and ring > 0 for route, ring in page.evaluate(maps)))
