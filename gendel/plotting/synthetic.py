"""Figures of the chapter on the two-dimensional synthetic data sets (§5.1 and Appendix D).

Every builder is a plain function returning a :class:`plotly.graph_objects.Figure`:

==========================  ==================================================================
:func:`setup_figure`        Fig. 2 (and its CKB-8 twin): p_*, p_*', p_hat, p_hat', rho_hat, X'
:func:`true_density_figure` Appendix D: p_* and p_*' for each lambda
:func:`ratio_maps_figure`   Fig. 3 and Appendix D: rho_hat and rho_hat_E maps, lambda slider
:func:`bandwidth_maps_figure`  rho_hat above the KBC rho_hat_E for every lambda, sigma_C slider
:func:`ks_curve_figure`     Fig. 4 (a)-(c): KS vs sigma_C per lambda, sigma_C slider showing the
                            compared distributions
:func:`ks_panels_figure`    Appendix D KS panels: one panel per statistic (KBC or kNN sweeps)
:func:`variation_figure`    Appendix D KS panel (a): other m, N, R
:func:`ridgeline_figure`    Figs. 5, 6 and Appendix D: distributions per DRE, lambda slider
:func:`acceptance_figure`   acceptance rate of Alg. 1 per DRE
==========================  ==================================================================

Figures with a slider carry all their states in ``layout.sliders`` (float32 arrays, or 8-bit
colour codes for maps), so they stay interactive in the static HTML of the book, without a
kernel. Sample sets keep the paper's colours (``gendel.plotting.common.COLORS``).

The chapter's grids (the settings every page of the chapter shares, so that the disk cache of
:func:`gendel.experiments.sweep` serves all of them) are constants of :mod:`gendel.experiments`,
where :func:`~gendel.experiments.chapter_sweeps` / :func:`~gendel.experiments.variation_sweeps`
run them:

========================  ==========================================================
``LAMBDAS``               lambda of every KBC sweep and every ratio map
``SIGMA_C``               KBC bandwidths sigma_C (symmetric around sigma_A = 0.1)
``KNN_K``                 k of the kNN DREs
``KNN_LAMBDAS``           lambda of the kNN sweeps (the paper's Appendix D panels)
``VARIATIONS``            the (m, N, R) variations of the Appendix D KS panels (a)
========================  ==========================================================
"""

from __future__ import annotations

import base64

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots
from scipy.special import kolmogi

from ..data import EXTENT, LABELS, check_dataset, density
from ..dre import KernelClassifierDRE, KNNClassifierDRE
from ..experiments import (KNN_K, KNN_LAMBDAS, LAMBDAS, PAPER_SETTINGS, QUESTIONS, SIGMA_C, STATISTICS,
                           grid, setup)
from .common import COLORS, LAMBDA_COLORS, STAT_LABELS, STAT_SHORT
from .maps import RATIO_ZMAX, ratio_colorscale, square_axes

# --------------------------------------------------------------------------------------------
# The chapter's settings (the grids themselves live in gendel.experiments)

N, M, R, SIGMA_A, SEED = (PAPER_SETTINGS[k] for k in ("N", "m", "R", "sigma_a", "seed"))
#: Critical value of the two-sample KS test at level 5 % with R = 250 values on each side,
#: sqrt(2 / R) * K^{-1}(0.95) (K the Kolmogorov distribution): the yardstick of the chapter.
KS_CRITICAL_5 = float(kolmogi(0.05) * np.sqrt(2.0 / R))


def claim_verdict(passed, total):
    """The verdict of a checked claim: "holds" (all cases pass), "partly" (some) or "does not hold"."""
    if total <= 0:
        raise ValueError("a claim needs at least one checked case")
    return "holds" if passed == total else ("partly" if passed > 0 else "does not hold")

#: The DREs of the ratio maps of Fig. 3 and its Appendix D extensions.
MAP_DRES = {
    "KBC σ_C = 0.075": lambda: KernelClassifierDRE(0.075),
    "KBC σ_C = 0.125": lambda: KernelClassifierDRE(0.125),
    "kNN k = 10": lambda: KNNClassifierDRE(10),
    "kNN k = 20": lambda: KNNClassifierDRE(20),
}

