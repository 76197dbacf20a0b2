"""The page's own Bokeh models, for scripted clients of a served dashboard.

A ``bokeh.client.pull_session`` of ``viz/app.py`` receives the page's custom components,
which Panel defines as Bokeh models only where their classes are defined; a client that
has not imported them fails with ``DeserializationError: can't resolve type``. Import
this module first (``bench/load.py`` does)::

    import viz.client  # noqa: F401
    from bokeh.client import pull_session
"""

from viz.access import Accessible, PhoneViewport
from viz.controls import Keys, Pacer

__all__ = ["Accessible", "Keys", "Pacer", "PhoneViewport"]
