"""Fast deletion: the approximated model D(p_hat, X, X') = rho_hat_E * p_hat (§2.1, Alg. 1).

Instead of re-training, samples of the pre-trained model are filtered by rejection sampling:
a proposal y ~ p_hat is accepted when rho_hat_E(y) > B * u with u ~ Uniform[0, 1]. When
B >= sup rho_hat_E, accepted points are i.i.d. from the normalised rho_hat_E * p_hat, and the
acceptance rate is E_{p_hat}[rho_hat_E] / B (= (N - N') / N for the exact KDE ratio).

:class:`ApproximateDeletion` is the one implementation of Alg. 1 in gendel: :meth:`~ApproximateDeletion.sample`
returns the accepted points, and :meth:`~ApproximateDeletion.steps` runs the same loop batch by batch
for callers that need more than the points (the §5.1 protocol reads rho_hat on each accepted point).
"""

from __future__ import annotations

import math
import time
import warnings

import numpy as np

from gendel._progress import duration_text
from gendel._validation import (Estimator, NotFittedError, check_count, check_positive, check_real, check_rng,
                                is_fitted, outputs_error, plain)

#: The largest default number of proposals of one :meth:`ApproximateDeletion.sample` call.
MAX_DEFAULT_PROPOSALS = 10_000_000

#: From this many expected proposals (m * B) on, Alg. 1 first times a pilot batch of the model and
#: the DRE and estimates the cost of the call (see ``max_seconds``).
PILOT_FROM = 100_000

#: Proposals in that pilot batch (drawn with a private random stream: the caller's is untouched).
PILOT_SIZE = 256

#: A run longer than this (estimated, in seconds) shows a progress bar.
PROGRESS_FROM_SECONDS = 10.0


def _below(bound, known):
    """Whether B is below a DRE's known bound (None: no known bound), beyond rounding."""
    return known is not None and bound < known * (1 - 1e-12)


def _batch_size(limit, proposed, wanted, n_acc, rate):
    """The size of Alg. 1's next batch: 1.2 times the proposals the running acceptance rate says
    the missing points need (at least 64), never past the limit."""
    return int(min(limit - proposed, max(64, math.ceil(1.2 * (wanted - n_acc) / max(rate, 1e-3)))))


#: B counts as too large when the largest ratio of a pilot batch is this many times smaller.
TOO_LARGE_FACTOR = 100


def _largest_pilot_ratio(sampler):
    """The largest ρ̂_ℰ on a pilot batch of the model (the pilot's private stream), or None when it
    cannot be had. For error messages only: it tells a B that is too large from too many samples."""
    try:
        Y = np.asarray(sampler.model.sample(PILOT_SIZE, rng=np.random.default_rng(2**31 - 1)))
        with np.errstate(over="ignore"):  # a log ratio beyond 709 reads as inf
            return float(np.exp(np.max(check_real(sampler.dre.log_ratio(Y), "the DRE's log_ratio(Y)"))))
    except Exception:  # noqa: BLE001 - a message must not fail
        return None


def _ratio_text(log_ratio):
    """exp(``log_ratio``) for a message, without overflowing: "e^(1e+300)" beyond the float range."""
    return f"{math.exp(log_ratio):.3g}" if log_ratio < 709 else f"e^({log_ratio:.3g})"


def _too_many(sampler, m, anyway):
    """What a refused call for ``m`` points should change: B, when the largest ratio of a pilot batch
    is far below it (:data:`TOO_LARGE_FACTOR`), else the number of samples; or ``anyway``."""
    largest = _largest_pilot_ratio(sampler)
    if largest is not None and largest * TOO_LARGE_FACTOR < sampler.bound_:
        return (f"The largest ratio rho_hat_E of a pilot batch is {largest:.3g}, far below B={sampler.bound_:g}: "
                "B is too large, and the acceptance rate (about 1/B) needlessly low. Use a tighter bound B, a little "
                f"above the largest ratio (the paper uses B = 10 for its GANs), or {anyway}")
    return (f"B={sampler.bound_:g} is not far above the largest ratio of a pilot batch"
            + (f" ({largest:.3g})" if largest is not None else "") + f": use fewer samples, or {anyway}")


