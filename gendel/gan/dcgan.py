"""The DCGAN learner A of §5.2: pre-trained on X, re-trained on X \\ X'."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from gendel._validation import Estimator, check_count, check_memory, check_positive, check_rng, plain
from gendel.gan.networks import Discriminator, Generator
from gendel.gan.devices import pick_device
from gendel.gan.checkpoints import (check_checkpoint_dir, config_key, data_fingerprint,
                                    default_checkpoint_dir)
from gendel.gan.training import as_tensor, batches, load_snapshot, run_epochs, training_code


def check_images(images, name="images"):
    """Return ``images`` as a float32 array of shape (n, 1, 28, 28) with values in [-1, 1].

    Examples
    --------
    >>> import numpy as np
    >>> check_images(np.zeros((2, 1, 28, 28))).dtype
    dtype('float32')
    """
    if np.iscomplexobj(images):
        raise TypeError(f"{name} must be real-valued; got complex numbers")
    arr = np.asarray(images)
    if arr.ndim != 4 or arr.shape[1:] != (1, 28, 28):
        raise ValueError(
            f"{name} must have shape (n, 1, 28, 28) (gendel.gan.images.load_images gives this); got {arr.shape}"
        )
    if len(arr) == 0:
        raise ValueError(f"{name} is empty")
    arr = arr.astype(np.float32, copy=False)
    if not np.isfinite(arr).all() or arr.min() < -1.0001 or arr.max() > 1.0001:
        raise ValueError(f"{name} must be finite and scaled to [-1, 1] (pixel / 127.5 - 1)")
    return arr


class DCGAN(Estimator):
    """Deep convolutional GAN (Radford et al., 2016) for 28 x 28 grey-scale images.

    Trained with the non-saturating GAN loss and Adam, as torch's DCGAN example. An implicit
    model: it can be sampled but has no density, so the ratio between the pre-trained and the
    re-trained DCGAN is unknown and gendel estimates it with :class:`gendel.gan.vdm.VDMDRE`.

    Parameters
    ----------
    epochs : int
        Passes over the training images (200 in Appendix E.1).
    seed : int
        Seeds the initial weights and the training's random stream.
    width : int
        Channels of the discriminator's first convolution and of the generator's last hidden
        layer (64 in DCGAN).
    latent_dim : int
        Dimension of the noise z ~ N(0, I).
    batch_size, lr, beta1 : int, float, float
        Adam with learning rate ``lr`` and betas ``(beta1, 0.999)`` on mini-batches.
    device : str, optional
        ``"cuda"`` or ``"cpu"``; by default CUDA when torch sees a GPU.
    checkpoint_dir : path, optional
        Where the training checkpoints live (default ``$GENDEL_CACHE_DIR/checkpoints``);
        ``False`` to train without them. A configuration trained before is loaded, not trained.
    progress : bool
        Show a tqdm progress bar over the epochs.

    Attributes
    ----------
    generator_, discriminator_ : torch.nn.Module
        The trained networks (in evaluation mode).
    history_ : list of dict
        Mean losses ``loss_d`` and ``loss_g`` of every epoch.
    fit_seconds_ : float
        Training time in seconds (the epochs of an earlier, resumed run included).
    fit_cpu_seconds_ : float
        The CPU time of the training (with one torch thread, its work whatever else the machine runs).
    epoch_seconds_, epoch_cpu_seconds_ : list of float
        Training time and CPU time up to the end of each epoch.
    hardware_ : list of dict
        Where the epochs were trained (``gendel.gan.devices.hardware``, with the epochs of each
        session): a training loaded from its checkpoint keeps the hardware it ran on.
    snapshot_epochs_ : tuple of int
        The epochs after which a copy of the generator was kept (:meth:`at_epoch`).
    key_ : str
        The configuration key of the training (its checkpoint's name).

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.gan.dcgan import DCGAN
    >>> images = np.random.default_rng(0).uniform(-1, 1, (64, 1, 28, 28)).astype("float32")
    >>> gan = DCGAN(epochs=1, width=8, batch_size=32, checkpoint_dir=False, progress=False).fit(images)
    >>> gan.sample(5, rng=np.random.default_rng(1)).shape
    (5, 1, 28, 28)
    >>> gan
    DCGAN(batch_size=32, checkpoint_dir=False, epochs=1, progress=False, width=8)
    """

    _fitted_attribute = "generator_"

    def __init__(self, *, epochs, seed=0, width=64, latent_dim=100, batch_size=128, lr=2e-4, beta1=0.5,
                 device=None, checkpoint_dir=None, progress=True):
        self.epochs = plain(epochs)
        self.seed = plain(seed)
        self.width = plain(width)
        self.latent_dim = plain(latent_dim)
        self.batch_size = plain(batch_size)
        self.lr = plain(lr)
        self.beta1 = plain(beta1)
        self.device = device
        self.checkpoint_dir = checkpoint_dir
        self.progress = progress

    def _check_params(self):
        check_count(self.epochs, "epochs")
        check_count(self.seed, "seed", minimum=0)
        check_count(self.width, "width")
        check_count(self.latent_dim, "latent_dim")
        check_count(self.batch_size, "batch_size", minimum=2)
        check_positive(self.lr, "lr")
        if isinstance(self.beta1, bool) or not isinstance(self.beta1, (int, float)) or not 0 <= self.beta1 < 1:
            raise ValueError(f"beta1 must be a number in [0, 1) (Adam's first-moment decay); got {self.beta1!r}")
        check_checkpoint_dir(self.checkpoint_dir)
        pick_device(self.device)

    def _config(self, images):
        return {"data": data_fingerprint(images), "epochs": self.epochs, "seed": self.seed, "width": self.width,
                "latent_dim": self.latent_dim, "batch_size": self.batch_size, "lr": self.lr, "beta1": self.beta1,
                "code": training_code(DCGAN)}

    #: The first word of the checkpoint's name, and what the progress bar says is training.
    _checkpoint_kind, _what = "dcgan", "DCGAN"

    def _initial_networks(self, device):
        """The generator and discriminator the training starts from: fresh ones, initialised by
        torch's random stream (seeded with ``seed`` just before)."""
        return Generator(self.latent_dim, self.width).to(device), Discriminator(self.width).to(device)

    def fit(self, images):
        """Train on ``images`` (n, 1, 28, 28) in [-1, 1] (or load the finished training). Returns self."""
        self._check_params()
        images = check_images(images)
        self.__dict__.pop("generator_", None)  # a failed refit leaves the model unfitted
        device = pick_device(self.device)
        torch.manual_seed(self.seed)
        G, D = self._initial_networks(device)
        betas = (self.beta1, 0.999)
        opt_g = torch.optim.Adam(G.parameters(), lr=self.lr, betas=betas)
        opt_d = torch.optim.Adam(D.parameters(), lr=self.lr, betas=betas)
        gen = torch.Generator(device=device).manual_seed(self.seed)
        data = as_tensor(images, device)
        loss = nn.BCEWithLogitsLoss()

        def epoch_fn(epoch):
            total_d = total_g = torch.zeros((), device=device)
            idx = batches(len(data), self.batch_size, gen, device)
            for b in idx:
                real = data[b]
                ones = torch.ones(len(b), device=device)
                zeros = torch.zeros(len(b), device=device)
                fake = G(torch.randn(len(b), self.latent_dim, device=device, generator=gen))
                opt_d.zero_grad(set_to_none=True)
                loss_d = loss(D(real), ones) + loss(D(fake.detach()), zeros)
                loss_d.backward()
                opt_d.step()
                opt_g.zero_grad(set_to_none=True)
                loss_g = loss(D(fake), ones)  # the non-saturating generator loss
                loss_g.backward()
                opt_g.step()
                total_d = total_d + loss_d.detach()
                total_g = total_g + loss_g.detach()
            return {"loss_d": float(total_d) / len(idx), "loss_g": float(total_g) / len(idx)}

        self.key_ = config_key(self._checkpoint_kind, self._config(images), device)
        ckpt = default_checkpoint_dir() if self.checkpoint_dir is None else self.checkpoint_dir
        run = run_epochs(
            key=self.key_, epochs=self.epochs, modules={"generator": G, "discriminator": D},
            optimizers={"generator": opt_g, "discriminator": opt_d}, generator=gen, epoch_fn=epoch_fn,
            checkpoint_dir=ckpt, progress=self.progress, desc=f"{self._what} ({len(images)} images)", device=device,
            snapshot=("generator",))
        self.history_, self.fit_seconds_, self.epoch_seconds_ = run.history, run.seconds, run.epoch_seconds
        self.fit_cpu_seconds_, self.epoch_cpu_seconds_ = run.cpu_seconds, run.epoch_cpu_seconds
        self.hardware_, self._snapshots = run.hardware, run.snapshots
        self.snapshot_epochs_ = tuple(sorted(run.snapshots))
        self.generator_, self.discriminator_ = G, D
        self.device_ = device
        return self

    def at_epoch(self, epoch):
        """The model as it was after ``epoch`` epochs of its training (one of ``snapshot_epochs_``):
        a fitted copy whose generator has the weights kept then, and whose ``fit_seconds_`` is the
        training time up to then.

        Examples
        --------
        >>> import numpy as np
        >>> images = np.random.default_rng(0).uniform(-1, 1, (64, 1, 28, 28)).astype("float32")
        >>> gan = DCGAN(epochs=2, width=4, batch_size=32, checkpoint_dir=False, progress=False).fit(images)
        >>> first = gan.at_epoch(1)
        >>> first.snapshot_epochs_, first.fit_seconds_ <= gan.fit_seconds_
        ((1, 2), True)
        >>> bool((first.sample(3, rng=0) != gan.sample(3, rng=0)).any())    # another generator
        True
        """
        self._check_fitted()
        copy = type(self)(**self.get_params(deep=False))
        copy.__dict__.update({k: v for k, v in self.__dict__.items() if k.endswith("_") or k == "_snapshots"})
        G = Generator(self.latent_dim, self.width).to(self.device_)
        copy.generator_ = load_snapshot(G, self._snapshots, epoch, "generator")
        copy.discriminator_ = None  # not kept per epoch
        copy.fit_seconds_ = self.epoch_seconds_[epoch - 1]
        copy.fit_cpu_seconds_ = self.epoch_cpu_seconds_[epoch - 1]
        copy.history_ = self.history_[:epoch]
        return copy

    @torch.no_grad()
    def sample(self, m, *, rng, batch_size=2048):
        """``m`` generated images, float32 (m, 1, 28, 28) in [-1, 1]; z drawn from ``rng``."""
        self._check_fitted()
        m = check_count(m, "m", minimum=0)
        batch_size = check_count(batch_size, "batch_size")
        rng = check_rng(rng)
        check_memory(m * 4 * (28 * 28 + self.latent_dim), f"DCGAN.sample(m={m}) (m images of 1 x 28 x 28 float32 and "
                     f"their latent vectors)", "draw the images in parts, e.g. sample(10_000, rng=rng) in a loop")
        z = rng.standard_normal((m, self.latent_dim), dtype=np.float32)
        self.generator_.eval()
        out = [self.generator_(as_tensor(z[i:i + batch_size], self.device_)).cpu() for i in range(0, m, batch_size)]
        return torch.cat(out).numpy() if out else np.zeros((0, 1, 28, 28), np.float32)


class FineTunedDCGAN(DCGAN):
    """A DCGAN trained further from a fitted one: fine-tuning, the cheap baseline of unlearning.

    It starts from the generator and discriminator weights of ``init`` (the pre-trained DCGAN)
    and trains them on new images (X ∖ X′) for ``epochs`` epochs with the same loss, a fresh
    Adam optimiser of the same settings (the pre-trained run's optimiser state is not kept: a
    practitioner who only has the weights can do this) and batches drawn with ``seed``.
    Width and latent dimension are ``init``'s.

    Parameters
    ----------
    init : DCGAN
        The fitted model to start from.
    epochs : int
        Fine-tuning epochs (few: the point is that it costs less than re-training).
    seed, batch_size, lr, beta1, device, checkpoint_dir, progress
        As for :class:`DCGAN`.

    Examples
    --------
    >>> import numpy as np
    >>> images = np.random.default_rng(0).uniform(-1, 1, (64, 1, 28, 28)).astype("float32")
    >>> pre = DCGAN(epochs=1, width=8, batch_size=32, checkpoint_dir=False, progress=False).fit(images)
    >>> tuned = FineTunedDCGAN(init=pre, epochs=1, batch_size=32, checkpoint_dir=False, progress=False).fit(images[:32])
    >>> tuned.width, bool((tuned.sample(2, rng=0) != pre.sample(2, rng=0)).any())
    (8, True)
    """

    def __init__(self, *, init, epochs, seed=0, batch_size=128, lr=2e-4, beta1=0.5, device=None,
                 checkpoint_dir=None, progress=True):
        super().__init__(epochs=epochs, seed=seed, width=getattr(init, "width", None),
                         latent_dim=getattr(init, "latent_dim", None), batch_size=batch_size, lr=lr, beta1=beta1,
                         device=device, checkpoint_dir=checkpoint_dir, progress=progress)
        self.init = init

    def _check_params(self):
        if not isinstance(self.init, DCGAN) or getattr(self.init, "discriminator_", None) is None:
            raise TypeError("init must be a fitted DCGAN with its discriminator (DCGAN(...).fit(images), not a copy "
                            f"from at_epoch); got {type(self.init).__name__}")
        super()._check_params()

    def _config(self, images):
        return {"data": data_fingerprint(images), "init": self.init.key_, "epochs": self.epochs, "seed": self.seed,
                "batch_size": self.batch_size, "lr": self.lr, "beta1": self.beta1,
                "code": training_code(FineTunedDCGAN)}

    #: Its checkpoints are named apart from a DCGAN's trained from scratch.
    _checkpoint_kind, _what = "dcgan-finetune", "fine-tuning a DCGAN"

    def _initial_networks(self, device):
        """Networks of ``init``'s shape, with ``init``'s weights (made as a fresh DCGAN's first, so
        that torch's random stream is where it would be)."""
        G, D = super()._initial_networks(device)
        G.load_state_dict(self.init.generator_.state_dict())
        D.load_state_dict(self.init.discriminator_.state_dict())
        return G, D

    def fit(self, images):
        """Train ``init``'s networks further on ``images`` (or load the finished training). Returns self.

        The epochs are :meth:`DCGAN.fit`'s; only the networks they start from differ."""
        if isinstance(self.init, DCGAN):  # init's shape, also after set_params(init=...); a wrong init is refused in fit
            self.width, self.latent_dim = self.init.width, self.init.latent_dim
        return super().fit(images)


__all__ = ["DCGAN", "FineTunedDCGAN"]
