"""The student version of the lab page, made from the page itself.

``book/course/lab.md`` is the solutions version of the lab: it is the page of the book, and the
book build executes it. The student version is a notebook generated from it:

- each code cell tagged ``solution`` keeps its leading comment lines (``# Step n: what to write``)
  and the rest is replaced by ``raise NotImplementedError("Step n: ...")``;
- each exercise's solution (from its ``{solution-start}`` to its ``{solution-end}`` directive)
  is replaced by one code cell that raises ``NotImplementedError("Exercise ...")``;
- markdown cells marked ``+++ {"solutions_only": true}`` in the page are left out;
- the title says "(student version)" and cells get stable ids, so the same page always gives the
  same file;
- the markdown is written as plain Jupyter Markdown, which Colab and Jupyter render without MyST
  (:func:`plain_markdown`): roles become their text (a link to the rendered page of the book when
  ``_config.yml`` names the repository), directives such as admonitions and exercises a bold title
  line and a block quote, equation labels ``\\tag`` numbers, and TeX macros of the book's MathJax
  configuration, if it defines any, their definitions.

Run it from the repository root after editing the page (a test checks that the two agree)::

    python -m gendel.book.lab_notebook          # book/course/lab.md -> book/course/lab_student.ipynb
"""

from __future__ import annotations

import argparse
import json
import re
import textwrap
from pathlib import Path

from gendel.book.cells import page_title

#: The page and the notebook, relative to the repository root.
PAGE = Path("book/course/lab.md")
STUDENT = Path("book/course/lab_student.ipynb")
#: The tag of the cells that hold a solution.
SOLUTION_TAG = "solution"
#: A markdown cell with this metadata key set (``+++ {"solutions_only": true}`` in the page) is left out.
SOLUTIONS_ONLY = "solutions_only"

_STEP = re.compile(r"^#\s*(Step \d+):\s*(.+)$")
_START = re.compile(r"```\{solution-start\}\s*([\w-]+)")
_END = "```{solution-end}\n```"
_NOTE = ("**Student version.** Each cell that raises `NotImplementedError` is yours to write: replace "
         "it by your code and run it, then run the check below it. The check prints \"✓ step n\" when "
         "your result is right, and says what is wrong otherwise.")


def stub(source):
    """The student's version of a solution cell: its leading comments, then a NotImplementedError.

    The first comment line must read ``# Step n: what to write``; it names the step in the error.

    Examples
    --------
    >>> print(stub("# Step 5: the function ks(a, b)\\ndef ks(a, b):\\n    return 0.0"))
    # Step 5: the function ks(a, b)
    raise NotImplementedError("Step 5: write the function ks(a, b) here, then run the check below")
    """
    lines = source.splitlines()
    head = []
    for line in lines:
        if not line.startswith("#"):
            break
        head.append(line)
    match = _STEP.match(head[0]) if head else None
    if match is None:
        raise ValueError(f"a solution cell must start with a comment '# Step n: what to write'; it starts with "
                         f"{lines[0] if lines else '(nothing)'!r}")
    step, what = match.groups()
    message = f"{step}: write {what} here, then run the check below"
    return "\n".join(head + [f"raise NotImplementedError({json.dumps(message, ensure_ascii=False)})"])


_ROLE = re.compile(r"\{(?P<role>[a-z]+(?::[a-z]+)?)\}`(?P<body>[^`]*)`")
_EXPLICIT = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.S)
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|:{3,})\{(?P<name>[\w:-]+)\}[ \t]*(?P<arg>[^\n]*)\n"
                    r"(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$", re.S | re.M)
_OPTION = re.compile(r"^:(?P<key>[\w-]+):[ \t]*(?P<value>.*)$")
_LABELLED_MATH = re.compile(r"\$\$(?P<math>.*?)\$\$[ \t]*\((?P<label>[\w-]+)\)", re.S)
_TARGET = re.compile(r"^\([\w-]+\)=[ \t]*\n", re.M)
_TITLED = {"note": "Note", "tip": "Tip", "hint": "Hint", "important": "Important", "warning": "Warning",
           "caution": "Caution", "attention": "Attention", "danger": "Danger", "error": "Error", "seealso": "See also"}


