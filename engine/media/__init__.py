"""Pictures and files of recorded searches: frames drawn on the CPU (`render`), GIF, MP4, PNG
and CSV exports (`export`) and replays (`replay`).

May import: `engine.search`, the core and `engine.graphs`; never `engine.studies`,
`engine.testing` or `engine.cli`.
"""
