"""Sphinx extension: gendel's wheel (``wheel/``) and the book's source (``source/``) in the built HTML.

After a successful HTML build it builds gendel's wheel from the clone the book is built from and
writes it to ``<html>/wheel/gendel-<version>-py3-none-any.whl`` with a link page beside it
(:func:`gendel.book.publish.build_wheel`): a teacher who copies the HTML folder to any static host
publishes the package with it, and the pages' install cell installs it from
``<html.baseurl>/wheel/`` (:mod:`gendel.book.install`). A wheel that lacks the stored GAN results
fails the build. The full edition also gets the book's source (``source/``,
:func:`gendel.book.publish.build_source`), from which a teacher builds the student edition; the
student edition does not, as the source holds the solutions.
"""
from pathlib import Path

from sphinx.errors import ExtensionError
from sphinx.util import logging

LOGGER = logging.getLogger(__name__)


def _build_finished(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    from gendel.book.publish import build_wheel

    try:
        path = build_wheel(app.outdir, root=Path(app.srcdir))
    except (RuntimeError, ValueError) as err:
        raise ExtensionError(f"gendel's wheel for the book: {err}") from err
    LOGGER.info(f"gendel's wheel: {Path(path).relative_to(app.outdir)}")
    from gendel.book.publish import publish_source

    path, why = publish_source(app.outdir, root=Path(app.srcdir))
    LOGGER.info(f"the book's source: {Path(path).relative_to(app.outdir)}" if path else f"no source archive: {why}")


def setup(app):
    app.connect("build-finished", _build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
