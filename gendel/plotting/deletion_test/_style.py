"""Colours, names and layout helpers shared by the figures of the deletion-test chapter.

Layouts are sized in pixels (title, legend, plot, slider) so that they fit the book's 784 px
column and stay readable at 420 px: legends sit under the title or under the plot, never over
it, and hold one entry per line.
"""

from __future__ import annotations

import numpy as np

from gendel.deletion_test.stats import STATISTICS
from gendel.plotting.common import COLORS, NEUTRALS, STAT_COLORS, rgba

#: One colour per statistic of the registry :data:`gendel.deletion_test.stats.STATISTICS` (lines of
#: power and ROC figures; names and axis titles come from the registry). LR and ASC (log t) keep the colours of the §5.1 chapter (``STAT_COLORS``); dark red
#: is kept for critical values and rejection regions, so Hellinger is brown here. A curve of the
#: same statistic under other settings ("MMD² (h = 0.3)", "LR, m = 200") keeps the statistic's
#: colour and is drawn dashed or with open markers.
STATISTIC_COLORS = STAT_COLORS | {"asc-hellinger": "#6B4423"}

#: Colours of the two sides of a decision: the null H0 (Y ∼ p̂) and the alternative (by default
#: the re-trained p̂′, as in the paper's H1).
NULL_COLOR, ALTERNATIVE_COLOR = COLORS["H0"], COLORS["H1"]
_REGION_FILL = "rgba(214, 39, 40, 0.10)"
_CRITICAL_COLOR = "#B2182B"
#: Colours for curves that are no statistic: the neutrals no statistic and no critical line uses.
_PALETTE = tuple(c for c in NEUTRALS if c not in STATISTIC_COLORS.values() and c != _CRITICAL_COLOR)


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


def _statistic(label):
    """The statistic a curve label names (``"lr"``, ``"LR"``, ``"LR, m = 20"``, ``"MMD² (h = 0.3)"``), or None.

    Examples
    --------
    >>> _statistic("ASC (log t), m = 200"), _statistic("MMD² (h = 0.3)"), _statistic("tests")
    ('asc-log', 'mmd', None)
    """
    label = str(label)
    if label in STATISTIC_COLORS:
        return label
    for key, entry in STATISTICS.items():
        name = entry.label
        if label == name or label.startswith((name + ",", name + " ")):
            return key
    return None


def _variant(label):
    """Whether ``label`` names a statistic under other settings than its plain name."""
    key = _statistic(label)
    return key is not None and str(label) not in (key, STATISTICS[key].label)


def _color(label, i):
    key = _statistic(label)
    return STATISTIC_COLORS[key] if key is not None else _PALETTE[i % len(_PALETTE)]


def _name(label):
    return STATISTICS[label].label if label in STATISTICS else str(label)


_rgba = rgba


def _bottom_legend(plot_h, gap=52):
    """A one-entry-per-line legend just under the x-axis title (``gap`` pixels under the plot)."""
    return dict(orientation="v", x=0.0, xanchor="left", y=-gap / plot_h, yanchor="top", font=dict(size=12),
                tracegroupgap=0)


__all__ = ["ALTERNATIVE_COLOR", "NULL_COLOR", "STATISTIC_COLORS"]
