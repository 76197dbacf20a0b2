"""The GPU's memory bookkeeping that needs no GPU (engine.backends.gpu_memory)."""

from types import SimpleNamespace

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from engine.backends import gpu_memory

from .graphs import property_settings


@property_settings(200)
@given(degrees=st.lists(st.integers(0, 200), min_size=1, max_size=400))
def test_lanes_follow_numpys_99th_percentile_of_the_degrees(degrees):
    """`lanes_log2` reads the percentile off the degrees' counts (decision 0110): the lanes
    NumPy's ``percentile`` gave, on any degrees."""
    g = SimpleNamespace(indptr=np.concatenate([[0], np.cumsum(degrees)]))  # all it reads
    p99 = max(int(np.percentile(degrees, 99)), 1)
    assert gpu_memory.lanes_log2(g) == min(int(np.ceil(np.log2(p99))), 5)
