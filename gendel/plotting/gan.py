"""Figures of the chapter on DCGANs (§5.2, Appendix E): sample grids, label bars, LR/ASC.

Every function takes numbers computed by :mod:`gendel.gan.report` or stored in result files
(:mod:`gendel.gan.protocol`) and returns a plotly figure; nothing here trains or samples.
"""

from __future__ import annotations


import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from gendel.gan.report import MODEL_NAMES as _MODEL_NAMES
from gendel.gan.report import bound_label_distribution, deleted_labels
from gendel.gan.images import CLASS_NAMES
from gendel.plotting.common import COLORS, plotly_text, readable_figure, rgba, step_outline

DATASET_NAMES = {"mnist": "MNIST", "fashion-mnist": "Fashion-MNIST"}
MODEL_COLORS = {"pre": COLORS["H0"], "re": COLORS["H1"], "approx": COLORS["D"]}
STAT_NAMES = {"LR": "LR(Y, ρ̂_ℰ)", "ASC log": "ASC, φ(t) = log t", "ASC tlogt": "ASC, φ(t) = t log t"}
#: The model names of :data:`gendel.gan.report.MODEL_NAMES` with HTML subscripts, for figure text.
MODEL_NAMES = {k: plotly_text(v) for k, v in _MODEL_NAMES.items()}
STAT_SHORT = {"LR": "LR", "ASC log": "ASC (φ = log t)", "ASC tlogt": "ASC (φ = t log t)"}


def setting_name(setting, lam):
    """``even-0.7`` as the paper writes a deletion set.

    Examples
    --------
    >>> from gendel.plotting.gan import setting_name
    >>> setting_name("even", 0.7)
    'even-0.7'
    """
    return f"{setting}-{lam:g}"


def profile_label(name, results):
    """A profile's name with the hardware its results ran on, short: ``"gpu (H100)"``.

    Examples
    --------
    >>> from gendel.plotting.gan import profile_label
    >>> profile_label("gpu", [{"hardware": {"device": "NVIDIA H100 80GB HBM3", "device_type": "cuda"}}])
    'gpu (H100)'
    >>> profile_label("quick", [{"hardware": {"device": "CPU (x86_64)", "device_type": "cpu"}}])
    'quick (CPU)'
    """
    hardware = results[0]["hardware"]
    if hardware.get("device_type") == "cpu":
        return f"{name} (CPU)"
    return f"{name} ({hardware['device'].removeprefix('NVIDIA ').split()[0]})"


def _tile(images, cols):
    """uint8 images (n, 28, 28) -> one (rows*29 - 1, cols*29 - 1) mosaic with 1-pixel gaps."""
    images = np.asarray(images)
    n = len(images) - len(images) % cols
    rows = n // cols
    out = np.full((rows * 29 - 1, cols * 29 - 1), 255, dtype=np.uint8)
    for k in range(n):
        r, c = divmod(k, cols)
        out[r * 29:r * 29 + 28, c * 29:c * 29 + 28] = images[k]
    return out


def sample_grid_figure(grids, *, cols=8, title="", subtitle=""):
    """Image grids side by side, one panel per model.

    Parameters
    ----------
    grids : dict
        Model key (``"pre"``, ``"re"``, ``"approx"``) -> uint8 images of shape (n, 28, 28).

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.plotting.gan import sample_grid_figure
    >>> rng = np.random.default_rng(0)
    >>> grids = {k: rng.integers(0, 256, (16, 28, 28), dtype=np.uint8) for k in ("pre", "approx")}
    >>> fig = sample_grid_figure(grids, cols=8, title="Samples")
    >>> [a.text for a in fig.layout.annotations], np.shape(fig.data[0].z)    # 2 x 8 images, 1-pixel gaps
    (['pre-trained p̂', 'approximated ρ̂<sub>ℰ</sub>·p̂'], (57, 231))
    """
    keys = list(grids)
    fig = make_subplots(rows=1, cols=len(keys), subplot_titles=[MODEL_NAMES.get(k, k) for k in keys],
                        horizontal_spacing=0.03)
    for j, k in enumerate(keys, start=1):
        mosaic = _tile(grids[k], cols)
        fig.add_trace(go.Heatmap(z=mosaic[::-1], colorscale="gray", zmin=0, zmax=255, showscale=False,
                                 hovertemplate="pixel %{z}<extra>" + MODEL_NAMES.get(k, k) + "</extra>"),
                      row=1, col=j)
        fig.update_xaxes(visible=False, constrain="domain", row=1, col=j)
        fig.update_yaxes(visible=False, scaleanchor=f"x{j if j > 1 else ''}", scaleratio=1, row=1, col=j)
    text = title + (f"<br><sup>{subtitle}</sup>" if subtitle else "")
    fig.update_layout(height=300, margin=dict(l=10, r=10, t=80, b=10), title=dict(text=text, font_size=14))
    return readable_figure(fig)


