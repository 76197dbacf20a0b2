"""Throughput of a sweep and of a distance matrix on Dask: one GPU against every GPU here.

    python bench/cluster.py GRAPH [--weights random:1] [--gpus 1,2] [--method near_far]
        [--out FILE.json]

Each run starts a `local-gpu` cluster of K workers (one per GPU), loads the graph on every
worker, warms each up (kernels compiled, graph uploaded; the matrix once before the one
timed, so that its memory is the GPU's pool's), then times

* a matrix: ``--matrix-sources`` seeded sources to every node, by ``--method`` (a batched
  kernel: ``near_far``, or ``phast``, whose tasks take 1,024 sources); each chunk
  is reduced on its worker's GPU to one checksum per row (`row_checksums`), so the 8 bytes ×
  sources × nodes never travel; rows of ``--check`` sources are checked against SciPy;
* a sweep: ``--deltas`` × ``--batches`` × ``--sweep-sources`` Near-Far searches, each checked
  against SciPy's Dijkstra on its worker (the rows' ``exact``).

The same work also runs in this process without Dask (GPU 0), and Dask's task stream gives
each task's compute time, so the JSON says where the time went: tasks, their spread over
the workers, and what is left (scheduling, transfers).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np

from engine.backends import device as _backend
from engine.search import from_scipy
from engine.studies import batch, distributed, experiments


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graph")
    parser.add_argument("--weights", default="random:1")
    parser.add_argument("--gpus", default="1,2")
    parser.add_argument("--matrix-sources", type=int, default=2000)
    parser.add_argument("--sweep-sources", type=int, default=20)
    parser.add_argument("--method", default="near_far", help="the matrix's method")
    parser.add_argument("--deltas", default="x0.25,x0.5,auto,x2,x4")
    parser.add_argument("--batches", default="1,16,64,1024")
    parser.add_argument("--check", type=int, default=8)
    parser.add_argument("--out")
    args = parser.parse_args()

    ref = distributed.GraphRef.of(args.graph, weights=args.weights)
    graph = ref.load()
    sources = np.sort(experiments.seeded_sources(graph, args.matrix_sources, 0))
    checked = sources[:: max(1, len(sources) // args.check)][: args.check]
    scipy_rows = from_scipy(np.atleast_2d(_dijkstra(graph, checked)))
    truth = dict(distributed.row_checksums(checked, scipy_rows).tolist())
    deltas = experiments.parse_deltas(args.deltas, graph)
    batches = experiments.parse_batches(args.batches)
    queries = experiments.study_queries(
        graph, experiments.seeded_sources(graph, args.sweep_sources, 1), "sweep"
    )
    cells = dict(methods=["near_far"], deltas=deltas, batches=batches, backend="gpu")
    method = args.method
    report = {
        "graph": graph.name, "nodes": graph.n_nodes, "arcs": graph.n_arcs,
        "weights": graph.weight_kind, "device": _backend.device_name("gpu"),
        "gpus_here": _backend.gpu_count(), "matrix_sources": len(sources),
        "sweep": {"sources": args.sweep_sources, "deltas": experiments.delta_values(deltas),
                  "batches": batches, "searches": len(queries) * len(deltas) * len(batches)},
        "runs": [],
    }  # fmt: skip
    _say(f"{graph.name}: {graph.n_nodes:,} nodes on {report['device']} × {report['gpus_here']}")
    report["matrix_method"] = method
    report["runs"].append(_in_process(graph, sources, queries, cells, truth, method))
    for k in (int(g) for g in args.gpus.split(",")):
        with distributed.connect("local-gpu", workers=k) as client:
            distributed.prepare(client, ref, graph)
            report["runs"].append(
                _on_cluster(client, ref, graph, sources, queries, cells, truth, method)
            )
    single = next(r for r in report["runs"] if r["where"] == "1 worker")
    for run in report["runs"]:
        run["matrix"]["x_one_worker"] = round(
            run["matrix"]["trees_per_s"] / single["matrix"]["trees_per_s"], 2
        )
        run["sweep"]["x_one_worker"] = round(
            run["sweep"]["searches_per_s"] / single["sweep"]["searches_per_s"], 2
        )
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


def _dijkstra(graph, rows):
    from scipy.sparse.csgraph import dijkstra

    return dijkstra(graph.scipy_matrix(), indices=rows)


def _in_process(graph, sources, queries, cells, truth, method) -> dict:
    cp = _backend.cupy()
    warm = batch.many_to_many(graph, sources[:4], keep_on_gpu=True, method=method)  # compiled
    distributed.row_checksums(sources[:4], warm.dist)  # and CuPy's reductions, as on a worker
    del warm
    experiments.run_cells(graph, queries[:1], on_row=lambda _r: None, **cells)
    task = 250  # the size of a two-worker cluster's tasks for 2,000 sources
    if method == "phast":  # as distributed.many_to_many sizes them: a GPU filled
        from engine.backends.gpu_phast import FILL

        task = FILL
    for _ in range(2):  # the first warms the memory for chunks of this size
        start = time.perf_counter()
        sums = {}
        for lo in range(0, len(sources), task):
            block = sources[lo : lo + task]
            m = batch.many_to_many(graph, block, keep_on_gpu=True, method=method)
            sums.update(distributed.row_checksums(block, m.dist).tolist())
            del m
        matrix_s = time.perf_counter() - start
    cp.get_default_memory_pool().free_all_blocks()
    rows = []
    start = time.perf_counter()
    experiments.run_cells(graph, queries, on_row=rows.append, **cells)
    sweep_s = time.perf_counter() - start
    run = {
        "where": "in process, no Dask",
        "matrix": _matrix_figures(sources, sums, truth, matrix_s),
        "sweep": _sweep_figures(rows, sweep_s),
    }
    _say(f"{run['where']}: {run['matrix']} {run['sweep']}")
    return run


def _on_cluster(client, ref, graph, sources, queries, cells, truth, method) -> dict:
    from distributed import get_task_stream

    workers = len(client.scheduler_info()["workers"])
    warm = sources[: 2 * workers]
    distributed.many_to_many(client, ref, graph, warm, reduce=distributed.row_checksums,
                             rows_per_task=2, method=method)  # fmt: skip
    distributed.run_cells(client, ref, graph, queries[:workers], on_row=lambda _r: None, **cells)
    for _ in range(2):  # the first warms the workers' memory for tasks of this size
        sums = {}
        with get_task_stream(client) as stream:
            start = time.perf_counter()
            m = distributed.many_to_many(
                client, ref, graph, sources, reduce=distributed.row_checksums,
                on_chunk=lambda _rows, s, sums=sums: sums.update(s.tolist()), method=method,
            )  # fmt: skip
            matrix_s = time.perf_counter() - start
    matrix_tasks = _tasks(stream.data)
    rows = []
    with get_task_stream(client) as stream:
        start = time.perf_counter()
        distributed.run_cells(client, ref, graph, queries, on_row=rows.append, **cells)
        sweep_s = time.perf_counter() - start
    devices = sorted({w["device"] for w in distributed.describe_workers(client)})
    cpus = sorted(len(c) for c in client.run(os.sched_getaffinity, 0).values())
    run = {
        "where": f"{workers} worker" + ("s" if workers > 1 else ""),
        "devices": devices,
        "cpus_per_worker": cpus,
        "matrix": _matrix_figures(sources, sums, truth, matrix_s) | {"tasks": m.chunks}
        | _spread(matrix_tasks, workers, matrix_s),
        "sweep": _sweep_figures(rows, sweep_s) | _spread(_tasks(stream.data), workers, sweep_s),
    }  # fmt: skip
    _say(f"{run['where']}: {run['matrix']} {run['sweep']}")
    return run


def _matrix_figures(sources, sums, truth, seconds) -> dict:
    assert len(sums) == len(sources), "a matrix row is missing"
    checked = all(sums[s] == want for s, want in truth.items())
    return {
        "seconds": round(seconds, 3),
        "trees_per_s": round(len(sources) / seconds, 1),
        "checked_rows": len(truth),
        "checked_exact": checked,
        "checksum_of_checksums": int(np.bitwise_xor.reduce(np.array(list(sums.values()),
                                                                     dtype=np.uint64))),
    }  # fmt: skip


def _sweep_figures(rows, seconds) -> dict:
    return {
        "seconds": round(seconds, 3),
        "searches": len(rows),
        "searches_per_s": round(len(rows) / seconds, 1),
        "all_exact": all(r["exact"] for r in rows),
        "median_search_ms": statistics.median(r["time_ms"] for r in rows),
        "searches_s": round(sum(r["time_ms"] for r in rows) / 1e3, 3),
        "scipy_s": round(sum({r["source"]: r["dijkstra_ms"] for r in rows}.values()) / 1e3, 3),
    }


def _tasks(data: list[dict]) -> list[tuple[str, float]]:
    """(worker, compute seconds) of each task the stream saw."""
    out = []
    for task in data:
        compute = sum(s["stop"] - s["start"] for s in task["startstops"]
                      if s["action"] == "compute")  # fmt: skip
        out.append((task["worker"], compute))
    return out


def _spread(tasks, workers: int, wall: float) -> dict:
    per_worker: dict[str, float] = {}
    for worker, seconds in tasks:
        per_worker[worker] = per_worker.get(worker, 0.0) + seconds
    busiest = max(per_worker.values(), default=0.0)
    times = [s for _w, s in tasks]
    return {
        "task_median_s": round(statistics.median(times), 4) if times else None,
        "task_total_s": round(sum(times), 3),
        "busiest_worker_s": round(busiest, 3),
        "balance": round(sum(times) / (workers * busiest), 3) if busiest else None,
        "wall_minus_busiest_s": round(wall - busiest, 3),
    }


def _say(line: str) -> None:
    print(line, flush=True)


if __name__ == "__main__":
    main()
