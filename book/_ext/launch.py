"""Sphinx extension: launch buttons only once the repository's address is set, and each page's
``.ipynb`` pair in the download menu.

``_config.yml``'s ``repository:`` block holds the repository's public address and branch (Jupyter
Book passes them to sphinx-book-theme as ``repository_url`` and ``repository_branch``), and its
``launch_buttons:`` block names the services (Binder, Colab). The theme builds the links from both:
Binder from ``environment.yml`` at the repository root, Colab from the page's ``.ipynb`` pair (the
theme uses the pair when one lies next to the ``.md`` source). With no address the theme would fail
while building the links, so while ``repository.url`` is empty this extension switches the launch
buttons off: the book shows none rather than broken ones. An address that is not a GitHub
repository is refused (Colab opens notebooks from GitHub only).

The theme's download menu offers a MyST notebook's ``.ipynb`` only together with the launch buttons,
and then the build's executed copy, which stores outputs (widget outputs then read "Loading
widget..." when the file is opened). This extension copies the page's pair (code and text, no
outputs: the file Colab opens) into ``_sources/`` and offers it as the menu's ``.ipynb`` entry.
"""
import re
import shutil
from pathlib import Path

from sphinx.errors import ConfigError

GITHUB = re.compile(r"https://github\.com/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")


def launch_buttons(theme_options):
    """The ``launch_buttons`` theme option to build pages with: those configured where
    ``repository_url`` is set, none (``{}``) while it is empty."""
    url = (theme_options.get("repository_url") or "").strip()
    if not url:
        return {}
    if not GITHUB.fullmatch(url.rstrip("/")):
        raise ConfigError(f"repository.url in _config.yml is {url!r}: set it to the repository's public GitHub "
                          "address, https://github.com/<owner>/<repository> (Colab opens notebooks from GitHub "
                          "only), or leave it empty to build the book without launch buttons")
    return dict(theme_options.get("launch_buttons") or {})


def _config_inited(app, config):
    options = dict(config.html_theme_options or {})
    options["launch_buttons"] = launch_buttons(options)
    config.html_theme_options = options


def notebook_entry(url):
    """The download menu's entry for a page's ``.ipynb``."""
    return {"type": "link", "url": url, "text": ".ipynb", "icon": "fas fa-code",
            "tooltip": "Download notebook file", "label": "download-notebook-button"}


def _offer_pair(app, pagename, templatename, context, doctree):
    if app.builder.format != "html" or not context.get("page_source_suffix"):
        return
    pair = Path(app.env.doc2path(pagename)).with_suffix(".ipynb")
    if not pair.is_file():
        return
    target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(pair, target)  # over the theme's executed copy, where the launch buttons made one
    context["ipynb_source"] = f"{pagename}.ipynb"
    entry = notebook_entry(f"{context['pathto']('_sources', 1)}/{pagename}.ipynb")
    for group in context.get("header_buttons", []):
        if group.get("label") == "download-buttons":
            others = [b for b in group["buttons"] if b.get("label") != "download-notebook-button"]
            group["buttons"] = [entry, *others]


def setup(app):
    app.connect("config-inited", _config_inited)
    # after sphinx-book-theme's launch and download buttons (priority 501)
    app.connect("html-page-context", _offer_pair, priority=502)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
