"""The figure and table helpers of the theory pages."""

import numpy as np

from gendel.plotting import theory as tp


def test_bound_figure_has_labelled_axes_and_both_sides():
    fig = tp.figure("title", cols=2, subplot_titles=("a", "b"))
    tp.add_measured(fig, [1, 2, 3], [1, 2, 3], band=([0, 1, 2], [2, 3, 4]), name="lhs", colour=tp.PALETTE[0], row=1, col=1)
    tp.add_bound(fig, [1, 2, 3], [4, 5, 6], name="rhs", colour=tp.PALETTE[1], row=1, col=2)
    tp.axes(fig, x="N", y="value", log_x=True)
    names = [t.name for t in fig.data]
    assert "lhs" in names and "rhs" in names
    assert fig.layout.xaxis.title.text == "N" and fig.layout.xaxis2.type == "log"
    assert fig.data[-1].line.dash == "dash"


def test_table_renders_verdicts():
    t = tp.Table(["claim", "value", "verdict"], [["a", 0.123456, True], ["b", np.float64(2.0), False]], fmt=".2f")
    html = t._repr_html_()
    assert "holds" in html and "does not hold" in html and "0.12" in html
    assert "claim" in repr(t)
    assert tp.verdict(False) == "does not hold"


def test_curves_avoid_the_model_colours_and_a_reference_line_can_sit_under_markers():
    from gendel.plotting.common import RESERVED

    assert not {c.upper() for c in tp.PALETTE} & {c.upper() for c in RESERVED}
    fig = tp.add_bound(tp.figure("t"), [1, 2], [3, 3], name="cap", colour=tp.PALETTE[4], dash="solid", width=9,
                       opacity=0.35)
    assert fig.data[0].line.width == 9 and fig.data[0].opacity == 0.35
