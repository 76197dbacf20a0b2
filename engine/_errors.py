"""Error types raised by the engine.

Every error a user can cause is a small ``ValueError`` subclass carrying a one-line message
that says what is wrong and what to do; the CLI and the dashboard show that line and nothing
else.
"""


class FrontierError(ValueError):
    """Base class of every user-facing engine error."""


class GraphNotFoundError(FrontierError):
    """A graph file or asset does not exist."""


class GraphFormatError(FrontierError):
    """A graph file is of an unknown format, empty, truncated or corrupt."""


class NegativeWeightError(FrontierError):
    """A graph has a negative edge weight: shortest paths are undefined for these methods."""


class WeightOverflowError(FrontierError):
    """A weight or a distance does not fit the integer types the engine uses."""


class NodeNotFoundError(FrontierError):
    """A source or target is not a node of the graph."""


class ParameterError(FrontierError):
    """An option (method, backend, delta, batch size, ...) has an invalid value."""


class OfflineError(FrontierError):
    """A download was asked for while the network cannot be reached."""


class BackendUnavailableError(FrontierError):
    """The GPU backend was asked for but CUDA or CuPy is not usable here."""


class GraphTooLargeError(FrontierError):
    """A graph is larger than a limit (the dashboard's) or than the memory free here."""


class GPUMemoryError(FrontierError):
    """A graph does not fit in the free memory of the GPU."""
