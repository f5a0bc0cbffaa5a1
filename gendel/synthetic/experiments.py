"""Runs of the §5.1 protocol: per-repeat statistics, sweeps over lambda and DREs, the chapter's grids.

The protocol itself (how X, X' and the sample sets are drawn, and what Q1-Q3 compare) is
described in :mod:`gendel.synthetic.protocol`; its settings are one :class:`~gendel.synthetic.protocol.Protocol`.
"""

from __future__ import annotations

import copy
import warnings
from dataclasses import dataclass, field

import numpy as np

from gendel._progress import progress_bar
from gendel._validation import check_count
from gendel.synthetic import data as _data
from gendel.cache import CacheWarning, atomic_write, cache_path, estimator_config, load_npz, usable_cache_dir
from gendel.cache import cache_dir  # noqa: F401  (re-exported)
from gendel.core.deletion import ApproximateDeletion
from gendel.core.dre import DensityRatioEstimator, KernelClassifierDRE, KNNClassifierDRE
from gendel.synthetic.protocol import KEYS, PAPER, QUESTION_TITLES, QUESTIONS, STATISTICS, Protocol, shared  # noqa: F401
from gendel.synthetic.protocol import log_ratios as _log_ratios
from gendel.synthetic.protocol import setup as _protocol_setup
from gendel.deletion_test.stats import PHI_NAMES, asc, ks_statistic, likelihood_ratio

@dataclass
class SyntheticStatistics:
    """Per-repeat statistics of one run of the §5.1 protocol.

    Attributes
    ----------
    settings : dict
        dataset, lam, N, m, R, sigma_a, seed (and variance when set) and the DRE's repr.
    values : dict
        ``values[stat][(sample, ratio)]`` is an array of R statistics, where ``stat`` is
        ``"LR"`` or a phi name (ASC), ``sample`` is ``"H0"``, ``"H1"`` or ``"D"`` and ``ratio``
        is ``"exact"`` (rho_hat) or ``"dre"`` (rho_hat_E). For example
        ``values["LR"]["H0", "dre"]`` holds LR(Y_H0, rho_hat_E) and ``values["tlogt"]["D", "exact"]``
        holds ASC_{t log t}(Y_hat, Y_D, rho_hat).
    ks : dict
        ``ks[question, stat]``: the KS statistic between the two distributions compared by
        ``question`` ("Q1", "Q2", "Q3") for statistic ``stat``.
    n_deleted : int
        N', the size of the deletion set.
    acceptance_rate : float
        The acceptance rate of Alg. 1 when drawing Y_D.
    dre : DensityRatioEstimator or None
        The fitted DRE (None when the result was loaded from the cache).
    protocol : Protocol or None
        The protocol of the run.

    Examples
    --------
    >>> from gendel.core.dre import KNNClassifierDRE
    >>> res = synthetic_statistics("ckb8", 0.5, KNNClassifierDRE(k=5), N=60, m=20, R=4)
    >>> res.lr["H1", "dre"].shape, res.settings["dre"]
    ((4,), 'KNNClassifierDRE(k=5)')
    """

    settings: dict
    values: dict
    ks: dict
    n_deleted: int
    acceptance_rate: float
    dre: object = field(default=None, repr=False)
    protocol: Protocol | None = field(default=None, repr=False)

    @property
    def lr(self):
        """Shortcut for ``values["LR"]``."""
        return self.values["LR"]

    def asc(self, phi):
        """Shortcut for ``values[phi]``: the ASC statistics for one phi."""
        return self.values[phi]


def _resolve(dataset, lam, dre, settings):
    """(protocol, dre) from either ``(dataset, lam, dre, **settings)`` or ``(protocol, dre)``."""
    if isinstance(dataset, Protocol):
        if lam is not None and dre is not None:
            raise TypeError("with a Protocol, pass the DRE second: synthetic_statistics(protocol, dre)")
        return Protocol.of(dataset, **settings), (lam if dre is None else dre)
    return Protocol.of(dataset, lam, **settings), dre


def _check_dre(dre):
    if not isinstance(dre, DensityRatioEstimator) and not (hasattr(dre, "fit") and hasattr(dre, "log_ratio")):
        raise TypeError(f"dre must be a density ratio estimator with fit(X, deleted) and log_ratio(Y); got {dre!r}")
    return dre


