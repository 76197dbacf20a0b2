"""Road graphs: the integer CSR graph (`csr`), the file formats (`dimacs`, `osm`), loading and
the cache (`io`), seeded synthetic cities (`synthetic`) and the checks of files and sizes
(`_validate`).

May import: `engine._errors`, `engine._text`; nothing else of the engine.
"""
