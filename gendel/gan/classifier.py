"""A label classifier for generated images (it reads the label distribution of a model, §5.2).

The paper labels generated images with pre-trained classifiers from a public repository
(Appendix E, footnote). They cannot be downloaded here, so gendel trains a small CNN on the
training split of each data set and reports its test accuracy next to the figures it labels.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from gendel._validation import Estimator, check_count, check_positive, plain
from gendel.gan.dcgan import check_images
from gendel.gan.networks import LabelCNN
from gendel.gan.devices import pick_device
from gendel.gan.checkpoints import (check_checkpoint_dir, config_key, data_fingerprint,
                                    default_checkpoint_dir)
from gendel.gan.training import as_tensor, batches, evaluate, run_epochs, training_code


def _check_labels(labels, n):
    """Integer class ids 0..9, one per image."""
    labels = np.asarray(labels)
    if labels.shape != (n,) or not np.issubdtype(labels.dtype, np.integer):
        raise ValueError(f"labels must be integers 0..9 of shape ({n},), one per image; got {labels.dtype} of "
                         f"shape {labels.shape}")
    if n and (labels.min() < 0 or labels.max() > 9):
        raise ValueError(f"labels must lie in 0..9; got values from {labels.min()} to {labels.max()}")
    return labels


class LabelClassifier(Estimator):
    """A :class:`!gendel.gan.networks.LabelCNN` trained with cross-entropy and Adam.

    Parameters
    ----------
    epochs : int
        Passes over the training images.
    seed, width, batch_size, lr, device, checkpoint_dir, progress
        As for :class:`gendel.gan.dcgan.DCGAN`.

    Attributes
    ----------
    network_ : torch.nn.Module
        The trained CNN.
    fit_seconds_ : float
        Training time in seconds.

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.gan.classifier import LabelClassifier
    >>> rng = np.random.default_rng(0)
    >>> images = rng.uniform(-1, 1, (40, 1, 28, 28)).astype("float32")
    >>> clf = LabelClassifier(epochs=1, checkpoint_dir=False, progress=False).fit(images, rng.integers(0, 10, 40))
    >>> clf.predict_proba(images[:3]).shape
    (3, 10)
    >>> clf
    LabelClassifier(checkpoint_dir=False, epochs=1, progress=False)
    """

    _fitted_attribute = "network_"

    def __init__(self, *, epochs=4, seed=0, width=32, batch_size=128, lr=1e-3, device=None, checkpoint_dir=None,
                 progress=True):
        self.epochs = plain(epochs)
        self.seed = plain(seed)
        self.width = plain(width)
        self.batch_size = plain(batch_size)
        self.lr = plain(lr)
        self.device = device
        self.checkpoint_dir = checkpoint_dir
        self.progress = progress

    def _check_params(self):
        check_count(self.epochs, "epochs")
        check_count(self.seed, "seed", minimum=0)
        check_count(self.width, "width")
        check_count(self.batch_size, "batch_size", minimum=2)
        check_positive(self.lr, "lr")
        check_checkpoint_dir(self.checkpoint_dir)
        pick_device(self.device)

    def fit(self, images, labels):
        """Train on images (n, 1, 28, 28) with integer labels 0..9. Returns self."""
        self._check_params()
        images = check_images(images)
        self.__dict__.pop("network_", None)  # a failed refit leaves the classifier unfitted
        labels = _check_labels(labels, len(images))
        device = pick_device(self.device)
        torch.manual_seed(self.seed)
        net = LabelCNN(10, self.width).to(device)
        opt = torch.optim.Adam(net.parameters(), lr=self.lr)
        gen = torch.Generator(device=device).manual_seed(self.seed)
        data, target = as_tensor(images, device), torch.as_tensor(labels.astype(np.int64), device=device)

        def epoch_fn(epoch):
            total = torch.zeros((), device=device)
            idx = batches(len(data), self.batch_size, gen, device)
            for b in idx:
                loss = F.cross_entropy(net(data[b]), target[b])
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                total = total + loss.detach()
            return {"loss": float(total) / len(idx)}

        config = {"data": data_fingerprint(images, labels), "epochs": self.epochs, "seed": self.seed,
                  "width": self.width, "batch_size": self.batch_size, "lr": self.lr, "code": training_code(LabelClassifier)}
        ckpt = default_checkpoint_dir() if self.checkpoint_dir is None else self.checkpoint_dir
        run = run_epochs(
            key=config_key("classifier", config, device), epochs=self.epochs, modules={"net": net},
            optimizers={"net": opt}, generator=gen, epoch_fn=epoch_fn, checkpoint_dir=ckpt, progress=self.progress,
            desc=f"label classifier ({len(images)} images)", device=device)
        self.history_, self.fit_seconds_, self.hardware_ = run.history, run.seconds, run.hardware
        self.fit_cpu_seconds_ = run.cpu_seconds
        self.network_, self.device_ = net, device
        return self

    def predict_proba(self, images):
        """Class probabilities, shape (n, 10)."""
        self._check_fitted()
        logits = evaluate(self.network_, check_images(images), self.device_)
        logits = logits - logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        return p / p.sum(axis=1, keepdims=True)

    def predict(self, images):
        """The most probable label of each image, int64 (n,)."""
        return self.predict_proba(images).argmax(axis=1)

    def score(self, images, labels):
        """Accuracy on labelled images (``labels``: integers 0..9, one per image)."""
        images = check_images(images)
        labels = _check_labels(labels, len(images))
        return float(np.mean(self.predict(images) == labels))


__all__ = ["LabelClassifier"]
