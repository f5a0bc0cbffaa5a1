"""The live label panel of the GAN chapter: its bars are Alg. 1's label distribution at the chosen B."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("torch")

from gendel.gan.labels import bound_label_distribution, tv_distance  # noqa: E402
from gendel.gan.result_files import stored_results  # noqa: E402
from gendel.panels.gan import LabelPanel  # noqa: E402


@pytest.fixture(scope="module")
def results():
    return stored_results("gpu")


def test_bars_follow_the_bound_and_the_deletion_set(results, monkeypatch):
    import comm

    monkeypatch.setattr(comm, "create_comm", comm.DummyComm)
    panel = LabelPanel(results)
    r = next(r for r in results if r.dataset == "mnist" and r.setting == "even")
    panel.set(dataset="mnist", setting="even", lam=0.7, bound=1.2)
    bars, rate = panel.bars()
    expected, expected_rate = bound_label_distribution(r.arrays["pre_labels"], r.arrays["pre_log_ratio"], 1.2)
    np.testing.assert_allclose(bars["approx"], expected)
    assert rate == pytest.approx(expected_rate)
    np.testing.assert_allclose(panel.figure.data[2].y, expected)
    assert "B = 1.20" in panel.figure.layout.title.text
    # the legend writes the DRE's ratio as the prose does, ρ̂ with a script ℰ, and shows no raw "_"
    assert [t.name for t in panel.figure.data][2] == "approximated ρ̂<sub>ℰ</sub>·p̂"
    assert not any("_" in t.name for t in panel.figure.data)
    # B = 1 clips every ratio above 1 (the kept labels' boost): the bars move back towards p_hat
    panel.set(bound=1.0)
    clipped = panel.bars()[0]["approx"]
    panel.set(bound=10.0)
    assert tv_distance(panel.bars()[0]["approx"], clipped) > 0.01
    panel.set(setting="odd")
    assert panel.bars()[0]["re"][1] != bars["re"][1]


def test_refuses_a_missing_deletion_set_and_bad_bound(results, monkeypatch):
    import comm

    monkeypatch.setattr(comm, "create_comm", comm.DummyComm)
    panel = LabelPanel(results)
    with pytest.raises(ValueError, match="odd-0.9"):
        panel.set(setting="odd", lam=0.9)
    with pytest.raises(ValueError, match="bound"):
        panel.set(bound=0.5)
    import dataclasses

    with pytest.raises(ValueError, match="no results"):
        LabelPanel([dataclasses.replace(r, arrays={}) for r in results])
