"""The theory checks' settings live in one place, gendel.theory.settings.

The theory pages and the closing page's theory rows (gendel.claims.theory.theory_checks) run the
same checks; both must take their settings and seeds from gendel.theory.settings, so that changing
a seed there changes both:

- theory_checks reads the settings when it runs (a changed seed reaches its draws);
- the pages' calls that draw the closing page's checks name the settings instead of literals.
"""

from __future__ import annotations

import re

import pytest

from conftest import REPO
from gendel.claims import theory as claims_theory
from gendel.theory import consistency, settings

#: Per page, the calls whose draws the closing page repeats, and the setting each must name.
SHARED_CALLS = {
    "approximation": {"CircleModel(": "settings.CIRCLE", "consistency_sweep(": "settings.R"},
    "practicability": {"CircleModel(": "settings.CIRCLE", "ratio_stability_run(model, n,": "settings.R",
                       "setup(": "settings.MOG8", "order = np.random.default_rng(": "settings.LBLI_ORDER_SEED",
                       "n_del = ": "settings.LBLI_N_DELETED", "error_stability_check(": "settings.ES_SAMPLES",
                       "deltas = ": "settings.ES_DELTAS"},
    "tests_lr_asc": {"CircleModel(": "settings.CIRCLE", "consistency_sweep(": "settings.R"},
}
_LITERAL = re.compile(r"\b(seed|R|m|amplitude|deletion_strength|period|calibration_seed|test_seed)=\s*[\d.]")


def literal_settings(text, calls):
    """The code lines of a page that make one of ``calls`` without taking its setting from gendel.theory.settings."""
    code = "\n".join(re.findall(r"```\{code-cell\}[^\n]*\n(.*?)```", text, re.S))
    bad = []
    for line in code.splitlines():
        for call, name in calls.items():
            if call in line and (name not in line or _LITERAL.search(line.split(call, 1)[1])):
                bad.append(line.strip())
    return bad


@pytest.mark.parametrize("page", sorted(SHARED_CALLS))
def test_the_pages_take_the_shared_settings_from_one_place(page):
    text = (REPO / "book" / "theory" / f"{page}.md").read_text()
    assert "from gendel.theory import settings" in text
    calls = SHARED_CALLS[page]
    code = "\n".join(re.findall(r"```\{code-cell\}[^\n]*\n(.*?)```", text, re.S))
    assert all(call in code for call in calls), f"book/theory/{page}.md no longer makes all of {list(calls)}"
    bad = literal_settings(text, calls)
    assert not bad, f"book/theory/{page}.md repeats settings of gendel.theory.settings as literals: {bad}"


def test_a_page_with_literal_settings_is_caught():
    page = ("```{code-cell} ipython3\nmodel = CircleModel(amplitude=0.5, deletion_strength=0.4)\n"
            "runs = consistency_sweep(model, Ns, R=settings.R, seed=0)\n"
            "calibration = consistency_sweep(model, Ns, R=settings.R, seed=settings.CALIBRATION_SEED)\n```\n")
    assert literal_settings(page, SHARED_CALLS["approximation"]) == ["model = CircleModel(amplitude=0.5, deletion_strength=0.4)",
                                      "runs = consistency_sweep(model, Ns, R=settings.R, seed=0)"]


class _Called(Exception):
    pass


def test_theory_checks_reads_the_settings_when_it_runs(monkeypatch):
    calls = []

    def record(model, sizes, **kwargs):
        calls.append((model, tuple(sizes), kwargs))
        raise _Called

    monkeypatch.setattr(consistency, "consistency_sweep", record)
    monkeypatch.setattr(settings, "SWEEP_SEED", 7)
    monkeypatch.setattr(settings, "R", 3)
    monkeypatch.setattr(settings, "SIZES", (50, 60))
    monkeypatch.setattr(settings, "CIRCLE", dict(amplitude=0.25, deletion_strength=0.5))
    with pytest.raises(_Called):
        claims_theory.theory_checks()
    (model, sizes, kwargs), = calls
    assert sizes == (50, 60) and kwargs == {"R": 3, "seed": 7}
    assert (model.amplitude, model.deletion_strength) == (0.25, 0.5)


def test_the_settings_are_those_of_the_paper_setting():
    # what the pages' prose states: N from 100 to 25,600 (to 12,800 for Thm. 4), R = 200, δ = 0.05
    assert settings.SIZES[0] == 100 and settings.SIZES[-1] == 25_600
    assert settings.RS_SIZES[-1] == 12_800 and settings.R == 200 and settings.DELTA == 0.05
    with pytest.raises(ValueError):
        settings.ES_DELTAS[0] = 1.0  # shared by reference: read-only
