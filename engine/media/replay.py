"""Replay files (``.frontier.npz``): a recorded search that reopens without running again.

One compressed ``.npz`` (no pickles) holds the graph (its CSR arrays, ids and coordinates,
so the map can be drawn), the recording (stamps, frame table, bucket bins), the distances,
and a JSON record of the run: its layout version, method, Δ, batch size, backend, device,
counters and times, and the graph's spec and loading options.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import numpy as np

from engine import adaptive
from engine._errors import FrontierError
from engine.adaptive import AdaptiveDelta
from engine.graphs._validate import file_problem
from engine.graphs.csr import graph_arrays, graph_from_arrays
from engine.graphs.io import DAMAGED, write_atomic
from engine.methods import BACKENDS, METHODS, Counters
from engine.recording import FRAME_FIELDS, Recording, frame_threshold
from engine.search import SSSPResult

#: The layout written here; a file of another layout is refused with a clear line.
FORMAT = "frontier-replay/2"
#: The layout before each frame kept its Δ and the Δ rule's inputs: read, with its one Δ.
FORMAT_1 = "frontier-replay/1"
SUFFIX = ".frontier.npz"


class ReplayError(FrontierError):
    """A replay file is corrupt, of another version, or not a replay."""


def save(result: SSSPResult, path: str | os.PathLike, *, source: dict | None = None) -> Path:
    """Write ``result`` (which must carry a recording) to ``path``; ``source`` says where
    its graph came from (spec and loading options), kept for people and links."""
    rec = result.recording
    if rec is None:
        msg = "this search was not recorded: run it with record=True to save a replay"
        raise ReplayError(msg)
    run = {
        "format": FORMAT,
        "method": result.method,
        "backend": result.backend,
        "device": result.device,
        "delta": result.delta,
        "delta_rule": None if result.adaptive is None else dataclasses.asdict(result.adaptive),
        "batch_size": result.batch_size,
        "source": result.source,
        "target": result.target,
        "counters": result.counters.as_dict(),
        "elapsed_s": result.elapsed_s,
        "setup_s": result.setup_s,
        "settled_below": result.settled_below,
        "recording_delta": rec.delta,
        "sweep_from": rec.sweep_from,
        "graph_source": source or {},
    }
    arrays = graph_arrays(result.graph, "graph.") | {
        "run": np.array(json.dumps(run)),
        "distances": result.distances,
        "reached_at": rec.reached_at,
        "near_at": rec.near_at,
        "settled_at": rec.settled_at,
        "frames": rec.frames,
        "relax_log": rec.relax_log,
    }
    if rec.buckets is not None:
        arrays["buckets"] = rec.buckets
    return write_atomic(path, lambda f: np.savez_compressed(f, **arrays))


def load(path: str | os.PathLike) -> tuple[SSSPResult, dict]:
    """The recorded result in ``path`` and where its graph came from."""
    path = Path(path)
    problem = file_problem(path)
    if problem is not None:
        msg = f"{str(path)!r} {problem}; give the path of a {SUFFIX} file"
        raise ReplayError(msg)
    try:
        with np.load(path, allow_pickle=False) as z:
            if "run" not in z:
                msg = f"{path} is not a Frontier replay (no run record); save one as FILE{SUFFIX}"
                raise ReplayError(msg)
            run = json.loads(str(z["run"]))
            if not isinstance(run, dict):
                msg = f"{path} is a corrupt replay (its run is no record); record it again"
                raise ReplayError(msg)
            if run.get("format") not in (FORMAT, FORMAT_1):
                msg = (
                    f"{path} is a replay of another Frontier version ({run.get('format')!r}, "
                    f"this one reads {FORMAT!r}); record the search again"
                )
                raise ReplayError(msg)
            graph = graph_from_arrays(z, "graph.")
            _check_run(run, graph.n_nodes, path)
            buckets = z["buckets"] if "buckets" in z else None
            rec = Recording(
                graph.n_nodes, delta=run["recording_delta"], with_buckets=buckets is not None
            )
            rec.reached_at, rec.near_at, rec.settled_at = (
                z[k].astype(np.int32) for k in ("reached_at", "near_at", "settled_at")
            )
            frames = z["frames"]
            if run["format"] == FORMAT_1:  # every frame ran with the run's one Δ
                delta = frame_threshold(run["recording_delta"])
                extra = np.zeros((len(frames), len(FRAME_FIELDS) - frames.shape[1]), np.int64)
                extra[:, 0] = delta
                frames = np.hstack([frames, extra])
            rec.append(frames, buckets)
            rec.relax_log = z["relax_log"].astype(np.int32)
            rec.by_phase = METHODS[run["method"]].recorded_by_phase
            rec.sweep_from = run.get("sweep_from")
            distances = z["distances"].astype(np.int64)
    except ReplayError:
        raise
    except DAMAGED as exc:
        msg = f"{path} is not a readable Frontier replay ({type(exc).__name__}); record it again"
        raise ReplayError(msg) from None
    sizes = {rec.reached_at.size, rec.near_at.size, rec.settled_at.size, distances.size}
    logged = int(rec.frames[-1, FRAME_FIELDS.index("relaxed_entries")]) if len(rec) else 0
    log = rec.relax_log
    bad_log = log.size != logged or (log.size and (log.min() < 0 or log.max() >= graph.n_nodes))
    if sizes != {graph.n_nodes} or rec.frames.shape[1:] != (len(FRAME_FIELDS),) or bad_log:
        msg = f"{path} is a corrupt replay (its arrays do not fit its graph); record it again"
        raise ReplayError(msg)
    result = SSSPResult(
        graph=graph,
        distances=distances,
        method=run["method"],
        backend=run["backend"],
        device=run["device"],
        delta=run["delta"],
        batch_size=run["batch_size"],
        source=run["source"],
        target=run["target"],
        counters=Counters(**run["counters"]),
        elapsed_s=run["elapsed_s"],
        setup_s=run["setup_s"],
        settled_below=run["settled_below"],
        recording=rec,
        adaptive=_rule(run.get("delta_rule"), graph),
    )
    return result, run["graph_source"]


#: The run record's fields and what each must be (JSON's types), beside the format.
_FIELDS = {
    "method": str, "backend": str, "device": str, "delta": (int, type(None)),
    "batch_size": int, "source": int, "target": (int, type(None)), "counters": dict,
    "elapsed_s": (int, float), "setup_s": (int, float), "settled_below": (int, type(None)),
    "recording_delta": (int, type(None)), "graph_source": dict,
}  # fmt: skip


def _check_run(run: dict, n_nodes: int, path: Path) -> None:
    """Refuse a run record that a search cannot have written: a missing or mistyped field,
    an unknown or unrecordable method or backend, unknown counters, a source or target
    that is not a node of the replay's graph."""

    def corrupt(what: str) -> ReplayError:
        return ReplayError(f"{path} is a corrupt replay ({what}); record it again")

    for key, kind in _FIELDS.items():
        value = run.get(key, ...)
        if isinstance(value, bool) or not isinstance(value, kind):
            raise corrupt(f"its {key} is {value!r}")
    method = METHODS.get(run["method"])
    if method is None or not method.recordable:
        raise corrupt(f"{run['method']!r} is not a recordable method")
    sweep_from = run.get("sweep_from")
    if sweep_from is not None and (type(sweep_from) is not int or not method.contracted):
        raise corrupt(f"its sweep_from is {sweep_from!r}")
    if run["backend"] not in BACKENDS[1:]:
        raise corrupt(f"backend {run['backend']!r}")
    unknown = set(run["counters"]) - set(Counters().as_dict())
    if unknown or not all(type(v) is int for v in run["counters"].values()):
        raise corrupt(f"counters {sorted(unknown) or run['counters']}")
    for key in ("source", "target"):
        if run[key] is not None and not 0 <= run[key] < n_nodes:
            raise corrupt(f"its {key} {run[key]} is not a node of its {n_nodes:,}-node graph")
    if (run["delta"] is not None and run["delta"] < 1) or run["batch_size"] < 1:
        raise corrupt(f"Δ {run['delta']}, batch size {run['batch_size']}")


def _rule(fields: dict | None, graph) -> AdaptiveDelta | None:
    """The adaptive Δ rule a replay ran with, from its fields, checked against its graph."""
    if fields is None:
        return None
    try:
        return adaptive.parse(AdaptiveDelta(**fields), graph.auto_delta(), graph.max_delta())
    except (FrontierError, TypeError):
        msg = f"this replay's Δ rule {fields!r} does not fit its graph; record it again"
        raise ReplayError(msg) from None
