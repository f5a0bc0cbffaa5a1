"""The §5.1 protocol as one settings object: gendel.synthetic.sampling.Protocol."""

import dataclasses

import numpy as np
import pytest

from gendel.core import deletion
from gendel.synthetic import experiments, sampling
from gendel.core.dre import KernelClassifierDRE, KNNClassifierDRE
from gendel.synthetic.sampling import PAPER, Protocol

SMALL = dict(N=60, m=20, R=4)


def test_settings_are_normalised_and_checked_once():
    p = Protocol("CKB-8", 1, N=60, seed=3)
    assert p.dataset == "ckb8" and p.lam == 1.0 and isinstance(p.lam, float)
    for bad, message in [
        (dict(dataset="mog9"), "dataset"),
        (dict(lam=0.0), "(0, 1]"),
        (dict(N=1), "N"),
        (dict(R=1), "R"),
        (dict(sigma_a=-0.1), "sigma_a"),
        (dict(sigma_a=1e-200), "sigma_a=1e-200"),
        (dict(seed=-1), "seed"),
        (dict(dataset="ckb8", variance=0.01), "MoG-8 component variance"),
    ]:
        with pytest.raises((ValueError, TypeError), match=message.replace("(", r"\(").replace("]", r"\]")):
            Protocol(**{"dataset": "mog8", "lam": 0.5, **bad})


