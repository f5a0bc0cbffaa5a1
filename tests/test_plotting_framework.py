"""Figures and helpers of the framework chapters (gendel.plotting.framework)."""

import re

import numpy as np
import plotly.graph_objects as go
import pytest

from gendel.synthetic import data, experiments
from gendel.synthetic.sampling import Protocol, setup
from gendel.core import dre
from gendel.plotting.framework import (
    SECTOR_LABELS,
    coinciding_lines,
    mog8_sector,
    ratio_map_grid_figure,
    rejection_sampling_figure,
    sector_proportions,
    thin_grid,
)
from gendel.plotting import markdown_table
from gendel.plotting.maps import RATIO_ZMAX, ratio_grid


# --- sectors -----------------------------------------------------------------------------------


def test_sector_of_each_mog8_mean_is_its_component():
    assert mog8_sector(data.MOG8_MEANS).tolist() == list(range(8))
    # any radius, any angle inside the 45-degree wedge centred on theta_i
    for i in range(8):
        for offset in (-0.38, 0.0, 0.38):  # radians, inside +-pi/8 = 0.3927
            theta = 2 * np.pi * i / 8 + offset
            for radius in (0.1, 1.0, 7.0):
                point = radius * np.array([[np.cos(theta), np.sin(theta)]])
                assert mog8_sector(point)[0] == i


def test_sector_boundaries_are_halfway_between_means():
    eps = 1e-3
    for i in range(8):
        edge = 2 * np.pi * i / 8 + np.pi / 8
        inside = np.array([[np.cos(edge - eps), np.sin(edge - eps)]])
        outside = np.array([[np.cos(edge + eps), np.sin(edge + eps)]])
        assert mog8_sector(inside)[0] == i
        assert mog8_sector(outside)[0] == (i + 1) % 8


def test_sectors_recover_components_of_narrow_mixture():
    X, component = data.mog8(4000, rng=np.random.default_rng(0), variance=0.005)
    assert np.mean(mog8_sector(X) == component) > 0.99


def test_sector_proportions_sum_to_one_and_follow_weights():
    rng = np.random.default_rng(1)
    X, component = data.mog8(20_000, rng=rng, variance=0.005)  # clusters that do not overlap
    keep = ~data.deletion_mask("mog8", component, 0.5, rng=rng)
    p = sector_proportions(X[keep])
    assert p.shape == (8,) and np.isclose(p.sum(), 1.0)
    thinned = p[list(data.REWEIGHTED["mog8"])].sum()
    # re-weighted clusters carry lambda / (1 + lambda) = 1/3 of p_*' (standard error ~0.004)
    assert abs(thinned - 1 / 3) < 0.02


def test_sector_rejects_wrong_dimension():
    with pytest.raises(ValueError, match=r"shape \(n, 2\)"):
        mog8_sector(np.zeros((3, 3)))
    with pytest.raises(ValueError):
        mog8_sector(np.zeros(2))


# --- figures -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mog8_setup():
    return setup(Protocol("mog8", lam=0.6, N=200, sigma_a=0.1, seed=0))


def test_rejection_sampling_figure_structure(mog8_setup):
    X, deleted, exact = mog8_setup
    rng = np.random.default_rng(2)
    y = exact.pretrained_.sample(300, rng=rng)
    accepted = exact.ratio(y) > exact.ratio_bound_ * rng.random(300)
    props = {"a": (sector_proportions(y), "#000000"), "b": (sector_proportions(y[accepted]), "#111111")}
    fig = rejection_sampling_figure(X, deleted, y, accepted, props, title="T")
    scatters = [t for t in fig.data if isinstance(t, go.Scatter)]
    bars = [t for t in fig.data if isinstance(t, go.Bar)]
    assert len(scatters) == 4 and len(bars) == 2
    # every point of X and of the proposals is drawn exactly once
    assert len(scatters[0].x) + len(scatters[1].x) == len(X)
    assert len(scatters[1].x) == deleted.sum()
    assert len(scatters[2].x) + len(scatters[3].x) == len(y)
    assert len(scatters[3].x) == accepted.sum()
    assert all(list(b.x) == list(SECTOR_LABELS) and len(b.y) == 8 for b in bars)
    assert np.allclose(bars[1].y, props["b"][0])
    # all axes labelled
    for key in ("xaxis", "xaxis2", "xaxis3", "yaxis", "yaxis3"):
        assert getattr(fig.layout, key).title.text, key
    assert fig.layout.title.text == "T"