def _citation(key, bibfile):
    from pybtex.database import parse_file

    entries = parse_file(str(bibfile)).entries
    if key not in entries:
        raise ValueError(f"{{cite}}`{key}`: no entry {key!r} in {bibfile}; add it there or fix the key")
    entry = entries[key]
    names = [" ".join(person.last_names).replace("{", "").replace("}", "") for person in entry.persons["author"]]
    who = names[0] if len(names) == 1 else " and ".join(names) if len(names) == 2 else f"{names[0]} et al."
    return f"{who} ({entry.fields['year']})"


_SECTION_TARGET = re.compile(r"^\((?P<label>[\w-]+)\)=[ \t]*\n(?:[ \t]*\n)*(?P<hashes>#+)[ \t]+(?P<title>[^\n]+)", re.M)
_LABELLED = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[\w:-]+)\}[ \t]*(?P<arg>[^\n]*)\n"
                       r"(?P<options>(?::[\w-]+:[^\n]*\n)*)", re.M)
_PROOF_KINDS = {"prf:theorem": "Theorem", "prf:definition": "Definition", "prf:proposition": "Proposition",
                "prf:lemma": "Lemma", "prf:corollary": "Corollary", "prf:algorithm": "Algorithm",
                "prf:remark": "Remark", "prf:example": "Example", "prf:conjecture": "Conjecture",
                "prf:axiom": "Axiom", "prf:criterion": "Criterion", "prf:assumption": "Assumption",
                "prf:observation": "Observation", "prf:property": "Property", "prf:proof": "Proof"}


def _plain_title(text):
    """A heading or title as plain words: no emphasis marks, code ticks or roles."""
    def words(match):
        explicit = _EXPLICIT.match(match["body"])
        return explicit["text"] if explicit else match["body"]

    return re.sub(r"[*`]", "", _ROLE.sub(words, text)).strip()


def page_labels(page, text=None, numbering=None):
    """The MyST labels that a page defines, as ``{label: (words, anchor)}``: a section's target
    ``(label)=`` (its heading), an exercise (``Exercise n``), a theorem-like block of sphinx-proof
    (``Theorem (its title)``), a figure (``Figure n``) and a labelled equation (``(n)``), numbered
    in the order of the page; with ``numbering`` (the page's entry of :func:`book_numbering`),
    exercises and equations get the numbers the book build gives them (``Exercise 4.2``, ``(1.3)``).

    Examples
    --------
    >>> from gendel.book.lab_notebook import page_labels
    >>> page_labels("p.md", "(sec-a)=\\n## Fitting\\n\\n$$\\nx\\n$$ (eq-x)\\n")
    {'sec-a': ('Fitting', 'sec-a'), 'eq-x': ('(1)', 'equation-eq-x')}
    """
    text = Path(page).read_text() if text is None else text
    labels = {m["label"]: (_plain_title(m["title"]), m["label"]) for m in _SECTION_TARGET.finditer(text)}
    counts = {}
    for m in _LABELLED.finditer(text):
        options = dict(_OPTION.match(line).group("key", "value") for line in m["options"].splitlines())
        name, arg = m["name"], m["arg"].strip()
        label = (options.get("label") or options.get("name") or "").strip()
        if name == "exercise":
            kind = "Exercise"
        elif name == "figure":
            kind = "Figure"
        elif name in _PROOF_KINDS:
            kind = _PROOF_KINDS[name]
        else:
            continue
        counts[kind] = counts.get(kind, 0) + 1
        if not label:
            continue
        if kind == "Exercise":
            words = f"Exercise {_numbered(numbering, 'Exercise', counts[kind])}"
        elif kind == "Figure":
            words = f"Figure {counts[kind]}"
        else:
            words = kind + (f" ({arg})" if arg else "")
        labels[label] = (words, label)
    for n, m in enumerate(_LABELLED_MATH.finditer(text), 1):
        labels[m["label"]] = (f"({_numbered(numbering, 'Equation', n)})", f"equation-{m['label']}")
    return labels


