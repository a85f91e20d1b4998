"""The rule ids a function can raise, found from the code it reaches: the rule catalogue per
event type (`services.rules.map`) is built on this, so it follows the code as it changes.

`Reach.function(fn)` walks from a live function (a handler of a fold's dispatch table, a
ruleset's `start` or `end`) through what its compiled code names: the module globals it
reads, the attributes of this repository's modules it reads (`play.advertise`), the
functions its closure holds (`functools.partial`, a factory's inner function), the code it
nests (lambdas, comprehensions), and the methods of this repository's classes of its own
package named by an attribute it reads (`state.player(...)`). For every code object reached,
the `RuleViolation(rule, ...)` calls on its lines (read with Python's `ast`) give the ids; an
id built at run time is listed as its family, `*` for the variable part. Dispatch tables
(dicts) are not followed: each event type's handler is a root of its own.

The walk over-approximates (a function named is counted as called; a method is matched by
name within the package), never under-approximates a direct reference: an id listed may need
a state the game never reaches, an id raised is listed.
"""

from __future__ import annotations

import ast
import functools
import inspect
import os
import types
from collections.abc import Callable, Iterable
from typing import Any

from services.rules.ids import literal_text

PACKAGES = ("domain", "services")
"""Top-level packages of this repository whose code the walk follows."""


def _ours(name: str) -> bool:
    return name.split(".", 1)[0] in PACKAGES


def _strings(node: ast.expr) -> list[str]:
    """The literal strings an expression can be: a literal, or either arm of `a if c else b`."""
    if isinstance(node, ast.IfExp):
        return _strings(node.body) + _strings(node.orelse)
    text = literal_text(node)
    return [] if text is None else [text]


@functools.cache
def raises_by_line(filename: str) -> dict[int, tuple[str, ...]]:
    """Line of the `RuleViolation` name -> the rule ids of that call, in one source file
    (none for generated code, a dataclass's `__init__`: its file is `<string>`). A rule passed
    as a variable is every literal that name is assigned in the file (`kind = "a" if c else
    "b"`)."""
    if not os.path.isfile(filename):
        return {}
    with open(filename, encoding="utf-8") as source:
        tree = ast.parse(source.read())
    assigned: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    assigned.setdefault(target.id, []).extend(_strings(node.value))
    found: dict[int, tuple[str, ...]] = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "RuleViolation"
            and node.args
        ):
            first = node.args[0]
            rules = assigned.get(first.id, []) if isinstance(first, ast.Name) else _strings(first)
            if rules:
                found[node.func.lineno] = tuple(rules)
    return found


@functools.cache
def dispatch_misses(filename: str) -> frozenset[int]:
    """Lines of the `RuleViolation` calls under an `if handler is None:` in one source file:
    a dispatch table's miss (an event type the fold has no handler for), which no type the
    table handles can meet."""
    if not os.path.isfile(filename):
        return frozenset()
    with open(filename, encoding="utf-8") as source:
        tree = ast.parse(source.read())
    lines: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.If):
            continue
        test = node.test
        if (
            isinstance(test, ast.Compare)
            and isinstance(test.left, ast.Name)
            and test.left.id == "handler"
            and isinstance(test.ops[0], ast.Is)
        ):
            for inner in ast.walk(ast.Module(body=node.body, type_ignores=[])):
                if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name):
                    lines.add(inner.func.lineno)
    return frozenset(lines)


@functools.cache
def _methods(package: str) -> dict[str, tuple[Callable[..., Any], ...]]:
    """Method (or property getter) name -> the functions of that name on the classes defined
    in the loaded modules of `package` (`domain.trickerion`)."""
    import sys

    index: dict[str, list[Callable[..., Any]]] = {}
    for name, module in list(sys.modules.items()):
        if module is None or not (name == package or name.startswith(package + ".")):
            continue
        for cls in vars(module).values():
            if not inspect.isclass(cls) or cls.__module__ != name:
                continue
            for attr, value in vars(cls).items():
                fn = value.fget if isinstance(value, property) else value
                fn = getattr(fn, "__func__", fn)  # staticmethod, classmethod
                if isinstance(fn, types.FunctionType) and not attr.startswith("__"):
                    index.setdefault(attr, []).append(fn)
    return {k: tuple(v) for k, v in index.items()}


def _package(module: str) -> str:
    return ".".join(module.split(".")[:2])


class Reach:
    """One walk: `rules` gathers the ids of every function passed to `function` and of what
    it reaches. `kind` fills a family's leading `*` (`*.already_created` of a stream fold)."""

    def __init__(self, kind: str | None = None) -> None:
        self.rules: set[str] = set()
        self.kind = kind
        self._seen: set[types.CodeType] = set()

    def function(self, fn: object) -> None:
        """Add what `fn` (a function, bound method, `functools.partial`) can raise."""
        if isinstance(fn, functools.partial):
            self.function(fn.func)
            for arg in (*fn.args, *fn.keywords.values()):
                self.function(arg)
            return
        fn = getattr(fn, "__func__", fn)
        if not isinstance(fn, types.FunctionType) or not _ours(fn.__module__):
            return
        for cell in fn.__closure__ or ():
            self.function(cell.cell_contents)
        self._code(fn.__code__, fn.__globals__)

    def shallow(self, fn: object, misses: bool = False) -> None:
        """Add only the ids `fn`'s own lines raise (not what it calls), without its dispatch
        misses (`dispatch_misses`), or only those with `misses`."""
        fn = getattr(fn, "__func__", fn)
        if isinstance(fn, types.FunctionType):
            code = fn.__code__
            missed = dispatch_misses(code.co_filename)
            self._own(code, lambda line: (line in missed) == misses)

    def _own(self, code: types.CodeType, keep: Callable[[int], bool] = bool) -> None:
        table = raises_by_line(code.co_filename)
        for line in {line for _, _, line in code.co_lines() if line is not None}:
            if line in table and keep(line):
                for rule in table[line]:
                    if self.kind and rule.startswith("*."):
                        rule = self.kind + rule[1:]
                    self.rules.add(rule)

    def _code(self, code: types.CodeType, scope: dict[str, Any]) -> None:
        if code in self._seen:
            return
        self._seen.add(code)
        self._own(code)
        modules = [v for v in map(scope.get, code.co_names) if inspect.ismodule(v)]
        for name in code.co_names:
            self._named(scope.get(name))
            for module in modules:
                if _ours(module.__name__):
                    self._named(getattr(module, name, None))
        package = _package(str(scope.get("__name__", "")))
        methods = _methods(package)
        for name in code.co_names:
            for method in methods.get(name, ()):
                self.function(method)
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                self._code(const, scope)

    def _named(self, value: object) -> None:
        if inspect.isclass(value) and _ours(value.__module__):
            for hook in ("__init__", "__post_init__"):
                self.function(vars(value).get(hook))
        elif not inspect.isclass(value) and not inspect.ismodule(value):
            self.function(value)


def reach(
    roots: Iterable[object], shallow: Iterable[object] = (), kind: str | None = None
) -> set[str]:
    """The rule ids the `roots` can raise, plus those the `shallow` functions' own lines raise
    (their dispatch misses left out)."""
    walk = Reach(kind)
    for fn in roots:
        walk.function(fn)
    for fn in shallow:
        walk.shallow(fn)
    return walk.rules


def misses(dispatcher: object, kind: str | None = None) -> set[str]:
    """The ids `dispatcher` raises for an event type its table has no handler for."""
    walk = Reach(kind)
    walk.shallow(dispatcher, misses=True)
    return walk.rules
