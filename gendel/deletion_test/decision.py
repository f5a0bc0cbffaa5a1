"""The deletion test as a decision with a known error rate (§4 and Appendix C).

Given m samples ``Y`` of a model q and the pre-trained model p_hat, test

    H0: q = p_hat                    (nothing was deleted)
    H1': q = rho_hat_E * p_hat / Z   (the model behaves as if X' had been deleted, §4)

with one of the statistics of §4 / Appendix C, the entries of the registry
:data:`gendel.deletion_test.stats.STATISTICS`. Each entry says what the test needs and does:
``needs_ratio`` (the statistic reads log rho_hat_E; otherwise it is the kernel two-sample
statistic MMD), ``needs_reference`` (a fresh sample Y_hat ~ p_hat goes with Y), ``phi`` (the φ
of an ASC statistic) and ``direction`` (which tail rejects). Z = E_p_hat[rho_hat_E] is 1 for a
normalised ratio.

The null distribution of the statistic for the sample size m = len(Y) is simulated from p_hat
(``n_null`` independent sets of m samples), and the p-value is the Monte-Carlo one of
:mod:`gendel.deletion_test.calibration`, (1 + #{null >= observed}) / (1 + n_null), valid at every
n_null. The simulated null is kept per m and reused.

Which tail counts as evidence for H1' (the *direction*):

- ``"greater"``, large values reject. LR(Y, rho) = mean log rho(y): E_H1'[LR] - E_H0[LR] =
  Cov_p_hat(log rho, rho) / Z >= 0 for every ratio, because log rho and rho increase together
  (Chebyshev's association inequality). For a normalised ratio E_H0[LR] = -KL(p_hat || q1) <= 0
  and E_H1'[LR] = KL(q1 || p_hat) >= 0 (Appendix C.1, q1 = rho p_hat); for another ratio both
  move by log Z, so E_H0[LR] can be positive. ASC with phi = log t or t log t: only the Y half
  depends on q, and E_H1'[ASC] - E_H0[ASC] = E_p_hat[psi(rho) (rho / Z - 1)], which for a
  normalised ratio is E_p_hat[phi(rho) (rho - 1) / (rho + 1)] >= 0 (phi(t) and t - 1 have the
  same sign). MMD: MMD^2_u(Y, Y_hat) has mean 0 under H0 and MMD^2(q, p_hat) >= 0 otherwise.
- ``"estimated"``: the squared Hellinger phi = (sqrt t - 1)^2 >= 0. Its shift
  E_p_hat[psi(rho) (rho / Z - 1)] has no fixed sign (for a deletion it is usually negative:
  the statistic is smaller under H1'), so the test estimates it from ``n_pilot`` draws of p_hat,
  independent of the null sample, and takes its sign (attribute ``direction_``). The estimate has
  a standard error; when the shift lies within two of them of 0 the test warns: it stays valid
  (the null is simulated whichever tail is chosen) but has no power to speak of. A shift of
  exactly 0 or NaN is refused.

MMD does not use the ratio: it is a two-sample test against the model, and tests q = p_hat
against any alternative.

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
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from gendel._progress import duration_text, progress_bar
from gendel._validation import MAX_COORDINATE, check_bandwidth, check_count, check_fitted, check_memory, check_positive
from gendel.deletion_test.calibration import (PowerResult, check_alpha, check_null_size, monte_carlo_p_values,
                                              normal_p_values, null_spread)
from gendel.deletion_test.mmd import median_bandwidth, mmd2_batch, permutation_mmd2
from gendel.deletion_test.stats import STATISTICS, psi

#: Ways to get the null distribution.
METHODS = ("monte-carlo", "asymptotic", "permutation")
#: Kernels for the MMD statistic by name (a callable ``kernel(A, B) -> Gram matrix`` also works).
MMD_KERNELS = ("rbf", "laplacian")
#: Model draws per test call are generated in chunks of about this many points (memory).
_CHUNK_POINTS = 50_000
#: An estimated direction within this many standard errors of 0 gets a warning.
_DIRECTION_NOISE = 2.0
#: From this many pilot draws on, a small batch of the model (and the DRE) is timed first, so that a
#: pilot longer than ``max_seconds`` is refused before it starts.
_TIME_PILOT_FROM = 100_000
#: Simulations (null samples, power) estimated to take longer than this, in seconds, show a progress bar.
_PROGRESS_FROM_SECONDS = 10.0


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
        The statistic (a key of :data:`gendel.deletion_test.stats.STATISTICS`).
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
        return (f"{STATISTICS[self.name].label} = {self.statistic:.4g}, p = {self.p_value:.4g} "
                f"(m = {self.m}, {self.method}) at alpha = {self.alpha:g}: {verdict}")


def _plural(n, one, many):
    return f"{n} {one if n == 1 else many}"


def _returned(values):
    """What a DRE's log_ratio returned, for a message."""
    if values is None:
        return "None (does log_ratio lack a return statement?)"
    if np.ndim(values) == 0:
        return "a single number"
    return f"log ratios of shape {np.shape(values)}"


