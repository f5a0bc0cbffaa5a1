"""A page's start loads what the page uses: no torch in the 2-D half, no IRI grammar behind plotly.

Each check runs in a fresh process, as a page does in a fresh kernel. They assert which modules are
loaded, not timings (``benchmarks/bench_import.py`` prints those).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

#: A 2-D page's start: the first cell (setup_page), the imports of the 2-D half and the figures, a
#: figure shown as a page shows it (its MIME bundle), and a notebook validated by nbformat.
PAGE_START = """
import os, sys
from gendel.book import setup_page
page = setup_page()
import gendel.synthetic.experiments, gendel.plotting, gendel.core.dre, gendel.claims
import plotly.graph_objects as go
import plotly.io as pio
if not os.environ.get("GENDEL_BOOK_BUILD"):  # a plain process has no notebook renderer: the one Jupyter uses
    pio.renderers.default = "plotly_mimetype"
bundle = go.Figure(go.Scatter(x=[0, 1], y=[0, 1]))._repr_mimebundle_()
assert bundle, "the figure has no MIME bundle"
loaded = [name for name in ("torch", "rfc3987_syntax") if name in sys.modules]
import nbformat
nbformat.validate(nbformat.v4.new_notebook())  # jsonschema works as before
try:
    import rfc3987_syntax  # and a later import of the IRI grammar works as usual
except ImportError:
    if "rfc3987_syntax" in sys.modules:  # a None entry left behind
        raise
print("loaded:", loaded)
"""


def run(code, **env):
    environment = {k: v for k, v in os.environ.items() if k != "GENDEL_BOOK_BUILD"}
    environment.update(env, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=environment, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.parametrize("where", [{}, {"GENDEL_BOOK_BUILD": "1"}], ids=["jupyter", "book build"])
def test_a_page_starts_without_torch_and_without_the_iri_grammar(where):
    out = run(PAGE_START, **where)
    assert "loaded: []" in out, out


def test_the_iri_grammar_is_left_alone_when_it_was_loaded_first():
    """Where ``rfc3987_syntax`` was imported before gendel, jsonschema uses it as usual."""
    pytest.importorskip("rfc3987_syntax")
    out = run("import rfc3987_syntax\nimport gendel.plotting, jsonschema\nprint('iri' in jsonschema.FormatChecker().checkers)")
    assert out.strip().endswith("True"), out
