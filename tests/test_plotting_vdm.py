"""Figures of the VDM chapter (gendel.plotting.vdm_dre): labelled axes, the given data in the traces,
and clear errors for inconsistent inputs."""

import numpy as np
import plotly.graph_objects as go
import pytest

from gendel.plotting.vdm_dre import (class_ratio_figure, log_ratio_maps_figure, log_ratio_scatter_figure,
                                 objective_figure)


def axis_titles(fig):
    """Title text of every x and y axis of a figure's layout."""
    layout = fig.layout
    names = [k for k in layout.to_plotly_json() if k.startswith(("xaxis", "yaxis"))]
    return {name: layout[name].title.text for name in names}


def test_scatter_has_one_panel_per_estimate_with_the_data_and_the_identity_line():
    rng = np.random.default_rng(0)
    true = rng.normal(size=50)
    estimates = {"KL": true + 0.1 * rng.normal(size=50), "JS": true - 0.2}
    fig = log_ratio_scatter_figure(true, estimates, title="t")
    points = [t for t in fig.data if t.mode == "markers"]
    assert [t.name for t in points] == ["KL", "JS"]
    for trace, values in zip(points, estimates.values()):
        np.testing.assert_array_equal(trace.x, true)
        np.testing.assert_array_equal(trace.y, values)
    lines = [t for t in fig.data if t.mode == "lines"]
    assert len(lines) == 2 and all(list(t.x) == list(t.y) for t in lines)  # y = x
    lo, hi = lines[0].x
    assert lo <= min(true.min(), estimates["JS"].min()) and hi >= true.max()
    titles = axis_titles(fig)
    assert set(titles) == {"xaxis", "xaxis2", "yaxis", "yaxis2"} and all(titles.values())


def test_scatter_rejects_estimates_of_another_length():
    with pytest.raises(ValueError, match="3 entries"):
        log_ratio_scatter_figure(np.zeros(3), {"KL": np.zeros(4)})
    with pytest.raises(ValueError, match="at least one"):
        log_ratio_scatter_figure(np.zeros(3), {})


def test_maps_share_a_colour_scale_centred_at_zero():
    xs, ys = np.linspace(-1, 1, 4), np.linspace(-2, 2, 3)
    true = np.arange(12.0).reshape(3, 4) - 6
    fig = log_ratio_maps_figure(xs, ys, [("true", true), ("estimate", 0.5 * true)])
    heatmaps = [t for t in fig.data if isinstance(t, go.Heatmap)]
    assert [t.name for t in heatmaps] == ["true", "estimate"]
    np.testing.assert_allclose(heatmaps[0].z, true)
    np.testing.assert_allclose(heatmaps[1].z, 0.5 * true)
    np.testing.assert_array_equal(heatmaps[0].x, xs)
    np.testing.assert_array_equal(heatmaps[0].y, ys)
    assert all(t.coloraxis == "coloraxis" for t in heatmaps)
    axis = fig.layout.coloraxis
    assert axis.cmin == -6 and axis.cmax == 6 and axis.cmid == 0  # symmetric: white at log rho = 0
    assert axis.colorbar.title.text
    titles = axis_titles(fig)
    assert titles["xaxis"] and titles["xaxis2"] and titles["yaxis"]


def test_maps_reject_a_grid_of_the_wrong_shape():
    with pytest.raises(ValueError, match=r"shape \(len\(ys\), len\(xs\)\)"):
        log_ratio_maps_figure(np.arange(4), np.arange(3), [("bad", np.zeros((4, 3)))])


def test_objective_curves_and_reference_lines():
    histories = {"with BatchNorm": [0.1, 0.2, 0.3], "without": [0.01, 0.012, 0.013]}
    fig = objective_figure(histories, references={"bound": 0.16})
    curves = fig.data[:2]
    for trace, (name, values) in zip(curves, histories.items()):
        assert trace.name == name
        np.testing.assert_array_equal(trace.x, [1, 2, 3])  # epochs count from 1
        np.testing.assert_array_equal(trace.y, values)
    bound = fig.data[2]
    assert bound.name == "bound" and list(bound.y) == [0.16, 0.16] and list(bound.x) == [1, 3]
    assert fig.layout.xaxis.title.text and fig.layout.yaxis.title.text


def test_class_ratios_show_the_means_and_the_exact_values():
    names = [f"class {c}" for c in range(4)]
    means = {"a": [0.8, 1.2, 0.9, 1.1]}
    exact = [0.82, 1.18, 0.82, 1.18]
    fig = class_ratio_figure(names, means, exact)
    bar, marks = fig.data
    assert isinstance(bar, go.Bar) and list(bar.x) == names and list(bar.y) == means["a"]
    assert list(marks.x) == names and list(marks.y) == exact
    assert fig.layout.xaxis.title.text and fig.layout.yaxis.title.text
    with pytest.raises(ValueError, match="4 entries"):
        class_ratio_figure(names, {"a": [1.0, 1.0]}, exact)
