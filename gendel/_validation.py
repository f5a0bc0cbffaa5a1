"""Checks at the boundary of the public API.

Every public function validates its inputs here and raises a ``ValueError`` or
``TypeError`` whose message says what was wrong and what to do about it.
"""

from __future__ import annotations

import numbers

import numpy as np


def check_points(Y, name="Y", *, dim=None, allow_empty=False):
    """Return ``Y`` as a finite float64 array of shape (n, d).

    Parameters
    ----------
    Y : array_like
        Points, one per row.
    name : str
        How the argument is called in error messages.
    dim : int, optional
        The dimension the points must have (that of the fitted data).
    allow_empty : bool
        Whether n = 0 is acceptable.
    """
    if np.iscomplexobj(Y):
        raise TypeError(f"{name} must be real-valued; got complex numbers")
    try:
        arr = np.asarray(Y, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a numeric array of shape (n, d); got {type(Y).__name__}") from exc
    if arr.ndim != 2:
        hint = " (for 1-D data use Y.reshape(-1, 1))" if arr.ndim == 1 else ""
        raise ValueError(f"{name} must be a 2-D array of shape (n, d); got shape {arr.shape}{hint}")
    if arr.shape[0] == 0 and not allow_empty:
        raise ValueError(f"{name} is empty: it needs at least one point (row)")
    if arr.shape[1] == 0:
        raise ValueError(f"{name} has zero columns: points need at least one coordinate")
    if dim is not None and arr.shape[1] != dim:
        raise ValueError(f"{name} has dimension {arr.shape[1]} but the estimator was fitted on data of dimension {dim}")
    if not np.all(np.isfinite(arr)):
        bad = int(np.sum(~np.isfinite(arr).all(axis=1)))
        raise ValueError(f"{name} contains NaN or infinite values in {bad} row(s); remove or impute them first")
    return arr


def check_positive(value, name):
    """Return ``value`` as a float after checking it is a finite number > 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a positive number; got {value!r}")
    value = float(value)
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0; got {value!r}")
    return value


def check_count(value, name, *, minimum=1):
    """Return ``value`` as an int after checking it is an integer >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer; got {value!r}")
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}; got {value}")
    return value


def check_lambda(lam):
    """Check the re-weighting factor lambda of the synthetic experiments lies in (0, 1]."""
    if isinstance(lam, bool) or not isinstance(lam, numbers.Real):
        raise TypeError(f"lam must be a number in (0, 1]; got {lam!r}")
    lam = float(lam)
    if not (0.0 < lam <= 1.0):
        raise ValueError(
            f"lam must lie in (0, 1] (the weight kept on each re-weighted component); got {lam!r}"
        )
    return lam


def check_rng(rng):
    """Require an explicit ``numpy.random.Generator`` (or an int seed)."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
        return np.random.default_rng(int(rng))
    raise TypeError(
        "rng must be a numpy.random.Generator (e.g. numpy.random.default_rng(0)) or an int seed; "
        f"got {rng!r}"
    )


def check_deletion(deleted, n):
    """Return the deletion set as a boolean mask of length ``n``.

    ``deleted`` may be a boolean mask over the rows of X or an array of row indices.
    The deletion set must be non-empty and must leave at least one point.
    """
    arr = np.asarray(deleted)
    if arr.dtype == bool:
        if arr.shape != (n,):
            raise ValueError(f"the deletion mask must have shape ({n},), one entry per row of X; got {arr.shape}")
        mask = arr.copy()
    elif np.issubdtype(arr.dtype, np.integer):
        if arr.ndim != 1:
            raise ValueError(f"deletion indices must be a 1-D array; got shape {arr.shape}")
        if arr.size and (arr.min() < 0 or arr.max() >= n):
            raise ValueError(f"deletion indices must lie in [0, {n - 1}]: X' must be a subset of X")
        if np.unique(arr).size != arr.size:
            if arr.shape == (n,) and np.isin(arr, (0, 1)).all():
                raise ValueError(
                    f"deleted looks like a 0/1 mask stored as integers (length {n}, values 0 and 1), but "
                    "integer arrays are read as row indices; pass a boolean mask (deleted.astype(bool)) "
                    "or the indices (np.flatnonzero(deleted))"
                )
            raise ValueError("deletion indices contain duplicates: list each deleted row once")
        mask = np.zeros(n, dtype=bool)
        mask[arr] = True
    else:
        raise TypeError(
            "deleted must be a boolean mask over the rows of X or an integer array of row indices; "
            f"got dtype {arr.dtype}"
        )
    n_deleted = int(mask.sum())
    if n_deleted == 0:
        raise ValueError("the deletion set X' is empty: there is nothing to delete (the ratio would be 1)")
    if n_deleted == n:
        raise ValueError(
            "the deletion set X' contains every point of X: X \\ X' is empty and the re-trained model "
            "is undefined; keep at least one point"
        )
    return mask


class NotFittedError(ValueError, AttributeError):
    """An estimator or model was used before ``fit``.

    A subclass of both ``ValueError`` and ``AttributeError``, as scikit-learn's
    ``sklearn.exceptions.NotFittedError``.

    Examples
    --------
    >>> from gendel.models import KDE
    >>> try:
    ...     KDE(bandwidth=0.1).log_prob([[0.0, 0.0]])
    ... except NotFittedError as error:
    ...     print(error)
    this KDE is not fitted yet: call .fit(...) before using it
    """


def check_fitted(estimator, attribute):
    """Raise :class:`NotFittedError` when an estimator is used before ``fit``."""
    if not hasattr(estimator, attribute):
        raise NotFittedError(
            f"this {type(estimator).__name__} is not fitted yet: call .fit(...) before using it"
        )
