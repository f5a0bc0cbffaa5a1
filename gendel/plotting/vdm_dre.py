"""Figures of the chapter on the VDM density ratio estimator (§3.2).

Every builder takes arrays computed in the page and returns a :class:`plotly.graph_objects.Figure`;
none of them fits or evaluates an estimator.

================================  ==============================================================
:func:`log_ratio_scatter_figure`  estimated against true log rho on fresh points, one panel per
                                  estimator, with the identity line
:func:`log_ratio_maps_figure`     maps of log rho over the plane (true and estimated), one shared
                                  colour scale centred at log rho = 0
:func:`objective_figure`          the training objective per epoch, with reference levels (such as
                                  the largest value any function T(x) reaches on the training data)
:func:`class_ratio_figure`        mean rho_hat_E per class of images against the exact value
================================  ==============================================================
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from gendel.plotting.common import NEUTRALS, plotly_text, readable_figure

#: A colour per curve or bar group, in the order the estimators are given.
PALETTE = NEUTRALS


def _vector(values, name, length=None):
    values = np.asarray(values, dtype=float)
    if values.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array; got shape {values.shape}")
    if length is not None and len(values) != length:
        raise ValueError(f"{name} must have {length} entries, one per point; got {len(values)}")
    return values


def _nonempty(mapping, name, what):
    mapping = dict(mapping)
    if not mapping:
        raise ValueError(f"{name} must hold at least one {what}")
    return mapping


def _layout(fig, title, height, top=90, bottom=60):
    fig.update_layout(height=height, title=dict(text=title) if title else None,
                      margin=dict(l=60, r=20, t=top if title else 50, b=bottom))
    return readable_figure(fig)     # ρ̂_ℰ in titles and names reads as ρ̂<sub>ℰ</sub>


def log_ratio_scatter_figure(true, estimates, *, title=None, height=420):
    """Estimated against true log density ratio, one panel per estimator.

    Parameters
    ----------
    true : array_like, shape (n,)
        log rho(y) at n points y (the true ratio of a synthetic deletion).
    estimates : dict
        ``{label: log rho_hat_E(y) of shape (n,)}``, one panel each, in this order.
    title : str, optional
        Figure title; say which data and settings were used.
    height : int
        Figure height in pixels.

    Returns
    -------
    plotly.graph_objects.Figure
        One ``Scatter`` of the points per panel, then the identity line.

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.plotting.vdm_dre import log_ratio_scatter_figure
    >>> rng = np.random.default_rng(0)
    >>> true = rng.normal(size=50)
    >>> fig = log_ratio_scatter_figure(true, {"VDM": true + 0.1 * rng.normal(size=50), "KBC": 0.5 * true})
    >>> [trace.name for trace in fig.data]                    # points and identity line per panel
    ['VDM', 'identity (ρ̂<sub>ℰ</sub> = ρ)', 'KBC', 'identity (ρ̂<sub>ℰ</sub> = ρ)']
    """
    true = _vector(true, "true")
    estimates = _nonempty(estimates, "estimates", "{label: log ratio} entry")
    estimates = {label: _vector(v, f"estimates[{label!r}]", len(true)) for label, v in estimates.items()}
    lo = min(true.min(), *(v.min() for v in estimates.values()))
    hi = max(true.max(), *(v.max() for v in estimates.values()))
    pad = 0.05 * (hi - lo or 1.0)
    lim = [lo - pad, hi + pad]
    fig = make_subplots(rows=1, cols=len(estimates), subplot_titles=list(estimates),
                        horizontal_spacing=0.1)
    for k, (label, values) in enumerate(estimates.items(), start=1):
        fig.add_trace(go.Scatter(
            x=true, y=values, mode="markers", name=label, showlegend=False,
            marker=dict(color=PALETTE[(k - 1) % len(PALETTE)], size=4, opacity=0.4),
            hovertemplate="log ρ=%{x:.3f}<br>log ρ̂<sub>ℰ</sub>=%{y:.3f}<extra>" + label + "</extra>"), row=1, col=k)
        fig.add_trace(go.Scatter(x=lim, y=lim, mode="lines", name="identity (ρ̂<sub>ℰ</sub> = ρ)", showlegend=(k == 1),
                                 line=dict(color="#3B3B3B", dash="dash", width=1.5), hoverinfo="skip"),
                      row=1, col=k)
        fig.update_xaxes(title_text="true log ρ(y)", range=lim, constrain="domain", row=1, col=k)
        fig.update_yaxes(title_text="estimated log ρ̂<sub>ℰ</sub>(y)", range=lim, constrain="domain",
                         scaleanchor=f"x{'' if k == 1 else k}", scaleratio=1, row=1, col=k)
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.18, xanchor="center", x=0.5))
    return _layout(fig, title, height, bottom=80)


def log_ratio_maps_figure(xs, ys, maps, *, zmax=None, title=None, height=360):
    """Maps of log density ratios over the plane with one colour scale, white at log rho = 0.

    Parameters
    ----------
    xs, ys : array_like, shape (nx,) and (ny,)
        The grid's coordinates x₁ and x₂.
    maps : sequence of (str, array_like of shape (ny, nx))
        Panel title and log rho on the grid (``Z[iy, ix]`` at ``(xs[ix], ys[iy])``).
    zmax : float, optional
        The colour scale runs over [-zmax, zmax]; by default the largest absolute value shown.
    title : str, optional
        Figure title.
    height : int
        Figure height in pixels.

    Returns
    -------
    plotly.graph_objects.Figure
        One ``Heatmap`` per panel, all on the layout's ``coloraxis``: red where the deletion
        removed mass (log rho < 0), blue where the rest gained it.

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.plotting.vdm_dre import log_ratio_maps_figure
    >>> xs = ys = np.linspace(-2.0, 2.0, 5)
    >>> true = np.add.outer(ys, xs) / 4                       # log ρ on the grid, Z[iy, ix]
    >>> fig = log_ratio_maps_figure(xs, ys, [("true log ρ", true), ("VDM", 0.8 * true)])
    >>> len(fig.data), fig.layout.coloraxis.cmin, fig.layout.coloraxis.cmax     # shared, centred at 0
    (2, -1.0, 1.0)
    """
    xs, ys = _vector(xs, "xs"), _vector(ys, "ys")
    maps = list(maps)
    if not maps:
        raise ValueError("maps must hold at least one (title, log ratio on the grid) panel")
    grids = []
    for name, z in maps:
        z = np.asarray(z, dtype=float)
        if z.shape != (len(ys), len(xs)):
            raise ValueError(f"map {name!r} must have shape (len(ys), len(xs)) = {(len(ys), len(xs))}; "
                             f"got {z.shape}")
        grids.append((name, z))
    if zmax is None:
        zmax = max(float(np.max(np.abs(z))) for _, z in grids) or 1.0
    fig = make_subplots(rows=1, cols=len(grids), subplot_titles=[name for name, _ in grids],
                        horizontal_spacing=0.06)
    for k, (name, z) in enumerate(grids, start=1):
        fig.add_trace(go.Heatmap(
            x=xs, y=ys, z=z.astype(np.float32), coloraxis="coloraxis", name=name,
            hovertemplate="x₁=%{x:.2f}<br>x₂=%{y:.2f}<br>log ρ=%{z:.3f}<extra>" + plotly_text(name) + "</extra>"),
            row=1, col=k)
        fig.update_xaxes(title_text="x₁", range=[xs[0], xs[-1]], constrain="domain", row=1, col=k)
        fig.update_yaxes(title_text="x₂" if k == 1 else None, range=[ys[0], ys[-1]], constrain="domain",
                         scaleanchor=f"x{'' if k == 1 else k}", scaleratio=1, row=1, col=k)
    fig.update_layout(coloraxis=dict(
        colorscale="RdBu", cmin=-zmax, cmax=zmax, cmid=0.0,
        colorbar=dict(title=dict(text="log ρ"), thickness=12, len=0.8)))
    return _layout(fig, title, height)


def objective_figure(histories, *, references=None, title=None, height=400):
    """The training objective of VDM per epoch, one curve per network.

    Parameters
    ----------
    histories : dict
        ``{label: objective of each epoch}`` (e.g. ``[h["objective"] for h in dre.history_]``).
    references : dict, optional
        ``{label: value}`` drawn as dashed horizontal lines, e.g. the largest value the empirical
        KL objective can take for any function T of x, log N/(N - N').
    title : str, optional
        Figure title.
    height : int
        Figure height in pixels.

    Returns
    -------
    plotly.graph_objects.Figure
        One ``Scatter`` per network, then one per reference line.

    Examples
    --------
    >>> from gendel.plotting.vdm_dre import objective_figure
    >>> fig = objective_figure({"T, 64 units": [0.02, 0.06, 0.08]}, references={"log N/(N − N′)": 0.105})
    >>> [trace.name for trace in fig.data], len(fig.data[0].x)
    (['T, 64 units', 'log N/(N − N′)'], 3)
    """
    histories = _nonempty(histories, "histories", "{label: objective per epoch} entry")
    fig = go.Figure()
    for k, (label, values) in enumerate(histories.items()):
        values = _vector(values, f"histories[{label!r}]")
        fig.add_trace(go.Scatter(
            x=np.arange(1, len(values) + 1), y=values, mode="lines+markers", name=label, zorder=1,
            line=dict(color=PALETTE[k % len(PALETTE)], width=2.5),
            marker=dict(symbol=("circle", "square", "diamond", "triangle-up")[k % 4], size=8,
                        line=dict(color="white", width=1)),
            hovertemplate="epoch %{x}<br>objective %{y:.4f}<extra>" + label + "</extra>"))
    longest = max(len(v) for v in histories.values())
    for k, (label, value) in enumerate(dict(references or {}).items()):
        # dashed, in colours no curve uses, and drawn over the curves: a curve lying on a
        # reference line shows through its gaps. The value is written at its right end.
        unused = [c for c in PALETTE if c not in PALETTE[:len(histories)]] or ["#8C8C8C"]
        colour = unused[k % len(unused)]
        fig.add_trace(go.Scatter(x=[1, longest], y=[value, value], mode="lines", name=label, hoverinfo="skip",
                                 zorder=2, line=dict(color=colour, dash=("dash", "dashdot")[k % 2], width=1.8)))
        fig.add_annotation(x=longest, y=value, text=f"{value:.3g}", showarrow=False, xanchor="left", xshift=6,
                           font=dict(size=11, color=colour))
    fig.update_xaxes(title_text="epoch")
    fig.update_yaxes(title_text="objective (mean over the epoch)")
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.2, xanchor="center", x=0.5))
    _layout(fig, title, height, bottom=100)
    return readable_figure(fig.update_layout(margin_r=60))      # room for the reference values


def class_ratio_figure(class_names, means, exact, *, title=None, height=420):
    """Mean estimated ratio per class of images against the exact class-level ratio.

    Parameters
    ----------
    class_names : sequence of str
        One name per class, in class-id order.
    means : dict
        ``{label: mean of rho_hat_E over the test images of each class}``, one bar group each.
    exact : array_like, shape (n_classes,)
        The exact ratio p'(class)/p(class) of each class, drawn as a short horizontal mark.
    title : str, optional
        Figure title.
    height : int
        Figure height in pixels.

    Returns
    -------
    plotly.graph_objects.Figure
        One ``Bar`` per label, then the exact values as a ``Scatter``.

    Examples
    --------
    >>> from gendel.plotting.vdm_dre import class_ratio_figure
    >>> fig = class_ratio_figure(["0", "1", "2"], {"VDM": [0.6, 1.2, 0.7]}, exact=[0.5, 1.25, 0.5])
    >>> [trace.type for trace in fig.data], fig.data[1].name
    (['bar', 'scatter'], 'exact class-level ratio')
    """
    names = [str(c) for c in class_names]
    means = _nonempty(means, "means", "{label: mean ratio per class} entry")
    exact = _vector(exact, "exact", len(names))
    fig = go.Figure()
    for k, (label, values) in enumerate(means.items()):
        values = _vector(values, f"means[{label!r}]", len(names))
        fig.add_trace(go.Bar(x=names, y=values, name=label, marker_color=PALETTE[k % len(PALETTE)],
                             hovertemplate="%{x}: mean ρ̂<sub>ℰ</sub> = %{y:.3f}<extra>" + label + "</extra>"))
    fig.add_trace(go.Scatter(x=names, y=exact, mode="markers", name="exact class-level ratio",
                             marker=dict(symbol="line-ew-open", size=34, color="#111111",
                                         line=dict(width=3, color="#111111")),
                             hovertemplate="%{x}: exact %{y:.3f}<extra></extra>"))
    fig.add_hline(y=1.0, line=dict(color="#888888", dash="dot", width=1))
    fig.update_xaxes(title_text="class of the test image")
    fig.update_yaxes(title_text="mean ρ̂_ℰ over the class", rangemode="tozero")
    fig.update_layout(barmode="group", legend=dict(orientation="h", yanchor="top", y=-0.3, xanchor="center", x=0.5))
    return _layout(fig, title, height, bottom=130)


__all__ = ["class_ratio_figure", "log_ratio_maps_figure", "log_ratio_scatter_figure", "objective_figure"]
