"""Figures of the deletion-test chapter: gendel.plotting.deletion_test.

The critical value is checked against the p-value rule of gendel.deletion_test.decision (a separate
computation), the printed rates against counts made here, the ROC AUC against all pairwise
comparisons, and the slider against the frames it was built from.
"""

import re

import numpy as np
import pytest

from gendel.synthetic import experiments
from gendel.synthetic.sampling import Protocol, setup
from gendel.deletion_test.decision import STATISTICS, DeletionTest, PowerResult, monte_carlo_p_values
from gendel.plotting import deletion_test as P


def percents(text):
    return [float(v) / 100 for v in re.findall(r"([0-9.]+) %", text)]


def axis_titles(fig):
    layout = fig.layout.to_plotly_json()
    return {k: (v.get("title") or {}).get("text") for k, v in layout.items() if re.fullmatch(r"[xy]axis\d*", k)}


def all_text(fig):
    """Every string a reader can see: title, axis titles, legend names, slider labels."""
    texts = [fig.layout.title.text or ""] + [t or "" for t in axis_titles(fig).values()]
    texts += [t.name or "" for t in fig.data]
    for slider in fig.layout.sliders:
        for step in slider.steps:
            texts.append(step.label)
            texts += [v for v in step.args[1].values() if isinstance(v, str)]
    return texts


@pytest.fixture(scope="module")
def gaussian():
    rng = np.random.default_rng(0)
    return rng.normal(0.0, 1.0, 399), rng.normal(1.5, 1.0, 300)


@pytest.fixture(scope="module")
def small_tests():
    """Two real tests on MoG-8 (LR rejects large values, ASC Hellinger small ones) and their power."""
    _, _, exact = setup(Protocol("mog8", lam=0.5))
    out = {}
    for i, statistic in enumerate(("lr", "asc-hellinger")):
        test = DeletionTest(exact.pretrained_, exact, statistic=statistic, n_null=99, rng=10 + i, n_pilot=2000)
        out[statistic] = (test, test.power(exact.retrained_, 40, alpha=0.1, n_rep=60, rng=20 + i))
    return out


# ------------------------------------------------------------------------------------------
# the decision rule


@pytest.mark.parametrize("direction", [1, -1])
@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.1, 0.3])
@pytest.mark.parametrize("ties", [False, True])
def test_critical_value_reproduces_the_monte_carlo_p_value_rule(direction, alpha, ties):
    rng = np.random.default_rng(1)
    null = rng.normal(size=199)
    if ties:
        null = np.round(null * 2) / 2  # a discrete statistic: many equal values
    c = P.critical_value(null, alpha, direction)
    # every null value, points between them and far outside
    t = np.concatenate([null, null + 1e-9, null - 1e-9, [-10.0, 10.0]])
    p = monte_carlo_p_values(direction * t, direction * null)
    np.testing.assert_array_equal(P.rejects(t, c, direction), p <= alpha)
    beyond = np.mean(direction * null > direction * c)
    assert beyond <= alpha
    # the type-I error of the Monte-Carlo test: floor(alpha (n + 1)) / (n + 1) for a continuous null
    if not ties:
        assert (1 + np.sum(direction * null > direction * c)) / 200 == np.floor(alpha * 200 + 1e-9) / 200


def test_critical_value_refuses_a_null_too_small_to_reject():
    with pytest.raises(ValueError, match="could never reject"):
        P.critical_value(np.arange(10.0), 0.05, 1)
    with pytest.raises(ValueError, match="direction"):
        P.critical_value(np.arange(100.0), 0.05, 0)
    with pytest.raises(ValueError, match="NaN"):
        P.critical_value([0.0, np.nan] * 50, 0.05, 1)


# ------------------------------------------------------------------------------------------
# decision figure


