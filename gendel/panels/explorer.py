"""Live panels for a Jupyter kernel (Jupyter, Binder, Colab): explore §5.1 with sliders.

:class:`ExplorerPanel` puts the synthetic experiment of §5.1 behind a few controls (data set,
lambda, sigma_A, the DRE and its hyper-parameter, seed, number of repeats R) and redraws

- the ratio maps of Fig. 3: the exact ratio rho_hat = p_hat' / p_hat of the KDE learner, the
  estimate rho_hat_E of the chosen DRE and their difference (or log ratio error), on a
  150 x 150 grid;
- the KS statistics of Fig. 4 (questions Q1, Q2, Q3, for LR and each ASC phi) at the current
  setting, and the distributions behind them (Figs. 5 and 6), computed with
  :func:`gendel.synthetic.experiments.synthetic_statistics`.

The settings, the caches and the computations live in :class:`gendel.panels.explorer_state.ExplorerState`
(no widgets needed); this module builds the controls and figures and draws from that state.
A redraw that fails (e.g. a kNN with k larger than its training set) rolls the controls back to
the last settings that worked and says so on the status line (:class:`!gendel.panels.base.Panel`).

Widgets need a kernel: in the static book they are inert, and the book shows a snapshot made
with :meth:`ExplorerPanel.snapshot` instead.

Requires the ``widgets`` extra: ``pip install "gendel[widgets]"`` (ipywidgets and anywidget).
"""

from __future__ import annotations

import sys
import time

import numpy as np
import plotly.graph_objects as go

try:
    import ipywidgets as W
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        'gendel.panels.explorer needs ipywidgets and anywidget: pip install "gendel[widgets]"'
    ) from exc

from gendel.panels.explorer_figures import (build_ks_figure, build_maps_figure, build_stats_figure, draw_distributions,
                                draw_ks, draw_maps)
from gendel.panels.base import ComputesAhead, Panel
from gendel.core.dre import DRE_CHOICES
from gendel.deletion_test.stats import STATISTICS
from gendel.panels.explorer_state import (
    DATASETS,
    DEFAULTS,
    DRES,
    MAP_MODES,
    R_CHOICES,
    RANGES,
    ExplorerState,
    validate_settings,
)
from gendel.synthetic.sampling import QUESTIONS, RATIO_STATISTICS

#: The settings that hold a DRE family's hyper-parameter (each has a slider).
_DRE_PARAMS = tuple(choice.param for choice in DRE_CHOICES.values() if choice.param)


