"""The live panel of gendel.panels.explorer: its figures agree with direct computations of the §5.1
quantities, every control changes what it should (and only recomputes what it must), and bad
values are refused."""

import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("anywidget")

from sklearn.linear_model import LogisticRegression  # noqa: E402

from gendel.synthetic import experiments  # noqa: E402
from gendel.core.dre import make_dre  # noqa: E402
from gendel.synthetic.experiments import sweep  # noqa: E402
from gendel.synthetic.sampling import QUESTIONS, RATIO_STATISTICS, Protocol, setup  # noqa: E402
from gendel.core.dre import ClassifierDRE, ExactKDERatio, KernelClassifierDRE, KNNClassifierDRE  # noqa: E402
from gendel.panels.explorer import DEFAULTS, ExplorerPanel, explore, precomputed_ks_figure  # noqa: E402
from gendel.panels.explorer_state import ERROR_LIMITS  # noqa: E402
from gendel.panels.explorer_figures import error_range  # noqa: E402
from conftest import ExplorerSpies, trace_array  # noqa: E402

R = 25  # repeats in these tests: the smallest choice of the panel, to keep them quick
#: The maps are sent to the browser rounded to 4 significant digits (_explorer_figures.compact).
DRAWN = dict(rtol=6e-4, atol=0)


@pytest.fixture(autouse=True)
def no_prefetch(monkeypatch):
    """No computing ahead in a background thread, except in the tests of it: the counts of fits and
    KS runs below are those of the foreground."""
    monkeypatch.setattr(ExplorerPanel, "prefetch", False)


@pytest.fixture
def spies(monkeypatch):
    """Counts of what the panels' state computes (set up before any panel is built)."""
    return ExplorerSpies(monkeypatch)


@pytest.fixture
def panel(spies):
    p = ExplorerPanel(R=R)
    yield p
    p.close()


def z(figure, i):
    return trace_array(figure.data[i].z)


def direct_setup(panel):
    s = panel.settings
    return setup(Protocol(s["dataset"], lam=s["lam"], N=panel.N, sigma_a=s["sigma_a"], seed=s["seed"]))


def on_grid(panel, values):
    n = panel.resolution
    return np.asarray(values).reshape(n, n)


# ------------------------------------------------------------------------------------------
# construction


def test_import_does_not_build_anything():
    code = "import gendel, sys; assert 'gendel.panels.explorer' not in sys.modules; import gendel.panels.explorer as w; print(w.ExplorerPanel)"
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)


def test_panel_is_built_and_drawn(spies, panel):
    import ipywidgets as W

    assert isinstance(panel.widget, W.VBox)
    assert set(panel.controls) == set(DEFAULTS)
    assert panel.settings == {**DEFAULTS, "R": R}
    n = panel.resolution
    assert n == 150
    for i in range(3):
        assert z(panel.maps_figure, i).shape == (n, n)
    assert panel.last_ks_ is not None
    assert "ready" in panel.status.value
    assert spies.setups == 1 and spies.dre_fits == 1 and spies.ks_runs == 1
    assert panel._repr_mimebundle_()["application/vnd.jupyter.widget-view+json"]["model_id"] == panel.widget.model_id


def test_explore_returns_a_panel_at_the_given_settings():
    p = explore(lam=0.6, dre="knn", k=5, R=R)
    try:
        assert isinstance(p, ExplorerPanel)
        assert p.settings["lam"] == 0.6 and p.settings["dre"] == "knn" and p.settings["k"] == 5
    finally:
        p.close()


# ------------------------------------------------------------------------------------------
# the maps equal direct computations


def test_maps_equal_direct_computation_kbc(panel):
    panel.set(sigma_c=0.13, lam=0.7, seed=3)
    X, deleted, _ = direct_setup(panel)
    _, _, points = panel.grid
    expected_exact = ExactKDERatio(bandwidth=0.1).fit(X, deleted).ratio(points)
    expected_kbc = KernelClassifierDRE(bandwidth=0.13).fit(X, deleted).ratio(points)
    np.testing.assert_allclose(z(panel.maps_figure, 0), on_grid(panel, expected_exact), **DRAWN)
    np.testing.assert_allclose(z(panel.maps_figure, 1), on_grid(panel, expected_kbc), **DRAWN)