def synthetic_statistics(dataset, lam=None, dre=None, *, N=None, m=None, R=None, sigma_a=None, seed=None, variance=None):
    """Run the §5.1 protocol once and return the per-repeat LR/ASC statistics and KS values.

    Call it as ``synthetic_statistics(dataset, lam, dre, N=..., ...)`` or as
    ``synthetic_statistics(protocol, dre)`` with a :class:`~gendel.synthetic.protocol.Protocol`.

    Parameters
    ----------
    dataset : {"mog8", "ckb8"} or Protocol
    lam : float in (0, 1]
        Weight of the re-weighted components in p_*'.
    dre : DensityRatioEstimator
        An (unfitted) DRE; a copy is fitted on X and X'.
    N, m, R : int
        Training set size, size of each sample set, number of repeats (None: the paper's 400,
        400, 250).
    sigma_a : float
        Bandwidth sigma_A of the KDE learner (None: the paper's 0.1).
    seed : int
        Seed of all randomness (None: 0); the same seed gives the same numbers.
    variance : float, optional
        MoG-8 only: the component variance v of N(mu_i, v I) (default: ``gendel.synthetic.data.mog8``'s
        0.1, the literal reading of Appendix D.1; 0.01 is the reading "0.1 is the std").

    Returns
    -------
    SyntheticStatistics

    Examples
    --------
    >>> from gendel.core.dre import KernelClassifierDRE
    >>> res = synthetic_statistics("mog8", 0.5, KernelClassifierDRE(bandwidth=0.1), N=60, m=20, R=4)
    >>> res.values["LR"]["H0", "dre"].shape, 0 <= res.ks["Q1", "LR"] <= 1
    ((4,), True)
    """
    protocol, dre = _resolve(dataset, lam, dre,
                             dict(N=N, m=m, R=R, sigma_a=sigma_a, seed=seed, variance=variance))
    return _run(protocol, _check_dre(dre))


def _run(p, dre):
    # The cheap part first (data, X', the DRE), so that a run the sampler cannot finish is
    # refused before the m R samples of Y_hat, Y_H0 and Y_H1 are drawn.
    X, deleted, exact = _protocol_setup(p)
    dre = copy.deepcopy(dre).fit(X, deleted)
    ApproximateDeletion(exact.pretrained_, dre).check_proposals(p.m * p.R, what=f"m * R = {p.m} * {p.R} = {p.m * p.R}")
    # Y_hat, Y_H0, Y_H1, the first proposals of Alg. 1 and rho_hat on them are shared by all DREs
    # of a protocol (cached); only the DRE's own log ratios and Alg. 1's decisions are new here.
    log, yhat, acceptance_rate = _log_ratios(p, dre)
    values = {"LR": {k: likelihood_ratio(log[k]) for k in KEYS}}
    for phi in PHI_NAMES:
        values[phi] = {k: asc(yhat[k[1]], log[k], phi) for k in KEYS}
    ks = {
        (q, stat): ks_statistic(values[stat][a], values[stat][b])
        for q, (a, b) in QUESTIONS.items()
        for stat in STATISTICS
    }
    settings = {**p.settings(), "dre": repr(dre)}
    return SyntheticStatistics(settings, values, ks, int(deleted.sum()), acceptance_rate, dre, p)


# --------------------------------------------------------------------------------------------
# Cached sweeps


