"""Names that moved when the plotting and deletion-test modules were split still import from their old paths.

``gendel.plotting.synthetic`` and ``gendel.plotting.deletion_test`` became packages, and the
calibration helpers of ``gendel.deletion_test.decision`` moved to ``gendel.deletion_test.calibration``. The book's pages,
the widgets, the benchmarks and users import from the old paths; these tests read the names the
pages use from the pages themselves, so a page that starts using a name checks it too.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"
#: The modules whose names these tests follow.
SPLIT = ("gendel.plotting.synthetic", "gendel.plotting.deletion_test", "gendel.deletion_test.decision", "gendel.deletion_test.calibration")

#: Names read from the old paths outside the book (widgets, tests, benchmarks, README).
OTHER_USERS = {
    "gendel.plotting.deletion_test": ["critical_value", "rejects", "decision_figure", "roc_curve", "STATISTIC_COLORS",
                                      "NULL_COLOR", "ALTERNATIVE_COLOR"],
    "gendel.deletion_test.decision": ["DeletionTest", "PowerResult", "TestResult", "STATISTICS", "METHODS",
                             "MMD_KERNELS", "check_alpha", "monte_carlo_p_values", "binomial_interval",
                             "type_one_band"],
    "gendel.plotting.synthetic": ["DATASET_LABELS", "sample_color", "EXTENT", "COLORS", "RATIO_ZMAX",
                                  "LAMBDAS", "SIGMA_C", "KNN_K", "KNN_LAMBDAS", "QUESTIONS"],
}

_FROM = re.compile(r"^from (gendel(?:\.\w+)*) import (.+)$", re.M)


def book_names():
    """(module, name) for every name a page imports from, or reads through an alias of, a split module."""
    found = set()
    for page in sorted(BOOK.rglob("*.md")):
        text = page.read_text()
        aliases = {}
        for module, names in _FROM.findall(text):
            for item in names.strip("()").split(","):
                name, _, alias = item.strip().partition(" as ")
                if not name or name.startswith("#"):
                    continue
                full = f"{module}.{name}"
                if full in SPLIT:  # from gendel.plotting import synthetic as S
                    aliases[alias or name] = full
                elif module in SPLIT:  # from gendel.deletion_test.decision import DeletionTest
                    found.add((module, name))
        for alias, module in aliases.items():
            found |= {(module, attr) for attr in re.findall(rf"(?<![\w.]){re.escape(alias)}\.(\w+)", text)}
    return sorted(found)


BOOK_NAMES = book_names()


def test_the_pages_use_names_of_every_split_module():
    # Guards the scan itself: if the page syntax changed and nothing were found, every test
    # below would pass vacuously.
    modules = {module for module, _ in BOOK_NAMES}
    assert {"gendel.plotting.synthetic", "gendel.plotting.deletion_test", "gendel.deletion_test.decision"} <= modules
    assert len(BOOK_NAMES) >= 20


@pytest.mark.parametrize("module,name", sorted(set(BOOK_NAMES) | {(m, n) for m, ns in OTHER_USERS.items() for n in ns}))
def test_name_imports_from_its_old_path(module, name):
    assert hasattr(importlib.import_module(module), name), f"{module}.{name} no longer imports: re-export it"


def test_moved_names_are_the_same_objects_as_in_their_new_homes():
    from gendel.deletion_test import calibration
    from gendel.deletion_test import decision as deletion_test
    from gendel.plotting import deletion_test as P
    from gendel.plotting import synthetic as S
    from gendel.plotting.synthetic import settings, sliders

    for name in calibration.__all__:
        assert getattr(deletion_test, name) is getattr(calibration, name), name
    assert P.critical_value is calibration.critical_value and P.rejects is calibration.rejects
    assert S.claim_verdict is settings.claim_verdict and S._codes is sliders.color_codes


def test_claim_verdict_is_the_claims_rule_but_refuses_no_case():
    from gendel.claims import verdict
    from gendel.plotting.synthetic import claim_verdict

    for passed, total in [(3, 3), (1, 3), (0, 3), (0, 1)]:
        assert claim_verdict(passed, total) == verdict(passed, total)
    with pytest.raises(ValueError, match="at least one checked case"):
        claim_verdict(0, 0)
