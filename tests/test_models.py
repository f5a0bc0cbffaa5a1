"""The KDE learner of §3.1 / §5.1: gendel.core.models.KDE.

p_KDE(x; X) = (1/N) sum_i N(x; x_i, sigma^2 I). Tolerances: quadrature errors are bounded
analytically (midpoint rule on a Gaussian with cell width <= sigma/5 is exact to far below
1e-10); Monte-Carlo checks use 5 standard errors estimated from the sample or a KS test at
level 1e-3.
"""

import numpy as np
import pytest
from scipy import stats as sps
from scipy.special import logsumexp

from gendel.core.models import KDE

Z = 5.0
LEVEL = 1e-3


def naive_log_prob(X, sigma, Y):
    """log (1/N) sum_i N(y; x_i, sigma^2 I), straight from the definition."""
    N, d = X.shape
    out = np.empty(len(Y))
    for a in range(0, len(Y), 2000):  # bounded memory
        sq = ((Y[a:a + 2000, None, :] - X[None, :, :]) ** 2).sum(-1)
        out[a:a + 2000] = logsumexp(-sq / (2 * sigma**2), axis=1)
    return out - np.log(N) - 0.5 * d * np.log(2 * np.pi * sigma**2)


def test_fit_returns_self_and_learned_attributes():
    X = np.random.default_rng(0).normal(size=(30, 3))
    kde = KDE(bandwidth=0.5)
    assert kde.fit(X) is kde
    assert kde.n_samples_ == 30 and kde.dim_ == 3
    np.testing.assert_array_equal(kde.X_, X)


@pytest.mark.parametrize("d", [1, 2, 3, 7, 20])
def test_log_prob_agrees_with_naive_formula(d):
    g = np.random.default_rng(d)
    X = g.normal(size=(40, d))
    Y = np.concatenate([g.normal(size=(30, d)), 3 * g.normal(size=(30, d))])
    for sigma in (0.05, 0.3, 2.0):
        np.testing.assert_allclose(KDE(bandwidth=sigma).fit(X).log_prob(Y), naive_log_prob(X, sigma, Y), rtol=1e-10, atol=1e-9)


def test_log_prob_agrees_with_scipy_multivariate_normal():
    g = np.random.default_rng(1)
    X, Y, sigma = g.normal(size=(12, 3)), g.normal(size=(9, 3)), 0.7
    comps = np.stack([sps.multivariate_normal(x, sigma**2 * np.eye(3)).logpdf(Y) for x in X])
    np.testing.assert_allclose(KDE(bandwidth=sigma).fit(X).log_prob(Y), logsumexp(comps, axis=0) - np.log(12), rtol=1e-12)


def test_log_prob_with_more_queries_than_one_chunk_uses_all_chunks_correctly():
    # More than 2 * 1024 queries go through the threaded, chunked path.
    g = np.random.default_rng(2)
    X, Y = g.normal(size=(50, 2)), g.normal(size=(5000, 2))
    np.testing.assert_allclose(KDE(bandwidth=0.2).fit(X).log_prob(Y), naive_log_prob(X, 0.2, Y), rtol=1e-10, atol=1e-9)


def test_integrates_to_one_in_1d():
    g = np.random.default_rng(3)
    X = g.normal(size=(50, 1))
    sigma = 0.1
    h = sigma / 5
    xs = np.arange(X.min() - 12 * sigma, X.max() + 12 * sigma, h)[:, None]
    total = np.exp(KDE(bandwidth=sigma).fit(X).log_prob(xs)).sum() * h
    assert abs(total - 1) < 1e-10


def test_integrates_to_one_in_2d():
    g = np.random.default_rng(4)
    X = g.normal(size=(60, 2))
    sigma = 0.15
    h = sigma / 5
    lo, hi = X.min() - 10 * sigma, X.max() + 10 * sigma
    xs = np.arange(lo, hi, h)
    gx, gy = np.meshgrid(xs, xs)
    total = np.exp(KDE(bandwidth=sigma).fit(X).log_prob(np.column_stack([gx.ravel(), gy.ravel()]))).sum() * h * h
    assert abs(total - 1) < 1e-10


def test_integrates_to_one_in_5d_by_importance_sampling():
    # int p = E_q[p / q] with the proposal q = Gaussian mixture at X with a wider bandwidth
    # 1.5 sigma (its density computed with the naive formula). p / q <= 1.5^d is bounded, so
    # the estimate has finite variance; its standard error is estimated from the sample.
    d, sigma, wide = 5, 0.4, 0.6
    g = np.random.default_rng(5)
    X = g.normal(size=(100, d))
    Y = X[g.integers(0, 100, size=100_000)] + wide * g.normal(size=(100_000, d))
    w = np.exp(KDE(bandwidth=sigma).fit(X).log_prob(Y) - naive_log_prob(X, wide, Y))
    assert w.max() <= 1.5**d * (1 + 1e-12)
    se = w.std(ddof=1) / np.sqrt(len(w))
    assert abs(w.mean() - 1) < Z * se
    assert se < 0.01  # the check is informative


