"""The §5.1 protocol as one settings object: gendel.protocol.Protocol."""

import dataclasses

import numpy as np
import pytest

from gendel import deletion, experiments, protocol
from gendel.dre import KernelClassifierDRE, KNNClassifierDRE
from gendel.protocol import PAPER, Protocol

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
    assert experiments.PAPER_SETTINGS == {k: getattr(PAPER, k) for k in ("N", "m", "R", "sigma_a", "seed")}


def test_of_refuses_settings_given_twice():
    p = Protocol("mog8", 0.5, **SMALL)
    assert Protocol.of(p) is p
    with pytest.raises(TypeError, match="either as a Protocol or as keywords"):
        Protocol.of(p, R=10)
    with pytest.raises(TypeError, match="unknown protocol settings"):
        Protocol.of("mog8", 0.5, n=10)
    with pytest.raises(TypeError, match="lam is required"):
        Protocol.of("mog8")


def test_protocol_and_keyword_calls_give_the_same_numbers():
    p = Protocol("mog8", 0.6, seed=5, **SMALL)
    a = experiments.synthetic_statistics(p, KNNClassifierDRE(k=5))
    b = experiments.synthetic_statistics("mog8", 0.6, KNNClassifierDRE(k=5), seed=5, **SMALL)
    for stat in experiments.STATISTICS:
        for key in experiments.KEYS:
            np.testing.assert_array_equal(a.values[stat][key], b.values[stat][key])
    assert a.protocol == p and a.settings == {**p.settings(), "dre": "KNNClassifierDRE(k=5)"}
    with pytest.raises(TypeError, match="pass the DRE second"):
        experiments.synthetic_statistics(p, 0.6, KNNClassifierDRE(k=5))


def test_the_in_memory_cache_is_keyed_by_protocol():
    protocol.shared.cache_clear()
    p = Protocol("ckb8", 0.7, **SMALL)
    first = protocol.shared(p)
    assert protocol.shared(Protocol("CKB-8", 0.7, **SMALL)) is first
    assert protocol.shared(p.replace(seed=1)) is not first


def test_sampler_limit_is_checked_before_the_samples_are_drawn(monkeypatch):
    calls = []
    monkeypatch.setattr(experiments, "shared", lambda p: calls.append(p))
    monkeypatch.setattr(deletion, "MAX_DEFAULT_PROPOSALS", 1000)
    with pytest.raises(ValueError, match=r"m \* R = 200 \* 10 = 2000 samples"):
        experiments.synthetic_statistics("mog8", 0.5, KernelClassifierDRE(bandwidth=0.1), N=60, m=200, R=10)
    assert calls == []  # refused before the expensive part


def test_sweep_and_variation_settings_are_checked_before_any_run(monkeypatch):
    calls = []
    monkeypatch.setattr(experiments, "cached_synthetic_statistics", lambda *a, **k: calls.append(a))
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        experiments.sweep("mog8", [0.5, 1.5], [KNNClassifierDRE(k=3)], **SMALL)
    with pytest.raises(ValueError, match="'bad' changes \\['sigma_a'\\]"):
        experiments.variation_sweeps("mog8", 0.8, {"m = 200": {"m": 200}, "bad": {"sigma_a": 0.2}})
    with pytest.raises(ValueError, match="R"):
        experiments.variation_sweeps("mog8", 0.8, {"R = 1": {"R": 1}})
    assert calls == []
