"""The rules behind the sentences of the 2-D chapter, the classifier-DRE page, the GAN chapter (its
setup, Q2, Q3 and baselines pages) and the GAN deletion test.

A page computes its numbers where the reader sees them; what a sentence then says about them
(which question reacts most, whether a run's value is within the noise of fresh draws, whether
the paper's footnote is confirmed) is decided here, by a rule with tests
(``tests/test_readings.py``), and the page glues the words these functions return. Each rule takes
computed numbers, never draws any, and says which way the numbers went; none asserts that they
must go one way.

======================================  ================================================================
:func:`footnote_logistic`               §5.1's footnote: logistic regression captures far less
:func:`regularisation_summary`          does another C of the richer logistic models change the share?
:func:`below_zero`                      is a share below zero at every lambda?
:func:`deletion_sets`                   the realised deletion sets of the chapter against expectation
:func:`directions`                      each variation's value against the first ("lower", "higher")
:func:`resampling_reading`              a run's KS against fresh draws of its sample sets
:func:`covariance_readings`             which reading of the MoG-8 covariance gives the paper's claim
:func:`bandwidth_sensitivity`           which question reacts most to a wrong bandwidth
:func:`knn_zero_words`                  is a kNN DRE zero where the pre-trained model has mass?
:func:`first_m_reaching`                the first sample size m at which a test reaches a power
:func:`from_m_words`                    that sample size in words ("from *m* = 50")
:func:`both_data_sets_m_words`          those sizes on MNIST and Fashion-MNIST, in one phrase
:func:`same_as_before`                  "the same" where a second data set reads as the first
:func:`prediction_reading`              does a predicted type-I error follow the measured rates?
:func:`highest_rate_reading`            is LR's rejection rate the highest of the statistics?
:func:`more_often_reading`              does a test reject one model more often than another?
:func:`flatness_reading`                is the VDM ratio too flat, too steep or neither?
:func:`safe_sizing_reading`             does sizing m from the approximated model err on the safe side?
:func:`level_reading`                   does a test keep its level (rates inside a band)?
:func:`times_above_reading`             how far one sample size lies above another
:func:`smaller_reading`                 is one spread smaller than another?
:func:`share_words`                     a share in words ("more than half")
:func:`range_words`                     the range of a list of numbers, or why there is none
:func:`bound_exceeded_words`            did any proposal of Alg. 1 exceed its bound?
:func:`check_words`                     did a rule pass its check on known answers?
:func:`fingerprint_words`               were stored results made by today's code?
:func:`seal_reading`                    how stored results got their checksum (made with it, or sealed)
:func:`made_by_words`                   what code made stored results (today's, sealed, earlier)?
:func:`check_outcome_words`             did a check pass a statement or reject it?
:func:`all_words`                       "all of them" or "not all of them"
:func:`agreement_reading`               do measured quantities agree with a prediction?
:func:`consistency_reading`             which samplers does a goodness-of-fit test accept?
:func:`seeds_words`                     do the stored results cover every seed of their grid?
:func:`speedup_words`                   how much faster fast deletion reaches a quality
:func:`sample_size_words`               is a sample size a fraction of another, or more?
======================================  ================================================================
"""

from __future__ import annotations

import numpy as np

from gendel.claims.base import Claim, verdict


def footnote_logistic(captured, *, logistic="logistic regression", local=("KBC, σ_C = 0.125", "10-NN"),
                      factor=0.5):
    """The paper's footnote in §5.1: parametric classifiers (logistic regression) are less effective.

    Rule: logistic regression captures less than ``factor`` times the share of the deletion that
    the weaker of the ``local`` classifiers captures.

    Parameters
    ----------
    captured : dict
        Share of the deletion captured, ``1 - ||rho_hat_E p_hat - p_hat'||_1 / ||p_hat - p_hat'||_1``,
        by DRE name.

    Returns
    -------
    Claim
        ``details["word"]`` is "confirms" or "does not confirm" (the page's sentence).

    Examples
    --------
    >>> c = footnote_logistic({"logistic regression": 0.01, "KBC, σ_C = 0.125": 0.8, "10-NN": 0.6})
    >>> c.verdict, c.details["word"]
    ('holds', 'confirms')
    >>> footnote_logistic({"logistic regression": 0.4, "KBC, σ_C = 0.125": 0.8, "10-NN": 0.6}).details["word"]
    'does not confirm'
    """
    missing = [name for name in (logistic, *local) if name not in captured]
    if missing:
        raise ValueError(f"captured has no share for {missing}; pass one per DRE name, e.g. {{{logistic!r}: 0.01}}")
    weaker = min(float(captured[name]) for name in local)
    holds = float(captured[logistic]) < factor * weaker
    numbers = f"{logistic}: {float(captured[logistic]):.2f}; " + ", ".join(
        f"{name}: {float(captured[name]):.2f}" for name in local)
    return Claim("footnote_logistic", "parametric classifiers are less effective", "§5.1, footnote", numbers,
                 verdict(int(holds), 1), {"word": "confirms" if holds else "does not confirm"})


