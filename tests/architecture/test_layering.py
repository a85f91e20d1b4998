"""The architecture as one test module: every import rule of the tree, read from each module's
own import statements with `ast` (every import statement, also those inside functions and
`TYPE_CHECKING` blocks; relative ones resolved against their package). A module's layer is read
from its path in both layouts: `services/<layer>/...` (the shared pieces) and
`services/<feature>/<layer>/...` or `services/<feature>/<layer>.py` (a feature in one place:
tournaments, leagues, webhooks, the archive); "the adapters" below are both
`services/adapters/` and every `services/<feature>/adapters/`, and so on for each layer.

* storage: outside the adapters (`services/adapters/`) and the composition root (the package
  `services/bootstrap/`, every module of it) no module imports a storage driver (`redis`,
  `psycopg`, `psycopg_pool`) or an adapter (`services.adapters`): doors and use cases reach
  storage through the ports (`services/ports/`), and catch the ports' errors
  (`services.ports.errors`);
* door arrows: no door imports the composition root or the command line (they import the
  doors, not the reverse); no door imports a door of another kind (shared HTTP pieces live in
  `services/doors/asgi/`); the platform pieces (`services/platform/`) import no door, use case,
  adapter, composition root or command;
* purity: `domain/` imports only the standard library, pydantic and `contracts` (and itself)
  and calls no I/O, clock or randomness; `contracts/` imports no inner layer. Packaged card
  data read with `importlib.resources` at import time (read-only data shipped with the code)
  is allowed; every other way to reach the outside is refused;
* features: a feature package is self-contained: nothing outside `services/<feature>/`
  imports its adapters except the composition root.

Source: docs/architecture/index.md ("Architecture").
"""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TREES = ("services", "domain", "contracts")
LAYERS = (
    "adapters",
    "bench",
    "bootstrap",
    "cli",
    "doors",
    "platform",
    "ports",
    "rules",
    "runtime",
    "simulator",
    "usecases",
)
"""The layers of `services/`, each a folder of shared pieces and a part of a feature's path."""
FEATURES = ("tournaments", "leagues", "webhooks", "archive")
"""The feature packages: `services/<feature>/` holds its ports, use cases, adapters and doors."""
TOP_MODULES = ("services/__init__.py", "services/contracts_gen.py")
"""Modules of `services/` in no layer (the package and the schema generator's entry)."""
DRIVERS = ("redis", "psycopg", "psycopg_pool")
ALLOWED = ("adapters", "bootstrap")
"""The layers where storage drivers and adapters may be imported."""


def layer_of(module: str) -> str | None:
    """The layer of a module, from a path (`services/leagues/adapters/redis.py`) or a dotted
    name (`services.leagues.adapters.redis`): `services/<layer>/...` or
    `services/<feature>/<layer>[/...|.py]`; None outside `services/` or for a feature's map
    (its `__init__.py`) and the package itself."""
    parts = module.removesuffix(".py").replace("/", ".").split(".")
    if parts[0] != "services" or len(parts) < 2:
        return None
    if parts[1] in FEATURES:
        return parts[2] if len(parts) > 2 and parts[2] in LAYERS else None
    return parts[1] if parts[1] in LAYERS else None


def feature_of(module: str) -> str | None:
    """The feature a module (path or dotted name) belongs to, None for the shared pieces."""
    parts = module.removesuffix(".py").replace("/", ".").split(".")
    return parts[1] if parts[0] == "services" and len(parts) > 1 and parts[1] in FEATURES else None


def _is_adapter(name: str) -> bool:
    return layer_of(name) == "adapters"


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
            if _is_adapter(name) or any(_matches(name, driver) for driver in DRIVERS)
        }
    )


def _allowed(rel: str) -> bool:
    return layer_of(rel) in ALLOWED or rel.startswith(tuple(EXEMPT))


def test_every_module_of_services_is_in_a_layer() -> None:
    """Every module has a layer read from its path (a new folder is a layer or a feature, said
    here); a feature holds nothing but its map and its layers."""
    found = [
        rel
        for path in sorted((ROOT / "services").rglob("*.py"))
        if (rel := _rel(path)) not in TOP_MODULES
        and layer_of(rel) is None
        and not (feature_of(rel) and rel == f"services/{feature_of(rel)}/__init__.py")
    ]
    assert found == [], "modules in no layer:\n" + "\n".join(found)


