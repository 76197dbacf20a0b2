"""Test helpers shipped with the engine, as ``cupy.testing`` is: the differential fuzzer
(`cases` draws its graphs and files, `fuzz` runs and checks them), the hostile inputs of
the readers (`hostile`, with the PBF writer `wire`) and the measured child process that
runs each (`measured`), and osmnx's own road graph as a reference (`osmnx_roads`).

May import anything of the engine but `engine.cli`.
"""
