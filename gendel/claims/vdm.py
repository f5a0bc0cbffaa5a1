"""The rules behind the sentences of the VDM page (``book/gan/vdm.md``).

The page fits VDM density ratio estimators where the reader sees them; what its sentences then
say about the numbers (whether an estimator clears the page's thresholds, whether a network
orders the classes, whether a training objective crossed the bound no function of x can
exceed) is decided here, by rules with tests (``tests/test_vdm_readings.py``). Each rule takes
computed numbers and says which way they went; none asserts that they must go one way.

======================================  ================================================================
:func:`threshold_reading`               do the estimators of a table clear corr ≥ 0.9 and a normalisation within 10 %?
:func:`correlation_change`              does the correlation drop from one table to the other?
:func:`image_readings`                  the words of the Fashion-MNIST table (normalisation, class order, pull to 1, the bound)
:func:`objective_readings`              the words of the training curves (close to the class-level KL, below the bound)
======================================  ================================================================
"""

from __future__ import annotations

import numpy as np

#: The page's thresholds: a correlation of at least 0.9 with the true log ratio, and
#: ``|E_X[ρ̂_ℰ] − 1| ≤ 0.1``.
MIN_CORRELATION, NORMALISATION_TOLERANCE = 0.9, 0.1


def threshold_reading(rows, *, min_correlation=MIN_CORRELATION, tolerance=NORMALISATION_TOLERANCE):
    """Whether every estimator of a table clears the page's thresholds, as a clause.

    ``rows`` are ``(name, d, correlation, mean error, E_X[ρ̂_ℰ])``.

    Examples
    --------
    >>> threshold_reading([("KL", 2, 0.95, 0.1, 1.02), ("χ²", 2, 0.93, 0.1, 0.97)])
    'both estimators clear these thresholds'
    >>> threshold_reading([("KL", 2, 0.95, 0.1, 1.02), ("χ²", 2, 0.85, 0.1, 0.97)])
    'χ² does not clear them'
    """
    failing = [name for name, _, corr, _, norm in rows if corr < min_correlation or abs(norm - 1) > tolerance]
    if not failing:
        return "both estimators clear these thresholds" if len(rows) == 2 else "every estimator clears these thresholds"
    return f"{' and '.join(failing)} do{'es' if len(failing) == 1 else ''} not clear them"


def correlation_change(before, after):
    """``"drops"`` when the mean correlation of table ``after`` is below that of ``before``, else
    ``"does not drop"``.

    Examples
    --------
    >>> correlation_change([("KL", 2, 0.95, 0, 1)], [("KL", 5, 0.90, 0, 1)])
    'drops'
    >>> correlation_change([("KL", 2, 0.90, 0, 1)], [("KL", 5, 0.95, 0, 1)])
    'does not drop'
    """
    mean = lambda rows: np.mean([r[2] for r in rows])  # noqa: E731
    return "drops" if mean(after) < mean(before) else "does not drop"


def image_readings(plain, with_bn, bound, *, exact_even, exact_odd, tolerance=NORMALISATION_TOLERANCE):
    """The words of the Fashion-MNIST table: ``plain`` and ``with_bn`` are rows ``(name, E_X[ρ̂_ℰ],
    mean ρ̂_ℰ on even classes, mean ρ̂_ℰ on odd classes, objective of the last epoch)`` of the
    network without and with BatchNorm; ``bound`` is log N/(N − N′); ``exact_even``,
    ``exact_odd`` the exact class-level ratios (deleted classes below 1, the others above).

    Returns ``img_check``, ``img_order``, ``img_pulled``, ``bn_check``, ``bn_bound``, ``plain_bound``.

    Examples
    --------
    >>> words = image_readings(("plain", 1.02, 0.9, 1.1, 0.01), ("BN", 0.8, 0.9, 1.1, 0.2), 0.165,
    ...                        exact_even=0.824, exact_odd=1.176)
    >>> words["img_check"], words["img_order"], words["img_pulled"]
    ('passes the check', 'orders the classes correctly', 'still pulled towards 1')
    >>> words["bn_check"], words["bn_bound"], words["plain_bound"]
    ('off by more than', 'above', 'below')
    """
    _, norm, even, odd, objective = plain
    _, bn_norm, _, _, bn_objective = with_bn
    return {
        "img_check": "passes the check" if abs(norm - 1) <= tolerance else "fails the check",
        "img_order": "orders the classes correctly" if even < 1 < odd else "does not order the classes",
        "img_pulled": "still pulled towards 1" if exact_even < even and odd < exact_odd else "not pulled towards 1",
        "bn_check": "off by more than" if abs(bn_norm - 1) > tolerance else "within",
        "bn_bound": "above" if bn_objective > bound else "below",
        "plain_bound": "below" if objective <= bound else "above",
    }


def objective_readings(plain_history, bn_history, kl_class, bound, *, closeness=0.2):
    """The words of the training curves: where the objective of the network without BatchNorm
    ends against the class-level KL (within ``closeness`` of it: "close to") and against the
    bound, and from which epoch the network with BatchNorm is above the bound.

    Returns ``plain_max``, ``plain_vs_kl``, ``plain_vs_bound``, ``plain_learns``, ``bn_epoch``.

    Examples
    --------
    >>> words = objective_readings([0.01, 0.014], [0.05, 0.2, 0.3], kl_class=0.0157, bound=0.165)
    >>> words["plain_vs_kl"], words["plain_vs_bound"], words["bn_epoch"]
    ('close to', 'below', 'from epoch 2 on')
    >>> objective_readings([0.01, 0.3], [0.05], kl_class=0.0157, bound=0.165)["plain_learns"]
    'it memorises the training images'
    """
    plain_max = float(max(plain_history))
    above = [i + 1 for i, v in enumerate(bn_history) if v > bound]
    return {
        "plain_max": plain_max,
        "plain_vs_kl": "close to" if abs(plain_max - kl_class) <= closeness * kl_class else
                       ("above" if plain_max > kl_class else "below"),
        "plain_vs_bound": "below" if plain_max < bound else "above",
        "plain_learns": "it learns the deletion and does not memorise" if plain_max < bound
                        else "it memorises the training images",
        "bn_epoch": f"from epoch {above[0]} on" if above else f"in none of the {len(bn_history)} epochs",
    }
