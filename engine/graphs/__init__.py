"""Road graphs: the integer CSR graph (`csr`), the file formats (`dimacs`, `osm`; an OSM
file's framing `pbf`, its ways as arrays `ways`, osmnx's road graph of them `roads`), loading
and the cache (`io`), seeded synthetic cities (`synthetic`) and the checks of files and sizes
(`_validate`).

May import: `engine._errors`, `engine._text`; nothing else of the engine.
"""
