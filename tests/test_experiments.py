"""The §5.1 protocol, its cache and sweeps: gendel.synthetic.experiments."""

import copy
import inspect
import math

import numpy as np
import pytest
from scipy import stats as sps

from gendel.core.deletion import ApproximateDeletion
from gendel.core.dre import ExactKDERatio, KernelClassifierDRE, KNNClassifierDRE, make_dre
from gendel.synthetic.experiments import evaluate_on_grid, ratio_maps, sweep, synthetic_statistics
from gendel.synthetic.sampling import KEYS, PAPER, QUESTIONS, Protocol, proposals, setup, shared
from gendel.synthetic.sampling import RATIO_STATISTICS as STATISTICS
from gendel.deletion_test.stats import asc, ks_statistic, likelihood_ratio


def cached(protocol, dre, **kw):
    """One run through the disk cache of :func:`sweep`."""
    return sweep(protocol, [dre], progress=False, **kw).results[0][0]

SMALL = dict(N=200, m=100, R=60)


def assert_same_values(a, b):
    for stat in STATISTICS:
        for key in KEYS:
            np.testing.assert_array_equal(a.values[stat][key], b.values[stat][key])
    assert a.ks == b.ks
    assert a.n_deleted == b.n_deleted and a.acceptance_rate == b.acceptance_rate


def test_paper_settings_are_the_defaults():
    # §5.1: N = m = 400, R = 250, sigma_A = 0.1; a setting left out of a protocol takes them.
    p = Protocol("mog8", lam=0.5)
    assert (p.N, p.m, p.R, p.sigma_a) == (400, 400, 250, 0.1)
    assert PAPER.settings() == dict(dataset="mog8", lam=0.8, N=400, m=400, R=250, sigma_a=0.1, seed=0)
    # one calling convention: every run takes a Protocol and the DRE, nothing else
    assert list(inspect.signature(synthetic_statistics).parameters) == ["protocol", "dre"]


def test_questions_compare_what_section_5_1_compares():
    # Q1: LR(Y_H0, rho_hat) vs LR(Y_H0, rho_hat_E); Q2: LR(Y_H1, rho_hat) vs LR(Y_D, rho_hat);
    # Q3: LR(Y_H0, rho_hat_E) vs LR(Y_H1, rho_hat_E) (Fig. 4 captions; ASC alike with Y_hat).
    assert QUESTIONS == {
        "Q1": (("H0", "exact"), ("H0", "dre")),
        "Q2": (("H1", "exact"), ("D", "exact")),
        "Q3": (("H0", "dre"), ("H1", "dre")),
    }


def test_values_are_lr_and_asc_on_the_sample_sets():
    # Recompute the statistics from the shared sample sets Y_hat, Y_H0, Y_H1 of the run.
    N, m, R = SMALL["N"], SMALL["m"], SMALL["R"]
    r = synthetic_statistics(Protocol("mog8", lam=0.5, seed=11, **SMALL), KNNClassifierDRE(k=5))
    _, _, exact, samples, _, _ = shared(Protocol("mog8", 0.5, N=N, m=m, R=R, sigma_a=0.1, seed=11))
    ratios = {"exact": exact, "dre": r.dre}
    for key in ("H0", "H1"):
        for which, rho in ratios.items():
            log_y = rho.log_ratio(samples[key]).reshape(R, m)
            log_yhat = rho.log_ratio(samples["Yhat"]).reshape(R, m)
            # The run evaluates all points at once: the same sums up to rounding.
            np.testing.assert_allclose(r.lr[key, which], likelihood_ratio(log_y), rtol=0, atol=1e-12)
            for phi in ("log", "tlogt", "hellinger"):
                np.testing.assert_allclose(r.values[f"asc-{phi}"][key, which], asc(log_yhat, log_y, phi), rtol=0,
                                           atol=1e-12)


def test_result_structure_and_ks_values_are_those_of_the_questions():
    r = synthetic_statistics(Protocol("mog8", lam=0.5, seed=1, **SMALL), KNNClassifierDRE(k=5))
    assert set(r.values) == set(STATISTICS)
    for stat in STATISTICS:
        assert set(r.values[stat]) == set(KEYS)
        for key in KEYS:
            assert r.values[stat][key].shape == (SMALL["R"],)
            assert np.all(np.isfinite(r.values[stat][key]) | (r.values[stat][key] == -np.inf))
    for (q, stat), value in r.ks.items():
        a, b = QUESTIONS[q]
        assert value == ks_statistic(r.values[stat][a], r.values[stat][b])
    assert set(r.ks) == {(q, s) for q in QUESTIONS for s in STATISTICS}
    assert r.lr is r.values["lr"] and set(STATISTICS) == {"lr", "asc-log", "asc-tlogt", "asc-hellinger"}
    assert r.settings["lam"] == 0.5 and r.settings["seed"] == 1 and r.settings["N"] == SMALL["N"]
    assert r.dre.n_deleted_ == r.n_deleted


