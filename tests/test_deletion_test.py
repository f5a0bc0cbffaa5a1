"""The calibrated deletion test of §4 and Appendix C: gendel.deletion_test.decision.

Error rates are checked at a fixed seed against the exact distribution of the rejection count,
at a stated level:

- Type-I error: 300 independent tests per statistic, each with its own simulated null. With
  n_null = 19 and alpha = 0.05 a test rejects iff its observed statistic beats all 19 null ones,
  which under H0 (20 exchangeable, continuous statistics) has probability exactly 1 / 20. The
  count is then exactly Binomial(300, 0.05); it must lie in the central 99.9 % of that law.
- Tests that share one null sample (``DeletionTest.power``) are not binomial: the critical
  value is random too. Under H0 the size given the null is Beta(k, n_null + 1 - k),
  k = floor(alpha (n_null + 1)), so the count is Beta-binomial; that law gives the band.

The setting is MoG-8 (``gendel.synthetic.sampling.setup``) with sigma_A = 0.1. The KBC DRE with
sigma_C = sigma_A = 0.1 is the exact ratio of the two KDEs (Example 1), so H1' is the
re-trained KDE ``exact.retrained_``.
"""

import copy
import warnings
import doctest
import math

import numpy as np
import pytest
from scipy import stats as sps

import gendel.deletion_test.decision as deletion_test
from gendel.deletion_test import calibration
from gendel.deletion_test.decision import STATISTICS, DeletionTest, monte_carlo_p_values
from gendel.core.dre import KernelClassifierDRE
from gendel.synthetic.sampling import Protocol, setup
from gendel.deletion_test.stats import mmd2_unbiased, psi

ALPHA = 0.05
#: MMD bandwidth h of the power and hyppo checks: about the cluster scale of MoG-8 (the median
#: heuristic, about 1.3, sees mostly between-cluster distances and has little power here).
MMD_BANDWIDTH = 0.2
#: Two-sided level of the bands on rejection counts.
BAND = 1e-3


def _bandwidth(statistic):
    return MMD_BANDWIDTH if statistic == "mmd" else None


def _band(law):
    """The central 1 - BAND interval of a discrete law (scipy frozen distribution)."""
    return law.ppf(BAND / 2), law.ppf(1 - BAND / 2)


class RecordingModel:
    """A model that records each ``sample`` call: (n, the draws, a copy of the generator after it)."""

    def __init__(self, model):
        self.model = model
        self.calls = []

    def sample(self, n, *, rng):
        draws = self.model.sample(n, rng=rng)
        self.calls.append((n, draws, copy.deepcopy(rng)))
        return draws


@pytest.fixture(scope="module")
def mog8():
    """MoG-8, lambda = 0.7, N = 400: (X, deleted, exact ratio, KBC DRE with sigma_C = 0.1)."""
    X, deleted, exact = setup(Protocol("mog8", lam=0.7))
    return X, deleted, exact, KernelClassifierDRE(bandwidth=0.1).fit(X, deleted)


# ------------------------------------------------------------------------------------------
# 1. Type-I error over independent tests

N_TESTS, N_NULL_SMALL, M_SMALL = 300, 19, 50


@pytest.fixture(scope="module")
def null_rejections(mog8):
    """Rejections among N_TESTS independent tests under H0, per statistic.

    Each test has its own seed (so its own pilot, direction and null sample) and its own Y drawn
    from p_hat by an independent generator. The pilot only sets the direction (and the moments of
    the normal approximation, unused here): n_pilot = 2000 estimates the Hellinger direction with
    5 standard errors to spare (its mean shift is -0.0042, standard error 0.0008); 500 draws do
    for the others (LR's direction is +1 by construction; the shifts of ASC-log and ASC-t log t
    are 3.5 and 11 standard errors of a 500-draw pilot away from 0). The pilot is independent
    of the null sample and of Y, so the rate is exactly alpha whatever direction it picks.
    """
    _, _, exact, kbc = mog8
    model = exact.pretrained_
    counts = {}
    for k, statistic in enumerate(STATISTICS):
        rejected = 0
        for i in range(N_TESTS):
            test = DeletionTest(model, kbc, statistic=statistic, n_null=N_NULL_SMALL,
                                n_pilot=2000 if statistic == "asc-hellinger" else 500,
                                bandwidth=_bandwidth(statistic), rng=np.random.default_rng([k, i, 0]))
            Y = model.sample(M_SMALL, rng=np.random.default_rng([k, i, 1]))
            rejected += test.test(Y, alpha=ALPHA).reject
        counts[statistic] = rejected
    return counts


@pytest.mark.parametrize("statistic", STATISTICS)
def test_type_one_error_is_alpha_over_independent_tests(null_rejections, statistic):
    # P(reject) = P(observed beats all 19 null statistics) = 1/20 = alpha exactly.
    low, high = _band(sps.binom(N_TESTS, ALPHA))
    count = null_rejections[statistic]
    assert low <= count <= high, (f"{statistic}: {count} rejections of {N_TESTS} tests under H0, outside the "
                                  f"99.9 % band [{low:g}, {high:g}] of Binomial({N_TESTS}, {ALPHA})")


