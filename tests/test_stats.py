"""Statistics of the deletion test (§4, Appendix C.1-C.3): gendel.deletion_test.stats.

The expectations that LR and ASC should average to are computed independently of the
statistics and of the DREs: by 2-D grid quadrature of the two KDEs' densities (``KDE.log_prob``),
with cell width sigma_A / 5 on a window 8 sigma_A beyond the data (its quadrature error is far
below the Monte-Carlo errors; checked by integrating both densities to 1 within 1e-8).
Monte-Carlo tolerances are 5 standard errors estimated from the repeats themselves.
"""

import numpy as np
import pytest
from scipy import stats as sps

from gendel.synthetic import data
from gendel.core.dre import ExactKDERatio
from gendel.core.models import KDE
from gendel.deletion_test.stats import PHI_NAMES, asc, ks_statistic, likelihood_ratio, mmd2_unbiased, psi

Z = 5.0

#: phi of §4.2 written directly on ratios t (independently of gendel.deletion_test.stats.psi).
PHI = {
    "log": np.log,
    "tlogt": lambda t: t * np.log(t),
    "hellinger": lambda t: (np.sqrt(t) - 1.0) ** 2,
}


@pytest.fixture(scope="module")
def kde_pair():
    """MoG-8, N = 400, lambda = 0.5, sigma_A = 0.1: the models, the exact ratio and grid moments."""
    g = np.random.default_rng(20)
    X, comp = data.mog8(400, rng=g)
    deleted = data.deletion_mask("mog8", comp, 0.5, rng=g)
    sigma = 0.1
    pre, post = KDE(bandwidth=sigma).fit(X), KDE(bandwidth=sigma).fit(X[~deleted])
    exact = ExactKDERatio(bandwidth=sigma).fit(X, deleted)

    h = sigma / 5
    lo, hi = X.min() - 8 * sigma, X.max() + 8 * sigma
    xs = np.arange(lo + h / 2, hi, h)
    gx, gy = np.meshgrid(xs, xs)
    Y = np.column_stack([gx.ravel(), gy.ravel()])
    lp, lq = pre.log_prob(Y), post.log_prob(Y)
    p, q, w = np.exp(lp), np.exp(lq), h * h
    assert abs(p.sum() * w - 1) < 1e-8 and abs(q.sum() * w - 1) < 1e-8
    t = np.exp(lq - lp)  # rho_hat = p_hat' / p_hat from the KDEs' own densities
    grid = {
        "KL(p||p')": np.sum(p * (lp - lq)) * w,
        "KL(p'||p)": np.sum(q * (lq - lp)) * w,
        "E_p log^2": np.sum(p * (lq - lp) ** 2) * w,
        "E_p' log^2": np.sum(q * (lq - lp) ** 2) * w,
    }
    for name, phi in PHI.items():
        grid["H0", name] = np.sum(p * 2 * phi(t) / (1 + t)) * w
        grid["H1", name] = np.sum(p * phi(t)) * w
    return dict(X=X, deleted=deleted, pre=pre, post=post, exact=exact, grid=grid)


@pytest.fixture(scope="module")
def repeats(kde_pair):
    """R = 400 repeats of m = 200 samples: log rho_hat on Y_hat, Y_H0 ~ p_hat, Y_H1 ~ p_hat'."""
    R, m = 400, 200
    g = np.random.default_rng(21)
    pre, post, exact = kde_pair["pre"], kde_pair["post"], kde_pair["exact"]
    out = {key: exact.log_ratio(model.sample(R * m, rng=g)).reshape(R, m)
           for key, model in (("Yhat", pre), ("H0", pre), ("H1", post))}
    out["R"], out["m"] = R, m
    return out


def within(values, target, z=Z):
    """Whether the mean of ``values`` is within z standard errors of ``target``."""
    values = np.asarray(values)
    se = values.std(ddof=1) / np.sqrt(len(values))
    return abs(values.mean() - target) < z * se


# --------------------------------------------------------------------------------------------
# LR (§4.1, Appendix C.1)