def regularisation_summary(share_by_C, Cs, *, reference=10, visible=5e-4, loss=0.05):
    """A sentence on what another C of the logistic models changes in the share of the deletion captured.

    A gain counts when it shows at three decimals (``visible``), a loss when it is one the eye
    sees in a table (``loss``).

    Parameters
    ----------
    share_by_C : dict
        ``name -> [share at each C of Cs]``; names "logistic, <features>" are written "the <features>".
    Cs : sequence
        The values of C, ``reference`` among them.

    Examples
    --------
    >>> regularisation_summary({"logistic, RBF features": [0.60, 0.63, 0.64]}, (1, 10, 100))
    'Another value of C captures more of the deletion than C = 10 for the RBF features (0.010 more with C = 100). No other value of C costs more than 0.05 of the share captured.'
    >>> regularisation_summary({"logistic, RBF features": [0.63, 0.63, 0.50]}, (1, 10, 100))
    'No other value of C captures more of the deletion than C = 10, for any of the three models. Moving C away from 10 costs a visible share of the deletion for the RBF features model at C = 100 (from 0.630 to 0.500).'
    """
    Cs = tuple(Cs)
    if reference not in Cs:
        raise ValueError(f"the reference C = {reference} is not among Cs = {Cs}")
    i = Cs.index(reference)
    better = {name: (Cs[int(np.argmax(shares))], max(shares) - shares[i])
              for name, shares in share_by_C.items() if max(shares) - shares[i] >= visible}
    if not better:
        summary = f"No other value of C captures more of the deletion than C = {reference}, for any of the three models."
    else:
        summary = (f"Another value of C captures more of the deletion than C = {reference} for " + " and ".join(
            f"the {name.removeprefix('logistic, ')} ({g:.3f} more with C = {c})" for name, (c, g) in better.items())
            + ".")
    worse = [(name.removeprefix("logistic, "), C, shares[i], v) for name, shares in share_by_C.items()
             for C, v in zip(Cs, shares) if shares[i] - v >= loss]
    if worse:
        summary += f" Moving C away from {reference} costs a visible share of the deletion for " + "; ".join(
            f"the {name} model at C = {C} (from {s:.3f} to {v:.3f})" for name, C, s, v in worse) + "."
    else:
        summary += f" No other value of C costs more than {loss:g} of the share captured."
    return summary


def below_zero(values):
    """"below zero" when every value is below zero, else "not always below zero".

    Examples
    --------
    >>> below_zero([-2.5, -0.1]), below_zero([-2.5, 0.1])
    ('below zero', 'not always below zero')
    """
    return "below zero" if max(values) < 0 else "not always below zero"


