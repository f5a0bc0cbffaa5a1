"""Thms. 1 and 2 with constants from calibration draws and the bound tested on the other draws."""

import numpy as np
import pytest

from gendel.theory.approximation_checks import split_run, thm1_checks, thm2_checks
from gendel.theory.circle import CircleModel
from gendel.theory.consistency import consistency_sweep


@pytest.fixture(scope="module")
def runs():
    return consistency_sweep(CircleModel(), [200, 800], R=80, grid_size=256, seed=3)


@pytest.fixture(scope="module")
def runs_small_units():
    return consistency_sweep(CircleModel(period=0.02), [200, 800], R=80, grid_size=256, seed=3)


def test_split_run_shares_no_draw(runs):
    cal, test = split_run(runs[0], 30)
    assert (cal.R, test.R) == (30, 50)
    assert np.array_equal(np.concatenate([cal.l1_error, test.l1_error]), runs[0].l1_error)
    assert np.array_equal(np.concatenate([cal.tv["A", "X"], test.tv["A", "X"]]), runs[0].tv["A", "X"])
    # the constants come from the calibration draws only
    assert cal.thm1_bound(0.05) != runs[0].thm1_bound(0.05)


def test_split_run_rejects_bad_input(runs):
    with pytest.raises(ValueError, match="at least 2 draws"):
        split_run(runs[0], 79)
    with pytest.raises(TypeError, match="ConsistencyRun"):
        split_run(np.zeros(3))


def test_thm1_printed_holds_and_a_bound_1000_times_too_small_is_rejected(runs):
    checks = thm1_checks(runs, 0.05)
    assert checks[0].statement == "Thm. 1 as printed" and checks[0].verdict == "holds"
    assert checks[-1].statement == "bound divided by 1000" and checks[-1].verdict == "rejected"
    assert checks[0].measured.shape == (2, 40)            # tested on the 40 test draws per N
    assert 1 < checks[0].slack < 1000


def test_thm2_corrected_holds_printed_fails_in_small_units(runs, runs_small_units):
    unit = thm2_checks(runs, 0.05)
    both = thm2_checks(runs + runs_small_units, 0.05)
    assert [c.verdict for c in unit[:2]] == ["holds", "holds"]
    assert both[0].statement == "Thm. 2 as printed" and both[0].verdict == "rejected"   # errata E6
    assert both[1].verdict == "holds"
    assert both[-1].verdict == "rejected"                  # corrected bound / 1000
    assert both[0].cases[-1] == "L = 0.02, N = 800"


def test_checks_need_runs():
    with pytest.raises(ValueError, match="at least one run"):
        thm1_checks([], 0.05)
