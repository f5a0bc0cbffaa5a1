"""Live panels for a Jupyter kernel (Jupyter, Binder, Colab): explore §5.1 with sliders.

:class:`ExplorerPanel` puts the synthetic experiment of §5.1 behind a few controls (data set,
lambda, sigma_A, the DRE and its hyper-parameter, seed, number of repeats R) and redraws

- the ratio maps of Fig. 3: the exact ratio rho_hat = p_hat' / p_hat of the KDE learner, the
  estimate rho_hat_E of the chosen DRE and their difference (or log ratio error), on a
  150 x 150 grid;
- the KS statistics of Fig. 4 (questions Q1, Q2, Q3, for LR and each ASC phi) at the current
  setting, and the distributions behind them (Figs. 5 and 6), computed with
  :func:`gendel.experiments.synthetic_statistics`.

Everything that can be reused between callbacks is cached: the data, the deletion set and the
exact ratio (keyed by data set, lambda, sigma_A and seed), the grid, each fitted DRE with its map,
and each KS result. Moving sigma_C refits only the DRE (a KBC "fit" stores the points) and
re-evaluates its map; the data are not redrawn.

Widgets need a kernel: in the static book they are inert, and the book shows a snapshot made
with :meth:`ExplorerPanel.snapshot` instead.

Requires the ``widgets`` extra: ``pip install "gendel[widgets]"`` (ipywidgets and anywidget).
"""

from __future__ import annotations

import html
import sys
import time
from collections import OrderedDict

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

try:
    import ipywidgets as W
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        'gendel.widgets needs ipywidgets and anywidget: pip install "gendel[widgets]"'
    ) from exc

from . import experiments
from ._validation import check_count, check_lambda, check_positive
from .data import EXTENT, LABELS, check_dataset
from .dre import ClassifierDRE, KernelClassifierDRE, KNNClassifierDRE
from .experiments import QUESTIONS, STATISTICS, grid
from .plotting.common import COLORS, STAT_COLORS, STAT_LABELS, STAT_SHORT
from .plotting.maps import RATIO_ZMAX, ratio_colorscale, ratio_heatmap, square_axes

#: Choices of the panel's drop-downs and toggles: value -> label.
DATASETS = LABELS
DRES = {"kbc": "KBC (σ_C)", "knn": "kNN (k)", "logreg": "logistic regression"}
MAP_MODES = {"difference": "ρ̂_E − ρ̂", "log": "log ρ̂_E − log ρ̂"}
R_CHOICES = (25, 50, 100, 250)

#: Ranges of the sliders (min, max, step). Values set through :meth:`ExplorerPanel.set` must lie
#: in these ranges; they need not lie on a step.
RANGES = {
    "lam": (0.5, 0.9, 0.01),
    "sigma_a": (0.02, 0.3, 0.005),
    "sigma_c": (0.02, 0.3, 0.005),
    "k": (1, 100, 1),
    "seed": (0, 10_000, 1),
}

#: The panel's defaults: the paper's setting of Figs. 3-6 (MoG-8, lambda = 0.8, sigma_A = 0.1,
#: KBC with sigma_C = sigma_A) with R = 100 repeats instead of 250, so one update takes ~1 s.
DEFAULTS = dict(dataset="mog8", lam=0.8, sigma_a=0.1, dre="kbc", sigma_c=0.1, k=10, seed=0, R=100,
                map_mode="log", statistic="LR", live_ks=True)

#: Width in pixels of the panel's figures in a live notebook (static snapshots fill their column).
LIVE_WIDTH = 980

#: Colour-bar limits of the error map, per mode: differences outside are drawn at the ends.
ERROR_LIMITS = {"difference": 0.5, "log": 1.5}

#: The five (sample, ratio) distributions the three questions compare (experiments.KEYS),
#: drawn in the paper's colours; rho_hat_E is hatched.
_SAMPLE_LABEL = {"H0": "Y_H0", "H1": "Y_H1", "D": "Y_D"}
_RATIO_LABEL = {"exact": "ρ̂", "dre": "ρ̂_E"}

