"""Density figures of the synthetic chapter (Figs. 5 and 6, Appendix D): ridgeline_figure.

The figures are checked as a reader sees them: every density falls to zero at both ends instead
of ending in a vertical cliff, the x axis shows at least 99 % of the samples of every curve and
says how many it leaves out, overlapping fills of different models stay light enough that their
outlines are told apart, and a figure at the book's settings stays within a size budget. The
sweeps are built directly from known samples, so that the checks compare the figure with
numbers computed independently of it.
"""

import base64
import re

import numpy as np
import plotly.graph_objects as go
import pytest

from gendel.core.dre import make_dre
from gendel.synthetic.experiments import Sweep, SyntheticStatistics
from gendel.synthetic.sampling import QUESTIONS
from gendel.synthetic.sampling import RATIO_STATISTICS as STATISTICS
from gendel.plotting import common, synthetic as S

#: The book's settings: R = 250 repeats, 9 KBC bandwidths over 5 lambdas, 4 kNN k over 4 lambdas.
R = 250
KBC_LABELS = ("0.05", "0.0625", "0.075", "0.0875", "0.1", "0.1125", "0.125", "0.1375", "0.15")
KNN_LABELS = ("5", "10", "20", "50")
KBC_LAMS = (0.5, 0.6, 0.7, 0.8, 0.9)
KNN_LAMS = (0.6, 0.7, 0.8, 0.9)
STATS = ("lr", "asc-tlogt")
#: Characters of figure JSON per figure at the book's settings (the page shows four such figures
#: and must stay under 1 MB of HTML).
SIZE_BUDGET = 150_000
KEYS = sorted({key for sides in QUESTIONS.values() for key in sides})


def fake_sweep(family, labels, lams, seed, *, outlier=False, log_spread=False):
    """A Sweep of known samples: normal per row; ``outlier`` adds one far sample to some curves,
    ``log_spread`` makes positive values whose spread grows 10x from row to row (a log axis)."""
    rng = np.random.default_rng(seed)
    dre = "KernelClassifierDRE(bandwidth=0.1)" if family == "kbc" else "KNNClassifierDRE(k=5)"
    results = []
    for lam in lams:
        row = []
        for j, _ in enumerate(labels):
            values = {}
            for stat in STATISTICS:
                values[stat] = {}
                for n, key in enumerate(KEYS):
                    if log_spread:
                        v = np.exp(rng.normal(j * np.log(10.0), 0.3 + 0.1 * n, R))
                    else:
                        v = rng.normal(0.01 * n + 0.02 * lam, 0.01 * (1 + j % 3), R)
                    if outlier and j == 0:
                        v[0] = v.mean() + 200 * v.std()  # one tail that would squeeze the panel
                    values[stat][key] = v
            ks = {(q, stat): 0.1 for q in QUESTIONS for stat in STATISTICS}
            settings = dict(dataset="mog8", lam=lam, N=400, m=400, R=R, sigma_a=0.1, seed=0, dre=dre)
            row.append(SyntheticStatistics(settings, values, ks, 80, 0.8))
        results.append(row)
    dres = tuple(make_dre(family, float(v) if family == "kbc" else int(v)) for v in labels)
    return Sweep(tuple(lams), tuple(labels), results, dres)


def book_sweeps(**kw):
    return {"kbc": fake_sweep("kbc", KBC_LABELS, KBC_LAMS, 1, **kw),
            "knn": fake_sweep("knn", KNN_LABELS, KNN_LAMS, 2, **kw)}


def decode(spec):
    """A typed-array spec (dict with dtype and bdata) or an array back to a numpy array."""
    if isinstance(spec, dict):
        dtype = {"f4": "<f4", "f8": "<f8", "u1": "u1", "u2": "<u2"}[spec["dtype"]]
        return np.frombuffer(base64.b64decode(spec["bdata"]), dtype=dtype).astype(float)
    return np.asarray(spec, dtype=float)


def steps(fig):
    """Per slider step: (trace data, layout changes)."""
    return [(st.args[0], st.args[1]) for st in fig.layout.sliders[0].steps]


def curves(fig):
    """Every density curve of every slider step: (step, trace index, x, height in rows above the
    baseline, x-axis name)."""
    assert all(isinstance(t, go.Scatter) and t.fill == "toself" for t in fig.data), \
        "densities must be drawn as closed curves (a violin with spanmode 'hard' ends in cliffs)"
    unit = 1000.0
    out = []
    for k, (data, _) in enumerate(steps(fig)):
        for i, t in enumerate(fig.data):
            y = decode(data["y"][i]) / unit
            x = data["x0"][i] + data["dx"][i] * np.arange(y.size)
            base = np.round(y[0])
            out.append((k, i, x, y - base, "xaxis" + (t.xaxis or "x")[1:]))
    return out


def axis_range(fig, layout, axis):
    return layout.get(f"{axis}.range", fig.layout[axis].range)


def test_densities_fall_to_zero_at_both_ends():
    sweeps = book_sweeps(outlier=True)
    fig = S.ridgeline_figure(sweeps, "Q3", STATS)
    all_steps = steps(fig)
    for k, i, x, h, axis in curves(fig):
        lo, hi = axis_range(fig, all_steps[k][1], axis)
        peak = h.max()
        assert peak > 0 and h[0] == 0 and h[-1] == 0, "the curve must close on its baseline"
        for end, near in ((0, 1), (-1, -2)):
            # a visible end falls gently; a drop is allowed only outside the axis range
            if lo <= x[near] <= hi:
                assert h[near] <= 0.05 * peak, f"step {k}, trace {i}: a cliff of {h[near] / peak:.0%} at x = {x[end]:.4g}"