def test_the_layer_is_read_from_the_path_in_both_layouts() -> None:
    assert layer_of("services/adapters/redis/keys.py") == "adapters"
    assert layer_of("services/tournaments/adapters/redis.py") == "adapters"
    assert layer_of("services.tournaments.adapters.memory") == "adapters"
    assert layer_of("services/leagues/ports.py") == "ports"
    assert layer_of("services.usecases.record") == "usecases"
    assert layer_of("services/webhooks/usecases/deliver.py") == "usecases"
    assert layer_of("services/tournaments/doors/ingest.py") == "doors"
    assert layer_of("services/tournaments/__init__.py") is None
    assert layer_of("domain/fold.py") is None
    assert feature_of("services.leagues.doors.web") == "leagues"
    assert feature_of("services/doors/web/routes.py") is None


def test_features_are_self_contained() -> None:
    """Nothing outside `services/<feature>/` reaches into a feature's adapters but the
    composition root (a feature's other modules are its own business; its adapters are wired
    by `services/bootstrap/`)."""
    found = sorted(
        f"{_rel(path)}:{line} imports {name}"
        for path in modules()
        if layer_of(_rel(path)) != "bootstrap"
        for line, name in imported(path.read_text(encoding="utf-8"), _rel(path))
        if _is_adapter(name)
        and (feature := feature_of(name)) is not None
        and feature != feature_of(_rel(path))
    )
    assert found == [], "a feature's adapters are wired by the bootstrap only:\n" + "\n".join(found)


def test_the_self_containment_rule_sees_a_foreign_adapter() -> None:
    source = "from services.tournaments.adapters.redis import RedisTournamentLog\n"
    rel = "services/leagues/usecases/probe.py"
    names = [n for _, n in imported(source, rel) if _is_adapter(n) and feature_of(n) != "leagues"]
    assert names == [
        "services.tournaments.adapters.redis",
        "services.tournaments.adapters.redis.RedisTournamentLog",
    ]


def test_only_adapters_and_the_composition_root_import_drivers_or_adapters() -> None:
    found = [v for path in modules() if not _allowed(_rel(path)) for v in violations(path)]
    assert found == [], "doors and use cases reach storage through the ports:\n" + "\n".join(found)


def test_every_exemption_is_still_needed() -> None:
    for prefix in EXEMPT:
        assert any(violations(p) for p in modules() if _rel(p).startswith(prefix)), (
            f"{prefix} imports no driver or adapter any more: delete its exemption"
        )


def test_every_allowed_place_exists_and_imports_adapters() -> None:
    """The allowance names layers that exist and use it (a moved root leaves no stale entry)."""
    for layer in ALLOWED:
        assert (ROOT / "services" / layer).is_dir(), f"services/{layer} is not a folder"
        assert any(violations(p) for p in modules() if layer_of(_rel(p)) == layer), layer


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


# Door arrows ---------------------------------------------------------------------------------

DOORS = ("archiver", "ingest", "projector", "push", "query", "web", "webhooks")
"""The kinds of door: `services/doors/<kind>/` (or `services/doors/<kind>.py`), and in a feature
`services/<feature>/doors/<kind>[_<part>].py` (a file not so named is of the door its feature
is named after: `services/webhooks/doors/loop.py` is the webhooks door). `services/doors/asgi/`
holds the HTTP pieces every door shares."""
SHARED = "asgi"
ABOVE = ("bootstrap", "cli")
"""The layers no door imports (they import the doors, not the reverse)."""


def door_kind(module: str) -> str | None:
    """The kind of door of a door module (path or dotted name); None for the doors' packages."""
    if layer_of(module) != "doors":
        return None
    parts = module.removesuffix(".py").replace("/", ".").split(".")
    feature = feature_of(module)
    if feature is None:  # services.doors.<kind>...
        return parts[2] if len(parts) > 2 and parts[2] != "__init__" else None
    if len(parts) < 4 or parts[3] == "__init__":
        return None
    head = parts[3].split("_")[0]
    return head if head in DOORS else feature


def names(path: Path) -> set[str]:
    """Every module the module at `path` imports (dotted names, relative ones resolved;
    `from x import y` gives `x` and `x.y`)."""
    try:
        rel = _rel(path)
    except ValueError:  # a module outside the tree (the checker's own probe)
        rel = path.name
    return {name for _, name in imported(path.read_text(encoding="utf-8"), rel)}


