"""Frontier's engine: road graphs to integer CSR, and GPU/CPU shortest-path searches.

Layers, each importing only those before it (tests/test_layout.py checks it):

1. `engine._errors`, `engine._text`: the errors and the parsing of integers;
2. `engine.graphs`: the CSR graph, its file formats, loading and cache, synthetic cities;
3. the core: `engine.adaptive`, `engine.recording`, `engine.contraction`, `engine.methods`
   (the registry: which methods can record, batch, use Δ ...) and `engine._validate`;
4. `engine.backends`: the NumPy twin, the CUDA launchers and kernels;
5. `engine.search`: `sssp` and its kin, for both backends;
6. `engine.studies` (benchmarks, sweeps, many-to-many, Dask, plots) and `engine.media`
   (render, export, replay);
7. `engine.testing` (the fuzzer) and `engine.cli` (the ``frontier`` command).

The names below are the public API.
"""

from engine._errors import (
    BackendUnavailableError,
    FrontierError,
    GPUMemoryError,
    GraphFormatError,
    GraphNotFoundError,
    GraphTooLargeError,
    NegativeWeightError,
    NodeNotFoundError,
    OfflineError,
    ParameterError,
    WeightOverflowError,
)
from engine.backends.device import gpu_available
from engine.graphs.csr import CSRGraph, from_arcs
from engine.graphs.io import load_graph
from engine.methods import METHODS, Counters, Method
from engine.recording import STATE_NAMES, Recording, Snapshot
from engine.search import UNREACHABLE, SSSPResult, shortest_path_tree, sssp, stream
from engine.studies.batch import DistanceMatrix, many_to_many

__all__ = [
    "METHODS",
    "STATE_NAMES",
    "UNREACHABLE",
    "BackendUnavailableError",
    "CSRGraph",
    "Counters",
    "DistanceMatrix",
    "FrontierError",
    "GPUMemoryError",
    "GraphFormatError",
    "GraphNotFoundError",
    "GraphTooLargeError",
    "Method",
    "NegativeWeightError",
    "NodeNotFoundError",
    "OfflineError",
    "ParameterError",
    "Recording",
    "SSSPResult",
    "Snapshot",
    "WeightOverflowError",
    "from_arcs",
    "gpu_available",
    "load_graph",
    "many_to_many",
    "shortest_path_tree",
    "sssp",
    "stream",
]
