"""Checks for the GAN lab "fast deletion on a small DCGAN, by hand" (``book/course/gan_lab.md``).

In the lab a student trains (or loads from the checkpoint cache) the models of one job of the
§5.2 protocol at the size of :data:`LAB_PROFILE`: a pre-trained DCGAN p̂ on X, a re-trained p̂′ on
X \\ X', the KL-VDM ratio ρ̂_ℰ between X and X \\ X', and a label classifier. Then they read the
deletion set, check the ratio on the training images, run Alg. 1 with bound B, count the
deleted-label share of each model's samples, compute a one-sided Monte-Carlo p-value of the
deletion test, and compare with the stored quick grid. After each step a cell calls
``check.step<n>(...)`` of :class:`GANLabChecks`, which recomputes the step by another route
(numpy on the models' outputs, or gendel's report functions on the stored results) and prints
"✓ step n: ..." when the student's answer agrees; otherwise it raises an ``AssertionError`` that
says what is wrong and gives a hint aimed at the typical mistakes (the ratio where the log ratio
belongs, the other parity's labels, a two-sided p-value, Alg. 1's rate without B, one seed of
three).

Deterministic quantities (shares, means, p-values of given samples) are compared to within
rounding. The only random comparison, Alg. 1's acceptance rate, must lie within :data:`Z`
binomial standard errors (plus the reference's own) of the rate the check estimates from its
own draws of p̂.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from gendel.gan.profiles import PROFILES, Job, get_profile
from gendel.gan.labels import deleted_labels as _deleted_labels
from gendel.gan.result_files import stored_results

#: Tolerance of the distributional check, in standard errors.
Z = 4.5
#: The lab's size: the tiny profile with more images and epochs. At the tiny profile's own size
#: (256 images, 2 GAN epochs of width 8) the generator's samples are read as one or two digits,
#: so a share of deleted labels says nothing; these settings train in under a minute on 2 cores.
LAB_PROFILE = dataclasses.replace(PROFILES["tiny"], name="lab", n_train=2000, gan_epochs=5, gan_width=16,
                                  vdm_epochs=20, vdm_width=16)
#: The models whose samples step 4 labels.
MODELS = ("pre", "approx", "re")
#: The models of the stored quick results that step 6 reads.
QUICK_MODELS = ("pre", "re", "approx", "control")


def lab_job(setting="odd", lam=0.7, seed=0, dataset="mnist"):
    """The job of the lab: one (data set, deletion set, λ, seed) at the size of :data:`LAB_PROFILE`.

    Examples
    --------
    >>> job = lab_job()
    >>> job.name, job.profile.n_train, job.profile.bound
    ('mnist-odd-0.7-seed0', 2000, 10.0)
    """
    return Job(LAB_PROFILE, dataset, setting, lam, seed)


def _ok(step, text, *details):
    print("\n".join([f"✓ step {step}: {text}"] + [f"          {d}" for d in details]))


def _fail(step, what, hint):
    raise AssertionError(f"step {step}: {what}. Hint: {hint}")


def _close(a, b, tol=1e-9):
    try:
        return bool(np.isclose(float(a), float(b), rtol=tol, atol=tol))
    except (TypeError, ValueError):
        return False


def _in(labels, setting):
    return np.isin(np.asarray(labels), _deleted_labels(setting))


class GANLabChecks:
    """The checks of the GAN lab, one method per step, for one job.

    Parameters
    ----------
    job : Job
        The lab's job (:func:`lab_job`).
    n_reference : int
        Draws of p̂ behind the check of Alg. 1's acceptance rate.
    seed : int
        Seed of the reference draws (independent of the lab's seeds).

    Examples
    --------
    >>> check = GANLabChecks(lab_job())
    >>> check.step6({"pre": 0.5, "re": 0.4, "approx": 0.45, "control": 0.5}, 0.5)   # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    AssertionError: step 6: quick_share['pre'] = 0.5, expected 0.468 ... Hint: ...
    """

    def __init__(self, job, *, n_reference=20_000, seed=12345):
        if not isinstance(job, Job):
            raise TypeError(f"job must be a gendel.gan.profiles.Job, e.g. gendel.book.gan_lab_checks.lab_job(); got {job!r}")
        self.job = job
        self.n_reference = int(n_reference)
        self.seed = seed

    @property
    def bound(self):
        """B of Alg. 1: the profile's (the paper's 10)."""
        return float(get_profile(self.job.profile).bound)

    @functools.cached_property
    def models(self):
        """The job's models, from the checkpoint cache (trained there by the student's ``train(job)``)."""
        from gendel.gan.experiment import train  # torch: only when the models are asked for

        return train(self.job, progress=False)

    @functools.cached_property
    def _reference_log_ratio(self):
        rng = np.random.default_rng(self.seed)
        return self.models.vdm.log_ratio(self.models.pretrained.sample(self.n_reference, rng=rng))

    def step1(self, models, deleted_labels, share_X, share_kept):
        """Step 1: the models, the labels X' was drawn from, and the deleted-label share of X and of X \\ X'."""
        job = self.job
        if not all(hasattr(models, name) for name in ("pretrained", "retrained", "vdm", "classifier", "deleted")):
            _fail(1, f"models is a {type(models).__name__}, not the trained models of the job",
                  "models = train(job) (gendel.gan.experiment.train)")
        want = _deleted_labels(job.setting)
        got = np.sort(np.asarray(deleted_labels).ravel())
        if got.shape != want.shape or not np.array_equal(got, want):
            other = _deleted_labels("even" if job.setting == "odd" else "odd")
            hint = (f"X' is drawn from the {job.setting} labels (job.setting = {job.setting!r}), not the other parity"
                    if got.shape == other.shape and np.array_equal(got, other) else
                    f"job.setting = {job.setting!r}: the {job.setting} digits of 0-9")
            _fail(1, f"deleted_labels = {got.tolist()}, expected {want.tolist()}", hint)
        labels, deleted = np.asarray(self.models.labels), np.asarray(self.models.deleted)
        # independently of the student's models: the labels and mask the check loaded itself
        want_X = float(np.mean(_in(labels, job.setting)))
        kept = labels[~deleted]
        want_kept = float(np.sum(_in(kept, job.setting)) / kept.size)
        for name, got_share, want_share in (("share_X", share_X, want_X), ("share_kept", share_kept, want_kept)):
            if _close(got_share, want_share):
                continue
            if _close(got_share, 1 - want_share):
                hint = "that is the share of the other labels: count the labels in deleted_labels"
            elif name == "share_kept" and _close(got_share, 1.0):
                hint = "X' itself has only deleted labels: X \\ X' is models.labels[~models.deleted]"
            elif name == "share_kept" and _close(got_share, want_X):
                hint = "that is the share in X: keep only the images not in X', models.labels[~models.deleted]"
            elif _close(got_share, want_share * (kept.size if name == "share_kept" else labels.size)):
                hint = "a share, not a count: divide by the number of images"
            else:
                hint = "np.isin(labels, deleted_labels).mean() over the labels of the images"
            _fail(1, f"{name} = {float(got_share):.4g}, expected {want_share:.4g}", hint)
        lam = job.lam
        _ok(1, f"X' holds {int(deleted.sum())} of {labels.size} images, all with labels {want.tolist()};",
            f"their share is {want_X:.3f} in X and {want_kept:.3f} in X \\ X'",
            f"(λ s / (λ s + 1 - s) = {lam * want_X / (lam * want_X + 1 - want_X):.3f} in expectation)")

    def step2(self, mean_ratio, class_log_ratio):
        """Step 2: the mean of ρ̂_ℰ over X and the mean log ρ̂_ℰ of X's images with deleted and with kept labels."""
        m = self.models
        log = np.asarray(m.vdm.log_ratio(m.X), float)
        want_mean = float(np.mean(np.exp(log)))
        if not _close(mean_ratio, want_mean, 1e-6):
            hint = ("that is the mean of log ρ̂_ℰ: the normalisation E_X[ρ̂_ℰ] is a mean of the ratio, np.exp(log_ratio)"
                    if _close(mean_ratio, log.mean(), 1e-6) else
                    "np.exp(models.vdm.log_ratio(models.X)).mean()")
            _fail(2, f"mean_ratio = {float(mean_ratio):.4g}, expected {want_mean:.4g}", hint)
        if not isinstance(class_log_ratio, dict) or set(class_log_ratio) != {"deleted", "kept"}:
            _fail(2, "class_log_ratio must be a dict with the keys 'deleted' and 'kept'",
                  "one mean log ratio for the images whose label is in deleted_labels, one for the others")
        in_del = _in(m.labels, self.job.setting)
        want = {"deleted": float(log[in_del].mean()), "kept": float(log[~in_del].mean())}
        by_mask = {"deleted": float(log[m.deleted].mean()), "kept": float(log[~m.deleted].mean())}
        as_ratio = {"deleted": float(np.exp(log[in_del]).mean()), "kept": float(np.exp(log[~in_del]).mean())}
        for key in ("deleted", "kept"):
            got = class_log_ratio[key]
            if _close(got, want[key], 1e-6):
                continue
            if _close(got, as_ratio[key], 1e-6) or _close(got, np.exp(want[key]), 1e-6):
                hint = "that is a mean of the ratio ρ̂_ℰ: take the mean of log ρ̂_ℰ (vdm.log_ratio), not of its exp"
            elif _close(got, by_mask[key], 1e-6):
                hint = "group the images by their label (in deleted_labels or not), not by membership of X'"
            else:
                hint = "the mean of models.vdm.log_ratio(models.X) over the images with (without) a deleted label"
            _fail(2, f"class_log_ratio[{key!r}] = {float(got):.4g}, expected {want[key]:.4g}", hint)
        s, lam = float(in_del.mean()), self.job.lam
        norm = lam * s + 1 - s
        _ok(2, f"E_X[ρ̂_ℰ] = {want_mean:.3f} (a normalised ratio gives 1);",
            f"mean log ρ̂_ℰ: deleted labels {want['deleted']:+.3f}, kept {want['kept']:+.3f}",
            f"(the data's own ratio: {np.log(lam / norm):+.3f} and {np.log(1 / norm):+.3f})")

    def step3(self, approx, Y_approx, expected_rate, Y_pre):
        """Step 3: Alg. 1 with bound B, its m samples, and the acceptance rate predicted from samples of p̂."""
        B = self.bound
        bound = getattr(approx, "bound_", None)
        if bound is None:
            _fail(3, f"approx is a {type(approx).__name__}, not an ApproximateDeletion",
                  "approx = ApproximateDeletion(models.pretrained, models.vdm, bound=B)")
        if not _close(bound, B):
            _fail(3, f"approx uses B = {float(bound):g}; the lab uses the profile's B = {B:g}, as the paper",
                  "B = job.profile.bound: a VDM ratio has no known bound, so Alg. 1 needs B >= sup ρ̂_ℰ given")
        if approx.model is not self.models.pretrained and not hasattr(approx.model, "generator_"):
            _fail(3, "approx does not sample the pre-trained DCGAN", "ApproximateDeletion(models.pretrained, ...)")
        Y_approx = np.asarray(Y_approx)
        if Y_approx.ndim != 4 or Y_approx.shape[1:] != (1, 28, 28):
            _fail(3, f"Y_approx has shape {Y_approx.shape}, expected (m, 1, 28, 28)", "Y_approx = approx.sample(m, rng=...)")
        log_pre = np.asarray(self.models.vdm.log_ratio(np.asarray(Y_pre)), float)
        w = np.minimum(np.exp(log_pre), B)
        want = float(w.mean() / B)
        if not _close(expected_rate, want, 1e-6):
            if _close(expected_rate, np.exp(log_pre).mean(), 1e-6) or _close(expected_rate, w.mean(), 1e-6):
                hint = ("Alg. 1 accepts y with probability min(ρ̂_ℰ(y), B) / B: divide by B "
                        "(for a normalised ratio the rate is about 1 / B)")
            elif _close(expected_rate, np.exp(log_pre).mean() / B, 1e-6):
                hint = "clip the ratio at B before averaging: min(ρ̂_ℰ(y), B) / B"
            elif _close(expected_rate, log_pre.mean() / B, 1e-6):
                hint = "use the ratio ρ̂_ℰ = np.exp(log_ratio), not the log ratio"
            else:
                hint = "the mean of np.minimum(np.exp(models.vdm.log_ratio(Y_pre)), B) / B"
            _fail(3, f"expected_rate = {float(expected_rate):.4g}, expected {want:.4g} on your Y_pre", hint)
        ref = np.minimum(np.exp(self._reference_log_ratio), B) / B
        rate = float(getattr(approx, "acceptance_rate_", np.nan))
        n = int(getattr(approx, "n_proposals_", 0))
        se = np.sqrt(ref.mean() * (1 - ref.mean()) / max(n, 1)) + ref.std() / np.sqrt(ref.size)
        if not n or abs(rate - ref.mean()) > Z * se + 1e-3:
            _fail(3, f"Alg. 1 accepted {rate:.4f} of {n} proposals; with B = {B:g} it should accept about "
                  f"{ref.mean():.4f}", "call approx.sample(m, rng=...) once, on the models of train(job)")
        _ok(3, f"{len(Y_approx)} samples of ρ̂_ℰ·p̂ with B = {B:g};",
            f"Alg. 1 accepted {rate:.4f} of {n} proposals, you predicted {want:.4f}")

    def step4(self, samples, share, expected_share):
        """Step 4: the deleted-label share of the samples of p̂, of Alg. 1 and of p̂′, and the share Alg. 1 gives in expectation."""
        m, setting, B = self.models, self.job.setting, self.bound
        if not isinstance(samples, dict) or set(samples) != set(MODELS):
            _fail(4, f"samples must be a dict with the keys {list(MODELS)}", "samples = {'pre': Y_pre, 'approx': Y_approx, 're': Y_re}")
        if np.array_equal(np.asarray(samples["pre"]), np.asarray(samples["re"])):
            _fail(4, "the samples of p̂ and p̂′ are the same images", "draw Y_re with models.retrained.sample(m, rng=...)")
        if not isinstance(share, dict) or set(share) != set(MODELS):
            _fail(4, f"share must be a dict with the keys {list(MODELS)}", "one deleted-label share per model")
        probabilities = {k: m.classifier.predict_proba(np.asarray(Y)) for k, Y in samples.items()}
        for key in MODELS:
            labels = probabilities[key].argmax(axis=1)
            want = float(np.bincount(labels, minlength=10)[_deleted_labels(setting)].sum() / labels.size)
            got = share[key]
            if _close(got, want):
                continue
            if _close(got, 1 - want):
                hint = "that is the share of the kept labels: count the labels in deleted_labels"
            elif _close(got, want * labels.size):
                hint = "a share, not a count: divide by the number of samples"
            else:
                hint = "np.isin(models.classifier.predict(Y), deleted_labels).mean()"
            _fail(4, f"share[{key!r}] = {float(got):.4g}, expected {want:.4g} for your samples of {key}", hint)
        pre_labels = probabilities["pre"].argmax(axis=1)
        log_pre = np.asarray(m.vdm.log_ratio(np.asarray(samples["pre"])), float)
        w = np.minimum(np.exp(log_pre), B)
        want = float(w[_in(pre_labels, setting)].sum() / w.sum())
        if not _close(expected_share, want, 1e-6):
            if _close(expected_share, share["pre"], 1e-6):
                hint = "weight each sample of p̂ by min(ρ̂_ℰ(y), B), the chance Alg. 1 keeps it (times B)"
            elif _close(expected_share, 1 - want, 1e-6):
                hint = "that is the weight of the kept labels: sum the weights of the samples with a deleted label"
            elif _close(expected_share, float((log_pre * _in(pre_labels, setting)).sum() / log_pre.sum()), 1e-6):
                hint = "the weights are the ratio min(ρ̂_ℰ, B), not the log ratio"
            else:
                hint = "sum of w over the samples of p̂ with a deleted label, divided by the sum of w, w = min(ρ̂_ℰ, B)"
            _fail(4, f"expected_share = {float(expected_share):.4g}, expected {want:.4g} on your samples of p̂", hint)
        _ok(4, "deleted-label shares: " + ", ".join(f"{k} {share[k]:.3f}" for k in MODELS) + ";",
            f"Alg. 1 in expectation on your samples of p̂: {want:.3f}")

    def step5(self, test, samples, lr, p_value, m_test):
        """Step 5: the LR of the first ``m_test`` samples of Alg. 1 and of p̂′, and their one-sided Monte-Carlo p-values."""
        from gendel.deletion_test.decision import DeletionTest

        if not isinstance(test, DeletionTest) or test.statistic != "lr":
            _fail(5, "test must be a DeletionTest with statistic='lr'",
                  "DeletionTest(models.pretrained, models.vdm, statistic='lr', n_null=..., rng=...)")
        null = np.asarray(test.null_distribution(m_test), float)
        for key in ("approx", "re"):
            if key not in lr or key not in p_value:
                _fail(5, "lr and p_value need the keys 'approx' and 're'", "one value for each tested sample")
        for key in ("approx", "re"):
            log = np.asarray(self.models.vdm.log_ratio(np.asarray(samples[key])[:m_test]), float)
            want_lr = float(log.mean())
            if not _close(lr[key], want_lr, 1e-6):
                hint = ("that is the mean of the ratio: LR is the mean of log ρ̂_ℰ over the sample (§4.1)"
                        if _close(lr[key], np.exp(log).mean(), 1e-6) else
                        f"the mean of models.vdm.log_ratio(samples[{key!r}][:m_test])")
                _fail(5, f"lr[{key!r}] = {float(lr[key]):.6g}, expected {want_lr:.6g}", hint)
            n = null.size
            want_p = (1 + int(np.sum(null >= want_lr))) / (1 + n)
            got = p_value[key]
            if _close(got, want_p):
                continue
            lower = (1 + int(np.sum(null <= want_lr))) / (1 + n)
            centre = np.mean(null)
            two = [min(1.0, 2 * min(want_p, lower)),
                   (1 + int(np.sum(np.abs(null - centre) >= abs(want_lr - centre)))) / (1 + n)]
            if any(_close(got, t) for t in two):
                hint = ("a one-sided p-value: only a large LR is evidence of deletion (E_H1'[LR] >= E_H0[LR], §4.1), "
                        "so count the null statistics >= LR, not both tails")
            elif _close(got, lower):
                hint = "the wrong tail: count the null statistics >= LR (a large LR is the evidence)"
            elif _close(got, int(np.sum(null >= want_lr)) / n):
                hint = "add one to both counts, (1 + #{null >= LR}) / (1 + n_null): the observed set counts as a draw"
            else:
                hint = "(1 + np.sum(null >= lr)) / (1 + len(null)) with null = test.null_distribution(m_test)"
            _fail(5, f"p_value[{key!r}] = {float(got):.4g}, expected {want_p:.4g} for LR = {want_lr:.4f}", hint)
        _ok(5, f"LR and one-sided p-values from {null.size} null sets of {m_test}:",
            *(f"{key}: LR = {float(lr[key]):+.4f}, p = {float(p_value[key]):.3f}" for key in ("approx", "re")))

    @functools.cached_property
    def _quick(self):
        job = self.job
        return [r for r in stored_results("quick") if (r.dataset, r.setting, r.lam) == (job.dataset, job.setting, job.lam)]

    def step6(self, quick_share, gap_closed):
        """Step 6: the deleted-label share of each model of the stored quick results (mean over seeds) and the gap Alg. 1 closes."""
        results = self._quick
        setting = self.job.setting
        per_seed = {k: np.array([r.labels[k][_deleted_labels(setting)].sum() / r.labels[k].sum() for r in results])
                    for k in QUICK_MODELS}
        if not isinstance(quick_share, dict) or not set(QUICK_MODELS) <= set(quick_share):
            _fail(6, f"quick_share must be a dict with the keys {list(QUICK_MODELS)}", "one mean share per model")
        for key in QUICK_MODELS:
            want, got = float(per_seed[key].mean()), quick_share[key]
            if _close(got, want):
                continue
            if any(_close(got, v) for v in per_seed[key]):
                hint = f"average over the {len(results)} seeds of the stored quick results, not one of them"
            elif _close(got, 1 - want):
                hint = "that is the share of the kept labels: sum the counts of the labels in deleted_labels"
            else:
                hint = (f"the stored results of ({self.job.dataset!r}, {setting!r}, {self.job.lam}) only; the share of "
                        "r.labels[model] on deleted_labels, divided by r.labels[model].sum(), averaged over seeds")
            _fail(6, f"quick_share[{key!r}] = {float(got):.4g}, expected {want:.3f} (mean of "
                  f"{np.round(per_seed[key], 3).tolist()})", hint)
        pre, re, approx = (float(per_seed[k].mean()) for k in ("pre", "re", "approx"))
        want = (pre - approx) / (pre - re)
        if not _close(gap_closed, want, 1e-6):
            hint = ("the gap closed is (share_pre - share_approx) / (share_pre - share_re): 0 for doing nothing, "
                    "1 for re-training" if _close(gap_closed, 1 - want, 1e-6) or _close(gap_closed, 1 / want, 1e-6)
                    else "(pre - approx) / (pre - re) with the mean shares of quick_share")
            _fail(6, f"gap_closed = {float(gap_closed):.4g}, expected {want:.4g}", hint)
        _ok(6, f"quick profile, {len(results)} seeds: deleted-label share pre {pre:.3f}, re {re:.3f}, "
            f"approx {approx:.3f}, control {per_seed['control'].mean():.3f};",
            f"Alg. 1 closed {want:.0%} of the gap between p̂ and p̂′")


__all__ = ["GANLabChecks", "LAB_PROFILE", "MODELS", "QUICK_MODELS", "Z", "lab_job"]
