"""Per-frame server cost on the 1M city at 1600x1000: states, ranks and image (the old path)
against `Rasterizer.states_image` (node states on the GPU where one is), then the PNG; and
three frames of the GPU map against Datashader's. Run from the project root."""

import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, os.getcwd())
FOLDER = Path("/tmp/prof")
os.environ["FRONTIER_CACHE_DIR"] = str(FOLDER / "cache")
os.environ["FRONTIER_OFFLINE"] = "1"
os.environ["FRONTIER_DATA_DIRS"] = str(FOLDER)


def timed(times: list, action):
    start = time.perf_counter()
    out = action()
    times.append(time.perf_counter() - start)
    return out


def main() -> None:
    from engine import synthetic
    from viz import raster, state

    FOLDER.mkdir(exist_ok=True)
    gr = FOLDER / "city1m.gr"
    if not gr.exists():
        synthetic.write_city(FOLDER / "city1m", 1_000_000, seed=19)
    choice = state.GraphChoice(str(gr), weights="file")
    loaded = state.load(choice)
    session = state.Session()
    assert session.load_graph(choice), session.error
    run = session.runs[0]
    rec = run.result.recording
    geo = loaded.geometry
    r = raster.Rasterizer(geo.x, geo.y, geo.segments, nodes=geo.gpu_nodes)
    print("gpu map:", geo.gpu_nodes is not None, "frames:", run.n_frames)
    (x0, x1), (y0, y1) = geo.bounds()
    r.set_viewport(raster.Viewport(x0, x1, y0, y1, 1600, 1000))
    frames = [int(f) for f in np.random.default_rng(0).integers(0, run.n_frames, 40)]
    times = {k: [] for k in ("old: states+ranks+image", "states_image", "png")}
    colors = ["#00000000", "#888888", "#ff0000", "#00ff00", "#0000ff"]
    r.states_image(rec, 0)
    for f in frames:
        ranks = lambda: r.image(raster.STATE_RANK[rec.states(f)])  # noqa: B023, E731
        old = timed(times["old: states+ranks+image"], ranks)
        new = timed(times["states_image"], lambda: r.states_image(rec, f))  # noqa: B023
        assert np.array_equal(old, new), f
        timed(times["png"], lambda: raster.png(new, colors))  # noqa: B023
    for k, v in times.items():
        print(f"{k}: median {1000 * statistics.median(v):.1f} ms")
    cpu = raster.Rasterizer(geo.x, geo.y, geo.segments)
    cpu.set_viewport(r.viewport)
    for f in frames[:3]:
        want = cpu.image(raster.STATE_RANK[rec.states(f)])
        same = np.array_equal(r.states_image(rec, f), want)
        print("frame", f, "GPU equals Datashader:", same, "node pixels", int((want > 1).sum()))


if __name__ == "__main__":
    main()