def proposal_limit(m, bound, max_proposals=None):
    """The number of proposals after which Alg. 1 for ``m`` points with bound B gives up:
    ``max_proposals``, else ``max(100_000, 1000 m B)`` capped at :data:`MAX_DEFAULT_PROPOSALS`.

    Examples
    --------
    >>> proposal_limit(10, 2.0), proposal_limit(10, 2.0, max_proposals=500), proposal_limit(10**6, 10.0)
    (100000, 500, 10000000)
    """
    return max_proposals or int(min(max(100_000, 1000 * m * bound), MAX_DEFAULT_PROPOSALS))


def first_batch_size(m, bound, max_proposals=None):
    """The number of proposals in the first batch of Alg. 1 for ``m`` points with bound B. It
    depends on m and B only, so callers can draw it ahead (the §5.1 protocol shares it between
    DREs with the same B).

    Examples
    --------
    >>> first_batch_size(1000, 2.0)          # 1.2 m B
    2400
    """
    return _batch_size(proposal_limit(m, bound, max_proposals), 0, m, 0, 1.0 / bound)


class ApproximateDeletion(Estimator):
    """Sampler for the approximated model rho_hat_E * p_hat (Alg. 1).

    It is built from fitted parts and has no ``fit`` of its own: the parameters are checked when
    it is made (and by ``set_params``). ``get_params``, ``set_params`` and the repr follow
    scikit-learn; ``sklearn.base.clone`` gives a fresh sampler on the same fitted model and DRE
    (cloning them would discard their fit).

    Parameters
    ----------
    model : object
        The fitted pre-trained model p_hat; anything with ``sample(m, rng=...)`` returning an
        array of m points (a :class:`gendel.core.models.KDE`, a :class:`gendel.gan.dcgan.DCGAN`, ...).
    dre : object
        A fitted density ratio estimator with ``log_ratio(Y)``.
    bound : float, optional
        The constant B of Alg. 1. Defaults to ``dre.ratio_bound_``. A bound below the DRE's
        known bound is refused: samples would no longer follow rho_hat_E * p_hat.
    max_proposals : int, optional
        Give up (``RuntimeError``) after this many proposals in one call to :meth:`sample`.
        Defaults to ``max(100_000, 1000 * m * B)``, at most ``MAX_DEFAULT_PROPOSALS`` (10^7);
        without it, a call whose expected number of proposals m * B (acceptance rate
        E[rho_hat_E] / B = 1 / B for a normalised ratio) exceeds half of 10^7 is refused up front.
    max_seconds : float or None, optional
        Refuse a call that would take longer (default 300 s). From :data:`PILOT_FROM` expected
        proposals on, a pilot batch times the model and the DRE and estimates the acceptance
        rate first; ``None`` runs whatever it costs. A run estimated at over
        :data:`PROGRESS_FROM_SECONDS` shows a progress bar.

    Attributes
    ----------
    bound_ : float
        The B in use: ``bound``, or the DRE's known bound when ``bound`` is None.
    acceptance_rate_ : float
        Accepted / proposed in the last call to :meth:`sample`.
    n_proposals_ : int
        Proposals drawn in the last call.
    bound_exceeded_ : float
        Fraction of the last call's proposals with rho_hat_E(y) > B. Non-zero means B was not a
        valid bound and the samples are biased towards rho_hat_E clipped at B.
    max_log_ratio_ : float
        The largest log rho_hat_E among the last call's proposals.

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.core.deletion import ApproximateDeletion
    >>> from gendel.core.dre import ExactKDERatio
    >>> X = np.random.default_rng(0).normal(size=(100, 1))
    >>> exact = ExactKDERatio(bandwidth=0.2).fit(X, X[:, 0] > 1.0)   # forget the right tail
    >>> sampler = ApproximateDeletion(exact.pretrained_, exact)
    >>> Y = sampler.sample(200, rng=np.random.default_rng(1))
    >>> Y.shape, bool(np.mean(Y > 1.5) < 0.05)
    ((200, 1), True)
    """

    def __init__(self, model, dre, bound=None, *, max_proposals=None, max_seconds=300.0):
        self.model = model
        self.dre = dre
        self.bound = plain(bound)
        self.max_proposals = plain(max_proposals)
        self.max_seconds = plain(max_seconds)
        self._check_params()

    def set_params(self, **params):
        """Set parameters (``bound=...``, ``dre__bandwidth=...``) and check them again; returns self.
        Invalid values are refused and the previous ones kept."""
        before = self.get_params(deep=False)
        super().set_params(**params)
        try:
            self._check_params()
        except Exception:
            super().set_params(**before)
            self._check_params()
            raise
        return self

    def __sklearn_clone__(self):
        return type(self)(**self.get_params(deep=False))

    def __sklearn_is_fitted__(self):
        return True  # built from fitted parts

    def _check_params(self):
        model, dre, bound = self.model, self.dre, self.bound
        if not callable(getattr(model, "sample", None)):
            raise TypeError(f"model must have a sample(m, rng=...) method; got {type(model).__name__}")
        if not callable(getattr(dre, "log_ratio", None)):
            raise TypeError(f"dre must have a log_ratio(Y) method; got {type(dre).__name__}")
        for name, part in (("model", model), ("dre", dre)):
            if not is_fitted(part):
                raise NotFittedError(
                    f"the {name} {part!r} is not fitted yet: call {name}.fit(...) before building an "
                    "ApproximateDeletion from it"
                )
        known = getattr(dre, "ratio_bound_", None)
        if bound is None:
            if known is None:
                raise ValueError(
                    f"{type(dre).__name__} has no known bound on the ratio: pass bound=B, a number "
                    "with B >= sup rho_hat_E (the paper uses B = 10 for its GAN experiments)"
                )
            bound = known
        bound = check_positive(bound, "bound")
        if _below(bound, known):
            raise ValueError(
                f"bound B={bound:g} is smaller than the DRE's known bound {known:g} "
                "(N / (N - N') for classifier DREs); rejection sampling would be biased. "
                "Use bound=None or a larger B"
            )
        if self.max_proposals is not None:
            check_count(self.max_proposals, "max_proposals")
        if self.max_seconds is not None:
            check_positive(self.max_seconds, "max_seconds")
        self.bound_ = bound
        for name in ("acceptance_rate_", "n_proposals_", "bound_exceeded_", "max_log_ratio_"):
            self.__dict__.pop(name, None)  # they describe a call of sample() with the old parameters

    def __getattr__(self, name):
        # Called only for attributes not set yet: the ones that sample() sets get a clear message.
        if name in ("acceptance_rate_", "n_proposals_", "bound_exceeded_", "max_log_ratio_"):
            raise NotFittedError(f"{name} is set by sample(): call sample(m, rng=...) first")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def check_proposals(self, m, *, what=None):
        """Refuse ``m`` samples whose expected number of proposals is too many for the limit.

        Without ``max_proposals``, ``m * B`` proposals (the expected number for a normalised
        ratio) may be at most half of :data:`MAX_DEFAULT_PROPOSALS`: beyond, a call would often
        stop at the limit after all its work. With ``max_proposals``, it must be at least ``m``
        and at least half of ``m * B``. :meth:`sample` calls it; callers that draw many samples
        later (the §5.1 protocol) call it before their expensive work. ``what`` names the ``m``
        in the message.

        Examples
        --------
        >>> import numpy as np
        >>> from gendel.core.dre import ExactKDERatio
        >>> X = np.random.default_rng(0).normal(size=(100, 1))
        >>> exact = ExactKDERatio(bandwidth=0.2).fit(X, np.arange(50))
        >>> ApproximateDeletion(exact.pretrained_, exact).check_proposals(10**7)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: m=10000000 samples with B=2 need about m * B = 2e+07 proposals ...
        >>> ApproximateDeletion(exact.pretrained_, exact, max_proposals=5).check_proposals(10)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: max_proposals=5 is too small for m=10 samples ...
        """
        expected = m * self.bound_
        if self.max_proposals is None:
            if expected > MAX_DEFAULT_PROPOSALS / 2:
                raise ValueError(
                    f"{what or f'm={m}'} samples with B={self.bound_:g} need about m * B = {expected:.3g} "
                    f"proposals (the acceptance rate of a normalised ratio is 1/B), more than half of the default "
                    f"limit {MAX_DEFAULT_PROPOSALS:.0e}. "
                    + _too_many(self, m, "pass max_proposals=... to try anyway")
                )
        elif self.max_proposals < max(m, expected / 2):
            raise ValueError(
                f"max_proposals={self.max_proposals} is too small for {what or f'm={m}'} samples with "
                f"B={self.bound_:g}: Alg. 1 needs at least one proposal per sample and about m * B = {expected:.3g} "
                f"in all (the acceptance rate of a normalised ratio is 1/B). Pass max_proposals of at least "
                f"{math.ceil(2 * expected)}, or None for the default limit"
            )

    def _pilot(self, m):
        """Time a small batch of the model and the DRE (with its own random stream) and estimate
        the number of proposals and the seconds a call for ``m`` points needs."""
        rng = np.random.default_rng(2**31 - 1)
        t0 = time.perf_counter()
        Y = np.asarray(self.model.sample(PILOT_SIZE, rng=rng))
        if np.shape(Y)[:1] != (PILOT_SIZE,):
            raise ValueError(outputs_error(self.dre, Y, None, PILOT_SIZE))
        log_r = check_real(self.dre.log_ratio(Y), "the DRE's log_ratio(Y)")
        if np.shape(Y)[:1] != (PILOT_SIZE,) or np.shape(log_r) != (PILOT_SIZE,):
            raise ValueError(outputs_error(self.dre, Y, log_r, PILOT_SIZE))
        per_proposal = (time.perf_counter() - t0) / PILOT_SIZE
        accept = float(np.mean(np.minimum(np.exp(np.minimum(log_r - math.log(self.bound_), 0.0)), 1.0)))
        if accept == 0.0:
            raise RuntimeError(
                f"none of {PILOT_SIZE} trial proposals could be accepted: rho_hat_E(y) / B is 0 on all of them "
                f"(largest rho_hat_E {_ratio_text(np.max(log_r))}, B = {self.bound_:g}). B is far too large for "
                "this DRE, or the DRE is 0 where the model puts its mass; use B close to the largest ratio"
            )
        proposals = m / accept
        return proposals, proposals * per_proposal, per_proposal

    def steps(self, m, *, rng, first=None):
        """Run Alg. 1 for ``m`` points batch by batch: yields ``(Y, log_ratio, keep)`` for each batch of
        proposals (``keep`` marks the accepted ones) until ``m`` are accepted, then sets
        ``acceptance_rate_``, ``n_proposals_``, ``bound_exceeded_`` and ``max_log_ratio_``.

        Parameters
        ----------
        m : int
            Points to accept.
        rng : numpy.random.Generator or int
            The random stream of the proposals and the uniforms (None when ``first`` is given).
        first : dict, optional
            A first batch drawn ahead of the call: ``"Y"`` (:func:`first_batch_size` proposals),
            ``"log_ratio"`` (the DRE's log ratios on them), ``"u"`` (their uniforms) and
            ``"state"`` (the state of the random stream after drawing them, from which the
            later batches are drawn).

        Examples
        --------
        >>> import numpy as np
        >>> from gendel.core.dre import ExactKDERatio
        >>> X = np.random.default_rng(0).normal(size=(100, 1))
        >>> exact = ExactKDERatio(bandwidth=0.2).fit(X, X[:, 0] > 1.0)
        >>> sampler = ApproximateDeletion(exact.pretrained_, exact)
        >>> kept = [Y[keep] for Y, _, keep in sampler.steps(50, rng=0)]
        >>> bool((np.concatenate(kept)[:50] == sampler.sample(50, rng=0)).all())   # the same points
        True
        """
        m = check_count(m, "m", minimum=1)
        known = getattr(self.dre, "ratio_bound_", None)
        if _below(self.bound_, known):
            raise ValueError(
                f"the DRE's known bound is now {known:g} (was it refit?), above this sampler's B={self.bound_:g}; "
                "create a new ApproximateDeletion for the refitted DRE"
            )
        self.check_proposals(m)
        if first is None:
            rng = check_rng(rng)
        estimate = None
        if first is None and m * self.bound_ >= PILOT_FROM:
            estimate = self._pilot(m)
            if self.max_seconds is not None and estimate[1] > self.max_seconds:
                raise ValueError(
                    f"Alg. 1 for m={m} samples would take about {duration_text(estimate[1])} here: about "
                    f"{estimate[0]:.3g} proposals (the acceptance rate of a pilot batch is {m / estimate[0]:.3g} with "
                    f"B={self.bound_:g}) at {duration_text(estimate[2])} each, more than "
                    f"max_seconds={self.max_seconds:g} ({duration_text(self.max_seconds)}). "
                    + _too_many(self, m, "pass max_seconds=None (or a larger number) to run it anyway")
                )
        log_bound = math.log(self.bound_)
        limit = proposal_limit(m, self.bound_, self.max_proposals)
        proposed, exceeded, n_acc, largest = 0, 0, 0, -math.inf
        rate = 1.0 / self.bound_  # the rate when rho_hat_E is normalised under p_hat
        bar = None
        if estimate is not None and estimate[1] > PROGRESS_FROM_SECONDS:
            from gendel._progress import progress_bar

            bar = progress_bar(total=m, desc="Alg. 1 (rejection sampling)", unit="sample", leave=False)
        try:
            while n_acc < m:
                if proposed >= limit:
                    self._stopped(m, n_acc, proposed, largest)
                batch = _batch_size(limit, proposed, m, n_acc, rate)
                if first is not None and proposed == 0:  # the first batch: drawn and evaluated already
                    if batch != len(first["u"]):
                        raise RuntimeError(f"the first batch has {len(first['u'])} proposals, not {batch}")
                    Y, log_r, u = first["Y"], np.asarray(first["log_ratio"]), first["u"]
                    rng = np.random.default_rng()
                    rng.bit_generator.state = first["state"]
                else:
                    Y = np.asarray(self.model.sample(batch, rng=rng))
                    if np.shape(Y)[:1] != (batch,):
                        raise ValueError(outputs_error(self.dre, Y, None, batch))
                    log_r = check_real(self.dre.log_ratio(Y), "the DRE's log_ratio(Y)")
                    u = rng.random(batch)
                if np.shape(Y)[:1] != (batch,) or np.shape(log_r) != (batch,):
                    raise ValueError(outputs_error(self.dre, Y, log_r, batch))
                if np.isnan(log_r).any():
                    raise ValueError("the DRE returned NaN log ratios; it cannot be used for rejection sampling")
                keep = log_r > log_bound + np.log(u)  # rho_hat_E(y) > B u, in log space
                # rho_hat_E(y) > B beyond rounding: log(B) can sit one ulp below log N - log(N - N'),
                # the value a classifier DRE takes where f = 0.
                exceeded += int(np.sum(log_r > log_bound + 1e-12))
                largest = max(largest, float(np.max(log_r)))
                proposed += batch
                accepted = int(keep.sum())
                n_acc += accepted
                rate = max(n_acc / proposed, 1e-6)
                if bar is not None:
                    bar.update(min(accepted, m - bar.n))
                yield Y, log_r, keep
        finally:
            if bar is not None:
                bar.close()
        self.n_proposals_ = proposed
        self.acceptance_rate_ = n_acc / proposed
        self.bound_exceeded_ = exceeded / proposed
        self.max_log_ratio_ = largest
        if exceeded:
            warnings.warn(
                f"rho_hat_E exceeded B={self.bound_:g} on {self.bound_exceeded_:.2%} of the proposals (B is too "
                f"small: the largest ratio was {_ratio_text(largest)}): the samples follow min(rho_hat_E, B) * p_hat, "
                "not rho_hat_E * p_hat; use a larger bound",
                RuntimeWarning,
                stacklevel=3,
            )

    def _stopped(self, m, n_acc, proposed, largest):
        """The error of a call that reached its proposal limit: B too large, or the limit too small."""
        rate = n_acc / proposed
        where = (f"rejection sampling stopped after {proposed} proposals with only {n_acc} of {m} points accepted "
                 f"(acceptance rate {rate:.2e})")
        if rate < 0.1 / self.bound_:
            raise RuntimeError(
                f"{where}, far below 1/B = {1 / self.bound_:.2e}, the rate of a normalised ratio. The DRE is nearly 0 "
                f"where the model puts its mass, or B is far too large (the largest ratio seen was "
                f"{_ratio_text(largest)}, B = {self.bound_:g}); check the DRE and the bound"
            )
        raise RuntimeError(
            f"{where}, about 1/B = {1 / self.bound_:.2e} as expected: max_proposals is too small for m. These "
            f"points need about {math.ceil(m / max(rate, 1e-12)):.3g} proposals; pass a larger max_proposals "
            "(or None for the default limit)"
        )

    def sample(self, m, *, rng):
        """Draw ``m`` points from the approximated model by rejection sampling (Alg. 1).

        Proposals are drawn in vectorised batches sized by the running acceptance rate
        (:meth:`steps`). Raises ``RuntimeError`` after the proposal limit.
        """
        accepted = [Y[keep] for Y, _, keep in self.steps(m, rng=rng)]
        return np.concatenate(accepted)[:m]