def deletion_sets(masks, in_reweighted, N, *, dataset="mog8"):
    """The realised deletion sets of the chapter against their expectation (the setup page).

    Parameters
    ----------
    masks : dict
        ``{dataset: {lam: boolean mask of X'}}`` over one X per data set.
    in_reweighted : dict
        ``{dataset: number of the N points in a re-weighted component}``.
    N : int
        The size of X.
    dataset : str
        The data set of the sentence on ``n_rw (1 - lam)``.

    Returns
    -------
    dict
        ``below_<d>``: the number of lambdas with N' < N (1 - lam) / 2; ``n_lams``; ``few``: at how
        many lambdas the ``dataset`` deletes fewer than ``n_rw (1 - lam)`` points, in words;
        ``nested``: whether each deletion set holds those of the larger lambdas, in words.

    Examples
    --------
    >>> import numpy as np
    >>> deleted = np.array([1, 0, 0, 0, 0, 0, 0, 0], bool)   # one of N = 8 points, at both lambdas
    >>> facts = deletion_sets({"mog8": {0.5: deleted, 0.9: deleted}}, {"mog8": 4}, 8)
    >>> facts["below_mog8"], facts["few"], facts["nested"].startswith("are nested")
    (1, 'at 1 of the 2 values of λ', True)
    """
    lams = sorted(next(iter(masks.values())))
    out = {}
    for d, by_lam in masks.items():
        out[f"below_{d}"] = sum(int(by_lam[lam].sum()) < N * (1 - lam) / 2 for lam in lams)
    out["n_lams"] = len(lams)
    few = sum(int(masks[dataset][lam].sum()) < in_reweighted[dataset] * (1 - lam) for lam in lams)
    out["few"] = "at every λ" if few == len(lams) else f"at {few} of the {len(lams)} values of λ"
    nested = all((by_lam[hi] <= by_lam[lo]).all() for by_lam in masks.values() for lo, hi in zip(lams, lams[1:]))
    out["nested"] = ("are nested: every point deleted at one λ is also deleted at every smaller λ" if nested
                     else "are not nested")
    return out


def directions(values):
    """Each value against the first: "lower" when it is smaller, else "higher" (the first is "higher").

    Examples
    --------
    >>> directions({"paper": 0.44, "m = 200": 0.34, "N = 200": 0.49})
    {'paper': 'higher', 'm = 200': 'lower', 'N = 200': 'higher'}
    """
    base = next(iter(values.values()))
    return {label: "lower" if v < base else "higher" for label, v in values.items()}


def resampling_reading(draw_means, base, run_value):
    """A run's mean KS against fresh draws of its sample sets (the R = 100 variation of Q1).

    Rule: the average of the fresh draws lies within two standard errors of ``base`` (the value
    of the paper's R): then lowering R does not by itself move the mean KS, and the run's
    ``run_value`` is mostly the draw of its sample sets.

    Returns
    -------
    dict
        ``n``, ``mean``, ``sd``, ``min``, ``max`` of the draws, ``z``: ``abs(run_value - mean) / sd``,
        and ``reading``: the sentence the rule gives.

    Examples
    --------
    >>> r = resampling_reading([0.43, 0.44, 0.45, 0.42], base=0.44, run_value=0.38)
    >>> round(r["z"], 1), r["reading"].startswith("Their average lies within two standard errors")
    (4.3, True)
    >>> resampling_reading([0.30, 0.31, 0.32, 0.29], base=0.44, run_value=0.38)["reading"].startswith(
    ...     "Their average differs from the paper's")
    True
    """
    draws = np.asarray(draw_means, dtype=float)
    if draws.size < 2:
        raise ValueError("resampling_reading needs at least two draws to estimate their spread")
    mean, sd = float(draws.mean()), float(draws.std(ddof=1))
    se = sd / np.sqrt(draws.size)
    within = abs(mean - base) <= 2 * se
    reading = (f"Their average lies within two standard errors ({2 * se:.3f}) of the paper's {base:.2f}: lowering "
               "R does not by itself move the mean KS, and the value of the R = 100 run is mostly the draw of "
               "its sample sets." if within else
               f"Their average differs from the paper's {base:.2f} by more than two standard errors ({2 * se:.3f}): "
               "lowering R by itself moves the mean KS.")
    return {"n": int(draws.size), "mean": mean, "sd": sd, "min": float(draws.min()), "max": float(draws.max()),
            "z": float(abs(run_value - mean) / sd), "reading": reading}