def test_rejection_sampling_figure_validates(mog8_setup):
    X, deleted, _ = mog8_setup
    y = np.zeros((5, 2))
    with pytest.raises(ValueError, match="one entry per row"):
        rejection_sampling_figure(X, deleted[:-1], y, np.ones(5, bool), {"a": (np.ones(8) / 8, "red")})
    with pytest.raises(ValueError, match="8 entries"):
        rejection_sampling_figure(X, deleted, y, np.ones(5, bool), {"a": (np.ones(7) / 7, "red")})
    with pytest.raises(ValueError, match="at least one"):
        rejection_sampling_figure(X, deleted, y, np.ones(5, bool), {})


def test_ratio_maps_figure_shares_one_colour_scale(mog8_setup):
    X, deleted, exact = mog8_setup
    knn = dre.KNNClassifierDRE(k=5).fit(X, deleted)
    maps = [("exact", *ratio_grid(exact, "mog8", 20)), ("knn", *ratio_grid(knn, "mog8", 20)),
            ("exact again", *ratio_grid(exact, "mog8", 20))]
    fig = ratio_map_grid_figure(maps, "mog8", cols=2, title="Fig. 3")
    heat = [t for t in fig.data if isinstance(t, go.Heatmap)]
    assert len(heat) == 3
    assert [t.showscale for t in heat] == [True, False, False]
    assert heat[0].colorbar.title.text
    expected_zmax = RATIO_ZMAX  # the book's one ratio scale, whatever the maps hold
    assert all(np.isclose(t.zmax, expected_zmax) and t.zmin == 0 for t in heat)
    # white sits at ratio 1 on the colour scale
    stops = {round(s[0], 9): s[1] for s in heat[0].colorscale}
    assert stops[round(1.0 / expected_zmax, 9)].upper() == "#F7F7F7"
    titles = [a.text for a in fig.layout.annotations]
    assert titles[:3] == ["exact", "knn", "exact again"]
    for key in ("xaxis", "xaxis2", "xaxis3", "yaxis", "yaxis3"):
        assert getattr(fig.layout, key).title.text, key


def test_ratio_maps_figure_thins_fine_grids_and_keeps_its_data_small():
    xs = ys = np.linspace(-2.0, 2.0, 150)
    ratio = 1.0 + 0.5 * np.sin(xs)[None, :] * np.cos(ys)[:, None]
    maps = [(f"map {k}", xs, ys, ratio) for k in range(6)]
    fig = ratio_map_grid_figure(maps, "mog8")
    assert all(np.asarray(t.z).shape == (75, 75) and len(t.x) == 75 for t in fig.data)
    assert all(np.asarray(t.z).dtype == np.float32 for t in fig.data)
    np.testing.assert_array_equal(np.asarray(fig.data[0].z), ratio[::2, ::2].astype(np.float32))
    # the classifier page's six 150 x 150 maps: 1.2 MB of HTML before, a fifth of it now
    import plotly.io as pio

    from gendel.plotting.common import BOOK_RENDERER

    assert len(pio.renderers[BOOK_RENDERER].to_mimebundle(fig.to_dict())["text/html"]) < 220_000
    assert thin_grid(xs[:40], ys[:40], ratio[:40, :40])[2].shape == (40, 40)  # coarse grids stay
    with pytest.raises(ValueError, match="max_points"):
        thin_grid(xs, ys, ratio, max_points=1)


def test_ratio_maps_figure_validates():
    with pytest.raises(ValueError, match="at least one"):
        ratio_map_grid_figure([], "mog8")
    xs = np.linspace(0, 1, 3)
    with pytest.raises(ValueError, match="cols"):
        ratio_map_grid_figure([("a", xs, xs, np.ones((3, 3)))], "mog8", cols=0)
    with pytest.raises(ValueError, match="dataset"):
        ratio_map_grid_figure([("a", xs, xs, np.ones((3, 3)))], "mog9")


# --- tables ------------------------------------------------------------------------------------


def test_markdown_table_formats_and_escapes():
    text = markdown_table(["name", "a|b"], [("x|y", 1.23456), ("z", 2)], ["", ".2f"])
    lines = text.splitlines()
    assert lines[0] == "| name | a\\|b |"
    assert lines[1] == "|---|---|"
    assert lines[2] == "| x\\|y | 1.23 |"
    assert lines[3] == "| z | 2.00 |"


def test_markdown_table_validates():
    with pytest.raises(ValueError, match="2 cells"):
        markdown_table(["a", "b"], [(1,)])
    with pytest.raises(ValueError, match="formats"):
        markdown_table(["a", "b"], [(1, 2)], [".2f"])


# --- the book's renderer -----------------------------------------------------------------------


