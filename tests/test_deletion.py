"""Alg. 1, sampling from the approximated model rho_hat_E * p_hat: gendel.core.deletion.

Goodness of fit is tested at a fixed seed and a stated level: one-sample KS tests of 1-D
projections against the exact CDF of the target (a KDE projects to a 1-D Gaussian mixture),
Bonferroni-corrected over the projections to a family-wise level of 1e-2. Rates are compared
with their expectation within 5 binomial standard errors.
"""

import math

import numpy as np
import pytest
from scipy import stats as sps

from gendel.core.deletion import ApproximateDeletion
from gendel.core.dre import ExactKDERatio, KernelClassifierDRE, KNNClassifierDRE
from gendel.synthetic.sampling import Protocol, setup
from gendel.core.models import KDE

Z = 5.0
FAMILY_LEVEL = 1e-2
ANGLES = np.pi * np.arange(8) / 8  # 8 projection directions


def projection_pvalues(S, centres, sigma):
    """KS p-values of the projections of S onto 8 directions against a KDE with these centres."""
    out = []
    for a in ANGLES:
        u = np.array([np.cos(a), np.sin(a)])
        mu = centres @ u

        def cdf(t, mu=mu):
            return sps.norm.cdf((np.asarray(t)[:, None] - mu) / sigma).mean(1)

        out.append(sps.kstest(S @ u, cdf).pvalue)
    return np.array(out)


@pytest.fixture(scope="module")
def mog8_deletion():
    X, deleted, exact = setup(Protocol("mog8", lam=0.3, N=400, sigma_a=0.1, seed=1))
    return X, deleted, exact


def test_samples_of_alg1_with_exact_ratio_follow_the_retrained_kde(mog8_deletion):
    X, deleted, exact = mog8_deletion
    sampler = ApproximateDeletion(exact.pretrained_, exact)
    S = sampler.sample(6000, rng=np.random.default_rng(2))
    assert S.shape == (6000, 2)
    level = FAMILY_LEVEL / len(ANGLES)
    # Not rejected against the re-trained KDE p_hat' = KDE(bandwidth=X \ X') ...
    assert projection_pvalues(S, X[~deleted], 0.1).min() > level
    # ... while the same test rejects the pre-trained KDE p_hat: the test has the power to see
    # the deletion, so passing the first check means something.
    assert projection_pvalues(S, X, 0.1).min() < level
    # A two-sample check against fresh samples of the re-trained model.
    R = exact.retrained_.sample(6000, rng=np.random.default_rng(3))
    for a in ANGLES:
        u = np.array([np.cos(a), np.sin(a)])
        assert sps.ks_2samp(S @ u, R @ u).pvalue > level


def test_acceptance_rate_of_exact_ratio_is_kept_fraction(mog8_deletion):
    # E_{p_hat}[rho_hat] / B = 1 / B = (N - N') / N.
    X, deleted, exact = mog8_deletion
    sampler = ApproximateDeletion(exact.pretrained_, exact)
    sampler.sample(20_000, rng=np.random.default_rng(4))
    p = 1 - deleted.mean()
    n = sampler.n_proposals_
    assert abs(sampler.acceptance_rate_ - p) < Z * math.sqrt(p * (1 - p) / n)
    assert sampler.bound_exceeded_ == 0.0


def test_larger_bound_keeps_the_distribution_and_lowers_the_rate(mog8_deletion):
    X, deleted, exact = mog8_deletion
    B = 3 * exact.ratio_bound_
    sampler = ApproximateDeletion(exact.pretrained_, exact, bound=B)
    S = sampler.sample(4000, rng=np.random.default_rng(5))
    p, n = 1 / B, sampler.n_proposals_
    assert abs(sampler.acceptance_rate_ - p) < Z * math.sqrt(p * (1 - p) / n)
    assert projection_pvalues(S, X[~deleted], 0.1).min() > FAMILY_LEVEL / len(ANGLES)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("make", [lambda: KNNClassifierDRE(k=5), lambda: KernelClassifierDRE(bandwidth=0.05)], ids=["knn5", "kbc0.05"])
