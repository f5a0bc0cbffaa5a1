"""Checks at the boundary of the public API, and the conventions every estimator follows.

Every public function validates its inputs here and raises a ``ValueError`` or
``TypeError`` whose message says what was wrong and what to do about it. :class:`Estimator`
gives gendel's estimators scikit-learn's conventions (``get_params``, ``set_params``, a repr
built from the parameters, ``sklearn.base.clone``), and :class:`NotFittedError` is the one
error for an estimator used before ``fit``.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator

#: Coordinates beyond this magnitude are refused: their squares (1e300) are the largest that
#: sums of squared distances hold in float64 without overflowing.
MAX_COORDINATE = 1e150
#: Bandwidths outside [1 / MAX_BANDWIDTH, MAX_BANDWIDTH] are refused: bandwidth**2 and
#: 1 / bandwidth**2 must be normal float64 numbers.
MAX_BANDWIDTH = 1e150


def check_points(Y, name="Y", *, dim=None, allow_empty=False):
    """Return ``Y`` as a finite float64 array of shape (n, d).

    Parameters
    ----------
    Y : array_like
        Points, one per row. Coordinates must be finite and at most ``MAX_COORDINATE`` (1e150)
        in magnitude, so that squared distances do not overflow.
    name : str
        How the argument is called in error messages.
    dim : int, optional
        The dimension the points must have (that of the fitted data).
    allow_empty : bool
        Whether n = 0 is acceptable.

    Examples
    --------
    >>> check_points([[0, 1], [2, 3]]).dtype
    dtype('float64')
    >>> check_points([[1e200, 0.0]], "X")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: X has a coordinate of magnitude 1e+200, beyond 1e+150: ...
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
    biggest = float(np.abs(arr).max()) if arr.size else 0.0
    if biggest > MAX_COORDINATE:
        raise ValueError(
            f"{name} has a coordinate of magnitude {biggest:.3g}, beyond {MAX_COORDINATE:.0e}: squared distances "
            "would overflow float64. Rescale the data (e.g. subtract its mean and divide by its standard deviation)"
        )
    return arr


def check_real(values, name):
    """``values`` as a float array; complex numbers are refused, not silently truncated."""
    if np.iscomplexobj(values):
        raise TypeError(
            f"{name} must be real-valued; got complex numbers. Log ratios are real (log rho >= -inf): "
            "pass the real part explicitly (np.real(...)) if the imaginary part is rounding noise"
        )
    try:
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a numeric array; got {type(values).__name__}") from exc


def check_positive(value, name):
    """Return ``value`` as a float after checking it is a finite number > 0.

    Examples
    --------
    >>> check_positive(2, "bound")
    2.0
    >>> check_positive(0.0, "bound")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: bound must be a finite number > 0; got 0.0
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a positive number; got {value!r}")
    value = float(value)
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0; got {value!r}")
    return value


def check_bandwidth(value, name="bandwidth"):
    """Return a kernel bandwidth as a float: a number > 0 whose square and inverse square are normal floats.

    Kernels divide squared distances by ``bandwidth**2``; below 1e-150 that square underflows to 0
    and above 1e150 it overflows, so such bandwidths are refused with advice to rescale.

    Examples
    --------
    >>> check_bandwidth(0.1)
    0.1
    >>> check_bandwidth(1e-200)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: bandwidth=1e-200 is too small: bandwidth**2 underflows float64 ...
    """
    value = check_positive(value, name)
    if value < 1.0 / MAX_BANDWIDTH:
        raise ValueError(
            f"{name}={value:.3g} is too small: {name}**2 underflows float64 (the smallest accepted is "
            f"{1.0 / MAX_BANDWIDTH:.0e}). Rescale the data (multiply it and the bandwidth by the same factor)"
        )
    if value > MAX_BANDWIDTH:
        raise ValueError(
            f"{name}={value:.3g} is too large: {name}**2 overflows float64 (the largest accepted is "
            f"{MAX_BANDWIDTH:.0e}). Rescale the data (divide it and the bandwidth by the same factor)"
        )
    return value


def check_kernel_scale(Y, centre, bandwidth, name="Y"):
    """Refuse points whose squared distance to ``centre``, in bandwidths, overflows float64.

    Gaussian kernel sums work with ``||y - centre||^2 / bandwidth^2``; beyond 1e150 bandwidths
    that number is not a float64. ``Y`` (n, d) is already checked by :func:`check_points`.

    Examples
    --------
    >>> import numpy as np
    >>> check_kernel_scale(np.array([[1e140, 0.0]]), np.zeros(2), 1e-20, "Y")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: Y has a point 1e+140 from the training data's centre, 1e+160 times the bandwidth=1e-20: ...
    """
    far = float(np.abs(Y - centre).max()) if Y.size else 0.0
    if far / bandwidth > MAX_COORDINATE:
        raise ValueError(
            f"{name} has a point {far:.3g} from the training data's centre, {far / bandwidth:.3g} times the "
            f"bandwidth={bandwidth:.3g}: squared distances in bandwidths overflow float64 beyond "
            f"{MAX_COORDINATE:.0e}. Rescale the data, or use a larger bandwidth"
        )


def check_count(value, name, *, minimum=1):
    """Return ``value`` as an int after checking it is an integer >= ``minimum``.

    Examples
    --------
    >>> check_count(3, "k")
    3
    >>> check_count(2.0, "k")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: k must be an integer; got 2.0
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer; got {value!r}")
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}; got {value}")
    return value


