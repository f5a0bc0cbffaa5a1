"""The figure set: a reproduced figure written as PNG and SVG during the book build, nothing elsewhere."""

from __future__ import annotations

import struct
import zipfile
import xml.etree.ElementTree as ET
from pathlib import Path

import plotly.graph_objects as go
import pytest

from gendel.plotting import figure_set

ROOT = Path(__file__).resolve().parents[1]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
needs_browser = pytest.mark.skipif(figure_set.browser_path() is None,
                                   reason="no Chromium-based browser (apt-get install chromium, or set BROWSER_PATH): "
                                          "plotly's static export needs one")


def png_size(path):
    """(width, height) from a PNG's IHDR chunk; a ValueError if the file is not a PNG."""
    head = Path(path).read_bytes()[:24]
    if head[:8] != PNG_SIGNATURE or head[12:16] != b"IHDR":
        raise ValueError(f"{path} is not a PNG file")
    return struct.unpack(">II", head[16:24])


def small_figure():
    return go.Figure(go.Bar(x=["pre", "re", "approx"], y=[3, 1, 2], name="σ_C = 0.1"),
                     layout=dict(width=320, height=240, title="KS against σ_C"))


@pytest.fixture
def book_build(tmp_path, monkeypatch):
    """A kernel of the book build running a page two folders below the book's source folder."""
    page_dir = tmp_path / "src" / "book" / "synthetic"
    page_dir.mkdir(parents=True)
    monkeypatch.chdir(page_dir)
    monkeypatch.setenv("GENDEL_BOOK_BUILD", "1")
    monkeypatch.setenv(figure_set.FOLDER_ENV, str(tmp_path / "html" / figure_set.FOLDER_NAME))
    monkeypatch.setenv(figure_set.SOURCE_ENV, str(tmp_path / "src"))
    monkeypatch.setattr(figure_set, "_WRITTEN", set())
    return tmp_path / "html" / figure_set.FOLDER_NAME


@needs_browser
def test_the_build_writes_a_png_at_twice_the_size_and_an_svg(book_build, capsys):
    shown = []
    import IPython.display

    original = IPython.display.display
    IPython.display.display = shown.append
    try:
        figure_set.figure_downloads(small_figure(), "fig4a_demo_bars")
    finally:
        IPython.display.display = original
    png, svg = book_build / "fig4a_demo_bars.png", book_build / "fig4a_demo_bars.svg"
    assert png_size(png) == (2 * 320, 2 * 240)
    root = ET.parse(svg).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert (float(root.get("width")), float(root.get("height"))) == (320, 240)
    text = svg.read_text()
    assert "σ<" not in text.replace("σ</", "") and "σ_C" not in text  # the subscript is rendered, not raw
    # the line under the figure links both files from a page two folders deep
    (line,) = shown
    html = line.data
    assert 'href="../../figure-set/fig4a_demo_bars.png"' in html and 'href="../../figure-set/fig4a_demo_bars.svg"' in html
    assert (book_build.parent / "book" / "synthetic" / "../../figure-set/fig4a_demo_bars.png").resolve() == png.resolve()


@needs_browser
def test_the_zip_holds_every_file_written(book_build, monkeypatch):
    monkeypatch.setattr("IPython.display.display", lambda obj: None)
    for name in ("fig2_demo_setup", "appD1_demo_ks"):
        figure_set.figure_downloads(small_figure(), name)
    path, names = figure_set.zip_figure_set(book_build)
    with zipfile.ZipFile(path) as z:
        assert sorted(Path(n).name for n in z.namelist()) == names == sorted(
            f"{n}.{s}" for n in ("fig2_demo_setup", "appD1_demo_ks") for s in ("png", "svg"))
        assert z.read("gendel-figures/fig2_demo_setup.png")[:8] == PNG_SIGNATURE


@needs_browser
def test_an_svg_figure_is_copied_and_rendered_at_twice_its_viewbox(book_build, monkeypatch):
    monkeypatch.setattr("IPython.display.display", lambda obj: None)
    svg = ROOT / "book" / "figures" / "framework.svg"
    figure_set.svg_downloads(svg, "fig1_framework")
    box = [float(v) for v in ET.parse(svg).getroot().get("viewBox").split()]
    assert png_size(book_build / "fig1_framework.png") == (2 * box[2], 2 * box[3])
    assert (book_build / "fig1_framework.svg").read_bytes() == svg.read_bytes()


def test_an_svg_without_a_viewbox_is_refused(book_build, tmp_path):
    bad = tmp_path / "bad.svg"
    bad.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>')
    with pytest.raises(ValueError, match="has no viewBox"):
        figure_set.svg_downloads(bad, "fig1_bad")


