"""A live panel for the chapter on the deletion test as a decision (§4, Appendix C).

:class:`DeletionTestPanel` puts the calibrated deletion test of :mod:`gendel.deletion_test.decision`
behind a few controls: the data set (MoG-8 or CKB-8), the density ratio estimator ρ̂_ℰ, the
number of samples per test m, λ, the level α and the statistic. It redraws
:func:`gendel.plotting.deletion_test.decision_figure`: the statistic under H0 (samples of the
pre-trained KDE p̂) and under the alternative (samples of the re-trained KDE p̂′), the critical
value of the Monte-Carlo test at α, its power and its type-I error.

Everything that can be reused is cached by configuration: the data and the exact ratio (data set,
λ), each fitted DRE (data set, λ, DRE) and each test with its simulated statistics (data set, λ,
DRE, statistic, m; the MMD statistic does not use the DRE, so the DRE is not part of its key).
Moving α alone only recomputes the critical value from the cached statistics: nothing is drawn.
Each test draws from its own random stream, derived from the panel's seed and the configuration,
so the same settings give the same figure whatever was shown before.

A redraw that fails rolls the controls back to the last settings that drew and says what failed
on the status line (:class:`!gendel.panels.base.Panel`).

Widgets need a kernel (Jupyter, Binder, Colab); the static book shows
:func:`gendel.plotting.deletion_test.decision_slider_figure` instead. Requires the ``widgets``
extra: ``pip install "gendel[widgets]"`` (ipywidgets and anywidget).
"""

from __future__ import annotations

import time
import zlib

import numpy as np
import plotly.graph_objects as go

try:
    import ipywidgets as W
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError('gendel.panels.deletion_test needs ipywidgets and anywidget: '
                      'pip install "gendel[widgets]"') from exc

from gendel._validation import check_count
from gendel.synthetic.data import DATASETS  # the data sets of the panel: key -> label
from gendel.deletion_test.decision import DeletionTest
from gendel.deletion_test.stats import STATISTICS
from gendel.panels.base import LRUCache, Panel
from gendel._environment import enable_colab_widgets, in_book_build, in_colab
from gendel.core.dre import DRE_CHOICES, make_dre
from gendel.deletion_test.calibration import critical_value, rejects
from gendel.plotting.deletion_test import decision_figure
from gendel.synthetic.sampling import PAPER, Protocol, setup

#: The fitted DREs of the panel: key -> (family in :data:`gendel.core.dre.DRE_CHOICES`, hyper-parameter).
_DRE_SPECS = {"kbc-0.075": ("kbc", 0.075), "kbc-0.1": ("kbc", 0.1), "knn-10": ("knn", 10)}
#: The DREs of the panel: key -> label. "exact" is the exact ratio ρ̂ = p̂′/p̂ of the KDE learner.
DRES = {"exact": "exact ratio ρ̂ = p̂′/p̂",
        **{key: DRE_CHOICES[kind].describe(value) for key, (kind, value) in _DRE_SPECS.items()}}
#: Steps of the m slider (samples per test), roughly evenly spaced on a log scale.
M_STEPS = (10, 20, 30, 50, 100, 200, 300, 400)
#: Steps of the λ slider (weight of the re-weighted components in p_*', §5.1).
LAMBDAS = (0.5, 0.6, 0.7, 0.8, 0.9)
#: Levels α of the test.
ALPHAS = (0.01, 0.05, 0.1)
#: The panel's defaults.
DEFAULTS = dict(dataset="mog8", dre="kbc-0.1", statistic="lr", m=100, lam=0.8, alpha=0.05)
#: The §5.1 setting behind every configuration: the paper's N = 400 points and KDE bandwidth σ_A = 0.1.
N, SIGMA_A = PAPER.N, PAPER.sigma_a