def test_maps_equal_direct_computation_knn_and_logreg(panel):
    panel.set(dre="knn", k=7)
    X, deleted, _ = direct_setup(panel)
    _, _, points = panel.grid
    np.testing.assert_allclose(z(panel.maps_figure, 1),
                               on_grid(panel, KNNClassifierDRE(k=7).fit(X, deleted).ratio(points)), **DRAWN)
    panel.set(dre="logreg")
    expected = ClassifierDRE(LogisticRegression()).fit(X, deleted).ratio(points)
    np.testing.assert_allclose(z(panel.maps_figure, 1), on_grid(panel, expected), rtol=1e-5 + DRAWN["rtol"])


def test_grid_rows_follow_the_heatmap_layout(panel):
    xs, ys, points = panel.grid
    n = panel.resolution
    iy, ix = 17, 101
    np.testing.assert_array_equal(points[iy * n + ix], [xs[ix], ys[iy]])
    np.testing.assert_array_equal(panel.maps_figure.data[0].x, xs)
    np.testing.assert_array_equal(panel.maps_figure.data[0].y, ys)


def test_error_map_is_the_clipped_log_or_plain_difference(panel):
    panel.set(sigma_c=0.06)
    X, deleted, exact = direct_setup(panel)
    _, _, points = panel.grid
    log_exact = exact.log_ratio(points)
    log_est = KernelClassifierDRE(bandwidth=0.06).fit(X, deleted).log_ratio(points)
    # the colour range follows the bulk of the error (error_range), at most the mode's limit
    limit = error_range(log_est - log_exact, ERROR_LIMITS["log"])
    assert 0 < limit <= ERROR_LIMITS["log"]
    np.testing.assert_allclose(z(panel.maps_figure, 2), on_grid(panel, np.clip(log_est - log_exact, -limit, limit)),
                               **DRAWN)
    panel.set(map_mode="difference")
    limit = error_range(np.exp(log_est) - np.exp(log_exact), ERROR_LIMITS["difference"])
    diff = np.clip(np.exp(log_est) - np.exp(log_exact), -limit, limit)
    np.testing.assert_allclose(z(panel.maps_figure, 2), on_grid(panel, diff), **DRAWN)
    assert panel.maps_figure.data[2].colorbar.title.text == "difference"


def test_map_error_is_zero_when_the_kbc_is_exact(panel):
    # Example 1: a KBC with sigma_C = sigma_A recovers rho_hat exactly.
    assert panel.settings["sigma_c"] == panel.settings["sigma_a"]
    assert panel.map_error_ < 1e-9
    np.testing.assert_allclose(z(panel.maps_figure, 1), z(panel.maps_figure, 0), rtol=1.2e-3)  # two roundings
    panel.set(sigma_c=0.2)
    assert panel.map_error_ > 1e-3


def test_knn_zero_ratio_gives_an_infinite_mean_log_error():
    # With k = 1 the ratio is 0 wherever the nearest training point is deleted.
    p = ExplorerPanel(R=R, dre="knn", k=1, live_ks=False)
    try:
        assert np.isinf(p.map_error_)
        assert "∞" in p.maps_figure.layout.annotations[2].text
        assert np.all(np.isfinite(z(p.maps_figure, 2)))  # drawn clipped, not as gaps
    finally:
        p.close()


# ------------------------------------------------------------------------------------------
# every control changes the figures


@pytest.mark.parametrize(
    "setting, value, traces",
    [
        ("dataset", "ckb8", (0, 1, 2)),
        ("lam", 0.55, (0, 1, 2)),
        ("sigma_a", 0.15, (0, 2)),
        ("seed", 5, (0, 1, 2)),
        ("sigma_c", 0.2, (1, 2)),
        ("dre", "knn", (1, 2)),
        ("dre", "logreg", (1, 2)),
        ("map_mode", "difference", (2,)),
    ],
)
def test_each_map_control_changes_the_maps(panel, setting, value, traces):
    before = [z(panel.maps_figure, i) for i in range(3)]
    panel.set(**{setting: value})
    after = [z(panel.maps_figure, i) for i in range(3)]
    for i in range(3):
        changed = not np.array_equal(before[i], after[i])
        assert changed == (i in traces), f"trace {i} after {setting}={value!r}"
    assert panel.settings[setting] == value


def test_k_changes_the_knn_map(panel):
    panel.set(dre="knn", k=10)
    before = z(panel.maps_figure, 1)
    panel.set(k=30)
    assert not np.array_equal(before, z(panel.maps_figure, 1))


def test_dataset_changes_the_plot_window(panel):
    panel.set(dataset="ckb8")
    xs = np.asarray(panel.maps_figure.data[0].x)
    assert xs.min() == pytest.approx(-0.25) and xs.max() == pytest.approx(1.25)
    assert tuple(panel.maps_figure.layout.xaxis.range) == (-0.25, 1.25)


