"""The live panel of the deletion-test chapter: its figure is the test at the chosen settings,
moving α only re-thresholds cached statistics, and bad settings are refused."""

from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("anywidget")

from conftest import Spy  # noqa: E402
from gendel.deletion_test.decision import monte_carlo_p_values  # noqa: E402
from gendel.panels.deletion_test import DEFAULTS, DeletionTestPanel, deletion_test_panel  # noqa: E402

SMALL = dict(n_null=99, n_rep=40, n_pilot=500)  # the smallest n_null at which alpha = 0.01 can reject


@pytest.fixture(scope="module")
def panel():
    import comm

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(comm, "create_comm", comm.DummyComm)
        p = DeletionTestPanel(m=20, dre="exact", **SMALL)
        yield p
        p.close()


@pytest.fixture
def spies(monkeypatch):
    """What the panel computes, counted: ``setup`` (a data set drawn), ``make_dre`` (a DRE made, then
    fitted) and ``DeletionTest`` (a configuration's statistics simulated)."""
    import gendel.panels.deletion_test as dtw

    return SimpleNamespace(**{name: Spy(monkeypatch, dtw, name) for name in ("setup", "make_dre", "DeletionTest")})


def test_figure_shows_the_test_at_the_current_settings(panel):
    panel.set(m=50, lam=0.6, statistic="lr", dre="exact", alpha=0.1)
    f = panel.frame_
    assert f["m"] == 50 and f["statistic"] == "lr"
    assert len(f["null"]) == 99 and len(f["alternative"]) == 40
    # the power on show = the share of alternative tests whose Monte-Carlo p-value is <= alpha
    d = f["direction"]
    p = monte_carlo_p_values(d * f["alternative"], d * f["null"])
    assert f["power"] == pytest.approx(np.mean(p <= 0.1))
    assert f"{100 * f['power']:.1f} %" in panel.figure.data[1].name
    assert "m = 50" in panel.figure.layout.title.text and "λ = 0.6" in panel.figure.layout.title.text
    assert panel.figure.data[3].x[0] == pytest.approx(f["critical"])
    before = np.asarray(panel.figure.data[0].y).copy()
    panel.set(m=20)
    assert "m = 20" in panel.figure.layout.title.text
    assert not np.array_equal(np.asarray(panel.figure.data[0].y), before)
    assert "Redrawn in" in panel.status.value


def test_alpha_alone_draws_nothing_new(panel, spies):
    panel.set(m=20, lam=0.8, statistic="asc-hellinger", dre="exact", alpha=0.1)
    null, alt, draws = panel.frame_["null"], panel.frame_["alternative"], len(spies.DeletionTest)
    c_10 = panel.frame_["critical"]
    panel.set(alpha=0.01)
    assert len(spies.DeletionTest) == draws
    assert panel.frame_["null"] is null and panel.frame_["alternative"] is alt
    d = panel.frame_["direction"]
    assert d * panel.frame_["critical"] > d * c_10  # a smaller level asks for more extreme values
    assert panel.frame_["type_one"] <= 0.01
    panel.set(statistic="asc-tlogt")
    assert len(spies.DeletionTest) == draws + 1  # a new statistic is a new configuration


def test_mmd_ignores_the_dre(panel, spies):
    panel.set(statistic="mmd", dre="exact", m=20)
    draws, fits = len(spies.DeletionTest), len(spies.make_dre)
    panel.set(dre="knn-10")
    assert len(spies.DeletionTest) == draws and len(spies.make_dre) == fits
    assert "not used by MMD" in panel.figure.layout.title.text


def test_same_settings_give_the_same_numbers_whatever_came_before(panel, spies, monkeypatch):
    import comm

    monkeypatch.setattr(comm, "create_comm", comm.DummyComm)
    panel.set(statistic="lr", dre="exact", m=20, lam=0.8)
    draws = len(spies.DeletionTest)
    fresh = deletion_test_panel(statistic="lr", dre="exact", m=50, lam=0.6, **SMALL)  # another start
    try:
        fresh.set(m=20, lam=0.8)
        np.testing.assert_array_equal(fresh.frame_["null"], panel.frame_["null"])
        np.testing.assert_array_equal(fresh.frame_["alternative"], panel.frame_["alternative"])
        assert fresh.settings == {**DEFAULTS, "statistic": "lr", "dre": "exact", "m": 20, "lam": 0.8}
        assert len(spies.DeletionTest) == draws + 2
        bundle = fresh._repr_mimebundle_()
        assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == fresh.widget.model_id
    finally:
        fresh.close()


def test_a_failing_set_rolls_the_controls_back_and_the_next_set_redraws(panel, monkeypatch):
    import gendel.panels.deletion_test as dtw

    # a kNN whose k exceeds its training set (at most 2 N = 800 points): the fit fails in the redraw
    monkeypatch.setitem(dtw._DRE_SPECS, "knn-10", ("knn", 10_000))
    panel.set(statistic="lr", dre="exact", m=20, lam=0.9)
    before, frame = panel.settings, panel.frame_
    with pytest.raises(ValueError, match="exceeds"):
        panel.set(dre="knn-10", m=30)
    assert panel.settings == before == panel.last_valid_settings_
    assert panel.frame_["m"] == 20 and "λ = 0.9" in panel.figure.layout.title.text
    assert "exceeds" in panel.status.value and "dre = 'knn-10'" in panel.status.value
    panel.controls["dre"].value = "knn-10"  # as the browser does: rolled back, not raised
    assert panel.controls["dre"].value == "exact" and "exceeds" in panel.status.value
    panel.set(m=30)
    assert panel.frame_["m"] == 30 and "m = 30" in panel.figure.layout.title.text
    assert "Redrawn in" in panel.status.value
    np.testing.assert_array_equal(panel.frame_["null"].shape, frame["null"].shape)


@pytest.mark.parametrize("bad", [dict(m=37), dict(alpha=0.2), dict(lam=0.55), dict(dre="kbc-0.3"),
                                 dict(statistic="LR"), dict(dataset="mnist"), dict(sigma_c=0.1), dict(m=True)])
def test_bad_settings_are_refused_and_change_nothing(panel, bad):
    before = panel.settings
    with pytest.raises(ValueError, match=next(iter(bad))):
        panel.set(**bad)
    assert panel.settings == before


def test_too_few_null_statistics_for_the_smallest_level_are_refused():
    with pytest.raises(ValueError, match="n_null"):
        DeletionTestPanel(n_null=50)
