"""The stages of a job of §5.2 and Appendix E (the profiles and jobs are in :mod:`gendel.gan.profiles`).

One *job* is one (data set, deletion set, λ, seed) of a *profile* (how large the protocol is
run). It runs in four stages that the grid and the pages can call one by one:

1. :func:`train`: the data (a fixed subset of the training split, the test split, X'), the
   pre-trained DCGAN on X, the re-trained DCGAN on X \\ X', the KL-VDM DRE between X and
   X \\ X', the label classifier, and a *control*: a second pre-trained DCGAN on the same X with
   another seed (what two trainings differ by when nothing is deleted). Models shared between
   jobs (the pre-trained GANs, the classifier) come from the checkpoint cache once trained.
2. :func:`fast_deletion` (Q2): the label counts of ``m_labels`` samples of each model, Alg. 1
   with bound B among them; the expected label distribution of Alg. 1 with an *empirical
   model* (the training images, the test images) and with the GAN (its samples), from the
   weights min(ρ̂_ℰ, B).
3. :func:`deletion_test` (Q3): R repeats of m samples of Ŷ, Y_H0 ~ p̂, Y_H1 ~ p̂′ and of the
   control, their log ρ̂_ℰ, LR and ASC, KS between the distributions.
4. :func:`curves`: from the copies the trainings kept after each epoch, the label counts of
   the re-trained and the pre-trained GAN and the expected label distribution of Alg. 1 with
   the VDM of each epoch, against the training seconds (cost at equal quality).

:func:`make_result` runs the four stages and assembles a job's result;
:func:`gendel.gan.run.run_job` has it made (unless it is done) and writes the result file
(:mod:`gendel.gan.result_files`).
Randomness: X' depends on the data set, the deletion set and λ only (every seed deletes the
same images, so the re-trained models of two seeds differ by training alone); each stage of a
job draws from its own stream, seeded by the job's seed and the stage.
"""

from __future__ import annotations

import dataclasses
import time
import warnings

import numpy as np

from gendel.deletion_test.stats import PAPER_STATISTICS, STATISTICS, ks_statistic
from gendel.gan.images import IMAGE_DATASETS, label_deletion_mask, load_images, to_pixels
from gendel.gan.profiles import SETTINGS, Job, Profile, get_profile

#: Seeds the fixed subset of ``n_train`` training images (the same for every job).
SUBSET_SEED = 20220629
#: Seeds the deletion set X' (with the data set, deletion set and λ: not the job's seed).
MASK_SEED = 0


def training_images(dataset, n_train, *, root=None):
    """The training images and labels a profile uses: a fixed random subset of ``n_train``
    (seeded by :data:`SUBSET_SEED`, so every job and seed shares it) or the whole split.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from gendel.gan.images import FILES, write_idx
    >>> with tempfile.TemporaryDirectory() as root:      # 300 made-up images (``make data`` fetches MNIST)
    ...     (Path(root) / "mnist").mkdir()
    ...     write_idx(Path(root) / "mnist" / FILES["train"][0], np.zeros((300, 28, 28), dtype=np.uint8))
    ...     write_idx(Path(root) / "mnist" / FILES["train"][1], (np.arange(300) % 10).astype(np.uint8))
    ...     X, labels = training_images("mnist", 256, root=root)
    ...     again = training_images("mnist", 256, root=root)[1]
    >>> X.shape, bool(np.all(labels == again))           # every job and seed gets the same subset
    ((256, 1, 28, 28), True)
    """
    images, labels = load_images(dataset, split="train", root=root)
    if n_train is not None and n_train < len(images):
        keep = np.sort(np.random.default_rng(SUBSET_SEED).choice(len(images), n_train, replace=False))
        images, labels = images[keep], labels[keep]
    return images, labels


def deletion_mask(job, labels):
    """X' of a job: a 1 − λ fraction of each label of the job's parity, drawn with a stream that
    depends on :data:`MASK_SEED` only (every seed and job with this deletion set deletes the same images).

    Examples
    --------
    >>> labels = np.repeat(np.arange(10), 10)
    >>> a = deletion_mask(Job("tiny", "mnist", "even", 0.7, 0), labels)
    >>> b = deletion_mask(Job("tiny", "mnist", "even", 0.7, 5), labels)
    >>> int(a.sum()), bool((a == b).all())         # 3 of 10 of each even label; the same for every seed
    (15, True)
    """
    return label_deletion_mask(labels, job.setting, job.lam, rng=np.random.default_rng([MASK_SEED, 1]))


