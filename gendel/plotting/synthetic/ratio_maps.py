"""Maps over the plane: the setup (Fig. 2), the true densities and the ratio maps (Fig. 3).

==============================  ==============================================================
:func:`setup_figure`            Fig. 2 (and its CKB-8 twin): p_*, p_*', p_hat, p_hat', rho_hat, X'
:func:`true_density_figure`     Appendix D: p_* and p_*' for each lambda
:func:`ratio_maps_figure`       Fig. 3 and Appendix D: rho_hat and rho_hat_E maps, lambda slider
:func:`bandwidth_maps_figure`   rho_hat above the KBC rho_hat_E for every lambda, sigma_C slider
==============================  ==============================================================
"""

from __future__ import annotations

from functools import partial

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from gendel.synthetic.data import check_dataset, density
from gendel.core.dre import make_dre
from gendel.synthetic.experiments import LAMBDAS, SIGMA_C, setup
from gendel.plotting.common import COLORS, readable_figure
from gendel.plotting.maps import RATIO_ZMAX, ratio_colorscale, square_axes
from gendel.plotting.synthetic._common import _grid, _title
from gendel.plotting.synthetic.settings import DATASET_LABELS, MAP_DRES, N, SEED, SIGMA_A
from gendel.plotting.synthetic.sliders import code_trace_style, color_codes, slider, step_index, typed_codes


