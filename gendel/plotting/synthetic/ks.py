"""KS curves: Fig. 4 and the KS panels of Appendix D.

===========================  =================================================================
:func:`ks_curve_figure`      Fig. 4 (a)-(c): KS vs sigma_C per lambda, sigma_C slider showing the
                             compared distributions
:func:`ks_panels_figure`     Appendix D KS panels: one panel per statistic (KBC or kNN sweeps)
:func:`variation_figure`     Appendix D KS panel (a): other m, N, R
===========================  =================================================================

Every builder reads a :class:`gendel.synthetic.experiments.Sweep` (e.g. from
:func:`gendel.synthetic.experiments.chapter_sweeps`); nothing here draws samples.
"""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from gendel.deletion_test.stats import STATISTICS
from gendel.synthetic.sampling import QUESTIONS, RATIO_STATISTICS
from gendel.plotting.common import LAMBDA_COLORS, NEUTRALS, readable_figure
from gendel.plotting.synthetic._common import (_check_question, _family, _finite, _k_ticks, _label_values, _legend_name, _question_sides,
                      _title, _top_legend, _violin, _violin_range, _x_title, VIOLIN_RANGE)
from gendel.core.dre import FAMILY_LABELS
from gendel.plotting.synthetic.settings import sample_color
from gendel.synthetic.data import DATASETS
from gendel.plotting.synthetic.sliders import slider, step_index, typed_array

_KS_FIGURE = {"Q1": "Fig. 4(a)", "Q2": "Fig. 4(b)", "Q3": "Fig. 4(c)"}


