"""Density ratio estimators between X and X \\ X' (§3.1, eq. (1)-(3), Example 1): gendel.core.dre."""

import numpy as np
import pytest
from scipy.special import logsumexp
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier

from gendel.synthetic import data
from gendel.core.dre import (
    ClassifierDRE,
    ExactKDERatio,
    KernelClassifierDRE,
    KNNClassifierDRE,
    duplicated_training_set,
)
from gendel.core.models import KDE

Z = 5.0


def mog8_setup(N=200, lam=0.5, seed=0, variance=0.1):
    g = np.random.default_rng(seed)
    X, comp = data.mog8(N, rng=g, variance=variance)
    deleted = data.deletion_mask("mog8", comp, lam, rng=g)
    assert 0 < deleted.sum() < N
    return X, deleted


def random_setup(d, N=150, n_del=30, seed=0):
    g = np.random.default_rng(seed)
    X = g.normal(size=(N, d))
    deleted = np.zeros(N, bool)
    deleted[g.choice(N, n_del, replace=False)] = True
    return X, deleted


def grid(extent, h):
    x0, x1, y0, y1 = extent
    xs, ys = np.arange(x0 + h / 2, x1, h), np.arange(y0 + h / 2, y1, h)
    gx, gy = np.meshgrid(xs, ys)
    return np.column_stack([gx.ravel(), gy.ravel()])


# --------------------------------------------------------------------------------------------
# Example 1: the ground truth and its exact recovery by KBC