def test_deterministic_for_a_seed():
    p, dre = Protocol("mog8", lam=0.6, seed=3, **SMALL), KernelClassifierDRE(bandwidth=0.2)
    a = synthetic_statistics(p, dre)
    shared.cache_clear()  # recompute the shared samples from scratch
    b = synthetic_statistics(p, dre)
    assert_same_values(a, b)
    c = synthetic_statistics(p.replace(seed=4), dre)
    assert not np.array_equal(a.values["lr"]["H0", "exact"], c.values["lr"]["H0", "exact"])


def test_does_not_modify_the_dre_passed_in():
    dre = KernelClassifierDRE(bandwidth=0.1)
    r = synthetic_statistics(Protocol("ckb8", lam=0.5, seed=0, **SMALL), dre)
    assert not hasattr(dre, "_fitted") and r.dre is not dre


@pytest.mark.parametrize("dataset", ["mog8", "ckb8"])
def test_q1_ks_vanishes_for_kbc_with_sigma_c_equal_sigma_a(dataset):
    # rho_hat_E = rho_hat up to rounding, so the two samples of statistics coincide:
    # their empirical CDFs differ by at most one step 1/R.
    R = SMALL["R"]
    r = synthetic_statistics(Protocol(dataset, lam=0.5, sigma_a=0.1, seed=2, **SMALL), KernelClassifierDRE(bandwidth=0.1))
    for stat in STATISTICS:
        np.testing.assert_allclose(r.values[stat]["H0", "dre"], r.values[stat]["H0", "exact"], rtol=0, atol=1e-9)
        assert r.ks["Q1", stat] <= 1 / R + 1e-12


def test_common_random_numbers_across_dres():
    # Two DREs on one seed see the same X, X', Y_hat, Y_H0, Y_H1: every statistic that uses the
    # exact ratio on those samples is identical; Y_D depends on the DRE.
    a = synthetic_statistics(Protocol("mog8", lam=0.5, seed=5, **SMALL), KernelClassifierDRE(bandwidth=0.1))
    b = synthetic_statistics(Protocol("mog8", lam=0.5, seed=5, **SMALL), KNNClassifierDRE(k=10))
    for stat in STATISTICS:
        for key in (("H0", "exact"), ("H1", "exact")):
            np.testing.assert_array_equal(a.values[stat][key], b.values[stat][key])
    assert a.n_deleted == b.n_deleted
    assert not np.array_equal(a.values["lr"]["D", "exact"], b.values["lr"]["D", "exact"])
    assert not np.array_equal(a.values["lr"]["H0", "dre"], b.values["lr"]["H0", "dre"])


@pytest.fixture(scope="module")
def exact_run():
    return synthetic_statistics(Protocol("mog8", lam=0.5, N=400, m=100, R=200, seed=6), ExactKDERatio(bandwidth=0.1))


def test_q2_with_the_exact_ratio_is_consistent_with_no_difference(exact_run):
    # With rho_hat_E = rho_hat, Alg. 1 samples p_hat' exactly: LR/ASC on Y_D and on Y_H1 are two
    # independent samples of one distribution. Two-sample KS at family-wise level 1e-2.
    r = exact_run
    for stat in STATISTICS:
        p = sps.ks_2samp(r.values[stat]["H1", "exact"], r.values[stat]["D", "exact"]).pvalue
        assert p > 1e-2 / len(STATISTICS), stat


def test_acceptance_rate_in_the_protocol_is_the_kept_fraction(exact_run):
    r = exact_run
    N, m, R = 400, 100, 200
    p = 1 - r.n_deleted / N
    n_proposals = m * R / r.acceptance_rate
    assert abs(r.acceptance_rate - p) < 5 * math.sqrt(p * (1 - p) / n_proposals)


def test_q3_separates_h0_and_h1_with_the_exact_ratio(exact_run):
    # The deletion test works with the exact ratio at lambda = 0.5: LR under H0 (mean -KL) and
    # under H1 (mean +KL) are told apart.
    r = exact_run
    assert sps.ks_2samp(r.lr["H0", "dre"], r.lr["H1", "dre"]).pvalue < 1e-6
    assert r.lr["H0", "dre"].mean() < 0 < r.lr["H1", "dre"].mean()


