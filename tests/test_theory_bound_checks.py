"""BoundCheck's wording in power tables, its per-case slack, and the split of gendel.theory.moments."""

import numpy as np
import pytest

from gendel.theory import bound_checks, moments
from gendel.theory.bound_checks import BoundCheck, _shares


def test_moments_still_exports_the_bound_checks():
    for name in ("BoundCheck", "CHECK_HEADER", "markov_checks"):
        assert getattr(moments, name) is getattr(bound_checks, name)
        assert name in moments.__all__


def test_a_deterministic_statement_allows_no_draw_above_its_bound():
    x = np.linspace(0, 1, 50)[None, :]
    exact = BoundCheck("x ≤ 1", "x", [1], [1.0], x, 0.0)
    assert exact.result() == "0% of draws above the bound at N = 1 (a true bound allows none)"
    assert exact.slack == pytest.approx(1.0)          # attained: any smaller bound fails
    assert BoundCheck("x ≤ 0.9", "x", [1], [0.9], x, 0.0).verdict == "rejected"


def test_shares_get_digits_enough_to_differ():
    assert _shares(0.14, 0.135) == ("14.0%", "13.5%")
    assert _shares(0.0, 0.001) == ("0%", "0.1%")
    assert _shares(0.2, 0.2) == ("20%", "20%")
    above, allowed = _shares(0.1402, 0.14)
    assert above != allowed


def test_the_allowed_share_is_never_printed_as_zero_when_it_is_not():
    x = np.random.default_rng(0).exponential(size=(1, 2000))
    check = BoundCheck("P(x > 8) ≤ 0.0005", "x", [1], [8.0], x, 0.0005)
    assert 0 < check.tolerance[0] < 0.01
    assert "allows up to 0%" not in check.result() and "allows up to 0." in check.result()


def test_slack_is_the_smallest_per_case_slack():
    x = np.random.default_rng(1).uniform(size=(3, 200))
    check = BoundCheck("x ≤ b", "x", [1, 2, 3], [2.0, 1.5, 3.0], x, 0.0)
    assert check.slacks.shape == (3,)
    assert check.slack == pytest.approx(check.slacks.min())
    assert int(np.argmin(check.slacks)) == 1
    assert BoundCheck("x ≤ b / k", "x", [1, 2, 3], check.bound / (check.slack * 1.01), x, 0.0).verdict == "rejected"
    assert BoundCheck("x ≤ b / k", "x", [1, 2, 3], check.bound / (check.slack * 0.99), x, 0.0).verdict == "holds"
