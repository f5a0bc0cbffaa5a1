"""Figures of the framework chapters: Alg. 1 at work (§2) and ratio-map grids (§3.1, Fig. 3).

- :func:`mog8_sector` and :func:`sector_proportions` summarise 2-D samples by the MoG-8 cluster
  direction they are nearest to, the natural coarse view of a deletion that re-weights clusters.
- :func:`rejection_sampling_figure` shows the data (X' and X \\ X'), the proposals of Alg. 1
  (accepted or rejected) and the sector proportions of several samplers side by side.
- :func:`ratio_map_grid_figure` puts several ratio maps (rho_hat, rho_hat_E of various DREs) in a grid
  with one shared colour bar, in the style of :mod:`gendel.plotting.maps`.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from gendel._validation import check_points
from gendel.synthetic.data import check_dataset
from gendel.plotting.common import COLORS, readable_figure
from gendel.plotting.maps import RATIO_ZMAX, ratio_heatmap, square_axes

#: Clock-face names of the eight MoG-8 directions theta_i = 2 pi i / 8, i = 0..7.
SECTOR_LABELS = ("3h", "1:30", "12h", "10:30", "9h", "7:30", "6h", "4:30")


def mog8_sector(Y):
    """Index i in 0..7 of the MoG-8 direction theta_i = 2 pi i / 8 closest to each point's angle.

    The plane is cut into eight 45-degree wedges centred on the component means of MoG-8;
    sector i contains the mass of component i and little else.

    Parameters
    ----------
    Y : array_like, shape (n, 2)

    Returns
    -------
    ndarray of int, shape (n,)

    Examples
    --------
    >>> from gendel.plotting.framework import mog8_sector
    >>> mog8_sector([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [1.0, -1.0]]).tolist()   # 3h, 12h, 9h, 4:30
    [0, 2, 4, 7]
    """
    Y = check_points(Y, "Y")
    if Y.shape[1] != 2:
        raise ValueError(f"MoG-8 sectors are defined for points in the plane: Y must have shape (n, 2); "
                         f"got {Y.shape}")
    theta = np.arctan2(Y[:, 1], Y[:, 0])
    return np.rint(theta / (2.0 * np.pi / 8.0)).astype(int) % 8


def sector_proportions(Y):
    """Fraction of the points of ``Y`` (n, 2) in each of the eight MoG-8 sectors; shape (8,).

    Examples
    --------
    >>> from gendel.plotting.framework import sector_proportions
    >>> p = sector_proportions([[1.0, 0.0], [2.0, 0.1], [0.0, 1.0], [0.0, -1.0]])
    >>> p.tolist(), float(p.sum())
    ([0.5, 0.0, 0.25, 0.0, 0.0, 0.0, 0.25, 0.0], 1.0)
    """
    return np.bincount(mog8_sector(Y), minlength=8) / len(Y)


def _scatter(points, name, color, *, symbol="circle", size=5, opacity=0.8, showlegend=True, legendgroup=None,
             zorder=0):
    return go.Scatter(
        x=points[:, 0], y=points[:, 1], mode="markers", name=name, showlegend=showlegend,
        legendgroup=legendgroup, marker=dict(color=color, size=size, symbol=symbol, opacity=opacity),
        hovertemplate="x₁=%{x:.2f}<br>x₂=%{y:.2f}<extra>" + name + "</extra>", zorder=zorder,
    )


def rejection_sampling_figure(X, deleted, proposals, accepted, proportions, *, dataset="mog8",
                              title=None, height=480):
    """Alg. 1 on a 2-D data set in three panels.

    (a) The training set: X' (deleted) and X \\ X' (kept). (b) Proposals y ~ p_hat, marked
    accepted or rejected by the test rho_hat_E(y) > B u. (c) Sector proportions (see
    :func:`mog8_sector`) of several samplers, one bar group per sector.

    Parameters
    ----------
    X : array_like, shape (N, 2)
        The training set.
    deleted : array_like of bool, shape (N,)
        True for points of X'.
    proposals : array_like, shape (M, 2)
        Proposals y ~ p_hat of Alg. 1.
    accepted : array_like of bool, shape (M,)
        Whether each proposal was accepted.
    proportions : dict
        ``{label: (proportions of shape (8,), colour)}``, drawn in this order in panel (c).
    dataset : str
        The data set whose plotting window panels (a) and (b) use.
    title : str, optional
        Figure title; say which settings were used.
    height : int
        Figure height in pixels.

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.synthetic.data import deletion_mask, mog8
    >>> from gendel.plotting.framework import rejection_sampling_figure, sector_proportions
    >>> X, component = mog8(80, rng=0)
    >>> proposals, _ = mog8(40, rng=1)
    >>> accepted = np.random.default_rng(2).random(40) < 0.8
    >>> fig = rejection_sampling_figure(
    ...     X, deletion_mask("mog8", component, 0.5, rng=3), proposals, accepted,
    ...     {"accepted": (sector_proportions(proposals[accepted]), "#56B4E9")}, title="Alg. 1 on MoG-8")
    >>> [trace.type for trace in fig.data]         # (a) kept, deleted; (b) rejected, accepted; (c) bars
    ['scatter', 'scatter', 'scatter', 'scatter', 'bar']
    """
    dataset = check_dataset(dataset)
    X = check_points(X, "X", dim=2)
    proposals = check_points(proposals, "proposals", dim=2)
    deleted = np.asarray(deleted, dtype=bool)
    accepted = np.asarray(accepted, dtype=bool)
    if deleted.shape != (len(X),) or accepted.shape != (len(proposals),):
        raise ValueError("deleted must have one entry per row of X and accepted one per row of proposals")
    if not proportions:
        raise ValueError("proportions must hold at least one sampler: {label: (proportions, colour)}")

    fig = make_subplots(
        rows=1, cols=3, column_widths=[0.29, 0.29, 0.42], horizontal_spacing=0.1,
        subplot_titles=("(a) X′ and X ∖ X′", f"(b) {len(proposals)} proposals y ~ p̂", "(c) share per cluster direction"),
    )
    fig.add_trace(_scatter(X[~deleted], "X ∖ X′ (kept)", COLORS["kept"], size=4), row=1, col=1)
    fig.add_trace(_scatter(X[deleted], "X′ (deleted)", COLORS["deleted"], size=6, symbol="x"), row=1, col=1)
    # The rejected proposals are the few (about a sixth here) and the point of panel (b): they are
    # drawn above the accepted ones (zorder), darker and a little larger.
    fig.add_trace(_scatter(proposals[~accepted], f"rejected proposal ({int((~accepted).sum())})", "#3D3D3D",
                           size=5, opacity=0.9, zorder=1), row=1, col=2)
    fig.add_trace(_scatter(proposals[accepted], f"accepted proposal ({int(accepted.sum())})", COLORS["D"], size=4,
                           opacity=0.7), row=1, col=2)
    for label, (values, color) in proportions.items():
        values = np.asarray(values, dtype=float)
        if values.shape != (8,):
            raise ValueError(f"proportions[{label!r}] must have 8 entries, one per sector; got {values.shape}")
        fig.add_trace(go.Bar(x=list(SECTOR_LABELS), y=values, name=label, marker_color=color,
                             hovertemplate="%{x}: %{y:.3f}<extra>" + label + "</extra>"), row=1, col=3)
    square_axes(fig, dataset, rows=1, cols=2)
    fig.update_xaxes(title_text="cluster direction", row=1, col=3)
    fig.update_yaxes(title_text="share of samples", rangemode="tozero", row=1, col=3)
    fig.update_layout(
        barmode="group", height=height, title=dict(text=title) if title else None,
        legend=dict(orientation="h", yanchor="top", y=-0.2, xanchor="center", x=0.5),
        margin=dict(l=60, r=20, t=90 if title else 50, b=110),
    )
    return readable_figure(fig)


def _wrap_title(text, width=22):
    """A panel title on two lines when it is longer than ``width`` characters: broken at the ", "
    closest to its middle (titles of neighbouring panels would otherwise run into each other)."""
    if len(text) <= width or "<br>" in text:
        return text
    cuts = [i for i in range(len(text) - 1) if text[i:i + 2] == ", "]
    if not cuts:
        return text
    cut = min(cuts, key=lambda i: abs(i - len(text) / 2))
    return text[:cut + 1] + "<br>" + text[cut + 2:]


#: Grid points per axis that a ratio-map panel keeps: a panel is at most about 250 px wide on the
#: page, so a finer grid (the book's 150 x 150) adds bytes but nothing the eye can see.
MAX_MAP_POINTS = 80


def thin_grid(xs, ys, ratio, max_points=MAX_MAP_POINTS):
    """Every k-th grid point (the same k on both axes) so that at most ``max_points`` remain per axis.

    Examples
    --------
    >>> xs = ys = np.linspace(-2.0, 2.0, 150)
    >>> tx, ty, tr = thin_grid(xs, ys, np.ones((150, 150)))
    >>> tx.shape, tr.shape, float(tx[0]), float(tx[-1]) < 2.0
    ((75,), (75, 75), -2.0, True)
    """
    xs, ys, ratio = np.asarray(xs), np.asarray(ys), np.asarray(ratio)
    if max_points < 2:
        raise ValueError(f"max_points must be at least 2; got {max_points!r}")
    step = max(1, -(-max(len(xs), len(ys)) // max_points))
    return xs[::step], ys[::step], ratio[::step, ::step]


def ratio_map_grid_figure(maps, dataset, *, cols=3, zmax=RATIO_ZMAX, title=None, panel_size=330,
                          max_points=MAX_MAP_POINTS):
    """A grid of ratio heatmaps with one shared colour bar (white at ratio 1).

    Parameters
    ----------
    maps : sequence of (str, xs, ys, ratio)
        Panel title and the output of :func:`gendel.plotting.maps.ratio_grid`.
    dataset : str
        The data set whose plotting window every panel uses.
    cols : int
        Panels per row.
    zmax : float, optional
        Top of the colour scale; the book's one ratio scale :data:`~gendel.plotting.maps.RATIO_ZMAX`
        by default (None: the largest finite ratio shown).
    title : str, optional
        Figure title; say which paper figure it reproduces and the settings.
    panel_size : int
        Approximate height of one row in pixels.
    max_points : int
        Grid points per axis kept in a panel (:func:`thin_grid`); finer grids are thinned.

    Examples
    --------
    >>> from gendel.synthetic.data import deletion_mask, mog8
    >>> from gendel.core.dre import KernelClassifierDRE
    >>> from gendel.plotting.framework import ratio_map_grid_figure
    >>> from gendel.plotting.maps import ratio_grid
    >>> X, component = mog8(200, rng=0)
    >>> deleted = deletion_mask("mog8", component, 0.5, rng=1)
    >>> maps = [(f"KBC, σ_C = {s}", *ratio_grid(KernelClassifierDRE(bandwidth=s).fit(X, deleted), "mog8", 20))
    ...         for s in (0.2, 0.4)]
    >>> fig = ratio_map_grid_figure(maps, "mog8")
    >>> len(fig.data), [a.text for a in fig.layout.annotations]     # one colour bar for both
    (2, ['KBC, σ<sub>C</sub> = 0.2', 'KBC, σ<sub>C</sub> = 0.4'])
    >>> fig.data[0].zmax == RATIO_ZMAX                              # the book's one ratio scale
    True
    """
    dataset = check_dataset(dataset)
    maps = list(maps)
    if not maps:
        raise ValueError("maps must hold at least one (title, xs, ys, ratio) panel")
    if not isinstance(cols, int) or cols < 1:
        raise ValueError(f"cols must be a positive integer; got {cols!r}")
    cols = min(cols, len(maps))
    rows = -(-len(maps) // cols)
    if zmax is None:
        zmax = max(float(np.max(np.where(np.isfinite(r), r, 0.0))) for *_, r in maps)
    titles = [_wrap_title(m[0]) for m in maps] + [""] * (rows * cols - len(maps))
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=titles, horizontal_spacing=0.06,
                        vertical_spacing=0.12 if rows > 1 else 0.0)
    for k, (name, xs, ys, ratio) in enumerate(maps):
        xs, ys, ratio = thin_grid(xs, ys, ratio, max_points)
        fig.add_trace(ratio_heatmap(xs, ys, ratio, zmax=zmax, showscale=(k == 0), name=name,
                                    colorbar_title="ratio"), row=k // cols + 1, col=k % cols + 1)
    square_axes(fig, dataset, rows=rows, cols=cols)
    fig.update_annotations(font_size=13)  # the panel titles
    fig.update_layout(
        height=int(panel_size * rows + (110 if title else 60)),
        title=dict(text=title) if title else None,
        margin=dict(l=60, r=20, t=100 if title else 50, b=50),
    )
    return readable_figure(fig)


def coinciding_lines(series, tol=0.01):
    """Line styles that keep apart the curves of ``series`` that lie on top of each other.

    ``series`` maps a curve's name to its values (``None`` for a point left out). A curve within
    ``tol`` (at every point both curves have) of a curve listed before it is drawn dashed, with
    open markers, and named with the curve it coincides with; the others are solid with filled
    markers.

    Returns
    -------
    dict
        name -> ``(dash, marker symbol, name of the earlier curve it lies on or None)``.

    Examples
    --------
    >>> styles = coinciding_lines({"a": [0.1, 0.2], "b": [0.1, 0.205], "c": [0.5, None]})
    >>> styles["a"], styles["b"], styles["c"]
    (('solid', 'circle', None), ('dash', 'circle-open', 'a'), ('solid', 'circle', None))
    """
    if tol < 0:
        raise ValueError(f"tol must be >= 0; got {tol}")
    styles, seen = {}, {}
    for name, values in series.items():
        values = [np.nan if v is None else float(v) for v in values]
        twin = None
        for other, earlier in seen.items():
            both = [(a, b) for a, b in zip(values, earlier) if np.isfinite(a) and np.isfinite(b)]
            if both and all(abs(a - b) <= tol for a, b in both):
                twin = other
                break
        styles[name] = ("dash", "circle-open", twin) if twin is not None else ("solid", "circle", None)
        seen[name] = values
    return styles


__all__ = ["MAX_MAP_POINTS", "SECTOR_LABELS", "coinciding_lines", "mog8_sector", "ratio_map_grid_figure",
           "rejection_sampling_figure", "sector_proportions", "thin_grid"]
