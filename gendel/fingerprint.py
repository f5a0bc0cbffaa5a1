"""Fingerprints of the code that computes a result: what it computes, not where it lives.

A stored result (a GAN job's result file, a cached §5.1 sweep) is only as good as the code that
made it. :func:`code_hash` hashes that code: it starts from a few *roots* (the functions and
classes that compute the result) and follows every gendel function and class they name, through
the module globals of each, to the end. Each object is hashed from its syntax tree, normalised so
that the hash changes when the computation can change and not otherwise:

- docstrings, comments, blank lines and imports do not count;
- statements that only check (``raise``, ``assert``, ``warnings.warn(...)``, a call of an input
  check of :mod:`gendel._validation` or of bookkeeping whose value is not used, an ``if`` left with
  nothing else to do) do not count;
- the input checks of :mod:`gendel._validation` whose value *is* used (``rng = check_rng(rng)``,
  ``mask = check_deletion(mask, n)``) are followed like any other function: what they return
  computes (a seed turned into a generator, a mask into booleans), and a change there changes the
  hash; their ``raise`` statements, as everywhere, do not count;
- a call of bookkeeping is one constant, whatever its arguments (a result file named with one
  more argument computes nothing new);
- a name is replaced by what it stands for: a gendel function or class by its own hash (so a
  function can move to another module or be renamed and its callers' hashes stay the same), a
  module-level constant or table of settings by its value (without the fields of a dataclass
  marked ``metadata={"presentation": True}``: labels do not compute), a library object by its
  library's name (``np.exp`` and ``numpy.exp`` are one thing);
- the name of each root and of each object followed does not count, nor the order of the roots;
- every gendel class the code names counts, also where only the condition of a check names it
  (``if not isinstance(job, Job): raise ...``): a class computes through its instances' methods and
  properties (``job.control_seed``), which a call through an argument does not name, so the code
  cannot be followed to them. (What a ``raise`` or ``assert`` statement itself names is not read.)

Objects listed as *bookkeeping* (cache keys, checkpoint files, progress bars, and the modules
:data:`BOOKKEEPING_MODULES`) are not followed: they decide whether a result can be reused, not
what it is.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import functools
import hashlib
import inspect
import textwrap
import types

#: Modules whose code never changes a number: progress bars, cache files, this module. (The input
#: checks of ``gendel._validation`` are not among them: what a check returns can compute.)
BOOKKEEPING_MODULES = ("gendel._progress", "gendel.cache", "gendel.fingerprint")

#: Methods that never compute a result: scikit-learn's parameter plumbing, reprs, error messages,
#: the configuration that names a checkpoint.
PLUMBING = frozenset({"__repr__", "__str__", "__getattr__", "__dir__", "__sklearn_clone__", "__sklearn_is_fitted__",
                      "__sklearn_tags__", "get_params", "set_params", "_check_fitted", "_config"})

_CONSTANT_TYPES = (int, float, complex, str, bytes, bool, type(None))


def _is_constant(value):
    if isinstance(value, _CONSTANT_TYPES):
        return True
    if isinstance(value, (tuple, frozenset)):
        return all(_is_constant(v) for v in value)
    return False


def _unwrap(obj):
    """The function behind a method, property, lru_cache or functools.wraps wrapper."""
    while True:
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        elif isinstance(obj, property):
            obj = obj.fget
        elif isinstance(obj, types.MethodType):
            obj = obj.__func__
        elif hasattr(obj, "__wrapped__") and callable(obj):
            obj = obj.__wrapped__
        else:
            return obj


def _in_packages(obj, packages):
    module = getattr(obj, "__module__", None) or ""
    return (inspect.isfunction(obj) or inspect.isclass(obj)) and \
        any(module == p or module.startswith(p + ".") for p in packages)


def _imported_inside(tree, package):
    """The names that import statements inside a function bind, resolved as Python would."""
    import importlib

    names = {}
    for node in ast.walk(tree):
        try:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    module = importlib.import_module(alias.name)
                    if alias.asname:
                        names[alias.asname] = module
                    else:
                        names[alias.name.split(".")[0]] = importlib.import_module(alias.name.split(".")[0])
            elif isinstance(node, ast.ImportFrom):
                base = importlib.import_module("." * node.level + (node.module or ""), package) if node.level \
                    else importlib.import_module(node.module)
                for alias in node.names:
                    value = getattr(base, alias.name, None)
                    if value is None:  # a sub-module not imported as an attribute yet
                        value = importlib.import_module(f"{base.__name__}.{alias.name}")
                    names[alias.asname or alias.name] = value
        except ImportError:  # an optional library that is missing: the name stays as written
            continue
    return names


def _local_names(tree):
    """Every name bound inside ``tree``: parameters, assignment targets, loop and comprehension
    variables, nested definitions, ``except ... as`` names (any scope: a conservative set)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not tree:
            names.add(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names.difference_update(node.names)
    return names


class _Hasher:
    def __init__(self, skip, packages, skip_modules=()):
        self.packages = tuple(packages)
        self.skip_modules = BOOKKEEPING_MODULES + tuple(skip_modules)
        self.skip = {id(_unwrap(obj)) for obj in skip}
        self.memo = {}
        self.active = set()
        self.followed = {}
        self.classes = {}  # id -> hash of every gendel class met, checks included

    def ours(self, obj):
        return _in_packages(obj, self.packages)

    def bookkeeping(self, obj):
        obj = _unwrap(obj)
        return id(obj) in self.skip or (getattr(obj, "__module__", "") or "") in self.skip_modules

    def of(self, obj):
        """The hash of a gendel function or class (its name left out)."""
        obj = _unwrap(obj)
        key = id(obj)
        if key in self.memo:
            return self.memo[key]
        if key in self.active:  # a cycle (a function that calls itself, two classes that name each other)
            return "cycle"
        self.active.add(key)
        try:
            if inspect.isclass(obj):
                text = self._class(obj)
            else:
                text = self._function(obj)
        finally:
            self.active.discard(key)
        digest = hashlib.sha256(text.encode()).hexdigest()[:16]
        self.memo[key] = digest
        if inspect.isclass(obj):
            self.classes[key] = digest
        self.followed[f"{obj.__module__}.{obj.__qualname__}"] = digest
        return digest

    def _tree(self, obj):
        source = textwrap.dedent(inspect.getsource(obj))
        return ast.parse(source).body[0]

    def _function(self, fn):
        node = self._tree(fn)
        node.name = ""
        module_globals = dict(getattr(fn, "__globals__", {}))
        module_globals.update(_imported_inside(node, module_globals.get("__package__") or ""))
        return _dump(_Normaliser(self, module_globals, _local_names(node)).visit(node))

    def _class(self, cls):
        node = self._tree(cls)
        module_globals = vars(inspect.getmodule(cls)) if inspect.getmodule(cls) else {}
        parts = ["bases:" + ",".join(self._value(b, base) for b, base in zip(node.bases, cls.__bases__))]
        for item in _without_docstring(node.body):
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                member = cls.__dict__.get(item.name)
                if member is None or item.name in PLUMBING or self.bookkeeping(member):
                    continue
                parts.append(f"def {item.name}:{self.of(member)}")  # method names are part of the interface
            else:
                normal = _Normaliser(self, module_globals, _local_names(item)).visit(item)
                if normal is not None:
                    parts.append(_dump(normal))
        return "class:" + ";".join(parts)

    def _value(self, node, value):
        if self.ours(value):
            return "bookkeeping" if self.bookkeeping(value) else "gendel:" + self.of(value)
        return f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', repr(value))}"


def _dump(node):
    return ast.dump(node, annotate_fields=False, include_attributes=False)


def _without_docstring(body):
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        return body[1:]
    return body


def _resolve(node, module_globals, local_names):
    """The object an ``a.b.c`` name chain refers to, or raise LookupError."""
    if isinstance(node, ast.Name):
        if node.id in local_names:
            raise LookupError(node.id)
        if node.id in module_globals:
            return module_globals[node.id]
        if hasattr(builtins, node.id):
            return getattr(builtins, node.id)
        raise LookupError(node.id)
    if isinstance(node, ast.Attribute):
        base = _resolve(node.value, module_globals, local_names)
        if not isinstance(base, types.ModuleType) and not inspect.isclass(base):
            raise LookupError(node.attr)  # an attribute of an instance: resolved at run time
        try:
            return getattr(base, node.attr)
        except AttributeError as exc:
            raise LookupError(node.attr) from exc
    raise LookupError(type(node).__name__)


def _value_text(value):
    """The content of a table of settings as text; fields of a dataclass marked as presentation
    (``field(metadata={"presentation": True})``: labels, axis titles) are left out."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        parts = [f"{f.name}={_value_text(getattr(value, f.name))}" for f in dataclasses.fields(value)
                 if not f.metadata.get("presentation")]
        return f"{type(value).__name__}({', '.join(parts)})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_value_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value_text(v) for v in value) + "]"
    return repr(value)


class _Normaliser(ast.NodeTransformer):
    """Rewrites a definition's tree as described in the module docstring."""

    def __init__(self, hasher, module_globals, local_names):
        self.hasher = hasher
        self.globals = module_globals
        self.locals = local_names

    # -- statements ---------------------------------------------------------------------------
    def _statements(self, body):
        out = []
        for statement in _without_docstring(body):
            new = self.visit(statement)
            if new is None:
                continue
            out.extend(new if isinstance(new, list) else [new])
        return out

    def generic_visit(self, node):
        for field in ("body", "orelse", "finalbody"):
            value = getattr(node, field, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                setattr(node, field, self._statements(value))
        return super().generic_visit(node)

    def visit_Import(self, node):
        return None

    visit_ImportFrom = visit_Import

    def visit_Raise(self, node):
        return None

    visit_Assert = visit_Raise

    def visit_Expr(self, node):
        if isinstance(node.value, ast.Constant):  # a bare string (a comment-like docstring)
            return None
        if isinstance(node.value, ast.Call) and self._checks_only(node.value.func):
            return None
        return self.generic_visit(node)

    def visit_If(self, node):
        node = self.generic_visit(node)
        if not node.body and not node.orelse:
            return None
        if not node.body:
            node.body = [ast.Pass()]
        return node

    def _checks_only(self, func):
        try:
            target = _resolve(func, self.globals, self.locals)
        except LookupError:
            return False
        import warnings

        if target is warnings.warn:
            return True
        if not self.hasher.ours(target):
            return False
        # a statement call of an input check, or of bookkeeping (its value, if any, is not used)
        return getattr(target, "__module__", "") == "gendel._validation" or self.hasher.bookkeeping(target)

    def visit_Call(self, node):
        try:
            target = _resolve(node.func, self.globals, self.locals)
        except LookupError:
            return self.generic_visit(node)
        if self.hasher.ours(target) and self.hasher.bookkeeping(target):
            return ast.Constant("bookkeeping")  # a call of bookkeeping, whatever its arguments
        return self.generic_visit(node)

    # -- names --------------------------------------------------------------------------------
    def _replacement(self, node):
        try:
            value = _resolve(node, self.globals, self.locals)
        except LookupError:
            return None
        if callable(value) and hasattr(value, "__wrapped__"):  # lru_cache, functools.wraps: the function inside
            value = _unwrap(value)
        if self.hasher.ours(value):
            if self.hasher.bookkeeping(value):
                return ast.Constant("bookkeeping")
            return ast.Constant("gendel:" + self.hasher.of(value))
        if isinstance(value, types.ModuleType):
            return ast.Constant("module:" + value.__name__)
        if _is_constant(value):
            return ast.Constant(value)
        if isinstance(value, (dict, list, tuple)) or dataclasses.is_dataclass(value):
            text = _value_text(value)  # a table of settings (a registry, a profile): its content counts
            if text is not None and " at 0x" not in text and len(text) < 100_000:
                return ast.Constant("value:" + text)
            return None
        module, qualname = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
        if isinstance(module, str) and isinstance(qualname, str) and not self.hasher.ours(value):
            return ast.Constant(f"{module}.{qualname}")
        return None

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            new = self._replacement(node)
            if new is not None:
                return new
        return node

    def visit_Attribute(self, node):
        if isinstance(node.ctx, ast.Load):
            new = self._replacement(node)
            if new is not None and not (isinstance(new.value, str) and new.value.startswith("module:")):
                return new
        return self.generic_visit(node)


def code_hash(roots, *, skip=(), skip_modules=(), packages=("gendel",)):
    """A 16-hex-digit hash of what ``roots`` (functions and classes) compute; see the module text.

    Parameters
    ----------
    roots : iterable of functions or classes
        What computes the result. The gendel functions and classes they name are followed.
    skip : iterable of functions
        Bookkeeping that is not followed (besides :data:`BOOKKEEPING_MODULES`).
    skip_modules : iterable of str
        Further modules of bookkeeping (result files, provenance records).
    packages : tuple of str
        The packages whose functions and classes are followed (gendel's own).

    Examples
    --------
    The hash of Alg. 1 is a short hex string, the same on every call (``tests/test_fingerprint.py``
    shows that moves, renames and comments leave it alone and a changed number does not):

    >>> from gendel.core.deletion import ApproximateDeletion
    >>> h = code_hash([ApproximateDeletion])
    >>> len(h), h == code_hash([ApproximateDeletion])
    (16, True)
    """
    hasher = _Hasher(skip, packages, skip_modules)
    parts = sorted(hasher.of(root) for root in roots)
    parts += ["classes:"] + sorted(hasher.classes.values())  # the classes met, where only a check names them too
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def hashed_objects(roots, *, skip=(), skip_modules=(), packages=("gendel",)):
    """The functions and classes that :func:`code_hash` follows for ``roots``, by qualified name,
    each with its own hash (a table of what a fingerprint covers; a function that only the condition
    of a check names is followed but does not count).

    Examples
    --------
    >>> from gendel.core.deletion import ApproximateDeletion
    >>> table = hashed_objects([ApproximateDeletion])
    >>> "gendel.core.deletion.ApproximateDeletion" in table, all(len(h) == 16 for h in table.values())
    (True, True)
    """
    hasher = _Hasher(skip, packages, skip_modules)
    for root in roots:
        hasher.of(root)
    return dict(sorted(hasher.followed.items()))


@functools.lru_cache(maxsize=32)
def cached_code_hash(roots, skip=(), skip_modules=()):
    """:func:`code_hash` of a tuple of roots, computed once per process (the code does not change
    while it runs).

    Examples
    --------
    >>> from gendel.core.deletion import ApproximateDeletion
    >>> cached_code_hash((ApproximateDeletion,)) == code_hash([ApproximateDeletion])
    True
    """
    return code_hash(roots, skip=skip, skip_modules=skip_modules)