def test_book_renderer_refits_each_figure_once_the_page_is_laid_out():
    """A figure drawn while the page is parsed is sized for a column wider than the final one;
    the renderer must hand that very figure to the page's gendelFigure, which resizes it after load
    and fits it to its column from then on (tests/test_browser.py checks widths on a desktop,
    tests/test_phone_layout.py on a phone)."""
    import re
    from pathlib import Path

    import plotly.io as pio

    from gendel.plotting.common import BOOK_RENDERER

    html = pio.renderers[BOOK_RENDERER].to_mimebundle(go.Figure(go.Scatter(x=[0, 1], y=[0, 1])).to_dict())[
        "text/html"]
    div_id = re.search(r'<div id="([^"]+)" class="plotly-graph-div"', html).group(1)
    assert f"window.gendelFigure('{div_id}')" in html
    script = (Path(__file__).resolve().parents[1] / "book" / "_static" / "gendel-layout.js").read_text()
    assert "window.gendelFigure = function (id)" in script
    assert "Plots.resize(gd)" in script and 'addEventListener("load"' in script
    assert "plotly.js v" not in html[:5000]  # plotly.js itself is served once per page, not inlined


def test_plotly_text_turns_tex_marks_into_what_plotly_shows():
    from gendel.plotting.common import plotly_text

    assert plotly_text("c_{N−N'} and x^{2}") == "c<sub>N−N'</sub> and x<sup>2</sup>"
    assert plotly_text("X \\ X'") == "X ∖ X'"
    assert plotly_text("ρ̂_ℰ") == "ρ̂<sub>ℰ</sub>" and plotly_text(None) is None   # the DRE's ratio, script ℰ as in the prose
    assert plotly_text("σ_C = 0.1, Y_H0, c_N, n_null") == "σ<sub>C</sub> = 0.1, Y<sub>H0</sub>, c<sub>N</sub>, n<sub>null</sub>"
    # hover-template variables, HTML tags and longer identifiers stay as they are
    assert plotly_text("%{customdata[0]}<extra>x_1</extra> max_k") == "%{customdata[0]}<extra>x<sub>1</sub></extra> max_k"


def test_a_subtitle_under_a_title_is_set_at_a_readable_size():
    """plotly draws <sup> at 70 % of the title's size: a settings line written <br><sup>…</sup>
    becomes a span of SUBTITLE_SIZE px; superscripts elsewhere, and inside it, stay superscripts."""
    import plotly.graph_objects as go

    from gendel.plotting.common import SUBTITLE_SIZE, plotly_text, readable_figure

    assert SUBTITLE_SIZE >= 12
    span = f"<span style='font-size:{SUBTITLE_SIZE}px'>"
    assert plotly_text("T<br><sup>m = 10<sup>3</sup>, x<sup>2</sup></sup><br><sup>B = 1</sup>") == (
        f"T<br>{span}m = 10<sup>3</sup>, x<sup>2</sup></span><br>{span}B = 1</span>")
    assert plotly_text("MMD<sup>2</sup> at 10<sup>-3</sup>") == "MMD<sup>2</sup> at 10<sup>-3</sup>"
    assert plotly_text(plotly_text("T<br><sup>s</sup>")) == plotly_text("T<br><sup>s</sup>")   # applied twice: the same
    assert plotly_text("T<br><sup>unclosed") == "T<br><sup>unclosed"
    fig = readable_figure(go.Figure(layout=dict(title="Label bars<br><sup>gpu profile</sup>", sliders=[dict(steps=[
        dict(method="relayout", label="1", args=[{"title.text": "Label bars<br><sup>B = 1</sup>"}])])])))
    assert span in fig.layout.title.text and span in fig.layout.sliders[0].steps[0].args[0]["title.text"]


