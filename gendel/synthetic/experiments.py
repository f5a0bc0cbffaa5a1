"""Runs of the §5.1 protocol: per-repeat statistics, sweeps over lambda and DREs, ratio maps, the chapter's grids.

Every run takes its settings as one :class:`~gendel.synthetic.sampling.Protocol`:

==================================  ===============================================================
:func:`synthetic_statistics`        one run: ``synthetic_statistics(Protocol("mog8", lam=0.6), dre)``
:func:`sweep`                       runs over DREs and lambdas, cached on disk cell by cell
:func:`ratio_maps`                  rho_hat and the rho_hat_E of some DREs on a grid, per lambda
==================================  ===============================================================

The protocol itself (how X, X' and the sample sets are drawn, and what Q1-Q3 compare) is
described in :mod:`gendel.synthetic.sampling`. From a page to the deletion set:
``sweep(protocol, dres, lams=...)`` calls :func:`synthetic_statistics` for each lambda, which
calls :func:`gendel.synthetic.sampling.setup`, which calls
:func:`gendel.synthetic.data.deletion_mask` with the protocol's lambda.
"""

from __future__ import annotations

import copy
import warnings
from dataclasses import dataclass, field

import numpy as np

from gendel._progress import progress_bar
from gendel._validation import check_count, outputs_error
from gendel.cache import (CacheWarning, cache_path, estimator_config, load_npz, result_fingerprint, save_npz,
                          usable_cache_dir)
from gendel.core.deletion import ApproximateDeletion
from gendel.core.dre import DRE_CHOICES, DensityRatioEstimator, dre_family, make_dre
from gendel.deletion_test.stats import STATISTICS, ks_statistic
from gendel.synthetic import data as _data
from gendel.synthetic.sampling import (KEYS, QUESTION_TITLES, QUESTIONS, RATIO_STATISTICS, Protocol, check_protocol,
                                       cost_refusal, log_ratios, setup)


