"""The VDM objectives of §3.2 on a finite space: which ratio map each objective calls for (errata E5)."""

import numpy as np
import pytest

from gendel.theory import vdm_objectives as vdm


@pytest.fixture(scope="module")
def dists():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 5, size=2000)
    deleted = rng.random(2000) < np.array([0.0, 0.4, 0.1, 0.0, 0.6])[X]
    return vdm.empirical_distributions(X, deleted)


def test_kl_objective_is_maximised_at_log_rho(dists):
    _, p, pk = dists
    T = vdm.maximise_kl(p, pk)
    assert np.allclose(T, np.log(pk / p), atol=1e-6)
    assert vdm.kl_objective(T, p, pk) >= vdm.kl_objective(T + 0.01, p, pk)
    assert vdm.normalisation(np.exp(T), p) == pytest.approx(1.0, abs=1e-6)          # exp(T): a valid DRE
    assert vdm.normalisation(np.exp(T - 1), p) == pytest.approx(np.exp(-1), abs=1e-6)  # the paper's exp(T - 1)


def test_js_objective_gives_the_printed_ratio(dists):
    _, p, pk = dists
    T = vdm.maximise_js(p, pk)
    assert np.allclose(T, pk / (pk + p), atol=1e-6)
    assert vdm.normalisation(T / (1 - T), p) == pytest.approx(1.0, abs=1e-5)


def test_clear_errors():
    with pytest.raises(ValueError, match="proper subset"):
        vdm.empirical_distributions(np.array([1, 2, 3]), np.array([False, False, False]))
    with pytest.raises(ValueError, match="1-D"):
        vdm.empirical_distributions(np.zeros((2, 2)), np.zeros((2, 2), bool))