def setup_figure(dataset, lam=0.8, *, N=N, sigma_a=SIGMA_A, seed=SEED, variance=None, resolution=72):
    """Fig. 2 (MoG-8) / its Appendix D.2 twin (CKB-8): the experimental setup at one lambda.

    Panels: (a) p_*, (b) p_*', (c) the pre-trained KDE p_hat on X, (d) the re-trained KDE
    p_hat' on X \\ X', (e) rho_hat = p_hat' / p_hat, (f) X' (red) and X \\ X' (blue). The four
    densities share one colour scale; X and X' are those of the experiments
    (:func:`gendel.synthetic.experiments.setup` with the same seed). ``variance`` is the MoG-8 component
    variance (None: the default 0.1 of :func:`gendel.synthetic.data.mog8`).

    Returns
    -------
    plotly.graph_objects.Figure

    Examples
    --------
    >>> fig = setup_figure("mog8", lam=0.8, N=60, resolution=10)
    >>> len(fig.data)  # four densities, the ratio, X' and X \\ X'
    7
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
              "(d) p̂′: KDE on X ∖ X′", "(e) ρ̂ = p̂′ / p̂", "(f) X′ (red), X ∖ X′ (blue)")
    fig = make_subplots(rows=2, cols=3, subplot_titles=titles, horizontal_spacing=0.09, vertical_spacing=0.14)
    zmax = float(max(v.max() for v in dens.values()))
    for (r, c), (name, z) in zip([(1, 1), (1, 2), (1, 3), (2, 1)], dens.items()):
        fig.add_trace(go.Heatmap(x=xs, y=ys, z=z.reshape(shape).astype(np.float32), coloraxis="coloraxis", zsmooth="best",
                                 name=name, hovertemplate="x₁=%{x:.2f}<br>x₂=%{y:.2f}<br>density=%{z:.3f}"
                                 "<extra></extra>"), row=r, col=c)
    fig.add_trace(go.Heatmap(x=xs, y=ys, z=ratio.astype(np.float32), zmin=0.0, zmax=RATIO_ZMAX, zsmooth="best",
                             colorscale=ratio_colorscale(RATIO_ZMAX), name="ρ̂",
                             colorbar=dict(title=dict(text="ρ̂ (e)"), x=1.02, y=0.0, yanchor="bottom",
                                           len=0.43, thickness=12),
                             hovertemplate="x₁=%{x:.2f}<br>x₂=%{y:.2f}<br>ρ̂=%{z:.3f}<extra></extra>"),
                  row=2, col=2)
    for mask, key, name in [(~deleted, "kept", "X ∖ X′ (kept)"), (deleted, "deleted", "X′ (deleted)")]:
        fig.add_trace(go.Scatter(x=X[mask, 0], y=X[mask, 1], mode="markers", name=f"{name}: {int(mask.sum())}",
                                 marker=dict(color=COLORS[key], size=4), legendgroup=key), row=2, col=3)
    fig.update_layout(
        coloraxis=dict(colorscale="Viridis", cmin=0.0, cmax=zmax,
                       colorbar=dict(title=dict(text="density<br>(a)–(d)"), x=1.02, y=1.0, yanchor="top",
                                     len=0.43, thickness=12)),
        title=_title(f"{'Fig. 2' if dataset == 'mog8' else 'Appendix D.2'}: setup of {DATASET_LABELS[dataset]}"
                     + ("" if variance is None else f", other reading: variance {variance:g}"),
                     f"λ = {lam:g}, N = {N}, KDE bandwidth σ_A = {sigma_a:g}, seed {seed}"
                     + ("" if variance is None else f", component variance {variance:g} (std {variance ** 0.5:.2g})")),
        height=680, margin=dict(l=50, r=90, t=90, b=40),
        legend=dict(orientation="h", x=1.0, xanchor="right", y=-0.08, yanchor="top"),
    )
    return square_axes(fig, dataset, 2, 3)


def true_density_figure(dataset, lams=(0.9, 0.8, 0.7, 0.6, 0.5), *, resolution=64):
    """Appendix D setup figures: p_* and p_*' for several lambda, on one colour scale.

    Returns
    -------
    plotly.graph_objects.Figure
        1 + len(lams) panels, three per row.

    Examples
    --------
    >>> fig = true_density_figure("ckb8", lams=(0.9, 0.5), resolution=10)
    >>> len(fig.data)  # p_* and p_*' for each lambda
    3
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
        fig.add_trace(go.Heatmap(x=xs, y=ys, z=z.astype(np.float32), coloraxis="coloraxis", zsmooth="best",
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


def _ratio_maps(dataset, lam, factories, points, N, sigma_a, seed):
    """rho_hat and the rho_hat_E of each DRE factory at ``points``, as flat arrays."""
    X, deleted, exact = setup(dataset, lam, N=N, sigma_a=sigma_a, seed=seed)
    dres = [exact] + [make().fit(X, deleted) for make in factories]
    return [np.exp(d.log_ratio(points)) for d in dres]


def ratio_maps_figure(dataset, *, lams=LAMBDAS, dres=None, initial_lam=0.6, N=N, sigma_a=SIGMA_A, seed=SEED,
                      resolution=64):
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

    Examples
    --------
    >>> fig = ratio_maps_figure("mog8", lams=(0.6, 0.8), N=60, resolution=10)
    >>> len(fig.data), len(fig.layout.sliders[0].steps)  # rho_hat and the four MAP_DRES; one step per lambda
    (5, 2)
    """
    dataset = check_dataset(dataset)
    dres = MAP_DRES if dres is None else dres
    lams = [float(v) for v in lams]
    active = step_index(lams, initial_lam, "initial_lam")
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
        fig.add_trace(go.Heatmap(x=xs, y=ys, z=color_codes(per_lam[active][c], zmax), name=titles[c],
                                 **code_trace_style(zmax, showscale=c == 0)), row=c // cols + 1, col=c % cols + 1)
    steps = [dict(method="restyle", label=f"{lam:g}",
                  args=[{"z": [typed_codes(color_codes(m, zmax)) for m in maps]}, list(range(n))])
             for lam, maps in zip(lams, per_lam)]
    fig.update_layout(
        title=_title(f"{'Fig. 3 and Appendix D' if dataset == 'mog8' else 'Appendix D.2'}: ratio maps, "
                     f"{DATASET_LABELS[dataset]}",
                     f"ρ̂ and ρ̂<sub>ℰ</sub>; N = {N}, σ_A = {sigma_a:g}, seed {seed}; white: ratio 1, "
                     "red: mass removed by the deletion"),
        sliders=[slider(steps, "λ = ", active, pad_t=45)],
        height=230 * rows + 180, margin=dict(l=50, r=60, t=80, b=20),
    )
    fig.update_annotations(font_size=13)
    return square_axes(fig, dataset, rows, cols)


def bandwidth_maps_figure(dataset, *, lams=LAMBDAS, sigmas=SIGMA_C, initial_sigma=0.075, N=N, sigma_a=SIGMA_A,
                          seed=SEED, resolution=48):
    """rho_hat (top row) and the KBC rho_hat_E (bottom row) for every lambda, sigma_C slider.

    One column per lambda; the slider restyles the bottom row to the chosen sigma_C.

    Returns
    -------
    plotly.graph_objects.Figure

    Examples
    --------
    >>> fig = bandwidth_maps_figure("mog8", lams=(0.6, 0.8), sigmas=(0.05, 0.1), initial_sigma=0.05, N=60,
    ...                             resolution=10)
    >>> len(fig.data), [step.label for step in fig.layout.sliders[0].steps]
    (4, ['0.05', '0.1'])
    """
    dataset = check_dataset(dataset)
    lams = [float(v) for v in lams]
    sigmas = [float(s) for s in sigmas]
    active = step_index(sigmas, initial_sigma, "initial_sigma")
    factories = [partial(make_dre, "kbc", s) for s in sigmas]
    xs, ys, pts = _grid(dataset, resolution)
    per_lam = [[m.reshape(len(ys), len(xs)) for m in _ratio_maps(dataset, lam, factories, pts, N, sigma_a, seed)]
               for lam in lams]
    zmax = RATIO_ZMAX
    n = len(lams)
    fig = make_subplots(rows=2, cols=n, subplot_titles=[f"λ = {lam:g}" for lam in lams], horizontal_spacing=0.045,
                        vertical_spacing=0.1, row_titles=["ρ̂ (exact)", "KBC ρ̂<sub>ℰ</sub>"])
    for c, maps in enumerate(per_lam, start=1):
        fig.add_trace(go.Heatmap(x=xs, y=ys, z=color_codes(maps[0], zmax), name=f"ρ̂, λ = {lams[c - 1]:g}",
                                 **code_trace_style(zmax, showscale=c == 1)), row=1, col=c)
    for c, maps in enumerate(per_lam, start=1):
        fig.add_trace(go.Heatmap(x=xs, y=ys, z=color_codes(maps[1 + active], zmax), name=f"ρ̂_ℰ, λ = {lams[c - 1]:g}",
                                 **code_trace_style(zmax, showscale=False)), row=2, col=c)
    steps = [dict(method="restyle", label=f"{s:g}",
                  args=[{"z": [typed_codes(color_codes(maps[1 + j], zmax)) for maps in per_lam]},
                        list(range(n, 2 * n))])
             for j, s in enumerate(sigmas)]
    fig.update_layout(
        title=_title(f"Fig. 3 for every λ: KBC bandwidths, {DATASET_LABELS[dataset]}",
                     f"top: ρ̂; bottom: KBC ρ̂<sub>ℰ</sub> for the σ_C of the slider (Fig. 3: 0.075, 0.125); "
                     f"N = {N}, σ_A = {sigma_a:g}"),
        sliders=[slider(steps, "σ_C = ", active, pad_t=40)],
        height=520, margin=dict(l=50, r=60, t=80, b=20),
    )
    fig.update_annotations(font_size=12)
    # Every panel shows the same window: the x₂ title and tick labels of column 1 serve the whole
    # row (in the narrow gaps between columns they would run into the map on their left).
    square_axes(fig, dataset, 2, n, y_title_cols=(1,))
    for c in range(2, n + 1):
        fig.update_yaxes(showticklabels=False, row=1, col=c)
        fig.update_yaxes(showticklabels=False, row=2, col=c)
    return readable_figure(fig)


__all__ = ["bandwidth_maps_figure", "ratio_maps_figure", "setup_figure", "true_density_figure"]
