"""Helpers shared by the figure modules of the synthetic-data chapter (titles, legends, sweeps)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from gendel.synthetic.data import EXTENT
from gendel.synthetic.experiments import grid
from gendel.synthetic.sampling import QUESTIONS, RATIO_STATISTICS
from gendel.plotting.common import rgba

_SAMPLE_NAMES = {"H0": "Y<sub>H0</sub>", "H1": "Y<sub>H1</sub>", "D": "Y<sub>D</sub>"}
_RATIO_NAMES = {"exact": "ρ̂", "dre": "ρ̂<sub>ℰ</sub>"}


def _title(main, detail=None):
    """A figure title: the paper figure it reproduces, then (smaller) the settings used."""
    text = main if detail is None else f"{main}<br><span style='font-size:12px'>{detail}</span>"
    return dict(text=text, x=0.0, xanchor="left", y=1.0, yanchor="top", yref="container", pad=dict(t=10),
                font=dict(size=15))


def _top_legend(height):
    """Legend under the title, above the plots: slider figures keep their bottom for the slider."""
    return dict(orientation="h", x=0.0, xanchor="left", y=1.0 - 52.0 / height, yanchor="top", yref="container")


def _grid(dataset, resolution):
    return grid(EXTENT[dataset], resolution)


def _label_values(sweep_):
    """The hyper-parameters of a sweep's DREs (sigma_C or k), as floats."""
    return [float(v) for v in sweep_.params]


def _family(sweep_):
    """``"kbc"`` or ``"knn"``: the family (:data:`gendel.core.dre.DRE_CHOICES`) of the DREs a sweep ran."""
    family = sweep_.family
    if family not in ("kbc", "knn"):
        raise ValueError(f"expected a sweep over KBC or kNN DREs; got {list(sweep_.dres)}")
    return family


def _finite(values):
    values = np.asarray(values, dtype=float)
    return values[np.isfinite(values)], int(np.isneginf(values).sum())


def _check_question(question, stat):
    if question not in QUESTIONS:
        raise ValueError(f"question must be one of {tuple(QUESTIONS)}; got {question!r}")
    if stat not in RATIO_STATISTICS:
        raise ValueError(f"stat must be one of {RATIO_STATISTICS} (keys of gendel.deletion_test.stats.STATISTICS "
                         f"computed from log ratios); got {stat!r}")


def _question_sides(question):
    a, b = QUESTIONS[question]
    names = {(sample, ratio): f"{_SAMPLE_NAMES[sample]} with {_RATIO_NAMES[ratio]}"
             for sample in ("H0", "H1", "D") for ratio in ("exact", "dre")}
    return f"{names[a]} vs {names[b]}"


def _legend_name(key):
    """Legend text of one side of a comparison: which sample set, scored with which ratio."""
    sample, ratio = key
    model = {"H0": "Y<sub>H0</sub> ~ p̂ (pre-trained)", "H1": "Y<sub>H1</sub> ~ p̂′ (re-trained)",
             "D": "Y<sub>D</sub> ~ ρ̂<sub>ℰ</sub>·p̂ (approximated)"}
    return f"{model[sample]}, scored with {_RATIO_NAMES[ratio]}"


def _x_title(family):
    return "KBC bandwidth σ_C" if family == "kbc" else "kNN neighbours k"


def _k_ticks(family, xs):
    """Tick marks at the swept k on log axes (plotly's default log ticks hide them)."""
    return dict(type="log", tickvals=list(xs), ticktext=[f"{x:g}" for x in xs]) if family == "knn" else {}


def _violin(values, *, name, color, y0, legendgroup, showlegend, dark=False, filled=True):
    """A one-sided violin of ``values`` in its own row.

    The density runs two bandwidths past the samples (``spanmode="soft"``), so it falls towards
    zero instead of ending in a cliff. A row overlays the two sides of a comparison: the first is
    filled with a pale tint (:data:`VIOLIN_FILL`) of the model's colour, the second
    (``filled=False``) is an outline only, so that where they overlap no third colour appears and
    each side keeps its model's colour. Rows built by callers must give the violin's category axis
    the range :data:`VIOLIN_RANGE`, which holds its full height, and its value axis
    :func:`_violin_range`, which holds both ends of the curves.
    """
    finite, _ = _finite(values)
    fill = (rgba(color, VIOLIN_FILL) if color.startswith("#") else color) if filled else "rgba(0, 0, 0, 0)"
    trace = go.Violin(
        x=finite.astype(np.float32), y0=y0, name=name, orientation="h", side="positive", width=1.6,
        points=False, line=dict(color=color, width=2.4 if dark or not filled else 1.6),
        fillcolor=fill, legendgroup=legendgroup, showlegend=showlegend,
        spanmode="soft", meanline=dict(visible=False), hoveron="violins",
    )
    return trace


#: Opacity of the pale fill of the first side of a violin row (the second side is not filled).
VIOLIN_FILL = 0.18


def _plotly_bandwidth(v):
    """The bandwidth plotly.js gives a violin of the samples ``v`` (Silverman's rule of thumb)."""
    if v.size < 2:
        return 0.0
    q25, q75 = np.percentile(v, [25, 75])
    sd = float(v.std(ddof=1))
    spread = min(sd, (q75 - q25) / 1.349) if q75 > q25 else sd
    return 1.059 * spread * v.size ** -0.2


def _violin_range(*samples):
    """The value-axis range of a violin row holding ``samples``: both soft ends and a 4 % margin.

    A soft violin ends two bandwidths past its samples; plotly's own range stops exactly there,
    so the flat ends of the curves would run along the axis frame.

    Examples
    --------
    >>> lo, hi = _violin_range(np.array([0.0, 1.0, 2.0]), np.array([1.0, 3.0]))
    >>> lo < -1.0 and hi > 4.0
    True
    """
    ends = []
    for v in samples:
        v, _ = _finite(v)
        if v.size:
            h = _plotly_bandwidth(v)
            ends += [float(v.min()) - 2 * h, float(v.max()) + 2 * h]
    if not ends:
        return [-1.0, 1.0]
    lo, hi = min(ends), max(ends)
    pad = 0.04 * (hi - lo) if hi > lo else 0.5
    return [float(f"{lo - pad:.6g}"), float(f"{hi + pad:.6g}")]


#: The range of a violin row's category axis: the one-sided violin of width 1.6 reaches 0.8
#: above its category, and plotly's default range (±0.5) would cut off its top.
VIOLIN_RANGE = [-0.05, 0.85]
