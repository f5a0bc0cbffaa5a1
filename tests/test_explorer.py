"""The explorer's state without widgets (gendel.panels.explorer_state) and the panel base (gendel.panels.base): the
state imports neither ipywidgets nor plotly, its maps and statistics equal direct computations of
the §5.1 quantities, its caches recompute only what a setting changes, bad settings change
nothing, and a panel rolls back to the last settings that drew when a redraw fails."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from conftest import ExplorerSpies, trace_array
from gendel.core import dre as D
from gendel.synthetic import experiments
from gendel.synthetic.sampling import Protocol, setup
from gendel.panels.base import Panel
from gendel.panels.explorer_state import (DEFAULTS, DRES, ERROR_LIMITS, ExplorerState, describe_dre, dre_value,
                                          validate_settings)

SMALL = dict(N=60, m=40, resolution=24, R=25)  # a quick state: 24 x 24 grid, 25 repeats


def direct_setup(state):
    s = state.settings
    return setup(Protocol(s["dataset"], lam=s["lam"], N=state.N, sigma_a=s["sigma_a"], seed=s["seed"]))


# ------------------------------------------------------------------------------------------
# no widgets needed


def test_state_works_with_ipywidgets_and_plotly_unavailable():
    code = textwrap.dedent("""
        import sys
        sys.modules["ipywidgets"] = None   # import ipywidgets now raises ImportError
        sys.modules["plotly"] = None
        from gendel.panels.explorer_state import ExplorerState
        state = ExplorerState(N=40, m=20, resolution=12, R=25, dre="knn", k=3)
        assert state.maps().estimate.shape == (12, 12)
        assert state.statistics().settings["R"] == 25
        del sys.modules["plotly"]  # the panel needs plotly, and says that it needs ipywidgets
        try:
            import gendel.panels.explorer
        except ImportError as exc:
            assert 'pip install "gendel[widgets]"' in str(exc), exc
        else:
            raise AssertionError("gendel.panels.explorer imported without ipywidgets")
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


# ------------------------------------------------------------------------------------------
# the state computes the §5.1 quantities


@pytest.fixture
def spies(monkeypatch):
    return ExplorerSpies(monkeypatch)


@pytest.fixture
def state():
    return ExplorerState(**SMALL)


def test_maps_equal_direct_computation(state):
    state.set(sigma_c=0.13, lam=0.7, seed=3)
    X, deleted, _ = direct_setup(state)
    _, _, points = state.grid
    n = state.resolution
    maps = state.maps()
    exact = D.ExactKDERatio(bandwidth=0.1).fit(X, deleted)
    kbc = D.KernelClassifierDRE(bandwidth=0.13).fit(X, deleted)
    np.testing.assert_allclose(maps.exact, exact.ratio(points).reshape(n, n), rtol=1e-10)
    np.testing.assert_allclose(maps.estimate, kbc.ratio(points).reshape(n, n), rtol=1e-10)
    np.testing.assert_allclose(maps.error, (kbc.log_ratio(points) - exact.log_ratio(points)).reshape(n, n),
                               atol=1e-10)
    state.set(map_mode="difference", dre="logreg")
    logreg = D.ClassifierDRE(LogisticRegression()).fit(X, deleted)
    np.testing.assert_allclose(state.maps().error, (logreg.ratio(points) - exact.ratio(points)).reshape(n, n),
                               atol=1e-8)


def test_kbc_at_sigma_a_has_zero_map_error(state):
    # Example 1: the KBC with sigma_C = sigma_A is the exact ratio of the KDE learner.
    assert state.settings["sigma_c"] == state.settings["sigma_a"]
    assert state.maps().mean_error < 1e-9
    assert state.set(sigma_c=0.2).maps().mean_error > 1e-3


def test_clipped_error_is_finite_and_within_the_colour_limits():
    state = ExplorerState(**SMALL, dre="knn", k=1)  # ratio 0 where the nearest point is deleted
    maps = state.maps()
    assert np.isinf(maps.mean_error) and not np.all(np.isfinite(maps.error))
    shown = maps.clipped_error()
    assert np.all(np.isfinite(shown)) and np.abs(shown).max() <= ERROR_LIMITS["log"]


def test_statistics_equal_synthetic_statistics(state):
    state.set(dre="knn", k=4, lam=0.65)
    direct = experiments.synthetic_statistics(Protocol("mog8", lam=0.65, N=60, m=40, R=25, sigma_a=0.1, seed=0), D.KNNClassifierDRE(k=4))
    result = state.statistics()
    assert result.ks == direct.ks
    assert state.has_statistics()


# ------------------------------------------------------------------------------------------
# caches


def test_moving_the_dre_parameter_reuses_the_data(spies, state):
    X0, deleted0, exact0 = state.setup()
    for sigma_c in (0.05, 0.08, 0.12):
        state.set(sigma_c=sigma_c).maps()
    X1, deleted1, exact1 = state.setup()
    assert X1 is X0 and deleted1 is deleted0 and exact1 is exact0
    assert (spies.setups, spies.dre_fits) == (1, 3)
    state.set(sigma_c=0.05).maps()  # seen before: served from the cache
    assert spies.dre_fits == 3
    state.set(lam=0.6).maps()  # new data
    assert (spies.setups, spies.dre_fits) == (2, 4)


