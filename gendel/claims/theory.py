"""The theorems of §2.2, §2.3 and §4 as claims: numerical checks in, verdicts out.

The theory pages of the book check each theorem on learners with explicit densities and end each
section with a verdict (:mod:`gendel.theory`). The checks that are one call of a check function
(a :class:`gendel.theory.bound_checks.BoundCheck` or a mean-bound check per statement) are
collected here as :class:`~gendel.claims.Claim` rows, so that the book's closing page can show them
beside the claims of the experiments: :func:`theorem` turns checks into a claim, :func:`theory_checks`
runs the checks with the theory pages' settings (about a minute on two CPU cores), :func:`theory`
does both.

This module is not imported by :mod:`gendel.claims` itself, so the 2-D chapters do not load it.
"""

from __future__ import annotations

import numpy as np

from gendel.theory import settings as S
from gendel.claims.base import Claim, verdict


def _result(check):
    """One check's worst case, in words (:meth:`BoundCheck.result` or the mean-bound check's)."""
    return check.result() if hasattr(check, "result") else check.verdict


def theorem(key, text, where, checks, labels=None, *, beside=(), note=""):
    """A theorem, checked in one or several parts: the verdict rule of every theorem of the book.

    The parts that count are the checks of the statement **as printed**, one per setting it is
    checked in (a scale, a learner, each of its inequalities). The verdict is ``verdict`` over
    them: "holds" when every part holds, "partly" when some do, "does not hold" when none does.
    Checks of *another* statement, such as a corrected bound or a reading of the statement that
    the errata show to be invalid, go to ``beside``: they are listed in the numbers after "not
    counted", with their own results, and do not change the verdict, whether they hold or not.

    Parameters
    ----------
    key, text, where : str
        As for :class:`~gendel.claims.Claim`.
    checks : sequence
        Checks of the statement as printed, each with a ``verdict`` of "holds" or "rejected" and,
        optionally, a ``result()`` in words (:class:`gendel.theory.bound_checks.BoundCheck`).
    labels : sequence of str, optional
        What each check covers (a setting, a scale); shown in the numbers.
    beside : sequence of (str, check), optional
        Checks of other statements, each with what it checks ("the corrected bound (errata E6),
        L = 1"); shown after the counted parts, not counted.
    note : str
        Appended to the numbers.

    Returns
    -------
    Claim
        Its details hold ``checks_passed`` and ``checks_total`` (the counted parts) and
        ``beside_passed`` and ``beside_total``.

    Examples
    --------
    >>> from gendel.theory.bound_checks import BoundCheck
    >>> x = np.random.default_rng(0).exponential(size=(1, 400))
    >>> ok = BoundCheck("P(x > 3) ≤ 0.05", "x", [1], [3.0], x, 0.05)
    >>> bad = BoundCheck("P(x > 0.3) ≤ 0.05", "x", [1], [0.3], x, 0.05)
    >>> [theorem("t", "a bound", "Thm. 0", parts).verdict for parts in ([ok, ok], [ok, bad], [bad, bad])]
    ['holds', 'partly', 'does not hold']

    A check of another statement is listed, not counted:

    >>> c = theorem("t", "a bound", "Thm. 0", [ok], ["as printed"], beside=[("a wrong reading", bad)])
    >>> c.verdict, c.numbers.split("; ")[1].split(",")[0]
    ('holds', 'not counted: a wrong reading: rejected')
    """
    checks, beside = list(checks), list(beside)
    labels = [None] * len(checks) if labels is None else list(labels)
    if len(labels) != len(checks):
        raise ValueError(f"need one label per check; got {len(labels)} labels for {len(checks)} checks")
    if not all(isinstance(b, (tuple, list)) and len(b) == 2 and isinstance(b[0], str) for b in beside):
        raise ValueError("beside must hold (what it checks, check) pairs, e.g. [('the corrected bound', check)]")
    unknown = [c.verdict for c in checks + [c for _, c in beside] if c.verdict not in ("holds", "rejected")]
    if unknown:
        raise ValueError(f"a check's verdict must be 'holds' or 'rejected'; got {unknown}")
    passed = sum(c.verdict == "holds" for c in checks)
    parts = [f"{label + ': ' if label else ''}{c.verdict}, {_result(c)}" for c, label in zip(checks, labels)]
    parts += [f"not counted: {label}: {c.verdict}, {_result(c)}" for label, c in beside]
    numbers = "; ".join(parts) + (f"; {note}" if note else "")
    return Claim(key, text, where, numbers, verdict(passed, len(checks)),
                 {"checks_passed": passed, "checks_total": len(checks),
                  "beside_passed": sum(c.verdict == "holds" for _, c in beside), "beside_total": len(beside)})