#: The error map's diverging scale on [-limit, limit], white at 0: the ratio scale on [0, 2].
_ERROR_SCALE = ratio_colorscale(2.0)


def make_dre(kind, *, sigma_c=0.1, k=10):
    """The unfitted DRE the panel uses for a choice of ``kind`` ("kbc", "knn" or "logreg")."""
    if kind == "kbc":
        return KernelClassifierDRE(sigma_c)
    if kind == "knn":
        return KNNClassifierDRE(k)
    if kind == "logreg":
        from sklearn.linear_model import LogisticRegression

        return ClassifierDRE(LogisticRegression())
    raise ValueError(f"dre must be one of {tuple(DRES)}; got {kind!r}")


def describe_dre(kind, *, sigma_c=0.1, k=10):
    """A short label of a DRE choice, e.g. "KBC, σ_C = 0.100"."""
    if kind == "kbc":
        return f"KBC, σ_C = {sigma_c:.3f}"
    if kind == "knn":
        return f"kNN, k = {k}"
    return "logistic regression"


class _LRU(OrderedDict):
    """A small least-recently-used cache."""

    def __init__(self, maxsize):
        super().__init__()
        self.maxsize = maxsize

    def get_or_compute(self, key, compute):
        if key in self:
            self.move_to_end(key)
            return self[key]
        value = compute()
        self[key] = value
        if len(self) > self.maxsize:
            self.popitem(last=False)
        return value


def _weighted_abs_mean(values, log_weights):
    """sum_i w_i |v_i| / sum_i w_i with w = exp(log_weights); inf when a weighted value is infinite."""
    w = np.exp(log_weights - log_weights.max())
    a = np.abs(values)
    if np.any(np.isinf(a) & (w > 0)):
        return float("inf")
    return float(np.sum(w * np.where(np.isinf(a), 0.0, a)) / np.sum(w))


