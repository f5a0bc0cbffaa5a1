"""Error rates of the deletion test: power curves, ROC curves and p-values.

============================  ==============================================================
:func:`power_figure`          rejection rate vs m (or another x), one line per statistic,
                              95 % intervals, the level α
:func:`roc_curve`             the ROC curve of a statistic and its AUC
:func:`roc_figure`            ROC curves (false vs true positive rate) with their AUC
:func:`pvalue_figure`         Monte-Carlo vs asymptotic p-values on log–log axes
============================  ==============================================================
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import plotly.graph_objects as go

from gendel.deletion_test.calibration import PowerResult, check_alpha, oriented_statistics
from gendel.plotting.common import readable_figure
from gendel.plotting.deletion_test._style import (_CRITICAL_COLOR, _bottom_legend, _color, _name, _rgba, _statistic,
                                                  _title, _top, _variant)


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

    Each point is a :class:`~gendel.deletion_test.calibration.PowerResult`; the shaded band is its
    95 % interval ``low``–``high``: binomial (Clopper–Pearson) over the tests, widened by the spread
    of the null sample they share. A dashed line marks the level α:
    against p̂ itself (H0) the rate should stay at or below it, against a model that forgot
    X′ it should rise towards 1.

    Parameters
    ----------
    curves : dict
        ``label -> list of PowerResult`` (x = each result's m) or ``list of (x, PowerResult)``.
        Labels that are names of :data:`gendel.deletion_test.stats.STATISTICS` get their colour from
        :data:`STATISTIC_COLORS` and their label from the registry.
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

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.deletion_test.calibration import PowerResult
    >>> def rate(m, k):  # k of 20 tests reject
    ...     p = np.r_[np.zeros(k), np.ones(20 - k)]
    ...     return PowerResult.from_p_values(p, alpha=0.05, m=m, statistics=np.zeros(20))
    >>> fig = power_figure({"lr": [rate(10, 2), rate(100, 15)]}, alpha=0.05)
    >>> [trace.name for trace in fig.data]
    ['LR 95 % interval', 'LR', 'level α = 0.05']
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
            line=dict(color=color, width=2.5, dash="dash" if _variant(label) else "solid"),
            marker=dict(size=7, color=color, symbol="circle-open" if _variant(label) else "circle"),
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
                     f"level α = {alpha:g}; bands: 95 % intervals (tests and shared null)" if subtitle is None else subtitle),
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
    return readable_figure(fig)


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

    Examples
    --------
    >>> fpr, tpr, auc = roc_curve([0.0, 1.0, 2.0], [1.5, 2.5, 3.5], +1)
    >>> round(auc, 3)  # 8 of the 9 pairs (alternative, null) are ordered
    0.889
    """
    s0 = np.sort(oriented_statistics(null, direction, "null"))
    s1 = np.sort(oriented_statistics(alternative, direction, "alternative"))
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
        names of :data:`gendel.deletion_test.stats.STATISTICS` get their colour and label.
    title, subtitle : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        Square axes; the diagonal is a test that ignores the data (AUC 0.5).

    Examples
    --------
    >>> fig = roc_figure({"lr": ([0.0, 1.0, 2.0], [1.5, 2.5, 3.5], 1)})
    >>> [trace.name for trace in fig.data]
    ['chance (AUC 0.5)', 'LR: AUC 0.889']
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
    return readable_figure(fig)


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

    Examples
    --------
    >>> fig = pvalue_figure([0.01, 0.5], [0.001, 0.4], n_null=99)
    >>> fig.data[-1].name
    'Monte-Carlo floor 1/(1 + n<sub>null</sub>) = 1/100 = 0.01'
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
    seen = set()  # a statistic's second series (another m) gets open markers in the same colour
    for i, (k, (a, b)) in enumerate(check.items()):
        stat = _statistic(k)
        hollow = stat is not None and stat in seen
        seen.add(stat)
        clipped = b < p_min
        shown = np.where(clipped, p_min, b)
        text = texts.get(k)
        name = _name(k) if len(check) > 1 else "tests"
        if clipped.any():
            name += f" ({int(clipped.sum())} asymptotic p < {p_min:g}: ▼)"
        fig.add_trace(go.Scatter(
            x=shown, y=a, mode="markers", name=name,
            marker=dict(color=_color(k, i + 1 if len(check) == 1 else i), size=8, opacity=0.75,
                        symbol=np.where(clipped, "triangle-down", "circle") if not hollow else
                        np.where(clipped, "triangle-down-open", "circle-open"),
                        line=dict(width=1.5 if hollow else 0.5, color=None if hollow else "white")),
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
    return readable_figure(fig)


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


__all__ = ["power_figure", "pvalue_figure", "roc_curve", "roc_figure"]
