"""Statistics of the deletion test (§4 and Appendix C).

All statistics take log ratios (not ratios) and average over the last axis, so a batch of R
repeats of m samples, an array of shape (R, m), gives R statistics at once.

- :func:`likelihood_ratio`: LR(Y, rho) = (1/m) sum_{y in Y} log rho(y)  (§4.1).
- :func:`asc`: ASC_phi(Y_hat, Y, rho) = (1/m) sum_{Y_hat} psi(rho) + (1/m) sum_{Y} psi(rho),
  psi(t) = phi(t) / (1 + t)  (§4.2).
- :func:`mmd2_unbiased`: the unbiased MMD^2 estimator of Appendix C.3.
- :func:`ks_statistic`: the two-sample Kolmogorov-Smirnov statistic used in §5.1 to compare
  distributions of statistics.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy.special import expit

from gendel._kernels import rbf_gram
from gendel._validation import check_bandwidth, check_points, check_real

#: The phi functions of the paper's experiments, by name: log(t), t log(t) (KL) and
#: (sqrt(t) - 1)^2 (squared Hellinger).
PHI_NAMES = ("log", "tlogt", "hellinger")
PHI_LABELS = {"log": "φ(t) = log t", "tlogt": "φ(t) = t log t", "hellinger": "φ(t) = (√t − 1)²"}


def _mean(arr):
    """Mean over the last axis that does not overflow for finite values near the float64 limit."""
    with np.errstate(over="ignore", invalid="ignore"):
        out = arr.mean(axis=-1)
        if np.isinf(out).any():  # -inf entries (ratio 0) or an overflowing sum: sum x / m instead
            out = np.where(np.isinf(out), (arr / arr.shape[-1]).sum(axis=-1), out)
    return out


def _as_log_ratios(values, name):
    arr = check_real(values, name)
    if arr.ndim == 0 or arr.shape[-1] == 0:
        raise ValueError(f"{name} must be an array of log ratios with at least one sample on its last axis")
    if np.isnan(arr).any() or np.isposinf(arr).any():
        raise ValueError(f"{name} contains NaN or +inf; log ratios must be finite or -inf (ratio 0)")
    return arr


def likelihood_ratio(log_ratio_Y):
    """The likelihood ratio statistic LR(Y, rho) of §4.1.

    Parameters
    ----------
    log_ratio_Y : array_like, shape (..., m)
        log rho(y) for the m samples y of Y (rho = rho_hat or rho_hat_E).

    Returns
    -------
    ndarray of shape (...)
        The mean log ratio over the last axis. For the exact ratio rho_hat (normalised,
        E_p_hat[rho] = 1) its expectation is -KL(p_hat || p_hat') <= 0 under H0 and
        KL(p_hat' || p_hat) under H1 (Appendix C.1); a ratio off by a factor Z = E_p_hat[rho]
        moves both by log Z, so under H0 it can then be positive.

    Examples
    --------
    >>> import numpy as np
    >>> likelihood_ratio(np.log([[0.5, 2.0], [1.0, 1.0]]))
    array([0., 0.])
    >>> float(likelihood_ratio([1e308, 1e308]))   # no overflow near the float64 limit
    1e+308
    """
    return _mean(_as_log_ratios(log_ratio_Y, "log_ratio_Y"))


def psi(log_ratio, phi):
    """psi(t) = phi(t) / (1 + t) evaluated at t = exp(log_ratio), stably.

    ``phi`` is one of ``"log"``, ``"tlogt"``, ``"hellinger"`` or a callable acting on ratios t.
    At t = 0 the limits are used: log -> -inf, t log t -> 0, Hellinger -> 1.

    Examples
    --------
    >>> import numpy as np
    >>> psi(np.array([0.0, -np.inf]), "hellinger")   # (sqrt(t) - 1)^2 / (1 + t) at t = 1 and t = 0
    array([0., 1.])
    >>> round(float(psi(np.log(3.0), "tlogt")), 6)   # 3 log 3 / 4
    0.823959
    """
    lr = check_real(log_ratio, "log_ratio")
    one_over = expit(-lr)  # 1 / (1 + t)
    if phi == "log":
        return lr * one_over
    if phi == "tlogt":
        with np.errstate(invalid="ignore"):
            return np.where(np.isneginf(lr), 0.0, lr * expit(lr))  # t log t / (1 + t)
    if phi == "hellinger":
        # (sqrt(t) - 1)^2 / (1 + t) is unchanged by t -> 1/t; evaluating it at t <= 1 keeps
        # exp from overflowing for large ratios (the limit is 1 at t = 0 and t = inf).
        a = np.abs(lr)
        return np.expm1(-0.5 * a) ** 2 * expit(a)
    if callable(phi):
        t = np.exp(lr)
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.asarray(phi(t), dtype=float) / (1.0 + t)
        if np.isnan(values).any():
            bad = float(t[np.isnan(values)].flat[0]) if np.ndim(t) else float(t)
            raise ValueError(
                f"phi(t) gave NaN at t = {bad:g} (a ratio of 0 is possible, e.g. for kNN DREs); "
                "define phi's limit there, e.g. lambda t: np.where(t > 0, t * np.log(t), 0.0)"
            )
        return values
    raise ValueError(f"phi must be one of {PHI_NAMES} or a callable phi(t); got {phi!r}")


def asc(log_ratio_Yhat, log_ratio_Y, phi):
    """The ASC statistic of §4.2, an estimate of a phi-divergence.

    Parameters
    ----------
    log_ratio_Yhat : array_like, shape (..., m)
        log rho on the m samples Y_hat drawn from the pre-trained model p_hat.
    log_ratio_Y : array_like, shape (..., m)
        log rho on the m samples Y drawn from the tested distribution q.
    phi : {"log", "tlogt", "hellinger"} or callable
        The function phi of the phi-divergence.

    Returns
    -------
    ndarray of shape (...)
        (1/m) sum_{Y_hat} psi(rho) + (1/m) sum_Y psi(rho), psi(t) = phi(t) / (1 + t).
        Its mean is E_{p_hat}[2 phi(rho)/(1 + rho)] under H0 and E_{p_hat}[phi(rho)] under H1
        (Appendix C.2).

    Examples
    --------
    >>> import numpy as np
    >>> float(asc(np.zeros(4), np.zeros(4), "log"))   # rho = 1 everywhere: log 1 = 0
    0.0
    >>> float(asc(np.zeros(4), np.zeros(4), "hellinger"))
    0.0
    """
    a = _as_log_ratios(log_ratio_Yhat, "log_ratio_Yhat")
    b = _as_log_ratios(log_ratio_Y, "log_ratio_Y")
    if a.shape[:-1] != b.shape[:-1]:
        raise ValueError(f"the two samples must have the same batch shape; got {a.shape} and {b.shape}")
    return _mean(psi(a, phi)) + _mean(psi(b, phi))


def mmd2_unbiased(Y, Yhat, bandwidth=1.0):
    """Unbiased estimator of MMD^2(q, p_hat) with the RBF kernel (Appendix C.3).

    MMD_u^2 = 1/(m(m-1)) sum_{i != j} k(y_i, y_j) + 1/(n(n-1)) sum_{i != j} k(yh_i, yh_j)
              - 2/(m n) sum_{i, j} k(y_i, yh_j),    k(x, y) = exp(-||x - y||^2 / (2 bandwidth^2)).

    With m = n this is the formula of Appendix C.3; ``bandwidth=1`` is its standard RBF kernel.

    Parameters
    ----------
    Y : array_like, shape (m, d)
        Samples from the tested distribution q.
    Yhat : array_like, shape (n, d)
        Samples from the pre-trained model p_hat.
    bandwidth : float
        The RBF kernel bandwidth, in [1e-150, 1e150].

    Examples
    --------
    >>> import numpy as np
    >>> Y = np.random.default_rng(0).normal(size=(200, 2))
    >>> abs(mmd2_unbiased(Y[:100], Y[100:])) < 0.05   # the same distribution: MMD^2 near 0
    True
    >>> mmd2_unbiased(Y[:100], Y[100:] + 3.0) > 0.5
    True
    """
    Y = check_points(Y, "Y")
    Yhat = check_points(Yhat, "Yhat", dim=Y.shape[1])
    bandwidth = check_bandwidth(bandwidth, "bandwidth")
    m, n = len(Y), len(Yhat)
    if m < 2 or n < 2:
        raise ValueError("mmd2_unbiased needs at least two samples in each set")
    kyy = rbf_gram(Y, Y, bandwidth)
    kxx = rbf_gram(Yhat, Yhat, bandwidth)
    kxy = rbf_gram(Y, Yhat, bandwidth)
    term_y = (kyy.sum() - np.trace(kyy)) / (m * (m - 1))
    term_x = (kxx.sum() - np.trace(kxx)) / (n * (n - 1))
    return float(term_y + term_x - 2.0 * kxy.mean())


def ks_statistic(a, b):
    """Two-sample Kolmogorov-Smirnov statistic sup_t ``|F_a(t) - F_b(t)|`` between two samples.

    Values of -inf (a zero ratio) are ordered below every finite value.

    Examples
    --------
    >>> ks_statistic([0.0, 1.0, 2.0, 3.0], [2.5, 3.5, 4.5, 5.5])
    0.75
    """
    a = np.sort(check_real(a, "a").ravel())
    b = np.sort(check_real(b, "b").ravel())
    if a.size == 0 or b.size == 0:
        raise ValueError("ks_statistic needs two non-empty samples")
    if np.isnan(a).any() or np.isnan(b).any():
        raise ValueError("ks_statistic got NaN values")
    t = np.concatenate([a, b])
    fa = np.searchsorted(a, t, side="right") / a.size
    fb = np.searchsorted(b, t, side="right") / b.size
    return float(np.max(np.abs(fa - fb)))


@dataclasses.dataclass(frozen=True)
class Statistic:
    """One statistic of the deletion test: how it is computed, named and read.

    The registry :data:`STATISTICS` holds one per statistic; every part of gendel (the deletion
    test, the §5.1 protocol, the GAN jobs, the claims, the figures) reads names, labels and
    properties from it.

    Attributes
    ----------
    key : str
        The name in the API and in result files: ``"lr"``, ``"asc-log"``, ``"asc-tlogt"``,
        ``"asc-hellinger"``, ``"mmd"``.
    label : str
        The name in tables and legends (``"ASC (log t)"``).
    axis : str
        An axis title: the symbol and what it averages (plain text, no TeX).
    phi : str or None
        The φ of an ASC statistic (:data:`PHI_NAMES`), None for LR and MMD.
    needs_ratio : bool
        Computed from log ratios (LR, ASC); MMD compares the samples themselves.
    needs_reference : bool
        Needs a reference sample Ŷ of the pre-trained model besides Y (ASC, MMD).
    direction : str
        Which values speak against H0: ``"greater"`` (LR, MMD, ASC with log t and t log t, whose
        mean grows from H0 to H1'), or ``"estimated"`` (Hellinger: the sign of the shift depends
        on the ratio, so the deletion test estimates it from pilot draws).

    Examples
    --------
    >>> s = STATISTICS["asc-log"]
    >>> s.label, s.phi, s.needs_reference
    ('ASC (log t)', 'log', True)
    >>> round(float(s.of_log_ratios(np.zeros(3), np.log([1.0, 2.0, 4.0]))), 3)   # (log 2 / 3 + log 4 / 5) / 3
    0.169
    """

    key: str
    label: str = dataclasses.field(metadata={"presentation": True})
    axis: str = dataclasses.field(metadata={"presentation": True})
    phi: str | None = None
    needs_ratio: bool = True
    needs_reference: bool = False
    direction: str = "greater"

    def of_log_ratios(self, log_ratio_Yhat, log_ratio_Y):
        """The statistic from log ratios on Ŷ and on Y (arrays (..., m); Ŷ is not read by LR).

        Examples
        --------
        >>> STATISTICS["lr"].of_log_ratios(None, [[0.0, 1.0], [2.0, 2.0]]).tolist()
        [0.5, 2.0]
        """
        if not self.needs_ratio:
            raise ValueError(f"{self.key} is not computed from log ratios; use gendel.deletion_test.stats.mmd2_unbiased on "
                             "the samples")
        if self.phi is None:
            return likelihood_ratio(log_ratio_Y)
        return asc(log_ratio_Yhat, log_ratio_Y, self.phi)


def _asc(phi, direction):
    return Statistic(f"asc-{phi}", f"ASC ({ {'log': 'log t', 'tlogt': 't log t', 'hellinger': 'Hellinger'}[phi] })",
                     f"ASC(Ŷ, Y, ρ̂_ℰ), {PHI_LABELS[phi]}", phi, True, True, direction)


#: Every statistic of the deletion test, by key (see :class:`Statistic`).
STATISTICS = {
    "lr": Statistic("lr", "LR", "LR(Y, ρ̂_ℰ) = mean of log ρ̂_ℰ(y) over Y", None, True, False, "greater"),
    "asc-log": _asc("log", "greater"),
    "asc-tlogt": _asc("tlogt", "greater"),
    "asc-hellinger": _asc("hellinger", "estimated"),
    "mmd": Statistic("mmd", "MMD²", "MMD²_u(Y, Ŷ)", None, False, True, "greater"),
}

#: The statistics of the paper's experiments (§5, Appendix D and E): LR and ASC with φ = log t, t log t.
PAPER_STATISTICS = ("lr", "asc-log", "asc-tlogt")


def statistic(key):
    """The :class:`Statistic` called ``key``, or a clear error.

    Examples
    --------
    >>> statistic("lr").label
    'LR'
    >>> statistic("LR")
    Traceback (most recent call last):
    ValueError: unknown statistic 'LR'; choose one of ['lr', 'asc-log', 'asc-tlogt', 'asc-hellinger', 'mmd']
    """
    if key not in STATISTICS:
        raise ValueError(f"unknown statistic {key!r}; choose one of {list(STATISTICS)}")
    return STATISTICS[key]