def test_setup_is_what_the_protocol_uses():
    X, deleted, exact = setup(Protocol("ckb8", lam=0.4, N=150, sigma_a=0.1, seed=7))
    r = synthetic_statistics(Protocol("ckb8", lam=0.4, N=150, m=50, R=20, seed=7), ExactKDERatio(bandwidth=0.1))
    assert r.n_deleted == deleted.sum()
    np.testing.assert_array_equal(r.dre.pretrained_.X_, exact.pretrained_.X_)
    np.testing.assert_array_equal(r.dre.retrained_.X_, X[~deleted])


def test_cached_and_uncached_results_are_identical(tmp_path, monkeypatch):
    monkeypatch.setenv("GENDEL_CACHE_DIR", str(tmp_path))
    p, dre = Protocol("ckb8", lam=0.7, seed=8, **SMALL), KNNClassifierDRE(k=5)
    first = cached(p, dre)  # computes and stores
    files = list(tmp_path.rglob("*.npz"))
    assert len(files) == 1
    loaded = cached(p, dre)  # loads
    assert loaded.dre is None and first.dre is not None
    fresh = synthetic_statistics(p, dre)
    assert_same_values(first, loaded)
    assert_same_values(fresh, loaded)
    # Another configuration gets another file; cache=False writes nothing.
    cached(p.replace(seed=9), dre)
    cached(p.replace(seed=10), dre, cache=False)
    assert len(list(tmp_path.rglob("*.npz"))) == 2


def test_sweep_shapes_labels_and_cells(tmp_path, monkeypatch):
    monkeypatch.setenv("GENDEL_CACHE_DIR", str(tmp_path))
    lams, dres = (0.9, 0.6), [KernelClassifierDRE(bandwidth=0.1), KNNClassifierDRE(k=5), KernelClassifierDRE(bandwidth=0.3)]
    s = sweep(Protocol("mog8", seed=0, **SMALL), dres, lams=lams, labels=("kbc 0.1", "knn 5", "kbc 0.3"), progress=False)
    assert s.lams == lams and s.labels == ("kbc 0.1", "knn 5", "kbc 0.3")
    assert len(s.results) == 2 and all(len(row) == 3 for row in s.results)
    for q in QUESTIONS:
        for stat in STATISTICS:
            assert s.ks(q, stat).shape == (2, 3)
    cell = synthetic_statistics(Protocol("mog8", lam=0.6, seed=0, **SMALL), KNNClassifierDRE(k=5))
    assert_same_values(s.results[1][1], cell)
    assert s.ks("Q1", "lr")[1, 1] == cell.ks["Q1", "lr"]
    assert s.results[0][2].settings["lam"] == 0.9
    assert len(list(tmp_path.rglob("*.npz"))) == 6  # one file per cell
    again = sweep(Protocol("mog8", seed=0, **SMALL), dres, lams=lams, progress=False)  # from the cache
    np.testing.assert_array_equal(again.ks("Q3", "asc-hellinger"), s.ks("Q3", "asc-hellinger"))
    assert again.labels == ("0.1", "5", "0.3")  # the hyper-parameters, read from DRE_CHOICES
    assert again.dres == tuple(dres) and again.family is None  # two families: no common hyper-parameter
    with pytest.raises(ValueError, match="no common hyper-parameter"):
        again.params


def test_ratio_maps_are_the_fitted_ratios_on_the_grid():
    p = Protocol("ckb8", N=120)
    dres = [make_dre("kbc", 0.06), make_dre("knn", 7)]
    maps = ratio_maps(p, dres, lams=(0.6, 0.9), resolution=9)
    assert maps.ratios.shape == (2, 3, 9, 9) and maps.lams == (0.6, 0.9)
    assert maps.labels == ("ρ̂ (exact)", "KBC, σ_C = 0.060", "kNN, k = 7")
    for i, lam in enumerate(maps.lams):
        X, deleted, exact = setup(p.replace(lam=lam))
        _, _, Z = evaluate_on_grid(exact.ratio, (maps.xs[0], maps.xs[-1], maps.ys[0], maps.ys[-1]), 9)
        np.testing.assert_array_equal(maps.at(lam)[0], Z)
        for j, dre in enumerate(dres):
            _, _, Z = evaluate_on_grid(copy.deepcopy(dre).fit(X, deleted).ratio,
                                       (maps.xs[0], maps.xs[-1], maps.ys[0], maps.ys[-1]), 9)
            np.testing.assert_array_equal(maps.ratios[i, 1 + j], Z)
    assert not hasattr(dres[0], "_fitted")  # the DREs passed in stay unfitted


