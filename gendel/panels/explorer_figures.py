"""The figures of the explorer panel (:class:`gendel.panels.explorer.ExplorerPanel`), built and drawn.

``build_*`` make the empty figures (plain ``plotly.graph_objects.Figure``; the panel wraps them in
``FigureWidget``), ``draw_*`` fill them from :class:`gendel.panels.explorer_state.ExplorerState`'s results.
Each works on a ``Figure`` and a ``FigureWidget`` alike; nothing here imports ipywidgets.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from gendel.deletion_test.stats import STATISTICS
from gendel.synthetic.sampling import QUESTIONS, RATIO_STATISTICS
from gendel.panels.explorer_state import describe_dre, describe_settings
from gendel.plotting.common import STAT_COLORS, plotly_text, readable_figure, rgba
from gendel.plotting.maps import RATIO_ZMAX, ratio_colorscale, ratio_heatmap, square_axes
from gendel.plotting.synthetic.settings import sample_color

#: Width in pixels of the panel's figures in a live notebook (static snapshots fill their column).
LIVE_WIDTH = 980
#: Width of the KS bars' figure, left of the histograms (together LIVE_WIDTH).
KS_WIDTH = 300

#: The five (sample, ratio) distributions the three questions compare (experiments.KEYS), drawn
#: in the paper's colours as on the chapter's other pages (sample_color: in Q1, where both sides
#: are Y_H0, the side scored with rho_hat_E is dark brown). The first side of a question is
#: filled with a pale tint, the second is an outline only, so that overlapping histograms keep
#: their two colours instead of mixing into a third.
_SAMPLE_LABEL = {"H0": "Y_H0", "H1": "Y_H1", "D": "Y_D"}
_RATIO_LABEL = {"exact": "ρ̂", "dre": "ρ̂_ℰ"}

#: The error map's diverging scale on [-limit, limit], white at 0: the ratio scale on [0, 2].
_ERROR_SCALE = ratio_colorscale(2.0)

#: The error map's colour range is ±(this quantile of |error| over the grid's finite values).
_ERROR_QUANTILE = 0.95


def error_range(error, cap):
    """The error map's colour limit: ±(95th percentile of the finite |error|), at most ``cap``.

    The error map is kept (it shows where rho_hat_E misses rho_hat, which the two ratio maps show
    only side by side), but on a fixed range a small error is one flat near-white field that reads
    as an empty figure. Its range therefore follows the bulk of the data, symmetric around 0 and
    labelled on the colour bar: an exact DRE (KBC with sigma_C = sigma_A) shows its rounding
    noise with ±1e-15 on the bar, a poor one its typical errors. The largest 5 % (the tails far
    from the data, where both ratios are extrapolated) and infinite values (a ratio 0) are drawn
    at the ends of the range; the range is at most ``cap``, and an all-zero error keeps ±``cap``.

    Examples
    --------
    >>> float(error_range(np.r_[np.full(200, -1e-15), 5.0, np.inf], cap=3.0))   # the bulk, not the outlier
    1e-15
    >>> float(error_range(np.array([0.5, -10.0] * 100), cap=3.0)), float(error_range(np.zeros(4), cap=3.0))
    (3.0, 3.0)
    """
    finite = np.abs(np.asarray(error, dtype=float))
    finite = finite[np.isfinite(finite)]
    bulk = float(np.quantile(finite, _ERROR_QUANTILE)) if finite.size else 0.0
    return min(bulk, float(cap)) if bulk > 0 else float(cap)


def hist_look(question, key, *, first):
    """``(outline colour, fill, outline width)`` of the histogram of one side of ``question``.

    The colour is :func:`gendel.plotting.synthetic.sample_color`'s; the first side of a question
    gets a pale fill (opacity :data:`HIST_FILL`), the second none and a wider outline. Each
    histogram is a step outline in that colour.

    Examples
    --------
    >>> look = hist_look("Q2", ("H1", "exact"), first=True)   # re-trained green, pale fill
    >>> look[0] == sample_color("Q2", ("H1", "exact")), look[1:]
    (True, ('rgba(0, 158, 115, 0.18)', 1.2))
    >>> hist_look("Q1", ("H0", "dre"), first=False)
    ('#7A4A00', 'rgba(0, 0, 0, 0)', 2.0)
    """
    colour = sample_color(question, key)
    return (colour, rgba(colour, HIST_FILL), 1.2) if first else (colour, "rgba(0, 0, 0, 0)", 2.0)


#: Opacity of the pale fill of a question's first histogram (the second is an outline only).
HIST_FILL = 0.18


def build_maps_figure(n):
    """The empty figure of the three ratio maps (as in Fig. 3) on an ``n`` x ``n`` grid.

    Examples
    --------
    >>> fig = build_maps_figure(5)
    >>> [t.name for t in fig.data], fig.data[0].z.shape
    (['ρ̂', 'ρ̂<sub>ℰ</sub>', 'error'], (5, 5))
    """
    empty = np.ones((n, n), dtype=np.float32)
    xs = ys = np.linspace(0.0, 1.0, n)
    maps = make_subplots(rows=1, cols=3, subplot_titles=("ρ̂", "ρ̂_ℰ", "error"), horizontal_spacing=0.1)
    maps.add_trace(ratio_heatmap(xs, ys, empty, zmax=RATIO_ZMAX, showscale=False, name="ρ̂"), row=1, col=1)
    maps.add_trace(ratio_heatmap(xs, ys, empty, zmax=RATIO_ZMAX, name="ρ̂_ℰ", colorbar_title="ratio"), row=1, col=2)
    maps.add_trace(go.Heatmap(x=xs, y=ys, z=0 * empty, colorscale=_ERROR_SCALE, zmin=-1.0, zmax=1.0, name="error",
                              colorbar=dict(thickness=12, len=0.8, x=1.0, xanchor="left", title=dict(text="error"),
                                            exponentformat="e"),
                              hovertemplate="x=%{x:.2f}<br>y=%{y:.2f}<br>error=%{z:.3g}<extra></extra>"),
                   row=1, col=3)
    maps.data[1].colorbar.update(x=maps.layout.xaxis2.domain[1] + 0.005, xanchor="left")
    # The ratio colour bar sits in the gap before the error map: its y ticks and title would collide
    # with the bar's, and the window is that of the other two maps.
    maps.update_yaxes(showticklabels=False, row=1, col=3)
    maps.update_layout(template="plotly_white", width=LIVE_WIDTH, height=400, margin=dict(l=50, r=30, t=100, b=45),
                       title=dict(text="Ratio maps", font_size=14))
    return readable_figure(maps)


def build_ks_figure():
    """The empty figure of the KS bars (as in Fig. 4): one bar per statistic and question.

    A figure of its own, beside the histograms: plotly.js redraws a whole figure when its data
    change, so a key press redraws these bars, which it sends first, without the histograms.
    ``precomputed_ks_figure`` draws the same bars with a slider.

    Examples
    --------
    >>> fig = build_ks_figure()   # one bar trace per statistic of a run, named by the registry
    >>> [t.name for t in fig.data], list(fig.data[0].x)
    (['LR', 'ASC (log t)', 'ASC (t log t)', 'ASC (Hellinger)'], ['Q1', 'Q2', 'Q3'])
    """
    ks = go.Figure()
    for stat in RATIO_STATISTICS:
        ks.add_bar(x=list(QUESTIONS), y=[0.0] * len(QUESTIONS), name=STATISTICS[stat].label,
                   marker_color=STAT_COLORS[stat],
                   hovertemplate="%{x}: KS = %{y:.3f}<extra>" + STATISTICS[stat].label + "</extra>")
    ks.update_xaxes(title_text="question")
    ks.update_yaxes(range=[0, 1], title_text="KS statistic")
    ks.update_layout(
        template="plotly_white", barmode="group", width=KS_WIDTH, height=570,
        margin=dict(l=50, r=10, t=140, b=180),
        title=dict(text="KS statistics (Fig. 4)", font_size=14, y=1.0, yref="container", yanchor="top",
                   pad=dict(t=24)),
        legend=dict(orientation="v", x=0.0, xanchor="left", y=-0.19, yanchor="top", font_size=11),
    )
    return readable_figure(ks)


def build_stats_figure():
    """The empty figure of the distributions behind the KS statistics: histograms of Q1-Q3.

    Returns the figure and ``hist_traces``: (question, (sample, ratio)) -> index of its histogram trace.

    Examples
    --------
    >>> fig, hist_traces = build_stats_figure()
    >>> len(fig.data), hist_traces["Q3", ("H1", "dre")]
    (6, 5)
    """
    stats = make_subplots(rows=1, cols=len(QUESTIONS), horizontal_spacing=0.1, subplot_titles=list(QUESTIONS))
    shown = set()
    hist_traces = {}
    for col, (q, pair) in enumerate(QUESTIONS.items(), start=1):
        for j, key in enumerate(pair):
            sample, ratio = key
            hist_traces[q, key] = len(stats.data)
            look = hist_look(q, key, first=j == 0)
            # a step outline (no edges between bins), filled down to zero for the first side only
            stats.add_scatter(
                x=[0.0], y=[0], name=f"{_SAMPLE_LABEL[sample]} with {_RATIO_LABEL[ratio]}",
                legendgroup=str(look), showlegend=look not in shown, mode="lines",
                line=dict(color=look[0], width=look[2], shape="hvh"), fill="tozeroy", fillcolor=look[1],
                hovertemplate="%{x:.4f}: %{y} repeats<extra></extra>", row=1, col=col,
            )
            shown.add(look)
        stats.update_yaxes(title_text="repeats" if col == 1 else None, row=1, col=col)
        stats.update_xaxes(nticks=4, row=1, col=col)
    stats.update_layout(
        template="plotly_white", width=LIVE_WIDTH - KS_WIDTH, height=570,
        # The title (three lines once drawn) hangs from the top of the figure, under the mode
        # bar and clear of the two-line subplot titles above the panels.
        margin=dict(l=50, r=20, t=140, b=180),
        title=dict(text="The distributions behind them (Figs. 5, 6)", font_size=14, y=1.0, yref="container",
                   yanchor="top", pad=dict(t=24)),
        # A vertical legend under the panels: a horizontal one would widen the right margin
        # instead of wrapping on narrow pages.
        legend=dict(orientation="v", x=0.0, xanchor="left", y=-0.19, yanchor="top", font_size=11, tracegroupgap=0),
    )
    return readable_figure(stats), hist_traces


def compact(z, digits=4):
    """``z`` rounded to ``digits`` significant digits, as float64 (nan and ±inf kept).

    A widget update sends a 2-D array as JSON text, one number per cell: float32 values written
    out as doubles take 17-19 characters each, rounded ones 5-7. Four digits are more than the
    colour scale resolves and than the hover labels show (3).

    Examples
    --------
    >>> compact(np.array([0.123456, 1234567.0, -2.0e-7, 0.0, np.inf])).tolist()
    [0.1235, 1235000.0, -2e-07, 0.0, inf]
    """
    z = np.asarray(z, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        shift = (digits - 1) - np.floor(np.log10(np.abs(z)))
    shift = np.where(np.isfinite(shift), shift, 0.0)
    # exact powers of ten on either side (10.0**-k is not exact; dividing by 10.0**k is correctly rounded)
    up, down = 10.0 ** np.maximum(shift, 0.0), 10.0 ** np.maximum(-shift, 0.0)
    with np.errstate(invalid="ignore"):
        return np.where(np.isfinite(z), np.round(z * up / down) * down / up, z)


def draw_maps(fig, maps, s, N, *, axes=True, exact=True):
    """Draw :class:`~gendel.panels.explorer_state.RatioMaps` ``maps`` of settings ``s`` (training set size ``N``) into ``fig``.

    Two messages to the browser: the ratio maps, then the error map with the titles.
    ``axes=False`` keeps the axes and the grid coordinates as they are (they depend on the data
    set only; setting them again costs a fifth of a second of plotly's validation);
    ``exact=False`` keeps the exact map rho_hat (it does not depend on the DRE), so a move of
    sigma_C or k sends one ratio map instead of two.

    Examples
    --------
    >>> from gendel.panels.explorer_state import ExplorerState
    >>> state = ExplorerState(N=60, m=20, resolution=8, R=25)
    >>> fig = build_maps_figure(8)
    >>> draw_maps(fig, state.maps(), state.settings, state.N)
    >>> fig.layout.annotations[1].text, fig.data[1].z.shape
    ('ρ̂<sub>ℰ</sub> (KBC, σ<sub>C</sub> = 0.100)', (8, 8))
    """
    # A batch_update sends, for every edited trace, every key that some trace of the batch changed,
    # with null where that trace did not change it (plotly 7.1 FigureWidget; a value set to what it
    # already is does not count as changed). The browser reads null as "default": a ratio map
    # would lose its colour range (zmin, zmax) next to an error map whose range moved. So each
    # message holds traces whose keys all change together (tests/test_widgets.py checks every message).
    n = len(maps.ys)
    limit = error_range(maps.error, maps.limit)
    err_label, err_title = ("log ρ̂_ℰ − log ρ̂", "log error") if maps.mode == "log" else ("ρ̂_ℰ − ρ̂", "difference")
    mean_text = "∞" if np.isinf(maps.mean_error) else f"{maps.mean_error:.2g}"
    titles = (
        f"ρ̂ = p̂′/p̂ (exact, σ_A = {s['sigma_a']:.3f})",
        f"ρ̂_ℰ ({describe_dre(s['dre'], sigma_c=s['sigma_c'], k=s['k'])})",
        f"{err_label}<br><sup>mean absolute value under p̂: {mean_text}; colours ±{limit:.1g}</sup>",
    )
    with fig.batch_update():  # the ratio maps: z (and the grid), nothing else
        for trace, z in [(fig.data[0], maps.exact)] * (exact or axes) + [(fig.data[1], maps.estimate)]:
            trace.z = compact(z)
            if axes:
                trace.update(x=maps.xs, y=maps.ys)
    error = np.clip(np.nan_to_num(maps.error, nan=0.0, neginf=-limit, posinf=limit), -limit, limit)
    with fig.batch_update():  # the error map (one trace: no nulls) and the titles
        fig.data[2].update(z=compact(error), zmin=-limit, zmax=limit, colorbar_title_text=plotly_text(err_title))
        if axes:
            fig.data[2].update(x=maps.xs, y=maps.ys)
        for annotation, text in zip(fig.layout.annotations, titles):
            annotation.update(text=plotly_text(text), font_size=13)
        fig.layout.title.text = plotly_text(f"Ratio maps as in Fig. 3<br><sup>{describe_settings(s)} · N = {N}, "
                                 f"{n} × {n} grid</sup>")
        if axes:
            square_axes(fig, s["dataset"], rows=1, cols=3, y_title_cols=(1, 2))


def draw_ks(fig, result, R, m):
    """Draw the KS statistics of ``result`` (R repeats of m samples per set) as the bars of ``fig``
    (:func:`build_ks_figure`).

    Examples
    --------
    >>> from gendel.panels.explorer_state import ExplorerState
    >>> result = ExplorerState(N=60, m=20, resolution=8, R=25).statistics()
    >>> fig = build_ks_figure()
    >>> draw_ks(fig, result, R=25, m=20)
    >>> list(fig.data[0].y) == [result.ks[q, "lr"] for q in ("Q1", "Q2", "Q3")]
    True
    """
    with fig.batch_update():  # one message, one redraw in the browser (every bar changes y only)
        for trace, stat in zip(fig.data, RATIO_STATISTICS):
            trace.y = [result.ks[q, stat] for q in QUESTIONS]
        fig.layout.title.text = f"KS statistics (Fig. 4)<br><sup>R = {R}, m = {m}</sup>"

def draw_distributions(fig, hist_traces, s, result):
    """Draw the histograms of ``s["statistic"]`` over the repeats of ``result`` (settings ``s``) into ``fig``.

    Examples
    --------
    >>> from gendel.panels.explorer_state import ExplorerState
    >>> state = ExplorerState(N=60, m=20, resolution=8, R=25)
    >>> fig, hist_traces = build_stats_figure()
    >>> draw_distributions(fig, hist_traces, state.settings, state.statistics())
    >>> int(sum(fig.data[hist_traces["Q3", ("H0", "dre")]].y)), fig.layout.xaxis.title.text   # every repeat
    (25, 'LR')
    """
    stat = s["statistic"]
    values = result.values[stat]
    titles, steps = [], {}
    for q, pair in QUESTIONS.items():
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
            # bin centres, with an empty bin on each side: the "hvh" steps then rise and fall at the edges
            width = edges[1] - edges[0]
            centres = np.r_[edges[0] - 0.5 * width, 0.5 * (edges[:-1] + edges[1:]), edges[-1] + 0.5 * width]
            steps[hist_traces[q, key]] = centres, np.r_[0, counts, 0]
        extra = f", {dropped} at −∞ not drawn" if dropped else ""
        titles.append(f"{q}<br><sup>KS = {result.ks[q, stat]:.3f}{extra}</sup>")
    # histograms whose x and y both change go in one message; one that keeps its bins or its counts
    # goes with those that changed the same (draw_maps says why)
    groups = {}
    for index, (x, y) in steps.items():
        trace = fig.data[index]
        changed = {k: v for k, v in (("x", x), ("y", y)) if not np.array_equal(np.asarray(trace[k]), v)}
        groups.setdefault(tuple(changed), {})[index] = changed
    for edits in list(groups.values())[:-1]:
        with fig.batch_update():
            for index, changed in edits.items():
                fig.data[index].update(**changed)
    with fig.batch_update():  # the last group with the titles: one message
        for index, changed in (list(groups.values()) or [{}])[-1].items():
            fig.data[index].update(**changed)
        for annotation, text in zip(fig.layout.annotations, titles):
            annotation.text = plotly_text(text)
        for col in range(1, len(QUESTIONS) + 1):
            fig.update_xaxes(title_text=STATISTICS[stat].label, row=1, col=col)
        fig.layout.title.text = plotly_text(f"The distributions behind the KS statistics (Figs. 5, 6)<br>"
                                 f"<sup>Q1 DRE approximation, Q2 fast deletion, Q3 deletion test · "
                                 f"histograms of {STATISTICS[stat].label} over R = {s['R']} repeats<br>"
                                 f"{describe_settings(s)}</sup>")
