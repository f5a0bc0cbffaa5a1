"""Distributions and acceptance rates: Figs. 5 and 6 and their Appendix D extensions.

===========================  =================================================================
:func:`ridgeline_figure`     Figs. 5, 6 and Appendix D: distributions per DRE, lambda slider
:func:`acceptance_figure`    acceptance rate of Alg. 1 per DRE
===========================  =================================================================
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ...experiments import QUESTIONS
from ..common import LAMBDA_COLORS, STAT_SHORT
from ._common import (_check_question, _family, _finite, _k_ticks, _label_values, _legend_name, _question_sides,
                      _title, _top_legend, _violin, _x_title)
from .settings import DATASET_LABELS, FAMILY_LABELS, sample_color
from .sliders import slider, step_index, typed_array


def ridgeline_figure(sweeps, question, stats=("LR", "tlogt"), *, lams=None, initial_lam=0.8, title=None):
    """Distributions of a statistic over the R repeats, one row per DRE setting, lambda slider.

    Panels are ordered as in Figs. 5 and 6: for each statistic, one panel per DRE family
    (kNN rows k, KBC rows sigma_C), two panels per row of the figure. Each row of a panel overlays
    the two distributions that ``question`` compares, in the paper's colours, and writes their KS
    statistic right of the panel. A panel whose values are all positive and whose rows differ
    widely in spread gets a log x axis (see :func:`_log_axis`). Repeats whose
    statistic is -inf (a zero ratio, possible for kNN DREs) are counted on the row, not drawn.

    Parameters
    ----------
    sweeps : dict
        ``{"knn": Sweep, "kbc": Sweep}`` (either may be left out), e.g. from
        :func:`chapter_sweeps`.
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
    >>> from gendel.dre import make_dre
    >>> from gendel.experiments import sweep
    >>> kbc = sweep("mog8", [0.6, 0.8], [make_dre("kbc", s) for s in (0.075, 0.1)], labels=["0.075", "0.1"],
    ...             N=60, m=20, R=5, cache=False, progress=False)
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
    # and the KS column.
    cols = min(len(panels), 2)
    rows = -(-len(panels) // cols)
    top, bottom, panel_h, gap = 135, 140, 290, 85  # pixels
    height = top + bottom + rows * panel_h + (rows - 1) * gap
    plot_h = height - top - bottom
    fig = make_subplots(rows=rows, cols=cols, horizontal_spacing=0.2 if cols > 1 else 0.0,
                        vertical_spacing=gap / plot_h if rows > 1 else 0.0,
                        subplot_titles=[f"({'abcdefghijkl'[p]}) {FAMILY_LABELS[f]}: {STAT_SHORT[stat]}"
                                        for p, (stat, f) in enumerate(panels)])
    violins, notes = [], []  # violins: (trace, family, setting, statistic, side); notes: (family, setting, stat)
    for p, (stat, f) in enumerate(panels):
        sw = sweeps[f]
        i = row_of[f][active]
        r, c = p // cols + 1, p % cols + 1
        for j, label in enumerate(sw.labels):
            for key in sides:
                violins.append((len(fig.data), f, j, stat, key))
                fig.add_trace(_violin(sw.results[i][j].values[stat][key], name=_legend_name(key),
                                      color=sample_color(question, key), y0=label, legendgroup=str(key),
                                      showlegend=p == 0 and j == 0, dark=question == "Q1" and key[1] == "dre"),
                              row=r, col=c)
            notes.append((f, j, stat))
            axis = "" if p == 0 else str(p + 1)
            # The KS value of the row, in a column just right of the panel, outside the data.
            fig.add_annotation(text=_row_note(sw.results[i][j], question, stat), xref=f"x{axis} domain",
                               yref=f"y{axis}", x=1.0, y=j, xanchor="left", yanchor="bottom", xshift=4,
                               align="left", showarrow=False, font=dict(size=10))
        log_x = _log_axis(sweeps[f], row_of[f], stat, sides)
        fig.update_xaxes(title_text=STAT_SHORT[stat] + (" (log scale)" if log_x else ""),
                         **(log_x or dict(nticks=5)), tickangle=0, title_standoff=6, row=r, col=c)
        fig.update_yaxes(title_text="k" if f == "knn" else "σ_C", type="category", categoryorder="array",
                         categoryarray=list(sw.labels), range=[-0.3, len(sw.labels) - 0.05],
                         title_standoff=4, row=r, col=c)
    first_note = len(fig.layout.annotations) - len(notes)
    steps = []
    for k, lam in enumerate(lams):
        xs = [typed_array(_finite(sweeps[f].results[row_of[f][k]][j].values[stat][key])[0])
              for _, f, j, stat, key in violins]
        layout = {f"annotations[{first_note + n}].text": _row_note(sweeps[f].results[row_of[f][k]][j], question, stat)
                  for n, (f, j, stat) in enumerate(notes)}
        steps.append(dict(method="update", label=f"{lam:g}", args=[{"x": xs}, layout, [v[0] for v in violins]]))
    st = sweeps[families[0]].results[0][0].settings
    if title is None:
        name = {"Q2": "Fig. 5", "Q3": "Fig. 6"}.get(question, "Distributions")
        title = _title(f"{name} and Appendix D: {DATASET_LABELS.get(st['dataset'], st['dataset'])}",
                       f"{_question_sides(question)} over R = {st['R']} repeats; m = {st['m']}, N = {st['N']}; "
                       "KS of each row on its right")
    else:
        title = _title(title)
    fig.update_layout(
        title=title, violinmode="overlay", height=height,
        margin=dict(l=55, r=62, t=top, b=bottom), legend=_top_legend(height),
        # The slider starts 62 px under the plots, below the x-axis titles, so that its
        # current-value label does not cover them.
        sliders=[slider(steps, "λ = ", active, y=-62.0 / plot_h, pad_t=0)],
    )
    fig.update_annotations(font_size=13, selector=dict(xref="paper"))  # the subplot titles
    return fig


def _log_axis(sweep_, rows, stat, sides, spread=20.0):
    """Log x axis settings of a ridgeline panel, or None for a linear axis.

    A panel gets a log axis when all its values are positive and the widths of its rows differ by
    more than ``spread`` times over the slider's lambdas: on a linear axis the narrowest rows would
    be thin spikes. Ticks sit at 1, 2 and 5 times the powers of ten (plotly's own log ticks label
    every digit and crowd a narrow panel).
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
    return dict(type="log", tickvals=ticks, ticktext=[f"{t:g}" for t in ticks])


def _row_note(result, question, stat):
    """'KS 0.123' (and the number of -inf repeats) for one row of a ridgeline panel."""
    n_inf = sum(_finite(result.values[stat][key])[1] for key in QUESTIONS[question])
    return f"KS {result.ks[question, stat]:.2f}" + (f"<br>{n_inf}×−∞" if n_inf else "")


def acceptance_figure(sweeps_by_dataset):
    """Acceptance rate of Alg. 1 for every DRE and lambda, with the rate (N - N')/N of rho_hat.

    Parameters
    ----------
    sweeps_by_dataset : dict
        ``dataset -> {"kbc": Sweep, "knn": Sweep}`` (from :func:`chapter_sweeps`).

    Returns
    -------
    plotly.graph_objects.Figure
        One row per data set, one column per DRE family. Dotted lines: (N - N') / N, the
        acceptance rate with the exact ratio rho_hat (B = N / (N - N'), E_p_hat[rho_hat] = 1).

    Examples
    --------
    >>> from gendel.dre import make_dre
    >>> from gendel.experiments import sweep
    >>> kbc = sweep("mog8", [0.6, 0.8], [make_dre("kbc", s) for s in (0.075, 0.1)], labels=["0.075", "0.1"],
    ...             N=60, m=20, R=5, cache=False, progress=False)
    >>> knn = sweep("mog8", [0.6, 0.8], [make_dre("knn", k) for k in (3, 6)], labels=["3", "6"],
    ...             N=60, m=20, R=5, cache=False, progress=False)
    >>> len(acceptance_figure({"mog8": {"kbc": kbc, "knn": knn}}).data)  # two lines per family and lambda
    8
    """
    datasets = list(sweeps_by_dataset)
    fams = ["kbc", "knn"]
    fig = make_subplots(rows=len(datasets), cols=2, horizontal_spacing=0.08, vertical_spacing=0.2,
                        subplot_titles=[f"{DATASET_LABELS.get(d, d)}: {FAMILY_LABELS[f]}" for d in datasets for f in fams])
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
    return fig


__all__ = ["acceptance_figure", "ridgeline_figure"]
