"""Studies of many searches: benchmarks (`bench`), sweeps and rank studies (`experiments`),
many-to-many distance matrices (`batch`), Dask clusters (`distributed`) and their plots
(`plots`).

May import: `engine.search`, the core, `engine.backends` and `engine.graphs`; never
`engine.media`, `engine.testing` or `engine.cli`.
"""
