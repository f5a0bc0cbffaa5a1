"""The API reference (book/api/): every public name of gendel has an entry, and the links from the
chapters to the reference land on an entry.

Public names are those of each module's ``__all__``; the modules of the library's concept packages
(:data:`LIBRARY`: ``gendel.core.dre``, ``gendel.synthetic.data``, ``gendel.deletion_test.stats``, ...)
that have no ``__all__`` of their own make every class and function they define without a leading
underscore public.

The reference documents each object once, under one module (``gendel.plotting.COLORS`` rather than
``gendel.plotting.common.COLORS``); a name re-exported by another module counts as covered when that
entry documents the same object under the same name.

The first tests read the ``automodule`` directives of the reference pages and need no build; the
``book`` tests read the built HTML (``$GENDEL_BOOK_HTML`` or a build, see conftest.py).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

import gendel

ROOT = Path(__file__).resolve().parents[1]
API = ROOT / "book" / "api"

_DIRECTIVE = re.compile(r"^\.\. (automodule|autoclass|autofunction|autodata|autoexception):: (\S+)\n((?:   :.*\n)*)",
                        re.M)


def _public_modules():
    """The importable modules of gendel whose path has no private component."""
    names = ["gendel"]
    for info in pkgutil.walk_packages(gendel.__path__, "gendel."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    return [importlib.import_module(name) for name in names]


def own_public_members(module):
    """Classes and functions defined in ``module`` whose names have no leading underscore."""
    return [name for name, obj in vars(module).items()
            if not name.startswith("_") and (inspect.isclass(obj) or inspect.isfunction(obj))
            and obj.__module__ == module.__name__]


#: The packages whose modules are the library a reader calls (learners, DREs, Alg. 1, the 2-D
#: experiments, the deletion test): a module of theirs without ``__all__`` is public as a whole.
LIBRARY = ("gendel.core", "gendel.synthetic", "gendel.deletion_test")


def public_names():
    """(module, name) for every public name of gendel (submodules listed in an __all__ excluded)."""
    found = []
    for module in _public_modules():
        listed = getattr(module, "__all__", None)
        if listed is None:
            if module.__name__.rpartition(".")[0] not in LIBRARY:
                continue
            listed = own_public_members(module)
        found += [(module.__name__, name) for name in listed if not inspect.ismodule(getattr(module, name))]
    return sorted(found)


def reference_directives(pages=None):
    """(kind, target, options) of every autodoc directive on the reference pages."""
    found = []
    for page in sorted(pages if pages is not None else API.glob("*.md")):
        text = page.read_text() if isinstance(page, Path) else page
        for kind, target, options in _DIRECTIVE.findall(text):
            opts = dict(re.findall(r"^   :([\w-]+):[ ]?(.*)$", options, re.M))
            found.append((kind, target, opts))
    return found


def documented_entries(directives):
    """{entry id: object} for the module members and single objects the directives document."""
    entries = {}
    for kind, target, opts in directives:
        if kind != "automodule":
            module_name, _, name = target.rpartition(".")
            entries[target] = getattr(importlib.import_module(module_name), name)
            continue
        if "no-members" in opts:
            continue
        module = importlib.import_module(target)
        excluded = {n.strip() for n in opts.get("exclude-members", "").split(",") if n.strip()}
        listed = getattr(module, "__all__", None)
        members = listed if listed is not None else own_public_members(module)
        for name in members:
            if name not in excluded and not inspect.ismodule(getattr(module, name)):
                entries[f"{target}.{name}"] = getattr(module, name)
    return entries


def missing_names(directives):
    """Public (module, name) pairs with no entry that documents the same object under that name."""
    entries = documented_entries(directives)
    by_name = {}
    for entry, obj in entries.items():
        by_name.setdefault(entry.rpartition(".")[2], []).append(obj)
    missing = []
    for module, name in public_names():
        obj = getattr(importlib.import_module(module), name)
        if not any(candidate is obj for candidate in by_name.get(name, [])):
            missing.append(f"{module}.{name}")
    return missing


def entry_for(module, name, entries):
    """The entry id that documents ``module.name``."""
    obj = getattr(importlib.import_module(module), name)
    if entries.get(f"{module}.{name}") is obj:
        return f"{module}.{name}"
    return next(entry for entry, candidate in entries.items()
                if candidate is obj and entry.rpartition(".")[2] == name)


# ------------------------------------------------------------------------------------------


def test_public_names_are_found():
    # Guards the scan: the names the book's readers meet first must be among the public names.
    names = set(public_names())
    assert {("gendel.core.dre", "KernelClassifierDRE"), ("gendel.core.deletion", "ApproximateDeletion"),
            ("gendel.panels.explorer", "explore"), ("gendel.gan.dcgan", "DCGAN"), ("gendel", "NotFittedError")} <= names
    assert len(names) > 250


def test_every_public_name_has_an_entry():
    missing = missing_names(reference_directives())
    assert not missing, (f"{len(missing)} public names have no entry in the API reference (book/api/): "
                         f"{missing[:20]}; add an automodule directive for their module, or drop them "
                         "from :exclude-members:")


def test_a_name_left_out_is_reported():
    # The check above must be able to fail: exclude one public name, or drop a whole module.
    pages = [page.read_text() for page in sorted(API.glob("*.md"))]
    excluded = [page.replace(".. automodule:: gendel.core.dre\n", ".. automodule:: gendel.core.dre\n"
                             "   :exclude-members: KernelClassifierDRE\n") for page in pages]
    assert missing_names(reference_directives(excluded)) == ["gendel.core.dre.KernelClassifierDRE"]
    dropped = [page.replace(".. automodule:: gendel.theory.vdm_objectives\n", "") for page in pages]
    assert set(missing_names(reference_directives(dropped))) == {
        f"gendel.theory.vdm_objectives.{name}" for name in importlib.import_module("gendel.theory.vdm_objectives").__all__}


def test_every_page_without_code_is_a_reference_page():
    # Reference pages hold directives and prose only: they have no code cell, no setup_page cell
    # and no paired .ipynb (tests/test_page_setup.py and test_book.py check only pages with code).
    # Every other page of the book runs code.
    pages = [p for p in (ROOT / "book").rglob("*.md") if not {"_vendor", ".ipynb_checkpoints"} & set(p.parts)]
    without_code = {p for p in pages if "```{code-cell}" not in p.read_text()}
    # and the course's two pages of text: the teacher's key and the student edition's notebook page
    text_only = set(API.glob("*.md")) | {ROOT / "book" / "course" / "key.md", ROOT / "book" / "course" / "notebooks.md"}
    assert without_code == text_only, sorted(str(p.relative_to(ROOT)) for p in without_code)
    assert not list(API.glob("*.ipynb"))


# ------------------------------------------------------------------------------------------
# The built book.


@pytest.fixture(scope="module")
def html_ids(book_html):
    bs4 = pytest.importorskip("bs4")
    ids = {}
    for path in (book_html / "book" / "api").glob("*.html"):
        soup = bs4.BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
        ids[path.name] = {tag["id"] for tag in soup.find_all(id=True)}
    assert ids, f"no API reference pages in {book_html / 'book' / 'api'}"
    return ids


@pytest.mark.book
def test_every_public_name_has_an_entry_in_the_html(html_ids):
    entries = documented_entries(reference_directives())
    shown = set().union(*html_ids.values())
    missing = sorted({entry_for(module, name, entries) for module, name in public_names()} - shown)
    assert not missing, f"{len(missing)} entries missing from the built reference: {missing[:20]}"


_LINK = re.compile(r"\]\(#(gendel[\w.]*)\)")


@pytest.mark.book
def test_links_to_the_reference_land_on_an_entry(book_html, html_ids):
    """Each ``[text](#gendel.x.Y)`` of a page's source is a link in the built page, and its href
    names a reference page and an id on that page."""
    bs4 = pytest.importorskip("bs4")
    sources = {p: _LINK.findall(p.read_text()) for p in sorted((ROOT / "book").rglob("*.md"))
               if not {"_vendor", ".ipynb_checkpoints"} & set(p.parts)}
    checked, broken = 0, []
    for source, targets in sources.items():
        path = book_html / source.relative_to(ROOT).with_suffix(".html")
        if not targets or not path.exists():  # a partial build may leave pages out
            continue
        article = bs4.BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser").select_one("article")
        assert "](#gendel" not in article.get_text(), f"{path.name}: link markup shown as text"
        # autodoc gives a module the id "module-<name>": a link to a module lands there
        def named(href):
            return urlparse(href).fragment.removeprefix("module-")

        hrefs = [tag["href"] for tag in article.find_all("a", href=True) if named(tag["href"]) in targets]
        # On the reference pages themselves the entries' permalinks and cross-references point
        # to the same ids; there only the landing of each link is checked.
        assert API in source.parents or sorted(named(h) for h in hrefs) == sorted(targets), (
            f"{source.relative_to(ROOT)}: links {sorted(targets)} in the source, {hrefs} in the page")
        for href in hrefs:
            url = urlparse(href)
            target = (path.parent / unquote(url.path)).resolve() if url.path else path
            if target.parent != (book_html / "book" / "api").resolve() or url.fragment not in html_ids[target.name]:
                broken.append(f"{source.relative_to(ROOT)} -> {href}")
            checked += 1
    assert not broken, f"links to the reference that land on no entry: {broken}"
    assert checked, "no page of the built book links to the API reference"
    total = sum(map(len, sources.values()))
    assert total <= 45, f"{total} links to the reference: keep one per object per page, on first use"
