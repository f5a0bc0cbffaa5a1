"""Plotly figures for the book. Depends on the rest of gendel, never the reverse.

Submodules
----------
common      colours, layout defaults, Markdown tables and the renderer of the executed book
maps        heatmaps of density ratios over the plane
framework   Alg. 1 at work and grids of ratio maps (chapters on §2 and §3.1)
synthetic   the figures of the chapter on MoG-8 and CKB-8 (§5.1, Appendix D)
deletion_test  the deletion test as a decision: null and alternative, power, ROC, p-values
theory      both-sides figures and verdict tables of the "Theory, checked" part
"""

from gendel.plotting.common import COLORS, configure_renderer, markdown_table

__all__ = ["COLORS", "configure_renderer", "markdown_table"]