def _numbered(numbering, kind, n):
    """The book's number of the ``n``-th ``kind`` of a page whose :func:`book_numbering` entry is ``numbering``."""
    if numbering is None:
        return str(n)
    prefix, before = numbering
    return f"{prefix}.{before.get(kind, 0) + n}" if prefix else str(before.get(kind, 0) + n)


def _counted(text):
    """How many exercises and labelled equations a page's text holds (what the book build numbers)."""
    exercises = sum(m["name"] == "exercise" for m in _LABELLED.finditer(text))
    return {"Exercise": exercises, "Equation": len(_LABELLED_MATH.findall(text))}


def book_numbering(root):
    """Where the book build's numbers of exercises and equations start on each page:
    ``{page: (prefix, {"Exercise": before, "Equation": before})}``. The build numbers them per
    chapter in the numbered parts of ``_toc.yml``, the chapter's sections included and the chapters
    counted over all numbered parts ("Exercise 4.2": the second of chapter 4), and with one counter
    over the pages outside them ("Exercise 5"). Empty where ``root`` has no ``_toc.yml``.

    Examples
    --------
    >>> from gendel.book.install import ROOT
    >>> numbering = book_numbering(ROOT)
    >>> numbering[(ROOT / "book/gan/vdm.md").resolve()][0], numbering[(ROOT / "book/course/lab.md").resolve()]
    ('4', ('', {'Exercise': 0, 'Equation': 0}))
    """
    import yaml

    root = Path(root)
    toc_file = root / "_toc.yml"
    if not toc_file.is_file():
        return {}
    toc = yaml.safe_load(toc_file.read_text()) or {}
    out, counters, chapter = {}, {}, 0

    def visit(name, prefix):
        page = (root / name).with_suffix(".md").resolve()
        if not page.is_file():
            return
        out[page] = (prefix, {kind: counters.get((kind, prefix), 0) for kind in ("Exercise", "Equation")})
        for kind, n in _counted(page.read_text()).items():
            counters[(kind, prefix)] = counters.get((kind, prefix), 0) + n

    def walk(entries, prefix):
        for entry in entries or []:
            if "file" in entry:
                visit(entry["file"], prefix)
            walk(entry.get("sections"), prefix)

    visit(toc["root"], "")
    for part in toc.get("parts", []):
        for entry in part.get("chapters") or []:
            if part.get("numbered"):
                chapter += 1
            walk([entry], str(chapter) if part.get("numbered") else "")
    return out


def book_labels(root):
    """The labels of every page of the book under ``root`` (a clone: ``root/book/**/*.md``), as
    ``{label: (page, words, anchor)}`` (see :func:`page_labels`).

    Examples
    --------
    >>> from gendel.book.install import ROOT
    >>> from gendel.book.lab_notebook import book_labels
    >>> page, words, anchor = book_labels(ROOT)["alg-rejection-sampling"]
    >>> page.name, words.split(" (")[0], anchor
    ('framework.md', 'Algorithm', 'alg-rejection-sampling')
    """
    found = {}
    numbering = book_numbering(root)
    for page in sorted((Path(root) / "book").rglob("*.md")):
        if {"_vendor", ".ipynb_checkpoints", "_build"} & set(page.parts):
            continue
        for label, (words, anchor) in page_labels(page, numbering=numbering.get(page.resolve())).items():
            found[label] = (page.resolve(), words, anchor)
    return found


def read_book_address(config):
    """Where the book is published, from ``_config.yml``: its ``html.baseurl`` where set, else the
    GitHub Pages address of its ``repository.url`` (:func:`book_address`), else ``""``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from gendel.book.lab_notebook import read_book_address
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "_config.yml"
    >>> _ = path.write_text("html:\\n  baseurl: https://example.org/gendel/\\n")
    >>> read_book_address(path)
    'https://example.org/gendel'
    """
    import yaml

    from gendel.book.install import read_repository

    config = Path(config)
    if not config.is_file():
        return ""
    base = str(((yaml.safe_load(config.read_text()) or {}).get("html") or {}).get("baseurl") or "").strip()
    return base.rstrip("/") if base else book_address(read_repository(config)[0])