def covariance_readings(harder, mean_q3, critical, *, claimed=("Q1", "Q2")):
    """Which reading of the MoG-8 covariance gives the paper's "CKB-8 is harder" (Appendix D.2).

    Parameters
    ----------
    harder : dict
        ``{reading: questions for which CKB-8 is harder than that MoG-8}``
        (:func:`gendel.claims.ckb_harder_questions`).
    mean_q3 : dict
        ``{reading: mean KS of Q3}`` on that MoG-8.
    critical : float
        The KS critical value.
    claimed : tuple
        The questions for which the paper calls CKB-8 harder.

    Returns
    -------
    dict
        ``match``: the readings that give exactly ``claimed`` ("neither reading" if none), and
        ``q3_side``: where the mean KS of Q3 lies against ``critical`` under the readings.

    Examples
    --------
    >>> r = covariance_readings({"v = 0.1": ("Q3",), "v = 0.01": ("Q1", "Q2")}, {"v = 0.1": 0.8, "v = 0.01": 0.9}, 0.12)
    >>> r["match"], r["q3_side"]
    ('v = 0.01', 'lies above the critical value under both readings')
    """
    match = [name for name, questions in harder.items() if tuple(questions) == tuple(claimed)]
    above = [mean_q3[name] > critical for name in harder]
    q3_side = ("lies above the critical value under both readings" if all(above) else
               "lies below the critical value under both readings" if not any(above) else
               "lies above the critical value under one reading only")
    return {"match": " and ".join(match) or "neither reading", "q3_side": q3_side}


#: Why each question reacts to a wrong KBC bandwidth as it does (the explore page; MyST markdown).
_WHY = {
    "Q1": r"it asks whether $\hat{\rho}_{\mathcal E} = \hat{\rho}$ on samples of $\hat{p}$, and any "
          r"$\sigma_C \ne \sigma_A$ changes $\hat{\rho}_{\mathcal E}$ everywhere",
    "Q2": r"it judges samples of the approximated model $\hat{\rho}_{\mathcal E} \cdot \hat{p}$, and a wrong "
          r"$\sigma_C$ moves where Alg. 1 removes mass",
    "Q3": r"it needs $\hat{\rho}_{\mathcal E}$ to separate the pre-trained from the re-trained model, which a "
          r"wrong $\sigma_C$ blurs",
}


def bandwidth_sensitivity(lr_ks, sigma_cs, *, half=0.05, double=0.2):
    """Which question's KS of LR moves most as the KBC bandwidth moves, and which way is worse.

    Parameters
    ----------
    lr_ks : dict
        ``{question: [KS of LR at each sigma_C of sigma_cs]}`` for "Q1", "Q2", "Q3".
    sigma_cs : sequence of float
        The bandwidths, ``half`` and ``double`` (half and twice sigma_A) among them.

    Returns
    -------
    dict
        ``most`` (the question with the largest range), ``why`` (what that question asks),
        ``half`` and ``double`` (its KS there), ``worse`` ("halving" or "doubling"), ``remark``
        (whether the paper's remark "a larger sigma_C is sometimes better" shows) and ``q3_min``.

    Examples
    --------
    >>> ks = {"Q1": [0.9, 0.1, 0.5], "Q2": [0.3, 0.1, 0.2], "Q3": [0.7, 0.9, 0.8]}
    >>> r = bandwidth_sensitivity(ks, [0.05, 0.1, 0.2])
    >>> r["most"], r["worse"], r["q3_min"]
    ('Q1', 'halving', 0.7)
    """
    sigma_cs = [float(s) for s in sigma_cs]
    for name, value in (("half", half), ("double", double)):
        if not any(np.isclose(value, s) for s in sigma_cs):
            raise ValueError(f"{name} = {value} is not among sigma_cs = {sigma_cs}")
    spread = {q: max(v) - min(v) for q, v in lr_ks.items()}
    most = max(spread, key=spread.get)
    at = {s: i for i, s in enumerate(sigma_cs)}
    h = lr_ks[most][next(i for s, i in at.items() if np.isclose(s, half))]
    d = lr_ks[most][next(i for s, i in at.items() if np.isclose(s, double))]
    remark = "a larger σ<sub>C</sub> is sometimes better than a smaller one"
    return {
        "most": most, "why": _WHY[most], "half": h, "double": d, "worse": "halving" if h > d else "doubling",
        "remark": (f"This agrees with the paper's remark in §5.1 that {remark}." if h > d
                   else f"At this seed the paper's remark in §5.1, that {remark}, does not show."),
        "q3_min": min(lr_ks["Q3"]),
    }


def knn_zero_words(map_errors):
    """The sentence on kNN DREs that are zero where the pre-trained model has mass (infinite mean error).

    Examples
    --------
    >>> knn_zero_words({"kNN, k = 10": 0.3, "kNN, k = 20": float("inf")})
    'At this setting this happens for kNN, k = 20, whose mean error is infinite.'
    """
    infinite = [label for label, error in map_errors.items() if np.isinf(error)]
    if not infinite:
        return ("At this setting neither kNN DRE of the table is zero anywhere on the grid where p̂ has mass, "
                "so their errors are finite.")
    return "At this setting this happens for " + " and ".join(infinite) + ", whose mean error is infinite."


