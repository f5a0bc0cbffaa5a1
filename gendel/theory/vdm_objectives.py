"""The variational objectives of the VDM-based DREs (§3.2, Examples 2 and 3) on a finite space.

On a finite space a function T is a vector, the empirical objectives are smooth and concave, and
their maximisers can be found numerically and compared with closed forms. This settles which map
from T to a ratio each objective calls for:

- KL (eq. 7, Example 3):  max_T E_{X \\ X'}[T] - E_X[exp(T) - 1]  has its maximiser at T = log rho, so
  rho_hat_E = exp(T); the paper pairs it with exp(T - 1), the inverse derivative of
  phi(t) = t log t, whose conjugate is exp(t - 1), not exp(t) - 1.
- Jensen-Shannon (eq. 6, Example 2): max_T E_{X \\ X'}[log T] + E_X[log(1 - T)] has its maximiser at
  T = rho / (1 + rho), so rho_hat_E = T / (1 - T), as printed.

A correct DRE between X and X \\ X' has E_{x ~ X}[rho_hat_E(x)] = 1 (rho_hat_E p_hat is a density);
:func:`normalisation` computes it.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit


def _weights(points, support):
    points = np.asarray(points)
    return np.array([(points == s).mean() for s in support])


def empirical_distributions(X, deleted):
    """The support of X and the empirical distributions of X and of X \\ X' on it (1-D discrete X).

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.theory.vdm_objectives import empirical_distributions
    >>> X = np.array([0, 0, 1, 1, 2, 2])
    >>> deleted = np.array([True, False, False, False, False, False])
    >>> support, p, p_kept = empirical_distributions(X, deleted)
    >>> support, np.round(p, 3), np.round(p_kept, 3)
    (array([0, 1, 2]), array([0.333, 0.333, 0.333]), array([0.2, 0.4, 0.4]))
    """
    X = np.asarray(X)
    mask = np.asarray(deleted, dtype=bool)
    if X.ndim != 1 or mask.shape != X.shape:
        raise ValueError("X must be a 1-D array of discrete values and deleted a boolean mask of the same shape")
    if mask.all() or not mask.any():
        raise ValueError("the deletion set must be a non-empty proper subset of X")
    support = np.unique(X)
    return support, _weights(X, support), _weights(X[~mask], support)


def kl_objective(T, p, p_kept):
    """E_{X \\ X'}[T] - E_X[exp(T) - 1] for T on the support (eq. 7's objective).

    Examples
    --------
    At T = log rho the objective equals KL(X \\ X' || X), its maximum:

    >>> import numpy as np
    >>> from gendel.theory.vdm_objectives import kl_objective
    >>> p, p_kept = np.array([1/3, 1/3, 1/3]), np.array([0.2, 0.4, 0.4])
    >>> kl = float(np.sum(p_kept * np.log(p_kept / p)))
    >>> round(kl_objective(np.log(p_kept / p), p, p_kept), 4), round(kl, 4)
    (0.0437, 0.0437)
    >>> kl_objective(np.zeros(3), p, p_kept)
    0.0
    """
    return float(np.dot(p_kept, T) - np.dot(p, np.exp(T) - 1.0))


def js_objective(T, p, p_kept):
    """E_{X \\ X'}[log T] + E_X[log(1 - T)] for T in (0, 1) on the support (eq. 6's objective).

    Examples
    --------
    T = rho / (1 + rho) scores higher than the constant T = 1/2 (value -2 log 2):

    >>> import numpy as np
    >>> from gendel.theory.vdm_objectives import js_objective
    >>> p, p_kept = np.array([1/3, 1/3, 1/3]), np.array([0.2, 0.4, 0.4])
    >>> rho = p_kept / p
    >>> round(js_objective(rho / (1 + rho), p, p_kept), 4), round(js_objective(np.full(3, 0.5), p, p_kept), 4)
    (-1.3634, -1.3863)
    """
    return float(np.dot(p_kept, np.log(T)) + np.dot(p, np.log1p(-T)))


def maximise_kl(p, p_kept):
    """Numerical maximiser of :func:`kl_objective` (L-BFGS from T = 0).

    Examples
    --------
    The maximiser is T = log rho, so rho_hat_E = exp(T) recovers p_kept / p:

    >>> import numpy as np
    >>> from gendel.theory.vdm_objectives import maximise_kl
    >>> p, p_kept = np.array([1/3, 1/3, 1/3]), np.array([0.2, 0.4, 0.4])
    >>> np.round(np.exp(maximise_kl(p, p_kept)), 3)
    array([0.6, 1.2, 1.2])
    """
    p, p_kept = np.asarray(p, float), np.asarray(p_kept, float)
    res = minimize(lambda T: -kl_objective(T, p, p_kept), np.zeros(len(p)),
                   jac=lambda T: -(p_kept - p * np.exp(T)), method="L-BFGS-B", options=dict(gtol=1e-12, ftol=1e-15))
    return res.x


def maximise_js(p, p_kept):
    """Numerical maximiser of :func:`js_objective`, parametrised as T = sigmoid(a).

    Examples
    --------
    The maximiser is T = rho / (1 + rho), so T / (1 - T) recovers p_kept / p:

    >>> import numpy as np
    >>> from gendel.theory.vdm_objectives import maximise_js
    >>> p, p_kept = np.array([1/3, 1/3, 1/3]), np.array([0.2, 0.4, 0.4])
    >>> T = maximise_js(p, p_kept)
    >>> np.round(T / (1 - T), 3)
    array([0.6, 1.2, 1.2])
    """
    p, p_kept = np.asarray(p, float), np.asarray(p_kept, float)

    def neg(a):
        T = expit(a)
        return -js_objective(T, p, p_kept), -(p_kept * (1 - T) - p * T)

    res = minimize(neg, np.zeros(len(p)), jac=True, method="L-BFGS-B", options=dict(gtol=1e-12, ftol=1e-15))
    return expit(res.x)


def normalisation(ratio, p):
    """E_{x ~ X}[rho(x)] = sum_x p(x) rho(x): equal to 1 for a correct DRE between X and X \\ X'.

    Examples
    --------
    The exact ratio is normalised; the paper's exp(T - 1) map is not:

    >>> import numpy as np
    >>> from gendel.theory.vdm_objectives import normalisation
    >>> p, p_kept = np.array([1/3, 1/3, 1/3]), np.array([0.2, 0.4, 0.4])
    >>> round(normalisation(p_kept / p, p), 6)
    1.0
    >>> round(normalisation(np.exp(np.log(p_kept / p) - 1), p), 3)
    0.368
    """
    return float(np.dot(np.asarray(p, float), np.asarray(ratio, float)))


__all__ = ["empirical_distributions", "js_objective", "kl_objective", "maximise_js", "maximise_kl", "normalisation"]