def test_axis_shows_the_bulk_of_every_panel_and_states_the_rest():
    sweeps = book_sweeps(outlier=True)
    fig = S.ridgeline_figure(sweeps, "Q3", STATS)
    lams = [0.6, 0.7, 0.8, 0.9]
    panels = [(stat, f) for stat in STATS for f in ("knn", "kbc")]
    clipped_somewhere = False
    for k, (_, layout) in enumerate(steps(fig)):
        for p, (stat, f) in enumerate(panels):
            axis = "xaxis" if p == 0 else f"xaxis{p + 1}"
            rng = axis_range(fig, layout, axis)
            assert rng is not None, f"{axis} has no range: one far sample decides the scale"
            lo, hi = rng
            sw = sweeps[f]
            i = [float(v) for v in sw.lams].index(lams[k])
            out = total = 0
            for res in sw.results[i]:
                for key in QUESTIONS["Q3"]:
                    v = res.values[stat][key]
                    inside = (v >= lo) & (v <= hi)
                    assert inside.mean() >= 0.5, f"{axis} step {k}: only {inside.mean():.1%} of a curve shown"
                    out, total = out + int((~inside).sum()), total + v.size
            assert out <= 0.02 * total, f"{axis} step {k}: {out} of {total} samples beyond the axis"
            title = layout.get(f"{axis}.title.text", fig.layout[axis].title.text)
            if out:
                clipped_somewhere = True
                assert f"{out} of {total} samples" in title and "beyond the axis" in title, title
            else:
                assert "beyond" not in title, title
            # the bulk fills the panel: the outlier does not squeeze the curves into a corner
            bulk = np.concatenate([res.values[stat][key] for res in sw.results[i] for key in QUESTIONS["Q3"]])
            q = np.quantile(bulk, [0.005, 0.995])
            assert (q[1] - q[0]) >= 0.6 * (hi - lo), f"{axis} step {k}: the bulk fills {(q[1] - q[0]) / (hi - lo):.0%}"
    assert clipped_somewhere, "the outliers of this sweep lie beyond the axis; the figure must say so"


def test_log_panels_draw_log10_values_with_value_ticks():
    sweeps = book_sweeps(log_spread=True)
    fig = S.ridgeline_figure(sweeps, "Q2", STATS)
    for axis in ("xaxis", "xaxis2"):
        ax = fig.layout[axis]
        assert "log scale" in ax.title.text
        assert np.allclose(ax.tickvals, np.log10([float(t) for t in ax.ticktext]), atol=1e-5)
    # the drawn density is the KDE of log10 of the samples: its mean is their mean
    k, i, x, h, _ = curves(fig)[0]
    v = np.log10(sweeps["knn"].results[0][0].values["lr"][QUESTIONS["Q2"][0]])
    assert abs(np.sum(x * h) / np.sum(h) - v.mean()) < 0.05 * v.std()


def test_the_two_densities_of_a_row_share_one_scale():
    sweeps = book_sweeps()
    fig = S.ridgeline_figure(sweeps, "Q2", STATS)
    got = curves(fig)
    for (k, i, x, h, _), (_, _, x2, h2, _) in zip(got[::2], got[1::2]):
        area1, area2 = h.sum() * (x[1] - x[0]), h2.sum() * (x2[1] - x2[0])
        assert area1 == pytest.approx(area2, rel=0.03), f"step {k}, traces {i}, {i + 1}"
        assert max(h.max(), h2.max()) == pytest.approx(0.85, abs=0.002)


def test_overlapping_fills_stay_light():
    fig = S.ridgeline_figure(book_sweeps(), "Q2", STATS)
    strong = set()
    for t in fig.data:
        if t.fillcolor is None:
            continue
        m = re.fullmatch(r"rgba\((\d+), (\d+), (\d+), ([\d.]+)\)", t.fillcolor)
        alpha = float(m.group(4)) if m else 1.0
        alpha *= 1.0 if t.opacity is None else t.opacity
        if alpha > 0.3:
            strong.add(t.line.color)
    assert len(strong) <= 1, f"fills of {sorted(strong)} overlap at opacity > 0.3 and mix into one colour"
    assert all(t.line.width >= 2 for t in fig.data), "each density has a solid outline in its model's colour"
    assert {t.line.color for t in fig.data} == {common.COLORS["H1"], common.COLORS["D"]}


def test_figure_json_within_budget_at_book_settings():
    fig = S.ridgeline_figure(book_sweeps(), "Q3", STATS)
    assert len(fig.layout.sliders[0].steps) == 4
    size = len(fig.to_json())
    assert size < SIZE_BUDGET, f"{size} characters of figure JSON"


def test_slider_redraws_every_row_and_its_ks_note():
    sweeps = book_sweeps()
    fig = S.ridgeline_figure(sweeps, "Q3", STATS, initial_lam=0.8)
    n_rows = len(KBC_LABELS) + len(KNN_LABELS)
    assert len(fig.data) == 2 * 2 * n_rows  # 2 statistics, 2 sides per row
    assert fig.layout.sliders[0].active == 2
    (a, la), (b, lb) = steps(fig)[:2]
    assert all(not np.array_equal(decode(u), decode(v)) for u, v in zip(a["y"], b["y"]))
    notes = [v for name, v in lb.items() if name.startswith("annotations")]
    assert len(notes) == 2 * n_rows and all(0 <= float(n.split("<br>")[0]) <= 1 for n in notes)
    assert sum(a.text == "KS" for a in fig.layout.annotations) == 4  # one column header per panel
    # the figure's initial traces are the active step's
    c, _ = steps(fig)[2]
    assert all(np.array_equal(decode(t.y), decode(y)) for t, y in zip(fig.data, c["y"]))
