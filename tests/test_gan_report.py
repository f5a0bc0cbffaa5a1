"""The numbers and verdicts of the GAN chapter (gendel.gan.report), on constructed results
whose answers are known."""

from __future__ import annotations

import numpy as np
import pytest

from gendel.core.deletion import ApproximateDeletion
from gendel.gan import report
from gendel.core.models import EmpiricalModel


def make_result(dataset="mnist", setting="even", lam=0.7, seed=0, *, pre=None, re=None, approx=None,
                ks=None, timings=None, m=1000):
    pre = pre if pre is not None else [100] * 10
    return {
        "job": {"dataset": dataset, "setting": setting, "lam": lam, "seed": seed, "name": f"{dataset}-{setting}-{seed}"},
        "profile": {"m_labels": m, "gan_epochs": 10, "vdm_epochs": 5},
        "hardware": {"device": "CPU (test)"},
        "labels": {"pre": pre, "re": re if re is not None else pre, "approx": approx if approx is not None else pre},
        "q3": {"ks": ks or {"LR": 1.0, "ASC log": 0.9, "ASC tlogt": 0.9},
               "values": {s: {"H0": [0.0, 0.1], "H1": [1.0, 1.1]} for s in report.STATISTICS}},
        "timings": timings or {"retrain": 100.0, "vdm": 10.0, "overhead_per_accepted": 0.001},
    }


EVEN_HALVED = [50, 100] * 5          # even labels at half their mass
EVEN_THREE_QUARTERS = [75, 100] * 5


def test_tv_distance_and_gap_closed():
    p, q = report.proportions([1, 1, 0]), report.proportions([0, 1, 1])
    assert report.tv_distance(p, q) == pytest.approx(0.5)
    assert report.gap_closed(p, q, q) == pytest.approx(1.0)
    assert report.gap_closed(p, q, p) == pytest.approx(0.0)
    assert report.gap_closed(p, q, (p + q) / 2) == pytest.approx(0.5)


def test_deleted_labels_and_bad_setting():
    assert report.deleted_labels("even").tolist() == [0, 2, 4, 6, 8]
    assert report.deleted_labels("odd").tolist() == [1, 3, 5, 7, 9]
    with pytest.raises(ValueError, match="even"):
        report.deleted_labels("prime")


def test_label_summary_means_and_standard_errors_over_seeds():
    rs = [make_result(seed=0, approx=[60, 100] * 5, re=EVEN_HALVED),
          make_result(seed=1, approx=[80, 100] * 5, re=EVEN_HALVED)]
    (s,) = report.label_summary(rs)
    assert s.seeds == 2
    expected = np.mean([report.proportions([60, 100] * 5), report.proportions([80, 100] * 5)], axis=0)
    np.testing.assert_allclose(s.mean["approx"], expected)
    assert np.all(s.sem["approx"] > 0) and np.all(s.sem["pre"] == 0)
    assert np.all(s.deleted_mass["pre"] == 0.5)
    assert s.deleted_mass["approx"].mean() < 0.5


def test_claims_hold_partly_and_fail_on_constructed_results():
    good = [make_result(setting=s, re=EVEN_HALVED if s == "even" else EVEN_HALVED[::-1],
                        approx=EVEN_HALVED if s == "even" else EVEN_HALVED[::-1]) for s in ("even", "odd")]
    bad = [make_result(setting="even", re=EVEN_HALVED, approx=[100] * 10)]
    half = [good[0], make_result(setting="odd", re=EVEN_HALVED[::-1], approx=[100] * 10)]
    assert report.claim_fewer_deleted_labels(report.label_summary(good)).verdict == "holds"
    assert report.claim_fewer_deleted_labels(report.label_summary(bad)).verdict == "does not hold"
    assert report.claim_close_to_retrained(report.label_summary(good)).verdict == "holds"
    assert report.claim_close_to_retrained(report.label_summary(half)).verdict == "partly"
    # an approximated model a quarter of the way to the re-trained one is not "close"
    quarter = [make_result(setting="even", re=EVEN_HALVED, approx=[87.5, 100] * 5)]
    assert report.claim_close_to_retrained(report.label_summary(quarter)).verdict == "does not hold"


