"""The synthetic data sets of §5.1 and Appendix D.1-D.2: gendel.synthetic.data.

Every Monte-Carlo check is a test at a stated level (chi-square / KS / binomial, p > 1e-3) or a
bound of 5 standard errors computed from the sample, at a fixed seed.
"""

import numpy as np
import pytest
from scipy import stats as sps

from gendel.synthetic import data

LEVEL = 1e-3  # significance level of every goodness-of-fit test in this file
Z = 5.0  # standard errors allowed for estimates compared with their expectation


def rng(seed=0):
    return np.random.default_rng(seed)


# --------------------------------------------------------------------------------------------
# Shapes and the definitions of the paper


@pytest.mark.parametrize("draw", [data.mog8, data.ckb8])
def test_shapes_and_component_ids(draw):
    X, comp = draw(1000, rng=rng())
    assert X.shape == (1000, 2) and X.dtype == np.float64
    assert comp.shape == (1000,) and np.issubdtype(comp.dtype, np.integer)
    assert set(np.unique(comp)) == set(range(8))


@pytest.mark.parametrize("draw", [data.mog8, data.ckb8])
def test_same_seed_same_data(draw):
    a, ca = draw(50, rng=rng(3))
    b, cb = draw(50, rng=rng(3))
    c, _ = draw(50, rng=rng(4))
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(ca, cb)
    assert not np.array_equal(a, c)


def test_sample_by_name_accepts_paper_spelling():
    a, _ = data.sample("MoG-8", 20, rng=rng(1))
    b, _ = data.mog8(20, rng=rng(1))
    np.testing.assert_array_equal(a, b)
    c, _ = data.sample("CKB-8", 20, rng=rng(1))
    d, _ = data.ckb8(20, rng=rng(1))
    np.testing.assert_array_equal(c, d)


def test_mog8_means_on_unit_circle_and_reweighted_clusters_at_3_6_9_12_oclock():
    # theta_i = 2 pi i / 8; §5.1: the re-weighted clusters sit at 3, 6, 9 and 12 o'clock.
    np.testing.assert_allclose(np.linalg.norm(data.MOG8_MEANS, axis=1), 1.0, atol=1e-15)
    angles = np.arctan2(data.MOG8_MEANS[:, 1], data.MOG8_MEANS[:, 0]) % (2 * np.pi)
    np.testing.assert_allclose(np.sort(angles), 2 * np.pi * np.arange(8) / 8, atol=1e-12)
    clock = {(1, 0), (0, -1), (-1, 0), (0, 1)}
    got = {tuple(np.rint(m).astype(int)) for m in data.MOG8_MEANS[list(data.MOG8_REWEIGHTED)]}
    assert got == clock
    np.testing.assert_allclose(np.abs(data.MOG8_MEANS[list(data.MOG8_REWEIGHTED)]).max(axis=1), 1.0)


def test_ckb8_squares_are_those_of_appendix_d2_and_form_a_checkerboard():
    # Omega_1..Omega_8 of Appendix D.2 as [x0, x1] x [y0, y1].
    omega = [((0, .25), (0, .25)), ((0, .25), (.5, .75)), ((.25, .5), (.25, .5)), ((.25, .5), (.75, 1)),
             ((.5, .75), (0, .25)), ((.5, .75), (.5, .75)), ((.75, 1), (.25, .5)), ((.75, 1), (.75, 1))]
    lower = np.array([[x[0], y[0]] for x, y in omega])
    np.testing.assert_allclose(data.CKB8_CORNERS, lower)
    assert data.CKB8_SIDE == 0.25
    cells = np.rint(data.CKB8_CORNERS / 0.25).astype(int)
    assert len({tuple(c) for c in cells}) == 8
    assert len(set((cells.sum(1) % 2).tolist())) == 1  # one colour of the 4 x 4 board
    # Re-weighted squares: the paper's {1, 4, 6, 7}.
    assert tuple(c + 1 for c in data.CKB8_REWEIGHTED) == (1, 4, 6, 7)


# --------------------------------------------------------------------------------------------
# Distributions of the samples


@pytest.mark.parametrize("draw", [data.mog8, data.ckb8])
def test_component_frequencies_are_uniform(draw):
    _, comp = draw(16000, rng=rng(11))
    counts = np.bincount(comp, minlength=8)
    assert sps.chisquare(counts).pvalue > LEVEL