def cached_synthetic_statistics(dataset, lam=None, dre=None, *, N=None, m=None, R=None, sigma_a=None, seed=None,
                                variance=None, cache=True):
    """:func:`synthetic_statistics` with an on-disk cache keyed by the full configuration.

    Takes the same arguments (keywords, or ``(protocol, dre)``). The key holds the protocol's
    settings, the DRE's class and ``get_params()`` (:func:`gendel.cache.estimator_config`) and a
    fingerprint of gendel's numerical code; a DRE without ``get_params`` is refused (TypeError)
    unless ``cache=False``. Results loaded from the cache have ``dre=None``; their ``settings``
    and ``protocol`` are those of a fresh result.

    The cache survives faults, each reported with a :class:`gendel.cache.CacheWarning`: processes
    computing one configuration at once each write a whole file; a damaged entry (unreadable, an
    array missing or not of length R) is discarded and recomputed; an unwritable cache folder is
    found before computing, and the result is returned without being stored.

    Examples
    --------
    >>> from gendel.core.dre import KNNClassifierDRE
    >>> first = cached_synthetic_statistics("mog8", 0.5, KNNClassifierDRE(k=5), N=60, m=20, R=4)
    >>> again = cached_synthetic_statistics("mog8", 0.5, KNNClassifierDRE(k=5), N=60, m=20, R=4)
    >>> again.dre is None, again.ks == first.ks  # the second one is read from the disk
    (True, True)
    """
    protocol, dre = _resolve(dataset, lam, dre, dict(N=N, m=m, R=R, sigma_a=sigma_a, seed=seed, variance=variance))
    dre = _check_dre(dre)
    if not cache:
        return _run(protocol, dre)
    path = cache_path("synthetic_statistics", protocol.settings() | {"dre": estimator_config(dre)})
    names = {(stat, k): f"{stat}|{k[0]}|{k[1]}" for stat in STATISTICS for k in KEYS}
    stored = load_npz(path, dict.fromkeys(names.values(), (protocol.R,)) | {"n_deleted": (), "acceptance_rate": ()})
    if stored is not None:
        values = {stat: {k: stored[names[stat, k]] for k in KEYS} for stat in STATISTICS}
        ks = {(q, stat): ks_statistic(values[stat][a], values[stat][b])
              for q, (a, b) in QUESTIONS.items() for stat in STATISTICS}
        settings = {**protocol.settings(), "dre": repr(dre)}
        return SyntheticStatistics(settings, values, ks, int(stored["n_deleted"]), float(stored["acceptance_rate"]),
                                   None, protocol)
    writable = usable_cache_dir(path.parent) is not None  # before the work, so a bad folder costs no result
    result = _run(protocol, dre)
    if writable:
        arrays = {name: result.values[stat][k] for (stat, k), name in names.items()}
        try:
            atomic_write(path, lambda f: np.savez(f, n_deleted=result.n_deleted,
                                                  acceptance_rate=result.acceptance_rate, **arrays))
        except OSError as exc:  # e.g. the disk filled up while computing: keep the result
            warnings.warn(f"could not store the result in the cache ({exc}); returning it uncached", CacheWarning,
                          stacklevel=2)
    return result


@dataclass
class Sweep:
    """Results of the §5.1 protocol over a grid of lambdas and DREs.

    Attributes
    ----------
    lams : tuple of float
    labels : tuple of str
        One label per DRE (e.g. the sigma_C of a KBC).
    results : list of list of SyntheticStatistics
        ``results[i][j]`` for ``lams[i]`` and DRE ``j``.

    Examples
    --------
    >>> from gendel.synthetic.experiments import kbc_dres
    >>> s = sweep("mog8", [0.5], kbc_dres([0.1, 0.2]), labels=["0.1", "0.2"], N=40, m=10, R=3,
    ...           cache=False, progress=False)
    >>> s.lams, s.labels, s.ks("Q3", "LR").shape
    ((0.5,), ('0.1', '0.2'), (1, 2))
    """

    lams: tuple
    labels: tuple
    results: list

    def ks(self, question, stat="LR"):
        """KS statistics as an array of shape (len(lams), len(labels))."""
        return np.array([[r.ks[question, stat] for r in row] for row in self.results])


def sweep(dataset, lams, dres, *, labels=None, N=None, m=None, R=None, sigma_a=None, seed=None, variance=None,
          cache=True, progress=True):
    """Run :func:`synthetic_statistics` for every lambda and DRE, with a progress bar and a cache.

    Settings left at None take the paper's values (:data:`gendel.synthetic.protocol.PAPER`). Every
    setting is checked before the first cell runs. Each cell is cached on disk on its own, so an
    interrupted sweep resumes where it stopped. Set ``TQDM_DISABLE=1`` (or ``progress=False``)
    to hide the progress bar.

    Examples
    --------
    >>> from gendel.core.dre import KNNClassifierDRE
    >>> s = sweep("mog8", [0.5, 0.7], [KNNClassifierDRE(k=3)], N=40, m=10, R=3, cache=False, progress=False)
    >>> s.ks("Q1").shape
    (2, 1)
    """
    settings = dict(N=N, m=m, R=R, sigma_a=sigma_a, seed=seed, variance=variance)
    protocols = [Protocol.of(dataset, lam, **settings) for lam in lams]
    dres = [_check_dre(d) for d in dres]
    labels = tuple(labels) if labels is not None else tuple(repr(d) for d in dres)
    if len(labels) != len(dres):
        raise ValueError(f"got {len(labels)} labels for {len(dres)} DREs")
    cells = [(p, d) for p in protocols for d in dres]
    bar = progress_bar(cells, desc=f"{protocols[0].dataset if protocols else dataset} sweep", enabled=progress)
    flat = [
        cached_synthetic_statistics(p, d, cache=cache)
        for p, d in bar
    ]
    results = [flat[i * len(dres):(i + 1) * len(dres)] for i in range(len(protocols))]
    return Sweep(tuple(p.lam for p in protocols), labels, results)