def test_variance_claim_needs_two_seeds_and_compares_settings():
    one_seed = [make_result(setting=s) for s in ("even", "odd")]
    assert report.claim_odd_variance_higher(report.label_summary(one_seed)).verdict == "not tested"
    spread = [make_result(setting="odd", seed=0, approx=[100, 60] * 5), make_result(setting="odd", seed=1, approx=[100, 90] * 5),
              make_result(setting="even", seed=0, approx=[70, 100] * 5), make_result(setting="even", seed=1, approx=[72, 100] * 5)]
    assert report.claim_odd_variance_higher(report.label_summary(spread)).verdict == "holds"
    swapped = [make_result(setting="even" if r["job"]["setting"] == "odd" else "odd", seed=r["job"]["seed"],
                           approx=r["labels"]["approx"]) for r in spread]
    assert report.claim_odd_variance_higher(report.label_summary(swapped)).verdict == "does not hold"


def test_test_claims_read_the_ks_table():
    rs = [make_result("mnist", "even", ks={"LR": 0.95, "ASC log": 0.9, "ASC tlogt": 0.8}),
          make_result("mnist", "odd", ks={"LR": 0.99, "ASC log": 0.99, "ASC tlogt": 0.5}),
          make_result("fashion-mnist", "even", ks={"LR": 0.5, "ASC log": 0.7, "ASC tlogt": 0.4})]
    assert report.claim_separation(rs).verdict == "partly"
    assert report.claim_lr_better_than_asc(rs).verdict == "partly"
    assert report.claim_odd_separates_better(rs).verdict == "holds"
    assert report.claim_fashion_harder(rs).verdict == "holds"
    assert report.claim_smaller_lambda_not_more_separation(rs).verdict == "not tested"


def test_lambda_claim_fails_when_separation_grows_as_lambda_falls():
    falls = [make_result(lam=lam, ks={"LR": ks, "ASC log": 0, "ASC tlogt": 0}) for lam, ks in ((0.6, 0.9), (0.9, 0.3))]
    assert report.claim_smaller_lambda_not_more_separation(falls).verdict == "does not hold"
    rises = [make_result(lam=lam, ks={"LR": ks, "ASC log": 0, "ASC tlogt": 0}) for lam, ks in ((0.6, 0.3), (0.9, 0.9))]
    assert report.claim_smaller_lambda_not_more_separation(rises).verdict == "holds"


def test_cost_speedup_and_extrapolation():
    (c,) = report.costs([make_result(timings={"retrain": 100.0, "vdm": 10.0, "overhead_per_accepted": 0.001}, m=1000)])
    assert c.fast_deletion == pytest.approx(11.0)
    assert c.speedup == pytest.approx(100 / 11)
    # 10 GAN epochs took 100 s and 5 VDM epochs 10 s: at 200 and 40 epochs, 2000 s against 80 s + 50 s
    assert c.speedup_at() == pytest.approx(2000 / (80 + 0.001 * 50_000))
    assert report.claim_fast([make_result()]).verdict == "holds"
    slow = make_result(timings={"retrain": 10.0, "vdm": 9.0, "overhead_per_accepted": 0.0})
    assert report.claim_fast([slow]).verdict == "does not hold"


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
        expected, rate = report.bound_label_distribution(labels, log_ratio, bound)
        sampler = ApproximateDeletion(model, LookupDRE(), bound=bound)
        with pytest.warns(RuntimeWarning) if bound == 1.0 else _no_warning():
            Y = sampler.sample(40_000, rng=np.random.default_rng(1))
        got = np.bincount(labels[Y[:, 0]], minlength=10) / len(Y)
        np.testing.assert_allclose(got, expected, atol=0.012)
        assert sampler.acceptance_rate_ == pytest.approx(rate, rel=0.03)
    # the check can fail: clipping at B = 1 moves the distribution back towards the unweighted one
    clipped, _ = report.bound_label_distribution(labels, log_ratio, 1.0)
    exact, _ = report.bound_label_distribution(labels, log_ratio, 10.0)
    assert report.tv_distance(clipped, exact) > 0.05


class _no_warning:
    def __enter__(self):
        import warnings

        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("error", RuntimeWarning)

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


def test_stored_gpu_results_belong_to_the_gpu_profile():
    """The shipped gpu results were made with today's gpu profile, on a GPU, for every job."""
    import dataclasses
    import json

    from gendel.gan import PROFILES, protocol

    results = protocol.stored_results("gpu")
    assert [r["job"]["name"] for r in results] == [j.name for j in protocol.jobs("gpu")]
    for r in results:
        assert r["profile"] == json.loads(json.dumps(dataclasses.asdict(PROFILES["gpu"])))
        assert r["hardware"]["device_type"] == "cuda"
        assert set(r["arrays"]) >= {"pre_labels", "pre_log_ratio", "grid_pre", "grid_re", "grid_approx"}
        assert sum(r["labels"]["approx"]) == PROFILES["gpu"].m_labels