def test_type_one_error_pooled_over_statistics_is_alpha(null_rejections):
    # The 5 x 300 tests are independent: the total is Binomial(1500, alpha). A p-value that
    # forgets the +1 of (1 + #) / (1 + n_null) rejects at 2/20 = 2 alpha: about 150 of 1500,
    # far above this band (one statistic alone catches it only about half the time).
    n = N_TESTS * len(STATISTICS)
    low, high = _band(sps.binom(n, ALPHA))
    total = sum(null_rejections.values())
    assert low <= total <= high, f"{null_rejections}: total {total} outside [{low:g}, {high:g}]"


# ------------------------------------------------------------------------------------------
# 2. Power grows with m

POWER_MS = (25, 50, 100, 200)
N_NULL_POWER, N_REP_POWER = 300, 200


@pytest.fixture(scope="module")
def mog8_half():
    """MoG-8, lambda = 0.5: half of the re-weighted clusters' points deleted."""
    X, deleted, exact = setup(Protocol("mog8", lam=0.5))
    return exact, KernelClassifierDRE(bandwidth=0.1).fit(X, deleted)


@pytest.mark.parametrize("statistic", STATISTICS)
def test_power_against_the_retrained_model_grows_with_m(mog8_half, statistic):
    """Rejection rate at m = 25, 50, 100, 200 with q = the re-trained KDE (H1' holds exactly).

    Each consecutive pair may decrease by at most 3 standard deviations of the difference of the
    two rates (binomial over the 200 tests plus the randomness of each m's own simulated null,
    ``PowerResult.standard_error``): a true power curve is non-decreasing, the estimates only wobble by
    Monte-Carlo error. For LR and ASC the largest m must beat the smallest by more than that
    slack; MMD's power on this alternative stays low at these m (about 0.05 to 0.2, with a noisy
    critical value), so only its monotonicity is checked.
    """
    exact, kbc = mog8_half
    test = DeletionTest(exact.pretrained_, kbc, statistic=statistic, n_null=N_NULL_POWER, n_pilot=4000,
                        bandwidth=_bandwidth(statistic), rng=11)
    rates, variances = [], []
    for m in POWER_MS:
        result = test.power(exact.retrained_, m, alpha=ALPHA, n_rep=N_REP_POWER, rng=13 + m)
        rates.append(result.rate)
        variances.append(result.standard_error**2)
    for k in range(len(POWER_MS) - 1):
        slack = 3 * math.sqrt(variances[k] + variances[k + 1])
        assert rates[k + 1] >= rates[k] - slack, (statistic, POWER_MS, rates, slack)
    if statistic != "mmd":
        assert rates[-1] > rates[0] + 3 * math.sqrt(variances[0] + variances[-1]), (statistic, rates)
    if statistic == "lr":
        # LR is the most powerful here (Neyman-Pearson: it is the log-likelihood ratio of H1' to H0).
        assert result.low > 5 * ALPHA, (rates, result)


# ------------------------------------------------------------------------------------------
# 3. MMD against hyppo's independent implementation


@pytest.fixture(scope="module")
def hyppo_mmd():
    """hyppo's MMD two-sample test with our RBF kernel: gamma = 1 / (2 h^2)."""
    ksample = pytest.importorskip("hyppo.ksample")
    return ksample.MMD(compute_kernel="rbf", gamma=1.0 / (2.0 * MMD_BANDWIDTH**2))


def _permutation_run(model, source, m, n_null, seed):
    """One ``test(Y, method="permutation")`` with the Y_hat it drew and the generator after it.

    The test draws Y_hat from the model inside ``test``; a model wrapper records that draw and a
    copy of the test's generator right after it. ``_permutation`` draws its permutations from
    that generator next, so the copy replays them.
    """
    recorder = RecordingModel(model)
    test = DeletionTest(recorder, None, statistic="mmd", n_null=n_null, bandwidth=MMD_BANDWIDTH, rng=seed,
                        n_pilot=200)
    Y = source.sample(m, rng=np.random.default_rng(seed + 1))
    result = test.test(Y, alpha=ALPHA, method="permutation")
    n, Yhat, after = recorder.calls[-1]
    assert n == m
    return Y, Yhat, after, result


