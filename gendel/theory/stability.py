"""Stability of the Gaussian KDE learner (§2.3): LBLI (Thm. 3), not US or DP, error stability (Thm. 6).

Deleting one point z from a training set Z of a Gaussian KDE gives::

    p_{A(Z \\ {z})}(x) = (|Z| p_{A(Z)}(x) - K(x - z)) / (|Z| - 1) <= |Z| / (|Z| - 1) p_{A(Z)}(x),

so the KDE is epsilon-LBLI (Def. 5) with epsilon = log(``|Z|`` / (``|Z|`` - 1)), a constant that grows as
the set shrinks. Deleting N' points one after the other passes through the sizes N, N - 1, ...,
N - N' + 1, and the product of the one-step factors telescopes to N / (N - N'): the exact
supremum of rho_hat = p_hat' / p_hat, approached far from the data in any direction in which a
kept point is the outermost one. In a direction in which a deleted point is outermost the
ratio tends to 0, so log rho_hat is unbounded below: the KDE is neither US (Def. 4) nor DP (Def. 3).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from gendel._kernels import sqdist
from gendel._validation import check_count, check_points, check_positive, check_rng
from gendel.core.dre import ExactKDERatio
from gendel.synthetic.experiments import grid
from gendel.theory.quadrature import Estimate


def kde_lbli_epsilon(n):
    """The LBLI constant log(n / (n - 1)) of a Gaussian KDE when one point leaves a set of size n >= 2.

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.theory.stability import kde_lbli_epsilon
    >>> np.round(kde_lbli_epsilon(np.array([2, 10])), 4)   # log 2 and log(10 / 9)
    array([0.6931, 0.1054])
    """
    n = np.asarray(n)
    if np.any(n < 2):
        raise ValueError("the LBLI constant needs a set of at least 2 points (deleting from 1 point leaves no model)")
    return np.log(n / (n - 1.0))


def _check_sizes(N, n_deleted):
    N = check_count(N, "N", minimum=2)
    n_deleted = np.asarray(n_deleted)
    if np.any(n_deleted < 0) or np.any(n_deleted >= N):
        raise ValueError(f"n_deleted must lie in [0, N - 1] = [0, {N - 1}]")
    return N, n_deleted


def lbli_bound(N, n_deleted, *, size="smallest"):
    """Thm. 3's bound N' epsilon on log ||rho_hat||_inf for a KDE, with one epsilon for every step.

    Parameters
    ----------
    N : int
        Size of X.
    n_deleted : int or array of int
        N'.
    size : {"smallest", "largest"}
        Which set size epsilon is taken at: the smallest set reached while deleting,
        N - N' + 1 (a valid constant for every step), or the starting size N (valid for the
        first step only; the resulting "bound" is too small).

    Examples
    --------
    With epsilon taken at the smallest set the bound holds; taken at N it falls below the exact
    supremum log(N / (N - N')):

    >>> import numpy as np
    >>> from gendel.theory.stability import kde_log_ratio_supremum, lbli_bound
    >>> round(float(lbli_bound(10, 3)), 4), round(float(kde_log_ratio_supremum(10, 3)), 4)
    (0.4006, 0.3567)
    >>> round(float(lbli_bound(10, 3, size="largest")), 4)
    0.3161
    """
    N, n_deleted = _check_sizes(N, n_deleted)
    if size == "smallest":
        n = N - n_deleted + 1
    elif size == "largest":
        n = np.full_like(n_deleted, N)
    else:
        raise ValueError(f"size must be 'smallest' or 'largest'; got {size!r}")
    return n_deleted * kde_lbli_epsilon(np.maximum(n, 2))


def stepwise_lbli_bound(N, n_deleted):
    """sum_{k=0}^{N'-1} log((N - k) / (N - k - 1)): one-step LBLI constants added along the deletion path.

    The sum telescopes to log(N / (N - N')), the exact supremum of log rho_hat.

    Examples
    --------
    The sum telescopes to log(N / (N - N')):

    >>> import numpy as np
    >>> from gendel.theory.stability import stepwise_lbli_bound
    >>> round(stepwise_lbli_bound(10, 3), 4), round(float(np.log(10 / 7)), 4)
    (0.3567, 0.3567)
    >>> np.round(stepwise_lbli_bound(10, np.array([0, 1, 3])), 4)
    array([0.    , 0.1054, 0.3567])
    """
    N, n_deleted = _check_sizes(N, n_deleted)
    out = np.zeros(n_deleted.shape)
    for idx, nd in np.ndenumerate(n_deleted):
        k = np.arange(int(nd))
        out[idx] = np.sum(np.log((N - k) / (N - k - 1.0)))
    return out if out.ndim else float(out)


def kde_log_ratio_supremum(N, n_deleted):
    """log(N / (N - N')): sup_x log rho_hat(x) for a Gaussian KDE (when a kept point is on the convex hull).

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.theory.stability import kde_log_ratio_supremum
    >>> np.round(kde_log_ratio_supremum(10, np.array([1, 5])), 4)   # log(10/9), log 2
    array([0.1054, 0.6931])
    """
    N, n_deleted = _check_sizes(N, n_deleted)
    return np.log(N / (N - n_deleted))


def outermost_direction(X, candidates, *, n_directions=720):
    """A unit direction u (2-D) in which the outermost point of X is one of ``candidates``.

    Among ``n_directions`` evenly spaced directions, those whose maximiser of u . x is a
    candidate (a boolean mask over X, e.g. the deleted points, or the kept ones) qualify; the
    one with the largest gap between the top two projections is returned, with the index of its
    outermost point. Far out along such a ray a KDE is dominated by that point's kernel.

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.theory.stability import outermost_direction
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [3.0, 3.0]])
    >>> u, index = outermost_direction(X, np.array([False, False, False, True]))
    >>> np.round(u, 3), index   # the point (3, 3) is outermost towards (1, 1)
    (array([0.707, 0.707]), 3)
    """
    X = check_points(X, "X", dim=2)
    mask = np.asarray(candidates)
    if mask.dtype != bool or mask.shape != (len(X),):
        raise ValueError(f"candidates must be a boolean mask of shape ({len(X)},)")
    angles = np.linspace(0, 2 * np.pi, check_count(n_directions, "n_directions", minimum=8), endpoint=False)
    U = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    proj = U @ X.T
    order = np.argsort(proj, axis=1)
    top, second = order[:, -1], order[:, -2]
    gap = proj[np.arange(len(U)), top] - proj[np.arange(len(U)), second]
    want = mask[top]
    if not want.any():
        raise ValueError("no candidate point is outermost in any direction (none lies on the convex hull)")
    best = np.flatnonzero(want)[np.argmax(gap[want])]
    return U[best], int(top[best])


def ray_log_ratio(log_ratio, origin, direction, radii):
    """log rho(origin + r u) for r in ``radii``: the ratio along a ray (``log_ratio`` maps (n, d) -> (n,)).

    Examples
    --------
    Far out where a kept point is outermost the ratio reaches its supremum log(N / (N - N'));
    where the deleted point is outermost, log rho_hat falls without bound:

    >>> import numpy as np
    >>> from gendel.core.dre import ExactKDERatio
    >>> from gendel.theory.stability import ray_log_ratio
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [3.0, 3.0]])
    >>> exact = ExactKDERatio(bandwidth=0.5).fit(X, np.array([3]))
    >>> radii = [0.0, 5.0, 20.0]
    >>> np.round(ray_log_ratio(exact.log_ratio, X[0], [-1.0, -1.0], radii), 4), round(float(np.log(4 / 3)), 4)
    (array([0.2877, 0.2877, 0.2877]), 0.2877)
    >>> np.round(ray_log_ratio(exact.log_ratio, X[3], [1.0, 1.0], radii), 1)
    array([ -25. ,  -95.7, -307.9])
    """
    origin = np.asarray(origin, dtype=float)
    u = np.asarray(direction, dtype=float)
    u = u / np.linalg.norm(u)
    pts = origin[None] + np.asarray(radii, dtype=float)[:, None] * u[None]
    return np.asarray(log_ratio(pts))


def numerical_sup_log_ratio(log_ratio, extent, *, resolution=150, radii=(3.0, 6.0, 12.0), n_directions=72):
    """max of log rho over a 2-D grid covering ``extent`` and over points far out in many directions.

    A numerical check of sup_x log rho(x): the grid covers the data, the far points cover the
    directions in which the supremum of a KDE ratio is approached. ``log_ratio`` maps (n, 2) -> (n,).

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.core.dre import ExactKDERatio
    >>> from gendel.theory.stability import numerical_sup_log_ratio
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [3.0, 3.0]])
    >>> exact = ExactKDERatio(bandwidth=0.5).fit(X, np.array([3]))
    >>> sup = numerical_sup_log_ratio(exact.log_ratio, (-2, 5, -2, 5), resolution=50)
    >>> round(sup, 4), round(float(np.log(4 / 3)), 4)   # log(N / (N - N'))
    (0.2877, 0.2877)
    """
    *_, grid_pts = grid(extent, resolution)
    angles = np.linspace(0, 2 * np.pi, check_count(n_directions, "n_directions", minimum=4), endpoint=False)
    far = np.concatenate([r * np.stack([np.cos(angles), np.sin(angles)], axis=1) for r in radii])
    pts = np.concatenate([grid_pts, far])
    return float(np.max(log_ratio(pts)))


def leave_one_out_log_ratios(X, Y, bandwidth):
    """log rho_hat^{(z)}(y) for every point z of X and every y of Y (N' = 1, Thm. 6).

    rho_hat^{(z)} = p_KDE(.; X \\ {z}) / p_KDE(.; X). Returns an array of shape (len(Y), len(X)):
    entry (i, j) is log(N / (N - 1)) + log(1 - K(y_i - x_j) / sum_l K(y_i - x_l)), computed in log
    space (where the j-th kernel dominates, the sum over the others is recomputed directly).

    Examples
    --------
    Column j is the log ratio of deleting the j-th point alone:

    >>> import numpy as np
    >>> from gendel.core.dre import ExactKDERatio
    >>> from gendel.theory.stability import leave_one_out_log_ratios
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [3.0, 3.0]])
    >>> Y = np.array([[0.0, 0.0], [3.0, 3.0]])
    >>> L = leave_one_out_log_ratios(X, Y, bandwidth=0.5)
    >>> L.shape, bool(np.allclose(L[:, 3], ExactKDERatio(bandwidth=0.5).fit(X, np.array([3])).log_ratio(Y)))
    ((2, 4), True)
    """
    X = check_points(X, "X")
    Y = check_points(Y, "Y", dim=X.shape[1])
    h = check_positive(bandwidth, "bandwidth")
    N = len(X)
    if N < 2:
        raise ValueError("X needs at least two points to delete one")
    logk = -sqdist(Y, X) / (2.0 * h * h)
    logs = logsumexp(logk, axis=1, keepdims=True)
    frac = np.exp(logk - logs)
    with np.errstate(divide="ignore"):
        out = np.log1p(-np.minimum(frac, 1.0))
    bad = frac > 1.0 - 1e-6
    for i, j in zip(*np.nonzero(bad)):
        others = np.delete(logk[i], j)
        out[i, j] = logsumexp(others) - logs[i, 0]
    return out + np.log(N / (N - 1.0))


@dataclass
class ErrorStability:
    """Monte Carlo estimates of the ES quantities of Def. 7 and Thm. 6 for every single deletion.

    Attributes
    ----------
    second_moment : ndarray (N,)
        E_{x ~ p_hat}[(log rho_hat^{(z)}(x))^2] for each z in X (the k = 2 ES quantity).
    second_moment_se : ndarray (N,)
    kl : ndarray (N,)
        KL(p_hat || p_hat^{(z)}) = -E_{p_hat}[log rho_hat^{(z)}] for each z.
    kl_se : ndarray (N,)
    log_ratio_worst : ndarray (M,)
        log rho_hat^{(z*)}(x) on the M samples x ~ p_hat, for z* with the largest second moment.
    worst : int
        The index z* (or the index passed to :func:`error_stability`).
    kl_cv, kl_cv_se : ndarray (N,), optional
        KL(p_hat || p_hat^{(z)}) = E_{p_hat}[rho_hat - 1 - log rho_hat] (E rho_hat = 1 exactly): a
        mean of non-negative terms with a far smaller variance than ``kl``.

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.theory.stability import ErrorStability
    >>> es = ErrorStability(second_moment=np.array([0.1, 0.4]), second_moment_se=np.array([0.01, 0.02]),
    ...                     kl=np.array([0.05, 0.1]), kl_se=np.array([0.01, 0.01]),
    ...                     log_ratio_worst=np.zeros(3), worst=1)
    >>> es.epsilon   # the largest second moment, at z* = worst
    Estimate(value=0.4, se=0.02)
    """

    second_moment: np.ndarray
    second_moment_se: np.ndarray
    kl: np.ndarray
    kl_se: np.ndarray
    log_ratio_worst: np.ndarray
    worst: int
    kl_cv: np.ndarray = None
    kl_cv_se: np.ndarray = None

    @property
    def epsilon(self):
        """The ES constant over the realised deletions: max_z E_{p_hat}[(log rho_hat^{(z)})^2]."""
        return Estimate(float(self.second_moment[self.worst]), float(self.second_moment_se[self.worst]))


def error_stability(kde, M, *, rng, worst=None, chunk=4096):
    """Estimate the k = 2 ES quantity and KL(p_hat || p_hat^{(z)}) for every z of a fitted KDE.

    Parameters
    ----------
    kde : gendel.core.models.KDE
        The fitted pre-trained model p_hat (its training set is X).
    M : int
        Monte Carlo sample size (samples x ~ p_hat, shared by all z).
    rng : numpy.random.Generator
    worst : int, optional
        The deletion whose log ratios are kept (default: the one with the largest second moment
        on these samples; pass the one chosen on independent samples to test a bound there).

    Examples
    --------
    The isolated point at (3, 3) is the deletion that changes the KDE most:

    >>> import numpy as np
    >>> from gendel.core.models import KDE
    >>> from gendel.theory.stability import error_stability
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [3.0, 3.0]])
    >>> es = error_stability(KDE(bandwidth=0.5).fit(X), 1000, rng=np.random.default_rng(0))
    >>> es.worst, es.second_moment.shape, es.log_ratio_worst.shape
    (3, (4,), (1000,))
    >>> bool(np.all(es.kl > 0)), bool(np.all(es.kl_cv > 0))
    (True, True)
    """
    X = kde.X_
    M = check_count(M, "M", minimum=4)
    rng = check_rng(rng)
    Y = kde.sample(M, rng=rng)
    s1 = np.zeros(len(X))
    s2 = np.zeros(len(X))
    s4, c1, c2 = np.zeros(len(X)), np.zeros(len(X)), np.zeros(len(X))
    for a in range(0, M, chunk):
        L = leave_one_out_log_ratios(X, Y[a:a + chunk], kde.bandwidth)
        s1 += L.sum(0)
        s2 += (L**2).sum(0)
        s4 += (L**4).sum(0)
        cv = np.expm1(L) - L                                  # rho - 1 - log rho >= 0
        c1 += cv.sum(0)
        c2 += (cv**2).sum(0)
    mean = s1 / M
    second = s2 / M
    second_se = np.sqrt(np.maximum(s4 / M - second**2, 0.0) / M)
    kl_se = np.sqrt(np.maximum(second - mean**2, 0.0) / M)
    worst = int(np.argmax(second)) if worst is None else check_count(worst, "worst", minimum=0)
    if worst >= len(X):
        raise ValueError(f"worst must index a training point, 0 to {len(X) - 1}; got {worst}")
    # column `worst` of the leave-one-out matrix, without a second pass over all N columns
    worst_col = ExactKDERatio(bandwidth=kde.bandwidth).fit(X, np.array([worst])).log_ratio(Y)
    kl_cv_se = np.sqrt(np.maximum(c2 / M - (c1 / M) ** 2, 0.0) / M)
    return ErrorStability(second, second_se, -mean, kl_se, worst_col, worst, c1 / M, kl_cv_se)


def cantelli_bound(epsilon, delta):
    """Thm. 6's tail bound sqrt(epsilon (1 - delta) / delta) on log rho_hat at level 1 - delta.

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.theory.stability import cantelli_bound
    >>> np.round(cantelli_bound(0.25, np.array([0.5, 0.1])), 4)   # sqrt(0.25 * (1 - delta) / delta)
    array([0.5, 1.5])
    """
    delta = np.asarray(delta, dtype=float)
    if np.any((delta <= 0) | (delta >= 1)):
        raise ValueError("delta must lie in (0, 1)")
    return np.sqrt(float(epsilon) * (1.0 - delta) / delta)


def cantelli_bound_sharp(second_moment, kl, delta):
    """The intermediate bound of Thm. 6's proof: sqrt((1 - delta)/delta * Var) - KL, Var = E(log rho)^2 - KL^2.

    Examples
    --------
    Subtracting the KL divergence makes the proof's intermediate bound tighter than :func:`cantelli_bound`:

    >>> from gendel.theory.stability import cantelli_bound, cantelli_bound_sharp
    >>> round(float(cantelli_bound_sharp(1.0, 0.5, 0.5)), 4), float(cantelli_bound(1.0, 0.5))
    (0.366, 1.0)
    """
    delta = np.asarray(delta, dtype=float)
    var = max(float(second_moment) - float(kl) ** 2, 0.0)
    return np.sqrt(var * (1.0 - delta) / delta) - float(kl)


__all__ = [
    "ErrorStability",
    "cantelli_bound",
    "cantelli_bound_sharp",
    "error_stability",
    "kde_lbli_epsilon",
    "kde_log_ratio_supremum",
    "lbli_bound",
    "leave_one_out_log_ratios",
    "numerical_sup_log_ratio",
    "outermost_direction",
    "ray_log_ratio",
    "stepwise_lbli_bound",
]