def door_modules() -> list[tuple[str, Path]]:
    """(kind, path) of every door module in both layouts, the shared HTTP pieces aside."""
    return [
        (kind, path)
        for path in modules()
        if (kind := door_kind(_rel(path))) is not None and kind != SHARED
    ]


def test_the_doors_are_found() -> None:
    found = {door for door, _ in door_modules()}
    assert found == set(DOORS)
    assert len(door_modules()) > 20


def test_the_door_kind_is_read_from_the_path_in_both_layouts() -> None:
    assert door_kind("services/doors/ingest/http.py") == "ingest"
    assert door_kind("services/tournaments/doors/ingest_club.py") == "ingest"
    assert door_kind("services.tournaments.doors.query.summary") == "query"
    assert door_kind("services/webhooks/doors/loop.py") == "webhooks"
    assert door_kind("services/doors/asgi/lean.py") == SHARED
    assert door_kind("services/tournaments/doors/__init__.py") is None
    assert door_kind("services/tournaments/usecases/desk.py") is None


def test_no_door_imports_the_composition_root_or_the_command_line() -> None:
    wrong = [
        f"{path.relative_to(ROOT)} -> {name}"
        for _, path in door_modules()
        for name in names(path)
        if layer_of(name) in ABOVE
    ]
    assert wrong == []


def test_no_door_imports_another_door_directly() -> None:
    """A door imports doors of its own kind only (shared HTTP pieces live in `asgi/`)."""
    wrong = sorted(
        f"{path.relative_to(ROOT)} -> {name}"
        for door, path in door_modules()
        for name in names(path)
        if door_kind(name) not in (None, door, SHARED)
    )
    assert wrong == []


def _other_features_door(name: str, feature: str) -> bool:
    return layer_of(name) == "doors" and feature_of(name) not in (None, feature)


def test_a_feature_mounts_its_own_doors_only() -> None:
    """A feature's doors package (`services/<feature>/doors/__init__.py`: how its doors mount
    themselves) imports no other feature's doors, no composition root and no command line."""
    wrong = [
        f"services/{feature}/doors/__init__.py -> {name}"
        for feature in FEATURES
        if (path := ROOT / "services" / feature / "doors" / "__init__.py").exists()
        for name in names(path)
        if layer_of(name) in ABOVE or _other_features_door(name, feature)
    ]
    assert wrong == []


def test_every_feature_that_mounts_doors_is_assembled() -> None:
    """The HTTP assembly iterates the doors packages: the games' (`services.doors`, first) and
    every feature's whose doors package mounts itself are in `services.bootstrap.http.FEATURES`,
    and nothing else is."""
    from services.bootstrap.http import FEATURES as ASSEMBLED

    mounting = {
        feature
        for feature in FEATURES
        if hasattr(importlib.import_module(f"services.{feature}.doors"), "mount_query")
    }
    assert ASSEMBLED[0].__name__ == "services.doors"
    assert {doors.__name__ for doors in ASSEMBLED[1:]} == {f"services.{f}.doors" for f in mounting}
    assert mounting == {"tournaments", "leagues"}


def test_every_feature_that_runs_a_role_is_started() -> None:
    """The roles' lifespan iterates the features: every feature whose doors package runs a
    role (`ROLE`, `run_role`) is in `services.bootstrap.roles.FEATURE_ROLES`, once, and
    `ROLE` names a field of `Roles`."""
    from services.bootstrap.roles import FEATURE_ROLES, Roles

    running = {
        f"services.{feature}.doors"
        for feature in FEATURES
        if hasattr(importlib.import_module(f"services.{feature}.doors"), "run_role")
    }
    started = [entry.doors.__name__ for entry in FEATURE_ROLES]
    assert (
        sorted(started) == sorted(running) == ["services.archive.doors", "services.webhooks.doors"]
    )
    assert all(entry.doors.ROLE in Roles.__dataclass_fields__ for entry in FEATURE_ROLES)


def test_the_arrow_check_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from services.bootstrap import build_app\n")
    assert "services.bootstrap" in names(module)