def test_mmd_statistic_and_permutation_null_match_independent_implementations(mog8, hyppo_mmd):
    """Our MMD^2_u equals gendel.deletion_test.stats.mmd2_unbiased, and is proportional to hyppo's MMD.

    hyppo's MMD is (2 n^2 m^2 / (n + m)^4) times the unbiased distance correlation (Hsic) between
    the distances 1 - K of the pooled sample and its group labels. The U-centred covariance in
    that correlation is a multiple of MMD^2_u depending on m only; the correlation divides it by a
    norm of 1 - K over the pooled sample, which no permutation changes. So over the permutations
    of one pooled sample hyppo = c * MMD^2_u with one c > 0, with no intercept (c differs between
    pooled samples: by several per cent in a check at m = 30, so the two are not proportional
    across samples, only within one).
    The permutation null is checked split by split against both, and its p-value against the one
    hyppo's statistics give on the same splits.
    """
    _, _, exact, _ = mog8
    m, n_null = 60, 200
    Y, Yhat, after, result = _permutation_run(exact.pretrained_, exact.retrained_, m, n_null, seed=21)
    assert result.statistic == pytest.approx(mmd2_unbiased(Y, Yhat, bandwidth=MMD_BANDWIDTH), rel=1e-12, abs=1e-15)

    pooled = np.concatenate([Y, Yhat])
    splits = []
    for _ in range(n_null):
        first = np.zeros(2 * m, dtype=bool)
        first[after.permutation(2 * m)[:m]] = True
        splits.append((pooled[first], pooled[~first]))
    ours = np.asarray(result.null)
    independent = np.array([mmd2_unbiased(a, b, bandwidth=MMD_BANDWIDTH) for a, b in splits])
    np.testing.assert_allclose(ours, independent, rtol=0, atol=1e-12)

    theirs = np.array([hyppo_mmd.statistic(a, b) for a, b in splits])
    theirs_observed = hyppo_mmd.statistic(Y, Yhat)
    assert np.corrcoef(ours, theirs)[0, 1] > 1 - 1e-12
    slope, intercept = np.polyfit(ours, theirs, 1)
    assert slope > 0 and abs(intercept) < 1e-12 * np.abs(theirs).max()
    assert theirs_observed == pytest.approx(slope * result.statistic, rel=1e-9)
    assert result.p_value == (1 + np.sum(theirs >= theirs_observed)) / (1 + n_null)


class ShiftedModel:
    """The model's draws translated by ``shift``: a distribution that MMD can tell from the model."""

    def __init__(self, model, shift):
        self.model, self.shift = model, np.asarray(shift, dtype=float)

    def sample(self, n, *, rng):
        return self.model.sample(n, rng=rng) + self.shift


@pytest.mark.slow  # hyppo's own 2000 permutations: the test above cross-checks the statistic and null in `make unit`
@pytest.mark.parametrize("shift", [0.0, 0.3])
def test_mmd_permutation_p_value_agrees_with_hyppo(mog8_half, hyppo_mmd, shift):
    """Our permutation p-value and hyppo's, each from 2000 permutations of the same Y and Y_hat.

    Y is p_hat's sample (H0) or p_hat's sample shifted by 0.3 along the first axis; m = 100.
    Both p-values estimate the same exact permutation p-value p (the statistics are proportional
    within a pooled sample). Their difference has standard deviation sqrt(p (1 - p) (2 / 2000));
    the tolerance is 4 of those (p taken as the mean of the two estimates) plus 2 / 2001 for
    the +1 terms.
    """
    exact, _ = mog8_half
    n = 2000
    source = ShiftedModel(exact.pretrained_, [shift, 0.0])
    Y, Yhat, _, result = _permutation_run(exact.pretrained_, source, 100, n, seed=31)
    theirs = hyppo_mmd.test(Y, Yhat, reps=n, auto=False, random_state=32).pvalue
    p = (result.p_value + theirs) / 2
    tolerance = 4 * math.sqrt(p * (1 - p) * 2 / n) + 2 / (n + 1)
    assert abs(result.p_value - theirs) <= tolerance, (result.p_value, theirs, tolerance)


# ------------------------------------------------------------------------------------------
# 4. Invalid inputs


def _lr_test(mog8, **kwargs):
    _, _, exact, kbc = mog8
    return DeletionTest(exact.pretrained_, kbc, n_null=99, n_pilot=500, rng=0, **kwargs)


@pytest.mark.parametrize("alpha", [0, 1, -0.1, 1.5, float("nan")])
def test_alpha_outside_the_unit_interval_is_rejected(mog8, alpha):
    _, _, exact, _ = mog8
    with pytest.raises(ValueError, match=r"strictly between 0 and 1 \(e\.g\. 0\.05\)"):
        _lr_test(mog8).test(exact.pretrained_.sample(10, rng=np.random.default_rng(0)), alpha=alpha)


@pytest.mark.parametrize("alpha", ["x", "0.05", None, True])
def test_alpha_that_is_not_a_number_is_rejected(mog8, alpha):
    _, _, exact, _ = mog8
    with pytest.raises(TypeError, match=r"alpha must be a number in \(0, 1\)"):
        _lr_test(mog8).test(exact.pretrained_.sample(10, rng=np.random.default_rng(0)), alpha=alpha)


def test_n_null_too_small_to_reach_alpha_says_how_many_are_needed(mog8):
    _, _, exact, kbc = mog8
    test = DeletionTest(exact.pretrained_, kbc, n_null=10, n_pilot=500, rng=0)
    Y = exact.pretrained_.sample(10, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"could never reject.*Use n_null >= 19"):
        test.test(Y, alpha=0.05)
    with pytest.raises(ValueError, match=r"Use n_null >= 99"):
        test.power(exact.pretrained_, 10, alpha=0.01)
    assert test.test(Y, alpha=0.1).p_value >= 1 / 11  # 1/(1 + 10) <= 0.1: allowed


@pytest.mark.parametrize("shape", [(20, 3), (20,), (20, 2, 1)])
def test_samples_of_the_wrong_shape_are_rejected(mog8, shape):
    with pytest.raises(ValueError, match=r"have shape \(m, 2\); got shape"):
        _lr_test(mog8).test(np.zeros(shape))