def check_lambda(lam):
    """Check the re-weighting factor lambda of the synthetic experiments lies in (0, 1].

    Examples
    --------
    >>> check_lambda(0.5)
    0.5
    """
    if isinstance(lam, bool) or not isinstance(lam, numbers.Real):
        raise TypeError(f"lam must be a number in (0, 1]; got {lam!r}")
    lam = float(lam)
    if not (0.0 < lam <= 1.0):
        raise ValueError(
            f"lam must lie in (0, 1] (the weight kept on each re-weighted component); got {lam!r}"
        )
    return lam


def check_rng(rng, name="rng"):
    """Require an explicit ``numpy.random.Generator`` (or an int seed).

    Examples
    --------
    >>> check_rng(0).integers(10) == np.random.default_rng(0).integers(10)
    np.True_
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
        if rng < 0:
            raise ValueError(f"{name} must be a numpy.random.Generator or a non-negative int seed; got {rng!r}")
        return np.random.default_rng(int(rng))
    raise TypeError(
        f"{name} must be a numpy.random.Generator (e.g. numpy.random.default_rng(0)) or an int seed; "
        f"got {rng!r}"
    )


def check_deletion(deleted, n):
    """Return the deletion set as a boolean mask of length ``n``.

    ``deleted`` may be a boolean mask over the rows of X or an array of row indices.
    The deletion set must be non-empty and must leave at least one point.

    Examples
    --------
    >>> check_deletion(np.array([0, 2]), 4)
    array([ True, False,  True, False])
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


def memory_bytes():
    """This machine's physical memory in bytes, or None where the system does not say.

    Examples
    --------
    >>> memory_bytes() is None or memory_bytes() > 2**20
    True
    """
    import os

    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):
        return None


def check_memory(nbytes, what, advice):
    """Refuse an array of ``nbytes`` bytes that cannot fit in this machine's memory, before allocating it.

    ``what`` names the array in the message and ``advice`` says what to do instead.

    Examples
    --------
    >>> check_memory(10**6, "the images", "draw fewer")             # a megabyte: nothing happens
    >>> check_memory(10**18, "sample(m=10**14)", "draw fewer at a time")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: sample(m=10**14) would hold 1e+06 TB, more than this machine's ... of memory: draw fewer at a time
    """
    total = memory_bytes()
    if total is not None and nbytes > total:
        raise ValueError(f"{what} would hold {nbytes / 1e12:.3g} TB, more than this machine's {total / 2**30:.3g} GiB "
                         f"of memory: {advice}")


def outputs_text(dre, Y, log_r):
    """What a DRE's ``log_ratio(Y)`` returned instead of one number per point, for a message."""
    if np.ndim(log_r) == 0:
        try:
            if dre.log_ratio(Y[:2]) is None:
                return "None (does log_ratio lack a return statement?)"
        except Exception:  # noqa: BLE001 - a message must not fail
            pass
        return "a single number"
    return f"an array of shape {np.shape(log_r)}"


