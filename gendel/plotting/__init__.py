"""Plotly figures for the book. Depends on the rest of gendel, never the reverse.

Submodules
----------
common      colours, layout defaults and the renderer used in the executed book
maps        heatmaps of density ratios over the plane
"""

from .common import COLORS, configure_renderer

__all__ = ["COLORS", "configure_renderer"]