def test_unfitted_dre_is_rejected(mog8):
    _, _, exact, _ = mog8
    with pytest.raises(ValueError, match=r"not fitted yet: call \.fit"):
        DeletionTest(exact.pretrained_, KernelClassifierDRE(bandwidth=0.1))


def test_missing_dre_for_a_ratio_statistic_is_rejected(mog8):
    _, _, exact, _ = mog8
    with pytest.raises(TypeError, match=r"needs a fitted DRE with log_ratio"):
        DeletionTest(exact.pretrained_, None, statistic="asc-log")


def test_unknown_statistic_is_rejected(mog8):
    with pytest.raises(ValueError, match=r"statistic must be one of \('lr', 'asc-log'"):
        _lr_test(mog8, statistic="kl")


def test_unknown_method_is_rejected(mog8):
    _, _, exact, _ = mog8
    with pytest.raises(ValueError, match=r"method must be one of \('monte-carlo', 'asymptotic', 'permutation'\)"):
        _lr_test(mog8).test(exact.pretrained_.sample(10, rng=np.random.default_rng(0)), method="bootstrap")


def test_asymptotic_mmd_is_rejected_with_the_alternatives(mog8):
    _, _, exact, _ = mog8
    test = DeletionTest(exact.pretrained_, None, statistic="mmd", n_null=99, n_pilot=500, rng=0)
    Y = exact.pretrained_.sample(10, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"degenerate.*use method='monte-carlo' or 'permutation'"):
        test.test(Y, method="asymptotic")


def test_permutation_with_lr_is_rejected_with_the_alternatives(mog8):
    _, _, exact, _ = mog8
    with pytest.raises(ValueError, match=r"for LR and ASC use method='monte-carlo' or 'asymptotic'"):
        _lr_test(mog8).test(exact.pretrained_.sample(10, rng=np.random.default_rng(0)), method="permutation")


def test_model_without_sample_is_rejected(mog8):
    _, _, exact, kbc = mog8
    with pytest.raises(TypeError, match=r"model must have a sample\(m, \*, rng\) method"):
        DeletionTest(exact.pretrained_.X_, kbc)


def test_mmd_with_a_single_sample_is_rejected(mog8):
    _, _, exact, _ = mog8
    test = DeletionTest(exact.pretrained_, None, statistic="mmd", n_null=99, n_pilot=500, rng=0)
    with pytest.raises(ValueError, match=r"MMD statistic needs at least two samples in Y"):
        test.test(exact.pretrained_.sample(1, rng=np.random.default_rng(0)))
    with pytest.raises(ValueError, match=r"m must be at least 2"):
        test.power(exact.pretrained_, 1)
    with pytest.raises(ValueError, match=r"m must be at least 2"):
        test.null_distribution(1)


# ------------------------------------------------------------------------------------------
# 5. Further properties


def _extreme_samples(exact, m, key):
    """The m points of 20,000 draws of p_hat with the smallest ``key(log rho)`` (exact ratio)."""
    pool = exact.pretrained_.sample(20_000, rng=np.random.default_rng(41))
    return pool[np.argsort(key(exact.log_ratio(pool)))[:m]]


@pytest.mark.parametrize("statistic, n_null, m", [("lr", 199, 100), ("asc-hellinger", 19, 1000)])
def test_p_value_is_one_over_n_null_plus_one_far_in_the_rejection_tail(mog8, statistic, n_null, m):
    """A sample far in the rejecting tail gets p = 1 / (1 + n_null), one far in the other tail p = 1.

    LR rejects for large values: Y where rho is largest (rho <= N / (N - N') = 1.18) beats every
    null statistic. ASC-Hellinger rejects for small values (direction -1): Y where rho is closest
    to 1 has psi_H(rho) ~ 0. Its Y_hat half is still random and heavy-tailed (psi_H has mean 0.0076
    and standard deviation 0.041 under p_hat), so it takes m = 1000 and n_null = 19 for the
    observed value to lie below all null values with room to spare. Y where rho is smallest
    (near deleted points) is in the accepting tail of both statistics.
    """
    _, _, exact, kbc = mog8
    test = DeletionTest(exact.pretrained_, kbc, statistic=statistic, n_null=n_null, n_pilot=4000, rng=42)
    in_tail = (lambda lr: -lr) if statistic == "lr" else np.abs
    tail = test.test(_extreme_samples(exact, m, in_tail), alpha=ALPHA)
    assert tail.p_value == 1 / (1 + n_null) and tail.reject
    other_end = test.test(_extreme_samples(exact, m, lambda lr: lr), alpha=ALPHA)
    assert other_end.p_value == 1.0 and not other_end.reject
    assert tail.direction == test.direction_ == (1 if statistic == "lr" else -1)