def ks_curve_figure(kbc_sweep, question, stat="lr", *, initial_sigma=None, reference=None):
    """Fig. 4 (a), (b) or (c): KS vs sigma_C, one line per lambda, with a sigma_C slider.

    Left: the KS statistic of ``question`` for ``stat`` against sigma_C, one line per lambda;
    a ring marks the chosen sigma_C. Right: one row per lambda with the two distributions
    (over the R repeats) that the KS statistic compares, at the chosen sigma_C, in the paper's
    colours. The slider moves the rings, redraws the distributions and updates the KS values
    written on the rows.

    Parameters
    ----------
    kbc_sweep : gendel.synthetic.experiments.Sweep
        A sweep over KBC DREs whose labels are the sigma_C values.
    question : {"Q1", "Q2", "Q3"}
    stat : {"lr", "asc-log", "asc-tlogt", "asc-hellinger"}
        A key of the registry :data:`gendel.deletion_test.stats.STATISTICS`.
    initial_sigma : float, optional
        The sigma_C shown first (default: the largest sigma_C of the sweep below sigma_A).
    reference : float, optional
        A KS value drawn as a dashed horizontal line, e.g. the critical value of the
        two-sample KS test at level 5 %.

    Returns
    -------
    plotly.graph_objects.Figure

    Examples
    --------
    >>> from gendel.core.dre import make_dre
    >>> from gendel.synthetic.experiments import Protocol, sweep
    >>> kbc = sweep(Protocol("mog8", N=60, m=20, R=5), [make_dre("kbc", s) for s in (0.075, 0.1)], lams=[0.6, 0.8],
    ...             cache=False, progress=False)
    >>> fig = ks_curve_figure(kbc, "Q3")
    >>> len(fig.data)  # per lambda: a KS line, a ring and two violins
    8
    """
    _check_question(question, stat)
    if _family(kbc_sweep) != "kbc":
        raise ValueError("ks_curve_figure needs a sweep over KernelClassifierDRE (one label per sigma_C)")
    sigmas = _label_values(kbc_sweep)
    st = kbc_sweep.results[0][0].settings
    sigma_a = st["sigma_a"]
    if initial_sigma is None:
        below = [s for s in sigmas if s < sigma_a]
        initial_sigma = max(below) if below else sigmas[0]
    active = step_index(sigmas, initial_sigma, "initial_sigma")
    lams = list(kbc_sweep.lams)
    n = len(lams)
    ks = kbc_sweep.ks(question, stat)
    sides = QUESTIONS[question]
    specs = [[{"rowspan": n}, {}]] + [[None, {}] for _ in range(n - 1)]
    fig = make_subplots(rows=n, cols=2, specs=specs, column_widths=[0.46, 0.54], horizontal_spacing=0.08,
                        vertical_spacing=0.04)
    for i, lam in enumerate(lams):
        fig.add_trace(go.Scatter(x=sigmas, y=ks[i], mode="lines+markers", name=f"λ = {lam:g}", legendgroup=f"lam{i}",
                                 line=dict(color=LAMBDA_COLORS.get(lam)), marker=dict(size=6),
                                 hovertemplate="σ_C=%{x:g}<br>KS=%{y:.3f}<extra>λ = " + f"{lam:g}</extra>"),
                      row=1, col=1)
    marker_idx = []
    for i, lam in enumerate(lams):
        marker_idx.append(len(fig.data))
        fig.add_trace(go.Scatter(x=[sigmas[active]], y=[ks[i, active]], mode="markers", showlegend=False,
                                 legendgroup=f"lam{i}", hoverinfo="skip",
                                 marker=dict(size=15, color="rgba(0,0,0,0)",
                                             line=dict(color=LAMBDA_COLORS.get(lam, "black"), width=2.5))),
                      row=1, col=1)
    violin_idx = []
    for i, lam in enumerate(lams):
        r = kbc_sweep.results[i][active]
        for j, key in enumerate(sides):
            violin_idx.append(len(fig.data))
            fig.add_trace(_violin(r.values[stat][key], name=_legend_name(key), color=sample_color(question, key),
                                  y0=f"λ = {lam:g}", legendgroup=f"side{j}", showlegend=i == 0,
                                  dark=question == "Q1" and key[1] == "dre", filled=j == 0), row=i + 1, col=2)

    def row_range(i, j):
        return _violin_range(*(kbc_sweep.results[i][j].values[stat][key] for key in sides))

    def row_text(i, j):
        r = kbc_sweep.results[i][j]
        n_inf = sum(_finite(r.values[stat][key])[1] for key in sides)
        extra = f"; −∞ in {n_inf} repeats, not drawn" if n_inf else ""
        return f"λ = {lams[i]:g}: KS = {ks[i, j]:.3f}{extra}"

    first_ann = len(fig.layout.annotations)
    for i in range(n):
        fig.add_annotation(text=row_text(i, active), xref=f"x{i + 2} domain", yref=f"y{i + 2} domain", x=0.0, y=1.0,
                           xanchor="left", yanchor="top", showarrow=False, font=dict(size=11))
    steps = []
    for j, s in enumerate(sigmas):
        xs = [[s] for _ in range(n)]
        xs += [typed_array(_finite(kbc_sweep.results[i][j].values[stat][key])[0]) for i in range(n) for key in sides]
        ys = [[float(ks[i, j])] for i in range(n)] + [None] * (2 * n)  # None: violins keep their y0 row
        layout = {f"annotations[{first_ann + i}].text": row_text(i, j) for i in range(n)}
        layout.update({f"xaxis{i + 2}.range": row_range(i, j) for i in range(n)})
        steps.append(dict(method="update", label=f"{s:g}", args=[{"x": xs, "y": ys}, layout, marker_idx + violin_idx]))
    fig.update_xaxes(title_text="KBC bandwidth σ_C", row=1, col=1)
    fig.update_yaxes(title_text=f"KS statistic, {question}, {STATISTICS[stat].label}", range=[0, 1.03], row=1, col=1)
    for i in range(n):
        fig.update_yaxes(showticklabels=False, title_text=f"λ = {lams[i]:g}", title_standoff=2, range=VIOLIN_RANGE,
                         row=i + 1, col=2)
        fig.update_xaxes(title_text=STATISTICS[stat].label + " over the R repeats" if i == n - 1 else None,
                         range=row_range(i, active), row=i + 1, col=2)
    fig.add_vline(x=sigma_a, line=dict(color="grey", dash="dot"), row=1, col=1)
    if reference is not None:
        _reference_line(fig, reference, row=1, col=1)
    fig.update_layout(
        title=_title(f"{_KS_FIGURE[question] if stat == 'lr' else 'Appendix D'}: KS of {question}, "
                     f"{DATASETS.get(st['dataset'], st['dataset'])}",
                     f"{STATISTICS[stat].label}: {_question_sides(question)}; m = {st['m']}, N = {st['N']}, "
                     f"R = {st['R']}, σ_A = {sigma_a:g} (dotted)"),
        violinmode="overlay", height=640, margin=dict(l=60, r=20, t=135, b=120),
        legend=_top_legend(640),
        sliders=[slider(steps, "σ_C = ", active, y=-0.11, pad_t=10)],
    )
    return readable_figure(fig)


_REFERENCE_NAME = "critical value of the KS test, 5 %"


def _reference_line(fig, value, **where):
    """The KS test's 5 % critical value as a dashed line, named in the legend (once), not over the data."""
    line = dict(color="#555555", dash="dash", width=1)
    fig.add_hline(y=float(value), line=line, **where)
    if not any(t.name == _REFERENCE_NAME for t in fig.data):
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", line=line, name=_REFERENCE_NAME, hoverinfo="skip"),
                      **where)


