"""Training loops that show progress, checkpoint every epoch and resume after an interruption.

A training run is identified by its configuration: a hash of the data it sees (the bytes of the
images and of the deletion mask), of every hyper-parameter, of the code that trains
(:func:`training_code`, a hash of what the ``fit`` method computes, see :mod:`gendel.fingerprint`),
of the device type and, on a CPU, of torch's thread count (it changes the last digits). After each
epoch the networks, the optimisers, the random generator, the loss history, the training time
and the hardware are written to ``<checkpoint_dir>/<kind>-<hash>.pt`` atomically (a uniquely named
temporary file in the same folder, then :func:`os.replace`), so a killed or a concurrent job never
leaves a torn file. A run with the same configuration starts from the last completed epoch; a
finished run is loaded instead of trained. A checkpoint that does not match (another kind of
network, other shapes, missing entries, a checksum that differs from its weights) is reported and
trained again. Checkpoints hold tensors and plain containers only and are read with
``torch.load(..., weights_only=True)``.

A checkpoint also keeps a copy of chosen networks (the generator, the VDM network) after some
epochs (:func:`snapshot_epochs`), with the training time up to then: the per-epoch curves of the
GAN chapter (quality against training time) are read from them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import platform
import time
import warnings
import zlib
from pathlib import Path

import numpy as np
import torch

from gendel.cache import atomic_write, remove_stale_temporaries, usable_cache_dir

#: Bump when a change to the training code changes what a configuration trains in a way that
#: :func:`training_code` cannot see (a library's behaviour, say).
TRAINING_VERSION = 2

#: The most snapshots one training keeps (see :func:`snapshot_epochs`).
MAX_SNAPSHOTS = 12

_DEVICE_HELP = "use 'cpu', 'cuda' or 'cuda:<index>' (or None: CUDA when torch sees a GPU, else the CPU)"


def pick_device(device=None, name="device"):
    """``torch.device``: the one asked for, else CUDA when available, else the CPU.

    Examples
    --------
    >>> pick_device("cpu"), pick_device("CPU")
    (device(type='cpu'), device(type='cpu'))
    >>> pick_device().type == ("cuda" if torch.cuda.is_available() else "cpu")
    True
    >>> pick_device("tpu")
    Traceback (most recent call last):
    ValueError: device must be a CPU or CUDA device; got 'tpu': use 'cpu', 'cuda' or 'cuda:<index>' (or None: CUDA when torch sees a GPU, else the CPU)
    """
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if isinstance(device, str):
        text = device.strip().lower()
        if text != "cpu" and text != "cuda" and not (text.startswith("cuda:") and text[5:].isdigit()):
            raise ValueError(f"{name} must be a CPU or CUDA device; got {device!r}: {_DEVICE_HELP}")
        device = torch.device(text)
    elif not isinstance(device, torch.device):
        raise TypeError(f"{name} must be a string or a torch.device; got {type(device).__name__}: {_DEVICE_HELP}")
    if device.type not in ("cpu", "cuda"):
        raise ValueError(f"{name} must be a CPU or CUDA device; got {str(device)!r}: {_DEVICE_HELP}")
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise ValueError(f"{name}={str(device)!r} was asked for but torch sees no CUDA GPU; use device='cpu' "
                             "or device=None")
        if device.index is not None and device.index >= torch.cuda.device_count():
            raise ValueError(f"{name}={str(device)!r} was asked for but torch sees {torch.cuda.device_count()} CUDA "
                             f"GPU(s), cuda:0 to cuda:{torch.cuda.device_count() - 1}")
        torch.backends.cudnn.benchmark = True  # fixed shapes: let cuDNN pick its fastest kernels
    return device


def check_checkpoint_dir(checkpoint_dir):
    """``None`` (the default folder), ``False`` (no checkpoints) or a folder path; anything else is refused.

    Examples
    --------
    >>> check_checkpoint_dir(False), check_checkpoint_dir(None)
    (False, None)
    >>> check_checkpoint_dir(True)
    Traceback (most recent call last):
    TypeError: checkpoint_dir must be a folder (str or Path), None (the default folder $GENDEL_CACHE_DIR/checkpoints) or False (no checkpoints); got True
    """
    if checkpoint_dir is None or checkpoint_dir is False:
        return checkpoint_dir
    if isinstance(checkpoint_dir, (str, os.PathLike)) and str(checkpoint_dir):
        return checkpoint_dir
    raise TypeError("checkpoint_dir must be a folder (str or Path), None (the default folder "
                    f"$GENDEL_CACHE_DIR/checkpoints) or False (no checkpoints); got {checkpoint_dir!r}")


def _cpu_name():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def hardware(device):
    """What a training or an evaluation ran on: device name, torch version, threads, CPU, platform.

    Examples
    --------
    >>> info = hardware(torch.device("cpu"))
    >>> info["device_type"], info["device"].startswith("CPU"), info["torch"] == torch.__version__
    ('cpu', True, True)
    """
    device = torch.device(device)
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else f"CPU ({_cpu_name()})"
    return {"device": name, "device_type": device.type, "torch": str(torch.__version__), "cpu_count": os.cpu_count(),
            "torch_threads": torch.get_num_threads(), "platform": platform.platform()}


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


def training_code(estimator_class):
    """The hash of what ``estimator_class.fit`` computes (:func:`gendel.fingerprint.code_hash`):
    part of every checkpoint key, so a change to the training code trains again.

    Examples
    --------
    >>> from gendel.gan.dcgan import DCGAN
    >>> from gendel.gan.vdm import VDMDRE
    >>> len(training_code(DCGAN)), training_code(DCGAN) != training_code(VDMDRE)
    (16, True)
    """
    from gendel.fingerprint import cached_code_hash

    return cached_code_hash((estimator_class.fit,), BOOKKEEPING)


def config_key(kind, config, device):
    """``<kind>-<hash>`` for a JSON-serialisable configuration, trained on ``device``.

    The device type is part of the key, and on a CPU torch's thread count: both change the
    digits of a training.

    Examples
    --------
    >>> cpu = torch.device("cpu")
    >>> key = config_key("dcgan", {"epochs": 1, "width": 8}, cpu)
    >>> key.startswith("dcgan-"), key == config_key("dcgan", {"width": 8, "epochs": 1}, cpu)   # order is irrelevant
    (True, True)
    >>> key == config_key("dcgan", {"epochs": 2, "width": 8}, cpu)
    False
    """
    device = torch.device(device)
    where = {"device": device.type, "threads": torch.get_num_threads() if device.type == "cpu" else None}
    payload = json.dumps([kind, TRAINING_VERSION, config, where], sort_keys=True, default=str)
    return f"{kind}-{hashlib.sha256(payload.encode()).hexdigest()[:20]}"


def default_checkpoint_dir():
    """``$GENDEL_CACHE_DIR/checkpoints`` (default ``~/.cache/gendel/checkpoints``).

    Examples
    --------
    >>> from gendel.cache import cache_dir
    >>> default_checkpoint_dir() == cache_dir() / "checkpoints"
    True
    """
    from gendel.cache import cache_dir

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

    A folder in place of the file is refused (training would fail when it saves):

    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     load_checkpoint(tmp)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    IsADirectoryError: the checkpoint ... is a folder, not a file; remove it or give another checkpoint_dir ...
    """
    path = Path(path)
    if not path.exists():
        return None
    if path.is_dir():
        raise IsADirectoryError(f"the checkpoint {path} is a folder, not a file; remove it or give another "
                                "checkpoint_dir (checkpoint_dir=False trains without checkpoints)")
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # a file from an incompatible version or a damaged disk
        warnings.warn(f"ignoring the unreadable checkpoint {path} ({exc}); training again", RuntimeWarning,
                      stacklevel=3)
        return None