def setup(dataset, lam=None, *, N=None, sigma_a=None, seed=None, variance=None):
    """The fixed part of one seed of the protocol: X, the deletion mask and the exact ratio.

    Returns ``(X, deleted, exact)`` where ``exact`` is the fitted :class:`~gendel.core.dre.ExactKDERatio`
    (with ``.pretrained_`` and ``.retrained_`` KDEs). Identical to what
    :func:`synthetic_statistics` uses for the same arguments; ``dataset`` may be a
    :class:`~gendel.synthetic.protocol.Protocol`.

    Examples
    --------
    >>> X, deleted, exact = setup("ckb8", 0.5, N=50)
    >>> X.shape
    (50, 2)
    """
    protocol = Protocol.of(dataset, lam, N=N, sigma_a=sigma_a, seed=seed, variance=variance)
    return _protocol_setup(protocol)


# ---- The chapter's grids (§5.1, Appendix D) and evaluation grids for maps -----------------------------


def grid(extent, resolution=150):
    """A regular grid over ``extent = (x0, x1, y0, y1)``.

    Returns ``xs``, ``ys`` and the (resolution**2, 2) array of grid points, row by row in y
    (point ``iy * resolution + ix`` is ``(xs[ix], ys[iy])``).

    Examples
    --------
    >>> xs, ys, points = grid((0, 1, 0, 2), resolution=3)
    >>> points[:4].tolist()
    [[0.0, 0.0], [0.5, 0.0], [1.0, 0.0], [0.0, 1.0]]
    """
    resolution = check_count(resolution, "resolution", minimum=2)
    x0, x1, y0, y1 = extent
    xs, ys = np.linspace(x0, x1, resolution), np.linspace(y0, y1, resolution)
    gx, gy = np.meshgrid(xs, ys)
    return xs, ys, np.column_stack([gx.ravel(), gy.ravel()])


def evaluate_on_grid(fn, extent, resolution=150):
    """Evaluate ``fn`` (points (n, 2) -> values (n,)) on a regular grid over ``extent``.

    Returns ``xs``, ``ys`` and the (resolution, resolution) array ``Z[iy, ix] = fn((xs[ix], ys[iy]))``.

    Examples
    --------
    >>> xs, ys, Z = evaluate_on_grid(lambda p: p[:, 0] + 10 * p[:, 1], (0, 1, 0, 1), resolution=2)
    >>> Z.tolist()
    [[0.0, 1.0], [10.0, 11.0]]
    """
    xs, ys, points = grid(extent, resolution)
    return xs, ys, np.asarray(fn(points)).reshape(len(ys), len(xs))


# --------------------------------------------------------------------------------------------
# The grids of the book's chapter on the synthetic data (§5.1 and Appendix D)

#: The paper's settings of §5.1 / Appendix D (and the seed of the book).
PAPER_SETTINGS = {k: v for k, v in PAPER.settings().items() if k in ("N", "m", "R", "sigma_a", "seed")}
#: lambda of the KBC sweeps and of the ratio maps (Appendix D).
LAMBDAS = (0.5, 0.6, 0.7, 0.8, 0.9)
#: KBC bandwidths sigma_C: symmetric around sigma_A = 0.1 in steps of 0.0125, with the paper's
#: 0.075 and 0.125.
SIGMA_C = (0.05, 0.0625, 0.075, 0.0875, 0.1, 0.1125, 0.125, 0.1375, 0.15)
#: k of the kNN DREs: the two of Fig. 3, one below and one at the top of the "moderate" range
#: 10-50 of Appendix D (the cost of a kNN cell grows about linearly with k).
KNN_K = (5, 10, 20, 50)
#: lambda of the kNN sweeps: the values of the Appendix D distribution panels.
KNN_LAMBDAS = (0.6, 0.7, 0.8, 0.9)
#: The (m, N, R) variations of panel (a) of the Appendix D KS figures (MoG-8, lambda = 0.8).
VARIATIONS = {"m = 200": {"m": 200}, "N = 200": {"N": 200}, "R = 100": {"R": 100}}