class DeletionTest:
    """A calibrated test of H0: q = p_hat against H1': q = rho_hat_E * p_hat (§4).

    Parameters
    ----------
    model : object
        The pre-trained model p_hat: anything with ``sample(m, *, rng)`` (a
        :class:`gendel.core.models.KDE`, a :class:`gendel.gan.dcgan.DCGAN`, ...).
    dre : object
        A fitted density ratio estimator rho_hat_E with ``log_ratio(Y)`` (or the exact
        :class:`gendel.core.dre.ExactKDERatio` where it is known), fitted on points shaped like
        the model's samples. Not used by ``"mmd"``, which accepts None.
    statistic : {"lr", "asc-log", "asc-tlogt", "asc-hellinger", "mmd"}
        A key of the registry :data:`gendel.deletion_test.stats.STATISTICS`; see the module
        docstring for the direction of each.
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
        Model draws used once, when the test is made, for the direction of an ``"estimated"``
        statistic, the asymptotic moments and the median heuristic. They also check that the
        DRE takes the model's samples.
    max_seconds : float or None
        Refuse a simulation (the null sample of one m, the draws of :meth:`power`) estimated to
        take longer (default 3600 s), with the estimate; the time of one model draw (and the DRE
        on it) is measured on the pilot draws. ``None`` runs whatever it costs. A simulation
        estimated at over 10 s shows a progress bar. From 100,000 pilot draws on, a small batch is
        timed first and a pilot that would take longer is refused too.

    Attributes
    ----------
    direction_ : int
        +1 when large values of the statistic reject, -1 when small values do.
    shift_, shift_se_ : float
        ``"estimated"`` statistics only: the pilot's estimate of E_H1'[T] - E_H0[T] and its
        standard error; ``direction_`` is the sign of ``shift_``.
    bandwidth_ : float
        The MMD bandwidth in use.

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
                 n_pilot=10_000, max_seconds=3600.0):
        if statistic not in STATISTICS:
            raise ValueError(f"statistic must be one of {tuple(STATISTICS)}; got {statistic!r}")
        spec = STATISTICS[statistic]
        if spec.direction not in ("greater", "estimated") or (spec.direction == "estimated" and not spec.needs_ratio):
            raise ValueError(f"the registry gives {statistic!r} the direction {spec.direction!r}; DeletionTest knows "
                             "'greater' and, for a statistic of the ratio, 'estimated'")
        if not callable(getattr(model, "sample", None)):
            raise TypeError(f"model must have a sample(m, *, rng) method (the pre-trained p_hat); got {model!r}")
        if spec.needs_ratio:
            if dre is None or not callable(getattr(dre, "log_ratio", None)):
                raise TypeError(f"statistic {statistic!r} needs a fitted DRE with log_ratio(Y); got {dre!r}")
            if hasattr(dre, "fit") and type(dre).__module__.startswith("gendel"):
                check_fitted(dre, "_fitted")
        else:
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
        if isinstance(rng, (int, np.integer)) and rng < 0:
            raise ValueError(f"rng must be a numpy.random.Generator, a non-negative int seed or None; got {rng!r}")
        self.max_seconds = None if max_seconds is None else check_positive(max_seconds, "max_seconds")
        self._spec = spec
        self._rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        # The pilot and the null of each m get their own stream derived from one base seed, so a
        # null sample does not depend on which calls came before it.
        self._base_seed = int(self._rng.integers(2**63))
        self._nulls = {}
        if self.n_pilot >= _TIME_PILOT_FROM:
            self._check_pilot_cost()
        self._pilot()

    def __repr__(self):
        extra = "" if self._spec.needs_ratio else f", kernel={self.kernel!r}, bandwidth={self.bandwidth!r}"
        return (f"DeletionTest({self.model!r}, {self.dre!r}, statistic={self.statistic!r}, "
                f"n_null={self.n_null}{extra})")

    # ---------------------------------------------------------------------------------------
    # draws and statistics

    @property
    def _min_m(self):
        return 1 if self._spec.needs_ratio else 2  # MMD²_u averages over pairs i != j

    def _sample(self, n, rng=None):
        return self._checked_draws(self.model.sample(n, rng=self._rng if rng is None else rng), n, "the model")

    def _checked_draws(self, draws, n, source):
        """``draws`` as an array, refused unless it holds n samples (of the pilot's shape, once known)."""
        draws = np.asarray(draws)
        shape = getattr(self, "sample_shape_", None)
        if draws.ndim < 2 or len(draws) != n or (shape is not None and draws.shape[1:] != shape):
            expected = f"({n}, {', '.join(map(str, shape))})" if shape is not None else f"({n}, ...)"
            raise ValueError(f"{source}'s sample({n}, rng=...) returned an array of shape {draws.shape}; it must "
                             f"return {n} samples, one per row, of shape {expected} (points (n, d), images "
                             "(n, 1, 28, 28), ...)")
        return draws

    def _check_pilot_cost(self):
        """Time a small batch of the model and the DRE (a private stream: the test's are untouched) and
        refuse ``n_pilot`` draws that would take longer than ``max_seconds`` or not fit in memory."""
        k = 256
        t0 = time.perf_counter()
        draws = self._checked_draws(self.model.sample(k, rng=np.random.default_rng(2**31 - 1)), k, "the model")
        if self._spec.needs_ratio:
            self.dre.log_ratio(draws)
        seconds = (time.perf_counter() - t0) / k * self.n_pilot
        if self.max_seconds is not None and seconds > self.max_seconds:
            raise ValueError(f"n_pilot={self.n_pilot} pilot draws would take about {duration_text(seconds)} here "
                             f"(timed on {k} draws), more than max_seconds={self.max_seconds:g}; use a smaller "
                             "n_pilot (the default 10000 is plenty), or pass max_seconds=None to run it anyway")
        check_memory(self.n_pilot * draws[0].nbytes, f"n_pilot={self.n_pilot} pilot draws",
                     "use a smaller n_pilot (the default 10000 is plenty)")

    def _seconds(self, sets, m):
        """The estimated seconds of ``sets`` statistics of m samples: the draws (and the DRE on them) at the
        pilot's speed, plus, for MMD, the kernel matrices at the speed of one timed on pilot draws."""
        draws = sets * m * (2 if self._spec.needs_reference else 1)
        seconds = draws * self._seconds_per_draw
        if not self._spec.needs_ratio:
            seconds += sets * 3 * m * m * self._seconds_per_entry
        return seconds

    def _stream(self, *key):
        """An independent random stream for one part of the test (the pilot, the null of one m)."""
        return np.random.default_rng([self._base_seed, *key])

    def _pilot_log_ratio(self, draws):
        """log rho_hat_E on the pilot draws, with clear errors where the DRE does not fit the model."""
        dim = getattr(self.dre, "dim_", None)
        if isinstance(dim, (int, np.integer)) and draws.ndim == 2 and draws.shape[1] != dim:
            raise ValueError(f"the DRE was fitted on points of dimension {dim}, but the model draws points of "
                             f"dimension {draws.shape[1]}: fit the DRE on X and X' of the model's data")
        try:
            log_r = self.dre.log_ratio(draws)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"the DRE cannot evaluate samples of the model (shape {draws.shape[1:]}): {exc}. "
                             "Fit the DRE on data shaped like the model's samples") from exc
        log_r = self._real_log_ratios(log_r, len(draws), "model samples")
        if np.isnan(log_r).any():
            raise ValueError("the DRE returned NaN log ratios on the model's samples")
        if np.isposinf(log_r).any():
            raise ValueError(f"the DRE returned +inf log ratios on {int(np.isposinf(log_r).sum())} of the model's "
                             f"{len(draws)} pilot draws: a ratio p_hat'/p_hat is finite wherever p_hat draws; "
                             "check the DRE (a ratio of 0, log ratio -inf, is allowed)")
        if np.isneginf(log_r).all():
            raise ValueError(f"the DRE is 0 on every one of the model's {len(draws)} pilot draws (log ratio -inf): "
                             "H1' would have no mass where the model draws; check that the DRE was fitted on this "
                             "model's data")
        return log_r

    def _estimated_direction(self, log_r, values):
        """The sign of E_H1'[T] - E_H0[T] = E_p_hat[psi(rho) (rho / Z - 1)], from the pilot draws."""
        ratio = np.exp(log_r - log_r.max())
        terms = values * (ratio / ratio.mean() - 1.0)
        self.shift_ = float(terms.mean())
        self.shift_se_ = float(terms.std() / math.sqrt(terms.size))
        label = self._spec.label
        if np.isnan(self.shift_):
            raise ValueError(f"the estimated shift E_H1'[T] - E_H0[T] of {label} is NaN on the {terms.size} pilot "
                             "draws, so the test has no direction; check the DRE's log ratios on the model's samples")
        if self.shift_ == 0:
            raise ValueError(
                f"the estimated shift E_H1'[T] - E_H0[T] of {label} is exactly 0 on the {terms.size} pilot draws "
                "(the DRE gives the statistic the same law under H0 and H1', e.g. a constant ratio), so the test has "
                "no direction and no power; check the DRE, or use LR")
        if abs(self.shift_) <= _DIRECTION_NOISE * self.shift_se_:
            warnings.warn(
                f"{label}: the estimated shift E_H1'[T] - E_H0[T] = {self.shift_:.3g} lies within "
                f"{_DIRECTION_NOISE:g} standard errors ({self.shift_se_:.2g}) of 0 after {terms.size} pilot draws, "
                f"so the direction ({'small' if self.shift_ < 0 else 'large'} values reject) is a guess. The test "
                "stays valid (its null is simulated whichever tail it uses) but has no power to speak of against "
                "H1'; use more pilot draws (n_pilot) or another statistic (LR)", UserWarning, stacklevel=3)
        return -1 if self.shift_ < 0 else 1

    def _pilot(self):
        """Set direction_, the asymptotic moments and the MMD bandwidth from n_pilot model draws."""
        t0 = time.perf_counter()
        draws = self._sample(self.n_pilot, self._stream(0))
        bad = ~np.isfinite(draws.reshape(len(draws), -1)).all(axis=1)
        if bad.any():
            raise ValueError(f"{int(bad.sum())} of the model's {self.n_pilot} pilot draws hold NaN or infinite values: "
                             "a model's samples are finite numbers; check the model (a GAN whose training diverged "
                             "draws NaN)")
        self.sample_shape_ = draws.shape[1:]
        self._moments = None
        if not self._spec.needs_ratio:
            self._seconds_per_draw = (time.perf_counter() - t0) / self.n_pilot
            k = min(100, self.n_pilot // 2)
            self.bandwidth_ = median_bandwidth(draws) if self.bandwidth is None else self.bandwidth
            t0 = time.perf_counter()
            mmd2_batch(draws[None, :k], draws[None, k:2 * k], self.kernel, self.bandwidth_)
            self._seconds_per_entry = (time.perf_counter() - t0) / (3 * k * k)
        else:
            log_r = self._pilot_log_ratio(draws)
            self._seconds_per_draw = (time.perf_counter() - t0) / self.n_pilot
            values = log_r if self._spec.phi is None else psi(log_r, self._spec.phi)
            finite = np.isfinite(values)
            self._moments = (float(values[finite].mean()), float(values[finite].var()), bool(finite.all()))
            if self._spec.direction == "estimated":
                self.direction_ = self._estimated_direction(log_r, values)
                return
        self.direction_ = 1  # "greater": large values reject

    def _real_log_ratios(self, values, n, what):
        """The DRE's ``values`` for n samples as a float array of shape (n,); anything else is refused."""
        if np.iscomplexobj(values):
            raise TypeError(f"the DRE returned complex log ratios (dtype {np.asarray(values).dtype}) for {n} {what}: "
                            "log ratios are real numbers, and the imaginary part would be dropped; check the DRE "
                            "(or pass np.real(...) if the imaginary part is rounding noise)")
        if values is None or np.shape(values) != (n,):
            raise ValueError(f"the DRE returned {_returned(values)} for {n} {what}; log_ratio(Y) must return one "
                             f"number per sample, shape ({n},)")
        try:
            return np.asarray(values, dtype=float)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"the DRE returned log ratios of dtype {np.asarray(values).dtype} for {n} {what}; "
                            "log_ratio(Y) must return numbers") from exc

    def _log_ratio(self, Y):
        """log rho_hat_E of R sets of m samples, Y of shape (R, m, ...): shape (R, m)."""
        R, m = Y.shape[:2]
        return self._real_log_ratios(self.dre.log_ratio(Y.reshape(R * m, *Y.shape[2:])), R * m, "samples").reshape(R, m)

    def _statistics(self, Y, Yhat=None):
        """The statistic for each of R sample sets: Y of shape (R, m, ...), natural scale."""
        if not self._spec.needs_ratio:
            return mmd2_batch(Y, Yhat, self.kernel, self.bandwidth_)
        log_hat = self._log_ratio(Yhat) if self._spec.needs_reference else None
        return self._spec.of_log_ratios(log_hat, self._log_ratio(Y))

    def _batched(self, draw, R, m, rng, what="the null distribution", advice="", source="the model"):
        """Statistics of R sets of m samples drawn by ``draw(n)`` (and m of Y_hat from ``rng``), in chunks.

        Refused up front when the estimated time exceeds ``max_seconds`` (``what`` and ``advice`` make the
        message); shown with a progress bar when it is long."""
        seconds = self._seconds(R, m)
        if self.max_seconds is not None and seconds > self.max_seconds:
            raise ValueError(f"{what} for m={m} would take about {duration_text(seconds)} here ({R} sets of m={m} "
                             f"model draws{' and as many reference draws' if self._spec.needs_reference else ''}, "
                             f"{duration_text(self._seconds_per_draw)} per draw as timed on the pilot), more than "
                             f"max_seconds={self.max_seconds:g}. {advice}pass max_seconds=None to run it anyway")
        chunk = max(1, _CHUNK_POINTS // m)
        if not self._spec.needs_ratio:
            chunk = max(1, min(chunk, 4_000_000 // (4 * m * m)))  # Gram matrices of (2m)^2 entries
        out = []
        starts = range(0, R, chunk)
        bar = progress_bar(starts, enabled=seconds > _PROGRESS_FROM_SECONDS, desc=f"{self._spec.label}, m = {m}",
                           unit="chunk", leave=False)
        for start in bar:
            r = min(chunk, R - start)
            Y = self._checked_draws(draw(r * m), r * m, source)
            Y = Y.reshape(r, m, *Y.shape[1:])
            # Y_hat ~ p_hat, the reference sample of ASC and MMD
            Yhat = self._sample(r * m, rng).reshape(Y.shape) if self._spec.needs_reference else None
            out.append(self._statistics(Y, Yhat))
        statistics = np.concatenate(out)
        if np.isnan(statistics).any():
            raise ValueError(f"{_plural(int(np.isnan(statistics).sum()), 'simulated statistic is', 'simulated statistics are')} "
                             f"NaN ({self._spec.label}, m = {m}): the model's samples give no number; check that they "
                             "are finite and of moderate size (rescale them)")
        return statistics

    def _null(self, m, j=0):
        """The j-th independent null sample of size m (j = 0 is the one tests use), cached."""
        if (m, j) not in self._nulls:
            rng = self._stream(1, m) if j == 0 else self._stream(1, m, j)
            self._nulls[m, j] = self._batched(
                lambda n: self._sample(n, rng), self.n_null, m, rng,
                what=f"the null distribution (n_null={self.n_null} simulated statistics)",
                advice="Use a smaller n_null (1000 gives a stable critical value at alpha = 0.05, and the Monte-Carlo "
                       "p-value is valid at every n_null), method='asymptotic' (LR, ASC), or ")
        return self._nulls[m, j]

    def null_distribution(self, m):
        """The ``n_null`` simulated statistics under H0 for sample size m (natural scale), cached per m.

        Examples
        --------
        >>> import numpy as np
        >>> from gendel.synthetic.sampling import Protocol, setup
        >>> _, _, exact = setup(Protocol("mog8", lam=0.5, N=100))
        >>> test = DeletionTest(exact.pretrained_, exact, n_null=99, rng=0, n_pilot=200)
        >>> null = test.null_distribution(20)
        >>> null.shape, test.null_distribution(20) is null
        ((99,), True)
        """
        m = check_count(m, "m", minimum=self._min_m)
        return self._null(m)

    def _check_level(self, alpha, method):
        alpha = check_alpha(alpha)
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}; got {method!r}")
        if method == "asymptotic" and not self._spec.needs_ratio:
            raise ValueError("method='asymptotic' is available for LR and ASC only: under H0 the MMD "
                             "U-statistic is degenerate (sigma_u = 0, Appendix C.3) and has no normal limit; "
                             "use method='monte-carlo' or 'permutation'")
        if method == "permutation" and self._spec.needs_ratio:
            raise ValueError("method='permutation' is the two-sample MMD test; for LR and ASC use "
                             "method='monte-carlo' or 'asymptotic'")
        if method != "asymptotic":
            check_null_size(self.n_null, alpha)
        return alpha

    def _check_Y(self, Y):
        try:
            Y = np.asarray(Y)
        except ValueError as exc:  # a ragged sequence: numpy's "inhomogeneous shape"
            raise ValueError(f"Y must be an array of m samples of one shape, {self.sample_shape_} each; got a sequence "
                             f"whose samples differ in length or shape ({exc})") from exc
        if np.iscomplexobj(Y):
            raise TypeError(f"Y is complex (dtype {Y.dtype}): samples of a model are real numbers, and the imaginary "
                            "part would be dropped; if it is rounding noise, pass np.real(Y)")
        if not np.issubdtype(Y.dtype, np.number):
            raise TypeError(f"Y must be numeric; got dtype {Y.dtype}")
        if Y.ndim < 2 or Y.shape[1:] != self.sample_shape_:
            raise ValueError(f"Y must hold m samples of the model's shape, i.e. have shape (m, "
                             f"{', '.join(map(str, self.sample_shape_))}); got shape {Y.shape}")
        if len(Y) < self._min_m:
            raise ValueError("the MMD statistic needs at least two samples in Y" if self._min_m == 2 else
                             "Y is empty: the test needs at least one sample")
        bad = ~np.isfinite(Y.reshape(len(Y), -1))
        if bad.any():
            rows = np.flatnonzero(bad.any(axis=1))
            shown = ", ".join(map(str, rows[:5])) + (", ..." if rows.size > 5 else "")
            raise ValueError(f"Y holds {_plural(int(bad.sum()), 'value that is', 'values that are')} not finite "
                             f"(NaN or ±inf), in {'row' if rows.size == 1 else 'rows'} {shown}: samples of a model "
                             "are finite numbers; remove or repair those samples")
        biggest = float(np.abs(Y).max())
        if not self._spec.needs_ratio and biggest > MAX_COORDINATE:
            raise ValueError(f"Y holds values up to {biggest:.3g} in magnitude: the kernel's squared distances "
                             f"overflow float64 beyond {MAX_COORDINATE:.0e}; rescale the samples (and the model) "
                             "before testing")
        return Y

    def _checked(self, observed, Y):
        """The observed statistic, refused when it is NaN (or, for MMD, infinite): it would be no evidence."""
        if np.isnan(observed) or (not self._spec.needs_ratio and not np.isfinite(observed)):
            raise ValueError(f"{self._spec.label} of Y is {observed}: the statistic gives no number on these "
                             f"samples (the largest |value| in Y is {float(np.abs(Y).max()):.3g}; kernel sums "
                             "overflow for huge values or a kernel that returns NaN); rescale the samples or check "
                             "the kernel")
        return observed

    def _asymptotic(self, statistics, m):
        mean, var, finite = self._moments
        if not finite:
            raise ValueError("method='asymptotic' needs finite log ratios under p_hat, but the DRE is 0 on some "
                             "model samples (e.g. a kNN DRE); use method='monte-carlo'")
        k = 2.0 if self._spec.needs_reference else 1.0  # ASC: m draws of Y_hat and m of Y, all from p_hat under H0
        loc, scale = k * mean, math.sqrt(k * var / m)
        return normal_p_values(statistics, loc, scale, self.direction_), np.array([loc, scale])

    # ---------------------------------------------------------------------------------------
    # the public API

    def test(self, Y, *, alpha=0.05, method="monte-carlo"):
        """Test whether the samples ``Y`` come from p_hat (H0) or from rho_hat_E * p_hat (H1').

        Parameters
        ----------
        Y : array_like, shape (m, ...)
            m samples of the model under test, shaped like the pre-trained model's samples;
            finite real numbers.
        alpha : float in (0, 1)
            The level: under H0 the test rejects with probability at most alpha.
        method : {"monte-carlo", "asymptotic", "permutation"}
            The null distribution: simulated from the model (valid at every m), the normal
            approximation (LR and ASC), or the two-sample permutation test (MMD).

        Returns
        -------
        TestResult

        Examples
        --------
        >>> import numpy as np
        >>> from gendel.synthetic.sampling import Protocol, setup
        >>> _, _, exact = setup(Protocol("mog8", lam=0.5, N=100))
        >>> test = DeletionTest(exact.pretrained_, None, statistic="mmd", n_null=99, rng=0, n_pilot=200)
        >>> Y = exact.pretrained_.sample(30, rng=np.random.default_rng(1))
        >>> test.test(Y).p_value > 0.05
        True
        >>> Y[2, 0] = np.nan
        >>> test.test(Y)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: Y holds 1 value that is not finite (NaN or ±inf), in row 2: ...
        """
        alpha = self._check_level(alpha, method)
        Y = self._check_Y(Y)
        m = len(Y)
        Yhat = self._sample(m) if self._spec.needs_reference else None
        observed = self._checked(float(self._statistics(Y[None], None if Yhat is None else Yhat[None])[0]), Y)
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
        and the asymptotic p-values on the same samples. NaN statistics are refused.

        Examples
        --------
        >>> import numpy as np
        >>> from gendel.synthetic.sampling import Protocol, setup
        >>> _, _, exact = setup(Protocol("mog8", lam=0.5, N=100))
        >>> test = DeletionTest(exact.pretrained_, exact, n_null=99, rng=0, n_pilot=200)
        >>> test.p_values([-np.inf, np.inf], 20).tolist()   # below and beyond every null statistic
        [1.0, 0.01]
        """
        self._check_level(0.5, method)
        if method == "permutation":
            raise ValueError("permutation p-values need the samples themselves: use test(Y, method='permutation')")
        m = check_count(m, "m", minimum=self._min_m)
        statistics = np.asarray(statistics, dtype=float)
        if np.isnan(statistics).any():
            raise ValueError(f"statistics contain NaN ({_plural(int(np.isnan(statistics).sum()), 'value', 'values')}): "
                             "a NaN statistic is no evidence either way and gets no p-value; find where it came from")
        if method == "asymptotic":
            return self._asymptotic(statistics, m)[0]
        return monte_carlo_p_values(self.direction_ * statistics, self.direction_ * self.null_distribution(m))

    def power(self, alternative, m, *, alpha=0.05, n_rep=200, rng=None, method="monte-carlo", n_nulls=1):
        """The rejection rate when the samples come from ``alternative`` (e.g. the re-trained model).

        The test's power averages over its simulated null sample as well as over Y: the n_rep
        tests here share one null sample (or ``n_nulls`` of them), whose critical value is itself
        random. The interval of the result includes that spread (:func:`~gendel.deletion_test.calibration.null_spread`)
        besides the binomial one of the n_rep tests. With ``alternative`` equal to the
        pre-trained model this is the type-I error: its expectation is at most alpha, and it
        spreads around alpha as :func:`~gendel.deletion_test.calibration.type_one_band` says (not as a binomial).

        Parameters
        ----------
        alternative : object
            A model with ``sample(n, *, rng)``: the re-trained p_hat', the approximated model
            (an :class:`gendel.core.deletion.ApproximateDeletion`), or p_hat itself.
        m : int
            Samples per test.
        alpha : float in (0, 1)
        n_rep : int
            Independent sets of m samples of ``alternative``.
        rng : numpy.random.Generator, int or sequence of ints, optional
            Source of the alternative's draws and of the reference samples Y_hat that go with them
            (default: the test's own stream). The null samples of each m have streams of their own,
            so with an explicit ``rng`` the result does not depend on earlier calls.
        method : {"monte-carlo", "asymptotic"}
        n_nulls : int
            Monte-Carlo only: independent null samples of ``n_null`` statistics each. The rate is
            the mean of the n_rep tests' rejections over them (the first is
            :meth:`null_distribution`); more null samples narrow the interval at the cost of
            ``n_nulls * n_null`` sets of model draws per m.

        Returns
        -------
        PowerResult
            ``p_values`` against the first null sample.

        Examples
        --------
        >>> from gendel.synthetic.sampling import Protocol, setup
        >>> _, _, exact = setup(Protocol("mog8", lam=0.5, N=100))
        >>> test = DeletionTest(exact.pretrained_, exact, n_null=99, rng=0, n_pilot=200)
        >>> one = test.power(exact.retrained_, 50, n_rep=100, rng=1)
        >>> three = test.power(exact.retrained_, 50, n_rep=100, rng=1, n_nulls=3)
        >>> bool(one.null_sd > 0), three.n_nulls, bool(three.high - three.low < one.high - one.low)
        (True, 3, True)
        """
        alpha = self._check_level(alpha, method)
        if method == "permutation":
            raise ValueError("power() supports method='monte-carlo' and 'asymptotic'")
        if not callable(getattr(alternative, "sample", None)):
            raise TypeError(f"alternative must have a sample(n, *, rng) method; got {alternative!r}")
        m = check_count(m, "m", minimum=self._min_m)
        n_rep = check_count(n_rep, "n_rep", minimum=1)
        n_nulls = check_count(n_nulls, "n_nulls", minimum=1)
        if method == "asymptotic" and n_nulls != 1:
            raise ValueError("n_nulls counts simulated null samples; method='asymptotic' uses none: leave n_nulls=1")
        if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) and rng < 0:
            raise ValueError(f"rng must be a numpy.random.Generator, a non-negative int seed (or a sequence of them) "
                             f"or None; got {rng!r}")
        alt_rng = self._rng if rng is None else np.random.default_rng(rng)  # also draws the Y_hat of each test
        statistics = self._batched(lambda n: np.asarray(alternative.sample(n, rng=alt_rng)), n_rep, m, alt_rng,
                                   what=f"power() with n_rep={n_rep} tests", advice="Use a smaller n_rep, or ",
                                   source="the alternative")
        p = self.p_values(statistics, m, method=method)
        if method == "asymptotic":  # no null sample to share; the approximation's own error is not in the interval
            return PowerResult.from_p_values(p, alpha=alpha, m=m, statistics=statistics)
        d = self.direction_
        nulls = [d * self._null(m, j) for j in range(n_nulls)]
        rejected = [p <= alpha] + [monte_carlo_p_values(d * statistics, null) <= alpha for null in nulls[1:]]
        share = float(np.mean(rejected))
        # the spread the null samples add: each one's own, averaged, over n_nulls independent ones
        sd = math.sqrt(np.mean([null_spread(d * statistics, null, alpha) ** 2 for null in nulls]) / n_nulls)
        return PowerResult.from_rate(share, alpha=alpha, m=m, n_rep=n_rep, null_sd=sd, n_nulls=n_nulls,
                                     statistics=statistics, p_values=p)