def _checksum(state):
    """CRC-32 of every tensor of a checkpoint's networks, optimisers and snapshots, in a fixed order."""
    crc = 0

    def walk(value, where):
        nonlocal crc
        if isinstance(value, torch.Tensor):
            crc = zlib.crc32(where.encode(), crc)
            crc = zlib.crc32(value.detach().cpu().reshape(-1).contiguous().view(torch.uint8).numpy().tobytes(), crc)
        elif isinstance(value, dict):
            for k in sorted(value, key=str):
                walk(value[k], f"{where}/{k}")
        elif isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                walk(v, f"{where}/{i}")

    for part in ("modules", "optimizers", "snapshots"):
        walk(state.get(part), part)
    return crc


#: The parts of a checkpoint that are not tensors: its record of the training.
_RECORD = ("kind", "epoch", "seconds", "loss_names", "history", "epoch_seconds", "epoch_cpu_seconds", "hardware")


def _record_checksum(state):
    """CRC-32 of a checkpoint's record (losses, times, hardware: everything but the tensors)."""
    payload = json.dumps([state.get(k) for k in _RECORD], sort_keys=True, default=repr)
    return zlib.crc32(payload.encode())


_CHECKPOINT_KEYS = ("kind", "modules", "optimizers", "generator", "epoch", "seconds", "loss_names", "history",
                    "epoch_seconds", "epoch_cpu_seconds", "snapshots", "hardware", "checksum")


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and np.isfinite(value)


