"""Helpers of the repeated-draw experiments on the circle: seeded streams and empirical constants."""

from __future__ import annotations

import numpy as np

from gendel._validation import check_count


def _rng(seed, *keys):
    return np.random.default_rng(np.random.SeedSequence([check_count(seed, "seed", minimum=0), *keys]))


def _quantile(values, level):
    """Empirical quantile that never under-states: the smallest sample value with at least ``level`` below or at it."""
    return float(np.quantile(np.asarray(values, dtype=float), level, method="higher"))


def _check_delta(delta):
    delta = float(delta)
    if not 0.0 < delta < 0.5:
        raise ValueError(f"delta must lie in (0, 0.5); got {delta!r}")
    return delta