@pytest.mark.parametrize("variance", [0.1, 0.02])
def test_mog8_components_are_gaussians_with_the_given_variance(variance):
    X, comp = data.mog8(16000, rng=rng(5), variance=variance)
    for c in range(8):
        Xc = X[comp == c]
        n = len(Xc)
        mean = Xc.mean(0)
        se_mean = Xc.std(0, ddof=1) / np.sqrt(n)
        assert np.all(np.abs(mean - data.MOG8_MEANS[c]) < Z * se_mean)
        # Sample covariance: diagonal = variance, off-diagonal = 0, each within 5 standard errors
        # estimated from the products themselves.
        D = Xc - mean
        for i, j in [(0, 0), (1, 1), (0, 1)]:
            prod = D[:, i] * D[:, j]
            target = variance if i == j else 0.0
            assert abs(prod.mean() - target) < Z * prod.std(ddof=1) / np.sqrt(n)
        # ||x - mu||^2 / v is chi-square with 2 degrees of freedom for N(mu, v I).
        r2 = ((Xc - data.MOG8_MEANS[c]) ** 2).sum(1) / variance
        assert sps.kstest(r2, sps.chi2(2).cdf).pvalue > LEVEL / 8


def test_ckb8_points_are_uniform_inside_their_square():
    X, comp = data.ckb8(16000, rng=rng(6))
    lo = data.CKB8_CORNERS[comp]
    assert np.all(X >= lo) and np.all(X < lo + data.CKB8_SIDE)
    U = (X - lo) / data.CKB8_SIDE
    for c in range(8):
        for axis in range(2):
            assert sps.kstest(U[comp == c, axis], "uniform").pvalue > LEVEL / 16


# --------------------------------------------------------------------------------------------
# The deletion set X'


@pytest.mark.parametrize("dataset", ["mog8", "ckb8"])
@pytest.mark.parametrize("lam", [0.9, 0.5, 0.1])
def test_deletion_mask_deletes_only_reweighted_points_at_rate_one_minus_lambda(dataset, lam):
    _, comp = data.sample(dataset, 20000, rng=rng(7))
    mask = data.deletion_mask(dataset, comp, lam, rng=rng(8))
    assert mask.dtype == bool and mask.shape == comp.shape
    rew = np.isin(comp, data.REWEIGHTED[dataset])
    assert not mask[~rew].any()
    n, k = int(rew.sum()), int(mask[rew].sum())
    assert sps.binomtest(k, n, 1 - lam).pvalue > LEVEL


def test_lambda_one_deletes_nothing():
    _, comp = data.mog8(500, rng=rng())
    assert not data.deletion_mask("mog8", comp, 1.0, rng=rng()).any()


@pytest.mark.parametrize("dataset", ["mog8", "ckb8"])
def test_kept_points_have_the_component_weights_of_p_star_prime(dataset):
    # X \ X' is an i.i.d. sample of p_*': component c has probability w_c / sum(w),
    # w = lambda on re-weighted components and 1 elsewhere.
    lam = 0.3
    _, comp = data.sample(dataset, 20000, rng=rng(9))
    kept = comp[~data.deletion_mask(dataset, comp, lam, rng=rng(10))]
    w = np.ones(8)
    w[list(data.REWEIGHTED[dataset])] = lam
    counts = np.bincount(kept, minlength=8)
    expected = len(kept) * w / w.sum()
    assert sps.chisquare(counts, expected).pvalue > LEVEL


# --------------------------------------------------------------------------------------------
# The true densities p_* and p_*'


def _grid(x0, x1, n):
    """Midpoints of n equal cells on [x0, x1] and the cell width."""
    h = (x1 - x0) / n
    return x0 + h * (np.arange(n) + 0.5), h


@pytest.mark.parametrize("lam", [1.0, 0.6, 0.2])
@pytest.mark.parametrize("variance", [0.1, 0.02])
def test_mog8_density_integrates_to_one(lam, variance):
    # Midpoint rule on [-4, 4]^2 (the mass outside is below 1e-20); for a Gaussian with cell
    # width h <= std / 2 its error is far below 1e-10.
    xs, h = _grid(-4, 4, 400)
    gx, gy = np.meshgrid(xs, xs)
    Y = np.column_stack([gx.ravel(), gy.ravel()])
    total = data.density("mog8", Y, lam, variance=variance).sum() * h * h
    assert abs(total - 1) < 1e-10


