"""The 2-D synthetic data sets of §5.1 and Appendix D (MNIST and Fashion-MNIST: ``gendel.gan.images``).

MoG-8 (Appendix D.1)
    p_* is an equal mixture of 8 Gaussians N(mu_i, v I) with means on the unit circle,
    mu_i = (cos theta_i, sin theta_i), theta_i = 2 pi i / 8. Component ``c`` (0..7) here is the
    paper's i = c (i = 8 is c = 0, the 3 o'clock cluster). The paper writes the covariance as
    ``0.1 I``; we read it literally, ``variance=0.1`` (std 0.316), and keep it a parameter.
    Re-weighted components: §5.1 names the clusters at 3, 6, 9 and 12 o'clock, i.e. even i,
    while Appendix D.1 says odd i. By the 8-fold symmetry both give the same statistics;
    we follow §5.1: components 0, 2, 4, 6.

CKB-8 (Appendix D.2)
    p_* is uniform on 8 of the 16 squares of a 4 x 4 checkerboard on [0, 1]^2, the squares
    Omega_1..Omega_8 of the paper (component c = i - 1). Re-weighted components are the
    paper's {1, 4, 6, 7}, i.e. c in {0, 3, 5, 6}.

In p_*' the re-weighted components carry weight lambda and the others weight 1. X' is built
by deleting each point of a re-weighted component independently with probability 1 - lambda,
so X \\ X' is an i.i.d. sample of p_*'.
"""

from __future__ import annotations

import numpy as np

from gendel._validation import check_count, check_lambda, check_points, check_positive, check_rng

#: The synthetic data sets: name -> how the book writes it. Iterating gives the names.
DATASETS = {"mog8": "MoG-8", "ckb8": "CKB-8"}

MOG8_ANGLES = 2.0 * np.pi * np.arange(8) / 8.0
MOG8_MEANS = np.stack([np.cos(MOG8_ANGLES), np.sin(MOG8_ANGLES)], axis=1)
MOG8_VARIANCE = 0.1
MOG8_REWEIGHTED = (0, 2, 4, 6)

# Lower-left corners of Omega_1..Omega_8 (Appendix D.2); each square has side 0.25.
CKB8_CORNERS = np.array(
    [[0.0, 0.0], [0.0, 0.5], [0.25, 0.25], [0.25, 0.75], [0.5, 0.0], [0.5, 0.5], [0.75, 0.25], [0.75, 0.75]]
)
CKB8_SIDE = 0.25
CKB8_REWEIGHTED = (0, 3, 5, 6)

REWEIGHTED = {"mog8": MOG8_REWEIGHTED, "ckb8": CKB8_REWEIGHTED}

#: A square window that contains (almost) all the mass of each data set, for plots and grids.
EXTENT = {"mog8": (-2.0, 2.0, -2.0, 2.0), "ckb8": (-0.25, 1.25, -0.25, 1.25)}


def check_dataset(dataset):
    """Return the canonical name of a synthetic data set or raise a clear error.

    Examples
    --------
    >>> check_dataset("MoG-8"), check_dataset("ckb8")
    ('mog8', 'ckb8')
    """
    if not isinstance(dataset, str) or dataset.lower().replace("-", "") not in DATASETS:
        raise ValueError(f"dataset must be one of {tuple(DATASETS)} ('MoG-8' and 'CKB-8' are accepted too); got {dataset!r}")
    return dataset.lower().replace("-", "")


def mog8(n, *, rng, variance=MOG8_VARIANCE):
    """Draw ``n`` points from MoG-8 (Appendix D.1).

    Parameters
    ----------
    n : int
        Number of points N.
    rng : numpy.random.Generator
        Source of randomness.
    variance : float
        Per-coordinate variance v of each component N(mu_i, v I); 0.1 as written in the paper.

    Returns
    -------
    X : ndarray of shape (n, 2)
    component : ndarray of shape (n,)
        Component id in 0..7 (cluster at angle 2 pi c / 8).

    Examples
    --------
    >>> X, component = mog8(1000, rng=0)
    >>> X.shape, sorted(set(component.tolist())) == list(range(8))
    ((1000, 2), True)
    >>> bool(np.allclose(np.linalg.norm(X, axis=1).mean(), 1.0, atol=0.1))  # clusters on the unit circle
    True
    """
    n = check_count(n, "n")
    rng = check_rng(rng)
    std = np.sqrt(check_positive(variance, "variance"))
    component = rng.integers(0, 8, size=n)
    X = MOG8_MEANS[component] + std * rng.standard_normal((n, 2))
    return X, component