@pytest.mark.parametrize("direction", [1, -1])
def test_decision_figure_places_the_critical_value_and_prints_its_rates(gaussian, direction):
    null, alternative = gaussian[0] * direction, gaussian[1] * direction
    alpha = 0.05
    fig = P.decision_figure(null, alternative, direction=direction, statistic="lr", m=100, alpha=alpha)
    hist_null, hist_alt, region, line = fig.data
    c = line.x[0]
    assert line.x[0] == line.x[1]
    assert np.mean(direction * null > direction * c) <= alpha
    # the rejection region lies on the rejecting side of c
    assert (min(region.x) == c) if direction == 1 else (max(region.x) == c)
    # printed power = the share of alternative statistics the p-value rule rejects
    p_alt = monte_carlo_p_values(direction * alternative, direction * null)
    assert percents(hist_alt.name)[0] == pytest.approx(np.mean(p_alt <= alpha), abs=5e-4)
    # printed type-I error = P(p <= alpha) under H0 for a continuous statistic: floor(alpha (n+1)) / (n+1)
    assert percents(hist_null.name)[0] == pytest.approx(np.floor(alpha * 400) / 400, abs=5e-4)
    # both histograms are probability densities: area 1 (the null as bars, the alternative as a
    # step outline whose area is the trapezoid integral of its path)
    assert hist_null.type == "bar" and hist_alt.type == "scatter"
    assert np.sum(np.asarray(hist_null.y) * hist_null.width) == pytest.approx(1.0)
    x, y = np.asarray(hist_alt.x), np.asarray(hist_alt.y)
    assert np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2) == pytest.approx(1.0)


def test_decision_figure_counts_minus_infinity_without_drawing_it(gaussian):
    null = np.concatenate([gaussian[0], [-np.inf] * 101])
    fig = P.decision_figure(null, gaussian[1], direction=1, statistic="lr", m=10, alpha=0.05)
    assert "101 at −∞ not drawn" in fig.data[0].name
    area = np.sum(np.asarray(fig.data[0].y) * fig.data[0].width)
    assert area == pytest.approx(399 / 500)


def test_decision_frame_agrees_with_the_tests_power(small_tests):
    """The library's rate (p-values) equals the share beyond this module's critical value."""
    for statistic, (test, power) in small_tests.items():
        frame = P.decision_frame(test, power)
        beyond = P.rejects(frame["alternative"], frame["critical"], frame["direction"])
        assert power.rate == pytest.approx(beyond.mean())
        assert frame["direction"] == test.direction_
        fig = P.decision_figure(**{k: v for k, v in frame.items() if k != "label"})
        assert percents(fig.data[1].name)[0] == pytest.approx(power.rate, abs=5e-4)
    assert small_tests["asc-hellinger"][0].direction_ == -1  # both sides of the rule are exercised


def test_decision_figure_refuses_bad_input(gaussian):
    null, alt = gaussian
    with pytest.raises(ValueError, match="statistic"):
        P.decision_figure(null, alt, direction=1, statistic="LR", m=10, alpha=0.05)
    with pytest.raises(ValueError, match="alpha"):
        P.decision_figure(null, alt, direction=1, statistic="lr", m=10, alpha=1.5)


# ------------------------------------------------------------------------------------------
# slider


def test_slider_has_one_step_per_frame_and_each_step_shows_its_frame(gaussian):
    null, alt = gaussian
    frames = [dict(label=f"m = {m}", null=null * s, alternative=alt * s, critical=None, direction=1, statistic="lr",
                   m=m, alpha=a, power=None) for m, s, a in ((10, 1.0, 0.05), (100, 0.5, 0.05), (400, 0.25, 0.1))]
    fig = P.decision_slider_figure(frames, active=1)
    steps = fig.layout.sliders[0].steps
    assert len(steps) == len(frames)
    assert [s.label for s in steps] == ["10", "100", "400"]
    assert fig.layout.sliders[0].currentvalue.prefix == "m = "
    per = len(fig.data) // len(frames)
    assert per * len(frames) == len(fig.data)
    for i, (step, frame) in enumerate(zip(steps, frames)):
        visible = step.args[0]["visible"]
        shown = [fig.data[j] for j, v in enumerate(visible) if v]
        assert len(shown) == per
        # the shown traces are this frame's: its critical value and its null histogram
        c = P.critical_value(frame["null"], frame["alpha"], 1)
        assert shown[-1].x[0] == pytest.approx(c)
        assert np.sum(np.asarray(shown[0].y) * shown[0].width) == pytest.approx(1.0)
        assert min(shown[0].x) >= min(frame["null"]) - shown[0].width
        assert f"m = {frame['m']}" in step.args[1]["title.text"]
        assert f"α = {frame['alpha']:g}" in step.args[1]["title.text"]
    assert [t.visible for t in fig.data] == steps[1].args[0]["visible"]


