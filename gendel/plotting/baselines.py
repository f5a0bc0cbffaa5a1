"""Figures of the baselines page: what each way of forgetting moves, what it costs, and the
random-deletion control. Every function takes numbers computed by :mod:`gendel.claims.baselines`."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from gendel.claims.baselines import RANDOM_MARGIN, median_cpu, method_name
from gendel.claims.base import t_halfwidth, t_test
from gendel.gan.images import DATASET_NAMES
from gendel.plotting.common import COLORS, NEUTRALS, readable_figure

#: One colour per method: the paper's three for doing nothing, re-training and fast deletion.
METHOD_COLORS = {"pre": COLORS["H0"], "re": COLORS["H1"], "approx": COLORS["D"], "oracle": NEUTRALS[1],
                 "control": NEUTRALS[4]}
#: Fine-tuning budgets, light to dark.
FINETUNE_COLORS = ("#B2182B", "#6B4423", "#3B3B3B")
SUBTITLE = "<br><span style='font-size:13px;color:#444'>{}</span>"


def method_color(method, methods):
    """The colour of ``method`` among ``methods`` (fine-tuning budgets in order of their epochs).

    Examples
    --------
    >>> method_color("approx", ["approx"]) == COLORS["D"], method_color("finetune-3", ["finetune-1", "finetune-3"])
    (True, '#6B4423')
    """
    if method.startswith("finetune-"):
        tuned = [m for m in methods if m.startswith("finetune-")]
        return FINETUNE_COLORS[tuned.index(method) % len(FINETUNE_COLORS)]
    return METHOD_COLORS[method]


def _short(method):
    return {"pre": "doing nothing", "re": "re-training", "approx": "fast deletion", "oracle": "label oracle",
            "control": "another training"}.get(method) or method.replace("finetune-", "fine-tune ") + " ep."


def cost_quality_figure(case_list, betas, *, title, subtitle=""):
    """β (the share of the data's shift of δ moved, 90 % t interval over the seeds) against the median
    CPU seconds to forget and draw the samples, one panel per data set, one point per method.

    Examples
    --------
    >>> from gendel.claims.baselines import beta_table, toy_case
    >>> cs = [toy_case(lam, {"approx": 0.4, "re": 1.0}) for lam in (0.6, 0.8)]
    >>> fig = cost_quality_figure(cs, beta_table(cs), title="cost")
    >>> sorted(t.name for t in fig.data)[:2]
    ['doing nothing (pre-trained p̂)', 'fast deletion (Alg. 1, VDM ratio)']
    """
    datasets = list(dict.fromkeys(c.dataset for c in case_list if c.setting != "random"))
    methods = [m for m in case_list[0].methods if m != "control"]
    fig = make_subplots(rows=len(datasets), cols=1, shared_xaxes=True, vertical_spacing=0.1,
                        subplot_titles=[DATASET_NAMES.get(d, d) for d in datasets])  # stacked: as wide as a phone
    seconds = [median_cpu([c for c in case_list if c.dataset == d], m) for d in datasets for m in methods]
    span = [np.log10(np.nanmin(seconds)) - 0.35, np.log10(np.nanmax(seconds)) + 0.6]  # room for the labels
    for row, d in enumerate(datasets, 1):
        chosen = [c for c in case_list if c.dataset == d and c.setting != "random"]
        for m in methods:
            b = betas[(m, d)]
            x = median_cpu(chosen, m)
            err = None if not np.isfinite(b.halfwidth) else dict(type="data", array=[b.halfwidth], thickness=1.5,
                                                                    width=4)
            fig.add_trace(go.Scatter(
                x=[x], y=[b.beta], error_y=err, mode="markers+text", text=[_short(m)],
                textposition="top center" if m not in ("pre",) else "bottom center", textfont_size=11,
                name=method_name(m), legendgroup=m, showlegend=row == 1,
                marker=dict(color=method_color(m, methods), size=10, symbol="diamond" if m == "pre" else "circle"),
                hovertemplate=f"{method_name(m)}<br>β %{{y:.2f}} ± {b.halfwidth:.2f} (90 % t, {b.seeds} seeds)"
                              "<br>%{x:.1f} CPU s<extra></extra>"), row=row, col=1)
        fig.add_hline(y=0, line=dict(color="#555555", dash="dot", width=1), row=row, col=1)
        fig.add_hline(y=1, line=dict(color="#555555", dash="dot", width=1), row=row, col=1)
        ticks = [t for t in (0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000) if span[0] <= np.log10(t) <= span[1]]
        fig.update_xaxes(type="log", range=span, tickvals=ticks, ticktext=[f"{t:g}" for t in ticks], row=row, col=1)
        fig.update_yaxes(title_text="β", row=row, col=1)
    fig.update_xaxes(title_text="CPU seconds to forget and draw the samples (log scale)", row=len(datasets), col=1)
    top, bottom = 110, 190
    fig.update_layout(height=220 * len(datasets) + top + bottom + 80, margin=dict(l=60, r=20, t=top, b=bottom),
                      title=dict(text=title + (SUBTITLE.format(subtitle) if subtitle else ""), font_size=15),
                      legend=dict(orientation="h", yanchor="top", y=-0.16, x=0))
    return readable_figure(fig)


def random_deletion_figure(case_list, *, title, subtitle=""):
    """The negative control: under random deletion of N′ images, δ(method) − δ(p̂) of the even labels as
    a share of the even deletion's exact shift at the same λ (mean over the seeds, 90 % t interval),
    beside the same share under that even deletion; the band is the margin of "moves nothing".

    Examples
    --------
    >>> from gendel.claims.baselines import toy_case
    >>> cs = [toy_case(0.6, {"approx": 0.4}), toy_case(0.6, {"approx": 0.0}, setting="random")]
    >>> fig = random_deletion_figure(cs, title="random")
    >>> [t.name for t in fig.data]
    ['random deletion', 'even deletion of the same size']
    """
    methods = [m for m in case_list[0].methods if m != "pre"]
    rows = []
    for c in case_list:
        if c.setting != "random":
            continue
        even = next((e for e in case_list if e.setting == "even" and e.dataset == c.dataset and e.lam == c.lam), None)
        for m in methods:
            for kind, source in (("random deletion", c), ("even deletion of the same size", even)):
                if source is None:
                    continue
                mean, se, df, _, _ = t_test(source.shift(m), floor=source.floor(m))
                ref = abs(c.reference_shift)
                rows.append((kind, f"{DATASET_NAMES.get(c.dataset, c.dataset)} λ={c.lam:g}", m, -mean / ref,
                             t_halfwidth(se, df) / ref))
    labels = list(dict.fromkeys(f"{r[1]}: {_short(r[2])}" for r in rows))
    position = {key: len(labels) - 1 - i for i, key in enumerate(labels)}
    fig = go.Figure()
    fig.add_vrect(x0=-RANDOM_MARGIN, x1=RANDOM_MARGIN, fillcolor="#DDDDDD", opacity=0.5, line_width=0, layer="below")
    for kind, colour, offset, symbol in (("random deletion", "#3B3B3B", 0.15, "circle"),
                                         ("even deletion of the same size", "#B2182B", -0.15, "square")):
        chosen = [r for r in rows if r[0] == kind]
        if not chosen:
            continue
        hw = np.array([r[4] for r in chosen])
        err = None if np.all(np.isnan(hw)) else dict(type="data", array=hw, thickness=1.5, width=3)
        fig.add_trace(go.Scatter(x=[r[3] for r in chosen], y=[position[f"{r[1]}: {_short(r[2])}"] + offset
                                                               for r in chosen],
                                 error_x=err, mode="markers", name=kind, marker=dict(color=colour, size=8,
                                                                                      symbol=symbol),
                                 text=[f"{r[1]}: {method_name(r[2])}" for r in chosen],
                                 hovertemplate="%{text}: %{x:.2f} of the even deletion's shift<extra>" + kind
                                               + "</extra>"))
    for x in (0.0, 1.0):
        fig.add_vline(x=x, line=dict(color="#555555", dash="dot", width=1))
    height = 250 + 26 * len(labels)
    fig.update_yaxes(tickvals=list(range(len(labels))), ticktext=labels[::-1], range=[-0.6, len(labels) - 0.4])
    fig.update_xaxes(title_text="fewer even labels, as a share of an even deletion's shift of the same size",
                     zeroline=False)
    fig.update_layout(height=height, margin=dict(l=210, r=20, t=110, b=110),
                      title=dict(text=title + (SUBTITLE.format(subtitle) if subtitle else ""), font_size=15),
                      legend=dict(orientation="h", yanchor="top", y=-60 / (height - 170), x=0))
    return readable_figure(fig)


__all__ = ["cost_quality_figure", "random_deletion_figure"]
