"""The VDM-based density ratio estimator of §3.2 (variational divergence minimisation).

For a convex phi with conjugate phi*, D_phi(p'||p) >= sup_T E_{p'}[T] - E_p[phi*(T)], and the
supremum is reached at T = phi'(rho) with rho = p'/p. Maximising the empirical objective

    E_{x ~ X \\ X'}[T(x)] - E_{x ~ X}[phi*(T(x))]

over a neural network T and inverting phi' gives rho_hat_E = (phi')^{-1}(T). Two divergences:

* ``"kl"`` (Example 3, KL-GAN): phi(t) = t log t - t + 1, phi*(t) = exp(t) - 1, so the objective
  is E_{X\\X'}[T] - E_X[exp(T) - 1] and rho_hat_E = exp(T): log rho_hat_E = T. (The paper pairs
  this objective with exp(T - 1), which belongs to phi(t) = t log t; see errata E5.)
* ``"js"`` (Example 2): the GAN discriminator D = sigmoid(a) trained with
  E_{X\\X'}[log D] + E_X[log(1 - D)], and rho_hat_E = D / (1 - D): log rho_hat_E = a.

Batches of X and of X \\ X' have the same size, so the classes of the JS form are balanced.
"""

from __future__ import annotations

import warnings

import numpy as np
import torch
import torch.nn.functional as F

from gendel._validation import check_count, check_deletion, check_points, check_positive, plain
from gendel.core.dre import DensityRatioEstimator
from gendel.gan.dcgan import check_images
from gendel.gan.networks import MLP, Discriminator
from gendel.gan.devices import pick_device
from gendel.gan.checkpoints import (check_checkpoint_dir, config_key, data_fingerprint,
                                    default_checkpoint_dir)
from gendel.gan.training import as_tensor, batches, evaluate, load_snapshot, run_epochs, training_code

DIVERGENCES = ("kl", "js")


def _is_images(X):
    return np.ndim(X) == 4


class _Standardised(torch.nn.Module):
    """Standardise vector inputs with the mean and scale of X before the network."""

    def __init__(self, network, mean, scale):
        super().__init__()
        self.network = network
        self.register_buffer("mean", torch.as_tensor(mean, dtype=torch.float32))
        self.register_buffer("scale", torch.as_tensor(scale, dtype=torch.float32))

    def forward(self, x):
        return self.network((x - self.mean) / self.scale)


