"""Integers read from text, one way for every option, link and file: ASCII digits only.

``str.isdigit`` accepts ``²`` and ``①``, which ``int`` refuses, and ``int`` accepts ``٢``,
``1_000`` and ``+5``; neither is what a user means by a number here. Imports nothing of the
engine.
"""

from __future__ import annotations


def ascii_int(text, *, signed: bool = False) -> int | None:
    """The integer that ``text`` spells in ASCII digits (after a ``-`` when ``signed``),
    surrounding spaces allowed; None for any other text."""
    if not isinstance(text, str):
        return None
    text = text.strip()
    body = text[1:] if signed and text.startswith("-") else text
    if body.isascii() and body.isdigit():
        return int(text)
    return None
