"""The VDM density ratio estimator of §3.2 (Examples 2 and 3, errata E5): gendel.gan.vdm.VDMDRE.

On vector data the true ratio is known by construction: X ~ N(0, I_d) and each point is deleted
independently with probability 1 - keep(x), so X \\ X' is an i.i.d. sample of
p'(x) = p(x) keep(x) / E_p[keep] and rho = p'/p = keep / E_p[keep]. With
keep(x) = 0.2 + 0.8 sigmoid(w.x) and w.x ~ N(0, |w|^2) symmetric about 0, E_p[keep] = 0.6 exactly.
"""

import numpy as np
import pytest
from scipy.special import expit

torch = pytest.importorskip("torch")

from gan_fixtures import one_torch_thread, private_cache  # noqa: E402,F401 (autouse fixtures)

from gendel.gan import images  # noqa: E402
from gendel.gan.vdm import VDMDRE  # noqa: E402
from gendel.gan.images import label_deletion_mask, load_images  # noqa: E402

N = 4000
MEAN_KEEP = 0.6
W = {2: np.array([1.5, -1.0]), 5: np.array([1.5, -1.0, 0.5, 0.0, 0.0])}

REAL = images.data_root()
needs_fashion_mnist = pytest.mark.skipif(
    not all(images._find(REAL / "fashion-mnist", f) for f in images.FILES["train"]),
    reason=f"Fashion-MNIST is not in {REAL}: run `make data` to import it")






def keep_probability(X, w):
    return 0.2 + 0.8 * expit(X @ w)


def true_log_ratio(Y, w):
    return np.log(keep_probability(Y, w) / MEAN_KEEP)


def smooth_deletion(d, seed):
    g = np.random.default_rng(seed)
    X = g.standard_normal((N, d))
    deleted = g.random(N) > keep_probability(X, W[d])
    return X, deleted


@pytest.fixture(scope="module")
def smooth_fits():
    """VDMDRE with its defaults on the smooth problem, fitted once per (divergence, d)."""
    fits = {}

    def get(divergence, d):
        if (divergence, d) not in fits:
            X, deleted = smooth_deletion(d, seed=d)
            vdm = VDMDRE(divergence=divergence, checkpoint_dir=False, progress=False).fit(X, deleted)
            fits[divergence, d] = X, deleted, vdm
        return fits[divergence, d]

    return get


def fresh_points(d, n=20_000):
    return np.random.default_rng(100 + d).standard_normal((n, d))


@pytest.mark.parametrize("d", [2, 5])
@pytest.mark.parametrize("divergence", ["kl", "js"])
def test_recovers_a_smooth_known_ratio(smooth_fits, divergence, d):
    X, deleted, vdm = smooth_fits(divergence, d)
    assert 0.3 < deleted.mean() < 0.5  # 1 - E[keep] = 0.4
    Y = fresh_points(d)
    estimated, truth = vdm.log_ratio(Y), true_log_ratio(Y, W[d])
    assert estimated.shape == (len(Y),) and estimated.dtype == np.float64
    assert np.corrcoef(estimated, truth)[0, 1] >= 0.9
    # rho_hat_E is a ratio of two densities: E_p[rho_hat_E] = 1, under p and on X itself (the KL map
    # exp(T - 1) the paper prints, errata E5, would give 1/e).
    assert np.mean(np.exp(estimated)) == pytest.approx(1.0, rel=0.1)
    assert np.mean(vdm.ratio(X)) == pytest.approx(1.0, rel=0.1)
    # Not just the shape: the estimated ratio is near the true one pointwise on average.
    assert np.median(np.abs(estimated - truth)) < 0.15


@needs_fashion_mnist
def test_normalised_on_real_images(tmp_path):
    x, y = load_images("fashion-mnist", split="train")
    pick = np.random.default_rng(0).choice(len(x), 1500, replace=False)
    X, labels = x[pick], y[pick]
    deleted = label_deletion_mask(labels, "even", 0.5, rng=np.random.default_rng(1))
    vdm = VDMDRE(epochs=10, width=16, lr=1e-3, checkpoint_dir=tmp_path, progress=False).fit(X, deleted)
    rho = vdm.ratio(X)
    assert np.all(np.isfinite(rho)) and rho.shape == (len(X),)
    assert np.mean(rho) == pytest.approx(1.0, rel=0.1)
    # ... and not because T stayed at its initial value 0: the deleted images are down-weighted.
    assert np.mean(rho[deleted]) < 0.9 * np.mean(rho[~deleted])
    assert vdm.dim_ == (1, 28, 28)