def test_setting_a_widget_value_redraws_like_the_frontend_does(panel):
    before = z(panel.maps_figure, 1)
    panel.controls["sigma_c"].value = 0.16  # what a slider release does
    assert panel.settings["sigma_c"] == 0.16
    X, deleted, _ = direct_setup(panel)
    expected = KernelClassifierDRE(bandwidth=0.16).fit(X, deleted).ratio(panel.grid[2])
    assert not np.array_equal(before, z(panel.maps_figure, 1))
    np.testing.assert_allclose(z(panel.maps_figure, 1), on_grid(panel, expected), **DRAWN)


def test_sliders_update_on_release_only(panel):
    for name in ("lam", "sigma_a", "sigma_c", "k"):
        assert panel.controls[name].continuous_update is False


def test_hyper_parameter_controls_follow_the_dre(panel):
    assert not panel.controls["sigma_c"].disabled and panel.controls["k"].disabled
    panel.set(dre="knn")
    assert panel.controls["sigma_c"].disabled and not panel.controls["k"].disabled
    panel.set(dre="logreg")
    assert panel.controls["sigma_c"].disabled and panel.controls["k"].disabled


# ------------------------------------------------------------------------------------------
# caching: moving sigma_C does not redraw the data


def test_moving_sigma_c_reuses_data_and_exact_ratio(spies, panel):
    X0, deleted0, exact0 = panel.setup()
    exact_map = z(panel.maps_figure, 0)
    for sigma_c in (0.05, 0.08, 0.12):
        panel.set(sigma_c=sigma_c)
    X1, deleted1, exact1 = panel.setup()
    assert X1 is X0 and deleted1 is deleted0 and exact1 is exact0
    assert spies.setups == 1
    assert spies.dre_fits == 4
    np.testing.assert_array_equal(z(panel.maps_figure, 0), exact_map)
    # Going back to a setting already seen is served from the caches.
    panel.set(sigma_c=0.05)
    assert spies.dre_fits == 4 and spies.ks_runs == 4


def test_changing_lambda_redraws_the_data(spies, panel):
    panel.set(lam=0.6)
    assert spies.setups == 2
    X, deleted, _ = panel.setup()
    X_direct, deleted_direct, _ = direct_setup(panel)
    np.testing.assert_array_equal(X, X_direct)
    np.testing.assert_array_equal(deleted, deleted_direct)


def test_display_only_controls_do_not_recompute(spies, panel):
    counts = spies.counts()
    panel.set(statistic="asc-hellinger")
    panel.set(map_mode="difference")
    assert spies.counts() == counts


# ------------------------------------------------------------------------------------------
# KS statistics and distributions


def ks_bars(panel):
    return np.array([panel.ks_figure.data[i].y for i in range(len(RATIO_STATISTICS))])


def test_ks_bars_equal_synthetic_statistics(panel):
    panel.set(sigma_c=0.07, lam=0.65)
    direct = experiments.synthetic_statistics(Protocol("mog8", lam=0.65, N=400, m=400, R=R, sigma_a=0.1, seed=0), KernelClassifierDRE(bandwidth=0.07))
    expected = np.array([[direct.ks[q, stat] for q in QUESTIONS] for stat in RATIO_STATISTICS])
    np.testing.assert_allclose(ks_bars(panel), expected)
    assert len(panel.ks_figure.data) == len(RATIO_STATISTICS)
    for i, q in enumerate(QUESTIONS):
        assert f"KS = {direct.ks[q, 'lr']:.3f}" in panel.stats_figure.layout.annotations[i].text


def test_ks_updates_when_the_dre_changes(panel):
    before = ks_bars(panel)
    panel.set(dre="logreg")
    assert not np.array_equal(before, ks_bars(panel))


def test_histograms_hold_every_repeat(panel):
    panel.set(statistic="asc-tlogt")
    values = panel.last_ks_.values["asc-tlogt"]
    for (q, key), index in panel._hist_traces.items():
        counts = np.asarray(panel.stats_figure.data[index].y)
        assert counts.sum() == np.isfinite(values[key]).sum()
    assert panel.stats_figure.layout.xaxis.title.text.startswith("ASC")


def test_histograms_change_with_the_statistic(panel):
    index = panel._hist_traces["Q3", ("H1", "dre")]
    before = np.asarray(panel.stats_figure.data[index].x)
    panel.set(statistic="asc-hellinger")
    assert not np.allclose(before, np.asarray(panel.stats_figure.data[index].x))