def test_exact_ratio_is_example_1_formula():
    # rho_hat(x) = N / (N - N') * sum_{X \ X'} K(x - x_i) / sum_X K(x - x_i)
    X, deleted = random_setup(3)
    sigma = 0.6
    Y = np.random.default_rng(1).normal(size=(50, 3)) * 1.5
    sq = ((Y[:, None] - X[None]) ** 2).sum(-1) / (2 * sigma**2)
    N, Nd = len(X), deleted.sum()
    expected = np.log(N / (N - Nd)) + logsumexp(-sq[:, ~deleted], axis=1) - logsumexp(-sq, axis=1)
    np.testing.assert_allclose(ExactKDERatio(bandwidth=sigma).fit(X, deleted).log_ratio(Y), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("d", [1, 2, 5, 20])
def test_kbc_with_sigma_c_equal_sigma_a_recovers_the_exact_ratio(d):
    # Example 1: the classifier of eq. (3) gives rho_hat_f = rho_hat exactly, in any dimension.
    X, deleted = random_setup(d, seed=d)
    sigma = 0.5
    exact = ExactKDERatio(bandwidth=sigma).fit(X, deleted)
    kbc = KernelClassifierDRE(bandwidth=sigma).fit(X, deleted)
    g = np.random.default_rng(d + 100)
    far = g.normal(size=(20, d))
    far *= 30 * sigma / np.linalg.norm(far, axis=1, keepdims=True)
    Y = np.concatenate([exact.pretrained_.sample(2000, rng=g), exact.retrained_.sample(500, rng=g), far, X])
    a, b = exact.log_ratio(Y), kbc.log_ratio(Y)
    assert np.all(np.isfinite(a))
    np.testing.assert_allclose(b, a, rtol=0, atol=1e-10)
    assert kbc.ratio_bound_ == pytest.approx(exact.ratio_bound_, rel=1e-15)


def test_ratio_is_exp_of_log_ratio_and_deletion_indices_equal_mask():
    X, deleted = mog8_setup()
    Y = grid(data.EXTENT["mog8"], 0.2)
    for make in (lambda: ExactKDERatio(bandwidth=0.1), lambda: KernelClassifierDRE(bandwidth=0.2), lambda: KNNClassifierDRE(k=7)):
        a = make().fit(X, deleted)
        b = make().fit(X, np.flatnonzero(deleted))
        np.testing.assert_array_equal(a.log_ratio(Y), b.log_ratio(Y))
        np.testing.assert_allclose(a.ratio(Y), np.exp(a.log_ratio(Y)), rtol=1e-15)
        assert a.n_samples_ == len(X) and a.n_deleted_ == deleted.sum() and a.dim_ == 2


# --------------------------------------------------------------------------------------------
# Normalisation: E_{x ~ p_hat}[rho_hat(x)] = int p_hat' = 1


def test_exact_ratio_is_normalised_under_the_pretrained_kde():
    X, deleted = mog8_setup(variance=0.02)
    sigma = 0.1
    exact = ExactKDERatio(bandwidth=sigma).fit(X, deleted)
    # Grid quadrature (cell width sigma / 5 on a window 8 sigma beyond the data): exact to 1e-8.
    lo, hi = X.min() - 0.8, X.max() + 0.8
    h = sigma / 5
    Y = grid((lo, hi, lo, hi), h)
    p = np.exp(exact.pretrained_.log_prob(Y))
    assert abs(p.sum() * h * h - 1) < 1e-8
    assert abs((p * exact.ratio(Y)).sum() * h * h - 1) < 1e-8
    # Monte Carlo: the mean of rho_hat over samples of p_hat is 1 within 5 standard errors.
    r = exact.ratio(exact.pretrained_.sample(50_000, rng=np.random.default_rng(2)))
    assert abs(r.mean() - 1) < Z * r.std(ddof=1) / np.sqrt(len(r))


@pytest.mark.parametrize("sigma_c", [0.07, 0.14, 0.2])
def test_kbc_normalisation_under_its_own_kde_and_bound_under_another(sigma_c):
    # rho_hat_C (KBC with sigma_C) is the exact ratio of the KDE with bandwidth sigma_C, so
    # E_{p_hat_C}[rho_hat_C] = 1 exactly. Under the learner's p_hat_A (sigma_A = 0.1) the mean
    # moves by at most B * TV(p_hat_A, p_hat_C), because 0 <= rho_hat_C <= B:
    # |int (p_A - p_C) rho_C| = |int (p_A - p_C)(rho_C - B/2)| <= B/2 * ||p_A - p_C||_1.
    X, deleted = mog8_setup(variance=0.02)
    sigma_a = 0.1
    kbc = KernelClassifierDRE(bandwidth=sigma_c).fit(X, deleted)
    p_a = KDE(bandwidth=sigma_a).fit(X)
    p_c = KDE(bandwidth=sigma_c).fit(X)
    h = min(sigma_a, sigma_c) / 5
    lo, hi = X.min() - 8 * max(sigma_a, sigma_c), X.max() + 8 * max(sigma_a, sigma_c)
    Y = grid((lo, hi, lo, hi), h)
    dens_a, dens_c, rho = np.exp(p_a.log_prob(Y)), np.exp(p_c.log_prob(Y)), kbc.ratio(Y)
    assert abs((dens_c * rho).sum() * h * h - 1) < 1e-8
    mean_a = (dens_a * rho).sum() * h * h
    tv = 0.5 * np.abs(dens_a - dens_c).sum() * h * h
    assert abs(mean_a - 1) <= kbc.ratio_bound_ * tv
    # And a Monte-Carlo estimate from samples of p_hat_A agrees with the quadrature value.
    r = kbc.ratio(p_a.sample(50_000, rng=np.random.default_rng(3)))
    assert abs(r.mean() - mean_a) < Z * r.std(ddof=1) / np.sqrt(len(r))


# --------------------------------------------------------------------------------------------
# Eq. (1) with X \ X' duplicated, and the bound B = N / (N - N')


def test_duplicated_training_set():
    X, deleted = random_setup(2, N=20, n_del=5)
    X_aug, y_aug = duplicated_training_set(X[deleted], X[~deleted])
    assert len(X_aug) == 5 + 2 * 15 and y_aug.sum() == 5
    np.testing.assert_array_equal(X_aug[y_aug == 1], X[deleted])
    np.testing.assert_array_equal(X_aug[y_aug == 0], np.concatenate([X[~deleted], X[~deleted]]))


def test_uninformative_classifier_gives_ratio_one():
    # A classifier that only knows the class prior predicts f = N' / (N' + 2 (N - N')); with the
    # duplication of X \ X', eq. (1) then gives rho_f = N/(N-N') * (1-f)/(1+f) = 1 everywhere.
    X, deleted = mog8_setup()
    dre = ClassifierDRE(DummyClassifier(strategy="prior")).fit(X, deleted)
    Y = grid(data.EXTENT["mog8"], 0.25)
    np.testing.assert_allclose(dre.ratio(Y), 1.0, rtol=1e-12)


def test_classifier_dre_follows_eq_1():
    X, deleted = mog8_setup()
    dre = ClassifierDRE(LogisticRegression()).fit(X, deleted)
    Y = grid(data.EXTENT["mog8"], 0.1)
    f = dre.classifier_.predict_proba(Y)[:, list(dre.classifier_.classes_).index(1)]
    N, Nd = len(X), deleted.sum()
    np.testing.assert_allclose(dre.ratio(Y), N / (N - Nd) * (1 - f) / (1 + f), rtol=1e-12)
    assert np.all(np.isfinite(dre.log_ratio(Y)))
    # The estimator passed in is copied, not fitted in place.
    est = LogisticRegression()
    ClassifierDRE(est).fit(X, deleted)
    assert not hasattr(est, "coef_")


def _dres():
    return [
        ExactKDERatio(bandwidth=0.1),
        KernelClassifierDRE(bandwidth=0.05),
        KernelClassifierDRE(bandwidth=0.1),
        KernelClassifierDRE(bandwidth=0.3),
        KNNClassifierDRE(k=1),
        KNNClassifierDRE(k=5),
        KNNClassifierDRE(k=40),
        ClassifierDRE(LogisticRegression()),
    ]


@pytest.mark.parametrize("dre", _dres(), ids=repr)
def test_ratio_bound_bounds_the_ratio(dre):
    X, deleted = mog8_setup()
    dre.fit(X, deleted)
    N, Nd = len(X), deleted.sum()
    assert dre.ratio_bound_ == pytest.approx(N / (N - Nd), rel=1e-14)
    g = np.random.default_rng(4)
    kde = KDE(bandwidth=0.1).fit(X)
    Y = np.concatenate([kde.sample(20_000, rng=g), grid((-3, 3, -3, 3), 0.03), X, 1e3 * g.normal(size=(50, 2))])
    r = dre.ratio(Y)
    assert np.all(r >= 0)
    assert r.max() <= dre.ratio_bound_ * (1 + 1e-12)


@pytest.mark.parametrize("k", [1, 4, 15])
def test_knn_f_is_the_vote_fraction_on_the_duplicated_training_set(k):
    X, deleted = mog8_setup()
    dre = KNNClassifierDRE(k=k).fit(X, deleted)
    X_aug, y_aug = duplicated_training_set(X[deleted], X[~deleted])
    Y = np.concatenate([grid(data.EXTENT["mog8"], 0.07), KDE(bandwidth=0.1).fit(X).sample(3000, rng=np.random.default_rng(5))])
    f = KNeighborsClassifier(n_neighbors=k).fit(X_aug, y_aug).predict_proba(Y)[:, 1]
    N, Nd = len(X), deleted.sum()
    with np.errstate(divide="ignore"):
        expected = np.log(N / (N - Nd)) + np.log1p(-f) - np.log1p(f)
    got = dre.log_ratio(Y)
    np.testing.assert_array_equal(np.isneginf(got), np.isneginf(expected))
    fin = np.isfinite(expected)
    np.testing.assert_allclose(got[fin], expected[fin], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("k", [1, 3])
def test_log_ratio_is_minus_inf_exactly_where_f_is_one(k):
    X, deleted = mog8_setup(N=400, lam=0.2)
    dre = KNNClassifierDRE(k=k).fit(X, deleted)
    X_aug, y_aug = duplicated_training_set(X[deleted], X[~deleted])
    Y = np.concatenate([X[deleted] + 1e-9, grid(data.EXTENT["mog8"], 0.05)])
    f = KNeighborsClassifier(n_neighbors=k).fit(X_aug, y_aug).predict_proba(Y)[:, 1]
    lr = dre.log_ratio(Y)
    assert (f == 1).sum() > 10  # the check is informative
    np.testing.assert_array_equal(np.isneginf(lr), f == 1)
    assert not np.isnan(lr).any() and not np.isposinf(lr).any()


def test_logistic_regression_dre_is_minus_inf_only_where_its_f_rounds_to_one():
    X, deleted = mog8_setup()
    dre = ClassifierDRE(LogisticRegression()).fit(X, deleted)
    Y = np.concatenate([grid((-3, 3, -3, 3), 0.1), 1e4 * np.random.default_rng(7).normal(size=(30, 2))])
    f = dre.classifier_.predict_proba(Y)[:, 1]
    np.testing.assert_array_equal(np.isneginf(dre.log_ratio(Y)), f == 1)


@pytest.mark.parametrize("dre", [ExactKDERatio(bandwidth=0.1), KernelClassifierDRE(bandwidth=0.05), KernelClassifierDRE(bandwidth=0.3)], ids=repr)
def test_kernel_dres_never_give_minus_inf(dre):
    # f < 1 wherever the kept points have positive kernel weight: everywhere, also far away
    # (computed in log space, so no underflow).
    X, deleted = mog8_setup()
    dre.fit(X, deleted)
    g = np.random.default_rng(6)
    Y = np.concatenate([X[deleted], grid((-3, 3, -3, 3), 0.1), 1e4 * g.normal(size=(30, 2))])
    assert np.all(np.isfinite(dre.log_ratio(Y)))


def test_knn_ratio_at_points_surrounded_by_kept_points_equals_the_bound():
    # f = 0 gives rho_f = N / (N - N'), the maximum, so the bound is attained.
    X, deleted = mog8_setup()
    dre = KNNClassifierDRE(k=2).fit(X, deleted)
    assert dre.ratio(X[~deleted]).max() == pytest.approx(dre.ratio_bound_, rel=1e-14)


def test_a_failed_refit_leaves_the_estimator_unfitted():
    # k = 50 fits the first training set but not the second (20 points, 37 in the duplicated
    # set): after the failed refit the old tree must not be used with the new sizes.
    rng = np.random.default_rng(21)
    X = rng.normal(size=(200, 2))
    knn = KNNClassifierDRE(k=50).fit(X, np.arange(48))
    knn.log_ratio(X[:5])
    with pytest.raises(ValueError, match="exceeds"):
        knn.fit(X[:20], np.arange(3))
    with pytest.raises(ValueError, match="not fitted"):
        knn.log_ratio(X[:5])
