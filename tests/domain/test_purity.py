"""`domain/` stays pure: no I/O, clock, randomness or logging; it imports only the stdlib,
pydantic, `contracts` and itself (data flows contracts -> domain -> services).

Packaged card data is read with `importlib.resources` at import time (read-only data shipped
with the code), which this test allows; every other way to reach the outside is refused.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

DOMAIN = Path(__file__).resolve().parents[2] / "domain"
ALLOWED_THIRD_PARTY = {"pydantic", "pydantic_core", "typing_extensions", "contracts", "domain"}
BANNED_STDLIB = {
    "os",
    "io",
    "socket",
    "random",
    "secrets",
    "time",
    "logging",
    "subprocess",
    "asyncio",
    "threading",
    "multiprocessing",
    "pathlib",
    "shutil",
    "tempfile",
    "urllib",
    "http",
    "sqlite3",
    "uuid_gen",
}
BANNED_CALLS = {"open", "print", "input", "now", "utcnow", "today", "uuid4", "uuid1", "getenv"}


def _modules() -> list[Path]:
    return sorted(p for p in DOMAIN.rglob("*.py") if "__pycache__" not in p.parts)


def _imports(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(DOMAIN)))
def test_domain_module_imports_only_stdlib_pydantic_and_contracts(path: Path) -> None:
    imported = _imports(ast.parse(path.read_text(encoding="utf-8")))
    foreign = {
        m for m in imported if m not in sys.stdlib_module_names and m not in ALLOWED_THIRD_PARTY
    }
    assert not foreign, f"{path.name} imports {sorted(foreign)}"
    banned = imported & BANNED_STDLIB
    assert not banned, f"{path.name} imports I/O, clock or randomness: {sorted(banned)}"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(DOMAIN)))
def test_domain_module_calls_no_io_clock_or_randomness(path: Path) -> None:
    calls = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            calls.add(func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", ""))
    assert not calls & BANNED_CALLS, f"{path.name} calls {sorted(calls & BANNED_CALLS)}"


def test_the_purity_check_would_catch_a_violation() -> None:
    sample = "import redis\nfrom datetime import datetime\nx = datetime.now()\n"
    tree = ast.parse(sample)
    assert "redis" in _imports(tree) - sys.stdlib_module_names - ALLOWED_THIRD_PARTY
    assert any(isinstance(n, ast.Attribute) and n.attr == "now" for n in ast.walk(tree))


def test_services_are_not_imported_by_contracts() -> None:
    contracts = DOMAIN.parent / "contracts"
    for path in contracts.rglob("*.py"):
        imported = _imports(ast.parse(path.read_text(encoding="utf-8")))
        assert not imported & {"domain", "services"}, f"contracts/{path.name} imports inward layers"