def test_repeats_control_sets_r(panel):
    panel.set(R=50)
    assert panel.last_ks_.settings["R"] == 50
    index = panel._hist_traces["Q1", ("H0", "exact")]
    assert np.asarray(panel.stats_figure.data[index].y).sum() == 50


def test_live_ks_off_keeps_the_old_statistics_and_says_so(spies, panel):
    panel.set(live_ks=False)
    runs, bars = spies.ks_runs, ks_bars(panel)
    panel.set(sigma_c=0.2)
    assert spies.ks_runs == runs
    np.testing.assert_array_equal(ks_bars(panel), bars)
    assert "not updated" in panel.status.value
    panel.set(statistic="asc-log")  # redrawn from the old statistics, and titled with their setting
    assert "σ<sub>C</sub> = 0.100" in panel.stats_figure.layout.title.text
    panel.set(live_ks=True)
    assert spies.ks_runs == runs + 1
    assert "ready" in panel.status.value


def test_status_says_computing_while_ks_runs(panel, monkeypatch):
    seen = []
    original = experiments.synthetic_statistics

    def spy(*args, **kwargs):
        seen.append(panel.status.value)
        return original(*args, **kwargs)

    monkeypatch.setattr(experiments, "synthetic_statistics", spy)
    panel.set(sigma_c=0.09)
    assert len(seen) == 1 and "computing" in seen[0]


def test_maps_are_drawn_before_the_ks_computation_starts(panel, monkeypatch):
    seen = []
    original = experiments.synthetic_statistics

    def spy(*args, **kwargs):
        seen.append(z(panel.maps_figure, 1).copy())
        return original(*args, **kwargs)

    monkeypatch.setattr(experiments, "synthetic_statistics", spy)
    panel.set(sigma_c=0.13)
    estimate = on_grid(panel, panel.dre().ratio(panel.grid[2]))
    assert len(seen) == 1
    np.testing.assert_allclose(seen[0], estimate, **DRAWN)


