"""Sphinx extension for the API reference (book/api/): two adjustments to autodoc and napoleon.

1. gendel documents constants and attributes with prose (``#: name -> how the book writes it``).
   napoleon reads the first line of such a docstring as ``type: description`` whenever it has a
   colon, which printed "Type: The synthetic data sets" under ``DATASETS``. For data and
   attributes the docstring is kept as written.
2. scikit-learn adds ``set_fit_request`` and similar methods to every estimator subclass; they
   are scikit-learn's API, not gendel's, and their docstrings point into scikit-learn's own
   documentation. Class members defined outside gendel are left out.
3. autodoc documents a module's data (constants) only when they carry a ``#:`` comment, even with
   ``undoc-members``. A name in a module's ``__all__`` is public whether or not it has one, so
   every data member listed in ``__all__`` gets an entry (its value shows what it holds).
4. numpydoc types are prose ("ndarray of shape (n, d)", "float in (0, 1]", "tuple (kind,
   params)"); napoleon's ``:vartype:`` fields turn them into class references, and with no
   intersphinx (the build is offline) those can never resolve. Class references that name
   neither ``gendel.<...>`` nor a class of gendel by its short name are therefore not reported;
   a reference to a gendel class that has no entry (``gendel.x.Y`` or ``Y``) still is.
5. The docstrings write set difference as ``X \\ X'``; in reStructuredText a backslash before a
   space escapes the space and vanishes, so the page read "X X'". Outside literal blocks and
   doctests a lone backslash between spaces is kept.
"""

import importlib
import pkgutil
import re

import inspect

from sphinx.ext.autodoc import ModuleDocumenter

_ORIGINAL = "_gendel_original_docstring"


def _text(lines):
    return [line.strip() for line in lines if line.strip()]


_INLINE_LITERAL = re.compile(r"(``.+?``)")


def _set_difference(app, what, name, obj, options, lines):
    literal = None  # indentation of the paragraph that opened a literal block (::)
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if literal is not None and stripped and indent <= literal:
            literal = None
        if literal is None and not stripped.startswith((">>>", "...")):
            # not inside ``inline literals``, where a backslash is shown as written
            parts = _INLINE_LITERAL.split(line)
            lines[i] = "".join(part if part.startswith("``") else part.replace(" \\ ", " \\\\ ") for part in parts)
        if literal is None and line.rstrip().endswith("::"):
            literal = indent


def _keep(app, what, name, obj, options, lines):
    if what in ("data", "attribute"):
        # A constant with no comment of its own inherits its type's docstring (dict, tuple):
        # that describes the type, not the constant.
        if _text(lines) == _text((type(obj).__doc__ or "").splitlines()):
            lines[:] = []
        app.env.temp_data[_ORIGINAL] = (name, list(lines))


def _restore(app, what, name, obj, options, lines):
    saved = app.env.temp_data.pop(_ORIGINAL, None)
    if what in ("data", "attribute") and saved and saved[0] == name:
        if any(line.lstrip().startswith(":type:") for line in lines):
            lines[:] = saved[1]


def _skip_foreign(app, what, name, obj, skip, options):
    if what == "class" and callable(obj):
        module = getattr(obj, "__module__", None) or ""
        if module and not module.startswith("gendel"):
            return True
    return None


class PublicDataModuleDocumenter(ModuleDocumenter):
    """automodule that also documents the undocumented data listed in ``__all__``."""

    def filter_members(self, members, want_all):
        kept = super().filter_members(members, want_all)
        public = set(self.__all__ or ())
        return [(name, member, isattr or (name in public and not (inspect.isroutine(member) or inspect.isclass(member)
                                                                 or inspect.ismodule(member))))
                for name, member, isattr in kept]


def gendel_class_names():
    """Short names of the classes defined in gendel's modules."""
    import gendel

    names = set()
    for info in pkgutil.walk_packages(gendel.__path__, "gendel."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        names |= {name for name, obj in vars(module).items()
                  if inspect.isclass(obj) and (obj.__module__ or "").startswith("gendel")}
    return names


def _ignore_prose_types(app, config):
    names = "|".join(sorted(map(re.escape, gendel_class_names())))
    config.nitpick_ignore_regex = [*config.nitpick_ignore_regex,
                                   ("py:class", rf"(?!gendel\.)(?!(?:{names})$).*")]


def setup(app):
    app.connect("config-inited", _ignore_prose_types)
    app.add_autodocumenter(PublicDataModuleDocumenter, override=True)
    # napoleon processes docstrings at priority 500: save before, restore after.
    app.connect("autodoc-process-docstring", _keep, priority=400)
    app.connect("autodoc-process-docstring", _restore, priority=600)
    app.connect("autodoc-process-docstring", _set_difference, priority=650)
    app.connect("autodoc-skip-member", _skip_foreign)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
