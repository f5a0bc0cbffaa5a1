"""Alg. 1, the deletion test, the §5.1 protocol and sweeps, and the GAN report under bad input.

Each test is one case a careless user meets, or one kind of case with its variants as parameters:
a call that would run for hours is refused up front with its cost estimate; a model or a DRE that
returns the wrong thing (one number for n points, None, complex numbers, the wrong shape, NaN) is
named in a one-line error instead of a numpy message, or of an answer that looks right; an argument
of the wrong kind gets an error that says what to pass.
"""

from __future__ import annotations

import dataclasses
import re
import time
import warnings

import numpy as np
import pytest

from gendel.core.deletion import ApproximateDeletion
from gendel.core.dre import KernelClassifierDRE, KNNClassifierDRE
from gendel.deletion_test.decision import DeletionTest
from gendel.deletion_test.mmd import median_bandwidth
from gendel.synthetic.experiments import Sweep, sweep, synthetic_statistics
from gendel.synthetic.sampling import Protocol, log_ratios, setup, shared


@pytest.fixture(scope="module")
def fitted():
    """The pre-trained KDE p_hat and the exact ratio of a small MoG-8 protocol."""
    X, deleted, exact = setup(Protocol("mog8", lam=0.5, N=100))
    return exact.pretrained_, exact


class FakeDRE:
    """A fitted DRE whose log_ratio is ``fn(Y)``: made to misbehave."""

    def __init__(self, fn, bound=2.0):
        self.fn, self.ratio_bound_ = fn, bound

    def log_ratio(self, Y):
        return self.fn(np.asarray(Y))


class FakeModel:
    """A fitted model whose sample(n, rng) is ``fn(n, rng)``: made to misbehave."""

    def __init__(self, fn):
        self.fn = fn

    def sample(self, n, *, rng):
        return self.fn(n, rng)


def quickly(fn, seconds=10.0):
    """Run ``fn`` and require it to finish (here: be refused) within ``seconds``."""
    start = time.perf_counter()
    try:
        fn()
    finally:
        assert time.perf_counter() - start < seconds, "refused only after the long work"


# ------------------------------------------------------------------------------------------------
# Hangs: refused up front, with the estimate


def test_a_null_distribution_of_days_is_refused_up_front_with_its_estimate(fitted):
    p, exact = fitted
    test = DeletionTest(p, exact, n_null=10**9, rng=0, n_pilot=200)
    Y = p.sample(400, rng=np.random.default_rng(1))
    with pytest.raises(ValueError, match=r"n_null=1000000000 .* for m=400 would take about .* more than max_seconds="
                                         r".*Use a smaller n_null"):
        quickly(lambda: test.test(Y))


def test_a_refused_null_runs_with_max_seconds_none_and_a_short_one_is_not_refused(fitted):
    p, exact = fitted
    test = DeletionTest(p, exact, n_null=99, rng=0, n_pilot=200, max_seconds=1e-9)
    with pytest.raises(ValueError, match="more than max_seconds=1e-09"):
        test.null_distribution(20)
    anyway = DeletionTest(p, exact, n_null=99, rng=0, n_pilot=200, max_seconds=None)
    default = DeletionTest(p, exact, n_null=99, rng=0, n_pilot=200)
    assert np.array_equal(anyway.null_distribution(20), default.null_distribution(20))  # the same numbers


def test_a_long_null_simulation_shows_progress_and_a_short_one_none(fitted, monkeypatch):
    from gendel.deletion_test import decision

    p, exact = fitted
    shown = []
    real = decision.progress_bar

    def recording(*args, enabled=True, **kwargs):
        shown.append(enabled)
        return real(*args, enabled=enabled, **kwargs)

    monkeypatch.setattr(decision, "progress_bar", recording)
    monkeypatch.setattr(decision, "_PROGRESS_FROM_SECONDS", 0.0)  # every simulation is "long"
    long = DeletionTest(p, exact, n_null=99, rng=0, n_pilot=200).null_distribution(20)
    monkeypatch.setattr(decision, "_PROGRESS_FROM_SECONDS", 1e9)
    short = DeletionTest(p, exact, n_null=99, rng=0, n_pilot=200).null_distribution(20)
    assert shown == [True, False] and np.array_equal(long, short)


def test_a_pilot_of_hours_is_refused_before_it_draws(fitted):
    p, exact = fitted
    with pytest.raises(ValueError, match=r"n_pilot=10000000000 pilot draws would take about .* use a smaller n_pilot"):
        quickly(lambda: DeletionTest(p, exact, n_null=99, rng=0, n_pilot=10**10))