def ks_panels_figure(sweep_, question, stats=RATIO_STATISTICS, *, title=None, reference=None):
    """KS statistic of ``question`` against sigma_C (KBC) or k (kNN), one panel per statistic.

    One line per lambda; the Appendix D KS panels (b)-(d) (and (a) for CKB-8) for KBC sweeps.
    ``reference`` (optional) draws a dashed horizontal line at that KS value in every panel.

    Returns
    -------
    plotly.graph_objects.Figure

    Examples
    --------
    >>> from gendel.core.dre import make_dre
    >>> from gendel.synthetic.experiments import Protocol, sweep
    >>> kbc = sweep(Protocol("mog8", N=60, m=20, R=5), [make_dre("kbc", s) for s in (0.075, 0.1)], lams=[0.6, 0.8],
    ...             cache=False, progress=False)
    >>> len(ks_panels_figure(kbc, "Q3").data)  # four statistics, one line per lambda
    8
    """
    for stat in stats:
        _check_question(question, stat)
    family = _family(sweep_)
    xs = _label_values(sweep_)
    stats = list(stats)
    cols = 2 if len(stats) > 2 else len(stats)
    rows = -(-len(stats) // cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[STATISTICS[s].label for s in stats],
                        horizontal_spacing=0.08, vertical_spacing=0.16)
    for p, stat in enumerate(stats):
        r, c = p // cols + 1, p % cols + 1
        ks = sweep_.ks(question, stat)
        for i, lam in enumerate(sweep_.lams):
            fig.add_trace(go.Scatter(x=xs, y=ks[i], mode="lines+markers", name=f"λ = {lam:g}", legendgroup=f"lam{i}",
                                     showlegend=p == 0, line=dict(color=LAMBDA_COLORS.get(lam)), marker=dict(size=6),
                                     hovertemplate=f"{'σ_C' if family == 'kbc' else 'k'}=%{{x:g}}<br>KS=%{{y:.3f}}"
                                     f"<extra>λ = {lam:g}, {STATISTICS[stat].label}</extra>"), row=r, col=c)
        fig.update_xaxes(title_text=_x_title(family), **_k_ticks(family, xs), row=r, col=c)
        fig.update_yaxes(title_text="KS statistic", range=[0, 1.03], row=r, col=c)
        if family == "kbc":
            fig.add_vline(x=sweep_.results[0][0].settings["sigma_a"], line=dict(color="grey", dash="dot"), row=r, col=c)
        if reference is not None:
            _reference_line(fig, reference, row=r, col=c)
    st = sweep_.results[0][0].settings
    if title is None:
        where = "Appendix D" if family == "kbc" else "Not in the paper"
        title = _title(f"{where}: KS of {question}, {FAMILY_LABELS[family]}, "
                       f"{DATASETS.get(st['dataset'], st['dataset'])}",
                       f"{_question_sides(question)}; m = {st['m']}, N = {st['N']}, R = {st['R']}")
    else:
        title = _title(title)
    fig.update_layout(title=title, height=300 * rows + 100, margin=dict(l=60, r=20, t=90, b=40))
    fig.update_annotations(font_size=13)
    return readable_figure(fig)


def variation_figure(variations, question, stat="lr"):
    """Panel (a) of the Appendix D KS figures: KS vs sigma_C at one lambda for (m, N, R) variations.

    Parameters
    ----------
    variations : dict
        ``label -> Sweep`` over KBC DREs at a single lambda (see :func:`~gendel.synthetic.experiments.variation_sweeps`).

    Returns
    -------
    plotly.graph_objects.Figure

    Examples
    --------
    >>> from gendel.core.dre import make_dre
    >>> from gendel.synthetic.experiments import Protocol, sweep
    >>> one = sweep(Protocol("mog8", lam=0.8, N=60, m=20, R=5), [make_dre("kbc", s) for s in (0.075, 0.1)],
    ...             cache=False, progress=False)
    >>> len(variation_figure({"N = 60": one}, "Q3").data)
    1
    """
    _check_question(question, stat)
    if not variations:
        raise ValueError("variations is empty: pass a dict label -> Sweep, e.g. variation_sweeps(Protocol(\"mog8\", lam=0.8))")
    fig = go.Figure()
    palette = NEUTRALS
    for i, (label, sw) in enumerate(variations.items()):
        if len(sw.lams) != 1 or _family(sw) != "kbc":
            raise ValueError(f"variation {label!r} must be a KBC sweep at a single lambda")
        R_ = sw.results[0][0].settings["R"]
        fig.add_trace(go.Scatter(x=_label_values(sw), y=sw.ks(question, stat)[0], mode="lines+markers",
                                 name=f"{label} (KS resolution 1/R = {1 / R_:.3f})",
                                 line=dict(color=palette[i % len(palette)], width=3 if i == 0 else 2,
                                           dash="solid" if i == 0 else "dash"),
                                 hovertemplate="σ_C=%{x:g}<br>KS=%{y:.3f}<extra>" + label + "</extra>"))
    st = next(iter(variations.values())).results[0][0].settings
    fig.add_vline(x=st["sigma_a"], line=dict(color="grey", dash="dot"))
    fig.update_layout(
        title=_title(f"KS of {question} under other m, N, R (Appendix D)",
                     f"{_question_sides(question)} ({STATISTICS[stat].label}); "
                     f"{DATASETS.get(st['dataset'], st['dataset'])}, λ = {st['lam']:g}, KBC"),
        xaxis_title="KBC bandwidth σ_C", yaxis=dict(title=f"KS statistic, {question}, {STATISTICS[stat].label}",
                                                    range=[0, 1.03]),
        # The legend goes under the plot: inside it would cover the curves, which fill the top of
        # the KS range.
        height=540, margin=dict(l=60, r=20, t=80, b=140),
        legend=dict(orientation="h", x=0.0, xanchor="left", y=-62.0 / (540 - 80 - 140), yanchor="top"),
    )
    return readable_figure(fig)


__all__ = ["ks_curve_figure", "ks_panels_figure", "variation_figure"]