def test_evaluate_on_grid_orientation():
    xs, ys, Z = evaluate_on_grid(lambda P: P[:, 0] + 10 * P[:, 1], (0, 1, 2, 4), resolution=5)
    assert Z.shape == (5, 5)
    np.testing.assert_allclose(xs, np.linspace(0, 1, 5))
    np.testing.assert_allclose(ys, np.linspace(2, 4, 5))
    np.testing.assert_allclose(Z, xs[None, :] + 10 * ys[:, None])


def test_mog8_variance_option_changes_the_data_and_is_refused_for_ckb8():
    # variance=None is the literal reading 0.1; 0.01 is "0.1 is the standard deviation".
    X_default, _, _ = setup(Protocol("mog8", lam=0.8, seed=3))
    X_01, _, _ = setup(Protocol("mog8", lam=0.8, seed=3, variance=0.1))
    X_001, _, _ = setup(Protocol("mog8", lam=0.8, seed=3, variance=0.01))
    np.testing.assert_array_equal(X_default, X_01)
    # same component draws and noise, scaled: distances to the unit circle shrink by sqrt(10)
    r_01 = np.abs(np.linalg.norm(X_01, axis=1) - 1.0).mean()
    r_001 = np.abs(np.linalg.norm(X_001, axis=1) - 1.0).mean()
    assert r_001 < 0.5 * r_01
    r = synthetic_statistics(Protocol("mog8", lam=0.8, seed=3, variance=0.01, **SMALL), KNNClassifierDRE(k=5))
    assert r.settings["variance"] == 0.01
    with pytest.raises(ValueError, match="MoG-8 component variance"):
        synthetic_statistics(Protocol("ckb8", lam=0.8, variance=0.01, **SMALL), KNNClassifierDRE(k=5))


def test_cached_shared_arrays_are_read_only():
    # The in-process cache hands the same X and deletion mask to every DRE of a sweep: a DRE
    # that wrote into its input would corrupt all later runs, so the arrays are frozen.
    X, deleted, *_ = shared(Protocol("mog8", 0.5, N=100, m=20, R=5, seed=2))
    assert not X.flags.writeable and not deleted.flags.writeable


def test_cache_keys_come_from_the_settings_and_the_dre_parameters(tmp_path, monkeypatch):
    monkeypatch.setenv("GENDEL_CACHE_DIR", str(tmp_path))
    r = cached(Protocol("mog8", lam=0.5, N=np.int64(100), m=20, R=5, seed=np.int64(2)), KNNClassifierDRE(k=5))
    assert r.settings["N"] == 100 and isinstance(r.settings["N"], int)

    class Anonymous(KNNClassifierDRE):
        __repr__ = object.__repr__

    # a repr with a memory address does not matter: the key is the class and get_params()
    p = Protocol("mog8", lam=0.5, N=100, m=20, R=5)
    a = cached(p, Anonymous(k=5))
    b = cached(p, Anonymous(k=5))
    assert b.dre is None and a.ks == b.ks and b.protocol == a.protocol

    class NoParams:
        def fit(self, X, deleted):
            return self

        def log_ratio(self, Y):
            return np.zeros(len(Y))

    with pytest.raises(TypeError, match="get_params"):
        cached(p, NoParams())


def test_exact_ratio_q2_is_calibrated_over_seeds():
    # With the exact ratio, Y_D follows p_hat' exactly, so the Q2 comparison LR(Y_H1, rho_hat) vs
    # LR(Y_D, rho_hat) compares two independent samples of one distribution: its two-sample KS
    # p-values over independent seeds are Uniform(0, 1). A one-sample KS test of the 20 p-values
    # at level 1e-3 fails only if the sampler (or the protocol) is biased.
    pvalues = []
    for seed in range(20):
        r = synthetic_statistics(Protocol("mog8", lam=0.5, N=200, m=50, R=60, seed=seed), KernelClassifierDRE(bandwidth=0.1))
        pvalues.append(sps.ks_2samp(r.lr["H1", "exact"], r.lr["D", "exact"]).pvalue)
    assert sps.kstest(pvalues, "uniform").pvalue > 1e-3


