"""The grids of the book: the chapter's lambdas, bandwidths and k (§5.1, Appendix D), and evaluation grids.

:mod:`gendel.experiments` re-exports every name of this module.
"""

from __future__ import annotations

import numpy as np

from . import data as _data
from ._validation import check_count
from .dre import KernelClassifierDRE, KNNClassifierDRE
from .experiments import sweep
from .protocol import PAPER, Protocol


def grid(extent, resolution=150):
    """A regular grid over ``extent = (x0, x1, y0, y1)``.

    Returns ``xs``, ``ys`` and the (resolution**2, 2) array of grid points, row by row in y
    (point ``iy * resolution + ix`` is ``(xs[ix], ys[iy])``).

    Examples
    --------
    >>> xs, ys, points = grid((0, 1, 0, 2), resolution=3)
    >>> points[:4].tolist()
    [[0.0, 0.0], [0.5, 0.0], [1.0, 0.0], [0.0, 1.0]]
    """
    resolution = check_count(resolution, "resolution", minimum=2)
    x0, x1, y0, y1 = extent
    xs, ys = np.linspace(x0, x1, resolution), np.linspace(y0, y1, resolution)
    gx, gy = np.meshgrid(xs, ys)
    return xs, ys, np.column_stack([gx.ravel(), gy.ravel()])


def evaluate_on_grid(fn, extent, resolution=150):
    """Evaluate ``fn`` (points (n, 2) -> values (n,)) on a regular grid over ``extent``.

    Returns ``xs``, ``ys`` and the (resolution, resolution) array ``Z[iy, ix] = fn((xs[ix], ys[iy]))``.

    Examples
    --------
    >>> xs, ys, Z = evaluate_on_grid(lambda p: p[:, 0] + 10 * p[:, 1], (0, 1, 0, 1), resolution=2)
    >>> Z.tolist()
    [[0.0, 1.0], [10.0, 11.0]]
    """
    xs, ys, points = grid(extent, resolution)
    return xs, ys, np.asarray(fn(points)).reshape(len(ys), len(xs))


# --------------------------------------------------------------------------------------------
# The grids of the book's chapter on the synthetic data (§5.1 and Appendix D)

#: The paper's settings of §5.1 / Appendix D (and the seed of the book).
PAPER_SETTINGS = {k: v for k, v in PAPER.settings().items() if k in ("N", "m", "R", "sigma_a", "seed")}
#: lambda of the KBC sweeps and of the ratio maps (Appendix D).
LAMBDAS = (0.5, 0.6, 0.7, 0.8, 0.9)
#: KBC bandwidths sigma_C: symmetric around sigma_A = 0.1 in steps of 0.0125, with the paper's
#: 0.075 and 0.125.
SIGMA_C = (0.05, 0.0625, 0.075, 0.0875, 0.1, 0.1125, 0.125, 0.1375, 0.15)
#: k of the kNN DREs: the two of Fig. 3, one below and one at the top of the "moderate" range
#: 10-50 of Appendix D (the cost of a kNN cell grows about linearly with k).
KNN_K = (5, 10, 20, 50)
#: lambda of the kNN sweeps: the values of the Appendix D distribution panels.
KNN_LAMBDAS = (0.6, 0.7, 0.8, 0.9)
#: The (m, N, R) variations of panel (a) of the Appendix D KS figures (MoG-8, lambda = 0.8).
VARIATIONS = {"m = 200": {"m": 200}, "N = 200": {"N": 200}, "R = 100": {"R": 100}}


def kbc_dres(sigmas=SIGMA_C):
    """One KBC DRE per sigma_C.

    Examples
    --------
    >>> kbc_dres([0.075, 0.125])
    [KernelClassifierDRE(bandwidth=0.075), KernelClassifierDRE(bandwidth=0.125)]
    """
    return [KernelClassifierDRE(bandwidth=s) for s in sigmas]


def knn_dres(ks=KNN_K):
    """One kNN DRE per k.

    Examples
    --------
    >>> knn_dres([10, 20])
    [KNNClassifierDRE(k=10), KNNClassifierDRE(k=20)]
    """
    return [KNNClassifierDRE(k=k) for k in ks]


def chapter_sweeps(dataset, *, progress=True, **settings):
    """The KBC and kNN sweeps of the book's chapter for one data set (disk-cached per cell).

    ``settings`` override :data:`PAPER_SETTINGS` (N, m, R, sigma_a, seed).

    Returns
    -------
    dict
        ``{"kbc": Sweep over LAMBDAS x SIGMA_C, "knn": Sweep over KNN_LAMBDAS x KNN_K}``.

    Examples
    --------
    At the paper's settings this takes minutes (once; then it is read from the disk cache).
    With small settings:

    >>> sweeps = chapter_sweeps("ckb8", N=40, m=5, R=2, cache=False, progress=False)
    >>> sweeps["kbc"].ks("Q1").shape, sweeps["knn"].ks("Q1").shape
    ((5, 9), (4, 4))
    """
    dataset = _data.check_dataset(dataset)
    kw = {**PAPER_SETTINGS, **settings, "progress": progress}
    return {
        "kbc": sweep(dataset, LAMBDAS, kbc_dres(), labels=[f"{s:g}" for s in SIGMA_C], **kw),
        "knn": sweep(dataset, KNN_LAMBDAS, knn_dres(), labels=[str(k) for k in KNN_K], **kw),
    }


def variation_sweeps(dataset="mog8", lam=0.8, variations=None, *, progress=True):
    """KBC sweeps at one lambda with the (m, N, R) variations of Appendix D, panel (a).

    Returns a dict ``label -> Sweep``; the label ``"paper (m = N = 400, R = 250)"`` is the
    baseline, the others change one of m, N, R (``VARIATIONS`` by default).

    Examples
    --------
    >>> list(VARIATIONS)
    ['m = 200', 'N = 200', 'R = 100']
    >>> variation_sweeps("mog8", 0.8, {"R = 100": {"R": 100}})  # a 1-hour run at the paper's N and m  # doctest: +SKIP
    """
    variations = VARIATIONS if variations is None else variations
    base = PAPER_SETTINGS
    # every variation is checked before the first sweep runs
    for label, change in variations.items():
        unknown = set(change) - {"N", "m", "R"}
        if unknown:
            raise ValueError(f"a variation may change N, m or R only; {label!r} changes {sorted(unknown)}")
        Protocol.of(dataset, lam, **{**base, **change})
    out = {}
    for label, change in {f"paper (m = N = {base['N']}, R = {base['R']})": {}, **variations}.items():
        out[label] = sweep(dataset, [lam], kbc_dres(), labels=[f"{s:g}" for s in SIGMA_C],
                           progress=progress, **{**base, **change})
    return out


__all__ = ["KNN_K", "KNN_LAMBDAS", "LAMBDAS", "PAPER_SETTINGS", "SIGMA_C", "VARIATIONS", "chapter_sweeps",
           "evaluate_on_grid", "grid", "kbc_dres", "knn_dres", "variation_sweeps"]