def kbc_dres(sigmas=SIGMA_C):
    """One KBC DRE per sigma_C.

    Examples
    --------
    >>> kbc_dres([0.075, 0.125])
    [KernelClassifierDRE(bandwidth=0.075), KernelClassifierDRE(bandwidth=0.125)]
    """
    return [KernelClassifierDRE(bandwidth=s) for s in sigmas]


def knn_dres(ks=KNN_K):
    """One kNN DRE per k.

    Examples
    --------
    >>> knn_dres([10, 20])
    [KNNClassifierDRE(k=10), KNNClassifierDRE(k=20)]
    """
    return [KNNClassifierDRE(k=k) for k in ks]


def chapter_sweeps(dataset, *, progress=True, **settings):
    """The KBC and kNN sweeps of the book's chapter for one data set (disk-cached per cell).

    ``settings`` override :data:`PAPER_SETTINGS` (N, m, R, sigma_a, seed).

    Returns
    -------
    dict
        ``{"kbc": Sweep over LAMBDAS x SIGMA_C, "knn": Sweep over KNN_LAMBDAS x KNN_K}``.

    Examples
    --------
    At the paper's settings this takes minutes (once; then it is read from the disk cache).
    With small settings:

    >>> sweeps = chapter_sweeps("ckb8", N=40, m=5, R=2, cache=False, progress=False)
    >>> sweeps["kbc"].ks("Q1").shape, sweeps["knn"].ks("Q1").shape
    ((5, 9), (4, 4))
    """
    dataset = _data.check_dataset(dataset)
    kw = {**PAPER_SETTINGS, **settings, "progress": progress}
    return {
        "kbc": sweep(dataset, LAMBDAS, kbc_dres(), labels=[f"{s:g}" for s in SIGMA_C], **kw),
        "knn": sweep(dataset, KNN_LAMBDAS, knn_dres(), labels=[str(k) for k in KNN_K], **kw),
    }


def variation_sweeps(dataset="mog8", lam=0.8, variations=None, *, progress=True):
    """KBC sweeps at one lambda with the (m, N, R) variations of Appendix D, panel (a).

    Returns a dict ``label -> Sweep``; the label ``"paper (m = N = 400, R = 250)"`` is the
    baseline, the others change one of m, N, R (``VARIATIONS`` by default).

    Examples
    --------
    >>> list(VARIATIONS)
    ['m = 200', 'N = 200', 'R = 100']
    >>> variation_sweeps("mog8", 0.8, {"R = 100": {"R": 100}})  # a 1-hour run at the paper's N and m  # doctest: +SKIP
    """
    variations = VARIATIONS if variations is None else variations
    base = PAPER_SETTINGS
    # every variation is checked before the first sweep runs
    for label, change in variations.items():
        unknown = set(change) - {"N", "m", "R"}
        if unknown:
            raise ValueError(f"a variation may change N, m or R only; {label!r} changes {sorted(unknown)}")
        Protocol.of(dataset, lam, **{**base, **change})
    out = {}
    for label, change in {f"paper (m = N = {base['N']}, R = {base['R']})": {}, **variations}.items():
        out[label] = sweep(dataset, [lam], kbc_dres(), labels=[f"{s:g}" for s in SIGMA_C],
                           progress=progress, **{**base, **change})
    return out


__all__ = ["KNN_K", "KNN_LAMBDAS", "LAMBDAS", "PAPER_SETTINGS", "SIGMA_C", "VARIATIONS", "chapter_sweeps",
           "evaluate_on_grid", "grid", "kbc_dres", "knn_dres", "variation_sweeps"]


__all__ = [
    "KEYS",
    "KNN_K",
    "KNN_LAMBDAS",
    "LAMBDAS",
    "PAPER",
    "PAPER_SETTINGS",
    "Protocol",
    "QUESTIONS",
    "QUESTION_TITLES",
    "SIGMA_C",
    "STATISTICS",
    "SyntheticStatistics",
    "Sweep",
    "cache_dir",
    "cached_synthetic_statistics",
    "chapter_sweeps",
    "evaluate_on_grid",
    "grid",
    "kbc_dres",
    "knn_dres",
    "setup",
    "sweep",
    "synthetic_statistics",
    "VARIATIONS",
    "variation_sweeps",
]