class PageContext:
    """What :func:`plain_markdown` resolves references against: the page, its exercises and
    equations, the book's address (or none), the labels of the other pages, and the macros of the
    book's MathJax configuration. With ``glue`` set, the book's ``{glue:text}`` and ``{glue:md}``
    roles become ``{{name:format}}`` placeholders for :meth:`gendel.book.PageSetup.show`.

    ``PageContext.of(page, markdown)`` reads all of that from the page's text and the book's
    ``_config.yml``; the notebooks of ``gendel.book.colab`` and the lab's student notebook use it.

    Examples
    --------
    A link to another page of the book goes to its rendered page where the book has an address,
    and is plain words where it has none:

    >>> context = PageContext("book/page.md", "https://o.github.io/gendel", root=".")
    >>> context.link("the framework", "framework.md", "fig-1")
    '[the framework](https://o.github.io/gendel/book/framework.html#fig-1)'
    >>> PageContext("book/page.md", root=".").link("the framework", "framework.md")
    '*the framework*'
    """

    def __init__(self, page, book_url="", macros=None, bibfile=None, exercises=(), equations=(), root=None,
                 labels=None, glue=False, numbering=None):
        self.page, self.book_url, self.macros = Path(page), book_url.rstrip("/"), dict(macros or {})
        self.root = Path(root) if root else clone_root(self.page)
        self.bibfile = Path(bibfile) if bibfile else self.root / "book" / "references.bib"
        # the page's exercises in order (None for one without a label: it takes a number all the same)
        self.exercises = {label: _numbered(numbering, "Exercise", n) for n, label in enumerate(exercises, 1) if label}
        self.equations = {label: _numbered(numbering, "Equation", n) for n, label in enumerate(equations, 1)}
        self.labels, self.glue = dict(labels or {}), glue

    @classmethod
    def of(cls, page, markdown, config=None, *, root=None, labels=None, glue=False):
        """The context of ``page`` (``markdown``: the text of all its markdown cells), with the book's
        address and macros read from ``config`` (``_config.yml`` next to the book's folder)."""
        import yaml

        from gendel.book.install import ROOT

        page = Path(page)
        if not page.is_absolute() and not page.exists():      # a page of this repository, from elsewhere
            page = ROOT / page
        root = Path(root) if root else clone_root(page)
        config = Path(config) if config else root / "_config.yml"
        macros = {}
        if config.is_file():
            sphinx = (yaml.safe_load(config.read_text()) or {}).get("sphinx", {}).get("config", {})
            macros = ((sphinx.get("mathjax3_config") or {}).get("tex") or {}).get("macros") or {}
        exercises = []
        for m in _LABELLED.finditer(markdown):
            if m["name"] == "exercise":
                label = re.search(r"^:label:[ \t]*([\w-]+)", m["options"], re.M)
                exercises.append(label.group(1) if label else None)
        numbering = book_numbering(root).get(page.resolve())
        return cls(page, read_book_address(config), macros, exercises=exercises,
                   equations=[m.group("label") for m in _LABELLED_MATH.finditer(markdown)], root=root,
                   labels=labels, glue=glue, numbering=numbering)

    def url(self, target, anchor=""):
        """The address of the rendered page ``target`` (a path relative to this page, or absolute)."""
        path = (self.page.parent / target).resolve().with_suffix("").relative_to(self.root.resolve())
        return f"{self.book_url}/{path.as_posix()}.html" + (f"#{anchor}" if anchor else "")

    def link(self, text, target, anchor=""):
        """``text``, linked to the rendered page ``target`` (relative to this page) when the book has an address."""
        if not self.book_url:
            return f"*{text}*"
        return f"[{text}]({self.url(target, anchor)})"

    def labelled(self, role, label, text, before):
        """A reference to ``label`` of this page or another: its words (or ``text``), a link where
        it is on another page and the book has an address."""
        if label in self.exercises and (role != "prf:ref"):
            number = str(self.exercises[label])
            if text:
                return text
            return number if re.search(r"exercise\s*$", before, re.I) else f"Exercise {number}"
        if role == "eq" and label in self.equations:
            return f"({self.equations[label]})"
        if label not in self.labels:
            raise ValueError(f"{self.page}: {{{role}}}`{label}` names no label of the book; fix the label, or "
                             "teach gendel.book.lab_notebook.page_labels where it is defined")
        page, words, anchor = self.labels[label]
        if role == "eq":
            text = None
        if page == self.page.resolve():
            return text or words
        return self.link(text or words, page, anchor)

    def role(self, match):
        role, body = match.group("role"), match.group("body")
        explicit = _EXPLICIT.match(body)
        text, target = (explicit.group("text"), explicit.group("target")) if explicit else (None, body)
        if role == "doc":
            return self.link(text or page_title(self.page.parent, target, required=True), f"{target}.md")
        if role in ("cite", "cite:p", "cite:t"):
            return "; ".join(_citation(key.strip(), self.bibfile) for key in target.split(","))
        if role in ("ref", "numref", "prf:ref", "eq"):
            return self.labelled(role, target, text, match.string[:match.start()])
        if role in ("math", "sub", "sup"):
            return {"math": f"${body}$", "sub": f"<sub>{body}</sub>", "sup": f"<sup>{body}</sup>"}[role]
        if role == "download":
            return f"`{text or Path(target).name}`"
        if role.removeprefix("py:") in ("mod", "func", "class", "meth", "attr", "data", "obj"):
            name = text or target.lstrip("~")  # a name of the API: as code, as the book shows it
            return f"`{name.rsplit('.', 1)[-1] if target.startswith('~') and not text else name}`"
        if self.glue and role in ("glue", "glue:text", "glue:md"):
            name, _, spec = body.partition(":")
            return "{{" + name.strip() + (f":{spec}" if spec and role != "glue:md" else "") + "}}"
        raise ValueError(f"{self.page}: the role {{{role}}}`{body}` has no plain-Markdown form for the student "
                         "notebook; write it as text, or teach gendel.book.lab_notebook.plain_markdown this role")

    def directive(self, match):
        """A directive as plain Markdown, indented as it was (a directive may sit in a list item)."""
        indent = match.group("indent")
        text = self._directive(match.group("name"), match.group("arg").strip(), textwrap.dedent(match.group("body")))
        return "\n".join(indent + line if line.strip() else line for line in text.split("\n"))

    def _directive(self, name, arg, body):
        options, lines = {}, body.splitlines()
        while lines and _OPTION.match(lines[0]):
            option = _OPTION.match(lines.pop(0))
            options[option.group("key")] = option.group("value").strip()
        if name == "exercise":
            label = options.get("label")
            title = f"Exercise {self.exercises[label]}" if label in self.exercises else "Exercise"
            title += f" ({arg})" if arg else ""
        elif name == "admonition":
            title = arg or "Note"
        elif name in _TITLED:
            title, lines = _TITLED[name], ([arg] if arg else []) + lines
        elif name in _PROOF_KINDS:
            title = _PROOF_KINDS[name] + (f" ({self.convert(arg)})" if arg else "")
        elif name == "dropdown":
            title = self.convert(arg) if arg else "Details"
        elif name == "solution-start":
            number = self.exercises.get(arg)
            return f"**Solution to exercise {number}**" if number else "**Solution**"
        elif name == "solution-end":
            return ""
        elif name == "math":
            label = options.get("label")
            tag = f"\n\\tag{{{self.equations[label]}}}" if label in self.equations else ""
            return "$$\n" + "\n".join(lines).strip("\n") + tag + "\n$$"
        elif name == "figure":
            return self.figure(arg, options, "\n".join(lines).strip("\n"))
        elif name == "bibliography":
            return self.bibliography()
        else:
            raise ValueError(f"{self.page}: the directive {{{name}}} has no plain-Markdown form for the student "
                             "notebook; write it as text, or teach gendel.book.lab_notebook.plain_markdown it")
        inner = self.convert("\n".join(lines).strip("\n"))
        quoted = "\n".join(f"> {line}".rstrip() for line in inner.splitlines())
        return f"**{title}**\n\n{quoted}"

    def figure(self, source, options, caption):
        """An image with its caption; the image from the published book where it has an address
        (Sphinx copies a page's images to ``_images/``), else the page's own relative path."""
        label = options.get("name") or options.get("label")
        words = self.labels.get(label, (None, "Figure"))[1] if label else "Figure"
        src = f"{self.book_url}/_images/{Path(source).name}" if self.book_url else source
        alt = options.get("alt", "").replace("]", ")").replace("[", "(")
        return f"![{alt}]({src})\n\n**{words}.** {self.convert(caption)}".rstrip()

    def bibliography(self):
        """The entries of the book's ``references.bib``, one line each."""
        from pybtex.database import parse_file

        entries = parse_file(str(self.bibfile)).entries
        lines = []
        for key in sorted(entries, key=lambda k: _citation(k, self.bibfile)):
            title = entries[key].fields.get("title", "").replace("{", "").replace("}", "")
            lines.append(f"- {_citation(key, self.bibfile)}. {title}.")
        return "**References**\n\n" + "\n".join(lines)

    def math(self, match):
        return f"$${match.group('math').rstrip()}\n\\tag{{{self.equations[match.group('label')]}}}\n$$"

    def convert(self, text):
        text = _TARGET.sub("", text)
        while True:
            converted = _FENCE.sub(self.directive, text)
            if converted == text:
                break
            text = converted
        text = _LABELLED_MATH.sub(self.math, text)
        text = _ROLE.sub(self.role, text)
        for name, definition in self.macros.items():
            body = definition[0] if isinstance(definition, list) else definition
            text = re.sub(rf"\\{name}(?![A-Za-z])", lambda _: body, text)
        return text