def test_slider_refuses_incomplete_frames():
    with pytest.raises(ValueError, match="lacks"):
        P.decision_slider_figure([dict(label="a", null=np.zeros(100))])
    with pytest.raises(ValueError, match="empty"):
        P.decision_slider_figure([])


# ------------------------------------------------------------------------------------------
# power, ROC, p-values


def power_result(m, k, n=50, alpha=0.05):
    return PowerResult(rate=k / n, low=max(0.0, k / n - 0.1), high=min(1.0, k / n + 0.1), n_rep=n, m=m, alpha=alpha,
                       statistics=np.zeros(n), p_values=np.ones(n))


def test_power_figure_draws_one_line_per_label_and_the_level():
    curves = {s: [power_result(m, min(50, i + m // 10)) for m in (10, 100, 400)] for i, s in enumerate(STATISTICS)}
    fig = P.power_figure(curves, alpha=0.05)
    lines = [t for t in fig.data if t.mode == "lines+markers"]
    assert len(lines) == len(STATISTICS)
    for line, stat in zip(lines, STATISTICS):
        assert list(line.x) == [10, 100, 400]
        assert line.line.color == P.STATISTIC_COLORS[stat]
        assert list(line.y) == [r.rate for r in curves[stat]]
    level = [t for t in fig.data if t.name == "level α = 0.05"]
    assert len(level) == 1 and set(level[0].y) == {0.05}
    assert fig.layout.xaxis.type == "log"
    bands = [t for t in fig.data if t.fill == "toself"]
    assert len(bands) == len(STATISTICS)
    with pytest.raises(ValueError, match="alpha"):
        P.power_figure(curves, alpha=0.1)
    fig = P.power_figure({"H0": [(0.5, power_result(100, 3)), (0.9, power_result(100, 2))]}, alpha=0.05, x="λ")
    assert fig.layout.xaxis.type == "linear"


def test_roc_auc_is_one_half_for_equal_distributions_and_one_for_separated_ones():
    rng = np.random.default_rng(2)
    a = rng.normal(size=2000)
    assert P.roc_curve(a, a, 1)[2] == pytest.approx(0.5)  # the same values: every pair ties
    assert P.roc_curve(a, rng.normal(size=2000), 1)[2] == pytest.approx(0.5, abs=0.03)
    assert P.roc_curve(a, a + 20, 1)[2] == 1.0
    assert P.roc_curve(a, a + 20, -1)[2] == 0.0  # the wrong direction
    # AUC = P(A > N) + P(A = N) / 2, over all pairs (with ties and infinities)
    null = np.concatenate([np.round(rng.normal(size=300), 1), [-np.inf] * 5])
    alt = np.concatenate([np.round(rng.normal(0.7, 1, 200), 1), [-np.inf] * 2])
    for direction in (1, -1):
        s0, s1 = direction * null, direction * alt
        pairs = np.mean(s1[:, None] > s0[None, :]) + 0.5 * np.mean(s1[:, None] == s0[None, :])
        fpr, tpr, auc = P.roc_curve(null, alt, direction)
        assert auc == pytest.approx(pairs)
        assert (fpr[0], tpr[0], fpr[-1], tpr[-1]) == (0, 0, 1, 1)
        assert np.all(np.diff(fpr) >= 0) and np.all(np.diff(tpr) >= 0)
    fig = P.roc_figure({"lr": (null, alt, 1), "mmd": (a, a, 1)})
    assert fig.data[1].name.endswith(f"AUC {P.roc_curve(null, alt, 1)[2]:.3f}")
    assert fig.data[2].name.endswith("AUC 0.500")


def test_pvalue_figure_marks_the_monte_carlo_floor():
    n = 199
    rng = np.random.default_rng(3)
    mc = (1 + rng.integers(0, 60, 40)) / (1 + n)
    asym = np.clip(mc * rng.uniform(0.01, 2, 40), 0, 1)
    asym[:3] = 0.0  # underflow of the normal tail
    fig = P.pvalue_figure(mc, asym, alpha=0.05)
    floor = next(t for t in fig.data if t.name.startswith("Monte-Carlo floor"))
    assert set(floor.y) == {1 / (1 + n)}
    assert "1/200" in floor.name  # n_null inferred from the values k / (1 + n)
    points = fig.data[0]
    assert np.all(np.asarray(points.x) > 0)  # nothing lost on the log axis
    assert list(points.marker.symbol[:3]) == ["triangle-down"] * 3
    assert fig.layout.xaxis.type == fig.layout.yaxis.type == "log"
    diagonal = next(t for t in fig.data if t.name == "equal p-values")
    assert list(diagonal.x) == list(diagonal.y)
    with pytest.raises(ValueError, match="pair"):
        P.pvalue_figure(mc, asym[:-1])


# ------------------------------------------------------------------------------------------
# every figure: labelled axes, no TeX


def test_every_axis_is_titled_and_no_text_is_tex(gaussian, small_tests):
    null, alt = gaussian
    frame = P.decision_frame(*small_tests["lr"])
    figures = [
        P.decision_figure(null, alt, direction=1, statistic="asc-tlogt", m=10, alpha=0.05),
        P.decision_slider_figure([frame, P.decision_frame(*small_tests["asc-hellinger"])]),
        P.power_figure({"lr": [small_tests["lr"][1]]}, alpha=0.1),
        P.roc_figure({"x": (null, alt, 1)}),
        P.pvalue_figure([0.01, 0.5], [0.001, 0.4], n_null=99),
    ]
    for fig in figures:
        titles = axis_titles(fig)
        assert titles and all(titles.values()), titles
        for text in all_text(fig):
            assert "$" not in text and "\\" not in text.replace("X \\ X", ""), text


# ------------------------------------------------------------------------------------------
# Tables of computed rates


def _rate(r, null_sd=0.0, n_rep=300):
    return PowerResult.from_rate(r, alpha=0.05, m=50, n_rep=n_rep, null_sd=null_sd, statistics=np.zeros(n_rep),
                                 p_values=np.ones(n_rep))


def test_type_one_table_marks_rates_outside_the_band():
    text = P.type_one_table({("mog8", "asc-hellinger"): _rate(0.05), ("ckb8", "mmd"): _rate(0.2)}, (0.017, 0.097))
    assert "| MoG-8 | ASC (Hellinger) | 0.050 | yes |" in text
    assert "| CKB-8 | MMD² | 0.200 | no |" in text


def test_rivals_table_says_no_where_lr_is_beaten():
    from gendel.claims.deletion_test import best_rivals

    rivals = best_rivals({"lr": [_rate(0.3), _rate(0.3)], "asc-tlogt": [_rate(0.32), _rate(0.6)]}, (20, 200))
    lines = P.rivals_table(rivals).splitlines()
    assert lines[2].startswith("| 20 |") and lines[2].endswith("| yes |")
    assert lines[3].startswith("| 200 | 0.30") and "ASC (t log t)" in lines[3] and lines[3].endswith("| no |")


def test_rate_table_shows_intervals_on_request():
    rates = {("kNN k = 10", "lr"): _rate(0.23, 0.04)}
    assert "| kNN k = 10 | 0.23 |" in P.rate_table(rates, ["kNN k = 10"], ["lr"], columns=("DRE",))
    r = rates["kNN k = 10", "lr"]
    assert f"0.23 ({r.low:.2f}–{r.high:.2f})" in P.rate_table(rates, ["kNN k = 10"], ["lr"], columns=("DRE",),
                                                              intervals=True)


def test_ks_table_subtracts_the_exact_level_and_needs_matching_keys():
    text = P.ks_table({("mmd", 50): 0.09}, {("mmd", 50): _rate(0.04)}, 25 / 501)
    assert "| MMD² | 50 | 0.09 | -0.01 |" in text     # 0.04 - 0.0499
    with pytest.raises(ValueError, match=r"same \(statistic, m\) keys"):
        P.ks_table({("mmd", 50): 0.09}, {("mmd", 200): _rate(0.04)}, 25 / 501)


def test_share_table_prints_the_interval():
    assert "| ASC (log t) | 200 | 0.028 | 0.015–0.047 |" in P.share_table({("asc-log", 200): (0.028, 0.0151, 0.0468)},
                                                                          "type-I error")
