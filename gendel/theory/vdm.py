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
    """The support of X and the empirical distributions of X and of X \\ X' on it (1-D discrete X)."""
    X = np.asarray(X)
    mask = np.asarray(deleted, dtype=bool)
    if X.ndim != 1 or mask.shape != X.shape:
        raise ValueError("X must be a 1-D array of discrete values and deleted a boolean mask of the same shape")
    if mask.all() or not mask.any():
        raise ValueError("the deletion set must be a non-empty proper subset of X")
    support = np.unique(X)
    return support, _weights(X, support), _weights(X[~mask], support)


def kl_objective(T, p, p_kept):
    """E_{X \\ X'}[T] - E_X[exp(T) - 1] for T on the support (eq. 7's objective)."""
    return float(np.dot(p_kept, T) - np.dot(p, np.exp(T) - 1.0))


def js_objective(T, p, p_kept):
    """E_{X \\ X'}[log T] + E_X[log(1 - T)] for T in (0, 1) on the support (eq. 6's objective)."""
    return float(np.dot(p_kept, np.log(T)) + np.dot(p, np.log1p(-T)))


def maximise_kl(p, p_kept):
    """Numerical maximiser of :func:`kl_objective` (L-BFGS from T = 0)."""
    p, p_kept = np.asarray(p, float), np.asarray(p_kept, float)
    res = minimize(lambda T: -kl_objective(T, p, p_kept), np.zeros(len(p)),
                   jac=lambda T: -(p_kept - p * np.exp(T)), method="L-BFGS-B", options=dict(gtol=1e-12, ftol=1e-15))
    return res.x


def maximise_js(p, p_kept):
    """Numerical maximiser of :func:`js_objective`, parametrised as T = sigmoid(a)."""
    p, p_kept = np.asarray(p, float), np.asarray(p_kept, float)

    def neg(a):
        T = expit(a)
        return -js_objective(T, p, p_kept), -(p_kept * (1 - T) - p * T)

    res = minimize(neg, np.zeros(len(p)), jac=True, method="L-BFGS-B", options=dict(gtol=1e-12, ftol=1e-15))
    return expit(res.x)


def normalisation(ratio, p):
    """E_{x ~ X}[rho(x)] = sum_x p(x) rho(x): equal to 1 for a correct DRE between X and X \\ X'."""
    return float(np.dot(np.asarray(p, float), np.asarray(ratio, float)))


__all__ = ["empirical_distributions", "js_objective", "kl_objective", "maximise_js", "maximise_kl", "normalisation"]