DATASET_LABELS = LABELS
FAMILY_LABELS = {"kbc": "KBC", "knn": "kNN"}

_SAMPLE_NAMES = {"H0": "Y<sub>H0</sub>", "H1": "Y<sub>H1</sub>", "D": "Y<sub>D</sub>"}
_RATIO_NAMES = {"exact": "ρ̂", "dre": "ρ̂<sub>E</sub>"}


def sample_color(question, key):
    """The paper's colour of one side of a comparison (§5.1): orange H0, green H1, light blue D.

    Q1 compares one sample set under two ratios: the side with rho_hat_E gets a dark outline
    colour so the two stay apart.
    """
    if question == "Q1" and key[1] == "dre":
        return "#7A4A00"
    return COLORS[key[0]]


# --------------------------------------------------------------------------------------------
# Small helpers


def _typed(arr):
    """A float32 array as a plotly.js typed-array spec (base64), for data inside slider args.

    plotly.py encodes arrays of traces and frames compactly but leaves arrays inside
    ``layout.sliders[].steps[].args`` as JSON lists of numbers; plotly.js decodes this spec in
    ``restyle`` as it does for trace data.
    """
    a = np.ascontiguousarray(arr, dtype=np.float32)
    spec = {"dtype": "f4", "bdata": base64.b64encode(a.tobytes()).decode("ascii")}
    if a.ndim > 1:
        spec["shape"] = ", ".join(str(s) for s in a.shape)
    return spec


def _title(main, detail=None):
    """A figure title: the paper figure it reproduces, then (smaller) the settings used."""
    text = main if detail is None else f"{main}<br><span style='font-size:12px'>{detail}</span>"
    return dict(text=text, x=0.0, xanchor="left", y=1.0, yanchor="top", yref="container", pad=dict(t=10),
                font=dict(size=15))


def _top_legend(height):
    """Legend under the title, above the plots: slider figures keep their bottom for the slider."""
    return dict(orientation="h", x=0.0, xanchor="left", y=1.0 - 52.0 / height, yanchor="top", yref="container")

_LEVELS = 254  # colour codes 0..254 of the slider maps


def _codes(ratio, zmax):
    """Ratios on [0, zmax] as 8-bit colour codes 0..254 (steps of zmax / 254, below what a colour shows).

    Slider maps carry many grids; as codes they take a quarter of the float32 size.
    """
    return np.clip(np.rint(np.asarray(ratio) / zmax * _LEVELS), 0, _LEVELS).astype(np.uint8)


def _code_trace_style(zmax, *, showscale):
    """Heatmap style for colour codes: the ratio colour scale and a colour bar labelled in ratios."""
    ticks = [t for t in (0.0, 0.5, 1.0, 1.5, 2.0) if t <= zmax + 1e-9]
    return dict(zmin=0, zmax=_LEVELS, colorscale=ratio_colorscale(zmax), showscale=showscale, hoverinfo="skip",
                colorbar=dict(title=dict(text="ratio"), thickness=12, len=0.85,
                              tickvals=[t / zmax * _LEVELS for t in ticks], ticktext=[f"{t:g}" for t in ticks]))


def _typed_codes(codes):
    a = np.ascontiguousarray(codes, dtype=np.uint8)
    return {"dtype": "u1", "bdata": base64.b64encode(a.tobytes()).decode("ascii"),
            "shape": ", ".join(str(s) for s in a.shape)}


def _slider(steps, prefix, active, *, y=0.0, pad_t=40):
    return dict(
        active=active,
        steps=steps,
        currentvalue=dict(prefix=prefix, font=dict(size=14)),
        pad=dict(t=pad_t, b=0),
        x=0.0,
        len=1.0,
        y=y,
        yanchor="top",
    )


def _index(values, value, name):
    values = [float(v) for v in values]
    matches = [i for i, v in enumerate(values) if np.isclose(v, float(value))]
    if not matches:
        raise ValueError(f"{name}={value!r} is not one of {values}")
    return matches[0]


