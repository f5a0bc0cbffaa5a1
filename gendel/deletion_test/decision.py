"""The deletion test as a decision with a known error rate (§4 and Appendix C).

Given m samples ``Y`` of a model q and the pre-trained model p_hat, test

    H0: q = p_hat                (nothing was deleted)
    H1': q = rho_hat_E * p_hat   (the model behaves as if X' had been deleted, §4)

with one of the statistics of §4 / Appendix C. The null distribution of the statistic for the
sample size m = len(Y) is simulated from p_hat (``n_null`` independent sets of m samples), and the
p-value is the Monte-Carlo one of :mod:`gendel.deletion_test.calibration`, (1 + #{null >= observed}) / (1 + n_null),
valid at every n_null. The simulated null is kept per m and reused.

Which tail counts as evidence for H1' (the *direction*) is derived per statistic:

- ``"lr"``: LR(Y, rho) = mean log rho(y) has mean -KL(p_hat || q) <= 0 under H0 and KL(q || p_hat)
  >= 0 under H1' (Appendix C.1). More generally E_H1'[LR] - E_H0[LR] = Cov_p_hat(log rho, rho) / Z
  (Z = E_p_hat[rho]), which is >= 0 because log rho and rho increase together (Chebyshev's
  association inequality). Large values reject.
- ``"asc-<phi>"``: ASC = mean_{Y_hat} psi(rho) + mean_Y psi(rho), psi(t) = phi(t) / (1 + t), with
  Y_hat ~ p_hat drawn afresh (§4.2). Only the Y half depends on q, and
  E_H1'[ASC] - E_H0[ASC] = E_p_hat[psi(rho) (rho / Z - 1)]. For a normalised ratio (Z = 1) this is
  E_p_hat[phi(rho) (rho - 1) / (rho + 1)] >= 0 for phi = log and t log t (phi(t) and t - 1 have
  the same sign), but has no fixed sign for the squared Hellinger phi = (sqrt t - 1)^2, which is
  >= 0 everywhere: deleting mass usually makes it *smaller* under H1'. The direction is therefore
  the sign of this difference, estimated once from ``n_pilot`` draws of p_hat independent of the
  null sample (attribute ``direction_``).
- ``"mmd"``: the unbiased MMD^2_u(Y, Y_hat) of Appendix C.3 with Y_hat ~ p_hat drawn afresh. Its
  mean is 0 under H0 and MMD^2(q, p_hat) >= 0 otherwise; large values reject. It does not use the
  ratio: it is a two-sample test against the model, and tests q = p_hat against any alternative.

``method="asymptotic"`` replaces the simulated null by the normal approximation of the central
limit theorem (Appendix C.1, C.2): LR ~ N(mu, s^2 / m) with mu, s^2 the mean and variance of
log rho under p_hat, and ASC ~ N(2 mu_psi, 2 s_psi^2 / m), the moments estimated from the pilot
draws. It needs no null simulation, but it is an approximation. MMD has no such option: under H0
its U-statistic is degenerate (sigma_u = 0 in Appendix C.3), so sqrt(m) MMD^2_u has no normal
limit. For MMD, ``method="permutation"`` gives the classical two-sample permutation test of
Gretton et al. (2012) on the observed Y and Y_hat.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from gendel.deletion_test.mmd import median_bandwidth, mmd2_batch, permutation_mmd2
from gendel._validation import check_bandwidth, check_count, check_fitted
from gendel.deletion_test.calibration import (PowerResult, binomial_interval, check_alpha, check_null_size,  # noqa: F401 (re-exported)
                          critical_value, monte_carlo_p_values, normal_p_values, rejects, type_one_band)
from gendel.deletion_test.stats import asc, likelihood_ratio, psi

#: The statistics of the test: LR (§4.1), ASC with three phi functions (§4.2), MMD (App. C.3).
STATISTICS = ("lr", "asc-log", "asc-tlogt", "asc-hellinger", "mmd")
#: How each statistic is shown in tables and figures.
STATISTIC_LABELS = {"lr": "LR", "asc-log": "ASC (log t)", "asc-tlogt": "ASC (t log t)",
                    "asc-hellinger": "ASC (Hellinger)", "mmd": "MMD²"}
#: Ways to get the null distribution.
METHODS = ("monte-carlo", "asymptotic", "permutation")
#: Kernels for the MMD statistic by name (a callable ``kernel(A, B) -> Gram matrix`` also works).
MMD_KERNELS = ("rbf", "laplacian")
#: Model draws per test call are generated in chunks of about this many points (memory).
_CHUNK_POINTS = 50_000


@dataclass(frozen=True)
class TestResult:
    """The outcome of :meth:`DeletionTest.test`.

    Attributes
    ----------
    statistic : float
        The observed statistic, on its natural scale (e.g. LR = mean log rho_hat_E(y)).
    p_value : float
        P(statistic at least as extreme | H0), Monte-Carlo, asymptotic or permutation.
    reject : bool
        ``p_value <= alpha``: the samples are evidence that the points were deleted.
    alpha : float
        The level of the test.
    m : int
        The number of samples in Y.
    null : ndarray
        The null statistics the p-value used (natural scale; the normal approximation's mean
        and standard deviation, shape (2,), for ``method="asymptotic"``).
    name : str
        The statistic (one of :data:`STATISTICS`).
    method : str
        How the null distribution was obtained (one of :data:`METHODS`).
    direction : int
        +1 when large values are evidence for H1', -1 when small values are.

    Examples
    --------
    >>> print(TestResult(statistic=0.12, p_value=0.004, reject=True, alpha=0.05, m=400, null=None))
    LR = 0.12, p = 0.004 (m = 400, monte-carlo) at alpha = 0.05: reject H0: the points look deleted
    """

    __test__ = False  # not a pytest class

    statistic: float
    p_value: float
    reject: bool
    alpha: float
    m: int
    null: np.ndarray = field(repr=False)
    name: str = "lr"
    method: str = "monte-carlo"
    direction: int = 1

    def __str__(self):
        verdict = "reject H0: the points look deleted" if self.reject else "keep H0: no evidence of deletion"
        return (f"{STATISTIC_LABELS[self.name]} = {self.statistic:.4g}, p = {self.p_value:.4g} "
                f"(m = {self.m}, {self.method}) at alpha = {self.alpha:g}: {verdict}")


class DeletionTest:
    """A calibrated test of H0: q = p_hat against H1': q = rho_hat_E * p_hat (§4).

    Parameters
    ----------
    model : object
        The pre-trained model p_hat: anything with ``sample(m, *, rng)`` (a
        :class:`gendel.core.models.KDE`, a :class:`gendel.gan.DCGAN`, ...).
    dre : object
        A fitted density ratio estimator rho_hat_E with ``log_ratio(Y)`` (or the exact
        :class:`gendel.core.dre.ExactKDERatio` where it is known). Not used by ``"mmd"``, which
        accepts None.
    statistic : {"lr", "asc-log", "asc-tlogt", "asc-hellinger", "mmd"}
        The statistic; see the module docstring for the direction of each.
    n_null : int
        Simulated null statistics per sample size m (at least 1 / alpha - 1 for a test at alpha).
    rng : numpy.random.Generator, int or None
        Source of the model draws. None takes fresh entropy (results then vary between runs).
    kernel : {"rbf", "laplacian"} or callable
        MMD only: k(x, y) = exp(-||x - y||^2 / (2 h^2)), exp(-||x - y|| / h), or ``kernel(A, B)``
        returning the Gram matrix between the rows of A and B (points are flattened).
    bandwidth : float, optional
        MMD only: h. By default the median heuristic (Gretton et al., 2012): the median distance
        between pairs of ``n_pilot`` model draws, so the kernel does not depend on Y.
    n_pilot : int
        Model draws used once for the ASC direction, the asymptotic moments and the median
        heuristic.

    Attributes
    ----------
    direction_ : int
        +1 when large values of the statistic reject, -1 when small values do (set on first use).
    bandwidth_ : float
        The MMD bandwidth in use (set on first use).

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.core import dre, models
    >>> from gendel.synthetic import data
    >>> from gendel.deletion_test.decision import DeletionTest
    >>> X, comp = data.mog8(400, rng=np.random.default_rng(0))
    >>> deleted = data.deletion_mask("mog8", comp, 0.5, rng=np.random.default_rng(1))
    >>> exact = dre.ExactKDERatio(bandwidth=0.1).fit(X, deleted)
    >>> test = DeletionTest(exact.pretrained_, exact, statistic="lr", n_null=200, rng=2)
    >>> Y = exact.retrained_.sample(400, rng=np.random.default_rng(3))   # a model that forgot X'
    >>> result = test.test(Y, alpha=0.05)
    >>> bool(result.reject), result.p_value == 1 / 201
    (True, True)
    """

    def __init__(self, model, dre, *, statistic="lr", n_null=1000, rng=None, kernel="rbf", bandwidth=None,
                 n_pilot=10_000):
        if statistic not in STATISTICS:
            raise ValueError(f"statistic must be one of {STATISTICS}; got {statistic!r}")
        if not callable(getattr(model, "sample", None)):
            raise TypeError(f"model must have a sample(m, *, rng) method (the pre-trained p_hat); got {model!r}")
        if statistic != "mmd":
            if dre is None or not callable(getattr(dre, "log_ratio", None)):
                raise TypeError(f"statistic {statistic!r} needs a fitted DRE with log_ratio(Y); got {dre!r}")
            if hasattr(dre, "fit") and type(dre).__module__.startswith("gendel"):
                check_fitted(dre, "_fitted")
        if statistic == "mmd":
            if not (callable(kernel) or kernel in MMD_KERNELS):
                raise ValueError(f"kernel must be one of {MMD_KERNELS} or a callable kernel(A, B); got {kernel!r}")
            if bandwidth is not None:
                bandwidth = check_bandwidth(bandwidth, "bandwidth")
        self.model = model
        self.dre = dre
        self.statistic = statistic
        self.n_null = check_count(n_null, "n_null", minimum=1)
        self.rng = rng
        self.kernel = kernel
        self.bandwidth = bandwidth
        self.n_pilot = check_count(n_pilot, "n_pilot", minimum=100)
        if isinstance(rng, bool) or not (rng is None or isinstance(rng, (int, np.integer, np.random.Generator))):
            raise TypeError(f"rng must be a numpy.random.Generator, an int seed or None; got {rng!r}")
        self._rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        # The pilot and the null of each m get their own stream derived from one base seed, so a
        # null sample does not depend on which calls came before it.
        self._base_seed = int(self._rng.integers(2**63))
        self._nulls = {}

    def __repr__(self):
        extra = f", kernel={self.kernel!r}, bandwidth={self.bandwidth!r}" if self.statistic == "mmd" else ""
        return (f"DeletionTest({self.model!r}, {self.dre!r}, statistic={self.statistic!r}, "
                f"n_null={self.n_null}{extra})")

    # ---------------------------------------------------------------------------------------
    # draws and statistics

    def _sample(self, n, rng=None):
        return np.asarray(self.model.sample(n, rng=self._rng if rng is None else rng))

    def _stream(self, *key):
        """An independent random stream for one part of the test (the pilot, the null of one m)."""
        return np.random.default_rng([self._base_seed, *key])

    def _pilot(self):
        """Set direction_, the asymptotic moments and the MMD bandwidth from n_pilot model draws."""
        if hasattr(self, "direction_"):
            return
        draws = self._sample(self.n_pilot, self._stream(0))
        self.sample_shape_ = draws.shape[1:]
        self._moments = None
        direction = 1
        if self.statistic == "mmd":
            self.bandwidth_ = median_bandwidth(draws) if self.bandwidth is None else self.bandwidth
        else:
            log_r = np.asarray(self.dre.log_ratio(draws), dtype=float)
            if np.isnan(log_r).any():
                raise ValueError("the DRE returned NaN log ratios on the model's samples")
            values = log_r if self.statistic == "lr" else psi(log_r, self.statistic[4:])
            if self.statistic != "lr":
                # E_H1'[psi] - E_H0[psi] = E_p_hat[psi(rho) (rho / Z - 1)], Z = E_p_hat[rho]
                ratio = np.exp(log_r - log_r.max())
                shift = float(np.mean(values * (ratio / ratio.mean() - 1.0)))
                direction = -1 if shift < 0 else 1
            finite = np.isfinite(values)
            self._moments = (float(values[finite].mean()), float(values[finite].var()), bool(finite.all()))
        self.direction_ = direction

    def _statistics(self, Y, Yhat=None):
        """The statistic for each of R sample sets: Y of shape (R, m, ...), natural scale."""
        R, m = Y.shape[:2]
        if self.statistic == "mmd":
            return mmd2_batch(Y, Yhat, self.kernel, self.bandwidth_)
        log_y = np.asarray(self.dre.log_ratio(Y.reshape(R * m, *Y.shape[2:])), dtype=float).reshape(R, m)
        if self.statistic == "lr":
            return likelihood_ratio(log_y)
        log_hat = np.asarray(self.dre.log_ratio(Yhat.reshape(R * m, *Yhat.shape[2:])), dtype=float).reshape(R, m)
        return asc(log_hat, log_y, self.statistic[4:])

    def _batched(self, draw, R, m, rng):
        """Statistics of R sets of m samples drawn by ``draw(n)`` (and m of Y_hat from ``rng``), in chunks."""
        chunk = max(1, _CHUNK_POINTS // m)
        if self.statistic == "mmd":
            chunk = max(1, min(chunk, 4_000_000 // (4 * m * m)))  # Gram matrices of (2m)^2 entries
        out = []
        for start in range(0, R, chunk):
            r = min(chunk, R - start)
            Y = draw(r * m)
            Y = Y.reshape(r, m, *Y.shape[1:])
            # Y_hat ~ p_hat, the reference sample of ASC and MMD
            Yhat = None if self.statistic == "lr" else self._sample(r * m, rng).reshape(Y.shape)
            out.append(self._statistics(Y, Yhat))
        return np.concatenate(out)

    def null_distribution(self, m):
        """The ``n_null`` simulated statistics under H0 for sample size m (natural scale), cached per m."""
        m = check_count(m, "m", minimum=2 if self.statistic == "mmd" else 1)
        self._pilot()
        if m not in self._nulls:
            rng = self._stream(1, m)
            self._nulls[m] = self._batched(lambda n: self._sample(n, rng), self.n_null, m, rng)
        return self._nulls[m]

    def _check_level(self, alpha, method):
        alpha = check_alpha(alpha)
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}; got {method!r}")
        if method == "asymptotic" and self.statistic == "mmd":
            raise ValueError("method='asymptotic' is available for LR and ASC only: under H0 the MMD "
                             "U-statistic is degenerate (sigma_u = 0, Appendix C.3) and has no normal limit; "
                             "use method='monte-carlo' or 'permutation'")
        if method == "permutation" and self.statistic != "mmd":
            raise ValueError("method='permutation' is the two-sample MMD test; for LR and ASC use "
                             "method='monte-carlo' or 'asymptotic'")
        if method != "asymptotic":
            check_null_size(self.n_null, alpha)
        return alpha

    def _check_Y(self, Y):
        Y = np.asarray(Y)
        self._pilot()
        if Y.ndim < 2 or Y.shape[1:] != self.sample_shape_:
            raise ValueError(f"Y must hold m samples of the model's shape, i.e. have shape (m, "
                             f"{', '.join(map(str, self.sample_shape_))}); got shape {Y.shape}")
        if not np.issubdtype(Y.dtype, np.number):
            raise TypeError(f"Y must be numeric; got dtype {Y.dtype}")
        if self.statistic == "mmd" and len(Y) < 2:
            raise ValueError("the MMD statistic needs at least two samples in Y")
        if len(Y) == 0:
            raise ValueError("Y is empty: the test needs at least one sample")
        return Y

    def _asymptotic(self, statistics, m):
        mean, var, finite = self._moments
        if not finite:
            raise ValueError("method='asymptotic' needs finite log ratios under p_hat, but the DRE is 0 on some "
                             "model samples (e.g. a kNN DRE); use method='monte-carlo'")
        k = 1.0 if self.statistic == "lr" else 2.0  # ASC: m draws of Y_hat and m of Y, all from p_hat under H0
        loc, scale = k * mean, math.sqrt(k * var / m)
        return normal_p_values(statistics, loc, scale, self.direction_), np.array([loc, scale])

    # ---------------------------------------------------------------------------------------
    # the public API

    def test(self, Y, *, alpha=0.05, method="monte-carlo"):
        """Test whether the samples ``Y`` come from p_hat (H0) or from rho_hat_E * p_hat (H1').

        Parameters
        ----------
        Y : array_like, shape (m, ...)
            m samples of the model under test, shaped like the pre-trained model's samples.
        alpha : float in (0, 1)
            The level: under H0 the test rejects with probability at most alpha.
        method : {"monte-carlo", "asymptotic", "permutation"}
            The null distribution: simulated from the model (valid at every m), the normal
            approximation (LR and ASC), or the two-sample permutation test (MMD).

        Returns
        -------
        TestResult
        """
        alpha = self._check_level(alpha, method)
        Y = self._check_Y(Y)
        m = len(Y)
        Yhat = None if self.statistic == "lr" else self._sample(m)
        observed = float(self._statistics(Y[None], None if Yhat is None else Yhat[None])[0])
        if method == "asymptotic":
            (p,), null = self._asymptotic([observed], m)
        elif method == "permutation":
            null = permutation_mmd2(Y, Yhat, self.n_null, self.kernel, self.bandwidth_, self._rng)
            p = float(monte_carlo_p_values([observed], null)[0])
        else:
            null = self.null_distribution(m)
            p = float(monte_carlo_p_values([self.direction_ * observed], self.direction_ * null)[0])
        return TestResult(statistic=observed, p_value=float(p), reject=bool(p <= alpha), alpha=alpha, m=m, null=null,
                          name=self.statistic, method=method, direction=self.direction_)

    def p_values(self, statistics, m, *, method="monte-carlo"):
        """The p-values of statistics computed elsewhere (natural scale) for sample size m.

        For example the ``statistics`` of a :class:`~gendel.deletion_test.calibration.PowerResult`, to compare the Monte-Carlo
        and the asymptotic p-values on the same samples.
        """
        self._check_level(0.5, method)
        if method == "permutation":
            raise ValueError("permutation p-values need the samples themselves: use test(Y, method='permutation')")
        m = check_count(m, "m", minimum=2 if self.statistic == "mmd" else 1)
        self._pilot()
        statistics = np.asarray(statistics, dtype=float)
        if method == "asymptotic":
            return self._asymptotic(statistics, m)[0]
        return monte_carlo_p_values(self.direction_ * statistics, self.direction_ * self.null_distribution(m))

    def power(self, alternative, m, *, alpha=0.05, n_rep=200, rng=None, method="monte-carlo"):
        """The rejection rate when the samples come from ``alternative`` (e.g. the re-trained model).

        With ``alternative`` equal to the pre-trained model this is the type-I error: its
        expectation is at most alpha, and since the n_rep tests share the null sample of size m
        it spreads around alpha as :func:`~gendel.deletion_test.calibration.type_one_band` says (not as a binomial).

        Parameters
        ----------
        alternative : object
            A model with ``sample(n, *, rng)``: the re-trained p_hat', the approximated model
            (an :class:`gendel.core.deletion.ApproximateDeletion`), or p_hat itself.
        m : int
            Samples per test.
        alpha : float in (0, 1)
        n_rep : int
            Independent tests.
        rng : numpy.random.Generator or int, optional
            Source of the alternative's draws and of the reference samples Y_hat that go with them
            (default: the test's own stream). The null sample of each m has a stream of its own,
            so with an explicit ``rng`` the result does not depend on earlier calls.
        method : {"monte-carlo", "asymptotic"}

        Returns
        -------
        PowerResult
        """
        alpha = self._check_level(alpha, method)
        if method == "permutation":
            raise ValueError("power() supports method='monte-carlo' and 'asymptotic'")
        if not callable(getattr(alternative, "sample", None)):
            raise TypeError(f"alternative must have a sample(n, *, rng) method; got {alternative!r}")
        m = check_count(m, "m", minimum=2 if self.statistic == "mmd" else 1)
        n_rep = check_count(n_rep, "n_rep", minimum=1)
        alt_rng = self._rng if rng is None else np.random.default_rng(rng)  # also draws the Y_hat of each test
        self._pilot()
        statistics = self._batched(lambda n: np.asarray(alternative.sample(n, rng=alt_rng)), n_rep, m, alt_rng)
        p = self.p_values(statistics, m, method=method)
        return PowerResult.from_p_values(p, alpha=alpha, m=m, statistics=statistics)
