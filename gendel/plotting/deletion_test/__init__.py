"""Figures of the chapter on the deletion test as a calibrated decision (§4, Appendix C).

Every builder takes numbers computed by :mod:`gendel.deletion_test.decision` (null statistics,
:class:`~gendel.deletion_test.calibration.PowerResult` objects, p-values) and returns a plotly figure;
nothing here draws samples.

==============================  ===========================================================
:func:`decision_figure`         null vs alternative statistics, the critical value, the
                                rejection region, the power and the type-I error
:func:`decision_slider_figure`  the same for several precomputed settings, with a slider
                                (interactive in the static book, no kernel needed)
:func:`power_figure`            rejection rate vs m (or another x), one line per statistic,
                                95 % intervals, the level α
:func:`roc_figure`              ROC curves (false vs true positive rate) with their AUC
:func:`pvalue_figure`           Monte-Carlo vs asymptotic p-values on log–log axes
:func:`type_one_table` ...      Markdown tables of computed rates (module ``tables``)
==============================  ===========================================================

Helpers: :func:`~gendel.deletion_test.calibration.critical_value` (the critical value of the Monte-Carlo rule) and
:func:`~gendel.deletion_test.calibration.rejects`, both from :mod:`gendel.deletion_test.calibration`; :func:`roc_curve`; and
:func:`decision_frame` (one slider step from a
:class:`~gendel.deletion_test.decision.DeletionTest` and its power result).

Submodules: ``decision`` (the decision figures), ``rates`` (power, ROC, p-values), ``tables``
(Markdown tables of rates, rivals and KS values) and ``_style`` (colours and layout helpers).
"""

from __future__ import annotations

from gendel.deletion_test.calibration import critical_value, rejects
from gendel.plotting.deletion_test.decision import decision_figure, decision_frame, decision_slider_figure
from gendel.plotting.deletion_test.rates import power_figure, pvalue_figure, roc_curve, roc_figure
from gendel.plotting.deletion_test._style import ALTERNATIVE_COLOR, NULL_COLOR, STATISTIC_COLORS
from gendel.plotting.deletion_test.tables import ks_table, rate_table, rivals_table, share_table, type_one_table

__all__ = ["ALTERNATIVE_COLOR", "NULL_COLOR", "STATISTIC_COLORS", "critical_value",
           "decision_figure", "decision_frame", "decision_slider_figure", "ks_table", "power_figure", "pvalue_figure",
           "rate_table", "rejects", "rivals_table", "roc_curve", "roc_figure", "share_table", "type_one_table"]
