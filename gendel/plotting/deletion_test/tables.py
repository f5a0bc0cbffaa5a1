"""Tables of the deletion-test chapter, built from computed results (Markdown strings).

==============================  ===========================================================
:func:`type_one_table`          type-I error rates and whether each lies in the band of a
                                calibrated test
:func:`rate_table`              rejection rates, one row per setting, one column per statistic
:func:`rivals_table`            LR against its best rival at each setting, with the margin
:func:`share_table`             shares of independent outcomes with their exact intervals
:func:`ks_table`                KS between H0 and H1 statistics, and the power a test at
                                level α gets out of it
==============================  ===========================================================

Keys of :data:`gendel.deletion_test.stats.STATISTICS` and of
:data:`gendel.synthetic.data.DATASETS` are shown by their labels; nothing here computes a
statistic or draws a sample. Show a table with ``IPython.display.Markdown(table)``.
"""

from __future__ import annotations

from gendel.deletion_test.stats import STATISTICS
from gendel.plotting.common import markdown_table
from gendel.synthetic.data import DATASETS


def _label(value):
    """The label of a statistic or data-set key; other values as they are."""
    if isinstance(value, str):
        if value in STATISTICS:
            return STATISTICS[value].label
        return DATASETS.get(value, value)
    return value


def _keys(key):
    return key if isinstance(key, tuple) else (key,)


def _interval(result):
    return f"{result.rate:.2f} ({result.low:.2f}–{result.high:.2f})"


def type_one_table(rates, band, *, columns=("data", "statistic")):
    """Type-I error rates and whether each lies in ``band``, the 99 % band of a calibrated test.

    Parameters
    ----------
    rates : dict
        ``(data set, statistic) -> PowerResult`` under H0 (or keys of another length, named by
        ``columns``).
    band : (float, float)
        :func:`~gendel.deletion_test.calibration.type_one_band` of the tests' n_rep and n_null.

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.deletion_test.calibration import PowerResult
    >>> r = PowerResult.from_p_values(np.r_[np.zeros(3), np.ones(97)], alpha=0.05, m=50, statistics=np.zeros(100))
    >>> print(type_one_table({("mog8", "lr"): r}, (0.01, 0.1)))
    99 % band of a calibrated test: 0.010 – 0.100
    <BLANKLINE>
    | data | statistic | type-I error | inside the band? |
    |---|---|---|---|
    | MoG-8 | LR | 0.030 | yes |
    """
    low, high = band
    rows = [[*map(_label, _keys(key)), r.rate, "yes" if low <= r.rate <= high else "no"] for key, r in rates.items()]
    header = [*columns, "type-I error", "inside the band?"]
    return (f"99 % band of a calibrated test: {low:.3f} – {high:.3f}\n\n"
            + markdown_table(header, rows, [""] * len(columns) + [".3f", ""]))


def rate_table(rates, rows, statistics, *, columns=("data", "λ"), intervals=False):
    """Rejection rates, one row per setting and one column per statistic.

    Parameters
    ----------
    rates : dict
        ``(*setting, statistic) -> PowerResult``.
    rows : sequence
        The settings, in order (tuples, or single values for one setting column).
    statistics : sequence of str
        The statistics, in column order.
    columns : sequence of str
        The names of the setting columns.
    intervals : bool
        Show each rate's 95 % interval (the null sample's spread included) beside it.

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.deletion_test.calibration import PowerResult
    >>> r = PowerResult.from_p_values(np.r_[np.zeros(30), np.ones(70)], alpha=0.05, m=50, statistics=np.zeros(100))
    >>> print(rate_table({("mog8", 0.5, "lr"): r}, [("mog8", 0.5)], ["lr"]))
    | data | λ | LR |
    |---|---|---|
    | MoG-8 | 0.5 | 0.30 |
    """
    cell = _interval if intervals else (lambda r: f"{r.rate:.2f}")
    body = [[*map(_label, _keys(row)), *(cell(rates[(*_keys(row), s)]) for s in statistics)] for row in rows]
    return markdown_table([*columns, *map(_label, statistics)], body)


def rivals_table(rivals, *, setting="m"):
    """LR against its best rival at each setting (``gendel.claims.deletion_test.best_rivals``).

    "LR not beaten" means the rival's rate is not above LR's by more than the margin,
    1.96 times the standard error of the difference (the null samples' spread included).

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.claims.deletion_test import best_rivals
    >>> from gendel.deletion_test.calibration import PowerResult
    >>> rate = lambda r: PowerResult.from_rate(r, alpha=0.05, m=50, n_rep=300, null_sd=0.02, statistics=[], p_values=[])
    >>> print(rivals_table(best_rivals({"lr": [rate(0.35)], "asc-log": [rate(0.22)]}, [50])))
    | m | LR power | best other statistic | its power | margin | LR not beaten |
    |---|---|---|---|---|---|
    | 50 | 0.35 (0.28–0.42) | ASC (log t) | 0.22 (0.16–0.28) | 0.09 | yes |
    """
    body = [[_label(r.setting), _interval(r.lr), _label(r.rival), _interval(r.other), r.margin,
             "no" if r.beaten else "yes"] for r in rivals]
    return markdown_table([setting, "LR power", "best other statistic", "its power", "margin", "LR not beaten"], body,
                          ["", "", "", "", ".2f", ""])


def share_table(shares, header, *, columns=("statistic", "m")):
    """Shares of independent outcomes with their exact 95 % intervals.

    Parameters
    ----------
    shares : dict
        ``(*setting) -> (share, low, high)`` (``gendel.claims.deletion_test.shares``).
    header : str
        The title of the share column.

    Examples
    --------
    >>> print(share_table({("lr", 20): (0.0, 0.0, 0.0074)}, "type-I error"))
    | statistic | m | type-I error | 95 % interval |
    |---|---|---|---|
    | LR | 20 | 0.000 | 0.000–0.007 |
    """
    body = [[*map(_label, _keys(key)), share, f"{low:.3f}–{high:.3f}"] for key, (share, low, high) in shares.items()]
    return markdown_table([*columns, header, "95 % interval"], body, [""] * len(columns) + [".3f", ""])


def ks_table(ks, power, level):
    """KS between the statistic under H0 and H1, and the power minus the type-I error of a test at α.

    Parameters
    ----------
    ks : dict
        ``(statistic, m) -> KS statistic`` between the null and the alternative statistics.
    power : dict
        ``(statistic, m) -> PowerResult`` of the same alternative statistics.
    level : float
        The test's type-I error, :func:`~gendel.deletion_test.calibration.exact_level`
        (exact by construction, not measured).

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.deletion_test.calibration import PowerResult
    >>> r = PowerResult.from_p_values(np.r_[np.zeros(60), np.ones(40)], alpha=0.05, m=50, statistics=np.zeros(100))
    >>> print(ks_table({("lr", 50): 0.8}, {("lr", 50): r}, 25 / 501))
    | statistic | m | KS(H0, H1) | power − type-I error |
    |---|---|---|---|
    | LR | 50 | 0.80 | 0.55 |
    """
    if set(ks) != set(power):
        raise ValueError("ks and power must have the same (statistic, m) keys")
    body = [[_label(s), m, value, round(power[s, m].rate - level, 2) + 0.0] for (s, m), value in ks.items()]  # no -0.00
    return markdown_table(["statistic", "m", "KS(H0, H1)", "power − type-I error"], body, ["", "d", ".2f", ".2f"])


__all__ = ["ks_table", "rate_table", "rivals_table", "share_table", "type_one_table"]
