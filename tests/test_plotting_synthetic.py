"""Figure builders of the synthetic-data chapter: gendel.plotting.synthetic.

Small sweeps (N = 80, m = 30, R = 12) keep these fast. Each slider test decodes the data the
slider steps carry and checks that different steps really show different data, and that the
data are the numbers they claim to be (KS values, maps of the exact ratio).
"""

import base64

import numpy as np
import plotly.graph_objects as go
import pytest

from gendel.core.dre import KernelClassifierDRE, KNNClassifierDRE, make_dre
from gendel.synthetic import experiments as E
from gendel.synthetic.experiments import ratio_maps, sweep
from gendel.synthetic.sampling import QUESTIONS, Protocol, setup
from gendel.plotting import common, synthetic as S
from gendel.plotting.maps import RATIO_ZMAX
from gendel.plotting.synthetic import sliders
from gendel.synthetic import data

SMALL = dict(N=80, m=30, R=12, sigma_a=0.1, seed=3)
RUN = dict(cache=False, progress=False)
SIGMAS = (0.075, 0.1, 0.125)
KS_ = (3, 6)
LAMS = (0.6, 0.8)


@pytest.fixture(scope="module")
def kbc():
    return sweep(Protocol("mog8", **SMALL), [KernelClassifierDRE(bandwidth=s) for s in SIGMAS], lams=LAMS, **RUN)


@pytest.fixture(scope="module")
def knn():
    return sweep(Protocol("mog8", **SMALL), [KNNClassifierDRE(k=k) for k in KS_], lams=LAMS, **RUN)


def decode(spec):
    """A typed-array spec of a slider step back to a numpy array."""
    dtype = {"f4": np.float32, "f8": np.float64, "u1": np.uint8, "u2": np.uint16}[spec["dtype"]]
    arr = np.frombuffer(base64.b64decode(spec["bdata"]), dtype=dtype)
    if "shape" in spec:
        arr = arr.reshape([int(s) for s in spec["shape"].split(",")])
    return arr


def axis_titles(fig):
    """Title text of every x/y axis that some trace is drawn on."""
    used = set()
    for t in fig.data:
        used.add(("xaxis" + (t.xaxis or "x")[1:]))
        used.add(("yaxis" + (t.yaxis or "y")[1:]))
    return {name: (fig.layout[name].title.text if fig.layout[name].title else None) for name in used}


def slider(fig):
    assert fig.layout.sliders, "the figure has no slider"
    return fig.layout.sliders[0]


def check_slider_labels(fig, values, prefix):
    s = slider(fig)
    assert [st.label for st in s.steps] == [f"{v:g}" for v in values]
    assert s.currentvalue.prefix == prefix


# ------------------------------------------------------------------------------------------
# Maps


def test_ratio_maps_slider_steps_hold_the_maps_of_each_lambda():
    lams = (0.6, 0.9)
    maps = ratio_maps(Protocol("mog8", N=80), [make_dre("kbc", 0.1), make_dre("knn", 5)], lams=lams, resolution=12)
    fig = S.ratio_maps_figure(maps, initial_lam=0.9)
    assert len(fig.data) == 3 and all(isinstance(t, go.Heatmap) for t in fig.data)
    check_slider_labels(fig, lams, "λ = ")
    assert slider(fig).active == 1
    steps = [st.args for st in slider(fig).steps]
    assert all(list(args[1]) == [0, 1, 2] for args in steps)
    z = [[decode(spec) for spec in args[0]["z"]] for args in steps]
    # every map changes with lambda (another deletion set)
    assert all(not np.array_equal(a, b) for a, b in zip(z[0], z[1]))
    # the KBC with sigma_C = sigma_A is the exact ratio (Example 1): identical colour codes
    for maps in z:
        assert np.array_equal(maps[0], maps[1])
    # panel (a) is the exact ratio, coded on [0, RATIO_ZMAX]
    X, deleted, exact = setup(Protocol("mog8", lam=0.6, N=80, seed=0))
    ratio = np.exp(E.evaluate_on_grid(exact.log_ratio, data.EXTENT["mog8"], 12)[2])
    np.testing.assert_allclose(z[0][0] / sliders.LEVELS * RATIO_ZMAX, ratio, atol=RATIO_ZMAX / sliders.LEVELS)
    assert all(t for t in axis_titles(fig).values())


