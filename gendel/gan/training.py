"""Training loops that show progress, checkpoint every epoch and resume after an interruption.

:func:`run_epochs` runs the epochs of a training: it starts from the last completed epoch of a
checkpoint with the same configuration (:mod:`gendel.gan.checkpoints`), or loads a finished run
instead of training, and writes a checkpoint after each epoch. A checkpoint also keeps a copy of
chosen networks (the generator, the VDM network) after some epochs (:func:`snapshot_epochs`),
with the training time up to then: the per-epoch curves of the GAN chapter (quality against
training time) are read from them. :func:`batches`, :func:`as_tensor` and :func:`evaluate` move
data to the device of :mod:`gendel.gan.devices`.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import numpy as np
import torch

from gendel.cache import remove_stale_temporaries, usable_cache_dir
from gendel.gan import checkpoints as _checkpoints, devices as _devices
from gendel.gan.checkpoints import restore_checkpoint, save_checkpoint
from gendel.gan.devices import hardware

#: The most snapshots one training keeps (see :func:`snapshot_epochs`).
MAX_SNAPSHOTS = 12


def training_code(estimator_class):
    """The hash of the estimator class whose ``fit`` trains (:func:`gendel.fingerprint.code_hash`):
    part of every checkpoint key, so a change to the training code trains again.

    The class is hashed whole, with its base classes: ``fit`` reaches code through ``self`` (the
    networks a DCGAN starts from, :meth:`gendel.gan.dcgan.DCGAN._initial_networks`) and through
    ``super()``, which the fingerprint cannot follow from ``fit`` alone. A change to a method that
    does not train (``sample``) trains again too: a checkpoint is a cache, and a needless training
    costs time where a stale one would cost the numbers.

    Examples
    --------
    >>> from gendel.gan.dcgan import DCGAN
    >>> from gendel.gan.vdm import VDMDRE
    >>> len(training_code(DCGAN)), training_code(DCGAN) != training_code(VDMDRE)
    (16, True)
    """
    from gendel.fingerprint import cached_code_hash

    return cached_code_hash((estimator_class,), BOOKKEEPING)


def _progress(total, initial, desc, enabled):
    from gendel._progress import progress_bar

    return progress_bar(total=total, initial=initial, desc=desc, unit="epoch", leave=False, enabled=enabled)


def snapshot_epochs(epochs, n=MAX_SNAPSHOTS):
    """The epochs after which a training keeps a copy of its snapshot networks: every epoch up
    to ``n`` epochs, else ``n`` epochs spread evenly on a log scale, the last one included.

    Examples
    --------
    >>> snapshot_epochs(5)
    (1, 2, 3, 4, 5)
    >>> snapshot_epochs(200)
    (1, 2, 3, 4, 7, 11, 18, 29, 47, 76, 124, 200)
    """
    if epochs <= n:
        return tuple(range(1, epochs + 1))
    picks = np.unique(np.round(np.geomspace(1, epochs, n)).astype(int))
    k = n
    while len(picks) < n:  # rounding merged some: spread more points on the log scale
        k += 1
        picks = np.unique(np.round(np.geomspace(1, epochs, k)).astype(int))
    return tuple(int(e) for e in picks[:n - 1]) + (epochs,)


@dataclasses.dataclass
class TrainingRun:
    """What :func:`run_epochs` returns: the record of a training (its resumed epochs included).

    Attributes
    ----------
    history : list of dict
        Mean losses of every epoch.
    seconds : float
        Training time of all epochs (wall clock).
    epoch_seconds : list of float
        Training time up to the end of each epoch (cumulative, wall clock).
    epoch_cpu_seconds : list of float
        The CPU time of the training process up to the end of each epoch (cumulative): with one
        torch thread per process it measures the work, whatever else the machine runs.
    snapshots : dict
        ``{epoch: {name: state_dict}}`` of the snapshot networks after the epochs of
        :func:`snapshot_epochs`.
    hardware : list of dict
        The :func:`hardware` of each session that trained some of the epochs, with the epochs
        it trained (``"epochs": [first, last]``).

    Examples
    --------
    A record of two epochs (:func:`run_epochs` makes them; the times are cumulative):

    >>> run = TrainingRun(history=[{"loss": 0.9}, {"loss": 0.7}], seconds=3.0, epoch_seconds=[1.5, 3.0],
    ...                   epoch_cpu_seconds=[1.4, 2.9], snapshots={}, hardware=[])
    >>> len(run.history), run.cpu_seconds
    (2, 2.9)
    """

    history: list
    seconds: float
    epoch_seconds: list
    epoch_cpu_seconds: list
    snapshots: dict
    hardware: list

    @property
    def cpu_seconds(self):
        """The CPU time of all epochs."""
        return self.epoch_cpu_seconds[-1] if self.epoch_cpu_seconds else 0.0


def run_epochs(*, key, epochs, modules, optimizers, generator, epoch_fn, checkpoint_dir, progress, desc,
               device, snapshot=()):
    """Train for ``epochs`` epochs with ``epoch_fn(epoch) -> dict of mean losses``, resuming.

    Parameters
    ----------
    key : str
        The configuration key (:func:`gendel.gan.checkpoints.config_key`): the checkpoint's file name.
    modules, optimizers : dict
        Named ``nn.Module`` and optimiser objects whose states are saved and restored.
    generator : torch.Generator
        The random stream of the training (batches, noise); saved and restored with the rest.
    checkpoint_dir : path or False
        Where checkpoints live; ``False`` trains without checkpoints.
    device : torch.device
        Where the training runs (recorded with the hardware of each session).
    snapshot : tuple of str
        Names of ``modules`` of which a copy is kept after the epochs of :func:`snapshot_epochs`.

    Returns
    -------
    TrainingRun

    Examples
    --------
    Two epochs of a linear model, then a third: the second call resumes from the checkpoint.

    >>> import tempfile
    >>> net = torch.nn.Linear(2, 1)
    >>> def epoch_fn(epoch):                         # one step of gradient descent on net(x)^2
    ...     loss = net(torch.ones(4, 2)).pow(2).mean()
    ...     net.zero_grad(); loss.backward()
    ...     with torch.no_grad():
    ...         _ = [w.sub_(0.1 * w.grad) for w in net.parameters()]
    ...     return {"loss": loss.item()}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     run = dict(key="linear-0", modules={"net": net}, optimizers={}, generator=torch.Generator(),
    ...                epoch_fn=epoch_fn, checkpoint_dir=tmp, progress=False, desc="linear", device="cpu",
    ...                snapshot=("net",))
    ...     first = run_epochs(epochs=2, **run)
    ...     second = run_epochs(epochs=3, **run)
    >>> len(first.history), len(second.history), second.history[:2] == first.history   # one new epoch
    (2, 3, True)
    >>> sorted(second.snapshots), len(second.epoch_seconds)
    ([1, 2, 3], 3)
    """
    kind = key.rsplit("-", 1)[0]
    path = None if checkpoint_dir is False else Path(checkpoint_dir) / f"{key}.pt"
    if path is not None and usable_cache_dir(path.parent) is None:  # warns now, not after the first epoch
        path = None
    if path is not None:
        remove_stale_temporaries(path)
    initial = {n: {k: v.clone() for k, v in m.state_dict().items()} for n, m in modules.items()}
    initial_opt = {n: o.state_dict() for n, o in optimizers.items()}
    initial_gen = generator.get_state()
    state = restore_checkpoint(path, kind, epochs, modules, optimizers, generator)
    if state == "restart":  # a damaged checkpoint may have changed some weights before it failed
        for n, m in modules.items():
            m.load_state_dict(initial[n])
        for n, o in optimizers.items():
            o.load_state_dict(initial_opt[n])
        generator.set_state(initial_gen)
        state = None
    run = TrainingRun(history=[], seconds=0.0, epoch_seconds=[], epoch_cpu_seconds=[], snapshots={}, hardware=[])
    if state is not None:
        run.history = [dict(zip(state["loss_names"], row)) for row in state["history"]]
        run.seconds, run.epoch_seconds = float(state["seconds"]), [float(s) for s in state["epoch_seconds"]]
        run.epoch_cpu_seconds = [float(s) for s in state["epoch_cpu_seconds"]]
        run.snapshots = {int(e): s for e, s in state["snapshots"].items()}
        run.hardware = list(state["hardware"])
    start = len(run.history)
    keep = set(snapshot_epochs(epochs)) if snapshot else set()
    if start < epochs:
        run.hardware.append(hardware(device) | {"epochs": [start + 1, epochs]})
    bar = _progress(epochs, start, desc, progress)
    try:
        for epoch in range(start, epochs):
            t0, c0 = time.perf_counter(), time.process_time()
            for module in modules.values():
                module.train()
            losses = epoch_fn(epoch)
            run.seconds += time.perf_counter() - t0
            run.history.append(losses)
            run.epoch_seconds.append(run.seconds)
            run.epoch_cpu_seconds.append(run.cpu_seconds + time.process_time() - c0)
            if epoch + 1 in keep:
                run.snapshots[epoch + 1] = {n: {k: v.detach().cpu().clone() for k, v in modules[n].state_dict().items()}
                                            for n in snapshot}
            bar.update(1)
            bar.set_postfix({k: f"{v:.3f}" for k, v in losses.items()})
            if path is not None:
                run.hardware[-1]["epochs"][1] = epoch + 1
                save_checkpoint(path, kind, modules, optimizers, generator, run)
    finally:
        bar.close()
    for module in modules.values():
        module.eval()
    return run


def batches(n, batch_size, generator, device):
    """Index batches of one shuffled pass over ``range(n)`` (the last, partial batch dropped
    when a full one exists, as BatchNorm needs more than one example).

    Examples
    --------
    >>> parts = batches(10, 4, torch.Generator().manual_seed(0), "cpu")
    >>> [len(b) for b in parts], len(set(torch.cat(parts).tolist()))    # 8 distinct indices; 2 dropped
    ([4, 4], 8)
    >>> [len(b) for b in batches(3, 4, torch.Generator(), "cpu")]       # fewer than a batch: all of them
    [3]
    """
    perm = torch.randperm(n, generator=generator, device=generator.device).to(device)
    stop = n - n % batch_size if n >= batch_size else n
    return [perm[i:i + batch_size] for i in range(0, stop, batch_size)]


def as_tensor(images, device):
    """A float32 tensor on ``device`` from a numpy array (no copy on the CPU when possible).

    Examples
    --------
    >>> X = np.zeros((2, 3), dtype=np.float32)
    >>> t = as_tensor(X, "cpu")
    >>> t.dtype, tuple(t.shape), t.data_ptr() == X.ctypes.data        # the same memory
    (torch.float32, (2, 3), True)
    >>> as_tensor(np.ones(2), "cpu").dtype                             # float64 is converted
    torch.float32
    """
    return torch.as_tensor(np.ascontiguousarray(images, dtype=np.float32)).to(device)


@torch.no_grad()
def evaluate(network, X, device, batch_size=2048):
    """``network(X)`` in evaluation mode, batched; a float64 numpy array.

    Examples
    --------
    >>> net = torch.nn.Linear(2, 1)
    >>> _ = torch.nn.init.ones_(net.weight), torch.nn.init.zeros_(net.bias)     # net(x) = x1 + x2
    >>> out = evaluate(net, np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), "cpu", batch_size=2)
    >>> out.dtype, out.ravel().tolist()
    (dtype('float64'), [3.0, 7.0, 11.0])
    """
    network.eval()
    out = [network(as_tensor(X[i:i + batch_size], device)).double().cpu() for i in range(0, len(X), batch_size)]
    return torch.cat(out).numpy() if out else np.zeros(0)


def load_snapshot(network, snapshots, epoch, name):
    """``network`` with the weights that ``snapshots`` kept after ``epoch`` (in evaluation mode).

    Examples
    --------
    >>> net = torch.nn.Linear(1, 1)
    >>> kept = {3: {"net": {"weight": torch.full((1, 1), 2.0), "bias": torch.zeros(1)}}}
    >>> load_snapshot(net, kept, 3, "net").weight.item()
    2.0
    >>> load_snapshot(net, kept, 2, "net")
    Traceback (most recent call last):
    ValueError: no snapshot after epoch 2; there are snapshots after epochs [3]
    """
    if epoch not in snapshots:
        raise ValueError(f"no snapshot after epoch {epoch}; there are snapshots after epochs {sorted(snapshots)}")
    network.load_state_dict(snapshots[epoch][name])
    return network.eval()


#: Functions that decide whether a training can be reused, where it runs and how it reports, never
#: what it computes: :mod:`gendel.fingerprint` does not follow them.
BOOKKEEPING = (*_devices.BOOKKEEPING, *_checkpoints.BOOKKEEPING, training_code, _progress)