def test_outside_the_build_nothing_is_written_or_shown(tmp_path, monkeypatch):
    monkeypatch.delenv("GENDEL_BOOK_BUILD", raising=False)
    monkeypatch.setenv(figure_set.FOLDER_ENV, str(tmp_path / "set"))
    monkeypatch.chdir(tmp_path)
    shown = []
    monkeypatch.setattr("IPython.display.display", shown.append)
    assert figure_set.figure_downloads(small_figure(), "fig2_demo_setup") is None
    assert shown == [] and not (tmp_path / "set").exists() and list(tmp_path.iterdir()) == []


def test_a_bad_name_is_refused_with_what_to_write(book_build):
    for bad in ("Fig 4a.png", "fig4a", "figure4a_mog8", "fig4a_MoG8", "mog8_ks"):
        with pytest.raises(ValueError, match="must start with the paper's figure"):
            figure_set.figure_downloads(small_figure(), bad)
    assert not book_build.exists()


@needs_browser
def test_a_name_used_twice_on_a_page_is_refused(book_build, monkeypatch):
    monkeypatch.setattr("IPython.display.display", lambda obj: None)
    figure_set.figure_downloads(small_figure(), "fig3_demo_maps")
    with pytest.raises(ValueError, match="used twice"):
        figure_set.figure_downloads(small_figure(), "fig3_demo_maps")


def test_without_a_browser_the_export_says_what_to_install(book_build, monkeypatch):
    monkeypatch.setattr(figure_set, "browser_path", lambda: None)
    with pytest.raises(figure_set.FigureExportError, match="apt-get install chromium"):
        figure_set.figure_downloads(small_figure(), "fig2_demo_setup")
    assert not book_build.exists()


def test_a_page_run_outside_sphinx_writes_nothing_and_shows_no_links(book_build, monkeypatch):
    # GENDEL_BOOK_BUILD=1 without the folder that book/_ext/figure_set.py names: no figure set
    monkeypatch.delenv(figure_set.FOLDER_ENV)
    shown = []
    monkeypatch.setattr("IPython.display.display", shown.append)
    assert figure_set.figure_downloads(small_figure(), "fig2_demo_setup") is None
    assert shown == [] and not book_build.exists()