# ------------------------------------------------------------------------------------------
# the run reuses what does not depend on the DRE: it equals the straightforward protocol


def straightforward_run(p, dre):
    """The protocol step by step: fit, draw Y_D with Alg. 1, evaluate each sample set on its own."""
    X, deleted, exact, samples, log_exact, d_state = shared(p)
    dre = copy.deepcopy(dre).fit(X, deleted)
    sampler = ApproximateDeletion(exact.pretrained_, dre)
    rng = np.random.default_rng()
    rng.bit_generator.state = d_state
    Y_D = sampler.sample(p.m * p.R, rng=rng)
    log = {(key, "exact"): exact.log_ratio(samples[key]).reshape(p.R, p.m) for key in ("H0", "H1")}
    log["D", "exact"] = exact.log_ratio(Y_D).reshape(p.R, p.m)
    for key in ("H0", "H1"):
        log[key, "dre"] = dre.log_ratio(samples[key]).reshape(p.R, p.m)
    yhat = {"exact": exact.log_ratio(samples["Yhat"]).reshape(p.R, p.m),
            "dre": dre.log_ratio(samples["Yhat"]).reshape(p.R, p.m)}
    values = {"lr": {k: likelihood_ratio(log[k]) for k in KEYS}}
    for phi in ("log", "tlogt", "hellinger"):
        values[f"asc-{phi}"] = {k: asc(yhat[k[1]], log[k], phi) for k in KEYS}
    ks = {(q, stat): ks_statistic(values[stat][a], values[stat][b]) for q, (a, b) in QUESTIONS.items()
          for stat in STATISTICS}
    return values, ks, sampler


def assert_equals_straightforward(result, p, dre):
    values, ks, sampler = straightforward_run(p, dre)
    for stat in STATISTICS:
        for key in KEYS:
            np.testing.assert_allclose(result.values[stat][key], values[stat][key], rtol=0, atol=1e-12)
    assert result.ks == ks
    assert result.acceptance_rate == sampler.acceptance_rate_


class _ScaledKBC(KernelClassifierDRE):
    """A KBC with its ratio multiplied by ``factor``: below 1 Alg. 1 needs several batches, above 1
    the ratio exceeds B somewhere."""

    def __init__(self, *, bandwidth, factor=0.5):
        super().__init__(bandwidth=bandwidth)
        self.factor = factor

    def _log_ratio(self, Y):
        return super()._log_ratio(Y) + np.log(self.factor)


@pytest.mark.parametrize("dataset", ["mog8", "ckb8"])
@pytest.mark.parametrize("seed", [0, 5])
@pytest.mark.parametrize("dre", [KernelClassifierDRE(bandwidth=0.07), KernelClassifierDRE(bandwidth=0.2),
                                 KNNClassifierDRE(k=3), "logreg"])
def test_run_equals_the_straightforward_protocol(dataset, seed, dre):
    dre = make_dre("logreg") if dre == "logreg" else dre
    p = Protocol(dataset, 0.7, N=150, m=50, R=6, seed=seed)
    assert_equals_straightforward(synthetic_statistics(p, dre), p, dre)


def test_run_equals_the_straightforward_protocol_at_the_panel_setting():
    p = Protocol("mog8", 0.8, N=400, m=400, R=25)
    for dre in (KernelClassifierDRE(bandwidth=0.1), KernelClassifierDRE(bandwidth=0.03), KNNClassifierDRE(k=10)):
        assert_equals_straightforward(synthetic_statistics(p, dre), p, dre)


def test_run_equals_the_straightforward_protocol_when_alg1_needs_several_batches():
    p = Protocol("mog8", 0.7, N=150, m=50, R=6, seed=2)
    dre = _ScaledKBC(bandwidth=0.1, factor=0.5)  # acceptance rate about half of 1 / B
    result = synthetic_statistics(p, dre)
    _, _, sampler = straightforward_run(p, dre)
    first = proposals(p, sampler.bound_)
    assert sampler.n_proposals_ > len(first["u"])  # the path beyond the shared first batch
    assert_equals_straightforward(result, p, dre)


def test_a_ratio_above_the_bound_warns_as_alg1_does():
    p = Protocol("ckb8", 0.7, N=150, m=50, R=6)
    dre = _ScaledKBC(bandwidth=0.1, factor=3.0)
    with pytest.warns(RuntimeWarning, match="exceeded B"):
        result = synthetic_statistics(p, dre)
    with pytest.warns(RuntimeWarning, match="exceeded B"):
        assert_equals_straightforward(result, p, dre)
