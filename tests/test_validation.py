"""Bad inputs raise a ValueError / TypeError (or RuntimeError) whose message says what to do.

Each case: a call, the exception type, and words the message must contain.
"""

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression

from gendel.synthetic import data
from gendel.core.deletion import ApproximateDeletion
from gendel.core.dre import ClassifierDRE, ExactKDERatio, KernelClassifierDRE, KNNClassifierDRE
from gendel.synthetic.experiments import evaluate_on_grid, sweep, synthetic_statistics
from gendel.synthetic.sampling import Protocol, setup
from gendel.core.models import KDE
from gendel.deletion_test.stats import asc, ks_statistic, likelihood_ratio, mmd2_unbiased, psi

G = np.random.default_rng(0)
X = G.normal(size=(40, 2))
MASK = np.zeros(40, bool)
MASK[:8] = True


def fitted_kde():
    return KDE(bandwidth=0.1).fit(X)


def fitted_dre():
    return ExactKDERatio(bandwidth=0.1).fit(X, MASK)


class NoSample:
    pass


class ZeroRatio:
    def log_ratio(self, Y):
        return np.full(len(Y), -np.inf)


CASES = {
    # ---- points: shapes, dimensions, NaN / inf
    "fit 1-D array": (lambda: KDE(bandwidth=0.1).fit(np.zeros(5)), ValueError, ["2-D", "reshape(-1, 1)"]),
    "fit 3-D array": (lambda: KDE(bandwidth=0.1).fit(np.zeros((2, 2, 2))), ValueError, ["2-D", "(2, 2, 2)"]),
    "fit empty": (lambda: KDE(bandwidth=0.1).fit(np.zeros((0, 2))), ValueError, ["empty"]),
    "fit zero columns": (lambda: KDE(bandwidth=0.1).fit(np.zeros((3, 0))), ValueError, ["zero columns"]),
    "fit strings": (lambda: KDE(bandwidth=0.1).fit([["a", "b"]]), TypeError, ["numeric"]),
    "fit NaN": (lambda: KDE(bandwidth=0.1).fit(np.array([[0.0, np.nan], [1, 1]])), ValueError, ["NaN", "1 row"]),
    "fit inf": (lambda: KDE(bandwidth=0.1).fit(np.array([[0.0, np.inf]])), ValueError, ["infinite"]),
    "log_prob wrong dim": (lambda: fitted_kde().log_prob(np.zeros((3, 3))), ValueError, ["dimension 3", "dimension 2"]),
    "log_prob NaN": (lambda: fitted_kde().log_prob(np.full((1, 2), np.nan)), ValueError, ["NaN"]),
    "log_prob before fit": (lambda: KDE(bandwidth=0.1).log_prob(X), ValueError, ["not fitted", ".fit("]),
    "sample before fit": (lambda: KDE(bandwidth=0.1).sample(3, rng=0), ValueError, ["not fitted"]),
    "sample negative m": (lambda: fitted_kde().sample(-1, rng=0), ValueError, ["at least 0"]),
    "sample float m": (lambda: fitted_kde().sample(2.5, rng=0), TypeError, ["integer"]),
    "sample without rng": (lambda: fitted_kde().sample(3, rng=None), TypeError, ["default_rng"]),
    # ---- hyper-parameters: __init__ only stores them (scikit-learn's rule); fit checks them
    "bandwidth zero": (lambda: KDE(bandwidth=0).fit(X), ValueError, ["> 0"]),
    "bandwidth negative": (lambda: KernelClassifierDRE(bandwidth=-1.0).fit(X, MASK), ValueError, ["> 0"]),
    "bandwidth nan": (lambda: ExactKDERatio(bandwidth=float("nan")).fit(X, MASK), ValueError, ["finite"]),
    "bandwidth string": (lambda: KDE(bandwidth="0.1").fit(X), TypeError, ["positive number"]),
    "k zero": (lambda: KNNClassifierDRE(k=0).fit(X, MASK), ValueError, ["at least 1"]),
    "k float": (lambda: KNNClassifierDRE(k=2.0).fit(X, MASK), TypeError, ["integer"]),
    "k too large": (lambda: KNNClassifierDRE(k=100).fit(X, MASK), ValueError, ["exceeds", "smaller k"]),
    "not a classifier": (lambda: ClassifierDRE(LinearRegression()).fit(X, MASK), TypeError,
                         ["predict_proba", "LogisticRegression"]),
    # ---- deletion sets
    "empty deletion set": (lambda: ExactKDERatio(bandwidth=0.1).fit(X, np.zeros(40, bool)), ValueError, ["empty", "nothing to delete"]),
    "empty index list": (lambda: ExactKDERatio(bandwidth=0.1).fit(X, np.array([], int)), ValueError, ["empty"]),
    "delete everything": (lambda: KernelClassifierDRE(bandwidth=0.1).fit(X, np.ones(40, bool)), ValueError, ["every point", "keep at least one"]),
    "mask wrong length": (lambda: ExactKDERatio(bandwidth=0.1).fit(X, np.ones(39, bool)), ValueError, ["shape (40,)"]),
    "index out of range": (lambda: ExactKDERatio(bandwidth=0.1).fit(X, np.array([0, 40])), ValueError, ["subset"]),
    "negative index": (lambda: ExactKDERatio(bandwidth=0.1).fit(X, np.array([-1])), ValueError, ["subset"]),
    "duplicate index": (lambda: ExactKDERatio(bandwidth=0.1).fit(X, np.array([1, 1])), ValueError, ["duplicates"]),
    "0/1 integer mask": (lambda: ExactKDERatio(bandwidth=0.1).fit(X, MASK.astype(int)), ValueError, ["0/1 mask", "astype(bool)"]),
    "float mask": (lambda: ExactKDERatio(bandwidth=0.1).fit(X, MASK.astype(float)), TypeError, ["boolean mask", "indices"]),
    "2-D index array": (lambda: ExactKDERatio(bandwidth=0.1).fit(X, np.array([[1, 2]])), ValueError, ["1-D"]),
    # ---- DREs used wrongly
    "log_ratio before fit": (lambda: KernelClassifierDRE(bandwidth=0.1).log_ratio(X), ValueError, ["not fitted", ".fit("]),
    "log_ratio wrong dim": (lambda: fitted_dre().log_ratio(np.zeros((2, 5))), ValueError, ["dimension 5"]),
    "log_ratio inf": (lambda: fitted_dre().log_ratio(np.array([[np.inf, 0.0]])), ValueError, ["infinite"]),
    # ---- lambda and the data sets
    "lambda zero": (lambda: data.deletion_mask("mog8", np.zeros(5, int), 0.0, rng=0), ValueError, ["(0, 1]"]),
    "lambda above one": (lambda: data.deletion_mask("mog8", np.zeros(5, int), 1.5, rng=0), ValueError, ["(0, 1]"]),
    "lambda negative": (lambda: data.density("ckb8", np.zeros((1, 2)), -0.2), ValueError, ["(0, 1]"]),
    "lambda nan": (lambda: data.density("mog8", np.zeros((1, 2)), float("nan")), ValueError, ["(0, 1]"]),
    "lambda bool": (lambda: data.deletion_mask("mog8", np.zeros(5, int), True, rng=0), TypeError, ["(0, 1]"]),
    "lambda in protocol": (lambda: synthetic_statistics(Protocol("mog8", lam=0.0), KNNClassifierDRE(k=3)), ValueError, ["(0, 1]"]),
    "lambda in sweep": (lambda: sweep(Protocol("mog8"), [KNNClassifierDRE(k=3)], lams=[0.5, 2.0], progress=False), ValueError, ["(0, 1]"]),
    "lambda in setup": (lambda: setup(Protocol("mog8", lam=1.01)), ValueError, ["(0, 1]"]),
    "unknown dataset": (lambda: data.sample("moons", 5, rng=0), ValueError, ["mog8", "ckb8"]),
    "n zero": (lambda: data.mog8(0, rng=0), ValueError, ["at least 1"]),
    "no rng": (lambda: data.ckb8(5, rng=None), TypeError, ["Generator"]),
    "variance zero": (lambda: data.mog8(5, rng=0, variance=0.0), ValueError, ["variance", "> 0"]),
    "component ids out of range": (lambda: data.deletion_mask("mog8", np.array([0, 8]), 0.5, rng=0), ValueError, ["0..7"]),
    "component ids float": (lambda: data.deletion_mask("mog8", np.array([0.0, 1.0]), 0.5, rng=0), ValueError, ["integer"]),
    "density 3-D points": (lambda: data.density("mog8", np.zeros((2, 3))), ValueError, ["dimension 3"]),
    # ---- Alg. 1
    "model without sample": (lambda: ApproximateDeletion(NoSample(), fitted_dre()), TypeError, ["sample(m, rng=...)"]),
    "dre without log_ratio": (lambda: ApproximateDeletion(fitted_kde(), NoSample(), bound=2.0), TypeError, ["log_ratio"]),
    "no known bound": (lambda: ApproximateDeletion(fitted_kde(), ZeroRatio()), ValueError, ["no known bound", "bound=B"]),
    "bound below known": (lambda: ApproximateDeletion(fitted_kde(), fitted_dre(), bound=1.0), ValueError, ["smaller", "N / (N - N')", "bound=None"]),
    "bound zero": (lambda: ApproximateDeletion(fitted_kde(), ZeroRatio(), bound=0.0), ValueError, ["bound", "> 0"]),
    "unfitted dre": (lambda: ApproximateDeletion(fitted_kde(), KernelClassifierDRE(bandwidth=0.1)), ValueError, ["not fitted"]),
    "cannot accept": (lambda: ApproximateDeletion(fitted_kde(), ZeroRatio(), bound=1.0, max_proposals=1000).sample(5, rng=0),
                      RuntimeError, ["1000 proposals", "0 of 5", "check the DRE and the bound"]),
    "B too large for the default limit": (lambda: ApproximateDeletion(fitted_kde(), fitted_dre(), bound=1e12).sample(10, rng=0),
                                          ValueError, ["m * B", "tighter bound", "max_proposals="]),
    "acceptance rate before sampling": (lambda: ApproximateDeletion(fitted_kde(), fitted_dre()).acceptance_rate_,
                                        AttributeError, ["set by sample()", "first"]),
    "unfitted model": (lambda: ApproximateDeletion(KDE(bandwidth=0.1), fitted_dre()), ValueError,
                       ["model KDE(bandwidth=0.1) is not fitted", "model.fit("]),
    "sample zero points": (lambda: ApproximateDeletion(fitted_kde(), fitted_dre()).sample(0, rng=0), ValueError, ["at least 1"]),
    # ---- statistics
    "LR of NaN": (lambda: likelihood_ratio(np.array([0.0, np.nan])), ValueError, ["NaN", "+inf"]),
    "LR of +inf": (lambda: likelihood_ratio(np.array([0.0, np.inf])), ValueError, ["+inf"]),
    "LR of nothing": (lambda: likelihood_ratio(np.zeros((3, 0))), ValueError, ["at least one sample"]),
    "LR of scalar": (lambda: likelihood_ratio(0.5), ValueError, ["at least one sample"]),
    "ASC batch mismatch": (lambda: asc(np.zeros((3, 5)), np.zeros((4, 5)), "log"), ValueError, ["batch shape"]),
    "ASC unknown phi": (lambda: asc(np.zeros(5), np.zeros(5), "kl"), ValueError, ["phi", "callable"]),
    "psi unknown phi": (lambda: psi(np.zeros(3), 3), ValueError, ["phi"]),
    "MMD one sample": (lambda: mmd2_unbiased(np.zeros((1, 2)), np.zeros((5, 2))), ValueError, ["at least two"]),
    "MMD dimension mismatch": (lambda: mmd2_unbiased(np.zeros((3, 2)), np.zeros((3, 3))), ValueError, ["dimension"]),
    "MMD bandwidth": (lambda: mmd2_unbiased(np.zeros((3, 2)), np.zeros((3, 2)), bandwidth=-1.0), ValueError, ["> 0"]),
    "KS empty": (lambda: ks_statistic([], [1.0]), ValueError, ["non-empty"]),
    "KS NaN": (lambda: ks_statistic([np.nan], [1.0]), ValueError, ["NaN"]),
    # ---- protocol
    "protocol empty deletion set": (lambda: synthetic_statistics(Protocol("mog8", lam=1.0, N=50, m=10, R=2), KNNClassifierDRE(k=3)),
                                    ValueError, ["empty", "smaller lam"]),
    "protocol N too small": (lambda: synthetic_statistics(Protocol("mog8", lam=0.5, N=1), KNNClassifierDRE(k=3)), ValueError, ["N", "at least 2"]),
    "protocol R too small": (lambda: synthetic_statistics(Protocol("mog8", lam=0.5, R=1), KNNClassifierDRE(k=3)), ValueError, ["R", "at least 2"]),
    "protocol not a DRE": (lambda: synthetic_statistics(Protocol("mog8", lam=0.5), object()), TypeError, ["fit(X, deleted)", "log_ratio"]),
    "protocol unknown dataset": (lambda: synthetic_statistics(Protocol("mog-9", lam=0.5), KNNClassifierDRE(k=3)), ValueError, ["dataset"]),
    "sweep label count": (lambda: sweep(Protocol("mog8"), [KNNClassifierDRE(k=3)], lams=[0.5], labels=["a", "b"], progress=False),
                          ValueError, ["2 labels", "1 DREs"]),
    "grid resolution": (lambda: evaluate_on_grid(lambda P: P[:, 0], (0, 1, 0, 1), resolution=1), ValueError, ["at least 2"]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_raises_a_helpful_error(name):
    call, exc, words = CASES[name]
    with pytest.raises(exc) as info:
        call()
    message = str(info.value)
    for word in words:
        assert word in message, f"{name}: {word!r} not in {message!r}"


def test_complex_points_are_refused():
    X = np.random.default_rng(0).normal(size=(20, 2))
    dre = KernelClassifierDRE(bandwidth=0.5).fit(X, np.arange(4))
    with pytest.raises(TypeError, match="real-valued"):
        dre.log_ratio(np.array([[0.1 + 5j, 0.2]]))


def test_density_refuses_a_variance_for_ckb8():
    with pytest.raises(ValueError, match="MoG-8 component variance"):
        data.density("ckb8", np.zeros((1, 2)), 0.8, variance=0.01)


def test_callable_phi_without_a_limit_at_zero_is_refused():
    # t log t is NaN at t = 0 in floating point; a kNN ratio can be exactly 0.
    with pytest.raises(ValueError, match="gave NaN"):
        asc(np.zeros((1, 3)), np.array([[0.0, -np.inf, 0.0]]), lambda t: t * np.log(t))
