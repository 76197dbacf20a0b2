"""Colours and number formats shared by the views."""

from __future__ import annotations

import re
from pathlib import Path

from engine.media.render import ATTRIBUTION, COLORS

__all__ = ["ATTRIBUTION", "COLORS"]

#: Node colours by state code (unreached is transparent: the roads show through); the
#: exported pictures use the same (`engine.media.render.COLORS`).
#: A colour that draws nothing (fully transparent).
CLEAR = "#00000000"
STATE_COLORS = (CLEAR, COLORS["far"], COLORS["near"], COLORS["settled"])
FAR, NEAR, SETTLED = STATE_COLORS[1:]
ROAD = COLORS["road"]
SOURCE = COLORS["source"]
TARGET = COLORS["target"]
ROUTE = COLORS["source"]
RING = COLORS["source"]
#: The wasted-work layer: nodes by how many times their arcs were relaxed (0: transparent;
#: once is the work Dijkstra does; every further time is wasted), the last for 4 or more.
#: "Once" is a light violet: the light blue it was came close to the far state's sky blue.
WORK_COLORS = (CLEAR, "#c9b8e8", "#fdd835", "#fb8c00", "#b71c1c")


#: Presentation mode's type, for a projector (issue 20 asks ≥ 20 px), and a style sheet
#: that gives it to the player's widgets.
PRESENT_PX = 24
PRESENT_CSS = f"""
:host, .bk-btn, .bk-input, select, label {{ font-size: {PRESENT_PX}px !important; }}
.bk-btn {{ height: auto !important; padding: 6px 14px !important; }}
"""


def weight_text(value: int, kind: str) -> str:
    """A distance in the graph's integer units as words (``1.36 km``, ``2 min 58 s``)."""
    if kind == "length":
        metres = value / 100
        return f"{metres / 1000:.2f} km" if metres >= 1000 else f"{metres:.0f} m"
    if kind == "travel_time":
        seconds = round(value / 1000)
        return f"{seconds // 60} min {seconds % 60} s" if seconds >= 60 else f"{seconds} s"
    return f"{value:,}"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 10 else f"{seconds:.1f} s"


def file_stem(graph_name: str) -> str:
    """A graph's name as a safe part of a file name (``helsinki (all)`` → ``helsinki-all``)."""
    stem = Path(graph_name).name.split(".")[0]
    return re.sub(r"[^A-Za-z0-9_]+", "-", stem).strip("-") or "graph"


def counted(count: int, one: str, many: str | None = None) -> str:
    """``count`` with its noun, singular for one: "1 phase", "83 iterations"."""
    return f"{count:,} {one if count == 1 else (many or one + 's')}"


#: A row of controls (a Panel `FlexBox`, whose flex container is its ``#flexbox`` element)
#: that stays one row on a screen and wraps on a phone.
ONE_ROW_CSS = """
div[id^="flexbox"] { flex-wrap: nowrap !important; }
@media (max-width: 700px) { div[id^="flexbox"] { flex-wrap: wrap !important; } }
"""
