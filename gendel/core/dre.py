"""Density ratio estimators (DREs) between X and X \\ X' (§3).

A DRE estimates rho_hat = p_hat' / p_hat, the ratio between the re-trained and the pre-trained
model, from the training set X and the deletion set X' alone. Every estimator here follows the
same protocol::

    dre.fit(X, deleted)      # deleted: boolean mask (or row indices) of X' within X
    dre.log_ratio(Y)         # log rho_hat_E(y), shape (n,)
    dre.ratio_bound_         # a valid B >= sup rho_hat_E, when one is known

Classifier-based DREs (§3.1) train a soft classifier f(x) = Prob(x in X') against X \\ X', with
X \\ X' duplicated (Example 1: a point of X \\ X' belongs to both X and X \\ X'), and turn it into
a ratio by Bayes' rule, eq. (1):

    rho_hat_f(x) = N / (N - N') * (1 - f(x)) / (1 + f(x)).

Since (1 - f) / (1 + f) <= 1, every classifier DRE is bounded by B = N / (N - N').
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np
from scipy.spatial import cKDTree

from gendel._kernels import GaussianKernelSums
from gendel._validation import Estimator, check_bandwidth, check_count, check_deletion, check_kernel_scale, check_points, plain
from gendel.core.models import KDE


class DensityRatioEstimator(Estimator):
    """Common fitting and validation for DREs between X and X \\ X'.

    A subclass stores its keyword-only hyper-parameters in ``__init__``, checks them in ``_check_params``
    (called first by :meth:`fit`), and implements ``_fit`` and ``_log_ratio``. Use before ``fit``
    raises :class:`gendel._validation.NotFittedError`.

    Attributes
    ----------
    n_samples_ : int
        N, the size of X.
    n_deleted_ : int
        N', the size of the deletion set X'.
    dim_ : int
        The dimension d of the data.
    ratio_bound_ : float or None
        A known B >= sup_x rho_hat_E(x), or None when no bound is known.

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.core.dre import KernelClassifierDRE
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> dre = KernelClassifierDRE(bandwidth=0.5).fit(X, np.arange(10))
    >>> dre.n_samples_, dre.n_deleted_, dre.ratio_bound_   # doctest: +ELLIPSIS
    (40, 10, 1.333...)
    >>> dre.log_ratio(X[:3]).shape
    (3,)
    """

    ratio_bound_ = None

    def fit(self, X, deleted):
        """Fit the estimator on the training set ``X`` (N, d) and the deletion set ``deleted``.

        ``deleted`` is a boolean mask over the rows of X (True for X') or an array of row
        indices. Returns self.
        """
        self._check_params()
        X = check_points(X, "X")
        mask = check_deletion(deleted, len(X))
        # Until _fit succeeds the estimator counts as unfitted: a failed refit must not leave the
        # new sizes mixed with the previous classifier.
        self.__dict__.pop("_fitted", None)
        self.n_samples_, self.dim_ = X.shape
        self.n_deleted_ = int(mask.sum())
        self._fit(X[mask], X[~mask])
        self._fitted = True
        return self

    def log_ratio(self, Y):
        """log rho_hat_E(y) for every row y of ``Y``; shape (n,). May be -inf where the ratio is 0."""
        self._check_fitted()
        Y = check_points(Y, "Y", dim=self.dim_)
        return self._log_ratio(Y)

    def ratio(self, Y):
        """rho_hat_E(y) = exp(log_ratio(y))."""
        return np.exp(self.log_ratio(Y))

    @property
    def log_prior_ratio(self):
        """log N / (N - N'), the prior factor of eq. (1) and log of the classifier bound."""
        self._check_fitted()
        return self._log_prior()

    def _log_prior(self):
        return np.log(self.n_samples_) - np.log(self.n_samples_ - self.n_deleted_)

    def _check_params(self):
        """Check the hyper-parameters (sklearn's rule: in ``fit``, not ``__init__``)."""

    def _fit(self, X_deleted, X_kept):  # pragma: no cover - abstract
        raise NotImplementedError

    def _log_ratio(self, Y):  # pragma: no cover - abstract
        raise NotImplementedError


class ExactKDERatio(DensityRatioEstimator):
    """The ground truth rho_hat = p_KDE(.; X \\ X') / p_KDE(.; X) of the KDE learner (Example 1).

    This is not an estimator in the paper's sense (it needs the learner itself); it is the
    target every DRE is compared with. ``ratio_bound_`` is N / (N - N'): the sum over X \\ X'
    never exceeds the sum over X.

    Parameters
    ----------
    bandwidth : float
        sigma_A, the KDE learner's bandwidth (keyword-only), in [1e-150, 1e150].

    Attributes
    ----------
    pretrained_, retrained_ : gendel.core.models.KDE
        The KDEs on X and on X \\ X'.

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.core.dre import ExactKDERatio
    >>> X = np.array([[0.0], [0.1], [5.0]])
    >>> exact = ExactKDERatio(bandwidth=0.5).fit(X, np.array([2]))   # forget the point at 5
    >>> exact
    ExactKDERatio(bandwidth=0.5)
    >>> np.round(exact.ratio([[0.0], [5.0]]), 3)   # N / (N - N') = 1.5 near the kept points, 0 far from them
    array([1.5, 0. ])
    """

    def __init__(self, *, bandwidth):
        self.bandwidth = plain(bandwidth)

    def _check_params(self):
        check_bandwidth(self.bandwidth, "bandwidth")

    def _fit(self, X_deleted, X_kept):
        bandwidth = float(self.bandwidth)
        X = np.concatenate([X_deleted, X_kept])
        self.pretrained_ = KDE(bandwidth=bandwidth).fit(X)  # refuses X too far out in bandwidths
        self.retrained_ = KDE(bandwidth=bandwidth).fit(X_kept)
        self._sums = GaussianKernelSums([X_deleted, X_kept], bandwidth)
        self.ratio_bound_ = float(np.exp(self._log_prior()))

    def _log_ratio(self, Y):
        # Example 1 in one kernel pass: N/(N-N') * sum_{X \ X'} K / (sum_{X'} K + sum_{X \ X'} K).
        # The difference of the two KDEs' log densities would cancel catastrophically far from
        # the data (and could exceed ratio_bound_ there); this form never does.
        check_kernel_scale(Y, self._sums.shift, self._sums.bandwidth, "Y")
        sums = self._sums(Y)
        return self.log_prior_ratio + (sums[:, 1] - np.logaddexp(sums[:, 0], sums[:, 1]))


class ClassifierDRE(DensityRatioEstimator):
    """DRE from any probabilistic classifier, eq. (1) with X \\ X' duplicated (§3.1).

    Parameters
    ----------
    estimator : scikit-learn classifier
        Anything with ``fit(X, y)`` and ``predict_proba(X)``, e.g.
        ``sklearn.linear_model.LogisticRegression()`` (the paper's footnote). It is copied,
        then trained on X' (label 1) against two copies of X \\ X' (label 0). Positional or
        keyword, as the wrapped estimator of scikit-learn's meta-estimators
        (``CalibratedClassifierCV(estimator)``, ``SelectFromModel(estimator)``).

    Attributes
    ----------
    classifier_ : the fitted copy of ``estimator``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from gendel.core.dre import ClassifierDRE
    >>> X = np.random.default_rng(0).normal(size=(200, 2))
    >>> dre = ClassifierDRE(LogisticRegression()).fit(X, X[:, 0] > 1.0)
    >>> dre
    ClassifierDRE(estimator=LogisticRegression())
    >>> bool(dre.log_ratio([[-2.0, 0.0]])[0] > dre.log_ratio([[2.0, 0.0]])[0])
    True
    """

    def __init__(self, estimator):
        self.estimator = estimator

    def _check_params(self):
        estimator = self.estimator
        if not (hasattr(estimator, "fit") and hasattr(estimator, "predict_proba")):
            raise TypeError(
                "estimator must be a probabilistic classifier with fit(X, y) and predict_proba(X), "
                f"e.g. sklearn.linear_model.LogisticRegression(); got {type(estimator).__name__}"
            )

    def _fit(self, X_deleted, X_kept):
        X_aug, y_aug = duplicated_training_set(X_deleted, X_kept)
        self.classifier_ = copy.deepcopy(self.estimator).fit(X_aug, y_aug)
        classes = list(self.classifier_.classes_)
        self._positive = classes.index(1)
        self.ratio_bound_ = float(np.exp(self._log_prior()))

    def _log_f(self, Y):
        """Return log f(y) and log(1 - f(y)), f = Prob(y in X')."""
        f = self.classifier_.predict_proba(Y)[:, self._positive]
        with np.errstate(divide="ignore"):
            return np.log(f), np.log1p(-f)

    def _log_ratio(self, Y):
        log_f, log_1mf = self._log_f(Y)
        return self.log_prior_ratio + log_1mf - np.logaddexp(0.0, log_f)


class KernelClassifierDRE(ClassifierDRE):
    """Kernel-based classifier (KBC) DRE, eq. (3) with bandwidth sigma_C.

    f(x) = sum_{X'} K(x - x_i) / (sum_{X'} K(x - x_i) + 2 sum_{X \\ X'} K(x - x_i)),

    a weighted soft nearest-neighbour classifier with Gaussian kernel K = N(0, sigma_C^2 I) in
    which each point of X \\ X' has two votes. With sigma_C = sigma_A it recovers the ratio
    rho_hat of a KDE learner with bandwidth sigma_A exactly (Example 1).

    Parameters
    ----------
    bandwidth : float
        sigma_C (keyword-only), in [1e-150, 1e150].

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.core.dre import ExactKDERatio, KernelClassifierDRE
    >>> X = np.random.default_rng(0).normal(size=(50, 2))
    >>> kbc = KernelClassifierDRE(bandwidth=0.3).fit(X, np.arange(10))
    >>> kbc
    KernelClassifierDRE(bandwidth=0.3)
    >>> exact = ExactKDERatio(bandwidth=0.3).fit(X, np.arange(10))
    >>> bool(np.allclose(kbc.log_ratio(X), exact.log_ratio(X)))   # Example 1: sigma_C = sigma_A is exact
    True
    """

    def __init__(self, *, bandwidth):
        self.bandwidth = plain(bandwidth)

    def _check_params(self):
        check_bandwidth(self.bandwidth, "bandwidth")

    def _fit(self, X_deleted, X_kept):
        bandwidth = float(self.bandwidth)
        X = np.concatenate([X_deleted, X_kept])
        check_kernel_scale(X, X.mean(axis=0), bandwidth, "X")
        self._sums = GaussianKernelSums([X_deleted, X_kept], bandwidth)
        self.ratio_bound_ = float(np.exp(self._log_prior()))

    def _log_f(self, Y):
        check_kernel_scale(Y, self._sums.shift, self._sums.bandwidth, "Y")
        sums = self._sums(Y)
        log_del, log_kept2 = sums[:, 0], sums[:, 1] + np.log(2.0)
        log_den = np.logaddexp(log_del, log_kept2)
        return log_del - log_den, log_kept2 - log_den


class KNNClassifierDRE(ClassifierDRE):
    """k-nearest-neighbour classifier DRE (§5.1).

    f(x) is the fraction of points of X' among the k nearest neighbours of x in the training
    set of the classifier, X' together with two copies of X \\ X'. The ratio is 0 (log ratio
    -inf) where all k neighbours are deleted points.

    Parameters
    ----------
    k : int
        Number of neighbours (keyword-only), at least 1.

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.core.dre import KNNClassifierDRE
    >>> X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1]])
    >>> knn = KNNClassifierDRE(k=2).fit(X, np.array([3, 4]))   # forget the two points near 5
    >>> knn
    KNNClassifierDRE(k=2)
    >>> knn.log_ratio([[5.05]])   # both neighbours deleted: ratio 0
    array([-inf])
    """

    def __init__(self, *, k):
        self.k = plain(k)

    def _check_params(self):
        check_count(self.k, "k")

    def _fit(self, X_deleted, X_kept):
        X_aug, y_aug = duplicated_training_set(X_deleted, X_kept)
        if self.k > len(X_aug):
            raise ValueError(
                f"k={self.k} exceeds the {len(X_aug)} points of the classifier's training set "
                "(X' plus two copies of X \\ X'); choose a smaller k"
            )
        self._tree = cKDTree(X_aug)
        self._labels = y_aug.astype(np.float64)
        self._k = int(self.k)
        self.ratio_bound_ = float(np.exp(self._log_prior()))

    def _log_f(self, Y):
        _, idx = self._tree.query(Y, k=self._k, workers=-1)
        idx = idx.reshape(len(Y), self._k)
        f = self._labels[idx].mean(axis=1)
        with np.errstate(divide="ignore"):
            return np.log(f), np.log1p(-f)


def duplicated_training_set(X_deleted, X_kept):
    """The classifier's training set of §3.1: X' with label 1, two copies of X \\ X' with label 0.

    Examples
    --------
    >>> import numpy as np
    >>> X_aug, y_aug = duplicated_training_set(np.array([[9.0]]), np.array([[0.0], [1.0]]))
    >>> X_aug.ravel(), y_aug
    (array([9., 0., 1., 0., 1.]), array([1, 0, 0, 0, 0]))
    """
    X_aug = np.concatenate([X_deleted, X_kept, X_kept])
    y_aug = np.concatenate([np.ones(len(X_deleted), int), np.zeros(2 * len(X_kept), int)])
    return X_aug, y_aug


def _logistic_regression():
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression()


@dataclass(frozen=True)
class DREChoice:
    """One DRE family that the chapters, sweeps, figures, claims and panels offer by name.

    Parameters
    ----------
    label : str
        The family in a menu ("KBC (σ_C)").
    short : str
        The family in a table or a legend ("KBC").
    param : str or None
        The name of its hyper-parameter among the panels' settings ("sigma_c"), None when the
        family has none.
    symbol : str or None
        The hyper-parameter's symbol ("σ_C").
    estimator : type
        The estimator class.
    keyword : str or None
        The keyword of ``estimator`` that takes the hyper-parameter ("bandwidth").
    fmt : str
        How :meth:`describe` writes the hyper-parameter.

    Examples
    --------
    >>> choice = DRE_CHOICES["kbc"]
    >>> choice.make(0.1), choice.describe(0.1)
    (KernelClassifierDRE(bandwidth=0.1), 'KBC, σ_C = 0.100')
    >>> choice.value_of(choice.make(0.075))
    0.075
    """

    label: str
    short: str
    param: str | None
    symbol: str | None
    estimator: type
    keyword: str | None = None
    fmt: str = "{:g}"

    def make(self, value=None):
        """The unfitted estimator with hyper-parameter ``value`` (ignored by a family without one)."""
        if self.keyword is None:
            return self.estimator(_logistic_regression())
        return self.estimator(**{self.keyword: value})

    def value_of(self, dre):
        """The hyper-parameter of an estimator of this family (None when the family has none)."""
        return None if self.keyword is None else getattr(dre, self.keyword)

    def describe(self, value=None):
        """The estimator in words: "KBC, σ_C = 0.100" ("logistic regression" without a hyper-parameter)."""
        if self.param is None:
            return self.label
        return f"{self.short}, {self.symbol} = {self.fmt.format(value)}"


#: The DRE families by key: the one table that sweeps, figures, claims and panels read.
DRE_CHOICES = {
    "kbc": DREChoice("KBC (σ_C)", "KBC", "sigma_c", "σ_C", KernelClassifierDRE, "bandwidth", "{:.3f}"),
    "knn": DREChoice("kNN (k)", "kNN", "k", "k", KNNClassifierDRE, "k", "{:d}"),
    "logreg": DREChoice("logistic regression", "logistic", None, None, ClassifierDRE),
}
#: Short names of the two DRE families the synthetic chapter sweeps (from :data:`DRE_CHOICES`).
FAMILY_LABELS = {key: DRE_CHOICES[key].short for key in ("kbc", "knn")}


def make_dre(kind, value=None):
    """The unfitted DRE of family ``kind`` (a key of :data:`DRE_CHOICES`) with hyper-parameter ``value``.

    The one factory of DREs by name: sweeps, figures, claims and panels call it.

    Examples
    --------
    >>> make_dre("kbc", 0.075)
    KernelClassifierDRE(bandwidth=0.075)
    >>> make_dre("knn", 10)
    KNNClassifierDRE(k=10)
    >>> make_dre("logreg")
    ClassifierDRE(estimator=LogisticRegression())
    """
    return dre_choice(kind).make(value)


def dre_choice(kind):
    """The :class:`DREChoice` of key ``kind``, or a ValueError naming the keys.

    Examples
    --------
    >>> dre_choice("knn").short
    'kNN'
    """
    try:
        return DRE_CHOICES[kind]
    except (KeyError, TypeError):
        raise ValueError(f"dre must be one of {tuple(DRE_CHOICES)}; got {kind!r}") from None


def dre_family(dre):
    """The key of :data:`DRE_CHOICES` of the family ``dre`` belongs to, or None.

    A family with a hyper-parameter holds the estimators of its class; one without holds only
    what its ``make()`` builds (a ``ClassifierDRE`` around another classifier is of no family).

    Examples
    --------
    >>> dre_family(make_dre("knn", 5)), dre_family(make_dre("logreg")), dre_family(ExactKDERatio(bandwidth=0.1))
    ('knn', 'logreg', None)
    """
    for kind, choice in DRE_CHOICES.items():
        if type(dre) is not choice.estimator:
            continue
        if choice.keyword is not None or repr(dre) == repr(choice.make()):
            return kind
    return None