def test_directions_match_the_sign_of_the_mean_shift_by_quadrature(mog8):
    """direction_ is the sign of E_H1'[ASC] - E_H0[ASC] = E_p_hat[psi(rho) (rho / Z - 1)].

    For phi = log and t log t, psi(t) and t - 1 share their sign, so the shift is >= 0. For the
    squared Hellinger psi_H(t) = (sqrt t - 1)^2 / (1 + t) >= 0 is symmetric under t -> 1 / t
    and grows with |log t|. Deletion bounds rho by B = N / (N - N') = 1.18 (lambda = 0.7), so
    where rho > 1 the weight is at most psi_H(B) = 0.003, while near deleted points rho drops
    towards 0 and psi_H towards 1. The positive and negative parts of rho - 1 have equal mass
    (E_p_hat[rho] = 1), so the low-ratio side dominates: the shift is negative, small ASC-Hellinger
    values reject. The sign is checked here by grid quadrature of the KDE p_hat and the exact
    ratio (independent of the test's Monte-Carlo pilot).
    """
    _, _, exact, kbc = mog8
    h = 0.02  # sigma_A / 5
    xs = np.arange(-2.8 + h / 2, 2.8, h)
    gx, gy = np.meshgrid(xs, xs)
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    weight = np.exp(exact.pretrained_.log_prob(grid)) * h * h
    log_r = exact.log_ratio(grid)
    rho = np.exp(log_r)
    assert abs(weight.sum() - 1) < 1e-6 and abs((weight * rho).sum() - 1) < 1e-6
    for phi in ("log", "tlogt", "hellinger"):
        shift = float(np.sum(weight * psi(log_r, phi) * (rho / np.sum(weight * rho) - 1)))
        test = DeletionTest(exact.pretrained_, kbc, statistic=f"asc-{phi}", n_null=19, n_pilot=4000, rng=43)
        test.null_distribution(2)  # runs the pilot
        assert abs(shift) > 1e-3, (phi, shift)  # clearly signed (Monte-Carlo error of the pilot: 6e-4)
        assert test.direction_ == np.sign(shift), (phi, shift)
    assert shift < 0  # Hellinger
    lr = DeletionTest(exact.pretrained_, kbc, statistic="lr", n_null=19, n_pilot=500, rng=44)
    lr.null_distribution(2)
    assert lr.direction_ == 1


def test_null_sample_is_simulated_once_per_m_and_reused(mog8):
    _, _, exact, kbc = mog8
    recorder = RecordingModel(exact.pretrained_)
    test = DeletionTest(recorder, kbc, statistic="asc-log", n_null=99, n_pilot=500, rng=45)
    Y = exact.retrained_.sample(30, rng=np.random.default_rng(46))
    first = test.test(Y)
    drawn = sum(n for n, _, _ in recorder.calls)
    assert drawn == 500 + 30 + 2 * 99 * 30  # pilot, Y_hat, null (Y and Y_hat of each null set)
    second = test.test(Y)
    assert second.null is first.null is test.null_distribution(30)
    assert sum(n for n, _, _ in recorder.calls) == drawn + 30  # only a fresh Y_hat
    assert test.null_distribution(31) is not first.null and len(test.null_distribution(31)) == 99


def test_asymptotic_p_values_are_close_to_monte_carlo_ones_for_lr(mog8):
    """LR at m = 400: normal approximation versus 1000 simulated null statistics.

    The Monte-Carlo p-value is one minus an empirical CDF of the 1000 null statistics (up to
    1/1001); by the Dvoretzky-Kiefer-Wolfowitz inequality it is within
    sqrt(log(2 / 1e-3) / 2000) = 0.062 of the exact p-value for all observed values at once,
    with probability 0.999. The tolerance is that plus 1/1001: the central limit theorem's own
    error at m = 400 must fit within it.
    """
    _, _, exact, kbc = mog8
    n_null, m = 1000, 400
    test = DeletionTest(exact.pretrained_, kbc, statistic="lr", n_null=n_null, rng=47)
    tolerance = math.sqrt(math.log(2 / 1e-3) / (2 * n_null)) + 1 / (n_null + 1)
    g = np.random.default_rng(48)
    differences = []
    for source in [exact.pretrained_] * 12 + [exact.retrained_] * 2:
        Y = source.sample(m, rng=g)
        mc, asym = test.test(Y, method="monte-carlo"), test.test(Y, method="asymptotic")
        assert mc.statistic == asym.statistic
        differences.append(abs(mc.p_value - asym.p_value))
    assert max(differences) <= tolerance, (differences, tolerance)


@pytest.mark.parametrize("statistic", STATISTICS)
def test_power_against_the_pretrained_model_is_alpha(mog8, statistic):
    # 400 tests sharing one null of n_null = 399: size given the null ~ Beta(20, 380)
    # (k = floor(0.05 * 400) = 20), count ~ BetaBinomial(400, 20, 380), mean 20.
    _, _, exact, kbc = mog8
    n_null, n_rep = 399, 400
    test = DeletionTest(exact.pretrained_, kbc, statistic=statistic, n_null=n_null, n_pilot=2000,
                        bandwidth=_bandwidth(statistic), rng=49)
    result = test.power(exact.pretrained_, 50, alpha=ALPHA, n_rep=n_rep, rng=50)
    k = math.floor(ALPHA * (n_null + 1))
    low, high = _band(sps.betabinom(n_rep, k, n_null + 1 - k))
    count = round(result.rate * n_rep)
    assert low <= count <= high, (statistic, count, low, high)