class ExplorerPanel(ComputesAhead, Panel):
    """An ipywidgets panel that reruns the §5.1 experiment as its controls move.

    Parameters
    ----------
    N, m : int
        Training set size and size of each sample set of the deletion test (paper: 400, 400).
    resolution : int
        Grid points per axis of the ratio maps (150: a 150 x 150 grid).
    **settings
        Initial values of the controls, see :data:`~gendel.panels.explorer_state.DEFAULTS`: ``dataset`` ("mog8"/"ckb8"),
        ``lam``, ``sigma_a``, ``dre`` ("kbc", "knn", "logreg"), ``sigma_c``, ``k``, ``seed``,
        ``R`` (repeats of the KS computation, one of 25, 50, 100, 250), ``map_mode``
        ("difference" or "log"), ``statistic`` (whose distributions are drawn: "lr",
        "asc-log", "asc-tlogt", "asc-hellinger", keys of :data:`gendel.deletion_test.stats.STATISTICS`) and ``live_ks`` (recompute the KS statistics on every change).

    Attributes
    ----------
    state : gendel.panels.explorer_state.ExplorerState
        The settings of the last redraw, the caches and the computations behind the figures.
    widget : ipywidgets.VBox
        The panel; display it in a notebook (or display the panel itself).
    controls : dict
        The control widgets by setting name.
    maps_figure : plotly.graph_objects.FigureWidget
        The ratio maps (as in Fig. 3): rho_hat, rho_hat_E and their error.
    ks_figure : plotly.graph_objects.FigureWidget
        The KS statistics of Q1-Q3 for every statistic (Fig. 4 at one setting).
    stats_figure : plotly.graph_objects.FigureWidget
        For the chosen statistic, the two distributions each question compares (Figs. 5 and 6).
    status : ipywidgets.HTML
        What the panel is doing or has done (and any error from the last update).
    grid : tuple (xs, ys, points)
        The grid of the maps; ``points`` has shape (resolution**2, 2) and row ``iy * resolution +
        ix`` is ``(xs[ix], ys[iy])``, so a map's ``z[iy, ix]`` is its value on that row.
    last_ks_ : SyntheticStatistics or None
        The statistics behind the KS figures (None until computed).
    map_error_ : float
        The mean absolute error of the map on show, under p_hat.
    last_valid_settings_ : dict
        The settings of the last redraw that worked (a failed one rolls back to them).

    Examples
    --------
    >>> panel = ExplorerPanel(R=25)             # doctest: +SKIP
    >>> panel.set(dre="knn", k=30).map_error_   # doctest: +SKIP
    >>> panel                                   # doctest: +SKIP
    """

    def __init__(self, *, N=400, m=400, resolution=150, **settings):
        self.state = ExplorerState(N=N, m=m, resolution=resolution, **settings)
        self.last_ks_ = None
        self._drawn, self._ks_status = {}, ""
        self._build_controls(self.state.settings)
        self.maps_figure = go.FigureWidget(build_maps_figure(resolution))
        self.ks_figure = go.FigureWidget(build_ks_figure())
        stats, self._hist_traces = build_stats_figure()
        self.stats_figure = go.FigureWidget(stats)
        self.widget = W.VBox([self._controls_box, self.status, self.maps_figure,
                              W.HBox([self.ks_figure, self.stats_figure])], layout=W.Layout(width="100%"))
        self._start()

    # ------------------------------------------------------------------ public API

    N = property(lambda self: self.state.N, doc="Training set size.")
    m = property(lambda self: self.state.m, doc="Samples per set of the deletion test.")
    resolution = property(lambda self: self.state.resolution, doc="Grid points per axis of the maps.")

    def setup(self):
        """``(X, deleted, exact)`` of the current setting (see :func:`gendel.synthetic.sampling.setup`)."""
        return self._synced().setup()

    def dre(self):
        """The fitted DRE rho_hat_E of the current setting."""
        return self._synced().dre()

    @property
    def grid(self):
        """``(xs, ys, points)`` of the maps for the current data set (see the class docstring)."""
        return self._synced().grid

    def snapshot(self):
        """Static copies of the panel's figures, for pages without a kernel.

        Returns a dict with ``"maps"``, ``"ks"`` and ``"statistics"``: plain
        ``plotly.graph_objects.Figure`` objects with the same data and layout as :attr:`!maps_figure`,
        :attr:`!ks_figure` and :attr:`!stats_figure`, which render in a static HTML page.
        """
        def copy(widget):
            fig = go.Figure(data=[trace.to_plotly_json() for trace in widget.data],
                            layout=widget.layout.to_plotly_json())
            return fig.update_layout(width=None)  # a static page sizes the figure to its column

        return {"maps": copy(self.maps_figure), "ks": copy(self.ks_figure), "statistics": copy(self.stats_figure)}

    def _steps_ahead(self):
        """The next sigma_C (or k) steps: what a key press on that slider reaches."""
        if not self.state.settings["live_ks"]:
            return []
        now = self.state.settings
        return [lambda s={**now, **change}: self.state.prefetch(**s) for change in self.state.neighbours()]

    # ------------------------------------------------------------------ Panel protocol

    _validate = staticmethod(validate_settings)

    def _closables(self):
        return [*super()._closables(), self.maps_figure, self.ks_figure, self.stats_figure]

    def _synced(self):
        """The state, at the controls' values."""
        return self.state.set(**self.settings)

    def _set_status(self, text):
        self.status.value = f"<span style='font-size:0.9em'>{text}</span>"

    # ------------------------------------------------------------------ widgets

    def _build_controls(self, v):
        style = {"description_width": "initial"}
        slider = dict(continuous_update=False, style=style, layout=W.Layout(width="250px"))

        def float_slider(name, description, fmt):
            lo, hi, step = RANGES[name]
            return W.FloatSlider(value=v[name], min=lo, max=hi, step=step, description=description,
                                 readout_format=fmt, **slider)

        def toggles(name, description, options, button_width):
            return W.ToggleButtons(options=[(label, key) for key, label in options.items()], value=v[name],
                                   description=description, style={**style, "button_width": button_width})

        lo, hi, _ = RANGES["k"]
        c = {
            "dataset": toggles("dataset", "data set", DATASETS, "70px"),
            "lam": float_slider("lam", "λ", ".2f"),
            "sigma_a": float_slider("sigma_a", "σ_A", ".3f"),
            "seed": W.BoundedIntText(value=v["seed"], min=RANGES["seed"][0], max=RANGES["seed"][1],
                                     description="seed", style=style, layout=W.Layout(width="150px")),
            "dre": toggles("dre", "DRE", DRES, "140px"),
            "sigma_c": float_slider("sigma_c", "σ_C", ".3f"),
            "k": W.IntSlider(value=v["k"], min=lo, max=hi, step=1, description="k", **slider),
            "map_mode": toggles("map_mode", "error map", MAP_MODES, "130px"),
            "R": W.Dropdown(options=list(R_CHOICES), value=v["R"], description="repeats R",
                            style=style, layout=W.Layout(width="160px")),
            "statistic": W.Dropdown(options=[(STATISTICS[key].label, key) for key in RATIO_STATISTICS],
                                    value=v["statistic"], description="distributions of",
                                    style=style, layout=W.Layout(width="290px")),
            "live_ks": W.Checkbox(value=v["live_ks"], description="update KS on every change", indent=False,
                                  layout=W.Layout(width="220px")),
        }
        self.controls = c
        self.status = W.HTML(value="")
        for control in c.values():
            control.observe(self._on_change, names="value")
        self._controls_box = W.VBox([
            W.HBox([c["dataset"], c["lam"], c["sigma_a"], c["seed"]]),
            W.HBox([c["dre"], *(c[p] for p in _DRE_PARAMS)]),
            W.HBox([c["map_mode"], c["R"], c["statistic"], c["live_ks"]]),
        ])
        self._sync_enabled()

    def _sync_enabled(self):
        """Enable the slider of the chosen DRE's hyper-parameter only."""
        param = DRE_CHOICES[self.controls["dre"].value].param
        for name in _DRE_PARAMS:
            self.controls[name].disabled = name != param

    # ------------------------------------------------------------------ redraw

    def _refresh(self):
        """Bring every figure up to date with the controls, recomputing only what changed.

        The maps go first while the KS statistics are still to be computed; when these are ready
        (cached or computed ahead), their figure goes first: its message is a few kB against the
        maps' few hundred, so the browser shows it at once and the maps right after.
        """
        self._refresh_started()
        self._sync_enabled()
        state = self._synced()
        s = state.settings
        if s["live_ks"] and state.has_statistics():
            self._refresh_ks(state, s)
            self._refresh_maps(state, s)
        else:
            self._refresh_maps(state, s)
            self._refresh_ks(state, s)
        self._set_status(self._ks_status)  # also replaces the error of a failed redraw before this one

    def _refresh_maps(self, state, s):
        map_key = (state.setup_key, state.dre_key, s["map_mode"])
        if self._drawn.get("maps") != map_key:
            maps = state.maps()
            drawn = self._drawn.get("maps")
            draw_maps(self.maps_figure, maps, s, self.N, axes=self._drawn.get("maps_dataset") != s["dataset"],
                      exact=drawn is None or drawn[0] != state.setup_key)
            self._drawn["maps_dataset"] = s["dataset"]
            self.map_error_ = maps.mean_error
            self._drawn["maps"] = map_key

    def _refresh_ks(self, state, s):
        ks_key = state.ks_key
        if not s["live_ks"] and self._drawn.get("ks") != ks_key:
            self._ks_status = ("KS statistics <b>not updated</b>: they belong to an earlier setting (tick "
                               "“update KS on every change” to recompute them); the ratio maps are current.")
        elif self._drawn.get("ks") != ks_key:
            cached = state.has_statistics()
            if not cached:
                self._set_status(f"⏳ <b>computing</b> the KS statistics: R = {s['R']} repeats of "
                                 f"m = {self.m} samples per set …")
            t0 = time.perf_counter()
            result = state.statistics()
            elapsed = time.perf_counter() - t0
            self.last_ks_ = result
            self._ks_settings = s  # the setting the KS figures belong to
            # the bars (y only) first, then the histograms (x and y): one message each (see draw_maps)
            draw_ks(self.ks_figure, result, s["R"], self.m)
            draw_distributions(self.stats_figure, self._hist_traces, s, result)
            self._drawn["ks"] = ks_key
            self._drawn["dist"] = (ks_key, s["statistic"])
            if cached:
                how = "computed ahead while the panel was idle" if ks_key in self._ahead else "from the cache"
            else:
                how = f"in {elapsed:.1f} s"
            self._ks_status = (
                f"KS statistics ready ({how}): R = {s['R']}, m = {self.m}, N = {self.N}, "
                f"N′ = {result.n_deleted} deleted points; acceptance rate of Alg. 1: {result.acceptance_rate:.3f}."
            )
        dist_key = (self._drawn.get("ks"), s["statistic"])
        if self._drawn.get("dist") != dist_key and self.last_ks_ is not None:
            draw_distributions(self.stats_figure, self._hist_traces, {**self._ks_settings, "statistic": s["statistic"]},
                               self.last_ks_)
            self._drawn["dist"] = dist_key