def test_a_dre_move_reuses_the_samples_of_the_ks_run(state):
    from gendel.synthetic import sampling

    state.set(dre="kbc", sigma_c=0.1).statistics()
    shared, first = sampling.shared.cache_info().misses, sampling.proposals.cache_info().misses
    for change in (dict(sigma_c=0.12), dict(dre="knn", k=7), dict(dre="logreg")):
        result = state.set(**change).statistics()
        s = state.settings
        direct = experiments.synthetic_statistics(state.protocol,
                                                  D.make_dre(s["dre"], dre_value(s["dre"], sigma_c=s["sigma_c"], k=s["k"])))
        assert result.ks == direct.ks
    # Y_hat, Y_H0, Y_H1, Alg. 1's first proposals and rho_hat on them were drawn and evaluated once
    assert sampling.shared.cache_info().misses == shared and sampling.proposals.cache_info().misses == first
    state.set(lam=0.6).statistics()
    assert sampling.proposals.cache_info().misses == first + 1


def test_only_the_chosen_families_parameter_matters(spies, state):
    state.set(dre="logreg")
    fitted = state.dre()
    state.set(sigma_c=0.2, k=50)  # neither belongs to logistic regression
    assert state.dre() is fitted and spies.dre_fits == 1
    state.set(dre="knn")
    assert state.dre_key == ("knn", 50)


def test_bad_settings_change_nothing(state):
    before = state.settings
    for bad, error in [(dict(lam=0.3), ValueError), (dict(k=2.5), TypeError), (dict(dre="svm"), ValueError),
                       (dict(bandwidth=0.1), TypeError), (dict(R=7), ValueError)]:
        with pytest.raises(error):
            state.set(sigma_c=0.2, **bad)  # a valid change along with the bad one
        assert state.settings == before


def test_a_k_larger_than_the_training_set_fails_in_the_fit_and_the_next_setting_works():
    state = ExplorerState(**{**SMALL, "N": 20}, dre="knn", k=5)
    state.maps()
    state.set(k=60)  # valid for the slider; the classifier's training set has at most 2 N = 40 points
    with pytest.raises(ValueError, match="exceeds"):
        state.maps()
    assert state.set(k=8).maps().estimate.shape == (24, 24)


# ------------------------------------------------------------------------------------------
# one table of DRE families


def test_make_and_describe_dre_follow_the_table():
    assert DRES == {kind: choice.label for kind, choice in D.DRE_CHOICES.items()}
    for kind, choice in D.DRE_CHOICES.items():
        value = {"sigma_c": 0.07, "k": 12, None: None}[choice.param]
        assert dre_value(kind, sigma_c=0.07, k=12) == value
        assert describe_dre(kind, sigma_c=0.07, k=12) == choice.describe(value)
        assert D.dre_family(D.make_dre(kind, value)) == kind and choice.value_of(D.make_dre(kind, value)) == value
    with pytest.raises(ValueError, match="dre must be one of"):
        dre_value("svm")
    with pytest.raises(ValueError, match="dre must be one of"):
        D.make_dre("svm")
    assert validate_settings(DEFAULTS) == DEFAULTS


# ------------------------------------------------------------------------------------------
# the panel base, with plain objects as controls


class _Control:
    def __init__(self, value):
        self.value = value
        self.closed = False

    def close(self):
        self.closed = True


class _FakePanel(Panel):
    """Draws value ** 0.5, which fails for a negative value (a failure past validation)."""

    def __init__(self):
        self.controls = {"value": _Control(4.0)}
        self.status, self.widget = _Control(""), _Control(None)
        self.drawn = []
        self._start()

    @staticmethod
    def _validate(settings):
        return {name: float(v) for name, v in settings.items()}

    def _refresh(self):
        v = self.controls["value"].value
        if v < 0:
            raise ValueError(f"cannot draw sqrt({v})")
        self.drawn.append(v ** 0.5)
        self.status.value = "ok"


def test_a_failing_redraw_rolls_back_and_the_next_set_works():
    panel = _FakePanel()
    with pytest.raises(ValueError, match="sqrt"):
        panel.set(value=-1)
    assert panel.settings == panel.last_valid_settings_ == {"value": 4.0}
    assert "sqrt(-1.0)" in panel.status.value and "value = -1.0" in panel.status.value
    panel.controls["value"].value = -9.0  # as the browser does: no exception, same rollback
    panel._on_change()
    assert panel.settings == {"value": 4.0} and "sqrt(-9.0)" in panel.status.value
    panel.set(value=9)
    assert panel.drawn[-1] == 3.0 and panel.status.value == "ok"
    panel.close()
    assert panel.widget.closed and panel.controls["value"].closed and panel.status.closed


@pytest.mark.parametrize("settings", [dict(dre="kbc", sigma_c=0.1), dict(dre="kbc", sigma_c=0.2),
                                      dict(dre="knn", k=1)])
def test_error_map_has_a_visible_labelled_symmetric_scale(settings):
    # The third map must not read as an empty field: its colour range follows the bulk of the
    # error (±1e-15-ish for the exact KBC, order 0.1-1 for a poor DRE), symmetric around 0.
    from gendel.panels.explorer_figures import build_maps_figure, draw_maps

    state = ExplorerState(**SMALL, **settings)
    maps = state.maps()
    fig = build_maps_figure(len(maps.ys))
    draw_maps(fig, maps, state.settings, state.N)
    err = fig.data[2]
    z = trace_array(err.z)
    assert err.zmin == -err.zmax and 0 < err.zmax <= ERROR_LIMITS[maps.mode]
    assert err.colorbar.title.text and err.colorbar.exponentformat == "e"
    assert np.all(np.isfinite(z)) and np.abs(z).max() <= err.zmax * (1 + 6e-4)  # 4 significant digits (compact)
    # colours vary: a part of the grid is more than a tenth of the range away from white
    assert np.mean(np.abs(z) > 0.1 * err.zmax) > 0.04
    finite = np.abs(maps.error[np.isfinite(maps.error)])
    assert err.zmax == pytest.approx(min(np.quantile(finite, 0.95), ERROR_LIMITS[maps.mode]))