def test_classifier_dres_never_report_exceeding_their_own_bound(make, seed):
    # Where f = 0 a classifier DRE equals N / (N - N') exactly; log(B) may round one ulp below it.
    X, deleted, exact = setup(Protocol("mog8", lam=0.5, N=400, seed=seed))
    sampler = ApproximateDeletion(exact.pretrained_, make().fit(X, deleted))
    sampler.sample(2000, rng=np.random.default_rng(seed))
    assert sampler.bound_exceeded_ == 0.0


def test_sampling_is_reproducible(mog8_deletion):
    X, deleted, exact = mog8_deletion
    sampler = ApproximateDeletion(exact.pretrained_, exact)
    a = sampler.sample(300, rng=np.random.default_rng(6))
    b = sampler.sample(300, rng=np.random.default_rng(6))
    np.testing.assert_array_equal(a, b)


# --------------------------------------------------------------------------------------------
# Any model with sample() and any object with log_ratio()


class Uniform01:
    """A tiny model: Uniform(0, 1) in 1-D. Counts the proposals it is asked for."""

    def __init__(self):
        self.drawn = 0

    def sample(self, m, rng):
        self.drawn += m
        return rng.random((m, 1))


class LinearRatio:
    """rho(y) = 2 y on [0, 1], no ratio_bound_: the accepted density is 2 y, CDF y^2."""

    def log_ratio(self, Y):
        with np.errstate(divide="ignore"):
            return np.log(2 * Y[:, 0])


def test_works_with_any_model_and_any_log_ratio_object():
    model = Uniform01()
    sampler = ApproximateDeletion(model, LinearRatio(), bound=2.0)
    S = sampler.sample(5000, rng=np.random.default_rng(7))
    assert S.shape == (5000, 1)
    assert sps.kstest(S[:, 0], lambda t: np.clip(t, 0, 1) ** 2).pvalue > FAMILY_LEVEL
    n = sampler.n_proposals_
    assert n == model.drawn
    assert abs(sampler.acceptance_rate_ - 0.5) < Z * math.sqrt(0.25 / n)  # E[2y] / 2
    assert sampler.bound_exceeded_ == 0.0


def test_bound_below_the_sup_is_reported():
    # With B = 1 < sup rho = 2 the proposals with 2y > 1 (half of them) exceed B.
    sampler = ApproximateDeletion(Uniform01(), LinearRatio(), bound=1.0)
    with pytest.warns(RuntimeWarning, match="exceeded B=1"):
        sampler.sample(4000, rng=np.random.default_rng(8))
    n = sampler.n_proposals_
    assert abs(sampler.bound_exceeded_ - 0.5) < Z * math.sqrt(0.25 / n)


def test_zero_ratio_is_never_accepted():
    class StepRatio:
        def log_ratio(self, Y):
            return np.where(Y[:, 0] < 0.5, -np.inf, 0.0)

    sampler = ApproximateDeletion(Uniform01(), StepRatio(), bound=1.0)
    S = sampler.sample(3000, rng=np.random.default_rng(9))
    assert S.min() >= 0.5
    assert sps.kstest(S[:, 0], sps.uniform(0.5, 0.5).cdf).pvalue > FAMILY_LEVEL


class NearlyZero:
    def log_ratio(self, Y):
        return np.full(len(Y), -40.0)  # rho ~ 4e-18


@pytest.mark.parametrize("max_proposals", [5000, None])
def test_dre_near_zero_everywhere_stops_after_max_proposals(max_proposals):
    model = Uniform01()
    sampler = ApproximateDeletion(model, NearlyZero(), bound=1.0, max_proposals=max_proposals)
    with pytest.raises(RuntimeError, match="proposals"):
        sampler.sample(10, rng=np.random.default_rng(10))
    limit = max_proposals or 100_000  # the default: max(100 000, 1000 m B), at most 10^7
    assert 0 < model.drawn <= limit


