"""Device probes (two GPUs) behind this folder's files, run from the repository root:

    python bench/measured/2026-11-24-h200x2-dask-rerun/probe.py GRAPH clusters NAME
        bench/cluster.py's 1- and 2-worker runs only (through dask-cuda's LocalCUDACluster
        when dask-cuda is installed): run-d-dask-cuda.json
    python bench/measured/2026-11-24-h200x2-dask-rerun/probe.py GRAPH profiler
        in process, then one worker with Dask's profiler on and off, twice:
        profiler-on-off.json

Both use bench/cluster.py's default work (`random:1` weights, 2,000 matrix sources, 5 Δ × 4
batch × 20 sweep sources) and write JSON under $OUT.
"""

import json
import os
import sys

sys.path.insert(0, "bench")


def main():
    import cluster as bc
    import numpy as np

    from engine import distributed, experiments
    from engine.search import from_scipy

    graph_path, what = sys.argv[1], sys.argv[2]
    ref = distributed.GraphRef.of(graph_path, weights="random:1")
    graph = ref.load()
    sources = np.sort(experiments.seeded_sources(graph, 2000, 0))
    checked = sources[:: len(sources) // 8][:8]
    rows = from_scipy(np.atleast_2d(bc._dijkstra(graph, checked)))
    truth = dict(distributed.row_checksums(checked, rows).tolist())
    deltas = experiments.parse_deltas("x0.25,x0.5,auto,x2,x4", graph)
    queries = experiments.study_queries(graph, experiments.seeded_sources(graph, 20, 1), "sweep")
    cells = dict(methods=["near_far"], deltas=deltas, batches=[1, 16, 64, 1024], backend="gpu")

    def on_cluster(workers, profiler=True):
        with distributed.connect("local-gpu", workers=workers) as client:
            print("cluster", type(client.cluster).__name__, flush=True)
            distributed.prepare(client, ref, graph)
            if not profiler:
                print(client.run(_profiler_off), flush=True)
            return bc._on_cluster(client, ref, graph, sources, queries, cells, truth)

    if what == "clusters":
        name = sys.argv[3]
        runs = [on_cluster(1), on_cluster(2)]
        _write(f"probe-{name}.json", {"name": name, "runs": runs})
        m = [r["matrix"]["trees_per_s"] for r in runs]
        s = [r["sweep"]["searches_per_s"] for r in runs]
        print(f"RESULT {name}: matrix {m} x{m[1] / m[0]:.3f}  sweep {s} x{s[1] / s[0]:.3f}")
        return
    out = []
    for _round in range(2):
        out.append(("in process", bc._in_process(graph, sources, queries, cells, truth)))
        out += [("on", on_cluster(1)), ("off", on_cluster(1, profiler=False))]
    for name, r in out:
        s = r["sweep"]
        print(
            f"RESULT {name:10s} matrix {r['matrix']['trees_per_s']:7.1f} "
            f"sweep {s['searches_per_s']:5.1f} search_s {s['searches_s']} "
            f"scipy_s {s['scipy_s']} task_total {s.get('task_total_s')}"
        )
    _write("profile-probe.json", out)


def _profiler_off(dask_worker):
    for name in [k for k in dask_worker.periodic_callbacks if k.startswith("profile")]:
        dask_worker.periodic_callbacks.pop(name).stop()
    return sorted(dask_worker.periodic_callbacks)


def _write(name, data):
    with open(os.path.join(os.environ.get("OUT", "/tmp"), name), "w") as f:
        json.dump(data, f, indent=1)


if __name__ == "__main__":
    main()
