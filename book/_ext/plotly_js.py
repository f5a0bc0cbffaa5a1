"""Sphinx extension: serve the installed plotly.js once and load it on every page.

Figures in the executed pages are HTML fragments without plotly.js (see
``gendel.plotting.common``); this extension copies ``plotly.min.js`` from the installed plotly
package into ``_static`` and adds a blocking ``<script>`` to each page's head, so the figures'
inline scripts find ``Plotly`` when they run. Nothing is downloaded at build or view time.

It also loads ``gendel-layout.js`` (in ``book/_static``) on every page: the figures call its
``gendelFigure`` once drawn (see ``gendel.plotting.common.FIT_TO_COLUMN_JS``), which fits them to
their column and stacks side-by-side panels on a phone, and it stacks the rows of tables too wide
for a phone's column.
"""

import shutil
from pathlib import Path

import plotly

PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


def _copy(app, exception):
    if exception is None and app.builder.format == "html":
        target = Path(app.outdir) / "_static" / "plotly.min.js"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(PLOTLY_JS, target)


def setup(app):
    app.add_js_file("plotly.min.js", priority=200)
    app.add_js_file("gendel-layout.js", priority=201)
    app.connect("build-finished", _copy)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": plotly.__version__}
