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
    >>> from gendel.models import EmpiricalModel
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


def __getattr__(name):
    # The DCGAN needs torch: it is imported on first use so that the 2-D half does not load it.
    if name == "DCGAN":
        from .gan.dcgan import DCGAN

        return DCGAN
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
