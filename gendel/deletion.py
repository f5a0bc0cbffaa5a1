"""Fast deletion: the approximated model D(p_hat, X, X') = rho_hat_E * p_hat (§2.1, Alg. 1).

Instead of re-training, samples of the pre-trained model are filtered by rejection sampling:
a proposal y ~ p_hat is accepted when rho_hat_E(y) > B * u with u ~ Uniform[0, 1]. When
B >= sup rho_hat_E, accepted points are i.i.d. from the normalised rho_hat_E * p_hat, and the
acceptance rate is E_{p_hat}[rho_hat_E] / B (= (N - N') / N for the exact KDE ratio).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ._validation import Estimator, NotFittedError, check_count, check_positive, check_rng, is_fitted, plain
from .stats import _real


#: The largest default number of proposals of one :meth:`ApproximateDeletion.sample` call.
MAX_DEFAULT_PROPOSALS = 10_000_000


def _below(bound, known):
    """Whether B is below a DRE's known bound (None: no known bound), beyond rounding."""
    return known is not None and bound < known * (1 - 1e-12)


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
        array of m points (a :class:`gendel.models.KDE`, a wrapped GAN generator, ...).
    dre : object
        A fitted density ratio estimator with ``log_ratio(Y)``.
    bound : float, optional
        The constant B of Alg. 1. Defaults to ``dre.ratio_bound_``. A bound below the DRE's
        known bound is refused: samples would no longer follow rho_hat_E * p_hat.
    max_proposals : int, optional
        Give up (``RuntimeError``) after this many proposals in one call to :meth:`sample`.
        Defaults to ``max(100_000, 1000 * m * B)``, at most ``MAX_DEFAULT_PROPOSALS`` (10^7);
        without it, a call whose expected number of proposals m * B (acceptance rate
        E[rho_hat_E] / B = 1 / B for a normalised ratio) exceeds 10^7 is refused up front.

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

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.deletion import ApproximateDeletion
    >>> from gendel.dre import ExactKDERatio
    >>> X = np.random.default_rng(0).normal(size=(100, 1))
    >>> exact = ExactKDERatio(bandwidth=0.2).fit(X, X[:, 0] > 1.0)   # forget the right tail
    >>> sampler = ApproximateDeletion(exact.pretrained_, exact)
    >>> Y = sampler.sample(200, rng=np.random.default_rng(1))
    >>> Y.shape, bool(np.mean(Y > 1.5) < 0.05)
    ((200, 1), True)
    """

    def __init__(self, model, dre, bound=None, *, max_proposals=None):
        self.model = model
        self.dre = dre
        self.bound = plain(bound)
        self.max_proposals = plain(max_proposals)
        self._check_params()

    def set_params(self, **params):
        """Set parameters (``bound=...``, ``dre__bandwidth=...``) and check them again; returns self."""
        super().set_params(**params)
        self._check_params()
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
        self.bound_ = bound
        for name in ("acceptance_rate_", "n_proposals_", "bound_exceeded_"):
            self.__dict__.pop(name, None)  # they describe a call of sample() with the old parameters

    def __getattr__(self, name):
        # Called only for attributes not set yet: the ones that sample() sets get a clear message.
        if name in ("acceptance_rate_", "n_proposals_", "bound_exceeded_"):
            raise NotFittedError(f"{name} is set by sample(): call sample(m, rng=...) first")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def check_proposals(self, m, *, what=None):
        """Refuse ``m`` samples that would need more than :data:`MAX_DEFAULT_PROPOSALS` proposals.

        :meth:`sample` calls it; callers that draw many samples later (the §5.1 protocol) call it
        before their expensive work. ``what`` names the ``m`` in the message.

        Examples
        --------
        >>> import numpy as np
        >>> from gendel.dre import ExactKDERatio
        >>> from gendel.models import KDE
        >>> X = np.random.default_rng(0).normal(size=(100, 1))
        >>> exact = ExactKDERatio(bandwidth=0.2).fit(X, np.arange(50))
        >>> ApproximateDeletion(exact.pretrained_, exact).check_proposals(10**7)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: m=10000000 samples with B=2 need about m * B = 2e+07 proposals ...
        """
        if self.max_proposals is None and m * self.bound_ > MAX_DEFAULT_PROPOSALS:
            raise ValueError(
                f"{what or f'm={m}'} samples with B={self.bound_:g} need about m * B = {m * self.bound_:.3g} "
                f"proposals (the acceptance rate of a normalised ratio is 1/B), more than the default limit "
                f"{MAX_DEFAULT_PROPOSALS:.0e}. Use a tighter bound B or fewer samples, or pass max_proposals=... "
                "to try anyway"
            )

    def sample(self, m, *, rng):
        """Draw ``m`` points from the approximated model by rejection sampling (Alg. 1).

        Proposals are drawn in vectorised batches sized by the running acceptance rate.
        Raises ``RuntimeError`` after ``max_proposals`` proposals.
        """
        m = check_count(m, "m", minimum=1)
        rng = check_rng(rng)
        known = getattr(self.dre, "ratio_bound_", None)
        if _below(self.bound_, known):
            raise ValueError(
                f"the DRE's known bound is now {known:g} (was it refit?), above this sampler's B={self.bound_:g}; "
                "create a new ApproximateDeletion for the refitted DRE"
            )
        log_bound = math.log(self.bound_)
        self.check_proposals(m)
        limit = self.max_proposals or int(min(max(100_000, 1000 * m * self.bound_), MAX_DEFAULT_PROPOSALS))
        accepted, proposed, exceeded, n_acc = [], 0, 0, 0
        rate = 1.0 / self.bound_  # the rate when rho_hat_E is normalised under p_hat
        while n_acc < m:
            if proposed >= limit:
                raise RuntimeError(
                    f"rejection sampling stopped after {proposed} proposals with only {n_acc} of {m} "
                    f"points accepted (acceptance rate {n_acc / proposed:.2e}). The DRE is nearly 0 "
                    "where the model puts its mass, or B is far too large; check the DRE and the bound"
                )
            batch = int(min(limit - proposed, max(64, math.ceil(1.2 * (m - n_acc) / max(rate, 1e-3)))))
            Y = np.asarray(self.model.sample(batch, rng=rng))
            log_r = _real(self.dre.log_ratio(Y), "the DRE's log_ratio(Y)")
            if np.isnan(log_r).any():
                raise ValueError("the DRE returned NaN log ratios; it cannot be used for rejection sampling")
            u = rng.random(batch)
            keep = log_r > log_bound + np.log(u)  # rho_hat_E(y) > B u, in log space
            # rho_hat_E(y) > B beyond rounding: log(B) can sit one ulp below log N - log(N - N'),
            # the value a classifier DRE takes where f = 0.
            exceeded += int(np.sum(log_r > log_bound + 1e-12))
            accepted.append(Y[keep])
            proposed += batch
            n_acc += int(keep.sum())
            rate = max(n_acc / proposed, 1e-6)
        self.n_proposals_ = proposed
        self.acceptance_rate_ = n_acc / proposed
        self.bound_exceeded_ = exceeded / proposed
        if exceeded:
            warnings.warn(
                f"rho_hat_E exceeded B={self.bound_:g} on {self.bound_exceeded_:.2%} of the proposals: the samples "
                "follow min(rho_hat_E, B) * p_hat, not rho_hat_E * p_hat; use a larger bound",
                RuntimeWarning,
                stacklevel=2,
            )
        return np.concatenate(accepted)[:m]