def test_likelihood_ratio_is_mean_log_ratio_over_the_last_axis():
    a = np.random.default_rng(0).normal(size=(3, 4, 7))
    np.testing.assert_allclose(likelihood_ratio(a), a.mean(-1))
    assert likelihood_ratio(a[0, 0]).shape == ()
    assert likelihood_ratio(np.array([0.0, -np.inf])) == -np.inf


def test_lr_under_h0_averages_minus_kl_and_under_h1_averages_kl(kde_pair, repeats):
    grid = kde_pair["grid"]
    lr0, lr1 = likelihood_ratio(repeats["H0"]), likelihood_ratio(repeats["H1"])
    assert within(lr0, -grid["KL(p||p')"])
    assert within(lr1, grid["KL(p'||p)"])
    # The check is informative: both KLs are many standard errors away from 0.
    assert grid["KL(p||p')"] > 20 * lr0.std(ddof=1) / np.sqrt(len(lr0))


def _variance_se(values):
    """Standard error of the sample variance, from the sample's fourth central moment."""
    n = len(values)
    c = values - values.mean()
    s2, m4 = c.var(ddof=1), np.mean(c**4)
    return np.sqrt(max(m4 - s2**2 * (n - 3) / (n - 1), 0) / n)


def test_lr_variance_matches_appendix_c1(kde_pair, repeats):
    # Var LR = (E_q[log^2 rho_hat] - (E_q log rho_hat)^2) / m with q the sampling distribution:
    # q = p_hat under H0 and q = p_hat' under H1.
    # Appendix C.1 also names these second moments D_{log^2}(p_hat || p_hat') (H0) and
    # D_{log^2}(p_hat' || p_hat) (H1). With Def. 8, D_phi(mu || nu) = int nu phi(mu / nu), those are
    # E_{p_hat'} and E_{p_hat} of log^2 rho_hat: the arguments are swapped. The swapped (literal)
    # reading is rejected by the data.
    grid, m = kde_pair["grid"], repeats["m"]
    cases = (("H0", "E_p log^2", "E_p' log^2", "KL(p||p')"), ("H1", "E_p' log^2", "E_p log^2", "KL(p'||p)"))
    for key, second, literal, kl in cases:
        lr = likelihood_ratio(repeats[key])
        se = _variance_se(lr)
        predicted = (grid[second] - grid[kl] ** 2) / m
        assert abs(lr.var(ddof=1) - predicted) < Z * se, key
        assert abs(lr.var(ddof=1) - (grid[literal] - grid[kl] ** 2) / m) > Z * se, key


# --------------------------------------------------------------------------------------------
# ASC (§4.2, Appendix C.2)


@pytest.mark.parametrize("phi", PHI_NAMES)
def test_asc_means_match_appendix_c2(kde_pair, repeats, phi):
    # E ASC = E_{p_hat}[2 phi(rho)/(1 + rho)] under H0 and E_{p_hat}[phi(rho)] under H1.
    grid = kde_pair["grid"]
    for key in ("H0", "H1"):
        values = asc(repeats["Yhat"], repeats[key], phi)
        assert values.shape == (repeats["R"],)
        assert within(values, grid[key, phi]), key


def test_psi_limits_at_ratio_zero():
    # psi(t) = phi(t) / (1 + t) at t = 0: log -> -inf, t log t -> 0, Hellinger -> 1.
    assert psi(-np.inf, "log") == -np.inf
    assert psi(-np.inf, "tlogt") == 0.0
    assert psi(-np.inf, "hellinger") == 1.0
    # ... and the limits are approached continuously.
    tiny = np.log(1e-300)
    assert psi(tiny, "log") == pytest.approx(tiny)
    assert abs(psi(tiny, "tlogt")) < 1e-296
    assert psi(tiny, "hellinger") == pytest.approx(1.0, abs=1e-149)


def test_psi_matches_definition_and_stays_finite_for_large_ratios():
    lr = np.linspace(-30, 30, 601)
    t = np.exp(lr)
    for name, phi in PHI.items():
        np.testing.assert_allclose(psi(lr, name), phi(t) / (1 + t), rtol=1e-10, atol=1e-15)
    # For huge ratios (log ratio beyond the float64 range of exp) psi tends to its limit:
    # log t / (1 + t) -> 0, t log t / (1 + t) ~ log t, Hellinger -> 1.
    big = np.array([710.0, 800.0, 1e4])
    assert np.all(np.isfinite(psi(big, "log"))) and np.all(psi(big, "log") < 1e-300)
    np.testing.assert_allclose(psi(big, "tlogt"), big)
    np.testing.assert_allclose(psi(big, "hellinger"), 1.0)
    # Hellinger near t = 1: psi ~ (log t)^2 / 8, no cancellation.
    assert psi(1e-9, "hellinger") == pytest.approx(1e-18 / 8, rel=1e-6)