def _stage_rng(job, stage):
    """One random stream per stage of a job."""
    return np.random.default_rng([job.seed, stage])


@dataclasses.dataclass
class TrainedModels:
    """The trained networks of one job and the data they came from.

    Attributes
    ----------
    pretrained, retrained, control : DCGAN
        p̂ (on X), p̂′ (on X \\ X', the same seed) and a second p̂ on X with the control seed.
    vdm : VDMDRE
        ρ̂_ℰ between X and X \\ X'.
    classifier : LabelClassifier
        Reads the labels of generated images.
    X, labels, deleted : ndarray
        The training images, their labels and the mask of X'.
    test_X, test_labels : ndarray
        The test split (for the classifier's accuracy and the DRE on unseen images).
    n_split : int
        Images in the whole training split (8,000 for MNIST offline, 60,000 where torchvision
        downloaded it; ``X`` is a fixed subset of ``n_train`` of them).
    seconds : float
        Wall time of :func:`train` (loading the trained models from checkpoints included).
    profile : Profile
        The profile whose sizes the models were trained at: the later stages read theirs from it.

    The later stages refuse models of another job: another profile, seed or deletion set.

    Examples
    --------
    >>> labels = np.array([0, 1, 2, 3])
    >>> models = TrainedModels(None, None, None, None, None, np.zeros((4, 1, 28, 28)), labels,
    ...                        deleted=labels % 2 == 0, test_X=None, test_labels=None, n_split=4, seconds=0.0,
    ...                        profile=get_profile("tiny"))
    >>> models.labels[~models.deleted].tolist()          # the labels of X \\ X'
    [1, 3]
    """

    pretrained: object
    retrained: object
    control: object
    vdm: object
    classifier: object
    X: np.ndarray
    labels: np.ndarray
    deleted: np.ndarray
    test_X: np.ndarray
    test_labels: np.ndarray
    n_split: int
    seconds: float
    profile: Profile


def check_job(job):
    """The profile of ``job``, once the job is checked to be one of §5.2 (a clear error otherwise).

    Examples
    --------
    >>> check_job(Job("tiny", "mnist", "even", 0.7, 0)).name
    'tiny'
    >>> check_job("mnist-even-0.7-seed0")
    Traceback (most recent call last):
    TypeError: job must be a Job (e.g. gendel.gan.profiles.find_job('quick', 'mnist-even-0.7-seed0')); got a string
    """
    if isinstance(job, str):
        raise TypeError(f"job must be a Job (e.g. gendel.gan.profiles.find_job('quick', {job!r})); got a string")
    if not isinstance(job, Job):
        raise TypeError(f"job must be a gendel.gan.profiles.Job (see gendel.gan.profiles.jobs(profile)); got {type(job).__name__}")
    p = get_profile(job.profile)
    if job.dataset not in IMAGE_DATASETS or job.setting not in SETTINGS or not 0 < job.lam < 1:
        raise ValueError(f"{job!r} is not a job of §5.2: data sets {IMAGE_DATASETS}, settings {SETTINGS}, λ in (0, 1)")
    return p


def pretrained_model(dataset, seed, profile, *, device=None, progress=True, data_root=None):
    """The pre-trained DCGAN of a data set and seed (shared by the jobs of every deletion set).

    Examples
    --------
    >>> gan = pretrained_model("mnist", 0, "tiny")     # needs MNIST (make data) # doctest: +SKIP
    """
    from gendel.gan.dcgan import DCGAN

    p = get_profile(profile)
    X, _ = training_images(dataset, p.n_train, root=data_root)
    return DCGAN(epochs=p.gan_epochs, seed=seed, width=p.gan_width, batch_size=p.batch_size, device=device,
                 progress=progress).fit(X)


def label_classifier(dataset, profile, *, device=None, progress=True, data_root=None):
    """The label classifier of a data set, trained on its whole training split.

    Examples
    --------
    >>> clf = label_classifier("mnist", "tiny")        # needs MNIST (make data) # doctest: +SKIP
    """
    from gendel.gan.classifier import LabelClassifier

    p = get_profile(profile)
    train_x, train_y = load_images(dataset, split="train", root=data_root)
    return LabelClassifier(epochs=p.classifier_epochs, batch_size=p.batch_size, device=device,
                           progress=progress).fit(train_x, train_y)


