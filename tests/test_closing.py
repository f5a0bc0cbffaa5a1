"""The closing page's table: every claim of every half, one row each, with a valid verdict.

Small constructed inputs, not the book's sweeps: KS tables for the 2-D rules, result records for
the GAN rules, bound checks for the theorems.
"""

import numpy as np
import pytest

from gendel import claims
from gendel.claims import summary
from gendel.claims import theory as th
from gendel.claims.synthetic import q1
from gendel.theory.bound_checks import BoundCheck

SIGMA_C = (0.05, 0.075, 0.1, 0.125, 0.15)
LAMBDAS = (0.6, 0.8, 0.9)
KNN_K = (5, 10, 20)


class FakeSweep:
    """What ``claims.q1`` reads from a sweep: ``lams``, ``results`` and ``ks(question, stat)``."""

    def __init__(self, lams, table):
        self.lams, self.table, self.results = tuple(lams), table, []

    def ks(self, question, stat="lr"):
        return np.asarray(self.table[stat], dtype=float)


def _sweeps(ckb_scale=1.5):
    """KS tables that grow away from sigma_A = 0.1 and shrink with lambda; CKB-8 ``ckb_scale`` times MoG-8."""
    dist = np.abs(np.array(SIGMA_C) - 0.1)[None, :]
    lam = np.array(LAMBDAS)[:, None]
    base = 2 * dist * (1.2 - lam)                      # 0 at sigma_A, larger for smaller lambda
    order = {"lr": 1.0, "asc-log": 0.9, "asc-tlogt": 0.8, "asc-hellinger": 1.1}
    out = {}
    for d, scale in (("mog8", 1.0), ("ckb8", ckb_scale)):
        kbc = {s: scale * f * base for s, f in order.items()}
        knn = {"lr": scale * np.full((len(LAMBDAS), len(KNN_K)), 0.05)}
        out[d] = {"kbc": FakeSweep(LAMBDAS, kbc), "knn": FakeSweep(LAMBDAS, knn)}
    return out


def _q1(sweeps):
    return q1(sweeps, sigma_c=SIGMA_C, sigma_a=0.1, R=250, knn_k=KNN_K)


def _gan_claims():
    """The GAN claims on the small stored gpu run (4 jobs)."""
    pytest.importorskip("torch")
    from gendel.claims.gan import claims as gan_claims
    from gendel.gan.result_files import stored_results

    return gan_claims(stored_results("gpu"))


def _checks(thm1_bound=1.0):
    """Deterministic bound checks: measured 0.5 against ``bound``; Thm. 2 fails at one scale."""
    def check(bound):
        return BoundCheck("stmt", "x", [1], [bound], [[0.5]], 0.0)
    c = dict.fromkeys(th.THEORY_EVIDENCE, [check(1.0)])
    return c | {"thm1": [check(thm1_bound)], "thm6": [check(1.0)] * 2, "thm2": [check(1.0), check(0.1)], "thm2_corrected": [check(1.0)] * 2,
                "thm3": [check(1.0), check(0.1)]}


def test_one_row_per_claim_of_each_half_with_a_known_verdict():
    sweeps = _sweeps()
    synthetic = {"Q1": _q1(sweeps)}
    gan = {"gpu": _gan_claims()}
    theory = th.theory(_checks())
    rows = summary.summary(synthetic, gan, theory)
    assert [r.half for r in rows] == ["2-D"] * len(synthetic["Q1"]) + ["GAN"] * len(gan["gpu"]) + ["theory"] * len(theory)
    assert [r.claim.key for r in rows if r.half == "theory"] == list(th.THEORY_EVIDENCE)
    assert all(r.claim.verdict in claims.VERDICTS for r in rows)
    assert sum(summary.counts(rows).values()) == len(rows)
    table = summary.table(rows)
    assert len(table) == len(rows) and all(len(cells) == len(summary.HEADER) for cells in table)
    # every row links to the page that checks it, and a section or theorem where there is one
    for r, cells in zip(rows, table):
        label = r.label or "no label"
        assert cells[1] == f"**{r.claim.verdict}**"
        if r.half == "theory":
            assert cells[-1].startswith(f"{{doc}}`{r.text} <{r.page}>`") and f"<{label}>`" in cells[-1]
        else:
            assert cells[-1] == f"{{ref}}`{r.text} <{label}>`"


def test_a_wrong_input_changes_a_verdict():
    """The same rules on a changed input give another verdict, and the counts follow."""
    def ckb_verdict(scale):
        rows = summary.summary({"Q1": _q1(_sweeps(ckb_scale=scale))})
        return next(r.claim.verdict for r in rows if r.claim.key == "ckb_harder"), summary.counts(rows)

    harder, counts_harder = ckb_verdict(1.5)
    easier, counts_easier = ckb_verdict(0.5)
    assert (harder, easier) == ("holds", "does not hold")
    assert counts_easier["holds"] == counts_harder["holds"] - 1

    right = {r.claim.key: r.claim.verdict for r in summary.summary(theory=th.theory(_checks(1.0)))}
    wrong = {r.claim.key: r.claim.verdict for r in summary.summary(theory=th.theory(_checks(0.1)))}
    assert right["thm1"] == "holds" and wrong["thm1"] == "does not hold"
    assert right["thm2"] == "partly"


def test_bad_inputs_say_what_to_pass():
    with pytest.raises(ValueError, match="questions"):
        summary.summary(synthetic={"Q4": []})
    with pytest.raises(TypeError, match="Claim"):
        summary.summary(theory=["holds"])
    with pytest.raises(ValueError, match="theory_checks"):
        th.theory({"thm1": []})
    with pytest.raises(ValueError, match="half"):
        summary.counts([], half="3-D")
