"""The state behind the §5.1 explorer panel, without widgets: settings, caches, maps, KS results.

:class:`ExplorerState` holds the validated settings of :class:`gendel.panels.explorer.ExplorerPanel`
(data set, lambda, sigma_A, the DRE and its hyper-parameter, seed, R, ...) and computes for them

- the ratio maps of Fig. 3 (:meth:`ExplorerState.maps`): the exact ratio rho_hat = p_hat' / p_hat
  of the KDE learner, the estimate rho_hat_E of the chosen DRE and their error, on a grid;
- the KS statistics of Fig. 4 and the distributions behind them
  (:meth:`ExplorerState.statistics`, :func:`gendel.synthetic.experiments.synthetic_statistics`).

Everything reusable is cached (least recently used first out): the data, the deletion set and
the exact ratio (keyed by data set, lambda, sigma_A and seed), the grid, each fitted DRE with its
map, and each KS result. Moving sigma_C refits only the DRE; the data are not redrawn. The KS
computation reuses the sample sets of its protocol, the first proposals of Alg. 1 and rho_hat on
them (:func:`gendel.synthetic.sampling.shared` and :func:`gendel.synthetic.sampling.proposals`, cached by protocol):
after a change of the DRE only the DRE is evaluated, once on all points, and Alg. 1 decides anew.
:meth:`ExplorerState.prefetch` fills the caches for the next slider steps (:meth:`~ExplorerState.neighbours`).

No ipywidgets, no plotly here: :mod:`gendel.panels.explorer` builds the controls and figures from this state.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gendel._validation import check_count, check_lambda, check_positive
from gendel.core.dre import DRE_CHOICES, dre_choice, make_dre
from gendel.panels.base import LRUCache
from gendel.synthetic.data import DATASETS, EXTENT, check_dataset
from gendel.synthetic import experiments
from gendel.synthetic.experiments import grid
from gendel.synthetic.sampling import RATIO_STATISTICS, Protocol, setup

#: Choices of the panel's drop-downs and toggles: value -> label.
DRES = {kind: choice.label for kind, choice in DRE_CHOICES.items()}
MAP_MODES = {"difference": "ρ̂_ℰ − ρ̂", "log": "log ρ̂_ℰ − log ρ̂"}
R_CHOICES = (25, 50, 100, 250)

#: Ranges of the sliders (min, max, step): values given to ``set`` must lie in them, not on a step.
RANGES = {
    "lam": (0.5, 0.9, 0.01),
    "sigma_a": (0.02, 0.3, 0.005),
    "sigma_c": (0.02, 0.3, 0.005),
    "k": (1, 100, 1),
    "seed": (0, 10_000, 1),
}

#: The defaults: the paper's setting of Figs. 3-6 (MoG-8, lambda = 0.8, sigma_A = 0.1, KBC with
#: sigma_C = sigma_A) with R = 100 repeats instead of 250, so one update takes ~1 s.
DEFAULTS = dict(dataset="mog8", lam=0.8, sigma_a=0.1, dre="kbc", sigma_c=0.1, k=10, seed=0, R=100,
                map_mode="log", statistic="lr", live_ks=True)

#: Colour-bar limits of the error map, per mode: differences outside are drawn at the ends.
ERROR_LIMITS = {"difference": 0.5, "log": 1.5}


def dre_value(kind, *, sigma_c=0.1, k=10):
    """The hyper-parameter of DRE family ``kind`` among the panel's settings (None if it has none):
    ``sigma_c`` for "kbc", ``k`` for "knn"; ``make_dre(kind, dre_value(kind, ...))`` is the panel's DRE.

    Examples
    --------
    >>> dre_value("knn", k=5), make_dre("knn", dre_value("knn", k=5))
    (5, KNNClassifierDRE(k=5))
    """
    return {"sigma_c": sigma_c, "k": k}.get(dre_choice(kind).param)


def describe_dre(kind, *, sigma_c=0.1, k=10):
    """A short label of a DRE choice.

    Examples
    --------
    >>> describe_dre("kbc", sigma_c=0.1)
    'KBC, σ_C = 0.100'
    """
    return DRE_CHOICES[kind].describe(dre_value(kind, sigma_c=sigma_c, k=k))


def describe_settings(settings):
    """Explorer settings (all of :data:`DEFAULTS`) in words.

    Examples
    --------
    >>> describe_settings(DEFAULTS)
    'MoG-8, λ = 0.80, σ_A = 0.100, KBC, σ_C = 0.100, seed 0'
    """
    s = settings
    return (f"{DATASETS[s['dataset']]}, λ = {s['lam']:.2f}, σ_A = {s['sigma_a']:.3f}, "
            f"{describe_dre(s['dre'], sigma_c=s['sigma_c'], k=s['k'])}, seed {s['seed']}")


def validate_settings(settings):
    """Check explorer settings (names of :data:`DEFAULTS`); returns them with normalised values.

    Raises ``TypeError`` for an unknown name or a value of the wrong type and ``ValueError`` for a
    value outside its control's choices or range.

    Examples
    --------
    >>> validate_settings({"dataset": "CKB-8", "lam": 0.6})
    {'dataset': 'ckb8', 'lam': 0.6}
    """
    out = {}
    for name, value in settings.items():
        if name not in DEFAULTS:
            raise TypeError(f"unknown setting {name!r}; the panel's settings are {tuple(DEFAULTS)}")
        if name == "dataset":
            value = check_dataset(value)
        elif name in ("dre", "map_mode", "statistic"):
            choices = {"dre": tuple(DRES), "map_mode": tuple(MAP_MODES), "statistic": RATIO_STATISTICS}[name]
            if value not in choices:
                raise ValueError(f"{name} must be one of {choices}; got {value!r}")
        elif name == "live_ks":
            if not isinstance(value, (bool, np.bool_)):
                raise TypeError(f"live_ks must be True or False; got {value!r}")
            value = bool(value)
        elif name == "R":
            value = check_count(value, "R", minimum=2)
            if value not in R_CHOICES:
                raise ValueError(f"R must be one of {R_CHOICES}; got {value}")
        else:
            lo, hi, _ = RANGES[name]
            if name == "lam":
                value = check_lambda(value)
            elif name in ("k", "seed"):
                value = check_count(value, name, minimum=0)
            else:
                value = check_positive(value, name)
            if not lo <= value <= hi:
                raise ValueError(f"{name} must lie in [{lo}, {hi}] (the range of its slider); got {value!r}")
            if isinstance(value, float):  # a browser's 0.1 + 0.005 is 0.10500000000000001: one cache key
                value = round(value, 12)
        out[name] = value
    return out


def weighted_abs_mean(values, log_weights):
    """sum_i w_i ``|v_i|`` / sum_i w_i with w = exp(log_weights); inf when a weighted value is infinite.

    Examples
    --------
    >>> float(weighted_abs_mean(np.array([1.0, -3.0]), np.log([3.0, 1.0])))
    1.5
    """
    w = np.exp(log_weights - log_weights.max())
    a = np.abs(values)
    if np.any(np.isinf(a) & (w > 0)):
        return float("inf")
    return float(np.sum(w * np.where(np.isinf(a), 0.0, a)) / np.sum(w))


@dataclass(frozen=True)
class RatioMaps:
    """The ratio maps of Fig. 3 on a grid: ``z[iy, ix]`` is the value at ``(xs[ix], ys[iy])``.

    Attributes
    ----------
    xs, ys : ndarray
        The grid's coordinates.
    exact, estimate : ndarray (n, n)
        rho_hat = p_hat' / p_hat of the KDE learner and the DRE's rho_hat_E.
    error : ndarray (n, n)
        log rho_hat_E - log rho_hat (``mode="log"``; may be infinite or nan where a ratio is 0)
        or rho_hat_E - rho_hat (``mode="difference"``).
    mode : str
        A key of :data:`MAP_MODES`.
    mean_error : float
        The mean of ``|error|`` under the pre-trained KDE p_hat on the grid (inf when an infinite
        error has weight).

    Examples
    --------
    >>> maps = ExplorerState(N=60, m=20, resolution=20, dre="kbc", sigma_c=0.1).maps()
    >>> maps.exact.shape, float(abs(maps.error).max()) < 1e-9  # sigma_C = sigma_A: exact (Example 1)
    ((20, 20), True)
    """

    xs: np.ndarray
    ys: np.ndarray
    exact: np.ndarray
    estimate: np.ndarray
    error: np.ndarray
    mode: str
    mean_error: float

    @property
    def limit(self):
        """The colour-bar limit of the error map (:data:`ERROR_LIMITS`)."""
        return ERROR_LIMITS[self.mode]

    def clipped_error(self):
        """The error as drawn: clipped to [-limit, limit], ±inf at the ends and nan as 0."""
        limit = self.limit
        return np.clip(np.nan_to_num(self.error, nan=0.0, neginf=-limit, posinf=limit), -limit, limit)


class ExplorerState:
    """The settings of the §5.1 explorer and what they compute, cached, without any widget.

    Parameters
    ----------
    N, m : int
        Training set size and size of each sample set of the deletion test (paper: 400, 400).
    resolution : int
        Grid points per axis of the ratio maps (150: a 150 x 150 grid).
    **settings
        Initial settings, see :data:`DEFAULTS` (validated by :func:`validate_settings`).

    Examples
    --------
    >>> state = ExplorerState(N=40, m=20, resolution=10, R=25, dre="knn", k=3)
    >>> state.maps().estimate.shape
    (10, 10)
    >>> X, deleted, exact = state.setup()
    >>> state.set(k=5).dre()
    KNNClassifierDRE(k=5)
    >>> state.setup()[0] is X                    # a new k refits the DRE; the data are not drawn again
    True
    """

    def __init__(self, *, N=400, m=400, resolution=150, **settings):
        self.N = check_count(N, "N", minimum=2)
        self.m = check_count(m, "m")
        self.resolution = check_count(resolution, "resolution", minimum=2)
        self._settings = {**DEFAULTS, **validate_settings(settings)}
        self._setups, self._dres, self._ks = LRUCache(8), LRUCache(16), LRUCache(32)
        self._grids = {}

    @property
    def settings(self):
        """The current settings, as a new dict."""
        return dict(self._settings)

    def set(self, **settings):
        """Change settings after checking all of them (nothing changes when one is bad); returns self."""
        self._settings.update(validate_settings(settings))
        return self

    # ------------------------------------------------------------------ cache keys

    @property
    def protocol(self):
        """The :class:`~gendel.synthetic.sampling.Protocol` of the current settings: the key of the KS cache."""
        return self._protocol_of(self._settings)

    @property
    def setup_key(self):
        """The protocol without m and R: what the data, deletion set and exact ratio depend on."""
        return self.protocol.replace(m=1, R=2)

    @property
    def dre_key(self):
        """(kind,) or (kind, hyper-parameter): what the unfitted DRE depends on."""
        return self._dre_key_of(self._settings)

    def _protocol_of(self, s):
        return Protocol(s["dataset"], lam=s["lam"], N=self.N, m=self.m, R=s["R"], sigma_a=s["sigma_a"], seed=s["seed"])

    def _dre_key_of(self, s):
        value = dre_value(s["dre"], sigma_c=s["sigma_c"], k=s["k"])
        return (s["dre"],) if value is None else (s["dre"], value)

    @property
    def ks_key(self):
        """What the KS statistics depend on: the protocol and the DRE."""
        return (self.protocol, self.dre_key)

    def has_statistics(self):
        """Whether the KS statistics of the current settings are cached."""
        return self.ks_key in self._ks

    def describe(self):
        """The current settings in words (:func:`describe_settings`)."""
        return describe_settings(self._settings)

    # ------------------------------------------------------------------ computations (cached)

    @property
    def grid(self):
        """``(xs, ys, points)`` of the maps; row ``iy * resolution + ix`` of points is ``(xs[ix], ys[iy])``."""
        return self._grid(self._settings["dataset"])

    def _grid(self, dataset):
        if dataset not in self._grids:
            self._grids[dataset] = grid(EXTENT[dataset], self.resolution)
        return self._grids[dataset]

    def _setup(self, key):
        def compute():
            X, deleted, exact = setup(key)
            _, _, points = self._grid(key.dataset)
            return {
                "data": (X, deleted, exact),
                "log_ratio": exact.log_ratio(points),  # log rho_hat on the grid
                "log_p": exact.pretrained_.log_prob(points),  # log p_hat on the grid (error weights)
            }

        return self._setups.get_or_compute(key, compute)

    def _dre(self, setup_key, dre_key):
        def compute():
            X, deleted, _ = self._setup(setup_key)["data"]
            dre = make_dre(*dre_key).fit(X, deleted)
            _, _, points = self._grid(setup_key.dataset)
            return {"dre": dre, "log_ratio": dre.log_ratio(points)}

        return self._dres.get_or_compute((setup_key, dre_key), compute)

    def setup(self):
        """``(X, deleted, exact)`` of the current settings (see :func:`gendel.synthetic.sampling.setup`)."""
        return self._setup(self.setup_key)["data"]

    def dre(self):
        """The fitted DRE rho_hat_E of the current settings."""
        return self._dre(self.setup_key, self.dre_key)["dre"]

    def maps(self):
        """The :class:`RatioMaps` of the current settings (error as set by ``map_mode``)."""
        setup = self._setup(self.setup_key)
        log_exact, log_est = setup["log_ratio"], self._dre(self.setup_key, self.dre_key)["log_ratio"]
        mode = self._settings["map_mode"]
        if mode == "log":
            with np.errstate(invalid="ignore"):
                error = log_est - log_exact
        else:
            error = np.exp(log_est) - np.exp(log_exact)
        xs, ys, _ = self.grid
        n = self.resolution
        return RatioMaps(xs, ys, np.exp(log_exact).reshape(n, n), np.exp(log_est).reshape(n, n),
                         error.reshape(n, n), mode, weighted_abs_mean(error, setup["log_p"]))

    def statistics(self):
        """The :class:`~gendel.synthetic.experiments.SyntheticStatistics` (KS of Q1-Q3) of the current settings.

        Equal to :func:`gendel.synthetic.experiments.synthetic_statistics` for :attr:`protocol` and the DRE;
        after a DRE change the samples of the protocol are reused (see the module's docstring).
        """
        return self._statistics(self.ks_key)

    def _statistics(self, key):
        def compute():
            protocol, dre_key = key
            return experiments.synthetic_statistics(protocol, make_dre(*dre_key))

        return self._ks.get_or_compute(key, compute)

    def neighbours(self):
        """The changes one slider step away in the DRE's hyper-parameter (what a key press reaches).

        >>> ExplorerState(sigma_c=0.1).neighbours(), ExplorerState(dre="knn", k=1).neighbours()
        ([{'sigma_c': 0.105}, {'sigma_c': 0.095}], [{'k': 2}])
        """
        s = self._settings
        param = DRE_CHOICES[s["dre"]].param
        lo, hi, step = RANGES.get(param, (0, -1, 0))
        return [validate_settings({param: v}) for v in (s[param] + step, s[param] - step) if lo <= v <= hi]

    def prefetch(self, **settings):
        """Compute and cache the DRE map and KS statistics at ``settings`` (changes from the current
        ones, which stay as they are); thread-safe: a later request for them waits for this one.

        Returns their :attr:`ks_key`, or None if they were cached already.
        """
        s = {**self._settings, **validate_settings(settings)}
        protocol, dre_key = self._protocol_of(s), self._dre_key_of(s)
        if (protocol, dre_key) in self._ks:
            return None
        self._dre(protocol.replace(m=1, R=2), dre_key)
        self._statistics((protocol, dre_key))
        return protocol, dre_key


__all__ = ["DATASETS", "DEFAULTS", "DRES", "ERROR_LIMITS", "ExplorerState", "MAP_MODES", "RANGES", "R_CHOICES",
           "RatioMaps", "describe_dre", "describe_settings", "dre_value", "validate_settings", "weighted_abs_mean"]
