"""Means and variances of the deletion-test statistics, and the L1 errors of Thms. 8(2) and 9.

The bounds checked on held-out draws (:class:`~gendel.theory.bound_checks.BoundCheck`,
:func:`~gendel.theory.bound_checks.markov_checks`) live in :mod:`gendel.theory.bound_checks` and
are importable from here as well.

Everything here is an expectation under the pre-trained model p_hat or the re-trained model
p_hat' of a function of the exact ratio rho_hat (and of a DRE rho_hat_E), estimated by Monte
Carlo from M samples of each model and returned as :class:`~gendel.theory.quadrature.Estimate`
(value and standard error).

Conventions (Def. 8): D_phi(mu || nu) = int nu phi(mu / nu), so with rho = p_hat' / p_hat

    KL(p_hat || p_hat')       = -E_{p_hat}[log rho],        KL(p_hat' || p_hat) = E_{p_hat'}[log rho],
    D_{log^2}(p_hat' || p_hat) =  E_{p_hat}[(log rho)^2],   D_{log^2}(p_hat || p_hat') = E_{p_hat'}[(log rho)^2].
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gendel._validation import check_count, check_rng
from gendel.deletion_test.stats import psi
from gendel.theory.bound_checks import CHECK_HEADER, BoundCheck, markov_checks
from gendel.theory.quadrature import Estimate, mc_mean, mc_variance

HYPOTHESES = ("H0", "H1")


def _models(exact):
    for attr in ("pretrained_", "retrained_", "log_ratio"):
        if not hasattr(exact, attr):
            raise TypeError(
                "exact must be a fitted gendel.core.dre.ExactKDERatio (it needs pretrained_, retrained_ and "
                f"log_ratio); got {type(exact).__name__}"
            )
    return exact.pretrained_, exact.retrained_


def model_samples(exact, M, *, rng):
    """M samples of p_hat and M samples of p_hat': ``{"H0": Y_pre, "H1": Y_re}``.

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.core.dre import ExactKDERatio
    >>> from gendel.theory.moments import model_samples
    >>> exact = ExactKDERatio(bandwidth=0.5).fit(np.linspace(0, 3, 16)[:, None], np.arange(12, 16))
    >>> Y = model_samples(exact, 100, rng=0)
    >>> Y["H0"].shape, Y["H1"].shape
    ((100, 1), (100, 1))
    """
    pre, re = _models(exact)
    M = check_count(M, "M", minimum=4)
    rng = check_rng(rng)
    return {"H0": pre.sample(M, rng=rng), "H1": re.sample(M, rng=rng)}


@dataclass(frozen=True)
class LRMoments:
    """The population quantities behind the mean and variance of LR(Y, rho_hat) (Appendix C.1).

    Attributes
    ----------
    kl_pre_re : KL(p_hat || p_hat') = -E_{p_hat}[log rho_hat].
    kl_re_pre : KL(p_hat' || p_hat) = E_{p_hat'}[log rho_hat].
    second_pre : E_{p_hat}[(log rho_hat)^2] = D_{log^2}(p_hat' || p_hat) under Def. 8.
    second_re : E_{p_hat'}[(log rho_hat)^2] = D_{log^2}(p_hat || p_hat') under Def. 8.
    var_pre, var_re : the variances of log rho_hat(y) for one y ~ p_hat and one y ~ p_hat'.

    Examples
    --------
    >>> from gendel.theory.moments import LRMoments
    >>> from gendel.theory.quadrature import Estimate
    >>> mo = LRMoments(kl_pre_re=Estimate(0.2), kl_re_pre=Estimate(0.1), second_pre=Estimate(0.3),
    ...                second_re=Estimate(0.2), var_pre=Estimate(0.26), var_re=Estimate(0.2))
    >>> mo.kl_pre_re.value
    0.2
    >>> mo.mean("H0"), mo.variance("H1", m=4)   # -KL(p_hat || p_hat') and Var(log rho_hat) / m
    (Estimate(value=-0.2, se=0.0), Estimate(value=0.05, se=0.0))
    """

    kl_pre_re: Estimate
    kl_re_pre: Estimate
    second_pre: Estimate
    second_re: Estimate
    var_pre: Estimate
    var_re: Estimate

    def mean(self, hypothesis):
        """E LR(Y, rho_hat): -KL(p_hat || p_hat') under H0, KL(p_hat' || p_hat) under H1."""
        return {"H0": -1.0 * self.kl_pre_re, "H1": self.kl_re_pre}[_check_h(hypothesis)]

    def variance(self, hypothesis, m):
        """VAR LR(Y, rho_hat) for m i.i.d. points: Var(log rho_hat(y)) / m under the hypothesis."""
        m = check_count(m, "m")
        return {"H0": self.var_pre, "H1": self.var_re}[_check_h(hypothesis)] * (1.0 / m)

    def paper_variance(self, hypothesis, m):
        """The variance as printed in Appendix C.1, with D_{log^2} read by Def. 8.

        H0: (D_{log^2}(p_hat || p_hat') - KL(p_hat || p_hat')^2) / m,
        H1: (D_{log^2}(p_hat' || p_hat) - KL(p_hat' || p_hat)^2) / m.
        """
        m = check_count(m, "m")
        if _check_h(hypothesis) == "H0":
            return Estimate(self.second_re.value - self.kl_pre_re.value**2,
                            float(np.hypot(self.second_re.se, 2 * self.kl_pre_re.value * self.kl_pre_re.se))) * (1.0 / m)
        return Estimate(self.second_pre.value - self.kl_re_pre.value**2,
                        float(np.hypot(self.second_pre.se, 2 * self.kl_re_pre.value * self.kl_re_pre.se))) * (1.0 / m)


def _check_h(hypothesis):
    if hypothesis not in HYPOTHESES:
        raise ValueError(f"hypothesis must be 'H0' (q = p_hat) or 'H1' (q = p_hat'); got {hypothesis!r}")
    return hypothesis


def lr_moments(exact, M, *, rng):
    """Monte Carlo estimates of the quantities of Appendix C.1 for a fitted :class:`~gendel.core.dre.ExactKDERatio`.

    Examples
    --------
    Forgetting the four points at the right end of [0, 3]:

    >>> import numpy as np
    >>> from gendel.core.dre import ExactKDERatio
    >>> from gendel.theory.moments import lr_moments
    >>> exact = ExactKDERatio(bandwidth=0.5).fit(np.linspace(0, 3, 16)[:, None], np.arange(12, 16))
    >>> mo = lr_moments(exact, 2000, rng=0)
    >>> f"{mo.kl_pre_re:.2f}", f"{mo.kl_re_pre:.2f}"   # both KL divergences, with standard errors
    ('0.19 ± 0.02', '0.13 ± 0.01')
    >>> f"{mo.mean('H0'):.2f}", f"{mo.variance('H1', m=10):.3f}"
    ('-0.19 ± 0.02', '0.012 ± 0.001')
    """
    Y = model_samples(exact, M, rng=rng)
    lp, lq = exact.log_ratio(Y["H0"]), exact.log_ratio(Y["H1"])
    return LRMoments(
        kl_pre_re=-1.0 * mc_mean(lp), kl_re_pre=mc_mean(lq),
        second_pre=mc_mean(lp**2), second_re=mc_mean(lq**2),
        var_pre=mc_variance(lp), var_re=mc_variance(lq),
    )


def asc_means(exact, phi, M, *, rng):
    """E ASC_phi(Y_hat, Y, rho_hat) under H0 and H1 (Appendix C.2), three ways.

    Returns a dict of Estimates:

    - ``"H0"``: 2 E_{p_hat}[psi(rho_hat)], psi(t) = phi(t) / (1 + t)  (the paper's H0 formula);
    - ``"H1"``: E_{p_hat}[psi(rho_hat)] + E_{p_hat'}[psi(rho_hat)]    (the definition);
    - ``"H1_formula"``: E_{p_hat}[phi(rho_hat)] = D_phi(p_hat' || p_hat)  (the paper's simplification).

    Examples
    --------
    The definition under H1 agrees with the paper's simplification D_phi(p_hat' || p_hat):

    >>> import numpy as np
    >>> from gendel.core.dre import ExactKDERatio
    >>> from gendel.theory.moments import asc_means
    >>> exact = ExactKDERatio(bandwidth=0.5).fit(np.linspace(0, 3, 16)[:, None], np.arange(12, 16))
    >>> means = asc_means(exact, "tlogt", 2000, rng=0)
    >>> sorted(means)
    ['H0', 'H1', 'H1_formula']
    >>> f"{means['H1']:.3f}", f"{means['H1_formula']:.3f}"
    ('0.127 ± 0.005', '0.128 ± 0.007')
    """
    Y = model_samples(exact, M, rng=rng)
    lp, lq = exact.log_ratio(Y["H0"]), exact.log_ratio(Y["H1"])
    psi_p, psi_q = psi(lp, phi), psi(lq, phi)
    phi_p = psi_p * (1.0 + np.exp(lp))
    return {"H0": 2.0 * mc_mean(psi_p), "H1": mc_mean(psi_p) + mc_mean(psi_q), "H1_formula": mc_mean(phi_p)}


def l1_errors(exact, dre, M, *, rng, phi=None):
    """The L1 errors of Thm. 8(2) (``phi=None``) or Thm. 9 (``phi`` given), under p_hat and p_hat'.

    Returns ``{"H0": ||f(rho_hat) - f(rho_hat_E)||_{1, p_hat}, "H1": ||...||_{1, p_hat'}}`` as
    Estimates, with f = log for Thm. 8(2) and f = psi = phi / (1 + t) for Thm. 9. Their maximum is
    the epsilon of the theorems.

    Examples
    --------
    The exact ratio has no error; a DRE with another bandwidth has some:

    >>> import numpy as np
    >>> from gendel.core.dre import ExactKDERatio
    >>> from gendel.theory.moments import l1_errors
    >>> X, deleted = np.linspace(0, 3, 16)[:, None], np.arange(12, 16)
    >>> exact = ExactKDERatio(bandwidth=0.5).fit(X, deleted)
    >>> l1_errors(exact, exact, 100, rng=0)["H0"].value
    0.0
    >>> errors = l1_errors(exact, ExactKDERatio(bandwidth=0.6).fit(X, deleted), 500, rng=0)
    >>> f"{errors['H0']:.3f}", f"{errors['H1']:.3f}"
    ('0.099 ± 0.009', '0.032 ± 0.003')
    """
    Y = model_samples(exact, M, rng=rng)
    out = {}
    for h, y in Y.items():
        a, b = exact.log_ratio(y), dre.log_ratio(y)
        if phi is not None:
            a, b = psi(a, phi), psi(b, phi)
        out[h] = mc_mean(np.abs(a - b))
    return out


def sample_sets(exact, m, R, *, rng):
    """R independent test sets of m points under H0 (q = p_hat) and H1 (q = p_hat'), plus R sets Y_hat ~ p_hat.

    Returns ``{"Yhat": (R, m, d), "H0": (R, m, d), "H1": (R, m, d)}``.

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.core.dre import ExactKDERatio
    >>> from gendel.theory.moments import sample_sets
    >>> exact = ExactKDERatio(bandwidth=0.5).fit(np.linspace(0, 3, 16)[:, None], np.arange(12, 16))
    >>> sets = sample_sets(exact, m=10, R=3, rng=0)
    >>> {name: Y.shape for name, Y in sets.items()}
    {'Yhat': (3, 10, 1), 'H0': (3, 10, 1), 'H1': (3, 10, 1)}
    """
    pre, re = _models(exact)
    m, R = check_count(m, "m"), check_count(R, "R", minimum=2)
    rng = check_rng(rng)
    d = pre.dim_
    return {"Yhat": pre.sample(m * R, rng=rng).reshape(R, m, d),
            "H0": pre.sample(m * R, rng=rng).reshape(R, m, d),
            "H1": re.sample(m * R, rng=rng).reshape(R, m, d)}


def log_ratios_on(estimator, Y):
    """log rho on a batch of sample sets Y of shape (R, m, d); returns (R, m).

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.core.dre import ExactKDERatio
    >>> from gendel.theory.moments import log_ratios_on
    >>> exact = ExactKDERatio(bandwidth=0.5).fit(np.linspace(0, 3, 16)[:, None], np.arange(12, 16))
    >>> Y = np.random.default_rng(0).uniform(0, 3, size=(4, 5, 1))   # R = 4 sets of m = 5 points
    >>> lr = log_ratios_on(exact, Y)
    >>> lr.shape, bool(np.allclose(lr[2], exact.log_ratio(Y[2])))
    ((4, 5), True)
    """
    Y = np.asarray(Y, dtype=float)
    R, m, d = Y.shape
    return np.asarray(estimator.log_ratio(Y.reshape(R * m, d))).reshape(R, m)


__all__ = ["BoundCheck", "CHECK_HEADER", "HYPOTHESES", "LRMoments", "asc_means", "l1_errors", "log_ratios_on", "lr_moments", "markov_checks",
           "model_samples", "sample_sets"]