def first_m_reaching(rates, target=0.8):
    """The smallest sample size *m* at which a test's rejection rate reaches ``target``: the least ``m``
    of ``rates`` (``PowerResult`` objects of ``DeletionTest.power``, or anything with ``m`` and
    ``rate``) whose ``rate`` is at least ``target``; ``inf`` when none is.

    Examples
    --------
    >>> from types import SimpleNamespace as R
    >>> rates = [R(m=10, rate=0.3), R(m=50, rate=0.85), R(m=100, rate=0.79), R(m=200, rate=0.99)]
    >>> first_m_reaching(rates), first_m_reaching(rates, 0.95), first_m_reaching(rates, 1.0)
    (50, 200, inf)
    """
    if not 0 < target <= 1:
        raise ValueError(f"target must be a rejection rate in (0, 1]; got {target}")
    return min([r.m for r in rates if r.rate >= target], default=float("inf"))


def from_m_words(m, largest):
    """Where a power curve reaches its target, in words: "from *m* = 50", or "at no *m* up to 500"
    when ``m`` is infinite (:func:`first_m_reaching` found none on a grid that ends at ``largest``).

    Examples
    --------
    >>> from_m_words(50, 500), from_m_words(float("inf"), 500)
    ('from *m* = 50', 'at no *m* up to 500')
    """
    return f"from *m* = {m:g}" if np.isfinite(m) else f"at no *m* up to {largest:g}"


def both_data_sets_m_words(m_first, m_second, largest, names=("MNIST", "Fashion-MNIST")):
    """Where a power curve reaches its target on two data sets, in one phrase (:func:`from_m_words`).

    Examples
    --------
    >>> both_data_sets_m_words(50, 50, 500), both_data_sets_m_words(float("inf"), float("inf"), 500)
    ('from *m* = 50 on both data sets', 'at no *m* up to 500 on either data set')
    >>> both_data_sets_m_words(50, 100, 500)
    'from *m* = 50 on MNIST and from *m* = 100 on Fashion-MNIST'
    """
    if m_first == m_second:
        return (f"from *m* = {m_first:g} on both data sets" if np.isfinite(m_first)
                else f"at no *m* up to {largest:g} on either data set")
    return f"{from_m_words(m_first, largest)} on {names[0]} and {from_m_words(m_second, largest)} on {names[1]}"


def same_as_before(words, before, same="the same"):
    """``same`` where a second data set's reading repeats the first's, else the reading itself.

    Examples
    --------
    >>> same_as_before("too flat", "too flat"), same_as_before("too steep", "too flat")
    ('the same', 'too steep')
    """
    return same if words == before else words


def prediction_reading(inside, share=0.75):
    """Does a prediction follow measured rates? ``inside``: per prediction, whether it lies in the
    interval of the rate measured; it follows them when at least ``share`` of them do.

    Examples
    --------
    >>> prediction_reading([True, True, True, False]), prediction_reading([True, False, False, False])
    ('follows the measured rates', 'misses many of the measured rates')
    """
    inside = list(inside)
    if not inside:
        raise ValueError("prediction_reading needs at least one prediction")
    return "follows the measured rates" if sum(inside) >= share * len(inside) else "misses many of the measured rates"


def highest_rate_reading(rates, first="lr", tolerance=0.05, relevant=0.5):
    """Is the rejection rate of statistic ``first`` the highest at every sample size where some
    statistic rejects in more than ``relevant`` of the tests (or within ``tolerance`` of it)?
    ``rates``: ``{statistic: [rate per sample size]}``.

    Examples
    --------
    >>> highest_rate_reading({"lr": [0.2, 0.9], "asc": [0.3, 0.93]})
    "LR's rate is the highest, or within 0.05 of it"
    >>> highest_rate_reading({"lr": [0.2, 0.7], "asc": [0.3, 0.93]})
    "LR's rate is not always the highest"
    """
    n = len(rates[first])
    top = [max(r[i] for r in rates.values()) for i in range(n)]
    highest = all(rates[first][i] >= top[i] - tolerance for i in range(n) if top[i] > relevant)
    return (f"{first.upper()}'s rate is the highest, or within {tolerance:g} of it" if highest
            else f"{first.upper()}'s rate is not always the highest")


