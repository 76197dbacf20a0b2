"""Frontier's engine: road graphs to integer CSR, and GPU/CPU shortest-path searches."""

from ._backend import gpu_available
from ._errors import (
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
from .batch import DistanceMatrix, many_to_many
from .graph import CSRGraph, from_arcs
from .io import load_graph
from .methods import METHODS, Counters, Method
from .recording import STATE_NAMES, Recording, Snapshot
from .search import UNREACHABLE, SSSPResult, shortest_path_tree, sssp, stream

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
