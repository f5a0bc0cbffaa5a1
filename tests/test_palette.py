"""One palette: the paper's three model colours mean one thing on every page.

Orange is the pre-trained model (H0), green the re-trained model (H1) and light blue the
approximated model (§5.1). Every other curve takes its colour from
``gendel.plotting.common.NEUTRALS`` (or the lambda and statistic colours built from it), and
the colours reserved for the models, with their near shades, appear nowhere else.
"""

import re
from pathlib import Path

import pytest

from gendel.plotting import common

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
    from gendel.plotting import theory, vdm
    from gendel.plotting.deletion_test import style

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