def test_asc_with_callable_phi_equals_named_phi():
    g = np.random.default_rng(1)
    a, b = g.normal(scale=0.7, size=(5, 50)), g.normal(scale=0.7, size=(5, 50))
    for name, phi in PHI.items():
        np.testing.assert_allclose(asc(a, b, phi), asc(a, b, name), rtol=1e-10, atol=1e-15)


def test_asc_is_the_formula_of_section_4_2():
    g = np.random.default_rng(2)
    a, b = g.normal(size=(3, 40)), g.normal(size=(3, 40))
    ta, tb = np.exp(a), np.exp(b)
    for name, phi in PHI.items():
        expected = (phi(ta) / (1 + ta)).mean(-1) + (phi(tb) / (1 + tb)).mean(-1)
        np.testing.assert_allclose(asc(a, b, name), expected, rtol=1e-10)
    # Zero ratios are allowed where psi has a finite limit.
    a[0, 0] = -np.inf
    assert np.isfinite(asc(a, b, "tlogt")).all() and np.isfinite(asc(a, b, "hellinger")).all()
    assert asc(a, b, "log")[0] == -np.inf


# --------------------------------------------------------------------------------------------
# MMD (Appendix C.3)


def _mmd2_kde_closed_form(X, deleted):
    """MMD^2(p_hat', p_hat) of Appendix C.3: KDE with the standard Gaussian kernel (sigma = 1)
    and K_MMD the standard RBF kernel, as the paper's rearranged sum
    3^{-d/2} ( N'^2/(N^2 (N-N')^2) sum_{kept,kept} - (N+N')/(N^2 (N-N')) sum_{del,kept}
    + 1/N^2 sum_{all,del} ) exp(-||x_i - x_j||^2 / 6)."""
    N, d = X.shape
    Nd = int(deleted.sum())
    G = 3.0 ** (-d / 2) * np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 6.0)
    kk = G[np.ix_(~deleted, ~deleted)].sum()
    dk = G[np.ix_(deleted, ~deleted)].sum()
    ad = G[:, deleted].sum()
    return Nd**2 / (N**2 * (N - Nd) ** 2) * kk - (N + Nd) / (N**2 * (N - Nd)) * dk + ad / N**2


def _mmd2_kde_direct(X, deleted):
    """The same quantity as E_{p,p} k - 2 E_{p,p'} k + E_{p',p'} k, each a plain double sum of
    E k(z_i, z_j') = 3^{-d/2} exp(-||x_i - x_j||^2 / 6) over the two training sets."""
    d = X.shape[1]
    K = X[~deleted]

    def mean_k(A, B):
        return (3.0 ** (-d / 2) * np.exp(-((A[:, None] - B[None]) ** 2).sum(-1) / 6.0)).mean()

    return mean_k(X, X) - 2 * mean_k(X, K) + mean_k(K, K)


@pytest.mark.parametrize("d", [1, 2, 5])
def test_gaussian_integral_of_appendix_c3(d):
    # E k(z, z') for z ~ N(x_i, I), z' ~ N(x_j, I), k the standard RBF: 3^{-d/2} exp(-|x_i - x_j|^2 / 6).
    g = np.random.default_rng(d)
    xi, xj = g.normal(size=d), g.normal(size=d)
    n = 200_000
    z, zp = xi + g.normal(size=(n, d)), xj + g.normal(size=(n, d))
    k = np.exp(-((z - zp) ** 2).sum(1) / 2)
    assert within(k, 3.0 ** (-d / 2) * np.exp(-((xi - xj) ** 2).sum() / 6))


