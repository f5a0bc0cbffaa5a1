"""MMD between Gaussian KDEs in closed form, and the asymptotics of its unbiased estimator (Appendix C.3).

Kernel: k(x, y) = exp(-||x - y||^2 / (2 l^2)); l = 1 is the paper's "standard RBF kernel".
For Gaussian KDEs the kernel's expectations are Gaussian integrals:

    E_{z ~ N(a, s_a^2 I), z' ~ N(b, s_b^2 I)} k(z, z') = (l^2 / v)^{d/2} exp(-||a - b||^2 / (2 v)),
    v = l^2 + s_a^2 + s_b^2,

so MMD^2 between two KDEs is a double sum over their training points (the Example of
Appendix C.3 is the case s_a = s_b = l = 1, where the factor is 3^{-d/2} exp(-||a - b||^2 / 6)).

The unbiased estimator is an order-2 U-statistic in the pairs (y_i, y_hat_i) with kernel
h((y, yh), (y', yh')) = k(y, y') + k(yh, yh') - k(y, yh') - k(y', yh). Its conditional mean is

    g(y, yh) = E[h | y, yh] = w(y) - w(yh),   w = mu_q - mu_p,   mu_q(y) = E_{y' ~ q} k(y, y'),

(w is the witness function; E g = MMD^2), so

    zeta_1 = Var g = Var_{y ~ q} w(y) + Var_{yh ~ p} w(yh),    zeta_2 = Var h,
    Var MMD_u^2 = 4 (m - 2) / (m (m - 1)) zeta_1 + 2 / (m (m - 1)) zeta_2     (Hoeffding),

and sqrt(m) (MMD_u^2 - MMD^2) -> N(0, 4 zeta_1). Under H0 (q = p_hat), w = 0, zeta_1 = 0 and
the limit is degenerate: the estimator fluctuates on the scale 1/m, not 1/sqrt(m).

Names: ``bandwidth`` is the MMD kernel's width l everywhere in gendel (as in
:func:`gendel.deletion_test.stats.mmd2_unbiased` and :class:`gendel.deletion_test.decision.DeletionTest`); the KDEs'
bandwidth is ``sigma_a`` (sigma_A of the protocol).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gendel._kernels import rbf_gram, sqdist
from gendel._validation import check_count, check_deletion, check_points, check_positive, check_rng
from gendel.theory.quadrature import Estimate, mc_mean, mc_variance


def expected_kernel_matrix(A, B, var_a, var_b, bandwidth=1.0):
    """E k(z, z') for z ~ N(a_i, var_a I), z' ~ N(b_j, var_b I): the matrix over all pairs (i, j).

    Examples
    --------
    With sigma = l = 1 in d = 1 the entries are 3^{-1/2} exp(-(a - b)^2 / 6) (Appendix C.3):

    >>> import numpy as np
    >>> from gendel.theory.mmd import expected_kernel_matrix
    >>> A = np.array([[0.0], [1.0]])
    >>> np.round(expected_kernel_matrix(A, A, 1.0, 1.0), 4)
    array([[0.5774, 0.4887],
           [0.4887, 0.5774]])
    >>> round(float(3 ** -0.5 * np.exp(-1 / 6)), 4)
    0.4887
    """
    A = check_points(A, "A")
    B = check_points(B, "B", dim=A.shape[1])
    ell2 = check_positive(bandwidth, "bandwidth") ** 2
    v = ell2 + float(var_a) + float(var_b)
    return (ell2 / v) ** (A.shape[1] / 2.0) * np.exp(-sqdist(A, B) / (2.0 * v))


def kde_mmd2(X_q, X_p, sigma_a, bandwidth=1.0):
    """MMD^2(q, p) in closed form for two Gaussian KDEs with the same bandwidth sigma_A.

    Parameters
    ----------
    X_q, X_p : array_like, shapes (n_q, d), (n_p, d)
        Training sets of the two KDEs.
    sigma_a : float
        The KDEs' bandwidth sigma_A.
    bandwidth : float
        The RBF kernel's l (1 in the paper).

    Examples
    --------
    MMD^2 between the KDEs after and before forgetting the point at 3 (zero for equal KDEs):

    >>> import numpy as np
    >>> from gendel.theory.mmd import kde_mmd2
    >>> X = np.array([[0.0], [0.5], [1.0], [3.0]])
    >>> round(kde_mmd2(X[:3], X, sigma_a=1.0), 4), kde_mmd2(X, X, sigma_a=1.0)
    (0.0441, 0.0)
    """
    s2 = check_positive(sigma_a, "sigma_a") ** 2
    Kqq = expected_kernel_matrix(X_q, X_q, s2, s2, bandwidth).mean()
    Kpp = expected_kernel_matrix(X_p, X_p, s2, s2, bandwidth).mean()
    Kqp = expected_kernel_matrix(X_q, X_p, s2, s2, bandwidth).mean()
    return float(Kqq + Kpp - 2.0 * Kqp)


def kde_mmd2_paper(X, deleted, sigma_a=1.0, bandwidth=1.0):
    """MMD^2(p_hat', p_hat) by the coefficient formula printed in the Example of Appendix C.3.

    With D = X' (the first N' points in the paper's indexing), K = X \\ X' and
    e_ij = E k(z_i, z_j'), the paper writes::

        MMD^2 = N'^2 / (N^2 (N - N')^2) sum_{i, j in K} e_ij
                - (N + N') / (N^2 (N - N')) sum_{i in D, j in K} e_ij
                + 1 / N^2 sum_{i in X, j in D} e_ij,

    with e_ij = 3^{-d/2} exp(-||x_i - x_j||^2 / 6) for sigma = l = 1; here e_ij is the general
    Gaussian integral, so the formula can be compared with :func:`kde_mmd2` for any sigma and l.

    Examples
    --------
    The paper's coefficient formula agrees with the direct double sum :func:`kde_mmd2`:

    >>> import numpy as np
    >>> from gendel.theory.mmd import kde_mmd2, kde_mmd2_paper
    >>> X = np.array([[0.0], [0.5], [1.0], [3.0]])
    >>> round(kde_mmd2_paper(X, [3]), 4), round(kde_mmd2(X[:3], X, sigma_a=1.0), 4)
    (0.0441, 0.0441)
    """
    X = check_points(X, "X")
    mask = check_deletion(deleted, len(X))
    s2 = check_positive(sigma_a, "sigma_a") ** 2
    E = expected_kernel_matrix(X, X, s2, s2, bandwidth)
    N, Nd = len(X), int(mask.sum())
    S_KK = E[np.ix_(~mask, ~mask)].sum()
    S_DK = E[np.ix_(mask, ~mask)].sum()
    S_XD = E[:, mask].sum()
    return float(Nd**2 / (N**2 * (N - Nd) ** 2) * S_KK - (N + Nd) / (N**2 * (N - Nd)) * S_DK + S_XD / N**2)


def kernel_mean(Y, centres, sigma_a, bandwidth=1.0):
    """mu(y) = E_{y' ~ KDE(centres, sigma)} k(y, y') at the points Y (the kernel mean embedding).

    Examples
    --------
    For one centre at 0 with sigma = l = 1, mu(0) = E exp(-z^2 / 2) = 2^{-1/2}:

    >>> import numpy as np
    >>> from gendel.theory.mmd import kernel_mean
    >>> np.round(kernel_mean([[0.0]], [[0.0]], sigma_a=1.0), 4), round(2 ** -0.5, 4)
    (array([0.7071]), 0.7071)
    """
    s2 = check_positive(sigma_a, "sigma_a") ** 2
    return expected_kernel_matrix(Y, centres, 0.0, s2, bandwidth).mean(axis=1)


def witness(Y, X_q, X_p, sigma_a, bandwidth=1.0):
    """The witness function w(y) = mu_q(y) - mu_p(y) of two Gaussian KDEs at the points Y.

    Examples
    --------
    Forgetting the point at 3 raises the kept model's mean embedding near the kept points and lowers it near 3:

    >>> import numpy as np
    >>> from gendel.theory.mmd import witness
    >>> X = np.array([[0.0], [0.5], [1.0], [3.0]])
    >>> np.round(witness([[-1.0], [3.0]], X[:3], X, sigma_a=1.0), 3)
    array([ 0.098, -0.137])
    """
    return kernel_mean(Y, X_q, sigma_a, bandwidth) - kernel_mean(Y, X_p, sigma_a, bandwidth)


@dataclass(frozen=True)
class MMDVarianceTerms:
    """The variance terms of the MMD U-statistic for q and p (Monte Carlo Estimates).

    Attributes
    ----------
    mmd2 : float
        MMD^2(q, p) (closed form).
    zeta1 : Var_{(y, yh)} E[h | y, yh] = Var_q w + Var_p w.
    zeta2 : Var h.
    expected_conditional_variance : E_{(y, yh)} Var[h | y, yh] = E h^2 - E g^2, the quantity the
        paper's second expression for sigma_u^2 uses (times 4).

    Examples
    --------
    >>> from gendel.theory.mmd import MMDVarianceTerms
    >>> from gendel.theory.quadrature import Estimate
    >>> terms = MMDVarianceTerms(mmd2=0.04, zeta1=Estimate(0.015), zeta2=Estimate(0.36),
    ...                          expected_conditional_variance=Estimate(0.35))
    >>> terms.zeta1.value, float(terms.sigma_u2)   # sigma_u^2 = 4 zeta_1
    (0.015, 0.06)
    >>> round(float(terms.variance(m=50)), 5)
    0.00147
    """

    mmd2: float
    zeta1: Estimate
    zeta2: Estimate
    expected_conditional_variance: Estimate

    @property
    def sigma_u2(self):
        """4 zeta_1: the variance of the normal limit of sqrt(m) (MMD_u^2 - MMD^2)."""
        return 4.0 * self.zeta1

    @property
    def paper_sigma_u2(self):
        """4 E Var[h | y, yh]: the second expression for sigma_u^2 printed in Appendix C.3."""
        return 4.0 * self.expected_conditional_variance

    def variance(self, m):
        """Var MMD_u^2 for m pairs (Hoeffding's formula for the h-form U-statistic)."""
        return u_statistic_variance(m, self.zeta1.value, self.zeta2.value)


def u_statistic_variance(m, zeta1, zeta2):
    """Variance of an order-2 U-statistic over m observations: 4(m-2)/(m(m-1)) zeta_1 + 2/(m(m-1)) zeta_2.

    Examples
    --------
    In the degenerate case zeta_1 = 0 it is 2 zeta_2 / (m (m - 1)):

    >>> from gendel.theory.mmd import u_statistic_variance
    >>> round(float(u_statistic_variance(10, zeta1=0.0, zeta2=1.0)), 4), round(2 / (10 * 9), 4)
    (0.0222, 0.0222)
    """
    m = np.asarray(m, dtype=float)
    if np.any(m < 2):
        raise ValueError("a U-statistic of order 2 needs m >= 2")
    return 4.0 * (m - 2) / (m * (m - 1)) * zeta1 + 2.0 / (m * (m - 1)) * zeta2


def _rbf(A, B, ell):
    return np.exp(-((A - B) ** 2).sum(-1) / (2.0 * ell**2))


def mmd_variance_terms(q_kde, p_kde, M, *, rng, bandwidth=1.0):
    """Estimate zeta_1, zeta_2 and E Var[h | y, yh] for test distribution q and reference p (two fitted KDEs).

    zeta_1 uses the closed-form witness function on M samples of each model; zeta_2 and the
    expected conditional variance use M independent quadruples (y, yh, y', yh').

    Examples
    --------
    Under H1 zeta_1 > 0; under H0 (q = p) the witness is 0, so zeta_1 = 0 and the limit is degenerate:

    >>> import numpy as np
    >>> from gendel.core.models import KDE
    >>> from gendel.theory.mmd import mmd_variance_terms
    >>> X = np.array([[0.0], [0.5], [1.0], [3.0]])
    >>> p, q = KDE(bandwidth=1.0).fit(X), KDE(bandwidth=1.0).fit(X[:3])
    >>> terms = mmd_variance_terms(q, p, 2000, rng=0)
    >>> round(terms.mmd2, 4), f"{terms.zeta1:.4f}"
    (0.0441, '0.0151 ± 0.0003')
    >>> mmd_variance_terms(p, p, 2000, rng=0).zeta1.value
    0.0
    """
    M = check_count(M, "M", minimum=4)
    rng = check_rng(rng)
    if q_kde.bandwidth != p_kde.bandwidth:
        raise ValueError("both KDEs must have the same bandwidth")
    sigma, ell = q_kde.bandwidth, check_positive(bandwidth, "bandwidth")
    Xq, Xp = q_kde.X_, p_kde.X_
    y, y2 = q_kde.sample(M, rng=rng), q_kde.sample(M, rng=rng)
    yh, yh2 = p_kde.sample(M, rng=rng), p_kde.sample(M, rng=rng)
    wy, wyh = witness(y, Xq, Xp, sigma, ell), witness(yh, Xq, Xp, sigma, ell)
    mmd2 = kde_mmd2(Xq, Xp, sigma, ell)
    zeta1 = mc_variance(wy) + mc_variance(wyh)
    h = _rbf(y, y2, ell) + _rbf(yh, yh2, ell) - _rbf(y, yh2, ell) - _rbf(y2, yh, ell)
    g = wy - wyh
    return MMDVarianceTerms(mmd2=mmd2, zeta1=zeta1, zeta2=mc_variance(h), expected_conditional_variance=mc_mean(h**2 - g**2))


def _off_diagonal_sum(K):
    """Sum of the entries i != j of each square matrix in a batch (..., m, m)."""
    return K.sum((-2, -1)) - np.trace(K, axis1=-2, axis2=-1)


def mmd2_estimates(Y, Yhat, bandwidth=1.0):
    """Two unbiased MMD^2 estimators on a batch of sample sets Y, Yhat of shape (R, m, d).

    Returns ``(printed, h_form)``, arrays of shape (R,):

    - ``printed``: the estimator as printed in Appendix C.3 (and :func:`gendel.deletion_test.stats.mmd2_unbiased`),
      whose cross term -2/m^2 sum_{i, j} k(y_i, yh_j) includes the pairs i = j;
    - ``h_form``: 1/(m(m-1)) sum_{i != j} h((y_i, yh_i), (y_j, yh_j)), the U-statistic to which the
      asymptotic and concentration results of Appendix C.3 refer.

    Examples
    --------
    The printed estimator is :func:`gendel.deletion_test.stats.mmd2_unbiased`; both are near MMD^2 = 0 for equal laws:

    >>> import numpy as np
    >>> from gendel.deletion_test.stats import mmd2_unbiased
    >>> from gendel.theory.mmd import mmd2_estimates
    >>> rng = np.random.default_rng(0)
    >>> Y, Yhat = rng.normal(size=(3, 20, 2)), rng.normal(size=(3, 20, 2))
    >>> printed, h_form = mmd2_estimates(Y, Yhat)
    >>> printed.shape, bool(np.isclose(printed[0], mmd2_unbiased(Y[0], Yhat[0])))
    ((3,), True)
    >>> np.round(h_form, 3)
    array([-0.018, -0.017, -0.03 ])
    """
    Y = np.asarray(Y, dtype=float)
    Yhat = np.asarray(Yhat, dtype=float)
    if Y.ndim != 3 or Y.shape != Yhat.shape:
        raise ValueError(f"Y and Yhat must have the same shape (R, m, d); got {Y.shape} and {Yhat.shape}")
    ell = check_positive(bandwidth, "bandwidth")
    R, m, _ = Y.shape
    if m < 2:
        raise ValueError("each sample set needs at least two points")
    printed, h_form = np.empty(R), np.empty(R)
    # One repeat at a time: with d = 2 a batched (R, m, m) matmul is slower than R BLAS calls.
    for r in range(R):
        kyy, kxx, kxy = rbf_gram(Y[r], Y[r], ell), rbf_gram(Yhat[r], Yhat[r], ell), rbf_gram(Y[r], Yhat[r], ell)
        within = (_off_diagonal_sum(kyy) + _off_diagonal_sum(kxx)) / (m * (m - 1))
        printed[r] = within - 2.0 * kxy.mean()
        h_form[r] = within - 2.0 * _off_diagonal_sum(kxy) / (m * (m - 1))
    return printed, h_form


def deletion_mmd2_monte_carlo(X, deleted, sigma_a, n, *, rng, bandwidth=1.0):
    """Monte Carlo estimate of MMD^2(p_hat', p_hat) for KDEs, independent of the closed form.

    Averages h((y, yh), (y', yh')) over ``n`` independent quadruples, where within each pair
    (y, yh) the two points are coupled to reduce variance: yh ~ p_hat is drawn as a random
    training point plus noise, and y ~ p_hat' reuses yh when its training point is kept and is
    drawn afresh from p_hat' otherwise. The marginals are exact (y ~ p_hat', yh ~ p_hat) and the
    two pairs of a quadruple are independent, so E h = MMD^2 still holds.

    Returns an :class:`~gendel.theory.quadrature.Estimate` (mean of h and its standard error).

    Examples
    --------
    The Monte Carlo estimate agrees with the closed form :func:`kde_mmd2` within its standard error:

    >>> import numpy as np
    >>> from gendel.theory.mmd import deletion_mmd2_monte_carlo, kde_mmd2
    >>> X = np.array([[0.0], [0.5], [1.0], [3.0]])
    >>> est = deletion_mmd2_monte_carlo(X, [3], sigma_a=1.0, n=50_000, rng=0)
    >>> f"{est:.4f}", round(kde_mmd2(X[:3], X, sigma_a=1.0), 4)
    ('0.0438 ± 0.0011', 0.0441)
    """
    X = check_points(X, "X")
    mask = check_deletion(deleted, len(X))
    sigma = check_positive(sigma_a, "sigma_a")
    ell = check_positive(bandwidth, "bandwidth")
    n = check_count(n, "n", minimum=4)
    rng = check_rng(rng)
    kept = np.flatnonzero(~mask)
    d = X.shape[1]

    def pair():
        idx = rng.integers(0, len(X), size=n)
        yh = X[idx] + sigma * rng.standard_normal((n, d))
        fresh = X[kept[rng.integers(0, len(kept), size=n)]] + sigma * rng.standard_normal((n, d))
        y = np.where(mask[idx][:, None], fresh, yh)
        return y, yh

    (y, yh), (y2, yh2) = pair(), pair()
    h = _rbf(y, y2, ell) + _rbf(yh, yh2, ell) - _rbf(y, yh2, ell) - _rbf(y2, yh, ell)
    return mc_mean(h)


def concentration_bound(m, delta, *, kernel_sup=1.0, two_sided=True):
    """The deviation bound of Appendix C.3: 4 K sqrt(log(c / delta) / m), c = 2 (two-sided) or 1.

    With probability at least 1 - delta, ``|MMD_u^2 - MMD^2|`` (two-sided) or MMD_u^2 - MMD^2
    (one-sided) is at most this value; K = sup k = 1 for the RBF kernel.

    Examples
    --------
    The bound shrinks as 1 / sqrt(m):

    >>> import numpy as np
    >>> from gendel.theory.mmd import concentration_bound
    >>> np.round(concentration_bound(np.array([100, 400]), delta=0.05), 4)
    array([0.7683, 0.3841])
    >>> round(float(concentration_bound(100, 0.05, two_sided=False)), 4)
    0.6923
    """
    m = np.asarray(m, dtype=float)
    delta = np.asarray(delta, dtype=float)
    if np.any((delta <= 0) | (delta >= 1)):
        raise ValueError("delta must lie in (0, 1)")
    c = 2.0 if two_sided else 1.0
    return 4.0 * float(kernel_sup) * np.sqrt(np.log(c / delta) / m)


__all__ = [
    "MMDVarianceTerms",
    "concentration_bound",
    "deletion_mmd2_monte_carlo",
    "expected_kernel_matrix",
    "kde_mmd2",
    "kde_mmd2_paper",
    "kernel_mean",
    "mmd2_estimates",
    "mmd_variance_terms",
    "u_statistic_variance",
    "witness",
]
