"""Pictures of studies (matplotlib, imported only here): sweep heatmaps and rank plots.

Each function takes the rows of a study's CSV (strings, as `experiments.read_rows` gives
them), its metadata and an open binary file, and writes one PNG.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable
from typing import BinaryIO

import numpy as np


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _title(meta: dict, what: str) -> str:
    if meta.get("source") is not None:  # one query, from the dashboard
        queries = f"source {meta['source']}"
        if meta.get("target") is not None:
            queries += f" → target {meta['target']}"
    else:
        queries = f"{meta['sources']} sources, seed {meta['seed']}"
    return (
        f"{what}: {meta['graph']} ({meta['nodes']:,} nodes, weights {meta['weights']}), "
        f"{queries}, on {meta['device']}"
    )


#: The Δ of an adaptive cell in a sweep's keys: after every fixed Δ.
ADAPTIVE = float("inf")


def _method_delta_batch(row: dict) -> tuple:
    if row["delta_spec"].startswith("adaptive"):
        delta = ADAPTIVE
    else:
        delta = int(row["delta"]) if row["delta"] else 0
    return row["method"], delta, int(row["batch"])


def _delta_label(delta) -> str:
    return "adaptive" if delta == ADAPTIVE else f"{delta:,}" if delta else "∞"


def ink(r: float, g: float, b: float) -> str:
    """Black or white text, whichever reads on a cell of colour (r, g, b) in 0..1."""
    return "black" if 0.3 * r + 0.6 * g + 0.1 * b > 0.5 else "white"


def cell_medians(
    rows: list[dict], key: Callable[[dict], tuple] = _method_delta_batch
) -> dict[tuple, dict[str, float]]:
    """Median time, speed-up over Dijkstra and relative efficiency (Dijkstra's arcs ÷ ours)
    of the rows of each cell, with their spread over the cell's searches (``time_ms_lo`` and
    ``time_ms_hi``: the least and the most; likewise for the others) and the number of
    searches ``n``; cells are (method, Δ, batch) unless ``key`` says otherwise."""
    cells: dict[tuple, list[dict]] = defaultdict(list)
    for row in rows:
        cells[key(row)].append(row)
    out = {}
    for key, group in cells.items():
        per_search = {
            "time_ms": [float(r["time_ms"]) for r in group],
            "speedup": [_ratio(float(r["dijkstra_ms"]), float(r["time_ms"])) for r in group],
            "efficiency": [
                _ratio(int(r["dijkstra_edges"]), int(r["edges_relaxed"])) for r in group
            ],
        }
        time_ms = statistics.median(per_search["time_ms"])
        dijkstra_ms = statistics.median(float(r["dijkstra_ms"]) for r in group)
        edges = statistics.median(int(r["edges_relaxed"]) for r in group)
        reference = statistics.median(int(r["dijkstra_edges"]) for r in group)
        cell = {
            "time_ms": time_ms,
            "speedup": _ratio(dijkstra_ms, time_ms),
            "efficiency": _ratio(reference, edges),
            "n": len(group),
        }
        for name, values in per_search.items():
            cell[f"{name}_lo"], cell[f"{name}_hi"] = min(values), max(values)
        out[key] = cell
    return out


def _ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def spread_text(cell: dict[str, float], metric: str, fmt: str) -> str:
    """A cell's median in ``fmt`` and, under it, the range of its searches where it has
    several that differ (``0.56×`` over ``0.41–0.70``)."""
    text = fmt.format(cell[metric])
    lo, hi = fmt.format(cell[f"{metric}_lo"]), fmt.format(cell[f"{metric}_hi"])
    return text if cell["n"] < 2 or lo == hi else f"{text}\n{lo}–{hi}"


def sweep_png(rows: list[dict], meta: dict, out: BinaryIO) -> None:
    """One row of heatmaps per method over Δ × batch: median time, speed-up over Dijkstra
    and relative efficiency, each cell's median and the range of its searches written in it,
    a colour bar each, the fastest cell (by median time) outlined."""
    plt = _pyplot()
    medians = cell_medians(rows)
    methods = sorted({k[0] for k in medians})
    fig, axes = plt.subplots(len(methods), 3, figsize=(15, 3.8 * len(methods) + 0.8), squeeze=False)
    panels = (
        ("time_ms", "median time (ms)", "viridis_r", "{:.3g}"),
        ("speedup", "speed-up over Dijkstra (×)", "viridis", "{:.2f}"),
        ("efficiency", "relative efficiency (Dijkstra's arcs ÷ ours)", "viridis", "{:.2f}"),
    )
    for row_axes, method in zip(axes, methods, strict=True):
        keys = [k for k in medians if k[0] == method]
        deltas = sorted({k[1] for k in keys})
        batches = sorted({k[2] for k in keys})
        best = min(keys, key=lambda k: medians[k]["time_ms"])
        for ax, (field, label, cmap, fmt) in zip(row_axes, panels, strict=True):
            grid = np.full((len(deltas), len(batches)), np.nan)
            for k in keys:
                grid[deltas.index(k[1]), batches.index(k[2])] = medians[k][field]
            texts = {(deltas.index(k[1]), batches.index(k[2])): spread_text(medians[k], field, fmt)
                     for k in keys}  # fmt: skip
            image = ax.imshow(grid, cmap=cmap, aspect="auto", origin="lower")
            fig.colorbar(image, ax=ax, shrink=0.85)
            for i in range(len(deltas)):
                for j in range(len(batches)):
                    if not np.isnan(grid[i, j]):
                        r, g, b, _ = image.cmap(image.norm(grid[i, j]))
                        ax.text(j, i, texts[i, j], ha="center", va="center", fontsize=8,
                                color=ink(r, g, b))  # fmt: skip
            i, j = deltas.index(best[1]), batches.index(best[2])
            ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, lw=2.5, ec="red"))
            ax.set_xticks(range(len(batches)), [str(b) for b in batches])
            ax.set_yticks(range(len(deltas)), [_delta_label(d) for d in deltas])
            ax.set_xlabel("batch size (log steps)")
            ax.set_ylabel("Δ (log steps)")
            ax.set_title(f"{method}: {label}", fontsize=10)
    fig.suptitle(_title(meta, "Δ × batch sweep") + " — red: fastest cell", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, format="png", dpi=110)
    plt.close(fig)


def ranks_png(rows: list[dict], meta: dict, out: BinaryIO) -> None:
    """Speed-up over Dijkstra per Dijkstra rank, one line per Δ with its quartile band, and
    relative efficiency per rank."""
    plt = _pyplot()
    series: dict[tuple, dict[int, list[tuple[float, float]]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for row in rows:
        label = (row["method"], row["delta_spec"], int(row["batch"]))
        time_ms = float(row["time_ms"])
        speedup = _ratio(float(row["dijkstra_ms"]), time_ms)
        efficiency = _ratio(int(row["dijkstra_edges"]), int(row["edges_relaxed"]))
        series[label][int(row["rank"])].append((speedup, efficiency))
    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 5))
    for label, by_rank in sorted(series.items()):
        ranks = sorted(by_rank)
        speed = [np.percentile([v[0] for v in by_rank[r]], (25, 50, 75)) for r in ranks]
        eff = [np.median([v[1] for v in by_rank[r]]) for r in ranks]
        name = f"{label[0]} Δ={label[1]} batch {label[2]}"
        (line,) = left.plot(ranks, [s[1] for s in speed], marker="o", ms=3, label=name)
        left.fill_between(ranks, [s[0] for s in speed], [s[2] for s in speed],
                          color=line.get_color(), alpha=0.15)  # fmt: skip
        right.plot(ranks, eff, marker="o", ms=3, color=line.get_color(), label=name)
    for ax, what in ((left, "speed-up over Dijkstra (×), median and quartiles"),
                     (right, "relative efficiency (Dijkstra's arcs ÷ ours), median")):  # fmt: skip
        ax.set_xlabel("Dijkstra rank r (target settled 2^r-th)")
        ax.set_ylabel(what)
        ax.set_yscale("log")
        ax.grid(alpha=0.3)
    left.axhline(1.0, color="grey", lw=0.8)
    left.legend(fontsize=7)
    fig.suptitle(_title(meta, "Dijkstra-rank study"), fontsize=10)
    fig.tight_layout()
    fig.savefig(out, format="png", dpi=110)
    plt.close(fig)