def clone_root(page):
    """The folder that holds the ``book`` folder above ``page`` (the root of a clone); for a page
    with no ``book`` folder above it, the folder above the page's own.

    Examples
    --------
    >>> clone_root("/clone/book/gan/page.md").as_posix(), clone_root("/clone/notes/page.md").as_posix()
    ('/clone', '/clone')
    """
    for parent in Path(page).resolve().parents:
        if parent.name == "book":
            return parent.parent
    return Path(page).resolve().parents[1]


def book_address(url):
    """Where the book of the repository ``url`` is published (GitHub Pages), or ``""`` for no address.

    Examples
    --------
    >>> book_address("https://github.com/o/gendel")
    'https://o.github.io/gendel'
    >>> book_address("")
    ''
    """
    match = re.fullmatch(r"https://github\.com/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+?)/?", url or "")
    return f"https://{match.group(1)}.github.io/{match.group(2)}" if match else ""


def plain_markdown(text, page=PAGE, *, config=None, context=None):
    """``text``, a markdown cell of the MyST ``page``, as plain Jupyter Markdown (see the module docstring).

    Examples
    --------
    >>> print(plain_markdown("See {cite}`kong2023approximate`.\\n\\n```{admonition} Why\\nBecause.\\n```"))
    See Kong and Alfeld (2023).
    <BLANKLINE>
    **Why**
    <BLANKLINE>
    > Because.
    """
    return (context or PageContext.of(page, text, config)).convert(text)