def test_a_page_outside_the_source_folder_is_refused(book_build, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(figure_set.FigureExportError, match="outside the book's source folder"):
        figure_set.figure_downloads(small_figure(), "fig2_demo_setup")


def test_the_zip_refuses_a_figure_with_one_file_only(tmp_path):
    (tmp_path / "fig2_demo_setup.png").write_bytes(PNG_SIGNATURE)
    with pytest.raises(ValueError, match="without its .svg file"):
        figure_set.zip_figure_set(tmp_path)


def test_the_png_check_fails_on_a_file_that_is_not_a_png(tmp_path):
    fake = tmp_path / "fake.png"
    fake.write_bytes(b"<svg xmlns='http://www.w3.org/2000/svg'/>")
    with pytest.raises(ValueError, match="not a PNG"):
        png_size(fake)


def test_the_extension_is_configured_and_kaleido_is_in_the_book_extra():
    import tomllib

    import yaml

    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert config["sphinx"]["local_extensions"].get("figure_set") == "book/_ext"
    book = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["book"]
    assert any(line.replace(" ", "").startswith("kaleido") for line in book)


# --- a figure with a slider or buttons is written in its active state, without the controls ---

SVG = "{http://www.w3.org/2000/svg}"
COLORS = {"pre": "rgb(230, 159, 0)", "re": "rgb(0, 158, 115)", "approx": "rgb(86, 180, 233)"}


def slider_figure(active=1, **slider):
    """Three bar traces; step j shows trace j only, retitles the figure and moves the y range.

    The figure itself shows every trace under the title "all": only applying the active step
    gives its state."""
    names = list(COLORS)
    steps = [dict(method="update", label=label, args=[{"visible": [i == j for i in range(3)]},
                                                      {"title.text": f"only {names[j]}", "yaxis.range": [0, 4 + j]}])
             for j, label in enumerate(("0.075", "0.125", "0.25"))]
    return go.Figure([go.Bar(x=["a", "b"], y=[3, 1], name=n, marker_color=c) for n, c in COLORS.items()],
                     layout=dict(width=420, height=500, title="all", showlegend=True, margin=dict(t=60, b=40),
                                 sliders=[dict(active=active, steps=steps, currentvalue=dict(prefix="σ_C = "),
                                               **slider)]))


def svg_text(root):
    """The texts of an SVG as a reader sees them (tspans joined, zero-width spaces dropped)."""
    return [("".join(t.itertext())).replace("\u200b", "") for t in root.iter(f"{SVG}text")]


def classes(root):
    return {c for el in root.iter() for c in (el.get("class") or "").split()}


def plot_height(root):
    """Height in px of the plot area (the clip path of the x-y plot)."""
    (clip,) = [c for c in root.iter(f"{SVG}clipPath") if c.get("id", "").endswith("xyplot")]
    return float(clip.find(f"{SVG}rect").get("height"))


@needs_browser
def test_a_slider_figure_is_written_in_its_active_state_without_the_slider(tmp_path):
    png, svg = figure_set.write_figure(slider_figure(active=1), tmp_path, "fig4a_demo_slider")
    root = ET.parse(svg).getroot()
    assert not {c for c in classes(root) if c.startswith("slider")}, "the slider is drawn in the file"
    texts = svg_text(root)
    assert "σC = 0.125" in texts  # the active step's label, σ_C rendered with its subscript
    assert "only re" in texts and "all" not in texts  # the active step's title
    legend = [("".join(t.itertext())) for t in root.iter(f"{SVG}text") if "legendtext" in (t.get("class") or "")]
    assert legend == ["re"]  # the active step's trace alone
    fills = svg.read_text()
    assert COLORS["re"] in fills and COLORS["pre"] not in fills and COLORS["approx"] not in fills
    assert {"4", "5"} <= set(texts)  # ticks of the y range [0, 5] the step sets (the bars alone reach 3)
    assert png_size(png) == (2 * 420, 2 * float(root.get("height")))


@needs_browser
def test_the_space_of_a_removed_slider_is_given_back_and_the_plots_keep_their_size(tmp_path):
    fig = slider_figure(active=2, pad=dict(t=60))  # the slider 60 px under the plots, as in gendel.plotting.gan
    _, svg = figure_set.write_figure(fig, tmp_path, "fig7ab_demo_slider")
    written = ET.parse(svg).getroot()
    # the page: plotly's own export of the figure with its slider
    page = ET.fromstring(figure_set._export(fig.to_dict(), "svg", 420, 500, 1, "page"))
    assert {"slider-group", "slider-rail-rect"} <= classes(page)
    assert abs(plot_height(written) - plot_height(page)) <= 2
    shorter = float(page.get("height")) - float(written.get("height"))
    assert 40 <= shorter <= 90, f"the file is {shorter} px shorter than the page's figure"
    assert "σC = 0.25" in svg_text(written)


@needs_browser
def test_update_menu_buttons_are_removed_and_the_active_button_applied(tmp_path):
    fig = go.Figure([go.Scatter(y=[0, 1], name="line", line_color=COLORS["pre"])], layout=dict(
        width=400, height=300, updatemenus=[dict(type="buttons", active=1, buttons=[
            dict(label="orange", method="restyle", args=[{"line.color": COLORS["pre"]}]),
            dict(label="green", method="restyle", args=[{"line.color": COLORS["re"]}])])]))
    _, svg = figure_set.write_figure(fig, tmp_path, "fig2_demo_buttons")
    root = ET.parse(svg).getroot()
    assert not {c for c in classes(root) if c.startswith("updatemenu")}
    assert COLORS["re"] in svg.read_text() and COLORS["pre"] not in svg.read_text()
    assert "green" in svg_text(root) and "orange" not in svg_text(root)


def test_the_still_figure_applies_restyle_relayout_and_animate_as_plotly_js():
    from gendel.plotting._still import still_figure

    spec = {"data": [{"type": "scatter", "y": [0]}, {"type": "scatter", "y": [1], "x0": 3}],
            "layout": {"annotations": [{"text": "a"}, {"text": "b"}], "height": 400, "updatemenus": [
                dict(active=0, buttons=[dict(label="go", method="animate", args=[["late"]])])], "sliders": [dict(
                    active=1, y=0.5, steps=[dict(label="0", method="skip"), dict(label="1", method="update", args=[
                        {"y": [[5], [6]], "x0": [None]}, {"annotations[1].text": "B", "xaxis.range": [0, 1]},
                        [0, 1]])])]},
            "frames": [{"name": "late", "data": [{"marker": {"color": "red"}}], "traces": [1]}]}
    still, height = still_figure(spec, 400)
    assert [t["y"] for t in still["data"]] == [[5], [6]]
    assert "x0" not in still["data"][1]  # None resets an attribute, as in plotly.js
    assert still["data"][1]["marker"] == {"color": "red"}  # the animate button's frame
    assert [a["text"] for a in still["layout"]["annotations"]] == ["a", "B", "go", "1"]
    assert still["layout"]["xaxis"] == {"range": [0, 1]} and "sliders" not in still["layout"]
    assert height == 400  # a slider inside the plots frees no margin
    assert spec["data"][0]["y"] == [0] and "sliders" in spec["layout"]  # the figure given is left as it was
    plain = {"data": [], "layout": {"title": {"text": "t"}}}
    assert still_figure(plain, 300) == (plain, 300)