def test_the_platform_imports_no_door_use_case_adapter_or_root() -> None:
    above = ("doors", "usecases", "adapters", "bootstrap", "cli")
    wrong = [
        f"{path.relative_to(ROOT)} -> {name}"
        for path in modules()
        if layer_of(_rel(path)) == "platform"
        for name in names(path)
        if layer_of(name) in above
    ]
    assert wrong == []


# Purity --------------------------------------------------------------------------------------

DOMAIN = ROOT / "domain"
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


def _domain_modules() -> list[Path]:
    return sorted(p for p in DOMAIN.rglob("*.py") if "__pycache__" not in p.parts)


def _tops(path: Path) -> set[str]:
    """The top-level packages the module at `path` imports."""
    return {name.split(".")[0] for name in names(path)}


@pytest.mark.parametrize("path", _domain_modules(), ids=lambda p: str(p.relative_to(DOMAIN)))
def test_domain_module_imports_only_stdlib_pydantic_and_contracts(path: Path) -> None:
    imported_tops = _tops(path)
    foreign = {
        m for m in imported_tops if m not in sys.stdlib_module_names and m not in DOMAIN_ALLOWED
    }
    assert not foreign, f"{path.name} imports {sorted(foreign)}"
    banned = imported_tops & BANNED_STDLIB
    assert not banned, f"{path.name} imports I/O, clock or randomness: {sorted(banned)}"


@pytest.mark.parametrize("path", _domain_modules(), ids=lambda p: str(p.relative_to(DOMAIN)))
def test_domain_module_calls_no_io_clock_or_randomness(path: Path) -> None:
    calls = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            calls.add(func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", ""))
    assert not calls & BANNED_CALLS, f"{path.name} calls {sorted(calls & BANNED_CALLS)}"


def test_the_purity_check_would_catch_a_violation(tmp_path: Path) -> None:
    sample = tmp_path / "probe.py"
    sample.write_text("import redis\nfrom datetime import datetime\nx = datetime.now()\n")
    assert "redis" in _tops(sample) - sys.stdlib_module_names - DOMAIN_ALLOWED
    tree = ast.parse(sample.read_text())
    assert any(isinstance(n, ast.Attribute) and n.attr == "now" for n in ast.walk(tree))


def test_contracts_import_no_inner_layer() -> None:
    for path in (ROOT / "contracts").rglob("*.py"):
        assert not _tops(path) & {"domain", "services"}, f"contracts/{path.name} imports inward"


DRIVING_EXEMPT: dict[str, str] = {
    "services/doors/projector/loop.py": "the projector's loop claims shard leases and reads and "
    "trims the feeds itself; moving that behind a use case belongs with the projector's own work",
    "services/doors/projector/readahead.py": "reads the projector's feeds ahead of its loop (the "
    "same work as the loop's)",
}
"""Door modules still allowed to name a port they drive, each with its reason."""

RUNTIME_FORBIDDEN = ("usecases", "doors", "ports", "adapters", "bootstrap")
"""The runtime layer (process pools, worker binding, fair queue, caches) is below the use cases
and the doors: it imports none of them, nor ports or adapters."""


def port_protocols() -> dict[str, set[str]]:
    """Per port module (dotted), the names of the `Protocol` classes it defines: what a caller
    drives (its data classes, enums, constants and errors are not)."""
    found: dict[str, set[str]] = {}
    for path in modules():
        if layer_of(_rel(path)) != "ports":
            continue
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
        elif _is_adapter(name):
            found.add(f"{rel}:{line} imports a port's implementation {name}")
    return sorted(found)


def test_doors_drive_no_port_and_import_no_implementation() -> None:
    """A door calls use cases: it names no port protocol (it may catch the ports' errors and
    read their data classes) and imports no adapter."""
    found = [
        v
        for path in modules()
        if layer_of(_rel(path)) == "doors" and _rel(path) not in DRIVING_EXEMPT
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
        if layer_of(_rel(path)) == "runtime"
        for line, name in imported(path.read_text(encoding="utf-8"), _rel(path))
        if layer_of(name) in RUNTIME_FORBIDDEN
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
        if layer_of(_rel(path)) in ("usecases", "runtime")
        for line, name in imported(path.read_text(encoding="utf-8"), _rel(path))
        if any(_matches(name, prefix) for prefix in DOOR_LIBRARIES)
    ]
    assert found == [], "use cases are told what came in by doors:\n" + "\n".join(found)
