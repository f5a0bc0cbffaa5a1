"""Every estimator follows scikit-learn's conventions, so that its tools (clone, get_params) work.

- hyper-parameters are keyword-only, stored unchanged by ``__init__`` and checked by ``fit``;
- ``get_params`` / ``set_params`` / ``sklearn.base.clone`` round-trip, and the repr shows them;
- use before ``fit`` raises the one :class:`gendel._validation.NotFittedError`, a ValueError and
  an AttributeError;
- extreme finite inputs (bandwidths whose square leaves float64, points beyond 1e150, complex
  log ratios) are refused with a message naming the value, or computed correctly.
"""

import json

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError as SklearnNotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.utils.validation import check_is_fitted

from gendel._validation import NotFittedError
from gendel.core.deletion import ApproximateDeletion
from gendel.core.dre import ClassifierDRE, ExactKDERatio, KernelClassifierDRE, KNNClassifierDRE
from gendel.core.models import KDE
from gendel.deletion_test.stats import asc, ks_statistic, likelihood_ratio, mmd2_unbiased, psi
from gendel.theory.circle import WrappedGaussianKDE
from gendel.theory.quadrature import PeriodicGrid

X = np.random.default_rng(0).normal(size=(60, 2))
MASK = np.arange(60) < 12


def _torch(name):
    def make():
        pytest.importorskip("torch")
        from gendel.gan.classifier import LabelClassifier
        from gendel.gan.dcgan import DCGAN
        from gendel.gan.vdm import VDMDRE

        return {"VDMDRE": lambda: VDMDRE(epochs=3, width=8),
                "DCGAN": lambda: DCGAN(epochs=2, width=8),
                "LabelClassifier": lambda: LabelClassifier(epochs=2)}[name]()
    return make


# name: (factory, the repr, a parameter and a new value for it)
ESTIMATORS = {
    "KDE": (lambda: KDE(bandwidth=0.1), "KDE(bandwidth=0.1)", ("bandwidth", 0.2)),
    "ExactKDERatio": (lambda: ExactKDERatio(bandwidth=0.1), "ExactKDERatio(bandwidth=0.1)", ("bandwidth", 0.3)),
    "KernelClassifierDRE": (lambda: KernelClassifierDRE(bandwidth=0.1), "KernelClassifierDRE(bandwidth=0.1)",
                            ("bandwidth", 0.2)),
    "KNNClassifierDRE": (lambda: KNNClassifierDRE(k=10), "KNNClassifierDRE(k=10)", ("k", 5)),
    "ClassifierDRE": (lambda: ClassifierDRE(LogisticRegression(C=2.0)),
                      "ClassifierDRE(estimator=LogisticRegression(C=2.0))", ("estimator__C", 0.5)),
    "WrappedGaussianKDE": (lambda: WrappedGaussianKDE(bandwidth=0.05, period=2.0),
                           "WrappedGaussianKDE(bandwidth=0.05, period=2.0)", ("period", 3.0)),
    "VDMDRE": (_torch("VDMDRE"), "VDMDRE(epochs=3, width=8)", ("divergence", "js")),
    "DCGAN": (_torch("DCGAN"), "DCGAN(epochs=2, width=8)", ("latent_dim", 16)),
    "LabelClassifier": (_torch("LabelClassifier"), "LabelClassifier(epochs=2)", ("lr", 0.01)),
}


@pytest.mark.parametrize("name", ESTIMATORS)
def test_clone_round_trips_the_parameters(name):
    make, _, (param, value) = ESTIMATORS[name]
    est = make().set_params(**{param: value})
    twin = clone(est)
    assert twin is not est and type(twin) is type(est)
    assert repr(twin) == repr(est)
    assert twin.get_params(deep=True).keys() == est.get_params(deep=True).keys()
    assert twin.get_params(deep=True)[param] == value