def outputs_error(dre, Y, log_r, n):
    """The message for a model that drew other than ``n`` points, or a DRE whose log ratios are not one
    number per point (Alg. 1 would otherwise broadcast them, or accept every proposal alike)."""
    if np.shape(Y)[:1] != (n,):
        return (f"the model's sample({n}, rng=...) returned an array of shape {np.shape(Y)}, not {n} points: "
                "sample(m, rng=...) must return an array of m points, one per row (shape (m, ...))")
    return (f"the DRE's log_ratio(Y) returned {outputs_text(dre, Y, log_r)} for {n} points of shape {np.shape(Y)}; "
            f"it must return one log ratio per point, an array of shape ({n},)")


class NotFittedError(ValueError, AttributeError):
    """An estimator or model was used before ``fit``.

    A subclass of both ``ValueError`` and ``AttributeError``, as scikit-learn's
    ``sklearn.exceptions.NotFittedError``.

    Examples
    --------
    >>> from gendel.core.models import KDE
    >>> try:
    ...     KDE(bandwidth=0.1).log_prob([[0.0, 0.0]])
    ... except NotFittedError as error:
    ...     print(error)
    this KDE is not fitted yet: call .fit(...) before using it
    """


def check_fitted(estimator, attribute):
    """Raise :class:`NotFittedError` when an estimator is used before ``fit``.

    ``attribute`` is one that ``fit`` sets.

    Examples
    --------
    >>> from gendel.core.models import KDE
    >>> check_fitted(KDE(bandwidth=0.1).fit([[0.0]]), "X_")   # fitted: nothing happens
    """
    if not hasattr(estimator, attribute):
        raise NotFittedError(
            f"this {type(estimator).__name__} is not fitted yet: call .fit(...) before using it"
        )


def is_fitted(obj):
    """Whether ``obj`` is fitted, by scikit-learn's ``__sklearn_is_fitted__`` (True when it has none).

    Examples
    --------
    >>> from gendel.core.models import KDE
    >>> is_fitted(KDE(bandwidth=0.1)), is_fitted(KDE(bandwidth=0.1).fit([[0.0]]))
    (False, True)
    """
    method = getattr(obj, "__sklearn_is_fitted__", None)
    return True if method is None else bool(method())


def plain(value):
    """A numpy scalar as the Python number it holds; any other value unchanged.

    Examples
    --------
    >>> plain(np.float64(0.5)), plain(np.int64(3)), plain("kl")
    (0.5, 3, 'kl')
    """
    return value.item() if isinstance(value, np.generic) else value


class Estimator(BaseEstimator):
    """scikit-learn's conventions for gendel's estimators.

    A subclass takes its hyper-parameters as keyword-only arguments of ``__init__``, which only
    stores them (numpy scalars as Python numbers, through :func:`plain`, so that
    ``get_params(deep=False)`` holds plain values), checks them in ``fit``, and names in
    ``_fitted_attribute`` an attribute that only ``fit`` sets. From
    ``sklearn.base.BaseEstimator`` it gets ``get_params``, ``set_params``, a repr built from
    the parameters that differ from their defaults, and ``sklearn.base.clone``; from here,
    ``__sklearn_is_fitted__`` (for ``sklearn.utils.validation.check_is_fitted``) and
    :meth:`_check_fitted`, which raises :class:`NotFittedError`.

    Examples
    --------
    >>> from sklearn.base import clone
    >>> from gendel.core.models import KDE
    >>> KDE(bandwidth=np.float64(0.1))
    KDE(bandwidth=0.1)
    >>> clone(KDE(bandwidth=0.1)).set_params(bandwidth=0.2).get_params()
    {'bandwidth': 0.2}
    """

    _fitted_attribute = "_fitted"

    def set_params(self, **params):
        """Set hyper-parameters (``name=value``, ``component__name=value``); returns self."""
        return super().set_params(**{key: plain(value) for key, value in params.items()})

    def __sklearn_is_fitted__(self):
        return hasattr(self, self._fitted_attribute)

    def _check_fitted(self):
        check_fitted(self, self._fitted_attribute)
