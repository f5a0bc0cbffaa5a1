"""Distributions and acceptance rates: Figs. 5 and 6 and their Appendix D extensions.

===========================  =================================================================
:func:`ridgeline_figure`     Figs. 5, 6 and Appendix D: distributions per DRE, lambda slider
:func:`acceptance_figure`    acceptance rate of Alg. 1 per DRE
===========================  =================================================================
"""

from __future__ import annotations

import base64

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from gendel.deletion_test.stats import STATISTICS
from gendel.synthetic.sampling import QUESTIONS
from gendel.plotting.common import LAMBDA_COLORS, readable_figure, rgba
from gendel.plotting.synthetic._common import (_check_question, _family, _finite, _k_ticks, _label_values, _legend_name, _question_sides,
                      _title, _top_legend, _x_title)
from gendel.core.dre import FAMILY_LABELS
from gendel.plotting.synthetic.settings import sample_color
from gendel.synthetic.data import DATASETS
from gendel.plotting.synthetic.sliders import slider, step_index


def ridgeline_figure(sweeps, question, stats=("lr", "asc-tlogt"), *, lams=None, initial_lam=0.8, title=None):
    """Distributions of a statistic over the R repeats, one row per DRE setting, lambda slider.

    Panels are ordered as in Figs. 5 and 6: for each statistic, one panel per DRE family
    (kNN rows k, KBC rows sigma_C), two panels per row of the figure. Each row of a panel overlays
    the densities (Gaussian KDE, Silverman bandwidth) of the two distributions that ``question``
    compares, as outlines in the paper's colours over light fills, on one scale per row, and
    writes their KS statistic right of the panel. Each density falls to zero at both ends. The x
    axis spans the 1 %-99 % quantiles of the panel's samples pooled, with a margin (one wide row
    does not squeeze the others); when samples lie beyond it, the axis title says how many. A panel whose values are all positive and
    whose rows differ widely in spread gets a log x axis (see :func:`!_log_axis`). Repeats whose
    statistic is -inf (a zero ratio, possible for kNN DREs) are counted on the row, not drawn.

    Parameters
    ----------
    sweeps : dict
        ``{"knn": Sweep, "kbc": Sweep}`` (either may be left out), e.g. from
        :func:`~gendel.synthetic.experiments.chapter_sweeps`.
    question : {"Q1", "Q2", "Q3"}
    stats : sequence of str
        Statistics, one panel per statistic and family.
    lams : sequence of float, optional
        Slider steps; default: the lambdas common to all sweeps.
    initial_lam : float

    Returns
    -------
    plotly.graph_objects.Figure

    Examples
    --------
    >>> from gendel.core.dre import make_dre
    >>> from gendel.synthetic.experiments import Protocol, sweep
    >>> kbc = sweep(Protocol("mog8", N=60, m=20, R=5), [make_dre("kbc", s) for s in (0.075, 0.1)], lams=[0.6, 0.8],
    ...             cache=False, progress=False)
    >>> fig = ridgeline_figure({"kbc": kbc}, "Q3", initial_lam=0.6)
    >>> len(fig.data)  # two statistics x two sigma_C x two sides
    8
    """
    for stat in stats:
        _check_question(question, stat)
    families = [f for f in ("knn", "kbc") if f in sweeps]
    if not families:
        raise ValueError('sweeps must hold a "knn" and/or a "kbc" Sweep')
    for f in families:
        if _family(sweeps[f]) != f:
            raise ValueError(f"sweeps[{f!r}] is not a sweep over {FAMILY_LABELS[f]} DREs")
    if lams is None:
        lams = sorted(set.intersection(*(set(sweeps[f].lams) for f in families)))
    lams = [float(v) for v in lams]
    active = step_index(lams, initial_lam, "initial_lam")
    row_of = {}
    for f in families:
        known = [float(v) for v in sweeps[f].lams]
        missing = [lam for lam in lams if not any(np.isclose(lam, v) for v in known)]
        if missing:
            raise ValueError(f"the {FAMILY_LABELS[f]} sweep has no results for lambda in {missing}")
        row_of[f] = [step_index(known, lam, "lam") for lam in lams]
    sides = QUESTIONS[question]
    panels = [(stat, f) for stat in stats for f in families]
    # Two panels per row (one row per statistic when both families are shown): four panels side
    # by side leave each about 150 px in the book's column, too little for titles, tick labels
    # and the KS column. The gap between rows of panels leaves room for the x-axis title and its
    # second line (the share of samples beyond the axis) above the next row's panel titles.
    cols = min(len(panels), 2)
    rows = -(-len(panels) // cols)
    top, bottom, panel_h, gap = 135, 160, 290, 125  # pixels
    height = top + bottom + rows * panel_h + (rows - 1) * gap
    plot_h = height - top - bottom
    fig = make_subplots(rows=rows, cols=cols, horizontal_spacing=0.24 if cols > 1 else 0.0,
                        vertical_spacing=gap / plot_h if rows > 1 else 0.0,
                        subplot_titles=[f"({'abcdefghijkl'[p]}) {FAMILY_LABELS[f]}: {STATISTICS[stat].label}"
                                        for p, (stat, f) in enumerate(panels)])
    log_ticks = [_log_axis(sweeps[f], row_of[f], stat, sides) for stat, f in panels]
    steps_data = [_step_curves(sweeps, panels, log_ticks, [row_of[f][k] for f in families], families, sides)
                  for k in range(len(lams))]
    curves, ranges = steps_data[active]
    notes = []  # (family, setting, stat) of each KS note
    for p, (stat, f) in enumerate(panels):
        sw = sweeps[f]
        r, c = p // cols + 1, p % cols + 1
        axis = "" if p == 0 else str(p + 1)
        for j, label in enumerate(sw.labels):
            for key in sides:
                x0, dx, codes = curves[len(fig.data)]
                color = sample_color(question, key)
                fig.add_trace(go.Scatter(
                    x0=x0, dx=dx, y=codes, mode="lines", fill="toself", name=_legend_name(key),
                    line=dict(color=color, width=2.0), fillcolor=_rgba(color, _FILL_OPACITY),
                    legendgroup=str(key), showlegend=p == 0 and j == 0, hoveron="fills", hoverinfo="name"),
                    row=r, col=c)
            notes.append((len(fig.layout.annotations), f, j, stat))
            # The KS value of the row, in a column just right of the panel, outside the data; the
            # column is headed "KS" and its entries are short, so that it stays clear of the next
            # panel's tick labels on a phone.
            fig.add_annotation(text=_row_note(sw.results[row_of[f][active]][j], question, stat),
                               xref=f"x{axis} domain", yref=f"y{axis}", x=1.0, y=j * _UNIT, xanchor="left",
                               yanchor="bottom", xshift=3, align="left", showarrow=False, font=dict(size=10))
        fig.add_annotation(text="KS", xref=f"x{axis} domain", yref=f"y{axis} domain", x=1.0, y=1.0,
                           xanchor="left", yanchor="top", xshift=3, showarrow=False, font=dict(size=10))
        fig.update_xaxes(title_text=_axis_title(stat, log_ticks[p], ranges[p][1]), range=ranges[p][0], tickangle=0,
                         title_standoff=6, row=r, col=c, **_x_ticks(log_ticks[p], ranges[p][0]))
        fig.update_yaxes(title_text="k" if f == "knn" else "σ_C", tickvals=[j * _UNIT for j in range(len(sw.labels))],
                         ticktext=list(sw.labels), range=[-0.15 * _UNIT, (len(sw.labels) - 1 + 0.95) * _UNIT],
                         tickfont=dict(size=10), showgrid=True, zeroline=False, title_standoff=2, row=r, col=c)
    steps = []
    for k, lam in enumerate(lams):
        curves, ranges = steps_data[k]
        layout = {f"annotations[{n}].text": _row_note(sweeps[f].results[row_of[f][k]][j], question, stat)
                  for n, f, j, stat in notes}
        for p, (stat, _) in enumerate(panels):
            axis = "xaxis" if p == 0 else f"xaxis{p + 1}"
            layout[f"{axis}.range"] = ranges[p][0]
            layout[f"{axis}.title.text"] = _axis_title(stat, log_ticks[p], ranges[p][1])
            if log_ticks[p]:
                layout.update({f"{axis}.{name}": v for name, v in _x_ticks(True, ranges[p][0]).items()})
        data = {"x0": [x0 for x0, _, _ in curves], "dx": [dx for _, dx, _ in curves],
                "y": [_u2_array(codes) for _, _, codes in curves]}
        steps.append(dict(method="update", label=f"{lam:g}", args=[data, layout, list(range(len(curves)))]))
    st = sweeps[families[0]].results[0][0].settings
    if title is None:
        name = {"Q2": "Fig. 5", "Q3": "Fig. 6"}.get(question, "Distributions")
        title = _title(f"{name} and Appendix D: {DATASETS.get(st['dataset'], st['dataset'])}",
                       f"{_question_sides(question)} over R = {st['R']} repeats; m = {st['m']}, N = {st['N']}; "
                       "KS of each row on its right")
    else:
        title = _title(title)
    fig.update_layout(
        title=title, height=height, hovermode="closest",
        margin=dict(l=50, r=40, t=top, b=bottom), legend=_top_legend(height),
        # The slider starts 88 px under the plots, below the two-line x-axis titles, so that its
        # current-value label does not cover them.
        sliders=[slider(steps, "λ = ", active, y=-88.0 / plot_h, pad_t=0)],
    )
    fig.update_annotations(font_size=13, selector=dict(xref="paper"))  # the subplot titles
    return readable_figure(fig)


#: Evaluation points of each density curve: at least ``_PER_BANDWIDTH`` per KDE bandwidth, and
#: between these bounds (finer steps are not visible at the panel's width).
_POINTS = (60, 200)
_PER_BANDWIDTH = 3
#: A density is drawn where it exceeds this share of its peak (a thinner tail is under a pixel).
_TAIL = 1e-3
#: y units per row of a panel: curves travel as 16-bit integer codes, 1/1000 of a row apart.
_UNIT = 1000
#: Height of the taller density of a row, in rows (the two densities of a row share one scale).
_PEAK = 0.85
#: Fill opacity of the densities; the solid outline in the model's colour carries the colour code,
#: so two overlapping fills stay apart instead of mixing into a third colour.
_FILL_OPACITY = 0.10
#: Share of a panel's samples (all its curves pooled) that may lie beyond each end of the axis
#: before the margin (1 % and 99 % quantiles); the axis title states how many do.
_BULK = 0.01


_rgba = rgba


def _u2_array(codes):
    """uint16 codes as a plotly.js typed-array spec (base64), for data inside slider args."""
    a = np.ascontiguousarray(codes, dtype="<u2")
    return {"dtype": "u2", "bdata": base64.b64encode(a.tobytes()).decode("ascii")}


def _bandwidth(v):
    """Silverman's rule-of-thumb bandwidth of a Gaussian KDE of the samples ``v``."""
    if v.size < 2:
        return max(1e-3 * float(np.abs(v).max(initial=0.0)), 1e-9)
    q75, q25 = np.percentile(v, [75, 25])
    sd = float(v.std(ddof=1))
    spread = min(sd, (q75 - q25) / 1.34) if q75 > q25 else sd
    h = 0.9 * spread * v.size ** -0.2
    return h if h > 0 else max(1e-3 * float(np.abs(v).max()), 1e-9)


def _kde(v, h, x):
    """Gaussian KDE of the samples ``v`` with bandwidth ``h`` at the points ``x``."""
    return np.exp(-0.5 * ((x[:, None] - v[None, :]) / h) ** 2).sum(axis=1) / (v.size * h * np.sqrt(2 * np.pi))


def _density(v, h, lo, hi):
    """The KDE of ``v`` on an even grid within [lo, hi]: ``(start, end, density)``, zero at both ends.

    The grid ends where the density falls under ``_TAIL`` of its peak (or at lo, hi), and has
    ``_PER_BANDWIDTH`` points per bandwidth within the bounds ``_POINTS``.
    """
    x = np.linspace(lo, hi, 600)
    d = _kde(v, h, x)
    seen = np.flatnonzero(d >= _TAIL * d.max())
    a, b = x[max(seen[0] - 1, 0)], x[min(seen[-1] + 1, x.size - 1)]
    n = int(np.clip(np.ceil(_PER_BANDWIDTH * (b - a) / h) + 1, *_POINTS))
    d = _kde(v, h, np.linspace(a, b, n))
    d[0] = d[-1] = 0.0  # the curve closes on its baseline, where the KDE is under _TAIL of its peak
    return float(a), float(b), d


def _step_curves(sweeps, panels, log_ticks, rows_now, families, sides):
    """The curves and axis ranges of one slider step.

    Returns ``(curves, ranges)``: one ``(x0, dx, uint16 codes)`` per trace, in the figure's trace
    order, and one ``([lo, hi], (samples beyond, samples))`` per panel. Log panels work in log10 units.
    The axis of a panel spans the 1 %-99 % quantiles of all its samples pooled with a 5 % margin;
    a side beyond which no sample lies extends to where the curves fall to zero. A curve cut by
    the axis ends one grid step outside it, so that no closing line shows.
    """
    row_now = dict(zip(families, rows_now))
    curves, ranges = [], []
    for p, (stat, f) in enumerate(panels):
        results = sweeps[f].results[row_now[f]]
        vals = [[_finite(res.values[stat][key])[0] for key in sides] for res in results]
        if log_ticks[p]:
            vals = [[np.log10(v) for v in row] for row in vals]
        flat = [v for row in vals for v in row if v.size]
        hs = [[_bandwidth(v) if v.size else 1.0 for v in row] for row in vals]
        if flat:
            pooled = np.concatenate(flat)  # the bulk of the panel: one wide row cannot squeeze the others
            bulk_lo, bulk_hi = (float(q) for q in np.quantile(pooled, [_BULK, 1 - _BULK]))
            ends = [_density(v, h, float(v.min()) - 4 * h, float(v.max()) + 4 * h)[:2]
                    for row, hr in zip(vals, hs) for v, h in zip(row, hr) if v.size]
            reach_lo, reach_hi = min(a for a, _ in ends), max(b for _, b in ends)
            pad = 0.05 * (bulk_hi - bulk_lo) if bulk_hi > bulk_lo else (reach_hi - reach_lo) / 2
            lo, hi = max(reach_lo, bulk_lo - pad), min(reach_hi, bulk_hi + pad)
            # a side beyond which no sample lies shows the curves down to zero
            if not any((v < lo).any() for v in flat):
                lo = reach_lo
            if not any((v > hi).any() for v in flat):
                hi = reach_hi
            clipped = (sum(int(((v < lo) | (v > hi)).sum()) for v in flat), sum(v.size for v in flat))
        else:
            lo, hi, clipped = 0.0, 1.0, (0, 0)
        guard = 0.02 * (hi - lo)
        for j, (row, hr) in enumerate(zip(vals, hs)):
            dens = []
            for v, h in zip(row, hr):
                if not v.size:
                    dens.append((lo, hi, np.zeros(2)))
                    continue
                dens.append(_density(v, h, max(float(v.min()) - 4 * h, lo - guard),
                                     min(float(v.max()) + 4 * h, hi + guard)))
            peak = max(float(d.max()) for _, _, d in dens) or 1.0
            for a, b, d in dens:
                codes = np.rint(j * _UNIT + d / peak * _PEAK * _UNIT).astype(np.uint16)
                curves.append((float(f"{a:.6g}"), float(f"{(b - a) / (d.size - 1):.6g}"), codes))
        ranges.append(([float(f"{lo:.6g}"), float(f"{hi:.6g}")], clipped))
    return curves, ranges


def _x_ticks(log, limits):
    """Tick settings of a panel's x axis: at most about four labels, so that they stay apart in a
    phone-wide panel. A log panel (log10 units) gets at most three ticks at 1, 2, 5 (or 1, 3, or 1)
    times the powers of ten within its limits, labelled with the values."""
    if not log:
        return dict(nticks=4, tickvals=None, ticktext=None)
    lo, hi = limits
    decades = range(int(np.floor(lo)), int(np.ceil(hi)) + 1)
    for mults in ((1, 2, 5), (1, 3), (1,)):
        ticks = [m * 10.0 ** e for e in decades for m in mults if lo <= np.log10(m * 10.0 ** e) <= hi]
        if len(ticks) <= 3:
            break
    if len(ticks) < 2:
        ticks = [m * 10.0 ** e for e in decades for m in range(1, 10) if lo <= np.log10(m * 10.0 ** e) <= hi][::2]
    return dict(tickvals=[round(float(np.log10(t)), 6) for t in ticks], ticktext=[f"{t:g}" for t in ticks])


def _axis_title(stat, log_ticks, clipped):
    """x-axis title of a panel, with the share of samples beyond the axis when there is one."""
    text = STATISTICS[stat].label + (" (log scale)" if log_ticks else "")
    out, total = clipped
    if out:
        text += f"<br><span style='font-size:10px'>{out} of {total} samples<br>beyond the axis</span>"
    return text


def _log_axis(sweep_, rows, stat, sides, spread=20.0):
    """Tick values of a log x axis for a ridgeline panel, or None for a linear axis.

    A panel gets a log axis when all its values are positive and the widths of its rows differ by
    more than ``spread`` times over the slider's lambdas: on a linear axis the narrowest rows would
    be thin spikes. Ticks sit at 1, 2 and 5 times the powers of ten (plotly's own log ticks label
    every digit and crowd a narrow panel). The panel then draws log10 of the values on a linear
    axis, with these ticks at their log10 positions.
    """
    lowest, highest, widths = np.inf, -np.inf, []
    for i in rows:
        for res in sweep_.results[i]:
            v = np.concatenate([_finite(res.values[stat][key])[0] for key in sides])
            if v.size:
                lowest, highest = min(lowest, float(v.min())), max(highest, float(v.max()))
                widths.append(float(np.ptp(v)))
    widths = [w for w in widths if w > 0]
    if not (lowest > 0 and widths and max(widths) / min(widths) > spread):
        return None
    decades = range(int(np.floor(np.log10(lowest))), int(np.ceil(np.log10(highest))) + 1)
    ticks = [m * 10.0 ** e for e in decades for m in (1, 2, 5) if lowest <= m * 10.0 ** e <= highest]
    if len(ticks) < 3:
        ticks = [m * 10.0 ** e for e in decades for m in range(1, 10) if lowest <= m * 10.0 ** e <= highest]
    return ticks


def _row_note(result, question, stat):
    """The KS statistic, e.g. '0.12' (and the number of -inf repeats), for one row of a ridgeline panel."""
    n_inf = sum(_finite(result.values[stat][key])[1] for key in QUESTIONS[question])
    return f"{result.ks[question, stat]:.2f}" + (f"<br>{n_inf}×−∞" if n_inf else "")


def acceptance_figure(sweeps_by_dataset):
    """Acceptance rate of Alg. 1 for every DRE and lambda, with the rate (N - N')/N of rho_hat.

    Parameters
    ----------
    sweeps_by_dataset : dict
        ``dataset -> {"kbc": Sweep, "knn": Sweep}`` (from :func:`~gendel.synthetic.experiments.chapter_sweeps`).

    Returns
    -------
    plotly.graph_objects.Figure
        One row per data set, one column per DRE family. Dotted lines: (N - N') / N, the
        acceptance rate with the exact ratio rho_hat (B = N / (N - N'), E_p_hat[rho_hat] = 1).

    Examples
    --------
    >>> from gendel.core.dre import make_dre
    >>> from gendel.synthetic.experiments import Protocol, sweep
    >>> p, small = Protocol("mog8", N=60, m=20, R=5), dict(lams=[0.6, 0.8], cache=False, progress=False)
    >>> kbc = sweep(p, [make_dre("kbc", s) for s in (0.075, 0.1)], **small)
    >>> knn = sweep(p, [make_dre("knn", k) for k in (3, 6)], **small)
    >>> len(acceptance_figure({"mog8": {"kbc": kbc, "knn": knn}}).data)  # two lines per family and lambda
    8
    """
    datasets = list(sweeps_by_dataset)
    fams = ["kbc", "knn"]
    fig = make_subplots(rows=len(datasets), cols=2, horizontal_spacing=0.08, vertical_spacing=0.2,
                        subplot_titles=[f"{DATASETS.get(d, d)}: {FAMILY_LABELS[f]}" for d in datasets for f in fams])
    for r, d in enumerate(datasets, start=1):
        for c, f in enumerate(fams, start=1):
            sw = sweeps_by_dataset[d][f]
            xs = _label_values(sw)
            for i, lam in enumerate(sw.lams):
                rates = [res.acceptance_rate for res in sw.results[i]]
                res0 = sw.results[i][0]
                exact = 1.0 - res0.n_deleted / res0.settings["N"]
                color = LAMBDA_COLORS.get(lam)
                fig.add_trace(go.Scatter(x=xs, y=rates, mode="lines+markers", name=f"λ = {lam:g}",
                                         legendgroup=f"{lam:g}", showlegend=r == 1 and c == 1,
                                         line=dict(color=color), marker=dict(size=6),
                                         hovertemplate="%{x:g}: %{y:.4f}<extra>λ = " + f"{lam:g}</extra>"),
                              row=r, col=c)
                fig.add_trace(go.Scatter(x=[xs[0], xs[-1]], y=[exact, exact], mode="lines", showlegend=False,
                                         legendgroup=f"{lam:g}", line=dict(color=color, dash="dot", width=1),
                                         hovertemplate=f"(N − N′)/N = {exact:.4f}<extra>λ = {lam:g}</extra>"),
                              row=r, col=c)
            fig.update_xaxes(title_text=_x_title(f), **_k_ticks(f, xs), row=r, col=c)
            fig.update_yaxes(title_text="acceptance rate", row=r, col=c)
    fig.update_layout(title=_title("Acceptance rate of Alg. 1 for each DRE",
                                   "dotted: (N − N′)/N, the rate with the exact ratio ρ̂; m R = "
                                   f"{sw.results[0][0].settings['m'] * sw.results[0][0].settings['R']} "
                                   "accepted samples per point"),
                      height=300 * len(datasets) + 110, margin=dict(l=60, r=20, t=90, b=40))
    return readable_figure(fig)


__all__ = ["acceptance_figure", "ridgeline_figure"]