def _exercise_stub(name):
    import nbformat

    return nbformat.v4.new_code_cell(
        f"# Your solution of exercise {name}\n"
        f"raise NotImplementedError(\"Exercise {name}: write your solution here\")")


def student_notebook(page=PAGE):
    """The student notebook of a lab page (a MyST notebook), as an ``nbformat`` notebook.

    Examples
    --------
    >>> import tempfile, textwrap
    >>> from pathlib import Path
    >>> text = textwrap.dedent('''\\
    ...     ---
    ...     jupytext:
    ...       text_representation: {extension: .md, format_name: myst}
    ...     kernelspec: {display_name: Python 3, language: python, name: python3}
    ...     ---
    ...     # A lab
    ...
    ...     ```{code-cell} ipython3
    ...     :tags: [solution]
    ...     # Step 1: x
    ...     x = 1
    ...     ```
    ...     ''')
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "lab.md").write_text(text)
    ...     nb = student_notebook(Path(tmp) / "lab.md")
    >>> print(nb.cells[-1].source)
    # Step 1: x
    raise NotImplementedError("Step 1: write x here, then run the check below")
    """
    import jupytext
    import nbformat

    page = Path(page)
    if not page.is_file():
        raise FileNotFoundError(f"{page} not found: run this from the repository root, or pass the page's path")
    source = jupytext.read(page)
    context = PageContext.of(page, "\n\n".join(c.source for c in source.cells if c.cell_type == "markdown"))
    cells, in_solution, titled = [], False, False
    for cell in source.cells:
        text = cell.source
        if cell.cell_type == "markdown":
            if cell.metadata.get(SOLUTIONS_ONLY):
                continue
            if in_solution:
                if _END not in text:
                    continue
                text = text.split(_END, 1)[1].lstrip("\n")
                in_solution = False
            start = _START.search(text)
            if start:
                before = text[: start.start()].rstrip("\n")
                if before:
                    cells.append(nbformat.v4.new_markdown_cell(context.convert(before)))
                cells.append(_exercise_stub(context.exercises.get(start.group(1), start.group(1))))
                in_solution = _END not in text[start.start():]
                continue
            if not titled and text.startswith("# "):
                title, _, rest = text.partition("\n")
                text = f"{title} (student version)\n\n{_NOTE}" + (f"\n{rest}" if rest.strip() else "")
                titled = True
            if text.strip():
                cells.append(nbformat.v4.new_markdown_cell(context.convert(text), metadata=dict(cell.metadata)))
        elif in_solution:
            continue
        elif SOLUTION_TAG in cell.metadata.get("tags", []):
            tags = [t for t in cell.metadata["tags"] if t not in (SOLUTION_TAG, "hide-input")]
            cells.append(nbformat.v4.new_code_cell(stub(text), metadata={"tags": tags} if tags else {}))
        else:
            cells.append(nbformat.v4.new_code_cell(text, metadata=dict(cell.metadata)))
    if in_solution:
        raise ValueError(f"{page}: a {{solution-start}} has no {{solution-end}}")
    for i, cell in enumerate(cells):
        cell.id = f"cell-{i:02d}"
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = dict(source.metadata.get("kernelspec") or
                                     {"display_name": "Python 3", "language": "python", "name": "python3"})
    nb.metadata["language_info"] = {"name": "python"}
    nbformat.validate(nb)
    return nb


