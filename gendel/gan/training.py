"""Training loops that show progress, checkpoint every epoch and resume after an interruption.

A training run is identified by its configuration: a hash of the data it sees (the bytes of the
images and of the deletion mask) and of every hyper-parameter. After each epoch the networks,
the optimisers, the random generator and the loss history are written to
``<checkpoint_dir>/<kind>-<hash>.pt`` atomically (a uniquely named temporary file in the same
folder, then :func:`os.replace`), so a killed or a concurrent job never leaves a torn file. A
run with the same configuration starts from the last completed epoch; a finished run is loaded
instead of trained. Checkpoints hold tensors and plain containers only and are read with
``torch.load(..., weights_only=True)``.
"""

from __future__ import annotations

import hashlib
import json
import time
import warnings
from pathlib import Path

import numpy as np
import torch

from ..cache import atomic_write, usable_cache_dir  # atomic_write moved to gendel.cache; re-exported

#: Bump when a change to the training code changes what a configuration trains.
TRAINING_VERSION = 1


def pick_device(device=None):
    """``torch.device``: the one asked for, else CUDA when available, else the CPU.

    Examples
    --------
    >>> pick_device("cpu")
    device(type='cpu')
    >>> pick_device().type == ("cuda" if torch.cuda.is_available() else "cpu")
    True
    """
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    device = torch.device(device)
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise ValueError("device='cuda' was asked for but torch sees no CUDA GPU; use device='cpu' or device=None")
        torch.backends.cudnn.benchmark = True  # fixed shapes: let cuDNN pick its fastest kernels
    return device


def data_fingerprint(*arrays):
    """A short hash of the bytes (and shapes, dtypes) of numpy arrays: the data selection.

    Examples
    --------
    >>> X = np.arange(6, dtype=np.uint8)
    >>> data_fingerprint(X) == data_fingerprint(X.copy()), data_fingerprint(X) == data_fingerprint(X.reshape(2, 3))
    (True, False)
    >>> len(data_fingerprint(X, X > 2))       # 12 bytes in hex, for any number of arrays
    24
    """
    h = hashlib.blake2b(digest_size=12)
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.shape}{a.dtype}".encode())
        h.update(memoryview(a).cast("B"))
    return h.hexdigest()


def config_key(kind, config):
    """``<kind>-<hash>`` for a JSON-serialisable configuration.

    Examples
    --------
    >>> key = config_key("dcgan", {"epochs": 1, "width": 8})
    >>> key.startswith("dcgan-"), key == config_key("dcgan", {"width": 8, "epochs": 1})   # order is irrelevant
    (True, True)
    >>> key == config_key("dcgan", {"epochs": 2, "width": 8})
    False
    """
    payload = json.dumps([kind, TRAINING_VERSION, config], sort_keys=True, default=str)
    return f"{kind}-{hashlib.sha256(payload.encode()).hexdigest()[:20]}"


def default_checkpoint_dir():
    """``$GENDEL_CACHE_DIR/checkpoints`` (default ``~/.cache/gendel/checkpoints``).

    Examples
    --------
    >>> from gendel.cache import cache_dir
    >>> default_checkpoint_dir() == cache_dir() / "checkpoints"
    True
    """
    from ..cache import cache_dir

    return cache_dir() / "checkpoints"


def atomic_save(obj, path):
    """``torch.save`` through :func:`atomic_write`.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     atomic_save({"weights": torch.ones(3)}, Path(tmp) / "run.pt")
    ...     sorted(p.name for p in Path(tmp).iterdir())       # no temporary file left behind
    ['run.pt']
    """
    atomic_write(path, lambda f: torch.save(obj, f))


def load_checkpoint(path):
    """The checkpoint at ``path`` or None; an unreadable file is reported and ignored.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings(record=True) as caught:
    ...     atomic_save({"epoch": 3}, Path(tmp) / "run.pt")
    ...     _ = (Path(tmp) / "torn.pt").write_bytes(b"not a checkpoint")
    ...     load_checkpoint(Path(tmp) / "run.pt"), load_checkpoint(Path(tmp) / "torn.pt"), len(caught)
    ({'epoch': 3}, None, 1)
    >>> load_checkpoint("no/such/file.pt") is None
    True
    """
    path = Path(path)
    if not path.exists():
        return None
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # a file from an incompatible version or a damaged disk
        warnings.warn(f"ignoring the unreadable checkpoint {path} ({exc}); training again", RuntimeWarning,
                      stacklevel=3)
        return None


def _progress(total, initial, desc, enabled):
    from .._progress import progress_bar

    return progress_bar(total=total, initial=initial, desc=desc, unit="epoch", leave=False, enabled=enabled)


def run_epochs(*, key, epochs, modules, optimizers, generator, epoch_fn, checkpoint_dir, progress, desc):
    """Train for ``epochs`` epochs with ``epoch_fn(epoch) -> dict of mean losses``, resuming.

    Parameters
    ----------
    key : str
        The configuration key (:func:`config_key`): the checkpoint's file name.
    modules, optimizers : dict
        Named ``nn.Module`` and optimiser objects whose states are saved and restored.
    generator : torch.Generator
        The random stream of the training (batches, noise); saved and restored with the rest.
    checkpoint_dir : path or False
        Where checkpoints live; ``False`` trains without checkpoints.

    Returns
    -------
    history : list of dict
        The losses of every epoch, the resumed ones included.
    seconds : float
        Training time, the epochs run earlier included (as recorded in the checkpoint).

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
    ...     run = dict(key="linear", modules={"net": net}, optimizers={}, generator=torch.Generator(),
    ...                epoch_fn=epoch_fn, checkpoint_dir=tmp, progress=False, desc="linear")
    ...     first, _ = run_epochs(epochs=2, **run)
    ...     history, seconds = run_epochs(epochs=3, **run)
    >>> len(first), len(history), history[:2] == first        # one new epoch; the first two read back
    (2, 3, True)
    """
    path = None if checkpoint_dir is False else Path(checkpoint_dir) / f"{key}.pt"
    if path is not None and usable_cache_dir(path.parent) is None:  # warns now, not after the first epoch
        path = None
    state = load_checkpoint(path) if path is not None else None
    history, seconds, start = [], 0.0, 0
    if state is not None:
        for name, module in modules.items():
            module.load_state_dict(state["modules"][name])
        for name, opt in optimizers.items():
            opt.load_state_dict(state["optimizers"][name])
        generator.set_state(state["generator"])
        history = [dict(zip(state["loss_names"], row)) for row in state["history"]]
        seconds, start = float(state["seconds"]), int(state["epoch"])
    bar = _progress(epochs, start, desc, progress)
    try:
        for epoch in range(start, epochs):
            t0 = time.perf_counter()
            for module in modules.values():
                module.train()
            losses = epoch_fn(epoch)
            seconds += time.perf_counter() - t0
            history.append(losses)
            bar.update(1)
            bar.set_postfix({k: f"{v:.3f}" for k, v in losses.items()})
            if path is not None:
                names = sorted(losses)
                atomic_save({
                    "modules": {n: m.state_dict() for n, m in modules.items()},
                    "optimizers": {n: o.state_dict() for n, o in optimizers.items()},
                    "generator": generator.get_state(),
                    "epoch": epoch + 1,
                    "seconds": seconds,
                    "loss_names": names,
                    "history": [[float(h[n]) for n in names] for h in history],
                }, path)
    finally:
        bar.close()
    for module in modules.values():
        module.eval()
    return history, seconds


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