def test_docstring_example_runs():
    # The repository's pytest configuration collects tests/ only (no --doctest-modules).
    outcome = doctest.testmod(deletion_test, optionflags=doctest.ELLIPSIS)
    assert outcome.attempted > 0 and outcome.failed == 0


def test_type_one_band_holds_the_rates_of_tests_sharing_a_null():
    """Simulated directly: a continuous statistic (uniform under H0), one null of n_null draws shared by
    n_rep tests, the Monte-Carlo p-value rule. About 99 % of the rates fall in the 99 % band, and the
    band is wider than the binomial interval of independent tests (which it tends to as n_null grows)."""
    rng = np.random.default_rng(0)
    n_rep, n_null, trials = 300, 500, 4000
    null = rng.random((trials, n_null))
    observed = rng.random((trials, n_rep))
    rates = np.array([np.mean(monte_carlo_p_values(o, n) <= ALPHA) for o, n in zip(observed, null)])
    low, high = calibration.type_one_band(n_rep, n_null, ALPHA)
    inside = np.mean((rates >= low) & (rates <= high))
    assert 0.985 <= inside <= 1.0, inside
    assert abs(rates.mean() - math.floor(ALPHA * (n_null + 1)) / (n_null + 1)) < 0.002
    binomial = sps.binom(n_rep, ALPHA)
    assert low < binomial.ppf(0.005) / n_rep and high > binomial.isf(0.005) / n_rep
    wide = calibration.type_one_band(n_rep, 10**7, ALPHA)
    assert wide == pytest.approx((binomial.ppf(0.005) / n_rep, binomial.isf(0.005) / n_rep), abs=1 / n_rep)


# ------------------------------------------------------------------------------------------
# 6. Inputs that would give a number but no test: refused with what to do


@pytest.fixture(scope="module")
def mmd_test(mog8):
    _, _, exact, _ = mog8
    return DeletionTest(exact.pretrained_, None, statistic="mmd", n_null=99, n_pilot=500, rng=0)


