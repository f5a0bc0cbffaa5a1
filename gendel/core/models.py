"""Generative learners A with an explicit density.

The kernel density estimator is the learner of §5.1: its density can be written down, so the
ground-truth ratio rho_hat = p_hat' / p_hat between the pre-trained and the re-trained model is
available exactly and every approximation can be checked against it.
"""

from __future__ import annotations

import numpy as np

from gendel._kernels import GaussianKernelSums, log_normaliser
from gendel._validation import Estimator, check_bandwidth, check_count, check_kernel_scale, check_points, check_rng, plain


class KDE(Estimator):
    """Gaussian kernel density estimator, p_KDE(x; X) = (1/N) sum_i N(x; x_i, sigma^2 I).

    Parameters
    ----------
    bandwidth : float
        The kernel bandwidth sigma (sigma_A in the paper's experiments), keyword-only. Checked
        by :meth:`fit`: a number in [1e-150, 1e150].

    Attributes
    ----------
    X_ : ndarray of shape (N, d)
        The training points.
    bandwidth_ : float
        The bandwidth the model was fitted with.
    n_samples_ : int
        N.
    dim_ : int
        d.

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.core.models import KDE
    >>> kde = KDE(bandwidth=1.0).fit([[0.0], [2.0]])
    >>> kde
    KDE(bandwidth=1.0)
    >>> round(float(np.exp(kde.log_prob([[1.0]])[0])), 4)   # N(1; 0, 1) = N(1; 2, 1)
    0.242
    >>> kde.sample(3, rng=np.random.default_rng(0)).shape
    (3, 1)
    """

    _fitted_attribute = "X_"

    def __init__(self, *, bandwidth):
        self.bandwidth = plain(bandwidth)

    def fit(self, X):
        """Store the training set X (N, d). Returns self."""
        bandwidth = check_bandwidth(self.bandwidth, "bandwidth")
        X = check_points(X, "X")
        check_kernel_scale(X, X.mean(axis=0), bandwidth, "X")
        self.__dict__.pop("X_", None)  # a failed refit leaves the model unfitted, not half-updated
        self.n_samples_, self.dim_ = X.shape
        self.bandwidth_ = bandwidth
        self._sums = GaussianKernelSums([X], bandwidth)
        X = X.copy()  # the caller may change X later; the model must not
        X.flags.writeable = False
        self.X_ = X
        return self

    def log_prob(self, Y):
        """log p_hat(y) for each row y of ``Y``; shape (n,)."""
        self._check_fitted()
        Y = check_points(Y, "Y", dim=self.dim_)
        check_kernel_scale(Y, self._sums.shift, self.bandwidth_, "Y")
        return self._sums(Y)[:, 0] - np.log(self.n_samples_) + log_normaliser(self.bandwidth_, self.dim_)

    def sample(self, m, *, rng):
        """Draw ``m`` i.i.d. points from the KDE: a random training point plus N(0, sigma^2 I) noise."""
        self._check_fitted()
        m = check_count(m, "m", minimum=0)
        rng = check_rng(rng)
        idx = rng.integers(0, self.n_samples_, size=m)
        return self.X_[idx] + self.bandwidth_ * rng.standard_normal((m, self.dim_))


class EmpiricalModel:
    """The empirical distribution of a training set: ``sample`` resamples training points.

    The simplest generative model of all, for any data shape (vectors or images). With Alg. 1
    and a DRE it shows fast deletion on real data without training a generator: accepted
    resamples should follow X \\ X'.

    Parameters
    ----------
    X : array_like of shape (N, ...)
        The training points (rows) or images.

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.core.models import EmpiricalModel
    >>> EmpiricalModel(np.arange(6.0).reshape(3, 2)).sample(4, rng=np.random.default_rng(0)).shape
    (4, 2)
    """

    def __init__(self, X):
        X = np.asarray(X)
        if X.ndim < 2 or len(X) == 0:
            raise ValueError(f"X must hold at least one point, one per row (shape (N, ...)); got shape {X.shape}")
        self.X = X

    def sample(self, m, *, rng):
        """``m`` points drawn uniformly with replacement from X."""
        m = check_count(m, "m", minimum=0)
        rng = check_rng(rng)
        return self.X[rng.integers(0, len(self.X), size=m)]

    def __repr__(self):
        return f"EmpiricalModel(X of shape {self.X.shape})"
