"""Figures of the chapter on the deletion test as a calibrated decision (§4, Appendix C).

Every builder takes numbers computed by :mod:`gendel.deletion_test` (null statistics,
:class:`~gendel.deletion_test.PowerResult` objects, p-values) and returns a plotly figure;
nothing here draws samples.

============================  ==============================================================
:func:`decision_figure`       null vs alternative statistics, the critical value, the
                              rejection region, the power and the type-I error
:func:`decision_slider_figure`  the same for several precomputed settings, with a slider
                              (interactive in the static book, no kernel needed)
:func:`power_figure`          rejection rate vs m (or another x), one line per statistic,
                              95 % binomial bands, the level α
:func:`roc_figure`            ROC curves (false vs true positive rate) with their AUC
:func:`pvalue_figure`         Monte-Carlo vs asymptotic p-values on log–log axes
============================  ==============================================================

Helpers: :func:`critical_value` (the critical value of the Monte-Carlo rule),
:func:`rejects`, :func:`roc_curve` and :func:`decision_frame` (one slider step from a
:class:`~gendel.deletion_test.DeletionTest` and its power result).

Layouts are sized in pixels (title, legend, plot, slider) so that they fit the book's 784 px
column and stay readable at 420 px: legends sit under the title or under the plot, never over
it, and hold one entry per line.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import plotly.graph_objects as go

from ..deletion_test import STATISTIC_LABELS, STATISTICS, PowerResult, check_alpha
from .common import COLORS

#: One colour per statistic of :data:`gendel.deletion_test.STATISTICS` (lines of power and ROC
#: figures). LR and ASC (log t) keep the colours of the §5.1 chapter (``STAT_COLORS``).
STATISTIC_COLORS = {
    "lr": "#3B3B3B",
    "asc-log": "#7B4F9D",
    "asc-tlogt": "#CC79A7",
    "asc-hellinger": "#D55E00",
    "mmd": "#0072B2",
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
_PALETTE = ("#3B3B3B", "#0072B2", "#D55E00", "#CC79A7", "#009E73", "#E69F00", "#56B4E9", "#7B4F9D")

# Pixel layout of the decision figures: title (two lines), legend (one entry per line), plot,
# x-axis title, and (slider figure only) the slider.
_TITLE_H, _LEGEND_ROW, _PLOT_H, _AXIS_H, _SLIDER_H = 62, 19, 290, 58, 78


# --------------------------------------------------------------------------------------------
# The decision rule


def _oriented(values, direction, name):
    if direction not in (1, -1):
        raise ValueError(f"direction must be +1 (large values reject) or -1 (small values reject); got {direction!r}")
    values = np.asarray(values, dtype=float).ravel()
    if values.size == 0:
        raise ValueError(f"{name} is empty: pass at least one statistic")
    if np.isnan(values).any():
        raise ValueError(f"{name} contains NaN: statistics must be numbers (−∞ is allowed)")
    return direction * values


def critical_value(null, alpha, direction):
    """The critical value c of the Monte-Carlo test at level α, on the statistic's own scale.

    :class:`gendel.deletion_test.DeletionTest` rejects H0 when the Monte-Carlo p-value
    ``p = (1 + #{null ≥ t}) / (1 + n)`` is at most α, where t and the n null statistics are
    *oriented* (multiplied by ``direction``, so that large means evidence for deletion). With
    K the largest integer such that (1 + K) / (1 + n) ≤ α, this happens exactly when at most K
    null statistics reach t, that is when t lies strictly beyond the (K + 1)-th most extreme
    null statistic. That statistic is the critical value c, the oriented (1 − α) quantile of the
    null sample:

    - direction = +1: reject when T > c;
    - direction = −1: reject when T < c.

    Under H0 the test then rejects with probability (1 + K) / (1 + n) ≤ α (exactly, for a
    continuous statistic).

    Parameters
    ----------
    null : array_like
        The n null statistics (natural scale), e.g. ``DeletionTest.null_distribution(m)``.
    alpha : float in (0, 1)
        The level.
    direction : {+1, -1}
        ``DeletionTest.direction_``: +1 when large values reject, −1 when small ones do.

    Returns
    -------
    float
        c (may be −∞ or +∞ when that many null statistics are infinite).

    Raises
    ------
    ValueError
        When 1 / (1 + n) > α: no p-value can reach α, and the test could never reject.
    """
    alpha = check_alpha(alpha)
    s = np.sort(_oriented(null, direction, "null"))[::-1]  # most extreme first
    n = s.size
    k = np.arange(n + 1)
    allowed = k[(1.0 + k) / (1.0 + n) <= alpha]  # the same float comparison as p <= alpha
    if allowed.size == 0:
        raise ValueError(f"with {n} null statistics the smallest Monte-Carlo p-value is 1/(1 + n) = "
                         f"{1 / (1 + n):.3g} > alpha={alpha:g}: the test could never reject. "
                         f"Simulate at least {math.ceil(1 / alpha) - 1} null statistics")
    K = int(allowed.max())
    return float(direction * s[K])


def rejects(statistics, critical, direction):
    """Whether each statistic lies strictly beyond the critical value (True: reject H0)."""
    oriented = _oriented(statistics, direction, "statistics")
    return oriented > direction * float(critical)


def _type_one(null, critical, direction):
    """(1 + #{null beyond c}) / (1 + n): the Monte-Carlo test's probability of rejecting under H0."""
    beyond = int(rejects(null, critical, direction).sum())
    return (1.0 + beyond) / (1.0 + np.size(null))


def decision_frame(test, power, *, label=None, null=None):
    """One step of :func:`decision_slider_figure` from a deletion test and its power result.

    Parameters
    ----------
    test : gendel.deletion_test.DeletionTest
        The test; its null statistics for ``power.m`` are taken from
        ``test.null_distribution(power.m)`` (cached there, no new draws).
    power : gendel.deletion_test.PowerResult
        ``test.power(alternative, m, alpha=...)``: the alternative statistics and the rate.
    label : str, optional
        The slider step's label (default ``"m = <m>"``).
    null : array_like, optional
        Null statistics to use instead of the test's own.

    Returns
    -------
    dict
        ``label, null, alternative, critical, direction, statistic, m, alpha, power``.
    """
    if not isinstance(power, PowerResult):
        raise TypeError(f"power must be a PowerResult (from DeletionTest.power); got {type(power).__name__}")
    null = test.null_distribution(power.m) if null is None else np.asarray(null, dtype=float)
    direction = int(test.direction_)
    return dict(label=f"m = {power.m}" if label is None else str(label), null=np.asarray(null),
                alternative=np.asarray(power.statistics), critical=critical_value(null, power.alpha, direction),
                direction=direction, statistic=test.statistic, m=power.m, alpha=power.alpha, power=power)


# --------------------------------------------------------------------------------------------
# Layout helpers


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


def _rgba(hex_color, alpha):
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i:i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r}, {g}, {b}, {alpha})"