def test_class_reweighted_is_the_data_ratio_applied_to_the_labels():
    uniform = np.full(10, 0.1)
    even = report.class_reweighted(uniform, "even", 0.7)
    assert even[0] == pytest.approx(0.07 / 0.85) and even[1] == pytest.approx(0.1 / 0.85)
    assert even[[0, 2, 4, 6, 8]].sum() == pytest.approx(0.35 / 0.85)
    odd = report.class_reweighted(uniform, "odd", 0.7)
    np.testing.assert_allclose(odd, even[[1, 0, 3, 2, 5, 4, 7, 6, 9, 8]])
    (s,) = report.label_summary([make_result(re=[70, 100] * 5, approx=[70, 100] * 5)])
    assert s.tv_ideal_re[0] == pytest.approx(0) and s.tv_approx_ideal[0] == pytest.approx(0)


def _shifted(dataset="mnist", setting="even", lr=40, asc=30, R=40, seed=0):
    """A Q3 result whose H1 values are H0 = 0..R-1 shifted: KS = shift / R for each statistic."""
    r = make_result(dataset, setting, seed=seed)
    shifts = {"LR": lr, "ASC log": asc, "ASC tlogt": asc}
    r["q3"] = {"values": {s: {"H0": np.arange(R) * 1.0, "H1": np.arange(R) + float(k)} for s, k in shifts.items()},
               "ks": {s: min(k, R) / R for s, k in shifts.items()}}
    return r


def test_ks_claims_need_a_difference_beyond_the_noise_margin():
    # a KS difference of 0.025 with R = 40 repeats is inside the bootstrap margin: not supported
    inside = {"odd": report.claim_odd_separates_better([_shifted(setting="even", lr=20), _shifted(setting="odd", lr=21)]),
              "fashion": report.claim_fashion_harder([_shifted("mnist", lr=21), _shifted("fashion-mnist", lr=20)]),
              "asc": report.claim_lr_better_than_asc([_shifted(lr=21, asc=20)])}
    for c in inside.values():
        assert c.verdict == "not resolved at this sample size"
        assert "±" in c.numbers
    # a difference of 0.5 is far outside it: supported; the reverse difference: rejected
    assert report.claim_odd_separates_better([_shifted(setting="even", lr=20), _shifted(setting="odd", lr=40)]).verdict == "holds"
    assert report.claim_odd_separates_better([_shifted(setting="even", lr=40), _shifted(setting="odd", lr=20)]).verdict == "does not hold"
    assert report.claim_fashion_harder([_shifted("mnist", lr=40), _shifted("fashion-mnist", lr=20)]).verdict == "holds"
    assert report.claim_lr_better_than_asc([_shifted(lr=40, asc=20)]).verdict == "holds"
    assert report.claim_lr_better_than_asc([_shifted(lr=20, asc=40)]).verdict == "does not hold"


def test_ks_bootstrap_margin_shrinks_with_more_repeats():
    from gendel.claims.gan import _margin, ks_bootstrap

    def margin(R):
        boot = ks_bootstrap([_shifted(lr=R // 2, R=R)])
        return _margin(boot[("mnist", "even", 0.7)]["LR"])
    assert margin(40) > 1.5 * margin(400) > 0


def test_variance_claim_needs_a_difference_beyond_the_noise_margin():
    # standard errors over two seeds of 0.0078 and 0.0079 (the quick profile's MNIST numbers) are
    # indistinguishable; 0.002 against 0.02 are not
    def pair(setting, a, b):
        high = [100 + a, 100] * 5 if setting == "even" else [100, 100 + a] * 5
        low = [100 + b, 100] * 5 if setting == "even" else [100, 100 + b] * 5
        return [make_result(setting=setting, seed=0, approx=high), make_result(setting=setting, seed=1, approx=low)]
    close = report.claim_odd_variance_higher(report.label_summary(pair("even", 10, 0) + pair("odd", 10.2, 0)))
    assert close.verdict == "not resolved at this sample size" and "±" in close.numbers
    far = report.claim_odd_variance_higher(report.label_summary(pair("even", 2, 0) + pair("odd", 40, 0)))
    assert far.verdict == "holds"
    from gendel.claims.gan import margin_verdict
    assert margin_verdict([0.0001], [0.005]) != "holds" and margin_verdict([0.05], [0.005]) == "holds"
