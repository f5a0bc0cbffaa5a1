"""The rules behind the VDM page's sentences (gendel.claims.vdm): each word follows its numbers,
both ways."""

import pytest

from gendel.claims import vdm

GOOD, FAR, UNNORMALISED = ("KL", 2, 0.95, 0.1, 1.02), ("χ²", 2, 0.85, 0.1, 0.97), ("χ²", 2, 0.95, 0.1, 1.2)


@pytest.mark.parametrize("rows, words", [
    ([GOOD, GOOD[:0] + ("χ²", 2, 0.91, 0.2, 0.95)], "both estimators clear these thresholds"),
    ([GOOD, FAR], "χ² does not clear them"),
    ([GOOD, UNNORMALISED], "χ² does not clear them"),
    ([FAR, ("KL", 2, 0.5, 0.1, 1.0)], "χ² and KL do not clear them"),
    ([GOOD], "every estimator clears these thresholds"),
])
def test_threshold_reading_names_what_fails(rows, words):
    assert vdm.threshold_reading(rows) == words


def test_correlation_change_follows_the_means():
    assert vdm.correlation_change([GOOD, GOOD], [GOOD, FAR]) == "drops"
    assert vdm.correlation_change([GOOD, FAR], [GOOD, GOOD]) == "does not drop"


def test_image_readings_each_word_both_ways():
    exact = dict(exact_even=0.824, exact_odd=1.176)
    good = vdm.image_readings(("plain", 1.05, 0.9, 1.1, 0.01), ("BN", 1.05, 0.9, 1.1, 0.01), 0.165, **exact)
    bad = vdm.image_readings(("plain", 1.2, 1.1, 0.9, 0.3), ("BN", 0.8, 0.9, 1.1, 0.3), 0.165, **exact)
    assert good == {"img_check": "passes the check", "img_order": "orders the classes correctly",
                    "img_pulled": "still pulled towards 1", "bn_check": "within", "bn_bound": "below",
                    "plain_bound": "below"}
    assert bad == {"img_check": "fails the check", "img_order": "does not order the classes",
                   "img_pulled": "still pulled towards 1", "bn_check": "off by more than", "bn_bound": "above",
                   "plain_bound": "above"}
    overshoot = vdm.image_readings(("plain", 1.0, 0.7, 1.3, 0.01), ("BN", 1.0, 0.9, 1.1, 0.01), 0.165, **exact)
    assert (overshoot["img_order"], overshoot["img_pulled"]) == ("orders the classes correctly", "not pulled towards 1")


def test_objective_readings_each_word_both_ways():
    close = vdm.objective_readings([0.0, 0.016], [0.1, 0.1], kl_class=0.0157, bound=0.165)
    assert (close["plain_vs_kl"], close["plain_vs_bound"], close["bn_epoch"]) == ("close to", "below",
                                                                                  "in none of the 2 epochs")
    assert close["plain_learns"] == "it learns the deletion and does not memorise"
    far = vdm.objective_readings([0.0, 0.2], [0.1, 0.2, 0.3], kl_class=0.0157, bound=0.165)
    assert (far["plain_vs_kl"], far["plain_vs_bound"], far["bn_epoch"]) == ("above", "above", "from epoch 2 on")
    assert vdm.objective_readings([0.001], [0.0], kl_class=0.0157, bound=0.165)["plain_vs_kl"] == "below"
