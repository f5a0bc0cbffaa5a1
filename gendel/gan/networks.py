"""The neural networks of the deep-learning half (§3.2, §5.2, Appendix E.1).

All three image networks follow DCGAN (Radford et al., 2016) sized for 28 x 28 images, in the
two-stride-2-layer form that torch's DCGAN example uses for MNIST-sized inputs:

* :class:`Generator`: z (latent_dim) -> ConvT 7x7 -> ConvT stride 2 (14x14) -> ConvT stride 2
  (28x28) -> tanh, with BatchNorm and ReLU between.
* :class:`Discriminator`: Conv stride 2 (14x14) -> Conv stride 2 (7x7) -> Linear -> one logit,
  with LeakyReLU(0.2) and (optionally) BatchNorm. The VDM network T of Appendix E.1 has "the
  same architecture as the discriminator"; gendel builds it without BatchNorm (see
  :class:`gendel.gan.vdm.VDMDRE`).
* :class:`MLP`: the VDM network T for vector data.
* :class:`LabelCNN`: a small convolutional label classifier that stands in for the pre-trained
  classifiers of the paper's footnote (they cannot be downloaded here).

``width`` is the number of channels of the first convolution of the discriminator and of the
last of the generator (64 in DCGAN).
"""

from __future__ import annotations

from torch import nn


def _init_dcgan(module):
    """DCGAN's initialisation: N(0, 0.02) weights, BatchNorm scales N(1, 0.02)."""
    if isinstance(module, (nn.Conv2d, nn.ConvTranspose2d, nn.Linear)):
        nn.init.normal_(module.weight, 0.0, 0.02)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
    elif isinstance(module, nn.BatchNorm2d):
        nn.init.normal_(module.weight, 1.0, 0.02)
        nn.init.zeros_(module.bias)


class Generator(nn.Sequential):
    """DCGAN generator for 1 x 28 x 28 images in [-1, 1]; input z of shape (n, latent_dim).

    Examples
    --------
    >>> import torch
    >>> from gendel.gan.networks import Generator
    >>> _ = torch.manual_seed(0)
    >>> images = Generator(latent_dim=8, width=4)(torch.randn(3, 8))
    >>> tuple(images.shape), bool(images.abs().max() <= 1)      # tanh: pixels in [-1, 1]
    ((3, 1, 28, 28), True)
    """

    def __init__(self, latent_dim=100, width=64):
        super().__init__(
            nn.Unflatten(1, (latent_dim, 1, 1)),
            nn.ConvTranspose2d(latent_dim, 4 * width, 7, 1, 0, bias=False),
            nn.BatchNorm2d(4 * width),
            nn.ReLU(True),
            nn.ConvTranspose2d(4 * width, 2 * width, 4, 2, 1, bias=False),
            nn.BatchNorm2d(2 * width),
            nn.ReLU(True),
            nn.ConvTranspose2d(2 * width, 1, 4, 2, 1, bias=False),
            nn.Tanh(),
        )
        self.apply(_init_dcgan)


class Discriminator(nn.Sequential):
    """DCGAN discriminator for 1 x 28 x 28 images; one real-valued output (a logit) per image.

    Examples
    --------
    >>> import torch
    >>> from gendel.gan.networks import Discriminator
    >>> _ = torch.manual_seed(0)
    >>> Discriminator(width=4)(torch.randn(5, 1, 28, 28)).shape
    torch.Size([5])
    >>> type(Discriminator(width=4, batchnorm=False)[3]).__name__    # VDM's T: no BatchNorm
    'Identity'
    """

    def __init__(self, width=64, *, batchnorm=True):
        super().__init__(
            nn.Conv2d(1, width, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, True),
            nn.Conv2d(width, 2 * width, 4, 2, 1, bias=not batchnorm),
            nn.BatchNorm2d(2 * width) if batchnorm else nn.Identity(),
            nn.LeakyReLU(0.2, True),
            nn.Flatten(),
            nn.Linear(2 * width * 7 * 7, 1),
            nn.Flatten(0),
        )
        self.apply(_init_dcgan)


class MLP(nn.Sequential):
    """A fully connected network R^d -> R (two hidden layers of ``width`` ELU units).

    Examples
    --------
    >>> import torch
    >>> from gendel.gan.networks import MLP
    >>> _ = torch.manual_seed(0)
    >>> MLP(dim=2, width=8)(torch.randn(4, 2)).shape
    torch.Size([4])
    """

    def __init__(self, dim, width=64):
        super().__init__(
            nn.Linear(dim, width),
            nn.ELU(),
            nn.Linear(width, width),
            nn.ELU(),
            nn.Linear(width, 1),
            nn.Flatten(0),
        )


class LabelCNN(nn.Sequential):
    """Two conv + max-pool blocks and two linear layers: 1 x 28 x 28 -> 10 logits.

    Examples
    --------
    >>> import torch
    >>> from gendel.gan.networks import LabelCNN
    >>> _ = torch.manual_seed(0)
    >>> logits = LabelCNN(width=4)(torch.randn(2, 1, 28, 28))
    >>> logits.shape, logits.argmax(dim=1).shape         # one logit per class
    (torch.Size([2, 10]), torch.Size([2]))
    """

    def __init__(self, n_classes=10, width=32):
        super().__init__(
            nn.Conv2d(1, width, 3, padding=1),
            nn.ReLU(True),
            nn.MaxPool2d(2),
            nn.Conv2d(width, 2 * width, 3, padding=1),
            nn.ReLU(True),
            nn.MaxPool2d(2),
            nn.Flatten(),
            nn.Linear(2 * width * 7 * 7, 128),
            nn.ReLU(True),
            nn.Linear(128, n_classes),
        )