@dataclass
class SyntheticStatistics:
    """Per-repeat statistics of one run of the §5.1 protocol.

    Attributes
    ----------
    settings : dict
        dataset, lam, N, m, R, sigma_a, seed (and variance when set) and the DRE's repr.
    values : dict
        ``values[stat][(sample, ratio)]`` is an array of R statistics, where ``stat`` is a key of
        the registry :data:`gendel.deletion_test.stats.STATISTICS` computed from log ratios
        (:data:`gendel.synthetic.sampling.RATIO_STATISTICS`: "lr", "asc-log", "asc-tlogt",
        "asc-hellinger"), ``sample`` is ``"H0"``, ``"H1"`` or ``"D"`` and ``ratio`` is
        ``"exact"`` (rho_hat) or ``"dre"`` (rho_hat_E). For example ``values["lr"]["H0", "dre"]``
        holds LR(Y_H0, rho_hat_E) and ``values["asc-tlogt"]["D", "exact"]`` holds
        ASC_{t log t}(Y_hat, Y_D, rho_hat).
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
    >>> res = synthetic_statistics(Protocol("ckb8", lam=0.5, N=60, m=20, R=4), KNNClassifierDRE(k=5))
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
        """Shortcut for ``values["lr"]``."""
        return self.values["lr"]


def _check_dre(dre):
    if not isinstance(dre, DensityRatioEstimator) and not (hasattr(dre, "fit") and hasattr(dre, "log_ratio")):
        raise TypeError(f"dre must be a density ratio estimator with fit(X, deleted) and log_ratio(Y); got {dre!r}")
    return dre


def _ks_of(values):
    """The KS statistic of every question and statistic from the per-repeat statistics."""
    return {(q, stat): ks_statistic(values[stat][a], values[stat][b])
            for q, (a, b) in QUESTIONS.items() for stat in RATIO_STATISTICS}


def synthetic_statistics(protocol, dre):
    """Run the §5.1 protocol once and return the per-repeat LR/ASC statistics and KS values.

    Parameters
    ----------
    protocol : Protocol
        The settings: data set, lambda, N, m, R, sigma_A, seed (and the MoG-8 variance), e.g.
        ``Protocol("mog8", lam=0.6)`` for the paper's N = m = 400, R = 250, sigma_A = 0.1.
    dre : DensityRatioEstimator
        An (unfitted) DRE; a copy is fitted on X and X'.

    Returns
    -------
    SyntheticStatistics

    Examples
    --------
    >>> from gendel.core.dre import KernelClassifierDRE
    >>> res = synthetic_statistics(Protocol("mog8", lam=0.5, N=60, m=20, R=4), KernelClassifierDRE(bandwidth=0.1))
    >>> res.values["lr"]["H0", "dre"].shape, 0 <= res.ks["Q1", "lr"] <= 1
    ((4,), True)
    """
    p, dre = check_protocol(protocol), _check_dre(dre)
    if cost_refusal(p) is not None:  # before any work: a run of hours or years is refused with its estimate
        raise ValueError(cost_refusal(p))
    # The cheap part first (data, X', the DRE), so that a run the sampler cannot finish is
    # refused before the m R samples of Y_hat, Y_H0 and Y_H1 are drawn.
    X, deleted, exact = setup(p)
    dre = copy.deepcopy(dre).fit(X, deleted)
    if np.shape(dre.log_ratio(X[:2])) != (2,):  # a look at two points: one value for all would pass unseen below
        raise ValueError(outputs_error(dre, X[:2], dre.log_ratio(X[:2]), 2))
    ApproximateDeletion(exact.pretrained_, dre).check_proposals(p.m * p.R, what=f"m * R = {p.m} * {p.R} = {p.m * p.R}")
    # Y_hat, Y_H0, Y_H1, the first proposals of Alg. 1 and rho_hat on them are shared by all DREs
    # of a protocol (cached); only the DRE's own log ratios and Alg. 1's decisions are new here.
    log, yhat, acceptance_rate = log_ratios(p, dre)
    values = {stat: {k: STATISTICS[stat].of_log_ratios(yhat[k[1]], log[k]) for k in KEYS} for stat in RATIO_STATISTICS}
    settings = {**p.settings(), "dre": repr(dre)}
    return SyntheticStatistics(settings, values, _ks_of(values), int(deleted.sum()), acceptance_rate, dre, p)


# --------------------------------------------------------------------------------------------
# Sweeps, cached on disk cell by cell

_ARRAY_NAMES = {(stat, k): f"{stat}|{k[0]}|{k[1]}" for stat in RATIO_STATISTICS for k in KEYS}


def _cache_file(protocol, dre):
    """The cache file of one run: keyed by the protocol, the DRE's class and parameters and the
    fingerprint of the code that computes the run (:func:`gendel.cache.result_fingerprint`): the
    protocol's code and that of the DRE's class, or of the gendel class it derives from (the code
    of a DRE written outside gendel is not followed: its class and parameters are in the key)."""
    ours = [c for c in type(dre).__mro__ if c.__module__.startswith("gendel.")]
    roots = (synthetic_statistics,) + tuple(ours[:1])
    return cache_path("synthetic_statistics", protocol.settings() | {"dre": estimator_config(dre)},
                      code=result_fingerprint(roots))


def _load(path, protocol, dre):
    """The run stored at ``path``, or None (missing or damaged: see :func:`gendel.cache.load_npz`)."""
    stored = load_npz(path, dict.fromkeys(_ARRAY_NAMES.values(), (protocol.R,)) | {"n_deleted": (), "acceptance_rate": ()})
    if stored is None:
        return None
    values = {stat: {k: stored[_ARRAY_NAMES[stat, k]] for k in KEYS} for stat in RATIO_STATISTICS}
    settings = {**protocol.settings(), "dre": repr(dre)}
    return SyntheticStatistics(settings, values, _ks_of(values), int(stored["n_deleted"]),
                               float(stored["acceptance_rate"]), None, protocol)


def _store(path, result):
    arrays = {name: result.values[stat][k] for (stat, k), name in _ARRAY_NAMES.items()}
    try:
        save_npz(path, n_deleted=np.asarray(result.n_deleted), acceptance_rate=np.asarray(result.acceptance_rate),
                 **arrays)
    except OSError as exc:  # e.g. the disk filled up while computing: keep the result
        warnings.warn(f"could not store the result in the cache ({exc}); returning it uncached", CacheWarning,
                      stacklevel=3)


@dataclass
class Sweep:
    """Results of the §5.1 protocol over a grid of lambdas and DREs.

    Attributes
    ----------
    lams : tuple of float
    labels : tuple of str
        One label per DRE (by default its hyper-parameter, e.g. the sigma_C of a KBC: "0.075").
    results : list of list of SyntheticStatistics
        ``results[i][j]`` for ``lams[i]`` and DRE ``j``.
    dres : tuple
        The unfitted DREs, one per column.

    Examples
    --------
    >>> from gendel.core.dre import make_dre
    >>> s = sweep(Protocol("mog8", N=40, m=10, R=3), [make_dre("kbc", 0.1), make_dre("kbc", 0.2)], lams=[0.5],
    ...           cache=False, progress=False)
    >>> s.lams, s.labels, s.ks("Q3", "lr").shape, s.family, s.params
    ((0.5,), ('0.1', '0.2'), (1, 2), 'kbc', (0.1, 0.2))
    """

    lams: tuple
    labels: tuple
    results: list
    dres: tuple = ()

    def ks(self, question, stat="lr"):
        """KS statistics as an array of shape (len(lams), len(labels)).

        Examples
        --------
        >>> Sweep((0.5,), ("0.1",), [[]]).ks("Q9")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: question must be one of ('Q1', 'Q2', 'Q3') ...
        """
        if question not in QUESTIONS:
            raise ValueError(f"question must be one of {tuple(QUESTIONS)} ("
                             + ", ".join(QUESTION_TITLES[q].split(": ")[1] for q in QUESTIONS) + f"); got {question!r}")
        if stat not in RATIO_STATISTICS:
            raise ValueError(f"stat must be one of {RATIO_STATISTICS}, the statistics a run computes from log ratios; "
                             f"got {stat!r}")
        return np.array([[r.ks[question, stat] for r in row] for row in self.results])

    @property
    def family(self):
        """The key of :data:`gendel.core.dre.DRE_CHOICES` shared by all DREs of the sweep, or None."""
        families = {dre_family(d) for d in self.dres}
        return families.pop() if len(families) == 1 else None

    @property
    def params(self):
        """The hyper-parameter of each DRE (sigma_C, k), read from :data:`gendel.core.dre.DRE_CHOICES`."""
        family = self.family
        if family is None or DRE_CHOICES[family].keyword is None:
            raise ValueError(f"the DREs of this sweep have no common hyper-parameter: {list(self.dres)}")
        return tuple(DRE_CHOICES[family].value_of(d) for d in self.dres)


def _default_label(dre):
    family = dre_family(dre)
    if family is None or DRE_CHOICES[family].keyword is None:
        return repr(dre)
    return f"{DRE_CHOICES[family].value_of(dre):g}"


def sweep(protocol, dres, *, lams=None, labels=None, cache=True, progress=True):
    """Run :func:`synthetic_statistics` for every lambda and DRE, with a progress bar and a disk cache.

    Parameters
    ----------
    protocol : Protocol
        The settings of every run; its lambda is replaced by each of ``lams``.
    dres : sequence of DensityRatioEstimator
        Unfitted DREs, one column each (e.g. ``[make_dre("kbc", s) for s in (0.075, 0.1)]``).
    lams : sequence of float, optional
        One row per lambda (default: the protocol's own lambda).
    labels : sequence of str, optional
        One per DRE (default: its hyper-parameter from :data:`gendel.core.dre.DRE_CHOICES`,
        e.g. "0.075", else its repr).
    cache : bool
        Read and store each run in the disk cache (:func:`gendel.cache.cache_dir`). The key holds
        the protocol's settings, the DRE's class and ``get_params()``
        (:func:`gendel.cache.estimator_config`) and the fingerprint of the code that computes a
        run; a DRE without ``get_params`` is refused (TypeError) unless ``cache=False``. Runs
        read from the cache have ``dre=None``; their ``settings`` and ``protocol`` are those of a
        fresh run. The cache survives faults, each reported with a
        :class:`gendel.cache.CacheWarning`: processes computing one run at once each write a
        whole file; a damaged entry is discarded and recomputed; an unwritable cache folder is
        found before computing, and the result is returned without being stored.
    progress : bool
        Show a progress bar (also hidden by ``TQDM_DISABLE=1``).

    Every setting is checked before the first run, and an interrupted sweep resumes where it
    stopped.

    Examples
    --------
    >>> from gendel.core.dre import KNNClassifierDRE
    >>> p = Protocol("mog8", N=40, m=10, R=3)
    >>> s = sweep(p, [KNNClassifierDRE(k=3)], lams=[0.5, 0.7], progress=False)
    >>> s.ks("Q1").shape, s.labels
    ((2, 1), ('3',))
    >>> again = sweep(p, [KNNClassifierDRE(k=3)], lams=[0.5, 0.7], progress=False)
    >>> again.results[0][0].dre is None, again.ks("Q1").tolist() == s.ks("Q1").tolist()  # read from the disk
    (True, True)
    """
    protocol = check_protocol(protocol)
    if lams is not None and (isinstance(lams, (str, bytes)) or not np.iterable(lams)):
        raise TypeError(f"lams must be a sequence of numbers in (0, 1], one row each, e.g. lams=[{lams!s}] or "
                        f"lams=(0.6, 0.8); got {lams!r}")
    if isinstance(dres, DensityRatioEstimator) or hasattr(dres, "log_ratio") or not np.iterable(dres):
        raise TypeError(f"dres must be a list of DREs, one column each, e.g. [KernelClassifierDRE(bandwidth=0.1)]; got "
                        f"{dres!r}: for one DRE pass [dre]")
    protocols = [protocol] if lams is None else [protocol.replace(lam=lam) for lam in lams]
    dres = tuple(_check_dre(d) for d in dres)
    if not dres:
        raise ValueError("dres is empty: pass at least one DRE, e.g. [KernelClassifierDRE(bandwidth=0.1)]")
    labels = tuple(labels) if labels is not None else tuple(_default_label(d) for d in dres)
    if len(labels) != len(dres):
        raise ValueError(f"got {len(labels)} labels for {len(dres)} DREs")
    files = {(p, j): _cache_file(p, d) for p in protocols for j, d in enumerate(dres)} if cache else {}
    cells = [(p, j) for p in protocols for j in range(len(dres))]
    results = {}
    for p, j in progress_bar(cells, desc=f"{protocol.dataset} sweep", enabled=progress):
        path = files.get((p, j))
        result = _load(path, p, dres[j]) if path is not None else None
        if result is None:
            writable = path is not None and usable_cache_dir(path.parent) is not None  # before the work
            result = synthetic_statistics(p, dres[j])
            if writable:
                _store(path, result)
        results[p, j] = result
    rows = [[results[p, j] for j in range(len(dres))] for p in protocols]
    return Sweep(tuple(p.lam for p in protocols), labels, rows, dres)


# --------------------------------------------------------------------------------------------
# Ratio maps


@dataclass
class RatioMapSweep:
    """rho_hat and the rho_hat_E of several DREs on a grid, for each lambda (Fig. 3).

    Attributes
    ----------
    protocol : Protocol
        The settings (its lambda is replaced by each of ``lams``).
    lams : tuple of float
    dres : tuple
        The unfitted DREs, one panel each after the exact ratio.
    labels : tuple of str
        "ρ̂ (exact)", then one label per DRE (:meth:`gendel.core.dre.DREChoice.describe`).
    xs, ys : ndarray
        The grid: ``ratios[i, c, iy, ix]`` is the value at ``(xs[ix], ys[iy])``.
    ratios : ndarray, shape (len(lams), 1 + len(dres), len(ys), len(xs))
        ``ratios[i, 0]`` is rho_hat at ``lams[i]``, ``ratios[i, 1 + j]`` the ratio of DRE ``j``
        fitted on the X and X' of that lambda.

    Examples
    --------
    >>> maps = ratio_maps(Protocol("mog8", N=60), [make_dre("kbc", 0.1)], lams=[0.6, 0.8], resolution=10)
    >>> maps.ratios.shape, maps.labels
    ((2, 2, 10, 10), ('ρ̂ (exact)', 'KBC, σ_C = 0.100'))
    >>> bool(np.allclose(maps.ratios[:, 0], maps.ratios[:, 1]))   # sigma_C = sigma_A: exact (Example 1)
    True
    """

    protocol: Protocol
    lams: tuple
    dres: tuple
    labels: tuple
    xs: np.ndarray
    ys: np.ndarray
    ratios: np.ndarray

    def at(self, lam):
        """The maps of one lambda, shape (1 + len(dres), len(ys), len(xs))."""
        return self.ratios[self.lams.index(lam)]


def _describe(dre):
    family = dre_family(dre)
    if family is None:
        return repr(dre)
    choice = DRE_CHOICES[family]
    return choice.describe(choice.value_of(dre))


def ratio_maps(protocol, dres, *, lams=None, resolution=64):
    """rho_hat = p_hat' / p_hat and the ratio rho_hat_E of each DRE on a grid over the data set's window.

    For each lambda (default: the protocol's own), X and X' are those of
    :func:`gendel.synthetic.sampling.setup`, and each DRE is fitted on them (a copy: the DREs
    passed in stay unfitted).

    Returns
    -------
    RatioMapSweep

    Examples
    --------
    >>> maps = ratio_maps(Protocol("ckb8", lam=0.7, N=80), [make_dre("knn", 5)], resolution=6)
    >>> maps.lams, maps.ratios.shape, bool((maps.ratios >= 0).all())
    ((0.7,), (1, 2, 6, 6), True)
    """
    protocol = check_protocol(protocol)
    lams = (protocol.lam,) if lams is None else tuple(float(lam) for lam in lams)
    dres = tuple(_check_dre(d) for d in dres)
    xs, ys, points = grid(_data.EXTENT[protocol.dataset], resolution)
    ratios = np.empty((len(lams), 1 + len(dres), len(ys), len(xs)))
    for i, lam in enumerate(lams):
        X, deleted, exact = setup(protocol.replace(lam=lam))
        fitted = [exact] + [copy.deepcopy(d).fit(X, deleted) for d in dres]
        for c, d in enumerate(fitted):
            ratios[i, c] = d.ratio(points).reshape(len(ys), len(xs))
    labels = ("ρ̂ (exact)",) + tuple(_describe(d) for d in dres)
    return RatioMapSweep(protocol, lams, dres, labels, xs, ys, ratios)


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


def chapter_sweeps(protocol, *, cache=True, progress=True):
    """The KBC and kNN sweeps of the book's chapter for one data set (disk-cached per run).

    ``protocol`` gives the data set and the settings N, m, R, sigma_A, seed (its lambda is
    replaced by those of the grids), e.g. ``Protocol("mog8")`` for the paper's.

    Returns
    -------
    dict
        ``{"kbc": sweep(protocol, KBC per SIGMA_C, lams=LAMBDAS), "knn": sweep(protocol, kNN per KNN_K, lams=KNN_LAMBDAS)}``.

    Examples
    --------
    At the paper's settings this takes minutes (once; then it is read from the disk cache).
    With small settings:

    >>> sweeps = chapter_sweeps(Protocol("ckb8", N=40, m=5, R=2), cache=False, progress=False)
    >>> sweeps["kbc"].ks("Q1").shape, sweeps["knn"].ks("Q1").shape
    ((5, 9), (4, 4))
    """
    kw = dict(cache=cache, progress=progress)
    return {
        "kbc": sweep(protocol, [make_dre("kbc", s) for s in SIGMA_C], lams=LAMBDAS, **kw),
        "knn": sweep(protocol, [make_dre("knn", k) for k in KNN_K], lams=KNN_LAMBDAS, **kw),
    }


def variations(protocol, changes=None):
    """The protocol and its (m, N, R) variations of Appendix D, panel (a): label -> Protocol.

    The first label, ``"paper (m = N = 400, R = 250)"`` at the paper's settings, is the protocol
    itself; each other changes one of N, m, R (``changes``: label -> changes, default
    :data:`VARIATIONS`). All are checked before any run.

    Examples
    --------
    >>> {label: (p.m, p.N, p.R) for label, p in variations(Protocol("mog8", lam=0.8)).items()}
    {'paper (m = N = 400, R = 250)': (400, 400, 250), 'm = 200': (200, 400, 250), 'N = 200': (400, 200, 250), 'R = 100': (400, 400, 100)}
    """
    protocol = check_protocol(protocol)
    changes = VARIATIONS if changes is None else changes
    for label, change in changes.items():
        unknown = set(change) - {"N", "m", "R"}
        if unknown:
            raise ValueError(f"a variation may change N, m or R only; {label!r} changes {sorted(unknown)}")
    out = {f"paper (m = N = {protocol.N}, R = {protocol.R})": protocol}
    out.update({label: protocol.replace(**change) for label, change in changes.items()})
    return out


def variation_sweeps(protocol, changes=None, *, cache=True, progress=True):
    """KBC sweeps (one per sigma_C of :data:`SIGMA_C`) for each protocol of :func:`variations`.

    Returns a dict ``label -> Sweep``, the protocol itself first.

    Examples
    --------
    >>> list(VARIATIONS)
    ['m = 200', 'N = 200', 'R = 100']
    >>> variation_sweeps(Protocol("mog8", lam=0.8), {"R = 100": {"R": 100}})  # a 1-hour run at the paper's N and m  # doctest: +SKIP
    """
    kbc = [make_dre("kbc", s) for s in SIGMA_C]
    return {label: sweep(p, kbc, cache=cache, progress=progress)
            for label, p in variations(protocol, changes).items()}


__all__ = [
    "KNN_K",
    "KNN_LAMBDAS",
    "LAMBDAS",
    "RatioMapSweep",
    "SIGMA_C",
    "SyntheticStatistics",
    "Sweep",
    "VARIATIONS",
    "chapter_sweeps",
    "evaluate_on_grid",
    "grid",
    "ratio_maps",
    "sweep",
    "synthetic_statistics",
    "variation_sweeps",
    "variations",
]