def ckb8(n, *, rng):
    """Draw ``n`` points from CKB-8 (Appendix D.2): uniform on 8 squares of a 4 x 4 board.

    Returns
    -------
    X : ndarray of shape (n, 2)
    component : ndarray of shape (n,)
        Square id in 0..7 (the paper's Omega_{c+1}).

    Examples
    --------
    >>> X, component = ckb8(500, rng=0)
    >>> bool(X.min() >= 0.0 and X.max() < 1.0)  # the board is the unit square
    True
    """
    n = check_count(n, "n")
    rng = check_rng(rng)
    component = rng.integers(0, 8, size=n)
    X = CKB8_CORNERS[component] + CKB8_SIDE * rng.random((n, 2))
    return X, component


def sample(dataset, n, *, rng, **kwargs):
    """Draw from a data set by name (``"mog8"`` or ``"ckb8"``).

    Examples
    --------
    >>> X, component = sample("CKB-8", 10, rng=0)
    >>> X.shape, component.shape
    ((10, 2), (10,))
    """
    dataset = check_dataset(dataset)
    return (mog8 if dataset == "mog8" else ckb8)(n, rng=rng, **kwargs)


def deletion_mask(dataset, component, lam, *, rng):
    """Choose the deletion set X' of the synthetic experiments.

    Each point of a re-weighted component is deleted independently with probability
    1 - lambda; other points are kept. The data set comes first, as in :func:`sample` and
    :func:`density`.

    Parameters
    ----------
    dataset : {"mog8", "ckb8"}
    component : array_like of int, shape (n,)
        Component ids as returned by :func:`mog8` or :func:`ckb8`.
    lam : float in (0, 1]
        The weight lambda of the re-weighted components in p_*'.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of bool, shape (n,)
        True for points in X'.

    Examples
    --------
    >>> X, component = mog8(400, rng=0)
    >>> deleted = deletion_mask("mog8", component, 0.5, rng=1)
    >>> deleted.shape, bool(deleted[np.isin(component, [1, 3, 5, 7])].any())
    ((400,), False)
    """
    if isinstance(component, str) and not isinstance(dataset, str):
        raise TypeError("deletion_mask takes the data set first: deletion_mask(dataset, component, lam, rng=...)")
    dataset = check_dataset(dataset)
    lam = check_lambda(lam)
    rng = check_rng(rng)
    component = np.asarray(component)
    if component.ndim != 1 or not np.issubdtype(component.dtype, np.integer):
        raise ValueError("component must be a 1-D integer array of component ids (0..7)")
    if component.size and (component.min() < 0 or component.max() > 7):
        raise ValueError("component ids must lie in 0..7")
    reweighted = np.isin(component, REWEIGHTED[dataset])
    return reweighted & (rng.random(component.shape) < 1.0 - lam)


def density(dataset, Y, lam=1.0, *, variance=None):
    """The true density p_*' (p_* when ``lam=1``) of a synthetic data set at points ``Y``.

    p_*'(x) = 1 / (4 (1 + lambda)) * sum_i w_i p_i(x), w_i = lambda on re-weighted components.
    ``variance`` is the MoG-8 component variance (None: 0.1, as in :func:`mog8`).

    Examples
    --------
    >>> h = 0.01
    >>> g = np.arange(-0.25, 1.25, h) + h / 2
    >>> Y = np.stack(np.meshgrid(g, g), axis=-1).reshape(-1, 2)
    >>> round(float(density("ckb8", Y, 0.5).sum() * h * h), 6)  # p_*' integrates to one
    1.0
    """
    dataset = check_dataset(dataset)
    lam = check_lambda(lam)
    Y = check_points(Y, "Y", dim=2)
    weights = np.ones(8)
    weights[list(REWEIGHTED[dataset])] = lam
    weights /= weights.sum()
    if dataset != "mog8" and variance is not None:
        raise ValueError(f"variance is the MoG-8 component variance; {dataset!r} has no such parameter")
    if dataset == "mog8":
        variance = check_positive(MOG8_VARIANCE if variance is None else variance, "variance")
        d2 = ((Y[:, None, :] - MOG8_MEANS[None]) ** 2).sum(-1)
        comp = np.exp(-0.5 * d2 / variance) / (2 * np.pi * variance)
    else:
        inside = (Y[:, None, :] >= CKB8_CORNERS[None]) & (Y[:, None, :] < CKB8_CORNERS[None] + CKB8_SIDE)
        comp = inside.all(-1) / CKB8_SIDE**2
    return comp @ weights
