"""Sphinx extension: keep each page's script list free of duplicates.

With Jupyter Book 1.0.4 and sphinx-thebe 0.3.1 the inline thebe configuration script
(``const THEBE_JS_URL = ...``) is registered twice, so every page threw
"Identifier 'THEBE_JS_URL' has already been declared" in the browser. This removes repeated
entries (same file and same inline body; an inline script's file name may be None or "") from the
page context before rendering.
"""


def _dedupe(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, unique = set(), []
    for script in scripts:
        # An inline script is registered once with filename None and once with "": same script.
        filename = getattr(script, "filename", script) or ""
        key = (str(filename), tuple(sorted(getattr(script, "attributes", {}).items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def setup(app):
    app.connect("html-page-context", _dedupe, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