def _bar_traces(fig, mean, sem, classes, *, row=None, col=None, showlegend=True, models=("pre", "re", "approx")):
    for k in models:
        err = None if sem is None or np.all(np.isnan(sem[k])) else dict(type="data", array=sem[k], thickness=1.2)
        fig.add_trace(go.Bar(x=list(classes), y=mean[k], error_y=err, name=MODEL_NAMES[k],
                             marker_color=MODEL_COLORS[k], legendgroup=k, showlegend=showlegend,
                             hovertemplate="%{x}: %{y:.3f}<extra>" + MODEL_NAMES[k] + "</extra>"),
                      row=row, col=col)


def _shade_deleted(fig, setting, *, row=None, col=None):
    for c in deleted_labels(setting):
        fig.add_vrect(x0=c - 0.5, x1=c + 0.5, fillcolor=COLORS["deleted"], opacity=0.07, line_width=0,
                      row=row, col=col)


def label_bars_figure(summaries, *, title, subtitle=""):
    """Label distributions of the three models, one panel per deletion set (Fig. 7(a)(b), App. E).

    Bars are means over the seeds and whiskers one standard error; the labels X' was drawn from
    are shaded.

    Parameters
    ----------
    summaries : list of :class:`gendel.gan.report.LabelSummary`

    Examples
    --------
    >>> from gendel.gan.report import label_summary
    >>> from gendel.plotting.gan import label_bars_figure
    >>> r = {"job": {"dataset": "mnist", "setting": "even", "lam": 0.5, "seed": 0},
    ...      "labels": {"pre": [100] * 10, "re": [50, 100] * 5, "approx": [60, 100] * 5}}
    >>> fig = label_bars_figure(label_summary([r]), title="Fig. 7(a)")
    >>> [trace.name for trace in fig.data], fig.layout.annotations[0].text
    (['pre-trained p̂', 're-trained p̂′', 'approximated ρ̂<sub>ℰ</sub>·p̂'], 'MNIST, even-0.5:<br>75% of the TV gap closed')
    """
    n = len(summaries)
    titles = [f"{DATASET_NAMES[s.dataset]}, {setting_name(s.setting, s.lam)}:<br>"
              f"{np.mean(s.gap_closed):.0%} of the TV gap closed" for s in summaries]
    panel, gap, top, bottom = 300, 140, 150, 70        # pixels
    height = top + bottom + n * panel + (n - 1) * gap
    plot_h = height - top - bottom
    fig = make_subplots(rows=n, cols=1, subplot_titles=titles, vertical_spacing=gap / plot_h if n > 1 else 0)
    for i, s in enumerate(summaries, start=1):
        _bar_traces(fig, s.mean, s.sem, range(10), row=i, col=1, showlegend=i == 1)
        _shade_deleted(fig, s.setting, row=i, col=1)
        names = CLASS_NAMES[s.dataset]
        fig.update_xaxes(tickmode="array", tickvals=list(range(10)),
                         ticktext=list(names),   # one line each: a rotated two-line label reads backwards
                         title_text="label (shaded: the labels X′ was drawn from)", row=i, col=1)
        fig.update_yaxes(title_text="fraction of samples", rangemode="tozero", row=i, col=1)
    text = title + (f"<br><sup>{subtitle}</sup>" if subtitle else "")
    fig.update_layout(barmode="group", height=height, margin=dict(l=60, r=20, t=top, b=bottom), bargap=0.18,
                      title=dict(text=text, font_size=14, y=1 - 12 / height, yanchor="top"),
                      legend=dict(orientation="h", yanchor="bottom", y=1 + 38 / plot_h, x=0))
    return readable_figure(fig)


