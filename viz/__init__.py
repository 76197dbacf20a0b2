"""Frontier's dashboard: `panel serve viz/app.py`."""