@pytest.mark.parametrize("lam", [1.0, 0.6, 0.2])
def test_ckb8_density_integrates_to_one(lam):
    # The squares' edges fall on cell edges of this grid, so the midpoint rule is exact.
    xs, h = _grid(-0.5, 1.5, 400)
    gx, gy = np.meshgrid(xs, xs)
    Y = np.column_stack([gx.ravel(), gy.ravel()])
    total = data.density("ckb8", Y, lam).sum() * h * h
    assert abs(total - 1) < 1e-12


def test_ckb8_density_values():
    # Inside a square of weight w the density is w / (sum of weights * side^2).
    lam = 0.4
    centres = data.CKB8_CORNERS + data.CKB8_SIDE / 2
    dens = data.density("ckb8", centres, lam)
    w = np.ones(8)
    w[list(data.CKB8_REWEIGHTED)] = lam
    np.testing.assert_allclose(dens, w / (4 * (1 + lam)) / data.CKB8_SIDE**2)
    # The other 8 squares of the board and the outside carry no mass.
    assert np.all(data.density("ckb8", np.array([[0.375, 0.125], [0.125, 0.375], [2.0, 2.0]]), lam) == 0)


@pytest.mark.parametrize("dataset", ["mog8", "ckb8"])
@pytest.mark.parametrize("lam", [1.0, 0.3])
def test_density_matches_histogram_of_kept_samples(dataset, lam):
    # Draw X ~ p_*, delete X' by deletion_mask: the kept points follow p_*'. Their histogram is
    # compared with the bin probabilities of density(dataset, ., lam) (fine midpoint rule).
    X, comp = data.sample(dataset, 40000, rng=rng(12))
    kept = X[~data.deletion_mask(dataset, comp, lam, rng=rng(13))] if lam < 1 else X
    # CKB-8: bins aligned with the squares (the midpoint rule is then exact); MoG-8: the
    # plotting window, 20 x 20 sub-cells per bin.
    (x0, x1, y0, y1), nb, sub = ((0, 1, 0, 1), 8, 4) if dataset == "ckb8" else (data.EXTENT[dataset], 10, 20)
    edges_x, edges_y = np.linspace(x0, x1, nb + 1), np.linspace(y0, y1, nb + 1)
    counts, _, _ = np.histogram2d(kept[:, 0], kept[:, 1], bins=[edges_x, edges_y])
    xs, hx = _grid(x0, x1, nb * sub)
    ys, hy = _grid(y0, y1, nb * sub)
    gx, gy = np.meshgrid(xs, ys, indexing="ij")
    dens = data.density(dataset, np.column_stack([gx.ravel(), gy.ravel()]), lam).reshape(nb * sub, nb * sub)
    prob = dens.reshape(nb, sub, nb, sub).sum(axis=(1, 3)) * hx * hy
    outside = len(kept) - counts.sum()
    obs = np.append(counts.ravel(), outside)
    exp = len(kept) * np.append(prob.ravel(), max(1 - prob.sum(), 0))
    keep = exp > 5  # the chi-square approximation needs expected counts > 5; pool the rest
    obs = np.append(obs[keep], obs[~keep].sum())
    exp = np.append(exp[keep], exp[~keep].sum())
    if exp[-1] == 0:
        assert obs[-1] == 0
        obs, exp = obs[:-1], exp[:-1]
    exp *= obs.sum() / exp.sum()
    assert sps.chisquare(obs, exp).pvalue > LEVEL


def test_deletion_mask_takes_the_data_set_first_like_sample_and_density():
    _, comp = data.mog8(50, rng=rng(14))
    with pytest.raises(TypeError, match=r"deletion_mask\(dataset, component, lam"):
        data.deletion_mask(comp, "mog8", 0.5, rng=0)
    assert list(data.DATASETS) == ["mog8", "ckb8"]
    assert data.DATASETS["ckb8"] == "CKB-8"