class ExplorerPanel:
    """An ipywidgets panel that reruns the §5.1 experiment as its controls move.

    Parameters
    ----------
    N, m : int
        Training set size and size of each sample set of the deletion test (paper: 400, 400).
    resolution : int
        Grid points per axis of the ratio maps (150: a 150 x 150 grid).
    **settings
        Initial values of the controls, see :attr:`DEFAULTS`: ``dataset`` ("mog8"/"ckb8"),
        ``lam``, ``sigma_a``, ``dre`` ("kbc", "knn", "logreg"), ``sigma_c``, ``k``, ``seed``,
        ``R`` (repeats of the KS computation, one of 25, 50, 100, 250), ``map_mode``
        ("difference" or "log"), ``statistic`` (whose distributions are drawn: "LR", "log",
        "tlogt", "hellinger") and ``live_ks`` (recompute the KS statistics on every change).

    Attributes
    ----------
    widget : ipywidgets.VBox
        The panel; display it in a notebook (or display the panel itself).
    controls : dict
        The control widgets by setting name.
    maps_figure : plotly.graph_objects.FigureWidget
        The ratio maps (as in Fig. 3): rho_hat, rho_hat_E and their error.
    stats_figure : plotly.graph_objects.FigureWidget
        The KS statistics of Q1-Q3 for every statistic (Fig. 4 at one setting) and, for the
        chosen statistic, the two distributions each question compares (Figs. 5 and 6).
    status : ipywidgets.HTML
        What the panel is doing or has done (and any error from the last update).
    grid : tuple (xs, ys, points)
        The grid of the maps; ``points`` has shape (resolution**2, 2) and row ``iy * resolution +
        ix`` is ``(xs[ix], ys[iy])``, so a map's ``z[iy, ix]`` is its value on that row.
    n_setups_, n_dre_fits_, n_ks_runs_ : int
        How many times the panel drew the data and fitted the exact ratio, fitted a DRE and
        ran the KS computation (the caches make these smaller than the number of updates).
    last_ks_ : SyntheticStatistics or None
        The statistics behind the KS figures (None until computed).
    """

    def __init__(self, *, N=400, m=400, resolution=150, **settings):
        self.N = check_count(N, "N", minimum=2)
        self.m = check_count(m, "m")
        self.resolution = check_count(resolution, "resolution", minimum=2)
        values = dict(DEFAULTS)
        values.update(self._validate(settings))
        self._setups = _LRU(8)
        self._dres = _LRU(16)
        self._ks = _LRU(32)
        self._grids = {}
        self.n_setups_ = self.n_dre_fits_ = self.n_ks_runs_ = 0
        self.last_ks_ = None
        self._drawn = {}
        self._suspended = True
        self._build_controls(values)
        self._build_figures()
        self.widget = W.VBox(
            [self._controls_box, self.status, self.maps_figure, self.stats_figure],
            layout=W.Layout(width="100%"),
        )
        self._suspended = False
        self._refresh()

    # ------------------------------------------------------------------ public API

    @property
    def settings(self):
        """The current values of all controls, as a dict."""
        return {name: control.value for name, control in self.controls.items()}

    def set(self, **settings):
        """Change one or more controls and redraw once, e.g. ``panel.set(lam=0.6, sigma_c=0.12)``.

        Raises ``TypeError`` for an unknown setting or a value of the wrong type and
        ``ValueError`` for a value outside the control's range; nothing changes then.
        Returns self.
        """
        values = self._validate(settings)
        self._suspended = True
        try:
            for name, value in values.items():
                self.controls[name].value = value
        finally:
            self._suspended = False
        self._refresh()
        return self

    def setup(self):
        """``(X, deleted, exact)`` of the current setting (see :func:`gendel.experiments.setup`)."""
        return self._setup(self._setup_key(self.settings))["data"]

    def dre(self):
        """The fitted DRE rho_hat_E of the current setting."""
        s = self.settings
        return self._dre(self._setup_key(s), self._dre_key(s))["dre"]

    @property
    def grid(self):
        """``(xs, ys, points)`` of the maps for the current data set (see the class docstring)."""
        return self._grid(self.controls["dataset"].value)

    def snapshot(self):
        """Static copies of the panel's figures, for pages without a kernel.

        Returns a dict with ``"maps"`` and ``"statistics"``: plain ``plotly.graph_objects.Figure``
        objects with the same data and layout as :attr:`maps_figure` and :attr:`stats_figure`,
        which render in a static HTML page.
        """
        def copy(widget):
            fig = go.Figure(data=[trace.to_plotly_json() for trace in widget.data],
                            layout=widget.layout.to_plotly_json())
            return fig.update_layout(width=None)  # a static page sizes the figure to its column

        return {"maps": copy(self.maps_figure), "statistics": copy(self.stats_figure)}

    def close(self):
        """Close every widget of the panel (frees the front-end views)."""
        self.widget.close()
        for w in [*self.controls.values(), self.maps_figure, self.stats_figure, self.status]:
            w.close()

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

    # ------------------------------------------------------------------ validation

    def _validate(self, settings):
        out = {}
        for name, value in settings.items():
            if name not in DEFAULTS:
                raise TypeError(f"unknown setting {name!r}; the panel's settings are {tuple(DEFAULTS)}")
            if name == "dataset":
                value = check_dataset(value)
            elif name == "dre":
                if value not in DRES:
                    raise ValueError(f"dre must be one of {tuple(DRES)}; got {value!r}")
            elif name == "map_mode":
                if value not in MAP_MODES:
                    raise ValueError(f"map_mode must be one of {tuple(MAP_MODES)}; got {value!r}")
            elif name == "statistic":
                if value not in STATISTICS:
                    raise ValueError(f"statistic must be one of {STATISTICS}; got {value!r}")
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
            out[name] = value
        return out

    # ------------------------------------------------------------------ widgets

    def _build_controls(self, v):
        style = {"description_width": "initial"}
        slider = dict(continuous_update=False, style=style, layout=W.Layout(width="250px"))

        def float_slider(name, description, fmt):
            lo, hi, step = RANGES[name]
            return W.FloatSlider(value=v[name], min=lo, max=hi, step=step, description=description,
                                 readout_format=fmt, **slider)

        lo, hi, _ = RANGES["k"]
        c = {
            "dataset": W.ToggleButtons(options=[(label, key) for key, label in DATASETS.items()],
                                       value=v["dataset"], description="data set",
                                       style={"description_width": "initial", "button_width": "70px"}),
            "lam": float_slider("lam", "λ", ".2f"),
            "sigma_a": float_slider("sigma_a", "σ_A", ".3f"),
            "seed": W.BoundedIntText(value=v["seed"], min=RANGES["seed"][0], max=RANGES["seed"][1],
                                     description="seed", style=style, layout=W.Layout(width="150px")),
            "dre": W.ToggleButtons(options=[(label, key) for key, label in DRES.items()], value=v["dre"],
                                   description="DRE", style={"description_width": "initial", "button_width": "140px"}),
            "sigma_c": float_slider("sigma_c", "σ_C", ".3f"),
            "k": W.IntSlider(value=v["k"], min=lo, max=hi, step=1, description="k", **slider),
            "map_mode": W.ToggleButtons(options=[(label, key) for key, label in MAP_MODES.items()],
                                        value=v["map_mode"], description="error map",
                                        style={"description_width": "initial", "button_width": "130px"}),
            "R": W.Dropdown(options=list(R_CHOICES), value=v["R"], description="repeats R",
                            style=style, layout=W.Layout(width="160px")),
            "statistic": W.Dropdown(options=[(label, key) for key, label in STAT_LABELS.items()],
                                    value=v["statistic"], description="distributions of",
                                    style=style, layout=W.Layout(width="290px")),
            "live_ks": W.Checkbox(value=v["live_ks"], description="update KS on every change", indent=False,
                                  layout=W.Layout(width="220px")),
        }
        self.controls = c
        self.status = W.HTML(value="")
        for name, control in c.items():
            control.observe(self._on_change, names="value")
        self._controls_box = W.VBox([
            W.HBox([c["dataset"], c["lam"], c["sigma_a"], c["seed"]]),
            W.HBox([c["dre"], c["sigma_c"], c["k"]]),
            W.HBox([c["map_mode"], c["R"], c["statistic"], c["live_ks"]]),
        ])
        self._sync_enabled()

    def _sync_enabled(self):
        kind = self.controls["dre"].value
        self.controls["sigma_c"].disabled = kind != "kbc"
        self.controls["k"].disabled = kind != "knn"

    def _on_change(self, change):
        if self._suspended:
            return
        try:
            self._refresh()
        except Exception as exc:  # shown in the panel: a callback's exception is invisible otherwise
            self._set_status(f"<b style='color:#B00020'>Error:</b> {html.escape(str(exc))}")

    def _set_status(self, text):
        self.status.value = f"<span style='font-size:0.9em'>{text}</span>"

    # ------------------------------------------------------------------ figures

    def _build_figures(self):
        n = self.resolution
        empty = np.ones((n, n), dtype=np.float32)
        xs = ys = np.linspace(0.0, 1.0, n)
        maps = make_subplots(rows=1, cols=3, subplot_titles=("ρ̂", "ρ̂_E", "error"), horizontal_spacing=0.1)
        maps.add_trace(ratio_heatmap(xs, ys, empty, zmax=RATIO_ZMAX, showscale=False, name="ρ̂"), row=1, col=1)
        maps.add_trace(ratio_heatmap(xs, ys, empty, zmax=RATIO_ZMAX, name="ρ̂_E", colorbar_title="ratio"), row=1, col=2)
        maps.add_trace(go.Heatmap(x=xs, y=ys, z=0 * empty, colorscale=_ERROR_SCALE, zmin=-1.0, zmax=1.0, name="error",
                                  colorbar=dict(thickness=12, len=0.8, x=1.0, xanchor="left", title=dict(text="error")),
                                  hovertemplate="x=%{x:.2f}<br>y=%{y:.2f}<br>error=%{z:.3f}<extra></extra>"),
                       row=1, col=3)
        maps.data[1].colorbar.update(x=maps.layout.xaxis2.domain[1] + 0.005, xanchor="left")
        # The ratio colour bar sits in the gap before the error map: its y ticks and title would collide
        # with the bar's, and the window is that of the other two maps.
        maps.update_yaxes(showticklabels=False, row=1, col=3)
        maps.update_layout(template="plotly_white", width=LIVE_WIDTH, height=400, margin=dict(l=50, r=30, t=100, b=45),
                           title=dict(text="Ratio maps", font_size=14))
        self.maps_figure = go.FigureWidget(maps)

        # KS bars (column 1) and the distributions behind them (columns 2-4). Histograms are bar
        # traces drawn over each other, so the KS bars are placed by hand (offset and width)
        # instead of by barmode="group".
        stats = make_subplots(rows=1, cols=4, horizontal_spacing=0.075,
                              subplot_titles=["KS statistics"] + list(QUESTIONS))
        width = 0.8 / len(STATISTICS)
        for i, stat in enumerate(STATISTICS):
            stats.add_bar(x=list(range(len(QUESTIONS))), y=[0.0] * len(QUESTIONS), offset=-0.4 + i * width,
                          width=width, name=STAT_SHORT[stat], marker_color=STAT_COLORS[stat], legend="legend",
                          customdata=list(QUESTIONS),
                          hovertemplate="%{customdata}: KS = %{y:.3f}<extra>" + STAT_SHORT[stat] + "</extra>",
                          row=1, col=1)
        stats.update_xaxes(tickvals=list(range(len(QUESTIONS))), ticktext=list(QUESTIONS), range=[-0.5, 2.5],
                           title_text="question", row=1, col=1)
        stats.update_yaxes(range=[0, 1], title_text="KS statistic", row=1, col=1)
        shown = set()
        self._hist_traces = {}
        for col, (q, pair) in enumerate(QUESTIONS.items(), start=2):
            for key in pair:
                sample, ratio = key
                self._hist_traces[q, key] = len(stats.data)
                stats.add_bar(
                    x=[0.0], y=[0], name=f"{_SAMPLE_LABEL[sample]} with {_RATIO_LABEL[ratio]}", legend="legend2",
                    legendgroup=f"{sample}|{ratio}", showlegend=key not in shown, opacity=0.6,
                    marker=dict(color=COLORS[sample], line_width=0, pattern_shape="/" if ratio == "dre" else ""),
                    hovertemplate="%{x:.4f}: %{y} repeats<extra></extra>", row=1, col=col,
                )
                shown.add(key)
            stats.update_yaxes(title_text="repeats" if col == 2 else None, row=1, col=col)
            stats.update_xaxes(nticks=4, row=1, col=col)
        stats.update_layout(
            template="plotly_white", barmode="overlay", bargap=0, width=LIVE_WIDTH, height=555,
            # The title (three lines once drawn) hangs from the top of the figure, under the mode
            # bar and clear of the two-line subplot titles above the panels.
            margin=dict(l=50, r=20, t=140, b=165),
            title=dict(text="KS statistics and the distributions behind them", font_size=14, y=1.0, yref="container",
                       yanchor="top", pad=dict(t=24)),
            # Two vertical legends under the panels: horizontal ones would widen the right margin
            # instead of wrapping on narrow pages.
            legend=dict(orientation="v", x=0.0, xanchor="left", y=-0.19, yanchor="top", font_size=11),
            legend2=dict(orientation="v", x=0.3, xanchor="left", y=-0.19, yanchor="top", font_size=11,
                         tracegroupgap=0),
        )
        self.stats_figure = go.FigureWidget(stats)

    # ------------------------------------------------------------------ computation (cached)

    @staticmethod
    def _setup_key(s):
        return (s["dataset"], float(s["lam"]), float(s["sigma_a"]), int(s["seed"]))

    @staticmethod
    def _dre_key(s):
        if s["dre"] == "kbc":
            return ("kbc", float(s["sigma_c"]))
        if s["dre"] == "knn":
            return ("knn", int(s["k"]))
        return ("logreg",)

    def _grid(self, dataset):
        if dataset not in self._grids:
            self._grids[dataset] = grid(EXTENT[dataset], self.resolution)
        return self._grids[dataset]

    def _setup(self, key):
        def compute():
            dataset, lam, sigma_a, seed = key
            X, deleted, exact = experiments.setup(dataset, lam, N=self.N, sigma_a=sigma_a, seed=seed)
            _, _, points = self._grid(dataset)
            self.n_setups_ += 1
            return {
                "data": (X, deleted, exact),
                "log_ratio": exact.log_ratio(points),  # log rho_hat on the grid
                "log_p": exact.pretrained_.log_prob(points),  # log p_hat on the grid (error weights)
            }

        return self._setups.get_or_compute(key, compute)

    @staticmethod
    def _make_dre(dre_key):
        kind, *param = dre_key
        if kind == "kbc":
            return make_dre(kind, sigma_c=param[0])
        if kind == "knn":
            return make_dre(kind, k=param[0])
        return make_dre(kind)

    def _dre(self, setup_key, dre_key):
        def compute():
            X, deleted, _ = self._setup(setup_key)["data"]
            dre = self._make_dre(dre_key).fit(X, deleted)
            _, _, points = self._grid(setup_key[0])
            self.n_dre_fits_ += 1
            return {"dre": dre, "log_ratio": dre.log_ratio(points)}

        return self._dres.get_or_compute((setup_key, dre_key), compute)

    def _statistics(self, setup_key, dre_key, R):
        def compute():
            dataset, lam, sigma_a, seed = setup_key
            result = experiments.synthetic_statistics(dataset, lam, self._make_dre(dre_key), N=self.N, m=self.m,
                                                      R=R, sigma_a=sigma_a, seed=seed)
            self.n_ks_runs_ += 1
            return result

        return self._ks.get_or_compute((setup_key, dre_key, R), compute)

    # ------------------------------------------------------------------ redraw

    def _refresh(self):
        """Bring every figure up to date with the controls, recomputing only what changed."""
        self._sync_enabled()
        s = self.settings
        setup_key, dre_key = self._setup_key(s), self._dre_key(s)
        map_key = (setup_key, dre_key, s["map_mode"])
        if self._drawn.get("maps") != map_key:
            self._draw_maps(s, setup_key, dre_key)
            self._drawn["maps"] = map_key
        ks_key = (setup_key, dre_key, s["R"])
        if not s["live_ks"] and self._drawn.get("ks") != ks_key:
            self._set_status("KS statistics <b>not updated</b>: they belong to an earlier setting (tick "
                             "“update KS on every change” to recompute them); the ratio maps are current.")
        elif self._drawn.get("ks") != ks_key:
            cached = (ks_key in self._ks)
            if not cached:
                self._set_status(f"⏳ <b>computing</b> the KS statistics: R = {s['R']} repeats of "
                                 f"m = {self.m} samples per set …")
            t0 = time.perf_counter()
            result = self._statistics(setup_key, dre_key, s["R"])
            elapsed = time.perf_counter() - t0
            self.last_ks_ = result
            self._ks_settings = dict(s)  # the setting the KS figures belong to
            self._draw_ks(s, result)
            self._drawn["ks"] = ks_key
            self._drawn["dist"] = None
            how = "from the cache" if cached else f"in {elapsed:.1f} s"
            self._set_status(
                f"KS statistics ready ({how}): R = {s['R']}, m = {self.m}, N = {self.N}, "
                f"N′ = {result.n_deleted} deleted points; acceptance rate of Alg. 1: {result.acceptance_rate:.3f}."
            )
        dist_key = (self._drawn.get("ks"), s["statistic"])
        if self._drawn.get("dist") != dist_key and self.last_ks_ is not None:
            self._draw_distributions({**self._ks_settings, "statistic": s["statistic"]}, self.last_ks_)
            self._drawn["dist"] = dist_key

    def _setting_text(self, s):
        return (f"{DATASETS[s['dataset']]}, λ = {s['lam']:.2f}, σ_A = {s['sigma_a']:.3f}, "
                f"{describe_dre(s['dre'], sigma_c=s['sigma_c'], k=s['k'])}, seed {s['seed']}")

    def _draw_maps(self, s, setup_key, dre_key):
        # Each trace is updated on its own: a batch_update that edits traces on different keys
        # sends null for the keys a trace did not change (plotly 7.1 FigureWidget), which loses
        # the colour range of the untouched traces in the browser.
        setup = self._setup(setup_key)
        fitted = self._dre(setup_key, dre_key)
        xs, ys, _ = self._grid(s["dataset"])
        n = self.resolution
        log_exact, log_est = setup["log_ratio"], fitted["log_ratio"]
        if s["map_mode"] == "log":
            with np.errstate(invalid="ignore"):
                err = log_est - log_exact
            err_label, err_title = "log ρ̂_E − log ρ̂", "log error"
        else:
            err = np.exp(log_est) - np.exp(log_exact)
            err_label, err_title = "ρ̂_E − ρ̂", "difference"
        mean_err = _weighted_abs_mean(err, setup["log_p"])
        limit = ERROR_LIMITS[s["map_mode"]]
        shown_err = np.clip(np.nan_to_num(err, nan=0.0, neginf=-limit, posinf=limit), -limit, limit)
        mean_text = "∞" if np.isinf(mean_err) else f"{mean_err:.3f}"
        titles = (
            f"ρ̂ = p̂′/p̂ (exact, σ_A = {s['sigma_a']:.3f})",
            f"ρ̂_E ({describe_dre(s['dre'], sigma_c=s['sigma_c'], k=s['k'])})",
            f"{err_label}<br><sup>mean |·| under p̂: {mean_text}</sup>",
        )
        fig = self.maps_figure
        for trace, log_r in zip(fig.data[:2], (log_exact, log_est)):
            trace.update(x=xs, y=ys, z=np.exp(log_r).reshape(n, n).astype(np.float32))
        fig.data[2].update(x=xs, y=ys, z=shown_err.reshape(n, n).astype(np.float32), zmin=-limit, zmax=limit,
                           colorbar_title_text=err_title)
        with fig.batch_update():
            for annotation, text in zip(fig.layout.annotations, titles):
                annotation.update(text=text, font_size=13)
            fig.layout.title.text = (f"Ratio maps as in Fig. 3<br><sup>{self._setting_text(s)} · N = {self.N}, "
                                     f"{n} × {n} grid</sup>")
            square_axes(fig, s["dataset"], rows=1, cols=3, y_title_cols=(1, 2))
        self.map_error_ = mean_err

    def _draw_ks(self, s, result):
        fig = self.stats_figure
        for trace, stat in zip(fig.data[: len(STATISTICS)], STATISTICS):
            trace.y = [result.ks[q, stat] for q in QUESTIONS]
        fig.layout.annotations[0].text = f"KS statistics<br><sup>R = {s['R']}, m = {self.m}</sup>"

    def _draw_distributions(self, s, result):
        stat = s["statistic"]
        values = result.values[stat]
        fig = self.stats_figure
        titles = []
        for col, (q, pair) in enumerate(QUESTIONS.items(), start=2):
            finite = [values[key][np.isfinite(values[key])] for key in pair]
            dropped = sum(values[key].size for key in pair) - sum(f.size for f in finite)
            both = np.concatenate(finite)
            if both.size == 0:
                both = np.zeros(1)
            lo, hi = float(both.min()), float(both.max())
            if hi - lo < 1e-12:
                lo, hi = lo - 0.5e-3, hi + 0.5e-3
            edges = np.linspace(lo, hi, 26)
            for key, f in zip(pair, finite):
                counts, _ = np.histogram(f, bins=edges)
                fig.data[self._hist_traces[q, key]].update(x=0.5 * (edges[:-1] + edges[1:]), y=counts,
                                                           width=edges[1] - edges[0])
            extra = f", {dropped} at −∞ not drawn" if dropped else ""
            titles.append(f"{q}<br><sup>KS = {result.ks[q, stat]:.3f}{extra}</sup>")
        with fig.batch_update():
            for annotation, text in zip(fig.layout.annotations[1:], titles):
                annotation.text = text
            for col in range(2, 5):
                fig.update_xaxes(title_text=STAT_LABELS[stat], row=1, col=col)
            fig.layout.title.text = (f"KS statistics (as in Fig. 4) and the distributions behind them (Figs. 5, 6)<br>"
                                     f"<sup>Q1 DRE approximation, Q2 fast deletion, Q3 deletion test · "
                                     f"histograms of {STAT_LABELS[stat]} over R = {s['R']} repeats<br>"
                                     f"{self._setting_text(s)}</sup>")


