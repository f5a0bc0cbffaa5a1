"""A live panel for the GAN chapter (§5.2): label distributions as λ, the data set and B move.

:class:`LabelPanel` redraws the label bars of the pre-trained, re-trained and approximated
models from stored results (no training): for a bound B, Alg. 1 accepts a pre-trained sample y
with probability min(ρ̂_ℰ(y), B) / B, so the approximated model's label distribution is that of
the stored pre-trained samples weighted by min(ρ̂_ℰ, B)
(:func:`gendel.gan.labels.bound_label_distribution`). A redraw takes milliseconds; one that
fails rolls the controls back to the last settings that drew (:class:`!gendel.panels.base.Panel`).

Widgets need a kernel (Jupyter, Binder, Colab); the book shows
:func:`gendel.plotting.gan.bound_slider_figure` instead. Requires the ``widgets`` extra.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

try:
    import ipywidgets as W
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError('gendel.panels.gan needs ipywidgets and anywidget: pip install "gendel[widgets]"') from exc

from gendel.panels.base import Panel
from gendel.gan.labels import bound_label_distribution
from gendel.gan.summaries import group
from gendel.gan.images import CLASS_NAMES
from gendel.plotting.gan import DATASET_NAMES, MODEL_COLORS, MODEL_NAMES, setting_name   # names with <sub>: ρ̂<sub>ℰ</sub>


class LabelPanel(Panel):
    """Controls for the data set, the deletion set (setting and λ) and the bound B, and the bars.

    Parameters
    ----------
    results : list of :class:`~gendel.gan.result_files.JobResult`
        Job results with their arrays (:func:`gendel.gan.result_files.stored_results`); the seeds of a
        deletion set are averaged.
    bound : float
        The initial bound B, in [1, 10] (the slider's range).

    Attributes
    ----------
    settings : dict
        ``dataset``, ``setting``, ``lam`` (the deletion set) and ``bound``.
    figure : plotly.graph_objects.FigureWidget
        The label bars of the pre-trained, re-trained and approximated models.
    status : ipywidgets.HTML
        Empty, or what made the last redraw fail (the controls are then back where they drew).
    last_valid_settings_ : dict
        The settings of the last redraw that worked.

    Examples
    --------
    >>> from gendel.gan.result_files import stored_results
    >>> panel = LabelPanel(stored_results("quick"))    # doctest: +SKIP
    >>> panel.set(bound=1.2)                           # doctest: +SKIP
    >>> panel                                          # doctest: +SKIP
    """

    def __init__(self, results, *, bound=10.0):
        self.groups = {k: rs for k, rs in group(results).items() if all("pre_labels" in r.arrays for r in rs)}
        if not self.groups:
            raise ValueError("no results with stored samples: run the jobs first (gendel.gan.run.run_profile)")
        first = next(iter(self.groups))
        bound = self._check_bound(bound)
        datasets = sorted({k[0] for k in self.groups})
        self._dataset = W.Dropdown(options=[(DATASET_NAMES[d], d) for d in datasets], value=first[0],
                                   description="data set")
        self._deletion = W.Dropdown(options=self._deletions(first[0]), value=first[1:], description="deletion set")
        self._bound = W.FloatLogSlider(value=bound, base=10, min=0, max=1, step=0.01, description="bound B",
                                       continuous_update=False, readout_format=".2f")
        self.controls = {"dataset": self._dataset, "deletion": self._deletion, "bound": self._bound}
        self.status = W.HTML(value="")
        self.figure = go.FigureWidget()
        for k in ("pre", "re", "approx"):
            self.figure.add_bar(x=[], y=[], name=MODEL_NAMES[k], marker_color=MODEL_COLORS[k])
        self.figure.update_layout(barmode="group", height=460, template="plotly_white",
                                  margin=dict(l=60, r=20, t=110, b=40),
                                  legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0))
        self.figure.update_xaxes(title_text="label")
        self.figure.update_yaxes(title_text="fraction of samples", rangemode="tozero")
        self._dataset.observe(self._on_dataset, names="value")
        self._deletion.observe(self._on_change, names="value")
        self._bound.observe(self._on_change, names="value")
        self.widget = W.VBox([W.HBox([self._dataset, self._deletion]), self._bound, self.status, self.figure])
        self._start()

    def set(self, *, dataset=None, setting=None, lam=None, bound=None):
        """Move the controls (as a reader would) and redraw once; returns self.

        A data set without ``setting``/``lam`` shows its first deletion set. A deletion set without
        results or a bound outside [1, 10] raises ``ValueError`` before anything moves; a redraw
        that fails rolls the controls back to :attr:`last_valid_settings_` and raises.
        """
        return super().set(dataset=dataset, setting=setting, lam=lam, bound=bound)

    def redraw(self):
        """Draw the bars of the current controls."""
        self._refresh()

    # ------------------------------------------------------------------ Panel protocol

    def _deletions(self, dataset):
        return [(setting_name(s, lam), (s, lam)) for (d, s, lam) in self.groups if d == dataset]

    @staticmethod
    def _check_bound(bound):
        if not 1.0 <= float(bound) <= 10.0:
            raise ValueError(f"bound must lie in [1, 10] (the slider's range); got {bound}")
        return float(bound)

    def _validate(self, settings):
        given = {k: v for k, v in settings.items() if v is not None}
        now = self.settings
        dataset = given.get("dataset", now["dataset"])
        datasets = [d for _, d in self._dataset.options]
        if dataset not in datasets:
            raise ValueError(f"no results for data set {dataset!r}; choose one of {datasets}")
        deletions = self._deletions(dataset)
        setting, lam = (now["setting"], now["lam"]) if dataset == now["dataset"] else deletions[0][1]
        wanted = (given.get("setting", setting), float(given.get("lam", lam)))
        if (dataset, *wanted) not in self.groups:
            raise ValueError(f"no results for {setting_name(*wanted)} on {dataset}; "
                             f"choose one of {[name for name, _ in deletions]}")
        bound = self._check_bound(given.get("bound", now["bound"]))
        return {"dataset": dataset, "setting": wanted[0], "lam": wanted[1], "bound": bound}

    def _read_controls(self):
        setting, lam = self._deletion.value
        return {"dataset": self._dataset.value, "setting": setting, "lam": lam, "bound": self._bound.value}

    def _write_controls(self, values):
        self._dataset.value = values["dataset"]
        deletions = self._deletions(values["dataset"])
        if list(self._deletion.options) != deletions:
            self._deletion.options = deletions
        self._deletion.value = (values["setting"], values["lam"])
        self._bound.value = values["bound"]

    def _on_dataset(self, change):
        """A new data set from the browser: show its first deletion set, then redraw once."""
        if not self._suspended:
            with self._no_redraw():
                self._deletion.options = self._deletions(change["new"])
                self._deletion.value = self._deletion.options[0][1]
            self._on_change()

    def _closables(self):
        return [*super()._closables(), self.figure]

    def bars(self):
        """The three label distributions and the acceptance rate at the current controls."""
        rs = self.groups[(self._dataset.value, *self._deletion.value)]
        pre = np.mean([np.bincount(r.arrays["pre_labels"], minlength=10) / len(r.arrays["pre_labels"])
                       for r in rs], axis=0)
        re = np.mean([r.distribution("re") for r in rs], axis=0)
        per_seed = [bound_label_distribution(r.arrays["pre_labels"], r.arrays["pre_log_ratio"], self._bound.value)
                    for r in rs]
        approx = np.mean([d for d, _ in per_seed], axis=0)
        return {"pre": pre, "re": re, "approx": approx}, float(np.mean([a for _, a in per_seed]))

    def _refresh(self):
        bars, acceptance = self.bars()
        dataset = self._dataset.value
        names = list(CLASS_NAMES[dataset])
        with self.figure.batch_update():
            for trace, k in zip(self.figure.data, ("pre", "re", "approx")):
                trace.x, trace.y = names, bars[k]
            self.figure.layout.title = (
                f"Label distributions, {DATASET_NAMES[dataset]} {setting_name(*self._deletion.value)}"
                f"<br><sup>bound B = {self._bound.value:.2f}: acceptance rate {acceptance:.1%}</sup>")
        self.status.value = ""


def label_panel(results, **kwargs):
    """A :class:`LabelPanel`, with Colab's widget manager enabled where needed.

    Examples
    --------
    In a notebook, on the stored results of a profile (the panel needs a live kernel):

    >>> from gendel.gan.result_files import stored_results  # doctest: +SKIP
    >>> label_panel(stored_results("gpu"), bound=10.0)  # doctest: +SKIP
    """
    from gendel._environment import enable_colab_widgets, in_book_build, in_colab

    if in_colab() and not in_book_build():
        enable_colab_widgets()
    return LabelPanel(results, **kwargs)