def test_errors_in_a_callback_are_shown_in_the_panel(panel, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(panel.state, "maps", broken)
    panel.controls["sigma_c"].value = 0.21
    assert "Error" in panel.status.value and "boom" in panel.status.value
    assert panel.settings["sigma_c"] == DEFAULTS["sigma_c"]  # back at the last settings that drew


def test_a_failing_set_rolls_the_controls_back_and_the_next_set_redraws():
    # k = 60 passes validation (the slider goes to 100) but exceeds the kNN classifier's training
    # set (at most 2 N = 40 points): the fit fails inside the redraw.
    p = ExplorerPanel(N=20, m=20, resolution=30, R=R, dre="knn", k=5)
    try:
        before, maps = p.settings, z(p.maps_figure, 1)
        with pytest.raises(ValueError, match="exceeds"):
            p.set(k=60, sigma_a=0.15)
        assert p.settings == before == p.last_valid_settings_
        assert p.state.settings == before
        assert "exceeds" in p.status.value and "k = 60" in p.status.value
        np.testing.assert_array_equal(z(p.maps_figure, 1), maps)
        p.controls["k"].value = 70  # a slider release in the browser: rolled back, not raised
        assert p.controls["k"].value == 5 and "k = 70" in p.status.value
        p.set(k=8)
        assert "Error" not in p.status.value and p.settings["k"] == 8
        X, deleted, _ = direct_setup(p)
        expected = KNNClassifierDRE(k=8).fit(X, deleted).ratio(p.grid[2])
        np.testing.assert_allclose(z(p.maps_figure, 1), on_grid(p, expected), **DRAWN)
    finally:
        p.close()


# ------------------------------------------------------------------------------------------
# bad values


@pytest.mark.parametrize(
    "settings, error",
    [
        (dict(lam=1.5), ValueError),
        (dict(lam=0.3), ValueError),  # outside the slider's range
        (dict(lam="0.8"), TypeError),
        (dict(sigma_c=-0.1), ValueError),
        (dict(sigma_c=0.5), ValueError),
        (dict(sigma_a=0.0), ValueError),
        (dict(k=0), ValueError),
        (dict(k=2.5), TypeError),
        (dict(seed=-1), ValueError),
        (dict(R=7), ValueError),
        (dict(dre="svm"), ValueError),
        (dict(dataset="mnist"), ValueError),
        (dict(map_mode="ratio"), ValueError),
        (dict(statistic="mmd"), ValueError),
        (dict(live_ks="yes"), TypeError),
        (dict(bandwidth=0.1), TypeError),
    ],
)
def test_bad_values_are_refused_and_change_nothing(panel, settings, error):
    before = panel.settings
    maps = z(panel.maps_figure, 1)
    with pytest.raises(error) as info:
        panel.set(**{"sigma_c": 0.2, **settings})  # a valid change along with the bad one
    assert str(info.value)
    assert panel.settings == before
    np.testing.assert_array_equal(z(panel.maps_figure, 1), maps)


def test_bad_values_are_refused_at_construction():
    with pytest.raises(ValueError, match="lam"):
        ExplorerPanel(lam=2.0)
    with pytest.raises(TypeError, match="unknown setting"):
        ExplorerPanel(sigma=0.1)


def test_dataset_accepts_the_paper_names(panel):
    panel.set(dataset="CKB-8")
    assert panel.settings["dataset"] == "ckb8"


# ------------------------------------------------------------------------------------------
# static figures


def test_snapshot_copies_the_panel_figures(panel):
    import plotly.graph_objects as go

    snap = panel.snapshot()
    assert set(snap) == {"maps", "ks", "statistics"}
    for key, live in (("maps", panel.maps_figure), ("ks", panel.ks_figure), ("statistics", panel.stats_figure)):
        assert type(snap[key]) is go.Figure
        assert len(snap[key].data) == len(live.data)
        assert snap[key].layout.width is None
    np.testing.assert_array_equal(trace_array(snap["maps"].data[1].z), z(panel.maps_figure, 1))


def test_precomputed_ks_figure_steps_equal_synthetic_statistics():
    sigma_cs = [0.06, 0.1]
    kbc = sweep(Protocol("mog8", lam=0.8, R=R), [make_dre("kbc", s) for s in sigma_cs], cache=False, progress=False)
    fig = precomputed_ks_figure(kbc)
    steps = fig.layout.sliders[0].steps
    assert [s.label for s in steps] == ["0.060", "0.100"]
    assert fig.layout.sliders[0].active == 1  # the step at sigma_C = sigma_A
    for step, sigma_c in zip(steps, sigma_cs):
        direct = experiments.synthetic_statistics(Protocol("mog8", lam=0.8, R=R), KernelClassifierDRE(bandwidth=sigma_c))
        expected = [[direct.ks[q, stat] for q in QUESTIONS] for stat in RATIO_STATISTICS]
        np.testing.assert_allclose(step.args[0]["y"], expected)
    np.testing.assert_allclose([t.y for t in fig.data], steps[1].args[0]["y"])
    with pytest.raises(ValueError, match="one lambda over KBC DREs"):
        precomputed_ks_figure(sweep(Protocol("mog8", N=60, m=20, R=R), [make_dre("knn", 5)], cache=False, progress=False))


# ------------------------------------------------------------------------------------------
# computing the next slider steps ahead, while the panel is idle


def _wait_for(condition, seconds=120.0):
    import time

    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.05)


def test_a_shown_panel_computes_the_next_sigma_c_steps_ahead(spies, monkeypatch):
    monkeypatch.setattr(ExplorerPanel, "prefetch", True)
    monkeypatch.delenv("GENDEL_BOOK_BUILD", raising=False)
    p = ExplorerPanel(N=60, m=20, resolution=20, R=R)
    try:
        assert p._prefetcher is None and spies.ks_runs == 1  # built, not shown: nothing ahead
        p._repr_mimebundle_()                                # shown in a notebook
        _wait_for(lambda: len(p._ahead) == 2)
        assert spies.ks_runs == 3 and spies.dre_fits == 3      # sigma_C = 0.1 and its two neighbours
        p.controls["sigma_c"].value = 0.1 + 0.005             # a key press (the browser sends 0.10500000000000001)
        assert p.state.settings["sigma_c"] == 0.105               # one cache key for both
        assert "computed ahead" in p.status.value
        s = p.settings
        direct = spies.direct_statistics(Protocol(s["dataset"], lam=s["lam"], N=60, m=20, R=R, sigma_a=s["sigma_a"], seed=s["seed"]), KernelClassifierDRE(bandwidth=0.105))
        for trace, stat in zip(p.ks_figure.data, RATIO_STATISTICS):
            np.testing.assert_allclose(trace.y, [direct.ks[q, stat] for q in QUESTIONS], atol=1e-12)
        # the move started the next step ahead: 0.11 (0.1 is cached)
        _wait_for(lambda: len(p._ahead) == 3)
        assert spies.ks_runs == 4
        p.controls["sigma_c"].value = 0.1                     # back: computed before, not ahead
        assert "from the cache" in p.status.value
    finally:
        p.close()


