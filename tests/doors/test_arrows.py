"""Imports run one way: no door imports the composition root or the command line (they import
the doors, not the reverse); no door imports another door (shared HTTP pieces live in
`services/doors/asgi/`); the platform pieces (`services/platform/`) import no door, use case,
adapter, composition root or command. Read from each module's own import statements (also those
inside functions), so a lazy import counts too."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOORS = ("ingest", "projector", "push", "query", "web", "webhooks")
"""The doors under `services/doors/` (besides `asgi/`, the HTTP pieces they share, and
`archiver.py`, the sealing worker)."""
ABOVE = ("services.bootstrap", "services.cli")


def imported(path: Path) -> set[str]:
    """Every module `path` imports (absolute names; `from x import y` gives `x` and `x.y`)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def under(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def door_modules() -> list[tuple[str, Path]]:
    return [
        (door, path)
        for door in DOORS
        for path in sorted((ROOT / "services" / "doors" / door).rglob("*.py"))
    ]


def test_the_doors_are_found() -> None:
    found = {door for door, _ in door_modules()}
    assert found == set(DOORS)
    assert len(door_modules()) > 20


def test_no_door_imports_the_composition_root_or_the_command_line() -> None:
    wrong = [
        f"{path.relative_to(ROOT)} -> {name}"
        for _, path in door_modules()
        for name in imported(path)
        if any(under(name, above) for above in ABOVE)
    ]
    assert wrong == []


def test_no_door_imports_another_door_directly() -> None:
    wrong = sorted(
        f"{path.relative_to(ROOT)} -> {name}"
        for door, path in door_modules()
        for name in imported(path)
        for other in DOORS
        if other != door and under(name, f"services.doors.{other}")
    )
    assert wrong == []


def test_the_check_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from services.bootstrap import build_app\n")
    assert "services.bootstrap" in imported(module)


def test_the_platform_imports_no_door_use_case_adapter_or_root() -> None:
    above = (
        "services.doors",
        "services.usecases",
        "services.adapters",
        "services.bootstrap",
        "services.cli",
    )
    wrong = [
        f"{path.relative_to(ROOT)} -> {name}"
        for path in sorted((ROOT / "services" / "platform").rglob("*.py"))
        for name in imported(path)
        if any(under(name, a) for a in above)
    ]
    assert wrong == []