def student_text(page=PAGE):
    """The student notebook of ``page`` as the text written to disk (JSON, one trailing newline).

    Examples
    --------
    >>> import json, tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "lab.md").write_text("# A lab\\n")
    ...     json.loads(student_text(Path(tmp) / "lab.md"))["cells"][0]["source"][0]
    '# A lab (student version)\\n'
    """
    import nbformat

    return nbformat.writes(student_notebook(page)) + "\n"


def write_student_notebook(page=PAGE, out=STUDENT):
    """Write the student notebook of ``page`` to ``out``; returns ``out``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "lab.md").write_text("# A lab\\n")
    ...     write_student_notebook(Path(tmp) / "lab.md", Path(tmp) / "lab.ipynb").name
    'lab.ipynb'
    """
    out = Path(out)
    out.write_text(student_text(page))
    return out


def _main(argv=None):
    parser = argparse.ArgumentParser(description="Make the student notebook of the lab page.")
    parser.add_argument("page", nargs="?", default=str(PAGE), help=f"the MyST page (default {PAGE})")
    parser.add_argument("out", nargs="?", default=str(STUDENT), help=f"the notebook to write (default {STUDENT})")
    args = parser.parse_args(argv)
    print(f"wrote {write_student_notebook(args.page, args.out)}")


if __name__ == "__main__":
    _main()


__all__ = ["PAGE", "STUDENT", "SOLUTION_TAG", "SOLUTIONS_ONLY", "book_address", "book_labels", "book_numbering",
           "page_labels", "plain_markdown", "read_book_address", "student_notebook", "student_text", "stub",
           "write_student_notebook"]