def explore(**settings):
    """Build an :class:`ExplorerPanel` drawn at ``settings`` and return it, ready to display.

    In a notebook, ``explore()`` as the last line of a cell shows the panel. See
    :class:`ExplorerPanel` for the settings. In Google Colab this also enables Colab's custom
    widget manager, which plotly's ``FigureWidget`` needs there.

    Examples
    --------
    In a notebook (the panel needs a live kernel to be seen and used):

    >>> panel = explore(dataset="ckb8", lam=0.7, dre="knn", k=20)  # doctest: +SKIP
    >>> panel.set(sigma_c=0.125)  # doctest: +SKIP
    """
    if "google.colab" in sys.modules:  # pragma: no cover - only in Colab
        from google.colab import output

        output.enable_custom_widget_manager()
    return ExplorerPanel(**settings)


def precomputed_ks_figure(kbc_sweep):
    """A static figure of the panel's KS bars with a plotly slider over sigma_C (KBC).

    ``kbc_sweep`` is a :class:`gendel.synthetic.experiments.Sweep` at one lambda over KBC DREs
    (one per sigma_C); every step of the slider shows one of its runs, so the slider works in a
    static HTML page without a kernel. The slider starts at the sigma_C closest to sigma_A.

    Examples
    --------
    >>> from gendel.core.dre import make_dre
    >>> from gendel.synthetic.experiments import Protocol, sweep
    >>> kbc = sweep(Protocol("mog8", lam=0.8, N=60, m=20, R=25), [make_dre("kbc", s) for s in (0.075, 0.1)],
    ...             cache=False, progress=False)
    >>> len(precomputed_ks_figure(kbc).layout.sliders[0].steps)
    2
    """
    if kbc_sweep.family != "kbc" or len(kbc_sweep.lams) != 1:
        raise ValueError("precomputed_ks_figure needs a sweep at one lambda over KBC DREs, e.g. "
                         "sweep(Protocol('mog8', lam=0.8, R=100), [make_dre('kbc', s) for s in sigma_cs])")
    sigma_cs = [float(s) for s in kbc_sweep.params]
    results = kbc_sweep.results[0]
    p = results[0].protocol
    ks = [{stat: [result.ks[q, stat] for q in QUESTIONS] for stat in RATIO_STATISTICS} for result in results]
    start = int(np.argmin(np.abs(np.asarray(sigma_cs) - p.sigma_a)))
    fig = build_ks_figure()  # the panel's bars, drawn at the slider's start
    for trace, stat in zip(fig.data, RATIO_STATISTICS):
        trace.y = ks[start][stat]
    steps = [
        dict(method="restyle", label=f"{sigma_c:.3f}",
             args=[{"y": [ks[i][stat] for stat in RATIO_STATISTICS]}, list(range(len(RATIO_STATISTICS)))])
        for i, sigma_c in enumerate(sigma_cs)
    ]
    setting = (f"{DATASETS[p.dataset]}, λ = {p.lam:.2f}, σ_A = {p.sigma_a:.3f}, seed {p.seed}, R = {p.R}, m = {p.m}, "
               f"N = {p.N}")
    fig.update_layout(
        width=None, height=480, margin=dict(l=60, r=20, t=95, b=40),
        title_text=f"KS statistics of KBC as σ_C moves (Fig. 4 at one λ)<br><sup>{setting}<br>"
                   "Q1: DRE approximation, Q2: fast deletion, Q3: deletion test</sup>",
        sliders=[dict(active=start, steps=steps, currentvalue=dict(prefix="σ_C = "), pad=dict(t=50))],
        legend=dict(orientation="v", x=1.01, y=1),
    )
    return fig


__all__ = ["DEFAULTS", "ExplorerPanel", "ExplorerState", "RANGES", "explore", "precomputed_ks_figure"]