def explore(**settings):
    """Build an :class:`ExplorerPanel` drawn at ``settings`` and return it, ready to display.

    In a notebook, ``explore()`` as the last line of a cell shows the panel. See
    :class:`ExplorerPanel` for the settings. In Google Colab this also enables Colab's custom
    widget manager, which plotly's ``FigureWidget`` needs there.
    """
    if "google.colab" in sys.modules:  # pragma: no cover - only in Colab
        from google.colab import output

        output.enable_custom_widget_manager()
    return ExplorerPanel(**settings)


def precomputed_ks_figure(sigma_cs, *, dataset="mog8", lam=0.8, sigma_a=0.1, seed=0, R=100, N=400, m=400):
    """A static figure of the panel's KS bars with a plotly slider over sigma_C (KBC).

    Every step is computed here with :func:`gendel.experiments.synthetic_statistics`, so the
    slider works in a static HTML page without a kernel.
    """
    sigma_cs = [check_positive(v, "sigma_c") for v in sigma_cs]
    if not sigma_cs:
        raise ValueError("sigma_cs must hold at least one bandwidth")
    ks = []
    for sigma_c in sigma_cs:
        result = experiments.synthetic_statistics(dataset, lam, KernelClassifierDRE(sigma_c), N=N, m=m, R=R,
                                                  sigma_a=sigma_a, seed=seed)
        ks.append({stat: [result.ks[q, stat] for q in QUESTIONS] for stat in STATISTICS})
    start = int(np.argmin(np.abs(np.asarray(sigma_cs) - sigma_a)))
    fig = go.Figure()
    for stat in STATISTICS:
        fig.add_bar(x=list(QUESTIONS), y=ks[start][stat], name=STAT_SHORT[stat], marker_color=STAT_COLORS[stat],
                    hovertemplate="%{x}: KS = %{y:.3f}<extra>" + STAT_SHORT[stat] + "</extra>")
    steps = [
        dict(method="restyle", label=f"{sigma_c:.3f}",
             args=[{"y": [ks[i][stat] for stat in STATISTICS]}, list(range(len(STATISTICS)))])
        for i, sigma_c in enumerate(sigma_cs)
    ]
    setting = f"{DATASETS[check_dataset(dataset)]}, λ = {lam:.2f}, σ_A = {sigma_a:.3f}, seed {seed}, R = {R}, m = {m}, N = {N}"
    fig.update_layout(
        template="plotly_white", barmode="group", height=480, margin=dict(l=60, r=20, t=80, b=40),
        title=dict(text=f"KS statistics of KBC as σ_C moves (Fig. 4 at one λ)<br><sup>{setting}</sup>", font_size=14),
        sliders=[dict(active=start, steps=steps, currentvalue=dict(prefix="σ_C = "), pad=dict(t=50))],
        legend=dict(orientation="v", x=1.01, y=1),
    )
    fig.update_xaxes(title_text="question (Q1: DRE approximation, Q2: fast deletion, Q3: deletion test)")
    fig.update_yaxes(title_text="KS statistic", range=[0, 1])
    return fig


__all__ = ["DEFAULTS", "ExplorerPanel", "RANGES", "explore", "make_dre", "precomputed_ks_figure"]
