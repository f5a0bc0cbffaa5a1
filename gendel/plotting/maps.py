"""Ratio maps: heatmaps of rho_hat and rho_hat_E over the plane (Figs. 2e and 3)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from gendel.synthetic.data import EXTENT, check_dataset
from gendel.synthetic.experiments import evaluate_on_grid
from gendel.plotting.common import readable_figure


#: Upper end of the one colour scale [0, RATIO_ZMAX] of every ratio map in the book and the
#: explorer (rho_hat and every rho_hat_E, on every page). Why 2: a KDE ratio
#: rho_hat = p_hat' / p_hat = N / (N - N') * (kernel sum over X \ X') / (kernel sum over X) is at
#: most B = N / (N - N'), and B < 2 for every lambda of
#: the experiments (at most half the data is deleted), so [0, 2] holds every exact ratio, and a
#: DRE's ratio above 2 is an error worth seeing in the darkest blue; white at 1 ("nothing
#: changed") sits in the middle, so red (mass removed) and blue (mass added) get equal room.
#: One range for the same quantity: two maps of the book can be compared colour by colour.
RATIO_ZMAX = 2.0


def ratio_colorscale(zmax):
    """Diverging colour scale on [0, zmax]: red below 1 (mass removed), white at 1, blue above 1.

    Examples
    --------
    >>> from gendel.plotting.maps import ratio_colorscale
    >>> ratio_colorscale(2.0)[2]            # white at ratio 1, half-way up [0, 2]
    [0.5, '#F7F7F7']
    >>> len(ratio_colorscale(1.0))          # zmax = 1: red to white only
    3
    """
    mid = min(max(1.0 / zmax, 0.0), 1.0)
    scale = [[0.0, "#67001F"], [0.5 * mid, "#D6604D"], [mid, "#F7F7F7"]]
    if mid < 1.0:
        scale += [[mid + 0.5 * (1.0 - mid), "#4393C3"], [1.0, "#053061"]]
    return scale


def ratio_grid(estimator, dataset, resolution=150):
    """Evaluate a fitted DRE's ratio on the plotting window of a data set.

    Returns ``xs``, ``ys`` and ``R[iy, ix]``, the ratio rho(x, y) (not its log).

    Examples
    --------
    >>> from gendel.synthetic.data import deletion_mask, mog8
    >>> from gendel.core.dre import KernelClassifierDRE
    >>> from gendel.plotting.maps import ratio_grid
    >>> X, component = mog8(200, rng=0)
    >>> dre = KernelClassifierDRE(bandwidth=0.3).fit(X, deletion_mask("mog8", component, 0.5, rng=1))
    >>> xs, ys, R = ratio_grid(dre, "mog8", resolution=20)
    >>> xs.shape, R.shape, bool((R > 0).all()), (float(xs[0]), float(xs[-1]))   # MoG-8's window
    ((20,), (20, 20), True, (-2.0, 2.0))
    """
    extent = EXTENT[check_dataset(dataset)]
    xs, ys, log_r = evaluate_on_grid(estimator.log_ratio, extent, resolution)
    return xs, ys, np.exp(log_r)


def ratio_heatmap(xs, ys, ratio, *, zmax=RATIO_ZMAX, showscale=True, name="ratio", colorbar_title="ρ"):
    """A heatmap trace of a ratio on [0, zmax] (default :data:`RATIO_ZMAX`) with white at ratio 1.

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.plotting.maps import ratio_heatmap
    >>> xs = ys = np.linspace(-2.0, 2.0, 3)
    >>> trace = ratio_heatmap(xs, ys, np.ones((3, 3)))
    >>> trace.type, trace.zmin, trace.zmax
    ('heatmap', 0.0, 2.0)
    """
    return go.Heatmap(
        x=xs,
        y=ys,
        z=np.asarray(ratio, dtype=np.float32),
        zmin=0.0,
        zmax=zmax,
        colorscale=ratio_colorscale(zmax),
        showscale=showscale,
        colorbar=dict(title=dict(text=colorbar_title), thickness=12, len=0.8),
        name=name,
        hovertemplate="x=%{x:.2f}<br>y=%{y:.2f}<br>ratio=%{z:.3f}<extra>" + name + "</extra>",
    )


def square_axes(fig, dataset, rows=1, cols=1, *, y_title_cols=None):
    """Equal aspect ratio, the data set's window and the titles x₁, x₂ on every subplot of ``fig``.

    The tick labels stand a few pixels off the axes, so that the x and y labels of the shared
    corner (−2 and −2) do not run together.

    ``y_title_cols`` restricts the x₂ title to these columns (default: all), for figures where a
    colour bar sits in the gap before a column.

    ``fig`` is a ``make_subplots`` figure with ``rows`` x ``cols`` cells (cells without axes, such
    as an empty slot of the grid, are left alone) or a single-axes figure (``rows = cols = 1``).

    Examples
    --------
    >>> import numpy as np
    >>> import plotly.graph_objects as go
    >>> from gendel.plotting.maps import ratio_heatmap, square_axes
    >>> xs = ys = np.linspace(-2.0, 2.0, 3)
    >>> fig = square_axes(go.Figure(ratio_heatmap(xs, ys, np.ones((3, 3)), zmax=2.0)), "mog8")
    >>> fig.layout.xaxis.range, fig.layout.yaxis.scaleanchor, fig.layout.xaxis.title.text
    ((-2.0, 2.0), 'x', 'x₁')
    """
    x0, x1, y0, y1 = EXTENT[check_dataset(dataset)]
    for r in range(1, rows + 1):
        for c in range(1, cols + 1):
            try:
                sub = fig.get_subplot(r, c)
            except Exception:  # a figure made without make_subplots
                sub, anchor = None, "x"
            else:
                if sub is None:
                    continue
                anchor = sub.yaxis.anchor
            cell = dict(row=r, col=c) if sub is not None else {}
            fig.update_xaxes(range=[x0, x1], constrain="domain", title_text="x₁", title_standoff=2,
                             ticklabelstandoff=3, **cell)
            fig.update_yaxes(range=[y0, y1], constrain="domain", scaleanchor=anchor, scaleratio=1,
                             title_text="x₂" if y_title_cols is None or c in y_title_cols else None,
                             title_standoff=2, ticklabelstandoff=5, **cell)
    return readable_figure(fig)
