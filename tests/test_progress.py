"""gendel's progress bars (the 2-D sweep and GAN/VDM training) honour $TQDM_DISABLE (the book build relies on it: in an executed
page a progress bar is an ipywidget, which pulls its JavaScript from a CDN).

Both tqdm's terminal bar and its notebook bar (what ``tqdm.auto`` gives in Jupyter, and which
ignores $TQDM_DISABLE) are checked, with stderr made to look like a terminal (where tqdm shows
bars unless told not to). gendel reads the variable itself when it makes a bar
(``gendel._progress.progress_hidden``), so the checks set it in this process; one check starts a
fresh interpreter with the variable set before anything is imported, as the book build does.
"""

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

SCRIPT = r"""
import io, sys
class TTY(io.StringIO):
    def isatty(self):
        return True
sys.stderr = TTY()
import tqdm.auto, tqdm.notebook
bars = []
class Recording(tqdm.notebook.tqdm):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        bars.append(self.disable)  # at creation: closing a bar sets disable to True
tqdm.auto.tqdm = Recording
from gendel.core.dre import KernelClassifierDRE
from gendel.synthetic.experiments import sweep
from gendel.synthetic.sampling import Protocol
for progress in (True, False):
    sweep(Protocol("mog8", lam=0.8, N=40, m=10, R=3), [KernelClassifierDRE(bandwidth=0.1)], cache=False, progress=progress)
print(",".join(str(bool(disable)) for disable in bars), file=sys.__stdout__)
"""


class TTY(io.StringIO):
    def isatty(self):
        return True


def _run(kind, run):
    """Whether each bar of a run with progress on, then off, was disabled when it was made."""
    if run == "sweep":
        from gendel.core.dre import KernelClassifierDRE
        from gendel.synthetic.experiments import sweep
        from gendel.synthetic.sampling import Protocol

        for progress in (True, False):
            sweep(Protocol("mog8", lam=0.8, N=40, m=10, R=3), [KernelClassifierDRE(bandwidth=0.1)], cache=False,
                  progress=progress)
    else:
        from gendel.gan.dcgan import DCGAN

        images = np.random.default_rng(0).uniform(-1, 1, (16, 1, 28, 28)).astype("float32")
        for progress in (True, False):
            DCGAN(epochs=1, width=4, batch_size=16, checkpoint_dir=False, progress=progress).fit(images)


@pytest.mark.parametrize("run", ["sweep", "gan"])
@pytest.mark.parametrize("kind", ["terminal", "notebook"])
@pytest.mark.parametrize("env_value, expected", [("1", [True, True]), (None, [False, True])])
def test_progress_bar_follows_tqdm_disable_and_progress(env_value, expected, kind, run, monkeypatch):
    pytest.importorskip("ipywidgets")
    if run == "gan":
        pytest.importorskip("torch")
    import tqdm.auto
    import tqdm.notebook
    import tqdm.std

    bars = []

    class Recording(tqdm.notebook.tqdm if kind == "notebook" else tqdm.std.tqdm):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            bars.append(bool(self.disable))  # at creation: closing a bar sets disable to True

    for name in [n for n in os.environ if n.startswith("TQDM_")]:
        monkeypatch.delenv(name)
    if env_value is not None:
        monkeypatch.setenv("TQDM_DISABLE", env_value)
    # tqdm binds the $TQDM_* it saw at its import into its __init__ (a partialmethod): take them out, so
    # that this process's environment at start does not decide, and the variable set here is read by gendel alone
    init = vars(tqdm.std.tqdm)["__init__"]
    monkeypatch.setattr(tqdm.std.tqdm, "__init__", getattr(init, "func", init))
    monkeypatch.setattr(sys, "stderr", TTY())
    monkeypatch.setattr(tqdm.auto, "tqdm", Recording)
    _run(kind, run)
    assert bars == expected


def test_a_fresh_interpreter_started_with_tqdm_disable_shows_no_notebook_bar():
    """The book build's path: $TQDM_DISABLE set before Python starts and tqdm is imported."""
    pytest.importorskip("ipywidgets")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TQDM_")}
    env.update(OMP_NUM_THREADS="1", TQDM_DISABLE="1")
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "True,True"


def test_every_bar_goes_through_progress_bar():
    """A module that imports tqdm itself would bypass the $TQDM_DISABLE check."""
    package = Path(__file__).resolve().parents[1] / "gendel"
    direct = [str(p.relative_to(package)) for p in package.rglob("*.py")
              if p.name != "_progress.py" and re.search(r"^\s*(from|import) tqdm", p.read_text(), re.M)]
    assert not direct, f"use gendel._progress.progress_bar instead of tqdm in {direct}"
