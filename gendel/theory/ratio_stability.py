"""Ratio stability on the circle (Def. 6, Thms. 4 and 5): repeated draws of two training sets.

Split from :mod:`gendel.theory.consistency` (which re-exports these names); the learners and the
empirical constants are described there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_count
from ._repeats import _check_delta, _quantile, _rng
from .circle import CircleModel, density_on_grid, fourier_sums, kde_coefficients, n_terms, silverman_bandwidth
from .quadrature import PeriodicGrid


# ------------------------------------------------------------------------------------------
# Ratio stability (Def. 6, Thm. 4)


@dataclass
class RatioStabilityRun:
    """Per-repeat quantities of Def. 6 / Thm. 4 for one N.

    Z_1 holds N i.i.d. points of mu_1 = p_*, Z_2 holds N - 1 i.i.d. points of mu_2 = p_*',
    independent of Z_1, and both are fitted by the KDE A with bandwidth h = scale L N^(-1/5).

    Attributes
    ----------
    rs : ||log(p_A(Z_1) / mu_1) - log(p_A(Z_2) / mu_2)||_inf per repeat (the RS quantity).
    sup_log_1, sup_log_2 : ||log(p_A(Z_i) / mu_i)||_inf per repeat (the RC quantities).

    Examples
    --------
    >>> from gendel.theory.circle import CircleModel
    >>> from gendel.theory.consistency import ratio_stability_run
    >>> run = ratio_stability_run(CircleModel(), 200, R=20, grid_size=256)
    >>> run.rs.shape, bool((run.rs <= run.sup_log_1 + run.sup_log_2 + 1e-12).all())   # triangle inequality
    ((20,), True)
    """

    N: int
    R: int
    bandwidth: float
    rs: np.ndarray
    sup_log_1: np.ndarray
    sup_log_2: np.ndarray

    def rs_epsilon(self, delta):
        """Empirical RS constant: the (1 - delta)-quantile of the RS quantity."""
        return _quantile(self.rs, 1 - _check_delta(delta))

    def log_c(self, delta):
        """log c_N: the (1 - delta)-quantile of the larger RC sup log ratio (serves Z_1 and Z_2)."""
        return _quantile(np.maximum(self.sup_log_1, self.sup_log_2), 1 - _check_delta(delta))


def ratio_stability_run(model, N, *, R=200, scale=0.25, grid_size=4096, seed=0):
    """Record the RS quantity of Def. 6 and the RC quantities of Def. 1 over R draws (Thm. 4).

    Examples
    --------
    The empirical RS constant stays below 2 log c_N, as Thm. 4 says:

    >>> from gendel.theory.circle import CircleModel
    >>> from gendel.theory.consistency import ratio_stability_run
    >>> run = ratio_stability_run(CircleModel(), 200, R=20, grid_size=256)
    >>> round(run.rs_epsilon(delta=0.1), 3), round(run.log_c(delta=0.1), 3)
    (0.456, 0.417)
    """
    if not isinstance(model, CircleModel):
        raise TypeError(f"model must be a gendel.theory.circle.CircleModel; got {type(model).__name__}")
    N, R = check_count(N, "N", minimum=4), check_count(R, "R", minimum=2)
    L = model.period
    h = silverman_bandwidth(N, scale, L)
    grid = PeriodicGrid(grid_size, L)
    K = n_terms(h, L)
    rng = _rng(seed, N, 3)
    Z1 = model.sample(N, rng=rng, repeats=R)
    Z2 = model.sample_deleted_distribution(N - 1, rng=rng, repeats=R)
    p1 = density_on_grid(kde_coefficients(fourier_sums(Z1, K, L), np.full(R, N), h, L), grid)
    p2 = density_on_grid(kde_coefficients(fourier_sums(Z2, K, L), np.full(R, N - 1), h, L), grid)
    e1 = np.log(p1) - np.log(model.density(grid.points))
    e2 = np.log(p2) - np.log(model.deleted_density(grid.points))
    return RatioStabilityRun(N=N, R=R, bandwidth=h, rs=np.max(np.abs(e1 - e2), axis=1),
                             sup_log_1=np.max(np.abs(e1), axis=1), sup_log_2=np.max(np.abs(e2), axis=1))


# ------------------------------------------------------------------------------------------
# Thm. 5: the size of rho_hat as the deletion set grows


@dataclass
class RatioSupremumRun:
    """Per-repeat quantities of Thm. 5 for one deletion strength beta.

    Attributes
    ----------
    beta : float
    rho_star_sup : ||rho_*||_inf for this beta.
    n_deleted : N' per repeat.
    log_sup_rho_hat : log ||rho_hat||_inf per repeat (max over the grid).
    sup_log_x, sup_log_kept : ||log(p_hat / p_*)||_inf and ||log(p_hat' / p_*')||_inf per repeat.

    Examples
    --------
    The supremum never exceeds the direct RC bound:

    >>> from gendel.theory.consistency import ratio_supremum_run
    >>> runs = ratio_supremum_run(200, [0.2, 0.6], R=10, grid_size=256)
    >>> [bool((run.log_sup_rho_hat <= run.direct_bound() + 1e-12).all()) for run in runs]
    [True, True]
    """

    beta: float
    rho_star_sup: float
    n_deleted: np.ndarray
    log_sup_rho_hat: np.ndarray
    sup_log_x: np.ndarray
    sup_log_kept: np.ndarray

    def direct_bound(self):
        """Per repeat: log ||rho_*||_inf + ||log p_hat/p_*||_inf + ||log p_hat'/p_*'||_inf (RC, no induction)."""
        return np.log(self.rho_star_sup) + self.sup_log_x + self.sup_log_kept


def ratio_supremum_run(N, betas, *, amplitude=0.5, R=100, scale=0.25, grid_size=4096, seed=0):
    """For each deletion strength beta, thin R training sets of size N and record log ||rho_hat||_inf.

    Examples
    --------
    log ||rho_hat||_inf grows with the deletion strength beta, as log ||rho_*||_inf does:

    >>> import numpy as np
    >>> from gendel.theory.consistency import ratio_supremum_run
    >>> runs = ratio_supremum_run(200, [0.2, 0.6], R=10, grid_size=256)
    >>> [(round(float(np.log(run.rho_star_sup)), 2), round(float(np.median(run.log_sup_rho_hat)), 2)) for run in runs]
    [(0.11, 0.09), (0.36, 0.32)]
    """
    N, R = check_count(N, "N", minimum=4), check_count(R, "R", minimum=2)
    h = silverman_bandwidth(N, scale)
    grid = PeriodicGrid(grid_size)
    K = n_terms(h)
    out = []
    for i, beta in enumerate(betas):
        model = CircleModel(amplitude=amplitude, deletion_strength=beta)
        rng = _rng(seed, N, 4, i)
        X, deleted = model.sample_with_deletion(N, rng=rng, repeats=R)
        n_del = deleted.sum(axis=1)
        S_kept = fourier_sums(X, K, mask=~deleted)
        S_all = S_kept + fourier_sums(X, K, mask=deleted)
        p = density_on_grid(kde_coefficients(S_all, np.full(R, N), h), grid)
        pk = density_on_grid(kde_coefficients(S_kept, N - n_del, h), grid)
        out.append(RatioSupremumRun(
            beta=float(beta), rho_star_sup=model.rho_star_sup, n_deleted=n_del,
            log_sup_rho_hat=np.max(np.log(pk) - np.log(p), axis=1),
            sup_log_x=np.max(np.abs(np.log(p) - np.log(model.density(grid.points))), axis=1),
            sup_log_kept=np.max(np.abs(np.log(pk) - np.log(model.deleted_density(grid.points))), axis=1),
        ))
    return out


__all__ = ["RatioStabilityRun", "RatioSupremumRun", "ratio_stability_run", "ratio_supremum_run"]
