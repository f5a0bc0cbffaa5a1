"""Maps over the plane: the setup (Fig. 2), the true densities and the ratio maps (Fig. 3).

==============================  ==============================================================
:func:`setup_figure`            Fig. 2 (and its CKB-8 twin): p_*, p_*', p_hat, p_hat', rho_hat, X'
:func:`true_density_figure`     Appendix D: p_* and p_*' for each lambda
:func:`ratio_maps_figure`       Fig. 3 and Appendix D: rho_hat and rho_hat_E maps, lambda slider
:func:`bandwidth_maps_figure`   rho_hat above the KBC rho_hat_E for every lambda, sigma_C slider
==============================  ==============================================================

The maps are computed before they are drawn: :func:`gendel.synthetic.sampling.setup` for the
setup, :func:`gendel.synthetic.experiments.ratio_maps` for the ratio maps.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from gendel.core.dre import DRE_CHOICES, dre_family
from gendel.synthetic.data import check_dataset, density
from gendel.synthetic.sampling import check_protocol
from gendel.plotting.common import COLORS, readable_figure
from gendel.plotting.maps import RATIO_ZMAX, ratio_colorscale, square_axes
from gendel.plotting.synthetic._common import _grid, _title
from gendel.synthetic.data import DATASETS
from gendel.plotting.synthetic.sliders import code_trace_style, color_codes, slider, step_index, typed_codes


def setup_figure(protocol, X, deleted, exact, *, resolution=72):
    """Fig. 2 (MoG-8) / its Appendix D.2 twin (CKB-8): the experimental setup at one lambda.

    Panels: (a) p_*, (b) p_*', (c) the pre-trained KDE p_hat on X, (d) the re-trained KDE
    p_hat' on X \\ X', (e) rho_hat = p_hat' / p_hat, (f) X' (red) and X \\ X' (blue). The four
    densities share one colour scale.

    Parameters
    ----------
    protocol : Protocol
        The settings: data set, lambda, N, sigma_A, seed and the MoG-8 variance (None: the
        default 0.1 of :func:`gendel.synthetic.data.mog8`) of p_* and p_*'.
    X, deleted, exact
        What :func:`gendel.synthetic.sampling.setup` returns for ``protocol``: the data, the
        deletion mask and the fitted exact ratio (with its KDEs p_hat and p_hat').

    Returns
    -------
    plotly.graph_objects.Figure

    Examples
    --------
    >>> from gendel.synthetic.sampling import Protocol, setup
    >>> p = Protocol("mog8", lam=0.8, N=60)
    >>> fig = setup_figure(p, *setup(p), resolution=10)
    >>> len(fig.data)  # four densities, the ratio, X' and X \\ X'
    7
    """
    p = check_protocol(protocol)
    dataset, lam, N, sigma_a, seed, variance = p.dataset, p.lam, p.N, p.sigma_a, p.seed, p.variance
    if len(X) != N or len(deleted) != N:
        raise ValueError(f"X and deleted must be the {N} points of the protocol (setup(protocol)); got {len(X)} and "
                         f"{len(deleted)}")
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
        title=_title(f"{'Fig. 2' if dataset == 'mog8' else 'Appendix D.2'}: setup of {DATASETS[dataset]}"
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
        title=_title(f"Appendix D: p<sub>*</sub> and p<sub>*</sub>′ of {DATASETS[dataset]}",
                     "p<sub>*</sub>′ for each λ; a larger λ means less data deleted"),
        height=250 * rows + 100, margin=dict(l=50, r=60, t=90, b=40),
    )
    fig.update_annotations(font_size=13)
    return square_axes(fig, dataset, rows, cols)


def ratio_maps_figure(maps, *, initial_lam=0.6):
    """Fig. 3 and its Appendix D extension: rho_hat and rho_hat_E of several DREs, lambda slider.

    Parameters
    ----------
    maps : gendel.synthetic.experiments.RatioMapSweep
        The maps to draw, from :func:`gendel.synthetic.experiments.ratio_maps`: panel (a) is
        rho_hat, then one panel per DRE; one slider step per lambda.
    initial_lam : float
        The lambda shown first (Fig. 3 uses 0.6).

    Returns
    -------
    plotly.graph_objects.Figure
        One heatmap per panel (three panels per row) and a slider whose steps restyle all maps.
        All maps share the colour scale on [0, RATIO_ZMAX] = [0, 2], white at ratio 1 (every
        ratio here is at most B = N / (N - N') < 2). Maps are stored as 8-bit colour codes
        (hover is off on them).

    Examples
    --------
    >>> from gendel.core.dre import make_dre
    >>> from gendel.synthetic.experiments import Protocol, ratio_maps
    >>> maps = ratio_maps(Protocol("mog8", N=60), [make_dre("kbc", 0.075), make_dre("knn", 10)], lams=(0.6, 0.8),
    ...                   resolution=10)
    >>> fig = ratio_maps_figure(maps)
    >>> len(fig.data), len(fig.layout.sliders[0].steps)  # rho_hat and the two DREs; one step per lambda
    (3, 2)
    """
    p = maps.protocol
    lams = list(maps.lams)
    active = step_index(lams, initial_lam, "initial_lam")
    xs, ys = maps.xs, maps.ys
    zmax = RATIO_ZMAX
    titles = ["(a) ρ̂ (exact)"] + [f"({chr(ord('b') + i)}) {label}" for i, label in enumerate(maps.labels[1:])]
    n = len(titles)
    cols = min(n, 3)
    rows = -(-n // cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=titles, horizontal_spacing=0.08, vertical_spacing=0.12)
    for c in range(n):
        fig.add_trace(go.Heatmap(x=xs, y=ys, z=color_codes(maps.ratios[active, c], zmax), name=titles[c],
                                 **code_trace_style(zmax, showscale=c == 0)), row=c // cols + 1, col=c % cols + 1)
    steps = [dict(method="restyle", label=f"{lam:g}",
                  args=[{"z": [typed_codes(color_codes(m, zmax)) for m in maps.ratios[i]]}, list(range(n))])
             for i, lam in enumerate(lams)]
    fig.update_layout(
        title=_title(f"{'Fig. 3 and Appendix D' if p.dataset == 'mog8' else 'Appendix D.2'}: ratio maps, "
                     f"{DATASETS[p.dataset]}",
                     f"ρ̂ and ρ̂<sub>ℰ</sub>; N = {p.N}, σ_A = {p.sigma_a:g}, seed {p.seed}; white: ratio 1, "
                     "red: mass removed by the deletion"),
        sliders=[slider(steps, "λ = ", active, pad_t=45)],
        height=230 * rows + 180, margin=dict(l=50, r=60, t=80, b=20),
    )
    fig.update_annotations(font_size=13)
    return square_axes(fig, p.dataset, rows, cols)


def bandwidth_maps_figure(maps, *, initial_sigma=0.075):
    """rho_hat (top row) and the KBC rho_hat_E (bottom row) for every lambda, sigma_C slider.

    ``maps`` holds KBC DREs only (:func:`gendel.synthetic.experiments.ratio_maps` with one KBC
    per sigma_C): one column per lambda; the slider restyles the bottom row to the chosen sigma_C.

    Returns
    -------
    plotly.graph_objects.Figure

    Examples
    --------
    >>> from gendel.core.dre import make_dre
    >>> from gendel.synthetic.experiments import Protocol, ratio_maps
    >>> maps = ratio_maps(Protocol("mog8", N=60), [make_dre("kbc", s) for s in (0.05, 0.1)], lams=(0.6, 0.8),
    ...                   resolution=10)
    >>> fig = bandwidth_maps_figure(maps, initial_sigma=0.05)
    >>> len(fig.data), [step.label for step in fig.layout.sliders[0].steps]
    (4, ['0.05', '0.1'])
    """
    if not maps.dres or any(dre_family(d) != "kbc" for d in maps.dres):
        raise ValueError(f"bandwidth_maps_figure draws KBC DREs, one per sigma_C; got {list(maps.dres)}")
    p = maps.protocol
    lams = list(maps.lams)
    sigmas = [float(DRE_CHOICES["kbc"].value_of(d)) for d in maps.dres]
    active = step_index(sigmas, initial_sigma, "initial_sigma")
    xs, ys = maps.xs, maps.ys
    per_lam = maps.ratios
    zmax = RATIO_ZMAX
    n = len(lams)
    fig = make_subplots(rows=2, cols=n, subplot_titles=[f"λ = {lam:g}" for lam in lams], horizontal_spacing=0.045,
                        vertical_spacing=0.1, row_titles=["ρ̂ (exact)", "KBC ρ̂<sub>ℰ</sub>"])
    for c, lam_maps in enumerate(per_lam, start=1):
        fig.add_trace(go.Heatmap(x=xs, y=ys, z=color_codes(lam_maps[0], zmax), name=f"ρ̂, λ = {lams[c - 1]:g}",
                                 **code_trace_style(zmax, showscale=c == 1)), row=1, col=c)
    for c, lam_maps in enumerate(per_lam, start=1):
        fig.add_trace(go.Heatmap(x=xs, y=ys, z=color_codes(lam_maps[1 + active], zmax),
                                 name=f"ρ̂_ℰ, λ = {lams[c - 1]:g}", **code_trace_style(zmax, showscale=False)),
                      row=2, col=c)
    steps = [dict(method="restyle", label=f"{s:g}",
                  args=[{"z": [typed_codes(color_codes(lam_maps[1 + j], zmax)) for lam_maps in per_lam]},
                        list(range(n, 2 * n))])
             for j, s in enumerate(sigmas)]
    fig.update_layout(
        title=_title(f"Fig. 3 for every λ: KBC bandwidths, {DATASETS[p.dataset]}",
                     f"top: ρ̂; bottom: KBC ρ̂<sub>ℰ</sub> for the σ_C of the slider (Fig. 3: 0.075, 0.125); "
                     f"N = {p.N}, σ_A = {p.sigma_a:g}"),
        sliders=[slider(steps, "σ_C = ", active, pad_t=40)],
        height=520, margin=dict(l=50, r=60, t=80, b=20),
    )
    fig.update_annotations(font_size=12)
    # Every panel shows the same window: the x₂ title and tick labels of column 1 serve the whole
    # row (in the narrow gaps between columns they would run into the map on their left).
    square_axes(fig, p.dataset, 2, n, y_title_cols=(1,))
    for c in range(2, n + 1):
        fig.update_yaxes(showticklabels=False, row=1, col=c)
        fig.update_yaxes(showticklabels=False, row=2, col=c)
    return readable_figure(fig)


__all__ = ["bandwidth_maps_figure", "ratio_maps_figure", "setup_figure", "true_density_figure"]
