"""Test helpers shipped with the engine, as ``cupy.testing`` is: the differential fuzzer
(`fuzz`).

May import anything of the engine but `engine.cli`.
"""
