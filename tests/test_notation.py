"""One notation for the estimated ratio: ρ̂ with a script ℰ, in the prose ($\\hat\\rho_{\\mathcal E}$)
and in every figure, widget label and table gendel writes (ρ̂_ℰ, ρ̂<sub>ℰ</sub>); a roman E
(ρ̂_E) is the notation of no page."""

import re

from conftest import REPO

ROMAN_E = re.compile(r"ρ̂(?:_|<sub>)E(?![A-Za-z])")


def roman_e_places(paths):
    """``path:line`` of every line of ``paths`` that writes ρ̂ with a roman E."""
    return [f"{path.name}:{n}" for path in paths
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1) if ROMAN_E.search(line)]


def test_the_ratio_is_written_with_a_script_e_everywhere():
    paths = [*sorted((REPO / "gendel").rglob("*.py")), *sorted((REPO / "book").rglob("*.md"))]
    assert len(paths) > 50
    places = roman_e_places(paths)
    assert not places, f"ρ̂ with a roman E (write ρ̂_ℰ, or ρ̂<sub>ℰ</sub> in plotly text): {places[:10]}"


def test_a_roman_e_is_found(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("the label ρ̂_E·p̂\nρ̂<sub>E</sub>\nρ̂_ℰ, ρ̂_Exact and ρ̂_E2\n", encoding="utf-8")
    assert roman_e_places([page]) == ["page.md:1", "page.md:2", "page.md:3"]
