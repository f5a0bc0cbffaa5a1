"""Sphinx extension: the figure set, every reproduced figure of the paper as PNG and SVG.

The pages write the files themselves while they are executed (``gendel.plotting.figure_set``:
``figure_downloads(fig, name)`` under a figure). This extension tells the kernels where: before any
page is read it sets ``$GENDEL_FIGURE_SET_DIR`` to the folder ``figure-set/`` of the built HTML and
``$GENDEL_FIGURE_SET_SOURCE`` to the book's source folder (a kernel inherits the environment of the
build), so that a page links its files by a relative URL. When every page is read again (``--all``,
a fresh clone) the folder is emptied first, so that it holds no figure that no page makes any more;
a partial rebuild keeps the files of the pages it does not run. At the end of the build it packs
the folder into ``figure-set/gendel-figures.zip``, the download that the teacher's page links.
"""
import os
import shutil
from pathlib import Path

from gendel.plotting import figure_set


def _folder(app):
    return Path(app.outdir) / figure_set.FOLDER_NAME


def _point_kernels(app):
    if app.builder.format != "html":
        return
    os.environ[figure_set.FOLDER_ENV] = str(_folder(app))
    os.environ[figure_set.SOURCE_ENV] = str(app.srcdir)


def _empty_on_full_read(app, env, docnames):
    if app.builder.format == "html" and set(docnames) >= set(env.found_docs) and _folder(app).is_dir():
        shutil.rmtree(_folder(app))


def _zip(app, exception):
    if exception is None and app.builder.format == "html":
        _folder(app).mkdir(parents=True, exist_ok=True)
        figure_set.zip_figure_set(_folder(app))


def setup(app):
    app.connect("builder-inited", _point_kernels)
    app.connect("env-before-read-docs", _empty_on_full_read)
    app.connect("build-finished", _zip)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
