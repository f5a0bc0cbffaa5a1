"""Figures and verdict tables for the "Theory, checked" pages.

Every theorem is shown the same way: the left side of the inequality (what is measured, solid
lines with markers, a band for its spread over repeats) against the right side (the bound,
dashed lines), plotted against N, N', m or delta.
"""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from gendel.claims.base import verdict as _verdict
from gendel.plotting.common import NEUTRALS, plotly_text, readable_figure, rgba

#: Colours for curves that are not one of the three models (greys, purples, dark reds).
PALETTE = NEUTRALS


_rgba = rgba


def add_measured(fig, x, y, *, name, colour, band=None, row=None, col=None, showlegend=True, mode="lines+markers"):
    """A measured quantity (a side of an inequality): solid line with markers, optional (lo, hi) band.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> from gendel.plotting.theory import PALETTE, add_measured
    >>> fig = add_measured(go.Figure(), [10, 100, 1000], [0.3, 0.1, 0.03], name="|ρ̂ − ρ|", colour=PALETTE[0],
    ...                    band=([0.2, 0.08, 0.02], [0.4, 0.12, 0.04]))
    >>> [(trace.name, trace.fill) for trace in fig.data]      # the band first, then the line
    [(None, 'toself'), ('|ρ̂ − ρ|', None)]
    """
    x = np.asarray(x, dtype=float)
    kw = dict(row=row, col=col) if row is not None else {}
    if band is not None:
        lo, hi = (np.asarray(b, dtype=float) for b in band)
        fig.add_trace(go.Scatter(x=np.concatenate([x, x[::-1]]), y=np.concatenate([hi, lo[::-1]]), fill="toself",
                                 mode="lines", fillcolor=_rgba(colour, 0.18), line=dict(width=0), hoverinfo="skip",
                                 showlegend=False, legendgroup=name), **kw)
    name = plotly_text(name)
    fig.add_trace(go.Scatter(x=x, y=np.asarray(y, dtype=float), mode=mode, name=name, legendgroup=name,
                             showlegend=showlegend, line=dict(color=colour, width=2), marker=dict(size=6)), **kw)
    return readable_figure(fig)


def add_bound(fig, x, y, *, name, colour, dash="dash", row=None, col=None, showlegend=True, width=2, opacity=1.0):
    """A bound (the right side of an inequality): dashed line.

    A wide, translucent solid line (``width=8, opacity=0.35, dash="solid"``) shows a reference
    level that other curves may lie on without hiding it.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> from gendel.plotting.theory import PALETTE, add_bound
    >>> fig = add_bound(go.Figure(), [10, 100, 1000], [1.0, 0.32, 0.1], name="bound", colour=PALETTE[1])
    >>> fig.data[0].line.dash
    'dash'
    >>> add_bound(fig, [1, 2], [3, 3], name="cap", colour=PALETTE[4], dash="solid", width=8, opacity=0.35).data[1].opacity
    0.35
    """
    kw = dict(row=row, col=col) if row is not None else {}
    name = plotly_text(name)
    fig.add_trace(go.Scatter(x=np.asarray(x, dtype=float), y=np.asarray(y, dtype=float), mode="lines", name=name,
                             legendgroup=name, showlegend=showlegend, opacity=opacity,
                             line=dict(color=colour, width=width, dash=dash)), **kw)
    return readable_figure(fig)


def figure(title, *, rows=1, cols=1, subplot_titles=None, height=430, width=None, **kwargs):
    """A figure (with subplots) in the book's style: title, legend below the plot.

    Examples
    --------
    >>> from gendel.plotting.theory import figure
    >>> fig = figure("Theorem 1", cols=2, subplot_titles=("N' = 10", "N' = 100"))
    >>> fig.layout.title.text, [a.text for a in fig.layout.annotations]
    ('Theorem 1', ["N' = 10", "N' = 100"])
    """
    if subplot_titles is not None:
        subplot_titles = [plotly_text(t) for t in subplot_titles]
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=subplot_titles, **kwargs)
    # the title hangs from the top of the figure, so that a title of several lines grows into the top
    # margin and never onto the subplot titles just above the plot area
    fig.update_layout(title=dict(text=plotly_text(title), x=0.01, xanchor="left", y=1, yref="container", yanchor="top",
                                 pad=dict(t=10), font=dict(size=15)), height=height,
                      margin=dict(l=70, r=30, t=80 if subplot_titles else 60, b=60),
                      legend=dict(orientation="h", yanchor="top", y=-0.2, x=0.0, font=dict(size=12)))
    if width is not None:
        fig.update_layout(width=width)
    return readable_figure(fig)