def statistics_figure(values, ks, *, stats=("LR", "ASC log", "ASC tlogt"), title, subtitle=""):
    """Histograms of LR and ASC of ρ̂_ℰ under H0 (Y ∼ p̂) and H1 (Y ∼ p̂′) (Fig. 7(c), App. E).

    One row per deletion set, headed by its name; one column per statistic, titled with the
    statistic and its KS. H0 is drawn as filled bars, H1 as an outline (a step line), so that
    where the two overlap each keeps its colour.

    Parameters
    ----------
    values : dict
        (data set, setting, λ) -> {stat: (H0 values, H1 values)}.
    ks : dict
        (data set, setting, λ) -> {stat: KS statistic}.

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.plotting.gan import statistics_figure
    >>> rng = np.random.default_rng(0)
    >>> key = ("mnist", "even", 0.7)
    >>> values = {key: {"LR": (rng.normal(0.0, 1.0, 50), rng.normal(3.0, 1.0, 50))}}
    >>> fig = statistics_figure(values, {key: {"LR": 0.9}}, stats=("LR",), title="Fig. 7(c)")
    >>> [t.type for t in fig.data], [a.text for a in fig.layout.annotations]   # H0 bars, H1 outline
    (['bar', 'scatter'], ['LR<br>KS = 0.90', '<b>MNIST, even-0.7</b>'])
    """
    keys = list(values)
    n = len(keys)
    panel, gap, top, bottom = 250, 120, 170, 80        # pixels
    height = top + bottom + n * panel + (n - 1) * gap
    plot_h = height - top - bottom
    fig = make_subplots(rows=n, cols=len(stats), horizontal_spacing=0.08,
                        vertical_spacing=gap / plot_h if n > 1 else 0,
                        subplot_titles=[f"{STAT_SHORT[st]}<br>KS = {ks[key][st]:.2f}" for key in keys for st in stats])
    fig.update_annotations(font_size=11)
    hypotheses = (("H0", "Y_H0 ∼ p̂ (H0)"), ("H1", "Y_H1 ∼ p̂′ (H1)"))
    for i, key in enumerate(keys, start=1):
        for j, st in enumerate(stats, start=1):
            h0, h1 = (np.asarray(v, dtype=float) for v in values[key][st])
            lo, hi = float(min(h0.min(), h1.min())), float(max(h0.max(), h1.max()))
            edges = np.linspace(lo, hi, 31) if hi > lo else np.array([lo - 1e-3, lo + 1e-3])
            for (hyp, name), v in zip(hypotheses, (h0, h1)):
                counts, _ = np.histogram(v, bins=edges)
                common = dict(name=plotly_text(name), legendgroup=hyp, showlegend=i == 1 and j == 1,
                              hovertemplate="%{x:.4g}: %{y}<extra>" + plotly_text(name) + "</extra>")
                if hyp == "H0":      # filled bars
                    fig.add_trace(go.Bar(x=(edges[:-1] + edges[1:]) / 2, y=counts, width=np.diff(edges),
                                         marker=dict(color=rgba(COLORS[hyp], 0.45),
                                                     line=dict(color=COLORS[hyp], width=1)), **common),
                                  row=i, col=j)
                else:                # outline only
                    xs, ys = step_outline(edges, counts)
                    fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(color=COLORS[hyp], width=2),
                                             **common), row=i, col=j)
            fig.update_xaxes(row=i, col=j, nticks=4, title_text=f"{STAT_SHORT[st]} of a sample set" if i == n else None)
            fig.update_yaxes(title_text="repeats" if j == 1 else None, rangemode="tozero", row=i, col=j)
        d, s, lam = key
        axis = fig.get_subplot(i, 1).yaxis.domain
        fig.add_annotation(text=f"<b>{DATASET_NAMES[d]}, {setting_name(s, lam)}</b>", x=0, xref="paper",
                           xanchor="left", y=axis[1], yref="paper", yanchor="bottom", yshift=36, showarrow=False,
                           font_size=13)
    text = title + (f"<br><sup>{subtitle}</sup>" if subtitle else "")
    fig.update_layout(barmode="overlay", bargap=0, height=height, margin=dict(l=60, r=20, t=top, b=bottom),
                      title=dict(text=text, font_size=14, y=1 - 12 / height, yanchor="top"),
                      legend=dict(orientation="h", yanchor="bottom", y=1 + 70 / plot_h, x=0))
    return readable_figure(fig)