def test_a_protocol_of_years_is_refused_before_it_draws_its_data():
    with pytest.raises(ValueError, match=r"Protocol\(N=100000000, m=400, R=250\) needs about N \(N \+ 4 m R\) = "
                                         r"1e\+16 Gaussian kernel terms.*Use a smaller N, m or R"):
        quickly(lambda: synthetic_statistics(Protocol(N=10**8), KernelClassifierDRE(bandwidth=0.1)))


# ------------------------------------------------------------------------------------------------
# Alg. 1: a DRE or a model that returns the wrong thing


@pytest.mark.parametrize("log_ratio, said", [
    (lambda Y: 0.0, r"returned a single number for \d+ points"),
    (lambda Y: None, r"returned None \(does log_ratio lack a return statement\?\)"),
    (lambda Y: np.zeros((len(Y), 1)), r"returned an array of shape \(\d+, 1\) for \d+ points"),
    (lambda Y: np.zeros(len(Y) - 1), r"returned an array of shape \(\d+,\) for \d+ points"),
], ids=["one value for n points", "None", "a column", "one value too few"])
def test_alg1_refuses_log_ratios_that_are_not_one_per_point(fitted, log_ratio, said):
    p, _ = fitted
    sampler = ApproximateDeletion(p, FakeDRE(log_ratio))
    with pytest.raises(ValueError, match=said + r".*must return one log ratio per point"):
        sampler.sample(50, rng=0)
    with pytest.raises(ValueError, match=said):  # the same through the pilot of a long call
        ApproximateDeletion(p, FakeDRE(log_ratio), max_proposals=10**6).sample(10**5, rng=0)


@pytest.mark.parametrize("draw", [lambda p, n, rng: p.sample(n - 1, rng=rng),
                                  lambda p, n, rng: p.sample(n, rng=rng)[0]],
                         ids=["one point too few", "one point instead of n"])
def test_alg1_refuses_a_model_that_draws_other_than_n_points(fitted, draw):
    p, exact = fitted
    sampler = ApproximateDeletion(FakeModel(lambda n, rng: draw(p, n, rng)), exact)
    with pytest.raises(ValueError, match=r"the model's sample\(\d+, rng=\.\.\.\) returned an array of shape .*, "
                                         r"not \d+ points"):
        sampler.sample(50, rng=0)


def test_alg1_with_a_log_ratio_of_1e300_warns_that_b_is_too_small_instead_of_overflowing(fitted):
    p, _ = fitted
    sampler = ApproximateDeletion(p, FakeDRE(lambda Y: np.full(len(Y), 1e300)))
    with pytest.warns(RuntimeWarning, match=r"the largest ratio was e\^\(1e\+300\)"):
        Y = sampler.sample(50, rng=0)
    assert Y.shape == (50, 2) and sampler.bound_exceeded_ == 1.0


def test_alg1_says_how_long_a_refused_call_would_take_in_readable_units():
    fast = FakeModel(lambda n, rng: np.zeros((n, 2)))  # a model and a DRE of microseconds: a call of milliseconds
    sampler = ApproximateDeletion(fast, FakeDRE(lambda Y: np.zeros(len(Y)), bound=1.0), max_seconds=1e-9)
    with pytest.raises(ValueError) as caught:
        sampler.sample(10**5, rng=0)
    message = str(caught.value)
    assert re.search(r"would take about [0-9.]+ ms here", message), message
    assert "about 0 s" not in message and "max_seconds=1e-09" in message


# ------------------------------------------------------------------------------------------------
# The deletion test: a DRE or a model that returns the wrong thing, bad arguments


def test_the_deletion_test_refuses_a_complex_valued_dre(fitted):
    p, exact = fitted
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning: an error before numpy drops the imaginary part
        with pytest.raises(TypeError, match=r"the DRE returned complex log ratios"):
            DeletionTest(p, FakeDRE(lambda Y: exact.log_ratio(Y) + 0j), n_null=99, rng=0, n_pilot=200)


def test_the_deletion_test_refuses_a_dre_that_turns_complex_after_the_pilot(fitted):
    p, exact = fitted
    calls = []

    def log_ratio(Y):
        calls.append(len(Y))
        return exact.log_ratio(Y) + (0j if len(calls) > 1 else 0.0)

    test = DeletionTest(p, FakeDRE(log_ratio), n_null=99, rng=0, n_pilot=200)
    with pytest.raises(TypeError, match=r"the DRE returned complex log ratios"):
        test.test(p.sample(20, rng=np.random.default_rng(1)))


