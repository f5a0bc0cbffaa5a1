"""Checks for the lab "one repeat of the protocol, by hand" (``book/course/lab.md``).

In the lab a student writes one repeat of the §5.1 protocol: the data and the deletion set, the
KDE learner and the KBC density ratio estimator, the four sample sets Y_hat, Y_D (by Alg. 1,
written with numpy), Y_H0 and Y_H1, their LR and ASC statistics, a KS statistic, and the deletion
test. After each step a cell calls ``check.step<n>(...)`` of :class:`LabChecks`, which compares the
student's result with gendel's own computation along an independent path and prints
"✓ step n: ..." when they agree; otherwise it raises an ``AssertionError`` that says what is wrong
and gives a hint.

- Exact quantities (the data, the densities, the statistics, the KS statistic, the p-value) are
  compared numerically, against formulas evaluated here with numpy or scipy, or against the
  package's statistics on the student's own samples.
- Random draws are compared in distribution: a mean over the m draws must lie within
  :data:`Z` standard errors of its expectation, estimated from a large reference sample
  (``n_reference`` draws); the acceptance rate of Alg. 1 must lie within Z binomial standard
  errors of E_p_hat[rho_hat_E] / B. A correct solution fails one such check with probability
  about 7e-6.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy.special import expit, logsumexp
from scipy.stats import ks_2samp

from gendel.core.dre import KernelClassifierDRE
from gendel.synthetic.sampling import Protocol, setup
from gendel.deletion_test.stats import asc as _asc
from gendel.deletion_test.stats import likelihood_ratio

#: Tolerance of the distributional checks, in standard errors.
Z = 4.5
#: The sample sets of step 3 and what each is drawn from.
SETS = {"Yhat": "p_hat (the reference sample of ASC)", "D": "rho_hat_E * p_hat by Alg. 1",
        "H0": "p_hat (q under H0)", "H1": "p_hat' (q under H1)"}
#: The sets whose statistics step 4 asks for.
TESTED = ("D", "H0", "H1")


def _ok(step, text, *details):
    print("\n".join([f"✓ step {step}: {text}"] + [f"          {d}" for d in details]))


def _fail(step, what, hint):
    raise AssertionError(f"step {step}: {what}. Hint: {hint}")


def _kde_log_density(Y, centres, bandwidth):
    """log of the Gaussian KDE (1/N) sum_i N(y; x_i, sigma^2 I), straight from the formula."""
    Y, centres = np.asarray(Y, float), np.asarray(centres, float)
    sq = ((Y[:, None, :] - centres[None, :, :]) ** 2).sum(-1)
    d = Y.shape[1]
    return (logsumexp(-sq / (2 * bandwidth**2), axis=1) - np.log(len(centres))
            - 0.5 * d * np.log(2 * np.pi * bandwidth**2))


class LabChecks:
    """The checks of the lab, one method per step, for one protocol.

    Parameters
    ----------
    protocol : Protocol
        The settings of the lab (data set, lambda, N, m, sigma_A, seed).
    sigma_c : float, optional
        The KBC bandwidth sigma_C of step 2 (default: sigma_A, where the KBC equals rho_hat).
    n_reference : int
        Draws of p_hat and p_hat' behind the expectations of the distributional checks.
    seed : int
        Seed of the reference draws (independent of the protocol's streams).

    Examples
    --------
    >>> from gendel.synthetic.sampling import Protocol, setup
    >>> check = LabChecks(Protocol("mog8", 0.5, N=40, m=10), n_reference=2000)
    >>> X, deleted, _ = setup(check.protocol)
    >>> check.step1(X, deleted, 40 / (40 - deleted.sum()))
    ✓ step 1: X is (40, 2), N' = 5 points deleted, B = N / (N - N') = 1.143
    >>> check.step5(lambda a, b: 0.0)   # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    AssertionError: step 5: ks([0, 1, 2, 3], [2.5, 3.5, 4.5, 5.5]) gave 0, expected 0.75. Hint: ...
    """

    def __init__(self, protocol, *, sigma_c=None, n_reference=200_000, seed=12345):
        if not isinstance(protocol, Protocol):
            raise TypeError(f"protocol must be a gendel.synthetic.sampling.Protocol, e.g. Protocol('mog8', 0.5); got {protocol!r}")
        self.protocol = protocol
        self.sigma_c = protocol.sigma_a if sigma_c is None else float(sigma_c)
        self.n_reference = int(n_reference)
        self.seed = seed

    @functools.cached_property
    def _fixed(self):
        X, deleted, _ = setup(self.protocol)
        return X, deleted, KernelClassifierDRE(bandwidth=self.sigma_c).fit(X, deleted)

    @functools.cached_property
    def _reference(self):
        """log rho_hat_E on large samples of p_hat and p_hat' (drawn with the KDE formula's own sampler)."""
        X, deleted, dre = self._fixed
        rng = np.random.default_rng(self.seed)
        out = {}
        for key, centres in (("pre", X), ("post", X[~deleted])):
            idx = rng.integers(len(centres), size=self.n_reference)
            Y = centres[idx] + self.protocol.sigma_a * rng.standard_normal((self.n_reference, X.shape[1]))
            out[key] = dre.log_ratio(Y)
        return out

    def _within(self, values, expected_mean, sd):
        """Whether the mean of ``values`` lies within Z standard errors of ``expected_mean``."""
        se = sd / np.sqrt(len(values)) + sd / np.sqrt(self.n_reference)
        return abs(float(np.mean(values)) - expected_mean) <= Z * se

    def step1(self, X, deleted, B):
        """Step 1: the training set X, the deletion mask of X' and the bound B = N / (N - N')."""
        p = self.protocol
        X_ref, deleted_ref, _ = self._fixed
        X, deleted = np.asarray(X), np.asarray(deleted)
        if X.shape != X_ref.shape:
            _fail(1, f"X has shape {X.shape}, expected {X_ref.shape} (N = {p.N} points in 2-D)",
                  "draw N points with gendel.synthetic.data.sample(protocol.dataset, protocol.N, rng=s['data'])")
        if not np.allclose(X, X_ref):
            _fail(1, "X differs from the protocol's data set",
                  "use the stream s['data'] of s = gendel.synthetic.sampling.streams(protocol.seed), and nothing else before it")
        if deleted.dtype != bool or deleted.shape != (p.N,):
            _fail(1, f"deleted must be a boolean mask of shape ({p.N},); got dtype {deleted.dtype}, shape {deleted.shape}",
                  "gendel.synthetic.data.deletion_mask returns the mask: True for the points of X'")
        if not np.array_equal(deleted, deleted_ref):
            _fail(1, f"the deletion mask has {int(deleted.sum())} points, the protocol's has {int(deleted_ref.sum())} "
                  "or others", "call gendel.synthetic.data.deletion_mask(dataset, component, protocol.lam, rng=s['mask'])")
        n_del = int(deleted.sum())
        if not np.isclose(float(B), p.N / (p.N - n_del)):
            _fail(1, f"B = {float(B):.4g}, expected N / (N - N') = {p.N / (p.N - n_del):.4g}",
                  "N' is the number of deleted points, deleted.sum()")
        _ok(1, f"X is {X.shape}, N' = {n_del} points deleted, B = N / (N - N') = {float(B):.4g}")

    def step2(self, p_hat, p_hat_prime, dre):
        """Step 2: the pre-trained KDE p_hat (on X), the re-trained p_hat' (on X \\ X') and the fitted KBC."""
        X, deleted, _ = self._fixed
        sigma = self.protocol.sigma_a
        rng = np.random.default_rng(self.seed + 1)
        Y = X[rng.integers(len(X), size=500)] + 2 * sigma * rng.standard_normal((500, X.shape[1]))
        pre, post = _kde_log_density(Y, X, sigma), _kde_log_density(Y, X[~deleted], sigma)
        for name, model, want, other in (("p_hat", p_hat, pre, post), ("p_hat_prime", p_hat_prime, post, pre)):
            got = np.asarray(model.log_prob(Y))
            if not np.allclose(got, want, atol=1e-8):
                hint = (f"fit {name} on the other set: p_hat on X, p_hat_prime on X[~deleted]"
                        if np.allclose(got, other, atol=1e-8) else
                        f"models.KDE(bandwidth=protocol.sigma_a), i.e. sigma_A = {sigma:g}")
                _fail(2, f"{name}.log_prob differs from the Gaussian KDE formula (max error "
                      f"{np.max(np.abs(got - want)):.3g})", hint)
        got = np.asarray(dre.log_ratio(Y))
        if not np.allclose(got, post - pre, atol=1e-6):
            _fail(2, "dre.log_ratio is not log p_hat' - log p_hat, which the KBC with sigma_C = sigma_A equals",
                  f"dre.KernelClassifierDRE(bandwidth={self.sigma_c:g}).fit(X, deleted): X and the mask, not X[~deleted]")
        _ok(2, "both KDEs match the kernel formula at 500 points,",
            "and there log rho_hat_E = log p_hat' - log p_hat")

    def step3(self, sets, n_accepted, n_proposed):
        """Step 3: the four sample sets and the counts of Alg. 1 (accepted and proposed points)."""
        m = self.protocol.m
        missing = set(SETS) - set(sets)
        if missing:
            _fail(3, f"sets lacks {sorted(missing)}", f"sets needs the keys {list(SETS)}")
        for key in SETS:
            shape = np.shape(sets[key])
            if shape != (m, 2):
                _fail(3, f"sets[{key!r}] has shape {shape}, expected (m, 2) = ({m}, 2)",
                      f"draw exactly m points of {SETS[key]}")
        if np.array_equal(sets["Yhat"], sets["H0"]):
            _fail(3, "Y_hat and Y_H0 are the same points", "draw them independently: two calls of p_hat.sample")
        n_accepted, n_proposed = int(n_accepted), int(n_proposed)
        if not 0 < n_accepted <= n_proposed:
            _fail(3, f"n_accepted = {n_accepted} and n_proposed = {n_proposed}",
                  "count every proposal y ~ p_hat you drew, and the ones you accepted")
        _, _, dre = self._fixed
        ref = self._reference
        B = dre.ratio_bound_
        rho_pre = np.exp(ref["pre"])
        a = float(rho_pre.mean()) / B
        rate = n_accepted / n_proposed
        if abs(rate - a) > Z * np.sqrt(a * (1 - a) / n_proposed) + 1e-3:
            _fail(3, f"Alg. 1 accepted {rate:.3f} of its proposals; a correct sampler accepts "
                  f"E[rho_hat_E] / B = {a:.3f} of them", "accept y when rho_hat_E(y) > B * u with u ~ Uniform[0, 1]: "
                  "with probability rho_hat_E(y) / B, not B / rho_hat_E(y) nor 1 - rho_hat_E(y) / B")
        mean_d = float((rho_pre**2).mean() / rho_pre.mean())  # E_{rho p_hat}[rho] = E_p[rho^2] / E_p[rho]
        sd_d = float(np.sqrt(max((rho_pre**3).mean() / rho_pre.mean() - mean_d**2, 1e-12)))
        rho_d = np.exp(dre.log_ratio(np.asarray(sets["D"])))
        if not self._within(rho_d, mean_d, sd_d):
            _fail(3, f"the mean ratio on Y_D is {rho_d.mean():.3f}; samples of rho_hat_E * p_hat have "
                  f"E[rho_hat_E] = {mean_d:.3f}", "return the accepted proposals, not all of them or the rejected ones")
        for key, want, wrong in (("Yhat", "pre", "post"), ("H0", "pre", "post"), ("H1", "post", "pre")):
            log = dre.log_ratio(np.asarray(sets[key]))
            if not self._within(log, float(ref[want].mean()), float(ref[want].std())):
                hint = ("this looks like the other model: Y_hat and Y_H0 come from p_hat, Y_H1 from p_hat_prime"
                        if self._within(log, float(ref[wrong].mean()), float(ref[wrong].std())) else
                        f"draw {SETS[key]} with its .sample(m, rng=rng)")
                _fail(3, f"the mean log ratio on Y_{key} is {log.mean():.3f}, expected "
                      f"{ref[want].mean():.3f} for {SETS[key]}", hint)
        _ok(3, f"four sets of {m} points, each like its model;",
            f"Alg. 1 accepted {rate:.3f} of its proposals (expected {a:.3f}),",
            f"mean ratio on Y_D {rho_d.mean():.3f} (expected {mean_d:.3f})")

    def step4(self, sets, lr, asc):
        """Step 4: LR(Y, rho_hat_E) and ASC(Y, rho_hat_E) with phi = log, for Y_D, Y_H0 and Y_H1."""
        _, _, dre = self._fixed
        log_hat = dre.log_ratio(np.asarray(sets["Yhat"]))
        for key in TESTED:
            if key not in lr or key not in asc:
                _fail(4, f"lr and asc need the keys {list(TESTED)}", "one value per tested set: D, H0, H1")
            log = dre.log_ratio(np.asarray(sets[key]))
            want = float(likelihood_ratio(log))
            if not np.isclose(float(lr[key]), want, rtol=1e-9, atol=1e-12):
                hint = ("that is the mean of rho_hat_E, not of log rho_hat_E"
                        if np.isclose(float(lr[key]), np.exp(log).mean()) else
                        "LR(Y) is the mean of log rho_hat_E(y) over the m points y of Y (§4.1)")
                _fail(4, f"lr[{key!r}] = {float(lr[key]):.6g}, expected {want:.6g}", hint)
            want = float(_asc(log_hat, log, "log"))
            if not np.isclose(float(asc[key]), want, rtol=1e-9, atol=1e-12):
                half = float(np.mean(log * expit(-log)))
                hint = ("you have only the Y half: add the mean of psi over Y_hat"
                        if np.isclose(float(asc[key]), half) else
                        "ASC = mean over Y_hat of psi(rho) + mean over Y of psi(rho), psi(t) = log(t) / (1 + t) (§4.2)")
                _fail(4, f"asc[{key!r}] = {float(asc[key]):.6g}, expected {want:.6g}", hint)
        _ok(4, "LR and ASC of Y_D, Y_H0 and Y_H1 match gendel.deletion_test.stats")

    def step5(self, ks):
        """Step 5: a function ``ks(a, b)``, the two-sample Kolmogorov-Smirnov statistic sup_t ``|F_a(t) - F_b(t)|``."""
        rng = np.random.default_rng(self.seed + 2)
        cases = [([0, 1, 2, 3], [2.5, 3.5, 4.5, 5.5]), ([2.5, 3.5, 4.5, 5.5], [0, 1, 2, 3]),
                 ([0, 0, 1, 1], [0, 1, 1, 1]), ([0, 1, 1, 2, 5], [1, 1, 3]),
                 (rng.normal(size=50), rng.normal(0.5, size=70)), (rng.normal(size=30), rng.normal(size=30))]
        for a, b in cases:
            want = float(ks_2samp(a, b).statistic)
            got = ks(np.asarray(a, float), np.asarray(b, float))
            if not np.isclose(float(got), want, atol=1e-12):
                hint = ("ks(a, b) and ks(b, a) must be equal: take |F_a(t) - F_b(t)| at every point t of a and of b"
                        if np.isclose(float(ks(np.asarray(b, float), np.asarray(a, float))), want) else
                        "F_a(t) is the share of a that is <= t; evaluate both at every point of a and b")
                shown = (f"ks({list(a)}, {list(b)})" if len(a) < 10 else f"ks(a, b) on {len(a)} and {len(b)} normal draws")
                _fail(5, f"{shown} gave {float(got):.4g}, expected {want:.4g}", hint)
        _ok(5, f"ks matches scipy's ks_2samp on {len(cases)} pairs,", "ties and unequal sizes included")

    def step6(self, result, sets, reject, alpha=0.05):
        """Step 6: the deletion test's result on Y_D and the student's decision at level ``alpha``."""
        _, _, dre = self._fixed
        want = float(likelihood_ratio(dre.log_ratio(np.asarray(sets["D"]))))
        if getattr(result, "name", None) != "lr" or not np.isclose(result.statistic, want, rtol=1e-9):
            _fail(6, f"the test's statistic is {getattr(result, 'statistic', None)!r}, the LR of Y_D is {want:.6g}",
                  "DeletionTest(p_hat, kbc, statistic='lr', ...).test(sets['D'], alpha=alpha)")
        null = np.asarray(result.null)
        p = (1 + int(np.sum(null >= result.statistic))) / (1 + null.size)
        if not np.isclose(result.p_value, p):
            _fail(6, f"the p-value {result.p_value:.4g} is not (1 + #{{null >= LR}}) / (1 + n_null) = {p:.4g}",
                  "use the Monte-Carlo method (the default) of DeletionTest.test")
        if bool(reject) != (result.p_value <= alpha):
            _fail(6, f"reject = {bool(reject)} but p = {result.p_value:.4g} at alpha = {alpha:g}",
                  "reject H0 (nothing deleted) when p <= alpha")
        _ok(6, f"LR = {want:.4f}, p = {p:.4g} from {null.size} null draws:",
            "reject H0, the samples look deleted" if reject else "keep H0, no evidence of deletion")


def check_own_dre(dre, exact, beat, *, n=50_000, seed=7):
    """The check of the exercise "a classifier of one's own" (``book/classifier_dre.md``): that
    ``dre`` is a density ratio estimator fitted on the page's data (the same X and X' as ``exact``,
    the exact ratio ρ̂) with finite, non-negative ratios, and how much of the deletion it captures:
    1 − E_p̂|ρ̂_ℰ − ρ̂| / E_p̂|1 − ρ̂| over ``n`` draws of p̂, 1 for the exact ratio and 0 for no
    deletion at all, beside the shares in ``beat`` (``{name: share}``, the page's DREs).

    Prints "✓ ..." and returns the share; raises an ``AssertionError`` with a hint otherwise.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from gendel.core.dre import ClassifierDRE
    >>> X, deleted, exact = setup(Protocol("mog8", lam=0.6, N=400, sigma_a=0.1))
    >>> share = check_own_dre(ClassifierDRE(LogisticRegression()).fit(X, deleted), exact, {"KBC": 0.6}, n=2000)
    ✓ your DRE captures 0.01 of the deletion (KBC: 0.60); it beats none of them: try a classifier whose boundary can bend around a cluster
    >>> check_own_dre(LogisticRegression(), exact, {})
    Traceback (most recent call last):
    AssertionError: ✗ a classifier is not yet a DRE. Hint: wrap it, dre.ClassifierDRE(LogisticRegression()), and fit that on X and deleted
    """
    if not hasattr(dre, "log_ratio"):
        raise AssertionError(f"✗ a classifier is not yet a DRE. Hint: wrap it, dre.ClassifierDRE({dre!r}), and fit "
                             "that on X and deleted")
    if not getattr(dre, "_fitted", False):
        raise AssertionError("✗ the DRE is not fitted. Hint: call .fit(X, deleted) on it (X, deleted as set up above)")
    if (dre.n_samples_, dre.n_deleted_) != (exact.n_samples_, exact.n_deleted_):
        raise AssertionError(f"✗ the DRE was fitted on {dre.n_samples_} points with {dre.n_deleted_} deleted; the "
                             f"page's X has {exact.n_samples_} with {exact.n_deleted_} deleted. Hint: fit it on this "
                             "page's X and deleted (the whole X, and the mask of X')")
    Y = exact.pretrained_.sample(n, rng=np.random.default_rng(seed))
    r, target = dre.ratio(Y), exact.ratio(Y)
    if not np.all(np.isfinite(r)) or np.any(r < 0):
        raise AssertionError("✗ some ratios are not finite or negative. Hint: the classifier's predict_proba must "
                             "give probabilities in [0, 1] for both classes")
    share = 1 - np.mean(np.abs(r - target)) / np.mean(np.abs(1 - target))
    others = ", ".join(f"{name}: {v:.2f}" for name, v in beat.items())
    beaten = [name for name, v in beat.items() if share > v]
    rest = [k for k in beat if k not in beaten]
    if not beaten:
        verdict = "it beats none of them: try a classifier whose boundary can bend around a cluster"
    else:
        verdict = f"it beats {', '.join(beaten)}" + (f", not {', '.join(rest)}" if rest else "")
    print(f"✓ your DRE captures {share:.2f} of the deletion ({others}); {verdict}")
    return float(share)


__all__ = ["LabChecks", "SETS", "TESTED", "Z", "check_own_dre"]
