"""Where a network trains: the device (a CPU or a CUDA GPU) and a record of the hardware.

:func:`pick_device` resolves a device once; :func:`hardware` describes it for a result's
provenance (device name, torch version and threads, CPU, platform). Neither changes a number:
both are bookkeeping for :mod:`gendel.fingerprint` (:data:`BOOKKEEPING`).
"""

from __future__ import annotations

import os
import platform
from pathlib import Path

import torch

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


#: Functions of this module that never decide what a training computes.
BOOKKEEPING = (pick_device, hardware)