def train(job, *, device=None, progress=True, data_root=None):
    """Stage 1: the data and the trained models of a job (from the checkpoint cache when trained
    before). Every data file is read before any training starts. ``device`` is handed to every
    model (each resolves ``None`` as ``gendel.gan.devices.pick_device`` does).

    Returns
    -------
    TrainedModels

    Examples
    --------
    >>> from gendel.gan.profiles import find_job
    >>> models = train(find_job("tiny", "mnist-even-0.7-seed0"))  # needs MNIST; trains # doctest: +SKIP
    >>> models.X.shape, int(models.deleted.sum()) > 0            # doctest: +SKIP
    ((256, 1, 28, 28), True)
    """
    from gendel.gan.dcgan import DCGAN
    from gendel.gan.vdm import VDMDRE

    p = check_job(job)
    t0 = time.perf_counter()
    X, labels = training_images(job.dataset, p.n_train, root=data_root)
    test_X, test_labels = load_images(job.dataset, split="test", root=data_root)
    n_split = len(load_images(job.dataset, split="train", root=data_root)[1])  # the classifier's split
    deleted = deletion_mask(job, labels)
    shared = dict(device=device, progress=progress, data_root=data_root)
    pre = pretrained_model(job.dataset, job.seed, p, **shared)
    control = pretrained_model(job.dataset, job.control_seed, p, **shared)
    re = DCGAN(epochs=p.gan_epochs, seed=job.seed, width=p.gan_width, batch_size=p.batch_size, device=device,
               progress=progress).fit(X[~deleted])
    vdm = VDMDRE(divergence="kl", epochs=p.vdm_epochs, seed=job.seed, width=p.vdm_width, batch_size=p.batch_size,
                 device=device, progress=progress).fit(X, deleted)
    clf = label_classifier(job.dataset, p, **shared)
    return TrainedModels(pre, re, control, vdm, clf, X, labels, deleted, test_X, test_labels, n_split,
                         time.perf_counter() - t0, p)


def reweighted(labels, log_ratio, bound):
    """Per-label sums of the Alg. 1 weights min(ρ̂_ℰ, B) and per-label counts of a pool of points.

    Alg. 1 accepts a proposal y with probability min(ρ̂_ℰ(y), B) / B, so on a pool of proposals
    the accepted labels follow the labels weighted by min(ρ̂_ℰ, B): ``weights / weights.sum()``
    is the label distribution Alg. 1 samples, without the noise of accepting or rejecting.

    Examples
    --------
    >>> r = reweighted([0, 0, 1, 1], np.log([0.5, 0.5, 2.0, 4.0]), 2.0)   # 4 is clipped to B = 2
    >>> r["weights"][:2].tolist(), r["counts"][:2].tolist()
    ([1.0, 4.0], [2, 2])
    """
    labels = np.asarray(labels)
    w = np.minimum(np.exp(np.asarray(log_ratio, float)), float(bound))
    return {"weights": np.bincount(labels, weights=w, minlength=10), "counts": np.bincount(labels, minlength=10)}


def _counts(labels):
    return np.bincount(np.asarray(labels), minlength=10)


def _models_of(job, models):
    """Whether ``models`` were trained for ``job``: its profile, its seed (the pre-trained GAN's) and
    its deletion set (every seed deletes the same images, and profiles may share a training size)."""
    labels, deleted = getattr(models, "labels", None), getattr(models, "deleted", None)
    if labels is None or deleted is None or len(labels) != len(deleted):
        return False
    if getattr(models, "profile", None) != get_profile(job.profile) or \
            getattr(getattr(models, "pretrained", None), "seed", None) != job.seed:
        return False
    return bool(np.array_equal(deleted, deletion_mask(job, labels)))