class VDMDRE(DensityRatioEstimator):
    """Density ratio rho_hat_E = p_hat'/p_hat by variational divergence minimisation (§3.2).

    Parameters
    ----------
    divergence : {"kl", "js"}
        The phi-divergence: KL (Example 3, with the objective and the ratio map paired as in
        errata E5) or Jensen-Shannon (Example 2).
    network : torch.nn.Module, optional
        The network T, mapping a batch to one value per example. ``None`` picks an
        :class:`!gendel.gan.networks.MLP` for vectors (n, d) and, for images (n, 1, 28, 28),
        the DCGAN discriminator's architecture (Appendix E.1) without BatchNorm: with separate
        batches from X and X \\ X', BatchNorm normalises each batch by its own statistics and
        breaks the normalisation E_X[rho_hat_E] = 1.
    epochs : int
        Passes over X (40 in Appendix E.1).
    seed : int
        Seeds the initial weights and the batches.
    width : int
        Width of the default network (hidden units of the MLP, channels of the discriminator).
    batch_size : int
        Examples of X, and as many of X \\ X', per step.
    lr : float, optional
        Adam's learning rate; by default 1e-4 for images (DCGAN's 2e-4 halved, Appendix E.1)
        and 1e-3 for vectors.
    device, checkpoint_dir, progress
        As for :class:`gendel.gan.dcgan.DCGAN`.

    Attributes
    ----------
    network_ : torch.nn.Module
        The trained T.
    history_ : list of dict
        The objective (``objective``, to be maximised) of every epoch.
    fit_seconds_ : float
        Training time in seconds.
    fit_cpu_seconds_, epoch_seconds_, epoch_cpu_seconds_, hardware_, snapshot_epochs_
        As for :class:`gendel.gan.dcgan.DCGAN`: the CPU time, the wall and CPU time up to each epoch,
        where it was trained, and the epochs after which a copy of T was kept (:meth:`at_epoch`).

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.gan.vdm import VDMDRE
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((800, 2))
    >>> deleted = (X[:, 0] > 0) & (rng.random(800) < 0.5)   # half of the right half forgotten
    >>> vdm = VDMDRE(epochs=8, width=16, checkpoint_dir=False, progress=False).fit(X, deleted)
    >>> bool(vdm.log_ratio([[-2.0, 0.0]])[0] > vdm.log_ratio([[2.0, 0.0]])[0])
    True
    >>> vdm
    VDMDRE(checkpoint_dir=False, epochs=8, progress=False, width=16)
    """

    def __init__(self, *, divergence="kl", network=None, epochs=40, seed=0, width=64, batch_size=128, lr=None,
                 device=None, checkpoint_dir=None, progress=True):
        self.divergence = divergence
        self.network = network
        self.epochs = plain(epochs)
        self.seed = plain(seed)
        self.width = plain(width)
        self.batch_size = plain(batch_size)
        self.lr = plain(lr)
        self.device = device
        self.checkpoint_dir = checkpoint_dir
        self.progress = progress

    def _check_params(self):
        if self.divergence not in DIVERGENCES:
            raise ValueError(f"divergence must be one of {DIVERGENCES}; got {self.divergence!r}")
        if self.network is not None and not isinstance(self.network, torch.nn.Module):
            raise TypeError(f"network must be a torch.nn.Module or None; got {type(self.network).__name__}")
        check_count(self.epochs, "epochs")
        check_count(self.seed, "seed", minimum=0)
        check_count(self.width, "width")
        check_count(self.batch_size, "batch_size")
        if self.lr is not None:
            check_positive(self.lr, "lr")
        check_checkpoint_dir(self.checkpoint_dir)
        pick_device(self.device)

    def _check(self, X, name):
        if _is_images(X):
            return check_images(X, name)
        if np.ndim(X) not in (1, 2) and not np.iscomplexobj(X):
            raise ValueError(f"{name} must be images of shape (n, 1, 28, 28) (gendel.gan.images.load_images gives this) "
                             f"or vectors of shape (n, d); got an array of shape {np.shape(X)}")
        return check_points(X, name).astype(np.float32)

    def _warn_if_diverged(self, mask):
        """The KL objective E_{X\\X'}[T] − E_X[exp(T) − 1] cannot exceed KL(X \\ X' ‖ X) = log N/(N − N');
        far above it (or not finite) the training diverged (a learning rate too large). Both objectives
        are 0 (KL) and −2 log 2 (JS) for a constant T = 0; far below that at the last epoch, T is worse than
        a constant: the training diverged too."""
        ceiling = np.log(len(mask) / (len(mask) - mask.sum()))
        last = [h["objective"] for h in self.history_]
        if not np.all(np.isfinite(last)) or (self.divergence == "kl" and max(last) > 2 * ceiling + 0.1) or \
                last[-1] < (0.0 if self.divergence == "kl" else -2 * np.log(2)) - 1.0:
            warnings.warn(
                f"the VDM training diverged: its objective went from {last[0]:.3g} to {last[-1]:.3g} (largest "
                f"{max(last):.3g}), while a trained T gives between 0 (what the constant T = 0 gives) and "
                f"log N/(N - N') = {ceiling:.3g} for the KL divergence, and between -2 log 2 = -1.39 and 0 for JS; "
                "rho_hat_E is not usable. Use a smaller learning rate "
                f"(lr={self.lr!r} now; the default is 1e-4 for images, 1e-3 for vectors)",
                RuntimeWarning, stacklevel=3)

    def fit(self, X, deleted):
        """Train T on X (vectors (N, d) or images (N, 1, 28, 28)) and the deletion set ``deleted``
        (a boolean mask over X, True for X', or row indices). Returns self."""
        self._check_params()
        X = self._check(X, "X")
        mask = check_deletion(deleted, len(X))
        self.__dict__.pop("_fitted", None)
        images = _is_images(X)
        self.n_samples_, self.n_deleted_ = len(X), int(mask.sum())
        self.dim_ = X.shape[1:] if images else X.shape[1]
        device = pick_device(self.device)
        torch.manual_seed(self.seed)
        if self.network is not None:
            import copy

            network = copy.deepcopy(self.network)  # fitting twice starts from the same weights
        elif images:
            network = Discriminator(self.width, batchnorm=False)
        else:
            network = _Standardised(MLP(X.shape[1], self.width), X.mean(0), X.std(0) + 1e-12)
        network = network.to(device)
        lr = self.lr or (1e-4 if images else 1e-3)
        opt = torch.optim.Adam(network.parameters(), lr=lr, betas=(0.5, 0.999))
        gen = torch.Generator(device=device).manual_seed(self.seed)
        data = as_tensor(X, device)
        kept = torch.as_tensor(np.flatnonzero(~mask), device=device)
        b = min(self.batch_size, len(X))

        def epoch_fn(epoch):
            total = torch.zeros((), device=device)
            idx = batches(len(data), b, gen, device)
            for batch in idx:
                pick = kept[torch.randint(len(kept), (len(batch),), generator=gen, device=device)]
                t_all, t_kept = network(data[batch]), network(data[pick])
                if self.divergence == "kl":  # E_{X\X'}[T] - E_X[exp(T) - 1]
                    objective = t_kept.mean() - torch.expm1(t_all.clamp(max=30.0)).mean()
                else:  # E_{X\X'}[log sigmoid(a)] + E_X[log(1 - sigmoid(a))]
                    objective = F.logsigmoid(t_kept).mean() + F.logsigmoid(-t_all).mean()
                opt.zero_grad(set_to_none=True)
                (-objective).backward()
                opt.step()
                total = total + objective.detach()
            return {"objective": float(total) / len(idx)}

        config = {"data": data_fingerprint(X, mask), "divergence": self.divergence, "epochs": self.epochs,
                  "seed": self.seed, "width": self.width, "batch_size": self.batch_size, "lr": lr,
                  "network": None if self.network is None else repr(self.network), "code": training_code(VDMDRE)}
        self.key_ = config_key("vdm", config, device)
        # a user-given network is not part of the key beyond its repr: its initial weights may differ
        ckpt = default_checkpoint_dir() if self.checkpoint_dir is None else self.checkpoint_dir
        if self.network is not None:
            ckpt = False if self.checkpoint_dir is None else self.checkpoint_dir
        run = run_epochs(
            key=self.key_, epochs=self.epochs, modules={"T": network}, optimizers={"T": opt}, generator=gen,
            epoch_fn=epoch_fn, checkpoint_dir=ckpt, progress=self.progress,
            desc=f"VDM-{self.divergence.upper()} DRE ({len(X)} points)", device=device, snapshot=("T",))
        self.history_, self.fit_seconds_, self.epoch_seconds_ = run.history, run.seconds, run.epoch_seconds
        self.fit_cpu_seconds_, self.epoch_cpu_seconds_ = run.cpu_seconds, run.epoch_cpu_seconds
        self.hardware_, self._snapshots = run.hardware, run.snapshots
        self.snapshot_epochs_ = tuple(sorted(run.snapshots))
        self.network_, self.device_ = network, device
        self._fitted = True
        self._warn_if_diverged(mask)
        return self

    def at_epoch(self, epoch):
        """The DRE as it was after ``epoch`` epochs of its training (one of ``snapshot_epochs_``),
        with ``fit_seconds_`` the training time up to then.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> X = rng.standard_normal((200, 2))
        >>> vdm = VDMDRE(epochs=2, width=8, checkpoint_dir=False, progress=False).fit(X, X[:, 0] > 1)
        >>> first = vdm.at_epoch(1)
        >>> first.snapshot_epochs_, bool((first.log_ratio(X[:3]) != vdm.log_ratio(X[:3])).any())
        ((1, 2), True)
        """
        import copy as _copy

        self._check_fitted()
        out = _copy.copy(self)
        out.network_ = load_snapshot(_copy.deepcopy(self.network_), self._snapshots, epoch, "T")
        out.fit_seconds_ = self.epoch_seconds_[epoch - 1]
        out.fit_cpu_seconds_ = self.epoch_cpu_seconds_[epoch - 1]
        out.history_ = self.history_[:epoch]
        return out

    def log_ratio(self, Y):
        """log rho_hat_E(y) for each row (or image) of ``Y``; float64 array of shape (n,)."""
        self._check_fitted()
        if isinstance(self.dim_, tuple):
            Y = check_images(Y, "Y")
        else:
            Y = check_points(Y, "Y", dim=self.dim_).astype(np.float32)
        return evaluate(self.network_, Y, self.device_)


__all__ = ["VDMDRE"]