def test_a_protocol_is_frozen_hashable_and_a_key():
    a, b = Protocol("mog8", 0.5, **SMALL), Protocol("MoG-8", 0.5, **SMALL)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != a.replace(seed=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.lam = 0.6
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        a.replace(lam=2.0)


def test_paper_protocol_holds_section_5_1_settings():
    assert (PAPER.N, PAPER.m, PAPER.R, PAPER.sigma_a, PAPER.seed) == (400, 400, 250, 0.1, 0)
    assert Protocol("mog8", lam=0.8) == PAPER


def test_every_run_takes_its_settings_as_one_protocol():
    p = Protocol("mog8", lam=0.6, seed=5, **SMALL)
    a = experiments.synthetic_statistics(p, KNNClassifierDRE(k=5))
    assert a.protocol == p and a.settings == {**p.settings(), "dre": "KNNClassifierDRE(k=5)"}
    s = experiments.sweep(p.replace(lam=0.9), [KNNClassifierDRE(k=5)], lams=[0.6], cache=False, progress=False)
    for stat in sampling.RATIO_STATISTICS:
        for key in sampling.KEYS:
            np.testing.assert_array_equal(a.values[stat][key], s.results[0][0].values[stat][key])
    # the keyword convention is gone: a data set name where a Protocol belongs says what to pass
    for call in (lambda: experiments.synthetic_statistics("mog8", KNNClassifierDRE(k=5)),
                 lambda: experiments.sweep("mog8", [KNNClassifierDRE(k=5)], lams=[0.6]),
                 lambda: sampling.setup("mog8"),
                 lambda: experiments.ratio_maps("mog8", [KNNClassifierDRE(k=5)])):
        with pytest.raises(TypeError, match=r'expected a Protocol, e.g. Protocol\("mog8", lam=0.6'):
            call()


def test_each_lambda_of_a_sweep_reaches_the_deletion_mask(monkeypatch):
    """A sweep's lambdas, as given, are the ones the deletion masks are drawn with."""
    from gendel.synthetic import data

    seen = []
    real = data.deletion_mask
    monkeypatch.setattr(data, "deletion_mask", lambda dataset, component, lam, **kw: seen.append(lam) or
                        real(dataset, component, lam, **kw))
    experiments.sweep(Protocol("ckb8", **SMALL), [KNNClassifierDRE(k=3)], lams=[0.55, 0.65], cache=False,
                      progress=False)
    assert sorted(set(seen)) == [0.55, 0.65]  # each lambda of the sweep, as given (setup runs once more in shared)


def test_the_in_memory_cache_is_keyed_by_protocol():
    sampling.shared.cache_clear()
    p = Protocol("ckb8", 0.7, **SMALL)
    first = sampling.shared(p)
    assert sampling.shared(Protocol("CKB-8", 0.7, **SMALL)) is first
    assert sampling.shared(p.replace(seed=1)) is not first


def test_sampler_limit_is_checked_before_the_samples_are_drawn(monkeypatch):
    calls = []
    monkeypatch.setattr(sampling, "shared", lambda p: calls.append(p))
    monkeypatch.setattr(deletion, "MAX_DEFAULT_PROPOSALS", 1000)
    with pytest.raises(ValueError, match=r"m \* R = 200 \* 10 = 2000 samples"):
        experiments.synthetic_statistics(Protocol("mog8", lam=0.5, N=60, m=200, R=10), KernelClassifierDRE(bandwidth=0.1))
    assert calls == []  # refused before the expensive part


def test_sweep_and_variation_settings_are_checked_before_any_run(monkeypatch):
    calls = []
    monkeypatch.setattr(experiments, "synthetic_statistics", lambda *a, **k: calls.append(a))
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        experiments.sweep(Protocol("mog8", **SMALL), [KNNClassifierDRE(k=3)], lams=[0.5, 1.5])
    with pytest.raises(ValueError, match="'bad' changes \\['sigma_a'\\]"):
        experiments.variation_sweeps(Protocol("mog8", lam=0.8), {"m = 200": {"m": 200}, "bad": {"sigma_a": 0.2}})
    with pytest.raises(ValueError, match="R"):
        experiments.variation_sweeps(Protocol("mog8", lam=0.8), {"R = 1": {"R": 1}})
    assert calls == []


def test_first_proposals_are_shared_by_all_classifier_dres_and_read_only():
    p = Protocol("mog8", 0.6, **SMALL)
    X, deleted, _, _, _, _ = sampling.shared(p)
    bounds = {dre.fit(X, deleted).ratio_bound_ for dre in (KernelClassifierDRE(bandwidth=0.1), KNNClassifierDRE(k=3))}
    assert len(bounds) == 1  # N / (N - N') for every classifier DRE
    bound = bounds.pop()
    first = sampling.proposals(p, bound)
    assert sampling.proposals(Protocol("MoG-8", 0.6, **SMALL), bound) is first  # cached by protocol and B
    for key in ("Y", "u", "log_exact", "points", "order"):
        assert not first[key].flags.writeable
    n = p.m * p.R
    assert sorted(first["order"]) == list(range(3 * n + len(first["u"])))


def test_the_dre_is_evaluated_once_per_run_on_all_points():
    p = Protocol("ckb8", 0.6, **SMALL)
    X, deleted, _, _, _, _ = sampling.shared(p)
    calls = []

    class Counting(KernelClassifierDRE):
        def _log_ratio(self, Y):
            calls.append(len(Y))
            return super()._log_ratio(Y)

    dre = Counting(bandwidth=0.1).fit(X, deleted)
    log, yhat, rate = sampling.log_ratios(p, dre)
    first = sampling.proposals(p, dre.ratio_bound_)
    assert calls[0] == len(first["points"])
    assert len(calls) == 1 or rate < 1 / dre.ratio_bound_ / 1.2  # more batches only when Alg. 1 accepts too few
    samples = sampling.shared(p)[3]
    np.testing.assert_allclose(log["H1", "dre"], dre.log_ratio(samples["H1"]).reshape(p.R, p.m), rtol=0, atol=1e-12)
    np.testing.assert_allclose(yhat["dre"], dre.log_ratio(samples["Yhat"]).reshape(p.R, p.m), rtol=0, atol=1e-12)


def test_pruned_kernel_sums_equal_a_dense_evaluation_on_the_protocol_points():
    # Kernel sums leave out centres whose terms are below 1e-16 of the sum: the ratios stay
    # those of the dense formula (Example 1) up to rounding.
    from scipy.special import logsumexp

    p = Protocol("mog8", 0.7, N=200, m=100, R=10)
    X, deleted, exact, _, _, _ = sampling.shared(p)
    Y = sampling.proposals(p, exact.ratio_bound_)["points"]
    for bandwidth in (0.03, 0.1, 0.3):
        kbc = KernelClassifierDRE(bandwidth=bandwidth).fit(X, deleted)
        expo = -((Y[:, None, :] - X[None]) ** 2).sum(-1) / (2 * bandwidth**2)
        log_del, log_kept = logsumexp(expo[:, deleted], axis=1), logsumexp(expo[:, ~deleted], axis=1)
        want = np.log(len(X) / (~deleted).sum()) + log_kept - np.logaddexp(log_del, log_kept)  # eq. (3) in (1)
        np.testing.assert_allclose(kbc.log_ratio(Y), want, rtol=0, atol=1e-12)
