"""One palette: the paper's three model colours mean one thing on every page.

Orange is the pre-trained model (H0), green the re-trained model (H1) and light blue the
approximated model (§5.1). Every other curve takes its colour from
``gendel.plotting.common.NEUTRALS`` (or the lambda and statistic colours built from it), and
the colours reserved for the models, with their near shades, appear nowhere else.
"""

import re
from pathlib import Path

import numpy as np
import pytest

from gendel.plotting import common
from gendel.synthetic.sampling import QUESTIONS

ROOT = Path(__file__).resolve().parents[1]
HEX = re.compile(r"#[0-9A-Fa-f]{6}\b")
#: Words that name the model a line draws; a reserved colour may only appear next to one of them.
MODEL_WORDS = ("H0", "H1", "pre-trained", "re-trained", "approximated", "accepted", "COLORS")


def _rgb(colour):
    colour = colour.lstrip("#")
    return tuple(int(colour[i:i + 2], 16) for i in (0, 2, 4))


def _near(a, b, tol=40):
    return max(abs(x - y) for x, y in zip(_rgb(a), _rgb(b))) <= tol


def _near_reserved(colour):
    return any(_near(colour, r) for r in common.RESERVED)


def test_the_model_colours_are_reserved():
    assert {common.COLORS[k] for k in ("D", "H0", "H1")} <= common.RESERVED


@pytest.mark.parametrize("name", ["NEUTRALS", "LAMBDA_COLORS", "STAT_COLORS"])
def test_other_colours_keep_away_from_the_model_colours(name):
    colours = getattr(common, name)
    colours = colours.values() if isinstance(colours, dict) else colours
    near = [c for c in colours if _near_reserved(c)]
    assert not near, f"{name} holds colours close to a model colour: {near}"


def test_palettes_of_the_plotting_modules_are_the_neutrals():
    from gendel.plotting import theory, vdm_dre as vdm
    from gendel.plotting.deletion_test import _style as style

    assert theory.PALETTE == common.NEUTRALS
    assert vdm.PALETTE == common.NEUTRALS
    assert set(style._PALETTE) <= set(common.NEUTRALS)
    assert not any(_near_reserved(c) for c in style.STATISTIC_COLORS.values())
    # one colour per statistic, none shared with another statistic, a critical line or another curve
    colours = list(style.STATISTIC_COLORS.values())
    assert set(colours) <= set(common.NEUTRALS) and len(set(colours)) == len(colours)
    assert style._CRITICAL_COLOR not in colours and not set(style._PALETTE) & set(colours)


def _sources():
    yield from (p for p in (ROOT / "gendel").rglob("*.py") if p != ROOT / "gendel/plotting/common.py")
    yield from (p for p in (ROOT / "book").rglob("*.md") if "_build" not in p.parts)


def test_a_model_colour_is_only_used_for_its_model():
    offending = []
    for path in _sources():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for colour in HEX.findall(line):
                if "scale" in line:      # stops of a continuous colour scale draw no curve
                    continue
                if _near_reserved(colour) and not any(w in line for w in MODEL_WORDS):
                    offending.append(f"{path.relative_to(ROOT)}:{number}: {colour}: {line.strip()[:80]}")
    assert not offending, "model colours (or near shades) used for something else:\n" + "\n".join(offending)


def test_the_check_notices_a_gold_line():
    """The check above can fail: a gold line for lambda = 0.9 is near the pre-trained orange."""
    assert _near_reserved("#C7B200") and _near_reserved("#E6A000")
    assert not _near_reserved("#3A1F6E")


def _hue(colour):
    import colorsys

    h, _, s = colorsys.rgb_to_hls(*(c / 255 for c in _rgb(colour)))
    return 360 * h, s


def test_the_framework_diagram_tints_only_model_boxes_in_model_colours():
    """Fig. 1.1: a box filled with a tint of a model colour is that model's box (same outline)."""
    svg = (ROOT / "book/figures/framework.svg").read_text(encoding="utf-8")
    models = [common.COLORS[k] for k in ("D", "H0", "H1")]
    offending = []
    for fill, stroke in re.findall(r'<rect[^>]*fill="(#[0-9A-Fa-f]{6})"[^>]*stroke="(#[0-9A-Fa-f]{6})"', svg):
        hue, saturation = _hue(fill)
        for model in models:
            if saturation > 0.05 and abs(hue - _hue(model)[0]) < 20 and stroke.upper() != model.upper():
                offending.append(f"fill {fill} (a tint of {model}) on a box outlined in {stroke}")
    assert not offending, "\n".join(offending)
    assert len(re.findall(r"<rect", svg)) >= 8


# --- overlapping distributions keep their two colours ----------------------------------------------


def _alpha(fill):
    m = re.fullmatch(r"rgba\((\d+), (\d+), (\d+), ([\d.]+)\)", fill or "")
    return float(m.group(4)) if m else 1.0


@pytest.fixture(scope="module")
def small_kbc():
    from gendel.core.dre import make_dre
    from gendel.synthetic.experiments import Protocol, sweep

    return sweep(Protocol("mog8", N=60, m=20, R=12), [make_dre("kbc", s) for s in (0.075, 0.1)], lams=[0.6, 0.8], labels=["0.075", "0.1"], cache=False, progress=False)


@pytest.mark.parametrize("question", ["Q1", "Q2", "Q3"])
def test_ks_violins_fill_one_side_only_and_show_both_ends(small_kbc, question):
    """Fig. 4: of the two overlapping violins of a row one is a pale fill, the other an outline;
    the row's axis holds both soft ends of the curves (with a margin) at every slider step."""
    from gendel.plotting import synthetic as S
    from gendel.plotting.synthetic._common import _plotly_bandwidth

    fig = S.ks_curve_figure(small_kbc, question)
    violins = [t for t in fig.data if t.type == "violin"]
    assert len(violins) == 4
    for first, second in zip(violins[::2], violins[1::2]):
        assert 0 < _alpha(first.fillcolor) <= 0.3 and _alpha(second.fillcolor) == 0.0
        assert second.line.width >= 2
        assert first.line.color != second.line.color
    steps = fig.layout.sliders[0].steps
    for j, step in enumerate(steps):
        layout = step.args[1]
        for i, lam in enumerate(small_kbc.lams):
            lo, hi = layout[f"xaxis{i + 2}.range"]
            for key in QUESTIONS[question]:
                v = small_kbc.results[i][j].values["lr"][key]
                v = v[np.isfinite(v)]
                h = _plotly_bandwidth(v)
                assert lo < v.min() - 2 * h and hi > v.max() + 2 * h


def test_explorer_histograms_fill_one_side_only_in_the_chapters_colours():
    from gendel.panels.explorer_figures import build_stats_figure
    from gendel.plotting.synthetic import sample_color

    fig, hist_traces = build_stats_figure()
    for q, pair in QUESTIONS.items():
        first, second = (fig.data[hist_traces[q, key]] for key in pair)
        assert 0 < _alpha(first.fillcolor) <= 0.3 and _alpha(second.fillcolor) == 0.0
        assert second.line.width > first.line.width
        for trace, key in zip((first, second), pair):
            assert trace.line.color == sample_color(q, key)
    # Q1's side scored with rho_hat_E is the dark brown that the chapter's index announces
    assert fig.data[hist_traces["Q1", ("H0", "dre")]].line.color == sample_color("Q1", ("H0", "dre"))
    assert sample_color("Q1", ("H0", "dre")) != common.COLORS["H0"]