@pytest.fixture
def ahead_panel(spies, monkeypatch):
    """A small panel with computing ahead on (the module's autouse fixture turns it off)."""
    monkeypatch.setattr(ExplorerPanel, "prefetch", True)
    p = ExplorerPanel(N=60, m=20, resolution=20, R=R)
    yield p
    p.close()


def test_set_and_the_book_build_do_not_compute_ahead(spies, ahead_panel, monkeypatch):
    p = ahead_panel
    monkeypatch.setenv("GENDEL_BOOK_BUILD", "1")
    p._repr_mimebundle_()
    p.controls["sigma_c"].value = 0.12
    monkeypatch.delenv("GENDEL_BOOK_BUILD")
    p.set(sigma_c=0.13)
    assert p._prefetcher is None and spies.ks_runs == 3


def test_computing_ahead_stops_when_the_controls_move(spies, ahead_panel):
    p = ahead_panel
    p._run_ahead(p._generation - 1, p._steps_ahead())    # steps of an earlier redraw
    assert spies.ks_runs == 1 and not p._ahead
    p._run_ahead(p._generation, p._steps_ahead())
    assert spies.ks_runs == 3 and len(p._ahead) == 2


def test_the_lru_computes_a_key_once_when_two_threads_ask():
    import threading
    import time

    from gendel.panels.base import LRUCache

    cache, calls, got = LRUCache(4), [], []

    def slow():
        calls.append(1)
        time.sleep(0.3)
        return 42

    threads = [threading.Thread(target=lambda: got.append(cache.get_or_compute("k", slow))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [42, 42] and len(calls) == 1

    def broken():
        time.sleep(0.3)
        raise RuntimeError("boom")

    errors = []

    def ask():
        try:
            cache.get_or_compute("bad", broken)
        except RuntimeError as exc:
            errors.append(str(exc))

    threads = [threading.Thread(target=ask) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == ["boom", "boom"] and "bad" not in cache


def test_ready_statistics_are_drawn_before_the_maps(panel, monkeypatch):
    import gendel.panels.explorer as GW

    order = []
    for name in ("draw_maps", "draw_ks"):
        original = getattr(GW, name)
        monkeypatch.setattr(GW, name, lambda *a, _f=original, _n=name, **k: (order.append(_n), _f(*a, **k))[1])
    panel.set(sigma_c=0.13)                 # to be computed: the maps first
    assert order == ["draw_maps", "draw_ks"]
    order.clear()
    panel.set(sigma_c=DEFAULTS["sigma_c"])  # cached: the small KS message first
    assert order == ["draw_ks", "draw_maps"]


def test_no_message_to_the_browser_leaves_a_trace_key_undefined(monkeypatch):
    # plotly's batch_update sends, for each edited trace, every key another trace of the batch
    # changed, with Undefined (null in the browser: "back to the default") where this trace did not
    # change it; a ratio map then loses its colour range in the browser. No message may hold one.
    from plotly.basedatatypes import Undefined

    sent = []
    p = ExplorerPanel(R=R, resolution=40, N=100, m=50)
    try:
        for fig, name in ((p.maps_figure, "maps"), (p.ks_figure, "ks"), (p.stats_figure, "stats")):
            original = fig.plotly_update

            def record(restyle_data=None, relayout_data=None, trace_indexes=None, _o=original, _n=name, **kw):
                sent.append((_n, dict(restyle_data or {}), trace_indexes))
                return _o(restyle_data=restyle_data, relayout_data=relayout_data, trace_indexes=trace_indexes, **kw)

            monkeypatch.setattr(fig, "plotly_update", record)
        for change in [dict(sigma_c=0.12), dict(map_mode="difference"), dict(lam=0.7), dict(dataset="ckb8"),
                       dict(statistic="asc-log"), dict(dre="knn", k=7), dict(sigma_a=0.15, seed=2)]:
            p.set(**change)
        assert any(len(idx or []) > 1 for _, _, idx in sent)  # batches of several traces were sent
        for name, restyle, indexes in sent:
            for key, values in restyle.items():
                assert all(v is not Undefined for v in values), (
                    f"{name}: a message sets {key!r} for traces {indexes} but leaves it undefined for some")
    finally:
        p.close()
