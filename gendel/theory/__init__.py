"""Numerical checks of the paper's theory (§2.2, §2.3, §4 and Appendices B and C).

Each module computes both sides of the paper's inequalities and identities for learners whose
densities are explicit, to a stated accuracy (quadrature on a periodic grid, closed forms, or
Monte Carlo with a reported standard error).

Modules::

    quadrature   the periodic trapezoid rule and Monte Carlo estimates with standard errors
    circle       a smooth density on the circle, deletion by thinning, and the wrapped Gaussian KDE
                 (a learner that is ratio consistent, Def. 1, unlike a Gaussian KDE on R^d)
    consistency  repeated-draw experiments on the circle for Thms. 1, 2, 4, 5, 7 and 8(1), and the
                 checks of Thms. 7 and 8(1) with constants from independent calibration draws
    stability    the LBLI constant of a Gaussian KDE (Thm. 3), rays that show it is not US or DP,
                 and leave-one-out ratios for error stability (Thm. 6)
    moments      means and variances of LR and ASC under H0 and H1 (Appendix C.1, C.2)
    bound_checks bounds checked on held-out draws, with their power against wrong statements
                 (BoundCheck, also importable from moments)
    mmd          closed-form MMD^2 between Gaussian KDEs, the U-statistic variance terms and the
                 concentration bound of Appendix C.3
    vdm_objectives  the variational objective of the KL-based DRE (eq. 7, Example 3) on a finite space
"""

from gendel.theory import circle, consistency, moments, mmd, quadrature, stability, vdm_objectives

__all__ = ["circle", "consistency", "moments", "mmd", "quadrature", "stability", "vdm_objectives"]
