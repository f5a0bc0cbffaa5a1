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

Live (JupyterLab or Colab) it records every value a page glues into its text (``myst_nb.glue``):
after Run All, ``page.glued`` holds each quoted value by name. A page's ``.ipynb`` (made from the page
by ``gendel.book.colab``) writes each paragraph that quotes computed numbers as a hidden cell
``page.show(...)``, which displays the paragraph with the numbers filled in (:meth:`PageSetup.show`).

It also registers the ``%%build_only`` cell magic. A cell that starts with ``%%build_only`` runs in
the book build and is skipped everywhere else: it is for work that only the rendered page needs
(closing a panel the build has exercised, for example). Run All in a live kernel then leaves
every widget on the page working. Gluing numbers into the prose and checking a claim against the
numbers are harmless live, so those cells are not marked.
"""
import re
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

    def show(self, text):
        """Display the Markdown ``text`` with each ``{{name}}`` or ``{{name:format}}`` replaced by the value
        the page glued under ``name`` (formatted as the book's ``{glue:text}`` role formats it; a value
        glued as ``Markdown`` goes in as Markdown). A value not glued yet shows as "…" and is filled in
        where the page glues it later. Outside IPython the text is printed.

        Examples
        --------
        >>> from gendel.book import PageSetup
        >>> page = PageSetup("live", "plotly_mimetype", False, False, glued={"share": 0.4, "n": 8})
        >>> page.show("In {{n}} sets, a median {{share:.0%}} of the shift ({{later}}).")
        In 8 sets, a median 40% of the shift (…).
        """
        filled = fill_glued(text, self.glued)
        try:
            from IPython import get_ipython
            from IPython.display import Markdown, display
        except ImportError:
            get_ipython = None
        if get_ipython is None or get_ipython() is None:
            print(filled)
        elif _missing(text, self.glued):
            _PENDING.append((text, self.glued, display(Markdown(filled), display_id=True)))
        else:
            display(Markdown(filled))


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
        _plain_markdown_outputs()
        _show_live_note(where)
    return page


def _plain_markdown_outputs():
    """Show the Markdown that cells display (tables of claims, for example) with MyST roles as their
    words (:func:`plain_roles`): Colab and JupyterLab do not resolve the book's cross-references."""
    try:
        from IPython import get_ipython
        from IPython.display import Markdown
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None:
        shell.display_formatter.formatters["text/markdown"].for_type(Markdown, lambda md: plain_roles(md.data))


_GLUED = {"values": {}}  # where myst_nb.glue records: the dict of the last page set up
_PENDING = []  # (text, glued values, display handle) of paragraphs shown before all their values were glued
_PLACEHOLDER = re.compile(r"\{\{(?P<name>[A-Za-z_][\w-]*)(?::(?P<spec>[^{}]*))?\}\}")
MISSING = "…"


def glued_text(value, spec=""):
    """A glued ``value`` as the book's ``{glue:text}`name:spec``` role writes it (its plain-text
    form, formatted by ``spec``), or its Markdown where it was glued as ``IPython.display.Markdown``.

    Examples
    --------
    >>> from gendel.book import glued_text
    >>> glued_text(0.4031, ".0%"), glued_text("passes"), glued_text(12)
    ('40%', 'passes', '12')
    """
    markdown = getattr(value, "_repr_markdown_", None)
    if markdown is not None and not spec:
        return plain_roles(markdown() if callable(markdown) else str(markdown))
    from IPython.core.formatters import PlainTextFormatter

    try:
        from myst_nb.core.variables import format_plain_text
    except ImportError:  # the same rule as myst-nb's, for a kernel without it
        def format_plain_text(text, fmt_spec):
            import ast

            try:
                text = ast.literal_eval(text)
            except (SyntaxError, ValueError):
                pass
            return format(float(text) if fmt_spec[-1:] in "eEfFgGn%" and fmt_spec else text, fmt_spec)
    return format_plain_text(PlainTextFormatter()(value), spec or "")


_ROLE = re.compile(r"\{[a-z]+(?::[a-z]+)?\}`(?:(?P<text>[^`<]*?)\s*<[^`<>]+>|(?P<target>[^`]*))`")


def plain_roles(markdown):
    """``markdown`` with each MyST role (``{ref}`words <label>```, ``{doc}`page```) as its words,
    for text that a page glues as Markdown and a live notebook shows without the book.

    Examples
    --------
    >>> from gendel.book import plain_roles
    >>> plain_roles("see {ref}`the claims <q1-claims>` and {doc}`theory/index`")
    'see the claims and theory/index'
    """
    return _ROLE.sub(lambda m: m["text"] if m["text"] is not None else m["target"], markdown)


def fill_glued(text, glued):
    """``text`` with each ``{{name}}`` or ``{{name:format}}`` replaced by ``glued[name]`` as
    :func:`glued_text` writes it, or by "…" where ``name`` is not in ``glued``.

    Examples
    --------
    >>> from gendel.book import fill_glued
    >>> fill_glued("δ moved {{shift:+.3f}}; {{verdict}}.", {"shift": -0.0412, "verdict": "holds"})
    'δ moved -0.041; holds.'
    """
    return _PLACEHOLDER.sub(lambda m: glued_text(glued[m["name"]], m["spec"] or "") if m["name"] in glued
                            else MISSING, text)


def _missing(text, glued):
    return [m["name"] for m in _PLACEHOLDER.finditer(text) if m["name"] not in glued]


def _update_pending():
    """Fill in the paragraphs shown before a value they quote was glued, once it is."""
    for item in list(_PENDING):
        text, glued, handle = item
        if glued is not _GLUED["values"]:  # a page set up again: its old paragraphs are gone
            _PENDING.remove(item)
            continue
        from IPython.display import Markdown

        handle.update(Markdown(fill_glued(text, glued)))
        if not _missing(text, glued):
            _PENDING.remove(item)


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
        if _PENDING:
            _update_pending()
        return original(name, variable, display)

    glue.__wrapped__ = original
    glue.__doc__ = original.__doc__
    myst_nb.glue = glue


LIVE_NOTE = (
    "**Running this page live.** The paragraphs that quote numbers the page computes are hidden cells "
    "here: each shows its paragraph, numbers filled in, once *Run All* has reached it. After *Run All*, "
    "`page.glued` holds every quoted value by name."
)
COLAB_NOTE = " In Colab, a hidden cell shows its title line; double-click it to see its code."


def _show_live_note(where):
    try:
        from IPython import get_ipython
        from IPython.display import Markdown, display
    except ImportError:
        return
    if get_ipython() is not None:
        display(Markdown(LIVE_NOTE + (COLAB_NOTE if where == "colab" else "")))


__all__ = ["BUILD_ENV", "COLAB_ENV", "COLAB_NOTE", "LIVE_NOTE", "MISSING", "PageSetup", "build_only", "enable_colab_widgets",
           "fill_glued", "glued_text", "in_book_build", "in_colab", "plain_roles", "setup_page"]
