"""A setting where ratio consistency (Def. 1) can hold: densities on the circle [0, L).

Def. 1 asks for sup_x ``|log(p_A(Z)(x) / mu(x))|`` -> 0. For a Gaussian KDE on R^d this fails: the
KDE's tails are those of its kernel, not of mu, so the log ratio is unbounded far from the data
(see the approximation page). On a compact domain without boundary, with a true density that is
smooth and bounded away from 0, a KDE with a shrinking bandwidth is uniformly consistent and the
sup of the log ratio does go to 0. This module provides that setting:

- :class:`CircleModel`: p_*(x) = (1 + a cos(2 pi x / L)) / L on [0, L) and a deletion mechanism
  by *thinning*: each training point x is kept with probability
  kappa(x) = 1 - beta (1 + cos(2 pi (x - c) / L)) / 2, deleted otherwise. The kept points
  X \\ X' are then i.i.d. from p_*' = kappa p_* / Z, Z = int kappa p_*, so rho_* = kappa / Z is
  known in closed form (as in the synthetic experiments of §5.1, where points of the re-weighted
  clusters are deleted with probability 1 - lambda).
- :class:`WrappedGaussianKDE`: the KDE with a wrapped Gaussian kernel of standard deviation h.
  Its density is a trigonometric polynomial; we evaluate it through its Fourier series, truncated
  where the kernel's coefficients exp(-2 pi^2 k^2 h^2 / L^2) fall below 1e-17, so values are exact
  to about 1e-15 relative error, on a grid by one inverse FFT.
- :func:`fourier_sums`, :func:`kde_coefficients`, :func:`density_on_grid`, :func:`density_at`:
  the same computations batched over repeated draws (arrays of shape (R, n)).
"""

from __future__ import annotations

import math

import numpy as np

from gendel._validation import Estimator, check_bandwidth, check_count, check_positive, check_rng, plain
from gendel.theory.quadrature import PeriodicGrid

#: Fourier coefficients of the kernel below this are dropped (relative truncation error).
TRUNCATION = 1e-17
_CHUNK_ELEMENTS = 2_000_000


def _as_points(x, name="x"):
    arr = np.asarray(x, dtype=float)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