def _bottom_legend(plot_h, gap=52):
    """A one-entry-per-line legend just under the x-axis title (``gap`` pixels under the plot)."""
    return dict(orientation="v", x=0.0, xanchor="left", y=-gap / plot_h, yanchor="top", font=dict(size=12),
                tracegroupgap=0)


# --------------------------------------------------------------------------------------------
# Decision figure


def _decision_parts(null, alternative, *, critical, direction, statistic, m, alpha, power, bins, null_label,
                    alternative_label):
    """The four traces of a decision figure, their axis ranges and the numbers they show."""
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {STATISTICS}; got {statistic!r}")
    alpha = check_alpha(alpha)
    null = np.asarray(null, dtype=float).ravel()
    alternative = np.asarray(alternative, dtype=float).ravel()
    _oriented(null, direction, "null")
    _oriented(alternative, direction, "alternative")
    if critical is None:
        critical = critical_value(null, alpha, direction)
    critical = float(critical)
    if np.isnan(critical):
        raise ValueError("critical is NaN; pass a number or None (computed with critical_value)")

    finite = [v[np.isfinite(v)] for v in (null, alternative)]
    both = np.concatenate(finite)
    if both.size == 0:
        both = np.zeros(1)
    lo, hi = float(both.min()), float(both.max())
    if np.isfinite(critical):
        lo, hi = min(lo, critical), max(hi, critical)
    if hi - lo < 1e-12 * max(1.0, abs(lo)):
        lo, hi = lo - 0.5, hi + 0.5
    edges = np.linspace(lo, hi, int(bins) + 1)
    width = edges[1] - edges[0]
    centers = 0.5 * (edges[:-1] + edges[1:])
    pad = 0.04 * (hi - lo)
    x_range = [lo - pad, hi + pad]

    type_one = _type_one(null, critical, direction)
    rate_alt = float(rejects(alternative, critical, direction).mean())
    if power is None:
        power_text = f"power {_percent(rate_alt)}"
        rate = rate_alt
    elif isinstance(power, PowerResult):
        rate = power.rate
        power_text = f"power {_percent(power.rate)} (95 %: {100 * power.low:.0f}–{100 * power.high:.0f} %)"
    else:
        rate = float(power)
        power_text = f"power {_percent(rate)}"

    traces, ys = [], []
    sides = ((null, null_label, NULL_COLOR, f"type-I error {_percent(type_one)} ≤ α", "H0"),
             (alternative, alternative_label, ALTERNATIVE_COLOR, power_text, "alternative"))
    for values, label, color, what, group in sides:
        f = values[np.isfinite(values)]
        counts, _ = np.histogram(f, bins=edges)
        density = counts / (values.size * width)  # area = the share of values drawn
        ys.append(density)
        off = values.size - f.size
        extra = f"; {off} at {'−∞' if np.all(values[~np.isfinite(values)] < 0) else '±∞'} not drawn" if off else ""
        traces.append(go.Bar(
            x=centers, y=density, width=width, name=f"{label}: {what}{extra}", marker=dict(color=color, line_width=0),
            opacity=0.6, legendgroup=group,
            hovertemplate=f"%{{x:.4g}}: density %{{y:.3g}}<extra>{label}</extra>"))
    y_top = 1.08 * max(float(max(y.max() for y in ys)), 1e-12)

    c_shown = min(max(critical, x_range[0]), x_range[1])  # ±∞ at the edge of the plot
    edge = x_range[1] if direction == 1 else x_range[0]
    sign = ">" if direction == 1 else "<"
    symbol = "MMD²" if statistic == "mmd" else STATISTIC_LABELS[statistic].split(" ")[0]
    traces.append(go.Scatter(
        x=[c_shown, edge, edge, c_shown, c_shown], y=[0, 0, y_top, y_top, 0], mode="lines", fill="toself",
        fillcolor=_REGION_FILL, line=dict(width=0), hoverinfo="skip", legendgroup="region",
        name=f"rejection region {symbol} {sign} c: reject H0 (points deleted)"))
    traces.append(go.Scatter(
        x=[c_shown, c_shown], y=[0, y_top], mode="lines", line=dict(color=_CRITICAL_COLOR, width=2.5, dash="dash"),
        legendgroup="critical", name=f"critical value c = {_number(critical)} (level α = {alpha:g})",
        hovertemplate=f"c = {_number(critical)}<extra></extra>"))
    numbers = dict(critical=critical, type_one=type_one, rate=rate, rate_from_critical=rate_alt,
                   n_null=null.size, n_alternative=alternative.size)
    return traces, x_range, [0.0, y_top], numbers