def more_often_reading(pairs, relevant=0.5):
    """Does a test reject one model far more often than another? ``pairs``: per sample size, the
    first model's rate and the upper end of the second's interval; wherever the first rejects in
    more than ``relevant`` of the tests it must exceed that upper end.

    Examples
    --------
    >>> more_often_reading([(0.3, 0.2), (0.9, 0.25)]), more_often_reading([(0.9, 0.95)])
    ('far more often than', 'not always more often than')
    """
    return ("far more often than" if all(a > high for a, high in pairs if a > relevant)
            else "not always more often than")


def flatness_reading(diff, se):
    """How δ − δ′ (the re-trained model's shift of LR minus the approximated model's) reads against
    its standard error: the VDM ratio is too flat, too steep, or neither within two standard errors.

    Examples
    --------
    >>> flatness_reading(0.3, 0.1).split(":")[0], flatness_reading(-0.3, 0.1).split(":")[0]
    ('too flat', 'too steep')
    >>> flatness_reading(0.1, 0.1).startswith("neither")
    True
    """
    if diff > 2 * se:
        return "too flat: it re-weights p̂ by less than re-training changed it, along the direction it points to"
    if diff < -2 * se:
        return "too steep: it re-weights p̂ by more than re-training changed it"
    return "neither too flat nor too steep within noise (δ − δ′ is within two standard errors of 0)"


def safe_sizing_reading(m_approx, m_re):
    """Does sizing the test's m from the approximated model err on the safe side? ``m_approx`` and
    ``m_re``: per data set, the m that 80 % power needs against the approximated and the re-trained
    model; safe when the approximated model needs more on every data set.

    Examples
    --------
    >>> safe_sizing_reading({"mnist": 400}, {"mnist": 100}).split(",")[0]
    'underestimates the power against a truly re-trained GAN here'
    >>> safe_sizing_reading({"mnist": 50}, {"mnist": 100}).startswith("does not bound")
    True
    """
    if all(m_approx[d] > m_re[d] for d in m_re):
        return ("underestimates the power against a truly re-trained GAN here, so sizing m from the approximated "
                "model errs on the safe side")
    return ("does not bound the power against a truly re-trained GAN here: on at least one data set the "
            "approximated model is the easier one to detect")


def level_reading(rates, high, words=("keeps", "does not keep")):
    """Do rejection rates stay at or below the upper end ``high`` of the band of a test at its level?

    Examples
    --------
    >>> level_reading([0.04, 0.06], 0.08), level_reading([0.04, 0.12], 0.08)
    ('keeps', 'does not keep')
    >>> level_reading([0.04], 0.08, ("stays in", "leaves"))
    'stays in'
    """
    return words[0] if all(r <= high for r in rates) else words[1]


def times_above_reading(value, reference, far=4):
    """How ``value`` (a sample size) compares with ``reference``: "far above" (at least ``far`` times),
    "above", or "not above".

    Examples
    --------
    >>> times_above_reading(400, 100), times_above_reading(150, 100), times_above_reading(100, 100)
    ('far above', 'above', 'not above')
    """
    return "far above" if value >= far * reference else "above" if value > reference else "not above"


def smaller_reading(value, reference):
    """ "smaller" or "not smaller".

    Examples
    --------
    >>> smaller_reading(0.1, 0.2), smaller_reading(0.2, 0.2)
    ('smaller', 'not smaller')
    """
    return "smaller" if value < reference else "not smaller"


def share_words(share):
    """A share in words: "more than half" or "less than half" (half itself counts as less).

    Examples
    --------
    >>> share_words(0.62), share_words(0.41)
    ('more than half', 'less than half')
    """
    return "more than half" if share > 0.5 else "less than half"


def range_words(values, fmt=".3f", none="not measurable with one seed"):
    """The range of ``values`` ("0.012 to 0.031"), or ``none`` when there are none.

    Examples
    --------
    >>> range_words([0.031, 0.012, 0.02]), range_words([])
    ('0.012 to 0.031', 'not measurable with one seed')
    """
    values = list(values)
    return f"{min(values):{fmt}} to {max(values):{fmt}}" if values else none