@pytest.mark.parametrize("log_ratio, said", [(lambda Y: 0.0, "a single number"),
                                             (lambda Y: None, r"None \(does log_ratio lack a return statement\?\)")],
                         ids=["one value for n points", "None"])
def test_the_deletion_test_names_what_the_dre_returned(fitted, log_ratio, said):
    p, _ = fitted
    with pytest.raises(ValueError, match=f"the DRE returned {said} for 200 model samples"):
        DeletionTest(p, FakeDRE(log_ratio), n_null=99, rng=0, n_pilot=200)


def test_the_deletion_test_refuses_a_model_that_draws_the_wrong_shape(fitted):
    p, exact = fitted
    flat = FakeModel(lambda n, rng: p.sample(n, rng=rng)[:, 0])
    with pytest.raises(ValueError, match=r"the model's sample\(200, rng=\.\.\.\) returned an array of shape \(200,\)"):
        DeletionTest(flat, exact, n_null=99, rng=0, n_pilot=200)
    calls = []

    def short_later(n, rng):  # right for the pilot, one point short afterwards
        calls.append(n)
        return p.sample(n if len(calls) == 1 else n - 1, rng=rng)

    test = DeletionTest(FakeModel(short_later), exact, n_null=99, rng=0, n_pilot=200)
    with pytest.raises(ValueError, match=r"the model's sample\(1980, rng=\.\.\.\) returned an array of shape "
                                         r"\(1979, 2\); it must return 1980 samples"):
        test.test(p.sample(20, rng=np.random.default_rng(1)))


@pytest.mark.parametrize("statistic", ["lr", "mmd"])
def test_nan_model_draws_are_called_nan_not_draws_that_coincide(fitted, statistic):
    p, exact = fitted
    nan = FakeModel(lambda n, rng: np.full((n, 2), np.nan))
    with pytest.raises(ValueError, match=r"200 of the model's 200 pilot draws hold NaN or infinite values"):
        DeletionTest(nan, exact if statistic == "lr" else None, statistic=statistic, n_null=99, rng=0, n_pilot=200)
    with pytest.raises(ValueError, match=r"the median heuristic gave NaN: 2 of the 3 points"):
        median_bandwidth(np.array([[0.0, 0.0], [np.nan, 1.0], [np.inf, 0.0]]))


def test_a_negative_seed_is_refused_by_name(fitted):
    p, exact = fitted
    with pytest.raises(ValueError, match=r"rng must be a numpy.random.Generator, a non-negative int seed .*got -1"):
        DeletionTest(p, exact, n_null=99, rng=-1, n_pilot=200)
    test = DeletionTest(p, exact, n_null=99, rng=0, n_pilot=200)
    with pytest.raises(ValueError, match=r"rng must be .*non-negative int seed.*got -1"):
        test.power(exact.retrained_, 20, n_rep=10, rng=-1)


def test_a_ragged_y_is_refused_by_name(fitted):
    p, exact = fitted
    test = DeletionTest(p, exact, n_null=99, rng=0, n_pilot=200)
    with pytest.raises(ValueError, match=r"Y must be an array of m samples of one shape, \(2,\) each"):
        test.test([[0.0, 1.0], [1.0]])


def test_an_alpha_of_1e_300_gets_a_readable_message(fitted):
    p, exact = fitted
    test = DeletionTest(p, exact, n_null=99, rng=0, n_pilot=200)
    with pytest.raises(ValueError) as caught:
        test.test(p.sample(20, rng=np.random.default_rng(1)), alpha=1e-300)
    message = str(caught.value)
    assert "alpha=1e-300 is too small for a Monte-Carlo test" in message and "1e+300" in message
    assert not re.search(r"\d{20}", message) and len(message) < 400, message


# ------------------------------------------------------------------------------------------------
# The §5.1 protocol and sweeps


@pytest.mark.parametrize("value, said", [(0.0, "a single number"), (None, "None")], ids=["one value", "None"])
def test_the_protocol_refuses_a_dre_that_returns_one_value_for_n_points(value, said):
    p = Protocol("mog8", lam=0.5, N=40, m=10, R=3)
    X, deleted, *_ = shared(p)
    dre = KNNClassifierDRE(k=3).fit(X, deleted)
    dre.log_ratio = lambda Y: value  # one value for every set of points: Y_D would follow p_hat
    with pytest.raises(ValueError, match=rf"the DRE's log_ratio\(Y\) returned {said}"):
        log_ratios(p, dre)