def fast_deletion(job, models):
    """Stage 2 (Q2): label counts of the pre-trained, re-trained, approximated (Alg. 1) and
    control models, and the label distributions Alg. 1 would give with the empirical models.

    Returns a dict: ``labels`` (model -> 10 counts), ``confidence`` (model -> the classifier's
    mean top probability), ``reweighted`` (pool -> :func:`reweighted` of the training images,
    the test images and the pre-trained GAN's samples), ``sampling`` (Alg. 1's acceptance rate,
    its proposals, the share above B, mean and largest ratios), ``seconds`` (sampling times)
    and ``arrays`` (sample grids; the pre-trained samples' labels and log ratios).

    Examples
    --------
    >>> out = fast_deletion(job, train(job))       # needs MNIST; trains # doctest: +SKIP
    """
    from gendel.core.deletion import ApproximateDeletion

    if not _models_of(job, models):
        raise ValueError(f"these trained models are not {job.name}'s (another profile's, seed's, data or deletion "
                         f"set): pass the models that train({job.name!r} job) returned")
    p = models.profile
    pre, re, control, vdm, clf = models.pretrained, models.retrained, models.control, models.vdm, models.classifier
    rng = lambda stage: _stage_rng(job, stage)  # noqa: E731 - one stream per stage
    seconds = {}
    samples = {}
    for name, model, stage in (("pre", pre, 2), ("re", re, 3), ("control", control, 8)):
        t0, c0 = time.perf_counter(), time.process_time()
        samples[name] = model.sample(p.m_labels, rng=rng(stage))
        seconds[f"sample_{name}"] = time.perf_counter() - t0
        seconds[f"sample_{name}_cpu"] = time.process_time() - c0
    approx = ApproximateDeletion(pre, vdm, bound=p.bound, max_seconds=None)
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():  # the share above B is recorded below
        warnings.simplefilter("ignore", RuntimeWarning)
        samples["approx"] = approx.sample(p.m_labels, rng=rng(4))
    seconds["sample_approx"] = time.perf_counter() - t0
    seconds["sample_approx_cpu"] = time.process_time() - c0
    proba = {name: clf.predict_proba(Y) for name, Y in samples.items()}
    predicted = {name: pr.argmax(1) for name, pr in proba.items()}
    log_pre = vdm.log_ratio(samples["pre"])
    log_X, log_test = vdm.log_ratio(models.X), vdm.log_ratio(models.test_X)
    return {
        "labels": {name: _counts(lab) for name, lab in predicted.items()},
        "confidence": {name: float(pr.max(1).mean()) for name, pr in proba.items()},
        "reweighted": {"train": reweighted(models.labels, log_X, p.bound),
                       "test": reweighted(models.test_labels, log_test, p.bound),
                       "pretrained": reweighted(predicted["pre"], log_pre, p.bound)},
        "sampling": {"bound": p.bound, "acceptance_rate": approx.acceptance_rate_,
                     "bound_exceeded": approx.bound_exceeded_, "n_proposals": approx.n_proposals_,
                     "mean_ratio_X": float(np.mean(np.exp(log_X))), "mean_ratio_test": float(np.mean(np.exp(log_test))),
                     "mean_ratio_pretrained": float(np.mean(np.exp(log_pre))),
                     "max_ratio_pretrained": float(np.exp(log_pre.max()))},
        "seconds": seconds,
        "arrays": {"grid_pre": to_pixels(samples["pre"][:32]), "grid_re": to_pixels(samples["re"][:32]),
                   "grid_approx": to_pixels(samples["approx"][:32]),
                   "pre_labels": predicted["pre"].astype(np.int8), "pre_log_ratio": log_pre.astype(np.float32)},
        "pool": samples["pre"],
    }


def deletion_test(job, models):
    """Stage 3 (Q3): LR and ASC of R repeats of m samples of Y_H0 ~ p̂, Y_H1 ~ p̂′ and of the
    control (a second pre-trained p̂ on X), each with Ŷ ~ p̂ and ρ̂_ℰ.

    Returns a dict: ``statistics`` (key -> {"h0", "h1", "control"}: R values each), ``ks``
    (key -> {"h1": KS(H0, H1), "control": KS(H0, control)}), ``scores`` (the log ρ̂_ℰ of every
    sample: "yhat", "h0", "h1", "control", shape (R, m)) and ``seconds``.

    Examples
    --------
    >>> out = deletion_test(job, train(job))       # needs MNIST; trains # doctest: +SKIP
    """
    if not _models_of(job, models):
        raise ValueError(f"these trained models are not {job.name}'s (another profile's, seed's, data or deletion "
                         f"set): pass the models that train({job.name!r} job) returned")
    p = models.profile
    t0 = time.perf_counter()
    n, shape = p.repeats * p.m_test, (p.repeats, p.m_test)
    vdm = models.vdm
    draws = (("yhat", models.pretrained, 5), ("h0", models.pretrained, 6), ("h1", models.retrained, 7),
             ("control", models.control, 9))
    scores = {name: vdm.log_ratio(model.sample(n, rng=_stage_rng(job, stage))).reshape(shape)
              for name, model, stage in draws}
    values, ks = {}, {}
    for key in PAPER_STATISTICS:
        stat = STATISTICS[key]
        values[key] = {w: stat.of_log_ratios(scores["yhat"], scores[w]) for w in ("h0", "h1", "control")}
        ks[key] = {w: ks_statistic(values[key]["h0"], values[key][w]) for w in ("h1", "control")}
    return {"statistics": values, "ks": ks, "scores": scores, "seconds": time.perf_counter() - t0}


