"""Checkpoints of a training: their keys, their files and the checks before one is used.

A training run is identified by its configuration: a hash of the data it sees (the bytes of the
images and of the deletion mask, :func:`data_fingerprint`), of every hyper-parameter, of the code
that trains (``gendel.gan.training.training_code``), of the device type and, on a CPU, of torch's
thread count (it changes the last digits): :func:`config_key`. After each epoch the networks, the
optimisers, the random generator, the loss history, the training time and the hardware are
written to ``<checkpoint_dir>/<kind>-<hash>.pt`` atomically (:func:`atomic_save`: a uniquely named
temporary file in the same folder, then :func:`os.replace`), so a killed or a concurrent job never
leaves a torn file. A checkpoint that does not match (another kind of network, other shapes,
missing entries, a checksum that differs from its weights) is reported and trained again.
Checkpoints hold tensors and plain containers only and are read with
``torch.load(..., weights_only=True)`` (:func:`load_checkpoint`).
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
import zlib
from pathlib import Path

import numpy as np
import torch

from gendel.cache import atomic_write

#: Bump when a change to the training code changes what a configuration trains in a way that
#: ``gendel.gan.training.training_code`` cannot see (a library's behaviour, say).
TRAINING_VERSION = 2


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


def restore_checkpoint(path, kind, epochs, modules, optimizers, generator):
    """The saved state of a training of ``epochs`` epochs, loaded into its ``modules``, ``optimizers``
    (dicts by name) and random ``generator``; None (a fresh start) when there is no checkpoint,
    ``path`` is None or the file cannot be read (:func:`load_checkpoint` reports it), and
    ``"restart"`` when it is read but cannot be used (reported: some weights may have been loaded
    before it failed, so the caller puts back the initial ones).

    Examples
    --------
    A checkpoint written by :func:`save_checkpoint` after one epoch, restored into a new network:

    >>> import tempfile, types
    >>> def linear():
    ...     net = torch.nn.Linear(2, 1)
    ...     return {"net": net}, {"opt": torch.optim.SGD(net.parameters(), lr=0.1)}
    >>> (modules, optimizers), (fresh, fresh_opt) = linear(), linear()
    >>> run = types.SimpleNamespace(history=[{"loss": 0.5}], seconds=1.0, epoch_seconds=[1.0],
    ...                             epoch_cpu_seconds=[0.9], snapshots={}, hardware=[{"device": "cpu"}])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "linear-0.pt"
    ...     save_checkpoint(path, "linear", modules, optimizers, torch.Generator(), run)
    ...     state = restore_checkpoint(path, "linear", 3, fresh, fresh_opt, torch.Generator())
    >>> state["epoch"], state["history"], torch.equal(fresh["net"].weight, modules["net"].weight)
    (1, [[0.5]], True)
    >>> restore_checkpoint(None, "linear", 3, fresh, fresh_opt, torch.Generator()) is None   # none: a fresh start
    True
    """
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


def save_checkpoint(path, kind, modules, optimizers, generator, run):
    """Write the state of a training after an epoch to ``path``, atomically: its ``modules`` and
    ``optimizers`` (dicts by name), its random ``generator`` and the record of ``run`` (a
    ``gendel.gan.training.TrainingRun``: losses, times, snapshots, hardware), with checksums that
    :func:`restore_checkpoint` checks.

    Examples
    --------
    >>> import tempfile, types
    >>> net = torch.nn.Linear(2, 1)
    >>> run = types.SimpleNamespace(history=[{"loss": 0.5}], seconds=1.0, epoch_seconds=[1.0],
    ...                             epoch_cpu_seconds=[0.9], snapshots={}, hardware=[{"device": "cpu"}])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     save_checkpoint(Path(tmp) / "linear-0.pt", "linear", {"net": net}, {}, torch.Generator(), run)
    ...     state = load_checkpoint(Path(tmp) / "linear-0.pt")
    >>> state["kind"], state["epoch"], sorted(state["modules"]["net"])
    ('linear', 1, ['bias', 'weight'])
    """
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


#: Functions of this module that decide whether a training can be reused, never what it computes:
#: :mod:`gendel.fingerprint` does not follow them.
BOOKKEEPING = (check_checkpoint_dir, data_fingerprint, config_key, default_checkpoint_dir, atomic_save,
               load_checkpoint, _checksum, _record_checksum, _is_number, _record_problem, _usable, restore_checkpoint,
               save_checkpoint)