@pytest.mark.parametrize("name", ESTIMATORS)
def test_set_params_changes_what_get_params_reports(name):
    make, _, (param, value) = ESTIMATORS[name]
    est = make()
    assert est.get_params(deep=True)[param] != value
    assert est.set_params(**{param: value}) is est
    assert est.get_params(deep=True)[param] == value
    with pytest.raises(ValueError, match="Invalid parameter"):
        est.set_params(no_such_parameter=1)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_repr_shows_the_parameters(name):
    make, expected, _ = ESTIMATORS[name]
    assert repr(make()) == expected


def test_parameters_are_plain_values():
    # numpy scalars (from np.linspace, np.arange) are stored as Python numbers: the repr reads
    # as the number and get_params(deep=False) is JSON-serialisable (the disk cache keys on it).
    kbc, knn = KernelClassifierDRE(bandwidth=np.float64(0.1)), KNNClassifierDRE(k=np.int64(10))
    assert repr(kbc) == "KernelClassifierDRE(bandwidth=0.1)" and repr(knn) == "KNNClassifierDRE(k=10)"
    assert json.dumps(knn.set_params(k=np.int64(7)).get_params(deep=False)) == '{"k": 7}'
    assert type(kbc.get_params()["bandwidth"]) is float


@pytest.mark.parametrize("call", [
    lambda: KDE(0.1), lambda: ExactKDERatio(0.1), lambda: KernelClassifierDRE(0.1), lambda: KNNClassifierDRE(10),
    lambda: WrappedGaussianKDE(0.05),
], ids=["KDE", "ExactKDERatio", "KernelClassifierDRE", "KNNClassifierDRE", "WrappedGaussianKDE"])
def test_positional_hyper_parameters_raise_type_error(call):
    with pytest.raises(TypeError, match="positional argument"):
        call()


def test_classifier_dre_takes_its_estimator_positionally_as_sklearn_meta_estimators():
    assert repr(ClassifierDRE(LogisticRegression())) == repr(ClassifierDRE(estimator=LogisticRegression()))


def test_hyper_parameters_are_checked_by_fit_and_the_clone_refits_identically():
    bad = KernelClassifierDRE(bandwidth=-1.0)  # stored, not checked: sklearn's rule
    with pytest.raises(ValueError, match="> 0"):
        bad.fit(X, MASK)
    fitted = KNNClassifierDRE(k=7).fit(X, MASK)
    again = clone(fitted)
    with pytest.raises(NotFittedError):
        again.log_ratio(X)  # a clone carries the parameters, not the fit
    np.testing.assert_array_equal(again.fit(X, MASK).log_ratio(X), fitted.log_ratio(X))


def _fitted_kde():
    return KDE(bandwidth=0.1).fit(X)


USE_BEFORE_FIT = {
    "KDE.log_prob": lambda: KDE(bandwidth=0.1).log_prob(X),
    "KDE.sample": lambda: KDE(bandwidth=0.1).sample(3, rng=0),
    "ExactKDERatio.log_ratio": lambda: ExactKDERatio(bandwidth=0.1).log_ratio(X),
    "KernelClassifierDRE.ratio": lambda: KernelClassifierDRE(bandwidth=0.1).ratio(X),
    "KNNClassifierDRE.log_prior_ratio": lambda: KNNClassifierDRE(k=3).log_prior_ratio,
    "ClassifierDRE.log_ratio": lambda: ClassifierDRE(LogisticRegression()).log_ratio(X),
    "WrappedGaussianKDE.density": lambda: WrappedGaussianKDE(bandwidth=0.1).density([0.5]),
    "WrappedGaussianKDE.sample": lambda: WrappedGaussianKDE(bandwidth=0.1).sample(3, rng=0),
    "WrappedGaussianKDE.on_grid": lambda: WrappedGaussianKDE(bandwidth=0.1).on_grid(PeriodicGrid(64)),
    "ApproximateDeletion, unfitted model": lambda: ApproximateDeletion(
        KDE(bandwidth=0.1), ExactKDERatio(bandwidth=0.1).fit(X, MASK)),
    "ApproximateDeletion, unfitted DRE": lambda: ApproximateDeletion(_fitted_kde(), KernelClassifierDRE(bandwidth=0.1)),
    "ApproximateDeletion.acceptance_rate_": lambda: ApproximateDeletion(
        _fitted_kde(), ExactKDERatio(bandwidth=0.1).fit(X, MASK)).acceptance_rate_,
    "VDMDRE.log_ratio": lambda: _torch("VDMDRE")().log_ratio(X),
    "DCGAN.sample": lambda: _torch("DCGAN")().sample(3, rng=0),
    "LabelClassifier.predict": lambda: _torch("LabelClassifier")().predict(np.zeros((2, 1, 28, 28), np.float32)),
}