def curves(job, models, pool, pool_labels):
    """Stage 4: quality against training time, from the copies each training kept per epoch.

    - ``retrained``: the label counts of ``m_curve`` samples of p̂′ after each kept epoch, with
      the training seconds up to then;
    - ``pretrained``: the same for p̂, and the label weights Alg. 1 with the job's ρ̂_ℰ would
      give on those samples (how much of the deletion the DRE achieves on a GAN of that quality);
    - ``vdm``: the label weights of Alg. 1 with ρ̂_ℰ after each kept epoch of its training, on
      ``pool`` (the pre-trained GAN's samples of Q2, labelled ``pool_labels``) and on the
      training images, with the VDM's training seconds.

    Every row has the wall-clock ``seconds`` and the ``cpu_seconds`` of the training up to then.

    Examples
    --------
    >>> out = curves(job, models, pool, labels)    # needs MNIST; trains # doctest: +SKIP
    """
    if not _models_of(job, models):
        raise ValueError(f"these trained models are not {job.name}'s (another profile's, seed's, data or deletion "
                         f"set): pass the models that train({job.name!r} job) returned")
    p = models.profile
    t0 = time.perf_counter()
    clf, vdm = models.classifier, models.vdm
    out = {}
    for name, model, stage in (("retrained", models.retrained, 10), ("pretrained", models.pretrained, 11)):
        rows = {"epochs": [], "seconds": [], "cpu_seconds": [], "labels": [], "reweighted": []}
        for epoch in model.snapshot_epochs_:
            at = model.at_epoch(epoch)
            Y = at.sample(p.m_curve, rng=_stage_rng(job, stage))
            labels = clf.predict(Y)
            rows["epochs"].append(epoch)
            rows["seconds"].append(at.fit_seconds_)
            rows["cpu_seconds"].append(at.fit_cpu_seconds_)
            rows["labels"].append(_counts(labels))
            if name == "pretrained":
                rows["reweighted"].append(reweighted(labels, vdm.log_ratio(Y), p.bound)["weights"])
        if name == "retrained":
            del rows["reweighted"]
        out[name] = rows
    rows = {"epochs": [], "seconds": [], "cpu_seconds": [], "reweighted_pretrained": [], "reweighted_train": []}
    for epoch in vdm.snapshot_epochs_:
        at = vdm.at_epoch(epoch)
        rows["epochs"].append(epoch)
        rows["seconds"].append(at.fit_seconds_)
        rows["cpu_seconds"].append(at.fit_cpu_seconds_)
        rows["reweighted_pretrained"].append(reweighted(pool_labels, at.log_ratio(pool), p.bound)["weights"])
        rows["reweighted_train"].append(reweighted(models.labels, at.log_ratio(models.X), p.bound)["weights"])
    out["vdm"] = rows
    out["seconds"] = time.perf_counter() - t0
    return out


def data_record(job, models, clf):
    """The ``data`` section of a job's result: sizes, the fingerprints of the training images and
    of X', and the label counts of X, of X ∖ X' and of the test split.

    Examples
    --------
    >>> labels = np.arange(20) % 10
    >>> models = TrainedModels(None, None, None, None, None, np.zeros((20, 1, 28, 28)), labels, labels == 0,
    ...                        np.zeros((10, 1, 28, 28)), np.arange(10), n_split=20, seconds=0.0, profile=None)
    >>> record = data_record(Job("tiny", "mnist", "even", 0.7, 0), models, None)
    >>> record["n_deleted"], record["label_counts_kept"][:2].tolist()
    (2, [0, 2])
    """
    from gendel.gan.checkpoints import data_fingerprint

    labels, deleted = models.labels, models.deleted
    return {"n_train": int(len(models.X)), "n_deleted": int(deleted.sum()), "n_test": int(len(models.test_X)),
            "n_split": int(models.n_split),
            "images": data_fingerprint(models.X), "deleted": data_fingerprint(deleted),
            "label_counts_X": _counts(labels), "label_counts_kept": _counts(labels[~deleted]),
            "label_counts_test": _counts(models.test_labels)}