def _record_problem(state):
    """Why a checkpoint's record (not its tensors) cannot be read back, or None."""
    epoch = state["epoch"]
    if not _is_number(state["seconds"]) or state["seconds"] < 0:
        return f"its training time is {state['seconds']!r}, not a number of seconds"
    names = state["loss_names"]
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return "its loss names are not a list of names"
    for part in ("history", "epoch_seconds", "epoch_cpu_seconds"):
        if not isinstance(state[part], list) or len(state[part]) != epoch:
            return "its history does not match its epoch count"
    if not all(isinstance(row, list) and len(row) == len(names) and all(_is_number(v) for v in row)
               for row in state["history"]):
        return "its loss history is not one row of numbers per epoch, one per loss name"
    if not all(_is_number(v) for v in state["epoch_seconds"] + state["epoch_cpu_seconds"]):
        return "its epoch times are not numbers"
    if not isinstance(state["hardware"], list) or not all(isinstance(h, dict) for h in state["hardware"]):
        return "its hardware record is not a list of records"
    snapshots = state["snapshots"]
    if not isinstance(snapshots, dict) or not all(isinstance(e, str) and e.isdigit() and 1 <= int(e) <= epoch
                                                  for e in snapshots):
        return "its snapshots are not kept per epoch"
    if "record_checksum" in state and state["record_checksum"] != _record_checksum(state):  # older files lack it
        return "its record (losses, times, hardware) does not match its checksum (the file was changed or damaged)"
    return None


def _usable(state, kind, epochs, modules, optimizers):
    """Why a loaded checkpoint cannot be used for this training, or None when it can."""
    if not isinstance(state, dict):
        return f"it holds a {type(state).__name__}, not a checkpoint"
    missing = [k for k in _CHECKPOINT_KEYS if k not in state]
    if missing:
        return f"it lacks {', '.join(missing)}"
    if state["kind"] != kind:
        return f"it is a {state['kind']!r} checkpoint, not {kind!r}"
    if not isinstance(state["epoch"], int) or isinstance(state["epoch"], bool) or not 1 <= state["epoch"] <= epochs:
        return f"it records epoch {state['epoch']!r} of a training of {epochs}"
    for part, objects in (("modules", modules), ("optimizers", optimizers)):
        if not isinstance(state[part], dict) or set(state[part]) != set(objects):
            return f"its {part} are not {sorted(objects)}"
    for name, module in modules.items():
        saved, own = state["modules"][name], module.state_dict()
        if not isinstance(saved, dict) or set(saved) != set(own) or \
                any(tuple(getattr(saved[k], "shape", ())) != tuple(v.shape) for k, v in own.items()):
            return f"its network {name!r} has other layers or shapes"
    problem = _record_problem(state)
    if problem is not None:
        return problem
    if state["checksum"] != _checksum(state):
        return "its weights do not match their checksum (the file was changed or damaged)"
    return None


def _restore(path, kind, epochs, modules, optimizers, generator):
    """The saved state of a training, loaded into its modules; a fresh start when there is none or
    it cannot be used (reported)."""
    state = load_checkpoint(path) if path is not None else None
    if state is None:
        return None
    problem = _usable(state, kind, epochs, modules, optimizers)
    if problem is None:
        try:
            for name, module in modules.items():
                module.load_state_dict(state["modules"][name])
            for name, opt in optimizers.items():
                opt.load_state_dict(state["optimizers"][name])
            generator.set_state(state["generator"])
        except Exception as exc:  # noqa: BLE001 - anything a foreign state dict raises
            problem = f"loading it failed ({type(exc).__name__}: {exc})"
    if problem is not None:
        warnings.warn(f"ignoring the checkpoint {path}: {problem}; training again from the start", RuntimeWarning,
                      stacklevel=4)
        return "restart"
    return state


def _save(path, kind, modules, optimizers, generator, run):
    state = {
        "kind": kind,
        "modules": {n: m.state_dict() for n, m in modules.items()},
        "optimizers": {n: o.state_dict() for n, o in optimizers.items()},
        "generator": generator.get_state(),
        "epoch": len(run.history),
        "seconds": run.seconds,
        "loss_names": sorted(run.history[0]) if run.history else [],
        "history": [[float(h[n]) for n in sorted(h)] for h in run.history],
        "epoch_seconds": list(run.epoch_seconds),
        "epoch_cpu_seconds": list(run.epoch_cpu_seconds),
        "snapshots": {str(e): s for e, s in run.snapshots.items()},
        "hardware": list(run.hardware),
    }
    state["checksum"] = _checksum(state)
    state["record_checksum"] = _record_checksum(state)
    atomic_save(state, path)


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
        The configuration key (:func:`config_key`): the checkpoint's file name.
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
    state = _restore(path, kind, epochs, modules, optimizers, generator)
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
                _save(path, kind, modules, optimizers, generator, run)
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


#: Functions of this module that decide whether a training can be reused, never what it computes:
#: :mod:`gendel.fingerprint` does not follow them.
BOOKKEEPING = (pick_device, check_checkpoint_dir, hardware, data_fingerprint, training_code, config_key,
               default_checkpoint_dir, atomic_save, load_checkpoint, _checksum, _record_checksum, _is_number,
               _record_problem, _usable, _restore, _save, _progress)