class CircleModel:
    """A smooth density on the circle [0, L) and deletion by thinning (Fig. 1's p_* and p_*').

    p_*(x)  = (1 + a cos(2 pi x / L)) / L,
    kappa(x) = 1 - beta (1 + cos(2 pi (x - c) / L)) / 2      (probability of keeping x),
    p_*'(x) = kappa(x) p_*(x) / Z,   Z = 1 - beta / 2 - (a beta / 4) cos(2 pi c / L),
    rho_*   = p_*' / p_* = kappa / Z,   ||rho_*||_inf = 1 / Z.

    Parameters
    ----------
    amplitude : float in [0, 1)
        a; p_* lies in [(1 - a) / L, (1 + a) / L], bounded away from 0.
    deletion_strength : float in [0, 1)
        beta; points near x = c are deleted with probability up to beta. The expected fraction
        deleted is 1 - Z.
    deletion_centre : float, optional
        c, where deletion is strongest; defaults to L / 4.
    period : float
        The circumference L.

    Examples
    --------
    >>> model = CircleModel(amplitude=0.5, deletion_strength=0.4)
    >>> model.keep_fraction, model.rho_star_sup, model.sample(5, rng=0).shape   # Z, ||rho_*||_inf = 1 / Z
    (0.8, 1.25, (5,))
    """

    def __init__(self, amplitude=0.5, deletion_strength=0.4, deletion_centre=None, period=1.0):
        self.period = check_positive(period, "period")
        a, b = float(amplitude), float(deletion_strength)
        if not 0.0 <= a < 1.0:
            raise ValueError(f"amplitude must lie in [0, 1) so that p_* stays bounded away from 0; got {amplitude!r}")
        if not 0.0 <= b < 1.0:
            raise ValueError(f"deletion_strength must lie in [0, 1) so that rho_* stays positive; got {deletion_strength!r}")
        self.amplitude, self.deletion_strength = a, b
        self.deletion_centre = 0.25 * self.period if deletion_centre is None else float(deletion_centre)
        self.keep_fraction = 1.0 - b / 2.0 - a * b / 4.0 * math.cos(2 * math.pi * self.deletion_centre / self.period)

    # densities --------------------------------------------------------------------------
    def density(self, x):
        """p_*(x)."""
        x = _as_points(x)
        return (1.0 + self.amplitude * np.cos(2 * np.pi * x / self.period)) / self.period

    def keep_probability(self, x):
        """kappa(x), the probability that a training point at x is kept (not deleted)."""
        x = _as_points(x)
        c = np.cos(2 * np.pi * (x - self.deletion_centre) / self.period)
        return 1.0 - self.deletion_strength * (1.0 + c) / 2.0

    def deleted_density(self, x):
        """p_*'(x) = kappa(x) p_*(x) / Z, the density of the kept points X \\ X'."""
        return self.keep_probability(x) * self.density(x) / self.keep_fraction

    def rho_star(self, x):
        """rho_*(x) = p_*'(x) / p_*(x) = kappa(x) / Z."""
        return self.keep_probability(x) / self.keep_fraction

    @property
    def rho_star_sup(self):
        """||rho_*||_inf = 1 / Z (attained opposite the deletion centre)."""
        return 1.0 / self.keep_fraction

    # sampling ---------------------------------------------------------------------------
    def sample(self, n, *, rng, repeats=None):
        """n i.i.d. points of p_* (shape (n,)), or ``repeats`` independent sets (shape (repeats, n))."""
        n = check_count(n, "n")
        rng = check_rng(rng)
        total = n * (1 if repeats is None else check_count(repeats, "repeats"))
        out = self._rejection(total, rng, lambda x: self.density(x) * self.period / (1.0 + self.amplitude), lambda k: rng.random(k) * self.period)
        return out if repeats is None else out.reshape(repeats, n)

    def sample_deleted_distribution(self, n, *, rng, repeats=None):
        """n i.i.d. points of p_*' (the distribution of X \\ X'), optionally ``repeats`` sets."""
        n = check_count(n, "n")
        rng = check_rng(rng)
        total = n * (1 if repeats is None else check_count(repeats, "repeats"))
        out = self._rejection(total, rng, self.keep_probability, lambda k: self.sample(k, rng=rng))
        return out if repeats is None else out.reshape(repeats, n)

    def sample_with_deletion(self, n, *, rng, repeats=None):
        """Draw X (n i.i.d. points of p_*) and thin it: returns ``(X, deleted)``.

        Each point is deleted independently with probability 1 - kappa(x), so given the number
        kept, X \\ X' is an i.i.d. sample of p_*'. Shapes (n,) or (repeats, n).
        """
        rng = check_rng(rng)
        X = self.sample(n, rng=rng, repeats=repeats)
        deleted = rng.random(X.shape) >= self.keep_probability(X.ravel()).reshape(X.shape)
        return X, deleted

    @staticmethod
    def _rejection(total, rng, accept_prob, propose):
        out = np.empty(total)
        filled = 0
        while filled < total:
            need = total - filled
            x = propose(int(need * 1.6) + 16)
            x = x[rng.random(x.size) < accept_prob(x)][:need]
            out[filled:filled + x.size] = x
            filled += x.size
        return out

    def __repr__(self):
        return (f"CircleModel(amplitude={self.amplitude!r}, deletion_strength={self.deletion_strength!r}, "
                f"deletion_centre={self.deletion_centre!r}, period={self.period!r})")


def silverman_bandwidth(n, scale=0.25, period=1.0):
    """A bandwidth that shrinks like n^(-1/5): h_n = scale * L * n^(-1/5).

    With this rate the KDE of a smooth density is uniformly consistent (sup error of order
    n^(-2/5) up to a log factor), so the learner is ratio consistent on the circle.

    Examples
    --------
    >>> silverman_bandwidth(32), silverman_bandwidth(32, period=2.0)   # 0.25 L 32^(-1/5) = L / 8
    (0.125, 0.25)
    """
    n = check_count(n, "n")
    return check_positive(scale, "scale") * check_positive(period, "period") * n ** (-0.2)


def n_terms(bandwidth, period=1.0):
    """Number K of Fourier terms kept for a wrapped Gaussian kernel of std ``bandwidth``.

    Terms k > K have kernel coefficient exp(-2 pi^2 k^2 h^2 / L^2) < 1e-17.

    Examples
    --------
    >>> n_terms(0.1), n_terms(0.05)   # about 1.4 L / h: halving h doubles K
    (15, 29)
    """
    h, L = check_positive(bandwidth, "bandwidth"), check_positive(period, "period")
    return int(math.ceil(math.sqrt(-math.log(TRUNCATION) / 2.0) * L / (math.pi * h)))


