"""Tables of the theorem checks: a statement, what it compares, the result and the verdict."""

from __future__ import annotations

import re

from gendel.plotting.common import markdown_table, plotly_text

#: The columns of a power table: one row for the theorem as printed, one per wrong statement.
POWER_HEADER = ("statement", "what is compared", "result", "verdict")


def _cell(text):
    """Braced sub- and superscripts as HTML tags, and the remaining underscores escaped for Markdown."""
    return re.sub(r"(?<!\\)_", r"\\_", plotly_text(str(text)))


def power_table(checks):
    """A Markdown table of bound checks, the statement as printed first and then the wrong statements.

    Parameters
    ----------
    checks : sequence of gendel.theory.bound_checks.BoundCheck
        Checks of one theorem on the same test draws (e.g. from
        :func:`gendel.theory.consistency.lr_rc_checks`).

    Returns
    -------
    str
        Markdown, for ``IPython.display.Markdown``.

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.theory.bound_checks import BoundCheck
    >>> from gendel.plotting.theory_checks import power_table
    >>> x = np.linspace(0, 1, 100)[None, :]
    >>> print(power_table([BoundCheck("x ≤ c_{N}", "x", [1], [1.0], x, 0.1),
    ...                    BoundCheck("x ≤ c_{N} / 10", "x", [1], [0.1], x, 0.1)]))
    | statement | what is compared | result | verdict |
    |---|---|---|---|
    | x ≤ c<sub>N</sub> | x | 0% of draws above the bound at N = 1 (a true statement allows up to 27%) | holds |
    | x ≤ c<sub>N</sub> / 10 | x | 90% of draws above the bound at N = 1 (a true statement allows up to 27%) | rejected |
    """
    checks = list(checks)
    if not checks:
        raise ValueError("need at least one check: pass the list returned by lr_rc_checks, lr_sup_checks or markov_checks")
    return markdown_table(POWER_HEADER, [[_cell(c) for c in check.row()] for check in checks])


__all__ = ["POWER_HEADER", "power_table"]