@pytest.mark.parametrize("name", USE_BEFORE_FIT)
def test_use_before_fit_raises_not_fitted_error(name):
    with pytest.raises(NotFittedError, match=r"not fitted yet|set by sample\(\)") as info:
        USE_BEFORE_FIT[name]()
    assert isinstance(info.value, ValueError) and isinstance(info.value, AttributeError)
    assert "fit(" in str(info.value) or "sample(" in str(info.value)


@pytest.mark.parametrize("make, fit", [
    (lambda: KDE(bandwidth=0.1), lambda e: e.fit(X)),
    (lambda: KNNClassifierDRE(k=3), lambda e: e.fit(X, MASK)),
    (lambda: WrappedGaussianKDE(bandwidth=0.1), lambda e: e.fit(X[:, 0])),
], ids=["KDE", "KNNClassifierDRE", "WrappedGaussianKDE"])
def test_sklearn_check_is_fitted_agrees(make, fit):
    est = make()
    with pytest.raises(SklearnNotFittedError):
        check_is_fitted(est)
    check_is_fitted(fit(est))


def test_approximate_deletion_has_params_and_clones_onto_the_same_fitted_parts():
    exact = ExactKDERatio(bandwidth=0.1).fit(X, MASK)
    sampler = ApproximateDeletion(exact.pretrained_, exact, max_proposals=np.int64(10**6))
    params = sampler.get_params(deep=False)
    assert params == {"model": exact.pretrained_, "dre": exact, "bound": None, "max_proposals": 10**6, "max_seconds": 300.0}
    assert sampler.bound_ == exact.ratio_bound_
    twin = clone(sampler)
    assert twin.model is exact.pretrained_ and twin.dre is exact  # cloning them would drop their fit
    np.testing.assert_array_equal(twin.sample(50, rng=3), sampler.sample(50, rng=3))
    with pytest.raises(ValueError, match="smaller than the DRE's known bound"):
        sampler.set_params(bound=1.0)  # set_params checks again, as the constructor does