def _label_values(sweep_):
    """The numeric settings behind a sweep's labels (sigma_C or k)."""
    try:
        return [float(label) for label in sweep_.labels]
    except ValueError as exc:
        raise ValueError(f"the sweep's labels must be numbers (sigma_C or k); got {sweep_.labels}") from exc


def _family(sweep_):
    """``"kbc"`` or ``"knn"`` from the DREs a sweep ran."""
    dre = sweep_.results[0][0].settings["dre"]
    if dre.startswith("KernelClassifierDRE"):
        return "kbc"
    if dre.startswith("KNNClassifierDRE"):
        return "knn"
    raise ValueError(f"expected a sweep over KernelClassifierDRE or KNNClassifierDRE; got {dre}")


def _finite(values):
    values = np.asarray(values, dtype=float)
    return values[np.isfinite(values)], int(np.isneginf(values).sum())


def _check_question(question, stat):
    if question not in QUESTIONS:
        raise ValueError(f"question must be one of {tuple(QUESTIONS)}; got {question!r}")
    if stat not in STATISTICS:
        raise ValueError(f"stat must be one of {STATISTICS}; got {stat!r}")


# --------------------------------------------------------------------------------------------
# Setup figures: Fig. 2 and the p_*' panels of Appendix D


def _grid(dataset, resolution):
    return grid(EXTENT[dataset], resolution)


def setup_figure(dataset, lam=0.8, *, N=N, sigma_a=SIGMA_A, seed=SEED, variance=None, resolution=120):
    """Fig. 2 (MoG-8) / its Appendix D.2 twin (CKB-8): the experimental setup at one lambda.

    Panels: (a) p_*, (b) p_*', (c) the pre-trained KDE p_hat on X, (d) the re-trained KDE
    p_hat' on X \\ X', (e) rho_hat = p_hat' / p_hat, (f) X' (red) and X \\ X' (blue). The four
    densities share one colour scale; X and X' are those of the experiments
    (:func:`gendel.experiments.setup` with the same seed). ``variance`` is the MoG-8 component
    variance (None: the default 0.1 of :func:`gendel.data.mog8`).

    Returns
    -------
    plotly.graph_objects.Figure
    """
    dataset = check_dataset(dataset)
    X, deleted, exact = setup(dataset, lam, N=N, sigma_a=sigma_a, seed=seed, variance=variance)
    xs, ys, pts = _grid(dataset, resolution)
    shape = (resolution, resolution)
    true_options = {} if variance is None else {"variance": variance}
    dens = {
        "p_star": density(dataset, pts, 1.0, **true_options),
        "p_star_prime": density(dataset, pts, lam, **true_options),
        "p_hat": np.exp(exact.pretrained_.log_prob(pts)),
        "p_hat_prime": np.exp(exact.retrained_.log_prob(pts)),
    }
    ratio = np.exp(exact.log_ratio(pts)).reshape(shape)
    titles = ("(a) p<sub>*</sub>", f"(b) p<sub>*</sub>′ (λ = {lam:g})", "(c) p̂: KDE on X",
              "(d) p̂′: KDE on X \\ X′", "(e) ρ̂ = p̂′ / p̂", "(f) X′ (red), X \\ X′ (blue)")
    fig = make_subplots(rows=2, cols=3, subplot_titles=titles, horizontal_spacing=0.09, vertical_spacing=0.14)
    zmax = float(max(v.max() for v in dens.values()))
    for (r, c), (name, z) in zip([(1, 1), (1, 2), (1, 3), (2, 1)], dens.items()):
        fig.add_trace(go.Heatmap(x=xs, y=ys, z=z.reshape(shape).astype(np.float32), coloraxis="coloraxis",
                                 name=name, hovertemplate="x₁=%{x:.2f}<br>x₂=%{y:.2f}<br>density=%{z:.3f}"
                                 "<extra></extra>"), row=r, col=c)
    fig.add_trace(go.Heatmap(x=xs, y=ys, z=ratio.astype(np.float32), zmin=0.0, zmax=RATIO_ZMAX,
                             colorscale=ratio_colorscale(RATIO_ZMAX), name="ρ̂",
                             colorbar=dict(title=dict(text="ρ̂ (e)"), x=1.02, y=0.0, yanchor="bottom",
                                           len=0.43, thickness=12),
                             hovertemplate="x₁=%{x:.2f}<br>x₂=%{y:.2f}<br>ρ̂=%{z:.3f}<extra></extra>"),
                  row=2, col=2)
    for mask, key, name in [(~deleted, "kept", "X \\ X′ (kept)"), (deleted, "deleted", "X′ (deleted)")]:
        fig.add_trace(go.Scatter(x=X[mask, 0], y=X[mask, 1], mode="markers", name=f"{name}: {int(mask.sum())}",
                                 marker=dict(color=COLORS[key], size=4), legendgroup=key), row=2, col=3)
    fig.update_layout(
        coloraxis=dict(colorscale="Viridis", cmin=0.0, cmax=zmax,
                       colorbar=dict(title=dict(text="density<br>(a)–(d)"), x=1.02, y=1.0, yanchor="top",
                                     len=0.43, thickness=12)),
        title=_title(f"{'Fig. 2' if dataset == 'mog8' else 'Appendix D.2'}: setup of {DATASET_LABELS[dataset]}",
                     f"λ = {lam:g}, N = {N}, KDE bandwidth σ_A = {sigma_a:g}, seed {seed}"
                     + ("" if variance is None else f", component variance {variance:g}")),
        height=680, margin=dict(l=50, r=90, t=90, b=40),
        legend=dict(orientation="h", x=1.0, xanchor="right", y=-0.08, yanchor="top"),
    )
    return square_axes(fig, dataset, 2, 3)


