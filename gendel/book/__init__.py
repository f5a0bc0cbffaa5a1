"""How a page of the book runs: in the book build, live in Jupyter (a clone, Binder), or in Colab.

Every page of the book starts with one cell::

    from gendel.book import setup_page
    page = setup_page()

It is the one place that knows where the page runs:

- **The book build** (``GENDEL_BOOK_BUILD=1``, set by ``make book``): plotly writes HTML
  fragments that use the page's copy of plotly.js, and widget messages go to a no-op channel, since
  no browser is attached to the kernel that builds the book (the page stores no widget state).
- **Colab** (detected by its ``google.colab`` module; ``GENDEL_COLAB=1`` forces it, ``0`` turns it
  off): plotly's ``colab`` renderer and Colab's custom widget manager, without which plotly's
  figure widgets and ipywidgets do not render there.
- **Anywhere else** (JupyterLab, VS Code): plotly's own choice of renderer.

Live (JupyterLab or Colab) it shows a short note on what reads differently outside the book: the
numbers that the text quotes from computations (``{glue:text}`` roles) are filled in by the book
build, so a live page shows their names instead; after Run All, ``page.glued`` holds each quoted
value by name. Colab does not render MyST at all (roles and directives show as plain text).

It also registers the ``%%build_only`` cell magic. A cell that starts with ``%%build_only`` runs in
the book build and is skipped everywhere else: it is for work that only the rendered page needs
(closing a panel the build has exercised, for example). Run All in a live kernel then leaves
every widget on the page working. Gluing numbers into the prose and checking a claim against the
numbers are harmless live, so those cells are not marked.
"""
from dataclasses import dataclass, field

from gendel._environment import BUILD_ENV, COLAB_ENV, enable_colab_widgets, in_book_build, in_colab


@dataclass(frozen=True)
class PageSetup:
    """What :func:`setup_page` chose: ``where`` ("book", "colab" or "live"), plotly's renderer,
    whether Colab's widget manager was enabled and whether ``%%build_only`` was registered.

    Examples
    --------
    >>> from gendel.book import PageSetup
    >>> PageSetup("live", "plotly_mimetype", False, True).where
    'live'
    """

    where: str
    renderer: str
    colab_widgets: bool
    magic: bool
    glued: dict = field(default_factory=dict, compare=False)


def build_only(line, cell):
    """The ``%%build_only`` cell magic: run the cell in the book build, skip it elsewhere.

    :func:`setup_page` registers it in the page's IPython kernel. An error in the cell is raised
    again, so that a failing build-only check stops the build.

    Examples
    --------
    In a notebook, after ``setup_page()``::

        %%build_only
        panel.close()     # runs while the book is built; skipped when a reader runs the page

    Outside the book build the magic does nothing:

    >>> import os
    >>> from gendel.book import build_only
    >>> os.environ.get("GENDEL_BOOK_BUILD") or build_only("", "raise RuntimeError('not run')")
    """
    if in_book_build():
        from IPython import get_ipython

        # raise_error: a failing build-only cell must fail the build, not only print a traceback
        get_ipython().run_cell(cell).raise_error()


def _register_magic():
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    if shell is None:
        return False
    shell.register_magic_function(build_only, magic_kind="cell", magic_name="build_only")
    return True


def setup_page():
    """Prepare this kernel for a page of the book; returns a :class:`PageSetup` (see the module
    docstring for what it does where).

    Examples
    --------
    >>> from gendel.book import setup_page
    >>> page = setup_page()          # outside IPython: renderer only, no magic to register
    >>> page.where in {"book", "colab", "live"}, page.magic
    (True, False)
    """
    from gendel.plotting.common import configure_renderer

    book, colab = in_book_build(), in_colab()
    renderer = configure_renderer()
    if book:
        import comm

        # No browser is attached to the kernel that builds the book: widget messages go nowhere,
        # so that no widget state (and no widget JavaScript) is stored in the page.
        comm.create_comm = comm.DummyComm
    colab_widgets = False
    if colab and not book:
        enable_colab_widgets()
        colab_widgets = True
    where = "book" if book else "colab" if colab else "live"
    page = PageSetup(where, renderer, colab_widgets, _register_magic())
    if not book:
        _record_glue(page.glued)
        _show_live_note(where)
    return page


_GLUED = {"values": {}}  # where myst_nb.glue records: the dict of the last page set up


def _record_glue(values):
    """Make ``myst_nb.glue`` also keep each glued value in ``values`` (a live page has no book
    build to put them into the text). The wrapper is installed once and always writes into the
    last page's dict, so a ``glue`` imported before a re-run of ``setup_page`` records too.
    Nothing happens without myst_nb."""
    _GLUED["values"] = values
    try:
        import myst_nb
    except ImportError:
        return
    if hasattr(myst_nb.glue, "__wrapped__"):
        return
    original = myst_nb.glue

    def glue(name, variable, display=True):
        _GLUED["values"][name] = variable
        return original(name, variable, display)

    glue.__wrapped__ = original
    glue.__doc__ = original.__doc__
    myst_nb.glue = glue


LIVE_NOTE = (
    "**Running this page live.** The numbers the text quotes from its computations are filled in when "
    "the book is built; here the text shows their names instead (on the Explore page, for example, "
    "`explore_lam:.1f` where the book prints 0.8). After "
    "*Run All*, `page.glued` holds every quoted value by name. Citations and links to other pages of the "
    "book resolve only in the book."
)
COLAB_NOTE = (" Colab does not render MyST Markdown: theorem boxes, notes and exercises show as fenced "
              "blocks of text, and `{glue:text}` and similar roles as written.")


def _show_live_note(where):
    try:
        from IPython import get_ipython
        from IPython.display import Markdown, display
    except ImportError:
        return
    if get_ipython() is not None:
        display(Markdown(LIVE_NOTE + (COLAB_NOTE if where == "colab" else "")))


__all__ = ["BUILD_ENV", "COLAB_ENV", "COLAB_NOTE", "LIVE_NOTE", "PageSetup", "build_only", "enable_colab_widgets", "in_book_build", "in_colab",
           "setup_page"]
