"""Figures of the chapter on DCGANs (§5.2, Appendix E).

Every function takes numbers computed by :mod:`gendel.gan.summaries` (or stored in
:class:`~gendel.gan.result_files.JobResult`\\ s) and returns a plotly figure; nothing here trains or
samples.

==================================  ==========================================================
:func:`sample_grid_figure`          32 samples of each model, side by side
:func:`label_bars_figure`           Fig. 7(a)(b): label distributions (mean ± SE over seeds),
                                    the exact X \\ X' as a mark, one panel per deletion set
:func:`label_bars_slider_figure`    the same for every λ of a setting, with a slider over λ
:func:`statistics_figure`           Fig. 7(c): histograms of LR/ASC under H0, H1 and the control
:func:`ks_lambda_figure`            Appendix E's Q3 in one view: KS against λ per statistic
:func:`achieved_figure`             the share of the deletion Alg. 1 achieves on real images and
                                    on GAN samples, and on the GAN after each epoch
:func:`cost_figure`                 quality (TV to X \\ X') against seconds: re-training and fast deletion
:func:`bound_slider_figure`         Alg. 1's label distribution as the bound B moves
:func:`forest_figure`               Q2 in one view: β (the share of the exact shift of δ) of each
                                    model for every deletion set, with 90 % t intervals
==================================  ==========================================================
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from gendel.deletion_test.stats import PAPER_STATISTICS, STATISTICS
from gendel.gan.images import CLASS_NAMES, DATASET_NAMES
from gendel.gan.labels import MODEL_NAMES as _MODEL_NAMES
from gendel.gan.labels import bound_label_distribution, deleted_labels
from gendel.plotting.common import COLORS, STAT_COLORS, plotly_text, readable_figure, rgba, step_outline

MODEL_COLORS = {"pre": COLORS["H0"], "re": COLORS["H1"], "approx": COLORS["D"], "control": "#8C8C8C"}
#: The model names of :data:`gendel.gan.labels.MODEL_NAMES` with HTML subscripts, for figure text.
MODEL_NAMES = {k: plotly_text(v) for k, v in _MODEL_NAMES.items()}
SUBTITLE = "<br><span style='font-size:13px;color:#444'>{}</span>"


def _title(title, subtitle):
    return title + (SUBTITLE.format(subtitle) if subtitle else "")


def setting_name(setting, lam):
    """``even-0.7`` as the paper writes a deletion set.

    Examples
    --------
    >>> setting_name("even", 0.7)
    'even-0.7'
    """
    return f"{setting}-{lam:g}"


def profile_label(name, results):
    """A profile's name with the hardware its results ran on, short: ``"gpu (H100)"``.

    Examples
    --------
    >>> from gendel.gan.result_files import stored_results
    >>> profile_label("gpu", stored_results("gpu"))
    'gpu (H100)'
    """
    hardware = results[0].provenance["hardware"]
    record = hardware.get("job") or hardware.get("retrained", [{}])[0]
    if record.get("device_type") == "cpu":
        return f"{name} (CPU)"
    return f"{name} ({record.get('device', '?').removeprefix('NVIDIA ').split()[0]})"


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
    fig.update_layout(height=300, margin=dict(l=10, r=10, t=90, b=10), title=dict(text=_title(title, subtitle),
                                                                                 font_size=15))
    return readable_figure(fig)


def _bars(fig, s, models, *, row, col, showlegend):
    for k in models:
        sem = s.sem(k)
        err = None if np.all(np.isnan(sem)) else dict(type="data", array=sem, thickness=1.2)
        fig.add_trace(go.Bar(x=list(range(10)), y=s.mean(k), error_y=err, name=MODEL_NAMES[k],
                             marker_color=MODEL_COLORS[k], legendgroup=k, showlegend=showlegend,
                             hovertemplate="%{x}: %{y:.3f}<extra>" + MODEL_NAMES[k] + "</extra>"),
                      row=row, col=col)
    fig.add_trace(go.Scatter(x=list(range(10)), y=s.data_kept, mode="markers", name="X ∖ X′ (the data, exact)",
                             marker=dict(symbol="line-ew-open", size=22, color="#111111", line=dict(width=3, color="#111111")),
                             legendgroup="kept", showlegend=showlegend,
                             hovertemplate="%{x}: %{y:.3f}<extra>X ∖ X′</extra>"), row=row, col=col)


def _panel_title(s):
    gap = float(s.tv("pre", "re").mean())
    closed = np.array([1.0 - float(s.tv("approx", "re").mean()) / gap]) if gap > 0 else np.array([np.nan])
    seeds = len(s.seeds)
    text = (f"{DATASET_NAMES[s.dataset]}, {setting_name(s.setting, s.lam)} ({seeds} seed{'s' if seeds > 1 else ''}):"
            f" deleted labels {s.mass('pre').mean():.1%} → {s.mass('approx').mean():.1%} (re-trained "
            f"{s.mass('re').mean():.1%}, X ∖ X′ {float(s.data_kept[deleted_labels(s.setting)].sum()):.1%})")
    if np.all(np.isfinite(closed)):
        text += f"<br>{np.mean(closed):.0%} of the TV gap to p̂′ closed"
    return text


def label_bars_figure(summaries, *, title, subtitle="", models=("pre", "re", "approx")):
    """Label distributions of the models, one panel per deletion set (Fig. 7(a)(b), App. E).

    Bars are means over the seeds and whiskers one standard error; the black marks are the exact
    label distribution of X \\ X' (the yardstick); the labels X' was drawn from are shaded.

    Parameters
    ----------
    summaries : list of :class:`gendel.gan.summaries.LabelSummary`

    Examples
    --------
    >>> from gendel.gan.summaries import label_summary
    >>> from gendel.gan.result_files import stored_results
    >>> fig = label_bars_figure(label_summary(stored_results("gpu"))[:1], title="Fig. 7(a)")
    >>> [trace.name for trace in fig.data]
    ['pre-trained p̂', 're-trained p̂′', 'approximated ρ̂<sub>ℰ</sub>·p̂', 'X ∖ X′ (the data, exact)']
    """
    n = len(summaries)
    panel, gap, top, bottom = 300, 150, 150, 70        # pixels
    height = top + bottom + n * panel + (n - 1) * gap
    plot_h = height - top - bottom
    fig = make_subplots(rows=n, cols=1, subplot_titles=[_panel_title(s) for s in summaries],
                        vertical_spacing=gap / plot_h if n > 1 else 0)
    fig.update_annotations(font_size=12)
    for i, s in enumerate(summaries, start=1):
        _bars(fig, s, [m for m in models if m in s.dist], row=i, col=1, showlegend=i == 1)
        for c in deleted_labels(s.setting):
            fig.add_vrect(x0=c - 0.5, x1=c + 0.5, fillcolor=COLORS["deleted"], opacity=0.07, line_width=0, row=i, col=1)
        fig.update_xaxes(tickmode="array", tickvals=list(range(10)), ticktext=list(CLASS_NAMES[s.dataset]),
                         title_text="label (shaded: the labels X′ was drawn from)", row=i, col=1)
        fig.update_yaxes(title_text="fraction of samples", rangemode="tozero", row=i, col=1)
    fig.update_layout(barmode="group", height=height, margin=dict(l=60, r=20, t=top, b=bottom), bargap=0.18,
                      title=dict(text=_title(title, subtitle), font_size=15, y=1 - 12 / height, yanchor="top"),
                      legend=dict(orientation="h", yanchor="bottom", y=1 + 40 / plot_h, x=0))
    return readable_figure(fig)


def label_bars_slider_figure(summaries, *, title, subtitle="", models=("pre", "re", "approx")):
    """Label distributions for every λ of one data set and setting, with a slider over λ (App. E).

    Parameters
    ----------
    summaries : list of :class:`gendel.gan.summaries.LabelSummary`
        One per λ, of one data set and setting.

    Examples
    --------
    >>> from gendel.gan.summaries import label_summary
    >>> from gendel.gan.result_files import stored_results
    >>> s = [x for x in label_summary(stored_results("gpu")) if x.dataset == "mnist" and x.setting == "odd"]
    >>> fig = label_bars_slider_figure(s, title="App. E")
    >>> [step.label for step in fig.layout.sliders[0].steps]
    ['0.7']
    """
    if not summaries or len({(s.dataset, s.setting) for s in summaries}) != 1:
        raise ValueError("label_bars_slider_figure needs summaries of one data set and setting (one per λ)")
    summaries = sorted(summaries, key=lambda s: s.lam)
    first = summaries[0]
    models = [m for m in models if m in first.dist]
    fig = go.Figure()
    start = len(summaries) - 1
    for k in models:
        sem = first.sem(k)
        fig.add_bar(x=list(CLASS_NAMES[first.dataset]), y=summaries[start].mean(k), name=MODEL_NAMES[k],
                    marker_color=MODEL_COLORS[k],
                    error_y=None if np.all(np.isnan(sem)) else dict(type="data", array=summaries[start].sem(k)),
                    hovertemplate="%{x}: %{y:.3f}<extra>" + MODEL_NAMES[k] + "</extra>")
    fig.add_scatter(x=list(CLASS_NAMES[first.dataset]), y=summaries[start].data_kept, mode="markers",
                    name="X ∖ X′ (the data, exact)",
                    marker=dict(symbol="line-ew-open", size=22, color="#111111", line=dict(width=3, color="#111111")))
    for c in deleted_labels(first.setting):
        fig.add_vrect(x0=c - 0.5, x1=c + 0.5, fillcolor=COLORS["deleted"], opacity=0.07, line_width=0)

    def args(s):
        ys = [s.mean(k) for k in models] + [s.data_kept]
        errs = [dict(type="data", array=s.sem(k)) if not np.all(np.isnan(s.sem(k))) else None for k in models] + [None]
        return [{"y": ys, "error_y": errs}, {"title.text": _title(title, subtitle + "<br>" + _panel_title(s))}]

    fig.update_layout(
        barmode="group", height=640, margin=dict(l=60, r=20, t=180, b=40),
        title=dict(text=args(summaries[start])[1]["title.text"], font_size=15, x=0, xanchor="left", xref="container",
                   y=1, yanchor="top", yref="container", pad=dict(t=12, l=10)),
        # Just above the plot, under the title (the slider and the axis title are below the plot).
        legend=dict(orientation="h", yanchor="bottom", y=1 + 8 / (640 - 180 - 40), x=0),
        sliders=[dict(active=start, currentvalue=dict(prefix="λ = "), pad=dict(t=70),
                      steps=[dict(method="update", label=f"{s.lam:g}", args=args(s)) for s in summaries])])
    fig.update_xaxes(title_text="label (shaded: the labels X′ was drawn from)")
    fig.update_yaxes(title_text="fraction of samples", rangemode="tozero")
    return readable_figure(fig)


def statistics_figure(values, ks, *, stats=("lr", "asc-log", "asc-tlogt"), title, subtitle=""):
    """Histograms of LR and ASC of ρ̂_ℰ under H0 (Y ∼ p̂), H1 (Y ∼ p̂′) and the control (Y from a
    second p̂ on the same X) (Fig. 7(c), App. E).

    One row per deletion set; one column per statistic, titled with the statistic and its KS
    between H0 and H1 (and H0 and the control). H0 is drawn as filled bars, H1 and the control
    as outlines.

    Parameters
    ----------
    values : dict
        (data set, setting, λ) -> {stat: {"h0", "h1", "control"} -> values} (:func:`gendel.gan.summaries.statistics`).
    ks : dict
        (data set, setting, λ) -> {stat: {"h1": KS, "control": KS}}.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> key = ("mnist", "even", 0.7)
    >>> values = {key: {"lr": {"h0": rng.normal(0.0, 1.0, 50), "h1": rng.normal(3.0, 1.0, 50)}}}
    >>> fig = statistics_figure(values, {key: {"lr": {"h1": 0.9}}}, stats=("lr",), title="Fig. 7(c)")
    >>> [t.type for t in fig.data], fig.layout.annotations[0].text   # H0 bars, H1 outline
    (['bar', 'scatter'], 'LR<br>KS(H0, H1) = 0.90')
    """
    keys = list(values)
    n = len(keys)
    panel, gap, top, bottom = 250, 130, 170, 80        # pixels
    height = top + bottom + n * panel + (n - 1) * gap
    plot_h = height - top - bottom

    def head(key, st):
        k = ks[key][st]
        text = f"{STATISTICS[st].label}<br>KS(H0, H1) = {k['h1']:.2f}"
        return text + (f", KS(H0, control) = {k['control']:.2f}" if "control" in k else "")

    fig = make_subplots(rows=n, cols=len(stats), horizontal_spacing=0.08,
                        vertical_spacing=gap / plot_h if n > 1 else 0,
                        subplot_titles=[head(key, st) for key in keys for st in stats])
    fig.update_annotations(font_size=11)
    sides = (("h0", "Y_H0 ∼ p̂ (H0)", COLORS["H0"]), ("h1", "Y_H1 ∼ p̂′ (H1)", COLORS["H1"]),
             ("control", "Y ∼ control (p̂, another seed)", MODEL_COLORS["control"]))
    for i, key in enumerate(keys, start=1):
        for j, st in enumerate(stats, start=1):
            present = [(w, name, colour) for w, name, colour in sides if w in values[key][st]]
            arrays = {w: np.asarray(values[key][st][w], float) for w, _, _ in present}
            lo = min(a.min() for a in arrays.values())
            hi = max(a.max() for a in arrays.values())
            pad = 0.04 * (hi - lo) if hi > lo else 1e-3
            edges = np.linspace(lo - pad, hi + pad, 31)
            for w, name, colour in present:
                counts, _ = np.histogram(arrays[w], bins=edges)
                common = dict(name=plotly_text(name), legendgroup=w, showlegend=i == 1 and j == 1,
                              hovertemplate="%{x:.4g}: %{y}<extra>" + plotly_text(name) + "</extra>")
                if w == "h0":
                    fig.add_trace(go.Bar(x=(edges[:-1] + edges[1:]) / 2, y=counts, width=np.diff(edges),
                                         marker=dict(color=rgba(colour, 0.45), line=dict(color=colour, width=1)),
                                         **common), row=i, col=j)
                else:
                    xs, ys = step_outline(edges, counts)
                    fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines",
                                             line=dict(color=colour, width=2, dash="dot" if w == "control" else None),
                                             **common), row=i, col=j)
            fig.update_xaxes(row=i, col=j, nticks=4, range=[edges[0], edges[-1]],
                             title_text=f"{STATISTICS[st].label} of a sample set" if i == n else None)
            fig.update_yaxes(title_text="repeats" if j == 1 else None, rangemode="tozero", row=i, col=j)
        d, s, lam = key
        axis = fig.get_subplot(i, 1).yaxis.domain
        fig.add_annotation(text=f"<b>{DATASET_NAMES[d]}, {setting_name(s, lam)}</b>", x=0, xref="paper",
                           xanchor="left", y=axis[1], yref="paper", yanchor="bottom", yshift=40, showarrow=False,
                           font_size=13)
    fig.update_layout(barmode="overlay", bargap=0, height=height, margin=dict(l=60, r=20, t=top, b=bottom),
                      title=dict(text=_title(title, subtitle), font_size=15, y=1 - 12 / height, yanchor="top"),
                      legend=dict(orientation="h", yanchor="bottom", y=1 + 74 / plot_h, x=0))
    return readable_figure(fig)


def ks_lambda_figure(ks, *, title, subtitle=""):
    """KS between H0 and H1 against λ, one line per statistic (mean ± SE over the seeds), and the
    control (KS between H0 and a second p̂ on the same X, LR) dashed; one panel per data set and
    setting. Appendix E's Q3 figures in one view.

    Parameters
    ----------
    ks : list of :class:`gendel.gan.summaries.KSSummary`

    Examples
    --------
    >>> from gendel.gan.summaries import ks_summary
    >>> from gendel.gan.result_files import stored_results
    >>> fig = ks_lambda_figure(ks_summary(stored_results("gpu")), title="KS by λ")
    >>> sorted({t.name for t in fig.data})
    ['ASC (log t)', 'ASC (t log t)', 'LR']
    """
    panels = sorted({(k.dataset, k.setting) for k in ks}, key=lambda p: (p[0] != "mnist", p[1]))
    fig = make_subplots(rows=1, cols=len(panels), shared_yaxes=True, horizontal_spacing=0.05,
                        subplot_titles=[f"{DATASET_NAMES[d]}, {s}-λ" for d, s in panels])
    for j, (d, s) in enumerate(panels, start=1):
        for st in PAPER_STATISTICS:
            colour = STAT_COLORS[st]
            rows = sorted((k for k in ks if (k.dataset, k.setting, k.stat) == (d, s, st)), key=lambda k: k.lam)
            if not rows:
                continue
            fig.add_trace(go.Scatter(x=[k.lam for k in rows], y=[k.mean for k in rows], mode="lines+markers",
                                     error_y=dict(type="data", array=[k.se for k in rows], thickness=1.2),
                                     line=dict(color=colour), name=STATISTICS[st].label, legendgroup=st,
                                     showlegend=j == 1,
                                     hovertemplate="λ = %{x}: KS %{y:.2f}<extra>" + STATISTICS[st].label + "</extra>"),
                          row=1, col=j)
            if st == "lr" and all(len(k.ks_control) for k in rows):
                fig.add_trace(go.Scatter(x=[k.lam for k in rows], y=[float(k.ks_control.mean()) for k in rows],
                                         mode="lines+markers", line=dict(color="#8C8C8C", dash="dash"),
                                         name="LR, control (H0 against another p̂)", legendgroup="control",
                                         showlegend=j == 1), row=1, col=j)
        fig.update_xaxes(title_text="λ (share kept)", tickvals=[0.6, 0.7, 0.8, 0.9],
                         range=[0.55, 0.95], row=1, col=j)
    fig.update_yaxes(title_text="KS between the statistic under H0 and H1", range=[0, 1.05], row=1, col=1)
    fig.update_layout(height=460, margin=dict(l=60, r=20, t=150, b=60),
                      title=dict(text=_title(title, subtitle), font_size=15),
                      legend=dict(orientation="h", yanchor="bottom", y=1.12, x=0))
    return readable_figure(fig)


def achieved_figure(achieved, *, title, subtitle=""):
    """The share of the exact shift of the deleted labels that Alg. 1 with ρ̂_ℰ achieves, on the
    training images, the test images and the pre-trained GAN's samples (left), and on the GAN after
    each epoch of its training (right); mean ± SE over the seeds, one colour per deletion set.

    Parameters
    ----------
    achieved : list of :class:`gendel.gan.summaries.Achieved`

    Examples
    --------
    >>> from gendel.gan.summaries import Achieved
    >>> a = Achieved("mnist", "even", 0.7, (0, 1), np.array([0.6, 0.62]), np.array([0.55, 0.57]),
    ...              np.array([0.3, 0.34]), {1: np.array([0.0, 0.02]), 2: np.array([0.2, 0.22])})
    >>> fig = achieved_figure([a], title="Where the effect is lost")
    >>> list(fig.data[0].x), [round(y, 2) for y in fig.data[0].y]
    (['training images', 'test images', 'GAN samples'], [0.61, 0.56, 0.32])
    """
    fig = make_subplots(rows=1, cols=2, column_widths=[0.45, 0.55], horizontal_spacing=0.1,
                        subplot_titles=["by pool (empirical model and GAN)", "on the pre-trained GAN, by its epoch"])
    palette = ("#3B3B3B", "#7B4F9D", "#B2182B", "#1F4E9C", "#8C8C8C", "#CC79A7", "#5E3C99", "#6B4423")
    for i, a in enumerate(achieved):
        colour = palette[i % len(palette)]
        name = f"{DATASET_NAMES[a.dataset]} {setting_name(a.setting, a.lam)}"
        sem = lambda v: float(np.std(v, ddof=1) / np.sqrt(len(v))) if len(v) > 1 else 0.0  # noqa: E731
        pools = (a.train, a.test, a.gan)
        fig.add_trace(go.Bar(x=["training images", "test images", "GAN samples"], y=[float(np.mean(v)) for v in pools],
                             error_y=dict(type="data", array=[sem(v) for v in pools]), marker_color=colour, name=name,
                             legendgroup=name, hovertemplate="%{x}: %{y:.0%}<extra>" + name + "</extra>"), row=1, col=1)
        epochs = list(a.gan_by_epoch)
        fig.add_trace(go.Scatter(x=epochs, y=[float(np.mean(a.gan_by_epoch[e])) for e in epochs], mode="lines+markers",
                                 line=dict(color=colour), name=name, legendgroup=name, showlegend=False,
                                 hovertemplate="epoch %{x}: %{y:.0%}<extra>" + name + "</extra>"), row=1, col=2)
    fig.update_yaxes(title_text="share achieved", tickformat=".0%", row=1, col=1)
    fig.update_yaxes(tickformat=".0%", row=1, col=2)
    fig.update_xaxes(title_text="epoch of the pre-trained GAN's training", row=1, col=2)
    fig.update_layout(barmode="group", height=480, margin=dict(l=70, r=20, t=140, b=60),
                      title=dict(text=_title(title, subtitle), font_size=15),
                      legend=dict(orientation="h", yanchor="top", y=-0.2, x=0))
    return readable_figure(fig)


def cost_figure(cost_list, *, title, subtitle=""):
    """Quality against cost: the TV distance of the label distribution to the exact X \\ X' against
    seconds, for re-training (after each epoch of p̂′'s training) and for fast deletion (after each
    epoch of the VDM's training, plus Alg. 1's sampling of m points), one line per seed.

    Parameters
    ----------
    cost_list : list of :class:`gendel.gan.summaries.Cost`
        Of one deletion set.

    Examples
    --------
    >>> from gendel.gan.summaries import Cost
    >>> c = Cost("mnist", "even", 0.7, 0, "cpu", 100, np.array([[10.0, 0.3], [20.0, 0.1]]),
    ...          np.array([[1.0, 0.25], [2.0, 0.2]]), 0.5)
    >>> [t.name for t in cost_figure([c], title="Cost").data]
    ['re-training p̂′ (after each epoch)', 'fast deletion ρ̂<sub>ℰ</sub>·p̂ (after each VDM epoch)']
    """
    fig = go.Figure()
    clock = {"cpu": "CPU seconds (one thread)", "wall": "seconds"}[cost_list[0].clock]
    for i, c in enumerate(cost_list):
        first = i == 0
        fig.add_trace(go.Scatter(x=c.retrain_curve[:, 0], y=c.retrain_curve[:, 1], mode="lines+markers",
                                 line=dict(color=COLORS["H1"]), name="re-training p̂′ (after each epoch)",
                                 legendgroup="re", showlegend=first,
                                 hovertemplate="%{x:.1f} s: TV %{y:.3f}<extra>seed " + str(c.seed) + "</extra>"))
        fig.add_trace(go.Scatter(x=c.fast_curve[:, 0], y=c.fast_curve[:, 1], mode="lines+markers",
                                 line=dict(color=COLORS["D"]), name=plotly_text("fast deletion ρ̂_ℰ·p̂ (after each VDM epoch)"),
                                 legendgroup="fast", showlegend=first,
                                 hovertemplate="%{x:.1f} s: TV %{y:.3f}<extra>seed " + str(c.seed) + "</extra>"))
    fig.update_xaxes(title_text=f"{clock}: training (+ Alg. 1's sampling of m points)", rangemode="tozero")
    fig.update_yaxes(title_text="TV of the labels to X ∖ X′ (lower is better)", rangemode="tozero")
    fig.update_layout(height=440, margin=dict(l=70, r=20, t=130, b=60),
                      title=dict(text=_title(title, subtitle), font_size=15),
                      legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0))
    return readable_figure(fig)


def bound_slider_figure(results, bounds=(1.0, 1.05, 1.1, 1.2, 1.3, 1.5, 2.0, 3.0, 5.0, 10.0), *, title):
    """Label distribution of Alg. 1 as the bound B moves, from stored pre-trained samples.

    One slider step per B: the approximated model's bars (pre-trained samples weighted by
    min(ρ̂_ℰ, B)), beside the pre-trained and re-trained bars of the same jobs. Works without a
    kernel: every step is computed here.

    Parameters
    ----------
    results : list of :class:`~gendel.gan.result_files.JobResult`
        Of one deletion set; the seeds are averaged.

    Examples
    --------
    >>> from gendel.gan.result_files import stored_results
    >>> r = [r for r in stored_results("gpu") if r.name == "mnist-even-0.7-seed0"]
    >>> fig = bound_slider_figure(r, bounds=(1.0, 2.0), title="Alg. 1 as B moves")
    >>> [step.label for step in fig.layout.sliders[0].steps]
    ['1', '2']
    """
    if not results:
        raise ValueError("bound_slider_figure needs at least one result")
    first = results[0]
    pre = np.mean([np.bincount(r.arrays["pre_labels"], minlength=10) / len(r.arrays["pre_labels"]) for r in results],
                  axis=0)
    re = np.mean([r.distribution("re") for r in results], axis=0)
    steps = []
    for b in bounds:
        per_seed = [bound_label_distribution(r.arrays["pre_labels"], r.arrays["pre_log_ratio"], b) for r in results]
        steps.append((np.mean([d for d, _ in per_seed], axis=0), float(np.mean([a for _, a in per_seed]))))
    start = len(bounds) - 1
    names = CLASS_NAMES[first.dataset]
    fig = go.Figure()
    for k, y in (("pre", pre), ("re", re), ("approx", steps[start][0])):
        fig.add_bar(x=list(names), y=y, name=MODEL_NAMES[k], marker_color=MODEL_COLORS[k],
                    hovertemplate="%{x}: %{y:.3f}<extra>" + MODEL_NAMES[k] + "</extra>")
    max_ratio = max(float(np.exp(np.max(r.arrays["pre_log_ratio"]))) for r in results)
    sub = (f"{DATASET_NAMES[first.dataset]} {setting_name(first.setting, first.lam)}, {len(results)} "
           f"seed{'' if len(results) == 1 else 's'}; largest ρ̂<sub>ℰ</sub> on the samples: {max_ratio:.2f}")

    def label(i):
        return _title(title, f"{sub}<br>B = {bounds[i]:g}: acceptance rate {steps[i][1]:.1%}")

    fig.update_layout(
        barmode="group", height=600, margin=dict(l=60, r=20, t=160, b=40),
        title=dict(text=label(start), font_size=15, x=0, xanchor="left", xref="container", y=1, yanchor="top",
                   yref="container", pad=dict(t=12, l=10)),
        # Just above the plot, under the title (the slider and the axis title are below the plot).
        legend=dict(orientation="h", yanchor="bottom", y=1 + 8 / (600 - 160 - 40), x=0),
        sliders=[dict(active=start, currentvalue=dict(prefix="bound B = "), pad=dict(t=70),
                      steps=[dict(method="update", label=f"{b:g}",
                                  args=[{"y": [pre, re, steps[i][0]]}, {"title.text": label(i)}])
                             for i, b in enumerate(bounds)])])
    fig.update_xaxes(title_text="label")
    fig.update_yaxes(title_text="fraction of samples", rangemode="tozero")
    return readable_figure(fig)


FOREST_MODELS = ("approx", "re", "control", "pre")


def forest_figure(estimates, *, title, subtitle=""):
    """Q2 in one view: for every deletion set, β = (δ(model) − δ(p̂)) / (δ(X ∖ X′) − δ(X)) of the
    approximated, re-trained, control and pre-trained (doing nothing) models, each with its 90 % t
    interval over the seeds, on one axis: 1 is the whole shift deleting X′ makes in the data, 0 none.

    Parameters
    ----------
    estimates : list of :class:`gendel.claims.gan_q2.Estimate`

    Examples
    --------
    >>> from gendel.claims.gan_q2 import shift_estimates
    >>> from gendel.gan.summaries import label_summary
    >>> from gendel.gan.result_files import stored_results
    >>> fig = forest_figure(shift_estimates(label_summary(stored_results("gpu"))), title="β")
    >>> [t.name for t in fig.data][:2]
    ['approximated ρ̂<sub>ℰ</sub>·p̂', 're-trained p̂′']
    """
    sets = list(dict.fromkeys((e.dataset, e.setting, e.lam) for e in estimates))
    labels = [f"{DATASET_NAMES.get(d, d)} {setting_name(st, lam)}" for d, st, lam in sets]
    position = {key: len(sets) - 1 - i for i, key in enumerate(sets)}
    models = [m for m in FOREST_MODELS if any(e.model == m for e in estimates)]
    offsets = {m: 0.27 - 0.18 * j for j, m in enumerate(models)}
    fig = go.Figure()
    for m in models:
        rows = [e for e in estimates if e.model == m]
        beta = np.array([e.beta for e in rows])
        lo = np.array([e.beta_interval[0] for e in rows])
        hi = np.array([e.beta_interval[1] for e in rows])
        err = (None if np.all(np.isnan(lo)) else
               dict(type="data", symmetric=False, array=hi - beta, arrayminus=beta - lo, thickness=1.5, width=3))
        fig.add_trace(go.Scatter(x=beta, y=[position[(e.dataset, e.setting, e.lam)] + offsets[m] for e in rows],
                                 mode="markers", error_x=err, name=MODEL_NAMES[m],
                                 marker=dict(color=MODEL_COLORS[m], size=8,
                                             symbol={"pre": "diamond", "control": "x"}.get(m, "circle")),
                                 customdata=np.column_stack([[e.shift for e in rows], lo, hi]),
                                 text=[labels[len(sets) - 1 - position[(e.dataset, e.setting, e.lam)]] for e in rows],
                                 hovertemplate="%{text}: β %{x:.2f} [%{customdata[1]:.2f}, %{customdata[2]:.2f}], "
                                               "shift of δ %{customdata[0]:+.3f}<extra>" + MODEL_NAMES[m] + "</extra>"))
    for x, words, side in ((0.0, "doing nothing", "right"), (1.0, "the data's shift", "left")):
        fig.add_vline(x=x, line=dict(color="#555555", dash="dot", width=1))
        fig.add_annotation(x=x, y=len(sets) - 0.4, text=words, showarrow=False, yanchor="bottom", xanchor=side,
                           font_size=12)  # each on the outer side of its line: the two never overlap
    for k in range(1, len(sets)):
        if sets[k][0] != sets[k - 1][0]:
            fig.add_hline(y=len(sets) - k - 0.5, line=dict(color="#BBBBBB", width=1))
    top, bottom = 170, 60  # room for the title, the subtitle and the legend above the plot, apart
    height = top + bottom + 34 * len(sets)
    fig.update_yaxes(tickvals=list(range(len(sets))), ticktext=labels[::-1], range=[-0.6, len(sets) - 0.1])
    fig.update_xaxes(title_text="β: the share of the data's shift of the deleted mass δ that the model moves",
                     zeroline=False)
    fig.update_layout(height=height, margin=dict(l=150, r=20, t=top, b=bottom),
                      title=dict(text=_title(title, subtitle), font_size=15),
                      legend=dict(orientation="h", yanchor="bottom", y=1 + 34 / (height - top - bottom), x=0))
    return readable_figure(fig)