# ---- extreme finite inputs: refused with the value named and what to do, or computed correctly
FAR = np.array([[1e155, 0.0]])
EXTREMES = {
    "KDE bandwidth 1e-200": (lambda: KDE(bandwidth=1e-200).fit(X), ValueError, ["bandwidth=1e-200", "too small"]),
    "KDE bandwidth 1e200": (lambda: KDE(bandwidth=1e200).fit(X), ValueError, ["bandwidth=1e+200", "too large"]),
    "exact bandwidth 1e-200": (lambda: ExactKDERatio(bandwidth=1e-200).fit(X, MASK), ValueError,
                               ["bandwidth=1e-200", "Rescale"]),
    "KBC bandwidth 1e200": (lambda: KernelClassifierDRE(bandwidth=1e200).fit(X, MASK), ValueError,
                            ["bandwidth=1e+200", "Rescale"]),
    "circle bandwidth 1e-200": (lambda: WrappedGaussianKDE(bandwidth=1e-200).fit([0.5]), ValueError,
                                ["bandwidth=1e-200"]),
    "MMD bandwidth 1e-200": (lambda: mmd2_unbiased(X, X, bandwidth=1e-200), ValueError, ["bandwidth=1e-200"]),
    "MMD bandwidth 1e200": (lambda: mmd2_unbiased(X, X, bandwidth=1e200), ValueError, ["bandwidth=1e+200"]),
    "KDE training point 1e155": (lambda: KDE(bandwidth=0.1).fit(np.vstack([X, FAR])), ValueError,
                                 ["X has a coordinate of magnitude 1e+155", "Rescale"]),
    "KDE query 1e155": (lambda: _fitted_kde().log_prob(FAR), ValueError, ["Y has a coordinate of magnitude 1e+155"]),
    "kNN training point 1e155": (lambda: KNNClassifierDRE(k=3).fit(np.vstack([X, FAR]), np.arange(61) < 5),
                                 ValueError, ["1e+155", "Rescale"]),
    "kNN query 1e155": (lambda: KNNClassifierDRE(k=3).fit(X, MASK).log_ratio(FAR), ValueError, ["1e+155"]),
    "exact query 1e140 bandwidths 1e-20": (
        lambda: ExactKDERatio(bandwidth=1e-20).fit(X * 1e-20, MASK).log_ratio([[1e140, 0.0]]), ValueError,
        ["Y has a point 1e+140", "bandwidth=1e-20", "Rescale"]),
    "KBC data 1e160 bandwidths": (lambda: KernelClassifierDRE(bandwidth=1e-140).fit(X * 1e20, MASK), ValueError,
                                  ["X has a point", "bandwidth=1e-140"]),
    "MMD point 1e155": (lambda: mmd2_unbiased(np.vstack([X, FAR]), X), ValueError, ["1e+155"]),
    "LR complex": (lambda: likelihood_ratio(np.array([0.5 + 1j, 0.0])), TypeError, ["real-valued", "np.real"]),
    "ASC complex": (lambda: asc(np.zeros(2), np.array([0.5 + 1j, 0.0]), "log"), TypeError, ["log_ratio_Y", "real"]),
    "psi complex": (lambda: psi(np.array([0.5 + 1j]), "hellinger"), TypeError, ["real-valued"]),
    "KS complex": (lambda: ks_statistic(np.array([0.5 + 1j]), [1.0]), TypeError, ["real-valued"]),
}


@pytest.mark.parametrize("name", EXTREMES)
def test_extreme_inputs_are_refused_with_the_value_named(name):
    call, exc, words = EXTREMES[name]
    with pytest.raises(exc) as info:
        call()
    for word in words:
        assert word in str(info.value), f"{name}: {word!r} not in {str(info.value)!r}"


@pytest.mark.parametrize("scale", [1e-140, 1e140])
def test_kde_and_exact_ratio_are_scale_equivariant_at_extreme_scales(scale):
    # p(a y; a X, a sigma) = p(y; X, sigma) / a^d, and the ratio does not change at all.
    Y = X[:5] + 0.05
    base, scaled = KDE(bandwidth=0.3).fit(X), KDE(bandwidth=0.3 * scale).fit(X * scale)
    np.testing.assert_allclose(scaled.log_prob(Y * scale), base.log_prob(Y) - 2 * np.log(scale), rtol=1e-9)
    exact = ExactKDERatio(bandwidth=0.3).fit(X, MASK).log_ratio(Y)
    np.testing.assert_allclose(ExactKDERatio(bandwidth=0.3 * scale).fit(X * scale, MASK).log_ratio(Y * scale),
                               exact, rtol=1e-9, atol=1e-12)


def test_statistics_of_huge_log_ratios_do_not_overflow():
    assert likelihood_ratio([1e308, 1e308, 1e308]) == pytest.approx(1e308)
    assert likelihood_ratio([[-1e308, -1e308], [0.0, -np.inf]]).tolist() == [pytest.approx(-1e308), -np.inf]
    # psi(log t) = log t / (1 + t) -> 0 as t -> inf and -> log t as t -> 0
    assert asc(np.full(3, 1e308), np.full(3, -1e308), "log") == pytest.approx(-1e308)  # the sum -3e308 overflows
