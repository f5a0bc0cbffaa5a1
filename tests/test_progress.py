"""gendel's progress bars (the 2-D sweep and GAN/VDM training) honour $TQDM_DISABLE (the book build relies on it: in an executed
page a progress bar is an ipywidget, which pulls its JavaScript from a CDN).

tqdm reads $TQDM_* when it is imported, so each check runs in a fresh interpreter, with stderr
made to look like a terminal (where tqdm shows bars unless told not to). Both tqdm's terminal bar
and its notebook bar (what ``tqdm.auto`` gives in Jupyter, and which ignores $TQDM_DISABLE) are
checked.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = r"""
import io, sys
class TTY(io.StringIO):
    def isatty(self):
        return True
sys.stderr = TTY()
import tqdm.auto, tqdm.std, tqdm.notebook
bars = []
BASE = tqdm.notebook.tqdm if sys.argv[1] == "notebook" else tqdm.std.tqdm
class Recording(BASE):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        bars.append(self.disable)  # at creation: closing a bar sets disable to True
tqdm.auto.tqdm = Recording
from gendel.core.dre import KernelClassifierDRE
from gendel.synthetic.experiments import sweep
from gendel.synthetic.protocol import Protocol
for progress in (True, False):
    if sys.argv[2] == "sweep":
        sweep(Protocol("mog8", lam=0.8, N=40, m=10, R=3), [KernelClassifierDRE(bandwidth=0.1)], cache=False, progress=progress)
    else:
        import numpy as np
        from gendel.gan.dcgan import DCGAN
        images = np.random.default_rng(0).uniform(-1, 1, (16, 1, 28, 28)).astype("float32")
        DCGAN(epochs=1, width=4, batch_size=16, checkpoint_dir=False, progress=progress).fit(images)
print(",".join(str(bool(disable)) for disable in bars), file=sys.__stdout__)
"""


def _disabled(env_value, kind, run):
    env = {k: v for k, v in os.environ.items() if not k.startswith("TQDM_")}
    env["OMP_NUM_THREADS"] = "1"
    if env_value is not None:
        env["TQDM_DISABLE"] = env_value
    out = subprocess.run([sys.executable, "-c", SCRIPT, kind, run], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()[-1].split(",")


@pytest.mark.parametrize("run", ["sweep", "gan"])
@pytest.mark.parametrize("kind", ["terminal", "notebook"])
@pytest.mark.parametrize("env_value, expected", [("1", ["True", "True"]), (None, ["False", "True"])])
def test_progress_bar_follows_tqdm_disable_and_progress(env_value, expected, kind, run):
    pytest.importorskip("ipywidgets")
    if run == "gan":
        pytest.importorskip("torch")
    assert _disabled(env_value, kind, run) == expected


def test_every_bar_goes_through_progress_bar():
    """A module that imports tqdm itself would bypass the $TQDM_DISABLE check."""
    package = Path(__file__).resolve().parents[1] / "gendel"
    direct = [str(p.relative_to(package)) for p in package.rglob("*.py")
              if p.name != "_progress.py" and re.search(r"^\s*(from|import) tqdm", p.read_text(), re.M)]
    assert not direct, f"use gendel._progress.progress_bar instead of tqdm in {direct}"