def test_huge_bound_with_an_explicit_limit_is_refused_up_front(mog8_deletion):
    # B = 1e12 would need ~1e13 proposals: refused up front by default (test_validation), and
    # with a max_proposals far below m * B too, instead of running until the limit and failing.
    X, deleted, exact = mog8_deletion
    sampler = ApproximateDeletion(exact.pretrained_, exact, bound=1e12, max_proposals=20_000)
    with pytest.raises(ValueError, match="max_proposals=20000 is too small"):
        sampler.sample(10, rng=np.random.default_rng(11))


def test_without_a_known_bound_b_is_required():
    with pytest.raises(ValueError, match="bound"):
        ApproximateDeletion(Uniform01(), LinearRatio())


def test_bound_below_the_dres_known_bound_is_refused(mog8_deletion):
    X, deleted, exact = mog8_deletion
    with pytest.raises(ValueError, match="smaller"):
        ApproximateDeletion(exact.pretrained_, exact, bound=0.99 * exact.ratio_bound_)
    # The bound itself (and anything above) is accepted.
    ApproximateDeletion(exact.pretrained_, exact, bound=exact.ratio_bound_)


def test_unfitted_dre_and_nan_ratios_are_refused(mog8_deletion):
    X, deleted, exact = mog8_deletion
    with pytest.raises(ValueError, match="not fitted"):
        ApproximateDeletion(exact.pretrained_, ExactKDERatio(bandwidth=0.1))

    class NaNRatio:
        def log_ratio(self, Y):
            return np.full(len(Y), np.nan)

    with pytest.raises(ValueError, match="NaN"):
        ApproximateDeletion(Uniform01(), NaNRatio(), bound=1.0).sample(5, rng=np.random.default_rng(0))


def test_alg1_on_ckb8_follows_the_retrained_kde():
    # The same check on CKB-8 (uniform squares): x and y projections.
    X, deleted, exact = setup(Protocol("ckb8", lam=0.3, N=400, sigma_a=0.1, seed=2))
    S = ApproximateDeletion(exact.pretrained_, exact).sample(5000, rng=np.random.default_rng(11))
    assert projection_pvalues(S, X[~deleted], 0.1).min() > FAMILY_LEVEL / len(ANGLES)
    assert projection_pvalues(S, X, 0.1).min() < FAMILY_LEVEL / len(ANGLES)



def test_a_refitted_dre_with_a_larger_bound_is_refused():
    # The sampler copies B when it is made; refitting the DRE to a larger deletion raises its
    # bound N / (N - N'), and sampling with the old B would clip the ratio silently.
    rng = np.random.default_rng(12)
    X = rng.normal(size=(200, 2))
    dre = KernelClassifierDRE(bandwidth=0.3).fit(X, np.arange(10))
    p_hat = KDE(bandwidth=0.3).fit(X)
    sampler = ApproximateDeletion(p_hat, dre)
    sampler.sample(50, rng=rng)
    dre.fit(X, np.arange(100))
    with pytest.raises(ValueError, match="was it refit"):
        sampler.sample(50, rng=rng)


def test_complex_log_ratios_of_a_dre_are_refused_not_truncated():
    # A duck-typed DRE whose log ratios come back complex: the sampler must not keep the real part.
    class ComplexDRE:
        ratio_bound_ = 2.0

        def log_ratio(self, Y):
            return np.zeros(len(Y)) + 0.1j

    from gendel.core.models import KDE

    model = KDE(bandwidth=0.2).fit(np.random.default_rng(0).normal(size=(50, 2)))
    with pytest.raises(TypeError, match="real-valued"):
        ApproximateDeletion(model, ComplexDRE()).sample(10, rng=0)