def test_samples_have_the_kde_mean_and_covariance():
    # A KDE sample is x_I + sigma * eps: mean = mean(X), covariance = cov(X, biased) + sigma^2 I.
    d, sigma, m = 3, 0.5, 200_000
    g = np.random.default_rng(6)
    X = g.normal(size=(25, d)) * [1.0, 2.0, 0.5] + [1.0, -2.0, 0.0]
    S = KDE(bandwidth=sigma).fit(X).sample(m, rng=np.random.default_rng(7))
    assert S.shape == (m, d)
    mu = X.mean(0)
    cov = np.cov(X.T, bias=True) + sigma**2 * np.eye(d)
    mean = S.mean(0)
    assert np.all(np.abs(mean - mu) < Z * S.std(0, ddof=1) / np.sqrt(m))
    D = S - mu  # centred at the true mean, so the product average is unbiased for cov
    for i in range(d):
        for j in range(i, d):
            prod = D[:, i] * D[:, j]
            assert abs(prod.mean() - cov[i, j]) < Z * prod.std(ddof=1) / np.sqrt(m)


def test_samples_follow_the_kde_distribution_in_1d():
    # One-sample KS test against the KDE's exact CDF (1/N) sum_i Phi((t - x_i) / sigma).
    g = np.random.default_rng(8)
    X, sigma = g.normal(size=(20, 1)), 0.3
    S = KDE(bandwidth=sigma).fit(X).sample(20_000, rng=g)[:, 0]

    def cdf(t):
        return sps.norm.cdf((np.asarray(t)[:, None] - X[:, 0]) / sigma).mean(1)

    assert sps.kstest(S, cdf).pvalue > LEVEL


def test_sample_is_reproducible_and_zero_samples_allowed():
    X = np.random.default_rng(0).normal(size=(10, 2))
    kde = KDE(bandwidth=0.1).fit(X)
    np.testing.assert_array_equal(kde.sample(5, rng=np.random.default_rng(1)), kde.sample(5, rng=np.random.default_rng(1)))
    np.testing.assert_array_equal(kde.sample(5, rng=3), kde.sample(5, rng=3))
    assert kde.sample(0, rng=np.random.default_rng(1)).shape == (0, 2)


@pytest.mark.parametrize("d", [2, 5])
@pytest.mark.parametrize("distance", [10.0, 1e2, 1e3, 1e4, 1e5])
def test_far_away_points_have_finite_accurate_log_density(d, distance):
    # At distance D sigma from all data the kernels underflow in linear space (exp(-D^2/2) is 0
    # for D > 39) but the log density is finite: a single-point KDE gives exactly
    # -D^2/2 - d/2 log(2 pi sigma^2). Relative accuracy 1e-9 (float64 cancellation in
    # ||y||^2 - 2 y.x + ||x||^2 costs ~1e-16 * D^2 in absolute terms).
    sigma = 0.1
    g = np.random.default_rng(9)
    X = g.normal(size=(20, d)) * 0.05
    u = g.normal(size=(6, d))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    Y = u * distance * sigma
    lp = KDE(bandwidth=sigma).fit(X).log_prob(Y)
    assert np.all(np.isfinite(lp))
    np.testing.assert_allclose(lp, naive_log_prob(X, sigma, Y), rtol=1e-9)
    one = KDE(bandwidth=sigma).fit(np.zeros((1, d))).log_prob(Y)
    np.testing.assert_allclose(one, -0.5 * distance**2 - 0.5 * d * np.log(2 * np.pi * sigma**2), rtol=1e-12)


@pytest.mark.parametrize("shift", [1.0, 1e3, 1e6])
def test_translation_invariance(shift):
    # p(y + t; X + t) = p(y; X), also when the data sit far from the origin.
    g = np.random.default_rng(10)
    X, Y, t = g.normal(size=(50, 3)), g.normal(size=(40, 3)), shift * g.normal(size=3)
    a = KDE(bandwidth=0.1).fit(X).log_prob(Y)
    b = KDE(bandwidth=0.1).fit(X + t).log_prob(Y + t)
    # Rounding of the shifted coordinates: |t| eps per coordinate, amplified by
    # |y - x| / sigma^2 (about 1e3 here) in the log density.
    tol = 1e-9 + 1e3 * np.linalg.norm(t) * np.finfo(float).eps * 10
    np.testing.assert_allclose(a, b, rtol=0, atol=tol)


def test_kde_is_not_changed_by_later_edits_of_the_training_array():
    # log_prob and sample must describe the same model: the KDE keeps its own read-only copy.
    rng = np.random.default_rng(5)
    X = rng.normal(size=(50, 2))
    kde = KDE(bandwidth=0.5).fit(X)
    before = kde.log_prob(X[:5])
    X += 100.0
    np.testing.assert_allclose(kde.log_prob(X[:5] - 100.0), before, rtol=1e-12)  # X - 100 rounds
    assert np.abs(kde.sample(200, rng=rng)).max() < 10
    assert not kde.X_.flags.writeable