def test_readable_figure_reaches_every_text_a_reader_sees():
    import plotly.graph_objects as go

    from gendel.plotting.common import _readable, readable_figure

    fig = go.Figure(go.Scatter(x=[0, 1], y=[0, 1], name="σ_C", legendgrouptitle_text="Y_D",
                               hovertemplate="%{x}<extra>σ_C</extra>"))
    fig.add_trace(go.Table(header=dict(values=["σ_A"]), cells=dict(values=[["c_N"]])))
    fig.update_layout(title="Y_H0", xaxis=dict(title="ρ̂_ℰ", tickvals=[0], ticktext=["σ_C"]),
                      annotations=[dict(text="c_N", x=0, y=0)],
                      sliders=[dict(currentvalue=dict(prefix="σ_C = "), steps=[
                          dict(label="σ_C = 0.1", method="skip"),
                          # what a step sets, as plotly.js paths: read after the slider moved
                          dict(label="m", method="relayout", args=[{"xaxis.title.text": "LR(Y, ρ̂_ℰ)",
                                                                    "annotations[0].text": "c_N", "yaxis_title": "Y_D",
                                                                    "xaxis.range": [0, 1]}])])],
                      updatemenus=[dict(buttons=[dict(label="σ_A", method="skip")])])
    readable_figure(fig)
    texts = [fig.data[0].name, fig.data[0].legendgrouptitle.text, fig.data[1].header.values[0],
             fig.data[1].cells.values[0][0], fig.layout.title.text, fig.layout.xaxis.title.text,
             fig.layout.xaxis.ticktext[0], fig.layout.annotations[0].text, fig.layout.sliders[0].currentvalue.prefix,
             fig.layout.sliders[0].steps[0].label, fig.layout.updatemenus[0].buttons[0].label]
    texts += list(fig.layout.sliders[0].steps[1].args[0].values())[:3]
    assert all("_" not in t and "<sub>" in t for t in texts), texts
    assert fig.layout.sliders[0].steps[1].args[0]["xaxis.range"] == [0, 1]
    assert fig.data[0].hovertemplate == "%{x}<extra>σ_C</extra>"
    assert _readable(fig.to_dict())["layout"]["title"]["text"] == "Y<sub>H0</sub>"


def test_raw_markup_check_of_the_browser_tests_can_fail():
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("tb", Path(__file__).with_name("test_browser.py"))
    tb = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tb)
    assert tb.raw_markup(["4(c_N + c_{N−N'} − 2)", "ok", "X \\ X'"], ["100µ", "1e-4"]) == [
        "4(c_N + c_{N−N'} − 2)", "X \\ X'", "100µ"]
    assert tb.raw_markup(["c<sub>N</sub>"], ["1e-4"]) == []
    assert tb.raw_markup(["approximated ρ̂_ℰ·p̂", "ρ̂<sub>ℰ</sub>"], []) == ["approximated ρ̂_ℰ·p̂"]


# --- the book's renderer -------------------------------------------------------------------------


def test_book_renderer_writes_float64_arrays_as_float32():
    import base64

    from gendel.plotting.common import BOOK_RENDERER, compact_figure
    import plotly.io as pio

    z = np.random.default_rng(0).random((60, 60))
    fig = go.Figure(go.Heatmap(z=z, x=np.linspace(-2.0, 2.0, 60), y=np.linspace(-2.0, 2.0, 60)))
    fig.add_scatter(x=[1.0, 2.0], y=np.array([1e-40, 1e-45]))  # float32 would round these to 0
    compact = compact_figure(fig.to_dict())
    heat, dots = compact["data"]
    assert heat["z"]["dtype"] == "f4" and heat["z"]["shape"] == "60, 60"
    shown = np.frombuffer(base64.b64decode(heat["z"]["bdata"]), np.float32).reshape(60, 60)
    np.testing.assert_allclose(shown, z, rtol=1e-7)  # hover labels print 3 or 4 digits
    assert dots["y"]["dtype"] == "f8"
    html = pio.renderers[BOOK_RENDERER].to_mimebundle(fig.to_dict())["text/html"]
    assert len(html) < 0.6 * len(fig.to_json()) and '"f8"' in html  # the tiny values stayed float64
    # base64 keeps its "/" (plotly writes \u002f); every other "/" and "<" stays escaped
    assert "\\u002f" not in "".join(re.findall(r'"bdata":"[^"]*"', html))
    fig.update_layout(title_text="a </script> b")
    html = pio.renderers[BOOK_RENDERER].to_mimebundle(fig.to_dict())["text/html"]
    assert "</script> b" not in html


# --- coinciding curves ----------------------------------------------------------------------------


def test_a_curve_on_top_of_another_is_dashed_and_named():
    """classifier_dre panel (b): logistic regression and its balanced-class fit give the same
    correlation; the second is dashed with open markers and names the first."""
    styles = coinciding_lines({"logistic": [0.10, 0.12, None], "balanced": [0.10, 0.121, 0.5],
                               "KBC": [0.9, 0.95, 0.97]})
    assert styles["logistic"] == ("solid", "circle", None)
    assert styles["balanced"] == ("dash", "circle-open", "logistic")
    assert styles["KBC"] == ("solid", "circle", None)
    assert coinciding_lines({"a": [0.1], "b": [0.2]}, tol=0.05)["b"][0] == "solid"
    with pytest.raises(ValueError, match="tol"):
        coinciding_lines({"a": [0.1]}, tol=-1)
