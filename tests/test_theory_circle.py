"""The circle setting: the true densities, the thinning, and the wrapped Gaussian KDE."""

import numpy as np
import pytest
from scipy.stats import kstest

from gendel.theory.circle import (CircleModel, WrappedGaussianKDE, density_at, density_on_grid, fourier_sums,
                                  kde_coefficients, kernel_coefficients, n_terms, silverman_bandwidth)
from gendel.theory.quadrature import PeriodicGrid


def _direct_wrapped_kde(x, X, h, L):
    """sum over images of the Gaussian kernel, computed without Fourier series."""
    total = 0.0
    for j in range(-6, 7):
        total = total + np.exp(-(x[:, None] - X[None] + j * L) ** 2 / (2 * h * h))
    return total.mean(axis=1) / np.sqrt(2 * np.pi * h * h)


@pytest.mark.parametrize("h, L", [(0.05, 1.0), (0.01, 1.0), (0.002, 0.1)])
def test_fourier_kde_equals_the_wrapped_kernel_sum(h, L):
    rng = np.random.default_rng(0)
    X = rng.random(50) * L
    x = rng.random(200) * L
    kde = WrappedGaussianKDE(bandwidth=h, period=L).fit(X)
    assert np.allclose(kde.density(x), _direct_wrapped_kde(x, X, h, L), rtol=1e-11, atol=0)


def test_kde_on_grid_integrates_to_one_and_matches_pointwise_values():
    rng = np.random.default_rng(1)
    kde = WrappedGaussianKDE(bandwidth=0.03).fit(rng.random(100))
    grid = PeriodicGrid(1024)
    on_grid = kde.on_grid(grid)
    assert grid.integrate(on_grid) == pytest.approx(1.0, abs=1e-13)
    assert np.allclose(on_grid[::37], kde.density(grid.points[::37]), rtol=1e-12)


def test_truncation_is_below_the_stated_tolerance():
    for h in (0.3, 0.05, 0.01):
        K = n_terms(h)
        assert kernel_coefficients(h, K + 1)[-1] < 1e-17
        assert kernel_coefficients(h, K)[K - 1] >= 1e-17


def test_batched_coefficients_match_single_fits():
    rng = np.random.default_rng(2)
    X = rng.random((3, 40))
    mask = rng.random((3, 40)) < 0.7
    K, h = 30, 0.05
    c = kde_coefficients(fourier_sums(X, K, mask=mask), mask.sum(1), h)
    grid = PeriodicGrid(128)
    for r in range(3):
        single = WrappedGaussianKDE(bandwidth=h).fit(X[r][mask[r]])
        assert np.allclose(density_on_grid(c[r], grid), single.on_grid(grid)[:], rtol=1e-12)
        assert np.allclose(density_at(c[r:r + 1], grid.points[None, :5])[0], single.density(grid.points[:5]), rtol=1e-12)


def test_model_densities_and_ratio():
    model = CircleModel(amplitude=0.5, deletion_strength=0.4, period=2.0)
    grid = PeriodicGrid(256, period=2.0)
    x = grid.points
    assert grid.integrate(model.density(x)) == pytest.approx(1.0)
    assert grid.integrate(model.deleted_density(x)) == pytest.approx(1.0)
    assert grid.integrate(model.keep_probability(x) * model.density(x)) == pytest.approx(model.keep_fraction)
    assert model.rho_star(x).max() == pytest.approx(model.rho_star_sup, rel=1e-4)
    assert np.allclose(model.rho_star(x) * model.density(x), model.deleted_density(x))


def test_thinning_deletes_the_expected_fraction_and_keeps_points_iid_from_p_star_prime():
    model = CircleModel()
    rng = np.random.default_rng(3)
    n = 200_000
    X, deleted = model.sample_with_deletion(n, rng=rng)
    expected = 1 - model.keep_fraction
    assert abs(deleted.mean() - expected) < 5 * np.sqrt(expected * (1 - expected) / n)
    # KS test of the kept points against the CDF of p_*', at level 1e-6 (asymptotic critical value)
    grid = PeriodicGrid(8192)
    cdf_nodes = np.cumsum(model.deleted_density(grid.points)) * grid.weight
    cdf = lambda t: np.interp(t, grid.points + grid.weight, cdf_nodes)
    for sample in (X[~deleted], model.sample_deleted_distribution(50_000, rng=rng)):
        assert kstest(sample, cdf).pvalue > 1e-6


def test_silverman_rate():
    assert silverman_bandwidth(32, scale=0.5) == pytest.approx(0.5 * 32 ** -0.2)
    assert silverman_bandwidth(1000) < silverman_bandwidth(100)


def test_clear_errors():
    with pytest.raises(ValueError, match="amplitude"):
        CircleModel(amplitude=1.0)
    with pytest.raises(ValueError, match="deletion_strength"):
        CircleModel(deletion_strength=1.2)
    with pytest.raises(ValueError, match="not fitted"):
        WrappedGaussianKDE(bandwidth=0.1).density([0.5])
    with pytest.raises(ValueError, match="nodes"):
        WrappedGaussianKDE(bandwidth=0.001).fit([0.1, 0.2]).on_grid(PeriodicGrid(64))
    with pytest.raises(ValueError, match="bandwidth"):
        WrappedGaussianKDE(bandwidth=-1.0).fit([0.5])  # hyper-parameters are checked by fit
    with pytest.raises(ValueError, match=r"bandwidth=1e-09 is too small for period=1: .* 1.41e\+09 terms.*at least 1.5e-07"):
        WrappedGaussianKDE(bandwidth=1e-9).fit([0.5])  # 1.4e9 Fourier terms: refused, not attempted
