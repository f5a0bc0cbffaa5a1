"""Generative learners A with an explicit density.

The kernel density estimator is the learner of §5.1: its density can be written down, so the
ground-truth ratio rho_hat = p_hat' / p_hat between the pre-trained and the re-trained model is
available exactly and every approximation can be checked against it.
"""

from __future__ import annotations

import numpy as np

from ._kernels import GaussianKernelSums, log_normaliser
from ._validation import check_count, check_fitted, check_points, check_positive, check_rng


class KDE:
    """Gaussian kernel density estimator, p_KDE(x; X) = (1/N) sum_i N(x; x_i, sigma^2 I).

    Parameters
    ----------
    bandwidth : float
        The kernel bandwidth sigma (sigma_A in the paper's experiments).

    Attributes
    ----------
    X_ : ndarray of shape (N, d)
        The training points.
    n_samples_ : int
        N.
    dim_ : int
        d.
    """

    def __init__(self, bandwidth):
        self.bandwidth = check_positive(bandwidth, "bandwidth")

    def fit(self, X):
        """Store the training set X (N, d). Returns self."""
        self.X_ = check_points(X, "X").copy()  # the caller may change X later; the model must not
        self.X_.flags.writeable = False
        self.n_samples_, self.dim_ = self.X_.shape
        self._sums = GaussianKernelSums([self.X_], self.bandwidth)
        return self

    def log_prob(self, Y):
        """log p_hat(y) for each row y of ``Y``; shape (n,)."""
        check_fitted(self, "X_")
        Y = check_points(Y, "Y", dim=self.dim_)
        return self._sums(Y)[:, 0] - np.log(self.n_samples_) + log_normaliser(self.bandwidth, self.dim_)

    def sample(self, m, *, rng):
        """Draw ``m`` i.i.d. points from the KDE: a random training point plus N(0, sigma^2 I) noise."""
        check_fitted(self, "X_")
        m = check_count(m, "m", minimum=0)
        rng = check_rng(rng)
        idx = rng.integers(0, self.n_samples_, size=m)
        return self.X_[idx] + self.bandwidth * rng.standard_normal((m, self.dim_))

    def __repr__(self):
        return f"KDE(bandwidth={self.bandwidth!r})"