def _lbli_checks():
    """Thm. 3 on MoG-8 (N = 400, σ_A = 0.1): sup log ρ̂ against N'ε, ε at the smallest and at the full set."""
    from gendel.synthetic.data import EXTENT
    from gendel.core.dre import ExactKDERatio
    from gendel.synthetic.sampling import setup
    from gendel.theory import stability as st
    from gendel.theory.bound_checks import BoundCheck

    X, _, _ = setup(S.MOG8)
    N = len(X)
    order = np.random.default_rng(S.LBLI_ORDER_SEED).permutation(N)  # X' = the first N' points of this order
    n_del = np.array(S.LBLI_N_DELETED)
    numeric = np.array([st.numerical_sup_log_ratio(
        ExactKDERatio(bandwidth=0.1).fit(X, np.isin(np.arange(N), order[:nd])).log_ratio, EXTENT["mog8"])
        for nd in n_del])
    what = "sup log ρ̂ (numerical) against N'ε"
    return [BoundCheck("Thm. 3, ε at the smallest set", what, n_del, st.lbli_bound(N, n_del, size="smallest") + 1e-12,
                       numeric[:, None], 0.0, case_name="N'"),
            BoundCheck("Thm. 3, ε at the full set", what, n_del, st.lbli_bound(N, n_del, size="largest") + 1e-12,
                       numeric[:, None], 0.0, case_name="N'")]


def theory_checks():
    """The checks of the theorems as printed, with the settings of the theory pages (:mod:`gendel.theory.settings`).

    Returns ``{name: list of checks}`` for "thm1", "thm2" (unit circle, circle of circumference
    1/50), "thm2_corrected", "thm3" (ε at the smallest set, at the full set), "thm4", "thm6" (KL,
    Cantelli), "thm7" and "thm8_1". It repeats the draws of the theory pages (same seeds), about a
    minute on two CPU cores.

    Examples
    --------
    >>> checks = theory_checks()     # doctest: +SKIP
    >>> checks["thm1"][0].verdict    # doctest: +SKIP
    'holds'
    """
    from gendel.synthetic.sampling import setup
    from gendel.theory.approximation_checks import thm1_checks, thm2_checks
    from gendel.theory.circle import CircleModel
    from gendel.theory.consistency import consistency_sweep, lr_rc_checks, lr_sup_checks
    from gendel.theory.ratio_stability import error_stability_check, ratio_stability_run, rs_checks

    model = CircleModel(**S.CIRCLE)
    short = CircleModel(**S.CIRCLE, period=S.SHORT_PERIOD)
    runs = consistency_sweep(model, S.SIZES, R=S.R, seed=S.SWEEP_SEED)
    runs_short = consistency_sweep(short, S.SIZES, R=S.R, seed=S.SWEEP_SEED)
    unit, small = thm2_checks(runs, S.DELTA), thm2_checks(runs_short, S.DELTA)
    calibration = consistency_sweep(model, S.SIZES, R=S.R, seed=S.CALIBRATION_SEED)   # the constants only
    tests = consistency_sweep(model, S.SIZES, R=S.R, m=S.M_TEST, seed=S.SWEEP_SEED)   # the test draws
    rs = rs_checks([ratio_stability_run(model, n, R=S.R, seed=S.RS_CALIBRATION_SEED) for n in S.RS_SIZES],
                   [ratio_stability_run(model, n, R=S.R, seed=S.RS_TEST_SEED) for n in S.RS_SIZES], S.DELTA)
    _, _, exact = setup(S.MOG8)
    es = error_stability_check(exact.pretrained_, S.ES_SAMPLES, calibration_seed=S.ES_CALIBRATION_SEED,
                               test_seed=S.ES_TEST_SEED, deltas=S.ES_DELTAS)
    return {
        "thm1": [thm1_checks(runs, S.DELTA)[0]],
        "thm2": [unit[0], small[0]],
        "thm2_corrected": [unit[1], small[1]],
        "thm3": _lbli_checks(),
        "thm4": [rs[0]],
        "thm6": [es.kl_checks()[0], es.cantelli_checks()[0]],
        "thm7": [lr_rc_checks(calibration, tests, S.DELTA)[0]],
        "thm8_1": [lr_sup_checks(calibration, tests, S.DELTA)[0]],
    }