def test_bandwidth_maps_bottom_row_follows_sigma_and_matches_top_row_at_sigma_a():
    sigmas = (0.05, 0.1, 0.2)
    lams = (0.6, 0.8)
    maps = ratio_maps(Protocol("ckb8", N=80), [make_dre("kbc", s) for s in sigmas], lams=lams, resolution=10)
    fig = S.bandwidth_maps_figure(maps, initial_sigma=0.05)
    assert len(fig.data) == 2 * len(lams)
    check_slider_labels(fig, sigmas, "σ<sub>C</sub> = ")
    top = [np.asarray(fig.data[i].z) for i in range(len(lams))]
    by_step = [[decode(spec) for spec in st.args[0]["z"]] for st in slider(fig).steps]
    assert all(list(st.args[1]) == [2, 3] for st in slider(fig).steps)
    assert not np.array_equal(by_step[0][0], by_step[2][0])
    for a, b in zip(top, by_step[1]):  # sigma_C = sigma_A = 0.1: the KBC is rho_hat
        assert np.array_equal(a, b)
    # every x axis is titled; the x₂ title (and y tick labels) of column 1 serve its row
    titles = axis_titles(fig)
    first_col = {f"yaxis{'' if i == 1 else i}" for i in (1, len(lams) + 1)}
    assert all(t for name, t in titles.items() if name.startswith("xaxis") or name in first_col)
    assert first_col <= set(titles)


def test_setup_figure_shows_the_protocol_data():
    p = Protocol("mog8", lam=0.7, N=80)
    X, deleted, exact = setup(p)
    fig = S.setup_figure(p, X, deleted, exact, resolution=20)
    heat = [t for t in fig.data if isinstance(t, go.Heatmap)]
    dots = [t for t in fig.data if isinstance(t, go.Scatter)]
    assert len(heat) == 5 and len(dots) == 2
    assert sorted(len(t.x) for t in dots) == sorted([int(deleted.sum()), int((~deleted).sum())])
    assert fig.layout.coloraxis.colorbar.title.text
    assert all(t for t in axis_titles(fig).values())


@pytest.mark.parametrize("dataset", ["mog8", "ckb8"])
def test_true_densities_integrate_to_one_over_the_window(dataset):
    fig = S.true_density_figure(dataset, lams=(0.9, 0.5), resolution=200)
    assert len(fig.data) == 3
    x0, x1, y0, y1 = data.EXTENT[dataset]
    cell = (x1 - x0) / 199 * (y1 - y0) / 199
    for t in fig.data:
        assert np.asarray(t.z, dtype=float).sum() * cell == pytest.approx(1.0, abs=0.03)
    # lambda < 1 moves mass from the re-weighted components to the others: the panels differ
    assert not np.allclose(np.asarray(fig.data[0].z), np.asarray(fig.data[2].z))


# ------------------------------------------------------------------------------------------
# KS curves


@pytest.mark.parametrize("question", ["Q1", "Q2", "Q3"])
def test_ks_curve_slider_moves_markers_to_the_ks_values(kbc, question):
    fig = S.ks_curve_figure(kbc, question, "lr", initial_sigma=0.125)
    n = len(LAMS)
    assert len(fig.data) == n + n + 2 * n  # lines, rings, two violins per lambda
    check_slider_labels(fig, SIGMAS, "σ<sub>C</sub> = ")
    assert slider(fig).active == 2
    ks = kbc.ks(question, "lr")
    for line, row in zip(fig.data[:n], ks):
        np.testing.assert_allclose(line.y, row)
    for j, st in enumerate(slider(fig).steps):
        data, layout, idx = st.args
        assert st.method == "update" and len(idx) == 3 * n
        assert [x[0] for x in data["x"][:n]] == [SIGMAS[j]] * n
        np.testing.assert_allclose([y[0] for y in data["y"][:n]], ks[:, j])
        texts = [text for key, text in layout.items() if key.startswith("annotations")]
        assert len(texts) == n and all(f"KS = {ks[i, j]:.3f}" in text for i, text in enumerate(texts))
    side = QUESTIONS[question][1]
    a = decode(slider(fig).steps[0].args[0]["x"][n + 1])
    np.testing.assert_allclose(a, kbc.results[0][0].values["lr"][side].astype(np.float32))
    titles = axis_titles(fig)
    assert titles["xaxis"] and titles["yaxis"]


def test_ks_curve_default_sigma_is_the_largest_below_sigma_a(kbc):
    assert slider(S.ks_curve_figure(kbc, "Q1")).active == 0


