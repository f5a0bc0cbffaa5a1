"""The deletion test as a decision: null and alternative statistics, c, power, type-I error.

=============================  ==============================================================
:func:`decision_figure`        null vs alternative statistics, the critical value, the
                               rejection region, the power and the type-I error
:func:`decision_slider_figure` the same for several precomputed settings, with a slider
                               (interactive in the static book, no kernel needed)
:func:`decision_frame`         one slider step from a DeletionTest and its power result
=============================  ==============================================================

The critical value and the rule are those of :mod:`gendel.deletion_test.calibration`
(:func:`~gendel.deletion_test.calibration.critical_value`, :func:`~gendel.deletion_test.calibration.rejects`).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from gendel.deletion_test.calibration import PowerResult, check_alpha, critical_value, oriented_statistics, rejects
from gendel.deletion_test.stats import STATISTICS
from gendel.plotting.common import readable_figure, step_outline
from gendel.plotting.deletion_test._style import (_CRITICAL_COLOR, _REGION_FILL, ALTERNATIVE_COLOR, NULL_COLOR, _number,
                                                  _percent, _title)

# Pixel layout of the decision figures: title (two lines), legend (one entry per line), plot,
# x-axis title, and (slider figure only) the slider.
_TITLE_H, _LEGEND_ROW, _PLOT_H, _AXIS_H, _SLIDER_H = 62, 19, 290, 58, 78


def _type_one(null, critical, direction):
    """(1 + #{null beyond c}) / (1 + n): the Monte-Carlo test's probability of rejecting under H0."""
    beyond = int(rejects(null, critical, direction).sum())
    return (1.0 + beyond) / (1.0 + np.size(null))


def decision_frame(test, power, *, label=None, null=None):
    """One step of :func:`decision_slider_figure` from a deletion test and its power result.

    Parameters
    ----------
    test : gendel.deletion_test.decision.DeletionTest
        The test; its null statistics for ``power.m`` are taken from
        ``test.null_distribution(power.m)`` (cached there, no new draws).
    power : gendel.deletion_test.decision.PowerResult
        ``test.power(alternative, m, alpha=...)``: the alternative statistics and the rate.
    label : str, optional
        The slider step's label (default ``"m = <m>"``).
    null : array_like, optional
        Null statistics to use instead of the test's own.

    Returns
    -------
    dict
        ``label, null, alternative, critical, direction, statistic, m, alpha, power``.

    Examples
    --------
    >>> from gendel.synthetic.sampling import Protocol, setup
    >>> from gendel.deletion_test.decision import DeletionTest
    >>> _, _, exact = setup(Protocol("mog8", lam=0.5, N=100))
    >>> test = DeletionTest(exact.pretrained_, exact, n_null=99, rng=0, n_pilot=200)
    >>> frame = decision_frame(test, test.power(exact.retrained_, 20, alpha=0.1, n_rep=20, rng=1))
    >>> frame["label"], frame["direction"], len(frame["null"])
    ('m = 20', 1, 99)
    """
    if not isinstance(power, PowerResult):
        raise TypeError(f"power must be a PowerResult (from DeletionTest.power); got {type(power).__name__}")
    null = test.null_distribution(power.m) if null is None else np.asarray(null, dtype=float)
    direction = int(test.direction_)
    return dict(label=f"m = {power.m}" if label is None else str(label), null=np.asarray(null),
                alternative=np.asarray(power.statistics), critical=critical_value(null, power.alpha, direction),
                direction=direction, statistic=test.statistic, m=power.m, alpha=power.alpha, power=power)


def _decision_parts(null, alternative, *, critical, direction, statistic, m, alpha, power, bins, null_label,
                    alternative_label, alternative_color=ALTERNATIVE_COLOR):
    """The four traces of a decision figure, their axis ranges and the numbers they show."""
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {tuple(STATISTICS)}; got {statistic!r}")
    alpha = check_alpha(alpha)
    null = np.asarray(null, dtype=float).ravel()
    alternative = np.asarray(alternative, dtype=float).ravel()
    oriented_statistics(null, direction, "null")
    oriented_statistics(alternative, direction, "alternative")
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
             (alternative, alternative_label, alternative_color, power_text, "alternative"))
    for values, label, color, what, group in sides:
        f = values[np.isfinite(values)]
        counts, _ = np.histogram(f, bins=edges)
        density = counts / (values.size * width)  # area = the share of values drawn
        ys.append(density)
        off = values.size - f.size
        extra = f"; {off} at {'−∞' if np.all(values[~np.isfinite(values)] < 0) else '±∞'} not drawn" if off else ""
        hover = f"%{{x:.4g}}: density %{{y:.3g}}<extra>{label}</extra>"
        if group == "H0":  # pale bars
            traces.append(go.Bar(
                x=centers, y=density, width=width, name=f"{label}: {what}{extra}", marker=dict(color=color, line_width=0),
                opacity=0.45, legendgroup=group, hovertemplate=hover))
        else:  # the same histogram as a step outline, so that the overlap mixes no third colour
            xs, ys = step_outline(edges, density)
            traces.append(go.Scatter(
                x=xs, y=ys, mode="lines", line=dict(color=color, width=2), name=f"{label}: {what}{extra}", legendgroup=group,
                hovertemplate=hover))
    y_top = 1.08 * max(float(max(y.max() for y in ys)), 1e-12)

    c_shown = min(max(critical, x_range[0]), x_range[1])  # ±∞ at the edge of the plot
    edge = x_range[1] if direction == 1 else x_range[0]
    sign = ">" if direction == 1 else "<"
    symbol = STATISTICS[statistic].label.split(" ")[0]  # LR, ASC, MMD²
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
    return (f"{STATISTICS[statistic].label}, m = {m}, α = {alpha:g}; {numbers['n_null']} null sets, "
            f"{numbers['n_alternative']} tests<br>{side} values reject H0")