@pytest.mark.parametrize("method", ["monte-carlo", "permutation"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_samples_that_are_not_finite_are_refused(mog8, mmd_test, method, bad):
    # NaN in Y made MMD^2 NaN: p = 1 / (1 + n_null) (reject) by Monte-Carlo, p = 1 by permutation.
    _, _, exact, _ = mog8
    Y = exact.pretrained_.sample(20, rng=np.random.default_rng(1))
    Y[3, 0] = bad
    with pytest.raises(ValueError, match=r"Y holds 1 value that is not finite .*row 3.*remove or repair"):
        mmd_test.test(Y, method=method)
    with pytest.raises(ValueError, match=r"not finite"):
        _lr_test(mog8).test(Y)


@pytest.mark.parametrize("method", ["monte-carlo", "permutation"])
def test_samples_whose_squared_distances_overflow_are_refused(mog8, mmd_test, method):
    # 1e200 is finite, but its square is not: the kernel sums were NaN and the test rejected.
    _, _, exact, _ = mog8
    Y = exact.pretrained_.sample(20, rng=np.random.default_rng(1))
    Y[3, 0] = 1e200
    with pytest.raises(ValueError, match=r"Y holds values up to 1e\+200 in magnitude.*overflow.*rescale"):
        mmd_test.test(Y, method=method)


def test_a_statistic_that_is_nan_is_refused(mog8):
    # a kernel that gives NaN made the test reject at p = 1 / (1 + n_null)
    _, _, exact, _ = mog8
    test = DeletionTest(exact.pretrained_, None, statistic="mmd", kernel=lambda A, B: np.full((len(A), len(B)), np.nan),
                        n_null=99, n_pilot=500, rng=0)
    with pytest.raises(ValueError, match=r"MMD² of Y is nan.*check the kernel"):
        test.test(exact.pretrained_.sample(20, rng=np.random.default_rng(1)))
    with pytest.raises(ValueError, match=r"99 simulated statistics are NaN"):
        test.null_distribution(20)


def test_statistics_that_are_nan_get_no_p_value(mmd_test):
    # p_values([nan]) was 1 / (1 + n_null) = 0.01: the smallest p-value, for no evidence at all.
    with pytest.raises(ValueError, match=r"statistics contain NaN"):
        mmd_test.p_values([0.0, np.nan], 20)
    with pytest.raises(ValueError, match=r"observed contains NaN"):
        monte_carlo_p_values([np.nan], [0.0, 1.0])
    with pytest.raises(ValueError, match=r"null contains NaN"):
        monte_carlo_p_values([0.5], [0.0, np.nan])


def test_complex_samples_are_refused(mog8, mmd_test):
    # complex Y was cast to real with a ComplexWarning only
    _, _, exact, _ = mog8
    Y = exact.pretrained_.sample(20, rng=np.random.default_rng(1)) + 1e-3j
    with pytest.raises(TypeError, match=r"Y is complex.*np\.real\(Y\)"):
        mmd_test.test(Y)


def test_dre_fitted_in_another_dimension_is_refused_when_the_test_is_made(mog8):
    # it was accepted, and test() then failed inside the pilot ("Y has dimension 2 ...")
    _, _, exact, _ = mog8
    X3 = np.random.default_rng(0).normal(size=(100, 3))
    deleted = np.arange(100) < 10
    dre3 = KernelClassifierDRE(bandwidth=0.5).fit(X3, deleted)
    with pytest.raises(ValueError, match=r"the DRE was fitted on points of dimension 3, but the model draws points "
                                         r"of dimension 2: fit the DRE on"):
        DeletionTest(exact.pretrained_, dre3, statistic="lr")
    # a DRE of no known dimension that cannot take the model's samples: its error, said of the model
    with pytest.raises(ValueError, match=r"the DRE cannot evaluate samples of the model \(shape \(2,\)\): .*3.*Fit "
                                         r"the DRE on data shaped like the model's samples"):
        DeletionTest(exact.pretrained_, _Ratio(lambda x: x @ np.ones(3)), statistic="asc-log")


class _TwoValued:
    """A model uniform on [0, 1] and a DRE taking r0 on [0, a) and r1 on [a, 1] (normalised: a r0 + (1 - a) r1 = 1)."""

    def __init__(self, a, r0):
        self.a, self.r0, self.r1 = a, r0, (1 - a * r0) / (1 - a)

    def sample(self, n, *, rng):
        return rng.random((n, 1))

    def log_ratio(self, Y):
        return np.where(np.asarray(Y)[:, 0] < self.a, np.log(self.r0), np.log(self.r1))


class _Ratio:
    """A model uniform on [0, 1] with a DRE given by a function of the points."""

    def __init__(self, log_ratio):
        self._log_ratio = log_ratio

    def sample(self, n, *, rng):
        return rng.random((n, 1))

    def log_ratio(self, Y):
        return self._log_ratio(np.asarray(Y)[:, 0])


@pytest.mark.parametrize("log_ratio, match", [
    (lambda x: np.zeros_like(x), r"shift .* is exactly 0"),
    (lambda x: np.where(x < 0.01, np.inf, 0.0), r"\+inf"),
    (lambda x: np.full_like(x, -np.inf), r"0 on every"),
])
def test_hellinger_direction_of_zero_or_nan_is_refused(log_ratio, match):
    # A shift of exactly 0 (a constant ratio) or NaN (+inf ratios, or a ratio 0 everywhere)
    # became direction +1 without a word.
    model = _Ratio(log_ratio)
    with pytest.raises(ValueError, match=match):
        DeletionTest(model, model, statistic="asc-hellinger", n_null=99, n_pilot=1000, rng=0).null_distribution(10)


def test_hellinger_direction_within_its_noise_of_zero_warns():
    # r0 r1 = 1 (r0 = 1/2 on 2/3 of the mass, r1 = 2): the Hellinger shift is 0 exactly, so the
    # pilot's estimate is noise and the test has no power; a clear shift gives no warning.
    flat = _TwoValued(2 / 3, 0.5)
    assert flat.r1 == pytest.approx(2.0)
    with pytest.warns(UserWarning, match=r"within .* of 0.*valid.*no power"):
        DeletionTest(flat, flat, statistic="asc-hellinger", n_null=99, n_pilot=4000, rng=0).null_distribution(10)
    clear = _TwoValued(0.3, 0.2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        test = DeletionTest(clear, clear, statistic="asc-hellinger", n_null=99, n_pilot=4000, rng=0)
        test.null_distribution(10)
    assert test.direction_ == -1


@pytest.mark.parametrize("a, r0", [(0.9, 0.9), (0.5, 0.2), (0.3, 0.2), (0.6, 0.7), (0.2, 0.05)])
def test_two_valued_hellinger_shift_is_negative_exactly_when_r0_r1_is_below_one(a, r0):
    """E_H1'[ASC_H] - E_H0[ASC_H] = a (1 - r0) (psi(r1) - psi(r0)) for a two-valued normalised ratio.

    psi_H(t) = 1 - 1 / cosh(log(t) / 2) grows with |log t|, so the shift is negative when
    r1 < 1 / r0, i.e. r0 r1 < 1, and positive when r0 r1 > 1 (a = 0.9, r0 = 0.9, r1 = 1.9): not
    negative for every two-valued ratio. The test's estimated direction follows that sign (the
    smallest shift here, +0.00024 at a = 0.6, is 9 standard errors of the 20,000-draw pilot).
    """
    two = _TwoValued(a, r0)
    weights = np.array([a, 1 - a])
    rho = np.array([two.r0, two.r1])
    shift = float(np.sum(weights * psi(np.log(rho), "hellinger") * (rho - 1)))
    assert shift == pytest.approx(a * (1 - r0) * float(psi(np.log(two.r1), "hellinger") - psi(np.log(r0), "hellinger")))
    assert np.sign(shift) == np.sign(two.r0 * two.r1 - 1) != 0
    test = DeletionTest(two, two, statistic="asc-hellinger", n_null=99, n_pilot=20_000, rng=1)
    test.null_distribution(10)
    assert test.direction_ == np.sign(shift)


# ------------------------------------------------------------------------------------------
# 7. Power intervals include the randomness of the shared null sample


class _Normal:
    """N(mu, 1) in one dimension; as a DRE, the exact ratio N(a, 1) / N(0, 1): log rho(x) = a x - a^2 / 2."""

    def __init__(self, mu):
        self.mu = mu

    def sample(self, n, *, rng):
        return rng.normal(self.mu, 1.0, size=(n, 1))

    def log_ratio(self, Y):
        return self.mu * np.asarray(Y)[:, 0] - self.mu**2 / 2


def _unconditional_power(a, m, n_null, alpha):
    """P(reject) of the Monte-Carlo LR test of N(0, 1) against N(a, 1), averaged over the null sample too.

    The test rejects when at most k - 1 of the n_null null statistics reach the observed one,
    k = floor(alpha (n_null + 1)); LR is increasing in the sample mean, which is N(0, 1/m) under
    H0 and N(a, 1/m) under H1. So the power is E[BinomCDF(k - 1; n_null, Phi(-sqrt(m) a - Z))], Z ~ N(0, 1).
    """
    k = math.floor(alpha * (n_null + 1) + 1e-9)
    z = np.linspace(-9, 9, 20001)
    integrand = sps.binom.cdf(k - 1, n_null, sps.norm.cdf(-math.sqrt(m) * a - z)) * sps.norm.pdf(z)
    return float(np.sum(integrand) * (z[1] - z[0]))


@pytest.mark.parametrize("n_nulls", [1, 5])
def test_power_interval_covers_the_power_over_null_samples_too(n_nulls):
    """The 95 % interval of DeletionTest.power covers the test's power in about 95 % of runs.

    The power of the Monte-Carlo test averages over its null sample as well as over Y; with one
    null shared by the n_rep tests, the rate's spread is binomial plus the spread of the critical
    value. Here (power 0.49, n_null = 200, n_rep = 200) the null adds about as much as the binomial:
    a binomial interval covered the power in 2 runs of 3 only. 300 runs; coverage must be at
    least 0.9 (the count of covering runs has sd 0.013 at 0.95), and the intervals may not be much
    wider than the rate's actual spread (their half-width at most 1.35 * 1.96 of its sd).
    """
    a, m, n_null, n_rep, runs = 0.52, 10, 200, 200, 300
    truth = _unconditional_power(a, m, n_null, ALPHA)
    assert 0.4 < truth < 0.6
    results = [DeletionTest(_Normal(0.0), _Normal(a), statistic="lr", n_null=n_null, n_pilot=100, rng=np.random.default_rng([7, i]))
               .power(_Normal(a), m, alpha=ALPHA, n_rep=n_rep, rng=[8, i], n_nulls=n_nulls) for i in range(runs)]
    rates = np.array([r.rate for r in results])
    covered = np.mean([r.low <= truth <= r.high for r in results])
    half_width = np.mean([(r.high - r.low) / 2 for r in results])
    assert abs(rates.mean() - truth) < 3 * rates.std() / math.sqrt(runs)   # the rate is unbiased for it
    assert covered >= 0.9, (covered, truth)
    assert half_width <= 1.35 * 1.96 * rates.std(), (half_width, rates.std())


def test_null_spread_is_the_bootstrap_spread_of_the_rate():
    """null_spread computes exactly what resampling the null with replacement estimates.

    20,000 resamples of a null of 300 (ties included: a tenth of the values are -inf) give the
    sd of the rate at the resampled critical value with a relative standard error of about
    1 / sqrt(2 * 20,000) = 0.5 %; the exact value must lie within 3 % of it.
    """
    rng = np.random.default_rng(3)
    null = rng.normal(size=300)
    null[:30] = -np.inf
    statistics = rng.normal(1.0, 1.0, size=400)
    n, K = null.size, math.floor(ALPHA * (null.size + 1))
    resampled = rng.choice(null, size=(20_000, n))
    critical = -np.partition(-resampled, K - 1, axis=1)[:, K - 1]     # the K-th largest
    rates = (statistics[None, :] > critical[:, None]).mean(axis=1)
    exact = deletion_test.null_spread(statistics, null, ALPHA)
    assert exact == pytest.approx(rates.std(), rel=0.03)
    assert deletion_test.null_spread(np.full(5, 10.0), null, ALPHA) == 0.0


@pytest.mark.parametrize("n_null", [19, 99, 500, 999])
def test_the_exact_level_is_not_what_the_null_gives_against_itself(mog8, n_null):
    """exact_level is the type-I error of the Monte-Carlo test, floor(alpha (n + 1)) / (n + 1).

    The null statistics' p-values against their own sample reject at (floor(alpha (n + 1)) - 1) / n
    whatever the statistics are: a constant, which a table once showed as a measured type-I error.
    The exact level is the mean of the Beta-binomial law of type_one_band (the rate of many tests
    sharing one null), and lies at or below alpha.
    """
    _, _, exact, kbc = mog8
    test = DeletionTest(exact.pretrained_, kbc, n_null=n_null, n_pilot=500, rng=n_null)
    k = math.floor(ALPHA * (n_null + 1) + 1e-9)
    self_rate = float(np.mean(test.p_values(test.null_distribution(20), 20) <= ALPHA))
    assert self_rate == (k - 1) / n_null
    level = calibration.exact_level(n_null, ALPHA)
    assert level == k / (n_null + 1) <= ALPHA and level != self_rate
    assert level == pytest.approx(sps.betabinom(1000, k, n_null + 1 - k).mean() / 1000)