def true_density_figure(dataset, lams=(0.9, 0.8, 0.7, 0.6, 0.5), *, resolution=100):
    """Appendix D setup figures: p_* and p_*' for several lambda, on one colour scale.

    Returns
    -------
    plotly.graph_objects.Figure
        1 + len(lams) panels, three per row.
    """
    dataset = check_dataset(dataset)
    xs, ys, pts = _grid(dataset, resolution)
    panels = [("(a) p<sub>*</sub>", 1.0)] + [
        (f"({chr(ord('b') + i)}) p<sub>*</sub>′, λ = {lam:g}", lam) for i, lam in enumerate(lams)]
    cols = 3
    rows = -(-len(panels) // cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[t for t, _ in panels], horizontal_spacing=0.08,
                        vertical_spacing=0.14)
    zs = [density(dataset, pts, lam).reshape(resolution, resolution) for _, lam in panels]
    for k, z in enumerate(zs):
        fig.add_trace(go.Heatmap(x=xs, y=ys, z=z.astype(np.float32), coloraxis="coloraxis",
                                 hovertemplate="x₁=%{x:.2f}<br>x₂=%{y:.2f}<br>density=%{z:.3f}<extra></extra>"),
                      row=k // cols + 1, col=k % cols + 1)
    fig.update_layout(
        coloraxis=dict(colorscale="Viridis", cmin=0.0, cmax=float(max(z.max() for z in zs)),
                       colorbar=dict(title=dict(text="density"), thickness=12, len=0.9)),
        title=_title(f"Appendix D: p<sub>*</sub> and p<sub>*</sub>′ of {DATASET_LABELS[dataset]}",
                     "p<sub>*</sub>′ for each λ; a larger λ means less data deleted"),
        height=250 * rows + 100, margin=dict(l=50, r=60, t=90, b=40),
    )
    fig.update_annotations(font_size=13)
    return square_axes(fig, dataset, rows, cols)


# --------------------------------------------------------------------------------------------
# Ratio maps: Fig. 3 and its Appendix D extensions


def _ratio_maps(dataset, lam, factories, points, N, sigma_a, seed):
    """rho_hat and the rho_hat_E of each DRE factory at ``points``, as flat arrays."""
    X, deleted, exact = setup(dataset, lam, N=N, sigma_a=sigma_a, seed=seed)
    dres = [exact] + [make().fit(X, deleted) for make in factories]
    return [np.exp(d.log_ratio(points)) for d in dres]


def ratio_maps_figure(dataset, *, lams=LAMBDAS, dres=None, initial_lam=0.6, N=N, sigma_a=SIGMA_A, seed=SEED,
                      resolution=100):
    """Fig. 3 and its Appendix D extension: rho_hat and rho_hat_E of several DREs, lambda slider.

    Parameters
    ----------
    dataset : {"mog8", "ckb8"}
    lams : sequence of float
        One slider step per lambda.
    dres : dict, optional
        ``label -> callable`` returning an unfitted DRE; ``MAP_DRES`` (KBC sigma_C = 0.075,
        0.125, kNN k = 10, 20) by default.
    initial_lam : float
        The lambda shown first (Fig. 3 uses 0.6).
    resolution : int
        Grid points per axis of every map.

    Returns
    -------
    plotly.graph_objects.Figure
        One heatmap per panel ((a) rho_hat, then one per DRE; three panels per row) and a
        slider whose steps restyle
        all maps. All maps share the colour scale on [0, RATIO_ZMAX] = [0, 2], white at ratio 1
        (every ratio here is at most B = N / (N - N') < 2). Maps are stored as 8-bit colour
        codes (hover is off on them).
    """
    dataset = check_dataset(dataset)
    dres = MAP_DRES if dres is None else dres
    lams = [float(v) for v in lams]
    active = _index(lams, initial_lam, "initial_lam")
    xs, ys, pts = _grid(dataset, resolution)
    per_lam = [[m.reshape(len(ys), len(xs)) for m in _ratio_maps(dataset, lam, list(dres.values()), pts, N, sigma_a, seed)]
               for lam in lams]
    zmax = RATIO_ZMAX
    titles = ["(a) ρ̂ (exact)"] + [f"({chr(ord('b') + i)}) {label}" for i, label in enumerate(dres)]
    n = len(titles)
    cols = min(n, 3)
    rows = -(-n // cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=titles, horizontal_spacing=0.08, vertical_spacing=0.12)
    for c in range(n):
        fig.add_trace(go.Heatmap(x=xs, y=ys, z=_codes(per_lam[active][c], zmax), name=titles[c],
                                 **_code_trace_style(zmax, showscale=c == 0)), row=c // cols + 1, col=c % cols + 1)
    steps = [dict(method="restyle", label=f"{lam:g}",
                  args=[{"z": [_typed_codes(_codes(m, zmax)) for m in maps]}, list(range(n))])
             for lam, maps in zip(lams, per_lam)]
    fig.update_layout(
        title=_title(f"{'Fig. 3 and Appendix D' if dataset == 'mog8' else 'Appendix D.2'}: ratio maps, "
                     f"{DATASET_LABELS[dataset]}",
                     f"ρ̂ and ρ̂<sub>E</sub>; N = {N}, σ_A = {sigma_a:g}, seed {seed}; white: ratio 1, "
                     "red: mass removed by the deletion"),
        sliders=[_slider(steps, "λ = ", active, pad_t=45)],
        height=230 * rows + 180, margin=dict(l=50, r=60, t=80, b=20),
    )
    fig.update_annotations(font_size=13)
    return square_axes(fig, dataset, rows, cols)


def bandwidth_maps_figure(dataset, *, lams=LAMBDAS, sigmas=SIGMA_C, initial_sigma=0.075, N=N, sigma_a=SIGMA_A,
                          seed=SEED, resolution=90):
    """rho_hat (top row) and the KBC rho_hat_E (bottom row) for every lambda, sigma_C slider.

    One column per lambda; the slider restyles the bottom row to the chosen sigma_C.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    dataset = check_dataset(dataset)
    lams = [float(v) for v in lams]
    sigmas = [float(s) for s in sigmas]
    active = _index(sigmas, initial_sigma, "initial_sigma")
    factories = [lambda s=s: KernelClassifierDRE(s) for s in sigmas]
    xs, ys, pts = _grid(dataset, resolution)
    per_lam = [[m.reshape(len(ys), len(xs)) for m in _ratio_maps(dataset, lam, factories, pts, N, sigma_a, seed)]
               for lam in lams]
    zmax = RATIO_ZMAX
    n = len(lams)
    fig = make_subplots(rows=2, cols=n, subplot_titles=[f"λ = {lam:g}" for lam in lams], horizontal_spacing=0.045,
                        vertical_spacing=0.1, row_titles=["ρ̂ (exact)", "KBC ρ̂<sub>E</sub>"])
    for c, maps in enumerate(per_lam, start=1):
        fig.add_trace(go.Heatmap(x=xs, y=ys, z=_codes(maps[0], zmax), name=f"ρ̂, λ = {lams[c - 1]:g}",
                                 **_code_trace_style(zmax, showscale=c == 1)), row=1, col=c)
    for c, maps in enumerate(per_lam, start=1):
        fig.add_trace(go.Heatmap(x=xs, y=ys, z=_codes(maps[1 + active], zmax), name=f"ρ̂_E, λ = {lams[c - 1]:g}",
                                 **_code_trace_style(zmax, showscale=False)), row=2, col=c)
    steps = [dict(method="restyle", label=f"{s:g}",
                  args=[{"z": [_typed_codes(_codes(maps[1 + j], zmax)) for maps in per_lam]},
                        list(range(n, 2 * n))])
             for j, s in enumerate(sigmas)]
    fig.update_layout(
        title=_title(f"Fig. 3 for every λ: KBC bandwidths, {DATASET_LABELS[dataset]}",
                     f"top: ρ̂; bottom: KBC ρ̂<sub>E</sub> for the σ_C of the slider (Fig. 3: 0.075, 0.125); "
                     f"N = {N}, σ_A = {sigma_a:g}"),
        sliders=[_slider(steps, "σ_C = ", active, pad_t=40)],
        height=520, margin=dict(l=50, r=60, t=80, b=20),
    )
    fig.update_annotations(font_size=12)
    # Every panel shows the same window: the x₂ title and tick labels of column 1 serve the whole
    # row (in the narrow gaps between columns they would run into the map on their left).
    square_axes(fig, dataset, 2, n, y_title_cols=(1,))
    for c in range(2, n + 1):
        fig.update_yaxes(showticklabels=False, row=1, col=c)
        fig.update_yaxes(showticklabels=False, row=2, col=c)
    return fig


# --------------------------------------------------------------------------------------------
# KS curves: Fig. 4 and the Appendix D KS panels

_KS_FIGURE = {"Q1": "Fig. 4(a)", "Q2": "Fig. 4(b)", "Q3": "Fig. 4(c)"}


def _x_title(family):
    return "KBC bandwidth σ_C" if family == "kbc" else "kNN neighbours k"


def _k_ticks(family, xs):
    """Tick marks at the swept k on log axes (plotly's default log ticks hide them)."""
    return dict(type="log", tickvals=list(xs), ticktext=[f"{x:g}" for x in xs]) if family == "knn" else {}


def _violin(values, *, name, color, y0, legendgroup, showlegend, dark=False):
    finite, _ = _finite(values)
    trace = go.Violin(
        x=finite.astype(np.float32), y0=y0, name=name, orientation="h", side="positive", width=1.6,
        points=False, line=dict(color=color, width=2.0 if dark else 1.2),
        fillcolor=color, opacity=0.55 if not dark else 0.45, legendgroup=legendgroup, showlegend=showlegend,
        spanmode="hard", meanline=dict(visible=False), hoveron="violins",
    )
    return trace


def ks_curve_figure(kbc_sweep, question, stat="LR", *, initial_sigma=None, reference=None):
    """Fig. 4 (a), (b) or (c): KS vs sigma_C, one line per lambda, with a sigma_C slider.

    Left: the KS statistic of ``question`` for ``stat`` against sigma_C, one line per lambda;
    a ring marks the chosen sigma_C. Right: one row per lambda with the two distributions
    (over the R repeats) that the KS statistic compares, at the chosen sigma_C, in the paper's
    colours. The slider moves the rings, redraws the distributions and updates the KS values
    written on the rows.

    Parameters
    ----------
    kbc_sweep : gendel.experiments.Sweep
        A sweep over KBC DREs whose labels are the sigma_C values.
    question : {"Q1", "Q2", "Q3"}
    stat : {"LR", "log", "tlogt", "hellinger"}
    initial_sigma : float, optional
        The sigma_C shown first (default: the largest sigma_C of the sweep below sigma_A).
    reference : float, optional
        A KS value drawn as a dashed horizontal line, e.g. the critical value of the
        two-sample KS test at level 5 %.

    Returns
    -------
    plotly.graph_objects.Figure
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
    active = _index(sigmas, initial_sigma, "initial_sigma")
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
                                  dark=question == "Q1" and key[1] == "dre"), row=i + 1, col=2)

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
        xs += [_typed(_finite(kbc_sweep.results[i][j].values[stat][key])[0]) for i in range(n) for key in sides]
        ys = [[float(ks[i, j])] for i in range(n)] + [None] * (2 * n)  # None: violins keep their y0 row
        layout = {f"annotations[{first_ann + i}].text": row_text(i, j) for i in range(n)}
        steps.append(dict(method="update", label=f"{s:g}", args=[{"x": xs, "y": ys}, layout, marker_idx + violin_idx]))
    fig.update_xaxes(title_text="KBC bandwidth σ_C", row=1, col=1)
    fig.update_yaxes(title_text=f"KS statistic ({question}, {STAT_SHORT[stat]})", range=[0, 1.03], row=1, col=1)
    for i in range(n):
        fig.update_yaxes(showticklabels=False, title_text=f"λ = {lams[i]:g}", title_standoff=2, row=i + 1, col=2)
        fig.update_xaxes(title_text=STAT_SHORT[stat] + " over the R repeats" if i == n - 1 else None,
                         row=i + 1, col=2)
    fig.add_vline(x=sigma_a, line=dict(color="grey", dash="dot"), row=1, col=1)
    if reference is not None:
        _reference_line(fig, reference, row=1, col=1)
    fig.update_layout(
        title=_title(f"{_KS_FIGURE[question] if stat == 'LR' else 'Appendix D'}: KS of {question}, "
                     f"{DATASET_LABELS.get(st['dataset'], st['dataset'])}",
                     f"{STAT_SHORT[stat]}: {_question_sides(question)}; m = {st['m']}, N = {st['N']}, "
                     f"R = {st['R']}, σ_A = {sigma_a:g} (dotted)"),
        violinmode="overlay", height=640, margin=dict(l=60, r=20, t=135, b=120),
        legend=_top_legend(640),
        sliders=[_slider(steps, "σ_C = ", active, y=-0.11, pad_t=10)],
    )
    return fig


def _reference_line(fig, value, **where):
    fig.add_hline(y=float(value), line=dict(color="#555555", dash="dash", width=1), annotation_text="KS test, 5 %",
                  annotation_position="top right", annotation_font_size=10, **where)


def ks_panels_figure(sweep_, question, stats=STATISTICS, *, title=None, reference=None):
    """KS statistic of ``question`` against sigma_C (KBC) or k (kNN), one panel per statistic.

    One line per lambda; the Appendix D KS panels (b)-(d) (and (a) for CKB-8) for KBC sweeps.
    ``reference`` (optional) draws a dashed horizontal line at that KS value in every panel.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    for stat in stats:
        _check_question(question, stat)
    family = _family(sweep_)
    xs = _label_values(sweep_)
    stats = list(stats)
    cols = 2 if len(stats) > 2 else len(stats)
    rows = -(-len(stats) // cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[STAT_LABELS[s] for s in stats],
                        horizontal_spacing=0.08, vertical_spacing=0.16)
    for p, stat in enumerate(stats):
        r, c = p // cols + 1, p % cols + 1
        ks = sweep_.ks(question, stat)
        for i, lam in enumerate(sweep_.lams):
            fig.add_trace(go.Scatter(x=xs, y=ks[i], mode="lines+markers", name=f"λ = {lam:g}", legendgroup=f"lam{i}",
                                     showlegend=p == 0, line=dict(color=LAMBDA_COLORS.get(lam)), marker=dict(size=6),
                                     hovertemplate=f"{'σ_C' if family == 'kbc' else 'k'}=%{{x:g}}<br>KS=%{{y:.3f}}"
                                     f"<extra>λ = {lam:g}, {STAT_SHORT[stat]}</extra>"), row=r, col=c)
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
                       f"{DATASET_LABELS.get(st['dataset'], st['dataset'])}",
                       f"{_question_sides(question)}; m = {st['m']}, N = {st['N']}, R = {st['R']}")
    else:
        title = _title(title)
    fig.update_layout(title=title, height=300 * rows + 100, margin=dict(l=60, r=20, t=90, b=40))
    fig.update_annotations(font_size=13)
    return fig


def _question_sides(question):
    a, b = QUESTIONS[question]
    names = {(sample, ratio): f"{_SAMPLE_NAMES[sample]} with {_RATIO_NAMES[ratio]}"
             for sample in ("H0", "H1", "D") for ratio in ("exact", "dre")}
    return f"{names[a]} vs {names[b]}"


def variation_figure(variations, question, stat="LR"):
    """Panel (a) of the Appendix D KS figures: KS vs sigma_C at one lambda for (m, N, R) variations.

    Parameters
    ----------
    variations : dict
        ``label -> Sweep`` over KBC DREs at a single lambda (see :func:`variation_sweeps`).

    Returns
    -------
    plotly.graph_objects.Figure
    """
    _check_question(question, stat)
    if not variations:
        raise ValueError("variations is empty: pass a dict label -> Sweep, e.g. variation_sweeps()")
    fig = go.Figure()
    palette = ["#222222", "#0072B2", "#D55E00", "#CC79A7", "#009E73", "#E69F00"]
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
        title=_title(f"Appendix D, panel (a): KS of {question}, other m, N, R",
                     f"{_question_sides(question)} ({STAT_SHORT[stat]}); "
                     f"{DATASET_LABELS.get(st['dataset'], st['dataset'])}, λ = {st['lam']:g}, KBC"),
        xaxis_title="KBC bandwidth σ_C", yaxis=dict(title=f"KS statistic ({question}, {STAT_SHORT[stat]})",
                                                    range=[0, 1.03]),
        # The legend goes under the plot: inside it would cover the curves, which fill the top of
        # the KS range.
        height=540, margin=dict(l=60, r=20, t=80, b=140),
        legend=dict(orientation="h", x=0.0, xanchor="left", y=-62.0 / (540 - 80 - 140), yanchor="top"),
    )
    return fig


# --------------------------------------------------------------------------------------------
# Ridgelines: Figs. 5 and 6 and their Appendix D extensions


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
    active = _index(lams, initial_lam, "initial_lam")
    row_of = {}
    for f in families:
        known = [float(v) for v in sweeps[f].lams]
        missing = [lam for lam in lams if not any(np.isclose(lam, v) for v in known)]
        if missing:
            raise ValueError(f"the {FAMILY_LABELS[f]} sweep has no results for lambda in {missing}")
        row_of[f] = [_index(known, lam, "lam") for lam in lams]
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
        xs = [_typed(_finite(sweeps[f].results[row_of[f][k]][j].values[stat][key])[0])
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
        sliders=[_slider(steps, "λ = ", active, y=-62.0 / plot_h, pad_t=0)],
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


def _legend_name(key):
    """Legend text of one side of a comparison: which sample set, scored with which ratio."""
    sample, ratio = key
    model = {"H0": "Y<sub>H0</sub> ~ p̂ (pre-trained)", "H1": "Y<sub>H1</sub> ~ p̂′ (re-trained)",
             "D": "Y<sub>D</sub> ~ ρ̂<sub>E</sub>·p̂ (approximated)"}
    return f"{model[sample]}, scored with {_RATIO_NAMES[ratio]}"


# --------------------------------------------------------------------------------------------
# Acceptance rate of Alg. 1


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