def kernel_coefficients(bandwidth, K, period=1.0):
    """exp(-2 pi^2 k^2 h^2 / L^2) for k = 0..K: the Fourier coefficients of the wrapped Gaussian.

    Examples
    --------
    >>> kernel_coefficients(0.1, K=3).round(4)   # g_0 = 1: the kernel integrates to 1
    array([1.    , 0.8209, 0.454 , 0.1692])
    """
    k = np.arange(K + 1)
    return np.exp(-2.0 * np.pi**2 * (k * bandwidth / period) ** 2)


def fourier_sums(X, K, period=1.0, mask=None):
    """S_k = sum_j mask_j exp(-2 pi i k x_j / L) for k = 0..K, batched over the rows of ``X``.

    Parameters
    ----------
    X : array_like, shape (R, n) or (n,)
        Points on the circle.
    K : int
        Highest frequency.
    period : float
        L.
    mask : array_like of bool, optional
        Same shape as X; only points with True are summed (e.g. the kept points X \\ X').

    Returns
    -------
    ndarray of complex, shape (R, K + 1) or (K + 1,)

    Examples
    --------
    >>> fourier_sums([0.0, 0.5], K=2).real   # S_0 = n; at k = 1 the two points cancel
    array([2., 0., 2.])
    """
    X = np.asarray(X, dtype=float)
    single = X.ndim == 1
    X2 = X[None] if single else X
    W = np.ones_like(X2) if mask is None else np.asarray(mask, dtype=float).reshape(X2.shape)
    R, n = X2.shape
    out = np.empty((R, K + 1), dtype=complex)
    rows = max(1, _CHUNK_ELEMENTS // max(n, 1))
    for a in range(0, R, rows):
        z = np.exp(-2j * np.pi * X2[a:a + rows] / period)
        w = W[a:a + rows]
        power = w.astype(complex)
        out[a:a + rows, 0] = w.sum(axis=1)
        for k in range(1, K + 1):
            power *= z
            out[a:a + rows, k] = power.sum(axis=1)
    return out[0] if single else out


def kde_coefficients(sums, counts, bandwidth, period=1.0):
    """Fourier coefficients c_k = g_k S_k / n of a wrapped Gaussian KDE from :func:`fourier_sums`.

    The KDE is p(x) = (1 / L) sum_{``|k|`` <= K} c_k exp(2 pi i k x / L) with c_{-k} = conj(c_k).

    Examples
    --------
    >>> c = kde_coefficients(fourier_sums([0.25, 0.75], K=10), counts=2, bandwidth=0.1)
    >>> c.shape, complex(c[0])   # c_0 = 1: the density integrates to 1
    ((11,), (1+0j))
    """
    sums = np.asarray(sums)
    counts = np.asarray(counts, dtype=float)
    if np.any(counts <= 0):
        raise ValueError("a KDE needs at least one point in every training set")
    K = sums.shape[-1] - 1
    g = kernel_coefficients(bandwidth, K, period)
    return sums * (g / counts[..., None] if counts.ndim else g / counts)


def density_on_grid(coefficients, grid):
    """Evaluate the Fourier series (1 / L) sum_k c_k e^{2 pi i k x / L} on a grid.

    The grid is a :class:`~gendel.theory.quadrature.PeriodicGrid`.

    ``coefficients`` has shape (..., K + 1) with K < G / 2; returns shape (..., G).

    Examples
    --------
    >>> from gendel.theory.quadrature import PeriodicGrid
    >>> p = density_on_grid(kde_coefficients(fourier_sums([0.25, 0.75], K=10), 2, 0.1), PeriodicGrid(64))
    >>> p.shape, round(float(p.mean()), 6)   # the mean over [0, 1) is the integral
    ((64,), 1.0)
    """
    c = np.asarray(coefficients)
    K = c.shape[-1] - 1
    if 2 * K >= grid.size:
        raise ValueError(f"the grid has {grid.size} nodes but the series has K = {K} terms; use a grid of more than {2 * K} nodes")
    return np.fft.irfft(c, n=grid.size, axis=-1) * (grid.size / grid.period)


def density_at(coefficients, x, period=1.0):
    """Evaluate the Fourier series at arbitrary points: ``coefficients`` (R, K + 1), ``x`` (R, m) -> (R, m).

    Examples
    --------
    >>> c = kde_coefficients(fourier_sums([0.25, 0.75], K=10), 2, 0.1)
    >>> density_at(c[None], [[0.25, 0.5]]).round(4)   # at a training point and between the two
    array([[1.9947, 0.1753]])
    """
    c = np.atleast_2d(np.asarray(coefficients))
    x = np.atleast_2d(np.asarray(x, dtype=float))
    z = np.exp(2j * np.pi * x / period)
    power = np.ones_like(z)
    total = np.zeros(x.shape)
    for k in range(1, c.shape[-1]):
        power *= z
        total += (c[:, k, None] * power).real
    return (c[:, 0, None].real + 2.0 * total) / period


#: WrappedGaussianKDE refuses bandwidths that would need more Fourier terms than this.
MAX_TERMS = 10**7


class WrappedGaussianKDE(Estimator):
    """Kernel density estimator on the circle [0, L) with a wrapped Gaussian kernel.

    p_KDE(x; Z) = (1 / ``|Z|``) sum_{z in Z} K_h(x - z),  K_h(u) = sum_{j in Z} N(u + j L; 0, h^2),

    the circular analogue of the paper's Gaussian KDE (§3.1, Example 1).

    Parameters
    ----------
    bandwidth : float
        The kernel's standard deviation h (keyword-only), in [1e-150, 1e150], and at least
        about 1.4 L / ``MAX_TERMS`` (the Fourier series needs about 1.4 L / h terms).
    period : float
        The circumference L.

    Attributes
    ----------
    X_ : ndarray of shape (n,)
    n_samples_ : int
    coefficients_ : ndarray of complex, shape (K + 1,)
        The Fourier coefficients c_k of the fitted density.

    Examples
    --------
    >>> import numpy as np
    >>> kde = WrappedGaussianKDE(bandwidth=0.05).fit([0.25, 0.75])
    >>> kde
    WrappedGaussianKDE(bandwidth=0.05)
    >>> grid = np.linspace(0.0, 1.0, 1000, endpoint=False)
    >>> round(float(kde.density(grid).mean()), 6)   # a density on [0, 1): it integrates to 1
    1.0
    """

    _fitted_attribute = "coefficients_"

    def __init__(self, *, bandwidth, period=1.0):
        self.bandwidth = plain(bandwidth)
        self.period = plain(period)

    def fit(self, X):
        """Store the training points X (shape (n,) or (n, 1)) and compute the Fourier coefficients."""
        h, L = check_bandwidth(self.bandwidth, "bandwidth"), check_positive(self.period, "period")
        K = n_terms(h, L)
        if K > MAX_TERMS:
            raise ValueError(
                f"bandwidth={h:.3g} is too small for period={L:g}: its Fourier series needs {K:.3g} terms "
                f"(more than {MAX_TERMS:.0e}); use a bandwidth of at least {1.5 * L / MAX_TERMS:.2g}, or rescale"
            )
        X = _as_points(X, "X")
        if X.ndim != 1 or X.size == 0:
            raise ValueError("X must be a non-empty 1-D array of points on the circle")
        self.__dict__.pop("coefficients_", None)  # a failed refit leaves the model unfitted
        self.X_ = np.mod(X, L)
        self.n_samples_ = X.size
        self.coefficients_ = kde_coefficients(fourier_sums(self.X_, K, L), self.n_samples_, h, L)
        return self

    def _check(self):
        self._check_fitted()

    def density(self, x):
        """p_KDE(x) at the points ``x`` (any shape)."""
        self._check()
        x = _as_points(x)
        return density_at(self.coefficients_[None], x.reshape(1, -1), self.period).reshape(x.shape)

    def log_prob(self, x):
        """log p_KDE(x)."""
        return np.log(self.density(x))

    def on_grid(self, grid):
        """p_KDE on the nodes of a :class:`~gendel.theory.quadrature.PeriodicGrid` (one inverse FFT)."""
        self._check()
        if not isinstance(grid, PeriodicGrid) or grid.period != self.period:
            raise ValueError("grid must be a PeriodicGrid with the same period as the KDE")
        return density_on_grid(self.coefficients_, grid)

    def sample(self, m, *, rng):
        """m i.i.d. points: a random training point plus N(0, h^2) noise, wrapped onto [0, L)."""
        self._check()
        m = check_count(m, "m", minimum=0)
        rng = check_rng(rng)
        idx = rng.integers(0, self.n_samples_, size=m)
        return np.mod(self.X_[idx] + self.bandwidth * rng.standard_normal(m), self.period)


__all__ = [
    "CircleModel",
    "WrappedGaussianKDE",
    "density_at",
    "density_on_grid",
    "fourier_sums",
    "kde_coefficients",
    "kernel_coefficients",
    "n_terms",
    "silverman_bandwidth",
]
