"""Figures of the chapter on the two-dimensional synthetic data sets (§5.1 and Appendix D).

Every builder is a plain function returning a :class:`plotly.graph_objects.Figure`:

=============================  ====================================================================
:func:`setup_figure`           Fig. 2 (and its CKB-8 twin): p_*, p_*', p_hat, p_hat', rho_hat, X'
:func:`true_density_figure`    Appendix D: p_* and p_*' for each lambda
:func:`ratio_maps_figure`      Fig. 3 and Appendix D: rho_hat and rho_hat_E maps, lambda slider
:func:`bandwidth_maps_figure`  rho_hat above the KBC rho_hat_E for every lambda, sigma_C slider
:func:`ks_curve_figure`        Fig. 4 (a)-(c): KS vs sigma_C per lambda, sigma_C slider showing the
                               compared distributions
:func:`ks_panels_figure`       Appendix D KS panels: one panel per statistic (KBC or kNN sweeps)
:func:`variation_figure`       Appendix D KS panel (a): other m, N, R
:func:`ridgeline_figure`       Figs. 5, 6 and Appendix D: distributions per DRE, lambda slider
:func:`acceptance_figure`      acceptance rate of Alg. 1 per DRE
=============================  ====================================================================

Submodules, by what they do:

===============  ===============================================================================
``ratio_maps``   maps over the plane: setup, true densities, ratio maps
``ks``           KS curves and panels
``ridgelines``   distributions of the statistics, acceptance rates
``sliders``      the static-slider encoding (typed arrays, 8-bit colour codes, the slider)
``settings``     the chapter's settings (N, m, R, sigma_A, seed) and the sample sets' colours
===============  ===============================================================================

Every figure takes computed results: sweeps of :func:`gendel.synthetic.experiments.sweep`, maps
of :func:`gendel.synthetic.experiments.ratio_maps`, the setup of :func:`gendel.synthetic.sampling.setup`;
none fits a DRE or draws a sample. Statistics are named by the keys of the registry
:data:`gendel.deletion_test.stats.STATISTICS` and labelled with its labels.

Figures with a slider carry all their states in ``layout.sliders`` (float32 arrays, or 8-bit
colour codes for maps), so they stay interactive in the static HTML of the book, without a
kernel. Sample sets keep the paper's colours (``gendel.plotting.common.COLORS``).

The chapter's grids (the settings every page of the chapter shares, so that the disk cache of
:func:`gendel.synthetic.experiments.sweep` serves all of them) are constants of :mod:`gendel.synthetic.experiments`,
where :func:`~gendel.synthetic.experiments.chapter_sweeps` / :func:`~gendel.synthetic.experiments.variation_sweeps`
run them, and are re-exported here:

========================  ==========================================================
``LAMBDAS``               lambda of every KBC sweep and every ratio map
``SIGMA_C``               KBC bandwidths sigma_C (symmetric around sigma_A = 0.1)
``KNN_K``                 k of the kNN DREs
``KNN_LAMBDAS``           lambda of the kNN sweeps (the paper's Appendix D panels)
``VARIATIONS``            the (m, N, R) variations of the Appendix D KS panels (a)
========================  ==========================================================
"""

from __future__ import annotations

from gendel.plotting.synthetic.ks import ks_curve_figure, ks_panels_figure, variation_figure
from gendel.plotting.synthetic.ratio_maps import bandwidth_maps_figure, ratio_maps_figure, setup_figure, true_density_figure
from gendel.plotting.synthetic.ridgelines import acceptance_figure, ridgeline_figure
from gendel.plotting.synthetic.settings import KS_CRITICAL_5, M, N, R, SEED, SIGMA_A, sample_color

__all__ = ["KS_CRITICAL_5", "M", "N", "R", "SEED", "SIGMA_A",
           "acceptance_figure", "bandwidth_maps_figure", "ks_curve_figure", "ks_panels_figure",
           "ratio_maps_figure", "ridgeline_figure", "sample_color", "setup_figure", "true_density_figure",
           "variation_figure"]