def bound_slider_figure(results, bounds=(1.0, 1.05, 1.1, 1.2, 1.3, 1.5, 2.0, 3.0, 5.0, 10.0), *, title):
    """Label distribution of Alg. 1 as the bound B moves, from stored pre-trained samples.

    One slider step per B: the approximated model's bars (pre-trained samples weighted by
    min(ρ̂_ℰ, B)), beside the pre-trained and re-trained bars of the same job. Works without a
    kernel: every step is computed here.

    Parameters
    ----------
    results : list of dict
        Job results with arrays (``pre_labels``, ``pre_log_ratio``), all of one deletion set;
        the seeds are averaged.

    Examples
    --------
    Pre-trained samples of ten labels; ρ̂_ℰ is 0.5 on the even ones and 1.5 on the odd ones:

    >>> import numpy as np
    >>> from gendel.plotting.gan import bound_slider_figure
    >>> labels = np.arange(100) % 10
    >>> r = {"job": {"dataset": "mnist", "setting": "even", "lam": 0.5, "seed": 0},
    ...      "labels": {"re": [50, 100] * 5},
    ...      "arrays": {"pre_labels": labels, "pre_log_ratio": np.log(np.where(labels % 2, 1.5, 0.5))}}
    >>> fig = bound_slider_figure([r], bounds=(1.0, 2.0), title="Alg. 1 as B moves")
    >>> [step.label for step in fig.layout.sliders[0].steps], np.round(fig.data[2].y[:2], 3).tolist()
    (['1', '2'], [0.05, 0.15])
    """
    if not results:
        raise ValueError("bound_slider_figure needs at least one result")
    job = results[0]["job"]
    pre = np.mean([np.bincount(r["arrays"]["pre_labels"], minlength=10) / len(r["arrays"]["pre_labels"])
                   for r in results], axis=0)
    re = np.mean([np.asarray(r["labels"]["re"]) / sum(r["labels"]["re"]) for r in results], axis=0)
    steps = []
    for b in bounds:
        per_seed = [bound_label_distribution(r["arrays"]["pre_labels"], r["arrays"]["pre_log_ratio"], b)
                    for r in results]
        steps.append((np.mean([d for d, _ in per_seed], axis=0), float(np.mean([a for _, a in per_seed]))))
    start = len(bounds) - 1
    names = CLASS_NAMES[job["dataset"]]
    fig = go.Figure()
    for k, y in (("pre", pre), ("re", re), ("approx", steps[start][0])):
        fig.add_bar(x=list(names), y=y, name=MODEL_NAMES[k], marker_color=MODEL_COLORS[k],
                    hovertemplate="%{x}: %{y:.3f}<extra>" + MODEL_NAMES[k] + "</extra>")
    max_ratio = max(float(np.exp(np.max(r["arrays"]["pre_log_ratio"]))) for r in results)
    sub = (f"{DATASET_NAMES[job['dataset']]} {setting_name(job['setting'], job['lam'])}, "
           f"{len(results)} seed{'' if len(results) == 1 else 's'}; largest ρ̂<sub>ℰ</sub> on the samples: {max_ratio:.2f}")

    def label(i):
        b, (dist, acc) = bounds[i], steps[i]
        return f"{title}<br><sup>{sub}<br>B = {b:g}: acceptance rate {acc:.1%}</sup>"

    fig.update_layout(
        barmode="group", height=500, margin=dict(l=60, r=20, t=130, b=40),
        title=dict(text=label(start), font_size=14),
        legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0),
        sliders=[dict(active=start, currentvalue=dict(prefix="bound B = "), pad=dict(t=60),
                      steps=[dict(method="update", label=f"{b:g}",
                                  args=[{"y": [pre, re, steps[i][0]]}, {"title.text": label(i)}], )
                             for i, b in enumerate(bounds)])],
    )
    fig.update_xaxes(title_text="label")
    fig.update_yaxes(title_text="fraction of samples", rangemode="tozero")
    return readable_figure(fig)
