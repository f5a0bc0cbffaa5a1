"""From GAN results to the chapter's numbers (gendel.gan.summaries) and the noise-aware claims
(gendel.claims.gan), on constructed results whose answers are known."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

from gendel.claims import base as B  # noqa: E402
from gendel.claims.gan import claims as gan_claims  # noqa: E402
from gendel.claims import gan_q2 as Q2  # noqa: E402
from gendel.claims import gan_q3 as Q3  # noqa: E402
from gendel.core.deletion import ApproximateDeletion  # noqa: E402
from gendel.core.models import EmpiricalModel  # noqa: E402
from gendel.deletion_test.stats import ks_statistic  # noqa: E402
from gendel.gan import summaries  # noqa: E402
from gendel.gan.labels import achieved_shift, bound_label_distribution, class_reweighted, deleted_labels, deleted_mass, sampling_tv, tv_distance  # noqa: E402
from gendel.gan.profiles import Job  # noqa: E402
from gendel.gan.result_files import JobResult  # noqa: E402


def make_result(dataset="mnist", setting="even", lam=0.7, seed=0, *, labels=None, stats=None, m=1000):
    """A JobResult with the fields the report reads; labels: model -> 10 counts."""
    data_all = np.full(10, 800)
    kept = data_all.copy()
    kept[deleted_labels(setting)] = np.floor(lam * 800 + 0.5)
    labels = labels or {k: np.full(10, m // 10) for k in ("pre", "re", "approx", "control")}
    stats = stats or {s: {"h0": np.arange(40.0), "h1": np.arange(40.0) + 20, "control": np.arange(40.0) + 2}
                      for s in ("lr", "asc-log", "asc-tlogt")}
    ks = {s: {w: ks_statistic(v["h0"], v[w]) for w in ("h1", "control")} for s, v in stats.items()}
    return JobResult(version=2, job=Job("quick", dataset, setting, lam, seed), profile={"name": "quick", "m_labels": m},
                     provenance={"fingerprint": "x"}, data={"label_counts_X": data_all, "label_counts_kept": kept},
                     classifier={}, labels={k: np.asarray(v) for k, v in labels.items()}, sampling={}, reweighted=None,
                     q3={"m": 500, "R": 40, "statistics": stats, "ks": ks}, curves=None, timings={}, losses={},
                     arrays={})


def even_mass(q):
    """Label counts (1000 samples) with a share q on the even labels."""
    return np.array([round(1000 * q / 5), round(1000 * (1 - q) / 5)] * 5)


def test_tv_distance_deleted_mass_and_the_exact_shift():
    assert tv_distance([0.5, 0.5, 0.0], [0.0, 0.5, 0.5]) == pytest.approx(0.5)
    (s,) = summaries.label_summary([make_result(lam=0.7)])
    # X: equal labels; X \ X': even labels at 0.7 of their count -> δ = 0.35 / 0.85
    assert s.exact_shift == pytest.approx(0.35 / 0.85 - 0.5, abs=1e-3)
    assert float(deleted_mass(s.data_kept, "even")) == pytest.approx(0.35 / 0.85, abs=1e-3)
    with pytest.raises(ValueError, match="even"):
        deleted_labels("all")


def test_class_reweighted_is_the_data_ratio_applied_to_the_labels():
    (s,) = summaries.label_summary([make_result(lam=0.6)])
    np.testing.assert_allclose(class_reweighted(s.data_all, "even", 0.6), s.data_kept, atol=1e-3)


def test_label_summary_means_standard_errors_and_controls_over_seeds():
    rs = [make_result(seed=k, labels={"pre": even_mass(0.5), "re": even_mass(q), "approx": even_mass(0.45),
                                      "control": even_mass(0.5)}) for k, q in enumerate((0.40, 0.42, 0.44))]
    (s,) = summaries.label_summary(rs)
    assert s.seeds == (0, 1, 2) and s.dist["re"].shape == (3, 10)
    np.testing.assert_allclose(s.mass("re"), [0.40, 0.42, 0.44])
    np.testing.assert_allclose(s.shift("approx"), [-0.05] * 3)
    # the re-trained models of two seeds differ by training alone: their pairwise TVs
    assert s.tv_between_seeds("re") == pytest.approx([0.02, 0.04, 0.02])
    assert s.sem("re")[0] == pytest.approx(np.std([0.08, 0.084, 0.088], ddof=1) / np.sqrt(3))


def test_sampling_tv_follows_the_multinomial_noise():
    small, _ = sampling_tv(np.full(10, 0.1), 1000)
    large, _ = sampling_tv(np.full(10, 0.1), 100_000)
    # E|p̂ - q̂| for two samples of m scales like 1/√m
    assert small / large == pytest.approx(10.0, rel=0.1)


def test_achieved_shift_is_one_for_the_exact_ratio_and_matches_alg1_on_a_pool():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 10, 4000)
    exact = np.where(labels % 2 == 0, 0.7, 1.0)   # the data ratio (up to a constant) of even-0.7
    counts = np.bincount(labels, minlength=10)
    weights = np.bincount(labels, weights=exact, minlength=10)
    assert achieved_shift(weights, counts, "even", 0.7) == pytest.approx(1.0)
    half = np.where(labels % 2 == 0, np.sqrt(0.7), 1.0)   # half of the log ratio
    w_half = np.bincount(labels, weights=half, minlength=10)
    share = achieved_shift(w_half, counts, "even", 0.7)
    assert 0.4 < share < 0.6
    # Independently: Alg. 1 on the pool with that ratio accepts labels in those proportions.

    class Lookup:
        def log_ratio(self, Y):
            return np.log(half[np.asarray(Y)[:, 0].astype(int)])

    sampler = ApproximateDeletion(EmpiricalModel(np.arange(4000)[:, None]), Lookup(), bound=1.0)
    Y = sampler.sample(60_000, rng=np.random.default_rng(1))
    accepted = np.bincount(labels[Y[:, 0]], minlength=10)
    assert achieved_shift(accepted.astype(float), counts, "even", 0.7) == pytest.approx(share, abs=0.05)


def test_bound_label_distribution_matches_alg1():
    """The weighted label distribution equals what Alg. 1 accepts, by rejection sampling itself."""
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 10, 5000)
    log_ratio = np.where(labels % 2 == 0, np.log(0.5), np.log(1.5)) + 0.1 * rng.standard_normal(5000)

    class LookupDRE:  # the stored ratio of each stored sample (rows carry their index)
        def log_ratio(self, Y):
            return log_ratio[np.asarray(Y)[:, 0].astype(int)]

    model = EmpiricalModel(np.arange(5000)[:, None])
    for bound in (10.0, 1.0):
        expected, rate = bound_label_distribution(labels, log_ratio, bound)
        sampler = ApproximateDeletion(model, LookupDRE(), bound=bound)
        with pytest.warns(RuntimeWarning) if bound == 1.0 else _no_warning():
            Y = sampler.sample(40_000, rng=np.random.default_rng(1))
        got = np.bincount(labels[Y[:, 0]], minlength=10) / len(Y)
        np.testing.assert_allclose(got, expected, atol=0.012)
        assert sampler.acceptance_rate_ == pytest.approx(rate, rel=0.03)
    # the check can fail: clipping at B = 1 moves the distribution back towards the unweighted one
    clipped, _ = bound_label_distribution(labels, log_ratio, 1.0)
    exact, _ = bound_label_distribution(labels, log_ratio, 10.0)
    assert tv_distance(clipped, exact) > 0.05


class _no_warning:
    def __enter__(self):
        import warnings

        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("error", RuntimeWarning)

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


def test_cost_at_equal_quality_interpolates_between_epochs():
    c = summaries.Cost("mnist", "even", 0.7, 0, "cpu", 100, np.array([[10.0, 0.5], [20.0, 0.3], [30.0, 0.2]]),
                    np.array([[4.0, 0.45], [5.0, 0.25]]), 2.0)
    assert c.retrain_seconds_to_reach(0.25) == pytest.approx(25.0)      # half way from 0.3 to 0.2
    assert c.speedup_at_equal_quality == pytest.approx(5.0)
    assert c.retrain_seconds_to_reach(0.1) == np.inf                    # never within its epochs
    assert c.speedup_fixed_epochs == pytest.approx(6.0)


def test_ks_summary_and_bootstrap_noise():
    rs = [make_result(seed=k) for k in range(3)]
    (lr, *_) = summaries.ks_summary(rs)
    assert lr.stat == "lr" and lr.ks == pytest.approx([0.5] * 3) and lr.ks_control == pytest.approx([0.05] * 3)
    se_40 = summaries.ks_bootstrap_se(np.arange(40.0), np.arange(40.0) + 10)
    se_400 = summaries.ks_bootstrap_se(np.arange(0, 40, 0.1), np.arange(0, 40, 0.1) + 10)
    assert se_400 < se_40 / 2     # about 1/√10


# ---- the claims, with noise and the control ------------------------------------------------


def summary_of(approx_q, control_q, re_qs=(0.42, 0.43, 0.41)):
    rs = [make_result(seed=k, labels={"pre": even_mass(0.5), "re": even_mass(q), "approx": even_mass(approx_q),
                                      "control": even_mass(control_q)}) for k, q in enumerate(re_qs)]
    return summaries.label_summary(rs)


def test_fewer_deleted_labels_is_a_one_sided_test_over_the_seeds():
    assert Q2.claim_fewer_deleted_labels(summary_of(0.44, 0.5)).verdict == "holds"
    assert Q2.claim_fewer_deleted_labels(summary_of(0.495, 0.5)).verdict == "not resolved at this sample size"
    assert Q2.claim_fewer_deleted_labels(summary_of(0.56, 0.5)).verdict == "does not hold"


def test_claims_scoped_to_one_data_set_read_only_that_data_set():
    rs = [make_result(dataset=d, setting=s, seed=k) for d in ("mnist", "fashion-mnist") for s in ("even", "odd")
          for k in range(2)]
    ks = summaries.ks_summary(rs)
    assert {c.label.split()[0] for c in Q3.claim_lr_better_than_asc(ks).details["cases"]} == {"MNIST"}
    assert {c.label.split()[0] for c in Q3.claim_no_lr_asc_difference(ks).details["cases"]} == {"Fashion-MNIST"}
    assert all(c.label.startswith("MNIST") for c in Q3.claim_odd_separates_better(ks).details["cases"])


def test_every_claim_runs_on_the_stored_results():
    from gendel.gan.result_files import stored_results

    table = gan_claims(stored_results("gpu"))
    assert len(table) == 11 and all(c.verdict in B.VERDICTS for c in table)
    assert {c.key for c in table} >= {"fewer_deleted_labels", "close_to_retrained", "separation", "fast"}