def small_problem(seed=0, d=2, n=500):
    g = np.random.default_rng(seed)
    X = g.standard_normal((n, d))
    return X, X[:, 0] > 0.5


def test_same_seed_same_ratio_different_seed_different_ratio():
    X, deleted = small_problem()
    Y = np.random.default_rng(1).standard_normal((200, 2))
    fit = lambda seed: VDMDRE(epochs=3, seed=seed, checkpoint_dir=False, progress=False).fit(X, deleted)  # noqa: E731
    first = fit(0).log_ratio(Y)
    assert np.array_equal(first, fit(0).log_ratio(Y))
    assert not np.allclose(first, fit(1).log_ratio(Y))
    # Refitting the same object starts again from the same initial weights.
    vdm = fit(0)
    assert np.array_equal(vdm.fit(X, deleted).log_ratio(Y), first)


def test_log_ratio_before_fit_raises():
    with pytest.raises(ValueError, match=r"not fitted yet.*fit"):
        VDMDRE(progress=False).log_ratio(np.zeros((3, 2)))


def test_refuses_wrong_dimension_and_image_shape():
    X, deleted = small_problem()
    vdm = VDMDRE(epochs=1, checkpoint_dir=False, progress=False).fit(X, deleted)
    with pytest.raises(ValueError, match="dimension 3.*dimension 2"):
        vdm.log_ratio(np.zeros((4, 3)))
    with pytest.raises(ValueError):
        vdm.log_ratio(np.zeros((4, 1, 28, 28), np.float32))  # images for a vector DRE
    g = np.random.default_rng(0)
    imgs = g.uniform(-1, 1, (64, 1, 28, 28)).astype(np.float32)
    mask = np.arange(64) % 3 == 0
    vdm = VDMDRE(epochs=1, width=4, checkpoint_dir=False, progress=False).fit(imgs, mask)
    with pytest.raises(ValueError, match=r"\(n, 1, 28, 28\)"):
        vdm.log_ratio(imgs[:, 0])  # (n, 28, 28): no channel axis
    with pytest.raises(ValueError, match=r"\(n, 1, 28, 28\)"):
        vdm.log_ratio(np.zeros((4, 1, 32, 32), np.float32))
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        vdm.log_ratio(np.full((4, 1, 28, 28), 255.0, np.float32))  # raw pixels, not scaled
    with pytest.raises(ValueError, match=r"\(n, 1, 28, 28\)"):
        VDMDRE(epochs=1, checkpoint_dir=False, progress=False).fit(imgs.reshape(64, 1, 784, 1), mask)
    with pytest.raises(ValueError, match=r"images of shape \(n, 1, 28, 28\).*got an array of shape \(64, 28, 28\)"):
        VDMDRE(epochs=1, checkpoint_dir=False, progress=False).fit(imgs[:, 0], mask)


def test_refuses_unknown_divergence_and_total_deletion():
    X, deleted = small_problem()
    with pytest.raises(ValueError, match=r"divergence must be one of \('kl', 'js'\); got 'chi2'"):
        VDMDRE(divergence="chi2").fit(X, deleted)  # checked by fit: __init__ only stores
    with pytest.raises(ValueError, match="contains every point of X"):
        VDMDRE(epochs=1, checkpoint_dir=False, progress=False).fit(X, np.ones(len(X), bool))
    with pytest.raises(ValueError, match="empty"):
        VDMDRE(epochs=1, checkpoint_dir=False, progress=False).fit(X, np.zeros(len(X), bool))


def test_training_objective_increases_towards_the_divergence():
    # A ratio far from constant, learned slowly (small learning rate): the KL-GAN objective
    # E_{X\X'}[T] - E_X[exp(T) - 1] starts near 0 (T ~ 0) and climbs towards its supremum
    # KL(p' || p), which it cannot exceed by more than the noise of the batches.
    g = np.random.default_rng(3)
    X = g.standard_normal((2000, 2))
    keep = 0.05 + 0.95 * expit(3 * X[:, 0])
    deleted = g.random(len(X)) > keep
    epochs = 5
    vdm = VDMDRE(epochs=epochs, lr=1e-4, checkpoint_dir=False, progress=False).fit(X, deleted)
    objective = [h["objective"] for h in vdm.history_]
    assert len(objective) == epochs and np.all(np.isfinite(objective))
    assert objective[-1] > objective[0]
    Z = g.standard_normal((200_000, 2))
    k = 0.05 + 0.95 * expit(3 * Z[:, 0])
    rho = k / k.mean()
    kl = np.mean(rho * np.log(rho))  # KL(p' || p) = E_p[rho log rho]
    assert objective[-1] < 1.2 * kl