def _mmd_setups():
    g = np.random.default_rng(30)
    X2, comp = data.mog8(120, rng=g)
    X2 *= 5.0  # clusters 5 kernel widths from the centre, so that the deletion matters
    del2 = data.deletion_mask("mog8", comp, 0.2, rng=g)
    X5 = g.normal(size=(120, 5)) * 1.5
    del5 = X5[:, 0] > 0.0  # a structured deletion in 5-D: one half-space
    return [(X2, del2), (X5, del5)]


@pytest.mark.parametrize("X, deleted", _mmd_setups(), ids=["mog8x5-2d", "gauss-5d"])
def test_mmd_closed_form_for_kdes(X, deleted):
    closed = _mmd2_kde_closed_form(X, deleted)
    np.testing.assert_allclose(closed, _mmd2_kde_direct(X, deleted), rtol=1e-10)
    # mmd2_unbiased(Y ~ p_hat', Y_hat ~ p_hat) averages to the closed form.
    pre, post = KDE(bandwidth=1.0).fit(X), KDE(bandwidth=1.0).fit(X[~deleted])
    g = np.random.default_rng(31)
    R, m = 300, 200
    values = np.array([mmd2_unbiased(post.sample(m, rng=g), pre.sample(m, rng=g)) for _ in range(R)])
    assert within(values, closed)
    assert closed > 10 * values.std(ddof=1) / np.sqrt(R)  # informative: far from 0


def test_mmd2_unbiased_equals_double_sum():
    g = np.random.default_rng(3)
    Y, Yh = g.normal(size=(7, 3)), g.normal(size=(9, 3)) + 0.5
    for bw in (0.5, 1.0, 2.0):
        def k(a, b):
            return np.exp(-np.sum((a - b) ** 2) / (2 * bw**2))

        m, n = len(Y), len(Yh)
        yy = sum(k(Y[i], Y[j]) for i in range(m) for j in range(m) if i != j) / (m * (m - 1))
        xx = sum(k(Yh[i], Yh[j]) for i in range(n) for j in range(n) if i != j) / (n * (n - 1))
        xy = sum(k(Y[i], Yh[j]) for i in range(m) for j in range(n)) / (m * n)
        assert mmd2_unbiased(Y, Yh, bandwidth=bw) == pytest.approx(yy + xx - 2 * xy, rel=1e-12)


@pytest.mark.parametrize("m, n", [(50, 50), (30, 80)])
def test_mmd2_unbiased_is_unbiased_under_the_null(m, n):
    g = np.random.default_rng(4)
    kde = KDE(bandwidth=0.3).fit(g.normal(size=(40, 2)))
    values = np.array([mmd2_unbiased(kde.sample(m, rng=g), kde.sample(n, rng=g)) for _ in range(400)])
    assert within(values, 0.0)


# --------------------------------------------------------------------------------------------
# KS


@pytest.mark.parametrize("na, nb", [(50, 50), (37, 120), (300, 11)])
def test_ks_statistic_equals_scipy(na, nb):
    g = np.random.default_rng(na + nb)
    a, b = g.normal(size=na), g.normal(0.3, 1.2, size=nb)
    assert ks_statistic(a, b) == pytest.approx(sps.ks_2samp(a, b).statistic, abs=1e-15)
    # With ties
    a, b = g.integers(0, 5, na).astype(float), g.integers(0, 6, nb).astype(float)
    assert ks_statistic(a, b) == pytest.approx(sps.ks_2samp(a, b).statistic, abs=1e-15)


def test_ks_statistic_handles_minus_inf():
    # -inf (a zero ratio) sorts below every finite value: replacing it by a smaller finite number
    # gives the same statistic.
    g = np.random.default_rng(5)
    a, b = g.normal(size=60), g.normal(size=40)
    a[:7], b[:2] = -np.inf, -np.inf
    low = min(a[np.isfinite(a)].min(), b[np.isfinite(b)].min()) - 1
    expected = sps.ks_2samp(np.where(np.isinf(a), low, a), np.where(np.isinf(b), low, b)).statistic
    assert ks_statistic(a, b) == pytest.approx(expected, abs=1e-15)
    assert ks_statistic(np.full(5, -np.inf), np.full(3, -np.inf)) == 0.0
    assert ks_statistic(np.full(5, -np.inf), np.zeros(3)) == 1.0
