"""The architecture as a test: doors only call. Every module under `services/`, `domain/` and
`contracts/` is parsed with `ast` (every import statement, also those inside functions and
`TYPE_CHECKING` blocks), and:

* outside the adapters (`services/adapters/`) and the composition root (the package
  `services/bootstrap/`, every module of it) no module imports a storage driver (`redis`,
  `psycopg`, `psycopg_pool`) or an adapter (`services.adapters`): doors and use cases reach
  storage through the ports (`services/ports/`), and catch the ports' errors
  (`services.ports.errors`);
* the domain imports only the standard library, pydantic and `contracts` (and itself).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TREES = ("services", "domain", "contracts")
FORBIDDEN = ("redis", "psycopg", "psycopg_pool", "services.adapters")
ALLOWED = ("services/adapters/", "services/bootstrap/")
"""Where storage drivers and adapters may be imported."""

EXEMPT: dict[str, str] = {
    "services/bench/": "the benchmark harness starts and drives Redis servers and clusters itself "
    "(redis-server processes, raw clients to measure against); it is tooling run by `make "
    "bench`, not a door of the service",
}
"""Prefixes allowed to import drivers and adapters anyway, each with its reason."""

DOMAIN_ALLOWED = {
    "__future__",
    "contracts",
    "domain",
    "pydantic",
    "pydantic_core",  # pydantic's own core (`to_json`), installed with it
    "typing_extensions",  # typing's backport (a `TypeVar` default on 3.11), pydantic's dependency
}


def modules() -> list[Path]:
    return sorted(p for tree in TREES for p in (ROOT / tree).rglob("*.py"))


def imported(source: str, rel: str) -> list[tuple[int, str]]:
    """(line, dotted module) of every import in `source` (the module at `rel`, a path from the
    repository's root); `from . import x` resolved against its package, `from a import b`
    given as `a.b` too (so `from services import adapters` counts)."""
    tree = ast.parse(source, rel)
    package = ".".join(Path(rel).with_suffix("").parts[:-1])
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def _matches(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def violations(path: Path, source: str | None = None) -> list[str]:
    """The forbidden imports of the module at `path` (its text: `source`, else the file's)."""
    rel = _rel(path)
    text = path.read_text(encoding="utf-8") if source is None else source
    return sorted(
        {
            f"{rel}:{line} imports {name}"
            for line, name in imported(text, rel)
            for prefix in FORBIDDEN
            if _matches(name, prefix)
        }
    )


def _allowed(rel: str) -> bool:
    return rel.startswith(ALLOWED) or rel.startswith(tuple(EXEMPT))


def test_only_adapters_and_the_composition_root_import_drivers_or_adapters() -> None:
    found = [v for path in modules() if not _allowed(_rel(path)) for v in violations(path)]
    assert found == [], "doors and use cases reach storage through the ports:\n" + "\n".join(found)


def test_every_exemption_is_still_needed() -> None:
    for prefix in EXEMPT:
        assert any(violations(p) for p in modules() if _rel(p).startswith(prefix)), (
            f"{prefix} imports no driver or adapter any more: delete its exemption"
        )


def test_every_allowed_place_exists_and_imports_adapters() -> None:
    """The allowance names places that exist and use it (a moved root leaves no stale entry)."""
    for prefix in ALLOWED:
        assert (ROOT / prefix).is_dir(), f"{prefix} is not a folder of the tree"
        assert any(violations(p) for p in modules() if _rel(p).startswith(prefix)), prefix


def test_the_domain_imports_only_the_standard_library_pydantic_and_contracts() -> None:
    stdlib = set(sys.stdlib_module_names)
    found = [
        f"{path.relative_to(ROOT).as_posix()}:{line} imports {name}"
        for path in sorted((ROOT / "domain").rglob("*.py"))
        for line, name in imported(path.read_text(encoding="utf-8"), _rel(path))
        if name.split(".")[0] not in stdlib | DOMAIN_ALLOWED
    ]
    assert found == [], "the domain is pure:\n" + "\n".join(found)


def test_the_checker_sees_imports_inside_functions_and_relative_ones() -> None:
    """The parser itself: an import in a function body, under `TYPE_CHECKING`, relative, or of
    the adapters' package as a name, is each found (a module that is not on disk)."""
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import psycopg\n"
        "def f():\n    from redis.asyncio import Redis\n"
        "from .. import adapters\n"
        "import services.adapters.redis.connect as c\n"
        "import redistools\n"  # another package whose name starts alike: allowed
    )
    found = violations(ROOT / "services" / "query" / "probe.py", source)
    names = [v.split(" imports ")[1] for v in found]
    assert names == [
        "psycopg",
        "redis.asyncio",
        "redis.asyncio.Redis",
        "services.adapters",
        "services.adapters.redis.connect",
    ]


DOORS = "services/doors/"
DRIVING_EXEMPT: dict[str, str] = {
    "services/doors/projector/loop.py": "the projector's loop claims shard leases and reads and "
    "trims the feeds itself; moving that behind a use case belongs with the projector's own work",
    "services/doors/projector/readahead.py": "reads the projector's feeds ahead of its loop (the "
    "same work as the loop's)",
}
"""Door modules still allowed to name a port they drive, each with its reason."""

RUNTIME = "services/runtime/"
RUNTIME_FORBIDDEN = (
    "services.usecases",
    "services.doors",
    "services.ports",
    "services.adapters",
    "services.bootstrap",
)
"""The runtime layer (process pools, worker binding, fair queue, caches) is below the use cases
and the doors: it imports none of them, nor ports or adapters."""


def port_protocols() -> dict[str, set[str]]:
    """Per port module (dotted), the names of the `Protocol` classes it defines: what a caller
    drives (its data classes, enums, constants and errors are not)."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / "services" / "ports").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), _rel(path))
        names = {
            node.name
            for node in tree.body
            if isinstance(node, ast.ClassDef)
            and any(ast.unparse(base).split(".")[-1].startswith("Protocol") for base in node.bases)
        }
        found[".".join(Path(_rel(path)).with_suffix("").parts)] = names
    return found


def driven_ports(path: Path, source: str | None = None) -> list[str]:
    """The port protocols the module at `path` imports by name (`from services.ports.x import
    EventLog`, or the module itself: `import services.ports.x`), and the adapters it imports
    (a port's implementations)."""
    rel = _rel(path)
    text = path.read_text(encoding="utf-8") if source is None else source
    protocols = port_protocols()
    found = set()
    for line, name in imported(text, rel):
        module, _, leaf = name.rpartition(".")
        if leaf in protocols.get(module, set()):
            found.add(f"{rel}:{line} drives the port {name}")
        elif _matches(name, "services.adapters"):
            found.add(f"{rel}:{line} imports a port's implementation {name}")
    return sorted(found)


def test_doors_drive_no_port_and_import_no_implementation() -> None:
    """A door calls use cases: it names no port protocol (it may catch the ports' errors and
    read their data classes) and imports no adapter."""
    found = [
        v
        for path in modules()
        if _rel(path).startswith(DOORS) and _rel(path) not in DRIVING_EXEMPT
        for v in driven_ports(path)
    ]
    assert found == [], "doors call use cases, not ports:\n" + "\n".join(found)


def test_every_driving_exemption_is_still_needed() -> None:
    for rel in DRIVING_EXEMPT:
        assert driven_ports(ROOT / rel), f"{rel} drives no port any more: delete its exemption"


def test_the_runtime_layer_imports_no_use_case_door_port_or_adapter() -> None:
    found = [
        f"{_rel(path)}:{line} imports {name}"
        for path in modules()
        if _rel(path).startswith(RUNTIME)
        for line, name in imported(path.read_text(encoding="utf-8"), _rel(path))
        if any(_matches(name, prefix) for prefix in RUNTIME_FORBIDDEN)
    ]
    assert found == [], "the runtime layer is below the use cases:\n" + "\n".join(found)


def test_the_door_rule_sees_a_driven_port_and_an_implementation() -> None:
    """The rule itself: a port protocol imported by name and an adapter are each found; a
    port's data class, error and constant are not (a module that is not on disk)."""
    source = (
        "from services.ports.inbox import GROUP, Held, InboxQueue\n"
        "from services.ports.errors import StoreUnavailable\n"
        "def f():\n    from services.adapters.memory.inbox import MemoryInboxQueue\n"
    )
    found = driven_ports(ROOT / "services" / "doors" / "probe.py", source)
    assert [v.split(" ", 1)[1] for v in found] == [
        "drives the port services.ports.inbox.InboxQueue",
        "imports a port's implementation services.adapters.memory.inbox",
        "imports a port's implementation services.adapters.memory.inbox.MemoryInboxQueue",
    ]


DOOR_LIBRARIES = ("faststream", "fastapi", "starlette", "uvicorn")
"""What only doors, the composition root and the command line use: use cases and the runtime
layer know no HTTP and no FastStream (a door hands them plain values)."""


def test_use_cases_and_the_runtime_know_no_http_or_faststream() -> None:
    found = [
        f"{_rel(path)}:{line} imports {name}"
        for path in modules()
        if _rel(path).startswith(("services/usecases/", RUNTIME))
        for line, name in imported(path.read_text(encoding="utf-8"), _rel(path))
        if any(_matches(name, prefix) for prefix in DOOR_LIBRARIES)
    ]
    assert found == [], "use cases are told what came in by doors:\n" + "\n".join(found)