def axes(fig, *, x, y, log_x=False, log_y=False, row=None, col=None):
    """Label (and optionally log-scale) the axes of one subplot, or of all subplots when row is None.

    Examples
    --------
    >>> from gendel.plotting.theory import axes, figure
    >>> fig = axes(figure("Theorem 1"), x="N", y="error", log_x=True)
    >>> fig.layout.xaxis.type, fig.layout.yaxis.type, fig.layout.xaxis.title.text
    ('log', 'linear', 'N')
    """
    kw = dict(row=row, col=col) if row is not None else {}
    # exponent ticks (1e-4), not SI prefixes (100µ) that read as units
    fig.update_xaxes(title_text=plotly_text(x), type="log" if log_x else "linear", exponentformat="e", **kw)
    fig.update_yaxes(title_text=plotly_text(y), type="log" if log_y else "linear", exponentformat="e", **kw)
    return readable_figure(fig)


def _html(text):
    """Escaped HTML of a table cell, with TeX-like sub/superscripts and set differences made readable."""
    return plotly_text(html.escape(str(text), quote=False))


class Table:
    """A small HTML table for verdicts (claim, our numbers, holds / does not hold).

    Parameters
    ----------
    columns : list of str
    rows : list of list
        Cells; floats are formatted with ``fmt``.
    fmt : str
        Format of float cells.
    caption : str, optional

    Examples
    --------
    >>> from gendel.plotting.theory import Table
    >>> Table(["claim", "verdict", "ours"], [["Thm 1", True, 0.0123], ["Thm 2", False, 0.5]], fmt=".2f")
    claim | verdict       | ours
    ------+---------------+-----
    Thm 1 | holds         | 0.01
    Thm 2 | does not hold | 0.50
    """

    def __init__(self, columns, rows, *, fmt=".3g", caption=None):
        self.columns = list(columns)
        self.rows = [list(r) for r in rows]
        self.fmt = fmt
        self.caption = caption

    def _cell(self, v):
        if isinstance(v, (bool, np.bool_)):
            return "holds" if v else "does not hold"
        if isinstance(v, (int, np.integer)):
            return f"{int(v):,}"
        if isinstance(v, (float, np.floating)):
            return format(float(v), self.fmt)
        return str(v)

    def _repr_html_(self):
        cell = "padding:3px 10px;border-bottom:1px solid #ddd;"
        align = lambda i: "text-align:left;white-space:nowrap;" if i == 0 else "text-align:right;"
        head = "".join(f'<th style="{cell}{align(i)}border-bottom:2px solid #888;">{_html(c)}</th>'
                       for i, c in enumerate(self.columns))
        body = "".join("<tr>" + "".join(f'<td style="{cell}{align(i)}">{_html(self._cell(v))}</td>'
                                        for i, v in enumerate(r)) + "</tr>" for r in self.rows)
        cap = (f'<caption style="caption-side:top;text-align:left;padding:4px 0;">{_html(self.caption)}</caption>'
               if self.caption else "")
        return (f'<table class="gendel-verdict" style="border-collapse:collapse;font-size:0.9em;margin:0.5em 0;">'
                f"{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")

    def __repr__(self):
        widths = [max(len(c), *(len(self._cell(r[i])) for r in self.rows)) for i, c in enumerate(self.columns)]
        line = lambda cells: " | ".join(s.ljust(w) for s, w in zip(cells, widths))
        out = [line(self.columns), "-+-".join("-" * w for w in widths)]
        out += [line([self._cell(v) for v in r]) for r in self.rows]
        return "\n".join(out)


def verdict(holds):
    """'holds' or 'does not hold': :func:`gendel.claims.verdict` of one case that passes or not.

    Examples
    --------
    >>> verdict(0.03 <= 0.05), verdict(False)
    ('holds', 'does not hold')
    """
    return _verdict(int(bool(holds)), 1)


__all__ = ["PALETTE", "Table", "add_bound", "add_measured", "axes", "figure", "verdict"]