def bound_exceeded_words(shares):
    """Did any proposal of Alg. 1 exceed the bound B? ``shares``: per job, the share of proposals above B.

    Examples
    --------
    >>> bound_exceeded_words([0.0, 0.0]), bound_exceeded_words([0.0, 0.0012])
    ('no proposal exceeded the bound in any job', 'at most 0.12% of the proposals exceeded the bound')
    """
    exceeded = max(shares)
    return ("no proposal exceeded the bound in any job" if exceeded == 0
            else f"at most {exceeded:.2%} of the proposals exceeded the bound")


def check_words(passed):
    """Did a rule pass its check on known answers? "passes" or "fails".

    Examples
    --------
    >>> check_words(True), check_words(False)
    ('passes', 'fails')
    """
    return "passes" if bool(passed) else "fails"


def fingerprint_words(fingerprints, today):
    """Were stored results made by today's code? ``fingerprints``: the distinct fingerprints the results
    record; "matches" only when that is today's alone.

    Examples
    --------
    >>> fingerprint_words(("ab12",), "ab12"), fingerprint_words(("ab12", "cd34"), "ab12")
    ('matches', 'does not match')
    """
    return "matches" if tuple(fingerprints) == (today,) else "does not match"


def seal_reading(counts, made_at, what="The stored results"):
    """How the stored results came by their checksum, in markdown: ``counts`` is how many times each
    result was sealed (:func:`gendel.gan.seal.seal_count`), ``made_at`` the commits the latest seals
    name (None for a result never sealed); ``what`` names the results.

    Results never sealed were written with their checksum by the code whose fingerprint they
    record; sealed ones were written before, and the reading says by what check they were sealed,
    how often, and which commits made them.

    Examples
    --------
    >>> seal_reading([0, 0], {None})[:60]
    'The stored results were written with their checksum by the c'
    >>> "sealed twice" in seal_reading([2, 2], {"d3b2ce1"}), "(d3b2ce1)" in seal_reading([2, 2], {"d3b2ce1"})
    (True, True)
    """
    counts = [int(c) for c in counts]
    if not counts:
        raise ValueError("seal_reading needs the seal count of at least one result")
    how = ("`python -m gendel.gan seal` fingerprints the code of the commit that made such files{which} the way "
           "today's code is fingerprinted; only when that gives today's fingerprint, so that the code computes what "
           "today's code computes, does it add the checksum and a record of that check to each file, leaving its "
           "numbers as they were.")
    if max(counts) == 0:
        return (f"{what} were written with their checksum by the code whose fingerprint they record: none needed a "
                "seal. Results written before files carried a checksum, or fingerprinted under an earlier scheme of "
                "the fingerprint, can be sealed instead of made again: " + how.format(which=""))
    commits = ", ".join(sorted(str(c) for c in made_at if c is not None))
    times = {1: "once", 2: "twice"}.get(max(counts), f"{max(counts)} times")
    some = "" if min(counts) == max(counts) else (
        f" ({sum(c == max(counts) for c in counts)} of {len(counts)}; the others fewer times or never)")
    again = ("" if max(counts) < 2 else
             " When the fingerprint was later made to cover more of the code, the same check was repeated under "
             "the new fingerprint.")
    return (f"{what} were written before files carried a checksum, so they were *sealed*: "
            + how.format(which=f" ({commits})") + again + f" {what} were sealed {times} in all{some}.")


def made_by_words(fingerprints, today, made_by=None, sealed_at=()):
    """What code made a profile's stored results, for a table: today's code; code shown to compute
    what today's does (sealed: ``sealed_at``, the commits their seals name); or an earlier version
    (``made_by``, the results' own words, first clause).

    Examples
    --------
    >>> made_by_words(("a1",), "a1"), made_by_words(("a1",), "a1", sealed_at={"d3b2ce1"})
    ("today's code", "code that computes what today's does (commit d3b2ce1, sealed)")
    >>> made_by_words((None,), "a1", "gendel at commit e576ba2, before fingerprints")
    'an earlier version (gendel at commit e576ba2)'
    """
    if tuple(fingerprints) == (today,):
        at = sorted(str(c) for c in sealed_at if c)
        return "today's code" if not at else f"code that computes what today's does (commit {', '.join(at)}, sealed)"
    return "an earlier version (" + (made_by.split(",")[0] if made_by else "other code") + ")"


