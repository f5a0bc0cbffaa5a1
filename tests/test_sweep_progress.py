"""gendel.experiments.sweep honours $TQDM_DISABLE (the book build relies on it: in an executed
page a progress bar is an ipywidget, which pulls its JavaScript from a CDN).

tqdm reads $TQDM_* when it is imported, so each check runs in a fresh interpreter, with stderr
made to look like a terminal (where tqdm shows bars unless told not to). Both tqdm's terminal bar
and its notebook bar (what ``tqdm.auto`` gives in Jupyter, and which ignores $TQDM_DISABLE) are
checked.
"""

import os
import subprocess
import sys

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
from gendel.dre import KernelClassifierDRE
from gendel.experiments import sweep
for progress in (True, False):
    sweep("mog8", [0.8], [KernelClassifierDRE(0.1)], N=40, m=10, R=3, cache=False, progress=progress)
print(",".join(str(bool(disable)) for disable in bars), file=sys.__stdout__)
"""


def _disabled(env_value, kind):
    env = {k: v for k, v in os.environ.items() if not k.startswith("TQDM_")}
    if env_value is not None:
        env["TQDM_DISABLE"] = env_value
    out = subprocess.run([sys.executable, "-c", SCRIPT, kind], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()[-1].split(",")


@pytest.mark.parametrize("kind", ["terminal", "notebook"])
@pytest.mark.parametrize("env_value, expected", [("1", ["True", "True"]), (None, ["False", "True"])])
def test_progress_bar_follows_tqdm_disable_and_progress(env_value, expected, kind):
    pytest.importorskip("ipywidgets")
    assert _disabled(env_value, kind) == expected
