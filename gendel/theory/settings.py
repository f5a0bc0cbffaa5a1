"""The settings of the theory pages' checks, in one place.

The pages ``book/theory/approximation.md``, ``practicability.md`` and ``tests_lr_asc.md`` and the
closing page's theory rows (:func:`gendel.claims.theory.theory_checks`) run the same checks of
Thms. 1–4, 6, 7 and 8(1). Both read their settings and seeds from here, so that a change here
changes both alike: the circle of :class:`gendel.theory.circle.CircleModel` for Thms. 1, 2, 4, 7
and 8(1), MoG-8 for Thms. 3 and 6.
"""

from __future__ import annotations

import numpy as np

from gendel.synthetic.sampling import Protocol

#: The circle model: ``CircleModel(**CIRCLE)``, amplitude a = 0.5 and deletion strength β = 0.4.
CIRCLE = dict(amplitude=0.5, deletion_strength=0.4)
#: The circumference L of Thm. 2's second circle (the same densities in other units).
SHORT_PERIOD = 1 / 50
#: The training-set sizes N on the circle: 100, 200, …, 25,600.
SIZES = tuple(100 * 2**k for k in range(9))
#: The sizes N of Thm. 4 (ratio stability): 100 to 12,800.
RS_SIZES = SIZES[:8]
#: The training sets drawn per N.
R = 200
#: The level δ of the constants (their 1 − δ quantiles).
DELTA = 0.05
#: The seed of the circle's draws for Thms. 1 and 2, which are also the test draws of Thms. 7 and 8(1).
SWEEP_SEED = 0
#: The seed of the independent draws that give the constants of Thms. 7 and 8(1).
CALIBRATION_SEED = 1
#: The test sample size m of Thms. 7 and 8(1).
M_TEST = 400
#: The seed of the calibration draws of Thm. 4 (they give log c_N).
RS_CALIBRATION_SEED = 0
#: The seed of the test draws of Thm. 4.
RS_TEST_SEED = 1
#: The setting of Thms. 3 and 6: MoG-8, λ = 0.8, N = 400 points, the KDE bandwidth σ_A = 0.1, seed 0
#: (``gendel.synthetic.sampling.setup(MOG8)`` draws X and X').
MOG8 = Protocol("mog8", lam=0.8, N=400, sigma_a=0.1, seed=0)
#: The seed of the order in which Thm. 3 deletes the points (X' = the first N' of it).
LBLI_ORDER_SEED = 1
#: The numbers N' of points deleted in Thm. 3.
LBLI_N_DELETED = (1, 2, 5, 10, 20, 50, 100, 200)
#: The samples of each of the calibration and the test sample of Thm. 6 (error stability).
ES_SAMPLES = 20_000
#: The seed of Thm. 6's calibration sample.
ES_CALIBRATION_SEED = 2
#: The seed of Thm. 6's test sample.
ES_TEST_SEED = 3
#: The levels δ of Thm. 6's Cantelli bound: ``np.geomspace(1e-3, 0.5, 30)``, 30 from 0.001 to 0.5 (read-only).
#:
#: :meta hide-value:
ES_DELTAS = np.geomspace(1e-3, 0.5, 30)
ES_DELTAS.flags.writeable = False

__all__ = ["CALIBRATION_SEED", "CIRCLE", "DELTA", "ES_CALIBRATION_SEED", "ES_DELTAS", "ES_SAMPLES", "ES_TEST_SEED",
           "LBLI_N_DELETED", "LBLI_ORDER_SEED", "MOG8", "M_TEST", "R", "RS_CALIBRATION_SEED",
           "RS_SIZES", "RS_TEST_SEED", "SHORT_PERIOD", "SIZES", "SWEEP_SEED"]
