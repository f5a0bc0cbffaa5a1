"""Colours, names and layout helpers shared by the figures of the deletion-test chapter.

Layouts are sized in pixels (title, legend, plot, slider) so that they fit the book's 784 px
column and stay readable at 420 px: legends sit under the title or under the plot, never over
it, and hold one entry per line.
"""

from __future__ import annotations

import numpy as np

from ...deletion_test import STATISTIC_LABELS
from ..common import COLORS, NEUTRALS, rgba

#: One colour per statistic of :data:`gendel.deletion_test.STATISTICS` (lines of power and ROC
#: figures). LR and ASC (log t) keep the colours of the §5.1 chapter (``STAT_COLORS``).
STATISTIC_COLORS = {
    "lr": "#3B3B3B",
    "asc-log": "#7B4F9D",
    "asc-tlogt": "#CC79A7",
    "asc-hellinger": "#B2182B",
    "mmd": "#1F4E9C",
}

#: The x-axis title of each statistic: its symbol and what it averages (no TeX).
STATISTIC_AXIS = {
    "lr": "LR(Y, ρ̂_E) = mean of log ρ̂_E(y) over Y",
    "asc-log": "ASC(Ŷ, Y, ρ̂_E), φ(t) = log t",
    "asc-tlogt": "ASC(Ŷ, Y, ρ̂_E), φ(t) = t log t",
    "asc-hellinger": "ASC(Ŷ, Y, ρ̂_E), φ(t) = (√t − 1)²",
    "mmd": "MMD²_u(Y, Ŷ)",
}

#: Colours of the two sides of a decision: the null H0 (Y ∼ p̂) and the alternative (by default
#: the re-trained p̂′, as in the paper's H1).
NULL_COLOR, ALTERNATIVE_COLOR = COLORS["H0"], COLORS["H1"]
_REGION_FILL = "rgba(214, 39, 40, 0.10)"
_CRITICAL_COLOR = "#B2182B"
_PALETTE = NEUTRALS


def _title(main, detail=None):
    """A figure title, then (smaller, grey) the settings used; pinned to the top of the figure."""
    text = main if not detail else f"{main}<br><span style='font-size:12px;color:#555'>{detail}</span>"
    return dict(text=text, x=0.0, xanchor="left", xref="container", y=1.0, yanchor="top", yref="container",
                pad=dict(t=16, l=10), font=dict(size=15))


def _top(subtitle):
    """The top margin of a figure whose settings line may hold ``<br>`` line breaks."""
    return 78 + 15 * (subtitle or "").count("<br>")


def _percent(x):
    return f"{100 * x:.1f} %"


def _number(x):
    if not np.isfinite(x):
        return "−∞" if x < 0 else "+∞"
    return f"{x:.4g}".replace("-", "−")


def _color(label, i):
    if label in STATISTIC_COLORS:
        return STATISTIC_COLORS[label]
    by_name = {v: k for k, v in STATISTIC_LABELS.items()}
    if label in by_name:
        return STATISTIC_COLORS[by_name[label]]
    return _PALETTE[i % len(_PALETTE)]


def _name(label):
    return STATISTIC_LABELS.get(label, str(label))


_rgba = rgba


def _bottom_legend(plot_h, gap=52):
    """A one-entry-per-line legend just under the x-axis title (``gap`` pixels under the plot)."""
    return dict(orientation="v", x=0.0, xanchor="left", y=-gap / plot_h, yanchor="top", font=dict(size=12),
                tracegroupgap=0)


__all__ = ["ALTERNATIVE_COLOR", "NULL_COLOR", "STATISTIC_AXIS", "STATISTIC_COLORS"]
