"""The sampling engine of the §5.1 protocol on the synthetic 2-D data sets: the settings of a run as
one object (:class:`Protocol`), its data, X' and models (:func:`setup`), and the sample sets,
Alg. 1's proposals and the log ratios that every DRE of a run shares.

How we read the protocol
------------------------
For one seed we draw X (N points) once, choose X' once, and fit the pre-trained KDE p_hat, the
re-trained KDE p_hat' and the DRE rho_hat_E once. The R repeats then redraw the four sample
sets of size m:

- Y_hat ~ p_hat           (the reference sample of the ASC statistic),
- Y_D   ~ rho_hat_E * p_hat (the approximated model, by Alg. 1),
- Y_H0  ~ p_hat           (q under H0),
- Y_H1  ~ p_hat'          (q under H1).

The hypotheses H0: q = p_hat and H1: q = p_hat' are about one fixed pair of models, so the
distributions of LR and ASC that the KS statistics compare are distributions over fresh test
samples, not over fresh training sets. Each sample set has its own random stream derived from
the seed, so all DREs of a sweep see the same X, X', Y_hat, Y_H0 and Y_H1 (common random
numbers): differences between DREs are not sampling noise between runs.

The three questions of §5.1 compare (for LR; for ASC the same with Y_hat added):

- Q1 (DRE approximation): LR(Y_H0, rho_hat)  vs LR(Y_H0, rho_hat_E)
- Q2 (fast deletion):     LR(Y_H1, rho_hat)  vs LR(Y_D,  rho_hat)
- Q3 (deletion test):     LR(Y_H0, rho_hat_E) vs LR(Y_H1, rho_hat_E)

:class:`Protocol` holds the settings of one run (data set, lambda, N, m, R, sigma_A, seed and
the MoG-8 variance), checked once when it is made. It is the one argument through which every
run takes its settings (:func:`setup`, :func:`gendel.synthetic.experiments.synthetic_statistics`,
:func:`gendel.synthetic.experiments.sweep`), the key of the in-memory cache of the
DRE-independent part of a run, the disk-cache key (with the DRE's parameters), the ``settings``
of a result and the key of the live panel's caches.

The statistics a run computes are those of the registry
:data:`gendel.deletion_test.stats.STATISTICS` that are computed from log ratios
(:data:`RATIO_STATISTICS`: LR and the three ASC statistics), by their registry keys.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

import numpy as np

from gendel.synthetic import data as _data
from gendel._kernels import spatial_order
from gendel._validation import check_bandwidth, check_count, check_lambda, check_positive, check_real, outputs_error
from gendel.core.deletion import ApproximateDeletion, first_batch_size
from gendel.core.dre import ExactKDERatio
from gendel.deletion_test.stats import STATISTICS

#: Sample sets compared by each question, as (sample, ratio) keys of ``SyntheticStatistics.lr``.
QUESTIONS = {
    "Q1": (("H0", "exact"), ("H0", "dre")),
    "Q2": (("H1", "exact"), ("D", "exact")),
    "Q3": (("H0", "dre"), ("H1", "dre")),
}
QUESTION_TITLES = {"Q1": "Q1: DRE approximation", "Q2": "Q2: fast deletion", "Q3": "Q3: deletion test"}
#: The statistics of a run: the keys of the registry :data:`gendel.deletion_test.stats.STATISTICS`
#: computed from log ratios ("lr", "asc-log", "asc-tlogt", "asc-hellinger"); names, labels and
#: axis titles are the registry's.
RATIO_STATISTICS = tuple(key for key, statistic in STATISTICS.items() if statistic.needs_ratio)
#: The (sample, ratio) pairs whose statistics a run computes.
KEYS = (("H0", "exact"), ("H0", "dre"), ("H1", "exact"), ("H1", "dre"), ("D", "exact"))

#: A run whose kernel sums need more terms than this (:func:`kernel_terms`) is refused before it starts: roughly an
#: hour of computing, about 600 times the paper's settings. Raise it to run a larger protocol anyway.
MAX_KERNEL_TERMS = 1e11

_STREAMS = ("data", "mask", "Yhat", "H0", "H1", "D")
_FIELDS = ("dataset", "lam", "N", "m", "R", "sigma_a", "seed", "variance")


@dataclass(frozen=True)
class Protocol:
    """The settings of one run of the §5.1 protocol, checked once; frozen and hashable.

    Parameters
    ----------
    dataset : {"mog8", "ckb8"}
        The synthetic data set ("MoG-8" and "CKB-8" are accepted and normalised).
    lam : float in (0, 1]
        Weight lambda of the re-weighted components in p_*'.
    N, m, R : int
        Training set size, size of each sample set, number of repeats (paper: 400, 400, 250).
    sigma_a : float
        Bandwidth sigma_A of the KDE learner (paper: 0.1).
    seed : int
        Seed of all randomness; the same seed gives the same numbers.
    variance : float, optional
        MoG-8 only: the component variance v of N(mu_i, v I) (None: ``gendel.synthetic.data.mog8``'s
        0.1, the literal reading of Appendix D.1).

    Examples
    --------
    >>> p = Protocol("MoG-8", lam=0.8)
    >>> p.dataset, p.N, p.m, p.R, p.sigma_a
    ('mog8', 400, 400, 250, 0.1)
    >>> p.replace(R=100) == Protocol("mog8", lam=0.8, R=100)
    True
    >>> p.settings()
    {'dataset': 'mog8', 'lam': 0.8, 'N': 400, 'm': 400, 'R': 250, 'sigma_a': 0.1, 'seed': 0}
    """

    dataset: str = "mog8"
    lam: float = 0.8
    N: int = 400
    m: int = 400
    R: int = 250
    sigma_a: float = 0.1
    seed: int = 0
    variance: float | None = None

    def __post_init__(self):
        dataset = _data.check_dataset(self.dataset)
        checked = dict(
            dataset=dataset,
            lam=check_lambda(self.lam),
            N=check_count(self.N, "N", minimum=2),
            m=check_count(self.m, "m"),
            R=check_count(self.R, "R", minimum=2),
            sigma_a=check_bandwidth(self.sigma_a, "sigma_a"),
            seed=check_count(self.seed, "seed", minimum=0),
            variance=_check_variance(dataset, self.variance),
        )
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    def replace(self, **changes):
        """A copy with some settings changed (checked again).

        Examples
        --------
        >>> [p.lam for p in (Protocol("ckb8", lam=0.5).replace(lam=lam) for lam in (0.6, 0.7))]
        [0.6, 0.7]
        """
        return dataclasses.replace(self, **changes)

    def settings(self):
        """The settings as a plain dict (``variance`` only when it is set)."""
        out = {name: getattr(self, name) for name in _FIELDS}
        if out["variance"] is None:
            del out["variance"]
        return out


def check_protocol(protocol):
    """``protocol`` if it is a :class:`Protocol`, else a TypeError that says how to make one.

    Examples
    --------
    >>> check_protocol("mog8")
    Traceback (most recent call last):
    TypeError: expected a Protocol, e.g. Protocol("mog8", lam=0.6, N=400); got 'mog8'
    """
    if not isinstance(protocol, Protocol):
        raise TypeError(f'expected a Protocol, e.g. Protocol("mog8", lam=0.6, N=400); got {protocol!r}')
    return protocol


def kernel_terms(protocol):
    """An upper bound on the Gaussian kernel terms of one run: N (N + 4 m R).

    The KDEs and kernel DREs sum over the N training points for each of the N training points
    (fitting a classifier DRE) and of the 4 m R points of Y_hat, Y_H0, Y_H1 and Alg. 1's proposals
    (about m R for a normalised ratio). Kernel sums leave out terms that cannot count, so a run
    takes less; the paper's settings (1.6e8 terms) take seconds.

    Examples
    --------
    >>> f"{kernel_terms(Protocol()):.3g}", f"{kernel_terms(Protocol(N=10**8)):.3g}"
    ('1.6e+08', '1e+16')
    """
    p = check_protocol(protocol)
    return float(p.N) * (p.N + 4.0 * p.m * p.R)


def cost_refusal(protocol):
    """Why a run of ``protocol`` is refused before it starts, or None: more than :data:`MAX_KERNEL_TERMS`
    kernel terms (:func:`kernel_terms`). :func:`gendel.synthetic.experiments.synthetic_statistics` raises it.

    Examples
    --------
    >>> cost_refusal(Protocol()) is None                # the paper's settings
    True
    >>> print(cost_refusal(Protocol(N=10**8)))  # doctest: +ELLIPSIS
    Protocol(N=100000000, m=400, R=250) needs about N (N + 4 m R) = 1e+16 Gaussian kernel terms, ...
    """
    p = check_protocol(protocol)
    terms = kernel_terms(p)
    if terms <= MAX_KERNEL_TERMS:
        return None
    paper = kernel_terms(Protocol())
    return (f"Protocol(N={p.N}, m={p.m}, R={p.R}) needs about N (N + 4 m R) = {terms:.3g} Gaussian kernel terms, "
            f"{terms / paper:.3g} times the paper's settings (N = m = 400, R = 250: {paper:.3g} terms, seconds), more "
            f"than the limit {MAX_KERNEL_TERMS:.0e} (roughly an hour of computing). Use a smaller N, m or R; to run it "
            "anyway, raise gendel.synthetic.sampling.MAX_KERNEL_TERMS")


def _check_variance(dataset, variance):
    """The MoG-8 component variance option: None (the data set's default) or a positive number."""
    if variance is None:
        return None
    if dataset != "mog8":
        raise ValueError(f"variance is the MoG-8 component variance; {dataset!r} has no such parameter")
    return check_positive(variance, "variance")


#: The paper's settings of §5.1 and Appendix D, with the book's seed (data set and lambda vary).
PAPER = Protocol()


def streams(seed):
    """Independent random streams for each part of the protocol, derived from one seed.

    Examples
    --------
    >>> s = streams(0)
    >>> sorted(s)
    ['D', 'H0', 'H1', 'Yhat', 'data', 'mask']
    >>> float(s["H0"].random()) == float(streams(0)["H0"].random())  # the same seed, the same stream
    True
    """
    seeds = np.random.SeedSequence(seed).spawn(len(_STREAMS))
    return dict(zip(_STREAMS, (np.random.default_rng(s) for s in seeds)))


def setup(protocol):
    """The fixed part of one seed of the protocol: X, the deletion mask X' and the exact ratio.

    Returns ``(X, deleted, exact)`` where ``exact`` is the fitted :class:`~gendel.core.dre.ExactKDERatio`
    (with ``.pretrained_`` and ``.retrained_`` KDEs): X is drawn by
    :func:`gendel.synthetic.data.sample`, X' by :func:`gendel.synthetic.data.deletion_mask` with
    the protocol's lambda. Every run of the protocol starts here.

    Examples
    --------
    >>> X, deleted, exact = setup(Protocol("mog8", lam=0.5, N=40))
    >>> X.shape, int(deleted.sum()) > 0, exact.ratio_bound_ >= 1
    ((40, 2), True, True)
    """
    p = check_protocol(protocol)
    s = streams(p.seed)
    options = {} if p.variance is None else {"variance": p.variance}
    X, component = _data.sample(p.dataset, p.N, rng=s["data"], **options)
    deleted = _data.deletion_mask(p.dataset, component, p.lam, rng=s["mask"])
    if not deleted.any():
        raise ValueError(
            f"the deletion set is empty for lam={p.lam}, N={p.N}, seed={p.seed}: nothing to delete. "
            "Use a smaller lam or a larger N"
        )
    return X, deleted, ExactKDERatio(bandwidth=p.sigma_a).fit(X, deleted)


@functools.lru_cache(maxsize=16)
def shared(protocol):
    """The DRE-independent part of one run: data, models, Y_hat, Y_H0, Y_H1 and rho_hat on them.

    Cached in memory by protocol (the arrays are read-only). Returns ``(X, deleted, exact,
    samples, log_exact, state_D)``: ``samples`` maps "Yhat", "H0", "H1" to (m R, 2) arrays,
    ``log_exact`` the same keys to (R, m) arrays of log rho_hat, and ``state_D`` is the state of
    the random stream that draws Y_D.

    Examples
    --------
    >>> X, deleted, exact, samples, log_exact, _ = shared(Protocol("mog8", lam=0.5, N=40, m=10, R=3))
    >>> samples["H0"].shape, log_exact["H1"].shape
    ((30, 2), (3, 10))
    >>> shared(Protocol("MoG-8", lam=0.5, N=40, m=10, R=3))[0] is X  # cached by protocol
    True
    """
    p = protocol
    s = streams(p.seed)
    X, deleted, exact = setup(p)
    pretrained, retrained = exact.pretrained_, exact.retrained_
    n = p.m * p.R
    samples = {
        "Yhat": pretrained.sample(n, rng=s["Yhat"]),
        "H0": pretrained.sample(n, rng=s["H0"]),
        "H1": retrained.sample(n, rng=s["H1"]),
    }
    log_exact = {key: exact.log_ratio(Y).reshape(p.R, p.m) for key, Y in samples.items()}
    for arr in [X, deleted] + list(samples.values()) + list(log_exact.values()):
        arr.flags.writeable = False
    return X, deleted, exact, samples, log_exact, s["D"].bit_generator.state


@functools.lru_cache(maxsize=16)
def proposals(protocol, bound):
    """The first batch of Alg. 1's proposals for Y_D with bound B, shared by every DRE with that B.

    :meth:`~gendel.core.deletion.ApproximateDeletion.sample` draws Y_D (m R points, stream "D") in batches; the size of
    the first batch depends only on m R and B, so its proposals y ~ p_hat, its uniforms u and
    rho_hat(y) are the same for every DRE whose bound is B (all classifier DREs: N / (N - N')).
    Cached in memory by (protocol, B); the arrays are read-only.

    Returns a dict: "Y" (batch, d) proposals, "u" (batch,) uniforms, "log_exact" (batch,)
    log rho_hat(Y), "state" the state of stream "D" after the batch, "points": Y_hat, Y_H0,
    Y_H1 and Y, the points on which a DRE is evaluated at once, in the order "order" (row i
    of "points" is row ``order[i]`` of the four stacked).

    Examples
    --------
    >>> p = Protocol("mog8", lam=0.5, N=40, m=10, R=3)
    >>> first = proposals(p, 1.25)
    >>> first["Y"].shape == (len(first["u"]), 2), first["points"].shape[0] == 3 * 30 + len(first["u"])
    (True, True)
    """
    p = protocol
    _, _, exact, samples, _, d_state = shared(p)
    wanted = p.m * p.R
    batch = first_batch_size(wanted, bound)
    rng = np.random.default_rng()
    rng.bit_generator.state = d_state
    Y = np.asarray(exact.pretrained_.sample(batch, rng=rng))
    u = rng.random(batch)
    points = np.concatenate([samples["Yhat"], samples["H0"], samples["H1"], Y])
    # Stored along a space-filling curve: kernel sums order their queries so, and find them in order.
    order = spatial_order(points)
    out = {"Y": Y, "u": u, "log_exact": exact.log_ratio(Y), "state": rng.bit_generator.state,
           "points": points[order], "order": order}
    for key in ("Y", "u", "log_exact", "points", "order"):
        out[key].flags.writeable = False
    return out


def log_ratios(protocol, dre):
    """The log ratios behind one run of the protocol with the fitted ``dre``, reusing the rest.

    Everything that does not depend on the DRE (the samples, rho_hat on them, the first batch
    of Alg. 1's proposals and rho_hat there) comes from :func:`shared` and :func:`proposals`;
    the DRE is evaluated once, on all points together. Y_D is drawn as
    ``ApproximateDeletion(p_hat, dre).sample(m R, rng=stream "D")`` draws it (same proposals,
    same decisions, same points), and rho_hat on Y_D is taken from the proposals.

    Returns ``(log, yhat, acceptance_rate)``: ``log[sample, ratio]`` for the (sample, ratio)
    pairs of :data:`KEYS` and ``yhat[ratio]`` ("exact", "dre") are (R, m) arrays of log ratios;
    ``acceptance_rate`` is Alg. 1's accepted / proposed.

    Examples
    --------
    >>> from gendel.core.dre import KernelClassifierDRE
    >>> p = Protocol("mog8", lam=0.5, N=40, m=10, R=3)
    >>> X, deleted, _, _, _, _ = shared(p)
    >>> log, yhat, rate = log_ratios(p, KernelClassifierDRE(bandwidth=0.1).fit(X, deleted))
    >>> log["D", "exact"].shape, yhat["dre"].shape, 0 < rate <= 1
    ((3, 10), (3, 10), True)
    """
    p = protocol
    _, _, exact, _, log_exact, _ = shared(p)
    sampler = ApproximateDeletion(exact.pretrained_, dre)
    n = wanted = p.m * p.R
    sampler.check_proposals(wanted)
    first = proposals(p, sampler.bound_)
    values = np.empty(len(first["order"]))
    values[first["order"]] = check_real(dre.log_ratio(first["points"]), "the DRE's log_ratio(Y)")
    # One number (or None) for all points would fill every entry alike: then ask the DRE about two points.
    if (np.isnan(values).all() or (values == values[0]).all()) and np.shape(dre.log_ratio(first["points"][:2])) != (2,):
        raise ValueError(outputs_error(dre, first["points"][:2], dre.log_ratio(first["points"][:2]), 2))
    log = {(key, "exact"): log_exact[key] for key in ("H0", "H1")}
    log["H0", "dre"], log["H1", "dre"] = values[n:2 * n].reshape(p.R, p.m), values[2 * n:3 * n].reshape(p.R, p.m)
    yhat = {"exact": log_exact["Yhat"], "dre": values[:n].reshape(p.R, p.m)}
    log["D", "exact"], rate = _deletion(sampler, wanted, first, values[3 * n:], exact)
    log["D", "exact"] = log["D", "exact"].reshape(p.R, p.m)
    return log, yhat, rate


def _deletion(sampler, wanted, first, log_r_first, exact):
    """rho_hat on Y_D and the acceptance rate: Alg. 1 (:meth:`~gendel.core.deletion.ApproximateDeletion.steps`)
    with the first batch drawn ahead, and the exact ratio read on each accepted point."""
    kept = []
    batch = {"Y": first["Y"], "log_ratio": log_r_first, "u": first["u"], "state": first["state"]}
    for Y, _, keep in sampler.steps(wanted, rng=None, first=batch):
        if Y is first["Y"]:
            kept.append(first["log_exact"][keep])
        elif keep.any():
            kept.append(exact.log_ratio(Y[keep]))
    return np.concatenate(kept)[:wanted], sampler.acceptance_rate_


__all__ = ["KEYS", "MAX_KERNEL_TERMS", "PAPER", "Protocol", "QUESTIONS", "QUESTION_TITLES", "RATIO_STATISTICS",
           "check_protocol", "cost_refusal", "kernel_terms", "log_ratios", "proposals", "setup", "shared", "streams"]