def _pick(value, choices, name):
    """The element of ``choices`` equal (numerically close) to ``value``, else a ValueError."""
    try:
        number = float(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be one of {choices}; got {value!r}") from exc
    for choice in choices:
        if np.isclose(number, choice, rtol=0, atol=1e-9):
            return choice
    raise ValueError(f"{name} must be one of {choices} (the steps of its control); got {value!r}")


class DeletionTestPanel(Panel):
    """Controls of the deletion test and the decision figure they produce.

    Parameters
    ----------
    n_null : int
        Simulated null statistics per configuration (at least 99, so that α = 0.01 can reject).
    n_rep : int
        Tests of the alternative per configuration (the power's denominator).
    seed : int
        Seed of every random stream of the panel.
    n_pilot : int
        Model draws of each test's pilot (direction of the ASC statistics, MMD bandwidth).
    **settings
        Initial values of the controls, see :data:`DEFAULTS`: ``dataset`` ("mog8", "ckb8"),
        ``dre`` (a key of :data:`DRES`), ``statistic`` (one of
        :data:`gendel.deletion_test.stats.STATISTICS`), ``m`` (one of :data:`M_STEPS`), ``lam`` (one
        of :data:`LAMBDAS`) and ``alpha`` (one of :data:`ALPHAS`).

    Attributes
    ----------
    widget : ipywidgets.VBox
        The panel (displaying the panel itself shows it).
    controls : dict
        The control widgets by setting name.
    figure : plotly.graph_objects.FigureWidget
        The decision figure of the current settings.
    status : ipywidgets.HTML
        What the last redraw did and how long it took.
    frame_ : dict
        The numbers on show: ``null``, ``alternative`` (statistics), ``critical``,
        ``direction``, ``statistic``, ``m``, ``alpha``, ``power`` (share of the alternative
        beyond the critical value) and ``type_one``.
    last_redraw_s_ : float
        Seconds the last redraw took.
    last_valid_settings_ : dict
        The settings of the last redraw that worked (a failed one rolls back to them).

    Examples
    --------
    >>> panel = DeletionTestPanel(m=400, dre="knn-10")   # doctest: +SKIP
    >>> panel.set(alpha=0.01).frame_["power"]            # doctest: +SKIP
    >>> panel                                            # doctest: +SKIP
    """

    def __init__(self, *, n_null=200, n_rep=200, seed=0, n_pilot=5000, **settings):
        self.n_null = check_count(n_null, "n_null", minimum=99)
        self.n_rep = check_count(n_rep, "n_rep", minimum=1)
        self.seed = check_count(seed, "seed", minimum=0)
        self.n_pilot = check_count(n_pilot, "n_pilot", minimum=100)
        values = dict(DEFAULTS)
        values.update(self._validate(settings))
        self._setups, self._dres, self._tests = LRUCache(4), LRUCache(8), LRUCache(64)
        self.last_redraw_s_ = 0.0
        self._build_controls(values)
        self.figure = go.FigureWidget()
        self._styled = False
        self.widget = W.VBox([self._controls_box, self.status, self.figure], layout=W.Layout(width="100%"))
        self._start()

    # ------------------------------------------------------------------ public API

    def set(self, **settings):
        """Change one or more controls and redraw once, e.g. ``panel.set(m=400, alpha=0.01)``.

        Raises ValueError for an unknown setting or a value that is not one of its control's
        choices; nothing changes then. A redraw that fails rolls the controls back to
        :attr:`!last_valid_settings_` and raises. Returns self.
        """
        return super().set(**settings)

    def test(self):
        """The :class:`~gendel.deletion_test.decision.DeletionTest` of the current settings (fitted, cached)."""
        return self._test(self._test_key(self.settings))["test"]

    def _closables(self):
        return [*super()._closables(), self.figure]

    # ------------------------------------------------------------------ validation and controls

    @staticmethod
    def _validate(settings):
        out = {}
        for name, value in settings.items():
            if name not in DEFAULTS:
                raise ValueError(f"unknown setting {name!r}; the panel's settings are {tuple(DEFAULTS)}")
            if name == "dataset":
                if value not in DATASETS:
                    raise ValueError(f"dataset must be one of {tuple(DATASETS)}; got {value!r}")
            elif name == "dre":
                if value not in DRES:
                    raise ValueError(f"dre must be one of {tuple(DRES)}; got {value!r}")
            elif name == "statistic":
                if value not in STATISTICS:
                    raise ValueError(f"statistic must be one of {tuple(STATISTICS)}; got {value!r}")
            elif name == "m":
                if isinstance(value, bool) or value not in M_STEPS:
                    raise ValueError(f"m must be one of {M_STEPS} (the steps of its slider); got {value!r}")
                value = int(value)
            elif name == "lam":
                value = _pick(value, LAMBDAS, "lam")
            else:
                value = _pick(value, ALPHAS, "alpha")
            out[name] = value
        return out

    def _build_controls(self, v):
        style = {"description_width": "initial"}
        c = {
            "dataset": W.ToggleButtons(options=[(label, key) for key, label in DATASETS.items()], value=v["dataset"],
                                       description="data set", style={**style, "button_width": "70px"}),
            "dre": W.Dropdown(options=[(label, key) for key, label in DRES.items()], value=v["dre"],
                              description="DRE ρ̂_ℰ", style=style, layout=W.Layout(width="260px")),
            "statistic": W.Dropdown(options=[(entry.label, key) for key, entry in STATISTICS.items()], value=v["statistic"],
                                    description="statistic", style=style, layout=W.Layout(width="230px")),
            "m": W.SelectionSlider(options=list(M_STEPS), value=v["m"], description="samples per test m",
                                   continuous_update=False, style=style, layout=W.Layout(width="330px")),
            "lam": W.SelectionSlider(options=[(f"{lam:g}", lam) for lam in LAMBDAS], value=v["lam"], description="λ",
                                     continuous_update=False, style=style, layout=W.Layout(width="220px")),
            "alpha": W.ToggleButtons(options=[(f"{a:g}", a) for a in ALPHAS], value=v["alpha"], description="level α",
                                     style={**style, "button_width": "56px"}),
        }
        self.controls = c
        self.status = W.HTML(value="")
        for control in c.values():
            control.observe(self._on_change, names="value")
        self._controls_box = W.VBox([W.HBox([c["dataset"], c["dre"], c["statistic"]]),
                                     W.HBox([c["m"], c["lam"], c["alpha"]])])

    # ------------------------------------------------------------------ computation (cached)

    def _setup(self, key):
        protocol = Protocol(key[0], lam=key[1], N=N, sigma_a=SIGMA_A, seed=self.seed)  # the cache key

        return self._setups.get_or_compute(protocol, lambda: setup(protocol))

    def _dre(self, key):
        dataset, lam, dre = key

        def compute():
            X, deleted, exact = self._setup((dataset, lam))
            if dre == "exact":
                return exact
            return make_dre(*_DRE_SPECS[dre]).fit(X, deleted)

        return self._dres.get_or_compute(key, compute)

    @staticmethod
    def _test_key(s):
        dre = s["dre"] if STATISTICS[s["statistic"]].needs_ratio else None  # MMD does not use the ratio
        return (s["dataset"], s["lam"], dre, s["statistic"], s["m"])

    def _test(self, key):
        dataset, lam, dre, statistic, m = key

        def compute():
            _, _, exact = self._setup((dataset, lam))
            ratio = None if dre is None else self._dre((dataset, lam, dre))
            stream = np.random.SeedSequence([self.seed, zlib.crc32(repr(key).encode())])
            rng_test, rng_alt = (np.random.default_rng(s) for s in stream.spawn(2))
            test = DeletionTest(exact.pretrained_, ratio, statistic=statistic, n_null=self.n_null, rng=rng_test,
                                n_pilot=self.n_pilot)
            null = test.null_distribution(m)
            # the alternative's statistics do not depend on alpha: any valid level will do
            power = test.power(exact.retrained_, m, alpha=max(ALPHAS), n_rep=self.n_rep, rng=rng_alt)
            return {"test": test, "null": null, "alternative": power.statistics}

        return self._tests.get_or_compute(key, compute)

    # ------------------------------------------------------------------ redraw

    def _refresh(self):
        t0 = time.perf_counter()
        s = self.settings
        key = self._test_key(s)
        cached = key in self._tests
        drawn = self._test(key)  # a failure rolls the controls back (Panel._redraw)
        test, null, alternative = drawn["test"], drawn["null"], drawn["alternative"]
        direction = int(test.direction_)
        critical = critical_value(null, s["alpha"], direction)
        power = float(rejects(alternative, critical, direction).mean())
        self.frame_ = dict(label=f"m = {s['m']}", null=null, alternative=alternative, critical=critical,
                           direction=direction, statistic=s["statistic"], m=s["m"], alpha=s["alpha"], power=power,
                           type_one=(1.0 + rejects(null, critical, direction).sum()) / (1.0 + null.size))
        entry = STATISTICS[s["statistic"]]
        dre = DRES[s["dre"]] if entry.needs_ratio else f"not used by {entry.label}"
        fig = decision_figure(
            null, alternative, critical=critical, direction=direction, statistic=s["statistic"], m=s["m"],
            alpha=s["alpha"], title=f"Deletion test on {DATASETS[s['dataset']]}, λ = {s['lam']:g}",
            subtitle=(f"{STATISTICS[s['statistic']].label}, m = {s['m']}, α = {s['alpha']:g}; ρ̂_ℰ: {dre}<br>"
                      f"N = {N}, σ_A = {SIGMA_A:g}, seed {self.seed}; {self.n_null} null sets, {self.n_rep} tests"))
        self._draw(fig)
        self.last_redraw_s_ = time.perf_counter() - t0
        how = ("statistics from the cache" if cached else
               f"new draws: {self.n_null} + {self.n_rep} sets of m = {s['m']} samples")
        self.status.value = (f"Redrawn in {self.last_redraw_s_:.2f} s ({how}). Power {power:.1%}, "
                             f"type-I error {self.frame_['type_one']:.1%} at α = {s['alpha']:g}.")

    def _draw(self, fig):
        """Copy a freshly built decision figure into the widget, trace by trace."""
        # Traces are updated one at a time and outside batch_update: a batch that edits
        # different keys of different traces sends null for the untouched keys (plotly 7.1).
        if len(self.figure.data) != len(fig.data):
            self.figure.data = []
            self.figure.add_traces(fig.data)
        else:
            for old, new in zip(self.figure.data, fig.data):
                old.update({k: v for k, v in new.to_plotly_json().items() if k != "type"})
        layout = fig.layout
        with self.figure.batch_update():
            if not self._styled:  # first draw: the parts that never change
                self.figure.update_layout(template=layout.template, barmode=layout.barmode, bargap=layout.bargap,
                                          hoverlabel=layout.hoverlabel)
                self._styled = True
            self.figure.update_layout(height=layout.height, margin=layout.margin, title=layout.title,
                                      legend=layout.legend, xaxis=layout.xaxis, yaxis=layout.yaxis)


def deletion_test_panel(**settings):
    """A :class:`DeletionTestPanel` drawn at ``settings``, ready to display.

    In a notebook, ``deletion_test_panel()`` as the last line of a cell shows the panel. In
    Google Colab this also enables Colab's custom widget manager, which plotly's
    ``FigureWidget`` needs there.

    Examples
    --------
    In a notebook (the panel needs a live kernel to be seen and used):

    >>> panel = deletion_test_panel(dataset="ckb8", statistic="lr")  # doctest: +SKIP
    >>> panel  # doctest: +SKIP
    """
    if in_colab() and not in_book_build():
        enable_colab_widgets()
    return DeletionTestPanel(**settings)


__all__ = ["ALPHAS", "DEFAULTS", "DRES", "DeletionTestPanel", "LAMBDAS", "M_STEPS", "deletion_test_panel"]