def test_ks_panels_one_line_per_lambda_and_statistic(kbc, knn):
    fig = S.ks_panels_figure(kbc, "Q2")
    assert len(fig.data) == 4 * len(LAMS)
    np.testing.assert_allclose(fig.data[len(LAMS)].y, kbc.ks("Q2", "asc-log")[0])
    assert all(t for t in axis_titles(fig).values())
    fig = S.ks_panels_figure(knn, "Q1", stats=("lr",))
    assert fig.layout.xaxis.type == "log" and list(fig.layout.xaxis.tickvals) == list(KS_)


def test_variation_figure_one_line_per_variation(kbc):
    p, dres = Protocol("mog8", lam=0.8, **SMALL), [KernelClassifierDRE(bandwidth=s) for s in SIGMAS]
    variations = {"a": sweep(p, dres, **RUN), "R = 6": sweep(p.replace(R=6), dres, **RUN)}
    fig = S.variation_figure(variations, "Q3")
    assert len(fig.data) == 2
    np.testing.assert_allclose(fig.data[1].y, variations["R = 6"].ks("Q3", "lr")[0])
    assert "1/R = 0.167" in fig.data[1].name
    assert fig.layout.xaxis.title.text and fig.layout.yaxis.title.text
    with pytest.raises(ValueError, match="single lambda"):
        S.variation_figure({"two lambdas": kbc}, "Q1")


# ------------------------------------------------------------------------------------------
# Ridgelines and acceptance rates


def test_ridgeline_lambda_slider_redraws_every_row(kbc, knn):
    fig = S.ridgeline_figure({"kbc": kbc, "knn": knn}, "Q3", stats=("lr", "asc-tlogt"), initial_lam=0.8)
    curves = [t for t in fig.data if isinstance(t, go.Scatter) and t.fill == "toself"]
    assert len(curves) == 2 * 2 * (len(SIGMAS) + len(KS_))  # 2 statistics, 2 sides per row
    assert {c.line.color for c in curves} == {common.COLORS["H0"], common.COLORS["H1"]}
    check_slider_labels(fig, LAMS, "λ = ")
    assert slider(fig).active == 1
    a, b = (st.args for st in slider(fig).steps)
    assert list(a[2]) == list(b[2]) and len(a[0]["y"]) == len(curves)
    assert all(not np.array_equal(decode(x), decode(y)) for x, y in zip(a[0]["y"], b[0]["y"]))
    notes = [v for k, v in b[1].items() if k.startswith("annotations")]
    assert len(notes) == 2 * (len(SIGMAS) + len(KS_)) and all(0 <= float(n) <= 1 for n in notes)
    assert all(t for t in axis_titles(fig).values())


def test_ridgeline_rejects_a_wrong_family_or_missing_lambda(kbc, knn):
    with pytest.raises(ValueError, match="not a sweep over kNN"):
        S.ridgeline_figure({"knn": kbc}, "Q2")
    with pytest.raises(ValueError, match="no results"):
        S.ridgeline_figure({"kbc": kbc}, "Q2", lams=(0.6, 0.7), initial_lam=0.6)
    with pytest.raises(ValueError, match="question"):
        S.ridgeline_figure({"kbc": kbc}, "Q4")


def test_acceptance_figure_reference_is_the_exact_rate(kbc, knn):
    fig = S.acceptance_figure({"mog8": {"kbc": kbc, "knn": knn}})
    assert len(fig.data) == 2 * 2 * len(LAMS)
    r = kbc.results[0][0]
    assert fig.data[1].y[0] == pytest.approx(1 - r.n_deleted / r.settings["N"])
    # the KBC with sigma_C = sigma_A samples the exact ratio: its rate is close to (N - N')/N
    assert fig.data[0].y[1] == pytest.approx(fig.data[1].y[0], abs=0.06)  # 3 s.e. of ~430 proposals


# ------------------------------------------------------------------------------------------
# Helpers and validation