#: Where the book checks each theorem: ``{key: (page, label of the theorem's block, the page in short)}``.
THEORY_EVIDENCE = {
    "thm1": ("theory/approximation", "thm-approx-rc", "Approximation"),
    "thm2": ("theory/approximation", "thm-approx-tvc", "Approximation"),
    "thm3": ("theory/practicability", "thm-lbli", "Practicability"),
    "thm4": ("theory/practicability", "thm-rc-rs", "Practicability"),
    "thm6": ("theory/practicability", "thm-es", "Practicability"),
    "thm7": ("theory/tests_lr_asc", "thm-lr-rc", "Tests: LR and ASC"),
    "thm8_1": ("theory/tests_lr_asc", "thm-lr-approx", "Tests: LR and ASC"),
}


def theory(checks=None):
    """The theorems as claims, from :func:`theory_checks` (computed when ``checks`` is None).

    Parameters
    ----------
    checks : dict, optional
        ``{name: list of checks}`` as :func:`theory_checks` returns.

    Returns
    -------
    list of Claim
        In the paper's order; the keys are those of :data:`THEORY_EVIDENCE`.

    Examples
    --------
    With constructed checks (a deterministic bound that holds, one that fails):

    >>> from gendel.theory.bound_checks import BoundCheck
    >>> ok = BoundCheck("ok", "x", [1], [1.0], [[0.5]], 0.0)
    >>> bad = BoundCheck("bad", "x", [1], [0.1], [[0.5]], 0.0)
    >>> checks = dict.fromkeys(["thm1", "thm3", "thm4", "thm6", "thm7", "thm8_1"], [ok])
    >>> checks |= {"thm2": [ok, bad], "thm2_corrected": [ok, ok], "thm3": [ok, bad], "thm6": [ok, ok]}
    >>> [(c.key, c.verdict) for c in theory(checks)][:3]
    [('thm1', 'holds'), ('thm2', 'partly'), ('thm3', 'holds')]
    """
    c = theory_checks() if checks is None else checks
    missing = set(THEORY_EVIDENCE) - set(c) | ({"thm2_corrected"} - set(c))
    if missing:
        raise ValueError(f"the checks lack {sorted(missing)}; pass what theory_checks() returns")
    full_set = [("ε of the full set, a reading errata E9 shows invalid", c["thm3"][1])] if len(c["thm3"]) > 1 else []
    return [
        theorem("thm1", "under RC, ‖ρ̂_ℰ p̂ − p̂'‖₁ ≤ 4(c_N + c_{N−N'} − 2)", "Thm. 1, §2.2", c["thm1"],
                ["circle, N = 100 to 25,600"]),
        theorem("thm2", "under TVC, ‖ρ̂_ℰ p̂ − p̂'‖_{1,p̂} ≤ 2(ε_{N−N'} + ‖ρ_*‖∞ ε_N)", "Thm. 2, §2.2", c["thm2"],
                ["circle, L = 1", "L = 1/50"],
                beside=list(zip(["the corrected bound (errata E6), L = 1", "the corrected bound, L = 1/50"],
                                c["thm2_corrected"], strict=True))),
        theorem("thm3", "under ε-LBLI, log ‖ρ̂‖∞ ≤ N'ε", "Thm. 3, §2.3", c["thm3"][:1],
                ["KDE on MoG-8, ε of the smallest set (errata E9)"], beside=full_set),
        theorem("thm4", "(c_N, δ_N)-RC implies (2 log c_N, 2·δ_N)-RS", "Thm. 4, §2.3", c["thm4"],
                ["circle, N = 100 to 12,800"]),
        theorem("thm6", "under ES (N' = 1), KL(p̂‖p̂') ≤ √ε and a Cantelli tail bound on log ρ̂", "Thm. 6, §2.3", c["thm6"],
                ["KL bound", "Cantelli bound"]),
        theorem("thm7", "under RC, |LR(Y, ρ̂) − LR(Y, ρ̂_ℰ)| ≤ 2(log c_N + log c_{N−N'})", "Thm. 7, §4", c["thm7"],
                ["circle, N = 100 to 25,600"]),
        theorem("thm8_1", "‖log ρ̂ − log ρ̂_ℰ‖∞ ≤ ε implies |LR(Y, ρ̂) − LR(Y, ρ̂_ℰ)| ≤ ε", "Thm. 8(1), §4", c["thm8_1"],
                ["circle, N = 100 to 25,600"]),
    ]


__all__ = ["THEORY_EVIDENCE", "theorem", "theory", "theory_checks"]