def _decision_subtitle(statistic, m, alpha, numbers, direction):
    side = "large" if direction == 1 else "small"
    return (f"{STATISTIC_LABELS[statistic]}, m = {m}, α = {alpha:g}; {numbers['n_null']} null sets, "
            f"{numbers['n_alternative']} tests<br>{side} values reject H0")


def decision_figure(null, alternative, *, critical=None, direction, statistic, m, alpha, power=None, title=None,
                    subtitle=None, bins=40, null_label="H0: Y ∼ p̂", alternative_label="H1: Y ∼ p̂′"):
    """The deletion test as a decision: null and alternative statistics, c, power, type-I error.

    Two overlaid histograms on a probability-density scale (each normalised by all its values,
    so values at −∞ lower its area rather than being hidden), the critical value c as a dashed
    line and the rejection region shaded. The legend gives the type-I error of the Monte-Carlo
    test, (1 + #{null beyond c}) / (1 + n) ≤ α, and the power, the share of alternative
    statistics beyond c (or ``power``'s rate when given).

    Parameters
    ----------
    null : array_like
        Statistics under H0 (m samples of p̂ each), e.g. ``DeletionTest.null_distribution(m)``.
    alternative : array_like
        Statistics under the alternative, e.g. ``PowerResult.statistics`` for samples of the
        re-trained p̂′ (H1) or of the approximated ρ̂_E·p̂ (H1′).
    critical : float or None
        The critical value c; None computes it with :func:`critical_value`.
    direction : {+1, -1}
        ``DeletionTest.direction_``.
    statistic : str
        One of :data:`gendel.deletion_test.STATISTICS` (names the x axis).
    m : int
        Samples per test (shown in the subtitle).
    alpha : float in (0, 1)
        The level.
    power : PowerResult or float, optional
        The power to print (with its 95 % interval for a PowerResult); default: the share of
        ``alternative`` beyond c.
    title, subtitle : str, optional
        Default title "The deletion test as a decision"; default subtitle: the settings.
    bins : int
        Histogram bins over the common range of both samples.
    null_label, alternative_label : str
        Names of the two sides in the legend.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    traces, x_range, y_range, numbers = _decision_parts(
        null, alternative, critical=critical, direction=direction, statistic=statistic, m=m, alpha=alpha,
        power=power, bins=bins, null_label=null_label, alternative_label=alternative_label)
    fig = go.Figure(traces)
    if subtitle is None:
        subtitle = _decision_subtitle(statistic, m, alpha, numbers, direction)
    _decision_layout(fig, title or "The deletion test as a decision", subtitle, statistic, x_range, y_range,
                     slider=False, subtitle_lines=subtitle.count("<br>") + 1)
    return fig


def _decision_layout(fig, title, subtitle, statistic, x_range, y_range, *, slider, subtitle_lines=2):
    title_h = _TITLE_H + 15 * (subtitle_lines - 1)
    top = title_h + 4 * _LEGEND_ROW + 14
    bottom = _AXIS_H + (_SLIDER_H if slider else 0)
    fig.update_layout(
        template="plotly_white", barmode="overlay", bargap=0, height=top + _PLOT_H + bottom,
        title=_title(title, subtitle), margin=dict(l=62, r=16, t=top, b=bottom),
        legend=dict(orientation="v", x=0.0, xanchor="left", y=1.0 - title_h / (top + _PLOT_H + bottom),
                    yanchor="top", yref="container", font=dict(size=12), tracegroupgap=0,
                    bgcolor="rgba(255,255,255,0)"),
        xaxis=dict(title=dict(text=STATISTIC_AXIS[statistic], standoff=8), range=x_range, zeroline=False),
        yaxis=dict(title=dict(text="probability density", standoff=6), range=y_range),
        hoverlabel=dict(namelength=-1),
    )


def decision_slider_figure(frames, *, title=None, active=0, bins=40):
    """:func:`decision_figure` for several precomputed settings, one slider step each.

    Every step's traces (two histograms, the rejection region, the critical value) are in the
    figure; a step shows its own four and hides the others, and sets the title, the axis ranges
    and the x-axis title. The figure therefore works in a static HTML page, without a kernel.

    Parameters
    ----------
    frames : list of dict
        One per step, with keys ``label`` (e.g. ``"m = 100"``), ``null``, ``alternative``,
        ``critical`` (None: computed), ``direction``, ``statistic``, ``m``, ``alpha`` and
        ``power`` (None, a float or a PowerResult), e.g. from :func:`decision_frame`;
        optionally ``null_label`` and ``alternative_label`` (legend names). When all labels
        read ``"<name> = <value>"`` with one name, the slider shows the values and the name
        once.
    title : str, optional
        Main title of every step (default "The deletion test as a decision").
    active : int
        The step shown first.
    bins : int
        Histogram bins of each step.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    frames = list(frames)
    if not frames:
        raise ValueError("frames is empty: pass one dict per slider step (see decision_frame)")
    required = {"label", "null", "alternative", "direction", "statistic", "m", "alpha"}
    for i, frame in enumerate(frames):
        missing = required - set(frame)
        if missing:
            raise ValueError(f"frame {i} lacks {sorted(missing)}; each frame needs {sorted(required)} "
                             "(and optionally critical and power)")
    if not 0 <= int(active) < len(frames):
        raise ValueError(f"active must index a frame (0 to {len(frames) - 1}); got {active!r}")
    main = title or "The deletion test as a decision"
    fig = go.Figure()
    views = []
    for i, fr in enumerate(frames):
        traces, x_range, y_range, numbers = _decision_parts(
            fr["null"], fr["alternative"], critical=fr.get("critical"), direction=fr["direction"],
            statistic=fr["statistic"], m=fr["m"], alpha=fr["alpha"], power=fr.get("power"), bins=bins,
            null_label=fr.get("null_label", "H0: Y ∼ p̂"), alternative_label=fr.get("alternative_label", "H1: Y ∼ p̂′"))
        for t in traces:
            t.visible = i == active
            fig.add_trace(t)
        sub = _decision_subtitle(fr["statistic"], fr["m"], fr["alpha"], numbers, fr["direction"])
        views.append(dict(title=_title(main, sub)["text"], x_range=x_range, y_range=y_range,
                          x_title=STATISTIC_AXIS[fr["statistic"]], numbers=numbers))
    per = len(fig.data) // len(frames)
    labels = [str(fr["label"]) for fr in frames]
    names = {lab.split(" = ", 1)[0] for lab in labels}
    split = all(" = " in lab for lab in labels) and len(names) == 1
    prefix = f"{names.pop()} = " if split else ""
    steps = []
    for i, (lab, view) in enumerate(zip(labels, views)):
        visible = [j // per == i for j in range(len(fig.data))]
        steps.append(dict(method="update", label=lab.split(" = ", 1)[1] if split else lab,
                          args=[{"visible": visible},
                                {"title.text": view["title"], "xaxis.range": view["x_range"],
                                 "yaxis.range": view["y_range"], "xaxis.title.text": view["x_title"]}]))
    first = frames[active]
    _decision_layout(fig, main, None, first["statistic"], views[active]["x_range"], views[active]["y_range"],
                     slider=True)
    fig.layout.title.text = views[active]["title"]
    fig.update_layout(sliders=[dict(
        active=int(active), steps=steps, x=0.0, len=1.0, y=-_AXIS_H / _PLOT_H, yanchor="top",
        pad=dict(t=4, b=0, l=0, r=0), currentvalue=dict(prefix=prefix, font=dict(size=13)),
        font=dict(size=11))])
    return fig


# --------------------------------------------------------------------------------------------
# Power curves


def _power_points(results, x):
    points = []
    for item in results:
        if isinstance(item, PowerResult):
            if x != "m":
                raise ValueError(f"with x={x!r} pass (x, PowerResult) pairs; bare PowerResults give x = m only")
            points.append((float(item.m), item))
        else:
            try:
                xv, res = item
            except (TypeError, ValueError) as exc:
                raise TypeError("each curve must hold PowerResult objects or (x, PowerResult) pairs; "
                                f"got {item!r}") from exc
            if not isinstance(res, PowerResult):
                raise TypeError(f"each curve must hold PowerResult objects or (x, PowerResult) pairs; got {item!r}")
            points.append((float(xv), res))
    return sorted(points, key=lambda p: p[0])


def power_figure(curves, *, alpha, x="m", log_x=None, title=None, subtitle=None, x_title=None, colors=None):
    """Rejection rate against the sample size m (or another setting), one line per label.

    Each point is a :class:`~gendel.deletion_test.PowerResult`; the shaded band is its exact
    95 % binomial (Clopper–Pearson) interval ``low``–``high``. A dashed line marks the level α:
    against p̂ itself (H0) the rate should stay at or below it, against a model that forgot
    X′ it should rise towards 1.

    Parameters
    ----------
    curves : dict
        ``label -> list of PowerResult`` (x = each result's m) or ``list of (x, PowerResult)``.
        Labels that are names of :data:`gendel.deletion_test.STATISTICS` get their colour from
        :data:`STATISTIC_COLORS` and their label from ``STATISTIC_LABELS``.
    alpha : float in (0, 1)
        The level; every result must have been computed at it.
    x : str
        What the x axis is: ``"m"`` (log axis by default) or the name of another setting
        (e.g. ``"λ"``), given through ``(x, PowerResult)`` pairs.
    log_x : bool, optional
        Log x axis (default: True for x = "m").
    title, subtitle : str, optional
    x_title : str, optional
        Default: "samples per test m" for x = "m", else ``x``.
    colors : dict, optional
        A colour per label (e.g. the book's colours of the three models); others get
        :data:`STATISTIC_COLORS` or a palette colour.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    alpha = check_alpha(alpha)
    colors = dict(colors or {})
    if not curves:
        raise ValueError("curves is empty: pass {label: [PowerResult, ...]}")
    log_x = (x == "m") if log_x is None else bool(log_x)
    fig = go.Figure()
    all_x = []
    for i, (label, results) in enumerate(curves.items()):
        points = _power_points(results, x)
        if not points:
            raise ValueError(f"curve {label!r} has no points")
        for _, res in points:
            if not math.isclose(res.alpha, alpha):
                raise ValueError(f"curve {label!r} holds a result at alpha={res.alpha:g}, not alpha={alpha:g}: "
                                 "compute every point at the level the figure shows")
        xs = [p[0] for p in points]
        all_x += xs
        rate = [p[1].rate for p in points]
        low = [p[1].low for p in points]
        high = [p[1].high for p in points]
        color = colors.get(label) or _color(label, i)
        n_rep = sorted({p[1].n_rep for p in points})
        fig.add_trace(go.Scatter(x=xs + xs[::-1], y=high + low[::-1], fill="toself", fillcolor=_rgba(color, 0.13),
                                 line=dict(width=0), mode="lines", hoverinfo="skip", showlegend=False,
                                 legendgroup=str(label), name=f"{_name(label)} 95 % interval"))
        fig.add_trace(go.Scatter(
            x=xs, y=rate, mode="lines+markers", name=_name(label), legendgroup=str(label),
            line=dict(color=color, width=2.5), marker=dict(size=7, color=color),
            customdata=np.column_stack([low, high]),
            hovertemplate=(f"{x} = %{{x:g}}: rate %{{y:.3f}} (95 %: %{{customdata[0]:.3f}}–%{{customdata[1]:.3f}})"
                           f"<extra>{_name(label)}</extra>")))
    lo_x, hi_x = min(all_x), max(all_x)
    fig.add_trace(go.Scatter(x=[lo_x, hi_x], y=[alpha, alpha], mode="lines", name=f"level α = {alpha:g}",
                             line=dict(color="#777", width=1.5, dash="dash"), hoverinfo="skip"))
    n_lines = len(curves) + 1
    top, plot_h, bottom = _top(subtitle), 330, 62 + n_lines * 20
    fig.update_layout(
        template="plotly_white", height=top + plot_h + bottom, margin=dict(l=62, r=16, t=top, b=bottom),
        title=_title(title or "Rejection rate of the deletion test",
                     f"level α = {alpha:g}; bands: exact 95 % binomial intervals" if subtitle is None else subtitle),
        legend=_bottom_legend(plot_h), hoverlabel=dict(namelength=-1),
        xaxis=dict(title=dict(text=x_title or ("samples per test m (log scale)" if x == "m" else x), standoff=8),
                   type="log" if log_x else "linear"),
        yaxis=dict(title=dict(text="rejection rate (power; type-I error under H0)", standoff=6),
                   range=[-0.02, 1.02]),
    )
    if log_x:
        ticks = sorted(set(all_x))
        if len(ticks) <= 10:
            fig.update_xaxes(tickvals=ticks, ticktext=[f"{t:g}" for t in ticks])
    return fig


# --------------------------------------------------------------------------------------------
# ROC curves


def roc_curve(null, alternative, direction):
    """The ROC curve of a statistic and its area (AUC).

    Thresholding the oriented statistic at every observed value t (reject when the oriented
    statistic is at least t) gives the false positive rate (share of ``null`` rejected) and the
    true positive rate (share of ``alternative`` rejected). The AUC is the trapezoid area under
    the curve, which equals P(A > N) + P(A = N) / 2 for A drawn from the alternative and N from
    the null (ties count one half).

    Returns
    -------
    fpr, tpr : ndarray
        From (0, 0) to (1, 1).
    auc : float
    """
    s0 = np.sort(_oriented(null, direction, "null"))
    s1 = np.sort(_oriented(alternative, direction, "alternative"))
    thresholds = np.unique(np.concatenate([s0, s1]))[::-1]
    fpr = (s0.size - np.searchsorted(s0, thresholds, side="left")) / s0.size
    tpr = (s1.size - np.searchsorted(s1, thresholds, side="left")) / s1.size
    fpr, tpr = np.concatenate([[0.0], fpr]), np.concatenate([[0.0], tpr])
    auc = float(np.sum(np.diff(fpr) * 0.5 * (tpr[1:] + tpr[:-1])))
    return fpr, tpr, auc


def roc_figure(pairs, *, title=None, subtitle=None):
    """ROC curves of several statistics (or settings), with their AUC in the legend.

    Parameters
    ----------
    pairs : dict
        ``label -> (null_statistics, alternative_statistics, direction)``. Labels that are
        names of :data:`gendel.deletion_test.STATISTICS` get their colour and label.
    title, subtitle : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        Square axes; the diagonal is a test that ignores the data (AUC 0.5).
    """
    if not pairs:
        raise ValueError("pairs is empty: pass {label: (null, alternative, direction)}")
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", line=dict(color="#999", dash="dot", width=1.5),
                             name="chance (AUC 0.5)", hoverinfo="skip"))
    for i, (label, value) in enumerate(pairs.items()):
        try:
            null, alternative, direction = value
        except (TypeError, ValueError) as exc:
            raise TypeError(f"pairs[{label!r}] must be (null_statistics, alternative_statistics, direction)") from exc
        fpr, tpr, auc = roc_curve(null, alternative, direction)
        fig.add_trace(go.Scatter(x=fpr, y=tpr, mode="lines", line=dict(color=_color(label, i), width=2.5, shape="hv"),
                                 name=f"{_name(label)}: AUC {auc:.3f}",
                                 hovertemplate=f"false positive rate %{{x:.3f}}<br>true positive rate %{{y:.3f}}"
                                               f"<extra>{_name(label)}</extra>"))
    n = len(pairs) + 1
    top, plot_h, bottom = _top(subtitle), 380, 62 + n * 20
    fig.update_layout(
        template="plotly_white", height=top + plot_h + bottom, margin=dict(l=62, r=16, t=top, b=bottom),
        title=_title(title or "ROC curves of the deletion test",
                     "every threshold of each statistic; AUC = area under the curve" if subtitle is None else subtitle),
        legend=_bottom_legend(plot_h), hoverlabel=dict(namelength=-1),
        xaxis=dict(title=dict(text="false positive rate (H0 rejected)", standoff=8), range=[-0.01, 1.01],
                   constrain="domain"),
        yaxis=dict(title=dict(text="true positive rate (power)", standoff=6), range=[-0.01, 1.01],
                   scaleanchor="x", scaleratio=1, constrain="domain"),
    )
    return fig


# --------------------------------------------------------------------------------------------
# Monte-Carlo vs asymptotic p-values


def _infer_n_null(p_values):
    """n from Monte-Carlo p-values k / (1 + n): 1 + n is the common denominator of the values."""
    denominator = 1
    for p in np.unique(np.asarray(p_values, dtype=float)):
        denominator = math.lcm(denominator, Fraction(float(p)).limit_denominator(10**7).denominator)
    return denominator - 1


def pvalue_figure(mc, asymptotic, *, labels=None, n_null=None, alpha=None, p_min=1e-10, title=None,
                  subtitle=None):
    """Monte-Carlo against asymptotic p-values of the same tests, on log–log axes.

    The diagonal is perfect agreement; the Monte-Carlo p-value cannot go below 1 / (1 + n_null)
    (dashed line), so where the normal approximation claims stronger evidence the points pile
    up on that floor.

    Parameters
    ----------
    mc, asymptotic : array_like or dict
        Paired p-values (same tests, same order): two arrays, or two dicts ``label -> array``
        with the same keys (one colour per label; statistic names get their colour).
    labels : sequence of str or dict, optional
        Hover text of each point (a dict of sequences for dict input).
    n_null : int, optional
        Null statistics behind the Monte-Carlo p-values. Default: the common denominator
        1 + n of the values k / (1 + n).
    alpha : float, optional
        Also mark the level on both axes.
    p_min : float
        Asymptotic p-values below this (down to 0 in floating point) are drawn at ``p_min``
        with a downward triangle.
    title, subtitle : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
    """
    if isinstance(mc, dict) != isinstance(asymptotic, dict):
        raise TypeError("mc and asymptotic must both be arrays or both be dicts label -> array")
    if isinstance(mc, dict):
        if set(mc) != set(asymptotic):
            raise ValueError(f"mc and asymptotic need the same labels; got {sorted(mc)} and {sorted(asymptotic)}")
        series = {k: (mc[k], asymptotic[k]) for k in mc}
        if labels is not None and not isinstance(labels, dict):
            raise TypeError("with dicts of p-values, labels must be a dict label -> hover texts")
        texts = labels or {}
    else:
        series = {"tests": (mc, asymptotic)}
        texts = {"tests": labels} if labels is not None else {}
    check = {}
    for k, (a, b) in series.items():
        a, b = np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel()
        if a.shape != b.shape:
            raise ValueError(f"mc and asymptotic p-values of {k!r} must pair up; got {a.size} and {b.size} values")
        if a.size == 0:
            raise ValueError(f"no p-values for {k!r}")
        for name, v in (("mc", a), ("asymptotic", b)):
            if np.isnan(v).any() or (v < 0).any() or (v > 1).any():
                raise ValueError(f"{name} p-values of {k!r} must lie in [0, 1]")
        if (a <= 0).any():
            raise ValueError(f"Monte-Carlo p-values of {k!r} must be positive (they are at least 1/(1 + n_null))")
        check[k] = (a, b)
    if n_null is None:
        n_null = _infer_n_null(np.concatenate([a for a, _ in check.values()]))
    floor = 1.0 / (1.0 + n_null)
    fig = go.Figure()
    smallest = min(min(float(np.maximum(b, p_min).min()), float(a.min())) for a, b in check.values())
    lo = min(floor, smallest) / 2.0
    for i, (k, (a, b)) in enumerate(check.items()):
        clipped = b < p_min
        shown = np.where(clipped, p_min, b)
        text = texts.get(k)
        name = _name(k) if len(check) > 1 else "tests"
        if clipped.any():
            name += f" ({int(clipped.sum())} asymptotic p < {p_min:g}: ▼)"
        fig.add_trace(go.Scatter(
            x=shown, y=a, mode="markers", name=name,
            marker=dict(color=_color(k, i + 1 if len(check) == 1 else i), size=8, opacity=0.75,
                        symbol=np.where(clipped, "triangle-down", "circle"), line=dict(width=0.5, color="white")),
            text=None if text is None else list(text),
            hovertemplate=("%{text}<br>" if text is not None else "")
            + "asymptotic p = %{x:.3g}<br>Monte-Carlo p = %{y:.3g}<extra></extra>", zorder=1))
    fig.add_trace(go.Scatter(x=[lo, 1], y=[lo, 1], mode="lines", line=dict(color="#999", dash="dot", width=1.5),
                             name="equal p-values", hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=[lo, 1], y=[floor, floor], mode="lines", line=dict(color=_CRITICAL_COLOR, dash="dash",
                                                                                   width=1.5),
                             name=f"Monte-Carlo floor 1/(1 + n_null) = 1/{n_null + 1} = {floor:.2g}",
                             hoverinfo="skip"))
    if alpha is not None:
        alpha = check_alpha(alpha)
        fig.add_trace(go.Scatter(x=[alpha, alpha, None, lo, 1], y=[lo, 1, None, alpha, alpha], mode="lines",
                                 line=dict(color="#777", width=1), name=f"level α = {alpha:g}", hoverinfo="skip"))
    n = len(fig.data)
    top, plot_h, bottom = _top(subtitle), 380, 62 + n * 20
    decades = [math.log10(lo), 0.05]
    fig.update_layout(
        template="plotly_white", height=top + plot_h + bottom, margin=dict(l=62, r=16, t=top, b=bottom),
        title=_title(title or "Monte-Carlo vs asymptotic p-values",
                     subtitle if subtitle is not None else "the same tests; log–log axes"),
        legend=_bottom_legend(plot_h), hoverlabel=dict(namelength=-1),
        xaxis=dict(title=dict(text="asymptotic p-value (normal approximation, log scale)", standoff=8), type="log",
                   range=decades, constrain="domain", **_log_ticks(lo)),
        yaxis=dict(title=dict(text="Monte-Carlo p-value (log scale)", standoff=6), type="log", range=decades,
                   scaleanchor="x", scaleratio=1, constrain="domain", **_log_ticks(lo)),
    )
    return fig


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _log_ticks(lo):
    """Ticks of a p-value axis from ``lo`` to 1: every decade, and 2 and 5 times it when few decades show.

    Labels are plain numbers down to 0.001 and powers of ten (10⁻⁵) below; plotly's own log ticks
    label every digit and crowd a narrow panel.
    """
    first = math.floor(math.log10(lo))
    n_decades = -first
    steps = max(1, math.ceil(n_decades / 6))
    factors = (1, 2, 5) if n_decades <= 3 else (1,)
    values = [f * 10.0 ** e for e in range(first, 1, 1) for f in factors
              if lo <= f * 10.0 ** e <= 1.0 and (f > 1 or (-e) % steps == 0)]

    def label(v):
        e = math.floor(math.log10(v) + 1e-9)
        f = round(v / 10.0 ** e)
        if e >= -3:
            return f"{v:g}"
        power = f"10{str(e).translate(_SUPERSCRIPT)}"
        return power if f == 1 else f"{f}·{power}"

    return dict(tickvals=values, ticktext=[label(v) for v in values])


__all__ = ["STATISTIC_AXIS", "STATISTIC_COLORS", "critical_value", "decision_figure", "decision_frame",
           "decision_slider_figure", "power_figure", "pvalue_figure", "rejects", "roc_curve", "roc_figure"]