def test_typed_arrays_round_trip():
    a = np.linspace(-1, 1, 12).reshape(3, 4)
    np.testing.assert_array_equal(decode(sliders.typed_array(a)), a.astype(np.float32))
    codes = sliders.color_codes(np.array([0.0, 1.0, 2.0, 5.0]), 2.0)
    assert list(codes) == [0, sliders.LEVELS // 2, sliders.LEVELS, sliders.LEVELS]


def test_bad_arguments_raise_clear_errors(kbc, knn):
    with pytest.raises(ValueError, match="initial_sigma"):
        S.ks_curve_figure(kbc, "Q1", initial_sigma=0.3)
    with pytest.raises(ValueError, match="KernelClassifierDRE"):
        S.ks_curve_figure(knn, "Q1")
    with pytest.raises(ValueError, match="stat"):
        S.ks_panels_figure(kbc, "Q1", stats=("KL",))
    with pytest.raises(ValueError, match="stat must be one of"):
        S.ks_panels_figure(kbc, "Q1", stats=("LR",))  # the registry's keys, not the old spellings
    with pytest.raises(TypeError, match="expected a Protocol"):
        S.setup_figure("mog9", None, None, None)
    p = Protocol("mog8", lam=0.7, N=60)
    with pytest.raises(ValueError, match="the 60 points of the protocol"):
        S.setup_figure(p, *setup(p.replace(N=80)))
    with pytest.raises(ValueError, match="KBC DREs"):
        S.bandwidth_maps_figure(ratio_maps(p, [make_dre("knn", 5)], resolution=4))
    with pytest.raises(ValueError, match="a variation may change"):
        E.variation_sweeps(Protocol("mog8", lam=0.8), {"bad": {"sigma_a": 0.2}})


def test_chapter_grids_contain_the_papers_settings():
    assert {0.075, 0.1, 0.125} <= set(E.SIGMA_C)
    assert np.allclose(sorted(np.array(E.SIGMA_C) - S.SIGMA_A), -np.array(sorted(np.array(E.SIGMA_C) - S.SIGMA_A))[::-1])
    assert {10, 20} <= set(E.KNN_K)
    assert E.LAMBDAS == (0.5, 0.6, 0.7, 0.8, 0.9)
    assert (S.N, S.M, S.R, S.SIGMA_A) == (400, 400, 250, 0.1)


# ------------------------------------------------------------------------------------------
# One colour scale for the ratio maps, and figures small enough for a page


def test_every_ratio_map_uses_the_one_ratio_scale():
    from gendel.plotting.framework import ratio_map_grid_figure
    from gendel.plotting.maps import RATIO_ZMAX, ratio_colorscale, ratio_heatmap

    xs = ys = np.linspace(-2.0, 2.0, 5)
    ones = np.ones((5, 5))
    expected = ratio_colorscale(RATIO_ZMAX)
    p = Protocol("mog8", lam=0.7, N=80)
    setup_fig = S.setup_figure(p, *setup(p), resolution=10)
    ratio_trace = [t for t in setup_fig.data if isinstance(t, go.Heatmap) and t.zmax is not None]
    assert [(t.zmin, t.zmax) for t in ratio_trace] == [(0.0, RATIO_ZMAX)]
    maps = ratio_maps(Protocol("mog8", N=60), [make_dre("kbc", 0.1)], lams=(0.6,), resolution=8)
    coded = [S.ratio_maps_figure(maps, initial_lam=0.6), S.bandwidth_maps_figure(maps, initial_sigma=0.1)]
    for fig in coded:  # colour codes 0..LEVELS stand for ratios 0..RATIO_ZMAX
        for t in fig.data:
            assert [list(s) for s in t.colorscale] == expected
            assert float(t.colorbar.ticktext[-1]) == RATIO_ZMAX
    plain = [ratio_heatmap(xs, ys, ones), *ratio_map_grid_figure([("a", xs, ys, 1.1 * ones)], "mog8").data,
             ratio_trace[0]]
    for t in plain:
        assert (t.zmin, t.zmax) == (0.0, RATIO_ZMAX) and [list(s) for s in t.colorscale] == expected
    assert RATIO_ZMAX == 2.0  # every exact ratio is below B = N / (N - N') < 2


def test_setup_figures_fit_a_page():
    # three setup figures and two density grids on one page of at most 1 MiB (2.2 MB before)
    import plotly.io as pio

    from gendel.plotting.common import BOOK_RENDERER

    def html_bytes(fig):
        return len(pio.renderers[BOOK_RENDERER].to_mimebundle(fig.to_dict())["text/html"].encode())

    p = Protocol("mog8", lam=0.8)
    assert 3 * html_bytes(S.setup_figure(p, *setup(p))) + 2 * html_bytes(S.true_density_figure("mog8")) < 900_000


def test_setup_figure_title_says_which_reading():
    literal, other = Protocol("mog8", lam=0.7, N=40), Protocol("mog8", lam=0.7, N=40, variance=0.01)
    literal, other = (S.setup_figure(p, *setup(p), resolution=8) for p in (literal, other))
    first_line = [fig.layout.title.text.split("<br>")[0] for fig in (literal, other)]
    assert first_line[0] != first_line[1] and "0.01" in first_line[1]