def make_result(job, *, device=None, progress=True, data_root=None):
    """Everything a job computes: its four stages, assembled into the fields of its result file
    (:class:`gendel.gan.result_files.JobResult`) but its provenance, with ``hardware`` (of every
    training and of this evaluation) and ``seconds`` (per stage) for that provenance.

    The device is resolved here, once, and handed down. :func:`gendel.gan.run.run_job` adds the
    provenance and writes the file.

    Examples
    --------
    >>> from gendel.gan.profiles import find_job
    >>> fields = make_result(find_job("tiny", "mnist-odd-0.7-seed0"))   # needs MNIST; trains # doctest: +SKIP
    >>> fields["data"]["n_train"], sorted(fields["seconds"])             # doctest: +SKIP
    (256, ['curves', 'deletion_test', 'fast_deletion', 'job', 'train'])
    """
    from gendel.gan.devices import hardware, pick_device

    device = pick_device(device)
    t_start = time.perf_counter()
    models = train(job, device=device, progress=progress, data_root=data_root)
    p = models.profile
    q2 = fast_deletion(job, models)
    t_q2 = time.perf_counter()
    q3 = deletion_test(job, models)
    per_epoch = curves(job, models, q2.pop("pool"), q2["arrays"]["pre_labels"])
    clf = models.classifier
    trained = {"pretrain": models.pretrained, "retrain": models.retrained, "control": models.control,
               "vdm": models.vdm, "classifier": clf}
    timings = {k: m.fit_seconds_ for k, m in trained.items()} | q2["seconds"]
    timings |= {f"{k}_cpu": m.fit_cpu_seconds_ for k, m in trained.items()}
    timings["alg1_per_accepted"] = q2["seconds"]["sample_approx"] / p.m_labels
    timings["alg1_per_accepted_cpu"] = q2["seconds"]["sample_approx_cpu"] / p.m_labels
    timings["sample_per_image"] = q2["seconds"]["sample_re"] / p.m_labels
    timings["sample_per_image_cpu"] = q2["seconds"]["sample_re_cpu"] / p.m_labels
    hw = {"pretrained": models.pretrained.hardware_, "retrained": models.retrained.hardware_,
          "control": models.control.hardware_, "vdm": models.vdm.hardware_, "classifier": clf.hardware_,
          "evaluation": hardware(device)}
    seconds = {"train": models.seconds, "fast_deletion": t_q2 - t_start - models.seconds,
               "deletion_test": q3["seconds"], "curves": per_epoch.pop("seconds")}
    seconds["job"] = time.perf_counter() - t_start
    return {
        "job": job,
        "profile": dataclasses.asdict(p),
        "data": data_record(job, models, clf),
        "classifier": {"test_accuracy": float(np.mean(clf.predict(models.test_X) == models.test_labels)),
                       "n_test": int(len(models.test_X)),
                       "confidence_real": float(clf.predict_proba(models.test_X).max(1).mean()),
                       "confidence": q2["confidence"]},
        "labels": q2["labels"],
        "sampling": q2["sampling"],
        "reweighted": q2["reweighted"],
        "q3": {"m": p.m_test, "R": p.repeats, "statistics": q3["statistics"], "ks": q3["ks"]},
        "curves": per_epoch,
        "timings": timings,
        "losses": {"pretrain": models.pretrained.history_, "retrain": models.retrained.history_,
                   "control": models.control.history_, "vdm": models.vdm.history_},
        "arrays": q2["arrays"] | {f"scores_{k}": v.astype(np.float16) for k, v in q3["scores"].items()},
        "hardware": hw,
        "seconds": seconds,
    }


#: The stages and functions whose code decides a result's numbers: the roots, with the models,
#: of :func:`gendel.gan.run.code_fingerprint`.
STAGES = (training_images, deletion_mask, pretrained_model, label_classifier, train, reweighted, fast_deletion,
          deletion_test, curves, data_record, make_result)


__all__ = ["make_result", "train"]