class MisshapenDRE(KNNClassifierDRE):
    """A kNN DRE whose log ratios come as a column, shape (n, 1)."""

    def log_ratio(self, Y):
        return super().log_ratio(Y)[:, None]


def test_a_run_of_the_protocol_refuses_a_dre_whose_log_ratios_have_the_wrong_shape():
    with pytest.raises(ValueError, match=r"the DRE's log_ratio\(Y\) returned an array of shape \(2, 1\) for 2 points"):
        synthetic_statistics(Protocol("mog8", lam=0.5, N=40, m=10, R=3), MisshapenDRE(k=3))


@pytest.mark.parametrize("lams", [0.5, "0.5"], ids=["a number", "a string"])
def test_sweep_says_lams_is_a_sequence(lams):
    with pytest.raises(TypeError, match=r"lams must be a sequence of numbers in \(0, 1\], one row each, e.g. "
                                        r"lams=\[0.5\]"):
        sweep(Protocol(N=40, m=10, R=3), [KernelClassifierDRE(bandwidth=0.1)], lams=lams, cache=False, progress=False)


def test_sweep_says_to_pass_a_single_dre_in_a_list():
    with pytest.raises(TypeError, match=r"dres must be a list of DREs.*for one DRE pass \[dre\]"):
        sweep(Protocol(N=40, m=10, R=3), KernelClassifierDRE(bandwidth=0.1), lams=[0.5], cache=False, progress=False)
    with pytest.raises(ValueError, match="dres is empty"):
        sweep(Protocol(N=40, m=10, R=3), [], lams=[0.5], cache=False, progress=False)


def test_sweep_ks_names_the_questions_and_statistics():
    s = sweep(Protocol(N=40, m=10, R=3), [KNNClassifierDRE(k=3)], lams=[0.5], cache=False, progress=False)
    with pytest.raises(ValueError, match=r"question must be one of \('Q1', 'Q2', 'Q3'\).*got 'Q9'"):
        s.ks("Q9")
    with pytest.raises(ValueError, match=r"stat must be one of \('lr', .*got 'mmd'"):
        s.ks("Q1", "mmd")
    assert isinstance(s, Sweep) and s.ks("Q1").shape == (1, 1)


# ------------------------------------------------------------------------------------------------
# The GAN half: DCGAN.sample, Profile, the report


def test_dcgan_sample_of_a_trillion_images_is_refused_before_it_allocates():
    pytest.importorskip("torch")
    from gendel.gan.dcgan import DCGAN

    X = np.random.default_rng(0).uniform(-1, 1, (32, 1, 28, 28)).astype(np.float32)
    gan = DCGAN(epochs=1, latent_dim=8, width=4, batch_size=16, checkpoint_dir=False, progress=False).fit(X)
    with pytest.raises(ValueError, match=r"DCGAN.sample\(m=1000000000000\) .* would hold [0-9.e+]+ TB, more than this "
                                         r"machine's .* of memory: draw the images in parts"):
        quickly(lambda: gan.sample(10**12, rng=0))
    assert gan.sample(3, rng=0).shape == (3, 1, 28, 28)


def test_a_profile_with_an_infinite_bound_is_refused_when_it_is_made():
    pytest.importorskip("torch")
    from gendel.gan.profiles import PROFILES

    with pytest.raises(ValueError, match=r"bound must be a finite number .*got inf"):
        dataclasses.replace(PROFILES["tiny"], bound=float("inf"))


def test_the_report_refuses_zero_seconds_and_an_empty_list_by_name():
    pytest.importorskip("torch")
    from gendel.gan import summaries

    from gendel.gan.result_files import provenance_summary

    c = summaries.Cost("mnist", "even", 0.7, 0, "cpu", 100, np.array([[10.0, 0.5], [20.0, 0.3]]),
                    np.array([[0.0, 0.45], [0.0, 0.25]]), 0.0)
    for speedup in ("speedup_at_equal_quality", "speedup_fixed_epochs"):
        with pytest.raises(ValueError, match=r"fast deletion took 0 cpu seconds in the result of mnist, even, "
                                             r"lam = 0.7, seed 0: a speed-up needs a positive time"):
            getattr(c, speedup)
    with pytest.raises(ValueError, match=r"there are no results of profile 'quick' to summarise"):
        provenance_summary("quick", [])
