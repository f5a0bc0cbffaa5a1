"""Plotly figures for the book. Depends on the rest of gendel, never the reverse.

Submodules
----------
common      colours, layout defaults and the renderer used in the executed book
maps        heatmaps of density ratios over the plane
synthetic   the figures of the chapter on MoG-8 and CKB-8 (§5.1, Appendix D) and its grids
"""

from .common import COLORS, configure_renderer, markdown_table

__all__ = ["COLORS", "configure_renderer", "markdown_table"]