def decision_figure(null, alternative, *, critical=None, direction, statistic, m, alpha, power=None, title=None,
                    subtitle=None, bins=40, null_label="H0: Y ∼ p̂", alternative_label="H1: Y ∼ p̂′",
                    alternative_color=ALTERNATIVE_COLOR):
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
        re-trained p̂′ (H1) or of the approximated ρ̂_ℰ·p̂ (H1′).
    critical : float or None
        The critical value c; None computes it with :func:`~gendel.deletion_test.calibration.critical_value`.
    direction : {+1, -1}
        ``DeletionTest.direction_``.
    statistic : str
        One of :data:`gendel.deletion_test.stats.STATISTICS` (names the x axis).
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
    alternative_color : str, optional
        Colour of the alternative's outline: the re-trained model's green by default; the
        approximated model's light blue when the alternative is sampled by Alg. 1. The null is
        drawn as pale bars, the alternative as a step outline, so their overlap mixes no colour.

    Returns
    -------
    plotly.graph_objects.Figure

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> fig = decision_figure(rng.normal(size=199), rng.normal(2.0, 1.0, 100), direction=1, statistic="lr",
    ...                       m=50, alpha=0.05)
    >>> [trace.type for trace in fig.data]  # null bars, alternative outline, the rejection region, c
    ['bar', 'scatter', 'scatter', 'scatter']
    """
    traces, x_range, y_range, numbers = _decision_parts(
        null, alternative, critical=critical, direction=direction, statistic=statistic, m=m, alpha=alpha,
        power=power, bins=bins, null_label=null_label, alternative_label=alternative_label,
        alternative_color=alternative_color)
    fig = go.Figure(traces)
    if subtitle is None:
        subtitle = _decision_subtitle(statistic, m, alpha, numbers, direction)
    _decision_layout(fig, title or "The deletion test as a decision", subtitle, statistic, x_range, y_range,
                     slider=False, subtitle_lines=subtitle.count("<br>") + 1)
    return readable_figure(fig)


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
        xaxis=dict(title=dict(text=STATISTICS[statistic].axis, standoff=8), range=x_range, zeroline=False),
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
        optionally ``null_label``, ``alternative_label`` (legend names) and ``alternative_color``
        (see :func:`decision_figure`). When all labels
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

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> frames = [dict(label=f"m = {m}", null=rng.normal(size=99), alternative=rng.normal(1.0, 1.0, 50),
    ...                direction=1, statistic="lr", m=m, alpha=0.05) for m in (10, 100)]
    >>> fig = decision_slider_figure(frames)
    >>> len(fig.data), [step.label for step in fig.layout.sliders[0].steps]
    (8, ['10', '100'])
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
            null_label=fr.get("null_label", "H0: Y ∼ p̂"), alternative_label=fr.get("alternative_label", "H1: Y ∼ p̂′"),
            alternative_color=fr.get("alternative_color", ALTERNATIVE_COLOR))
        for t in traces:
            t.visible = i == active
            fig.add_trace(t)
        sub = _decision_subtitle(fr["statistic"], fr["m"], fr["alpha"], numbers, fr["direction"])
        views.append(dict(title=_title(main, sub)["text"], x_range=x_range, y_range=y_range,
                          x_title=STATISTICS[fr["statistic"]].axis, numbers=numbers))
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
    return readable_figure(fig)


__all__ = ["decision_figure", "decision_frame", "decision_slider_figure"]
