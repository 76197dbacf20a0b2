import importlib.util
import os

import pytest

import engine

# The dashboard's tests need Panel; machines with the engine alone (the GPU device) skip them.
collect_ignore_glob = [] if importlib.util.find_spec("panel") else ["test_viz_*.py"]


@pytest.fixture(autouse=True, scope="session")
def _isolated(tmp_path_factory):
    """Tests never touch the network, and cache graphs in a throwaway folder."""
    os.environ["FRONTIER_OFFLINE"] = "1"
    os.environ["FRONTIER_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))
    yield


@pytest.fixture(autouse=True)
def _cache_written():
    """A test's cache files written behind are written before the next test begins."""
    yield
    engine.graphs.io.cache_written()


def pytest_collection_modifyitems(config, items):
    if engine.gpu_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU and CuPy")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


BACKENDS = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]


@pytest.fixture(params=BACKENDS)
def backend(request):
    return request.param


@pytest.fixture
def session():
    """A dashboard session on the embedded city, its default search run."""
    from viz.state import GraphChoice, Session

    s = Session()
    assert s.load_graph(GraphChoice()), s.error
    return s