def check_outcome_words(verdict):
    """What a check did to a statement, from its verdict: "passes" when the statement "holds",
    else "rejects".

    Examples
    --------
    >>> check_outcome_words("holds"), check_outcome_words("fails")
    ('passes', 'rejects')
    """
    return "passes" if verdict == "holds" else "rejects"


def all_words(every):
    """ "all of them" when ``every`` is true, else "not all of them".

    Examples
    --------
    >>> all_words(True), all_words(np.bool_(False))
    ('all of them', 'not all of them')
    """
    return "all of them" if bool(every) else "not all of them"


def agreement_reading(disagreeing, what="measured rate", with_="the prediction", both="both measured rates"):
    """Do the measured quantities agree with a prediction? ``disagreeing``: the names of those that
    do not (an empty list when all agree).

    Examples
    --------
    >>> agreement_reading([])
    'both measured rates agree with the prediction'
    >>> agreement_reading(["10-NN"])
    'the measured rate differs from the prediction for 10-NN'
    """
    if not disagreeing:
        return f"{both} agree with {with_}"
    return f"the {what} differs from {with_} for " + ", ".join(disagreeing)


def consistency_reading(consistent, of, level="the 1% level", whom="p̂′"):
    """Which of the samplers ``of`` a goodness-of-fit test finds consistent with ``whom``:
    ``consistent`` lists them.

    Examples
    --------
    >>> consistency_reading(["KBC", "10-NN"], of=["KBC", "10-NN"])
    'both samplers are consistent with p̂′ at the 1% level'
    >>> consistency_reading(["KBC"], of=["KBC", "10-NN"]), consistency_reading([], of=["KBC", "10-NN"])
    ('consistent with p̂′ at the 1% level: KBC', 'consistent with p̂′ at the 1% level: neither sampler')
    """
    if set(consistent) == set(of) and len(of) == 2:
        return f"both samplers are consistent with {whom} at {level}"
    if set(consistent) == set(of):
        return f"every sampler is consistent with {whom} at {level}"
    return f"consistent with {whom} at {level}: " + (", ".join(consistent) or
                                                     ("neither sampler" if len(of) == 2 else "no sampler"))


def seeds_words(n_stored, n_grid):
    """Whether the stored results cover every seed of their grid.

    Examples
    --------
    >>> seeds_words(5, 5), seeds_words(3, 5)
    ('all the seeds of the grid', "3 of the grid's 5 seeds")
    """
    return "all the seeds of the grid" if n_stored == n_grid else f"{n_stored} of the grid's {n_grid} seeds"


def speedup_words(speedup):
    """How much faster fast deletion reaches a quality than re-training: "speed-up 3.2×", or
    "re-training never reaches it" for an infinite speed-up.

    Examples
    --------
    >>> speedup_words(3.21), speedup_words(float("inf"))
    ('speed-up 3.2×', 're-training never reaches it')
    """
    return "re-training never reaches it" if np.isinf(speedup) else f"speed-up {speedup:.1f}×"


def sample_size_words(m_needed, m_used):
    """How a sample size ``m_needed`` compares with the one used, ``m_used``: "a fraction of" when it
    is smaller, else "more than" (equal counts as more: the used size is not enough to spare).

    Examples
    --------
    >>> sample_size_words(120, 2000), sample_size_words(2000, 2000), sample_size_words(5000, 2000)
    ('a fraction of', 'more than', 'more than')
    """
    return "a fraction of" if m_needed < m_used else "more than"


__all__ = ["agreement_reading", "all_words", "bandwidth_sensitivity", "below_zero", "both_data_sets_m_words",
           "bound_exceeded_words", "check_outcome_words", "check_words", "consistency_reading",
           "covariance_readings", "deletion_sets", "directions", "fingerprint_words", "first_m_reaching",
           "flatness_reading", "footnote_logistic", "from_m_words", "highest_rate_reading", "knn_zero_words",
           "level_reading", "made_by_words", "more_often_reading", "prediction_reading", "range_words",
           "regularisation_summary", "resampling_reading", "safe_sizing_reading", "same_as_before",
           "sample_size_words", "seal_reading", "seeds_words", "share_words", "smaller_reading", "speedup_words",
           "times_above_reading"]
